/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/net on malformed frames: one frame per defect, each bumping exactly
 * its counter, and IPv4 options skipped. Run by test_net.c's main.
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

/* One malformed frame per case: it must bump exactly its counter. */
enum mal {
	MAL_RUNT,
	MAL_NOT_OURS,
	MAL_MCAST,
	MAL_VLAN,
	MAL_ETYPE,
	MAL_IP_TRUNC,
	MAL_IP_VER,
	MAL_IP_IHL,
	MAL_IP_IHL_BIG,
	MAL_IP_LEN,
	MAL_IP_LEN_SHORT,
	MAL_IP_CKSUM,
	MAL_IP_TTL,
	MAL_IP_MF,
	MAL_IP_OFF,
	MAL_IP_DST,
	MAL_IP_SRC,
	MAL_IP_PROTO,
	MAL_ICMP_TRUNC,
	MAL_ICMP_CKSUM,
	MAL_ICMP_TYPE,
	MAL_ARP_TRUNC,
	MAL_ARP_HLEN,
	MAL_ARP_NOT_OURS,
	MAL_ARP_OP,
	MAL_MAX
};

static const enum ewyk_net_counter mal_ctr[MAL_MAX] = {
	[MAL_RUNT] = EWYK_NET_DROP_RUNT,
	[MAL_NOT_OURS] = EWYK_NET_DROP_NOT_OURS,
	[MAL_MCAST] = EWYK_NET_DROP_MULTICAST,
	[MAL_VLAN] = EWYK_NET_DROP_VLAN,
	[MAL_ETYPE] = EWYK_NET_DROP_ETHERTYPE,
	[MAL_IP_TRUNC] = EWYK_NET_DROP_IP_TRUNCATED,
	[MAL_IP_VER] = EWYK_NET_DROP_IP_VERSION,
	[MAL_IP_IHL] = EWYK_NET_DROP_IP_IHL,
	[MAL_IP_IHL_BIG] = EWYK_NET_DROP_IP_IHL,
	[MAL_IP_LEN] = EWYK_NET_DROP_IP_LEN,
	[MAL_IP_LEN_SHORT] = EWYK_NET_DROP_IP_LEN,
	[MAL_IP_CKSUM] = EWYK_NET_DROP_IP_CKSUM,
	[MAL_IP_TTL] = EWYK_NET_DROP_IP_TTL,
	[MAL_IP_MF] = EWYK_NET_DROP_IP_FRAG,
	[MAL_IP_OFF] = EWYK_NET_DROP_IP_FRAG,
	[MAL_IP_DST] = EWYK_NET_DROP_IP_NOT_OURS,
	[MAL_IP_SRC] = EWYK_NET_DROP_IP_SRC,
	[MAL_IP_PROTO] = EWYK_NET_DROP_IP_PROTO,
	[MAL_ICMP_TRUNC] = EWYK_NET_DROP_ICMP_TRUNCATED,
	[MAL_ICMP_CKSUM] = EWYK_NET_DROP_ICMP_CKSUM,
	[MAL_ICMP_TYPE] = EWYK_NET_DROP_ICMP_TYPE,
	[MAL_ARP_TRUNC] = EWYK_NET_DROP_ARP_MALFORMED,
	[MAL_ARP_HLEN] = EWYK_NET_DROP_ARP_MALFORMED,
	[MAL_ARP_NOT_OURS] = EWYK_NET_DROP_ARP_NOT_OURS,
	[MAL_ARP_OP] = EWYK_NET_DROP_ARP_OP,
};

static struct rte_mbuf *
mal_frame(enum mal k)
{
	uint8_t buf[256];
	uint16_t n = echo_build(buf, PEER_IP, OUR_IP, 16);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)buf;
	struct rte_mbuf *m;
	struct rte_arp_hdr *a;

	/* Header edits that keep the checksum right, unless that is the point. */
