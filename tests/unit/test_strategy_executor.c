/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/strategy's executor and PEC ring: a queued task starts on the first
 * free lcore, its deadline, the departure hook, spin-keep of warm reserved
 * lcores, serving without a ring, serving the ring only. Run by
 * test_strategy.c's main.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <inttypes.h>

#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_random.h>
#include <rte_ring.h>

#include "test_common.h"

#include <ewyk_strategy.h>

#include "strategy_util.h"

/*
 * The first-free scenario: 1 reserved lcore, 2 shards. Shard 0's long
 * BLOCKING task goes EPC (the reserved lcore R takes shard 0's token and
 * polls it); shard 1's BLOCKING task, produced meanwhile on W1, finds no
 * idle reserved lcore and is queued (PEC). It must start on the first lcore
 * that becomes free: W0 when its EPC task returns (W1 keeps polling its
 * shard), or W1 itself when its producer releases the token with
 * F_SERVE_RING. Before, only a reserved lcore holding no token read the
 * ring: the task waited for production to come home to W0 and R to return
 * to the executor. The queueing delay is printed (not asserted: the machine
 * is shared).
 */
#define FF_LONG_S 0.3

struct ff_ctx {
	struct ewyk_strategy_executor *ex;
	struct ewyk_strategy *s;
	struct ewyk_strategy_producer *p0;
	uint32_t serve_ring; /* W1's producer has F_SERVE_RING */
	uint32_t quit;       /* W0's serve_opt() */
	uint32_t started;    /* the long task runs */
	int phase0;
	double t_enq, t_start, t_long_end;
	unsigned int w1_lcore;
	struct rec rl, rs; /* long task, short (shard 1) task */
};

static void
ff_long_fn(void *arg, enum ewyk_strategy_mode mode)
{
	struct ff_ctx *x = arg;
	double end = now_s() + FF_LONG_S;

	x->rl.mode = (int)mode;
	x->rl.lcore = rte_lcore_id();
	__atomic_store_n(&x->started, 1, __ATOMIC_RELEASE);
	/* Block (really: this lcore does nothing else) until the deadline,
	 * or until the queued task ran elsewhere. */
	while (now_s() < end &&
		__atomic_load_n(&x->rs.runs, __ATOMIC_ACQUIRE) == 0)
		usleep(1000);
	x->t_long_end = now_s();
	__atomic_fetch_add(&x->rl.runs, 1, __ATOMIC_RELEASE);
}

static void
ff_short_fn(void *arg, enum ewyk_strategy_mode mode)
{
	struct ff_ctx *x = arg;

	x->t_start = now_s();
	x->rs.mode = (int)mode;
	x->rs.lcore = rte_lcore_id();
	__atomic_fetch_add(&x->rs.runs, 1, __ATOMIC_RELEASE);
}

static unsigned int
ff_produce0(void *ctx, struct ewyk_strategy_task *out, unsigned int max)
{
	struct ff_ctx *x = ctx;

	(void)max;
	if (x->phase0 == 0) {
		x->phase0 = 1;
		out[0] = (struct ewyk_strategy_task){ .fn = ff_long_fn,
			.arg = x,
			.invocation = EWYK_STRATEGY_INVOKE_BLOCKING };
		return 1;
	}
	if (rte_lcore_id() == 0) {
		/* Production came home: stop polling, let W0 return. */
		ewyk_strategy_producer_stop(x->p0);
		__atomic_store_n(&x->quit, 1, __ATOMIC_RELEASE);
	}
	return 0;
}

