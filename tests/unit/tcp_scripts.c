/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The scripted conversations of the lib/tcp unit tests (the language is in
 * tcp_script.h): opening, closing, RST/SYN/ACK hardening, out-of-order
 * data, loss recovery, timers, TIME_WAIT, SYN cookies and bad input.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tcp_script.h"

/* ---- the scripts ---- */

static const struct step s_passive_data_close[] = { PASSIVE_OPEN,
	IN(F_ACK | F_PSH, 1, 1, .len = 100), EV(EV_RECV, 100),
	OUT(F_ACK, 1, 101, .ts = true, .win = 32768, .nsack = -1), SEND(50),
	OUT(F_ACK | F_PSH, 1, 101, .len = 50), IN(F_ACK, 101, 51), NOOUT,
	IN(F_FIN | F_ACK, 101, 51), OUT(F_ACK, 51, 102), EV(EV_EOF, 0),
	STATE(EWYK_TCP_CLOSE_WAIT), CLOSE, OUT(F_FIN | F_ACK, 51, 102),
	STATE(EWYK_TCP_LAST_ACK), IN(F_ACK, 102, 52), GONE,
	CTR(EWYK_TCP_CONN_CLOSED, 1), CTR(EWYK_TCP_BYTES_IN, 100),
	CTR(EWYK_TCP_BYTES_OUT, 50), END };

static const struct step s_passive_plain[] = { IN(F_SYN, 0, 0),
	OUT(F_SYN | F_ACK, 0, 1, .mss = 1460, .plain = true), IN(F_ACK, 1, 1),
	EV(EV_ACCEPT, 0), STATE(ES), IN(F_ACK, 1, 1, .len = 700),
	EV(EV_RECV, 700), OUT(F_ACK, 1, 701, .noopt = true, .win = 65535),
	/* No MSS option: 536 bytes per segment (RFC 9293 3.7.1). */
	SEND(1000), OUT(F_ACK, 1, 701, .len = 536),
	OUT(F_ACK | F_PSH, 537, 701, .len = 464), END };

static const struct step s_active_open[] = { CONNECT,
	OUT(F_SYN, 0, 0, .mss = 1460, .ws = WS(3), .sackok = true, .ts = true),
	STATE(EWYK_TCP_SYN_SENT),
	IN(F_SYN | F_ACK, 0, 1, .mss = 1400, .ws = WS(2), .sackok = true,
		.ts = true),
	OUT(F_ACK, 1, 1, .ts = true), EV(EV_CONNECTED, 0), STATE(ES),
	SEND(2000), OUT(F_ACK, 1, 1, .len = 1388),
	OUT(F_ACK | F_PSH, 1389, 1, .len = 612), IN(F_ACK, 1, 2001), NOOUT,
	ABORT, OUT(F_RST | F_ACK, 2001, 1), GONE, CTR(EWYK_TCP_CONN_ABORTED, 1),
	END };

/* A SYN's options as Linux lays them out (MSS, SACK permitted, TS, NOP,
 * WS: the one-compare path), the peer's MSS then cut by the timestamps. */
static const struct step s_passive_linux_opts[] = {
	IN(F_SYN, 0, 0, .mss = 1400, .ws = WS(7), .sackok = true, .ts = true,
		.linux_opts = true),
	OUT(F_SYN | F_ACK, 0, 1, .mss = 1460, .ws = WS(3), .sackok = true,
		.ts = true),
	IN(F_ACK, 1, 1, .ts = true), EV(EV_ACCEPT, 0), STATE(ES), SEND(2000),
	OUT(F_ACK, 1, 1, .len = 1388), OUT(F_ACK | F_PSH, 1389, 1, .len = 612),
	IN(F_ACK, 1, 2001, .ts = true), NOOUT, END
};

static const struct step s_active_refused[] = { CONNECT, OUT(F_SYN, 0, 0),
	IN(F_RST | F_ACK, 0, 1), EV(EV_CONNECTED, -ECONNREFUSED), GONE,
	CTR(EWYK_TCP_RST_IN, 1), END };

static const struct step s_syn_sent_corners[] = { CONNECT, OUT(F_SYN, 0, 0),
	IN(F_RST, 0, 0), NOOUT, CTR(EWYK_TCP_DROP_RST, 1),
	IN(F_RST | F_ACK, 0, 5), NOOUT, CTR(EWYK_TCP_DROP_BAD_ACK, 1),
	IN(F_ACK, 0, 5), OUT(F_RST, 5, 0), CTR(EWYK_TCP_DROP_BAD_ACK, 2),
	IN(F_ACK, 0, 0), OUT(F_RST, 0, 0), CTR(EWYK_TCP_DROP_BAD_ACK, 3),
	IN(F_ACK, 0, 1), NOOUT, CTR(EWYK_TCP_DROP_STATE, 1),
	STATE(EWYK_TCP_SYN_SENT), WAIT(1001), OUT(F_SYN, 0, 0), WAIT(2001),
	OUT(F_SYN, 0, 0), CTR(EWYK_TCP_SYN_RETRANS, 2), WAIT(4001),
	EV(EV_CONNECTED, -ETIMEDOUT), GONE, END };

