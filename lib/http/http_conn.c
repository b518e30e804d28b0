/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection layer, request side: an HTTP/1.1 server connection driven by
 * lib/tcp events on one shard. One request at a time per connection: the
 * next pipelined request is parsed only once the current one is answered,
 * so responses leave in request order whoever completes them, and bytes
 * not consumed yet are not acknowledged to TCP (ewyk_tcp_recvd), so a
 * connection holds no more than its receive buffer.
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>

#include <ewyk_tcp.h>
#include <ewyk_twheel.h>

#include "http_private.h"

/* ---- connection objects ---- */

/* Tell the request's owner it is over (once). */
void
http_conn_done(struct ewyk_http_conn *c, int aborted)
{
	ewyk_http_done_t fn = c->done;

	c->done = NULL;
	if (fn != NULL)
		fn(c, aborted, c->done_arg);
}

void
http_conn_release(struct ewyk_http_conn *c)
{
	struct ewyk_http_server *s = c->srv;

	c->used =
		0; /* a respond() from the callback: -EINVAL, no 2nd release */
	http_conn_done(c, 1);

	/* The node stays on the wheel, parked (tmo_cb() ignores it): the
	 * next connection of this slot moves it instead of arming it
	 * afresh; ewyk_http_server_free() takes off what is left. */
	c->tmo = HT_NONE;
	/* TCP has let go of the connection: its budgets no longer count rx.
	 * Usually all three are empty (a call each saved). */
	if (unlikely(c->rx != NULL || c->tx != NULL || c->stage != NULL)) {
		rte_pktmbuf_free(c->rx);
		rte_pktmbuf_free(c->tx);
		rte_pktmbuf_free(c->stage);
	}
	c->rx = NULL;
	c->rx_pos = NULL;
	c->tx = NULL;
	c->stage = NULL;
	http_slots_release(c);
	c->next_free = s->free_head;
	s->free_head = (uint32_t)(c - s->conns);
	s->in_use--;
}

/* Reset what belongs to one request. */
static void
conn_reset_request(struct ewyk_http_conn *c)
{
	struct ewyk_http_header *h = c->req.headers;
	uint16_t mh = c->req.max_headers;

	if (c->done != NULL)
		http_conn_done(c, 0);
	if (c->ls != NULL)
		ewyk_http_parser_reset(&c->ls->p);
	memset(&c->req, 0, sizeof(c->req));
	c->req.headers = h;
	c->req.max_headers = mh;
	c->st = HC_HEAD;
	c->responded = 0;
	c->resp_done = 0;
	c->pending = 0;
	c->body_started = 0;
	c->body_paused = 0;
	c->close_after = 0;
	c->chunked = 0;
	c->status = 0;
	c->body_cb = NULL;
	c->prod = NULL;
	c->prod_wait = 0;
}

/* Give back to TCP the bytes consumed: their buffers are freed (and
 * leave the mbuf budgets) and the receive window opens by as much. */
static void
conn_consume(struct ewyk_http_conn *c)
{
	if (c->rx_off == 0)
		return;
	HTTP_CTR(c->srv, BYTES_IN, c->rx_off);
	ewyk_tcp_recv_consume(c->tcp, &c->rx, c->rx_off);
	c->rx_off = 0;
	c->rx_done = 0;
	c->rx_pos = c->rx;
	c->rx_pos_off = 0;
}

/*
 * At the end of a run: the bytes of the requests done with go back to
 * TCP in one step, once for all the requests of a pipelined burst. A
 * head still being read stays: the parser's views of it may point into
 * its buffers.
 */
static void
conn_consume_done(struct ewyk_http_conn *c)
{
	uint32_t n = c->rx_done;

	if (n == 0)
		return;
	HTTP_CTR(c->srv, BYTES_IN, n);
	ewyk_tcp_recv_consume(c->tcp, &c->rx, n);
	c->rx_off -= n;
	c->rx_done = 0;
	c->rx_pos = c->rx;
	c->rx_pos_off = 0;
}

/*
 * The buffer of rx that holds byte rx_off, and the offset of that byte in
 * it. The search starts where the last one ended: a head that arrives a
 * byte at a time costs the same per byte at its end as at its start.
 */
