/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The protocol switch to HTTP/2 (ewyk_http_server_conf.h2c): a
 * connection whose first bytes are the HTTP/2 preface, or whose request
 * asks for Upgrade: h2c, is handed over with what it received; lib/http
 * then lets go of it (the object is released as after a reset, but the
 * TCP connection is the new owner's).
 */

#include <string.h>
#include <strings.h>

#include <rte_mbuf.h>

#include "http_private.h"

static const char preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/* Let go of the connection: its TCP side and received bytes are gone.
 * The bytes of the requests this run finished before the switch are
 * counted in, as the end of the run would have (the switch hands them
 * to the new protocol, which releases them to TCP). */
static void
detach(struct ewyk_http_conn *c)
{
	if (c->rx_done != 0)
		HTTP_CTR(c->srv, BYTES_IN, c->rx_done);
	c->tcp = NULL;
	c->rx = NULL;
	c->rx_pos = NULL;
	c->rx_off = 0;
	c->rx_done = 0;
	c->rx_pos_off = 0;
}

int
http_switch_preface(struct ewyk_http_conn *c)
{
	struct ewyk_http_server *s = c->srv;
	const struct rte_mbuf *m;
	uint32_t n = 0, i;

	for (m = c->rx; m != NULL && n < sizeof(preface) - 1; m = m->next)
		for (i = 0; i < m->data_len && n < sizeof(preface) - 1;
			i++, n++)
			if (rte_pktmbuf_mtod(m, const char *)[i] !=
				preface[n]) {
				c->h2_maybe = 0;
				return 0;
			}
	if (n < sizeof(preface) - 1)
		return c->eof ? 0 : -1; /* so far so good: wait */
	c->h2_maybe = 0;
	if (s->conf.h2c(s->conf.h2c_arg, c->tcp, c->rx, 0, NULL) != 0)
		return 0;
	detach(c);
	return 1;
}

/* Whether a comma-separated field value lists @p tok. */
static int
has_token(struct ewyk_http_view v, const char *tok)
{
	size_t tl = strlen(tok);
	uint32_t i = 0, b, e;

	while (i < v.len) {
		while (i < v.len &&
			(v.p[i] == ' ' || v.p[i] == '\t' || v.p[i] == ','))
			i++;
		b = i;
		while (i < v.len && v.p[i] != ',')
			i++;
		e = i;
		while (e > b && (v.p[e - 1] == ' ' || v.p[e - 1] == '\t'))
			e--;
		if (e - b == tl && strncasecmp(v.p + b, tok, tl) == 0)
			return 1;
	}
	return 0;
}

int
http_switch_upgrade(struct ewyk_http_conn *c)
{
	struct ewyk_http_server *s = c->srv;
	const struct ewyk_http_request *q = &c->req;
	int up = 0, set = 0;
	uint16_t i;

	c->h2_maybe = 0;
	/* RFC 9113 drops h2c; RFC 7540 3.2 defined it, and curl --http2
	 * still asks. A request with a body is served as HTTP/1.1. */
	if (q->framing != EWYK_HTTP_BODY_NONE || q->version_minor != 1)
		return 0;
	for (i = 0; i < q->nheaders; i++) {
		const struct ewyk_http_header *h = &q->headers[i];

		if (h->name.len == 7 &&
			strncasecmp(h->name.p, "upgrade", 7) == 0)
			up |= has_token(h->value, "h2c");
		else if (h->name.len == 14 &&
			strncasecmp(h->name.p, "http2-settings", 14) == 0)
			set++;
	}
	if (!up || set != 1)
		return 0;
	/* The responses to the requests before it (this run's) go out
	 * first; if TCP does not take them now, the request is served as
	 * HTTP/1.1 (Upgrade is optional, RFC 9110 7.8). */
	if (c->stage != NULL && (http_conn_send(c, NULL) != 0 || c->tx != NULL))
		return 0;
	if (s->conf.h2c(s->conf.h2c_arg, c->tcp, c->rx, c->rx_off, q) != 0)
		return 0;
	detach(c);
	return 1;
}
