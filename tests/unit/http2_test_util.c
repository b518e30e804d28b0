/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/http2's test world (http2_test_util.h): a captured transport and an
 * nghttp2 client as the peer. The server's handler answers:
 *   /hello      200 "hello\n"
 *   /bytes/N    200, N bytes of a pattern, streamed (NO_COPY DATA)
 *   /later      nothing yet: the stream is kept in w->later
 *   /body       the request body's length, once it is all read
 *   /hold       its body read whole, then kept in w->later unanswered
 *               (the body stays held)
 *   /stream     its body streamed (ewyk_http2_read_body_stream()): the
 *               bytes counted in w->streamed and held until the test
 *               releases them; the stream kept in w->stream_st
 *   else        404
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include <ewyk_tcp.h>

#include "http2_test_util.h"

/* ---- transport ---- */

static uint32_t
io_space(void *arg)
{
	return ((struct h2t_world *)arg)->space;
}

static int
io_send(void *arg, struct rte_mbuf *m)
{
	struct h2t_world *w = arg;
	struct rte_mbuf *s;

	/* as lib/tcp: an empty queue takes any chain, a busy one what fits */
	if (w->space < m->pkt_len && !(w->refill != 0 && w->space == w->refill))
		return -EAGAIN;
	w->space -= RTE_MIN(w->space, m->pkt_len);
	if (w->out_len + m->pkt_len > w->out_cap) {
		w->out_cap = (w->out_len + m->pkt_len) * 2;
		w->out = realloc(w->out, w->out_cap);
	}
	for (s = m; s != NULL; s = s->next) {
		memcpy(w->out + w->out_len, rte_pktmbuf_mtod(s, void *),
			s->data_len);
		w->out_len += s->data_len;
	}
	rte_pktmbuf_free(m);
	return 0;
}

static void
io_end(void *arg, int graceful)
{
	struct h2t_world *w = arg;

	w->ended = graceful ? 1 : 2;
	w->c = NULL;
}

static int
io_peer(void *arg, struct ewyk_tcp_conn_info *ti)
{
	struct h2t_world *w = arg;

	if (w->peer_ip == 0)
		return -1;
	memset(ti, 0, sizeof(*ti));
	ti->remote_ip = w->peer_ip;
	return 0;
}

static const struct h2_io test_io = {
	.space = io_space,
	.send = io_send,
	.end = io_end,
	.peer = io_peer,
};

/* ---- the server's handler ---- */

static int
pattern_prod(struct ewyk_http2_stream *st, char *buf, uint32_t cap,
	uint64_t off, void *arg)
{
	uint32_t i;

	RTE_SET_USED(st);
	RTE_SET_USED(arg);
	for (i = 0; i < cap; i++)
		buf[i] = h2t_pattern(off + i);
	return (int)cap;
}

/* The pattern up to byte (uintptr_t)arg, then a failure: the DATA frame
 * being written is cut back out and the stream reset. */
static int
failing_prod(struct ewyk_http2_stream *st, char *buf, uint32_t cap,
	uint64_t off, void *arg)
{
	uint64_t at = (uintptr_t)arg;

	if (off >= at)
		return -EIO;
	return pattern_prod(st, buf, (uint32_t)RTE_MIN((uint64_t)cap, at - off),
		off, NULL);
}

struct body_count {
	uint64_t n;
};

static struct body_count body_counts[H2T_MAX_STREAMS];

static int
body_cb(struct ewyk_http2_stream *st, const char *p, uint32_t len, int last,
	void *arg)
{
	struct body_count *b = arg;
	char msg[32];
	int n;

	RTE_SET_USED(p);
	b->n += len;
	if (last) {
		n = snprintf(msg, sizeof(msg), "%llu",
			(unsigned long long)b->n);
		ewyk_http2_respond(st, 200, "text/plain", NULL, msg,
			(uint32_t)n);
	}
	return 0;
}

static void later_done(struct ewyk_http2_stream *st, int aborted, void *arg);

static int
hold_cb(struct ewyk_http2_stream *st, const char *p, uint32_t len, int last,
	void *arg)
{
	struct h2t_world *w = arg;

	RTE_SET_USED(p);
	RTE_SET_USED(len);
	if (!last)
		return 0;
	if (w->nlater == H2T_MAX_STREAMS)
		return -ENOBUFS;
	w->later[w->nlater++] = st;
	return ewyk_http2_on_done(st, later_done, w);
}

