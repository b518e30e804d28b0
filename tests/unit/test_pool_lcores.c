/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/pool across lcores and threads: per-lcore caches exhausted and
 * recovered, objects freed on one lcore handed back to their owner's,
 * threads without an lcore id, and a 2-lcore stress with cross-lcore
 * frees and a per-object owner tag checked on every acquisition
 * (EWYK_TEST_LONG=1 for a longer soak). Run by test_pool.c's main.
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

/* Cached pool: exhaustion, counter, recovery; bulk all-or-nothing. */
void
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

/* Objects freed on lcore 0 go back to lcore 1, their owner. */
void
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

void
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

void
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
