/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_TCP_H
#define EWYK_TCP_H

/**
 * @file
 * ewyk TCP endpoint, one instance per shard.
 *
 * An @ref ewyk_tcp context holds everything TCP keeps for the flows a
 * shard owns: the connection table (keyed by the 4-tuple), the listeners,
 * the connection objects (from an ewyk pool), the timers (nodes in the
 * shard's timer wheel) and the counters. Only the shard's token holder
 * calls into it; nothing in it is locked.
 *
 * The layer above is driven by events, not POSIX sockets:
 * - a listener's @ref ewyk_tcp_ops.accept is called when a passive open
 *   completes its handshake;
 * - @ref ewyk_tcp_ops.recv hands in-order data over as mbuf chains
 *   (zero-copy: the received buffers themselves, headers stripped). The
 *   receiver tells the endpoint how much it has consumed with
 *   @ref ewyk_tcp_recvd, which reopens the receive window;
 * - @ref ewyk_tcp_send queues mbuf chains for sending; segments reference
 *   them (indirect mbufs) until they are acknowledged;
 * - @ref ewyk_tcp_ops.writable says that send space opened after a send
 *   was refused, @ref ewyk_tcp_ops.eof that the peer sent its FIN, and
 *   @ref ewyk_tcp_ops.closed that the connection is gone.
 *
 * Callbacks run on the shard's lcore, inside @ref ewyk_tcp_input or
 * @ref ewyk_tcp_advance. They may call any function of this API on any
 * connection of the same context, including closing or aborting the
 * connection they were called for.
 *
 * Protocol: RFC 9293 state machine (simultaneous open and close included),
 * RFC 5961 RST/SYN/ACK hardening, RFC 7323 window scaling, timestamps and
 * PAWS, RFC 2018 SACK (generated, and used to choose retransmissions),
 * RFC 6298 retransmission timer, RFC 5681/6582 congestion control with
 * NewReno fast recovery, RFC 4987 SYN cookies, RFC 6528 ISNs. See
 * docs/guides/tcp.md for what is not supported.
 *
 * Both families: IPv4 addresses are rte_be32_t, IPv6 ones 16 bytes, both in
 * network byte order; ports in host order. A wildcard listener takes
 * segments of either family; the functions with a 6 in their name are the
 * IPv6 counterparts of the others.
 *
 * This header includes three more: the counter list
 * (ewyk_tcp_counters.h), the lookups and flow steering (ewyk_tcp_flow.h)
 * and the statistics (ewyk_tcp_stats.h). Users include ewyk_tcp.h only.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "ewyk_net.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ewyk_twheel;

/** One TCP context per shard. */
struct ewyk_tcp;
/** One connection (opaque). */
struct ewyk_tcp_conn;

/** Connection states (RFC 9293 section 3.3.2). */
enum ewyk_tcp_state {
	EWYK_TCP_CLOSED = 0,
	EWYK_TCP_LISTEN,
	EWYK_TCP_SYN_SENT,
	EWYK_TCP_SYN_RECEIVED,
	EWYK_TCP_ESTABLISHED,
	EWYK_TCP_FIN_WAIT_1,
	EWYK_TCP_FIN_WAIT_2,
	EWYK_TCP_CLOSE_WAIT,
	EWYK_TCP_CLOSING,
	EWYK_TCP_LAST_ACK,
	EWYK_TCP_TIME_WAIT,
	EWYK_TCP_STATE_MAX
};

#include "ewyk_tcp_counters.h"

/**
 * Segment output function. The mbuf's data starts at the TCP header
 * (checksum left zero), with headroom for IPv4 and Ethernet. The function
 * owns the mbuf whatever it returns.
 *
 * @param arg
 *   the pointer given in @ref ewyk_tcp_conf.output_arg
 * @param m
 *   the segment
 * @param port
 *   port index to send through
 * @param src
 *   source address
 * @param dst
 *   destination address
 * @return
 *   0 or a negative errno (the segment is counted as sent either way;
 *   TCP recovers from a lost segment).
 */
