/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Delayed operations: life cycle and the completion race.
 *
 * An op is allocated PENDING with a new generation, its deadline armed on
 * the shard's wheel and its keys watched. Three parties may end it:
 *  - another lcore, ewyk_purgatory_claim(): CAS PENDING -> CLAIMED, then
 *    the owner's ewyk_purgatory_finish() runs on_complete();
 *  - the owner, by try_complete()/check()/cancel(): CAS PENDING -> DONE;
 *  - the deadline, on the owner's wheel: CAS PENDING -> DONE, on_expire().
 * The CAS picks exactly one winner. The winner's path (on the owner lcore)
 * cancels the timer if still armed (O(1)), runs the callback and recycles
 * the op: state FREE with the same generation; the next allocation bumps
 * it, so late tickets fail their CAS. Watch entries are left in place: they
 * become stale and are purged lazily (purgatory_watch.c).
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_debug.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_string_fns.h>

#include "purgatory_private.h"

RTE_LOG_REGISTER(ewyk_purgatory_logtype, ewyk.purgatory, INFO);

static_assert(sizeof(struct ewyk_purgatory_op) == RTE_CACHE_LINE_SIZE,
	"an op is one cache line");

static inline uint32_t
pg_idx(const struct ewyk_purgatory *p, const struct ewyk_purgatory_op *op)
{
	return op - p->ops;
}

static inline int
pg_owns(const struct ewyk_purgatory *p, const struct ewyk_purgatory_op *op)
{
	uintptr_t off = (uintptr_t)op - (uintptr_t)p->ops;

	return op != NULL && off < (uintptr_t)p->capacity * sizeof(*op) &&
		off % sizeof(*op) == 0;
}

/* Return a finished op to the free list; its watch entries go stale. */
static void
pg_recycle(struct ewyk_purgatory *p, struct ewyk_purgatory_op *op)
{
	uint64_t w = pg_load(op);

	__atomic_store_n(&op->state, PG_WORD(PG_GEN(w), PG_FREE),
		__ATOMIC_RELEASE);
	p->live_watches -= op->nkeys;
	op->nkeys = 0;
	op->ops = NULL;
	op->ctx = NULL;
	op->next_free = p->free_head;
	p->free_head = pg_idx(p, op);
	p->in_use--;
}

/* Owner won (state DONE or CLAIMED): stop the deadline, complete, recycle. */
static void
pg_do_complete(struct ewyk_purgatory *p, struct ewyk_purgatory_op *op)
{
	ewyk_twheel_cancel(p->wheel, &op->timer);
	op->ops->on_complete(op, op->ctx);
	PG_STAT_ADD(p, completed, 1);
	pg_recycle(p, op);
}

/* Owner-side CAS PENDING -> DONE for generation gen. */
static inline int
pg_owner_win(struct ewyk_purgatory *p, struct ewyk_purgatory_op *op,
	uint32_t gen)
{
	uint64_t expect = PG_WORD(gen, PG_PENDING);

	if (__atomic_compare_exchange_n(&op->state, &expect,
		    PG_WORD(gen, PG_DONE), 0, __ATOMIC_ACQ_REL,
		    __ATOMIC_ACQUIRE))
		return 1;
	if (PG_GEN(expect) == gen && PG_ST(expect) == PG_CLAIMED)
		PG_STAT_ADD(p, races_lost, 1);
	return 0;
}

int
pg_complete_if_pending(struct ewyk_purgatory *p, struct ewyk_purgatory_op *op,
	uint32_t gen)
{
	if (!pg_owner_win(p, op, gen))
		return 0;
	pg_do_complete(p, op);
	return 1;
}

/* Wheel callback: the deadline passed. arg is the purgatory. */
static void
pg_expire(struct ewyk_twheel *w, struct ewyk_twheel_timer *t, void *arg)
{
	struct ewyk_purgatory *p = arg;
	struct ewyk_purgatory_op *op = container_of(t, struct ewyk_purgatory_op,
		timer);
	uint64_t s = pg_load(op);

	RTE_SET_USED(w);
	if (PG_ST(s) != PG_PENDING) {
		/* claimed: its finish will complete it */
		PG_STAT_ADD(p, races_lost, 1);
		return;
	}
	if (!pg_owner_win(p, op, PG_GEN(s)))
		return;
	op->ops->on_expire(op, op->ctx);
	PG_STAT_ADD(p, expired, 1);
	pg_recycle(p, op);
	pg_maybe_purge(p);
}

