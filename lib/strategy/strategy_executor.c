/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reserved-lcore executor: serving lcores, each with a padded
 * single-slot mailbox, an idle bitmap through which try_execute claims one
 * lock-free, spin-then-park on a futex, and the bounded PEC ring.
 *
 * Races and how they are closed (Jetty's ReservedThreadExecutor and
 * AdaptiveExecutionStrategy document the same shapes):
 *
 * - Two claimers, one idle lcore: the claim is a fetch_and on the bitmap;
 *   only the caller that saw the bit set owns the lcore's mailbox.
 * - An idle lcore leaving by itself (work on the ring, quit, stop) races a
 *   claimer: it clears its own bit with the same fetch_and; if the bit was
 *   already gone, a job is on its way and it waits for it and runs it.
 * - Lost wake-up, park side: the owner turns EMPTY into PARKED with a CAS
 *   before futex_wait(PARKED); the claimer exchanges the word to FULL and
 *   wakes only if it read PARKED; futex_wait re-checks the word atomically.
 * - Lost wake-up, ring side (a task enqueued just as every serving lcore
 *   goes idle): the submitter enqueues, fences, then looks for an idle bit;
 *   an lcore publishes its idle bit, fences, then looks at the ring. With
 *   both fences sequentially consistent one of them sees the other.
 * - Quit/stop while spinning or parking: the flag is set (seq_cst) before
 *   parked lcores are kicked (PARKED -> EMPTY + wake), and an lcore
 *   re-reads the flags after announcing PARKED, before it sleeps.
 */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "strategy_private.h"

#define EXEC_DEFAULT_RING 1024
#define EXEC_DEFAULT_SPIN_US 20
#define EXEC_DRAIN_BURST 8

