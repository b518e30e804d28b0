/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The slow echo (--slow-echo-port): every chunk received is a BLOCKING
 * task that really blocks its lcore --slow-ms ms (nanosleep), the proof
 * that blocking work leaves the packet path alone.
 *
 * Life of a chunk:
 *  1. recv (holder, in the rx pass): the chunk waits on the connection;
 *     one task per connection at a time keeps the echo in order.
 *  2. dispatch (holder): a delayed operation is added to the shard's
 *     purgatory with the deadline now + --task-timeout, a slot of the
 *     shard's inbox is reserved, and a task holding the op's *ticket* (never
 *     the connection) and the data is yielded to the strategy: PC runs it
 *     here, EPC hands production to a reserved lcore and runs it here, PEC
 *     queues it.
 *  3. run (any lcore): block, then claim the op. Won: post the completion
 *     on the reserved slot (never refused). Lost (the deadline came first,
 *     or the connection closed and cancelled the op): give the slot back,
 *     free the data: the late result is dropped.
 *  4. complete (holder, draining the inbox): finish the op, write the echo
 *     and dispatch the next waiting chunk.
 *  Deadline first (holder, on the wheel): the connection is reset (RST),
 *  counted as timed out.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "slow_echo.h"
#include "tcp_services.h"

#define SLOW_MAX_TASKS 4096

enum slow_status {
	SLOW_OK = 0,
	SLOW_REJECTED = 1, /* refused at dispatch (PEC ring full) */
	SLOW_DROPPED = 2,  /* not started before its deadline, or shutdown */
};

/* A dispatched chunk: a ticket and data, never a connection pointer. */
struct slow_task {
	struct httpd_msg msg; /* first: what the inbox hands back */
	struct ewyk_purgatory_ticket ticket;
	struct httpd_shard *sh; /* whose inbox the result goes to */
	struct rte_mbuf *data;
	uint32_t ms;
	uint32_t status; /* enum slow_status */
};

static void slow_complete(struct httpd_shard *sh, struct httpd_msg *m);

static void
slow_task_free(struct httpd_shard *sh, struct slow_task *st)
{
	rte_pktmbuf_free(st->data);
	st->data = NULL;
	ewyk_pool_put(sh->tasks, st);
}

