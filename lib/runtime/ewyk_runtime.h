/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_RUNTIME_H
#define EWYK_RUNTIME_H

/**
 * @file
 * ewyk runtime: what every ewyk application shares, so that it writes
 * only its handlers and options (docs/guides/runtime.md).
 *
 * The runtime owns the lcores and the shards. Every worker lcore is the
 * home of one shard: its network queues (lib/net), its timer wheel
 * (lib/twheel), its TCP (lib/tcp), its purgatory of delayed operations
 * (lib/purgatory), its message inbox, its HTTP server (lib/http) when the
 * application listens for HTTP, and the state of every module. A shard is
 * run as a producer of lib/strategy: one iteration of its loop is
 *
 *   one TSC read -> rx burst, each frame to completion (TCP and HTTP call
 *   the handlers here) -> drain the inbox (results of dispatched work) ->
 *   TCP's clock, then the wheel (TCP timers, deadlines, the application's
 *   timers) -> modules' poll hooks -> flush TX
 *
 * and the work a handler flags BLOCKING is dispatched by the strategy:
 * PC runs it in place; EPC moves production to an idle reserved lcore and
 * runs it here with hot caches (Eat What You Kill); PEC queues it for a
 * reserved lcore. Whoever holds a shard's token (its worker, or a reserved
 * lcore after a hand-off) runs exactly that loop, so every handler and
 * hook of a shard runs on one lcore at a time: the "holder".
 *
 * Lcores. The last --reserved N lcores of the EAL core list are reserved
 * lcores; every other lcore (the main lcore first) is a worker. With
 * --reserved 0 and a strategy that queues (adaptive, pec), the runtime
 * starts --shared-reserved threads that share the workers' CPUs and run
 * queued BLOCKING work only.
 *
 * Life of an application:
 *
 *   ewyk_rt_eal_init()     EAL, with SIGINT/SIGTERM kept off every lcore
 *   ewyk_rt_parse_args()   the standard options and the application's
 *   ewyk_rt_create()       lcores, mbuf pools, ports, strategy, shards
 *   ewyk_rt_http_route(), ewyk_rt_tcp_listen(), ewyk_rt_module_add(), ...
 *   ewyk_rt_run()          until SIGINT/SIGTERM or ewyk_rt_stop()
 *   ewyk_rt_free()         in order: no client is left hanging
 *
 * Threads. Everything before ewyk_rt_run() and after it returns is called
 * on the main lcore. Handlers, hooks and timers run on a shard's holder;
 * a dispatched function (a BLOCKING route, an ewyk_rt_job) runs on
 * whatever lcore the strategy picks and must touch only its arguments.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_byteorder.h>
#include <rte_mempool.h>
#include <rte_telemetry.h>

#include <ewyk_http.h>
#include <ewyk_net.h>
#include <ewyk_purgatory.h>
#include <ewyk_strategy.h>
#include <ewyk_tcp.h>
#include <ewyk_twheel.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Lcores of a runtime, at most (workers, reserved and shared). */
#define EWYK_RT_MAX_LCORES EWYK_NET_MAX_SHARDS
/** Shared reserved lcores (--shared-reserved), at most. */
#define EWYK_RT_MAX_SHARED 16
/** Modules of a runtime, at most. */
#define EWYK_RT_MAX_MODULES 16
/** HTTP routes of a runtime, at most. */
#define EWYK_RT_MAX_ROUTES 64
/** Metrics writers an application may add (ewyk_rt_metrics_add()). */
#define EWYK_RT_MAX_METRICS 16
/** Options an application may add to the standard ones. */
#define EWYK_RT_MAX_APP_OPTS 32

struct ewyk_rt;
struct ewyk_rt_shard;

/* ------------------------------------------------------------------ */
/** @name Configuration */
/**@{*/

/**
 * What ewyk_rt_create() builds. ewyk_rt_conf_init() sets the defaults
 * below; ewyk_rt_parse_args() fills it from the command line.
 */
