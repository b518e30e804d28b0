/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/net unit tests. Two ring-backed ports (one untagged, one on VLAN 100)
 * with two shards; frames are crafted here, fed through ewyk_net_input,
 * and what the layer sends is read back from the TX rings.
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

#define NB_SHARDS 2
#define OUR_IP RTE_IPV4(10, 0, 0, 2)
#define PEER_IP RTE_IPV4(10, 0, 0, 1)
#define VLAN_IP RTE_IPV4(10, 1, 0, 2)
#define VLAN_PEER RTE_IPV4(10, 1, 0, 1)
#define VLAN_ID 100

static struct rte_mempool *mp;
static struct ewyk_net *net;
static struct ewyk_net_shard *sh[NB_SHARDS];
static struct rte_ring *rxr[2][NB_SHARDS], *txr[2][NB_SHARDS];
static struct rte_ether_addr our_mac[2];
static const struct rte_ether_addr peer_mac = { .addr_bytes = { 0x02, 0, 0, 0,
							0, 0x01 } };
static uint64_t now;

/* ---- frame building ---- */

static struct rte_mbuf *
frame_new(uint16_t port, uint16_t etype, bool bcast, const void *payload,
	uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ether_hdr *e;
	uint16_t l2 = RTE_ETHER_HDR_LEN + (port == 1 ? 4 : 0);

	assert_non_null(m);
	e = (struct rte_ether_hdr *)rte_pktmbuf_append(m, l2 + len);
	assert_non_null(e);
	if (bcast)
		memset(&e->dst_addr, 0xff, RTE_ETHER_ADDR_LEN);
	else
		rte_ether_addr_copy(&our_mac[port], &e->dst_addr);
	rte_ether_addr_copy(&peer_mac, &e->src_addr);
	if (port == 1) {
		struct rte_vlan_hdr *v = (struct rte_vlan_hdr *)(e + 1);

		e->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		v->vlan_tci = rte_cpu_to_be_16(VLAN_ID);
		v->eth_proto = rte_cpu_to_be_16(etype);
	} else {
		e->ether_type = rte_cpu_to_be_16(etype);
	}
	memcpy(rte_pktmbuf_mtod_offset(m, char *, l2), payload, len);
	return m;
}

/* An IPv4 datagram: header (fixed checksum) + payload. */
static uint16_t
ip_build(uint8_t *buf, uint32_t src, uint32_t dst, uint8_t proto,
	const void *l4, uint16_t l4_len)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)buf;

	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(sizeof(*ip) + l4_len);
	ip->time_to_live = 64;
	ip->next_proto_id = proto;
	ip->src_addr = rte_cpu_to_be_32(src);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	memcpy(ip + 1, l4, l4_len);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return sizeof(*ip) + l4_len;
}

static uint16_t
echo_build(uint8_t *buf, uint32_t src, uint32_t dst, uint16_t plen)
{
	uint8_t icmp[2048];
	struct rte_icmp_hdr *h = (struct rte_icmp_hdr *)icmp;
	uint16_t i;

	memset(h, 0, sizeof(*h));
	h->icmp_type = RTE_IP_ICMP_ECHO_REQUEST;
	h->icmp_ident = rte_cpu_to_be_16(0x77);
	h->icmp_seq_nb = rte_cpu_to_be_16(1);
	for (i = 0; i < plen; i++)
		icmp[sizeof(*h) + i] = (uint8_t)i;
	h->icmp_cksum = (uint16_t)~rte_raw_cksum(icmp, sizeof(*h) + plen);
	return ip_build(buf, src, dst, IPPROTO_ICMP, icmp,
		(uint16_t)(sizeof(*h) + plen));
}

