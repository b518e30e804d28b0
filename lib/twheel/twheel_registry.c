/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Named wheels in the registry of lib/common (memzone "ewyk_twheel"), and
 * their telemetry, in the scheme of docs/guides/telemetry.md:
 *   /ewyk/twheel/list          names of the wheels
 *   /ewyk/twheel/stats         counters summed over the wheels
 *   /ewyk/twheel/stats,<name>  counters of one wheel
 */

#include <rte_errno.h>

#include <ewyk_common.h>

#include "twheel_private.h"

/* The stats table: struct ewyk_twheel_stats, field by field. */
#define TW_STATS(X)                                                     \
	X(ARMED, armed, COUNTER, "Timers armed")                        \
	X(REARMED, rearmed, COUNTER, "Timers re-armed")                 \
	X(CANCELLED, cancelled, COUNTER, "Pending timers cancelled")    \
	X(FIRED, fired, COUNTER, "Timer callbacks run")                 \
	X(CASCADED, cascaded, COUNTER,                                  \
		"Timers moved to a finer level, lazy re-arms included") \
	X(PENDING, pending, GAUGE, "Timers pending")

static const struct ewyk_ctr_desc tw_ctr[] = { TW_STATS(EWYK_CTR_DESC) };

static void
tw_read(const void *obj, uint64_t *v)
{
	struct ewyk_twheel_stats s;
	unsigned int i = 0;

	ewyk_twheel_stats_get(obj, &s);
#define TW_READ(sym, name, type, help) v[i++] = s.name;
	TW_STATS(TW_READ)
#undef TW_READ
}

static const struct ewyk_registry twheel_registry = {
	.lib = "twheel",
	.what = "timer wheels",
	.ctr = tw_ctr,
	.nb_ctr = RTE_DIM(tw_ctr),
	.read = tw_read,
	.prom_label = "name",
};

EWYK_REGISTRY_TELEMETRY(twheel_registry)

int
twheel_register(struct ewyk_twheel *w)
{
	int ret = ewyk_registry_add(&twheel_registry, w->name, w);

	if (ret < 0) {
		TWHEEL_LOG(ERR, "%s: cannot register: %s", w->name,
			rte_strerror(-ret));
		return ret;
	}
	w->te = (void *)(uintptr_t)&twheel_registry;
	return 0;
}

void
twheel_unregister(struct ewyk_twheel *w)
{
	if (w->te == NULL)
		return;
	ewyk_registry_del(&twheel_registry, w);
	w->te = NULL;
}

int
ewyk_twheel_prometheus(char *buf, size_t size)
{
	return ewyk_registry_prometheus(&twheel_registry,
		twheel_registry.prom_label, buf, size);
}