typedef int (*ewyk_tcp_output_t)(void *arg, struct rte_mbuf *m, uint16_t port,
	rte_be32_t src, rte_be32_t dst);

/**
 * Segment output function of IPv6 connections, as @ref ewyk_tcp_output_t:
 * the checksum is left zero, the headroom holds IPv6 and Ethernet.
 *
 * @param arg  the pointer given in @ref ewyk_tcp_conf.output6_arg
 * @param m    the segment
 * @param port port index to send through
 * @param src  source address (16 bytes)
 * @param dst  destination address (16 bytes)
 * @return 0 or a negative errno (-EMSGSIZE: over the path MTU).
 */
typedef int (*ewyk_tcp_output6_t)(void *arg, struct rte_mbuf *m, uint16_t port,
	const uint8_t src[16], const uint8_t dst[16]);

/**
 * TX state of a port, for back-pressure: the frames the port's TX buffer
 * still takes (as ewyk_net_tx_room()). While it is at most
 * EWYK_TCP_TX_RESERVE the context sends no new data segment on that
 * port: the data stays in the connections' send queues (their senders see
 * the send buffer fill) and goes when the room is back; ACKs, RSTs and
 * handshake segments still go.
 *
 * @param arg  the pointer given in @ref ewyk_tcp_conf.tx_room_arg
 * @param port port index
 * @return frames the port's TX buffer still takes.
 */
typedef uint32_t (*ewyk_tcp_tx_room_t)(void *arg, uint16_t port);

/** Frames of TX room kept for ACKs and control segments: data segments
 *  stop while the room is at most this (@ref ewyk_tcp_tx_room_t). */
#define EWYK_TCP_TX_RESERVE 64

