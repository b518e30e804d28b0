/* SPDX-License-Identifier: BSD-3-Clause */
/* The world of the lib/http connection-layer tests (http_conn_world.h). */

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
#include "http_conn_world.h"

struct rte_mempool *mp;
struct http_world W;

/* ---- wire and clock ---- */

void
step(uint64_t us)
{
	tcp_wire_step(&W.wire, us);
}

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

struct cli *
cli_open(unsigned int i)
{
	return cli_open_from(i, CIP);
}

struct cli *
cli_open_from(unsigned int i, rte_be32_t src)
{
	struct cli *cl = &W.cli[i];
	struct ewyk_tcp_connect_args a = {
		.dst_ip = SIP,
		.dst_port = SPORT,
		.src_ip = src,
		.ops = &cli_ops,
		.ctx = cl,
	};

	cl->cap = 2u << 20;
	cl->rx = malloc(cl->cap);
	assert_non_null(cl->rx);
	cl->c = ewyk_tcp_connect(W.wire.t[1], &a);
	assert_non_null(cl->c);
	RUN_UNTIL(cl->connected || cl->refused, 100);
	return cl;
}

struct cli *
cli_open6_from(unsigned int i, const uint8_t src[16])
{
	struct cli *cl = &W.cli[i];
	struct ewyk_tcp_connect_args a = {
		.dst_port = SPORT,
		.ipv6 = true,
		.ops = &cli_ops,
		.ctx = cl,
	};

	memcpy(a.dst_ip6, SIP6, 16);
	memcpy(a.src_ip6, src, 16);
	cl->cap = 2u << 20;
	cl->rx = malloc(cl->cap);
	assert_non_null(cl->rx);
	cl->c = ewyk_tcp_connect(W.wire.t[1], &a);
	assert_non_null(cl->c);
	RUN_UNTIL(cl->connected || cl->refused, 100);
	return cl;
}

void
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

void
cli_sends(struct cli *cl, const char *s)
{
	cli_send(cl, s, strlen(s));
}

/*
 * Parse the response at *off (Content-Length or no body when @p nobody).
 * Returns 1 and advances *off, or 0 when it is not all there.
 */
int
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

struct resp
wait_resp(struct cli *cl, size_t *off, bool nobody)
{
	struct resp r;

	RUN_UNTIL(resp_next(cl, &(size_t){ *off }, nobody, &r), 3000);
	assert_true(resp_next(cl, off, nobody, &r));
	return r;
}

bool
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

int
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
int
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

void
done_cb(struct ewyk_http_conn *c, int aborted, void *arg)
{
	assert_ptr_equal(arg, &W);
	W.ndone++;
	W.done_aborted = aborted;
	/* after an abort the handle is dead: responding is refused */
	if (W.done_respond)
		assert_int_equal(ewyk_http_respond(c, 503, NULL, NULL, NULL, 0),
			aborted ? -EINVAL : -EALREADY);
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

/* /hold: reads its body and answers later, when "its task" ends, which
 * never happens: the end of the request is all it hears of (done_cb). */
static int
hold_body(struct ewyk_http_conn *c, const char *p, uint32_t len, int last,
	void *arg)
{
	RTE_SET_USED(c);
	RTE_SET_USED(p);
	RTE_SET_USED(len);
	RTE_SET_USED(last);
	RTE_SET_USED(arg);
	return 0;
}

static int
h_hold(struct ewyk_http_conn *c, const struct ewyk_http_request *req, void *arg)
{
	RTE_SET_USED(req);
	RTE_SET_USED(arg);
	W.nhold++;
	assert_int_equal(ewyk_http_read_body(c, hold_body, NULL), 0);
	assert_int_equal(ewyk_http_on_done(c, done_cb, &W), 0);
	return EWYK_HTTP_PENDING;
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

void
setup_conf(struct ewyk_http_server_conf *hc)
{
	int i;

	for (i = 0; i < MAXCLI; i++)
		free(W.cli[i].rx);
	memset(&W, 0, sizeof(W));
	if (tcp_wire_init(&W.wire, "test_http_conn", mp, MAXQ, 64, SIP, CIP) !=
		0)
		fail();
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
	assert_int_equal(ewyk_http_route_add(W.rt, "/hold", 0,
				 EWYK_HTTP_M(EWYK_HTTP_POST),
				 EWYK_STRATEGY_INVOKE_NON_BLOCKING,
				 (void *)h_hold, NULL),
		0);
	assert_int_equal(ewyk_http_route_add(W.rt, "/status/", 1,
				 EWYK_HTTP_M(EWYK_HTTP_GET),
				 EWYK_STRATEGY_INVOKE_NON_BLOCKING,
				 (void *)h_status, NULL),
		0);
	hc->wheel = W.wire.w;
	hc->pool = mp;
	hc->router = W.rt;
	hc->socket_id = SOCKET_ID_ANY;
	W.srv = ewyk_http_server_create(hc);
	assert_non_null(W.srv);
	/* Sun, 06 Nov 1994 08:49:37 GMT: response bytes are exact. */
	ewyk_http_server_set_time(W.srv, 784111777);
	assert_int_equal(ewyk_tcp_listen(W.wire.t[0], SIP, SPORT,
				 ewyk_http_server_tcp_ops(), W.srv, 0),
		0);
	assert_int_equal(ewyk_tcp_listen6(W.wire.t[0], SIP6, SPORT,
				 ewyk_http_server_tcp_ops(), W.srv, 0),
		0);
}

int
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

int
teardown(void **state)
{
	unsigned int i;

	RTE_SET_USED(state);
	ewyk_http_server_free(W.srv);
	tcp_wire_free(&W.wire);
	ewyk_http_router_free(W.rt);
	for (i = 0; i < MAXCLI; i++) {
		free(W.cli[i].rx);
		W.cli[i].rx = NULL;
	}
	return 0;
}

uint64_t
ctr(enum ewyk_http_counter c)
{
	return ewyk_http_server_counter(W.srv, c);
}
