/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lib/strategy: the decision table mode by mode, try_execute,
 * parking, the bounded PEC ring, the producer token (REPRODUCING, polling
 * stop, chaining), exactly-once delivery with bursts and idle gaps from
 * several threads, and the Jetty HTTP/2 flow-control starvation shape.
 *
 * Threads: the main lcore (0) and EAL worker lcore 1, plus pthreads made
 * lcores with rte_thread_register(). On a 2-core box they oversubscribe;
 * nothing here depends on timing except deadlock guards (seconds).
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

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

/* Tests. */

/* Names of kinds and modes: what telemetry and command lines use. */
static void
test_names(void **state)
{
	(void)state;
	assert_string_equal(ewyk_strategy_kind_name(EWYK_STRATEGY_PC), "pc");
	assert_string_equal(ewyk_strategy_kind_name(EWYK_STRATEGY_ADAPTIVE),
		"adaptive");
	assert_null(ewyk_strategy_kind_name(EWYK_STRATEGY_KIND_MAX));
	assert_string_equal(ewyk_strategy_mode_name(EWYK_STRATEGY_MODE_PIC),
		"pic");
	assert_string_equal(ewyk_strategy_mode_name(EWYK_STRATEGY_MODE_DROPPED),
		"dropped");
	assert_null(ewyk_strategy_mode_name(EWYK_STRATEGY_MODE_MAX));
}

static void
test_decide_table(void **state)
{
	static const int want[4][3][2] = {
		/* [kind][invocation][reserved_idle] */
		[EWYK_STRATEGY_PC] = { { EWYK_STRATEGY_MODE_PC,
					       EWYK_STRATEGY_MODE_PC },
			{ EWYK_STRATEGY_MODE_PC, EWYK_STRATEGY_MODE_PC },
			{ EWYK_STRATEGY_MODE_PC, EWYK_STRATEGY_MODE_PC } },
		[EWYK_STRATEGY_PEC] = { { EWYK_STRATEGY_MODE_PEC,
						EWYK_STRATEGY_MODE_PEC },
			{ EWYK_STRATEGY_MODE_PEC, EWYK_STRATEGY_MODE_PEC },
			{ EWYK_STRATEGY_MODE_PEC, EWYK_STRATEGY_MODE_PEC } },
		[EWYK_STRATEGY_EPC] = { { EWYK_STRATEGY_MODE_PC,
						EWYK_STRATEGY_MODE_EPC },
			{ EWYK_STRATEGY_MODE_PC, EWYK_STRATEGY_MODE_EPC },
			{ EWYK_STRATEGY_MODE_PC, EWYK_STRATEGY_MODE_EPC } },
		[EWYK_STRATEGY_ADAPTIVE] = { { EWYK_STRATEGY_MODE_PC,
						     EWYK_STRATEGY_MODE_PC },
			{ EWYK_STRATEGY_MODE_PEC, EWYK_STRATEGY_MODE_EPC },
			{ EWYK_STRATEGY_MODE_PIC, EWYK_STRATEGY_MODE_EPC } },
	};
	int k, i, r;

	(void)state;
	for (k = 0; k < 4; k++)
		for (i = 0; i < 3; i++)
			for (r = 0; r < 2; r++)
				assert_int_equal(
					ewyk_strategy_decide(
						(enum ewyk_strategy_kind)k, i,
						r),
					want[k][i][r]);
	assert_int_equal(ewyk_strategy_decide(EWYK_STRATEGY_PC, 3, 0), -EINVAL);
	assert_int_equal(ewyk_strategy_decide((enum ewyk_strategy_kind)9, 0, 0),
		-EINVAL);
}