struct ewyk_rt_conf {
	const char *name; /**< the application's name, in its messages */
	uint16_t nb_ips;  /**< ports: one address each, in port order */
	rte_be32_t ip[EWYK_NET_MAX_PORTS];  /**< --ip A.B.C.D/NN */
	uint8_t prefix[EWYK_NET_MAX_PORTS]; /**< their prefix lengths */
	/** ports with an IPv4 default gateway: the first nb_gws, in port
	 *  order (at most nb_ips) */
	uint16_t nb_gws;
	/** --gw A.B.C.D: the default gateway of a port for destinations off
	 *  its subnet (ewyk_net_port_set_gw()); on the port's subnet */
	rte_be32_t gw[EWYK_NET_MAX_PORTS];
	/** ports with an IPv6 address: the first nb_ip6s, in port order;
	 *  the others speak IPv4 only */
	uint16_t nb_ip6s;
	/** --ip6 ADDR/LEN: a global or unique-local address of a port
	 *  (16 bytes, network order); the port's link-local address is
	 *  made from its MAC (ewyk_net_port_add_ip6()) */
	uint8_t ip6[EWYK_NET_MAX_PORTS][16];
	uint8_t prefix6[EWYK_NET_MAX_PORTS]; /**< their prefix lengths */
	/** ports with an IPv6 default router: the first nb_gw6s, in port
	 *  order (at most nb_ip6s) */
	uint16_t nb_gw6s;
	/** --gw6 ADDR: the default router of a port for off-link IPv6
	 *  destinations (ewyk_net_port_set_gw6()); on-link, not learnt
	 *  from router advertisements */
	uint8_t gw6[EWYK_NET_MAX_PORTS][16];
	unsigned int stats_interval; /**< --stats-interval s; 0: at exit (5) */
	/** where the stats table goes (stdout; NULL: nowhere); the
	 *  runtime's messages go through rte_log, log type ewyk.runtime */
	FILE *stats_out;
	uint16_t mtu;          /**< --mtu; 0: the port's */
	uint16_t vlan;         /**< --vlan; 0: none */
	unsigned int nb_mbufs; /**< --mbufs per shard (16383) */
	char mbuf_ops[RTE_MEMPOOL_OPS_NAMESIZE]; /**< --mbuf-ops; "": DPDK's */
	unsigned int reserved; /**< --reserved N: the last N lcores (0) */
	/** --shared-reserved N; UINT_MAX: 4 with --reserved 0 and a
	 *  strategy that queues, else 0 */
	unsigned int shared_reserved;
	enum ewyk_strategy_kind strategy; /**< --strategy (adaptive) */
	unsigned int task_timeout_ms;     /**< --task-timeout (5000) */
	unsigned int pec_ring;            /**< --pec-ring; 0: 1024 */
	/* TCP limits, per shard (docs/guides/security.md) */
	unsigned int tcp_max_conns; /**< --tcp-max-conns; 0: from memory */
	/** further addresses of every port, after its --ip (lib/net's
	 *  nb_extra_ips; no option: a client's, e.g. ewyk-loadgen's
	 *  --src-addrs); 0: none */
	unsigned int nb_extra_ips;
	unsigned int tcp_max_per_src; /**< --tcp-max-per-src; 0: off */
	unsigned int tcp_mbuf_budget; /**< --tcp-mbuf-budget; 0: half mbufs */
	unsigned int tcp_conn_mbufs;  /**< --tcp-conn-mbufs; 0: budget / 16 */
	unsigned int tcp_idle_ms;     /**< --tcp-idle-ms; 0: never */
	unsigned int tcp_orphan_ms;   /**< --tcp-orphan-ms */
	unsigned int tcp_persist_ms;  /**< --tcp-persist-ms */
	/** TIME_WAIT (2MSL) of connections we close; no option: an
	 *  application that opens many (a client) sets it; 0: lib/tcp's */
	unsigned int tcp_time_wait_ms;
	/** connections in TIME_WAIT at most, beyond closed at once; no
	 *  option; 0: lib/tcp's (half of tcp_max_conns) */
	unsigned int tcp_max_time_wait;
	/* HTTP (when the application listens: ewyk_rt_http_listen()) */
	uint16_t http_port; /**< --port; 0: as the app says */
	/** --listen ADDR: the HTTP listener takes only this local address
	 *  (an --ip or --ip6 of a port, or a port's link-local address);
	 *  0: every address of both families (the default) */
	uint8_t http_listen_family;     /**< 0, 4 or 6 */
	rte_be32_t http_listen_ip;      /**< family 4 */
	uint8_t http_listen_ip6[16];    /**< family 6 */
	uint64_t max_body;              /**< --max-body bytes (1 GiB) */
	unsigned int header_timeout;    /**< --header-timeout s (10) */
	unsigned int keepalive_timeout; /**< --keepalive-timeout s (60) */
	unsigned int body_timeout;      /**< --body-timeout s (30) */
	unsigned int body_min_rate;     /**< --body-min-rate B/s; 0: none */
	unsigned int write_timeout;     /**< --write-timeout s (30) */
	unsigned int http_max_conns;    /**< --http-max-conns; 0: TCP's */
	unsigned int http_max_heads;    /**< --http-max-heads (2048) */
	unsigned int http_max_per_src;  /**< --http-max-per-src; 0: 1/4 */
	unsigned int http_max_heads_per_src; /**< --http-max-heads-per-src */
	/** --h2-body-budget bytes: HTTP/2 request body bytes a shard holds
	 *  with flow control granted, a quarter of them per peer address;
	 *  0: 64 MiB, or four times the largest max_body of a route's fn if
	 *  that is more (lib/http2's body_budget) */
	uint64_t h2_body_budget;
};

/**
 * Set every field of a configuration to its default.
 *
 * @param c     configuration
 * @param name  the application's name (static storage)
 */
void ewyk_rt_conf_init(struct ewyk_rt_conf *c, const char *name);

/** Bytes a connection costs, TCP and HTTP, in ewyk_rt_conf_capacity(). */
#define EWYK_RT_CONN_BYTES 1024u
/** Bytes an mbuf costs (2 KiB of data, the mbuf, the pool's header). */
#define EWYK_RT_MBUF_BYTES 2304u
/** Bytes a head lease costs (scratch, header array, parser), rounded up. */
#define EWYK_RT_LEASE_BYTES 27648u
/** Bounds of ewyk_rt_conf_capacity() and of --tcp-max-conns. */
#define EWYK_RT_MIN_CONNS 1024u
#define EWYK_RT_MAX_CONNS (1u << 20) /**< see EWYK_RT_MIN_CONNS */

