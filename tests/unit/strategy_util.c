/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers of the lib/strategy unit tests (strategy_util.h). */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <rte_launch.h>
#include <rte_memory.h>
#include <rte_lcore.h>

#include "strategy_util.h"

/* Helpers. */

double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Wait (yielding) until *v >= want or the deadlock guard fires. */
int
wait_u64(const uint64_t *v, uint64_t want, double guard_s)
{
	double end = now_s() + guard_s;

	while (__atomic_load_n(v, __ATOMIC_ACQUIRE) < want) {
		if (now_s() > end)
			return -1;
		sched_yield();
	}
	return 0;
}

int
wait_idle_count(struct ewyk_strategy_executor *ex, unsigned int want)
{
	double end = now_s() + GUARD_S;

	while (ewyk_strategy_executor_idle_count(ex) != want) {
		if (now_s() > end)
			return -1;
		sched_yield();
	}
	return 0;
}

int
wait_producer_idle(struct ewyk_strategy_producer *p)
{
	double end = now_s() + GUARD_S;

	while (ewyk_strategy_producer_state_get(p) !=
		EWYK_STRATEGY_PRODUCER_IDLE) {
		if (now_s() > end)
			return -1;
		sched_yield();
	}
	return 0;
}

struct ewyk_strategy_executor *
mk_executor(const char *name, uint32_t ring, uint32_t spin_us)
{
	struct ewyk_strategy_executor_conf c = {
		.name = name,
		.socket_id = SOCKET_ID_ANY,
		.ring_size = ring,
		.spin_us = spin_us,
	};
	struct ewyk_strategy_executor *ex = ewyk_strategy_executor_create(&c);

	assert_non_null(ex);
	return ex;
}

struct ewyk_strategy *
mk_strategy(const char *name, enum ewyk_strategy_kind k,
	struct ewyk_strategy_executor *ex)
{
	struct ewyk_strategy_conf c = {
		.name = name,
		.kind = k,
		.executor = ex,
		.socket_id = SOCKET_ID_ANY,
	};
	struct ewyk_strategy *s = ewyk_strategy_create(&c);

	assert_non_null(s);
	return s;
}

void
serve_on_worker(struct ewyk_strategy_executor *ex)
{
	assert_int_equal(
		rte_eal_remote_launch(ewyk_strategy_executor_lcore_main, ex,
			WORKER_LCORE),
		0);
}

void
stop_worker(struct ewyk_strategy_executor *ex)
{
	assert_int_equal(ewyk_strategy_executor_stop(ex), 0);
	assert_int_equal(rte_eal_wait_lcore(WORKER_LCORE), 0);
}

static void *
lthread_main(void *a)
{
	struct lthread *t = a;
	cpu_set_t all;
	long i, n = sysconf(_SC_NPROCESSORS_ONLN);

	CPU_ZERO(&all);
	for (i = 0; i < n && i < CPU_SETSIZE; i++)
		CPU_SET(i, &all);
	pthread_setaffinity_np(pthread_self(), sizeof(all), &all);
	if (rte_thread_register() != 0)
		return (void *)1;
	t->fn(t->arg);
	rte_thread_unregister();
	return NULL;
}

void
lthread_start(struct lthread *t, void (*fn)(void *), void *arg)
{
	t->fn = fn;
	t->arg = arg;
	assert_int_equal(pthread_create(&t->tid, NULL, lthread_main, t), 0);
}

void
lthread_join(struct lthread *t)
{
	void *r = NULL;

	assert_int_equal(pthread_join(t->tid, &r), 0);
	assert_null(r);
}

void
srv_fn(void *arg)
{
	struct srv *x = arg;

	ewyk_strategy_executor_serve(x->ex, &x->quit);
}

void
rec_fn(void *arg, enum ewyk_strategy_mode mode)
{
	struct rec *r = arg;

	r->mode = (int)mode;
	r->lcore = rte_lcore_id();
	r->cur_mode = ewyk_strategy_current_mode();
	__atomic_fetch_add(&r->runs, 1, __ATOMIC_RELEASE);
}

unsigned int
list_produce(void *ctx, struct ewyk_strategy_task *out, unsigned int max)
{
	struct list_prod *lp = ctx;
	unsigned int k = 0;

	lp->last_lcore = rte_lcore_id();
	if (lp->next == lp->n)
		lp->calls_after_first++;
	while (k < max && lp->next < lp->n)
		out[k++] = lp->tasks[lp->next++];
	return k;
}

/* Run one task of @inv through a producer of @s; return its record. */
void
run_one(struct ewyk_strategy *s, uint32_t inv, struct rec *r,
	unsigned int *prod_lcore)
{
	struct ewyk_strategy_task t = { .fn = rec_fn,
		.arg = r,
		.invocation = inv };
	struct list_prod lp = { .tasks = &t, .n = 1 };
	struct ewyk_strategy_producer_conf pc = { .produce = list_produce,
		.ctx = &lp };
	struct ewyk_strategy_producer *p = ewyk_strategy_producer_create(s,
		&pc);
	int st;

	assert_non_null(p);
	memset(r, 0, sizeof(*r));
	r->mode = -1;
	st = ewyk_strategy_producer_run(p);
	assert_true(st == EWYK_STRATEGY_PRODUCE_IDLE ||
		st == EWYK_STRATEGY_PRODUCE_HANDED_OFF);
	assert_int_equal(wait_producer_idle(p), 0);
	if (prod_lcore != NULL)
		*prod_lcore = lp.last_lcore;
	ewyk_strategy_producer_free(p);
}

void
gate_job(void *arg)
{
	struct gate *g = arg;

	g->lcore = rte_lcore_id();
	__atomic_fetch_add(&g->entered, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&g->open, __ATOMIC_ACQUIRE))
		sched_yield();
}

void
nop_job(void *arg)
{
	(void)arg;
}

void
cnt_fn(void *arg, enum ewyk_strategy_mode mode)
{
	struct cnt *c = arg;

	__atomic_fetch_add(&c->run[mode], 1, __ATOMIC_RELAXED);
}
