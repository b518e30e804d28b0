/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive path: Ethernet, VLAN, IPv4 and ICMP echo, run to completion on
 * the shard's lcore (IPv6 goes on in net_ipv6.c). Every frame ends in
 * exactly one place: answered in place, handed to an L4 handler, or
 * dropped with one named counter.
 *
 * Entry points, last in this file: ewyk_net_poll() (the inbox, one
 * rx_burst per port, ARP housekeeping) and ewyk_net_input() (one burst),
 * both ending in net_rx_one() for each frame. docs/architecture.md follows
 * a packet through them.
 */

#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_icmp.h>
#include <rte_ip.h>

#include "net_private.h"

#define NET_IP_FRAG_MASK (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)

/*
 * ICMP: answer echo requests in place. The request mbuf becomes the reply:
 * addresses swapped, type changed, checksums recomputed.
 */
static void
net_icmp_input(struct ewyk_net_shard *s, uint16_t port, struct rte_mbuf *m,
	struct rte_ipv4_hdr *ip, uint16_t hlen)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	uint16_t icmp_len = rte_be_to_cpu_16(ip->total_length) - hlen;
	uint32_t off = m->l2_len + hlen;
	struct rte_icmp_hdr *icmp;
	uint16_t sum = 0;
	rte_be32_t tmp;

	if (icmp_len < sizeof(struct rte_icmp_hdr) ||
		rte_pktmbuf_data_len(m) < off + sizeof(*icmp)) {
		net_drop(s, m, EWYK_NET_DROP_ICMP_TRUNCATED);
		return;
	}
	if (net_cksum_mbuf(m, off, icmp_len, &sum) != 0 || sum != 0xffff) {
		net_drop(s, m, EWYK_NET_DROP_ICMP_CKSUM);
		return;
	}
	icmp = rte_pktmbuf_mtod_offset(m, struct rte_icmp_hdr *, off);
	if (icmp->icmp_type != RTE_IP_ICMP_ECHO_REQUEST ||
		icmp->icmp_code != 0) {
		net_drop(s, m, EWYK_NET_DROP_ICMP_TYPE);
		return;
	}
	/* The reply goes to the frame's source: never to a group. */
	if (rte_is_multicast_ether_addr(&eth->src_addr)) {
		net_drop(s, m, EWYK_NET_DROP_ICMP_SRC);
		return;
	}
	net_ctr_add(s, EWYK_NET_ICMP_ECHO_RX, 1);

	icmp->icmp_type = RTE_IP_ICMP_ECHO_REPLY;
	icmp->icmp_cksum = 0;
	net_cksum_mbuf(m, off, icmp_len, &sum);
	icmp->icmp_cksum = (uint16_t)~sum;

	tmp = ip->src_addr;
	ip->src_addr = ip->dst_addr;
	ip->dst_addr = tmp;
	ip->time_to_live = 64;
	ip->fragment_offset = 0;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = (uint16_t)~net_cksum_raw(ip, hlen);

	/* Back to the sender's MAC; a VLAN tag, if any, stays as it came. */
	rte_ether_addr_copy(&eth->src_addr, &eth->dst_addr);
	rte_ether_addr_copy(&s->net->ports[port].mac, &eth->src_addr);
	/* Clear RX flags, keep what says who owns the buffer. */
	m->ol_flags &= RTE_MBUF_F_EXTERNAL | RTE_MBUF_F_INDIRECT;
	net_tx_enqueue(s, port, m);
}

