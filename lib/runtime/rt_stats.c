/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Statistics of the runtime: the table printed every --stats-interval
 * seconds (by the housekeeping thread, outside every loop) and at exit,
 * and the /ewyk/stats telemetry command. Rows per shard (whose flows: the
 * network counters), per lcore (who did the work: loop iterations, tasks
 * run by mode), the shard's task outcomes, and the strategy (tasks by mode,
 * hand-offs, homecomings, PEC queueing delay).
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_spinlock.h>
#include <rte_telemetry.h>

#include <ewyk_http.h>

#include "rt_private.h"

/* One shard's figures at one instant (loop figures: of its worker). */
struct lcore_snap {
	uint64_t rx_pkts, rx_bytes, tx_pkts, tx_bytes, drops;
	uint64_t iters, busy_cycles, busy_pkts;
	uint64_t requests; /* HTTP request heads parsed */
};

/* Previous snapshot, for rates; touched only by the printing lcore. */
static struct {
	uint64_t tsc;
	struct lcore_snap s[EWYK_RT_MAX_LCORES]; /* per shard */
} prev_snap;

/* The app as telemetry sees it; the lock keeps teardown from freeing it
 * under a running callback (telemetry thread vs main only). */
static struct ewyk_rt *tel_app;
static rte_spinlock_t tel_lock = RTE_SPINLOCK_INITIALIZER;

static uint64_t
ld(const uint64_t *p)
{
	return ewyk_ctr_read(p);
}

static void
snap_shard(const struct ewyk_rt *rt, const struct ewyk_rt_shard *sh,
	struct lcore_snap *o)
{
	const struct rt_lcore *lc = &rt->lc[rt->lc_of[sh->home]];
	unsigned int c;

	o->rx_pkts = ewyk_net_counter_get(sh->net, EWYK_NET_RX_PKTS);
	o->rx_bytes = ewyk_net_counter_get(sh->net, EWYK_NET_RX_BYTES);
	o->tx_pkts = ewyk_net_counter_get(sh->net, EWYK_NET_TX_PKTS);
	o->tx_bytes = ewyk_net_counter_get(sh->net, EWYK_NET_TX_BYTES);
	o->drops = 0;
	for (c = EWYK_NET_DROP_FIRST; c < EWYK_NET_COUNTER_MAX; c++)
		o->drops += ewyk_net_counter_get(sh->net, c);
	o->requests = sh->http != NULL ?
		ewyk_http_server_counter(sh->http, EWYK_HTTP_C_REQUESTS) :
		0;
	o->iters = ld(&lc->ls.iters);
	o->busy_cycles = ld(&lc->ls.busy_cycles);
	o->busy_pkts = ld(&lc->ls.busy_pkts);
}

/* Per lcore: who did the work. */
static void
print_lcores(const struct ewyk_rt *rt, FILE *f)
{
	unsigned int i, m;
	char role[16];

	fprintf(f, "work, per lcore (tasks run here, by mode):\n");
	fprintf(f, "%-7s %-9s %13s %9s", "lcore", "role", "loops", "cyc/pkt");
	for (m = 0; m < EWYK_STRATEGY_MODE_MAX; m++)
		fprintf(f, " %9s", ewyk_strategy_mode_name(m));
	fprintf(f, "\n");
	for (i = 0; i < rt->nb_lcores; i++) {
		const struct rt_lcore *lc = &rt->lc[i];
		uint64_t bp = ld(&lc->ls.busy_pkts);

		if (lc->reserved)
			snprintf(role, sizeof(role), "%s", rt_lcore_role(lc));
		else
			snprintf(role, sizeof(role), "worker s%d", lc->shard);
		fprintf(f, "%-7u %-9s %13" PRIu64 " %9.1f", lc->lcore_id, role,
			ld(&lc->ls.iters),
			bp != 0 ? (double)ld(&lc->ls.busy_cycles) / (double)bp :
				  0.0);
		for (m = 0; m < EWYK_STRATEGY_MODE_MAX; m++)
			fprintf(f, " %9" PRIu64, ld(&lc->ls.mode[m]));
		fprintf(f, "\n");
	}
}

/* Whether any job was started (the tasks table is worth printing). */
static bool
task_any(const struct ewyk_rt *rt)
{
	unsigned int i;

	for (i = 0; i < rt->nb_shards; i++)
		if (ld(&rt->sh[i].task[EWYK_RT_TASK_DISPATCHED]) != 0 ||
			ld(&rt->sh[i].task[EWYK_RT_TASK_REJECTED]) != 0)
			return true;
	return rt->http;
}