static const struct step s_simultaneous_open[] = { CONNECT, OUT(F_SYN, 0, 0),
	IN(F_SYN, 0, 0, .mss = 1460, .ts = true, .sackok = true, .ws = WS(7)),
	OUT(F_SYN | F_ACK, 0, 1, .ts = true, .sackok = true, .ws = WS(3)),
	STATE(EWYK_TCP_SYN_RECEIVED),
	IN(F_SYN | F_ACK, 0, 1, .mss = 1460, .ts = true, .sackok = true,
		.ws = WS(7)),
	OUT(F_ACK, 1, 1), EV(EV_CONNECTED, 0), STATE(ES), SEND(10),
	OUT(F_ACK | F_PSH, 1, 1, .len = 10), END };

static const struct step s_simultaneous_close[] = { PASSIVE_OPEN, CLOSE,
	OUT(F_FIN | F_ACK, 1, 1), STATE(EWYK_TCP_FIN_WAIT_1),
	IN(F_FIN | F_ACK, 1, 1), OUT(F_ACK, 2, 2), STATE(EWYK_TCP_CLOSING),
	IN(F_ACK, 2, 2), STATE(EWYK_TCP_TIME_WAIT), NOOUT, WAIT(1001), GONE,
	CTR(EWYK_TCP_CONN_CLOSED, 1), END };

static const struct step s_close_fin_ack_together[] = { PASSIVE_OPEN, CLOSE,
	OUT(F_FIN | F_ACK, 1, 1), IN(F_FIN | F_ACK, 1, 2), OUT(F_ACK, 2, 2),
	STATE(EWYK_TCP_TIME_WAIT),
	/* The peer lost our ACK and sends its FIN again. */
	IN(F_FIN | F_ACK, 1, 2), OUT(F_ACK, 2, 2), STATE(EWYK_TCP_TIME_WAIT),
	WAIT(1001), GONE, END };

static const struct step s_active_close[] = { PASSIVE_OPEN, CLOSE,
	OUT(F_FIN | F_ACK, 1, 1), IN(F_ACK, 1, 2), STATE(EWYK_TCP_FIN_WAIT_2),
	NOOUT, IN(F_FIN | F_ACK, 1, 2), OUT(F_ACK, 2, 2),
	STATE(EWYK_TCP_TIME_WAIT), WAIT(500), STATE(EWYK_TCP_TIME_WAIT),
	WAIT(501), GONE, END };

static const struct step s_half_close_ours[] = { PASSIVE_OPEN, SHUT,
	OUT(F_FIN | F_ACK, 1, 1), STATE(EWYK_TCP_FIN_WAIT_1), IN(F_ACK, 1, 2),
	STATE(EWYK_TCP_FIN_WAIT_2), IN(F_ACK | F_PSH, 1, 2, .len = 300),
	EV(EV_RECV, 300), OUT(F_ACK, 2, 301), IN(F_FIN | F_ACK, 301, 2),
	OUT(F_ACK, 2, 302), EV(EV_EOF, 0), EV(EV_CLOSED, 0),
	STATE(EWYK_TCP_TIME_WAIT), WAIT(1001), GONE, END };

static const struct step s_half_close_peer[] = { PASSIVE_OPEN,
	IN(F_FIN | F_ACK, 1, 1), OUT(F_ACK, 1, 2), EV(EV_EOF, 0),
	STATE(EWYK_TCP_CLOSE_WAIT), SEND(1000),
	OUT(F_ACK | F_PSH, 1, 2, .len = 1000), IN(F_ACK, 2, 1001), CLOSE,
	OUT(F_FIN | F_ACK, 1001, 2), STATE(EWYK_TCP_LAST_ACK),
	IN(F_ACK, 2, 1002), GONE, END };

static const struct step s_close_on_eof[] = { PASSIVE_OPEN,
	/* The FIN carries the ACK of the peer's FIN: one segment. */
	IN(F_FIN | F_ACK, 1, 1), EV(EV_EOF, 0), OUT(F_FIN | F_ACK, 1, 2),
	STATE(EWYK_TCP_LAST_ACK), NOOUT, IN(F_ACK, 2, 2), GONE, END };

static const struct step s_rst_exact[] = { PASSIVE_OPEN, IN(F_RST, 1, 0),
	EV(EV_CLOSED, -ECONNRESET), GONE, NOOUT, CTR(EWYK_TCP_CONN_RESET, 1),
	CTR(EWYK_TCP_RST_IN, 1), END };

static const struct step s_rst_hardening[] = { PASSIVE_OPEN,
	/* In the window but not at RCV.NXT: challenge ACK (RFC 5961 3.2). */
	IN(F_RST, 100, 0), OUT(F_ACK, 1, 1), CTR(EWYK_TCP_CHALLENGE_ACKS, 1),
	CTR(EWYK_TCP_DROP_RST, 1), STATE(ES), IN(F_RST | F_ACK, 2, 1),
	OUT(F_ACK, 1, 1), CTR(EWYK_TCP_DROP_RST, 2),
	/* Outside the window: silently dropped. */
	IN(F_RST, 1000000, 0), NOOUT, IN(F_RST, -5, 0), NOOUT,
	CTR(EWYK_TCP_DROP_OUT_OF_WINDOW, 2), STATE(ES), IN(F_RST | F_ACK, 1, 1),
	EV(EV_CLOSED, -ECONNRESET), GONE, END };

