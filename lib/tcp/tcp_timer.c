/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection timers, three intrusive nodes per connection on the shard's
 * wheel:
 *   rtx     retransmission (RFC 6298, with backoff and a retry limit) or
 *           zero-window persist (RFC 9293 3.8.6.1);
 *   delack  delayed ACK (RFC 9293 3.8.6.3);
 *   misc    TIME-WAIT (2MSL), FIN-WAIT-2 limit, keep-alive (RFC 9293 3.8.4).
 *
 * From establishment the rtx node stays on the wheel (parked when nothing
 * is outstanding) until TIME-WAIT or the end. While it is due no later
 * than the idle deadline, it carries the idle timer (idle_on_rtx): the misc
 * node is armed for keep-alive only when rtx comes up, or is moved past
 * that deadline. A connection that carries one request and closes within
 * its first RTO never arms the misc node for keep-alive (the side that
 * closes first arms it for TIME-WAIT).
 */

#include "tcp_private.h"

static void
tmr_set(struct ewyk_tcp_conn *c, struct ewyk_twheel_timer *tm, uint8_t bit,
	uint64_t expiry, ewyk_twheel_cb_t cb)
{
	struct ewyk_tcp *t = c->tcp;

	if (c->tmr_used & bit) {
		ewyk_twheel_rearm(t->wheel, tm, expiry);
	} else {
		if (ewyk_twheel_arm(t->wheel, tm, expiry, cb, c) == 0)
			c->tmr_used |= bit;
	}
}

static void
tmr_stop(struct ewyk_tcp_conn *c, struct ewyk_twheel_timer *tm)
{
	if (ewyk_twheel_pending(tm))
		ewyk_twheel_cancel(c->tcp->wheel, tm);
}

static uint64_t
rto_cyc(const struct ewyk_tcp_conn *c)
{
	const struct ewyk_tcp *t = c->tcp;
	uint64_t ms = (uint64_t)c->rto_ms << RTE_MIN(c->backoff, 16);

	if (ms > t->conf.rto_max_ms)
		ms = t->conf.rto_max_ms;
	return tcp_ms_to_cyc(t, ms);
}

static void rtx_cb(struct ewyk_twheel *w, struct ewyk_twheel_timer *tm,
	void *arg);
static void delack_cb(struct ewyk_twheel *w, struct ewyk_twheel_timer *tm,
	void *arg);
static void misc_cb(struct ewyk_twheel *w, struct ewyk_twheel_timer *tm,
	void *arg);

static inline uint64_t idle_deadline(const struct ewyk_tcp_conn *c);

/* The rtx node moves to @p expiry, its callback rtx_cb(). */
static inline void
rtx_set(struct ewyk_tcp_conn *c, uint64_t expiry)
{
	struct ewyk_twheel *w = c->tcp->wheel;
	uint64_t bound = 0;

	/* Past the idle deadline it no longer carries the idle timer. The
	 * wheel may fire a re-armed node after @p expiry (a slack-placed slot
	 * is kept, a cascade rounds up): what counts is when it will come
	 * up. The wheel's bound for this re-arm, taken before it, settles
	 * it on nearly every send (the deadline is an idle period away);
	 * only within about an RTO of the deadline is the wheel asked. */
	if (unlikely(c->idle_on_rtx))
		bound = ewyk_twheel_due_bound(w, expiry);
	tmr_set(c, &c->rtx_tmr, TCP_TMR_RTX, expiry, rtx_cb);
	if (unlikely(c->idle_on_rtx) && bound > idle_deadline(c) &&
		ewyk_twheel_due_by(w, &c->rtx_tmr) > idle_deadline(c))
		tcp_keepalive_arm(c);
}

void
tcp_timer_rto_arm(struct ewyk_tcp_conn *c)
{
	c->tlp_owed = 0; /* re-armed: what was owed is superseded */
	c->persist_owed = 0;
	c->rtx_kind = TCP_RTX_RTO;
	rtx_set(c, c->tcp->now + rto_cyc(c));
}

void
tcp_timer_rto_restart(struct ewyk_tcp_conn *c)
{
	tcp_timer_rto_arm(c);
}

/*
 * Data in flight: arm a tail loss probe (RFC 8985 section 7) when one can
 * go, else the RTO. A lost tail, or the lost single ACK of a peer that
 * ACKs rarely, then costs a probe after two RTTs instead of an RTO.
 */
