/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The producer token and the produce loop.
 *
 * Token states, as Jetty's AdaptiveExecutionStrategy:
 *   IDLE --run()--> PRODUCING --run() elsewhere--> REPRODUCING
 *   PRODUCING --empty burst--> IDLE            (CAS: loses to a run())
 *   REPRODUCING --empty burst--> PRODUCING     (produce once more)
 *
 * Unlike Jetty, EPC does not release the token and let a "pending"
 * producer race for it: the holder *transfers* it, state word untouched,
 * with the rest of its burst, through the claimed reserved lcore's mailbox
 * (release/acquire). So the token is never IDLE while tasks of a burst are
 * still undispatched (no stranding), and never has two holders.
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "strategy_private.h"

#define PRODUCER_DEFAULT_BURST 32
#define PRODUCER_MAX_BURST 256
#define PRODUCER_POLL_FOREVER EWYK_STRATEGY_PRODUCER_POLL_FOREVER

static int producer_loop(struct ewyk_strategy_producer *p);
static void producer_serve_ring(struct ewyk_strategy *s);

struct ewyk_strategy_producer *
ewyk_strategy_producer_create(struct ewyk_strategy *s,
	const struct ewyk_strategy_producer_conf *conf)
{
	struct ewyk_strategy_producer *p;
	uint32_t burst;

	if (s == NULL || conf == NULL || conf->produce == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	burst = conf->burst != 0 ? conf->burst : PRODUCER_DEFAULT_BURST;
	if (burst > PRODUCER_MAX_BURST ||
		(conf->flags &
			~(uint32_t)(EWYK_STRATEGY_PRODUCER_F_HOME |
				EWYK_STRATEGY_PRODUCER_F_SERVE_RING)) != 0 ||
		((conf->flags & EWYK_STRATEGY_PRODUCER_F_HOME) &&
			(conf->home_lcore >= RTE_MAX_LCORE || s->ex == NULL))) {
		rte_errno = EINVAL;
		return NULL;
	}
	p = rte_zmalloc("ewyk_strategy_producer",
		sizeof(*p) + burst * sizeof(struct ewyk_strategy_task),
		RTE_CACHE_LINE_SIZE);
	if (p == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	p->state = EWYK_STRATEGY_PRODUCER_IDLE;
	p->s = s;
	p->produce = conf->produce;
	p->ctx = conf->ctx;
	p->burst = burst;
	p->idle_polls = conf->idle_polls;
	p->flags = conf->flags;
	p->home = conf->home_lcore;
	p->depart = conf->depart;
	p->holder = LCORE_ID_ANY;
	return p;
}

void
ewyk_strategy_producer_free(struct ewyk_strategy_producer *p)
{
	if (p == NULL)
		return;
	if (__atomic_load_n(&p->state, __ATOMIC_ACQUIRE) !=
		EWYK_STRATEGY_PRODUCER_IDLE)
		STRATEGY_LOG(ERR, "producer freed while its token is held");
	rte_free(p);
}

/*
 * Call produce() in a non-blocking mode: whatever a nested strategy finds
 * in there (a connection yielding pipelined requests, HTTP/2 streams) must
 * not hand production off nor block on the holder (chaining,
 * docs/guides/strategy.md). Inside an outer task the outer mode stays if it
 * is stricter.
 */
static uint32_t
producer_produce(struct ewyk_strategy_producer *p)
{
	int prev = RTE_PER_LCORE(ewyk_strategy_cur_mode);
	uint32_t n;

	if (!strategy_in_nonblocking())
		RTE_PER_LCORE(ewyk_strategy_cur_mode) = EWYK_STRATEGY_MODE_PC;
	n = p->produce(p->ctx, p->buf, p->burst);
	RTE_PER_LCORE(ewyk_strategy_cur_mode) = prev;
	return n;
}

/* Continuation run on the reserved lcore that received the token. */
static void
producer_job(void *arg)
{
	struct ewyk_strategy_producer *p = arg;

	__atomic_store_n(&p->holder, rte_lcore_id(), __ATOMIC_RELAXED);
	producer_loop(p);
}

/* The departure hook, then the token is "in transit": no holder. */
static void
producer_depart(struct ewyk_strategy_producer *p, uint32_t why)
{
	if (p->depart != NULL)
		p->depart(p->ctx, why);
	__atomic_store_n(&p->holder, LCORE_ID_ANY, __ATOMIC_RELAXED);
}

/*
 * Dispatch one task by the strategy's table. Returns 1 if production was
 * handed off (the caller must not touch @p any more), 0 otherwise.
 */
static int
producer_dispatch(struct ewyk_strategy_producer *p, struct ewyk_strategy *s,
	const struct ewyk_strategy_task *t)
{
	struct strategy_lcore_stats *st = strategy_stats_here(s);
	int mode = ewyk_strategy_decide(s->kind, t->invocation, 1);
	int ret;

	if (mode < 0) {
		/* Unknown invocation type: the safe choice, as BLOCKING. */
		mode = ewyk_strategy_decide(s->kind,
			EWYK_STRATEGY_INVOKE_BLOCKING, 1);
	}
	if (mode == EWYK_STRATEGY_MODE_EPC) {
		/*
		 * Inside a PC/PIC task of an outer strategy this lcore must
		 * not block, so it cannot run a task after handing off.
		 */
		int bell = p->doorbell;

		p->doorbell = 0;
		int slot = strategy_in_nonblocking() ? -EBUSY :
						       executor_claim(s->ex);

		if (slot >= 0) {
			producer_depart(p, EWYK_STRATEGY_DEPART_HANDOFF);
			executor_give_job(s->ex, slot, producer_job, p);
			/* @p belongs to the new holder from here on. */
			if (bell)
				executor_doorbell(s->ex);
			strategy_count(s, &st->handoffs);
			strategy_count(s, &st->mode[EWYK_STRATEGY_MODE_EPC]);
			strategy_invoke(t, EWYK_STRATEGY_MODE_EPC);
			/* Free now: serve queued tasks before going home. */
			producer_serve_ring(s);
			return 1;
		}
		p->doorbell = bell;
		strategy_count(s, &st->epc_misses);
		mode = ewyk_strategy_decide(s->kind,
			t->invocation <= EWYK_STRATEGY_INVOKE_EITHER ?
				t->invocation :
				EWYK_STRATEGY_INVOKE_BLOCKING,
			0);
	}
	if (mode == EWYK_STRATEGY_MODE_PEC) {
		/* The doorbell is rung at the end of the burst. */
		ret = executor_enqueue(s->ex, t);
		if (ret == 0)
			p->doorbell = 1;
		else
			mode = EWYK_STRATEGY_MODE_REJECTED;
		strategy_count(s, &st->mode[mode]);
		if (ret != 0)
			strategy_invoke(t, EWYK_STRATEGY_MODE_REJECTED);
		return 0;
	}
	strategy_count(s, &st->mode[mode]);
	strategy_invoke(t, (enum ewyk_strategy_mode)mode);
	return 0;
}

/* The holder's loop; entered with the token held (PRODUCING/REPRODUCING). */
static int
producer_loop(struct ewyk_strategy_producer *p)
{
	struct ewyk_strategy *s = p->s;
	struct ewyk_strategy_task t;
	uint32_t st, stop;

	for (;;) {
		if (p->pos == p->n) {
			if (p->doorbell) {
				p->doorbell = 0;
				executor_doorbell(s->ex);
			}
			/* Between bursts: go home if home is idle. */
			if ((p->flags & EWYK_STRATEGY_PRODUCER_F_HOME) &&
				rte_lcore_id() != p->home &&
				!strategy_in_nonblocking()) {
				int slot = executor_claim_on(s->ex, p->home);

				if (slot >= 0) {
					producer_depart(p,
						EWYK_STRATEGY_DEPART_HOME);
					executor_give_job(s->ex, slot,
						producer_job, p);
					STRATEGY_COUNT(s, homecomings);
					return EWYK_STRATEGY_PRODUCE_HANDED_OFF;
				}
			}
			p->pos = 0;
			p->n = producer_produce(p);
			if (p->n > p->burst)
				p->n = p->burst;
			if (p->n == 0) {
				if (p->idle_polls == PRODUCER_POLL_FOREVER ||
					p->empty < p->idle_polls) {
					if (!__atomic_load_n(&p->stop,
						    __ATOMIC_ACQUIRE)) {
						if (p->empty < UINT32_MAX)
							p->empty++;
						continue;
					}
				}
				p->empty = 0;
				stop = __atomic_load_n(&p->stop,
					__ATOMIC_ACQUIRE);
				producer_depart(p,
					stop ? EWYK_STRATEGY_DEPART_STOP :
					       EWYK_STRATEGY_DEPART_IDLE);
				st = EWYK_STRATEGY_PRODUCER_PRODUCING;
				if (__atomic_compare_exchange_n(&p->state, &st,
					    EWYK_STRATEGY_PRODUCER_IDLE, 0,
					    __ATOMIC_RELEASE,
					    __ATOMIC_ACQUIRE)) {
					STRATEGY_COUNT(s, idle);
					return stop ?
						EWYK_STRATEGY_PRODUCE_STOPPED :
						EWYK_STRATEGY_PRODUCE_IDLE;
				}
				/* REPRODUCING: a run() came meanwhile. */
				__atomic_store_n(&p->holder, rte_lcore_id(),
					__ATOMIC_RELAXED);
				__atomic_store_n(&p->state,
					EWYK_STRATEGY_PRODUCER_PRODUCING,
					__ATOMIC_RELAXED);
				continue;
			}
			p->empty = 0;
		}
		t = p->buf[p->pos++];
		if (producer_dispatch(p, s, &t))
			return EWYK_STRATEGY_PRODUCE_HANDED_OFF;
	}
}

/*
 * Production left this lcore and the lcore is free (its EPC task returned;
 * with F_SERVE_RING also: the token was released): it serves the PEC ring
 * now, so a queued task starts on the first lcore that becomes free rather
 * than waiting for a reserved lcore that holds no token.
 */
static void
producer_serve_ring(struct ewyk_strategy *s)
{
	if (s->ex != NULL && !strategy_in_nonblocking() &&
		ewyk_strategy_executor_queued(s->ex) != 0)
		executor_drain_here(s->ex, UINT32_MAX);
}

/* After the loop: with F_SERVE_RING a released lcore serves the ring. */
static int
producer_left(struct ewyk_strategy *s, uint32_t flags, int ret)
{
	if ((flags & EWYK_STRATEGY_PRODUCER_F_SERVE_RING) &&
		ret != EWYK_STRATEGY_PRODUCE_HANDED_OFF)
		producer_serve_ring(s);
	return ret;
}

int
ewyk_strategy_producer_run(struct ewyk_strategy_producer *p)
{
	uint32_t st;

	if (p == NULL)
		return -EINVAL;
	STRATEGY_COUNT(p->s, produce_calls);
	st = __atomic_load_n(&p->state, __ATOMIC_RELAXED);
	for (;;) {
		if (st == EWYK_STRATEGY_PRODUCER_IDLE) {
			if (__atomic_compare_exchange_n(&p->state, &st,
				    EWYK_STRATEGY_PRODUCER_PRODUCING, 0,
				    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
				struct ewyk_strategy *s = p->s;
				uint32_t fl = p->flags;

				__atomic_store_n(&p->holder, rte_lcore_id(),
					__ATOMIC_RELAXED);
				return producer_left(s, fl, producer_loop(p));
			}
		} else if (st == EWYK_STRATEGY_PRODUCER_PRODUCING) {
			if (__atomic_compare_exchange_n(&p->state, &st,
				    EWYK_STRATEGY_PRODUCER_REPRODUCING, 0,
				    __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
				STRATEGY_COUNT(p->s, reproduce);
				return EWYK_STRATEGY_PRODUCE_BUSY;
			}
		} else {
			return EWYK_STRATEGY_PRODUCE_BUSY;
		}
	}
}

int
ewyk_strategy_producer_try_run(struct ewyk_strategy_producer *p)
{
	struct ewyk_strategy *s;
	uint32_t fl;
	uint32_t st = EWYK_STRATEGY_PRODUCER_IDLE;

	if (p == NULL)
		return -EINVAL;
	if (__atomic_load_n(&p->state, __ATOMIC_RELAXED) !=
		EWYK_STRATEGY_PRODUCER_IDLE)
		return EWYK_STRATEGY_PRODUCE_BUSY;
	if (!__atomic_compare_exchange_n(&p->state, &st,
		    EWYK_STRATEGY_PRODUCER_PRODUCING, 0, __ATOMIC_ACQUIRE,
		    __ATOMIC_RELAXED))
		return EWYK_STRATEGY_PRODUCE_BUSY;
	STRATEGY_COUNT(p->s, produce_calls);
	__atomic_store_n(&p->holder, rte_lcore_id(), __ATOMIC_RELAXED);
	s = p->s;
	fl = p->flags;
	return producer_left(s, fl, producer_loop(p));
}

int
ewyk_strategy_producer_stop(struct ewyk_strategy_producer *p)
{
	if (p == NULL)
		return -EINVAL;
	__atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
	return 0;
}

int
ewyk_strategy_producer_resume(struct ewyk_strategy_producer *p)
{
	if (p == NULL)
		return -EINVAL;
	__atomic_store_n(&p->stop, 0, __ATOMIC_RELEASE);
	return 0;
}

enum ewyk_strategy_producer_state
ewyk_strategy_producer_state_get(const struct ewyk_strategy_producer *p)
{
	if (p == NULL)
		return EWYK_STRATEGY_PRODUCER_IDLE;
	return (enum ewyk_strategy_producer_state)__atomic_load_n(&p->state,
		__ATOMIC_ACQUIRE);
}

unsigned int
ewyk_strategy_producer_holder(const struct ewyk_strategy_producer *p)
{
	if (p == NULL)
		return LCORE_ID_ANY;
	return __atomic_load_n(&p->holder, __ATOMIC_RELAXED);
}
