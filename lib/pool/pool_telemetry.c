/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pools in the registry of lib/common (memzone "ewyk_pool"), and their
 * telemetry, in the scheme of docs/guides/telemetry.md:
 *   /ewyk/pool/list          names of the pools
 *   /ewyk/pool/stats         gauges and counters summed over the pools
 *   /ewyk/pool/stats,<name>  configuration, gauges and counters of one pool
 */

#include <rte_errno.h>

#include <ewyk_common.h>

#include "pool_private.h"

/* Gauges of struct ewyk_pool_info, then struct ewyk_pool_stats. */
#define POOL_INFO(X)                                                         \
	X(CAPACITY, capacity, GAUGE, "Entries")                              \
	X(N_FREE, n_free, GAUGE, "FREE entries")                             \
	X(N_RESERVED, n_reserved, GAUGE, "RESERVED entries")                 \
	X(N_IDLE, n_idle, GAUGE, "ACTIVE entries with no holder")            \
	X(N_IN_USE, n_in_use, GAUGE, "ACTIVE entries held, caches included") \
	X(N_CLOSED, n_closed, GAUGE, "CLOSED entries still held")            \
	X(N_CACHED, n_cached, GAUGE, "Objects in lcore caches")              \
	X(N_HANDBACK, n_handback, GAUGE,                                     \
		"Objects on their way back to their owner")
#define POOL_STATS(X)                                                         \
	X(GET_HITS, get_hits, COUNTER, "Objects got from an lcore cache")     \
	X(GET_MISSES, get_misses, COUNTER, "Cache refills and uncached gets") \
	X(GET_SHARED, get_shared, COUNTER,                                    \
		"Objects acquired from the shared array")                     \
	X(GET_CREATED, get_created, COUNTER,                                  \
		"FREE slots constructed by a get")                            \
	X(EXHAUSTED, exhausted, COUNTER, "Gets that failed with ENOBUFS")     \
	X(PUT_CACHED, put_cached, COUNTER, "Objects put into an lcore cache") \
	X(PUT_SHARED, put_shared, COUNTER,                                    \
		"Objects released to the shared array")                       \
	X(REMOTE_FREES, remote_frees, COUNTER,                                \
		"Puts by an lcore not owning the object")                     \
	X(HANDBACK, handback, COUNTER, "Objects handed back to their owner")  \
	X(HANDBACK_FULL, handback_full, COUNTER,                              \
		"Hand-backs that found the ring full")                        \
	X(DRAINED, drained, COUNTER,                                          \
		"Handed-back objects drained by the owner")                   \
	X(RETIRED, retired, COUNTER, "Objects retired at max_usage")          \
	X(REMOVED, removed, COUNTER, "Objects removed (made FREE)")           \
	X(RESERVED, reserved, COUNTER, "Successful reserve calls")

static const struct ewyk_ctr_desc pool_ctr[] = { POOL_INFO(EWYK_CTR_DESC)
		POOL_STATS(EWYK_CTR_DESC) };

static void
pool_read(const void *obj, uint64_t *v)
{
	struct ewyk_pool_info info;
	struct ewyk_pool_stats st;
	unsigned int i = 0;

	ewyk_pool_info_get(obj, &info);
	ewyk_pool_stats_get(obj, &st);
#define POOL_READ_INFO(sym, name, type, help) v[i++] = info.name;
#define POOL_READ_STATS(sym, name, type, help) v[i++] = st.name;
	POOL_INFO(POOL_READ_INFO)
	POOL_STATS(POOL_READ_STATS)
#undef POOL_READ_INFO
#undef POOL_READ_STATS
}

/* Configuration: what does not add up over pools. */
static void
pool_describe(const void *obj, struct rte_tel_data *d)
{
	struct ewyk_pool_info info;

	ewyk_pool_info_get(obj, &info);
	rte_tel_data_add_dict_u64(d, "obj_size", info.obj_size);
	rte_tel_data_add_dict_u64(d, "elt_size", info.elt_size);
	rte_tel_data_add_dict_u64(d, "cache_size", info.cache_size);
	rte_tel_data_add_dict_u64(d, "max_multiplex", info.max_multiplex);
	rte_tel_data_add_dict_u64(d, "max_usage", info.max_usage);
	rte_tel_data_add_dict_u64(d, "flags", info.flags);
	rte_tel_data_add_dict_string(d, "strategy",
		ewyk_pool_strategy_name(info.strategy));
	rte_tel_data_add_dict_int(d, "socket_id", info.socket_id);
}

static const struct ewyk_registry pool_registry = {
	.lib = "pool",
	.what = "pools",
	.ctr = pool_ctr,
	.nb_ctr = RTE_DIM(pool_ctr),
	.read = pool_read,
	.describe = pool_describe,
	.prom_label = "name",
};

EWYK_REGISTRY_TELEMETRY(pool_registry)

int
pool_register(struct ewyk_pool *p)
{
	return ewyk_registry_add(&pool_registry, p->name, p);
}

void
pool_unregister(struct ewyk_pool *p)
{
	ewyk_registry_del(&pool_registry, p);
}

struct ewyk_pool *
pool_lookup(const char *name)
{
	return ewyk_registry_lookup(&pool_registry, name);
}

int
ewyk_pool_prometheus(char *buf, size_t size)
{
	return ewyk_registry_prometheus(&pool_registry,
		pool_registry.prom_label, buf, size);
}
