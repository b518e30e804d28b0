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
		cmocka_unit_test(test_serve_ring_only),
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
