/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/net IPv6 output: the per-destination header templates of
 * ewyk_net_ip6_output() (net_dc6_entry), every field and the checksum of
 * what they send, and what makes them miss: a new MAC for the neighbour,
 * a neighbour no longer REACHABLE, a new default router not resolved yet,
 * a lowered path MTU. Run by test_net.c's main.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include <ewyk_net.h>
#include <ewyk_net6.h>
#include "net_private.h"

#include "test_common.h"
#include "net_test_util.h"
#include "net6_test_util.h"

/* A TCP segment of @p len payload bytes (an odd pattern) to @p dst. */
static int
send_tcp6(const uint8_t dst[16], uint16_t len)
{
	uint8_t seg[sizeof(struct rte_tcp_hdr) + 1500];
	struct rte_tcp_hdr *t = (struct rte_tcp_hdr *)seg;
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	char *p;
	uint16_t i;

	assert_non_null(m);
	assert_true(len <= 1500);
	memset(t, 0, sizeof(*t));
	t->src_port = rte_cpu_to_be_16(80);
	t->dst_port = rte_cpu_to_be_16(40000 + len);
	t->sent_seq = rte_cpu_to_be_32(0x01020304u + len);
	t->recv_ack = rte_cpu_to_be_32(0xa0b0c0d0u);
	t->data_off = 5 << 4;
	t->tcp_flags = RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG;
	t->rx_win = rte_cpu_to_be_16(512);
	for (i = 0; i < len; i++)
		seg[sizeof(*t) + i] = (uint8_t)(i * 7 + 3);
	p = rte_pktmbuf_append(m, (uint16_t)(sizeof(*t) + len));
	assert_non_null(p);
	memcpy(p, seg, sizeof(*t) + len);
	/* Odd lengths through TCP's copy of the function: both take and
	 * leave the template alike. */
	if (len & 1)
		return ewyk_net_tcp_output6(sh[0], m, 0, our6, dst);
	return ewyk_net_ip6_output(sh[0], m, 0, our6, dst, IPPROTO_TCP, true);
}

/* A frame of send_tcp6(dst, len): to @p mac, every field and the TCP
 * checksum right, whether it came from the template or not. */
static void
check_tcp6(struct rte_mbuf *m, const uint8_t dst[16], uint16_t len,
	const struct rte_ether_addr *mac)
{
	struct rte_ether_hdr *e = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(e + 1);
	struct rte_tcp_hdr *t = (struct rte_tcp_hdr *)(ip + 1);
	const uint8_t *p = (const uint8_t *)(t + 1);
	uint16_t i;

	assert_int_equal(rte_pktmbuf_pkt_len(m), 14 + 40 + 20 + len);
	assert_int_equal(m->l2_len, 14);
	assert_int_equal(m->l3_len, 40);
	assert_true(rte_is_same_ether_addr(&e->dst_addr, mac));
	assert_true(rte_is_same_ether_addr(&e->src_addr, &our_mac[0]));
	assert_int_equal(e->ether_type, rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6));
	assert_int_equal(ip->vtc_flow, rte_cpu_to_be_32(UINT32_C(6) << 28));
	assert_int_equal(rte_be_to_cpu_16(ip->payload_len), 20 + len);
	assert_int_equal(ip->proto, IPPROTO_TCP);
	assert_int_equal(ip->hop_limits, 64);
	assert_memory_equal(ip->src_addr, our6, 16);
	assert_memory_equal(ip->dst_addr, dst, 16);
	assert_int_equal(t->src_port, rte_cpu_to_be_16(80));
	assert_int_equal(t->dst_port, rte_cpu_to_be_16(40000 + len));
	assert_int_equal(t->sent_seq, rte_cpu_to_be_32(0x01020304u + len));
	assert_int_equal(t->recv_ack, rte_cpu_to_be_32(0xa0b0c0d0u));
	assert_int_equal(t->data_off, 5 << 4);
	assert_int_equal(t->tcp_flags, RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG);
	assert_int_equal(t->rx_win, rte_cpu_to_be_16(512));
	for (i = 0; i < len; i++)
		assert_int_equal(p[i], (uint8_t)(i * 7 + 3));
	assert_int_equal(rte_ipv6_udptcp_cksum_verify(ip, t), 0);
	/* And the sum DPDK computes is the one we wrote. */
	{
		uint16_t ck = t->cksum;

		t->cksum = 0;
		assert_int_equal(rte_ipv6_udptcp_cksum(ip, t), ck);
		t->cksum = ck;
	}
	rte_pktmbuf_free(m);
}

