/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Registry of purgatories and their telemetry.
 *
 * Each purgatory owns a small memzone "ewyk_pg_<name>" holding a pointer to
 * it: the EAL's memzone table is the registry, and a duplicate name fails
 * there with EEXIST.
 *
 * Telemetry:
 *   /ewyk/purgatory/list          names
 *   /ewyk/purgatory/stats[,name]  counters of one purgatory, or the sum
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_memzone.h>
#include <rte_telemetry.h>

#include "purgatory_private.h"

#define PG_MZ_PREFIX "ewyk_pg_"

static_assert(sizeof(PG_MZ_PREFIX) - 1 + EWYK_PURGATORY_NAMESIZE <=
	RTE_MEMZONE_NAMESIZE, "memzone name must fit");

int
pg_register(struct ewyk_purgatory *p)
{
	char mzname[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;

	snprintf(mzname, sizeof(mzname), PG_MZ_PREFIX "%s", p->name);
	mz = rte_memzone_reserve(mzname, sizeof(p), SOCKET_ID_ANY, 0);
	if (mz == NULL) {
		int err = rte_errno == EEXIST ? EEXIST : ENOMEM;

		PG_LOG(ERR, "%s: cannot register: %s", p->name,
			rte_strerror(rte_errno));
		return -err;
	}
	*(struct ewyk_purgatory **)mz->addr = p;
	p->mz = mz;
	return 0;
}

void
pg_unregister(struct ewyk_purgatory *p)
{
	const struct rte_memzone *mz = p->mz;

	if (mz == NULL)
		return;
	*(struct ewyk_purgatory **)mz->addr = NULL;
	rte_memzone_free(mz);
	p->mz = NULL;
}

static struct ewyk_purgatory *
pg_from_mz(const struct rte_memzone *mz)
{
	if (strncmp(mz->name, PG_MZ_PREFIX, sizeof(PG_MZ_PREFIX) - 1) != 0)
		return NULL;
	return *(struct ewyk_purgatory *const *)mz->addr;
}

static void
pg_list_one(const struct rte_memzone *mz, void *arg)
{
	struct ewyk_purgatory *p = pg_from_mz(mz);

	if (p != NULL)
		rte_tel_data_add_array_string(arg, p->name);
}

static int
pg_tel_list(const char *cmd __rte_unused, const char *params __rte_unused,
		struct rte_tel_data *d)
{
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	rte_memzone_walk(pg_list_one, d);
	return 0;
}

struct pg_sum {
	const char *name;	/* NULL: all */
	unsigned int found;
	struct ewyk_purgatory_stats s;
};

static void
pg_sum_one(const struct rte_memzone *mz, void *arg)
{
	struct ewyk_purgatory *p = pg_from_mz(mz);
	struct pg_sum *sum = arg;
	struct ewyk_purgatory_stats s;

	if (p == NULL)
		return;
	if (sum->name != NULL && strcmp(sum->name, p->name) != 0)
		return;
	ewyk_purgatory_stats_get(p, &s);
	sum->found++;
	sum->s.added += s.added;
	sum->s.completed += s.completed;
	sum->s.expired += s.expired;
	sum->s.cancelled += s.cancelled;
	sum->s.races_lost += s.races_lost;
	sum->s.purges += s.purges;
	sum->s.purged += s.purged;
	sum->s.full += s.full;
	sum->s.ops_in_use += s.ops_in_use;
	sum->s.watches_in_use += s.watches_in_use;
	sum->s.keys_in_use += s.keys_in_use;
}

static int
pg_tel_stats(const char *cmd __rte_unused, const char *params,
		struct rte_tel_data *d)
{
	struct pg_sum sum;

	memset(&sum, 0, sizeof(sum));
	if (params != NULL && params[0] != '\0')
		sum.name = params;
	rte_memzone_walk(pg_sum_one, &sum);
	if (sum.name != NULL && sum.found == 0)
		return -EINVAL;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "purgatories", sum.found);
	rte_tel_data_add_dict_u64(d, "added", sum.s.added);
	rte_tel_data_add_dict_u64(d, "completed", sum.s.completed);
	rte_tel_data_add_dict_u64(d, "expired", sum.s.expired);
	rte_tel_data_add_dict_u64(d, "cancelled", sum.s.cancelled);
	rte_tel_data_add_dict_u64(d, "races_lost", sum.s.races_lost);
	rte_tel_data_add_dict_u64(d, "purges", sum.s.purges);
	rte_tel_data_add_dict_u64(d, "purged", sum.s.purged);
	rte_tel_data_add_dict_u64(d, "full", sum.s.full);
	rte_tel_data_add_dict_u64(d, "ops_in_use", sum.s.ops_in_use);
	rte_tel_data_add_dict_u64(d, "watches_in_use", sum.s.watches_in_use);
	rte_tel_data_add_dict_u64(d, "keys_in_use", sum.s.keys_in_use);
	return 0;
}

RTE_INIT(ewyk_purgatory_telemetry)
{
	rte_telemetry_register_cmd("/ewyk/purgatory/list", pg_tel_list,
		"Names of the purgatories. No parameters");
	rte_telemetry_register_cmd("/ewyk/purgatory/stats", pg_tel_stats,
		"Purgatory counters. Parameter: name, or none for the sum of all");
}