/** Configuration of a per-shard TCP context. A zero field takes its default. */
struct ewyk_tcp_conf {
	/** Shard this context serves; NULL to run without lib/net (unit
	 *  tests, fuzzing): then output and tx_pool are required. */
	struct ewyk_net_shard *shard;
	/** Mempool segments are built from; NULL: the shard's pool. */
	struct rte_mempool *tx_pool;
	/** Output function; NULL: ewyk_net_ip_output on the shard. */
	ewyk_tcp_output_t output;
	void *output_arg; /**< first argument of output */
	/** IPv6 output function; NULL: ewyk_net_ip6_output on the shard
	 *  (without a shard: IPv6 segments are dropped, drop_no_mbuf). */
	ewyk_tcp_output6_t output6;
	void *output6_arg; /**< first argument of output6 */
	/** TX state function (back-pressure); NULL: ewyk_net_tx_room() on the
	 *  shard when output is the shard's too, otherwise none (data is
	 *  never held back). */
	ewyk_tcp_tx_room_t tx_room;
	void *tx_room_arg; /**< first argument of tx_room */
	/** Timer wheel of the shard, shared with the layers above; NULL: the
	 *  context makes its own and @ref ewyk_tcp_advance advances it. */
	struct ewyk_twheel *wheel;
	int socket_id;         /**< NUMA node for memory (SOCKET_ID_ANY ok) */
	uint32_t max_conns;    /**< connection objects; 0 = 16384 */
	uint32_t hash_buckets; /**< table buckets (power of 2); 0 = max_conns */
	uint16_t
		mss; /**< MSS we announce over IPv4; 0 = 1460. Over IPv6, 20 less, and at most the path MTU less 60 */
	uint32_t rcv_buf; /**< receive buffer per connection; 0 = 256 KiB */
	uint32_t snd_buf; /**< send buffer per connection; 0 = 256 KiB */
	uint32_t time_wait_ms; /**< 2MSL; 0 = 60000 */
	uint32_t
		max_time_wait; /**< most connections in TIME_WAIT; beyond, closed at once; 0 = max_conns / 2 */
	uint32_t delack_ms;   /**< delayed-ACK timeout; 0 = 40 */
	bool no_delack;       /**< ACK every segment at once */
	bool no_syncookies;   /**< drop SYNs when a backlog is full */
	bool no_timestamps;   /**< do not offer or accept timestamps */
	bool no_sack;         /**< do not offer or accept SACK */
	bool no_wscale;       /**< do not offer or accept window scaling */
	uint32_t rto_init_ms; /**< initial RTO (RFC 6298: 1 s); 0 = 1000 */
	uint32_t rto_min_ms;  /**< lower bound of the RTO; 0 = 200 */
	uint32_t rto_max_ms;  /**< upper bound of the RTO; 0 = 60000 */
	uint8_t max_retries; /**< RTO expiries in a row before giving up; 0 = 12 */
	uint8_t syn_retries; /**< SYN / SYN-ACK retransmissions; 0 = 5 */
	uint16_t
		ooo_max_segs; /**< out-of-order segments held per conn; 0 = rcv_buf / 512 (64..4096) */
	uint32_t fin_wait2_ms; /**< FIN-WAIT-2 limit once closed; 0 = 60000 */
	uint32_t
		keepalive_ms; /**< idle time before keep-alive probes; 0 = off */
	uint32_t keepalive_intvl_ms; /**< between probes; 0 = 75000 */
	uint8_t keepalive_probes; /**< unanswered probes before reset; 0 = 9 */
	uint32_t
		challenge_ack_limit; /**< challenge ACKs per second (RFC 5961 7); 0 = 1000, UINT32_MAX = no limit */
	uint8_t quickack_segs; /**< segments ACKed at once after open; 0 = 16 */
	bool no_quickack;      /**< no quick-ACK phase after open */
	uint16_t
		ephemeral_lo; /**< first local port of active opens; 0 = 32768 */
	uint16_t
		ephemeral_hi; /**< last local port of active opens; 0 = 60999 */
	uint64_t secret;      /**< ISN/cookie/timestamp secret; 0 = random */
	/* hardening (docs/guides/security.md) */
	uint32_t
		oow_ratelimit_ms; /**< per connection, at most one answer (duplicate ACK, challenge ACK, SYN-ACK) to an out-of-window, PAWS-failing or repeated SYN segment per this; 0 = 500, UINT32_MAX = no limit */
	uint32_t
		idle_timeout_ms; /**< reset a connection nothing arrived on for this long; 0 = off */
	uint32_t
		orphan_timeout_ms; /**< once the application closed: give up FIN_WAIT_1, CLOSING and LAST_ACK after this long, whatever the peer's window; 0 = 60000 */
	uint32_t
		persist_max_ms; /**< give up a connection whose peer's window stayed zero this long while data waits; 0 = 300000, UINT32_MAX = never */
	uint32_t
		max_conns_per_src; /**< connections one peer address may hold (counted per keyed hash bucket); 0 or max_conns and more = no limit */
	uint32_t
		max_conns_per_net6; /**< connections the IPv6 peers of one /64 may hold together (as max_conns_per_src); 0 = max_conns_per_src; max_conns and more = no limit */
	uint32_t
		rst_limit; /**< RSTs a second to segments of no connection; 0 = 1000, UINT32_MAX = no limit */
	uint32_t
		mbuf_budget; /**< mbufs all send, out-of-order and application receive queues may pin (each of the last two at most half); 0 = half the tx_pool */
	uint32_t
		conn_mbuf_max; /**< mbufs one connection's queues (send, out-of-order, application receive) may pin; 0 = mbuf_budget / 16 (at least 64); at most 32767 */
};

/**
 * Events of a connection, to the layer above. Every pointer may be NULL
 * except where noted. @p ctx is the connection's context
 * (@ref ewyk_tcp_conn_set_ctx).
 */