/* Live table: each kind, each invocation, with and without an idle lcore. */
static void
check_live(enum ewyk_strategy_kind k, struct ewyk_strategy_executor *ex,
	int served)
{
	static const char *names[] = { "t_pc", "t_pec", "t_epc", "t_ad" };
	struct ewyk_strategy *s = mk_strategy(names[k], k, ex);
	struct ewyk_strategy_stats st;
	unsigned int self = rte_lcore_id();
	unsigned int plc;
	uint32_t inv;
	struct rec r;
	int want;

	for (inv = 0; inv <= EWYK_STRATEGY_INVOKE_EITHER; inv++) {
		if (served)
			assert_int_equal(wait_idle_count(ex, 1), 0);
		want = ewyk_strategy_decide(k, inv, served);
		run_one(s, inv, &r, &plc);
		if (want == EWYK_STRATEGY_MODE_PEC && !served) {
			/* Queued; nobody serves: run it here. */
			assert_int_equal(r.runs, 0);
			assert_int_equal(ewyk_strategy_executor_queued(ex), 1);
			assert_int_equal(ewyk_strategy_executor_run_queued(ex,
						 8),
				1);
		}
		assert_int_equal(wait_u64(&r.runs, 1, GUARD_S), 0);
		assert_int_equal(r.runs, 1);
		assert_int_equal(r.mode, want);
		assert_int_equal(r.cur_mode, want);
		switch (want) {
		case EWYK_STRATEGY_MODE_PC:
		case EWYK_STRATEGY_MODE_PIC:
			assert_int_equal(r.lcore, self);
			assert_int_equal(plc, self);
			break;
		case EWYK_STRATEGY_MODE_EPC:
			/* Ran here; production went on on the worker. */
			assert_int_equal(r.lcore, self);
			assert_int_equal(plc, WORKER_LCORE);
			break;
		case EWYK_STRATEGY_MODE_PEC:
			assert_int_equal(r.lcore, served ? WORKER_LCORE : self);
			break;
		default:
			fail();
		}
	}
	assert_int_equal(ewyk_strategy_stats_get(s, &st), 0);
	assert_int_equal(st.mode[EWYK_STRATEGY_MODE_PC] +
			st.mode[EWYK_STRATEGY_MODE_PIC] +
			st.mode[EWYK_STRATEGY_MODE_EPC] +
			st.mode[EWYK_STRATEGY_MODE_PEC],
		3);
	assert_int_equal(st.handoffs, st.mode[EWYK_STRATEGY_MODE_EPC]);
	ewyk_strategy_free(s);
}

static void
live_kind(enum ewyk_strategy_kind k)
{
	struct ewyk_strategy_executor *ex0 = mk_executor("live0", 64, 0);
	struct ewyk_strategy_executor *ex1 = mk_executor("live1", 64, 0);

	/* No lcore serves ex0: nothing is ever idle. */
	check_live(k, ex0, 0);
	serve_on_worker(ex1);
	check_live(k, ex1, 1);
	stop_worker(ex1);
	ewyk_strategy_executor_free(ex0);
	ewyk_strategy_executor_free(ex1);
}

static void
test_live_pc(void **state)
{
	(void)state;
	live_kind(EWYK_STRATEGY_PC);
}

static void
test_live_pec(void **state)
{
	(void)state;
	live_kind(EWYK_STRATEGY_PEC);
}

static void
test_live_epc(void **state)
{
	(void)state;
	live_kind(EWYK_STRATEGY_EPC);
}

static void
test_live_adaptive(void **state)
{
	(void)state;
	live_kind(EWYK_STRATEGY_ADAPTIVE);
}

/* try_execute: immediate -EBUSY, hand-off, -ESHUTDOWN; parking. */

struct gate {
	uint32_t open;
	uint64_t entered;
	unsigned int lcore;
};

