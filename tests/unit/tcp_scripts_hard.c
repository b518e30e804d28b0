/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scripts of the hardening review (docs/guides/security.md): blind attacks
 * by someone who knows the 4-tuple but not the sequence numbers, and the
 * limits that keep one peer from holding a shard's resources. Each failed
 * before its fix.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tcp_script.h"

/*
 * TS.Recent is taken only from a segment that passed the sequence and
 * ACK checks (RFC 7323 4.3): an old duplicate or a segment with an
 * unacceptable ACK, both with a TSval far ahead, must not make every
 * later segment fail PAWS.
 */
static const struct step s_ts_recent_poison[] = { PASSIVE_OPEN,
	IN(F_ACK, -5000, 1, .tsval = 1000000), OUT(F_ACK, 1, 1),
	IN(F_ACK | F_PSH, 1, 1, .len = 50), EV(EV_RECV, 50), OUT(F_ACK, 1, 51),
	IN(F_ACK, 51, 100000, .tsval = 2000000), OUT(F_ACK, 1, 51),
	CTR(EWYK_TCP_DROP_BAD_ACK, 1), IN(F_ACK | F_PSH, 51, 1, .len = 10),
	EV(EV_RECV, 10), OUT(F_ACK, 1, 61), CTR(EWYK_TCP_DROP_PAWS, 0),
	CTR(EWYK_TCP_BYTES_IN, 60), END };

/*
 * A blind ACK: a sequence number below RCV.NXT (an "old duplicate") with
 * an ACK value inside (SND.UNA, SND.MAX] must not free unacknowledged
 * data: the RTO still retransmits from the first byte.
 */
static const struct step s_blind_ack[] = { PASSIVE_OPEN, SEND(5792),
	OUT(F_ACK, 1, 1, .len = 1448), OUT(F_ACK, 1449, 1, .len = 1448),
	OUT(F_ACK, 2897, 1, .len = 1448),
	OUT(F_ACK | F_PSH, 4345, 1, .len = 1448), IN(F_ACK, -3000, 2897),
	OUT(F_ACK, 5793, 1), CTR(EWYK_TCP_DROP_OUT_OF_WINDOW, 1), WAIT(11),
	OUT(F_ACK | F_PSH, 4345, 1, .len = 1448), /* loss probe */
	WAIT(300), OUT(F_ACK, 1, 1, .len = 1448), CTR(EWYK_TCP_RTO, 1),
	IN(F_ACK, 1, 5793), NOOUT, END };

/* On a timestamp connection a segment without one is dropped silently
 * (RFC 7323 3.2); a RST needs none. */
static const struct step s_ts_required[] = { PASSIVE_OPEN,
	IN(F_ACK | F_PSH, 1, 1, .len = 10, .nots = true), NOOUT,
	CTR(EWYK_TCP_DROP_NO_TS, 1), CTR(EWYK_TCP_BYTES_IN, 0),
	IN(F_ACK | F_PSH, 1, 1, .len = 10), EV(EV_RECV, 10), OUT(F_ACK, 1, 11),
	IN(F_RST, 11, 0), EV(EV_CLOSED, -ECONNRESET), GONE, END };

/*
 * Answers to segments that fail a check are limited per connection
 * (oow_ratelimit_ms, here 500): a challenge ACK, a duplicate ACK to an
 * out-of-window segment, one to a PAWS failure share one budget.
 */
static const struct step s_oow_ratelimit[] = { PASSIVE_OPEN, IN(F_RST, 100, 0),
	OUT(F_ACK, 1, 1), CTR(EWYK_TCP_CHALLENGE_ACKS, 1), IN(F_SYN, 5, 0),
	NOOUT, IN(F_ACK, 500000, 1, .len = 10), NOOUT,
	IN(F_ACK, 1, 1, .len = 10, .tsval = 5), NOOUT,
	CTR(EWYK_TCP_OOW_LIMITED, 3), CTR(EWYK_TCP_DROP_OUT_OF_WINDOW, 1),
	CTR(EWYK_TCP_DROP_PAWS, 1), WAIT(499), IN(F_ACK, 500000, 1, .len = 10),
	NOOUT, WAIT(1), IN(F_ACK, 500000, 1, .len = 10), OUT(F_ACK, 1, 1),
	/* Data in order is answered as ever. */
	IN(F_ACK | F_PSH, 1, 1, .len = 10), EV(EV_RECV, 10), OUT(F_ACK, 1, 11),
	STATE(ES), END };