void
tcp_timer_xmit_arm(struct ewyk_tcp_conn *c)
{
	struct ewyk_tcp *t = c->tcp;
	uint64_t pto_us, rto_us;

	if (!c->sack_ok || c->in_recovery || c->srtt_us == 0 || c->tlp_out ||
		c->backoff != 0 || c->snd_wnd == 0 ||
		(c->state != EWYK_TCP_ESTABLISHED &&
			c->state != EWYK_TCP_CLOSE_WAIT)) {
		tcp_timer_rto_arm(c);
		return;
	}
	pto_us = 2 * (uint64_t)c->srtt_us;
	if (c->snd_max - c->snd_una <= c->snd_mss)
		pto_us += TCP_TLP_DELACK_US; /* one segment: a delayed ACK */
	if (pto_us < TCP_TLP_MIN_US)
		pto_us = TCP_TLP_MIN_US;
	rto_us = (uint64_t)c->rto_ms * 1000;
	if (pto_us >= rto_us) {
		tcp_timer_rto_arm(c);
		return;
	}
	c->tlp_owed = 0;
	c->persist_owed = 0;
	c->rtx_kind = TCP_RTX_TLP;
	rtx_set(c, t->now + pto_us * t->cyc_us);
}

void
tcp_timer_persist_arm(struct ewyk_tcp_conn *c)
{
	struct ewyk_tcp *t = c->tcp;
	uint64_t ms = (uint64_t)RTE_MAX(c->rto_ms, 200u)
		<< RTE_MIN(c->backoff, TCP_MAX_PROBES_BACKOFF);

	if (ms > t->conf.rto_max_ms)
		ms = t->conf.rto_max_ms;
	c->tlp_owed = 0;
	c->persist_owed = 0;
	c->rtx_kind = TCP_RTX_PERSIST;
	rtx_set(c, t->now + tcp_ms_to_cyc(t, ms));
}

void
tcp_timer_rtx_stop(struct ewyk_tcp_conn *c)
{
	c->tlp_owed = 0;
	c->persist_owed = 0;
	c->rtx_kind = TCP_RTX_NONE;
	/* Only TIME-WAIT and the end stop it: no idle timer there. */
	c->idle_on_rtx = 0;
	tmr_stop(c, &c->rtx_tmr);
}

/*
 * Everything sent is acknowledged: the timer has nothing to guard, but it
 * stays on the wheel, due at its old expiry. The next send re-arms it to a
 * later expiry, which the wheel only stores (taking it off and placing it
 * again at every request-response exchange of a keep-alive connection cost
 * more than the rest of the timer work); if it comes due first, rtx_cb()
 * finds TCP_RTX_NONE and does nothing.
 */
void
tcp_timer_rtx_park(struct ewyk_tcp_conn *c)
{
	c->tlp_owed = 0;
	c->persist_owed = 0;
	c->rtx_kind = TCP_RTX_NONE;
}

void
tcp_timer_delack_arm(struct ewyk_tcp_conn *c)
{
	struct ewyk_tcp *t = c->tcp;

	if (ewyk_twheel_pending(&c->delack_tmr))
		return;
	tmr_set(c, &c->delack_tmr, TCP_TMR_DELACK,
		t->now + tcp_ms_to_cyc(t, t->conf.delack_ms), delack_cb);
}

void
tcp_timer_delack_stop(struct ewyk_tcp_conn *c)
{
	tmr_stop(c, &c->delack_tmr);
}

void
tcp_timer_misc_arm(struct ewyk_tcp_conn *c, enum tcp_misc_kind k,
	uint64_t expiry)
{
	c->ka_owed = 0;
	c->idle_on_rtx = 0; /* misc armed: keep-alive or what replaces it */
	c->misc_kind = (uint8_t)k;
	tmr_set(c, &c->misc_tmr, TCP_TMR_MISC, expiry, misc_cb);
}

void
tcp_timer_misc_stop(struct ewyk_tcp_conn *c)
{
	c->ka_owed = 0;
	c->misc_kind = TCP_MISC_NONE;
	tmr_stop(c, &c->misc_tmr);
}

void
tcp_timer_stop_all(struct ewyk_tcp_conn *c)
{
	tcp_timer_rtx_stop(c);
	tcp_timer_delack_stop(c);
	tcp_timer_misc_stop(c);
}