static const struct step s_challenge_limit[] = { PASSIVE_OPEN,
	/* A limit of 1: the budget of a second is 1 + random % 1, so one. */
	IN(F_RST, 100, 0), OUT(F_ACK, 1, 1), IN(F_SYN, 5, 0), NOOUT,
	IN(F_RST, 101, 0), NOOUT, CTR(EWYK_TCP_CHALLENGE_LIMITED, 2),
	WAIT(1000), IN(F_RST, 102, 0), OUT(F_ACK, 1, 1),
	CTR(EWYK_TCP_CHALLENGE_ACKS, 2), STATE(ES), END };

static const struct step s_syn_in_established[] = { PASSIVE_OPEN,
	IN(F_SYN, 5, 0), OUT(F_ACK, 1, 1), CTR(EWYK_TCP_CHALLENGE_ACKS, 1),
	CTR(EWYK_TCP_DROP_SYN, 1), STATE(ES),
	/* The original SYN again: old, so out of window: plain ACK. */
	IN(F_SYN, 0, 0, .mss = 1460), OUT(F_ACK, 1, 1),
	CTR(EWYK_TCP_DROP_OUT_OF_WINDOW, 1), IN(F_SYN | F_ACK, 1, 1),
	OUT(F_ACK, 1, 1), CTR(EWYK_TCP_DROP_SYN, 2), STATE(ES), END };

static const struct step s_out_of_window_data[] = { PASSIVE_OPEN,
	IN(F_ACK, 500000, 1, .len = 10), OUT(F_ACK, 1, 1),
	CTR(EWYK_TCP_DROP_OUT_OF_WINDOW, 1),
	IN(F_ACK | F_PSH, 1, 1, .len = 100), EV(EV_RECV, 100),
	OUT(F_ACK, 1, 101),
	/* An old duplicate: dropped (its ACK not taken either), ACK at once. */
	IN(F_ACK | F_PSH, 1, 1, .len = 100), OUT(F_ACK, 1, 101),
	CTR(EWYK_TCP_DROP_OUT_OF_WINDOW, 2),
	IN(F_ACK | F_PSH, 51, 1, .len = 100), EV(EV_RECV, 50),
	OUT(F_ACK, 1, 151),
	/* Straddling the right edge: trimmed to the window. */
	IN(F_ACK, 151 + 262144 - 10, 1, .len = 100),
	OUT(F_ACK, 1, 151, .nsack = 1,
		.sack = { { 151 + 262144 - 10, 151 + 262144 } }),
	CTR(EWYK_TCP_BYTES_IN, 150), END };

static const struct step s_bad_ack[] = { PASSIVE_OPEN, IN(F_ACK, 1, 1000),
	OUT(F_ACK, 1, 1), CTR(EWYK_TCP_DROP_BAD_ACK, 1),
	IN(F_ACK | F_PSH, 1, 1000, .len = 10), OUT(F_ACK, 1, 1),
	CTR(EWYK_TCP_DROP_BAD_ACK, 2), IN(F_ACK, 1, -10000000),
	OUT(F_ACK, 1, 1), CTR(EWYK_TCP_DROP_BAD_ACK, 3),
	CTR(EWYK_TCP_CHALLENGE_ACKS, 3), STATE(ES),
	IN(F_ACK | F_PSH, 1, 1, .len = 10), EV(EV_RECV, 10), OUT(F_ACK, 1, 11),
	END };

static const struct step s_ooo_sack[] = { PASSIVE_OPEN,
	IN(F_ACK, 101, 1, .len = 100),
	OUT(F_ACK, 1, 1, .nsack = 1, .sack = { { 101, 201 } }),
	CTR(EWYK_TCP_OOO_QUEUED, 1), IN(F_ACK, 301, 1, .len = 100),
	OUT(F_ACK, 1, 1, .nsack = 2, .sack = { { 301, 401 }, { 101, 201 } }),
	/* Overlapping duplicate of what is queued. */
	IN(F_ACK, 121, 1, .len = 50),
	OUT(F_ACK, 1, 1, .nsack = 2, .sack = { { 301, 401 }, { 101, 201 } }),
	IN(F_ACK, 1, 1, .len = 100), EV(EV_RECV, 100), EV(EV_RECV, 100),
	OUT(F_ACK, 1, 201, .nsack = 1, .sack = { { 301, 401 } }),
	/* Fills the hole and overlaps the queued segment's head. */
	IN(F_ACK, 201, 1, .len = 150), EV(EV_RECV, 150), EV(EV_RECV, 50),
	OUT(F_ACK, 1, 401, .nsack = -1), CTR(EWYK_TCP_BYTES_IN, 400), END };

