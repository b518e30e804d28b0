/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/strategy under load: exactly-once delivery of bursts from several
 * source threads into several shards with idle gaps, for every kind; and
 * the Jetty HTTP/2 flow-control starvation shape (adaptive does not
 * starve, PC does). Run by test_strategy.c's main.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_random.h>
#include <rte_ring.h>
#include "test_common.h"
#include <ewyk_strategy.h>
#include "strategy_util.h"

/*
 * Exactly-once: several source threads push bursts of task ids, with idle
 * gaps, into the RX rings of several shards and call
 * ewyk_strategy_producer_run()
 * after each burst (as an RX interrupt or a completion would). Whoever
 * gets the token produces. Every task must be invoked exactly once (run,
 * or REJECTED when the PEC ring is full), and none may be left behind
 * when the sources stop and every token goes IDLE.
 */

#define EO_SHARDS 3
#define EO_SOURCES 3
#define EO_RX 512

struct eo;

struct eo_slot {
	struct eo *eo;
	uint32_t hits;
	uint32_t inv;
};

struct eo_shard {
	struct rte_ring *rx;
	struct ewyk_strategy_producer *p;
	uint32_t in_produce;
	struct eo *eo;
};

struct eo {
	struct ewyk_strategy_executor *ex;
	struct ewyk_strategy *s;
	struct eo_shard sh[EO_SHARDS];
	struct eo_slot *slot;
	uint64_t total;
	uint64_t per_source;
	uint64_t done;
	uint64_t rejected;
	uint32_t quit;
	uint32_t stop_reserved;
	uint32_t double_producer;
	uint32_t twice;
	uint32_t timeout;
	int source_no;
};

static void
eo_fn(void *arg, enum ewyk_strategy_mode mode)
{
	struct eo_slot *sl = arg;
	struct eo *eo = sl->eo;

	if (__atomic_fetch_add(&sl->hits, 1, __ATOMIC_RELAXED) != 0)
		__atomic_store_n(&eo->twice, 1, __ATOMIC_RELAXED);
	if (mode == EWYK_STRATEGY_MODE_REJECTED)
		__atomic_fetch_add(&eo->rejected, 1, __ATOMIC_RELAXED);
	else if (sl->inv == EWYK_STRATEGY_INVOKE_BLOCKING &&
		(rte_rand() & 63) == 0)
		usleep(20); /* really block, now and then */
	if (__atomic_add_fetch(&eo->done, 1, __ATOMIC_ACQ_REL) == eo->total) {
		__atomic_store_n(&eo->quit, 1, __ATOMIC_RELEASE);
		ewyk_strategy_executor_wake_all(eo->ex);
	}
}

static unsigned int
eo_produce(void *ctx, struct ewyk_strategy_task *out, unsigned int max)
{
	struct eo_shard *sh = ctx;
	void *ids[64];
	unsigned int n, i;

	if (__atomic_exchange_n(&sh->in_produce, 1, __ATOMIC_ACQUIRE) != 0)
		__atomic_store_n(&sh->eo->double_producer, 1, __ATOMIC_RELAXED);
	n = rte_ring_dequeue_burst(sh->rx, ids, RTE_MIN(max, 64u), NULL);
	for (i = 0; i < n; i++) {
		struct eo_slot *sl = ids[i];

		out[i] = (struct ewyk_strategy_task){ .fn = eo_fn,
			.arg = sl,
			.invocation = sl->inv };
	}
	__atomic_store_n(&sh->in_produce, 0, __ATOMIC_RELEASE);
	return n;
}

static void
eo_source(void *arg)
{
	struct eo *eo = arg;
	int me = __atomic_fetch_add(&eo->source_no, 1, __ATOMIC_RELAXED);
	uint64_t id = me * eo->per_source, end = id + eo->per_source;

	while (id < end) {
		struct eo_shard *sh = &eo->sh[rte_rand() % EO_SHARDS];
		uint64_t burst = 1 + rte_rand() % 48;

		for (; burst > 0 && id < end; burst--, id++) {
			struct eo_slot *sl = &eo->slot[id];
			uint64_t r = rte_rand() % 10;

			sl->inv = r < 8 ? EWYK_STRATEGY_INVOKE_NON_BLOCKING :
				r == 8  ? EWYK_STRATEGY_INVOKE_BLOCKING :
					  EWYK_STRATEGY_INVOKE_EITHER;
			while (rte_ring_enqueue(sh->rx, sl) != 0) {
				ewyk_strategy_producer_run(sh->p);
				sched_yield();
			}
		}
		ewyk_strategy_producer_run(sh->p);
		if ((rte_rand() & 7) == 0)
			usleep(rte_rand() % 200); /* idle gap */
	}
}

