/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the lib/twheel unit tests (test_twheel.c and the test_twheel_*.c
 * files its main runs) share. Time is synthetic: the tests pass their own
 * "TSC" values, with tick_shift SHIFT (1024 cycles per tick), starting at
 * START.
 */

#ifndef EWYK_TEST_TWHEEL_UTIL_H
#define EWYK_TEST_TWHEEL_UTIL_H

#include <stdint.h>

#include <ewyk_twheel.h>

#define SHIFT 10
#define T (UINT64_C(1) << SHIFT)
#define START (UINT64_C(1) << 40) /* a non-trivial start time */

/* A wheel with this slack_shift; the test fails on NULL. */
struct ewyk_twheel *mk_wheel_slack(const char *name, unsigned int slack);
/* An exact wheel (fires within one tick). */
struct ewyk_twheel *mk_wheel(const char *name);

/* A timer that records its firing (rec_cb() with the struct rec as arg). */
struct rec {
	struct ewyk_twheel_timer tm;
	uint64_t expiry; /* what the test asked for */
	unsigned int fired;
	uint64_t fired_at;
};

void rec_cb(struct ewyk_twheel *w, struct ewyk_twheel_timer *t, void *arg);

/* Test cases of the other files, run by test_twheel.c's main. */
/* test_twheel_firing.c */
void test_never_early_one_tick_late(void **state);
void test_slack_bound(void **state);
void test_due_by_slack(void **state);
void test_due_bound(void **state);
void test_callbacks_touch_timers(void **state);
void test_long_stall(void **state);
void test_far_future(void **state);
void test_callback_cap(void **state);
/* test_twheel_model.c */
void test_model_random(void **state);
void test_model_random_slack(void **state);
void test_model_random_capped(void **state);

#endif /* EWYK_TEST_TWHEEL_UTIL_H */
