/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A shard's HTTP/2 layer: its objects (connections with their header
 * buffers, streams), the nghttp2 options every session gets, and the
 * lib/tcp side of a connection: taking one over from lib/http (the
 * preface, or Upgrade: h2c with its 101 and stream 1) and its events.
 */

#include <errno.h>
#include <string.h>
#include <strings.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include <ewyk_http_server.h>
#include <ewyk_tcp.h>

#include "http2_config.h"
#include "http2_private.h"

/* ---- lib/tcp ---- */

static uint32_t
tcp_space(void *arg)
{
	return ewyk_tcp_send_space(arg);
}

static int
tcp_send(void *arg, struct rte_mbuf *m)
{
	int rc = ewyk_tcp_send(arg, m);

	if (rc == -EAGAIN)
		return rc;
	if (rc != 0)
		rte_pktmbuf_free(m); /* cannot send any more: ending */
	return 0;
}

static void
tcp_end(void *arg, int how)
{
	if (how == 2)
		ewyk_tcp_shutdown(arg);
	else if (how == 1)
		ewyk_tcp_close(arg);
	else
		ewyk_tcp_abort(arg);
}

static int
tcp_peer(void *arg, struct ewyk_tcp_conn_info *ti)
{
	ewyk_tcp_conn_info(arg, ti);
	return 0;
}

static const struct h2_io tcp_io = {
	.space = tcp_space,
	.send = tcp_send,
	.end = tcp_end,
	.peer = tcp_peer,
	.linger = 1,
};

struct ewyk_tcp_conn *
ewyk_http2_stream_tcp(const struct ewyk_http2_stream *st)
{
	if (st == NULL || st->c == NULL || st->c->io != &tcp_io)
		return NULL;
	return st->c->io_arg;
}

static void
ev_recv(void *ctx, struct ewyk_tcp_conn *tc, struct rte_mbuf *m)
{
	struct h2_conn *c = ctx;
	struct rte_mbuf *s;
	int rc = 0;

	/* nghttp2 takes every byte it is given: the window opens now */
	ewyk_tcp_recvd(tc, m->pkt_len);
	if (c->lingering) {
		rte_pktmbuf_free(m); /* after our GOAWAY: dropped */
		return;
	}
	for (s = m; s != NULL && rc == 0; s = s->next)
		if (s->data_len > 0)
			rc = h2_conn_input(c, rte_pktmbuf_mtod(s, uint8_t *),
				s->data_len);
	rte_pktmbuf_free(m);
	if (rc != 0)
		return;
	if (c->srv->holding) {
		/* the end of the receive pass flushes it, with what the
		 * pass's other segments for it bring */
		if (!c->held) {
			c->held = 1;
			c->hnext = c->srv->hflush;
			c->srv->hflush = c;
		}
		return;
	}
	h2_conn_flush(c);
}

static void
ev_eof(void *ctx, struct ewyk_tcp_conn *tc)
{
	struct h2_conn *c = ctx;

	RTE_SET_USED(tc);
	c->eof = 1;
	if (c->lingering) {
		h2_conn_unlinger(c, 1);
		return;
	}
	h2_conn_flush(c);
}

static void
ev_writable(void *ctx, struct ewyk_tcp_conn *tc)
{
	RTE_SET_USED(tc);
	h2_conn_flush(ctx);
}

static void
ev_closed(void *ctx, struct ewyk_tcp_conn *tc, int err)
{
	struct h2_conn *c = ctx;

	RTE_SET_USED(tc);
	RTE_SET_USED(err);
	c->gone = 1;
	if (c->lingering) {
		h2_conn_unlinger(c, -1);
		return;
	}
	h2_conn_gone(c);
}

static const struct ewyk_tcp_ops h2_tcp_ops = {
	.recv = ev_recv,
	.eof = ev_eof,
	.writable = ev_writable,
	.closed = ev_closed,
};

/* ---- Upgrade: h2c ---- */

static int
b64url(const char *in, uint32_t n, uint8_t *out, uint32_t cap)
{
	uint32_t acc = 0, bits = 0, o = 0, i;

	for (i = 0; i < n; i++) {
		char ch = in[i];
		uint32_t v;

		if (ch >= 'A' && ch <= 'Z')
			v = (uint32_t)(ch - 'A');
		else if (ch >= 'a' && ch <= 'z')
			v = (uint32_t)(ch - 'a' + 26);
		else if (ch >= '0' && ch <= '9')
			v = (uint32_t)(ch - '0' + 52);
		else if (ch == '-' || ch == '+')
			v = 62;
		else if (ch == '_' || ch == '/')
			v = 63;
		else if (ch == '=')
			break;
		else
			return -EINVAL;
		acc = (acc << 6) | v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o == cap)
				return -EINVAL;
			out[o++] = (uint8_t)(acc >> bits);
		}
	}
	return (int)o;
}

