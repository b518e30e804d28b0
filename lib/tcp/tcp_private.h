/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_TCP_PRIVATE_H
#define EWYK_TCP_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_tcp.h>

#include <ewyk_ctr.h>

#include "ewyk_tcp.h"
#include "ewyk_twheel.h"
#include "ewyk_pool.h"

extern int ewyk_tcp_logtype;
#define TCP_LOG(level, fmt, ...)                                     \
	rte_log(RTE_LOG_##level, ewyk_tcp_logtype, "TCP: " fmt "\n", \
		##__VA_ARGS__)

/* Sequence-space comparisons (RFC 9293 section 3.4). */
#define SEQ_LT(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) < 0)
#define SEQ_LEQ(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) <= 0)
#define SEQ_GT(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) > 0)
#define SEQ_GEQ(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) >= 0)
#define SEQ_MAX(a, b) (SEQ_GT(a, b) ? (a) : (b))
#define SEQ_MIN(a, b) (SEQ_LT(a, b) ? (a) : (b))

/* TCP flags. */
#define TH_FIN RTE_TCP_FIN_FLAG
#define TH_SYN RTE_TCP_SYN_FLAG
#define TH_RST RTE_TCP_RST_FLAG
#define TH_PSH RTE_TCP_PSH_FLAG
#define TH_ACK RTE_TCP_ACK_FLAG
#define TH_URG RTE_TCP_URG_FLAG

/* Option kinds (RFC 9293, 7323, 2018). */
#define TCPOPT_EOL 0
#define TCPOPT_NOP 1
#define TCPOPT_MSS 2
#define TCPOPT_WS 3
#define TCPOPT_SACK_PERM 4
#define TCPOPT_SACK 5
#define TCPOPT_TS 8

#define TCP_HDR_LEN 20
#define TCP_MAX_OPT_LEN 40
#define TCP_TS_OPT_LEN 12 /* NOP NOP TS, aligned */
#define TCP_MAX_WSCALE 14
#define TCP_DEFAULT_MSS 536 /* when the peer sends no MSS option */
#define TCP_MIN_MSS 64      /* smaller announced MSS values are raised */
#define TCP_MAX_LISTENERS 16
#define TCP_SACK_MAX 6     /* SACK scoreboard blocks kept */
#define TCP_SACK_OUT_MAX 4 /* SACK blocks we send (3 with timestamps) */
#define TCP_COPY_MAX 256   /* payloads up to this are copied, not referenced */
#define TCP_MAX_PIECES 16  /* referenced buffers per segment */
#define TCP_HDR_ROOM 64 /* headroom kept for IPv6 or IPv4 + Ethernet + VLAN */
#define TCP_IP4_OVERHEAD 40    /* IPv4 + TCP headers: MTU - this = MSS */
#define TCP_IP6_OVERHEAD 60    /* IPv6 + TCP headers */
#define TCP_COOKIE_PERIOD_S 64 /* SYN cookie time slot */
#define TCP_COALESCE_MAX 512   /* sends up to this are copied (pin less) */
#define TCP_SEND_MIN_MBUFS 4   /* an empty send queue may take, budget spent */
#define TCP_TW_ISS_GAP 131072  /* new ISS above the TIME_WAIT's SND.NXT */
/*
 * How far (in the peer's timestamp ticks, 1 ms for Linux) a segment's TSval
 * may lag TS.Recent before PAWS rejects it. RFC 7323 says 0, Linux 1; a
 * path that reorders by a few milliseconds then loses good segments. PAWS
 * is there against old duplicates from a previous wrap of the sequence
 * space, which 50 ms cannot be below ~340 Gbit/s.
 */
#define TCP_PAWS_WINDOW 50
#define TCP_MAX_PROBES_BACKOFF 6 /* persist/keepalive backoff cap (x64) */
#define TCP_TLP_MIN_US 10000     /* shortest probe timeout */
#define TCP_TLP_DELACK_US 200000 /* WCDelAckT of RFC 8985 */

/* What the rtx timer of a connection is doing. */
enum tcp_rtx_kind {
	TCP_RTX_NONE = 0,
	TCP_RTX_RTO,     /* retransmission (data, SYN, SYN-ACK, FIN) */
	TCP_RTX_PERSIST, /* zero-window probe */
	TCP_RTX_TLP,     /* tail loss probe (RFC 8985 section 7) */
};

/* What the misc timer of a connection is doing. */
enum tcp_misc_kind {
	TCP_MISC_NONE = 0,
	TCP_MISC_TIME_WAIT,
	TCP_MISC_FIN_WAIT_2,
	TCP_MISC_KEEPALIVE,
};

/*
 * An address of either family. The family is a tag beside it (the
 * connection's v6 bit, tcp_ip.v6): an IPv4 address is in v4 with the
 * other twelve bytes zero, an IPv6 one in b. docs/guides/tcp.md says why
 * not v4-mapped addresses: the IPv4 paths keep their 32-bit compares and
 * their 12-byte hashes.
 */
union tcp_addr {
	rte_be32_t v4;
	uint8_t b[16];
	uint64_t q[2];
};

/** What TCP needs of the IP header of a segment, in either family. */
struct tcp_ip {
	union tcp_addr src, dst;
	uint16_t port;   /* port index */
	bool v6;         /* family of src and dst */
	bool cksum_good; /* the NIC verified the checksum */
};

/*
 * What the input path has already computed of a segment that may open a
 * connection, so that the open does not compute it again: the tuple's
 * bucket hash (from the lookup that found no connection) and the
 * per-source counts tcp_src_full() looked at.
 */
struct tcp_open_hint {
	uint32_t hash; /* tcp_hash() or tcp_hash6() of the tuple */
	bool src_set;  /* src and net6 are filled (tcp_src_full() ran) */
	uint32_t src;  /* the source's bucket in src_cnt (TCP_SRC_NONE: none) */
	uint32_t net6; /* an IPv6 source's /64 bucket (TCP_SRC_NONE: none) */
};

#define TCP_SRC_NONE UINT32_MAX

/* The per-source buckets a connection is counted in (src_counted), kept
 * beside the connection object (by pool index), not in it: it stays 512
 * bytes. */
struct tcp_src_ref {
	uint32_t src, net6;
};

static inline bool
tcp_addr_eq6(const union tcp_addr *a, const union tcp_addr *b)
{
	return a->q[0] == b->q[0] && a->q[1] == b->q[1];
}

/** Options parsed from a segment. */
struct tcp_opts {
	uint8_t has_mss : 1, has_ws : 1, sack_perm : 1, has_ts : 1;
	uint8_t ws;
	uint8_t nsack;
	uint16_t mss;
	uint32_t tsval, tsecr;
	uint32_t sack[4][2]; /* host order [start, end) */
};

/** A parsed, validated segment. */
struct tcp_seg {
	uint32_t seq, ack;
	uint32_t len;          /* payload bytes */
	uint32_t wnd;          /* raw window field */
	uint16_t sport, dport; /* host order */
	uint8_t flags;
	uint8_t hlen;  /* header + options bytes */
	uint32_t hash; /* tcp_hash() or tcp_hash6() of the tuple */
	struct tcp_opts o;
};

/** Per-mbuf metadata in a dynamic field (out-of-order queue). */
struct tcp_mbuf_meta {
	struct rte_mbuf *qnext; /* next segment in the OOO queue */
	uint32_t seq;           /* first byte */
	uint32_t len;           /* payload bytes */
};

/** A SACK block, host order, [start, end). */
struct tcp_sack_blk {
	uint32_t start, end;
};

/* Links of the TX wait set, by connection pool index. */
struct tcp_txw_link {
	uint32_t next, prev;
};
#define TCP_TXW_NONE UINT32_MAX

struct tcp_listener {
	rte_be32_t ip;      /* 0 and !v6: any address of either family */
	bool v6;            /* ip6 only (ewyk_tcp_listen6()) */
	uint16_t port;      /* 0: free slot */
	union tcp_addr ip6; /* v6: the IPv6 address */
	uint32_t backlog;
	uint32_t syn_count;  /* connections in SYN-RECEIVED */
	uint64_t cookie_tsc; /* last time a cookie was sent */
	const struct ewyk_tcp_ops *ops;
	void *arg;
};

struct ewyk_tcp_conn {
	/* Table linkage and identity. */
	struct ewyk_tcp_conn *hnext;
	struct ewyk_tcp_conn **hpprev;
	struct ewyk_tcp *tcp;
	union tcp_addr lip, rip; /* family: v6 */
	uint16_t lport, rport;   /* host order */
	uint16_t port;           /* port index */
	uint8_t state;           /* enum ewyk_tcp_state */
	uint8_t busy;            /* nesting of input/timer/callback frames */

	/* Flags. */
	uint32_t passive : 1,   /* created by a listener */
		app_closed : 1, /* ewyk_tcp_close/abort called: no callbacks */
		shut_wr : 1,    /* FIN queued after the data */
		eof_seen : 1,   /* peer FIN delivered */
		ts_ok : 1, sack_ok : 1, ws_ok : 1, nodelay : 1, in_recovery : 1,
		partial_seen : 1, /* first partial ACK of this recovery seen */
		want_writable : 1,
		ack_now : 1,     /* an ACK must go out before input returns */
		ack_delayed : 1, /* an ACK is owed (delayed) */
		rtt_timing : 1,
		dead : 1, /* destroyed; object released when not busy */
		in_table : 1,
		in_syn_count : 1, /* counted in listener->syn_count */
		ooo_fin : 1,      /* ooo_fin_seq is valid */
		fin_acked : 1,    /* our FIN was acknowledged */
		rto_recover : 1,  /* recover was set by an RTO (RFC 6582 4) */
		app_known : 1,    /* the application has the handle */
		est_once : 1,     /* reached ESTABLISHED */
		tlp_out : 1,      /* a loss probe is outstanding */
		tlp_rexmit : 1,   /* ... and it was a retransmission */
		tlp_dsack : 1,   /* ... that the peer reported as a duplicate */
		tx_wait : 1,     /* in the context's TX wait set (txw) */
		out_pending : 1, /* data queued while busy: output on unhold */
		/* timer sends a full TX held back (tcp_txw.c): run on resume */
		tlp_owed : 1, persist_owed : 1, ka_owed : 1,
		/* the idle timer rides on the parked rtx timer: armed on
		 * misc when that one comes up (tcp_keepalive_start) */
		idle_on_rtx : 1;
	uint8_t rtx_kind;  /* enum tcp_rtx_kind */
	uint8_t misc_kind; /* enum tcp_misc_kind */
	uint8_t tmr_used;  /* bit per timer: armed once on the wheel */
	uint8_t retries;   /* RTO / probe expiries without progress */
	uint8_t backoff;   /* RTO shift */
	uint8_t dupacks;
	uint8_t quickack; /* segments still to ACK at once */
	uint8_t ka_probes;
	/* (the new fields sit in what was padding: the object stays 512 B) */
	uint16_t mss_cap;    /* our MSS: conf.mss, or from the IPv6 path MTU */
	uint8_t src_counted; /* counted in the per-source table */

	const struct ewyk_tcp_ops *ops;
	void *ctx;
	struct tcp_listener *listener; /* SYN-RECEIVED of a listener */

	/* Send side. */
	uint32_t iss, snd_una, snd_nxt, snd_max;
	uint32_t snd_wnd, max_snd_wnd, snd_wl1, snd_wl2;
	uint32_t cwnd, ssthresh, recover, rexmit_nxt, bytes_acked;
	uint32_t
		rexmit_mark; /* SND.MAX at the last retransmission in recovery */
	uint32_t tlp_seq, tlp_high; /* probe's sequence, SND.MAX when sent */
	uint64_t rexmit_tsc;        /* and its time */
	uint16_t snd_mss, peer_mss;
	uint8_t snd_wscale, rcv_wscale;
	uint8_t nsack;
	uint8_t v6; /* IPv6 connection (lip, rip) */
	struct tcp_sack_blk
		sack[TCP_SACK_MAX]; /* sorted, disjoint, > snd_una */
	uint32_t rtt_seq;
	uint32_t pmtu_gen; /* lib/net's path MTU generation mss_cap is from */
	uint64_t rtt_tsc;
	uint32_t srtt_us, rttvar_us, rto_ms;
	uint32_t nd_at; /* IPv6: last reachability confirmation (TSC >> 20) */
	uint64_t last_send_tsc;

	/* Send queue: segments linked by ->next, bytes [snd_una, +sq_len). */
	struct rte_mbuf *sq_head, *sq_tail;
	uint32_t sq_off; /* bytes of sq_head already acknowledged */
	uint32_t sq_len;
	struct rte_mbuf *sq_cur; /* lookup cursor (NULL: invalid) */
	uint32_t sq_cur_seq;     /* sequence of sq_cur's first byte */

	/* Receive side. */
	uint32_t irs, rcv_nxt, rcv_adv;
	uint32_t rcv_held; /* delivered, not yet ewyk_tcp_recvd */
	uint32_t ooo_bytes;
	uint16_t ooo_n;
	uint16_t rcv_mss;     /* largest segment seen from the peer */
	uint32_t rcv_unacked; /* in-order bytes received since our last ACK */
	uint32_t ooo_fin_seq; /* sequence of an out-of-order FIN */
	uint32_t last_ack_sent;
	uint32_t ts_recent;
	uint32_t ts_off;
	uint32_t ooo_last_start,
		ooo_last_end;      /* most recent OOO arrival (SACK) */
	struct rte_mbuf *ooo_head; /* sorted by seq, disjoint */
	uint64_t last_rx_tsc;
	uint32_t retrans_segs;
	uint32_t sq_segs; /* mbufs the send queue pins */

	/* Timers. */
	struct ewyk_twheel_timer rtx_tmr;
	struct ewyk_twheel_timer delack_tmr;
	struct ewyk_twheel_timer misc_tmr;

	/* hardening (docs/guides/security.md) */
	uint64_t oow_tsc;  /* last answer to an out-of-window segment */
	uint64_t zwnd_tsc; /* persist: since when the window is zero (0: not) */
	uint64_t orphan_tsc; /* when the application closed (0: not) */
	uint32_t ooo_segs;   /* mbufs the out-of-order queue pins */
	uint32_t app_segs;   /* mbufs the application holds (recv_append) */
} __rte_cache_aligned;

struct ewyk_tcp {
	/* Hot. */
	uint64_t now; /* TSC of the loop */
	struct ewyk_twheel *wheel;
	struct ewyk_pool *conn_pool;
	struct ewyk_tcp_conn **buckets;
	uint32_t hmask;
	int dyn_off; /* tcp_mbuf_meta dynfield offset */
	struct rte_mempool *tx_pool;
	ewyk_tcp_output_t output;
	void *output_arg;
	ewyk_tcp_output6_t output6;
	void *output6_arg;
	/* output / output6 are lib/net's own on the shard: segments go to
	 * ewyk_net_tcp_output() / ewyk_net_tcp_output6() directly */
	bool out_net, out_net6;
	ewyk_tcp_tx_room_t tx_room; /* NULL: no back-pressure */
	void *tx_room_arg;
	/* Connections whose data waits for TX room (back-pressure), each at
	 * most once (tx_wait), in FIFO order: a list linked through txw[],
	 * indexed by the connection's pool index (tcp_txw.c). */
	struct tcp_txw_link *txw;
	uint32_t txw_n;
	uint32_t txw_head, txw_tail; /* TCP_TXW_NONE: empty */
	uint32_t txw_cur, txw_fresh; /* the resume pass in progress */
	struct ewyk_net_shard *shard;
	struct ewyk_net *net;
	uint16_t shard_id;
	uint16_t nb_shards;
	bool own_wheel;
	bool registered;

	/* Derived configuration. */
	struct ewyk_tcp_conf conf;
	uint64_t hz;        /* TSC cycles per second */
	uint64_t cyc_ms;    /* TSC cycles per millisecond */
	uint64_t cyc_us;    /* TSC cycles per microsecond (>= 1) */
	uint64_t idle_cyc;  /* idle period (tcp_timer.c), UINT64_MAX: off */
	uint8_t rcv_wscale; /* window scale we offer */
	uint16_t eph_next;  /* next ephemeral port to try */
	uint64_t k0, k1;    /* SipHash key */
	uint32_t conns;     /* objects in use */
	uint64_t chack_sec; /* second the challenge-ACK budget is for */
	uint32_t
		chack_left; /* challenge ACKs still allowed in it (randomised) */
	/* hardening (docs/guides/security.md) */
	uint64_t ck0, ck1;  /* SipHash key of the SYN cookies (own secret) */
	uint64_t hk0, hk1;  /* SipHash key of the connection table */
	uint64_t rst_sec;   /* second the RST count is for */
	uint32_t rst_count; /* RSTs to segments of no connection in it */
	uint32_t src_mask;  /* per-source counters: buckets - 1 */
	uint32_t *src_cnt;  /* connections per keyed source bucket */
	struct tcp_src_ref *src_of; /* per connection object: its buckets */
	uint32_t
		held_mbufs; /* mbufs all send, OOO and application queues pin */
	uint32_t ooo_held;  /* of which the OOO queues */
	/* The IPv6 peer whose neighbour entry was confirmed last, and when
	 * (TSC >> 20): tcp_nd_confirm() once a second per peer. */
	union tcp_addr nd_ip;
	uint32_t nd_at;
	uint16_t nd_port;
	uint32_t app_held; /* of which the applications' received chains */

	struct tcp_listener listeners[TCP_MAX_LISTENERS];
	uint8_t listen_end; /* listeners[] used below it (a slot freed stays) */

	/* Counters: single writer (the token holder), any reader. */
	uint64_t ctr[EWYK_TCP_COUNTER_MAX] __rte_cache_aligned;
	uint64_t states[EWYK_TCP_STATE_MAX];
} __rte_cache_aligned;

/** Add to a counter (single writer; relaxed store so readers see whole values). */
static inline void
tcp_ctr_add(struct ewyk_tcp *t, enum ewyk_tcp_counter c, uint64_t v)
{
	ewyk_ctr_add(&t->ctr[c], v);
}

static inline void
tcp_ctr_inc(struct ewyk_tcp *t, enum ewyk_tcp_counter c)
{
	tcp_ctr_add(t, c, 1);
}

static inline struct tcp_mbuf_meta *
tcp_meta(const struct ewyk_tcp *t, struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, t->dyn_off, struct tcp_mbuf_meta *);
}

