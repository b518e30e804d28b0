/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Segment output: building headers and options, referencing queued data
 * (indirect mbufs) or copying small payloads, the receive window we
 * announce, and the send loop (windows, Nagle when asked, sender SWS
 * avoidance, FIN).
 */

#include <rte_memcpy.h>

#include "tcp_private.h"

uint32_t
tcp_rcv_space(const struct ewyk_tcp_conn *c)
{
	uint32_t used = c->rcv_held + c->ooo_bytes;
	uint32_t buf = c->tcp->conf.rcv_buf;

	return used >= buf ? 0 : buf - used;
}

/*
 * Window field for a non-SYN segment. The right edge only moves right
 * (RFC 9293 3.8.6.2.2: no shrinking, and receiver SWS avoidance: it moves
 * when it can move by min(buffer/2, MSS)).
 */
uint32_t
tcp_rcv_wnd_field(struct ewyk_tcp_conn *c)
{
	uint32_t space = tcp_rcv_space(c);
	uint32_t maxw = (uint32_t)UINT16_MAX << c->rcv_wscale;
	uint32_t edge, wnd, field;

	if (space > maxw)
		space = maxw;
	edge = c->rcv_nxt + space;
	if (SEQ_GT(edge, c->rcv_adv)) {
		uint32_t inc = edge - c->rcv_adv;
		uint32_t cur = c->rcv_adv - c->rcv_nxt;

		if (inc >= RTE_MIN(c->tcp->conf.rcv_buf / 2,
				   (uint32_t)c->rcv_mss) ||
			cur < c->rcv_mss)
			c->rcv_adv = edge;
	}
	if (SEQ_LT(c->rcv_adv, c->rcv_nxt))
		c->rcv_adv = c->rcv_nxt;
	wnd = c->rcv_adv - c->rcv_nxt;
	/* Round up so the edge we announce is never left of rcv_adv. */
	field = (wnd + (1u << c->rcv_wscale) - 1) >> c->rcv_wscale;
	if (field > UINT16_MAX)
		field = UINT16_MAX;
	c->rcv_adv = c->rcv_nxt + (field << c->rcv_wscale);
	return field;
}

static struct rte_mbuf *
seg_alloc(struct ewyk_tcp *t)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(t->tx_pool);

	if (unlikely(m == NULL))
		tcp_ctr_inc(t, EWYK_TCP_DROP_NO_MBUF);
	return m;
}

/* Send from src to dst, addresses of the family @p v6. */
static int
seg_xmit(struct ewyk_tcp *t, struct rte_mbuf *m, uint16_t port, bool v6,
	const union tcp_addr *src, const union tcp_addr *dst)
{
	m->l4_len = (uint8_t)((rte_pktmbuf_mtod(m, struct rte_tcp_hdr *)
					      ->data_off >>
				      4) *
		4);
	tcp_ctr_inc(t, EWYK_TCP_SEG_OUT);
	if (likely(!v6)) {
		if (likely(t->out_net))
			return ewyk_net_tcp_output(t->shard, m, port, src->v4,
				dst->v4);
		return t->output(t->output_arg, m, port, src->v4, dst->v4);
	}
	if (likely(t->out_net6))
		return ewyk_net_tcp_output6(t->shard, m, port, src->b, dst->b);
	if (unlikely(t->output6 == NULL)) {
		tcp_ctr_inc(t, EWYK_TCP_DROP_NO_MBUF);
		rte_pktmbuf_free(m);
		return -ENOTSUP;
	}
	return t->output6(t->output6_arg, m, port, src->b, dst->b);
}

/* A segment of a connection; over the path MTU (a packet-too-big came
 * after the segment was cut), the MSS is lowered at once. */
static void
conn_xmit(struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	if (unlikely(seg_xmit(c->tcp, m, c->port, c->v6, &c->lip, &c->rip) ==
		    -EMSGSIZE))
		tcp_pmtu_check(c);
}