static const struct step s_sack_shrinks_payload[] = { PASSIVE_OPEN,
	IN(F_ACK, 101, 1, .len = 100),
	OUT(F_ACK, 1, 1, .nsack = 1, .sack = { { 101, 201 } }),
	/* 12 bytes of SACK option come out of the 1448 the MSS leaves. */
	SEND(3000),
	OUT(F_ACK, 1, 1, .len = 1436, .nsack = 1, .sack = { { 101, 201 } }),
	OUT(F_ACK, 1437, 1, .len = 1436, .nsack = 1),
	OUT(F_ACK | F_PSH, 2873, 1, .len = 128, .nsack = 1), END };

static const struct step s_ooo_fin[] = { PASSIVE_OPEN,
	IN(F_ACK | F_FIN, 101, 1, .len = 100),
	OUT(F_ACK, 1, 1, .nsack = 1, .sack = { { 101, 201 } }),
	IN(F_ACK, 1, 1, .len = 100), EV(EV_RECV, 100), EV(EV_RECV, 100),
	EV(EV_EOF, 0), OUT(F_ACK, 1, 202), STATE(EWYK_TCP_CLOSE_WAIT), END };

static const struct step s_paws[] = { PASSIVE_OPEN,
	IN(F_ACK, 1, 1, .len = 10, .tsval = 5), OUT(F_ACK, 1, 1),
	CTR(EWYK_TCP_DROP_PAWS, 1), CTR(EWYK_TCP_BYTES_IN, 0),
	IN(F_ACK, 1, 1, .len = 10), EV(EV_RECV, 10), OUT(F_ACK, 1, 11), END };

static const struct step s_paws_disordered_ack[] = { PASSIVE_OPEN, SEND(5792),
	OUT(F_ACK, 1, 1, .len = 1448), OUT(F_ACK, 1449, 1, .len = 1448),
	OUT(F_ACK, 2897, 1, .len = 1448),
	OUT(F_ACK | F_PSH, 4345, 1, .len = 1448),
	IN(F_ACK, 1, 1, .tsval = 2000),
	/* Overtaken on the way: older timestamp, still a duplicate ACK. */
	IN(F_ACK, 1, 1, .tsval = 1990), NOOUT, CTR(EWYK_TCP_DUPACKS_IN, 2),
	CTR(EWYK_TCP_DROP_PAWS, 0),
	/* Older than an RTO: PAWS. */
	IN(F_ACK, 1, 1, .tsval = 1500), OUT(F_ACK, 5793, 1),
	CTR(EWYK_TCP_DROP_PAWS, 1), CTR(EWYK_TCP_DUPACKS_IN, 2), END };

static const struct step s_rto_backoff[] = { PASSIVE_OPEN, SEND(100),
	OUT(F_ACK | F_PSH, 1, 1, .len = 100), WAIT(150), NOOUT, WAIT(51),
	OUT(F_ACK | F_PSH, 1, 1, .len = 100), CTR(EWYK_TCP_RTO, 1), WAIT(300),
	NOOUT, WAIT(101), OUT(F_ACK | F_PSH, 1, 1, .len = 100),
	CTR(EWYK_TCP_RTO, 2), CTR(EWYK_TCP_RETRANS_SEGS, 2), IN(F_ACK, 1, 101),
	NOOUT, WAIT(5000), NOOUT, END };

static const struct step s_rto_give_up[] = { PASSIVE_OPEN, SEND(100),
	OUT(F_ACK | F_PSH, 1, 1, .len = 100), WAIT(201),
	OUT(F_ACK | F_PSH, 1, 1, .len = 100), WAIT(401),
	OUT(F_ACK | F_PSH, 1, 1, .len = 100), WAIT(801),
	OUT(F_ACK | F_PSH, 1, 1, .len = 100), WAIT(1601),
	OUT(F_ACK | F_PSH, 1, 1, .len = 100), WAIT(3201),
	OUT(F_RST | F_ACK, 101, 1), EV(EV_CLOSED, -ETIMEDOUT), GONE,
	CTR(EWYK_TCP_CONN_TIMEOUT, 1), END };

#define OUT4(s)                                         \
	OUT(F_ACK, (s), 1, .len = 1460),                \
		OUT(F_ACK, (s) + 1460, 1, .len = 1460), \
		OUT(F_ACK, (s) + 2920, 1, .len = 1460), \
		OUT(F_ACK | F_PSH, (s) + 4380, 1, .len = 1460)

static const struct step s_fast_retransmit[] = { PASSIVE_OPEN_PLAIN, SEND(5840),
	OUT4(1), IN(F_ACK, 1, 1461), IN(F_ACK, 1, 1461), IN(F_ACK, 1, 1461),
	NOOUT, CTR(EWYK_TCP_DUPACKS_IN, 2), IN(F_ACK, 1, 1461),
	OUT(F_ACK, 1461, 1, .len = 1460), CTR(EWYK_TCP_FAST_RETRANS, 1),
	IN(F_ACK, 1, 1461), NOOUT, /* inflation, nothing new to send */
	IN(F_ACK, 1, 5841), NOOUT, END };

