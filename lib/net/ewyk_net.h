/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_NET_H
#define EWYK_NET_H

/**
 * @file
 * ewyk network layer: Ethernet, ARP, IPv4, ICMP echo and port set-up.
 *
 * The layer is split the way the execution model is (DESIGN.md section 2):
 *
 * - One @ref ewyk_net context per process holds the ports (their MAC, IPv4
 *   address, MTU, offloads, RSS) and the table of shards. It is built at
 *   start-up, before the lcores are launched, and is read-only afterwards.
 * - One @ref ewyk_net_shard per RX queue index. A shard owns queue @c q of
 *   every port, its ARP cache, its TX buffers and its counters. Exactly one
 *   lcore works a shard at a time; nothing in a shard is locked.
 * - Other lcores talk to a shard only through its inbox, a bounded MPSC ring
 *   of mbufs (@ref ewyk_net_shard_forward): ARP learnt by one shard is shared
 *   that way, and the layer above uses it to steer a segment to the shard
 *   that owns its flow when the port cannot do RSS.
 *
 * Receive is run to completion: @ref ewyk_net_poll pulls a burst from each
 * port, validates and answers ARP and ICMP in place, and hands every valid
 * IPv4 payload of a registered protocol to its handler on the same lcore,
 * while the bytes are still in cache. Every dropped frame increments exactly
 * one named counter (@ref ewyk_net_counter).
 *
 * All IPv4 addresses in this API are in network byte order (rte_be32_t).
 */

#include <stdbool.h>
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

/**
 * Per-shard counters. Every drop has its own counter; names are given by
 * @ref ewyk_net_counter_name and are the keys used in telemetry.
 */
enum ewyk_net_counter {
	EWYK_NET_RX_PKTS,        /**< frames received */
	EWYK_NET_RX_BYTES,       /**< bytes received (frame length) */
	EWYK_NET_TX_PKTS,        /**< frames handed to the PMD and accepted */
	EWYK_NET_TX_BYTES,       /**< bytes accepted by the PMD */
	EWYK_NET_ARP_RX,         /**< valid ARP packets received */
	EWYK_NET_ARP_REPLY_TX,   /**< ARP replies sent for our addresses */
	EWYK_NET_ARP_REQ_TX,     /**< ARP requests sent (resolution, gratuitous) */
	EWYK_NET_ARP_LEARNT,     /**< ARP cache entries created or refreshed */
	EWYK_NET_ICMP_ECHO_RX,   /**< echo requests answered */
	EWYK_NET_IP_OPTIONS,     /**< IPv4 packets with options (skipped, not dropped) */
	EWYK_NET_L4_DELIVERED,   /**< IPv4 payloads handed to an L4 handler */
	EWYK_NET_INBOX_RX,       /**< frames taken from this shard's inbox */
	/* drops, one reason each */
	EWYK_NET_DROP_RUNT,          /**< frame shorter than an Ethernet header */
	EWYK_NET_DROP_NOT_OURS,      /**< unicast to another MAC */
	EWYK_NET_DROP_MULTICAST,     /**< multicast (non-broadcast) destination */
	EWYK_NET_DROP_VLAN,          /**< VLAN tag not configured on the port */
	EWYK_NET_DROP_ETHERTYPE,     /**< EtherType we do not speak (IPv6, LLDP...) */
	EWYK_NET_DROP_ARP_MALFORMED, /**< truncated ARP, wrong hw/proto type or sizes */
	EWYK_NET_DROP_ARP_NOT_OURS,  /**< ARP request for another host's address */
	EWYK_NET_DROP_ARP_OP,        /**< ARP opcode other than request/reply */
	EWYK_NET_DROP_IP_TRUNCATED,  /**< shorter than a minimal IPv4 header */
	EWYK_NET_DROP_IP_VERSION,    /**< version field not 4 */
	EWYK_NET_DROP_IP_IHL,        /**< IHL below 5 or header beyond the frame */
	EWYK_NET_DROP_IP_LEN,        /**< total length beyond the frame or below IHL */
	EWYK_NET_DROP_IP_CKSUM,      /**< bad IPv4 header checksum */
	EWYK_NET_DROP_IP_TTL,        /**< TTL zero */
	EWYK_NET_DROP_IP_FRAG,       /**< fragment (no reassembly yet) */
	EWYK_NET_DROP_IP_NOT_OURS,   /**< destination not one of our addresses */
	EWYK_NET_DROP_IP_SRC,        /**< source is ours, a subnet broadcast, 0/8, 127/8, 224/4 or 240/4 */
	EWYK_NET_DROP_IP_PROTO,      /**< no handler for the protocol */
	EWYK_NET_DROP_ICMP_TRUNCATED, /**< ICMP shorter than its header */
	EWYK_NET_DROP_ICMP_CKSUM,    /**< bad ICMP checksum */
	EWYK_NET_DROP_ICMP_TYPE,     /**< ICMP type we do not answer */
	EWYK_NET_DROP_NO_ROUTE,      /**< no port's subnet holds the destination */
	EWYK_NET_DROP_ARP_QUEUE,     /**< waiting-for-ARP queue full */
	EWYK_NET_DROP_ARP_UNRESOLVED, /**< ARP never answered: queued frames freed */
	EWYK_NET_DROP_NO_MBUF,       /**< mbuf pool empty when building a frame */
	EWYK_NET_DROP_TX_FULL,       /**< PMD TX queue full */
	EWYK_NET_DROP_INBOX_FULL,    /**< another shard's inbox full */
	EWYK_NET_DROP_TOO_BIG,       /**< frame to send larger than the MTU */
	/* hardening (issue 13) */
	EWYK_NET_DROP_ICMP_SRC,      /**< echo request from a broadcast or multicast Ethernet source */
	EWYK_NET_DROP_RX_NOMBUF,     /**< the NIC had no mbuf to receive into (port's rx_nombuf, on shard 0) */
	EWYK_NET_DROP_RX_MISSED,     /**< the NIC's RX queue overran (port's imissed, on shard 0) */
	EWYK_NET_DROP_ARP_LIMITED,   /**< frame not sent: new ARP resolutions over arp_resolve_limit a second */
	EWYK_NET_COUNTER_MAX         /**< number of counters */
};

