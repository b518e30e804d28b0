/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_HTTPD_H
#define EWYK_HTTPD_H

/*
 * ewyk-httpd: shared state of the application.
 *
 * Lcores are workers or reserved lcores (--reserved N: the last N of the
 * EAL core list). Each worker is the home of one shard; the shard is run
 * as an ewyk_strategy producer whose produce() is one iteration of the
 * loop (loop.c), so whoever holds the shard's token (its worker, or a
 * reserved lcore after an EPC hand-off) runs exactly the same loop.
 * httpd_shard is written by the token holder only; httpd_lcore by its
 * lcore only.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mempool.h>

#include <ewyk_ctr.h>
#include <ewyk_net.h>
#include <ewyk_pool.h>
#include <ewyk_purgatory.h>
#include <ewyk_strategy.h>
#include <ewyk_tcp.h>
#include <ewyk_twheel.h>

#define HTTPD_MAX_LCORES EWYK_NET_MAX_SHARDS
/* Shared reserved lcores (--shared-reserved), at most. */
#define HTTPD_MAX_SHARED 16
/* --shared-reserved with --reserved 0 (and a strategy other than pc). */
#define HTTPD_SHARED_DEFAULT 4

/* Task outcomes counted per shard, beside the strategy's modes. */
enum httpd_task_ctr {
	HTTPD_TASK_DISPATCHED = 0, /* tasks yielded to the strategy */
	HTTPD_TASK_DONE,           /* result applied by the holder */
	HTTPD_TASK_TIMED_OUT,      /* deadline won: connection reset */
	HTTPD_TASK_REJECTED,       /* PEC ring full / no inbox slot: reset */
	HTTPD_TASK_DROPPED,        /* not started before its deadline */
	HTTPD_TASK_LATE,           /* result came after the deadline: dropped */
	HTTPD_TASK_ORPHANED,       /* connection closed while the task ran */
	HTTPD_TASK_HEAD_BUSY, /* head over HTTPD_REQ_BUF, no large copy: 503 */
	HTTPD_TASK_FAILED,    /* the route's function failed: 500 */
	HTTPD_TASK_CTR_MAX,
};

/* Loop counters of one lcore (who did the work); written by it only. */
struct httpd_lcore_stats {
	uint64_t iters;       /* loop iterations (any shard) */
	uint64_t busy_cycles; /* cycles of iterations that had packets */
	uint64_t busy_pkts;   /* packets those iterations took */
	uint64_t mode[EWYK_STRATEGY_MODE_MAX]; /* tasks run here, by mode */
};

struct httpd;
struct httpd_shard;
struct ewyk_http_server;
struct ewyk_http_router;
struct httpd_metrics;
struct static_root;

/*
 * A message in a shard's inbox (ewyk_net_inbox_complete()'s result): the
 * holder calls apply. Whatever a task posts begins with this header, so
 * one inbox serves every kind of task (tasks.c).
 */
struct httpd_msg {
	void (*apply)(struct httpd_shard *sh, struct httpd_msg *m);
};

/* A route's code as the router keeps it (http_app.h says how it runs). */
struct httpd_route_desc {
	void (*fn)(void); /* httpd_blocking_fn or ewyk_http_handler_t */
	void *arg;
	uint8_t blocking; /* 1: fn is an httpd_blocking_fn */
};