struct ewyk_purgatory_op *
ewyk_purgatory_add(struct ewyk_purgatory *p,
	const struct ewyk_purgatory_op_ops *ops, void *ctx,
	uint64_t deadline_tsc, const uint64_t *keys, unsigned int nkeys)
{
	struct ewyk_purgatory_op *op;
	uint32_t gen;
	int ret;

	RTE_ASSERT(p == NULL || ewyk_twheel_held_here(p->wheel));

	if (unlikely(p == NULL || ops == NULL || ops->on_complete == NULL ||
		    ops->on_expire == NULL || nkeys > EWYK_PURGATORY_MAX_KEYS ||
		    (nkeys > 0 && keys == NULL))) {
		rte_errno = EINVAL;
		return NULL;
	}
	pg_maybe_purge(p);
	if (unlikely(p->free_head == PG_NIL)) {
		PG_STAT_ADD(p, full, 1);
		rte_errno = ENOSPC;
		return NULL;
	}
	if (nkeys > 0) {
		ret = pg_watch_reserve(p, keys, nkeys);
		if (unlikely(ret < 0)) {
			PG_STAT_ADD(p, full, 1);
			rte_errno = -ret;
			return NULL;
		}
	}
	op = &p->ops[p->free_head];
	ret = ewyk_twheel_arm(p->wheel, &op->timer, deadline_tsc, pg_expire, p);
	if (unlikely(ret < 0)) {
		rte_errno = -ret;
		return NULL;
	}
	p->free_head = op->next_free;
	p->in_use++;
	op->ops = ops;
	op->ctx = ctx;
	gen = PG_GEN(pg_load(op)) + 1;
	op->nkeys = nkeys > 0 ?
		pg_watch_add(p, pg_idx(p, op), gen, keys, nkeys) :
		0;
	p->live_watches += op->nkeys;
	__atomic_store_n(&op->state, PG_WORD(gen, PG_PENDING),
		__ATOMIC_RELEASE);
	PG_STAT_ADD(p, added, 1);
	return op;
}

struct ewyk_purgatory_ticket
ewyk_purgatory_ticket(const struct ewyk_purgatory_op *op)
{
	struct ewyk_purgatory_ticket t;

	t.op = (struct ewyk_purgatory_op *)(uintptr_t)op;
	t.gen = op != NULL ? PG_GEN(pg_load(op)) : 0;
	return t;
}

int
ewyk_purgatory_claim(struct ewyk_purgatory_ticket t)
{
	uint64_t expect = PG_WORD(t.gen, PG_PENDING);

	if (unlikely(t.op == NULL))
		return -EINVAL;
	if (__atomic_compare_exchange_n(&t.op->state, &expect,
		    PG_WORD(t.gen, PG_CLAIMED), 0, __ATOMIC_ACQ_REL,
		    __ATOMIC_ACQUIRE))
		return 0;
	return -EALREADY;
}

int
ewyk_purgatory_finish(struct ewyk_purgatory *p, struct ewyk_purgatory_ticket t)
{
	RTE_ASSERT(p == NULL || ewyk_twheel_held_here(p->wheel));
	if (unlikely(p == NULL || !pg_owns(p, t.op)))
		return -EINVAL;
	if (unlikely(pg_load(t.op) != PG_WORD(t.gen, PG_CLAIMED)))
		return -EINVAL;
	pg_do_complete(p, t.op);
	pg_maybe_purge(p);
	return 0;
}

int
ewyk_purgatory_try_complete(struct ewyk_purgatory *p,
	struct ewyk_purgatory_op *op)
{
	uint64_t s;

	RTE_ASSERT(p == NULL || ewyk_twheel_held_here(p->wheel));

	if (unlikely(p == NULL || !pg_owns(p, op)))
		return -EINVAL;
	s = pg_load(op);
	if (PG_ST(s) != PG_PENDING || !pg_owner_win(p, op, PG_GEN(s)))
		return -EALREADY;
	pg_do_complete(p, op);
	pg_maybe_purge(p);
	return 0;
}

int
ewyk_purgatory_cancel(struct ewyk_purgatory *p, struct ewyk_purgatory_op *op)
{
	uint64_t s;

	RTE_ASSERT(p == NULL || ewyk_twheel_held_here(p->wheel));

	if (unlikely(p == NULL || !pg_owns(p, op)))
		return -EINVAL;
	s = pg_load(op);
	if (PG_ST(s) != PG_PENDING || !pg_owner_win(p, op, PG_GEN(s)))
		return -EALREADY;
	ewyk_twheel_cancel(p->wheel, &op->timer);
	PG_STAT_ADD(p, cancelled, 1);
	pg_recycle(p, op);
	pg_maybe_purge(p);
	return 0;
}