/* A reply to a segment without a connection: back where it came from. */
static void
reply_xmit(struct ewyk_tcp *t, struct rte_mbuf *m, const struct tcp_ip *ip)
{
	seg_xmit(t, m, ip->port, ip->v6, &ip->dst, &ip->src);
}

static __rte_always_inline void
fill_hdr(struct rte_tcp_hdr *th, uint16_t sport, uint16_t dport, uint32_t seq,
	uint32_t ack, uint8_t flags, unsigned int hlen, uint16_t wnd)
{
	th->src_port = rte_cpu_to_be_16(sport);
	th->dst_port = rte_cpu_to_be_16(dport);
	th->sent_seq = rte_cpu_to_be_32(seq);
	th->recv_ack = rte_cpu_to_be_32(ack);
	th->data_off = (uint8_t)((hlen / 4) << 4);
	th->tcp_flags = flags;
	th->rx_win = rte_cpu_to_be_16(wnd);
	th->cksum = 0;
	th->tcp_urp = 0;
}

static inline uint8_t *
put32(uint8_t *p, uint32_t v)
{
	v = rte_cpu_to_be_32(v);
	memcpy(p, &v, 4);
	return p + 4;
}

/* Room a SYN's options take at most: MSS, SACK permitted, timestamps,
 * window scale (with their NOPs). */
#define TCP_SYN_OPT_MAX 20

/* SYN / SYN-ACK options; returns their length (a multiple of 4, <= 20). */
static unsigned int
opts_syn(uint8_t *p0, uint16_t mss, bool sack, bool ts, uint32_t tsval,
	uint32_t tsecr, int ws)
{
	uint8_t *p = p0;

	*p++ = TCPOPT_MSS;
	*p++ = 4;
	*p++ = (uint8_t)(mss >> 8);
	*p++ = (uint8_t)mss;
	if (sack && ts) {
		*p++ = TCPOPT_SACK_PERM;
		*p++ = 2;
	} else if (sack || ts) {
		*p++ = TCPOPT_NOP;
		*p++ = TCPOPT_NOP;
		if (sack) {
			*p++ = TCPOPT_SACK_PERM;
			*p++ = 2;
		}
	}
	if (ts) {
		*p++ = TCPOPT_TS;
		*p++ = 10;
		p = put32(p, tsval);
		p = put32(p, tsecr);
	}
	if (ws >= 0) {
		*p++ = TCPOPT_NOP;
		*p++ = TCPOPT_WS;
		*p++ = 3;
		*p++ = (uint8_t)ws;
	}
	return (unsigned int)(p - p0);
}

static inline uint32_t
conn_tsval(const struct ewyk_tcp_conn *c)
{
	return tcp_ts_now(c->tcp) + c->ts_off;
}

/*
 * The options of a synchronized segment, written in place behind the
 * header when they are the usual ones (timestamps alone, or none): their
 * length, or -1 when SACK blocks go too (opts_est() then builds them). The
 * first word of the timestamp option (NOP, NOP, kind, length) is a
 * constant; TSval and TSecr follow.
 */
static __rte_always_inline int
opts_est_fixed_len(const struct ewyk_tcp_conn *c)
{
	if (unlikely(c->sack_ok && c->ooo_head != NULL))
		return -1;
	return c->ts_ok ? TCP_TS_OPT_LEN : 0;
}

static __rte_always_inline void
opts_est_fixed(const struct ewyk_tcp_conn *c, uint8_t *p)
{
	static const uint8_t ts_word[4] = { TCPOPT_NOP, TCPOPT_NOP, TCPOPT_TS,
		10 };

	if (c->ts_ok) {
		memcpy(p, ts_word, 4);
		p = put32(p + 4, conn_tsval(c));
		put32(p, c->ts_recent);
	}
}

