/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/net IPv6 cases, run by test_net.c's main in the world of
 * net_test_util.h: port 0 has OUR6/64 (setup_all()) and its EUI-64
 * link-local address, port 1 has no IPv6 (until test_net_neigh.c). Time
 * is the harness's `now`, moved forward by hand (a virtual clock).
 * Neighbour discovery has its own file, test_net_nd.c; the helpers both
 * use are in net6_test_util.c.
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

void
test_ip6_addresses(void **state)
{
	const uint8_t ll_pfx[8] = { 0xfe, 0x80 };
	uint8_t a[16], b[16];
	uint8_t plen;

	(void)state;
	/* Index 0: fe80::/64 + modified EUI-64 of the MAC. */
	assert_int_equal(ewyk_net_port_ip6(net, 0, 0, a, &plen), 0);
	assert_int_equal(plen, 64);
	assert_memory_equal(a, ll_pfx, 8);
	assert_int_equal(a[8], our_mac[0].addr_bytes[0] ^ 2);
	assert_int_equal(a[11], 0xff);
	assert_int_equal(a[12], 0xfe);
	assert_int_equal(a[15], our_mac[0].addr_bytes[5]);
	assert_int_equal(ewyk_net_port_ip6(net, 0, 1, b, &plen), 0);
	assert_memory_equal(b, our6, 16);
	assert_int_equal(ewyk_net_port_ip6(net, 0, 2, b, NULL), -ENOENT);
	assert_int_equal(ewyk_net_port_ip6(net, 1, 0, b, NULL), -ENOENT);

	/* Refused: groups, link-local, ::, ::1, prefix 0 or > 128, twice. */
	memcpy(b, all_nodes, 16);
	assert_int_equal(ewyk_net_port_add_ip6(net, 0, b, 64), -EINVAL);
	assert_int_equal(ewyk_net_port_add_ip6(net, 0, a, 64), -EINVAL);
	memset(b, 0, 16);
	assert_int_equal(ewyk_net_port_add_ip6(net, 0, b, 64), -EINVAL);
	b[15] = 1;
	assert_int_equal(ewyk_net_port_add_ip6(net, 0, b, 64), -EINVAL);
	assert_int_equal(ewyk_net_port_add_ip6(net, 0, our6, 0), -EINVAL);
	assert_int_equal(ewyk_net_port_add_ip6(net, 0, our6, 129), -EINVAL);
	assert_int_equal(ewyk_net_port_add_ip6(net, 0, our6, 64), -EEXIST);
	assert_int_equal(ewyk_net_port_add_ip6(net, 9, our6, 64), -EINVAL);

	/* Routes: our prefix and link-local on port 0, nothing else. */
	assert_int_equal(ewyk_net_route6(net, peer6), 0);
	assert_int_equal(ewyk_net_route6(net, a), 0);
	memcpy(b, our6, 16);
	b[2] = 0x99;
	assert_int_equal(ewyk_net_route6(net, b), -ENETUNREACH);
	assert_int_equal(ewyk_net_l4_register6(sh[0], 58,
				 (ewyk_net_l4_input6_t)1, NULL),
		-EINVAL);
	assert_int_equal(ewyk_net_l4_register6(sh[0], 44,
				 (ewyk_net_l4_input6_t)1, NULL),
		-EINVAL);
}

/* The symmetric key hashes both directions of an IPv6 TCP flow alike
 * (the tuple as rte_softrss() takes it: addresses, then the ports). */
void
test_rss_symmetric_ip6(void **state)
{
	uint8_t klen;
	const uint8_t *key = ewyk_net_rss_key(&klen);
	uint32_t a[RTE_THASH_V6_L4_LEN], b[RTE_THASH_V6_L4_LEN];
	unsigned int i, j;

	(void)state;
	assert_int_equal(klen, 40);
	for (i = 0; i < 1000; i++) {
		uint16_t sp = (uint16_t)rte_rand(), dp = (uint16_t)rte_rand();

		for (j = 0; j < 8; j++)
			a[j] = (uint32_t)rte_rand();
		for (j = 0; j < 4; j++) {
			b[j] = a[4 + j];
			b[4 + j] = a[j];
		}
		a[8] = (uint32_t)sp << 16 | dp;
		b[8] = (uint32_t)dp << 16 | sp;
		assert_int_equal(rte_softrss(a, RTE_THASH_V6_L4_LEN, key),
			rte_softrss(b, RTE_THASH_V6_L4_LEN, key));
	}
}