/**
 * Connections per shard when --tcp-max-conns is not given (tcp_max_conns
 * 0: ewyk_rt_create() calls this with the memory given to the process:
 * with --no-huge what -m gave, with hugepages those already held plus
 * the free ones of the default size on the EAL's NUMA nodes). A quarter of what the shards' mbufs (nb_mbufs x
 * EWYK_RT_MBUF_BYTES each) and head leases (http_max_heads x
 * EWYK_RT_LEASE_BYTES each) leave of @p mem_bytes, split between the
 * shards, at EWYK_RT_CONN_BYTES a connection, rounded down to a power of
 * two, within [EWYK_RT_MIN_CONNS, EWYK_RT_MAX_CONNS]. The other three
 * quarters are for the rest: wheels, pools' caches, the application.
 *
 * @param c          configuration (nb_mbufs, http_max_heads)
 * @param nb_shards  shards (0 counts as 1)
 * @param mem_bytes  memory given to the process
 * @return
 *   connections per shard
 */
unsigned int ewyk_rt_conf_capacity(const struct ewyk_rt_conf *c,
	unsigned int nb_shards, uint64_t mem_bytes);

/**
 * An option of the application, beside the standard ones. Its parse
 * function prints an "error: --name ..." line and returns -1 for a bad
 * value.
 */
struct ewyk_rt_opt {
	const char *name; /**< long option without "--" */
	int has_arg;      /**< 1: takes a value */
	const char *help; /**< the text of --help after the option's name */
	int (*parse)(const char *val, void *arg); /**< 0, or -1 (printed) */
	void *arg;                                /**< its argument */
};

/**
 * Initialise DPDK's EAL (rte_eal_init()) so that SIGINT and SIGTERM
 * reach no lcore: they are blocked before the EAL threads exist, and
 * ewyk_rt_run() takes them in one thread of its own. A blocking call of a
 * handler (nanosleep, read) is never cut short by Ctrl-C.
 *
 * @param argc  argument count; the EAL's arguments are consumed
 * @param argv  arguments
 * @return 0, or -1 (logged)
 */
int ewyk_rt_eal_init(int *argc, char ***argv);

/**
 * Parse the arguments after the EAL's: the standard options (--ip,
 * --ip6, --reserved, --strategy, --task-timeout, the TCP and HTTP limits,
 * --stats-interval, ...; --help lists them) and the application's. Each
 * bad value gets an "error:" line naming its option. These answers to the
 * command line go to stderr, like any program's; everything else the
 * runtime says goes through rte_log (log type ewyk.runtime).
 *
 * @param c       configuration, initialised by ewyk_rt_conf_init()
 * @param argc    argument count (after ewyk_rt_eal_init())
 * @param argv    arguments
 * @param opts    the application's options (may be NULL)
 * @param nb_opts their number (<= EWYK_RT_MAX_APP_OPTS)
 * @return 0; 1: --help printed (exit 0); -1: an error printed, with the
 *   usage (exit 2)
 */
int ewyk_rt_parse_args(struct ewyk_rt_conf *c, int argc, char **argv,
	const struct ewyk_rt_opt *opts, unsigned int nb_opts);

/**
 * Parse an option's number within bounds, for ewyk_rt_opt parsers.
 *
 * @param name  option name, for the error line
 * @param val   text
 * @param min   smallest value
 * @param max   largest value
 * @param out   the value
 * @return 0, or -1 ("error: --name ..." printed)
 */
int ewyk_rt_opt_ulong(const char *name, const char *val, unsigned long min,
	unsigned long max, unsigned long *out);

/**@}*/
/* ------------------------------------------------------------------ */
/** @name Life */
/**@{*/

/**
 * Build the runtime: lcore roles, one mbuf pool per shard, the network
 * context and every port (one queue pair per shard), the strategy and its
 * executor, shared reserved threads, and every shard's net shard, wheel,
 * TCP, purgatory and inbox. Call after ewyk_rt_eal_init().
 *
 * @param c  configuration (copied)
 * @return the runtime, or NULL (the reason logged; the caller frees
 *   nothing and calls rte_eal_cleanup())
 */
struct ewyk_rt *ewyk_rt_create(const struct ewyk_rt_conf *c);

/**
 * Run: every shard's modules and HTTP server are initialised, the links
 * waited for, peers told our addresses, then every lcore launched; the
 * calling (main) lcore runs its shard. Returns when the runtime stops
 * (ewyk_rt_stop(), SIGINT, SIGTERM) and every lcore has returned.
 *
 * @param rt  runtime
 * @return 0 after a stop; -1 when start-up failed (logged)
 */
int ewyk_rt_run(struct ewyk_rt *rt);

/**
 * Ask the runtime to stop. Async-signal-safe, from any thread.
 *
 * @param rt  runtime
 */
void ewyk_rt_stop(struct ewyk_rt *rt);

/**
 * Whether a stop was asked (a blocking function may give up early).
 *
 * @param rt  runtime
 * @return true once ewyk_rt_stop() was called
 */