/* A SYN repeated in SYN-RECEIVED gets its SYN-ACK again, within the same
 * per-connection limit. */
static const struct step s_synack_ratelimit[] = { IN(F_SYN, 0, 0, .mss = 1460),
	OUT(F_SYN | F_ACK, 0, 1), IN(F_SYN, 0, 0, .mss = 1460),
	OUT(F_SYN | F_ACK, 0, 1), IN(F_SYN, 0, 0, .mss = 1460), NOOUT,
	IN(F_SYN, 0, 0, .mss = 1460), NOOUT, CTR(EWYK_TCP_SYN_RETRANS, 1),
	CTR(EWYK_TCP_OOW_LIMITED, 2), WAIT(500), IN(F_SYN, 0, 0, .mss = 1460),
	OUT(F_SYN | F_ACK, 0, 1), IN(F_ACK, 1, 1), EV(EV_ACCEPT, 0), STATE(ES),
	END };

/*
 * The shard's challenge-ACK budget is drawn anew each second in
 * [limit / 2, limit * 3 / 2): with a limit of 10, forty challenged RSTs a
 * second get 5 to 14 answers, not always the same number (a fixed
 * budget tells an off-path attacker when its guesses hit, CVE-2016-5696).
 */
void
test_challenge_random(void **state)
{
	static const struct script sc = {
		.name = "challenge_random",
		.chack = 10,
	};
	static const struct step open[] = { PASSIVE_OPEN, END };
	static const struct step sec[] = { WAIT(1000), END };
	unsigned int budget[8], k, i, distinct = 0;

	RTE_SET_USED(state);
	script_begin(&sc);
	run_steps(open);
	for (k = 0; k < RTE_DIM(budget); k++) {
		unsigned int n0 = H.ncap;

		for (i = 0; i < 40; i++) {
			const struct step rst[] = { IN(F_RST, 100 + i, 0),
				END };

			run_steps(rst);
		}
		budget[k] = H.ncap - n0;
		H.rcap = H.ncap;
		assert_in_range(budget[k], 5, 14);
		run_steps(sec);
	}
	for (k = 1; k < RTE_DIM(budget); k++)
		if (budget[k] != budget[0])
			distinct++;
	assert_true(distinct > 0);
	h_free();
	memset(&H, 0, sizeof(H));
}

/*
 * A SYN cookie is valid for two 64 s slots; the cookie carries 5 bits of
 * the slot, and the hash used to cover only those: 32 slots (34 min)
 * later the same cookie was valid again. Now the hash covers the whole
 * slot.
 */
static const struct step s_cookie_wrap[] = { IN(F_SYN, 0, 0, .mss = 1460),
	OUT(F_SYN | F_ACK, 0, 1), IN(F_SYN, 0, 0, .sport = 40001, .mss = 1460),
	OUT(F_SYN | F_ACK, 0, 1, .learn = true),
	CTR(EWYK_TCP_SYNCOOKIES_SENT, 1),
	/* The first one's SYN-ACKs run out meanwhile. */
	WAIT(1001), OUT(F_SYN | F_ACK, 0, 1, .any_seq = true), WAIT(2001),
	OUT(F_SYN | F_ACK, 0, 1, .any_seq = true), WAIT(4001), GONE,
	WAIT(32 * 64 * 1000 - 7003),
	/* A flood goes on: the backlog is full, cookies are being sent. */
	IN(F_SYN, 0, 0, .sport = 40003, .mss = 1460),
	OUT(F_SYN | F_ACK, 0, 1, .any_seq = true),
	IN(F_SYN, 0, 0, .sport = 40002, .mss = 1460),
	OUT(F_SYN | F_ACK, 0, 1, .any_seq = true),
	CTR(EWYK_TCP_SYNCOOKIES_SENT, 2),
	/* The cookie of 34 minutes ago. */
	IN(F_ACK, 1, 1, .sport = 40001), OUT(F_RST, 1, 0),
	CTR(EWYK_TCP_DROP_COOKIE, 1), CTR(EWYK_TCP_SYNCOOKIES_OK, 0), END };

