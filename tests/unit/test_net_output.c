/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/net output: ewyk_net_ip_output() resolving the next hop by ARP
 * (queued, retried, given up), the per-destination header templates and
 * their invalidation, and its refusals. Run by test_net.c's
 * main.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <pthread.h>
#include <sched.h>

#include <cmocka.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_random.h>
#include <rte_ring.h>
#include <rte_udp.h>

#include <ewyk_net.h>
#include <ewyk_siphash.h>
#include "net_private.h"
#include <rte_hash_crc.h>

#include "test_common.h"
#include "net_test_util.h"

void
test_ip_output_resolves_arp(void **state)
{
	const uint32_t dst = RTE_IPV4(10, 0, 0, 9);
	struct rte_mbuf *out[8], *m;
	struct rte_arp_hdr *a;
	struct rte_ipv4_hdr *ip;
	unsigned int i, n;
	uint64_t qdrop = ctr(0, EWYK_NET_DROP_ARP_QUEUE);

	(void)state;
	drain_all();
	/* Five TCP segments to an unknown host: a request goes out, four wait
	 * (arp_queue_len = 4), the fifth is dropped and counted. */
	for (i = 0; i < 5; i++) {
		uint8_t seg[sizeof(struct rte_tcp_hdr) + 10];
		struct rte_tcp_hdr *t = (struct rte_tcp_hdr *)seg;
		char *p;

		memset(seg, 'p', sizeof(seg));
		memset(t, 0, sizeof(*t));
		t->src_port = rte_cpu_to_be_16(80);
		t->dst_port = rte_cpu_to_be_16((uint16_t)(1000 + i));
		t->data_off = 5 << 4;
		m = rte_pktmbuf_alloc(mp);
		assert_non_null(m);
		p = rte_pktmbuf_append(m, sizeof(seg));
		assert_non_null(p);
		memcpy(p, seg, sizeof(seg));
		assert_int_equal(ewyk_net_ip_output(sh[0], m, 0,
					 rte_cpu_to_be_32(OUR_IP),
					 rte_cpu_to_be_32(dst), IPPROTO_TCP,
					 true),
			i < 4 ? 0 : -ENOBUFS);
	}
	assert_int_equal(ctr(0, EWYK_NET_DROP_ARP_QUEUE), qdrop + 1);
	ewyk_net_tx_flush(sh[0]);
	assert_int_equal(sent(0, 0, out, 8), 1);
	a = rte_pktmbuf_mtod_offset(out[0], struct rte_arp_hdr *, 14);
	assert_int_equal(rte_be_to_cpu_16(a->arp_opcode), RTE_ARP_OP_REQUEST);
	assert_int_equal(a->arp_data.arp_tip, rte_cpu_to_be_32(dst));
	assert_int_equal(a->arp_data.arp_sip, rte_cpu_to_be_32(OUR_IP));
	rte_pktmbuf_free(out[0]);

	/* The reply releases the four, addressed to the learnt MAC, with
	 * valid IPv4 and TCP checksums. */
	input(0, 0, arp_frame(0, RTE_ARP_OP_REPLY, dst, OUR_IP));
	n = sent(0, 0, out, 8);
	assert_int_equal(n, 4);
	for (i = 0; i < n; i++) {
		struct rte_ether_hdr *e = rte_pktmbuf_mtod(out[i],
			struct rte_ether_hdr *);

		assert_true(rte_is_same_ether_addr(&e->dst_addr, &peer_mac));
		ip = (struct rte_ipv4_hdr *)(e + 1);
		assert_int_equal(rte_raw_cksum(ip, 20), 0xffff);
		assert_int_equal(rte_ipv4_udptcp_cksum_verify(ip, ip + 1), 0);
		rte_pktmbuf_free(out[i]);
	}
}

static int set_gw(uint16_t port, uint32_t a);

/* A TCP segment of @p len payload bytes (any length, odd ones included)
 * from us to @p dst through ewyk_net_ip_output(). */
