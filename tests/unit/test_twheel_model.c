/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/twheel against a reference model: random arms, re-arms, cancels and
 * time jumps on exact, slack and callback-capped wheels, every firing
 * checked against a min-heap of due times. Run by test_twheel.c's main.
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

void
test_model_random(void **state)
{
	(void)state;
	run_model("tw_model", UINT64_C(0x9e3779b97f4a7c15), 0, 0);
}

void
test_model_random_slack(void **state)
{
	(void)state;
	run_model("tw_model_slack", UINT64_C(0x123456789abcdef1), 0, 3);
}

void
test_model_random_capped(void **state)
{
	(void)state;
	run_model("tw_model_cap", UINT64_C(0xdeadbeefcafef00d), 1, 3);
}