static struct rte_mbuf *
arp_frame(uint16_t port, uint16_t op, uint32_t sip, uint32_t tip)
{
	struct rte_arp_hdr a;

	memset(&a, 0, sizeof(a));
	a.arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	a.arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	a.arp_hlen = 6;
	a.arp_plen = 4;
	a.arp_opcode = rte_cpu_to_be_16(op);
	rte_ether_addr_copy(&peer_mac, &a.arp_data.arp_sha);
	a.arp_data.arp_sip = rte_cpu_to_be_32(sip);
	if (op == RTE_ARP_OP_REPLY)
		rte_ether_addr_copy(&our_mac[port], &a.arp_data.arp_tha);
	a.arp_data.arp_tip = rte_cpu_to_be_32(tip);
	return frame_new(port, RTE_ETHER_TYPE_ARP, op == RTE_ARP_OP_REQUEST, &a,
		sizeof(a));
}

/* ---- harness ---- */

static void
input(unsigned int shard, uint16_t port, struct rte_mbuf *m)
{
	ewyk_net_input(sh[shard], port, &m, 1, now);
	ewyk_net_tx_flush(sh[shard]);
}

/* Take what shard `q` sent on `port`; at most n. */
static unsigned int
sent(uint16_t port, unsigned int q, struct rte_mbuf **out, unsigned int n)
{
	return rte_ring_dequeue_burst(txr[port][q], (void **)out, n, NULL);
}

static void
drain_all(void)
{
	struct rte_mbuf *m[64];
	unsigned int p, q, n;

	for (p = 0; p < 2; p++)
		for (q = 0; q < NB_SHARDS; q++)
			while ((n = sent(p, q, m, 64)) > 0)
				rte_pktmbuf_free_bulk(m, n);
}

static uint64_t
ctr(unsigned int shard, enum ewyk_net_counter c)
{
	return ewyk_net_counter_get(sh[shard], c);
}

static int
setup_all(void **state)
{
	struct rte_mempool *pools[NB_SHARDS];
	struct ewyk_net_conf nc;
	unsigned int p, q;

	(void)state;
	mp = rte_pktmbuf_pool_create("test_net", 4095, 0, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (mp == NULL)
		return -1;
	memset(&nc, 0, sizeof(nc));
	nc.nb_shards = NB_SHARDS;
	nc.arp_queue_len = 4;
	nc.arp_retries = 2;
	nc.arp_retry_ms = 10;
	nc.inbox_size = 16;
	net = ewyk_net_create(&nc);
	if (net == NULL)
		return -1;
	for (q = 0; q < NB_SHARDS; q++)
		pools[q] = mp;
	for (p = 0; p < 2; p++) {
		struct ewyk_net_port_conf pc;
		struct ewyk_net_port_info info;
		char name[32];
		int port_id;

		for (q = 0; q < NB_SHARDS; q++) {
			snprintf(name, sizeof(name), "trx%u%u", p, q);
			rxr[p][q] = rte_ring_create(name, 1024, SOCKET_ID_ANY,
				RING_F_SP_ENQ | RING_F_SC_DEQ);
			snprintf(name, sizeof(name), "ttx%u%u", p, q);
			txr[p][q] = rte_ring_create(name, 1024, SOCKET_ID_ANY,
				RING_F_SP_ENQ | RING_F_SC_DEQ);
			if (rxr[p][q] == NULL || txr[p][q] == NULL)
				return -1;
		}
		snprintf(name, sizeof(name), "tnet%u", p);
		port_id = rte_eth_from_rings(name, rxr[p], NB_SHARDS, txr[p],
			NB_SHARDS, SOCKET_ID_ANY);
		if (port_id < 0)
			return -1;
		memset(&pc, 0, sizeof(pc));
		pc.port_id = (uint16_t)port_id;
		pc.ip = rte_cpu_to_be_32(p == 0 ? OUR_IP : VLAN_IP);
		pc.prefix_len = p == 0 ? 16 : 24;
		pc.vlan_id = p == 0 ? 0 : VLAN_ID;
		pc.rx_pools = pools;
		if (ewyk_net_port_add(net, &pc, &info) != (int)p)
			return -1;
		our_mac[p] = info.mac;
	}
	for (q = 0; q < NB_SHARDS; q++) {
		sh[q] = ewyk_net_shard_create(net, (uint16_t)q, SOCKET_ID_ANY,
			mp);
		if (sh[q] == NULL)
			return -1;
	}
	now = rte_rdtsc();
	return 0;
}

/* ---- hardening (issue 13) ---- */

/* SipHash-2-4 against the reference vectors (key 00..0f, message 00..),
 * SipHash-1-3 against those of Rust's SipHasher13 (its first) and a
 * reference-style model (the others). */
static void
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
static void
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
		if (ewyk_net_arp_lookup(sh[0], rte_cpu_to_be_32(cand[i]),
			    &mac) == 0)
			found++;
	assert_int_equal(found, n);
}

