/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Dispatch of blocking routes (http_app.h): lib/http's dispatch hook.
 *
 * Life of a dispatched request:
 *  1. dispatch (holder, in the receive pass): the request head is copied
 *     into a task object, a delayed operation is added to the shard's
 *     purgatory with the deadline now + --task-timeout (its context: the
 *     connection, which lib/http keeps while the request is pending), a
 *     slot of the shard's inbox is reserved, and a task holding the op's
 *     *ticket* (never the connection) is yielded to the strategy.
 *  2. run (any lcore, in the mode the strategy chose): the route's
 *     function fills the task's result, then claims the op. Won: the task
 *     goes back on the reserved inbox slot (never refused). Lost (deadline
 *     or close came first): the slot is given back and the late result
 *     freed, counted "late".
 *  3. apply (holder, draining the inbox): finish the op and respond with
 *     the result (a streamed body keeps the task object until the request
 *     ends).
 *  Deadline first (holder, on the wheel): 504. Refused by the strategy
 *  (PEC ring full): 503. The connection closes first (lib/http's
 *  end-of-request callback): the op is cancelled, counted "orphaned".
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "http_app.h"

/* Dispatched requests in flight per shard. */
#define HTTP_MAX_TASKS 1024

enum http_task_status {
	HT_OK = 0,
	HT_REJECTED, /* refused at dispatch (PEC ring full) */
	HT_DROPPED,  /* not started before its deadline, or shutdown */
	HT_FAILED,   /* the function returned an error */
};

/*
 * The holder's side of a dispatched request (the op's context): which
 * connection waits. Only the token holder touches it; the task never sees
 * it.
 */
struct http_wait {
	struct ewyk_http_conn *c;
	struct httpd_shard *sh;
	struct ewyk_purgatory_op *op;
	uint32_t next_free;
};

struct http_waits {
	uint32_t free_head; /* UINT32_MAX: none */
	/* Large head copies: head_max_headers fields, then head_buf bytes. */
	struct ewyk_pool *heads;
	uint32_t head_buf;
	uint16_t head_max_headers;
	struct http_wait w[HTTP_MAX_TASKS];
};

struct http_task {
	struct httpd_msg msg; /* first: what the inbox hands back */
	struct ewyk_purgatory_ticket ticket;
	struct httpd_shard *sh;
	const struct httpd_route_desc *rd;
	uint32_t status;   /* enum http_task_status */
	uint64_t deadline; /* TSC: a result after it is late (504) */
	struct httpd_req req;
	void *large;         /* req's large copy (the shard's heads), or NULL */
	int qtok, large_tok; /* the source's shares (q_tasks, q_heads) */
	struct httpd_result res;
	struct httpd_req_header hdr[HTTPD_REQ_MAX_HEADERS]; /* a small head */
	char buf[HTTPD_REQ_BUF];
};

/* ---- results ---- */

int
httpd_result_status(struct httpd_result *res, uint16_t status,
	const char *content_type)
{
	if (res == NULL || status < 200 || status > 999)
		return -EINVAL;
	res->status = status;
	res->content_type = content_type;
	return 0;
}

static int
has_crlf(const char *s)
{
	return strpbrk(s, "\r\n") != NULL;
}

int
httpd_result_header(struct httpd_result *res, const char *name,
	const char *value)
{
	size_t used, need;

	if (res == NULL || name == NULL || value == NULL || name[0] == '\0' ||
		has_crlf(name) || has_crlf(value) || strchr(name, ':') != NULL)
		return -EINVAL;
	used = strlen(res->extra);
	need = strlen(name) + 2 + strlen(value) + 2;
	if (used + need + 1 > sizeof(res->extra))
		return -ENOSPC;
	snprintf(res->extra + used, sizeof(res->extra) - used, "%s: %s\r\n",
		name, value);
	return 0;
}

