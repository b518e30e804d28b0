/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Mempool driver "ewyk": rte_mempool objects kept in an EXTERNAL ewyk_pool,
 * so rte_pktmbuf_pool_create_by_ops(..., "ewyk") gives an mbuf pool whose
 * backing store is the lock-free entry array with its per-lcore LIFO cache.
 *
 * The mempool owns the object memory and has its own optional cache in
 * front; this driver only stores pointers. Its own cache (twice the
 * mempool's, a quarter of the mempool size at most) absorbs the mempool's
 * bulk refills and flushes without an atomic operation, and threads without lcore id use the shared
 * array directly (lock-free).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_mempool.h>

#include <ewyk_pool.h>

RTE_LOG_REGISTER(ewyk_mempool_logtype, ewyk.mempool, INFO);

#define MP_LOG(level, fmt, ...)                        \
	rte_log(RTE_LOG_##level, ewyk_mempool_logtype, \
		"ewyk.mempool: " fmt "\n", ##__VA_ARGS__)

/* Driver cache when the mempool has none. */
#define EWYK_MP_DEFAULT_CACHE 256

static int
ewyk_mp_alloc(struct rte_mempool *mp)
{
	struct ewyk_pool_params prm = {
		.capacity = mp->size,
		.flags = EWYK_POOL_F_EXTERNAL,
		.socket_id = mp->socket_id == SOCKET_ID_ANY ?
			EWYK_POOL_SOCKET_ANY :
			mp->socket_id,
		.strategy = EWYK_POOL_STRATEGY_LCORE,
	};
	char name[EWYK_POOL_NAMESIZE];
	struct ewyk_pool *pool;
	uint32_t cache;

	/*
	 * The mempool cache flushes up to 1.5 x its size at once and refills
	 * about its size plus the request: twice its size lets the driver
	 * cache take both without going to the shared array.
	 */
	cache = mp->cache_size != 0 ? 2 * mp->cache_size :
				      EWYK_MP_DEFAULT_CACHE;
	cache = RTE_MIN(cache, (uint32_t)EWYK_POOL_CACHE_MAX);
	cache = RTE_MIN(cache, mp->size / 4);
	prm.cache_size = cache;
	snprintf(name, sizeof(name), "mp_%.*s", EWYK_POOL_NAMESIZE - 4,
		mp->name);
	prm.name = name;
	pool = ewyk_pool_create(&prm);
	if (pool == NULL && rte_errno == EEXIST) {
		/* Truncated names may collide: name it after the mempool. */
		snprintf(name, sizeof(name), "mp_%" PRIxPTR, (uintptr_t)mp);
		pool = ewyk_pool_create(&prm);
	}
	if (pool == NULL) {
		MP_LOG(ERR, "%s: cannot create the ewyk pool: %s", mp->name,
			rte_strerror(rte_errno));
		return -rte_errno;
	}
	mp->pool_data = pool;
	return 0;
}

static void
ewyk_mp_free(struct rte_mempool *mp)
{
	ewyk_pool_free(mp->pool_data);
	mp->pool_data = NULL;
}

static int
ewyk_mp_enqueue(struct rte_mempool *mp, void *const *obj_table, unsigned int n)
{
	unsigned int done = ewyk_pool_put_bulk(mp->pool_data, obj_table, n);

	if (unlikely(done != n)) {
		MP_LOG(ERR, "%s: %u of %u objects not stored", mp->name,
			n - done, n);
		return -ENOBUFS;
	}
	return 0;
}

static int
ewyk_mp_dequeue(struct rte_mempool *mp, void **obj_table, unsigned int n)
{
	if (ewyk_pool_get_bulk(mp->pool_data, obj_table, n) != n)
		return -ENOBUFS;
	return 0;
}

static unsigned int
ewyk_mp_get_count(const struct rte_mempool *mp)
{
	struct ewyk_pool_info info;

	if (ewyk_pool_info_get(mp->pool_data, &info) != 0)
		return 0;
	return info.n_idle + info.n_cached;
}

static struct rte_mempool_ops ewyk_mp_ops = {
	.name = "ewyk",
	.alloc = ewyk_mp_alloc,
	.free = ewyk_mp_free,
	.enqueue = ewyk_mp_enqueue,
	.dequeue = ewyk_mp_dequeue,
	.get_count = ewyk_mp_get_count,
};

RTE_MEMPOOL_REGISTER_OPS(ewyk_mp_ops);