/* No echo reply to a broadcast or multicast Ethernet source: it would
 * go to the whole segment (a smurf amplifier). */
static void
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
static void
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
static void
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
	uint32_t w = rte_cpu_to_be_32(ip);

	return (uint32_t)ewyk_siphash13(net->arp_k0, net->arp_k1, &w, 1) &
		sh[0]->arp_mask;
}

/*
 * When a probe window is full, a resolving (INCOMPLETE) entry is evicted
 * before any reachable one: seven real peers and one address being
 * resolved fill a window; a ninth address takes the resolving one's slot
 * (its waiting frame counted), the peers stay. Before, the reachable
 * entry that went stale first was thrown out.
 */
static void
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
		assert_int_equal(ewyk_net_arp_lookup(sh[0],
					 rte_cpu_to_be_32(cand[i]), &mac),
			0);
	assert_int_equal(ctr(0, EWYK_NET_DROP_ARP_UNRESOLVED), unres + 1);
}

/* New resolutions per shard and second are limited (arp_resolve_limit,
 * here 3): the fourth new address in a second is refused and counted. */
static void
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

static int
teardown_all(void **state)
{
	(void)state;
	drain_all();
	ewyk_net_free(net);
	rte_mempool_free(mp);
	return 0;
}

/* ---- tests ---- */

static void
test_create_errors(void **state)
{
	struct ewyk_net_conf nc;

	(void)state;
	memset(&nc, 0, sizeof(nc));
	assert_null(ewyk_net_create(&nc));
	assert_int_equal(rte_errno, EINVAL);
	nc.nb_shards = 1;
	nc.arp_entries = 100; /* not a power of two */
	assert_null(ewyk_net_create(&nc));
	assert_null(ewyk_net_create(NULL));
	assert_null(
		ewyk_net_shard_create(net, 0, SOCKET_ID_ANY, mp)); /* exists */
	assert_int_equal(rte_errno, EEXIST);
	assert_int_equal(ewyk_net_l4_register(sh[0], IPPROTO_ICMP,
				 (ewyk_net_l4_input_t)1, NULL),
		-EINVAL);
	assert_int_equal(ewyk_net_route(net, rte_cpu_to_be_32(PEER_IP)), 0);
	assert_int_equal(ewyk_net_route(net, rte_cpu_to_be_32(VLAN_PEER)), 1);
	assert_int_equal(ewyk_net_route(net,
				 rte_cpu_to_be_32(RTE_IPV4(8, 8, 8, 8))),
		-ENETUNREACH);
	assert_null(ewyk_net_counter_name(EWYK_NET_COUNTER_MAX));
	assert_string_equal(ewyk_net_counter_name(EWYK_NET_DROP_IP_CKSUM),
		"drop_ip_cksum");
}

