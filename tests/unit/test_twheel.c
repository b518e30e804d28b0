/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lib/twheel: API contract, the timing guarantee (never
 * early, at most one tick late), callbacks that touch timers, stalls,
 * the callback cap, and a randomized model test against a reference heap.
 *
 * Time is synthetic: the tests pass their own "TSC" values, with
 * tick_shift 10 (1024 cycles per tick).
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

#define SHIFT 10
#define T (UINT64_C(1) << SHIFT)
#define START (UINT64_C(1) << 40) /* a non-trivial start time */

static struct ewyk_twheel *
mk_wheel_slack(const char *name, unsigned int slack)
{
	struct ewyk_twheel_params p = {
		.name = name,
		.socket_id = SOCKET_ID_ANY,
		.tick_shift = SHIFT,
		.start_tsc = START,
		.slack_shift = slack,
	};
	struct ewyk_twheel *w = ewyk_twheel_create(&p);

	assert_non_null(w);
	return w;
}

/* An exact wheel (fires within one tick). */
static struct ewyk_twheel *
mk_wheel(const char *name)
{
	return mk_wheel_slack(name, EWYK_TWHEEL_SLACK_EXACT);
}

struct rec {
	struct ewyk_twheel_timer tm;
	uint64_t expiry; /* what the test asked for */
	unsigned int fired;
	uint64_t fired_at;
};

static void
rec_cb(struct ewyk_twheel *w, struct ewyk_twheel_timer *t, void *arg)
{
	struct rec *r = arg;

	assert_ptr_equal(&r->tm, t);
	assert_false(ewyk_twheel_pending(t));
	r->fired++;
	r->fired_at = ewyk_twheel_now(w);
}

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
	assert_int_equal(ewyk_twheel_arm(w, &t, START + 10 * T, rec_cb, &x), 0);
	assert_true(ewyk_twheel_pending(&t));
	assert_int_equal(ewyk_twheel_count(w), 1);
	assert_int_equal(ewyk_twheel_timer_expiry(w, &t), START + 10 * T);
	/* arm on a pending timer moves it */
	assert_int_equal(ewyk_twheel_arm(w, &t, START + 5 * T, rec_cb, &x), 0);
	assert_int_equal(ewyk_twheel_count(w), 1);
	assert_int_equal(ewyk_twheel_next_expiry(w), START + 5 * T);
	assert_int_equal(ewyk_twheel_cancel(w, &t), 0);
	assert_int_equal(ewyk_twheel_cancel(w, &t), -ENOENT);
	assert_false(ewyk_twheel_pending(&t));
	assert_int_equal(ewyk_twheel_count(w), 0);
	/* rearm of an idle, once-armed timer arms it again */
	assert_int_equal(ewyk_twheel_rearm(w, &t, START + 3 * T), 0);
	assert_true(ewyk_twheel_pending(&t));
	assert_int_equal(ewyk_twheel_stats_get(w, &st), 0);
	assert_int_equal(st.armed, 2);
	assert_int_equal(st.rearmed, 1);
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

/* Exact firing tick for every expiry offset in a few ticks around a
 * boundary, and for each level's range.
 */
static void
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
static void
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

static void
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
static void
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
static void
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
static void
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

/*
 * Randomized model test. The reference is a binary min-heap of
 * (due time, timer, version): a timer armed for E when the latest now was n
 * is due at max(ceil(E / T), floor(n / T) + 1) * T (the documented rule).
 * Each callback checks the timer is armed in the model (exactly once),
 * not early (now >= E) and due (now >= due time); after every uncapped
 * advance() no armed timer may have a due time <= now (not late).
 * Callbacks re-arm themselves, arm, re-arm and cancel other timers.
 */
#define M_TIMERS 2048

struct model;

struct mt {
	struct ewyk_twheel_timer tm;
	struct model *m;
	uint64_t expiry;
	uint64_t due;
	uint64_t latest; /* due + allowed lateness */
	uint32_t ver;
	uint8_t armed;
	uint8_t ever;
};

struct hent {
	uint64_t due; /* the latest time it may still be pending */
	uint32_t id;
	uint32_t ver;
};

struct model {
	struct ewyk_twheel *w;
	struct mt t[M_TIMERS];
	struct hent *heap;
	size_t hn, hcap;
	uint64_t now;
	uint64_t rng;
	unsigned int armed;
	unsigned int ran;      /* callbacks in the current advance() */
	unsigned int draining; /* callbacks leave timers alone */
	unsigned int slack;    /* 0: exact wheel */
	uint64_t fired, arms, cancels, rearms;
};

static uint64_t
m_rand(struct model *m)
{
	m->rng ^= m->rng >> 12;
	m->rng ^= m->rng << 25;
	m->rng ^= m->rng >> 27;
	return m->rng * UINT64_C(2685821657736338717);
}

