/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_LOADGEN_H
#define EWYK_LOADGEN_H

/*
 * ewyk-loadgen: an HTTP/1.1 load generator on ewyk's own stack, an
 * application of the runtime (lib/runtime); with --h2, HTTP/2 (h2.h).
 *
 * The runtime owns the lcores, the port and the shards: every lcore of
 * the EAL core list is a worker and the home of one shard (its RX/TX
 * queue of the port, its TCP context), and runs the runtime's loop. The
 * client is a module of the runtime: its init hook gives each shard the
 * connection slots of its share (--conns spread evenly), its poll hook is
 * the client's work of one loop iteration (measurement windows, the
 * schedule, connects, timeouts), its fini hook frees them. Nothing is
 * shared between shards but read-only configuration and counters, which
 * each shard writes with relaxed atomic stores and the main lcore reads.
 * The run ends when every shard has drained and closed its connections:
 * the last one stops the runtime. SIGINT or SIGTERM during the run stop
 * the runtime at once: the report covers what was measured until then,
 * and the connections still open are reset (ewyk_rt_free()).
 *
 * A slot is one client connection at a time. With keep-alive (default)
 * it carries up to --pipeline requests in flight and reconnects when the
 * server closes it; with --new-conn it carries one request and is closed
 * by us after the response (connect + request + response + close is then
 * one measured operation); with --h2 it carries up to --streams streams
 * (h2_slot.c). Closed loop (default): a slot sends its next
 * request as soon as a response comes. Open loop (--rate): each lcore
 * has a schedule of intended send times; a request whose slot is not free
 * waits in a bounded backlog, and its latency counts from its intended
 * time (no coordinated omission).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <ewyk_ctr.h>
#include <ewyk_http.h>
#include <ewyk_net.h>
#include <ewyk_runtime.h>
#include <ewyk_tcp.h>

#include "hist.h"

#define LG_MAX_LCORES EWYK_NET_MAX_SHARDS
#define LG_MAX_CONNS 65536
#define LG_MAX_PIPELINE 256
#define LG_HEAD_MAX 2048      /* a response head longer than this: framing */
#define LG_REQ_MAX 1024       /* request bytes (path and Host) */
#define LG_BACKLOG (1u << 16) /* open-loop requests waiting for a slot */
#define LG_KHEAD_MAX 512      /* a known response head this long at most */
#define LG_KHEADS 2           /* known response heads per lcore */
#define LG_FREE_BATCH 64      /* received chains freed together */

/* Errors by kind: the JSON's "errors" is their sum. */
#define LG_ERRORS(X)                                                        \
	X(CONNECT, connect, "connect failed (refused, timed out, no port)") \
	X(RESET, reset, "connection reset or closed with requests pending") \
	X(TIMEOUT, timeout, "no response within --timeout")                 \
	X(STATUS, status, "status not 2xx")                                 \
	X(FRAMING, framing,                                                 \
		"malformed head, no length, bad body, unsolicited bytes; "  \
		"h2: malformed response or frames")                         \
	X(MISSED, missed, "open loop: backlog full, request never sent")    \
	X(RST_STREAM, rst_stream, "h2: the server reset the stream")        \
	X(GOAWAY, goaway, "h2: request lost to a GOAWAY")

enum lg_err {
#define LG_ERR_ENUM(sym, name, help) LG_ERR_##sym,
	LG_ERRORS(LG_ERR_ENUM)
#undef LG_ERR_ENUM
		LG_ERR_MAX,
};

/* The client's options; --ip, --mbufs and the TCP limits are the
 * runtime's. */
struct lg_conf {
	rte_be32_t dst_ip;
	uint16_t dst_port;
	bool ipv6;           /* --target [ADDR]:PORT: IPv6, to dst_ip6 */
	uint8_t dst_ip6[16]; /* (the source: the port's --ip6) */
	unsigned int conns;
	double duration_s;
	double warmup_s;
	char path[256];
	char mix_path[256]; /* --mix-path: "" = none */
	double mix_percent; /* share of requests to mix_path */
	unsigned int pipeline;
	bool new_conn;
	double rate; /* requests/s over all lcores; 0: closed loop */
	unsigned int timeout_ms;
	bool quiet;        /* no live line */
	bool hold;         /* keep the port up after the JSON until a signal */
	bool window_marks; /* a stdout line as the measured window opens, closes */
	bool h2;           /* --h2: HTTP/2 (h2c, prior knowledge) */
	unsigned int streams;   /* --streams: open per h2 connection */
	unsigned int idle;      /* --idle: connections of the idle set */
	unsigned int src_addrs; /* --src-addrs: --ip and the ones after it */
};