/* Per shard: what became of its tasks; then the strategy's figures. */
static void
print_tasks(const struct ewyk_rt *rt, FILE *f)
{
	struct ewyk_strategy_stats st;
	unsigned int i, c;

	if (task_any(rt)) {
		fprintf(f, "%-7s", "tasks");
		for (c = 0; c < EWYK_RT_TASK_CTR_MAX; c++)
			fprintf(f, " %10s", ewyk_rt_task_ctr_name(c));
		fprintf(f, "\n");
		for (i = 0; i < rt->nb_shards; i++) {
			fprintf(f, "shard%-2u", i);
			for (c = 0; c < EWYK_RT_TASK_CTR_MAX; c++)
				fprintf(f, " %10" PRIu64,
					ld(&rt->sh[i].task[c]));
			fprintf(f, "\n");
		}
	}
	if (ewyk_strategy_stats_get(rt->strategy, &st) != 0)
		return;
	fprintf(f, "strategy %s:",
		ewyk_strategy_kind_name(ewyk_strategy_kind_get(rt->strategy)));
	for (c = 0; c < EWYK_STRATEGY_MODE_MAX; c++)
		fprintf(f, " %s=%" PRIu64, ewyk_strategy_mode_name(c),
			st.mode[c]);
	fprintf(f,
		" handoffs=%" PRIu64 " homecomings=%" PRIu64
		" epc_misses=%" PRIu64 " pec_queued=%u pec_delay_p50=%.3fms"
		" pec_delay_p99=%.3fms reserved=%u idle=%u\n",
		st.handoffs, st.homecomings, st.epc_misses, st.ring_count,
		st.pec_delay_p50_ns / 1e6, st.pec_delay_p99_ns / 1e6,
		st.reserved_total, st.reserved_idle);
}

static void
snap_add(struct lcore_snap *t, const struct lcore_snap *a)
{
	t->rx_pkts += a->rx_pkts;
	t->rx_bytes += a->rx_bytes;
	t->tx_pkts += a->tx_pkts;
	t->tx_bytes += a->tx_bytes;
	t->drops += a->drops;
	t->iters += a->iters;
	t->busy_cycles += a->busy_cycles;
	t->busy_pkts += a->busy_pkts;
	t->requests += a->requests;
}

static void
print_row(FILE *f, const char *name, const struct lcore_snap *s,
	const struct lcore_snap *p, double secs)
{
	double rx_pps = 0, tx_pps = 0, rx_mbps = 0, tx_mbps = 0, rps = 0;
	double cpp = s->busy_pkts != 0 ?
		(double)s->busy_cycles / (double)s->busy_pkts :
		0.0;

	if (p != NULL && secs > 0) {
		rx_pps = (double)(s->rx_pkts - p->rx_pkts) / secs;
		tx_pps = (double)(s->tx_pkts - p->tx_pkts) / secs;
		rps = (double)(s->requests - p->requests) / secs;
		rx_mbps = (double)(s->rx_bytes - p->rx_bytes) * 8 / secs / 1e6;
		tx_mbps = (double)(s->tx_bytes - p->tx_bytes) * 8 / secs / 1e6;
	}
	fprintf(f,
		"%-7s %12" PRIu64 " %14" PRIu64 " %12" PRIu64 " %14" PRIu64
		" %9" PRIu64 " %11.0f %11.0f %9.2f %9.2f %12" PRIu64
		" %10.0f %13" PRIu64 " %9.1f\n",
		name, s->rx_pkts, s->rx_bytes, s->tx_pkts, s->tx_bytes,
		s->drops, rx_pps, tx_pps, rx_mbps, tx_mbps, s->requests, rps,
		s->iters, cpp);
}

