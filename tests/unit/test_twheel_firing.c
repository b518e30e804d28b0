/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/twheel firing: the timing guarantee (never early, at most one tick
 * late; within the slack bound on a slack wheel), callbacks that re-arm
 * and cancel timers, a long stall caught up, expiries beyond the wheel's
 * range, and the per-call callback cap. Run by test_twheel.c's main.
 *
 * Time is synthetic (twheel_test_util.h).
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

/* Exact firing tick for every expiry offset in a few ticks around a
 * boundary, and for each level's range.
 */
void
test_never_early_one_tick_late(void **state)
{
	static const uint64_t delays[] = {
		0,
		1,
		T - 1,
		T,
		T + 1,
		63 * T,
		64 * T,
		64 * T + 1,
		4095 * T,
		4096 * T + 17,
		262144 * T - 1,
		262145 * T,
		(1ull << 24) * T + 5,
		(1ull << 30) * T + 3,
		(1ull << 36) * T - 1,
		(1ull << 41) * T,
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(delays); i++) {
		struct ewyk_twheel *w = mk_wheel("tw_exact");
		struct rec r = { .fired = 0 };
		uint64_t e = START + 5 + delays[i];
		uint64_t due = RTE_MAX((e + T - 1) / T, START / T + 1) * T;
		uint64_t now = START;

		ewyk_twheel_timer_init(&r.tm);
		assert_int_equal(ewyk_twheel_arm(w, &r.tm, e, rec_cb, &r), 0);
		assert_true(ewyk_twheel_next_expiry(w) <= due);
		/* walk up to just before due in big uneven steps */
		while (now + 1 < due) {
			uint64_t step = (due - now) / 3 + 1;

			now += step < due - now - 1 ? step : due - now - 1;
			ewyk_twheel_advance(w, now, 0);
			assert_int_equal(r.fired, 0);
		}
		assert_int_equal(ewyk_twheel_advance(w, due, 0), 1);
		assert_int_equal(r.fired, 1);
		assert_true(r.fired_at >= e);
		assert_true(r.fired_at - e < T);
		assert_int_equal(ewyk_twheel_count(w), 0);
		assert_int_equal(ewyk_twheel_next_expiry(w), UINT64_MAX);
		ewyk_twheel_free(w);
	}
}

/*
 * With slack k, a timer with due tick x armed at tick c fires at a tick in
 * [x, x + ((x - c) >> k)], and far timers skip the cascades.
 */
void
test_slack_bound(void **state)
{
	static const unsigned int ks[] = { 1, 3, 6 };
	uint64_t cascades = 0;
	unsigned int i, j;

	(void)state;
	for (j = 0; j < RTE_DIM(ks); j++) {
		for (i = 0; i < 1000; i++) {
			struct ewyk_twheel *w = mk_wheel_slack("tw_slack",
				ks[j]);
			struct ewyk_twheel_stats st;
			struct rec r = { .fired = 0 };
			uint64_t d = ((((uint64_t)rand() << 31) | rand()) %
					     (UINT64_C(1) << (10 + i % 32))) +
				1;
			uint64_t e = START + d;
			uint64_t x = RTE_MAX((e + T - 1) / T, START / T + 1);
			uint64_t late = (x - START / T) >> ks[j];
			uint64_t now = START;

			ewyk_twheel_timer_init(&r.tm);
			assert_int_equal(ewyk_twheel_arm(w, &r.tm, e, rec_cb,
						 &r),
				0);
			/* jump to just before the due tick, then tick by tick
			 * (or in 1/64 steps of the allowed lateness)
			 */
			ewyk_twheel_advance(w, x * T - 1, 0);
			assert_int_equal(r.fired, 0);
			now = x * T;
			for (;;) {
				if (now > (x + late) * T)
					now = (x + late) * T;
				ewyk_twheel_advance(w, now, 0);
				if (r.fired != 0 || now == (x + late) * T)
					break;
				now += T * (late / 64 + 1);
			}
			assert_int_equal(r.fired, 1);
			assert_true(r.fired_at >= e);
			assert_true(r.fired_at <= (x + late) * T);
			ewyk_twheel_stats_get(w, &st);
			cascades += st.cascaded;
			ewyk_twheel_free(w);
		}
	}
	print_message("slack: %" PRIu64 " cascades for %u timers\n", cascades,
		(unsigned int)(1000 * RTE_DIM(ks)));
}