struct ewyk_tcp_ops {
	/**
	 * Passive open completed (listener's ops only). Set the connection's
	 * context here. Return 0 to take the connection, a negative value to
	 * refuse it (a RST is sent). NULL: every connection is refused.
	 */
	int (*accept)(void *listen_arg, struct ewyk_tcp_conn *c);
	/**
	 * Active open finished: @p err is 0 (ESTABLISHED), -ECONNREFUSED
	 * (RST) or -ETIMEDOUT. On error the connection is gone when this
	 * returns (no closed event follows).
	 */
	void (*connected)(void *ctx, struct ewyk_tcp_conn *c, int err);
	/**
	 * In-order data. @p m is a chain holding only payload; ownership
	 * passes. Call @ref ewyk_tcp_recvd for the bytes consumed.
	 */
	void (*recv)(void *ctx, struct ewyk_tcp_conn *c, struct rte_mbuf *m);
	/** The peer's FIN arrived in order: no more data will come. */
	void (*eof)(void *ctx, struct ewyk_tcp_conn *c);
	/** Send space opened after @ref ewyk_tcp_send refused data: at
	 *  least half the send buffer is free again. */
	void (*writable)(void *ctx, struct ewyk_tcp_conn *c);
	/**
	 * The connection is finished and the handle invalid after return:
	 * @p err 0 (both FINs exchanged), -ECONNRESET (peer reset),
	 * -ETIMEDOUT (retries or keep-alive exhausted). Not called once the
	 * application called @ref ewyk_tcp_close or @ref ewyk_tcp_abort.
	 */
	void (*closed)(void *ctx, struct ewyk_tcp_conn *c, int err);
};

/** Arguments of @ref ewyk_tcp_connect. */
struct ewyk_tcp_connect_args {
	rte_be32_t dst_ip;   /**< peer address (IPv4) */
	uint16_t dst_port;   /**< peer port */
	rte_be32_t src_ip;   /**< 0: the address of the port routing to dst */
	bool ipv6;           /**< connect over IPv6: dst_ip6 and src_ip6 */
	uint8_t dst_ip6[16]; /**< peer address (IPv6) */
	uint8_t src_ip6[16]; /**< all zero: the first global address of the
				 port routing to dst (link-local to a
				 link-local dst) */
	uint16_t
		src_port; /**< 0: pick one whose return traffic lands on this shard */
	uint16_t port; /**< port index, used when there is no shard */
	const struct ewyk_tcp_ops
		*ops; /**< events; must outlive the connection */
	void *ctx;    /**< the connection's context */
};

/** What @ref ewyk_tcp_conn_info reports about a connection. */
struct ewyk_tcp_conn_info {
	enum ewyk_tcp_state state;
	rte_be32_t local_ip, remote_ip;        /**< IPv4 (0 over IPv6) */
	bool ipv6;                             /**< the connection is IPv6 */
	uint8_t local_ip6[16], remote_ip6[16]; /**< IPv6 (0 over IPv4) */
	uint16_t local_port, remote_port;
	uint16_t port;    /**< port index */
	uint16_t snd_mss; /**< payload bytes per segment we send */
	uint8_t snd_wscale, rcv_wscale; /**< 0xff: window scaling off */
	bool sack, timestamps;          /**< options in force */
	uint32_t snd_wnd;               /**< peer's window (bytes) */
	uint32_t rcv_wnd;               /**< window we announce now (bytes) */
	uint32_t cwnd, ssthresh;        /**< bytes */
	uint32_t srtt_us, rttvar_us, rto_ms;
	uint32_t in_flight;  /**< bytes sent, not acknowledged */
	uint32_t snd_queued; /**< bytes queued (unsent + in flight) */
	uint32_t ooo_segs;   /**< segments in the out-of-order queue */
	uint32_t app_segs;   /**< buffers the application holds (recv_append) */
	uint32_t retransmits; /**< segments retransmitted */
};

/**
 * Create the TCP context of a shard. With @p conf->shard set, registers
 * its input function for IPPROTO_TCP on the shard.
 *
 * @param conf
 *   configuration (copied)
 * @return
 *   the context, or NULL with rte_errno set: EINVAL (bad
 *   configuration: no shard and no output or tx_pool, bad sizes), ENOMEM,
 *   EEXIST (a context already registered under that shard id).
 */
