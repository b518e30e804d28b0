/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shard's typed-message inbox: completions of dispatched tasks and
 * functions to run on the token holder, posted by any lcore or thread and
 * applied by the holder in its loop.
 *
 * Space is accounted apart from the ring, in one word: @used counts the
 * messages in the ring plus the slots reserved for later completions. A
 * post or a reservation takes a unit by CAS while used < capacity; the
 * holder gives units back after it dequeued. So the ring (of exactly that
 * capacity) always has room for a message whose unit was taken, and a
 * completion posted on a reservation is never refused.
 *
 * The ring is multi-producer with relaxed tail sync (RTS), single
 * consumer. Measured on the 2-CPU machine with 3 posting threads and the
 * consumer (oversubscribed, load ~9): the classic MP sync made 2-3x fewer
 * posts per second and 2.5-4x more posts slower than 100 us than RTS, a
 * producer preempted between its head and tail updates stalling every
 * other producer behind it (docs/guides/strategy.md has the figures).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "net_private.h"

#define NET_INBOX_DEFAULT 1024
#define NET_INBOX_BURST 32

/* One message on the ring: 24 bytes. */
struct net_msg {
	uint32_t type; /* enum ewyk_net_msg_type */
	uint32_t pad;
	union {
		ewyk_net_call_fn fn; /* CALL */
		uint64_t ticket;     /* COMPLETION */
	} u;
	void *arg; /* CALL: arg; COMPLETION: result */
};

struct net_msg_inbox {
	/* Read-mostly. */
	struct rte_ring *ring;
	ewyk_net_completion_fn complete;
	void *complete_arg;
	uint32_t capacity;

	/* Contended by posters. */
	uint32_t used __rte_cache_aligned; /* queued + reserved */
	uint32_t reserved;
	uint64_t posted[3];
	uint64_t full;

	/* Holder only. */
	uint64_t applied __rte_cache_aligned;
};

int
ewyk_net_inbox_create(struct ewyk_net_shard *s, uint32_t size,
	ewyk_net_completion_fn fn, void *arg)
{
	struct net_msg_inbox *in;
	char name[RTE_RING_NAMESIZE];

	if (s == NULL || size > RTE_RING_SZ_MASK)
		return -EINVAL;
	if (s->msgs != NULL)
		return -EEXIST;
	if (size == 0)
		size = NET_INBOX_DEFAULT;
	in = rte_zmalloc_socket("ewyk_net_inbox", sizeof(*in),
		RTE_CACHE_LINE_SIZE, SOCKET_ID_ANY);
	if (in == NULL)
		return -ENOMEM;
	snprintf(name, sizeof(name), "ewyk_nm_%p", (void *)s);
	in->ring = rte_ring_create_elem(name, sizeof(struct net_msg), size,
		SOCKET_ID_ANY,
		RING_F_EXACT_SZ | RING_F_MP_RTS_ENQ | RING_F_SC_DEQ);
	if (in->ring == NULL) {
		rte_free(in);
		return rte_errno == EEXIST ? -EEXIST : -ENOMEM;
	}
	in->capacity = size;
	in->complete = fn;
	in->complete_arg = arg;
	s->msgs = in;
	return 0;
}