/* Counters of one lcore; written by it only (relaxed atomic stores). */
struct lg_stats {
	uint64_t sent;            /* requests sent (whole run) */
	uint64_t responses;       /* valid responses (whole run, any status) */
	uint64_t ok;              /* 2xx responses in the measured window */
	uint64_t err[LG_ERR_MAX]; /* in the measured window */
	uint64_t err_all;         /* errors over the whole run */
	uint64_t connects;        /* connections established (whole run) */
	uint64_t iters;           /* loop iterations in the window */
	uint64_t loops;           /* loop iterations, whole run (poll calls) */
	uint64_t busy_cycles;     /* cycles of iterations that did work */
	uint64_t cycles;          /* cycles of the window */
	uint64_t stalls;          /* iterations of LG_STALL_US or longer */
	uint64_t stall_cycles;    /* their cycles (in the window) */
	uint64_t stall_max;       /* cycles of the longest (in the window) */
	uint64_t peer_gaps;       /* peer gaps (docs/guides/runtime.md) in
				   * the window */
	uint64_t peer_gap_cycles; /* their cycles */
	uint64_t send_refused_total; /* open loop: sends a slot refused
				      * (whole run, not the window) */
};

/* An iteration this long is a stall: the loop's own work on a burst
 * takes tens of microseconds; this is the kernel running something else. */
#define LG_STALL_US 200

enum lg_slot_state {
	LG_SLOT_IDLE = 0, /* no connection */
	LG_SLOT_CONNECTING,
	LG_SLOT_OPEN,
};

/* Where a shard is in the run. */
enum lg_phase {
	LG_WAIT = 0, /* before the start (the loops are starting) */
	LG_RUN,      /* warm-up and the measured window */
	LG_DRAIN,    /* past the end: waiting for responses in flight */
	LG_LINGER,   /* connections closed: their FINs go through */
	LG_DONE,     /* finished: counted in nb_done */
};

struct lg_lcore;
struct lg_h2;
struct lg_h2_conf;

/* One connection slot. */
struct lg_slot {
	struct ewyk_tcp_conn *c;
	struct lg_lcore *lc;
	uint8_t state;       /* enum lg_slot_state */
	uint8_t in_head;     /* parsing a head (else a body) */
	uint8_t close_after; /* the response in progress ends the conn */
	uint8_t status_bad;  /* the response in progress is not 2xx */
	uint8_t on_list;     /* on the lcore's idle or ready list */
	uint16_t inflight;   /* requests sent, response not complete */
	uint16_t head;       /* oldest entry of t[] */
	uint16_t hlen;       /* bytes in hbuf */
	uint32_t idx;
	uint64_t since;   /* TSC of the last progress (timeouts) */
	uint64_t *t;      /* start time of each request in flight */
	struct lg_h2 *h2; /* --h2: the connection's session (h2_slot.c) */
	struct ewyk_http_body body;
	char hbuf[LG_HEAD_MAX];
};

/*
 * A response head the full parser accepted, kept with what it said. A
 * response whose head is the same bytes (up to and with its blank line)
 * says the same, so it is taken without parsing again: the parser runs
 * once per distinct head (a new Date: once a second), not per response.
 */
struct lg_khead {
	uint16_t len;               /* bytes; 0: empty */
	uint8_t status_bad;         /* not 2xx */
	uint8_t close_after;        /* not keep-alive */
	struct ewyk_http_body body; /* the decoder as the head leaves it */
	char bytes[LG_KHEAD_MAX];
};

struct lg;

