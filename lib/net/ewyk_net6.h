/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_NET6_H
#define EWYK_NET6_H

/**
 * @file
 * lib/net's IPv6 API (part of ewyk_net.h, which includes it after its own
 * declarations: include ewyk_net.h). docs/guides/net.md, "IPv6".
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "ewyk_net.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * IPv6 (net_ipv6.c, net_nd.c). docs/guides/net.md tells what is supported.
 */

/**
 * IPv6 L4 input handler, as @ref ewyk_net_l4_input_t for IPv4: called on
 * the shard's lcore with the mbuf's data at the upper-layer header and
 * pkt_len its length; l3_len covers the IPv6 header and its extensions.
 *
 * @param arg  the pointer given at registration
 * @param s    the shard the packet arrived on
 * @param m    the packet; the handler owns it
 * @param ip   IPv6 facts
 */
typedef void (*ewyk_net_l4_input6_t)(void *arg, struct ewyk_net_shard *s,
	struct rte_mbuf *m, const struct ewyk_net_ip6_info *ip);

/**
 * Give a port an IPv6 address. The first call turns IPv6 on for the port:
 * it also gets its link-local address fe80::/64 with the modified EUI-64
 * interface identifier of its MAC (RFC 4291 2.5.1, appendix A), and the
 * NIC's multicast filter is programmed with the all-nodes group and the
 * solicited-node group of every address (rte_eth_dev_set_mc_addr_list),
 * or all-multicast is turned on where the PMD has no such filter. Call at
 * start-up, before the lcores poll: the port's addresses are read without
 * locks afterwards.
 *
 * @param net
 *   context
 * @param port
 *   port index
 * @param addr
 *   the address (16 bytes, network order); unicast, not loopback,
 *   not unspecified, not link-local (the link-local address is made here)
 * @param prefix_len
 *   on-link prefix length, 1..128
 * @return
 *   0; -EINVAL (bad port, address or prefix), -EEXIST (the port has it),
 *   -ENOSPC (the port has EWYK_NET_MAX_IP6 addresses already).
 */
int ewyk_net_port_add_ip6(struct ewyk_net *net, uint16_t port,
	const uint8_t addr[16], uint8_t prefix_len);

/**
 * Read an IPv6 address of a port. Index 0 is the link-local address; the
 * others are those added with ewyk_net_port_add_ip6(), in order.
 *
 * @param net         context
 * @param port        port index
 * @param idx         address index
 * @param addr        filled with the address
 * @param prefix_len  filled with its prefix length (may be NULL)
 * @return 0, or -ENOENT when the port has no such address.
 */
int ewyk_net_port_ip6(const struct ewyk_net *net, uint16_t port,
	unsigned int idx, uint8_t addr[16], uint8_t *prefix_len);

/**
 * Give a port a default router for IPv6 (static; router advertisements are
 * not learnt). Off-link destinations (neither link-local nor on one of the
 * port's prefixes) are then sent to the router's MAC: its neighbour entry
 * is resolved, kept and probed like any other (RFC 4861 5.2, with the
 * default router as the next hop of every off-link destination). Without
 * one, ewyk_net_ip6_output() refuses them (-ENETUNREACH). Setting it again
 * replaces it.
 *
 * @param net   context
 * @param port  port index (with IPv6: ewyk_net_port_add_ip6() first)
 * @param addr  the router: a link-local address or one on the port's
 *   prefixes; not multicast, not one of ours
 * @return 0; -EINVAL (bad port, a port without IPv6, multicast,
 *   unspecified or our own address), -ENETUNREACH (not on-link).
 */
int ewyk_net_port_set_gw6(struct ewyk_net *net, uint16_t port,
	const uint8_t addr[16]);

