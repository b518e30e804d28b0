/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The poll loop of a shard's token holder (DESIGN.md section 2):
 * one TSC read, rx burst and run to completion, timers, tx flush.
 */

#include <stdbool.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "httpd.h"
#include "tcp_services.h"

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

static inline void
stat_add(uint64_t *c, uint64_t v)
{
	__atomic_store_n(c, *c + v, __ATOMIC_RELAXED);
}

int
httpd_loop(void *arg)
{
	struct httpd_lcore *lc = arg;
	struct ewyk_net_shard *s = lc->shard;
	bool is_main = rte_lcore_id() == rte_get_main_lcore();
	uint64_t hz = rte_get_tsc_hz();
	uint64_t interval = (uint64_t)lc->app->conf.stats_interval * hz;
	uint64_t next_stats = rte_rdtsc() + interval;
	uint64_t prev = rte_rdtsc();
	uint16_t prev_n = 0;

	while (!httpd_stopping()) {
		uint64_t now = rte_rdtsc();
		uint16_t n;

		/* The previous iteration ends where this one starts: one TSC
		 * read per iteration serves both. */
		if (prev_n != 0) {
			stat_add(&lc->ls.busy_cycles, now - prev);
			stat_add(&lc->ls.busy_pkts, prev_n);
		}
		stat_add(&lc->ls.iters, 1);

		n = ewyk_net_poll(s, now);
		/* The shard's timers (TCP retransmission, delayed ACK, ...). */
		tcp_services_poll(lc, now);
		ewyk_net_tx_flush(s);

		prev = now;
		prev_n = n;
		if (unlikely(is_main && interval != 0 && now >= next_stats)) {
			next_stats = now + interval;
			httpd_stats_print(lc->app, false);
		}
	}
	ewyk_net_tx_flush(s);
	return 0;
}
