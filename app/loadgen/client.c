/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client side of ewyk-loadgen: connection slots over lib/tcp's
 * active open, requests out, responses in and validated with lib/http's
 * response parser, and the client's module of the runtime: per shard, its
 * slots (init), its work in each iteration of the runtime's loop (poll)
 * and their release (fini).
 *
 * Time: the runtime reads the TSC once per loop iteration, before the RX
 * burst, and hands it to the poll hook; a response completes at the time
 * of the iteration that received it, so a latency is short by less than
 * one iteration.
 *
 * Busy cycles: an iteration lasts from its TSC read to the next one's;
 * it is busy when it received a frame (the shard's rx_pkts counter moved)
 * or the client did something in it (a callback, a send, a connect). The
 * poll hook, called once per iteration, adds up the iterations of the
 * measured window, as the loadgen's own loop did before it ran on the
 * runtime: the runtime's part of the iteration counts as it did then.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>

#include "idle.h"
#include "loadgen.h"

/* Connects started per iteration, at most; while the peer's MAC is not
 * known yet (the ARP queue holds 8 frames), connections in SYN-SENT. */
#define LG_CONNECT_BURST 64
#define LG_CONNECT_UNRESOLVED 4
/* After the end: how long in-flight requests may still be answered, and
 * how long closes are given to go out. */
#define LG_DRAIN_MS 1000
#define LG_LINGER_MS 100

/* Count @p n errors of a kind. */
void
lg_err(struct lg_lcore *lc, enum lg_err e, uint64_t n)
{
	if (lg_in_window(lc->app, lc->now))
		lg_stat_add(&lc->st.err[e], n);
	lg_stat_add(&lc->st.err_all, n);
}

static void
idle_push(struct lg_lcore *lc, struct lg_slot *s)
{
	if (s->on_list & 1)
		return;
	s->on_list |= 1;
	lc->idle[lc->nidle++] = s->idx;
}

static void
ready_push(struct lg_lcore *lc, struct lg_slot *s)
{
	if (s->on_list & 2)
		return;
	s->on_list |= 2;
	lc->ready[lc->nready++] = s->idx;
}

/* The slot lost its connection (already gone or closed by us). */
static void
slot_detach(struct lg_slot *s)
{
	struct lg_lcore *lc = s->lc;

	if (s->state == LG_SLOT_CONNECTING)
		lc->syn_sent--;
	lc->inflight -= s->inflight;
	s->c = NULL;
	s->state = LG_SLOT_IDLE;
	s->inflight = 0;
	s->head = 0;
	s->hlen = 0;
	s->in_head = 1;
	s->close_after = 0;
	if (s->h2 != NULL)
		lg_h2_slot_stop(s);
	if (!lc->draining)
		idle_push(lc, s);
}

/* Give up the connection: @p n errors of kind @p e (at least one). */
void
slot_fail(struct lg_slot *s, enum lg_err e)
{
	lg_err(s->lc, e, s->inflight > 1 ? s->inflight : 1);
	ewyk_tcp_abort(s->c);
	slot_detach(s);
}

/* Close after a last response; requests still in flight are lost. */
void
slot_close(struct lg_slot *s)
{
	if (s->inflight != 0)
		lg_err(s->lc, LG_ERR_RESET, s->inflight);
	ewyk_tcp_close(s->c);
	slot_detach(s);
}

/*
 * Send @p k requests on an open slot, all started at @p t0. They go in
 * as few mbufs as fit. Returns how many were sent.
 */
static unsigned int
slot_send(struct lg_slot *s, unsigned int k, uint64_t t0)
{
	struct lg_lcore *lc = s->lc;
	struct lg *g = lc->app;
	unsigned int sent = 0, depth = g->conf.pipeline;

	if (s->h2 != NULL)
		return lg_h2_slot_send(s, k, t0);
	if (k == 1 && g->mreq_len == 0) {
		/* The common case: one request, the one kind. */
		struct rte_mbuf *m = rte_pktmbuf_alloc(lc->pool);

		if (m == NULL)
			return 0;
		rte_memcpy(rte_pktmbuf_mtod(m, char *), g->req, g->req_len);
		m->data_len = (uint16_t)g->req_len;
		m->pkt_len = g->req_len;
		if (ewyk_tcp_send(s->c, m) != 0) {
			rte_pktmbuf_free(m);
			return 0;
		}
		s->t[(s->head + s->inflight++) % depth] = t0;
		sent = 1;
		goto out;
	}
	while (sent < k) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(lc->pool);
		unsigned int in_m = 0;
		int rc;

		if (m == NULL)
			break;
		while (sent + in_m < k) {
			bool mix = g->mreq_len != 0 &&
				lg_rand(lc) < g->mix_threshold;
			const char *r = mix ? g->mreq : g->req;
			uint32_t len = mix ? g->mreq_len : g->req_len;
			char *p;

			if (rte_pktmbuf_tailroom(m) < len)
				break;
			p = rte_pktmbuf_append(m, (uint16_t)len);
			memcpy(p, r, len);
			in_m++;
		}
		rc = ewyk_tcp_send(s->c, m);
		if (rc != 0) {
			rte_pktmbuf_free(m);
			break;
		}
		for (; in_m > 0; in_m--, sent++)
			s->t[(s->head + s->inflight++) % depth] = t0;
	}
out:
	if (sent != 0) {
		if (s->inflight == sent) /* nothing was in flight */
			s->since = lc->now;
		lc->inflight += sent;
		lg_stat_add(&lc->st.sent, sent);
		lc->did_work = true;
	}
	return sent;
}

