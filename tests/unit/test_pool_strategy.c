/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/pool placement strategies and per-entry limits: where each strategy
 * starts and walks, max multiplex, max usage (retire and rebuild), and
 * reserve/enable/remove against the capacity. Run by test_pool.c's main.
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
#include "pool_test_util.h"

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

void
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

void
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

void
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

void
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

/* Take one object: its index. */
static int
take_idx(struct ewyk_pool *p, void **objs)
{
	void *o = ewyk_pool_get(p);
	int idx;

	assert_non_null(o);
	idx = ewyk_pool_obj_index(p, o);
	objs[idx] = o;
	return idx;
}

/*
 * FIRST searches from a low-water mark, not from entry 0, and still takes
 * the lowest takeable entry: one released (or freed) below the mark
 * lowers it.
 */
void
test_first_low_water(void **state)
{
	struct ewyk_pool *p;
	void *objs[16] = { NULL };
	void *r[4];
	int i;

	(void)state;
	p = mk("low", 16, 0, 0, 1, 0, EWYK_POOL_STRATEGY_FIRST);
	for (i = 0; i < 8; i++)
		assert_int_equal(take_idx(p, objs), i);
	assert_int_equal(ewyk_pool_put(p, objs[5]), 0);
	assert_int_equal(ewyk_pool_put(p, objs[3]), 0);
	assert_int_equal(take_idx(p, objs), 3);
	assert_int_equal(take_idx(p, objs), 5);
	assert_int_equal(take_idx(p, objs), 8);
	assert_int_equal(ewyk_pool_put(p, objs[0]), 0);
	assert_int_equal(take_idx(p, objs), 0);
	for (i = 9; i < 16; i++)
		assert_int_equal(take_idx(p, objs), i);
	assert_null(ewyk_pool_get(p));
	/* Full, then one back near the end and one at the start. */
	assert_int_equal(ewyk_pool_put(p, objs[15]), 0);
	assert_int_equal(ewyk_pool_put(p, objs[1]), 0);
	assert_int_equal(take_idx(p, objs), 1);
	assert_int_equal(take_idx(p, objs), 15);
	for (i = 0; i < 16; i++)
		assert_int_equal(ewyk_pool_put(p, objs[i]), 0);
	ewyk_pool_free(p);

	/* FREE entries (an EMPTY pool's reserve): the same. */
	p = mk("low_e", 4, 0, EWYK_POOL_F_EMPTY, 1, 0,
		EWYK_POOL_STRATEGY_FIRST);
	for (i = 0; i < 3; i++) {
		r[i] = ewyk_pool_reserve(p);
		assert_int_equal(ewyk_pool_obj_index(p, r[i]), i);
	}
	assert_int_equal(ewyk_pool_remove(p, r[1]), 1);
	r[1] = ewyk_pool_reserve(p);
	assert_int_equal(ewyk_pool_obj_index(p, r[1]), 1);
	r[3] = ewyk_pool_reserve(p);
	assert_int_equal(ewyk_pool_obj_index(p, r[3]), 3);
	for (i = 0; i < 4; i++)
		assert_int_equal(ewyk_pool_remove(p, r[i]), 1);
	ewyk_pool_free(p);

	/* Multiplexed: an entry taken keeps its other units takeable. */
	p = mk("low_m", 4, 0, 0, 2, 0, EWYK_POOL_STRATEGY_FIRST);
	r[0] = ewyk_pool_get(p);
	r[1] = ewyk_pool_get(p);
	r[2] = ewyk_pool_get(p);
	assert_int_equal(ewyk_pool_obj_index(p, r[0]), 0);
	assert_int_equal(ewyk_pool_obj_index(p, r[1]), 0);
	assert_int_equal(ewyk_pool_obj_index(p, r[2]), 1);
	assert_int_equal(ewyk_pool_put(p, r[0]), 0);
	r[0] = ewyk_pool_get(p);
	assert_int_equal(ewyk_pool_obj_index(p, r[0]), 0);
	r[3] = ewyk_pool_get(p);
	assert_int_equal(ewyk_pool_obj_index(p, r[3]), 1);
	for (i = 0; i < 4; i++)
		assert_int_equal(ewyk_pool_put(p, r[i]), 0);
	ewyk_pool_free(p);
}
