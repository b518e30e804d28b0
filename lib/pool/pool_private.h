/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_POOL_PRIVATE_H
#define EWYK_POOL_PRIVATE_H

/*
 * Internals of lib/pool: the pool structure, the entry state word and the
 * functions shared between the files of the lib.
 */

#include <stdint.h>

#include <rte_common.h>
#include <rte_log.h>

#include <ewyk_ctr.h>

#include "ewyk_pool.h"

extern int ewyk_pool_logtype;

#define POOL_LOG(level, fmt, ...)                                           \
	rte_log(RTE_LOG_##level, ewyk_pool_logtype, "ewyk.pool: " fmt "\n", \
		##__VA_ARGS__)

/*
 * Entry state word (non-EXTERNAL pools):
 *   bits  0..15  multiplex count (current holders, an lcore cache counts 1)
 *   bits 16..47  usage count (acquisitions since the slot was filled)
 *   bits 48..49  kind: FREE 0, RESERVED 1, ACTIVE 2, CLOSED 3
 * FREE is the all-zero word. A RESERVED word with usage 0 is also used
 * transiently while a retiring entry runs its obj_retire callback.
 *
 * EXTERNAL pools: the word is the stored pointer, 0 when the slot is FREE.
 */
#define ST_MUX_MASK UINT64_C(0xffff)
#define ST_USAGE_SHIFT 16
#define ST_USAGE_MASK (UINT64_C(0xffffffff) << ST_USAGE_SHIFT)
#define ST_KIND_SHIFT 48
#define ST_KIND_MASK (UINT64_C(3) << ST_KIND_SHIFT)

#define ST_FREE UINT64_C(0)
#define ST_RESERVED (UINT64_C(1) << ST_KIND_SHIFT)
#define ST_ACTIVE (UINT64_C(2) << ST_KIND_SHIFT)
#define ST_CLOSED (UINT64_C(3) << ST_KIND_SHIFT)

static inline uint32_t
st_mux(uint64_t s)
{
	return (uint32_t)(s & ST_MUX_MASK);
}

static inline uint32_t
st_usage(uint64_t s)
{
	return (uint32_t)((s & ST_USAGE_MASK) >> ST_USAGE_SHIFT);
}

static inline uint64_t
st_kind(uint64_t s)
{
	return s & ST_KIND_MASK;
}

static inline uint64_t
st_make(uint64_t kind, uint32_t usage, uint32_t mux)
{
	return kind | ((uint64_t)usage << ST_USAGE_SHIFT) | mux;
}

/* One entry of the shared array: one cache line, one CAS-able word. */
struct pool_entry {
	uint64_t state; /* see above */
	void *obj;      /* the object slot (non-EXTERNAL) */
} __rte_cache_aligned;

struct ewyk_pool {
	struct ewyk_pool_head head; /* first: used by the inline path */

	char name[EWYK_POOL_NAMESIZE];
	struct pool_entry *entries;
	void *arena; /* object memory (non-EXTERNAL) */
	uint32_t obj_size;
	uint32_t obj_align;
	uint32_t cache_size; /* 0: no cache */
	uint32_t max_mux;
	uint32_t max_usage; /* 0: unlimited */
	enum ewyk_pool_strategy strategy;
	int socket_id; /* node of arena and entries */
	ewyk_pool_obj_cb_t obj_ctor;
	ewyk_pool_obj_cb_t obj_retire;
	void *obj_ctor_arg;
	ewyk_pool_lcore_node_t lcore_node;
	void *lcore_node_arg;
	/*
	 * Hand-back rings by owner lcore, read-only after creation: a remote
	 * put must not read the owner's cache line, which the owner writes
	 * on every get and put.
	 */
	void *handback[RTE_MAX_LCORE];

	/*
	 * Tickets. avail: acquirable holder units (an idle ACTIVE entry has
	 * max_mux of them) not yet claimed by a searcher; nfree: FREE entries
	 * not yet claimed. A searcher takes tickets before it scans, so an
	 * exhausted pool fails in O(1), and gives back what it did not use.
	 * For EXTERNAL pools avail counts stored pointers.
	 */
	int64_t avail __rte_cache_aligned;
	int64_t nfree __rte_cache_aligned;
	uint32_t rr_cursor __rte_cache_aligned; /* ROUND_ROBIN */
	/*
	 * FIRST's low-water marks: no entry below avail_low has an
	 * acquirable unit, none below free_low is FREE (as far as the last
	 * search saw; a release or retire below lowers them). A search
	 * starts there instead of at entry 0, so the busy front is not
	 * rescanned on every miss; it still takes the lowest entries.
	 */
	uint32_t avail_low;
	uint32_t free_low;
	/* Counters of threads without lcore id (atomic adds). */
	struct ewyk_pool_stats anon_stats __rte_cache_aligned;
};

static inline struct ewyk_pool_objhdr *
pool_objhdr(const struct ewyk_pool *p, const void *obj)
{
	return (struct ewyk_pool_objhdr *)(void *)((const char *)obj +
		p->head.hdr_off);
}

/* Entry index of obj, or -1 when obj is not a slot of p's arena. */
static inline int64_t
pool_obj_idx(const struct ewyk_pool *p, const void *obj)
{
	uintptr_t off = (uintptr_t)obj - (uintptr_t)p->head.objs;
	const struct ewyk_pool_objhdr *oh;

	/* The last valid slot start bounds every header read. */
	if (p->head.objs == NULL || off > p->head.arena_len - p->head.elt_size)
		return -1;
	oh = pool_objhdr(p, obj);
	if ((uintptr_t)oh->idx * p->head.elt_size != off)
		return -1;
	return oh->idx;
}

/* Counter update: plain on an lcore, atomic for threads without one. */
#define POOL_STAT_ADD(p, lc, field, n)                                  \
	do {                                                            \
		if ((lc) != NULL)                                       \
			ewyk_ctr_add(&(lc)->stats.field, (n));          \
		else                                                    \
			__atomic_fetch_add(&(p)->anon_stats.field, (n), \
				__ATOMIC_RELAXED);                      \
	} while (0)

/* pool_shared.c: the shared array. */
uint32_t pool_tickets_take(int64_t *ctr, uint32_t want);
void pool_tickets_give(int64_t *ctr, int64_t n);
unsigned int pool_shared_acquire(struct ewyk_pool *p,
	struct ewyk_pool_lcore *lc, void **objs, unsigned int n,
	uint16_t owner);
unsigned int pool_shared_create(struct ewyk_pool *p, struct ewyk_pool_lcore *lc,
	void **objs, unsigned int n, uint16_t owner);
int pool_shared_release(struct ewyk_pool *p, struct ewyk_pool_lcore *lc,
	uint32_t idx);
unsigned int pool_shared_release_bulk(struct ewyk_pool *p,
	struct ewyk_pool_lcore *lc, void *const *objs, unsigned int n);
unsigned int pool_ext_take(struct ewyk_pool *p, struct ewyk_pool_lcore *lc,
	void **objs, unsigned int n);
unsigned int pool_ext_store(struct ewyk_pool *p, struct ewyk_pool_lcore *lc,
	void *const *objs, unsigned int n);

/* pool_telemetry.c: the registry of lib/common and its telemetry */
int pool_register(struct ewyk_pool *p);
void pool_unregister(struct ewyk_pool *p);
struct ewyk_pool *pool_lookup(const char *name);

#endif /* EWYK_POOL_PRIVATE_H */
