/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What one peer, or all peers together, may hold of a shard
 * (docs/guides/security.md, "Memory"): connections per source address, and
 * the mbufs the send and out-of-order queues pin. Buffers are counted as
 * the mbufs they pin, not the payload bytes they carry: a 1-byte segment
 * pins a whole buffer, so a few connections of 1-byte segments could empty
 * the pool the shard also receives into.
 */

#include <errno.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_memcpy.h>

#include "tcp_src_hash.h"
#include "tcp_private.h"

/*
 * Per-source connection counts (max_conns_per_src): one 32-bit count per
 * bucket of a keyed hash of the peer's address, as many buckets as
 * connections (rounded up to a power of 2), so that a limit of any size
 * below max_conns holds. A limit of max_conns or more is no limit
 * (conf_defaults() makes it 0): without one, no table. Two sources
 * sharing a bucket share its limit; without the key, nobody can choose
 * to. Beside it, per connection object (by pool index), the buckets it
 * was counted in: a close gives them back without hashing again.
 */
static int
src_init(struct ewyk_tcp *t)
{
	uint32_t n;

	if (t->conf.max_conns_per_src == 0 && t->conf.max_conns_per_net6 == 0)
		return 0;
	n = rte_align32pow2(t->conf.max_conns);
	t->src_cnt = rte_zmalloc_socket("ewyk_tcp_src", n * sizeof(*t->src_cnt),
		RTE_CACHE_LINE_SIZE, t->conf.socket_id);
	if (t->src_cnt == NULL)
		return -1;
	t->src_of = rte_malloc_socket("ewyk_tcp_src_of",
		(size_t)t->conf.max_conns * sizeof(*t->src_of),
		RTE_CACHE_LINE_SIZE, t->conf.socket_id);
	if (t->src_of == NULL) {
		rte_free(t->src_cnt);
		t->src_cnt = NULL;
		return -1;
	}
	t->src_mask = n - 1;
	return 0;
}

/* Link-local peers (fe80::/10) all share fe80::/64: each is counted as
 * its own address only. */
static bool
net64_counts(const union tcp_addr *a)
{
	return !(a->b[0] == 0xfe && (a->b[1] & 0xc0) == 0x80);
}

/* The buckets an address is counted in (TCP_SRC_NONE: not counted). */
static void
src_slots(struct ewyk_tcp *t, const union tcp_addr *a, bool v6,
	struct tcp_open_hint *h)
{
	uint32_t hs, hn = 0;
	bool net64;

	h->src_set = true;
	h->src = TCP_SRC_NONE;
	h->net6 = TCP_SRC_NONE;
	if (t->src_cnt == NULL)
		return;
	net64 = v6 && net64_counts(a);
	tcp_src_hash(t->hk0, t->hk1, a, v6, net64, &hs, &hn);
	h->src = hs & t->src_mask;
	if (net64)
		h->net6 = hn & t->src_mask;
}

/*
 * An IPv6 peer is limited twice: as one address (max_conns_per_src), and
 * with the others of its /64 (max_conns_per_net6), since one host is
 * routinely given a whole /64 and may pick any address in it. The counts
 * looked at are left in @p h for tcp_src_add().
 */
bool
tcp_src_full(struct ewyk_tcp *t, const struct tcp_ip *ip,
	struct tcp_open_hint *h)
{
	uint32_t lim = t->conf.max_conns_per_src;
	uint32_t lim6 = t->conf.max_conns_per_net6;

	src_slots(t, &ip->src, ip->v6, h);
	if (h->src == TCP_SRC_NONE)
		return false;
	if (lim != 0 && t->src_cnt[h->src] >= lim)
		return true;
	return h->net6 != TCP_SRC_NONE && lim6 != 0 &&
		t->src_cnt[h->net6] >= lim6;
}

/* @p h: the counts tcp_src_full() found for the peer (NULL: look). */
void
tcp_src_add(struct ewyk_tcp *t, struct ewyk_tcp_conn *c,
	const struct tcp_open_hint *h)
{
	struct tcp_open_hint own;
	struct tcp_src_ref *r;

	if (t->src_cnt == NULL || c->src_counted)
		return;
	if (h == NULL || !h->src_set) {
		src_slots(t, &c->rip, c->v6, &own);
		h = &own;
	}
	r = &t->src_of[ewyk_pool_obj_index(t->conn_pool, c)];
	r->src = h->src;
	r->net6 = h->net6;
	t->src_cnt[h->src]++;
	if (h->net6 != TCP_SRC_NONE)
		t->src_cnt[h->net6]++;
	c->src_counted = 1;
}