/*
 * ewyk_twheel_due_by() on nodes slack placed in a later slot, moved later
 * (rearm keeps the slot) or not: never before the expiry, never past the
 * slack bound, and the node has come up once the wheel reaches it.
 */
void
test_due_by_slack(void **state)
{
	static const unsigned int ks[] = { 1, 3, 6 };
	unsigned int i, j, placed = 0;

	(void)state;
	for (j = 0; j < RTE_DIM(ks); j++) {
		for (i = 0; i < 1000; i++) {
			struct ewyk_twheel *w = mk_wheel_slack("tw_dueby",
				ks[j]);
			struct rec r = { .fired = 0 };
			uint64_t d = ((((uint64_t)rand() << 31) | rand()) %
					     (UINT64_C(1) << (10 + i % 32))) +
				1;
			uint64_t e = START + d, due;
			uint64_t x = RTE_MAX((e + T - 1) / T, START / T + 1);
			uint64_t late = (x - START / T) >> ks[j];

			ewyk_twheel_timer_init(&r.tm);
			assert_int_equal(ewyk_twheel_arm(w, &r.tm, e, rec_cb,
						 &r),
				0);
			if (i % 2 == 1) {
				/* later within the slack: rearm only stores */
				e += d / 4;
				x = RTE_MAX((e + T - 1) / T, START / T + 1);
				assert_int_equal(ewyk_twheel_rearm(w, &r.tm, e),
					0);
			}
			due = ewyk_twheel_due_by(w, &r.tm);
			assert_true(due >= e);
			assert_true(due <= (x + late) * T);
			placed += due > x * T;
			ewyk_twheel_advance(w, due, 0);
			assert_int_equal(r.fired, 1);
			assert_true(r.fired_at >= e);
			ewyk_twheel_free(w);
		}
	}
	/* the slack placement was exercised, not only exact slots */
	assert_true(placed > 0);
}

/*
 * ewyk_twheel_due_bound(), taken before an arm or re-arm, bounds
 * ewyk_twheel_due_by() of the node after it and after every later
 * cascade: the check lib/tcp makes on each send while its parked
 * retransmission node carries the idle timer. Two edges by
 * construction, then random walks.
 */
static uint64_t
bound_rearm(struct ewyk_twheel *w, struct rec *r, uint64_t e)
{
	uint64_t b = ewyk_twheel_due_bound(w, e);

	assert_int_equal(ewyk_twheel_rearm(w, &r->tm, e), 0);
	r->expiry = e;
	assert_true(ewyk_twheel_due_by(w, &r->tm) <= b);
	assert_true(ewyk_twheel_due_by(w, &r->tm) >= e);
	return b;
}