static int
send_tcp(uint32_t dst, uint16_t len)
{
	static uint8_t seg[sizeof(struct rte_tcp_hdr) + 1400];
	struct rte_tcp_hdr *t = (struct rte_tcp_hdr *)seg;
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	char *p;
	uint16_t i;

	assert_non_null(m);
	memset(t, 0, sizeof(*t));
	t->src_port = rte_cpu_to_be_16(80);
	t->dst_port = rte_cpu_to_be_16(4242);
	t->data_off = 5 << 4;
	t->tcp_flags = RTE_TCP_ACK_FLAG;
	for (i = 0; i < len; i++)
		seg[sizeof(*t) + i] = (uint8_t)rte_rand();
	p = rte_pktmbuf_append(m, (uint16_t)(sizeof(*t) + len));
	assert_non_null(p);
	memcpy(p, seg, sizeof(*t) + len);
	/* Odd lengths through TCP's copy of the function: both take and
	 * leave the template alike. */
	if (len & 1)
		return ewyk_net_tcp_output(sh[0], m, 0,
			rte_cpu_to_be_32(OUR_IP), rte_cpu_to_be_32(dst));
	return ewyk_net_ip_output(sh[0], m, 0, rte_cpu_to_be_32(OUR_IP),
		rte_cpu_to_be_32(dst), IPPROTO_TCP, true);
}

/* The one frame sent: to @p mac, every header field and both checksums
 * right, whether it was built field by field or from the template. */
static void
check_tcp_frame(uint32_t dst, uint16_t len, const struct rte_ether_addr *mac)
{
	struct rte_mbuf *out[4];
	struct rte_ether_hdr *e;
	struct rte_ipv4_hdr *ip;

	ewyk_net_tx_flush(sh[0]);
	assert_int_equal(sent(0, 0, out, 4), 1);
	assert_int_equal(rte_pktmbuf_pkt_len(out[0]), 14 + 20 + 20 + len);
	assert_int_equal(out[0]->l2_len, 14);
	assert_int_equal(out[0]->l3_len, 20);
	e = rte_pktmbuf_mtod(out[0], struct rte_ether_hdr *);
	assert_true(rte_is_same_ether_addr(&e->dst_addr, mac));
	assert_true(rte_is_same_ether_addr(&e->src_addr, &our_mac[0]));
	assert_int_equal(e->ether_type, rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4));
	ip = (struct rte_ipv4_hdr *)(e + 1);
	assert_int_equal(ip->version_ihl, RTE_IPV4_VHL_DEF);
	assert_int_equal(rte_be_to_cpu_16(ip->total_length), 20 + 20 + len);
	assert_int_equal(ip->fragment_offset,
		rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG));
	assert_int_equal(ip->time_to_live, 64);
	assert_int_equal(ip->next_proto_id, IPPROTO_TCP);
	assert_int_equal(ip->src_addr, rte_cpu_to_be_32(OUR_IP));
	assert_int_equal(ip->dst_addr, rte_cpu_to_be_32(dst));
	assert_int_equal(rte_raw_cksum(ip, 20), 0xffff);
	assert_int_equal(rte_ipv4_udptcp_cksum_verify(ip, ip + 1), 0);
	rte_pktmbuf_free(out[0]);
}

/* The ARP reply of @p ip, from @p mac. */
static void
arp_reply_from(uint32_t ip, const struct rte_ether_addr *mac)
{
	struct rte_mbuf *m = arp_frame(0, RTE_ARP_OP_REPLY, ip, OUR_IP);
	struct rte_ether_hdr *e = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_arp_hdr *a = (struct rte_arp_hdr *)(e + 1);

	rte_ether_addr_copy(mac, &e->src_addr);
	rte_ether_addr_copy(mac, &a->arp_data.arp_sha);
	input(0, 0, m);
}

/*
 * Template path: once the next hop is known, segments to a destination
 * come from its prebuilt headers: lengths from 0 to an odd 1,333 bytes
 * with right checksums each; a new MAC for the next hop, a forgotten
 * entry and a new gateway each make the template miss and the frame
 * follow the change.
 */
