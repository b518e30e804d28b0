/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/runtime: HTTP dispatch of fn routes, end to end through frames, on
 * a virtual clock: each outcome of a dispatched request (its result, the
 * deadline, a refusal, the connection gone), responses in request order
 * with pipelined requests, and a stop with requests in flight.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "runtime_test_util.h"

#define GET(p) "GET " p " HTTP/1.1\r\nHost: t\r\n\r\n"

static uint64_t
count(enum ewyk_rt_task_ctr c)
{
	return ewyk_rt_task_count(RTW.sh, c);
}

static void
expect_resp(struct rtw_cli *c, int status, const char *body)
{
	struct rtw_resp r;

	assert_int_equal(rtw_resp_next(c, &r), 1);
	assert_int_equal(r.status, status);
	if (body != NULL) {
		assert_int_equal(r.body_len, strlen(body));
		assert_memory_equal(r.body, body, r.body_len);
	}
}

static void
expect_no_resp(struct rtw_cli *c)
{
	struct rtw_resp r;

	assert_int_equal(rtw_resp_next(c, &r), 0);
}

/* A BLOCKING route under pc: run in place with a copy of the request,
 * answered with its result. */
void
test_dispatch_result(void **state)
{
	struct rtw_cli *c;

	(void)state;
	rtw_create(EWYK_STRATEGY_PC, 0);
	rtw_start();
	c = rtw_connect(0);
	rtw_send(c, "GET /block?a=1 HTTP/1.1\r\nHost: t\r\nX-T:  v1 \r\n\r\n");
	rtw_run();
	expect_resp(c, 200, "block");
	assert_int_equal(RTW.calls_block, 1);
	assert_int_equal(RTW.last_mode, EWYK_STRATEGY_MODE_PC);
	/* the handler's copy of the request, and its deadline */
	assert_string_equal(RTW.path, "/block");
	assert_string_equal(RTW.query, "a=1");
	assert_string_equal(RTW.hdr, "v1");
	assert_int_equal(RTW.req_deadline,
		RTW.vnow + RTW.hz / 1000 * RTW_TIMEOUT_MS);
	/* ... and its peer: the client's address and port */
	assert_false(RTW.peer.ipv6);
	assert_memory_equal(RTW.peer.addr, &(rte_be32_t){ RTE_BE32(RTW_CIP) },
		4);
	assert_int_equal(RTW.peer.port, c->sport);
	{
		/* an IPv6 peer is written as RFC 5952 says */
		const struct ewyk_http_peer p6 = { .ipv6 = true,
			.addr = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 } };
		char txt[64];

		assert_int_equal(ewyk_http_peer_format(&RTW.peer, txt,
					 sizeof(txt)),
			8);
		assert_string_equal(txt, "10.0.0.2");
		assert_int_equal(ewyk_http_peer_format(&RTW.peer, txt, 8),
			-ENOSPC);
		assert_int_equal(ewyk_http_peer_format(&p6, txt, sizeof(txt)),
			11);
		assert_string_equal(txt, "2001:db8::1");
	}
	assert_int_equal(count(EWYK_RT_TASK_DISPATCHED), 1);
	assert_int_equal(count(EWYK_RT_TASK_DONE), 1);
	assert_int_equal(count(EWYK_RT_TASK_TIMED_OUT), 0);
	assert_int_equal(rt_test_http_tasks(RTW.rt, 0), 0);
	/* keep-alive: the next request on the same connection */
	rtw_send(c, GET("/block"));
	rtw_run();
	expect_resp(c, 200, "block");
	assert_int_equal(count(EWYK_RT_TASK_DONE), 2);
	rtw_free();
}

/* A NON_BLOCKING fn route is dispatched too and runs in place; a
 * handler that fails is answered 500 and counted failed. */
void
test_dispatch_nonblocking_and_failed(void **state)
{
	struct rtw_cli *c;

	(void)state;
	rtw_create(EWYK_STRATEGY_ADAPTIVE, 0);
	rtw_start();
	c = rtw_connect(0);
	rtw_send(c, GET("/nb"));
	rtw_run();
	expect_resp(c, 200, "nb");
	assert_int_equal(RTW.calls_nb, 1);
	assert_int_equal(RTW.last_mode, EWYK_STRATEGY_MODE_PC);
	rtw_send(c, GET("/fail"));
	rtw_run();
	/* adaptive with no idle reserved lcore: queued; run it here */
	assert_int_equal(rt_test_run_queued(RTW.rt, UINT32_MAX), 1);
	rtw_run();
	expect_resp(c, 500, NULL);
	assert_int_equal(count(EWYK_RT_TASK_DONE), 1);
	assert_int_equal(count(EWYK_RT_TASK_FAILED), 1);
	assert_int_equal(rt_test_http_tasks(RTW.rt, 0), 0);
	rtw_free();
}

/* Under pc the handler runs in place and its time passes the deadline:
 * the late result is dropped and the client gets its 504. */