/*
 * Latencies are recorded once, into the histogram of the current
 * interval (live): intervals end at each second (the live line's p99)
 * and at the measured window's edges, so that an interval lies wholly
 * inside the window or wholly outside it; one inside is added to the
 * window's histogram (hist) as it ends. A response is one bucket
 * increment, not two.
 */

/* The end of the interval that starts at @p start. */
static uint64_t
live_boundary(struct lg_lcore *lc, uint64_t start)
{
	const struct lg *g = lc->app;
	uint64_t next;

	while (lc->live_sec <= start)
		lc->live_sec += g->hz;
	next = lc->live_sec;
	if (g->t_measure > start && g->t_measure < next)
		next = g->t_measure;
	if (g->t_end > start && g->t_end < next)
		next = g->t_end;
	return next;
}

/* The interval ended (at @p now or before): into the window's histogram
 * when it lay in the window, its p99 to the live line, the next one. */
static void
live_roll(struct lg_lcore *lc, uint64_t now)
{
	struct lg *g = lc->app;

	if (lc->live_sec == 0)
		return; /* not started */
	while (now >= lc->live_next) {
		uint64_t start = lc->live_next;

		__atomic_store_n(&lc->live_p99_ns,
			lg_hist_quantile(&lc->live, 0.99), __ATOMIC_RELAXED);
		if (lc->live.count != 0) {
			if (lc->live_in)
				lg_hist_merge(&lc->hist, &lc->live);
			lg_hist_reset(&lc->live);
		}
		lc->live_in = lg_in_window(g, start);
		lc->live_next = live_boundary(lc, start);
	}
}

void
lg_live_flush(struct lg_lcore *lc)
{
	if (lc->live_in && lc->live.count != 0)
		lg_hist_merge(&lc->hist, &lc->live);
	lg_hist_reset(&lc->live);
	lc->live_in = false;
}

/*
 * A response is counted: the clock is the start of this iteration of the
 * loop, when its frames were received (the poll hook's time is the
 * previous iteration's until the hook runs: a response that came after a
 * stall of the loop would be timed before it). The first response of an
 * iteration also notes a stall that ended at its start: one of this
 * loop (the iteration before it took LG_STALL_US or longer), or a peer
 * gap (docs/guides/runtime.md, "peer gap"; LG_STALL_US here).
 */
static void
lg_clock(struct lg_lcore *lc)
{
	const struct lg *g = lc->app;
	uint64_t now = ewyk_rt_shard_now(lc->sh);

	if (now == lc->now)
		return;
	lc->now = now;
	if (now - lc->prev >= g->stall_tsc) {
		lc->stall_end = now;
		lc->gap_end = now;
	} else if (now - lc->quiet_since >= g->stall_tsc) {
		lc->gap_end = now;
		if (lg_in_window(g, now)) {
			lg_stat_add(&lc->st.peer_gaps, 1);
			lg_stat_add(&lc->st.peer_gap_cycles,
				now - lc->quiet_since);
		}
	}
	lc->quiet_since = now;
}

/* A valid response to a request started at @p t0: @p bad when not 2xx. */
void
lg_count_response(struct lg_lcore *lc, uint64_t t0, bool bad)
{
	lg_clock(lc);
	lg_stat_add(&lc->st.responses, 1);
	if (bad) {
		lg_err(lc, LG_ERR_STATUS, 1);
		return;
	}
	if (unlikely(lc->now >= lc->live_next))
		live_roll(lc, lc->now);
	if (lc->live_in) {
		uint64_t ns = lg_tsc_ns(lc->app, lc->now - t0);

		lg_stat_add(&lc->st.ok, 1);
		lg_hist_record(&lc->live, ns);
		/* It was in flight (or due) while a stall held it. */
		if (unlikely(t0 < lc->gap_end)) {
			lg_hist_record(&lc->gapped, ns);
			if (t0 < lc->stall_end)
				lg_hist_record(&lc->spanned, ns);
		}
	}
}