void
test_ip_output_template(void **state)
{
	const uint32_t dst = RTE_IPV4(10, 0, 0, 19);
	const uint32_t far = UINT32_C(0xc0000202) /* 192.0.2.2 */;
	const uint32_t gw1 = RTE_IPV4(10, 0, 0, 78);
	const uint32_t gw2 = RTE_IPV4(10, 0, 0, 79);
	const struct rte_ether_addr mac2 = { .addr_bytes = { 0x02, 0, 0, 0,
						     0x77, 0x01 } };
	struct rte_mbuf *out[8];
	struct rte_arp_hdr *a;
	uint16_t lens[] = { 0, 1, 2, 7, 100, 128, 1333 };
	unsigned int i;

	(void)state;
	drain_all();
	assert_int_equal(send_tcp(dst, 5), 0); /* waits for ARP */
	ewyk_net_tx_flush(sh[0]);
	assert_int_equal(sent(0, 0, out, 8), 1); /* the request */
	rte_pktmbuf_free(out[0]);
	arp_reply_from(dst, &peer_mac);
	check_tcp_frame(dst, 5, &peer_mac);
	for (i = 0; i < RTE_DIM(lens); i++) {
		assert_int_equal(send_tcp(dst, lens[i]), 0);
		check_tcp_frame(dst, lens[i], &peer_mac);
	}
	/* The next hop moves to another MAC: the next frame goes there. */
	arp_reply_from(dst, &mac2);
	drain_all();
	assert_int_equal(send_tcp(dst, 33), 0);
	check_tcp_frame(dst, 33, &mac2);

	/* Through a gateway, then another one that is not resolved yet: the
	 * frame waits for the new gateway's MAC instead of following the
	 * template to the old one. */
	assert_int_equal(set_gw(0, gw1), 0);
	assert_int_equal(send_tcp(far, 10), 0);
	ewyk_net_tx_flush(sh[0]);
	assert_int_equal(sent(0, 0, out, 8), 1);
	rte_pktmbuf_free(out[0]);
	arp_reply_from(gw1, &peer_mac);
	check_tcp_frame(far, 10, &peer_mac);
	assert_int_equal(send_tcp(far, 11), 0);
	check_tcp_frame(far, 11, &peer_mac);
	assert_int_equal(set_gw(0, gw2), 0);
	assert_int_equal(send_tcp(far, 12), 0);
	ewyk_net_tx_flush(sh[0]);
	assert_int_equal(sent(0, 0, out, 8), 1);
	a = rte_pktmbuf_mtod_offset(out[0], struct rte_arp_hdr *, 14);
	assert_int_equal(rte_be_to_cpu_16(a->arp_opcode), RTE_ARP_OP_REQUEST);
	assert_int_equal(a->arp_data.arp_tip, rte_cpu_to_be_32(gw2));
	rte_pktmbuf_free(out[0]);
	arp_reply_from(gw2, &mac2);
	check_tcp_frame(far, 12, &mac2);
	assert_int_equal(set_gw(0, 0), 0);
}

void
test_arp_gives_up(void **state)
{
	const uint32_t dst = RTE_IPV4(10, 0, 0, 10);
	struct rte_mbuf *out[8], *m;
	uint64_t unres = ctr(0, EWYK_NET_DROP_ARP_UNRESOLVED);
	uint64_t hz = rte_get_tsc_hz();
	unsigned int i, reqs = 0;

	(void)state;
	drain_all();
	m = rte_pktmbuf_alloc(mp);
	memset(rte_pktmbuf_append(m, 8), 0, 8);
	assert_int_equal(ewyk_net_ip_output(sh[0], m, 0,
				 rte_cpu_to_be_32(OUR_IP),
				 rte_cpu_to_be_32(dst), IPPROTO_UDP, true),
		0);
	/* arp_retries = 2, every 10 ms: poll through 100 ms of fake time. */
	for (i = 0; i < 10; i++) {
		now += hz / 100 + 1;
		ewyk_net_poll(sh[0], now);
		ewyk_net_tx_flush(sh[0]);
	}
	while ((i = sent(0, 0, out, 8)) > 0) {
		reqs += i;
		rte_pktmbuf_free_bulk(out, i);
	}
	assert_int_equal(reqs, 2); /* the first request, and one retry */
	assert_int_equal(ctr(0, EWYK_NET_DROP_ARP_UNRESOLVED), unres + 1);
}