struct ewyk_tcp *ewyk_tcp_create(const struct ewyk_tcp_conf *conf);

/**
 * Free a context: every connection is dropped silently (no RST, no
 * callback), timers cancelled, memory returned. The shard must not be
 * polled by then.
 *
 * @param t
 *   context; NULL is a no-op
 */
void ewyk_tcp_free(struct ewyk_tcp *t);

/**
 * Listen on a local port.
 *
 * @param t
 *   context
 * @param ip
 *   local address (0: any of ours, IPv4 and IPv6; another: that IPv4
 *   address only; an IPv6 one: @ref ewyk_tcp_listen6)
 * @param port
 *   local port (host order, not 0)
 * @param ops
 *   events of the connections accepted (must outlive them)
 * @param arg
 *   first argument of ops->accept
 * @param backlog
 *   most connections in SYN-RECEIVED at once before SYN
 *   cookies (or drops) take over; 0 = 1024
 * @return
 *   0, -EINVAL (port 0, NULL ops), -EADDRINUSE (already
 *   listening), -ENOSPC (too many listeners).
 */
int ewyk_tcp_listen(struct ewyk_tcp *t, rte_be32_t ip, uint16_t port,
	const struct ewyk_tcp_ops *ops, void *arg, uint32_t backlog);

/**
 * Stop listening. Connections already accepted are not affected;
 * half-open ones of the listener are dropped.
 *
 * @param t
 *   context
 * @param ip
 *   the address given to @ref ewyk_tcp_listen
 * @param port
 *   the port given to @ref ewyk_tcp_listen
 * @return
 *   0 or -ENOENT (no such listener).
 */
int ewyk_tcp_unlisten(struct ewyk_tcp *t, rte_be32_t ip, uint16_t port);

/**
 * Listen on a local port of one IPv6 address: segments to the port on
 * any other address (IPv6 or IPv4) do not reach this listener; they go to
 * a listener on their own address, else to a wildcard listener of the
 * port, else get a RST. A listener on the segment's address goes first.
 *
 * @param t
 *   context
 * @param ip
 *   local IPv6 address (16 bytes, network order), normally one of the
 *   addresses of a port (ewyk_net_port_ip6()); NULL or :: is the wildcard,
 *   as @ref ewyk_tcp_listen with 0
 * @param port
 *   local port (host order, not 0)
 * @param ops
 *   events of the connections accepted (must outlive them)
 * @param arg
 *   first argument of ops->accept
 * @param backlog
 *   as @ref ewyk_tcp_listen
 * @return
 *   0, -EINVAL (port 0, NULL ops, a multicast address), -EADDRINUSE
 *   (already listening there), -ENOSPC (too many listeners).
 */
int ewyk_tcp_listen6(struct ewyk_tcp *t, const uint8_t ip[16], uint16_t port,
	const struct ewyk_tcp_ops *ops, void *arg, uint32_t backlog);

/**
 * Stop a listener of @ref ewyk_tcp_listen6, as @ref ewyk_tcp_unlisten.
 *
 * @param t
 *   context
 * @param ip
 *   the address given to @ref ewyk_tcp_listen6 (NULL or ::: the wildcard)
 * @param port
 *   the port given to @ref ewyk_tcp_listen6
 * @return
 *   0 or -ENOENT (no such listener).
 */
int ewyk_tcp_unlisten6(struct ewyk_tcp *t, const uint8_t ip[16], uint16_t port);

/**
 * Active open: send a SYN. The result comes through ops->connected.
 *
 * @param t
 *   context
 * @param a
 *   arguments
 * @return
 *   the connection, or NULL with rte_errno: EINVAL (bad args),
 *   ENETUNREACH (no route), EADDRINUSE (4-tuple taken), EADDRNOTAVAIL (no
 *   free local port for this shard), ENOMEM (no connection object).
 */