static void
ff_w1(void *arg)
{
	struct ff_ctx *x = arg;
	struct ewyk_strategy_task t = { .fn = ff_short_fn,
		.arg = x,
		.invocation = EWYK_STRATEGY_INVOKE_BLOCKING };
	struct list_prod lp = { .tasks = &t, .n = 1 };
	struct ewyk_strategy_producer_conf pc = { .produce = list_produce,
		.ctx = &lp,
		.flags = x->serve_ring ? EWYK_STRATEGY_PRODUCER_F_SERVE_RING :
					 0 };
	struct ewyk_strategy_producer *p1;

	x->w1_lcore = rte_lcore_id();
	p1 = ewyk_strategy_producer_create(x->s, &pc);
	if (p1 == NULL)
		return;
	while (!__atomic_load_n(&x->started, __ATOMIC_ACQUIRE))
		sched_yield();
	usleep(20000);
	x->t_enq = now_s();
	ewyk_strategy_producer_run(p1);
	ewyk_strategy_producer_free(p1);
}

static void
ff_run(int serve_ring)
{
	struct ff_ctx x = { .serve_ring = (uint32_t)serve_ring };
	struct ewyk_strategy_producer_conf pc = { .produce = ff_produce0,
		.ctx = &x,
		.burst = 1,
		.idle_polls = EWYK_STRATEGY_PRODUCER_POLL_FOREVER,
		.flags = EWYK_STRATEGY_PRODUCER_F_HOME,
		.home_lcore = 0 };
	struct ewyk_strategy_stats st;
	struct lthread w1;

	assert_int_equal(rte_lcore_id(), 0);
	x.ex = mk_executor(serve_ring ? "ff1" : "ff0", 16, 0);
	x.s = mk_strategy(serve_ring ? "ff1" : "ff0", EWYK_STRATEGY_ADAPTIVE,
		x.ex);
	x.p0 = ewyk_strategy_producer_create(x.s, &pc);
	assert_non_null(x.p0);
	serve_on_worker(x.ex);
	assert_int_equal(wait_idle_count(x.ex, 1), 0);
	lthread_start(&w1, ff_w1, &x);
	assert_int_equal(ewyk_strategy_producer_run(x.p0),
		EWYK_STRATEGY_PRODUCE_HANDED_OFF);
	assert_int_equal(x.rl.mode, EWYK_STRATEGY_MODE_EPC);
	assert_int_equal(ewyk_strategy_executor_serve_opt(x.ex, &x.quit,
				 EWYK_STRATEGY_SERVE_NO_RING),
		0);
	lthread_join(&w1);
	assert_int_equal(wait_u64(&x.rs.runs, 1, GUARD_S), 0);
	assert_int_equal(x.rs.mode, EWYK_STRATEGY_MODE_PEC);
	printf("# PEC queueing delay, 1 reserved / 2 shards, W1 %s: "
	       "%.1f ms (long task ran %.1f ms)\n",
		serve_ring ? "releases its token" : "keeps polling",
		(x.t_start - x.t_enq) * 1e3,
		(x.t_long_end - x.t_enq) * 1e3 + 20.0);
	/* The first lcore that became free ran it. */
	if (serve_ring)
		assert_int_equal(x.rs.lcore, x.w1_lcore);
	else
		assert_int_equal(x.rs.lcore, 0);
	assert_int_equal(ewyk_strategy_stats_get(x.s, &st), 0);
	assert_int_equal(st.pec_delay_n, 1);
	assert_true(st.pec_delay_p50_ns > 0);
	stop_worker(x.ex);
	assert_int_equal(wait_producer_idle(x.p0), 0);
	ewyk_strategy_producer_free(x.p0);
	ewyk_strategy_free(x.s);
	ewyk_strategy_executor_free(x.ex);
}

void
test_pec_first_free(void **state)
{
	(void)state;
	ff_run(0);
	ff_run(1);
}