static const struct ewyk_http_header *
field(const struct ewyk_http_request *q, const char *name)
{
	size_t n = strlen(name);
	uint16_t i;

	for (i = 0; i < q->nheaders; i++)
		if (q->headers[i].name.len == n &&
			strncasecmp(q->headers[i].name.p, name, n) == 0)
			return &q->headers[i];
	return NULL;
}

static int
hop_by_hop(struct ewyk_http_view n)
{
	static const char *const hop[] = { "connection", "upgrade",
		"http2-settings", "keep-alive", "te", "transfer-encoding",
		"proxy-connection", "host" };
	unsigned int i;

	for (i = 0; i < RTE_DIM(hop); i++)
		if (strlen(hop[i]) == n.len &&
			strncasecmp(n.p, hop[i], n.len) == 0)
			return 1;
	return 0;
}

static struct ewyk_http_view
hcopy(struct h2_conn *c, struct ewyk_http_view v)
{
	struct ewyk_http_view r = { c->hbuf + c->hbytes, v.len };

	memcpy(c->hbuf + c->hbytes, v.p, v.len);
	c->hbytes += v.len;
	return r;
}

/* The upgraded request becomes stream 1, half-closed (remote). */
static int
upgrade(struct h2_conn *c, const struct ewyk_http_request *q,
	const uint8_t *set, int setlen)
{
	static const char sw[] = "HTTP/1.1 101 Switching Protocols\r\n"
				 "Connection: Upgrade\r\nUpgrade: h2c\r\n\r\n";
	const struct ewyk_http2_conf *cf = &c->srv->conf;
	struct ewyk_http2_stream *st;
	uint16_t i;

	if (h2_out_put(c, (const uint8_t *)sw, sizeof(sw) - 1) != 0)
		return -ENOMEM;
	st = h2_stream_new(c, 1);
	if (st == NULL)
		return -ENOBUFS;
	if (nghttp2_session_upgrade2(c->sess, set, (size_t)setlen, q->head,
		    st) != 0)
		return -EINVAL;
	H2_CTR(c->srv, STREAMS, 1);
	c->hbytes = 0;
	c->nh = 0;
	/* lib/http's limits held it; ours hold it too, or 431 */
	if ((uint64_t)q->method.len + q->target.len + q->host.len + 96 >
		cf->max_header_list) {
		st->too_large = 1;
	} else {
		st->method = hcopy(c, q->method);
		st->path = hcopy(c, q->target);
		st->authority = hcopy(c, q->host);
		c->hbytes += 96;
	}
	for (i = 0; i < q->nheaders && !st->too_large && !st->too_many; i++) {
		const struct ewyk_http_header *h = &q->headers[i];

		if (hop_by_hop(h->name))
			continue;
		if ((uint64_t)c->hbytes + h->name.len + h->value.len + 32 >
			cf->max_header_list) {
			st->too_large = 1;
		} else if (c->nh >= cf->max_header_fields) {
			st->too_many = 1;
		} else {
			c->hdrs[c->nh].name = hcopy(c, h->name);
			c->hdrs[c->nh].value = hcopy(c, h->value);
			c->hbytes += 32;
			c->nh++;
		}
	}
	st->req_done = 1;
	c->up_st = st; /* h2_conn_input() hands it on */
	return 0;
}

