/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_POOL_H
#define EWYK_POOL_H

/**
 * @file
 * ewyk_pool: NUMA-local lock-free object pool with a per-lcore cache.
 *
 * A pool holds up to `capacity` entries. Each entry is one cache line in a
 * shared array, with a 64-bit state word changed by one compare-and-swap
 * (the design of Jetty's concurrent Pool):
 *
 *  - FREE      the slot is empty (no object in the pool there);
 *  - RESERVED  the slot counts against the capacity, but its object is being
 *              created (ewyk_pool_reserve()) and cannot be acquired yet;
 *  - ACTIVE    the object is in the pool: idle when its multiplex count is 0,
 *              in use when 1..max_multiplex holders share it. Every
 *              acquisition from the shared array adds one to its usage count;
 *              at max_usage it takes no new holder and is retired (made FREE)
 *              when the last holder releases it;
 *  - CLOSED    removed (ewyk_pool_remove()) while still held; FREE when the
 *              last holder releases it.
 *
 * In front of the shared array, every lcore has a LIFO cache of objects it
 * owns: ewyk_pool_get() and ewyk_pool_put() on a hit touch only the calling
 * lcore's cache (no atomic operation); a miss refills, an overflow flushes,
 * in bulk. An object released on an lcore other than the one whose cache
 * took it is handed back to that owner through a multi-producer,
 * single-consumer ring that the owner drains on its next miss, so hot
 * objects stay with the lcore (and NUMA node) that uses them.
 *
 * The cache is used when max_multiplex == 1 and max_usage == 0 (unlimited);
 * pools with multiplexing or usage limits work on the shared array directly,
 * so that every acquisition is counted and every holder is visible. Objects
 * parked in other lcores' caches are not available to a get: size the
 * capacity for the objects in use plus about 1.5 x cache_size per lcore.
 *
 * Releasing an object the caller does not hold is a bug the pool detects
 * only when the entry shows no holder (-EINVAL); like rte_mempool it does
 * not detect a double put on the owner lcore's cache path.
 *
 * Objects either live in the pool's own memory (default: `capacity` slots of
 * `obj_size` bytes allocated on the requested NUMA node) or, with
 * #EWYK_POOL_F_EXTERNAL, are caller-owned pointers the pool only stores
 * (this is how the "ewyk" mempool driver keeps mbufs).
 *
 * Threads: every function may be called from any EAL lcore and from
 * registered non-EAL threads (rte_thread_register()); threads without an
 * lcore id (rte_lcore_id() == LCORE_ID_ANY) may call ewyk_pool_get*(),
 * ewyk_pool_put*(), ewyk_pool_reserve(), ewyk_pool_enable() and
 * ewyk_pool_remove(): they bypass the cache and go to the shared array
 * (lock-free, correct, slower). ewyk_pool_create() and ewyk_pool_free()
 * must not run concurrently with other calls on the same pool.
 *
 * Errors: constructors return NULL and set rte_errno; burst functions return
 * a count; the others return 0 (or a documented positive value) or a
 * negative errno.
 *
 * Telemetry: "/ewyk/pool/list" lists pool names; "/ewyk/pool/stats,<name>"
 * returns a pool's configuration, gauges and summed per-lcore counters.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include <ewyk_ctr.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Longest pool name, including the terminating NUL. */
#define EWYK_POOL_NAMESIZE 24

/** socket_id: allocate on any NUMA node (prefer the caller's). */
#define EWYK_POOL_SOCKET_ANY (-1)
/**
 * socket_id: allocate on the NUMA node of the calling lcore, as given by the
 * pool's lcore→node mapping (ewyk_pool_params::lcore_node). Fails like an
 * explicit node when that node cannot be satisfied.
 */
#define EWYK_POOL_SOCKET_CALLER (-2)

/** Largest per-lcore cache size. */
#define EWYK_POOL_CACHE_MAX 512

/** Largest max_multiplex. */
#define EWYK_POOL_MULTIPLEX_MAX 0xfffe