/* A response is complete and valid in its framing. */
static void
slot_response(struct lg_slot *s)
{
	struct lg_lcore *lc = s->lc;
	uint64_t t0 = s->t[s->head];

	s->head = (uint16_t)((s->head + 1) % lc->app->conf.pipeline);
	s->inflight--;
	lc->inflight--;
	s->since = lc->now;
	lg_count_response(lc, t0, s->status_bad);
}

/* What to do with a slot once a received chain is parsed. */
enum slot_action {
	ACT_NONE = 0,
	ACT_CLOSE, /* a last response (Connection: close, --new-conn) */
	ACT_FAIL,  /* bad framing: abort */
};

/* A head is complete: check it and prepare for the body. */
static int
slot_head(struct lg_slot *s, const struct ewyk_http_resp *r)
{
	static const struct ewyk_http_limits lim = {
		.max_body = UINT64_C(1) << 40,
		.max_header_bytes = LG_HEAD_MAX,
	};

	if (r->until_close)
		return -EBADMSG; /* we need a length to keep the connection */
	s->status_bad = r->status < 200 || r->status > 299;
	s->close_after = !r->keep_alive;
	if (ewyk_http_resp_body_init(&s->body, r, &lim) != 0)
		return -EBADMSG;
	s->in_head = 0;
	return 0;
}

/* A head the parser accepted (@p hl bytes at @p p, the slot prepared
 * for its body): known from now on. */
static void
khead_learn(struct lg_slot *s, const char *p, uint32_t hl)
{
	struct lg_lcore *lc = s->lc;
	struct lg_khead *k = &lc->khead[lc->khead_next];

	if (hl > LG_KHEAD_MAX)
		return;
	memcpy(k->bytes, p, hl);
	k->len = (uint16_t)hl;
	k->status_bad = s->status_bad;
	k->close_after = s->close_after;
	k->body = s->body;
	lc->khead_last = lc->khead_next;
	lc->khead_next = (uint8_t)((lc->khead_next + 1) % LG_KHEADS);
}

/* A known head at the start of @p p (@p n bytes): its length, with the
 * slot prepared for its body as the parser would have; 0 when none. */
static uint32_t
khead_match(struct lg_slot *s, const char *p, uint32_t n)
{
	struct lg_lcore *lc = s->lc;
	unsigned int i, k = lc->khead_last;

	for (i = 0; i < LG_KHEADS; i++, k = (k + 1) % LG_KHEADS) {
		const struct lg_khead *h = &lc->khead[k];

		if (h->len == 0 || n < h->len ||
			memcmp(p, h->bytes, h->len) != 0)
			continue;
		s->status_bad = h->status_bad;
		s->close_after = h->close_after;
		s->body = h->body;
		s->in_head = 0;
		lc->khead_last = (uint8_t)k;
		lc->khead_hits++;
		return h->len;
	}
	return 0;
}

/* Parse bytes of the response stream; returns an enum slot_action. */
static int
slot_consume(struct lg_slot *s, const char *p, uint32_t n)
{
	struct ewyk_http_resp r = { 0 };
	struct ewyk_http_view data;
	uint32_t hl, used;
	int rc;

	while (n > 0) {
		if (s->inflight == 0)
			return ACT_FAIL; /* bytes nobody asked for */
		if (s->in_head && s->hlen == 0 &&
			(hl = khead_match(s, p, n)) != 0) {
			p += hl;
			n -= hl;
			/* A length-framed body here whole: no decoder. */
			if (s->body.framing == EWYK_HTTP_BODY_LENGTH &&
				s->body.remaining <= n) {
				p += s->body.remaining;
				n -= (uint32_t)s->body.remaining;
				s->in_head = 1;
				slot_response(s);
				if (s->close_after)
					return ACT_CLOSE;
				continue;
			}
		} else if (s->in_head) {
			if (s->hlen == 0) {
				rc = ewyk_http_resp_parse(p, n, LG_HEAD_MAX, 0,
					&r, &hl);
				if (rc == EWYK_HTTP_AGAIN) {
					memcpy(s->hbuf, p, n);
					s->hlen = (uint16_t)n;
					return ACT_NONE;
				}
				used = hl;
			} else {
				uint32_t c = RTE_MIN(n,
					(uint32_t)LG_HEAD_MAX - s->hlen);

				memcpy(s->hbuf + s->hlen, p, c);
				rc = ewyk_http_resp_parse(s->hbuf, s->hlen + c,
					LG_HEAD_MAX, 0, &r, &hl);
				if (rc == EWYK_HTTP_AGAIN) {
					s->hlen = (uint16_t)(s->hlen + c);
					p += c;
					n -= c;
					continue;
				}
				used = hl - s->hlen;
				s->hlen = 0;
			}
			if (rc < 0)
				return ACT_FAIL;
			p += used;
			n -= used;
			if (r.status < 200)
				continue; /* interim (1xx): the answer follows */
			if (slot_head(s, &r) != 0)
				return ACT_FAIL;
			if (used == hl)
				khead_learn(s, p - hl, hl);
		}
		rc = ewyk_http_body_parse(&s->body, p, n, &used, &data);
		if (rc < 0)
			return ACT_FAIL;
		p += used;
		n -= used;
		if (rc == EWYK_HTTP_DONE) {
			s->in_head = 1;
			slot_response(s);
			if (s->close_after)
				return ACT_CLOSE;
		}
	}
	/* A head that announced no body is complete with it. */
	if (!s->in_head && s->body.framing != EWYK_HTTP_BODY_CHUNKED &&
		s->body.remaining == 0) {
		s->in_head = 1;
		slot_response(s);
		if (s->close_after)
			return ACT_CLOSE;
	}
	return ACT_NONE;
}

