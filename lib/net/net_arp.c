/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARP (RFC 826): replies for our addresses, a per-shard cache, resolution
 * with a bounded queue of waiting frames, gratuitous announcements.
 *
 * The cache is an open-addressed table probed over NET_ARP_PROBE slots
 * from the hashed one, scanned whole (no tombstones), so an entry can be
 * freed in place. An entry is keyed by (port, address): one address may
 * be a different host on each port's link (a gateway 10.0.0.1 on two
 * ports), and what a host on one link says never changes where another
 * port's traffic goes. What one shard learns it passes to the others through
 * their inboxes: ARP traffic arrives on whichever queue the port picks, but
 * every shard sends.
 */

#include <errno.h>

#include <rte_arp.h>
#include <rte_cycles.h>

#include "ewyk_siphash.h"
#include "net_private.h"

/* Keyed (per-boot secret, ewyk_net_create): spoofed on-link sources
 * cannot be picked to fall into one probe window. */
static inline uint32_t
net_arp_hash(const struct ewyk_net_shard *s, uint16_t port, rte_be32_t ip)
{
	uint32_t w[2] = { ip, port };

	return (uint32_t)ewyk_siphash13(s->net->arp_k0, s->net->arp_k1, w, 2);
}

static struct net_arp_entry *
net_arp_find(struct ewyk_net_shard *s, uint16_t port, rte_be32_t ip)
{
	uint32_t h = net_arp_hash(s, port, ip);
	unsigned int i;

	for (i = 0; i < NET_ARP_PROBE; i++) {
		struct net_arp_entry *e = &s->arp[(h + i) & s->arp_mask];

		if (e->state != NET_ARP_FREE && e->ip == ip && e->port == port)
			return e;
	}
	return NULL;
}

static inline struct rte_mbuf **
net_arp_queue(struct ewyk_net_shard *s, const struct net_arp_entry *e)
{
	return &s->arp_q[(size_t)(e - s->arp) * s->net->conf.arp_queue_len];
}

/* Free an entry and whatever waits on it (counted as unresolved). */
static void
net_arp_release(struct ewyk_net_shard *s, struct net_arp_entry *e)
{
	struct rte_mbuf **q = net_arp_queue(s, e);

	if (e->nq > 0) {
		net_ctr_add(s, EWYK_NET_DROP_ARP_UNRESOLVED, e->nq);
		rte_pktmbuf_free_bulk(q, e->nq);
	}
	e->nq = 0;
	e->state = NET_ARP_FREE;
}

/*
 * Take a slot for (@port, @ip): a free one in its probe window, else the resolving
 * (INCOMPLETE) entry asked longest ago, else the reachable one that goes
 * stale first. Resolving entries go first: anyone can create them (a reply
 * to a spoofed on-link source does), and a real peer's reachable entry must
 * not make room for them (docs/guides/security.md). What waited on the
 * victim is freed and counted (drop_arp_unresolved).
 */
static struct net_arp_entry *
net_arp_alloc(struct ewyk_net_shard *s, uint16_t port, rte_be32_t ip)
{
	uint32_t h = net_arp_hash(s, port, ip);
	struct net_arp_entry *victim = NULL;
	unsigned int i;

	for (i = 0; i < NET_ARP_PROBE; i++) {
		struct net_arp_entry *e = &s->arp[(h + i) & s->arp_mask];

		if (e->state == NET_ARP_FREE) {
			victim = e;
			break;
		}
		if (victim == NULL ||
			(e->state == NET_ARP_INCOMPLETE &&
				victim->state != NET_ARP_INCOMPLETE) ||
			(e->state == victim->state &&
				e->deadline < victim->deadline))
			victim = e;
	}
	if (victim->state != NET_ARP_FREE)
		net_arp_release(s, victim);
	victim->ip = ip;
	victim->port = port;
	victim->nq = 0;
	victim->retries = 0;
	return victim;
}

