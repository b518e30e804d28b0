/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_STRATEGY_H
#define EWYK_STRATEGY_H

/**
 * @file
 * Eat-What-You-Kill execution strategies on DPDK lcores.
 *
 * A *producer* (in ewyk: a shard, i.e. an RX queue and the TCP/HTTP state
 * above it) yields *tasks*. Each task declares an invocation type
 * (NON_BLOCKING, BLOCKING, EITHER). For each task a *strategy* picks one
 * execution mode:
 *
 * - PC  (produce-consume): run the task in place, on the producing lcore.
 * - PIC (produce-invoke-consume): run an EITHER task in place, in
 *   non-blocking mode.
 * - EPC (execute-produce-consume): hand *production* (the producer token)
 *   to an idle reserved lcore, then run the task here with hot caches.
 * - PEC (produce-execute-consume): enqueue the task on the executor's
 *   bounded ring, served by reserved lcores; when the ring is full the task
 *   is rejected (HTTP answers 503).
 *
 * Decision table (ewyk_strategy_decide()):
 *
 * | kind     | NON_BLOCKING | BLOCKING      | EITHER        |
 * |----------|--------------|---------------|---------------|
 * | PC       | PC           | PC            | PC            |
 * | PEC      | PEC          | PEC           | PEC           |
 * | EPC      | EPC, else PC | EPC, else PC  | EPC, else PC  |
 * | ADAPTIVE | PC           | EPC, else PEC | EPC, else PIC |
 *
 * "X, else Y": X when a reserved lcore is idle (claimed atomically by
 * ewyk_strategy_executor_try_execute()), Y when none is.
 *
 * The *executor* owns the reserved lcores (each waits on a padded
 * single-slot mailbox: spin a little, then park on a futex) and the bounded
 * MPMC ring (an rte_ring) for PEC tasks. Any lcore with an lcore id (EAL
 * lcore or rte_thread_register()'ed thread) can serve it.
 *
 * The *producer token* has three states, as Jetty's
 * AdaptiveExecutionStrategy: IDLE (nobody produces), PRODUCING (one lcore
 * produces), REPRODUCING (one lcore produces and was asked, while producing,
 * to produce again before going idle). The token is never held twice and
 * never lost: EPC transfers it, state and all, to the reserved lcore through
 * the mailbox, and a holder only goes IDLE by a CAS from PRODUCING, so a
 * wake-up (ewyk_strategy_producer_run() from another lcore) that lands while it
 * produces is never missed.
 *
 * Threading: every function may be called from any lcore unless its
 * documentation says otherwise. Completion of dispatched work is the
 * business of the layer above (its own completion ring), not of this lib.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** How a task may behave when invoked (Jetty's Invocable.InvocationType). */
enum ewyk_strategy_invocation {
	/** never blocks: safe on the producer */
	EWYK_STRATEGY_INVOKE_NON_BLOCKING = 0,
	/** may block (I/O, sleep, lock waits) */
	EWYK_STRATEGY_INVOKE_BLOCKING = 1,
	/** blocks unless told it runs non-blocking */
	EWYK_STRATEGY_INVOKE_EITHER = 2,
};

/**
 * The mode a task was invoked in; passed to the task function, so a task
 * knows (for chaining) whether it may block.
 */
enum ewyk_strategy_mode {
	/** in place, on the producing lcore */
	EWYK_STRATEGY_MODE_PC = 0,
	/** in place, EITHER task in non-blocking mode */
	EWYK_STRATEGY_MODE_PIC = 1,
	/** here, after production went to a reserved lcore */
	EWYK_STRATEGY_MODE_EPC = 2,
	/** from the bounded ring, on a reserved lcore */
	EWYK_STRATEGY_MODE_PEC = 3,
	/**
	 * not run, refused at dispatch (PEC ring full, executor stopping):
	 * invoked on the lcore that dispatched it, i.e. the token holder
	 * inside a producer loop, which may answer (HTTP: 503)
	 */
	EWYK_STRATEGY_MODE_REJECTED = 4,
	/**
	 * not run, dropped after it was queued (executor freed with the task
	 * on the ring, or its deadline passed while queued): invoked on
	 * whichever lcore found it, which holds no token: release the task's
	 * own resources only, touch no shard state (post to the shard's
	 * inbox instead)
	 */
	EWYK_STRATEGY_MODE_DROPPED = 5,
};