/** First drop counter; every counter from here on is a drop reason. */
#define EWYK_NET_DROP_FIRST EWYK_NET_DROP_RUNT

/** Port configuration given to @ref ewyk_net_port_add. */
struct ewyk_net_port_conf {
	uint16_t port_id;       /**< DPDK port id */
	rte_be32_t ip;          /**< our IPv4 address on this port */
	uint8_t prefix_len;     /**< subnet prefix length, 1..32 */
	uint16_t mtu;           /**< L3 MTU; 0 keeps the port's (default 1500) */
	uint16_t vlan_id;       /**< accept and send this 802.1Q VLAN; 0: untagged only */
	uint16_t nb_rx_desc;    /**< RX ring size; 0 = 1024 */
	uint16_t nb_tx_desc;    /**< TX ring size; 0 = 1024 */
	/** RX mempool of each queue (index = shard id); must hold nb_shards entries. */
	struct rte_mempool *const *rx_pools;
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
	uint32_t link_speed;       /**< link speed in Mbps (RTE_ETH_SPEED_NUM_*) */
};

/** Context-wide configuration given to @ref ewyk_net_create. */
struct ewyk_net_conf {
	uint16_t nb_shards;       /**< RX/TX queues per port = shards, 1..EWYK_NET_MAX_SHARDS */
	uint32_t arp_entries;     /**< ARP cache entries per shard (power of 2); 0 = 256 */
	uint16_t arp_queue_len;   /**< frames held per unresolved address; 0 = 8 */
	uint32_t arp_timeout_ms;  /**< entry lifetime before re-validation; 0 = 300000 */
	uint32_t arp_retry_ms;    /**< interval between requests; 0 = 1000 */
	uint8_t arp_retries;      /**< requests before giving up; 0 = 3 */
	uint32_t inbox_size;      /**< inbox ring size per shard (power of 2); 0 = 1024 */
	/* hardening (issue 13) */
	uint32_t arp_resolve_limit; /**< new ARP resolutions per shard and second; 0 = 100, UINT32_MAX = no limit */
};

/** IPv4 facts passed with a payload to an L4 handler. */
struct ewyk_net_ip_info {
	rte_be32_t src;       /**< source address */
	rte_be32_t dst;       /**< destination (one of ours) */
	uint16_t port;        /**< index of the port (not the DPDK id) it came in on */
	uint8_t proto;        /**< IP protocol */
	uint8_t tos;          /**< DSCP/ECN byte */
	uint8_t ttl;          /**< TTL */
	bool cksum_good;      /**< the NIC already verified the L4 checksum */
	uint16_t l4_len;      /**< payload length (IP total length - header) */
};

struct ewyk_net;
struct ewyk_net_shard;

/**
 * L4 input handler. Called on the shard's lcore, in the RX pass.
 *
 * @param arg  the pointer given at registration
 * @param s    the shard the packet arrived on
 * @param m    the packet; data starts at the L4 header, pkt_len is exactly
 *             the L4 length (padding trimmed), l2_len/l3_len are set so
 *             the headers can still be read. The handler owns it and must
 *             free, keep or reuse it.
 * @param ip   IPv4 facts
 */