/**
 * Find the port whose on-link IPv6 prefixes hold @p dst, else the first
 * port with a default router (ewyk_net_port_set_gw6()). A link-local
 * destination (fe80::/10) is ambiguous with several IPv6 ports: the first
 * one is returned.
 *
 * @param net  context
 * @param dst  destination
 * @return the port index, or -ENETUNREACH.
 */
int ewyk_net_route6(const struct ewyk_net *net, const uint8_t dst[16]);

/**
 * The next hop of @p dst through port @p port, as ewyk_net_ip6_output()
 * chooses it: @p dst itself when it is on-link (one of the port's
 * prefixes, or link-local), else the port's default router
 * (ewyk_net_port_set_gw6()). With ewyk_net_nd_lookup() on the result, a
 * layer asks whether frames to @p dst can leave now.
 *
 * @param net      context
 * @param port     port index (ewyk_net_route6())
 * @param dst      destination (unicast)
 * @param nexthop  set to the next hop when found
 * @return 0; -EINVAL for no such port, a NULL argument or a multicast
 *   @p dst (no neighbour to resolve); -ENETUNREACH when @p dst is
 *   off-link and the port has no default router.
 */
int ewyk_net_nexthop6(const struct ewyk_net *net, uint16_t port,
	const uint8_t dst[16], uint8_t nexthop[16]);

/**
 * Register the IPv6 handler of an upper-layer protocol on a shard (the
 * IPv4 ones of @ref ewyk_net_l4_register are apart). Without one, IPv6
 * packets of that protocol are dropped (drop_ip6_proto) and answered with
 * an ICMPv6 error: port unreachable for UDP, parameter problem
 * (unrecognised next header) for the others.
 *
 * @param s      shard
 * @param proto  next header value (IPPROTO_TCP, IPPROTO_UDP, ...)
 * @param fn     the handler
 * @param arg    its first argument
 * @return 0, or -EINVAL for ICMPv6 (owned by the layer), an extension
 *   header's number, or a NULL function.
 */
int ewyk_net_l4_register6(struct ewyk_net_shard *s, uint8_t proto,
	ewyk_net_l4_input6_t fn, void *arg);

/**
 * Send an IPv6 packet, as ewyk_net_ip_output() does IPv4: the mbuf's data
 * starts at the upper-layer header, with at least 58 bytes of headroom. The
 * layer prepends the IPv6 header (hop limit 64, or 255 to a link-local
 * group), fills the TCP/UDP checksum when @p l4_cksum (NIC or software),
 * resolves the next hop by neighbour discovery (holding the frame while it
 * resolves, bounded) and buffers it for TX. The destination must be on one
 * of the port's prefixes, link-local, or a multicast group; any other is
 * sent through the port's default router (ewyk_net_port_set_gw6()) when it
 * has one.
 *
 * @param s         shard (token holder only)
 * @param m         packet, ownership passes in every case
 * @param port      port index
 * @param src       source (one of the port's addresses)
 * @param dst       destination
 * @param proto     next header
 * @param l4_cksum  fill the TCP/UDP checksum
 * @return 0 if buffered or held for ND, or a negative errno with the frame
 *   freed and a drop counted: -EINVAL (bad port, no IPv6 on it),
 *   -EMSGSIZE (larger than the path MTU), -ENETUNREACH (not on-link
 *   and no default router),
 *   -ENOBUFS (ND queue full or rate-limited), -ENOMEM (headroom).
 */
int ewyk_net_ip6_output(struct ewyk_net_shard *s, struct rte_mbuf *m,
	uint16_t port, const uint8_t src[16], const uint8_t dst[16],
	uint8_t proto, bool l4_cksum);

/**
 * ewyk_net_ip6_output() of a TCP segment with its checksum (proto
 * IPPROTO_TCP, l4_cksum true), from a copy of the function specialised
 * for TCP (lib/tcp's output): the same frame and the same answers.
 *
 * @param s    shard (token holder only)
 * @param m    segment, data at the TCP header; ownership passes
 * @param port port index to send through
 * @param src  source address (16 bytes)
 * @param dst  destination address (16 bytes)
 * @return as ewyk_net_ip6_output().
 */
