/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_TCP_COUNTERS_H
#define EWYK_TCP_COUNTERS_H

/**
 * @file
 * lib/tcp's per-shard counters (part of ewyk_tcp.h, which includes it:
 * include ewyk_tcp.h). Read with ewyk_tcp_counter_get(),
 * ewyk_tcp_counter_sum() and ewyk_tcp_counter_name() (ewyk_tcp_stats.h).
 */

/**
 * Per-shard counters, declared once. Each entry X(SYM, name, type, help)
 * gives the enum value EWYK_TCP_<SYM>, the name <name> (telemetry key,
 * @ref ewyk_tcp_counter_name, Prometheus metric ewyk_tcp_<name>_total),
 * its type (every one is a COUNTER: it only grows) and its help text.
 * Every dropped segment increments exactly one EWYK_TCP_DROP_* counter.
 */
#define EWYK_TCP_COUNTERS(X)                                                      \
	X(SEG_IN, seg_in, COUNTER, "Segments received (valid or not)")            \
	X(SEG_OUT, seg_out, COUNTER, "Segments sent")                             \
	X(BYTES_IN, bytes_in, COUNTER, "Payload bytes accepted in order")         \
	X(BYTES_OUT, bytes_out, COUNTER,                                          \
		"Payload bytes sent (retransmissions included)")                  \
	X(RETRANS_SEGS, retrans_segs, COUNTER,                                    \
		"Segments retransmitted (any reason)")                            \
	X(RETRANS_BYTES, retrans_bytes, COUNTER,                                  \
		"Payload bytes retransmitted")                                    \
	X(FAST_RETRANS, fast_retrans, COUNTER,                                    \
		"Fast retransmits (entries into recovery)")                       \
	X(SACK_RETRANS, sack_retrans, COUNTER,                                    \
		"Holes retransmitted as chosen by SACK")                          \
	X(PARTIAL_ACKS, partial_acks, COUNTER, "NewReno partial ACKs")            \
	X(LOST_RETRANS, lost_retrans, COUNTER,                                    \
		"Retransmissions found lost and sent again")                      \
	X(RTO, rto, COUNTER, "Retransmission timeouts")                           \
	X(TLP_PROBES, tlp_probes, COUNTER,                                        \
		"Tail loss probes sent (RFC 8985 section 7)")                     \
	X(SYN_RETRANS, syn_retrans, COUNTER, "SYN or SYN-ACK retransmissions")    \
	X(DUPACKS_IN, dupacks_in, COUNTER, "Duplicate ACKs received")             \
	X(SACK_BLOCKS_IN, sack_blocks_in, COUNTER,                                \
		"Valid SACK blocks received")                                     \
	X(SACK_BLOCKS_OUT, sack_blocks_out, COUNTER, "SACK blocks sent")          \
	X(OOO_QUEUED, ooo_queued, COUNTER, "Out-of-order segments queued")        \
	X(PERSIST_PROBES, persist_probes, COUNTER, "Zero-window probes sent")     \
	X(KEEPALIVE_PROBES, keepalive_probes, COUNTER,                            \
		"Keep-alive probes sent")                                         \
	X(DELAYED_ACKS, delayed_acks, COUNTER,                                    \
		"ACKs sent by the delayed-ACK timer")                             \
	X(QUICK_ACKS, quick_acks, COUNTER,                                        \
		"ACKs sent at once (every 2nd segment, OOO, FIN, ...)")           \
	X(WINDOW_UPDATES, window_updates, COUNTER, "Pure window updates sent")    \
	X(CHALLENGE_ACKS, challenge_acks, COUNTER,                                \
		"RFC 5961 challenge ACKs sent")                                   \
	X(CHALLENGE_LIMITED, challenge_limited, COUNTER,                          \
		"Challenge ACKs not sent: over the rate limit")                   \
	X(RST_IN, rst_in, COUNTER,                                                \
		"Acceptable RSTs received (connection reset)")                    \
	X(RST_OUT, rst_out, COUNTER, "RSTs sent")                                 \
	X(SYNCOOKIES_SENT, syncookies_sent, COUNTER,                              \
		"SYN-ACKs carrying a cookie")                                     \
	X(SYNCOOKIES_OK, syncookies_ok, COUNTER,                                  \
		"Connections created from a valid cookie")                        \
	X(PASSIVE_OPENS, passive_opens, COUNTER,                                  \
		"SYNs accepted by a listener")                                    \
	X(ACTIVE_OPENS, active_opens, COUNTER, "Connects started")                \
	X(ESTABLISHED_CONNS, established, COUNTER,                                \
		"Connections that reached ESTABLISHED")                           \
	X(CONN_CLOSED, conn_closed, COUNTER,                                      \
		"Connections freed after an orderly close")                       \
	X(CONN_RESET, conn_reset, COUNTER, "Connections reset by the peer")       \
	X(CONN_ABORTED, conn_aborted, COUNTER,                                    \
		"Connections aborted by the application")                         \
	X(CONN_TIMEOUT, conn_timeout, COUNTER,                                    \
		"Connections dropped after too many retries")                     \
	X(TW_REUSE, tw_reuse, COUNTER,                                            \
		"TIME_WAIT connections reused by a new SYN")                      \
	X(TW_OVERFLOW, tw_overflow, COUNTER,                                      \
		"Connections closed without TIME_WAIT (max_time_wait)")           \
	X(SEND_REFUSED, send_refused, COUNTER,                                    \
		"Ewyk_tcp_send refused for lack of space")                        \
	X(TX_BLOCKED, tx_blocked, COUNTER,                                        \
		"Times data was held back in a send queue: the port's TX "        \
		"buffer was full (back-pressure)")                                \
	X(TX_RESUMED, tx_resumed, COUNTER,                                        \
		"Connections sent again once the port's TX room came back")       \
	X(TX_DEFERRED, tx_deferred, COUNTER,                                      \
		"Timer sends (RTO retransmission, loss, persist or keep-alive "   \
		"probe) held back by a full TX: sent when the room came back "    \
		"or at the next timer")                                           \
	X(OOW_LIMITED, oow_limited, COUNTER,                                      \
		"Answers to out-of-window/PAWS/SYN segments not sent: over "      \
		"the per-connection rate (oow_ratelimit_ms)")                     \
	X(IDLE_TIMEOUT, idle_timeout, COUNTER,                                    \
		"Connections reset: nothing arrived for idle_timeout_ms")         \
	X(ORPHAN_TIMEOUT, orphan_timeout, COUNTER,                                \
		"Connections the application closed, given up after "             \
		"orphan_timeout_ms")                                              \
	X(PERSIST_TIMEOUT, persist_timeout, COUNTER,                              \
		"Connections given up: the peer's window stayed zero "            \
		"persist_max_ms")                                                 \
	X(RST_LIMITED, rst_limited, COUNTER,                                      \
		"RSTs to segments of no connection not sent: over rst_limit "     \
		"a second")                                                       \
	X(SEND_COALESCED, send_coalesced, COUNTER,                                \
		"Small sends copied into the send queue's last buffer")           \
	X(RECV_COALESCED, recv_coalesced, COUNTER,                                \
		"Small received segments copied into the last buffer of an "      \
		"application's chain (ewyk_tcp_recv_append)")                     \
	X(OOO_COALESCED, ooo_coalesced, COUNTER,                                  \
		"Small out-of-order segments copied into the queued segment "     \
		"they follow")                                                    \
	/* drops, one reason each */                                              \
	X(DROP_SHORT, drop_short, COUNTER, "Shorter than a TCP header")           \
	X(DROP_DOFF, drop_doff, COUNTER,                                          \
		"Data offset < 5 or beyond the segment")                          \
	X(DROP_CKSUM, drop_cksum, COUNTER, "Bad checksum")                        \
	X(DROP_OPTIONS, drop_options, COUNTER,                                    \
		"Malformed or truncated options")                                 \
	X(DROP_FLAGS, drop_flags, COUNTER,                                        \
		"Flag combination that makes no sense")                           \
	X(DROP_PORT, drop_port, COUNTER, "Source or destination port zero")       \
	X(DROP_NO_LISTENER, drop_no_listener, COUNTER,                            \
		"No connection or listener (RST sent)")                           \
	X(DROP_OUT_OF_WINDOW, drop_out_of_window, COUNTER,                        \
		"Sequence not acceptable (ACK sent)")                             \
	X(DROP_PAWS, drop_paws, COUNTER, "Rejected by PAWS (ACK sent)")           \
	X(DROP_BAD_ACK, drop_bad_ack, COUNTER,                                    \
		"ACK of unsent data or too old")                                  \
	X(DROP_NO_ACK, drop_no_ack, COUNTER,                                      \
		"No ACK flag in a synchronized state")                            \
	X(DROP_RST, drop_rst, COUNTER,                                            \
		"RST not exactly at RCV.NXT, or unacceptable")                    \
	X(DROP_SYN, drop_syn, COUNTER,                                            \
		"SYN in a synchronized state (challenged)")                       \
	X(DROP_STATE, drop_state, COUNTER,                                        \
		"Nothing to do with it in this state")                            \
	X(DROP_OOO_FULL, drop_ooo_full, COUNTER, "Out-of-order queue full")       \
	X(DROP_BACKLOG, drop_backlog, COUNTER,                                    \
		"SYN dropped: backlog full, no cookies")                          \
	X(DROP_COOKIE, drop_cookie, COUNTER,                                      \
		"ACK with an invalid or stale cookie")                            \
	X(DROP_NO_CONN_MEM, drop_no_conn_mem, COUNTER,                            \
		"Connection pool empty")                                          \
	X(DROP_NO_MBUF, drop_no_mbuf, COUNTER,                                    \
		"Mbuf pool empty when building a segment")                        \
	X(DROP_STEERED, drop_steered, COUNTER,                                    \
		"Belongs to another shard that cannot be reached (no such "       \
		"shard, no headroom); a full inbox is lib/net's drop_inbox_full") \
	X(DROP_NO_TS, drop_no_ts, COUNTER,                                        \
		"No timestamp on a timestamp connection (RFC 7323 3.2)")          \
	X(DROP_SRC_LIMIT, drop_src_limit, COUNTER,                                \
		"Passive opens refused: the source holds max_conns_per_src")      \
	X(DROP_AFTER_FIN, drop_after_fin, COUNTER,                                \
		"Data or FIN past the peer's FIN, freed")                         \
	X(DROP_OOO_BUDGET, drop_ooo_budget, COUNTER,                              \
		"Out-of-order segment: connection or context over its mbuf "      \
		"budget")                                                         \
	X(DROP_APP_CHAIN, drop_app_chain, COUNTER,                                \
		"ewyk_tcp_recv_append refused: the application's chain holds "    \
		"the most segments an mbuf chain can")                            \
	X(DROP_RCV_BUDGET, drop_rcv_budget, COUNTER,                              \
		"In-order data not taken (not acknowledged): the application "    \
		"holds the connection's or the shard's share of the mbuf budget") \
	X(DROP_MCAST, drop_mcast, COUNTER,                                        \
		"Segment to an IPv6 multicast address (never answered)")

/** Per-shard counters: one per entry of EWYK_TCP_COUNTERS, in its order. */
enum ewyk_tcp_counter {
#define EWYK_TCP_COUNTER_ENUM(sym, name, type, help) EWYK_TCP_##sym,
	EWYK_TCP_COUNTERS(EWYK_TCP_COUNTER_ENUM)
#undef EWYK_TCP_COUNTER_ENUM
		EWYK_TCP_COUNTER_MAX /**< number of counters */
};

/** First drop counter; every counter from here on is a drop reason. */
#define EWYK_TCP_DROP_FIRST EWYK_TCP_DROP_SHORT

#endif /* EWYK_TCP_COUNTERS_H */
