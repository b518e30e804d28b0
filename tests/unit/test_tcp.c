/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/tcp unit tests. Most are scripts (tcp_scripts.c, run by the
 * harness in tcp_script.c): crafted segments in, the segments sent,
 * events and counters checked step by step. Then come the API's errors,
 * and the cases of the other test_tcp_*.c files (tcp_script.h), among
 * them a loopback transfer between two endpoints over a lossy, reordering
 * "wire" (test_tcp_loopback.c).
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include <rte_hash_crc.h>
#include <rte_thash.h>

#include "tcp_private.h"
#include "tcp_script.h"
#include "test_common.h"

static void
test_script(void **state)
{
	run_script(*state);
}

static void
test_api_errors(void **state)
{
	static const struct script sc = { .name = "api" };
	struct ewyk_tcp_conf cf;
	struct ewyk_tcp_connect_args a = {
		.dst_ip = PIP,
		.dst_port = PPORT,
		.src_ip = LIP,
		.ops = &app_ops,
	};
	struct ewyk_tcp_conn *c;
	unsigned int i;

	RTE_SET_USED(state);
	memset(&cf, 0, sizeof(cf));
	assert_null(ewyk_tcp_create(NULL));
	assert_int_equal(rte_errno, EINVAL);
	assert_null(ewyk_tcp_create(&cf)); /* no shard, no output */
	assert_int_equal(rte_errno, EINVAL);
	memset(&H, 0, sizeof(H));
	H.lport = LPORT;
	make_ctx(&sc);
	assert_int_equal(ewyk_tcp_listen(H.t, 0, LPORT, &app_ops, NULL, 0),
		-EADDRINUSE);
	assert_int_equal(ewyk_tcp_listen(H.t, 0, 0, &app_ops, NULL, 0),
		-EINVAL);
	assert_int_equal(ewyk_tcp_unlisten(H.t, 0, 99), -ENOENT);
	assert_int_equal(ewyk_tcp_send(NULL, NULL), -EINVAL);
	/* Ephemeral ports, duplicate 4-tuples, pool exhaustion. */
	c = ewyk_tcp_connect(H.t, &a);
	assert_non_null(c);
	assert_int_equal(ewyk_tcp_send_space(c), 0); /* not established */
	assert_int_equal(ewyk_tcp_shutdown(c), -ENOTCONN);
	a.src_port = 1234;
	assert_non_null(ewyk_tcp_connect(H.t, &a));
	assert_null(ewyk_tcp_connect(H.t, &a));
	assert_int_equal(rte_errno, EADDRINUSE);
	a.src_port = 0;
	for (i = 0; i < 100; i++)
		if (ewyk_tcp_connect(H.t, &a) == NULL)
			break;
	assert_true(i < 100);
	assert_int_equal(rte_errno, ENOMEM);
	assert_true(ewyk_tcp_counter_get(H.t, EWYK_TCP_DROP_NO_CONN_MEM) > 0);
	assert_int_equal(ewyk_tcp_state_count(H.t, EWYK_TCP_SYN_SENT), 64);
	ewyk_tcp_close(c);
	assert_int_equal(ewyk_tcp_state_count(H.t, EWYK_TCP_SYN_SENT), 63);
	for (i = 0; i < EWYK_TCP_COUNTER_MAX; i++)
		assert_non_null(
			ewyk_tcp_counter_name((enum ewyk_tcp_counter)i));
	assert_null(ewyk_tcp_counter_name(EWYK_TCP_COUNTER_MAX));
	assert_string_equal(ewyk_tcp_state_name(EWYK_TCP_TIME_WAIT),
		"TIME_WAIT");
	assert_true(ewyk_tcp_flow_shard(LIP, 1000, PIP, 80, 4) < 4);
	assert_int_equal(ewyk_tcp_flow_shard(LIP, 1000, PIP, 80, 1), 0);
	h_free();
	/* Let the segments sent go. */
	memset(&H, 0, sizeof(H));
}

/*
 * The connection table is keyed per context (SipHash, getentropy): 4-tuples
 * an attacker picks to share one bucket of the CRC32C with a constant seed
 * the table used are spread by it, and two contexts do not agree. The SYN
 * cookie key is not the ISN key.
 */
static int
drop_output(void *arg, struct rte_mbuf *m, uint16_t port, rte_be32_t src,
	rte_be32_t dst)
{
	RTE_SET_USED(arg);
	RTE_SET_USED(port);
	RTE_SET_USED(src);
	RTE_SET_USED(dst);
	rte_pktmbuf_free(m);
	return 0;
}

static void
test_table_keyed(void **state)
{
	struct ewyk_tcp_conf cf;
	struct ewyk_tcp *t1, *t2;
	uint32_t seen[64], n = 0, nb = 0, same = 0, i, k;
	uint16_t port[16];

	RTE_SET_USED(state);
	memset(&cf, 0, sizeof(cf));
	cf.output = drop_output;
	cf.tx_pool = mp;
	cf.socket_id = SOCKET_ID_ANY;
	cf.max_conns = 64;
	t1 = ewyk_tcp_create(&cf);
	t2 = ewyk_tcp_create(&cf);
	assert_non_null(t1);
	assert_non_null(t2);
	for (i = 1024; i < 65536 && n < RTE_DIM(port); i++) {
		uint32_t h = rte_hash_crc_4byte(LIP, 0x9e3779b9);

		h = rte_hash_crc_4byte(PIP, h);
		h = rte_hash_crc_4byte(((uint32_t)LPORT << 16) | i, h);
		if ((h & t1->hmask) == 0)
			port[n++] = (uint16_t)i;
	}
	assert_int_equal(n, RTE_DIM(port));
	for (i = 0; i < n; i++) {
		uint32_t b = tcp_hash(t1, LIP, LPORT, PIP, port[i]) & t1->hmask;

		for (k = 0; k < nb && seen[k] != b; k++)
			;
		if (k == nb)
			seen[nb++] = b;
		if (tcp_hash(t2, LIP, LPORT, PIP, port[i]) ==
			tcp_hash(t1, LIP, LPORT, PIP, port[i]))
			same++;
	}
	assert_true(nb >= 4);
	assert_int_equal(same, 0);
	assert_true(t1->ck0 != t1->k0 && t1->ck1 != t1->k1);
	ewyk_tcp_free(t1);
	ewyk_tcp_free(t2);
}