/* The client's state on one shard of the runtime (one worker lcore). */
struct lg_lcore {
	unsigned int id; /* index = shard id */
	unsigned int lcore_id;
	struct lg *app;
	struct ewyk_rt_shard *sh;
	struct rte_mempool *pool;     /* the shard's */
	struct ewyk_net_shard *shard; /* the shard's */
	struct ewyk_tcp *tcp;         /* the shard's */
	struct lg_slot *slots;
	uint64_t *times; /* slots' t[] arrays */
	uint32_t nslots;
	uint32_t *idle; /* slots waiting to connect (stack) */
	uint32_t nidle;
	uint32_t *ready; /* open loop: open slots with room (stack) */
	uint32_t nready;
	uint32_t syn_sent;   /* slots in CONNECTING */
	char *reqs;          /* the request, reqs_n times (sched.c) */
	uint32_t reqs_n;     /* copies in reqs: 0 with --mix-path */
	uint64_t inflight;   /* requests in flight over all slots */
	uint64_t open_after; /* TSC: no connects before (local ports short) */
	uint64_t drain_end;  /* TSC: give up waiting for responses */
	uint64_t rng;
	/* Open loop. */
	double interval;   /* TSC cycles between intended sends */
	double next_t;     /* next intended send time (TSC) */
	uint64_t *backlog; /* intended times waiting for a slot (ring) */
	uint32_t bl_head, bl_n;
	/* Time. */
	uint64_t now;
	uint64_t prev;       /* TSC of the previous loop iteration */
	uint64_t rx_seen;    /* the shard's rx_pkts counter then */
	uint64_t linger_end; /* TSC: LG_LINGER ends */
	uint8_t phase;       /* enum lg_phase */
	bool did_work;       /* a callback or the poll hook did something */
	bool prev_work;      /* the previous iteration did work */
	bool draining;       /* past the end: no new requests */
	bool resolved;       /* the target's MAC was known once */
	uint8_t marks;       /* --window-marks printed (shard 0): 0, 1, 2 */
	uint64_t next_scan;  /* next timeout scan */
	uint8_t khead_last;  /* the known head that matched last */
	uint8_t khead_next;  /* the one a new head replaces */
	uint64_t khead_hits; /* responses taken by a known head (whole run) */
	struct lg_khead khead[LG_KHEADS];
	struct rte_mbuf *free[LG_FREE_BATCH]; /* read, to free (lg_on_recv) */
	uint32_t nfree;
	struct lg_stats st __rte_cache_aligned;
	struct lg_hist hist; /* measured window (intervals added as they end) */
	struct lg_hist live; /* the current interval (sched.c) */
	struct lg_hist lag;  /* open loop: send time - intended time */
	/* Stalls: a request whose time (from its start) overlapped a stall
	 * of this loop is also counted in spanned; one that overlapped such
	 * a stall or a peer gap (docs/guides/runtime.md), in gapped. */
	uint64_t stall_end;     /* TSC: the latest stall of this loop ended */
	uint64_t gap_end;       /* TSC: ... the latest stall or peer gap */
	uint64_t quiet_since;   /* TSC: the last response, or nothing in
				 * flight */
	struct lg_hist spanned; /* measured window, as hist */
	struct lg_hist gapped;
	uint64_t live_next;   /* TSC: end of the current interval */
	uint64_t live_sec;    /* TSC: end of the current second */
	bool live_in;         /* the current interval lies in the window */
	uint64_t live_p99_ns; /* p99 of the last interval */
} __rte_cache_aligned;

struct lg_idle;