/*
 * idle_timeout_ms (here 5 s): a connection nothing valid arrived on for
 * that long is reset (echo, discard and any service whose client went
 * quiet). A forged, out-of-window segment does not count as life.
 */
static const struct step s_idle_timeout[] = { PASSIVE_OPEN, WAIT(4000),
	IN(F_ACK | F_PSH, 1, 1, .len = 10), EV(EV_RECV, 10), OUT(F_ACK, 1, 11),
	WAIT(4000), IN(F_ACK, 500000, 1, .len = 10), OUT(F_ACK, 1, 11),
	WAIT(999), STATE(ES), NOOUT, WAIT(2), OUT(F_RST | F_ACK, 1, 11),
	EV(EV_CLOSED, -ETIMEDOUT), GONE, CTR(EWYK_TCP_IDLE_TIMEOUT, 1), END };

/* Keep-alive counts from the last valid segment: a forged one in between
 * does not put the probe off. */
static const struct step s_keepalive_forged[] = { PASSIVE_OPEN, WAIT(900),
	IN(F_ACK, 500000, 1, .len = 10), OUT(F_ACK, 1, 1), WAIT(101),
	OUT(F_ACK, 0, 1), CTR(EWYK_TCP_KEEPALIVE_PROBES, 1), END };

/*
 * The idle timer rides on the parked retransmission timer (due 1 s after
 * the SYN-ACK) and is armed on its own only when that one comes up: the
 * probe still goes at keepalive_ms (here 3 s), not before.
 */
static const struct step s_keepalive_lazy[] = { PASSIVE_OPEN, WAIT(2999), NOOUT,
	CTR(EWYK_TCP_KEEPALIVE_PROBES, 0), WAIT(2), OUT(F_ACK, 0, 1),
	CTR(EWYK_TCP_KEEPALIVE_PROBES, 1), END };

/* ... and when data moves that timer past the idle deadline (here
 * keepalive_ms 1.1 s, the RTO 200 ms from 950 ms), the idle timer is armed
 * then: the probe goes at 1.1 s, not at the RTO. */
static const struct step s_keepalive_lazy_moved[] = { PASSIVE_OPEN, WAIT(950),
	SEND(100), OUT(F_ACK | F_PSH, 1, 1, .len = 100), WAIT(149), NOOUT,
	WAIT(2), OUT(F_ACK, 0, 1), CTR(EWYK_TCP_KEEPALIVE_PROBES, 1),
	CTR(EWYK_TCP_RTO, 0), END };

/*
 * orphan_timeout_ms (here 3 s): the application closed with data queued
 * and the peer answers every probe with a zero window. Its ACKs reset
 * the retry count; the orphan limit still gives the connection up.
 */
static const struct step s_orphan_zero_window[] = { PASSIVE_OPEN,
	IN(F_ACK, 1, 1, .win = WIN0), SEND(100), NOOUT, CLOSE,
	STATE(EWYK_TCP_FIN_WAIT_1), WAIT(201), OUT(F_ACK, 1, 1, .len = 1),
	IN(F_ACK, 1, 1, .win = WIN0), WAIT(401), OUT(F_ACK, 1, 1, .len = 1),
	IN(F_ACK, 1, 1, .win = WIN0), WAIT(801), OUT(F_ACK, 1, 1, .len = 1),
	IN(F_ACK, 1, 1, .win = WIN0), WAIT(1601),
	OUT(F_RST | F_ACK, 1, 1, .any_seq = true), GONE,
	CTR(EWYK_TCP_ORPHAN_TIMEOUT, 1), END };

/* persist_max_ms (here 2 s): the application is still there, the peer's
 * window stays zero: the connection is given up. */
static const struct step s_persist_give_up[] = { PASSIVE_OPEN,
	IN(F_ACK, 1, 1, .win = WIN0), SEND(100), NOOUT, WAIT(201),
	OUT(F_ACK, 1, 1, .len = 1), IN(F_ACK, 1, 1, .win = WIN0), WAIT(401),
	OUT(F_ACK, 1, 1, .len = 1), IN(F_ACK, 1, 1, .win = WIN0), WAIT(801),
	OUT(F_ACK, 1, 1, .len = 1), IN(F_ACK, 1, 1, .win = WIN0), WAIT(1601),
	OUT(F_RST | F_ACK, 1, 1, .any_seq = true), EV(EV_CLOSED, -ETIMEDOUT),
	GONE, CTR(EWYK_TCP_PERSIST_TIMEOUT, 1), END };