/* Requests an open slot may have in flight now. */
static unsigned int
slot_depth(const struct lg_slot *s)
{
	if (s->h2 != NULL)
		return s->inflight + lg_h2_slot_room(s);
	return s->lc->app->conf.pipeline;
}

/* What a slot does once it may send again: closed loop, keep-alive. */
void
slot_refill(struct lg_slot *s)
{
	struct lg_lcore *lc = s->lc;
	struct lg *g = lc->app;
	unsigned int depth = slot_depth(s);

	if (lc->draining)
		return;
	if (g->conf.rate > 0) {
		if (s->inflight < depth)
			ready_push(lc, s);
		return;
	}
	if (s->inflight < depth)
		slot_send(s, depth - s->inflight, lc->now);
}

/* Free what the responses of this iteration came in, together. */
static void
lg_free_flush(struct lg_lcore *lc)
{
	if (lc->nfree == 0)
		return;
	rte_pktmbuf_free_bulk(lc->free, lc->nfree);
	lc->nfree = 0;
}

/* A received chain is read: freed with the others of the iteration. */
static void
lg_free_later(struct lg_lcore *lc, struct rte_mbuf *m)
{
	if (lc->nfree == LG_FREE_BATCH)
		lg_free_flush(lc);
	lc->free[lc->nfree++] = m;
}

static void
on_recv(void *ctx, struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	struct lg_slot *s = ctx;
	const struct rte_mbuf *seg;
	int act = ACT_NONE;

	if (s->h2 != NULL) {
		lg_h2_slot_recv(s, m);
		return;
	}
	ewyk_tcp_recvd(c, m->pkt_len);
	s->lc->did_work = true;
	for (seg = m; seg != NULL && act == ACT_NONE; seg = seg->next)
		act = slot_consume(s, rte_pktmbuf_mtod(seg, const char *),
			seg->data_len);
	lg_free_later(s->lc, m);
	if (act == ACT_FAIL) {
		slot_fail(s, LG_ERR_FRAMING);
		return;
	}
	if (act == ACT_CLOSE ||
		(s->lc->app->conf.new_conn && s->inflight == 0)) {
		slot_close(s);
		return;
	}
	slot_refill(s);
}

static void
on_connected(void *ctx, struct ewyk_tcp_conn *c, int err)
{
	struct lg_slot *s = ctx;
	struct lg_lcore *lc = s->lc;
	struct lg *g = lc->app;

	lc->did_work = true;
	if (err != 0) {
		/* The connection is gone already. */
		lg_err(lc, LG_ERR_CONNECT, 1);
		slot_detach(s);
		return;
	}
	lc->syn_sent--;
	s->state = LG_SLOT_OPEN;
	s->since = lc->now;
	lg_stat_add(&lc->st.connects, 1);
	RTE_SET_USED(c);
	if (lc->draining) {
		slot_close(s);
		return;
	}
	if (g->conf.new_conn) {
		/* Its one request, timed from the connect. */
		if (slot_send(s, 1, s->t[0]) != 1)
			slot_fail(s, LG_ERR_RESET);
		return;
	}
	if (s->h2 != NULL) {
		/* Requests follow the server's SETTINGS. */
		lg_h2_slot_start(s);
		return;
	}
	slot_refill(s);
}

static void
on_eof(void *ctx, struct ewyk_tcp_conn *c)
{
	struct lg_slot *s = ctx;

	RTE_SET_USED(c);
	s->lc->did_work = true;
	slot_close(s);
}

static void
on_closed(void *ctx, struct ewyk_tcp_conn *c, int err)
{
	struct lg_slot *s = ctx;

	RTE_SET_USED(c);
	RTE_SET_USED(err);
	s->lc->did_work = true;
	/* Reset or timed out under us; the handle is gone. */
	lg_err(s->lc, LG_ERR_RESET, s->inflight > 1 ? s->inflight : 1);
	slot_detach(s);
}