/** Number of values of enum ewyk_strategy_mode. */
#define EWYK_STRATEGY_MODE_MAX 6

/** Strategy kinds. */
enum ewyk_strategy_kind {
	EWYK_STRATEGY_PC = 0,  /**< always produce-consume */
	EWYK_STRATEGY_PEC = 1, /**< always produce-execute-consume */
	EWYK_STRATEGY_EPC = 2, /**< execute-produce-consume when possible */
	EWYK_STRATEGY_ADAPTIVE = 3, /**< the table above, by invocation type */
};

/** Number of values of enum ewyk_strategy_kind. */
#define EWYK_STRATEGY_KIND_MAX 4

/**
 * A task function. Invoked exactly once per task: either run (mode PC, PIC,
 * EPC or PEC) or told it was not run: EWYK_STRATEGY_MODE_REJECTED (on the
 * dispatching lcore: release its resources and, for HTTP, answer 503) or
 * EWYK_STRATEGY_MODE_DROPPED (anywhere: release its own resources only).
 *
 * @param arg
 *   The task's argument.
 * @param mode
 *   How it was invoked. In PC and PIC mode it runs on the producer and must
 *   not block; see ewyk_strategy_mode_may_block().
 */
typedef void (*ewyk_strategy_task_fn)(void *arg, enum ewyk_strategy_mode mode);

/** A task, as yielded by a producer. Copied by value; 32 bytes. */
struct ewyk_strategy_task {
	ewyk_strategy_task_fn fn; /**< function; never NULL */
	void *arg;                /**< its argument */
	uint32_t invocation;      /**< enum ewyk_strategy_invocation */
	uint32_t flags;           /**< free for the producer; 0 if unused */
	/**
	 * TSC (rte_get_tsc_cycles()) after which a task queued on the PEC
	 * ring is no longer started: it is invoked with
	 * EWYK_STRATEGY_MODE_DROPPED instead. 0: no deadline.
	 */
	uint64_t deadline;
};

/**
 * A produce function: yield up to @p max tasks.
 *
 * Called only by the holder of the producer token, so it may touch the
 * producer's (shard's) state without locks. It must not block.
 *
 * @param ctx
 *   The producer's context (ewyk_strategy_producer_conf.ctx).
 * @param tasks
 *   Array of @p max tasks to fill.
 * @param max
 *   Capacity of @p tasks (ewyk_strategy_producer_conf.burst).
 * @return
 *   Number of tasks written (0 when there is nothing to produce now).
 */
typedef unsigned int (*ewyk_strategy_produce_fn)(void *ctx,
	struct ewyk_strategy_task *tasks, unsigned int max);

/** A job for ewyk_strategy_executor_try_execute(). */
typedef void (*ewyk_strategy_job_fn)(void *arg);

/** Opaque executor: reserved lcores and the bounded PEC ring. */
struct ewyk_strategy_executor;
/** Opaque strategy. */
struct ewyk_strategy;
/** Opaque producer (one per shard). */
struct ewyk_strategy_producer;

/** Largest number of lcores that can serve one executor. */
#define EWYK_STRATEGY_EXECUTOR_MAX_LCORES 64

/** Executor configuration; zeroed fields take the defaults. */
struct ewyk_strategy_executor_conf {
	const char *name;   /**< unique, <= 20 chars; names the rte_ring */
	int socket_id;      /**< memory socket; SOCKET_ID_ANY by default */
	uint32_t ring_size; /**< PEC ring capacity, exact; default 1024 */
	/**
	 * spin before parking; default 20 us;
	 * EWYK_STRATEGY_EXECUTOR_SPIN_FOREVER: never park (isolated cores)
	 */
	uint32_t spin_us;
	/**
	 * idle ring-serving lcores that keep spinning when others park
	 * (default 0: every idle lcore parks after spin_us): the reserved set
	 * shrinks to this many warm lcores when idle, as Jetty's idle
	 * time-out shrinks its reserved threads
	 */
	uint32_t spin_keep;
};