void
test_output_errors(void **state)
{
	struct rte_mbuf *m;
	uint64_t big = ctr(0, EWYK_NET_DROP_TOO_BIG);
	uint64_t nr = ctr(0, EWYK_NET_DROP_NO_ROUTE);

	(void)state;
	m = rte_pktmbuf_alloc(mp);
	rte_pktmbuf_append(m, 1490);
	assert_int_equal(ewyk_net_ip_output(sh[0], m, 0,
				 rte_cpu_to_be_32(OUR_IP),
				 rte_cpu_to_be_32(PEER_IP), 253, false),
		-EMSGSIZE);
	assert_int_equal(ctr(0, EWYK_NET_DROP_TOO_BIG), big + 1);
	m = rte_pktmbuf_alloc(mp);
	rte_pktmbuf_append(m, 20);
	assert_int_equal(ewyk_net_ip_output(sh[0], m, 0,
				 rte_cpu_to_be_32(OUR_IP),
				 rte_cpu_to_be_32(
					 UINT32_C(0xc0000201) /* 192.0.2.1 */),
				 253, false),
		-ENETUNREACH);
	m = rte_pktmbuf_alloc(mp);
	rte_pktmbuf_append(m, 20);
	assert_int_equal(ewyk_net_ip_output(sh[0], m, 7,
				 rte_cpu_to_be_32(OUR_IP),
				 rte_cpu_to_be_32(PEER_IP), 253, false),
		-EINVAL);
	assert_int_equal(ctr(0, EWYK_NET_DROP_NO_ROUTE), nr + 2);
}

static int
set_gw(uint16_t port, uint32_t a)
{
	return ewyk_net_port_set_gw(net, port, rte_cpu_to_be_32(a));
}

/* A default gateway: the addresses no gateway may have are refused;
 * with one, an off-link destination is routed to its port and sent to the
 * gateway's MAC (ARP asks for the gateway, not the destination); removed,
 * the destination is unreachable again. */
void
test_ip_output_gateway(void **state)
{
	const uint32_t far = UINT32_C(0xc0000201) /* 192.0.2.1 */;
	const uint32_t gw = RTE_IPV4(10, 0, 0, 77);
	struct rte_mbuf *out[8], *m;
	struct rte_arp_hdr *a;
	struct rte_ether_hdr *e;
	struct rte_ipv4_hdr *ip;
	uint64_t nr = ctr(0, EWYK_NET_DROP_NO_ROUTE);
	rte_be32_t nh;

	(void)state;
	drain_all();
	assert_int_equal(set_gw(7, gw), -EINVAL);
	assert_int_equal(set_gw(0, RTE_IPV4(127, 0, 0, 1)), -EINVAL);
	assert_int_equal(set_gw(0, UINT32_C(0xe0000001) /* 224.0.0.1 */),
		-EINVAL);
	assert_int_equal(set_gw(0, UINT32_MAX), -EINVAL);
	assert_int_equal(set_gw(0, OUR_IP), -EINVAL);
	assert_int_equal(set_gw(0, RTE_IPV4(10, 0, 255, 255)), -EINVAL);
	assert_int_equal(set_gw(0, RTE_IPV4(10, 0, 0, 0)), -EINVAL);
	assert_int_equal(set_gw(0, RTE_IPV4(10, 1, 0, 1)), -ENETUNREACH);
	assert_int_equal(ewyk_net_route(net, rte_cpu_to_be_32(far)),
		-ENETUNREACH);
	assert_int_equal(ewyk_net_nexthop(net, 0, rte_cpu_to_be_32(far), &nh),
		-ENETUNREACH);

	assert_int_equal(set_gw(0, gw), 0);
	/* the next hop: the gateway off the subnet, the host itself on it */
	assert_int_equal(ewyk_net_nexthop(net, 0, rte_cpu_to_be_32(far), &nh),
		0);
	assert_int_equal(nh, rte_cpu_to_be_32(gw));
	assert_int_equal(ewyk_net_nexthop(net, 0, rte_cpu_to_be_32(PEER_IP),
				 &nh),
		0);
	assert_int_equal(nh, rte_cpu_to_be_32(PEER_IP));
	assert_int_equal(ewyk_net_nexthop(net, 7, rte_cpu_to_be_32(far), &nh),
		-EINVAL);
	assert_int_equal(ewyk_net_route(net, rte_cpu_to_be_32(far)), 0);
	/* on-link destinations still go to their own port */
	assert_int_equal(ewyk_net_route(net, rte_cpu_to_be_32(PEER_IP)), 0);
	m = rte_pktmbuf_alloc(mp);
	assert_non_null(m);
	memset(rte_pktmbuf_append(m, 8), 0, 8);
	assert_int_equal(ewyk_net_ip_output(sh[0], m, 0,
				 rte_cpu_to_be_32(OUR_IP),
				 rte_cpu_to_be_32(far), IPPROTO_UDP, true),
		0);
	ewyk_net_tx_flush(sh[0]);
	assert_int_equal(sent(0, 0, out, 8), 1);
	a = rte_pktmbuf_mtod_offset(out[0], struct rte_arp_hdr *, 14);
	assert_int_equal(rte_be_to_cpu_16(a->arp_opcode), RTE_ARP_OP_REQUEST);
	assert_int_equal(a->arp_data.arp_tip, rte_cpu_to_be_32(gw));
	rte_pktmbuf_free(out[0]);
	/* the gateway answers: the datagram leaves for its MAC, addressed to
	 * the far host */
	input(0, 0, arp_frame(0, RTE_ARP_OP_REPLY, gw, OUR_IP));
	assert_int_equal(sent(0, 0, out, 8), 1);
	e = rte_pktmbuf_mtod(out[0], struct rte_ether_hdr *);
	assert_true(rte_is_same_ether_addr(&e->dst_addr, &peer_mac));
	ip = (struct rte_ipv4_hdr *)(e + 1);
	assert_int_equal(ip->dst_addr, rte_cpu_to_be_32(far));
	assert_int_equal(rte_raw_cksum(ip, 20), 0xffff);
	rte_pktmbuf_free(out[0]);

	/* removed: unreachable again, counted */
	assert_int_equal(set_gw(0, 0), 0);
	assert_int_equal(ewyk_net_route(net, rte_cpu_to_be_32(far)),
		-ENETUNREACH);
	m = rte_pktmbuf_alloc(mp);
	memset(rte_pktmbuf_append(m, 8), 0, 8);
	assert_int_equal(ewyk_net_ip_output(sh[0], m, 0,
				 rte_cpu_to_be_32(OUR_IP),
				 rte_cpu_to_be_32(far), IPPROTO_UDP, true),
		-ENETUNREACH);
	assert_int_equal(ctr(0, EWYK_NET_DROP_NO_ROUTE), nr + 1);
}

