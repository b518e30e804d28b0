/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP in ewyk-httpd: the per-shard lib/tcp context, and the echo and
 * discard services (--echo-port, --discard-port).
 *
 * Echo keeps, per connection, what it received but could not send yet
 * (one mbuf chain). It hands data to ewyk_tcp_send as the send buffer
 * allows, and reports it consumed (ewyk_tcp_recvd) only then: a client
 * that sends faster than it reads sees the receive window close, not
 * unbounded buffering. Connection state comes from an ewyk pool per shard.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>

#include <ewyk_pool.h>
#include <ewyk_tcp.h>

#include "tcp_services.h"

#define SVC_MAX_CONNS 16384

struct svc_conn {
	struct ewyk_tcp_conn *c;
	struct ewyk_pool *pool;
	struct rte_mbuf *pend;     /* received, not yet handed to send */
	bool eof;
};

/* Per shard: the pool of svc_conn (index = shard id; set at init only). */
static struct ewyk_pool *svc_pools[HTTPD_MAX_LCORES];

static void
svc_release(struct svc_conn *sc)
{
	rte_pktmbuf_free(sc->pend);
	sc->pend = NULL;
	ewyk_pool_put(sc->pool, sc);
}

static void
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

static void
echo_flush(struct svc_conn *sc)
{
	while (sc->pend != NULL) {
		uint32_t space = ewyk_tcp_send_space(sc->c);
		struct rte_mbuf *m = chain_split(&sc->pend, space);
		uint32_t len;

		if (m == NULL) {
			/* Not even one segment fits: asking makes TCP call
			 * writable when space opens. */
			len = sc->pend->pkt_len;
			if (ewyk_tcp_send(sc->c, sc->pend) != 0)
				return;
			sc->pend = NULL;
			ewyk_tcp_recvd(sc->c, len);
			break;
		}
		len = m->pkt_len;
		if (ewyk_tcp_send(sc->c, m) != 0) {
			/* Put it back in front. */
			if (sc->pend != NULL)
				rte_pktmbuf_chain(m, sc->pend);
			sc->pend = m;
			return;
		}
		ewyk_tcp_recvd(sc->c, len);
	}
	if (sc->eof)
		svc_close(sc);
}

static int
svc_accept(void *arg, struct ewyk_tcp_conn *c)
{
	struct ewyk_pool *pool = arg;
	struct svc_conn *sc = ewyk_pool_get(pool);

	if (sc == NULL)
		return -ENOBUFS;             /* refused: a RST, counted by TCP */
	sc->c = c;
	sc->pool = pool;
	sc->pend = NULL;
	sc->eof = false;
	ewyk_tcp_conn_set_ctx(c, sc);
	return 0;
}