static void
later_done(struct ewyk_http2_stream *st, int aborted, void *arg)
{
	struct h2t_world *w = arg;
	unsigned int i;

	RTE_SET_USED(aborted);
	for (i = 0; i < w->nlater; i++)
		if (w->later[i] == st)
			w->later[i] = NULL;
}

static int
stream_cb(struct ewyk_http2_stream *st, const char *p, uint32_t len, int last,
	void *arg)
{
	struct h2t_world *w = arg;

	RTE_SET_USED(st);
	RTE_SET_USED(p);
	w->streamed += len;
	if (last)
		w->stream_end = 1;
	return 0;
}

static void
stream_done(struct ewyk_http2_stream *st, int aborted, void *arg)
{
	struct h2t_world *w = arg;

	RTE_SET_USED(st);
	RTE_SET_USED(aborted);
	w->stream_st = NULL;
}

static int
on_request(void *arg, struct ewyk_http2_stream *st,
	const struct ewyk_http_request *q)
{
	struct h2t_world *w = arg;
	int32_t id = ewyk_http2_stream_id(st);

	if (q->path.len == 6 && memcmp(q->path.p, "/hello", 6) == 0)
		return ewyk_http2_respond(st, 200, "text/plain",
			"X-Test: yes\r\nConnection: close\r\n", "hello\n", 6);
	if (q->path.len > 7 && memcmp(q->path.p, "/bytes/", 7) == 0) {
		char num[24];
		uint32_t n = RTE_MIN(q->path.len - 7,
			(uint32_t)sizeof(num) - 1);

		memcpy(num, q->path.p + 7, n);
		num[n] = '\0';
		return ewyk_http2_respond_stream(st, 200, NULL, NULL,
			strtoull(num, NULL, 10), pattern_prod, NULL);
	}
	if (q->path.len > 8 && memcmp(q->path.p, "/failat/", 8) == 0) {
		char num[24];
		uint32_t n = RTE_MIN(q->path.len - 8,
			(uint32_t)sizeof(num) - 1);

		memcpy(num, q->path.p + 8, n);
		num[n] = '\0';
		return ewyk_http2_respond_stream(st, 200, NULL, NULL, 100000,
			failing_prod,
			(void *)(uintptr_t)strtoull(num, NULL, 10));
	}
	if (q->path.len == 6 && memcmp(q->path.p, "/later", 6) == 0) {
		if (w->nlater == H2T_MAX_STREAMS)
			return -ENOBUFS;
		w->later[w->nlater++] = st;
		return ewyk_http2_on_done(st, later_done, w);
	}
	if (q->path.len == 5 && memcmp(q->path.p, "/hold", 5) == 0)
		return ewyk_http2_read_body(st, hold_cb, w);
	if (q->path.len == 7 && memcmp(q->path.p, "/stream", 7) == 0) {
		w->stream_st = st;
		if (ewyk_http2_read_body_stream(st, stream_cb, w) != 0)
			return -EINVAL;
		return ewyk_http2_on_done(st, stream_done, w);
	}
	if (q->path.len == 5 && memcmp(q->path.p, "/body", 5) == 0) {
		struct body_count *b = &body_counts[id % H2T_MAX_STREAMS];

		b->n = 0;
		if (ewyk_http2_read_body(st, body_cb, b) != 0)
			return ewyk_http2_respond(st, 200, "text/plain", NULL,
				"0", 1);
		return 0;
	}
	return ewyk_http2_respond(st, 404, "text/plain", NULL, "nf\n", 3);
}

/* ---- the peer ---- */

struct h2t_stream *
h2t_st(struct h2t_world *w, int32_t id)
{
	return &w->st[(uint32_t)id % H2T_MAX_STREAMS];
}

static ssize_t
cli_send(nghttp2_session *s, const uint8_t *d, size_t len, int flags,
	void *user)
{
	struct h2t_world *w = user;

	RTE_SET_USED(s);
	RTE_SET_USED(flags);
	if (w->c == NULL)
		return NGHTTP2_ERR_WOULDBLOCK;
	if (h2_conn_input(w->c, d, len) != 0)
		w->c = NULL;
	return (ssize_t)len;
}

