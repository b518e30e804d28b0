/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbours are per port, run by test_net.c's main (last: they give
 * port 1 an IPv6 address and re-address it for IPv4). Both ports are made
 * to share a default router address — 10.0.0.254 on one /16 for IPv4,
 * fe80::1 for IPv6 — behind which sit two different routers, one per
 * link. Each port's off-link traffic must leave on that port for its own
 * router, and what a host on one link says (a gratuitous ARP, an
 * overriding NA, an NS) must not move the other port's traffic.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include <ewyk_net.h>
#include "net_private.h"

#include "test_common.h"
#include "net_test_util.h"
#include "net6_test_util.h"

static const struct rte_ether_addr router0 = { .addr_bytes = { 2, 0, 0, 0, 0xa0,
						       0 } };
static const struct rte_ether_addr router1 = { .addr_bytes = { 2, 0, 0, 0, 0xa1,
						       0 } };
static const struct rte_ether_addr rogue = { .addr_bytes = { 2, 0, 0, 0, 0xee,
						     0 } };

/* Ethernet header length of what a port sends (port 1 is on a VLAN). */
static inline uint16_t
l2_of(uint16_t port)
{
	return RTE_ETHER_HDR_LEN + (port == 1 ? 4 : 0);
}

/* Take the one frame shard 0 sent on @port (the test fails otherwise). */
static struct rte_mbuf *
one_sent(uint16_t port)
{
	struct rte_mbuf *out[8];
	unsigned int n;

	ewyk_net_tx_flush(sh[0]);
	n = sent(port, 0, out, 8);
	if (n != 1) {
		rte_pktmbuf_free_bulk(out, n);
		fail_msg("port %u sent %u frames, want 1", port, n);
	}
	return out[0];
}

/* Nothing was sent on @port by shard 0. */
static void
none_sent(uint16_t port)
{
	struct rte_mbuf *out[8];
	unsigned int n;

	ewyk_net_tx_flush(sh[0]);
	n = sent(port, 0, out, 8);
	rte_pktmbuf_free_bulk(out, n);
	assert_int_equal(n, 0);
}

/* The frame went to @mac; freed. */
static void
sent_to(struct rte_mbuf *m, const struct rte_ether_addr *mac)
{
	bool ok = rte_is_same_ether_addr(
		&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr, mac);

	rte_pktmbuf_free(m);
	assert_true(ok);
}

/* An 8-byte UDP datagram out of @port, to @dst (IPv4, host order). */
static int
out4(uint16_t port, uint32_t src, uint32_t dst)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);

	assert_non_null(m);
	memset(rte_pktmbuf_append(m, 8), 0, 8);
	return ewyk_net_ip_output(sh[0], m, port, rte_cpu_to_be_32(src),
		rte_cpu_to_be_32(dst), IPPROTO_UDP, true);
}

/* An ARP frame on @port from @sha (reply: to us; request: broadcast). */
static struct rte_mbuf *
arp_from(uint16_t port, uint16_t op, const struct rte_ether_addr *sha,
	uint32_t sip, uint32_t tip)
{
	struct rte_mbuf *m = arp_frame(port, op, sip, tip);

	rte_ether_addr_copy(sha,
		&rte_pktmbuf_mtod_offset(m, struct rte_arp_hdr *, l2_of(port))
			 ->arp_data.arp_sha);
	return m;
}

#define FAR4 RTE_IPV4(192u, 0, 2, 9) /* unsigned: 192 << 24 overflows int */
#define GW4 RTE_IPV4(10, 0, 0, 254)
#define IP1 RTE_IPV4(10, 0, 1, 2)

/*
 * IPv4 world of these cases: port 1 moved onto port 0's /16 (10.0.1.2),
 * both ports with the gateway 10.0.0.254, and port 0's entry for it
 * resolved to router0 (from a clean cache: each case starts afresh).
 * arp_world_end() puts port 1 back.
 */
static struct net_port saved_p1;

