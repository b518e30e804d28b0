/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_RT_PRIVATE_H
#define EWYK_RT_PRIVATE_H

/*
 * The runtime's own state (not installed). A shard is written by its
 * token holder only; an lcore's entry by its lcore only; the runtime by
 * the main lcore before run and after every lcore returned.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mempool.h>
#include <rte_per_lcore.h>

#include <ewyk_ctr.h>
#include <ewyk_pool.h>

#include "ewyk_runtime.h"

/* --shared-reserved with --reserved 0 (and a strategy that queues). */
/* The runtime's messages: rte_log, log type ewyk.runtime (--log-level
 * ewyk.runtime:LEVEL). Errors keep their "error: " prefix. */
extern int ewyk_rt_logtype;
#define RT_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, ewyk_rt_logtype, fmt "\n", ##__VA_ARGS__)

#define RT_SHARED_DEFAULT 4
/* Delayed operations per shard (every job of every module). */
#define RT_MAX_OPS 8192
/* Inbox slots: one per op; every job reserves its slot when started. */
#define RT_INBOX_SLOTS RT_MAX_OPS
/* Results applied per loop iteration, at most. */
#define RT_INBOX_BURST 64

/* Loop counters of one lcore (who did the work); written by it only. */
/* Buckets of the iteration-length histogram (rt_lcore_stats). */
#define RT_ITER_HIST 16
/* An iteration this long is a stall: a loop's own work on a burst takes
 * tens of microseconds; this is the kernel running something else. */
#define RT_STALL_US 200

struct rt_lcore_stats {
	uint64_t iters;       /* loop iterations (any shard) */
	uint64_t busy_cycles; /* cycles of iterations that had packets */
	uint64_t busy_pkts;   /* packets those iterations took */
	/* Packets by the length of the iteration that took them (from its
	 * poll to the next one: their time in the loop, RX to TX, and any
	 * time the kernel took the core meanwhile): [0] < 1 us, [i] in
	 * [2^(i-1), 2^i) us, the last one longer. */
	uint64_t pkt_iter_us[RT_ITER_HIST];
	uint64_t stalls;       /* iterations of RT_STALL_US or longer */
	uint64_t stall_cycles; /* their cycles */
	uint64_t mode[EWYK_STRATEGY_MODE_MAX]; /* tasks run here, by mode */
};

struct rt_http_shard;
struct rt_metrics;

/* One shard: its network, wheel, TCP, purgatory, HTTP and producer. */
struct ewyk_rt_shard {
	uint16_t id;
	unsigned int home; /* lcore id of its worker */
	int socket;
	struct ewyk_rt *rt;
	struct ewyk_net_shard *net;
	struct rte_mempool *pool; /* mbufs */
	struct ewyk_twheel *wheel;
	struct ewyk_tcp *tcp;
	struct ewyk_purgatory *purg;
	struct ewyk_strategy_producer *producer;
	struct ewyk_http_server *http;
	struct ewyk_http2_server *h2; /* its HTTP/2 connections */
	struct rt_http_shard *hs;     /* dispatch state of HTTP (rt_http.c) */
	uint64_t next_date;           /* TSC of the next Date refresh */
	/* produce() output of the current iteration */
	struct ewyk_strategy_task *out;
	unsigned int out_n, out_max;
	uint64_t now;  /* TSC of the current iteration */
	uint64_t prev; /* ...of the previous one */
	uint16_t prev_n;
	/* lcore id + 1 of the holder that recorded itself in the shard's
	 * net and wheel (0: none since the last departure), and its lcore */
	unsigned int held_by;
	struct rt_lcore *held_lc;
	/* outcomes of dispatched work, written by the holder (and LATE by
	 * any lcore, atomically) */
	uint64_t task[EWYK_RT_TASK_CTR_MAX] __rte_cache_aligned;
} __rte_cache_aligned;

/* One lcore. */
struct rt_lcore {
	unsigned int lcore_id;
	bool reserved; /* holds no shard of its own */
	bool shared;   /* a registered thread, not an EAL lcore */
	int shard;     /* home shard index, -1 if reserved */
	struct ewyk_rt *rt;
	struct rt_lcore_stats ls;
} __rte_cache_aligned;