/*
 * Free what is left of a segment: NULL after a header-only segment's
 * mbuf went in tcp_mbuf_adj() (a SYN, a pure ACK, a bare FIN), which is
 * most segments of a short connection; rte_pktmbuf_free() is a call.
 */
static inline void
tcp_mbuf_free(struct rte_mbuf *m)
{
	if (m != NULL)
		rte_pktmbuf_free(m);
}

/** Timestamp clock: milliseconds. */
static inline uint32_t
tcp_ts_now(const struct ewyk_tcp *t)
{
	return (uint32_t)(t->now / t->cyc_ms);
}

static inline uint64_t
tcp_ms_to_cyc(const struct ewyk_tcp *t, uint64_t ms)
{
	return ms * t->cyc_ms;
}

/* Bits of tmr_used. */
#define TCP_TMR_RTX 1
#define TCP_TMR_DELACK 2
#define TCP_TMR_MISC 4

/*
 * The connection's state, counted per state (telemetry's gauges). Inline:
 * a short connection changes state five times (SYN-RECEIVED, ESTABLISHED,
 * CLOSE-WAIT, LAST-ACK, CLOSED).
 */
static inline void
tcp_set_state(struct ewyk_tcp_conn *c, enum ewyk_tcp_state s)
{
	struct ewyk_tcp *t = c->tcp;
	uint8_t old = c->state;

	if (old == s)
		return;
	if (old != EWYK_TCP_CLOSED)
		ewyk_ctr_sub(&t->states[old], 1);
	if (s != EWYK_TCP_CLOSED)
		ewyk_ctr_add(&t->states[s], 1);
	c->state = (uint8_t)s;
}

