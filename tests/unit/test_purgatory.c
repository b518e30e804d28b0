/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lib/purgatory: life cycle, watch keys and lazy purge,
 * bounded memory, tickets, nesting from callbacks, and the race between a
 * completion claimed on another lcore and the deadline on the owner.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memory.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include <ewyk_twheel.h>
#include <ewyk_purgatory.h>

#include "test_common.h"

#define SHIFT 10
#define T (UINT64_C(1) << SHIFT)
#define START (UINT64_C(1) << 40)

struct fx {
	struct ewyk_twheel *w;
	struct ewyk_purgatory *p;
	uint64_t now;
};

/* Per-op record used as ctx. */
struct rec {
	unsigned int completed;
	unsigned int expired;
	int ready;          /* condition for try_complete */
	unsigned int tries; /* try_complete calls */
	struct fx *fx;
	struct ewyk_purgatory_op *op;
};

static int
rec_try(struct ewyk_purgatory_op *op, void *ctx)
{
	struct rec *r = ctx;

	assert_ptr_equal(ewyk_purgatory_op_ctx(op), ctx);
	r->tries++;
	return r->ready;
}

static void
rec_complete(struct ewyk_purgatory_op *op, void *ctx)
{
	struct rec *r = ctx;

	(void)op;
	r->completed++;
}

static void
rec_expire(struct ewyk_purgatory_op *op, void *ctx)
{
	struct rec *r = ctx;

	(void)op;
	r->expired++;
}

static const struct ewyk_purgatory_op_ops rec_ops = {
	.try_complete = rec_try,
	.on_complete = rec_complete,
	.on_expire = rec_expire,
};

static void
fx_setup(struct fx *f, const char *name, uint32_t cap, uint32_t max_keys,
	uint32_t max_watches, uint32_t threshold)
{
	struct ewyk_twheel_params wp = {
		.name = NULL,
		.tick_shift = SHIFT,
		.start_tsc = START,
	};
	struct ewyk_purgatory_params pp = {
		.name = name,
		.socket_id = SOCKET_ID_ANY,
		.capacity = cap,
		.max_keys = max_keys,
		.max_watches = max_watches,
		.purge_threshold = threshold,
	};

	f->w = rte_zmalloc(NULL, sizeof(*f->w), RTE_CACHE_LINE_SIZE);
	assert_non_null(f->w);
	assert_int_equal(ewyk_twheel_init(f->w, &wp), 0);
	pp.wheel = f->w;
	f->p = ewyk_purgatory_create(&pp);
	assert_non_null(f->p);
	f->now = START;
}

static void
fx_teardown(struct fx *f)
{
	ewyk_purgatory_free(f->p);
	ewyk_twheel_free(f->w);
	rte_free(f->w);
}

static void
gauges_zero(struct ewyk_purgatory *p)
{
	struct ewyk_purgatory_stats s;

	assert_int_equal(ewyk_purgatory_stats_get(p, &s), 0);
	assert_int_equal(s.ops_in_use, 0);
	assert_int_equal(s.watches_in_use, 0);
	assert_int_equal(s.keys_in_use, 0);
	assert_int_equal(ewyk_purgatory_count(p), 0);
}

