/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transmit path: IPv4 header, checksums (NIC or software), Ethernet/VLAN
 * header (prebuilt per destination once its next hop is resolved),
 * per-port TX buffering and the burst to the PMD.
 */

#include <errno.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_ip.h>

#include "net_private.h"

/* One port's buffered frames to the PMD; those it does not take stay,
 * in order, for the next flush. */
uint16_t
net_txb_flush(struct ewyk_net_shard *s, uint16_t p)
{
	struct net_txb *b = &s->txb[p];
	uint16_t port_id = s->net->ports[p].port_id;
	uint16_t sent, i;
	uint64_t bytes = 0;

	/* Lengths are read before the burst: what the PMD accepts is its
	 * own from then on (af_packet frees it inside tx_burst). */
	for (i = 0; i < b->n; i++)
		bytes += b->pkts[i]->pkt_len;
	sent = rte_eth_tx_burst(port_id, s->id, b->pkts, b->n);
	/* One retry: the PMD may have freed descriptors meanwhile. */
	if (sent < b->n && sent != 0)
		sent += rte_eth_tx_burst(port_id, s->id, b->pkts + sent,
			b->n - sent);
	for (i = sent; i < b->n; i++)
		bytes -= b->pkts[i]->pkt_len;
	net_ctr_add(s, EWYK_NET_TX_PKTS, sent);
	net_ctr_add(s, EWYK_NET_TX_BYTES, bytes);
	if (sent < b->n) {
		uint16_t left = (uint16_t)(b->n - sent);
		uint16_t still = b->held > sent ? b->held - sent : 0;

		/* Counted once each: the frames held before are at the front. */
		net_ctr_add(s, EWYK_NET_TX_HELD, (uint64_t)(left - still));
		memmove(b->pkts, b->pkts + sent, left * sizeof(b->pkts[0]));
	}
	b->n = (uint16_t)(b->n - sent);
	b->held = b->n;
	b->stalled = b->n != 0;
	return sent;
}

uint16_t
ewyk_net_tx_flush(struct ewyk_net_shard *s)
{
	struct ewyk_net *net = s->net;
	uint16_t sent_total = 0;
	uint16_t p;

	NET_ASSERT_HOLDER(s);
	for (p = 0; p < net->nb_ports; p++)
		if (s->txb[p].n != 0)
			sent_total += net_txb_flush(s, p);
	return sent_total;
}

uint32_t
ewyk_net_tx_room(const struct ewyk_net_shard *s, uint16_t port)
{
	const struct net_txb *b;

	if (port >= s->net->nb_ports)
		return 0;
	b = &s->txb[port];
	return b->stalled ? (uint32_t)(NET_TXB_HOLD - b->n) : NET_TXB_HOLD;
}

void
net_tx_enqueue(struct ewyk_net_shard *s, uint16_t port, struct rte_mbuf *m)
{
	net_txb_enqueue(s, port, m);
}

void
net_send_l2(struct ewyk_net_shard *s, uint16_t port, struct rte_mbuf *m,
	const struct rte_ether_addr *dst, uint16_t ether_type)
{
	const struct net_port *pt = &s->net->ports[port];
	struct rte_ether_hdr *eth;
	uint16_t l2 = RTE_ETHER_HDR_LEN + (pt->vlan_id != 0 ? 4 : 0);

	eth = (struct rte_ether_hdr *)rte_pktmbuf_prepend(m, l2);
	if (eth == NULL) {
		net_drop(s, m, EWYK_NET_DROP_NO_MBUF);
		return;
	}
	rte_ether_addr_copy(dst, &eth->dst_addr);
	rte_ether_addr_copy(&pt->mac, &eth->src_addr);
	if (pt->vlan_id != 0) {
		struct rte_vlan_hdr *vh = (struct rte_vlan_hdr *)(eth + 1);

		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		vh->vlan_tci = rte_cpu_to_be_16(pt->vlan_id);
		vh->eth_proto = rte_cpu_to_be_16(ether_type);
	} else {
		eth->ether_type = rte_cpu_to_be_16(ether_type);
	}
	m->l2_len = l2;
	net_tx_enqueue(s, port, m);
}

