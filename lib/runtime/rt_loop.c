/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The loop of a shard's token holder, run as the produce() function of
 * the shard's ewyk_strategy producer:
 *
 *   one TSC read -> rx burst, each frame to completion (TCP and HTTP run
 *   the handlers here; they may start jobs) -> drain the shard's message
 *   inbox (results of jobs) -> TCP's clock, then the wheel (TCP timers,
 *   deadlines, the application's timers) -> HTTP's Date line, modules'
 *   poll hooks -> flush TX
 *
 * The tasks it yields are dispatched by the strategy (PC in place, EPC:
 * production moves to a reserved lcore and the task runs here, PEC:
 * queued). Every worker runs its own shard's producer; a reserved lcore
 * that receives a token runs the same produce() through the producer
 * loop; production comes home to the worker as soon as it is idle.
 */

#include <stdbool.h>
#include <stdio.h>

#include <rte_cycles.h>
#include <rte_debug.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_per_lcore.h>

#include <ewyk_http2.h>

#include "rt_private.h"

/* The shard whose loop this lcore runs now, NULL between iterations
 * after production left (depart). */
static RTE_DEFINE_PER_LCORE(struct ewyk_rt_shard *, rt_cur);

struct ewyk_rt_shard *
ewyk_rt_shard_current(void)
{
	return RTE_PER_LCORE(rt_cur);
}

struct rt_lcore *
rt_lcore_self(struct ewyk_rt *rt)
{
	unsigned int l = rte_lcore_id();

	if (l >= RTE_MAX_LCORE || rt->lc_of[l] < 0)
		return NULL;
	return &rt->lc[rt->lc_of[l]];
}

void
rt_count_mode(struct ewyk_rt *rt, enum ewyk_strategy_mode mode)
{
	struct rt_lcore *lc = rt_lcore_self(rt);

	if (lc != NULL && (unsigned int)mode < EWYK_STRATEGY_MODE_MAX)
		__atomic_fetch_add(&lc->ls.mode[mode], 1, __ATOMIC_RELAXED);
}

int
rt_yield(struct ewyk_rt_shard *sh, const struct ewyk_strategy_task *t)
{
	if (sh->out == NULL)
		return -EAGAIN;
	if (sh->out_n == sh->out_max)
		return -ENOBUFS;
	sh->out[sh->out_n++] = *t;
	return 0;
}

/* Stop: every holder stops its producer, the serve loops leave. */
static void
loop_stop(struct ewyk_rt_shard *sh)
{
	struct ewyk_rt *rt = sh->rt;

	ewyk_strategy_producer_stop(sh->producer);
	__atomic_store_n(&rt->quit, 1, __ATOMIC_RELEASE);
	ewyk_strategy_executor_wake_all(rt->ex);
}

/* The histogram bucket of an iteration of @p dt cycles (rt_lcore_stats). */
static inline unsigned int
iter_bucket(const struct ewyk_rt *rt, uint64_t dt)
{
	uint64_t us = (RTE_MIN(dt, (uint64_t)UINT32_MAX) * rt->iter_mul) >> 32;
	unsigned int b = us == 0 ? 0 : 64u - (unsigned int)__builtin_clzll(us);

	return RTE_MIN(b, RT_ITER_HIST - 1u);
}