/*
 * The idle timer: keep-alive probes after keepalive_ms of silence, and
 * (idle_timeout_ms) a reset after that long, whichever comes first; both
 * count from the last segment that passed the checks (last_rx_tsc).
 */
static inline uint64_t
idle_deadline(const struct ewyk_tcp_conn *c)
{
	uint64_t idle = c->tcp->idle_cyc;

	return idle == UINT64_MAX ? UINT64_MAX : c->last_rx_tsc + idle;
}

void
tcp_keepalive_arm(struct ewyk_tcp_conn *c)
{
	uint64_t d = idle_deadline(c);

	c->idle_on_rtx = 0;
	if (d != UINT64_MAX)
		tcp_timer_misc_arm(c, TCP_MISC_KEEPALIVE, d);
}

/*
 * Established (rtx parked): the idle timer is armed on misc only if the
 * rtx node, when it comes up, would be too late for it (or is not on the
 * wheel: a SYN cookie's connection). Otherwise rtx_cb() arms it then, or
 * rtx_set() when the node moves past the deadline; the idle deadline only
 * moves later (last_rx_tsc grows), so the check made now stays safe.
 */
void
tcp_keepalive_start(struct ewyk_tcp_conn *c)
{
	uint64_t d = idle_deadline(c);

	if (d == UINT64_MAX)
		return;
	if (ewyk_twheel_pending(&c->rtx_tmr) &&
		ewyk_twheel_due_by(c->tcp->wheel, &c->rtx_tmr) <= d) {
		c->idle_on_rtx = 1;
		return;
	}
	tcp_timer_misc_arm(c, TCP_MISC_KEEPALIVE, d);
}

void
tcp_enter_time_wait(struct ewyk_tcp_conn *c)
{
	struct ewyk_tcp *t = c->tcp;

	tcp_set_state(c, EWYK_TCP_TIME_WAIT);
	tcp_timer_rtx_stop(c);
	tcp_timer_delack_stop(c);
	tcp_ooo_purge(c);
	tcp_notify_closed(c, 0);
	if (c->dead)
		return;
	/*
	 * Connection objects held for 2MSL must not starve new connections
	 * (Linux's tcp_max_tw_buckets): over the limit, no TIME_WAIT. The
	 * ACK of the peer's FIN still goes out (the caller sends it).
	 */
	if (t->states[EWYK_TCP_TIME_WAIT] > t->conf.max_time_wait) {
		tcp_ctr_inc(t, EWYK_TCP_TW_OVERFLOW);
		tcp_ctr_inc(t, EWYK_TCP_CONN_CLOSED);
		c->ack_now = 0;
		tcp_send_ack(c);
		tcp_conn_destroy(c);
		return;
	}
	tcp_timer_misc_arm(c, TCP_MISC_TIME_WAIT,
		t->now + tcp_ms_to_cyc(t, t->conf.time_wait_ms));
}

static void
rto_syn(struct ewyk_tcp_conn *c)
{
	struct ewyk_tcp *t = c->tcp;

	if (c->retries >= t->conf.syn_retries) {
		tcp_conn_drop(c, -ETIMEDOUT);
		return;
	}
	c->retries++;
	c->backoff++;
	tcp_ctr_inc(t, EWYK_TCP_SYN_RETRANS);
	tcp_ctr_inc(t, EWYK_TCP_RETRANS_SEGS);
	c->retrans_segs++;
	tcp_send_syn(c);
	tcp_timer_rto_arm(c);
}