/* Echo requests up to the MTU are answered in place. */
void
test_ip6_echo(void **state)
{
	static const uint16_t sizes[] = { 0, 56, 1400, 1452 };
	uint8_t pkt[1600], icmp[1600];
	struct rte_mbuf *out[4];
	struct rte_ipv6_hdr *ip;
	unsigned int i;
	uint64_t echo = ctr(0, EWYK_NET_ICMP6_ECHO_RX);

	(void)state;
	drain_all();
	for (i = 0; i < RTE_DIM(sizes); i++) {
		uint16_t il = echo6(icmp, peer6, our6, sizes[i]);
		uint16_t n = ip6_build(pkt, peer6, our6, 58, 64, NULL, 0, icmp,
			il);
		uint8_t *r;
		uint16_t j;

		input(0, 0, frame6(pkt, n));
		assert_int_equal(sent(0, 0, out, 4), 1);
		r = sent_icmp6(out[0], &ip);
		assert_int_equal(out[0]->pkt_len, 14 + 40 + 8 + sizes[i]);
		assert_memory_equal(ip->src_addr, our6, 16);
		assert_memory_equal(ip->dst_addr, peer6, 16);
		assert_int_equal(r[0], 129);
		assert_int_equal(r[4], 0x12);
		for (j = 0; j < sizes[i]; j++)
			assert_int_equal(r[8 + j], (uint8_t)j);
		assert_true(
			rte_is_same_ether_addr(&rte_pktmbuf_mtod(out[0],
						       struct rte_ether_hdr *)
							->dst_addr,
				&peer_mac));
		rte_pktmbuf_free(out[0]);
	}
	assert_int_equal(ctr(0, EWYK_NET_ICMP6_ECHO_RX), echo + 4);

	/* A request in two segments (split at an odd offset of the ICMP
	 * message): answered, the checksum right over the chain. */
	{
		uint16_t il = echo6(icmp, peer6, our6, 1000);
		uint16_t n = ip6_build(pkt, peer6, our6, 58, 64, NULL, 0, icmp,
			il);
		uint16_t cut = 14 + 40 + 8 + 301;
		struct rte_mbuf *m = frame6(pkt, n);
		struct rte_mbuf *t = rte_pktmbuf_alloc(mp);

		assert_non_null(t);
		memcpy(rte_pktmbuf_append(t, m->pkt_len - cut),
			rte_pktmbuf_mtod_offset(m, char *, cut),
			m->pkt_len - cut);
		assert_int_equal(rte_pktmbuf_trim(m, m->pkt_len - cut), 0);
		assert_int_equal(rte_pktmbuf_chain(m, t), 0);
		input(0, 0, m);
		assert_int_equal(sent(0, 0, out, 4), 1);
		assert_int_equal(out[0]->nb_segs, 2);
		assert_int_equal(out[0]->pkt_len, 14 + 40 + il);
		ip = rte_pktmbuf_mtod_offset(out[0], struct rte_ipv6_hdr *, 14);
		assert_memory_equal(ip->dst_addr, peer6, 16);
		rte_pktmbuf_adj(out[0], 14 + 40);
		assert_int_equal(ewyk_net_l4_cksum6(out[0], our6, peer6, 58),
			0);
		assert_int_equal(rte_pktmbuf_mtod(out[0], uint8_t *)[0], 129);
		rte_pktmbuf_free(out[0]);
	}
}

/* Extension headers: walked up to the bound, cut out of the echo reply;
 * RH0 with segments left refused with a parameter problem, fragments and
 * misplaced hop-by-hop headers dropped, option actions followed. */