static const struct rte_mbuf *
rx_cursor(struct ewyk_http_conn *c, uint32_t *off)
{
	struct rte_mbuf *m = c->rx_pos;

	if (m == NULL) {
		m = c->rx;
		c->rx_pos_off = 0;
	}
	while (m->next != NULL && c->rx_off - c->rx_pos_off >= m->data_len) {
		c->rx_pos_off += m->data_len;
		m = m->next;
	}
	c->rx_pos = m;
	*off = c->rx_off - c->rx_pos_off;
	return m;
}

/* The body has had all the time its rate allows (body_min_rate). */
static inline int
body_rate_out(const struct ewyk_http_conn *c, uint64_t now)
{
	return c->srv->conf.body_min_rate != UINT32_MAX &&
		now >= c->body_deadline;
}

static void
tmo_cb(struct ewyk_twheel *w, struct ewyk_twheel_timer *t, void *arg)
{
	struct ewyk_http_conn *c = arg;
	uint8_t kind = c->tmo;

	/* Stopped since it was armed (timer_stop() leaves it pending). */
	if (kind == HT_NONE)
		return;
	/* Armed for a later deadline while pending for this earlier one
	 * (timer_at()): go on to the deadline. */
	if (ewyk_twheel_now(w) < c->tmo_due) {
		c->tmr_by = ewyk_twheel_due_bound(w, c->tmo_due);
		ewyk_twheel_rearm(w, t, c->tmo_due);
		return;
	}
	c->tmo = HT_NONE;
	http_slots_busy(c);
	switch (kind) {
	case HT_HEADER:
	case HT_BODY:
		if (kind == HT_HEADER)
			HTTP_CTR(c->srv, TIMEOUT_HEADER, 1);
		else if (body_rate_out(c, ewyk_twheel_now(w)))
			HTTP_CTR(c->srv, TIMEOUT_BODY_RATE, 1);
		else
			HTTP_CTR(c->srv, TIMEOUT_BODY, 1);
		if (!c->responded) {
			c->st = HC_WAIT;
			http_conn_error(c, 408);
		} else {
			http_conn_abort(c);
			http_conn_run(c);
		}
		break;
	case HT_IDLE:
		HTTP_CTR(c->srv, TIMEOUT_IDLE, 1);
		c->close_after = 1;
		c->st = HC_WAIT;
		c->resp_done = 1;
		http_conn_run(c);
		break;
	case HT_WRITE:
		HTTP_CTR(c->srv, TIMEOUT_WRITE, 1);
		http_conn_abort(c);
		http_conn_run(c);
		break;
	default:
		break;
	}
}

/*
 * One wheel node per connection carries whichever timeout runs. A node
 * still pending (parked by timer_stop() or by the slot's previous
 * connection) that comes up no later than the new deadline is left where
 * it is: tmo_cb() moves it on to tmo_due when it fires early. So the idle
 * timer after a response, the header timer of a connection that follows
 * another on its slot, cost no wheel operation; an earlier deadline moves
 * the node, and arm() runs only the first time. Whether the node comes up
 * by the new deadline is first asked of tmr_by, what
 * ewyk_twheel_due_bound() said when the node was last placed (it bounds
 * every later placing of the node by the wheel): one compare, and the
 * wheel's ewyk_twheel_due_by() only when that bound is later.
 */
static void
timer_at(struct ewyk_http_conn *c, enum http_tmo kind, uint64_t when)
{
	struct ewyk_twheel *w = c->srv->conf.wheel;

	http_slots_timer(c, kind); /* idle or not */
	c->tmo = (uint8_t)kind;
	c->tmo_due = when;
	/* tmr_by, the bound of the node's last placing, most often settles
	 * it (a later deadline) without asking the wheel */
	if (ewyk_twheel_pending(&c->tmr) &&
		(c->tmr_by <= when || ewyk_twheel_due_by(w, &c->tmr) <= when))
		return;
	c->tmr_by = ewyk_twheel_due_bound(w, when);
	if (ewyk_twheel_rearm(w, &c->tmr, when) != 0)
		ewyk_twheel_arm(w, &c->tmr, when, tmo_cb, c);
}

void
http_conn_timer(struct ewyk_http_conn *c, enum http_tmo kind, uint32_t ms)
{
	timer_at(c, kind,
		ewyk_twheel_now(c->srv->conf.wheel) +
			(uint64_t)ms * c->srv->hz_ms);
}

/*
 * Body bytes are awaited: the timer fires body_timeout_ms from now, or
 * when the body's rate allowance runs out, whichever comes first
 * (at once when it has run out already).
 */