void
test_due_bound(void **state)
{
	static const unsigned int ks[] = { EWYK_TWHEEL_SLACK_EXACT, 1, 3, 6 };
	const uint64_t c = START / T; /* a multiple of 2^30 ticks */
	struct ewyk_twheel *w;
	struct rec r = { .fired = 0 };
	uint64_t b, due, s;
	unsigned int i, j, kept = 0;

	(void)state;
	/* 1: a node slack put in a later slot, moved later within that
	 * slot's rounding, keeps it: due_by is the first slot's start. */
	w = mk_wheel_slack("tw_bound1", 3);
	ewyk_twheel_timer_init(&r.tm);
	b = ewyk_twheel_due_bound(w, (c + 8096) * T);
	assert_int_equal(ewyk_twheel_arm(w, &r.tm, (c + 8096) * T, rec_cb, &r),
		0);
	s = ewyk_twheel_due_by(w, &r.tm);
	assert_true(s == (c + 8192) * T && s <= b);
	ewyk_twheel_advance(w, (c + 4096) * T, 0);
	bound_rearm(w, &r, (c + 8100) * T);
	assert_int_equal(ewyk_twheel_due_by(w, &r.tm), s); /* kept */
	ewyk_twheel_free(w);

	/* 2: a node moved later in a slot that starts before its expiry
	 * (only the new tick is stored) is placed again when that slot
	 * comes up, then with slack: later than due_by said at the re-arm,
	 * within the bound taken then. */
	w = mk_wheel_slack("tw_bound2", 3);
	ewyk_twheel_timer_init(&r.tm);
	assert_int_equal(ewyk_twheel_arm(w, &r.tm, (c + 100) * T, rec_cb, &r),
		0);
	b = bound_rearm(w, &r, (c + 4000) * T);
	due = ewyk_twheel_due_by(w, &r.tm);
	assert_int_equal(due, (c + 4000) * T);
	ewyk_twheel_advance(w, (c + 64) * T, 0);
	assert_int_equal(r.fired, 0);
	assert_true(ewyk_twheel_due_by(w, &r.tm) > due);
	assert_true(ewyk_twheel_due_by(w, &r.tm) <= b);
	ewyk_twheel_free(w);

	/* 3: random walks of arms, re-arms (later, earlier) and advances on
	 * exact and slack wheels; after each advance the node, if it has
	 * not come up, is still due within the last bound. */
	for (j = 0; j < RTE_DIM(ks); j++) {
		uint64_t now = START;

		w = mk_wheel_slack("tw_bound3", ks[j]);
		r.fired = 0;
		ewyk_twheel_timer_init(&r.tm);
		b = ewyk_twheel_due_bound(w, now + 1000 * T);
		r.expiry = now + 1000 * T;
		assert_int_equal(ewyk_twheel_arm(w, &r.tm, now + 1000 * T,
					 rec_cb, &r),
			0);
		for (i = 0; i < 20000; i++) {
			uint64_t d = ((((uint64_t)rand() << 31) | rand()) %
					     (UINT64_C(1) << (4 + i % 28))) +
				1;

			switch (rand() % 4) {
			case 0: /* advance a little or a lot */
				now += d / (1 + rand() % 16);
				ewyk_twheel_advance(w, now, 0);
				break;
			case 1: /* later than the node's expiry */
				b = bound_rearm(w, &r,
					RTE_MAX(ewyk_twheel_timer_expiry(w,
							&r.tm),
						now) +
						d / 8);
				break;
			default: /* anywhere from now */
				b = bound_rearm(w, &r, now + d);
				break;
			}
			if (!ewyk_twheel_pending(&r.tm)) {
				/* it came up: never before its expiry */
				assert_true(r.fired_at >= r.expiry);
				b = bound_rearm(w, &r, now + d);
				continue;
			}
			due = ewyk_twheel_due_by(w, &r.tm);
			assert_true(due <= b);
			if (ks[j] != EWYK_TWHEEL_SLACK_EXACT &&
				due > ewyk_twheel_timer_expiry(w, &r.tm))
				kept++;
		}
		ewyk_twheel_free(w);
	}
	/* slots rounded up by slack were met, not only exact ones */
	assert_true(kept > 0);
}

/* Callbacks that re-arm themselves, cancel and re-arm others. */
struct chain {
	struct ewyk_twheel_timer tm[4];
	unsigned int fired[4];
};

static void
chain_cb(struct ewyk_twheel *w, struct ewyk_twheel_timer *t, void *arg)
{
	struct chain *c = arg;
	unsigned int i = t - c->tm;
	uint64_t now = ewyk_twheel_now(w);

	c->fired[i]++;
	switch (i) {
	case 0: /* periodic: re-arm self */
		if (c->fired[0] < 5)
			assert_int_equal(ewyk_twheel_rearm(w, t, now + 10 * T),
				0);
		break;
	case 1: /* 1 and 2 are due in the same slot: the one that runs */
	case 2: /* first cancels the other, which then must not run */
		assert_int_equal(ewyk_twheel_cancel(w, &c->tm[3 - i]), 0);
		break;
	case 3: /* arms itself in the past: must wait for a later tick */
		if (c->fired[3] == 1)
			assert_int_equal(ewyk_twheel_rearm(w, t, now - 100 * T),
				0);
		break;
	}
}

void
test_callbacks_touch_timers(void **state)
{
	struct ewyk_twheel *w = mk_wheel("tw_chain");
	struct chain c;
	uint64_t now = START;
	unsigned int i;

	(void)state;
	memset(&c, 0, sizeof(c));
	for (i = 0; i < 4; i++)
		ewyk_twheel_timer_init(&c.tm[i]);
	assert_int_equal(ewyk_twheel_arm(w, &c.tm[0], now + 10 * T, chain_cb,
				 &c),
		0);
	/* 1 and 2 in the same tick (the order within a slot is not
	 * specified): whichever runs first cancels the other.
	 */
	assert_int_equal(ewyk_twheel_arm(w, &c.tm[2], now + 20 * T, chain_cb,
				 &c),
		0);
	assert_int_equal(ewyk_twheel_arm(w, &c.tm[1], now + 20 * T, chain_cb,
				 &c),
		0);
	assert_int_equal(ewyk_twheel_arm(w, &c.tm[3], now + 30 * T, chain_cb,
				 &c),
		0);
	for (i = 0; i < 200; i++) {
		now += T;
		ewyk_twheel_advance(w, now, 0);
		if (now == START + 30 * T) {
			/* timer 3 ran once and re-armed in the past */
			assert_int_equal(c.fired[3], 1);
			assert_true(ewyk_twheel_pending(&c.tm[3]));
		}
	}
	assert_int_equal(c.fired[0], 5);
	assert_int_equal(c.fired[1] + c.fired[2], 1);
	assert_int_equal(c.fired[3], 2);
	assert_int_equal(ewyk_twheel_count(w), 0);
	ewyk_twheel_free(w);
}

