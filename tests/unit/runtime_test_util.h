/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the lib/runtime unit tests (test_runtime.c and the
 * test_runtime_*.c files its main runs) share: a runtime on one
 * ring-backed port with one shard (lcore 0; lcore 1 is a reserved lcore
 * that never serves, so queued tasks stay queued until the test runs
 * them), driven one step at a time on a virtual clock (rt_test.h), and
 * raw TCP clients that speak to it through frames over IPv4 or IPv6 (the
 * port has an address of each family).
 */

#ifndef EWYK_TEST_RUNTIME_UTIL_H
#define EWYK_TEST_RUNTIME_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ip.h>

#include <ewyk_runtime.h>

#include "rt_test.h"

#define RTW_SIP RTE_IPV4(10, 0, 0, 1)
#define RTW_CIP RTE_IPV4(10, 0, 0, 2)
/* The port's IPv6 address and the clients' (on-link, 2001:db8::/64). */
extern const uint8_t rtw_sip6[16];
extern const uint8_t rtw_cip6[16];
#define RTW_PORT 80
#define RTW_MAXCLI 8
#define RTW_RX 16384
/* Body bytes of the world's GET /big (NON_BLOCKING): more than an MSS. */
#define RTW_BIG 3000
/* Request body the world's POST /body route reads, at most. */
#define RTW_MAX_BODY 64
/* Task timeout of the world's runtime (virtual time). */
#define RTW_TIMEOUT_MS 20000
/* How late the shard's wheel may fire a timer of @p ms (lib/twheel's
 * slack: at most an eighth of the delay) and a millisecond more. */
#define RTW_SLACK_MS(ms) ((ms) / 8 + 1)

/* A raw TCP client, over IPv4 (RTW_CIP) or IPv6 (rtw_cip6). */
struct rtw_cli {
	bool v6;
	uint16_t sport;
	uint32_t snd_nxt, rcv_nxt;
	bool used, established, rst, fin;
	size_t nrx, off; /* received bytes; parsed up to off */
	/* the largest TCP payload and IP packet the runtime sent it */
	uint32_t seg_max, pkt_max;
	uint32_t nseg; /* segments with data the runtime sent it */
	char rx[RTW_RX];
};

/* One response parsed from a client's bytes. */
struct rtw_resp {
	int status;
	const char *body;
	size_t body_len;
};

struct rtw {
	struct ewyk_rt *rt;
	struct ewyk_rt_shard *sh;
	uint64_t vnow; /* the virtual clock, in TSC cycles */
	uint64_t hz;
	struct rtw_cli cli[RTW_MAXCLI];
	/* route handlers' record */
	unsigned int calls_block, calls_nb, calls_body;
	/* POST /stream (and /streamsmall, max_body RTW_MAX_BODY, and
	 * /nbstream, its consumer and fn NON_BLOCKING): pieces
	 * and bytes its body consumer took, fn calls, states released */
	unsigned int pieces, calls_stream, states_freed;
	uint64_t piece_bytes;
	int piece_ret; /* what the body consumer returns */
	enum ewyk_strategy_mode last_mode;
	/* what the BLOCKING handler was given */
	char path[32], query[32], hdr[32];
	uint64_t req_deadline;
	struct ewyk_http_peer peer; /* the client, as the copy gives it */
	uint64_t advance_in_fn;     /* cycles the BLOCKING handler moves time */
};

extern struct rtw RTW;
/* --h2-body-budget of the next rtw_create() (0: the runtime's default) */
extern uint64_t rtw_h2_body_budget;
/* --keepalive-timeout and --tcp-idle-ms (in seconds) of the next
 * rtw_create(), which sets it back to 0 (the runtime's defaults) */
extern unsigned int rtw_idle_s;

/* Once, after the EAL: rings, the clients' mbuf pool. 0 or -1. */
int rtw_global_init(void);

/*
 * A runtime on a fresh ring port: strategy @p kind, PEC ring @p pec_ring
 * (0: default), the routes /block (BLOCKING), /nb (NON_BLOCKING),
 * /fail (BLOCKING, fails) and /big (NON_BLOCKING, RTW_BIG bytes), HTTP
 * on RTW_PORT of both families (RTW_SIP and rtw_sip6); not started. The
 * virtual clock is set.
 */
