/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RFC 9293 state machine ("SEGMENT ARRIVES", section 3.10.7) with the
 * RFC 5961 hardening: RSTs act only exactly at RCV.NXT (challenge ACK
 * otherwise), SYNs in synchronized states are answered by a challenge
 * ACK, ACKs outside [SND.UNA - MAX.SND.WND, SND.NXT] are not accepted;
 * PAWS (RFC 7323); TIME-WAIT reuse. Passive opens and SYN cookies are in
 * tcp_passive.c.
 */

#include "tcp_private.h"

#define TS_LT(a, b) SEQ_LT(a, b)
#define TS_GEQ(a, b) SEQ_GEQ(a, b)

static void
drop_seg(struct ewyk_tcp *t, struct rte_mbuf *m, enum ewyk_tcp_counter why)
{
	tcp_ctr_inc(t, why);
	rte_pktmbuf_free(m);
}

/*
 * Answers to segments that fail a check (a duplicate ACK to an
 * out-of-window or PAWS-failing segment, a challenge ACK, a SYN-ACK to a
 * repeated SYN) are limited per connection to one per oow_ratelimit_ms,
 * as Linux's tcp_invalid_ratelimit: a flood of forged segments cannot
 * turn the endpoint into an amplifier. Returns true when this answer
 * must not be sent (counted).
 */
static bool
oow_limited(struct ewyk_tcp_conn *c)
{
	struct ewyk_tcp *t = c->tcp;

	if (t->conf.oow_ratelimit_ms == UINT32_MAX)
		return false;
	if (c->oow_tsc != 0 &&
		t->now - c->oow_tsc <
			tcp_ms_to_cyc(t, t->conf.oow_ratelimit_ms)) {
		tcp_ctr_inc(t, EWYK_TCP_OOW_LIMITED);
		return true;
	}
	c->oow_tsc = t->now;
	return false;
}

/* A duplicate ACK answering a segment that failed a check. */
static void
oow_ack(struct ewyk_tcp_conn *c)
{
	if (!oow_limited(c))
		tcp_send_ack(c);
}

/*
 * RFC 5961 section 7: challenge ACKs are throttled, per connection
 * (oow_limited) and per shard. The shard's budget for a second is drawn
 * at random in [limit / 2, limit * 3 / 2) (as Linux since 4.7), so that
 * counting challenge ACKs tells an off-path attacker nothing
 * (CVE-2016-5696).
 */
static void
challenge_ack(struct ewyk_tcp_conn *c)
{
	struct ewyk_tcp *t = c->tcp;
	uint64_t sec = t->now / t->hz;
	uint32_t limit = t->conf.challenge_ack_limit;

	if (oow_limited(c))
		return;
	if (sec != t->chack_sec) {
		t->chack_sec = sec;
		t->chack_left = limit == UINT32_MAX ?
			UINT32_MAX :
			(limit + 1) / 2 + tcp_keyed_rand(t, 4, sec) % limit;
	}
	if (t->chack_left == 0) {
		tcp_ctr_inc(t, EWYK_TCP_CHALLENGE_LIMITED);
		return;
	}
	if (t->chack_left != UINT32_MAX)
		t->chack_left--;
	tcp_ctr_inc(t, EWYK_TCP_CHALLENGE_ACKS);
	tcp_send_ack(c);
}

/*
 * The peer is heard from: a segment that passed the sequence and ACK
 * checks. Keep-alive and the idle limit count from here; a forged or
 * stale segment must not keep a connection alive.
 */
static inline void
rx_alive(struct ewyk_tcp_conn *c)
{
	c->last_rx_tsc = c->tcp->now;
	c->ka_probes = 0;
}

/* Options of the peer's SYN decide what the connection uses. */
void
tcp_syn_options(struct ewyk_tcp_conn *c, const struct tcp_seg *s)
{
	const struct ewyk_tcp_conf *cf = &c->tcp->conf;

	c->ts_ok = s->o.has_ts && !cf->no_timestamps;
	c->sack_ok = s->o.sack_perm && !cf->no_sack;
	c->ws_ok = s->o.has_ws && !cf->no_wscale;
	c->snd_wscale = c->ws_ok ? s->o.ws : 0;
	c->rcv_wscale = c->ws_ok ? c->tcp->rcv_wscale : 0;
	c->peer_mss = s->o.has_mss ? RTE_MAX(s->o.mss, (uint16_t)TCP_MIN_MSS) :
				     TCP_DEFAULT_MSS;
	if (c->ts_ok)
		c->ts_recent = s->o.tsval;
	tcp_conn_set_mss(c);
	tcp_cc_init(c);
}

