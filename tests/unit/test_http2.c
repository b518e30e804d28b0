/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/http2: frames in, responses out, limits. An nghttp2 client session
 * is the peer (http2_test_util.c); raw frames where a client would not
 * send them.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <rte_cycles.h>

#include "http2_test_util.h"
#include "test_common.h"

static struct h2t_world W;

static void
world(const struct ewyk_http2_conf *c)
{
	struct ewyk_http2_conf d = { 0 };

	assert_int_equal(h2t_init(&W, c != NULL ? c : &d), 0);
	assert_int_equal(h2t_connect(&W, NULL, 0), 0);
	/* the client's preface is sent on its first send */
	assert_int_equal(nghttp2_session_send(W.cli), 0);
	h2t_pump(&W);
}

static void
test_get(void **state)
{
	int32_t id;

	(void)state;
	world(NULL);
	id = h2t_get(&W, "GET", "/hello", NULL, 0, NULL, 0);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, id)->status, 200);
	assert_int_equal(h2t_st(&W, id)->body, 6);
	assert_true(h2t_st(&W, id)->closed);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_REQUESTS), 1);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_RESP_2XX), 1);
	id = h2t_get(&W, "GET", "/nope", NULL, 0, NULL, 0);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, id)->status, 404);
	assert_int_equal(ewyk_http2_server_streams(W.srv), 0);
	h2t_fini(&W);
}

static void
test_many_streams_and_big_bodies(void **state)
{
	int32_t ids[100];
	int i;

	(void)state;
	world(NULL);
	for (i = 0; i < 100; i++)
		ids[i] = h2t_get(&W, "GET", i % 2 ? "/hello" : "/bytes/100000",
			NULL, 0, NULL, 0);
	h2t_pump(&W);
	for (i = 0; i < 100; i++) {
		struct h2t_stream *t = h2t_st(&W, ids[i]);

		assert_int_equal(t->status, 200);
		assert_int_equal(t->body, i % 2 ? 6 : 100000);
		if (i % 2 == 0)
			assert_int_equal(t->bad, 0);
		assert_int_equal(t->rst, 0);
	}
	assert_int_equal(ewyk_http2_server_streams(W.srv), 0);
	h2t_fini(&W);
}

/* A producer that fails inside a DATA frame whose payload shares an mbuf
 * with the frames before it (the HEADERS of its own and of other
 * streams): that frame is cut back out whole, its stream reset, and
 * every other stream of the chain arrives intact; the connection goes
 * on serving. */
static void
test_producer_fails_mid_frame(void **state)
{
	int32_t a, b, c, d, e;

	(void)state;
	world(NULL);
	a = h2t_get(&W, "GET", "/hello", NULL, 0, NULL, 0);
	b = h2t_get(&W, "GET", "/failat/100", NULL, 0, NULL, 0);
	c = h2t_get(&W, "GET", "/hello", NULL, 0, NULL, 0);
	d = h2t_get(&W, "GET", "/failat/20000", NULL, 0, NULL, 0);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, a)->status, 200);
	assert_int_equal(h2t_st(&W, a)->body, 6);
	assert_int_equal(h2t_st(&W, c)->status, 200);
	assert_int_equal(h2t_st(&W, c)->body, 6);
	/* the headers went, no byte of the failed frame */
	assert_int_equal(h2t_st(&W, b)->status, 200);
	assert_int_equal(h2t_st(&W, b)->body, 0);
	assert_int_equal(h2t_st(&W, b)->rst, NGHTTP2_INTERNAL_ERROR + 1);
	/* one whole DATA frame (16,384 bytes), then the cut one */
	assert_int_equal(h2t_st(&W, d)->body, 16384);
	assert_int_equal(h2t_st(&W, d)->bad, 0);
	assert_int_equal(h2t_st(&W, d)->rst, NGHTTP2_INTERNAL_ERROR + 1);
	e = h2t_get(&W, "GET", "/bytes/100000", NULL, 0, NULL, 0);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, e)->status, 200);
	assert_int_equal(h2t_st(&W, e)->body, 100000);
	assert_int_equal(h2t_st(&W, e)->bad, 0);
	assert_int_equal(ewyk_http2_server_streams(W.srv), 0);
	h2t_fini(&W);
}

