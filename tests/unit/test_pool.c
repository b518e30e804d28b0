/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lib/pool: parameters and errors, every entry state
 * transition, the four strategies, max multiplex, max usage,
 * reserve/enable/remove, exhaustion and recovery, bulk and burst,
 * EXTERNAL pools, the injectable lcore->NUMA-node mapping and placement,
 * cross-lcore hand-back, threads without lcore id, and a 2-lcore stress
 * with cross-lcore frees and a per-object owner tag checked on every
 * acquisition (EWYK_TEST_LONG=1 for a longer soak).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <numaif.h>
#include <cmocka.h>

#include <errno.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_memory.h>
#include <rte_ring.h>

#include <ewyk_pool.h>

#include "test_common.h"

struct tobj {
	uint32_t tag;      /* owner tag: 0 free, else holder id */
	uint32_t ctor_idx; /* set by the constructor */
	uint64_t payload[6];
};

static struct ewyk_pool *
mk(const char *name, uint32_t cap, uint32_t cache, uint32_t flags, uint32_t mux,
	uint32_t usage, enum ewyk_pool_strategy s)
{
	struct ewyk_pool_params prm = {
		.name = name,
		.capacity = cap,
		.obj_size = sizeof(struct tobj),
		.socket_id = EWYK_POOL_SOCKET_ANY,
		.flags = flags,
		.cache_size = cache,
		.max_multiplex = mux,
		.max_usage = usage,
		.strategy = s,
	};
	struct ewyk_pool *p = ewyk_pool_create(&prm);

	assert_non_null(p);
	return p;
}

static struct ewyk_pool_entry_info
st(struct ewyk_pool *p, void *obj)
{
	struct ewyk_pool_entry_info i;

	assert_int_equal(ewyk_pool_obj_state(p, obj, &i), 0);
	return i;
}

static void
test_params(void **state)
{
	struct ewyk_pool_params prm = {
		.name = "prm",
		.capacity = 4,
		.obj_size = 8,
		.socket_id = EWYK_POOL_SOCKET_ANY,
	};
	struct ewyk_pool_params bad;
	struct ewyk_pool *p;

	(void)state;
	assert_null(ewyk_pool_create(NULL));
	assert_int_equal(rte_errno, EINVAL);
	bad = prm;
	bad.capacity = 0;
	assert_null(ewyk_pool_create(&bad));
	assert_int_equal(rte_errno, EINVAL);
	bad = prm;
	bad.obj_size = 0;
	assert_null(ewyk_pool_create(&bad));
	assert_int_equal(rte_errno, EINVAL);
	bad = prm;
	bad.obj_align = 24;
	assert_null(ewyk_pool_create(&bad));
	assert_int_equal(rte_errno, EINVAL);
	bad = prm;
	bad.cache_size = EWYK_POOL_CACHE_MAX + 1;
	assert_null(ewyk_pool_create(&bad));
	assert_int_equal(rte_errno, EINVAL);
	bad = prm;
	bad.flags = EWYK_POOL_F_EXTERNAL; /* with obj_size 8 */
	assert_null(ewyk_pool_create(&bad));
	assert_int_equal(rte_errno, EINVAL);
	bad = prm;
	bad.strategy = (enum ewyk_pool_strategy)9;
	assert_null(ewyk_pool_create(&bad));
	assert_int_equal(rte_errno, EINVAL);
	bad = prm;
	bad.name = "a-name-that-is-much-too-long-for-a-pool";
	assert_null(ewyk_pool_create(&bad));
	assert_int_equal(rte_errno, ENAMETOOLONG);

	p = ewyk_pool_create(&prm);
	assert_non_null(p);
	assert_string_equal(ewyk_pool_name(p), "prm");
	assert_ptr_equal(ewyk_pool_lookup("prm"), p);
	{ /* its Prometheus samples, labelled by name */
		static char buf[65536];
		int n = ewyk_pool_prometheus(buf, sizeof(buf));

		assert_true(n > 0 && n < (int)sizeof(buf));
		assert_non_null(
			strstr(buf, "ewyk_pool_capacity{name=\"prm\"} "));
#ifdef EWYK_PROMTOOL
		assert_int_equal(ewyk_test_promtool_check(buf), 0);
#endif
	}
	assert_null(ewyk_pool_create(&prm));
	assert_int_equal(rte_errno, EEXIST);
	ewyk_pool_free(p);
	assert_null(ewyk_pool_lookup("prm"));
	assert_int_equal(rte_errno, ENOENT);
	ewyk_pool_free(NULL);
	assert_string_equal(ewyk_pool_strategy_name(
				    EWYK_POOL_STRATEGY_ROUND_ROBIN),
		"round_robin");
}

static unsigned int ctor_calls, retire_calls;

static void
ctor(struct ewyk_pool *p, void *obj, uint32_t idx, void *arg)
{
	struct tobj *o = obj;

	(void)p;
	assert_ptr_equal(arg, &ctor_calls);
	o->ctor_idx = idx;
	o->tag = 0;
	ctor_calls++;
}

static void
retire(struct ewyk_pool *p, void *obj, uint32_t idx, void *arg)
{
	(void)p;
	(void)obj;
	(void)idx;
	assert_ptr_equal(arg, &ctor_calls);
	retire_calls++;
}