static void
on_writable(void *ctx, struct ewyk_tcp_conn *c)
{
	struct lg_slot *s = ctx;

	RTE_SET_USED(c);
	if (s->h2 != NULL)
		lg_h2_slot_writable(s);
}

static const struct ewyk_tcp_ops lg_ops = {
	.connected = on_connected,
	.recv = on_recv,
	.eof = on_eof,
	.writable = on_writable,
	.closed = on_closed,
};

/* Start a connection on an idle slot; @p t0 times a --new-conn request. */
static int
slot_connect(struct lg_slot *s, uint64_t t0)
{
	struct lg_lcore *lc = s->lc;
	struct lg *g = lc->app;
	struct ewyk_tcp_connect_args a = {
		.dst_ip = g->conf.dst_ip,
		.dst_port = g->conf.dst_port,
		.ops = &lg_ops,
		.ctx = s,
		.ipv6 = g->conf.ipv6,
	};

	memcpy(a.dst_ip6, g->conf.dst_ip6, 16);
	s->c = ewyk_tcp_connect(lc->tcp, &a);
	if (s->c == NULL)
		return -rte_errno;
	s->state = LG_SLOT_CONNECTING;
	s->since = lc->now;
	s->in_head = 1;
	s->t[0] = t0;
	lc->syn_sent++;
	lc->did_work = true;
	return 0;
}

/* The next hop's link-layer address is known (ARP or ND): the target's
 * own when it is on-link, the gateway's (--gw, --gw6) when it is not.
 * Once it was, the lookups stop (it only limits SYNs sent into an
 * unresolved queue). */
static bool
target_resolved(struct lg_lcore *lc)
{
	const struct lg_conf *c = &lc->app->conf;
	const struct ewyk_net *net = ewyk_net_shard_net(lc->shard);
	struct rte_ether_addr mac;
	int port;

	if (lc->resolved)
		return true;
	if (c->ipv6) {
		uint8_t nh[16];

		port = ewyk_net_route6(net, c->dst_ip6);
		if (port < 0)
			return false;
		if (ewyk_net_nexthop6(net, (uint16_t)port, c->dst_ip6, nh) < 0)
			return false;
		lc->resolved = ewyk_net_nd_lookup(lc->shard, (uint16_t)port, nh,
				       &mac) == 0;
	} else {
		rte_be32_t nh;

		port = ewyk_net_route(net, c->dst_ip);
		if (port < 0)
			return false;
		if (ewyk_net_nexthop(net, (uint16_t)port, c->dst_ip, &nh) < 0)
			return false;
		lc->resolved = ewyk_net_arp_lookup(lc->shard, (uint16_t)port,
				       nh, &mac) == 0;
	}
	return lc->resolved;
}

/* Connect idle slots (keep-alive, or --new-conn closed loop). */
static void
open_some(struct lg_lcore *lc, unsigned int budget)
{
	struct lg *g = lc->app;

	if (lc->nidle == 0 || lc->now < lc->open_after)
		return;
	if (!target_resolved(lc) && lc->syn_sent >= LG_CONNECT_UNRESOLVED)
		return;
	while (budget > 0 && lc->nidle > 0) {
		struct lg_slot *s = &lc->slots[lc->idle[lc->nidle - 1]];

		if (s->state != LG_SLOT_IDLE) {
			s->on_list &= (uint8_t)~1;
			lc->nidle--;
			continue;
		}
		if (slot_connect(s, lc->now) != 0) {
			/* No local port or connection object yet (TIME_WAIT):
			 * count it, and wait a millisecond. */
			lg_err(lc, LG_ERR_CONNECT, 1);
			lc->open_after = lc->now + g->hz / 1000;
			return;
		}
		s->on_list &= (uint8_t)~1;
		lc->nidle--;
		budget--;
		if (!target_resolved(lc) &&
			lc->syn_sent >= LG_CONNECT_UNRESOLVED)
			return;
	}
}

/* Open loop: sends refused in one iteration before it gives up. */
#define LG_SEND_REFUSALS 4