/* tcp_conn.c */
struct ewyk_tcp_conn *tcp_conn_alloc(struct ewyk_tcp *t);
void tcp_conn_destroy(struct ewyk_tcp_conn *c);
void tcp_conn_release(struct ewyk_tcp_conn *c);
void tcp_conn_drop(struct ewyk_tcp_conn *c, int err);
void tcp_conn_init_wnd(struct ewyk_tcp_conn *c);
void tcp_conn_set_mss(struct ewyk_tcp_conn *c);
void tcp_conn_ip(const struct ewyk_tcp_conn *c, struct tcp_ip *ip);
uint16_t tcp_mss_cap(struct ewyk_tcp *t, const struct tcp_ip *ip);
void tcp_pmtu_check(struct ewyk_tcp_conn *c);
void tcp_nd_confirm_at(struct ewyk_tcp_conn *c, uint32_t at);

/*
 * New data acknowledged by an IPv6 peer confirms its neighbour entry
 * (tcp_conn.c says how often). The once-a-second test of the connection
 * is here, inline: every ACK of a keep-alive request asks it and nearly
 * every one is answered by it.
 */
static inline void
tcp_nd_confirm(struct ewyk_tcp_conn *c)
{
	const struct ewyk_tcp *t = c->tcp;
	uint32_t at = (uint32_t)(t->now >> 20);

	if (at - c->nd_at >= (uint32_t)(t->hz >> 20))
		tcp_nd_confirm_at(c, at);
}
bool tcp_notify_established(struct ewyk_tcp_conn *c);
void tcp_notify_closed(struct ewyk_tcp_conn *c, int err);

