/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Passive opens: a listener's SYN (RFC 9293 3.10.7.2), SYN cookies when
 * its backlog is full (RFC 4987) and the ACK that redeems one, with the
 * per-source limit (tcp_limits.c). The handshake's end is tcp_establish()
 * (tcp_state.c).
 */

#include "tcp_private.h"

static void
drop_seg(struct ewyk_tcp *t, struct rte_mbuf *m, enum ewyk_tcp_counter why)
{
	tcp_ctr_inc(t, why);
	rte_pktmbuf_free(m);
}

/* A connection a listener accepts: the segment's 4-tuple, seen from us. */
static void
tcp_conn_passive_init(struct ewyk_tcp *t, struct ewyk_tcp_conn *c,
	struct tcp_listener *l, const struct tcp_seg *s,
	const struct tcp_ip *ip, const struct tcp_open_hint *h)
{
	c->lip = ip->dst;
	c->lport = s->dport;
	c->rip = ip->src;
	c->rport = s->sport;
	c->port = ip->port;
	c->v6 = ip->v6;
	c->mss_cap = tcp_mss_cap(t, ip);
	c->passive = 1;
	c->listener = l;
	tcp_src_add(t, c, h);
}

void
tcp_passive_open(struct ewyk_tcp *t, struct tcp_listener *l, struct tcp_seg *s,
	struct rte_mbuf *m, const struct tcp_ip *ip,
	const struct tcp_open_hint *h, bool has_iss, uint32_t iss)
{
	struct ewyk_tcp_conn *c;
	uint32_t isn;

	tcp_mbuf_free(m); /* data on a SYN is not taken */
	c = tcp_conn_alloc(t);
	if (c == NULL)
		return;
	tcp_conn_passive_init(t, c, l, s, ip, h);
	c->in_syn_count = 1;
	l->syn_count++;
	isn = tcp_isn_ts(t, ip, c->lport, c->rport, &c->ts_off);
	c->iss = has_iss ? iss : isn;
	c->snd_una = c->iss;
	c->snd_nxt = c->snd_max = c->iss + 1;
	c->irs = s->seq;
	c->rcv_nxt = s->seq + 1;
	c->snd_wnd = s->wnd; /* never scaled in a SYN */
	c->max_snd_wnd = s->wnd;
	c->snd_wl1 = s->seq;
	tcp_syn_options(c, s);
	c->rtt_timing = 1;
	c->rtt_tsc = t->now;
	tcp_set_state(c, EWYK_TCP_SYN_RECEIVED);
	if (h != NULL)
		tcp_table_insert_h(t, c, h->hash);
	else
		tcp_table_insert(t, c);
	tcp_ctr_inc(t, EWYK_TCP_PASSIVE_OPENS);
	tcp_send_syn(c);
	tcp_timer_rto_arm(c);
}

void
tcp_listen_input(struct ewyk_tcp *t, struct tcp_listener *l, struct tcp_seg *s,
	struct rte_mbuf *m, const struct tcp_ip *ip, struct tcp_open_hint *h)
{
	if (tcp_src_full(t, ip, h)) {
		drop_seg(t, m, EWYK_TCP_DROP_SRC_LIMIT);
		return;
	}
	if (t->conns >= t->conf.max_conns) {
		/* No connection could be made of a cookie either: drop the
		 * SYN (the peer retries; no answer to amplify a flood). */
		drop_seg(t, m, EWYK_TCP_DROP_NO_CONN_MEM);
		return;
	}
	if (l->syn_count < l->backlog) {
		tcp_passive_open(t, l, s, m, ip, h, false, 0);
		return;
	}
	if (t->conf.no_syncookies) {
		tcp_ctr_inc(t, EWYK_TCP_DROP_BACKLOG);
		rte_pktmbuf_free(m);
		return;
	}
	/* RFC 4987: answer statelessly, the state rides in our ISS. */
	{
		uint16_t mss = s->o.has_mss ?
			RTE_MIN(s->o.mss, tcp_mss_cap(t, ip)) :
			TCP_DEFAULT_MSS;
		uint32_t cookie = tcp_cookie_make(t, ip, s->dport, s->sport,
			s->seq, &mss);

		rte_pktmbuf_free(m);
		if (tcp_send_synack_cookie(t, s, ip, cookie, mss) == 0) {
			tcp_ctr_inc(t, EWYK_TCP_SYNCOOKIES_SENT);
			l->cookie_tsc = t->now;
		}
	}
}

void
tcp_cookie_input(struct ewyk_tcp *t, struct tcp_listener *l, struct tcp_seg *s,
	struct rte_mbuf *m, const struct tcp_ip *ip, struct tcp_open_hint *h)
{
	struct ewyk_tcp_conn *c;
	int mss;

	mss = tcp_cookie_check(t, ip, s->dport, s->sport, s->seq - 1,
		s->ack - 1);
	if (mss < 0) {
		tcp_send_rst_reply(t, s, ip);
		drop_seg(t, m, EWYK_TCP_DROP_COOKIE);
		return;
	}
	if (tcp_src_full(t, ip, h)) {
		drop_seg(t, m, EWYK_TCP_DROP_SRC_LIMIT);
		return;
	}
	c = t->conns < t->conf.max_conns ? tcp_conn_alloc(t) : NULL;
	if (c == NULL) {
		if (t->conns >= t->conf.max_conns)
			tcp_ctr_inc(t, EWYK_TCP_DROP_NO_CONN_MEM);
		/* The peer believes it is connected: tell it it is not,
		 * rather than leave it sending into nothing. */
		tcp_send_rst_reply(t, s, ip);
		rte_pktmbuf_free(m);
		return;
	}
	tcp_conn_passive_init(t, c, l, s, ip, h);
	c->ts_off = tcp_ts_offset(t, ip, c->lport, c->rport);
	c->iss = s->ack - 1;
	c->snd_una = c->iss;
	c->snd_nxt = c->snd_max = s->ack;
	c->irs = s->seq - 1;
	c->rcv_nxt = s->seq;
	c->rcv_adv = c->rcv_nxt +
		RTE_MIN(t->conf.rcv_buf, (uint32_t)UINT16_MAX);
	c->last_ack_sent = c->rcv_nxt;
	c->peer_mss = (uint16_t)mss;
	c->ts_ok = s->o.has_ts && !t->conf.no_timestamps;
	if (c->ts_ok) {
		int ws;
		bool sack;

		tcp_cookie_ts_decode(s->o.tsecr, &ws, &sack);
		c->sack_ok = sack && !t->conf.no_sack;
		c->ws_ok = ws >= 0 && !t->conf.no_wscale;
		c->snd_wscale = c->ws_ok ? (uint8_t)ws : 0;
		c->rcv_wscale = c->ws_ok ? t->rcv_wscale : 0;
		c->ts_recent = s->o.tsval;
	}
	tcp_conn_set_mss(c);
	tcp_cc_init(c);
	tcp_set_state(c, EWYK_TCP_SYN_RECEIVED);
	tcp_table_insert_h(t, c, h->hash);
	tcp_ctr_inc(t, EWYK_TCP_SYNCOOKIES_OK);
	tcp_ctr_inc(t, EWYK_TCP_PASSIVE_OPENS);
	/* Handshake done: now the segment itself (data, FIN) as established. */
	tcp_conn_hold(c);
	if (tcp_establish(c, s))
		tcp_state_input(c, s, m);
	else
		rte_pktmbuf_free(m);
	tcp_conn_unhold(c);
}