unsigned int
ewyk_purgatory_check(struct ewyk_purgatory *p, uint64_t key)
{
	unsigned int n;

	RTE_ASSERT(p == NULL || ewyk_twheel_held_here(p->wheel));

	if (unlikely(p == NULL))
		return 0;
	n = pg_watch_check(p, key);
	if (p->depth == 0) {
		pg_watch_purge_key(p, key);
		pg_maybe_purge(p);
	}
	return n;
}

void *
ewyk_purgatory_op_ctx(const struct ewyk_purgatory_op *op)
{
	return op->ctx;
}

unsigned int
ewyk_purgatory_count(const struct ewyk_purgatory *p)
{
	return __atomic_load_n(&p->in_use, __ATOMIC_RELAXED);
}

unsigned int
ewyk_purgatory_purge(struct ewyk_purgatory *p)
{
	RTE_ASSERT(p == NULL || ewyk_twheel_held_here(p->wheel));
	if (p == NULL || p->depth != 0)
		return 0;
	return pg_watch_purge_all(p);
}

int
ewyk_purgatory_stats_get(const struct ewyk_purgatory *p,
	struct ewyk_purgatory_stats *stats)
{
	if (p == NULL || stats == NULL)
		return -EINVAL;
#define PG_RD(f) __atomic_load_n(&p->stats.f, __ATOMIC_RELAXED)
	stats->added = PG_RD(added);
	stats->completed = PG_RD(completed);
	stats->expired = PG_RD(expired);
	stats->cancelled = PG_RD(cancelled);
	stats->races_lost = PG_RD(races_lost);
	stats->purges = PG_RD(purges);
	stats->purged = PG_RD(purged);
	stats->full = PG_RD(full);
#undef PG_RD
	stats->ops_in_use = __atomic_load_n(&p->in_use, __ATOMIC_RELAXED);
	stats->watches_in_use = __atomic_load_n(&p->watches_in_use,
		__ATOMIC_RELAXED);
	stats->keys_in_use = __atomic_load_n(&p->keys_in_use, __ATOMIC_RELAXED);
	return 0;
}

static void
pg_release(struct ewyk_purgatory *p)
{
	pg_watch_fini(p);
	rte_free(p->ops);
	rte_free(p);
}

struct ewyk_purgatory *
ewyk_purgatory_create(const struct ewyk_purgatory_params *params)
{
	struct ewyk_purgatory *p;
	uint32_t i;
	int ret;

	if (params == NULL || params->name == NULL || params->wheel == NULL ||
		params->capacity == 0 || params->capacity >= PG_NIL / 2 ||
		strnlen(params->name, EWYK_PURGATORY_NAMESIZE) >=
			EWYK_PURGATORY_NAMESIZE) {
		rte_errno = EINVAL;
		return NULL;
	}
	p = rte_zmalloc_socket("ewyk_purgatory", sizeof(*p),
		RTE_CACHE_LINE_SIZE, params->socket_id);
	if (p == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	rte_strlcpy(p->name, params->name, sizeof(p->name));
	p->wheel = params->wheel;
	p->capacity = params->capacity;
	p->max_keys = params->max_keys != 0 ? params->max_keys :
					      params->capacity;
	p->max_watches = params->max_watches != 0 ? params->max_watches :
						    2 * params->capacity;
	p->purge_threshold = params->purge_threshold != 0 ?
		params->purge_threshold :
		RTE_MAX(p->max_watches / 4, 1u);
	p->ops = rte_zmalloc_socket("ewyk_purgatory_ops",
		(size_t)p->capacity * sizeof(*p->ops), RTE_CACHE_LINE_SIZE,
		params->socket_id);
	if (p->ops == NULL || p->max_keys >= PG_NIL / 4 ||
		p->max_watches >= PG_NIL / 2) {
		rte_errno = p->ops == NULL ? ENOMEM : EINVAL;
		pg_release(p);
		return NULL;
	}
	for (i = 0; i < p->capacity; i++) {
		ewyk_twheel_timer_init(&p->ops[i].timer);
		p->ops[i].next_free = i + 1 < p->capacity ? i + 1 : PG_NIL;
	}
	p->free_head = 0;
	ret = pg_watch_init(p, params->socket_id);
	if (ret == 0)
		ret = pg_register(p);
	if (ret < 0) {
		pg_release(p);
		rte_errno = -ret;
		return NULL;
	}
	return p;
}

void
ewyk_purgatory_free(struct ewyk_purgatory *p)
{
	uint32_t i;

	if (p == NULL)
		return;
	pg_unregister(p);
	for (i = 0; i < p->capacity; i++)
		ewyk_twheel_cancel(p->wheel, &p->ops[i].timer);
	pg_release(p);
}
