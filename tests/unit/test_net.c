/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/net unit tests. Two ring-backed ports (one untagged, one on VLAN 100)
 * with two shards; frames are crafted here, fed through ewyk_net_input,
 * and what the layer sends is read back from the TX rings (the world of
 * net_test_util.h). This file: creation errors, ARP replies, ICMP echo,
 * VLANs. Its main also runs the cases of test_net_malformed.c,
 * test_net_l4.c, test_net_output.c, test_net_inbox.c,
 * test_net_hardening.c and test_net_ipv6.c.
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

/* A port's extra addresses (nb_extra_ips): ARP answers for each with
 * that address, not for the one after the last; IP to them is ours. */
static void
test_arp_extra_ips(void **state)
{
	struct net_port *pt = &net->ports[0];
	uint64_t not_ours = ctr(0, EWYK_NET_DROP_ARP_NOT_OURS);
	struct rte_mbuf *out[4];
	struct rte_arp_hdr *a;

	(void)state;
	drain_all();
	pt->nb_ips = 3; /* OUR_IP, OUR_IP + 1, OUR_IP + 2 */
	input(0, 0, arp_frame(0, RTE_ARP_OP_REQUEST, PEER_IP, OUR_IP + 2));
	assert_int_equal(sent(0, 0, out, 4), 1);
	a = rte_pktmbuf_mtod_offset(out[0], struct rte_arp_hdr *,
		RTE_ETHER_HDR_LEN);
	assert_int_equal(rte_be_to_cpu_16(a->arp_opcode), RTE_ARP_OP_REPLY);
	assert_int_equal(a->arp_data.arp_sip, rte_cpu_to_be_32(OUR_IP + 2));
	assert_true(rte_is_same_ether_addr(&a->arp_data.arp_sha, &our_mac[0]));
	rte_pktmbuf_free(out[0]);
	input(0, 0, arp_frame(0, RTE_ARP_OP_REQUEST, PEER_IP, OUR_IP + 3));
	assert_int_equal(sent(0, 0, out, 4), 0);
	assert_int_equal(ctr(0, EWYK_NET_DROP_ARP_NOT_OURS), not_ours + 1);
	/* a sender claiming one of them is not asking us */
	input(0, 0, arp_frame(0, RTE_ARP_OP_REQUEST, OUR_IP + 1, OUR_IP));
	assert_int_equal(sent(0, 0, out, 4), 0);
	pt->nb_ips = 1;
	drain_all();
	ewyk_net_poll(sh[1], now);
	drain_all();
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
	assert_int_equal(ewyk_net_arp_lookup(sh[0], 0,
				 rte_cpu_to_be_32(PEER_IP), &mac),
		0);
	assert_true(rte_is_same_ether_addr(&mac, &peer_mac));
	ewyk_net_poll(sh[1], now);
	assert_int_equal(ctr(1, EWYK_NET_ARP_LEARNT), learnt1 + 1);
	assert_int_equal(ewyk_net_arp_lookup(sh[1], 0,
				 rte_cpu_to_be_32(PEER_IP), &mac),
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
	assert_int_equal(ewyk_net_arp_lookup(sh[0], 0,
				 rte_cpu_to_be_32(VLAN_PEER), &mac),
		-ENOENT);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_errors),
		cmocka_unit_test(test_arp_reply_and_sharing),
		cmocka_unit_test(test_arp_extra_ips),
		cmocka_unit_test(test_icmp_echo),
		cmocka_unit_test(test_vlan_port),
		cmocka_unit_test(test_priority_tag_is_untagged),
		cmocka_unit_test(test_arp_off_subnet_not_learnt),
		cmocka_unit_test(test_malformed_dropped_and_counted),
		cmocka_unit_test(test_ip_options_skipped),
		cmocka_unit_test(test_l4_delivery_trims_padding),
		cmocka_unit_test(test_ip_output_resolves_arp),
		cmocka_unit_test(test_ip_output_template),
		cmocka_unit_test(test_ip_output_template_vlan),
		cmocka_unit_test(test_arp_gives_up),
		cmocka_unit_test(test_output_errors),
		cmocka_unit_test(test_ip_output_gateway),
		cmocka_unit_test(test_tx_full_held),
		cmocka_unit_test(test_inbox_full),
		cmocka_unit_test(test_msg_inbox),
		cmocka_unit_test(test_shard_holder),
		cmocka_unit_test(test_l4_cksum_matches_dpdk),
		cmocka_unit_test(test_cksum_raw_matches_dpdk),
		cmocka_unit_test(test_siphash_vectors),
		cmocka_unit_test(test_arp_hash_keyed),
		cmocka_unit_test(test_icmp_group_source),
		cmocka_unit_test(test_ip_source_checks),
		cmocka_unit_test(test_nic_rx_drops),
		cmocka_unit_test(test_arp_evicts_incomplete_first),
		cmocka_unit_test(test_arp_resolve_limit),
		cmocka_unit_test(test_ip6_addresses),
		cmocka_unit_test(test_rss_symmetric_ip6),
		cmocka_unit_test(test_ip6_echo),
		cmocka_unit_test(test_ip6_ext_walk),
		cmocka_unit_test(test_ip6_errors),
		cmocka_unit_test(test_ip6_malformed),
		cmocka_unit_test(test_l4_cksum6),
		cmocka_unit_test(test_nd_answer),
		cmocka_unit_test(test_nd_state_machine),
		cmocka_unit_test(test_nd_cache_bounds),
		cmocka_unit_test(test_ip6_output_pmtu),
		cmocka_unit_test(test_nd_announce),
		cmocka_unit_test(test_arp_per_port_output),
		cmocka_unit_test(test_arp_per_port_claim),
		cmocka_unit_test(test_nd_per_port_output),
		cmocka_unit_test(test_nd_per_port_override),
		cmocka_unit_test(test_pmtu_per_port),
		cmocka_unit_test(test_pmtu_bound),
		cmocka_unit_test(test_ip6_output_template),
		cmocka_unit_test(test_ip6_output_offload),
		cmocka_unit_test(test_ip6_output_template_vlan),
	};

	if (ewyk_test_eal_init(argc, argv) != 0)
		return 1;
	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
