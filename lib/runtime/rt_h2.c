/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * HTTP/2 streams through the runtime: lib/http2's request hook. Each
 * stream's request goes through the same routes as HTTP/1.1's, to the
 * route's fn (the runtime's handler model, which knows nothing of the
 * protocol), with the same task object, head copy, body read and job
 * (rt_dispatch.c, rt_job.c) as an HTTP/1.1 request:
 *
 *  1. the request hook (holder, while the connection reads frames): the
 *     head is copied into a task; a body the route reads (max_body) is
 *     streamed to the route's body consumer piece by piece (below), or,
 *     without one, gathered as its DATA frames arrive, the connection
 *     granting flow control for each within the shard's body budget
 *     (lib/http2), so a slow upload never waits for any lcore, and
 *     uploads beyond the budget wait on a zero window, not in memory;
 *  2. the task becomes a job of the route's invocation type: run in
 *     place (NON_BLOCKING: PIC), here after production moved (EPC),
 *     queued (PEC), refused (503), past its deadline (504);
 *  3. the result comes back through the inbox and is answered on the
 *     stream; a body is produced into the DATA frames from the task.
 *
 * A stream waiting for its job holds nothing of the connection: the
 * connection goes on reading frames, answering other streams and
 * sending WINDOW_UPDATEs. A stream that goes first (RST_STREAM, the
 * connection gone) cancels its job, whose result is freed when it comes.
 * Routes that give only a raw handler (lib/http's connection API) have
 * no HTTP/2 form: 501.
 *
 * A NON_BLOCKING fn runs at once, in place (PIC), with no job: the
 * stream is answered in the same pass as its frames. One connection can
 * bring more blocking streams in one receive pass than the strategy
 * takes tasks in one iteration (its burst): those wait, in order, on the
 * shard's list, and start in the iterations that follow.
 */

#include <errno.h>
#include <string.h>

#include <rte_malloc.h>

#include "rt_http.h"

static void
respond_small(struct ewyk_http2_stream *st, uint16_t status, const char *msg)
{
	ewyk_http2_respond(st, status, "text/plain", NULL, msg,
		(uint32_t)strlen(msg));
}

/* The stream ended while its job ran: the job's result is dropped. */
static void
h2_job_orphan(struct ewyk_http2_stream *st, int aborted, void *arg)
{
	struct http_task *t = arg;

	RTE_SET_USED(st);
	RTE_SET_USED(aborted);
	ewyk_rt_job_cancel(&t->job);
}

static void
h2_task_end(struct ewyk_http2_stream *st, int aborted, void *arg)
{
	RTE_SET_USED(st);
	RTE_SET_USED(aborted);
	rt_task_free(arg);
}

static int
h2_stream_prod(struct ewyk_http2_stream *st, char *buf, uint32_t cap,
	uint64_t off, void *arg)
{
	struct http_task *t = arg;
	int n;

	RTE_SET_USED(st);
	n = t->res.stream(t->res.stream_arg, buf, cap, off);
	return n == -EAGAIN ? -EIO : n;
}

static int
h2_body_prod(struct ewyk_http2_stream *st, char *buf, uint32_t cap,
	uint64_t off, void *arg)
{
	const struct http_task *t = arg;

	RTE_SET_USED(st);
	memcpy(buf, t->res.body + off, cap);
	return (int)cap;
}

/* Step 3: the holder answers on the stream. @p j is NULL when the
 * deadline came first. */
static void
h2_job_done(void *ctx, struct ewyk_rt_job *j, enum ewyk_rt_outcome o, int ret)
{
	struct ewyk_http2_stream *st = ctx;
	struct http_task *t = j != NULL ?
		container_of(j, struct http_task, job) :
		NULL;
	struct ewyk_rt_result *r;
	const char *extra;

	ewyk_http2_on_done(st, NULL, NULL);
	if (o != EWYK_RT_DONE || ret < 0) {
		if (t != NULL)
			rt_task_free(t);
		if (o == EWYK_RT_REFUSED)
			respond_small(st, 503, "Service Unavailable\n");
		else if (o == EWYK_RT_DONE)
			respond_small(st, 500, "Internal Server Error\n");
		else
			respond_small(st, 504, "Gateway Timeout\n");
		return;
	}
	r = &t->res;
	extra = r->extra[0] != '\0' ? r->extra : NULL;
	if (r->status == 0)
		r->status = 500;
	if (r->stream != NULL) {
		ewyk_http2_on_done(st, h2_task_end, t);
		if (ewyk_http2_respond_stream(st, r->status, r->content_type,
			    extra, r->stream_len, h2_stream_prod, t) != 0)
			respond_small(st, 500, "Internal Server Error\n");
		return;
	}
	if (r->body_len > EWYK_HTTP2_RESPOND_MAX) {
		/* produced from the task into the DATA frames */
		ewyk_http2_on_done(st, h2_task_end, t);
		if (ewyk_http2_respond_stream(st, r->status, r->content_type,
			    extra, r->body_len, h2_body_prod, t) != 0)
			respond_small(st, 500, "Internal Server Error\n");
		return;
	}
	ewyk_http2_respond(st, r->status, r->content_type, extra, r->body,
		r->body_len);
	rt_task_free(t);
}

static const struct ewyk_rt_job_ops h2_ops[] = RT_TASK_OPS(h2_job_done);

static void
wait_unlink(struct http_task *t)
{
	TAILQ_REMOVE(&t->sh->hs->h2_wait, t, wlink);
	t->waiting = 0;
}

/* The stream went while its task waited to start. */
static void
h2_wait_end(struct ewyk_http2_stream *st, int aborted, void *arg)
{
	struct http_task *t = arg;

	RTE_SET_USED(st);
	RTE_SET_USED(aborted);
	wait_unlink(t);
	rt_task_put(t);
}

/* This iteration's burst is full: the next ones start @p t's job. */
static void
wait_add(struct http_task *t)
{
	TAILQ_INSERT_TAIL(&t->sh->hs->h2_wait, t, wlink);
	t->waiting = 1;
	ewyk_http2_on_done(t->st, h2_wait_end, t);
}

/* The stream ended while its body was read (reset, refused). While
 * h2_piece_done() releases a piece the task is its caller's: the
 * release may flush the connection and end it under the caller, who
 * puts the task once the release is over. */
static void
h2_read_end(struct ewyk_http2_stream *st, int aborted, void *arg)
{
	struct http_task *t = arg;

	RTE_SET_USED(st);
	RTE_SET_USED(aborted);
	if (t->releasing) {
		t->ended = 1;
		return;
	}
	rt_task_put(t);
}

/* Step 2. 0, or -ENOBUFS (the task is freed; the caller answers 503). */
static int
h2_start(struct http_task *t)
{
	struct ewyk_rt_shard *sh = t->sh;
	int rc;

	/* a streamed body was consumed piece by piece: fn runs without */
	t->req.body = t->streamed ? NULL : t->body;
	t->req.body_len = t->streamed ? 0 : t->body_len;
	t->req.deadline = ewyk_rt_task_deadline(sh);
	if (t->route->invocation == EWYK_STRATEGY_INVOKE_NON_BLOCKING) {
		/* in place, now: no job, counted as HTTP/1.1's job of the
		 * same route is (dispatched, run PIC here, done or failed) */
		rt_task_count(sh, EWYK_RT_TASK_DISPATCHED);
		rt_count_mode(sh->rt, EWYK_STRATEGY_MODE_PIC);
		rc = rt_task_run(&t->job, EWYK_STRATEGY_MODE_PIC);
		rt_task_count(sh,
			rc < 0 ? EWYK_RT_TASK_FAILED : EWYK_RT_TASK_DONE);
		h2_job_done(t->st, &t->job, EWYK_RT_DONE, rc);
		return 0;
	}
	rc = ewyk_rt_job_start(sh, &t->job, &h2_ops[t->route->invocation],
		t->st, t->req.deadline);
	if (rc == -ENOBUFS) {
		wait_add(t);
		return 0;
	}
	if (rc != 0) {
		rt_task_put(t);
		return -ENOBUFS;
	}
	ewyk_http2_on_done(t->st, h2_job_orphan, t);
	return 0;
}

/*
 * A streamed body (a route with a body consumer): its DATA is copied
 * into a ring of at most one stream window (allocated at the first
 * DATA, H2_RING_FIRST, doubling as the bytes not yet consumed need:
 * a stream holds no ring before its body comes), the consumer is handed the
 * oldest bytes as a piece (a job of the route's invocation type, one at
 * a time), and when the piece is consumed its bytes are released: the
 * stream's window reopens for them. So the handler sees the body as it
 * arrives, and a consumer that falls behind (all reserved lcores busy)
 * holds one window of it while the peer waits on a zero window; the
 * connection goes on with its other streams. After the body's end the
 * route's fn runs as for a gathered body, with req->body NULL.
 */
static void h2_pump(struct http_task *t);

static int
h2_piece_run(struct ewyk_rt_job *j, enum ewyk_strategy_mode mode)
{
	struct http_task *t = container_of(j, struct http_task, job);
	int rc = t->route->body(&t->req, mode, t->route->arg);

	/* not 0: an error, as HTTP/1.1's rt_task_run() takes it */
	return rc > 0 ? -EIO : rc;
}

/* Answer a streamed body's request early: its task goes (a running
 * piece's job is cancelled: it frees the task when it ends) and, with
 * @p stop, the rest of the body is dropped. */
static void
h2_refuse(struct http_task *t, uint16_t status, const char *msg, int stop)
{
	struct ewyk_http2_stream *st = t->st;

	ewyk_http2_on_done(st, NULL, NULL);
	if (t->busy) {
		ewyk_rt_job_cancel(&t->job);
	} else {
		if (t->waiting)
			wait_unlink(t);
		rt_task_put(t);
	}
	if (stop)
		(void)ewyk_http2_body_stop(st);
	respond_small(st, status, msg);
}

/* A piece was consumed (holder). @p j is NULL when the deadline came
 * first: the job still runs, and frees the task when it ends. */
static void
h2_piece_done(void *ctx, struct ewyk_rt_job *j, enum ewyk_rt_outcome o, int ret)
{
	struct ewyk_http2_stream *st = ctx;
	struct http_task *t = j != NULL ?
		container_of(j, struct http_task, job) :
		NULL;
	uint32_t n;

	if (t == NULL) {
		ewyk_http2_on_done(st, NULL, NULL);
		(void)ewyk_http2_body_stop(st);
		respond_small(st, 504, "Gateway Timeout\n");
		return;
	}
	t->busy = 0;
	t->req.body = NULL;
	t->req.body_len = 0;
	if (t->ring_old != NULL) {
		rte_free(t->ring_old);
		t->ring_old = NULL;
		t->ring_old_cap = 0;
		(void)ewyk_http2_body_buffer(st, t->body_cap);
	}
	if (o == EWYK_RT_REFUSED) {
		h2_refuse(t, 503, "Service Unavailable\n", 1);
		return;
	}
	if (o != EWYK_RT_DONE) {
		h2_refuse(t, 504, "Gateway Timeout\n", 1);
		return;
	}
	if (ret < 0) {
		h2_refuse(t, 500, "Internal Server Error\n", 1);
		return;
	}
	n = t->piece;
	t->piece = 0;
	t->ring_head += n;
	if (t->ring_head == t->body_cap)
		t->ring_head = 0;
	t->body_len -= n;
	ewyk_http2_on_done(st, h2_read_end, t);
	/* the release may flush the connection, and a failed send ends
	 * it and the stream: then t is ours to put, st is gone */
	t->releasing = 1;
	(void)ewyk_http2_body_release(st, n);
	t->releasing = 0;
	if (t->ended) {
		rt_task_put(t);
		return;
	}
	h2_pump(t);
}

/* clang-format off */
#define H2_PIECE_OP(inv)                                              \
	[EWYK_STRATEGY_INVOKE_##inv] = {                              \
		.invocation = EWYK_STRATEGY_INVOKE_##inv,             \
		.run = h2_piece_run,                                  \
		.done = h2_piece_done,                                \
		.drop = rt_task_drop,                                 \
		.body_piece = 1,                                      \
	}
/* clang-format on */
static const struct ewyk_rt_job_ops h2_piece_ops[] = {
	H2_PIECE_OP(NON_BLOCKING),
	H2_PIECE_OP(BLOCKING),
	H2_PIECE_OP(EITHER),
};

/* Hand the ring's oldest bytes to the consumer if none runs; the body
 * consumed whole, start fn. */
static void
h2_pump(struct http_task *t)
{
	struct ewyk_http2_stream *st = t->st;
	struct ewyk_rt_shard *sh = t->sh;
	enum ewyk_strategy_invocation inv = t->route->invocation;
	int rc;

	if (t->busy || t->waiting)
		return;
	if (t->body_len == 0) {
		if (t->body_end) {
			ewyk_http2_on_done(st, NULL, NULL);
			if (h2_start(t) != 0)
				respond_small(st, 503, "Service Unavailable\n");
		}
		return;
	}
	t->piece = RTE_MIN(t->body_len, t->body_cap - t->ring_head);
	t->req.body = t->body + t->ring_head;
	t->req.body_len = t->piece;
	t->busy = 1;
	if (inv == EWYK_STRATEGY_INVOKE_NON_BLOCKING) {
		/* in place, now, counted as a job of h2_piece_ops is: a
		 * body piece, not a request; one that fails ends its
		 * request, whose dispatched is counted then (rt_job.c) */
		rt_task_count(sh, EWYK_RT_TASK_BODY_PIECES);
		rc = h2_piece_run(&t->job, EWYK_STRATEGY_MODE_PIC);
		if (rc < 0) {
			rt_task_count(sh, EWYK_RT_TASK_DISPATCHED);
			rt_task_count(sh, EWYK_RT_TASK_FAILED);
		}
		h2_piece_done(st, &t->job, EWYK_RT_DONE, rc);
		return;
	}
	rc = ewyk_rt_job_start(sh, &t->job, &h2_piece_ops[inv], st,
		ewyk_rt_task_deadline(sh));
	if (rc == 0) {
		ewyk_http2_on_done(st, h2_job_orphan, t);
		return;
	}
	t->busy = 0;
	if (rc == -ENOBUFS)
		wait_add(t);
	else
		h2_refuse(t, 503, "Service Unavailable\n", 1);
}

/* First size of a streamed body's ring. */
#define H2_RING_FIRST (16u << 10)

/* Room in @p t's ring for @p len more bytes: it grows, doubling from
 * H2_RING_FIRST, up to the stream's window (or the route's max_body if
 * less). Its bytes keep their order, from 0; a piece being consumed
 * reads the old ring, freed when the piece is done. 0, -ENOSPC (beyond
 * the window: the peer broke flow control) or -ENOMEM. */
static int
ring_grow(struct http_task *t, uint32_t len)
{
	uint64_t max = RTE_MIN((uint64_t)ewyk_http2_stream_window(t->st),
		t->route->max_body);
	uint64_t need = (uint64_t)t->body_len + len, cap;
	uint32_t first;
	char *b;

	if (need > max)
		return -ENOSPC;
	cap = RTE_MAX((uint64_t)t->body_cap * 2, (uint64_t)H2_RING_FIRST);
	cap = RTE_MIN(RTE_MAX(cap, need), max);
	b = rte_malloc_socket("rt_h2_ring", cap, 0, t->sh->socket);
	if (b == NULL)
		return -ENOMEM;
	if (t->body_len > 0) {
		first = RTE_MIN(t->body_len, t->body_cap - t->ring_head);
		memcpy(b, t->body + t->ring_head, first);
		memcpy(b + first, t->body, t->body_len - first);
	}
	if (t->busy && t->ring_old == NULL) {
		t->ring_old = t->body; /* the piece reads it */
		t->ring_old_cap = t->body_cap;
	} else {
		rte_free(t->body);
	}
	t->body = b;
	t->body_cap = (uint32_t)cap;
	t->ring_head = 0;
	/* the ring's room beyond the bytes held is in the body budget */
	(void)ewyk_http2_body_buffer(t->st, cap + t->ring_old_cap);
	return 0;
}

/* A streamed body's DATA, as it arrives (holder): into the ring, and on
 * to the consumer. */
static int
h2_sread(struct ewyk_http2_stream *st, const char *p, uint32_t len, int last,
	void *arg)
{
	struct http_task *t = arg;
	uint32_t tail, first;
	int rc;

	if (len > 0) {
		if (len > t->route->max_body - t->body_total) {
			h2_refuse(t, 413, "Content Too Large\n", 0);
			return 1; /* the rest is dropped */
		}
		/* flow control keeps the peer within one window */
		rc = len > t->body_cap - t->body_len ? ring_grow(t, len) : 0;
		if (rc == -ENOSPC)
			return -ENOSPC; /* reset: h2_read_end() frees t */
		if (rc != 0) {
			h2_refuse(t, 503, "Service Unavailable\n", 0);
			return 1; /* the rest is dropped */
		}
		tail = t->ring_head + t->body_len;
		if (tail >= t->body_cap)
			tail -= t->body_cap;
		first = RTE_MIN(len, t->body_cap - tail);
		memcpy(t->body + tail, p, first);
		memcpy(t->body, p + first, len - first);
		t->body_len += len;
		t->body_total += len;
	}
	if (last)
		t->body_end = 1;
	RTE_SET_USED(st);
	h2_pump(t);
	return 0;
}

/* Read @p t's body streamed, in a ring that grows as it arrives
 * (ring_grow()). */
static int
h2_stream_body(struct http_task *t, uint64_t cl)
{
	struct ewyk_http2_stream *st = t->st;

	if (cl > t->route->max_body) {
		rt_task_put(t);
		respond_small(st, 413, "Content Too Large\n");
		return 0;
	}
	t->streamed = 1;
	if (ewyk_http2_read_body_stream(st, h2_sread, t) != 0) {
		t->body_end = 1; /* no body after all */
		return h2_start(t);
	}
	ewyk_http2_on_done(st, h2_read_end, t);
	return 0;
}

/* In the loop, the shard's tasks open again: start what waits. */
void
rt_h2_poll(struct ewyk_rt_shard *sh)
{
	struct rt_http_shard *ws = sh->hs;
	struct http_task *t;

	while ((t = TAILQ_FIRST(&ws->h2_wait)) != NULL && sh->out != NULL &&
		sh->out_n < sh->out_max) {
		struct ewyk_http2_stream *st = t->st;

		wait_unlink(t);
		if (t->streamed && t->body_len > 0) {
			/* a piece of a streamed body */
			ewyk_http2_on_done(st, h2_read_end, t);
			h2_pump(t);
			continue;
		}
		ewyk_http2_on_done(st, NULL, NULL);
		if (h2_start(t) != 0)
			respond_small(st, 503, "Service Unavailable\n");
	}
}

/* The largest body @p t gathers: its route's max_body, or less, its
 * source's share of the shard's body budget (lib/http2 grants no window
 * beyond it: a larger body could never be gathered). */
static uint64_t
h2_body_max(const struct http_task *t)
{
	return RTE_MIN((uint64_t)t->route->max_body, t->sh->hs->h2_body_max);
}

/* First allocation of a body whose length is known; it grows, doubling,
 * as its DATA frames arrive: memory follows what the peer was granted. */
#define H2_BODY_FIRST (64u << 10)

/* The body, as its DATA frames arrive (holder). */
static int
h2_read(struct ewyk_http2_stream *st, const char *p, uint32_t len, int last,
	void *arg)
{
	struct http_task *t = arg;

	if (t->refused)
		return 0;
	if (len > h2_body_max(t) - t->body_len) {
		t->refused = 1;
		respond_small(st, 413, "Content Too Large\n");
		return 1; /* the rest is dropped, not held in the budget */
	}
	if (t->body_len + len > t->body_cap) {
		uint64_t cap = RTE_MAX((uint64_t)t->body_cap * 2,
			(uint64_t)t->body_len + len);
		char *b;

		cap = RTE_MAX(RTE_MIN(cap, h2_body_max(t)),
			(uint64_t)t->body_len + len);
		b = rte_realloc_socket(t->body, cap, 0, t->sh->socket);
		if (b == NULL) {
			t->refused = 1;
			respond_small(st, 503, "Service Unavailable\n");
			return 0;
		}
		t->body = b;
		t->body_cap = (uint32_t)cap;
		(void)ewyk_http2_body_buffer(st, cap);
	}
	if (len > 0)
		memcpy(t->body + t->body_len, p, len);
	t->body_len += len;
	if (last) {
		ewyk_http2_on_done(st, NULL, NULL);
		if (h2_start(t) != 0)
			respond_small(st, 503, "Service Unavailable\n");
	}
	return 0;
}

/* One unit of @p q for the peer of @p st (its source computed once per
 * connection; no peer known: no share): a token, -1 for none, or < -1
 * refused. */
static int
h2_take(struct ewyk_http_quota *q, struct ewyk_http2_stream *st)
{
	int rc = ewyk_http2_stream_source(st, q);

	if (rc == -ENOTCONN)
		return -1;
	rc = ewyk_http_quota_take_source(q, rc);
	return rc >= 0 ? rc : -2;
}

/* Copy the head into the task, or a large copy within the source's
 * share of them, as HTTP/1.1's. */
static int
h2_req(struct ewyk_rt_shard *sh, struct http_task *t,
	const struct ewyk_http_request *q, struct ewyk_http2_stream *st)
{
	struct rt_http_shard *ws = sh->hs;
	struct ewyk_rt_req_header *hdr;
	int ret;

	t->large = NULL;
	ret = rt_req_copy(&t->req, q, sh->id, t->hdr, RTE_DIM(t->hdr), t->buf,
		sizeof(t->buf));
	if (ret != 0) {
		t->large_tok = h2_take(ws->q_heads, st);
		hdr = t->large_tok >= -1 ? ewyk_pool_get(ws->heads) : NULL;
		if (hdr == NULL)
			return -ENOBUFS; /* rt_task_put() gives the unit back */
		t->large = hdr;
		ret = rt_req_copy(&t->req, q, sh->id, hdr, ws->head_max_headers,
			(char *)(hdr + ws->head_max_headers), ws->head_buf);
	}
	return ret;
}

static void
allow_405(struct ewyk_http2_stream *st, uint32_t allow)
{
	char extra[96];
	int n;

	memcpy(extra, "Allow: ", 7);
	n = ewyk_http_allow_format(extra + 7, sizeof(extra) - 9, allow);
	if (n <= 0) {
		respond_small(st, 405, "Method Not Allowed\n");
		return;
	}
	memcpy(extra + 7 + n, "\r\n", 3);
	ewyk_http2_respond(st, 405, "text/plain", extra, "Method Not Allowed\n",
		19);
}

/* Step 1: lib/http2's request hook, on the holder. */
int
rt_h2_request(void *arg, struct ewyk_http2_stream *st,
	const struct ewyk_http_request *q)
{
	struct ewyk_rt_shard *sh = arg;
	const struct ewyk_http_route *route;
	const struct ewyk_rt_route *rr;
	struct http_task *t;
	uint32_t allow = 0;
	int rc, tok;

	rc = ewyk_http_route_lookup(sh->rt->h2_router, q->method_id, q->path,
		&route, &allow);
	if (rc == -ENOTSUP) {
		allow_405(st, allow);
		return 0;
	}
	if (rc != 0) {
		respond_small(st, 404, "Not Found\n");
		return 0;
	}
	rr = route->arg;
	if (rr->fn == NULL) {
		respond_small(st, 501, "Not Implemented over HTTP/2\n");
		return 0;
	}
	/* No source holds more than its share of the tasks. */
	tok = h2_take(sh->hs->q_tasks, st);
	t = tok >= -1 ? ewyk_pool_get(sh->hs->tasks) : NULL;
	if (t == NULL) {
		ewyk_http_quota_give_here(sh->hs->q_tasks, tok);
		rt_task_count(sh, EWYK_RT_TASK_REJECTED);
		return -ENOBUFS; /* 503 */
	}
	memset(&t->res, 0, sizeof(t->res));
	t->sh = sh;
	t->route = rr;
	t->c = NULL;
	t->st = st;
	t->qtok = tok;
	t->large_tok = -1;
	t->body = t->ring_old = NULL;
	t->body_len = t->body_cap = t->ring_old_cap = 0;
	t->refused = 0;
	t->streamed = t->busy = t->waiting = t->body_end = 0;
	t->releasing = t->ended = 0;
	t->ring_head = t->piece = 0;
	t->body_total = 0;
	t->req.state = NULL;
	rc = h2_req(sh, t, q, st);
	if (rc == 0)
		(void)ewyk_http2_stream_peer(st, &t->req.peer);
	if (rc != 0) {
		rt_task_put(t);
		if (rc == -ENOBUFS) {
			rt_task_count(sh, EWYK_RT_TASK_HEAD_BUSY);
			return -ENOBUFS;
		}
		respond_small(st, 431, "Request Header Fields Too Large\n");
		return 0;
	}
	if (rr->max_body != 0 && q->framing != EWYK_HTTP_BODY_NONE) {
		uint64_t cl = q->framing == EWYK_HTTP_BODY_LENGTH ?
			q->content_length :
			0;

		if (rr->body != NULL)
			return h2_stream_body(t, cl);
		if (cl > h2_body_max(t)) {
			rt_task_put(t);
			respond_small(st, 413, "Content Too Large\n");
			return 0;
		}
		if (cl > 0) {
			cl = RTE_MIN(cl, (uint64_t)H2_BODY_FIRST);
			t->body = rte_malloc_socket("rt_h2_body", cl, 0,
				sh->socket);
			if (t->body == NULL) {
				rt_task_put(t);
				return -ENOBUFS;
			}
			t->body_cap = (uint32_t)cl;
		}
		if (ewyk_http2_read_body(st, h2_read, t) == 0) {
			/* its room is in the body budget before any DATA */
			(void)ewyk_http2_body_buffer(st, t->body_cap);
			ewyk_http2_on_done(st, h2_read_end, t);
			return 0;
		}
	}
	return h2_start(t);
}
