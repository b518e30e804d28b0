/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/tcp's TX wait set (back-pressure, tcp_txw.c), run by test_tcp.c's
 * main: the timer sends a full TX holds back, one by one and eight RTOs
 * at once (nothing is dropped at the port, everything goes once the room
 * is back), the fairness of the
 * resume under sustained saturation, and a delete in the middle of the
 * set. The port is the harness's model of lib/net's buffer (port_model):
 * a frame that finds no room there is dropped and counted as lib/net's
 * drop_tx_full would count it.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rte_mbuf.h>

#include "tcp_private.h"
#include "tcp_script.h"

static void
port_set(uint32_t room)
{
	H.port_model = true;
	H.port_room = room;
}

/* Open a connection, run @p held with no room at the port, then @p sent
 * with room again: nothing may have been dropped at the port. */
static void
held_then_sent(const struct script *sc, const struct step *open,
	const struct step *held, const struct step *sent)
{
	script_begin(sc);
	run_steps(open);
	port_set(0);
	run_steps(held);
	port_set(512);
	run_steps(sent);
	assert_int_equal(H.drop_tx_full, 0);
	h_free();
	memset(&H, 0, sizeof(H));
}

/*
 * A loss probe and an RTO that fire while the port has no room at all:
 * nothing is made (no frame reaches the full port), each is counted as
 * deferred, and each goes in the first loop with room: the probe as a
 * probe, the RTO's first segment from the wait set (go-back-N with a
 * window of one segment).
 */
static void
timers_tlp_rto(void)
{
	static const struct script sc = { .name = "tx_timers_tlp_rto" };
	static const struct step open[] = { PASSIVE_OPEN, SEND(2896),
		OUT(F_ACK, 1, 1, .len = 1448),
		OUT(F_ACK | F_PSH, 1449, 1, .len = 1448), END };
	static const struct step tlp_held[] = {
		/* The probe's time (10 ms): held, the RTO armed in its place. */
		WAIT(11), NOOUT, CTR(EWYK_TCP_TX_DEFERRED, 1),
		CTR(EWYK_TCP_TLP_PROBES, 0), END
	};
	static const struct step tlp_sent[] = { WAIT(1),
		OUT(F_ACK | F_PSH, 1449, 1, .len = 1448),
		CTR(EWYK_TCP_TLP_PROBES, 1), CTR(EWYK_TCP_TX_RESUMED, 1), NOOUT,
		END };
	static const struct step rto_held[] = { WAIT(201), NOOUT,
		CTR(EWYK_TCP_RTO, 1), CTR(EWYK_TCP_TX_DEFERRED, 2), END };
	static const struct step rto_sent[] = { WAIT(1),
		OUT(F_ACK, 1, 1, .len = 1448), NOOUT, IN(F_ACK, 1, 1449),
		OUT(F_ACK | F_PSH, 1449, 1, .len = 1448), IN(F_ACK, 1, 2897),
		NOOUT, WAIT(2000), NOOUT, CTR(EWYK_TCP_RTO, 1),
		CTR(EWYK_TCP_TX_RESUMED, 2), END };

	script_begin(&sc);
	run_steps(open);
	port_set(0);
	run_steps(tlp_held);
	assert_int_equal(H.t->txw_n, 1);
	port_set(512);
	run_steps(tlp_sent);
	assert_int_equal(H.t->txw_n, 0);
	port_set(0);
	run_steps(rto_held);
	port_set(512);
	run_steps(rto_sent);
	assert_int_equal(H.drop_tx_full, 0);
	h_free();
	memset(&H, 0, sizeof(H));
}

/* A zero-window probe: held (not counted as a probe, no backoff), sent
 * when the room is back. */
static void
timers_persist(void)
{
	static const struct script sc = { .name = "tx_timers_persist" };
	static const struct step open[] = { PASSIVE_OPEN,
		IN(F_ACK, 1, 1, .win = WIN0), SEND(100), NOOUT, END };
	static const struct step held[] = { WAIT(201), NOOUT,
		CTR(EWYK_TCP_TX_DEFERRED, 1), CTR(EWYK_TCP_PERSIST_PROBES, 0),
		END };
	static const struct step sent[] = { WAIT(1), OUT(F_ACK, 1, 1, .len = 1),
		CTR(EWYK_TCP_PERSIST_PROBES, 1), IN(F_ACK, 1, 2, .win = 1000),
		OUT(F_ACK | F_PSH, 2, 1, .len = 99), IN(F_ACK, 1, 101), NOOUT,
		END };

	held_then_sent(&sc, open, held, sent);
}