/* Take one unit of space; 0, or -ENOBUFS (counted). */
static int
net_inbox_take(struct net_msg_inbox *in)
{
	uint32_t n = __atomic_load_n(&in->used, __ATOMIC_RELAXED);

	do {
		if (n >= in->capacity) {
			__atomic_fetch_add(&in->full, 1, __ATOMIC_RELAXED);
			return -ENOBUFS;
		}
	} while (!__atomic_compare_exchange_n(&in->used, &n, n + 1, 0,
		__ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	return 0;
}

/* Enqueue a message whose unit is taken: there is room by construction. */
static void
net_inbox_put(struct net_msg_inbox *in, struct net_msg *m)
{
	while (rte_ring_enqueue_elem(in->ring, m, sizeof(*m)) != 0)
		rte_pause(); /* cannot happen: space was accounted */
	__atomic_fetch_add(&in->posted[m->type], 1, __ATOMIC_RELAXED);
}

int
ewyk_net_inbox_reserve(struct ewyk_net_shard *s)
{
	struct net_msg_inbox *in = s != NULL ? s->msgs : NULL;
	int ret;

	if (in == NULL)
		return -EINVAL;
	ret = net_inbox_take(in);
	if (ret == 0)
		__atomic_fetch_add(&in->reserved, 1, __ATOMIC_RELAXED);
	return ret;
}

void
ewyk_net_inbox_unreserve(struct ewyk_net_shard *s)
{
	struct net_msg_inbox *in = s != NULL ? s->msgs : NULL;

	if (in == NULL)
		return;
	__atomic_fetch_sub(&in->reserved, 1, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&in->used, 1, __ATOMIC_RELEASE);
}

int
ewyk_net_inbox_complete(struct ewyk_net_shard *s, uint64_t ticket, void *result,
	int reserved)
{
	struct net_msg_inbox *in = s != NULL ? s->msgs : NULL;
	struct net_msg m = { .type = EWYK_NET_MSG_COMPLETION,
		.u.ticket = ticket,
		.arg = result };

	if (in == NULL || in->complete == NULL)
		return -EINVAL;
	if (reserved)
		__atomic_fetch_sub(&in->reserved, 1, __ATOMIC_RELAXED);
	else if (net_inbox_take(in) != 0)
		return -ENOBUFS;
	net_inbox_put(in, &m);
	return 0;
}

int
ewyk_net_inbox_call(struct ewyk_net_shard *s, ewyk_net_call_fn fn, void *arg)
{
	struct net_msg_inbox *in = s != NULL ? s->msgs : NULL;
	struct net_msg m = { .type = EWYK_NET_MSG_CALL,
		.u.fn = fn,
		.arg = arg };

	if (in == NULL || fn == NULL)
		return -EINVAL;
	if (net_inbox_take(in) != 0)
		return -ENOBUFS;
	net_inbox_put(in, &m);
	return 0;
}

static void
net_inbox_apply(struct ewyk_net_shard *s, struct net_msg_inbox *in,
	const struct net_msg *m)
{
	if (m->type == EWYK_NET_MSG_CALL)
		m->u.fn(s, m->arg);
	else
		in->complete(in->complete_arg, s, m->u.ticket, m->arg);
}

unsigned int
ewyk_net_msg_inbox_drain(struct ewyk_net_shard *s, unsigned int max)
{
	struct net_msg_inbox *in = s != NULL ? s->msgs : NULL;
	struct net_msg m[NET_INBOX_BURST];
	unsigned int done = 0, n, i;

	NET_ASSERT_HOLDER(s);
	if (in == NULL)
		return 0;
	while (done < max) {
		n = RTE_MIN(max - done, (unsigned int)NET_INBOX_BURST);
		n = rte_ring_sc_dequeue_burst_elem(in->ring, m, sizeof(m[0]), n,
			NULL);
		if (n == 0)
			break;
		/* Room first: a handler may post again (a call chain). */
		__atomic_fetch_sub(&in->used, n, __ATOMIC_RELEASE);
		for (i = 0; i < n; i++)
			net_inbox_apply(s, in, &m[i]);
		done += n;
	}
	if (done != 0)
		ewyk_ctr_add(&in->applied, done);
	return done;
}

int
ewyk_net_inbox_stats_get(const struct ewyk_net_shard *s,
	struct ewyk_net_inbox_stats *st)
{
	const struct net_msg_inbox *in;
	unsigned int t;

	if (s == NULL || st == NULL)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	in = s->msgs;
	if (in == NULL)
		return 0;
	for (t = 0; t < RTE_DIM(st->posted); t++)
		st->posted[t] = __atomic_load_n(&in->posted[t],
			__ATOMIC_RELAXED);
	st->applied = ewyk_ctr_read(&in->applied);
	st->full = __atomic_load_n(&in->full, __ATOMIC_RELAXED);
	st->reserved = __atomic_load_n(&in->reserved, __ATOMIC_RELAXED);
	st->queued = rte_ring_count(in->ring);
	st->capacity = in->capacity;
	return 0;
}

/*
 * At shard free (the caller is the last holder): what is still queued is
 * applied, so completions hand their results back, then the ring goes.
 */
void
net_inbox_free(struct ewyk_net_shard *s)
{
	struct net_msg_inbox *in = s->msgs;

	if (in == NULL)
		return;
	ewyk_net_msg_inbox_drain(s, UINT32_MAX);
	rte_ring_free(in->ring);
	rte_free(in);
	s->msgs = NULL;
}