#define REFIX()                                        \
	do {                                           \
		ip->hdr_checksum = 0;                  \
		ip->hdr_checksum = rte_ipv4_cksum(ip); \
	} while (0)
	switch (k) {
	case MAL_RUNT:
		m = frame_new(0, RTE_ETHER_TYPE_IPV4, false, buf, n);
		rte_pktmbuf_trim(m, m->pkt_len - 10);
		return m;
	case MAL_NOT_OURS:
	case MAL_MCAST:
		m = frame_new(0, RTE_ETHER_TYPE_IPV4, false, buf, n);
		rte_pktmbuf_mtod(m, struct rte_ether_hdr *)
			->dst_addr.addr_bytes[0] = k == MAL_MCAST ? 0x01 : 0x02;
		rte_pktmbuf_mtod(m, struct rte_ether_hdr *)
			->dst_addr.addr_bytes[5] ^= 0x5a;
		return m;
	case MAL_VLAN:
		m = frame_new(1, RTE_ETHER_TYPE_IPV4, false, buf, n);
		rte_ether_addr_copy(&our_mac[0],
			&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr);
		return m; /* tagged, sent to the untagged port */
	case MAL_ETYPE:
		return frame_new(0, RTE_ETHER_TYPE_LLDP, false, buf, n);
	case MAL_IP_TRUNC:
		return frame_new(0, RTE_ETHER_TYPE_IPV4, false, buf, 12);
	case MAL_IP_VER:
		ip->version_ihl = 0x65;
		REFIX();
		break;
	case MAL_IP_IHL:
		ip->version_ihl = 0x44;
		break;
	case MAL_IP_IHL_BIG:
		ip->version_ihl =
			0x4f; /* 60 bytes of header in a 44-byte packet */
		break;
	case MAL_IP_LEN:
		ip->total_length = rte_cpu_to_be_16(n + 100);
		REFIX();
		break;
	case MAL_IP_LEN_SHORT:
		ip->total_length = rte_cpu_to_be_16(12);
		REFIX();
		break;
	case MAL_IP_CKSUM:
		ip->hdr_checksum ^= 0x1111;
		break;
	case MAL_IP_TTL:
		ip->time_to_live = 0;
		REFIX();
		break;
	case MAL_IP_MF:
		ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG);
		REFIX();
		break;
	case MAL_IP_OFF:
		ip->fragment_offset = rte_cpu_to_be_16(3);
		REFIX();
		break;
	case MAL_IP_DST:
		ip->dst_addr = rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, 99));
		REFIX();
		break;
	case MAL_IP_SRC:
		ip->src_addr = rte_cpu_to_be_32(
			UINT32_C(0xe0000001) /* 224.0.0.1 */);
		REFIX();
		break;
	case MAL_IP_PROTO:
		ip->next_proto_id = 253;
		REFIX();
		break;
	case MAL_ICMP_TRUNC:
		ip->total_length = rte_cpu_to_be_16(20 + 4);
		REFIX();
		n = 24;
		break;
	case MAL_ICMP_CKSUM:
		buf[20 + 2] ^= 0xff;
		break;
	case MAL_ICMP_TYPE:
		buf[20] = RTE_IP_ICMP_ECHO_REPLY;
		buf[22] = 0;
		buf[23] = 0;
		{
			uint16_t c = (uint16_t)~rte_raw_cksum(buf + 20, n - 20);

			memcpy(buf + 22, &c, 2);
		}
		break;
	case MAL_ARP_TRUNC:
		m = arp_frame(0, RTE_ARP_OP_REQUEST, PEER_IP, OUR_IP);
		rte_pktmbuf_trim(m, 10);
		return m;
	case MAL_ARP_HLEN:
	case MAL_ARP_NOT_OURS:
	case MAL_ARP_OP:
		m = arp_frame(0, RTE_ARP_OP_REQUEST, PEER_IP,
			k == MAL_ARP_NOT_OURS ? RTE_IPV4(10, 0, 0, 77) :
						OUR_IP);
		a = rte_pktmbuf_mtod_offset(m, struct rte_arp_hdr *, 14);
		if (k == MAL_ARP_HLEN)
			a->arp_hlen = 8;
		if (k == MAL_ARP_OP)
			a->arp_opcode = rte_cpu_to_be_16(7);
		return m;
	default:
		break;
	}
#undef REFIX
	return frame_new(0, RTE_ETHER_TYPE_IPV4, false, buf, n);
}

void
test_malformed_dropped_and_counted(void **state)
{
	uint64_t before[EWYK_NET_COUNTER_MAX];
	struct rte_mbuf *out[4];
	unsigned int k, c;
	unsigned int free_before;

	(void)state;
	drain_all();
	free_before = rte_mempool_avail_count(mp);
	for (k = 0; k < MAL_MAX; k++) {
		for (c = 0; c < EWYK_NET_COUNTER_MAX; c++)
			before[c] = ctr(0, c);
		input(0, 0, mal_frame(k));
		for (c = EWYK_NET_DROP_FIRST; c < EWYK_NET_COUNTER_MAX; c++) {
			uint64_t want = before[c] + (c == mal_ctr[k] ? 1 : 0);

			if (ctr(0, c) != want)
				fail_msg("case %u: counter %s is %" PRIu64
					 ", want %" PRIu64,
					k, ewyk_net_counter_name(c), ctr(0, c),
					want);
		}
		assert_int_equal(sent(0, 0, out, 4), 0);
		assert_int_equal(sent(1, 0, out, 4), 0);
	}
	/* Nothing leaked. */
	assert_int_equal(rte_mempool_avail_count(mp), free_before);
}

void
test_ip_options_skipped(void **state)
{
	uint8_t buf[256], l4[64];
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)buf;
	struct rte_mbuf *out[2];
	uint64_t opts = ctr(0, EWYK_NET_IP_OPTIONS);
	struct rte_icmp_hdr *h = (struct rte_icmp_hdr *)l4;

	(void)state;
	drain_all();
	/* IHL 6: 4 bytes of NOP options, then an echo. */
	memset(l4, 0, sizeof(l4));
	h->icmp_type = RTE_IP_ICMP_ECHO_REQUEST;
	h->icmp_ident = rte_cpu_to_be_16(0x77);
	h->icmp_cksum = (uint16_t)~rte_raw_cksum(l4, 8);
	memset(ip, 0, 24);
	ip->version_ihl = 0x46;
	ip->total_length = rte_cpu_to_be_16(24 + 8);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_ICMP;
	ip->src_addr = rte_cpu_to_be_32(PEER_IP);
	ip->dst_addr = rte_cpu_to_be_32(OUR_IP);
	memset(buf + 20, 1, 4);
	memcpy(buf + 24, l4, 8);
	ip->hdr_checksum = (uint16_t)~rte_raw_cksum(ip, 24);
	input(0, 0, frame_new(0, RTE_ETHER_TYPE_IPV4, false, buf, 32));
	assert_int_equal(ctr(0, EWYK_NET_IP_OPTIONS), opts + 1);
	assert_int_equal(sent(0, 0, out, 2), 1);
	rte_pktmbuf_free(out[0]);
}
