/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lib/common: the single-writer counter add, counter tables
 * as Prometheus text, the registry of named objects and its telemetry
 * commands.
 */

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include <ewyk_common.h>
#include <ewyk_ctr.h>
#include <ewyk_net.h>
#include <ewyk_tcp.h>

#include "test_common.h"

/* ---- Single-writer counters ---- */

#define CTR_ADDS 1000000u

static void *
ctr_writer(void *arg)
{
	uint64_t *c = arg;
	unsigned int i;

	for (i = 0; i < CTR_ADDS; i++)
		ewyk_ctr_add(c, 3);
	return NULL;
}

/* One thread adds, another reads: every read is a whole value the writer
 * stored (a multiple of 3, never going back), and the last is the sum.
 */
static void
test_ctr_single_writer(void **state)
{
	uint64_t c = 0, prev = 0, v;
	pthread_t w;

	(void)state;
	assert_int_equal(pthread_create(&w, NULL, ctr_writer, &c), 0);
	do {
		v = ewyk_ctr_read(&c);
		assert_true(v >= prev);
		assert_int_equal(v % 3, 0);
		prev = v;
	} while (v < 3ull * CTR_ADDS);
	assert_int_equal(pthread_join(w, NULL), 0);
	assert_int_equal(ewyk_ctr_read(&c), 3ull * CTR_ADDS);
	ewyk_ctr_sub(&c, 3ull * CTR_ADDS - 1);
	assert_int_equal(ewyk_ctr_read(&c), 1);
	ewyk_ctr_sub(&c, 1);
	assert_int_equal(c, 0);
	ewyk_ctr_add(&c, UINT64_MAX);
	ewyk_ctr_add(&c, 2);
	assert_int_equal(c, 1); /* wraps as unsigned */
}

/* ---- Prometheus text ---- */

static const struct ewyk_ctr_desc two[] = {
	{ "rx_pkts", "Frames received", EWYK_CTR_COUNTER },
	{ "in_use", "Objects in use", EWYK_CTR_GAUGE },
};

static const char two_text[] =
	"# HELP ewyk_x_rx_pkts_total Frames received\n"
	"# TYPE ewyk_x_rx_pkts_total counter\n"
	"ewyk_x_rx_pkts_total{shard=\"0\"} 5\n"
	"ewyk_x_rx_pkts_total{shard=\"1\"} 18446744073709551615\n"
	"# HELP ewyk_x_in_use Objects in use\n"
	"# TYPE ewyk_x_in_use gauge\n"
	"ewyk_x_in_use{shard=\"0\"} 7\n"
	"ewyk_x_in_use{shard=\"1\"} 0\n";

static void
test_prom_exact(void **state)
{
	const uint64_t v0[] = { 5, 7 }, v1[] = { UINT64_MAX, 0 };
	const struct ewyk_prom_series ser[] = {
		{ "shard=\"0\"", v0 },
		{ "shard=\"1\"", v1 },
	};
	char buf[1024];
	int n;

	(void)state;
	n = ewyk_ctr_prometheus(buf, sizeof(buf), "ewyk_x", two, 2, ser, 2);
	assert_int_equal(n, (int)strlen(two_text));
	assert_string_equal(buf, two_text);
	/* the length alone */
	assert_int_equal(ewyk_ctr_prometheus(NULL, 0, "ewyk_x", two, 2, ser, 2),
		n);
	/* truncated as snprintf, NUL-terminated, same length returned */
	memset(buf, 'z', sizeof(buf));
	assert_int_equal(ewyk_ctr_prometheus(buf, 40, "ewyk_x", two, 2, ser, 2),
		n);
	assert_int_equal(strlen(buf), 39);
	assert_memory_equal(buf, two_text, 39);
	/* no label set: bare samples */
	{
		const struct ewyk_prom_series bare = { NULL, v0 };

		n = ewyk_ctr_prometheus(buf, sizeof(buf), "ewyk_x", two, 1,
			&bare, 1);
		assert_true(n > 0);
		assert_non_null(strstr(buf, "\newyk_x_rx_pkts_total 5\n"));
	}
}

