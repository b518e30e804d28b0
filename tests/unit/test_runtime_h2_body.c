/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * HTTP/2 request bodies through the runtime (rt_h2.c), run by
 * test_runtime.c's main with the client peer of test_runtime_h2.c: bodies
 * shared between streams, streamed to a consumer in pieces, their budget,
 * ring and failures (a piece refused, a reset, a deadline, too large).
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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

static ssize_t
p_body(nghttp2_session *s, int32_t id, uint8_t *buf, size_t len,
	uint32_t *flags, nghttp2_data_source *src, void *u)
{
	size_t *left = src->ptr;
	size_t n = RTE_MIN(len, *left);

	(void)s;
	(void)id;
	(void)u;
	memset(buf, 'b', n);
	*left -= n;
	if (*left == 0)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

/* A POST of path whose body *left bytes come from cb; with its
 * content-length when length is set, else of unknown length. */
static int32_t
submit_post(const char *path, size_t *left,
	nghttp2_data_source_read_callback cb, bool length)
{
	char cl[24];
	nghttp2_data_provider dp = { .source.ptr = left, .read_callback = cb };

	snprintf(cl, sizeof(cl), "%zu", *left);
#define NV(a, v)                                                            \
	(nghttp2_nv){ (uint8_t *)(uintptr_t)(a), (uint8_t *)(uintptr_t)(v), \
		strlen(a), strlen(v), NGHTTP2_NV_FLAG_NONE }
	nghttp2_nv nva[] = { NV(":method", "POST"), NV(":scheme", "http"),
		NV(":authority", "t"), NV(":path", path),
		NV("content-length", cl) };
#undef NV

	return nghttp2_submit_request(H2P.s, NULL, nva,
		RTE_DIM(nva) - (length ? 0 : 1), &dp, NULL);
}

static int32_t
post(const char *path, size_t *left)
{
	return submit_post(path, left, p_body, true);
}

/* A stream gathers at most its source's share of the shard's HTTP/2
 * body budget (a quarter) when that is below the route's max_body: 413
 * beyond, before its body is read; within it, served. */
void
test_h2_body_share(void **state)
{
	size_t small = 20, big = 50;
	int32_t a, b;

	(void)state;
	rtw_h2_body_budget = 128; /* 32 bytes a source; /body takes 64 */
	h2_open(EWYK_STRATEGY_ADAPTIVE, 0);
	rtw_h2_body_budget = 0;
	a = post("/body", &small);
	b = post("/body", &big);
	h2_exchange();
	assert_int_equal(rt_test_run_queued(RTW.rt, UINT32_MAX), 1);
	h2_exchange();
	assert_int_equal(H2P.status[h2_idx(a)], 200);
	assert_int_equal(H2P.body[h2_idx(a)], 20);
	assert_int_equal(H2P.status[h2_idx(b)], 413);
	assert_int_equal(RTW.calls_body, 1);
	assert_int_equal(rt_test_http_tasks(RTW.rt, 0), 0);
	h2_close();
}

/* Bytes a gated body may send now (p_gated). */
static size_t gate;

static ssize_t
p_gated(nghttp2_session *s, int32_t id, uint8_t *buf, size_t len,
	uint32_t *flags, nghttp2_data_source *src, void *u)
{
	size_t *left = src->ptr;
	size_t n = RTE_MIN(RTE_MIN(len, *left), gate);

	(void)s;
	(void)id;
	(void)u;
	if (n == 0)
		return NGHTTP2_ERR_DEFERRED;
	memset(buf, 's', n);
	*left -= n;
	gate -= n;
	if (*left == 0)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

static int32_t
post_gated(const char *path, size_t *left)
{
	return submit_post(path, left, p_gated, true);
}

/* A route with a body consumer: its BLOCKING consumer gets the first
 * piece while the client has not sent the rest, the rest piece by piece
 * as it comes, and fn runs after the end, with the state the consumer
 * set (released once). */
void
test_h2_body_streamed(void **state)
{
	size_t left = 5000;
	int32_t a;
	int i;

	(void)state;
	h2_open(EWYK_STRATEGY_PEC, 0);
	gate = 1000;
	a = post_gated("/stream", &left);
	h2_exchange();
	/* queued (PEC) until a reserved lcore takes it */
	assert_int_equal(RTW.pieces, 0);
	assert_int_equal(rt_test_run_queued(RTW.rt, UINT32_MAX), 1);
	h2_exchange();
	/* the frame came in two TCP segments: maybe two pieces */
	for (i = 0; i < 8 && RTW.piece_bytes < 1000; i++) {
		rt_test_run_queued(RTW.rt, UINT32_MAX);
		h2_exchange();
	}
	assert_true(RTW.pieces >= 1);
	assert_int_equal(RTW.piece_bytes, 1000);
	assert_int_equal(left, 4000); /* the rest not sent yet */
	assert_int_equal(RTW.calls_stream, 0);
	assert_int_equal(H2P.status[h2_idx(a)], 0);
	gate = 4000;
	nghttp2_session_resume_data(H2P.s, a);
	h2_exchange();
	for (i = 0; i < 16 && H2P.status[h2_idx(a)] == 0; i++) {
		rt_test_run_queued(RTW.rt, UINT32_MAX);
		h2_exchange();
	}
	assert_int_equal(H2P.status[h2_idx(a)], 200);
	assert_int_equal(H2P.body[h2_idx(a)], 4); /* "5000" */
	assert_int_equal(RTW.piece_bytes, 5000);
	assert_true(RTW.pieces >= 2);
	assert_int_equal(RTW.calls_stream, 1);
	assert_int_equal(RTW.states_freed, 1);
	assert_int_equal(rt_test_http_tasks(RTW.rt, 0), 0);
	h2_close();
}

/* A streamed body's pieces are counted as body_pieces, not as jobs: the
 * request counts one dispatched and one done however many pieces its
 * body came in. */
void
test_h2_body_pieces_counted(void **state)
{
	uint64_t d0, n0, p0;
	size_t left = 5000;
	int32_t a;
	int i;

	(void)state;
	h2_open(EWYK_STRATEGY_PEC, 0);
	d0 = h2_count(EWYK_RT_TASK_DISPATCHED);
	n0 = h2_count(EWYK_RT_TASK_DONE);
	p0 = h2_count(EWYK_RT_TASK_BODY_PIECES);
	gate = 1000;
	a = post_gated("/stream", &left);
	h2_exchange();
	for (i = 0; i < 8 && RTW.piece_bytes < 1000; i++) {
		rt_test_run_queued(RTW.rt, UINT32_MAX);
		h2_exchange();
	}
	assert_int_equal(RTW.piece_bytes, 1000);
	gate = 4000;
	nghttp2_session_resume_data(H2P.s, a);
	h2_exchange();
	for (i = 0; i < 16 && H2P.status[h2_idx(a)] == 0; i++) {
		rt_test_run_queued(RTW.rt, UINT32_MAX);
		h2_exchange();
	}
	assert_int_equal(H2P.status[h2_idx(a)], 200);
	assert_true(RTW.pieces >= 2);
	assert_int_equal(h2_count(EWYK_RT_TASK_BODY_PIECES) - p0, RTW.pieces);
	assert_int_equal(h2_count(EWYK_RT_TASK_DISPATCHED) - d0, 1);
	assert_int_equal(h2_count(EWYK_RT_TASK_DONE) - n0, 1);
	assert_int_equal(h2_count(EWYK_RT_TASK_FAILED), 0);
	assert_string_equal(ewyk_rt_task_ctr_name(EWYK_RT_TASK_BODY_PIECES),
		"body_pieces");
	h2_close();
}

/* A piece that fails ends its request before fn runs: the request
 * still counts one dispatched (then) and one failed, no done, whether
 * the piece ran as a job (BLOCKING) or in place (NON_BLOCKING). */
void
test_h2_body_piece_fail_counted(void **state)
{
	const char *const paths[] = { "/stream", "/nbstream" };
	uint64_t d0, n0, f0, p0;
	size_t left;
	unsigned int k;
	int32_t a;
	int i;

	(void)state;
	for (k = 0; k < RTE_DIM(paths); k++) {
		h2_open(EWYK_STRATEGY_PEC, 0);
		RTW.piece_ret = -EIO;
		d0 = h2_count(EWYK_RT_TASK_DISPATCHED);
		n0 = h2_count(EWYK_RT_TASK_DONE);
		f0 = h2_count(EWYK_RT_TASK_FAILED);
		p0 = h2_count(EWYK_RT_TASK_BODY_PIECES);
		left = 5000;
		gate = 1000;
		a = post_gated(paths[k], &left);
		h2_exchange();
		for (i = 0; i < 8 && H2P.status[h2_idx(a)] == 0; i++) {
			rt_test_run_queued(RTW.rt, UINT32_MAX);
			h2_exchange();
		}
		assert_int_equal(H2P.status[h2_idx(a)], 500);
		assert_int_equal(RTW.pieces, 1);
		assert_int_equal(RTW.calls_stream, 0);
		assert_int_equal(h2_count(EWYK_RT_TASK_BODY_PIECES) - p0, 1);
		assert_int_equal(h2_count(EWYK_RT_TASK_DISPATCHED) - d0, 1);
		assert_int_equal(h2_count(EWYK_RT_TASK_FAILED) - f0, 1);
		assert_int_equal(h2_count(EWYK_RT_TASK_DONE) - n0, 0);
		assert_int_equal(rt_test_http_tasks(RTW.rt, 0), 0);
		h2_close();
	}
}

/* A stream reset while its body streams: the piece's job is orphaned,
 * the state released, the task given back; the connection serves on. */
void
test_h2_body_streamed_reset(void **state)
{
	size_t left = 5000;
	int32_t a;
	int i;

	(void)state;
	h2_open(EWYK_STRATEGY_PEC, 0);
	gate = 1000;
	a = post_gated("/stream", &left);
	h2_exchange();
	for (i = 0; i < 8 && RTW.piece_bytes < 1000; i++) {
		rt_test_run_queued(RTW.rt, UINT32_MAX);
		h2_exchange();
	}
	assert_int_equal(RTW.piece_bytes, 1000);
	gate = 1000;
	nghttp2_session_resume_data(H2P.s, a);
	h2_exchange(); /* the second piece queued */
	nghttp2_submit_rst_stream(H2P.s, NGHTTP2_FLAG_NONE, a, NGHTTP2_CANCEL);
	h2_exchange();
	assert_int_equal(h2_count(EWYK_RT_TASK_ORPHANED), 1);
	rt_test_run_queued(RTW.rt, UINT32_MAX);
	h2_exchange();
	assert_int_equal(RTW.calls_stream, 0);
	assert_int_equal(RTW.states_freed, 1);
	h2_serves_on_then_close();
}

/* Feed @p n more bytes of stream @p a's gated body and run its pieces
 * until the consumer has taken them all. */
static void
feed(int32_t a, size_t n)
{
	uint64_t want = RTW.piece_bytes + n;
	int i;

	gate = n;
	nghttp2_session_resume_data(H2P.s, a);
	h2_exchange();
	for (i = 0; i < 64 && RTW.piece_bytes < want; i++) {
		rt_test_run_queued(RTW.rt, UINT32_MAX);
		h2_exchange();
	}
	assert_int_equal(RTW.piece_bytes, want);
}

/* Released bytes that reach half the stream's window bring a
 * WINDOW_UPDATE: when it cannot be written (the shard's mbufs all
 * taken) the connection ends inside the release. The task goes once,
 * after the release; nothing more of its body runs. */
void
test_h2_body_release_fails(void **state)
{
	const size_t half = (1u << 20) / 2; /* the default initial window */
	size_t left = half + 4000, fed = 0, n;
	struct rte_mempool *mp;
	struct rte_mbuf **held;
	unsigned int nheld = 0, pieces;
	int32_t a;

	(void)state;
	h2_open(EWYK_STRATEGY_PEC, 0);
	gate = 0;
	a = post_gated("/stream", &left);
	h2_exchange();
	/* one byte short of half the window, consumed and released */
	while (fed < half - 1) {
		n = RTE_MIN((size_t)32768, half - 1 - fed);
		feed(a, n);
		fed += n;
	}
	/* the next piece crosses it; more waits in the ring behind it */
	gate = 2000;
	nghttp2_session_resume_data(H2P.s, a);
	h2_exchange();
	assert_true(RTW.piece_bytes == half - 1);
	mp = ewyk_rt_shard_mbufs(RTW.sh);
	held = calloc(mp->size, sizeof(*held));
	assert_non_null(held);
	while (nheld < mp->size &&
		(held[nheld] = rte_pktmbuf_alloc(mp)) != NULL)
		nheld++;
	pieces = RTW.pieces;
	assert_int_equal(rt_test_run_queued(RTW.rt, UINT32_MAX), 1);
	rtw_run();
	while (nheld > 0)
		rte_pktmbuf_free(held[--nheld]);
	free(held);
	rtw_run();
	rt_test_run_queued(RTW.rt, UINT32_MAX);
	rtw_run();
	/* the connection went with the failed send: the piece that ran
	 * was the last, the task and its state were given back */
	assert_int_equal(RTW.pieces, pieces + 1);
	assert_int_equal(RTW.calls_stream, 0);
	assert_int_equal(RTW.states_freed, 1);
	assert_int_equal(rt_test_http_tasks(RTW.rt, 0), 0);
	h2_close();
}

/* rte_malloc bytes in use, all sockets. */
static uint64_t
heap_used(void)
{
	struct rte_malloc_socket_stats ms;
	uint64_t n = 0;
	int s;

	for (s = 0; s < RTE_MAX_NUMA_NODES; s++)
		if (rte_malloc_get_socket_stats(s, &ms) == 0)
			n += ms.heap_allocsz_bytes;
	return n;
}

/* Body buffer bytes beyond those held, in the shard's body budget. */
static uint64_t
spare(void)
{
	return ewyk_http2_server_counter(rt_test_h2_server(RTW.rt, 0),
		EWYK_HTTP2_C_BODY_SPARE);
}

/* A POST of unknown length (no content-length) whose body is gated. */
static int32_t
post_open(const char *path, size_t *left)
{
	return submit_post(path, left, p_gated, false);
}

/* Streams that announce a body (HEADERS, no END_STREAM, no length) and
 * send no DATA hold no ring: its memory comes with the bytes. The one
 * that then sends its body has it streamed whole. */
void
test_h2_body_ring_lazy(void **state)
{
	size_t left[8];
	uint64_t before;
	int32_t a[8];
	int i;

	(void)state;
	h2_open(EWYK_STRATEGY_PEC, 0);
	gate = 0;
	before = heap_used();
	for (i = 0; i < 8; i++) {
		left[i] = 3000;
		a[i] = post_open("/stream", &left[i]);
	}
	h2_exchange();
	assert_int_equal(rt_test_http_tasks(RTW.rt, 0), 8);
	/* a window (1 MiB) each before: now less than one in all */
	assert_true(heap_used() - before < (1u << 20));
	for (i = 1; i < 8; i++)
		nghttp2_submit_rst_stream(H2P.s, NGHTTP2_FLAG_NONE, a[i],
			NGHTTP2_CANCEL);
	h2_exchange();
	assert_int_equal(rt_test_http_tasks(RTW.rt, 0), 1);
	assert_int_equal(spare(), 0);
	feed(a[0], 3000);
	/* consumed and released: the ring's first 16 KiB, empty, are
	 * charged to the body budget until the stream ends */
	assert_int_equal(spare(), 16u << 10);
	for (i = 0; i < 16 && H2P.status[h2_idx(a[0])] == 0; i++) {
		rt_test_run_queued(RTW.rt, UINT32_MAX);
		h2_exchange();
	}
	assert_int_equal(H2P.status[h2_idx(a[0])], 200);
	assert_int_equal(RTW.piece_bytes, 3000);
	assert_int_equal(rt_test_http_tasks(RTW.rt, 0), 0);
	assert_int_equal(spare(), 0);
	h2_close();
}

/* A body consumer that fails (a negative errno, or anything not 0, as
 * HTTP/1.1 takes it) is answered 500: the rest of the body is dropped,
 * fn never runs, the task and its state go. */
void
test_h2_body_consumer_fails(void **state)
{
	const int rets[] = { -EIO, 1 };
	size_t left;
	unsigned int k;
	int32_t a;
	int i;

	(void)state;
	for (k = 0; k < RTE_DIM(rets); k++) {
		h2_open(EWYK_STRATEGY_PEC, 0);
		RTW.piece_ret = rets[k];
		left = 5000;
		gate = 1000;
		a = post_gated("/stream", &left);
		h2_exchange();
		for (i = 0; i < 8 && H2P.status[h2_idx(a)] == 0; i++) {
			rt_test_run_queued(RTW.rt, UINT32_MAX);
			h2_exchange();
		}
		assert_int_equal(H2P.status[h2_idx(a)], 500);
		assert_int_equal(RTW.pieces, 1);
		assert_int_equal(RTW.calls_stream, 0);
		assert_int_equal(RTW.states_freed, 1);
		assert_int_equal(rt_test_http_tasks(RTW.rt, 0), 0);
		/* the peer is told to stop: nothing more is taken */
		gate = 4000;
		nghttp2_session_resume_data(H2P.s, a);
		h2_exchange();
		rt_test_run_queued(RTW.rt, UINT32_MAX);
		h2_exchange();
		assert_int_equal(RTW.pieces, 1);
		h2_close();
	}
}

/* A piece whose job is not done by its deadline is answered 504 and the
 * body stopped; the late job's task goes when it returns. */
void
test_h2_body_piece_deadline(void **state)
{
	size_t left = 5000;
	int32_t a;

	(void)state;
	h2_open(EWYK_STRATEGY_PEC, 0);
	gate = 1000;
	a = post_gated("/stream", &left);
	h2_exchange();
	assert_int_equal(RTW.pieces, 0); /* queued */
	rtw_advance_ms(RTW_TIMEOUT_MS + RTW_SLACK_MS(RTW_TIMEOUT_MS));
	h2_exchange();
	assert_int_equal(H2P.status[h2_idx(a)], 504);
	assert_int_equal(h2_count(EWYK_RT_TASK_TIMED_OUT), 1);
	/* the request its piece ended counts dispatched, once */
	assert_int_equal(h2_count(EWYK_RT_TASK_DISPATCHED), 1);
	assert_int_equal(rt_test_run_queued(RTW.rt, UINT32_MAX), 1);
	h2_exchange();
	assert_int_equal(h2_count(EWYK_RT_TASK_LATE), 1);
	assert_int_equal(h2_count(EWYK_RT_TASK_DISPATCHED), 1);
	assert_int_equal(h2_count(EWYK_RT_TASK_DONE), 0);
	assert_int_equal(RTW.calls_stream, 0);
	assert_int_equal(RTW.states_freed, 1);
	assert_int_equal(rt_test_http_tasks(RTW.rt, 0), 0);
	/* the body was stopped: what comes after is not consumed */
	gate = 4000;
	nghttp2_session_resume_data(H2P.s, a);
	h2_exchange();
	rt_test_run_queued(RTW.rt, UINT32_MAX);
	h2_exchange();
	h2_serves_on_then_close();
}

/* A streamed body of unknown length (no content-length) that grows past
 * the route's max_body is answered 413 mid-body: its task goes, the
 * rest is dropped; the connection serves on. */
void
test_h2_body_too_large(void **state)
{
	size_t left = 1000;
	int32_t a;
	int i;

	(void)state;
	h2_open(EWYK_STRATEGY_PEC, 0);
	gate = RTW_MAX_BODY / 2;
	a = post_open("/streamsmall", &left);
	h2_exchange();
	assert_int_equal(H2P.status[h2_idx(a)], 0);
	for (i = 0; i < 8 && RTW.pieces == 0; i++) {
		rt_test_run_queued(RTW.rt, UINT32_MAX);
		h2_exchange();
	}
	assert_int_equal(RTW.piece_bytes, RTW_MAX_BODY / 2);
	gate = 1000;
	nghttp2_session_resume_data(H2P.s, a);
	h2_exchange();
	assert_int_equal(H2P.status[h2_idx(a)], 413);
	rt_test_run_queued(RTW.rt, UINT32_MAX);
	h2_exchange();
	assert_int_equal(RTW.piece_bytes, RTW_MAX_BODY / 2);
	assert_int_equal(RTW.calls_stream, 0);
	assert_int_equal(RTW.states_freed, 1);
	h2_serves_on_then_close();
}