/* TCP takes a little at a time: frames wait (WOULDBLOCK) and resume. */
static void
test_small_send_space(void **state)
{
	int32_t ids[10];
	int i;

	(void)state;
	world(NULL);
	W.refill = 3000;
	for (i = 0; i < 10; i++)
		ids[i] = h2t_get(&W, "GET", "/bytes/200000", NULL, 0, NULL, 0);
	h2t_pump(&W);
	for (i = 0; i < 10; i++) {
		assert_int_equal(h2t_st(&W, ids[i])->status, 200);
		assert_int_equal(h2t_st(&W, ids[i])->body, 200000);
		assert_int_equal(h2t_st(&W, ids[i])->bad, 0);
	}
	h2t_fini(&W);
}

static void
test_body_and_later(void **state)
{
	static char body[300000];
	int32_t a, b;

	(void)state;
	world(NULL);
	a = h2t_get(&W, "POST", "/body", NULL, 0, body, sizeof(body));
	b = h2t_get(&W, "GET", "/later", NULL, 0, NULL, 0);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, a)->status, 200);
	assert_int_equal(h2t_st(&W, a)->body, 6); /* "300000" */
	assert_int_equal(h2t_st(&W, b)->status, 0);
	assert_int_equal(W.nlater, 1);
	/* answered later, from outside the receive path */
	assert_int_equal(ewyk_http2_respond(W.later[0], 200, NULL, NULL, "ok",
				 2),
		0);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, b)->status, 200);
	/* a stream the peer resets is told to its owner */
	b = h2t_get(&W, "GET", "/later", NULL, 0, NULL, 0);
	h2t_pump(&W);
	assert_non_null(W.later[1]);
	nghttp2_submit_rst_stream(W.cli, NGHTTP2_FLAG_NONE, b, NGHTTP2_CANCEL);
	h2t_pump(&W);
	assert_null(W.later[1]);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_STREAM_ABORTED), 1);
	h2t_fini(&W);
}

static void
test_header_limits(void **state)
{
	struct ewyk_http2_conf c = { .max_header_list = 1024,
		.max_header_fields = 8 };
	static char big[2000];
	nghttp2_nv nv[20];
	char names[20][8];
	int32_t id;
	int i;

	(void)state;
	world(&c);
	memset(big, 'x', sizeof(big) - 1);
	nv[0] = (nghttp2_nv){ (uint8_t *)(uintptr_t) "x-big", (uint8_t *)big, 5,
		sizeof(big) - 1, NGHTTP2_NV_FLAG_NONE };
	id = h2t_get(&W, "GET", "/hello", nv, 1, NULL, 0);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, id)->status, 431);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_HEADER_LIST_LARGE), 1);
	for (i = 0; i < 20; i++) {
		snprintf(names[i], sizeof(names[i]), "x-%d", i);
		nv[i] = (nghttp2_nv){ (uint8_t *)names[i],
			(uint8_t *)(uintptr_t) "v", strlen(names[i]), 1,
			NGHTTP2_NV_FLAG_NONE };
	}
	id = h2t_get(&W, "GET", "/hello", nv, 20, NULL, 0);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, id)->status, 431);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_HEADER_FIELDS_MANY), 1);
	/* the connection goes on */
	id = h2t_get(&W, "GET", "/hello", NULL, 0, NULL, 0);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, id)->status, 200);
	h2t_fini(&W);
}

static void
test_hpack_bomb(void **state)
{
	/* One 2 KB field in the dynamic table, then a header block that
	 * names it again and again: each repeat costs the peer one byte and
	 * us 2 KB of header list. */
	struct ewyk_http2_conf c = { 0 };
	static char v[2000];
	nghttp2_nv nv[200];
	int32_t id;
	int i;

	(void)state;
	world(&c);
	memset(v, 'b', sizeof(v) - 1);
	for (i = 0; i < 200; i++)
		nv[i] = (nghttp2_nv){ (uint8_t *)(uintptr_t) "x-bomb",
			(uint8_t *)v, 6, sizeof(v) - 1, NGHTTP2_NV_FLAG_NONE };
	id = h2t_get(&W, "GET", "/hello", nv, 200, NULL, 0);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, id)->status, 431);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_HEADER_LIST_LARGE), 1);
	h2t_fini(&W);
}

