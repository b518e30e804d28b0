/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACK processing on the send side: freeing acknowledged data, RTT
 * estimation and RTO (RFC 6298), congestion control (RFC 5681) with
 * NewReno fast recovery (RFC 6582), limited transmit (RFC 3042), and the
 * SACK scoreboard (RFC 2018) used to choose which holes to retransmit.
 */

#include "tcp_private.h"

void
tcp_cc_init(struct ewyk_tcp_conn *c)
{
	/* RFC 6928 initial window. */
	c->cwnd = RTE_MIN(10u * c->snd_mss, RTE_MAX(2u * c->snd_mss, 14600u));
	c->ssthresh = UINT32_MAX / 2;
	c->recover = c->iss;
	c->dupacks = 0;
	c->in_recovery = 0;
	c->bytes_acked = 0;
}

void
tcp_rto_update(struct ewyk_tcp_conn *c)
{
	const struct ewyk_tcp_conf *cf = &c->tcp->conf;
	uint32_t rto_us = c->srtt_us + RTE_MAX(1000u, 4u * c->rttvar_us);
	uint32_t ms = (rto_us + 999) / 1000;

	c->rto_ms = RTE_MIN(RTE_MAX(ms, cf->rto_min_ms), cf->rto_max_ms);
}

void
tcp_rtt_sample(struct ewyk_tcp_conn *c, uint64_t rtt_cyc)
{
	uint64_t us64 = rtt_cyc / c->tcp->cyc_us;
	uint32_t r = us64 > UINT32_MAX / 8 ? UINT32_MAX / 8 : (uint32_t)us64;

	if (r == 0)
		r = 1;
	if (c->srtt_us == 0) {
		c->srtt_us = r;
		c->rttvar_us = r / 2;
	} else {
		uint32_t d = c->srtt_us > r ? c->srtt_us - r : r - c->srtt_us;

		c->rttvar_us = (3 * c->rttvar_us + d) / 4;
		c->srtt_us = (7 * c->srtt_us + r) / 8;
	}
	tcp_rto_update(c);
}

/* Free @p bytes of acknowledged data from the head of the send queue. */
void
tcp_sq_free_acked(struct ewyk_tcp_conn *c, uint32_t bytes)
{
	c->sq_len -= bytes;
	bytes += c->sq_off;
	while (c->sq_head != NULL && bytes >= c->sq_head->data_len) {
		struct rte_mbuf *m = c->sq_head;

		bytes -= m->data_len;
		c->sq_head = m->next;
		if (c->sq_cur == m)
			c->sq_cur = NULL;
		m->next = NULL;
		rte_pktmbuf_free_seg(m);
		c->sq_segs--;
		c->tcp->held_mbufs--;
	}
	if (c->sq_head == NULL) {
		c->sq_tail = NULL;
		c->sq_cur = NULL;
		bytes = 0;
	}
	c->sq_off = bytes;
}

void
tcp_sack_clear(struct ewyk_tcp_conn *c)
{
	c->nsack = 0;
}

/* Bytes the scoreboard holds (all above SND.UNA). */
static uint32_t
sacked_bytes(const struct ewyk_tcp_conn *c)
{
	uint32_t n = 0;
	unsigned int i;

	for (i = 0; i < c->nsack; i++)
		n += c->sack[i].end - c->sack[i].start;
	return n;
}

/*
 * Merge the valid SACK blocks of an ACK into the scoreboard. Returns the
 * bytes newly SACKed.
 */
