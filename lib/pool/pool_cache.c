/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The per-lcore layer: LIFO caches refilled and flushed in bulk from the
 * shared array, and the hand-back of objects released on a foreign lcore.
 */

#include <errno.h>
#include <string.h>

#include <rte_ring.h>

#include "pool_private.h"

/*
 * Pop the n most recently cached objects; the caller checked lc->len >= n.
 * One block copy: the n hottest objects, not reversed one by one.
 */
static inline void
cache_pop(struct ewyk_pool_lcore *lc, void **objs, unsigned int n)
{
	if (n == 1) {
		objs[0] = lc->objs[--lc->len];
		return;
	}
	lc->len -= n;
	memcpy(objs, &lc->objs[lc->len], n * sizeof(objs[0]));
}

static inline struct ewyk_pool_lcore *
pool_lc(struct ewyk_pool *p)
{
	unsigned int lcore = rte_lcore_id();

	return lcore < RTE_MAX_LCORE ? p->head.lc[lcore] : NULL;
}

/* Up to n objects from the shared array (FREE slots constructed). */
static unsigned int
shared_get(struct ewyk_pool *p, struct ewyk_pool_lcore *lc, void **objs,
	unsigned int n, uint16_t owner)
{
	unsigned int got;

	if (p->head.flags & EWYK_POOL_F_EXTERNAL)
		return pool_ext_take(p, lc, objs, n);
	got = pool_shared_acquire(p, lc, objs, n, owner);
	if (got < n && !(p->head.flags & EWYK_POOL_F_EMPTY))
		got += pool_shared_create(p, lc, objs + got, n - got, owner);
	return got;
}

/* n objects back to the shared array; returns how many went. */
static unsigned int
shared_put(struct ewyk_pool *p, struct ewyk_pool_lcore *lc, void *const *objs,
	unsigned int n)
{
	if (p->head.flags & EWYK_POOL_F_EXTERNAL)
		return pool_ext_store(p, lc, objs, n);
	return pool_shared_release_bulk(p, lc, objs, n);
}

/* Flush the coldest objects (the bottom of the LIFO), keeping size / 2. */
static void
cache_flush_some(struct ewyk_pool *p, struct ewyk_pool_lcore *lc)
{
	unsigned int keep = lc->size / 2;
	unsigned int n, done;

	if (lc->len <= keep)
		return;
	n = lc->len - keep;
	done = shared_put(p, lc, lc->objs, n);
	/* EXTERNAL pools may be full: what did not go stays cached. */
	memmove(lc->objs, lc->objs + done,
		(lc->len - done) * sizeof(lc->objs[0]));
	lc->len -= done;
}

/*
 * Refill the cache: everything handed back that fits, then from the shared
 * array up to size / 2 + need objects (at most flush_thresh).
 */
static void
cache_refill(struct ewyk_pool *p, struct ewyk_pool_lcore *lc, unsigned int need)
{
	unsigned int target = RTE_MIN(lc->size / 2 + need, lc->flush_thresh);
	unsigned int got;

	/* Returned objects first, as many as fit: they are owed to us. */
	if (lc->handback != NULL && lc->len < lc->flush_thresh) {
		got = rte_ring_sc_dequeue_burst(lc->handback,
			&lc->objs[lc->len], lc->flush_thresh - lc->len, NULL);
		lc->len += got;
		ewyk_ctr_add(&lc->stats.drained, got);
	}
	if (lc->len < target)
		lc->len += shared_get(p, lc, &lc->objs[lc->len],
			target - lc->len, lc->lcore_id);
}

/* Hand obj back to its owner lcore; 0 on success, -ENOBUFS ring full. */
static int
hand_back(struct ewyk_pool *p, struct ewyk_pool_lcore *lc, uint16_t owner,
	void *obj)
{
	struct rte_ring *r = p->handback[owner];

	if (r != NULL && rte_ring_mp_enqueue(r, obj) == 0) {
		POOL_STAT_ADD(p, lc, handback, 1);
		return 0;
	}
	POOL_STAT_ADD(p, lc, handback_full, 1);
	return -ENOBUFS;
}

/* Send the batched remote frees to their owner: one ring enqueue. */
static void
stash_flush(struct ewyk_pool *p, struct ewyk_pool_lcore *lc)
{
	unsigned int n = lc->stash_len, done = 0;
	struct rte_ring *r = p->handback[lc->stash_owner];

	if (n == 0)
		return;
	if (r != NULL)
		done = rte_ring_mp_enqueue_burst(r, lc->stash, n, NULL);
	ewyk_ctr_add(&lc->stats.handback, done);
	if (done < n) {
		/* The owner is behind: straight to the shared array. */
		ewyk_ctr_add(&lc->stats.handback_full, n - done);
		pool_shared_release_bulk(p, lc, lc->stash + done, n - done);
	}
	lc->stash_len = 0;
}