static struct rte_mbuf *
seq_frame(uint32_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);

	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, sizeof(seq)), &seq, sizeof(seq));
	return m;
}

static uint32_t
frame_seq(const struct rte_mbuf *m)
{
	uint32_t seq;

	memcpy(&seq, rte_pktmbuf_mtod(m, const void *), sizeof(seq));
	return seq;
}

/* Take everything shard 0 sent on port 0 and check it is seq, seq+1, ...;
 * returns the next sequence number. */
static uint32_t
take_in_order(uint32_t seq)
{
	struct rte_mbuf *m[64];
	unsigned int n, i;

	while ((n = sent(0, 0, m, RTE_DIM(m))) > 0) {
		for (i = 0; i < n; i++)
			assert_int_equal(frame_seq(m[i]), seq++);
		rte_pktmbuf_free_bulk(m, n);
	}
	return seq;
}

/* A full PMD queue (a memif ring whose reader fell behind): the frames it
 * refuses stay buffered, in order, and go in the next flush; only past the
 * port's buffer are new frames dropped and counted. */
void
test_tx_full_held(void **state)
{
	struct rte_ring *r = txr[0][0];
	unsigned int room, i;
	uint64_t held = ctr(0, EWYK_NET_TX_HELD);
	uint64_t full = ctr(0, EWYK_NET_DROP_TX_FULL);
	uint32_t seq = 0, next = 0;

	(void)state;
	drain_all();
	room = rte_ring_free_count(r);
	/* Not stalled: the port's TX state says the whole buffer is free. */
	assert_int_equal(ewyk_net_tx_room(sh[0], 0), 512);
	assert_int_equal(ewyk_net_tx_room(sh[0], EWYK_NET_MAX_PORTS), 0);
	/* The queue takes `room`; 100 more wait in the port's buffer. */
	for (i = 0; i < room + 100; i++)
		net_tx_enqueue(sh[0], 0, seq_frame(seq++));
	ewyk_net_tx_flush(sh[0]);
	assert_int_equal(rte_ring_count(r), room);
	/* Stalled: what is left of the buffer, shrinking as frames come. */
	assert_int_equal(ewyk_net_tx_room(sh[0], 0), 512 - 100);
	net_tx_enqueue(sh[0], 0, seq_frame(seq++));
	assert_int_equal(ewyk_net_tx_room(sh[0], 0), 512 - 101);
	assert_int_equal(ctr(0, EWYK_NET_TX_HELD), held + 100);
	assert_int_equal(ctr(0, EWYK_NET_DROP_TX_FULL), full);
	/* Still full: another flush sends nothing and counts nothing twice. */
	ewyk_net_tx_flush(sh[0]);
	assert_int_equal(ctr(0, EWYK_NET_TX_HELD), held + 101);
	/* The reader catches up: the held frames go first, in order. */
	next = take_in_order(next);
	assert_int_equal(next, room);
	ewyk_net_tx_flush(sh[0]);
	next = take_in_order(next);
	assert_int_equal(next, seq);
	/* Drained: the room is back. */
	assert_int_equal(ewyk_net_tx_room(sh[0], 0), 512);

	/* Queue full and the buffer too: what comes next is dropped. */
	for (i = 0; i < room + 512 + 5; i++)
		net_tx_enqueue(sh[0], 0, seq_frame(seq++));
	ewyk_net_tx_flush(sh[0]);
	assert_int_equal(ctr(0, EWYK_NET_DROP_TX_FULL), full + 5);
	next = take_in_order(next);
	ewyk_net_tx_flush(sh[0]);
	next = take_in_order(next);
	/* Everything but the five dropped last came out, in order. */
	assert_int_equal(next, seq - 5);
	drain_all();
}