static void
test_params(void **state)
{
	struct ewyk_twheel_params wp = { .tick_shift = SHIFT, .start_tsc = 1 };
	struct ewyk_purgatory_params pp = { .name = "pg_params",
		.capacity = 4 };
	struct ewyk_twheel w;
	struct ewyk_purgatory *p;

	(void)state;
	assert_int_equal(ewyk_twheel_init(&w, &wp), 0);
	assert_null(ewyk_purgatory_create(NULL));
	assert_int_equal(rte_errno, EINVAL);
	assert_null(ewyk_purgatory_create(&pp)); /* no wheel */
	assert_int_equal(rte_errno, EINVAL);
	pp.wheel = &w;
	pp.capacity = 0;
	assert_null(ewyk_purgatory_create(&pp));
	assert_int_equal(rte_errno, EINVAL);
	pp.capacity = 4;
	pp.name = "a_purgatory_name_much_too_long";
	assert_null(ewyk_purgatory_create(&pp));
	assert_int_equal(rte_errno, EINVAL);
	pp.name = "pg_params";
	p = ewyk_purgatory_create(&pp);
	assert_non_null(p);
	assert_null(ewyk_purgatory_create(&pp));
	assert_int_equal(rte_errno, EEXIST);
	assert_null(ewyk_purgatory_add(p, NULL, NULL, 0, NULL, 0));
	assert_int_equal(rte_errno, EINVAL);
	assert_null(ewyk_purgatory_add(p, &rec_ops, NULL, 0, NULL, 1));
	assert_int_equal(rte_errno, EINVAL);
	assert_null(ewyk_purgatory_add(p, &rec_ops, NULL, 0, (uint64_t[9]){ 0 },
		EWYK_PURGATORY_MAX_KEYS + 1));
	assert_int_equal(rte_errno, EINVAL);
	assert_int_equal(ewyk_purgatory_try_complete(p, NULL), -EINVAL);
	assert_int_equal(ewyk_purgatory_cancel(p, (void *)&w), -EINVAL);
	assert_int_equal(ewyk_purgatory_claim(
				 (struct ewyk_purgatory_ticket){ NULL, 0 }),
		-EINVAL);
	gauges_zero(p);
	{ /* its Prometheus samples, labelled by name */
		char buf[16384];
		int n = ewyk_purgatory_prometheus(buf, sizeof(buf));

		assert_true(n > 0 && n < (int)sizeof(buf));
		assert_non_null(strstr(buf,
			"ewyk_purgatory_added_total{name=\"pg_params\"} 0\n"));
#ifdef EWYK_PROMTOOL
		assert_int_equal(ewyk_test_promtool_check(buf), 0);
#endif
	}
	ewyk_purgatory_free(p);
	ewyk_purgatory_free(NULL);
	ewyk_twheel_free(&w);
}

static void
test_expire_complete_cancel(void **state)
{
	struct fx f;
	struct rec a = { 0 }, b = { 0 }, c = { 0 };
	struct ewyk_purgatory_op *oa, *ob, *oc;
	struct ewyk_purgatory_stats s;

	(void)state;
	fx_setup(&f, "pg_basic", 8, 0, 0, 0);
	oa = ewyk_purgatory_add(f.p, &rec_ops, &a, START + 100 * T, NULL, 0);
	ob = ewyk_purgatory_add(f.p, &rec_ops, &b, START + 100 * T, NULL, 0);
	oc = ewyk_purgatory_add(f.p, &rec_ops, &c, START + 100 * T, NULL, 0);
	assert_non_null(oa);
	assert_non_null(ob);
	assert_non_null(oc);
	assert_int_equal(ewyk_purgatory_count(f.p), 3);
	assert_int_equal(ewyk_twheel_count(f.w), 3);
	/* b completes now: its deadline leaves the wheel at once */
	assert_int_equal(ewyk_purgatory_try_complete(f.p, ob), 0);
	assert_int_equal(b.completed, 1);
	assert_int_equal(ewyk_twheel_count(f.w), 2);
	/* c is abandoned: no callback */
	assert_int_equal(ewyk_purgatory_cancel(f.p, oc), 0);
	assert_int_equal(ewyk_twheel_count(f.w), 1);
	assert_int_equal(ewyk_purgatory_cancel(f.p, oc), -EALREADY);
	assert_int_equal(ewyk_purgatory_try_complete(f.p, ob), -EALREADY);
	/* not yet */
	ewyk_twheel_advance(f.w, START + 99 * T, 0);
	assert_int_equal(a.expired, 0);
	ewyk_twheel_advance(f.w, START + 100 * T, 0);
	assert_int_equal(a.expired, 1);
	assert_int_equal(a.completed, 0);
	assert_int_equal(b.expired + c.expired + c.completed, 0);
	assert_int_equal(ewyk_purgatory_try_complete(f.p, oa), -EALREADY);
	ewyk_twheel_advance(f.w, START + 1000 * T, 0);
	assert_int_equal(a.expired + b.expired, 1);
	assert_int_equal(ewyk_purgatory_stats_get(f.p, &s), 0);
	assert_int_equal(s.added, 3);
	assert_int_equal(s.completed, 1);
	assert_int_equal(s.expired, 1);
	assert_int_equal(s.cancelled, 1);
	gauges_zero(f.p);
	fx_teardown(&f);
}