/* A queued task whose deadline passed is not started: DROPPED, counted. */
void
test_pec_deadline(void **state)
{
	struct ewyk_strategy_executor *ex = mk_executor("dl", 8, 0);
	struct ewyk_strategy *s = mk_strategy("dl", EWYK_STRATEGY_PEC, ex);
	struct ewyk_strategy_stats st;
	struct cnt c = { { 0 } };
	struct ewyk_strategy_task t = { .fn = cnt_fn,
		.arg = &c,
		.invocation = EWYK_STRATEGY_INVOKE_BLOCKING };

	(void)state;
	t.deadline = rte_get_tsc_cycles() - 1;
	assert_int_equal(ewyk_strategy_execute(s, &t), EWYK_STRATEGY_MODE_PEC);
	t.deadline = rte_get_tsc_cycles() + 60 * rte_get_tsc_hz();
	assert_int_equal(ewyk_strategy_execute(s, &t), EWYK_STRATEGY_MODE_PEC);
	t.deadline = 0;
	assert_int_equal(ewyk_strategy_execute(s, &t), EWYK_STRATEGY_MODE_PEC);
	assert_int_equal(ewyk_strategy_executor_run_queued(ex, 8), 3);
	assert_int_equal(c.run[EWYK_STRATEGY_MODE_DROPPED], 1);
	assert_int_equal(c.run[EWYK_STRATEGY_MODE_PEC], 2);
	assert_int_equal(ewyk_strategy_stats_get(s, &st), 0);
	assert_int_equal(st.pec_expired, 1);
	assert_int_equal(st.pec_delay_n, 2);
	assert_int_equal(st.pec_run, 2);
	ewyk_strategy_free(s);
	ewyk_strategy_executor_free(ex);
}

/*
 * The departure hook runs on the lcore production leaves, before the next
 * holder starts (EPC: before the hand-off, so frames of the burst are
 * flushed at once), for every way of leaving; the holder is known.
 */
struct dep_ctx {
	struct ewyk_strategy_producer *p;
	uint32_t quit;
	int phase;
	unsigned int nlog;
	uint32_t why[8];
	unsigned int lcore[8];
	uint64_t bad_holder;      /* produce() ran while holder != self */
	uint64_t away;            /* produce() calls on the reserved lcore */
	unsigned int log_at_task; /* log entries when the EPC task ran */
};

static void
dep_hook(void *ctx, uint32_t why)
{
	struct dep_ctx *x = ctx;

	if (ewyk_strategy_producer_holder(x->p) != rte_lcore_id())
		x->bad_holder++;
	if (x->nlog < RTE_DIM(x->why)) {
		x->why[x->nlog] = why;
		x->lcore[x->nlog] = rte_lcore_id();
	}
	__atomic_fetch_add(&x->nlog, 1, __ATOMIC_RELEASE);
}

static void
dep_task(void *arg, enum ewyk_strategy_mode mode)
{
	struct dep_ctx *x = arg;

	(void)mode;
	x->log_at_task = __atomic_load_n(&x->nlog, __ATOMIC_ACQUIRE);
	while (__atomic_load_n(&x->away, __ATOMIC_ACQUIRE) < 3)
		sched_yield();
}

static unsigned int
dep_produce(void *ctx, struct ewyk_strategy_task *out, unsigned int max)
{
	struct dep_ctx *x = ctx;

	(void)max;
	if (ewyk_strategy_producer_holder(x->p) != rte_lcore_id())
		x->bad_holder++;
	if (x->phase == 2)
		return 0; /* nothing to do: release */
	if (x->phase == 0) {
		x->phase = 1;
		out[0] = (struct ewyk_strategy_task){ .fn = dep_task,
			.arg = x,
			.invocation = EWYK_STRATEGY_INVOKE_BLOCKING };
		return 1;
	}
	if (rte_lcore_id() == 0) {
		ewyk_strategy_producer_stop(x->p);
		__atomic_store_n(&x->quit, 1, __ATOMIC_RELEASE);
	} else {
		__atomic_fetch_add(&x->away, 1, __ATOMIC_RELEASE);
	}
	return 0;
}