int
ewyk_http2_conn_start(void *arg, struct ewyk_tcp_conn *tc, struct rte_mbuf *rx,
	uint32_t rx_off, const struct ewyk_http_request *up)
{
	struct ewyk_http2_server *s = arg;
	uint8_t set[512];
	int setlen = 0, rc = 0;
	struct h2_conn *c;
	struct rte_mbuf *m;
	uint32_t off;

	if (s == NULL || tc == NULL)
		return -EINVAL;
	if (up != NULL) {
		const struct ewyk_http_header *h = field(up, "http2-settings");

		if (h == NULL)
			return -EINVAL;
		setlen = b64url(h->value.p, h->value.len, set, sizeof(set));
		if (setlen < 0 || setlen % 6 != 0)
			return -EINVAL;
	}
	c = h2_conn_open(s, &tcp_io, tc);
	if (c == NULL)
		return -ENOBUFS;
	ewyk_tcp_conn_set_ops(tc, &h2_tcp_ops);
	ewyk_tcp_conn_set_ctx(tc, c);
	/* The chain is ours now: out of TCP's budgets, its window open. */
	if (rx != NULL) {
		ewyk_tcp_recv_release(tc, rx->nb_segs);
		ewyk_tcp_recvd(tc, rx->pkt_len);
	}
	c->in_recv = 1; /* the 101 leads, then SETTINGS */
	if (up != NULL) {
		H2_CTR(s, CONN_UPGRADED, 1);
		rc = upgrade(c, up, set, setlen);
	} else {
		H2_CTR(s, CONN_PRIOR, 1);
	}
	c->in_recv = 0;
	if (rc != 0) {
		rte_pktmbuf_free(rx);
		c->gone = 1;
		h2_conn_gone(c);
		ewyk_tcp_abort(tc);
		return 0; /* taken, and reset */
	}
	off = rx_off;
	for (m = rx; m != NULL && rc == 0; m = m->next) {
		if (off >= m->data_len) {
			off -= m->data_len;
			continue;
		}
		rc = h2_conn_input(c,
			rte_pktmbuf_mtod_offset(m, uint8_t *, off),
			m->data_len - off);
		off = 0;
	}
	rte_pktmbuf_free(rx);
	if (rc == 0)
		h2_conn_flush(c);
	return 0;
}

/* ---- the server ---- */

static void
conf_defaults(struct ewyk_http2_conf *c)
{
#define DEF(f, v)                 \
	do {                      \
		if (c->f == 0)    \
			c->f = v; \
	} while (0)
	DEF(max_conns, 256);
	DEF(max_streams, 4096);
	DEF(max_conns_per_src, RTE_MAX(c->max_conns / 4, 1u));
	DEF(max_streams_per_src, RTE_MAX(c->max_streams / 4, 1u));
	DEF(max_concurrent_streams, 100);
	DEF(max_header_list, 16384);
	DEF(max_header_fields, 64);
	DEF(initial_window, 1u << 20);
	DEF(rst_burst, 200);
	DEF(rst_rate, 100);
	DEF(ctrl_burst, 500);
	DEF(ctrl_rate, 200);
	DEF(max_continuations, 8);
	DEF(idle_timeout_ms, 60000);
	DEF(write_timeout_ms, 30000);
	DEF(body_budget, (uint64_t)64 << 20);
	DEF(body_budget_per_src, RTE_MAX(c->body_budget / 4, (uint64_t)1));
	DEF(body_timeout_ms, 30000);
	DEF(body_min_rate, 500);
#undef DEF
}

static int
options(struct ewyk_http2_server *s)
{
	const struct ewyk_http2_conf *c = &s->conf;

	if (nghttp2_option_new(&s->opt) != 0)
		return -ENOMEM;
		/* nghttp2's own checks back ours up, a little looser, so that ours
	 * (counted) speak first. Debian backports them to 1.52: found by
	 * symbol at build time. */
#ifdef EWYK_HAVE_NGHTTP2_STREAM_RESET_RATE_LIMIT
	nghttp2_option_set_stream_reset_rate_limit(s->opt,
		(uint64_t)c->rst_burst * 2, (uint64_t)c->rst_rate * 2);
#endif
#ifdef EWYK_HAVE_NGHTTP2_MAX_CONTINUATIONS
	nghttp2_option_set_max_continuations(s->opt, c->max_continuations);
#endif
#ifdef EWYK_HAVE_NGHTTP2_MAX_SETTINGS
	nghttp2_option_set_max_settings(s->opt, 32);
#endif
#ifdef EWYK_HAVE_NGHTTP2_MAX_OUTBOUND_ACK
	nghttp2_option_set_max_outbound_ack(s->opt, 1000);
#endif
	nghttp2_option_set_no_closed_streams(s->opt, 0);
	/* windows reopen as the body budget allows (http2_body.c) */
	nghttp2_option_set_no_auto_window_update(s->opt, 1);
	return 0;
}