static void
eo_reserved(void *arg)
{
	struct eo *eo = arg;

	ewyk_strategy_executor_serve(eo->ex, &eo->stop_reserved);
}

static void *
eo_watchdog(void *arg)
{
	struct eo *eo = arg;
	double end = now_s() + GUARD_S;

	while (!__atomic_load_n(&eo->quit, __ATOMIC_ACQUIRE)) {
		if (now_s() > end) {
			unsigned int j;

			for (j = 0; j < EO_SHARDS; j++)
				print_error("shard %u: token %d, rx %u\n", j,
					(int)ewyk_strategy_producer_state_get(
						eo->sh[j].p),
					rte_ring_count(eo->sh[j].rx));
			print_error("done %" PRIu64 "/%" PRIu64
				    ", queued %u, idle %u\n",
				eo->done, eo->total,
				ewyk_strategy_executor_queued(eo->ex),
				ewyk_strategy_executor_idle_count(eo->ex));
			__atomic_store_n(&eo->timeout, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&eo->quit, 1, __ATOMIC_RELEASE);
			ewyk_strategy_executor_wake_all(eo->ex);
			break;
		}
		usleep(1000);
	}
	return NULL;
}

static void
exactly_once(enum ewyk_strategy_kind k)
{
	struct eo *eo = calloc(1, sizeof(*eo));
	struct lthread src[EO_SOURCES], res;
	struct ewyk_strategy_stats st;
	pthread_t wd;
	char name[32];
	uint64_t i, sum = 0;
	unsigned int j;
	int m;

	assert_non_null(eo);
	eo->per_source = getenv("EWYK_TEST_LONG") != NULL ? 400000 : 15000;
	eo->total = eo->per_source * EO_SOURCES;
	eo->slot = calloc(eo->total, sizeof(*eo->slot));
	assert_non_null(eo->slot);
	for (i = 0; i < eo->total; i++)
		eo->slot[i].eo = eo;
	eo->ex = mk_executor("eo", 256, 0);
	eo->s = mk_strategy("eo", k, eo->ex);
	for (j = 0; j < EO_SHARDS; j++) {
		struct ewyk_strategy_producer_conf pc = { .produce = eo_produce,
			.ctx = &eo->sh[j],
			.burst = 16 };

		snprintf(name, sizeof(name), "eo_rx%u", j);
		eo->sh[j].eo = eo;
		/*
		 * RTS: the sources are preemptible threads sharing CPUs; with
		 * the classic MP sync, one preempted between its head and
		 * tail updates convoys all the others.
		 */
		eo->sh[j].rx = rte_ring_create(name, EO_RX, SOCKET_ID_ANY,
			RING_F_SC_DEQ | RING_F_EXACT_SZ | RING_F_MP_RTS_ENQ);
		assert_non_null(eo->sh[j].rx);
		eo->sh[j].p = ewyk_strategy_producer_create(eo->s, &pc);
		assert_non_null(eo->sh[j].p);
	}
	/* Reserved: EAL lcore 1, one registered thread, and main below. */
	serve_on_worker(eo->ex);
	lthread_start(&res, eo_reserved, eo);
	for (j = 0; j < EO_SOURCES; j++)
		lthread_start(&src[j], eo_source, eo);
	assert_int_equal(pthread_create(&wd, NULL, eo_watchdog, eo), 0);
	/*
	 * Main "becomes a reserved lcore" until the last task completes:
	 * production hand-offs only, no queued tasks
	 * (EWYK_STRATEGY_SERVE_NO_RING).
	 */
	assert_int_equal(ewyk_strategy_executor_serve_opt(eo->ex, &eo->quit,
				 EWYK_STRATEGY_SERVE_NO_RING),
		0);
	for (j = 0; j < EO_SOURCES; j++)
		lthread_join(&src[j]);
	pthread_join(wd, NULL);
	assert_int_equal(eo->timeout, 0);
	for (j = 0; j < EO_SHARDS; j++) {
		assert_int_equal(wait_producer_idle(eo->sh[j].p), 0);
		assert_int_equal(rte_ring_count(eo->sh[j].rx), 0);
	}
	assert_int_equal(ewyk_strategy_executor_queued(eo->ex), 0);
	assert_int_equal(eo->double_producer, 0);
	assert_int_equal(eo->twice, 0);
	assert_int_equal(eo->done, eo->total);
	for (i = 0; i < eo->total; i++)
		if (eo->slot[i].hits != 1)
			fail_msg("task %" PRIu64 " invoked %u times", i,
				eo->slot[i].hits);
	assert_int_equal(ewyk_strategy_stats_get(eo->s, &st), 0);
	for (m = 0; m < EWYK_STRATEGY_MODE_MAX; m++)
		sum += st.mode[m];
	assert_int_equal(sum, eo->total);
	assert_int_equal(st.mode[EWYK_STRATEGY_MODE_REJECTED], eo->rejected);
	print_message("    %s: pc %" PRIu64 " pic %" PRIu64 " epc %" PRIu64
		      " pec %" PRIu64 " rejected %" PRIu64
		      ", reproduce %" PRIu64 ", parks %" PRIu64 "\n",
		(const char *[]){ "pc", "pec", "epc", "adaptive" }[k],
		st.mode[0], st.mode[1], st.mode[2], st.mode[3], st.mode[4],
		st.reproduce, st.parks);
	__atomic_store_n(&eo->stop_reserved, 1, __ATOMIC_RELEASE);
	stop_worker(eo->ex);
	lthread_join(&res);
	for (j = 0; j < EO_SHARDS; j++) {
		ewyk_strategy_producer_free(eo->sh[j].p);
		rte_ring_free(eo->sh[j].rx);
	}
	ewyk_strategy_free(eo->s);
	ewyk_strategy_executor_free(eo->ex);
	free(eo->slot);
	free(eo);
}