static const struct step s_newreno_partial[] = { PASSIVE_OPEN_PLAIN, SEND(5840),
	OUT4(1), IN(F_ACK, 1, 1), IN(F_ACK, 1, 1), IN(F_ACK, 1, 1),
	OUT(F_ACK, 1, 1, .len = 1460), CTR(EWYK_TCP_FAST_RETRANS, 1),
	IN(F_ACK, 1, 2921), OUT(F_ACK, 2921, 1, .len = 1460),
	CTR(EWYK_TCP_PARTIAL_ACKS, 1), IN(F_ACK, 1, 5841), NOOUT,
	CTR(EWYK_TCP_RETRANS_SEGS, 2), END };

static const struct step s_sack_recovery[] = { PASSIVE_OPEN, SEND(8688),
	OUT(F_ACK, 1, 1, .len = 1448), OUT(F_ACK, 1449, 1, .len = 1448),
	OUT(F_ACK, 2897, 1, .len = 1448), OUT(F_ACK, 4345, 1, .len = 1448),
	OUT(F_ACK, 5793, 1, .len = 1448),
	OUT(F_ACK | F_PSH, 7241, 1, .len = 1448),
	/* Segments 1 and 3 lost. */
	IN(F_ACK, 1, 1, .nsack = 1, .sack = { { 1449, 2897 } }), NOOUT,
	IN(F_ACK, 1, 1, .nsack = 2, .sack = { { 4345, 5793 }, { 1449, 2897 } }),
	NOOUT,
	/* More than 2 MSS SACKed above SND.UNA: lost (RFC 6675 IsLost). */
	IN(F_ACK, 1, 1, .nsack = 2, .sack = { { 4345, 7241 }, { 1449, 2897 } }),
	OUT(F_ACK, 1, 1, .len = 1448), CTR(EWYK_TCP_FAST_RETRANS, 1),
	IN(F_ACK, 1, 1, .nsack = 2, .sack = { { 4345, 8689 }, { 1449, 2897 } }),
	OUT(F_ACK, 2897, 1, .len = 1448), CTR(EWYK_TCP_SACK_RETRANS, 1),
	IN(F_ACK, 1, 1, .nsack = 2, .sack = { { 4345, 8689 }, { 1449, 2897 } }),
	NOOUT, CTR(EWYK_TCP_SACK_BLOCKS_IN, 9), IN(F_ACK, 1, 8689), NOOUT,
	CTR(EWYK_TCP_RETRANS_SEGS, 2), END };

static const struct step s_sack_recovery_bidir[] = {
	/* The peer sends data too: its ACKs all carry data, none is a
	 * "duplicate"; the SACK blocks still show the loss. */
	PASSIVE_OPEN, SEND(5792), OUT(F_ACK, 1, 1, .len = 1448),
	OUT(F_ACK, 1449, 1, .len = 1448), OUT(F_ACK, 2897, 1, .len = 1448),
	OUT(F_ACK | F_PSH, 4345, 1, .len = 1448),
	IN(F_ACK, 1, 1, .len = 100, .nsack = 1, .sack = { { 1449, 2897 } }),
	EV(EV_RECV, 100), OUT(F_ACK, 5793, 101),
	IN(F_ACK, 101, 1, .len = 100, .nsack = 1, .sack = { { 1449, 4345 } }),
	EV(EV_RECV, 100), OUT(F_ACK, 5793, 201),
	IN(F_ACK, 201, 1, .len = 100, .nsack = 1, .sack = { { 1449, 5793 } }),
	EV(EV_RECV, 100), OUT(F_ACK, 1, 201, .len = 1448),
	OUT(F_ACK, 5793, 301), CTR(EWYK_TCP_FAST_RETRANS, 1),
	CTR(EWYK_TCP_DUPACKS_IN, 3), IN(F_ACK, 301, 5793), NOOUT, END
};

static const struct step s_tlp_dsack[] = { PASSIVE_OPEN, SEND(2896),
	OUT(F_ACK, 1, 1, .len = 1448), OUT(F_ACK | F_PSH, 1449, 1, .len = 1448),
	/* No ACK for 2 RTTs (10 ms at least): the last segment again. */
	WAIT(9), NOOUT, WAIT(2), OUT(F_ACK | F_PSH, 1449, 1, .len = 1448),
	CTR(EWYK_TCP_TLP_PROBES, 1),
	/* The ACK was what got lost: the peer says so with a D-SACK. */
	IN(F_ACK, 1, 2897, .nsack = 1, .sack = { { 1449, 2897 } }), NOOUT,
	WAIT(1000), NOOUT, CTR(EWYK_TCP_RTO, 0), END };

#define OUTD(s, ...) OUT(F_ACK, (s), 1, .len = 1448, __VA_ARGS__)
static const struct step s_tlp_new_data[] = { PASSIVE_OPEN,
	/* 12 segments queued, the initial window sends 10. */
	SEND(17376), OUTD(1), OUTD(1449), OUTD(2897), OUTD(4345), OUTD(5793),
	OUTD(7241), OUTD(8689), OUTD(10137), OUTD(11585), OUTD(13033),
	/* The probe is new data when the peer's window has room. */
	WAIT(11), OUTD(14481), CTR(EWYK_TCP_TLP_PROBES, 1), IN(F_ACK, 1, 15929),
	OUT(F_ACK | F_PSH, 15929, 1, .len = 1448), IN(F_ACK, 1, 17377), NOOUT,
	WAIT(1000), NOOUT, CTR(EWYK_TCP_RTO, 0), END };