void
test_depart_hook(void **state)
{
	struct ewyk_strategy_executor *ex = mk_executor("dep", 16, 0);
	struct ewyk_strategy *s = mk_strategy("dep", EWYK_STRATEGY_ADAPTIVE,
		ex);
	struct dep_ctx x = { 0 };
	struct ewyk_strategy_producer_conf pc = { .produce = dep_produce,
		.ctx = &x,
		.burst = 1,
		.idle_polls = EWYK_STRATEGY_PRODUCER_POLL_FOREVER,
		.flags = EWYK_STRATEGY_PRODUCER_F_HOME,
		.home_lcore = 0,
		.depart = dep_hook };
	struct ewyk_strategy *pcs = mk_strategy("dep_pc", EWYK_STRATEGY_PC,
		NULL);
	struct dep_ctx y = { 0 };
	struct ewyk_strategy_producer_conf pc2 = { .produce = dep_produce,
		.ctx = &y,
		.depart = dep_hook };

	(void)state;
	assert_int_equal(rte_lcore_id(), 0);
	x.p = ewyk_strategy_producer_create(s, &pc);
	assert_non_null(x.p);
	assert_int_equal(ewyk_strategy_producer_holder(x.p), LCORE_ID_ANY);
	serve_on_worker(ex);
	assert_int_equal(wait_idle_count(ex, 1), 0);
	assert_int_equal(ewyk_strategy_producer_run(x.p),
		EWYK_STRATEGY_PRODUCE_HANDED_OFF);
	/* Hook ran before the hand-off, i.e. before the EPC task. */
	assert_int_equal(x.log_at_task, 1);
	assert_int_equal(ewyk_strategy_executor_serve_opt(ex, &x.quit,
				 EWYK_STRATEGY_SERVE_NO_RING),
		0);
	assert_int_equal(wait_producer_idle(x.p), 0);
	assert_int_equal(x.nlog, 3);
	assert_int_equal(x.why[0], EWYK_STRATEGY_DEPART_HANDOFF);
	assert_int_equal(x.lcore[0], 0);
	assert_int_equal(x.why[1], EWYK_STRATEGY_DEPART_HOME);
	assert_int_equal(x.lcore[1], WORKER_LCORE);
	assert_int_equal(x.why[2], EWYK_STRATEGY_DEPART_STOP);
	assert_int_equal(x.lcore[2], 0);
	assert_int_equal(x.bad_holder, 0);
	assert_int_equal(ewyk_strategy_producer_holder(x.p), LCORE_ID_ANY);
	stop_worker(ex);
	/* Plain release: IDLE, on this lcore, holder known until then. */
	y.phase = 2;
	y.p = ewyk_strategy_producer_create(pcs, &pc2);
	assert_non_null(y.p);
	assert_int_equal(ewyk_strategy_producer_run(y.p),
		EWYK_STRATEGY_PRODUCE_IDLE);
	assert_int_equal(y.nlog, 1);
	assert_int_equal(y.why[0], EWYK_STRATEGY_DEPART_IDLE);
	assert_int_equal(y.lcore[0], 0);
	assert_int_equal(y.bad_holder, 0);
	ewyk_strategy_producer_free(y.p);
	ewyk_strategy_producer_free(x.p);
	ewyk_strategy_free(pcs);
	ewyk_strategy_free(s);
	ewyk_strategy_executor_free(ex);
}

/*
 * Reserved lcores: with spin_keep 1, of two idle ring servers one parks and
 * one keeps spinning (before, both parked after spin_us); with
 * SPIN_FOREVER none parks, and stop still ends them.
 */
