/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/http2: frames on closed streams and PRIORITY, which ewyk answers
 * itself since nghttp2 runs without RFC 7540 priorities (it frees a
 * stream as it closes and ignores PRIORITY frames).
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "http2_test_util.h"

static struct h2t_world W;

static void
open_world(void)
{
	struct ewyk_http2_conf d = { 0 };

	assert_int_equal(h2t_init(&W, &d), 0);
	assert_int_equal(h2t_connect(&W, NULL, 0), 0);
	assert_int_equal(nghttp2_session_send(W.cli), 0);
	h2t_pump(&W);
}

/* A DATA frame of 4 bytes on @p id, raw (the client session would not
 * send it). */
static int
raw_data(int32_t id)
{
	uint8_t f[13];

	h2t_frame_hd(f, 4, NGHTTP2_DATA, 0, id);
	memcpy(f + 9, "late", 4);
	return h2t_raw(&W, f, sizeof(f));
}

/* A DATA frame on a stream closed after the peer's END_STREAM is a
 * connection error STREAM_CLOSED (RFC 9113 5.1). */
void
test_data_on_closed_stream(void **state)
{
	int32_t id;

	(void)state;
	open_world();
	id = h2t_get(&W, "GET", "/hello", NULL, 0, NULL, 0);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, id)->status, 200);
	assert_true(h2t_st(&W, id)->closed);
	raw_data(id);
	h2t_pump(&W);
	assert_int_equal(W.goaway, NGHTTP2_STREAM_CLOSED + 1);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_PROTO_ERROR), 1);
	h2t_fini(&W);
}

static ssize_t
never_read(nghttp2_session *s, int32_t id, uint8_t *buf, size_t len,
	uint32_t *flags, nghttp2_data_source *src, void *user)
{
	(void)s;
	(void)id;
	(void)buf;
	(void)len;
	(void)flags;
	(void)src;
	(void)user;
	return NGHTTP2_ERR_DEFERRED;
}

/* A stream we reset before the peer ended it: what the peer still sends
 * on it is ignored (RFC 9113 5.1), the connection serves on. */
void
test_data_after_our_reset(void **state)
{
	nghttp2_data_provider dp = { .read_callback = never_read };
	nghttp2_nv nva[] = {
		{ (uint8_t *)":method", (uint8_t *)"POST", 7, 4, 0 },
		{ (uint8_t *)":scheme", (uint8_t *)"http", 7, 4, 0 },
		{ (uint8_t *)":authority", (uint8_t *)"t", 10, 1, 0 },
		{ (uint8_t *)":path", (uint8_t *)"/hello", 5, 6, 0 },
	};
	int32_t id, b;

	(void)state;
	open_world();
	/* HEADERS without END_STREAM: answered, then RST_STREAM NO_ERROR */
	id = nghttp2_submit_request(W.cli, NULL, nva, RTE_DIM(nva), &dp, NULL);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, id)->status, 200);
	assert_int_equal(h2t_st(&W, id)->rst, NGHTTP2_NO_ERROR + 1);
	assert_int_equal(raw_data(id), 0);
	h2t_pump(&W);
	assert_int_equal(W.goaway, 0);
	b = h2t_get(&W, "GET", "/hello", NULL, 0, NULL, 0);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, b)->status, 200);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_PROTO_ERROR), 0);
	h2t_fini(&W);
}

/* Closes are remembered for the last H2_CLOSED_WIN client streams, as
 * nghttp2 kept that many: frames on older ones are ignored. */
void
test_closed_window(void **state)
{
	/* :method GET, :scheme http, :path /, :authority t */
	static const uint8_t blk[] = { 0x82, 0x86, 0x84, 0x41, 0x01, 't' };
	uint8_t f[9 + sizeof(blk)];
	int32_t id, far;

	(void)state;
	open_world();
	id = h2t_get(&W, "GET", "/hello", NULL, 0, NULL, 0);
	h2t_pump(&W);
	assert_true(h2t_st(&W, id)->closed);
	/* a stream H2_CLOSED_WIN ids on (raw: the client session does not
	 * know it, its answer is not given to it) */
	far = id + 2 * H2_CLOSED_WIN;
	h2t_frame_hd(f, sizeof(blk), NGHTTP2_HEADERS,
		NGHTTP2_FLAG_END_HEADERS | NGHTTP2_FLAG_END_STREAM, far);
	memcpy(f + 9, blk, sizeof(blk));
	assert_int_equal(h2t_raw(&W, f, sizeof(f)), 0);
	W.out_len = 0;
	assert_int_equal(raw_data(id), 0);
	assert_non_null(W.c);
	assert_int_equal(W.out_len, 0); /* no GOAWAY */
	/* one within the window still is an error */
	assert_int_equal(raw_data(far), 0);
	assert_true(W.out_len >= 17);
	assert_int_equal(W.out[W.out_len - 17 + 3], NGHTTP2_GOAWAY);
	assert_int_equal(W.out[W.out_len - 1], NGHTTP2_STREAM_CLOSED);
	h2t_fini(&W);
}

/* PRIORITY on stream 0 is a connection error PROTOCOL_ERROR (RFC 9113
 * 6.3); on a stream it is ignored. */
void
test_priority_frames(void **state)
{
	uint8_t f[14] = { 0 };
	int32_t id;

	(void)state;
	open_world();
	h2t_frame_hd(f, 5, NGHTTP2_PRIORITY, 0, 1);
	f[9 + 3] = 3; /* depends on stream 3 */
	f[13] = 15;
	assert_int_equal(h2t_raw(&W, f, sizeof(f)), 0);
	id = h2t_get(&W, "GET", "/hello", NULL, 0, NULL, 0);
	h2t_pump(&W);
	assert_int_equal(h2t_st(&W, id)->status, 200);
	assert_int_equal(W.goaway, 0);
	h2t_frame_hd(f, 5, NGHTTP2_PRIORITY, 0, 0);
	h2t_raw(&W, f, sizeof(f));
	h2t_pump(&W);
	assert_int_equal(W.goaway, NGHTTP2_PROTOCOL_ERROR + 1);
	assert_int_equal(h2t_ctr(&W, EWYK_HTTP2_C_PROTO_ERROR), 1);
	h2t_fini(&W);
}