static const struct step s_persist[] = { PASSIVE_OPEN,
	IN(F_ACK, 1, 1, .win = WIN0), SEND(100), NOOUT, WAIT(201),
	OUT(F_ACK, 1, 1, .len = 1), CTR(EWYK_TCP_PERSIST_PROBES, 1),
	IN(F_ACK, 1, 1, .win = WIN0), NOOUT, CTR(EWYK_TCP_DUPACKS_IN, 0),
	WAIT(401), OUT(F_ACK, 1, 1, .len = 1), IN(F_ACK, 1, 2, .win = 1000),
	OUT(F_ACK | F_PSH, 2, 1, .len = 99), IN(F_ACK, 1, 101), NOOUT,
	WAIT(10000), NOOUT, END };

static const struct step s_rcv_window[] = {
	IN(F_SYN, 0, 0, .mss = 1460, .ws = WS(7), .sackok = true, .ts = true),
	OUT(F_SYN | F_ACK, 0, 1, .ws = WS(0), .win = 4096), IN(F_ACK, 1, 1),
	EV(EV_ACCEPT, 0), IN(F_ACK, 1, 1, .len = 1448), EV(EV_RECV, 1448),
	OUT(F_ACK, 1, 1449, .win = 2648), IN(F_ACK, 1449, 1, .len = 1448),
	EV(EV_RECV, 1448), OUT(F_ACK, 1, 2897, .win = 1200),
	IN(F_ACK, 2897, 1, .len = 1200), EV(EV_RECV, 1200),
	OUT(F_ACK, 1, 4097, .win = WIN0),
	/* Zero window: data at RCV.NXT is a probe; its ACK is taken, not its data. */
	IN(F_ACK, 4097, 1, .len = 100), OUT(F_ACK, 1, 4097, .win = WIN0),
	IN(F_ACK, 4197, 1, .len = 100), OUT(F_ACK, 1, 4097, .win = WIN0),
	CTR(EWYK_TCP_DROP_OUT_OF_WINDOW, 1), RECVD(1000),
	NOOUT, /* too small an opening to announce */
	RECVD(3096), OUT(F_ACK, 1, 4097, .win = 4096),
	CTR(EWYK_TCP_WINDOW_UPDATES, 1), END
};

static const struct step s_tw_reuse[] = { PASSIVE_OPEN, CLOSE,
	OUT(F_FIN | F_ACK, 1, 1), IN(F_FIN | F_ACK, 1, 2), OUT(F_ACK, 2, 2),
	STATE(EWYK_TCP_TIME_WAIT),
	/* An old SYN (timestamp below TS.Recent): PAWS, ACK. */
	IN(F_SYN, 0, 0, .ts = true, .tsval = 5), OUT(F_ACK, 2, 2),
	CTR(EWYK_TCP_DROP_PAWS, 1), STATE(EWYK_TCP_TIME_WAIT),
	IN(F_SYN, 100000, 0, .mss = 1460, .ts = true),
	OUT(F_SYN | F_ACK, 2 + 131072, 100001, .ts = true),
	CTR(EWYK_TCP_TW_REUSE, 1), STATE(EWYK_TCP_SYN_RECEIVED),
	IN(F_ACK, 100001, 2 + 131072 + 1), EV(EV_ACCEPT, 0), STATE(ES), END };

static const struct step s_tw_overflow[] = { PASSIVE_OPEN, CLOSE,
	OUT(F_FIN | F_ACK, 1, 1), IN(F_FIN | F_ACK, 1, 2), OUT(F_ACK, 2, 2),
	STATE(EWYK_TCP_TIME_WAIT),
	/* A second one: over max_time_wait (1), it closes without TIME_WAIT. */
	IN(F_SYN, 0, 0, .sport = 40001, .mss = 1460),
	OUT(F_SYN | F_ACK, 0, 1, .learn = true),
	IN(F_ACK, 1, 1, .sport = 40001), EV(EV_ACCEPT, 0), CLOSE,
	OUT(F_FIN | F_ACK, 1, 1), IN(F_FIN | F_ACK, 1, 2, .sport = 40001),
	OUT(F_ACK, 2, 2), CTR(EWYK_TCP_TW_OVERFLOW, 1),
	CTR(EWYK_TCP_CONN_CLOSED, 1), STATE(EWYK_TCP_TIME_WAIT), END };

static const struct step s_syncookies[] = {
	IN(F_SYN, 0, 0, .mss = 1460, .ts = true, .sackok = true, .ws = WS(7)),
	OUT(F_SYN | F_ACK, 0, 1),
	/* Backlog (1) full: the next SYN is answered with a cookie. */
	IN(F_SYN, 0, 0, .sport = 40001, .mss = 1460, .ts = true, .sackok = true,
		.ws = WS(7)),
	OUT(F_SYN | F_ACK, 0, 1, .learn = true, .mss = 1460, .ts = true,
		.sackok = true, .ws = WS(3)),
	CTR(EWYK_TCP_SYNCOOKIES_SENT, 1),
	IN(F_ACK | F_PSH, 1, 1, .sport = 40001, .ts = true, .len = 10),
	EV(EV_ACCEPT, 0), EV(EV_RECV, 10), OUT(F_ACK, 1, 11, .ts = true),
	STATEP(ES, 40001), CTR(EWYK_TCP_SYNCOOKIES_OK, 1),
	/* A forged cookie. */
	IN(F_ACK, 1, 12345, .sport = 40002), OUT(F_RST, 12345, 0),
	CTR(EWYK_TCP_DROP_COOKIE, 1), END
};

