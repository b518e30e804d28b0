/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lib/twheel: API contract, the timing guarantee (never
 * early, at most one tick late), callbacks that touch timers, stalls,
 * the callback cap, and a randomized model test against a reference heap.
 *
 * Time is synthetic: the tests pass their own "TSC" values, with
 * tick_shift 10 (1024 cycles per tick).
 *
 * This file: the API contract and the recorded holder. Its main also runs
 * test_twheel_firing.c (the timing guarantee, callbacks, stalls, the
 * cap) and test_twheel_model.c (the randomized model test); what they
 * share is in twheel_test_util.h.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_memory.h>

#include <ewyk_twheel.h>

#include "test_common.h"
#include "twheel_test_util.h"

static void
test_params(void **state)
{
	struct ewyk_twheel_params p = { .name = "tw_params", .tick_shift = 3 };
	struct ewyk_twheel *w, *w2;
	struct ewyk_twheel inplace;

	(void)state;
	assert_int_equal(sizeof(struct ewyk_twheel_timer), 32);
	assert_null(ewyk_twheel_create(NULL));
	assert_int_equal(rte_errno, EINVAL);
	assert_null(ewyk_twheel_create(&p)); /* shift too small */
	assert_int_equal(rte_errno, EINVAL);
	p.tick_shift = 0;
	p.name = "this_name_is_far_too_long_for_a_wheel";
	assert_null(ewyk_twheel_create(&p));
	assert_int_equal(rte_errno, EINVAL);
	p.name = "tw_params";
	p.socket_id = SOCKET_ID_ANY;
	p.slack_shift = EWYK_TWHEEL_MAX_SLACK + 1;
	assert_null(ewyk_twheel_create(&p));
	assert_int_equal(rte_errno, EINVAL);
	p.slack_shift = 0;
	w = ewyk_twheel_create(&p); /* default tick */
	assert_non_null(w);
	assert_true(ewyk_twheel_tick_cycles(w) * 1000000 >= rte_get_tsc_hz());
	assert_true(ewyk_twheel_tick_cycles(w) * 500000 <= rte_get_tsc_hz() ||
		ewyk_twheel_tick_cycles(w) == (1u << EWYK_TWHEEL_MIN_SHIFT));
	w2 = ewyk_twheel_create(&p);
	assert_null(w2);
	assert_int_equal(rte_errno, EEXIST);
	assert_int_equal(ewyk_twheel_count(w), 0);
	assert_int_equal(ewyk_twheel_next_expiry(w), UINT64_MAX);
	{ /* its Prometheus samples, labelled by name */
		char buf[8192];
		int n = ewyk_twheel_prometheus(NULL, 0);

		assert_true(n > 0 && n < (int)sizeof(buf));
		assert_int_equal(ewyk_twheel_prometheus(buf, sizeof(buf)), n);
		assert_non_null(strstr(buf,
			"ewyk_twheel_armed_total{name=\"tw_params\"} 0\n"));
		assert_non_null(
			strstr(buf, "# TYPE ewyk_twheel_pending gauge\n"));
#ifdef EWYK_PROMTOOL
		assert_int_equal(ewyk_test_promtool_check(buf), 0);
#endif
	}
	ewyk_twheel_free(w);
	w = ewyk_twheel_create(&p); /* name free again */
	assert_non_null(w);
	ewyk_twheel_free(w);
	ewyk_twheel_free(NULL);

	/* in place, unnamed */
	p.name = NULL;
	p.tick_shift = SHIFT;
	p.start_tsc = START;
	assert_int_equal(ewyk_twheel_init(&inplace, &p), 0);
	assert_int_equal(ewyk_twheel_init(NULL, &p), -EINVAL);
	assert_int_equal(ewyk_twheel_count(&inplace), 0);
	ewyk_twheel_free(&inplace);
}

