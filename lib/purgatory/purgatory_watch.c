/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Watch lists: which pending ops a key's check() must look at.
 *
 * Keys live in an open-addressing table (linear probing, backward-shift
 * deletion, load <= 1/2); each key heads a singly linked list of watch
 * entries (op index, generation) from a fixed pool. Completing an op does
 * not touch its entries: they go stale (the op's generation moved on or it
 * is free) and are dropped lazily, as in Kafka's purgatory:
 *  - check(key) drops the stale entries of that key after its walk;
 *  - when the number of stale entries (entries of finished ops, known
 *    exactly from the owner's bookkeeping) reaches purge_threshold, or an
 *    add() finds the pool short, every list is swept.
 * Nothing is unlinked while a check() walk is running (callbacks may nest
 * add/check/complete calls): entries stay valid and the walk stays correct.
 */

#include <errno.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "purgatory_private.h"

static inline uint32_t
pg_hash(const struct ewyk_purgatory *p, uint64_t key)
{
	return (uint32_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 32) &
		p->key_mask;
}

static struct pg_key *
pg_key_find(struct ewyk_purgatory *p, uint64_t key)
{
	uint32_t i = pg_hash(p, key);

	while (p->keys[i].count != 0) {
		if (p->keys[i].key == key)
			return &p->keys[i];
		i = (i + 1) & p->key_mask;
	}
	return NULL;
}

/* Insert an absent key; the caller checked there is room. */
static struct pg_key *
pg_key_insert(struct ewyk_purgatory *p, uint64_t key)
{
	uint32_t i = pg_hash(p, key);

	while (p->keys[i].count != 0)
		i = (i + 1) & p->key_mask;
	p->keys[i].key = key;
	p->keys[i].head = PG_NIL;
	__atomic_store_n(&p->keys_in_use, p->keys_in_use + 1, __ATOMIC_RELAXED);
	return &p->keys[i];
}

/* Delete an emptied key slot, shifting its probe cluster back. */
static void
pg_key_delete(struct ewyk_purgatory *p, uint32_t hole)
{
	uint32_t j = hole;

	for (;;) {
		uint32_t h;

		j = (j + 1) & p->key_mask;
		if (p->keys[j].count == 0)
			break;
		h = pg_hash(p, p->keys[j].key);
		/* j may move to the hole unless its home h lies cyclically
		 * in (hole, j].
		 */
		if (((j - h) & p->key_mask) >= ((j - hole) & p->key_mask)) {
			p->keys[hole] = p->keys[j];
			hole = j;
		}
	}
	p->keys[hole].count = 0;
	p->keys[hole].head = PG_NIL;
	__atomic_store_n(&p->keys_in_use, p->keys_in_use - 1, __ATOMIC_RELAXED);
}

static inline int
pg_watch_stale(const struct ewyk_purgatory *p, const struct pg_watch *w)
{
	uint64_t s = pg_load(&p->ops[w->op]);

	return PG_GEN(s) != w->gen || PG_ST(s) == PG_FREE;
}

static inline void
pg_set_watches(struct ewyk_purgatory *p, uint32_t n)
{
	__atomic_store_n(&p->watches_in_use, n, __ATOMIC_RELAXED);
}

/* Drop the stale entries of one key slot; returns how many. */
static unsigned int
pg_purge_slot(struct ewyk_purgatory *p, struct pg_key *k)
{
	uint32_t *link = &k->head;
	unsigned int n = 0;

	while (*link != PG_NIL) {
		uint32_t idx = *link;
		struct pg_watch *w = &p->watches[idx];

		if (pg_watch_stale(p, w)) {
			*link = w->next;
			w->next = p->watch_free;
			p->watch_free = idx;
			n++;
		} else {
			link = &w->next;
		}
	}
	k->count -= n;
	pg_set_watches(p, p->watches_in_use - n);
	return n;
}

unsigned int
pg_watch_purge_key(struct ewyk_purgatory *p, uint64_t key)
{
	struct pg_key *k = pg_key_find(p, key);
	unsigned int n;

	if (k == NULL)
		return 0;
	n = pg_purge_slot(p, k);
	if (k->count == 0)
		pg_key_delete(p, k - p->keys);
	PG_STAT_ADD(p, purged, n);
	return n;
}

unsigned int
pg_watch_purge_all(struct ewyk_purgatory *p)
{
	unsigned int n = 0;
	uint32_t i;

	for (i = 0; i <= p->key_mask; i++) {
		/* A deletion shifts another key into slot i: look again. */
		while (p->keys[i].count != 0) {
			n += pg_purge_slot(p, &p->keys[i]);
			if (p->keys[i].count != 0)
				break;
			pg_key_delete(p, i);
		}
	}
	PG_STAT_ADD(p, purges, 1);
	PG_STAT_ADD(p, purged, n);
	return n;
}

void
pg_maybe_purge(struct ewyk_purgatory *p)
{
	if (p->depth == 0 &&
		p->watches_in_use - p->live_watches >= p->purge_threshold)
		pg_watch_purge_all(p);
}

/* Distinct keys among keys[0..n), and how many are not in the table. */
static unsigned int
pg_count_keys(struct ewyk_purgatory *p, const uint64_t *keys, unsigned int n,
	unsigned int *absent)
{
	unsigned int i, j, distinct = 0;

	*absent = 0;
	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++)
			if (keys[j] == keys[i])
				break;
		if (j < i)
			continue;
		distinct++;
		if (pg_key_find(p, keys[i]) == NULL)
			(*absent)++;
	}
	return distinct;
}

