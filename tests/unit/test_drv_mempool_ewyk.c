/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the "ewyk" mempool driver: the ops through rte_mempool
 * (bulk get/put with and without a mempool cache, exhaustion, a thread
 * without lcore id), and an mbuf pool made by
 * rte_pktmbuf_pool_create_by_ops(..., "ewyk") passing traffic through a
 * net_null + net_ring vdev pair on two lcores: net_null0 RX allocates from
 * the pool, net_ring0 loops the packets back, net_null0 TX frees them. At
 * the end every mbuf is back in the pool.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <cmocka.h>

#include <errno.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <ewyk_pool.h>

#include "test_common.h"

#define NB_MBUF 2047
#define MP_CACHE 64
#define BURST 32

static void
test_ops_by_name(void **state)
{
	struct rte_mempool *mp;

	(void)state;
	mp = rte_mempool_create_empty("ops_name", 64, 128, 0, 0, SOCKET_ID_ANY,
		0);
	assert_non_null(mp);
	assert_int_equal(rte_mempool_set_ops_byname(mp, "no_such_ops", NULL),
		-EINVAL);
	assert_int_equal(rte_mempool_set_ops_byname(mp, "ewyk", NULL), 0);
	assert_string_equal(rte_mempool_get_ops(mp->ops_index)->name, "ewyk");
	rte_mempool_free(mp);
}

static struct rte_mempool *
mk_mp(const char *name, unsigned int n, unsigned int cache)
{
	struct rte_mempool *mp;

	mp = rte_mempool_create_empty(name, n, 128, cache, 0, SOCKET_ID_ANY, 0);
	assert_non_null(mp);
	assert_int_equal(rte_mempool_set_ops_byname(mp, "ewyk", NULL), 0);
	assert_int_equal(rte_mempool_populate_default(mp), (int)n);
	return mp;
}

/* Every object once, exhaustion, everything back; cache on and off. */
static void
test_ops_bulk(void **state)
{
	static void *objs[512];
	unsigned int cache, i, j;
	struct rte_mempool *mp;
	struct ewyk_pool *pool;
	char name[32];

	(void)state;
	for (cache = 0; cache <= MP_CACHE; cache += MP_CACHE) {
		snprintf(name, sizeof(name), "ops_bulk_%u", cache);
		mp = mk_mp(name, 512, cache);
		assert_string_equal(rte_mempool_get_ops(mp->ops_index)->name,
			"ewyk");
		pool = mp->pool_data;
		assert_non_null(pool);
		assert_ptr_equal(ewyk_pool_lookup(ewyk_pool_name(pool)), pool);
		assert_int_equal(rte_mempool_avail_count(mp), 512);
		for (i = 0; i < 512; i += BURST)
			assert_int_equal(rte_mempool_get_bulk(mp, &objs[i],
						 BURST),
				0);
		assert_int_not_equal(rte_mempool_get_bulk(mp, objs, 1), 0);
		assert_int_equal(rte_mempool_avail_count(mp), 0);
		/* All distinct and all objects of this mempool. */
		for (i = 0; i < 512; i++) {
			assert_ptr_equal(rte_mempool_from_obj(objs[i]), mp);
			for (j = i + 1; j < 512; j++)
				assert_ptr_not_equal(objs[i], objs[j]);
		}
		for (i = 0; i < 512; i += BURST)
			rte_mempool_put_bulk(mp, &objs[i], BURST);
		assert_int_equal(rte_mempool_avail_count(mp), 512);
		assert_true(rte_mempool_full(mp));
		rte_mempool_free(mp);
		/* The driver freed its pool. */
		assert_null(ewyk_pool_lookup(name));
	}
}

static void *
non_eal(void *arg)
{
	struct rte_mempool *mp = arg;
	void *objs[BURST];
	uintptr_t ok = 1;
	int i;

	for (i = 0; i < 1000; i++) {
		ok &= rte_mempool_get_bulk(mp, objs, BURST) == 0;
		rte_mempool_put_bulk(mp, objs, BURST);
	}
	return (void *)ok;
}

static void
test_ops_non_eal_thread(void **state)
{
	struct rte_mempool *mp;
	pthread_t th;
	void *ret;

	(void)state;
	mp = mk_mp("ops_noneal", 256, 0);
	assert_int_equal(pthread_create(&th, NULL, non_eal, mp), 0);
	assert_int_equal(pthread_join(th, &ret), 0);
	assert_true((uintptr_t)ret == 1);
	assert_int_equal(rte_mempool_avail_count(mp), 256);
	rte_mempool_free(mp);
}

/* Traffic: net_null0 RX -> net_ring0 (loopback) -> net_null0 TX. */
struct fwd_arg {
	uint16_t null_port, ring_port;
	uint16_t queue;
	uint64_t bursts;
	uint64_t rx, tx, looped, bad;
};

