/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive side: in-order delivery to the layer above (the received mbufs
 * themselves, headers stripped), the bounded out-of-order queue, the SACK
 * blocks we report, and when to acknowledge (delayed ACK, quick ACK).
 */

#include "tcp_private.h"

/* Remove @p n bytes from the front of a chain; NULL when nothing is left. */
struct rte_mbuf *
tcp_mbuf_adj(struct rte_mbuf *m, uint32_t n)
{
	while (m != NULL && n > 0) {
		if (n < m->data_len) {
			m->data_off += n;
			m->data_len -= n;
			m->pkt_len -= n;
			return m;
		}
		struct rte_mbuf *next = m->next;

		n -= m->data_len;
		if (next != NULL) {
			next->pkt_len = m->pkt_len - m->data_len;
			next->nb_segs = m->nb_segs - 1;
		}
		m->next = NULL;
		m->nb_segs = 1;
		rte_pktmbuf_free_seg(m);
		m = next;
	}
	if (m != NULL && m->pkt_len == 0) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	return m;
}

/* Remove @p n bytes from the end of a chain; NULL when nothing is left. */
struct rte_mbuf *
tcp_mbuf_trim(struct rte_mbuf *m, uint32_t n)
{
	struct rte_mbuf *seg;
	uint32_t keep, acc = 0;
	uint16_t nseg = 0;

	if (m == NULL)
		return NULL;
	if (n >= m->pkt_len) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	keep = m->pkt_len - n;
	for (seg = m; seg != NULL; seg = seg->next) {
		nseg++;
		if (acc + seg->data_len >= keep) {
			seg->data_len = (uint16_t)(keep - acc);
			if (seg->next != NULL) {
				rte_pktmbuf_free(seg->next);
				seg->next = NULL;
			}
			break;
		}
		acc += seg->data_len;
	}
	m->pkt_len = keep;
	m->nb_segs = nseg;
	return m;
}

static inline uint32_t
meta_end(const struct ewyk_tcp *t, struct rte_mbuf *q)
{
	const struct tcp_mbuf_meta *mm = tcp_meta(t, q);

	return mm->seq + mm->len;
}

void
tcp_ooo_purge(struct ewyk_tcp_conn *c)
{
	struct ewyk_tcp *t = c->tcp;
	struct rte_mbuf *q = c->ooo_head, *n;

	for (; q != NULL; q = n) {
		n = tcp_meta(t, q)->qnext;
		rte_pktmbuf_free(q);
	}
	t->held_mbufs -= c->ooo_segs;
	t->ooo_held -= c->ooo_segs;
	c->ooo_segs = 0;
	c->ooo_head = NULL;
	c->ooo_n = 0;
	c->ooo_bytes = 0;
	c->ooo_fin = 0;
}

/*
 * Hand in-order bytes to the layer above. The ACK they call for is noted
 * first, so that a reply sent from the callback carries it (and no pure
 * ACK follows).
 */
