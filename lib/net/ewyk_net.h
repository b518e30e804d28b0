/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_NET_H
#define EWYK_NET_H

/**
 * @file
 * ewyk network layer: Ethernet, ARP, IPv4, ICMP echo, IPv6 with neighbour
 * discovery and ICMPv6, and port set-up.
 *
 * The layer is split the way the execution model is (docs/architecture.md):
 *
 * - One @ref ewyk_net context per process holds the ports (their MAC, IPv4
 *   address, MTU, offloads, RSS) and the table of shards. It is built at
 *   start-up, before the lcores are launched, and is read-only afterwards.
 * - One @ref ewyk_net_shard per RX queue index. A shard owns queue @c q of
 *   every port, its ARP cache, its TX buffers and its counters. Exactly one
 *   lcore works a shard at a time; nothing in a shard is locked.
 * - Other lcores talk to a shard only through its two inboxes. The frame
 *   inbox, a bounded MPSC ring of mbufs (@ref ewyk_net_shard_forward): ARP
 *   learnt by one shard is shared that way, and the layer above uses it to
 *   steer a segment to the shard that owns its flow when the port cannot do
 *   RSS; @ref ewyk_net_poll drains it. The message inbox (typed messages,
 *   ewyk_net_inbox_*(), ewyk_net_inbox.h), drained by
 *   ewyk_net_msg_inbox_drain().
 *
 * Receive is run to completion: @ref ewyk_net_poll pulls a burst from each
 * port, validates and answers ARP and ICMP in place, and hands every valid
 * IPv4 payload of a registered protocol to its handler on the same lcore,
 * while the bytes are still in cache. Every dropped frame increments exactly
 * one named counter (@ref ewyk_net_counter).
 *
 * All IPv4 addresses in this API are in network byte order (rte_be32_t);
 * IPv6 addresses are 16 bytes in network order (uint8_t[16]).
 *
 * IPv6 is off on a port until ewyk_net_port_add_ip6() gives it an address
 * (which also gives it its EUI-64 link-local address): a port without one
 * drops IPv6 frames as before (drop_ethertype). docs/guides/net.md lists
 * what IPv6 supports and what it does not yet.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most ports one context drives. */
#define EWYK_NET_MAX_PORTS 8
/** Most shards (RX/TX queue pairs per port). */
#define EWYK_NET_MAX_SHARDS 64
/** Frames pulled per rx_burst call. */
#define EWYK_NET_BURST 32
/** Most IPv6 addresses per port, its link-local address included. */
#define EWYK_NET_MAX_IP6 4
/** The IPv6 minimum link MTU (RFC 8200 5): the floor of every path MTU. */
#define EWYK_NET_IP6_MIN_MTU 1280

#include "ewyk_net_counters.h"

/** Port configuration given to @ref ewyk_net_port_add. */
struct ewyk_net_port_conf {
	uint16_t port_id;   /**< DPDK port id */
	rte_be32_t ip;      /**< our IPv4 address on this port */
	uint8_t prefix_len; /**< subnet prefix length, 1..32 */
	uint16_t mtu;       /**< L3 MTU; 0 keeps the port's (default 1500) */
	uint16_t
		vlan_id; /**< accept and send this 802.1Q VLAN; 0: untagged only */
	uint16_t nb_rx_desc; /**< RX ring size; 0 = 1024 */
	uint16_t nb_tx_desc; /**< TX ring size; 0 = 1024 */
	/** RX mempool of each queue (index = shard id); must hold nb_shards entries. */
	struct rte_mempool *const *rx_pools;
	/**
	 * Further IPv4 addresses of the port: the nb_extra_ips after ip
	 * (ip + 1 ... ip + nb_extra_ips), all in its subnet, none its
	 * broadcast. Accepted and answered by ARP like ip; a client that
	 * holds more connections to one server than one address has ports
	 * for uses them as sources (ewyk_tcp_connect_args.src_ip). 0: none.
	 */
	uint32_t nb_extra_ips;
};

/** What a port ended up with after set-up (capabilities taken from the PMD). */
struct ewyk_net_port_info {
	struct rte_ether_addr mac; /**< port MAC address */
	uint16_t mtu;              /**< MTU in force */
	bool rss;                  /**< RSS with the symmetric key is on */
	bool tx_ip_cksum;          /**< NIC fills IPv4 header checksums */
	bool tx_l4_cksum;          /**< NIC fills TCP/UDP checksums */
	bool rx_cksum;             /**< NIC reports checksum status on RX */
	bool link_up;              /**< link status right after start */
	uint32_t link_speed; /**< link speed in Mbps (RTE_ETH_SPEED_NUM_*) */
};

