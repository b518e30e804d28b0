/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/net neighbour discovery cases (RFC 4861), run by test_net.c's main
 * in the world of net_test_util.h: answers to solicitations, the state
 * machine on the virtual clock, the cache's bounds, the announcements at
 * start, and neighbours kept per port (the same address on two ports'
 * links is two neighbours).
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_random.h>
#include <rte_thash.h>
#include <rte_udp.h>

#include <ewyk_net.h>
#include <ewyk_siphash.h>
#include "net_private.h"

#include "test_common.h"
#include "net_test_util.h"
#include "net6_test_util.h"

/* NS for our address: a solicited, overriding NA back to the sender's
 * link-layer address; the sender is learnt (STALE) on both shards. */
void
test_nd_answer(void **state)
{
	uint8_t pkt[128], sn[16];
	uint64_t b[EWYK_NET_COUNTER_MAX];
	struct rte_mbuf *out[4];
	struct rte_ipv6_hdr *ip;
	struct rte_ether_addr mac;
	struct net_nd_entry *e;
	uint8_t *r;
	uint16_t n;

	(void)state;
	drain_all();
	solnode(our6, sn);
	n = nd_msg(pkt, 135, 0, peer6, sn, our6, 1, &peer_mac, 255);
	input(0, 0, frame6(pkt, n));
	assert_int_equal(sent(0, 0, out, 4), 1);
	r = sent_icmp6(out[0], &ip);
	assert_int_equal(r[0], 136);
	assert_int_equal(r[4], 0x60); /* S | O, not R */
	assert_memory_equal(r + 8, our6, 16);
	assert_int_equal(r[24], 2); /* target link-layer address */
	assert_memory_equal(r + 26, &our_mac[0], 6);
	assert_int_equal(ip->hop_limits, 255);
	assert_memory_equal(ip->src_addr, our6, 16);
	assert_memory_equal(ip->dst_addr, peer6, 16);
	assert_true(rte_is_same_ether_addr(
		&rte_pktmbuf_mtod(out[0], struct rte_ether_hdr *)->dst_addr,
		&peer_mac));
	rte_pktmbuf_free(out[0]);
	e = nd_entry(0, peer6);
	assert_non_null(e);
	assert_int_equal(e->state, NET_ND_STALE);
	assert_int_equal(ewyk_net_nd_lookup(sh[0], 0, peer6, &mac), 0);
	assert_true(rte_is_same_ether_addr(&mac, &peer_mac));
	ewyk_net_poll(sh[1], now);
	assert_int_equal(ewyk_net_nd_lookup(sh[1], 0, peer6, &mac), 0);
	assert_int_equal(sent(0, 1, out, 4), 0); /* shard 1 stays quiet */

	/* Validation (RFC 4861 7.1.1): each of these is dropped. */
	n = nd_msg(pkt, 135, 0, peer6, sn, our6, 1, &peer_mac, 254);
	snap(b);
	input(0, 0, frame6(pkt, n));
	one_drop(b, EWYK_NET_DROP_ND_INVALID, "hop limit 254");
	n = nd_msg(pkt, 135, 0, peer6, sn, our6, 1, &peer_mac, 255);
	pkt[41] = 1;
	icmp6_fix((struct rte_ipv6_hdr *)pkt);
	snap(b);
	input(0, 0, frame6(pkt, n));
	one_drop(b, EWYK_NET_DROP_ND_INVALID, "code 1");
	n = nd_msg(pkt, 135, 0, peer6, sn, all_nodes, 1, &peer_mac, 255);
	snap(b);
	input(0, 0, frame6(pkt, n));
	one_drop(b, EWYK_NET_DROP_ND_INVALID, "group target");
	n = nd_msg(pkt, 135, 0, peer6, sn, our6, 1, &peer_mac, 255);
	pkt[40 + 25] = 0; /* option length 0 */
	icmp6_fix((struct rte_ipv6_hdr *)pkt);
	snap(b);
	input(0, 0, frame6(pkt, n));
	one_drop(b, EWYK_NET_DROP_ND_INVALID, "option length 0");
	{
		static const uint8_t unspec[16];

		/* From :: only to the solicited-node group, without SLLAO. */
		n = nd_msg(pkt, 135, 0, unspec, our6, our6, 0, NULL, 255);
		snap(b);
		input(0, 0, frame6(pkt, n));
		one_drop(b, EWYK_NET_DROP_ND_INVALID, "DAD to unicast");
		n = nd_msg(pkt, 135, 0, unspec, sn, our6, 1, &peer_mac, 255);
		snap(b);
		input(0, 0, frame6(pkt, n));
		one_drop(b, EWYK_NET_DROP_ND_INVALID, "DAD with SLLAO");
		assert_int_equal(sent(0, 0, out, 4), 0);
		/* A valid DAD probe for our address: we defend it with an
		 * NA to all-nodes, and count the conflict. */
		b[EWYK_NET_ND_DAD_CONFLICT] = ctr(0, EWYK_NET_ND_DAD_CONFLICT);
		n = nd_msg(pkt, 135, 0, unspec, sn, our6, 0, NULL, 255);
		input(0, 0, frame6(pkt, n));
		assert_int_equal(ctr(0, EWYK_NET_ND_DAD_CONFLICT),
			b[EWYK_NET_ND_DAD_CONFLICT] + 1);
		assert_int_equal(sent(0, 0, out, 4), 1);
		r = sent_icmp6(out[0], &ip);
		assert_int_equal(r[4], 0x20); /* O only */
		assert_memory_equal(ip->dst_addr, all_nodes, 16);
		rte_pktmbuf_free(out[0]);
	}
	/* NS for someone else's address. */
	{
		uint8_t other[16];

		memcpy(other, our6, 16);
		other[15] = 0x99;
		solnode(other, sn);
		n = nd_msg(pkt, 135, 0, peer6, sn, other, 1, &peer_mac, 255);
		snap(b);
		input(0, 0, frame6(pkt, n));
		/* Its group is not ours: dropped at the IPv6 destination. */
		one_drop(b, EWYK_NET_DROP_IP6_NOT_OURS, "foreign group");
		n = nd_msg(pkt, 135, 0, peer6, our6, other, 1, &peer_mac, 255);
		snap(b);
		input(0, 0, frame6(pkt, n));
		one_drop(b, EWYK_NET_DROP_ND_NOT_OURS, "other target");
	}
	/* Our own multicast coming back. */
	solnode(our6, sn);
	n = nd_msg(pkt, 135, 0, peer6, sn, our6, 1, &peer_mac, 255);
	{
		struct rte_mbuf *m = frame6(pkt, n);

		rte_ether_addr_copy(&our_mac[0],
			&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->src_addr);
		snap(b);
		input(0, 0, m);
		one_drop(b, EWYK_NET_DROP_ND_LOOP, "looped");
	}
	assert_int_equal(sent(0, 0, out, 4), 0);
}