/** Largest capacity. */
#define EWYK_POOL_CAPACITY_MAX (1u << 28)

/**
 * Flag: the pool starts empty; objects enter it only through
 * ewyk_pool_reserve() + ewyk_pool_enable(). Without it every slot is
 * constructed at creation, and a slot freed by ewyk_pool_remove() or by
 * max_usage is constructed again on demand by ewyk_pool_get().
 */
#define EWYK_POOL_F_EMPTY (1u << 0)
/**
 * Flag: the pool stores caller-owned pointers (obj_size must be 0). It
 * starts empty; ewyk_pool_put() adds a pointer (up to capacity), get takes
 * one. No multiplexing, usage limit, reserve, enable or remove. Pointers
 * must be non-NULL. At most `capacity` pointers may be in the pool.
 */
#define EWYK_POOL_F_EXTERNAL (1u << 1)
/**
 * Flag: a release on an lcore other than the owner goes into the releasing
 * lcore's own cache (rte_mempool behaviour) instead of back to the owner.
 */
#define EWYK_POOL_F_NO_HANDBACK (1u << 2)

/** Where ewyk_pool_get() starts looking in the shared array on a miss. */
enum ewyk_pool_strategy {
	/**
	 * At the lowest entry that may be takeable (a low-water mark kept by
	 * searches and lowered by releases): the lowest takeable entry is
	 * taken, packing the objects in use at the front, without rescanning
	 * the busy front on every search.
	 */
	EWYK_POOL_STRATEGY_FIRST = 0,
	/** At a random entry: spreads contention. */
	EWYK_POOL_STRATEGY_RANDOM,
	/** At an entry derived from the calling lcore: lcores keep apart. */
	EWYK_POOL_STRATEGY_LCORE,
	/** After the entry the previous search started at (shared cursor). */
	EWYK_POOL_STRATEGY_ROUND_ROBIN,
};

struct ewyk_pool;

/**
 * Object constructor, called once per object slot: at creation (without
 * #EWYK_POOL_F_EMPTY) and again when ewyk_pool_get() refills a freed slot.
 *
 * @param pool
 *   The pool.
 * @param obj
 *   The object (obj_size bytes, zeroed at creation).
 * @param idx
 *   The object's entry index, 0..capacity-1.
 * @param arg
 *   ewyk_pool_params::obj_ctor_arg.
 */
typedef void (*ewyk_pool_obj_cb_t)(struct ewyk_pool *pool, void *obj,
	uint32_t idx, void *arg);

/**
 * lcore→NUMA-node mapping (default: rte_lcore_to_socket_id()). Used for
 * #EWYK_POOL_SOCKET_CALLER and to place each lcore's cache on its node.
 *
 * @param lcore_id
 *   An lcore id, 0..RTE_MAX_LCORE-1.
 * @param arg
 *   ewyk_pool_params::lcore_node_arg.
 * @return
 *   The node id, or a negative value for "unknown" (any node).
 */
typedef int (*ewyk_pool_lcore_node_t)(unsigned int lcore_id, void *arg);

/** Creation parameters. Zero-initialise, then set what you need. */
struct ewyk_pool_params {
	/** Unique name, < EWYK_POOL_NAMESIZE bytes, for lookup and telemetry. */
	const char *name;
	/** Number of entries (objects), 1..EWYK_POOL_CAPACITY_MAX. */
	uint32_t capacity;
	/** Object size in bytes (> 0, or 0 with #EWYK_POOL_F_EXTERNAL). */
	uint32_t obj_size;
	/** Object alignment, power of two; 0 means RTE_CACHE_LINE_SIZE. */
	uint32_t obj_align;
	/** Optional constructor, see ewyk_pool_obj_cb_t. */
	ewyk_pool_obj_cb_t obj_ctor;
	/**
	 * Optional retire callback: called, on the lcore that drops the last
	 * hold, when an object leaves the pool (removed, or retired at
	 * max_usage), just before its slot becomes FREE.
	 */
	ewyk_pool_obj_cb_t obj_retire;
	/** Argument for obj_ctor and obj_retire. */
	void *obj_ctor_arg;
	/** NUMA node, or #EWYK_POOL_SOCKET_ANY / #EWYK_POOL_SOCKET_CALLER. */
	int socket_id;
	/** EWYK_POOL_F_* flags. */
	uint32_t flags;
	/** Per-lcore cache size, 0..EWYK_POOL_CACHE_MAX (0: no cache). */
	uint32_t cache_size;
	/** Holders that may share one object at once; 0 means 1. */
	uint32_t max_multiplex;
	/** Acquisitions before an object is retired; 0 means unlimited. */
	uint32_t max_usage;
	/** Where a search of the shared array starts. */
	enum ewyk_pool_strategy strategy;
	/** Optional lcore→node mapping (NULL: rte_lcore_to_socket_id()). */
	ewyk_pool_lcore_node_t lcore_node;
	/** Argument for lcore_node. */
	void *lcore_node_arg;
};

