/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/http connection layer: an HTTP server on one lib/tcp endpoint and a
 * raw-bytes client on another, joined by an in-memory wire on a virtual
 * clock (as test_tcp's loopback). The client writes requests byte for
 * byte and reads the responses back exactly; timeouts fire by moving the
 * virtual clock, never by waiting.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "ewyk_http.h"
#include "ewyk_tcp.h"
#include "ewyk_twheel.h"
#include "http_corpus.h"
#include "test_common.h"

#define SIP RTE_BE32(RTE_IPV4(10, 0, 0, 1))
#define CIP RTE_BE32(RTE_IPV4(10, 0, 0, 2))
#define SPORT 80
#define MAXQ 16384
#define MAXCLI 8

static struct rte_mempool *mp;

struct cli {
	struct ewyk_tcp_conn *c;
	char *rx;
	size_t nrx, cap;
	uint64_t held;
	int err;
	bool connected, refused, eof, closed, hold;
};

struct pkt {
	struct rte_mbuf *m;
	uint64_t at_us;
	int to;
};

static struct {
	struct ewyk_tcp *t[2]; /* 0: server, 1: client */
	struct ewyk_twheel *w; /* the server shard's wheel */
	struct ewyk_http_router *rt;
	struct ewyk_http_server *srv;
	struct pkt q[MAXQ];
	unsigned int nq;
	uint64_t now_us, base, hz;
	struct cli cli[MAXCLI];
	/* handlers' state */
	struct ewyk_http_conn *deferred[4];
	char deferred_tag[4][16];
	unsigned int ndeferred;
	uint64_t produced;
	uint64_t body_bytes, body_sum;
	int body_last;
	struct ewyk_http_conn *body_paused_conn;
	struct ewyk_http_conn *trickle_conn;
	uint32_t trickle_budget;
	/* ewyk_http_on_done() */
	unsigned int ndone;
	int done_aborted;
	int done_respond; /* respond from the callback */
} W;

/* ---- wire and clock ---- */

static int
wire_output(void *arg, struct rte_mbuf *m, uint16_t port, rte_be32_t src,
	rte_be32_t dst)
{
	int from = (int)(uintptr_t)arg;

	RTE_SET_USED(port);
	RTE_SET_USED(src);
	RTE_SET_USED(dst);
	if (W.nq == MAXQ) {
		rte_pktmbuf_free(m);
		return 0;
	}
	W.q[W.nq].m = m;
	W.q[W.nq].at_us = W.now_us + 50;
	W.q[W.nq].to = 1 - from;
	W.nq++;
	return 0;
}

static void
step(uint64_t us)
{
	static struct pkt due[MAXQ];
	unsigned int i, j = 0, nd = 0;
	uint64_t now;

	W.now_us += us;
	for (i = 0; i < W.nq; i++) {
		if (W.q[i].at_us <= W.now_us)
			due[nd++] = W.q[i];
		else
			W.q[j++] = W.q[i];
	}
	W.nq = j;
	for (i = 0; i < nd; i++) {
		struct ewyk_net_ip_info ip = {
			.proto = IPPROTO_TCP,
			.ttl = 64,
			.cksum_good = true,
		};

		ip.src = due[i].to == 0 ? CIP : SIP;
		ip.dst = due[i].to == 0 ? SIP : CIP;
		ip.l4_len = (uint16_t)due[i].m->pkt_len;
		ewyk_tcp_input(W.t[due[i].to], due[i].m, &ip);
	}
	now = W.base + W.now_us * W.hz / 1000000;
	ewyk_tcp_advance(W.t[0], now);
	ewyk_tcp_advance(W.t[1], now);
	ewyk_twheel_advance(W.w, now, 0);
}

/* Run the wire for up to @p ms virtual milliseconds or until cond holds. */
#define RUN_UNTIL(cond, ms)                                     \
	do {                                                    \
		uint64_t end_ = W.now_us + (uint64_t)(ms)*1000; \
		while (!(cond) && W.now_us < end_)              \
			step(100);                              \
	} while (0)

/* ---- client ---- */

static void
cli_connected(void *ctx, struct ewyk_tcp_conn *c, int err)
{
	struct cli *cl = ctx;

	RTE_SET_USED(c);
	if (err == 0) {
		cl->connected = true;
	} else {
		cl->refused = true;
		cl->c = NULL;
	}
}

static void
cli_recv(void *ctx, struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	struct cli *cl = ctx;
	struct rte_mbuf *s;

	for (s = m; s != NULL; s = s->next) {
		assert_true(cl->nrx + s->data_len <= cl->cap);
		memcpy(cl->rx + cl->nrx, rte_pktmbuf_mtod(s, char *),
			s->data_len);
		cl->nrx += s->data_len;
	}
	if (cl->hold)
		cl->held += m->pkt_len;
	else
		ewyk_tcp_recvd(c, m->pkt_len);
	rte_pktmbuf_free(m);
}

static void
cli_eof(void *ctx, struct ewyk_tcp_conn *c)
{
	struct cli *cl = ctx;

	RTE_SET_USED(c);
	cl->eof = true;
}

static void
cli_closed(void *ctx, struct ewyk_tcp_conn *c, int err)
{
	struct cli *cl = ctx;

	RTE_SET_USED(c);
	cl->closed = true;
	cl->err = err;
	cl->c = NULL;
}

static const struct ewyk_tcp_ops cli_ops = {
	.connected = cli_connected,
	.recv = cli_recv,
	.eof = cli_eof,
	.closed = cli_closed,
};

static struct cli *
cli_open(unsigned int i)
{
	struct cli *cl = &W.cli[i];
	struct ewyk_tcp_connect_args a = {
		.dst_ip = SIP,
		.dst_port = SPORT,
		.src_ip = CIP,
		.ops = &cli_ops,
		.ctx = cl,
	};

	cl->cap = 2u << 20;
	cl->rx = malloc(cl->cap);
	assert_non_null(cl->rx);
	cl->c = ewyk_tcp_connect(W.t[1], &a);
	assert_non_null(cl->c);
	RUN_UNTIL(cl->connected || cl->refused, 100);
	return cl;
}

static void
cli_send(struct cli *cl, const void *p, size_t len)
{
	const char *s = p;

	while (len > 0) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
		uint16_t n = (uint16_t)RTE_MIN(len, (size_t)1400);

		assert_non_null(m);
		memcpy(rte_pktmbuf_append(m, n), s, n);
		assert_int_equal(ewyk_tcp_send(cl->c, m), 0);
		s += n;
		len -= n;
		step(10);
	}
}

static void
cli_sends(struct cli *cl, const char *s)
{
	cli_send(cl, s, strlen(s));
}

/* One response parsed from a client's buffer. */
struct resp {
	int status;
	size_t head_len;
	const char *head;
	const char *body;
	size_t body_len;
};

/*
 * Parse the response at *off (Content-Length or no body when @p nobody).
 * Returns 1 and advances *off, or 0 when it is not all there.
 */