bool ewyk_rt_stopping(const struct ewyk_rt *rt);

/**
 * Free the runtime after ewyk_rt_run() returned (or instead of it), in
 * order: shared threads joined; the executor freed (queued work is told
 * DROPPED and answered 504 or reset); results still in the inboxes
 * applied; HTTP servers freed (a request in flight gets its response if
 * it has one, else its connection is reset); modules' fini hooks (in
 * reverse order); TCP (every connection reset), wheels, pools, ports.
 * The last frames are sent before the ports close. Prints the final
 * stats table. NULL is a no-op.
 *
 * @param rt  runtime
 */
void ewyk_rt_free(struct ewyk_rt *rt);

/**@}*/
/* ------------------------------------------------------------------ */
/** @name Shards */
/**@{*/

/** @return the configuration the runtime runs with (defaults resolved) */
const struct ewyk_rt_conf *ewyk_rt_conf_get(const struct ewyk_rt *rt);
/** @return the number of shards (= workers) */
unsigned int ewyk_rt_nb_shards(const struct ewyk_rt *rt);
/** @return shard @p i, or NULL when out of range */
struct ewyk_rt_shard *ewyk_rt_shard(struct ewyk_rt *rt, unsigned int i);

/**
 * The shard whose loop the calling lcore runs now (a handler finds its
 * own), or NULL outside any shard's loop (a reserved lcore running a
 * queued task, the main lcore before run).
 */
struct ewyk_rt_shard *ewyk_rt_shard_current(void);

/** @return the shard's index, 0 .. ewyk_rt_nb_shards() - 1 */
uint16_t ewyk_rt_shard_id(const struct ewyk_rt_shard *sh);
/** @return the runtime of the shard */
struct ewyk_rt *ewyk_rt_shard_rt(const struct ewyk_rt_shard *sh);
/** @return the lcore id of the shard's worker (its home) */
unsigned int ewyk_rt_shard_lcore(const struct ewyk_rt_shard *sh);
/** @return the NUMA socket of the shard's worker */
int ewyk_rt_shard_socket(const struct ewyk_rt_shard *sh);
/** @return the TSC read at the start of the current loop iteration */
uint64_t ewyk_rt_shard_now(const struct ewyk_rt_shard *sh);
/** @return the shard's lib/net shard */
struct ewyk_net_shard *ewyk_rt_shard_net(const struct ewyk_rt_shard *sh);
/** @return the shard's mbuf pool */
struct rte_mempool *ewyk_rt_shard_mbufs(const struct ewyk_rt_shard *sh);
/** @return the shard's TCP */
struct ewyk_tcp *ewyk_rt_shard_tcp(const struct ewyk_rt_shard *sh);
/** @return the shard's timer wheel */
struct ewyk_twheel *ewyk_rt_shard_wheel(const struct ewyk_rt_shard *sh);
/** @return the shard's purgatory of delayed operations */
struct ewyk_purgatory *ewyk_rt_shard_purgatory(const struct ewyk_rt_shard *sh);
/** @return the shard's HTTP server, or NULL without HTTP */
struct ewyk_http_server *ewyk_rt_shard_http(const struct ewyk_rt_shard *sh);

/**@}*/
/* ------------------------------------------------------------------ */
/** @name Modules */
/**@{*/

/**
 * A module: per-shard hooks of an application or of a service, called by
 * the runtime instead of a loop that names features. Every hook may be
 * NULL. A module keeps its per-shard state itself (indexed by
 * ewyk_rt_shard_id()).
 */
struct ewyk_rt_module {
	const char *name; /**< for messages */
	/** Main lcore, in ewyk_rt_run() before the lcores start, in the
	 *  order modules were added; TCP exists, the HTTP server too.
	 *  0, or a negative errno (the run fails). */
	int (*init)(struct ewyk_rt_shard *sh, void *arg);
	/** Holder, every loop iteration, after the wheel. Must not block. */
	void (*poll)(struct ewyk_rt_shard *sh, uint64_t now, void *arg);
	/** Holder, when production leaves this lcore (hand-off, stop):
	 *  give back per-lcore caches of the module's pools. */
	void (*depart)(struct ewyk_rt_shard *sh, void *arg);
	/** Main lcore in ewyk_rt_free(), in reverse order, after the HTTP
	 *  server is freed and before TCP: the module's connections are
	 *  still there (TCP resets them afterwards without callbacks).
	 *  Only on the shards whose init returned 0. */
	void (*fini)(struct ewyk_rt_shard *sh, void *arg);
	/** The housekeeping thread or the main lcore, for the stats table:
	 *  write the module's lines to f (read counters atomically). */
	void (*stats)(struct ewyk_rt *rt, FILE *f, void *arg);
	/** The telemetry thread, for /ewyk/stats: add the module's fields
	 *  to the shard's dictionary (read counters atomically). */
	void (*telemetry)(const struct ewyk_rt_shard *sh,
		struct rte_tel_data *d, void *arg);
	void *arg; /**< the hooks' argument */
};