uint32_t
tcp_sack_input(struct ewyk_tcp_conn *c, const struct tcp_seg *s)
{
	unsigned int i, j, k;
	uint32_t before;

	/* Forget what the cumulative ACK now covers. */
	for (i = 0, k = 0; i < c->nsack; i++) {
		if (SEQ_LEQ(c->sack[i].end, c->snd_una))
			continue;
		c->sack[k] = c->sack[i];
		if (SEQ_LT(c->sack[k].start, c->snd_una))
			c->sack[k].start = c->snd_una;
		k++;
	}
	c->nsack = (uint8_t)k;
	if (!c->sack_ok || s->o.nsack == 0)
		return 0;
	before = sacked_bytes(c);
	for (i = 0; i < s->o.nsack; i++) {
		uint32_t st = s->o.sack[i][0], en = s->o.sack[i][1];
		struct tcp_sack_blk nb;

		/* Ignore D-SACKs and blocks outside what we sent. */
		if (!SEQ_LT(st, en) || SEQ_LEQ(st, c->snd_una) ||
			SEQ_GT(en, c->snd_max))
			continue;
		tcp_ctr_inc(c->tcp, EWYK_TCP_SACK_BLOCKS_IN);
		nb.start = st;
		nb.end = en;
		/* Insert sorted, merging overlapping or touching blocks. */
		for (j = 0; j < c->nsack && SEQ_LT(c->sack[j].end, nb.start);
			j++)
			;
		k = j;
		while (k < c->nsack && SEQ_LEQ(c->sack[k].start, nb.end)) {
			nb.start = SEQ_MIN(nb.start, c->sack[k].start);
			nb.end = SEQ_MAX(nb.end, c->sack[k].end);
			k++;
		}
		/* Blocks j..k-1 collapse into nb. */
		if (k > j) {
			c->sack[j] = nb;
			memmove(&c->sack[j + 1], &c->sack[k],
				(c->nsack - k) * sizeof(c->sack[0]));
			c->nsack = (uint8_t)(c->nsack - (k - j - 1));
		} else {
			if (c->nsack == TCP_SACK_MAX) {
				if (j == TCP_SACK_MAX)
					continue; /* keep the lowest blocks */
				c->nsack--;
			}
			memmove(&c->sack[j + 1], &c->sack[j],
				(c->nsack - j) * sizeof(c->sack[0]));
			c->sack[j] = nb;
			c->nsack++;
		}
	}
	k = sacked_bytes(c);
	return k > before ? k - before : 0;
}

/*
 * The next hole at or after @p from: un-SACKed bytes below the highest
 * SACKed byte, which RFC 6675 deems lost once SACKed data lies above.
 */
bool
tcp_sack_next_hole(const struct ewyk_tcp_conn *c, uint32_t from,
	uint32_t *start, uint32_t *len)
{
	uint32_t s = SEQ_MAX(from, c->snd_una);
	unsigned int i;

	for (i = 0; i < c->nsack; i++) {
		if (SEQ_LT(s, c->sack[i].start)) {
			*start = s;
			*len = RTE_MIN(c->sack[i].start - s,
				(uint32_t)c->snd_mss);
			return true;
		}
		if (SEQ_LT(s, c->sack[i].end))
			s = c->sack[i].end;
	}
	return false;
}

/*
 * Resend at @p seq up to @p maxlen bytes (at most an MSS; and the FIN if it
 * was sent there). SACK options may make a segment shorter than asked: the
 * rest goes in a second one. Returns the sequence space covered.
 */
uint32_t
tcp_retransmit(struct ewyk_tcp_conn *c, uint32_t seq, uint32_t maxlen)
{
	uint32_t data_end = c->snd_una + c->sq_len;
	uint32_t len = 0, done = 0;
	bool fin;
	int n;

	if (SEQ_LT(seq, data_end))
		len = RTE_MIN(RTE_MIN(data_end - seq, maxlen),
			(uint32_t)c->snd_mss);
	fin = c->shut_wr && seq + len == data_end &&
		SEQ_GT(c->snd_max, data_end);
	if (len == 0 && !fin)
		return 0;
	do {
		n = tcp_send_segment(c, seq + done, len - done, fin);
		if (n < 0)
			break;
		done += (uint32_t)n;
	} while (done < len && n > 0);
	return done + (fin && done == len ? 1 : 0);
}

static uint32_t
flight_size(const struct ewyk_tcp_conn *c)
{
	return c->snd_max - c->snd_una;
}

/* Retransmit in recovery, remembering what had been sent by then. */
static uint32_t
recovery_rexmit(struct ewyk_tcp_conn *c, uint32_t seq, uint32_t len)
{
	uint32_t n = tcp_retransmit(c, seq, len);

	c->rexmit_mark = c->snd_max;
	c->rexmit_tsc = c->tcp->now;
	return n;
}

/*
 * Was the retransmission of SND.UNA lost? With SACK: the receiver reports
 * data sent after it, yet not it. Without: an RTT and more went by and
 * duplicate ACKs still come.
 */
static bool
rexmit_lost(const struct ewyk_tcp_conn *c)
{
	const struct ewyk_tcp *t = c->tcp;

	if (!SEQ_LT(c->snd_una, c->rexmit_nxt))
		return false; /* not retransmitted in this pass yet */
	if (c->sack_ok)
		return c->nsack > 0 &&
			SEQ_GT(c->sack[c->nsack - 1].end, c->rexmit_mark);
	return c->srtt_us != 0 &&
		t->now - c->rexmit_tsc >
		(2 * (uint64_t)c->srtt_us + 2000) * t->cyc_us;
}