static void
test_rapid_reset(void **state)
{
	struct ewyk_http2_conf c = { .rst_burst = 50, .rst_rate = 1 };
	int i;

	(void)state;
	world(&c);
	for (i = 0; i < 200 && W.c != NULL && W.goaway == 0; i++) {
		int32_t id = h2t_get(&W, "GET", "/later", NULL, 0, NULL, 0);

		h2t_pump(&W);
		nghttp2_submit_rst_stream(W.cli, NGHTTP2_FLAG_NONE, id,
			NGHTTP2_CANCEL);
		h2t_pump(&W);
	}
	assert_int_equal(W.goaway, NGHTTP2_ENHANCE_YOUR_CALM + 1);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_RAPID_RESET), 1);
	assert_true(i <= 60);
	h2t_fini(&W);
}

static void
test_ping_flood(void **state)
{
	struct ewyk_http2_conf c = { .ctrl_burst = 100, .ctrl_rate = 1 };
	uint8_t ping[17] = { 0 };
	int i;

	(void)state;
	world(&c);
	h2t_frame_hd(ping, 8, NGHTTP2_PING, 0, 0);
	for (i = 0; i < 1000 && W.c != NULL; i++)
		h2t_raw(&W, ping, sizeof(ping));
	h2t_pump(&W);
	assert_int_equal(W.goaway, NGHTTP2_ENHANCE_YOUR_CALM + 1);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_CTRL_FLOOD), 1);
	h2t_fini(&W);
}

static void
test_continuation_flood(void **state)
{
	static const uint8_t fld[] = { 0x00, 3, 'x', '-', 'a', 1, 'b' };
	uint8_t f[9 + sizeof(fld)];
	int i;

	(void)state;
	world(NULL);
	/* HEADERS without END_HEADERS, then empty-ish CONTINUATIONs */
	h2t_frame_hd(f, 1, NGHTTP2_HEADERS, NGHTTP2_FLAG_END_STREAM, 1);
	f[9] = 0x82; /* :method GET */
	h2t_raw(&W, f, 10);
	for (i = 0; i < 100 && W.c != NULL; i++) {
		/* x-a: b, a literal the decoder does not index */
		h2t_frame_hd(f, sizeof(fld), NGHTTP2_CONTINUATION, 0, 1);
		memcpy(f + 9, fld, sizeof(fld));
		h2t_raw(&W, f, sizeof(f));
	}
	assert_null(W.c);
	assert_true(i < 100);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_CONT_FLOOD), 1);
	/* the last frame: GOAWAY ENHANCE_YOUR_CALM */
	assert_true(W.out_len >= 17);
	assert_int_equal(W.out[W.out_len - 17 + 3], NGHTTP2_GOAWAY);
	assert_int_equal(W.out[W.out_len - 1], NGHTTP2_ENHANCE_YOUR_CALM);
	h2t_fini(&W);
}

static void
test_bad_preface(void **state)
{
	struct ewyk_http2_conf c = { 0 };
	static const char bad[] = "PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n";
	uint8_t ping[17] = { 0 };

	(void)state;
	assert_int_equal(h2t_init(&W, &c), 0);
	assert_int_equal(h2t_connect(&W, NULL, 0), 0);
	assert_int_not_equal(h2t_raw(&W, bad, sizeof(bad) - 1), 0);
	/* GOAWAY PROTOCOL_ERROR, then the end */
	assert_int_equal(W.ended, 1);
	assert_int_equal(W.out_len, 17);
	assert_int_equal(W.out[3], NGHTTP2_GOAWAY);
	assert_int_equal(W.out[16], NGHTTP2_PROTOCOL_ERROR);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BAD_PREFACE), 1);
	h2t_fini(&W);
	/* the right magic, then no SETTINGS */
	assert_int_equal(h2t_init(&W, &c), 0);
	assert_int_equal(h2t_connect(&W, NULL, 0), 0);
	h2t_raw(&W, EWYK_HTTP2_PREFACE, EWYK_HTTP2_PREFACE_LEN);
	h2t_frame_hd(ping, 8, NGHTTP2_PING, 0, 0);
	h2t_raw(&W, ping, sizeof(ping));
	assert_null(W.c);
	assert_true(W.out_len > 9);
	/* the last frame written is GOAWAY PROTOCOL_ERROR */
	h2t_fini(&W);
}