/* A TCP segment of @p len bytes of a fixed pattern from the VLAN port's
 * address to @p dst on port 1, through ewyk_net_tcp_output() or
 * ewyk_net_ip_output(). */
static int
send_tcp_vlan(uint32_t dst, uint16_t len, bool tcp_fn)
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
	t->dst_port = rte_cpu_to_be_16(4343);
	t->sent_seq = rte_cpu_to_be_32(0x11223344u);
	t->recv_ack = rte_cpu_to_be_32(0x55667788u);
	t->data_off = 5 << 4;
	t->tcp_flags = RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG;
	t->rx_win = rte_cpu_to_be_16(1000);
	pl = (uint8_t *)(t + 1);
	for (i = 0; i < len; i++)
		pl[i] = (uint8_t)(i * 13 + 5);
	p = rte_pktmbuf_append(m, (uint16_t)(sizeof(*t) + len));
	assert_non_null(p);
	memcpy(p, seg, sizeof(*t) + len);
	if (tcp_fn)
		return ewyk_net_tcp_output(sh[0], m, 1,
			rte_cpu_to_be_32(VLAN_IP), rte_cpu_to_be_32(dst));
	return ewyk_net_ip_output(sh[0], m, 1, rte_cpu_to_be_32(VLAN_IP),
		rte_cpu_to_be_32(dst), IPPROTO_TCP, true);
}

/* The one frame shard 0 sent on port 1: a tagged frame of VLAN_ID to
 * @p mac carrying send_tcp_vlan(dst, len), every field and both
 * checksums right. Returned for the caller to compare and free. */
static struct rte_mbuf *
check_vlan_frame(uint32_t dst, uint16_t len, const struct rte_ether_addr *mac)
{
	struct rte_mbuf *out[4];
	struct rte_ether_hdr *e;
	struct rte_vlan_hdr *v;
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *t;

	ewyk_net_tx_flush(sh[0]);
	assert_int_equal(sent(1, 0, out, 4), 1);
	assert_int_equal(rte_pktmbuf_pkt_len(out[0]), 18 + 20 + 20 + len);
	assert_int_equal(out[0]->l2_len, 18);
	assert_int_equal(out[0]->l3_len, 20);
	e = rte_pktmbuf_mtod(out[0], struct rte_ether_hdr *);
	assert_true(rte_is_same_ether_addr(&e->dst_addr, mac));
	assert_true(rte_is_same_ether_addr(&e->src_addr, &our_mac[1]));
	assert_int_equal(e->ether_type, rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN));
	v = (struct rte_vlan_hdr *)(e + 1);
	assert_int_equal(v->vlan_tci, rte_cpu_to_be_16(VLAN_ID));
	assert_int_equal(v->eth_proto, rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4));
	ip = (struct rte_ipv4_hdr *)(v + 1);
	assert_int_equal(ip->version_ihl, RTE_IPV4_VHL_DEF);
	assert_int_equal(rte_be_to_cpu_16(ip->total_length), 20 + 20 + len);
	assert_int_equal(ip->fragment_offset,
		rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG));
	assert_int_equal(ip->time_to_live, 64);
	assert_int_equal(ip->next_proto_id, IPPROTO_TCP);
	assert_int_equal(ip->src_addr, rte_cpu_to_be_32(VLAN_IP));
	assert_int_equal(ip->dst_addr, rte_cpu_to_be_32(dst));
	assert_int_equal(rte_raw_cksum(ip, 20), 0xffff);
	t = (struct rte_tcp_hdr *)(ip + 1);
	assert_int_equal(t->dst_port, rte_cpu_to_be_16(4343));
	assert_int_equal(rte_ipv4_udptcp_cksum_verify(ip, t), 0);
	return out[0];
}

