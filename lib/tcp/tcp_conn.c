/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection objects (from the context's ewyk pool), their life cycle and
 * the calls the layer above makes on them.
 */

#include <rte_memcpy.h>

#include "tcp_private.h"

static const char *const state_names[EWYK_TCP_STATE_MAX] = {
	[EWYK_TCP_CLOSED] = "CLOSED",
	[EWYK_TCP_LISTEN] = "LISTEN",
	[EWYK_TCP_SYN_SENT] = "SYN_SENT",
	[EWYK_TCP_SYN_RECEIVED] = "SYN_RECEIVED",
	[EWYK_TCP_ESTABLISHED] = "ESTABLISHED",
	[EWYK_TCP_FIN_WAIT_1] = "FIN_WAIT_1",
	[EWYK_TCP_FIN_WAIT_2] = "FIN_WAIT_2",
	[EWYK_TCP_CLOSE_WAIT] = "CLOSE_WAIT",
	[EWYK_TCP_CLOSING] = "CLOSING",
	[EWYK_TCP_LAST_ACK] = "LAST_ACK",
	[EWYK_TCP_TIME_WAIT] = "TIME_WAIT",
};

const char *
ewyk_tcp_state_name(enum ewyk_tcp_state s)
{
	if ((unsigned int)s >= EWYK_TCP_STATE_MAX)
		return NULL;
	return state_names[s];
}

struct ewyk_tcp_conn *
tcp_conn_alloc(struct ewyk_tcp *t)
{
	struct ewyk_tcp_conn *c = ewyk_pool_get(t->conn_pool);

	if (c == NULL) {
		tcp_ctr_inc(t, EWYK_TCP_DROP_NO_CONN_MEM);
		return NULL;
	}
	memset(c, 0, sizeof(*c));
	c->tcp = t;
	c->nodelay = 1;
	c->rto_ms = t->conf.rto_init_ms;
	c->snd_mss = TCP_DEFAULT_MSS;
	c->rcv_mss = TCP_DEFAULT_MSS;
	c->mss_cap = t->conf.mss;
	if (t->shard != NULL)
		c->pmtu_gen = ewyk_net_pmtu6_gen(t->shard);
	c->quickack = t->conf.no_quickack ? 0 : t->conf.quickack_segs;
	c->last_rx_tsc = t->now;
	t->conns++;
	return c;
}

void
tcp_conn_release(struct ewyk_tcp_conn *c)
{
	struct ewyk_tcp *t = c->tcp;

	t->conns--;
	ewyk_pool_put(t->conn_pool, c);
}

/* Take the connection out of everything; the object goes when not busy. */
void
tcp_conn_destroy(struct ewyk_tcp_conn *c)
{
	struct ewyk_tcp *t = c->tcp;

	if (c->dead)
		return;
	c->dead = 1;
	tcp_timer_stop_all(c);
	tcp_txw_del(c);
	tcp_table_remove(t, c);
	tcp_src_del(t, c);
	if (c->in_syn_count && c->listener != NULL)
		c->listener->syn_count--;
	c->in_syn_count = 0;
	c->listener = NULL;
	if (c->sq_head != NULL)
		rte_pktmbuf_free(c->sq_head);
	c->sq_head = c->sq_tail = c->sq_cur = NULL;
	t->held_mbufs -= c->sq_segs;
	c->sq_segs = 0;
	c->sq_len = 0;
	tcp_ooo_purge(c);
	tcp_recv_forget(c);
	tcp_set_state(c, EWYK_TCP_CLOSED);
	if (c->busy == 0)
		tcp_conn_release(c);
}

void
tcp_notify_closed(struct ewyk_tcp_conn *c, int err)
{
	if (!c->app_known || c->app_closed)
		return;
	c->app_closed = 1;
	if (c->ops != NULL && c->ops->closed != NULL) {
		tcp_conn_hold(c);
		c->ops->closed(c->ctx, c, err);
		tcp_conn_unhold(c);
	}
}

/* End a connection abnormally: tell the application, then destroy. */
void
tcp_conn_drop(struct ewyk_tcp_conn *c, int err)
{
	if (c->dead)
		return;
	tcp_conn_hold(c);
	if (c->app_known && !c->app_closed) {
		if (!c->passive && !c->est_once) {
			c->app_closed = 1;
			if (c->ops != NULL && c->ops->connected != NULL)
				c->ops->connected(c->ctx, c,
					err == -ECONNRESET ? -ECONNREFUSED :
							     err);
		} else {
			tcp_notify_closed(c, err);
		}
	}
	tcp_conn_destroy(c);
	tcp_conn_unhold(c);
}

void
tcp_conn_set_mss(struct ewyk_tcp_conn *c)
{
	uint32_t mss = RTE_MIN(c->peer_mss, c->mss_cap);
	uint32_t opt = c->ts_ok ? TCP_TS_OPT_LEN : 0;

	mss = mss > opt + TCP_MIN_MSS ? mss - opt : TCP_MIN_MSS;
	c->snd_mss = (uint16_t)mss;
	c->rcv_mss = (uint16_t)RTE_MAX(TCP_MIN_MSS,
		(int)RTE_MIN(c->peer_mss, c->mss_cap) - (int)opt);
}

/* The connection's tuple as its segments arrive: the peer is the source. */
void
tcp_conn_ip(const struct ewyk_tcp_conn *c, struct tcp_ip *ip)
{
	memset(ip, 0, sizeof(*ip));
	ip->src = c->rip;
	ip->dst = c->lip;
	ip->port = c->port;
	ip->v6 = c->v6;
}

/*
 * The MSS we offer and send with: conf.mss over IPv4 (its MTU is the
 * user's to match); over IPv6 20 less for the longer header, and never
 * more than the path MTU towards the peer allows (RFC 8201 5.2).
 */
uint16_t
tcp_mss_cap(struct ewyk_tcp *t, const struct tcp_ip *ip)
{
	uint32_t mss = t->conf.mss;

	if (!ip->v6)
		return (uint16_t)mss;
	mss = mss > TCP_MIN_MSS + TCP_IP6_OVERHEAD - TCP_IP4_OVERHEAD ?
		mss - (TCP_IP6_OVERHEAD - TCP_IP4_OVERHEAD) :
		TCP_MIN_MSS;
	if (t->shard != NULL) {
		uint32_t mtu = ewyk_net_pmtu6(t->shard, ip->port, ip->src.b);

		if (mtu > TCP_IP6_OVERHEAD && mtu - TCP_IP6_OVERHEAD < mss)
			mss = mtu - TCP_IP6_OVERHEAD;
	}
	return (uint16_t)RTE_MAX(mss, (uint32_t)TCP_MIN_MSS);
}

/*
 * New data acknowledged by an IPv6 peer proves it reachable (RFC 4861
 * 7.3.1): its neighbour entry goes back to REACHABLE without a probe. At
 * most once a second per connection, and per peer address as well: short
 * connections from one peer (a new one per request) would otherwise each
 * confirm the same entry once. The entry's ReachableTime is 30 s.
 * tcp_nd_confirm() (tcp_private.h) tests the connection's second and
 * calls this, with the loop's time @p at (TSC >> 20), when it is up.
 */
void
tcp_nd_confirm_at(struct ewyk_tcp_conn *c, uint32_t at)
{
	struct ewyk_tcp *t = c->tcp;
	uint32_t sec = (uint32_t)(t->hz >> 20);

	if (t->shard == NULL)
		return;
	c->nd_at = at;
	if (at - t->nd_at < sec && t->nd_port == c->port &&
		tcp_addr_eq6(&t->nd_ip, &c->rip))
		return;
	t->nd_at = at;
	t->nd_port = c->port;
	t->nd_ip = c->rip;
	(void)ewyk_net_nd_confirm(t->shard, c->port, c->rip.b);
}

/*
 * A packet-too-big lowered some path MTU on the shard since this IPv6
 * connection last looked: look again, and send smaller segments from now
 * on if its path is the one (what is in flight is retransmitted at the new
 * size when it is lost). One load and compare when nothing changed.
 */
void
tcp_pmtu_check(struct ewyk_tcp_conn *c)
{
	struct ewyk_tcp *t = c->tcp;
	struct tcp_ip ip;
	uint32_t gen;
	uint16_t cap;

	if (!c->v6 || t->shard == NULL)
		return;
	gen = ewyk_net_pmtu6_gen(t->shard);
	if (likely(gen == c->pmtu_gen))
		return;
	c->pmtu_gen = gen;
	tcp_conn_ip(c, &ip);
	/* Lowered by a packet-too-big, or raised when its entry expired
	 * (never above what the MTU of the port and conf.mss allow). */
	cap = tcp_mss_cap(t, &ip);
	if (cap == c->mss_cap)
		return;
	TCP_LOG(DEBUG, "path MTU: MSS %u -> %u", c->mss_cap, cap);
	c->mss_cap = cap;
	if (c->state != EWYK_TCP_SYN_SENT && c->state != EWYK_TCP_LISTEN)
		tcp_conn_set_mss(c);
}

/* Passive: the listener's accept; active: connected(0). */
bool
tcp_notify_established(struct ewyk_tcp_conn *c)
{
	struct ewyk_tcp *t = c->tcp;

	if (c->passive) {
		struct tcp_listener *l = c->listener;
		int rc = -1;

		c->listener = NULL;
		c->app_known = 1;
		if (l != NULL) {
			c->ops = l->ops;
			if (l->ops->accept != NULL)
				rc = l->ops->accept(l->arg, c);
		}
		if (c->dead)
			return false;
		if (rc != 0) {
			c->app_closed = 1;
			tcp_ctr_inc(t, EWYK_TCP_CONN_ABORTED);
			tcp_send_rst(c);
			tcp_conn_destroy(c);
			return false;
		}
		return true;
	}
	if (c->ops != NULL && c->ops->connected != NULL)
		c->ops->connected(c->ctx, c, 0);
	return !c->dead;
}

static bool
can_send(const struct ewyk_tcp_conn *c)
{
	return !c->dead && !c->app_closed && !c->shut_wr &&
		(c->state == EWYK_TCP_ESTABLISHED ||
			c->state == EWYK_TCP_CLOSE_WAIT);
}

/*
 * A small payload is copied into the tailroom of the send queue's last
 * buffer when that buffer is ours alone (direct, one reference: no
 * segment in flight refers to it, no other queue holds it), and freed:
 * 8,000 one-byte sends pin a few buffers, not 8,000.
 */
/* Inside input (or a callback), output waits for the outermost frame's
 * end: the responses to all the requests of a segment go out together,
 * with the ACK. */
static void
send_output(struct ewyk_tcp_conn *c)
{
	if (c->busy > 0)
		c->out_pending = 1;
	else
		tcp_output(c);
}

static bool
send_coalesce(struct ewyk_tcp_conn *c, struct rte_mbuf *m, uint32_t len)
{
	if (c->sq_tail == NULL || !tcp_mbuf_absorb(c->sq_tail, m, len))
		return false;
	c->sq_len += len;
	rte_pktmbuf_free(m);
	tcp_ctr_inc(c->tcp, EWYK_TCP_SEND_COALESCED);
	send_output(c);
	return true;
}

int
ewyk_tcp_send(struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	struct ewyk_tcp *t;
	uint32_t len;

	RTE_ASSERT(c == NULL || ewyk_net_shard_held_here(c->tcp->shard));
	if (c == NULL || m == NULL)
		return -EINVAL;
	if (!can_send(c))
		return -ENOTCONN;
	t = c->tcp;
	len = rte_pktmbuf_pkt_len(m);
	if (len == 0)
		return -EINVAL;
	if (c->sq_len > 0 && c->sq_len + len > t->conf.snd_buf) {
		c->want_writable = 1;
		tcp_ctr_inc(t, EWYK_TCP_SEND_REFUSED);
		return -EAGAIN;
	}
	if (send_coalesce(c, m, len))
		return 0;
	/* Buffers count as what they pin (tcp_limits.c): refused over budget. */
	if (!tcp_send_fits(c, m->nb_segs)) {
		c->want_writable = 1;
		tcp_ctr_inc(t, EWYK_TCP_SEND_REFUSED);
		return -EAGAIN;
	}
	c->sq_segs += m->nb_segs;
	t->held_mbufs += m->nb_segs;
	if (c->sq_tail != NULL)
		c->sq_tail->next = m;
	else
		c->sq_head = m;
	c->sq_tail = rte_pktmbuf_lastseg(m);
	c->sq_len += len;
	send_output(c);
	return 0;
}

uint32_t
ewyk_tcp_send_space(const struct ewyk_tcp_conn *c)
{
	if (c == NULL || !can_send(c) || c->sq_len >= c->tcp->conf.snd_buf ||
		!tcp_send_fits(c, 1))
		return 0;
	return c->tcp->conf.snd_buf - c->sq_len;
}

static int
do_shutdown(struct ewyk_tcp_conn *c)
{
	switch (c->state) {
	case EWYK_TCP_ESTABLISHED:
		tcp_set_state(c, EWYK_TCP_FIN_WAIT_1);
		break;
	case EWYK_TCP_CLOSE_WAIT:
		tcp_set_state(c, EWYK_TCP_LAST_ACK);
		break;
	default:
		return -ENOTCONN;
	}
	c->shut_wr = 1;
	tcp_output(c);
	return 0;
}

int
ewyk_tcp_shutdown(struct ewyk_tcp_conn *c)
{
	RTE_ASSERT(c == NULL || ewyk_net_shard_held_here(c->tcp->shard));
	if (c == NULL || c->dead || c->app_closed || c->shut_wr)
		return -ENOTCONN;
	return do_shutdown(c);
}

void
ewyk_tcp_close(struct ewyk_tcp_conn *c)
{
	struct ewyk_tcp *t;

	RTE_ASSERT(c == NULL || ewyk_net_shard_held_here(c->tcp->shard));
	if (c == NULL || c->dead || c->app_closed)
		return;
	t = c->tcp;
	c->app_closed = 1;
	tcp_recv_forget(c);
	c->orphan_tsc = t->now; /* orphan_timeout_ms counts from here */
	switch (c->state) {
	case EWYK_TCP_SYN_SENT:
	case EWYK_TCP_SYN_RECEIVED:
		tcp_conn_destroy(c);
		return;
	case EWYK_TCP_ESTABLISHED:
	case EWYK_TCP_CLOSE_WAIT:
		if (!c->shut_wr)
			do_shutdown(c);
		break;
	case EWYK_TCP_FIN_WAIT_2:
		tcp_timer_misc_arm(c, TCP_MISC_FIN_WAIT_2,
			t->now + tcp_ms_to_cyc(t, t->conf.fin_wait2_ms));
		break;
	default:
		break;
	}
}

void
ewyk_tcp_abort(struct ewyk_tcp_conn *c)
{
	RTE_ASSERT(c == NULL || ewyk_net_shard_held_here(c->tcp->shard));
	if (c == NULL || c->dead || c->app_closed)
		return;
	c->app_closed = 1;
	tcp_ctr_inc(c->tcp, EWYK_TCP_CONN_ABORTED);
	if (c->state != EWYK_TCP_SYN_SENT && c->state != EWYK_TCP_TIME_WAIT)
		tcp_send_rst(c);
	tcp_conn_destroy(c);
}

void
ewyk_tcp_set_nodelay(struct ewyk_tcp_conn *c, bool nodelay)
{
	if (c != NULL)
		c->nodelay = nodelay ? 1 : 0;
}

void
ewyk_tcp_conn_set_ctx(struct ewyk_tcp_conn *c, void *ctx)
{
	if (c != NULL)
		c->ctx = ctx;
}

void
ewyk_tcp_conn_set_ops(struct ewyk_tcp_conn *c, const struct ewyk_tcp_ops *ops)
{
	if (c != NULL)
		c->ops = ops;
}

void *
ewyk_tcp_conn_ctx(const struct ewyk_tcp_conn *c)
{
	return c != NULL ? c->ctx : NULL;
}

enum ewyk_tcp_state
ewyk_tcp_conn_state(const struct ewyk_tcp_conn *c)
{
	return c != NULL ? (enum ewyk_tcp_state)c->state : EWYK_TCP_CLOSED;
}

struct ewyk_tcp *
ewyk_tcp_conn_tcp(const struct ewyk_tcp_conn *c)
{
	return c != NULL ? c->tcp : NULL;
}

void
ewyk_tcp_conn_addrs(const struct ewyk_tcp_conn *c, struct ewyk_tcp_conn_info *i)
{
	if (c == NULL || i == NULL)
		return;
	i->state = (enum ewyk_tcp_state)c->state;
	i->ipv6 = c->v6;
	if (c->v6) {
		i->local_ip = 0;
		i->remote_ip = 0;
		memcpy(i->local_ip6, c->lip.b, 16);
		memcpy(i->remote_ip6, c->rip.b, 16);
	} else {
		i->local_ip = c->lip.v4;
		i->remote_ip = c->rip.v4;
		memset(i->local_ip6, 0, 16);
		memset(i->remote_ip6, 0, 16);
	}
	i->local_port = c->lport;
	i->remote_port = c->rport;
	i->port = c->port;
}

void
ewyk_tcp_conn_info(const struct ewyk_tcp_conn *c, struct ewyk_tcp_conn_info *i)
{
	if (c == NULL || i == NULL)
		return;
	memset(i, 0, sizeof(*i));
	ewyk_tcp_conn_addrs(c, i);
	i->snd_mss = c->snd_mss;
	i->snd_wscale = c->ws_ok ? c->snd_wscale : 0xff;
	i->rcv_wscale = c->ws_ok ? c->rcv_wscale : 0xff;
	i->sack = c->sack_ok;
	i->timestamps = c->ts_ok;
	i->snd_wnd = c->snd_wnd;
	i->rcv_wnd = c->rcv_adv - c->rcv_nxt;
	i->cwnd = c->cwnd;
	i->ssthresh = c->ssthresh;
	i->srtt_us = c->srtt_us;
	i->rttvar_us = c->rttvar_us;
	i->rto_ms = c->rto_ms;
	i->in_flight = c->snd_max - c->snd_una;
	i->snd_queued = c->sq_len;
	i->ooo_segs = c->ooo_n;
	i->app_segs = c->app_segs;
	i->retransmits = c->retrans_segs;
}