struct ewyk_rt *rtw_create(enum ewyk_strategy_kind kind, unsigned int pec_ring);
/* rt_test_start(), and the peer's ARP and neighbour solicitation so that
 * the shard knows its MAC in both families (the peer answers the shard's
 * solicitations for rtw_cip6 from then on). */
void rtw_start(void);
/* ewyk_rt_free(), the clock back to the TSC; what was sent is kept for
 * rtw_pump(). */
void rtw_free(void);
/* Move the virtual clock. */
void rtw_advance_ms(uint64_t ms);
/* Steps of shard 0 and frames both ways until both sides are quiet. */
void rtw_run(void);
/* Read what the runtime sent; the clients answer. Frames read. */
unsigned int rtw_pump(void);

/* A client connected (the handshake run); rtw_connect6() over IPv6. Both
 * offer the MSS of a 1500-byte MTU. */
struct rtw_cli *rtw_connect(unsigned int i);
struct rtw_cli *rtw_connect6(unsigned int i);
/* An ICMPv6 packet too big from a router on the way to @p c: @p mtu, about
 * a full-sized segment the runtime sent it. */
void rtw_ptb6(const struct rtw_cli *c, uint32_t mtu);
void rtw_send(struct rtw_cli *c, const char *s);
void rtw_rst(struct rtw_cli *c);
/* Bytes as one segment (at most an MSS). */
void rtw_send_bytes(struct rtw_cli *c, const void *p, uint16_t len);
/* The next complete response (Content-Length framed): 1, or 0. */
int rtw_resp_next(struct rtw_cli *c, struct rtw_resp *r);

/* test_runtime_dispatch.c */
void test_dispatch_result(void **state);
void test_dispatch_nonblocking_and_failed(void **state);
void test_dispatch_deadline_pc(void **state);
void test_dispatch_deadline_queued(void **state);
void test_dispatch_refused(void **state);
void test_dispatch_conn_gone(void **state);
void test_dispatch_pipelined_order(void **state);
void test_dispatch_stop_in_flight(void **state);
void test_dispatch_body(void **state);

/* test_runtime_h2.c: an nghttp2 client session (prior knowledge) on a
 * connection of the world, shared with test_runtime_h2_body.c */
#define H2C_STREAMS 16
struct h2_peer {
	struct nghttp2_session *s;
	struct rtw_cli *c;
	int status[H2C_STREAMS];
	uint32_t rst[H2C_STREAMS]; /* code + 1 */
	size_t body[H2C_STREAMS];
	int order[H2C_STREAMS], nend;
};
extern struct h2_peer H2P;
/* slot of stream @p id in H2P's arrays */
int h2_idx(int32_t id);
/* frames both ways until quiet */
void h2_exchange(void);
/* a world (rtw_create()) with a connection and the client session on it */
void h2_open(enum ewyk_strategy_kind kind, unsigned int pec_ring);
void h2_close(void);
/* a GET of @p path: its stream id */
int32_t h2_get(const char *path);
uint64_t h2_count(enum ewyk_rt_task_ctr c);
/* nothing of a stopped stream left, the next request answered; closes */
void h2_serves_on_then_close(void);
void test_h2_streams(void **state);
void test_h2_deadline_refused(void **state);
void test_h2_stream_reset(void **state);
void test_h2_task_counters(void **state);
void test_h2_burst_one_flush(void **state);

/* test_runtime_h2_body.c */
void test_h2_body_share(void **state);
void test_h2_body_streamed(void **state);
void test_h2_body_pieces_counted(void **state);
void test_h2_body_piece_fail_counted(void **state);
void test_h2_body_streamed_reset(void **state);
void test_h2_body_release_fails(void **state);
void test_h2_body_ring_lazy(void **state);
void test_h2_body_consumer_fails(void **state);
void test_h2_body_piece_deadline(void **state);
void test_h2_body_too_large(void **state);

/* test_runtime_v6.c */
void test_v6_request(void **state);
void test_v6_pmtu_expiry(void **state);
void test_v6_nd_confirm_by_ack(void **state);

/* test_runtime_jobs.c */
void test_modules_order(void **state);
void test_modules_init_fails(void **state);
void test_job_done(void **state);
void test_job_cancel(void **state);
void test_job_deadline(void **state);

#endif /* EWYK_TEST_RUNTIME_UTIL_H */