static inline void
tcp_conn_hold(struct ewyk_tcp_conn *c)
{
	c->busy++;
}

void tcp_output(struct ewyk_tcp_conn *c);

/*
 * Room on the connection's port for a segment that may wait (data, FIN,
 * probes): more than the reserve of EWYK_TCP_TX_RESERVE frames, which is
 * for the segments that always go (back-pressure, tcp_txw.c).
 */
static inline bool
tcp_tx_room_ok(const struct ewyk_tcp_conn *c)
{
	const struct ewyk_tcp *t = c->tcp;

	return t->tx_room == NULL ||
		t->tx_room(t->tx_room_arg, c->port) > EWYK_TCP_TX_RESERVE;
}

/*
 * Leave a frame. The outermost one sends what the application queued
 * inside it (ewyk_tcp_send() defers output while busy, so that the
 * responses to a burst of requests leave as one segment with one ACK).
 */
static inline void
tcp_conn_unhold(struct ewyk_tcp_conn *c)
{
	if (--c->busy > 0)
		return;
	if (c->dead)
		tcp_conn_release(c);
	else if (c->out_pending)
		tcp_output(c);
}

/* tcp_table.c */
uint32_t tcp_hash(const struct ewyk_tcp *t, rte_be32_t lip, uint16_t lport,
	rte_be32_t rip, uint16_t rport);