/** Counters, kept per lcore and summed by ewyk_pool_stats_get(). */
struct ewyk_pool_stats {
	uint64_t get_hits;      /**< objects got from the lcore cache */
	uint64_t get_misses;    /**< cache refills and uncached gets */
	uint64_t get_shared;    /**< objects acquired from the shared array */
	uint64_t get_created;   /**< FREE slots constructed by a get */
	uint64_t exhausted;     /**< gets that failed with ENOBUFS */
	uint64_t put_cached;    /**< objects put into the lcore cache */
	uint64_t put_shared;    /**< objects released to the shared array */
	uint64_t remote_frees;  /**< puts by an lcore not owning the object */
	uint64_t handback;      /**< objects handed back to their owner */
	uint64_t handback_full; /**< hand-backs that found the ring full */
	uint64_t drained;       /**< handed-back objects drained by the owner */
	uint64_t retired;       /**< objects retired at max_usage */
	uint64_t removed;       /**< objects removed (made FREE) */
	uint64_t reserved;      /**< successful ewyk_pool_reserve() calls */
};

/** Configuration and gauges of a pool (ewyk_pool_info_get()). */
struct ewyk_pool_info {
	char name[EWYK_POOL_NAMESIZE];    /**< pool name */
	uint32_t capacity;                /**< number of entries */
	uint32_t obj_size;                /**< object size */
	uint32_t elt_size;                /**< bytes per object slot */
	uint32_t cache_size;              /**< per-lcore cache size in use */
	uint32_t max_multiplex;           /**< holders per object */
	uint32_t max_usage;               /**< 0: unlimited */
	uint32_t flags;                   /**< EWYK_POOL_F_* */
	enum ewyk_pool_strategy strategy; /**< search strategy */
	int socket_id;                    /**< node of the object memory (where
					  *  SOCKET_ANY landed) */
	/* Gauges, read without stopping the pool (approximate when busy). */
	uint32_t n_free;     /**< FREE entries */
	uint32_t n_reserved; /**< RESERVED entries */
	uint32_t n_idle;     /**< ACTIVE entries with no holder */
	uint32_t n_in_use;   /**< ACTIVE entries held (incl. caches) */
	uint32_t n_closed;   /**< CLOSED entries still held */
	uint32_t n_cached;   /**< objects in lcore caches */
	uint32_t n_handback; /**< objects on their way back to
					  *  their owner (rings, stashes) */
};

/** State of one entry (ewyk_pool_obj_state()). */
enum ewyk_pool_entry_state {
	EWYK_POOL_ENTRY_FREE = 0, /**< empty slot */
	EWYK_POOL_ENTRY_RESERVED, /**< being created */
	EWYK_POOL_ENTRY_ACTIVE,   /**< in the pool (idle or held) */
	EWYK_POOL_ENTRY_CLOSED,   /**< removed, still held */
};

/** Snapshot of one entry. */
struct ewyk_pool_entry_info {
	enum ewyk_pool_entry_state state; /**< the entry's state */
	uint32_t multiplex; /**< current holders (incl. an lcore cache) */
	uint32_t usage;     /**< acquisitions since the slot was filled */
	int owner;          /**< lcore whose cache owns it, or -1 */
};

