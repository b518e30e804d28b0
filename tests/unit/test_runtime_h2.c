/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * HTTP/2 streams through the runtime (rt_h2.c), on the world of
 * runtime_test_util.c: a raw TCP client speaks HTTP/2 with prior
 * knowledge through an nghttp2 client session; BLOCKING routes are
 * queued (PEC) until the test runs them, so what the connection does
 * meanwhile is seen. The streams here; their request bodies in
 * test_runtime_h2_body.c, which shares this client (runtime_test_util.h).
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

#include <nghttp2/nghttp2.h>

#include <ewyk_http2.h>

#include <rte_malloc.h>

#include "runtime_test_util.h"

struct h2_peer H2P;

int
h2_idx(int32_t id)
{
	return (int)((uint32_t)id % H2C_STREAMS);
}

static ssize_t
p_send(nghttp2_session *s, const uint8_t *d, size_t len, int fl, void *u)
{
	size_t off;

	(void)s;
	(void)fl;
	(void)u;
	for (off = 0; off < len; off += 1000)
		rtw_send_bytes(H2P.c, d + off,
			(uint16_t)RTE_MIN(len - off, (size_t)1000));
	return (ssize_t)len;
}

static int
p_header(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *n,
	size_t nl, const uint8_t *v, size_t vl, uint8_t fl, void *u)
{
	(void)s;
	(void)fl;
	(void)u;
	if (nl == 7 && memcmp(n, ":status", 7) == 0 && vl == 3)
		H2P.status[h2_idx(f->hd.stream_id)] = (v[0] - '0') * 100 +
			(v[1] - '0') * 10 + (v[2] - '0');
	return 0;
}

static int
p_data(nghttp2_session *s, uint8_t fl, int32_t id, const uint8_t *d, size_t len,
	void *u)
{
	(void)s;
	(void)fl;
	(void)d;
	(void)u;
	H2P.body[h2_idx(id)] += len;
	return 0;
}

static int
p_frame(nghttp2_session *s, const nghttp2_frame *f, void *u)
{
	(void)s;
	(void)u;
	if (f->hd.type == NGHTTP2_RST_STREAM)
		H2P.rst[h2_idx(f->hd.stream_id)] = f->rst_stream.error_code + 1;
	return 0;
}

static int
p_close(nghttp2_session *s, int32_t id, uint32_t code, void *u)
{
	(void)s;
	(void)code;
	(void)u;
	if (H2P.nend < H2C_STREAMS)
		H2P.order[H2P.nend++] = id;
	return 0;
}

/* Frames both ways until quiet: the runtime's steps, then what it sent
 * into the client session. */
void
h2_exchange(void)
{
	int i;

	for (i = 0; i < 8; i++) {
		nghttp2_session_send(H2P.s);
		rtw_run();
		if (H2P.c->nrx > H2P.c->off) {
			nghttp2_session_mem_recv(H2P.s,
				(const uint8_t *)H2P.c->rx + H2P.c->off,
				H2P.c->nrx - H2P.c->off);
			H2P.c->off = H2P.c->nrx = 0;
		}
	}
}

void
h2_open(enum ewyk_strategy_kind kind, unsigned int pec_ring)
{
	nghttp2_session_callbacks *cb;

	memset(&H2P, 0, sizeof(H2P));
	rtw_create(kind, pec_ring);
	rtw_start();
	H2P.c = rtw_connect(0);
	nghttp2_session_callbacks_new(&cb);
	nghttp2_session_callbacks_set_send_callback(cb, p_send);
	nghttp2_session_callbacks_set_on_header_callback(cb, p_header);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, p_data);
	nghttp2_session_callbacks_set_on_frame_recv_callback(cb, p_frame);
	nghttp2_session_callbacks_set_on_stream_close_callback(cb, p_close);
	assert_int_equal(nghttp2_session_client_new(&H2P.s, cb, NULL), 0);
	nghttp2_session_callbacks_del(cb);
	nghttp2_submit_settings(H2P.s, NGHTTP2_FLAG_NONE, NULL, 0);
	h2_exchange();
}

