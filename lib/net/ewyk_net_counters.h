/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_NET_COUNTERS_H
#define EWYK_NET_COUNTERS_H

/**
 * @file
 * lib/net's per-shard counters (part of ewyk_net.h, which includes it:
 * include ewyk_net.h). Read with ewyk_net_counter_get(),
 * ewyk_net_counter_sum() and ewyk_net_counter_name().
 */

/**
 * Per-shard counters, declared once. Each entry X(SYM, name, type, help)
 * gives the enum value EWYK_NET_<SYM>, the name <name> (telemetry key,
 * @ref ewyk_net_counter_name, Prometheus metric ewyk_net_<name>_total),
 * its type (every one is a COUNTER: it only grows) and its help text.
 * Every drop has its own counter.
 */
#define EWYK_NET_COUNTERS(X)                                                      \
	X(RX_PKTS, rx_pkts, COUNTER, "Frames received")                           \
	X(RX_BYTES, rx_bytes, COUNTER, "Bytes received (frame length)")           \
	X(TX_PKTS, tx_pkts, COUNTER, "Frames handed to the PMD and accepted")     \
	X(TX_BYTES, tx_bytes, COUNTER, "Bytes accepted by the PMD")               \
	X(TX_HELD, tx_held, COUNTER,                                              \
		"Frames the PMD's full queue refused, held for a later burst")    \
	X(ARP_RX, arp_rx, COUNTER, "Valid ARP packets received")                  \
	X(ARP_REPLY_TX, arp_reply_tx, COUNTER,                                    \
		"ARP replies sent for our addresses")                             \
	X(ARP_REQ_TX, arp_req_tx, COUNTER,                                        \
		"ARP requests sent (resolution, gratuitous)")                     \
	X(ARP_LEARNT, arp_learnt, COUNTER,                                        \
		"ARP cache entries created or refreshed")                         \
	X(ICMP_ECHO_RX, icmp_echo_rx, COUNTER, "Echo requests answered")          \
	X(IP_OPTIONS, ip_options, COUNTER,                                        \
		"IPv4 packets with options (skipped, not dropped)")               \
	X(L4_DELIVERED, l4_delivered, COUNTER,                                    \
		"IPv4 and IPv6 payloads handed to an L4 handler")                 \
	X(INBOX_RX, inbox_rx, COUNTER, "Frames taken from this shard's inbox")    \
	X(IP6_RX, ip6_rx, COUNTER, "Valid IPv6 packets for us")                   \
	X(IP6_EXT, ip6_ext, COUNTER,                                              \
		"IPv6 extension headers walked over (not dropped)")               \
	X(ICMP6_ECHO_RX, icmp6_echo_rx, COUNTER,                                  \
		"ICMPv6 echo requests answered")                                  \
	X(ICMP6_ERR_TX, icmp6_err_tx, COUNTER,                                    \
		"ICMPv6 errors sent (unreachable, parameter problem)")            \
	X(ICMP6_ERR_LIMITED, icmp6_err_limited, COUNTER,                          \
		"ICMPv6 errors not sent: over icmp6_err_limit")                   \
	X(ICMP6_PTB_RX, icmp6_ptb_rx, COUNTER,                                    \
		"Packet too big taken: a path MTU lowered")                       \
	X(ND_NS_RX, nd_solicit_rx, COUNTER,                                       \
		"Valid neighbour solicitations received")                         \
	X(ND_NA_RX, nd_advert_rx, COUNTER,                                        \
		"Valid neighbour advertisements received")                        \
	X(ND_NS_TX, nd_solicit_tx, COUNTER,                                       \
		"Neighbour solicitations sent (resolution, NUD probes, DAD)")     \
	X(ND_NA_TX, nd_advert_tx, COUNTER,                                        \
		"Neighbour advertisements sent (answers, unsolicited)")           \
	X(ND_TX_LIMITED, nd_tx_limited, COUNTER,                                  \
		"NS/NA not sent: over nd_tx_limit")                               \
	X(ND_LEARNT, nd_learnt, COUNTER,                                          \
		"Neighbour cache entries created or updated")                     \
	X(ND_DAD_CONFLICT, nd_dad_conflict, COUNTER,                              \
		"Another node claims one of our IPv6 addresses")                  \
	/* drops, one reason each */                                              \
	X(DROP_RUNT, drop_runt, COUNTER,                                          \
		"Frame shorter than an Ethernet header")                          \
	X(DROP_NOT_OURS, drop_not_ours, COUNTER, "Unicast to another MAC")        \
	X(DROP_MULTICAST, drop_multicast, COUNTER,                                \
		"Multicast (non-broadcast) destination")                          \
	X(DROP_VLAN, drop_vlan, COUNTER,                                          \
		"VLAN tag not configured on the port")                            \
	X(DROP_ETHERTYPE, drop_ethertype, COUNTER,                                \
		"EtherType we do not speak (LLDP..., IPv6 without address)")      \
	X(DROP_ARP_MALFORMED, drop_arp_malformed, COUNTER,                        \
		"Truncated ARP, wrong hw/proto type or sizes")                    \
	X(DROP_ARP_NOT_OURS, drop_arp_not_ours, COUNTER,                          \
		"ARP request for another host's address")                         \
	X(DROP_ARP_OP, drop_arp_op, COUNTER,                                      \
		"ARP opcode other than request/reply")                            \
	X(DROP_IP_TRUNCATED, drop_ip_truncated, COUNTER,                          \
		"Shorter than a minimal IPv4 header")                             \
	X(DROP_IP_VERSION, drop_ip_version, COUNTER, "Version field not 4")       \
	X(DROP_IP_IHL, drop_ip_ihl, COUNTER,                                      \
		"IHL below 5 or header beyond the frame")                         \
	X(DROP_IP_LEN, drop_ip_len, COUNTER,                                      \
		"Total length beyond the frame or below IHL")                     \
	X(DROP_IP_CKSUM, drop_ip_cksum, COUNTER, "Bad IPv4 header checksum")      \
	X(DROP_IP_TTL, drop_ip_ttl, COUNTER, "TTL zero")                          \
	X(DROP_IP_FRAG, drop_ip_frag, COUNTER, "Fragment (no reassembly yet)")    \
	X(DROP_IP_NOT_OURS, drop_ip_not_ours, COUNTER,                            \
		"Destination not one of our addresses")                           \
	X(DROP_IP_SRC, drop_ip_src, COUNTER,                                      \
		"Source is ours, a subnet broadcast, 0/8, 127/8, 224/4 or 240/4") \
	X(DROP_IP_PROTO, drop_ip_proto, COUNTER,                                  \
		"No handler for the protocol")                                    \
	X(DROP_ICMP_TRUNCATED, drop_icmp_truncated, COUNTER,                      \
		"ICMP shorter than its header")                                   \
	X(DROP_ICMP_CKSUM, drop_icmp_cksum, COUNTER, "Bad ICMP checksum")         \
	X(DROP_ICMP_TYPE, drop_icmp_type, COUNTER,                                \
		"ICMP type we do not answer")                                     \
	X(DROP_NO_ROUTE, drop_no_route, COUNTER,                                  \
		"Destination off every subnet, no default gateway")               \
	X(DROP_ARP_QUEUE, drop_arp_queue, COUNTER,                                \
		"Waiting-for-ARP queue full")                                     \
	X(DROP_ARP_UNRESOLVED, drop_arp_unresolved, COUNTER,                      \
		"ARP never answered: queued frames freed")                        \
	X(DROP_NO_MBUF, drop_no_mbuf, COUNTER,                                    \
		"Mbuf pool empty when building a frame")                          \
	X(DROP_TX_FULL, drop_tx_full, COUNTER,                                    \
		"PMD TX queue full and the port's TX buffer too")                 \
	X(DROP_INBOX_FULL, drop_inbox_full, COUNTER,                              \
		"Another shard's inbox full")                                     \
	X(DROP_TOO_BIG, drop_too_big, COUNTER,                                    \
		"Frame to send larger than the MTU")                              \
	X(DROP_ICMP_SRC, drop_icmp_src, COUNTER,                                  \
		"Echo request from a broadcast or multicast Ethernet source")     \
	X(DROP_RX_NOMBUF, drop_rx_nombuf, COUNTER,                                \
		"The NIC had no mbuf to receive into (rx_nombuf, on shard 0)")    \
	X(DROP_RX_MISSED, drop_rx_missed, COUNTER,                                \
		"The NIC's RX queue overran (imissed, on shard 0)")               \
	X(DROP_ARP_LIMITED, drop_arp_limited, COUNTER,                            \
		"Frame not sent: new ARP resolutions over the per-second limit")  \
	X(DROP_IP6_TRUNCATED, drop_ip6_truncated, COUNTER,                        \
		"Shorter than an IPv6 header")                                    \
	X(DROP_IP6_VERSION, drop_ip6_version, COUNTER, "Version field not 6")     \
	X(DROP_IP6_LEN, drop_ip6_len, COUNTER,                                    \
		"IPv6 payload length beyond the frame")                           \
	X(DROP_IP6_HLIM, drop_ip6_hlim, COUNTER, "IPv6 hop limit zero")           \
	X(DROP_IP6_SRC, drop_ip6_src, COUNTER,                                    \
		"IPv6 source multicast, loopback, ours, or :: outside DAD")       \
	X(DROP_IP6_NOT_OURS, drop_ip6_not_ours, COUNTER,                          \
		"IPv6 destination not one of our addresses or groups")            \
	X(DROP_IP6_EXT, drop_ip6_ext, COUNTER,                                    \
		"Extension header truncated, out of place, or option: drop")      \
	X(DROP_IP6_EXT_LIMIT, drop_ip6_ext_limit, COUNTER,                        \
		"More extension headers than the walk takes")                     \
	X(DROP_IP6_RH, drop_ip6_rh, COUNTER,                                      \
		"Routing header with segments left (type 0 included)")            \
	X(DROP_IP6_FRAG, drop_ip6_frag, COUNTER,                                  \
		"IPv6 fragment header (no reassembly)")                           \
	X(DROP_IP6_PROTO, drop_ip6_proto, COUNTER,                                \
		"No IPv6 handler for the next header")                            \
	X(DROP_IP6_NONXT, drop_ip6_nonxt, COUNTER, "No next header (59)")         \
	X(DROP_ICMP6_TRUNCATED, drop_icmp6_truncated, COUNTER,                    \
		"ICMPv6 shorter than its header")                                 \
	X(DROP_ICMP6_CKSUM, drop_icmp6_cksum, COUNTER, "Bad ICMPv6 checksum")     \
	X(DROP_ICMP6_TYPE, drop_icmp6_type, COUNTER,                              \
		"ICMPv6 type not taken (RA, redirect, MLD, replies, errors)")     \
	X(DROP_ICMP6_SRC, drop_icmp6_src, COUNTER,                                \
		"Echo request to a group or from a multicast Ethernet source")    \
	X(DROP_ICMP6_PTB, drop_icmp6_ptb, COUNTER,                                \
		"Packet too big not about our packet or not lowering it")         \
	X(DROP_ND_INVALID, drop_nd_invalid, COUNTER,                              \
		"ND message failing RFC 4861 validation")                         \
	X(DROP_ND_NOT_OURS, drop_nd_not_ours, COUNTER,                            \
		"Neighbour solicitation for another target")                      \
	X(DROP_ND_QUEUE, drop_nd_queue, COUNTER, "Waiting-for-ND queue full")     \
	X(DROP_ND_UNRESOLVED, drop_nd_unresolved, COUNTER,                        \
		"ND never answered: queued frames freed")                         \
	X(DROP_ND_LIMITED, drop_nd_limited, COUNTER,                              \
		"Frame not sent: new ND resolutions over the per-second limit")   \
	X(DROP_ND_LOOP, drop_nd_loop, COUNTER,                                    \
		"ND message from our own MAC (our multicast looped back)")

/** Per-shard counters: one per entry of EWYK_NET_COUNTERS, in its order. */
enum ewyk_net_counter {
#define EWYK_NET_COUNTER_ENUM(sym, name, type, help) EWYK_NET_##sym,
	EWYK_NET_COUNTERS(EWYK_NET_COUNTER_ENUM)
#undef EWYK_NET_COUNTER_ENUM
		EWYK_NET_COUNTER_MAX /**< number of counters */
};

/** First drop counter; every counter from here on is a drop reason. */
#define EWYK_NET_DROP_FIRST EWYK_NET_DROP_RUNT

#endif /* EWYK_NET_COUNTERS_H */