/* The fields of an IPv4 header that do not depend on the payload. */
static void
ip_hdr_fill(struct rte_ipv4_hdr *ip, rte_be32_t src, rte_be32_t dst,
	uint8_t proto)
{
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->type_of_service = 0;
	ip->total_length = 0;
	ip->packet_id = 0;
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = proto;
	ip->hdr_checksum = 0;
	ip->src_addr = src;
	ip->dst_addr = dst;
}

static inline struct net_dc_entry *
dc_slot(struct ewyk_net_shard *s, rte_be32_t dst)
{
	/* A collision only costs the slow path: no keyed hash needed. */
	return &s->dc[(rte_be_to_cpu_32(dst) * 0x9e3779b1u) >> 24];
}

/* The pseudo-header's sum (RFC 9293 3.1) but its length: the addresses
 * as 32-bit words in memory order, the zero byte and the protocol as one
 * 16-bit word. */
static inline uint32_t
ip4_psum(rte_be32_t src, rte_be32_t dst, uint8_t proto)
{
	return net_cksum_fold(
		(uint64_t)src + dst + rte_cpu_to_be_16((uint16_t)proto));
}

/* The template still describes this packet's path (see net_dc_entry):
 * the port's gateway generation stands for the next hop, so that a hit
 * computes no route. */
static inline bool
dc_valid(const struct net_dc_entry *d, const struct net_port *pt, uint16_t port,
	rte_be32_t src, rte_be32_t dst, uint8_t proto)
{
	const struct net_arp_entry *e = d->arp;

	return d->l2_len != 0 && d->dst == dst && d->src == src &&
		d->proto == proto && d->port == port &&
		d->gen == __atomic_load_n(&pt->ip4_gen, __ATOMIC_ACQUIRE) &&
		e->state == NET_ARP_REACHABLE && e->ip == d->nexthop &&
		e->port == port &&
		rte_is_same_ether_addr(&e->mac,
			(const struct rte_ether_addr *)d->hdr);
}

static void
dc_fill(struct ewyk_net_shard *s, struct net_dc_entry *d, uint16_t port,
	rte_be32_t src, rte_be32_t dst, uint8_t proto, rte_be32_t nexthop,
	const struct net_arp_entry *e, uint32_t gen)
{
	const struct net_port *lp = &s->net->ports[port];
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)d->hdr;
	uint8_t l2 = RTE_ETHER_HDR_LEN + (lp->vlan_id != 0 ? 4 : 0);
	uint16_t etype = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(d->hdr + l2);

	rte_ether_addr_copy(&e->mac, &eth->dst_addr);
	rte_ether_addr_copy(&lp->mac, &eth->src_addr);
	if (lp->vlan_id != 0) {
		struct rte_vlan_hdr *vh = (struct rte_vlan_hdr *)(eth + 1);

		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		vh->vlan_tci = rte_cpu_to_be_16(lp->vlan_id);
		vh->eth_proto = etype;
	} else {
		eth->ether_type = etype;
	}
	ip_hdr_fill(ip, src, dst, proto);
	d->ipsum = net_cksum_raw(ip, sizeof(*ip));
	d->psum = ip4_psum(src, dst, proto);
	d->dst = dst;
	d->src = src;
	d->nexthop = nexthop;
	d->port = port;
	d->proto = proto;
	d->l2_len = l2;
	d->gen = gen;
	d->arp = e;
}

/* The L4 checksum of @p m (data at the L4 header, checksum field at
 * @p ck): the offload asked for, or the sum written from @p psum, the
 * pseudo-header's part without the length. */