void
h2_close(void)
{
	nghttp2_session_del(H2P.s);
	H2P.s = NULL;
	rtw_free();
}

int32_t
h2_get(const char *path)
{
#define NV(a, v)                                                            \
	(nghttp2_nv){ (uint8_t *)(uintptr_t)(a), (uint8_t *)(uintptr_t)(v), \
		strlen(a), strlen(v), NGHTTP2_NV_FLAG_NONE }
	nghttp2_nv nva[] = { NV(":method", "GET"), NV(":scheme", "http"),
		NV(":authority", "t"), NV(":path", path) };
#undef NV

	return nghttp2_submit_request(H2P.s, NULL, nva, RTE_DIM(nva), NULL,
		NULL);
}

uint64_t
h2_count(enum ewyk_rt_task_ctr c)
{
	return ewyk_rt_task_count(RTW.sh, c);
}

/* The end of a test that stopped a stream: nothing of it is left in the
 * runtime, and the connection answers the next request. */
void
h2_serves_on_then_close(void)
{
	int32_t b;

	assert_int_equal(rt_test_http_tasks(RTW.rt, 0), 0);
	b = h2_get("/nb");
	h2_exchange();
	assert_int_equal(H2P.status[h2_idx(b)], 200);
	h2_close();
}

/* A queued BLOCKING stream does not hold the connection: a NON_BLOCKING
 * one after it is answered at once, in place, with no job; the blocking
 * one when its task runs. */
void
test_h2_streams(void **state)
{
	int32_t a, b;

	(void)state;
	h2_open(EWYK_STRATEGY_PEC, 0);
	a = h2_get("/block");
	b = h2_get("/nb");
	h2_exchange();
	assert_int_equal(H2P.status[h2_idx(b)], 200);
	assert_int_equal(H2P.body[h2_idx(b)], 2);
	assert_int_equal(H2P.status[h2_idx(a)], 0);
	assert_int_equal(RTW.last_mode, EWYK_STRATEGY_MODE_PIC);
	/* both counted dispatched; the one run in place done already */
	assert_int_equal(h2_count(EWYK_RT_TASK_DISPATCHED), 2);
	assert_int_equal(h2_count(EWYK_RT_TASK_DONE), 1);
	assert_int_equal(rt_test_run_queued(RTW.rt, UINT32_MAX), 1);
	h2_exchange();
	assert_int_equal(H2P.status[h2_idx(a)], 200);
	assert_int_equal(H2P.body[h2_idx(a)], 5);
	assert_int_equal(H2P.nend, 2);
	assert_int_equal(H2P.order[0], b);
	assert_int_equal(h2_count(EWYK_RT_TASK_DONE), 2);
	assert_int_equal(rt_test_http_tasks(RTW.rt, 0), 0);
	/* a route with fn: the same handler HTTP/1.1 gets */
	assert_int_equal(RTW.calls_block, 1);
	a = h2_get("/nothing");
	h2_exchange();
	assert_int_equal(H2P.status[h2_idx(a)], 404);
	h2_close();
}

/* The deadline answers 504 on the stream and the late result is dropped;
 * a full PEC ring answers 503. */
void
test_h2_deadline_refused(void **state)
{
	int32_t a, b, c;

	(void)state;
	h2_open(EWYK_STRATEGY_PEC, 2);
	a = h2_get("/block");
	b = h2_get("/block");
	c = h2_get("/block");
	h2_exchange();
	assert_int_equal(H2P.status[h2_idx(c)], 503);
	assert_int_equal(h2_count(EWYK_RT_TASK_REJECTED), 1);
	rtw_advance_ms(RTW_TIMEOUT_MS + RTW_SLACK_MS(RTW_TIMEOUT_MS));
	h2_exchange();
	assert_int_equal(H2P.status[h2_idx(a)], 504);
	assert_int_equal(H2P.status[h2_idx(b)], 504);
	assert_int_equal(h2_count(EWYK_RT_TASK_TIMED_OUT), 2);
	assert_int_equal(rt_test_run_queued(RTW.rt, UINT32_MAX), 2);
	h2_exchange();
	assert_int_equal(h2_count(EWYK_RT_TASK_LATE), 2);
	assert_int_equal(h2_count(EWYK_RT_TASK_DONE), 0);
	assert_int_equal(rt_test_http_tasks(RTW.rt, 0), 0);
	h2_close();
}

