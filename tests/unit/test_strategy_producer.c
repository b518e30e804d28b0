/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/strategy's producer token: REPRODUCING (work arriving while the
 * holder looks is not lost), polling stop, chaining, a task that produces
 * again from inside produce(), and production coming home after a
 * hand-off. Run by test_strategy.c's main.
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

void
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

void
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

void
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

void
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

void
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