/*
 * The handshake's ACK: SND.UNA moves past our SYN, the send window is
 * taken from the segment, the SYN's RTT is sampled, the retransmission
 * timer stops and the connection is ESTABLISHED. Shared by every way in:
 * the third segment of a passive open, a SYN cookie, a SYN-ACK answering
 * our SYN (simultaneous open included). Returns what
 * tcp_notify_established() returns (false: the connection is gone).
 */
bool
tcp_establish(struct ewyk_tcp_conn *c, const struct tcp_seg *s)
{
	struct ewyk_tcp *t = c->tcp;

	c->snd_una = c->iss + 1;
	if (SEQ_LT(c->snd_nxt, c->snd_una))
		c->snd_nxt = c->snd_una;
	/* The window of a SYN segment is never scaled (RFC 7323 2.2). */
	c->snd_wnd = (s->flags & TH_SYN) ? s->wnd : s->wnd << c->snd_wscale;
	c->max_snd_wnd = RTE_MAX(c->max_snd_wnd, c->snd_wnd);
	c->snd_wl1 = s->seq;
	c->snd_wl2 = s->ack;
	if (c->rtt_timing && c->retries == 0)
		tcp_rtt_sample(c, t->now - c->rtt_tsc);
	c->rtt_timing = 0;
	c->retries = 0;
	c->backoff = 0;
	/* Parked, not cancelled: the first send moves it on in O(1), and
	 * meanwhile it carries the idle timer (tcp_keepalive_start). */
	tcp_timer_rtx_park(c);
	if (c->in_syn_count && c->listener != NULL)
		c->listener->syn_count--;
	c->in_syn_count = 0;
	tcp_set_state(c, EWYK_TCP_ESTABLISHED);
	c->est_once = 1;
	tcp_ctr_inc(t, EWYK_TCP_ESTABLISHED_CONNS);
	rx_alive(c);
	tcp_keepalive_start(c);
	return tcp_notify_established(c);
}

static void
syn_sent_input(struct ewyk_tcp_conn *c, struct tcp_seg *s, struct rte_mbuf *m)
{
	struct ewyk_tcp *t = c->tcp;
	bool ack = (s->flags & TH_ACK) != 0;

	if (ack && (SEQ_LEQ(s->ack, c->iss) || SEQ_GT(s->ack, c->snd_max))) {
		if (!(s->flags & TH_RST)) {
			struct tcp_ip ip;

			tcp_conn_ip(c, &ip);
			tcp_send_rst_reply(t, s, &ip);
		}
		drop_seg(t, m, EWYK_TCP_DROP_BAD_ACK);
		return;
	}
	if (s->flags & TH_RST) {
		if (!ack) {
			drop_seg(t, m, EWYK_TCP_DROP_RST);
			return;
		}
		rte_pktmbuf_free(m);
		tcp_ctr_inc(t, EWYK_TCP_RST_IN);
		tcp_conn_drop(c, -ECONNREFUSED);
		return;
	}
	if (!(s->flags & TH_SYN)) {
		drop_seg(t, m, EWYK_TCP_DROP_STATE);
		return;
	}
	rte_pktmbuf_free(m); /* data on a SYN is not taken */
	c->irs = s->seq;
	c->rcv_nxt = s->seq + 1;
	c->last_ack_sent = c->rcv_nxt;
	tcp_syn_options(c, s);
	if (!(s->o.has_ts) || t->conf.no_timestamps)
		c->ts_ok = 0;
	if (ack) {
		/* SYN-ACK: SEG.ACK is ISS + 1 here (checked above). */
		c->rcv_adv = c->rcv_nxt;
		c->ack_now = 1;
		if (tcp_establish(c, s))
			tcp_ack_flush(c);
		return;
	}
	/* Simultaneous open (RFC 9293 figure 7). */
	c->snd_wnd = s->wnd;
	c->max_snd_wnd = s->wnd;
	c->snd_wl1 = s->seq;
	tcp_set_state(c, EWYK_TCP_SYN_RECEIVED);
	tcp_send_syn(c);
	tcp_timer_rto_arm(c);
}

/* TIME-WAIT: a retransmitted FIN, or a new SYN above the old connection
 * that may reuse the 4-tuple (RFC 9293 3.10.7.4, RFC 6191). */