typedef void (*ewyk_net_l4_input_t)(void *arg, struct ewyk_net_shard *s,
		struct rte_mbuf *m, const struct ewyk_net_ip_info *ip);

/**
 * Create the network context. Call once after rte_eal_init, before adding
 * ports.
 *
 * @return the context, or NULL with rte_errno set: EINVAL (bad conf),
 *   ENOMEM.
 */
struct ewyk_net *
ewyk_net_create(const struct ewyk_net_conf *conf);

/**
 * Stop the ports, free the shards and the context. Safe with NULL. No shard
 * may be polled any more.
 */
void
ewyk_net_free(struct ewyk_net *net);

/**
 * Configure and start a port: one RX and one TX queue per shard, RSS with a
 * symmetric Toeplitz key when the PMD supports it, checksum offloads when
 * advertised, the MTU. Ports are numbered by the order they are added (the
 * "port index" used in the rest of the API).
 *
 * @param net   context
 * @param conf  port configuration
 * @param info  filled with what the port ended up with (may be NULL)
 * @return the port index (>= 0), or a negative errno: -EINVAL (bad conf,
 *   unknown port, bad prefix), -ENOSPC (too many ports), -ENOTSUP (the PMD
 *   cannot give nb_shards queues), or the error of the failing ethdev call.
 */
int
ewyk_net_port_add(struct ewyk_net *net, const struct ewyk_net_port_conf *conf,
		struct ewyk_net_port_info *info);

/** @return the number of ports added. */
uint16_t
ewyk_net_nb_ports(const struct ewyk_net *net);

/** @return the number of shards of the context. */
uint16_t
ewyk_net_nb_shards(const struct ewyk_net *net);

/**
 * @return the DPDK port id of port index @p port, or UINT16_MAX if there
 *   is no such port.
 */
uint16_t
ewyk_net_port_id(const struct ewyk_net *net, uint16_t port);

/** @return the IPv4 address (network order) of port index @p port, or 0. */
rte_be32_t
ewyk_net_port_ip(const struct ewyk_net *net, uint16_t port);

/**
 * Find the port whose subnet holds @p dst.
 *
 * @return the port index, or -ENETUNREACH.
 */
int
ewyk_net_route(const struct ewyk_net *net, rte_be32_t dst);

/**
 * The RSS key in use on RSS-capable ports (40 bytes, symmetric), so that a
 * layer opening connections can compute which queue the return traffic of a
 * 4-tuple lands on (rte_softrss).
 *
 * @param len  set to the key length
 * @return the key
 */
const uint8_t *
ewyk_net_rss_key(uint8_t *len);

/**
 * @return true if port index @p port spreads flows by RSS with
 *   @ref ewyk_net_rss_key, false if the layer above must steer in software.
 */
bool
ewyk_net_port_rss(const struct ewyk_net *net, uint16_t port);

/**
 * Create shard @p shard_id (0..nb_shards-1) on NUMA node @p socket_id.
 * Called before launching the lcores, by any lcore.
 *
 * @param net        context
 * @param shard_id   index; also the RX/TX queue id on every port
 * @param socket_id  NUMA node for its memory (SOCKET_ID_ANY allowed)
 * @param tx_pool    mempool the shard builds its own frames from (ARP,
 *                   ICMP errors, the layer above's segments)
 * @return the shard, or NULL with rte_errno: EINVAL, EEXIST, ENOMEM.
 */
struct ewyk_net_shard *
ewyk_net_shard_create(struct ewyk_net *net, uint16_t shard_id, int socket_id,
		struct rte_mempool *tx_pool);

/** @return shard @p shard_id of the context, or NULL. */
struct ewyk_net_shard *
ewyk_net_shard_get(const struct ewyk_net *net, uint16_t shard_id);

/** @return the index of shard @p s. */
uint16_t
ewyk_net_shard_id(const struct ewyk_net_shard *s);

/** @return the context shard @p s belongs to. */
struct ewyk_net *
ewyk_net_shard_net(const struct ewyk_net_shard *s);

/** @return the mempool the shard builds frames from. */
struct rte_mempool *
ewyk_net_shard_pool(const struct ewyk_net_shard *s);

/**
 * Register the handler of an IP protocol on a shard. Replaces any earlier
 * one. Call before polling starts, or from the shard's own lcore.
 *
 * @return 0, or -EINVAL for ICMP (owned by the layer) or a NULL function.
 */
int
ewyk_net_l4_register(struct ewyk_net_shard *s, uint8_t proto,
		ewyk_net_l4_input_t fn, void *arg);

