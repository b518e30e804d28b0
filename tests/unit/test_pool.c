/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lib/pool: parameters and errors, every entry state
 * transition, the four strategies, max multiplex, max usage,
 * reserve/enable/remove, exhaustion and recovery, bulk and burst,
 * EXTERNAL pools, the injectable lcore->NUMA-node mapping and placement,
 * cross-lcore hand-back, threads without lcore id, and a 2-lcore stress
 * with cross-lcore frees and a per-object owner tag checked on every
 * acquisition (EWYK_TEST_LONG=1 for a longer soak).
 *
 * This file: parameters and errors, the entry state transitions, EXTERNAL
 * pools. Its main also runs test_pool_strategy.c (strategies and
 * limits), test_pool_lcores.c (caches, hand-back, threads, the stress)
 * and test_pool_numa.c; what they share is in pool_test_util.h.
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
		cmocka_unit_test(test_first_low_water),
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