static void
gate_job(void *arg)
{
	struct gate *g = arg;

	g->lcore = rte_lcore_id();
	__atomic_fetch_add(&g->entered, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&g->open, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void
nop_job(void *arg)
{
	(void)arg;
}

static void
test_try_execute(void **state)
{
	struct ewyk_strategy_executor *ex = mk_executor("tx", 16, 1);
	struct ewyk_strategy *s = mk_strategy("tx", EWYK_STRATEGY_ADAPTIVE, ex);
	struct ewyk_strategy_stats st;
	struct gate g = { 0 };

	(void)state;
	assert_int_equal(ewyk_strategy_executor_try_execute(ex, gate_job, &g),
		-EBUSY);
	assert_int_equal(ewyk_strategy_executor_try_execute(NULL, gate_job, &g),
		-EINVAL);
	serve_on_worker(ex);
	assert_int_equal(wait_idle_count(ex, 1), 0);
	/* With a 1 us spin budget the idle lcore parks on its futex. */
	do {
		assert_int_equal(ewyk_strategy_stats_get(s, &st), 0);
		sched_yield();
	} while (st.parks == 0);
	assert_int_equal(ewyk_strategy_executor_try_execute(ex, gate_job, &g),
		0);
	assert_int_equal(wait_u64(&g.entered, 1, GUARD_S), 0);
	assert_int_equal(g.lcore, WORKER_LCORE);
	/* It is busy in the job: nothing idle, fail at once. */
	assert_int_equal(ewyk_strategy_executor_idle_count(ex), 0);
	assert_int_equal(ewyk_strategy_executor_try_execute(ex, gate_job, &g),
		-EBUSY);
	__atomic_store_n(&g.open, 1, __ATOMIC_RELEASE);
	assert_int_equal(wait_idle_count(ex, 1), 0);
	assert_int_equal(ewyk_strategy_stats_get(s, &st), 0);
	assert_int_equal(st.reserved_total, 1);
	assert_int_equal(st.jobs, 1);
	assert_true(st.wakes >= 1);
	stop_worker(ex);
	assert_int_equal(ewyk_strategy_executor_try_execute(ex, gate_job, &g),
		-ESHUTDOWN);
	ewyk_strategy_free(s);
	ewyk_strategy_executor_free(ex);
}

/* Bounded: PEC ring full is reported, nothing grows, nothing is lost. */

struct cnt {
	uint64_t run[EWYK_STRATEGY_MODE_MAX];
};

static void
cnt_fn(void *arg, enum ewyk_strategy_mode mode)
{
	struct cnt *c = arg;

	__atomic_fetch_add(&c->run[mode], 1, __ATOMIC_RELAXED);
}

static void
test_pec_ring_full(void **state)
{
	struct ewyk_strategy_executor *ex = mk_executor("full", 8, 0);
	struct ewyk_strategy *s = mk_strategy("full", EWYK_STRATEGY_PEC, ex);
	struct ewyk_strategy *sa = mk_strategy("fulla", EWYK_STRATEGY_ADAPTIVE,
		ex);
	struct ewyk_strategy_stats st;
	struct ewyk_strategy_task t[12];
	struct cnt c = { { 0 } };
	struct list_prod lp = { .tasks = t, .n = 12 };
	struct ewyk_strategy_producer_conf pc = { .produce = list_produce,
		.ctx = &lp };
	struct ewyk_strategy_producer *p;
	unsigned int i;

	(void)state;
	for (i = 0; i < 12; i++)
		t[i] = (struct ewyk_strategy_task){ .fn = cnt_fn,
			.arg = &c,
			.invocation = EWYK_STRATEGY_INVOKE_NON_BLOCKING };
	p = ewyk_strategy_producer_create(s, &pc);
	assert_non_null(p);
	assert_int_equal(ewyk_strategy_producer_run(p),
		EWYK_STRATEGY_PRODUCE_IDLE);
	/* 8 queued (exact capacity), 4 told REJECTED (HTTP: 503). */
	assert_int_equal(ewyk_strategy_executor_queued(ex), 8);
	assert_int_equal(c.run[EWYK_STRATEGY_MODE_REJECTED], 4);
	assert_int_equal(c.run[EWYK_STRATEGY_MODE_PEC], 0);
	assert_int_equal(ewyk_strategy_stats_get(s, &st), 0);
	assert_int_equal(st.mode[EWYK_STRATEGY_MODE_PEC], 8);
	assert_int_equal(st.mode[EWYK_STRATEGY_MODE_REJECTED], 4);
	assert_int_equal(st.ring_count, 8);
	assert_int_equal(st.ring_capacity, 8);
	/*
	 * Out of a producer loop the same rule: told REJECTED, here, once
	 * (submit() alone leaves the task to its caller).
	 */
	assert_int_equal(ewyk_strategy_execute(s, &t[0]),
		EWYK_STRATEGY_MODE_REJECTED);
	assert_int_equal(c.run[EWYK_STRATEGY_MODE_REJECTED], 5);
	assert_int_equal(ewyk_strategy_executor_submit(ex, &t[0]), -ENOBUFS);
	t[0].invocation = EWYK_STRATEGY_INVOKE_BLOCKING;
	assert_int_equal(ewyk_strategy_execute(sa, &t[0]),
		EWYK_STRATEGY_MODE_REJECTED);
	t[0].invocation = EWYK_STRATEGY_INVOKE_NON_BLOCKING;
	assert_int_equal(ewyk_strategy_execute(sa, &t[0]),
		EWYK_STRATEGY_MODE_PC);
	assert_int_equal(c.run[EWYK_STRATEGY_MODE_REJECTED], 6);
	assert_int_equal(ewyk_strategy_executor_queued(ex), 8);
	/* Drain: all 8 run in PEC mode. */
	assert_int_equal(ewyk_strategy_executor_run_queued(ex, 100), 8);
	assert_int_equal(c.run[EWYK_STRATEGY_MODE_PEC], 8);
	/* Space again. */
	assert_int_equal(ewyk_strategy_execute(s, &t[0]),
		EWYK_STRATEGY_MODE_PEC);
	assert_int_equal(ewyk_strategy_execute(s, &t[1]),
		EWYK_STRATEGY_MODE_PEC);
	ewyk_strategy_producer_free(p);
	ewyk_strategy_free(s);
	ewyk_strategy_free(sa);
	/* Free with 2 queued: they are told DROPPED, not lost. */
	ewyk_strategy_executor_free(ex);
	assert_int_equal(c.run[EWYK_STRATEGY_MODE_REJECTED], 6);
	assert_int_equal(c.run[EWYK_STRATEGY_MODE_DROPPED], 2);
	assert_int_equal(c.run[EWYK_STRATEGY_MODE_PEC], 8);
}

/* REPRODUCING: work that arrives while the holder looks is not lost. */

struct rp_ctx {
	struct ewyk_strategy_producer *p;
	struct cnt c;
	unsigned int produced, calls;
	int busy_ret;
};

static unsigned int
rp_produce(void *ctx, struct ewyk_strategy_task *out, unsigned int max)
{
	struct rp_ctx *x = ctx;

	(void)max;
	x->calls++;
	if (x->calls == 2) {
		/*
		 * The holder found nothing; before it releases the token,
		 * "another lcore" adds work and calls run(): it must see
		 * the token held, mark it REPRODUCING and return.
		 */
		x->busy_ret = ewyk_strategy_producer_run(x->p);
		return 0;
	}
	if (x->calls == 1 || x->calls == 3) {
		out[0] = (struct ewyk_strategy_task){ .fn = cnt_fn,
			.arg = &x->c };
		x->produced++;
		return 1;
	}
	return 0;
}

static void
test_reproducing(void **state)
{
	struct ewyk_strategy *s = mk_strategy("rp", EWYK_STRATEGY_PC, NULL);
	struct rp_ctx x = { 0 };
	struct ewyk_strategy_producer_conf pc = { .produce = rp_produce,
		.ctx = &x };
	struct ewyk_strategy_stats st;

	(void)state;
	x.p = ewyk_strategy_producer_create(s, &pc);
	assert_non_null(x.p);
	assert_int_equal(ewyk_strategy_producer_state_get(x.p),
		EWYK_STRATEGY_PRODUCER_IDLE);
	assert_int_equal(ewyk_strategy_producer_run(x.p),
		EWYK_STRATEGY_PRODUCE_IDLE);
	assert_int_equal(x.busy_ret, EWYK_STRATEGY_PRODUCE_BUSY);
	assert_int_equal(x.produced, 2);
	assert_int_equal(x.c.run[EWYK_STRATEGY_MODE_PC], 2);
	assert_int_equal(x.calls, 4); /* 2 empty: one re-produce, one idle */
	assert_int_equal(ewyk_strategy_producer_state_get(x.p),
		EWYK_STRATEGY_PRODUCER_IDLE);
	assert_int_equal(ewyk_strategy_stats_get(s, &st), 0);
	assert_int_equal(st.reproduce, 1);
	assert_int_equal(st.idle, 1);
	assert_int_equal(st.produce_calls, 2);
	ewyk_strategy_producer_free(x.p);
	ewyk_strategy_free(s);
}

/* A polled producer keeps the token on empty bursts until stopped. */

struct poll_ctx {
	struct ewyk_strategy_producer *p;
	unsigned int calls;
	int try_ret;
};

static unsigned int
poll_produce(void *ctx, struct ewyk_strategy_task *out, unsigned int max)
{
	struct poll_ctx *x = ctx;

	(void)out;
	(void)max;
	if (++x->calls == 100) {
		x->try_ret = ewyk_strategy_producer_try_run(x->p);
		ewyk_strategy_producer_stop(x->p);
	}
	return 0;
}

static void
test_polling_stop(void **state)
{
	struct ewyk_strategy *s = mk_strategy("poll", EWYK_STRATEGY_PC, NULL);
	struct poll_ctx x = { 0 };
	struct ewyk_strategy_producer_conf pc = { .produce = poll_produce,
		.ctx = &x,
		.idle_polls = EWYK_STRATEGY_PRODUCER_POLL_FOREVER };
	struct ewyk_strategy_producer_conf bad = { .produce = NULL };

	(void)state;
	assert_null(ewyk_strategy_producer_create(s, &bad));
	assert_int_equal(rte_errno, EINVAL);
	x.p = ewyk_strategy_producer_create(s, &pc);
	assert_non_null(x.p);
	assert_int_equal(ewyk_strategy_producer_run(x.p),
		EWYK_STRATEGY_PRODUCE_STOPPED);
	assert_int_equal(x.calls, 100);
	/* try_run while held: BUSY without marking REPRODUCING. */
	assert_int_equal(x.try_ret, EWYK_STRATEGY_PRODUCE_BUSY);
	assert_int_equal(ewyk_strategy_producer_resume(x.p), 0);
	ewyk_strategy_producer_free(x.p);
	ewyk_strategy_free(s);
}

/* Chaining: a producer run inside a PC task never hands production off. */

struct chain_ctx {
	struct ewyk_strategy *inner;
	struct rec rb, re;
};

static void
chain_outer_fn(void *arg, enum ewyk_strategy_mode mode)
{
	struct chain_ctx *x = arg;
	struct ewyk_strategy_task t[2] = {
		{ .fn = rec_fn,
			.arg = &x->rb,
			.invocation = EWYK_STRATEGY_INVOKE_BLOCKING },
		{ .fn = rec_fn,
			.arg = &x->re,
			.invocation = EWYK_STRATEGY_INVOKE_EITHER },
	};
	struct list_prod lp = { .tasks = t, .n = 2 };
	struct ewyk_strategy_producer_conf pc = { .produce = list_produce,
		.ctx = &lp };
	struct ewyk_strategy_producer *p =
		ewyk_strategy_producer_create(x->inner, &pc);

	assert_int_equal(mode, EWYK_STRATEGY_MODE_PC);
	assert_int_equal(ewyk_strategy_current_mode(), EWYK_STRATEGY_MODE_PC);
	assert_non_null(p);
	assert_int_equal(ewyk_strategy_producer_run(p),
		EWYK_STRATEGY_PRODUCE_IDLE);
	ewyk_strategy_producer_free(p);
	assert_int_equal(ewyk_strategy_current_mode(), EWYK_STRATEGY_MODE_PC);
}

static void
test_chaining(void **state)
{
	struct ewyk_strategy_executor *ex = mk_executor("chain", 16, 0);
	struct ewyk_strategy *outer = mk_strategy("chain_o",
		EWYK_STRATEGY_ADAPTIVE, ex);
	struct chain_ctx x = { 0 };
	struct ewyk_strategy_task t = { .fn = chain_outer_fn,
		.arg = &x,
		.invocation = EWYK_STRATEGY_INVOKE_NON_BLOCKING };
	struct list_prod lp = { .tasks = &t, .n = 1 };
	struct ewyk_strategy_producer_conf pc = { .produce = list_produce,
		.ctx = &lp };
	struct ewyk_strategy_producer *p;

	(void)state;
	x.inner = mk_strategy("chain_i", EWYK_STRATEGY_ADAPTIVE, ex);
	serve_on_worker(ex);
	assert_int_equal(wait_idle_count(ex, 1), 0);
	assert_int_equal(ewyk_strategy_current_mode(), -1);
	p = ewyk_strategy_producer_create(outer, &pc);
	assert_non_null(p);
	assert_int_equal(ewyk_strategy_producer_run(p),
		EWYK_STRATEGY_PRODUCE_IDLE);
	/* A reserved lcore was idle, yet: BLOCKING -> PEC, EITHER -> PIC. */
	assert_int_equal(wait_u64(&x.rb.runs, 1, GUARD_S), 0);
	assert_int_equal(x.rb.mode, EWYK_STRATEGY_MODE_PEC);
	assert_int_equal(x.rb.lcore, WORKER_LCORE);
	assert_int_equal(x.re.runs, 1);
	assert_int_equal(x.re.mode, EWYK_STRATEGY_MODE_PIC);
	assert_int_equal(x.re.lcore, rte_lcore_id());
	assert_int_equal(ewyk_strategy_current_mode(), -1);
	stop_worker(ex);
	ewyk_strategy_producer_free(p);
	ewyk_strategy_free(x.inner);
	ewyk_strategy_free(outer);
	ewyk_strategy_executor_free(ex);
}

/*
 * A producer nested in produce() itself (a connection yielding pipelined
 * requests while the shard is polled): its BLOCKING task must not run on
 * the token holder (EPC there would stall the shard), even with a reserved
 * lcore idle. Before produce() ran in a non-blocking mode, the nested
 * ADAPTIVE producer saw mode -1 and picked EPC on the holder.
 */
struct nest_ctx {
	struct ewyk_strategy *inner;
	int done;
	int cur_mode; /* ewyk_strategy_current_mode() inside produce() */
	struct rec rb;
};

static unsigned int
nest_produce(void *ctx, struct ewyk_strategy_task *out, unsigned int max)
{
	struct nest_ctx *x = ctx;
	struct ewyk_strategy_task t = { .fn = rec_fn,
		.arg = &x->rb,
		.invocation = EWYK_STRATEGY_INVOKE_BLOCKING };
	struct list_prod lp = { .tasks = &t, .n = 1 };
	struct ewyk_strategy_producer_conf pc = { .produce = list_produce,
		.ctx = &lp };
	struct ewyk_strategy_producer *p;

	(void)out;
	(void)max;
	if (x->done)
		return 0;
	x->done = 1;
	x->cur_mode = ewyk_strategy_current_mode();
	p = ewyk_strategy_producer_create(x->inner, &pc);
	assert_non_null(p);
	assert_int_equal(ewyk_strategy_producer_run(p),
		EWYK_STRATEGY_PRODUCE_IDLE);
	ewyk_strategy_producer_free(p);
	return 0;
}

static void
test_nested_in_produce(void **state)
{
	struct ewyk_strategy_executor *ex = mk_executor("nest", 16, 0);
	struct ewyk_strategy *outer = mk_strategy("nest_o",
		EWYK_STRATEGY_ADAPTIVE, ex);
	struct nest_ctx x = { 0 };
	struct ewyk_strategy_producer_conf pc = { .produce = nest_produce,
		.ctx = &x };
	struct ewyk_strategy_producer *p;

	(void)state;
	x.inner = mk_strategy("nest_i", EWYK_STRATEGY_ADAPTIVE, ex);
	serve_on_worker(ex);
	assert_int_equal(wait_idle_count(ex, 1), 0);
	p = ewyk_strategy_producer_create(outer, &pc);
	assert_non_null(p);
	assert_int_equal(ewyk_strategy_producer_run(p),
		EWYK_STRATEGY_PRODUCE_IDLE);
	assert_int_equal(x.cur_mode, EWYK_STRATEGY_MODE_PC);
	/* Queued for the reserved lcore, never run here in EPC mode. */
	assert_int_equal(wait_u64(&x.rb.runs, 1, GUARD_S), 0);
	assert_int_equal(x.rb.mode, EWYK_STRATEGY_MODE_PEC);
	assert_int_equal(x.rb.lcore, WORKER_LCORE);
	assert_int_equal(ewyk_strategy_current_mode(), -1);
	stop_worker(ex);
	ewyk_strategy_producer_free(p);
	ewyk_strategy_free(x.inner);
	ewyk_strategy_free(outer);
	ewyk_strategy_executor_free(ex);
}

/* Production returns home: EPC moves it away, home idles, it comes back. */

struct home_ctx {
	struct ewyk_strategy_executor *ex;
	uint32_t quit;
	uint64_t away_calls; /* produce calls not on home */
	unsigned int home;
	int phase; /* 0: yield the blocking task, 1: after */
	struct rec rb;
};

static void
home_block_fn(void *arg, enum ewyk_strategy_mode mode)
{
	struct home_ctx *x = arg;

	x->rb.mode = (int)mode;
	x->rb.lcore = rte_lcore_id();
	/* Block until production has run elsewhere for a while. */
	while (__atomic_load_n(&x->away_calls, __ATOMIC_ACQUIRE) < 3)
		sched_yield();
}

static void
nop_fn(void *arg, enum ewyk_strategy_mode mode)
{
	(void)arg;
	(void)mode;
}

static unsigned int
home_produce(void *ctx, struct ewyk_strategy_task *out, unsigned int max)
{
	struct home_ctx *x = ctx;

	(void)max;
	if (x->phase == 0) {
		x->phase = 1;
		out[0] = (struct ewyk_strategy_task){ .fn = home_block_fn,
			.arg = x,
			.invocation = EWYK_STRATEGY_INVOKE_BLOCKING };
		return 1;
	}
	if (rte_lcore_id() == x->home) {
		/* Back home: done. */
		__atomic_store_n(&x->quit, 1, __ATOMIC_RELEASE);
		return 0;
	}
	__atomic_fetch_add(&x->away_calls, 1, __ATOMIC_RELEASE);
	out[0] = (struct ewyk_strategy_task){ .fn = nop_fn,
		.invocation = EWYK_STRATEGY_INVOKE_NON_BLOCKING };
	return 1;
}

static void
test_homecoming(void **state)
{
	struct home_ctx x = { .home = rte_lcore_id() };
	struct ewyk_strategy *s;
	struct ewyk_strategy_stats st;
	struct ewyk_strategy_producer_conf pc = { .produce = home_produce,
		.ctx = &x,
		.burst = 1,
		.flags = EWYK_STRATEGY_PRODUCER_F_HOME,
		.home_lcore = rte_lcore_id() };
	struct ewyk_strategy_producer_conf bad = pc;
	struct ewyk_strategy_producer *p;

	(void)state;
	x.ex = mk_executor("home", 16, 0);
	s = mk_strategy("home", EWYK_STRATEGY_ADAPTIVE, x.ex);
	bad.home_lcore = RTE_MAX_LCORE;
	assert_null(ewyk_strategy_producer_create(s, &bad));
	p = ewyk_strategy_producer_create(s, &pc);
	assert_non_null(p);
	/* Home has no slot yet: never goes home, no harm. */
	assert_int_equal(ewyk_strategy_executor_try_execute_on(x.ex, x.home,
				 nop_job, NULL),
		-EBUSY);
	serve_on_worker(x.ex);
	assert_int_equal(wait_idle_count(x.ex, 1), 0);
	/* Blocking task: EPC, production to lcore 1 while we block. */
	assert_int_equal(ewyk_strategy_producer_run(p),
		EWYK_STRATEGY_PRODUCE_HANDED_OFF);
	assert_int_equal(x.rb.mode, EWYK_STRATEGY_MODE_EPC);
	/* Idle here: lcore 1 hands production back between two bursts. */
	assert_int_equal(ewyk_strategy_executor_serve_opt(x.ex, &x.quit,
				 EWYK_STRATEGY_SERVE_NO_RING),
		0);
	assert_int_equal(wait_producer_idle(p), 0);
	assert_true(x.away_calls >= 3);
	/* lcore 1 counts the homecoming after handing over: wait for it. */
	do {
		assert_int_equal(ewyk_strategy_stats_get(s, &st), 0);
		sched_yield();
	} while (st.homecomings == 0);
	assert_int_equal(st.handoffs, 1);
	assert_int_equal(st.homecomings, 1);
	stop_worker(x.ex);
	ewyk_strategy_producer_free(p);
	ewyk_strategy_free(s);
	ewyk_strategy_executor_free(x.ex);
}

/*
 * The scenario: 1 reserved lcore, 2 shards. Shard 0's long BLOCKING
 * task goes EPC (the reserved lcore R takes shard 0's token and polls it);
 * shard 1's BLOCKING task, produced meanwhile on W1, finds no idle reserved
 * lcore and is queued (PEC). It must start on the first lcore that becomes
 * free: W0 when its EPC task returns (W1 keeps polling its shard), or W1
 * itself when its producer releases the token with F_SERVE_RING. Before,
 * only a reserved lcore holding no token read the ring: the task waited
 * for production to come home to W0 and R to return to the executor.
 * The queueing delay is printed (not asserted: the machine is shared).
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

static void
test_pec_first_free(void **state)
{
	(void)state;
	ff_run(0);
	ff_run(1);
}

/* A queued task whose deadline passed is not started: DROPPED, counted. */
static void
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

static void
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
static void
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

static void
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

static void
test_create_errors(void **state)
{
	struct ewyk_strategy_executor_conf ec = { .name = NULL };
	struct ewyk_strategy_conf sc = { .name = "e",
		.kind = EWYK_STRATEGY_PEC };
	struct ewyk_strategy_executor *ex;
	struct ewyk_strategy *s;

	(void)state;
	assert_null(ewyk_strategy_executor_create(&ec));
	assert_int_equal(rte_errno, EINVAL);
	ec.name = "this-name-is-far-too-long-for-a-ring";
	assert_null(ewyk_strategy_executor_create(&ec));
	assert_int_equal(rte_errno, EINVAL);
	assert_null(ewyk_strategy_create(&sc)); /* PEC without executor */
	assert_int_equal(rte_errno, EINVAL);
	ex = mk_executor("dup", 16, 0);
	ec.name = "dup";
	assert_null(ewyk_strategy_executor_create(&ec));
	assert_int_equal(rte_errno, EEXIST);
	s = mk_strategy("dup", EWYK_STRATEGY_PC, NULL);
	sc.kind = EWYK_STRATEGY_PC;
	sc.name = "dup";
	assert_null(ewyk_strategy_create(&sc));
	assert_int_equal(rte_errno, EEXIST);
	assert_ptr_equal(ewyk_strategy_lookup("dup"), s);
	assert_null(ewyk_strategy_lookup("nope"));
	assert_int_equal(rte_errno, ENOENT);
	{ /* its Prometheus samples, labelled by name */
		static char buf[65536];
		int n = ewyk_strategy_prometheus(buf, sizeof(buf));

		assert_true(n > 0 && n < (int)sizeof(buf));
		assert_non_null(strstr(buf,
			"ewyk_strategy_handoffs_total{name=\"dup\"} 0\n"));
#ifdef EWYK_PROMTOOL
		assert_int_equal(ewyk_test_promtool_check(buf), 0);
#endif
	}
	assert_int_equal(ewyk_strategy_kind_get(s), EWYK_STRATEGY_PC);
	assert_true(ewyk_strategy_executor_default_reserved() >= 1);
	assert_int_equal(ewyk_strategy_executor_serve(NULL, NULL), -EINVAL);
	ewyk_strategy_free(s);
	ewyk_strategy_executor_free(ex);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_decide_table),
		cmocka_unit_test(test_create_errors),
		cmocka_unit_test(test_live_pc),
		cmocka_unit_test(test_live_pec),
		cmocka_unit_test(test_live_epc),
		cmocka_unit_test(test_live_adaptive),
		cmocka_unit_test(test_try_execute),
		cmocka_unit_test(test_pec_ring_full),
		cmocka_unit_test(test_reproducing),
		cmocka_unit_test(test_polling_stop),
		cmocka_unit_test(test_chaining),
		cmocka_unit_test(test_nested_in_produce),
		cmocka_unit_test(test_homecoming),
		cmocka_unit_test(test_pec_first_free),
		cmocka_unit_test(test_pec_deadline),
		cmocka_unit_test(test_depart_hook),
		cmocka_unit_test(test_spin_keep),
		cmocka_unit_test(test_serve_no_ring),
		cmocka_unit_test(test_exactly_once_pc),
		cmocka_unit_test(test_exactly_once_pec),
		cmocka_unit_test(test_exactly_once_epc),
		cmocka_unit_test(test_exactly_once_adaptive),
		cmocka_unit_test(test_no_starvation_adaptive),
		cmocka_unit_test(test_starvation_shape_pc),
	};

	if (ewyk_test_eal_init(argc, argv) < 0)
		return 1;
	if (rte_lcore_count() < 2) {
		fprintf(stderr, "test_strategy needs 2 lcores\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