static void
body_timer(struct ewyk_http_conn *c)
{
	const struct ewyk_http_server *s = c->srv;
	uint64_t when = ewyk_twheel_now(s->conf.wheel) +
		(uint64_t)s->conf.body_timeout_ms * s->hz_ms;

	if (s->conf.body_min_rate != UINT32_MAX && c->body_deadline < when)
		when = c->body_deadline;
	timer_at(c, HT_BODY, when);
}

/* Body bytes arrived: each buys 1/body_min_rate of a second. */
static inline void
body_credit(struct ewyk_http_conn *c, uint32_t len)
{
	const struct ewyk_http_server *s = c->srv;

	if (s->conf.body_min_rate != UINT32_MAX)
		c->body_deadline += (uint64_t)len * 1000 * s->hz_ms /
			s->conf.body_min_rate;
}

/* The body (re)starts: body_timeout_ms of allowance from now. */
static inline void
body_allow(struct ewyk_http_conn *c)
{
	const struct ewyk_http_server *s = c->srv;
	uint64_t t = ewyk_twheel_now(s->conf.wheel) +
		(uint64_t)s->conf.body_timeout_ms * s->hz_ms;

	if (t > c->body_deadline)
		c->body_deadline = t;
}

/*
 * No timeout runs. The wheel's node stays pending (tmo_cb() ignores it
 * when it comes up) so that the next timer_at(), most often a later
 * one, moves it in O(1) instead of a cancel and an arm per request;
 * releasing the connection leaves it parked for the slot's next
 * connection (ewyk_http_server_free() takes the parked nodes off).
 */
static void
timer_stop(struct ewyk_http_conn *c)
{
	c->tmo = HT_NONE;
	http_slots_busy(c);
}

/* Reset the TCP connection; the object is released by http_conn_run(). */
void
http_conn_abort(struct ewyk_http_conn *c)
{
	if (c->tcp != NULL) {
		ewyk_tcp_abort(c->tcp);
		c->tcp = NULL;
	}
}

/* Close after the queued bytes. Returns 1: the object is gone. */
static int
conn_close(struct ewyk_http_conn *c)
{
	if (c->stage != NULL && http_conn_send(c, NULL) != 0)
		http_conn_abort(c);
	if (c->tcp != NULL && c->tx != NULL) {
		c->closing = 1;
		timer_stop(c);
		http_conn_timer(c, HT_WRITE, c->srv->conf.write_timeout_ms);
		return 0;
	}
	if (c->tcp != NULL)
		ewyk_tcp_close(c->tcp);
	c->tcp = NULL;
	http_conn_release(c);
	return 1;
}

/* ---- requests ---- */

static void
handler_call(struct ewyk_http_conn *c, const struct ewyk_http_route *rt)
{
	struct ewyk_http_server *s = c->srv;
	int r = 1;

	if (rt->invocation != EWYK_STRATEGY_INVOKE_NON_BLOCKING) {
		if (s->conf.dispatch != NULL) {
			/* The dispatcher may read the body for its task. */
			c->in_handler = 1;
			r = s->conf.dispatch(s->conf.dispatch_arg, c, rt);
			c->in_handler = 0;
		} else if (rt->invocation == EWYK_STRATEGY_INVOKE_BLOCKING)
			r = -ENOTSUP;
		if (r == 0) {
			if (!c->responded) {
				c->pending = 1;
				HTTP_CTR(s, PENDING, 1);
			}
			return;
		}
		if (r < 0 || rt->invocation == EWYK_STRATEGY_INVOKE_BLOCKING) {
			HTTP_CTR(s, DISPATCH_REFUSED, 1);
			if (!c->responded)
				ewyk_http_respond(c, 503, "text/plain", NULL,
					"Service Unavailable\n", 20);
			return;
		}
	}
	c->in_handler = 1;
	r = ((ewyk_http_handler_t)rt->handler)(c, &c->req, rt->arg);
	c->in_handler = 0;
	if (r == EWYK_HTTP_PENDING && !c->responded) {
		c->pending = 1;
		HTTP_CTR(s, PENDING, 1);
	} else if (!c->responded && c->body_cb == NULL) {
		/* Neither answered nor reading the body to answer after. */
		ewyk_http_respond(c, 500, "text/plain", NULL,
			"Internal Server Error\n", 22);
	}
}