static void
test_tickets(void **state)
{
	struct fx f;
	struct rec a = { 0 }, b = { 0 };
	struct ewyk_purgatory_op *oa, *ob;
	struct ewyk_purgatory_ticket ta, tb;

	(void)state;
	fx_setup(&f, "pg_ticket", 1, 0, 0, 0);
	oa = ewyk_purgatory_add(f.p, &rec_ops, &a, START + 10 * T, NULL, 0);
	assert_non_null(oa);
	/* capacity 1: full */
	assert_null(ewyk_purgatory_add(f.p, &rec_ops, &b, START, NULL, 0));
	assert_int_equal(rte_errno, ENOSPC);
	ta = ewyk_purgatory_ticket(oa);
	assert_int_equal(ewyk_purgatory_finish(f.p, ta),
		-EINVAL); /* unclaimed */
	assert_int_equal(ewyk_purgatory_claim(ta), 0);
	assert_int_equal(ewyk_purgatory_claim(ta), -EALREADY);
	assert_int_equal(ewyk_purgatory_try_complete(f.p, oa), -EALREADY);
	assert_int_equal(ewyk_purgatory_cancel(f.p, oa), -EALREADY);
	/* the deadline passes while the finish is in flight: no expiry */
	ewyk_twheel_advance(f.w, START + 20 * T, 0);
	assert_int_equal(a.expired, 0);
	assert_int_equal(ewyk_purgatory_count(f.p), 1);
	assert_int_equal(ewyk_purgatory_finish(f.p, ta), 0);
	assert_int_equal(a.completed, 1);
	assert_int_equal(ewyk_purgatory_finish(f.p, ta), -EINVAL);
	/* the op is reused: the old ticket cannot claim the new one */
	ob = ewyk_purgatory_add(f.p, &rec_ops, &b, START + 30 * T, NULL, 0);
	assert_ptr_equal(ob, oa);
	tb = ewyk_purgatory_ticket(ob);
	assert_int_not_equal(tb.gen, ta.gen);
	assert_int_equal(ewyk_purgatory_claim(ta), -EALREADY);
	ewyk_twheel_advance(f.w, START + 30 * T, 0);
	assert_int_equal(b.expired, 1);
	assert_int_equal(ewyk_purgatory_claim(tb), -EALREADY);
	gauges_zero(f.p);
	fx_teardown(&f);
}

