/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The network context and its shards: creation, accessors, and the inbox
 * (the one door into a shard from another lcore). The receive pass is in
 * net_input.c, the counters and their telemetry in net_stats.c.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "net_private.h"

RTE_LOG_REGISTER(ewyk_net_logtype, ewyk.net, INFO);

static int
net_is_pow2_or_zero(uint32_t v)
{
	return v == 0 || rte_is_power_of_2(v);
}

struct ewyk_net *
ewyk_net_create(const struct ewyk_net_conf *conf)
{
	struct ewyk_net *net;
	uint64_t hz = rte_get_tsc_hz();

	if (conf == NULL || conf->nb_shards == 0 ||
		conf->nb_shards > EWYK_NET_MAX_SHARDS ||
		!net_is_pow2_or_zero(conf->arp_entries) ||
		!net_is_pow2_or_zero(conf->inbox_size) ||
		(conf->arp_entries != 0 && conf->arp_entries < NET_ARP_PROBE) ||
		!net_is_pow2_or_zero(conf->nd_entries) ||
		(conf->nd_entries != 0 && conf->nd_entries < NET_ARP_PROBE)) {
		rte_errno = EINVAL;
		return NULL;
	}
	net = rte_zmalloc("ewyk_net", sizeof(*net), RTE_CACHE_LINE_SIZE);
	if (net == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	net->conf = *conf;
	/* hardening: the ARP table's hash key, per boot */
	if (getentropy(&net->arp_k0, sizeof(net->arp_k0)) != 0 ||
		getentropy(&net->arp_k1, sizeof(net->arp_k1)) != 0) {
		rte_free(net);
		rte_errno = EIO;
		return NULL;
	}
	if (net->conf.arp_entries == 0)
		net->conf.arp_entries = 256;
	if (net->conf.arp_queue_len == 0)
		net->conf.arp_queue_len = 8;
	if (net->conf.arp_timeout_ms == 0)
		net->conf.arp_timeout_ms = 300000;
	if (net->conf.arp_retry_ms == 0)
		net->conf.arp_retry_ms = 1000;
	if (net->conf.arp_retries == 0)
		net->conf.arp_retries = 3;
	if (net->conf.inbox_size == 0)
		net->conf.inbox_size = 1024;
	if (net->conf.nd_entries == 0)
		net->conf.nd_entries = 256;
	if (net->conf.nd_reachable_ms == 0)
		net->conf.nd_reachable_ms = 30000;
	net->nb_shards = conf->nb_shards;
	net->arp_timeout_cyc = hz / 1000 * net->conf.arp_timeout_ms;
	net->arp_retry_cyc = hz / 1000 * net->conf.arp_retry_ms;
	net->housekeep_cyc = hz / 1000 * NET_ARP_HOUSEKEEP_MS;
	net->nd_reachable_cyc = hz / 1000 * net->conf.nd_reachable_ms;
	net->nd_delay_cyc = hz / 1000 * NET_ND_DELAY_MS;
	return net;
}

static void
net_shard_free(struct ewyk_net_shard *s)
{
	struct rte_mbuf *m;
	uint16_t p;

	if (s == NULL)
		return;
	net_shard_unregister(s);
	for (p = 0; p < EWYK_NET_MAX_PORTS; p++) {
		rte_pktmbuf_free_bulk(s->txb[p].pkts, s->txb[p].n);
		s->txb[p].n = 0;
	}
	net_arp_flush(s);
	net_nd_flush(s);
	net_inbox_free(s);
	if (s->inbox != NULL) {
		while (rte_ring_dequeue(s->inbox, (void **)&m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(s->inbox);
	}
	rte_free(s->arp_q);
	rte_free(s->arp);
	rte_free(s->nd_q);
	rte_free(s->nd);
	rte_free(s->l4_6);
	rte_free(s);
}

void
ewyk_net_free(struct ewyk_net *net)
{
	uint16_t i;

	if (net == NULL)
		return;
	for (i = 0; i < net->nb_ports; i++) {
		int rc = rte_eth_dev_stop(net->ports[i].port_id);

		if (rc != 0)
			NET_LOG(WARNING, "port %u: stop failed: %s",
				net->ports[i].port_id, rte_strerror(-rc));
	}
	for (i = 0; i < net->nb_shards; i++)
		net_shard_free(net->shards[i]);
	for (i = 0; i < net->nb_ports; i++)
		rte_eth_dev_close(net->ports[i].port_id);
	rte_free(net);
}

uint16_t
ewyk_net_nb_ports(const struct ewyk_net *net)
{
	return net->nb_ports;
}

uint16_t
ewyk_net_nb_shards(const struct ewyk_net *net)
{
	return net->nb_shards;
}

uint16_t
ewyk_net_port_id(const struct ewyk_net *net, uint16_t port)
{
	if (port >= net->nb_ports)
		return UINT16_MAX;
	return net->ports[port].port_id;
}

rte_be32_t
ewyk_net_port_ip(const struct ewyk_net *net, uint16_t port)
{
	if (port >= net->nb_ports)
		return 0;
	return net->ports[port].ip;
}

bool
ewyk_net_port_rss(const struct ewyk_net *net, uint16_t port)
{
	return port < net->nb_ports && net->ports[port].rss;
}

int
ewyk_net_route(const struct ewyk_net *net, rte_be32_t dst)
{
	uint16_t i;

	for (i = 0; i < net->nb_ports; i++) {
		const struct net_port *p = &net->ports[i];

		if ((dst & p->mask) == (p->ip & p->mask))
			return i;
	}
	for (i = 0; i < net->nb_ports; i++)
		if (net->ports[i].gw != 0)
			return i;
	return -ENETUNREACH;
}

int
ewyk_net_nexthop(const struct ewyk_net *net, uint16_t port, rte_be32_t dst,
	rte_be32_t *nexthop)
{
	const struct net_port *p;

	if (net == NULL || nexthop == NULL || port >= net->nb_ports)
		return -EINVAL;
	p = &net->ports[port];
	return net_ip4_nexthop(p, dst, nexthop) ? 0 : -ENETUNREACH;
}

struct ewyk_net_shard *
ewyk_net_shard_create(struct ewyk_net *net, uint16_t shard_id, int socket_id,
	struct rte_mempool *tx_pool)
{
	struct ewyk_net_shard *s;
	char name[RTE_RING_NAMESIZE];
	size_t nq;
	int ret;

	if (net == NULL || shard_id >= net->nb_shards || tx_pool == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (net->shards[shard_id] != NULL) {
		rte_errno = EEXIST;
		return NULL;
	}
	s = rte_zmalloc_socket("ewyk_net_shard", sizeof(*s),
		RTE_CACHE_LINE_SIZE, socket_id);
	if (s == NULL)
		goto nomem;
	s->net = net;
	s->id = shard_id;
	s->pool = tx_pool;
	s->pmtu_next = UINT64_MAX; /* no lowered path MTU to forget */
	s->arp_mask = net->conf.arp_entries - 1;
	s->arp = rte_zmalloc_socket("ewyk_net_arp",
		sizeof(*s->arp) * net->conf.arp_entries, RTE_CACHE_LINE_SIZE,
		socket_id);
	nq = (size_t)net->conf.arp_entries * net->conf.arp_queue_len;
	s->arp_q = rte_zmalloc_socket("ewyk_net_arpq", sizeof(*s->arp_q) * nq,
		RTE_CACHE_LINE_SIZE, socket_id);
	s->nd_mask = net->conf.nd_entries - 1;
	s->nd = rte_zmalloc_socket("ewyk_net_nd",
		sizeof(*s->nd) * net->conf.nd_entries, RTE_CACHE_LINE_SIZE,
		socket_id);
	nq = (size_t)net->conf.nd_entries * net->conf.arp_queue_len;
	s->nd_q = rte_zmalloc_socket("ewyk_net_ndq", sizeof(*s->nd_q) * nq,
		RTE_CACHE_LINE_SIZE, socket_id);
	s->l4_6 = rte_zmalloc_socket("ewyk_net_l4_6", sizeof(*s->l4_6) * 256,
		RTE_CACHE_LINE_SIZE, socket_id);
	/* Ring names are process-wide: tell contexts apart. */
	snprintf(name, sizeof(name), "ewyk_ib_%08x_%u",
		(uint32_t)(uintptr_t)net, shard_id);
	s->inbox = rte_ring_create(name, net->conf.inbox_size, socket_id,
		RING_F_SC_DEQ);
	if (s->inbox == NULL) {
		int err = rte_errno;

		net_shard_free(s);
		rte_errno = err;
		return NULL;
	}
	if (s->arp == NULL || s->arp_q == NULL || s->nd == NULL ||
		s->nd_q == NULL || s->l4_6 == NULL) {
		net_shard_free(s);
		goto nomem;
	}
	ret = net_shard_register(s);
	if (ret < 0) {
		net_shard_free(s);
		rte_errno = -ret;
		return NULL;
	}
	net->shards[shard_id] = s;
	return s;
nomem:
	rte_errno = ENOMEM;
	return NULL;
}

struct ewyk_net_shard *
ewyk_net_shard_get(const struct ewyk_net *net, uint16_t shard_id)
{
	if (net == NULL || shard_id >= net->nb_shards)
		return NULL;
	return net->shards[shard_id];
}

uint16_t
ewyk_net_shard_id(const struct ewyk_net_shard *s)
{
	return s->id;
}

struct ewyk_net *
ewyk_net_shard_net(const struct ewyk_net_shard *s)
{
	return s->net;
}

struct rte_mempool *
ewyk_net_shard_pool(const struct ewyk_net_shard *s)
{
	return s->pool;
}

int
ewyk_net_l4_register(struct ewyk_net_shard *s, uint8_t proto,
	ewyk_net_l4_input_t fn, void *arg)
{
	if (s == NULL || fn == NULL || proto == IPPROTO_ICMP)
		return -EINVAL;
	s->l4[proto].arg = arg;
	s->l4[proto].fn = fn;
	return 0;
}

int
ewyk_net_shard_forward(struct ewyk_net_shard *target, struct rte_mbuf *m,
	uint16_t port)
{
	m->port = port;
	if (rte_ring_mp_enqueue(target->inbox, m) != 0) {
		/* Counted on the target, whose counters have a single writer:
		 * the inbox is the only path where another lcore would write,
		 * so the drop is added atomically. */
		__atomic_fetch_add(&target->ctr[EWYK_NET_DROP_INBOX_FULL], 1,
			__ATOMIC_RELAXED);
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	return 0;
}

/* Take what other lcores sent this shard; the receive pass calls it first. */
uint16_t
net_frame_inbox_drain(struct ewyk_net_shard *s, uint64_t now)
{
	struct rte_mbuf *pkts[EWYK_NET_BURST];
	unsigned int n, i;

	n = rte_ring_sc_dequeue_burst(s->inbox, (void **)pkts, EWYK_NET_BURST,
		NULL);
	if (n > 0) {
		net_ctr_add(s, EWYK_NET_INBOX_RX, n);
		for (i = 0; i < n; i++)
			net_rx_one(s, pkts[i]->port, pkts[i], true, now);
	}
	return (uint16_t)n;
}