static void
arp_world(void)
{
	struct net_port *p1 = &net->ports[1];
	struct rte_arp_hdr *a;
	struct rte_mbuf *m;
	unsigned int i;

	drain_all();
	for (i = 0; i < NB_SHARDS; i++)
		net_arp_flush(sh[i]);
	now += 2 * rte_get_tsc_hz(); /* fresh resolution budgets */
	saved_p1 = *p1;
	p1->ip = rte_cpu_to_be_32(IP1);
	p1->ip_h = IP1;
	p1->nb_ips = 1;
	p1->prefix_len = 16;
	p1->mask = rte_cpu_to_be_32(UINT32_C(0xffff0000));
	assert_int_equal(ewyk_net_port_set_gw(net, 0, rte_cpu_to_be_32(GW4)),
		0);
	assert_int_equal(ewyk_net_port_set_gw(net, 1, rte_cpu_to_be_32(GW4)),
		0);
	assert_int_equal(out4(0, OUR_IP, FAR4), 0);
	m = one_sent(0);
	a = rte_pktmbuf_mtod_offset(m, struct rte_arp_hdr *, l2_of(0));
	assert_int_equal(a->arp_data.arp_tip, rte_cpu_to_be_32(GW4));
	rte_pktmbuf_free(m);
	input(0, 0, arp_from(0, RTE_ARP_OP_REPLY, &router0, GW4, OUR_IP));
	sent_to(one_sent(0), &router0);
}

static void
arp_world_end(void)
{
	unsigned int i;

	assert_int_equal(ewyk_net_port_set_gw(net, 0, 0), 0);
	assert_int_equal(ewyk_net_port_set_gw(net, 1, 0), 0);
	net->ports[1] = saved_p1;
	drain_all();
	for (i = 0; i < NB_SHARDS; i++)
		net_arp_flush(sh[i]);
}

/* Port 1's off-subnet traffic is resolved and sent on port 1 for its own
 * router, never out of port 0 through port 0's entry for the same
 * address; each shard keeps the two apart. */
void
test_arp_per_port_output(void **state)
{
	const uint32_t gw = GW4, far = FAR4, ip1 = IP1;
	struct rte_ether_addr mac;
	struct rte_arp_hdr *a;
	struct rte_mbuf *m;

	(void)state;
	arp_world();
	assert_int_equal(out4(1, ip1, far), 0);
	none_sent(0);
	assert_int_equal(ewyk_net_arp_lookup(sh[0], 1, rte_cpu_to_be_32(gw),
				 &mac),
		-ENOENT);
	assert_int_equal(ewyk_net_arp_lookup(sh[0], 2, rte_cpu_to_be_32(gw),
				 &mac),
		-EINVAL);
	m = one_sent(1);
	a = rte_pktmbuf_mtod_offset(m, struct rte_arp_hdr *, l2_of(1));
	assert_int_equal(rte_be_to_cpu_16(a->arp_opcode), RTE_ARP_OP_REQUEST);
	assert_int_equal(a->arp_data.arp_tip, rte_cpu_to_be_32(gw));
	assert_int_equal(a->arp_data.arp_sip, rte_cpu_to_be_32(ip1));
	rte_pktmbuf_free(m);
	input(0, 1, arp_from(1, RTE_ARP_OP_REPLY, &router1, gw, ip1));
	sent_to(one_sent(1), &router1);
	none_sent(0);
	assert_int_equal(out4(0, OUR_IP, far), 0);
	none_sent(1);
	sent_to(one_sent(0), &router0);
	/* The other shard learnt both replies, per port, from its inbox. */
	ewyk_net_poll(sh[1], now);
	assert_int_equal(ewyk_net_arp_lookup(sh[1], 0, rte_cpu_to_be_32(gw),
				 &mac),
		0);
	assert_true(rte_is_same_ether_addr(&mac, &router0));
	assert_int_equal(ewyk_net_arp_lookup(sh[1], 1, rte_cpu_to_be_32(gw),
				 &mac),
		0);
	assert_true(rte_is_same_ether_addr(&mac, &router1));
	arp_world_end();
}

/* A host on port 1's link claims the gateway's address (a gratuitous
 * ARP): port 1's neighbour follows it — that is ARP on port 1's link —
 * but port 0's traffic still leaves on port 0 for router0. */