struct lg {
	struct lg_conf conf;
	struct lg_idle *idle; /* idle.c */
	struct ewyk_rt *rt;
	uint64_t hz;
	uint64_t ns_mult;   /* TSC cycles to ns: (cycles * ns_mult) >> 32 */
	uint64_t stall_tsc; /* LG_STALL_US in TSC cycles */
	/* Set by shard 0 in its first iteration, then published (started). */
	uint64_t t_start;   /* TSC: the run starts (warm-up) */
	uint64_t t_measure; /* the measured window starts */
	uint64_t t_end;     /* ...and ends */
	uint32_t started;   /* the times above are set (release/acquire) */
	uint32_t nb_done;   /* shards in LG_DONE (atomic) */
	uint64_t timeout_tsc;
	char req[LG_REQ_MAX];
	uint32_t req_len;
	char mreq[LG_REQ_MAX]; /* the --mix-path request */
	uint32_t mreq_len;
	uint32_t mix_threshold; /* of a 32-bit random draw */
	uint16_t nb_lcores;
	struct lg_h2_conf *h2; /* --h2: what every connection shares */
	/* The live line (main lcore only). */
	uint64_t live_at;   /* TSC of the next line */
	uint64_t live_prev; /* TSC of the previous one */
	uint64_t prev_ok, prev_err;
	uint64_t prev_busy[LG_MAX_LCORES], prev_cycles[LG_MAX_LCORES];
	struct lg_lcore lc[LG_MAX_LCORES];
};

/* client.c: the hooks of the client's module (arg: struct lg) */
int lg_shard_init(struct ewyk_rt_shard *sh, void *arg);
void lg_shard_poll(struct ewyk_rt_shard *sh, uint64_t now, void *arg);
void lg_shard_fini(struct ewyk_rt_shard *sh, void *arg);
bool lg_finished(const struct lg *g);
/* The client (client.c, conn.c, sched.c; client.h has what they alone
 * share), for h2_slot.c too. client.c: */
void lg_err(struct lg_lcore *lc, enum lg_err e, uint64_t n);
void slot_refill(struct lg_slot *s);
/* conn.c */
void slot_fail(struct lg_slot *s, enum lg_err e);
void slot_close(struct lg_slot *s);
/* sched.c */
void lg_count_response(struct lg_lcore *lc, uint64_t t0, bool bad);
/* The same for @p n responses started at @p t0 (client.c: a run of a
 * chain's responses). */
void lg_count_responses(struct lg_lcore *lc, uint64_t t0, bool bad, uint32_t n);
/* After the run: the last interval's latencies into the window's. */
void lg_live_flush(struct lg_lcore *lc);

/* h2_slot.c: --h2 on the slots of the client */
int lg_h2_setup(struct lg *g);
void lg_h2_teardown(struct lg *g);
int lg_h2_slots_init(struct lg_lcore *lc);
void lg_h2_slots_fini(struct lg_lcore *lc);
void lg_h2_slot_start(struct lg_slot *s);
void lg_h2_slot_stop(struct lg_slot *s);
void lg_h2_slot_recv(struct lg_slot *s, struct rte_mbuf *m);
void lg_h2_slot_writable(struct lg_slot *s);
/* The end of the loop's receive pass: answer the connections that got
 * input in it (from the poll hook, every iteration). */
void lg_h2_pass_end(struct lg_lcore *lc);
unsigned int lg_h2_slot_send(struct lg_slot *s, unsigned int k, uint64_t t0);
unsigned int lg_h2_slot_room(const struct lg_slot *s);
bool lg_h2_slot_waiting(const struct lg_slot *s);
uint64_t lg_h2_slot_since(const struct lg_slot *s);

/* report.c */
void lg_report_live(struct lg *g, uint64_t now);
/* The JSON line and the summary; -1 when a whole run opened no connection
 * and counted no error: nothing answered (an error line says so). */
int lg_report_final(struct lg *g);
const char *lg_err_name(unsigned int e);

static inline uint32_t
lg_rand(struct lg_lcore *lc)
{
	uint64_t x = lc->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	lc->rng = x;
	return (uint32_t)((x * 0x2545f4914f6cdd1dULL) >> 32);
}

/* TSC cycles to nanoseconds, in integers (no division per response). */
static inline uint64_t
lg_tsc_ns(const struct lg *g, uint64_t cycles)
{
	return (uint64_t)(((unsigned __int128)cycles * g->ns_mult) >> 32);
}

static inline bool
lg_in_window(const struct lg *g, uint64_t t)
{
	return t >= g->t_measure && t < g->t_end;
}

static inline void
lg_stat_add(uint64_t *c, uint64_t v)
{
	ewyk_ctr_add(c, v);
}

static inline uint64_t
lg_stat_get(const uint64_t *c)
{
	return ewyk_ctr_read(c);
}

#endif /* EWYK_LOADGEN_H */