uint32_t tcp_hash6(const struct ewyk_tcp *t, const union tcp_addr *lip,
	uint16_t lport, const union tcp_addr *rip, uint16_t rport);
struct ewyk_tcp_conn *tcp_table_lookup(struct ewyk_tcp *t, rte_be32_t lip,
	uint16_t lport, rte_be32_t rip, uint16_t rport);
struct ewyk_tcp_conn *tcp_table_lookup6(struct ewyk_tcp *t,
	const union tcp_addr *lip, uint16_t lport, const union tcp_addr *rip,
	uint16_t rport);
/* The same with the tuple's hash already computed (tcp_hash(), tcp_hash6()). */
struct ewyk_tcp_conn *tcp_table_lookup_h(struct ewyk_tcp *t, uint32_t h,
	rte_be32_t lip, uint16_t lport, rte_be32_t rip, uint16_t rport);
struct ewyk_tcp_conn *tcp_table_lookup6_h(struct ewyk_tcp *t, uint32_t h,
	const union tcp_addr *lip, uint16_t lport, const union tcp_addr *rip,
	uint16_t rport);
uint32_t tcp_conn_hash(const struct ewyk_tcp_conn *c);
void tcp_table_insert(struct ewyk_tcp *t, struct ewyk_tcp_conn *c);
void tcp_table_insert_h(struct ewyk_tcp *t, struct ewyk_tcp_conn *c,
	uint32_t h);