static void
net_ipv4_input(struct ewyk_net_shard *s, uint16_t port, struct rte_mbuf *m,
	bool from_inbox)
{
	const struct net_port *pt = &s->net->ports[port];
	struct rte_ipv4_hdr *ip;
	uint32_t avail = rte_pktmbuf_pkt_len(m) - m->l2_len;
	uint16_t hlen, tot;
	struct net_l4_handler *h;
	struct ewyk_net_ip_info info;

	if (avail < sizeof(*ip) ||
		rte_pktmbuf_data_len(m) < m->l2_len + sizeof(*ip)) {
		net_drop(s, m, EWYK_NET_DROP_IP_TRUNCATED);
		return;
	}
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, m->l2_len);
	if ((ip->version_ihl >> 4) != 4) {
		net_drop(s, m, EWYK_NET_DROP_IP_VERSION);
		return;
	}
	hlen = (uint16_t)((ip->version_ihl & 0xf) * 4);
	if (hlen < sizeof(*ip) || hlen > avail ||
		m->l2_len + hlen > rte_pktmbuf_data_len(m)) {
		net_drop(s, m, EWYK_NET_DROP_IP_IHL);
		return;
	}
	tot = rte_be_to_cpu_16(ip->total_length);
	if (tot < hlen || tot > avail) {
		net_drop(s, m, EWYK_NET_DROP_IP_LEN);
		return;
	}
	if (pt->rx_cksum &&
		(m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) ==
			RTE_MBUF_F_RX_IP_CKSUM_GOOD) {
		/* verified by the NIC */
	} else if ((m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) ==
			RTE_MBUF_F_RX_IP_CKSUM_BAD ||
		!net_ipv4_hdr_valid_cksum(ip, hlen)) {
		net_drop(s, m, EWYK_NET_DROP_IP_CKSUM);
		return;
	}
	if (ip->time_to_live == 0) {
		net_drop(s, m, EWYK_NET_DROP_IP_TTL);
		return;
	}
	if ((rte_be_to_cpu_16(ip->fragment_offset) & NET_IP_FRAG_MASK) != 0) {
		net_drop(s, m, EWYK_NET_DROP_IP_FRAG);
		return;
	}
	if (!net_ip_is_ours(s->net, ip->dst_addr)) {
		net_drop(s, m, EWYK_NET_DROP_IP_NOT_OURS);
		return;
	}
	if (net_ip_src_bad(s->net, port, ip->src_addr)) {
		net_drop(s, m, EWYK_NET_DROP_IP_SRC);
		return;
	}
	if (hlen > sizeof(*ip))
		net_ctr_add(s, EWYK_NET_IP_OPTIONS, 1);
	/* Ethernet pads short frames: keep exactly the IP datagram. The
	 * padding must sit in the last segment; a chain with more spare
	 * bytes than that is not a padded frame. */
	if (avail > tot && rte_pktmbuf_trim(m, avail - tot) != 0) {
		net_drop(s, m, EWYK_NET_DROP_IP_LEN);
		return;
	}
	m->l3_len = hlen;

	if (ip->next_proto_id == IPPROTO_ICMP) {
		net_icmp_input(s, port, m, ip, hlen);
		return;
	}
	h = &s->l4[ip->next_proto_id];
	if (h->fn == NULL) {
		net_drop(s, m, EWYK_NET_DROP_IP_PROTO);
		return;
	}
	info.src = ip->src_addr;
	info.dst = ip->dst_addr;
	info.port = port;
	info.proto = ip->next_proto_id;
	info.tos = ip->type_of_service;
	info.ttl = ip->time_to_live;
	info.l4_len = (uint16_t)(tot - hlen);
	info.cksum_good = pt->rx_cksum &&
		(m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) ==
			RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	if (pt->rx_cksum &&
		(m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) ==
			RTE_MBUF_F_RX_L4_CKSUM_BAD)
		info.cksum_good = false;
	rte_pktmbuf_adj(m, (uint16_t)(m->l2_len + hlen));
	/* A frame steered here by another shard was counted there already. */
	if (!from_inbox)
		net_ctr_add(s, EWYK_NET_L4_DELIVERED, 1);
	h->fn(h->arg, s, m, &info);
}