int
httpd_result_body(struct httpd_result *res, const void *p, uint32_t len)
{
	char *b;

	if (res == NULL || (p == NULL && len > 0) || res->stream != NULL)
		return -EINVAL;
	if (len > HTTPD_RESULT_MAX_BODY)
		return -E2BIG;
	if (res->body != NULL && res->body != res->inline_body)
		rte_free(res->body);
	res->body = NULL;
	if (len <= sizeof(res->inline_body)) {
		b = res->inline_body;
	} else {
		b = rte_malloc("httpd_result", len, 0);
		if (b == NULL)
			return -ENOMEM;
	}
	if (len > 0)
		memcpy(b, p, len);
	res->body = b;
	res->body_len = len;
	return 0;
}

int
httpd_result_stream(struct httpd_result *res, uint64_t len, httpd_stream_fn fn,
	httpd_stream_free_fn fr, void *arg)
{
	if (res == NULL || fn == NULL || res->body_len > 0)
		return -EINVAL;
	res->stream = fn;
	res->stream_free = fr;
	res->stream_arg = arg;
	res->stream_len = len;
	return 0;
}

void
httpd_result_release(struct httpd_result *res)
{
	if (res->body != NULL && res->body != res->inline_body)
		rte_free(res->body);
	res->body = NULL;
	res->body_len = 0;
	if (res->stream != NULL && res->stream_free != NULL)
		res->stream_free(res->stream_arg);
	res->stream = NULL;
	res->stream_free = NULL;
	res->stream_arg = NULL;
}

/* ---- request copies ---- */

const char *
httpd_req_header(const struct httpd_req *r, const char *name)
{
	unsigned int i;

	for (i = 0; i < r->nheaders; i++)
		if (strcasecmp(r->hdr[i].name, name) == 0)
			return r->hdr[i].value;
	return NULL;
}

/* Where a head's strings go. */
struct req_area {
	char *buf;
	uint32_t size, used;
};

/* Append a view as a string; NULL when it does not fit. */
static const char *
req_put(struct req_area *a, const char *p, uint32_t len)
{
	char *d = a->buf + a->used;

	if (len + 1 > a->size - a->used)
		return NULL;
	if (len > 0)
		memcpy(d, p, len);
	d[len] = '\0';
	a->used += len + 1;
	return d;
}

/*
 * Copy a request head into hdr (max_headers fields) and buf (size bytes).
 * 0, or -E2BIG (does not fit).
 */
static int
req_copy(struct httpd_req *r, const struct ewyk_http_request *q, uint16_t shard,
	struct httpd_req_header *hdr, uint32_t max_headers, char *buf,
	uint32_t size)
{
	struct req_area a = { .buf = buf, .size = size, .used = 0 };
	uint32_t i;
	const char *qm;

	if (q->nheaders > max_headers)
		return -E2BIG;
	r->hdr = hdr;
	r->shard = shard;
	r->method = q->method_id;
	r->head = q->head;
	r->version_minor = q->version_minor;
	r->nheaders = q->nheaders;
	r->target = req_put(&a, q->target.p, q->target.len);
	r->path = req_put(&a, q->path.p, q->path.len);
	r->host = req_put(&a, q->host.p, q->host.len);
	if (r->target == NULL || r->path == NULL || r->host == NULL)
		return -E2BIG;
	r->path_len = q->path.len;
	qm = strchr(r->target, '?');
	r->query = qm != NULL ? qm + 1 : "";
	for (i = 0; i < q->nheaders; i++) {
		r->hdr[i].name = req_put(&a, q->headers[i].name.p,
			q->headers[i].name.len);
		r->hdr[i].value = req_put(&a, q->headers[i].value.p,
			q->headers[i].value.len);
		if (r->hdr[i].name == NULL || r->hdr[i].value == NULL)
			return -E2BIG;
	}
	return 0;
}

/*
 * Copy the head into the task, or into a large copy when it does not fit
 * there. 0, -ENOBUFS (no large copy free: 503) or -E2BIG (over even a
 * large copy, which the server's limits rule out: 431).
 */