static void
enter_recovery(struct ewyk_tcp_conn *c)
{
	struct ewyk_tcp *t = c->tcp;
	uint32_t mss = c->snd_mss;

	tcp_ctr_inc(t, EWYK_TCP_FAST_RETRANS);
	c->ssthresh = RTE_MAX(flight_size(c) / 2, 2 * mss);
	c->recover = c->snd_max;
	c->rto_recover = 0;
	c->in_recovery = 1;
	c->partial_seen = 0;
	c->rexmit_nxt = c->snd_una + recovery_rexmit(c, c->snd_una, mss);
	c->cwnd = c->ssthresh + 3 * mss;
}

static void
dupack(struct ewyk_tcp_conn *c, const struct tcp_seg *s)
{
	struct ewyk_tcp *t = c->tcp;
	uint32_t st, len;

	tcp_ctr_inc(t, EWYK_TCP_DUPACKS_IN);
	if (c->dupacks < UINT8_MAX)
		c->dupacks++;
	if (c->in_recovery) {
		if (rexmit_lost(c)) {
			/* Start the pass over the holes again. */
			tcp_ctr_inc(t, EWYK_TCP_LOST_RETRANS);
			c->rexmit_nxt = c->snd_una +
				recovery_rexmit(c, c->snd_una, c->snd_mss);
			return;
		}
		/* One segment left the network: fill a hole if SACK shows one. */
		if (c->sack_ok &&
			tcp_sack_next_hole(c, c->rexmit_nxt, &st, &len) &&
			SEQ_LT(st, c->recover)) {
			c->rexmit_nxt = st + recovery_rexmit(c, st, len);
			tcp_ctr_inc(t, EWYK_TCP_SACK_RETRANS);
		} else {
			c->cwnd += c->snd_mss;
		}
		return;
	}
	/* RFC 5681 three duplicates, or RFC 6675 IsLost(SND.UNA). */
	if (c->dupacks >= 3 ||
		(c->sack_ok && sacked_bytes(c) > 2u * c->snd_mss)) {
		bool ok = c->rto_recover ? SEQ_GT(s->ack, c->recover) :
					   SEQ_GEQ(s->ack, c->recover);

		if (ok)
			enter_recovery(c);
	}
}

static void
new_ack(struct ewyk_tcp_conn *c, uint32_t acked)
{
	struct ewyk_tcp *t = c->tcp;
	uint32_t mss = c->snd_mss;
	uint32_t st, len;

	if (c->in_recovery) {
		if (SEQ_GEQ(c->snd_una, c->recover)) {
			/* Full ACK: deflate (RFC 6582 3.2 step 3). */
			c->cwnd = RTE_MIN(c->ssthresh,
				RTE_MAX(flight_size(c), mss) + mss);
			c->in_recovery = 0;
			c->dupacks = 0;
			c->bytes_acked = 0;
			return;
		}
		/* Partial ACK: the next hole is lost too. */
		tcp_ctr_inc(t, EWYK_TCP_PARTIAL_ACKS);
		if (SEQ_GEQ(c->snd_una, c->rexmit_nxt) || !c->sack_ok ||
			rexmit_lost(c)) {
			if (SEQ_LT(c->snd_una, c->rexmit_nxt))
				tcp_ctr_inc(t, EWYK_TCP_LOST_RETRANS);
			c->rexmit_nxt = c->snd_una +
				recovery_rexmit(c, c->snd_una, mss);
		} else if (tcp_sack_next_hole(c, c->rexmit_nxt, &st, &len) &&
			SEQ_LT(st, c->recover)) {
			c->rexmit_nxt = st + recovery_rexmit(c, st, len);
			tcp_ctr_inc(t, EWYK_TCP_SACK_RETRANS);
		}
		c->cwnd -= RTE_MIN(acked, c->cwnd);
		if (acked >= mss)
			c->cwnd += mss;
		if (c->cwnd < mss)
			c->cwnd = mss;
		if (!c->partial_seen) {
			c->partial_seen = 1;
			tcp_timer_rto_restart(c);
		}
		return;
	}
	c->dupacks = 0;
	/* Grow only a window that was in use (RFC 7661 in spirit). */
	if (c->snd_max - c->snd_una + acked + mss < c->cwnd)
		return;
	if (c->cwnd < c->ssthresh) {
		c->cwnd += RTE_MIN(acked, mss); /* slow start */
	} else {
		c->bytes_acked += acked; /* congestion avoidance */
		if (c->bytes_acked >= c->cwnd) {
			c->bytes_acked -= c->cwnd;
			c->cwnd += mss;
		}
	}
	if (c->cwnd > (1u << 30))
		c->cwnd = 1u << 30;
}

/*
 * Process the ACK field of an acceptable segment in a synchronized state
 * (SEG.ACK already checked to be within [SND.UNA - MAX.SND.WND, SND.MAX]).
 */