/* A keep-alive probe: our own TX is full, the peer is not silent: held,
 * counted as a probe only when it goes. */
static void
timers_keepalive(void)
{
	static const struct script sc = { .name = "tx_timers_keepalive",
		.keepalive_ms = 1000 };
	static const struct step open[] = { PASSIVE_OPEN, END };
	static const struct step held[] = { WAIT(1001), NOOUT,
		CTR(EWYK_TCP_TX_DEFERRED, 1), CTR(EWYK_TCP_KEEPALIVE_PROBES, 0),
		END };
	static const struct step sent[] = { WAIT(1), OUT(F_ACK, 0, 1),
		CTR(EWYK_TCP_KEEPALIVE_PROBES, 1), IN(F_ACK, 1, 1), NOOUT,
		STATE(ES), END };

	held_then_sent(&sc, open, held, sent);
}

/* A FIN alone (the application closes with nothing queued): it waits
 * too, and goes when the room is back; the RST of an abort goes at
 * once, into the reserve. */
static void
timers_fin_rst(void)
{
	static const struct script sc = { .name = "tx_fin_rst" };
	static const struct step open[] = { PASSIVE_OPEN, END };
	static const struct step held[] = { CLOSE, NOOUT,
		CTR(EWYK_TCP_TX_BLOCKED, 1), WAIT(1), NOOUT, END };
	static const struct step sent[] = { WAIT(1), OUT(F_FIN | F_ACK, 1, 1),
		IN(F_FIN | F_ACK, 1, 2), OUT(F_ACK, 2, 2), END };

	held_then_sent(&sc, open, held, sent);
}

#define NCONN 8

/* Open NCONN connections from ports PPORT + i; their handles in @p c. */
static void
open_many(struct ewyk_tcp_conn *c[NCONN])
{
	unsigned int i;

	for (i = 0; i < NCONN; i++) {
		uint16_t p = (uint16_t)(PPORT + i);
		const struct step open[] = {
			IN(F_SYN, 0, 0, .sport = p, .mss = 1460, .ws = WS(7),
				.sackok = true, .ts = true),
			OUT(F_SYN | F_ACK, 0, 1, .learn = true),
			IN(F_ACK, 1, 1, .sport = p, .ts = true),
			EV(EV_ACCEPT, 0), END
		};

		run_steps(open);
		c[i] = H.conn;
		assert_non_null(c[i]);
	}
}

/* Send @p len bytes on @p c (the harness's SEND on that connection). */
static void
send_on(struct ewyk_tcp_conn *c, uint32_t len)
{
	const struct step send[] = { SEND(len), END };

	H.conn = c;
	run_steps(send);
}

/* One loop (ewyk_tcp_advance without moving the clock); returns the
 * index of the connection whose segments came out (-1: none), checking
 * that they all came from one connection, and how many in @p n. */
static int
loop_once(unsigned int *n)
{
	int who = -1;

	run_steps((const struct step[]){ WAIT(0), END });
	*n = 0;
	while (H.rcap < H.ncap) {
		int i = (int)H.caps[H.rcap++].dport - PPORT;

		assert_true(i >= 0 && i < NCONN);
		assert_true(who == -1 || who == i);
		who = i;
		(*n)++;
	}
	H.ncap = H.rcap = 0;
	return who;
}

/*
 * Eight RTOs in one wheel step while the port has room for four frames
 * (inside the reserve): none is sent (sending them would have dropped
 * four at the port), each is counted, and all eight go, once each, when
 * the room is back.
 */
static void
timers_rto_storm(void)
{
	static const struct script sc = { .name = "tx_rto_storm" };
	struct ewyk_tcp_conn *c[NCONN];
	unsigned int i, seen[NCONN] = { 0 };

	script_begin(&sc);
	open_many(c);
	for (i = 0; i < NCONN; i++)
		send_on(c[i], 100);
	H.ncap = H.rcap = 0;
	port_set(4);
	/* No loss probe: the RTO of 200 ms comes first with one segment. */
	run_steps((const struct step[]){ WAIT(201), NOOUT,
		CTR(EWYK_TCP_RTO, NCONN), CTR(EWYK_TCP_TX_DEFERRED, NCONN),
		END });
	assert_int_equal(H.t->txw_n, NCONN);
	port_set(512);
	run_steps((const struct step[]){ WAIT(1), END });
	for (i = H.rcap; i < H.ncap; i++) {
		int k = (int)H.caps[i].dport - PPORT;

		assert_true(k >= 0 && k < NCONN);
		assert_int_equal(H.caps[i].len, 100);
		seen[k]++;
	}
	for (i = 0; i < NCONN; i++)
		assert_int_equal(seen[i], 1);
	H.ncap = H.rcap = 0;
	assert_int_equal(H.t->txw_n, 0);
	assert_int_equal(H.drop_tx_full, 0);
	h_free();
	memset(&H, 0, sizeof(H));
}

