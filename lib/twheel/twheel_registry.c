/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Registry of named wheels and their telemetry.
 *
 * Each named wheel owns a small memzone "ewyk_tw_<name>" that holds a
 * pointer to it: the EAL's memzone table is the registry (no global list
 * here), and a duplicate name fails there with EEXIST.
 *
 * Telemetry:
 *   /ewyk/twheel/list          names of the wheels
 *   /ewyk/twheel/stats[,name]  counters of one wheel, or summed over all
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_memzone.h>
#include <rte_telemetry.h>

#include "twheel_private.h"

#define TW_MZ_PREFIX "ewyk_tw_"

static_assert(sizeof(TW_MZ_PREFIX) - 1 + EWYK_TWHEEL_NAMESIZE <=
	RTE_MEMZONE_NAMESIZE, "memzone name must fit");

int
twheel_register(struct ewyk_twheel *w)
{
	char mzname[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;

	snprintf(mzname, sizeof(mzname), TW_MZ_PREFIX "%s", w->name);
	mz = rte_memzone_reserve(mzname, sizeof(w), SOCKET_ID_ANY, 0);
	if (mz == NULL) {
		int err = rte_errno == EEXIST ? EEXIST : ENOMEM;

		TWHEEL_LOG(ERR, "%s: cannot register: %s", w->name,
			rte_strerror(rte_errno));
		return -err;
	}
	*(struct ewyk_twheel **)mz->addr = w;
	w->te = (void *)(uintptr_t)mz;
	return 0;
}

void
twheel_unregister(struct ewyk_twheel *w)
{
	const struct rte_memzone *mz = w->te;

	if (mz == NULL)
		return;
	*(struct ewyk_twheel **)mz->addr = NULL;
	rte_memzone_free(mz);
	w->te = NULL;
}

static struct ewyk_twheel *
tw_from_mz(const struct rte_memzone *mz)
{
	if (strncmp(mz->name, TW_MZ_PREFIX, sizeof(TW_MZ_PREFIX) - 1) != 0)
		return NULL;
	return *(struct ewyk_twheel *const *)mz->addr;
}

static void
tw_list_one(const struct rte_memzone *mz, void *arg)
{
	struct ewyk_twheel *w = tw_from_mz(mz);

	if (w != NULL)
		rte_tel_data_add_array_string(arg, w->name);
}

static int
tw_tel_list(const char *cmd __rte_unused, const char *params __rte_unused,
		struct rte_tel_data *d)
{
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	rte_memzone_walk(tw_list_one, d);
	return 0;
}

struct tw_sum {
	const char *name;	/* NULL: all wheels */
	unsigned int found;
	struct ewyk_twheel_stats s;
};

static void
tw_sum_one(const struct rte_memzone *mz, void *arg)
{
	struct ewyk_twheel *w = tw_from_mz(mz);
	struct tw_sum *sum = arg;
	struct ewyk_twheel_stats s;

	if (w == NULL)
		return;
	if (sum->name != NULL && strcmp(sum->name, w->name) != 0)
		return;
	ewyk_twheel_stats_get(w, &s);
	sum->found++;
	sum->s.armed += s.armed;
	sum->s.rearmed += s.rearmed;
	sum->s.cancelled += s.cancelled;
	sum->s.fired += s.fired;
	sum->s.cascaded += s.cascaded;
	sum->s.pending += s.pending;
}

static int
tw_tel_stats(const char *cmd __rte_unused, const char *params,
		struct rte_tel_data *d)
{
	struct tw_sum sum;

	memset(&sum, 0, sizeof(sum));
	if (params != NULL && params[0] != '\0')
		sum.name = params;
	rte_memzone_walk(tw_sum_one, &sum);
	if (sum.name != NULL && sum.found == 0)
		return -EINVAL;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "wheels", sum.found);
	rte_tel_data_add_dict_u64(d, "armed", sum.s.armed);
	rte_tel_data_add_dict_u64(d, "rearmed", sum.s.rearmed);
	rte_tel_data_add_dict_u64(d, "cancelled", sum.s.cancelled);
	rte_tel_data_add_dict_u64(d, "fired", sum.s.fired);
	rte_tel_data_add_dict_u64(d, "cascaded", sum.s.cascaded);
	rte_tel_data_add_dict_u64(d, "pending", sum.s.pending);
	return 0;
}

RTE_INIT(ewyk_twheel_telemetry)
{
	rte_telemetry_register_cmd("/ewyk/twheel/list", tw_tel_list,
		"Names of the timer wheels. No parameters");
	rte_telemetry_register_cmd("/ewyk/twheel/stats", tw_tel_stats,
		"Timer wheel counters. Parameter: wheel name, or none for the sum of all");
}