static bool
time_wait_input(struct ewyk_tcp_conn *c, struct tcp_seg *s, struct rte_mbuf *m)
{
	struct ewyk_tcp *t = c->tcp;
	struct tcp_listener *l;
	struct tcp_ip ip;
	bool newer;
	uint32_t iss;

	if ((s->flags & (TH_FIN | TH_RST | TH_SYN)) == TH_FIN &&
		s->seq + s->len + 1 == c->rcv_nxt) {
		/* The peer's FIN again: our last ACK was lost (RFC 9293). */
		rte_pktmbuf_free(m);
		tcp_send_ack(c);
		tcp_timer_misc_arm(c, TCP_MISC_TIME_WAIT,
			t->now + tcp_ms_to_cyc(t, t->conf.time_wait_ms));
		return true;
	}
	if ((s->flags & (TH_SYN | TH_ACK | TH_RST)) != TH_SYN)
		return false;
	if (c->ts_ok && s->o.has_ts)
		newer = SEQ_GT(s->o.tsval, c->ts_recent);
	else
		newer = SEQ_GT(s->seq, c->rcv_nxt);
	if (!newer)
		return false;
	tcp_conn_ip(c, &ip);
	l = tcp_listener_find(t, &ip, c->lport);
	/* Reuse is a passive open: the backlog limits it as any other. */
	if (l == NULL || l->syn_count >= l->backlog)
		return false;
	iss = c->snd_nxt + TCP_TW_ISS_GAP;
	tcp_ctr_inc(t, EWYK_TCP_TW_REUSE);
	tcp_ctr_inc(t, EWYK_TCP_CONN_CLOSED);
	tcp_conn_destroy(c);
	tcp_passive_open(t, l, s, m, &ip, NULL, true, iss);
	return true;
}

static void
reset_conn(struct ewyk_tcp_conn *c)
{
	struct ewyk_tcp *t = c->tcp;

	tcp_ctr_inc(t, EWYK_TCP_RST_IN);
	if (c->state == EWYK_TCP_SYN_RECEIVED) {
		tcp_conn_drop(c, -ECONNREFUSED);
		return;
	}
	if (c->state != EWYK_TCP_TIME_WAIT)
		tcp_ctr_inc(t, EWYK_TCP_CONN_RESET);
	tcp_conn_drop(c, -ECONNRESET);
}

/* RFC 9293 3.10.7.4, first check: is the sequence number acceptable? */
static bool
seq_acceptable(const struct ewyk_tcp_conn *c, const struct tcp_seg *s,
	uint32_t wnd)
{
	uint32_t seglen = s->len + ((s->flags & TH_SYN) ? 1 : 0) +
		((s->flags & TH_FIN) ? 1 : 0);
	uint32_t nxt = c->rcv_nxt;

	if (seglen == 0) {
		if (wnd == 0)
			return s->seq == nxt;
		return SEQ_LEQ(nxt, s->seq) && SEQ_LT(s->seq, nxt + wnd);
	}
	if (wnd == 0)
		return false;
	return (SEQ_LEQ(nxt, s->seq) && SEQ_LT(s->seq, nxt + wnd)) ||
		(SEQ_LEQ(nxt, s->seq + seglen - 1) &&
			SEQ_LT(s->seq + seglen - 1, nxt + wnd));
}

/*
 * A duplicate ACK overtaken by a later segment carries an older timestamp
 * but is no old duplicate: PAWS must not eat it, or fast retransmit
 * starves on a path that reorders (what Linux calls a disordered ACK).
 * Pure ACK at RCV.NXT, acknowledging SND.UNA, not widening the window,
 * and its timestamp within an RTO of TS.Recent.
 */
static bool
paws_disordered_ack(const struct ewyk_tcp_conn *c, const struct tcp_seg *s)
{
	uint32_t wnd = s->wnd << c->snd_wscale;

	return (s->flags & (TH_SYN | TH_FIN | TH_RST | TH_ACK)) == TH_ACK &&
		s->len == 0 && s->seq == c->rcv_nxt && s->ack == c->snd_una &&
		wnd != 0 && wnd <= c->snd_wnd &&
		c->ts_recent - s->o.tsval <= c->rto_ms;
}

