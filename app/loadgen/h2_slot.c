/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --h2 on the client's connection slots: each slot holds one HTTP/2
 * connection state (h2.c) for the whole run, and a session for each TCP
 * connection it makes. The client (client.c, conn.c, sched.c) calls in
 * here where a slot connects,
 * receives, may send, becomes writable and loses its connection.
 *
 * Input: the bytes of each segment go into the session as they come;
 * what they call for (new streams in the places of those answered, the
 * WINDOW_UPDATEs and ACKs nghttp2 owes) is done once per connection at
 * the end of the loop's receive pass (lg_h2_pass_end(), from the
 * client's poll hook), so that responses that came in several segments
 * of one burst are followed by one request segment, not one each.
 *
 * Output: nghttp2's frames are copied into an mbuf chain of at most
 * LG_H2_OUT_MAX bytes per ewyk_tcp_send. When TCP refuses a chain (its
 * send buffer is full) the slot keeps it, and nothing more is taken from
 * nghttp2 until the writable event sends it: one chain per connection at
 * most, the rest waits in nghttp2's queues (bounded by --streams).
 *
 * Accounting: a slot's inflight is its session's open streams; each
 * stream's outcome (h2.c) counts as a response, with its latency, or as
 * an error of its kind, as HTTP/1.1 responses do.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include <rte_lcore.h>
#include <rte_mbuf.h>

#include <ewyk_http2_mem.h>

#include "h2.h"
#include "loadgen.h"

#define LG_H2_OUT_MAX (32u * 1024)

/* The chain an lcore is filling (one flush at a time per lcore), and
 * the memory of its sessions. */
struct h2_out {
	struct rte_mbuf *head, *tail;
	uint32_t len;
	bool full; /* LG_H2_OUT_MAX reached or no mbuf: more may wait */
	struct lg_h2 *pend;        /* input in this pass, not answered yet */
	struct ewyk_http2_mem mem; /* nghttp2's, this lcore's */
} __rte_cache_aligned;

/* Under AddressSanitizer the sessions keep malloc(), so that a block
 * used after nghttp2 freed it is still caught. */
#if defined(__SANITIZE_ADDRESS__)
#define LG_H2_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LG_H2_ASAN 1
#endif
#endif

static struct h2_out h2_out[LG_MAX_LCORES];

static size_t
slot_out(void *owner, const uint8_t *p, size_t n)
{
	struct lg_slot *s = owner;
	struct h2_out *o = &h2_out[s->lc->id];
	size_t done = 0;

	while (done < n) {
		struct rte_mbuf *t = o->tail;
		size_t c;

		if (o->len >= LG_H2_OUT_MAX) {
			o->full = true;
			break;
		}
		if (t == NULL || rte_pktmbuf_tailroom(t) == 0) {
			struct rte_mbuf *m = rte_pktmbuf_alloc(s->lc->pool);

			if (m == NULL) {
				o->full = true;
				break;
			}
			if (t == NULL) {
				o->head = m;
			} else {
				t->next = m;
				o->head->nb_segs++;
			}
			o->tail = t = m;
		}
		c = RTE_MIN(n - done, (size_t)rte_pktmbuf_tailroom(t));
		c = RTE_MIN(c, (size_t)(LG_H2_OUT_MAX - o->len));
		memcpy(rte_pktmbuf_mtod_offset(t, char *, t->data_len),
			p + done, c);
		t->data_len = (uint16_t)(t->data_len + c);
		o->head->pkt_len += (uint32_t)c;
		o->len += (uint32_t)c;
		done += c;
	}
	return done;
}

/* Hand the slot's pending chain to TCP: 0 sent (or none), 1 refused (the
 * writable event follows), < 0 the connection cannot send. */
static int
send_pending(struct lg_slot *s)
{
	struct lg_h2 *h = s->h2;
	int rc;

	if (h->pending == NULL)
		return 0;
	rc = ewyk_tcp_send(s->c, h->pending);
	if (rc == -EAGAIN)
		return 1;
	if (rc != 0) {
		rte_pktmbuf_free(h->pending);
		h->pending = NULL;
		return rc;
	}
	h->pending = NULL;
	s->lc->did_work = true;
	return 0;
}

