/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/pool's injectable lcore -> NUMA node mapping and where it places
 * entries. Run by test_pool.c's main.
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

void
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