/* Record (port, ip) -> mac; send whatever was waiting for it. */
static void
net_arp_learn(struct ewyk_net_shard *s, uint16_t port, rte_be32_t ip,
	const struct rte_ether_addr *mac, bool create)
{
	struct net_arp_entry *e = net_arp_find(s, port, ip);
	struct rte_mbuf **q;
	uint16_t i;

	if (e == NULL) {
		if (!create)
			return;
		e = net_arp_alloc(s, port, ip);
	}
	net_ctr_add(s, EWYK_NET_ARP_LEARNT, 1);
	rte_ether_addr_copy(mac, &e->mac);
	e->state = NET_ARP_REACHABLE;
	e->retries = 0;
	e->deadline = s->now + s->net->arp_timeout_cyc;
	q = net_arp_queue(s, e);
	for (i = 0; i < e->nq; i++)
		net_send_l2(s, e->port, q[i], &e->mac, RTE_ETHER_TYPE_IPV4);
	e->nq = 0;
}

/* Build and buffer an ARP packet. */
static int
net_arp_send(struct ewyk_net_shard *s, uint16_t port, uint16_t op,
	const struct rte_ether_addr *eth_dst, const struct rte_ether_addr *tha,
	rte_be32_t tip)
{
	const struct net_port *pt = &s->net->ports[port];
	struct rte_mbuf *m = rte_pktmbuf_alloc(s->pool);
	struct rte_arp_hdr *a;

	if (m == NULL) {
		net_ctr_add(s, EWYK_NET_DROP_NO_MBUF, 1);
		return -ENOBUFS;
	}
	a = (struct rte_arp_hdr *)rte_pktmbuf_append(m, sizeof(*a));
	if (a == NULL) {
		net_drop(s, m, EWYK_NET_DROP_NO_MBUF);
		return -ENOBUFS;
	}
	a->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	a->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	a->arp_hlen = RTE_ETHER_ADDR_LEN;
	a->arp_plen = sizeof(rte_be32_t);
	a->arp_opcode = rte_cpu_to_be_16(op);
	rte_ether_addr_copy(&pt->mac, &a->arp_data.arp_sha);
	a->arp_data.arp_sip = pt->ip;
	rte_ether_addr_copy(tha, &a->arp_data.arp_tha);
	a->arp_data.arp_tip = tip;
	net_ctr_add(s,
		op == RTE_ARP_OP_REQUEST ? EWYK_NET_ARP_REQ_TX :
					   EWYK_NET_ARP_REPLY_TX,
		1);
	net_send_l2(s, port, m, eth_dst, RTE_ETHER_TYPE_ARP);
	return 0;
}

int
net_arp_request(struct ewyk_net_shard *s, uint16_t port, rte_be32_t tip)
{
	static const struct rte_ether_addr bcast = {
		.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }
	};
	static const struct rte_ether_addr zero = { .addr_bytes = { 0 } };

	return net_arp_send(s, port, RTE_ARP_OP_REQUEST, &bcast, &zero, tip);
}

int
ewyk_net_announce(struct ewyk_net_shard *s)
{
	uint16_t p;
	int n = 0;

	for (p = 0; p < s->net->nb_ports; p++) {
		if (net_arp_request(s, p, s->net->ports[p].ip) == 0)
			n++;
		n += net_nd_announce(s, p);
	}
	return n;
}