/**
 * Add a module, before ewyk_rt_run().
 *
 * @param rt  runtime
 * @param m   module (copied)
 * @return 0, -EINVAL, -ENOSPC (EWYK_RT_MAX_MODULES) or -EBUSY (running)
 */
int ewyk_rt_module_add(struct ewyk_rt *rt, const struct ewyk_rt_module *m);

/**@}*/
/* ------------------------------------------------------------------ */
/** @name Dispatched work (jobs) */
/**@{*/

/** How a job ended, as its done() hook is told. */
enum ewyk_rt_outcome {
	EWYK_RT_DONE = 0,  /**< it ran; run()'s return value is given */
	EWYK_RT_TIMED_OUT, /**< its deadline came first; still running */
	EWYK_RT_REFUSED,   /**< the strategy refused it (PEC ring full) */
	EWYK_RT_DROPPED,   /**< not started before its deadline, or stop */
};

struct ewyk_rt_job;

/** What a job does. */
struct ewyk_rt_job_ops {
	/** EWYK_STRATEGY_INVOKE_BLOCKING, _NON_BLOCKING or _EITHER. */
	enum ewyk_strategy_invocation invocation;
	/**
	 * The work, on the lcore the strategy picked. @p mode says how:
	 * PC, EPC, PEC may block; PIC must not. Touches only the job's
	 * object. Its return value goes to done().
	 */
	int (*run)(struct ewyk_rt_job *j, enum ewyk_strategy_mode mode);
	/**
	 * On the holder, exactly once per started job that was not
	 * cancelled. With EWYK_RT_TIMED_OUT, @p j is NULL: the job still
	 * runs and drop() frees it when it ends. Otherwise the caller owns
	 * @p j again.
	 */
	void (*done)(void *ctx, struct ewyk_rt_job *j, enum ewyk_rt_outcome o,
		int ret);
	/** A job whose result nobody takes (late, cancelled): free it. On
	 *  any lcore. */
	void (*drop)(struct ewyk_rt_job *j);
	/** 1: a piece of a request's body, not a request: counted as
	 *  EWYK_RT_TASK_BODY_PIECES when started, never as done, nor in
	 *  the strategy's mode counters (its request's handler job counts
	 *  there). A piece that ends its request (failed, timed out,
	 *  refused, dropped, orphaned) counts that outcome and, then, its
	 *  request's dispatched, which no handler job will count. */
	uint8_t body_piece;
};

/**
 * Embedded in the object a job works on (anywhere in it; container_of
 * finds the object). Its fields are the runtime's.
 */
struct ewyk_rt_job {
	const struct ewyk_rt_job_ops *ops;
	struct ewyk_rt_shard *sh;
	void *ctx;
	struct ewyk_purgatory_ticket ticket;
	uint64_t deadline;
	int32_t ret;
	uint16_t outcome;
	uint16_t orphaned;
};

/**
 * Dispatch a job from a shard's holder, inside its loop (a handler, a
 * TCP callback, a poll hook): a delayed operation with @p deadline is
 * added to the shard's purgatory, an inbox slot reserved, and the job
 * yielded to the strategy. Whatever comes first wins: the result (done()
 * with EWYK_RT_DONE and run()'s value), the deadline (done() with
 * EWYK_RT_TIMED_OUT; the late result is dropped), a refusal or drop by
 * the strategy, or ewyk_rt_job_cancel().
 *
 * @param sh        the shard (the caller holds it)
 * @param j         the job, in the caller's object
 * @param ops       what it does (static storage)
 * @param ctx       the holder's side (a connection), given to done()
 * @param deadline  TSC; 0: now + --task-timeout
 * @return 0; -EAGAIN (outside the loop), -ENOSPC (purgatory or inbox
 *   full) or -ENOBUFS (more jobs in this iteration than the strategy's
 *   burst): nothing was called and the caller still owns @p j
 */
int ewyk_rt_job_start(struct ewyk_rt_shard *sh, struct ewyk_rt_job *j,
	const struct ewyk_rt_job_ops *ops, void *ctx, uint64_t deadline);

/**
 * The job's context went away (its connection closed): done() will not
 * be called; drop() frees the job when it ends. Holder only, and only
 * before done() was called.
 *
 * @param j  a started job
 */
void ewyk_rt_job_cancel(struct ewyk_rt_job *j);

/**
 * The deadline a job started now gets by default (now + --task-timeout).
 *
 * @param sh  shard
 * @return TSC
 */
uint64_t ewyk_rt_task_deadline(const struct ewyk_rt_shard *sh);

/** Outcomes of dispatched work counted per shard. */
enum ewyk_rt_task_ctr {
	EWYK_RT_TASK_DISPATCHED = 0, /**< jobs started */
	EWYK_RT_TASK_DONE,           /**< result applied by the holder */
	EWYK_RT_TASK_TIMED_OUT,      /**< the deadline won */
	EWYK_RT_TASK_REJECTED,       /**< refused (ring full, no slot) */
	EWYK_RT_TASK_DROPPED,        /**< not started before its deadline */
	EWYK_RT_TASK_LATE,           /**< result after the deadline: dropped */
	EWYK_RT_TASK_ORPHANED,       /**< context gone while it ran */
	EWYK_RT_TASK_HEAD_BUSY,      /**< HTTP head too large to copy: 503 */
	EWYK_RT_TASK_FAILED,         /**< run() or the route failed */
	/** request-body pieces handed to a route's body consumer (streamed
	 *  HTTP/2 bodies), in place or as jobs: counted here, not as
	 *  dispatched or done, so that those count requests; a piece that
	 *  fails, times out, is refused or dropped or orphaned ends its
	 *  request: it counts that outcome and the request's dispatched,
	 *  once (its fn never runs) */
	EWYK_RT_TASK_BODY_PIECES,
	EWYK_RT_TASK_CTR_MAX,
};

