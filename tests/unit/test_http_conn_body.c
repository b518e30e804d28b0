/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/http connection layer, bodies both ways: streamed responses under
 * the TCP window (resume, chunked, trickle, reset while pending), request
 * bodies read whole or paused, HEAD and statuses without content. Run by
 * test_http_conn.c's main, in its world (http_conn_world.h).
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
#include "http_conn_world.h"

/*
 * A malformed body while the response is already streaming: the response
 * cannot be finished, the connection is reset (it would otherwise wait
 * for a body that never ends).
 */
void
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

void
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
void
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

void
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
void
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

void
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
void
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
void
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
 * connection object goes back to the free list at once, whether the
 * producer was being pumped or waiting (-EAGAIN): a later
 * ewyk_http_stream_resume() on the dead handle is refused.
 */
void
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
	assert_int_equal(ewyk_http_server_conns(W.srv), 0);
	W.trickle_budget = 100;
	assert_int_equal(ewyk_http_stream_resume(W.deferred[0]), -EINVAL);
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

/*
 * A pending request whose body the peer cuts short (its FIN inside the
 * body): we reset the connection ourselves, and the owner is told then
 * (aborted), as when the peer resets; the object is freed whatever the
 * owner does (here it tries to respond from the callback: refused).
 */
void
test_pending_cut_body(void **state)
{
	struct cli *cl = cli_open(0);

	RTE_SET_USED(state);
	cli_sends(cl,
		"GET /done/c HTTP/1.1\r\nHost: x\r\n"
		"Content-Length: 10\r\n\r\nabc");
	RUN_UNTIL(W.ndeferred == 1, 1000);
	assert_int_equal(W.ndeferred, 1);
	RUN_UNTIL(false, 20);
	assert_int_equal(W.ndone, 0);
	W.done_respond = 1;
	ewyk_tcp_close(cl->c);
	RUN_UNTIL(W.ndone == 1, 500);
	assert_int_equal(W.ndone, 1);
	assert_int_equal(W.done_aborted, 1);
	assert_int_equal(ewyk_http_server_conns(W.srv), 0);
}
