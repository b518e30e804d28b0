/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client side of ewyk-loadgen: connection slots over lib/tcp's
 * active open, requests out, responses in and validated with lib/http's
 * response parser, and the loop of a client lcore.
 *
 * Time: one TSC read per loop iteration, before the RX burst; a response
 * completes at the time of the iteration that received it, so a latency
 * is short by less than one iteration.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "loadgen.h"

/* Connects started per iteration, at most; while the peer's MAC is not
 * known yet (the ARP queue holds 8 frames), connections in SYN-SENT. */
#define LG_CONNECT_BURST 64
#define LG_CONNECT_UNRESOLVED 4
/* After the end: how long in-flight requests may still be answered, and
 * how long closes are given to go out. */
#define LG_DRAIN_MS 1000
#define LG_LINGER_MS 100

static bool lg_quit;

void
lg_request_stop(void)
{
	__atomic_store_n(&lg_quit, true, __ATOMIC_RELAXED);
}

bool
lg_stopping(void)
{
	return __atomic_load_n(&lg_quit, __ATOMIC_RELAXED);
}

static inline uint32_t
lg_rand(struct lg_lcore *lc)
{
	uint64_t x = lc->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	lc->rng = x;
	return (uint32_t)((x * 0x2545f4914f6cdd1dULL) >> 32);
}

static inline bool
lg_in_window(const struct lg *g, uint64_t t)
{
	return t >= g->t_measure && t < g->t_end;
}

/* Count @p n errors of a kind. */
static void
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
	if (!lc->draining)
		idle_push(lc, s);
}

/* Give up the connection: @p n errors of kind @p e (at least one). */
static void
slot_fail(struct lg_slot *s, enum lg_err e)
{
	lg_err(s->lc, e, s->inflight > 1 ? s->inflight : 1);
	ewyk_tcp_abort(s->c);
	slot_detach(s);
}

/* Close after a last response; requests still in flight are lost. */
static void
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
	if (sent != 0) {
		if (s->inflight == sent) /* nothing was in flight */
			s->since = lc->now;
		lc->inflight += sent;
		lg_stat_add(&lc->st.sent, sent);
		lc->did_work = true;
	}
	return sent;
}