static const struct step s_backlog_no_cookies[] = { IN(F_SYN, 0, 0,
							    .mss = 1460),
	OUT(F_SYN | F_ACK, 0, 1), IN(F_SYN, 0, 0, .sport = 40001, .mss = 1460),
	NOOUT, CTR(EWYK_TCP_DROP_BACKLOG, 1), END };

static const struct step s_closed_port[] = { IN(F_SYN, 0, 0, .dport = 81),
	OUT(F_RST | F_ACK, 0, 1), IN(F_ACK, 5, 77, .dport = 81),
	OUT(F_RST, 77, 0), IN(F_RST, 5, 0, .dport = 81), NOOUT,
	IN(F_FIN | F_ACK, 5, 3, .dport = 81, .len = 10), OUT(F_RST, 3, 0),
	IN(F_ACK, 1, 1), OUT(F_RST, 1, 0), /* listener port, no cookie sent */
	CTR(EWYK_TCP_DROP_NO_LISTENER, 5), CTR(EWYK_TCP_RST_OUT, 4), END };

static const struct step s_delayed_ack[] = { PASSIVE_OPEN,
	IN(F_ACK, 1, 1, .len = 100), EV(EV_RECV, 100), NOOUT, WAIT(39), NOOUT,
	WAIT(2), OUT(F_ACK, 1, 101), CTR(EWYK_TCP_DELAYED_ACKS, 1),
	IN(F_ACK, 101, 1, .len = 1448), EV(EV_RECV, 1448), NOOUT,
	IN(F_ACK, 1549, 1, .len = 1448), EV(EV_RECV, 1448), OUT(F_ACK, 1, 2997),
	/* A reply piggybacks the ACK; the delayed ACK is cancelled. */
	IN(F_ACK, 2997, 1, .len = 10), EV(EV_RECV, 10), NOOUT, SEND(5),
	OUT(F_ACK | F_PSH, 1, 3007, .len = 5), WAIT(100), NOOUT,
	/* Out of order: at once, and so is the segment that fills the gap. */
	IN(F_ACK, 5000, 6, .len = 10),
	OUT(F_ACK, 6, 3007, .nsack = 1, .sack = { { 5000, 5010 } }),
	IN(F_ACK, 3007, 6, .len = 1993), EV(EV_RECV, 1993), EV(EV_RECV, 10),
	OUT(F_ACK, 6, 5010, .nsack = -1), CTR(EWYK_TCP_DELAYED_ACKS, 1), END };

static const struct step s_data_after_close[] = { PASSIVE_OPEN, CLOSE,
	OUT(F_FIN | F_ACK, 1, 1), IN(F_ACK | F_PSH, 1, 2, .len = 10),
	OUT(F_RST | F_ACK, 2, 1), GONE, CTR(EWYK_TCP_CONN_ABORTED, 1), END };

static const struct step s_syn_received_corners[] = { IN(F_SYN, 0, 0,
							      .mss = 1460),
	OUT(F_SYN | F_ACK, 0, 1), IN(F_SYN, 0, 0, .mss = 1460),
	OUT(F_SYN | F_ACK, 0, 1), CTR(EWYK_TCP_SYN_RETRANS, 1),
	IN(F_ACK, 1, 55), OUT(F_RST, 55, 0), CTR(EWYK_TCP_DROP_BAD_ACK, 1),
	STATE(EWYK_TCP_SYN_RECEIVED), IN(F_ACK, 1, 0), OUT(F_RST, 0, 0),
	STATE(EWYK_TCP_SYN_RECEIVED), IN(F_RST, 1, 0), GONE, NOOUT, END };

static const struct step s_synack_give_up[] = { IN(F_SYN, 0, 0, .mss = 1460),
	OUT(F_SYN | F_ACK, 0, 1), WAIT(1001), OUT(F_SYN | F_ACK, 0, 1),
	WAIT(2001), OUT(F_SYN | F_ACK, 0, 1), WAIT(4001), GONE, NOOUT, END };

static const struct step s_keepalive[] = { PASSIVE_OPEN, WAIT(1001),
	OUT(F_ACK, 0, 1), CTR(EWYK_TCP_KEEPALIVE_PROBES, 1), IN(F_ACK, 1, 1),
	NOOUT, /* answered: idle again */
	WAIT(1001), OUT(F_ACK, 0, 1), WAIT(1001), OUT(F_ACK, 0, 1), WAIT(1001),
	OUT(F_RST | F_ACK, 1, 1), EV(EV_CLOSED, -ETIMEDOUT), GONE, END };