/** Context-wide configuration given to @ref ewyk_net_create. */
struct ewyk_net_conf {
	uint16_t
		nb_shards; /**< RX/TX queues per port = shards, 1..EWYK_NET_MAX_SHARDS */
	uint32_t
		arp_entries; /**< ARP cache entries per shard (power of 2); 0 = 256 */
	uint16_t
		arp_queue_len; /**< frames held per unresolved address; 0 = 8 */
	uint32_t
		arp_timeout_ms; /**< entry lifetime before re-validation; 0 = 300000 */
	uint32_t arp_retry_ms; /**< interval between requests; 0 = 1000 */
	uint8_t arp_retries;   /**< requests before giving up; 0 = 3 */
	uint32_t
		inbox_size; /**< inbox ring size per shard (power of 2); 0 = 1024 */
	/* hardening (docs/guides/security.md) */
	uint32_t
		arp_resolve_limit; /**< new ARP resolutions per shard and second; 0 = 100, UINT32_MAX = no limit */
	/* IPv6. ND reuses arp_queue_len (frames held per unresolved
	 * neighbour), arp_retry_ms (RetransTimer), arp_retries
	 * (MAX_MULTICAST_SOLICIT and MAX_UNICAST_SOLICIT) and
	 * arp_resolve_limit (new resolutions per second, counted apart). */
	uint32_t
		nd_entries; /**< neighbour cache entries per shard (power of 2, >= 8); 0 = 256 */
	uint32_t
		nd_reachable_ms; /**< ND ReachableTime base (RFC 4861 6.3.2); 0 = 30000 */
	uint32_t
		nd_tx_limit; /**< NS and NA sent per shard and second; 0 = 1000, UINT32_MAX = no limit */
	uint32_t
		icmp6_err_limit; /**< ICMPv6 errors sent per shard and second (RFC 4443 2.4 f); 0 = 100, UINT32_MAX = no limit */
};

/** IPv4 facts passed with a payload to an L4 handler. */
struct ewyk_net_ip_info {
	rte_be32_t src; /**< source address */
	rte_be32_t dst; /**< destination (one of ours) */
	uint16_t port; /**< index of the port (not the DPDK id) it came in on */
	uint8_t proto; /**< IP protocol */
	uint8_t tos;   /**< DSCP/ECN byte */
	uint8_t ttl;   /**< TTL */
	bool cksum_good; /**< the NIC already verified the L4 checksum */
	uint16_t l4_len; /**< payload length (IP total length - header) */
};

/** IPv6 facts passed with a payload to an IPv6 L4 handler. */
struct ewyk_net_ip6_info {
	uint8_t src[16]; /**< source address */
	uint8_t dst[16]; /**< destination (one of ours) */
	uint16_t port; /**< index of the port (not the DPDK id) it came in on */
	uint8_t proto; /**< upper-layer next header, after the extensions */
	uint8_t tclass;    /**< traffic class */
	uint8_t hop_limit; /**< hop limit */
	bool cksum_good;   /**< the NIC already verified the L4 checksum */
	uint16_t
		l4_len; /**< upper-layer length (payload - extension headers) */
	uint32_t flow_label; /**< flow label (20 bits, host order) */
};

struct ewyk_net;
struct ewyk_net_shard;

/**
 * L4 input handler. Called on the shard's lcore, in the RX pass.
 *
 * @param arg
 *   the pointer given at registration
 * @param s
 *   the shard the packet arrived on
 * @param m
 *   the packet; data starts at the L4 header, pkt_len is exactly
 *   the L4 length (padding trimmed), l2_len/l3_len are set so
 *   the headers can still be read. The handler owns it and must
 *   free, keep or reuse it.
 * @param ip
 *   IPv4 facts
 */
typedef void (*ewyk_net_l4_input_t)(void *arg, struct ewyk_net_shard *s,
	struct rte_mbuf *m, const struct ewyk_net_ip_info *ip);