static int
task_req(struct httpd_shard *sh, struct http_task *t,
	const struct ewyk_http_request *q, struct ewyk_http_conn *c)
{
	struct http_waits *ws = sh->http_waits;
	struct httpd_req_header *hdr;
	int ret;

	t->large = NULL;
	if (req_copy(&t->req, q, sh->id, t->hdr, RTE_DIM(t->hdr), t->buf,
		    sizeof(t->buf)) == 0)
		return 0;
	if (ws->heads == NULL)
		return -E2BIG;
	t->large_tok = ewyk_http_quota_take(sh->q_heads, c);
	hdr = t->large_tok >= 0 ? ewyk_pool_get(ws->heads) : NULL;
	if (hdr == NULL) {
		ewyk_http_quota_give(sh->q_heads, t->large_tok);
		t->large_tok = -1;
		return -ENOBUFS;
	}
	ret = req_copy(&t->req, q, sh->id, hdr, ws->head_max_headers,
		(char *)(hdr + ws->head_max_headers), ws->head_buf);
	if (ret != 0) {
		ewyk_http_quota_give(sh->q_heads, t->large_tok);
		t->large_tok = -1;
		ewyk_pool_put(ws->heads, hdr);
		return ret;
	}
	t->large = hdr;
	return 0;
}

/* ---- tasks ---- */

/* Give a task back (the holder, or a task's lcore when it lost: the
 * pools take objects from any lcore). */
static void
task_put(struct http_task *t)
{
	if (t->large != NULL)
		ewyk_pool_put(t->sh->http_waits->heads, t->large);
	t->large = NULL;
	/* from any lcore: the quotas' counts are atomic */
	ewyk_http_quota_give(t->sh->q_heads, t->large_tok);
	ewyk_http_quota_give(t->sh->q_tasks, t->qtok);
	t->large_tok = -1;
	t->qtok = -1;
	ewyk_pool_put(t->sh->http_tasks, t);
}

static void
task_free(struct http_task *t)
{
	httpd_result_release(&t->res);
	task_put(t);
}

static void http_task_apply(struct httpd_shard *sh, struct httpd_msg *m);

/* Step 2, on whatever lcore the strategy picked. */
static void
http_task_run(void *arg, enum ewyk_strategy_mode mode)
{
	struct http_task *t = arg;
	struct httpd_shard *sh = t->sh;
	struct httpd_lcore *lc = httpd_lcore_self(sh->app);
	httpd_blocking_fn fn;

	if (lc != NULL)
		__atomic_fetch_add(&lc->ls.mode[mode], 1, __ATOMIC_RELAXED);
	if (mode == EWYK_STRATEGY_MODE_REJECTED) {
		t->status = HT_REJECTED;
	} else if (mode == EWYK_STRATEGY_MODE_DROPPED) {
		t->status = HT_DROPPED;
	} else {
		fn = (httpd_blocking_fn)t->rd->fn;
		if (fn(&t->req, &t->res, mode, t->rd->arg) != 0) {
			httpd_result_release(&t->res);
			t->status = HT_FAILED;
		}
	}
	/* Past the deadline the answer is 504, even where the holder could
	 * not see it pass (a task run in place, on the holder itself, under
	 * PC): the op is left to expire on the wheel. */
	if ((t->status == HT_REJECTED || rte_rdtsc() < t->deadline) &&
		ewyk_purgatory_claim(t->ticket) == 0) {
		/* Won: the reserved slot makes this never fail. */
		ewyk_net_inbox_complete(sh->shard, 0, &t->msg, 1);
		return;
	}
	/* Late, or lost to the deadline or to a close: drop the result. */
	ewyk_net_inbox_unreserve(sh->shard);
	__atomic_fetch_add(&sh->task[HTTPD_TASK_LATE], 1, __ATOMIC_RELAXED);
	task_free(t);
}

/* ---- the holder's side ---- */

static struct http_wait *
wait_get(struct httpd_shard *sh)
{
	struct http_waits *ws = sh->http_waits;
	struct http_wait *w;

	if (ws->free_head == UINT32_MAX)
		return NULL;
	w = &ws->w[ws->free_head];
	ws->free_head = w->next_free;
	return w;
}

static void
wait_put(struct http_wait *w)
{
	struct http_waits *ws = w->sh->http_waits;

	w->c = NULL;
	w->op = NULL;
	w->next_free = ws->free_head;
	ws->free_head = (uint32_t)(w - ws->w);
}