static void
test_arp_reply_and_sharing(void **state)
{
	struct rte_mbuf *out[4];
	struct rte_arp_hdr *a;
	struct rte_ether_hdr *e;
	struct rte_ether_addr mac;
	uint64_t learnt1 = ctr(1, EWYK_NET_ARP_LEARNT);

	(void)state;
	drain_all();
	input(0, 0, arp_frame(0, RTE_ARP_OP_REQUEST, PEER_IP, OUR_IP));
	assert_int_equal(sent(0, 0, out, 4), 1);
	e = rte_pktmbuf_mtod(out[0], struct rte_ether_hdr *);
	assert_true(rte_is_same_ether_addr(&e->dst_addr, &peer_mac));
	assert_true(rte_is_same_ether_addr(&e->src_addr, &our_mac[0]));
	assert_int_equal(out[0]->pkt_len, RTE_ETHER_HDR_LEN + sizeof(*a));
	a = (struct rte_arp_hdr *)(e + 1);
	assert_int_equal(rte_be_to_cpu_16(a->arp_opcode), RTE_ARP_OP_REPLY);
	assert_int_equal(a->arp_data.arp_sip, rte_cpu_to_be_32(OUR_IP));
	assert_int_equal(a->arp_data.arp_tip, rte_cpu_to_be_32(PEER_IP));
	assert_true(rte_is_same_ether_addr(&a->arp_data.arp_sha, &our_mac[0]));
	assert_true(rte_is_same_ether_addr(&a->arp_data.arp_tha, &peer_mac));
	rte_pktmbuf_free(out[0]);

	/* Shard 0 learnt the peer; shard 1 learns it through its inbox. */
	assert_int_equal(ewyk_net_arp_lookup(sh[0], rte_cpu_to_be_32(PEER_IP),
				 &mac),
		0);
	assert_true(rte_is_same_ether_addr(&mac, &peer_mac));
	ewyk_net_poll(sh[1], now);
	assert_int_equal(ctr(1, EWYK_NET_ARP_LEARNT), learnt1 + 1);
	assert_int_equal(ewyk_net_arp_lookup(sh[1], rte_cpu_to_be_32(PEER_IP),
				 &mac),
		0);
	/* ... and sends no reply of its own. */
	assert_int_equal(sent(0, 1, out, 4), 0);
}

static void
check_echo_reply(struct rte_mbuf *r, uint16_t l2, uint16_t plen)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(r,
		struct rte_ipv4_hdr *, l2);
	struct rte_icmp_hdr *ic = (struct rte_icmp_hdr *)(ip + 1);
	uint16_t sum = 0;
	const uint8_t *pl = (const uint8_t *)(ic + 1);
	uint16_t i;

	assert_int_equal(r->pkt_len, l2 + 20 + 8 + plen);
	assert_int_equal(rte_raw_cksum(ip, 20), 0xffff);
	assert_int_equal(ip->src_addr,
		rte_cpu_to_be_32(l2 == 14 ? OUR_IP : VLAN_IP));
	assert_int_equal(ip->dst_addr,
		rte_cpu_to_be_32(l2 == 14 ? PEER_IP : VLAN_PEER));
	assert_int_equal(ic->icmp_type, RTE_IP_ICMP_ECHO_REPLY);
	assert_int_equal(ic->icmp_ident, rte_cpu_to_be_16(0x77));
	rte_raw_cksum_mbuf(r, l2 + 20, 8 + plen, &sum);
	assert_int_equal(sum, 0xffff);
	for (i = 0; i < plen; i++)
		assert_int_equal(pl[i], (uint8_t)i);
}

static void
test_icmp_echo(void **state)
{
	static const uint16_t sizes[] = { 0, 56, 1400, 1472 };
	uint8_t buf[2048];
	struct rte_mbuf *out[4];
	unsigned int i;

	(void)state;
	drain_all();
	for (i = 0; i < RTE_DIM(sizes); i++) {
		uint16_t n = echo_build(buf, PEER_IP, OUR_IP, sizes[i]);

		input(0, 0, frame_new(0, RTE_ETHER_TYPE_IPV4, false, buf, n));
		assert_int_equal(sent(0, 0, out, 4), 1);
		check_echo_reply(out[0], 14, sizes[i]);
		assert_true(
			rte_is_same_ether_addr(&rte_pktmbuf_mtod(out[0],
						       struct rte_ether_hdr *)
							->dst_addr,
				&peer_mac));
		rte_pktmbuf_free(out[0]);
	}
}