/* The peer resets a stream whose task is queued: the job is orphaned,
 * its result dropped; the connection serves on. */
void
test_h2_stream_reset(void **state)
{
	int32_t a;

	(void)state;
	h2_open(EWYK_STRATEGY_PEC, 0);
	a = h2_get("/block");
	h2_exchange();
	nghttp2_submit_rst_stream(H2P.s, NGHTTP2_FLAG_NONE, a, NGHTTP2_CANCEL);
	h2_exchange();
	assert_int_equal(h2_count(EWYK_RT_TASK_ORPHANED), 1);
	assert_int_equal(rt_test_run_queued(RTW.rt, UINT32_MAX), 1);
	h2_exchange();
	assert_int_equal(H2P.status[h2_idx(a)], 0);
	h2_serves_on_then_close();
}

/* The task counters agree across protocols: a NON_BLOCKING fn route
 * requested over HTTP/1.1 and over HTTP/2 adds one dispatched and one
 * done each, and a failing one one failed each, whether it ran as a
 * job (HTTP/1.1) or in place (HTTP/2). */
void
test_h2_task_counters(void **state)
{
	uint64_t d0, n0, f0;
	struct rtw_cli *c1;
	struct rtw_resp r;
	int32_t a;

	(void)state;
	h2_open(EWYK_STRATEGY_ADAPTIVE, 0);
	c1 = rtw_connect(1);
	d0 = h2_count(EWYK_RT_TASK_DISPATCHED);
	n0 = h2_count(EWYK_RT_TASK_DONE);
	rtw_send(c1, "GET /nb HTTP/1.1\r\nHost: t\r\n\r\n");
	rtw_run();
	assert_int_equal(rtw_resp_next(c1, &r), 1);
	assert_int_equal(r.status, 200);
	assert_int_equal(h2_count(EWYK_RT_TASK_DISPATCHED) - d0, 1);
	assert_int_equal(h2_count(EWYK_RT_TASK_DONE) - n0, 1);
	a = h2_get("/nb");
	h2_exchange();
	assert_int_equal(H2P.status[h2_idx(a)], 200);
	assert_int_equal(h2_count(EWYK_RT_TASK_DISPATCHED) - d0, 2);
	assert_int_equal(h2_count(EWYK_RT_TASK_DONE) - n0, 2);
	f0 = h2_count(EWYK_RT_TASK_FAILED);
	a = h2_get("/nbfail");
	h2_exchange();
	assert_int_equal(H2P.status[h2_idx(a)], 500);
	assert_int_equal(h2_count(EWYK_RT_TASK_FAILED) - f0, 1);
	assert_int_equal(h2_count(EWYK_RT_TASK_DISPATCHED) - d0, 3);
	assert_int_equal(rt_test_http_tasks(RTW.rt, 0), 0);
	h2_close();
}

/* Requests that arrive in several segments of one receive burst are
 * answered together: one flush for the connection at the end of the
 * pass, so one segment carries every response, not one segment each. */
void
test_h2_burst_one_flush(void **state)
{
	int32_t id[4];
	unsigned int i;

	(void)state;
	h2_open(EWYK_STRATEGY_ADAPTIVE, 0);
	for (i = 0; i < RTE_DIM(id); i++)
		id[i] = h2_get("/nb");
	/* each HEADERS frame its own segment, all before the loop runs */
	nghttp2_session_send(H2P.s);
	H2P.c->nseg = 0;
	rtw_run();
	assert_int_equal(H2P.c->nseg, 1);
	h2_exchange();
	for (i = 0; i < RTE_DIM(id); i++) {
		assert_int_equal(H2P.status[h2_idx(id[i])], 200);
		assert_int_equal(H2P.body[h2_idx(id[i])], 2);
	}
	h2_close();
}
