/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client's connections (client.h): a slot's connection opened over
 * lib/tcp's active open (a burst per iteration, held back while the next
 * hop is not resolved), its lib/tcp callbacks but the response path's
 * (client.c), its close, abort or loss, the --timeout scan, and the close
 * of every connection at the end.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>

#include "client.h"
#include "idle.h"
#include "loadgen.h"

void
lg_push_idle(struct lg_lcore *lc, struct lg_slot *s)
{
	if (s->on_list & 1)
		return;
	s->on_list |= 1;
	lc->idle[lc->nidle++] = s->idx;
}

void
lg_push_ready(struct lg_lcore *lc, struct lg_slot *s)
{
	if (s->on_list & 2)
		return;
	s->on_list |= 2;
	lc->ready[lc->nready++] = s->idx;
}

/* The slot lost its connection (already gone or closed by us). */
static void
slot_detach(struct lg_slot *s)
{
	struct lg_lcore *lc = s->lc;

	if (s->state == LG_SLOT_CONNECTING)
		lc->syn_sent--;
	lc->inflight -= s->inflight;
	s->c = NULL;
	s->state = LG_SLOT_IDLE;
	s->inflight = 0;
	s->head = 0;
	s->hlen = 0;
	s->in_head = 1;
	s->close_after = 0;
	if (s->h2 != NULL)
		lg_h2_slot_stop(s);
	if (!lc->draining)
		lg_push_idle(lc, s);
}

/* Give up the connection: @p n errors of kind @p e (at least one). */
void
slot_fail(struct lg_slot *s, enum lg_err e)
{
	lg_err(s->lc, e, s->inflight > 1 ? s->inflight : 1);
	ewyk_tcp_abort(s->c);
	slot_detach(s);
}

/* Close after a last response; requests still in flight are lost. */
void
slot_close(struct lg_slot *s)
{
	if (s->inflight != 0)
		lg_err(s->lc, LG_ERR_RESET, s->inflight);
	ewyk_tcp_close(s->c);
	slot_detach(s);
}

static void
on_connected(void *ctx, struct ewyk_tcp_conn *c, int err)
{
	struct lg_slot *s = ctx;
	struct lg_lcore *lc = s->lc;
	struct lg *g = lc->app;

	lc->did_work = true;
	if (err != 0) {
		/* The connection is gone already. */
		lg_err(lc, LG_ERR_CONNECT, 1);
		slot_detach(s);
		return;
	}
	lc->syn_sent--;
	s->state = LG_SLOT_OPEN;
	s->since = lc->now;
	lg_stat_add(&lc->st.connects, 1);
	RTE_SET_USED(c);
	if (lc->draining) {
		slot_close(s);
		return;
	}
	if (g->conf.new_conn) {
		/* Its one request, timed from the connect. */
		if (slot_send(s, 1, s->t[0]) != 1)
			slot_fail(s, LG_ERR_RESET);
		return;
	}
	if (s->h2 != NULL) {
		/* Requests follow the server's SETTINGS. */
		lg_h2_slot_start(s);
		return;
	}
	slot_refill(s);
}

static void
on_eof(void *ctx, struct ewyk_tcp_conn *c)
{
	struct lg_slot *s = ctx;

	RTE_SET_USED(c);
	s->lc->did_work = true;
	slot_close(s);
}

static void
on_closed(void *ctx, struct ewyk_tcp_conn *c, int err)
{
	struct lg_slot *s = ctx;

	RTE_SET_USED(c);
	RTE_SET_USED(err);
	s->lc->did_work = true;
	/* Reset or timed out under us; the handle is gone. */
	lg_err(s->lc, LG_ERR_RESET, s->inflight > 1 ? s->inflight : 1);
	slot_detach(s);
}

static void
on_writable(void *ctx, struct ewyk_tcp_conn *c)
{
	struct lg_slot *s = ctx;

	RTE_SET_USED(c);
	if (s->h2 != NULL)
		lg_h2_slot_writable(s);
}

static const struct ewyk_tcp_ops lg_ops = {
	.connected = on_connected,
	.recv = lg_on_recv,
	.eof = on_eof,
	.writable = on_writable,
	.closed = on_closed,
};

/* Start a connection on an idle slot; @p t0 times a --new-conn request. */
int
slot_connect(struct lg_slot *s, uint64_t t0)
{
	struct lg_lcore *lc = s->lc;
	struct lg *g = lc->app;
	struct ewyk_tcp_connect_args a = {
		.dst_ip = g->conf.dst_ip,
		.dst_port = g->conf.dst_port,
		.ops = &lg_ops,
		.ctx = s,
		.ipv6 = g->conf.ipv6,
	};

	memcpy(a.dst_ip6, g->conf.dst_ip6, 16);
	s->c = ewyk_tcp_connect(lc->tcp, &a);
	if (s->c == NULL)
		return -rte_errno;
	s->state = LG_SLOT_CONNECTING;
	s->since = lc->now;
	s->in_head = 1;
	s->t[0] = t0;
	lc->syn_sent++;
	lc->did_work = true;
	return 0;
}

