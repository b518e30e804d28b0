/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the lib/pool unit tests (test_pool.c and the test_pool_*.c files
 * its main runs) share: the test object, a pool made or the test fails,
 * an entry's state, the counting constructor and retire hooks, and a
 * cache flush to run on another lcore.
 */

#ifndef EWYK_TEST_POOL_UTIL_H
#define EWYK_TEST_POOL_UTIL_H

#include <stdint.h>

#include <ewyk_pool.h>

struct tobj {
	uint32_t tag;      /* owner tag: 0 free, else holder id */
	uint32_t ctor_idx; /* set by the constructor */
	uint64_t payload[6];
};

/* A pool of struct tobj with these parameters; the test fails on NULL. */
struct ewyk_pool *mk(const char *name, uint32_t cap, uint32_t cache,
	uint32_t flags, uint32_t mux, uint32_t usage,
	enum ewyk_pool_strategy s);
/* The state of obj's entry; the test fails when there is none. */
struct ewyk_pool_entry_info st(struct ewyk_pool *p, void *obj);

/* Constructor and retire hooks: they count their calls here and expect
 * &ctor_calls as their argument. */
extern unsigned int ctor_calls, retire_calls;
void ctor(struct ewyk_pool *p, void *obj, uint32_t idx, void *arg);
void retire(struct ewyk_pool *p, void *obj, uint32_t idx, void *arg);

/* rte_eal_remote_launch() function: flush pool 'arg''s cache of the
 * lcore it runs on. */
int lcore_flush(void *arg);

/* Test cases of the other files, run by test_pool.c's main. */
/* test_pool_strategy.c */
void test_strategies(void **state);
void test_max_multiplex(void **state);
void test_max_usage_recycle(void **state);
void test_reserve_counts_capacity(void **state);
void test_first_low_water(void **state);
/* test_pool_lcores.c */
void test_exhaustion_recovery(void **state);
void test_handback(void **state);
void test_non_eal_thread(void **state);
void test_stress_2lcores(void **state);
/* test_pool_numa.c */
void test_numa_mapping(void **state);

#endif /* EWYK_TEST_POOL_UTIL_H */
