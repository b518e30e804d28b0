/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection layer, response side: one API for whole and streamed bodies,
 * written through lib/tcp under its flow control (a producer is called
 * only while ewyk_tcp_send_space() says TCP takes bytes). And the calls a
 * handler makes on its request beside the response.
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_mbuf.h>

#include <ewyk_tcp.h>

#include "http_private.h"

void
http_conn_count_status(struct ewyk_http_server *s, uint16_t status)
{
	switch (status / 100) {
	case 1:
		HTTP_CTR(s, RESP_1XX, 1);
		return;
	case 2:
		HTTP_CTR(s, RESP_2XX, 1);
		return;
	case 3:
		HTTP_CTR(s, RESP_3XX, 1);
		return;
	case 4:
		HTTP_CTR(s, RESP_4XX, 1);
		break;
	default:
		HTTP_CTR(s, RESP_5XX, 1);
		break;
	}
	switch (status) {
	case 400:
		HTTP_CTR(s, RESP_400, 1);
		break;
	case 404:
		HTTP_CTR(s, RESP_404, 1);
		break;
	case 405:
		HTTP_CTR(s, RESP_405, 1);
		break;
	case 408:
		HTTP_CTR(s, RESP_408, 1);
		break;
	case 413:
		HTTP_CTR(s, RESP_413, 1);
		break;
	case 414:
		HTTP_CTR(s, RESP_414, 1);
		break;
	case 417:
		HTTP_CTR(s, RESP_417, 1);
		break;
	case 431:
		HTTP_CTR(s, RESP_431, 1);
		break;
	case 500:
		HTTP_CTR(s, RESP_500, 1);
		break;
	case 501:
		HTTP_CTR(s, RESP_501, 1);
		break;
	case 503:
		HTTP_CTR(s, RESP_503, 1);
		break;
	case 504:
		HTTP_CTR(s, RESP_504, 1);
		break;
	case 505:
		HTTP_CTR(s, RESP_505, 1);
		break;
	default:
		if (status / 100 == 4)
			HTTP_CTR(s, RESP_4XX_OTHER, 1);
		else
			HTTP_CTR(s, RESP_5XX_OTHER, 1);
	}
}