static void
test_watch_keys(void **state)
{
	struct fx f;
	struct rec r[6];
	struct ewyk_purgatory_op *op[6];
	struct ewyk_purgatory_stats s;
	uint64_t k2[2] = { 100, 200 };
	unsigned int i;

	(void)state;
	memset(r, 0, sizeof(r));
	fx_setup(&f, "pg_watch", 16, 0, 0, 1000);
	/* ops 0-3 watch key 100; 4-5 watch 100 and 200 */
	for (i = 0; i < 6; i++) {
		op[i] = ewyk_purgatory_add(f.p, &rec_ops, &r[i],
			START + 1000 * T, k2, i < 4 ? 1 : 2);
		assert_non_null(op[i]);
	}
	assert_int_equal(ewyk_purgatory_stats_get(f.p, &s), 0);
	assert_int_equal(s.watches_in_use, 8);
	assert_int_equal(s.keys_in_use, 2);
	/* nothing ready */
	assert_int_equal(ewyk_purgatory_check(f.p, 100), 0);
	for (i = 0; i < 6; i++)
		assert_int_equal(r[i].tries, 1);
	assert_int_equal(ewyk_purgatory_check(f.p, 999), 0);
	/* 1 and 5 ready */
	r[1].ready = 1;
	r[5].ready = 1;
	assert_int_equal(ewyk_purgatory_check(f.p, 100), 2);
	assert_int_equal(r[1].completed, 1);
	assert_int_equal(r[5].completed, 1);
	/* key 100's stale entries were dropped by its check; key 200 still
	 * holds op 5's stale entry, skipped by its check and then dropped
	 */
	assert_int_equal(ewyk_purgatory_stats_get(f.p, &s), 0);
	assert_int_equal(s.watches_in_use, 6);
	r[4].ready = 1;
	assert_int_equal(ewyk_purgatory_check(f.p, 200), 1);
	assert_int_equal(r[5].tries, 2);
	assert_int_equal(r[4].completed, 1);
	assert_int_equal(ewyk_purgatory_stats_get(f.p, &s), 0);
	assert_int_equal(s.watches_in_use, 4); /* 0, 2, 3, 4@100 */
	assert_int_equal(s.keys_in_use, 1);
	/* completing directly leaves the entry to the lazy purge */
	assert_int_equal(ewyk_purgatory_try_complete(f.p, op[0]), 0);
	assert_int_equal(ewyk_purgatory_purge(f.p), 2); /* 0 and 4 */
	assert_int_equal(ewyk_purgatory_stats_get(f.p, &s), 0);
	assert_int_equal(s.watches_in_use, 2);
	/* the rest expire, exactly once each */
	ewyk_twheel_advance(f.w, START + 2000 * T, 0);
	for (i = 0; i < 6; i++)
		assert_int_equal(r[i].completed + r[i].expired, 1);
	assert_int_equal(ewyk_purgatory_purge(f.p), 2);
	gauges_zero(f.p);
	fx_teardown(&f);
}

/* Stale entries trigger a full sweep at the threshold; memory is bounded. */
static void
test_lazy_purge_and_bounds(void **state)
{
	const unsigned int cap = 64;
	struct fx f;
	struct rec r[64];
	struct ewyk_purgatory_op *op;
	struct ewyk_purgatory_stats s;
	uint64_t keys[3];
	unsigned int i, round;

	(void)state;
	memset(r, 0, sizeof(r));
	/* 3 keys per op, 96 watch entries, sweep at 32 stale */
	fx_setup(&f, "pg_purge", cap, 96, 96, 32);
	for (round = 0; round < 200; round++) {
		for (i = 0; i < 32; i++) {
			keys[0] = round * 1000 + i;
			keys[1] = 7;                /* shared key */
			keys[2] = round * 1000 + i; /* duplicate */
			op = ewyk_purgatory_add(f.p, &rec_ops, &r[i],
				START + 1000 * T, keys, 3);
			assert_non_null(op);
			assert_int_equal(ewyk_purgatory_try_complete(f.p, op),
				0);
		}
		assert_int_equal(ewyk_purgatory_stats_get(f.p, &s), 0);
		/* never more than threshold + one add's worth of stale */
		assert_true(s.watches_in_use <= 32 + 2);
	}
	assert_true(s.purges >= 100);
	/* watch pool exhaustion: 48 live ops x 2 keys = 96 entries */
	for (i = 0; i < 48; i++) {
		keys[0] = 5000 + i;
		keys[1] = 7;
		assert_non_null(ewyk_purgatory_add(f.p, &rec_ops, &r[i],
			START + 1000 * T, keys, 2));
	}
	keys[0] = 9999;
	assert_null(ewyk_purgatory_add(f.p, &rec_ops, &r[0], START, keys, 1));
	assert_int_equal(rte_errno, ENOSPC);
	/* no key needed: still fine (ops left) */
	op = ewyk_purgatory_add(f.p, &rec_ops, &r[50], START + 5 * T, NULL, 0);
	assert_non_null(op);
	assert_int_equal(ewyk_purgatory_stats_get(f.p, &s), 0);
	assert_true(s.full >= 1);
	ewyk_twheel_advance(f.w, START + 2000 * T, 0);
	ewyk_purgatory_purge(f.p);
	gauges_zero(f.p);
	fx_teardown(&f);
}