/* Options of a synchronized segment: timestamps, SACK blocks. */
static unsigned int
opts_est(struct ewyk_tcp_conn *c, uint8_t *p0)
{
	uint8_t *p = p0;

	if (c->ts_ok) {
		opts_est_fixed(c, p);
		p += TCP_TS_OPT_LEN;
	}
	if (c->sack_ok && c->ooo_head != NULL) {
		struct tcp_sack_blk blk[TCP_SACK_OUT_MAX];
		unsigned int i, n;

		n = tcp_sack_blocks_out(c, blk, c->ts_ok ? 3 : 4);
		if (n > 0) {
			*p++ = TCPOPT_NOP;
			*p++ = TCPOPT_NOP;
			*p++ = TCPOPT_SACK;
			*p++ = (uint8_t)(2 + 8 * n);
			for (i = 0; i < n; i++) {
				p = put32(p, blk[i].start);
				p = put32(p, blk[i].end);
			}
			tcp_ctr_add(c->tcp, EWYK_TCP_SACK_BLOCKS_OUT, n);
		}
	}
	return (unsigned int)(p - p0);
}

/* Bookkeeping common to every segment that carries our ACK. */
static void
ack_sent(struct ewyk_tcp_conn *c)
{
	c->last_ack_sent = c->rcv_nxt;
	c->ack_now = 0;
	c->ack_delayed = 0;
	c->rcv_unacked = 0;
	tcp_timer_delack_stop(c);
}

int
tcp_send_syn(struct ewyk_tcp_conn *c)
{
	struct ewyk_tcp *t = c->tcp;
	struct rte_mbuf *m = seg_alloc(t);
	struct rte_tcp_hdr *th;
	unsigned int olen;
	bool synack = c->state == EWYK_TCP_SYN_RECEIVED;
	uint32_t wnd = RTE_MIN(t->conf.rcv_buf, (uint32_t)UINT16_MAX);

	if (m == NULL)
		return -ENOBUFS;
	/* The options are written in place, the mbuf trimmed to them. */
	th = (struct rte_tcp_hdr *)rte_pktmbuf_append(m,
		TCP_HDR_LEN + TCP_SYN_OPT_MAX);
	if (synack)
		olen = opts_syn((uint8_t *)(th + 1), c->mss_cap, c->sack_ok,
			c->ts_ok, conn_tsval(c), c->ts_recent,
			c->ws_ok ? c->rcv_wscale : -1);
	else
		olen = opts_syn((uint8_t *)(th + 1), c->mss_cap,
			!t->conf.no_sack, !t->conf.no_timestamps, conn_tsval(c),
			0, t->conf.no_wscale ? -1 : t->rcv_wscale);
	rte_pktmbuf_trim(m, (uint16_t)(TCP_SYN_OPT_MAX - olen));
	fill_hdr(th, c->lport, c->rport, c->iss, synack ? c->rcv_nxt : 0,
		synack ? (TH_SYN | TH_ACK) : TH_SYN, TCP_HDR_LEN + olen,
		(uint16_t)wnd);
	c->rcv_adv = c->rcv_nxt + wnd;
	if (synack)
		ack_sent(c);
	if (SEQ_LT(c->snd_max, c->iss + 1))
		c->snd_max = c->iss + 1;
	c->snd_nxt = c->iss + 1;
	conn_xmit(c, m);
	return 0;
}

