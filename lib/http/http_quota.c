/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-source quotas of application resources (ewyk_http_quota_*): the
 * units one peer address may hold, counted per bucket of a keyed hash of
 * the address, as http_slots.c counts connection objects. Only the
 * shard's lcore takes; anyone may give back (a task's lcore frees what
 * it held). So each count is two: what the shard's lcore took less what
 * it gave back itself (cnt, used: written by that lcore alone, plain
 * stores, no locked instruction), and what other lcores gave back
 * (back, used_back: atomic adds). The units held are their difference
 * (unsigned: both only grow apart). A take reads both, then adds to its
 * own, and as only gives run beside it (they raise back), a take never
 * lets a count past its limit.
 */

#include <errno.h>
#include <sys/random.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include <ewyk_siphash.h>

#include "http_private.h"

struct ewyk_http_quota {
	uint64_t k0, k1; /* hash key */
	uint32_t capacity;
	uint32_t per_src_max;
	uint32_t mask;      /* buckets - 1 */
	uint32_t used;      /* taken less given here (the shard's lcore) */
	uint32_t used_back; /* given back by other lcores (atomic) */
	uint64_t refused;
	/* per bucket (32-bit: any capacity): cnt[b] as used, back[b] =
	 * cnt[nb + b] as used_back */
	uint32_t cnt[];
};

struct ewyk_http_quota *
ewyk_http_quota_create(uint32_t capacity, uint32_t per_src_max, int socket_id)
{
	struct ewyk_http_quota *q;
	uint32_t nb;
	uint64_t k[2];

	if (per_src_max == 0)
		per_src_max = RTE_MAX(capacity / 4, 1u);
	if (capacity == 0 || capacity > (1u << 30) || per_src_max > capacity) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (getentropy(k, sizeof(k)) != 0) {
		rte_errno = errno;
		return NULL;
	}
	nb = rte_align32pow2(capacity);
	q = rte_zmalloc_socket("ewyk_http_quota",
		sizeof(*q) + 2 * (size_t)nb * sizeof(q->cnt[0]),
		RTE_CACHE_LINE_SIZE, socket_id);
	if (q == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	q->k0 = k[0];
	q->k1 = k[1];
	q->capacity = capacity;
	q->per_src_max = per_src_max;
	q->mask = nb - 1;
	return q;
}

void
ewyk_http_quota_free(struct ewyk_http_quota *q)
{
	rte_free(q);
}

static uint32_t
quota_bucket(const struct ewyk_http_quota *q, uint64_t key, uint8_t kind)
{
	uint32_t w[3];

	w[0] = 0x71756f74 + kind;
	w[1] = (uint32_t)key;
	w[2] = (uint32_t)(key >> 32);
	return (uint32_t)ewyk_siphash13(q->k0, q->k1, w, 3) & q->mask;
}

int
ewyk_http_quota_take_source(struct ewyk_http_quota *q, int src)
{
	uint32_t b;

	if (q == NULL || src < 0 || (uint32_t)src > q->mask)
		return -EINVAL;
	b = (uint32_t)src;
	if (q->used - __atomic_load_n(&q->used_back, __ATOMIC_RELAXED) >=
		q->capacity) {
		q->refused++;
		return -ENOSPC;
	}
	if (q->cnt[b] -
			__atomic_load_n(&q->cnt[q->mask + 1 + b],
				__ATOMIC_RELAXED) >=
		q->per_src_max) {
		q->refused++;
		return -EBUSY;
	}
	/* this lcore alone writes them: no locked add (read elsewhere by
	 * ewyk_http_quota_used() only, whole words) */
	__atomic_store_n(&q->cnt[b], q->cnt[b] + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&q->used, q->used + 1, __ATOMIC_RELAXED);
	return (int)b;
}

int
ewyk_http_quota_source(const struct ewyk_http_quota *q,
	const struct ewyk_tcp_conn_info *ti)
{
	uint64_t key;
	uint8_t kind;

	if (q == NULL || ti == NULL)
		return -EINVAL;
	key = http_src_key(ti, &kind);
	return (int)quota_bucket(q, key, kind);
}

int
ewyk_http_quota_take(struct ewyk_http_quota *q, const struct ewyk_http_conn *c)
{
	int rc;

	if (q == NULL || c == NULL || !c->used)
		return -EINVAL;
	rc = ewyk_http_quota_take_source(q,
		(int)quota_bucket(q, c->rip, c->rip_kind));
	if (rc < 0)
		HTTP_CTR(c->srv, QUOTA_REFUSED, 1);
	return rc;
}

void
ewyk_http_quota_give(struct ewyk_http_quota *q, int token)
{
	if (q == NULL || token < 0 || (uint32_t)token > q->mask)
		return;
	__atomic_fetch_add(&q->cnt[q->mask + 1 + (uint32_t)token], 1,
		__ATOMIC_RELAXED);
	__atomic_fetch_add(&q->used_back, 1, __ATOMIC_RELAXED);
}

void
ewyk_http_quota_give_here(struct ewyk_http_quota *q, int token)
{
	if (q == NULL || token < 0 || (uint32_t)token > q->mask)
		return;
	__atomic_store_n(&q->cnt[token], q->cnt[token] - 1, __ATOMIC_RELAXED);
	__atomic_store_n(&q->used, q->used - 1, __ATOMIC_RELAXED);
}

uint32_t
ewyk_http_quota_used(const struct ewyk_http_quota *q)
{
	uint32_t back;

	if (q == NULL)
		return 0;
	/* What others gave back first: read after it, the shard's own count
	 * is at least that many more than it (gives only raise back), so a
	 * reader on another lcore never sees the difference wrap below 0. */
	back = __atomic_load_n(&q->used_back, __ATOMIC_ACQUIRE);
	return __atomic_load_n(&q->used, __ATOMIC_RELAXED) - back;
}

uint64_t
ewyk_http_quota_refused(const struct ewyk_http_quota *q)
{
	return q == NULL ? 0 : q->refused;
}