void
ewyk_rt_stats_dump(struct ewyk_rt *rt, FILE *f, bool final)
{
	struct lcore_snap cur[EWYK_RT_MAX_LCORES];
	struct lcore_snap tot, ptot;
	uint64_t now = rte_rdtsc();
	double secs = prev_snap.tsc != 0 ?
		(double)(now - prev_snap.tsc) / (double)rte_get_tsc_hz() :
		0;
	unsigned int i, c;
	char name[16];
	bool any_drop = false;

	memset(&tot, 0, sizeof(tot));
	memset(&ptot, 0, sizeof(ptot));
	fprintf(f, "\n%s per-lcore stats (rates over the last %.1f s)\n",
		final ? "Final" : "==", secs);
	fprintf(f, "network, per shard (loops and cyc/pkt of its worker):\n");
	fprintf(f,
		"%-7s %12s %14s %12s %14s %9s %11s %11s %9s %9s %12s %10s %13s %9s\n",
		"shard", "rx_pkts", "rx_bytes", "tx_pkts", "tx_bytes", "drops",
		"rx_pps", "tx_pps", "rx_Mbps", "tx_Mbps", "requests", "req/s",
		"loops", "cyc/pkt");
	for (i = 0; i < rt->nb_shards; i++) {
		snap_shard(rt, &rt->sh[i], &cur[i]);
		snprintf(name, sizeof(name), "%u", i);
		print_row(f, name, &cur[i], secs > 0 ? &prev_snap.s[i] : NULL,
			secs);
		snap_add(&tot, &cur[i]);
		snap_add(&ptot, &prev_snap.s[i]);
	}
	print_row(f, "total", &tot, secs > 0 ? &ptot : NULL, secs);

	for (c = EWYK_NET_DROP_FIRST; c < EWYK_NET_COUNTER_MAX; c++) {
		uint64_t sum = ewyk_net_counter_sum(rt->net, c);

		if (sum == 0)
			continue;
		if (!any_drop)
			fprintf(f, "drops by reason (per shard):\n");
		any_drop = true;
		fprintf(f, "  %-22s %10" PRIu64 "  [", ewyk_net_counter_name(c),
			sum);
		for (i = 0; i < rt->nb_shards; i++)
			fprintf(f, "%s%u:%" PRIu64, i ? " " : "", i,
				ewyk_net_counter_get(rt->sh[i].net, c));
		fprintf(f, "]\n");
	}
	rt_tcp_stats_dump(rt, f);
	rt_http_stats_dump(rt, f);
	for (i = 0; i < rt->nb_modules; i++)
		if (rt->mod[i].stats != NULL)
			rt->mod[i].stats(rt, f, rt->mod[i].arg);
	print_lcores(rt, f);
	print_tasks(rt, f);
	fflush(f);
	memcpy(prev_snap.s, cur, sizeof(cur[0]) * rt->nb_shards);
	prev_snap.tsc = now;
}

static void
tel_add_snap(struct rte_tel_data *d, const struct lcore_snap *s)
{
	rte_tel_data_add_dict_u64(d, "rx_pkts", s->rx_pkts);
	rte_tel_data_add_dict_u64(d, "rx_bytes", s->rx_bytes);
	rte_tel_data_add_dict_u64(d, "tx_pkts", s->tx_pkts);
	rte_tel_data_add_dict_u64(d, "tx_bytes", s->tx_bytes);
	rte_tel_data_add_dict_u64(d, "drops", s->drops);
	rte_tel_data_add_dict_u64(d, "http_requests", s->requests);
	rte_tel_data_add_dict_u64(d, "loop_iterations", s->iters);
	rte_tel_data_add_dict_u64(d, "busy_cycles", s->busy_cycles);
	rte_tel_data_add_dict_u64(d, "busy_pkts", s->busy_pkts);
	rte_tel_data_add_dict_u64(d, "busy_cycles_per_pkt",
		s->busy_pkts != 0 ? s->busy_cycles / s->busy_pkts : 0);
}

/* The loop's stalls and its packets by iteration length (rt_lcore_stats). */
static int
tel_loop_hist(struct rte_tel_data *l, const struct rt_lcore *lc)
{
	struct rte_tel_data *h = rte_tel_data_alloc();
	unsigned int b;

	if (h == NULL)
		return -ENOMEM;
	rte_tel_data_start_array(h, RTE_TEL_U64_VAL);
	for (b = 0; b < RT_ITER_HIST; b++)
		rte_tel_data_add_array_u64(h, ld(&lc->ls.pkt_iter_us[b]));
	rte_tel_data_add_dict_container(l, "pkts_by_iter_log2_us", h, 0);
	rte_tel_data_add_dict_u64(l, "loop_stalls", ld(&lc->ls.stalls));
	rte_tel_data_add_dict_u64(l, "loop_stall_cycles",
		ld(&lc->ls.stall_cycles));
	return 0;
}