/* SYN-ACK of a listener whose backlog is full: no connection object. */
int
tcp_send_synack_cookie(struct ewyk_tcp *t, const struct tcp_seg *s,
	const struct tcp_ip *ip, uint32_t iss, uint16_t mss)
{
	struct rte_mbuf *m = seg_alloc(t);
	uint8_t opts[TCP_MAX_OPT_LEN];
	struct rte_tcp_hdr *th;
	bool ts = s->o.has_ts && !t->conf.no_timestamps;
	bool sack = s->o.sack_perm && !t->conf.no_sack && ts;
	int ws = (s->o.has_ws && !t->conf.no_wscale && ts) ? t->rcv_wscale : -1;
	uint32_t tsval = 0;
	unsigned int olen;

	if (m == NULL)
		return -ENOBUFS;
	if (ts) {
		uint32_t off = tcp_ts_offset(t, ip, s->dport, s->sport);

		/* Encode the peer's SACK and window scale in our TSval. */
		tsval = tcp_cookie_tsval(tcp_ts_now(t) + off,
			s->o.has_ws ? s->o.ws : -1, s->o.sack_perm);
	}
	olen = opts_syn(opts, mss, sack, ts, tsval, s->o.tsval, ws);
	th = (struct rte_tcp_hdr *)rte_pktmbuf_append(m, TCP_HDR_LEN + olen);
	fill_hdr(th, s->dport, s->sport, iss, s->seq + 1, TH_SYN | TH_ACK,
		TCP_HDR_LEN + olen,
		(uint16_t)RTE_MIN(t->conf.rcv_buf, (uint32_t)UINT16_MAX));
	memcpy(th + 1, opts, olen);
	reply_xmit(t, m, ip);
	return 0;
}

/* A bare segment: ACK (and our usual options) with the given sequence. */
static int
send_bare(struct ewyk_tcp_conn *c, uint32_t seq, uint8_t flags)
{
	struct ewyk_tcp *t = c->tcp;
	struct rte_mbuf *m = seg_alloc(t);
	uint8_t opts[TCP_MAX_OPT_LEN];
	struct rte_tcp_hdr *th;
	unsigned int olen = 0;
	uint16_t wnd = 0;
	int fixed = 0;

	if (m == NULL)
		return -ENOBUFS;
	if (!(flags & TH_RST)) {
		fixed = opts_est_fixed_len(c);
		olen = fixed >= 0 ? (unsigned int)fixed : opts_est(c, opts);
		wnd = (uint16_t)tcp_rcv_wnd_field(c);
	}
	th = (struct rte_tcp_hdr *)rte_pktmbuf_append(m, TCP_HDR_LEN + olen);
	fill_hdr(th, c->lport, c->rport, seq, (flags & TH_ACK) ? c->rcv_nxt : 0,
		flags, TCP_HDR_LEN + olen, wnd);
	if (fixed > 0)
		opts_est_fixed(c, (uint8_t *)(th + 1));
	else if (fixed < 0)
		memcpy(th + 1, opts, olen);
	if (flags & TH_ACK)
		ack_sent(c);
	conn_xmit(c, m);
	return 0;
}

/*
 * Sequence number for a segment without data. The highest sequence sent
 * (not SND.NXT, which goes back after a timeout: the peer has seen the
 * data since and would find an ACK that far left unacceptable), and never
 * beyond the peer's window (a zero-window probe may have gone there).
 */
static uint32_t
acceptable_seq(const struct ewyk_tcp_conn *c)
{
	uint32_t edge = c->snd_una + c->snd_wnd;
	uint32_t seq = SEQ_MAX(c->snd_nxt, c->snd_max);

	return SEQ_LEQ(seq, edge) ? seq : edge;
}

int
tcp_send_ack(struct ewyk_tcp_conn *c)
{
	return send_bare(c, acceptable_seq(c), TH_ACK);
}

/* Keep-alive or window probe: an old sequence number that elicits an ACK. */
int
tcp_send_probe(struct ewyk_tcp_conn *c, uint32_t seq)
{
	return send_bare(c, seq, TH_ACK);
}

int
tcp_send_rst(struct ewyk_tcp_conn *c)
{
	tcp_ctr_inc(c->tcp, EWYK_TCP_RST_OUT);
	return send_bare(c, acceptable_seq(c), TH_RST | TH_ACK);
}