static void
request_route(struct ewyk_http_conn *c)
{
	const struct ewyk_http_route *rt;
	uint32_t allow = 0;
	char extra[96];
	int ret;

	ret = ewyk_http_route_lookup(c->srv->conf.router, c->req.method_id,
		c->req.path, &rt, &allow);
	if (ret == 0) {
		handler_call(c, rt);
		return;
	}
	if (ret == -ENOTSUP) {
		memcpy(extra, "Allow: ", 7);
		ret = ewyk_http_allow_format(extra + 7, sizeof(extra) - 9,
			allow);
		if (ret > 0) {
			memcpy(extra + 7 + ret, "\r\n", 3);
			ewyk_http_respond(c, 405, "text/plain", extra,
				"Method Not Allowed\n", 19);
			return;
		}
	}
	ewyk_http_respond(c, 404, "text/plain", NULL, "Not Found\n", 10);
}

static void
parse_error_count(struct ewyk_http_server *s, uint16_t status)
{
	switch (status) {
	case 413:
		HTTP_CTR(s, PARSE_ERR_413, 1);
		break;
	case 414:
		HTTP_CTR(s, PARSE_ERR_414, 1);
		break;
	case 417:
		HTTP_CTR(s, PARSE_ERR_417, 1);
		break;
	case 431:
		HTTP_CTR(s, PARSE_ERR_431, 1);
		break;
	case 501:
		HTTP_CTR(s, PARSE_ERR_501, 1);
		break;
	case 505:
		HTTP_CTR(s, PARSE_ERR_505, 1);
		break;
	default:
		HTTP_CTR(s, PARSE_ERR_400, 1);
		break;
	}
}

static inline uint32_t
rx_avail(const struct ewyk_http_conn *c)
{
	return c->rx == NULL ? 0 : c->rx->pkt_len - c->rx_off;
}

/* One step of head parsing. Returns 1 to go on, 0 to wait. */
static int
head_step(struct ewyk_http_conn *c)
{
	struct ewyk_http_server *s = c->srv;
	const struct rte_mbuf *m;
	uint32_t n = 0, off;
	int ret;

	if (rx_avail(c) == 0) {
		if (c->eof) {
			c->close_after = 1;
			c->st = HC_WAIT;
			c->resp_done = 1;
			return 1;
		}
		return 0;
	}
	if (c->h2_maybe) {
		ret = http_switch_preface(c); /* 1: HTTP/2's, -1: wait */
		if (ret < 0 && c->tmo != HT_HEADER)
			http_conn_timer(c, HT_HEADER,
				s->conf.header_timeout_ms);
		if (ret != 0)
			return ret > 0;
	}
	if (!http_slots_head(c))
		return 1; /* no head lease: answered 503 */
	m = rx_cursor(c, &off);
	ret = ewyk_http_parse_mbuf(&c->ls->p, &c->req, m, off, &n);
	c->rx_off += n;
	if (ret == EWYK_HTTP_AGAIN) {
		/* Only a head that must wait for more bytes needs its timer:
		 * one that arrived whole is parsed now. */
		if (c->tmo != HT_HEADER)
			http_conn_timer(c, HT_HEADER,
				s->conf.header_timeout_ms);
		return c->eof ? head_step(c) : 0;
	}
	if (ret != EWYK_HTTP_DONE) {
		uint16_t st = ret == -EBADMSG ? c->ls->p.status : 400;

		parse_error_count(s, st);
		timer_stop(c);
		c->st = HC_WAIT;
		http_conn_error(c, st);
		return 1;
	}
	HTTP_CTR(s, REQUESTS, 1);
	timer_stop(c);
	/* An h2c upgrade has Upgrade and HTTP2-Settings beside Host. */
	c->h2_maybe = 0;
	if (s->conf.h2c != NULL && c->req.nheaders >= 3 &&
		http_switch_upgrade(c))
		return 1; /* HTTP/2's now */
	if (c->req.framing != EWYK_HTTP_BODY_NONE) {
		ewyk_http_body_init(&c->ls->b, &c->req, &s->conf.lim);
		c->body_deadline = 0;
		body_allow(c);
		c->st = HC_BODY;
	} else {
		c->st = HC_WAIT;
	}
	request_route(c);
	/* The request's views die here; its bytes go back to TCP when the
	 * run ends (conn_consume_done()). */
	c->rx_done = c->rx_off;
	return 1;
}