struct ewyk_tcp_conn *ewyk_tcp_connect(struct ewyk_tcp *t,
	const struct ewyk_tcp_connect_args *a);

/**
 * Input function for ewyk_net_l4_register (registered by
 * @ref ewyk_tcp_create when given a shard). Steers segments of another
 * shard's flow to it when the port has no RSS, validates the segment
 * (every bad one dropped and counted) and runs it through the state
 * machine.
 *
 * @param arg
 *   the context
 * @param s
 *   the shard it arrived on
 * @param m
 *   the segment, data at the TCP header; owned by the call
 * @param ip
 *   IPv4 facts
 */
void ewyk_tcp_l4_input(void *arg, struct ewyk_net_shard *s, struct rte_mbuf *m,
	const struct ewyk_net_ip_info *ip);

/**
 * Input function for ewyk_net_l4_register6, as @ref ewyk_tcp_l4_input for
 * IPv6 (registered by @ref ewyk_tcp_create when given a shard).
 *
 * @param arg  the context
 * @param s    the shard it arrived on
 * @param m    the segment, data at the TCP header; owned by the call
 * @param ip   IPv6 facts
 */
void ewyk_tcp_l4_input6(void *arg, struct ewyk_net_shard *s, struct rte_mbuf *m,
	const struct ewyk_net_ip6_info *ip);

/**
 * Process one received segment without lib/net (tests, fuzzing).
 *
 * @param t
 *   context
 * @param m
 *   segment, data at the TCP header, pkt_len the TCP length;
 *   owned by the call
 * @param ip
 *   IPv4 facts (src, dst, port, cksum_good, l4_len)
 */
void ewyk_tcp_input(struct ewyk_tcp *t, struct rte_mbuf *m,
	const struct ewyk_net_ip_info *ip);

/**
 * Process one received IPv6 segment without lib/net (tests, fuzzing).
 *
 * @param t   context
 * @param m   segment, data at the TCP header, pkt_len the TCP length;
 *            owned by the call
 * @param ip  IPv6 facts (src, dst, port, cksum_good)
 */
void ewyk_tcp_input6(struct ewyk_tcp *t, struct rte_mbuf *m,
	const struct ewyk_net_ip6_info *ip);

/**
 * Set the context's clock, resume the connections whose data waited for TX
 * room (back-pressure, @ref ewyk_tcp_tx_room_t) where the room is back, and
 * run every timer due. Call once per loop iteration with the loop's TSC
 * reading; when the wheel is shared (conf.wheel), call it before advancing
 * the wheel.
 *
 * @param t
 *   context
 * @param now
 *   TSC cycles (monotonic)
 * @return
 *   the number of TCP timers that fired.
 */
unsigned int ewyk_tcp_advance(struct ewyk_tcp *t, uint64_t now);

/**
 * Queue data for sending. Segments go out at once as far as the windows
 * allow (no Nagle by default).
 *
 * @param c
 *   connection (ESTABLISHED or CLOSE_WAIT)
 * @param m
 *   chain of payload; on success ownership passes. Every segment
 *   must be a direct or indirect mbuf with its data in place.
 * @return
 *   0; -EAGAIN when the send buffer is full (the caller keeps @p m;
 *   ops->writable follows); -ENOTCONN when the connection cannot send
 *   (not established, or shut down); -EINVAL for an empty chain.
 */
int ewyk_tcp_send(struct ewyk_tcp_conn *c, struct rte_mbuf *m);

/**
 * Room in the send buffer.
 *
 * @param c
 *   connection
 * @return
 *   bytes @ref ewyk_tcp_send would take now; 0 when the connection
 *   cannot send (not established, shut down, closed) or the buffer is full.
 */
uint32_t ewyk_tcp_send_space(const struct ewyk_tcp_conn *c);

