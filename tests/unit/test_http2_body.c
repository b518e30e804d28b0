/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/http2: the memory of body consumers in the body budget
 * (ewyk_http2_body_buffer()): a buffer's room beyond the bytes it holds
 * is charged as held bytes are, to the shard and to the source.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cycles.h>

#include "http2_test_util.h"

static struct h2t_world W;

static uint64_t
ctr(enum ewyk_http2_counter c)
{
	return h2t_ctr(&W, c);
}

/* A source's share (256 KiB of a 1 MiB budget) counts its consumers'
 * spare buffer room: a streamed body that holds 1,000 bytes in a
 * 200 KiB buffer leaves the source's next body 56 KiB of window, not
 * 255 KiB, and that body waits; the room the first body's bytes then
 * fill is no longer charged twice, and a buffer given back lets the
 * waiting body through. The charge goes with the stream. */
void
test_body_buffer_charged(void **state)
{
	struct ewyk_http2_conf c = { .body_budget = 1 << 20,
		.initial_window = 64 << 10 };
	static char body[100 << 10];
	const uint64_t buf = 200 << 10;
	int32_t x, a;

	(void)state;
	assert_int_equal(h2t_init(&W, &c), 0);
	W.peer_ip = 0x0a000001;
	assert_int_equal(h2t_connect(&W, NULL, 0), 0);
	assert_int_equal(nghttp2_session_send(W.cli), 0);
	h2t_pump(&W);
	assert_int_equal(ewyk_http2_body_buffer(NULL, 1), -EINVAL);
	x = h2t_get(&W, "POST", "/stream", NULL, 0, body, 1000);
	h2t_pump(&W);
	assert_non_null(W.stream_st);
	assert_int_equal(W.streamed, 1000);
	assert_int_equal(ctr(EWYK_HTTP2_C_BODY_SPARE), 0);
	/* the consumer's buffer: its room beyond the 1,000 bytes held */
	assert_int_equal(ewyk_http2_body_buffer(W.stream_st, buf), 0);
	assert_int_equal(ctr(EWYK_HTTP2_C_BODY_SPARE), buf - 1000);
	assert_int_equal(ctr(EWYK_HTTP2_C_BODY_HELD), 1000);
	/* the same source's next body gets what the share has left */
	a = h2t_get(&W, "POST", "/hold", NULL, 0, body, sizeof(body));
	h2t_pump(&W);
	assert_int_equal(W.nlater, 0);
	assert_int_equal(ctr(EWYK_HTTP2_C_BODY_WAITING), 1);
	assert_int_equal(ctr(EWYK_HTTP2_C_BODY_SRC_WAIT), 1);
	assert_int_equal(ctr(EWYK_HTTP2_C_BODY_HELD) -
			ctr(EWYK_HTTP2_C_BODY_OWED) - 1000,
		(256 << 10) - buf);
	/* released bytes leave room in the buffer: still charged, as
	 * spare, so nothing more is granted */
	assert_int_equal(ewyk_http2_body_release(W.stream_st, 1000), 0);
	h2t_pump(&W);
	assert_int_equal(ctr(EWYK_HTTP2_C_BODY_SPARE), buf);
	assert_int_equal(ctr(EWYK_HTTP2_C_BODY_WAITING), 1);
	/* a smaller buffer: what it gave back is granted to the waiter */
	assert_int_equal(ewyk_http2_body_buffer(W.stream_st, 16 << 10), 0);
	assert_int_equal(ctr(EWYK_HTTP2_C_BODY_SPARE), 16 << 10);
	h2t_pump(&W);
	assert_int_equal(ctr(EWYK_HTTP2_C_BODY_WAITING), 0);
	assert_int_equal(W.nlater, 1);
	assert_int_equal(ctr(EWYK_HTTP2_C_BODY_HELD), sizeof(body));
	assert_int_equal(ctr(EWYK_HTTP2_C_BODY_OWED), 0);
	/* the stream ends: its charge goes with it */
	assert_int_equal(ewyk_http2_respond(W.stream_st, 200, NULL, NULL, "ok",
				 2),
		0);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, x)->status, 200);
	assert_int_equal(ctr(EWYK_HTTP2_C_BODY_SPARE), 0);
	assert_int_equal(ewyk_http2_respond(W.later[0], 200, NULL, NULL, "ok",
				 2),
		0);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, a)->status, 200);
	assert_int_equal(ctr(EWYK_HTTP2_C_BODY_HELD), 0);
	h2t_fini(&W);
}