/* One step of body reading. Returns 1 to go on, 0 to wait. */
static int
body_step(struct ewyk_http_conn *c)
{
	struct ewyk_http_view data;
	uint32_t n = 0;
	int ret;

	if (c->resp_done && c->close_after) {
		c->st = HC_WAIT; /* nothing more to read for */
		return 1;
	}
	if (c->body_paused) {
		if (c->tmo == HT_BODY)
			timer_stop(c);
		return 0;
	}
	if (rx_avail(c) == 0) {
		/* The last data piece may have ended the body. */
		ret = ewyk_http_body_parse(&c->ls->b, NULL, 0, &n, &data);
		if (ret == EWYK_HTTP_AGAIN && c->eof) {
			c->close_after = 1;
			if (!c->responded)
				http_conn_abort(c);
			c->st = HC_WAIT;
			return 1;
		}
		if (ret == EWYK_HTTP_AGAIN) {
			if (c->tmo != HT_WRITE)
				body_timer(c);
			return 0;
		}
	} else {
		const struct rte_mbuf *m;
		uint32_t off;

		m = rx_cursor(c, &off);
		ret = ewyk_http_body_parse_mbuf(&c->ls->b, m, off, &n, &data);
	}
	c->rx_off += n;
	if (ret == EWYK_HTTP_DATA) {
		c->body_started = 1;
		body_credit(c, data.len);
		if (c->body_cb != NULL &&
			c->body_cb(c, data.p, data.len, 0, c->body_arg) ==
				EWYK_HTTP_PENDING)
			c->body_paused = 1;
	} else if (ret == EWYK_HTTP_DONE) {
		c->st = HC_WAIT;
		if (c->tmo == HT_BODY)
			timer_stop(c);
		if (c->body_cb != NULL)
			c->body_cb(c, NULL, 0, 1, c->body_arg);
		if (!c->responded && !c->pending)
			ewyk_http_respond(c, 500, "text/plain", NULL,
				"Internal Server Error\n", 22);
	} else if (ret != EWYK_HTTP_AGAIN) {
		HTTP_CTR(c->srv, PARSE_ERR_BODY, 1);
		c->st = HC_WAIT;
		c->close_after = 1;
		if (!c->responded)
			http_conn_error(c,
				ret == -EBADMSG ? c->ls->b.status : 400);
		else if (!c->resp_done)
			http_conn_abort(c); /* a streamed response cannot end */
		return 1;
	}
	if (c->tcp != NULL)
		conn_consume(c);
	return 1;
}

/*
 * The TCP connection is gone (the peer's reset or FINs, or our own reset
 * after a write or body timeout or a body cut short or malformed) under a
 * request whose response is still owed: nothing more can be sent, so
 * nothing is owed. Counted; the object is released next, and the
 * release tells the request's owner (ewyk_http_on_done(), aborted): from
 * then on the owner's handle is dead, whatever it does. No owner can
 * keep an object, or a client's slot, by not responding.
 */
static void
conn_gone_pending(struct ewyk_http_conn *c)
{
	if (c->pending && !c->resp_done)
		HTTP_CTR(c->srv, CONN_ORPHANED, 1);
	c->resp_done = 1;
	c->prod = NULL;
}

void
http_conn_run(struct ewyk_http_conn *c)
{
	if (c->in_run || !c->used)
		return;
	c->in_run = 1;
	for (;;) {
		if (c->tcp == NULL) {
			conn_gone_pending(c);
			c->in_run = 0;
			http_conn_release(c);
			return;
		}
		if (c->closing)
			break;
		if (c->st == HC_HEAD) {
			/* TCP refused our last bytes: parse no further request
			 * until they went (writable), so that a peer that does
			 * not read cannot make us queue responses. */
			if (c->tx != NULL)
				break;
			if (!head_step(c))
				break;
		} else if (c->st == HC_BODY) {
			if (!body_step(c))
				break;
		} else {
			if (!c->resp_done)
				break;
			/* After the peer's FIN, complete requests it sent
			 * before it are still answered. */
			if (c->close_after || !c->req.keep_alive ||
				(c->eof && rx_avail(c) == 0)) {
				c->in_run = 0;
				conn_consume(c);
				conn_close(c);
				return;
			}
			c->rx_done = c->rx_off;
			conn_reset_request(c);
			if (rx_avail(c) == 0 && !c->eof) {
				/* what head_step() would say: wait (keep-alive
				 * between requests) */
				if (c->tx == NULL)
					http_conn_timer(c, HT_IDLE,
						c->srv->conf.idle_timeout_ms);
				break;
			}
			if (rx_avail(c) == 0 && c->tx == NULL)
				http_conn_timer(c, HT_IDLE,
					c->srv->conf.idle_timeout_ms);
		}
	}
	c->in_run = 0;
	/* The requests done with in this run go back to TCP (and the window
	 * opens by as much) in one step, and the responses made in it go to
	 * TCP in one buffer; the segment that carries them carries the
	 * ACK. */
	if (c->tcp != NULL)
		conn_consume_done(c);
	if (c->stage != NULL && http_conn_send(c, NULL) != 0) {
		http_conn_abort(c);
		conn_gone_pending(c);
		http_conn_release(c);
	}
}