static void
test_zero_window_write_timeout(void **state)
{
	struct ewyk_http2_conf c = { .write_timeout_ms = 20 };
	nghttp2_settings_entry iv = { NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 0 };
	struct timespec ts = { 0, 60 * 1000 * 1000 };
	int32_t id;

	(void)state;
	assert_int_equal(h2t_init(&W, &c), 0);
	assert_int_equal(h2t_connect(&W, &iv, 1), 0);
	nghttp2_session_send(W.cli);
	id = h2t_get(&W, "GET", "/bytes/1000", NULL, 0, NULL, 0);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, id)->status, 200);
	assert_int_equal(h2t_st(&W, id)->body, 0);
	assert_non_null(W.c);
	nanosleep(&ts, NULL);
	ewyk_twheel_advance(W.wheel, rte_get_tsc_cycles(), 0);
	nanosleep(&ts, NULL);
	ewyk_twheel_advance(W.wheel, rte_get_tsc_cycles(), 0);
	assert_int_equal(W.ended, 2);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_TIMEOUT_WRITE), 1);
	h2t_fini(&W);
}

static void
test_max_concurrent(void **state)
{
	struct ewyk_http2_conf c = { .max_concurrent_streams = 4 };
	/* GET http /later: static-table :method, :scheme, then :path as a
	 * literal that the decoder does not index */
	static const uint8_t blk[] = { 0x82, 0x86, 0x01, 0x01, 'x', 0x04, 0x06,
		'/', 'l', 'a', 't', 'e', 'r' };
	uint8_t f[9 + sizeof(blk)];
	int i;

	(void)state;
	world(&c);
	/* the peer knows the limit from our SETTINGS: go past it by hand */
	for (i = 0; i < 8 && W.c != NULL; i++) {
		h2t_frame_hd(f, sizeof(blk), NGHTTP2_HEADERS,
			NGHTTP2_FLAG_END_STREAM | NGHTTP2_FLAG_END_HEADERS,
			1 + 2 * i);
		memcpy(f + 9, blk, sizeof(blk));
		h2t_raw(&W, f, sizeof(f));
	}
	assert_int_equal(W.nlater, 4);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_REQUESTS), 4);
	h2t_fini(&W);
}

/* The window the peer was given on the connection: the RFC's 65,535
 * and every WINDOW_UPDATE since. */
static uint64_t
conn_window_given(void)
{
	return 65535 + W.wu_conn;
}

static uint64_t
granted_now(void)
{
	return h2t_ctr(&W, EWYK_HTTP2_C_BODY_HELD) -
		h2t_ctr(&W, EWYK_HTTP2_C_BODY_OWED);
}

/* A body beyond the shard's budget stalls on a zero window, no window
 * granted beyond the budget, and completes when the budget comes back. */