/* Every transition of the entry state word, on an uncached pool. */
static void
test_state_transitions(void **state)
{
	struct ewyk_pool_params prm = {
		.name = "states",
		.capacity = 1,
		.obj_size = sizeof(struct tobj),
		.socket_id = EWYK_POOL_SOCKET_ANY,
		.flags = EWYK_POOL_F_EMPTY,
		.max_multiplex = 2,
		.max_usage = 3,
		.obj_ctor = ctor,
		.obj_retire = retire,
		.obj_ctor_arg = &ctor_calls,
	};
	struct ewyk_pool_entry_info i;
	struct ewyk_pool_stats s;
	struct ewyk_pool *p;
	void *o, *a, *b;

	(void)state;
	ctor_calls = retire_calls = 0;
	p = ewyk_pool_create(&prm);
	assert_non_null(p);
	assert_int_equal(ctor_calls, 0); /* EMPTY: nothing built */
	o = ewyk_pool_obj_at(p, 0);
	assert_non_null(o);
	assert_int_equal(ewyk_pool_obj_index(p, o), 0);
	i = st(p, o);
	assert_int_equal(i.state, EWYK_POOL_ENTRY_FREE);
	/* FREE: nothing to get, nothing to enable or put. */
	assert_null(ewyk_pool_get(p));
	assert_int_equal(rte_errno, ENOBUFS);
	assert_int_equal(ewyk_pool_enable(p, o, false), -EINVAL);
	assert_int_equal(ewyk_pool_put(p, o), -EINVAL);
	assert_int_equal(ewyk_pool_remove(p, o), -EINVAL);

	/* FREE -> RESERVED: counts against capacity, not acquirable. */
	assert_ptr_equal(ewyk_pool_reserve(p), o);
	assert_int_equal(st(p, o).state, EWYK_POOL_ENTRY_RESERVED);
	assert_null(ewyk_pool_reserve(p));
	assert_int_equal(rte_errno, ENOBUFS);
	assert_null(ewyk_pool_get(p));

	/* RESERVED -> FREE (the creation failed). */
	assert_int_equal(ewyk_pool_remove(p, o), 1);
	assert_int_equal(st(p, o).state, EWYK_POOL_ENTRY_FREE);
	assert_int_equal(retire_calls, 0);

	/* RESERVED -> ACTIVE idle. */
	assert_ptr_equal(ewyk_pool_reserve(p), o);
	assert_int_equal(ewyk_pool_enable(p, o, false), 0);
	assert_int_equal(ewyk_pool_enable(p, o, false), -EINVAL);
	i = st(p, o);
	assert_int_equal(i.state, EWYK_POOL_ENTRY_ACTIVE);
	assert_int_equal(i.multiplex, 0);
	assert_int_equal(i.usage, 0);
	assert_int_equal(ewyk_pool_put(p, o), -EINVAL); /* not held */
	assert_int_equal(ewyk_pool_remove(p, o), -EINVAL);

	/* idle -> held (mux 1, usage 1) -> shared (mux 2, usage 2). */
	a = ewyk_pool_get(p);
	assert_ptr_equal(a, o);
	i = st(p, o);
	assert_int_equal(i.multiplex, 1);
	assert_int_equal(i.usage, 1);
	b = ewyk_pool_get(p);
	assert_ptr_equal(b, o);
	i = st(p, o);
	assert_int_equal(i.multiplex, 2);
	assert_int_equal(i.usage, 2);
	/* max_multiplex reached. */
	assert_null(ewyk_pool_get(p));
	assert_int_equal(rte_errno, ENOBUFS);
	/* mux 2 -> 1 -> 2 (usage 3 = max_usage: no new holder). */
	assert_int_equal(ewyk_pool_put(p, b), 0);
	assert_int_equal(st(p, o).multiplex, 1);
	b = ewyk_pool_get(p);
	assert_ptr_equal(b, o);
	i = st(p, o);
	assert_int_equal(i.multiplex, 2);
	assert_int_equal(i.usage, 3);
	assert_int_equal(ewyk_pool_put(p, b), 0);
	assert_null(ewyk_pool_get(p)); /* used up, one holder left */
	assert_int_equal(rte_errno, ENOBUFS);
	/* Last holder leaves: ACTIVE at max usage -> FREE (retired). */
	assert_int_equal(ewyk_pool_put(p, a), 1);
	assert_int_equal(retire_calls, 1);
	assert_int_equal(st(p, o).state, EWYK_POOL_ENTRY_FREE);

	/* RESERVED -> ACTIVE held (enable with acquire). */
	assert_ptr_equal(ewyk_pool_reserve(p), o);
	assert_int_equal(ewyk_pool_enable(p, o, true), 0);
	i = st(p, o);
	assert_int_equal(i.state, EWYK_POOL_ENTRY_ACTIVE);
	assert_int_equal(i.multiplex, 1);
	assert_int_equal(i.usage, 1);
	b = ewyk_pool_get(p); /* second holder */
	assert_ptr_equal(b, o);
	/* ACTIVE (2 holders) -> CLOSED (1 holder): no new holder. */
	assert_int_equal(ewyk_pool_remove(p, o), 0);
	i = st(p, o);
	assert_int_equal(i.state, EWYK_POOL_ENTRY_CLOSED);
	assert_int_equal(i.multiplex, 1);
	assert_null(ewyk_pool_get(p));
	/* CLOSED -> FREE when the last holder puts it. */
	assert_int_equal(ewyk_pool_put(p, b), 1);
	assert_int_equal(st(p, o).state, EWYK_POOL_ENTRY_FREE);
	assert_int_equal(retire_calls, 2);

	/* ACTIVE (1 holder) -> FREE directly by remove. */
	assert_ptr_equal(ewyk_pool_reserve(p), o);
	assert_int_equal(ewyk_pool_enable(p, o, true), 0);
	assert_int_equal(ewyk_pool_remove(p, o), 1);
	assert_int_equal(st(p, o).state, EWYK_POOL_ENTRY_FREE);
	assert_int_equal(retire_calls, 3);

	/* Bad pointers. */
	assert_int_equal(ewyk_pool_put(p, (char *)o + 8), -EINVAL);
	assert_int_equal(ewyk_pool_put(p, &prm), -EINVAL);
	assert_int_equal(ewyk_pool_obj_index(p, (char *)o + 1), -EINVAL);
	assert_null(ewyk_pool_obj_at(p, 1));

	assert_int_equal(ewyk_pool_stats_get(p, &s), 0);
	assert_int_equal(s.retired, 1);
	assert_int_equal(s.removed, 2);
	assert_int_equal(s.reserved, 4);
	assert_true(s.exhausted >= 4);
	assert_int_equal(ctor_calls, 0);
	ewyk_pool_free(p);
}

