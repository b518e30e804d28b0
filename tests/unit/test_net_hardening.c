/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/net hardening (docs/guides/security.md): SipHash against reference
 * vectors, the keyed ARP table, no echo reply to group sources, source
 * address checks, the NIC's receive drops as counters, the ARP table
 * evicting incomplete entries first and the per-shard limit on new
 * resolutions. Run by test_net.c's main.
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

/* SipHash-2-4 against the reference vectors (key 00..0f, message 00..),
 * SipHash-1-3 against those of Rust's SipHasher13 (its first) and a
 * reference-style model (the others). */
void
test_siphash_vectors(void **state)
{
	static const uint64_t want[] = {
		UINT64_C(0x726fdb47dd0e0e31),
		UINT64_C(0xcf2794e0277187b7),
		UINT64_C(0x93f5f5799a932462),
		UINT64_C(0x751e8fbc860ee5fb),
		UINT64_C(0x3f2acc7f57c29bdb),
	};
	static const uint64_t want13[] = {
		UINT64_C(0xabac0158050fc4dc),
		UINT64_C(0xcf75576088d38328),
		UINT64_C(0x369095118d299a8e),
		UINT64_C(0x78a384b157b4d9a2),
		UINT64_C(0xcc4fdd1a7d908b66),
	};
	uint8_t msg[16];
	uint32_t w[4];
	uint64_t k0 = UINT64_C(0x0706050403020100);
	uint64_t k1 = UINT64_C(0x0f0e0d0c0b0a0908);
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)i;
	memcpy(w, msg, sizeof(w)); /* the words of a little-endian host */
	for (i = 0; i < RTE_DIM(want); i++) {
		assert_true(ewyk_siphash24(k0, k1, w, i) == want[i]);
		assert_true(ewyk_siphash13(k0, k1, w, i) == want13[i]);
	}
}

/*
 * The ARP table is keyed: nine on-link addresses (port 0 is a /16) an
 * attacker picks to share one slot of the unkeyed CRC32C the table used
 * overflowed its probe window (NET_ARP_PROBE, 8), and the ninth evicted
 * a real entry. With the keyed hash all of them are kept.
 */
void
test_arp_hash_keyed(void **state)
{
	uint32_t cand[9], x, n = 0;
	struct rte_ether_addr mac;
	unsigned int i, found = 0;

	(void)state;
	drain_all();
	for (x = 256; x < 65280 && n < RTE_DIM(cand); x++) {
		uint32_t ip = RTE_IPV4(10, 0, 0, 0) | x;

		if ((x & 255) == 0 || (x & 255) == 255 || ip == OUR_IP ||
			ip == PEER_IP)
			continue;
		if ((rte_hash_crc_4byte(rte_cpu_to_be_32(ip), 0) & 255) == 7)
			cand[n++] = ip;
	}
	assert_int_equal(n, RTE_DIM(cand));
	for (i = 0; i < n; i++) {
		input(0, 0, arp_frame(0, RTE_ARP_OP_REQUEST, cand[i], OUR_IP));
		ewyk_net_poll(sh[1], now);
		drain_all();
	}
	for (i = 0; i < n; i++)
		if (ewyk_net_arp_lookup(sh[0], 0, rte_cpu_to_be_32(cand[i]),
			    &mac) == 0)
			found++;
	assert_int_equal(found, n);
}

/* No echo reply to a broadcast or multicast Ethernet source: it would
 * go to the whole segment (a smurf amplifier). */
