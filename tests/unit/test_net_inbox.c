/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/net shard inboxes and holders: frames forwarded to a full inbox,
 * typed messages (completions and calls) in order per sender, and the
 * recorded holder of a shard. Run by test_net.c's main.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <pthread.h>
#include <sched.h>

#include <cmocka.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_random.h>
#include <rte_ring.h>
#include <rte_udp.h>

#include <ewyk_net.h>
#include <ewyk_siphash.h>
#include "net_private.h"
#include <rte_hash_crc.h>

#include "test_common.h"
#include "net_test_util.h"

void
test_inbox_full(void **state)
{
	uint64_t full = ctr(1, EWYK_NET_DROP_INBOX_FULL);
	unsigned int i, ok = 0;
	uint8_t buf[128];
	uint16_t n = echo_build(buf, PEER_IP, OUR_IP, 8);

	(void)state;
	ewyk_net_poll(sh[1], now); /* empty its inbox first */
	drain_all();
	/* Inbox of 16 holds 15. */
	for (i = 0; i < 20; i++)
		if (ewyk_net_shard_forward(sh[1],
			    frame_new(0, RTE_ETHER_TYPE_IPV4, false, buf, n),
			    0) == 0)
			ok++;
	assert_int_equal(ok, 15);
	assert_int_equal(ctr(1, EWYK_NET_DROP_INBOX_FULL), full + 5);
	/* Shard 1 answers the 15 echoes from its inbox. */
	ewyk_net_poll(sh[1], now);
	ewyk_net_tx_flush(sh[1]);
	{
		struct rte_mbuf *out[32];
		unsigned int got = sent(0, 1, out, 32);

		assert_int_equal(got, 15);
		rte_pktmbuf_free_bulk(out, got);
	}
}

/*
 * Typed messages: completions and calls applied by the holder in order per
 * sender (one sender here is a plain pthread, no lcore id); a completion
 * on a reserved slot is never refused, even when the inbox is full.
 */
struct msg_log {
	uint64_t next[2]; /* next sequence number expected per sender */
	uint64_t bad;     /* out of order */
	uint64_t calls, completions;
};

static void
msg_complete(void *arg, struct ewyk_net_shard *s, uint64_t ticket, void *result)
{
	struct msg_log *lg = arg;
	unsigned int snd = (unsigned int)(ticket >> 32);

	assert_ptr_equal(s, sh[0]);
	assert_ptr_equal(result, lg);
	if ((ticket & 0xffffffff) != lg->next[snd])
		lg->bad++;
	lg->next[snd] = (ticket & 0xffffffff) + 1;
	lg->completions++;
}

static void
msg_call(struct ewyk_net_shard *s, void *arg)
{
	struct msg_log *lg = arg;

	assert_ptr_equal(s, sh[0]);
	lg->calls++;
}

#define MSG_N 5000

struct msg_sender {
	struct msg_log *lg;
	uint64_t refused;
};

static void *
msg_sender_main(void *a)
{
	struct msg_sender *x = a;
	cpu_set_t all;
	uint64_t i;

	/* Free to run on any CPU (created by the pinned main lcore). */
	CPU_ZERO(&all);
	for (i = 0; i < CPU_SETSIZE && i < 64; i++)
		CPU_SET(i, &all);
	pthread_setaffinity_np(pthread_self(), sizeof(all), &all);
	for (i = 0; i < MSG_N; i++)
		while (ewyk_net_inbox_complete(sh[0], (UINT64_C(1) << 32) | i,
			       x->lg, 0) != 0) {
			x->refused++;
			sched_yield();
		}
	return NULL;
}

void
test_msg_inbox(void **state)
{
	struct msg_log lg;
	struct msg_sender x = { .lg = &lg, .refused = 0 };
	struct ewyk_net_inbox_stats st;
	pthread_t t;
	uint64_t i = 0;
	int k;

	(void)state;
	memset(&lg, 0, sizeof(lg));
	assert_int_equal(ewyk_net_inbox_reserve(sh[0]), -EINVAL);
	assert_int_equal(ewyk_net_inbox_create(sh[0], 8, msg_complete, &lg), 0);
	assert_int_equal(ewyk_net_inbox_create(sh[0], 8, msg_complete, &lg),
		-EEXIST);
	/* Bounded: 2 reserved + 6 posted fill it; the 9th is refused. */
	assert_int_equal(ewyk_net_inbox_reserve(sh[0]), 0);
	assert_int_equal(ewyk_net_inbox_reserve(sh[0]), 0);
	for (k = 0; k < 6; k++)
		assert_int_equal(ewyk_net_inbox_call(sh[0], msg_call, &lg), 0);
	assert_int_equal(ewyk_net_inbox_call(sh[0], msg_call, &lg), -ENOBUFS);
	assert_int_equal(ewyk_net_inbox_complete(sh[0], 0, &lg, 0), -ENOBUFS);
	assert_int_equal(ewyk_net_inbox_reserve(sh[0]), -ENOBUFS);
	/* Full, yet the reserved completions go in. */
	assert_int_equal(ewyk_net_inbox_complete(sh[0], i++, &lg, 1), 0);
	ewyk_net_inbox_unreserve(sh[0]);
	assert_int_equal(ewyk_net_inbox_stats_get(sh[0], &st), 0);
	assert_int_equal(st.full, 3);
	assert_int_equal(st.queued, 7);
	assert_int_equal(st.reserved, 0);
	assert_int_equal(ewyk_net_msg_inbox_drain(sh[0], 100), 7);
	assert_int_equal(lg.calls, 6);
	assert_int_equal(lg.completions, 1);
	/* Two senders at once: this lcore and a non-EAL thread. */
	assert_int_equal(pthread_create(&t, NULL, msg_sender_main, &x), 0);
	while (i < MSG_N || lg.next[1] < MSG_N) {
		if (i < MSG_N && ewyk_net_inbox_complete(sh[0], i, &lg, 0) == 0)
			i++;
		ewyk_net_msg_inbox_drain(sh[0], 4);
	}
	assert_int_equal(pthread_join(t, NULL), 0);
	ewyk_net_msg_inbox_drain(sh[0], UINT32_MAX);
	assert_int_equal(lg.bad, 0);
	assert_int_equal(lg.next[0], MSG_N);
	assert_int_equal(lg.next[1], MSG_N);
	assert_int_equal(lg.completions, 2 * MSG_N);
	assert_int_equal(ewyk_net_inbox_stats_get(sh[0], &st), 0);
	assert_int_equal(st.applied, 6 + 2 * MSG_N);
	assert_int_equal(st.queued, 0);
	/* Left queued at free: applied then (shard 0 freed in teardown). */
}

/* The recorded holder: unchecked until held, then only the holder. */
static void *
held_elsewhere(void *a)
{
	return (void *)(uintptr_t)ewyk_net_shard_held_here(a);
}

void
test_shard_holder(void **state)
{
	pthread_t t;
	void *r = NULL;

	(void)state;
	assert_true(ewyk_net_shard_held_here(sh[1]));
	assert_true(ewyk_net_shard_held_here(NULL));
	ewyk_net_shard_hold(sh[1]);
	assert_true(ewyk_net_shard_held_here(sh[1]));
	assert_int_equal(pthread_create(&t, NULL, held_elsewhere, sh[1]), 0);
	assert_int_equal(pthread_join(t, &r), 0);
	assert_null(r);
	ewyk_net_shard_release(sh[1]);
	assert_false(ewyk_net_shard_held_here(sh[1]));
	ewyk_net_shard_hold(sh[1]);
	assert_true(ewyk_net_shard_held_here(sh[1]));
}