static struct rte_mbuf *
only_frame(void)
{
	struct rte_mbuf *out[8];

	ewyk_net_tx_flush(sh[0]);
	assert_int_equal(sent(0, 0, out, 8), 1);
	return out[0];
}

/* The template of shard 0 towards dst, NULL when none is built. */
static const struct net_dc6_entry *
dc6_of(const uint8_t dst[16])
{
	unsigned int i;

	for (i = 0; i < NET_DC6_ENTRIES; i++)
		if (sh[0]->dc6[i].l2_len != 0 &&
			memcmp(sh[0]->dc6[i].dst, dst, 16) == 0)
			return &sh[0]->dc6[i];
	return NULL;
}

/* The NS of a sent frame asks for @p target. */
static void
ns_for_target(struct rte_mbuf *m, const uint8_t target[16])
{
	struct rte_ipv6_hdr *ip;
	uint8_t *r = sent_icmp6(m, &ip);

	assert_int_equal(r[0], 135);
	assert_memory_equal(r + 8, target, 16);
	rte_pktmbuf_free(m);
}

void
test_ip6_output_template(void **state)
{
	const struct rte_ether_addr mac1 = { .addr_bytes = { 2, 0, 0, 0, 0x55,
						     1 } };
	const struct rte_ether_addr mac2 = { .addr_bytes = { 2, 0, 0, 0, 0x55,
						     2 } };
	const uint16_t lens[] = { 0, 1, 2, 7, 100, 128, 1333 };
	uint8_t pkt[1600], icmp[1600], inner[64];
	uint8_t dst[16], gw1[16], gw2[16], far[16];
	const struct net_dc6_entry *d;
	uint64_t big;
	unsigned int i;
	uint32_t gen;
	uint16_t n, il;

	(void)state;
	drain_all();
	now += 1000 * rte_get_tsc_hz();
	ewyk_net_input(sh[0], 0, NULL, 0, now);
	memcpy(dst, our6, 16);
	dst[15] = 0x55;
	memcpy(gw1, our6, 16);
	gw1[15] = 0x56;
	memcpy(gw2, our6, 16);
	gw2[15] = 0x57;
	memcpy(far, our6, 16);
	far[3] = 0x98;

	/* Not resolved: the frame waits for the NA, no template. */
	assert_int_equal(send_tcp6(dst, 5), 0);
	ns_for_target(only_frame(), dst);
	assert_null(dc6_of(dst));
	n = nd_msg(pkt, 136, 0x60, dst, our6, dst, 2, &mac1, 255);
	input(0, 0, frame6(pkt, n));
	check_tcp6(only_frame(), dst, 5, &mac1);

	/* REACHABLE: the template is built by the first frame, then used;
	 * every length gives the same fields and a right checksum. */
	for (i = 0; i < RTE_DIM(lens); i++) {
		assert_int_equal(send_tcp6(dst, lens[i]), 0);
		check_tcp6(only_frame(), dst, lens[i], &mac1);
		d = dc6_of(dst);
		assert_non_null(d);
		assert_int_equal(d->l2_len, 14);
		assert_true(rte_is_same_ether_addr(
			(const struct rte_ether_addr *)d->hdr, &mac1));
	}

	/* The neighbour overrides its MAC (unsolicited NA): STALE with the
	 * new MAC, the next frame goes there, not to the template's MAC. */
	n = nd_msg(pkt, 136, 0x20, dst, our6, dst, 2, &mac2, 255);
	input(0, 0, frame6(pkt, n));
	drain_all();
	assert_int_equal(nd_entry(0, dst)->state, NET_ND_STALE);
	assert_int_equal(send_tcp6(dst, 33), 0);
	check_tcp6(only_frame(), dst, 33, &mac2);
	assert_int_equal(nd_entry(0, dst)->state, NET_ND_DELAY);
	/* Confirmed again: a template with the new MAC. */
	n = nd_msg(pkt, 136, 0x60, dst, our6, dst, 2, &mac2, 255);
	input(0, 0, frame6(pkt, n));
	drain_all();
	assert_int_equal(nd_entry(0, dst)->state, NET_ND_REACHABLE);
	assert_int_equal(send_tcp6(dst, 34), 0);
	check_tcp6(only_frame(), dst, 34, &mac2);
	d = dc6_of(dst);
	assert_non_null(d);
	assert_true(
		rte_is_same_ether_addr((const struct rte_ether_addr *)d->hdr,
			&mac2));
	assert_int_equal(send_tcp6(dst, 35), 0);
	check_tcp6(only_frame(), dst, 35, &mac2);

	/* REACHABLE time over: the template is not used, the frame goes the
	 * way RFC 4861 7.3.3 says (STALE, then DELAY on use). */
	now += nd_entry(0, dst)->deadline - now + 1;
	ewyk_net_input(sh[0], 0, NULL, 0, now);
	assert_int_equal(send_tcp6(dst, 36), 0);
	check_tcp6(only_frame(), dst, 36, &mac2);
	assert_int_equal(nd_entry(0, dst)->state, NET_ND_DELAY);
	n = nd_msg(pkt, 136, 0x60, dst, our6, dst, 2, &mac2, 255);
	input(0, 0, frame6(pkt, n));
	drain_all();

	/* A lowered path MTU: the template's MTU follows at once. */
	assert_int_equal(send_tcp6(dst, 1333), 0);
	check_tcp6(only_frame(), dst, 1333, &mac2);
	il = (uint16_t)ip6_build(inner, our6, dst, IPPROTO_TCP, 64, NULL, 0,
		pkt, 20);
	memset(icmp, 0, 8);
	icmp[0] = 2;
	icmp[6] = 1300 >> 8;
	icmp[7] = 1300 & 0xff;
	memcpy(icmp + 8, inner, il);
	n = ip6_build(pkt, dst, our6, 58, 64, NULL, 0, icmp, 8 + il);
	icmp6_fix((struct rte_ipv6_hdr *)pkt);
	input(0, 0, frame6(pkt, n));
	drain_all();
	assert_int_equal(ewyk_net_pmtu6(sh[0], 0, dst), 1300);
	big = ctr(0, EWYK_NET_DROP_TOO_BIG);
	assert_int_equal(send_tcp6(dst, 1333), -EMSGSIZE);
	assert_int_equal(ctr(0, EWYK_NET_DROP_TOO_BIG), big + 1);
	assert_int_equal(send_tcp6(dst, 1300 - 60), 0);
	check_tcp6(only_frame(), dst, 1300 - 60, &mac2);
	assert_int_equal(send_tcp6(dst, 1300 - 60 + 1), -EMSGSIZE);
	assert_int_equal(dc6_of(dst)->mtu, 1300);

	/* The lowered path MTU's time is up on the virtual clock, no
	 * housekeeping run since: forgotten at once. The neighbour is
	 * confirmed again, so that only the path MTU changed; the template
	 * still holds 1300 until the next frame, which goes whole, and the
	 * generation TCP watches has moved. */
	gen = ewyk_net_pmtu6_gen(sh[0]);
	now += (uint64_t)NET_PMTU_EXPIRE_S * rte_get_tsc_hz() + 1;
	ewyk_net_input(sh[0], 0, NULL, 0, now);
	n = nd_msg(pkt, 136, 0x60, dst, our6, dst, 2, &mac2, 255);
	input(0, 0, frame6(pkt, n));
	drain_all();
	assert_int_equal(nd_entry(0, dst)->state, NET_ND_REACHABLE);
	assert_int_equal(dc6_of(dst)->mtu, 1300);
	assert_int_equal(dc6_of(dst)->pmtu_gen, gen);
	assert_int_equal(send_tcp6(dst, 1333), 0);
	check_tcp6(only_frame(), dst, 1333, &mac2);
	assert_int_not_equal(ewyk_net_pmtu6_gen(sh[0]), gen);
	assert_int_equal(ewyk_net_pmtu6(sh[0], 0, dst), net->ports[0].mtu);
	assert_int_equal(dc6_of(dst)->mtu, net->ports[0].mtu);
	assert_int_equal(send_tcp6(dst, 1334), 0);
	check_tcp6(only_frame(), dst, 1334, &mac2);

	/* Through a default router, then another one not resolved yet: the
	 * frame waits for the new router's MAC instead of following the
	 * template to the old one. */
	assert_int_equal(ewyk_net_port_set_gw6(net, 0, gw1), 0);
	assert_int_equal(send_tcp6(far, 10), 0);
	ns_for_target(only_frame(), gw1);
	n = nd_msg(pkt, 136, 0x60, gw1, our6, gw1, 2, &mac1, 255);
	input(0, 0, frame6(pkt, n));
	check_tcp6(only_frame(), far, 10, &mac1);
	assert_int_equal(send_tcp6(far, 11), 0);
	check_tcp6(only_frame(), far, 11, &mac1);
	assert_int_equal(send_tcp6(far, 12), 0);
	check_tcp6(only_frame(), far, 12, &mac1);
	d = dc6_of(far);
	assert_non_null(d);
	assert_memory_equal(d->nexthop, gw1, 16);
	assert_int_equal(ewyk_net_port_set_gw6(net, 0, gw2), 0);
	assert_int_equal(send_tcp6(far, 13), 0);
	ns_for_target(only_frame(), gw2);
	n = nd_msg(pkt, 136, 0x60, gw2, our6, gw2, 2, &mac2, 255);
	input(0, 0, frame6(pkt, n));
	check_tcp6(only_frame(), far, 13, &mac2);
	assert_int_equal(send_tcp6(far, 14), 0);
	check_tcp6(only_frame(), far, 14, &mac2);
	assert_memory_equal(dc6_of(far)->nexthop, gw2, 16);
	drain_all();
}