static void
test_body_budget(void **state)
{
	struct ewyk_http2_conf c = { .body_budget = 256 << 10,
		.initial_window = 64 << 10 };
	static char body[200 << 10];
	uint64_t sent;
	int32_t x, a;

	(void)state;
	world(&c);
	/* a body within the budget is read whole, and held */
	x = h2t_get(&W, "POST", "/hold", NULL, 0, body, sizeof(body));
	h2t_pump(&W);
	assert_int_equal(W.nlater, 1);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BODY_HELD), sizeof(body));
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BODY_WAITING), 0);
	/* the next gets what is left of the budget, then waits */
	a = h2t_get(&W, "POST", "/hold", NULL, 0, body, sizeof(body));
	h2t_pump(&W);
	assert_int_equal(W.nlater, 1);
	assert_int_equal(h2t_st(&W, a)->status, 0);
	assert_int_equal(granted_now(), 256 << 10);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BODY_WAITING), 1);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BODY_WAIT), 1);
	assert_true(h2t_ctr(&W, EWYK_HTTP2_C_BODY_OWED) > 0);
	/* what the peer could send: the budget and one connection window
	 * (the first 64 KiB of the window are the RFC's), no more */
	sent = h2t_ctr(&W, EWYK_HTTP2_C_BODY_HELD);
	assert_true(sent <= conn_window_given());
	assert_true(conn_window_given() <= (256 << 10) + (64 << 10) + 1);
	assert_true(sent < 2 * sizeof(body));
	/* x is answered and ends: its bytes come back, a is granted and
	 * completes */
	assert_int_equal(ewyk_http2_respond(W.later[0], 200, NULL, NULL, "ok",
				 2),
		0);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, x)->status, 200);
	assert_int_equal(W.nlater, 2);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BODY_HELD), sizeof(body));
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BODY_OWED), 0);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BODY_WAITING), 0);
	assert_int_equal(ewyk_http2_respond(W.later[1], 200, NULL, NULL, "ok",
				 2),
		0);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, a)->status, 200);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BODY_HELD), 0);
	h2t_fini(&W);
}

/* A streamed body: its consumer is handed the first bytes before the
 * peer has sent the rest; while it releases nothing, the peer is held to
 * one stream window (whatever the body size); each release reopens the
 * window for as much, and the body completes with never more than a
 * window held. */
static void
test_body_streamed(void **state)
{
	struct ewyk_http2_conf c = { .body_budget = 1 << 20,
		.initial_window = 64 << 10 };
	static char body[300 << 10];
	uint64_t held, peak = 0, seen;
	unsigned int rounds = 0;
	int32_t x;

	(void)state;
	world(&c);
	x = h2t_get(&W, "POST", "/stream", NULL, 0, body, sizeof(body));
	h2t_pump(&W);
	assert_non_null(W.stream_st);
	/* the first bytes are the consumer's, the end not sent yet */
	assert_true(W.streamed > 0);
	assert_true(W.streamed <= (64 << 10));
	assert_false(W.stream_end);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BODY_HELD), W.streamed);
	/* nothing released: nothing more comes */
	seen = W.streamed;
	h2t_pump(&W);
	assert_int_equal(W.streamed, seen);
	while (!W.stream_end && rounds++ < 100) {
		held = h2t_ctr(&W, EWYK_HTTP2_C_BODY_HELD);
		peak = RTE_MAX(peak, held);
		assert_true(held <= (64 << 10));
		assert_int_equal(ewyk_http2_body_release(W.stream_st, held), 0);
		h2t_pump(&W);
		assert_true(W.streamed > seen || W.stream_end);
		seen = W.streamed;
	}
	assert_true(W.stream_end);
	assert_int_equal(W.streamed, sizeof(body));
	assert_true(peak <= (64 << 10));
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BODY_OWED), 0);
	assert_int_equal(ewyk_http2_respond(W.stream_st, 200, NULL, NULL, "ok",
				 2),
		0);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, x)->status, 200);
	assert_null(W.stream_st);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BODY_HELD), 0);
	h2t_fini(&W);
}

/* One address gets a quarter of the budget though the rest is free; a
 * stream left waiting is reset after body_timeout_ms. */
