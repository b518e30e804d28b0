/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP of the runtime: each shard's timer wheel (shared by TCP, the
 * purgatory of jobs and the application's timers) and TCP context with
 * the limits of the configuration, listeners on every shard, and the
 * buffered sender with back-pressure that an echo-like service needs.
 *
 * A sendbuf keeps, per connection, what was received but could not be
 * sent yet (one mbuf chain, small payloads copied together by
 * ewyk_tcp_recv_append() so that it pins buffers in proportion to bytes,
 * under TCP's mbuf budgets). It hands data to TCP as the send buffer
 * allows, and reports it consumed (ewyk_tcp_recvd()) only then: a client
 * that sends faster than it reads sees the receive window close, not
 * unbounded buffering.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_telemetry.h>

#include "rt_private.h"

int
rt_tcp_shard_init(struct ewyk_rt_shard *sh)
{
	const struct ewyk_rt_conf *c = &sh->rt->conf;
	struct ewyk_twheel_params wp;
	struct ewyk_tcp_conf tc;
	char name[32];

	snprintf(name, sizeof(name), "rt_wheel_%u", sh->id);
	memset(&wp, 0, sizeof(wp));
	wp.name = name;
	wp.socket_id = sh->socket;
	sh->wheel = ewyk_twheel_create(&wp);
	if (sh->wheel == NULL) {
		RT_LOG(ERR, "error: timer wheel of shard %u: %s", sh->id,
			rte_strerror(rte_errno));
		return -1;
	}
	memset(&tc, 0, sizeof(tc));
	tc.shard = sh->net;
	tc.socket_id = sh->socket;
	tc.max_conns = c->tcp_max_conns;
	tc.max_conns_per_src = c->tcp_max_per_src;
	tc.mbuf_budget = c->tcp_mbuf_budget;
	tc.conn_mbuf_max = c->tcp_conn_mbufs;
	tc.idle_timeout_ms = c->tcp_idle_ms;
	tc.orphan_timeout_ms = c->tcp_orphan_ms;
	tc.persist_max_ms = c->tcp_persist_ms;
	tc.time_wait_ms = c->tcp_time_wait_ms;
	tc.max_time_wait = c->tcp_max_time_wait;
	tc.wheel = sh->wheel;
	sh->tcp = ewyk_tcp_create(&tc);
	if (sh->tcp == NULL) {
		RT_LOG(ERR, "error: TCP on shard %u: %s", sh->id,
			rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

void
rt_tcp_shard_free(struct ewyk_rt_shard *sh)
{
	ewyk_tcp_free(sh->tcp);
	sh->tcp = NULL;
	ewyk_twheel_free(sh->wheel);
	sh->wheel = NULL;
}

int
ewyk_rt_tcp_listen(struct ewyk_rt *rt, uint16_t port,
	const struct ewyk_tcp_ops *ops, void *arg)
{
	unsigned int i;
	int rc;

	if (rt == NULL || ops == NULL || port == 0)
		return -EINVAL;
	if (rt->running || rt->ran)
		return -EBUSY;
	for (i = 0; i < rt->nb_shards; i++) {
		struct ewyk_rt_shard *sh = &rt->sh[i];

		rc = ewyk_tcp_listen(sh->tcp, 0, port, ops,
			arg != NULL ? arg : sh, 0);
		if (rc != 0) {
			RT_LOG(ERR, "error: cannot listen on TCP port %u: %s",
				port, strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/* Cut the first segments of a chain holding at most @p max bytes. */
static struct rte_mbuf *
chain_split(struct rte_mbuf **head, uint32_t max)
{
	struct rte_mbuf *m = *head, *s, *last = NULL;
	uint32_t len = 0;
	uint16_t n = 0;

	for (s = m; s != NULL && len + s->data_len <= max; s = s->next) {
		len += s->data_len;
		n++;
		last = s;
	}
	if (last == NULL)
		return NULL;
	if (s == NULL) {
		*head = NULL;
		return m;
	}
	s->pkt_len = m->pkt_len - len;
	s->nb_segs = (uint16_t)(m->nb_segs - n);
	last->next = NULL;
	m->pkt_len = len;
	m->nb_segs = n;
	*head = s;
	return m;
}

int
ewyk_rt_sendbuf_put(struct ewyk_tcp_conn *c, struct ewyk_rt_sendbuf *b,
	struct rte_mbuf *m)
{
	/* Small payloads are copied behind what waits: a peer that sends
	 * one byte at a time and reads nothing pins a few buffers, not one
	 * per segment (docs/guides/security.md, "Memory"). */
	if (ewyk_tcp_recv_append(c, &b->pend, m) != 0) {
		/* The chain is full (counted: drop_app_chain). */
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	ewyk_rt_sendbuf_flush(c, b);
	return 0;
}

bool
ewyk_rt_sendbuf_flush(struct ewyk_tcp_conn *c, struct ewyk_rt_sendbuf *b)
{
	while (b->pend != NULL) {
		uint32_t space = ewyk_tcp_send_space(c);
		struct rte_mbuf *m = chain_split(&b->pend, space);
		uint32_t len;

		if (m == NULL) {
			/* Not even one segment fits: asking makes TCP call
			 * writable when space opens. */
			len = b->pend->pkt_len;
			if (ewyk_tcp_send_held(c, b->pend) != 0)
				return false;
			b->pend = NULL;
			ewyk_tcp_recvd(c, len);
			break;
		}
		len = m->pkt_len;
		if (ewyk_tcp_send_held(c, m) != 0) {
			/* Put it back in front. */
			if (b->pend != NULL)
				rte_pktmbuf_chain(m, b->pend);
			b->pend = m;
			return false;
		}
		ewyk_tcp_recvd(c, len);
	}
	return true;
}

void
ewyk_rt_sendbuf_clear(struct ewyk_rt_sendbuf *b)
{
	rte_pktmbuf_free(b->pend);
	b->pend = NULL;
}

/* Counters worth a line in the table; the rest are in telemetry. */
static const enum ewyk_tcp_counter table_ctrs[] = {
	EWYK_TCP_SEG_IN,
	EWYK_TCP_SEG_OUT,
	EWYK_TCP_BYTES_IN,
	EWYK_TCP_BYTES_OUT,
	EWYK_TCP_PASSIVE_OPENS,
	EWYK_TCP_ESTABLISHED_CONNS,
	EWYK_TCP_CONN_CLOSED,
	EWYK_TCP_CONN_RESET,
	EWYK_TCP_RETRANS_SEGS,
	EWYK_TCP_FAST_RETRANS,
	EWYK_TCP_RTO,
	EWYK_TCP_RST_OUT,
	EWYK_TCP_TX_BLOCKED,
};

void
rt_tcp_stats_dump(struct ewyk_rt *rt, FILE *f)
{
	unsigned int i, k, c;
	bool any = false;

	fprintf(f, "tcp:");
	for (k = 0; k < RTE_DIM(table_ctrs); k++) {
		uint64_t v = 0;

		for (i = 0; i < rt->nb_shards; i++)
			v += ewyk_tcp_counter_get(rt->sh[i].tcp, table_ctrs[k]);
		fprintf(f, " %s=%" PRIu64, ewyk_tcp_counter_name(table_ctrs[k]),
			v);
	}
	fprintf(f, " conns=");
	for (k = EWYK_TCP_SYN_SENT; k < EWYK_TCP_STATE_MAX; k++) {
		uint64_t v = 0;

		for (i = 0; i < rt->nb_shards; i++)
			v += ewyk_tcp_state_count(rt->sh[i].tcp, k);
		if (v != 0)
			fprintf(f, "%s%s:%" PRIu64, any ? "," : "",
				ewyk_tcp_state_name(k), v);
		any = any || v != 0;
	}
	fprintf(f, "%s\n", any ? "" : "0");
	any = false;
	for (c = EWYK_TCP_DROP_FIRST; c < EWYK_TCP_COUNTER_MAX; c++) {
		uint64_t v = 0;

		for (i = 0; i < rt->nb_shards; i++)
			v += ewyk_tcp_counter_get(rt->sh[i].tcp, c);
		if (v == 0)
			continue;
		if (!any)
			fprintf(f, "tcp drops by reason:");
		any = true;
		fprintf(f, " %s=%" PRIu64, ewyk_tcp_counter_name(c), v);
	}
	if (any)
		fprintf(f, "\n");
}

void
rt_tcp_tel_shard(struct rte_tel_data *d, const struct ewyk_rt_shard *sh)
{
	char key[48];
	uint64_t drops = 0;
	unsigned int k, c;

	/* All of them, per shard: /ewyk/tcp/stats,<id>. */
	for (k = 0; k < RTE_DIM(table_ctrs); k++) {
		snprintf(key, sizeof(key), "tcp_%s",
			ewyk_tcp_counter_name(table_ctrs[k]));
		rte_tel_data_add_dict_u64(d, key,
			ewyk_tcp_counter_get(sh->tcp, table_ctrs[k]));
	}
	for (c = EWYK_TCP_DROP_FIRST; c < EWYK_TCP_COUNTER_MAX; c++)
		drops += ewyk_tcp_counter_get(sh->tcp, c);
	rte_tel_data_add_dict_u64(d, "tcp_drops", drops);
	rte_tel_data_add_dict_u64(d, "tcp_established_now",
		ewyk_tcp_state_count(sh->tcp, EWYK_TCP_ESTABLISHED));
}