/* A shared reserved lcore: a thread registered with DPDK. */
struct rt_shared {
	struct ewyk_rt *rt;
	pthread_t tid;
	unsigned int lcore_id; /* from rte_thread_register() */
	uint32_t state;        /* start-up handshake (rt_shared.c) */
	uint32_t go;           /* its lc[] entry is ready */
	int err;               /* rte_errno of a failed registration */
};

/* A route as the router keeps it (rt_http.c). */
struct rt_route {
	struct ewyk_rt_route r;
};

struct rt_metrics_writer {
	ewyk_rt_metrics_fn fn;
	void *arg;
};

struct ewyk_rt {
	struct ewyk_rt_conf conf;
	struct ewyk_net *net;
	struct ewyk_strategy_executor *ex; /* NULL: nothing to hand to */
	struct ewyk_strategy *strategy;
	enum ewyk_strategy_kind kind; /* what runs (pc without executor) */
	uint16_t nb_lcores;
	uint16_t nb_shards; /* = workers */
	uint64_t iter_mul;  /* TSC cycles to us: (c * iter_mul) >> 32 */
	uint64_t stall_cyc; /* RT_STALL_US in TSC cycles */
	uint32_t quit;      /* serve loops leave */
	uint32_t stop;      /* ewyk_rt_stop() was called */
	bool running;       /* ewyk_rt_run() started the lcores */
	bool ran;           /* ...and they all returned */
	int16_t lc_of[RTE_MAX_LCORE]; /* lcore id -> lc[] index, -1 */
	/* modules */
	unsigned int nb_modules;
	struct ewyk_rt_module mod[EWYK_RT_MAX_MODULES];
	/* modules whose init ran; the last of them on last_inited shards
	 * (all of them, but for an init that failed: its fini runs only on
	 * the shards before) */
	unsigned int nb_inited;
	unsigned int last_inited;
	/* the modules with a poll hook, in order: what the loop walks */
	unsigned int nb_polls;
	const struct ewyk_rt_module *polls[EWYK_RT_MAX_MODULES];
	/* HTTP (rt_http.c) */
	bool http; /* ewyk_rt_http_listen() was called */
	uint16_t http_port;
	struct ewyk_http_router *router;
	/* the same routes for HTTP/2: every one's arg is its rt_route */
	struct ewyk_http_router *h2_router;
	unsigned int nb_routes;
	struct rt_route routes[EWYK_RT_MAX_ROUTES];
	/* TCP listeners added before the shards were built */
	/* observability (rt_stats.c, rt_metrics.c) */
	unsigned int nb_metrics;
	struct rt_metrics_writer metrics_w[EWYK_RT_MAX_METRICS];
	struct rt_metrics *metrics; /* GET route snapshots, NULL: none */
	const char *metrics_path;
	pthread_t house; /* signals and the periodic stats table */
	bool house_started;
	struct rt_lcore lc[EWYK_RT_MAX_LCORES];
	struct ewyk_rt_shard sh[EWYK_RT_MAX_LCORES];
	unsigned int nb_shared; /* threads started */
	struct rt_shared shared[EWYK_RT_MAX_SHARED];
};

/* "worker", "reserved" (an EAL lcore) or "shared" (a registered thread). */
static inline const char *
rt_lcore_role(const struct rt_lcore *lc)
{
	return !lc->reserved ? "worker" : lc->shared ? "shared" : "reserved";
}

/* The lcore entry of the calling lcore (NULL if none). */
struct rt_lcore *rt_lcore_self(struct ewyk_rt *rt);

/* The clock of the loops and of jobs: NULL, the TSC; else a unit test's
 * virtual clock (rt_test.h). */
extern uint64_t (*rt_clock_fn)(void);

/* Now, in TSC cycles: one load and a branch taken the same way always. */
static inline uint64_t
rt_now(void)
{
	uint64_t (*fn)(void) = rt_clock_fn;

	return likely(fn == NULL) ? rte_rdtsc() : fn();
}

/* Count an outcome on a shard (holder only). */
static inline void
rt_task_count(struct ewyk_rt_shard *sh, enum ewyk_rt_task_ctr c)
{
	ewyk_ctr_add(&sh->task[c], 1);
}

/* rt.c: every shard's HTTP server, then the modules' init hooks. */
int rt_start_shards(struct ewyk_rt *rt);