void
test_spin_keep(void **state)
{
	struct ewyk_strategy_executor_conf c = { .name = "keep",
		.socket_id = SOCKET_ID_ANY,
		.spin_us = 1,
		.spin_keep = 1 };
	struct ewyk_strategy_executor *ex;
	struct ewyk_strategy *s;
	struct ewyk_strategy_stats st;
	struct srv r = { 0 };
	struct lthread t;
	double end;

	(void)state;
	ex = ewyk_strategy_executor_create(&c);
	assert_non_null(ex);
	s = mk_strategy("keep", EWYK_STRATEGY_PEC, ex);
	r.ex = ex;
	serve_on_worker(ex);
	lthread_start(&t, srv_fn, &r);
	assert_int_equal(wait_idle_count(ex, 2), 0);
	end = now_s() + GUARD_S;
	do {
		assert_int_equal(ewyk_strategy_stats_get(s, &st), 0);
		assert_true(now_s() < end);
		sched_yield();
	} while (st.parks == 0);
	usleep(100000);
	assert_int_equal(ewyk_strategy_stats_get(s, &st), 0);
	assert_int_equal(st.parks, 1);
	assert_int_equal(st.reserved_spinning, 1);
	assert_int_equal(st.reserved_idle, 2);
	__atomic_store_n(&r.quit, 1, __ATOMIC_RELEASE);
	ewyk_strategy_executor_wake_all(ex);
	lthread_join(&t);
	stop_worker(ex);
	ewyk_strategy_free(s);
	ewyk_strategy_executor_free(ex);

	c.name = "forever";
	c.spin_us = EWYK_STRATEGY_EXECUTOR_SPIN_FOREVER;
	c.spin_keep = 0;
	ex = ewyk_strategy_executor_create(&c);
	assert_non_null(ex);
	s = mk_strategy("forever", EWYK_STRATEGY_PEC, ex);
	serve_on_worker(ex);
	assert_int_equal(wait_idle_count(ex, 1), 0);
	usleep(50000);
	assert_int_equal(ewyk_strategy_stats_get(s, &st), 0);
	assert_int_equal(st.parks, 0);
	assert_int_equal(st.reserved_spinning, 1);
	stop_worker(ex);
	ewyk_strategy_free(s);
	ewyk_strategy_executor_free(ex);
}

/* A no-ring server takes hand-offs but never queued tasks. */

struct noring_ctx {
	struct ewyk_strategy_executor *ex;
	uint32_t quit;
};

static int
noring_main(void *arg)
{
	struct noring_ctx *x = arg;

	return ewyk_strategy_executor_serve_opt(x->ex, &x->quit,
		EWYK_STRATEGY_SERVE_NO_RING);
}

void
test_serve_no_ring(void **state)
{
	struct noring_ctx x = { 0 };
	struct ewyk_strategy_task t;
	struct cnt c = { { 0 } };
	struct gate g = { .open = 1 };
	struct srv r;
	struct lthread rt;
	unsigned int i;

	(void)state;
	x.ex = mk_executor("noring", 16, 0);
	assert_int_equal(ewyk_strategy_executor_serve_opt(x.ex, NULL, 0x80),
		-EINVAL);
	t = (struct ewyk_strategy_task){ .fn = cnt_fn, .arg = &c };
	assert_int_equal(rte_eal_remote_launch(noring_main, &x, WORKER_LCORE),
		0);
	assert_int_equal(wait_idle_count(x.ex, 1), 0);
	for (i = 0; i < 5; i++)
		assert_int_equal(ewyk_strategy_executor_submit(x.ex, &t), 0);
	/* Not woken for them, not running them; still takes a job. */
	assert_int_equal(ewyk_strategy_executor_try_execute(x.ex, gate_job, &g),
		0);
	assert_int_equal(wait_u64(&g.entered, 1, GUARD_S), 0);
	assert_int_equal(g.lcore, WORKER_LCORE);
	assert_int_equal(wait_idle_count(x.ex, 1), 0);
	assert_int_equal(ewyk_strategy_executor_queued(x.ex), 5);
	assert_int_equal(c.run[EWYK_STRATEGY_MODE_PEC], 0);
	/* A ring server drains them. */
	r = (struct srv){ .ex = x.ex };
	lthread_start(&rt, srv_fn, &r);
	assert_int_equal(wait_u64(&c.run[EWYK_STRATEGY_MODE_PEC], 5, GUARD_S),
		0);
	/* And later submissions wake it, not the no-ring one. */
	assert_int_equal(wait_idle_count(x.ex, 2), 0);
	for (i = 0; i < 5; i++)
		assert_int_equal(ewyk_strategy_executor_submit(x.ex, &t), 0);
	assert_int_equal(wait_u64(&c.run[EWYK_STRATEGY_MODE_PEC], 10, GUARD_S),
		0);
	__atomic_store_n(&r.quit, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&x.quit, 1, __ATOMIC_RELEASE);
	ewyk_strategy_executor_wake_all(x.ex);
	lthread_join(&rt);
	assert_int_equal(rte_eal_wait_lcore(WORKER_LCORE), 0);
	ewyk_strategy_executor_free(x.ex);
}