void
tcp_src_del(struct ewyk_tcp *t, struct ewyk_tcp_conn *c)
{
	const struct tcp_src_ref *r;

	if (!c->src_counted)
		return;
	r = &t->src_of[ewyk_pool_obj_index(t->conn_pool, c)];
	t->src_cnt[r->src]--;
	if (r->net6 != TCP_SRC_NONE)
		t->src_cnt[r->net6]--;
	c->src_counted = 0;
}

/*
 * The budgets: mbuf_budget for all queues of the context (0: half its
 * pool, so that receive always has the other half), conn_mbuf_max for
 * one connection (0: a sixteenth of that, at least 64).
 */
int
tcp_limits_init(struct ewyk_tcp *t)
{
	uint32_t pool = t->tx_pool != NULL ? t->tx_pool->size : 0;

	if (t->conf.mbuf_budget == 0)
		t->conf.mbuf_budget = pool >= 128 ? pool / 2 : 64;
	if (t->conf.conn_mbuf_max == 0)
		t->conf.conn_mbuf_max = RTE_MAX(t->conf.mbuf_budget / 16, 64u);
	/* what an application's chain of one connection may reach */
	t->conf.conn_mbuf_max = RTE_MIN(t->conf.conn_mbuf_max,
		(uint32_t)RTE_MBUF_MAX_NB_SEGS / 2);
	return src_init(t);
}

/*
 * The shard's budget is shared so that no kind of queue can starve the
 * other: out-of-order queues, which a peer fills without reading
 * anything, get at most half of it, so sends always have the other half.
 * And a connection whose send queue is empty may queue a few buffers
 * (TCP_SEND_MIN_MBUFS) even with the budget spent, from a reserve of a
 * quarter of the budget (taken from the receive half): without it, a
 * connection refused with nothing in flight would wait for an ACK that
 * never comes, and an attacker holding the budget would stall every
 * honest reply. Receive keeps at least 3/8 of the pool.
 */
static bool
conn_fits(const struct ewyk_tcp_conn *c, uint32_t n)
{
	return c->sq_segs + c->ooo_segs + c->app_segs + n <=
		c->tcp->conf.conn_mbuf_max;
}

bool
tcp_ooo_fits(const struct ewyk_tcp_conn *c, uint32_t n)
{
	const struct ewyk_tcp *t = c->tcp;

	return conn_fits(c, n) && t->held_mbufs + n <= t->conf.mbuf_budget &&
		t->ooo_held + n <= t->conf.mbuf_budget / 2;
}

bool
tcp_send_fits(const struct ewyk_tcp_conn *c, uint32_t n)
{
	const struct ewyk_tcp *t = c->tcp;

	if (!conn_fits(c, n))
		return false;
	if (t->held_mbufs + n <= t->conf.mbuf_budget)
		return true;
	return c->sq_segs == 0 && n <= TCP_SEND_MIN_MBUFS &&
		t->held_mbufs + n <=
		t->conf.mbuf_budget + t->conf.mbuf_budget / 4;
}

/*
 * Received data the application holds (ewyk_tcp_recv_append) counts in
 * the same budgets: at most half of the shard's budget in all, and the
 * connection's own limit. An application that holds nothing of a
 * connection always takes the next segment (one buffer, which small
 * segments are then copied into), so an honest request is never refused
 * for what others hold; beyond that, a segment that does not fit is
 * dropped before it is acknowledged (the peer sends it again later) and
 * counted (drop_rcv_budget).
 */
bool
tcp_recv_admits(const struct ewyk_tcp_conn *c, const struct rte_mbuf *m)
{
	const struct ewyk_tcp *t = c->tcp;
	uint32_t n = m->nb_segs;

	if (c->app_segs == 0)
		return true;
	return conn_fits(c, n) && t->held_mbufs + n <= t->conf.mbuf_budget &&
		t->app_held + n <= t->conf.mbuf_budget / 2;
}

static void
recv_count(struct ewyk_tcp_conn *c, uint32_t n)
{
	c->app_segs += n;
	c->tcp->app_held += n;
	c->tcp->held_mbufs += n;
}