void tcp_table_remove(struct ewyk_tcp *t, struct ewyk_tcp_conn *c);
struct tcp_listener *tcp_listener_find(struct ewyk_tcp *t,
	const struct tcp_ip *ip, uint16_t port);

/* tcp_crypto.c: the tuple is (ip->dst, dport) local, (ip->src, sport)
 * remote, as a segment that arrived has it. */
uint32_t tcp_isn_ts(struct ewyk_tcp *t, const struct tcp_ip *ip, uint16_t lport,
	uint16_t rport, uint32_t *ts_off);
uint32_t tcp_ts_offset(struct ewyk_tcp *t, const struct tcp_ip *ip,
	uint16_t lport, uint16_t rport);
uint32_t tcp_cookie_make(struct ewyk_tcp *t, const struct tcp_ip *ip,
	uint16_t lport, uint16_t rport, uint32_t peer_isn, uint16_t *mss);
int tcp_cookie_check(struct ewyk_tcp *t, const struct tcp_ip *ip,
	uint16_t lport, uint16_t rport, uint32_t peer_isn, uint32_t cookie);
uint32_t tcp_cookie_tsval(uint32_t ts_now, int wscale, bool sack);
/* hardening (docs/guides/security.md) */
int tcp_crypto_init(struct ewyk_tcp *t);
uint32_t tcp_keyed_rand(struct ewyk_tcp *t, uint32_t tag, uint64_t x);
void tcp_cookie_ts_decode(uint32_t tsecr, int *wscale, bool *sack);

