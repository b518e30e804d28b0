/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lib/net unit tests' shared world (net_test_util.h): two ring-backed
 * ports (one untagged, one on VLAN 100) with two shards, frames crafted
 * here and what the layer sends read back from the TX rings.
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

struct rte_mempool *mp;
struct ewyk_net *net;
struct ewyk_net_shard *sh[NB_SHARDS];
struct rte_ring *rxr[2][NB_SHARDS], *txr[2][NB_SHARDS];
struct rte_ether_addr our_mac[2];
const struct rte_ether_addr peer_mac = { .addr_bytes = { 0x02, 0, 0, 0, 0,
						 0x01 } };
uint64_t now;
const uint8_t our6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

struct rte_mbuf *
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
uint16_t
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

uint16_t
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

struct rte_mbuf *
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

void
input(unsigned int shard, uint16_t port, struct rte_mbuf *m)
{
	ewyk_net_input(sh[shard], port, &m, 1, now);
	ewyk_net_tx_flush(sh[shard]);
}

/* Take what shard `q` sent on `port`; at most n. */
unsigned int
sent(uint16_t port, unsigned int q, struct rte_mbuf **out, unsigned int n)
{
	return rte_ring_dequeue_burst(txr[port][q], (void **)out, n, NULL);
}

void
frames_equal(const struct rte_mbuf *a, const struct rte_mbuf *b)
{
	assert_int_equal(rte_pktmbuf_pkt_len(a), rte_pktmbuf_pkt_len(b));
	assert_int_equal(rte_pktmbuf_data_len(a), rte_pktmbuf_pkt_len(a));
	assert_int_equal(rte_pktmbuf_data_len(b), rte_pktmbuf_pkt_len(b));
	assert_memory_equal(rte_pktmbuf_mtod(a, const void *),
		rte_pktmbuf_mtod(b, const void *), rte_pktmbuf_pkt_len(a));
}

void
drain_all(void)
{
	struct rte_mbuf *m[64];
	unsigned int p, q, n;

	for (p = 0; p < 2; p++)
		for (q = 0; q < NB_SHARDS; q++)
			while ((n = sent(p, q, m, 64)) > 0)
				rte_pktmbuf_free_bulk(m, n);
}

uint64_t
ctr(unsigned int shard, enum ewyk_net_counter c)
{
	return ewyk_net_counter_get(sh[shard], c);
}

int
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
	if (ewyk_net_port_add_ip6(net, 0, our6, 64) != 0)
		return -1;
	for (q = 0; q < NB_SHARDS; q++) {
		sh[q] = ewyk_net_shard_create(net, (uint16_t)q, SOCKET_ID_ANY,
			mp);
		if (sh[q] == NULL)
			return -1;
	}
	now = rte_rdtsc();
	return 0;
}

int
teardown_all(void **state)
{
	(void)state;
	drain_all();
	ewyk_net_free(net);
	rte_mempool_free(mp);
	return 0;
}
