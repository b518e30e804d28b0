/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the lib/net IPv6 cases (test_net_ipv6.c) and neighbour discovery
 * cases (test_net_nd.c) share, on top of net_test_util.h. Time is the
 * harness's `now`, moved forward by hand (a virtual clock): neighbour
 * states change in the housekeeping that ewyk_net_poll() runs when due.
 */

#ifndef EWYK_TEST_NET6_UTIL_H
#define EWYK_TEST_NET6_UTIL_H

#include <stdint.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include <ewyk_net.h>
#include "net_private.h"

/* On-link peers of port 0 (2001:db8::/64). test_nd_cache_bounds leaves
 * peer4 REACHABLE: test_ip6_output_pmtu sends to it (the flood there may
 * have evicted peer6's STALE entry). */
extern const uint8_t peer6[16];
extern const uint8_t peer4[16];
extern const uint8_t all_nodes[16];

/* An ICMPv6 message's checksum the reference way (DPDK's, no extension
 * headers): over a packet whose IPv6 header sits right before it. */
void icmp6_fix(struct rte_ipv6_hdr *ip);
/* An IPv6 packet in buf: header (hop limit hl) + the extension headers in
 * ext[0, elen) + upper layer l4[0, len). Returns its length. */
uint16_t ip6_build(uint8_t *buf, const uint8_t src[16], const uint8_t dst[16],
	uint8_t nxt, uint8_t hl, const void *ext, uint16_t elen, const void *l4,
	uint16_t len);
/* An echo request with plen payload bytes into icmp; returns its length. */
uint16_t echo6(uint8_t *icmp, const uint8_t src[16], const uint8_t dst[16],
	uint16_t plen);
/* A frame from the peer to port 0: to our MAC, or to the group MAC of a
 * multicast destination. */
struct rte_mbuf *frame6(const uint8_t *pkt, uint16_t len);
/* The same to port @port (VLAN-tagged on port 1). */
struct rte_mbuf *frame6_on(uint16_t port, const uint8_t *pkt, uint16_t len);
/* ICMPv6 message of a sent frame (no VLAN, no extension headers), after
 * checking the frame and its checksum. */
uint8_t *sent_icmp6(struct rte_mbuf *m, struct rte_ipv6_hdr **ipp);
/* An NS (type 135) or NA (136) with a link-layer option (opt 0: none). */
uint16_t nd_msg(uint8_t *buf, uint8_t type, uint8_t flags,
	const uint8_t src[16], const uint8_t dst[16], const uint8_t target[16],
	uint8_t opt, const struct rte_ether_addr *ll, uint8_t hl);
/* The solicited-node group of a. */
void solnode(const uint8_t a[16], uint8_t out[16]);
/* A shard's neighbour entry for ip on port 0 (nd_entry) or @port. */
struct net_nd_entry *nd_entry(unsigned int shard, const uint8_t ip[16]);
struct net_nd_entry *nd_entry_on(unsigned int shard, uint16_t port,
	const uint8_t ip[16]);
/* Move the virtual clock and let both shards' housekeeping run. */
void advance_ms(uint64_t ms);
/* Only `c` of the drop counters moved, by one, since `before`. */
void one_drop(const uint64_t *before, enum ewyk_net_counter c,
	const char *what);
/* Shard 0's counters into v. */
void snap(uint64_t *v);
/* A small UDP datagram to dst through ewyk_net_ip6_output() on port 0. */
int out6(const uint8_t dst[16], uint16_t plen);

#endif /* EWYK_TEST_NET6_UTIL_H */