void
test_ip6_ext_walk(void **state)
{
	uint8_t pkt[512], icmp[64], ext[128];
	uint64_t b[EWYK_NET_COUNTER_MAX];
	struct rte_mbuf *out[4];
	struct rte_ipv6_hdr *ip;
	uint16_t il = echo6(icmp, peer6, our6, 8), n;
	uint8_t *r;
	unsigned int k;

	(void)state;
	drain_all();
	/* k destination options headers (8 bytes, PadN), then the echo. */
	for (k = 7; k <= 9; k++) {
		unsigned int j;

		for (j = 0; j < k; j++) {
			uint8_t *x = ext + 8 * j;

			x[0] = j + 1 < k ? 60 : 58;
			x[1] = 0;
			x[2] = 1; /* PadN, 4 bytes */
			x[3] = 4;
			memset(x + 4, 0, 4);
		}
		n = ip6_build(pkt, peer6, our6, 60, 64, ext, 8 * k, icmp, il);
		snap(b);
		input(0, 0, frame6(pkt, n));
		if (k <= NET_IP6_MAX_EXT) {
			assert_int_equal(sent(0, 0, out, 4), 1);
			r = sent_icmp6(out[0], &ip);
			assert_int_equal(r[0], 129);
			assert_int_equal(out[0]->pkt_len, 14 + 40 + il);
			rte_pktmbuf_free(out[0]);
			assert_int_equal(ctr(0, EWYK_NET_IP6_EXT),
				b[EWYK_NET_IP6_EXT] + k);
		} else {
			one_drop(b, EWYK_NET_DROP_IP6_EXT_LIMIT, "9 headers");
			assert_int_equal(sent(0, 0, out, 4), 0);
		}
	}

	/* Routing type 0, one segment left: parameter problem code 0
	 * pointing at the routing type (40 + 2). */
	memset(ext, 0, 24);
	ext[0] = 58;
	ext[1] = 2; /* 24 bytes: one address */
	ext[2] = 0; /* type 0 */
	ext[3] = 1; /* segments left */
	n = ip6_build(pkt, peer6, our6, 43, 64, ext, 24, icmp, il);
	snap(b);
	input(0, 0, frame6(pkt, n));
	one_drop(b, EWYK_NET_DROP_IP6_RH, "RH0");
	assert_int_equal(sent(0, 0, out, 4), 1);
	r = sent_icmp6(out[0], &ip);
	assert_int_equal(r[0], 4);
	assert_int_equal(r[1], 0);
	assert_int_equal(r[7], 42);
	assert_memory_equal(ip->dst_addr, peer6, 16);
	assert_memory_equal(ip->src_addr, our6, 16);
	/* the invoking packet follows, whole */
	assert_int_equal(rte_be_to_cpu_16(ip->payload_len), 8 + n);
	assert_memory_equal(r + 8, pkt, n);
	rte_pktmbuf_free(out[0]);
	/* No segment left: the header is ignored. */
	ext[3] = 0;
	n = ip6_build(pkt, peer6, our6, 43, 64, ext, 24, icmp, il);
	input(0, 0, frame6(pkt, n));
	assert_int_equal(sent(0, 0, out, 4), 1);
	assert_int_equal(sent_icmp6(out[0], NULL)[0], 129);
	rte_pktmbuf_free(out[0]);

	/* A fragment (even an atomic one): dropped, nothing sent. */
	memset(ext, 0, 8);
	ext[0] = 58;
	n = ip6_build(pkt, peer6, our6, 44, 64, ext, 8, icmp, il);
	snap(b);
	input(0, 0, frame6(pkt, n));
	one_drop(b, EWYK_NET_DROP_IP6_FRAG, "fragment");
	assert_int_equal(sent(0, 0, out, 4), 0);

	/* Hop-by-hop after a destination options header: parameter problem
	 * code 1 at the next header field that named it (40 + 0). */
	memset(ext, 0, 16);
	ext[0] = 0; /* dst opts -> hop-by-hop */
	ext[2] = 1; /* PadN */
	ext[3] = 4;
	ext[8] = 58; /* hop-by-hop -> ICMPv6 */
	ext[10] = 1;
	ext[11] = 4;
	n = ip6_build(pkt, peer6, our6, 60, 64, ext, 16, icmp, il);
	snap(b);
	input(0, 0, frame6(pkt, n));
	one_drop(b, EWYK_NET_DROP_IP6_EXT, "misplaced HBH");
	assert_int_equal(sent(0, 0, out, 4), 1);
	r = sent_icmp6(out[0], NULL);
	assert_int_equal(r[0], 4);
	assert_int_equal(r[1], 1);
	assert_int_equal(r[7], 40);
	rte_pktmbuf_free(out[0]);

	/* Unknown option 0x80 (discard and tell): code 2 at the option;
	 * 0x40 (discard quietly): nothing sent; 0x00: skipped. */
	memset(ext, 0, 8);
	ext[0] = 58;
	ext[2] = 0x80;
	ext[3] = 4;
	n = ip6_build(pkt, peer6, our6, 60, 64, ext, 8, icmp, il);
	snap(b);
	input(0, 0, frame6(pkt, n));
	one_drop(b, EWYK_NET_DROP_IP6_EXT, "option 0x80");
	assert_int_equal(sent(0, 0, out, 4), 1);
	r = sent_icmp6(out[0], NULL);
	assert_int_equal(r[1], 2);
	assert_int_equal(r[7], 42);
	rte_pktmbuf_free(out[0]);
	ext[2] = 0x40;
	n = ip6_build(pkt, peer6, our6, 60, 64, ext, 8, icmp, il);
	snap(b);
	input(0, 0, frame6(pkt, n));
	one_drop(b, EWYK_NET_DROP_IP6_EXT, "option 0x40");
	assert_int_equal(sent(0, 0, out, 4), 0);
	ext[2] = 0x1e;
	n = ip6_build(pkt, peer6, our6, 60, 64, ext, 8, icmp, il);
	input(0, 0, frame6(pkt, n));
	assert_int_equal(sent(0, 0, out, 4), 1);
	rte_pktmbuf_free(out[0]);
	/* An option running past its header. */
	ext[3] = 9;
	n = ip6_build(pkt, peer6, our6, 60, 64, ext, 8, icmp, il);
	snap(b);
	input(0, 0, frame6(pkt, n));
	one_drop(b, EWYK_NET_DROP_IP6_EXT, "option overrun");
	/* A header longer than the packet. */
	ext[1] = 3;
	n = ip6_build(pkt, peer6, our6, 60, 64, ext, 8, NULL, 0);
	snap(b);
	input(0, 0, frame6(pkt, n));
	one_drop(b, EWYK_NET_DROP_IP6_EXT, "truncated header");
	assert_int_equal(sent(0, 0, out, 4), 0);
}