void
test_icmp_group_source(void **state)
{
	static const struct rte_ether_addr srcs[] = {
		{ .addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } },
		{ .addr_bytes = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 } },
	};
	uint64_t d0 = ctr(0, EWYK_NET_DROP_ICMP_SRC);
	uint8_t buf[256];
	struct rte_mbuf *out[4], *m;
	unsigned int i;

	(void)state;
	drain_all();
	for (i = 0; i < RTE_DIM(srcs); i++) {
		uint16_t n = echo_build(buf, PEER_IP, OUR_IP, 8);

		m = frame_new(0, RTE_ETHER_TYPE_IPV4, false, buf, n);
		rte_ether_addr_copy(&srcs[i],
			&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->src_addr);
		input(0, 0, m);
		assert_int_equal(sent(0, 0, out, 4), 0);
	}
	assert_int_equal(ctr(0, EWYK_NET_DROP_ICMP_SRC), d0 + RTE_DIM(srcs));
}

/* Sources no host may use: ours, the subnet's broadcast (port 0 is
 * 10.0/16), 0/8 and 240/4 are dropped, not answered. */
void
test_ip_source_checks(void **state)
{
	static const uint32_t bad[] = {
		OUR_IP,
		RTE_IPV4(10, 0, 255, 255),
		RTE_IPV4(0, 1, 2, 3),
		RTE_IPV4(240, 0, 0, 1),
		RTE_IPV4(250, 1, 1, 1),
	};
	uint64_t d0 = ctr(0, EWYK_NET_DROP_IP_SRC);
	uint8_t buf[256];
	struct rte_mbuf *out[4];
	unsigned int i;

	(void)state;
	drain_all();
	for (i = 0; i < RTE_DIM(bad); i++) {
		uint16_t n = echo_build(buf, bad[i], OUR_IP, 8);

		input(0, 0, frame_new(0, RTE_ETHER_TYPE_IPV4, false, buf, n));
		assert_int_equal(sent(0, 0, out, 4), 0);
	}
	assert_int_equal(ctr(0, EWYK_NET_DROP_IP_SRC), d0 + RTE_DIM(bad));
	/* A neighbour in the subnet is still answered. */
	input(0, 0,
		frame_new(0, RTE_ETHER_TYPE_IPV4, false, buf,
			echo_build(buf, RTE_IPV4(10, 0, 3, 7), OUR_IP, 8)));
	assert_int_equal(sent(0, 0, out, 4), 1);
	rte_pktmbuf_free(out[0]);
}

/* The NIC's receive drops (rx_nombuf, imissed) become shard 0's
 * counters: what is new since the last poll is added. */
void
test_nic_rx_drops(void **state)
{
	struct rte_eth_stats st;
	uint64_t n0 = ctr(0, EWYK_NET_DROP_RX_NOMBUF);
	uint64_t m0 = ctr(0, EWYK_NET_DROP_RX_MISSED);

	(void)state;
	memset(&st, 0, sizeof(st));
	st.rx_nombuf = 5;
	st.imissed = 3;
	net_port_rx_drops(sh[0], 1, &st);
	st.rx_nombuf = 7;
	net_port_rx_drops(sh[0], 1, &st);
	assert_int_equal(ctr(0, EWYK_NET_DROP_RX_NOMBUF), n0 + 7);
	assert_int_equal(ctr(0, EWYK_NET_DROP_RX_MISSED), m0 + 3);
	/* The housekeeping poll reads the ring ports' (zero) stats. */
	ewyk_net_poll(sh[0], now + 10 * rte_get_tsc_hz());
	assert_int_equal(ctr(0, EWYK_NET_DROP_RX_NOMBUF), n0 + 7);
}

/* A small TCP segment to @dst through ewyk_net_ip_output(). */
static int
out_seg(uint32_t dst)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_tcp_hdr t;
	char *p;

	assert_non_null(m);
	memset(&t, 0, sizeof(t));
	t.src_port = rte_cpu_to_be_16(80);
	t.dst_port = rte_cpu_to_be_16(1000);
	t.data_off = 5 << 4;
	p = rte_pktmbuf_append(m, sizeof(t));
	assert_non_null(p);
	memcpy(p, &t, sizeof(t));
	return ewyk_net_ip_output(sh[0], m, 0, rte_cpu_to_be_32(OUR_IP),
		rte_cpu_to_be_32(dst), IPPROTO_TCP, true);
}