static void
test_prom_invalid(void **state)
{
	static const struct ewyk_ctr_desc bad_name[] = {
		{ "rx-pkts", "dash", EWYK_CTR_COUNTER },
	};
	static const struct ewyk_ctr_desc bad_help[] = {
		{ "rx", "two\nlines", EWYK_CTR_COUNTER },
	};
	const uint64_t v[] = { 1, 2 };
	const struct ewyk_prom_series ser = { NULL, v };
	char buf[256];

	(void)state;
	assert_int_equal(ewyk_ctr_prometheus(buf, sizeof(buf), "9x", two, 2,
				 &ser, 1),
		-EINVAL);
	assert_int_equal(ewyk_ctr_prometheus(buf, sizeof(buf), NULL, two, 2,
				 &ser, 1),
		-EINVAL);
	assert_int_equal(ewyk_ctr_prometheus(NULL, 10, "x", two, 2, &ser, 1),
		-EINVAL);
	assert_int_equal(ewyk_ctr_prometheus(buf, sizeof(buf), "x", bad_name, 1,
				 &ser, 1),
		-EINVAL);
	assert_int_equal(ewyk_ctr_prometheus(buf, sizeof(buf), "x", bad_help, 1,
				 &ser, 1),
		-EINVAL);
	assert_int_equal(ewyk_ctr_prometheus(buf, sizeof(buf), "x", two, 2,
				 NULL, 1),
		-EINVAL);
}

/* The counter lists of lib/net and lib/tcp, as the libs expand them. */
static const struct ewyk_ctr_desc net_list[] = { EWYK_NET_COUNTERS(
	EWYK_CTR_DESC) };
static const struct ewyk_ctr_desc tcp_list[] = { EWYK_TCP_COUNTERS(
	EWYK_CTR_DESC) };

static void
test_counter_lists(void **state)
{
	unsigned int i;

	(void)state;
	assert_int_equal(RTE_DIM(net_list), EWYK_NET_COUNTER_MAX);
	assert_int_equal(RTE_DIM(tcp_list), EWYK_TCP_COUNTER_MAX);
	for (i = 0; i < EWYK_NET_COUNTER_MAX; i++)
		assert_string_equal(ewyk_net_counter_name(i), net_list[i].name);
	for (i = 0; i < EWYK_TCP_COUNTER_MAX; i++)
		assert_string_equal(ewyk_tcp_counter_name(i), tcp_list[i].name);
	assert_string_equal(ewyk_net_counter_name(EWYK_NET_DROP_TOO_BIG),
		"drop_too_big");
	assert_string_equal(ewyk_tcp_counter_name(EWYK_TCP_ESTABLISHED_CONNS),
		"established");
	assert_null(ewyk_net_counter_name(EWYK_NET_COUNTER_MAX));
	assert_null(ewyk_tcp_counter_name(EWYK_TCP_COUNTER_MAX));
}

/* Both lists, two shards, through promtool (skipped without it). */
static void
test_promtool(void **state)
{
#ifdef EWYK_PROMTOOL
	/* room for the longer list: each is read through the same rows */
	static uint64_t
		v[2][(int)EWYK_TCP_COUNTER_MAX > (int)EWYK_NET_COUNTER_MAX ?
				EWYK_TCP_COUNTER_MAX :
				EWYK_NET_COUNTER_MAX];
	const struct ewyk_prom_series ser[] = {
		{ "shard=\"0\"", v[0] },
		{ "shard=\"1\"", v[1] },
	};
	static char buf[65536];
	unsigned int i;
	int n;

	(void)state;
	for (i = 0; i < RTE_DIM(v[0]); i++) {
		v[0][i] = i;
		v[1][i] = 1000 + i;
	}
	n = ewyk_ctr_prometheus(buf, sizeof(buf), "ewyk_net", net_list,
		RTE_DIM(net_list), ser, 2);
	assert_true(n > 0 && (size_t)n < sizeof(buf));
	assert_int_equal(ewyk_test_promtool_check(buf), 0);
	n = ewyk_ctr_prometheus(buf, sizeof(buf), "ewyk_tcp", tcp_list,
		RTE_DIM(tcp_list), ser, 2);
	assert_true(n > 0 && (size_t)n < sizeof(buf));
	assert_int_equal(ewyk_test_promtool_check(buf), 0);
	/* and what promtool refuses: a counter without _total is linted */
	assert_int_not_equal(
		ewyk_test_promtool_check(
			"# HELP x_rx x\n# TYPE x_rx counter\nx_rx 1\n"),
		0);
#else
	(void)state;
	skip();
#endif
}

/* ---- registry ---- */

struct thing {
	uint64_t a, b;
	const char *colour;
};

static const struct ewyk_ctr_desc thing_ctr[] = {
	{ "a", "Counter a", EWYK_CTR_COUNTER },
	{ "b", "Gauge b", EWYK_CTR_GAUGE },
};

static void
thing_read(const void *obj, uint64_t *v)
{
	const struct thing *t = obj;

	v[0] = t->a;
	v[1] = t->b;
}