void
test_dispatch_deadline_pc(void **state)
{
	struct rtw_cli *c;

	(void)state;
	rtw_create(EWYK_STRATEGY_PC, 0);
	rtw_start();
	c = rtw_connect(0);
	RTW.advance_in_fn = (RTW_TIMEOUT_MS + 1) * (RTW.hz / 1000);
	rtw_send(c, GET("/block"));
	rtw_run();
	RTW.advance_in_fn = 0;
	assert_int_equal(RTW.calls_block, 1);
	/* the late result was dropped: nothing until the deadline fires */
	assert_int_equal(count(EWYK_RT_TASK_LATE), 1);
	assert_int_equal(count(EWYK_RT_TASK_DONE), 0);
	rtw_advance_ms(RTW_SLACK_MS(RTW_TIMEOUT_MS));
	rtw_run();
	expect_resp(c, 504, NULL);
	expect_no_resp(c);
	assert_int_equal(count(EWYK_RT_TASK_TIMED_OUT), 1);
	assert_int_equal(count(EWYK_RT_TASK_LATE), 1);
	assert_int_equal(count(EWYK_RT_TASK_DONE), 0);
	assert_int_equal(rt_test_http_tasks(RTW.rt, 0), 0);
	/* the connection serves the next request */
	rtw_send(c, GET("/block"));
	rtw_run();
	expect_resp(c, 200, "block");
	rtw_free();
}

/* A queued request whose deadline passes: 504 at the deadline; the task
 * is freed when it runs at last, its result dropped as late. */
void
test_dispatch_deadline_queued(void **state)
{
	struct rtw_cli *c;

	(void)state;
	rtw_create(EWYK_STRATEGY_PEC, 0);
	rtw_start();
	c = rtw_connect(0);
	rtw_send(c, GET("/block"));
	rtw_run();
	expect_no_resp(c);
	assert_int_equal(count(EWYK_RT_TASK_DISPATCHED), 1);
	/* just before the deadline: nothing */
	rtw_advance_ms(RTW_TIMEOUT_MS - 1);
	rtw_run();
	expect_no_resp(c);
	rtw_advance_ms(1 + RTW_SLACK_MS(RTW_TIMEOUT_MS));
	rtw_run();
	expect_resp(c, 504, NULL);
	assert_int_equal(count(EWYK_RT_TASK_TIMED_OUT), 1);
	assert_int_equal(rt_test_http_tasks(RTW.rt, 0), 1);
	assert_int_equal(rt_test_run_queued(RTW.rt, UINT32_MAX), 1);
	rtw_run();
	expect_no_resp(c);
	assert_int_equal(count(EWYK_RT_TASK_LATE), 1);
	assert_int_equal(count(EWYK_RT_TASK_DONE), 0);
	assert_int_equal(rt_test_http_tasks(RTW.rt, 0), 0);
	rtw_free();
}

/* PEC ring full and nobody serving it: the next request is refused,
 * 503, counted rejected; the queued ones are answered when they run. */
void
test_dispatch_refused(void **state)
{
	struct rtw_cli *c[3];
	unsigned int i;

	(void)state;
	rtw_create(EWYK_STRATEGY_PEC, 2);
	rtw_start();
	for (i = 0; i < 3; i++)
		c[i] = rtw_connect(i);
	for (i = 0; i < 3; i++) {
		rtw_send(c[i], GET("/block"));
		rtw_run();
	}
	expect_no_resp(c[0]);
	expect_no_resp(c[1]);
	expect_resp(c[2], 503, NULL);
	assert_int_equal(count(EWYK_RT_TASK_REJECTED), 1);
	assert_int_equal(count(EWYK_RT_TASK_DISPATCHED), 3);
	assert_int_equal(RTW.calls_block, 0);
	assert_int_equal(rt_test_http_tasks(RTW.rt, 0), 2);
	assert_int_equal(rt_test_run_queued(RTW.rt, UINT32_MAX), 2);
	rtw_run();
	expect_resp(c[0], 200, "block");
	expect_resp(c[1], 200, "block");
	assert_int_equal(count(EWYK_RT_TASK_DONE), 2);
	assert_int_equal(rt_test_http_tasks(RTW.rt, 0), 0);
	rtw_free();
}

/* The client resets its connection while its request is queued: no
 * response, the job is orphaned and its task freed when it ends. */
void
test_dispatch_conn_gone(void **state)
{
	struct rtw_cli *c, *d;

	(void)state;
	rtw_create(EWYK_STRATEGY_PEC, 0);
	rtw_start();
	c = rtw_connect(0);
	d = rtw_connect(1);
	rtw_send(c, GET("/block"));
	rtw_run();
	rtw_rst(c);
	rtw_run();
	assert_int_equal(count(EWYK_RT_TASK_ORPHANED), 1);
	assert_int_equal(rt_test_http_tasks(RTW.rt, 0), 1);
	assert_int_equal(rt_test_run_queued(RTW.rt, UINT32_MAX), 1);
	rtw_run();
	assert_int_equal(c->nrx, 0);
	assert_int_equal(count(EWYK_RT_TASK_DONE), 0);
	assert_int_equal(count(EWYK_RT_TASK_LATE), 1);
	assert_int_equal(rt_test_http_tasks(RTW.rt, 0), 0);
	/* the shard serves others as before */
	rtw_send(d, GET("/block"));
	rtw_run();
	assert_int_equal(rt_test_run_queued(RTW.rt, UINT32_MAX), 1);
	rtw_run();
	expect_resp(d, 200, "block");
	rtw_free();
}