/**
 * Tell the endpoint that bytes handed over by ops->recv have been
 * consumed, so the receive window opens again (a window update is sent
 * when it grew by min(rcv_buf / 2, 2 MSS), or at once from a closed
 * window).
 *
 * @param c
 *   connection (NULL or a finished one: no-op)
 * @param len
 *   bytes consumed
 */
void ewyk_tcp_recvd(struct ewyk_tcp_conn *c, uint32_t len);

/**
 * Append data handed over by @ref ewyk_tcp_ops.recv to the chain the
 * application holds for the connection (a request head being parsed, what
 * an echo could not send yet), counting buffers by what they pin: a
 * payload of at most 512 bytes in one buffer is copied into the tailroom
 * of the chain's last buffer when that buffer is the chain's alone
 * (direct, one reference), and its mbuf freed, so 8,000 one-byte segments
 * pin a few buffers, not 8,000. The buffers the chain keeps count in the
 * shard's mbuf budget and the connection's (mbuf_budget, conn_mbuf_max)
 * beside the send and out-of-order queues, until the application gives
 * them back with @ref ewyk_tcp_recv_consume or @ref ewyk_tcp_recv_release,
 * or lets go of the connection (close, abort, closed event). While the
 * application holds buffers of a connection beyond its share, the
 * connection's next in-order segments are not taken (not acknowledged,
 * counted drop_rcv_budget): the peer sends them again later. Nothing that
 * was acknowledged is dropped.
 *
 * @param c
 *   Connection the data came from.
 * @param head
 *   The chain, NULL when empty; updated.
 * @param m
 *   The data; consumed when 0 is returned.
 * @return
 *   0; -EINVAL on a NULL argument; -E2BIG when the chain already holds
 *   the most segments an mbuf chain can: @p m is not consumed, and the
 *   refusal is counted (drop_app_chain). The caller must not drop data
 *   TCP has acknowledged silently: abort the connection.
 */
int ewyk_tcp_recv_append(struct ewyk_tcp_conn *c, struct rte_mbuf **head,
	struct rte_mbuf *m);

/**
 * Consume the first @p len bytes of a chain built by
 * @ref ewyk_tcp_recv_append: the buffers they fill are freed and given
 * back to the budgets, the first one left is trimmed, and
 * @ref ewyk_tcp_recvd(@p c, @p len) opens the receive window by as much.
 *
 * @param c
 *   Connection the chain belongs to (NULL or let go of: the chain is only
 *   trimmed).
 * @param head
 *   The chain; updated (NULL once empty).
 * @param len
 *   Bytes to consume (at most the chain's length).
 * @return
 *   Bytes consumed.
 */
uint32_t ewyk_tcp_recv_consume(struct ewyk_tcp_conn *c, struct rte_mbuf **head,
	uint32_t len);

/**
 * @ref ewyk_tcp_send of buffers taken through @ref ewyk_tcp_recv_append
 * (what an echo sends back): they are counted once, in the send queue
 * when it takes them, as held received data when it refuses them, so
 * that an application holding its share can always send what it holds.
 *
 * @param c
 *   Connection.
 * @param m
 *   Chain cut from the application's received chain.
 * @return
 *   As @ref ewyk_tcp_send; -EINVAL on a NULL argument.
 */
int ewyk_tcp_send_held(struct ewyk_tcp_conn *c, struct rte_mbuf *m);

/**
 * Give back to the budgets buffers taken through
 * @ref ewyk_tcp_recv_append that the application freed or handed on
 * itself (to @ref ewyk_tcp_send, which counts them in the send queue).
 * Call @ref ewyk_tcp_recvd for their bytes as usual.
 *
 * @param c
 *   Connection (NULL or let go of: no-op).
 * @param nsegs
 *   Buffers given back.
 */
void ewyk_tcp_recv_release(struct ewyk_tcp_conn *c, uint32_t nsegs);

/**
 * Close our sending direction: a FIN follows the queued data. Receiving
 * goes on (ESTABLISHED -> FIN_WAIT_1, CLOSE_WAIT -> LAST_ACK).
 *
 * @param c
 *   connection
 * @return
 *   0, or -ENOTCONN if already shut down, closed or not connected.
 */