/** @return the name of an outcome counter ("done"), or NULL */
const char *ewyk_rt_task_ctr_name(unsigned int c);

/** @return an outcome counter of a shard (any lcore) */
uint64_t ewyk_rt_task_count(const struct ewyk_rt_shard *sh,
	enum ewyk_rt_task_ctr c);

/**@}*/
/* ------------------------------------------------------------------ */
/** @name Timers */
/**@{*/

/**
 * Arm an application timer on the shard's wheel (holder only). It fires
 * on the holder, in the loop, once; re-arm from the callback to repeat.
 * The timer object is the caller's (ewyk_twheel_timer_init() first).
 *
 * @param sh        shard
 * @param t         timer
 * @param delay_ms  milliseconds from now
 * @param cb     callback
 * @param arg    its argument
 * @return 0, or a negative errno of ewyk_twheel_arm()
 */
int ewyk_rt_timer_arm(struct ewyk_rt_shard *sh, struct ewyk_twheel_timer *t,
	uint64_t delay_ms, ewyk_twheel_cb_t cb, void *arg);

/**@}*/
/* ------------------------------------------------------------------ */
/** @name TCP */
/**@{*/

/**
 * Listen on a TCP port on every shard with the application's callbacks
 * (lib/tcp's ewyk_tcp_ops; their context argument is @p arg). Before
 * ewyk_rt_run().
 *
 * @param rt    runtime
 * @param port  TCP port
 * @param ops   callbacks (static storage)
 * @param arg   the ops' argument (accept's; NULL: the shard)
 * @return 0, or a negative errno (logged)
 */
int ewyk_rt_tcp_listen(struct ewyk_rt *rt, uint16_t port,
	const struct ewyk_tcp_ops *ops, void *arg);

/**
 * A buffered sender with back-pressure: the bytes of a connection that
 * TCP could not take yet, held as one mbuf chain. Bytes received and put
 * here are reported consumed to TCP (ewyk_tcp_recvd()) only once sent,
 * so a peer that sends faster than it reads sees its window close, not
 * our memory grow.
 */
struct ewyk_rt_sendbuf {
	struct rte_mbuf *pend; /**< waiting to be sent, NULL: none */
};

/**
 * Queue received data (what a recv callback got) to be sent back on the
 * same connection and send what fits. Small segments are copied behind
 * what waits (ewyk_tcp_recv_append()).
 *
 * @param c  connection
 * @param b  its buffer
 * @param m  received data (owned from now on)
 * @return 0, or -ENOBUFS: the connection's chain is full (m freed; the
 *   bytes were acknowledged, so the caller should abort)
 */
int ewyk_rt_sendbuf_put(struct ewyk_tcp_conn *c, struct ewyk_rt_sendbuf *b,
	struct rte_mbuf *m);

/**
 * Send what waits, as far as TCP's send buffer allows (call from the
 * writable callback).
 *
 * @param c  connection
 * @param b  its buffer
 * @return true when nothing waits any more
 */
bool ewyk_rt_sendbuf_flush(struct ewyk_tcp_conn *c, struct ewyk_rt_sendbuf *b);

/**
 * Free what waits (the connection is gone).
 *
 * @param b  buffer
 */
void ewyk_rt_sendbuf_clear(struct ewyk_rt_sendbuf *b);

/**@}*/
/* ------------------------------------------------------------------ */
/** @name HTTP */
/**@{*/

/** Bytes of a dispatched request head kept in the task itself. */
#define EWYK_RT_REQ_BUF 4096
/** Header fields kept in the task itself; more take a large copy. */
#define EWYK_RT_REQ_MAX_HEADERS 32
/** Large head copies of a shard (sized from the server's limits). */
#define EWYK_RT_REQ_LARGE 64
/** Room for the extra field lines of a result. */
#define EWYK_RT_RESULT_EXTRA 256
/** Bytes of a result body kept inside the result. */
#define EWYK_RT_RESULT_INLINE 256
/** Largest body a result may copy; larger: a stream. */
#define EWYK_RT_RESULT_MAX_BODY (1u << 20)
/** Dispatched HTTP requests in flight per shard. */
#define EWYK_RT_HTTP_MAX_TASKS 1024

/** One header field of a dispatched request; NUL-terminated copies. */
struct ewyk_rt_req_header {
	const char *name;  /**< as received */
	const char *value; /**< OWS trimmed */
};

/**
 * A copy of a request, handed to a dispatched handler. Strings are
 * NUL-terminated copies, valid during the call. A head that does not fit
 * the task (EWYK_RT_REQ_BUF, EWYK_RT_REQ_MAX_HEADERS) takes one of the
 * shard's EWYK_RT_REQ_LARGE large copies; with all in use: 503.
 */