/* Upper layers without a handler: UDP gets port unreachable, others a
 * parameter problem; errors are rate-limited per second. */
void
test_ip6_errors(void **state)
{
	uint8_t pkt[128], udp[16];
	uint64_t b[EWYK_NET_COUNTER_MAX];
	struct rte_mbuf *out[EWYK_NET_BURST];
	uint64_t lim0 = ctr(0, EWYK_NET_ICMP6_ERR_LIMITED);
	uint8_t *r;
	uint16_t n;
	unsigned int i, got = 0, k;

	(void)state;
	drain_all();
	memset(udp, 0, sizeof(udp));
	n = ip6_build(pkt, peer6, our6, IPPROTO_UDP, 64, NULL, 0, udp, 16);
	snap(b);
	input(0, 0, frame6(pkt, n));
	one_drop(b, EWYK_NET_DROP_IP6_PROTO, "udp");
	assert_int_equal(sent(0, 0, out, 4), 1);
	r = sent_icmp6(out[0], NULL);
	assert_int_equal(r[0], 1);
	assert_int_equal(r[1], 4);
	rte_pktmbuf_free(out[0]);
	n = ip6_build(pkt, peer6, our6, 253, 64, NULL, 0, udp, 16);
	snap(b);
	input(0, 0, frame6(pkt, n));
	one_drop(b, EWYK_NET_DROP_IP6_PROTO, "proto 253");
	assert_int_equal(sent(0, 0, out, 4), 1);
	r = sent_icmp6(out[0], NULL);
	assert_int_equal(r[0], 4);
	assert_int_equal(r[1], 1);
	assert_int_equal(r[7], 6);
	rte_pktmbuf_free(out[0]);
	/* Never about a packet to a group. */
	n = ip6_build(pkt, peer6, all_nodes, 253, 64, NULL, 0, udp, 16);
	input(0, 0, frame6(pkt, n));
	assert_int_equal(sent(0, 0, out, 4), 0);

	/* In a fresh second, 150 offenders: 100 answers (the default). */
	now += rte_get_tsc_hz();
	n = ip6_build(pkt, peer6, our6, 253, 64, NULL, 0, udp, 16);
	for (i = 0; i < 150; i++) {
		input(0, 0, frame6(pkt, n));
		while ((k = sent(0, 0, out, RTE_DIM(out))) > 0) {
			got += k;
			rte_pktmbuf_free_bulk(out, k);
		}
	}
	assert_int_equal(got, 100);
	assert_int_equal(ctr(0, EWYK_NET_ICMP6_ERR_LIMITED), lim0 + 50);
}