int ewyk_tcp_shutdown(struct ewyk_tcp_conn *c);

/**
 * Close the connection and let go of the handle: queued data is sent,
 * then a FIN; no more callbacks. Data arriving afterwards resets the
 * connection (as Linux does). In SYN-SENT the connection just goes.
 *
 * @param c
 *   connection (NULL or already closed: no-op)
 */
void ewyk_tcp_close(struct ewyk_tcp_conn *c);

/**
 * Abort: send a RST (if synchronized) and free at once; no callbacks.
 *
 * @param c
 *   connection (NULL or already closed: no-op)
 */
void ewyk_tcp_abort(struct ewyk_tcp_conn *c);

/**
 * Abort every connection of a context, as ewyk_tcp_abort() does (a RST
 * to each synchronized peer, no callback): at shutdown, so that no peer
 * waits for a connection that is gone. The RSTs go out with the shard's
 * next TX flush.
 *
 * @param t
 *   context (NULL: no-op)
 * @return
 *   connections aborted
 */
unsigned int ewyk_tcp_abort_all(struct ewyk_tcp *t);

/**
 * Nagle's algorithm (RFC 9293 3.7.4) on a connection.
 *
 * @param c
 *   connection
 * @param nodelay
 *   true (the default): off; false: on
 */
void ewyk_tcp_set_nodelay(struct ewyk_tcp_conn *c, bool nodelay);

/**
 * Set the connection's context (the @p ctx of its callbacks).
 *
 * @param c
 *   connection
 * @param ctx
 *   anything
 */
void ewyk_tcp_conn_set_ctx(struct ewyk_tcp_conn *c, void *ctx);

/**
 * Set the callbacks of a connection (e.g. in accept, to differ from the
 * listener's).
 *
 * @param c
 *   connection
 * @param ops
 *   events; must outlive the connection
 */
void ewyk_tcp_conn_set_ops(struct ewyk_tcp_conn *c,
	const struct ewyk_tcp_ops *ops);

/**
 * @param c
 *   connection
 * @return
 *   the connection's context (NULL for a NULL @p c).
 */
void *ewyk_tcp_conn_ctx(const struct ewyk_tcp_conn *c);

/**
 * @param c
 *   connection
 * @return
 *   its state (EWYK_TCP_CLOSED for a NULL @p c).
 */
enum ewyk_tcp_state ewyk_tcp_conn_state(const struct ewyk_tcp_conn *c);

/**
 * @param c
 *   connection
 * @return
 *   the context it belongs to (NULL for a NULL @p c).
 */
struct ewyk_tcp *ewyk_tcp_conn_tcp(const struct ewyk_tcp_conn *c);

/**
 * Snapshot of a connection (tests, debugging, telemetry of the layers
 * above).
 *
 * @param c
 *   connection
 * @param info
 *   filled in (left alone when either is NULL)
 */
void ewyk_tcp_conn_info(const struct ewyk_tcp_conn *c,
	struct ewyk_tcp_conn_info *info);

/**
 * The connection's addresses alone: of @p info, only state, ipv6,
 * local_ip/remote_ip, local_ip6/remote_ip6, local_port/remote_port and
 * port are written (the address fields of the other family zeroed), the
 * rest left as it was. What an accept needs of ewyk_tcp_conn_info(), at a
 * fraction of its cost.
 *
 * @param c
 *   connection
 * @param info
 *   partly filled in (left alone when either is NULL)
 */
void ewyk_tcp_conn_addrs(const struct ewyk_tcp_conn *c,
	struct ewyk_tcp_conn_info *info);

#ifdef __cplusplus
}
#endif

/* The lookups and the statistics, declared in their own headers. */
#include "ewyk_tcp_flow.h"
#include "ewyk_tcp_stats.h"

#endif /* EWYK_TCP_H */
