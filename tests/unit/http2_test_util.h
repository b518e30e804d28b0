/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef HTTP2_TEST_UTIL_H
#define HTTP2_TEST_UTIL_H

/*
 * A world for lib/http2's unit tests and fuzzer: one server on a wheel
 * and an mbuf pool, connections on a captured transport (no TCP), and an
 * nghttp2 client session as the peer, its frames fed to the server and
 * the server's to it.
 */

#include <stdint.h>

#include <nghttp2/nghttp2.h>

#include "http2_private.h"

#define H2T_MAX_STREAMS 512

/* What the peer saw of one stream. */
struct h2t_stream {
	int status;
	uint32_t rst;  /* RST_STREAM code + 1, 0: none */
	uint64_t body; /* DATA bytes */
	uint64_t bad;  /* body bytes that broke the expected pattern */
	int closed;
	uint64_t closed_seq; /* order of the ends */
};

struct h2t_world {
	struct ewyk_http2_server *srv;
	struct ewyk_twheel *wheel;
	struct rte_mempool *pool;
	struct h2_conn *c;
	nghttp2_session *cli;
	uint32_t space;  /* what the transport takes now */
	uint32_t refill; /* ... after each exchange (0: no limit) */
	int ended;       /* 1: graceful, 2: reset */
	uint8_t *out;    /* server bytes not given to the peer yet */
	size_t out_len, out_cap;
	uint64_t seq;
	int goaway;       /* code + 1 */
	uint32_t peer_ip; /* the connection's peer (IPv4); 0: none */
	uint64_t wu_conn; /* WINDOW_UPDATE increments of the connection */
	struct h2t_stream st[H2T_MAX_STREAMS];
	/* the server's later answers */
	struct ewyk_http2_stream *later[H2T_MAX_STREAMS];
	unsigned int nlater;
	/* /stream: body bytes its consumer was given, its end seen, the
	 * stream (NULL once ended) */
	uint64_t streamed;
	int stream_end;
	struct ewyk_http2_stream *stream_st;
};

int h2t_init(struct h2t_world *w, const struct ewyk_http2_conf *conf);
void h2t_fini(struct h2t_world *w);
/* open a connection and a client session (prior knowledge) */
int h2t_connect(struct h2t_world *w, const nghttp2_settings_entry *iv,
	size_t niv);
/* exchange bytes until neither side has more */
void h2t_pump(struct h2t_world *w);
/* raw bytes to the server */
int h2t_raw(struct h2t_world *w, const void *p, size_t len);
/* submit a request; returns its stream id */
int32_t h2t_get(struct h2t_world *w, const char *method, const char *path,
	const nghttp2_nv *extra, size_t nextra, const void *body, size_t len);
struct h2t_stream *h2t_st(struct h2t_world *w, int32_t id);
uint64_t h2t_ctr(struct h2t_world *w, enum ewyk_http2_counter c);
/* a 9-byte frame header */
void h2t_frame_hd(uint8_t *b, uint32_t len, uint8_t type, uint8_t flags,
	int32_t id);
/* the byte at offset @p off of a pattern body */
static inline char
h2t_pattern(uint64_t off)
{
	return (char)('a' + off % 26);
}

/* test_http2_body.c */
void test_body_buffer_charged(void **state);
void test_body_buffer_filled(void **state);
void test_body_buffer_capped(void **state);
/* test_http2_frames.c */
void test_data_on_closed_stream(void **state);
void test_data_after_our_reset(void **state);
void test_closed_window(void **state);
void test_priority_frames(void **state);

#endif /* HTTP2_TEST_UTIL_H */