static inline void
l4_cksum4(struct rte_mbuf *m, const struct net_port *pt, uint8_t proto,
	uint16_t *ck, uint32_t psum, uint32_t l4_len)
{
	uint64_t sum = (uint64_t)psum + rte_cpu_to_be_16((uint16_t)l4_len);
	uint16_t raw, v;

	if (proto == IPPROTO_TCP ? pt->tx_tcp_cksum : pt->tx_udp_cksum) {
		/* The pseudo-header sum, not complemented, as
		 * rte_ipv4_phdr_cksum() gives it. */
		m->ol_flags |= RTE_MBUF_F_TX_IPV4 |
			(proto == IPPROTO_TCP ? RTE_MBUF_F_TX_TCP_CKSUM :
						RTE_MBUF_F_TX_UDP_CKSUM);
		*ck = net_cksum_fold(sum);
		return;
	}
	*ck = 0;
	if (likely(rte_pktmbuf_data_len(m) == l4_len))
		raw = net_cksum_raw(rte_pktmbuf_mtod(m, const void *), l4_len);
	else if (net_cksum_mbuf(m, 0, l4_len, &raw) != 0)
		raw = 0; /* not reached: the range is the packet */
	v = (uint16_t)~net_cksum_fold(sum + raw);
	if (v == 0 && proto == IPPROTO_UDP)
		v = 0xffff;
	*ck = v;
}

/*
 * @p m out through the valid template @p d: the @p proto checksum from its
 * pseudo-header sum while the data starts at the L4 header (@p ck: the
 * checksum field, NULL for none), one copy of the headers, then the
 * length @p tlen and the IPv4 checksum from its sum.
 */
static __rte_always_inline void
dc_send(struct ewyk_net_shard *s, const struct net_dc_entry *d,
	const struct net_port *pt, struct rte_mbuf *m, uint8_t proto,
	uint16_t *ck, uint32_t l4_len, rte_be16_t tlen)
{
	struct rte_ipv4_hdr *ip;
	uint8_t *p;

	if (ck != NULL)
		l4_cksum4(m, pt, proto, ck, d->psum, l4_len);
	p = (uint8_t *)rte_pktmbuf_prepend(m,
		(uint16_t)(d->l2_len + sizeof(*ip)));
	memcpy(p, d->hdr, RTE_ETHER_HDR_LEN + sizeof(*ip));
	if (d->l2_len > RTE_ETHER_HDR_LEN) /* a VLAN tag: 4 more */
		memcpy(p + RTE_ETHER_HDR_LEN + sizeof(*ip),
			d->hdr + RTE_ETHER_HDR_LEN + sizeof(*ip), 4);
	ip = (struct rte_ipv4_hdr *)(p + d->l2_len);
	ip->total_length = tlen;
	if (!pt->tx_ip_cksum)
		ip->hdr_checksum = (uint16_t)~net_cksum_fold(
			(uint32_t)d->ipsum + tlen);
	m->l2_len = d->l2_len;
	if (unlikely(s->now >= d->arp->deadline))
		net_arp_refresh(s, d->arp, s->now);
	net_txb_enqueue(s, d->port, m);
}

/*
 * ewyk_net_ip_output() and ewyk_net_tcp_output(): one body, inlined into
 * each so that TCP's constant protocol and checksum flag take their
 * branches out. A hit of the destination's template costs no route, no
 * ARP lookup and no header field by field.
 */