/* max_conns_per_src (here 2): one address cannot hold every connection;
 * when one of its connections goes, it may open another. */
static const struct step s_per_source_limit[] = { PASSIVE_OPEN_PLAIN,
	IN(F_SYN, 0, 0, .sport = 40001, .mss = 1460),
	OUT(F_SYN | F_ACK, 0, 1, .learn = true),
	IN(F_ACK, 1, 1, .sport = 40001), EV(EV_ACCEPT, 0),
	IN(F_SYN, 0, 0, .sport = 40002, .mss = 1460), NOOUT,
	CTR(EWYK_TCP_DROP_SRC_LIMIT, 1), ABORT, OUT(F_RST | F_ACK, 1, 1),
	IN(F_SYN, 0, 0, .sport = 40002, .mss = 1460),
	OUT(F_SYN | F_ACK, 0, 1, .learn = true), END };

/* TIME_WAIT reuse is a passive open: with the backlog full, a new SYN on
 * the old 4-tuple is not taken (it is answered as in TIME_WAIT). */
static const struct step s_tw_reuse_backlog[] = { PASSIVE_OPEN, CLOSE,
	OUT(F_FIN | F_ACK, 1, 1), IN(F_FIN | F_ACK, 1, 2), OUT(F_ACK, 2, 2),
	STATE(EWYK_TCP_TIME_WAIT),
	IN(F_SYN, 0, 0, .sport = 40001, .mss = 1460, .ts = true),
	OUT(F_SYN | F_ACK, 0, 1, .any_seq = true),
	IN(F_SYN, 100000, 0, .mss = 1460, .ts = true), OUT(F_ACK, 2, 2),
	CTR(EWYK_TCP_TW_REUSE, 0), STATE(EWYK_TCP_TIME_WAIT), END };

/* RSTs to segments of no connection: rst_limit a second (here 2). */
static const struct step s_rst_limit[] = { IN(F_SYN, 0, 0, .dport = 81),
	OUT(F_RST | F_ACK, 0, 1), IN(F_SYN, 0, 0, .dport = 81),
	OUT(F_RST | F_ACK, 0, 1), IN(F_SYN, 0, 0, .dport = 81), NOOUT,
	IN(F_ACK, 5, 77, .dport = 81), NOOUT, CTR(EWYK_TCP_RST_LIMITED, 2),
	CTR(EWYK_TCP_DROP_NO_LISTENER, 4), WAIT(1000),
	IN(F_ACK, 5, 77, .dport = 81), OUT(F_RST, 77, 0), END };

/*
 * Every connection in use (max_conns, here 2): a SYN is dropped and
 * counted, not answered with a cookie that no connection could be made
 * of (before: a SYN-ACK, and the peer's ACK then vanished, leaving it
 * "connected" to nothing). When one goes, the next SYN is taken.
 */
static const struct step s_conns_full[] = { PASSIVE_OPEN_PLAIN,
	IN(F_SYN, 0, 0, .sport = 40001, .mss = 1460),
	OUT(F_SYN | F_ACK, 0, 1, .learn = true),
	IN(F_ACK, 1, 1, .sport = 40001), EV(EV_ACCEPT, 0),
	IN(F_SYN, 0, 0, .sport = 40002, .mss = 1460), NOOUT,
	CTR(EWYK_TCP_DROP_NO_CONN_MEM, 1), CTR(EWYK_TCP_SYNCOOKIES_SENT, 0),
	ABORT, OUT(F_RST | F_ACK, 1, 1),
	IN(F_SYN, 0, 0, .sport = 40002, .mss = 1460),
	OUT(F_SYN | F_ACK, 0, 1, .learn = true), END };

/* Data past the peer's FIN is dropped, and counted. */
static const struct step s_data_after_fin[] = { PASSIVE_OPEN,
	IN(F_FIN | F_ACK, 1, 1), OUT(F_ACK, 1, 2), EV(EV_EOF, 0),
	STATE(EWYK_TCP_CLOSE_WAIT), IN(F_ACK | F_PSH, 2, 1, .len = 10),
	OUT(F_ACK, 1, 2), CTR(EWYK_TCP_DROP_AFTER_FIN, 1),
	CTR(EWYK_TCP_BYTES_IN, 0), END };