/* Callbacks nest: on_complete checks another key and adds an op. */
struct nest {
	struct fx *f;
	unsigned int completed;
	unsigned int expired;
	unsigned int depth;
};

static int
nest_try(struct ewyk_purgatory_op *op, void *ctx)
{
	(void)op;
	(void)ctx;
	return 1;
}

static void nest_complete(struct ewyk_purgatory_op *op, void *ctx);

static void
nest_expire(struct ewyk_purgatory_op *op, void *ctx)
{
	struct nest *n = ctx;

	(void)op;
	n->expired++;
}

static const struct ewyk_purgatory_op_ops nest_ops = {
	.try_complete = nest_try,
	.on_complete = nest_complete,
	.on_expire = nest_expire,
};

static void
nest_complete(struct ewyk_purgatory_op *op, void *ctx)
{
	struct nest *n = ctx;
	uint64_t key = 1;

	(void)op;
	n->completed++;
	if (n->depth++ < 3) {
		/* a new op on the key being checked, and a check of another */
		assert_non_null(ewyk_purgatory_add(n->f->p, &nest_ops, n,
			START + 500 * T, &key, 1));
		key = 2;
		ewyk_purgatory_check(n->f->p, 2);
	}
}

static void
test_nested_callbacks(void **state)
{
	struct fx f;
	struct nest n = { .f = &f };
	uint64_t k1 = 1, k2 = 2;
	unsigned int i;

	(void)state;
	fx_setup(&f, "pg_nest", 32, 0, 0, 0);
	for (i = 0; i < 4; i++)
		assert_non_null(ewyk_purgatory_add(f.p, &nest_ops, &n,
			START + 500 * T, i & 1 ? &k1 : &k2, 1));
	ewyk_purgatory_check(f.p, 1);
	/* 2 on key 1 + all 2 on key 2 (nested) + nested adds on key 1 were
	 * pushed at the head, not visited by the running walk
	 */
	assert_int_equal(n.completed, 4);
	ewyk_purgatory_check(f.p, 1);
	assert_int_equal(n.completed + n.expired + ewyk_purgatory_count(f.p),
		4 + 3);
	ewyk_twheel_advance(f.w, START + 1000 * T, 0);
	assert_int_equal(n.completed + n.expired, 7);
	ewyk_purgatory_purge(f.p);
	gauges_zero(f.p);
	fx_teardown(&f);
}

/*
 * The race: the owner (this lcore) adds ops with short deadlines and hands
 * their tickets to a worker lcore, which waits a random while and claims;
 * a won claim comes back on a completion ring and is finished here. The
 * owner also completes some through check() of their watch key. Every op
 * must end exactly once, and memory must come back to where it started.
 */
#define RACE_INFLIGHT 64

struct race_rec {
	uint32_t completed;
	uint32_t expired;
	uint32_t claim_won; /* written by the worker */
	uint32_t ready;
};

struct race {
	struct rte_ring *to_worker;
	struct rte_ring *to_owner;
	struct race_rec *recs;
	uint32_t stop;
	uint64_t seed;
};

struct race_msg {
	struct ewyk_purgatory_ticket t;
	struct race_rec *rec;
};