/**
 * One receive pass of the shard: drain its inbox, pull one burst from its
 * queue on every port and take each frame to completion, and do ARP
 * housekeeping (retries, give-ups) when due.
 *
 * @param s    shard (only its token holder may call this)
 * @param now  the loop's TSC reading
 * @return the number of frames taken (received + inbox)
 */
uint16_t
ewyk_net_poll(struct ewyk_net_shard *s, uint64_t now);

/**
 * Process frames received on port index @p port by hand (as
 * @ref ewyk_net_poll does with what it pulls). Takes ownership of all of
 * them. For tests and for frames coming from elsewhere than a queue.
 */
void
ewyk_net_input(struct ewyk_net_shard *s, uint16_t port,
		struct rte_mbuf **pkts, uint16_t n, uint64_t now);

/**
 * Send an IPv4 packet. The mbuf's data starts at the L4 header; at least
 * 38 bytes of headroom must be free for IPv4, Ethernet and a VLAN tag. The
 * layer prepends the IPv4 header, fills the IPv4 checksum and, when
 * @p l4_cksum is true and proto is TCP or UDP, the L4 checksum (by the NIC
 * when the port offers it, else in software), resolves the next hop by ARP
 * (holding the frame while it resolves, bounded) and buffers it for TX.
 *
 * @param s         shard (token holder only)
 * @param m         packet, ownership passes in every case
 * @param port      port index to send through
 * @param src       source address (normally the port's)
 * @param dst       destination, on the port's subnet
 * @param proto     IP protocol
 * @param l4_cksum  fill the TCP/UDP checksum
 * @return 0 if buffered or held for ARP, or a negative errno with the
 *   frame freed and a drop counted: -EINVAL (bad port), -EMSGSIZE (larger
 *   than the MTU), -ENOBUFS (ARP queue full), -ENOMEM (headroom).
 */
int
ewyk_net_ip_output(struct ewyk_net_shard *s, struct rte_mbuf *m, uint16_t port,
		rte_be32_t src, rte_be32_t dst, uint8_t proto, bool l4_cksum);

/**
 * Hand all buffered frames of the shard to the PMDs. Frames the PMD does
 * not take are freed and counted (EWYK_NET_DROP_TX_FULL).
 *
 * @return the number of frames the PMDs accepted.
 */
uint16_t
ewyk_net_tx_flush(struct ewyk_net_shard *s);

/**
 * Send a gratuitous ARP request for the address of every port, so peers
 * and switches learn us. Done by shard 0 at start.
 *
 * @return the number of requests sent.
 */
int
ewyk_net_announce(struct ewyk_net_shard *s);

/**
 * Put a frame in another shard's inbox. Callable from any lcore; the
 * target processes it in its next @ref ewyk_net_poll as if received on
 * @p port (with @p kind telling it where the frame came from).
 *
 * @param target  the receiving shard
 * @param m       the frame (data at the Ethernet header); ownership passes
 * @param port    port index it arrived on
 * @return 0, or -ENOBUFS when the inbox is full (frame freed, counted on
 *   @p target as EWYK_NET_DROP_INBOX_FULL).
 */
int
ewyk_net_shard_forward(struct ewyk_net_shard *target, struct rte_mbuf *m,
		uint16_t port);

/**
 * Read one counter of a shard. Callable from any thread (relaxed atomic
 * loads; the value is a snapshot).
 */
uint64_t
ewyk_net_counter_get(const struct ewyk_net_shard *s, enum ewyk_net_counter c);

/**
 * Add up one counter over every shard of the context.
 */
uint64_t
ewyk_net_counter_sum(const struct ewyk_net *net, enum ewyk_net_counter c);

/**
 * @return the name of counter @p c ("rx_pkts", "drop_ip_cksum", ...), or
 *   NULL when out of range.
 */
const char *
ewyk_net_counter_name(enum ewyk_net_counter c);

/**
 * Look up the ARP cache of a shard.
 *
 * @param s    shard (token holder only)
 * @param ip   address
 * @param mac  filled when found
 * @return 0 when resolved, -ENOENT when unknown or still resolving.
 */
int
ewyk_net_arp_lookup(struct ewyk_net_shard *s, rte_be32_t ip,
		struct rte_ether_addr *mac);

/**
 * Internet checksum (RFC 1071) of the TCP or UDP segment held in @p m,
 * data starting at the L4 header, pseudo-header included. Works on chained
 * mbufs.
 *
 * @return the checksum as it goes in the header (0 if the data is valid
 *   when checking a received segment whose checksum field is included).
 */
uint16_t
ewyk_net_l4_cksum(const struct rte_mbuf *m, rte_be32_t src, rte_be32_t dst,
		uint8_t proto);

#ifdef __cplusplus
}
#endif

#endif /* EWYK_NET_H */
