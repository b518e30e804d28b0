/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_NET_PRIVATE_H
#define EWYK_NET_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_ip.h>
#include <rte_ring.h>

#include <ewyk_ctr.h>

#include "ewyk_net.h"

extern int ewyk_net_logtype;
#define NET_LOG(level, fmt, ...)                                     \
	rte_log(RTE_LOG_##level, ewyk_net_logtype, "NET: " fmt "\n", \
		##__VA_ARGS__)

/** Frames buffered per port before a TX burst is forced. */
#define NET_TXB_SIZE 64
/** Frames a port's buffer holds when the PMD's queue is full (a memif
 *  ring whose reader fell behind): kept for the next flush instead of
 *  dropped, which would cost TCP a retransmission timeout each; past
 *  this, new frames are dropped and counted. */
#define NET_TXB_HOLD 512
/** How far an ARP lookup probes from the hashed slot. */
#define NET_ARP_PROBE 8
/** ARP retries and give-ups are checked this often (ms). */
#define NET_ARP_HOUSEKEEP_MS 10
/** Headroom ip_output needs: Ethernet + VLAN + minimal IPv4. */
#define NET_HDR_ROOM (RTE_ETHER_HDR_LEN + 4 + 20)
/** Headroom ip6_output needs: Ethernet + VLAN + IPv6. */
#define NET_HDR_ROOM6 (RTE_ETHER_HDR_LEN + 4 + 40)
/** Most extension headers the IPv6 input walks before giving up. */
#define NET_IP6_MAX_EXT 8
/** Path MTU entries per shard, and how far a lookup probes. */
#define NET_PMTU_ENTRIES 64
#define NET_PMTU_PROBE 4
/** A lowered path MTU is forgotten after this long (RFC 8201 4: 10 min). */
#define NET_PMTU_EXPIRE_S 600
/** ND DELAY_FIRST_PROBE_TIME (RFC 4861 10), in ms. */
#define NET_ND_DELAY_MS 5000

/** One IPv6 address of a port. */
struct net_ip6_addr {
	uint8_t a[16];
	uint8_t plen;
};

/** A per-second budget (ARP/ND resolutions, ND and ICMPv6 errors sent). */
struct net_rate {
	uint64_t sec;
	uint32_t count;
};

/** One port as the datapath sees it (read-only once started). */
/* An address of the port: its ip or one of the extra ones after it. */
#define NET_PORT_IP_OURS(pt, a) \
	(rte_be_to_cpu_32(a) - (pt)->ip_h < (pt)->nb_ips)

struct net_port {
	uint16_t port_id; /* DPDK port id */
	uint16_t mtu;
	uint16_t vlan_id; /* 0: untagged only */
	uint8_t prefix_len;
	bool rss;          /* RSS with the symmetric key */
	bool tx_ip_cksum;  /* NIC fills IPv4 checksum */
	bool tx_tcp_cksum; /* NIC fills TCP checksum */
	bool tx_udp_cksum; /* NIC fills UDP checksum */
	bool rx_cksum;     /* NIC flags RX checksum status */
	rte_be32_t ip;     /* our address */
	rte_be32_t mask;   /* subnet mask */
	rte_be32_t gw;     /* next hop of off-link destinations; 0: none */
	uint32_t ip_h;     /* ip, host order */
	uint32_t nb_ips;   /* ip and the nb_extra_ips after it */
	struct rte_ether_addr mac;
	/* Bumped (release) by every change of the IPv4 default gateway: the
	 * IPv4 TX templates filled before miss and are refilled. */
	uint32_t ip4_gen;
	uint64_t rx_nombuf_seen; /* hardening: NIC drops already counted */
	uint64_t rx_missed_seen;
	/* IPv6: ip6[0] is the link-local address; nb_ip6 == 0: IPv6 off. */
	uint8_t nb_ip6;
	bool allmulti; /* no multicast filter: all-multicast on */
	bool has_gw6;  /* gw6 is the next hop of off-link destinations */
	uint8_t gw6[16];
	/* Bumped by every change of the IPv6 addresses or router: the IPv6
	 * TX templates filled before are refilled. */
	uint32_t ip6_gen;
	struct net_ip6_addr ip6[EWYK_NET_MAX_IP6];
};

/* The next hop of IPv4 @p dst through port @p pt: itself when on the
 * port's subnet, else the port's default gateway; false (@p nh left as
 * it was) when it has none (ewyk_net_ip_output(), ewyk_net_nexthop()). */
static inline bool
net_ip4_nexthop(const struct net_port *pt, rte_be32_t dst, rte_be32_t *nh)
{
	if ((dst & pt->mask) == (pt->ip & pt->mask)) {
		*nh = dst;
		return true;
	}
	if (pt->gw == 0)
		return false;
	*nh = pt->gw;
	return true;
}

struct ewyk_net {
	struct ewyk_net_conf conf; /* with defaults filled in */
	uint16_t nb_ports;
	uint16_t nb_shards;
	bool has_ip6;             /* a port has IPv6: ND housekeeping runs */
	uint64_t arp_timeout_cyc; /* conf.arp_timeout_ms in TSC cycles */
	uint64_t arp_retry_cyc;
	uint64_t housekeep_cyc;
	uint64_t nd_reachable_cyc; /* conf.nd_reachable_ms */
	uint64_t nd_delay_cyc;     /* NET_ND_DELAY_MS */
	struct net_port ports[EWYK_NET_MAX_PORTS];
	struct ewyk_net_shard *shards[EWYK_NET_MAX_SHARDS];
	uint64_t arp_k0,
		arp_k1; /* hardening: ARP table hash key (getentropy) */
};

enum net_arp_state {
	NET_ARP_FREE = 0,
	NET_ARP_INCOMPLETE, /* request sent, frames may be waiting */
	NET_ARP_REACHABLE,  /* mac valid */
};

/** ARP cache entry; waiting frames sit in the shard's arp_q slice. */
struct net_arp_entry {
	rte_be32_t ip;
	uint8_t state;   /* enum net_arp_state */
	uint8_t retries; /* requests sent while INCOMPLETE */
	uint16_t port;   /* port index it was learnt / asked on */
	uint16_t nq;     /* frames waiting */
	struct rte_ether_addr mac;
	uint64_t deadline; /* REACHABLE: stale after; INCOMPLETE: next retry */
};

/*
 * IPv4 transmit template of one destination (net_output.c): the Ethernet
 * (VLAN) and IPv4 headers every packet to it carries, prebuilt, with the
 * sums of the IPv4 header and of the transport pseudo-header's fixed part,
 * so that a packet of an established flow is one copy, two patched fields
 * and a checksum seeded from the template instead of a route, an ARP
 * lookup and headers built field by field. Checked on every use against
 * what it was built from (addresses, protocol and port; the port's
 * gateway generation ip4_gen, which stands for the route's next hop; the
 * ARP entry's state, address, port and MAC): a change of any of them
 * makes it miss, and the slow path builds it again. The VLAN tag and the
 * MTU are the port's, fixed once it is added.
 */
#define NET_DC_ENTRIES 256 /* per shard, direct-mapped by destination */
#define NET_DC_HDR_MAX (RTE_ETHER_HDR_LEN + 4 + 20)

struct net_dc_entry {
	rte_be32_t dst;
	rte_be32_t src;
	rte_be32_t nexthop;
	uint16_t port; /* the port routed to, and the ARP entry's: TX */
	uint8_t proto;
	uint8_t l2_len; /* 0: unused entry */
	uint16_t ipsum; /* IPv4 header sum, length and checksum zero */
	uint32_t gen;   /* the port's ip4_gen when filled */
	uint32_t psum;  /* pseudo-header sum: addresses, protocol */
	const struct net_arp_entry *arp;
	uint8_t hdr[NET_DC_HDR_MAX]; /* Ethernet, VLAN, IPv4 */
};

#define NET_DC6_ENTRIES 256 /* per shard, direct-mapped by destination */
#define NET_DC6_HDR_MAX (RTE_ETHER_HDR_LEN + 4 + 40)

/*
 * A destination cache entry ("dc6"): the prebuilt Ethernet (+VLAN) + IPv6
 * header towards one unicast destination
 * (net_output6.c), the counterpart of net_dc_entry. It is used only while
 * everything it was built from still holds, checked on every use: the
 * same source, destination, protocol and port, the port's IPv6
 * configuration (ip6_gen) and path MTUs (the shard's pmtu_gen) unchanged,
 * and its neighbour entry still the next hop's, REACHABLE before its
 * deadline and with the MAC the header carries. Anything else (a MAC
 * learnt anew, a neighbour gone STALE or being probed, a path MTU lowered,
 * or forgotten when its time is up: net_pmtu_expire_due()) sends the frame
 * through the full path, which refills the template.
 */
struct net_dc6_entry {
	uint8_t dst[16];
	uint8_t src[16];
	uint8_t nexthop[16];
	const struct net_nd_entry *nd;
	uint32_t gen;      /* the port's ip6_gen when filled */
	uint32_t pmtu_gen; /* the shard's pmtu_gen when filled */
	uint32_t psum;     /* pseudo-header sum: addresses, next header */
	uint16_t port;
	uint16_t mtu; /* path MTU towards dst when filled */
	uint8_t proto;
	uint8_t l2_len;               /* 0: unused entry */
	uint8_t hdr[NET_DC6_HDR_MAX]; /* Ethernet, VLAN, IPv6 */
};

enum net_nd_state {
	NET_ND_FREE = 0,
	NET_ND_INCOMPLETE, /* multicast NS sent, frames may be waiting */
	NET_ND_REACHABLE,  /* confirmed until deadline */
	NET_ND_STALE,      /* lladdr known, unconfirmed; deadline: since when */
	NET_ND_DELAY,      /* used while STALE; probe at deadline */
	NET_ND_PROBE,      /* unicast NS sent, retries counted */
};

/** Neighbour cache entry (RFC 4861 5.1); waiting frames in the nd_q slice. */
struct net_nd_entry {
	uint8_t ip[16];
	uint8_t state;   /* enum net_nd_state */
	uint8_t retries; /* solicitations sent in INCOMPLETE / PROBE */
	uint16_t port;
	uint16_t nq;
	struct rte_ether_addr mac;
	uint64_t deadline; /* see enum net_nd_state */
};

/** Path MTU entry: a destination, through one port, whose MTU a
 * packet-too-big received on that port lowered. */
struct net_pmtu_entry {
	uint8_t ip[16];
	uint16_t port;
	uint16_t mtu; /* 0: free */
	uint64_t expire;
};

struct net_l4_handler6 {
	ewyk_net_l4_input6_t fn;
	void *arg;
};

struct net_l4_handler {
	ewyk_net_l4_input_t fn;
	void *arg;
};

struct net_txb {
	uint16_t n;
	/* The last burst left frames behind: enqueue stops forcing bursts
	 * until the loop's next flush, so a full queue costs one PMD call
	 * per loop, not one per frame. */
	bool stalled;
	uint16_t held; /* the first held frames were refused before */
	struct rte_mbuf *pkts[NET_TXB_HOLD];
};

struct ewyk_net_shard {
	/* Read-mostly. */
	struct ewyk_net *net;
	uint16_t id;
	struct rte_mempool *pool;
	struct rte_ring *inbox;     /* MPSC: frames from other lcores */
	struct net_msg_inbox *msgs; /* typed messages (net_inbox.c) */
	uint32_t holder; /* lcore id + 1; 0: unchecked (net_holder.c) */
	struct net_arp_entry *arp; /* conf.arp_entries entries */
	struct rte_mbuf **arp_q;   /* arp_entries * arp_queue_len */
	uint32_t arp_mask;
	uint64_t next_housekeep;
	uint64_t now;           /* TSC of the current receive pass */
	uint64_t arp_new_sec;   /* hardening: second of arp_new_count */
	uint32_t arp_new_count; /* resolutions started in it */
	struct net_l4_handler l4[256];
	/* IPv6 */
	struct net_nd_entry *nd; /* conf.nd_entries entries */
	/* The entry nd_find() found last, tried before hashing: most
	 * output goes to one next hop (a router, a load generator). Its
	 * state and address are checked on every use. */
	struct net_nd_entry *nd_last;
	struct rte_mbuf **nd_q; /* nd_entries * arp_queue_len */
	uint32_t nd_mask;
	struct net_rate nd_new;    /* new ND resolutions */
	struct net_rate nd_tx;     /* NS + NA sent */
	struct net_rate icmp6_err; /* ICMPv6 errors sent */
	struct net_pmtu_entry pmtu[NET_PMTU_ENTRIES];
	uint32_t pmtu_gen;  /* bumped by every path MTU update and expiry */
	uint32_t pmtu_live; /* entries with an MTU (0: no lookup needed) */
	uint64_t pmtu_next; /* earliest expiry of a live entry (UINT64_MAX) */
	struct net_l4_handler6 *l4_6; /* 256 handlers */
	struct net_txb txb[EWYK_NET_MAX_PORTS];
	struct net_dc_entry dc[NET_DC_ENTRIES];    /* IPv4 TX templates */
	struct net_dc6_entry dc6[NET_DC6_ENTRIES]; /* IPv6 TX templates */
	/* Counters: written by the token holder only, read by anyone. */
	uint64_t ctr[EWYK_NET_COUNTER_MAX] __rte_cache_aligned;
} __rte_cache_aligned;

/** Add to a counter of the shard (single writer; relaxed store for readers). */
static inline void
net_ctr_add(struct ewyk_net_shard *s, enum ewyk_net_counter c, uint64_t v)
{
	ewyk_ctr_add(&s->ctr[c], v);
}

/** Count a drop and free the frame. */
static inline void
net_drop(struct ewyk_net_shard *s, struct rte_mbuf *m, enum ewyk_net_counter c)
{
	net_ctr_add(s, c, 1);
	rte_pktmbuf_free(m);
}

/* net_shard.c */
uint16_t net_frame_inbox_drain(struct ewyk_net_shard *s, uint64_t now);

/* net_stats.c */
int net_shard_register(struct ewyk_net_shard *s);
void net_shard_unregister(struct ewyk_net_shard *s);

/* net_output.c */
void net_tx_enqueue(struct ewyk_net_shard *s, uint16_t port,
	struct rte_mbuf *m);
uint16_t net_txb_flush(struct ewyk_net_shard *s, uint16_t p);

/* net_tx_enqueue(), inlined into the template paths of both families'
 * output (net_output.c, net_output6.c): one frame per TCP segment. */
static __rte_always_inline void
net_txb_enqueue(struct ewyk_net_shard *s, uint16_t port, struct rte_mbuf *m)
{
	struct net_txb *b = &s->txb[port];

	if (b->n >= NET_TXB_SIZE && !b->stalled)
		net_txb_flush(s, port);
	if (b->n == NET_TXB_HOLD) {
		/* The queue has been full for NET_TXB_HOLD frames. */
		net_ctr_add(s, EWYK_NET_DROP_TX_FULL, 1);
		rte_pktmbuf_free(m);
		return;
	}
	b->pkts[b->n++] = m;
}
void net_send_l2(struct ewyk_net_shard *s, uint16_t port, struct rte_mbuf *m,
	const struct rte_ether_addr *dst, uint16_t ether_type);

/* net_arp.c */
void net_arp_input(struct ewyk_net_shard *s, uint16_t port, struct rte_mbuf *m,
	bool from_inbox, uint64_t now);
int net_arp_resolve_and_send(struct ewyk_net_shard *s, uint16_t port,
	rte_be32_t nexthop, struct rte_mbuf *m, uint64_t now);
void net_arp_housekeep(struct ewyk_net_shard *s, uint64_t now);
int net_arp_request(struct ewyk_net_shard *s, uint16_t port, rte_be32_t tip);
const struct net_arp_entry *net_arp_reachable(struct ewyk_net_shard *s,
	uint16_t port, rte_be32_t ip);
void net_arp_refresh(struct ewyk_net_shard *s, const struct net_arp_entry *e,
	uint64_t now);
void net_arp_flush(struct ewyk_net_shard *s);

/* net_ipv6.c */
void net_ipv6_input(struct ewyk_net_shard *s, uint16_t port, struct rte_mbuf *m,
	bool from_inbox);
bool net_rate_ok(struct net_rate *r, uint32_t limit, uint32_t dflt,
	uint64_t now);
uint16_t net_cksum6(const struct rte_mbuf *m, uint32_t off, uint32_t len,
	const uint8_t src[16], const uint8_t dst[16], uint8_t proto);
/* Pseudo-header sum of the addresses and next header (RFC 8200 8.1),
 * unfolded to 32 bits: what net_cksum6_psum() takes. */
uint32_t net_ip6_psum(const uint8_t src[16], const uint8_t dst[16],
	uint8_t proto);
/* net_cksum6() with the addresses' part summed before. */
uint16_t net_cksum6_psum(const struct rte_mbuf *m, uint32_t off, uint32_t len,
	uint32_t psum);
/* Two IPv6 addresses equal: two 64-bit compares, no call. */
static inline bool
net_ip6_eq(const uint8_t a[16], const uint8_t b[16])
{
	uint64_t x[2], y[2];

	memcpy(x, a, 16);
	memcpy(y, b, 16);
	return ((x[0] ^ y[0]) | (x[1] ^ y[1])) == 0;
}

/* The index of @a among the port's addresses, or -1. Inline: every IPv6
 * packet asks it of both its addresses. */
static inline int
net_ip6_is_ours(const struct net_port *pt, const uint8_t a[16])
{
	uint8_t i;

	for (i = 0; i < pt->nb_ip6; i++)
		if (net_ip6_eq(pt->ip6[i].a, a))
			return i;
	return -1;
}

bool net_ip6_onlink(const struct net_port *pt, const uint8_t a[16]);
/* The neighbour a unicast @dst is sent to through the port: itself when
 * on-link, else the port's default router; NULL: no route (or a group). */
const uint8_t *net_ip6_nexthop(const struct net_port *pt,
	const uint8_t dst[16]);
const uint8_t *net_ip6_src_for(const struct net_port *pt,
	const uint8_t dst[16]);
void net_ip6_solnode(const uint8_t a[16], uint8_t out[16]);
void net_ip6_mcast_mac(const uint8_t a[16], struct rte_ether_addr *mac);
void net_ip6_hdr_fill(struct rte_ipv6_hdr *ip, uint16_t plen, uint8_t proto,
	uint8_t hlim, const uint8_t src[16], const uint8_t dst[16]);
void net_pmtu_update(struct ewyk_net_shard *s, uint16_t port,
	const uint8_t dst[16], uint32_t mtu, uint64_t now);

/* net_nd.c */
void net_nd_input(struct ewyk_net_shard *s, uint16_t port, struct rte_mbuf *m,
	bool from_inbox, uint32_t off, uint16_t len);
/* The neighbour entry of @ip on @port when REACHABLE before its deadline
 * (what an IPv6 TX template may be built on); NULL otherwise. */
const struct net_nd_entry *net_nd_reachable(struct ewyk_net_shard *s,
	uint16_t port, const uint8_t ip[16], uint64_t now);
int net_nd_resolve_and_send(struct ewyk_net_shard *s, uint16_t port,
	const uint8_t nexthop[16], struct rte_mbuf *m, uint64_t now);
void net_nd_housekeep(struct ewyk_net_shard *s, uint64_t now);
void net_pmtu_housekeep(struct ewyk_net_shard *s, uint64_t now);

/* A lowered path MTU whose time is up is forgotten at once, not at the
 * next housekeeping: the generation moves before anyone uses it (the TX
 * templates, the MSS of TCP). One compare while none is due. */
static inline void
net_pmtu_expire_due(struct ewyk_net_shard *s)
{
	if (unlikely(s->now >= s->pmtu_next))
		net_pmtu_housekeep(s, s->now);
}
int net_nd_announce(struct ewyk_net_shard *s, uint16_t port);
void net_nd_flush(struct ewyk_net_shard *s);
void net_share(struct ewyk_net_shard *s, uint16_t port,
	const struct rte_mbuf *m);

/* net_port.c (hardening, docs/guides/security.md) */
struct rte_eth_stats;
void net_port_stats_poll(struct ewyk_net_shard *s);
void net_port_rx_drops(struct ewyk_net_shard *s, uint16_t port,
	const struct rte_eth_stats *st);

static inline bool
net_ip_is_ours(const struct ewyk_net *net, rte_be32_t dst)
{
	uint16_t i;

	for (i = 0; i < net->nb_ports; i++)
		if (NET_PORT_IP_OURS(&net->ports[i], dst))
			return true;
	return false;
}

/*
 * Sources no host may use (RFC 1122 3.2.1.3, RFC 6890): "this network"
 * 0/8, loopback 127/8, multicast 224/4, reserved 240/4 (with the limited
 * broadcast), our own addresses and the broadcast of the subnet the frame
 * came in on. Replies to them would go to the wrong place or to all; no
 * such address can be a gateway either (ewyk_net_port_set_gw()).
 */
static inline bool
net_ip_src_bad(const struct ewyk_net *net, uint16_t port, rte_be32_t src)
{
	const struct net_port *pt = &net->ports[port];
	uint32_t a = rte_be_to_cpu_32(src);

	if ((a >> 24) == 0 || (a >> 24) == 127 || (a >> 28) >= 0xe)
		return true;
	if (pt->prefix_len <= 30 && (src | pt->mask) == UINT32_MAX)
		return true;
	return net_ip_is_ours(net, src);
}

/* net_input.c */
void net_rx_one(struct ewyk_net_shard *s, uint16_t port, struct rte_mbuf *m,
	bool from_inbox, uint64_t now);

/* net_holder.c: nobody holds the shard (released). */
#define NET_HOLDER_NONE UINT32_MAX
/* Only the holder may call this (debug builds). */
#define NET_ASSERT_HOLDER(s) RTE_ASSERT(ewyk_net_shard_held_here(s))

/* net_inbox.c */
void net_inbox_free(struct ewyk_net_shard *s);

/* net_cksum.c */

/* Fold a one's complement sum of any width to 16 bits (end-around carry):
 * 2^16 = 1 modulo 0xffff, so the lanes of a wider sum add up to the same
 * 16-bit sum, and a nonzero sum never folds to 0. */
static inline uint16_t
net_cksum_fold(uint64_t sum)
{
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* One's complement 64-bit addition: the carry out comes back in. */
static inline uint64_t
net_cksum_add64(uint64_t sum, uint64_t w)
{
	sum += w;
	return sum + (sum < w);
}

/*
 * 16-bit one's complement sum (RFC 1071) of @p len bytes at @p buf, folded;
 * the same value as rte_raw_cksum() (16-bit words in memory order, an odd
 * last byte as the first byte of a word), eight bytes an addition with
 * carry instead of two (DPDK 22.11's loop). Any alignment.
 */
static inline uint16_t
net_cksum_raw(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t sum = 0, w;
	uint32_t w4;
	uint16_t w2;

	while (len >= 32) {
		uint64_t a, b, c, d;

		memcpy(&a, p, 8);
		memcpy(&b, p + 8, 8);
		memcpy(&c, p + 16, 8);
		memcpy(&d, p + 24, 8);
		sum = net_cksum_add64(sum, a);
		sum = net_cksum_add64(sum, b);
		sum = net_cksum_add64(sum, c);
		sum = net_cksum_add64(sum, d);
		p += 32;
		len -= 32;
	}
	while (len >= 8) {
		memcpy(&w, p, 8);
		sum = net_cksum_add64(sum, w);
		p += 8;
		len -= 8;
	}
	/* The tail's words sit at even offsets from buf: same lanes. */
	w = 0;
	if (len & 4) {
		memcpy(&w4, p, 4);
		w += w4;
		p += 4;
	}
	if (len & 2) {
		memcpy(&w2, p, 2);
		w += w2;
		p += 2;
	}
	if (len & 1) {
		w2 = 0;
		*(uint8_t *)&w2 = *p;
		w += w2;
	}
	sum = net_cksum_add64(sum, w);
	return net_cksum_fold(sum);
}

bool net_ipv4_hdr_valid_cksum(const struct rte_ipv4_hdr *ip, uint16_t hlen);
int net_cksum_mbuf(const struct rte_mbuf *m, uint32_t off, uint32_t len,
	uint16_t *cksum);

#endif /* EWYK_NET_PRIVATE_H */