static int
race_try(struct ewyk_purgatory_op *op, void *ctx)
{
	(void)op;
	return ((struct race_rec *)ctx)->ready;
}

static void
race_complete(struct ewyk_purgatory_op *op, void *ctx)
{
	(void)op;
	((struct race_rec *)ctx)->completed++;
}

static void
race_expire(struct ewyk_purgatory_op *op, void *ctx)
{
	(void)op;
	((struct race_rec *)ctx)->expired++;
}

static const struct ewyk_purgatory_op_ops race_ops = {
	.try_complete = race_try,
	.on_complete = race_complete,
	.on_expire = race_expire,
};

static uint64_t
xs(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int
race_worker(void *arg)
{
	struct race *r = arg;
	uint64_t seed = r->seed * 7 + 1;
	void *m;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		struct race_msg *msg;
		uint64_t until;

		if (rte_ring_sc_dequeue(r->to_worker, &m) != 0) {
			rte_pause();
			continue;
		}
		msg = m;
		until = rte_rdtsc() + xs(&seed) % 1000;
		while (rte_rdtsc() < until)
			rte_pause();
		if (ewyk_purgatory_claim(msg->t) == 0) {
			__atomic_store_n(&msg->rec->claim_won, 1,
				__ATOMIC_RELAXED);
			while (rte_ring_sp_enqueue(r->to_owner, msg) != 0)
				rte_pause();
		} else {
			free(msg);
		}
	}
	return 0;
}

