/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_LOADGEN_HIST_H
#define EWYK_LOADGEN_HIST_H

/*
 * Latency histogram of ewyk-loadgen: log-linear (HdrHistogram's layout),
 * fixed memory, mergeable. Values below 2^LG_HIST_SUB_BITS are counted
 * exactly; above, each power of two [2^e, 2^(e+1)) is cut into
 * LG_HIST_HALF equal buckets, so a bucket is at most 1/LG_HIST_HALF of
 * its lowest value wide and a value read back as its bucket's midpoint
 * is within 1/(2 * LG_HIST_HALF) = 0.39 % of the true one. Values of
 * 2^LG_HIST_MAX_BITS and more are counted in the last bucket (and as
 * `max` exactly). One histogram is about 35 KiB; it belongs to one lcore
 * (no atomics); merge them to read the whole.
 */

#include <stdint.h>

#define LG_HIST_SUB_BITS 8
#define LG_HIST_SUB (1u << LG_HIST_SUB_BITS) /* exact values: 0..255 */
#define LG_HIST_HALF (LG_HIST_SUB / 2)       /* buckets per power of 2 */
#define LG_HIST_MAX_BITS 40                  /* 2^40 ns: 18 minutes */
#define LG_HIST_BUCKETS \
	(LG_HIST_SUB + (LG_HIST_MAX_BITS - LG_HIST_SUB_BITS) * LG_HIST_HALF)

struct lg_hist {
	uint64_t count;
	uint64_t min, max; /* exact; min is UINT64_MAX when empty */
	uint64_t sum;      /* for the mean (wraps only beyond 2^64) */
	uint64_t b[LG_HIST_BUCKETS];
};

/* Bucket of a value. */
static inline unsigned int
lg_hist_index(uint64_t v)
{
	unsigned int e, shift;

	if (v < LG_HIST_SUB)
		return (unsigned int)v;
	e = 63u - (unsigned int)__builtin_clzll(v);
	if (e >= LG_HIST_MAX_BITS)
		return LG_HIST_BUCKETS - 1;
	shift = e - (LG_HIST_SUB_BITS - 1);
	return LG_HIST_SUB + (e - LG_HIST_SUB_BITS) * LG_HIST_HALF +
		(unsigned int)((v >> shift) - LG_HIST_HALF);
}

/* Count one value. */
static inline void
lg_hist_record(struct lg_hist *h, uint64_t v)
{
	h->b[lg_hist_index(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/* Count @p n times one value. */
static inline void
lg_hist_record_n(struct lg_hist *h, uint64_t v, uint64_t n)
{
	h->b[lg_hist_index(v)] += n;
	h->count += n;
	h->sum += v * n;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/* Empty a histogram. */
void lg_hist_reset(struct lg_hist *h);

/* Lowest value of bucket @p i, and its width. */
uint64_t lg_hist_bucket_low(unsigned int i);
uint64_t lg_hist_bucket_width(unsigned int i);

/* Add @p src into @p dst. */
void lg_hist_merge(struct lg_hist *dst, const struct lg_hist *src);

/*
 * Take @p part, values recorded into @p dst too, out of @p dst again: the
 * rest's buckets, count and sum are exact; its min stays (a lower bound),
 * its max becomes the last value of its highest bucket that is not empty
 * (at most the old max): exact to that bucket's width.
 */
void lg_hist_sub(struct lg_hist *dst, const struct lg_hist *part);

/*
 * The value at quantile @p q (0..1): the midpoint of the bucket holding
 * the ceil(q * count)-th smallest value, clamped to [min, max]; q = 1
 * gives max exactly. 0 when empty.
 */
uint64_t lg_hist_quantile(const struct lg_hist *h, double q);

#endif /* EWYK_LOADGEN_HIST_H */