/* One iteration of the loop; the shard's produce() function. */
static unsigned int
loop_produce(void *ctx, struct ewyk_strategy_task *tasks, unsigned int max)
{
	struct ewyk_rt_shard *sh = ctx;
	struct ewyk_rt *rt = sh->rt;
	unsigned int self = rte_lcore_id() + 1;
	uint64_t now = rt_now();
	struct rt_lcore *lc;
	unsigned int k;
	uint16_t n;

	/* Only the token holder runs this. */
	RTE_ASSERT(
		ewyk_strategy_producer_holder(sh->producer) == rte_lcore_id());
	/* lib/net, lib/tcp, lib/twheel and lib/purgatory assert it in their
	 * holder-only calls. Recorded once per stay on this lcore (the
	 * departure forgets it), not at every iteration. */
	if (unlikely(sh->held_by != self)) {
		ewyk_net_shard_hold(sh->net);
		ewyk_twheel_hold(sh->wheel);
		sh->held_lc = rt_lcore_self(rt);
		sh->held_by = self;
	}
	lc = sh->held_lc;
	if (unlikely(ewyk_rt_stopping(rt)))
		loop_stop(sh);
	/* The previous iteration ends where this one starts: one TSC read
	 * per iteration serves both. */
	if (lc != NULL) {
		uint64_t dt = now - sh->prev;

		if (sh->prev_n != 0) {
			ewyk_ctr_add(&lc->ls.busy_cycles, dt);
			ewyk_ctr_add(&lc->ls.busy_pkts, sh->prev_n);
			ewyk_ctr_add(&lc->ls.pkt_iter_us[iter_bucket(rt, dt)],
				sh->prev_n);
		}
		if (unlikely(dt >= rt->stall_cyc && sh->prev != 0)) {
			ewyk_ctr_add(&lc->ls.stalls, 1);
			ewyk_ctr_add(&lc->ls.stall_cycles, dt);
		}
		ewyk_ctr_add(&lc->ls.iters, 1);
	}
	RTE_PER_LCORE(rt_cur) = sh;
	sh->out = tasks;
	sh->out_n = 0;
	sh->out_max = max;
	sh->now = now;

	/* HTTP/2 connections answer a receive pass's segments together:
	 * one flush each at its end, not one per segment */
	ewyk_http2_server_hold(sh->h2);
	n = ewyk_net_poll(sh->net, now);
	ewyk_net_msg_inbox_drain(sh->net, RT_INBOX_BURST);
	ewyk_http2_server_flush(sh->h2);
	/* TCP sets its clock first, then the shared wheel runs every timer
	 * due: TCP's, the jobs' deadlines and the application's. */
	ewyk_tcp_advance(sh->tcp, now);
	ewyk_twheel_advance(sh->wheel, now, 0);
	if (sh->http != NULL)
		rt_http_shard_poll(sh, now);
	for (k = 0; k < rt->nb_polls; k++)
		rt->polls[k]->poll(sh, now, rt->polls[k]->arg);
	ewyk_net_tx_flush(sh->net);

	sh->out = NULL;
	sh->prev = now;
	sh->prev_n = n;
	return sh->out_n;
}

/*
 * Production leaves this lcore (EPC hand-off, homecoming, stop): nothing
 * of the shard's stays behind. Frames written in the burst go out now,
 * this lcore's caches of the shard's pools go back to them, and the
 * lcore runs no shard's loop any more.
 */
static void
loop_depart(void *ctx, uint32_t why)
{
	struct ewyk_rt_shard *sh = ctx;
	struct ewyk_rt *rt = sh->rt;
	struct rte_mempool_cache *mc;
	unsigned int k;

	RTE_SET_USED(why);
	ewyk_net_tx_flush(sh->net);
	mc = rte_mempool_default_cache(sh->pool, rte_lcore_id());
	if (mc != NULL)
		rte_mempool_cache_flush(mc, sh->pool);
	rt_http_shard_depart(sh);
	for (k = 0; k < rt->nb_inited; k++)
		if (rt->mod[k].depart != NULL)
			rt->mod[k].depart(sh, rt->mod[k].arg);
	RTE_PER_LCORE(rt_cur) = NULL;
	/* From here until the next holder's iteration nobody holds it. */
	ewyk_net_shard_release(sh->net);
	ewyk_twheel_release(sh->wheel);
	sh->held_by = 0;
}

int
rt_shard_producer_init(struct ewyk_rt *rt, struct ewyk_rt_shard *sh)
{
	struct ewyk_strategy_producer_conf pc = {
		.produce = loop_produce,
		.ctx = sh,
		.burst = 32,
		.idle_polls = EWYK_STRATEGY_PRODUCER_POLL_FOREVER,
		.depart = loop_depart,
	};

	if (rt->ex != NULL) {
		pc.flags = EWYK_STRATEGY_PRODUCER_F_HOME;
		pc.home_lcore = sh->home;
	}
	sh->producer = ewyk_strategy_producer_create(rt->strategy, &pc);
	if (sh->producer == NULL) {
		RT_LOG(ERR, "error: producer of shard %u: %s", sh->id,
			rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

/*
 * An lcore's life. A worker produces its shard until stopped; when EPC
 * moved production away (the lcore ran the blocking task, then what was
 * queued), it serves the executor, where production comes home as a job
 * as soon as the holder sees it idle. A reserved lcore serves the
 * executor: EPC hand-offs (it then runs the loop of that shard) and the
 * PEC ring.
 */
int
rt_lcore_main(void *arg)
{
	struct rt_lcore *lc = arg;
	struct ewyk_rt *rt = lc->rt;
	int ret;

	if (lc->reserved)
		return ewyk_strategy_executor_serve(rt->ex, &rt->quit);
	ret = ewyk_strategy_producer_run(rt->sh[lc->shard].producer);
	if (ret == EWYK_STRATEGY_PRODUCE_HANDED_OFF && rt->ex != NULL)
		ewyk_strategy_executor_serve(rt->ex, &rt->quit);
	return 0;
}