/**
 * Create the network context. Call once after rte_eal_init, before adding
 * ports.
 *
 * @param conf
 *   configuration (copied); zero fields take their defaults
 * @return
 *   the context, or NULL with rte_errno set: EINVAL (bad conf),
 *   ENOMEM.
 */
struct ewyk_net *ewyk_net_create(const struct ewyk_net_conf *conf);

/**
 * Stop the ports, free the shards and the context. No shard may be polled
 * any more.
 *
 * @param net
 *   context; NULL is a no-op
 */
void ewyk_net_free(struct ewyk_net *net);

/**
 * Configure and start a port: one RX and one TX queue per shard, RSS with a
 * symmetric Toeplitz key when the PMD supports it, checksum offloads when
 * advertised, the MTU. Ports are numbered by the order they are added (the
 * "port index" used in the rest of the API).
 *
 * @param net
 *   context
 * @param conf
 *   port configuration
 * @param info
 *   filled with what the port ended up with (may be NULL)
 * @return
 *   the port index (>= 0), or a negative errno: -EINVAL (bad conf,
 *   unknown port, bad prefix), -ENOSPC (too many ports), -ENOTSUP (the PMD
 *   cannot give nb_shards queues), or the error of the failing ethdev call.
 */
int ewyk_net_port_add(struct ewyk_net *net,
	const struct ewyk_net_port_conf *conf, struct ewyk_net_port_info *info);

/**
 * @param net
 *   context
 * @return
 *   the number of ports added.
 */
uint16_t ewyk_net_nb_ports(const struct ewyk_net *net);

/**
 * @param net
 *   context
 * @return
 *   the number of shards of the context.
 */
uint16_t ewyk_net_nb_shards(const struct ewyk_net *net);

/**
 * @param net
 *   context
 * @param port
 *   port index
 * @return
 *   the DPDK port id of port index @p port, or UINT16_MAX if there
 *   is no such port.
 */
uint16_t ewyk_net_port_id(const struct ewyk_net *net, uint16_t port);

/**
 * @param net
 *   context
 * @param port
 *   port index
 * @return
 *   the IPv4 address (network order) of port index @p port, or 0.
 */
rte_be32_t ewyk_net_port_ip(const struct ewyk_net *net, uint16_t port);

/**
 * Give a port a default gateway for IPv4 (static). Off-link destinations
 * of ewyk_net_ip_output() are then sent to the gateway's MAC, resolved and
 * kept by ARP like any on-link neighbour; without one they are refused
 * (-ENETUNREACH, drop_no_route). Setting it again replaces it; 0 removes
 * it. Call it after ewyk_net_port_add(), before the lcores poll.
 *
 * @param net
 *   context
 * @param port
 *   port index
 * @param gw
 *   the gateway (network order): a unicast host on the port's subnet,
 *   not one of our addresses; 0 for none
 * @return
 *   0; -EINVAL (bad port, an address no host may have, ours, the
 *   subnet's network or broadcast address); -ENETUNREACH (not on the
 *   port's subnet).
 */
int ewyk_net_port_set_gw(struct ewyk_net *net, uint16_t port, rte_be32_t gw);

/**
 * Find the port whose subnet holds @p dst, else the first port with a
 * default gateway (ewyk_net_port_set_gw()).
 *
 * @param net
 *   context
 * @param dst
 *   destination address (network order)
 * @return
 *   the port index, or -ENETUNREACH.
 */
int ewyk_net_route(const struct ewyk_net *net, rte_be32_t dst);

/**
 * The next hop of @p dst through port @p port, as ewyk_net_ip_output()
 * chooses it: @p dst itself when it is on the port's subnet, else the
 * port's default gateway (ewyk_net_port_set_gw()). With
 * ewyk_net_arp_lookup() on the result, a layer asks whether frames to
 * @p dst can leave now.
 *
 * @param net
 *   context
 * @param port
 *   port index (ewyk_net_route())
 * @param dst
 *   destination address (network order)
 * @param nexthop
 *   set to the next hop (network order) when found
 * @return
 *   0; -EINVAL for no such port or a NULL argument; -ENETUNREACH when
 *   @p dst is off the port's subnet and the port has no gateway.
 */
int ewyk_net_nexthop(const struct ewyk_net *net, uint16_t port, rte_be32_t dst,
	rte_be32_t *nexthop);