/** ewyk_strategy_executor_conf.spin_us: spin forever, never park. */
#define EWYK_STRATEGY_EXECUTOR_SPIN_FOREVER UINT32_MAX

/**
 * Default number of reserved lcores for a process with
 * rte_lcore_count() lcores: one per four lcores, at least 1, at most
 * EWYK_STRATEGY_EXECUTOR_MAX_LCORES. The application launches that many lcores
 * on ewyk_strategy_executor_lcore_main().
 *
 * @return
 *   The default number of reserved lcores.
 */
unsigned int ewyk_strategy_executor_default_reserved(void);

/**
 * Create an executor. No lcore serves it until one calls
 * ewyk_strategy_executor_serve() (or is launched on
 * ewyk_strategy_executor_lcore_main()).
 *
 * @param conf
 *   Configuration; must not be NULL, name must be set.
 * @return
 *   The executor, or NULL with rte_errno set: EINVAL (bad conf), EEXIST
 *   (name in use), ENOMEM.
 */
struct ewyk_strategy_executor *ewyk_strategy_executor_create(
	const struct ewyk_strategy_executor_conf *conf);

/**
 * Free an executor. Every lcore must have left ewyk_strategy_executor_serve().
 * Tasks still on the PEC ring are invoked with EWYK_STRATEGY_MODE_DROPPED on
 * the caller, so no task is ever lost: free it while what those tasks post
 * their results to still exists. Free the strategies using it first (their
 * telemetry reads it). The runtime's order (ewyk_rt_free()): producers,
 * strategy, executor, then the shards' inboxes are applied.
 *
 * @param ex
 *   The executor; NULL is a no-op.
 */
void ewyk_strategy_executor_free(struct ewyk_strategy_executor *ex);

/**
 * Hand a job to an idle reserved lcore, never blocking and never queueing:
 * one lock-free claim of an idle lcore, a store to its mailbox, and a
 * futex wake only if that lcore had parked.
 *
 * @param ex
 *   The executor.
 * @param fn
 *   Job function, run once on the claimed lcore.
 * @param arg
 *   Its argument.
 * @return
 *   0 when handed over; -EBUSY when no reserved lcore is idle (at once);
 *   -ESHUTDOWN when the executor is stopping; -EINVAL on a NULL argument.
 */
int ewyk_strategy_executor_try_execute(struct ewyk_strategy_executor *ex,
	ewyk_strategy_job_fn fn, void *arg);

/**
 * Like ewyk_strategy_executor_try_execute(), but only to lcore @p lcore, if it
 * serves the executor and is idle right now.
 *
 * @param ex
 *   The executor.
 * @param lcore
 *   The lcore id wanted.
 * @param fn
 *   Job function.
 * @param arg
 *   Its argument.
 * @return
 *   0 when handed over; -EBUSY when that lcore is not idle (or never
 *   served); -ESHUTDOWN when stopping; -EINVAL on a bad argument.
 */
int ewyk_strategy_executor_try_execute_on(struct ewyk_strategy_executor *ex,
	unsigned int lcore, ewyk_strategy_job_fn fn, void *arg);

/**
 * Enqueue a task on the bounded PEC ring and wake an idle reserved lcore
 * to run it (mode EWYK_STRATEGY_MODE_PEC). Never blocks.
 *
 * @param ex
 *   The executor.
 * @param task
 *   The task, copied.
 * @return
 *   0 on success; -ENOBUFS when the ring is full (the caller still owns
 *   the task: answer 503); -ESHUTDOWN when stopping; -EINVAL on NULL.
 */
int ewyk_strategy_executor_submit(struct ewyk_strategy_executor *ex,
	const struct ewyk_strategy_task *task);