/* Frames nghttp2 has queued, out to TCP. 0, or < 0: fail the slot. */
static int
slot_flush(struct lg_slot *s)
{
	struct h2_out *o = &h2_out[s->lc->id];
	int rc;

	for (;;) {
		rc = send_pending(s);
		if (rc != 0)
			return rc > 0 ? 0 : rc;
		o->head = o->tail = NULL;
		o->len = 0;
		o->full = false;
		rc = lg_h2_flush(s->h2);
		s->h2->pending = o->head;
		o->head = o->tail = NULL;
		if (rc != 0)
			return rc;
		if (s->h2->pending == NULL)
			return 0; /* nothing (or no mbuf now) */
		if (!o->full) {
			rc = send_pending(s);
			return rc > 0 ? 0 : rc;
		}
	}
}

/* A stream's outcome (h2.c's done()). */
static void
slot_done(void *owner, uint64_t t0, int outcome)
{
	struct lg_slot *s = owner;
	struct lg_lcore *lc = s->lc;

	s->inflight--;
	lc->inflight--;
	s->since = lc->now;
	if (outcome == LG_H2_OK || outcome == LG_ERR_STATUS)
		lg_count_response(lc, t0, outcome == LG_ERR_STATUS);
	else
		lg_err(lc, (enum lg_err)outcome, 1);
}

/* The session is over: streams still open are lost to what ended it. */
static void
slot_end(struct lg_slot *s)
{
	struct lg_lcore *lc = s->lc;
	struct lg_h2 *h = s->h2;
	uint64_t lost = s->inflight;

	/* A connection sent away (or broken) before it answered anything
	 * counts, even with nothing open: a server doing that to every
	 * connection must not read as zero errors. */
	if (lost == 0 && h->answered == 0)
		lost = 1;
	lg_err(lc, h->goaway ? LG_ERR_GOAWAY : LG_ERR_FRAMING, lost);
	lc->inflight -= s->inflight;
	s->inflight = 0;
	slot_close(s);
}

/*
 * After input or a writable event: new streams (none once the session is
 * closing), then one flush for them, WINDOW_UPDATEs and ACKs together.
 * Streams nghttp2 resets itself (a malformed response) close when their
 * RST_STREAM is sent, in the flush: their places are refilled once more.
 */
static void
slot_continue(struct lg_slot *s)
{
	unsigned int round;

	for (round = 0; round < 2; round++) {
		unsigned int open = s->inflight;

		slot_refill(s);
		if (s->state != LG_SLOT_OPEN)
			return;
		open = s->inflight > open ? s->inflight : open;
		if (slot_flush(s) != 0) {
			slot_fail(s, LG_ERR_RESET);
			return;
		}
		if (lg_h2_over(s->h2)) {
			slot_end(s);
			return;
		}
		if (s->inflight >= open)
			return; /* nothing closed in the flush */
	}
}

void
lg_h2_slot_start(struct lg_slot *s)
{
	if (lg_h2_start(s->h2) != 0) {
		slot_fail(s, LG_ERR_CONNECT);
		return;
	}
	if (slot_flush(s) != 0)
		slot_fail(s, LG_ERR_RESET);
}

void
lg_h2_slot_stop(struct lg_slot *s)
{
	struct lg_h2 *h = s->h2;

	rte_pktmbuf_free(h->pending);
	h->pending = NULL;
	lg_h2_stop(h);
}

void
lg_h2_slot_recv(struct lg_slot *s, struct rte_mbuf *m)
{
	const struct rte_mbuf *seg;
	int rc = 0;

	ewyk_tcp_recvd(s->c, m->pkt_len);
	s->lc->did_work = true;
	for (seg = m; seg != NULL && rc == 0; seg = seg->next)
		rc = lg_h2_recv(s->h2, rte_pktmbuf_mtod(seg, const uint8_t *),
			seg->data_len);
	rte_pktmbuf_free(m);
	if (rc != 0) {
		slot_fail(s, LG_ERR_FRAMING);
		return;
	}
	/* answered at the end of the pass (lg_h2_pass_end()), with what
	 * the pass's other segments for this connection bring */
	if (!s->h2->queued) {
		struct h2_out *o = &h2_out[s->lc->id];

		s->h2->queued = 1;
		s->h2->qnext = o->pend;
		o->pend = s->h2;
	}
}