static void
op_complete(struct ewyk_purgatory_op *op, void *ctx)
{
	struct http_wait *w = ctx;

	RTE_SET_USED(op);
	/* http_task_apply() responds: the request's end is no longer the
	 * op's business. */
	if (w->c != NULL)
		ewyk_http_on_done(w->c, NULL, NULL);
	wait_put(w);
}

/* The deadline came first (holder, from the wheel): 504. */
static void
op_expire(struct ewyk_purgatory_op *op, void *ctx)
{
	struct http_wait *w = ctx;
	struct ewyk_http_conn *c = w->c;

	RTE_SET_USED(op);
	httpd_task_count(w->sh, HTTPD_TASK_TIMED_OUT);
	wait_put(w);
	ewyk_http_on_done(c, NULL, NULL);
	ewyk_http_respond(c, 504, "text/plain", NULL, "Gateway Timeout\n", 16);
}

static const struct ewyk_purgatory_op_ops http_op_ops = {
	.on_complete = op_complete,
	.on_expire = op_expire,
};

/* lib/http: the request ended while dispatched: its connection went away,
 * or lib/http answered it itself (a malformed body, a body timeout). */
static void
op_conn_done(struct ewyk_http_conn *c, int aborted, void *arg)
{
	struct http_wait *w = arg;
	struct httpd_shard *sh = w->sh;

	RTE_SET_USED(aborted);
	if (ewyk_purgatory_cancel(sh->purg, w->op) == 0) {
		httpd_task_count(sh, HTTPD_TASK_ORPHANED);
		wait_put(w);
	} else {
		/* Claimed: the completion is on its way; it must not touch
		 * the connection object, which may be reused by then. */
		w->c = NULL;
	}
	/* lib/http frees the object: the handle is dead from here on */
	RTE_SET_USED(c);
}

/* A streamed result's producer and end: the task object lives until the
 * request ends. */
static int
task_stream(struct ewyk_http_conn *c, char *buf, uint32_t cap, uint64_t off,
	void *arg)
{
	struct http_task *t = arg;

	int n;

	RTE_SET_USED(c);
	n = t->res.stream(t->res.stream_arg, buf, cap, off);
	/* Nobody could resume a stream that waits: an error, as documented. */
	return n == -EAGAIN ? -EIO : n;
}

/* A result body too long for ewyk_http_respond(): streamed from the
 * result, which the task keeps until the request ends. */
static int
task_body(struct ewyk_http_conn *c, char *buf, uint32_t cap, uint64_t off,
	void *arg)
{
	const struct http_task *t = arg;

	RTE_SET_USED(c);
	memcpy(buf, t->res.body + off, cap);
	return (int)cap;
}

static void
task_stream_done(struct ewyk_http_conn *c, int aborted, void *arg)
{
	RTE_SET_USED(c);
	RTE_SET_USED(aborted);
	task_free(arg);
}

/* Step 3: the holder applies a result from the inbox. */
static void
http_task_apply(struct httpd_shard *sh, struct httpd_msg *m)
{
	struct http_task *t = (struct http_task *)m;
	struct http_wait *w = ewyk_purgatory_op_ctx(t->ticket.op);
	struct ewyk_http_conn *c = w->c;
	struct httpd_result *r = &t->res;
	const char *extra = r->extra[0] != '\0' ? r->extra : NULL;

	ewyk_purgatory_finish(sh->purg, t->ticket); /* wait_put(w) */
	if (c == NULL) {
		/* The request ended while its task ran: nowhere to go. */
		httpd_task_count(sh, HTTPD_TASK_ORPHANED);
		task_free(t);
		return;
	}
	switch (t->status) {
	case HT_REJECTED:
		httpd_task_count(sh, HTTPD_TASK_REJECTED);
		task_free(t);
		ewyk_http_respond(c, 503, "text/plain", NULL,
			"Service Unavailable\n", 20);
		return;
	case HT_DROPPED:
		httpd_task_count(sh, HTTPD_TASK_DROPPED);
		task_free(t);
		ewyk_http_respond(c, 504, "text/plain", NULL,
			"Gateway Timeout\n", 16);
		return;
	case HT_FAILED:
		httpd_task_count(sh, HTTPD_TASK_FAILED);
		task_free(t);
		ewyk_http_respond(c, 500, "text/plain", NULL,
			"Internal Server Error\n", 22);
		return;
	default:
		break;
	}
	httpd_task_count(sh, HTTPD_TASK_DONE);
	if (r->status == 0)
		r->status = 500;
	if (r->stream != NULL) {
		/* The end of the request frees the task (maybe at once). */
		ewyk_http_on_done(c, task_stream_done, t);
		ewyk_http_respond_stream(c, r->status, r->content_type, extra,
			r->stream_len, task_stream, t);
		return;
	}
	if (r->body_len > EWYK_HTTP_RESPOND_MAX) {
		/* Under flow control, not copied into mbufs whole. */
		ewyk_http_on_done(c, task_stream_done, t);
		ewyk_http_respond_stream(c, r->status, r->content_type, extra,
			r->body_len, task_body, t);
		return;
	}
	ewyk_http_respond(c, r->status, r->content_type, extra, r->body,
		r->body_len);
	task_free(t);
}