static void
test_body_budget_per_source(void **state)
{
	struct ewyk_http2_conf c = { .body_budget = 1 << 20,
		.initial_window = 64 << 10 };
	static char body[200 << 10];
	int32_t x, a;

	(void)state;
	assert_int_equal(h2t_init(&W, &c), 0);
	W.peer_ip = 0x0a000001;
	assert_int_equal(h2t_connect(&W, NULL, 0), 0);
	assert_int_equal(nghttp2_session_send(W.cli), 0);
	h2t_pump(&W);
	x = h2t_get(&W, "POST", "/hold", NULL, 0, body, sizeof(body));
	h2t_pump(&W);
	a = h2t_get(&W, "POST", "/hold", NULL, 0, body, sizeof(body));
	h2t_pump(&W);
	assert_int_equal(W.nlater, 1);
	/* the source's share, 256 KiB, not the shard's 1 MiB */
	assert_int_equal(granted_now(), 256 << 10);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BODY_SRC_WAIT), 1);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BODY_WAIT), 0);
	assert_true(conn_window_given() <= (256 << 10) + (64 << 10) + 1);
	/* the stream that waits goes after body_timeout_ms, its bytes back */
	assert_int_equal(h2_body_expire(W.c,
				 rte_get_tsc_cycles() + rte_get_tsc_hz() * 60),
		1);
	h2_conn_flush(W.c);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, a)->rst, NGHTTP2_CANCEL + 1);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BODY_TIMEOUT), 1);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BODY_HELD), sizeof(body));
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BODY_WAITING), 0);
	/* the connection's window came back: another body is read whole */
	a = h2t_get(&W, "POST", "/body", NULL, 0, body, 50000);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, a)->status, 200);
	assert_int_equal(ewyk_http2_respond(W.later[0], 200, NULL, NULL, "ok",
				 2),
		0);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, x)->status, 200);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BODY_HELD), 0);
	h2t_fini(&W);
}

/* Sends *left bytes of 'x' and stops without END_STREAM: a body that
 * never ends. */
static ssize_t
partial_read(nghttp2_session *sess, int32_t id, uint8_t *buf, size_t length,
	uint32_t *flags, nghttp2_data_source *src, void *ud)
{
	size_t *left = src->ptr;
	size_t n = length < *left ? length : *left;

	(void)sess;
	(void)id;
	(void)ud;
	memset(buf, 'x', n);
	*left -= n;
	if (*left == 0)
		*flags |= NGHTTP2_DATA_FLAG_EOF |
			NGHTTP2_DATA_FLAG_NO_END_STREAM;
	return (ssize_t)n;
}

static nghttp2_nv
nv(const char *a, const char *v)
{
	return (nghttp2_nv){ (uint8_t *)(uintptr_t)a, (uint8_t *)(uintptr_t)v,
		strlen(a), strlen(v), NGHTTP2_NV_FLAG_NONE };
}

/* A body that stops short of its end holds the budget only while it keeps
 * its pace: a stream that took most of the budget and then went quiet is
 * reset (body_slow) as is the one that waited behind it (body_timeout),
 * and the budget comes back whole. Within its pace nothing is reset. */
static void
test_body_slow_reset(void **state)
{
	struct ewyk_http2_conf c = { .body_budget = 256 << 10,
		.initial_window = 64 << 10 };
	static char body[100 << 10];
	size_t left = 250 << 10;
	nghttp2_nv nva[4];
	nghttp2_data_provider dp;
	uint64_t hz = rte_get_tsc_hz();
	int32_t holder, waiter;
	int k;

	(void)state;
	world(&c);
	nva[0] = nv(":method", "POST");
	nva[1] = nv(":scheme", "http");
	nva[2] = nv(":authority", "test");
	nva[3] = nv(":path", "/hold");
	dp.source.ptr = &left;
	dp.read_callback = partial_read;
	holder = nghttp2_submit_request(W.cli, NULL, nva, 4, &dp, NULL);
	assert_true(holder > 0);
	for (k = 0; k < 50; k++) {
		(void)nghttp2_session_send(W.cli);
		h2t_pump(&W);
	}
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BODY_HELD), 250 << 10);
	waiter = h2t_get(&W, "POST", "/hold", NULL, 0, body, sizeof(body));
	h2t_pump(&W);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BODY_WAITING), 1);

	/* a second later: both within their time */
	assert_int_equal(h2_body_expire(W.c, rte_get_tsc_cycles() + hz), 0);
	/* an hour later: the holder for its pace, the waiter for its wait */
	k = (int)h2_body_expire(W.c, rte_get_tsc_cycles() + hz * 3600);
	assert_int_equal(k, 2);
	h2_conn_flush(W.c);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, holder)->rst, NGHTTP2_CANCEL + 1);
	assert_int_equal(h2t_st(&W, waiter)->rst, NGHTTP2_CANCEL + 1);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BODY_SLOW), 1);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BODY_TIMEOUT), 1);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BODY_HELD), 0);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BODY_WAITING), 0);
	/* reset once */
	assert_int_equal(h2_body_expire(W.c, rte_get_tsc_cycles() + hz * 7200),
		0);
	h2t_fini(&W);
}