/* One lcore: what it did (and, for a worker, its home shard's network). */
static int
tel_lcore(struct ewyk_rt *rt, const struct rt_lcore *lc, struct rte_tel_data *d,
	struct lcore_snap *tot)
{
	struct rte_tel_data *l = rte_tel_data_alloc();
	struct lcore_snap s;
	char key[32];
	unsigned int m;

	if (l == NULL)
		return -ENOMEM;
	rte_tel_data_start_dict(l);
	rte_tel_data_add_dict_string(l, "role", rt_lcore_role(lc));
	rte_tel_data_add_dict_int(l, "shard", lc->shard);
	if (!lc->reserved) {
		snap_shard(rt, &rt->sh[lc->shard], &s);
		snap_add(tot, &s);
		tel_add_snap(l, &s);
		rt_tcp_tel_shard(l, &rt->sh[lc->shard]);
	} else {
		rte_tel_data_add_dict_u64(l, "loop_iterations",
			ld(&lc->ls.iters));
		rte_tel_data_add_dict_u64(l, "busy_cycles",
			ld(&lc->ls.busy_cycles));
		rte_tel_data_add_dict_u64(l, "busy_pkts",
			ld(&lc->ls.busy_pkts));
	}
	if (tel_loop_hist(l, lc) != 0) {
		rte_tel_data_free(l);
		return -ENOMEM;
	}
	for (m = 0; m < EWYK_STRATEGY_MODE_MAX; m++) {
		snprintf(key, sizeof(key), "task_%s",
			ewyk_strategy_mode_name(m));
		rte_tel_data_add_dict_u64(l, key, ld(&lc->ls.mode[m]));
	}
	snprintf(key, sizeof(key), "lcore_%u", lc->lcore_id);
	rte_tel_data_add_dict_container(d, key, l, 0);
	return 0;
}

/* One shard: whose flows. Network, TCP, tasks, inbox, pools. */
static int
tel_shard(const struct ewyk_rt_shard *sh, struct rte_tel_data *d)
{
	struct rte_tel_data *t = rte_tel_data_alloc();
	struct ewyk_net_inbox_stats is;
	char key[32];
	unsigned int c, k;

	if (t == NULL)
		return -ENOMEM;
	rte_tel_data_start_dict(t);
	rte_tel_data_add_dict_u64(t, "home_lcore", sh->home);
	/* Every traffic counter, the drop reasons that happened (all of them
	 * are in /ewyk/net/stats): the reply stays small with many shards. */
	for (c = 0; c < EWYK_NET_COUNTER_MAX; c++) {
		uint64_t v = ewyk_net_counter_get(sh->net, c);

		if (c < EWYK_NET_DROP_FIRST || v != 0)
			rte_tel_data_add_dict_u64(t, ewyk_net_counter_name(c),
				v);
	}
	rt_tcp_tel_shard(t, sh);
	rt_http_tel_shard(t, sh);
	for (c = 0; c < EWYK_RT_TASK_CTR_MAX; c++) {
		snprintf(key, sizeof(key), "task_%s", ewyk_rt_task_ctr_name(c));
		rte_tel_data_add_dict_u64(t, key, ld(&sh->task[c]));
	}
	ewyk_net_inbox_stats_get(sh->net, &is);
	rte_tel_data_add_dict_u64(t, "inbox_completions",
		is.posted[EWYK_NET_MSG_COMPLETION]);
	rte_tel_data_add_dict_u64(t, "inbox_full", is.full);
	rte_tel_data_add_dict_u64(t, "inbox_reserved", is.reserved);
	rte_tel_data_add_dict_u64(t, "mbufs_in_use",
		rte_mempool_in_use_count(sh->pool));
	for (k = 0; k < sh->rt->nb_inited; k++)
		if (sh->rt->mod[k].telemetry != NULL)
			sh->rt->mod[k].telemetry(sh, t, sh->rt->mod[k].arg);
	rte_tel_data_add_dict_u64(t, "purgatory_ops",
		sh->purg != NULL ? ewyk_purgatory_count(sh->purg) : 0);
	snprintf(key, sizeof(key), "shard_%u", sh->id);
	rte_tel_data_add_dict_container(d, key, t, 0);
	return 0;
}