static void
test_vlan_port(void **state)
{
	uint8_t buf[256];
	struct rte_mbuf *out[4], *m;
	struct rte_vlan_hdr *v;
	uint16_t n = echo_build(buf, VLAN_PEER, VLAN_IP, 32);
	uint64_t d;

	(void)state;
	drain_all();
	input(0, 1, frame_new(1, RTE_ETHER_TYPE_IPV4, false, buf, n));
	assert_int_equal(sent(1, 0, out, 4), 1);
	v = rte_pktmbuf_mtod_offset(out[0], struct rte_vlan_hdr *, 14);
	assert_int_equal(rte_be_to_cpu_16(v->vlan_tci) & 0xfff, VLAN_ID);
	check_echo_reply(out[0], 18, 32);
	rte_pktmbuf_free(out[0]);

	/* Untagged frame on the VLAN port: dropped. */
	d = ctr(0, EWYK_NET_DROP_VLAN);
	m = frame_new(0, RTE_ETHER_TYPE_IPV4, false, buf, n);
	rte_ether_addr_copy(&our_mac[1],
		&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr);
	input(0, 1, m);
	assert_int_equal(ctr(0, EWYK_NET_DROP_VLAN), d + 1);
	assert_int_equal(sent(1, 0, out, 4), 0);
}

static void
test_priority_tag_is_untagged(void **state)
{
	uint8_t buf[256];
	struct rte_mbuf *out[4], *m;
	struct rte_vlan_hdr *v;
	uint16_t n = echo_build(buf, PEER_IP, OUR_IP, 16);

	(void)state;
	drain_all();
	/* An 802.1p priority tag (VID 0) on the untagged port: served. */
	m = frame_new(1, RTE_ETHER_TYPE_IPV4, false, buf, n);
	rte_ether_addr_copy(&our_mac[0],
		&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr);
	v = rte_pktmbuf_mtod_offset(m, struct rte_vlan_hdr *, 14);
	v->vlan_tci = rte_cpu_to_be_16(5 << 13); /* PCP 5, VID 0 */
	input(0, 0, m);
	assert_int_equal(sent(0, 0, out, 4), 1);
	{
		struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(out[0],
			struct rte_ipv4_hdr *, 18);

		assert_int_equal(out[0]->pkt_len, 18 + 20 + 8 + 16);
		assert_int_equal(ip->src_addr, rte_cpu_to_be_32(OUR_IP));
		assert_int_equal(((struct rte_icmp_hdr *)(ip + 1))->icmp_type,
			RTE_IP_ICMP_ECHO_REPLY);
	}
	rte_pktmbuf_free(out[0]);
}

static void
test_arp_off_subnet_not_learnt(void **state)
{
	struct rte_ether_addr mac;
	struct rte_mbuf *out[4];
	unsigned int n;

	(void)state;
	drain_all();
	/* A request for our address from a sender outside the port's subnet
	 * is answered, but the sender is not put in the cache. */
	input(0, 0, arp_frame(0, RTE_ARP_OP_REQUEST, VLAN_PEER, OUR_IP));
	n = sent(0, 0, out, 4);
	assert_int_equal(n, 1);
	rte_pktmbuf_free(out[0]);
	assert_int_equal(ewyk_net_arp_lookup(sh[0], rte_cpu_to_be_32(VLAN_PEER),
				 &mac),
		-ENOENT);
}

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
		return frame_new(0, RTE_ETHER_TYPE_IPV6, false, buf, n);
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

static void
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

static void
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

static void
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

static void
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

static void
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

static void
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