/* Bytes that arrive into a buffer's spare room take its charge: they
 * are granted from it, never charged twice. A streamed body whose
 * buffer is the whole budget goes through it, window after window,
 * with nothing owed: held bytes and spare room always add up to the
 * buffer. */
void
test_body_buffer_filled(void **state)
{
	struct ewyk_http2_conf c = { .body_budget = 256 << 10,
		.body_budget_per_src = 256 << 10,
		.initial_window = 64 << 10 };
	static char body[600 << 10];
	unsigned int rounds = 0;
	uint64_t seen;
	int32_t x;

	(void)state;
	assert_int_equal(h2t_init(&W, &c), 0);
	W.peer_ip = 0x0a000001;
	assert_int_equal(h2t_connect(&W, NULL, 0), 0);
	assert_int_equal(nghttp2_session_send(W.cli), 0);
	h2t_pump(&W);
	x = h2t_get(&W, "POST", "/stream", NULL, 0, body, sizeof(body));
	h2t_pump(&W);
	assert_non_null(W.stream_st);
	assert_true(W.streamed > 0);
	assert_int_equal(ewyk_http2_body_buffer(W.stream_st, 256 << 10), 0);
	seen = W.streamed;
	while (!W.stream_end && rounds++ < 100) {
		assert_int_equal(ctr(EWYK_HTTP2_C_BODY_SPARE) +
				ctr(EWYK_HTTP2_C_BODY_HELD),
			256 << 10);
		assert_int_equal(ctr(EWYK_HTTP2_C_BODY_OWED), 0);
		assert_int_equal(ewyk_http2_body_release(W.stream_st,
					 ctr(EWYK_HTTP2_C_BODY_HELD)),
			0);
		h2t_pump(&W);
		assert_true(W.streamed > seen || W.stream_end);
		seen = W.streamed;
	}
	assert_true(W.stream_end);
	assert_int_equal(W.streamed, sizeof(body));
	assert_int_equal(ctr(EWYK_HTTP2_C_BODY_WAITING), 0);
	assert_int_equal(ctr(EWYK_HTTP2_C_BODY_SRC_WAIT), 0);
	assert_int_equal(ewyk_http2_respond(W.stream_st, 200, NULL, NULL, "ok",
				 2),
		0);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, x)->status, 200);
	assert_int_equal(ctr(EWYK_HTTP2_C_BODY_SPARE), 0);
	assert_int_equal(ctr(EWYK_HTTP2_C_BODY_HELD), 0);
	h2t_fini(&W);
}

/* The charge stops at the source's share: a streamed body that holds
 * 1,000 bytes and says its buffer is the whole 1 MiB budget is charged
 * the 255 KiB its source's 256 KiB share has left, so the shard keeps
 * three quarters of its budget for other sources' bodies. Given back
 * whole when the stream ends. */
void
test_body_buffer_capped(void **state)
{
	struct ewyk_http2_conf c = { .body_budget = 1 << 20,
		.initial_window = 64 << 10 };
	static char body[1000];
	int32_t x;

	(void)state;
	assert_int_equal(h2t_init(&W, &c), 0);
	W.peer_ip = 0x0a000001;
	assert_int_equal(h2t_connect(&W, NULL, 0), 0);
	assert_int_equal(nghttp2_session_send(W.cli), 0);
	h2t_pump(&W);
	x = h2t_get(&W, "POST", "/stream", NULL, 0, body, sizeof(body));
	h2t_pump(&W);
	assert_non_null(W.stream_st);
	assert_int_equal(W.streamed, sizeof(body));
	assert_int_equal(ewyk_http2_body_buffer(W.stream_st, 1 << 20), 0);
	assert_int_equal(ctr(EWYK_HTTP2_C_BODY_SPARE),
		(256 << 10) - sizeof(body));
	/* a smaller buffer, still past the share: the same charge */
	assert_int_equal(ewyk_http2_body_buffer(W.stream_st, 512 << 10), 0);
	assert_int_equal(ctr(EWYK_HTTP2_C_BODY_SPARE),
		(256 << 10) - sizeof(body));
	/* one within it: charged whole */
	assert_int_equal(ewyk_http2_body_buffer(W.stream_st, 100 << 10), 0);
	assert_int_equal(ctr(EWYK_HTTP2_C_BODY_SPARE),
		(100 << 10) - sizeof(body));
	assert_int_equal(ewyk_http2_respond(W.stream_st, 200, NULL, NULL, "ok",
				 2),
		0);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, x)->status, 200);
	assert_int_equal(ctr(EWYK_HTTP2_C_BODY_SPARE), 0);
	assert_int_equal(ctr(EWYK_HTTP2_C_BODY_HELD), 0);
	h2t_fini(&W);
}