/* Where each strategy starts; same formula as the library's LCORE start. */
static uint32_t
lcore_start(unsigned int lcore, uint32_t cap)
{
	uint32_t h = (uint32_t)(lcore * UINT32_C(0x9e3779b9));

	return (uint32_t)(((uint64_t)h * cap) >> 32);
}

struct strat_arg {
	struct ewyk_pool *p;
	int idx;
};

static int
get_put_on_lcore(void *arg)
{
	struct strat_arg *a = arg;
	void *o = ewyk_pool_get(a->p);

	a->idx = o != NULL ? ewyk_pool_obj_index(a->p, o) : -1;
	if (o != NULL)
		ewyk_pool_put(a->p, o);
	return 0;
}

static int
first_idx(struct ewyk_pool *p)
{
	void *o = ewyk_pool_get(p);
	int idx;

	assert_non_null(o);
	idx = ewyk_pool_obj_index(p, o);
	assert_int_equal(ewyk_pool_put(p, o), 0);
	return idx;
}

static void
exhaust_all(struct ewyk_pool *p, uint32_t cap)
{
	void *objs[64];
	uint8_t seen[64] = { 0 };
	uint32_t i;
	int idx;

	assert_true(cap <= 64);
	for (i = 0; i < cap; i++) {
		objs[i] = ewyk_pool_get(p);
		assert_non_null(objs[i]);
		idx = ewyk_pool_obj_index(p, objs[i]);
		assert_true(idx >= 0 && (uint32_t)idx < cap);
		assert_int_equal(seen[idx], 0);
		seen[idx] = 1;
	}
	assert_null(ewyk_pool_get(p));
	assert_int_equal(rte_errno, ENOBUFS);
	for (i = 0; i < cap; i++)
		assert_int_equal(ewyk_pool_put(p, objs[i]), 0);
}

static void
test_strategies(void **state)
{
	struct strat_arg a;
	struct ewyk_pool *p;
	uint8_t seen[64] = { 0 };
	unsigned int distinct = 0, i;
	int idx;

	(void)state;
	/* FIRST: always the lowest free entry. */
	p = mk("s_first", 64, 0, 0, 1, 0, EWYK_POOL_STRATEGY_FIRST);
	assert_int_equal(first_idx(p), 0);
	assert_int_equal(first_idx(p), 0);
	a.p = p;
	assert_int_equal(rte_eal_remote_launch(get_put_on_lcore, &a, 1), 0);
	rte_eal_wait_lcore(1);
	assert_int_equal(a.idx, 0);
	exhaust_all(p, 64);
	ewyk_pool_free(p);

	/* ROUND_ROBIN: a shared next-fit cursor. */
	p = mk("s_rr", 64, 0, 0, 1, 0, EWYK_POOL_STRATEGY_ROUND_ROBIN);
	assert_int_equal(first_idx(p), 0);
	assert_int_equal(first_idx(p), 1);
	a.p = p;
	assert_int_equal(rte_eal_remote_launch(get_put_on_lcore, &a, 1), 0);
	rte_eal_wait_lcore(1);
	assert_int_equal(a.idx, 2);
	assert_int_equal(first_idx(p), 3);
	exhaust_all(p, 64);
	ewyk_pool_free(p);

	/* LCORE: each lcore starts at its own region, then next-fit. */
	p = mk("s_lcore", 64, 0, 0, 1, 0, EWYK_POOL_STRATEGY_LCORE);
	assert_int_equal(first_idx(p), (int)lcore_start(0, 64));
	assert_int_equal(first_idx(p), (int)lcore_start(0, 64) + 1);
	a.p = p;
	assert_int_equal(rte_eal_remote_launch(get_put_on_lcore, &a, 1), 0);
	rte_eal_wait_lcore(1);
	assert_int_equal(a.idx, (int)lcore_start(1, 64));
	assert_int_not_equal(lcore_start(1, 64), lcore_start(0, 64));
	exhaust_all(p, 64);
	ewyk_pool_free(p);

	/* RANDOM: spread over the array. */
	p = mk("s_rand", 64, 0, 0, 1, 0, EWYK_POOL_STRATEGY_RANDOM);
	for (i = 0; i < 200; i++) {
		idx = first_idx(p);
		assert_true(idx >= 0 && idx < 64);
		if (!seen[idx]) {
			seen[idx] = 1;
			distinct++;
		}
	}
	assert_true(distinct >= 16);
	exhaust_all(p, 64);
	ewyk_pool_free(p);
}