static void
echo_recv(void *ctx, struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	struct svc_conn *sc = ctx;

	RTE_SET_USED(c);
	if (sc->pend == NULL)
		sc->pend = m;
	else if (rte_pktmbuf_chain(sc->pend, m) != 0) {
		/* Over 65535 segments held: the window stops far earlier. */
		rte_pktmbuf_free(m);
		return;
	}
	echo_flush(sc);
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
	echo_flush(ctx);
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

int
tcp_services_shard_init(struct httpd *h, struct httpd_lcore *lc)
{
	struct ewyk_tcp_conf tc;
	struct ewyk_pool_params pp;
	char name[32];
	int socket = (int)rte_lcore_to_socket_id(lc->lcore_id);

	memset(&tc, 0, sizeof(tc));
	tc.shard = lc->shard;
	tc.socket_id = socket;
	tc.max_conns = SVC_MAX_CONNS;
	lc->tcp = ewyk_tcp_create(&tc);
	if (lc->tcp == NULL) {
		fprintf(stderr, "error: TCP on shard %u: %s\n", lc->shard_id,
			rte_strerror(rte_errno));
		return -1;
	}
	if (h->conf.echo_port == 0 && h->conf.discard_port == 0)
		return 0;
	snprintf(name, sizeof(name), "svc_conn_%u", lc->shard_id);
	memset(&pp, 0, sizeof(pp));
	pp.name = name;
	pp.capacity = SVC_MAX_CONNS;
	pp.obj_size = sizeof(struct svc_conn);
	pp.socket_id = socket;
	pp.cache_size = 64;
	svc_pools[lc->shard_id] = ewyk_pool_create(&pp);
	if (svc_pools[lc->shard_id] == NULL) {
		fprintf(stderr, "error: service pool of shard %u: %s\n",
			lc->shard_id, rte_strerror(rte_errno));
		return -1;
	}
	if (h->conf.echo_port != 0 &&
			ewyk_tcp_listen(lc->tcp, 0, h->conf.echo_port, &echo_ops,
				svc_pools[lc->shard_id], 0) != 0) {
		fprintf(stderr, "error: cannot listen on echo port %u\n",
			h->conf.echo_port);
		return -1;
	}
	if (h->conf.discard_port != 0 &&
			ewyk_tcp_listen(lc->tcp, 0, h->conf.discard_port,
				&discard_ops, svc_pools[lc->shard_id], 0) != 0) {
		fprintf(stderr, "error: cannot listen on discard port %u\n",
			h->conf.discard_port);
		return -1;
	}
	if (lc->shard_id == 0) {
		if (h->conf.echo_port != 0)
			printf("tcp: echo on port %u\n", h->conf.echo_port);
		if (h->conf.discard_port != 0)
			printf("tcp: discard on port %u\n", h->conf.discard_port);
	}
	return 0;
}

void
tcp_services_poll(struct httpd_lcore *lc, uint64_t now)
{
	ewyk_tcp_advance(lc->tcp, now);
}

void
tcp_services_free(struct httpd *h)
{
	unsigned int i;

	for (i = 0; i < h->nb_lcores; i++) {
		/* Dropping connections frees no svc_conn: the pool goes whole. */
		ewyk_tcp_free(h->lc[i].tcp);
		h->lc[i].tcp = NULL;
		ewyk_pool_free(svc_pools[i]);
		svc_pools[i] = NULL;
	}
}

/* Counters worth a line in the table; the rest are in telemetry. */
static const enum ewyk_tcp_counter table_ctrs[] = {
	EWYK_TCP_SEG_IN, EWYK_TCP_SEG_OUT, EWYK_TCP_BYTES_IN, EWYK_TCP_BYTES_OUT,
	EWYK_TCP_PASSIVE_OPENS, EWYK_TCP_ESTABLISHED_CONNS, EWYK_TCP_CONN_CLOSED,
	EWYK_TCP_CONN_RESET, EWYK_TCP_RETRANS_SEGS, EWYK_TCP_FAST_RETRANS,
	EWYK_TCP_RTO, EWYK_TCP_RST_OUT,
};

void
tcp_services_stats_print(struct httpd *h)
{
	unsigned int i, k, c;
	bool any = false;

	printf("tcp:");
	for (k = 0; k < RTE_DIM(table_ctrs); k++) {
		uint64_t v = 0;

		for (i = 0; i < h->nb_lcores; i++)
			v += ewyk_tcp_counter_get(h->lc[i].tcp, table_ctrs[k]);
		printf(" %s=%" PRIu64, ewyk_tcp_counter_name(table_ctrs[k]), v);
	}
	printf(" conns=");
	for (k = EWYK_TCP_SYN_SENT; k < EWYK_TCP_STATE_MAX; k++) {
		uint64_t v = 0;

		for (i = 0; i < h->nb_lcores; i++)
			v += ewyk_tcp_state_count(h->lc[i].tcp, k);
		if (v != 0)
			printf("%s%s:%" PRIu64, any ? "," : "",
				ewyk_tcp_state_name(k), v);
		any = any || v != 0;
	}
	printf("%s\n", any ? "" : "0");
	any = false;
	for (c = EWYK_TCP_DROP_FIRST; c < EWYK_TCP_COUNTER_MAX; c++) {
		uint64_t v = 0;

		for (i = 0; i < h->nb_lcores; i++)
			v += ewyk_tcp_counter_get(h->lc[i].tcp, c);
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
tcp_services_tel_lcore(struct rte_tel_data *d, const struct httpd_lcore *lc)
{
	char key[48];
	uint64_t drops = 0;
	unsigned int k, c;

	/* All of them, per shard: /ewyk/tcp/stats,<id>. */
	for (k = 0; k < RTE_DIM(table_ctrs); k++) {
		snprintf(key, sizeof(key), "tcp_%s",
			ewyk_tcp_counter_name(table_ctrs[k]));
		rte_tel_data_add_dict_u64(d, key,
			ewyk_tcp_counter_get(lc->tcp, table_ctrs[k]));
	}
	for (c = EWYK_TCP_DROP_FIRST; c < EWYK_TCP_COUNTER_MAX; c++)
		drops += ewyk_tcp_counter_get(lc->tcp, c);
	rte_tel_data_add_dict_u64(d, "tcp_drops", drops);
	rte_tel_data_add_dict_u64(d, "tcp_established_now",
		ewyk_tcp_state_count(lc->tcp, EWYK_TCP_ESTABLISHED));
}