/**
 * Serve the executor on the calling lcore as a reserved lcore: wait for
 * jobs in this lcore's mailbox (spin, then park on a futex) and run PEC
 * tasks from the ring, until @p quit becomes non-zero or the executor is
 * stopped. A job already handed to this lcore is always run before
 * returning (a production token is never dropped).
 *
 * A worker lcore whose production went to another lcore may call this to
 * "become a reserved lcore" for a while; whoever sets @p quit must then
 * call ewyk_strategy_executor_wake_all().
 *
 * @param ex
 *   The executor.
 * @param quit
 *   Flag read with acquire semantics; NULL to serve until stopped.
 * @return
 *   0 when quit or stopped; -EINVAL if the caller has no lcore id (not an
 *   EAL lcore nor registered); -ENOSPC if more than
 *   EWYK_STRATEGY_EXECUTOR_MAX_LCORES distinct lcores serve; -EBUSY if this
 *   lcore is already serving (nested call).
 */
int ewyk_strategy_executor_serve(struct ewyk_strategy_executor *ex,
	const uint32_t *quit);

/**
 * ewyk_strategy_executor_serve_opt() flag: take mailbox jobs only, no PEC
 * tasks.
 */
#define EWYK_STRATEGY_SERVE_NO_RING 0x1

/**
 * ewyk_strategy_executor_serve_opt() flag: run PEC tasks only, never a
 * mailbox job (no EPC hand-off, no production coming home), and always
 * park after spin_us whatever spin_keep says.
 */
#define EWYK_STRATEGY_SERVE_RING_ONLY 0x2

/**
 * ewyk_strategy_executor_serve() with options. With EWYK_STRATEGY_SERVE_NO_RING
 * the lcore takes mailbox jobs only (production hand-offs: EPC, production
 * coming home) and is never woken for, nor runs, tasks of the PEC ring: the way
 * for a worker lcore to wait for its production to come back without
 * getting stuck in someone's blocking task meanwhile.
 *
 * With EWYK_STRATEGY_SERVE_RING_ONLY the lcore runs queued (PEC) tasks
 * only: a claim for a hand-off (EPC, ewyk_strategy_executor_try_execute(),
 * _try_execute_on()) never picks it, so a producer never moves to it, and
 * it never stays among the spin_keep lcores that keep spinning. It is the
 * reserved lcore for a thread that shares a CPU with a polling worker
 * (an rte_thread_register()'ed thread): it takes a blocking task off the
 * worker and sleeps in a futex otherwise, never polling a shard.
 *
 * @param ex
 *   The executor.
 * @param quit
 *   As for ewyk_strategy_executor_serve().
 * @param flags
 *   0, EWYK_STRATEGY_SERVE_NO_RING or EWYK_STRATEGY_SERVE_RING_ONLY.
 * @return
 *   As ewyk_strategy_executor_serve(); -EINVAL for unknown flags or both
 *   flags.
 */
int ewyk_strategy_executor_serve_opt(struct ewyk_strategy_executor *ex,
	const uint32_t *quit, uint32_t flags);

/**
 * lcore_function_t wrapper for rte_eal_remote_launch(): serve @p arg (an
 * executor) until ewyk_strategy_executor_stop().
 *
 * @param arg
 *   The struct ewyk_strategy_executor.
 * @return
 *   What ewyk_strategy_executor_serve() returned.
 */
int ewyk_strategy_executor_lcore_main(void *arg);

/**
 * Ask every serving lcore to return from ewyk_strategy_executor_serve() once
 * idle.
 * Queued PEC tasks are drained first. Afterwards try_execute and submit
 * fail with -ESHUTDOWN. Does not wait; join launched lcores with
 * rte_eal_wait_lcore().
 *
 * @param ex
 *   The executor.
 * @return
 *   0, or -EINVAL if @p ex is NULL.
 */
int ewyk_strategy_executor_stop(struct ewyk_strategy_executor *ex);

/**
 * Wake every parked serving lcore so that it re-reads its quit flag.
 *
 * @param ex
 *   The executor.
 */
void ewyk_strategy_executor_wake_all(struct ewyk_strategy_executor *ex);

