/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 neighbour discovery (RFC 4861): answers to solicitations for our
 * addresses, a per-shard neighbour cache with neighbour unreachability
 * detection, resolution with a bounded queue of waiting frames, and the
 * announcements at start (a duplicate address detection probe, RFC 4862
 * 5.4.2, and an unsolicited advertisement).
 *
 * The cache is built as the ARP cache is (net_arp.c): open-addressed,
 * an entry keyed by (port, address) — fe80::1 is a different router on
 * each port's link, and an advertisement heard on one port never moves
 * another port's traffic —, hashed with the per-boot key, probed over NET_ARP_PROBE slots and
 * scanned whole so entries free in place; a full window gives up an entry
 * being resolved first, then the stale one unused longest, then the entry
 * whose state ends first. Time comes from the loop's `now`, state changes
 * that are due are made by the 10 ms housekeeping scan. What one shard
 * learns, the others learn through their inboxes.
 */

#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_random.h>

#include "ewyk_siphash.h"
#include "net_private.h"

#define ND_NS 135
#define ND_NA 136
#define ND_OPT_SLLA 1
#define ND_OPT_TLLA 2
#define ND_NA_R 0x80
#define ND_NA_S 0x40
#define ND_NA_O 0x20
/* ICMPv6 header (4) + reserved/flags (4) + target (16). */
#define ND_HDR_LEN 24

static inline bool
nd_has_lladdr(uint8_t state)
{
	return state >= NET_ND_REACHABLE;
}

static inline uint32_t
nd_hash(const struct ewyk_net_shard *s, uint16_t port, const uint8_t ip[16])
{
	uint32_t w[5];

	memcpy(w, ip, 16);
	w[4] = port;
	return (uint32_t)ewyk_siphash13(s->net->arp_k0, s->net->arp_k1, w, 5);
}

static inline bool
nd_is(const struct net_nd_entry *e, uint16_t port, const uint8_t ip[16])
{
	return e->state != NET_ND_FREE && e->port == port &&
		net_ip6_eq(e->ip, ip);
}

static struct net_nd_entry *
nd_find(struct ewyk_net_shard *s, uint16_t port, const uint8_t ip[16])
{
	struct net_nd_entry *e = s->nd_last;
	uint32_t h;
	unsigned int i;

	if (e != NULL && nd_is(e, port, ip))
		return e;
	h = nd_hash(s, port, ip);
	for (i = 0; i < NET_ARP_PROBE; i++) {
		e = &s->nd[(h + i) & s->nd_mask];
		if (nd_is(e, port, ip)) {
			s->nd_last = e;
			return e;
		}
	}
	return NULL;
}

static inline struct rte_mbuf **
nd_queue(struct ewyk_net_shard *s, const struct net_nd_entry *e)
{
	return &s->nd_q[(size_t)(e - s->nd) * s->net->conf.arp_queue_len];
}

static void
nd_release(struct ewyk_net_shard *s, struct net_nd_entry *e)
{
	if (e->nq > 0) {
		net_ctr_add(s, EWYK_NET_DROP_ND_UNRESOLVED, e->nq);
		rte_pktmbuf_free_bulk(nd_queue(s, e), e->nq);
	}
	e->nq = 0;
	e->state = NET_ND_FREE;
}

/* Which entry of a full window goes first: lower rank first. */
static inline int
nd_rank(uint8_t state)
{
	switch (state) {
	case NET_ND_FREE:
		return 0;
	case NET_ND_INCOMPLETE:
		return 1;
	case NET_ND_STALE:
		return 2;
	default:
		return 3;
	}
}