/** Per-lcore placement and fill (ewyk_pool_lcore_info_get()). */
struct ewyk_pool_lcore_info {
	int socket_requested;  /**< node asked for this lcore's cache */
	int socket;            /**< node the cache memory is on (-1: unknown) */
	uint32_t cache_len;    /**< objects in the cache now */
	uint32_t handback_len; /**< objects waiting in the hand-back ring */
	uint32_t stash_len;    /**< remote frees batched for their owner */
};

/**
 * Create a pool.
 *
 * @param params
 *   Parameters (copied; name must stay valid only for the call).
 * @return
 *   The pool, or NULL with rte_errno set to:
 *   - EINVAL: bad parameter (NULL, capacity 0 or too large, obj_size 0
 *     without EXTERNAL or non-zero with it, alignment not a power of two,
 *     cache_size > EWYK_POOL_CACHE_MAX, max_multiplex too large, strategy
 *     unknown, EXTERNAL with multiplex/usage/EMPTY, unknown flag,
 *     SOCKET_CALLER on a thread without lcore id);
 *   - ENAMETOOLONG: name too long;
 *   - EEXIST: a pool with this name exists;
 *   - ENOSPC: 512 pools are registered already (the registry is full);
 *   - ENODEV: the explicit NUMA node is not one EAL knows;
 *   - ENOMEM: not enough memory on the requested node (never falls back to
 *     another node unless socket_id is #EWYK_POOL_SOCKET_ANY).
 */
struct ewyk_pool *ewyk_pool_create(const struct ewyk_pool_params *params);

/**
 * Free a pool and all its memory. Objects still held become invalid; no
 * callback runs. Must not run concurrently with any other use of the pool.
 *
 * @param pool
 *   The pool; NULL is a no-op.
 */
void ewyk_pool_free(struct ewyk_pool *pool);

/**
 * Find a pool by name.
 *
 * @param name
 *   The name.
 * @return
 *   The pool, or NULL with rte_errno = ENOENT (or EINVAL for NULL).
 */
struct ewyk_pool *ewyk_pool_lookup(const char *name);

/**
 * Name of a pool.
 *
 * @param pool
 *   The pool.
 * @return
 *   Its name (valid as long as the pool).
 */
const char *ewyk_pool_name(const struct ewyk_pool *pool);

/**
 * Get up to n objects (a burst). Never blocks or spins without bound.
 *
 * @param pool
 *   The pool.
 * @param objs
 *   Where to store the objects.
 * @param n
 *   How many are wanted.
 * @return
 *   How many were stored (0..n); when fewer than n, rte_errno is
 *   ENOBUFS (pool exhausted) and the exhausted counter was incremented.
 */
unsigned int ewyk_pool_get_burst(struct ewyk_pool *pool, void **objs,
	unsigned int n);

/**
 * Get exactly n objects or none.
 *
 * @param pool
 *   The pool.
 * @param objs
 *   Where to store the objects.
 * @param n
 *   How many.
 * @return
 *   n, or 0 with rte_errno = ENOBUFS (nothing taken).
 */
unsigned int ewyk_pool_get_bulk(struct ewyk_pool *pool, void **objs,
	unsigned int n);

/**
 * Release n objects (each as ewyk_pool_put()).
 *
 * @param pool
 *   The pool.
 * @param objs
 *   The objects.
 * @param n
 *   How many.
 * @return
 *   How many were released (n unless some pointer was invalid; those
 *   are skipped and logged, rte_errno = EINVAL).
 */
unsigned int ewyk_pool_put_bulk(struct ewyk_pool *pool, void *const *objs,
	unsigned int n);

/**
 * Reserve a FREE slot: it counts against the capacity, but cannot be
 * acquired until ewyk_pool_enable(). For an object created asynchronously
 * (a connection being opened). The returned memory is the slot's object,
 * for the caller to construct in place (no constructor is called).
 *
 * @param pool
 *   The pool (not EXTERNAL).
 * @return
 *   The object slot, or NULL with rte_errno = ENOBUFS (no FREE slot)
 *   or ENOTSUP (EXTERNAL pool).
 */
