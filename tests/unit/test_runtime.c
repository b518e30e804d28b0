/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lib/runtime: the configuration and its options; the
 * runtime itself, stepped on a virtual clock (runtime_test_util.h), in
 * test_runtime_dispatch.c (HTTP dispatch) and test_runtime_jobs.c
 * (modules and jobs).
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>

#include <cmocka.h>

#include <ewyk_runtime.h>

#include "runtime_test_util.h"
#include "test_common.h"

static int
parse(struct ewyk_rt_conf *c, const struct ewyk_rt_opt *o, unsigned int n,
	int argc, const char **argv)
{
	ewyk_rt_conf_init(c, "test");
	return ewyk_rt_parse_args(c, argc, (char **)(uintptr_t)argv, o, n);
}

static void
test_conf_defaults(void **state)
{
	const char *argv[] = { "t", "--ip", "10.0.0.1/24" };
	struct ewyk_rt_conf c;

	(void)state;
	assert_int_equal(parse(&c, NULL, 0, 3, argv), 0);
	assert_int_equal(c.nb_ips, 1);
	assert_int_equal(c.prefix[0], 24);
	assert_int_equal(c.strategy, EWYK_STRATEGY_ADAPTIVE);
	assert_int_equal(c.task_timeout_ms, 5000);
	/* capacity from the memory: ewyk_rt_create() sizes TCP, then
	 * derives the rest */
	assert_int_equal(c.tcp_max_conns, 0);
	assert_int_equal(c.http_max_conns, 0);
	assert_int_equal(parse(&c, NULL, 0, 5,
				 (const char *[]){ "t", "--ip", "10.0.0.1/24",
					 "--tcp-max-conns", "16384" }),
		0);
	/* derived limits */
	assert_int_equal(c.tcp_max_per_src, 16384 / 4);
	assert_int_equal(c.http_max_conns, c.tcp_max_conns);
	assert_int_equal(c.http_max_per_src, c.http_max_conns / 4);
	assert_int_equal(c.http_port, UINT16_MAX); /* the application's */
}

/* Connections per shard from the memory: the formula of the guide. */
static void
test_conf_capacity(void **state)
{
	struct ewyk_rt_conf c;
	uint64_t mib = UINT64_C(1) << 20;

	(void)state;
	ewyk_rt_conf_init(&c, "t");
	/* -m 512, one shard: 512 MiB less 16383 mbufs (36 MiB) and 2048
	 * leases (54 MiB), a quarter of it at 1 KiB: 105k, so 65536 */
	assert_int_equal(ewyk_rt_conf_capacity(&c, 1, 512 * mib), 65536);
	assert_int_equal(ewyk_rt_conf_capacity(&c, 2, 512 * mib), 32768);
	/* 24 GiB, one shard: 6 GiB at 1 KiB is over the bound */
	assert_int_equal(ewyk_rt_conf_capacity(&c, 1, 24 * 1024 * mib),
		EWYK_RT_MAX_CONNS);
	assert_int_equal(ewyk_rt_conf_capacity(&c, 8, 24 * 1024 * mib), 524288);
	/* nothing left: the floor */
	assert_int_equal(ewyk_rt_conf_capacity(&c, 4, 128 * mib),
		EWYK_RT_MIN_CONNS);
	assert_int_equal(ewyk_rt_conf_capacity(&c, 0, 0), EWYK_RT_MIN_CONNS);
	/* fewer mbufs and leases leave more */
	assert_int_equal(ewyk_rt_conf_capacity(&c, 4, 512 * mib), 8192);
	c.nb_mbufs = 1023;
	c.http_max_heads = 64;
	assert_int_equal(ewyk_rt_conf_capacity(&c, 4, 512 * mib), 16384);
}

