/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_TEST_TCP_SCRIPT_H
#define EWYK_TEST_TCP_SCRIPT_H

/*
 * The script harness of the lib/tcp unit tests (tcp_script.c) and the
 * language of the scripts (tcp_scripts*.c). An endpoint is driven without
 * lib/net's datapath: crafted segments go in through ewyk_tcp_input(), and
 * what it sends is caught by an output hook. Each step is a segment in, a
 * segment expected out (flags, sequence numbers relative to the ISNs,
 * length, window, options), an application call, an event expected by the
 * application, a jump of the clock or a counter check.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>
#include <rte_tcp.h>

#include "ewyk_tcp.h"
#include "ewyk_twheel.h"

#define LIP RTE_BE32(RTE_IPV4(10, 0, 0, 1))
#define PIP RTE_BE32(RTE_IPV4(10, 0, 0, 2))
/* The same conversation over IPv6 (script.v6): 2001:db8::1 and ::2. */
extern const uint8_t LIP6[16], PIP6[16];
#define LPORT 80
#define PPORT 40000
#define PISN 1000000u /* the peer's ISN */
#define MAXCAP 256
#define MAXEV 64

#define F_FIN RTE_TCP_FIN_FLAG
#define F_SYN RTE_TCP_SYN_FLAG
#define F_RST RTE_TCP_RST_FLAG
#define F_PSH RTE_TCP_PSH_FLAG
#define F_ACK RTE_TCP_ACK_FLAG

/* ---- what the endpoint sent ---- */
struct cap {
	uint8_t flags;
	uint32_t seq, ack, len;
	uint16_t wnd, sport, dport;
	int mss, ws; /* -1: absent */
	bool sackok, ts;
	uint32_t tsval, tsecr;
	int nsack;
	uint32_t sack[4][2];
	uint8_t data[2048];
	uint8_t src6_last; /* IPv6: our address's last byte */
};

enum ev_type {
	EV_NONE,
	EV_ACCEPT,
	EV_CONNECTED,
	EV_RECV,
	EV_EOF,
	EV_WRITABLE,
	EV_CLOSED
};
struct ev {
	enum ev_type type;
	int val;
};

struct tcp_harness {
	struct ewyk_tcp *t;
	struct ewyk_twheel *w; /* shared wheel, exact (no slack) */
	uint64_t base, now_ms;
	struct cap caps[MAXCAP];
	unsigned int ncap, rcap;
	struct ev evs[MAXEV];
	unsigned int nev, rev;
	struct ewyk_tcp_conn *conn; /* the application's handle */
	uint32_t iss;               /* ours, learnt from the first SYN out */
	uint16_t lport;             /* our port in this conversation */
	uint32_t last_tsval;        /* last TSval we sent */
	uint32_t peer_ts;
	uint32_t peer_mss; /* announced in the peer's SYN */
	bool refuse, hold, close_on_eof;
	bool echo;             /* the application echoes (an echo service) */
	struct rte_mbuf *pend; /* echo: what it could not send yet */
	uint64_t ctr0[EWYK_TCP_COUNTER_MAX];
	bool ts_on, ts_set; /* the peer uses timestamps (from its SYN) */
	bool v6;            /* the conversation is over IPv6 */
	uint8_t dst6[16];   /* IPv6: where the last segment out went */
	uint8_t laddr;      /* IPv6: our address of the segment being built */
	uint32_t tx_room;   /* the port's TX room (back-pressure); 0: 512 */
	/* A model of lib/net's port buffer, when port_model is set: the
	 * room is port_room, each frame out takes one, and a frame that
	 * finds none is dropped and counted (as lib/net's drop_tx_full). */
	bool port_model;
	uint32_t port_room;
	uint64_t drop_tx_full;
};

/* The harness's state, shared by the scripts and the other tests. */
extern struct tcp_harness H;
/* The mbuf pool of every test, created by main(). */
extern struct rte_mempool *mp;
/* The application's callbacks: they record events in H. */
extern const struct ewyk_tcp_ops app_ops;

/* ---- scripts ---- */
enum op {
	OP_END,
	OP_IN,
	OP_OUT,
	OP_NOOUT,
	OP_WAIT,
	OP_STATE,
	OP_GONE,
	OP_EV,
	OP_CTR,
	OP_SEND,
	OP_CLOSE,
	OP_SHUT,
	OP_ABORT,
	OP_CONNECT,
	OP_RECVD,
	OP_SENDX,
	OP_BAD,
};