struct ewyk_http2_server *
ewyk_http2_server_create(const struct ewyk_http2_conf *conf)
{
	struct ewyk_http2_server *s;
	uint32_t i;
	int sk;

	if (conf == NULL || conf->wheel == NULL || conf->pool == NULL ||
		conf->on_request == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	sk = conf->socket_id;
	s = rte_zmalloc_socket("ewyk_http2", sizeof(*s), RTE_CACHE_LINE_SIZE,
		sk);
	if (s == NULL)
		goto nomem;
	s->conf = *conf;
	conf_defaults(&s->conf);
	ewyk_http2_mem_init(&s->mem);
	s->hz = rte_get_tsc_hz();
	TAILQ_INIT(&s->wait);
	s->conns = rte_zmalloc_socket("ewyk_http2_conns",
		sizeof(*s->conns) * s->conf.max_conns, RTE_CACHE_LINE_SIZE, sk);
	s->st = rte_zmalloc_socket("ewyk_http2_streams",
		sizeof(*s->st) * s->conf.max_streams, RTE_CACHE_LINE_SIZE, sk);
	s->hdrs = rte_malloc_socket("ewyk_http2_hdrs",
		sizeof(*s->hdrs) * s->conf.max_header_fields *
			s->conf.max_conns,
		0, sk);
	s->hbuf = rte_malloc_socket("ewyk_http2_hbuf",
		(size_t)s->conf.max_header_list * s->conf.max_conns, 0, sk);
	if (s->conf.max_conns_per_src > s->conf.max_conns ||
		s->conf.max_streams_per_src > s->conf.max_streams ||
		s->conf.max_conns_per_src > UINT16_MAX ||
		s->conf.max_streams_per_src > UINT16_MAX ||
		s->conf.body_budget_per_src > s->conf.body_budget) {
		ewyk_http2_server_free(s);
		rte_errno = EINVAL;
		return NULL;
	}
	s->q_conns = ewyk_http_quota_create(s->conf.max_conns,
		s->conf.max_conns_per_src, sk);
	s->q_streams = ewyk_http_quota_create(s->conf.max_streams,
		s->conf.max_streams_per_src, sk);
	/* the body budget per source of the stream share (as many) */
	s->body_src = rte_zmalloc_socket("ewyk_http2_body_src",
		sizeof(*s->body_src) * rte_align32pow2(s->conf.max_streams), 0,
		sk);
	if (s->body_src == NULL || s->conns == NULL || s->st == NULL ||
		s->hdrs == NULL || s->hbuf == NULL || s->q_conns == NULL ||
		s->q_streams == NULL || h2_callbacks_init(s) != 0 ||
		options(s) != 0)
		goto nomem;
	for (i = 0; i < s->conf.max_conns; i++) {
		s->conns[i].srv = s;
		s->conns[i].hdrs = s->hdrs +
			(size_t)i * s->conf.max_header_fields;
		s->conns[i].hbuf = s->hbuf +
			(size_t)i * s->conf.max_header_list;
		s->conns[i].next_free = i + 1 < s->conf.max_conns ? i + 1 :
								    H2_NONE;
	}
	for (i = 0; i < s->conf.max_streams; i++)
		s->st[i].next_free = i + 1 < s->conf.max_streams ? i + 1 :
								   H2_NONE;
	s->conn_free = 0;
	s->st_free = 0;
	h2_stats_register(s);
	return s;
nomem:
	ewyk_http2_server_free(s);
	rte_errno = ENOMEM;
	return NULL;
}

void
ewyk_http2_server_free(struct ewyk_http2_server *s)
{
	uint32_t i;

	if (s == NULL)
		return;
	h2_stats_unregister(s);
	for (i = 0; s->conns != NULL && i < s->conf.max_conns; i++) {
		struct h2_conn *c = &s->conns[i];

		if (!c->used)
			continue;
		if (c->lingering) {
			h2_conn_unlinger(c, 0);
			continue;
		}
		if (!c->gone)
			c->io->end(c->io_arg, 0);
		c->gone = 1;
		h2_conn_gone(c);
	}
	if (s->cbs != NULL)
		nghttp2_session_callbacks_del(s->cbs);
	if (s->opt != NULL)
		nghttp2_option_del(s->opt);
	ewyk_http2_mem_fini(&s->mem); /* every session is gone */
	ewyk_http_quota_free(s->q_streams);
	ewyk_http_quota_free(s->q_conns);
	rte_free(s->body_src);
	rte_free(s->hbuf);
	rte_free(s->hdrs);
	rte_free(s->st);
	rte_free(s->conns);
	rte_free(s);
}

void
ewyk_http2_server_hold(struct ewyk_http2_server *s)
{
	if (s != NULL)
		s->holding = 1;
}

void
ewyk_http2_server_flush(struct ewyk_http2_server *s)
{
	struct h2_conn *c;

	if (s == NULL)
		return;
	s->holding = 0;
	while ((c = s->hflush) != NULL) {
		s->hflush = c->hnext;
		c->held = 0;
		/* one that ended since is skipped; a new connection on the
		 * same object since flushes what it has, which is harmless */
		if (c->used && !c->gone)
			h2_conn_flush(c);
	}
}

uint32_t
ewyk_http2_server_conns(const struct ewyk_http2_server *s)
{
	return s != NULL ? s->nconns : 0;
}

uint32_t
ewyk_http2_server_streams(const struct ewyk_http2_server *s)
{
	return s != NULL ? s->nst : 0;
}