void
test_tx_timers_wait(void **state)
{
	RTE_SET_USED(state);
	timers_tlp_rto();
	timers_persist();
	timers_keepalive();
	timers_fin_rst();
	timers_rto_storm();
}

/*
 * Sustained saturation: every loop the port has room for one segment
 * beyond the reserve. Eight connections wait, in two groups (0-3, 4-7);
 * each loop one sends and goes back to the tail, so they take turns in
 * the order they came, each group progressing in turn, and after four
 * rounds every connection has sent exactly four segments. (A resume that
 * starts over from the first slot would send connection 0 every loop.)
 */
void
test_tx_resume_fair(void **state)
{
	static const struct script sc = { .name = "tx_resume_fair" };
	struct ewyk_tcp_conn *c[NCONN];
	unsigned int sent[NCONN] = { 0 }, i, n, loop;
	unsigned int group[2] = { 0, 0 };

	RTE_SET_USED(state);
	script_begin(&sc);
	open_many(c);
	H.ncap = H.rcap = 0;
	port_set(EWYK_TCP_TX_RESERVE);
	for (i = 0; i < NCONN; i++)
		send_on(c[i], 8 * 1448);
	assert_int_equal(H.t->txw_n, NCONN);
	assert_int_equal(H.ncap, 0);
	for (loop = 0; loop < 4 * NCONN; loop++) {
		int who;

		port_set(EWYK_TCP_TX_RESERVE + 1);
		who = loop_once(&n);
		assert_int_equal(n, 1);
		assert_int_equal(who, (int)(loop % NCONN));
		sent[who]++;
		group[who / (NCONN / 2)]++;
		/* Both groups progress: neither is ever a turn behind. */
		assert_true(abs((int)group[0] - (int)group[1]) <= NCONN / 2);
		assert_int_equal(H.t->txw_n, NCONN);
	}
	for (i = 0; i < NCONN; i++)
		assert_int_equal(sent[i], 4);
	assert_int_equal(group[0], group[1]);
	/* Room for all: each sends the rest of its window, the set empties. */
	port_set(512);
	run_steps((const struct step[]){ WAIT(0), END });
	assert_int_equal(H.t->txw_n, 0);
	assert_int_equal(H.drop_tx_full, 0);
	h_free();
	memset(&H, 0, sizeof(H));
}

/*
 * A connection aborted in the middle of the set leaves it at once (its
 * RST goes into the reserve); the others keep their order around the
 * hole, and each resumes once. The first and the last leave too.
 */
void
test_tx_wait_del_middle(void **state)
{
	static const struct script sc = { .name = "tx_wait_del_middle" };
	static const int order[] = { 1, 3, 5, 6 };
	struct ewyk_tcp_conn *c[NCONN];
	unsigned int i, n;

	RTE_SET_USED(state);
	script_begin(&sc);
	open_many(c);
	H.ncap = H.rcap = 0;
	port_set(EWYK_TCP_TX_RESERVE);
	for (i = 0; i < NCONN; i++)
		send_on(c[i], 100);
	assert_int_equal(H.t->txw_n, NCONN);
	/* The middle one, then the head and the tail, then one more. */
	ewyk_tcp_abort(c[4]);
	assert_int_equal(H.t->txw_n, NCONN - 1);
	ewyk_tcp_abort(c[0]);
	ewyk_tcp_abort(c[7]);
	ewyk_tcp_abort(c[2]);
	assert_int_equal(H.t->txw_n, NCONN - 4);
	/* The RSTs went into the reserve; nothing else. */
	for (i = H.rcap; i < H.ncap; i++)
		assert_true(H.caps[i].flags & F_RST);
	assert_int_equal(H.ncap - H.rcap, 4);
	H.ncap = H.rcap = 0;
	/* One segment of room a loop: the rest, in their order. */
	for (i = 0; i < RTE_DIM(order); i++) {
		port_set(EWYK_TCP_TX_RESERVE + 1);
		assert_int_equal(loop_once(&n), order[i]);
		assert_int_equal(n, 1);
		assert_int_equal(H.t->txw_n, RTE_DIM(order) - 1 - i);
	}
	assert_int_equal(H.t->txw_head, TCP_TXW_NONE);
	assert_int_equal(H.t->txw_tail, TCP_TXW_NONE);
	assert_int_equal(H.drop_tx_full, 0);
	h_free();
	memset(&H, 0, sizeof(H));
}
