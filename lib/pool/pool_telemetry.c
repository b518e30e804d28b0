/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry: /ewyk/pool/list and /ewyk/pool/stats,<name>. The registry is
 * the memzone list (each pool lives in a memzone named EWYKP_<name>), walked
 * under the memzone lock, so a pool being freed is never read.
 */

#include <string.h>

#include <rte_memzone.h>
#include <rte_telemetry.h>

#include "pool_private.h"

static void
list_cb(const struct rte_memzone *mz, void *arg)
{
	struct rte_tel_data *d = arg;
	const struct ewyk_pool *p = mz->addr;

	if (strncmp(mz->name, POOL_MZ_PREFIX, strlen(POOL_MZ_PREFIX)) != 0)
		return;
	rte_tel_data_add_array_string(d, p->name);
}

static int
tel_list(const char *cmd __rte_unused, const char *params __rte_unused,
		struct rte_tel_data *d)
{
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	rte_memzone_walk(list_cb, d);
	return 0;
}

struct stats_arg {
	const char *name;
	struct rte_tel_data *d;
	int found;
};

#define ADD_U64(d, s, f) rte_tel_data_add_dict_u64(d, #f, (s)->f)

static void
stats_cb(const struct rte_memzone *mz, void *arg)
{
	struct stats_arg *a = arg;
	const struct ewyk_pool *p = mz->addr;
	struct ewyk_pool_info info;
	struct ewyk_pool_stats st;
	struct rte_tel_data *d = a->d;

	if (strncmp(mz->name, POOL_MZ_PREFIX, strlen(POOL_MZ_PREFIX)) != 0 ||
			strcmp(p->name, a->name) != 0)
		return;
	a->found = 1;
	ewyk_pool_info_get(p, &info);
	ewyk_pool_stats_get(p, &st);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "name", info.name);
	ADD_U64(d, &info, capacity);
	ADD_U64(d, &info, obj_size);
	ADD_U64(d, &info, elt_size);
	ADD_U64(d, &info, cache_size);
	ADD_U64(d, &info, max_multiplex);
	ADD_U64(d, &info, max_usage);
	ADD_U64(d, &info, flags);
	rte_tel_data_add_dict_string(d, "strategy",
		ewyk_pool_strategy_name(info.strategy));
	rte_tel_data_add_dict_int(d, "socket_id", info.socket_id);
	ADD_U64(d, &info, n_free);
	ADD_U64(d, &info, n_reserved);
	ADD_U64(d, &info, n_idle);
	ADD_U64(d, &info, n_in_use);
	ADD_U64(d, &info, n_closed);
	ADD_U64(d, &info, n_cached);
	ADD_U64(d, &info, n_handback);
	ADD_U64(d, &st, get_hits);
	ADD_U64(d, &st, get_misses);
	ADD_U64(d, &st, get_shared);
	ADD_U64(d, &st, get_created);
	ADD_U64(d, &st, exhausted);
	ADD_U64(d, &st, put_cached);
	ADD_U64(d, &st, put_shared);
	ADD_U64(d, &st, remote_frees);
	ADD_U64(d, &st, handback);
	ADD_U64(d, &st, handback_full);
	ADD_U64(d, &st, drained);
	ADD_U64(d, &st, retired);
	ADD_U64(d, &st, removed);
	ADD_U64(d, &st, reserved);
}

static int
tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct stats_arg a = { .name = params, .d = d, .found = 0 };

	if (params == NULL || params[0] == '\0')
		return tel_list(cmd, params, d);
	rte_memzone_walk(stats_cb, &a);
	return a.found ? 0 : -EINVAL;
}

void
pool_telemetry_register(void)
{
	rte_telemetry_register_cmd("/ewyk/pool/list", tel_list,
		"Lists the ewyk pools. Takes no parameters");
	rte_telemetry_register_cmd("/ewyk/pool/stats", tel_stats,
		"Configuration, gauges and summed per-lcore counters of a pool."
		" Parameters: pool name (none: list pools)");
}