/**
 * Run up to @p max queued PEC tasks on the calling lcore (mode
 * EWYK_STRATEGY_MODE_PEC). For a worker lcore that has nothing else to do.
 *
 * @param ex
 *   The executor.
 * @param max
 *   Most tasks to run.
 * @return
 *   Number of tasks run.
 */
unsigned int
ewyk_strategy_executor_run_queued(struct ewyk_strategy_executor *ex,
	unsigned int max);

/**
 * @param ex
 *   The executor.
 * @return
 *   Number of serving lcores idle right now (a snapshot).
 */
unsigned int ewyk_strategy_executor_idle_count(
	const struct ewyk_strategy_executor *ex);

/**
 * @param ex
 *   The executor.
 * @return
 *   Number of tasks on the PEC ring right now (a snapshot).
 */
unsigned int ewyk_strategy_executor_queued(
	const struct ewyk_strategy_executor *ex);

/** Strategy configuration. */
struct ewyk_strategy_conf {
	const char *name;             /**< unique, <= 20 chars; telemetry key */
	enum ewyk_strategy_kind kind; /**< PC, PEC, EPC or ADAPTIVE */
	struct ewyk_strategy_executor
		*executor; /**< needed by all kinds but PC */
	int socket_id;     /**< memory socket; SOCKET_ID_ANY ok */
};

/**
 * Create a strategy. It is registered by name for telemetry
 * (/ewyk/strategy/stats) and ewyk_strategy_lookup().
 *
 * @param conf
 *   Configuration.
 * @return
 *   The strategy, or NULL with rte_errno set: EINVAL (bad conf, or no
 *   executor for a kind other than PC), EEXIST (name in use), ENOSPC
 *   (512 strategies registered already), ENOMEM.
 */
struct ewyk_strategy *ewyk_strategy_create(
	const struct ewyk_strategy_conf *conf);

/**
 * Free a strategy. Its producers must be freed first.
 *
 * @param s
 *   The strategy; NULL is a no-op.
 */
void ewyk_strategy_free(struct ewyk_strategy *s);

/**
 * Find a strategy by name.
 *
 * @param name
 *   Its name.
 * @return
 *   The strategy, or NULL with rte_errno = ENOENT (or EINVAL for NULL).
 */
struct ewyk_strategy *ewyk_strategy_lookup(const char *name);

/**
 * The decision table, as a pure function.
 *
 * @param kind
 *   Strategy kind.
 * @param invocation
 *   The task's enum ewyk_strategy_invocation.
 * @param reserved_idle
 *   Non-zero if a reserved lcore can be claimed.
 * @return
 *   The mode (EWYK_STRATEGY_MODE_PEC means "enqueue"; it becomes
 *   EWYK_STRATEGY_MODE_REJECTED when the ring is full), or -EINVAL for a bad
 *   kind or invocation.
 */
int ewyk_strategy_decide(enum ewyk_strategy_kind kind, uint32_t invocation,
	int reserved_idle);

/**
 * Execute one task outside a producer loop (no production to hand off):
 * the table with no reserved lcore available, i.e. PC, PIC or PEC. The task
 * is invoked exactly once, as in a producer loop: when the PEC ring is full
 * (or the executor stops) it is invoked here with
 * EWYK_STRATEGY_MODE_REJECTED before this returns.
 *
 * @param s
 *   The strategy.
 * @param task
 *   The task.
 * @return
 *   The enum ewyk_strategy_mode used (>= 0; EWYK_STRATEGY_MODE_REJECTED
 *   when it was refused), or -EINVAL (bad argument: nothing invoked).
 */
int ewyk_strategy_execute(struct ewyk_strategy *s,
	const struct ewyk_strategy_task *task);