void
tcp_fin_in_order(struct ewyk_tcp_conn *c)
{
	switch (c->state) {
	case EWYK_TCP_SYN_RECEIVED:
	case EWYK_TCP_ESTABLISHED:
		tcp_set_state(c, EWYK_TCP_CLOSE_WAIT);
		break;
	case EWYK_TCP_FIN_WAIT_1:
		if (!c->fin_acked)
			tcp_set_state(c, EWYK_TCP_CLOSING);
		break;
	default:
		break;
	}
	if (!c->eof_seen && c->app_known && !c->app_closed && c->ops != NULL &&
		c->ops->eof != NULL) {
		c->eof_seen = 1;
		c->ops->eof(c->ctx, c);
		if (c->dead)
			return;
	}
	c->eof_seen = 1;
	if (c->state == EWYK_TCP_FIN_WAIT_2 ||
		(c->state == EWYK_TCP_FIN_WAIT_1 && c->fin_acked))
		tcp_enter_time_wait(c);
}

/*
 * SYN-RECEIVED before the sequence check: a retransmitted SYN (our
 * SYN-ACK was lost), or in a simultaneous open the peer's SYN-ACK that
 * answers our SYN. RFC 9293 gets there through an extra ACK exchange;
 * taking it at once is what Linux does. Returns true when the segment was
 * consumed.
 */
static bool
syn_received_early(struct ewyk_tcp_conn *c, struct tcp_seg *s,
	struct rte_mbuf *m)
{
	struct ewyk_tcp *t = c->tcp;
	uint8_t f = s->flags & (TH_SYN | TH_ACK | TH_RST);

	if (f == TH_SYN && s->seq == c->irs) {
		if (!oow_limited(c)) {
			tcp_ctr_inc(t, EWYK_TCP_SYN_RETRANS);
			tcp_send_syn(c);
		}
		rte_pktmbuf_free(m);
		return true;
	}
	if (!c->passive && f == (TH_SYN | TH_ACK) && s->seq == c->irs &&
		s->ack == c->iss + 1) {
		rte_pktmbuf_free(m);
		c->ack_now = 1;
		if (tcp_establish(c, s))
			tcp_ack_flush(c);
		return true;
	}
	return false;
}

/* The receive window the sequence check and the text step use. */
static uint32_t
rcv_window(const struct ewyk_tcp_conn *c)
{
	if (SEQ_LT(c->rcv_adv, c->rcv_nxt))
		return tcp_rcv_space(c);
	return RTE_MAX(c->rcv_adv - c->rcv_nxt, tcp_rcv_space(c));
}

/*
 * First check (RFC 9293 3.10.7.4), with PAWS (RFC 7323 5.3) before it:
 * is the segment in the window? *mp becomes NULL when only the segment's
 * ACK is taken (a zero-window probe, an old duplicate). Returns false
 * when the segment was dropped.
 */
static bool
check_seq(struct ewyk_tcp_conn *c, struct tcp_seg *s, struct rte_mbuf **mp,
	uint32_t wnd)
{
	struct ewyk_tcp *t = c->tcp;

	/*
	 * RFC 7323 3.2: once timestamps are on, every segment but a RST
	 * carries one; one without is dropped silently. A SYN is let
	 * through to its challenge ACK: a restarted peer may not use them.
	 */
	if (c->ts_ok && !s->o.has_ts && !(s->flags & (TH_RST | TH_SYN))) {
		drop_seg(t, *mp, EWYK_TCP_DROP_NO_TS);
		return false;
	}
	/* PAWS, with TCP_PAWS_WINDOW of tolerance for reordering. */
	if (c->ts_ok && s->o.has_ts && !(s->flags & TH_RST) &&
		TS_LT(s->o.tsval + TCP_PAWS_WINDOW, c->ts_recent) &&
		!paws_disordered_ack(c, s)) {
		oow_ack(c);
		drop_seg(t, *mp, EWYK_TCP_DROP_PAWS);
		return false;
	}
	if (seq_acceptable(c, s, wnd))
		return true;
	/*
	 * A zero-window probe (at RCV.NXT): take its ACK, not its data, and
	 * answer at once. An old duplicate (wholly below RCV.NXT) is only
	 * answered, its ACK not taken (as Linux): anyone who knows the
	 * 4-tuple can forge one, and its ACK would free unacknowledged
	 * data. The peer's pure ACKs are at its SND.MAX, never old.
	 */
	if ((s->flags & (TH_SYN | TH_RST | TH_ACK)) == TH_ACK &&
		c->state != EWYK_TCP_SYN_RECEIVED && wnd == 0 &&
		s->seq == c->rcv_nxt) {
		rte_pktmbuf_free(*mp);
		*mp = NULL;
		s->len = 0;
		s->flags &= (uint8_t)~TH_FIN;
		c->ack_now = 1;
		return true;
	}
	if (!(s->flags & TH_RST))
		oow_ack(c);
	drop_seg(t, *mp, EWYK_TCP_DROP_OUT_OF_WINDOW);
	return false;
}

