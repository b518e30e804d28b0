/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry of the HTTP/2 layer: every server is registered in lib/
 * common's registry (memzone "ewyk_http2") under its shard id, which
 * gives /ewyk/http2/list, /ewyk/http2/stats and /ewyk/http2/stats,<shard>,
 * and the ewyk_http2_*_total series of the metrics page.
 */

#include <stdio.h>

#include <ewyk_common.h>

#include "http2_private.h"

static const struct ewyk_ctr_desc h2_reg_ctr[] = { EWYK_HTTP2_COUNTERS(
	EWYK_CTR_DESC) };

static const char *const h2_ctr_names[] = {
#define H2_NAME(sym, name, type, help) #name,
	EWYK_HTTP2_COUNTERS(H2_NAME)
#undef H2_NAME
};

static void
h2_read(const void *obj, uint64_t *v)
{
	const struct ewyk_http2_server *s = obj;
	unsigned int c;

	for (c = 0; c < EWYK_HTTP2_C_MAX; c++)
		v[c] = __atomic_load_n(&s->ctr[c], __ATOMIC_RELAXED);
}

static void
h2_describe(const void *obj, struct rte_tel_data *d)
{
	const struct ewyk_http2_server *s = obj;

	rte_tel_data_add_dict_u64(d, "max_conns", s->conf.max_conns);
	rte_tel_data_add_dict_u64(d, "conns_in_use", s->nconns);
	rte_tel_data_add_dict_u64(d, "max_streams", s->conf.max_streams);
	rte_tel_data_add_dict_u64(d, "streams_in_use", s->nst);
	rte_tel_data_add_dict_u64(d, "max_concurrent_streams",
		s->conf.max_concurrent_streams);
	rte_tel_data_add_dict_u64(d, "max_header_list",
		s->conf.max_header_list);
	rte_tel_data_add_dict_u64(d, "max_header_fields",
		s->conf.max_header_fields);
	rte_tel_data_add_dict_u64(d, "body_budget", s->conf.body_budget);
	rte_tel_data_add_dict_u64(d, "body_budget_per_src",
		s->conf.body_budget_per_src);
}

static const struct ewyk_registry h2_reg = {
	.lib = "http2",
	.what = "HTTP/2 layers (one per shard)",
	.ctr = h2_reg_ctr,
	.nb_ctr = RTE_DIM(h2_reg_ctr),
	.read = h2_read,
	.describe = h2_describe,
	.prom_label = "shard",
};

EWYK_REGISTRY_TELEMETRY(h2_reg)

void
h2_stats_register(struct ewyk_http2_server *s)
{
	char name[16];

	snprintf(name, sizeof(name), "%u", s->conf.shard_id);
	s->registered = ewyk_registry_add(&h2_reg, name, s) == 0;
}

void
h2_stats_unregister(struct ewyk_http2_server *s)
{
	if (s->registered)
		ewyk_registry_del(&h2_reg, s);
	s->registered = 0;
}

uint64_t
ewyk_http2_server_counter(const struct ewyk_http2_server *s,
	enum ewyk_http2_counter ctr)
{
	if (s == NULL || (unsigned int)ctr >= EWYK_HTTP2_C_MAX)
		return 0;
	return __atomic_load_n(&s->ctr[ctr], __ATOMIC_RELAXED);
}

const char *
ewyk_http2_counter_name(enum ewyk_http2_counter ctr)
{
	return (unsigned int)ctr < EWYK_HTTP2_C_MAX ? h2_ctr_names[ctr] : NULL;
}