void
net_arp_input(struct ewyk_net_shard *s, uint16_t port, struct rte_mbuf *m,
	bool from_inbox, uint64_t now)
{
	const struct net_port *pt = &s->net->ports[port];
	struct rte_arp_hdr *a;
	struct rte_ether_addr sha;
	rte_be32_t sip, tip;
	uint16_t op;
	bool for_us, learn;

	RTE_SET_USED(now);
	if (rte_pktmbuf_data_len(m) < m->l2_len + sizeof(*a)) {
		net_drop(s, m, EWYK_NET_DROP_ARP_MALFORMED);
		return;
	}
	a = rte_pktmbuf_mtod_offset(m, struct rte_arp_hdr *, m->l2_len);
	if (a->arp_hardware != rte_cpu_to_be_16(RTE_ARP_HRD_ETHER) ||
		a->arp_protocol != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
		a->arp_hlen != RTE_ETHER_ADDR_LEN ||
		a->arp_plen != sizeof(rte_be32_t) ||
		rte_is_multicast_ether_addr(&a->arp_data.arp_sha)) {
		net_drop(s, m, EWYK_NET_DROP_ARP_MALFORMED);
		return;
	}
	op = rte_be_to_cpu_16(a->arp_opcode);
	if (op != RTE_ARP_OP_REQUEST && op != RTE_ARP_OP_REPLY) {
		net_drop(s, m, EWYK_NET_DROP_ARP_OP);
		return;
	}
	if (!from_inbox)
		net_ctr_add(s, EWYK_NET_ARP_RX, 1);
	rte_ether_addr_copy(&a->arp_data.arp_sha, &sha);
	sip = a->arp_data.arp_sip;
	tip = a->arp_data.arp_tip;
	for_us = NET_PORT_IP_OURS(pt, tip) && !NET_PORT_IP_OURS(pt, sip);

	/* RFC 826 merge: refresh a known sender; add it if we are the
	 * target, for this port only. A sender of 0.0.0.0 is a probe (RFC
	 * 5227): learn nothing; nor from a sender outside this port's subnet
	 * (no next hop of this port is there). */
	learn = sip != 0 && (sip & pt->mask) == (pt->ip & pt->mask);
	if (learn)
		net_arp_learn(s, port, sip, &sha, for_us);

	if (from_inbox) {
		rte_pktmbuf_free(m);
		return;
	}
	if (!for_us) {
		net_drop(s, m, EWYK_NET_DROP_ARP_NOT_OURS);
		return;
	}
	/* Tell the other shards: they send to this peer too. */
	if (learn && s->net->nb_shards > 1)
		net_share(s, port, m);
	if (op == RTE_ARP_OP_REQUEST) {
		/* Turn the request into the reply, in place. */
		struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m,
			struct rte_ether_hdr *);

		a->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REPLY);
		rte_ether_addr_copy(&sha, &a->arp_data.arp_tha);
		a->arp_data.arp_tip = sip;
		rte_ether_addr_copy(&pt->mac, &a->arp_data.arp_sha);
		a->arp_data.arp_sip = tip; /* ip or an extra address */
		rte_ether_addr_copy(&sha, &eth->dst_addr);
		rte_ether_addr_copy(&pt->mac, &eth->src_addr);
		/* Keep exactly Ethernet (+VLAN) + ARP; drop padding. */
		if (rte_pktmbuf_trim(m,
			    rte_pktmbuf_pkt_len(m) -
				    (m->l2_len + sizeof(*a))) != 0) {
			net_drop(s, m, EWYK_NET_DROP_ARP_MALFORMED);
			return;
		}
		m->ol_flags &= RTE_MBUF_F_EXTERNAL | RTE_MBUF_F_INDIRECT;
		net_ctr_add(s, EWYK_NET_ARP_REPLY_TX, 1);
		net_tx_enqueue(s, port, m);
		return;
	}
	rte_pktmbuf_free(m);
}

/*
 * New resolutions (a broadcast request each, and a cache entry) are
 * limited per shard and second: spoofed on-link sources must not turn
 * the shard into a broadcaster nor churn its cache.
 */
static bool
net_arp_new_ok(struct ewyk_net_shard *s, uint64_t now)
{
	uint32_t lim = s->net->conf.arp_resolve_limit;
	uint64_t sec = now / rte_get_tsc_hz();

	if (lim == 0)
		lim = 100;
	if (sec != s->arp_new_sec) {
		s->arp_new_sec = sec;
		s->arp_new_count = 0;
	}
	if (lim != UINT32_MAX && s->arp_new_count >= lim)
		return false;
	s->arp_new_count++;
	return true;
}

