/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Dispatch of HTTP routes with a handler of the runtime's model
 * (ewyk_rt_route.fn): lib/http's dispatch hook, over jobs (rt_job.c).
 *
 * Life of a dispatched request:
 *  1. dispatch (holder, in the receive pass): the request head is copied
 *     into a task object (from the shard's pool, under the source's
 *     share), and, when the route reads bodies, the body is read into
 *     memory of the task's (up to the route's max_body: 413 beyond).
 *  2. the task is started as a job with the route's invocation type: the
 *     strategy runs the handler in place (PC, PIC), here after production
 *     moved away (EPC), or queued (PEC), and its result comes back through
 *     the shard's inbox; the holder responds with it (a streamed body
 *     keeps the task object until the request ends).
 *  Deadline first (--task-timeout): 504; the late result is freed.
 *  Refused by the strategy (PEC ring full) or no room: 503. Not started
 *  before its deadline, or the runtime stops: 504. The handler fails:
 *  500. The connection goes first (lib/http's end-of-request callback):
 *  the job is cancelled, its result freed when it ends ("orphaned").
 *  A connection with a dispatched request parses no further pipelined
 *  request until it is answered (lib/http), so responses keep order.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include <ewyk_http_server.h>

#include "rt_http.h"

/* ---- results ---- */

int
ewyk_rt_result_status(struct ewyk_rt_result *res, uint16_t status,
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
ewyk_rt_result_header(struct ewyk_rt_result *res, const char *name,
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
ewyk_rt_result_body(struct ewyk_rt_result *res, const void *p, uint32_t len)
{
	char *b;

	if (res == NULL || (p == NULL && len > 0) || res->stream != NULL)
		return -EINVAL;
	if (len > EWYK_RT_RESULT_MAX_BODY)
		return -E2BIG;
	if (res->body != NULL && res->body != res->inline_body)
		rte_free(res->body);
	res->body = NULL;
	if (len <= sizeof(res->inline_body)) {
		b = res->inline_body;
	} else {
		b = rte_malloc("ewyk_rt_result", len, 0);
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
ewyk_rt_result_stream(struct ewyk_rt_result *res, uint64_t len,
	ewyk_rt_stream_fn fn, ewyk_rt_stream_free_fn fr, void *arg)
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
ewyk_rt_result_release(struct ewyk_rt_result *res)
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
ewyk_rt_req_header(const struct ewyk_rt_req *r, const char *name)
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
int
rt_req_copy(struct ewyk_rt_req *r, const struct ewyk_http_request *q,
	uint16_t shard, struct ewyk_rt_req_header *hdr, uint32_t max_headers,
	char *buf, uint32_t size)
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
task_req(struct ewyk_rt_shard *sh, struct http_task *t,
	const struct ewyk_http_request *q, struct ewyk_http_conn *c)
{
	struct rt_http_shard *ws = sh->hs;
	struct ewyk_rt_req_header *hdr;
	int ret;

	t->large = NULL;
	if (rt_req_copy(&t->req, q, sh->id, t->hdr, RTE_DIM(t->hdr), t->buf,
		    sizeof(t->buf)) == 0) {
		(void)ewyk_http_conn_peer(c, &t->req.peer);
		return 0;
	}
	if (ws->heads == NULL)
		return -E2BIG;
	t->large_tok = ewyk_http_quota_take(ws->q_heads, c);
	hdr = t->large_tok >= 0 ? ewyk_pool_get(ws->heads) : NULL;
	if (hdr == NULL) {
		ewyk_http_quota_give(ws->q_heads, t->large_tok);
		t->large_tok = -1;
		return -ENOBUFS;
	}
	ret = rt_req_copy(&t->req, q, sh->id, hdr, ws->head_max_headers,
		(char *)(hdr + ws->head_max_headers), ws->head_buf);
	if (ret != 0) {
		ewyk_http_quota_give(ws->q_heads, t->large_tok);
		t->large_tok = -1;
		ewyk_pool_put(ws->heads, hdr);
		return ret;
	}
	t->large = hdr;
	(void)ewyk_http_conn_peer(c, &t->req.peer);
	return 0;
}

/* ---- tasks ---- */

/* Give a task back (the holder, or a task's lcore when it lost: the
 * pools take objects from any lcore). */
void
rt_task_put(struct http_task *t)
{
	struct rt_http_shard *ws = t->sh->hs;

	if (t->large != NULL)
		ewyk_pool_put(ws->heads, t->large);
	t->large = NULL;
	rte_free(t->body);
	t->body = NULL;
	rte_free(t->ring_old);
	t->ring_old = NULL;
	t->ring_old_cap = 0;
	if (t->req.state != NULL && t->route->state_free != NULL)
		t->route->state_free(t->req.state, t->route->arg);
	t->req.state = NULL;
	/* from any lcore: the quotas' counts are atomic */
	ewyk_http_quota_give(ws->q_heads, t->large_tok);
	ewyk_http_quota_give(ws->q_tasks, t->qtok);
	t->large_tok = -1;
	t->qtok = -1;
	ewyk_pool_put(ws->tasks, t);
}

void
rt_task_free(struct http_task *t)
{
	ewyk_rt_result_release(&t->res);
	rt_task_put(t);
}

/* Step 2, on whatever lcore the strategy picked. */
int
rt_task_run(struct ewyk_rt_job *j, enum ewyk_strategy_mode mode)
{
	struct http_task *t = container_of(j, struct http_task, job);
	int rc;

	/* a consumer takes a gathered body as one piece, then fn runs */
	if (t->route->body != NULL && t->req.body_len > 0) {
		rc = t->route->body(&t->req, mode, t->route->arg);
		t->req.body = NULL;
		t->req.body_len = 0;
		if (rc != 0)
			return rc < 0 ? rc : -EIO;
	}
	rc = t->route->fn(&t->req, &t->res, mode, t->route->arg);
	if (rc != 0) {
		ewyk_rt_result_release(&t->res);
		return rc < 0 ? rc : -EIO;
	}
	return 0;
}

void
rt_task_drop(struct ewyk_rt_job *j)
{
	rt_task_free(container_of(j, struct http_task, job));
}

/* lib/http: the request ended while dispatched: its connection went
 * away, or lib/http answered it itself (a body timeout). */
static void
task_conn_done(struct ewyk_http_conn *c, int aborted, void *arg)
{
	struct http_task *t = arg;

	RTE_SET_USED(c);
	RTE_SET_USED(aborted);
	ewyk_rt_job_cancel(&t->job);
	/* lib/http frees the object: the handle is dead from here on */
}

/* A streamed result's producer: the task object lives until the request
 * ends. */
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
	rt_task_free(arg);
}

/* Step 3: the holder answers. @p j is NULL when the deadline came first
 * (the task still runs; task_drop() frees it). */
static void
task_done(void *ctx, struct ewyk_rt_job *j, enum ewyk_rt_outcome o, int ret)
{
	struct ewyk_http_conn *c = ctx;
	struct http_task *t = j != NULL ?
		container_of(j, struct http_task, job) :
		NULL;
	struct ewyk_rt_result *r;
	const char *extra;

	/* The request's end is no longer the job's business. */
	ewyk_http_on_done(c, NULL, NULL);
	if (o == EWYK_RT_TIMED_OUT || o == EWYK_RT_DROPPED || ret < 0 ||
		o == EWYK_RT_REFUSED) {
		if (t != NULL)
			rt_task_free(t);
		if (o == EWYK_RT_REFUSED)
			ewyk_http_respond(c, 503, "text/plain", NULL,
				"Service Unavailable\n", 20);
		else if (o == EWYK_RT_DONE)
			ewyk_http_respond(c, 500, "text/plain", NULL,
				"Internal Server Error\n", 22);
		else
			ewyk_http_respond(c, 504, "text/plain", NULL,
				"Gateway Timeout\n", 16);
		return;
	}
	r = &t->res;
	extra = r->extra[0] != '\0' ? r->extra : NULL;
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
	rt_task_free(t);
}

static const struct ewyk_rt_job_ops task_ops[] = RT_TASK_OPS(task_done);

/* Start the task's job. 0, or -ENOBUFS (refused: the caller answers 503;
 * the task is freed). */
static int
task_start(struct http_task *t, struct ewyk_http_conn *c)
{
	struct ewyk_rt_shard *sh = t->sh;
	int rc;

	t->req.body = t->body;
	t->req.body_len = t->body_len;
	t->req.deadline = ewyk_rt_task_deadline(sh);
	rc = ewyk_rt_job_start(sh, &t->job, &task_ops[t->route->invocation], c,
		t->req.deadline);
	if (rc != 0) {
		rt_task_put(t);
		return -ENOBUFS;
	}
	ewyk_http_on_done(c, task_conn_done, t);
	return 0;
}

static void
respond_busy(struct ewyk_http_conn *c)
{
	ewyk_http_respond(c, 503, "text/plain", NULL, "Service Unavailable\n",
		20);
}

/* The body read for the handler, a piece at a time (holder). Refused
 * (413, no memory: 503), the rest of the body is read and dropped and
 * the end of the request frees the task (task_read_done). */
static int
task_read(struct ewyk_http_conn *c, const char *p, uint32_t len, int last,
	void *arg)
{
	struct http_task *t = arg;

	if (t->refused)
		return 0;
	if (len > t->route->max_body - t->body_len) {
		t->refused = 1;
		ewyk_http_respond(c, 413, "text/plain", NULL,
			"Content Too Large\n", 18);
		return 0;
	}
	if (t->body_len + len > t->body_cap) {
		uint64_t cap = RTE_MAX((uint64_t)t->body_cap * 2,
			(uint64_t)t->body_len + len);
		char *b;

		cap = RTE_MAX(RTE_MIN(cap, (uint64_t)t->route->max_body),
			(uint64_t)t->body_len + len);
		b = rte_realloc_socket(t->body, cap, 0, t->sh->socket);
		if (b == NULL) {
			t->refused = 1;
			respond_busy(c);
			return 0;
		}
		t->body = b;
		t->body_cap = (uint32_t)cap;
	}
	if (len > 0)
		memcpy(t->body + t->body_len, p, len);
	t->body_len += len;
	if (last) {
		ewyk_http_on_done(c, NULL, NULL);
		if (task_start(t, c) != 0)
			respond_busy(c);
	}
	return 0;
}

/* The request ended while its body was being read: the connection went,
 * or it was refused. */
static void
task_read_done(struct ewyk_http_conn *c, int aborted, void *arg)
{
	RTE_SET_USED(c);
	RTE_SET_USED(aborted);
	rt_task_put(arg);
}

/* Step 1: lib/http's dispatch hook, on the holder. */
int
rt_dispatch(void *arg, struct ewyk_http_conn *c,
	const struct ewyk_http_route *route)
{
	struct ewyk_rt_shard *sh = arg;
	struct rt_http_shard *ws = sh->hs;
	const struct ewyk_rt_route *rr = route->arg;
	const struct ewyk_http_request *q = ewyk_http_conn_request(c);
	struct http_task *t;
	uint64_t cl;
	int rc;

	if (route->handler != NULL)
		return 1; /* a raw EITHER handler: runs in place */
	if (q == NULL)
		return -EINVAL;
	/* No source holds more than its share of the tasks. */
	rc = ewyk_http_quota_take(ws->q_tasks, c);
	t = rc >= 0 ? ewyk_pool_get(ws->tasks) : NULL;
	if (t == NULL) {
		ewyk_http_quota_give(ws->q_tasks, rc);
		rt_task_count(sh, EWYK_RT_TASK_REJECTED);
		return -ENOBUFS; /* lib/http answers 503 */
	}
	memset(&t->res, 0, sizeof(t->res));
	t->sh = sh;
	t->route = rr;
	t->st = NULL;
	t->qtok = rc;
	t->large_tok = -1;
	t->body = NULL;
	t->ring_old = NULL;
	t->body_len = t->body_cap = 0;
	t->refused = 0;
	t->req.state = NULL;
	t->req.body = NULL;
	t->req.body_len = 0;
	rc = task_req(sh, t, q, c);
	if (rc != 0) {
		t->large = NULL;
		rt_task_put(t);
		if (rc == -ENOBUFS) {
			rt_task_count(sh, EWYK_RT_TASK_HEAD_BUSY);
			return -ENOBUFS; /* lib/http answers 503 */
		}
		ewyk_http_respond(c, 431, "text/plain", NULL,
			"Request Header Fields Too Large\n", 32);
		return 0;
	}
	if (rr->max_body != 0 &&
		(q->framing == EWYK_HTTP_BODY_CHUNKED ||
			(q->framing == EWYK_HTTP_BODY_LENGTH &&
				q->content_length > 0))) {
		cl = q->framing == EWYK_HTTP_BODY_LENGTH ? q->content_length :
							   0;
		if (cl > rr->max_body) {
			rt_task_put(t);
			ewyk_http_respond(c, 413, "text/plain", NULL,
				"Content Too Large\n", 18);
			return 0;
		}
		if (cl > 0) {
			t->body = rte_malloc_socket("rt_http_body", cl, 0,
				sh->socket);
			if (t->body == NULL) {
				rt_task_put(t);
				return -ENOBUFS;
			}
			t->body_cap = (uint32_t)cl;
		}
		if (ewyk_http_read_body(c, task_read, t) == 0) {
			ewyk_http_on_done(c, task_read_done, t);
			return 0;
		}
		/* No body after all: dispatch now. */
	}
	if (task_start(t, c) != 0)
		return -ENOBUFS; /* counted rejected; lib/http answers 503 */
	return 0;
}

int
rt_dispatch_shard_init(struct ewyk_rt_shard *sh)
{
	struct rt_http_shard *ws = sh->hs;
	struct ewyk_http_limits lim;
	struct ewyk_pool_params pp;
	char name[32];
	uint16_t mh;
	uint64_t buf;

	/* a quarter of the tasks, and of the large head copies, per source */
	ws->q_tasks = ewyk_http_quota_create(EWYK_RT_HTTP_MAX_TASKS,
		EWYK_RT_HTTP_MAX_TASKS / 4, sh->socket);
	ws->q_heads = ewyk_http_quota_create(EWYK_RT_REQ_LARGE,
		EWYK_RT_REQ_LARGE / 4, sh->socket);
	if (ws->q_tasks == NULL || ws->q_heads == NULL) {
		RT_LOG(ERR, "error: HTTP dispatch quotas of shard %u: %s",
			sh->id, rte_strerror(rte_errno));
		return -1;
	}
	snprintf(name, sizeof(name), "rt_http_task_%u", sh->id);
	memset(&pp, 0, sizeof(pp));
	pp.name = name;
	pp.capacity = EWYK_RT_HTTP_MAX_TASKS;
	pp.obj_size = sizeof(struct http_task);
	pp.socket_id = sh->socket;
	pp.cache_size = 16;
	ws->tasks = ewyk_pool_create(&pp);
	if (ws->tasks == NULL) {
		RT_LOG(ERR, "error: HTTP task pool of shard %u: %s", sh->id,
			rte_strerror(rte_errno));
		return -1;
	}
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
		RT_LOG(ERR,
			"error: HTTP dispatch of shard %u: head limits too large",
			sh->id);
		return -1;
	}
	ws->head_buf = (uint32_t)buf;
	ws->head_max_headers = mh;
	snprintf(name, sizeof(name), "rt_http_head_%u", sh->id);
	memset(&pp, 0, sizeof(pp));
	pp.name = name;
	pp.capacity = EWYK_RT_REQ_LARGE;
	pp.obj_size = (uint32_t)(mh * sizeof(struct ewyk_rt_req_header) + buf);
	pp.socket_id = sh->socket;
	ws->heads = ewyk_pool_create(&pp);
	if (ws->heads == NULL) {
		RT_LOG(ERR, "error: HTTP head copies of shard %u: %s", sh->id,
			rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

void
rt_dispatch_shard_depart(struct ewyk_rt_shard *sh)
{
	if (sh->hs != NULL && sh->hs->tasks != NULL)
		ewyk_pool_cache_flush(sh->hs->tasks);
}

void
rt_dispatch_shard_free(struct ewyk_rt_shard *sh)
{
	struct rt_http_shard *ws = sh->hs;

	if (ws == NULL)
		return;
	ewyk_pool_free(ws->heads);
	ewyk_pool_free(ws->tasks);
	ewyk_http_quota_free(ws->q_tasks);
	ewyk_http_quota_free(ws->q_heads);
	ws->heads = NULL;
	ws->tasks = NULL;
	ws->q_tasks = NULL;
	ws->q_heads = NULL;
}
