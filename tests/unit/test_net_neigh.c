/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbours and path MTUs are per port, run by test_net.c's main (last:
 * they give port 1 an IPv6 address and re-address it for IPv4). Both
 * ports are made to share a default router address — 10.0.0.254 on one
 * /16 for IPv4, fe80::1 for IPv6 — behind which sit two different routers,
 * one per link. Each port's off-link traffic must leave on that port for its own
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
#include "ewyk_siphash.h"
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

/* A packet-too-big from @from, received on @port, about a datagram we sent
 * from @src to @dst: the path MTU is @mtu. */
static void
ptb_on(uint16_t port, const uint8_t from[16], const uint8_t to[16],
	const uint8_t src[16], const uint8_t dst[16], uint16_t mtu)
{
	uint8_t inner[64], icmp[128], pkt[256], udp[8] = { 0 };
	uint16_t il, n;

	il = ip6_build(inner, src, dst, IPPROTO_UDP, 64, NULL, 0, udp, 8);
	memset(icmp, 0, 8);
	icmp[0] = 2;
	icmp[6] = (uint8_t)(mtu >> 8);
	icmp[7] = (uint8_t)(mtu & 0xff);
	memcpy(icmp + 8, inner, il);
	n = ip6_build(pkt, from, to, 58, 64, NULL, 0, icmp, 8 + il);
	icmp6_fix((struct rte_ipv6_hdr *)pkt);
	input(0, port, frame6_on(port, pkt, n));
}

/* Forget every path MTU (their 10 minutes pass) and check the table is
 * empty on both shards. */
static void
pmtu_forget(void)
{
	unsigned int i;

	advance_ms(NET_PMTU_EXPIRE_S * 1000ull + 2000);
	for (i = 0; i < NB_SHARDS; i++)
		assert_int_equal(sh[i]->pmtu_live, 0);
}

/*
 * The path MTU is per (port, destination), like the neighbour cache: far6
 * is reached through both ports (each through its own fe80::1), and a
 * packet-too-big received on one port lowers that port's path only — on
 * the shard that took it and on the other (its copy keeps the port) —,
 * never the other port's path MTU nor its traffic.
 */
void
test_pmtu_per_port(void **state)
{
	uint16_t mtu0 = net->ports[0].mtu, mtu1 = net->ports[1].mtu;
	uint64_t b[EWYK_NET_COUNTER_MAX];
	unsigned int i;

	(void)state;
	nd_world();
	assert_int_equal(out6_on(1, ip6_1, far6), 0);
	ns_for(one_sent(1), 1, gw6);
	assert_int_equal(ewyk_net_pmtu6(sh[0], 0, far6), mtu0);
	assert_int_equal(ewyk_net_pmtu6(sh[0], 1, far6), mtu1);

	/* Port 1's router says 1300: port 1's path only, on both shards. */
	ptb_on(1, gw6, ip6_1, ip6_1, far6, 1300);
	ewyk_net_poll(sh[1], now);
	for (i = 0; i < NB_SHARDS; i++) {
		assert_int_equal(ewyk_net_pmtu6(sh[i], 1, far6), 1300);
		assert_int_equal(ewyk_net_pmtu6(sh[i], 0, far6), mtu0);
	}
	/* Port 0's router says 1400: port 0's path, port 1's stays 1300. */
	ptb_on(0, gw6, our6, our6, far6, 1400);
	ewyk_net_poll(sh[1], now);
	for (i = 0; i < NB_SHARDS; i++) {
		assert_int_equal(ewyk_net_pmtu6(sh[i], 0, far6), 1400);
		assert_int_equal(ewyk_net_pmtu6(sh[i], 1, far6), 1300);
	}
	/* 1350 on port 1 would lower port 0's path, not port 1's: it is
	 * compared with the receiving port's path MTU, and dropped. */
	snap(b);
	ptb_on(1, gw6, ip6_1, ip6_1, far6, 1350);
	one_drop(b, EWYK_NET_DROP_ICMP6_PTB, "not lower on its port");
	assert_int_equal(ewyk_net_pmtu6(sh[0], 0, far6), 1400);
	assert_int_equal(ewyk_net_pmtu6(sh[0], 1, far6), 1300);
	/* Each port's output is held to its own path MTU. */
	{
		struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
		struct rte_udp_hdr *u;
		uint16_t len = 1400 - 40;

		assert_non_null(m);
		u = (struct rte_udp_hdr *)rte_pktmbuf_append(m, len);
		assert_non_null(u);
		memset(u, 0, len);
		u->dgram_len = rte_cpu_to_be_16(len);
		assert_int_equal(ewyk_net_ip6_output(sh[0], m, 0, our6, far6,
					 IPPROTO_UDP, true),
			0);
		sent_to(one_sent(0), &router0);
		m = rte_pktmbuf_alloc(mp);
		assert_non_null(m);
		u = (struct rte_udp_hdr *)rte_pktmbuf_append(m, len);
		assert_non_null(u);
		memset(u, 0, len);
		u->dgram_len = rte_cpu_to_be_16(len);
		assert_int_equal(ewyk_net_ip6_output(sh[0], m, 1, ip6_1, far6,
					 IPPROTO_UDP, true),
			-EMSGSIZE);
	}
	none_sent(1);
	pmtu_forget();
	assert_int_equal(ewyk_net_pmtu6(sh[0], 0, far6), mtu0);
	assert_int_equal(ewyk_net_pmtu6(sh[0], 1, far6), mtu1);
	drain_all();
}

/* The slot a (port, destination) hashes to first: the table's own hash
 * (the per-boot key over the address and the port), to fill one probe
 * window on purpose. */