int
net_arp_resolve_and_send(struct ewyk_net_shard *s, uint16_t port,
	rte_be32_t nexthop, struct rte_mbuf *m, uint64_t now)
{
	struct net_arp_entry *e = net_arp_find(s, port, nexthop);

	if (e != NULL && e->state == NET_ARP_REACHABLE) {
		/* Stale: keep using it, and ask again (rate-limited by pushing
		 * the deadline one retry interval ahead). */
		if (unlikely(now >= e->deadline)) {
			e->deadline = now + s->net->arp_retry_cyc;
			net_arp_request(s, e->port, nexthop);
		}
		net_send_l2(s, e->port, m, &e->mac, RTE_ETHER_TYPE_IPV4);
		return 0;
	}
	if (e == NULL) {
		if (!net_arp_new_ok(s, now)) {
			net_drop(s, m, EWYK_NET_DROP_ARP_LIMITED);
			return -ENOBUFS;
		}
		e = net_arp_alloc(s, port, nexthop);
		e->state = NET_ARP_INCOMPLETE;
		e->deadline = now + s->net->arp_retry_cyc;
		e->retries = 1;
		net_arp_request(s, port, nexthop);
	}
	if (e->nq >= s->net->conf.arp_queue_len) {
		net_drop(s, m, EWYK_NET_DROP_ARP_QUEUE);
		return -ENOBUFS;
	}
	net_arp_queue(s, e)[e->nq++] = m;
	return 0;
}

/* The entry of @p ip on @p port when its MAC is known (for a TX template),
 * or NULL. */
const struct net_arp_entry *
net_arp_reachable(struct ewyk_net_shard *s, uint16_t port, rte_be32_t ip)
{
	const struct net_arp_entry *e = net_arp_find(s, port, ip);

	return e != NULL && e->state == NET_ARP_REACHABLE ? e : NULL;
}

/* A REACHABLE entry in use past its deadline: keep using it and ask again
 * (rate-limited by pushing the deadline one retry interval ahead). */
void
net_arp_refresh(struct ewyk_net_shard *s, const struct net_arp_entry *ce,
	uint64_t now)
{
	struct net_arp_entry *e = &s->arp[ce - s->arp];

	if (now >= e->deadline) {
		e->deadline = now + s->net->arp_retry_cyc;
		net_arp_request(s, e->port, e->ip);
	}
}

void
net_arp_housekeep(struct ewyk_net_shard *s, uint64_t now)
{
	uint32_t i;

	for (i = 0; i <= s->arp_mask; i++) {
		struct net_arp_entry *e = &s->arp[i];

		if (e->state != NET_ARP_INCOMPLETE || now < e->deadline)
			continue;
		if (e->retries >= s->net->conf.arp_retries) {
			net_arp_release(s, e);
			continue;
		}
		e->retries++;
		e->deadline = now + s->net->arp_retry_cyc;
		net_arp_request(s, e->port, e->ip);
	}
}

void
net_arp_flush(struct ewyk_net_shard *s)
{
	uint32_t i;

	if (s->arp == NULL || s->arp_q == NULL)
		return;
	for (i = 0; i <= s->arp_mask; i++)
		if (s->arp[i].state != NET_ARP_FREE)
			net_arp_release(s, &s->arp[i]);
}

int
ewyk_net_arp_lookup(struct ewyk_net_shard *s, uint16_t port, rte_be32_t ip,
	struct rte_ether_addr *mac)
{
	struct net_arp_entry *e;

	NET_ASSERT_HOLDER(s);
	if (port >= s->net->nb_ports)
		return -EINVAL;
	e = net_arp_find(s, port, ip);
	if (e == NULL || e->state != NET_ARP_REACHABLE)
		return -ENOENT;
	rte_ether_addr_copy(&e->mac, mac);
	return 0;
}