void *ewyk_pool_reserve(struct ewyk_pool *pool);

/**
 * Make a reserved object available.
 *
 * @param pool
 *   The pool.
 * @param obj
 *   An object returned by ewyk_pool_reserve().
 * @param acquire
 *   If true, the caller keeps it (as if got: multiplex 1,
 *   usage 1) and must later put or remove it; if false it becomes idle.
 * @return
 *   0, or -EINVAL (not an object of this pool, or not RESERVED),
 *   -ENOTSUP (EXTERNAL pool).
 */
int ewyk_pool_enable(struct ewyk_pool *pool, void *obj, bool acquire);

/**
 * Remove an object from the pool: it takes no new holder, and the caller's
 * hold (from a get, or the reservation) ends with this call. When the last
 * holder is gone the obj_retire callback runs and the slot becomes FREE.
 * The caller must not use obj after the call.
 *
 * @param pool
 *   The pool.
 * @param obj
 *   An object the caller holds or has reserved.
 * @return
 *   1 if the slot is FREE now, 0 if other holders still share it
 *   (it becomes FREE when the last one puts it), -EINVAL (not held, not an
 *   object of this pool), -ENOTSUP (EXTERNAL pool).
 */
int ewyk_pool_remove(struct ewyk_pool *pool, void *obj);

/**
 * Empty the calling lcore's cache, its stash of remote frees and its
 * hand-back ring into the shared array (before an lcore stops using a pool,
 * or to account for every object).
 *
 * @param pool
 *   The pool.
 * @return
 *   The number of objects moved; 0 on a thread without lcore id.
 */
unsigned int ewyk_pool_cache_flush(struct ewyk_pool *pool);

/**
 * Entry index of an object (stable for the pool's life).
 *
 * @param pool
 *   The pool (not EXTERNAL).
 * @param obj
 *   The object.
 * @return
 *   0..capacity-1, or -EINVAL.
 */
int ewyk_pool_obj_index(const struct ewyk_pool *pool, const void *obj);

/**
 * Object at an entry index.
 *
 * @param pool
 *   The pool (not EXTERNAL).
 * @param idx
 *   0..capacity-1.
 * @return
 *   The object slot, or NULL with rte_errno = EINVAL.
 */
void *ewyk_pool_obj_at(const struct ewyk_pool *pool, uint32_t idx);

/**
 * Snapshot the state of an object's entry.
 *
 * @param pool
 *   The pool (not EXTERNAL).
 * @param obj
 *   The object.
 * @param info
 *   Filled in.
 * @return
 *   0 or -EINVAL.
 */
int ewyk_pool_obj_state(const struct ewyk_pool *pool, const void *obj,
	struct ewyk_pool_entry_info *info);

/**
 * Sum the per-lcore counters.
 *
 * @param pool
 *   The pool.
 * @param stats
 *   Filled in.
 * @return
 *   0 or -EINVAL.
 */
int ewyk_pool_stats_get(const struct ewyk_pool *pool,
	struct ewyk_pool_stats *stats);

/**
 * Counters of one lcore (RTE_MAX_LCORE: threads without lcore id).
 *
 * @param pool
 *   The pool.
 * @param lcore_id
 *   0..RTE_MAX_LCORE.
 * @param stats
 *   Filled in.
 * @return
 *   0 or -EINVAL.
 */
int ewyk_pool_lcore_stats_get(const struct ewyk_pool *pool,
	unsigned int lcore_id, struct ewyk_pool_stats *stats);

/**
 * Configuration and gauges.
 *
 * @param pool
 *   The pool.
 * @param info
 *   Filled in.
 * @return
 *   0 or -EINVAL.
 */
int ewyk_pool_info_get(const struct ewyk_pool *pool,
	struct ewyk_pool_info *info);