/*
 * The neighbour state machine on the virtual clock: INCOMPLETE (a
 * multicast NS, frames held, bounded) -> REACHABLE on a solicited NA ->
 * STALE after ReachableTime -> DELAY on use -> PROBE (unicast NS) after
 * 5 s -> gone after the probes, an upper-layer confirmation taking DELAY
 * back to REACHABLE on the way; and an INCOMPLETE entry that is never
 * answered gives up and frees what waited.
 */
void
test_nd_state_machine(void **state)
{
	uint8_t pkt[128], sn[16], peer2[16], peer3[16];
	struct rte_mbuf *out[16];
	struct net_nd_entry *e;
	struct rte_ipv6_hdr *ip;
	const struct rte_ether_addr mac2 = { .addr_bytes = { 2, 0, 0, 0, 0,
						     0x22 } };
	uint64_t q0 = ctr(0, EWYK_NET_DROP_ND_QUEUE);
	uint64_t un0 = ctr(0, EWYK_NET_DROP_ND_UNRESOLVED);
	uint8_t *r;
	unsigned int i, k;
	uint64_t d, ms_left;
	uint16_t n;

	(void)state;
	drain_all();
	now += 1000 * rte_get_tsc_hz();
	memcpy(peer2, our6, 16);
	peer2[15] = 0x22;
	memcpy(peer3, our6, 16);
	peer3[15] = 0x33;
	solnode(peer2, sn);

	/* 4 frames held (arp_queue_len), the fifth dropped. */
	ewyk_net_input(sh[0], 0, NULL, 0, now);
	for (i = 0; i < 4; i++)
		assert_int_equal(out6(peer2, 10), 0);
	assert_int_equal(out6(peer2, 10), -ENOBUFS);
	assert_int_equal(ctr(0, EWYK_NET_DROP_ND_QUEUE), q0 + 1);
	ewyk_net_tx_flush(sh[0]);
	assert_int_equal(sent(0, 0, out, 16), 1);
	r = sent_icmp6(out[0], &ip);
	assert_int_equal(r[0], 135);
	assert_memory_equal(r + 8, peer2, 16);
	assert_memory_equal(ip->dst_addr, sn, 16);
	assert_int_equal(ip->hop_limits, 255);
	assert_int_equal(r[24], 1); /* our source link-layer address */
	assert_int_equal(rte_pktmbuf_mtod(out[0], struct rte_ether_hdr *)
				 ->dst_addr.addr_bytes[0],
		0x33);
	rte_pktmbuf_free(out[0]);
	e = nd_entry(0, peer2);
	assert_non_null(e);
	assert_int_equal(e->state, NET_ND_INCOMPLETE);

	/* The solicited NA: REACHABLE, the held frames leave. */
	n = nd_msg(pkt, 136, 0x60, peer2, our6, peer2, 2, &mac2, 255);
	input(0, 0, frame6(pkt, n));
	assert_int_equal(e->state, NET_ND_REACHABLE);
	assert_int_equal(sent(0, 0, out, 16), 4);
	for (i = 0; i < 4; i++) {
		struct rte_ether_hdr *eh = rte_pktmbuf_mtod(out[i],
			struct rte_ether_hdr *);

		assert_true(rte_is_same_ether_addr(&eh->dst_addr, &mac2));
		ip = (struct rte_ipv6_hdr *)(eh + 1);
		assert_int_equal(ip->proto, IPPROTO_UDP);
		assert_memory_equal(ip->dst_addr, peer2, 16);
		assert_int_equal(rte_ipv6_udptcp_cksum_verify(ip, ip + 1), 0);
	}
	rte_pktmbuf_free_bulk(out, 4);
	/* Shard 1 heard the NA too (the inbox), but had no entry. */
	ewyk_net_poll(sh[1], now);
	assert_null(nd_entry(1, peer2));

	/* A non-overriding NA with another address only makes it STALE. */
	{
		const struct rte_ether_addr mac9 = { .addr_bytes = { 2, 0, 0, 0,
							     0, 0x99 } };

		n = nd_msg(pkt, 136, 0x40, peer2, our6, peer2, 2, &mac9, 255);
		input(0, 0, frame6(pkt, n));
		assert_int_equal(e->state, NET_ND_STALE);
		assert_true(rte_is_same_ether_addr(&e->mac, &mac2));
		/* solicited again with the same address: REACHABLE */
		n = nd_msg(pkt, 136, 0x40, peer2, our6, peer2, 2, &mac2, 255);
		input(0, 0, frame6(pkt, n));
		assert_int_equal(e->state, NET_ND_REACHABLE);
	}

	/* ReachableTime (30 s, drawn in [15, 45)) passes: STALE. */
	advance_ms(46000);
	assert_int_equal(e->state, NET_ND_STALE);
	ewyk_net_tx_flush(sh[0]); /* what older tests left (ARP retries) */
	drain_all();
	/* Used: DELAY, and the frame goes at once. */
	assert_int_equal(out6(peer2, 10), 0);
	assert_int_equal(e->state, NET_ND_DELAY);
	ewyk_net_tx_flush(sh[0]);
	assert_int_equal(sent(0, 0, out, 16), 1);
	rte_pktmbuf_free(out[0]);
	advance_ms(4000);
	assert_int_equal(e->state, NET_ND_DELAY);
	/* An upper-layer confirmation takes a DELAY entry back to
	 * REACHABLE (no probe); used again after ReachableTime it is in
	 * DELAY once more. */
	assert_int_equal(ewyk_net_nd_confirm(sh[0], 0, peer2), 0);
	assert_int_equal(e->state, NET_ND_REACHABLE);
	assert_int_equal(ewyk_net_nd_confirm(sh[0], 0, peer3), -ENOENT);
	/* Confirmed again with more than half of ReachableTime (15 s of
	 * 30) left: the deadline stays; with 14 s left it moves on. */
	d = e->deadline;
	assert_int_equal(ewyk_net_nd_confirm(sh[0], 0, peer2), 0);
	assert_true(e->deadline == d);
	ms_left = (d - now) / (rte_get_tsc_hz() / 1000);
	assert_true(ms_left >= 15000);
	advance_ms(ms_left - 14000);
	assert_int_equal(e->state, NET_ND_REACHABLE);
	assert_true(e->deadline == d);
	assert_int_equal(ewyk_net_nd_confirm(sh[0], 0, peer2), 0);
	assert_true(e->deadline > d);
	advance_ms(46000);
	assert_int_equal(e->state, NET_ND_STALE);
	assert_int_equal(out6(peer2, 10), 0);
	assert_int_equal(e->state, NET_ND_DELAY);
	ewyk_net_tx_flush(sh[0]);
	assert_int_equal(sent(0, 0, out, 16), 1);
	rte_pktmbuf_free(out[0]);
	advance_ms(4000);
	/* 5 s: PROBE, a unicast NS to the cached address. */
	advance_ms(1100);
	assert_int_equal(e->state, NET_ND_PROBE);
	ewyk_net_tx_flush(sh[0]);
	assert_int_equal(sent(0, 0, out, 16), 1);
	r = sent_icmp6(out[0], &ip);
	assert_int_equal(r[0], 135);
	assert_memory_equal(ip->dst_addr, peer2, 16);
	assert_true(rte_is_same_ether_addr(
		&rte_pktmbuf_mtod(out[0], struct rte_ether_hdr *)->dst_addr,
		&mac2));
	rte_pktmbuf_free(out[0]);
	/* Unanswered: one more probe (arp_retries 2), then the entry goes. */
	for (k = 0; k < 3; k++)
		advance_ms(15);
	ewyk_net_tx_flush(sh[0]);
	assert_int_equal(sent(0, 0, out, 16), 1);
	rte_pktmbuf_free(out[0]);
	assert_null(nd_entry(0, peer2));

	/* Never answered: the held frame is freed and counted. */
	assert_int_equal(out6(peer3, 10), 0);
	for (k = 0; k < 4; k++)
		advance_ms(15);
	assert_null(nd_entry(0, peer3));
	assert_int_equal(ctr(0, EWYK_NET_DROP_ND_UNRESOLVED), un0 + 1);
	drain_all();
}