void
tcp_ack_input(struct ewyk_tcp_conn *c, const struct tcp_seg *s)
{
	struct ewyk_tcp *t = c->tcp;
	uint32_t ack = s->ack;
	uint32_t wnd = s->wnd << c->snd_wscale;
	bool win_same = wnd == c->snd_wnd;
	unsigned int i;

	/* A D-SACK (RFC 2883) for the loss probe: it was not needed. */
	for (i = 0; c->tlp_out && c->tlp_rexmit && i < s->o.nsack; i++)
		if (SEQ_LT(s->o.sack[i][0], ack) &&
			SEQ_LEQ(s->o.sack[i][0], c->tlp_seq) &&
			SEQ_GT(s->o.sack[i][1], c->tlp_seq))
			c->tlp_dsack = 1;

	if (SEQ_GT(ack, c->snd_una)) {
		uint32_t acked = ack - c->snd_una;
		uint32_t data_acked = RTE_MIN(acked, c->sq_len);

		tcp_sq_free_acked(c, data_acked);
		if (acked > data_acked)
			c->fin_acked = 1;
		c->snd_una = ack;
		if (unlikely(c->v6))
			tcp_nd_confirm(c);
		if (SEQ_LT(c->snd_nxt, c->snd_una))
			c->snd_nxt = c->snd_una;
		if (SEQ_LT(c->rexmit_nxt, c->snd_una))
			c->rexmit_nxt = c->snd_una;
		if (c->rtt_timing && SEQ_GT(ack, c->rtt_seq)) {
			c->rtt_timing = 0;
			tcp_rtt_sample(c, t->now - c->rtt_tsc);
		}
		c->retries = 0;
		c->backoff = 0;
		if (c->nsack != 0 || s->o.nsack != 0)
			tcp_sack_input(c, s);
		new_ack(c, acked);
		/* SACK shows a loss even though the ACK moved (RFC 6675 IsLost). */
		if (!c->in_recovery && c->sack_ok &&
			sacked_bytes(c) > 2u * c->snd_mss &&
			(c->rto_recover ? SEQ_GT(ack, c->recover) :
					  SEQ_GEQ(ack, c->recover))) {
			c->dupacks = 0;
			enter_recovery(c);
		}
		if (c->tlp_out && SEQ_GEQ(ack, c->tlp_high)) {
			/*
			 * The probe's episode is over. A retransmitted probe the
			 * peer did not report as a duplicate repaired a loss:
			 * respond as fast recovery would (RFC 8985 7.4.2).
			 */
			c->tlp_out = 0;
			if (c->tlp_rexmit && !c->tlp_dsack) {
				c->ssthresh = RTE_MAX(c->cwnd / 2,
					2u * c->snd_mss);
				c->cwnd = c->ssthresh;
			}
		}
		if (c->snd_una == c->snd_max)
			tcp_timer_rtx_park(c);
		else if (!c->in_recovery || c->rtx_kind != TCP_RTX_RTO)
			tcp_timer_xmit_arm(c);
	} else {
		/*
		 * A duplicate ACK (RFC 5681), or, with SACK, any ACK at
		 * SND.UNA that SACKs new data: a peer that sends data too
		 * piggybacks all its ACKs, and none of them is "duplicate".
		 */
		uint32_t newly = c->nsack != 0 || s->o.nsack != 0 ?
			tcp_sack_input(c, s) :
			0;
		bool outstanding = c->snd_max != c->snd_una && c->snd_wnd != 0;

		if (ack == c->snd_una && outstanding &&
			((s->len == 0 && !(s->flags & (TH_SYN | TH_FIN)) &&
				 win_same) ||
				newly > 0))
			dupack(c, s);
	}
	/* Window update (RFC 9293 3.10.7.4, SND.WL1/WL2). */
	if (SEQ_LT(c->snd_wl1, s->seq) ||
		(c->snd_wl1 == s->seq && SEQ_LEQ(c->snd_wl2, ack))) {
		c->snd_wnd = wnd;
		c->snd_wl1 = s->seq;
		c->snd_wl2 = ack;
		if (wnd > c->max_snd_wnd)
			c->max_snd_wnd = wnd;
		if (wnd > 0 && c->rtx_kind == TCP_RTX_PERSIST)
			tcp_timer_rtx_park(c);
	}
	if (c->snd_wnd == 0) {
		c->retries = 0;       /* the peer is alive, just full */
		if (c->zwnd_tsc == 0) /* ... but not for ever: give_up() */
			c->zwnd_tsc = t->now;
	} else {
		c->zwnd_tsc = 0;
	}
}