static unsigned int
pmtu_home(uint16_t port, const uint8_t a[16])
{
	uint32_t w[5];

	memcpy(w, a, 16);
	w[4] = port;
	return (uint32_t)ewyk_siphash13(net->arp_k0, net->arp_k1, w, 5) %
		NET_PMTU_ENTRIES;
}

/* Destinations 2001:db8:77::<k> from *k on whose (port, destination)
 * hashes to @slot; *k moves past the one returned in @a. */
static void
pmtu_dst_at(unsigned int slot, uint16_t port, uint8_t a[16], uint32_t *k)
{
	static const uint8_t pfx[6] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x77 };

	for (;; (*k)++) {
		memset(a, 0, 16);
		memcpy(a, pfx, sizeof(pfx));
		a[12] = (uint8_t)(*k >> 24);
		a[13] = (uint8_t)(*k >> 16);
		a[14] = (uint8_t)(*k >> 8);
		a[15] = (uint8_t)*k;
		if (pmtu_home(port, a) == slot) {
			(*k)++;
			return;
		}
	}
}

/*
 * Bound and eviction, with the port in the key: the same destination
 * through two ports takes two entries; a probe window full of live entries
 * gives up the one expiring first (and only it) to a new pair; lowering
 * an entry again takes no new slot; eight times as many pairs as entries
 * never hold more than the table's entries, and every pair that answers
 * answers its own value.
 */
void
test_pmtu_bound(void **state)
{
	struct ewyk_net_shard *s;
	uint16_t mtu0 = net->ports[0].mtu, mtu1 = net->ports[1].mtu;
	uint8_t win[NET_PMTU_PROBE][16], a[16], extra[16];
	uint16_t pw[NET_PMTU_PROBE];
	unsigned int i, slot, live;
	uint32_t k = 1;

	(void)state;
	drain_all();
	s = sh[0];
	pmtu_forget();
	/* One destination, both ports: two entries, two values. */
	pmtu_dst_at(5, 0, a, &k);
	net_pmtu_update(s, 0, a, 1300, s->now);
	net_pmtu_update(s, 1, a, 1400, s->now);
	assert_int_equal(s->pmtu_live, 2);
	assert_int_equal(ewyk_net_pmtu6(s, 0, a), 1300);
	assert_int_equal(ewyk_net_pmtu6(s, 1, a), 1400);
	/* Lowered again: the same entry. */
	net_pmtu_update(s, 1, a, 1350, s->now);
	assert_int_equal(s->pmtu_live, 2);
	assert_int_equal(ewyk_net_pmtu6(s, 1, a), 1350);
	assert_int_equal(ewyk_net_pmtu6(s, 0, a), 1300);
	pmtu_forget();

	/* A full probe window (pairs of both ports homed on one slot, each
	 * lowered a tick later than the one before), then one more pair:
	 * the oldest gives its slot up, the others stay. */
	slot = 17;
	for (i = 0; i < NET_PMTU_PROBE; i++) {
		pw[i] = (uint16_t)(i % 2);
		pmtu_dst_at(slot, pw[i], win[i], &k);
		net_pmtu_update(s, pw[i], win[i], 1300 + i, s->now + i);
	}
	assert_int_equal(s->pmtu_live, NET_PMTU_PROBE);
	for (i = 0; i < NET_PMTU_PROBE; i++)
		assert_int_equal(ewyk_net_pmtu6(s, pw[i], win[i]), 1300 + i);
	pmtu_dst_at(slot, 1, extra, &k);
	net_pmtu_update(s, 1, extra, 1290, s->now + NET_PMTU_PROBE);
	assert_int_equal(ewyk_net_pmtu6(s, 1, extra), 1290);
	assert_int_equal(ewyk_net_pmtu6(s, pw[0], win[0]),
		pw[0] == 0 ? mtu0 : mtu1);
	for (i = 1; i < NET_PMTU_PROBE; i++)
		assert_int_equal(ewyk_net_pmtu6(s, pw[i], win[i]), 1300 + i);
	assert_true(s->pmtu_live <= NET_PMTU_ENTRIES);
	pmtu_forget();

	/* Many more pairs than entries: bounded, and whatever is still
	 * there is the pair's own value (the MTU encodes the pair). */
	for (i = 0; i < 8 * NET_PMTU_ENTRIES; i++) {
		uint16_t port = (uint16_t)(i % 2);

		memset(a, 0, 16);
		a[0] = 0x20;
		a[1] = 0x01;
		a[14] = (uint8_t)((i / 2) >> 8);
		a[15] = (uint8_t)(i / 2);
		net_pmtu_update(s, port, a, 1280 + (i % 200), s->now + i);
		assert_true(s->pmtu_live <= NET_PMTU_ENTRIES);
		assert_int_equal(ewyk_net_pmtu6(s, port, a), 1280 + (i % 200));
	}
	live = 0;
	for (i = 0; i < 8 * NET_PMTU_ENTRIES; i++) {
		uint16_t port = (uint16_t)(i % 2);
		uint16_t got;

		memset(a, 0, 16);
		a[0] = 0x20;
		a[1] = 0x01;
		a[14] = (uint8_t)((i / 2) >> 8);
		a[15] = (uint8_t)(i / 2);
		got = ewyk_net_pmtu6(s, port, a);
		if (got != (port == 0 ? mtu0 : mtu1)) {
			assert_int_equal(got, 1280 + (i % 200));
			live++;
		}
	}
	assert_true(live > 0);
	assert_true(live <= NET_PMTU_ENTRIES);
	pmtu_forget();
	drain_all();
}