static int
fwd_loop(void *arg)
{
	struct fwd_arg *f = arg;
	struct rte_mbuf *pkts[BURST];
	uint16_t n, sent, i;
	uint64_t b;

	for (b = 0; b < f->bursts; b++) {
		n = rte_eth_rx_burst(f->null_port, f->queue, pkts, BURST);
		f->rx += n;
		for (i = 0; i < n; i++) {
			if (pkts[i]->pool == NULL ||
				strcmp(pkts[i]->pool->name, "mbuf_ewyk") != 0)
				f->bad++;
			*rte_pktmbuf_mtod(pkts[i], uint64_t *) = b;
		}
		sent = rte_eth_tx_burst(f->ring_port, f->queue, pkts, n);
		if (sent < n)
			rte_pktmbuf_free_bulk(&pkts[sent], n - sent);
		n = rte_eth_rx_burst(f->ring_port, f->queue, pkts, BURST);
		f->looped += n;
		for (i = 0; i < n; i++)
			if (*rte_pktmbuf_mtod(pkts[i], uint64_t *) != b)
				f->bad++;
		sent = rte_eth_tx_burst(f->null_port, f->queue, pkts, n);
		f->tx += sent;
		if (sent < n)
			rte_pktmbuf_free_bulk(&pkts[sent], n - sent);
	}
	return 0;
}

static int
port_setup(uint16_t port, struct rte_mempool *mp, uint16_t nq)
{
	struct rte_eth_conf conf;
	uint16_t q;

	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_configure(port, nq, nq, &conf) != 0)
		return -1;
	for (q = 0; q < nq; q++) {
		if (rte_eth_rx_queue_setup(port, q, 256, SOCKET_ID_ANY, NULL,
			    mp) != 0)
			return -1;
		if (rte_eth_tx_queue_setup(port, q, 256, SOCKET_ID_ANY, NULL) !=
			0)
			return -1;
	}
	return rte_eth_dev_start(port);
}

static int
flush_caches(void *arg)
{
	struct rte_mempool *mp = arg;
	struct rte_mempool_cache *c = rte_mempool_default_cache(mp,
		rte_lcore_id());

	if (c != NULL)
		rte_mempool_cache_flush(c, mp);
	ewyk_pool_cache_flush(mp->pool_data);
	return 0;
}

static void
test_mbuf_traffic(void **state)
{
	struct fwd_arg f[2];
	struct ewyk_pool_stats st;
	struct ewyk_pool_info info;
	struct rte_mempool *mp;
	uint16_t null_port, ring_port;
	unsigned int worker = rte_get_next_lcore(-1, 1, 0);
	int i;

	(void)state;
	mp = rte_pktmbuf_pool_create_by_ops("mbuf_ewyk", NB_MBUF, MP_CACHE, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY, "ewyk");
	assert_non_null(mp);
	assert_string_equal(rte_mempool_get_ops(mp->ops_index)->name, "ewyk");
	assert_int_equal(rte_eth_dev_get_port_by_name("net_null0", &null_port),
		0);
	assert_int_equal(rte_eth_dev_get_port_by_name("net_ring0", &ring_port),
		0);
	assert_int_equal(port_setup(null_port, mp, 2), 0);
	assert_int_equal(port_setup(ring_port, mp, 2), 0);

	/* One queue pair per lcore, both lcores at once. */
	for (i = 0; i < 2; i++) {
		memset(&f[i], 0, sizeof(f[i]));
		f[i].null_port = null_port;
		f[i].ring_port = ring_port;
		f[i].queue = (uint16_t)i;
		f[i].bursts = 20000;
	}
	assert_int_equal(rte_eal_remote_launch(fwd_loop, &f[1], worker), 0);
	fwd_loop(&f[0]);
	assert_int_equal(rte_eal_wait_lcore(worker), 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(f[i].bad, 0);
		assert_true(f[i].rx > 0);
		assert_int_equal(f[i].rx, f[i].looped);
		assert_int_equal(f[i].tx, f[i].looped);
	}
	/* Far more packets than mbufs: every one was recycled. */
	assert_true(f[0].rx + f[1].rx > 100 * NB_MBUF);

	assert_int_equal(rte_eth_dev_stop(null_port), 0);
	assert_int_equal(rte_eth_dev_stop(ring_port), 0);
	/* Every mbuf is back (in the pool or the caches)... */
	assert_int_equal(rte_mempool_avail_count(mp), NB_MBUF);
	/* ...and, caches emptied, in the shared array itself. */
	assert_int_equal(rte_eal_remote_launch(flush_caches, mp, worker), 0);
	rte_eal_wait_lcore(worker);
	flush_caches(mp);
	assert_true(rte_mempool_full(mp));
	assert_int_equal(ewyk_pool_info_get(mp->pool_data, &info), 0);
	assert_int_equal(info.n_idle, NB_MBUF);
	assert_int_equal(info.n_cached, 0);
	assert_int_equal(ewyk_pool_stats_get(mp->pool_data, &st), 0);
	assert_true(st.get_hits > 0);
	assert_int_equal(rte_eth_dev_close(null_port), 0);
	assert_int_equal(rte_eth_dev_close(ring_port), 0);
	rte_mempool_free(mp);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ops_by_name),
		cmocka_unit_test(test_ops_bulk),
		cmocka_unit_test(test_ops_non_eal_thread),
		cmocka_unit_test(test_mbuf_traffic),
	};
	char *args[40];
	int n = 0, i;

	args[n++] = argv[0];
	args[n++] = (char *)"--vdev=net_null0,copy=0,size=64";
	args[n++] = (char *)"--vdev=net_ring0";
	for (i = 1; i < argc && n < 39; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	if (ewyk_test_eal_init(n, args) < 0)
		return 1;
	if (rte_lcore_count() < 2) {
		fprintf(stderr, "needs 2 lcores\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