/* Pipelined requests in one segment, BLOCKING (queued) and NON_BLOCKING
 * (in place): answered in request order, the later ones not parsed
 * before the earlier is answered. */
void
test_dispatch_pipelined_order(void **state)
{
	struct rtw_cli *c;

	(void)state;
	rtw_create(EWYK_STRATEGY_ADAPTIVE, 0);
	rtw_start();
	c = rtw_connect(0);
	rtw_send(c, GET("/block") GET("/nb") GET("/block") GET("/nb"));
	rtw_run();
	expect_no_resp(c);
	assert_int_equal(RTW.calls_nb, 0);
	assert_int_equal(rt_test_run_queued(RTW.rt, UINT32_MAX), 1);
	rtw_run();
	/* the first answered, then /nb in place, then /block queued */
	expect_resp(c, 200, "block");
	expect_resp(c, 200, "nb");
	expect_no_resp(c);
	assert_int_equal(rt_test_run_queued(RTW.rt, UINT32_MAX), 1);
	rtw_run();
	expect_resp(c, 200, "block");
	expect_resp(c, 200, "nb");
	expect_no_resp(c);
	assert_int_equal(RTW.calls_block, 2);
	assert_int_equal(RTW.calls_nb, 2);
	assert_int_equal(count(EWYK_RT_TASK_DONE), 4);
	assert_int_equal(rt_test_http_tasks(RTW.rt, 0), 0);
	rtw_free();
}

/* ewyk_rt_free() with requests in flight: a result that waits in the
 * inbox is applied (200), a request still queued is dropped (504, its
 * handler never runs); then every connection is reset. */
void
test_dispatch_stop_in_flight(void **state)
{
	struct rtw_cli *a, *b;

	(void)state;
	rtw_create(EWYK_STRATEGY_PEC, 0);
	rtw_start();
	a = rtw_connect(0);
	b = rtw_connect(1);
	rtw_send(a, GET("/block"));
	rtw_send(b, GET("/block"));
	rtw_run();
	expect_no_resp(a);
	expect_no_resp(b);
	assert_int_equal(rt_test_http_tasks(RTW.rt, 0), 2);
	/* a's result is posted; nobody steps the shard to apply it */
	assert_int_equal(rt_test_run_queued(RTW.rt, 1), 1);
	assert_int_equal(RTW.calls_block, 1);
	rtw_free();
	rtw_pump();
	expect_resp(a, 200, "block");
	expect_no_resp(a);
	assert_true(a->rst);
	expect_resp(b, 504, NULL);
	expect_no_resp(b);
	assert_true(b->rst);
	assert_int_equal(RTW.calls_block, 1);
}

/* A route with max_body: its handler gets the body the runtime read,
 * whole, Content-Length or chunked; a body over max_body is answered 413
 * (before or while it is read) and its task freed. */
void
test_dispatch_body(void **state)
{
	struct rtw_cli *c;
	char big[200];

	(void)state;
	rtw_create(EWYK_STRATEGY_PC, 0);
	rtw_start();
	c = rtw_connect(0);
	rtw_send(c,
		"POST /body HTTP/1.1\r\nHost: t\r\n"
		"Content-Length: 11\r\n\r\nhello world");
	rtw_run();
	expect_resp(c, 200, "hello world");
	rtw_send(c,
		"POST /body HTTP/1.1\r\nHost: t\r\n"
		"Transfer-Encoding: chunked\r\n\r\n"
		"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");
	rtw_run();
	expect_resp(c, 200, "hello world");
	/* no body: the handler gets none */
	rtw_send(c,
		"POST /body HTTP/1.1\r\nHost: t\r\n"
		"Content-Length: 0\r\n\r\n");
	rtw_run();
	expect_resp(c, 200, "");
	assert_int_equal(RTW.calls_body, 3);
	/* over max_body, said by Content-Length: 413 at once */
	snprintf(big, sizeof(big),
		"POST /body HTTP/1.1\r\nHost: t\r\nContent-Length: %u\r\n\r\n",
		RTW_MAX_BODY + 1);
	rtw_send(c, big);
	rtw_run();
	expect_resp(c, 413, NULL);
	/* over max_body while a chunked body is read: 413, not run */
	c = rtw_connect(1);
	memset(big, 'x', sizeof(big));
	rtw_send(c,
		"POST /body HTTP/1.1\r\nHost: t\r\n"
		"Transfer-Encoding: chunked\r\n\r\n40\r\n");
	big[64] = '\0';
	rtw_send(c, big);
	rtw_send(c, "\r\n1\r\nx\r\n0\r\n\r\n");
	rtw_run();
	expect_resp(c, 413, NULL);
	assert_int_equal(RTW.calls_body, 3);
	assert_int_equal(rt_test_http_tasks(RTW.rt, 0), 0);
	rtw_free();
}