struct ewyk_rt_req {
	uint16_t shard;        /**< shard that received it */
	uint8_t method;        /**< enum ewyk_http_method */
	uint8_t head;          /**< 1: HEAD: the body is not sent */
	uint8_t version_minor; /**< 0 or 1 */
	uint16_t nheaders;     /**< fields in hdr[] */
	const char *target;    /**< request-target as received */
	const char *path;      /**< target up to '?' (percent-encoded) */
	uint32_t path_len;     /**< its length */
	const char *query;     /**< after '?', "" when none */
	const char *host;      /**< the request's host ("" when none) */
	struct ewyk_rt_req_header *hdr; /**< fields */
	/** The body the runtime read (the route's max_body), NULL: none.
	 *  For a route with a body consumer: the piece being consumed
	 *  (ewyk_rt_http_body_fn), NULL when @p fn runs. */
	const char *body;
	uint32_t body_len; /**< its bytes */
	/** A route's state for this request, set by its body consumer
	 *  (NULL before), given to @p fn, released by the route's
	 *  state_free when the request ends. */
	void *state;
	/** TSC of the deadline: past it the client has had its 504, so a
	 *  function that waits should wait no longer. */
	uint64_t deadline;
	/** The client, IPv4 or IPv6 (ewyk_http_peer_format() writes it). */
	struct ewyk_http_peer peer;
};

/**
 * Find a field of a request, case-insensitively.
 *
 * @param r     request
 * @param name  field name
 * @return its first value, or NULL
 */
const char *ewyk_rt_req_header(const struct ewyk_rt_req *r, const char *name);

/**
 * A streamed body, produced on the holder whenever TCP can take more.
 * Must not block.
 *
 * @param arg  ewyk_rt_result_stream()'s argument
 * @param buf  where to write
 * @param cap  room (> 0; never more than the bytes still owed)
 * @param off  bytes produced before
 * @return bytes written (> 0); 0: end of a chunked body; a negative errno:
 *   abort the connection
 */
typedef int (
	*ewyk_rt_stream_fn)(void *arg, char *buf, uint32_t cap, uint64_t off);

/** Release a stream's argument; called once, on the holder. */
typedef void (*ewyk_rt_stream_free_fn)(void *arg);

/** What a handler answers: zeroed before the call. */
struct ewyk_rt_result {
	uint16_t status;                  /**< 200..999; 0 means 500 */
	const char *content_type;         /**< static storage, or NULL */
	char extra[EWYK_RT_RESULT_EXTRA]; /**< field lines, each ending CRLF */
	char *body;                       /**< body bytes (inline or heap) */
	uint32_t body_len;                /**< their number */
	ewyk_rt_stream_fn stream;         /**< or a streamed body */
	ewyk_rt_stream_free_fn stream_free; /**< its release (may be NULL) */
	void *stream_arg;                   /**< their argument */
	uint64_t stream_len; /**< body bytes, or EWYK_HTTP_LEN_CHUNKED */
	char inline_body[EWYK_RT_RESULT_INLINE]; /**< small bodies */
};

/** Set status and Content-Type. @return 0, or -EINVAL */
int ewyk_rt_result_status(struct ewyk_rt_result *res, uint16_t status,
	const char *content_type);

/** Append a field line "name: value" (no CR, LF or NUL in either).
 *  @return 0, -ENOSPC (EWYK_RT_RESULT_EXTRA full) or -EINVAL */
int ewyk_rt_result_header(struct ewyk_rt_result *res, const char *name,
	const char *value);

/** Copy a body into the result (inline, or memory of its own).
 *  @return 0, -E2BIG (use a stream) or -ENOMEM */
int ewyk_rt_result_body(struct ewyk_rt_result *res, const void *p,
	uint32_t len);

/** Give the result a streamed body (@p arg is the result's from now on).
 *  @return 0, or -EINVAL */
int ewyk_rt_result_stream(struct ewyk_rt_result *res, uint64_t len,
	ewyk_rt_stream_fn fn, ewyk_rt_stream_free_fn fr, void *arg);

/** Free what a result holds (the runtime does; a handler only to start
 *  over). */
void ewyk_rt_result_release(struct ewyk_rt_result *res);

/**
 * A route's handler: one model wherever it runs. The route's invocation
 * type alone decides where: NON_BLOCKING in place on the holder (PIC);
 * BLOCKING by the strategy (PC in place, EPC here after production moved
 * away, PEC queued for a reserved lcore); EITHER in place without
 * blocking (PIC) or dispatched, as the strategy prefers.
 *
 * @param req   the request (a copy: valid during the call)
 * @param res   the answer to fill
 * @param mode  how it runs: PC, EPC or PEC may block, PIC must not
 * @param arg   the route's argument
 * @return 0 (res filled), or a negative errno (answered 500); any other
 *   value (> 0) is an error too, taken as -EIO
 */
typedef int (*ewyk_rt_http_fn)(const struct ewyk_rt_req *req,
	struct ewyk_rt_result *res, enum ewyk_strategy_mode mode, void *arg);