/* Open loop: due requests into the backlog, the backlog onto slots. */
static void
schedule(struct lg_lcore *lc)
{
	struct lg *g = lc->app;
	unsigned int budget = LG_CONNECT_BURST;
	unsigned int due = 0, refused = 0;

	/* Bounded per iteration: the rest is due in the next one. */
	while (lc->next_t <= (double)lc->now && due++ < 4096) {
		if (lc->bl_n == LG_BACKLOG) {
			lg_err(lc, LG_ERR_MISSED, 1);
		} else {
			lc->backlog[(lc->bl_head + lc->bl_n) % LG_BACKLOG] =
				(uint64_t)lc->next_t;
			lc->bl_n++;
		}
		lc->next_t += lc->interval;
	}
	while (lc->bl_n > 0) {
		uint64_t t0 = lc->backlog[lc->bl_head];
		struct lg_slot *s;

		if (g->conf.new_conn) {
			if (lc->nidle == 0 || budget == 0 ||
				lc->now < lc->open_after)
				return;
			s = &lc->slots[lc->idle[--lc->nidle]];
			s->on_list &= (uint8_t)~1;
			if (s->state != LG_SLOT_IDLE)
				continue;
			if (slot_connect(s, t0) != 0) {
				lg_err(lc, LG_ERR_CONNECT, 1);
				idle_push(lc, s);
				lc->open_after = lc->now + g->hz / 1000;
				return;
			}
			budget--;
		} else {
			if (lc->nready == 0)
				return;
			s = &lc->slots[lc->ready[lc->nready - 1]];
			if (s->state != LG_SLOT_OPEN ||
				s->inflight >= slot_depth(s)) {
				s->on_list &= (uint8_t)~2;
				lc->nready--;
				continue;
			}
			if (slot_send(s, 1, t0) != 1) {
				/* Refused (its connection is closing, or no
				 * buffer now): the refused slot (the top) is
				 * swapped with the bottom one of the ready
				 * stack, so that one stuck connection does not
				 * hold the others' sends; a few refusals end
				 * the iteration (no buffer for any). */
				lg_stat_add(&lc->st.send_refused_total, 1);
				if (++refused >= LG_SEND_REFUSALS ||
					lc->nready == 1)
					return;
				lc->ready[lc->nready - 1] = lc->ready[0];
				lc->ready[0] = s->idx;
				continue;
			}
			/* How late the loop sent it: the loadgen's own share
			 * of the latency counted from t0. */
			if (lg_in_window(g, lc->now))
				lg_hist_record(&lc->lag,
					lg_tsc_ns(g, lc->now - t0));
		}
		lc->bl_head = (lc->bl_head + 1) % LG_BACKLOG;
		lc->bl_n--;
	}
}

/* Since when the slot waits: its last progress; with h2, when its oldest
 * open stream was sent (streams end out of order, each on its own clock). */
static uint64_t
slot_since(const struct lg_slot *s)
{
	if (s->h2 != NULL && s->inflight != 0)
		return lg_h2_slot_since(s);
	return s->since;
}

/* Every 10 ms: requests and connects that took longer than --timeout. */
static void
scan_timeouts(struct lg_lcore *lc)
{
	struct lg *g = lc->app;
	uint32_t i;

	lc->next_scan = lc->now + g->hz / 100;
	for (i = 0; i < lc->nslots; i++) {
		struct lg_slot *s = &lc->slots[i];

		if (s->state == LG_SLOT_IDLE ||
			lc->now - slot_since(s) < g->timeout_tsc)
			continue;
		if (s->state == LG_SLOT_CONNECTING) {
			lg_err(lc, LG_ERR_CONNECT, 1);
			ewyk_tcp_abort(s->c);
			slot_detach(s);
		} else if (s->inflight != 0 || lg_h2_slot_waiting(s)) {
			slot_fail(s, LG_ERR_TIMEOUT);
		}
	}
}

/* The end: close every connection (no more callbacks after this). */
static void
close_all(struct lg_lcore *lc)
{
	uint32_t i;

	for (i = 0; i < lc->nslots; i++) {
		struct lg_slot *s = &lc->slots[i];

		if (s->state == LG_SLOT_CONNECTING)
			ewyk_tcp_abort(s->c);
		else if (s->state == LG_SLOT_OPEN)
			ewyk_tcp_close(s->c);
		else
			continue;
		lc->inflight -= s->inflight;
		s->inflight = 0;
		s->c = NULL;
		s->state = LG_SLOT_IDLE;
	}
}

/* The shard is finished; the last one stops the runtime. */
static void
lg_done(struct lg_lcore *lc)
{
	struct lg *g = lc->app;

	lc->phase = LG_DONE;
	if (__atomic_add_fetch(&g->nb_done, 1, __ATOMIC_ACQ_REL) ==
		g->nb_lcores)
		ewyk_rt_stop(g->rt);
}

bool
lg_finished(const struct lg *g)
{
	return __atomic_load_n(&g->nb_done, __ATOMIC_ACQUIRE) == g->nb_lcores;
}