static struct net_nd_entry *
nd_alloc(struct ewyk_net_shard *s, uint16_t port, const uint8_t ip[16])
{
	uint32_t h = nd_hash(s, port, ip);
	struct net_nd_entry *victim = NULL;
	unsigned int i;

	for (i = 0; i < NET_ARP_PROBE; i++) {
		struct net_nd_entry *e = &s->nd[(h + i) & s->nd_mask];

		if (e->state == NET_ND_FREE) {
			victim = e;
			break;
		}
		if (victim == NULL ||
			nd_rank(e->state) < nd_rank(victim->state) ||
			(nd_rank(e->state) == nd_rank(victim->state) &&
				e->deadline < victim->deadline))
			victim = e;
	}
	if (victim->state != NET_ND_FREE)
		nd_release(s, victim);
	memcpy(victim->ip, ip, 16);
	victim->port = port;
	victim->nq = 0;
	victim->retries = 0;
	return victim;
}

/* ReachableTime, drawn in [0.5, 1.5) of the base (RFC 4861 6.3.2). */
static uint64_t
nd_reachable_time(const struct ewyk_net_shard *s)
{
	uint64_t base = s->net->nd_reachable_cyc;

	return base / 2 + rte_rand() % (base != 0 ? base : 1);
}

static void
nd_set_state(struct ewyk_net_shard *s, struct net_nd_entry *e, uint8_t state)
{
	e->state = state;
	e->retries = 0;
	if (state == NET_ND_REACHABLE)
		e->deadline = s->now + nd_reachable_time(s);
	else
		e->deadline = s->now; /* STALE: since when */
}

/* The entry has a link-layer address now: send what waited for it. */
static void
nd_flush_queue(struct ewyk_net_shard *s, struct net_nd_entry *e)
{
	struct rte_mbuf **q = nd_queue(s, e);
	uint16_t i;

	for (i = 0; i < e->nq; i++)
		net_send_l2(s, e->port, q[i], &e->mac, RTE_ETHER_TYPE_IPV6);
	e->nq = 0;
}

/* ICMPv6 checksum, IPv6 header (hop limit 255) and Ethernet: send. */
static void
nd_send(struct ewyk_net_shard *s, uint16_t port, struct rte_mbuf *m,
	const uint8_t src[16], const uint8_t dst[16],
	const struct rte_ether_addr *to)
{
	uint8_t *icmp = rte_pktmbuf_mtod(m, uint8_t *);
	uint16_t len = (uint16_t)rte_pktmbuf_pkt_len(m);
	uint16_t ck = net_cksum6(m, 0, len, src, dst, 58);

	memcpy(icmp + 2, &ck, 2);
	net_ip6_hdr_fill((struct rte_ipv6_hdr *)rte_pktmbuf_prepend(m,
				 sizeof(struct rte_ipv6_hdr)),
		len, 58, 255, src, dst);
	net_send_l2(s, port, m, to, RTE_ETHER_TYPE_IPV6);
}

/* An NS or NA with room for one link-layer address option (opt 0: none). */
static uint8_t *
nd_build(struct ewyk_net_shard *s, struct rte_mbuf **mp, uint8_t type,
	uint8_t flags, const uint8_t target[16], uint8_t opt)
{
	const uint16_t len = ND_HDR_LEN + (opt != 0 ? 8 : 0);
	struct rte_mbuf *m;
	uint8_t *p;

	if (!net_rate_ok(&s->nd_tx, s->net->conf.nd_tx_limit, 1000, s->now)) {
		net_ctr_add(s, EWYK_NET_ND_TX_LIMITED, 1);
		return NULL;
	}
	m = rte_pktmbuf_alloc(s->pool);
	if (m == NULL) {
		net_ctr_add(s, EWYK_NET_DROP_NO_MBUF, 1);
		return NULL;
	}
	p = (uint8_t *)rte_pktmbuf_append(m, len);
	if (p == NULL || rte_pktmbuf_headroom(m) < NET_HDR_ROOM6) {
		net_drop(s, m, EWYK_NET_DROP_NO_MBUF);
		return NULL;
	}
	memset(p, 0, len);
	p[0] = type;
	p[4] = flags;
	memcpy(p + 8, target, 16);
	*mp = m;
	return p;
}