/* The application let go of the connection: what it still holds is no
 * longer the connection's (it frees it itself). */
void
tcp_recv_forget(struct ewyk_tcp_conn *c)
{
	struct ewyk_tcp *t = c->tcp;

	t->held_mbufs -= c->app_segs;
	t->app_held -= c->app_segs;
	c->app_segs = 0;
}

void
ewyk_tcp_recv_release(struct ewyk_tcp_conn *c, uint32_t nsegs)
{
	if (c == NULL || c->dead || c->app_closed)
		return;
	nsegs = RTE_MIN(nsegs, c->app_segs);
	c->app_segs -= nsegs;
	c->tcp->app_held -= nsegs;
	c->tcp->held_mbufs -= nsegs;
}

int
ewyk_tcp_send_held(struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	uint32_t n;
	int ret;

	if (c == NULL || m == NULL)
		return -EINVAL;
	/* counted once: as the send queue's if it takes them, else as held */
	n = RTE_MIN((uint32_t)m->nb_segs, c->app_segs);
	ewyk_tcp_recv_release(c, n);
	ret = ewyk_tcp_send(c, m);
	if (ret != 0 && !c->dead && !c->app_closed)
		recv_count(c, n);
	return ret;
}

uint32_t
ewyk_tcp_recv_consume(struct ewyk_tcp_conn *c, struct rte_mbuf **head,
	uint32_t len)
{
	struct rte_mbuf *m;
	uint32_t left = len, freed = 0;

	if (head == NULL)
		return 0;
	while ((m = *head) != NULL && left > 0) {
		struct rte_mbuf *n = m->next;

		if (left < m->data_len) {
			/* rte_pktmbuf_adj() fixes pkt_len on the head too */
			rte_pktmbuf_adj(m, (uint16_t)left);
			left = 0;
			break;
		}
		left -= m->data_len;
		if (n != NULL) {
			n->pkt_len = m->pkt_len - m->data_len;
			n->nb_segs = (uint16_t)(m->nb_segs - 1);
		}
		m->next = NULL;
		m->nb_segs = 1;
		rte_pktmbuf_free_seg(m);
		freed++;
		*head = n;
	}
	len -= left;
	ewyk_tcp_recv_release(c, freed);
	ewyk_tcp_recvd(c, len);
	return len;
}

/*
 * Copy a small payload (one buffer, at most TCP_COALESCE_MAX bytes) into
 * the tailroom of @p tl when that buffer is its holder's alone (direct,
 * one reference: no segment in flight, no other queue refers to it).
 * The caller fixes its lengths above @p tl and frees @p m.
 */
bool
tcp_mbuf_absorb(struct rte_mbuf *tl, const struct rte_mbuf *m, uint32_t len)
{
	if (m->nb_segs != 1 || m->pkt_len != len || len > TCP_COALESCE_MAX ||
		!RTE_MBUF_DIRECT(tl) || rte_mbuf_refcnt_read(tl) != 1 ||
		rte_pktmbuf_tailroom(tl) < len)
		return false;
	rte_memcpy(rte_pktmbuf_mtod_offset(tl, char *, tl->data_len),
		rte_pktmbuf_mtod(m, const char *), len);
	tl->data_len = (uint16_t)(tl->data_len + len);
	return true;
}

int
ewyk_tcp_recv_append(struct ewyk_tcp_conn *c, struct rte_mbuf **head,
	struct rte_mbuf *m)
{
	struct rte_mbuf *h, *tl;
	uint32_t len;

	if (c == NULL || head == NULL || m == NULL)
		return -EINVAL;
	h = *head;
	if (h == NULL) {
		*head = m;
		if (!c->dead && !c->app_closed)
			recv_count(c, m->nb_segs);
		return 0;
	}
	len = m->pkt_len;
	tl = rte_pktmbuf_lastseg(h);
	if (tcp_mbuf_absorb(tl, m, len)) {
		h->pkt_len += len;
		rte_pktmbuf_free(m);
		tcp_ctr_inc(c->tcp, EWYK_TCP_RECV_COALESCED);
		return 0;
	}
	if (rte_pktmbuf_chain(h, m) != 0) {
		tcp_ctr_inc(c->tcp, EWYK_TCP_DROP_APP_CHAIN);
		return -E2BIG;
	}
	if (!c->dead && !c->app_closed)
		recv_count(c, m->nb_segs);
	return 0;
}