/*
 * A get the cache cannot serve: no cache, no lcore id, or more objects
 * than the cache holds. What the cache (and hand-back ring) has goes
 * first, the shared array gives the rest.
 */
static unsigned int
get_uncached(struct ewyk_pool *p, struct ewyk_pool_lcore *lc, void **objs,
	unsigned int n, bool all)
{
	uint16_t owner = EWYK_POOL_OWNER_NONE;
	unsigned int from_cache = 0, got, i;

	POOL_STAT_ADD(p, lc, get_misses, 1);
	if (lc != NULL && lc->size > 0) {
		if (lc->check_owner)
			owner = lc->lcore_id;
		if (lc->stash_len > 0)
			stash_flush(p, lc);
		if (lc->handback != NULL && lc->len < lc->flush_thresh) {
			got = rte_ring_sc_dequeue_burst(lc->handback,
				&lc->objs[lc->len], lc->flush_thresh - lc->len,
				NULL);
			lc->len += got;
			ewyk_ctr_add(&lc->stats.drained, got);
		}
		from_cache = RTE_MIN(lc->len, n);
		cache_pop(lc, objs, from_cache);
	}
	got = from_cache +
		shared_get(p, lc, objs + from_cache, n - from_cache, owner);
	if (got < n) {
		if (all) {
			/* Nothing taken: everything goes back where it was. */
			shared_put(p, lc, objs + from_cache, got - from_cache);
			for (i = from_cache; i > 0; i--)
				lc->objs[lc->len++] = objs[i - 1];
			got = 0;
		}
		POOL_STAT_ADD(p, lc, exhausted, 1);
		rte_errno = ENOBUFS;
	}
	return got;
}

unsigned int
ewyk_pool_get_slow(struct ewyk_pool *p, void **objs, unsigned int n, bool all)
{
	struct ewyk_pool_lcore *lc = pool_lc(p);
	unsigned int got;

	if (n == 0)
		return 0;
	if (lc != NULL && lc->size > 0 && n <= lc->flush_thresh) {
		if (lc->len < n) {
			ewyk_ctr_add(&lc->stats.get_misses, 1);
			if (lc->stash_len > 0)
				stash_flush(p, lc);
			cache_refill(p, lc, n);
		} else {
			ewyk_ctr_add(&lc->stats.get_hits, n);
		}
		got = lc->len >= n ? n : (all ? 0 : lc->len);
		cache_pop(lc, objs, got);
		if (got < n) {
			ewyk_ctr_add(&lc->stats.exhausted, 1);
			rte_errno = ENOBUFS;
		}
		return got;
	}
	/* No cache, no lcore id, or a bulk larger than the cache. */
	return get_uncached(p, lc, objs, n, all);
}

static int
put_external(struct ewyk_pool *p, struct ewyk_pool_lcore *lc, void *obj)
{
	if (obj == NULL)
		return -EINVAL;
	if (lc != NULL && lc->size > 0) {
		if (lc->len >= lc->flush_thresh)
			cache_flush_some(p, lc);
		if (lc->len < lc->flush_thresh) {
			lc->objs[lc->len++] = obj;
			ewyk_ctr_add(&lc->stats.put_cached, 1);
			return 0;
		}
		return -ENOSPC;
	}
	return pool_ext_store(p, lc, &obj, 1) == 1 ? 0 : -ENOSPC;
}

