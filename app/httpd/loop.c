/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The loop of a shard's token holder (docs/architecture.md), run as the
 * produce() function of the shard's ewyk_strategy producer:
 *
 *   one TSC read -> rx burst, each frame to completion (the services'
 *   handlers run here and may yield BLOCKING tasks) -> drain the shard's
 *   message inbox (completions of dispatched tasks) -> advance the wheel
 *   (TCP timers, task deadlines) -> flush TX
 *
 * and the tasks it yields are dispatched by the strategy (PC in place,
 * EPC: production moves to a reserved lcore and the task runs here, PEC:
 * queued). Every worker runs its own shard's producer; a reserved lcore
 * that receives a token runs the same produce() through the producer
 * loop; production comes home to the worker as soon as it is idle.
 */

#include <stdbool.h>
#include <stdio.h>

#include <rte_cycles.h>
#include <rte_debug.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "http_app.h"
#include "httpd.h"
#include "tcp_services.h"

/* Frames and completions applied per iteration, at most. */
#define HTTPD_INBOX_BURST 64

static bool httpd_quit;

void
httpd_request_stop(void)
{
	__atomic_store_n(&httpd_quit, true, __ATOMIC_RELAXED);
}

bool
httpd_stopping(void)
{
	return __atomic_load_n(&httpd_quit, __ATOMIC_RELAXED);
}

struct httpd_lcore *
httpd_lcore_self(struct httpd *h)
{
	unsigned int l = rte_lcore_id();

	if (l >= RTE_MAX_LCORE || h->lc_of[l] < 0)
		return NULL;
	return &h->lc[h->lc_of[l]];
}

static inline void
stat_add(uint64_t *c, uint64_t v)
{
	ewyk_ctr_add(c, v);
}

int
httpd_yield_task(struct httpd_shard *sh, const struct ewyk_strategy_task *t)
{
	if (sh->out == NULL || sh->out_n == sh->out_max)
		return -ENOBUFS;
	sh->out[sh->out_n++] = *t;
	return 0;
}

/* Stop: every holder stops its producer, the serve loops leave. */
static void
loop_stop(struct httpd_shard *sh)
{
	struct httpd *h = sh->app;

	ewyk_strategy_producer_stop(sh->producer);
	__atomic_store_n(&h->quit, 1, __ATOMIC_RELEASE);
	ewyk_strategy_executor_wake_all(h->ex);
}

/* One iteration of the loop; the shard's produce() function. */
static unsigned int
loop_produce(void *ctx, struct ewyk_strategy_task *tasks, unsigned int max)
{
	struct httpd_shard *sh = ctx;
	struct httpd *h = sh->app;
	struct httpd_lcore *lc = httpd_lcore_self(h);
	uint64_t now = rte_rdtsc();
	uint16_t n;

	/* Only the token holder runs this. */
	RTE_ASSERT(
		ewyk_strategy_producer_holder(sh->producer) == rte_lcore_id());
	/* lib/net, lib/tcp, lib/twheel and lib/purgatory assert it in their
	 * holder-only calls. */
	ewyk_net_shard_hold(sh->shard);
	ewyk_twheel_hold(sh->wheel);
	if (unlikely(httpd_stopping()))
		loop_stop(sh);
	/* The previous iteration ends where this one starts: one TSC read
	 * per iteration serves both. */
	if (lc != NULL) {
		if (sh->prev_n != 0) {
			stat_add(&lc->ls.busy_cycles, now - sh->prev);
			stat_add(&lc->ls.busy_pkts, sh->prev_n);
		}
		stat_add(&lc->ls.iters, 1);
		lc->cur = sh;
	}
	sh->out = tasks;
	sh->out_n = 0;
	sh->out_max = max;
	sh->now = now;

	n = ewyk_net_poll(sh->shard, now);
	ewyk_net_msg_inbox_drain(sh->shard, HTTPD_INBOX_BURST);
	tcp_services_poll(sh, now);
	http_shard_poll(sh, now);
	ewyk_net_tx_flush(sh->shard);

	sh->out = NULL;
	sh->prev = now;
	sh->prev_n = n;
	if (unlikely(h->conf.stats_interval != 0 && now >= h->next_stats &&
		    rte_lcore_id() == rte_get_main_lcore())) {
		h->next_stats = now +
			(uint64_t)h->conf.stats_interval * rte_get_tsc_hz();
		httpd_stats_print(h, false);
	}
	return sh->out_n;
}

/*
 * Production leaves this lcore (EPC hand-off, homecoming, stop): nothing
 * of the shard's stays behind. Frames written in the burst go out now, and
 * this lcore's caches of the shard's pools go back to them.
 */
static void
loop_depart(void *ctx, uint32_t why)
{
	struct httpd_shard *sh = ctx;
	struct rte_mempool_cache *mc;

	RTE_SET_USED(why);
	ewyk_net_tx_flush(sh->shard);
	mc = rte_mempool_default_cache(sh->pool, rte_lcore_id());
	if (mc != NULL)
		rte_mempool_cache_flush(mc, sh->pool);
	if (sh->conns != NULL)
		ewyk_pool_cache_flush(sh->conns);
	if (sh->tasks != NULL)
		ewyk_pool_cache_flush(sh->tasks);
	http_shard_depart(sh);
	/* From here until the next holder's iteration nobody holds it. */
	ewyk_net_shard_release(sh->shard);
	ewyk_twheel_release(sh->wheel);
}

int
httpd_shard_producer_init(struct httpd *h, struct httpd_shard *sh)
{
	struct ewyk_strategy_producer_conf pc = {
		.produce = loop_produce,
		.ctx = sh,
		.burst = 32,
		.idle_polls = EWYK_STRATEGY_PRODUCER_POLL_FOREVER,
		.depart = loop_depart,
	};

	if (h->ex != NULL) {
		pc.flags = EWYK_STRATEGY_PRODUCER_F_HOME;
		pc.home_lcore = sh->home;
	}
	sh->producer = ewyk_strategy_producer_create(h->strategy, &pc);
	if (sh->producer == NULL) {
		fprintf(stderr, "error: producer of shard %u: %s\n", sh->id,
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
httpd_lcore_main(void *arg)
{
	struct httpd_lcore *lc = arg;
	struct httpd *h = lc->app;
	int ret;

	if (lc->reserved)
		return ewyk_strategy_executor_serve(h->ex, &h->quit);
	ret = ewyk_strategy_producer_run(h->sh[lc->shard].producer);
	if (ret == EWYK_STRATEGY_PRODUCE_HANDED_OFF && h->ex != NULL)
		ewyk_strategy_executor_serve(h->ex, &h->quit);
	return 0;
}