/* A UDP datagram of @p len payload bytes to @p dst, port 0. */
static int
send_udp6(const uint8_t dst[16], uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_udp_hdr *u;

	assert_non_null(m);
	u = (struct rte_udp_hdr *)rte_pktmbuf_append(m,
		(uint16_t)(sizeof(*u) + len));
	assert_non_null(u);
	u->src_port = rte_cpu_to_be_16(53);
	u->dst_port = rte_cpu_to_be_16(5353);
	u->dgram_len = rte_cpu_to_be_16((uint16_t)(sizeof(*u) + len));
	u->dgram_cksum = 0;
	memset(u + 1, 0x5a, len);
	return ewyk_net_ip6_output(sh[0], m, 0, our6, dst, IPPROTO_UDP, true);
}

/* A frame sent with the transport checksum offloaded: the flags a NIC
 * needs, and the checksum field seeded with the pseudo-header sum
 * exactly as DPDK's rte_ipv6_phdr_cksum() gives it. */
static void
check_offload6(struct rte_mbuf *m, uint8_t proto)
{
	struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m,
		struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	uint16_t off = proto == IPPROTO_TCP ? 16 : 6;
	uint16_t ck;

	assert_int_equal(ip->proto, proto);
	assert_true(m->ol_flags & RTE_MBUF_F_TX_IPV6);
	assert_int_equal(m->ol_flags & RTE_MBUF_F_TX_L4_MASK,
		proto == IPPROTO_TCP ? RTE_MBUF_F_TX_TCP_CKSUM :
				       RTE_MBUF_F_TX_UDP_CKSUM);
	assert_int_equal(m->l2_len, RTE_ETHER_HDR_LEN);
	assert_int_equal(m->l3_len, sizeof(*ip));
	memcpy(&ck, (uint8_t *)(ip + 1) + off, 2);
	assert_int_equal(ck, rte_ipv6_phdr_cksum(ip, 0));
	rte_pktmbuf_free(m);
}