/* RST for a segment that has no connection (RFC 9293 3.10.7.1). */
void
tcp_send_rst_reply(struct ewyk_tcp *t, const struct tcp_seg *s,
	const struct tcp_ip *ip)
{
	struct rte_mbuf *m;
	struct rte_tcp_hdr *th;
	uint32_t seq, ack = 0;
	uint8_t flags;

	if (s->flags & TH_RST)
		return;
	/* At most rst_limit a second (as BSD's icmplim): spoofed segments
	 * to closed ports must not make the shard an amplifier. */
	if (t->now / t->hz != t->rst_sec) {
		t->rst_sec = t->now / t->hz;
		t->rst_count = 0;
	}
	if (t->conf.rst_limit != UINT32_MAX &&
		t->rst_count >= t->conf.rst_limit) {
		tcp_ctr_inc(t, EWYK_TCP_RST_LIMITED);
		return;
	}
	t->rst_count++;
	m = seg_alloc(t);
	if (m == NULL)
		return;
	if (s->flags & TH_ACK) {
		seq = s->ack;
		flags = TH_RST;
	} else {
		seq = 0;
		ack = s->seq + s->len + ((s->flags & TH_SYN) ? 1 : 0) +
			((s->flags & TH_FIN) ? 1 : 0);
		flags = TH_RST | TH_ACK;
	}
	th = (struct rte_tcp_hdr *)rte_pktmbuf_append(m, TCP_HDR_LEN);
	fill_hdr(th, s->dport, s->sport, seq, ack, flags, TCP_HDR_LEN, 0);
	tcp_ctr_inc(t, EWYK_TCP_RST_OUT);
	reply_xmit(t, m, ip);
}

/* Find the send-queue segment holding @p seq (cursor-assisted). */
static struct rte_mbuf *
sq_find(struct ewyk_tcp_conn *c, uint32_t seq, uint32_t *off)
{
	struct rte_mbuf *m;
	uint32_t mseq;

	if (c->sq_cur != NULL && SEQ_GEQ(seq, c->sq_cur_seq)) {
		m = c->sq_cur;
		mseq = c->sq_cur_seq;
	} else {
		m = c->sq_head;
		mseq = c->snd_una - c->sq_off;
	}
	while (m != NULL && SEQ_GEQ(seq, mseq + m->data_len)) {
		mseq += m->data_len;
		m = m->next;
	}
	if (m != NULL) {
		c->sq_cur = m;
		c->sq_cur_seq = mseq;
	}
	*off = seq - mseq;
	return m;
}

/*
 * Put up to @p len bytes from sequence @p seq behind header mbuf @p h.
 * Small payloads are copied; larger ones referenced by indirect mbufs.
 * Returns the bytes added (fewer when the piece limit is hit or mbufs run
 * out).
 */
static uint32_t
add_payload(struct ewyk_tcp_conn *c, struct rte_mbuf *h, uint32_t seq,
	uint32_t len)
{
	struct ewyk_tcp *t = c->tcp;
	struct rte_mbuf *m, *last = h;
	uint32_t off, done = 0;
	unsigned int pieces = 0;

	m = sq_find(c, seq, &off);
	if (len <= TCP_COPY_MAX && rte_pktmbuf_tailroom(h) >= len) {
		uint8_t *dst = (uint8_t *)rte_pktmbuf_append(h, (uint16_t)len);

		while (m != NULL && done < len) {
			uint32_t n = RTE_MIN((uint32_t)m->data_len - off,
				len - done);

			rte_memcpy(dst + done,
				rte_pktmbuf_mtod_offset(m, uint8_t *, off), n);
			done += n;
			off = 0;
			m = m->next;
		}
		return done;
	}
	while (m != NULL && done < len && pieces < TCP_MAX_PIECES) {
		uint32_t n = RTE_MIN((uint32_t)m->data_len - off, len - done);
		struct rte_mbuf *mi;

		if (n == 0) {
			off = 0;
			m = m->next;
			continue;
		}
		mi = rte_pktmbuf_alloc(t->tx_pool);
		if (mi == NULL) {
			tcp_ctr_inc(t, EWYK_TCP_DROP_NO_MBUF);
			break;
		}
		rte_pktmbuf_attach(mi, m);
		mi->data_off = (uint16_t)(m->data_off + off);
		mi->data_len = (uint16_t)n;
		mi->pkt_len = n;
		last->next = mi;
		last = mi;
		h->nb_segs++;
		h->pkt_len += n;
		done += n;
		pieces++;
		off = 0;
		m = m->next;
	}
	return done;
}