static void
exec_futex_wait(uint32_t *addr, uint32_t val)
{
	syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void
exec_futex_wake(uint32_t *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

unsigned int
ewyk_strategy_executor_default_reserved(void)
{
	unsigned int n = rte_lcore_count() / 4;

	if (n < 1)
		n = 1;
	if (n > EWYK_STRATEGY_EXECUTOR_MAX_LCORES)
		n = EWYK_STRATEGY_EXECUTOR_MAX_LCORES;
	return n;
}

struct ewyk_strategy_executor *
ewyk_strategy_executor_create(const struct ewyk_strategy_executor_conf *conf)
{
	struct ewyk_strategy_executor *ex;
	char rname[RTE_RING_NAMESIZE];
	uint32_t size;
	int socket;
	unsigned int i;

	if (conf == NULL || conf->name == NULL || conf->name[0] == '\0' ||
		strlen(conf->name) > STRATEGY_NAME_MAX) {
		rte_errno = EINVAL;
		return NULL;
	}
	size = conf->ring_size != 0 ? conf->ring_size : EXEC_DEFAULT_RING;
	if (size > RTE_RING_SZ_MASK) {
		rte_errno = EINVAL;
		return NULL;
	}
	socket = conf->socket_id;
	snprintf(rname, sizeof(rname), EXECUTOR_RING_PREFIX "%.*s",
		STRATEGY_NAME_MAX, conf->name);
	if (rte_ring_lookup(rname) != NULL) {
		rte_errno = EEXIST;
		return NULL;
	}

	ex = rte_zmalloc_socket("ewyk_strategy_executor", sizeof(*ex),
		RTE_CACHE_LINE_SIZE, socket);
	if (ex == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	snprintf(ex->name, sizeof(ex->name), "%.*s", STRATEGY_NAME_MAX,
		conf->name);
	/*
	 * Multi-producer, multi-consumer, exact capacity for back-pressure,
	 * and relaxed tail sync (RTS): with the classic MP/MC sync a thread
	 * that moved the head and was preempted before its tail update makes
	 * every other producer (consumer) spin until it runs again, and
	 * reserved lcores may well share a CPU (oversubscription,
	 * rte_thread_register()'ed threads). RTS never waits for another
	 * thread to finish its copy.
	 */
	ex->ring = rte_ring_create_elem(rname, sizeof(struct exec_item), size,
		socket,
		RING_F_EXACT_SZ | RING_F_MP_RTS_ENQ | RING_F_MC_RTS_DEQ);
	if (ex->ring == NULL) {
		int err = rte_errno;

		rte_free(ex);
		rte_errno = err != 0 ? err : ENOMEM;
		return NULL;
	}
	ex->ring_size = size;
	if (conf->spin_us == EWYK_STRATEGY_EXECUTOR_SPIN_FOREVER)
		ex->spin_cycles = UINT64_MAX;
	else
		ex->spin_cycles = (conf->spin_us != 0 ? conf->spin_us :
							EXEC_DEFAULT_SPIN_US) *
			(rte_get_tsc_hz() / 1000000);
	ex->spin_keep = conf->spin_keep;
	for (i = 0; i < RTE_MAX_LCORE; i++)
		ex->slot_of[i] = -1;
	STRATEGY_LOG(DEBUG, "executor %s: ring %u, spin %" PRIu64 " cycles",
		ex->name, size, ex->spin_cycles);
	return ex;
}

void
ewyk_strategy_executor_free(struct ewyk_strategy_executor *ex)
{
	struct exec_item it;

	if (ex == NULL)
		return;
	/* Whatever is left was never run: tell its owner (exactly once). */
	while (rte_ring_dequeue_elem(ex->ring, &it, sizeof(it)) == 0)
		strategy_invoke(&it.t, EWYK_STRATEGY_MODE_DROPPED);
	rte_ring_free(ex->ring);
	rte_free(ex);
}

/*
 * Claim one idle serving lcore; its slot, or -1 if none is idle. Prefer
 * one still spinning (mailbox not PARKED): it was idled most recently, so
 * it answers in nanoseconds and its caches are warm (Jetty's reserved
 * threads are a stack for the same reason); a parked one costs a futex
 * wake-up.
 */
static int
exec_claim(struct ewyk_strategy_executor *ex, uint64_t exclude)
{
	uint64_t mask = __atomic_load_n(&ex->idle, __ATOMIC_RELAXED) & ~exclude;
	uint64_t spin = 0, m, bit, old;
	unsigned int i;

	for (m = mask; m != 0; m &= m - 1) {
		i = (unsigned int)__builtin_ctzll(m);
		if (__atomic_load_n(&ex->mbox[i].word, __ATOMIC_RELAXED) !=
			MBOX_PARKED)
			spin |= UINT64_C(1) << i;
	}
	while (mask != 0) {
		m = (mask & spin) != 0 ? (mask & spin) : mask;
		i = (unsigned int)__builtin_ctzll(m);
		bit = UINT64_C(1) << i;
		old = __atomic_fetch_and(&ex->idle, ~bit, __ATOMIC_ACQ_REL);
		if (old & bit)
			return (int)i;
		mask = old & ~bit & ~exclude;
	}
	return -1;
}

/* Publish a job in a claimed lcore's mailbox and wake it if parked. */
static void
exec_give(struct ewyk_strategy_executor *ex, int slot, uint32_t kind,
	ewyk_strategy_job_fn fn, void *arg)
{
	struct exec_mbox *mb = &ex->mbox[slot];

	mb->kind = kind;
	mb->fn = fn;
	mb->arg = arg;
	if (__atomic_exchange_n(&mb->word, MBOX_FULL, __ATOMIC_ACQ_REL) ==
		MBOX_PARKED)
		exec_futex_wake(&mb->word);
}

int
executor_claim(struct ewyk_strategy_executor *ex)
{
	int slot;

	if (__atomic_load_n(&ex->stopping, __ATOMIC_ACQUIRE))
		return -ESHUTDOWN;
	slot = exec_claim(ex, /* ring-only lcores never take a hand-off */
		__atomic_load_n(&ex->ring_only, __ATOMIC_RELAXED));
	return slot >= 0 ? slot : -EBUSY;
}

int
executor_claim_on(struct ewyk_strategy_executor *ex, unsigned int lcore)
{
	uint64_t bit, old;
	int slot;

	if (__atomic_load_n(&ex->stopping, __ATOMIC_ACQUIRE))
		return -ESHUTDOWN;
	slot = __atomic_load_n(&ex->slot_of[lcore], __ATOMIC_RELAXED);
	if (slot < 0)
		return -EBUSY;
	bit = UINT64_C(1) << slot;
	if ((__atomic_load_n(&ex->idle, __ATOMIC_RELAXED) & bit) == 0 ||
		(__atomic_load_n(&ex->ring_only, __ATOMIC_RELAXED) & bit) != 0)
		return -EBUSY;
	old = __atomic_fetch_and(&ex->idle, ~bit, __ATOMIC_ACQ_REL);
	if ((old & bit) == 0)
		return -EBUSY;
	return slot;
}

void
executor_give_job(struct ewyk_strategy_executor *ex, int slot,
	ewyk_strategy_job_fn fn, void *arg)
{
	exec_give(ex, slot, JOB_RUN, fn, arg);
}

int
ewyk_strategy_executor_try_execute(struct ewyk_strategy_executor *ex,
	ewyk_strategy_job_fn fn, void *arg)
{
	int slot;

	if (ex == NULL || fn == NULL)
		return -EINVAL;
	slot = executor_claim(ex);
	if (slot < 0)
		return slot;
	exec_give(ex, slot, JOB_RUN, fn, arg);
	return 0;
}

int
ewyk_strategy_executor_try_execute_on(struct ewyk_strategy_executor *ex,
	unsigned int lcore, ewyk_strategy_job_fn fn, void *arg)
{
	int slot;

	if (ex == NULL || fn == NULL || lcore >= RTE_MAX_LCORE)
		return -EINVAL;
	slot = executor_claim_on(ex, lcore);
	if (slot < 0)
		return slot;
	exec_give(ex, slot, JOB_RUN, fn, arg);
	return 0;
}

int
executor_enqueue(struct ewyk_strategy_executor *ex,
	const struct ewyk_strategy_task *task)
{
	struct exec_item it;

	if (__atomic_load_n(&ex->stopping, __ATOMIC_ACQUIRE))
		return -ESHUTDOWN;
	it.t = *task;
	it.enq_tsc = rte_get_tsc_cycles();
	if (rte_ring_enqueue_elem(ex->ring, &it, sizeof(it)) != 0)
		return -ENOBUFS;
	return 0;
}

void
executor_doorbell(struct ewyk_strategy_executor *ex)
{
	int slot;

	/* Pairs with the fence after an lcore publishes its idle bit. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&ex->idle, __ATOMIC_RELAXED) != 0) {
		slot = exec_claim(ex,
			__atomic_load_n(&ex->no_ring, __ATOMIC_RELAXED));
		if (slot >= 0)
			exec_give(ex, slot, JOB_DRAIN, NULL, NULL);
	}
}

int
ewyk_strategy_executor_submit(struct ewyk_strategy_executor *ex,
	const struct ewyk_strategy_task *task)
{
	int ret;

	if (ex == NULL || task == NULL || task->fn == NULL)
		return -EINVAL;
	ret = executor_enqueue(ex, task);
	if (ret == 0)
		executor_doorbell(ex);
	return ret;
}

/* Bucket of a delay of @ns nanoseconds (see struct exec_hist). */
static unsigned int
exec_hist_bucket(uint64_t ns)
{
	unsigned int msb;

	if (ns < 4)
		return (unsigned int)ns;
	msb = 63 - (unsigned int)__builtin_clzll(ns);
	return msb * 4 + (unsigned int)((ns >> (msb - 2)) & 3);
}

/* Upper bound (ns) of bucket @b. */
static uint64_t
exec_hist_upper(unsigned int b)
{
	unsigned int msb = b / 4;

	if (b < 4)
		return b + 1;
	return ((uint64_t)(4 + b % 4 + 1)) << (msb - 2);
}

/*
 * Run queued PEC tasks until the ring is empty or @max ran. @slot: the
 * caller's executor slot, or -1 (counted in the shared histogram).
 * A task whose deadline passed while it waited is not started: it is told
 * DROPPED (whoever runs this holds no token).
 */
static unsigned int
exec_drain(struct ewyk_strategy_executor *ex, unsigned int max, int slot)
{
	struct exec_slot_stats *ss = slot >= 0 ? &ex->sstats[slot] : NULL;
	struct exec_hist *h =
		&ex->hist[slot >= 0 ? slot : EWYK_STRATEGY_EXECUTOR_MAX_LCORES];
	uint64_t hz_ns = rte_get_tsc_hz() / 1000000;
	struct exec_item it[EXEC_DRAIN_BURST];
	unsigned int done = 0, ran = 0;
	unsigned int n, i, b;
	uint64_t now, ns;

	if (hz_ns == 0)
		hz_ns = 1;
	while (done < max) {
		n = RTE_MIN((unsigned int)EXEC_DRAIN_BURST, max - done);
		n = rte_ring_dequeue_burst_elem(ex->ring, it, sizeof(it[0]), n,
			NULL);
		if (n == 0)
			break;
		for (i = 0; i < n; i++) {
			now = rte_get_tsc_cycles();
			if (it[i].t.deadline != 0 && now > it[i].t.deadline) {
				if (ss != NULL)
					ewyk_ctr_add(&ss->expired, 1);
				else
					__atomic_fetch_add(&ex->expired_other,
						1, __ATOMIC_RELAXED);
				strategy_invoke(&it[i].t,
					EWYK_STRATEGY_MODE_DROPPED);
				continue;
			}
			ns = now > it[i].enq_tsc ?
				(now - it[i].enq_tsc) * 1000 / hz_ns :
				0;
			b = exec_hist_bucket(ns);
			if (b >= EXEC_HIST_BUCKETS)
				b = EXEC_HIST_BUCKETS - 1;
			if (ss != NULL)
				__atomic_store_n(&h->b[b], h->b[b] + 1,
					__ATOMIC_RELAXED);
			else
				__atomic_fetch_add(&h->b[b], 1,
					__ATOMIC_RELAXED);
			strategy_invoke(&it[i].t, EWYK_STRATEGY_MODE_PEC);
			ran++;
		}
		done += n;
	}
	if (ss != NULL && ran != 0)
		ewyk_ctr_add(&ss->pec_run, ran);
	else if (ran != 0)
		__atomic_fetch_add(&ex->pec_run_other, ran, __ATOMIC_RELAXED);
	return done;
}

unsigned int
executor_drain_here(struct ewyk_strategy_executor *ex, unsigned int max)
{
	unsigned int lc = rte_lcore_id();
	int slot = -1;

	if (lc < RTE_MAX_LCORE)
		slot = __atomic_load_n(&ex->slot_of[lc], __ATOMIC_RELAXED);
	/* A slot's counters have one writer: the lcore that owns the slot. */
	return exec_drain(ex, max, slot);
}

unsigned int
ewyk_strategy_executor_run_queued(struct ewyk_strategy_executor *ex,
	unsigned int max)
{
	if (ex == NULL)
		return 0;
	return executor_drain_here(ex, max);
}

static int
exec_should_leave(struct ewyk_strategy_executor *ex, const uint32_t *quit)
{
	if (__atomic_load_n(&ex->stopping, __ATOMIC_ACQUIRE))
		return 1;
	return quit != NULL && __atomic_load_n(quit, __ATOMIC_ACQUIRE) != 0;
}

/*
 * Wait for the mailbox to fill: spin for the budget, then park. Returns 1
 * with a job, 0 when kicked (or the leave condition holds) without one.
 * @claimed: this lcore was claimed, a job is certainly coming: ignore the
 * leave condition (but still return 0 when kicked).
 */
/* End of a spin phase starting now (UINT64_MAX: spin forever). */
static uint64_t
exec_spin_end(const struct ewyk_strategy_executor *ex)
{
	if (ex->spin_cycles == UINT64_MAX)
		return UINT64_MAX;
	return rte_get_tsc_cycles() + ex->spin_cycles;
}

static void
exec_spin_done(struct ewyk_strategy_executor *ex, int ring)
{
	if (ring)
		__atomic_fetch_sub(&ex->spinning, 1, __ATOMIC_RELAXED);
}

/*
 * Leave the spinning set if more than spin_keep ring servers spin: 1 (the
 * caller parks), or 0 (it keeps spinning: the set never shrinks below
 * spin_keep, so a hand-off finds a warm lcore without a futex wake-up).
 */
static int
exec_may_park(struct ewyk_strategy_executor *ex)
{
	uint32_t n = __atomic_load_n(&ex->spinning, __ATOMIC_RELAXED);

	do {
		if (n <= ex->spin_keep)
			return 0;
	} while (!__atomic_compare_exchange_n(&ex->spinning, &n, n - 1, 0,
		__ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return 1;
}

/* Wait for a job. @p ring: counted in the spinning set (spin_keep). */
static int
exec_wait_job(struct ewyk_strategy_executor *ex, int slot, const uint32_t *quit,
	int claimed, int ring)
{
	struct exec_mbox *mb = &ex->mbox[slot];
	struct exec_slot_stats *ss = &ex->sstats[slot];
	uint64_t end = exec_spin_end(ex);
	uint32_t w;
	int parked = 0;

	if (ring)
		__atomic_fetch_add(&ex->spinning, 1, __ATOMIC_RELAXED);
	for (;;) {
		if (__atomic_load_n(&mb->word, __ATOMIC_ACQUIRE) == MBOX_FULL) {
			exec_spin_done(ex, ring);
			return 1;
		}
		if (!claimed && exec_should_leave(ex, quit)) {
			exec_spin_done(ex, ring);
			return 0;
		}
		if (rte_get_tsc_cycles() >= end) {
			/* The last spin_keep ring servers do not park. */
			if (!ring || exec_may_park(ex))
				break;
			end = exec_spin_end(ex);
		}
		rte_pause();
	}
	for (;;) {
		w = MBOX_EMPTY;
		if (!__atomic_compare_exchange_n(&mb->word, &w, MBOX_PARKED, 0,
			    __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE)) {
			if (w == MBOX_FULL)
				goto got;
			/* w == PARKED cannot be: only we set it. */
		}
		if (!claimed && exec_should_leave(ex, quit)) {
			w = MBOX_PARKED;
			if (__atomic_compare_exchange_n(&mb->word, &w,
				    MBOX_EMPTY, 0, __ATOMIC_ACQ_REL,
				    __ATOMIC_ACQUIRE))
				return 0;
			goto got; /* became FULL, or a kick made it EMPTY */
		}
		ewyk_ctr_add(&ss->parks, 1);
		parked = 1;
		do {
			exec_futex_wait(&mb->word, MBOX_PARKED);
			w = __atomic_load_n(&mb->word, __ATOMIC_ACQUIRE);
		} while (w == MBOX_PARKED);
		if (w == MBOX_FULL)
			goto got;
		return 0; /* kicked: the caller re-reads its flags */
	}
got:
	w = __atomic_load_n(&mb->word, __ATOMIC_ACQUIRE);
	if (w != MBOX_FULL)
		return 0;
	if (parked)
		ewyk_ctr_add(&ss->wakes, 1);
	return 1;
}

/* Slot of the calling lcore, allocated on first use; <0 is -errno. */
static int
exec_slot_get(struct ewyk_strategy_executor *ex)
{
	unsigned int lc = rte_lcore_id();
	uint32_t n;
	int slot;

	if (lc >= RTE_MAX_LCORE)
		return -EINVAL;
	slot = __atomic_load_n(&ex->slot_of[lc], __ATOMIC_RELAXED);
	if (slot >= 0)
		return slot;
	n = __atomic_load_n(&ex->nslots, __ATOMIC_RELAXED);
	do {
		if (n >= EWYK_STRATEGY_EXECUTOR_MAX_LCORES)
			return -ENOSPC;
	} while (!__atomic_compare_exchange_n(&ex->nslots, &n, n + 1, 0,
		__ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
	ex->sstats[n].lcore = lc;
	__atomic_store_n(&ex->slot_of[lc], (int8_t)n, __ATOMIC_RELEASE);
	return (int)n;
}

int
ewyk_strategy_executor_serve(struct ewyk_strategy_executor *ex,
	const uint32_t *quit)
{
	return ewyk_strategy_executor_serve_opt(ex, quit, 0);
}

int
ewyk_strategy_executor_serve_opt(struct ewyk_strategy_executor *ex,
	const uint32_t *quit, uint32_t flags)
{
	struct exec_mbox *mb;
	struct exec_slot_stats *ss;
	uint64_t bit;
	ewyk_strategy_job_fn fn;
	void *arg;
	uint32_t kind;
	int claimed;
	int ring;
	int keep;
	int slot;

	if (ex == NULL ||
		(flags &
			~(uint32_t)(EWYK_STRATEGY_SERVE_NO_RING |
				EWYK_STRATEGY_SERVE_RING_ONLY)) != 0 ||
		((flags & EWYK_STRATEGY_SERVE_NO_RING) != 0 &&
			(flags & EWYK_STRATEGY_SERVE_RING_ONLY) != 0))
		return -EINVAL;
	slot = exec_slot_get(ex);
	if (slot < 0)
		return slot;
	mb = &ex->mbox[slot];
	ss = &ex->sstats[slot];
	if (ss->serving)
		return -EBUSY;
	ss->serving = 1;
	bit = UINT64_C(1) << slot;
	ring = (flags & EWYK_STRATEGY_SERVE_NO_RING) == 0;
	/* Before our idle bit can be seen: submitters must skip us. */
	if (ring)
		__atomic_fetch_and(&ex->no_ring, ~bit, __ATOMIC_SEQ_CST);
	else
		__atomic_fetch_or(&ex->no_ring, bit, __ATOMIC_SEQ_CST);
	/* Before our idle bit can be seen: claims for a hand-off skip us. */
	if ((flags & EWYK_STRATEGY_SERVE_RING_ONLY) != 0)
		__atomic_fetch_or(&ex->ring_only, bit, __ATOMIC_SEQ_CST);
	else
		__atomic_fetch_and(&ex->ring_only, ~bit, __ATOMIC_SEQ_CST);
	keep = ring && (flags & EWYK_STRATEGY_SERVE_RING_ONLY) == 0;

	for (;;) {
		/* Busy: run what is queued, then leave or go idle. */
		if (ring)
			exec_drain(ex, UINT_MAX, slot);
		if (exec_should_leave(ex, quit))
			break;

		__atomic_store_n(&mb->word, MBOX_EMPTY, __ATOMIC_RELAXED);
		__atomic_fetch_or(&ex->idle, bit, __ATOMIC_SEQ_CST);
		/* Pairs with the fence in ewyk_strategy_executor_submit(). */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		claimed = 0;
		for (;;) {
			if (!claimed &&
				((ring && rte_ring_count(ex->ring) != 0) ||
					exec_should_leave(ex, quit))) {
				uint64_t old = __atomic_fetch_and(&ex->idle,
					~bit, __ATOMIC_ACQ_REL);

				if (old & bit)
					break; /* un-idled ourselves */
				/* Claimed meanwhile: a job is coming. */
				claimed = 1;
			}
			if (exec_wait_job(ex, slot, quit, claimed, keep))
				break;
		}
		if (__atomic_load_n(&mb->word, __ATOMIC_ACQUIRE) != MBOX_FULL)
			continue; /* left idle by ourselves */

		kind = mb->kind;
		fn = mb->fn;
		arg = mb->arg;
		__atomic_store_n(&mb->word, MBOX_EMPTY, __ATOMIC_RELAXED);
		if (kind == JOB_STOP) {
			if (ring)
				exec_drain(ex, UINT_MAX, slot);
			break;
		}
		if (kind == JOB_DRAIN && !ring) {
			/*
			 * A submitter read the no-ring mask before we set our
			 * bit: pass the wake-up on to a ring server (if none
			 * is idle, all are busy and will see the ring).
			 */
			int other = exec_claim(ex,
				__atomic_load_n(&ex->no_ring,
					__ATOMIC_ACQUIRE));

			if (other >= 0)
				exec_give(ex, other, JOB_DRAIN, NULL, NULL);
		}
		if (kind == JOB_RUN) {
			ewyk_ctr_add(&ss->jobs, 1);
			fn(arg);
		}
	}
	ss->serving = 0;
	return 0;
}

int
ewyk_strategy_executor_lcore_main(void *arg)
{
	return ewyk_strategy_executor_serve(arg, NULL);
}

void
ewyk_strategy_executor_wake_all(struct ewyk_strategy_executor *ex)
{
	uint32_t n, i, w;

	if (ex == NULL)
		return;
	/* The flag the caller changed is ordered before our reads. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	n = __atomic_load_n(&ex->nslots, __ATOMIC_ACQUIRE);
	for (i = 0; i < n; i++) {
		w = MBOX_PARKED;
		if (__atomic_compare_exchange_n(&ex->mbox[i].word, &w,
			    MBOX_EMPTY, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
			exec_futex_wake(&ex->mbox[i].word);
	}
}

int
ewyk_strategy_executor_stop(struct ewyk_strategy_executor *ex)
{
	int slot;

	if (ex == NULL)
		return -EINVAL;
	__atomic_store_n(&ex->stopping, 1, __ATOMIC_SEQ_CST);
	/* Idle lcores get a stop job; busy ones see the flag when done. */
	while ((slot = exec_claim(ex, 0)) >= 0)
		exec_give(ex, slot, JOB_STOP, NULL, NULL);
	ewyk_strategy_executor_wake_all(ex);
	return 0;
}

unsigned int
ewyk_strategy_executor_idle_count(const struct ewyk_strategy_executor *ex)
{
	if (ex == NULL)
		return 0;
	return (unsigned int)__builtin_popcountll(
		__atomic_load_n(&ex->idle, __ATOMIC_RELAXED));
}

unsigned int
ewyk_strategy_executor_queued(const struct ewyk_strategy_executor *ex)
{
	if (ex == NULL)
		return 0;
	return rte_ring_count(ex->ring);
}

/* Expired count and delay percentiles, summed over every histogram. */
static void
exec_hist_stats(const struct ewyk_strategy_executor *ex,
	struct ewyk_strategy_stats *st)
{
	uint64_t sum[EXEC_HIST_BUCKETS] = { 0 };
	uint64_t n = 0, acc = 0, p50 = 0, p99 = 0;
	unsigned int i, b;

	for (i = 0; i <= EWYK_STRATEGY_EXECUTOR_MAX_LCORES; i++)
		for (b = 0; b < EXEC_HIST_BUCKETS; b++)
			sum[b] += __atomic_load_n(&ex->hist[i].b[b],
				__ATOMIC_RELAXED);
	for (b = 0; b < EXEC_HIST_BUCKETS; b++)
		n += sum[b];
	for (b = 0; b < EXEC_HIST_BUCKETS && n != 0; b++) {
		acc += sum[b];
		if (p50 == 0 && acc * 2 >= n)
			p50 = exec_hist_upper(b);
		if (acc * 100 >= n * 99) {
			p99 = exec_hist_upper(b);
			break;
		}
	}
	st->pec_run += __atomic_load_n(&ex->pec_run_other, __ATOMIC_RELAXED);
	st->pec_delay_n = n;
	st->pec_delay_p50_ns = p50;
	st->pec_delay_p99_ns = p99;
	st->pec_expired += __atomic_load_n(&ex->expired_other,
		__ATOMIC_RELAXED);
	st->mode[EWYK_STRATEGY_MODE_DROPPED] = st->pec_expired;
}

void
executor_stats_add(const struct ewyk_strategy_executor *ex,
	struct ewyk_strategy_stats *st)
{
	uint32_t n, i, idle;

	if (ex == NULL)
		return;
	n = __atomic_load_n(&ex->nslots, __ATOMIC_ACQUIRE);
	idle = ewyk_strategy_executor_idle_count(ex);
	st->reserved_total = n;
	st->reserved_idle = idle;
	st->reserved_busy = 0;
	for (i = 0; i < n; i++) {
		const struct exec_slot_stats *ss = &ex->sstats[i];

		if (__atomic_load_n(&ss->serving, __ATOMIC_RELAXED))
			st->reserved_busy++;
		st->parks += __atomic_load_n(&ss->parks, __ATOMIC_RELAXED);
		st->wakes += __atomic_load_n(&ss->wakes, __ATOMIC_RELAXED);
		st->jobs += __atomic_load_n(&ss->jobs, __ATOMIC_RELAXED);
		st->pec_run += __atomic_load_n(&ss->pec_run, __ATOMIC_RELAXED);
		st->pec_expired += __atomic_load_n(&ss->expired,
			__ATOMIC_RELAXED);
	}
	st->reserved_busy = st->reserved_busy > idle ?
		st->reserved_busy - idle :
		0;
	exec_hist_stats(ex, st);
	st->reserved_spinning = __atomic_load_n(&ex->spinning,
		__ATOMIC_RELAXED);
	st->ring_count = rte_ring_count(ex->ring);
	st->ring_capacity = ex->ring_size;
}