static int
cli_header(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *n,
	size_t nl, const uint8_t *v, size_t vl, uint8_t flags, void *user)
{
	struct h2t_world *w = user;

	RTE_SET_USED(s);
	RTE_SET_USED(flags);
	if (nl == 7 && memcmp(n, ":status", 7) == 0 && vl == 3)
		h2t_st(w, f->hd.stream_id)->status = atoi((const char *)v);
	return 0;
}

static int
cli_data(nghttp2_session *s, uint8_t flags, int32_t id, const uint8_t *d,
	size_t len, void *user)
{
	struct h2t_stream *t = h2t_st(user, id);
	size_t i;

	RTE_SET_USED(s);
	RTE_SET_USED(flags);
	for (i = 0; i < len; i++)
		if ((char)d[i] != h2t_pattern(t->body + i))
			t->bad++;
	t->body += len;
	return 0;
}

static int
cli_frame(nghttp2_session *s, const nghttp2_frame *f, void *user)
{
	struct h2t_world *w = user;

	RTE_SET_USED(s);
	if (f->hd.type == NGHTTP2_RST_STREAM)
		h2t_st(w, f->hd.stream_id)->rst = f->rst_stream.error_code + 1;
	if (f->hd.type == NGHTTP2_GOAWAY)
		w->goaway = (int)f->goaway.error_code + 1;
	if (f->hd.type == NGHTTP2_WINDOW_UPDATE && f->hd.stream_id == 0)
		w->wu_conn += (uint32_t)f->window_update.window_size_increment;
	return 0;
}

static int
cli_close(nghttp2_session *s, int32_t id, uint32_t code, void *user)
{
	struct h2t_world *w = user;
	struct h2t_stream *t = h2t_st(w, id);

	RTE_SET_USED(s);
	RTE_SET_USED(code);
	t->closed = 1;
	t->closed_seq = ++w->seq;
	return 0;
}

int
h2t_init(struct h2t_world *w, const struct ewyk_http2_conf *conf)
{
	static unsigned int gen;
	struct ewyk_twheel_params wp = { .socket_id = -1 };
	struct ewyk_http2_conf c = *conf;
	char name[32], pname[32];

	/* names of their own: a failed test leaves its world behind */
	snprintf(name, sizeof(name), "h2t_%u", gen);
	snprintf(pname, sizeof(pname), "h2t_pool_%u", gen++);
	wp.name = name;
	memset(w, 0, sizeof(*w));
	w->wheel = ewyk_twheel_create(&wp);
	w->pool = rte_pktmbuf_pool_create(pname, 8191, 0, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, -1);
	if (w->wheel == NULL || w->pool == NULL)
		return -1;
	c.wheel = w->wheel;
	c.pool = w->pool;
	c.on_request = on_request;
	c.on_request_arg = w;
	w->srv = ewyk_http2_server_create(&c);
	return w->srv == NULL ? -1 : 0;
}

void
h2t_fini(struct h2t_world *w)
{
	if (w->cli != NULL)
		nghttp2_session_del(w->cli);
	ewyk_http2_server_free(w->srv);
	rte_mempool_free(w->pool);
	ewyk_twheel_free(w->wheel);
	free(w->out);
	memset(w, 0, sizeof(*w));
}

int
h2t_connect(struct h2t_world *w, const nghttp2_settings_entry *iv, size_t niv)
{
	nghttp2_session_callbacks *cb;
	nghttp2_option *opt;
	int rc;

	w->space = UINT32_MAX / 2;
	w->c = h2_conn_open(w->srv, &test_io, w);
	if (w->c == NULL)
		return -1;
	nghttp2_session_callbacks_new(&cb);
	nghttp2_session_callbacks_set_send_callback(cb, cli_send);
	nghttp2_session_callbacks_set_on_header_callback(cb, cli_header);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, cli_data);
	nghttp2_session_callbacks_set_on_frame_recv_callback(cb, cli_frame);
	nghttp2_session_callbacks_set_on_stream_close_callback(cb, cli_close);
	nghttp2_option_new(&opt);
	/* the peer may send what a server must refuse (the HPACK bomb) */
	nghttp2_option_set_max_send_header_block_length(opt, 1u << 22);
	rc = nghttp2_session_client_new2(&w->cli, cb, w, opt);
	nghttp2_option_del(opt);
	nghttp2_session_callbacks_del(cb);
	if (rc != 0)
		return -1;
	return nghttp2_submit_settings(w->cli, NGHTTP2_FLAG_NONE, iv, niv);
}