void
test_ip6_output_offload(void **state)
{
	const struct rte_ether_addr mac = { .addr_bytes = { 2, 0, 0, 0, 0x55,
						    8 } };
	const uint16_t lens[] = { 0, 1, 100, 1333 };
	struct net_port *pt = &net->ports[0];
	uint8_t pkt[256], dst[16];
	unsigned int i, k;
	uint16_t n;

	(void)state;
	drain_all();
	memcpy(dst, our6, 16);
	dst[15] = 0x58;
	/* Resolve the neighbour, software checksums (the frame that waited
	 * for the NA was summed before the port changed). */
	assert_int_equal(send_tcp6(dst, 3), 0);
	ns_for_target(only_frame(), dst);
	n = nd_msg(pkt, 136, 0x60, dst, our6, dst, 2, &mac, 255);
	input(0, 0, frame6(pkt, n));
	check_tcp6(only_frame(), dst, 3, &mac);
	pt->tx_tcp_cksum = true;
	pt->tx_udp_cksum = true;
	/* The first of each protocol goes the full path and builds the
	 * template (one per destination and protocol: they take turns);
	 * the next ones use it. */
	for (k = 0; k < 2; k++) {
		for (i = 0; i < RTE_DIM(lens); i++) {
			assert_int_equal(send_tcp6(dst, lens[i]), 0);
			check_offload6(only_frame(), IPPROTO_TCP);
			assert_int_equal(send_tcp6(dst, lens[i]), 0);
			check_offload6(only_frame(), IPPROTO_TCP);
			assert_non_null(dc6_of(dst));
		}
		for (i = 0; i < RTE_DIM(lens); i++) {
			assert_int_equal(send_udp6(dst, lens[i]), 0);
			check_offload6(only_frame(), IPPROTO_UDP);
			assert_int_equal(send_udp6(dst, lens[i]), 0);
			check_offload6(only_frame(), IPPROTO_UDP);
		}
	}
	pt->tx_tcp_cksum = false;
	pt->tx_udp_cksum = false;
	drain_all();
}