/*
 * Buffers count as what they pin. 2,000 one-byte sends to a peer whose
 * window is zero are copied into the send queue's last buffer: they pin
 * a couple of mbufs, not 2,000 (before: one each).
 */
void
test_send_coalesce(void **state)
{
	static const struct script sc = { .name = "send_coalesce" };
	static const struct step open[] = { PASSIVE_OPEN,
		IN(F_ACK, 1, 1, .win = WIN0), END };
	static const struct step one[] = { SEND(1), END };
	unsigned int in0, i;

	RTE_SET_USED(state);
	script_begin(&sc);
	run_steps(open);
	in0 = rte_mempool_in_use_count(mp);
	for (i = 0; i < 2000; i++)
		run_steps(one);
	assert_true(rte_mempool_in_use_count(mp) - in0 <= 4);
	assert_int_equal(ewyk_tcp_counter_get(H.t, EWYK_TCP_SEND_COALESCED) -
			H.ctr0[EWYK_TCP_SEND_COALESCED],
		1999);
	assert_int_equal(H.ncap, H.rcap); /* nothing sent */
	h_free();
	memset(&H, 0, sizeof(H));
}

/*
 * 600 one-byte out-of-order segments (a hole before each) on one
 * connection pin at most their share: conn_mbuf_max (here 64), and the
 * out-of-order queues together half the context's budget (here 100):
 * 50; the rest are dropped and counted (before: ooo_max_segs, 512, were
 * held). A second connection then finds the out-of-order half spent.
 */
void
test_ooo_pinned(void **state)
{
	static const struct script sc = {
		.name = "ooo_pinned",
		.conn_mbufs = 64,
		.mbuf_budget = 100,
	};
	static const struct step open[] = { PASSIVE_OPEN, END };
	static const struct step open2[] = { IN(F_SYN, 0, 0, .sport = 40001,
						     .mss = 1460, .ts = true),
		OUT(F_SYN | F_ACK, 0, 1, .learn = true),
		IN(F_ACK, 1, 1, .sport = 40001), EV(EV_ACCEPT, 0), END };
	unsigned int in0, i, k;
	uint64_t d0;

	RTE_SET_USED(state);
	script_begin(&sc);
	run_steps(open);
	in0 = rte_mempool_in_use_count(mp);
	d0 = H.ctr0[EWYK_TCP_DROP_OOO_BUDGET];
	for (k = 0; k < 2; k++) {
		if (k == 1)
			run_steps(open2);
		for (i = 0; i < 600; i++) {
			const struct step seg[] = {
				IN(F_ACK, 3 + 2 * (int64_t)i, 1, .len = 1,
					.sport = k == 0 ? 0 : 40001),
				END
			};

			run_steps(seg);
			H.ncap = H.rcap = 0; /* the SACKs: not checked */
		}
	}
	assert_true(rte_mempool_in_use_count(mp) - in0 <= 50 + 4);
	assert_int_equal(ewyk_tcp_counter_get(H.t, EWYK_TCP_DROP_OOO_BUDGET) -
			d0,
		(600 - 50) + 600);
	h_free();
	memset(&H, 0, sizeof(H));
}

static struct rte_mbuf *
kb_mbuf(void)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);

	assert_non_null(m);
	assert_non_null(rte_pktmbuf_append(m, 1000)); /* not coalesced */
	return m;
}

/*
 * Replies go on under an out-of-order flood and a full send budget.
 * An attacker's out-of-order segments take at most half of the budget
 * (here 100): a zero-window connection then still queues 50 buffers
 * (before: the flood took 64 + 36 and every send was refused). With
 * the whole budget spent, a connection whose send queue is empty may
 * still queue one buffer (before: refused, and with nothing in flight
 * nothing would ever have woken it); its second is refused.
 */