/* Bad IPv6 packets: each is one drop counter, nothing sent, no leak. */
void
test_ip6_malformed(void **state)
{
	uint8_t pkt[256], icmp[64];
	uint64_t b[EWYK_NET_COUNTER_MAX];
	struct rte_mbuf *out[4], *m;
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)pkt;
	uint16_t il = echo6(icmp, peer6, our6, 8), n;
	unsigned int free0, k;
	uint8_t other[16];

	(void)state;
	drain_all();
	free0 = rte_mempool_avail_count(mp);
	memcpy(other, our6, 16);
	other[15] = 0x77;
	for (k = 0; k < 12; k++) {
		enum ewyk_net_counter c;

		n = ip6_build(pkt, peer6, our6, 58, 64, NULL, 0, icmp, il);
		m = NULL;
		switch (k) {
		case 0:
			n = 30;
			c = EWYK_NET_DROP_IP6_TRUNCATED;
			break;
		case 1:
			ip->vtc_flow = rte_cpu_to_be_32(4u << 28);
			c = EWYK_NET_DROP_IP6_VERSION;
			break;
		case 2:
			ip->payload_len = rte_cpu_to_be_16(il + 1);
			c = EWYK_NET_DROP_IP6_LEN;
			break;
		case 3:
			ip->hop_limits = 0;
			c = EWYK_NET_DROP_IP6_HLIM;
			break;
		case 4:
			ip->src_addr[0] = 0xff;
			c = EWYK_NET_DROP_IP6_SRC;
			break;
		case 5:
			memcpy(ip->src_addr, our6, 16);
			c = EWYK_NET_DROP_IP6_SRC;
			break;
		case 6:
			memcpy(ip->dst_addr, other, 16);
			c = EWYK_NET_DROP_IP6_NOT_OURS;
			break;
		case 7:
			pkt[40 + 6] ^= 0x55;
			c = EWYK_NET_DROP_ICMP6_CKSUM;
			break;
		case 8:
			ip->proto = 59;
			c = EWYK_NET_DROP_IP6_NONXT;
			break;
		case 9:
			ip->payload_len = rte_cpu_to_be_16(4);
			n = 44;
			c = EWYK_NET_DROP_ICMP6_TRUNCATED;
			break;
		case 10: /* echo reply: not a type we take */
			n = ip6_build(pkt, peer6, our6, 58, 64, NULL, 0, icmp,
				il);
			pkt[40] = 129;
			icmp6_fix(ip);
			c = EWYK_NET_DROP_ICMP6_TYPE;
			break;
		default: /* IPv6 on port 1, which has none */
			m = frame_new(1, RTE_ETHER_TYPE_IPV6, false, pkt, n);
			c = EWYK_NET_DROP_ETHERTYPE;
			break;
		}
		snap(b);
		if (m != NULL)
			input(0, 1, m);
		else
			input(0, 0, frame6(pkt, n));
		one_drop(b, c, ewyk_net_counter_name(c));
		assert_int_equal(sent(0, 0, out, 4), 0);
		assert_int_equal(sent(1, 0, out, 4), 0);
	}
	/* A 33:33 group MAC on a port without IPv6 is a foreign group. */
	m = frame_new(1, RTE_ETHER_TYPE_IPV6, false, pkt, n);
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr.addr_bytes[0] =
		0x33;
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr.addr_bytes[1] =
		0x33;
	snap(b);
	input(0, 1, m);
	one_drop(b, EWYK_NET_DROP_MULTICAST, "group on port 1");
	/* Padding after the packet is trimmed: still answered. */
	n = ip6_build(pkt, peer6, our6, 58, 64, NULL, 0, icmp, il);
	memset(pkt + n, 0xee, 20);
	input(0, 0, frame6(pkt, (uint16_t)(n + 20)));
	assert_int_equal(sent(0, 0, out, 4), 1);
	assert_int_equal(out[0]->pkt_len, 14 + n);
	rte_pktmbuf_free(out[0]);
	assert_int_equal(rte_mempool_avail_count(mp), free0);
}

