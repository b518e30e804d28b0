/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_STRATEGY_PRIVATE_H
#define EWYK_STRATEGY_PRIVATE_H

/*
 * Private to lib/strategy: object layouts, the log macro, per-lcore counter
 * helpers. Nothing here is part of the API.
 */

#include <stdint.h>

#include <rte_common.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_per_lcore.h>

#include <ewyk_ctr.h>

#include "ewyk_strategy.h"

extern int ewyk_strategy_logtype;

#define STRATEGY_LOG(level, fmt, ...)                                          \
	rte_log(RTE_LOG_##level, ewyk_strategy_logtype, "strategy: " fmt "\n", \
		##__VA_ARGS__)

/* Name prefix of an executor's rte_ring. */
#define EXECUTOR_RING_PREFIX "ewyk_x_"
#define STRATEGY_NAME_MAX 20

/* Mode of the task running on this thread (-1: none); for chaining. */
RTE_DECLARE_PER_LCORE(int, ewyk_strategy_cur_mode);

/* Mailbox word of a serving lcore. */
enum {
	MBOX_EMPTY = 0,  /* nothing yet; owner spins or is about to park */
	MBOX_FULL = 1,   /* fn/arg published (release) for the owner */
	MBOX_PARKED = 2, /* owner sleeps on the futex; a writer must wake it */
};

/*
 * One serving lcore's mailbox. The single slot and its word are written by
 * whoever claimed the lcore (through the idle bitmap) and read by the
 * owner; two cache lines so the adjacent-line prefetcher does not couple it
 * with the owner's counters.
 */
/* What a mailbox carries. */
enum {
	JOB_RUN = 0,   /* call fn(arg) */
	JOB_DRAIN = 1, /* a task was queued: drain the PEC ring */
	JOB_STOP = 2,  /* the executor stops: drain, then leave */
};

struct exec_mbox {
	uint32_t word;           /* MBOX_* */
	uint32_t kind;           /* JOB_*, valid when word == MBOX_FULL */
	ewyk_strategy_job_fn fn; /* job, valid when word == MBOX_FULL */
	void *arg;
	uint8_t pad[2 * RTE_CACHE_LINE_MIN_SIZE - 24];
} __rte_cache_aligned;

/*
 * What the PEC ring holds: the task and when it was queued (TSC), for the
 * queueing delay.
 */
struct exec_item {
	struct ewyk_strategy_task t;
	uint64_t enq_tsc;
};

/*
 * Histogram of PEC queueing delays in ns: 4 sub-buckets per power of two
 * (bucket 4 * msb + the next two bits), so a percentile is read to within
 * +-12%.
 */
#define EXEC_HIST_BUCKETS 256
struct exec_hist {
	uint32_t b[EXEC_HIST_BUCKETS];
};

/* Per serving lcore, written by that lcore only (read by stats). */
struct exec_slot_stats {
	uint64_t jobs;    /* mailbox jobs run */
	uint64_t pec_run; /* ring tasks run */
	uint64_t parks;   /* futex waits entered */
	uint64_t wakes;   /* returned from a park with a job */
	uint64_t expired; /* queued tasks dropped at their deadline */
	/* inside ewyk_strategy_executor_serve() (nesting guard) */
	uint32_t serving;
	uint32_t lcore; /* owner's lcore id */
} __rte_cache_aligned;

struct ewyk_strategy_executor {
	/* Read-mostly. */
	char name[32];
	/* bounded MPMC ring of struct ewyk_strategy_task */
	struct rte_ring *ring;
	uint64_t spin_cycles; /* spin budget; UINT64_MAX: forever */
	uint32_t spin_keep;   /* ring servers that never park */
	uint32_t ring_size;

	/* Contended: claimed with fetch_and, published with fetch_or. */
	uint64_t idle __rte_cache_aligned;
	/* Slots serving with EWYK_STRATEGY_SERVE_NO_RING: never drain. */
	uint64_t no_ring;
	/* Slots serving with EWYK_STRATEGY_SERVE_RING_ONLY: never claimed
	 * for a hand-off. */
	uint64_t ring_only;

	/* Ring servers in the spin phase of their wait. */
	uint32_t spinning __rte_cache_aligned;

	uint32_t stopping __rte_cache_aligned;
	uint32_t nslots;               /* lcores that ever served */
	int8_t slot_of[RTE_MAX_LCORE]; /* lcore id -> slot, -1 none */

	struct exec_mbox mbox[EWYK_STRATEGY_EXECUTOR_MAX_LCORES];
	struct exec_slot_stats sstats[EWYK_STRATEGY_EXECUTOR_MAX_LCORES];
	/* Queueing delays: one per slot, the last one shared (atomic add). */
	struct exec_hist hist[EWYK_STRATEGY_EXECUTOR_MAX_LCORES + 1];
	uint64_t expired_other; /* expired, seen by lcores without a slot */
	uint64_t pec_run_other; /* run by lcores without a slot */
};

/* Counters of one strategy on one lcore (slot RTE_MAX_LCORE: others). */
struct strategy_lcore_stats {
	uint64_t mode[EWYK_STRATEGY_MODE_MAX];
	uint64_t handoffs;
	uint64_t epc_misses;
	uint64_t produce_calls;
	uint64_t reproduce;
	uint64_t idle;
	uint64_t homecomings;
} __rte_cache_aligned;

struct ewyk_strategy {
	char name[32];
	enum ewyk_strategy_kind kind;
	struct ewyk_strategy_executor *ex;
	struct strategy_lcore_stats stats[RTE_MAX_LCORE + 1];
};

struct ewyk_strategy_producer {
	/* Token word: contended by wakers (ewyk_strategy_producer_run()). */
	uint32_t state; /* enum ewyk_strategy_producer_state */
	uint32_t stop;  /* ewyk_strategy_producer_stop() request */

	/* Owned by the token holder; handed over with the token. */
	struct ewyk_strategy *s __rte_cache_aligned;
	ewyk_strategy_produce_fn produce;
	void *ctx;
	uint32_t burst;
	uint32_t idle_polls;
	uint32_t flags;    /* EWYK_STRATEGY_PRODUCER_F_* */
	uint32_t home;     /* home lcore, with EWYK_STRATEGY_PRODUCER_F_HOME */
	uint32_t pos;      /* next task of buf to dispatch */
	uint32_t n;        /* tasks in buf */
	uint32_t empty;    /* consecutive empty bursts */
	uint32_t doorbell; /* PEC tasks enqueued, doorbell not rung */
	uint32_t holder;   /* lcore id of the holder, LCORE_ID_ANY */
	ewyk_strategy_depart_fn depart;
	struct ewyk_strategy_task buf[];
};

/* Bump one counter of the calling lcore; lock-free, single writer. */
static inline struct strategy_lcore_stats *
strategy_stats_here(struct ewyk_strategy *s)
{
	unsigned int l = rte_lcore_id();

	return &s->stats[l < RTE_MAX_LCORE ? l : RTE_MAX_LCORE];
}

static inline void
strategy_count(struct ewyk_strategy *s, uint64_t *field)
{
	if (rte_lcore_id() < RTE_MAX_LCORE)
		ewyk_ctr_add(field, 1);
	else
		__atomic_fetch_add(field, 1, __ATOMIC_RELAXED);
	RTE_SET_USED(s);
}

#define STRATEGY_COUNT(s, f) strategy_count((s), &strategy_stats_here(s)->f)

/* Invoke a task in @mode, tracking the current mode for chaining. */
static inline void
strategy_invoke(const struct ewyk_strategy_task *t,
	enum ewyk_strategy_mode mode)
{
	int prev = RTE_PER_LCORE(ewyk_strategy_cur_mode);

	RTE_PER_LCORE(ewyk_strategy_cur_mode) = (int)mode;
	t->fn(t->arg, mode);
	RTE_PER_LCORE(ewyk_strategy_cur_mode) = prev;
}

/* Whether this thread runs inside a task that must not block. */
static inline int
strategy_in_nonblocking(void)
{
	int m = RTE_PER_LCORE(ewyk_strategy_cur_mode);

	return m == EWYK_STRATEGY_MODE_PC || m == EWYK_STRATEGY_MODE_PIC ||
		m == EWYK_STRATEGY_MODE_REJECTED ||
		m == EWYK_STRATEGY_MODE_DROPPED;
}

/*
 * PEC submission in two halves, so that a producer rings the doorbell
 * (wakes a reserved lcore: maybe a futex syscall) once per burst, after
 * the burst's in-place tasks, not in the middle of them. Every enqueue
 * must be followed by a doorbell on the same thread (lost wake-up).
 */
int executor_enqueue(struct ewyk_strategy_executor *ex,
	const struct ewyk_strategy_task *task);
void executor_doorbell(struct ewyk_strategy_executor *ex);

/*
 * try_execute(_on) in two halves, so that a producer runs its departure
 * hook after it is sure to hand off and before the new holder can start:
 * claim an idle lcore (any, or @lcore), then give it the job. A claimed
 * slot must be given a job.
 */
int executor_claim(struct ewyk_strategy_executor *ex);
int executor_claim_on(struct ewyk_strategy_executor *ex, unsigned int lcore);
void executor_give_job(struct ewyk_strategy_executor *ex, int slot,
	ewyk_strategy_job_fn fn, void *arg);

/*
 * Run queued PEC tasks on the calling lcore (any lcore: counted in its slot
 * if it has one) until the ring is empty or @max ran; the number run.
 */
unsigned int executor_drain_here(struct ewyk_strategy_executor *ex,
	unsigned int max);

/* Executor internals used by the strategy's stats. */
void executor_stats_add(const struct ewyk_strategy_executor *ex,
	struct ewyk_strategy_stats *st);

/* strategy.c: the registry of lib/common and its telemetry */
int strategy_register(struct ewyk_strategy *s);
void strategy_unregister(struct ewyk_strategy *s);
struct ewyk_strategy *strategy_lookup(const char *name);

#endif /* EWYK_STRATEGY_PRIVATE_H */
