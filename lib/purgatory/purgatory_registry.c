/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Purgatories in the registry of lib/common (memzone "ewyk_purgatory"),
 * and their telemetry, in the scheme of docs/guides/telemetry.md:
 *   /ewyk/purgatory/list          names
 *   /ewyk/purgatory/stats         counters summed over the purgatories
 *   /ewyk/purgatory/stats,<name>  counters of one purgatory
 */

#include <rte_errno.h>

#include <ewyk_common.h>

#include "purgatory_private.h"

/* The stats table: struct ewyk_purgatory_stats, field by field. */
#define PG_STATS(X)                                                             \
	X(ADDED, added, COUNTER, "Operations added")                            \
	X(COMPLETED, completed, COUNTER, "on_complete callbacks run")           \
	X(EXPIRED, expired, COUNTER, "on_expire callbacks run")                 \
	X(CANCELLED, cancelled, COUNTER, "Operations cancelled")                \
	X(RACES_LOST, races_lost, COUNTER,                                      \
		"Owner-side expiry, completion or cancel that lost to a claim") \
	X(PURGES, purges, COUNTER, "Full sweeps of the watch lists")            \
	X(PURGED, purged, COUNTER, "Stale watch entries dropped")               \
	X(FULL, full, COUNTER, "Adds refused with ENOSPC")                      \
	X(OPS_IN_USE, ops_in_use, GAUGE, "Operations pending or claimed")       \
	X(WATCHES_IN_USE, watches_in_use, GAUGE, "Watch entries in lists")      \
	X(KEYS_IN_USE, keys_in_use, GAUGE, "Keys with a watch list")

static const struct ewyk_ctr_desc pg_ctr[] = { PG_STATS(EWYK_CTR_DESC) };

static void
pg_read(const void *obj, uint64_t *v)
{
	struct ewyk_purgatory_stats s;
	unsigned int i = 0;

	ewyk_purgatory_stats_get(obj, &s);
#define PG_READ(sym, name, type, help) v[i++] = s.name;
	PG_STATS(PG_READ)
#undef PG_READ
}

static const struct ewyk_registry purgatory_registry = {
	.lib = "purgatory",
	.what = "purgatories",
	.ctr = pg_ctr,
	.nb_ctr = RTE_DIM(pg_ctr),
	.read = pg_read,
	.prom_label = "name",
};

EWYK_REGISTRY_TELEMETRY(purgatory_registry)

int
pg_register(struct ewyk_purgatory *p)
{
	int ret = ewyk_registry_add(&purgatory_registry, p->name, p);

	if (ret < 0) {
		PG_LOG(ERR, "%s: cannot register: %s", p->name,
			rte_strerror(-ret));
		return ret;
	}
	p->reg = &purgatory_registry;
	return 0;
}

void
pg_unregister(struct ewyk_purgatory *p)
{
	if (p->reg == NULL)
		return;
	ewyk_registry_del(&purgatory_registry, p);
	p->reg = NULL;
}

int
ewyk_purgatory_prometheus(char *buf, size_t size)
{
	return ewyk_registry_prometheus(&purgatory_registry,
		purgatory_registry.prom_label, buf, size);
}