void
lg_h2_pass_end(struct lg_lcore *lc)
{
	struct h2_out *o = &h2_out[lc->id];
	struct lg_h2 *h;

	while ((h = o->pend) != NULL) {
		struct lg_slot *s = h->owner;

		o->pend = h->qnext;
		h->queued = 0;
		/* a connection closed since has nothing to answer */
		if (s->state == LG_SLOT_OPEN && h->sess != NULL)
			slot_continue(s);
	}
}

void
lg_h2_slot_writable(struct lg_slot *s)
{
	if (s->state != LG_SLOT_OPEN || s->h2->pending == NULL)
		return;
	s->lc->did_work = true;
	slot_continue(s);
}

unsigned int
lg_h2_slot_send(struct lg_slot *s, unsigned int k, uint64_t t0)
{
	struct lg_lcore *lc = s->lc;
	struct lg *g = lc->app;
	unsigned int sent = 0;

	while (sent < k) {
		unsigned int which = g->mreq_len != 0 &&
			lg_rand(lc) < g->mix_threshold;

		if (lg_h2_request(s->h2, which, t0, lc->now) != 0)
			break;
		sent++;
	}
	if (sent == 0)
		return 0;
	if (s->inflight == 0)
		s->since = lc->now;
	s->inflight = (uint16_t)(s->inflight + sent);
	lc->inflight += sent;
	lg_stat_add(&lc->st.sent, sent);
	lc->did_work = true;
	if (slot_flush(s) != 0) {
		slot_fail(s, LG_ERR_RESET);
		return 0;
	}
	return sent;
}

unsigned int
lg_h2_slot_room(const struct lg_slot *s)
{
	return lg_h2_room(s->h2);
}

uint64_t
lg_h2_slot_since(const struct lg_slot *s)
{
	uint64_t t = lg_h2_oldest(s->h2);

	return t == UINT64_MAX ? s->since : t;
}

bool
lg_h2_slot_waiting(const struct lg_slot *s)
{
	return s->h2 != NULL && lg_h2_waiting(s->h2);
}

int
lg_h2_slots_init(struct lg_lcore *lc)
{
	struct ewyk_http2_mem *mem = &h2_out[lc->id].mem;
	uint32_t i;

	ewyk_http2_mem_init(mem);
	for (i = 0; i < lc->nslots; i++) {
		lc->slots[i].h2 = lg_h2_create(lc->app->h2, &lc->slots[i]);
		if (lc->slots[i].h2 == NULL)
			return -ENOMEM;
#ifndef LG_H2_ASAN
		lc->slots[i].h2->mem = &mem->mem;
#endif
	}
	return 0;
}

void
lg_h2_slots_fini(struct lg_lcore *lc)
{
	uint32_t i;

	for (i = 0; i < lc->nslots; i++) {
		struct lg_slot *s = &lc->slots[i];

		if (s->h2 == NULL)
			continue;
		rte_pktmbuf_free(s->h2->pending);
		s->h2->pending = NULL;
		lg_h2_destroy(s->h2);
		s->h2 = NULL;
	}
	/* every session of the lcore is gone */
	h2_out[lc->id].pend = NULL;
	ewyk_http2_mem_fini(&h2_out[lc->id].mem);
}

int
lg_h2_setup(struct lg *g)
{
	char ip[INET_ADDRSTRLEN], authority[64];
	int rc;

	g->h2 = calloc(1, sizeof(*g->h2));
	if (g->h2 == NULL)
		return -ENOMEM;
	inet_ntop(AF_INET, &g->conf.dst_ip, ip, sizeof(ip));
	snprintf(authority, sizeof(authority), "%s:%u", ip, g->conf.dst_port);
	rc = lg_h2_conf_init(g->h2, g->conf.streams, authority, g->conf.path,
		g->conf.mix_path, slot_done, slot_out);
	if (rc != 0) {
		lg_h2_teardown(g);
		return rc;
	}
	return 0;
}

void
lg_h2_teardown(struct lg *g)
{
	if (g->h2 == NULL)
		return;
	lg_h2_conf_fini(g->h2);
	free(g->h2);
	g->h2 = NULL;
}