/* One shard: its network, TCP, wheel, purgatory and producer. */
struct httpd_shard {
	uint16_t id;
	unsigned int home; /* lcore id of its worker */
	struct httpd *app;
	struct ewyk_net_shard *shard;
	struct rte_mempool *pool;    /* mbufs */
	struct ewyk_tcp *tcp;        /* TCP of the shard (tcp_services.c) */
	struct ewyk_twheel *wheel;   /* one wheel: TCP timers, deadlines */
	struct ewyk_purgatory *purg; /* dispatched tasks (slow_echo.c) */
	struct ewyk_pool *conns;     /* service connections */
	struct ewyk_pool *tasks;     /* slow-echo task objects */
	struct ewyk_strategy_producer *producer;
	/* HTTP (http_server.c): the server and its pools. */
	struct ewyk_http_server *http;
	struct ewyk_pool *http_tasks;  /* dispatched requests */
	struct http_waits *http_waits; /* their holder-side records */
	struct ewyk_pool *echo_st;     /* POST /echo buffers */
	struct ewyk_pool *sha_st;      /* POST /sha256 buffers and digests */
	/* per-source shares of those (ewyk_http_quota) */
	struct ewyk_http_quota *q_tasks, *q_heads, *q_echo, *q_sha;
	uint64_t next_date; /* TSC of the next Date refresh */
	/* produce() output of the current iteration. */
	struct ewyk_strategy_task *out;
	unsigned int out_n, out_max;
	uint64_t now;  /* TSC of the current iteration */
	uint64_t prev; /* ...of the previous one */
	uint16_t prev_n;
	/* Counters, written by the holder. */
	uint64_t task[HTTPD_TASK_CTR_MAX] __rte_cache_aligned;
} __rte_cache_aligned;

/* One lcore. */
struct httpd_lcore {
	unsigned int lcore_id;
	bool reserved; /* holds no shard of its own */
	bool shared;   /* a registered thread (shared_lcores.c), not EAL */
	int shard;     /* home shard index, -1 if reserved */
	struct httpd *app;
	struct httpd_shard *cur; /* shard whose loop runs here now */
	struct httpd_lcore_stats ls;
} __rte_cache_aligned;

struct httpd_conf {
	uint16_t nb_ips;
	rte_be32_t ip[EWYK_NET_MAX_PORTS];
	uint8_t prefix[EWYK_NET_MAX_PORTS];
	unsigned int stats_interval; /* seconds; 0: only at exit */
	uint16_t mtu;
	uint16_t vlan;
	unsigned int nb_mbufs; /* per shard */
	char mbuf_ops
		[RTE_MEMPOOL_OPS_NAMESIZE]; /* --mbuf-ops; "": DPDK's choice */
	uint16_t echo_port;      /* --echo-port; 0: off (tcp_services.c) */
	uint16_t discard_port;   /* --discard-port; 0: off */
	uint16_t slow_echo_port; /* --slow-echo-port; 0: off */
	unsigned int slow_ms;    /* --slow-ms: how long a task blocks */
	unsigned int reserved;   /* --reserved N */
	/* --shared-reserved N; UINT_MAX: the default (shared_lcores.c) */
	unsigned int shared_reserved;
	enum ewyk_strategy_kind strategy; /* --strategy */
	unsigned int task_timeout_ms;     /* --task-timeout */
	/* TCP limits (docs/guides/security.md; tcp_services.c passes them
	 * to lib/tcp) */
	unsigned int tcp_max_conns;   /* --tcp-max-conns, per shard */
	unsigned int tcp_max_per_src; /* --tcp-max-per-src; 0: off */
	unsigned int tcp_mbuf_budget; /* --tcp-mbuf-budget; 0: half --mbufs */
	unsigned int tcp_conn_mbufs;  /* --tcp-conn-mbufs; 0: budget / 16 */
	unsigned int tcp_idle_ms;     /* --tcp-idle-ms; 0: off */
	unsigned int tcp_orphan_ms;   /* --tcp-orphan-ms */
	unsigned int tcp_persist_ms;  /* --tcp-persist-ms */
	unsigned int pec_ring; /* --pec-ring: PEC ring capacity; 0: 1024 */
	/* HTTP (http_server.c) */
	uint16_t http_port;             /* --port; 0: no HTTP */
	uint64_t max_body;              /* --max-body bytes */
	unsigned int header_timeout;    /* --header-timeout s */
	unsigned int keepalive_timeout; /* --keepalive-timeout s */
	unsigned int body_timeout;      /* --body-timeout s */
	unsigned int body_min_rate;     /* --body-min-rate B/s; 0: none */
	unsigned int write_timeout;     /* --write-timeout s */
	/* HTTP limits, per shard (lib/http's http_slots.c) */
	unsigned int
		http_max_conns; /* --http-max-conns; default tcp_max_conns */
	unsigned int http_max_heads;         /* --http-max-heads: head leases */
	unsigned int http_max_per_src;       /* --http-max-per-src */
	unsigned int http_max_heads_per_src; /* --http-max-heads-per-src */
	const char *root; /* --root DIR (static_files.c); NULL: none */
};