void
test_send_under_flood(void **state)
{
	static const struct script sc = {
		.name = "send_under_flood",
		.conn_mbufs = 64,
		.mbuf_budget = 100,
	};
	static const struct step open[] = { PASSIVE_OPEN, END };
	static const struct step open2[] = { IN(F_SYN, 0, 0, .sport = 40001,
						     .mss = 1460, .ts = true),
		OUT(F_SYN | F_ACK, 0, 1, .learn = true),
		IN(F_ACK, 1, 1, .sport = 40001, .win = WIN0), EV(EV_ACCEPT, 0),
		END };
	static const struct step open3[] = { IN(F_SYN, 0, 0, .sport = 40002,
						     .mss = 1460, .ts = true),
		OUT(F_SYN | F_ACK, 0, 1, .learn = true),
		IN(F_ACK, 1, 1, .sport = 40002, .win = WIN0), EV(EV_ACCEPT, 0),
		END };
	struct ewyk_tcp_conn *c2, *c3;
	struct rte_mbuf *m;
	unsigned int i, queued = 0;

	RTE_SET_USED(state);
	script_begin(&sc);
	run_steps(open);
	for (i = 0; i < 600; i++) {
		const struct step seg[] = {
			IN(F_ACK, 3 + 2 * (int64_t)i, 1, .len = 1), END
		};

		run_steps(seg);
		H.ncap = H.rcap = 0;
	}
	run_steps(open2);
	c2 = H.conn;
	for (i = 0; i < 100; i++) {
		m = kb_mbuf();
		if (ewyk_tcp_send(c2, m) != 0) {
			rte_pktmbuf_free(m);
			break;
		}
		queued++;
	}
	assert_int_equal(queued, 50);
	run_steps(open3);
	c3 = H.conn;
	assert_true(ewyk_tcp_send_space(c3) > 0);
	assert_int_equal(ewyk_tcp_send(c3, kb_mbuf()), 0);
	m = kb_mbuf();
	assert_int_equal(ewyk_tcp_send(c3, m), -EAGAIN);
	rte_pktmbuf_free(m);
	assert_int_equal(H.ncap, H.rcap); /* zero windows: nothing sent */
	h_free();
	memset(&H, 0, sizeof(H));
}

/*
 * 600 one-byte segments behind one hole: each continues the queued
 * segment before it and is copied into its buffer. None is dropped, a
 * few buffers are pinned, and filling the hole delivers all 601 bytes
 * (before: one buffer each, 536 dropped over the connection's 64).
 */
void
test_ooo_coalesce(void **state)
{
	static const struct script sc = {
		.name = "ooo_coalesce",
		.conn_mbufs = 64,
	};
	static const struct step open[] = { PASSIVE_OPEN, END };
	static const struct step fill[] = { IN(F_ACK | F_PSH, 1, 1, .len = 1),
		EV(EV_RECV, 1), EV(EV_RECV, 600), OUT(F_ACK, 1, 602),
		CTR(EWYK_TCP_BYTES_IN, 601), CTR(EWYK_TCP_DROP_OOO_BUDGET, 0),
		CTR(EWYK_TCP_OOO_COALESCED, 599), END };
	unsigned int in0, i;

	RTE_SET_USED(state);
	script_begin(&sc);
	run_steps(open);
	in0 = rte_mempool_in_use_count(mp);
	for (i = 0; i < 600; i++) {
		const struct step seg[] = {
			IN(F_ACK, 2 + (int64_t)i, 1, .len = 1), END
		};

		run_steps(seg);
		H.ncap = H.rcap = 0; /* the SACKs: not checked */
	}
	assert_true(rte_mempool_in_use_count(mp) - in0 <= 4);
	run_steps(fill);
	h_free();
	memset(&H, 0, sizeof(H));
}

/*
 * The echo that pinned a buffer per byte: 8,000 one-byte segments in order
 * to an echo whose peer advertises a zero window. The send buffer (here
 * 4,000 bytes) fills, the rest waits in the echo's chain. Both copy small
 * payloads, so the connection pins a few buffers, far under its share
 * (conn_mbuf_max, here 64), not 8,000; the bytes wait in order.
 */