static const struct step s_fin_wait_2_timeout[] = { PASSIVE_OPEN, CLOSE,
	OUT(F_FIN | F_ACK, 1, 1), IN(F_ACK, 1, 2), STATE(EWYK_TCP_FIN_WAIT_2),
	WAIT(1999), STATE(EWYK_TCP_FIN_WAIT_2), WAIT(2), GONE, NOOUT,
	CTR(EWYK_TCP_CONN_TIMEOUT, 1), END };

static const struct step s_accept_refused[] = { IN(F_SYN, 0, 0, .mss = 1460),
	OUT(F_SYN | F_ACK, 0, 1), IN(F_ACK, 1, 1), EV(EV_ACCEPT, 0),
	OUT(F_RST | F_ACK, 1, 1), GONE, END };

static const struct step s_writable[] = { PASSIVE_OPEN,
	IN(F_ACK, 1, 1, .win = WIN0), SEND(3000), SENDX(3000),
	CTR(EWYK_TCP_SEND_REFUSED, 1), WAIT(201), OUT(F_ACK, 1, 1, .len = 1),
	IN(F_ACK, 1, 2, .win = 100), OUT(F_ACK, 2, 1, .len = 1448),
	OUT(F_ACK, 1450, 1, .len = 1448),
	OUT(F_ACK | F_PSH, 2898, 1, .len = 103), IN(F_ACK, 1, 1000),
	NOOUT, /* 2001 queued: not yet */
	IN(F_ACK, 1, 1450), EV(EV_WRITABLE, 0), NOOUT, END };

static const struct step s_bad_input[] = { PASSIVE_OPEN_PLAIN, BAD(BAD_CKSUM),
	CTR(EWYK_TCP_DROP_CKSUM, 1),
	/* The pseudo-header is the family's: IPv4's sum is wrong over IPv6
	 * and the other way round. */
	BAD(BAD_CKSUM_FAMILY), CTR(EWYK_TCP_DROP_CKSUM, 2), BAD(BAD_DOFF_SMALL),
	BAD(BAD_DOFF_BEYOND), CTR(EWYK_TCP_DROP_DOFF, 2), BAD(BAD_OPT_OVERLONG),
	BAD(BAD_OPT_ZERO_LEN), BAD(BAD_OPT_MSS_LEN), BAD(BAD_OPT_SACK_LEN),
	BAD(BAD_OPT_NO_LEN), CTR(EWYK_TCP_DROP_OPTIONS, 5), BAD(BAD_SYN_FIN),
	BAD(BAD_SYN_RST), BAD(BAD_RST_FIN), BAD(BAD_NO_FLAGS),
	BAD(BAD_FIN_ONLY), BAD(BAD_PSH_URG_ONLY), CTR(EWYK_TCP_DROP_FLAGS, 6),
	BAD(BAD_SPORT_ZERO), BAD(BAD_DPORT_ZERO), CTR(EWYK_TCP_DROP_PORT, 2),
	BAD(BAD_SHORT), CTR(EWYK_TCP_DROP_SHORT, 1), NOOUT, STATE(ES),
	CTR(EWYK_TCP_BYTES_IN, 0), BAD(BAD_GOOD_CKSUM), EV(EV_RECV, 10),
	OUT(F_ACK, 1, 11), IN(F_ACK, 11, 1, .len = 5), EV(EV_RECV, 5),
	OUT(F_ACK, 1, 16), END };

#define SC(n, ...)                                      \
	{                                               \
		.name = #n, .steps = s_##n, __VA_ARGS__ \
	}
const struct script tcp_scripts[] = {
	SC(passive_data_close),
	SC(passive_plain),
	SC(active_open),
	SC(passive_linux_opts),
	SC(active_refused),
	SC(syn_sent_corners),
	SC(simultaneous_open),
	SC(simultaneous_close),
	SC(close_fin_ack_together),
	SC(active_close),
	SC(half_close_ours),
	SC(half_close_peer),
	SC(close_on_eof, .close_on_eof = true),
	SC(rst_exact),
	SC(rst_hardening),
	SC(syn_in_established),
	SC(challenge_limit, .chack = 1),
	SC(out_of_window_data),
	SC(bad_ack),
	SC(ooo_sack),
	SC(ooo_fin),
	SC(paws),
	SC(sack_shrinks_payload),
	SC(paws_disordered_ack),
	SC(rto_backoff),
	SC(rto_give_up),
	SC(fast_retransmit),
	SC(newreno_partial),
	SC(sack_recovery),
	SC(sack_recovery_bidir),
	SC(tlp_dsack),
	SC(tlp_new_data),
	SC(persist),
	SC(rcv_window, .rcv_buf = 4096, .hold = true),
	SC(tw_reuse),
	SC(tw_overflow, .max_tw = 1),
	SC(syncookies, .backlog = 1),
	SC(backlog_no_cookies, .backlog = 1, .nocookies = true),
	SC(closed_port),
	SC(delayed_ack, .delack = true),
	SC(data_after_close),
	SC(syn_received_corners),
	SC(synack_give_up),
	SC(keepalive, .keepalive_ms = 1000),
	SC(fin_wait_2_timeout),
	SC(accept_refused, .refuse = true),
	SC(writable, .snd_buf = 4000),
	SC(bad_input),
};

const unsigned int tcp_nscripts = RTE_DIM(tcp_scripts);
