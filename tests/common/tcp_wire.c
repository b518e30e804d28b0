/* SPDX-License-Identifier: BSD-3-Clause */

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "tcp_wire.h"

static int
wire_output(void *arg, struct rte_mbuf *m, uint16_t port, rte_be32_t src,
	rte_be32_t dst)
{
	struct tcp_wire_end *e = arg;
	struct tcp_wire *wr = e->wr;

	RTE_SET_USED(port);
	if (wr->nq == wr->cap) {
		rte_pktmbuf_free(m);
		return 0;
	}
	wr->q[wr->nq].m = m;
	wr->q[wr->nq].at_us = wr->now_us + 50;
	wr->q[wr->nq].to = 1 - e->id;
	wr->q[wr->nq].v6 = false;
	wr->q[wr->nq].src = src != 0 ? src : wr->ip[e->id];
	wr->q[wr->nq].dst = dst != 0 ? dst : wr->ip[1 - e->id];
	wr->nq++;
	return 0;
}

static int
wire_output6(void *arg, struct rte_mbuf *m, uint16_t port,
	const uint8_t src[16], const uint8_t dst[16])
{
	struct tcp_wire_end *e = arg;
	struct tcp_wire *wr = e->wr;

	RTE_SET_USED(port);
	if (wr->nq == wr->cap) {
		rte_pktmbuf_free(m);
		return 0;
	}
	wr->q[wr->nq].m = m;
	wr->q[wr->nq].at_us = wr->now_us + 50;
	wr->q[wr->nq].to = 1 - e->id;
	wr->q[wr->nq].v6 = true;
	memcpy(wr->q[wr->nq].src6, src, 16);
	memcpy(wr->q[wr->nq].dst6, dst, 16);
	wr->nq++;
	return 0;
}

static void
wire_deliver6(struct tcp_wire *wr, const struct tcp_wire_pkt *p)
{
	struct ewyk_net_ip6_info ip = {
		.proto = IPPROTO_TCP,
		.hop_limit = 64,
		.cksum_good = true,
	};

	memcpy(ip.src, p->src6, 16);
	memcpy(ip.dst, p->dst6, 16);
	ip.l4_len = (uint16_t)p->m->pkt_len;
	ewyk_tcp_input6(wr->t[p->to], p->m, &ip);
}

void
tcp_wire_step(struct tcp_wire *wr, uint64_t us)
{
	unsigned int i, j = 0, nd = 0;
	uint64_t now;

	wr->now_us += us;
	for (i = 0; i < wr->nq; i++) {
		if (wr->q[i].at_us <= wr->now_us)
			wr->due[nd++] = wr->q[i];
		else
			wr->q[j++] = wr->q[i];
	}
	wr->nq = j;
	for (i = 0; i < nd; i++) {
		struct ewyk_net_ip_info ip = {
			.proto = IPPROTO_TCP,
			.ttl = 64,
			.cksum_good = true,
		};
		int to = wr->due[i].to;

		if (wr->due[i].v6) {
			wire_deliver6(wr, &wr->due[i]);
			continue;
		}
		ip.src = wr->due[i].src;
		ip.dst = wr->due[i].dst;
		ip.l4_len = (uint16_t)wr->due[i].m->pkt_len;
		ewyk_tcp_input(wr->t[to], wr->due[i].m, &ip);
	}
	now = wr->base + wr->now_us * wr->hz / 1000000;
	ewyk_tcp_advance(wr->t[0], now);
	ewyk_tcp_advance(wr->t[1], now);
	ewyk_twheel_advance(wr->w, now, 0);
}

int
tcp_wire_init(struct tcp_wire *wr, const char *name, struct rte_mempool *mp,
	unsigned int cap, uint32_t max_conns, rte_be32_t sip, rte_be32_t cip)
{
	struct ewyk_twheel_params wp;
	struct ewyk_tcp_conf cf;
	int i;

	memset(wr, 0, sizeof(*wr));
	wr->ip[0] = sip;
	wr->ip[1] = cip;
	wr->cap = cap;
	wr->q = calloc(cap, sizeof(*wr->q));
	wr->due = calloc(cap, sizeof(*wr->due));
	if (wr->q == NULL || wr->due == NULL)
		goto fail;
	wr->hz = rte_get_tsc_hz();
	wr->base = rte_rdtsc() + wr->hz;
	memset(&wp, 0, sizeof(wp));
	wp.name = name;
	wp.socket_id = SOCKET_ID_ANY;
	wp.start_tsc = wr->base;
	wp.slack_shift = EWYK_TWHEEL_SLACK_EXACT;
	wr->w = ewyk_twheel_create(&wp);
	if (wr->w == NULL)
		goto fail;
	for (i = 0; i < 2; i++) {
		wr->end[i].wr = wr;
		wr->end[i].id = i;
		memset(&cf, 0, sizeof(cf));
		cf.output = wire_output;
		cf.output_arg = &wr->end[i];
		cf.output6 = wire_output6;
		cf.output6_arg = &wr->end[i];
		cf.tx_pool = mp;
		cf.socket_id = SOCKET_ID_ANY;
		cf.max_conns = max_conns;
		cf.time_wait_ms = 100;
		cf.wheel = i == 0 ? wr->w : NULL;
		wr->t[i] = ewyk_tcp_create(&cf);
		if (wr->t[i] == NULL)
			goto fail;
		ewyk_tcp_advance(wr->t[i], wr->base);
	}
	return 0;
fail:
	tcp_wire_free(wr);
	return -1;
}

void
tcp_wire_free(struct tcp_wire *wr)
{
	ewyk_tcp_free(wr->t[0]);
	ewyk_tcp_free(wr->t[1]);
	wr->t[0] = NULL;
	wr->t[1] = NULL;
	while (wr->nq > 0)
		rte_pktmbuf_free(wr->q[--wr->nq].m);
	ewyk_twheel_free(wr->w);
	wr->w = NULL;
	free(wr->q);
	free(wr->due);
	wr->q = NULL;
	wr->due = NULL;
}