int ewyk_net_tcp_output6(struct ewyk_net_shard *s, struct rte_mbuf *m,
	uint16_t port, const uint8_t src[16], const uint8_t dst[16]);

/**
 * The TCP/UDP/ICMPv6 checksum of the segment in @p m (data at the
 * upper-layer header) with the IPv6 pseudo-header (RFC 8200 8.1). Works on
 * chained mbufs.
 *
 * @param m      the segment, pkt_len its length
 * @param src    IPv6 source
 * @param dst    IPv6 destination (the final one)
 * @param proto  upper-layer protocol
 * @return the checksum as it goes in the header (0 when checking a
 *   received segment whose checksum field is included and valid).
 */
uint16_t ewyk_net_l4_cksum6(const struct rte_mbuf *m, const uint8_t src[16],
	const uint8_t dst[16], uint8_t proto);

/**
 * Look up the neighbour cache of a shard. Entries are per port: fe80::1
 * may be a different router on each port's link.
 *
 * @param s     shard (token holder only)
 * @param port  port index the neighbour is on
 * @param ip    the neighbour's IPv6 address (the router, for an off-link
 *   destination)
 * @param mac   filled when known
 * @return 0 when the entry has a link-layer address (REACHABLE, STALE,
 *   DELAY or PROBE), -ENOENT when unknown or still INCOMPLETE, -EINVAL
 *   for no such port.
 */
int ewyk_net_nd_lookup(struct ewyk_net_shard *s, uint16_t port,
	const uint8_t ip[16], struct rte_ether_addr *mac);

/**
 * Upper-layer reachability confirmation (RFC 4861 7.3.1): the layer above
 * saw forward progress with @p ip through port @p port (e.g. TCP got new
 * data acknowledged), so the neighbour it is sent to — @p ip itself when
 * on-link, the port's default router otherwise — becomes REACHABLE again
 * without a probe, if its entry has a link-layer address. Cheap: one
 * keyed hash and a probe-window scan.
 *
 * @param s     shard (token holder only)
 * @param port  port index the traffic goes through
 * @param ip    the peer
 * @return 0, -ENOENT when there is no entry with a link-layer address
 *   (or no route), -EINVAL for no such port.
 */
int ewyk_net_nd_confirm(struct ewyk_net_shard *s, uint16_t port,
	const uint8_t ip[16]);

/**
 * The path MTU towards @p dst through port index @p port, for the layer
 * above (e.g. TCP's MSS): the port's MTU, lowered by packet-too-big
 * messages received on that port for that destination (RFC 8201), never
 * below 1280. The table is keyed by (port, destination) like the
 * neighbour cache: a packet-too-big received on one port leaves the path
 * through another port to the same destination alone. A lowered value is
 * forgotten after 10 minutes.
 *
 * @param s     shard (token holder only)
 * @param port  port index
 * @param dst   destination
 * @return the MTU in bytes (IPv6 header included); 0 for a bad port.
 */
uint16_t ewyk_net_pmtu6(struct ewyk_net_shard *s, uint16_t port,
	const uint8_t dst[16]);

/**
 * A number that changes whenever a packet-too-big lowers a path MTU on
 * this shard, and when lowered ones are forgotten (at the end of their 10
 * minutes on the shard's clock: the first call, lookup or send after it
 * forgets them, so the layer above may raise its MSS again at once). The
 * layer above caches what it derived from ewyk_net_pmtu6() with it and
 * asks again only when it moved (a load and a compare per segment instead
 * of a lookup).
 *
 * @param s  shard (token holder only)
 * @return the generation.
 */
uint32_t ewyk_net_pmtu6_gen(struct ewyk_net_shard *s);

#ifdef __cplusplus
}
#endif

#endif /* EWYK_NET6_H */
