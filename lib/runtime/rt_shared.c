/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared reserved lcores (--shared-reserved N): reserved lcores that are
 * threads, not EAL lcores, and share the workers' CPUs.
 *
 * With --reserved 0 no EAL lcore is left to take a blocking task off a
 * worker, and a task run in place (PC) holds the shard's only poller for
 * as long as it blocks: every other client of the shard waits. Instead,
 * the runtime starts N threads (default 4 with --reserved 0), registers each
 * with DPDK as a non-EAL lcore (rte_thread_register(): an lcore id, so the
 * executor, the pools' per-lcore caches and the counters work there as on
 * an EAL lcore), allows each on the CPUs of the EAL lcores, and makes
 * them serve the executor with EWYK_STRATEGY_SERVE_RING_ONLY
 * (lib/strategy): they run queued (PEC) tasks only. So, by the strategy's
 * own rules, with the adaptive strategy:
 *
 *   - a BLOCKING task finds no reserved lcore to hand production to (a
 *     ring-only lcore is never claimed for EPC) and is queued (PEC): a
 *     shared thread runs it while the worker goes on polling; the PEC ring
 *     is bounded (--pec-ring, then 503) and a task still queued at its
 *     deadline is dropped (504);
 *   - an EITHER task runs in place in non-blocking mode (PIC);
 *   - production never leaves the worker.
 *
 * An idle shared thread spins spin_us (20 us) and parks on a futex: it
 * takes no CPU from the polling worker until a task is queued, and while
 * its task sleeps (nanosleep, file I/O) it takes none either. What it
 * computes it takes from the worker's CPU: the scheduler shares the CPU
 * between the two, which is the price of not having a core for it.
 */

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_lcore.h>

#include "rt_private.h"

/* States of a thread's start-up handshake. */
enum {
	SHARED_STARTING = 0,
	SHARED_REGISTERED, /* lcore id published; waits for go */
	SHARED_FAILED,
};

static void *
shared_main(void *arg)
{
	struct rt_shared *t = arg;
	struct ewyk_rt *rt = t->rt;
	char name[16];
	int ret;

	if (rte_thread_register() != 0) {
		t->err = rte_errno;
		__atomic_store_n(&t->state, SHARED_FAILED, __ATOMIC_RELEASE);
		return NULL;
	}
	t->lcore_id = rte_lcore_id();
	snprintf(name, sizeof(name), "ewyk-shared-%u", t->lcore_id);
	pthread_setname_np(pthread_self(), name); /* for top -H, perf */
	__atomic_store_n(&t->state, SHARED_REGISTERED, __ATOMIC_RELEASE);
	/* Our entry in rt->lc[] is written before go. */
	while (!__atomic_load_n(&t->go, __ATOMIC_ACQUIRE))
		usleep(1000);
	ret = ewyk_strategy_executor_serve_opt(rt->ex, &rt->quit,
		EWYK_STRATEGY_SERVE_RING_ONLY);
	if (ret != 0)
		RT_LOG(ERR, "error: shared reserved lcore %u: %s", t->lcore_id,
			strerror(-ret));
	rte_thread_unregister();
	return NULL;
}

/* The CPUs of the EAL lcores: where the shared threads may run. */
static void
eal_cpus(rte_cpuset_t *set)
{
	unsigned int l, c;

	CPU_ZERO(set);
	RTE_LCORE_FOREACH (l) {
		rte_cpuset_t s = rte_lcore_cpuset(l);

		for (c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &s))
				CPU_SET(c, set);
	}
}

int
rt_shared_start(struct ewyk_rt *rt)
{
	unsigned int n = rt->conf.shared_reserved, i;
	pthread_attr_t attr;
	rte_cpuset_t cpus;
	int ret;

	if (n == 0)
		return 0;
	if (rt->ex == NULL || n > EWYK_RT_MAX_SHARED ||
		rt->nb_lcores + n > EWYK_RT_MAX_LCORES) {
		RT_LOG(ERR,
			"error: --shared-reserved %u: at most %u, and %u lcores in all",
			n, EWYK_RT_MAX_SHARED, EWYK_RT_MAX_LCORES);
		return -1;
	}
	eal_cpus(&cpus);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus);
	for (i = 0; i < n; i++) {
		struct rt_shared *t = &rt->shared[i];
		struct rt_lcore *lc;

		t->rt = rt;
		ret = pthread_create(&t->tid, &attr, shared_main, t);
		if (ret != 0) {
			RT_LOG(ERR,
				"error: shared reserved lcore %u: pthread_create: %s",
				i, strerror(ret));
			pthread_attr_destroy(&attr);
			return -1;
		}
		rt->nb_shared++;
		while (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) ==
			SHARED_STARTING)
			usleep(1000);
		if (t->state == SHARED_FAILED) {
			RT_LOG(ERR,
				"error: shared reserved lcore %u: rte_thread_register: %s",
				i, rte_strerror(t->err));
			pthread_attr_destroy(&attr);
			return -1;
		}
		lc = &rt->lc[rt->nb_lcores];
		lc->lcore_id = t->lcore_id;
		lc->rt = rt;
		lc->reserved = true;
		lc->shared = true;
		lc->shard = -1;
		rt->lc_of[t->lcore_id] = (int16_t)rt->nb_lcores;
		rt->nb_lcores++;
		__atomic_store_n(&t->go, 1, __ATOMIC_RELEASE);
	}
	pthread_attr_destroy(&attr);
	return 0;
}

void
rt_shared_join(struct ewyk_rt *rt)
{
	unsigned int i;

	__atomic_store_n(&rt->quit, 1, __ATOMIC_RELEASE);
	for (i = 0; i < rt->nb_shared; i++) {
		/* A thread that failed or waits for go leaves as well. */
		__atomic_store_n(&rt->shared[i].go, 1, __ATOMIC_RELEASE);
		ewyk_strategy_executor_wake_all(rt->ex);
		pthread_join(rt->shared[i].tid, NULL);
	}
	rt->nb_shared = 0;
}
