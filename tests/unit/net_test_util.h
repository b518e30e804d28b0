/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the lib/net unit tests (test_net.c and the test_net_*.c files its
 * main runs) share: two ring-backed ports (port 0 untagged on OUR_IP/16,
 * port 1 on VLAN 100 with VLAN_IP/24) with NB_SHARDS shards, frame
 * builders, and the harness that feeds frames in and reads back what the
 * layer sent. The cases run in order against the one world setup_all()
 * makes.
 */

#ifndef EWYK_TEST_NET_UTIL_H
#define EWYK_TEST_NET_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <ewyk_net.h>

#define NB_SHARDS 2
#define OUR_IP RTE_IPV4(10, 0, 0, 2)
#define PEER_IP RTE_IPV4(10, 0, 0, 1)
#define VLAN_IP RTE_IPV4(10, 1, 0, 2)
#define VLAN_PEER RTE_IPV4(10, 1, 0, 1)
#define VLAN_ID 100

extern struct rte_mempool *mp;
extern struct ewyk_net *net;
extern struct ewyk_net_shard *sh[NB_SHARDS];
/* RX and TX rings behind each port's queues, per port and shard. */
extern struct rte_ring *rxr[2][NB_SHARDS], *txr[2][NB_SHARDS];
extern struct rte_ether_addr our_mac[2];
extern const struct rte_ether_addr peer_mac;
/* The TSC time the harness feeds frames at (set by setup_all()). */
extern uint64_t now;

/* A frame from the peer to port 'port' (VLAN-tagged on port 1), to us or
 * broadcast, carrying payload[0, len); the test fails on no mbuf. */
struct rte_mbuf *frame_new(uint16_t port, uint16_t etype, bool bcast,
	const void *payload, uint16_t len);
/* An IPv4 datagram in buf: header (fixed checksum) + l4[0, l4_len);
 * returns its length. */
uint16_t ip_build(uint8_t *buf, uint32_t src, uint32_t dst, uint8_t proto,
	const void *l4, uint16_t l4_len);
/* An ICMP echo request with plen bytes of payload, as a datagram in buf;
 * returns its length. */
uint16_t echo_build(uint8_t *buf, uint32_t src, uint32_t dst, uint16_t plen);
/* An ARP frame (op, sender and target IPs in host order) from the peer. */
struct rte_mbuf *arp_frame(uint16_t port, uint16_t op, uint32_t sip,
	uint32_t tip);

/* Feed m to shard 'shard' as received on 'port', then flush its TX. */
void input(unsigned int shard, uint16_t port, struct rte_mbuf *m);
/* Take what shard 'q' sent on 'port'; at most n. */
unsigned int sent(uint16_t port, unsigned int q, struct rte_mbuf **out,
	unsigned int n);
/* Two one-segment frames, byte for byte the same. */
void frames_equal(const struct rte_mbuf *a, const struct rte_mbuf *b);
/* Free whatever any shard sent on any port. */
void drain_all(void);
/* A shard's counter. */
uint64_t ctr(unsigned int shard, enum ewyk_net_counter c);
/* cmocka group setup and teardown: the world above, made and freed. */
int setup_all(void **state);
int teardown_all(void **state);

/* Test cases of the other files, run by test_net.c's main. */
/* Port 0's IPv6 address (2001:db8::2/64; setup_all()). */
extern const uint8_t our6[16];
/* test_net_ipv6.c */
void test_ip6_addresses(void **state);
void test_rss_symmetric_ip6(void **state);
void test_ip6_echo(void **state);
void test_ip6_ext_walk(void **state);
void test_ip6_errors(void **state);
void test_ip6_malformed(void **state);
void test_l4_cksum6(void **state);
void test_ip6_output_pmtu(void **state);
/* test_net_nd.c */
void test_nd_answer(void **state);
void test_nd_state_machine(void **state);
void test_nd_cache_bounds(void **state);
void test_nd_announce(void **state);
/* test_net_neigh.c (last: they re-address port 1) */
void test_arp_per_port_output(void **state);
void test_arp_per_port_claim(void **state);
void test_nd_per_port_output(void **state);
void test_nd_per_port_override(void **state);
void test_pmtu_per_port(void **state);
void test_pmtu_bound(void **state);
/* test_net_output6.c (after them: it sets port 0's router) */
void test_ip6_output_template(void **state);
void test_ip6_output_offload(void **state);
void test_ip6_output_template_vlan(void **state);
/* test_net_hardening.c */
void test_siphash_vectors(void **state);
void test_arp_hash_keyed(void **state);
void test_icmp_group_source(void **state);
void test_ip_source_checks(void **state);
void test_nic_rx_drops(void **state);
void test_arp_evicts_incomplete_first(void **state);
void test_arp_resolve_limit(void **state);
/* test_net_malformed.c */
void test_malformed_dropped_and_counted(void **state);
void test_ip_options_skipped(void **state);
/* test_net_l4.c */
void test_l4_delivery_trims_padding(void **state);
void test_l4_cksum_matches_dpdk(void **state);
void test_cksum_raw_matches_dpdk(void **state);
/* test_net_output.c */
void test_ip_output_resolves_arp(void **state);
void test_ip_output_template(void **state);
void test_ip_output_template_vlan(void **state);
void test_arp_gives_up(void **state);
void test_output_errors(void **state);
void test_ip_output_gateway(void **state);
void test_tx_full_held(void **state);
/* test_net_inbox.c */
void test_inbox_full(void **state);
void test_msg_inbox(void **state);
void test_shard_holder(void **state);

#endif /* EWYK_TEST_NET_UTIL_H */