int
ewyk_pool_put_slow(struct ewyk_pool *p, void *obj)
{
	struct ewyk_pool_lcore *lc = pool_lc(p);
	struct ewyk_pool_objhdr *oh;
	uint16_t owner;
	int64_t idx;
	uint64_t s;

	if (p->head.flags & EWYK_POOL_F_EXTERNAL)
		return put_external(p, lc, obj);
	idx = pool_obj_idx(p, obj);
	if (idx < 0) {
		POOL_LOG(ERR, "%s: put of %p, not an object of this pool",
			p->name, obj);
		return -EINVAL;
	}
	if (p->cache_size == 0)
		return pool_shared_release(p, lc, (uint32_t)idx);
	oh = pool_objhdr(p, obj);
	owner = oh->owner;
	if (lc == NULL) {
		/* Thread without lcore id: to the owner, else to the array. */
		if (owner != EWYK_POOL_OWNER_NONE) {
			POOL_STAT_ADD(p, lc, remote_frees, 1);
			if (!(p->head.flags & EWYK_POOL_F_NO_HANDBACK) &&
				hand_back(p, lc, owner, obj) == 0)
				return 0;
		}
		return pool_shared_release(p, lc, (uint32_t)idx);
	}
	if (owner != lc->lcore_id) {
		if (owner == EWYK_POOL_OWNER_NONE) {
			/*
			 * Held but owned by no cache (got without lcore id,
			 * or enabled with acquire): adopt it, if it is held.
			 */
			s = __atomic_load_n(&p->entries[idx].state,
				__ATOMIC_RELAXED);
			if (st_kind(s) != ST_ACTIVE || st_mux(s) != 1)
				return pool_shared_release(p, lc,
					(uint32_t)idx);
		} else {
			ewyk_ctr_add(&lc->stats.remote_frees, 1);
			if (!(p->head.flags & EWYK_POOL_F_NO_HANDBACK)) {
				if (lc->stash_len > 0 &&
					lc->stash_owner != owner)
					stash_flush(p, lc);
				lc->stash_owner = owner;
				lc->stash[lc->stash_len++] = obj;
				if (lc->stash_len == EWYK_POOL_STASH)
					stash_flush(p, lc);
				return 0;
			}
		}
		oh->owner = lc->lcore_id;
	}
	if (lc->len >= lc->flush_thresh)
		cache_flush_some(p, lc);
	lc->objs[lc->len++] = obj;
	ewyk_ctr_add(&lc->stats.put_cached, 1);
	return 0;
}

unsigned int
ewyk_pool_get_burst(struct ewyk_pool *p, void **objs, unsigned int n)
{
	struct ewyk_pool_lcore *lc = pool_lc(p);

	if (lc != NULL && lc->len >= n) {
		cache_pop(lc, objs, n);
		ewyk_ctr_add(&lc->stats.get_hits, n);
		return n;
	}
	return ewyk_pool_get_slow(p, objs, n, false);
}

unsigned int
ewyk_pool_get_bulk(struct ewyk_pool *p, void **objs, unsigned int n)
{
	struct ewyk_pool_lcore *lc = pool_lc(p);

	if (lc != NULL && lc->len >= n) {
		cache_pop(lc, objs, n);
		ewyk_ctr_add(&lc->stats.get_hits, n);
		return n;
	}
	return ewyk_pool_get_slow(p, objs, n, true);
}

unsigned int
ewyk_pool_put_bulk(struct ewyk_pool *p, void *const *objs, unsigned int n)
{
	struct ewyk_pool_lcore *lc = pool_lc(p);
	unsigned int i, done = 0;

	/* EXTERNAL pools carry no owner tag: a burst goes to the cache. */
	if (lc != NULL && !lc->check_owner && lc->size > 0) {
		if (lc->len + n > lc->flush_thresh)
			cache_flush_some(p, lc);
		if (lc->len + n <= lc->flush_thresh) {
			/* NULL would read as a FREE slot once flushed. */
			for (i = 0; i < n; i++)
				if (unlikely(objs[i] == NULL))
					break;
			memcpy(&lc->objs[lc->len], objs, i * sizeof(objs[0]));
			lc->len += i;
			ewyk_ctr_add(&lc->stats.put_cached, i);
			if (i == n)
				return n;
			done = i;
		}
	}
	for (i = done; i < n; i++) {
		if (ewyk_pool_put(p, objs[i]) >= 0)
			done++;
		else
			rte_errno = EINVAL;
	}
	/* A burst of remote frees goes back to its owner now. */
	if (lc != NULL && lc->stash_len > 0)
		stash_flush(p, lc);
	return done;
}

unsigned int
ewyk_pool_cache_flush(struct ewyk_pool *p)
{
	struct ewyk_pool_lcore *lc;
	unsigned int moved = 0, got, done;
	void *tmp[64];

	if (p == NULL)
		return 0;
	lc = pool_lc(p);
	if (lc == NULL)
		return 0;
	if (lc->stash_len > 0) {
		moved += pool_shared_release_bulk(p, lc, lc->stash,
			lc->stash_len);
		lc->stash_len = 0;
	}
	if (lc->handback != NULL) {
		do {
			got = rte_ring_sc_dequeue_burst(lc->handback, tmp,
				RTE_DIM(tmp), NULL);
			ewyk_ctr_add(&lc->stats.drained, got);
			moved += shared_put(p, lc, tmp, got);
		} while (got > 0);
	}
	if (lc->len > 0) {
		done = shared_put(p, lc, lc->objs, lc->len);
		memmove(lc->objs, lc->objs + done,
			(lc->len - done) * sizeof(lc->objs[0]));
		lc->len -= done;
		moved += done;
	}
	return moved;
}