static void
test_max_multiplex(void **state)
{
	struct ewyk_pool *p;
	void *objs[7];
	unsigned int count[2] = { 0, 0 };
	int i, idx;

	(void)state;
	p = mk("mux", 2, 64, 0, 3, 0, EWYK_POOL_STRATEGY_FIRST);
	for (i = 0; i < 6; i++) {
		objs[i] = ewyk_pool_get(p);
		assert_non_null(objs[i]);
		idx = ewyk_pool_obj_index(p, objs[i]);
		count[idx]++;
	}
	assert_int_equal(count[0], 3);
	assert_int_equal(count[1], 3);
	assert_int_equal(st(p, objs[0]).multiplex, 3);
	assert_null(ewyk_pool_get(p));
	assert_int_equal(rte_errno, ENOBUFS);
	/* One holder leaves: one holder may join. */
	assert_int_equal(ewyk_pool_put(p, objs[5]), 0);
	objs[5] = ewyk_pool_get(p);
	assert_non_null(objs[5]);
	assert_null(ewyk_pool_get(p));
	for (i = 0; i < 6; i++)
		assert_int_equal(ewyk_pool_put(p, objs[i]), 0);
	assert_int_equal(st(p, objs[0]).multiplex, 0);
	assert_int_equal(st(p, objs[0]).usage, 3);
	ewyk_pool_free(p);
}

static void
test_max_usage_recycle(void **state)
{
	struct ewyk_pool_params prm = {
		.name = "usage",
		.capacity = 1,
		.obj_size = sizeof(struct tobj),
		.socket_id = EWYK_POOL_SOCKET_ANY,
		.max_usage = 2,
		.cache_size = 32,
		.obj_ctor = ctor,
		.obj_retire = retire,
		.obj_ctor_arg = &ctor_calls,
	};
	struct ewyk_pool_stats s;
	struct ewyk_pool_info info;
	struct ewyk_pool *p;
	void *o;

	(void)state;
	ctor_calls = retire_calls = 0;
	p = ewyk_pool_create(&prm);
	assert_non_null(p);
	assert_int_equal(ctor_calls, 1);
	assert_int_equal(ewyk_pool_info_get(p, &info), 0);
	assert_int_equal(info.cache_size, 0); /* usage limit: no cache */
	o = ewyk_pool_get(p);
	assert_non_null(o);
	assert_int_equal(ewyk_pool_put(p, o), 0);
	o = ewyk_pool_get(p);
	assert_int_equal(st(p, o).usage, 2);
	assert_int_equal(ewyk_pool_put(p, o), 1); /* retired */
	assert_int_equal(retire_calls, 1);
	/* The freed slot is built again on demand (not EMPTY). */
	o = ewyk_pool_get(p);
	assert_non_null(o);
	assert_int_equal(ctor_calls, 2);
	assert_int_equal(st(p, o).usage, 1);
	assert_int_equal(ewyk_pool_put(p, o), 0);
	assert_int_equal(ewyk_pool_stats_get(p, &s), 0);
	assert_int_equal(s.retired, 1);
	assert_int_equal(s.get_created, 1);
	ewyk_pool_free(p);
}

static void
test_reserve_counts_capacity(void **state)
{
	struct ewyk_pool *p;
	struct ewyk_pool_info info;
	void *r1, *r2, *o;

	(void)state;
	p = mk("resv", 2, 0, EWYK_POOL_F_EMPTY, 1, 0, EWYK_POOL_STRATEGY_FIRST);
	r1 = ewyk_pool_reserve(p);
	r2 = ewyk_pool_reserve(p);
	assert_non_null(r1);
	assert_non_null(r2);
	assert_ptr_not_equal(r1, r2);
	assert_null(ewyk_pool_reserve(p));
	assert_int_equal(rte_errno, ENOBUFS);
	assert_null(ewyk_pool_get(p));
	assert_int_equal(ewyk_pool_info_get(p, &info), 0);
	assert_int_equal(info.n_reserved, 2);
	assert_int_equal(ewyk_pool_enable(p, r2, false), 0);
	o = ewyk_pool_get(p);
	assert_ptr_equal(o, r2);
	assert_null(ewyk_pool_get(p));
	/* Remove the held one: its slot can be reserved again. */
	assert_int_equal(ewyk_pool_remove(p, o), 1);
	assert_ptr_equal(ewyk_pool_reserve(p), r2);
	assert_int_equal(ewyk_pool_remove(p, r1), 1);
	assert_int_equal(ewyk_pool_remove(p, r2), 1);
	assert_int_equal(ewyk_pool_info_get(p, &info), 0);
	assert_int_equal(info.n_free, 2);
	ewyk_pool_free(p);
}

