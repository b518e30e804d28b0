/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ewyk-loadgen's latency histogram (app/loadgen/hist.c): the buckets
 * tile the value range without gaps, every quantile of random samples
 * (uniform, log-uniform, and a bimodal mix) is within 1 % of the exact
 * one computed from the sorted samples, merging equals recording
 * everything in one, a value recorded n times at once equals n single
 * records, and the edge cases (empty, 0, huge values).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "../../app/loadgen/hist.h"

#define NSAMPLES 200000

static uint64_t samples[NSAMPLES];
static struct lg_hist h1, h2, hall;

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t
next_rand(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void
test_buckets_tile(void **state)
{
	unsigned int i;

	(void)state;
	assert_int_equal(lg_hist_bucket_low(0), 0);
	for (i = 1; i < LG_HIST_BUCKETS; i++) {
		uint64_t lo = lg_hist_bucket_low(i);

		/* Contiguous, and each value maps back to its bucket. */
		assert_int_equal(lo,
			lg_hist_bucket_low(i - 1) +
				lg_hist_bucket_width(i - 1));
		assert_int_equal(lg_hist_index(lo), i);
		assert_int_equal(lg_hist_index(
					 lo + lg_hist_bucket_width(i) - 1),
			i);
		/* Width at most 1/128 of the bucket's lowest value. */
		assert_true(lg_hist_bucket_width(i) * LG_HIST_HALF <= lo ||
			lg_hist_bucket_width(i) == 1);
	}
	assert_int_equal(lg_hist_index(UINT64_MAX), LG_HIST_BUCKETS - 1);
	assert_int_equal(lg_hist_index(UINT64_C(1) << LG_HIST_MAX_BITS),
		LG_HIST_BUCKETS - 1);
}

/* Quantiles of @p n samples against the exact ones. */
static void
check_quantiles(uint64_t *s, unsigned int n)
{
	static const double qs[] = { 0.0, 0.01, 0.25, 0.5, 0.9, 0.99, 0.999,
		0.9999, 1.0 };
	unsigned int i;

	lg_hist_reset(&hall);
	for (i = 0; i < n; i++)
		lg_hist_record(&hall, s[i]);
	qsort(s, n, sizeof(*s), cmp_u64);
	assert_int_equal(hall.count, n);
	assert_int_equal(hall.min, s[0]);
	assert_int_equal(hall.max, s[n - 1]);
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		uint64_t rank = (uint64_t)ceil(qs[i] * n);
		uint64_t exact = s[rank == 0 ? 0 : rank - 1];
		uint64_t got = lg_hist_quantile(&hall, qs[i]);
		double err = fabs((double)got - (double)exact) /
			(exact == 0 ? 1.0 : (double)exact);

		if (err > 0.01)
			fail_msg("q %.4f: %llu, exact %llu (%.3f%%)", qs[i],
				(unsigned long long)got,
				(unsigned long long)exact, err * 100);
	}
}

static void
test_quantiles(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < NSAMPLES; i++)
		samples[i] = next_rand() % 1000000;
	check_quantiles(samples, NSAMPLES);
	/* Log-uniform over 1 ns .. 2^39 ns. */
	for (i = 0; i < NSAMPLES; i++)
		samples[i] = next_rand() >> (25 + next_rand() % 39);
	check_quantiles(samples, NSAMPLES);
	/* 99 % fast, 1 % slow (the /sleep mix). */
	for (i = 0; i < NSAMPLES; i++)
		samples[i] = i % 100 == 0 ? 1000000 + next_rand() % 100000 :
					    20000 + next_rand() % 5000;
	check_quantiles(samples, NSAMPLES);
}

static void
test_merge(void **state)
{
	unsigned int i;

	(void)state;
	lg_hist_reset(&h1);
	lg_hist_reset(&h2);
	lg_hist_reset(&hall);
	for (i = 0; i < NSAMPLES; i++) {
		uint64_t v = next_rand() >> (20 + next_rand() % 40);

		lg_hist_record(i % 3 == 0 ? &h1 : &h2, v);
		lg_hist_record(&hall, v);
	}
	lg_hist_merge(&h1, &h2);
	assert_int_equal(h1.count, hall.count);
	assert_int_equal(h1.min, hall.min);
	assert_int_equal(h1.max, hall.max);
	assert_int_equal(h1.sum, hall.sum);
	assert_memory_equal(h1.b, hall.b, sizeof(h1.b));
	/* Merging an empty one changes nothing. */
	lg_hist_reset(&h2);
	lg_hist_merge(&h1, &h2);
	assert_int_equal(h1.min, hall.min);
	assert_int_equal(h1.count, hall.count);
}