void
test_arp_per_port_claim(void **state)
{
	const uint32_t gw = GW4, far = FAR4;
	struct rte_ether_addr mac;

	(void)state;
	arp_world();
	assert_int_equal(out4(1, IP1, far), 0); /* port 1 has an entry */
	drain_all();
	input(0, 1, arp_from(1, RTE_ARP_OP_REQUEST, &rogue, gw, gw));
	drain_all();
	assert_int_equal(ewyk_net_arp_lookup(sh[0], 1, rte_cpu_to_be_32(gw),
				 &mac),
		0);
	assert_true(rte_is_same_ether_addr(&mac, &rogue));
	assert_int_equal(ewyk_net_arp_lookup(sh[0], 0, rte_cpu_to_be_32(gw),
				 &mac),
		0);
	assert_true(rte_is_same_ether_addr(&mac, &router0));
	assert_int_equal(out4(0, OUR_IP, far), 0);
	none_sent(1);
	sent_to(one_sent(0), &router0);
	arp_world_end();
}

/* An 8-byte UDP datagram out of @port, from @src to @dst (IPv6). */
static int
out6_on(uint16_t port, const uint8_t src[16], const uint8_t dst[16])
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_udp_hdr *u;

	assert_non_null(m);
	u = (struct rte_udp_hdr *)rte_pktmbuf_append(m, sizeof(*u));
	memset(u, 0, sizeof(*u));
	u->dgram_len = rte_cpu_to_be_16(sizeof(*u));
	return ewyk_net_ip6_output(sh[0], m, port, src, dst, IPPROTO_UDP, true);
}

/* The NS a port just sent asks for @target; freed. */
static void
ns_for(struct rte_mbuf *m, uint16_t port, const uint8_t target[16])
{
	const uint8_t *icmp = rte_pktmbuf_mtod_offset(m, const uint8_t *,
		l2_of(port) + 40);
	bool ok = icmp[0] == 135 && memcmp(icmp + 8, target, 16) == 0;

	rte_pktmbuf_free(m);
	assert_true(ok);
}

static const uint8_t gw6[16] = { 0xfe, 0x80, [15] = 1 };
static const uint8_t far6[16] = { 0x20, 0x01, 0x0d, 0xb9, [15] = 9 };
static const uint8_t ip6_1[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 2 };
static uint8_t ll0[16], ll1[16]; /* the ports' link-local addresses */

/*
 * IPv6 world of these cases: port 1 has an address (added by the first
 * case, kept), both ports the default router fe80::1 — one router on each
 * link —, the neighbour caches empty but for port 0's entry for fe80::1,
 * resolved to router0 and REACHABLE.
 */
static void
nd_world(void)
{
	uint8_t pkt[128];
	struct net_nd_entry *e;
	unsigned int i;
	uint16_t n;

	drain_all();
	advance_ms(2000); /* fresh resolution and send budgets */
	for (i = 0; i < NB_SHARDS; i++)
		net_nd_flush(sh[i]);
	drain_all();
	if (ewyk_net_port_ip6(net, 1, 1, ll1, NULL) != 0)
		assert_int_equal(ewyk_net_port_add_ip6(net, 1, ip6_1, 64), 0);
	assert_int_equal(ewyk_net_port_ip6(net, 0, 0, ll0, NULL), 0);
	assert_int_equal(ewyk_net_port_ip6(net, 1, 0, ll1, NULL), 0);
	assert_int_equal(ewyk_net_port_set_gw6(net, 0, gw6), 0);
	assert_int_equal(ewyk_net_port_set_gw6(net, 1, gw6), 0);
	assert_int_equal(out6_on(0, our6, far6), 0);
	ns_for(one_sent(0), 0, gw6);
	n = nd_msg(pkt, 136, 0x60, gw6, ll0, gw6, 2, &router0, 255);
	input(0, 0, frame6_on(0, pkt, n));
	sent_to(one_sent(0), &router0);
	e = nd_entry_on(0, 0, gw6);
	assert_non_null(e);
	assert_int_equal(e->state, NET_ND_REACHABLE);
}