/** Counters of one strategy, summed over lcores. */
struct ewyk_strategy_stats {
	/** tasks per enum ewyk_strategy_mode */
	uint64_t mode[EWYK_STRATEGY_MODE_MAX];
	uint64_t handoffs;      /**< production handed to a reserved lcore */
	uint64_t epc_misses;    /**< EPC wanted but no reserved lcore idle */
	uint64_t produce_calls; /**< ewyk_strategy_producer_run() calls */
	uint64_t reproduce; /**< ...that found the token held (REPRODUCING) */
	uint64_t idle;      /**< times a holder released the token */
	uint32_t reserved_total;    /**< lcores that ever served the executor */
	uint32_t reserved_idle;     /**< of them idle now */
	uint32_t reserved_busy;     /**< serving lcores not idle now */
	uint32_t reserved_spinning; /**< idle ring servers spinning now */
	uint32_t ring_count;        /**< tasks on the PEC ring now */
	uint32_t ring_capacity;     /**< PEC ring capacity */
	uint64_t parks;       /**< times a reserved lcore parked (futex) */
	uint64_t wakes;       /**< futex wakes sent to parked lcores */
	uint64_t jobs;        /**< mailbox jobs run by reserved lcores */
	uint64_t pec_run;     /**< PEC tasks run from the ring */
	uint64_t homecomings; /**< production handed back to its home */
	uint64_t pec_expired; /**< queued tasks dropped at their deadline */
	uint64_t pec_delay_n; /**< queueing delays measured */
	uint64_t pec_delay_p50_ns; /**< median PEC queueing delay (+-12%) */
	uint64_t pec_delay_p99_ns; /**< 99th percentile of it (+-12%) */
};

/**
 * Read a strategy's counters (and its executor's gauges).
 *
 * @param s
 *   The strategy.
 * @param st
 *   Filled in.
 * @return
 *   0, or -EINVAL on NULL.
 */
int ewyk_strategy_stats_get(const struct ewyk_strategy *s,
	struct ewyk_strategy_stats *st);

/**
 * @param s
 *   The strategy.
 * @return
 *   Its kind.
 */
enum ewyk_strategy_kind ewyk_strategy_kind_get(const struct ewyk_strategy *s);

/**
 * Name of a strategy kind, as telemetry and command lines spell it.
 *
 * @param kind
 *   An enum ewyk_strategy_kind.
 * @return
 *   "pc", "pec", "epc" or "adaptive"; NULL for a value out of range.
 */
const char *ewyk_strategy_kind_name(unsigned int kind);

/**
 * Name of an invocation mode, as its counter is named in telemetry.
 *
 * @param mode
 *   An enum ewyk_strategy_mode.
 * @return
 *   "pc", "pic", "epc", "pec", "rejected" or "dropped"; NULL for a value
 *   out of range.
 */
const char *ewyk_strategy_mode_name(unsigned int mode);

/** Producer token states. */
enum ewyk_strategy_producer_state {
	EWYK_STRATEGY_PRODUCER_IDLE = 0,        /**< nobody produces */
	EWYK_STRATEGY_PRODUCER_PRODUCING = 1,   /**< one lcore produces */
	EWYK_STRATEGY_PRODUCER_REPRODUCING = 2, /**< ...must produce again */
};

/** Holder keeps polling on empty bursts (an RX queue); see idle_polls. */
#define EWYK_STRATEGY_PRODUCER_POLL_FOREVER UINT32_MAX

/**
 * Producer flag: production has a home lcore (conf.home_lcore, e.g. the
 * worker lcore polling the shard's RX queue). A holder elsewhere (after
 * EPC moved production to a reserved lcore) hands it back home, between
 * two bursts, as soon as the home lcore is idle in the executor.
 */
#define EWYK_STRATEGY_PRODUCER_F_HOME 0x1

/**
 * Producer flag: when the token is released on this lcore (run() returns
 * IDLE or STOPPED), run the tasks queued on the PEC ring before returning
 * (the lcore is free; see ewyk_strategy_producer_run()).
 */
#define EWYK_STRATEGY_PRODUCER_F_SERVE_RING 0x2

/** Why production leaves an lcore (argument of the departure hook). */
enum ewyk_strategy_depart {
	EWYK_STRATEGY_DEPART_HANDOFF = 0, /**< EPC: to a reserved lcore */
	EWYK_STRATEGY_DEPART_HOME = 1,    /**< back to its home lcore */
	EWYK_STRATEGY_DEPART_IDLE = 2,    /**< token released, nothing to do */
	EWYK_STRATEGY_DEPART_STOP = 3,    /**< token released on stop() */
};