static void
test_inbox_full(void **state)
{
	uint64_t full = ctr(1, EWYK_NET_DROP_INBOX_FULL);
	unsigned int i, ok = 0;
	uint8_t buf[128];
	uint16_t n = echo_build(buf, PEER_IP, OUR_IP, 8);

	(void)state;
	ewyk_net_poll(sh[1], now); /* empty its inbox first */
	drain_all();
	/* Inbox of 16 holds 15. */
	for (i = 0; i < 20; i++)
		if (ewyk_net_shard_forward(sh[1],
			    frame_new(0, RTE_ETHER_TYPE_IPV4, false, buf, n),
			    0) == 0)
			ok++;
	assert_int_equal(ok, 15);
	assert_int_equal(ctr(1, EWYK_NET_DROP_INBOX_FULL), full + 5);
	/* Shard 1 answers the 15 echoes from its inbox. */
	ewyk_net_poll(sh[1], now);
	ewyk_net_tx_flush(sh[1]);
	{
		struct rte_mbuf *out[32];
		unsigned int got = sent(0, 1, out, 32);

		assert_int_equal(got, 15);
		rte_pktmbuf_free_bulk(out, got);
	}
}

/*
 * Typed messages: completions and calls applied by the holder in order per
 * sender (one sender here is a plain pthread, no lcore id); a completion
 * on a reserved slot is never refused, even when the inbox is full.
 */
struct msg_log {
	uint64_t next[2]; /* next sequence number expected per sender */
	uint64_t bad;     /* out of order */
	uint64_t calls, completions;
};

static void
msg_complete(void *arg, struct ewyk_net_shard *s, uint64_t ticket, void *result)
{
	struct msg_log *lg = arg;
	unsigned int snd = (unsigned int)(ticket >> 32);

	assert_ptr_equal(s, sh[0]);
	assert_ptr_equal(result, lg);
	if ((ticket & 0xffffffff) != lg->next[snd])
		lg->bad++;
	lg->next[snd] = (ticket & 0xffffffff) + 1;
	lg->completions++;
}

static void
msg_call(struct ewyk_net_shard *s, void *arg)
{
	struct msg_log *lg = arg;

	assert_ptr_equal(s, sh[0]);
	lg->calls++;
}

#define MSG_N 5000

struct msg_sender {
	struct msg_log *lg;
	uint64_t refused;
};

static void *
msg_sender_main(void *a)
{
	struct msg_sender *x = a;
	cpu_set_t all;
	uint64_t i;

	/* Free to run on any CPU (created by the pinned main lcore). */
	CPU_ZERO(&all);
	for (i = 0; i < CPU_SETSIZE && i < 64; i++)
		CPU_SET(i, &all);
	pthread_setaffinity_np(pthread_self(), sizeof(all), &all);
	for (i = 0; i < MSG_N; i++)
		while (ewyk_net_inbox_complete(sh[0], (UINT64_C(1) << 32) | i,
			       x->lg, 0) != 0) {
			x->refused++;
			sched_yield();
		}
	return NULL;
}