/* The iteration that ended at @p now: into the window's counters. */
static void
lg_account(struct lg_lcore *lc, uint64_t now)
{
	struct lg *g = lc->app;
	uint64_t rx = ewyk_net_counter_get(lc->shard, EWYK_NET_RX_PKTS);

	if (lg_in_window(g, lc->prev)) {
		uint64_t dt = RTE_MIN(now, g->t_end) - lc->prev;

		lg_stat_add(&lc->st.cycles, dt);
		lg_stat_add(&lc->st.iters, 1);
		if (lc->prev_work)
			lg_stat_add(&lc->st.busy_cycles, dt);
		if (dt >= g->stall_tsc) {
			lg_stat_add(&lc->st.stalls, 1);
			lg_stat_add(&lc->st.stall_cycles, dt);
			if (dt > lc->st.stall_max)
				__atomic_store_n(&lc->st.stall_max, dt,
					__ATOMIC_RELAXED);
		}
	}
	if (now - lc->prev >= g->stall_tsc) {
		lc->stall_end = now;
		lc->gap_end = now;
	}
	/* Nothing in flight: nothing is waited for (a peer gap needs
	 * requests in flight, docs/guides/runtime.md). */
	if (lc->inflight == 0)
		lc->quiet_since = now;
	lc->prev = now;
	/* Frames of this iteration, or what its callbacks did (they ran
	 * before this hook); what the hook itself does is added at its end. */
	lc->prev_work = rx != lc->rx_seen || lc->did_work;
	lc->rx_seen = rx;
	lc->did_work = false;
}

/* The start: shard 0 sets the times in its first iteration (every loop
 * is running then, and the link was waited for); the others wait for
 * them. Returns false while the run has not started on this shard. */
static bool
lg_start(struct lg_lcore *lc, uint64_t now)
{
	struct lg *g = lc->app;

	if (lc->id == 0 && !__atomic_load_n(&g->started, __ATOMIC_RELAXED) &&
		lg_idle_ready(g)) {
		g->t_start = now + g->hz / 100;
		g->t_measure = g->t_start +
			(uint64_t)(g->conf.warmup_s * (double)g->hz);
		g->t_end = g->t_measure +
			(uint64_t)(g->conf.duration_s * (double)g->hz);
		__atomic_store_n(&g->started, 1, __ATOMIC_RELEASE);
	}
	if (!__atomic_load_n(&g->started, __ATOMIC_ACQUIRE))
		return false;
	if (lc->next_t == 0) {
		lc->next_t = (double)g->t_start;
		lc->live_sec = g->t_start;
		lc->live_in = lg_in_window(g, g->t_start);
		lc->live_next = live_boundary(lc, g->t_start);
	}
	if (now < g->t_start)
		return false;
	lc->phase = LG_RUN;
	return true;
}

/*
 * --window-marks: shard 0 prints a line as the measured window opens and
 * as it closes (its end, or a stop), so that a caller can read the
 * server's own counters over the window alone: not over the idle set's
 * opening or the drain.
 */
static void
window_mark(struct lg_lcore *lc, uint64_t now)
{
	struct lg *g = lc->app;

	if (lc->marks == 0 && now >= g->t_measure) {
		printf("{\"window\": \"open\"}\n");
		fflush(stdout);
		lc->marks = 1;
	}
	if (lc->marks == 1 && (now >= g->t_end || lc->draining)) {
		printf("{\"window\": \"closed\"}\n");
		fflush(stdout);
		lc->marks = 2;
	}
}

/*
 * The poll hook: the client's part of one iteration of the runtime's
 * loop on this shard, after RX (the callbacks ran), TCP's clock and the
 * wheel; the runtime flushes TX after it.
 */
void
lg_shard_poll(struct ewyk_rt_shard *sh, uint64_t now, void *arg)
{
	struct lg *g = arg;
	struct lg_lcore *lc = &g->lc[ewyk_rt_shard_id(sh)];

	lc->now = now;
	lg_stat_add(&lc->st.loops, 1);
	lg_free_flush(lc);
	switch (lc->phase) {
	case LG_WAIT:
		if (!lg_start(lc, now)) {
			lc->prev = now;
			lc->rx_seen = ewyk_net_counter_get(lc->shard,
				EWYK_NET_RX_PKTS);
			lc->did_work = false;
			return;
		}
		break;
	case LG_LINGER:
		/* Let the FINs (and the server's answers to them) go. */
		if (now >= lc->linger_end && lg_idle_finished(g, lc->id))
			lg_done(lc);
		return;
	case LG_DONE:
		return;
	default:
		break;
	}
	lg_account(lc, now);
	if (lc->id == 0 && g->conf.window_marks)
		window_mark(lc, now);
	if (!lc->draining && (now >= g->t_end || ewyk_rt_stopping(g->rt))) {
		lc->draining = true;
		lc->phase = LG_DRAIN;
		lc->drain_end = now + g->hz * LG_DRAIN_MS / 1000;
		lc->nready = 0;
		lc->bl_n = 0;
	}
	if (!lc->draining) {
		if (g->conf.rate > 0)
			schedule(lc);
		if (g->conf.rate == 0 || !g->conf.new_conn)
			open_some(lc, LG_CONNECT_BURST);
	}
	if (now >= lc->next_scan)
		scan_timeouts(lc);
	/* What this hook did belongs to this iteration too. */
	if (lc->did_work)
		lc->prev_work = true;
	lc->did_work = false;
	if (now >= lc->live_next)
		live_roll(lc, now);
	if (lc->id == 0 && now >= g->live_at)
		lg_report_live(g, now);
	if (lc->draining && (lc->inflight == 0 || now >= lc->drain_end)) {
		close_all(lc);
		lc->phase = LG_LINGER;
		lc->linger_end = now + g->hz * LG_LINGER_MS / 1000;
	}
}