/**
 * A departure hook (ewyk_strategy_producer_conf.depart).
 *
 * @param ctx
 *   The producer's context (ewyk_strategy_producer_conf.ctx).
 * @param why
 *   enum ewyk_strategy_depart. For IDLE and STOP the token may still be
 *   kept (a wake-up came meanwhile: REPRODUCING), in which case the holder
 *   produces again on the same lcore.
 */
typedef void (*ewyk_strategy_depart_fn)(void *ctx, uint32_t why);

/** Producer configuration. */
struct ewyk_strategy_producer_conf {
	ewyk_strategy_produce_fn produce; /**< yields tasks; never NULL */
	void *ctx;                        /**< its context */
	uint32_t burst; /**< tasks per produce call; default 32, max 256 */
	/**
	 * Extra consecutive empty bursts the holder polls before it releases
	 * the token (0: release at the first empty burst;
	 * EWYK_STRATEGY_PRODUCER_POLL_FOREVER: release only after
	 * ewyk_strategy_producer_stop(), for polled RX queues that no interrupt
	 * would restart).
	 */
	uint32_t idle_polls;
	uint32_t flags;      /**< EWYK_STRATEGY_PRODUCER_F_* */
	uint32_t home_lcore; /**< with EWYK_STRATEGY_PRODUCER_F_HOME */
	/**
	 * Departure hook, or NULL: called by the token holder, on its lcore,
	 * whenever production is about to leave that lcore, before anyone
	 * else can hold the token: flush TX frames written during the burst,
	 * return what this lcore's caches (lib/pool, the mbuf mempool) hold
	 * of the shard's objects.
	 */
	ewyk_strategy_depart_fn depart;
};

/**
 * Return values of ewyk_strategy_producer_run() and
 * ewyk_strategy_producer_try_run().
 */
enum ewyk_strategy_produce_status {
	/** produced until empty, token released */
	EWYK_STRATEGY_PRODUCE_IDLE = 0,
	/** token held elsewhere (see each fn) */
	EWYK_STRATEGY_PRODUCE_BUSY = 1,
	/** token went to a reserved lcore (EPC) */
	EWYK_STRATEGY_PRODUCE_HANDED_OFF = 2,
	/** released on ewyk_strategy_producer_stop() */
	EWYK_STRATEGY_PRODUCE_STOPPED = 3,
};

/**
 * Create a producer driven by strategy @p s. Its token starts IDLE.
 *
 * @param s
 *   The strategy.
 * @param conf
 *   Configuration.
 * @return
 *   The producer, or NULL with rte_errno = EINVAL or ENOMEM.
 */
struct ewyk_strategy_producer *
ewyk_strategy_producer_create(struct ewyk_strategy *s,
	const struct ewyk_strategy_producer_conf *conf);

/**
 * Free a producer. Its token must be IDLE.
 *
 * @param p
 *   The producer; NULL is a no-op.
 */
void ewyk_strategy_producer_free(struct ewyk_strategy_producer *p);

/**
 * "There may be work": produce on this lcore if nobody does (Jetty's
 * produce()). If the token is IDLE, take it and run the produce loop:
 * produce a burst, dispatch each task by the strategy's table, repeat; on
 * an empty burst (after idle_polls of them) release the token unless it
 * was marked REPRODUCING meanwhile, in which case produce again. If the
 * token is held, mark it REPRODUCING (the holder will produce once more
 * before going idle) and return at once. Never blocks by itself (tasks run
 * in PC/PIC/EPC mode run here, and an EPC task may block: that is its
 * point, production has moved on).
 *
 * When an EPC task returns, its lcore is free: before returning
 * EWYK_STRATEGY_PRODUCE_HANDED_OFF it runs the tasks queued on the PEC ring
 * (mode EWYK_STRATEGY_MODE_PEC), so a queued task starts on the first lcore
 * that becomes free, not only on a reserved lcore that holds no token. With
 * EWYK_STRATEGY_PRODUCER_F_SERVE_RING the same when the token is released
 * (IDLE, STOPPED). Neither is done when called in a non-blocking mode
 * (inside a PC/PIC task or a produce()).
 *
 * @param p
 *   The producer.
 * @return
 *   enum ewyk_strategy_produce_status, or -EINVAL.
 */