static int
resp_next(struct cli *cl, size_t *off, bool nobody, struct resp *r)
{
	const char *p = cl->rx + *off, *e, *cl_hdr;
	size_t avail = cl->nrx - *off;

	if (avail < 12)
		return 0;
	e = memmem(p, avail, "\r\n\r\n", 4);
	if (e == NULL)
		return 0;
	memset(r, 0, sizeof(*r));
	assert_memory_equal(p, "HTTP/1.", 7);
	r->status = atoi(p + 9);
	r->head = p;
	r->head_len = (size_t)(e + 4 - p);
	cl_hdr = memmem(p, r->head_len, "Content-Length: ", 16);
	if (cl_hdr != NULL && !nobody && r->status >= 200)
		r->body_len = strtoull(cl_hdr + 16, NULL, 10);
	if (r->head_len + r->body_len > avail)
		return 0;
	r->body = p + r->head_len;
	*off += r->head_len + r->body_len;
	return 1;
}

static struct resp
wait_resp(struct cli *cl, size_t *off, bool nobody)
{
	struct resp r;

	RUN_UNTIL(resp_next(cl, &(size_t){ *off }, nobody, &r), 3000);
	assert_true(resp_next(cl, off, nobody, &r));
	return r;
}

static bool
head_has(const struct resp *r, const char *s)
{
	return memmem(r->head, r->head_len, s, strlen(s)) != NULL;
}

/* ---- handlers ---- */

static int
h_hello(struct ewyk_http_conn *c, const struct ewyk_http_request *req,
	void *arg)
{
	RTE_SET_USED(req);
	RTE_SET_USED(arg);
	return ewyk_http_respond(c, 200, "text/plain", NULL, "hello world\n",
		12);
}

/* /n/<anything>: the path back, to tell responses apart. */
static int
h_name(struct ewyk_http_conn *c, const struct ewyk_http_request *req, void *arg)
{
	RTE_SET_USED(arg);
	return ewyk_http_respond(c, 200, NULL, NULL, req->path.p,
		req->path.len);
}

static int
prod_bytes(struct ewyk_http_conn *c, char *buf, uint32_t cap, uint64_t off,
	void *arg)
{
	RTE_SET_USED(c);
	RTE_SET_USED(arg);
	for (uint32_t i = 0; i < cap; i++)
		buf[i] = (char)((off + i) % 256);
	W.produced += cap;
	return (int)cap;
}

static int
h_bytes(struct ewyk_http_conn *c, const struct ewyk_http_request *req,
	void *arg)
{
	char num[24];
	uint32_t n = RTE_MIN(req->path.len - 7, (uint32_t)sizeof(num) - 1);

	RTE_SET_USED(arg);
	memcpy(num, req->path.p + 7, n);
	num[n] = '\0';
	return ewyk_http_respond_stream(c, 200, "application/octet-stream",
		NULL, strtoull(num, NULL, 10), prod_bytes, NULL);
}

static int
prod_chunks(struct ewyk_http_conn *c, char *buf, uint32_t cap, uint64_t off,
	void *arg)
{
	RTE_SET_USED(c);
	RTE_SET_USED(arg);
	if (off >= 15)
		return 0;
	assert_true(cap >= 5);
	memcpy(buf, "abcde", 5);
	return 5;
}

/* /trickle: a chunked body given 100 bytes at a time, when the test
 * says so (W.trickle_budget), like an echo waiting for its input. */
static int
prod_trickle(struct ewyk_http_conn *c, char *buf, uint32_t cap, uint64_t off,
	void *arg)
{
	uint32_t n;

	RTE_SET_USED(c);
	RTE_SET_USED(arg);
	if (off >= 1000)
		return 0;
	if (W.trickle_budget == 0)
		return -EAGAIN;
	n = RTE_MIN(cap, W.trickle_budget);
	memset(buf, 't', n);
	W.trickle_budget -= n;
	return (int)n;
}

static int
h_trickle(struct ewyk_http_conn *c, const struct ewyk_http_request *req,
	void *arg)
{
	RTE_SET_USED(req);
	RTE_SET_USED(arg);
	W.trickle_conn = c;
	return ewyk_http_respond_stream(c, 200, NULL, NULL,
		EWYK_HTTP_LEN_CHUNKED, prod_trickle, NULL);
}

static int
h_chunked(struct ewyk_http_conn *c, const struct ewyk_http_request *req,
	void *arg)
{
	RTE_SET_USED(req);
	RTE_SET_USED(arg);
	return ewyk_http_respond_stream(c, 200, NULL, NULL,
		EWYK_HTTP_LEN_CHUNKED, prod_chunks, NULL);
}

static int
h_defer(struct ewyk_http_conn *c, const struct ewyk_http_request *req,
	void *arg)
{
	unsigned int n = RTE_MIN(req->path.len, 15u);

	RTE_SET_USED(arg);
	assert_true(W.ndeferred < RTE_DIM(W.deferred));
	memcpy(W.deferred_tag[W.ndeferred], req->path.p, n);
	W.deferred_tag[W.ndeferred][n] = '\0';
	W.deferred[W.ndeferred++] = c;
	return EWYK_HTTP_PENDING;
}

static void
done_cb(struct ewyk_http_conn *c, int aborted, void *arg)
{
	assert_ptr_equal(arg, &W);
	W.ndone++;
	W.done_aborted = aborted;
	if (W.done_respond)
		assert_int_equal(ewyk_http_respond(c, 503, NULL, NULL, NULL, 0),
			0);
}

/* A response streamed while the body comes (an echo): the producer has
 * nothing until the body ends. */
static int
streamer_body(struct ewyk_http_conn *c, const char *p, uint32_t len, int last,
	void *arg)
{
	RTE_SET_USED(p);
	RTE_SET_USED(arg);
	W.body_bytes += len;
	W.body_last = last;
	if (last)
		ewyk_http_stream_resume(c);
	return 0;
}

static int
streamer_prod(struct ewyk_http_conn *c, char *buf, uint32_t cap, uint64_t off,
	void *arg)
{
	RTE_SET_USED(c);
	RTE_SET_USED(buf);
	RTE_SET_USED(cap);
	RTE_SET_USED(off);
	RTE_SET_USED(arg);
	return W.body_last ? 0 : -EAGAIN;
}

static int
h_streamer(struct ewyk_http_conn *c, const struct ewyk_http_request *req,
	void *arg)
{
	RTE_SET_USED(req);
	assert_int_equal(ewyk_http_read_body(c, streamer_body, arg), 0);
	assert_int_equal(ewyk_http_respond_stream(c, 200, NULL, NULL,
				 EWYK_HTTP_LEN_CHUNKED, streamer_prod, arg),
		0);
	return EWYK_HTTP_HANDLED;
}

/* A deferred request that wants to hear when it ends. */
static int
h_done(struct ewyk_http_conn *c, const struct ewyk_http_request *req, void *arg)
{
	const struct ewyk_http_request *q = ewyk_http_conn_request(c);

	assert_ptr_equal(q, req);
	assert_int_equal(ewyk_http_on_done(c, done_cb, &W), 0);
	return h_defer(c, req, arg);
}

static int
upload_cb(struct ewyk_http_conn *c, const char *p, uint32_t len, int last,
	void *arg)
{
	char msg[64];
	int n;

	for (uint32_t i = 0; i < len; i++)
		W.body_sum += (uint8_t)p[i];
	W.body_bytes += len;
	if (!last) {
		/* arg set: a slow consumer that pauses after each piece. */
		if (arg != NULL) {
			W.body_paused_conn = c;
			return EWYK_HTTP_PENDING;
		}
		return 0;
	}
	W.body_last = 1;
	n = snprintf(msg, sizeof(msg), "%" PRIu64 " %" PRIu64 "\n",
		W.body_bytes, W.body_sum);
	assert_int_equal(ewyk_http_respond(c, 200, NULL, NULL, msg,
				 (uint32_t)n),
		0);
	return 0;
}