int
pg_watch_reserve(struct ewyk_purgatory *p, const uint64_t *keys,
	unsigned int nkeys)
{
	unsigned int absent;
	unsigned int need = pg_count_keys(p, keys, nkeys, &absent);

	if (p->max_watches - p->watches_in_use >= need &&
		p->keys_in_use + absent <= p->max_keys)
		return 0;
	if (p->depth != 0)
		return -ENOSPC;
	pg_watch_purge_all(p);
	need = pg_count_keys(p, keys, nkeys, &absent);
	if (p->max_watches - p->watches_in_use >= need &&
		p->keys_in_use + absent <= p->max_keys)
		return 0;
	return -ENOSPC;
}

unsigned int
pg_watch_add(struct ewyk_purgatory *p, uint32_t op_idx, uint32_t gen,
	const uint64_t *keys, unsigned int nkeys)
{
	unsigned int i, j, added = 0;

	for (i = 0; i < nkeys; i++) {
		struct pg_key *k;
		uint32_t idx;

		for (j = 0; j < i; j++)
			if (keys[j] == keys[i])
				break;
		if (j < i)
			continue;
		k = pg_key_find(p, keys[i]);
		if (k == NULL)
			k = pg_key_insert(p, keys[i]);
		idx = p->watch_free;
		p->watch_free = p->watches[idx].next;
		p->watches[idx].op = op_idx;
		p->watches[idx].gen = gen;
		p->watches[idx].next = k->head;
		k->head = idx;
		k->count++;
		added++;
	}
	pg_set_watches(p, p->watches_in_use + added);
	return added;
}

unsigned int
pg_watch_check(struct ewyk_purgatory *p, uint64_t key)
{
	struct pg_key *k = pg_key_find(p, key);
	unsigned int n = 0;
	uint32_t idx;

	if (k == NULL)
		return 0;
	p->depth++;
	idx = k->head;
	while (idx != PG_NIL) {
		const struct pg_watch *w = &p->watches[idx];
		struct ewyk_purgatory_op *op = &p->ops[w->op];
		uint64_t s = pg_load(op);

		/* Entries are not unlinked during a walk: next is stable. */
		idx = w->next;
		if (PG_GEN(s) != w->gen || PG_ST(s) != PG_PENDING)
			continue;
		if (op->ops->try_complete == NULL ||
			!op->ops->try_complete(op, op->ctx))
			continue;
		n += pg_complete_if_pending(p, op, w->gen);
	}
	p->depth--;
	return n;
}

int
pg_watch_init(struct ewyk_purgatory *p, int socket_id)
{
	uint32_t size = rte_align32pow2(RTE_MAX(2 * p->max_keys, 8u));
	uint32_t i;

	p->keys = rte_zmalloc_socket("ewyk_purgatory_keys",
		(size_t)size * sizeof(*p->keys), RTE_CACHE_LINE_SIZE,
		socket_id);
	p->watches = rte_zmalloc_socket("ewyk_purgatory_watches",
		(size_t)p->max_watches * sizeof(*p->watches),
		RTE_CACHE_LINE_SIZE, socket_id);
	if (p->keys == NULL || p->watches == NULL)
		return -ENOMEM;
	p->key_mask = size - 1;
	for (i = 0; i < size; i++)
		p->keys[i].head = PG_NIL;
	for (i = 0; i < p->max_watches; i++)
		p->watches[i].next = i + 1 < p->max_watches ? i + 1 : PG_NIL;
	p->watch_free = 0;
	return 0;
}

void
pg_watch_fini(struct ewyk_purgatory *p)
{
	rte_free(p->keys);
	rte_free(p->watches);
	p->keys = NULL;
	p->watches = NULL;
}