/*
 * The shard of an IPv6 flow is the one the NIC's RSS picks for its return
 * traffic: DPDK's IPv6 TCP tuple (rte_thash_load_v6_addrs) through lib/net's
 * key, and it takes the whole address (a flow differing in any byte may
 * land elsewhere, which a hash over part of it would never do).
 */
static void
test_flow_shard6(void **state)
{
	struct rte_ipv6_hdr ip;
	union rte_thash_tuple tu;
	const uint8_t *key;
	uint8_t klen;
	unsigned int i, moved = 0;

	RTE_SET_USED(state);
	key = ewyk_net_rss_key(&klen);
	memset(&ip, 0, sizeof(ip));
	memcpy(ip.src_addr, PIP6, 16); /* the return traffic: from the peer */
	memcpy(ip.dst_addr, LIP6, 16);
	rte_thash_load_v6_addrs(&ip, &tu);
	tu.v6.sport = 40000;
	tu.v6.dport = 80;
	assert_int_equal(ewyk_tcp_flow_shard6(LIP6, 80, PIP6, 40000, 16),
		(rte_softrss((uint32_t *)&tu, RTE_THASH_V6_L4_LEN, key) &
			0x7f) %
			16);
	assert_int_equal(ewyk_tcp_flow_shard6(LIP6, 80, PIP6, 40000, 1), 0);
	for (i = 0; i < 16; i++) {
		uint8_t p[16];

		memcpy(p, PIP6, 16);
		p[i] ^= 0x40;
		moved += ewyk_tcp_flow_shard6(LIP6, 80, p, 40000, 64) !=
			ewyk_tcp_flow_shard6(LIP6, 80, PIP6, 40000, 64);
	}
	assert_true(moved >= 8);
}

/* Every script again over IPv6: the copies, named NAME_v6. */
static struct script v6_copies[160];
static char v6_names[160][48];

static unsigned int
add_scripts(struct CMUnitTest *tests, unsigned int n, unsigned int max,
	const struct script *sc, unsigned int nsc, unsigned int *ncopy)
{
	unsigned int i;

	for (i = 0; i < nsc && n < max; i++) {
		const struct script *run = &sc[i];

		if (ncopy != NULL) {
			if (*ncopy >= RTE_DIM(v6_copies))
				break;
			v6_copies[*ncopy] = sc[i];
			v6_copies[*ncopy].v6 = true;
			snprintf(v6_names[*ncopy], sizeof(v6_names[0]), "%s_v6",
				sc[i].name);
			v6_copies[*ncopy].name = v6_names[*ncopy];
			run = &v6_copies[(*ncopy)++];
		}
		tests[n].name = run->name;
		tests[n].test_func = test_script;
		tests[n].setup_func = NULL;
		tests[n].teardown_func = NULL;
		tests[n].initial_state = (void *)(uintptr_t)run;
		n++;
	}
	return n;
}

int
main(int argc, char **argv)
{
	struct CMUnitTest tests[320];
	unsigned int n = 0, ncopy = 0;

	if (ewyk_test_eal_init(argc, argv) < 0)
		return 1;
	mp = rte_pktmbuf_pool_create("test_tcp", 32768, 256, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (mp == NULL)
		return 1;
	n = add_scripts(tests, n, RTE_DIM(tests) - 32, tcp_scripts,
		tcp_nscripts, NULL);
	n = add_scripts(tests, n, RTE_DIM(tests) - 32, tcp_hard_scripts,
		tcp_hard_nscripts, NULL);
	n = add_scripts(tests, n, RTE_DIM(tests) - 32, tcp_scripts,
		tcp_nscripts, &ncopy);
	n = add_scripts(tests, n, RTE_DIM(tests) - 32, tcp_hard_scripts,
		tcp_hard_nscripts, &ncopy);
	n = add_scripts(tests, n, RTE_DIM(tests) - 32, tcp_v6_scripts,
		tcp_v6_nscripts, NULL);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_flow_shard6);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_api_errors);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_challenge_random);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_table_keyed);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_send_coalesce);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_ooo_pinned);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_ooo_coalesce);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_send_under_flood);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_echo_zero_window);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_echo_recv_budget);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_nagle);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_abort_all);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_listen6_api);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_conn_own_ops);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_shard_contexts);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_backpressure);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_src_limit_big);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tcp_src_hash);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_timers_wait);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_resume_fair);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(
		test_tx_wait_del_middle);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_loopback_clean);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(
		test_loopback_lossy_sack);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(
		test_loopback_lossy_plain);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_loopback_many);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(
		test_loopback_shared_buf);
	return _cmocka_run_group_tests("tcp", tests, n, NULL, NULL);
}