void
test_exactly_once_pc(void **state)
{
	(void)state;
	exactly_once(EWYK_STRATEGY_PC);
}

void
test_exactly_once_pec(void **state)
{
	(void)state;
	exactly_once(EWYK_STRATEGY_PEC);
}

void
test_exactly_once_epc(void **state)
{
	(void)state;
	exactly_once(EWYK_STRATEGY_EPC);
}

void
test_exactly_once_adaptive(void **state)
{
	(void)state;
	exactly_once(EWYK_STRATEGY_ADAPTIVE);
}

/*
 * The HTTP/2 flow-control shape that starved Jetty: a connection yields K
 * blocking writes, each waiting for a WINDOW_UPDATE that the same producer
 * yields only after all the writes. If the producing lcore ever runs a
 * write in place, nobody is left to produce the update.
 */

#define H2_K 6

struct h2 {
	uint32_t credit[H2_K];
	uint64_t written;
	uint32_t timeouts;
	uint32_t rejected;
	double wait_s;
};

struct h2_write {
	struct h2 *h;
	unsigned int i;
};

static void
h2_write_fn(void *arg, enum ewyk_strategy_mode mode)
{
	struct h2_write *w = arg;
	struct h2 *h = w->h;
	double end = now_s() + h->wait_s;

	if (mode == EWYK_STRATEGY_MODE_REJECTED) {
		__atomic_fetch_add(&h->rejected, 1, __ATOMIC_RELAXED);
	} else {
		/* Block until the window opens (or the guard fires). */
		while (!__atomic_load_n(&h->credit[w->i], __ATOMIC_ACQUIRE)) {
			if (now_s() > end) {
				__atomic_fetch_add(&h->timeouts, 1,
					__ATOMIC_RELAXED);
				break;
			}
			usleep(50);
		}
	}
	__atomic_fetch_add(&h->written, 1, __ATOMIC_RELEASE);
}

