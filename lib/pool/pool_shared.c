/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared layer: an array of cache-line entries whose state word is
 * changed by one CAS, searched from a strategy-dependent start, and two
 * ticket counters that bound every search (no spinning on an empty pool).
 */

#include <errno.h>
#include <stdbool.h>

#include <rte_cycles.h>
#include <rte_random.h>

#include "pool_private.h"

/*
 * A searcher holding tickets is owed that many entries, but the entries it
 * is owed may move under it while it scans (released behind its cursor,
 * taken ahead of it by a holder of another ticket). A few passes make a
 * miss very unlikely; after them the unused tickets go back and the caller
 * sees a (rare, spurious) shortage instead of an unbounded loop.
 */
#define POOL_SCAN_PASSES 4

uint32_t
pool_tickets_take(int64_t *ctr, uint32_t want)
{
	int64_t cur = __atomic_load_n(ctr, __ATOMIC_RELAXED);
	int64_t take;

	while (cur > 0) {
		take = cur < (int64_t)want ? cur : (int64_t)want;
		if (__atomic_compare_exchange_n(ctr, &cur, cur - take, false,
			    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return (uint32_t)take;
	}
	return 0;
}

void
pool_tickets_give(int64_t *ctr, int64_t n)
{
	if (n != 0)
		__atomic_fetch_add(ctr, n, __ATOMIC_RELEASE);
}

/* Lower FIRST's low-water mark *low to idx (an entry became takeable). */
static inline void
low_lower(uint32_t *low, uint32_t idx)
{
	uint32_t cur = __atomic_load_n(low, __ATOMIC_RELAXED);

	while (idx < cur &&
		!__atomic_compare_exchange_n(low, &cur, idx, false,
			__ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

static uint32_t
scan_start(struct ewyk_pool *p, struct ewyk_pool_lcore *lc, uint32_t *low)
{
	uint32_t cap = p->head.capacity;
	uint64_t r;

	switch (p->strategy) {
	case EWYK_POOL_STRATEGY_RANDOM:
		/* rte_rand() keeps per-lcore state; without one, mix the TSC. */
		if (lc != NULL)
			r = rte_rand();
		else
			r = rte_rdtsc() * UINT64_C(0x9e3779b97f4a7c15);
		return (uint32_t)(((r >> 32) * cap) >> 32);
	case EWYK_POOL_STRATEGY_LCORE:
		return lc != NULL ? lc->cursor : 0;
	case EWYK_POOL_STRATEGY_ROUND_ROBIN:
		return __atomic_load_n(&p->rr_cursor, __ATOMIC_RELAXED) % cap;
	case EWYK_POOL_STRATEGY_FIRST:
	default:
		return low != NULL ?
			__atomic_load_n(low, __ATOMIC_ACQUIRE) % cap :
			0;
	}
}

/* Remember where the next search starts (next-fit strategies). */
static void
scan_end(struct ewyk_pool *p, struct ewyk_pool_lcore *lc, uint32_t *low,
	uint32_t start, uint32_t first, uint32_t last)
{
	uint32_t next = last + 1 >= p->head.capacity ? 0 : last + 1;

	if (p->strategy == EWYK_POOL_STRATEGY_FIRST && low != NULL) {
		/*
		 * Nothing takeable was seen from start (round the end, if the
		 * search wrapped) up to the first entry taken, which may keep
		 * units when multiplexed, or past the last one when each entry
		 * has one holder. Only if no release below lowered the mark
		 * meanwhile (then the CAS fails and the lower mark stays).
		 */
		uint32_t to = p->max_mux == 1 ? next : first;

		if (to != start)
			__atomic_compare_exchange_n(low, &start, to, false,
				__ATOMIC_RELEASE, __ATOMIC_RELAXED);
	} else if (p->strategy == EWYK_POOL_STRATEGY_LCORE && lc != NULL)
		lc->cursor = next;
	else if (p->strategy == EWYK_POOL_STRATEGY_ROUND_ROBIN)
		__atomic_store_n(&p->rr_cursor, next, __ATOMIC_RELAXED);
}

static inline void
set_owner(struct ewyk_pool *p, void *obj, uint16_t owner)
{
	if (p->max_mux == 1)
		pool_objhdr(p, obj)->owner = owner;
}

/*
 * What a scan carries to its claim function: output arrays, the holder to
 * record, and (acquire) the holder units that vanished at max_usage.
 */
struct pool_scan {
	void **objs;    /* acquire, ext_take: out; ext_store: in */
	uint32_t *idxs; /* claim_free: out */
	int64_t vanished;
	uint16_t owner;
};

/*
 * Try to take entry idx, the k-th one this scan takes if it succeeds (one
 * CAS on its state word). Returns true when taken.
 */
typedef bool (*pool_claim_t)(struct ewyk_pool *p, uint32_t idx, unsigned int k,
	struct pool_scan *sc);

/*
 * The one search of the shared array: from the strategy's start, at most
 * POOL_SCAN_PASSES passes, until n entries are taken; the next-fit cursor
 * is left after the last one. The caller holds n tickets. Always inlined,
 * so that each caller's claim is a direct (inlined) call.
 */
static __rte_always_inline unsigned int
pool_scan(struct ewyk_pool *p, struct ewyk_pool_lcore *lc, unsigned int n,
	pool_claim_t claim, struct pool_scan *sc, uint32_t *low)
{
	const uint32_t cap = p->head.capacity;
	uint32_t idx, start, first = 0, last = 0, i, pass;
	unsigned int got = 0;

	idx = start = scan_start(p, lc, low);
	for (pass = 0; pass < POOL_SCAN_PASSES && got < n; pass++) {
		for (i = 0; i < cap && got < n; i++) {
			if (claim(p, idx, got, sc)) {
				if (got++ == 0)
					first = idx;
				last = idx;
			}
			if (++idx == cap)
				idx = 0;
		}
	}
	if (got > 0)
		scan_end(p, lc, low, start, first, last);
	return got;
}

/* An ACTIVE entry with a free holder unit and usage left: one more hold. */
static inline bool
claim_active(struct ewyk_pool *p, uint32_t idx, unsigned int k,
	struct pool_scan *sc)
{
	struct pool_entry *e = &p->entries[idx];
	const uint32_t max_mux = p->max_mux;
	const uint32_t max_usage = p->max_usage;
	uint64_t s, ns;

	s = __atomic_load_n(&e->state, __ATOMIC_RELAXED);
	while (st_kind(s) == ST_ACTIVE && st_mux(s) < max_mux &&
		(max_usage == 0 || st_usage(s) < max_usage)) {
		ns = st_make(ST_ACTIVE, st_usage(s) + 1, st_mux(s) + 1);
		if (__atomic_compare_exchange_n(&e->state, &s, ns, false,
			    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			/* At max_usage the free units vanish. */
			if (max_usage != 0 && st_usage(ns) == max_usage)
				sc->vanished += max_mux - st_mux(ns);
			if (sc->owner != EWYK_POOL_OWNER_NONE)
				set_owner(p, e->obj, sc->owner);
			sc->objs[k] = e->obj;
			return true;
		}
	}
	return false;
}

unsigned int
pool_shared_acquire(struct ewyk_pool *p, struct ewyk_pool_lcore *lc,
	void **objs, unsigned int n, uint16_t owner)
{
	struct pool_scan sc = { .objs = objs, .owner = owner };
	unsigned int got;

	n = pool_tickets_take(&p->avail, n);
	if (n == 0)
		return 0;
	got = pool_scan(p, lc, n, claim_active, &sc, &p->avail_low);
	pool_tickets_give(&p->avail, (int64_t)(n - got) - sc.vanished);
	POOL_STAT_ADD(p, lc, get_shared, got);
	return got;
}

/* A FREE entry: RESERVED for the caller to fill. */
static inline bool
claim_free_entry(struct ewyk_pool *p, uint32_t idx, unsigned int k,
	struct pool_scan *sc)
{
	uint64_t s = ST_FREE;

	if (__atomic_load_n(&p->entries[idx].state, __ATOMIC_RELAXED) !=
			ST_FREE ||
		!__atomic_compare_exchange_n(&p->entries[idx].state, &s,
			ST_RESERVED, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return false;
	sc->idxs[k] = idx;
	return true;
}

/*
 * Claim up to n FREE entries (FREE -> RESERVED); their indexes go to idxs.
 * The caller holds no ticket: this takes nfree tickets itself.
 */
static unsigned int
claim_free(struct ewyk_pool *p, struct ewyk_pool_lcore *lc, uint32_t *idxs,
	unsigned int n)
{
	struct pool_scan sc = { .idxs = idxs };
	unsigned int got;

	n = pool_tickets_take(&p->nfree, n);
	if (n == 0)
		return 0;
	got = pool_scan(p, lc, n, claim_free_entry, &sc, &p->free_low);
	pool_tickets_give(&p->nfree, (int64_t)(n - got));
	return got;
}

unsigned int
pool_shared_create(struct ewyk_pool *p, struct ewyk_pool_lcore *lc, void **objs,
	unsigned int n, uint16_t owner)
{
	uint32_t idxs[64];
	unsigned int got = 0, k, i;
	struct pool_entry *e;
	uint64_t units = 0;

	while (got < n) {
		k = RTE_MIN(n - got, (unsigned int)RTE_DIM(idxs));
		k = claim_free(p, lc, idxs, k);
		if (k == 0)
			break;
		for (i = 0; i < k; i++) {
			e = &p->entries[idxs[i]];
			pool_objhdr(p, e->obj)->owner = EWYK_POOL_OWNER_NONE;
			if (p->obj_ctor != NULL)
				p->obj_ctor(p, e->obj, idxs[i],
					p->obj_ctor_arg);
			if (owner != EWYK_POOL_OWNER_NONE)
				set_owner(p, e->obj, owner);
			/* Filled and acquired at once: usage 1, one holder. */
			if ((p->max_usage == 0 || p->max_usage > 1) &&
				p->max_mux > 1) {
				units += p->max_mux - 1;
				low_lower(&p->avail_low, idxs[i]);
			}
			__atomic_store_n(&e->state, st_make(ST_ACTIVE, 1, 1),
				__ATOMIC_RELEASE);
			objs[got++] = e->obj;
		}
	}
	pool_tickets_give(&p->avail, (int64_t)units);
	POOL_STAT_ADD(p, lc, get_created, got);
	return got;
}

void *
ewyk_pool_reserve(struct ewyk_pool *p)
{
	struct ewyk_pool_lcore *lc = NULL;
	unsigned int lcore = rte_lcore_id();
	struct pool_entry *e;
	uint32_t idx;

	if (p == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (p->head.flags & EWYK_POOL_F_EXTERNAL) {
		rte_errno = ENOTSUP;
		return NULL;
	}
	if (lcore < RTE_MAX_LCORE)
		lc = p->head.lc[lcore];
	if (claim_free(p, lc, &idx, 1) == 0) {
		POOL_STAT_ADD(p, lc, exhausted, 1);
		rte_errno = ENOBUFS;
		return NULL;
	}
	e = &p->entries[idx];
	pool_objhdr(p, e->obj)->owner = EWYK_POOL_OWNER_NONE;
	POOL_STAT_ADD(p, lc, reserved, 1);
	return e->obj;
}

/* Run obj_retire and make the (transiently RESERVED) entry FREE. */
static void
retire_entry(struct ewyk_pool *p, struct ewyk_pool_lcore *lc, uint32_t idx,
	bool removed)
{
	struct pool_entry *e = &p->entries[idx];

	if (p->obj_retire != NULL)
		p->obj_retire(p, e->obj, idx, p->obj_ctor_arg);
	if (removed)
		POOL_STAT_ADD(p, lc, removed, 1);
	else
		POOL_STAT_ADD(p, lc, retired, 1);
	__atomic_store_n(&e->state, ST_FREE, __ATOMIC_RELEASE);
	low_lower(&p->free_low, idx);
	pool_tickets_give(&p->nfree, 1);
}

/*
 * Drop one hold on entry idx. Returns 0 (back in the pool), 1 (the entry
 * retires: the caller must call retire_entry()), -EINVAL (no holder).
 * *units counts the holder units that became acquirable.
 */
static int
release_one(struct ewyk_pool *p, uint32_t idx, int64_t *units, bool *removed)
{
	struct pool_entry *e = &p->entries[idx];
	uint64_t s, ns, kind;
	int ret;

	set_owner(p, e->obj, EWYK_POOL_OWNER_NONE);
	s = __atomic_load_n(&e->state, __ATOMIC_RELAXED);
	for (;;) {
		kind = st_kind(s);
		if ((kind != ST_ACTIVE && kind != ST_CLOSED) || st_mux(s) == 0)
			return -EINVAL;
		ret = 0;
		if (kind == ST_CLOSED ||
			(p->max_usage != 0 && st_usage(s) >= p->max_usage)) {
			if (st_mux(s) == 1) {
				ns = ST_RESERVED; /* retiring */
				ret = 1;
			} else {
				ns = s - 1;
			}
		} else {
			ns = s - 1;
		}
		if (__atomic_compare_exchange_n(&e->state, &s, ns, false,
			    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			break;
	}
	if (kind == ST_ACTIVE && ret == 0 &&
		(p->max_usage == 0 || st_usage(ns) < p->max_usage)) {
		*units += 1;
		low_lower(&p->avail_low, idx);
	}
	*removed = kind == ST_CLOSED;
	return ret;
}

int
pool_shared_release(struct ewyk_pool *p, struct ewyk_pool_lcore *lc,
	uint32_t idx)
{
	int64_t units = 0;
	bool removed;
	int ret;

	ret = release_one(p, idx, &units, &removed);
	if (ret < 0)
		return ret;
	POOL_STAT_ADD(p, lc, put_shared, 1);
	pool_tickets_give(&p->avail, units);
	if (ret == 1)
		retire_entry(p, lc, idx, removed);
	return ret;
}

unsigned int
pool_shared_release_bulk(struct ewyk_pool *p, struct ewyk_pool_lcore *lc,
	void *const *objs, unsigned int n)
{
	unsigned int i, done = 0;
	int64_t units = 0;
	bool removed;
	uint32_t idx;
	int ret;

	for (i = 0; i < n; i++) {
		idx = pool_objhdr(p, objs[i])->idx;
		ret = release_one(p, idx, &units, &removed);
		if (ret < 0) {
			POOL_LOG(ERR, "%s: release of %p, which has no holder",
				p->name, objs[i]);
			continue;
		}
		done++;
		if (ret == 1)
			retire_entry(p, lc, idx, removed);
	}
	pool_tickets_give(&p->avail, units);
	POOL_STAT_ADD(p, lc, put_shared, done);
	return done;
}

int
ewyk_pool_enable(struct ewyk_pool *p, void *obj, bool acquire)
{
	struct pool_entry *e;
	uint64_t s, ns;
	int64_t idx;

	if (p == NULL)
		return -EINVAL;
	if (p->head.flags & EWYK_POOL_F_EXTERNAL)
		return -ENOTSUP;
	idx = pool_obj_idx(p, obj);
	if (idx < 0)
		return -EINVAL;
	e = &p->entries[idx];
	s = ST_RESERVED;
	ns = acquire ? st_make(ST_ACTIVE, 1, 1) : ST_ACTIVE;
	if (!__atomic_compare_exchange_n(&e->state, &s, ns, false,
		    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		return -EINVAL;
	if (!acquire || p->max_usage != 1)
		low_lower(&p->avail_low, (uint32_t)idx);
	if (!acquire)
		pool_tickets_give(&p->avail, p->max_mux);
	else if (p->max_usage != 1)
		pool_tickets_give(&p->avail, p->max_mux - 1);
	return 0;
}

int
ewyk_pool_remove(struct ewyk_pool *p, void *obj)
{
	struct ewyk_pool_lcore *lc = NULL;
	unsigned int lcore = rte_lcore_id();
	int64_t vanished = 0;
	struct pool_entry *e;
	uint64_t s, ns, kind;
	int64_t idx;

	if (p == NULL)
		return -EINVAL;
	if (p->head.flags & EWYK_POOL_F_EXTERNAL)
		return -ENOTSUP;
	idx = pool_obj_idx(p, obj);
	if (idx < 0)
		return -EINVAL;
	if (lcore < RTE_MAX_LCORE)
		lc = p->head.lc[lcore];
	e = &p->entries[idx];
	/* Before the CAS: afterwards the slot may belong to someone else. */
	set_owner(p, obj, EWYK_POOL_OWNER_NONE);
	s = __atomic_load_n(&e->state, __ATOMIC_RELAXED);
	for (;;) {
		kind = st_kind(s);
		if (kind == ST_RESERVED) {
			/* The reserver gives up: the object never existed. */
			if (st_usage(s) != 0 || st_mux(s) != 0)
				return -EINVAL;
			ns = ST_FREE;
		} else if ((kind == ST_ACTIVE || kind == ST_CLOSED) &&
			st_mux(s) > 0) {
			ns = st_mux(s) == 1 ?
				ST_RESERVED :
				st_make(ST_CLOSED, st_usage(s), st_mux(s) - 1);
		} else {
			return -EINVAL;
		}
		if (__atomic_compare_exchange_n(&e->state, &s, ns, false,
			    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			break;
	}
	/* The entry's free holder units are gone with it. */
	if (kind == ST_ACTIVE &&
		(p->max_usage == 0 || st_usage(s) < p->max_usage))
		vanished = p->max_mux - st_mux(s);
	pool_tickets_give(&p->avail, -vanished);
	if (kind == ST_RESERVED) {
		low_lower(&p->free_low, (uint32_t)idx);
		pool_tickets_give(&p->nfree, 1);
		return 1;
	}
	if (ns == ST_RESERVED) {
		retire_entry(p, lc, (uint32_t)idx, true);
		return 1;
	}
	return 0;
}

/* EXTERNAL: a slot holding a pointer; emptied, the pointer taken. */
static inline bool
claim_stored(struct ewyk_pool *p, uint32_t idx, unsigned int k,
	struct pool_scan *sc)
{
	uint64_t s = __atomic_load_n(&p->entries[idx].state, __ATOMIC_RELAXED);

	if (s == 0 ||
		!__atomic_compare_exchange_n(&p->entries[idx].state, &s, 0,
			false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return false;
	sc->objs[k] = (void *)(uintptr_t)s;
	return true;
}

unsigned int
pool_ext_take(struct ewyk_pool *p, struct ewyk_pool_lcore *lc, void **objs,
	unsigned int n)
{
	struct pool_scan sc = { .objs = objs };
	unsigned int got;

	n = pool_tickets_take(&p->avail, n);
	if (n == 0)
		return 0;
	got = pool_scan(p, lc, n, claim_stored, &sc, NULL);
	pool_tickets_give(&p->avail, (int64_t)(n - got));
	pool_tickets_give(&p->nfree, got);
	POOL_STAT_ADD(p, lc, get_shared, got);
	return got;
}

/* EXTERNAL: an empty slot; the k-th pointer stored in it. */
static inline bool
claim_empty(struct ewyk_pool *p, uint32_t idx, unsigned int k,
	struct pool_scan *sc)
{
	uint64_t s = 0;

	return __atomic_load_n(&p->entries[idx].state, __ATOMIC_RELAXED) == 0 &&
		__atomic_compare_exchange_n(&p->entries[idx].state, &s,
			(uint64_t)(uintptr_t)sc->objs[k], false,
			__ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

unsigned int
pool_ext_store(struct ewyk_pool *p, struct ewyk_pool_lcore *lc,
	void *const *objs, unsigned int n)
{
	struct pool_scan sc = { .objs = (void **)(uintptr_t)objs };
	unsigned int done;

	n = pool_tickets_take(&p->nfree, n);
	if (n == 0)
		return 0;
	done = pool_scan(p, lc, n, claim_empty, &sc, NULL);
	pool_tickets_give(&p->nfree, (int64_t)(n - done));
	pool_tickets_give(&p->avail, done);
	POOL_STAT_ADD(p, lc, put_shared, done);
	return done;
}