/* The next hop's link-layer address is known (ARP or ND): the target's
 * own when it is on-link, the gateway's (--gw, --gw6) when it is not.
 * Once it was, the lookups stop (it only limits SYNs sent into an
 * unresolved queue). */
bool
lg_target_resolved(struct lg_lcore *lc)
{
	const struct lg_conf *c = &lc->app->conf;
	const struct ewyk_net *net = ewyk_net_shard_net(lc->shard);
	struct rte_ether_addr mac;
	int port;

	if (lc->resolved)
		return true;
	if (c->ipv6) {
		uint8_t nh[16];

		port = ewyk_net_route6(net, c->dst_ip6);
		if (port < 0)
			return false;
		if (ewyk_net_nexthop6(net, (uint16_t)port, c->dst_ip6, nh) < 0)
			return false;
		lc->resolved = ewyk_net_nd_lookup(lc->shard, (uint16_t)port, nh,
				       &mac) == 0;
	} else {
		rte_be32_t nh;

		port = ewyk_net_route(net, c->dst_ip);
		if (port < 0)
			return false;
		if (ewyk_net_nexthop(net, (uint16_t)port, c->dst_ip, &nh) < 0)
			return false;
		lc->resolved = ewyk_net_arp_lookup(lc->shard, (uint16_t)port,
				       nh, &mac) == 0;
	}
	return lc->resolved;
}

/* Connect idle slots (keep-alive, or --new-conn closed loop). */
void
lg_open_some(struct lg_lcore *lc, unsigned int budget)
{
	struct lg *g = lc->app;

	if (lc->nidle == 0 || lc->now < lc->open_after)
		return;
	if (!lg_target_resolved(lc) && lc->syn_sent >= LG_CONNECT_UNRESOLVED)
		return;
	while (budget > 0 && lc->nidle > 0) {
		struct lg_slot *s = &lc->slots[lc->idle[lc->nidle - 1]];

		if (s->state != LG_SLOT_IDLE) {
			s->on_list &= (uint8_t)~1;
			lc->nidle--;
			continue;
		}
		if (slot_connect(s, lc->now) != 0) {
			/* No local port or connection object yet (TIME_WAIT):
			 * count it, and wait a millisecond. */
			lg_err(lc, LG_ERR_CONNECT, 1);
			lc->open_after = lc->now + g->hz / 1000;
			return;
		}
		s->on_list &= (uint8_t)~1;
		lc->nidle--;
		budget--;
		if (!lg_target_resolved(lc) &&
			lc->syn_sent >= LG_CONNECT_UNRESOLVED)
			return;
	}
}

/* Since when the slot waits: its last progress; with h2, when its oldest
 * open stream was sent (streams end out of order, each on its own clock). */
static uint64_t
slot_since(const struct lg_slot *s)
{
	if (s->h2 != NULL && s->inflight != 0)
		return lg_h2_slot_since(s);
	return s->since;
}

/* Every 10 ms: requests and connects that took longer than --timeout. */
void
lg_scan_timeouts(struct lg_lcore *lc)
{
	struct lg *g = lc->app;
	uint32_t i;

	lc->next_scan = lc->now + g->hz / 100;
	for (i = 0; i < lc->nslots; i++) {
		struct lg_slot *s = &lc->slots[i];

		if (s->state == LG_SLOT_IDLE ||
			lc->now - slot_since(s) < g->timeout_tsc)
			continue;
		if (s->state == LG_SLOT_CONNECTING) {
			lg_err(lc, LG_ERR_CONNECT, 1);
			ewyk_tcp_abort(s->c);
			slot_detach(s);
		} else if (s->inflight != 0 || lg_h2_slot_waiting(s)) {
			slot_fail(s, LG_ERR_TIMEOUT);
		}
	}
}

/* The end: close every connection (no more callbacks after this). */
void
lg_close_all(struct lg_lcore *lc)
{
	uint32_t i;

	for (i = 0; i < lc->nslots; i++) {
		struct lg_slot *s = &lc->slots[i];

		if (s->state == LG_SLOT_CONNECTING)
			ewyk_tcp_abort(s->c);
		else if (s->state == LG_SLOT_OPEN)
			ewyk_tcp_close(s->c);
		else
			continue;
		lc->inflight -= s->inflight;
		s->inflight = 0;
		s->c = NULL;
		s->state = LG_SLOT_IDLE;
	}
}