static void
nd_lladdr_opt(uint8_t *p, uint8_t opt, const struct rte_ether_addr *mac)
{
	p[ND_HDR_LEN] = opt;
	p[ND_HDR_LEN + 1] = 1;
	memcpy(p + ND_HDR_LEN + 2, mac, RTE_ETHER_ADDR_LEN);
}

/*
 * Solicit @target: to its solicited-node group (resolution, @to NULL) or
 * to @to (a NUD probe); @dad: from the unspecified address without a
 * source link-layer option (RFC 4862 5.4.2).
 */
static int
nd_send_ns(struct ewyk_net_shard *s, uint16_t port, const uint8_t target[16],
	const struct rte_ether_addr *to, bool dad)
{
	static const uint8_t unspec[16];
	const struct net_port *pt = &s->net->ports[port];
	struct rte_ether_addr mac;
	struct rte_mbuf *m;
	uint8_t dst[16];
	uint8_t *p;

	p = nd_build(s, &m, ND_NS, 0, target, dad ? 0 : ND_OPT_SLLA);
	if (p == NULL)
		return -ENOBUFS;
	if (!dad)
		nd_lladdr_opt(p, ND_OPT_SLLA, &pt->mac);
	if (to != NULL) {
		memcpy(dst, target, 16);
		rte_ether_addr_copy(to, &mac);
	} else {
		net_ip6_solnode(target, dst);
		net_ip6_mcast_mac(dst, &mac);
	}
	net_ctr_add(s, EWYK_NET_ND_NS_TX, 1);
	nd_send(s, port, m, dad ? unspec : net_ip6_src_for(pt, target), dst,
		&mac);
	return 0;
}

/* Advertise our @target to @dst (@to its Ethernet address). */
static int
nd_send_na(struct ewyk_net_shard *s, uint16_t port, const uint8_t target[16],
	const uint8_t dst[16], const struct rte_ether_addr *to, uint8_t flags)
{
	const struct net_port *pt = &s->net->ports[port];
	struct rte_mbuf *m;
	uint8_t *p;

	p = nd_build(s, &m, ND_NA, flags, target, ND_OPT_TLLA);
	if (p == NULL)
		return -ENOBUFS;
	nd_lladdr_opt(p, ND_OPT_TLLA, &pt->mac);
	net_ctr_add(s, EWYK_NET_ND_NA_TX, 1);
	nd_send(s, port, m, target, dst, to);
	return 0;
}

int
net_nd_announce(struct ewyk_net_shard *s, uint16_t port)
{
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	const struct net_port *pt = &s->net->ports[port];
	struct rte_ether_addr mac;
	uint8_t i;
	int n = 0;

	net_ip6_mcast_mac(all_nodes, &mac);
	for (i = 0; i < pt->nb_ip6; i++) {
		if (nd_send_ns(s, port, pt->ip6[i].a, NULL, true) == 0)
			n++;
		if (nd_send_na(s, port, pt->ip6[i].a, all_nodes, &mac,
			    ND_NA_O) == 0)
			n++;
	}
	return n;
}

/* RFC 4861 7.2.3: a solicitation with a source link-layer address
 * creates the sender's entry or updates it (STALE when the address is new
 * or changed). */
static void
nd_learn_ns(struct ewyk_net_shard *s, uint16_t port, const uint8_t ip[16],
	const struct rte_ether_addr *mac)
{
	struct net_nd_entry *e = nd_find(s, port, ip);

	if (e == NULL) {
		e = nd_alloc(s, port, ip);
		rte_ether_addr_copy(mac, &e->mac);
		nd_set_state(s, e, NET_ND_STALE);
		net_ctr_add(s, EWYK_NET_ND_LEARNT, 1);
		return;
	}
	if (e->state == NET_ND_INCOMPLETE ||
		!rte_is_same_ether_addr(&e->mac, mac)) {
		rte_ether_addr_copy(mac, &e->mac);
		nd_set_state(s, e, NET_ND_STALE);
		net_ctr_add(s, EWYK_NET_ND_LEARNT, 1);
		nd_flush_queue(s, e);
	}
}

/* RFC 4861 7.2.5: an advertisement for a target we have an entry for on
 * the port it came in on. */