/* Never any DATA: HEADERS announce a body (no END_STREAM) that never
 * comes. */
static ssize_t
never_read(nghttp2_session *sess, int32_t id, uint8_t *buf, size_t length,
	uint32_t *flags, nghttp2_data_source *src, void *ud)
{
	(void)sess;
	(void)id;
	(void)buf;
	(void)length;
	(void)flags;
	(void)src;
	(void)ud;
	return NGHTTP2_ERR_DEFERRED;
}

/* A body announced by HEADERS whose first DATA never comes is reset
 * after body_timeout_ms as a body that stops is (its clock starts at
 * HEADERS), gathered or streamed, counted as slow, once. */
static void
test_body_never_sent(void **state)
{
	struct ewyk_http2_conf c = { .body_timeout_ms = 1000 };
	const char *paths[] = { "/hold", "/stream" };
	nghttp2_data_provider dp = { .read_callback = never_read };
	uint64_t hz = rte_get_tsc_hz();
	nghttp2_nv nva[4];
	int32_t id[2];
	int i, k;

	(void)state;
	world(&c);
	nva[0] = nv(":method", "POST");
	nva[1] = nv(":scheme", "http");
	nva[2] = nv(":authority", "test");
	for (i = 0; i < 2; i++) {
		nva[3] = nv(":path", paths[i]);
		id[i] = nghttp2_submit_request(W.cli, NULL, nva, 4, &dp, NULL);
		assert_true(id[i] > 0);
	}
	for (k = 0; k < 4; k++) {
		(void)nghttp2_session_send(W.cli);
		h2t_pump(&W);
	}
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BODY_HELD), 0);
	/* within body_timeout_ms: kept */
	assert_int_equal(h2_body_expire(W.c, rte_get_tsc_cycles()), 0);
	/* an hour later: both reset, counted, once */
	assert_int_equal(h2_body_expire(W.c, rte_get_tsc_cycles() + hz * 3600),
		2);
	h2_conn_flush(W.c);
	h2t_pump(&W);
	for (i = 0; i < 2; i++)
		assert_int_equal(h2t_st(&W, id[i])->rst, NGHTTP2_CANCEL + 1);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_BODY_SLOW), 2);
	assert_int_equal(h2_body_expire(W.c, rte_get_tsc_cycles() + hz * 7200),
		0);
	h2t_fini(&W);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get),
		cmocka_unit_test(test_many_streams_and_big_bodies),
		cmocka_unit_test(test_producer_fails_mid_frame),
		cmocka_unit_test(test_small_send_space),
		cmocka_unit_test(test_body_and_later),
		cmocka_unit_test(test_header_limits),
		cmocka_unit_test(test_hpack_bomb),
		cmocka_unit_test(test_rapid_reset),
		cmocka_unit_test(test_ping_flood),
		cmocka_unit_test(test_continuation_flood),
		cmocka_unit_test(test_bad_preface),
		cmocka_unit_test(test_zero_window_write_timeout),
		cmocka_unit_test(test_max_concurrent),
		cmocka_unit_test(test_body_budget),
		cmocka_unit_test(test_body_streamed),
		cmocka_unit_test(test_body_budget_per_source),
		cmocka_unit_test(test_body_slow_reset),
		cmocka_unit_test(test_body_never_sent),
		cmocka_unit_test(test_body_buffer_charged),
		cmocka_unit_test(test_body_buffer_filled),
		cmocka_unit_test(test_body_buffer_capped),
		cmocka_unit_test(test_data_on_closed_stream),
		cmocka_unit_test(test_data_after_our_reset),
		cmocka_unit_test(test_closed_window),
		cmocka_unit_test(test_priority_frames),
	};

	if (ewyk_test_eal_init(argc, argv) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