/* Step 1: lib/http's dispatch hook, on the holder. */
int
http_dispatch(void *arg, struct ewyk_http_conn *c,
	const struct ewyk_http_route *route)
{
	struct httpd_shard *sh = arg;
	const struct httpd_route_desc *rd = route->arg;
	const struct ewyk_http_request *q = ewyk_http_conn_request(c);
	struct ewyk_strategy_task st;
	struct http_task *t;
	struct http_wait *w;
	uint64_t deadline;
	int rc;

	if (route->handler != NULL)
		return 1; /* an EITHER handler that dispatches its own work */
	if (q == NULL)
		return -EINVAL;
	/* No source holds more than its share of the tasks. */
	rc = ewyk_http_quota_take(sh->q_tasks, c);
	t = rc >= 0 ? ewyk_pool_get(sh->http_tasks) : NULL;
	if (t == NULL) {
		ewyk_http_quota_give(sh->q_tasks, rc);
		goto refuse;
	}
	memset(&t->res, 0, sizeof(t->res));
	t->sh = sh;
	t->qtok = rc;
	t->large_tok = -1;
	rc = task_req(sh, t, q, c);
	if (rc != 0) {
		t->large = NULL;
		task_put(t);
		if (rc == -ENOBUFS) {
			httpd_task_count(sh, HTTPD_TASK_HEAD_BUSY);
			return -ENOBUFS; /* lib/http answers 503 */
		}
		ewyk_http_respond(c, 431, "text/plain", NULL,
			"Request Header Fields Too Large\n", 32);
		return 0;
	}
	w = wait_get(sh);
	if (w == NULL) {
		task_put(t);
		goto refuse;
	}
	if (ewyk_net_inbox_reserve(sh->shard) != 0) {
		wait_put(w);
		task_put(t);
		goto refuse;
	}
	deadline = httpd_task_deadline(sh);
	w->c = c;
	w->op = ewyk_purgatory_add(sh->purg, &http_op_ops, w, deadline, NULL,
		0);
	if (w->op == NULL) {
		wait_put(w);
		ewyk_net_inbox_unreserve(sh->shard);
		task_put(t);
		goto refuse;
	}
	t->msg.apply = http_task_apply;
	t->ticket = ewyk_purgatory_ticket(w->op);
	t->sh = sh;
	t->rd = rd;
	t->status = HT_OK;
	t->deadline = deadline;
	t->req.deadline = deadline;
	st = (struct ewyk_strategy_task){ .fn = http_task_run,
		.arg = t,
		.invocation = route->invocation,
		.deadline = deadline };
	if (httpd_yield_task(sh, &st) != 0) {
		/* More tasks in this iteration than the burst. */
		ewyk_purgatory_cancel(sh->purg, w->op);
		wait_put(w);
		ewyk_net_inbox_unreserve(sh->shard);
		task_put(t);
		goto refuse;
	}
	ewyk_http_on_done(c, op_conn_done, w);
	httpd_task_count(sh, HTTPD_TASK_DISPATCHED);
	return 0;
refuse:
	httpd_task_count(sh, HTTPD_TASK_REJECTED);
	return -ENOBUFS; /* lib/http answers 503 */
}