/**
 * The RSS key in use on RSS-capable ports (40 bytes, symmetric), so that a
 * layer opening connections can compute which queue the return traffic of a
 * 4-tuple lands on (rte_softrss).
 *
 * @param len
 *   set to the key length
 * @return
 *   the key
 */
const uint8_t *ewyk_net_rss_key(uint8_t *len);

/**
 * @param net
 *   context
 * @param port
 *   port index
 * @return
 *   true if port index @p port spreads flows by RSS with
 *   @ref ewyk_net_rss_key, false if the layer above must steer in software.
 */
bool ewyk_net_port_rss(const struct ewyk_net *net, uint16_t port);

/**
 * Create shard @p shard_id (0..nb_shards-1) on NUMA node @p socket_id.
 * Called before launching the lcores, by any lcore.
 *
 * @param net
 *   context
 * @param shard_id
 *   index; also the RX/TX queue id on every port
 * @param socket_id
 *   NUMA node for its memory (SOCKET_ID_ANY allowed)
 * @param tx_pool
 *   mempool the shard builds its own frames from (ARP,
 *   ICMP errors, the layer above's segments)
 * @return
 *   the shard, or NULL with rte_errno: EINVAL, EEXIST (the shard
 *   exists, or a shard of another context has this id: telemetry names
 *   shards by id), ENOSPC (registry full), ENOMEM.
 */
struct ewyk_net_shard *ewyk_net_shard_create(struct ewyk_net *net,
	uint16_t shard_id, int socket_id, struct rte_mempool *tx_pool);

/**
 * @param net
 *   context
 * @param shard_id
 *   shard index
 * @return
 *   shard @p shard_id of the context, or NULL.
 */
struct ewyk_net_shard *ewyk_net_shard_get(const struct ewyk_net *net,
	uint16_t shard_id);

/**
 * @param s
 *   shard
 * @return
 *   the index of shard @p s.
 */
uint16_t ewyk_net_shard_id(const struct ewyk_net_shard *s);

/**
 * @param s
 *   shard
 * @return
 *   the context shard @p s belongs to.
 */
struct ewyk_net *ewyk_net_shard_net(const struct ewyk_net_shard *s);

/**
 * @param s
 *   shard
 * @return
 *   the mempool the shard builds frames from.
 */
struct rte_mempool *ewyk_net_shard_pool(const struct ewyk_net_shard *s);

/**
 * Register the handler of an IP protocol on a shard. Replaces any earlier
 * one. Call before polling starts, or from the shard's own lcore.
 *
 * @param s
 *   shard
 * @param proto
 *   IP protocol number (IPPROTO_TCP, IPPROTO_UDP, ...)
 * @param fn
 *   the handler
 * @param arg
 *   its first argument
 * @return
 *   0, or -EINVAL for ICMP (owned by the layer) or a NULL function.
 */
int ewyk_net_l4_register(struct ewyk_net_shard *s, uint8_t proto,
	ewyk_net_l4_input_t fn, void *arg);

/**
 * One receive pass of the shard: drain its frame inbox (frames other shards
 * forwarded here), pull one burst from its queue on every port and take
 * each frame to completion, and do ARP housekeeping (retries, give-ups)
 * when due.
 *
 * @param s
 *   shard (only its token holder may call this)
 * @param now
 *   the loop's TSC reading
 * @return
 *   the number of frames taken (received + frame inbox)
 */
uint16_t ewyk_net_poll(struct ewyk_net_shard *s, uint64_t now);

/**
 * Process frames received on port index @p port by hand (as
 * @ref ewyk_net_poll does with what it pulls). Takes ownership of all of
 * them. For tests and for frames coming from elsewhere than a queue.
 *
 * @param s
 *   shard (token holder only)
 * @param port
 *   port index the frames arrived on
 * @param pkts
 *   the frames, data at the Ethernet header
 * @param n
 *   number of frames
 * @param now
 *   the loop's TSC reading
 */
void ewyk_net_input(struct ewyk_net_shard *s, uint16_t port,
	struct rte_mbuf **pkts, uint16_t n, uint64_t now);

