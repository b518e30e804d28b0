/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client's requests and time (client.h): requests out on a slot, the
 * open loop's schedule (intended send times, the backlog, the ready
 * slots), the start of the run and its measured window, each loop
 * iteration's accounting (busy cycles, stalls of this loop) and the
 * latency of each response (its interval's histogram, stall- and
 * gap-spanned responses; docs/guides/runtime.md).
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

#include "client.h"
#include "idle.h"
#include "loadgen.h"

/*
 * The one kind of request (no --mix-path) goes out copied into a fresh
 * buffer from the lcore's prebuilt run of copies (lc->reqs: as many as
 * --pipeline asks, or as fit in one buffer): one allocation and one copy
 * per send, whatever k. The buffer is lib/tcp's alone (one reference), so
 * no reference count is ever updated atomically on its way: its free
 * when the server acknowledged the bytes is the mempool cache's. (A
 * buffer shared by reference with the send queue, refcnt 2, costs a
 * lock-prefixed decrement on that free, and more for each segment that
 * referred to it; the copy costs more instructions instead, about the
 * same cycles: docs/guides/runtime.md, "What a request costs
 * ewyk-loadgen".)
 */
static struct rte_mbuf *
slot_rq(struct lg_lcore *lc, unsigned int n)
{
	uint32_t len = n * lc->app->req_len;
	struct rte_mbuf *m = rte_pktmbuf_alloc(lc->pool);

	if (unlikely(m == NULL))
		return NULL;
	rte_memcpy(rte_pktmbuf_mtod(m, char *), lc->reqs, len);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	return m;
}

/* Entry @p i of a slot's ring of start times (i < 2 * depth): no
 * division per request. */
static inline unsigned int
slot_ring(unsigned int i, unsigned int depth)
{
	return i >= depth ? i - depth : i;
}

/*
 * Send @p k requests on an open slot, all started at @p t0. They go in
 * as few mbufs as fit. Returns how many were sent.
 */
unsigned int
slot_send(struct lg_slot *s, unsigned int k, uint64_t t0)
{
	struct lg_lcore *lc = s->lc;
	struct lg *g = lc->app;
	unsigned int sent = 0, depth = g->conf.pipeline;
	struct rte_mbuf *m;

	if (s->h2 != NULL)
		return lg_h2_slot_send(s, k, t0);
	if (g->mreq_len == 0 && lc->reqs_n != 0) {
		/* The common case: the one kind, copied from lc->reqs. */
		while (sent < k) {
			unsigned int n = RTE_MIN(k - sent, lc->reqs_n);

			m = slot_rq(lc, n);
			if (m == NULL)
				break;
			if (ewyk_tcp_send(s->c, m) != 0) {
				rte_pktmbuf_free(m);
				break;
			}
			for (; n > 0; n--, sent++)
				s->t[slot_ring(s->head + s->inflight++,
					depth)] = t0;
		}
		goto out;
	}
	while (sent < k) {
		unsigned int in_m = 0;
		int rc;

		m = rte_pktmbuf_alloc(lc->pool);
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
			s->t[slot_ring(s->head + s->inflight++, depth)] = t0;
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
void
lg_live_roll(struct lg_lcore *lc, uint64_t now)
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

/* @p n valid responses to requests started at @p t0: @p bad when not
 * 2xx. One clock read, one record of the latency (counted n times). */
void
lg_count_responses(struct lg_lcore *lc, uint64_t t0, bool bad, uint32_t n)
{
	lg_clock(lc);
	lg_stat_add(&lc->st.responses, n);
	if (bad) {
		lg_err(lc, LG_ERR_STATUS, n);
		return;
	}
	if (unlikely(lc->now >= lc->live_next))
		lg_live_roll(lc, lc->now);
	if (lc->live_in) {
		uint64_t ns = lg_tsc_ns(lc->app, lc->now - t0);

		lg_stat_add(&lc->st.ok, n);
		lg_hist_record_n(&lc->live, ns, n);
		/* It was in flight (or due) while a stall held it. */
		if (unlikely(t0 < lc->gap_end)) {
			lg_hist_record_n(&lc->gapped, ns, n);
			if (t0 < lc->stall_end)
				lg_hist_record_n(&lc->spanned, ns, n);
		}
	}
}

void
lg_count_response(struct lg_lcore *lc, uint64_t t0, bool bad)
{
	lg_count_responses(lc, t0, bad, 1);
}

/* Open loop: sends refused in one iteration before it gives up. */
#define LG_SEND_REFUSALS 4

/* Open loop: due requests into the backlog, the backlog onto slots. */
void
lg_schedule(struct lg_lcore *lc)
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
				lg_push_idle(lc, s);
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

/* The iteration that ended at @p now: into the window's counters. */
void
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
bool
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
void
lg_window_mark(struct lg_lcore *lc, uint64_t now)
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