/*
 * The template of a port on a VLAN: the frame that waited for ARP (built
 * field by field, its Ethernet header added when the MAC came), the one
 * that built the template and the ones that copied it, through either
 * function, are one tagged frame, byte for byte; a new MAC for the next
 * hop is followed at once.
 */
void
test_ip_output_template_vlan(void **state)
{
	const uint32_t dst = RTE_IPV4(10, 1, 0, 19);
	const struct rte_ether_addr mac2 = { .addr_bytes = { 0x02, 0, 0, 0,
						     0x77, 0x02 } };
	const uint16_t lens[] = { 0, 1, 7, 100, 1333 };
	struct rte_mbuf *out[8], *first, *m;
	struct rte_ether_hdr *eth;
	struct rte_arp_hdr *a;
	const struct net_dc_entry *d = NULL;
	unsigned int i, k;

	(void)state;
	drain_all();
	assert_int_equal(send_tcp_vlan(dst, 100, true), 0); /* waits */
	ewyk_net_tx_flush(sh[0]);
	assert_int_equal(sent(1, 0, out, 8), 1); /* the request, tagged */
	assert_int_equal(out[0]->l2_len, 18);
	a = rte_pktmbuf_mtod_offset(out[0], struct rte_arp_hdr *, 18);
	assert_int_equal(a->arp_data.arp_tip, rte_cpu_to_be_32(dst));
	rte_pktmbuf_free(out[0]);
	input(0, 1, arp_frame(1, RTE_ARP_OP_REPLY, dst, VLAN_IP));
	first = check_vlan_frame(dst, 100, &peer_mac);
	for (k = 0; k < 4; k++) {
		assert_int_equal(send_tcp_vlan(dst, 100, k & 1), 0);
		m = check_vlan_frame(dst, 100, &peer_mac);
		frames_equal(first, m);
		rte_pktmbuf_free(m);
	}
	rte_pktmbuf_free(first);
	for (i = 0; i < NET_DC_ENTRIES; i++)
		if (sh[0]->dc[i].l2_len != 0 &&
			sh[0]->dc[i].dst == rte_cpu_to_be_32(dst))
			d = &sh[0]->dc[i];
	assert_non_null(d);
	assert_int_equal(d->l2_len, 18);
	assert_int_equal(d->port, 1);
	for (i = 0; i < RTE_DIM(lens); i++) {
		assert_int_equal(send_tcp_vlan(dst, lens[i], false), 0);
		first = check_vlan_frame(dst, lens[i], &peer_mac);
		assert_int_equal(send_tcp_vlan(dst, lens[i], true), 0);
		m = check_vlan_frame(dst, lens[i], &peer_mac);
		frames_equal(first, m);
		rte_pktmbuf_free(first);
		rte_pktmbuf_free(m);
	}
	/* The next hop answers from another MAC: the next frame goes there,
	 * still tagged. */
	m = arp_frame(1, RTE_ARP_OP_REPLY, dst, VLAN_IP);
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	rte_ether_addr_copy(&mac2, &eth->src_addr);
	a = rte_pktmbuf_mtod_offset(m, struct rte_arp_hdr *, 18);
	rte_ether_addr_copy(&mac2, &a->arp_data.arp_sha);
	input(0, 1, m);
	drain_all();
	assert_int_equal(send_tcp_vlan(dst, 9, true), 0);
	rte_pktmbuf_free(check_vlan_frame(dst, 9, &mac2));
	assert_int_equal(send_tcp_vlan(dst, 9, true), 0);
	rte_pktmbuf_free(check_vlan_frame(dst, 9, &mac2));
	assert_true(
		rte_is_same_ether_addr((const struct rte_ether_addr *)d->hdr,
			&mac2));
	drain_all();
}