static void
test_conf_errors(void **state)
{
	const char *no_ip[] = { "t" };
	const char *bad_ip[] = { "t", "--ip", "10.0.0.1" };
	const char *bad_num[] = { "t", "--ip", "10.0.0.1/24", "--reserved",
		"x" };
	const char *bad_strategy[] = { "t", "--ip", "10.0.0.1/24", "--strategy",
		"fast" };
	const char *stray[] = { "t", "--ip", "10.0.0.1/24", "stray" };
	const char *per_src[] = { "t", "--ip", "10.0.0.1/24", "--tcp-max-conns",
		"100", "--tcp-max-per-src", "200" };
	struct ewyk_rt_conf c;

	(void)state;
	assert_int_equal(parse(&c, NULL, 0, 1, no_ip), -1);
	assert_int_equal(parse(&c, NULL, 0, 3, bad_ip), -1);
	assert_int_equal(parse(&c, NULL, 0, 5, bad_num), -1);
	assert_int_equal(parse(&c, NULL, 0, 5, bad_strategy), -1);
	assert_int_equal(parse(&c, NULL, 0, 4, stray), -1);
	assert_int_equal(parse(&c, NULL, 0, 7, per_src), -1);
	/* checked at parse time though the capacity is not known yet */
	assert_int_equal(parse(&c, NULL, 0, 5,
				 (const char *[]){ "t", "--ip", "10.0.0.1/24",
					 "--tcp-mbuf-budget", "20000" }),
		-1);
}