static void
h2_update_fn(void *arg, enum ewyk_strategy_mode mode)
{
	(void)mode;
	__atomic_store_n((uint32_t *)arg, 1, __ATOMIC_RELEASE);
}

static void
h2_run(struct ewyk_strategy *s, struct h2 *h, unsigned int k)
{
	struct ewyk_strategy_task t[2 * H2_K];
	struct h2_write w[H2_K];
	struct list_prod lp = { .tasks = t, .n = 2 * k };
	struct ewyk_strategy_producer_conf pc = { .produce = list_produce,
		.ctx = &lp,
		.burst = 4 };
	struct ewyk_strategy_producer *p = ewyk_strategy_producer_create(s,
		&pc);
	unsigned int i;
	int st;

	assert_non_null(p);
	for (i = 0; i < k; i++) {
		w[i] = (struct h2_write){ .h = h, .i = i };
		t[i] = (struct ewyk_strategy_task){ .fn = h2_write_fn,
			.arg = &w[i],
			.invocation = EWYK_STRATEGY_INVOKE_BLOCKING };
		t[k + i] = (struct ewyk_strategy_task){ .fn = h2_update_fn,
			.arg = &h->credit[i],
			.invocation = EWYK_STRATEGY_INVOKE_NON_BLOCKING };
	}
	st = ewyk_strategy_producer_run(p);
	assert_true(st == EWYK_STRATEGY_PRODUCE_IDLE ||
		st == EWYK_STRATEGY_PRODUCE_HANDED_OFF);
	assert_int_equal(wait_u64(&h->written, k, GUARD_S + h->wait_s * k), 0);
	assert_int_equal(wait_producer_idle(p), 0);
	ewyk_strategy_producer_free(p);
}

void
test_no_starvation_adaptive(void **state)
{
	struct ewyk_strategy_executor *ex = mk_executor("h2", 64, 0);
	struct ewyk_strategy *s = mk_strategy("h2", EWYK_STRATEGY_ADAPTIVE, ex);
	struct ewyk_strategy_stats st;
	struct h2 h = { .wait_s = GUARD_S };
	struct srv r = { .ex = ex };
	struct lthread r2;

	(void)state;
	/* Two reserved lcores: EAL lcore 1 and a registered thread. */
	serve_on_worker(ex);
	lthread_start(&r2, srv_fn, &r);
	assert_int_equal(wait_idle_count(ex, 2), 0);
	h2_run(s, &h, H2_K);
	assert_int_equal(h.timeouts, 0);
	assert_int_equal(h.rejected, 0);
	assert_int_equal(h.written, H2_K);
	/*
	 * Write 1 went EPC (the producer blocks in it, production moved to
	 * reserved A), write 2 too (A blocks, production moved to B); with
	 * every other lcore blocked in a write, writes 3.. were queued (PEC)
	 * and B went on producing the WINDOW_UPDATEs in place (PC).
	 */
	assert_int_equal(ewyk_strategy_stats_get(s, &st), 0);
	assert_int_equal(st.mode[EWYK_STRATEGY_MODE_EPC], 2);
	assert_int_equal(st.mode[EWYK_STRATEGY_MODE_PEC], H2_K - 2);
	assert_int_equal(st.mode[EWYK_STRATEGY_MODE_PC], H2_K);
	assert_int_equal(st.handoffs, 2);
	__atomic_store_n(&r.quit, 1, __ATOMIC_RELEASE);
	ewyk_strategy_executor_wake_all(ex);
	lthread_join(&r2);
	stop_worker(ex);
	ewyk_strategy_free(s);
	ewyk_strategy_executor_free(ex);
}

/* The same shape under PC starves every write: the shape is real. */
void
test_starvation_shape_pc(void **state)
{
	struct ewyk_strategy *s = mk_strategy("h2pc", EWYK_STRATEGY_PC, NULL);
	struct h2 h = { .wait_s = 0.02 };

	(void)state;
	h2_run(s, &h, 3);
	assert_int_equal(h.timeouts, 3);
	assert_int_equal(h.written, 3);
	ewyk_strategy_free(s);
}