/* Queue @p m behind what waits in c->tx. 0, or -ENOBUFS (m freed). */
static int
tx_queue(struct ewyk_http_conn *c, struct rte_mbuf *m)
{
	HTTP_CTR(c->srv, BYTES_OUT, m->pkt_len);
	if (c->tx == NULL) {
		c->tx = m;
		return 0;
	}
	if (rte_pktmbuf_chain(c->tx, m) != 0) {
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	return 0;
}

/*
 * Hand bytes to TCP, after whatever it refused before (kept in c->tx, in
 * order) and the responses of this run not handed over yet (c->stage).
 * Returns 0 (sent or queued) or -ENOTCONN, -ENOBUFS.
 */
int
http_conn_send(struct ewyk_http_conn *c, struct rte_mbuf *m)
{
	struct rte_mbuf *st = c->stage;
	int ret;

	c->stage = NULL;
	if (c->tcp == NULL) {
		rte_pktmbuf_free(st);
		rte_pktmbuf_free(m);
		return -ENOTCONN;
	}
	if (st != NULL && tx_queue(c, st) != 0) {
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	if (m != NULL && tx_queue(c, m) != 0)
		return -ENOBUFS;
	if (c->tx == NULL)
		return 0;
	ret = ewyk_tcp_send(c->tcp, c->tx);
	if (ret == 0) {
		c->tx = NULL;
		return 0;
	}
	if (ret == -EAGAIN) {
		http_conn_timer(c, HT_WRITE, c->srv->conf.write_timeout_ms);
		return 0;
	}
	return ret;
}

/* The head @p r asks for, appended from the cache to @p m (a fresh
 * mbuf or the run's staged one); false when the cache holds another or
 * it does not fit. */
static bool
head_cached(struct ewyk_http_server *s, const struct ewyk_http_response *r,
	struct rte_mbuf *m)
{
	const struct http_head_cache *hc = &s->head_cache;
	char *p;

	if (hc->len == 0 || hc->sec != s->date.sec || hc->status != r->status ||
		hc->framing != r->framing || hc->clen != r->content_length ||
		hc->connection != r->connection ||
		hc->has_ctype != (r->content_type != NULL) ||
		(r->content_type != NULL &&
			strcmp(r->content_type, hc->ctype) != 0))
		return false;
	p = rte_pktmbuf_append(m, hc->len);
	if (p == NULL)
		return false;
	rte_memcpy(p, hc->head, hc->len);
	return true;
}

/* Keep the head just built at @p off in the one-buffer @p m for the
 * next. */
static void
head_cache_put(struct ewyk_http_server *s, const struct ewyk_http_response *r,
	const struct rte_mbuf *m, uint16_t off)
{
	struct http_head_cache *hc = &s->head_cache;
	size_t cl = r->content_type != NULL ? strlen(r->content_type) : 0;
	uint16_t len = (uint16_t)(m->data_len - off);

	if (len > sizeof(hc->head) || cl >= sizeof(hc->ctype)) {
		hc->len = 0;
		return;
	}
	hc->sec = s->date.sec;
	hc->clen = r->content_length;
	hc->status = r->status;
	hc->framing = r->framing;
	hc->connection = r->connection;
	hc->has_ctype = r->content_type != NULL;
	if (cl > 0)
		memcpy(hc->ctype, r->content_type, cl);
	hc->ctype[cl] = '\0';
	memcpy(hc->head, rte_pktmbuf_mtod_offset(m, const char *, off), len);
	hc->len = len;
}

/*
 * The response head, appended to the one-buffer @p m (a fresh buffer or
 * this run's staged responses). 0, or -ENOSPC (no room: @p m unchanged),
 * -EINVAL.
 */
static int
head_put(struct ewyk_http_conn *c, struct rte_mbuf *m, uint16_t status,
	const char *ctype, const char *extra, int framing, uint64_t len)
{
	struct ewyk_http_response r;
	uint16_t off = m->data_len;
	int ret;

	memset(&r, 0, sizeof(r));
	r.status = status;
	r.framing = (uint8_t)framing;
	r.content_length = len;
	r.content_type = ctype;
	r.extra = extra;
	/* after the peer's FIN, the last of the requests it sent closes */
	if (!c->req.keep_alive || c->close_after ||
		(c->eof && c->rx_off == (c->rx == NULL ? 0 : c->rx->pkt_len)))
		r.connection = EWYK_HTTP_CONN_CLOSE;
	else if (c->req.version_minor == 0)
		r.connection = EWYK_HTTP_CONN_KEEP_ALIVE;
	if (extra == NULL && head_cached(c->srv, &r, m))
		return 0;
	ret = ewyk_http_response_head_mbuf(m, &r, &c->srv->date);
	if (ret != 0)
		return ret;
	if (extra == NULL)
		head_cache_put(c->srv, &r, m, off);
	return 0;
}

/* Response head in a fresh mbuf. */
static struct rte_mbuf *
head_mbuf(struct ewyk_http_conn *c, uint16_t status, const char *ctype,
	const char *extra, int framing, uint64_t len)
{
	struct rte_mbuf *m;

	m = rte_pktmbuf_alloc(c->srv->conf.pool);
	if (m == NULL)
		return NULL;
	if (head_put(c, m, status, ctype, extra, framing, len) != 0) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	return m;
}

/*
 * A whole response of @p blen body bytes made inside the connection's
 * run (the handler's, for each request of a pipelined burst) goes after
 * the run's earlier ones, in the same buffer, when it fits there: one
 * buffer and one ewyk_tcp_send() per burst, not one of each per
 * response. Returns that buffer with the head appended, or NULL when it
 * does not fit (the staged responses were handed to TCP then, to stay
 * ahead of this one: *err < 0 if that failed).
 */
static struct rte_mbuf *
head_staged(struct ewyk_http_conn *c, uint16_t status, const char *ctype,
	const char *extra, uint32_t len, uint32_t blen, int *err)
{
	struct rte_mbuf *m = c->stage;
	uint16_t dl;

	*err = 0;
	if (m == NULL)
		return NULL;
	dl = m->data_len;
	if (head_put(c, m, status, ctype, extra, EWYK_HTTP_BODY_LENGTH, len) ==
			0 &&
		rte_pktmbuf_tailroom(m) >= blen)
		return m;
	m->data_len = dl;
	m->pkt_len = dl;
	*err = http_conn_send(c, NULL);
	return NULL;
}

/* Responses that carry no content whatever the handler gives: HEAD
 * (RFC 9110 9.3.2), 204 and 304 (15.3.5, 15.4.5). */
static inline int
resp_bodiless(const struct ewyk_http_conn *c, uint16_t status)
{
	return c->req.head || status == 204 || status == 304;
}

/* The response is in TCP's hands (or queued for it) whole. */
static void
resp_finished(struct ewyk_http_conn *c)
{
	c->resp_done = 1;
	c->prod = NULL;
	if (!c->in_run)
		http_conn_run(c);
}

static int
resp_start(struct ewyk_http_conn *c, uint16_t status)
{
	if (c == NULL || !c->used || status < 200 || status > 999)
		return -EINVAL;
	/* Answered already (and maybe waiting for the next request). */
	if (c->responded || c->st == HC_HEAD)
		return -EALREADY;
	c->responded = 1;
	c->status = status;
	/* Counted when it goes out: a response to a connection already gone
	 * (the last write of a stream cut short) is not one. */
	if (c->tcp != NULL) {
		if (likely(status - 200u < 100u))
			HTTP_CTR(c->srv, RESP_2XX, 1); /* nearly every one */
		else
			http_conn_count_status(c->srv, status);
	}
	/* A client that expected 100 and did not get it may never send the
	 * body: do not wait for it, close after the response. */
	if (c->st == HC_BODY && c->req.expect_continue && !c->body_started &&
		c->body_cb == NULL)
		c->close_after = 1;
	return 0;
}

int
ewyk_http_respond(struct ewyk_http_conn *c, uint16_t status,
	const char *content_type, const char *extra, const void *body,
	uint32_t len)
{
	struct rte_mbuf *m, *last;
	const char *p = body;
	uint32_t blen;
	int ret;

	if (body == NULL && len > 0)
		return -EINVAL;
	/* Before resp_start(): refused, the request still waits for its
	 * response (a stream). */
	if (len > EWYK_HTTP_RESPOND_MAX)
		return -EMSGSIZE;
	ret = resp_start(c, status);
	if (ret != 0)
		return ret;
	if (c->tcp == NULL) {
		resp_finished(c);
		return 0;
	}
	blen = resp_bodiless(c, status) ? 0 : len;
	m = head_staged(c, status, content_type, extra, len, blen, &ret);
	if (ret != 0)
		goto nomem;
	if (m == NULL)
		m = head_mbuf(c, status, content_type, extra,
			EWYK_HTTP_BODY_LENGTH, len);
	if (m == NULL)
		goto nomem;
	last = m;
	len = blen;
	while (len > 0) {
		uint32_t n = RTE_MIN(len, (uint32_t)rte_pktmbuf_tailroom(last));
		char *d;

		if (n == 0) {
			struct rte_mbuf *s = rte_pktmbuf_alloc(
				c->srv->conf.pool);

			if (s == NULL || rte_pktmbuf_chain(m, s) != 0) {
				rte_pktmbuf_free(s);
				rte_pktmbuf_free(m);
				goto nomem;
			}
			last = s;
			continue;
		}
		d = rte_pktmbuf_append(m, (uint16_t)n);
		if (d == NULL) { /* not the last segment's room: append there */
			d = rte_pktmbuf_mtod_offset(last, char *,
				last->data_len);
			last->data_len += (uint16_t)n;
			m->pkt_len += n;
		}
		memcpy(d, p, n);
		p += n;
		len -= n;
	}
	if (m == c->stage) {
		/* after the run's earlier responses: goes with them */
	} else if (c->in_run && m->nb_segs == 1 && c->tx == NULL &&
		c->rx != NULL && c->rx_off < c->rx->pkt_len) {
		/* more requests wait behind this one: the run's end hands
		 * their responses to TCP with it */
		c->stage = m;
	} else if (http_conn_send(c, m) != 0) {
		goto nomem;
	}
	resp_finished(c);
	return 0;
nomem:
	http_conn_abort(c);
	resp_finished(c);
	return -ENOMEM;
}

int
ewyk_http_respond_stream(struct ewyk_http_conn *c, uint16_t status,
	const char *content_type, const char *extra, uint64_t len,
	ewyk_http_producer_t prod, void *arg)
{
	struct rte_mbuf *m;
	int chunked = len == EWYK_HTTP_LEN_CHUNKED;
	int framing;
	int ret;

	if (prod == NULL)
		return -EINVAL;
	ret = resp_start(c, status);
	if (ret != 0)
		return ret;
	if (c->tcp == NULL) {
		resp_finished(c);
		return 0;
	}
	framing = chunked ? EWYK_HTTP_BODY_CHUNKED : EWYK_HTTP_BODY_LENGTH;
	if (chunked && c->req.version_minor == 0 && !resp_bodiless(c, status)) {
		/* No Transfer-Encoding to HTTP/1.0 (RFC 9112 6.1): the body
		 * is delimited by closing the connection (6.3 item 8). */
		chunked = 0;
		framing = EWYK_HTTP_BODY_CLOSE;
		c->close_after = 1;
	}
	m = head_mbuf(c, status, content_type, extra, framing,
		framing == EWYK_HTTP_BODY_LENGTH ? len : 0);
	if (m == NULL || http_conn_send(c, m) != 0) {
		http_conn_abort(c);
		resp_finished(c);
		return -ENOMEM;
	}
	if (resp_bodiless(c, status) || (!chunked && len == 0)) {
		resp_finished(c);
		return 0;
	}
	c->prod = prod;
	c->prod_wait = 0;
	c->prod_arg = arg;
	c->prod_left = len;
	c->prod_off = 0;
	c->chunked = (uint8_t)chunked;
	return http_conn_pump(c);
}

/*
 * Produce while TCP takes bytes. Returns 0, or a negative errno after
 * which the connection has been aborted.
 */
/* A body with no length, ended by closing (a chunked stream to 1.0). */
#define PROD_TO_CLOSE(c) \
	(!(c)->chunked && (c)->prod_left == EWYK_HTTP_LEN_CHUNKED)

int
http_conn_pump(struct ewyk_http_conn *c)
{
	while (c->prod != NULL) {
		struct rte_mbuf *m;
		uint32_t space, room;
		int n;

		if (c->tcp == NULL)
			goto fail;
		if (c->tx != NULL) {
			if (http_conn_send(c, NULL) != 0)
				goto fail;
			if (c->tx != NULL)
				return 0; /* writable follows */
		}
		space = ewyk_tcp_send_space(c->tcp);
		/* With the buffer (nearly) full, one more mbuf is made: TCP
		 * refuses it, keeps it for later in c->tx, and that refusal is
		 * what brings the writable event. */
		if (space < 64)
			space = UINT16_MAX;
		m = rte_pktmbuf_alloc(c->srv->conf.pool);
		if (m == NULL)
			goto fail;
		room = rte_pktmbuf_tailroom(m) - (c->chunked ? 2 : 0);
		room = RTE_MIN(room, space - (c->chunked ? 32 : 0));
		if (!c->chunked && c->prod_left < room)
			room = (uint32_t)c->prod_left;
		n = c->prod(c, rte_pktmbuf_mtod(m, char *), room, c->prod_off,
			c->prod_arg);
		if (n == -EAGAIN) {
			/* Nothing now: ewyk_http_stream_resume() follows. */
			c->prod_wait = 1;
			rte_pktmbuf_free(m);
			if (c->tmo == HT_WRITE)
				ewyk_twheel_cancel(c->srv->conf.wheel, &c->tmr);
			if (c->tmo == HT_WRITE)
				c->tmo = HT_NONE;
			return 0;
		}
		if (n < 0 || (uint32_t)n > room ||
			(n == 0 && !c->chunked && !PROD_TO_CLOSE(c))) {
			rte_pktmbuf_free(m);
			goto fail;
		}
		if (n == 0 && PROD_TO_CLOSE(c)) {
			/* close-delimited: the close after it ends the body */
			rte_pktmbuf_free(m);
			resp_finished(c);
			return 0;
		}
		if (n == 0) {
			if (ewyk_http_chunk_last_mbuf(m) != 0 ||
				http_conn_send(c, m) != 0)
				goto fail;
			resp_finished(c);
			return 0;
		}
		rte_pktmbuf_append(m, (uint16_t)n);
		if (c->chunked && ewyk_http_chunk_wrap_mbuf(m) != 0) {
			rte_pktmbuf_free(m);
			goto fail;
		}
		c->prod_off += (uint64_t)n;
		if (!c->chunked && !PROD_TO_CLOSE(c))
			c->prod_left -= (uint64_t)n;
		if (http_conn_send(c, m) != 0)
			goto fail;
		if (!c->chunked && c->prod_left == 0) {
			resp_finished(c);
			return 0;
		}
	}
	return 0;
fail:
	http_conn_abort(c);
	resp_finished(c);
	return -ECONNABORTED;
}

int
ewyk_http_stream_resume(struct ewyk_http_conn *c)
{
	if (c == NULL || !c->used || c->prod == NULL)
		return -EINVAL;
	c->prod_wait = 0;
	if (c->tcp != NULL && c->tx != NULL)
		return 0; /* writable follows and pumps */
	/* with the connection gone the pump fails: -ECONNABORTED, and
	 * the object is released */
	return http_conn_pump(c);
}

/* Answer an error the connection made itself, and close after it. */
int
http_conn_error(struct ewyk_http_conn *c, uint16_t status)
{
	c->close_after = 1;
	return ewyk_http_respond(c, status, "text/plain", NULL,
		ewyk_http_reason(status),
		(uint32_t)strlen(ewyk_http_reason(status)));
}

/* ---- the handler's calls on its request: the body (the 100 Continue
 * it is owed), the end-of-request callback, accessors ---- */

int
ewyk_http_read_body(struct ewyk_http_conn *c, ewyk_http_body_cb_t cb, void *arg)
{
	struct rte_mbuf *m;
	static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";

	if (c == NULL || cb == NULL || !c->in_handler)
		return -EINVAL;
	if (c->st != HC_BODY)
		return -ENOENT;
	c->body_cb = cb;
	c->body_arg = arg;
	if (c->req.expect_continue && !c->responded && c->tcp != NULL) {
		m = rte_pktmbuf_alloc(c->srv->conf.pool);
		if (m == NULL)
			return -ENOMEM;
		memcpy(rte_pktmbuf_append(m, sizeof(cont) - 1), cont,
			sizeof(cont) - 1);
		HTTP_CTR(c->srv, CONTINUE_SENT, 1);
		http_conn_count_status(c->srv, 100);
		http_conn_send(c, m);
	}
	return 0;
}

int
ewyk_http_on_done(struct ewyk_http_conn *c, ewyk_http_done_t fn, void *arg)
{
	if (c == NULL || !c->used)
		return -EINVAL;
	c->done = fn;
	c->done_arg = arg;
	return 0;
}

const struct ewyk_http_request *
ewyk_http_conn_request(const struct ewyk_http_conn *c)
{
	if (c == NULL || !c->used || c->st == HC_HEAD)
		return NULL;
	return &c->req;
}

int
ewyk_http_conn_alive(const struct ewyk_http_conn *c)
{
	return c != NULL && c->tcp != NULL;
}