/* Really block this lcore for @ms (not a timer). */
static void
slow_block(uint32_t ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Step 3, on whatever lcore the strategy picked. */
static void
slow_task_run(void *arg, enum ewyk_strategy_mode mode)
{
	struct slow_task *st = arg;
	struct httpd_shard *sh = st->sh;
	struct httpd_lcore *lc = httpd_lcore_self(sh->app);

	if (lc != NULL)
		__atomic_fetch_add(&lc->ls.mode[mode], 1, __ATOMIC_RELAXED);
	if (mode == EWYK_STRATEGY_MODE_REJECTED)
		st->status = SLOW_REJECTED;
	else if (mode == EWYK_STRATEGY_MODE_DROPPED)
		st->status = SLOW_DROPPED;
	else
		slow_block(st->ms);
	if (ewyk_purgatory_claim(st->ticket) == 0) {
		/* Won: the reserved slot makes this never fail. */
		ewyk_net_inbox_complete(sh->shard, 0, &st->msg, 1);
		return;
	}
	/* Lost to the deadline or to a close: drop the late result. */
	ewyk_net_inbox_unreserve(sh->shard);
	__atomic_fetch_add(&sh->task[HTTPD_TASK_LATE], 1, __ATOMIC_RELAXED);
	slow_task_free(sh, st);
}

static void
slow_op_complete(struct ewyk_purgatory_op *op, void *ctx)
{
	struct svc_conn *sc = ctx;

	RTE_SET_USED(op);
	sc->op = NULL;
}

/* The deadline came first: reset the connection. */
static void
slow_op_expire(struct ewyk_purgatory_op *op, void *ctx)
{
	struct svc_conn *sc = ctx;

	RTE_SET_USED(op);
	sc->op = NULL;
	httpd_task_count(sc->sh, HTTPD_TASK_TIMED_OUT);
	ewyk_tcp_abort(sc->c);
	rte_pktmbuf_free(sc->wait);
	sc->wait = NULL;
	svc_release(sc);
}

static const struct ewyk_purgatory_op_ops slow_op_ops = {
	.on_complete = slow_op_complete,
	.on_expire = slow_op_expire,
};

/* Refused at dispatch: reset, as an overloaded server must. */
static void
slow_refuse(struct svc_conn *sc)
{
	httpd_task_count(sc->sh, HTTPD_TASK_REJECTED);
	ewyk_tcp_abort(sc->c);
	rte_pktmbuf_free(sc->wait);
	sc->wait = NULL;
	svc_release(sc);
}

/* Step 2, on the holder. Returns -1 when the connection is gone. */
static int
slow_dispatch(struct svc_conn *sc)
{
	struct httpd_shard *sh = sc->sh;
	struct httpd *h = sh->app;
	struct ewyk_strategy_task t;
	struct slow_task *st;
	uint64_t deadline;

	if (sc->wait == NULL || sc->op != NULL)
		return 0;
	st = ewyk_pool_get(sh->tasks);
	if (st == NULL)
		goto refuse;
	if (ewyk_net_inbox_reserve(sh->shard) != 0) {
		ewyk_pool_put(sh->tasks, st);
		goto refuse;
	}
	deadline = httpd_task_deadline(sh);
	sc->op = ewyk_purgatory_add(sh->purg, &slow_op_ops, sc, deadline, NULL,
		0);
	if (sc->op == NULL) {
		ewyk_net_inbox_unreserve(sh->shard);
		ewyk_pool_put(sh->tasks, st);
		goto refuse;
	}
	st->msg.apply = slow_complete;
	st->ticket = ewyk_purgatory_ticket(sc->op);
	st->sh = sh;
	st->data = sc->wait;
	st->ms = h->conf.slow_ms;
	st->status = SLOW_OK;
	t = (struct ewyk_strategy_task){ .fn = slow_task_run,
		.arg = st,
		.invocation = EWYK_STRATEGY_INVOKE_BLOCKING,
		.deadline = deadline };
	if (httpd_yield_task(sh, &t) != 0) {
		/* More tasks in this iteration than the burst: refuse. */
		ewyk_purgatory_cancel(sh->purg, sc->op);
		sc->op = NULL;
		ewyk_net_inbox_unreserve(sh->shard);
		st->data = NULL;
		ewyk_pool_put(sh->tasks, st);
		goto refuse;
	}
	sc->wait = NULL;
	httpd_task_count(sh, HTTPD_TASK_DISPATCHED);
	return 0;
refuse:
	slow_refuse(sc);
	return -1;
}

/* Step 4: the holder applies a completion from the inbox. */
static void
slow_complete(struct httpd_shard *sh, struct httpd_msg *m)
{
	struct slow_task *st = (struct slow_task *)m;
	struct svc_conn *sc = ewyk_purgatory_op_ctx(st->ticket.op);

	ewyk_purgatory_finish(sh->purg, st->ticket);
	if (sc->closed) {
		/* Closed while its task ran: the result has nowhere to go. */
		httpd_task_count(sh, HTTPD_TASK_ORPHANED);
		slow_task_free(sh, st);
		svc_release(sc);
		return;
	}
	if (st->status != SLOW_OK) {
		httpd_task_count(sh,
			st->status == SLOW_REJECTED ? HTTPD_TASK_REJECTED :
						      HTTPD_TASK_DROPPED);
		slow_task_free(sh, st);
		ewyk_tcp_abort(sc->c);
		rte_pktmbuf_free(sc->wait);
		sc->wait = NULL;
		svc_release(sc);
		return;
	}
	httpd_task_count(sh, HTTPD_TASK_DONE);
	if (sc->pend == NULL)
		sc->pend = st->data;
	else if (rte_pktmbuf_chain(sc->pend, st->data) != 0)
		rte_pktmbuf_free(st->data);
	st->data = NULL;
	slow_task_free(sh, st);
	if (slow_dispatch(sc) != 0)
		return;
	svc_echo_flush(sc);
}

static void slow_closed(void *ctx, struct ewyk_tcp_conn *c, int err);

/* Step 1. */
static void
slow_recv(void *ctx, struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	struct svc_conn *sc = ctx;

	/* Small segments are copied together, and what waits counts in
	 * TCP's mbuf budgets (released when the echo sends it): a peer
	 * sending a byte a segment while its task runs pins a few buffers,
	 * and past its share TCP stops taking its data. Nothing TCP
	 * acknowledged is ever dropped: a chain that cannot grow (never
	 * under the budgets) resets the connection. */
	if (ewyk_tcp_recv_append(c, &sc->wait, m) != 0) {
		rte_pktmbuf_free(m);
		ewyk_tcp_abort(c);
		slow_closed(sc, c, -ECONNABORTED);
		return;
	}
	slow_dispatch(sc);
}

static void
slow_eof(void *ctx, struct ewyk_tcp_conn *c)
{
	struct svc_conn *sc = ctx;

	RTE_SET_USED(c);
	sc->eof = true;
	if (sc->op == NULL && sc->wait == NULL && sc->pend == NULL)
		svc_close(sc);
}

static void
slow_writable(void *ctx, struct ewyk_tcp_conn *c)
{
	RTE_SET_USED(c);
	svc_echo_flush(ctx);
}

/* TCP finished the connection (peer reset, FINs, timeout). */
static void
slow_closed(void *ctx, struct ewyk_tcp_conn *c, int err)
{
	struct svc_conn *sc = ctx;

	RTE_SET_USED(c);
	RTE_SET_USED(err);
	rte_pktmbuf_free(sc->wait);
	sc->wait = NULL;
	if (sc->op != NULL &&
		ewyk_purgatory_cancel(sc->sh->purg, sc->op) != 0) {
		/* Claimed: its completion is on the way and frees us. */
		sc->closed = true;
		sc->c = NULL;
		return;
	}
	if (sc->op != NULL)
		httpd_task_count(sc->sh, HTTPD_TASK_ORPHANED);
	sc->op = NULL;
	svc_release(sc);
}

static const struct ewyk_tcp_ops slow_ops = {
	.accept = svc_accept,
	.recv = slow_recv,
	.eof = slow_eof,
	.writable = slow_writable,
	.closed = slow_closed,
};

const struct ewyk_tcp_ops *
slow_echo_ops(void)
{
	return &slow_ops;
}

int
slow_echo_shard_init(struct httpd *h, struct httpd_shard *sh)
{
	struct ewyk_pool_params tp;
	char name[32];

	RTE_SET_USED(h);
	if (httpd_tasks_shard_init(sh) != 0)
		return -1;
	snprintf(name, sizeof(name), "slow_task_%u", sh->id);
	memset(&tp, 0, sizeof(tp));
	tp.name = name;
	tp.capacity = SLOW_MAX_TASKS;
	tp.obj_size = sizeof(struct slow_task);
	tp.socket_id = (int)rte_lcore_to_socket_id(sh->home);
	tp.cache_size = 32;
	sh->tasks = ewyk_pool_create(&tp);
	if (sh->tasks == NULL) {
		fprintf(stderr, "error: task pool of shard %u: %s\n", sh->id,
			rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

void
slow_echo_shard_free(struct httpd_shard *sh)
{
	/* After httpd_tasks_shard_free(): no completion is left. */
	ewyk_pool_free(sh->tasks);
	sh->tasks = NULL;
}