/* The pseudo-header checksum against DPDK's, on chains split anywhere. */
void
test_l4_cksum6(void **state)
{
	uint8_t buf[40 + 1500];
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)buf;
	unsigned int it;

	(void)state;
	for (it = 0; it < 200; it++) {
		uint16_t len = (uint16_t)(20 + rte_rand_max(1400));
		uint16_t cut = (uint16_t)(1 + rte_rand_max(len - 1));
		struct rte_mbuf *a = rte_pktmbuf_alloc(mp);
		struct rte_mbuf *b2 = rte_pktmbuf_alloc(mp);
		uint16_t ref, i;

		for (i = 0; i < 40 + len; i++)
			buf[i] = (uint8_t)rte_rand();
		ip->proto = IPPROTO_TCP;
		ip->payload_len = rte_cpu_to_be_16(len);
		buf[40 + 16] = buf[40 + 17] = 0;
		ref = rte_ipv6_udptcp_cksum(ip, buf + 40);
		assert_non_null(a);
		assert_non_null(b2);
		memcpy(rte_pktmbuf_append(a, cut), buf + 40, cut);
		memcpy(rte_pktmbuf_append(b2, len - cut), buf + 40 + cut,
			len - cut);
		assert_int_equal(rte_pktmbuf_chain(a, b2), 0);
		assert_int_equal(ewyk_net_l4_cksum6(a, ip->src_addr,
					 ip->dst_addr, IPPROTO_TCP),
			ref);
		/* and with the checksum in place the segment checks to 0 */
		memcpy(rte_pktmbuf_mtod_offset(a, uint8_t *, 16), &ref, 2);
		if (cut > 17)
			assert_int_equal(ewyk_net_l4_cksum6(a, ip->src_addr,
						 ip->dst_addr, IPPROTO_TCP),
				0);
		rte_pktmbuf_free(a);
	}
}

/* Output: the header and checksum, groups straight to their MAC, errors;
 * packet-too-big lowers the path MTU (floor 1280) on every shard. */
