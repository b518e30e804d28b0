/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The body budget of a shard: request body bytes its streams hold in
 * their consumers (ewyk_http2_read_body()), bounded through flow control.
 * nghttp2's automatic WINDOW_UPDATEs are off: a DATA payload handed to a
 * consumer is consumed (its window reopened) only while the shard's
 * granted bytes stay within body_budget and those of the peer's address
 * within body_budget_per_src. What is beyond is owed: the stream waits on
 * the server's list, its window and its connection's not reopened, so
 * the peer stalls on a zero window; no connection can bring more than its
 * connection window of owed bytes. When a stream ends, its bytes go back
 * (its owed ones to its connection's window) and the waiting streams are
 * granted in the order they came, each as far as the budget and its
 * source's share allow. A stream left waiting body_timeout_ms is reset,
 * and so is one whose body arrives slower than body_min_rate or stops for
 * body_timeout_ms (HTTP/1.1's rule): bytes are held only by bodies on
 * their way in.
 * Payloads nobody consumes (no consumer, a stream gone) are consumed at
 * once: they are not held.
 *
 * The body's clock starts when its consumer is set (at HEADERS): a body
 * announced (no END_STREAM) whose first DATA never comes is reset after
 * body_timeout_ms too, and counted as slow.
 *
 * A streamed body (ewyk_http2_read_body_stream()) is held only until its
 * consumer releases it (ewyk_http2_body_release()): within the budget its
 * connection's window is reopened as bytes arrive, its stream's window
 * only as they are released, so a consumer that falls behind holds at
 * most one stream window, and the time it holds bytes is not the peer's
 * slowness (the pace rule waits for the consumer to catch up).
 */

#include <errno.h>

#include <rte_cycles.h>

#include "http2_private.h"

/* What is left of @p lim once @p used is taken (a spare buffer may have
 * taken more than the budget: none). */
static uint64_t
left_of(uint64_t lim, uint64_t used)
{
	return used < lim ? lim - used : 0;
}

/* Bytes @p st may be granted now. */
static uint64_t
body_room(const struct ewyk_http2_stream *st, bool *src_full)
{
	const struct ewyk_http2_server *s = st->c->srv;
	uint64_t room = left_of(s->conf.body_budget, s->body_granted), r;
	int src = st->c->st_src;

	*src_full = false;
	if (src >= 0) {
		r = left_of(s->conf.body_budget_per_src, s->body_src[src]);
		if (r < room || r == 0) {
			room = r;
			*src_full = true;
		}
	}
	return room;
}

/* Charge @p st's spare buffer (its consumer's buffer beyond @p held
 * bytes) to the budget, the shard's and its source's, as far as both
 * have room: a charge that took the shard past its budget would make
 * every source's bodies wait for one source's buffers. @return true
 * when the charge went down (room came back). */
static bool
spare_set(struct ewyk_http2_stream *st, uint64_t held)
{
	struct ewyk_http2_server *s = st->c->srv;
	int src = st->c->st_src;
	uint64_t want = st->body_buf > held ? st->body_buf - held : 0;
	uint64_t was = st->body_spare, room;

	if (want > was) {
		room = left_of(s->conf.body_budget, s->body_granted);
		if (src >= 0)
			room = RTE_MIN(room,
				left_of(s->conf.body_budget_per_src,
					s->body_src[src]));
		want = RTE_MIN(want, was + room);
	}
	if (want == was)
		return false;
	st->body_spare = want;
	s->body_granted = s->body_granted - was + want;
	if (src >= 0)
		s->body_src[src] = s->body_src[src] - was + want;
	if (want > was)
		H2_CTR(s, BODY_SPARE, want - was);
	else
		ewyk_ctr_sub(&s->ctr[EWYK_HTTP2_C_BODY_SPARE], was - want);
	return want < was;
}

static void
body_grant(struct ewyk_http2_stream *st, uint64_t n)
{
	struct h2_conn *c = st->c;
	struct ewyk_http2_server *s = c->srv;

	st->body_granted += n;
	s->body_granted += n;
	if (c->st_src >= 0)
		s->body_src[c->st_src] += n;
	if (c->sess == NULL || c->gone)
		return;
	/* a streamed body's stream window reopens as it is released */
	if (st->body_stream)
		(void)nghttp2_session_consume_connection(c->sess, n);
	else
		(void)nghttp2_session_consume(c->sess, st->id, n);
}

static void body_regrant(struct ewyk_http2_server *s);

static void
wait_del(struct ewyk_http2_stream *st)
{
	struct ewyk_http2_server *s = st->c->srv;

	TAILQ_REMOVE(&s->wait, st, wlink);
	st->waiting = 0;
	/* The window was ours to withhold: the wait is not the peer's
	 * slowness, its gap clock starts again (a streamed body's runs
	 * again when its consumer has released all: h2_body_release()). */
	if (!st->body_stream) {
		st->body_last = rte_get_tsc_cycles();
		st->body_waited += st->body_last - st->wait_since;
	}
	ewyk_ctr_sub(&s->ctr[EWYK_HTTP2_C_BODY_WAITING], 1);
}

/* A DATA payload of @p len bytes was handed to @p st's consumer. */
void
h2_body_in(struct ewyk_http2_stream *st, uint32_t len)
{
	struct ewyk_http2_server *s = st->c->srv;
	bool src_full;
	uint64_t n;

	bool back;

	H2_CTR(s, BODY_HELD, len);
	st->body_last = rte_get_tsc_cycles();
	if (st->body_first == 0)
		st->body_first = st->body_last;
	if (st->body_stream && st->body_granted + st->body_owed == 0)
		st->hold_since = st->body_last;
	st->body_rx += len;
	/* the bytes fill the buffer's spare room: its charge is theirs */
	back = spare_set(st, st->body_granted + st->body_owed + len);
	if (!st->waiting) {
		n = RTE_MIN((uint64_t)len, body_room(st, &src_full));
		if (n > 0)
			body_grant(st, n);
		len -= (uint32_t)n;
		if (len == 0)
			goto out;
		/* over the budget: the window stays shut, the stream waits */
		if (src_full)
			H2_CTR(s, BODY_SRC_WAIT, 1);
		else
			H2_CTR(s, BODY_WAIT, 1);
		H2_CTR(s, BODY_WAITING, 1);
		st->waiting = 1;
		st->wait_since = rte_get_tsc_cycles();
		TAILQ_INSERT_TAIL(&s->wait, st, wlink);
	}
	st->body_owed += len;
	H2_CTR(s, BODY_OWED, len);
out:
	if (back && !TAILQ_EMPTY(&s->wait))
		body_regrant(s);
}

/* The budget came back: grant the waiting streams, in order, then send
 * their connections' WINDOW_UPDATEs. Not reentered: a flush that ends
 * streams (and gives back more) makes the loop run again. */
static void
body_regrant(struct ewyk_http2_server *s)
{
	struct ewyk_http2_stream *st, *next;
	struct h2_conn *c;
	bool src_full;
	uint64_t n;

	if (s->granting) {
		s->regrant = 1;
		return;
	}
	s->granting = 1;
	do {
		s->regrant = 0;
		for (st = TAILQ_FIRST(&s->wait); st != NULL; st = next) {
			next = TAILQ_NEXT(st, wlink);
			n = RTE_MIN(st->body_owed, body_room(st, &src_full));
			if (n == 0) {
				if (!src_full)
					break; /* the shard's budget: none left */
				continue; /* its source's share: others may */
			}
			body_grant(st, n);
			st->body_owed -= n;
			ewyk_ctr_sub(&s->ctr[EWYK_HTTP2_C_BODY_OWED], n);
			if (st->body_owed == 0)
				wait_del(st);
			if (!st->c->granted) {
				st->c->granted = 1;
				st->c->gnext = s->gflush;
				s->gflush = st->c;
			}
		}
		while ((c = s->gflush) != NULL) {
			s->gflush = c->gnext;
			c->granted = 0;
			c->gnext = NULL;
			if (c->used && !c->gone)
				h2_conn_flush(c);
		}
	} while (s->regrant);
	s->granting = 0;
}

/* @p st ends: its body's bytes go back. */
void
h2_body_end(struct ewyk_http2_stream *st)
{
	struct h2_conn *c = st->c;
	struct ewyk_http2_server *s = c->srv;
	uint64_t granted = st->body_granted, owed = st->body_owed;
	bool back = false;

	if (st->body_buf != 0 || st->body_spare != 0) {
		st->body_buf = 0;
		back = spare_set(st, 0);
	}
	if (granted == 0 && owed == 0) {
		if (back && !TAILQ_EMPTY(&s->wait))
			body_regrant(s);
		return;
	}
	if (st->waiting)
		wait_del(st);
	ewyk_ctr_sub(&s->ctr[EWYK_HTTP2_C_BODY_HELD], granted + owed);
	ewyk_ctr_sub(&s->ctr[EWYK_HTTP2_C_BODY_OWED], owed);
	s->body_granted -= granted;
	if (c->st_src >= 0)
		s->body_src[c->st_src] -= granted;
	st->body_granted = st->body_owed = 0;
	/* what was withheld goes back to the connection's window */
	if (owed > 0 && c->sess != NULL && !c->gone)
		(void)nghttp2_session_consume_connection(c->sess, owed);
	if ((granted > 0 || back) && !TAILQ_EMPTY(&s->wait))
		body_regrant(s);
}

/* @p st's consumer released @p n of the bytes it holds (a streamed
 * body): the owed ones first, their connection window reopened out of
 * the budget, then granted ones back to the budget; the stream's window
 * reopens for all @p n. */
void
h2_body_release(struct ewyk_http2_stream *st, uint64_t n)
{
	struct h2_conn *c = st->c;
	struct ewyk_http2_server *s = c->srv;
	uint64_t owed, granted, now;
	bool back;

	n = RTE_MIN(n, st->body_granted + st->body_owed);
	if (n == 0)
		return;
	owed = RTE_MIN(n, st->body_owed);
	granted = n - owed;
	st->body_owed -= owed;
	st->body_granted -= granted;
	ewyk_ctr_sub(&s->ctr[EWYK_HTTP2_C_BODY_HELD], n);
	ewyk_ctr_sub(&s->ctr[EWYK_HTTP2_C_BODY_OWED], owed);
	s->body_granted -= granted;
	if (c->st_src >= 0)
		s->body_src[c->st_src] -= granted;
	/* the room they leave in the buffer is spare: charged (their own
	 * charge just left, so there is room for it) */
	back = spare_set(st, st->body_granted + st->body_owed);
	if (st->waiting && st->body_owed == 0)
		wait_del(st);
	if (st->body_granted + st->body_owed == 0) {
		/* caught up: from here a stall is the peer's */
		now = rte_get_tsc_cycles();
		st->body_waited += now - st->hold_since;
		st->body_last = now;
	}
	if (c->sess != NULL && !c->gone) {
		if (owed > 0)
			(void)nghttp2_session_consume_connection(c->sess, owed);
		(void)nghttp2_session_consume_stream(c->sess, st->id, n);
	}
	if ((granted > 0 || back) && !TAILQ_EMPTY(&s->wait))
		body_regrant(s);
}

int
ewyk_http2_body_buffer(struct ewyk_http2_stream *st, uint64_t bytes)
{
	struct ewyk_http2_server *s;

	if (st == NULL || !st->used)
		return -EINVAL;
	s = st->c->srv;
	st->body_buf = bytes;
	if (spare_set(st, st->body_granted + st->body_owed) &&
		!TAILQ_EMPTY(&s->wait))
		body_regrant(s);
	return 0;
}

/* Is @p st's body, still arriving, too slow: nothing for body_timeout_ms
 * (from its consumer's start at HEADERS until the first DATA, from the
 * latest DATA after), or longer than body_timeout_ms plus a second per
 * body_min_rate bytes (less the time it waited for the budget)? */
static bool
body_slow(const struct ewyk_http2_stream *st, uint64_t now, uint64_t lim)
{
	const struct ewyk_http2_server *s = st->c->srv;
	uint64_t bytes = st->body_rx, allow;

	if (st->req_done || st->body_cut || st->body_last == 0)
		return false;
	if (st->body_first == 0)
		return st->body_cb != NULL && now - st->body_last >= lim;
	/* a streamed body's consumer is behind: the peer waits for us */
	if (st->body_stream && st->body_granted + st->body_owed > 0)
		return false;
	if (now - st->body_last >= lim)
		return true;
	if (s->conf.body_min_rate == UINT32_MAX)
		return false;
	allow = lim + bytes / s->conf.body_min_rate * s->hz +
		bytes % s->conf.body_min_rate * s->hz / s->conf.body_min_rate;
	return now - st->body_first - st->body_waited > allow;
}

/* On @p c's timer: reset its streams that waited body_timeout_ms for
 * the budget, and those whose body arrives too slowly (body_slow()).
 * A body that has arrived whole is never reset here: nothing more is
 * expected from the peer. Returns how many. */
uint32_t
h2_body_expire(struct h2_conn *c, uint64_t now)
{
	const struct ewyk_http2_conf *cf = &c->srv->conf;
	uint64_t lim = c->srv->hz / 1000 * cf->body_timeout_ms;
	struct ewyk_http2_stream *st;
	uint32_t n = 0;

	for (st = c->streams; st != NULL; st = st->next) {
		if (st->req_done)
			continue;
		if (st->waiting) {
			if (now - st->wait_since < lim)
				continue;
			H2_CTR(c->srv, BODY_TIMEOUT, 1);
			/* no longer waiting: reset once, ended when sent */
			wait_del(st);
		} else if (body_slow(st, now, lim)) {
			H2_CTR(c->srv, BODY_SLOW, 1);
			st->body_cut = 1; /* reset once */
		} else {
			continue;
		}
		nghttp2_submit_rst_stream(c->sess, NGHTTP2_FLAG_NONE, st->id,
			NGHTTP2_CANCEL);
		n++;
	}
	return n;
}

uint64_t
ewyk_http2_server_body_held(const struct ewyk_http2_server *s)
{
	return s != NULL ?
		ewyk_http2_server_counter(s, EWYK_HTTP2_C_BODY_HELD) :
		0;
}