static void
test_arm_cancel_errors(void **state)
{
	struct ewyk_twheel *w = mk_wheel("tw_err");
	struct ewyk_twheel_timer t;
	struct ewyk_twheel_stats st;
	int x;

	(void)state;
	ewyk_twheel_timer_init(&t);
	assert_false(ewyk_twheel_pending(&t));
	assert_int_equal(ewyk_twheel_arm(w, &t, START + 10 * T, NULL, NULL),
		-EINVAL);
	assert_int_equal(ewyk_twheel_arm(NULL, &t, START, rec_cb, NULL),
		-EINVAL);
	assert_int_equal(ewyk_twheel_rearm(w, &t, START + T), -EINVAL);
	assert_int_equal(ewyk_twheel_cancel(w, &t), -ENOENT);
	assert_true(ewyk_twheel_due_by(w, &t) == UINT64_MAX);
	assert_int_equal(ewyk_twheel_arm(w, &t, START + 10 * T, rec_cb, &x), 0);
	assert_true(ewyk_twheel_pending(&t));
	assert_int_equal(ewyk_twheel_count(w), 1);
	assert_int_equal(ewyk_twheel_timer_expiry(w, &t), START + 10 * T);
	/* it comes up at its expiry at the latest, also once moved later */
	assert_int_equal(ewyk_twheel_due_by(w, &t), START + 10 * T);
	assert_int_equal(ewyk_twheel_rearm(w, &t, START + 12 * T), 0);
	assert_int_equal(ewyk_twheel_due_by(w, &t), START + 12 * T);
	/* arm on a pending timer moves it */
	assert_int_equal(ewyk_twheel_arm(w, &t, START + 5 * T, rec_cb, &x), 0);
	assert_int_equal(ewyk_twheel_count(w), 1);
	assert_int_equal(ewyk_twheel_next_expiry(w), START + 5 * T);
	assert_int_equal(ewyk_twheel_cancel(w, &t), 0);
	assert_int_equal(ewyk_twheel_cancel(w, &t), -ENOENT);
	assert_false(ewyk_twheel_pending(&t));
	assert_true(ewyk_twheel_due_by(w, &t) == UINT64_MAX);
	assert_int_equal(ewyk_twheel_count(w), 0);
	/* rearm of an idle, once-armed timer arms it again */
	assert_int_equal(ewyk_twheel_rearm(w, &t, START + 3 * T), 0);
	assert_true(ewyk_twheel_pending(&t));
	assert_int_equal(ewyk_twheel_stats_get(w, &st), 0);
	assert_int_equal(st.armed, 2);
	assert_int_equal(st.rearmed, 2);
	assert_int_equal(st.cancelled, 1);
	assert_int_equal(st.pending, 1);
	assert_int_equal(ewyk_twheel_stats_get(w, NULL), -EINVAL);
	/* free leaves pending timers idle */
	ewyk_twheel_free(w);
	assert_false(ewyk_twheel_pending(&t));
}

static void
test_callback_table_full(void **state)
{
	struct ewyk_twheel *w = mk_wheel("tw_cbfull");
	struct ewyk_twheel_timer t;
	unsigned int i;
	int ret = 0;

	(void)state;
	ewyk_twheel_timer_init(&t);
	/* distinct function pointers: step through rec_cb's code bytes is not
	 * portable, so use a table of distinct addresses cast from data.
	 * The wheel only compares and stores them; none is ever called.
	 */
	for (i = 0; i <= EWYK_TWHEEL_MAX_CBS && ret == 0; i++) {
		ewyk_twheel_cb_t cb = (ewyk_twheel_cb_t)(uintptr_t)(0x1000 + i);

		ret = ewyk_twheel_arm(w, &t, START + 1000 * T, cb, NULL);
	}
	assert_int_equal(ret, -ENOSPC);
	assert_int_equal(i, EWYK_TWHEEL_MAX_CBS + 1);
	assert_int_equal(ewyk_twheel_cancel(w, &t), 0);
	ewyk_twheel_free(w);
}

/*
 * The recorded holder: a wheel nobody held is unchecked; once held, only
 * the holding lcore passes the owner-only assertions; released, nobody.
 */
static void
test_holder(void **state)
{
	struct ewyk_twheel *w;

	(void)state;
	w = ewyk_twheel_create(
		&(struct ewyk_twheel_params){ .name = "tw_holder",
			.socket_id = SOCKET_ID_ANY });
	assert_non_null(w);
	assert_true(ewyk_twheel_held_here(w));
	ewyk_twheel_hold(w);
	assert_true(ewyk_twheel_held_here(w));
	w->holder = rte_lcore_id() + 2; /* as if another lcore held it */
	assert_false(ewyk_twheel_held_here(w));
	ewyk_twheel_hold(w);
	assert_true(ewyk_twheel_held_here(w));
	ewyk_twheel_release(w);
	assert_false(ewyk_twheel_held_here(w));
	ewyk_twheel_free(w);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_holder),
		cmocka_unit_test(test_arm_cancel_errors),
		cmocka_unit_test(test_callback_table_full),
		cmocka_unit_test(test_never_early_one_tick_late),
		cmocka_unit_test(test_slack_bound),
		cmocka_unit_test(test_due_by_slack),
		cmocka_unit_test(test_due_bound),
		cmocka_unit_test(test_callbacks_touch_timers),
		cmocka_unit_test(test_long_stall),
		cmocka_unit_test(test_far_future),
		cmocka_unit_test(test_callback_cap),
		cmocka_unit_test(test_model_random),
		cmocka_unit_test(test_model_random_slack),
		cmocka_unit_test(test_model_random_capped),
	};

	if (ewyk_test_eal_init(argc, argv) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
