/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The world of the lib/http connection-layer tests: an HTTP server on one
 * lib/tcp endpoint and raw-bytes clients on another (tests/common's TCP
 * wire), its routes and handlers, and the client side: connect, send,
 * parse responses back.
 */

#ifndef EWYK_TEST_HTTP_CONN_WORLD_H
#define EWYK_TEST_HTTP_CONN_WORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ip.h>
#include <rte_mempool.h>

#include "ewyk_http.h"
#include "tcp_wire.h"

#define SIP RTE_BE32(RTE_IPV4(10, 0, 0, 1))
/* The server's IPv6 address (2001:db8::1), listened on beside SIP. */
static const uint8_t SIP6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
#define CIP RTE_BE32(RTE_IPV4(10, 0, 0, 2))
#define SPORT 80
#define MAXQ 16384
#define MAXCLI 8

struct cli {
	struct ewyk_tcp_conn *c;
	char *rx;
	size_t nrx, cap;
	uint64_t held;
	int err;
	bool connected, refused, eof, closed, hold;
};

struct http_world {
	struct tcp_wire wire; /* t[0]: server, t[1]: client */
	struct ewyk_http_router *rt;
	struct ewyk_http_server *srv;
	struct cli cli[MAXCLI];
	/* handlers' state */
	struct ewyk_http_conn *deferred[4];
	char deferred_tag[4][16];
	unsigned int ndeferred;
	uint64_t produced;
	uint64_t body_bytes, body_sum;
	int body_last;
	struct ewyk_http_conn *body_paused_conn;
	struct ewyk_http_conn *trickle_conn;
	uint32_t trickle_budget;
	/* ewyk_http_on_done() */
	unsigned int ndone;
	int done_aborted;
	int done_respond;   /* respond from the callback */
	unsigned int nhold; /* /hold requests taken */
};

extern struct http_world W;
extern struct rte_mempool *mp;

/* Run the wire for up to @p ms virtual milliseconds or until cond holds. */
#define RUN_UNTIL(cond, ms)                                          \
	do {                                                         \
		uint64_t end_ = W.wire.now_us + (uint64_t)(ms)*1000; \
		while (!(cond) && W.wire.now_us < end_)              \
			step(100);                                   \
	} while (0)

/* One response parsed from a client's buffer. */
struct resp {
	int status;
	size_t head_len;
	const char *head;
	const char *body;
	size_t body_len;
};

void step(uint64_t us);
struct cli *cli_open(unsigned int i);
/* A client connecting from @p src (the wire carries any address). */
struct cli *cli_open_from(unsigned int i, rte_be32_t src);
/* A client connecting over IPv6 from @p src to the server's 2001:db8::1
 * (the server's listener takes both families). */
struct cli *cli_open6_from(unsigned int i, const uint8_t src[16]);
void cli_send(struct cli *cl, const void *p, size_t len);
void cli_sends(struct cli *cl, const char *s);
/*
 * Parse the response at *off (Content-Length or no body when @p nobody).
 * Returns 1 and advances *off, or 0 when it is not all there.
 */
int resp_next(struct cli *cl, size_t *off, bool nobody, struct resp *r);
struct resp wait_resp(struct cli *cl, size_t *off, bool nobody);
bool head_has(const struct resp *r, const char *s);
int prod_bytes(struct ewyk_http_conn *c, char *buf, uint32_t cap, uint64_t off,
	void *arg);
/* /trickle: a chunked body given 100 bytes at a time, when the test
 * says so (W.trickle_budget), like an echo waiting for its input. */
int prod_trickle(struct ewyk_http_conn *c, char *buf, uint32_t cap,
	uint64_t off, void *arg);
void done_cb(struct ewyk_http_conn *c, int aborted, void *arg);
void setup_conf(struct ewyk_http_server_conf *hc);
int setup(void **state);
int teardown(void **state);
uint64_t ctr(enum ewyk_http_counter c);

/* test_http_conn_body.c */
void test_bad_body_under_stream(void **state);
void test_stream_1mb_window(void **state);
void test_stream_resume(void **state);
void test_upload(void **state);
void test_upload_paused(void **state);
void test_head_and_10(void **state);
void test_10_chunked_stream(void **state);
void test_no_content_statuses(void **state);
void test_pending_stream_reset(void **state);
void test_pending_cut_body(void **state);

/* test_http_conn_attack.c */
int setup_rate(void **state);
/* test_http_conn_switch.c */
int setup_switch(void **state);
void test_switch_preface(void **state);
void test_switch_refused(void **state);
void test_switch_upgrade(void **state);
void test_switch_not_taken(void **state);
void test_orphan_mid_upload(void **state);
void test_head_byte_segments(void **state);
void test_pending_byte_segments(void **state);
void test_body_min_rate(void **state);
void test_fin_after_pipelined(void **state);

/* test_http_conn_respond.c */
void test_respond_zero_window(void **state);
void test_respond_bound(void **state);
void test_server_limits(void **state);
void test_pending_stream_write_timeout(void **state);
void test_respond_head_cache(void **state);
void test_pipelined_one_segment(void **state);

#endif /* EWYK_TEST_HTTP_CONN_WORLD_H */