/* Taking a part out leaves what recording the rest alone gives: the
 * buckets, count and sum exactly, max to its bucket. */
static void
test_sub(void **state)
{
	static struct lg_hist rest;
	unsigned int i, top;

	(void)state;
	lg_hist_reset(&h1);
	lg_hist_reset(&h2);
	lg_hist_reset(&rest);
	for (i = 0; i < NSAMPLES; i++) {
		uint64_t v = next_rand() >> (20 + next_rand() % 40);

		/* The part: 2 % large values (requests that spanned a
		 * stall); the rest small. */
		if (i % 50 == 0) {
			v = 1000000 + next_rand() % 1000000;
			lg_hist_record(&h2, v);
		} else {
			v %= 100000;
			lg_hist_record(&rest, v);
		}
		lg_hist_record(&h1, v);
	}
	lg_hist_sub(&h1, &h2);
	assert_int_equal(h1.count, rest.count);
	assert_int_equal(h1.sum, rest.sum);
	assert_memory_equal(h1.b, rest.b, sizeof(h1.b));
	top = lg_hist_index(rest.max);
	assert_true(h1.max >= rest.max);
	assert_true(
		h1.max < lg_hist_bucket_low(top) + lg_hist_bucket_width(top));
	/* Its quantiles are the rest's (to the top bucket's width). */
	assert_int_equal(lg_hist_quantile(&h1, 0.5),
		lg_hist_quantile(&rest, 0.5));
	assert_int_equal(lg_hist_quantile(&h1, 0.99),
		lg_hist_quantile(&rest, 0.99));
	assert_true(lg_hist_quantile(&h1, 0.999) < 101000);
	/* Taking an empty part changes nothing; taking all leaves none. */
	lg_hist_reset(&h2);
	lg_hist_sub(&h1, &h2);
	assert_int_equal(h1.count, rest.count);
	lg_hist_sub(&h1, &rest);
	assert_int_equal(h1.count, 0);
	assert_int_equal(lg_hist_quantile(&h1, 0.99), 0);
}

/* lg_hist_record_n(): the same histogram as n calls of lg_hist_record(),
 * bucket by bucket, with the count, sum, min and max. */
static void
test_record_n(void **state)
{
	unsigned int i, k;

	(void)state;
	lg_hist_reset(&h1);
	lg_hist_reset(&h2);
	for (i = 0; i < 5000; i++) {
		uint64_t v = next_rand() >> (next_rand() % 64);
		unsigned int n = 1 + (unsigned int)(next_rand() % 17);

		lg_hist_record_n(&h1, v, n);
		for (k = 0; k < n; k++)
			lg_hist_record(&h2, v);
	}
	assert_int_equal(h1.count, h2.count);
	assert_int_equal(h1.sum, h2.sum);
	assert_int_equal(h1.min, h2.min);
	assert_int_equal(h1.max, h2.max);
	assert_memory_equal(h1.b, h2.b, sizeof(h1.b));
	assert_int_equal(lg_hist_quantile(&h1, 0.99),
		lg_hist_quantile(&h2, 0.99));
}

static void
test_edges(void **state)
{
	(void)state;
	lg_hist_reset(&h1);
	assert_int_equal(h1.count, 0);
	assert_int_equal(lg_hist_quantile(&h1, 0.5), 0);
	lg_hist_record(&h1, 0);
	assert_int_equal(lg_hist_quantile(&h1, 0.99), 0);
	lg_hist_record(&h1, UINT64_MAX / 2);
	assert_int_equal(lg_hist_quantile(&h1, 1.0), UINT64_MAX / 2);
	/* Beyond the range: the last bucket, clamped to the exact max. */
	assert_int_equal(lg_hist_quantile(&h1, 0.99), UINT64_MAX / 2);
	assert_int_equal(lg_hist_quantile(&h1, 0.5), 0);
	assert_int_equal(lg_hist_quantile(&h1, -1.0), 0);
	assert_true(sizeof(struct lg_hist) < 40 * 1024);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets_tile),
		cmocka_unit_test(test_quantiles),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_sub),
		cmocka_unit_test(test_record_n),
		cmocka_unit_test(test_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