/**
 * Send an IPv4 packet. The mbuf's data starts at the L4 header; at least
 * 38 bytes of headroom must be free for IPv4, Ethernet and a VLAN tag. The
 * layer prepends the IPv4 header, fills the IPv4 checksum and, when
 * @p l4_cksum is true and proto is TCP or UDP, the L4 checksum (by the NIC
 * when the port offers it, else in software), resolves the next hop by ARP
 * (holding the frame while it resolves, bounded) and buffers it for TX.
 *
 * @param s
 *   shard (token holder only)
 * @param m
 *   packet, ownership passes in every case
 * @param port
 *   port index to send through
 * @param src
 *   source address (normally the port's)
 * @param dst
 *   destination: on the port's subnet, or any other through the port's
 *   default gateway (ewyk_net_port_set_gw())
 * @param proto
 *   IP protocol
 * @param l4_cksum
 *   fill the TCP/UDP checksum
 * @return
 *   0 if buffered or held for ARP, or a negative errno with the
 *   frame freed and a drop counted: -EINVAL (bad port), -EMSGSIZE (larger
 *   than the MTU), -ENETUNREACH (off the subnet and no default gateway),
 *   -ENOBUFS (ARP queue full), -ENOMEM (headroom).
 */
int ewyk_net_ip_output(struct ewyk_net_shard *s, struct rte_mbuf *m,
	uint16_t port, rte_be32_t src, rte_be32_t dst, uint8_t proto,
	bool l4_cksum);

/**
 * ewyk_net_ip_output() of a TCP segment with its checksum (proto
 * IPPROTO_TCP, l4_cksum true): the same frame, the same answers, from a
 * copy of the function specialised for TCP (lib/tcp's output). A segment
 * to a destination whose template is valid (docs/guides/net.md,
 * Transmit) costs a template check, the checksum seeded with the
 * template's pseudo-header sum (or the offload), one copy of the
 * Ethernet and IPv4 headers and two patched fields.
 *
 * @param s    shard (token holder only)
 * @param m    segment, data at the TCP header; ownership passes
 * @param port port index to send through
 * @param src  source address
 * @param dst  destination address
 * @return as ewyk_net_ip_output().
 */
int ewyk_net_tcp_output(struct ewyk_net_shard *s, struct rte_mbuf *m,
	uint16_t port, rte_be32_t src, rte_be32_t dst);

/**
 * Hand all buffered frames of the shard to the PMDs. Frames a full PMD
 * queue does not take stay buffered, in order, for the next flush
 * (EWYK_NET_TX_HELD counts them once); a port's buffer holds up to 512,
 * past which new frames are dropped (EWYK_NET_DROP_TX_FULL).
 *
 * @param s
 *   shard (token holder only)
 * @return
 *   the number of frames the PMDs accepted.
 */
uint16_t ewyk_net_tx_flush(struct ewyk_net_shard *s);

/**
 * Frames a port's TX buffer still takes before it drops: the TX state the
 * layers above use for back-pressure (lib/tcp holds new data in its send
 * queues while the room is short, docs/guides/tcp.md). While the PMD took
 * every frame of the last burst the buffer is not stalled and the answer is
 * the buffer's full capacity (512); once a full PMD queue left frames
 * behind it is what is left of the 512 until a flush drains them.
 *
 * @param s
 *   shard
 * @param port
 *   port index
 * @return
 *   free frames in the port's buffer (0 for a port that does not exist).
 */
uint32_t ewyk_net_tx_room(const struct ewyk_net_shard *s, uint16_t port);

/**
 * Send a gratuitous ARP request for the address of every port, so peers
 * and switches learn us. Done by shard 0 at start. On a port with IPv6, for
 * each of its IPv6 addresses, also a duplicate address detection probe (a
 * neighbour solicitation from :: to the solicited-node group, RFC 4862
 * 5.4.2) and an unsolicited neighbour advertisement to all-nodes (RFC 4861
 * 7.2.6, override flag set).
 *
 * @param s
 *   shard (token holder only)
 * @return
 *   the number of messages sent (ARP requests, NS and NA).
 */
int ewyk_net_announce(struct ewyk_net_shard *s);

/**
 * Put a frame in another shard's inbox. Callable from any lcore; the
 * target processes it in its next @ref ewyk_net_poll as if received on
 * @p port, counted there as EWYK_NET_INBOX_RX (not again as received).
 *
 * @param target
 *   the receiving shard
 * @param m
 *   the frame (data at the Ethernet header); ownership passes
 * @param port
 *   port index it arrived on
 * @return
 *   0, or -ENOBUFS when the inbox is full (frame freed, counted on
 *   @p target as EWYK_NET_DROP_INBOX_FULL).
 */
