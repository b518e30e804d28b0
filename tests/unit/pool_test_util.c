/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lib/pool unit tests' shared helpers (pool_test_util.h).
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

struct ewyk_pool *
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

struct ewyk_pool_entry_info
st(struct ewyk_pool *p, void *obj)
{
	struct ewyk_pool_entry_info i;

	assert_int_equal(ewyk_pool_obj_state(p, obj, &i), 0);
	return i;
}

unsigned int ctor_calls, retire_calls;

void
ctor(struct ewyk_pool *p, void *obj, uint32_t idx, void *arg)
{
	struct tobj *o = obj;

	(void)p;
	assert_ptr_equal(arg, &ctor_calls);
	o->ctor_idx = idx;
	o->tag = 0;
	ctor_calls++;
}

void
retire(struct ewyk_pool *p, void *obj, uint32_t idx, void *arg)
{
	(void)p;
	(void)obj;
	(void)idx;
	assert_ptr_equal(arg, &ctor_calls);
	retire_calls++;
}

int
lcore_flush(void *arg)
{
	ewyk_pool_cache_flush(arg);
	return 0;
}