static void
thing_describe(const void *obj, struct rte_tel_data *d)
{
	rte_tel_data_add_dict_string(d, "colour",
		((const struct thing *)obj)->colour);
}

static const struct ewyk_registry things = {
	.lib = "testthing",
	.what = "test things",
	.ctr = thing_ctr,
	.nb_ctr = RTE_DIM(thing_ctr),
	.read = thing_read,
	.describe = thing_describe,
};

static void
test_registry(void **state)
{
	struct thing t1 = { 3, 4, "red" }, t2 = { 10, 20, "blue" };
	struct rte_malloc_socket_stats before, after;
	struct rte_tel_data *d;
	char buf[1024];
	char name[EWYK_REGISTRY_NAMESIZE + 1];
	int n;

	(void)state;
	rte_malloc_get_socket_stats(0, &before);
	/* empty: nothing found, no memory held */
	assert_null(ewyk_registry_lookup(&things, "one"));
	assert_int_equal(rte_errno, ENOENT);
	assert_int_equal(ewyk_registry_del(&things, &t1), -ENOENT);

	assert_int_equal(ewyk_registry_add(&things, "one", &t1), 0);
	assert_int_equal(ewyk_registry_add(&things, "two", &t2), 0);
	assert_int_equal(ewyk_registry_add(&things, "one", &t2), -EEXIST);
	assert_int_equal(ewyk_registry_add(&things, "", &t2), -EINVAL);
	assert_int_equal(ewyk_registry_add(&things, "x", NULL), -EINVAL);
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	assert_int_equal(ewyk_registry_add(&things, name, &t2), -EINVAL);
	name[EWYK_REGISTRY_NAMESIZE - 1] = '\0'; /* the longest */
	assert_int_equal(ewyk_registry_add(&things, name, &t2), 0);
	assert_ptr_equal(ewyk_registry_lookup(&things, name), &t2);
	assert_int_equal(ewyk_registry_del(&things, &t2), 0); /* first match */
	assert_ptr_equal(ewyk_registry_lookup(&things, "one"), &t1);
	assert_null(ewyk_registry_lookup(&things, "two"));
	assert_ptr_equal(ewyk_registry_lookup(&things, name), &t2);
	assert_int_equal(ewyk_registry_del(&things, &t2), 0);
	assert_int_equal(ewyk_registry_add(&things, "two", &t2), 0);

	/* one series per object, in registration order */
	n = ewyk_registry_prometheus(&things, "name", buf, sizeof(buf));
	assert_true(n > 0);
	assert_string_equal(buf,
		"# HELP ewyk_testthing_a_total Counter a\n"
		"# TYPE ewyk_testthing_a_total counter\n"
		"ewyk_testthing_a_total{name=\"one\"} 3\n"
		"ewyk_testthing_a_total{name=\"two\"} 10\n"
		"# HELP ewyk_testthing_b Gauge b\n"
		"# TYPE ewyk_testthing_b gauge\n"
		"ewyk_testthing_b{name=\"one\"} 4\n"
		"ewyk_testthing_b{name=\"two\"} 20\n");

	/* telemetry: the three shapes answer; an unknown name is refused */
	d = rte_tel_data_alloc();
	assert_non_null(d);
	assert_int_equal(ewyk_registry_tel_list(&things, NULL, d), 0);
	assert_int_equal(ewyk_registry_tel_stats(&things, NULL, d), 0);
	assert_int_equal(ewyk_registry_tel_stats(&things, "", d), 0);
	assert_int_equal(ewyk_registry_tel_stats(&things, "two", d), 0);
	assert_int_equal(ewyk_registry_tel_stats(&things, "three", d), -EINVAL);
	rte_tel_data_free(d);

	assert_int_equal(ewyk_registry_del(&things, &t1), 0);
	assert_int_equal(ewyk_registry_del(&things, &t2), 0);
	assert_int_equal(ewyk_registry_del(&things, &t2), -ENOENT);
	/* the last one out freed the table */
	rte_malloc_get_socket_stats(0, &after);
	assert_int_equal(after.heap_allocsz_bytes, before.heap_allocsz_bytes);
	n = ewyk_registry_prometheus(&things, "name", buf, sizeof(buf));
	assert_non_null(strstr(buf, "# TYPE ewyk_testthing_b gauge\n"));
	assert_null(strstr(buf, "name="));
}

/* Registries of the metrics page: those with a label key, in the order of
 * their first object; one without a label key is not on it. */
