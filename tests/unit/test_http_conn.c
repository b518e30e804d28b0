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
#include "http_conn_world.h"
#include "test_common.h"

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
	uint64_t orphaned;
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
	/* A pending request whose client resets: the connection object is
	 * freed at once, whatever its owner does (here: nothing), and
	 * counted; completing it later is refused. */
	orphaned = ctr(EWYK_HTTP_C_CONN_ORPHANED);
	c2 = cli_open(1);
	cli_sends(c2, "GET /defer/Y HTTP/1.1\r\nHost: x\r\n\r\n");
	RUN_UNTIL(W.ndeferred == 2, 1000);
	assert_int_equal(ewyk_http_server_conns(W.srv), 2);
	ewyk_tcp_abort(c2->c);
	c2->c = NULL;
	RUN_UNTIL(false, 100);
	assert_int_equal(ewyk_http_server_conns(W.srv), 1);
	assert_int_equal(ctr(EWYK_HTTP_C_CONN_ORPHANED), orphaned + 1);
	assert_false(ewyk_http_conn_alive(W.deferred[1]));
	assert_int_equal(ewyk_http_respond(W.deferred[1], 200, NULL, NULL, "Y",
				 1),
		-EINVAL);
	assert_int_equal(ewyk_http_server_conns(W.srv), 1);
}

/*
 * ewyk_http_on_done(): called once when the request is over (answered and
 * the next one may start), or when the connection goes away while it is
 * pending: the object is then freed whatever the owner does, and a
 * response from the callback is refused (the handle is dead).
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
	/* The 503 the callback tried went nowhere: it is not counted. */
	assert_int_equal(ctr(EWYK_HTTP_C_RESP_503), r503);
	assert_int_equal(ctr(EWYK_HTTP_C_RESP_5XX), r5xx);
	assert_int_equal(ewyk_http_server_conns(W.srv), 1);
	RUN_UNTIL(false, 50);
	assert_int_equal(W.ndone, 2);
	assert_int_equal(ewyk_http_on_done(W.deferred[1], done_cb, &W),
		-EINVAL);
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
		/* a request line where a trailer field belongs */
		{ "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked"
		  "\r\n\r\n0\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n",
			400, EWYK_HTTP_C_PARSE_ERR_BODY },
	};
	unsigned int i;

	RTE_SET_USED(state);
	for (i = 0; i < RTE_DIM(cases); i++) {
		struct cli *cl = cli_open(i % 2);
		uint64_t before = ctr(cases[i].ctr);
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
		assert_true(ctr(cases[i].ctr) == before + 1);
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

/*
 * One wheel node per connection slot carries its timeouts, and stays on
 * the wheel when the slot is released: a node due before the deadline
 * now wanted is left in place and moved on when it comes up. Each
 * timeout still fires at its own deadline, not before.
 */
static void
test_timeouts_reused_slot(void **state)
{
	struct cli *cl;
	size_t off = 0;
	struct resp r;

	RTE_SET_USED(state);
	/* Answered and closed: the slot's node stays parked, due at the
	 * first connection's header deadline. */
	cl = cli_open(0);
	cli_sends(cl, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 200);
	ewyk_tcp_close(cl->c);
	RUN_UNTIL(ewyk_http_server_conns(W.srv) == 0, 300);
	assert_int_equal(ewyk_http_server_conns(W.srv), 0);
	RUN_UNTIL(false, 500);
	/* The next connection takes the slot: its header timer fires 1 s
	 * after its accept, after the parked node came up. */
	cl = cli_open(1);
	off = 0;
	cli_sends(cl, "GET / HTTP/1.1\r\nHo");
	RUN_UNTIL(cl->eof, 850);
	assert_false(cl->eof);
	assert_int_equal(ctr(EWYK_HTTP_C_TIMEOUT_HEADER), 0);
	RUN_UNTIL(cl->eof, 500);
	assert_true(cl->eof);
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 408);
	assert_int_equal(ctr(EWYK_HTTP_C_TIMEOUT_HEADER), 1);
	ewyk_tcp_close(cl->c);
	RUN_UNTIL(ewyk_http_server_conns(W.srv) == 0, 300);
	/* Answered: the idle timer (2 s) rides on the node armed for the
	 * header deadline (1 s) and fires at 2 s. */
	cl = cli_open(2);
	off = 0;
	cli_sends(cl, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 200);
	RUN_UNTIL(cl->eof, 1500);
	assert_false(cl->eof);
	assert_int_equal(ctr(EWYK_HTTP_C_TIMEOUT_IDLE), 0);
	RUN_UNTIL(cl->eof, 1000);
	assert_true(cl->eof);
	assert_int_equal(ctr(EWYK_HTTP_C_TIMEOUT_IDLE), 1);
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
	hc.max_conns_per_src = 4; /* one address: no share in the way */
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
		cmocka_unit_test_setup_teardown(test_pending_cut_body, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_no_content_statuses, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_malformed, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_timeouts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeouts_reused_slot,
			setup, teardown),
		cmocka_unit_test_setup_teardown(test_exhaustion, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_prometheus, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_respond_zero_window, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_respond_bound, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_server_limits, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_pending_stream_write_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_respond_head_cache, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_pipelined_one_segment,
			setup, teardown),
		cmocka_unit_test_setup_teardown(test_orphan_mid_upload, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_head_byte_segments, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_pending_byte_segments,
			setup, teardown),
		cmocka_unit_test_setup_teardown(test_switch_preface,
			setup_switch, teardown),
		cmocka_unit_test_setup_teardown(test_switch_refused,
			setup_switch, teardown),
		cmocka_unit_test_setup_teardown(test_switch_upgrade,
			setup_switch, teardown),
		cmocka_unit_test_setup_teardown(test_switch_not_taken,
			setup_switch, teardown),
		cmocka_unit_test_setup_teardown(test_body_min_rate, setup_rate,
			teardown),
		cmocka_unit_test_setup_teardown(test_fin_after_pipelined, setup,
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
