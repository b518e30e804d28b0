/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry of the connection layer: every server is registered in lib/
 * common's registry (memzone "ewyk_http") under its shard id, which gives
 * /ewyk/http/list, /ewyk/http/stats (totals) and /ewyk/http/stats,<shard>
 * (docs/guides/telemetry.md). A second server with a shard id already
 * registered (tests make several) works but is not listed. Also what a
 * server tells about itself: the limits it enforces.
 */

#include <errno.h>
#include <stdio.h>

#include <rte_common.h>

#include <ewyk_common.h>

#include "http_private.h"

static const struct ewyk_ctr_desc http_reg_ctr[] = { EWYK_HTTP_COUNTERS(
	EWYK_CTR_DESC) };

static void
http_read(const void *obj, uint64_t *v)
{
	const struct ewyk_http_server *s = obj;
	unsigned int c;

	for (c = 0; c < EWYK_HTTP_C_MAX; c++)
		v[c] = __atomic_load_n(&s->ctr[c], __ATOMIC_RELAXED);
}

static void
http_describe(const void *obj, struct rte_tel_data *d)
{
	const struct ewyk_http_server *s = obj;
	struct ewyk_http_slots_info si;

	rte_tel_data_add_dict_u64(d, "max_conns", s->conf.max_conns);
	rte_tel_data_add_dict_u64(d, "conns_in_use", s->in_use);
	rte_tel_data_add_dict_u64(d, "conns_idle", s->nidle);
	rte_tel_data_add_dict_u64(d, "max_heads", s->conf.max_heads);
	rte_tel_data_add_dict_u64(d, "heads_in_use", s->leases);
	if (ewyk_http_server_slots(s, &si) == 0) {
		rte_tel_data_add_dict_u64(d, "conn_mem_bytes",
			si.conn_mem_bytes);
		rte_tel_data_add_dict_u64(d, "lease_bytes", si.lease_bytes);
		rte_tel_data_add_dict_u64(d, "lease_mem_bytes",
			si.lease_mem_bytes);
	}
	rte_tel_data_add_dict_u64(d, "max_conns_per_src",
		s->conf.max_conns_per_src);
	rte_tel_data_add_dict_u64(d, "max_heads_per_src",
		s->conf.max_heads_per_src);
	rte_tel_data_add_dict_u64(d, "max_body", s->conf.lim.max_body);
}

static const struct ewyk_registry http_reg = {
	.lib = "http",
	.what = "HTTP servers (one per shard)",
	.ctr = http_reg_ctr,
	.nb_ctr = RTE_DIM(http_reg_ctr),
	.read = http_read,
	.describe = http_describe,
	.prom_label = "shard",
};

EWYK_REGISTRY_TELEMETRY(http_reg)

void
http_stats_register(struct ewyk_http_server *s)
{
	char name[16];

	snprintf(name, sizeof(name), "%u", s->conf.shard_id);
	s->registered = ewyk_registry_add(&http_reg, name, s) == 0;
}

void
http_stats_unregister(struct ewyk_http_server *s)
{
	if (s->registered)
		ewyk_registry_del(&http_reg, s);
	s->registered = 0;
}

int
ewyk_http_server_limits(const struct ewyk_http_server *s,
	struct ewyk_http_limits *lim, uint16_t *max_headers)
{
	if (s == NULL || lim == NULL || max_headers == NULL)
		return -EINVAL;
	/* Every connection's parser has the same limits, defaults filled. */
	*lim = s->lim;
	*max_headers = s->max_headers;
	return 0;
}