/* The cache never holds more than nd_entries, whatever floods it; a
 * flood of solicitations (STALE entries) gives way before a REACHABLE
 * entry does. */
void
test_nd_cache_bounds(void **state)
{
	uint8_t pkt[128], sn[16], src[16];
	const struct rte_ether_addr mac4 = { .addr_bytes = { 2, 0, 0, 0, 0,
						     0x44 } };
	struct net_nd_entry *e;
	uint32_t i, used;

	(void)state;
	drain_all();
	assert_int_equal(out6(peer4, 10), 0);
	{
		uint16_t n = nd_msg(pkt, 136, 0x60, peer4, our6, peer4, 2,
			&mac4, 255);

		input(0, 0, frame6(pkt, n));
	}
	e = nd_entry(0, peer4);
	assert_non_null(e);
	assert_int_equal(e->state, NET_ND_REACHABLE);
	drain_all();
	solnode(our6, sn);
	memcpy(src, our6, 16);
	for (i = 0; i < 4 * (sh[0]->nd_mask + 1); i++) {
		uint16_t n;

		src[12] = 0x5a;
		src[13] = (uint8_t)(i >> 8);
		src[14] = (uint8_t)i;
		n = nd_msg(pkt, 135, 0, src, sn, our6, 1, &peer_mac, 255);
		input(0, 0, frame6(pkt, n));
		drain_all();
	}
	for (used = 0, i = 0; i <= sh[0]->nd_mask; i++)
		used += sh[0]->nd[i].state != NET_ND_FREE;
	assert_true(used <= sh[0]->nd_mask + 1);
	assert_true(used > (sh[0]->nd_mask + 1) / 2);
	e = nd_entry(0, peer4);
	assert_non_null(e);
	assert_int_equal(e->state, NET_ND_REACHABLE);
	ewyk_net_poll(sh[1], now);
	drain_all();
}