static int
h_upload(struct ewyk_http_conn *c, const struct ewyk_http_request *req,
	void *arg)
{
	RTE_SET_USED(req);
	assert_int_equal(ewyk_http_read_body(c, upload_cb, arg), 0);
	return EWYK_HTTP_HANDLED;
}

/* /status/<n>: that status with a body, which 204 and 304 must drop. */
static int
h_status(struct ewyk_http_conn *c, const struct ewyk_http_request *req,
	void *arg)
{
	uint16_t st = (uint16_t)atoi(req->path.p + 8);

	RTE_SET_USED(arg);
	if (req->path.p[req->path.len - 1] == 's')
		return ewyk_http_respond_stream(c, st, NULL, NULL, 15,
			prod_chunks, NULL);
	return ewyk_http_respond(c, st, NULL, NULL, "body", 4);
}

/* ---- setup ---- */

static void
setup_conf(struct ewyk_http_server_conf *hc)
{
	struct ewyk_tcp_conf cf;
	struct ewyk_twheel_params wp;
	int i;

	for (i = 0; i < MAXCLI; i++)
		free(W.cli[i].rx);
	memset(&W, 0, sizeof(W));
	W.hz = rte_get_tsc_hz();
	W.base = rte_rdtsc() + W.hz;
	memset(&wp, 0, sizeof(wp));
	wp.name = "test_http_conn";
	wp.socket_id = SOCKET_ID_ANY;
	wp.start_tsc = W.base;
	wp.slack_shift = EWYK_TWHEEL_SLACK_EXACT;
	W.w = ewyk_twheel_create(&wp);
	assert_non_null(W.w);
	for (i = 0; i < 2; i++) {
		memset(&cf, 0, sizeof(cf));
		cf.output = wire_output;
		cf.output_arg = (void *)(uintptr_t)i;
		cf.tx_pool = mp;
		cf.socket_id = SOCKET_ID_ANY;
		cf.max_conns = 64;
		cf.time_wait_ms = 100;
		cf.wheel = i == 0 ? W.w : NULL;
		W.t[i] = ewyk_tcp_create(&cf);
		assert_non_null(W.t[i]);
		ewyk_tcp_advance(W.t[i], W.base);
	}
	W.rt = ewyk_http_router_create(16, SOCKET_ID_ANY);
	assert_non_null(W.rt);
	assert_int_equal(ewyk_http_route_add(W.rt, "/", 0,
				 EWYK_HTTP_M(EWYK_HTTP_GET),
				 EWYK_STRATEGY_INVOKE_NON_BLOCKING,
				 (void *)h_hello, NULL),
		0);
	assert_int_equal(ewyk_http_route_add(W.rt, "/n/", 1,
				 EWYK_HTTP_M(EWYK_HTTP_GET),
				 EWYK_STRATEGY_INVOKE_NON_BLOCKING,
				 (void *)h_name, NULL),
		0);
	assert_int_equal(ewyk_http_route_add(W.rt, "/bytes/", 1,
				 EWYK_HTTP_M(EWYK_HTTP_GET),
				 EWYK_STRATEGY_INVOKE_NON_BLOCKING,
				 (void *)h_bytes, NULL),
		0);
	assert_int_equal(ewyk_http_route_add(W.rt, "/chunked", 0,
				 EWYK_HTTP_M(EWYK_HTTP_GET),
				 EWYK_STRATEGY_INVOKE_NON_BLOCKING,
				 (void *)h_chunked, NULL),
		0);
	assert_int_equal(ewyk_http_route_add(W.rt, "/defer/", 1,
				 EWYK_HTTP_M(EWYK_HTTP_GET),
				 EWYK_STRATEGY_INVOKE_NON_BLOCKING,
				 (void *)h_defer, NULL),
		0);
	assert_int_equal(ewyk_http_route_add(W.rt, "/upload", 0,
				 EWYK_HTTP_M(EWYK_HTTP_POST),
				 EWYK_STRATEGY_INVOKE_NON_BLOCKING,
				 (void *)h_upload, NULL),
		0);
	assert_int_equal(ewyk_http_route_add(W.rt, "/slowupload", 0,
				 EWYK_HTTP_M(EWYK_HTTP_POST),
				 EWYK_STRATEGY_INVOKE_NON_BLOCKING,
				 (void *)h_upload, (void *)1),
		0);
	/* The corpus's body route: as ewyk-httpd's /sha256, it answers
	 * once the body is read. */
	assert_int_equal(ewyk_http_route_add(W.rt, "/sha256", 0,
				 EWYK_HTTP_M(EWYK_HTTP_POST),
				 EWYK_STRATEGY_INVOKE_NON_BLOCKING,
				 (void *)h_upload, NULL),
		0);
	assert_int_equal(ewyk_http_route_add(W.rt, "/trickle", 0,
				 EWYK_HTTP_M(EWYK_HTTP_GET),
				 EWYK_STRATEGY_INVOKE_NON_BLOCKING,
				 (void *)h_trickle, NULL),
		0);
	assert_int_equal(ewyk_http_route_add(W.rt, "/streamer", 0,
				 EWYK_HTTP_M(EWYK_HTTP_POST),
				 EWYK_STRATEGY_INVOKE_NON_BLOCKING,
				 (void *)h_streamer, NULL),
		0);
	assert_int_equal(ewyk_http_route_add(W.rt, "/done/", 1,
				 EWYK_HTTP_M(EWYK_HTTP_GET),
				 EWYK_STRATEGY_INVOKE_NON_BLOCKING,
				 (void *)h_done, NULL),
		0);
	assert_int_equal(ewyk_http_route_add(W.rt, "/block", 0,
				 EWYK_HTTP_M(EWYK_HTTP_GET),
				 EWYK_STRATEGY_INVOKE_BLOCKING, (void *)h_hello,
				 NULL),
		0);
	assert_int_equal(ewyk_http_route_add(W.rt, "/status/", 1,
				 EWYK_HTTP_M(EWYK_HTTP_GET),
				 EWYK_STRATEGY_INVOKE_NON_BLOCKING,
				 (void *)h_status, NULL),
		0);
	hc->wheel = W.w;
	hc->pool = mp;
	hc->router = W.rt;
	hc->socket_id = SOCKET_ID_ANY;
	W.srv = ewyk_http_server_create(hc);
	assert_non_null(W.srv);
	/* Sun, 06 Nov 1994 08:49:37 GMT: response bytes are exact. */
	ewyk_http_server_set_time(W.srv, 784111777);
	assert_int_equal(ewyk_tcp_listen(W.t[0], SIP, SPORT,
				 ewyk_http_server_tcp_ops(), W.srv, 0),
		0);
}

static int
setup(void **state)
{
	struct ewyk_http_server_conf hc;

	RTE_SET_USED(state);
	memset(&hc, 0, sizeof(hc));
	hc.header_timeout_ms = 1000;
	hc.body_timeout_ms = 1000;
	hc.idle_timeout_ms = 2000;
	hc.write_timeout_ms = 1000;
	setup_conf(&hc);
	return 0;
}