/**
 * A route's request body consumer: the body piece by piece, in order, as
 * it arrives, before the route's fn runs (one piece at a time, never two
 * at once, each where the route's invocation type says, as fn). HTTP/2
 * streams hand each piece over as soon as its DATA frames are in and
 * reopen the stream's window once the piece is consumed: the handler
 * sees the start of a body before its end is sent, and a stream holds at
 * most one window of body however large the body. HTTP/1.1 requests to
 * an fn route hand the body over gathered, as one piece.
 *
 * @param req   the request: req->body and req->body_len the piece;
 *              req->state is the route's to set (released by the
 *              route's state_free when the request ends)
 * @param mode  how it runs: PC, EPC or PEC may block, PIC must not
 * @param arg   the route's argument
 * @return 0, or a negative errno: the request is answered 500 and the
 *   rest of its body dropped. Any other value (> 0) is an error too,
 *   taken as -EIO, over HTTP/1.1 and HTTP/2 alike
 */
typedef int (*ewyk_rt_http_body_fn)(struct ewyk_rt_req *req,
	enum ewyk_strategy_mode mode, void *arg);

/** Release a request's route state (ewyk_rt_req.state); on any lcore. */
typedef void (*ewyk_rt_http_state_free_fn)(void *state, void *arg);

/**
 * A route. Either @p fn (the runtime's model: a copy of the request and
 * a result, anywhere) or @p raw (lib/http's handler, in place on the
 * holder with the connection itself, zero-copy: for hot routes and for
 * handlers that stream or read the body themselves; NON_BLOCKING or
 * EITHER only).
 */
struct ewyk_rt_route {
	const char *path; /**< path, or prefix when @p prefix */
	int prefix;       /**< 1: every path below @p path (whole segments) */
	uint32_t methods; /**< EWYK_HTTP_M() bits (GET implies HEAD) */
	enum ewyk_strategy_invocation invocation; /**< where fn runs */
	ewyk_rt_http_fn fn;                       /**< the handler, or */
	ewyk_http_handler_t raw;                  /**< the in-place one */
	void *arg;                                /**< their argument */
	/** Request body read for @p fn before it runs, at most (413
	 *  beyond); 0: the body is read and dropped. */
	uint32_t max_body;
	/** Or, with @p max_body, the body handed to this consumer as it
	 *  arrives (streamed over HTTP/2), @p fn running after its end
	 *  with req->body NULL; NULL: the body is gathered for @p fn. */
	ewyk_rt_http_body_fn body;
	/** Releases req->state when the request ends (may be NULL). */
	ewyk_rt_http_state_free_fn state_free;
};

/**
 * Listen for HTTP on @p port on every shard (--port overrides it when
 * given). Before ewyk_rt_run().
 *
 * @param rt    runtime
 * @param port  TCP port
 * @return 0, or a negative errno (logged)
 */
int ewyk_rt_http_listen(struct ewyk_rt *rt, uint16_t port);

/**
 * Add a route, before ewyk_rt_run().
 *
 * @param rt  runtime
 * @param r   route (copied; strings must outlive the runtime)
 * @return 0, or a negative errno (logged)
 */
int ewyk_rt_http_route(struct ewyk_rt *rt, const struct ewyk_rt_route *r);

/**@}*/
/* ------------------------------------------------------------------ */
/** @name Observability */
/**@{*/

/**
 * A writer of Prometheus text (format 0.0.4) for the /metrics page.
 *
 * @param buf   output (may be NULL when size is 0)
 * @param size  its size
 * @param arg   ewyk_rt_metrics_add()'s argument
 * @return the length of the whole text as snprintf() counts it, or a
 *   negative errno
 */
typedef int (*ewyk_rt_metrics_fn)(char *buf, size_t size, void *arg);

/**
 * Add a counter set to the /metrics page (after every lib's and the
 * runtime's), before ewyk_rt_run().
 *
 * @return 0, -EINVAL or -ENOSPC (EWYK_RT_MAX_METRICS)
 */
int ewyk_rt_metrics_add(struct ewyk_rt *rt, ewyk_rt_metrics_fn fn, void *arg);

/**
 * Serve GET @p path (e.g. "/metrics") with every registered counter set:
 * each lib's, the runtime's and the application's. Before ewyk_rt_run().
 *
 * @return 0, or a negative errno (logged)
 */
int ewyk_rt_metrics_route(struct ewyk_rt *rt, const char *path);

/**
 * Write the whole page into buf.
 *
 * @return its length (< size), -ENOSPC when it does not fit, or another
 *   negative errno
 */
int ewyk_rt_metrics_write(const struct ewyk_rt *rt, char *buf, size_t size);

/**
 * Write the per-lcore and per-shard stats table to f now, like DPDK's
 * rte_*_dump() functions. The runtime writes it to the configuration's
 * stats_out every --stats-interval from its housekeeping thread, outside
 * every shard's loop, and at exit.
 *
 * @param rt     runtime
 * @param f      where to write it
 * @param final  true: the totals at exit
 */
void ewyk_rt_stats_dump(struct ewyk_rt *rt, FILE *f, bool final);

/**@}*/

#ifdef __cplusplus
}
#endif

#endif /* EWYK_RUNTIME_H */