static void
nd_learn_na(struct ewyk_net_shard *s, uint16_t port, const uint8_t target[16],
	const struct rte_ether_addr *mac, uint8_t flags)
{
	struct net_nd_entry *e = nd_find(s, port, target);
	bool same;

	if (e == NULL)
		return; /* no entry: nothing to update (7.2.5) */
	if (e->state == NET_ND_INCOMPLETE) {
		if (mac == NULL)
			return;
		rte_ether_addr_copy(mac, &e->mac);
		nd_set_state(s, e,
			(flags & ND_NA_S) ? NET_ND_REACHABLE : NET_ND_STALE);
		net_ctr_add(s, EWYK_NET_ND_LEARNT, 1);
		nd_flush_queue(s, e);
		return;
	}
	same = mac == NULL || rte_is_same_ether_addr(&e->mac, mac);
	if (!(flags & ND_NA_O) && !same) {
		/* Not overriding a different address: only makes a
		 * reachable entry suspect. */
		if (e->state == NET_ND_REACHABLE)
			nd_set_state(s, e, NET_ND_STALE);
		return;
	}
	if (!same)
		rte_ether_addr_copy(mac, &e->mac);
	if (flags & ND_NA_S)
		nd_set_state(s, e, NET_ND_REACHABLE);
	else if (!same)
		nd_set_state(s, e, NET_ND_STALE);
	net_ctr_add(s, EWYK_NET_ND_LEARNT, 1);
}