static void
rto_data(struct ewyk_tcp_conn *c)
{
	struct ewyk_tcp *t = c->tcp;
	uint32_t flight = c->snd_max - c->snd_una;
	uint32_t maxlen = c->snd_wnd == 0 ? 1 : c->snd_mss;

	if (flight == 0)
		return;
	if (c->retries >= t->conf.max_retries) {
		tcp_ctr_inc(t, EWYK_TCP_CONN_TIMEOUT);
		tcp_send_rst(c);
		tcp_conn_drop(c, -ETIMEDOUT);
		return;
	}
	tcp_ctr_inc(t, EWYK_TCP_RTO);
	/* RFC 5681 (4): one loss episode per window; RFC 6582 section 4. */
	if (c->backoff == 0)
		c->ssthresh = RTE_MAX(flight / 2, 2u * c->snd_mss);
	c->cwnd = c->snd_mss;
	c->bytes_acked = 0;
	c->in_recovery = 0;
	c->dupacks = 0;
	c->recover = c->snd_max;
	c->rto_recover = 1;
	c->rtt_timing = 0;
	c->tlp_out = 0;
	/* RFC 2018 8: the receiver may have reneged; start afresh. */
	tcp_sack_clear(c);
	c->retries++;
	if (c->backoff < 16)
		c->backoff++;
	if (unlikely(!tcp_tx_room_ok(c))) {
		/*
		 * Back-pressure: go back without sending. The wait set's
		 * tcp_output() sends the first segment (or the FIN) when the
		 * room is back, the window now one MSS; a zero-window probe
		 * waits for the next RTO.
		 */
		tcp_ctr_inc(t, EWYK_TCP_TX_DEFERRED);
		c->snd_nxt = c->snd_una;
		c->rexmit_nxt = c->snd_una;
		if (c->snd_wnd != 0)
			tcp_txw_add(t, c);
		tcp_timer_rto_arm(c);
		return;
	}
	/* Go back: resend from the first unacknowledged byte. */
	c->snd_nxt = c->snd_una + tcp_retransmit(c, c->snd_una, maxlen);
	c->rexmit_nxt = c->snd_nxt;
	tcp_timer_rto_arm(c);
}

static void
persist(struct ewyk_tcp_conn *c)
{
	struct ewyk_tcp *t = c->tcp;
	uint32_t data_end = c->snd_una + c->sq_len;
	int n;

	if (c->snd_wnd != 0 || c->snd_nxt != c->snd_una) {
		tcp_output(c);
		return;
	}
	if (SEQ_LT(c->snd_una, data_end) && unlikely(!tcp_tx_room_ok(c))) {
		/* Back-pressure: the probe goes when the room is back (or at
		 * the next persist timer), not counted, no backoff. */
		tcp_ctr_inc(t, EWYK_TCP_TX_DEFERRED);
		tcp_timer_persist_arm(c);
		c->persist_owed = 1;
		tcp_txw_add(t, c);
		return;
	}
	tcp_ctr_inc(t, EWYK_TCP_PERSIST_PROBES);
	if (c->backoff < TCP_MAX_PROBES_BACKOFF)
		c->backoff++;
	if (SEQ_LT(c->snd_una, data_end)) {
		/* One byte of new data beyond the window (RFC 9293 3.8.6.1). */
		n = tcp_send_segment(c, c->snd_una, 1, false);
		if (n > 0) {
			c->snd_nxt = c->snd_una + 1;
			tcp_timer_rto_arm(c);
			return;
		}
	}
	tcp_timer_persist_arm(c);
}

/* The probe: new data if the peer's window takes it, else the last segment. */
static void
tlp(struct ewyk_tcp_conn *c)
{
	struct ewyk_tcp *t = c->tcp;
	uint32_t data_end = c->snd_una + c->sq_len;
	uint32_t room = c->snd_wnd -
		RTE_MIN(c->snd_wnd, c->snd_nxt - c->snd_una);
	int n = 0;

	if (c->snd_nxt == c->snd_una || c->snd_nxt != c->snd_max) {
		tcp_timer_rto_arm(c);
		return;
	}
	if (unlikely(!tcp_tx_room_ok(c))) {
		/* Back-pressure: the RTO stands in; the probe goes when the
		 * room is back, if no ACK re-armed the timer by then. */
		tcp_ctr_inc(t, EWYK_TCP_TX_DEFERRED);
		tcp_timer_rto_arm(c);
		c->tlp_owed = 1;
		tcp_txw_add(t, c);
		return;
	}
	tcp_ctr_inc(t, EWYK_TCP_TLP_PROBES);
	c->tlp_out = 1;
	c->tlp_dsack = 0;
	if (SEQ_LT(c->snd_nxt, data_end) && room > 0) {
		uint32_t len = RTE_MIN(RTE_MIN(data_end - c->snd_nxt, room),
			(uint32_t)c->snd_mss);
		bool fin = c->shut_wr && c->snd_nxt + len == data_end;

		n = tcp_send_segment(c, c->snd_nxt, len, fin);
		if (n > 0) {
			c->snd_nxt += (uint32_t)n +
				(fin && (uint32_t)n == len ? 1 : 0);
			c->tlp_rexmit = 0;
		}
	}
	if (n <= 0) {
		uint32_t last = SEQ_GT(c->snd_una + c->snd_mss, data_end) ?
			c->snd_una :
			data_end - c->snd_mss;

		c->tlp_seq = last;
		c->tlp_rexmit = 1;
		tcp_retransmit(c, last, data_end - last);
	}
	c->tlp_high = c->snd_max;
	tcp_timer_rto_arm(c);
}

