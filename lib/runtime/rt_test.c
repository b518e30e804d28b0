/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The unit tests' seam (rt_test.h): a virtual clock and single steps of
 * a shard's loop.
 */

#include <errno.h>
#include <stdint.h>

#include "rt_http.h"
#include "rt_test.h"

uint64_t (*rt_clock_fn)(void);

void
rt_test_set_clock(uint64_t (*now)(void))
{
	__atomic_store_n(&rt_clock_fn, now, __ATOMIC_RELEASE);
}

int
rt_test_start(struct ewyk_rt *rt)
{
	if (rt == NULL || rt->running || rt->ran)
		return -1;
	return rt_start_shards(rt);
}

int
rt_test_step(struct ewyk_rt *rt, unsigned int shard)
{
	struct ewyk_strategy_producer *p;
	int rc;

	if (rt == NULL || shard >= rt->nb_shards || rt->running)
		return -EINVAL;
	p = rt->sh[shard].producer;
	/* A polling producer releases its token at the first empty burst
	 * only when asked to stop. */
	ewyk_strategy_producer_stop(p);
	rc = ewyk_strategy_producer_run(p);
	ewyk_strategy_producer_resume(p);
	return rc;
}

unsigned int
rt_test_run_queued(struct ewyk_rt *rt, unsigned int max)
{
	if (rt == NULL || rt->ex == NULL)
		return 0;
	return ewyk_strategy_executor_run_queued(rt->ex, max);
}

int
rt_test_http_tasks(struct ewyk_rt *rt, unsigned int shard)
{
	struct ewyk_pool_info info;
	struct rt_http_shard *hs;

	if (rt == NULL || shard >= rt->nb_shards)
		return -1;
	hs = rt->sh[shard].hs;
	if (hs == NULL || hs->tasks == NULL)
		return -1;
	ewyk_pool_cache_flush(hs->tasks);
	if (ewyk_pool_info_get(hs->tasks, &info) != 0)
		return -1;
	return (int)(info.n_in_use - info.n_cached);
}

struct ewyk_http2_server *
rt_test_h2_server(struct ewyk_rt *rt, unsigned int shard)
{
	if (rt == NULL || shard >= rt->nb_shards)
		return NULL;
	return rt->sh[shard].h2;
}