static int
ringonly_main(void *arg)
{
	struct noring_ctx *x = arg;

	return ewyk_strategy_executor_serve_opt(x->ex, &x->quit,
		EWYK_STRATEGY_SERVE_RING_ONLY);
}

/*
 * A ring-only lcore (the reserved lcore ewyk-httpd runs on a thread that
 * shares a worker's CPU): never claimed for a job or a hand-off, woken for
 * and running queued tasks, parked (not spinning) when idle although
 * spin_keep asks for one warm lcore.
 */
void
test_serve_ring_only(void **state)
{
	struct noring_ctx x = { 0 };
	struct ewyk_strategy_executor_conf ec;
	struct ewyk_strategy_task t;
	struct cnt c = { { 0 } };
	struct gate g = { .open = 1 };
	struct ewyk_strategy_stats st;
	struct ewyk_strategy *s;
	unsigned int i;

	(void)state;
	memset(&ec, 0, sizeof(ec));
	ec.name = "ringonly";
	ec.socket_id = SOCKET_ID_ANY;
	ec.ring_size = 16;
	ec.spin_us = 1;
	ec.spin_keep = 1;
	x.ex = ewyk_strategy_executor_create(&ec);
	assert_non_null(x.ex);
	s = mk_strategy("ringonly", EWYK_STRATEGY_PEC, x.ex);
	assert_int_equal(ewyk_strategy_executor_serve_opt(x.ex, NULL,
				 EWYK_STRATEGY_SERVE_NO_RING |
					 EWYK_STRATEGY_SERVE_RING_ONLY),
		-EINVAL);
	t = (struct ewyk_strategy_task){ .fn = cnt_fn, .arg = &c };
	assert_int_equal(rte_eal_remote_launch(ringonly_main, &x, WORKER_LCORE),
		0);
	assert_int_equal(wait_idle_count(x.ex, 1), 0);
	/* Idle, yet never handed a job, on any lcore or on itself. */
	assert_int_equal(ewyk_strategy_executor_try_execute(x.ex, gate_job, &g),
		-EBUSY);
	assert_int_equal(ewyk_strategy_executor_try_execute_on(x.ex,
				 WORKER_LCORE, gate_job, &g),
		-EBUSY);
	assert_int_equal(g.entered, 0);
	/* Queued tasks are run there. */
	for (i = 0; i < 5; i++)
		assert_int_equal(ewyk_strategy_executor_submit(x.ex, &t), 0);
	assert_int_equal(wait_u64(&c.run[EWYK_STRATEGY_MODE_PEC], 5, GUARD_S),
		0);
	/* Idle again, it parks (spin_keep does not hold it spinning) and a
	 * submission wakes it. */
	assert_int_equal(wait_idle_count(x.ex, 1), 0);
	usleep(20000);
	assert_int_equal(ewyk_strategy_stats_get(s, &st), 0);
	assert_int_equal(st.reserved_spinning, 0);
	assert_true(st.parks >= 1);
	assert_int_equal(ewyk_strategy_executor_submit(x.ex, &t), 0);
	assert_int_equal(wait_u64(&c.run[EWYK_STRATEGY_MODE_PEC], 6, GUARD_S),
		0);
	__atomic_store_n(&x.quit, 1, __ATOMIC_RELEASE);
	ewyk_strategy_executor_wake_all(x.ex);
	assert_int_equal(rte_eal_wait_lcore(WORKER_LCORE), 0);
	ewyk_strategy_free(s);
	ewyk_strategy_executor_free(x.ex);
}
