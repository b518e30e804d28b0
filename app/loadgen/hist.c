/* SPDX-License-Identifier: BSD-3-Clause */
/* ewyk-loadgen's latency histogram (see hist.h). */

#include <math.h>
#include <string.h>

#include "hist.h"

void
lg_hist_reset(struct lg_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

uint64_t
lg_hist_bucket_low(unsigned int i)
{
	unsigned int k, e;

	if (i < LG_HIST_SUB)
		return i;
	k = i - LG_HIST_SUB;
	e = k / LG_HIST_HALF + LG_HIST_SUB_BITS;
	return (uint64_t)(k % LG_HIST_HALF + LG_HIST_HALF)
		<< (e - (LG_HIST_SUB_BITS - 1));
}

uint64_t
lg_hist_bucket_width(unsigned int i)
{
	unsigned int e;

	if (i < LG_HIST_SUB)
		return 1;
	e = (i - LG_HIST_SUB) / LG_HIST_HALF + LG_HIST_SUB_BITS;
	return UINT64_C(1) << (e - (LG_HIST_SUB_BITS - 1));
}

void
lg_hist_merge(struct lg_hist *dst, const struct lg_hist *src)
{
	unsigned int i;

	if (src->count == 0)
		return;
	for (i = 0; i < LG_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

void
lg_hist_sub(struct lg_hist *dst, const struct lg_hist *part)
{
	unsigned int i, top = 0;

	if (part->count == 0)
		return;
	for (i = 0; i < LG_HIST_BUCKETS; i++) {
		uint64_t n = part->b[i];

		dst->b[i] = dst->b[i] >= n ? dst->b[i] - n : 0;
		if (dst->b[i] != 0)
			top = i;
	}
	dst->count = dst->count >= part->count ? dst->count - part->count : 0;
	dst->sum = dst->sum >= part->sum ? dst->sum - part->sum : 0;
	if (dst->count == 0) {
		lg_hist_reset(dst);
		return;
	}
	if (top < LG_HIST_BUCKETS - 1) {
		uint64_t last = lg_hist_bucket_low(top) +
			lg_hist_bucket_width(top) - 1;

		if (last < dst->max)
			dst->max = last;
	}
}

uint64_t
lg_hist_quantile(const struct lg_hist *h, double q)
{
	uint64_t rank, seen = 0, v;
	unsigned int i;

	if (h->count == 0)
		return 0;
	if (q >= 1.0)
		return h->max;
	if (q < 0.0)
		q = 0.0;
	rank = (uint64_t)ceil(q * (double)h->count);
	if (rank == 0)
		rank = 1;
	for (i = 0; i < LG_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank)
			break;
	}
	/* The last bucket is open-ended: its exact bound is max. */
	if (i >= LG_HIST_BUCKETS - 1)
		return h->max;
	v = lg_hist_bucket_low(i) + lg_hist_bucket_width(i) / 2;
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}