/*
 * Second to fourth checks: RST (acts only exactly at RCV.NXT, RFC 5961
 * 3.2), security (no IP security compartments here: nothing to check),
 * SYN (challenged, RFC 5961 4.2). Returns false when the segment was
 * consumed.
 */
static bool
check_rst_syn(struct ewyk_tcp_conn *c, struct tcp_seg *s, struct rte_mbuf *m)
{
	struct ewyk_tcp *t = c->tcp;

	if (s->flags & TH_RST) {
		rte_pktmbuf_free(m);
		if (s->seq == c->rcv_nxt) {
			reset_conn(c);
		} else {
			challenge_ack(c);
			tcp_ctr_inc(t, EWYK_TCP_DROP_RST);
		}
		return false;
	}
	if (s->flags & TH_SYN) {
		challenge_ack(c);
		drop_seg(t, m, EWYK_TCP_DROP_SYN);
		return false;
	}
	return true;
}

/* Our FIN is acknowledged: where that leads. Returns false when the
 * connection is gone (m freed). */
static bool
fin_acked(struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	struct ewyk_tcp *t = c->tcp;

	switch (c->state) {
	case EWYK_TCP_FIN_WAIT_1:
		tcp_set_state(c, EWYK_TCP_FIN_WAIT_2);
		if (c->app_closed)
			tcp_timer_misc_arm(c, TCP_MISC_FIN_WAIT_2,
				t->now +
					tcp_ms_to_cyc(t, t->conf.fin_wait2_ms));
		break;
	case EWYK_TCP_CLOSING:
		tcp_enter_time_wait(c);
		break;
	case EWYK_TCP_LAST_ACK:
		tcp_mbuf_free(m);
		tcp_ctr_inc(t, EWYK_TCP_CONN_CLOSED);
		tcp_notify_closed(c, 0);
		tcp_conn_destroy(c);
		return false;
	default:
		break;
	}
	if (c->dead) {
		rte_pktmbuf_free(m);
		return false;
	}
	return true;
}

/*
 * Fifth check: the ACK field. SYN-RECEIVED completes the handshake;
 * otherwise the ACK must lie in the RFC 5961 5.2 range, then it is
 * processed (tcp_ack_input), and what it acknowledges moves the state.
 * Returns false when the segment was consumed.
 */
static bool
check_ack(struct ewyk_tcp_conn *c, struct tcp_seg *s, struct rte_mbuf *m)
{
	struct ewyk_tcp *t = c->tcp;

	if (!(s->flags & TH_ACK)) {
		drop_seg(t, m, EWYK_TCP_DROP_NO_ACK);
		return false;
	}
	if (c->state == EWYK_TCP_SYN_RECEIVED) {
		if (SEQ_GT(s->ack, c->snd_una) && SEQ_LEQ(s->ack, c->snd_max)) {
			if (!tcp_establish(c, s)) {
				rte_pktmbuf_free(m);
				return false;
			}
		} else {
			struct tcp_ip ip;

			tcp_conn_ip(c, &ip);
			tcp_send_rst_reply(t, s, &ip);
			drop_seg(t, m, EWYK_TCP_DROP_BAD_ACK);
			return false;
		}
	}
	/* RFC 5961 5.2: acceptable ACK range. */
	if (SEQ_GT(s->ack, c->snd_max) ||
		SEQ_LT(s->ack, c->snd_una - RTE_MAX(c->max_snd_wnd, 65535u))) {
		challenge_ack(c);
		drop_seg(t, m, EWYK_TCP_DROP_BAD_ACK);
		return false;
	}
	/*
	 * RFC 7323 4.3: remember the peer's clock, but only from a segment
	 * that passed the sequence and ACK checks: a forged one with a TSval
	 * far ahead would make every real segment fail PAWS.
	 */
	if (c->ts_ok && s->o.has_ts && SEQ_LEQ(s->seq, c->last_ack_sent) &&
		TS_GEQ(s->o.tsval, c->ts_recent))
		c->ts_recent = s->o.tsval;
	rx_alive(c);
	tcp_ack_input(c, s);
	if (c->fin_acked && !fin_acked(c, m))
		return false;
	if (c->state == EWYK_TCP_TIME_WAIT) {
		rte_pktmbuf_free(m);
		if (s->flags & TH_FIN) {
			/* The peer's FIN again: our last ACK was lost. */
			tcp_send_ack(c);
			tcp_timer_misc_arm(c, TCP_MISC_TIME_WAIT,
				t->now +
					tcp_ms_to_cyc(t, t->conf.time_wait_ms));
		}
		return false;
	}
	if (c->want_writable && !c->app_closed && ewyk_tcp_send_space(c) > 0 &&
		c->sq_len <= t->conf.snd_buf / 2 &&
		c->sq_segs <= t->conf.conn_mbuf_max / 2) {
		c->want_writable = 0;
		if (c->ops != NULL && c->ops->writable != NULL)
			c->ops->writable(c->ctx, c);
		if (c->dead) {
			rte_pktmbuf_free(m);
			return false;
		}
	}
	return true;
}