/* At start: per IPv6 address a DAD probe (from ::, no SLLAO) and an
 * unsolicited NA to all-nodes (override, not solicited). */
void
test_nd_announce(void **state)
{
	struct rte_mbuf *out[16];
	struct rte_ipv6_hdr *ip;
	unsigned int n, i, ns = 0, na = 0;
	static const uint8_t unspec[16];

	(void)state;
	drain_all();
	now += 10 * rte_get_tsc_hz(); /* a fresh ND send budget */
	ewyk_net_input(sh[0], 0, NULL, 0, now);
	/* 2 ARP requests + 2 IPv6 addresses x (NS + NA) on port 0 */
	assert_int_equal(ewyk_net_announce(sh[0]), 2 + 4);
	ewyk_net_tx_flush(sh[0]);
	n = sent(0, 0, out, 16);
	assert_int_equal(n, 5);
	for (i = 0; i < n; i++) {
		uint8_t *r;

		if (rte_be_to_cpu_16(
			    rte_pktmbuf_mtod(out[i], struct rte_ether_hdr *)
				    ->ether_type) != RTE_ETHER_TYPE_IPV6)
			continue;
		r = sent_icmp6(out[i], &ip);
		if (r[0] == 135) {
			ns++;
			assert_memory_equal(ip->src_addr, unspec, 16);
			assert_int_equal(rte_be_to_cpu_16(ip->payload_len), 24);
		} else {
			na++;
			assert_int_equal(r[0], 136);
			assert_int_equal(r[4], 0x20);
			assert_memory_equal(ip->dst_addr, all_nodes, 16);
		}
	}
	assert_int_equal(ns, 2);
	assert_int_equal(na, 2);
	rte_pktmbuf_free_bulk(out, n);
	drain_all();

	/* Room for EWYK_NET_MAX_IP6 addresses, link-local included. */
	{
		uint8_t a[16];

		memcpy(a, our6, 16);
		a[5] = 1;
		assert_int_equal(ewyk_net_port_add_ip6(net, 0, a, 64), 0);
		a[5] = 2;
		assert_int_equal(ewyk_net_port_add_ip6(net, 0, a, 48), 0);
		a[5] = 3;
		assert_int_equal(ewyk_net_port_add_ip6(net, 0, a, 64), -ENOSPC);
		assert_int_equal(ewyk_net_port_ip6(net, 0, 3, a, NULL), 0);
		assert_int_equal(a[5], 2);
	}
}
