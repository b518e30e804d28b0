/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client side of ewyk-loadgen: responses in and validated with
 * lib/http's response parser, and the client's module of the runtime: per
 * shard, its slots (init), its work in each iteration of the runtime's
 * loop (poll) and their release (fini). Its connections are opened and
 * closed in conn.c; its requests are sent, scheduled (open loop) and
 * their latencies accounted in sched.c (client.h).
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

#include "client.h"
#include "idle.h"
#include "loadgen.h"

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

/*
 * Responses completed in one received chain are counted together: a run
 * of them with the same start time (the requests of a pipelined burst
 * were sent at one time) and the same status class is one latency record
 * and one set of counter updates, not one per response.
 */
struct lg_run {
	uint64_t t0;
	uint32_t n;
	bool bad;
};

static void
done_flush(struct lg_lcore *lc, struct lg_run *d)
{
	if (d->n == 0)
		return;
	lg_count_responses(lc, d->t0, d->bad, d->n);
	d->n = 0;
}

/* A response is complete and valid in its framing. */
static void
slot_response(struct lg_slot *s, struct lg_run *d)
{
	struct lg_lcore *lc = s->lc;
	uint64_t t0 = s->t[s->head];
	unsigned int next = s->head + 1u;

	/* The ring of start times wraps without a division. */
	s->head = (uint16_t)(next == lc->app->conf.pipeline ? 0 : next);
	s->inflight--;
	lc->inflight--;
	s->since = lc->now;
	if (d->n != 0 && (d->t0 != t0 || d->bad != s->status_bad))
		done_flush(lc, d);
	d->t0 = t0;
	d->bad = s->status_bad;
	d->n++;
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
slot_consume(struct lg_slot *s, const char *p, uint32_t n, struct lg_run *d)
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
				slot_response(s, d);
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
			slot_response(s, d);
			if (s->close_after)
				return ACT_CLOSE;
		}
	}
	/* A head that announced no body is complete with it. */
	if (!s->in_head && s->body.framing != EWYK_HTTP_BODY_CHUNKED &&
		s->body.remaining == 0) {
		s->in_head = 1;
		slot_response(s, d);
		if (s->close_after)
			return ACT_CLOSE;
	}
	return ACT_NONE;
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
			lg_push_ready(lc, s);
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

void
lg_on_recv(void *ctx, struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	struct lg_slot *s = ctx;
	const struct rte_mbuf *seg;
	struct lg_run d = { .n = 0 };
	int act = ACT_NONE;

	if (s->h2 != NULL) {
		lg_h2_slot_recv(s, m);
		return;
	}
	ewyk_tcp_recvd(c, m->pkt_len);
	s->lc->did_work = true;
	for (seg = m; seg != NULL && act == ACT_NONE; seg = seg->next)
		act = slot_consume(s, rte_pktmbuf_mtod(seg, const char *),
			seg->data_len, &d);
	lg_free_later(s->lc, m);
	done_flush(s->lc, &d);
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
	if (g->conf.h2)
		lg_h2_pass_end(lc);
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
		lg_window_mark(lc, now);
	/* A stop (a signal) is looked for with the timeouts, every 10 ms:
	 * not an atomic load and a call in every iteration. */
	if (!lc->draining &&
		(now >= g->t_end ||
			(now >= lc->next_scan && ewyk_rt_stopping(g->rt)))) {
		lc->draining = true;
		lc->phase = LG_DRAIN;
		lc->drain_end = now + g->hz * LG_DRAIN_MS / 1000;
		lc->nready = 0;
		lc->bl_n = 0;
	}
	if (!lc->draining) {
		if (g->conf.rate > 0)
			lg_schedule(lc);
		if (lc->nidle != 0 && (g->conf.rate == 0 || !g->conf.new_conn))
			lg_open_some(lc, LG_CONNECT_BURST);
	}
	if (now >= lc->next_scan)
		lg_scan_timeouts(lc);
	/* What this hook did belongs to this iteration too. */
	if (lc->did_work)
		lc->prev_work = true;
	lc->did_work = false;
	if (now >= lc->live_next)
		lg_live_roll(lc, now);
	if (lc->id == 0 && now >= g->live_at)
		lg_report_live(g, now);
	if (lc->draining && (lc->inflight == 0 || now >= lc->drain_end)) {
		lg_close_all(lc);
		lc->phase = LG_LINGER;
		lc->linger_end = now + g->hz * LG_LINGER_MS / 1000;
	}
}

/* The lcore's run of request copies (sched.c, slot_send()): as many as
 * --pipeline asks, or as fit in one of its pool's buffers; none when not
 * even one fits (the general path then refuses the send as before). */
static int
lg_reqs_init(struct lg_lcore *lc, int socket)
{
	const struct lg *g = lc->app;
	uint32_t room = rte_pktmbuf_data_room_size(lc->pool) -
		RTE_PKTMBUF_HEADROOM;
	uint32_t n = RTE_MIN(g->conf.pipeline, room / g->req_len), i;

	if (n == 0)
		return 0;
	lc->reqs = rte_malloc_socket("lg_reqs", (size_t)n * g->req_len,
		RTE_CACHE_LINE_SIZE, socket);
	if (lc->reqs == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		memcpy(lc->reqs + (size_t)i * g->req_len, g->req, g->req_len);
	lc->reqs_n = n;
	return 0;
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
	if (!g->conf.h2 && g->mreq_len == 0 && lg_reqs_init(lc, socket) != 0) {
		fprintf(stderr, "error: memory for requests on lcore %u\n",
			lc->lcore_id);
		return -ENOMEM;
	}
	if (g->conf.h2 && lg_h2_slots_init(lc) != 0) {
		fprintf(stderr,
			"error: memory for %u h2 sessions on lcore %u\n",
			nslots, lc->lcore_id);
		return -ENOMEM;
	}
	/* Pushed in reverse so that slot 0 connects first. */
	for (i = nslots; i > 0; i--)
		lg_push_idle(lc, &lc->slots[i - 1]);
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
	rte_free(lc->reqs);
	lc->reqs = NULL;
	lc->reqs_n = 0;
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