static void
h_push(struct model *m, uint64_t due, uint32_t id, uint32_t ver)
{
	size_t i;

	if (m->hn == m->hcap) {
		m->hcap = m->hcap ? m->hcap * 2 : 4096;
		m->heap = realloc(m->heap, m->hcap * sizeof(*m->heap));
		assert_non_null(m->heap);
	}
	i = m->hn++;
	while (i > 0 && m->heap[(i - 1) / 2].due > due) {
		m->heap[i] = m->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	m->heap[i] = (struct hent){ .due = due, .id = id, .ver = ver };
}

static void
h_pop(struct model *m)
{
	struct hent last = m->heap[--m->hn];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= m->hn)
			break;
		if (c + 1 < m->hn && m->heap[c + 1].due < m->heap[c].due)
			c++;
		if (m->heap[c].due >= last.due)
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	if (m->hn > 0)
		m->heap[i] = last;
}

static int
h_live(const struct model *m, const struct hent *h)
{
	return m->t[h->id].armed && m->t[h->id].ver == h->ver;
}

/* Drop stale entries when the heap grows large. */
static void
h_compact(struct model *m)
{
	size_t i;

	if (m->hn < 16 * M_TIMERS)
		return;
	m->hn = 0;
	for (i = 0; i < M_TIMERS; i++)
		if (m->t[i].armed)
			h_push(m, m->t[i].latest, i, m->t[i].ver);
}

static uint64_t
m_due(const struct model *m, uint64_t e)
{
	uint64_t a = (e + T - 1) / T;
	uint64_t b = m->now / T + 1;

	return (a > b ? a : b) * T;
}

/* Last time the timer may still be pending: its due tick plus slack. */
static uint64_t
m_latest(const struct model *m, uint64_t due)
{
	uint64_t c = m->now / T;

	if (m->slack == 0)
		return due;
	return due + (((due / T - c) >> m->slack) * T);
}

/* TCP-like delay mix, sometimes in the past. */
static uint64_t
m_expiry(struct model *m, uint64_t now)
{
	uint64_t r = m_rand(m) % 100;
	uint64_t x = m_rand(m);

	if (r < 30)
		return now + x % (200 * T);
	if (r < 50)
		return now + 40000000 + x % 1000000;
	if (r < 70)
		return now + 200000000 + x % 2800000000u;
	if (r < 85)
		return now + UINT64_C(60000000000) + x % 1000;
	if (r < 92)
		return now + x % (UINT64_C(86400) * 1000000000);
	return now - x % (1000 * T);
}

static void model_cb(struct ewyk_twheel *w, struct ewyk_twheel_timer *tm,
	void *arg);

static void
m_arm(struct model *m, unsigned int i, uint64_t e)
{
	struct mt *t = &m->t[i];

	assert_int_equal(ewyk_twheel_arm(m->w, &t->tm, e, model_cb, t), 0);
	if (!t->armed)
		m->armed++;
	t->armed = 1;
	t->ever = 1;
	t->ver++;
	t->expiry = e;
	t->due = m_due(m, e);
	t->latest = m_latest(m, t->due);
	h_push(m, t->latest, i, t->ver);
	m->arms++;
}

static void
m_rearm(struct model *m, unsigned int i, uint64_t e)
{
	struct mt *t = &m->t[i];

	if (!t->ever) {
		assert_int_equal(ewyk_twheel_rearm(m->w, &t->tm, e), -EINVAL);
		return;
	}
	assert_int_equal(ewyk_twheel_rearm(m->w, &t->tm, e), 0);
	if (!t->armed)
		m->armed++;
	t->armed = 1;
	t->ver++;
	t->expiry = e;
	t->due = m_due(m, e);
	t->latest = m_latest(m, t->due);
	h_push(m, t->latest, i, t->ver);
	m->rearms++;
}

static void
m_cancel(struct model *m, unsigned int i)
{
	struct mt *t = &m->t[i];

	assert_int_equal(ewyk_twheel_cancel(m->w, &t->tm),
		t->armed ? 0 : -ENOENT);
	if (t->armed) {
		m->armed--;
		m->cancels++;
	}
	t->armed = 0;
	t->ver++;
}

static void
model_cb(struct ewyk_twheel *w, struct ewyk_twheel_timer *tm, void *arg)
{
	struct mt *t = arg;
	struct model *m = t->m;
	uint64_t now = ewyk_twheel_now(w);
	unsigned int self = t - m->t;
	unsigned int k;

	assert_ptr_equal(&t->tm, tm);
	assert_int_equal(now, m->now);
	if (!t->armed)
		fail_msg("timer %u fired while idle (twice?)", self);
	if (now < t->expiry)
		fail_msg("timer %u early: now %" PRIu64 " < expiry %" PRIu64,
			self, now, t->expiry);
	if (now < t->due)
		fail_msg("timer %u before its tick: now %" PRIu64
			 " due %" PRIu64 " expiry %" PRIu64 " fired %" PRIu64,
			self, now, t->due, t->expiry, m->fired);
	assert_false(ewyk_twheel_pending(tm));
	t->armed = 0;
	m->armed--;
	m->ran++;
	m->fired++;
	/* touch timers: self and others, including ones due in this call */
	for (k = 0; k < 2 && !m->draining; k++) {
		uint64_t r = m_rand(m) % 100;
		unsigned int j = m_rand(m) % M_TIMERS;

		if (r < 20)
			m_rearm(m, self, m_expiry(m, now));
		else if (r < 35)
			m_arm(m, j, m_expiry(m, now));
		else if (r < 50)
			m_cancel(m, j);
		else if (r < 60)
			m_rearm(m, j, m_expiry(m, now));
	}
}