int
http_dispatch_shard_init(struct httpd_shard *sh)
{
	struct ewyk_pool_params tp;
	struct http_waits *ws;
	char name[32];
	int socket = (int)rte_lcore_to_socket_id(sh->home);
	uint32_t i;

	ws = rte_zmalloc_socket("http_waits", sizeof(*ws), RTE_CACHE_LINE_SIZE,
		socket);
	if (ws == NULL) {
		fprintf(stderr, "error: HTTP dispatch of shard %u: no memory\n",
			sh->id);
		return -1;
	}
	ws->free_head = UINT32_MAX;
	for (i = HTTP_MAX_TASKS; i-- > 0;) {
		ws->w[i].sh = sh;
		ws->w[i].next_free = ws->free_head;
		ws->free_head = i;
	}
	sh->http_waits = ws;
	/* a quarter of the tasks, and of the large head copies, per source */
	sh->q_tasks = ewyk_http_quota_create(HTTP_MAX_TASKS, HTTP_MAX_TASKS / 4,
		socket);
	sh->q_heads = ewyk_http_quota_create(HTTPD_REQ_LARGE,
		HTTPD_REQ_LARGE / 4, socket);
	if (sh->q_tasks == NULL || sh->q_heads == NULL) {
		fprintf(stderr, "error: HTTP dispatch quotas of shard %u: %s\n",
			sh->id, rte_strerror(rte_errno));
		return -1;
	}
	snprintf(name, sizeof(name), "http_task_%u", sh->id);
	memset(&tp, 0, sizeof(tp));
	tp.name = name;
	tp.capacity = HTTP_MAX_TASKS;
	tp.obj_size = sizeof(struct http_task);
	tp.socket_id = socket;
	tp.cache_size = 16;
	sh->http_tasks = ewyk_pool_create(&tp);
	if (sh->http_tasks == NULL) {
		fprintf(stderr, "error: HTTP task pool of shard %u: %s\n",
			sh->id, rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

int
http_dispatch_shard_heads(struct httpd_shard *sh)
{
	struct http_waits *ws = sh->http_waits;
	struct ewyk_http_limits lim;
	struct ewyk_pool_params hp;
	uint16_t mh;
	uint64_t buf;
	char name[32];

	if (ewyk_http_server_limits(sh->http, &lim, &mh) != 0)
		return -1;
	/*
	 * The strings of any head the server accepts: the target and the
	 * path (each within the request line), the host (the Host value or
	 * the target's authority) and every field's name and value, each
	 * with a NUL (name and value of a field line are shorter than the
	 * line, its colon and line end counted).
	 */
	buf = 3 * (uint64_t)lim.max_line + 2 * (uint64_t)lim.max_header_bytes +
		16;
	if (buf > UINT32_MAX / 2) {
		fprintf(stderr,
			"error: HTTP dispatch of shard %u: head limits too large\n",
			sh->id);
		return -1;
	}
	ws->head_buf = (uint32_t)buf;
	ws->head_max_headers = mh;
	snprintf(name, sizeof(name), "http_head_%u", sh->id);
	memset(&hp, 0, sizeof(hp));
	hp.name = name;
	hp.capacity = HTTPD_REQ_LARGE;
	hp.obj_size = (uint32_t)(mh * sizeof(struct httpd_req_header) + buf);
	hp.socket_id = (int)rte_lcore_to_socket_id(sh->home);
	ws->heads = ewyk_pool_create(&hp);
	if (ws->heads == NULL) {
		fprintf(stderr, "error: HTTP head copies of shard %u: %s\n",
			sh->id, rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

void
http_dispatch_shard_free(struct httpd_shard *sh)
{
	if (sh->http_waits != NULL)
		ewyk_pool_free(sh->http_waits->heads);
	ewyk_pool_free(sh->http_tasks);
	sh->http_tasks = NULL;
	ewyk_http_quota_free(sh->q_tasks);
	ewyk_http_quota_free(sh->q_heads);
	sh->q_tasks = NULL;
	sh->q_heads = NULL;
	rte_free(sh->http_waits);
	sh->http_waits = NULL;
}