static int
teardown(void **state)
{
	unsigned int i;

	RTE_SET_USED(state);
	ewyk_http_server_free(W.srv);
	ewyk_tcp_free(W.t[0]);
	ewyk_tcp_free(W.t[1]);
	ewyk_twheel_free(W.w);
	ewyk_http_router_free(W.rt);
	while (W.nq > 0)
		rte_pktmbuf_free(W.q[--W.nq].m);
	for (i = 0; i < MAXCLI; i++) {
		free(W.cli[i].rx);
		W.cli[i].rx = NULL;
	}
	return 0;
}

static uint64_t
ctr(enum ewyk_http_counter c)
{
	return ewyk_http_server_counter(W.srv, c);
}

/* ---- tests ---- */

static const char hello_resp[] = "HTTP/1.1 200 OK\r\n"
				 "Server: ewyk\r\n"
				 "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
				 "Content-Length: 12\r\n"
				 "Content-Type: text/plain\r\n"
				 "\r\n"
				 "hello world\n";

static void
test_get_exact(void **state)
{
	struct cli *cl = cli_open(0);
	size_t off = 0;
	struct resp r;

	RTE_SET_USED(state);
	assert_true(cl->connected);
	cli_sends(cl, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 200);
	assert_int_equal(cl->nrx, sizeof(hello_resp) - 1);
	assert_memory_equal(cl->rx, hello_resp, sizeof(hello_resp) - 1);
	/* 404, 405 with Allow, and a BLOCKING route without dispatcher. */
	cli_sends(cl, "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n");
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 404);
	cli_sends(cl,
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 405);
	assert_true(head_has(&r, "Allow: GET, HEAD\r\n"));
	cli_sends(cl, "GET /block HTTP/1.1\r\nHost: x\r\n\r\n");
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 503);
	assert_int_equal(ctr(EWYK_HTTP_C_DISPATCH_REFUSED), 1);
	/* A chunked streamed body. */
	cli_sends(cl, "GET /chunked HTTP/1.1\r\nHost: x\r\n\r\n");
	RUN_UNTIL(memmem(cl->rx + off, cl->nrx - off, "0\r\n\r\n", 5) != NULL,
		1000);
	assert_non_null(memmem(cl->rx + off, cl->nrx - off,
		"Transfer-Encoding: chunked\r\n\r\n5\r\nabcde\r\n5\r\nabcde\r\n"
		"5\r\nabcde\r\n0\r\n\r\n",
		63));
	assert_false(cl->eof);
	assert_int_equal(ctr(EWYK_HTTP_C_REQUESTS), 5);
	assert_int_equal(ctr(EWYK_HTTP_C_RESP_2XX), 2);
	assert_int_equal(ctr(EWYK_HTTP_C_RESP_404), 1);
	assert_int_equal(ctr(EWYK_HTTP_C_RESP_405), 1);
	assert_int_equal(ctr(EWYK_HTTP_C_RESP_503), 1);
	assert_int_equal(ctr(EWYK_HTTP_C_RESP_4XX), 2);
	assert_int_equal(ctr(EWYK_HTTP_C_RESP_5XX), 1);
}