static void
test_race_two_lcores(void **state)
{
	const char *lng = getenv("EWYK_TEST_LONG");
	const unsigned int n = (lng != NULL && atoi(lng) != 0) ? 2000000 :
								 100000;
	struct rte_malloc_socket_stats before, after;
	struct ewyk_twheel_params wp = { .tick_shift = 8 };
	struct ewyk_purgatory_params pp = {
		.name = "pg_race",
		.socket_id = SOCKET_ID_ANY,
		.capacity = RACE_INFLIGHT,
	};
	struct ewyk_purgatory_stats s;
	struct ewyk_twheel *w;
	struct ewyk_purgatory *p;
	struct race r = { .seed = 12345 };
	unsigned int worker, added = 0, outstanding = 0, i;
	unsigned int won = 0, completed = 0, expired = 0;
	uint64_t seed = 987654321;
	int socket = rte_socket_id();

	(void)state;
	worker = rte_get_next_lcore(-1, 1, 0);
	if (worker >= RTE_MAX_LCORE)
		skip();
	r.recs = calloc(n, sizeof(*r.recs));
	assert_non_null(r.recs);
	rte_malloc_get_socket_stats(socket, &before);

	w = ewyk_twheel_create(
		&(struct ewyk_twheel_params){ .name = "pg_race_wheel",
			.socket_id = SOCKET_ID_ANY,
			.tick_shift = wp.tick_shift });
	assert_non_null(w);
	pp.wheel = w;
	p = ewyk_purgatory_create(&pp);
	assert_non_null(p);
	r.to_worker = rte_ring_create("pg_race_tw", 256, SOCKET_ID_ANY,
		RING_F_SP_ENQ | RING_F_SC_DEQ);
	r.to_owner = rte_ring_create("pg_race_to", 256, SOCKET_ID_ANY,
		RING_F_SP_ENQ | RING_F_SC_DEQ);
	assert_non_null(r.to_worker);
	assert_non_null(r.to_owner);
	assert_int_equal(rte_eal_remote_launch(race_worker, &r, worker), 0);

	while (added < n || ewyk_purgatory_count(p) > 0 || outstanding > 0) {
		uint64_t now = rte_rdtsc();
		void *m;

		/* completions from the worker */
		while (rte_ring_sc_dequeue(r.to_owner, &m) == 0) {
			struct race_msg *msg = m;

			assert_int_equal(ewyk_purgatory_finish(p, msg->t), 0);
			won++;
			free(msg);
		}
		ewyk_twheel_advance(w, now, 0);
		if (added < n && ewyk_purgatory_count(p) < RACE_INFLIGHT) {
			struct race_rec *rec = &r.recs[added];
			uint64_t key = added % 16;
			struct ewyk_purgatory_op *op;
			struct race_msg *msg;

			/* Most deadlines are a few tens of microseconds away, so
			 * the timeout often wins; one op in 16 gets 200 ms, so the
			 * worker wins claims even when a loaded machine keeps it
			 * off the CPU for a while (the test needs both outcomes). */
			op = ewyk_purgatory_add(p, &race_ops, rec,
				now +
					(added % 16 == 0 ?
							rte_get_tsc_hz() / 5 :
							xs(&seed) % 100000),
				&key, 1);
			assert_non_null(op);
			msg = malloc(sizeof(*msg));
			assert_non_null(msg);
			msg->t = ewyk_purgatory_ticket(op);
			msg->rec = rec;
			/* a third contender: the owner's own check */
			rec->ready = (xs(&seed) % 8) == 0;
			if (rte_ring_sp_enqueue(r.to_worker, msg) != 0)
				free(msg);
			added++;
			if (xs(&seed) % 4 == 0)
				ewyk_purgatory_check(p, xs(&seed) % 16);
		}
		/* messages still with the worker */
		outstanding = rte_ring_count(r.to_worker) +
			rte_ring_count(r.to_owner);
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	rte_eal_wait_lcore(worker);
	{
		void *m;

		while (rte_ring_sc_dequeue(r.to_worker, &m) == 0)
			free(m);
		assert_int_equal(rte_ring_count(r.to_owner), 0);
	}
	for (i = 0; i < n; i++) {
		struct race_rec *rec = &r.recs[i];

		if (rec->completed + rec->expired != 1)
			fail_msg("op %u: completed %u expired %u", i,
				rec->completed, rec->expired);
		if (rec->claim_won && rec->completed != 1)
			fail_msg("op %u: claim won but not completed", i);
		completed += rec->completed;
		expired += rec->expired;
	}
	assert_int_equal(ewyk_purgatory_stats_get(p, &s), 0);
	assert_int_equal(s.completed, completed);
	assert_int_equal(s.expired, expired);
	assert_int_equal(s.added, n);
	print_message("race: %u ops, %u claims won by the worker, %u completed,"
		      " %u expired, %" PRIu64 " owner-side races lost, %" PRIu64
		      " purges\n",
		n, won, completed, expired, s.races_lost, s.purges);
	/* both outcomes happened (the point of the test) */
	assert_true(won > 0);
	assert_true(expired > 0);
	ewyk_purgatory_purge(p);
	gauges_zero(p);
	ewyk_purgatory_free(p);
	ewyk_twheel_free(w);
	rte_ring_free(r.to_worker);
	rte_ring_free(r.to_owner);
	rte_malloc_get_socket_stats(socket, &after);
	assert_int_equal(after.heap_allocsz_bytes, before.heap_allocsz_bytes);
	assert_int_equal(after.alloc_count, before.alloc_count);
	free(r.recs);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_expire_complete_cancel),
		cmocka_unit_test(test_tickets),
		cmocka_unit_test(test_watch_keys),
		cmocka_unit_test(test_lazy_purge_and_bounds),
		cmocka_unit_test(test_nested_callbacks),
		cmocka_unit_test(test_race_two_lcores),
	};

	int rc;

	if (ewyk_test_eal_init(argc, argv) < 0)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	/* Without a worker lcore the race test skipped: say so to meson
	 * (exit 77) so CI counts the skip instead of a pass. */
	if (rc == 0 && rte_lcore_count() < 2) {
		fprintf(stderr, "test_race_two_lcores needs a worker lcore\n");
		return 77;
	}
	return rc;
}
