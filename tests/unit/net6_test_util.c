/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the lib/net IPv6 and neighbour discovery cases share
 * (net6_test_util.h): IPv6 packet and ND message builders, frames from
 * the peer, the virtual clock and counter snapshots.
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

const uint8_t peer6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
const uint8_t peer4[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x44 };
const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };

/* An ICMPv6 message's checksum the reference way (DPDK's, no extension
 * headers): over a packet whose IPv6 header sits right before it. */
void
icmp6_fix(struct rte_ipv6_hdr *ip)
{
	uint8_t *icmp = (uint8_t *)(ip + 1);
	uint16_t ck;

	icmp[2] = icmp[3] = 0;
	ck = rte_ipv6_udptcp_cksum(ip, icmp);
	if (ck == 0xffff) /* DPDK gives UDP's all-ones for a zero sum */
		ck = 0;
	memcpy(icmp + 2, &ck, 2);
}

/*
 * An IPv6 packet in buf: header (hop limit hl) + the extension headers in
 * ext[0, elen) (whose first next header field the caller sets) + upper
 * layer l4[0, len). Returns its length.
 */
uint16_t
ip6_build(uint8_t *buf, const uint8_t src[16], const uint8_t dst[16],
	uint8_t nxt, uint8_t hl, const void *ext, uint16_t elen, const void *l4,
	uint16_t len)
{
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)buf;

	memset(ip, 0, sizeof(*ip));
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16(elen + len);
	ip->proto = nxt;
	ip->hop_limits = hl;
	memcpy(ip->src_addr, src, 16);
	memcpy(ip->dst_addr, dst, 16);
	if (elen != 0)
		memcpy(buf + 40, ext, elen);
	if (len != 0)
		memcpy(buf + 40 + elen, l4, len);
	return (uint16_t)(40 + elen + len);
}

/* An echo request with plen payload bytes, checksum over the given
 * addresses (the final destination). */
uint16_t
echo6(uint8_t *icmp, const uint8_t src[16], const uint8_t dst[16],
	uint16_t plen)
{
	uint8_t b[40 + 8 + 1500];
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)b;
	uint16_t i;

	memset(b, 0, 48);
	b[40] = 128;
	b[44] = 0x12; /* identifier */
	b[47] = 1;    /* sequence */
	for (i = 0; i < plen; i++)
		b[48 + i] = (uint8_t)i;
	ip6_build(b, src, dst, 58, 64, NULL, 0, b + 40, 0);
	ip->payload_len = rte_cpu_to_be_16(8 + plen);
	icmp6_fix(ip);
	memcpy(icmp, b + 40, 8 + plen);
	return (uint16_t)(8 + plen);
}

struct rte_mbuf *
frame6_on(uint16_t port, const uint8_t *pkt, uint16_t len)
{
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)pkt;
	struct rte_mbuf *m = frame_new(port, RTE_ETHER_TYPE_IPV6, false, pkt,
		len);

	if (ip->dst_addr[0] == 0xff) {
		struct rte_ether_hdr *e = rte_pktmbuf_mtod(m,
			struct rte_ether_hdr *);

		e->dst_addr.addr_bytes[0] = 0x33;
		e->dst_addr.addr_bytes[1] = 0x33;
		memcpy(&e->dst_addr.addr_bytes[2], ip->dst_addr + 12, 4);
	}
	return m;
}

struct rte_mbuf *
frame6(const uint8_t *pkt, uint16_t len)
{
	return frame6_on(0, pkt, len);
}

/* ICMPv6 message of a sent frame (no VLAN, no extension headers), after
 * checking its checksum with the library's own and DPDK's. */
uint8_t *
sent_icmp6(struct rte_mbuf *m, struct rte_ipv6_hdr **ipp)
{
	struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m,
		struct rte_ipv6_hdr *, 14);

	assert_int_equal(rte_be_to_cpu_16(
				 rte_pktmbuf_mtod(m, struct rte_ether_hdr *)
					 ->ether_type),
		RTE_ETHER_TYPE_IPV6);
	assert_int_equal(rte_be_to_cpu_32(ip->vtc_flow) >> 28, 6);
	assert_int_equal(ip->proto, 58);
	assert_int_equal(m->pkt_len,
		14 + 40 + rte_be_to_cpu_16(ip->payload_len));
	assert_int_equal(rte_ipv6_udptcp_cksum_verify(ip, ip + 1), 0);
	if (ipp != NULL)
		*ipp = ip;
	return (uint8_t *)(ip + 1);
}

