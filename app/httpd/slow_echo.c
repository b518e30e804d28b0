/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The slow echo (--slow-echo-port N [--slow-ms M]): every chunk received
 * is a BLOCKING job that really blocks its lcore M ms (nanosleep), the
 * proof that blocking work leaves the packet path alone.
 *
 * Life of a chunk:
 *  1. recv (holder, in the rx pass): the chunk waits on the connection;
 *     one job per connection at a time keeps the echo in order.
 *  2. dispatch (holder): the chunk becomes a job (ewyk_rt_job_start():
 *     the strategy runs it in place, hands production away and runs it
 *     here, or queues it); the job holds the data, never the connection.
 *  3. done (holder): the echo is written and the next waiting chunk
 *     dispatched.
 *  Deadline first (--task-timeout), refused or dropped: the connection is
 *  reset (RST). Closed while a job runs: the job is cancelled and its
 *  data freed when it ends.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "tcp_services.h"

#define SLOW_MAX_TASKS 4096

/* A dispatched chunk: data, never a connection pointer. */
struct slow_task {
	struct ewyk_rt_job job;
	struct ewyk_pool *pool;
	struct rte_mbuf *data;
	uint32_t ms;
};

static void
slow_task_free(struct slow_task *st)
{
	rte_pktmbuf_free(st->data);
	st->data = NULL;
	ewyk_pool_put(st->pool, st);
}

/* Really block this lcore for @ms (not a timer). */
static void
slow_block(uint32_t ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static int
slow_run(struct ewyk_rt_job *j, enum ewyk_strategy_mode mode)
{
	RTE_SET_USED(mode);
	slow_block(container_of(j, struct slow_task, job)->ms);
	return 0;
}

static void
slow_drop(struct ewyk_rt_job *j)
{
	slow_task_free(container_of(j, struct slow_task, job));
}

/* Reset the connection: its job failed, or no room to dispatch. */
static void
slow_reset(struct svc_conn *sc)
{
	ewyk_tcp_abort(sc->c);
	rte_pktmbuf_free(sc->wait);
	sc->wait = NULL;
	svc_release(sc);
}

static int slow_dispatch(struct svc_conn *sc);

/* Step 3, on the holder. */
static void
slow_done(void *ctx, struct ewyk_rt_job *j, enum ewyk_rt_outcome o, int ret)
{
	struct svc_conn *sc = ctx;
	struct slow_task *st = j != NULL ?
		container_of(j, struct slow_task, job) :
		NULL;

	RTE_SET_USED(ret);
	sc->task = NULL;
	if (o != EWYK_RT_DONE) {
		/* The deadline came first (the job still runs and frees its
		 * data), or it was refused or dropped. */
		if (st != NULL)
			slow_task_free(st);
		slow_reset(sc);
		return;
	}
	if (sc->out.pend == NULL)
		sc->out.pend = st->data;
	else if (rte_pktmbuf_chain(sc->out.pend, st->data) != 0)
		rte_pktmbuf_free(st->data);
	st->data = NULL;
	slow_task_free(st);
	if (slow_dispatch(sc) != 0)
		return;
	svc_echo_flush(sc);
}

static const struct ewyk_rt_job_ops slow_ops_job = {
	.invocation = EWYK_STRATEGY_INVOKE_BLOCKING,
	.run = slow_run,
	.done = slow_done,
	.drop = slow_drop,
};

/* Step 2, on the holder. Returns -1 when the connection is gone. */
static int
slow_dispatch(struct svc_conn *sc)
{
	struct ewyk_pool *pool = httpd_shard(sc->h, sc->sh)->tasks;
	struct slow_task *st;

	if (sc->wait == NULL || sc->task != NULL)
		return 0;
	st = ewyk_pool_get(pool);
	if (st == NULL) {
		slow_reset(sc); /* refused, as an overloaded server must */
		return -1;
	}
	st->pool = pool;
	st->data = sc->wait;
	st->ms = sc->h->conf.slow_ms;
	if (ewyk_rt_job_start(sc->sh, &st->job, &slow_ops_job, sc, 0) != 0) {
		st->data = NULL;
		ewyk_pool_put(pool, st);
		slow_reset(sc);
		return -1;
	}
	sc->wait = NULL;
	sc->task = st;
	return 0;
}

static void slow_closed(void *ctx, struct ewyk_tcp_conn *c, int err);

/* Step 1. */
static void
slow_recv(void *ctx, struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	struct svc_conn *sc = ctx;

	/* Small segments are copied together, and what waits counts in
	 * TCP's mbuf budgets (released when the echo sends it): a peer
	 * sending a byte a segment while its job runs pins a few buffers,
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
	if (sc->task == NULL && sc->wait == NULL && sc->out.pend == NULL)
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
	/* The job's result has nowhere to go: it frees itself. */
	if (sc->task != NULL)
		ewyk_rt_job_cancel(&sc->task->job);
	sc->task = NULL;
	svc_release(sc);
}

static const struct ewyk_tcp_ops slow_ops = {
	.accept = svc_accept,
	.recv = slow_recv,
	.eof = slow_eof,
	.writable = slow_writable,
	.closed = slow_closed,
};

/* The module: the shard's pool of task objects. */
static int
tasks_init(struct ewyk_rt_shard *sh, void *arg)
{
	struct ewyk_pool_params tp;
	char name[32];

	snprintf(name, sizeof(name), "slow_task_%u", ewyk_rt_shard_id(sh));
	memset(&tp, 0, sizeof(tp));
	tp.name = name;
	tp.capacity = SLOW_MAX_TASKS;
	tp.obj_size = sizeof(struct slow_task);
	tp.socket_id = ewyk_rt_shard_socket(sh);
	tp.cache_size = 32;
	httpd_shard(arg, sh)->tasks = ewyk_pool_create(&tp);
	if (httpd_shard(arg, sh)->tasks == NULL) {
		fprintf(stderr, "error: task pool of shard %u: %s\n",
			ewyk_rt_shard_id(sh), rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

static void
tasks_depart(struct ewyk_rt_shard *sh, void *arg)
{
	ewyk_pool_cache_flush(httpd_shard(arg, sh)->tasks);
}

/* After the runtime applied every result and the executor dropped what
 * was queued: no job holds a task any more. */
static void
tasks_fini(struct ewyk_rt_shard *sh, void *arg)
{
	ewyk_pool_free(httpd_shard(arg, sh)->tasks);
	httpd_shard(arg, sh)->tasks = NULL;
}

int
slow_echo_register(struct httpd *h)
{
	const struct ewyk_rt_module m = {
		.name = "slow echo",
		.init = tasks_init,
		.depart = tasks_depart,
		.fini = tasks_fini,
		.arg = h,
	};

	if (h->conf.slow_echo_port == 0)
		return 0;
	if (ewyk_rt_module_add(h->rt, &m) != 0 ||
		ewyk_rt_tcp_listen(h->rt, h->conf.slow_echo_port, &slow_ops,
			h) != 0)
		return -1;
	printf("tcp: slow echo on port %u\n", h->conf.slow_echo_port);
	return 0;
}