static void
m_advance(struct model *m, uint64_t now, unsigned int cap)
{
	unsigned int ran;

	m->now = now;
	m->ran = 0;
	ran = ewyk_twheel_advance(m->w, now, cap);
	assert_int_equal(ran, m->ran);
	if (cap != 0) {
		assert_true(ran <= cap);
	} else {
		/* not late: nothing armed may be due by now */
		while (m->hn > 0 && m->heap[0].due <= now) {
			if (h_live(m, &m->heap[0]))
				fail_msg("timer %u late: due %" PRIu64
					 " now %" PRIu64,
					m->heap[0].id, m->heap[0].due, now);
			h_pop(m);
		}
		assert_true(ewyk_twheel_next_expiry(m->w) > now);
	}
	assert_int_equal(ewyk_twheel_count(m->w), m->armed);
}

static uint64_t
m_jump(struct model *m)
{
	uint64_t r = m_rand(m) % 1000;
	uint64_t x = m_rand(m);

	if (r < 500)
		return x % (2 * T);
	if (r < 800)
		return x % (100 * T);
	if (r < 960)
		return x % 50000000;
	if (r < 995)
		return x % UINT64_C(5000000000);
	return x % UINT64_C(3600000000000);
}

static void
run_model(const char *name, uint64_t seed, unsigned int capped,
	unsigned int slack)
{
	const char *lng = getenv("EWYK_TEST_LONG");
	uint64_t steps = (lng != NULL && atoi(lng) != 0) ? 50000000 : 700000;
	struct model *m = calloc(1, sizeof(*m));
	uint64_t s;
	unsigned int i;

	assert_non_null(m);
	m->w = mk_wheel_slack(name,
		slack == 0 ? EWYK_TWHEEL_SLACK_EXACT : slack);
	m->slack = slack;
	m->rng = seed;
	m->now = START;
	for (i = 0; i < M_TIMERS; i++) {
		ewyk_twheel_timer_init(&m->t[i].tm);
		m->t[i].m = m;
	}
	for (s = 0; s < steps; s++) {
		uint64_t r = m_rand(m) % 100;
		unsigned int i = m_rand(m) % M_TIMERS;

		if (r < 30) {
			m_arm(m, i, m_expiry(m, m->now));
		} else if (r < 55) {
			m_rearm(m, i, m_expiry(m, m->now));
		} else if (r < 70) {
			m_cancel(m, i);
		} else {
			unsigned int cap = 0;

			/* capped runs: uncapped every 64th advance */
			if (capped && (s & 63) != 0)
				cap = 1 + m_rand(m) % 8;
			m_advance(m, m->now + m_jump(m), cap);
			h_compact(m);
		}
	}
	/* drain: everything armed fires exactly once, none is late */
	m->draining = 1;
	m_advance(m, m->now + UINT64_C(2) * 86400 * 1000000000, 0);
	assert_int_equal(m->armed, 0);
	assert_int_equal(ewyk_twheel_count(m->w), 0);
	for (i = 0; i < M_TIMERS; i++)
		assert_false(ewyk_twheel_pending(&m->t[i].tm));
	{
		struct ewyk_twheel_stats st;

		ewyk_twheel_stats_get(m->w, &st);
		print_message("model %s: %" PRIu64 " steps, %" PRIu64
			      " arms, %" PRIu64 " rearms, %" PRIu64
			      " cancels, %" PRIu64 " fired, %" PRIu64
			      " cascades\n",
			name, steps, m->arms, m->rearms, m->cancels, m->fired,
			st.cascaded);
	}
	assert_true(m->fired > steps / 20);
	ewyk_twheel_free(m->w);
	free(m->heap);
	free(m);
}

static void
test_model_random(void **state)
{
	(void)state;
	run_model("tw_model", UINT64_C(0x9e3779b97f4a7c15), 0, 0);
}

static void
test_model_random_slack(void **state)
{
	(void)state;
	run_model("tw_model_slack", UINT64_C(0x123456789abcdef1), 0, 3);
}

static void
test_model_random_capped(void **state)
{
	(void)state;
	run_model("tw_model_cap", UINT64_C(0xdeadbeefcafef00d), 1, 3);
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
