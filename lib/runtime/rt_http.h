/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_RT_HTTP_H
#define EWYK_RT_HTTP_H

/* HTTP of the runtime (not installed): a shard's dispatch state. */

#include <sys/queue.h>

#include <ewyk_http.h>
#include <ewyk_http_server.h>
#include <ewyk_http2.h>
#include <ewyk_pool.h>

#include "rt_private.h"

struct rt_http_shard {
	struct ewyk_pool *tasks; /* dispatched requests (rt_dispatch.c) */
	/* large head copies: head_max_headers fields, then head_buf bytes */
	struct ewyk_pool *heads;
	uint32_t head_buf;
	uint16_t head_max_headers;
	/* per-source shares of those */
	struct ewyk_http_quota *q_tasks, *q_heads;
	/* HTTP/2 tasks ready to start past the iteration's burst (rt_h2.c),
	 * oldest first; each holds one of the tasks above */
	TAILQ_HEAD(, http_task) h2_wait;
	/* largest body an HTTP/2 stream gathers: its source's share of the
	 * body budget, or less (the route's max_body); a streamed body is
	 * bounded by max_body only */
	uint64_t h2_body_max;
};

/* A dispatched request: the job, the copy of its head, its result. */
struct http_task {
	struct ewyk_rt_job job;
	struct ewyk_rt_shard *sh;
	const struct ewyk_rt_route *route;
	struct ewyk_http_conn *c;     /* while reading the body */
	struct ewyk_http2_stream *st; /* the HTTP/2 stream's, or NULL */
	TAILQ_ENTRY(http_task) wlink; /* on h2_wait */
	struct ewyk_rt_req req;
	void *large;         /* req's large copy (the shard's heads), or NULL */
	int qtok, large_tok; /* the source's shares (q_tasks, q_heads) */
	char *body;          /* the body read for the handler, or NULL; a
			      * streamed one's ring of received bytes */
	uint32_t body_len, body_cap;
	uint8_t refused; /* body over max_body or no memory: answered */
	/* a streamed HTTP/2 body (rt_h2.c): the ring's first byte, the
	 * bytes of the piece being consumed, the body's bytes in all;
	 * releasing: a piece's bytes are being released (the stream's end
	 * then only marks ended, the releaser puts the task) */
	uint8_t streamed, busy, waiting, body_end, releasing, ended;
	uint32_t ring_head, piece;
	uint64_t body_total;
	/* the ring the piece being consumed reads, when the ring grew
	 * under it (freed when the piece is done), or NULL; its size */
	char *ring_old;
	uint32_t ring_old_cap;
	struct ewyk_rt_result res;
	struct ewyk_rt_req_header hdr[EWYK_RT_REQ_MAX_HEADERS]; /* small head */
	char buf[EWYK_RT_REQ_BUF];
};

/* rt_dispatch.c, shared with rt_h2.c */
int rt_req_copy(struct ewyk_rt_req *r, const struct ewyk_http_request *q,
	uint16_t shard, struct ewyk_rt_req_header *hdr, uint32_t max_headers,
	char *buf, uint32_t size);
void rt_task_put(struct http_task *t);
void rt_task_free(struct http_task *t);
int rt_task_run(struct ewyk_rt_job *j, enum ewyk_strategy_mode mode);
void rt_task_drop(struct ewyk_rt_job *j);

/* A task's job ops, indexed by the route's invocation type: the same
 * run and drop for every protocol, done() answering on the task's own
 * (HTTP/1.1 in rt_dispatch.c, HTTP/2 in rt_h2.c). */
/* clang-format off */
#define RT_TASK_OP(inv, done_fn)                                      \
	[EWYK_STRATEGY_INVOKE_##inv] = {                              \
		.invocation = EWYK_STRATEGY_INVOKE_##inv,             \
		.run = rt_task_run,                                   \
		.done = (done_fn),                                    \
		.drop = rt_task_drop,                                 \
	}
#define RT_TASK_OPS(done_fn)                                          \
	{                                                             \
		RT_TASK_OP(NON_BLOCKING, done_fn),                    \
		RT_TASK_OP(BLOCKING, done_fn),                        \
		RT_TASK_OP(EITHER, done_fn),                          \
	}
/* clang-format on */

/* rt_h2.c */
int rt_h2_request(void *arg, struct ewyk_http2_stream *st,
	const struct ewyk_http_request *q);
void rt_h2_poll(struct ewyk_rt_shard *sh);

#endif /* EWYK_RT_HTTP_H */