/* A TCP segment of @p len bytes of a fixed pattern from @p src to @p dst
 * on port 1 (VLAN_ID), through ewyk_net_tcp_output6() or
 * ewyk_net_ip6_output(). */
static int
send_tcp6_vlan(const uint8_t src[16], const uint8_t dst[16], uint16_t len,
	bool tcp_fn)
{
	static uint8_t seg[sizeof(struct rte_tcp_hdr) + 1400];
	struct rte_tcp_hdr *t = (struct rte_tcp_hdr *)seg;
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint8_t *pl;
	char *p;
	uint16_t i;

	assert_non_null(m);
	assert_true(len <= 1400);
	memset(t, 0, sizeof(*t));
	t->src_port = rte_cpu_to_be_16(80);
	t->dst_port = rte_cpu_to_be_16(4646);
	t->sent_seq = rte_cpu_to_be_32(0x99aabbccu);
	t->recv_ack = rte_cpu_to_be_32(0x01234567u);
	t->data_off = 5 << 4;
	t->tcp_flags = RTE_TCP_ACK_FLAG;
	t->rx_win = rte_cpu_to_be_16(2000);
	pl = (uint8_t *)(t + 1);
	for (i = 0; i < len; i++)
		pl[i] = (uint8_t)(i * 11 + 1);
	p = rte_pktmbuf_append(m, (uint16_t)(sizeof(*t) + len));
	assert_non_null(p);
	memcpy(p, seg, sizeof(*t) + len);
	if (tcp_fn)
		return ewyk_net_tcp_output6(sh[0], m, 1, src, dst);
	return ewyk_net_ip6_output(sh[0], m, 1, src, dst, IPPROTO_TCP, true);
}

/* The one frame shard 0 sent on port 1: tagged with VLAN_ID, to @p mac,
 * carrying send_tcp6_vlan(src, dst, len), every field and the checksum
 * right. Returned for the caller to compare and free. */