void
net_rx_one(struct ewyk_net_shard *s, uint16_t port, struct rte_mbuf *m,
	bool from_inbox, uint64_t now)
{
	const struct net_port *pt = &s->net->ports[port];
	struct rte_ether_hdr *eth;
	uint16_t etype;
	uint16_t l2 = RTE_ETHER_HDR_LEN;

	if (!from_inbox) {
		net_ctr_add(s, EWYK_NET_RX_PKTS, 1);
		net_ctr_add(s, EWYK_NET_RX_BYTES, rte_pktmbuf_pkt_len(m));
	}
	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN) {
		net_drop(s, m, EWYK_NET_DROP_RUNT);
		return;
	}
	/* A PMD (or the kernel under af_packet) that took the 802.1Q tag out
	 * of the frame: put it back, so that the tag is judged below and
	 * in-place replies carry it. */
	if (m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED) {
		m->ol_flags &= ~(
			RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED);
		if (rte_vlan_insert(&m) != 0) {
			net_drop(s, m, EWYK_NET_DROP_VLAN);
			return;
		}
	}
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	if (!rte_is_same_ether_addr(&eth->dst_addr, &pt->mac)) {
		if (rte_is_multicast_ether_addr(&eth->dst_addr)) {
			/* Groups: broadcast, and 33:33:x (IPv6 multicast,
			 * RFC 2464 7) on a port with IPv6, whose group the
			 * IPv6 input checks. */
			if (!rte_is_broadcast_ether_addr(&eth->dst_addr) &&
				!(pt->nb_ip6 != 0 &&
					eth->dst_addr.addr_bytes[0] == 0x33 &&
					eth->dst_addr.addr_bytes[1] == 0x33)) {
				net_drop(s, m, EWYK_NET_DROP_MULTICAST);
				return;
			}
		} else {
			net_drop(s, m, EWYK_NET_DROP_NOT_OURS);
			return;
		}
	}
	etype = rte_be_to_cpu_16(eth->ether_type);
	if (etype == RTE_ETHER_TYPE_VLAN || etype == RTE_ETHER_TYPE_QINQ) {
		const struct rte_vlan_hdr *vh;

		if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(*vh)) {
			net_drop(s, m, EWYK_NET_DROP_RUNT);
			return;
		}
		vh = (const struct rte_vlan_hdr *)(eth + 1);
		/* VID 0 is a priority tag only (802.1Q): untagged for us. */
		if (etype != RTE_ETHER_TYPE_VLAN ||
			(rte_be_to_cpu_16(vh->vlan_tci) & 0xfff) !=
				pt->vlan_id) {
			net_drop(s, m, EWYK_NET_DROP_VLAN);
			return;
		}
		etype = rte_be_to_cpu_16(vh->eth_proto);
		l2 += sizeof(*vh);
	} else if (pt->vlan_id != 0) {
		/* A port configured for a VLAN lives on it: untagged frames
		 * belong to another segment. */
		net_drop(s, m, EWYK_NET_DROP_VLAN);
		return;
	}
	m->l2_len = l2;
	switch (etype) {
	case RTE_ETHER_TYPE_IPV4:
		net_ipv4_input(s, port, m, from_inbox);
		break;
	case RTE_ETHER_TYPE_ARP:
		net_arp_input(s, port, m, from_inbox, now);
		break;
	case RTE_ETHER_TYPE_IPV6:
		net_ipv6_input(s, port, m, from_inbox);
		break;
	default:
		net_drop(s, m, EWYK_NET_DROP_ETHERTYPE);
		break;
	}
}

void
ewyk_net_input(struct ewyk_net_shard *s, uint16_t port, struct rte_mbuf **pkts,
	uint16_t n, uint64_t now)
{
	uint16_t i;

	NET_ASSERT_HOLDER(s);
	s->now = now;
	for (i = 0; i < n; i++) {
		if (i + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
		net_rx_one(s, port, pkts[i], false, now);
	}
}

uint16_t
ewyk_net_poll(struct ewyk_net_shard *s, uint64_t now)
{
	struct ewyk_net *net = s->net;
	struct rte_mbuf *pkts[EWYK_NET_BURST];
	uint16_t total;
	uint16_t p;

	NET_ASSERT_HOLDER(s);
	s->now = now;
	/* Inbox first: it holds what other shards learnt or steered here. */
	total = net_frame_inbox_drain(s, now);
	for (p = 0; p < net->nb_ports; p++) {
		uint16_t nb = rte_eth_rx_burst(net->ports[p].port_id, s->id,
			pkts, EWYK_NET_BURST);

		if (nb == 0)
			continue;
		ewyk_net_input(s, p, pkts, nb, now);
		total += nb;
	}
	if (unlikely(now >= s->next_housekeep)) {
		s->next_housekeep = now + net->housekeep_cyc;
		net_arp_housekeep(s, now);
		if (net->has_ip6) {
			net_nd_housekeep(s, now);
			net_pmtu_housekeep(s, now);
		}
		net_port_stats_poll(s);
	}
	return total;
}