/* tcp_limits.c (hardening: what one peer may hold) */
int tcp_limits_init(struct ewyk_tcp *t);
bool tcp_src_full(struct ewyk_tcp *t, const struct tcp_ip *ip,
	struct tcp_open_hint *h);
void tcp_src_add(struct ewyk_tcp *t, struct ewyk_tcp_conn *c,
	const struct tcp_open_hint *h);
void tcp_src_del(struct ewyk_tcp *t, struct ewyk_tcp_conn *c);
bool tcp_send_fits(const struct ewyk_tcp_conn *c, uint32_t n);
bool tcp_ooo_fits(const struct ewyk_tcp_conn *c, uint32_t n);
bool tcp_recv_admits(const struct ewyk_tcp_conn *c, const struct rte_mbuf *m);
void tcp_recv_forget(struct ewyk_tcp_conn *c);
bool tcp_mbuf_absorb(struct rte_mbuf *tl, const struct rte_mbuf *m,
	uint32_t len);

/* tcp_output.c */
int tcp_send_syn(struct ewyk_tcp_conn *c);
int tcp_send_ack(struct ewyk_tcp_conn *c);
int tcp_send_probe(struct ewyk_tcp_conn *c, uint32_t seq);
int tcp_send_rst(struct ewyk_tcp_conn *c);
void tcp_send_rst_reply(struct ewyk_tcp *t, const struct tcp_seg *s,
	const struct tcp_ip *ip);
int tcp_send_synack_cookie(struct ewyk_tcp *t, const struct tcp_seg *s,
	const struct tcp_ip *ip, uint32_t iss, uint16_t mss);
int tcp_send_segment(struct ewyk_tcp_conn *c, uint32_t seq, uint32_t len,
	bool fin);
void tcp_output(struct ewyk_tcp_conn *c);
uint32_t tcp_rcv_wnd_field(struct ewyk_tcp_conn *c);
uint32_t tcp_rcv_space(const struct ewyk_tcp_conn *c);

/* tcp_txw.c */
int tcp_txw_init(struct ewyk_tcp *t);
void tcp_txw_add(struct ewyk_tcp *t, struct ewyk_tcp_conn *c);
void tcp_txw_del(struct ewyk_tcp_conn *c);
void tcp_txw_resume(struct ewyk_tcp *t);

/* tcp_input.c */
int tcp_parse(struct ewyk_tcp *t, struct rte_mbuf *m, const struct tcp_ip *ip,
	struct tcp_seg *s);
void tcp_input(struct ewyk_tcp *t, struct rte_mbuf *m, const struct tcp_ip *ip);

/* tcp_state.c */
void tcp_fin_in_order(struct ewyk_tcp_conn *c);
void tcp_syn_options(struct ewyk_tcp_conn *c, const struct tcp_seg *s);
bool tcp_establish(struct ewyk_tcp_conn *c, const struct tcp_seg *s);
void tcp_state_input(struct ewyk_tcp_conn *c, struct tcp_seg *s,
	struct rte_mbuf *m);