/* A 30-day stall is caught up in one call through the bitmaps. */
void
test_long_stall(void **state)
{
	const unsigned int n = 20000;
	struct ewyk_twheel *w = mk_wheel("tw_stall");
	struct rec *r = calloc(n, sizeof(*r));
	const uint64_t day = UINT64_C(86400) * 1000000000; /* 1 GHz "TSC" */
	uint64_t now = START;
	unsigned int i, ran;

	(void)state;
	assert_non_null(r);
	for (i = 0; i < n; i++) {
		ewyk_twheel_timer_init(&r[i].tm);
		/* 1 us .. 20 days, log-spread */
		r[i].expiry = START +
			((((uint64_t)rand() << 31) | rand()) %
				(UINT64_C(1000) << (i % 41)));
		if (i % 1000 == 0)
			r[i].expiry = START + 20 * day + i;
		assert_int_equal(ewyk_twheel_arm(w, &r[i].tm, r[i].expiry,
					 rec_cb, &r[i]),
			0);
	}
	now += 30 * day;
	ran = ewyk_twheel_advance(w, now, 0);
	assert_int_equal(ran, n);
	for (i = 0; i < n; i++)
		assert_int_equal(r[i].fired, 1);
	assert_int_equal(ewyk_twheel_count(w), 0);
	ewyk_twheel_free(w);
	free(r);
}

/* Beyond the wheel's range (2^42 ticks): parked, never early. */
void
test_far_future(void **state)
{
	struct ewyk_twheel *w = mk_wheel("tw_far");
	struct rec r = { .fired = 0 };
	uint64_t e = START + (UINT64_C(3) << 42) * T + 12345;
	uint64_t now = START;

	(void)state;
	ewyk_twheel_timer_init(&r.tm);
	assert_int_equal(ewyk_twheel_arm(w, &r.tm, e, rec_cb, &r), 0);
	while (now < e - T) {
		now += (UINT64_C(1) << 39) * T + 777;
		if (now >= e)
			now = e - 1;
		ewyk_twheel_advance(w, now, 0);
		assert_int_equal(r.fired, 0);
		assert_true(ewyk_twheel_next_expiry(w) <= e + T);
	}
	ewyk_twheel_advance(w, e + T, 0);
	assert_int_equal(r.fired, 1);
	assert_true(r.fired_at >= e);
	ewyk_twheel_free(w);
}

/* max_callbacks caps one call; the rest run in the next calls. */
void
test_callback_cap(void **state)
{
	const unsigned int n = 1000;
	struct ewyk_twheel *w = mk_wheel("tw_cap");
	struct rec *r = calloc(n, sizeof(*r));
	uint64_t now = START;
	unsigned int i, total = 0, calls = 0, ran;

	(void)state;
	assert_non_null(r);
	for (i = 0; i < n; i++) {
		ewyk_twheel_timer_init(&r[i].tm);
		r[i].expiry = START + (i % 7) * T + 1;
		assert_int_equal(ewyk_twheel_arm(w, &r[i].tm, r[i].expiry,
					 rec_cb, &r[i]),
			0);
	}
	now += 100 * T;
	do {
		ran = ewyk_twheel_advance(w, now, 64);
		assert_true(ran <= 64);
		total += ran;
		calls++;
		/* arming while work is deferred still works */
		if (calls == 3) {
			struct rec *x = &r[0];

			assert_true(
				x->fired == 1 || ewyk_twheel_pending(&x->tm));
		}
	} while (ran != 0);
	assert_int_equal(total, n);
	assert_true(calls >= n / 64);
	for (i = 0; i < n; i++)
		assert_int_equal(r[i].fired, 1);
	ewyk_twheel_free(w);
	free(r);
}