/*
 * Send a segment of data and/or FIN at @p seq, with our ACK. Returns the
 * payload bytes sent (may be less than @p len), or a negative errno. The
 * FIN goes only if every byte asked for went.
 */
int
tcp_send_segment(struct ewyk_tcp_conn *c, uint32_t seq, uint32_t len, bool fin)
{
	struct ewyk_tcp *t = c->tcp;
	struct rte_mbuf *m = seg_alloc(t);
	uint8_t opts[TCP_MAX_OPT_LEN];
	struct rte_tcp_hdr *th;
	unsigned int olen, hlen;
	uint32_t sent = 0, end, maxlen, asked = len;
	uint8_t flags = TH_ACK;
	int fixed;

	if (m == NULL)
		return -ENOBUFS;
	/* A lowered (or raised again) path MTU matters only to a segment
	 * that could exceed IPv6's minimum MTU, which no path MTU goes below:
	 * the small ones (a keep-alive response) skip the look. */
	if (unlikely(c->v6) &&
		len + TCP_IP6_OVERHEAD + TCP_MAX_OPT_LEN > EWYK_NET_IP6_MIN_MTU)
		tcp_pmtu_check(c);
	/* The usual options are written in place below; only SACK blocks
	 * take the buffer. */
	fixed = opts_est_fixed_len(c);
	olen = fixed >= 0 ? (unsigned int)fixed : opts_est(c, opts);
	hlen = TCP_HDR_LEN + olen;
	/* SACK blocks take room from the payload: stay within the MSS. */
	maxlen = (uint32_t)c->snd_mss + (c->ts_ok ? TCP_TS_OPT_LEN : 0) - olen;
	if (len > maxlen)
		len = maxlen;
	th = (struct rte_tcp_hdr *)rte_pktmbuf_append(m, (uint16_t)hlen);
	if (len > 0) {
		sent = add_payload(c, m, seq, len);
		if (sent == 0) {
			rte_pktmbuf_free(m);
			return -ENOBUFS;
		}
	}
	if (sent < asked)
		fin = false;
	end = seq + sent + (fin ? 1 : 0);
	if (fin)
		flags |= TH_FIN;
	if (sent > 0 && seq + sent == c->snd_una + c->sq_len)
		flags |= TH_PSH;
	fill_hdr(th, c->lport, c->rport, seq, c->rcv_nxt, flags, hlen,
		(uint16_t)tcp_rcv_wnd_field(c));
	if (fixed > 0)
		opts_est_fixed(c, (uint8_t *)(th + 1));
	else if (fixed < 0)
		memcpy(th + 1, opts, olen);
	ack_sent(c);
	tcp_ctr_add(t, EWYK_TCP_BYTES_OUT, sent);
	if (SEQ_LT(seq, c->snd_max)) {
		tcp_ctr_inc(t, EWYK_TCP_RETRANS_SEGS);
		tcp_ctr_add(t, EWYK_TCP_RETRANS_BYTES, sent);
		c->retrans_segs++;
		c->rtt_timing = 0; /* Karn */
	} else if (!c->rtt_timing && sent > 0) {
		c->rtt_timing = 1;
		c->rtt_seq = seq;
		c->rtt_tsc = t->now;
	}
	if (SEQ_GT(end, c->snd_max))
		c->snd_max = end;
	c->last_send_tsc = t->now;
	conn_xmit(c, m);
	return (int)sent;
}