/* Cached pool: exhaustion, counter, recovery; bulk all-or-nothing. */
static void
test_exhaustion_recovery(void **state)
{
	enum { CAP = 100 };
	struct ewyk_pool_stats s;
	struct ewyk_pool_info info;
	struct ewyk_pool *p;
	void *objs[CAP + 1];
	unsigned int i, round;

	(void)state;
	ctor_calls = 0;
	p = mk("exh", CAP, 16, 0, 1, 0, EWYK_POOL_STRATEGY_LCORE);
	for (round = 0; round < 3; round++) {
		for (i = 0; i < CAP; i++) {
			objs[i] = ewyk_pool_get(p);
			assert_non_null(objs[i]);
		}
		assert_null(ewyk_pool_get(p));
		assert_int_equal(rte_errno, ENOBUFS);
		for (i = 0; i < CAP; i++)
			assert_int_equal(ewyk_pool_put(p, objs[i]), 0);
	}
	assert_int_equal(ewyk_pool_stats_get(p, &s), 0);
	assert_int_equal(s.exhausted, 3);
	assert_true(s.get_hits > 0);
	assert_true(s.put_cached > 0);
	assert_true(s.put_shared > 0);

	/* get_bulk: all or nothing. get_burst: what there is. */
	assert_int_equal(ewyk_pool_get_bulk(p, objs, CAP - 10), CAP - 10);
	assert_int_equal(ewyk_pool_get_bulk(p, objs + CAP - 10, 11), 0);
	assert_int_equal(rte_errno, ENOBUFS);
	assert_int_equal(ewyk_pool_get_burst(p, objs + CAP - 10, 11), 10);
	assert_int_equal(ewyk_pool_put_bulk(p, objs, CAP), CAP);
	/* A bulk larger than the cache goes to the array directly. */
	assert_int_equal(ewyk_pool_get_bulk(p, objs, CAP), CAP);
	assert_int_equal(ewyk_pool_put_bulk(p, objs, CAP), CAP);
	assert_true(ewyk_pool_cache_flush(p) > 0);
	assert_int_equal(ewyk_pool_info_get(p, &info), 0);
	assert_int_equal(info.n_idle, CAP);
	assert_int_equal(info.n_cached, 0);
	ewyk_pool_free(p);
}

struct xarg {
	struct ewyk_pool *p;
	void *objs[64];
	unsigned int n;
};

static int
lcore_get_n(void *arg)
{
	struct xarg *x = arg;

	return ewyk_pool_get_bulk(x->p, x->objs, x->n) == x->n ? 0 : -1;
}

static int
lcore_flush(void *arg)
{
	ewyk_pool_cache_flush(arg);
	return 0;
}

/* Objects freed on lcore 0 go back to lcore 1, their owner. */
static void
test_handback(void **state)
{
	struct ewyk_pool_stats s0, s1;
	struct ewyk_pool_lcore_info li;
	struct ewyk_pool_info info;
	struct xarg x;
	unsigned int i;

	(void)state;
	x.p = mk("hback", 256, 32, 0, 1, 0, EWYK_POOL_STRATEGY_LCORE);
	x.n = 16;
	assert_int_equal(rte_eal_remote_launch(lcore_get_n, &x, 1), 0);
	assert_int_equal(rte_eal_wait_lcore(1), 0);
	for (i = 0; i < x.n; i++)
		assert_int_equal(st(x.p, x.objs[i]).owner, 1);
	/* Single remote puts are batched in lcore 0's stash... */
	for (i = 0; i < 8; i++)
		assert_int_equal(ewyk_pool_put(x.p, x.objs[i]), 0);
	assert_int_equal(ewyk_pool_lcore_info_get(x.p, 0, &li), 0);
	assert_int_equal(li.stash_len, 8);
	assert_int_equal(ewyk_pool_lcore_info_get(x.p, 1, &li), 0);
	assert_int_equal(li.handback_len, 0);
	/* ...and a bulk put sends the batch to the owner's ring. */
	assert_int_equal(ewyk_pool_put_bulk(x.p, x.objs + 8, 8), 8);
	assert_int_equal(ewyk_pool_lcore_info_get(x.p, 0, &li), 0);
	assert_int_equal(li.stash_len, 0);
	assert_int_equal(ewyk_pool_lcore_stats_get(x.p, 0, &s0), 0);
	assert_int_equal(s0.remote_frees, 16);
	assert_int_equal(s0.handback, 16);
	assert_int_equal(ewyk_pool_info_get(x.p, &info), 0);
	assert_int_equal(info.n_handback, 16);
	/*
	 * Lcore 1 still caches 16 (it refilled 32): a get of 17 misses,
	 * and the miss drains the ring first.
	 */
	assert_int_equal(ewyk_pool_lcore_info_get(x.p, 1, &li), 0);
	assert_int_equal(li.cache_len, 16);
	assert_int_equal(li.handback_len, 16);
	x.n = 17;
	assert_int_equal(rte_eal_remote_launch(lcore_get_n, &x, 1), 0);
	assert_int_equal(rte_eal_wait_lcore(1), 0);
	assert_int_equal(ewyk_pool_lcore_stats_get(x.p, 1, &s1), 0);
	assert_int_equal(s1.drained, 16);
	assert_int_equal(s1.get_misses, 2);
	for (i = 0; i < x.n; i++)
		assert_int_equal(st(x.p, x.objs[i]).owner, 1);
	assert_int_equal(ewyk_pool_put_bulk(x.p, x.objs, x.n), x.n);
	/* A flush on lcore 1 drains its ring and empties its cache. */
	assert_int_equal(rte_eal_remote_launch(lcore_flush, x.p, 1), 0);
	rte_eal_wait_lcore(1);
	assert_int_equal(ewyk_pool_lcore_stats_get(x.p, 1, &s1), 0);
	assert_int_equal(s1.drained, 16 + 17);
	assert_int_equal(ewyk_pool_info_get(x.p, &info), 0);
	assert_int_equal(info.n_idle, 256);
	assert_int_equal(info.n_cached, 0);
	assert_int_equal(info.n_handback, 0);
	ewyk_pool_free(x.p);

	/* NO_HANDBACK: the releasing lcore adopts the object. */
	x.p = mk("nohb", 256, 32, EWYK_POOL_F_NO_HANDBACK, 1, 0,
		EWYK_POOL_STRATEGY_LCORE);
	x.n = 4;
	assert_int_equal(rte_eal_remote_launch(lcore_get_n, &x, 1), 0);
	assert_int_equal(rte_eal_wait_lcore(1), 0);
	for (i = 0; i < x.n; i++) {
		assert_int_equal(ewyk_pool_put(x.p, x.objs[i]), 0);
		assert_int_equal(st(x.p, x.objs[i]).owner, 0);
	}
	ewyk_pool_free(x.p);
}