static const struct ewyk_registry gadgets = {
	.lib = "testgadget",
	.what = "test gadgets",
	.ctr = thing_ctr,
	.nb_ctr = RTE_DIM(thing_ctr),
	.read = thing_read,
	.prom_label = "shard",
};
static const struct ewyk_registry widgets = {
	.lib = "testwidget",
	.what = "test widgets",
	.ctr = thing_ctr,
	.nb_ctr = RTE_DIM(thing_ctr),
	.read = thing_read,
	.prom_label = "name",
};

static void
test_registry_prometheus_all(void **state)
{
	struct thing t1 = { 1, 2, "red" }, t2 = { 5, 6, "blue" };
	char buf[4096];
	const char *g, *w;
	int n;

	(void)state;
	assert_int_equal(ewyk_registry_add(&widgets, "w", &t2), 0);
	assert_int_equal(ewyk_registry_add(&gadgets, "0", &t1), 0);
	assert_int_equal(ewyk_registry_add(&things, "t", &t1), 0);
	n = ewyk_registry_prometheus_all(buf, sizeof(buf));
	assert_true(n > 0 && (size_t)n < sizeof(buf));
	assert_int_equal(ewyk_registry_prometheus_all(NULL, 0), n);
	w = strstr(buf, "ewyk_testwidget_a_total{name=\"w\"} 5\n");
	g = strstr(buf, "ewyk_testgadget_b{shard=\"0\"} 2\n");
	assert_non_null(w);
	assert_non_null(g);
	assert_true(w < g); /* widgets had the first object */
	assert_null(strstr(buf, "testthing"));
	/* truncated like snprintf, the whole length told */
	assert_int_equal(ewyk_registry_prometheus_all(buf, 10), n);
	assert_int_equal(strlen(buf), 9);
	assert_int_equal(ewyk_registry_del(&widgets, &t2), 0);
	assert_int_equal(ewyk_registry_del(&gadgets, &t1), 0);
	assert_int_equal(ewyk_registry_del(&things, &t1), 0);
}

/* Label values are escaped: backslash, double quote, newline. */
static void
test_registry_label_escape(void **state)
{
	struct thing t = { 1, 2, "green" };
	char buf[1024];

	(void)state;
	assert_int_equal(ewyk_registry_add(&things, "a\"b\\c\nd", &t), 0);
	assert_true(ewyk_registry_prometheus(&things, "name", buf,
			    sizeof(buf)) > 0);
	assert_non_null(strstr(buf,
		"ewyk_testthing_a_total{name=\"a\\\"b\\\\c\\nd\"} 1\n"));
	/* A label key that is no Prometheus label name is refused. */
	assert_int_equal(ewyk_registry_prometheus(&things, "na-me", buf,
				 sizeof(buf)),
		-EINVAL);
	assert_int_equal(ewyk_registry_prometheus(&things, "0name", buf,
				 sizeof(buf)),
		-EINVAL);
	/* A label that does not fit whole is an error, never truncated
	 * (two truncated names could become one series). */
	{
		char key[200];

		memset(key, 'k', sizeof(key) - 1);
		key[sizeof(key) - 1] = '\0';
		assert_int_equal(ewyk_registry_prometheus(&things, key, buf,
					 sizeof(buf)),
			-ENAMETOOLONG);
	}
	assert_int_equal(ewyk_registry_del(&things, &t), 0);
}

static void
test_registry_full(void **state)
{
	static struct thing t[EWYK_REGISTRY_MAX + 1];
	char name[16];
	unsigned int i;

	(void)state;
	for (i = 0; i < EWYK_REGISTRY_MAX; i++) {
		snprintf(name, sizeof(name), "t%u", i);
		assert_int_equal(ewyk_registry_add(&things, name, &t[i]), 0);
	}
	assert_int_equal(ewyk_registry_add(&things, "last", &t[i]), -ENOSPC);
	assert_ptr_equal(ewyk_registry_lookup(&things, "t511"), &t[511]);
	for (i = 0; i < EWYK_REGISTRY_MAX; i++)
		assert_int_equal(ewyk_registry_del(&things, &t[i]), 0);
	assert_null(ewyk_registry_lookup(&things, "t0"));
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ctr_single_writer),
		cmocka_unit_test(test_prom_exact),
		cmocka_unit_test(test_prom_invalid),
		cmocka_unit_test(test_counter_lists),
		cmocka_unit_test(test_promtool),
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_registry_prometheus_all),
		cmocka_unit_test(test_registry_label_escape),
		cmocka_unit_test(test_registry_full),
	};

	if (ewyk_test_eal_init(argc, argv) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