int ewyk_net_shard_forward(struct ewyk_net_shard *target, struct rte_mbuf *m,
	uint16_t port);

/**
 * Read one counter of a shard. Callable from any thread (relaxed atomic
 * loads; the value is a snapshot).
 *
 * @param s
 *   shard
 * @param c
 *   counter
 * @return
 *   its value; 0 for a NULL shard or an unknown counter.
 */
uint64_t ewyk_net_counter_get(const struct ewyk_net_shard *s,
	enum ewyk_net_counter c);

/**
 * Add up one counter over every shard of the context.
 *
 * @param net
 *   context
 * @param c
 *   counter
 * @return
 *   the sum; 0 for a NULL context or an unknown counter.
 */
uint64_t ewyk_net_counter_sum(const struct ewyk_net *net,
	enum ewyk_net_counter c);

/**
 * @param c
 *   counter
 * @return
 *   the name of counter @p c ("rx_pkts", "drop_ip_cksum", ...), or
 *   NULL when out of range.
 */
const char *ewyk_net_counter_name(enum ewyk_net_counter c);

/**
 * Write the counters of every shard as Prometheus text exposition (format
 * 0.0.4): metric ewyk_net_<name>_total, one sample per shard labelled
 * shard="<id>". For an HTTP /metrics page.
 *
 * @param buf
 *   Output; may be NULL when @p size is 0, to learn the length needed.
 * @param size
 *   Size of @p buf. The text is NUL-terminated when @p size > 0, and
 *   truncated when it does not fit, as with snprintf().
 * @return
 *   Length of the whole text (without the NUL), fitting or not;
 *   -ENOMEM.
 */
int ewyk_net_prometheus(char *buf, size_t size);

/**
 * Look up the ARP cache of a shard. Entries are per port: the same
 * address may be a different host on each port's link.
 *
 * @param s
 *   shard (token holder only)
 * @param port
 *   port index the neighbour is on
 * @param ip
 *   the neighbour's address (the gateway, for an off-subnet destination)
 * @param mac
 *   filled when found
 * @return
 *   0 when resolved, -ENOENT when unknown or still resolving, -EINVAL
 *   for no such port.
 */
int ewyk_net_arp_lookup(struct ewyk_net_shard *s, uint16_t port, rte_be32_t ip,
	struct rte_ether_addr *mac);

/**
 * Internet checksum (RFC 1071) of the TCP or UDP segment held in @p m,
 * data starting at the L4 header, pseudo-header included. Works on chained
 * mbufs.
 *
 * @param m
 *   the segment, data at the L4 header, pkt_len its length
 * @param src
 *   IPv4 source address (network order)
 * @param dst
 *   IPv4 destination address (network order)
 * @param proto
 *   IPPROTO_TCP or IPPROTO_UDP
 * @return
 *   the checksum as it goes in the header (0 if the data is valid
 *   when checking a received segment whose checksum field is included).
 */
uint16_t ewyk_net_l4_cksum(const struct rte_mbuf *m, rte_be32_t src,
	rte_be32_t dst, uint8_t proto);

/**
 * Record that the calling lcore holds shard @p s (its producer token):
 * from then on the holder-only calls of lib/net and lib/tcp on this shard
 * RTE_ASSERT (debug builds) that they run on the recorded holder. Call at
 * the top of the loop's iteration.
 *
 * @param s  the shard (NULL: no-op)
 */
void ewyk_net_shard_hold(struct ewyk_net_shard *s);

/**
 * Record that nobody holds shard @p s (production left the lcore): any
 * holder-only call asserts until the next ewyk_net_shard_hold().
 *
 * @param s  the shard (NULL: no-op)
 */
void ewyk_net_shard_release(struct ewyk_net_shard *s);

/**
 * @param s  the shard (NULL allowed)
 * @return 1 if the calling lcore may make holder-only calls on @p s (it is
 *   the recorded holder, or the shard was never held, or @p s is NULL),
 *   0 otherwise.
 */
int ewyk_net_shard_held_here(const struct ewyk_net_shard *s);

#ifdef __cplusplus
}
#endif

/* The IPv6 API and the message inbox, declared in their own headers. */
#include "ewyk_net6.h"
#include "ewyk_net_inbox.h"

#endif /* EWYK_NET_H */