/* A response is complete and valid in its framing. */
static void
slot_response(struct lg_slot *s)
{
	struct lg_lcore *lc = s->lc;
	struct lg *g = lc->app;
	uint64_t t0 = s->t[s->head];

	s->head = (uint16_t)((s->head + 1) % g->conf.pipeline);
	s->inflight--;
	lc->inflight--;
	s->since = lc->now;
	lg_stat_add(&lc->st.responses, 1);
	if (s->status_bad) {
		lg_err(lc, LG_ERR_STATUS, 1);
		return;
	}
	if (lg_in_window(g, lc->now)) {
		uint64_t ns = (uint64_t)((double)(lc->now - t0) * 1e9 /
			(double)g->hz);

		lg_stat_add(&lc->st.ok, 1);
		lg_hist_record(&lc->hist, ns);
		lg_hist_record(&lc->live, ns);
	}
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
		if (s->in_head) {
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

/* What a slot does once it may send again: closed loop, keep-alive. */
static void
slot_refill(struct lg_slot *s)
{
	struct lg_lcore *lc = s->lc;
	struct lg *g = lc->app;

	if (lc->draining)
		return;
	if (g->conf.rate > 0) {
		if (s->inflight < g->conf.pipeline)
			ready_push(lc, s);
		return;
	}
	if (s->inflight < g->conf.pipeline)
		slot_send(s, g->conf.pipeline - s->inflight, lc->now);
}

static void
on_recv(void *ctx, struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	struct lg_slot *s = ctx;
	const struct rte_mbuf *seg;
	int act = ACT_NONE;

	ewyk_tcp_recvd(c, m->pkt_len);
	s->lc->did_work = true;
	for (seg = m; seg != NULL && act == ACT_NONE; seg = seg->next)
		act = slot_consume(s, rte_pktmbuf_mtod(seg, const char *),
			seg->data_len);
	rte_pktmbuf_free(m);
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

static const struct ewyk_tcp_ops lg_ops = {
	.connected = on_connected,
	.recv = on_recv,
	.eof = on_eof,
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
	};

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

/* Connect idle slots (keep-alive, or --new-conn closed loop). */
static void
open_some(struct lg_lcore *lc, unsigned int budget)
{
	struct lg *g = lc->app;
	struct rte_ether_addr mac;

	if (lc->now < lc->open_after)
		return;
	if (ewyk_net_arp_lookup(lc->shard, g->conf.dst_ip, &mac) != 0 &&
		lc->syn_sent >= LG_CONNECT_UNRESOLVED)
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
		if (ewyk_net_arp_lookup(lc->shard, g->conf.dst_ip, &mac) != 0 &&
			lc->syn_sent >= LG_CONNECT_UNRESOLVED)
			return;
	}
}

/* Open loop: due requests into the backlog, the backlog onto slots. */
static void
schedule(struct lg_lcore *lc)
{
	struct lg *g = lc->app;
	unsigned int budget = LG_CONNECT_BURST;

	unsigned int due = 0;

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
				s->inflight >= g->conf.pipeline) {
				s->on_list &= (uint8_t)~2;
				lc->nready--;
				continue;
			}
			if (slot_send(s, 1, t0) != 1)
				return;
		}
		lc->bl_head = (lc->bl_head + 1) % LG_BACKLOG;
		lc->bl_n--;
	}
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
			lc->now - s->since < g->timeout_tsc)
			continue;
		if (s->state == LG_SLOT_CONNECTING) {
			lg_err(lc, LG_ERR_CONNECT, 1);
			ewyk_tcp_abort(s->c);
			slot_detach(s);
		} else if (s->inflight != 0) {
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

/* One iteration; returns false when the lcore is done. */
static bool
lg_iterate(struct lg_lcore *lc, uint64_t *prev, bool *prev_work)
{
	struct lg *g = lc->app;
	uint64_t now = rte_rdtsc();
	uint16_t n;

	if (lg_in_window(g, *prev)) {
		uint64_t dt = RTE_MIN(now, g->t_end) - *prev;

		lg_stat_add(&lc->st.cycles, dt);
		lg_stat_add(&lc->st.iters, 1);
		if (*prev_work)
			lg_stat_add(&lc->st.busy_cycles, dt);
	}
	*prev = now;
	lc->now = now;
	lc->did_work = false;
	n = ewyk_net_poll(lc->shard, now);
	ewyk_net_msg_inbox_drain(lc->shard, 64);
	ewyk_tcp_advance(lc->tcp, now);
	if (!lc->draining && (now >= g->t_end || lg_stopping())) {
		lc->draining = true;
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
	ewyk_net_tx_flush(lc->shard);
	*prev_work = n != 0 || lc->did_work;
	if (now >= lc->live_next) {
		/* This lcore's p99 of the second, for the live line. */
		__atomic_store_n(&lc->live_p99_ns,
			lg_hist_quantile(&lc->live, 0.99), __ATOMIC_RELAXED);
		lg_hist_reset(&lc->live);
		lc->live_next += g->hz;
	}
	if (lc->id == 0)
		lg_report_live(g, now);
	return !(lc->draining && (lc->inflight == 0 || now >= lc->drain_end));
}

int
lg_lcore_main(void *arg)
{
	struct lg_lcore *lc = arg;
	struct lg *g = lc->app;
	uint64_t prev = rte_rdtsc(), end;
	bool prev_work = false;

	ewyk_net_shard_hold(lc->shard);
	lc->next_t = (double)g->t_start;
	lc->live_next = g->t_start + g->hz;
	while (rte_rdtsc() < g->t_start)
		rte_pause();
	while (lg_iterate(lc, &prev, &prev_work))
		;
	close_all(lc);
	/* Let the FINs (and the server's answers to them) go through. */
	end = rte_rdtsc() + g->hz * LG_LINGER_MS / 1000;
	while ((lc->now = rte_rdtsc()) < end) {
		ewyk_net_poll(lc->shard, lc->now);
		ewyk_net_msg_inbox_drain(lc->shard, 64);
		ewyk_tcp_advance(lc->tcp, lc->now);
		ewyk_net_tx_flush(lc->shard);
	}
	return 0;
}

int
lg_lcore_init(struct lg *g, struct lg_lcore *lc, uint32_t nslots)
{
	int socket = (int)rte_lcore_to_socket_id(lc->lcore_id);
	struct ewyk_tcp_conf tc;
	uint32_t i;

	memset(&tc, 0, sizeof(tc));
	tc.shard = lc->shard;
	tc.socket_id = socket;
	/* Slots, plus the connections we closed that linger in TIME_WAIT
	 * (a few: beyond max_time_wait they are closed at once). */
	tc.max_conns = RTE_MAX(2 * nslots + 1024, 4096u);
	tc.max_time_wait = 1024;
	tc.time_wait_ms = 1000;
	lc->tcp = ewyk_tcp_create(&tc);
	if (lc->tcp == NULL) {
		fprintf(stderr, "error: TCP on lcore %u: %s\n", lc->lcore_id,
			rte_strerror(rte_errno));
		return -1;
	}
	lc->nslots = nslots;
	lc->rng = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)lc->id << 32 | 1);
	lg_hist_reset(&lc->hist);
	lg_hist_reset(&lc->live);
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
		return -1;
	}
	for (i = 0; i < nslots; i++) {
		struct lg_slot *s = &lc->slots[i];

		s->lc = lc;
		s->idx = i;
		s->in_head = 1;
		s->t = &lc->times[(size_t)i * g->conf.pipeline];
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

void
lg_lcore_free(struct lg_lcore *lc)
{
	ewyk_tcp_free(lc->tcp);
	lc->tcp = NULL;
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
}