void
net_nd_input(struct ewyk_net_shard *s, uint16_t port, struct rte_mbuf *m,
	bool from_inbox, uint32_t off, uint16_t len)
{
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	const struct net_port *pt = &s->net->ports[port];
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m,
		const struct rte_ether_hdr *);
	const struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m,
		const struct rte_ipv6_hdr *, m->l2_len);
	const struct rte_ether_addr *ll = NULL;
	struct rte_ether_addr ll_copy, to;
	uint8_t target[16], src[16];
	const uint8_t *p;
	uint8_t type, flags;
	uint32_t i;
	bool unspec, dst_mcast;
	static const uint8_t zero[16];

	/* Validation, RFC 4861 7.1.1 and 7.1.2 (the checksum is checked). */
	if (ip->hop_limits != 255 || len < ND_HDR_LEN ||
		rte_pktmbuf_data_len(m) < off + len) {
		net_drop(s, m, EWYK_NET_DROP_ND_INVALID);
		return;
	}
	p = rte_pktmbuf_mtod_offset(m, const uint8_t *, off);
	type = p[0];
	flags = p[4];
	if (p[1] != 0 || p[8] == 0xff) { /* code 0, target not a group */
		net_drop(s, m, EWYK_NET_DROP_ND_INVALID);
		return;
	}
	memcpy(target, p + 8, 16);
	memcpy(src, ip->src_addr, 16);
	unspec = memcmp(src, zero, 16) == 0;
	dst_mcast = ip->dst_addr[0] == 0xff;
	/* Options: each at least 8 bytes and inside the message; the walk
	 * ends with the message (at most its length / 8 of them). */
	for (i = ND_HDR_LEN; i < len;) {
		uint32_t olen;

		if (i + 2 > len || p[i + 1] == 0 ||
			i + (olen = (uint32_t)p[i + 1] * 8) > len) {
			net_drop(s, m, EWYK_NET_DROP_ND_INVALID);
			return;
		}
		if (p[i] == (type == ND_NS ? ND_OPT_SLLA : ND_OPT_TLLA) &&
			ll == NULL) {
			memcpy(&ll_copy, p + i + 2, RTE_ETHER_ADDR_LEN);
			ll = &ll_copy;
		}
		i += olen;
	}
	if (ll != NULL && rte_is_multicast_ether_addr(ll)) {
		net_drop(s, m, EWYK_NET_DROP_ND_INVALID);
		return;
	}
	if (type == ND_NS) {
		uint8_t sn[16];

		/* A DAD probe: to the target's solicited-node group, with no
		 * source link-layer address. */
		net_ip6_solnode(target, sn);
		if (unspec &&
			(ll != NULL || memcmp(ip->dst_addr, sn, 16) != 0)) {
			net_drop(s, m, EWYK_NET_DROP_ND_INVALID);
			return;
		}
	} else if (dst_mcast && (flags & ND_NA_S)) {
		net_drop(s, m, EWYK_NET_DROP_ND_INVALID);
		return;
	}
	if (!from_inbox && rte_is_same_ether_addr(&eth->src_addr, &pt->mac)) {
		net_drop(s, m, EWYK_NET_DROP_ND_LOOP);
		return;
	}

	if (type == ND_NA) {
		if (!from_inbox)
			net_ctr_add(s, EWYK_NET_ND_NA_RX, 1);
		if (net_ip6_is_ours(pt, target) >= 0) {
			/* Someone else has our address (RFC 4862 5.4.4). */
			if (!from_inbox) {
				net_ctr_add(s, EWYK_NET_ND_DAD_CONFLICT, 1);
				NET_LOG(ERR,
					"port %u: an IPv6 address of ours is advertised by another node",
					port);
			}
			rte_pktmbuf_free(m);
			return;
		}
		nd_learn_na(s, port, target, ll, flags);
		if (!from_inbox && s->net->nb_shards > 1)
			net_share(s, port, m);
		rte_pktmbuf_free(m);
		return;
	}

	/* NS: only for one of our addresses (7.2.3). */
	if (net_ip6_is_ours(pt, target) < 0) {
		if (from_inbox)
			rte_pktmbuf_free(m);
		else
			net_drop(s, m, EWYK_NET_DROP_ND_NOT_OURS);
		return;
	}
	if (!from_inbox)
		net_ctr_add(s, EWYK_NET_ND_NS_RX, 1);
	if (!unspec && ll != NULL) {
		nd_learn_ns(s, port, src, ll);
		if (!from_inbox && s->net->nb_shards > 1)
			net_share(s, port, m);
	}
	if (from_inbox) {
		rte_pktmbuf_free(m);
		return;
	}
	if (unspec) {
		/* Another node probes for our address: tell everyone we
		 * have it (7.2.4), and count it. */
		net_ctr_add(s, EWYK_NET_ND_DAD_CONFLICT, 1);
		NET_LOG(ERR,
			"port %u: another node runs DAD for one of our IPv6 addresses",
			port);
		net_ip6_mcast_mac(all_nodes, &to);
		nd_send_na(s, port, target, all_nodes, &to, ND_NA_O);
	} else {
		/* Solicited, and overriding: the address is ours alone. */
		rte_ether_addr_copy(ll != NULL ? ll : &eth->src_addr, &to);
		nd_send_na(s, port, target, src, &to, ND_NA_S | ND_NA_O);
	}
	rte_pktmbuf_free(m);
}

const struct net_nd_entry *
net_nd_reachable(struct ewyk_net_shard *s, uint16_t port, const uint8_t ip[16],
	uint64_t now)
{
	const struct net_nd_entry *e = nd_find(s, port, ip);

	return e != NULL && e->state == NET_ND_REACHABLE && now < e->deadline ?
		e :
		NULL;
}