/* rt_conf.c: the checks of a configuration (defaults resolved). */
int rt_conf_check(struct ewyk_rt_conf *c);

/* The memory given to the process (ewyk_rt_conf_capacity()'s): with
 * --no-huge, -m; with hugepages, the free ones and those held. */
uint64_t rt_mem_given(void);

/* rt_eal.c: start-up helpers. 0 / object, or -1 / NULL (printed). */
int rt_parse_ulong(const char *s, unsigned long min, unsigned long max,
	unsigned long *out);
int rt_parse_ip_num(const char *s, char sep, unsigned long max, rte_be32_t *ip,
	unsigned long *n);
int rt_lcores(unsigned int *ids, unsigned int max);
struct rte_mempool *rt_pool_create(const char *prefix, unsigned int idx,
	unsigned int nb_mbufs, unsigned int lcore_id, const char *ops);
int rt_wait_link(uint16_t port_id, struct rte_eth_link *link);

/* rt_loop.c */
int rt_lcore_main(void *arg);
int rt_shard_producer_init(struct ewyk_rt *rt, struct ewyk_rt_shard *sh);
/* Yield a task from inside the loop: 0, -EAGAIN (outside), -ENOBUFS. */
int rt_yield(struct ewyk_rt_shard *sh, const struct ewyk_strategy_task *t);
/* The lcore counts a task it runs in @p mode. */
void rt_count_mode(struct ewyk_rt *rt, enum ewyk_strategy_mode mode);

/* rt_shared.c: shared reserved threads, after the executor exists. */
int rt_shared_start(struct ewyk_rt *rt);
void rt_shared_join(struct ewyk_rt *rt);

/* rt_job.c: the shard's purgatory and inbox. */
int rt_jobs_shard_init(struct ewyk_rt_shard *sh);
void rt_jobs_drain(struct ewyk_rt_shard *sh);
void rt_jobs_shard_free(struct ewyk_rt_shard *sh);

/* rt_tcp.c: the shard's wheel and TCP. */
int rt_tcp_shard_init(struct ewyk_rt_shard *sh);
void rt_tcp_shard_free(struct ewyk_rt_shard *sh);
void rt_tcp_stats_dump(struct ewyk_rt *rt, FILE *f);
void rt_tcp_tel_shard(struct rte_tel_data *d, const struct ewyk_rt_shard *sh);

/* What a shard's connections hold of memory (rt_http.c). */
struct rt_conn_mem {
	uint32_t conn_bytes; /* per connection: TCP's and HTTP's, from their
			      * pools' and tables' own sizes */
	uint32_t http_conns, http_idle, http_leases;
	uint64_t http_lease_failures;
	uint64_t http_lease_mem; /* every head lease (fixed) */
};
void rt_conn_mem(const struct ewyk_rt_shard *sh, struct rt_conn_mem *m);
void rt_http_tel_shard(struct rte_tel_data *d, const struct ewyk_rt_shard *sh);

/* rt_http.c */
int rt_http_init(struct ewyk_rt *rt); /* router, before routes */
int rt_http_shard_init(struct ewyk_rt_shard *sh);
void rt_http_shard_poll(struct ewyk_rt_shard *sh, uint64_t now);
void rt_http_shard_depart(struct ewyk_rt_shard *sh);
void rt_http_shard_free(struct ewyk_rt_shard *sh);
void rt_http_fini(struct ewyk_rt *rt);
void rt_http_stats_dump(const struct ewyk_rt *rt, FILE *f);
/* rt_dispatch.c: lib/http's dispatch hook and its state */
int rt_dispatch(void *arg, struct ewyk_http_conn *c,
	const struct ewyk_http_route *route);
int rt_dispatch_shard_init(struct ewyk_rt_shard *sh);
void rt_dispatch_shard_depart(struct ewyk_rt_shard *sh);
void rt_dispatch_shard_free(struct ewyk_rt_shard *sh);

/* rt_stats.c */
int rt_stats_telemetry_init(struct ewyk_rt *rt);
void rt_stats_telemetry_fini(void);

/* rt_metrics.c */
int rt_metrics_start(struct ewyk_rt *rt); /* snapshots, at run */
void rt_metrics_fini(struct ewyk_rt *rt);

#endif /* EWYK_RT_PRIVATE_H */