/* The init hook: this shard's share of the connections, as slots. */
int
lg_shard_init(struct ewyk_rt_shard *sh, void *arg)
{
	struct lg *g = arg;
	unsigned int id = ewyk_rt_shard_id(sh);
	struct lg_lcore *lc = &g->lc[id];
	int socket = ewyk_rt_shard_socket(sh);
	/* Connections spread evenly; the first shards take the rest. */
	uint32_t nslots = g->conf.conns / g->nb_lcores +
		(id < g->conf.conns % g->nb_lcores);
	uint32_t i;

	lc->id = id;
	lc->app = g;
	lc->sh = sh;
	lc->lcore_id = ewyk_rt_shard_lcore(sh);
	lc->pool = ewyk_rt_shard_mbufs(sh);
	lc->shard = ewyk_rt_shard_net(sh);
	lc->tcp = ewyk_rt_shard_tcp(sh);
	lc->nslots = nslots;
	lc->rng = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)lc->id << 32 | 1);
	lg_hist_reset(&lc->hist);
	lg_hist_reset(&lc->live);
	lg_hist_reset(&lc->lag);
	lg_hist_reset(&lc->spanned);
	lg_hist_reset(&lc->gapped);
	if (nslots == 0)
		return 0;
	lc->slots = rte_zmalloc_socket("lg_slots", sizeof(*lc->slots) * nslots,
		RTE_CACHE_LINE_SIZE, socket);
	lc->times = rte_zmalloc_socket("lg_times",
		sizeof(uint64_t) * nslots * g->conf.pipeline, 0, socket);
	lc->idle = rte_zmalloc_socket("lg_idle", sizeof(uint32_t) * nslots, 0,
		socket);
	lc->ready = rte_zmalloc_socket("lg_ready", sizeof(uint32_t) * nslots, 0,
		socket);
	lc->backlog = g->conf.rate > 0 ?
		rte_zmalloc_socket("lg_backlog", sizeof(uint64_t) * LG_BACKLOG,
			0, socket) :
		NULL;
	if (lc->slots == NULL || lc->times == NULL || lc->idle == NULL ||
		lc->ready == NULL ||
		(g->conf.rate > 0 && lc->backlog == NULL)) {
		fprintf(stderr,
			"error: memory for %u connections on lcore %u (try a larger -m)\n",
			nslots, lc->lcore_id);
		return -ENOMEM;
	}
	for (i = 0; i < nslots; i++) {
		struct lg_slot *s = &lc->slots[i];

		s->lc = lc;
		s->idx = i;
		s->in_head = 1;
		s->t = &lc->times[(size_t)i * g->conf.pipeline];
	}
	if (g->conf.h2 && lg_h2_slots_init(lc) != 0) {
		fprintf(stderr,
			"error: memory for %u h2 sessions on lcore %u\n",
			nslots, lc->lcore_id);
		return -ENOMEM;
	}
	/* Pushed in reverse so that slot 0 connects first. */
	for (i = nslots; i > 0; i--)
		idle_push(lc, &lc->slots[i - 1]);
	/* The rate is shared in proportion to the connections. */
	if (g->conf.rate > 0)
		lc->interval = (double)g->hz * g->conf.conns /
			(g->conf.rate * nslots);
	return 0;
}

/* The fini hook. Connections still open (a stop by signal) are reset by
 * the runtime afterwards, without callbacks. */
void
lg_shard_fini(struct ewyk_rt_shard *sh, void *arg)
{
	struct lg *g = arg;
	struct lg_lcore *lc = &g->lc[ewyk_rt_shard_id(sh)];

	lg_free_flush(lc);
	if (lc->slots != NULL)
		lg_h2_slots_fini(lc);
	rte_free(lc->slots);
	rte_free(lc->times);
	rte_free(lc->idle);
	rte_free(lc->ready);
	rte_free(lc->backlog);
	lc->slots = NULL;
	lc->times = NULL;
	lc->idle = NULL;
	lc->ready = NULL;
	lc->backlog = NULL;
	lc->nslots = 0;
}