int
net_nd_resolve_and_send(struct ewyk_net_shard *s, uint16_t port,
	const uint8_t nexthop[16], struct rte_mbuf *m, uint64_t now)
{
	struct net_nd_entry *e = nd_find(s, port, nexthop);

	if (e != NULL && nd_has_lladdr(e->state)) {
		if (unlikely(
			    e->state == NET_ND_REACHABLE && now >= e->deadline))
			nd_set_state(s, e, NET_ND_STALE);
		if (unlikely(e->state == NET_ND_STALE)) {
			/* 7.3.3: first use of a stale entry. */
			e->state = NET_ND_DELAY;
			e->deadline = now + s->net->nd_delay_cyc;
		}
		net_send_l2(s, e->port, m, &e->mac, RTE_ETHER_TYPE_IPV6);
		return 0;
	}
	if (e == NULL) {
		if (!net_rate_ok(&s->nd_new, s->net->conf.arp_resolve_limit,
			    100, now)) {
			net_drop(s, m, EWYK_NET_DROP_ND_LIMITED);
			return -ENOBUFS;
		}
		e = nd_alloc(s, port, nexthop);
		e->state = NET_ND_INCOMPLETE;
		e->deadline = now + s->net->arp_retry_cyc;
		e->retries = 1;
		nd_send_ns(s, port, nexthop, NULL, false);
	}
	if (e->nq >= s->net->conf.arp_queue_len) {
		net_drop(s, m, EWYK_NET_DROP_ND_QUEUE);
		return -ENOBUFS;
	}
	nd_queue(s, e)[e->nq++] = m;
	return 0;
}

void
net_nd_housekeep(struct ewyk_net_shard *s, uint64_t now)
{
	uint32_t i;

	for (i = 0; i <= s->nd_mask; i++) {
		struct net_nd_entry *e = &s->nd[i];

		if (e->state == NET_ND_FREE || e->state == NET_ND_STALE ||
			now < e->deadline)
			continue;
		switch (e->state) {
		case NET_ND_REACHABLE:
			nd_set_state(s, e, NET_ND_STALE);
			break;
		case NET_ND_DELAY:
			/* 7.3.3: no confirmation came; probe by unicast. */
			e->state = NET_ND_PROBE;
			e->retries = 1;
			e->deadline = now + s->net->arp_retry_cyc;
			nd_send_ns(s, e->port, e->ip, &e->mac, false);
			break;
		case NET_ND_INCOMPLETE:
		case NET_ND_PROBE:
			if (e->retries >= s->net->conf.arp_retries) {
				nd_release(s, e);
				break;
			}
			e->retries++;
			e->deadline = now + s->net->arp_retry_cyc;
			nd_send_ns(s, e->port, e->ip,
				e->state == NET_ND_PROBE ? &e->mac : NULL,
				false);
			break;
		default:
			break;
		}
	}
}

void
net_nd_flush(struct ewyk_net_shard *s)
{
	uint32_t i;

	if (s->nd == NULL || s->nd_q == NULL)
		return;
	for (i = 0; i <= s->nd_mask; i++)
		if (s->nd[i].state != NET_ND_FREE)
			nd_release(s, &s->nd[i]);
}

int
ewyk_net_nd_lookup(struct ewyk_net_shard *s, uint16_t port,
	const uint8_t ip[16], struct rte_ether_addr *mac)
{
	struct net_nd_entry *e;

	NET_ASSERT_HOLDER(s);
	if (port >= s->net->nb_ports)
		return -EINVAL;
	e = nd_find(s, port, ip);
	if (e == NULL || !nd_has_lladdr(e->state))
		return -ENOENT;
	rte_ether_addr_copy(&e->mac, mac);
	return 0;
}

int
ewyk_net_nd_confirm(struct ewyk_net_shard *s, uint16_t port,
	const uint8_t ip[16])
{
	const uint8_t *nh;
	struct net_nd_entry *e;

	NET_ASSERT_HOLDER(s);
	if (port >= s->net->nb_ports)
		return -EINVAL;
	/* The hint is about the next hop (7.3.1): the router for an
	 * off-link peer. */
	nh = net_ip6_nexthop(&s->net->ports[port], ip);
	e = nh != NULL ? nd_find(s, port, nh) : NULL;
	if (e == NULL || !nd_has_lladdr(e->state))
		return -ENOENT;
	/* REACHABLE for half a base ReachableTime more: left as it is
	 * (confirmations of a busy neighbour come far more often than that,
	 * and each would draw a new time). */
	if (e->state == NET_ND_REACHABLE &&
		e->deadline > s->now + s->net->nd_reachable_cyc / 2)
		return 0;
	nd_set_state(s, e, NET_ND_REACHABLE);
	return 0;
}