static void
test_conf_ip6(void **state)
{
	static const uint8_t want0[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
	static const uint8_t want1[16] = { 0xfd, 0x00, [14] = 0xab, 0xcd };
	const char *none[] = { "t", "--ip", "10.0.0.1/24" };
	const char *two[] = { "t", "--ip", "10.0.0.1/24", "--ip", "10.1.0.1/24",
		"--ip6", "2001:db8::2/64", "--ip6", "fd00::abcd/128" };
	const char *one_of_two[] = { "t", "--ip", "10.0.0.1/24", "--ip",
		"10.1.0.1/24", "--ip6", "2001:db8::2/64" };
	const char *more_than_ports[] = { "t", "--ip", "10.0.0.1/24", "--ip6",
		"2001:db8::2/64", "--ip6", "2001:db8:1::2/64" };
	const char *bad[] = {
		"2001:db8::2",     /* no length */
		"2001:db8::2/",    /* empty length */
		"2001:db8::2/0",   /* length 0 */
		"2001:db8::2/129", /* length over 128 */
		"2001:db8::2/64x", /* trailing junk */
		"2001:db8::2/-1",  /* negative */
		"2001:db8:::2/64", /* not an address */
		"10.0.0.1/24",     /* IPv4 */
		"::/64",           /* unspecified */
		"::1/128",         /* loopback */
		"fe80::1/64",      /* link-local: made from the MAC */
		"febf::1/64",      /* link-local too (fe80::/10) */
		"ff02::1/64",      /* multicast */
		"2001:0db8:0000:0000:0000:0000:0000:0002/64/1", /* too long */
	};
	const char *argv[] = { "t", "--ip", "10.0.0.1/24", "--ip6", NULL };
	struct ewyk_rt_conf c;
	unsigned int i;

	(void)state;
	assert_int_equal(parse(&c, NULL, 0, 3, none), 0);
	assert_int_equal(c.nb_ip6s, 0);
	assert_int_equal(parse(&c, NULL, 0, 9, two), 0);
	assert_int_equal(c.nb_ip6s, 2);
	assert_memory_equal(c.ip6[0], want0, 16);
	assert_int_equal(c.prefix6[0], 64);
	assert_memory_equal(c.ip6[1], want1, 16);
	assert_int_equal(c.prefix6[1], 128);
	/* ports past the last --ip6 are IPv4-only */
	assert_int_equal(parse(&c, NULL, 0, 7, one_of_two), 0);
	assert_int_equal(c.nb_ips, 2);
	assert_int_equal(c.nb_ip6s, 1);
	/* at most one per port */
	assert_int_equal(parse(&c, NULL, 0, 7, more_than_ports), -1);
	for (i = 0; i < RTE_DIM(bad); i++) {
		argv[4] = bad[i];
		assert_int_equal(parse(&c, NULL, 0, 5, argv), -1);
	}
	argv[4] = "2001:db8::2/1";
	assert_int_equal(parse(&c, NULL, 0, 5, argv), 0);
	assert_int_equal(c.prefix6[0], 1);
}

struct app_opts {
	unsigned long n;
	int flag;
};

static int
opt_n(const char *val, void *arg)
{
	struct app_opts *a = arg;

	return ewyk_rt_opt_ulong("n", val, 1, 10, &a->n);
}

static int
opt_flag(const char *val, void *arg)
{
	struct app_opts *a = arg;

	assert_null(val);
	a->flag = 1;
	return 0;
}

static void
test_conf_app_options(void **state)
{
	struct app_opts a = { 0, 0 };
	const struct ewyk_rt_opt opts[] = {
		{ "n", 1, "a number", opt_n, &a },
		{ "flag", 0, "a flag", opt_flag, &a },
	};
	const char *ok[] = { "t", "--n", "7", "--ip", "10.0.0.1/24", "--flag",
		"--port", "8080" };
	const char *bad[] = { "t", "--ip", "10.0.0.1/24", "--n", "11" };
	const char *help[] = { "t", "--help" };
	struct ewyk_rt_conf c;

	(void)state;
	assert_int_equal(parse(&c, opts, 2, 8, ok), 0);
	assert_int_equal(a.n, 7);
	assert_int_equal(a.flag, 1);
	assert_int_equal(c.http_port, 8080);
	assert_int_equal(parse(&c, opts, 2, 5, bad), -1);
	assert_int_equal(parse(&c, opts, 2, 2, help), 1);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conf_defaults),
		cmocka_unit_test(test_conf_capacity),
		cmocka_unit_test(test_conf_errors),
		cmocka_unit_test(test_conf_ip6),
		cmocka_unit_test(test_conf_app_options),
		cmocka_unit_test(test_dispatch_result),
		cmocka_unit_test(test_dispatch_nonblocking_and_failed),
		cmocka_unit_test(test_dispatch_deadline_pc),
		cmocka_unit_test(test_dispatch_deadline_queued),
		cmocka_unit_test(test_dispatch_refused),
		cmocka_unit_test(test_dispatch_conn_gone),
		cmocka_unit_test(test_dispatch_pipelined_order),
		cmocka_unit_test(test_dispatch_stop_in_flight),
		cmocka_unit_test(test_dispatch_body),
		cmocka_unit_test(test_modules_order),
		cmocka_unit_test(test_modules_init_fails),
		cmocka_unit_test(test_job_done),
		cmocka_unit_test(test_job_cancel),
		cmocka_unit_test(test_job_deadline),
		cmocka_unit_test(test_v6_request),
		cmocka_unit_test(test_v6_pmtu_expiry),
		cmocka_unit_test(test_v6_nd_confirm_by_ack),
		cmocka_unit_test(test_h2_streams),
		cmocka_unit_test(test_h2_deadline_refused),
		cmocka_unit_test(test_h2_stream_reset),
		cmocka_unit_test(test_h2_task_counters),
		cmocka_unit_test(test_h2_burst_one_flush),
		cmocka_unit_test(test_h2_body_share),
		cmocka_unit_test(test_h2_body_streamed),
		cmocka_unit_test(test_h2_body_pieces_counted),
		cmocka_unit_test(test_h2_body_piece_fail_counted),
		cmocka_unit_test(test_h2_body_streamed_reset),
		cmocka_unit_test(test_h2_body_release_fails),
		cmocka_unit_test(test_h2_body_ring_lazy),
		cmocka_unit_test(test_h2_body_consumer_fails),
		cmocka_unit_test(test_h2_body_piece_deadline),
		cmocka_unit_test(test_h2_body_too_large),
	};

	/* lcore 0: the one worker (the test steps its shard); lcore 1: a
	 * reserved lcore that is never launched. */
	if (ewyk_test_eal_init(argc, argv) < 0 || rtw_global_init() != 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
