/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection layer, the server object: one per shard, with every
 * connection's object and every head lease (parser scratch and header
 * array, http_slots.c) allocated up front on the shard's NUMA node; its
 * clock for the Date line; its counters and their Prometheus text.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include <ewyk_common.h>
#include <ewyk_twheel.h>

#include "http_private.h"

static const struct ewyk_ctr_desc http_ctr_desc[] = { EWYK_HTTP_COUNTERS(
	EWYK_CTR_DESC) };

struct ewyk_http_server *
ewyk_http_server_create(const struct ewyk_http_server_conf *conf)
{
	struct ewyk_http_server *s;
	uint32_t i, mh = EWYK_HTTP_DEF_MAX_HEADERS;

	if (conf == NULL || conf->wheel == NULL || conf->pool == NULL ||
		conf->router == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	s = rte_zmalloc_socket("ewyk_http_server", sizeof(*s),
		RTE_CACHE_LINE_SIZE, conf->socket_id);
	if (s == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	s->conf = *conf;
	if (s->conf.max_conns == 0)
		s->conf.max_conns = 1024;
	if (s->conf.header_timeout_ms == 0)
		s->conf.header_timeout_ms = 10000;
	if (s->conf.body_timeout_ms == 0)
		s->conf.body_timeout_ms = 30000;
	if (s->conf.body_min_rate == 0)
		s->conf.body_min_rate = 500;
	if (s->conf.idle_timeout_ms == 0)
		s->conf.idle_timeout_ms = 60000;
	if (s->conf.write_timeout_ms == 0)
		s->conf.write_timeout_ms = 30000;
	s->hz_ms = rte_get_tsc_hz() / 1000;
	s->scratch_size = ewyk_http_scratch_size(&s->conf.lim);
	s->max_headers = (uint16_t)mh;
	s->conns = rte_zmalloc_socket("ewyk_http_conns",
		sizeof(s->conns[0]) * s->conf.max_conns, RTE_CACHE_LINE_SIZE,
		conf->socket_id);
	/* The leases' memory (http_slots.c): max_heads, not max_conns. */
	if (s->conns == NULL || http_slots_init(s) != 0) {
		ewyk_http_server_free(s);
		rte_errno = ENOMEM;
		return NULL;
	}
	s->free_head = UINT32_MAX;
	for (i = s->conf.max_conns; i-- > 0;) {
		struct ewyk_http_conn *c = &s->conns[i];

		c->srv = s;
		ewyk_twheel_timer_init(&c->tmr);
		c->tmr_by = UINT64_MAX;
		/* Parser, scratch and header array come with a lease. */
		c->ls = NULL;
		c->req.max_headers = (uint16_t)mh;
		c->lease = HTTP_NO_LEASE;
		c->next_free = s->free_head;
		s->free_head = i;
	}
	http_stats_register(s);
	return s;
}

void
ewyk_http_server_free(struct ewyk_http_server *s)
{
	if (s == NULL)
		return;
	http_stats_unregister(s);
	if (s->conns != NULL) {
		uint32_t i;

		for (i = 0; i < s->conf.max_conns; i++) {
			if (s->conns[i].used) {
				http_conn_abort(&s->conns[i]);
				http_conn_release(&s->conns[i]);
			}
			/* Released slots leave their node parked. */
			if (ewyk_twheel_pending(&s->conns[i].tmr))
				ewyk_twheel_cancel(s->conf.wheel,
					&s->conns[i].tmr);
		}
	}
	http_slots_free(s);
	rte_free(s->conns);
	rte_free(s);
}

void
ewyk_http_server_set_time(struct ewyk_http_server *s, uint64_t unix_sec)
{
	ewyk_http_date_update(&s->date, unix_sec);
}

uint64_t
ewyk_http_server_counter(const struct ewyk_http_server *s,
	enum ewyk_http_counter ctr)
{
	if (s == NULL || (unsigned int)ctr >= EWYK_HTTP_C_MAX)
		return 0;
	return ewyk_ctr_read(&s->ctr[ctr]);
}

const char *
ewyk_http_counter_name(enum ewyk_http_counter ctr)
{
	if ((unsigned int)ctr >= EWYK_HTTP_C_MAX)
		return NULL;
	return http_ctr_desc[ctr].name;
}

uint32_t
ewyk_http_server_conns(const struct ewyk_http_server *s)
{
	return s == NULL ? 0 : s->in_use;
}

int
ewyk_http_server_prometheus(const struct ewyk_http_server *const *srv,
	unsigned int n, char *buf, size_t size)
{
	struct ewyk_prom_series *ser;
	char(*labels)[24];
	unsigned int i;
	int ret;

	if (srv == NULL && n > 0)
		return -EINVAL;
	ser = calloc(n + 1, sizeof(*ser));
	labels = calloc(n + 1, sizeof(*labels));
	if (ser == NULL || labels == NULL) {
		free(ser);
		free(labels);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (srv[i] == NULL) {
			free(ser);
			free(labels);
			return -EINVAL;
		}
		snprintf(labels[i], sizeof(labels[i]), "shard=\"%u\"",
			srv[i]->conf.shard_id);
		ser[i].labels = labels[i];
		ser[i].vals = srv[i]->ctr;
	}
	ret = ewyk_ctr_prometheus(buf, size, "ewyk_http", http_ctr_desc,
		EWYK_HTTP_C_MAX, ser, n);
	free(ser);
	free(labels);
	return ret;
}
