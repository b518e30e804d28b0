/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters: names (from the one list, EWYK_NET_COUNTERS), per-shard reads
 * and sums, and telemetry. Shards are in the registry of lib/common
 * (memzone "ewyk_net") under their id, so the commands follow the scheme
 * of docs/guides/telemetry.md:
 *   /ewyk/net/list        shard ids
 *   /ewyk/net/stats       counters summed over the shards
 *   /ewyk/net/stats,<id>  counters of one shard
 */

#include <stdio.h>

#include <ewyk_common.h>

#include "net_private.h"

static const struct ewyk_ctr_desc net_ctr[] = { EWYK_NET_COUNTERS(
	EWYK_CTR_DESC) };
static_assert(RTE_DIM(net_ctr) == EWYK_NET_COUNTER_MAX, "one name each");

const char *
ewyk_net_counter_name(enum ewyk_net_counter c)
{
	if ((unsigned int)c >= EWYK_NET_COUNTER_MAX)
		return NULL;
	return net_ctr[c].name;
}

uint64_t
ewyk_net_counter_get(const struct ewyk_net_shard *s, enum ewyk_net_counter c)
{
	if (s == NULL || (unsigned int)c >= EWYK_NET_COUNTER_MAX)
		return 0;
	return __atomic_load_n(&s->ctr[c], __ATOMIC_RELAXED);
}

uint64_t
ewyk_net_counter_sum(const struct ewyk_net *net, enum ewyk_net_counter c)
{
	uint64_t sum = 0;
	uint16_t i;

	if (net == NULL)
		return 0;
	for (i = 0; i < net->nb_shards; i++)
		sum += ewyk_net_counter_get(net->shards[i], c);
	return sum;
}

static void
net_read(const void *obj, uint64_t *v)
{
	unsigned int c;

	for (c = 0; c < EWYK_NET_COUNTER_MAX; c++)
		v[c] = ewyk_net_counter_get(obj, c);
}

static const struct ewyk_registry net_registry = {
	.lib = "net",
	.what = "network shards",
	.ctr = net_ctr,
	.nb_ctr = RTE_DIM(net_ctr),
	.read = net_read,
	.prom_label = "shard",
};

EWYK_REGISTRY_TELEMETRY(net_registry)

int
net_shard_register(struct ewyk_net_shard *s)
{
	char name[8];

	snprintf(name, sizeof(name), "%u", s->id);
	return ewyk_registry_add(&net_registry, name, s);
}

void
net_shard_unregister(struct ewyk_net_shard *s)
{
	ewyk_registry_del(&net_registry, s);
}

int
ewyk_net_prometheus(char *buf, size_t size)
{
	return ewyk_registry_prometheus(&net_registry, net_registry.prom_label,
		buf, size);
}
