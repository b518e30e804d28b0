/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 transmit path: route and path MTU, the transport checksum (NIC or
 * software), and the Ethernet/VLAN + IPv6 header, prebuilt per unicast
 * destination once its neighbour is REACHABLE (net_dc6_entry), built in
 * full otherwise.
 */

#include <errno.h>
#include <string.h>

#include <rte_ip.h>

#include "net_private.h"

static inline struct net_dc6_entry *
dc6_slot(struct ewyk_net_shard *s, const uint8_t dst[16])
{
	uint32_t w, x;

	/* The interface identifier's two words mixed (hosts ::1 of many
	 * /64s, or many hosts of one, spread): a collision only costs the
	 * full path, no keyed hash needed. */
	memcpy(&w, dst + 8, 4);
	memcpy(&x, dst + 12, 4);
	return &s->dc6[((w ^ x) * 0x9e3779b1u) >> 24];
}

/* The template still describes this packet's path (see net_dc6_entry). */
static inline bool
dc6_valid(const struct ewyk_net_shard *s, const struct net_dc6_entry *d,
	const struct net_port *pt, uint16_t port, const uint8_t src[16],
	const uint8_t dst[16], uint8_t proto)
{
	const struct net_nd_entry *e = d->nd;

	return d->l2_len != 0 && net_ip6_eq(d->dst, dst) &&
		net_ip6_eq(d->src, src) && d->proto == proto &&
		d->port == port &&
		d->gen == __atomic_load_n(&pt->ip6_gen, __ATOMIC_ACQUIRE) &&
		d->pmtu_gen == s->pmtu_gen && e->state == NET_ND_REACHABLE &&
		s->now < e->deadline && e->port == port &&
		net_ip6_eq(e->ip, d->nexthop) &&
		rte_is_same_ether_addr(&e->mac,
			(const struct rte_ether_addr *)d->hdr);
}

static void
dc6_fill(struct ewyk_net_shard *s, struct net_dc6_entry *d, uint16_t port,
	const uint8_t src[16], const uint8_t dst[16], uint8_t proto,
	const uint8_t nexthop[16], const struct net_nd_entry *e, uint16_t mtu,
	uint32_t gen)
{
	const struct net_port *pt = &s->net->ports[port];
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)d->hdr;
	uint8_t l2 = RTE_ETHER_HDR_LEN + (pt->vlan_id != 0 ? 4 : 0);
	uint16_t etype = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);

	rte_ether_addr_copy(&e->mac, &eth->dst_addr);
	rte_ether_addr_copy(&pt->mac, &eth->src_addr);
	if (pt->vlan_id != 0) {
		struct rte_vlan_hdr *vh = (struct rte_vlan_hdr *)(eth + 1);

		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		vh->vlan_tci = rte_cpu_to_be_16(pt->vlan_id);
		vh->eth_proto = etype;
	} else {
		eth->ether_type = etype;
	}
	net_ip6_hdr_fill((struct rte_ipv6_hdr *)(d->hdr + l2), 0, proto, 64,
		src, dst);
	memcpy(d->dst, dst, 16);
	memcpy(d->src, src, 16);
	memcpy(d->nexthop, nexthop, 16);
	d->nd = e;
	d->gen = gen;
	d->pmtu_gen = s->pmtu_gen;
	d->psum = net_ip6_psum(src, dst, proto);
	d->port = port;
	d->mtu = mtu;
	d->proto = proto;
	d->l2_len = l2;
}

/* The transport checksum of @p m (data at the L4 header): the offload
 * asked for, or the sum written; psum is the pseudo-header's part. */
static __rte_always_inline void
l4_cksum6(struct rte_mbuf *m, const struct net_port *pt, uint8_t proto,
	uint16_t cks_off, uint32_t psum)
{
	uint16_t *ck = rte_pktmbuf_mtod_offset(m, uint16_t *, cks_off);
	bool hw = proto == IPPROTO_TCP ? pt->tx_tcp_cksum : pt->tx_udp_cksum;
	uint16_t v;

	if (hw) {
		uint64_t sum = (uint64_t)psum +
			rte_cpu_to_be_32(rte_pktmbuf_pkt_len(m));

		/* The pseudo-header sum, not complemented, as
		 * rte_ipv6_phdr_cksum() gives it. */
		m->ol_flags |= RTE_MBUF_F_TX_IPV6 |
			(proto == IPPROTO_TCP ? RTE_MBUF_F_TX_TCP_CKSUM :
						RTE_MBUF_F_TX_UDP_CKSUM);
		*ck = net_cksum_fold(sum);
		return;
	}
	*ck = 0;
	if (likely(rte_pktmbuf_data_len(m) == rte_pktmbuf_pkt_len(m))) {
		/* One segment: summed here, no call (a TCP segment with a
		 * copied payload, every ACK). */
		uint32_t len = rte_pktmbuf_pkt_len(m);
		uint64_t sum = (uint64_t)psum + rte_cpu_to_be_32(len) +
			net_cksum_raw(rte_pktmbuf_mtod(m, const void *), len);

		v = (uint16_t)~net_cksum_fold(sum);
	} else {
		v = net_cksum6_psum(m, 0, rte_pktmbuf_pkt_len(m), psum);
	}
	/* UDP over IPv6 must carry a checksum (RFC 8200 8.1): a computed
	 * zero is sent as all ones. */
	if (v == 0 && proto == IPPROTO_UDP)
		v = 0xffff;
	*ck = v;
}

/* ewyk_net_ip6_output() and ewyk_net_tcp_output6(): one body, inlined
 * into each so that TCP's constant protocol takes its branches out. */