void
test_echo_zero_window(void **state)
{
	static const struct script sc = {
		.name = "echo_zero_window",
		.echo = true,
		.snd_buf = 4000,
		.conn_mbufs = 64,
	};
	static const struct step open[] = { PASSIVE_OPEN,
		IN(F_ACK, 1, 1, .win = WIN0), END };
	unsigned int in0, i;
	uint8_t b[4000];

	RTE_SET_USED(state);
	script_begin(&sc);
	run_steps(open);
	in0 = rte_mempool_in_use_count(mp);
	for (i = 0; i < 8000; i++) {
		const struct step seg[] = {
			IN(F_ACK | F_PSH, 1 + (int64_t)i, 1, .len = 1), END
		};

		run_steps(seg);
		H.ncap = H.rcap = 0; /* the ACKs: not checked */
	}
	assert_true(rte_mempool_in_use_count(mp) - in0 < 64);
	assert_non_null(H.pend);
	assert_int_equal(H.pend->pkt_len, 4000);
	assert_non_null(rte_pktmbuf_read(H.pend, 0, sizeof(b), b));
	for (i = 0; i < sizeof(b); i++)
		assert_int_equal(b[i], (uint8_t)(4001 + i));
	assert_true(ewyk_tcp_counter_get(H.t, EWYK_TCP_RECV_COALESCED) -
			H.ctr0[EWYK_TCP_RECV_COALESCED] >=
		3990);
	h_free();
	memset(&H, 0, sizeof(H));
}

#define SC(n, ...)                                      \
	{                                               \
		.name = #n, .steps = s_##n, __VA_ARGS__ \
	}
const struct script tcp_hard_scripts[] = {
	SC(ts_recent_poison),
	SC(blind_ack),
	SC(ts_required),
	SC(oow_ratelimit, .oow_ms = 500),
	SC(synack_ratelimit, .oow_ms = 500),
	SC(cookie_wrap, .backlog = 1),
	SC(idle_timeout, .idle_ms = 5000),
	SC(keepalive_forged, .keepalive_ms = 1000),
	SC(keepalive_lazy, .keepalive_ms = 3000),
	SC(keepalive_lazy_moved, .keepalive_ms = 1100),
	SC(orphan_zero_window, .orphan_ms = 3000),
	SC(persist_give_up, .persist_ms = 2000),
	SC(per_source_limit, .per_src = 2),
	SC(tw_reuse_backlog, .backlog = 1),
	SC(rst_limit, .rst_limit = 2),
	SC(data_after_fin),
	SC(conns_full, .max_conns = 2),
};

const unsigned int tcp_hard_nscripts = RTE_DIM(tcp_hard_scripts);

/*
 * Received data the application holds counts in the connection's mbuf
 * budget: an echo whose peer's window is zero holds 600-byte segments
 * (too large to copy together) until it holds its share (64 buffers);
 * past it, TCP stops taking in-order data (not acknowledged: the peer
 * sends it again) and counts it. What the echo holds is exactly the
 * bytes taken, in order: nothing acknowledged is dropped.
 */
void
test_echo_recv_budget(void **state)
{
	static const struct script sc = {
		.name = "echo_recv_budget",
		.echo = true,
		.snd_buf = 4000,
		.conn_mbufs = 64,
	};
	static const struct step open[] = { PASSIVE_OPEN,
		IN(F_ACK, 1, 1, .win = WIN0), END };
	uint64_t drops;
	unsigned int i;
	uint32_t k;
	uint8_t b[600], v0;

	RTE_SET_USED(state);
	script_begin(&sc);
	run_steps(open);
	for (i = 0; i < 100; i++) {
		const struct step seg[] = {
			IN(F_ACK | F_PSH, 1 + (int64_t)i * 600, 1, .len = 600),
			END
		};

		run_steps(seg);
		H.ncap = H.rcap = 0; /* the ACKs: not checked */
	}
	drops = ewyk_tcp_counter_get(H.t, EWYK_TCP_DROP_RCV_BUDGET) -
		H.ctr0[EWYK_TCP_DROP_RCV_BUDGET];
	assert_true(drops > 0);
	assert_non_null(H.pend);
	assert_true(H.pend->nb_segs <= 64);
	assert_true(H.pend->pkt_len % 600 == 0);
	/* the stream's bytes, contiguous, from where the echo stopped */
	v0 = *rte_pktmbuf_mtod(H.pend, uint8_t *);
	for (k = 0; k < H.pend->pkt_len; k += sizeof(b)) {
		const uint8_t *d = rte_pktmbuf_read(H.pend, k, sizeof(b), b);

		assert_non_null(d);
		for (i = 0; i < sizeof(b); i++)
			assert_int_equal(d[i], (uint8_t)(v0 + k + i));
	}
	h_free();
	memset(&H, 0, sizeof(H));
}