int ewyk_strategy_producer_run(struct ewyk_strategy_producer *p);

/**
 * Like ewyk_strategy_producer_run() but only if the token is IDLE; when it is
 * held return EWYK_STRATEGY_PRODUCE_BUSY without marking it (a worker polling
 * for its shard's return must not keep the holder producing forever).
 *
 * @param p
 *   The producer.
 * @return
 *   enum ewyk_strategy_produce_status, or -EINVAL.
 */
int ewyk_strategy_producer_try_run(struct ewyk_strategy_producer *p);

/**
 * Ask the holder of a polling producer to release the token at its next
 * empty burst (ewyk_strategy_producer_run() then returns
 * EWYK_STRATEGY_PRODUCE_STOPPED).
 * Sticky until ewyk_strategy_producer_resume().
 *
 * @param p
 *   The producer.
 * @return
 *   0, or -EINVAL.
 */
int ewyk_strategy_producer_stop(struct ewyk_strategy_producer *p);

/**
 * Clear the stop request of ewyk_strategy_producer_stop().
 *
 * @param p
 *   The producer.
 * @return
 *   0, or -EINVAL.
 */
int ewyk_strategy_producer_resume(struct ewyk_strategy_producer *p);

/**
 * @param p
 *   The producer.
 * @return
 *   Its token state (enum ewyk_strategy_producer_state), a snapshot.
 */
enum ewyk_strategy_producer_state ewyk_strategy_producer_state_get(
	const struct ewyk_strategy_producer *p);

/**
 * Which lcore holds a producer's token (for assertions: only the holder may
 * touch the producer's shard state).
 *
 * @param p
 *   The producer.
 * @return
 *   The holder's lcore id (rte_lcore_id() of the holder, which is
 *   LCORE_ID_ANY for an unregistered thread), or LCORE_ID_ANY when the
 *   token is IDLE or in transit between two lcores; a snapshot, exact when
 *   read by the holder itself.
 */
unsigned int ewyk_strategy_producer_holder(
	const struct ewyk_strategy_producer *p);

/**
 * The mode of the innermost task the strategy is running on the calling
 * lcore (thread), for chaining: a producer run inside a PC or PIC task
 * never hands production off (EPC), it uses PEC or PIC instead.
 *
 * A producer's produce() function runs in EWYK_STRATEGY_MODE_PC (it must
 * not block), so a producer nested in it never hands production off.
 *
 * @return
 *   An enum ewyk_strategy_mode, or -1 when no task (and no produce()) is
 *   running here.
 */
int ewyk_strategy_current_mode(void);

/**
 * Whether a task invoked in @p mode may block (chaining: a nested producer
 * run in PC or PIC mode must itself stay non-blocking).
 *
 * @param mode
 *   The mode the task was invoked in.
 * @return
 *   1 for EPC and PEC, 0 otherwise.
 */
static inline int
ewyk_strategy_mode_may_block(enum ewyk_strategy_mode mode)
{
	return mode == EWYK_STRATEGY_MODE_EPC || mode == EWYK_STRATEGY_MODE_PEC;
}

/**
 * Write the counters of every registered strategy as Prometheus text
 * exposition (format 0.0.4): ewyk_strategy_<name>_total for a counter (the tasks by mode among them), ewyk_strategy_<name> for a gauge, one sample per object labelled
 * name="<its name>". For an HTTP /metrics page.
 *
 * @param buf
 *   Output; may be NULL when @p size is 0, to learn the length needed.
 * @param size
 *   Size of @p buf. The text is NUL-terminated when @p size > 0, and
 *   truncated when it does not fit, as with snprintf().
 * @return
 *   Length of the whole text (without the NUL), fitting or not;
 *   -ENAMETOOLONG, -ENOMEM.
 */
int ewyk_strategy_prometheus(char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* EWYK_STRATEGY_H */