struct thr_arg {
	struct ewyk_pool *p;
	void *in[8];
	int ok;
};

static void *
non_eal_thread(void *arg)
{
	struct thr_arg *t = arg;
	void *objs[8];
	unsigned int i;

	t->ok = rte_lcore_id() == LCORE_ID_ANY;
	/* Release objects owned by lcore 0's cache: handed back. */
	for (i = 0; i < 8; i++)
		t->ok &= ewyk_pool_put(t->p, t->in[i]) == 0;
	for (i = 0; i < 8; i++) {
		objs[i] = ewyk_pool_get(t->p);
		t->ok &= objs[i] != NULL;
	}
	for (i = 0; i < 8; i++)
		t->ok &= ewyk_pool_put(t->p, objs[i]) == 0;
	return NULL;
}

static void
test_non_eal_thread(void **state)
{
	struct ewyk_pool_stats s;
	struct ewyk_pool_info info;
	struct thr_arg t;
	pthread_t th;
	unsigned int i;

	(void)state;
	t.p = mk("noneal", 64, 16, 0, 1, 0, EWYK_POOL_STRATEGY_RANDOM);
	for (i = 0; i < 8; i++) {
		t.in[i] = ewyk_pool_get(t.p);
		assert_non_null(t.in[i]);
	}
	assert_int_equal(pthread_create(&th, NULL, non_eal_thread, &t), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_true(t.ok);
	assert_int_equal(ewyk_pool_lcore_stats_get(t.p, RTE_MAX_LCORE, &s), 0);
	assert_int_equal(s.remote_frees, 8);
	assert_int_equal(s.handback, 8);
	assert_int_equal(s.get_shared, 8);
	assert_int_equal(s.put_shared, 8);
	ewyk_pool_cache_flush(t.p);
	assert_int_equal(ewyk_pool_info_get(t.p, &info), 0);
	assert_int_equal(info.n_idle, 64);
	ewyk_pool_free(t.p);
}

static void
test_external(void **state)
{
	struct ewyk_pool_params prm = {
		.name = "ext",
		.capacity = 8,
		.socket_id = EWYK_POOL_SOCKET_ANY,
		.flags = EWYK_POOL_F_EXTERNAL,
		.cache_size = 2,
	};
	uint64_t things[8];
	uint8_t seen[8] = { 0 };
	void *objs[9];
	struct ewyk_pool *p;
	unsigned int i;

	(void)state;
	p = ewyk_pool_create(&prm);
	assert_non_null(p);
	assert_null(ewyk_pool_get(p));
	assert_null(ewyk_pool_reserve(p));
	assert_int_equal(rte_errno, ENOTSUP);
	assert_int_equal(ewyk_pool_put(p, NULL), -EINVAL);
	for (i = 0; i < 8; i++)
		assert_int_equal(ewyk_pool_put(p, &things[i]), 0);
	for (i = 0; i < 8; i++) {
		objs[i] = ewyk_pool_get(p);
		assert_non_null(objs[i]);
		assert_true((uint64_t *)objs[i] >= things &&
			(uint64_t *)objs[i] < things + 8);
		assert_int_equal(seen[(uint64_t *)objs[i] - things], 0);
		seen[(uint64_t *)objs[i] - things] = 1;
	}
	assert_null(ewyk_pool_get(p));
	assert_int_equal(rte_errno, ENOBUFS);
	assert_int_equal(ewyk_pool_put_bulk(p, objs, 8), 8);
	assert_int_equal(ewyk_pool_get_bulk(p, objs, 9), 0);
	assert_int_equal(ewyk_pool_get_bulk(p, objs, 8), 8);
	assert_int_equal(ewyk_pool_put_bulk(p, objs, 8), 8);
	ewyk_pool_free(p);
}

/* The injectable lcore -> NUMA node mapping. */
struct node_map {
	int node_of[RTE_MAX_LCORE];
	unsigned int asked[RTE_MAX_LCORE];
};

static int
map_node(unsigned int lcore, void *arg)
{
	struct node_map *m = arg;

	m->asked[lcore]++;
	return m->node_of[lcore];
}

static void
test_numa_mapping(void **state)
{
	static struct node_map m;
	struct ewyk_pool_params prm = {
		.name = "numa",
		.capacity = 64,
		.obj_size = sizeof(struct tobj),
		.socket_id = EWYK_POOL_SOCKET_CALLER,
		.cache_size = 8,
		.lcore_node = map_node,
		.lcore_node_arg = &m,
	};
	struct ewyk_pool_lcore_info li;
	struct ewyk_pool_info info;
	const struct rte_memseg_list *msl;
	struct ewyk_pool *p;
	unsigned int l;
	int node = -1;
	void *o;

	(void)state;
	/* The caller's lcore maps to a node EAL does not know: fail. */
	memset(&m, 0, sizeof(m));
	m.node_of[rte_lcore_id()] = 7;
	assert_null(ewyk_pool_create(&prm));
	assert_int_equal(rte_errno, ENODEV);
	assert_int_equal(m.asked[rte_lcore_id()], 1);

	/* An explicit unknown node fails too; no silent fallback. */
	prm.socket_id = 5;
	assert_null(ewyk_pool_create(&prm));
	assert_int_equal(rte_errno, ENODEV);
	/* A known node without enough memory: ENOMEM, not elsewhere. */
	prm.socket_id = 0;
	prm.capacity = EWYK_POOL_CAPACITY_MAX;
	prm.obj_size = 4096;
	assert_null(ewyk_pool_create(&prm));
	assert_int_equal(rte_errno, ENOMEM);
	assert_null(ewyk_pool_lookup("numa"));
	prm.capacity = 64;
	prm.obj_size = sizeof(struct tobj);

	/* Caller on node 0; lcore 1's cache asked on (unknown) node 3. */
	memset(&m, 0, sizeof(m));
	m.node_of[1] = 3;
	prm.socket_id = EWYK_POOL_SOCKET_CALLER;
	p = ewyk_pool_create(&prm);
	assert_non_null(p);
	assert_int_equal(ewyk_pool_info_get(p, &info), 0);
	assert_int_equal(info.socket_id, 0);
	for (l = 0; l < RTE_MAX_LCORE; l++)
		assert_true(m.asked[l] >= 1); /* every cache was placed */
	assert_int_equal(ewyk_pool_lcore_info_get(p, 0, &li), 0);
	assert_int_equal(li.socket_requested, 0);
	assert_int_equal(li.socket, 0);
	assert_int_equal(ewyk_pool_lcore_info_get(p, 1, &li), 0);
	assert_int_equal(li.socket_requested, 3);
	assert_int_equal(li.socket, 0); /* fell back: internal memory */

	/* Placement of the objects: EAL's view and the kernel's. */
	o = ewyk_pool_get(p);
	assert_non_null(o);
	msl = rte_mem_virt2memseg_list(o);
	assert_non_null(msl);
	assert_int_equal(msl->socket_id, 0);
	if (get_mempolicy(&node, NULL, 0, o, MPOL_F_NODE | MPOL_F_ADDR) == 0)
		assert_int_equal(node, 0);
	assert_int_equal(ewyk_pool_put(p, o), 0);
	ewyk_pool_free(p);
}

/* Stress: 2 lcores, cross-lcore frees, owner tag on every acquisition. */
enum { ST_CAP = 512, ST_XRING = 256 };

struct stress_arg {
	struct ewyk_pool *p;
	struct rte_ring *to[2]; /* to[i]: objects for lcore-slot i */
	volatile int done[2];
	uint64_t iters;
	uint64_t acquired[2];
	uint64_t released[2];
	uint64_t double_owner;
	uint64_t failures;
	unsigned int slot_of_lcore[RTE_MAX_LCORE];
};

static void
release_tagged(struct stress_arg *a, unsigned int me, void *obj,
	uint32_t holder)
{
	struct tobj *o = obj;
	uint32_t expect = holder;

	if (!__atomic_compare_exchange_n(&o->tag, &expect, 0, false,
		    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		__atomic_fetch_add(&a->double_owner, 1, __ATOMIC_RELAXED);
	if (ewyk_pool_put(a->p, obj) != 0)
		__atomic_fetch_add(&a->failures, 1, __ATOMIC_RELAXED);
	a->released[me]++;
}

static void
drain_inbox(struct stress_arg *a, unsigned int me)
{
	void *objs[32];
	unsigned int n, i;

	n = rte_ring_sc_dequeue_burst(a->to[me], objs, RTE_DIM(objs), NULL);
	for (i = 0; i < n; i++)
		release_tagged(a, me, objs[i], 2 - me); /* peer's tag */
}

static int
stress_worker(void *arg)
{
	struct stress_arg *a = arg;
	unsigned int me = a->slot_of_lcore[rte_lcore_id()];
	unsigned int peer = 1 - me;
	uint32_t tag = me + 1;
	uint64_t it, x = 0x2545f4914f6cdd1dULL + me;
	void *objs[8];
	unsigned int n, i, k;
	uint32_t expect;

	for (it = 0; it < a->iters; it++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		k = 1 + (unsigned int)(x & 7);
		if (k == 1) {
			objs[0] = ewyk_pool_get(a->p);
			n = objs[0] != NULL;
		} else {
			n = ewyk_pool_get_burst(a->p, objs, k);
		}
		for (i = 0; i < n; i++) {
			expect = 0;
			if (!__atomic_compare_exchange_n(
				    &((struct tobj *)objs[i])->tag, &expect,
				    tag, false, __ATOMIC_ACQ_REL,
				    __ATOMIC_RELAXED))
				__atomic_fetch_add(&a->double_owner, 1,
					__ATOMIC_RELAXED);
		}
		a->acquired[me] += n;
		for (i = 0; i < n; i++) {
			/* About half the objects are freed on the peer. */
			if (((x >> (8 + i)) & 1) &&
				rte_ring_sp_enqueue(a->to[peer], objs[i]) == 0)
				continue;
			release_tagged(a, me, objs[i], tag);
		}
		drain_inbox(a, me);
	}
	__atomic_store_n(&a->done[me], 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&a->done[peer], __ATOMIC_ACQUIRE) ||
		rte_ring_count(a->to[me]) > 0)
		drain_inbox(a, me);
	return 0;
}

static void
test_stress_2lcores(void **state)
{
	static struct stress_arg a;
	struct ewyk_pool_info info;
	struct ewyk_pool_stats s;
	unsigned int i;
	const char *lng = getenv("EWYK_TEST_LONG");

	(void)state;
	memset(&a, 0, sizeof(a));
	a.p = mk("stress", ST_CAP, 32, 0, 1, 0, EWYK_POOL_STRATEGY_LCORE);
	a.iters = (lng != NULL && atoi(lng) > 0) ? 20000000 : 400000;
	a.to[0] = rte_ring_create("stress_to0", ST_XRING, SOCKET_ID_ANY,
		RING_F_SP_ENQ | RING_F_SC_DEQ);
	a.to[1] = rte_ring_create("stress_to1", ST_XRING, SOCKET_ID_ANY,
		RING_F_SP_ENQ | RING_F_SC_DEQ);
	assert_non_null(a.to[0]);
	assert_non_null(a.to[1]);
	a.slot_of_lcore[rte_get_main_lcore()] = 0;
	a.slot_of_lcore[rte_get_next_lcore(-1, 1, 0)] = 1;
	assert_int_equal(rte_eal_remote_launch(stress_worker, &a,
				 rte_get_next_lcore(-1, 1, 0)),
		0);
	stress_worker(&a);
	assert_int_equal(rte_eal_wait_lcore(rte_get_next_lcore(-1, 1, 0)), 0);

	assert_int_equal(a.double_owner, 0);
	assert_int_equal(a.failures, 0);
	assert_int_equal(a.acquired[0] + a.acquired[1],
		a.released[0] + a.released[1]);
	assert_true(a.acquired[0] + a.acquired[1] > a.iters);
	assert_int_equal(ewyk_pool_stats_get(a.p, &s), 0);
	assert_true(s.remote_frees > 0);
	assert_true(s.handback > 0);
	assert_true(s.drained > 0);

	/* Every object accounted for: back in the array, tags clear. */
	assert_int_equal(rte_eal_remote_launch(lcore_flush, a.p,
				 rte_get_next_lcore(-1, 1, 0)),
		0);
	rte_eal_wait_lcore(rte_get_next_lcore(-1, 1, 0));
	ewyk_pool_cache_flush(a.p);
	assert_int_equal(ewyk_pool_info_get(a.p, &info), 0);
	assert_int_equal(info.n_idle, ST_CAP);
	assert_int_equal(info.n_in_use, 0);
	assert_int_equal(info.n_cached, 0);
	assert_int_equal(info.n_handback, 0);
	for (i = 0; i < ST_CAP; i++)
		assert_int_equal(((struct tobj *)ewyk_pool_obj_at(a.p, i))->tag,
			0);
	rte_ring_free(a.to[0]);
	rte_ring_free(a.to[1]);
	ewyk_pool_free(a.p);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_state_transitions),
		cmocka_unit_test(test_strategies),
		cmocka_unit_test(test_max_multiplex),
		cmocka_unit_test(test_max_usage_recycle),
		cmocka_unit_test(test_reserve_counts_capacity),
		cmocka_unit_test(test_exhaustion_recovery),
		cmocka_unit_test(test_handback),
		cmocka_unit_test(test_non_eal_thread),
		cmocka_unit_test(test_external),
		cmocka_unit_test(test_numa_mapping),
		cmocka_unit_test(test_stress_2lcores),
	};

	if (ewyk_test_eal_init(argc, argv) < 0)
		return 1;
	if (rte_lcore_count() < 2) {
		fprintf(stderr, "test_pool needs 2 lcores\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