#define WS(n) ((n) + 1)
#define WIN0 0x10000

struct step {
	enum op op;
	uint8_t fl;
	int64_t seq,
		ack; /* IN: peer-relative seq, our-relative ack; OUT: reverse */
	uint32_t len; /* payload bytes */
	uint32_t
		win; /* window field (0: 65535 in, unchecked out; WIN0: zero) */
	int mss, ws; /* options (0: none / unchecked) */
	bool sackok, ts, noopt, any_ack, plain, learn, any_seq;
	bool nots;       /* IN: no timestamp, even on a timestamp connection */
	bool linux_opts; /* IN SYN: mss, sackok, ts, ws in Linux's layout */
	uint32_t tsval;  /* IN: explicit TSval (0: next of the peer's clock) */
	int nsack;       /* IN: blocks given; OUT: blocks expected (-1: none) */
	int64_t sack[4][2];    /* relative to the receiver's view */
	uint16_t sport, dport; /* 0: the defaults */
	uint8_t paddr; /* IN over IPv6: the peer's last address byte (0: 2) */
	uint8_t pnet; /* IN over IPv6: byte 7 of the peer's address (its /64) */
	bool mcast6;  /* IN over IPv6: to ff02::1 (checksum taken as good) */
	uint8_t laddr; /* IN over IPv6: our address's last byte (0: LIP6's);
			* OUT: the source's last byte expected (0: LIP6's) */
	uint64_t ms;   /* WAIT */
	enum ewyk_tcp_state state;
	enum ev_type ev;
	int val; /* EV: value; CTR: expected delta */
	enum ewyk_tcp_counter ctr;
};

#define IN(f, s, a, ...)                                                    \
	{                                                                   \
		.op = OP_IN, .fl = (f), .seq = (s), .ack = (a), __VA_ARGS__ \
	}
#define OUT(f, s, a, ...)                                                    \
	{                                                                    \
		.op = OP_OUT, .fl = (f), .seq = (s), .ack = (a), __VA_ARGS__ \
	}
#define NOOUT                  \
	{                      \
		.op = OP_NOOUT \
	}
#define WAIT(m)                          \
	{                                \
		.op = OP_WAIT, .ms = (m) \
	}
#define STATE(s)                             \
	{                                    \
		.op = OP_STATE, .state = (s) \
	}
#define STATEP(s, p)                                       \
	{                                                  \
		.op = OP_STATE, .state = (s), .sport = (p) \
	}
#define GONE                  \
	{                     \
		.op = OP_GONE \
	}
#define EV(e, v)                                   \
	{                                          \
		.op = OP_EV, .ev = (e), .val = (v) \
	}
#define CTR(c, v)                                    \
	{                                            \
		.op = OP_CTR, .ctr = (c), .val = (v) \
	}
#define SEND(n)                           \
	{                                 \
		.op = OP_SEND, .len = (n) \
	}
#define SENDX(n)                           \
	{                                  \
		.op = OP_SENDX, .len = (n) \
	}
#define BAD(k)                           \
	{                                \
		.op = OP_BAD, .val = (k) \
	}
#define CLOSE                  \
	{                      \
		.op = OP_CLOSE \
	}
#define SHUT                  \
	{                     \
		.op = OP_SHUT \
	}
#define ABORT                  \
	{                      \
		.op = OP_ABORT \
	}
#define CONNECT                  \
	{                        \
		.op = OP_CONNECT \
	}
#define RECVD(n)                           \
	{                                  \
		.op = OP_RECVD, .len = (n) \
	}
#define END                  \
	{                    \
		.op = OP_END \
	}
#define ES EWYK_TCP_ESTABLISHED

/* The usual handshakes (peer offers MSS 1460, wscale 7, SACK, timestamps). */
#define PASSIVE_OPEN                                                           \
	IN(F_SYN, 0, 0, .mss = 1460, .ws = WS(7), .sackok = true, .ts = true), \
		OUT(F_SYN | F_ACK, 0, 1, .mss = 1460, .ws = WS(3),             \
			.sackok = true, .ts = true),                           \
		IN(F_ACK, 1, 1, .ts = true), EV(EV_ACCEPT, 0),                 \
		STATE(EWYK_TCP_ESTABLISHED)
#define PASSIVE_OPEN_PLAIN                                                   \
	IN(F_SYN, 0, 0, .mss = 1460), OUT(F_SYN | F_ACK, 0, 1, .mss = 1460), \
		IN(F_ACK, 1, 1), EV(EV_ACCEPT, 0), STATE(EWYK_TCP_ESTABLISHED)

