/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The built-in routes of ewyk-httpd:
 *   GET  /            200 "hello world\n", in place (NON_BLOCKING)
 *   GET  /bytes/<n>   n bytes, byte i = i % 256, streamed under TCP's flow
 *                     control (n <= 2^40), in place
 *   GET  /sleep/<ms>  BLOCKING: really blocks its lcore ms milliseconds
 *                     (nanosleep), then 200; never past the task's
 *                     deadline (--task-timeout): it wakes there, and the
 *                     client has had its 504 from the holder; /sleep/0
 *                     is a BLOCKING route that does no work
 *   POST /echo        the request body back, streamed both ways through a
 *                     bounded buffer per request: the body is paused while
 *                     the buffer is full (the uploader's window closes),
 *                     the response waits while it is empty
 *   GET  /peer        "ADDR PORT\n": the client's address (IPv4 or IPv6)
 *                     and port, as the runtime's request copy gives them to
 *                     a handler (EITHER: in place or dispatched)
 * (POST /sha256: http_sha256.c.)
 *
 * `/`, `/bytes` and `/echo` are raw routes for HTTP/1.1 (lib/http's
 * connection, zero copy) and give the runtime's fn form too, which
 * HTTP/2 streams take: the same answer from a copy of the request.
 * /echo's fn form echoes bodies up to ECHO_FN_MAX (413 beyond).
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include <rte_mbuf.h>

#include <ewyk_http_server.h>

#include "httpd.h"

/* Largest /bytes/<n>. */
#define BYTES_MAX (UINT64_C(1) << 40)
/* Longest /sleep/<ms> (sleep_fn's 400 names it). */
#define SLEEP_MAX_MS 3600000u
/* Echo buffer per request, and how many requests echo at once per shard. */
#define ECHO_BUF 32768
#define ECHO_MAX 256
/* Largest body the fn form of /echo (HTTP/2) takes. */
#define ECHO_FN_MAX (1u << 20)

static int
hello(struct ewyk_http_conn *c, const struct ewyk_http_request *req, void *arg)
{
	RTE_SET_USED(req);
	RTE_SET_USED(arg);
	ewyk_http_respond(c, 200, "text/plain", NULL, "hello world\n", 12);
	return EWYK_HTTP_HANDLED;
}

static int
bad_request(struct ewyk_http_conn *c, const char *why, uint32_t len)
{
	ewyk_http_respond(c, 400, "text/plain", NULL, why, len);
	return EWYK_HTTP_HANDLED;
}

/* 0, 1, ..., 255, 0, 1, ..., 255: any run of 256 bytes is a memcpy. */
static const uint8_t bytes_pattern[512] = {
#define B4(n) (n), (n) + 1, (n) + 2, (n) + 3
#define B16(n) B4(n), B4((n) + 4), B4((n) + 8), B4((n) + 12)
#define B64(n) B16(n), B16((n) + 16), B16((n) + 32), B16((n) + 48)
#define B256 B64(0), B64(64), B64(128), B64(192)
	B256,
	B256,
#undef B256
#undef B64
#undef B16
#undef B4
};

static int
bytes_produce(struct ewyk_http_conn *c, char *buf, uint32_t cap, uint64_t off,
	void *arg)
{
	uint32_t done = 0;

	RTE_SET_USED(c);
	RTE_SET_USED(arg);
	while (done < cap) {
		uint32_t at = (uint32_t)((off + done) & 255);
		uint32_t n = RTE_MIN(cap - done, 256u);

		memcpy(buf + done, bytes_pattern + at, n);
		done += n;
	}
	return (int)cap;
}

static int
bytes(struct ewyk_http_conn *c, const struct ewyk_http_request *req, void *arg)
{
	static const char pre[] = "/bytes/";
	uint64_t n;

	RTE_SET_USED(arg);
	if (ewyk_http_parse_u64(req->path.p + sizeof(pre) - 1,
		    req->path.len - (uint32_t)(sizeof(pre) - 1), BYTES_MAX,
		    &n) != 0)
		return bad_request(c, "bad length: /bytes/<0..2^40>\n", 29);
	ewyk_http_respond_stream(c, 200, "application/octet-stream", NULL, n,
		bytes_produce, NULL);
	return EWYK_HTTP_HANDLED;
}

/* ---- fn forms (HTTP/2 streams) ---- */

static int
hello_fn(const struct ewyk_rt_req *req, struct ewyk_rt_result *res,
	enum ewyk_strategy_mode mode, void *arg)
{
	RTE_SET_USED(req);
	RTE_SET_USED(mode);
	RTE_SET_USED(arg);
	ewyk_rt_result_status(res, 200, "text/plain");
	return ewyk_rt_result_body(res, "hello world\n", 12);
}

static int
bytes_stream(void *arg, char *buf, uint32_t cap, uint64_t off)
{
	return bytes_produce(NULL, buf, cap, off, arg);
}

static int
bytes_fn(const struct ewyk_rt_req *req, struct ewyk_rt_result *res,
	enum ewyk_strategy_mode mode, void *arg)
{
	static const char pre[] = "/bytes/";
	static const char bad[] = "bad length: /bytes/<0..2^40>\n";
	uint64_t n;

	RTE_SET_USED(mode);
	RTE_SET_USED(arg);
	if (ewyk_http_parse_u64(req->path + sizeof(pre) - 1,
		    req->path_len - (uint32_t)(sizeof(pre) - 1), BYTES_MAX,
		    &n) != 0) {
		ewyk_rt_result_status(res, 400, "text/plain");
		return ewyk_rt_result_body(res, bad, sizeof(bad) - 1);
	}
	ewyk_rt_result_status(res, 200, "application/octet-stream");
	if (n == 0)
		return ewyk_rt_result_body(res, NULL, 0);
	return ewyk_rt_result_stream(res, n, bytes_stream, NULL, NULL);
}

static int
echo_fn(const struct ewyk_rt_req *req, struct ewyk_rt_result *res,
	enum ewyk_strategy_mode mode, void *arg)
{
	RTE_SET_USED(mode);
	RTE_SET_USED(arg);
	ewyk_rt_result_status(res, 200, "application/octet-stream");
	return ewyk_rt_result_body(res, req->body, req->body_len);
}

/*
 * Nanoseconds to sleep for ms milliseconds from now, cut at the TSC
 * deadline: past it nobody waits for the result (the holder answered 504).
 */
static uint64_t
sleep_ns(uint64_t ms, uint64_t deadline)
{
	uint64_t now = rte_rdtsc(), hz = rte_get_tsc_hz(), left_ns;

	if (deadline <= now)
		return 0;
	left_ns = (deadline - now) / hz * 1000000000u +
		(deadline - now) % hz * 1000000000u / hz;
	return RTE_MIN(ms * 1000000u, left_ns);
}

/* GET /sleep/<ms>: on whatever lcore the strategy chose, until the task's
 * deadline at the latest. */
static int
sleep_fn(const struct ewyk_rt_req *req, struct ewyk_rt_result *res,
	enum ewyk_strategy_mode mode, void *arg)
{
	static const char pre[] = "/sleep/";
	static const char bad[] =
		"bad duration: /sleep/<ms>, ms a decimal 0..3600000\n";
	struct timespec ts;
	uint64_t ms, ns;
	char msg[48];
	bool cut;
	int n;

	RTE_SET_USED(mode);
	RTE_SET_USED(arg);
	if (ewyk_http_parse_u64(req->path + sizeof(pre) - 1,
		    req->path_len - (uint32_t)(sizeof(pre) - 1), SLEEP_MAX_MS,
		    &ms) != 0) {
		ewyk_rt_result_status(res, 400, "text/plain");
		return ewyk_rt_result_body(res, bad, sizeof(bad) - 1);
	}
	cut = sleep_ns(ms, req->deadline) < ms * 1000000u;
	/* /sleep/0 does no work at all, not even a system call (nanosleep of
	 * 0 still costs the kernel's timer slack): the dispatch's own cost,
	 * which the strategies' benchmark measures. */
	while (ms != 0) {
		ns = sleep_ns(ms, req->deadline) + 1000;
		ts.tv_sec = (time_t)(ns / 1000000000u);
		ts.tv_nsec = (long)(ns % 1000000000u);
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
		/* Cut at the deadline: wake past it on the TSC too (the two
		 * clocks differ by the error of the TSC's rate), so the result
		 * is late and the client's answer is the holder's 504. */
		if (!cut || rte_rdtsc() >= req->deadline)
			break;
	}
	if (cut) {
		ewyk_rt_result_status(res, 504, "text/plain");
		return ewyk_rt_result_body(res, "Gateway Timeout\n", 16);
	}
	n = snprintf(msg, sizeof(msg), "slept %u ms\n", (unsigned int)ms);
	ewyk_rt_result_status(res, 200, "text/plain");
	return ewyk_rt_result_body(res, msg, (uint32_t)n);
}

/* ---- POST /echo ---- */

struct echo_st {
	struct httpd_shard *hs;
	uint32_t rd, wr; /* free-running ring positions in buf */
	uint32_t thresh; /* pause the body below this much free room */
	uint8_t body_done;
	uint8_t paused;  /* body consumer paused */
	uint8_t waiting; /* producer returned -EAGAIN */
	uint8_t in_prod; /* producer running: do not re-enter the pump */
	int qtok;        /* the source's share (sh->q_echo) */
	char buf[ECHO_BUF];
};

static int
echo_body(struct ewyk_http_conn *c, const char *p, uint32_t len, int last,
	void *arg)
{
	struct echo_st *e = arg;
	uint32_t at, n1;

	if (len > ECHO_BUF - (e->wr - e->rd)) {
		/* Cannot happen: a piece is one segment, and the body pauses
		 * while less than a segment's room is left. */
		return EWYK_HTTP_PENDING;
	}
	if (len > 0) {
		at = e->wr % ECHO_BUF;
		n1 = RTE_MIN(len, ECHO_BUF - at);
		memcpy(e->buf + at, p, n1);
		memcpy(e->buf, p + n1, len - n1);
		e->wr += len;
	}
	if (last)
		e->body_done = 1;
	if (e->waiting && !e->in_prod) {
		e->waiting = 0;
		ewyk_http_stream_resume(c);
	}
	if (!last && ECHO_BUF - (e->wr - e->rd) < e->thresh) {
		e->paused = 1;
		return EWYK_HTTP_PENDING;
	}
	return 0;
}

static int
echo_produce(struct ewyk_http_conn *c, char *buf, uint32_t cap, uint64_t off,
	void *arg)
{
	struct echo_st *e = arg;
	uint32_t avail = e->wr - e->rd, n, at, n1;

	RTE_SET_USED(off);
	if (avail == 0) {
		if (e->body_done)
			return 0; /* end of a chunked echo */
		e->waiting = 1;
		return -EAGAIN;
	}
	n = RTE_MIN(cap, avail);
	at = e->rd % ECHO_BUF;
	n1 = RTE_MIN(n, ECHO_BUF - at);
	memcpy(buf, e->buf + at, n1);
	memcpy(buf + n1, e->buf, n - n1);
	e->rd += n;
	if (e->paused && ECHO_BUF - (e->wr - e->rd) >= e->thresh) {
		e->paused = 0;
		e->in_prod = 1;
		ewyk_http_body_resume(c);
		e->in_prod = 0;
	}
	return (int)n;
}

static void
echo_done(struct ewyk_http_conn *c, int aborted, void *arg)
{
	struct echo_st *e = arg;

	RTE_SET_USED(c);
	RTE_SET_USED(aborted);
	ewyk_http_quota_give(e->hs->q_echo, e->qtok);
	ewyk_pool_put(e->hs->echo_st, e);
}

static int
echo(struct ewyk_http_conn *c, const struct ewyk_http_request *req, void *arg)
{
	struct ewyk_rt_shard *rs = ewyk_rt_shard_current();
	struct httpd_shard *sh = httpd_shard(arg, rs);
	struct echo_st *e;
	uint64_t len;
	int rc, tok;

	/* No source holds more than its share of the states. */
	tok = ewyk_http_quota_take(sh->q_echo, c);
	e = tok >= 0 ? ewyk_pool_get(sh->echo_st) : NULL;
	if (e == NULL) {
		ewyk_http_quota_give(sh->q_echo, tok);
		ewyk_http_respond(c, 503, "text/plain", NULL,
			"Service Unavailable\n", 20);
		return EWYK_HTTP_HANDLED;
	}
	e->qtok = tok;
	e->hs = sh;
	e->rd = e->wr = 0;
	e->thresh = rte_pktmbuf_data_room_size(ewyk_rt_shard_mbufs(rs));
	e->body_done = e->paused = e->waiting = e->in_prod = 0;
	rc = ewyk_http_read_body(c, echo_body, e);
	if (rc != 0) {
		ewyk_http_quota_give(sh->q_echo, tok);
		ewyk_pool_put(sh->echo_st, e);
		ewyk_http_respond(c, 200, "application/octet-stream", NULL,
			NULL, 0);
		return EWYK_HTTP_HANDLED;
	}
	ewyk_http_on_done(c, echo_done, e);
	len = req->framing == EWYK_HTTP_BODY_LENGTH ? req->content_length :
						      EWYK_HTTP_LEN_CHUNKED;
	ewyk_http_respond_stream(c, 200, "application/octet-stream", NULL, len,
		echo_produce, e);
	return EWYK_HTTP_HANDLED;
}

/* The module: the shard's echo buffers and their per-source shares. */
static int
echo_init(struct ewyk_rt_shard *rs, void *arg)
{
	struct httpd_shard *sh = httpd_shard(arg, rs);
	struct ewyk_pool_params pp;
	char name[32];

	/* a quarter of the states per source */
	sh->q_echo = ewyk_http_quota_create(ECHO_MAX, ECHO_MAX / 4,
		ewyk_rt_shard_socket(rs));
	if (sh->q_echo == NULL) {
		fprintf(stderr, "error: echo quota of shard %u: %s\n",
			ewyk_rt_shard_id(rs), rte_strerror(rte_errno));
		return -ENOMEM;
	}
	snprintf(name, sizeof(name), "http_echo_%u", ewyk_rt_shard_id(rs));
	memset(&pp, 0, sizeof(pp));
	pp.name = name;
	pp.capacity = ECHO_MAX;
	pp.obj_size = sizeof(struct echo_st);
	pp.socket_id = ewyk_rt_shard_socket(rs);
	pp.cache_size = 4;
	sh->echo_st = ewyk_pool_create(&pp);
	if (sh->echo_st == NULL) {
		fprintf(stderr, "error: echo pool of shard %u: %s\n",
			ewyk_rt_shard_id(rs), rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

static void
echo_depart(struct ewyk_rt_shard *rs, void *arg)
{
	ewyk_pool_cache_flush(httpd_shard(arg, rs)->echo_st);
}

/* After the HTTP server: every request's end gave its buffer back. */
static void
echo_fini(struct ewyk_rt_shard *rs, void *arg)
{
	struct httpd_shard *sh = httpd_shard(arg, rs);

	ewyk_pool_free(sh->echo_st);
	sh->echo_st = NULL;
	ewyk_http_quota_free(sh->q_echo);
	sh->q_echo = NULL;
}

/* The client as the request copy has it, in either family. */
static int
peer_fn(const struct ewyk_rt_req *req, struct ewyk_rt_result *res,
	enum ewyk_strategy_mode mode, void *arg)
{
	char a[64], msg[96];
	int n;

	RTE_SET_USED(mode);
	RTE_SET_USED(arg);
	if (ewyk_http_peer_format(&req->peer, a, sizeof(a)) < 0)
		return -EINVAL;
	n = snprintf(msg, sizeof(msg), "%s %u\n", a, req->peer.port);
	ewyk_rt_result_status(res, 200, "text/plain");
	return ewyk_rt_result_body(res, msg, (uint32_t)n);
}

int
http_routes_register(struct httpd *h)
{
	const uint32_t get = EWYK_HTTP_M(EWYK_HTTP_GET);
	const uint32_t post = EWYK_HTTP_M(EWYK_HTTP_POST);
	const struct ewyk_rt_route routes[] = {
		{ .path = "/",
			.methods = get,
			.invocation = EWYK_STRATEGY_INVOKE_NON_BLOCKING,
			.raw = hello,
			.fn = hello_fn },
		{ .path = "/bytes/",
			.prefix = 1,
			.methods = get,
			.invocation = EWYK_STRATEGY_INVOKE_NON_BLOCKING,
			.raw = bytes,
			.fn = bytes_fn },
		{ .path = "/sleep/",
			.prefix = 1,
			.methods = get,
			.invocation = EWYK_STRATEGY_INVOKE_BLOCKING,
			.fn = sleep_fn },
		{ .path = "/peer",
			.methods = get,
			.invocation = EWYK_STRATEGY_INVOKE_EITHER,
			.fn = peer_fn },
		{ .path = "/echo",
			.methods = post,
			.invocation = EWYK_STRATEGY_INVOKE_NON_BLOCKING,
			.raw = echo,
			.fn = echo_fn,
			.arg = h,
			.max_body = ECHO_FN_MAX },
	};
	const struct ewyk_rt_module m = {
		.name = "http echo",
		.init = echo_init,
		.depart = echo_depart,
		.fini = echo_fini,
		.arg = h,
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(routes); i++)
		if (ewyk_rt_http_route(h->rt, &routes[i]) != 0)
			return -1;
	return ewyk_rt_module_add(h->rt, &m) == 0 ? 0 : -1;
}