static __rte_always_inline int
ip_output(struct ewyk_net_shard *s, struct rte_mbuf *m, uint16_t port,
	rte_be32_t src, rte_be32_t dst, uint8_t proto, bool l4_cksum)
{
	struct ewyk_net *net = s->net;
	const struct net_port *pt;
	const struct net_arp_entry *e;
	struct net_dc_entry *d;
	struct rte_ipv4_hdr *ip;
	uint32_t l4_len = rte_pktmbuf_pkt_len(m);
	uint16_t cks_off = 0, *ck = NULL;
	rte_be16_t tlen;
	rte_be32_t nexthop;
	uint32_t gen;

	NET_ASSERT_HOLDER(s);
	if (unlikely(port >= net->nb_ports)) {
		net_drop(s, m, EWYK_NET_DROP_NO_ROUTE);
		return -EINVAL;
	}
	pt = &net->ports[port];
	if (unlikely(l4_len + sizeof(*ip) > pt->mtu)) {
		net_drop(s, m, EWYK_NET_DROP_TOO_BIG);
		return -EMSGSIZE;
	}
	if (l4_cksum && proto == IPPROTO_TCP)
		cks_off = 16;
	else if (l4_cksum && proto == IPPROTO_UDP)
		cks_off = 6;
	if (unlikely(rte_pktmbuf_headroom(m) < NET_HDR_ROOM ||
		    (cks_off != 0 && rte_pktmbuf_data_len(m) < cks_off + 2))) {
		/* the answer before the drop frees @p m; both are a caller's
		 * mbuf that cannot carry the frame, counted as no mbuf */
		int rc = rte_pktmbuf_headroom(m) < NET_HDR_ROOM ? -ENOMEM :
								  -EINVAL;

		net_drop(s, m, EWYK_NET_DROP_NO_MBUF);
		return rc;
	}
	m->ol_flags &= ~(RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK |
		RTE_MBUF_F_TX_IPV6);
	if (pt->tx_ip_cksum)
		m->ol_flags |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
	m->l3_len = sizeof(*ip);
	tlen = rte_cpu_to_be_16((uint16_t)(l4_len + sizeof(*ip)));
	if (cks_off != 0)
		ck = rte_pktmbuf_mtod_offset(m, uint16_t *, cks_off);

	d = dc_slot(s, dst);
	if (likely(dc_valid(d, pt, port, src, dst, proto))) {
		dc_send(s, d, pt, m, proto, ck, l4_len, tlen);
		return 0;
	}

	/* The port's gateway generation before its gateway is read: a
	 * template never pairs a newer generation with an older gateway
	 * (ewyk_net_port_set_gw() may run on another thread). An on-link
	 * destination is its own next hop; any other goes to the port's
	 * default gateway, when it has one. */
	gen = __atomic_load_n(&pt->ip4_gen, __ATOMIC_ACQUIRE);
	if (!net_ip4_nexthop(pt, dst, &nexthop)) {
		net_drop(s, m, EWYK_NET_DROP_NO_ROUTE);
		return -ENETUNREACH;
	}
	e = net_arp_reachable(s, port, nexthop);
	if (e != NULL) {
		/* Resolved: a template for this frame and the next ones. */
		dc_fill(s, d, port, src, dst, proto, nexthop, e, gen);
		dc_send(s, d, pt, m, proto, ck, l4_len, tlen);
		return 0;
	}
	/* Not resolved yet: the frame waits with its IPv4 header; the
	 * Ethernet one comes when the MAC does. */
	if (ck != NULL)
		l4_cksum4(m, pt, proto, ck, ip4_psum(src, dst, proto), l4_len);
	ip = (struct rte_ipv4_hdr *)rte_pktmbuf_prepend(m, sizeof(*ip));
	ip_hdr_fill(ip, src, dst, proto);
	ip->total_length = tlen;
	if (!pt->tx_ip_cksum)
		ip->hdr_checksum = (uint16_t)~net_cksum_raw(ip, sizeof(*ip));
	m->l2_len = RTE_ETHER_HDR_LEN + (pt->vlan_id != 0 ? 4 : 0);
	return net_arp_resolve_and_send(s, port, nexthop, m, s->now);
}

int
ewyk_net_ip_output(struct ewyk_net_shard *s, struct rte_mbuf *m, uint16_t port,
	rte_be32_t src, rte_be32_t dst, uint8_t proto, bool l4_cksum)
{
	return ip_output(s, m, port, src, dst, proto, l4_cksum);
}

int
ewyk_net_tcp_output(struct ewyk_net_shard *s, struct rte_mbuf *m, uint16_t port,
	rte_be32_t src, rte_be32_t dst)
{
	return ip_output(s, m, port, src, dst, IPPROTO_TCP, true);
}