static __rte_always_inline int
ip6_output(struct ewyk_net_shard *s, struct rte_mbuf *m, uint16_t port,
	const uint8_t src[16], const uint8_t dst[16], uint8_t proto,
	bool l4_cksum)
{
	struct ewyk_net *net = s->net;
	const struct net_port *pt;
	const struct net_nd_entry *e;
	struct net_dc6_entry *d = NULL;
	struct rte_ipv6_hdr *ip;
	uint32_t l4_len = rte_pktmbuf_pkt_len(m);
	const uint8_t *nexthop = dst;
	uint16_t cks_off = 0, mtu;
	uint32_t gen = 0;
	uint8_t *p;

	NET_ASSERT_HOLDER(s);
	if (port >= net->nb_ports || net->ports[port].nb_ip6 == 0) {
		net_drop(s, m, EWYK_NET_DROP_NO_ROUTE);
		return -EINVAL;
	}
	pt = &net->ports[port];
	if (l4_cksum && proto == IPPROTO_TCP)
		cks_off = 16;
	else if (l4_cksum && proto == IPPROTO_UDP)
		cks_off = 6;
	if (rte_pktmbuf_headroom(m) < NET_HDR_ROOM6 ||
		(cks_off != 0 && rte_pktmbuf_data_len(m) < cks_off + 2)) {
		/* the answer before the drop frees @p m */
		int rc = rte_pktmbuf_headroom(m) < NET_HDR_ROOM6 ? -ENOMEM :
								   -EINVAL;

		net_drop(s, m, EWYK_NET_DROP_NO_MBUF);
		return rc;
	}
	m->ol_flags &= ~(RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK |
		RTE_MBUF_F_TX_IPV4);
	m->l3_len = sizeof(*ip);
	/* A lowered path MTU whose time is up moves pmtu_gen now: the
	 * template below then misses instead of keeping the old MTU. */
	net_pmtu_expire_due(s);

	if (dst[0] != 0xff) {
		d = dc6_slot(s, dst);
		if (likely(dc6_valid(s, d, pt, port, src, dst, proto))) {
			/* The template: the checksum while the data starts at
			 * the L4 header, then one copy and the length. */
			if (unlikely(l4_len + sizeof(*ip) > d->mtu)) {
				net_drop(s, m, EWYK_NET_DROP_TOO_BIG);
				return -EMSGSIZE;
			}
			if (cks_off != 0)
				l4_cksum6(m, pt, proto, cks_off, d->psum);
			p = (uint8_t *)rte_pktmbuf_prepend(m,
				(uint16_t)(d->l2_len + sizeof(*ip)));
			memcpy(p, d->hdr, RTE_ETHER_HDR_LEN + sizeof(*ip));
			if (d->l2_len > RTE_ETHER_HDR_LEN) /* a VLAN tag */
				memcpy(p + RTE_ETHER_HDR_LEN + sizeof(*ip),
					d->hdr + RTE_ETHER_HDR_LEN +
						sizeof(*ip),
					4);
			ip = (struct rte_ipv6_hdr *)(p + d->l2_len);
			ip->payload_len = rte_cpu_to_be_16((uint16_t)l4_len);
			m->l2_len = d->l2_len;
			net_txb_enqueue(s, port, m);
			return 0;
		}
		/* The configuration's generation before the next hop is
		 * read from it: a template never pairs a newer generation
		 * with an older router (ewyk_net_port_set_gw6() may run on
		 * another thread). */
		gen = __atomic_load_n(&pt->ip6_gen, __ATOMIC_ACQUIRE);
		nexthop = net_ip6_nexthop(pt, dst);
		if (nexthop == NULL) {
			net_drop(s, m, EWYK_NET_DROP_NO_ROUTE);
			return -ENETUNREACH;
		}
	}
	mtu = ewyk_net_pmtu6(s, port, dst);
	if (l4_len + sizeof(*ip) > mtu) {
		net_drop(s, m, EWYK_NET_DROP_TOO_BIG);
		return -EMSGSIZE;
	}
	if (cks_off != 0)
		l4_cksum6(m, pt, proto, cks_off, net_ip6_psum(src, dst, proto));
	ip = (struct rte_ipv6_hdr *)rte_pktmbuf_prepend(m, sizeof(*ip));
	net_ip6_hdr_fill(ip, (uint16_t)l4_len, proto, 64, src, dst);
	m->l2_len = RTE_ETHER_HDR_LEN + (pt->vlan_id != 0 ? 4 : 0);
	if (d == NULL) {
		struct rte_ether_addr mac;

		net_ip6_mcast_mac(dst, &mac);
		net_send_l2(s, port, m, &mac, RTE_ETHER_TYPE_IPV6);
		return 0;
	}
	/* A neighbour that is REACHABLE now gets a template for the next
	 * frames; any other state goes through neighbour discovery. */
	e = net_nd_reachable(s, port, nexthop, s->now);
	if (e != NULL)
		dc6_fill(s, d, port, src, dst, proto, nexthop, e, mtu, gen);
	return net_nd_resolve_and_send(s, port, nexthop, m, s->now);
}

int
ewyk_net_ip6_output(struct ewyk_net_shard *s, struct rte_mbuf *m, uint16_t port,
	const uint8_t src[16], const uint8_t dst[16], uint8_t proto,
	bool l4_cksum)
{
	return ip6_output(s, m, port, src, dst, proto, l4_cksum);
}

int
ewyk_net_tcp_output6(struct ewyk_net_shard *s, struct rte_mbuf *m,
	uint16_t port, const uint8_t src[16], const uint8_t dst[16])
{
	return ip6_output(s, m, port, src, dst, IPPROTO_TCP, true);
}