/* tcp_passive.c; @p h: what tcp_input() computed (the hash). */
void tcp_listen_input(struct ewyk_tcp *t, struct tcp_listener *l,
	struct tcp_seg *s, struct rte_mbuf *m, const struct tcp_ip *ip,
	struct tcp_open_hint *h);
void tcp_passive_open(struct ewyk_tcp *t, struct tcp_listener *l,
	struct tcp_seg *s, struct rte_mbuf *m, const struct tcp_ip *ip,
	const struct tcp_open_hint *h, bool has_iss, uint32_t iss);
void tcp_cookie_input(struct ewyk_tcp *t, struct tcp_listener *l,
	struct tcp_seg *s, struct rte_mbuf *m, const struct tcp_ip *ip,
	struct tcp_open_hint *h);

/* tcp_recv.c */
struct rte_mbuf *tcp_mbuf_adj(struct rte_mbuf *m, uint32_t n);
struct rte_mbuf *tcp_mbuf_trim(struct rte_mbuf *m, uint32_t n);
void tcp_data_input(struct ewyk_tcp_conn *c, uint32_t seq, struct rte_mbuf *m,
	uint32_t len, bool fin);
void tcp_ooo_purge(struct ewyk_tcp_conn *c);
unsigned int tcp_sack_blocks_out(struct ewyk_tcp_conn *c,
	struct tcp_sack_blk *blk, unsigned int max);
void tcp_ack_owed(struct ewyk_tcp_conn *c, uint32_t len);
void tcp_ack_flush(struct ewyk_tcp_conn *c);

/* tcp_cc.c */
void tcp_ack_input(struct ewyk_tcp_conn *c, const struct tcp_seg *s);
uint32_t tcp_retransmit(struct ewyk_tcp_conn *c, uint32_t seq, uint32_t maxlen);
void tcp_sack_clear(struct ewyk_tcp_conn *c);
void tcp_rtt_sample(struct ewyk_tcp_conn *c, uint64_t rtt_cyc);
void tcp_rto_update(struct ewyk_tcp_conn *c);
uint32_t tcp_sack_input(struct ewyk_tcp_conn *c, const struct tcp_seg *s);
bool tcp_sack_next_hole(const struct ewyk_tcp_conn *c, uint32_t from,
	uint32_t *start, uint32_t *len);
void tcp_cc_init(struct ewyk_tcp_conn *c);
void tcp_sq_free_acked(struct ewyk_tcp_conn *c, uint32_t bytes);

/* tcp_timer.c */
void tcp_timer_rto_arm(struct ewyk_tcp_conn *c);
void tcp_timer_rto_restart(struct ewyk_tcp_conn *c);
void tcp_timer_xmit_arm(struct ewyk_tcp_conn *c);
void tcp_timer_persist_arm(struct ewyk_tcp_conn *c);
void tcp_timer_rtx_stop(struct ewyk_tcp_conn *c);
/* All acknowledged: no timeout owed, the node stays on the wheel. */
void tcp_timer_rtx_park(struct ewyk_tcp_conn *c);
void tcp_timer_delack_arm(struct ewyk_tcp_conn *c);
void tcp_timer_delack_stop(struct ewyk_tcp_conn *c);
void tcp_timer_misc_arm(struct ewyk_tcp_conn *c, enum tcp_misc_kind k,
	uint64_t expiry);
void tcp_timer_misc_stop(struct ewyk_tcp_conn *c);
void tcp_timer_stop_all(struct ewyk_tcp_conn *c);
void tcp_enter_time_wait(struct ewyk_tcp_conn *c);
void tcp_keepalive_arm(struct ewyk_tcp_conn *c);
/* At establishment: the idle timer, armed now or left to the rtx timer. */
void tcp_keepalive_start(struct ewyk_tcp_conn *c);
void tcp_timer_owed(struct ewyk_tcp_conn *c);

/* tcp_stats.c */
int tcp_registry_add(struct ewyk_tcp *t);
void tcp_registry_del(struct ewyk_tcp *t);
int tcp_registry_check(uint16_t shard_id);

#endif /* EWYK_TCP_PRIVATE_H */