struct script {
	const char *name;
	bool delack, refuse, hold, close_on_eof, nocookies, echo;
	uint32_t rcv_buf, snd_buf, backlog, keepalive_ms, max_tw, chack;
	/* hardening: ewyk_tcp_conf's fields of the same meaning (oow_ms 0:
	 * no limit) */
	uint32_t oow_ms, idle_ms, orphan_ms, persist_ms, per_src, rst_limit;
	uint32_t mbuf_budget, conn_mbufs;
	uint32_t max_conns; /* 0: 64 */
	bool v6;            /* over IPv6 (LIP6, PIP6) */
	uint16_t mss;       /* conf.mss; 0: 1460 over IPv4, 1480 over IPv6 (the
			     * same MSS on the wire: the scripts run on both) */
	uint32_t per_net6;  /* max_conns_per_net6 */
	uint8_t listen6;    /* listen on LIP6 with this last byte only
			     * (ewyk_tcp_listen6()); 0: the wildcard */
	const struct step *steps;
};

/*
 * Bad input: a valid data segment (seq 1, ack 1, 10 bytes) spoilt in one
 * way. Each kind must be dropped and counted under its reason.
 */
enum bad_kind {
	BAD_CKSUM = 1,
	BAD_DOFF_SMALL,
	BAD_DOFF_BEYOND,
	BAD_OPT_OVERLONG,
	BAD_OPT_ZERO_LEN,
	BAD_OPT_MSS_LEN,
	BAD_OPT_SACK_LEN,
	BAD_OPT_NO_LEN,
	BAD_SYN_FIN,
	BAD_SYN_RST,
	BAD_RST_FIN,
	BAD_NO_FLAGS,
	BAD_FIN_ONLY,
	BAD_PSH_URG_ONLY,
	BAD_SPORT_ZERO,
	BAD_DPORT_ZERO,
	BAD_SHORT,
	BAD_GOOD_CKSUM,   /* control: a correct checksum checked in software */
	BAD_CKSUM_FAMILY, /* right sum over the other family's pseudo-header */
};

/* One scripted conversation with a context made for it. */
void run_script(const struct script *sc);
/* Its parts: a context as the script says, then steps (any number of
 * calls), checked as they go. */
void script_begin(const struct script *sc);
void run_steps(const struct step *steps);
/* A context configured as the script says (listening on LPORT). */
void make_ctx(const struct script *sc);
/* Free the context and the wheel of make_ctx(). */
void h_free(void);

/* The scripts (tcp_scripts.c), in the order they run. */
extern const struct script tcp_scripts[];
extern const unsigned int tcp_nscripts;
/* The scripts of blind attacks and resource limits (tcp_scripts_hard.c). */
extern const struct script tcp_hard_scripts[];
extern const unsigned int tcp_hard_nscripts;
/* The IPv6 scripts (tcp_scripts6.c): what differs from IPv4. */
extern const struct script tcp_v6_scripts[];
extern const unsigned int tcp_v6_nscripts;
/* The connection the script talks on (either family). */
struct ewyk_tcp_conn *h_lookup(uint16_t sport);
/* Tests of the hardening that are not scripts (tcp_scripts_hard.c). */
void test_challenge_random(void **state);
void test_send_coalesce(void **state);
void test_ooo_pinned(void **state);
void test_ooo_coalesce(void **state);
void test_send_under_flood(void **state);
void test_echo_zero_window(void **state);
void test_echo_recv_budget(void **state);
/* Per-connection knobs and accessors, shard contexts (test_tcp_api.c). */
void test_nagle(void **state);
void test_abort_all(void **state);
void test_listen6_api(void **state);
void test_conn_own_ops(void **state);
void test_shard_contexts(void **state);
void test_tx_backpressure(void **state);
void test_src_limit_big(void **state);
void test_tcp_src_hash(void **state);
void test_tx_timers_wait(void **state);
void test_tx_resume_fair(void **state);
void test_tx_wait_del_middle(void **state);
/* Loopback transfers over a lossy, reordering wire (test_tcp_loopback.c). */
void test_loopback_clean(void **state);
void test_loopback_lossy_sack(void **state);
void test_loopback_lossy_plain(void **state);
void test_loopback_many(void **state);
void test_loopback_shared_buf(void **state);

#endif /* EWYK_TEST_TCP_SCRIPT_H */