static struct rte_mbuf *
check_tcp6_vlan(const uint8_t src[16], const uint8_t dst[16], uint16_t len,
	const struct rte_ether_addr *mac)
{
	struct rte_mbuf *out[4];
	struct rte_ether_hdr *e;
	struct rte_vlan_hdr *v;
	struct rte_ipv6_hdr *ip;
	struct rte_tcp_hdr *t;

	ewyk_net_tx_flush(sh[0]);
	assert_int_equal(sent(1, 0, out, 4), 1);
	assert_int_equal(rte_pktmbuf_pkt_len(out[0]), 18 + 40 + 20 + len);
	assert_int_equal(out[0]->l2_len, 18);
	assert_int_equal(out[0]->l3_len, 40);
	e = rte_pktmbuf_mtod(out[0], struct rte_ether_hdr *);
	assert_true(rte_is_same_ether_addr(&e->dst_addr, mac));
	assert_true(rte_is_same_ether_addr(&e->src_addr, &our_mac[1]));
	assert_int_equal(e->ether_type, rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN));
	v = (struct rte_vlan_hdr *)(e + 1);
	assert_int_equal(v->vlan_tci, rte_cpu_to_be_16(VLAN_ID));
	assert_int_equal(v->eth_proto, rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6));
	ip = (struct rte_ipv6_hdr *)(v + 1);
	assert_int_equal(ip->vtc_flow, rte_cpu_to_be_32(UINT32_C(6) << 28));
	assert_int_equal(rte_be_to_cpu_16(ip->payload_len), 20 + len);
	assert_int_equal(ip->proto, IPPROTO_TCP);
	assert_int_equal(ip->hop_limits, 64);
	assert_memory_equal(ip->src_addr, src, 16);
	assert_memory_equal(ip->dst_addr, dst, 16);
	t = (struct rte_tcp_hdr *)(ip + 1);
	assert_int_equal(t->dst_port, rte_cpu_to_be_16(4646));
	assert_int_equal(rte_ipv6_udptcp_cksum_verify(ip, t), 0);
	return out[0];
}

/*
 * The IPv6 template of a port on a VLAN: the frame that waited for the
 * neighbour, the one that built the template and those that copied it,
 * through either function, are one tagged frame, byte for byte.
 */
void
test_ip6_output_template_vlan(void **state)
{
	static const uint8_t a1[16] = { 0x20, 0x01, 0x0d, 0xb8, 0,
		1, [15] = 2 };
	const struct rte_ether_addr mac = { .addr_bytes = { 2, 0, 0, 0, 0x55,
						    9 } };
	const uint16_t lens[] = { 0, 1, 7, 100, 1333 };
	struct rte_mbuf *out[8], *first, *m;
	const struct net_dc6_entry *d;
	struct rte_ether_hdr *e;
	uint8_t src[16], dst[16], pkt[256];
	unsigned int i, k;
	uint16_t n;

	(void)state;
	drain_all();
	advance_ms(2000); /* fresh resolution budgets */
	drain_all();
	if (ewyk_net_port_ip6(net, 1, 1, src, NULL) != 0) {
		assert_int_equal(ewyk_net_port_add_ip6(net, 1, a1, 64), 0);
		assert_int_equal(ewyk_net_port_ip6(net, 1, 1, src, NULL), 0);
	}
	memcpy(dst, src, 16);
	dst[15] = 0x59;
	assert_int_equal(send_tcp6_vlan(src, dst, 100, true), 0); /* waits */
	ewyk_net_tx_flush(sh[0]);
	assert_int_equal(sent(1, 0, out, 8), 1); /* the NS, tagged */
	e = rte_pktmbuf_mtod(out[0], struct rte_ether_hdr *);
	assert_int_equal(e->ether_type, rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN));
	rte_pktmbuf_free(out[0]);
	n = nd_msg(pkt, 136, 0x60, dst, src, dst, 2, &mac, 255);
	input(0, 1, frame6_on(1, pkt, n));
	first = check_tcp6_vlan(src, dst, 100, &mac);
	for (k = 0; k < 4; k++) {
		assert_int_equal(send_tcp6_vlan(src, dst, 100, k & 1), 0);
		m = check_tcp6_vlan(src, dst, 100, &mac);
		frames_equal(first, m);
		rte_pktmbuf_free(m);
	}
	rte_pktmbuf_free(first);
	d = dc6_of(dst);
	assert_non_null(d);
	assert_int_equal(d->l2_len, 18);
	assert_int_equal(d->port, 1);
	for (i = 0; i < RTE_DIM(lens); i++) {
		assert_int_equal(send_tcp6_vlan(src, dst, lens[i], false), 0);
		first = check_tcp6_vlan(src, dst, lens[i], &mac);
		assert_int_equal(send_tcp6_vlan(src, dst, lens[i], true), 0);
		m = check_tcp6_vlan(src, dst, lens[i], &mac);
		frames_equal(first, m);
		rte_pktmbuf_free(first);
		rte_pktmbuf_free(m);
	}
	drain_all();
}