/*
 * Limits no ACK can lift (docs/guides/security.md): a connection the
 * application closed lives at most orphan_timeout_ms in FIN_WAIT_1, CLOSING
 * or LAST_ACK, and one whose peer keeps its window at zero while data waits
 * at most persist_max_ms; a zero-window ACK resets the retry count, not
 * these. Returns true when the connection was given up (reset).
 */
static bool
give_up(struct ewyk_tcp_conn *c)
{
	struct ewyk_tcp *t = c->tcp;
	enum ewyk_tcp_counter why;

	if (c->orphan_tsc != 0 &&
		(c->state == EWYK_TCP_FIN_WAIT_1 ||
			c->state == EWYK_TCP_CLOSING ||
			c->state == EWYK_TCP_LAST_ACK) &&
		t->now - c->orphan_tsc >=
			tcp_ms_to_cyc(t, t->conf.orphan_timeout_ms))
		why = EWYK_TCP_ORPHAN_TIMEOUT;
	else if (c->zwnd_tsc != 0 && t->conf.persist_max_ms != UINT32_MAX &&
		c->snd_wnd == 0 && (c->sq_len > 0 || c->shut_wr) &&
		t->now - c->zwnd_tsc >=
			tcp_ms_to_cyc(t, t->conf.persist_max_ms))
		why = EWYK_TCP_PERSIST_TIMEOUT;
	else
		return false;
	tcp_ctr_inc(t, why);
	tcp_send_rst(c);
	tcp_conn_drop(c, -ETIMEDOUT);
	return true;
}

static void
rtx_cb(struct ewyk_twheel *w, struct ewyk_twheel_timer *tm __rte_unused,
	void *arg)
{
	struct ewyk_tcp_conn *c = arg;
	uint8_t kind = c->rtx_kind;

	c->tcp->now = ewyk_twheel_now(w);
	if (c->idle_on_rtx)
		tcp_keepalive_arm(c); /* the node leaves: misc takes over */
	if (kind == TCP_RTX_NONE)
		return; /* parked (tcp_timer_rtx_park): nothing outstanding */
	c->rtx_kind = TCP_RTX_NONE;
	tcp_conn_hold(c);
	switch (c->state) {
	case EWYK_TCP_SYN_SENT:
	case EWYK_TCP_SYN_RECEIVED:
		rto_syn(c);
		break;
	case EWYK_TCP_ESTABLISHED:
	case EWYK_TCP_CLOSE_WAIT:
	case EWYK_TCP_FIN_WAIT_1:
	case EWYK_TCP_CLOSING:
	case EWYK_TCP_LAST_ACK:
		if (give_up(c))
			break;
		if (kind == TCP_RTX_PERSIST)
			persist(c);
		else if (kind == TCP_RTX_TLP)
			tlp(c);
		else
			rto_data(c);
		break;
	default:
		break;
	}
	tcp_conn_unhold(c);
}

static void
delack_cb(struct ewyk_twheel *w, struct ewyk_twheel_timer *tm __rte_unused,
	void *arg)
{
	struct ewyk_tcp_conn *c = arg;

	c->tcp->now = ewyk_twheel_now(w);
	if (!c->ack_delayed || c->dead)
		return;
	tcp_ctr_inc(c->tcp, EWYK_TCP_DELAYED_ACKS);
	tcp_send_ack(c);
}