/*
 * Sixth to eighth steps: URG (not supported: urgent data is just data),
 * the segment text and FIN, trimmed to [RCV.NXT, RCV.NXT + wnd). Consumes
 * m; the connection may be gone afterwards.
 */
static void
text_input(struct ewyk_tcp_conn *c, struct tcp_seg *s, struct rte_mbuf *m,
	uint32_t wnd)
{
	struct ewyk_tcp *t = c->tcp;
	uint32_t seq = s->seq, len = s->len, edge;
	bool fin = (s->flags & TH_FIN) != 0;

	if (len == 0 && !fin) {
		tcp_mbuf_free(m);
		tcp_ack_flush(c);
		return;
	}
	if (c->state != EWYK_TCP_ESTABLISHED &&
		c->state != EWYK_TCP_FIN_WAIT_1 &&
		c->state != EWYK_TCP_FIN_WAIT_2) {
		/* Past the peer's FIN: nothing new can come. */
		drop_seg(c->tcp, m, EWYK_TCP_DROP_AFTER_FIN);
		c->ack_now = 1;
		tcp_ack_flush(c);
		return;
	}
	if (len > 0 && c->app_closed) {
		/* Data for a closed connection: reset it (as Linux). */
		rte_pktmbuf_free(m);
		tcp_ctr_inc(t, EWYK_TCP_CONN_ABORTED);
		tcp_send_rst(c);
		tcp_conn_destroy(c);
		return;
	}
	if (SEQ_LT(seq, c->rcv_nxt)) {
		uint32_t cut = c->rcv_nxt - seq;

		if (cut >= len) {
			rte_pktmbuf_free(m);
			m = NULL;
			if (seq + len != c->rcv_nxt)
				fin = false;
			seq = c->rcv_nxt;
			len = 0;
			c->ack_now = 1; /* a duplicate */
		} else {
			m = tcp_mbuf_adj(m, cut);
			seq = c->rcv_nxt;
			len -= cut;
		}
	}
	edge = c->rcv_nxt + wnd;
	if (len > 0 && SEQ_GT(seq + len, edge)) {
		uint32_t excess = seq + len - edge;

		m = tcp_mbuf_trim(m, RTE_MIN(excess, len));
		len -= RTE_MIN(excess, len);
		fin = false;
		c->ack_now = 1;
	}
	if (len > 0 || fin) {
		tcp_data_input(c, seq, m, len, fin);
		if (c->dead)
			return;
	} else {
		rte_pktmbuf_free(m);
	}
	tcp_ack_flush(c);
}

/* A segment for a synchronized connection (RFC 9293 3.10.7.4). */
static void
sync_input(struct ewyk_tcp_conn *c, struct tcp_seg *s, struct rte_mbuf *m)
{
	uint32_t wnd;

	if (c->state == EWYK_TCP_SYN_RECEIVED && syn_received_early(c, s, m))
		return;
	wnd = rcv_window(c);
	if (!check_seq(c, s, &m, wnd) || !check_rst_syn(c, s, m) ||
		!check_ack(c, s, m))
		return;
	text_input(c, s, m, wnd);
}

void
tcp_state_input(struct ewyk_tcp_conn *c, struct tcp_seg *s, struct rte_mbuf *m)
{
	tcp_conn_hold(c);
	switch (c->state) {
	case EWYK_TCP_SYN_SENT:
		syn_sent_input(c, s, m);
		break;
	case EWYK_TCP_TIME_WAIT:
		if (time_wait_input(c, s, m))
			break;
		sync_input(c, s, m);
		break;
	default:
		sync_input(c, s, m);
		break;
	}
	tcp_conn_unhold(c);
}
