/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP in ewyk-httpd: the per-shard lib/tcp context, and the echo and
 * discard services (--echo-port, --discard-port).
 *
 * Echo keeps, per connection, what it received but could not send yet
 * (one mbuf chain, small payloads copied together by
 * ewyk_tcp_recv_append so that it pins buffers in proportion to bytes,
 * under TCP's mbuf budgets). It hands data to ewyk_tcp_send as the send
 * buffer allows, and reports it consumed (ewyk_tcp_recvd) only then: a client
 * that sends faster than it reads sees the receive window close, not
 * unbounded buffering. Connection state comes from an ewyk pool per shard.
 * Each shard has one timer wheel, shared by its TCP context and the
 * purgatory of dispatched tasks (slow_echo.c).
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>

#include <ewyk_pool.h>
#include <ewyk_tcp.h>

#include "http_app.h"
#include "slow_echo.h"
#include "tcp_services.h"

void
svc_release(struct svc_conn *sc)
{
	rte_pktmbuf_free(sc->pend);
	sc->pend = NULL;
	ewyk_pool_put(sc->pool, sc);
}

void
svc_close(struct svc_conn *sc)
{
	struct ewyk_tcp_conn *c = sc->c;

	svc_release(sc);
	ewyk_tcp_close(c);
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

void
svc_echo_flush(struct svc_conn *sc)
{
	while (sc->pend != NULL) {
		uint32_t space = ewyk_tcp_send_space(sc->c);
		struct rte_mbuf *m = chain_split(&sc->pend, space);
		uint32_t len;

		if (m == NULL) {
			/* Not even one segment fits: asking makes TCP call
			 * writable when space opens. */
			len = sc->pend->pkt_len;
			if (ewyk_tcp_send_held(sc->c, sc->pend) != 0)
				return;
			sc->pend = NULL;
			ewyk_tcp_recvd(sc->c, len);
			break;
		}
		len = m->pkt_len;
		if (ewyk_tcp_send_held(sc->c, m) != 0) {
			/* Put it back in front. */
			if (sc->pend != NULL)
				rte_pktmbuf_chain(m, sc->pend);
			sc->pend = m;
			return;
		}
		ewyk_tcp_recvd(sc->c, len);
	}
	if (sc->eof && sc->op == NULL)
		svc_close(sc);
}

int
svc_accept(void *arg, struct ewyk_tcp_conn *c)
{
	struct httpd_shard *sh = arg;
	struct svc_conn *sc = ewyk_pool_get(sh->conns);

	if (sc == NULL)
		return -ENOBUFS; /* refused: a RST, counted by TCP */
	memset(sc, 0, sizeof(*sc));
	sc->c = c;
	sc->pool = sh->conns;
	sc->sh = sh;
	ewyk_tcp_conn_set_ctx(c, sc);
	return 0;
}

static void
echo_recv(void *ctx, struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	struct svc_conn *sc = ctx;

	/* Small payloads are copied behind what waits: a peer that sends
	 * one byte at a time and reads nothing pins a few buffers, not one
	 * per segment (docs/guides/security.md, "Memory"). */
	if (ewyk_tcp_recv_append(c, &sc->pend, m) != 0) {
		/* The chain is full (counted: drop_app_chain). TCP has
		 * acknowledged these bytes: dropping them would corrupt the
		 * echo, so the connection goes. */
		rte_pktmbuf_free(m);
		ewyk_tcp_abort(c);
		svc_release(sc);
		return;
	}
	svc_echo_flush(sc);
}

static void
echo_eof(void *ctx, struct ewyk_tcp_conn *c)
{
	struct svc_conn *sc = ctx;

	RTE_SET_USED(c);
	sc->eof = true;
	if (sc->pend == NULL)
		svc_close(sc);
}

static void
echo_writable(void *ctx, struct ewyk_tcp_conn *c)
{
	RTE_SET_USED(c);
	svc_echo_flush(ctx);
}

static void
svc_closed(void *ctx, struct ewyk_tcp_conn *c, int err)
{
	RTE_SET_USED(c);
	RTE_SET_USED(err);
	svc_release(ctx);
}

static void
discard_recv(void *ctx, struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	RTE_SET_USED(ctx);
	ewyk_tcp_recvd(c, m->pkt_len);
	rte_pktmbuf_free(m);
}

static void
discard_eof(void *ctx, struct ewyk_tcp_conn *c)
{
	RTE_SET_USED(c);
	svc_close(ctx);
}

static const struct ewyk_tcp_ops echo_ops = {
	.accept = svc_accept,
	.recv = echo_recv,
	.eof = echo_eof,
	.writable = echo_writable,
	.closed = svc_closed,
};

static const struct ewyk_tcp_ops discard_ops = {
	.accept = svc_accept,
	.recv = discard_recv,
	.eof = discard_eof,
	.closed = svc_closed,
};

/* The shard's wheel (shared by TCP and the purgatory) and TCP. */
static int
svc_tcp_init(const struct httpd_conf *hc, struct httpd_shard *sh, int socket)
{
	struct ewyk_twheel_params wp;
	struct ewyk_tcp_conf tc;
	char name[32];

	snprintf(name, sizeof(name), "httpd_wheel_%u", sh->id);
	memset(&wp, 0, sizeof(wp));
	wp.name = name;
	wp.socket_id = socket;
	sh->wheel = ewyk_twheel_create(&wp);
	if (sh->wheel == NULL) {
		fprintf(stderr, "error: timer wheel of shard %u: %s\n", sh->id,
			rte_strerror(rte_errno));
		return -1;
	}
	memset(&tc, 0, sizeof(tc));
	tc.shard = sh->shard;
	tc.socket_id = socket;
	tc.max_conns = hc->tcp_max_conns;
	tc.max_conns_per_src = hc->tcp_max_per_src;
	tc.mbuf_budget = hc->tcp_mbuf_budget;
	tc.conn_mbuf_max = hc->tcp_conn_mbufs;
	tc.idle_timeout_ms = hc->tcp_idle_ms;
	tc.orphan_timeout_ms = hc->tcp_orphan_ms;
	tc.persist_max_ms = hc->tcp_persist_ms;
	tc.wheel = sh->wheel;
	sh->tcp = ewyk_tcp_create(&tc);
	if (sh->tcp == NULL) {
		fprintf(stderr, "error: TCP on shard %u: %s\n", sh->id,
			rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

static int
svc_listen(struct httpd_shard *sh, uint16_t port,
	const struct ewyk_tcp_ops *ops, const char *what)
{
	if (port == 0)
		return 0;
	if (ewyk_tcp_listen(sh->tcp, 0, port, ops, sh, 0) != 0) {
		fprintf(stderr, "error: cannot listen on %s port %u\n", what,
			port);
		return -1;
	}
	if (sh->id == 0)
		printf("tcp: %s on port %u\n", what, port);
	return 0;
}

int
tcp_services_shard_init(struct httpd *h, struct httpd_shard *sh)
{
	struct ewyk_pool_params pp;
	char name[32];
	int socket = (int)rte_lcore_to_socket_id(sh->home);

	if (svc_tcp_init(&h->conf, sh, socket) != 0)
		return -1;
	if (h->conf.echo_port == 0 && h->conf.discard_port == 0 &&
		h->conf.slow_echo_port == 0)
		return 0;
	snprintf(name, sizeof(name), "svc_conn_%u", sh->id);
	memset(&pp, 0, sizeof(pp));
	pp.name = name;
	pp.capacity = h->conf.tcp_max_conns;
	pp.obj_size = sizeof(struct svc_conn);
	pp.socket_id = socket;
	pp.cache_size = 64;
	sh->conns = ewyk_pool_create(&pp);
	if (sh->conns == NULL) {
		fprintf(stderr, "error: service pool of shard %u: %s\n", sh->id,
			rte_strerror(rte_errno));
		return -1;
	}
	if (svc_listen(sh, h->conf.echo_port, &echo_ops, "echo") != 0 ||
		svc_listen(sh, h->conf.discard_port, &discard_ops, "discard") !=
			0)
		return -1;
	if (h->conf.slow_echo_port != 0 &&
		(slow_echo_shard_init(h, sh) != 0 ||
			svc_listen(sh, h->conf.slow_echo_port, slow_echo_ops(),
				"slow echo") != 0))
		return -1;
	return 0;
}

void
tcp_services_poll(struct httpd_shard *sh, uint64_t now)
{
	/* TCP sets its clock first, then the shared wheel runs every timer
	 * due: TCP's and the task deadlines of the purgatory. */
	ewyk_tcp_advance(sh->tcp, now);
	ewyk_twheel_advance(sh->wheel, now, 0);
}

void
tcp_services_free(struct httpd *h)
{
	unsigned int i;

	for (i = 0; i < h->nb_shards; i++) {
		struct httpd_shard *sh = &h->sh[i];

		/* Completions still queued are applied first; then HTTP resets
		 * its connections (their end-of-request callbacks cancel the
		 * delayed operations) while TCP still has them. Dropping
		 * connections frees no svc_conn: the pool goes whole. */
		if (sh->purg != NULL)
			ewyk_net_msg_inbox_drain(sh->shard, UINT32_MAX);
		http_shard_free(sh);
		httpd_tasks_shard_free(sh);
		slow_echo_shard_free(sh);
		ewyk_tcp_free(sh->tcp);
		sh->tcp = NULL;
		ewyk_twheel_free(sh->wheel);
		sh->wheel = NULL;
		ewyk_pool_free(sh->conns);
		sh->conns = NULL;
	}
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
};

void
tcp_services_stats_print(struct httpd *h)
{
	unsigned int i, k, c;
	bool any = false;

	printf("tcp:");
	for (k = 0; k < RTE_DIM(table_ctrs); k++) {
		uint64_t v = 0;

		for (i = 0; i < h->nb_shards; i++)
			v += ewyk_tcp_counter_get(h->sh[i].tcp, table_ctrs[k]);
		printf(" %s=%" PRIu64, ewyk_tcp_counter_name(table_ctrs[k]), v);
	}
	printf(" conns=");
	for (k = EWYK_TCP_SYN_SENT; k < EWYK_TCP_STATE_MAX; k++) {
		uint64_t v = 0;

		for (i = 0; i < h->nb_shards; i++)
			v += ewyk_tcp_state_count(h->sh[i].tcp, k);
		if (v != 0)
			printf("%s%s:%" PRIu64, any ? "," : "",
				ewyk_tcp_state_name(k), v);
		any = any || v != 0;
	}
	printf("%s\n", any ? "" : "0");
	any = false;
	for (c = EWYK_TCP_DROP_FIRST; c < EWYK_TCP_COUNTER_MAX; c++) {
		uint64_t v = 0;

		for (i = 0; i < h->nb_shards; i++)
			v += ewyk_tcp_counter_get(h->sh[i].tcp, c);
		if (v == 0)
			continue;
		if (!any)
			printf("tcp drops by reason:");
		any = true;
		printf(" %s=%" PRIu64, ewyk_tcp_counter_name(c), v);
	}
	if (any)
		printf("\n");
}

void
tcp_services_tel_shard(struct rte_tel_data *d, const struct httpd_shard *sh)
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