static void
keepalive(struct ewyk_tcp_conn *c)
{
	struct ewyk_tcp *t = c->tcp;
	uint64_t idle = t->now - c->last_rx_tsc;
	uint64_t ka = tcp_ms_to_cyc(t, t->conf.keepalive_ms);
	uint64_t next;

	if (c->state != EWYK_TCP_ESTABLISHED &&
		c->state != EWYK_TCP_CLOSE_WAIT &&
		c->state != EWYK_TCP_FIN_WAIT_2)
		return;
	if (t->conf.idle_timeout_ms != 0 &&
		idle >= tcp_ms_to_cyc(t, t->conf.idle_timeout_ms)) {
		tcp_ctr_inc(t, EWYK_TCP_IDLE_TIMEOUT);
		tcp_send_rst(c);
		tcp_conn_drop(c, -ETIMEDOUT);
		return;
	}
	if (t->conf.keepalive_ms == 0 || idle < ka) {
		c->ka_probes = 0;
		tcp_keepalive_arm(c);
		return;
	}
	if (c->ka_probes >= t->conf.keepalive_probes) {
		tcp_ctr_inc(t, EWYK_TCP_CONN_TIMEOUT);
		tcp_send_rst(c);
		tcp_conn_drop(c, -ETIMEDOUT);
		return;
	}
	next = t->now + tcp_ms_to_cyc(t, t->conf.keepalive_intvl_ms);
	if (t->conf.idle_timeout_ms != 0)
		next = RTE_MIN(next,
			c->last_rx_tsc +
				tcp_ms_to_cyc(t, t->conf.idle_timeout_ms));
	if (unlikely(!tcp_tx_room_ok(c))) {
		/* Back-pressure: our own TX is full, the peer is not silent.
		 * The probe goes when the room is back (or at the next
		 * timer), and is counted then. */
		tcp_ctr_inc(t, EWYK_TCP_TX_DEFERRED);
		tcp_timer_misc_arm(c, TCP_MISC_KEEPALIVE, next);
		c->ka_owed = 1;
		tcp_txw_add(t, c);
		return;
	}
	c->ka_probes++;
	tcp_ctr_inc(t, EWYK_TCP_KEEPALIVE_PROBES);
	tcp_send_probe(c, c->snd_una - 1);
	tcp_timer_misc_arm(c, TCP_MISC_KEEPALIVE, next);
}

static void
misc_cb(struct ewyk_twheel *w, struct ewyk_twheel_timer *tm __rte_unused,
	void *arg)
{
	struct ewyk_tcp_conn *c = arg;
	uint8_t kind = c->misc_kind;

	c->tcp->now = ewyk_twheel_now(w);
	c->misc_kind = TCP_MISC_NONE;
	tcp_conn_hold(c);
	switch (kind) {
	case TCP_MISC_TIME_WAIT:
		tcp_ctr_inc(c->tcp, EWYK_TCP_CONN_CLOSED);
		tcp_conn_destroy(c);
		break;
	case TCP_MISC_FIN_WAIT_2:
		if (c->state == EWYK_TCP_FIN_WAIT_2) {
			tcp_ctr_inc(c->tcp, EWYK_TCP_CONN_TIMEOUT);
			tcp_conn_drop(c, -ETIMEDOUT);
		}
		break;
	case TCP_MISC_KEEPALIVE:
		keepalive(c);
		break;
	default:
		break;
	}
	tcp_conn_unhold(c);
}

/*
 * On resume from the TX wait set (tcp_txw_resume, the connection held):
 * the timer sends a full TX held back. Each is still owed only while the
 * timer armed in its place is untouched (any re-arm clears the bit): an
 * ACK that came in the meantime made it moot.
 */
void
tcp_timer_owed(struct ewyk_tcp_conn *c)
{
	if (c->tlp_owed) {
		c->tlp_owed = 0;
		/* Only a probe that can go: tlp()'s own refusal would arm
		 * the RTO again from now, later than the one standing in. */
		if (c->rtx_kind == TCP_RTX_RTO && !c->in_recovery &&
			(c->state == EWYK_TCP_ESTABLISHED ||
				c->state == EWYK_TCP_CLOSE_WAIT) &&
			c->snd_nxt != c->snd_una && c->snd_nxt == c->snd_max)
			tlp(c);
	}
	if (c->persist_owed) {
		c->persist_owed = 0;
		if (c->rtx_kind == TCP_RTX_PERSIST && !c->dead)
			persist(c);
	}
	if (c->ka_owed) {
		c->ka_owed = 0;
		if (c->misc_kind == TCP_MISC_KEEPALIVE && !c->dead)
			keepalive(c);
	}
}