/* Port 1's off-link traffic is solicited for and sent on port 1 for its
 * own router even while port 0's entry for fe80::1 is REACHABLE; an
 * upper-layer confirmation confirms the next hop of its own port. */
void
test_nd_per_port_output(void **state)
{
	struct rte_ether_addr mac;
	uint8_t pkt[128];
	uint16_t n;

	(void)state;
	nd_world();
	assert_int_equal(out6_on(1, ip6_1, far6), 0);
	none_sent(0);
	ns_for(one_sent(1), 1, gw6);
	assert_int_equal(ewyk_net_nd_lookup(sh[0], 1, gw6, &mac), -ENOENT);
	assert_int_equal(ewyk_net_nd_lookup(sh[0], 2, gw6, &mac), -EINVAL);
	n = nd_msg(pkt, 136, 0x60, gw6, ll1, gw6, 2, &router1, 255);
	input(0, 1, frame6_on(1, pkt, n));
	sent_to(one_sent(1), &router1);
	none_sent(0);
	assert_int_equal(out6_on(0, our6, far6), 0);
	none_sent(1);
	sent_to(one_sent(0), &router0);

	/* A confirmation for the far peer through port 0 is one for port 0's
	 * router (its next hop, RFC 4861 7.3.1), not for port 1's. */
	nd_entry_on(0, 0, gw6)->state = NET_ND_STALE;
	nd_entry_on(0, 1, gw6)->state = NET_ND_STALE;
	assert_int_equal(ewyk_net_nd_confirm(sh[0], 0, far6), 0);
	assert_int_equal(nd_entry_on(0, 0, gw6)->state, NET_ND_REACHABLE);
	assert_int_equal(nd_entry_on(0, 1, gw6)->state, NET_ND_STALE);
	assert_int_equal(ewyk_net_nd_confirm(sh[0], 5, far6), -EINVAL);
	drain_all();
}

/* A host on port 1's link claims fe80::1 — an unsolicited overriding NA
 * to all-nodes, then an NS from it with its link-layer address: port 1's
 * neighbour follows (that is ND on port 1's link), port 0's entry stays
 * router0's and REACHABLE, and port 0's traffic still leaves on port 0. */
void
test_nd_per_port_override(void **state)
{
	struct rte_ether_addr mac;
	uint8_t pkt[128], sn[16];
	uint16_t n;

	(void)state;
	nd_world();
	n = nd_msg(pkt, 136, 0x20, gw6, all_nodes, gw6, 2, &rogue, 255);
	input(0, 1, frame6_on(1, pkt, n));
	drain_all();
	assert_int_equal(ewyk_net_nd_lookup(sh[0], 0, gw6, &mac), 0);
	assert_true(rte_is_same_ether_addr(&mac, &router0));
	assert_int_equal(nd_entry_on(0, 0, gw6)->state, NET_ND_REACHABLE);
	assert_int_equal(out6_on(0, our6, far6), 0);
	none_sent(1);
	sent_to(one_sent(0), &router0);

	solnode(ll1, sn);
	n = nd_msg(pkt, 135, 0, gw6, sn, ll1, 1, &rogue, 255);
	input(0, 1, frame6_on(1, pkt, n));
	drain_all();
	assert_int_equal(ewyk_net_nd_lookup(sh[0], 1, gw6, &mac), 0);
	assert_true(rte_is_same_ether_addr(&mac, &rogue));
	assert_int_equal(ewyk_net_nd_lookup(sh[0], 0, gw6, &mac), 0);
	assert_true(rte_is_same_ether_addr(&mac, &router0));
	assert_int_equal(out6_on(0, our6, far6), 0);
	none_sent(1);
	sent_to(one_sent(0), &router0);
	/* The other shard learnt from the NS, through its inbox, for port 1
	 * only (an NA creates no entry, RFC 4861 7.2.5). */
	ewyk_net_poll(sh[1], now);
	assert_int_equal(ewyk_net_nd_lookup(sh[1], 1, gw6, &mac), 0);
	assert_true(rte_is_same_ether_addr(&mac, &rogue));
	assert_int_equal(ewyk_net_nd_lookup(sh[1], 0, gw6, &mac), -ENOENT);
	drain_all();
}
