/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/net's L4 interface: delivery to a registered protocol handler
 * (Ethernet padding trimmed) and ewyk_net_l4_cksum() against DPDK's over
 * split mbufs. Run by test_net.c's main.
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

/* L4 handler: records what it was given. */
static struct {
	unsigned int calls;
	uint32_t pkt_len;
	struct ewyk_net_ip_info info;
	uint8_t first;
} l4seen;

static void
l4_record(void *arg, struct ewyk_net_shard *s, struct rte_mbuf *m,
	const struct ewyk_net_ip_info *ip)
{
	(void)arg;
	(void)s;
	l4seen.calls++;
	l4seen.pkt_len = m->pkt_len;
	l4seen.info = *ip;
	l4seen.first = *rte_pktmbuf_mtod(m, uint8_t *);
	rte_pktmbuf_free(m);
}

void
test_l4_delivery_trims_padding(void **state)
{
	uint8_t buf[128], udp[12] = { 0xab, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
	uint16_t n = ip_build(buf, PEER_IP, OUR_IP, IPPROTO_UDP, udp,
		sizeof(udp));
	struct rte_mbuf *m;

	(void)state;
	assert_int_equal(ewyk_net_l4_register(sh[0], IPPROTO_UDP, l4_record,
				 NULL),
		0);
	/* Pad to the 60-byte Ethernet minimum, as a NIC would deliver it. */
	memset(buf + n, 0xee, 60 - 14 - n);
	m = frame_new(0, RTE_ETHER_TYPE_IPV4, false, buf, 60 - 14);
	input(0, 0, m);
	assert_int_equal(l4seen.calls, 1);
	assert_int_equal(l4seen.pkt_len, sizeof(udp));
	assert_int_equal(l4seen.first, 0xab);
	assert_int_equal(l4seen.info.l4_len, sizeof(udp));
	assert_int_equal(l4seen.info.src, rte_cpu_to_be_32(PEER_IP));
	assert_int_equal(l4seen.info.proto, IPPROTO_UDP);
	assert_int_equal(l4seen.info.port, 0);
}

/*
 * The word-at-a-time sum against DPDK's 16-bit loop: every length up to a
 * jumbo MTU's worth of lanes, every start alignment, random bytes and the
 * carry extremes (all ones, all zeros, alternating), in one segment and
 * chained at an odd and an even place.
 */
void
test_cksum_raw_matches_dpdk(void **state)
{
	static uint8_t buf[700];
	unsigned int fill, off, len;

	(void)state;
	for (fill = 0; fill < 4; fill++) {
		for (off = 0; off < sizeof(buf); off++)
			buf[off] = fill == 0 ? (uint8_t)rte_rand() :
				fill == 1    ? 0xff :
				fill == 2    ? 0 :
					       (uint8_t)((off & 1) ? 0xff : 0);
		for (off = 0; off < 8; off++)
			for (len = 0; len + off <= 600; len++)
				assert_int_equal(net_cksum_raw(buf + off, len),
					rte_raw_cksum(buf + off, len));
	}
	for (len = 9; len < 600; len += 7) {
		struct rte_mbuf *a = rte_pktmbuf_alloc(mp);
		struct rte_mbuf *b = rte_pktmbuf_alloc(mp);
		uint16_t split = (uint16_t)(1 + len % 5), got = 0;

		for (off = 0; off < len; off++)
			buf[off] = (uint8_t)rte_rand();
		memcpy(rte_pktmbuf_append(a, split), buf, split);
		memcpy(rte_pktmbuf_append(b, (uint16_t)(len - split)),
			buf + split, len - split);
		assert_int_equal(rte_pktmbuf_chain(a, b), 0);
		assert_int_equal(net_cksum_mbuf(a, 0, len, &got), 0);
		assert_int_equal(got, rte_raw_cksum(buf, len));
		assert_int_equal(net_cksum_mbuf(a, 1, len - 1, &got), 0);
		assert_int_equal(got, rte_raw_cksum(buf + 1, len - 1));
		assert_int_equal(net_cksum_mbuf(a, 0, len + 1, &got), -1);
		rte_pktmbuf_free(a);
	}
}

void
test_l4_cksum_matches_dpdk(void **state)
{
	unsigned int iter;

	(void)state;
	for (iter = 0; iter < 200; iter++) {
		uint8_t frame[1600];
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)frame;
		uint16_t len = (uint16_t)(8 + rte_rand_max(1400));
		uint16_t i, split, want, got;
		struct rte_mbuf *a, *b;
		uint8_t proto = (iter & 1) ? IPPROTO_UDP : IPPROTO_TCP;

		for (i = 0; i < len; i++)
			frame[20 + i] = (uint8_t)rte_rand();
		ip_build(frame, (uint32_t)rte_rand(), (uint32_t)rte_rand(),
			proto, frame + 20, len);
		memset(frame + 20 + (proto == IPPROTO_TCP ? 16 : 6), 0, 2);
		want = rte_ipv4_udptcp_cksum(ip, frame + 20);
		/* The same segment split over two mbufs at an odd place. */
		split = (uint16_t)(1 + rte_rand_max(len - 1));
		a = rte_pktmbuf_alloc(mp);
		b = rte_pktmbuf_alloc(mp);
		memcpy(rte_pktmbuf_append(a, split), frame + 20, split);
		memcpy(rte_pktmbuf_append(b, len - split), frame + 20 + split,
			len - split);
		assert_int_equal(rte_pktmbuf_chain(a, b), 0);
		got = ewyk_net_l4_cksum(a, ip->src_addr, ip->dst_addr, proto);
		if (proto == IPPROTO_UDP && got == 0)
			got = 0xffff;
		assert_int_equal(got, want);
		rte_pktmbuf_free(a);
	}
}