static void
test_msg_inbox(void **state)
{
	struct msg_log lg;
	struct msg_sender x = { .lg = &lg, .refused = 0 };
	struct ewyk_net_inbox_stats st;
	pthread_t t;
	uint64_t i = 0;
	int k;

	(void)state;
	memset(&lg, 0, sizeof(lg));
	assert_int_equal(ewyk_net_inbox_reserve(sh[0]), -EINVAL);
	assert_int_equal(ewyk_net_inbox_create(sh[0], 8, msg_complete, &lg), 0);
	assert_int_equal(ewyk_net_inbox_create(sh[0], 8, msg_complete, &lg),
		-EEXIST);
	/* Bounded: 2 reserved + 6 posted fill it; the 9th is refused. */
	assert_int_equal(ewyk_net_inbox_reserve(sh[0]), 0);
	assert_int_equal(ewyk_net_inbox_reserve(sh[0]), 0);
	for (k = 0; k < 6; k++)
		assert_int_equal(ewyk_net_inbox_call(sh[0], msg_call, &lg), 0);
	assert_int_equal(ewyk_net_inbox_call(sh[0], msg_call, &lg), -ENOBUFS);
	assert_int_equal(ewyk_net_inbox_complete(sh[0], 0, &lg, 0), -ENOBUFS);
	assert_int_equal(ewyk_net_inbox_reserve(sh[0]), -ENOBUFS);
	/* Full, yet the reserved completions go in. */
	assert_int_equal(ewyk_net_inbox_complete(sh[0], i++, &lg, 1), 0);
	ewyk_net_inbox_unreserve(sh[0]);
	assert_int_equal(ewyk_net_inbox_stats_get(sh[0], &st), 0);
	assert_int_equal(st.full, 3);
	assert_int_equal(st.queued, 7);
	assert_int_equal(st.reserved, 0);
	assert_int_equal(ewyk_net_inbox_drain(sh[0], 100), 7);
	assert_int_equal(lg.calls, 6);
	assert_int_equal(lg.completions, 1);
	/* Two senders at once: this lcore and a non-EAL thread. */
	assert_int_equal(pthread_create(&t, NULL, msg_sender_main, &x), 0);
	while (i < MSG_N || lg.next[1] < MSG_N) {
		if (i < MSG_N && ewyk_net_inbox_complete(sh[0], i, &lg, 0) == 0)
			i++;
		ewyk_net_inbox_drain(sh[0], 4);
	}
	assert_int_equal(pthread_join(t, NULL), 0);
	ewyk_net_inbox_drain(sh[0], UINT32_MAX);
	assert_int_equal(lg.bad, 0);
	assert_int_equal(lg.next[0], MSG_N);
	assert_int_equal(lg.next[1], MSG_N);
	assert_int_equal(lg.completions, 2 * MSG_N);
	assert_int_equal(ewyk_net_inbox_stats_get(sh[0], &st), 0);
	assert_int_equal(st.applied, 6 + 2 * MSG_N);
	assert_int_equal(st.queued, 0);
	/* Left queued at free: applied then (shard 0 freed in teardown). */
}

/* The recorded holder: unchecked until held, then only the holder. */
static void *
held_elsewhere(void *a)
{
	return (void *)(uintptr_t)ewyk_net_shard_held_here(a);
}

static void
test_shard_holder(void **state)
{
	pthread_t t;
	void *r = NULL;

	(void)state;
	assert_true(ewyk_net_shard_held_here(sh[1]));
	assert_true(ewyk_net_shard_held_here(NULL));
	ewyk_net_shard_hold(sh[1]);
	assert_true(ewyk_net_shard_held_here(sh[1]));
	assert_int_equal(pthread_create(&t, NULL, held_elsewhere, sh[1]), 0);
	assert_int_equal(pthread_join(t, &r), 0);
	assert_null(r);
	ewyk_net_shard_release(sh[1]);
	assert_false(ewyk_net_shard_held_here(sh[1]));
	ewyk_net_shard_hold(sh[1]);
	assert_true(ewyk_net_shard_held_here(sh[1]));
}

static void
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

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_errors),
		cmocka_unit_test(test_arp_reply_and_sharing),
		cmocka_unit_test(test_icmp_echo),
		cmocka_unit_test(test_vlan_port),
		cmocka_unit_test(test_priority_tag_is_untagged),
		cmocka_unit_test(test_arp_off_subnet_not_learnt),
		cmocka_unit_test(test_malformed_dropped_and_counted),
		cmocka_unit_test(test_ip_options_skipped),
		cmocka_unit_test(test_l4_delivery_trims_padding),
		cmocka_unit_test(test_ip_output_resolves_arp),
		cmocka_unit_test(test_arp_gives_up),
		cmocka_unit_test(test_output_errors),
		cmocka_unit_test(test_inbox_full),
		cmocka_unit_test(test_msg_inbox),
		cmocka_unit_test(test_shard_holder),
		cmocka_unit_test(test_l4_cksum_matches_dpdk),
		cmocka_unit_test(test_siphash_vectors),
		cmocka_unit_test(test_arp_hash_keyed),
		cmocka_unit_test(test_icmp_group_source),
		cmocka_unit_test(test_ip_source_checks),
		cmocka_unit_test(test_nic_rx_drops),
		cmocka_unit_test(test_arp_evicts_incomplete_first),
		cmocka_unit_test(test_arp_resolve_limit),
	};

	if (ewyk_test_eal_init(argc, argv) != 0)
		return 1;
	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