void
test_ip6_output_pmtu(void **state)
{
	uint8_t pkt[1600], inner[64], icmp[1600];
	uint64_t b[EWYK_NET_COUNTER_MAX];
	struct rte_mbuf *out[4];
	struct rte_ipv6_hdr *ip;
	uint8_t far[16];
	uint16_t n, il;

	(void)state;
	drain_all();
	/* peer4 is known (test_nd_answer): straight out, checksum right. */
	assert_int_equal(out6(peer4, 33), 0);
	ewyk_net_tx_flush(sh[0]);
	assert_int_equal(sent(0, 0, out, 4), 1);
	ip = rte_pktmbuf_mtod_offset(out[0], struct rte_ipv6_hdr *, 14);
	assert_int_equal(rte_be_to_cpu_16(ip->payload_len), 8 + 33);
	assert_int_equal(ip->hop_limits, 64);
	assert_int_equal(rte_ipv6_udptcp_cksum_verify(ip, ip + 1), 0);
	rte_pktmbuf_free(out[0]);
	assert_int_equal(out6(all_nodes, 0), 0);
	ewyk_net_tx_flush(sh[0]);
	assert_int_equal(sent(0, 0, out, 4), 1);
	assert_int_equal(rte_pktmbuf_mtod(out[0], struct rte_ether_hdr *)
				 ->dst_addr.addr_bytes[5],
		1);
	rte_pktmbuf_free(out[0]);
	memcpy(far, our6, 16);
	far[3] = 0x99;
	assert_int_equal(out6(far, 10), -ENETUNREACH);
	assert_int_equal(ewyk_net_route6(net, far), -ENETUNREACH);
	/* A default router: refused off-link, ours, a group, ::, no port;
	 * then off-link destinations go to its MAC, on-link ones do not. */
	{
		static const uint8_t unspec[16];
		struct rte_ether_addr gw_mac;
		uint8_t nh[16];

		assert_int_equal(ewyk_net_nexthop6(net, 0, far, nh),
			-ENETUNREACH);
		assert_int_equal(ewyk_net_port_set_gw6(net, 0, far),
			-ENETUNREACH);
		assert_int_equal(ewyk_net_port_set_gw6(net, 0, our6), -EINVAL);
		assert_int_equal(ewyk_net_port_set_gw6(net, 0, all_nodes),
			-EINVAL);
		assert_int_equal(ewyk_net_port_set_gw6(net, 0, unspec),
			-EINVAL);
		assert_int_equal(ewyk_net_port_set_gw6(net, 9, peer4), -EINVAL);
		assert_int_equal(ewyk_net_port_set_gw6(net, 0, peer4), 0);
		assert_int_equal(ewyk_net_route6(net, far), 0);
		/* The next hop: the router off-link, the host itself on-link;
		 * none for a group. */
		assert_int_equal(ewyk_net_nexthop6(net, 0, far, nh), 0);
		assert_memory_equal(nh, peer4, 16);
		assert_int_equal(ewyk_net_nexthop6(net, 0, our6, nh), 0);
		assert_memory_equal(nh, our6, 16);
		assert_int_equal(ewyk_net_nexthop6(net, 0, all_nodes, nh),
			-EINVAL);
		assert_int_equal(ewyk_net_nexthop6(net, 9, far, nh), -EINVAL);
		assert_int_equal(ewyk_net_nd_lookup(sh[0], 0, peer4, &gw_mac),
			0);
		assert_int_equal(out6(far, 10), 0);
		ewyk_net_tx_flush(sh[0]);
		assert_int_equal(sent(0, 0, out, 4), 1);
		assert_true(
			rte_is_same_ether_addr(&rte_pktmbuf_mtod(out[0],
						       struct rte_ether_hdr *)
							->dst_addr,
				&gw_mac));
		ip = rte_pktmbuf_mtod_offset(out[0], struct rte_ipv6_hdr *, 14);
		assert_memory_equal(ip->dst_addr, far, 16);
		assert_int_equal(rte_ipv6_udptcp_cksum_verify(ip, ip + 1), 0);
		rte_pktmbuf_free(out[0]);
		/* The far destination itself is never solicited. */
		assert_int_equal(ewyk_net_nd_lookup(sh[0], 0, far, &gw_mac),
			-ENOENT);
	}
	assert_int_equal(out6(peer4, 1500 - 40 - 8 + 1), -EMSGSIZE);
	assert_int_equal(ewyk_net_pmtu6(sh[0], 0, peer4), 1500);

	/* A packet-too-big about what we sent to peer4: MTU 1300. */
	il = (uint16_t)ip6_build(inner, our6, peer4, IPPROTO_UDP, 64, NULL, 0,
		pkt, 8);
	memset(icmp, 0, 8);
	icmp[0] = 2;
	icmp[6] = 1300 >> 8;
	icmp[7] = 1300 & 0xff;
	memcpy(icmp + 8, inner, il);
	n = ip6_build(pkt, peer4, our6, 58, 64, NULL, 0, icmp, 8 + il);
	icmp6_fix((struct rte_ipv6_hdr *)pkt);
	input(0, 0, frame6(pkt, n));
	assert_int_equal(ewyk_net_pmtu6(sh[0], 0, peer4), 1300);
	assert_int_equal(out6(peer4, 1300 - 48 + 1), -EMSGSIZE);
	assert_int_equal(out6(peer4, 1300 - 48), 0);
	ewyk_net_poll(sh[1], now);
	assert_int_equal(ewyk_net_pmtu6(sh[1], 0, peer4), 1300);
	/* Below 1280: floored. */
	icmp[6] = 1000 >> 8;
	icmp[7] = 1000 & 0xff;
	memcpy(pkt + 40, icmp, 8);
	icmp6_fix((struct rte_ipv6_hdr *)pkt);
	input(0, 0, frame6(pkt, n));
	assert_int_equal(ewyk_net_pmtu6(sh[0], 0, peer4), 1280);
	/* Not lowering it, or not about our packet: dropped. */
	snap(b);
	input(0, 0, frame6(pkt, n));
	one_drop(b, EWYK_NET_DROP_ICMP6_PTB, "not lower");
	memcpy(pkt + 40 + 8 + 8, peer6, 16); /* inner source not ours */
	icmp6_fix((struct rte_ipv6_hdr *)pkt);
	snap(b);
	input(0, 0, frame6(pkt, n));
	one_drop(b, EWYK_NET_DROP_ICMP6_PTB, "not ours");
	/* Forgotten after 10 minutes, and the generation moves then (the
	 * housekeeping of the poll), so TCP can raise its MSS again; no
	 * entry left: no lookup either. */
	{
		uint32_t gen = ewyk_net_pmtu6_gen(sh[0]);

		assert_int_not_equal(sh[0]->pmtu_live, 0);
		advance_ms(599000);
		assert_int_equal(ewyk_net_pmtu6_gen(sh[0]), gen);
		advance_ms(2000);
		assert_int_not_equal(ewyk_net_pmtu6_gen(sh[0]), gen);
		assert_int_equal(sh[0]->pmtu_live, 0);
	}
	assert_int_equal(ewyk_net_pmtu6(sh[0], 0, peer4), 1500);
	ewyk_net_tx_flush(sh[0]);
	drain_all();
	(void)il;
}