/* A shared reserved lcore: a thread registered with DPDK. */
struct httpd_shared {
	struct httpd *h;
	pthread_t tid;
	unsigned int lcore_id; /* from rte_thread_register() */
	uint32_t state;        /* start-up handshake (shared_lcores.c) */
	uint32_t go;           /* its h->lc[] entry is ready */
	int err;               /* rte_errno of a failed registration */
};

struct httpd {
	struct httpd_conf conf;
	struct ewyk_net *net;
	struct ewyk_strategy_executor *ex; /* NULL with --reserved 0 */
	struct ewyk_strategy *strategy;
	uint16_t nb_lcores;
	uint16_t nb_shards;              /* = workers */
	uint32_t quit;                   /* serve loops leave */
	uint64_t next_stats;             /* TSC; main lcore only */
	int16_t lc_of[RTE_MAX_LCORE];    /* lcore id -> lc[] index, -1 */
	struct ewyk_http_router *router; /* shared by every shard */
	unsigned int nb_routes;
	struct httpd_route_desc routes[64]; /* HTTPD_MAX_ROUTES */
	struct httpd_metrics *metrics;      /* GET /metrics (metrics.c) */
	struct static_root *static_root;    /* --root (static_files.c) */
	struct httpd_lcore lc[HTTPD_MAX_LCORES];
	struct httpd_shard sh[HTTPD_MAX_LCORES];
	unsigned int nb_shared; /* threads started */
	struct httpd_shared shared[HTTPD_MAX_SHARED];
};

/* "worker", "reserved" (an EAL lcore) or "shared" (a registered thread). */
static inline const char *
httpd_lcore_role(const struct httpd_lcore *lc)
{
	return !lc->reserved ? "worker" : lc->shared ? "shared" : "reserved";
}

/* The lcore entry of the calling lcore (NULL if none). */
struct httpd_lcore *httpd_lcore_self(struct httpd *h);

/* The shard whose loop the calling lcore runs (handlers find theirs). */
static inline struct httpd_shard *
httpd_shard_current(struct httpd *h)
{
	struct httpd_lcore *lc = httpd_lcore_self(h);

	return lc != NULL ? lc->cur : NULL;
}

/* loop.c */
int httpd_lcore_main(void *arg);
void httpd_request_stop(void);
bool httpd_stopping(void);
int httpd_shard_producer_init(struct httpd *h, struct httpd_shard *sh);
/* Yield a task from inside the loop (a service's receive handler). */
int httpd_yield_task(struct httpd_shard *sh,
	const struct ewyk_strategy_task *t);

/* shared_lcores.c: --shared-reserved threads, after the executor exists;
 * 0 or -1 (printed). Join them once the lcores stopped (sets quit). */
int httpd_shared_start(struct httpd *h);
void httpd_shared_join(struct httpd *h);

/* tasks.c: the shard's purgatory and inbox, shared by every service. */
int httpd_tasks_shard_init(struct httpd_shard *sh);
void httpd_tasks_shard_free(struct httpd_shard *sh);
/* Deadline of a task dispatched now (--task-timeout). */
uint64_t httpd_task_deadline(const struct httpd_shard *sh);

/* stats.c */
void httpd_stats_print(struct httpd *h, bool final);
int httpd_stats_telemetry_init(struct httpd *h);
void httpd_stats_telemetry_fini(void);
/* Name of an enum httpd_task_ctr ("done", ...), NULL when out of range. */
const char *httpd_task_ctr_name(unsigned int c);

/* Count a task outcome on a shard (holder only). */
static inline void
httpd_task_count(struct httpd_shard *sh, enum httpd_task_ctr c)
{
	ewyk_ctr_add(&sh->task[c], 1);
}

#endif /* EWYK_HTTPD_H */