static void
test_keepalive_100(void **state)
{
	struct cli *cl = cli_open(0);
	size_t off = 0;
	unsigned int i;

	RTE_SET_USED(state);
	for (i = 0; i < 100; i++) {
		struct resp r;

		cli_sends(cl, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
		r = wait_resp(cl, &off, false);
		assert_int_equal(r.status, 200);
		assert_int_equal(r.body_len, 12);
		assert_memory_equal(r.body, "hello world\n", 12);
	}
	assert_int_equal(off, 100 * (sizeof(hello_resp) - 1));
	assert_false(cl->eof);
	assert_int_equal(ctr(EWYK_HTTP_C_CONN_ACCEPTED), 1);
	assert_int_equal(ctr(EWYK_HTTP_C_REQUESTS), 100);
}

static void
test_pipeline_200(void **state)
{
	struct cli *cl = cli_open(0);
	static char buf[200 * 64];
	size_t len = 0, off = 0;
	unsigned int i;

	RTE_SET_USED(state);
	for (i = 0; i < 200; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
			"GET /n/%u HTTP/1.1\r\nHost: x\r\n\r\n", i);
	cli_send(cl, buf, len);
	for (i = 0; i < 200; i++) {
		char want[16];
		struct resp r = wait_resp(cl, &off, false);
		int n = snprintf(want, sizeof(want), "/n/%u", i);

		assert_int_equal(r.status, 200);
		assert_int_equal(r.body_len, (size_t)n);
		assert_memory_equal(r.body, want, (size_t)n);
	}
	assert_int_equal(off, cl->nrx);
	assert_int_equal(ctr(EWYK_HTTP_C_RESP_2XX), 200);
}

static void
test_deferred_order(void **state)
{
	struct cli *a = cli_open(0), *b = cli_open(1);
	size_t offa = 0, offb = 0;
	struct resp r;

	RTE_SET_USED(state);
	/* a: a deferred request, then a plain one, pipelined; b: deferred. */
	cli_sends(a,
		"GET /defer/A HTTP/1.1\r\nHost: x\r\n\r\n"
		"GET /n/after HTTP/1.1\r\nHost: x\r\n\r\n");
	cli_sends(b, "GET /defer/B HTTP/1.1\r\nHost: x\r\n\r\n");
	RUN_UNTIL(W.ndeferred == 2, 1000);
	assert_int_equal(W.ndeferred, 2);
	RUN_UNTIL(false, 50);
	/* Nothing may overtake the unanswered request on a. */
	assert_int_equal(a->nrx, 0);
	assert_int_equal(ctr(EWYK_HTTP_C_PENDING), 2);
	assert_int_equal(ctr(EWYK_HTTP_C_REQUESTS), 2);
	/* Complete out of order: B, then A. */
	assert_string_equal(W.deferred_tag[1], "/defer/B");
	assert_int_equal(ewyk_http_respond(W.deferred[1], 200, NULL, NULL, "B",
				 1),
		0);
	r = wait_resp(b, &offb, false);
	assert_memory_equal(r.body, "B", 1);
	assert_int_equal(a->nrx, 0);
	assert_int_equal(ewyk_http_respond(W.deferred[0], 200, NULL, NULL, "A",
				 1),
		0);
	assert_int_equal(ewyk_http_respond(W.deferred[0], 200, NULL, NULL, "A",
				 1),
		-EALREADY);
	r = wait_resp(a, &offa, false);
	assert_memory_equal(r.body, "A", 1);
	r = wait_resp(a, &offa, false);
	assert_int_equal(r.body_len, 8);
	assert_memory_equal(r.body, "/n/after", 8);
	assert_int_equal(ctr(EWYK_HTTP_C_REQUESTS), 3);
}

/*
 * A connection with a request unanswered consumes nothing more: what the
 * client pipelines behind it stays unacknowledged to the application and
 * closes the window. Once answered, everything behind it is served, even
 * when the responses outgrow the send buffer (no unbounded queueing).
 */
static void
test_pending_backpressure(void **state)
{
	struct cli *cl = cli_open(0), *c2;
	static char buf[200000];
	static const char rq[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
	struct ewyk_tcp_conn_info ci;
	size_t len = 0, off = 0, nreq = 0, i;
	struct resp r;

	RTE_SET_USED(state);
	cli_sends(cl, "GET /defer/X HTTP/1.1\r\nHost: x\r\n\r\n");
	RUN_UNTIL(W.ndeferred == 1, 1000);
	while (len + sizeof(rq) - 1 <= sizeof(buf)) {
		memcpy(buf + len, rq, sizeof(rq) - 1);
		len += sizeof(rq) - 1;
		nreq++;
	}
	cli_send(cl, buf, len);
	RUN_UNTIL(false, 100);
	ewyk_tcp_conn_info(cl->c, &ci);
	/* The server's window shrank by what it holds (256 KiB buffer). */
	assert_true(ci.snd_wnd <= (256u << 10) - len + 4096);
	assert_int_equal(ci.in_flight, 0);
	assert_int_equal(ctr(EWYK_HTTP_C_REQUESTS), 1);
	assert_int_equal(cl->nrx, 0);
	assert_int_equal(ewyk_http_respond(W.deferred[0], 200, NULL, NULL, "X",
				 1),
		0);
	r = wait_resp(cl, &off, false);
	assert_memory_equal(r.body, "X", 1);
	for (i = 0; i < nreq; i++) {
		r = wait_resp(cl, &off, false);
		assert_int_equal(r.status, 200);
	}
	assert_int_equal(ctr(EWYK_HTTP_C_REQUESTS), nreq + 1);
	/* A pending request whose client resets: completing it later is
	 * harmless and frees the connection object. */
	c2 = cli_open(1);
	cli_sends(c2, "GET /defer/Y HTTP/1.1\r\nHost: x\r\n\r\n");
	RUN_UNTIL(W.ndeferred == 2, 1000);
	ewyk_tcp_abort(c2->c);
	c2->c = NULL;
	RUN_UNTIL(false, 100);
	assert_int_equal(ewyk_http_server_conns(W.srv), 2);
	assert_false(ewyk_http_conn_alive(W.deferred[1]));
	assert_int_equal(ewyk_http_respond(W.deferred[1], 200, NULL, NULL, "Y",
				 1),
		0);
	assert_int_equal(ewyk_http_server_conns(W.srv), 1);
}

/*
 * ewyk_http_on_done(): called once when the request is over (answered and
 * the next one may start), or when the connection goes away while it is
 * pending, where the owner may respond to free the object at once.
 */
static void
test_on_done(void **state)
{
	struct cli *a = cli_open(0), *b;
	uint64_t r503, r5xx;
	size_t off = 0;
	struct resp r;

	RTE_SET_USED(state);
	cli_sends(a, "GET /done/A HTTP/1.1\r\nHost: x\r\n\r\n");
	RUN_UNTIL(W.ndeferred == 1, 1000);
	assert_int_equal(W.ndone, 0);
	assert_int_equal(ewyk_http_respond(W.deferred[0], 200, NULL, NULL, "A",
				 1),
		0);
	r = wait_resp(a, &off, false);
	assert_memory_equal(r.body, "A", 1);
	assert_int_equal(W.ndone, 1);
	assert_int_equal(W.done_aborted, 0);
	/* The peer resets while the request is pending. */
	b = cli_open(1);
	cli_sends(b, "GET /done/B HTTP/1.1\r\nHost: x\r\n\r\n");
	RUN_UNTIL(W.ndeferred == 2, 1000);
	assert_int_equal(ewyk_http_server_conns(W.srv), 2);
	W.done_respond = 1;
	r503 = ctr(EWYK_HTTP_C_RESP_503);
	r5xx = ctr(EWYK_HTTP_C_RESP_5XX);
	ewyk_tcp_abort(b->c);
	b->c = NULL;
	RUN_UNTIL(W.ndone == 2, 1000);
	assert_int_equal(W.ndone, 2);
	assert_int_equal(W.done_aborted, 1);
	/* The 503 that freed it went nowhere: it is not counted. */
	assert_int_equal(ctr(EWYK_HTTP_C_RESP_503), r503);
	assert_int_equal(ctr(EWYK_HTTP_C_RESP_5XX), r5xx);
	/* Responding from the callback freed the object. */
	assert_int_equal(ewyk_http_server_conns(W.srv), 1);
	RUN_UNTIL(false, 50);
	assert_int_equal(W.ndone, 2);
	assert_int_equal(ewyk_http_on_done(W.deferred[1], done_cb, &W),
		-EINVAL);
}

/*
 * A malformed body while the response is already streaming: the response
 * cannot be finished, the connection is reset (it would otherwise wait
 * for a body that never ends).
 */
static void
test_bad_body_under_stream(void **state)
{
	struct cli *cl = cli_open(0), *c2;
	size_t off = 0;
	struct resp r;

	RTE_SET_USED(state);
	/* A good one first: the head at once, the body as it comes. */
	cli_sends(cl,
		"POST /streamer HTTP/1.1\r\nHost: x\r\n"
		"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 200);
	assert_int_equal(W.body_bytes, 5);
	W.body_bytes = 0;
	W.body_last = 0;
	c2 = cli_open(1);
	cli_sends(c2,
		"POST /streamer HTTP/1.1\r\nHost: x\r\n"
		"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nzz\r\n");
	RUN_UNTIL(c2->closed, 1000);
	assert_true(c2->closed);
	assert_int_equal(W.body_bytes, 5);
	assert_int_equal(ctr(EWYK_HTTP_C_PARSE_ERR_BODY), 1);
	/* The first connection is still served. */
	assert_int_equal(ewyk_http_server_conns(W.srv), 1);
}

static void
test_stream_1mb_window(void **state)
{
	struct cli *cl = cli_open(0);
	size_t off = 0, hl;
	uint64_t p1, i;
	const char *e;

	RTE_SET_USED(state);
	cl->hold = true;
	cli_sends(cl, "GET /bytes/1048576 HTTP/1.1\r\nHost: x\r\n\r\n");
	RUN_UNTIL(false, 200);
	p1 = W.produced;
	/* The reader withholds its window: production stops short of the
	 * body, bounded by the two buffers (256 KiB each) and one mbuf. */
	assert_true(p1 > 0 && p1 < (600u << 10));
	RUN_UNTIL(false, 200);
	assert_int_equal(W.produced, p1);
	assert_int_equal(ctr(EWYK_HTTP_C_TIMEOUT_WRITE), 0);
	/* Open the window: the rest flows. */
	cl->hold = false;
	ewyk_tcp_recvd(cl->c, (uint32_t)cl->held);
	RUN_UNTIL(cl->nrx >= (1u << 20) + 100 &&
			memmem(cl->rx, 400, "\r\n\r\n", 4) != NULL &&
			cl->nrx ==
				(size_t)((const char *)memmem(cl->rx, 400,
						 "\r\n\r\n", 4) -
					cl->rx) +
					4 + (1u << 20),
		5000);
	e = memmem(cl->rx, 400, "\r\n\r\n", 4);
	assert_non_null(e);
	hl = (size_t)(e + 4 - cl->rx);
	assert_non_null(memmem(cl->rx, hl, "Content-Length: 1048576\r\n", 25));
	assert_int_equal(cl->nrx, hl + (1u << 20));
	for (i = 0; i < (1u << 20); i++)
		if ((uint8_t)cl->rx[hl + i] != (uint8_t)(i % 256))
			fail_msg("byte %" PRIu64 " wrong", i);
	assert_int_equal(W.produced, 1u << 20);
	RTE_SET_USED(off);
}

/* A producer with nothing to give waits (-EAGAIN) for its resume; the
 * write timer does not count that wait as a stall. */
static void
test_stream_resume(void **state)
{
	struct cli *cl = cli_open(0);
	size_t off = 0;
	unsigned int k;
	struct resp r;

	RTE_SET_USED(state);
	cli_sends(cl,
		"GET /trickle HTTP/1.1\r\nHost: x\r\n\r\n"
		"GET / HTTP/1.1\r\nHost: x\r\n\r\n");
	RUN_UNTIL(W.trickle_conn != NULL, 1000);
	for (k = 0; k < 10; k++) {
		RUN_UNTIL(false, 500); /* half the write timeout, ten times */
		W.trickle_budget = 100;
		assert_int_equal(ewyk_http_stream_resume(W.trickle_conn), 0);
	}
	RUN_UNTIL(memmem(cl->rx, cl->nrx, "0\r\n\r\n", 5) != NULL, 1000);
	assert_int_equal(ctr(EWYK_HTTP_C_TIMEOUT_WRITE), 0);
	/* Ten chunks of 100 bytes ("64" in hex), one per resume. */
	{
		const char *p = cl->rx, *e = cl->rx + cl->nrx;
		unsigned int chunks = 0;

		while ((p = memmem(p, (size_t)(e - p), "\r\n64\r\n", 6)) !=
			NULL) {
			p += 6;
			assert_true(e - p >= 100);
			for (k = 0; k < 100; k++)
				assert_int_equal(p[k], 't');
			chunks++;
		}
		assert_int_equal(chunks, 10);
	}
	off = (size_t)((const char *)memmem(cl->rx, cl->nrx, "0\r\n\r\n", 5) -
		      cl->rx) +
		5;
	r = wait_resp(cl, &off, false);
	assert_memory_equal(r.body, "hello world\n", 12);
	assert_int_equal(ewyk_http_stream_resume(W.trickle_conn), -EINVAL);
}

static void
test_upload(void **state)
{
	struct cli *cl = cli_open(0);
	static char body[100000];
	char head[160];
	size_t off = 0, i, pos;
	uint64_t sum = 0;
	struct resp r;
	char want[64];
	int n;

	RTE_SET_USED(state);
	for (i = 0; i < sizeof(body); i++) {
		body[i] = (char)(i * 7 + i / 251);
		sum += (uint8_t)body[i];
	}
	n = snprintf(want, sizeof(want), "%zu %" PRIu64 "\n", sizeof(body),
		sum);
	/* Content-Length with Expect: 100-continue: the body goes only after
	 * the 100. */
	snprintf(head, sizeof(head),
		"POST /upload HTTP/1.1\r\nHost: x\r\n"
		"Content-Length: %zu\r\nExpect: 100-continue\r\n\r\n",
		sizeof(body));
	cli_sends(cl, head);
	RUN_UNTIL(cl->nrx >= 25, 1000);
	if (cl->nrx != 25)
		print_message("%.*s\n", (int)cl->nrx, cl->rx);
	assert_int_equal(cl->nrx, 25);
	assert_memory_equal(cl->rx, "HTTP/1.1 100 Continue\r\n\r\n", 25);
	off = 25;
	cli_send(cl, body, sizeof(body));
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.body_len, (size_t)n);
	assert_memory_equal(r.body, want, (size_t)n);
	assert_int_equal(ctr(EWYK_HTTP_C_CONTINUE_SENT), 1);
	/* Chunked, chunks of varied sizes, with an extension and a trailer. */
	W.body_bytes = 0;
	W.body_sum = 0;
	cli_sends(cl,
		"POST /upload HTTP/1.1\r\nHost: x\r\n"
		"Transfer-Encoding: chunked\r\n\r\n");
	for (pos = 0, i = 1; pos < sizeof(body); i = i * 3 % 5000 + 1) {
		size_t k = RTE_MIN(i, sizeof(body) - pos);
		char line[32];

		cli_send(cl, line,
			(size_t)snprintf(line, sizeof(line), "%zx;x=y\r\n", k));
		cli_send(cl, body + pos, k);
		cli_sends(cl, "\r\n");
		pos += k;
	}
	cli_sends(cl, "0\r\nX-Trailer: 1\r\n\r\n");
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 200);
	assert_memory_equal(r.body, want, (size_t)n);
	assert_false(cl->eof);
	/* Still serving afterwards. */
	cli_sends(cl, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 200);
}

/* A consumer that pauses: the uploader's window closes; resumed, all of
 * the body arrives. */
static void
test_upload_paused(void **state)
{
	struct cli *cl = cli_open(0);
	static char body[150000];
	struct ewyk_tcp_conn_info ci;
	char head[128], want[64];
	size_t off = 0, i;
	uint64_t sum = 0;
	unsigned int resumes = 0;
	struct resp r;
	int n;

	RTE_SET_USED(state);
	for (i = 0; i < sizeof(body); i++) {
		body[i] = (char)(i ^ (i >> 8));
		sum += (uint8_t)body[i];
	}
	n = snprintf(want, sizeof(want), "%zu %" PRIu64 "\n", sizeof(body),
		sum);
	snprintf(head, sizeof(head),
		"POST /slowupload HTTP/1.1\r\nHost: x\r\n"
		"Content-Length: %zu\r\n\r\n",
		sizeof(body));
	cli_sends(cl, head);
	cli_send(cl, body, sizeof(body));
	RUN_UNTIL(false, 100);
	/* One piece taken, the rest held unacknowledged: the window shrank. */
	assert_non_null(W.body_paused_conn);
	assert_true(W.body_bytes < 2000);
	ewyk_tcp_conn_info(cl->c, &ci);
	assert_true(ci.snd_wnd <= (256u << 10) - sizeof(body) + 4096);
	assert_int_equal(ctr(EWYK_HTTP_C_TIMEOUT_BODY), 0);
	while (W.body_last == 0 && resumes < 10000) {
		struct ewyk_http_conn *c = W.body_paused_conn;

		W.body_paused_conn = NULL;
		if (c != NULL) {
			assert_int_equal(ewyk_http_body_resume(c), 0);
			resumes++;
		}
		step(100);
	}
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 200);
	assert_memory_equal(r.body, want, (size_t)n);
	assert_true(resumes > 50);
}