void
tcp_output(struct ewyk_tcp_conn *c)
{
	struct ewyk_tcp *t = c->tcp;
	uint32_t data_end, flight, wnd, usable, unsent, len;
	unsigned int guard;
	bool fin, sent_new = false;
	int n;

	c->out_pending = 0;
	if (c->dead)
		return;
	switch (c->state) {
	case EWYK_TCP_ESTABLISHED:
	case EWYK_TCP_CLOSE_WAIT:
	case EWYK_TCP_FIN_WAIT_1:
	case EWYK_TCP_CLOSING:
	case EWYK_TCP_LAST_ACK:
		break;
	default:
		return;
	}
	/* RFC 5681 4.1: restart from the initial window after an idle RTO. */
	if (c->snd_nxt == c->snd_una && c->last_send_tsc != 0 &&
		t->now - c->last_send_tsc > tcp_ms_to_cyc(t, c->rto_ms) &&
		!c->in_recovery) {
		uint32_t iw = RTE_MIN(10u * c->snd_mss,
			RTE_MAX(2u * c->snd_mss, 14600u));

		if (c->cwnd > iw)
			c->cwnd = iw;
	}
	data_end = c->snd_una + c->sq_len;
	for (guard = 0; guard < 4096; guard++) {
		flight = c->snd_nxt - c->snd_una;
		wnd = RTE_MIN(c->snd_wnd,
			c->cwnd +
				(c->in_recovery ? 0u :
						  c->dupacks *
							(uint32_t)c->snd_mss));
		if (SEQ_LT(c->snd_nxt, data_end)) {
			unsent = data_end - c->snd_nxt;
			if (flight >= wnd)
				break;
			usable = wnd - flight;
			len = RTE_MIN(RTE_MIN(unsent, (uint32_t)c->snd_mss),
				usable);
			/* Sender SWS avoidance (RFC 9293 3.8.6.2.1). */
			if (len < c->snd_mss && len < unsent &&
				usable < c->max_snd_wnd / 2 && flight > 0)
				break;
			/* Nagle, only when asked for. */
			if (!c->nodelay && len < c->snd_mss && len == unsent &&
				flight > 0 && !c->shut_wr)
				break;
			if (unlikely(!tcp_tx_room_ok(c))) {
				/* Back-pressure: the data waits in the send
				 * queue, tcp_txw_resume() sends it. */
				tcp_ctr_inc(t, EWYK_TCP_TX_BLOCKED);
				tcp_txw_add(t, c);
				break;
			}
			fin = c->shut_wr && c->snd_nxt + len == data_end;
			n = tcp_send_segment(c, c->snd_nxt, len, fin);
			if (n <= 0)
				break;
			sent_new = true;
			c->snd_nxt += (uint32_t)n;
			if (fin && (uint32_t)n == len)
				c->snd_nxt++;
		} else if (c->shut_wr && c->snd_nxt == data_end) {
			if (unlikely(!tcp_tx_room_ok(c))) {
				/* A FIN alone waits too (a close storm). */
				tcp_ctr_inc(t, EWYK_TCP_TX_BLOCKED);
				tcp_txw_add(t, c);
				break;
			}
			if (tcp_send_segment(c, c->snd_nxt, 0, true) < 0)
				break;
			c->snd_nxt++;
		} else {
			break;
		}
	}
	if (c->snd_nxt != c->snd_una) {
		/* Sending new data restarts a probe timer, not an RTO. */
		if (c->rtx_kind == TCP_RTX_NONE ||
			c->rtx_kind == TCP_RTX_PERSIST ||
			(c->rtx_kind == TCP_RTX_TLP && sent_new))
			tcp_timer_xmit_arm(c);
	} else if (c->snd_wnd == 0 && (c->sq_len > 0 || c->shut_wr) &&
		c->rtx_kind == TCP_RTX_NONE) {
		tcp_timer_persist_arm(c);
	}
}