void
h2t_pump(struct h2t_world *w)
{
	int i;

	for (i = 0; i < 100000; i++) {
		size_t n = w->out_len;

		if (w->c != NULL)
			h2_conn_flush(w->c);
		if (w->cli != NULL)
			nghttp2_session_send(w->cli);
		if (w->out_len > 0 && w->cli != NULL) {
			n = w->out_len;
			w->out_len = 0;
			nghttp2_session_mem_recv(w->cli, w->out, n);
			nghttp2_session_send(w->cli);
		}
		if (w->c != NULL)
			h2_conn_flush(w->c);
		/* without a client session the bytes stay in w->out */
		if ((w->out_len == 0 || w->cli == NULL) &&
			(w->cli == NULL ||
				!nghttp2_session_want_write(w->cli)) &&
			(w->c == NULL || w->c->tx == NULL))
			break;
		w->space = w->refill != 0 ? w->refill : UINT32_MAX / 2;
	}
}

int
h2t_raw(struct h2t_world *w, const void *p, size_t len)
{
	if (w->c == NULL)
		return -ECONNRESET;
	if (h2_conn_input(w->c, p, len) != 0) {
		w->c = NULL;
		return -ECONNRESET;
	}
	h2_conn_flush(w->c);
	return 0;
}

struct body_src {
	const uint8_t *p;
	size_t len, off;
};

static struct body_src body_srcs[H2T_MAX_STREAMS];

static ssize_t
cli_body(nghttp2_session *s, int32_t id, uint8_t *buf, size_t len,
	uint32_t *flags, nghttp2_data_source *src, void *user)
{
	struct body_src *b = src->ptr;
	size_t n = RTE_MIN(len, b->len - b->off);

	RTE_SET_USED(s);
	RTE_SET_USED(id);
	RTE_SET_USED(user);
	memcpy(buf, b->p + b->off, n);
	b->off += n;
	if (b->off == b->len)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

int32_t
h2t_get(struct h2t_world *w, const char *method, const char *path,
	const nghttp2_nv *extra, size_t nextra, const void *body, size_t len)
{
	nghttp2_nv nva[80];
	nghttp2_data_provider dp;
	size_t n = 0, i;
	int32_t id;
	static unsigned int next;
	struct body_src *b = &body_srcs[next++ % H2T_MAX_STREAMS];

#define NV(a, v)                                                            \
	(nghttp2_nv){ (uint8_t *)(uintptr_t)(a), (uint8_t *)(uintptr_t)(v), \
		strlen(a), strlen(v), NGHTTP2_NV_FLAG_NONE }
	nva[n++] = NV(":method", method);
	nva[n++] = NV(":scheme", "http");
	nva[n++] = NV(":authority", "test");
	nva[n++] = NV(":path", path);
#undef NV
	for (i = 0; i < nextra && n < RTE_DIM(nva); i++)
		nva[n++] = extra[i];
	if (body == NULL)
		return nghttp2_submit_request(w->cli, NULL, nva, n, NULL, NULL);
	b->p = body;
	b->len = len;
	b->off = 0;
	dp.source.ptr = b;
	dp.read_callback = cli_body;
	id = nghttp2_submit_request(w->cli, NULL, nva, n, &dp, NULL);
	return id;
}

uint64_t
h2t_ctr(struct h2t_world *w, enum ewyk_http2_counter c)
{
	return ewyk_http2_server_counter(w->srv, c);
}

void
h2t_frame_hd(uint8_t *b, uint32_t len, uint8_t type, uint8_t flags, int32_t id)
{
	b[0] = (uint8_t)(len >> 16);
	b[1] = (uint8_t)(len >> 8);
	b[2] = (uint8_t)len;
	b[3] = type;
	b[4] = flags;
	b[5] = (uint8_t)((uint32_t)id >> 24) & 0x7f;
	b[6] = (uint8_t)((uint32_t)id >> 16);
	b[7] = (uint8_t)((uint32_t)id >> 8);
	b[8] = (uint8_t)id;
}