static void
test_head_and_10(void **state)
{
	struct cli *cl = cli_open(0), *c2;
	size_t off = 0;
	struct resp r;

	RTE_SET_USED(state);
	cli_sends(cl,
		"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n"
		"HEAD /bytes/5000 HTTP/1.1\r\nHost: x\r\n\r\n"
		"GET / HTTP/1.1\r\nHost: x\r\n\r\n");
	r = wait_resp(cl, &off, true);
	assert_int_equal(r.status, 200);
	assert_true(head_has(&r, "Content-Length: 12\r\n"));
	r = wait_resp(cl, &off, true);
	assert_true(head_has(&r, "Content-Length: 5000\r\n"));
	/* No body bytes: the next thing is the GET's response. */
	r = wait_resp(cl, &off, false);
	assert_memory_equal(r.body, "hello world\n", 12);
	assert_int_equal(off, cl->nrx);
	assert_int_equal(W.produced, 0);
	/* HTTP/1.0 with keep-alive: kept open, said so. */
	cli_sends(cl, "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
	r = wait_resp(cl, &off, false);
	assert_true(head_has(&r, "Connection: keep-alive\r\n"));
	cli_sends(cl, "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 200);
	assert_false(cl->eof);
	/* HTTP/1.0 without: closed after the response. */
	cli_sends(cl, "GET / HTTP/1.0\r\n\r\n");
	r = wait_resp(cl, &off, false);
	assert_true(head_has(&r, "Connection: close\r\n"));
	RUN_UNTIL(cl->eof, 1000);
	assert_true(cl->eof);
	/* Connection: close on 1.1 likewise. */
	c2 = cli_open(1);
	off = 0;
	cli_sends(c2, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	r = wait_resp(c2, &off, false);
	assert_true(head_has(&r, "Connection: close\r\n"));
	RUN_UNTIL(c2->eof, 1000);
	assert_true(c2->eof);
}

/*
 * RFC 9112 6.1: no Transfer-Encoding in a response to HTTP/1.0. A chunked
 * stream asked for by the handler goes out close-delimited instead.
 */
static void
test_10_chunked_stream(void **state)
{
	struct cli *cl = cli_open(0);
	size_t off = 0;
	struct resp r;

	RTE_SET_USED(state);
	cli_sends(cl, "GET /chunked HTTP/1.0\r\n\r\n");
	r = wait_resp(cl, &off, true);
	assert_int_equal(r.status, 200);
	assert_false(head_has(&r, "Transfer-Encoding"));
	assert_false(head_has(&r, "Content-Length"));
	assert_true(head_has(&r, "Connection: close\r\n"));
	RUN_UNTIL(cl->eof, 1000);
	assert_true(cl->eof);
	assert_int_equal(cl->nrx - off, 15);
	assert_memory_equal(cl->rx + off, "abcdeabcdeabcde", 15);
	/* the same on 1.1 stays chunked */
	cl = cli_open(1);
	off = 0;
	cli_sends(cl, "GET /chunked HTTP/1.1\r\nHost: x\r\n\r\n");
	r = wait_resp(cl, &off, true);
	assert_true(head_has(&r, "Transfer-Encoding: chunked\r\n"));
}

/*
 * 204 and 304 have no content (RFC 9110 15.3.5, 15.4.5): a body the
 * handler gives is not sent, whole or streamed, and the next response
 * follows the head directly.
 */
static void
test_no_content_statuses(void **state)
{
	struct cli *cl = cli_open(0);
	size_t off = 0;
	struct resp r;

	RTE_SET_USED(state);
	cli_sends(cl,
		"GET /status/204 HTTP/1.1\r\nHost: x\r\n\r\n"
		"GET /status/304 HTTP/1.1\r\nHost: x\r\n\r\n"
		"GET /status/204s HTTP/1.1\r\nHost: x\r\n\r\n"
		"GET /status/200 HTTP/1.1\r\nHost: x\r\n\r\n");
	r = wait_resp(cl, &off, true);
	assert_int_equal(r.status, 204);
	r = wait_resp(cl, &off, true);
	assert_int_equal(r.status, 304);
	r = wait_resp(cl, &off, true);
	assert_int_equal(r.status, 204);
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 200);
	assert_memory_equal(r.body, "body", 4);
	assert_int_equal(off, cl->nrx);
	assert_false(cl->eof);
}

/*
 * A pending request answered with a stream, then the client resets. The
 * connection object must go back to the free list: at once when the
 * producer was being pumped, or at the next ewyk_http_stream_resume()
 * (which reports -ECONNABORTED) when the producer was waiting (-EAGAIN).
 */
static void
test_pending_stream_reset(void **state)
{
	struct cli *cl = cli_open(0);

	RTE_SET_USED(state);
	/* 1: waiting producer */
	cli_sends(cl, "GET /defer/s HTTP/1.1\r\nHost: x\r\n\r\n");
	RUN_UNTIL(W.ndeferred == 1, 1000);
	assert_int_equal(W.ndeferred, 1);
	W.trickle_budget = 0;
	assert_int_equal(ewyk_http_respond_stream(W.deferred[0], 200, NULL,
				 NULL, EWYK_HTTP_LEN_CHUNKED, prod_trickle,
				 NULL),
		0);
	ewyk_tcp_abort(cl->c);
	cl->c = NULL;
	RUN_UNTIL(false, 20);
	assert_int_equal(ewyk_http_server_conns(W.srv), 1);
	W.trickle_budget = 100;
	assert_int_equal(ewyk_http_stream_resume(W.deferred[0]), -ECONNABORTED);
	assert_int_equal(ewyk_http_server_conns(W.srv), 0);
	/* 2: producer being pumped, the client not reading */
	cl = cli_open(1);
	cl->hold = true;
	cli_sends(cl, "GET /defer/t HTTP/1.1\r\nHost: x\r\n\r\n");
	RUN_UNTIL(W.ndeferred == 2, 1000);
	assert_int_equal(W.ndeferred, 2);
	assert_int_equal(ewyk_http_respond_stream(W.deferred[1], 200, NULL,
				 NULL, 1u << 24, prod_bytes, NULL),
		0);
	RUN_UNTIL(false, 20);
	ewyk_tcp_abort(cl->c);
	cl->c = NULL;
	RUN_UNTIL(ewyk_http_server_conns(W.srv) == 0, 100);
	assert_int_equal(ewyk_http_server_conns(W.srv), 0);
}

static void
test_malformed(void **state)
{
	static const struct {
		const char *req;
		int status;
		enum ewyk_http_counter ctr;
	} cases[] = {
		{ "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n"
		  "Content-Length: 2\r\n\r\n",
			400, EWYK_HTTP_C_PARSE_ERR_400 },
		{ "GET / HTTP/1.1\r\n\r\n", 400, EWYK_HTTP_C_PARSE_ERR_400 },
		{ "BREW / HTTP/1.1\r\nHost: x\r\n\r\n", 501,
			EWYK_HTTP_C_PARSE_ERR_501 },
		{ "GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505,
			EWYK_HTTP_C_PARSE_ERR_505 },
		{ "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked"
		  "\r\n\r\nzz\r\n",
			400, EWYK_HTTP_C_PARSE_ERR_BODY },
	};
	unsigned int i;

	RTE_SET_USED(state);
	for (i = 0; i < RTE_DIM(cases); i++) {
		struct cli *cl = cli_open(i % 2);
		size_t off = 0;
		struct resp r;

		/* A valid request first: the error comes after a good answer. */
		cli_sends(cl, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
		r = wait_resp(cl, &off, false);
		assert_int_equal(r.status, 200);
		cli_sends(cl, cases[i].req);
		r = wait_resp(cl, &off, false);
		if (r.status != cases[i].status)
			print_message("case %u\n", i);
		assert_int_equal(r.status, cases[i].status);
		assert_true(head_has(&r, "Connection: close\r\n"));
		RUN_UNTIL(cl->eof, 1000);
		assert_true(cl->eof);
		assert_true(ctr(cases[i].ctr) >= 1);
		ewyk_tcp_close(cl->c);
		RUN_UNTIL(false, 300);
		free(cl->rx);
		memset(cl, 0, sizeof(*cl));
	}
	assert_int_equal(ewyk_http_server_conns(W.srv), 0);
}

static void
test_timeouts(void **state)
{
	struct cli *cl;
	size_t off = 0;
	struct resp r;

	RTE_SET_USED(state);
	/* Header: a head that never ends gets 408 and a close. */
	cl = cli_open(0);
	cli_sends(cl, "GET / HTTP/1.1\r\nHo");
	RUN_UNTIL(cl->eof, 3000);
	assert_true(cl->eof);
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 408);
	assert_int_equal(ctr(EWYK_HTTP_C_TIMEOUT_HEADER), 1);
	/* Body: 10 bytes of 100 and then nothing. */
	cl = cli_open(1);
	off = 0;
	cli_sends(cl,
		"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100"
		"\r\n\r\n0123456789");
	RUN_UNTIL(cl->eof, 3000);
	assert_true(cl->eof);
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 408);
	assert_int_equal(ctr(EWYK_HTTP_C_TIMEOUT_BODY), 1);
	/* Idle keep-alive: answered, then closed after 2 s of silence. */
	cl = cli_open(2);
	off = 0;
	cli_sends(cl, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 200);
	RUN_UNTIL(false, 1500);
	assert_false(cl->eof);
	RUN_UNTIL(cl->eof, 1500);
	assert_true(cl->eof);
	assert_int_equal(ctr(EWYK_HTTP_C_TIMEOUT_IDLE), 1);
	/* Write stall: a reader that never opens its window is reset. */
	cl = cli_open(3);
	cl->hold = true;
	cli_sends(cl, "GET /bytes/1048576 HTTP/1.1\r\nHost: x\r\n\r\n");
	RUN_UNTIL(cl->closed, 5000);
	assert_true(cl->closed);
	assert_int_equal(cl->err, -ECONNRESET);
	assert_int_equal(ctr(EWYK_HTTP_C_TIMEOUT_WRITE), 1);
	assert_true(W.produced < (1u << 20));
	RUN_UNTIL(false, 300);
	assert_int_equal(ewyk_http_server_conns(W.srv), 0);
}

static void
test_exhaustion(void **state)
{
	struct ewyk_http_server_conf hc;
	struct cli *cl;
	unsigned int i;
	size_t off = 0;
	struct resp r;

	teardown(state);
	memset(&hc, 0, sizeof(hc));
	hc.max_conns = 3;
	setup_conf(&hc);
	for (i = 0; i < 3; i++)
		assert_true(cli_open(i)->connected);
	RUN_UNTIL(false, 10);
	assert_int_equal(ewyk_http_server_conns(W.srv), 3);
	/* The fourth is reset when its handshake completes. */
	cl = cli_open(3);
	cli_sends(cl, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
	RUN_UNTIL(cl->closed, 1000);
	assert_true(cl->closed);
	assert_int_equal(cl->nrx, 0);
	assert_int_equal(ctr(EWYK_HTTP_C_CONN_REFUSED), 1);
	/* The others are served. */
	cli_sends(&W.cli[0], "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
	r = wait_resp(&W.cli[0], &off, false);
	assert_int_equal(r.status, 200);
}

static void
test_prometheus(void **state)
{
	const struct ewyk_http_server *s[1];
	struct cli *cl = cli_open(0);
	size_t off = 0;
	static char buf[65536];
	int n;

	RTE_SET_USED(state);
	cli_sends(cl, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
	wait_resp(cl, &off, false);
	s[0] = W.srv;
	n = ewyk_http_server_prometheus(s, 1, buf, sizeof(buf));
	assert_true(n > 0 && (size_t)n < sizeof(buf));
	assert_non_null(
		strstr(buf, "# TYPE ewyk_http_requests_total counter\n"));
	assert_non_null(
		strstr(buf, "ewyk_http_requests_total{shard=\"0\"} 1\n"));
	assert_non_null(
		strstr(buf, "ewyk_http_resp_2xx_total{shard=\"0\"} 1\n"));
#ifdef EWYK_PROMTOOL
	assert_int_equal(ewyk_test_promtool_check(buf), 0);
#endif
	for (n = 0; n < EWYK_HTTP_C_MAX; n++)
		assert_non_null(
			ewyk_http_counter_name((enum ewyk_http_counter)n));
	assert_null(ewyk_http_counter_name(EWYK_HTTP_C_MAX));
}

#ifdef EWYK_HTTP_CORPUS
/* Send in pieces of @p piece bytes, the wire running between them. */
static void
cli_send_pieces(struct cli *cl, const char *p, size_t len, size_t piece)
{
	while (len > 0 && cl->c != NULL && !cl->eof) {
		size_t n = RTE_MIN(len, piece);

		cli_send(cl, p, n);
		p += n;
		len -= n;
	}
}

/* One corpus case on a fresh connection, sent in pieces of @p piece. */
static void
corpus_case(const struct http_corpus_case *k, size_t piece)
{
	struct cli *cl = cli_open(0);
	size_t off = 0;
	struct resp r;
	int got;

	cli_send_pieces(cl, k->req, k->len, piece);
	RUN_UNTIL(resp_next(cl, &(size_t){ 0 }, false, &r) || cl->eof ||
			cl->closed,
		3000);
	got = resp_next(cl, &off, false, &r) ? r.status : 0;
	if (got != k->status)
		print_message("corpus case %s (pieces of %zu): got %d\n",
			k->name, piece, got);
	assert_int_equal(got, k->status);
	/* Then the server closes: the framing cannot be trusted. */
	RUN_UNTIL(cl->eof || cl->closed, 3000);
	if (!(cl->eof || cl->closed))
		print_message("corpus case %s: not closed\n", k->name);
	assert_true(cl->eof || cl->closed);
	if (cl->c != NULL)
		ewyk_tcp_close(cl->c);
	RUN_UNTIL(false, 300);
	free(cl->rx);
	memset(cl, 0, sizeof(*cl));
}

/*
 * tests/http_corpus/requests.txt (shared with DTS): each malformed or
 * smuggling request gets its status and a close, whole and (when short)
 * one byte per segment; a good request is served after all of them and
 * no connection object is left.
 */
static void
test_corpus(void **state)
{
	struct http_corpus_case *cases;
	size_t off = 0;
	struct resp r;
	struct cli *cl;
	int i, n;

	RTE_SET_USED(state);
	n = http_corpus_load(EWYK_HTTP_CORPUS, &cases);
	assert_true(n >= 40);
	for (i = 0; i < n; i++) {
		corpus_case(&cases[i], 1400);
		if (cases[i].len <= 256)
			corpus_case(&cases[i], 1);
	}
	http_corpus_free(cases, n);
	cl = cli_open(0);
	cli_sends(cl, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 200);
	ewyk_tcp_close(cl->c);
	RUN_UNTIL(ewyk_http_server_conns(W.srv) == 0, 1000);
	assert_int_equal(ewyk_http_server_conns(W.srv), 0);
}
#endif

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_get_exact, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_keepalive_100, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_pipeline_200, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_deferred_order, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_pending_backpressure,
			setup, teardown),
		cmocka_unit_test_setup_teardown(test_on_done, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_body_under_stream,
			setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_1mb_window, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_stream_resume, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_upload, setup, teardown),
		cmocka_unit_test_setup_teardown(test_upload_paused, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_head_and_10, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_10_chunked_stream, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_pending_stream_reset,
			setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_content_statuses, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_malformed, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_timeouts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exhaustion, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_prometheus, setup,
			teardown),
#ifdef EWYK_HTTP_CORPUS
		cmocka_unit_test_setup_teardown(test_corpus, setup, teardown),
#endif
	};

	if (ewyk_test_eal_init(argc, argv) < 0)
		return 1;
	mp = rte_pktmbuf_pool_create("test_http_conn", 8192, 256, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (mp == NULL)
		return 1;
	return cmocka_run_group_tests_name("http_conn", tests, NULL, NULL);
}