/* An NS (type 135) or NA (136) with a link-layer option (opt 0: none). */
uint16_t
nd_msg(uint8_t *buf, uint8_t type, uint8_t flags, const uint8_t src[16],
	const uint8_t dst[16], const uint8_t target[16], uint8_t opt,
	const struct rte_ether_addr *ll, uint8_t hl)
{
	uint8_t icmp[32];
	uint16_t len = 24 + (opt != 0 ? 8 : 0), n;

	memset(icmp, 0, sizeof(icmp));
	icmp[0] = type;
	icmp[4] = flags;
	memcpy(icmp + 8, target, 16);
	if (opt != 0) {
		icmp[24] = opt;
		icmp[25] = 1;
		memcpy(icmp + 26, ll, 6);
	}
	n = ip6_build(buf, src, dst, 58, hl, NULL, 0, icmp, len);
	icmp6_fix((struct rte_ipv6_hdr *)buf);
	return n;
}

void
solnode(const uint8_t a[16], uint8_t out[16])
{
	memset(out, 0, 16);
	out[0] = 0xff;
	out[1] = 0x02;
	out[11] = 1;
	out[12] = 0xff;
	memcpy(out + 13, a + 13, 3);
}

struct net_nd_entry *
nd_entry_on(unsigned int shard, uint16_t port, const uint8_t ip[16])
{
	uint32_t i;

	for (i = 0; i <= sh[shard]->nd_mask; i++)
		if (sh[shard]->nd[i].state != NET_ND_FREE &&
			sh[shard]->nd[i].port == port &&
			memcmp(sh[shard]->nd[i].ip, ip, 16) == 0)
			return &sh[shard]->nd[i];
	return NULL;
}

struct net_nd_entry *
nd_entry(unsigned int shard, const uint8_t ip[16])
{
	return nd_entry_on(shard, 0, ip);
}

/* Move the virtual clock and let both shards' housekeeping run. */
void
advance_ms(uint64_t ms)
{
	now += rte_get_tsc_hz() / 1000 * ms;
	ewyk_net_poll(sh[0], now);
	ewyk_net_poll(sh[1], now);
}

/* Only `c` of the drop counters moved, by one, since `before`. */
void
one_drop(const uint64_t *before, enum ewyk_net_counter c, const char *what)
{
	unsigned int i;

	for (i = EWYK_NET_DROP_FIRST; i < EWYK_NET_COUNTER_MAX; i++) {
		uint64_t want = before[i] + (i == (unsigned int)c ? 1 : 0);

		if (ctr(0, i) != want)
			fail_msg("%s: counter %s is %" PRIu64 ", want %" PRIu64,
				what, ewyk_net_counter_name(i), ctr(0, i),
				want);
	}
}

void
snap(uint64_t *v)
{
	unsigned int i;

	for (i = 0; i < EWYK_NET_COUNTER_MAX; i++)
		v[i] = ctr(0, i);
}

/* A small UDP datagram to dst through ewyk_net_ip6_output(). */
int
out6(const uint8_t dst[16], uint16_t plen)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_udp_hdr *u;

	assert_non_null(m);
	u = (struct rte_udp_hdr *)rte_pktmbuf_append(m, sizeof(*u) + plen);
	if (u == NULL) {
		fail_msg("no room for %u bytes", plen);
		return -1;
	}
	memset(u, 0, sizeof(*u) + plen);
	u->src_port = rte_cpu_to_be_16(5000);
	u->dst_port = rte_cpu_to_be_16(6000);
	u->dgram_len = rte_cpu_to_be_16(sizeof(*u) + plen);
	return ewyk_net_ip6_output(sh[0], m, 0, our6, dst, IPPROTO_UDP, true);
}