/**
 * Memory a pool holds for its objects: every object slot (elt_size) and
 * its entry in the entry array, times the capacity. The per-lcore caches
 * are left out: their size depends on the lcores, not on the capacity.
 * Constant for the pool's life; O(1).
 *
 * @param pool
 *   Pool (NULL: 0).
 * @return
 *   Bytes.
 */
uint64_t ewyk_pool_mem_bytes(const struct ewyk_pool *pool);

/**
 * Placement and fill of one lcore's cache.
 *
 * @param pool
 *   The pool.
 * @param lcore_id
 *   0..RTE_MAX_LCORE-1.
 * @param info
 *   Filled in.
 * @return
 *   0 or -EINVAL.
 */
int ewyk_pool_lcore_info_get(const struct ewyk_pool *pool,
	unsigned int lcore_id, struct ewyk_pool_lcore_info *info);

/**
 * Name of a strategy.
 *
 * @param s
 *   The strategy.
 * @return
 *   "first", "random", "lcore", "round_robin" or "unknown".
 */
const char *ewyk_pool_strategy_name(enum ewyk_pool_strategy s);

/*
 * Inline fast path. Everything below "internal" may change without notice;
 * use only the functions.
 */

/** @internal Owner value of an object no lcore cache owns. */
#define EWYK_POOL_OWNER_NONE 0xffffu

/** @internal Remote frees batched per hand-back (one ring CAS each). */
#define EWYK_POOL_STASH 32

/** @internal Hidden trailer of each object slot (non-EXTERNAL pools). */
struct ewyk_pool_objhdr {
	uint32_t idx;   /**< entry index */
	uint16_t owner; /**< lcore whose cache owns it, or OWNER_NONE */
	uint16_t pad;   /**< unused */
};

/** @internal Per-lcore cache and counters. */
struct ewyk_pool_lcore {
	uint32_t len;          /**< objects in objs[] */
	uint32_t size;         /**< nominal cache size */
	uint32_t flush_thresh; /**< put flushes above this */
	uint16_t lcore_id;     /**< owner lcore */
	uint16_t check_owner;  /**< 1: objects carry an owner tag */
	void **objs;           /**< LIFO, flush_thresh + 1 slots */
	void *handback;        /**< struct rte_ring, MPSC, or NULL */
	int socket_requested;  /**< node asked for this memory */
	uint32_t cursor;       /**< next-fit cursor (LCORE strategy) */
	uint16_t stash_len;    /**< remote frees waiting in stash[] */
	uint16_t stash_owner;  /**< the lcore they go back to */
	void **stash;          /**< EWYK_POOL_STASH objects */
	struct ewyk_pool_stats stats __rte_cache_aligned; /**< counters */
} __rte_cache_aligned;

/** @internal Read-mostly head of a pool. */
struct ewyk_pool_head {
	char *objs;        /**< object arena (non-EXTERNAL) */
	size_t arena_len;  /**< bytes in the arena */
	uint32_t elt_size; /**< slot stride */
	uint32_t hdr_off;  /**< objhdr offset from the object */
	uint32_t capacity; /**< entries */
	uint32_t flags;    /**< EWYK_POOL_F_* */
	/** Per-lcore caches, NULL when the pool has no cache. */
	struct ewyk_pool_lcore *lc[RTE_MAX_LCORE];
};

/**
 * @internal Slow path of ewyk_pool_get() and ewyk_pool_get_bulk(): the
 * lcore cache missed or there is none.
 *
 * @param pool
 *   The pool.
 * @param objs
 *   Filled with the objects got.
 * @param n
 *   Objects wanted.
 * @param all
 *   All n or none (bulk), else as many as there are (burst).
 * @return
 *   The number of objects got.
 */
unsigned int ewyk_pool_get_slow(struct ewyk_pool *pool, void **objs,
	unsigned int n, bool all);
/**
 * @internal Slow path of ewyk_pool_put(): the lcore cache is full, absent,
 * or the object is another lcore's.
 *
 * @param pool
 *   The pool.
 * @param obj
 *   The object.
 * @return
 *   As ewyk_pool_put().
 */