int
ewyk_http_body_resume(struct ewyk_http_conn *c)
{
	if (c == NULL || !c->used || !c->body_paused)
		return -EINVAL;
	c->body_paused = 0;
	/* the pause was ours: the client's allowance starts again */
	body_allow(c);
	http_conn_run(c);
	return 0;
}

/* ---- lib/tcp events ---- */

static int
ev_accept(void *listen_arg, struct ewyk_tcp_conn *tc)
{
	struct ewyk_http_server *s = listen_arg;
	struct ewyk_http_conn *c = http_slots_accept(s, tc);

	if (c == NULL)
		return -ENOBUFS; /* counted */
	c->used = 1;
	c->tcp = tc;
	c->rx = NULL;
	c->rx_off = 0;
	c->rx_done = 0;
	c->rx_pos = NULL;
	c->rx_pos_off = 0;
	c->tx = NULL;
	c->stage = NULL;
	c->eof = 0;
	c->closing = 0;
	c->in_run = 0;
	c->in_handler = 0;
	c->h2_maybe = s->conf.h2c != NULL;
	conn_reset_request(c);
	ewyk_tcp_conn_set_ctx(tc, c);
	HTTP_CTR(s, CONN_ACCEPTED, 1);
	http_conn_timer(c, HT_HEADER, s->conf.header_timeout_ms);
	return 0;
}

static void
ev_recv(void *ctx, struct ewyk_tcp_conn *tc, struct rte_mbuf *m)
{
	struct ewyk_http_conn *c = ctx;

	/* Small segments are copied together, and what the chain pins
	 * counts in TCP's mbuf budgets until consumed. */
	if (ewyk_tcp_recv_append(tc, &c->rx, m) != 0) {
		rte_pktmbuf_free(m);
		http_conn_abort(c);
	}
	if (c->tmo == HT_IDLE)
		timer_stop(c);
	http_conn_run(c);
}

static void
ev_eof(void *ctx, struct ewyk_tcp_conn *tc)
{
	struct ewyk_http_conn *c = ctx;

	RTE_SET_USED(tc);
	c->eof = 1;
	http_conn_run(c);
}

static void
ev_writable(void *ctx, struct ewyk_tcp_conn *tc)
{
	struct ewyk_http_conn *c = ctx;

	RTE_SET_USED(tc);
	if (c->tx != NULL && http_conn_send(c, NULL) != 0)
		http_conn_abort(c);
	if (c->closing) {
		if (c->tx == NULL || c->tcp == NULL) {
			c->closing = 0;
			conn_close(c);
		}
		return;
	}
	if (c->tx == NULL && c->tmo == HT_WRITE)
		timer_stop(c);
	if (c->prod != NULL)
		http_conn_pump(c);
	else
		http_conn_run(c);
	if (c->used && c->tcp != NULL && c->st == HC_HEAD &&
		c->tmo == HT_NONE && rx_avail(c) == 0)
		http_conn_timer(c, HT_IDLE, c->srv->conf.idle_timeout_ms);
}

static void
ev_closed(void *ctx, struct ewyk_tcp_conn *tc, int err)
{
	struct ewyk_http_conn *c = ctx;

	RTE_SET_USED(tc);
	RTE_SET_USED(err);
	c->tcp = NULL;
	c->closing = 0;
	conn_gone_pending(c);
	/* inside http_conn_run(), the loop releases it */
	if (!c->in_run)
		http_conn_release(c);
}

static const struct ewyk_tcp_ops http_tcp_ops = {
	.accept = ev_accept,
	.recv = ev_recv,
	.eof = ev_eof,
	.writable = ev_writable,
	.closed = ev_closed,
};

const struct ewyk_tcp_ops *
ewyk_http_server_tcp_ops(void)
{
	return &http_tcp_ops;
}