static int
tel_strategy(const struct ewyk_rt *rt, struct rte_tel_data *d)
{
	struct rte_tel_data *t = rte_tel_data_alloc();
	struct ewyk_strategy_stats st;
	char key[32];
	unsigned int m;

	if (t == NULL)
		return -ENOMEM;
	ewyk_strategy_stats_get(rt->strategy, &st);
	rte_tel_data_start_dict(t);
	rte_tel_data_add_dict_string(t, "kind",
		ewyk_strategy_kind_name(ewyk_strategy_kind_get(rt->strategy)));
	for (m = 0; m < EWYK_STRATEGY_MODE_MAX; m++) {
		snprintf(key, sizeof(key), "tasks_%s",
			ewyk_strategy_mode_name(m));
		rte_tel_data_add_dict_u64(t, key, st.mode[m]);
	}
	rte_tel_data_add_dict_u64(t, "handoffs", st.handoffs);
	rte_tel_data_add_dict_u64(t, "homecomings", st.homecomings);
	rte_tel_data_add_dict_u64(t, "epc_misses", st.epc_misses);
	rte_tel_data_add_dict_u64(t, "pec_queued", st.ring_count);
	rte_tel_data_add_dict_u64(t, "pec_expired", st.pec_expired);
	rte_tel_data_add_dict_u64(t, "pec_delay_n", st.pec_delay_n);
	rte_tel_data_add_dict_u64(t, "pec_delay_p50_ns", st.pec_delay_p50_ns);
	rte_tel_data_add_dict_u64(t, "pec_delay_p99_ns", st.pec_delay_p99_ns);
	rte_tel_data_add_dict_u64(t, "reserved_lcores", st.reserved_total);
	rte_tel_data_add_dict_u64(t, "reserved_idle", st.reserved_idle);
	rte_tel_data_add_dict_container(d, "strategy", t, 0);
	return 0;
}

/*
 * /ewyk/stats: {"total": {...}, "lcore_<id>": {...}, "shard_<n>": {...},
 * "strategy": {...}}
 */
static int
tel_stats_locked(struct ewyk_rt *rt, struct rte_tel_data *d)
{
	struct lcore_snap tot;
	struct rte_tel_data *t;
	unsigned int i;
	int rc;

	if (rt == NULL)
		return -ENODEV;
	memset(&tot, 0, sizeof(tot));
	rte_tel_data_start_dict(d);
	for (i = 0; i < rt->nb_lcores; i++) {
		rc = tel_lcore(rt, &rt->lc[i], d, &tot);
		if (rc != 0)
			return rc;
	}
	for (i = 0; i < rt->nb_shards; i++) {
		rc = tel_shard(&rt->sh[i], d);
		if (rc != 0)
			return rc;
	}
	rc = tel_strategy(rt, d);
	if (rc != 0)
		return rc;
	t = rte_tel_data_alloc();
	if (t == NULL)
		return -ENOMEM;
	rte_tel_data_start_dict(t);
	tel_add_snap(t, &tot);
	if (rt->sh[0].http != NULL) {
		uint64_t req = 0, ok = 0;

		for (i = 0; i < rt->nb_shards; i++) {
			req += ewyk_http_server_counter(rt->sh[i].http,
				EWYK_HTTP_C_REQUESTS);
			ok += ewyk_http_server_counter(rt->sh[i].http,
				EWYK_HTTP_C_RESP_2XX);
		}
		rte_tel_data_add_dict_u64(t, "http_requests", req);
		rte_tel_data_add_dict_u64(t, "http_resp_2xx", ok);
	}
	rte_tel_data_add_dict_container(d, "total", t, 0);
	return 0;
}

static int
tel_stats(const char *cmd __rte_unused, const char *params __rte_unused,
	struct rte_tel_data *d)
{
	int rc;

	rte_spinlock_lock(&tel_lock);
	rc = tel_stats_locked(tel_app, d);
	rte_spinlock_unlock(&tel_lock);
	return rc;
}

void
rt_stats_telemetry_fini(void)
{
	rte_spinlock_lock(&tel_lock);
	tel_app = NULL;
	rte_spinlock_unlock(&tel_lock);
}

int
rt_stats_telemetry_init(struct ewyk_rt *rt)
{
	/* Rates of the first report run from here, when every counter is 0. */
	prev_snap.tsc = rte_rdtsc();
	rte_spinlock_lock(&tel_lock);
	tel_app = rt;
	rte_spinlock_unlock(&tel_lock);
	return rte_telemetry_register_cmd("/ewyk/stats", tel_stats,
		"Stats of the ewyk runtime per lcore (work), per shard (flows, tasks, inbox, pools) and of the strategy");
}