int ewyk_pool_put_slow(struct ewyk_pool *pool, void *obj);

/**
 * @internal The head is the first member of struct ewyk_pool.
 *
 * @param pool
 *   The pool.
 * @return
 *   Its head, read by the inline fast paths.
 */
static inline struct ewyk_pool_head *
ewyk_pool_head_(struct ewyk_pool *pool)
{
	return (struct ewyk_pool_head *)(void *)pool;
}

/**
 * Get one object. On an lcore-cache hit: no atomic operation.
 * Never blocks or spins without bound.
 *
 * @param pool
 *   The pool.
 * @return
 *   An object, or NULL with rte_errno = ENOBUFS (exhausted; the
 *   exhausted counter was incremented).
 */
static inline void *
ewyk_pool_get(struct ewyk_pool *pool)
{
	struct ewyk_pool_head *h = ewyk_pool_head_(pool);
	unsigned int lcore = rte_lcore_id();
	struct ewyk_pool_lcore *lc;
	void *obj;

	if (likely(lcore < RTE_MAX_LCORE)) {
		lc = h->lc[lcore];
		if (likely(lc != NULL && lc->len > 0)) {
			ewyk_ctr_add(&lc->stats.get_hits, 1);
			return lc->objs[--lc->len];
		}
	}
	if (ewyk_pool_get_slow(pool, &obj, 1, true) == 0)
		return NULL;
	return obj;
}

/**
 * Release an object (from a get, or an enable with acquire). Legal on any
 * lcore and on threads without lcore id: on the owner lcore it goes into the
 * cache (no atomic operation); on another lcore it is handed back to the
 * owner (batched per EWYK_POOL_STASH objects, then one MPSC ring enqueue;
 * the batch also goes at the end of ewyk_pool_put_bulk(), on the releasing
 * lcore's next cache miss, and by ewyk_pool_cache_flush()) or, when the
 * owner's ring is full, released to the shared array.
 *
 * @param pool
 *   The pool.
 * @param obj
 *   The object (for EXTERNAL pools: any non-NULL pointer to store).
 * @return
 *   0 if the object is back in the pool; 1 if this release retired it
 *   (removed earlier, or max_usage reached: obj_retire ran, the slot is
 *   FREE, the object must not be used); -EINVAL if obj is not an object of
 *   this pool or not held; -ENOSPC if an EXTERNAL pool is full.
 */
static inline int
ewyk_pool_put(struct ewyk_pool *pool, void *obj)
{
	struct ewyk_pool_head *h = ewyk_pool_head_(pool);
	unsigned int lcore = rte_lcore_id();
	struct ewyk_pool_lcore *lc;
	const struct ewyk_pool_objhdr *oh;
	uintptr_t off;

	if (likely(lcore < RTE_MAX_LCORE)) {
		lc = h->lc[lcore];
		if (likely(lc != NULL && lc->len < lc->flush_thresh)) {
			if (lc->check_owner) {
				off = (uintptr_t)obj - (uintptr_t)h->objs;
				if (unlikely(off > h->arena_len - h->elt_size))
					return ewyk_pool_put_slow(pool, obj);
				oh = (const struct ewyk_pool_objhdr *)(void
						*)((char *)obj + h->hdr_off);
				if (unlikely(oh->owner != lcore ||
					    (uintptr_t)oh->idx * h->elt_size !=
						    off))
					return ewyk_pool_put_slow(pool, obj);
			} else if (unlikely(obj == NULL)) {
				return ewyk_pool_put_slow(pool, obj);
			}
			ewyk_ctr_add(&lc->stats.put_cached, 1);
			lc->objs[lc->len++] = obj;
			return 0;
		}
	}
	return ewyk_pool_put_slow(pool, obj);
}

/**
 * Write the counters of every registered pool as Prometheus text
 * exposition (format 0.0.4): ewyk_pool_<name>_total for a counter, ewyk_pool_<name> for a gauge, one sample per object labelled
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
int ewyk_pool_prometheus(char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* EWYK_POOL_H */