static uint32_t
arp_slot(uint32_t ip)
{
	uint32_t w[2] = { rte_cpu_to_be_32(ip), 0 }; /* (address, port 0) */

	return (uint32_t)ewyk_siphash13(net->arp_k0, net->arp_k1, w, 2) &
		sh[0]->arp_mask;
}

/*
 * When a probe window is full, a resolving (INCOMPLETE) entry is evicted
 * before any reachable one: seven real peers and one address being
 * resolved fill a window; a ninth address takes the resolving one's slot
 * (its waiting frame counted), the peers stay. Before, the reachable
 * entry that went stale first was thrown out.
 */
void
test_arp_evicts_incomplete_first(void **state)
{
	uint32_t cand[9], S, x, n = 0, i;
	uint64_t unres = ctr(0, EWYK_NET_DROP_ARP_UNRESOLVED);
	struct rte_ether_addr mac;

	(void)state;
	drain_all();
	for (S = 0; S <= sh[0]->arp_mask; S++) {
		for (i = 0; i < 8; i++)
			if (sh[0]->arp[(S + i) & sh[0]->arp_mask].state !=
				NET_ARP_FREE)
				break;
		if (i == 8)
			break;
	}
	assert_true(S <= sh[0]->arp_mask);
	for (x = 0x2000; x < 0xff00 && n < RTE_DIM(cand); x++) {
		uint32_t ip = RTE_IPV4(10, 0, 0, 0) | x;

		if ((x & 255) != 0 && (x & 255) != 255 && arp_slot(ip) == S)
			cand[n++] = ip;
	}
	assert_int_equal(n, RTE_DIM(cand));
	for (i = 0; i < 7; i++) {
		input(0, 0, arp_frame(0, RTE_ARP_OP_REQUEST, cand[i], OUR_IP));
		ewyk_net_poll(sh[1], now);
		drain_all();
	}
	assert_int_equal(out_seg(cand[7]), 0); /* resolving, 1 waits */
	assert_int_equal(out_seg(cand[8]), 0); /* evicts it */
	ewyk_net_tx_flush(sh[0]);
	drain_all();
	for (i = 0; i < 7; i++)
		assert_int_equal(ewyk_net_arp_lookup(sh[0], 0,
					 rte_cpu_to_be_32(cand[i]), &mac),
			0);
	assert_int_equal(ctr(0, EWYK_NET_DROP_ARP_UNRESOLVED), unres + 1);
}

/* New resolutions per shard and second are limited (arp_resolve_limit,
 * here 3): the fourth new address in a second is refused and counted. */
void
test_arp_resolve_limit(void **state)
{
	uint64_t lim = ctr(0, EWYK_NET_DROP_ARP_LIMITED);
	uint64_t t = now + 100 * rte_get_tsc_hz();
	uint32_t i;

	(void)state;
	drain_all();
	net->conf.arp_resolve_limit = 3;
	ewyk_net_poll(sh[0], t);
	for (i = 0; i < 3; i++)
		assert_int_equal(out_seg(RTE_IPV4(10, 0, 0xee, 1 + i)), 0);
	assert_int_equal(out_seg(RTE_IPV4(10, 0, 0xee, 4)), -ENOBUFS);
	assert_int_equal(ctr(0, EWYK_NET_DROP_ARP_LIMITED), lim + 1);
	/* A known address is not a new resolution. */
	assert_int_equal(out_seg(RTE_IPV4(10, 0, 0xee, 1)), 0);
	ewyk_net_poll(sh[0], t + rte_get_tsc_hz());
	assert_int_equal(out_seg(RTE_IPV4(10, 0, 0xee, 4)), 0);
	net->conf.arp_resolve_limit = 0;
	ewyk_net_tx_flush(sh[0]);
	drain_all();
}