static void
deliver(struct ewyk_tcp_conn *c, struct rte_mbuf *m, uint32_t len)
{
	struct ewyk_tcp *t = c->tcp;

	c->rcv_nxt += len;
	tcp_ctr_add(t, EWYK_TCP_BYTES_IN, len);
	tcp_ack_owed(c, len);
	if (c->app_closed || c->dead || c->ops == NULL ||
		c->ops->recv == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	c->rcv_held += len;
	c->ops->recv(c->ctx, c, m);
}

/*
 * A small segment that continues the queued entry @p prev is copied into
 * that entry's last buffer (buffers count as what they pin, tcp_limits.c):
 * a stream of one-byte segments behind a hole holds a few buffers, not
 * one each. Entries that are not adjacent keep a buffer each, under the
 * budgets of tcp_ooo_fits().
 */
static bool
ooo_coalesce(struct ewyk_tcp_conn *c, struct rte_mbuf *prev, uint32_t seq,
	struct rte_mbuf *m, uint32_t len)
{
	struct ewyk_tcp *t = c->tcp;
	struct tcp_mbuf_meta *pm;

	if (prev == NULL)
		return false;
	pm = tcp_meta(t, prev);
	if (pm->seq + pm->len != seq ||
		!tcp_mbuf_absorb(rte_pktmbuf_lastseg(prev), m, len))
		return false;
	prev->pkt_len += len;
	pm->len += len;
	c->ooo_bytes += len;
	c->ooo_last_start = pm->seq;
	c->ooo_last_end = seq + len;
	rte_pktmbuf_free(m);
	tcp_ctr_inc(t, EWYK_TCP_OOO_COALESCED);
	tcp_ctr_inc(t, EWYK_TCP_OOO_QUEUED);
	return true;
}

/* Insert [seq, seq+len) held in m into the sorted, disjoint queue. */
static void
ooo_insert(struct ewyk_tcp_conn *c, uint32_t seq, struct rte_mbuf *m,
	uint32_t len)
{
	struct ewyk_tcp *t = c->tcp;
	struct rte_mbuf **pp = &c->ooo_head, *prev = NULL, *q;
	uint32_t end = seq + len;

	/* Find the first entry that ends after our start. */
	while (*pp != NULL && SEQ_LEQ(meta_end(t, *pp), seq)) {
		prev = *pp;
		pp = &tcp_meta(t, *pp)->qnext;
	}
	q = *pp;
	if (q != NULL && SEQ_LEQ(tcp_meta(t, q)->seq, seq)) {
		/* q starts before us and ends after our start. */
		uint32_t qend = meta_end(t, q);

		if (SEQ_GEQ(qend, end)) {
			rte_pktmbuf_free(m); /* already held */
			return;
		}
		m = tcp_mbuf_adj(m, qend - seq);
		seq = qend;
		len = end - seq;
		prev = q;
		pp = &tcp_meta(t, q)->qnext;
		q = *pp;
	}
	/* Remove entries we cover entirely; trim our tail on a partial one. */
	while (q != NULL && SEQ_LT(tcp_meta(t, q)->seq, end)) {
		struct tcp_mbuf_meta *qm = tcp_meta(t, q);

		if (SEQ_LEQ(qm->seq + qm->len, end)) {
			struct rte_mbuf *n = qm->qnext;

			c->ooo_bytes -= qm->len;
			c->ooo_n--;
			c->ooo_segs -= q->nb_segs;
			t->held_mbufs -= q->nb_segs;
			t->ooo_held -= q->nb_segs;
			rte_pktmbuf_free(q);
			*pp = n;
			q = n;
			continue;
		}
		m = tcp_mbuf_trim(m, end - qm->seq);
		end = qm->seq;
		len = end - seq;
		break;
	}
	if (m == NULL || len == 0) {
		rte_pktmbuf_free(m);
		return;
	}
	if (ooo_coalesce(c, prev, seq, m, len))
		return;
	if (c->ooo_n >= t->conf.ooo_max_segs) {
		tcp_ctr_inc(t, EWYK_TCP_DROP_OOO_FULL);
		rte_pktmbuf_free(m);
		return;
	}
	if (!tcp_ooo_fits(c, m->nb_segs)) {
		tcp_ctr_inc(t, EWYK_TCP_DROP_OOO_BUDGET);
		rte_pktmbuf_free(m);
		return;
	}
	c->ooo_segs += m->nb_segs;
	t->held_mbufs += m->nb_segs;
	t->ooo_held += m->nb_segs;
	struct tcp_mbuf_meta *mm = tcp_meta(t, m);

	mm->seq = seq;
	mm->len = len;
	mm->qnext = q;
	*pp = m;
	c->ooo_n++;
	c->ooo_bytes += len;
	c->ooo_last_start = seq;
	c->ooo_last_end = end;
	tcp_ctr_inc(t, EWYK_TCP_OOO_QUEUED);
}

void
tcp_data_input(struct ewyk_tcp_conn *c, uint32_t seq, struct rte_mbuf *m,
	uint32_t len, bool fin)
{
	struct ewyk_tcp *t = c->tcp;
	bool had_ooo = c->ooo_head != NULL;
	bool got_fin = false;

	if (len > c->rcv_mss)
		c->rcv_mss = (uint16_t)RTE_MIN(len, (uint32_t)UINT16_MAX);
	if (SEQ_GT(seq, c->rcv_nxt)) {
		/* Out of order: queue, ACK at once with SACK (RFC 5681 4.2). */
		if (fin) {
			c->ooo_fin = 1;
			c->ooo_fin_seq = seq + len;
		}
		if (len > 0)
			ooo_insert(c, seq, m, len);
		else
			rte_pktmbuf_free(m);
		c->ack_now = 1;
		return;
	}
	if (len > 0 && !c->app_closed && !tcp_recv_admits(c, m)) {
		/* Not acknowledged: the peer sends it again (and the FIN
		 * with it) once the application has let go of some. */
		tcp_ctr_inc(t, EWYK_TCP_DROP_RCV_BUDGET);
		rte_pktmbuf_free(m);
		return;
	}
	if (had_ooo)
		c->ack_now = 1; /* a hole was (partly) filled */
	if (len > 0)
		deliver(c, m, len);
	else
		tcp_mbuf_free(m);
	if (fin) {
		got_fin = true;
	} else {
		while (c->ooo_head != NULL && !c->dead) {
			struct rte_mbuf *q = c->ooo_head;
			struct tcp_mbuf_meta *qm = tcp_meta(t, q);
			uint32_t qend = qm->seq + qm->len;

			if (SEQ_GT(qm->seq, c->rcv_nxt))
				break;
			c->ooo_head = qm->qnext;
			c->ooo_n--;
			c->ooo_bytes -= qm->len;
			c->ooo_segs -= q->nb_segs;
			t->held_mbufs -= q->nb_segs;
			t->ooo_held -= q->nb_segs;
			if (SEQ_LEQ(qend, c->rcv_nxt)) {
				rte_pktmbuf_free(q);
				continue;
			}
			q = tcp_mbuf_adj(q, c->rcv_nxt - qm->seq);
			deliver(c, q, qend - c->rcv_nxt);
		}
		if (c->ooo_fin && c->rcv_nxt == c->ooo_fin_seq)
			got_fin = true;
	}
	if (c->dead)
		return;
	if (had_ooo && c->rcv_nxt != c->last_ack_sent)
		c->ack_now = 1; /* what the hole held, at once too */
	if (got_fin) {
		tcp_ooo_purge(c);
		c->rcv_nxt++;
		c->ack_now = 1;
		tcp_fin_in_order(c);
	}
}

unsigned int
tcp_sack_blocks_out(struct ewyk_tcp_conn *c, struct tcp_sack_blk *blk,
	unsigned int max)
{
	struct ewyk_tcp *t = c->tcp;
	struct tcp_sack_blk r[TCP_SACK_OUT_MAX * 2];
	unsigned int nr = 0, n = 0, i, first = UINT32_MAX;
	struct rte_mbuf *q;

	/* Merge adjacent queue entries into ranges (ascending). */
	for (q = c->ooo_head; q != NULL; q = tcp_meta(t, q)->qnext) {
		struct tcp_mbuf_meta *qm = tcp_meta(t, q);

		if (nr > 0 && r[nr - 1].end == qm->seq) {
			r[nr - 1].end += qm->len;
			continue;
		}
		if (nr == RTE_DIM(r))
			break;
		r[nr].start = qm->seq;
		r[nr].end = qm->seq + qm->len;
		nr++;
	}
	if (nr == 0 || max == 0)
		return 0;
	/* RFC 2018: the first block holds the most recent arrival. */
	for (i = 0; i < nr; i++) {
		if (SEQ_LEQ(r[i].start, c->ooo_last_start) &&
			SEQ_LT(c->ooo_last_start, r[i].end)) {
			first = i;
			break;
		}
	}
	if (first != UINT32_MAX)
		blk[n++] = r[first];
	for (i = nr; i > 0 && n < max; i--) {
		if (i - 1 != first)
			blk[n++] = r[i - 1];
	}
	return n;
}

void
tcp_ack_owed(struct ewyk_tcp_conn *c, uint32_t len)
{
	struct ewyk_tcp *t = c->tcp;

	if (len == 0)
		return;
	if (t->conf.no_delack || c->quickack > 0) {
		if (c->quickack > 0)
			c->quickack--;
		c->ack_now = 1;
		return;
	}
	c->rcv_unacked += len;
	/* ACK at least every second full-sized segment (RFC 5681 4.2). */
	if (c->rcv_unacked >= 2u * c->rcv_mss)
		c->ack_now = 1;
	else
		c->ack_delayed = 1;
}

/* After input: send what can be sent (it carries the ACK), then any ACK still owed. */
void
tcp_ack_flush(struct ewyk_tcp_conn *c)
{
	struct ewyk_tcp *t = c->tcp;

	if (c->dead)
		return;
	tcp_output(c);
	if (c->dead)
		return;
	if (c->ack_now) {
		if (c->ack_delayed || c->rcv_unacked > 0)
			tcp_ctr_inc(t, EWYK_TCP_QUICK_ACKS);
		tcp_send_ack(c);
	} else if (c->ack_delayed) {
		tcp_timer_delack_arm(c);
	}
}

void
ewyk_tcp_recvd(struct ewyk_tcp_conn *c, uint32_t len)
{
	struct ewyk_tcp *t;
	uint32_t old_wnd, space, thresh;

	RTE_ASSERT(c == NULL || ewyk_net_shard_held_here(c->tcp->shard));
	if (c == NULL || c->dead)
		return;
	t = c->tcp;
	c->rcv_held -= RTE_MIN(len, c->rcv_held);
	if (c->state != EWYK_TCP_ESTABLISHED &&
		c->state != EWYK_TCP_FIN_WAIT_1 &&
		c->state != EWYK_TCP_FIN_WAIT_2)
		return;
	old_wnd = c->rcv_adv - c->rcv_nxt;
	space = tcp_rcv_space(c);
	thresh = RTE_MIN(t->conf.rcv_buf / 2, 2u * c->rcv_mss);
	if (c->busy > 0) {
		/*
		 * Inside input: the ACK that follows carries the new window;
		 * make it go at once only if the window was (nearly) shut.
		 */
		if (old_wnd < c->rcv_mss && space > old_wnd &&
			space - old_wnd >= thresh)
			c->ack_now = 1;
		return;
	}
	if (space > old_wnd && space - old_wnd >= thresh) {
		tcp_ctr_inc(t, EWYK_TCP_WINDOW_UPDATES);
		tcp_send_ack(c);
	}
}
