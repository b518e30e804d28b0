/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-lcore statistics: the table printed every --stats-interval seconds
 * and at exit, and the /ewyk/stats telemetry command.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_spinlock.h>
#include <rte_telemetry.h>

#include "httpd.h"
#include "tcp_services.h"

/* One lcore's figures at one instant. */
struct lcore_snap {
	uint64_t rx_pkts, rx_bytes, tx_pkts, tx_bytes, drops;
	uint64_t iters, busy_cycles, busy_pkts;
};

/* Previous snapshot, for rates; touched only by the printing lcore. */
static struct {
	uint64_t tsc;
	struct lcore_snap s[HTTPD_MAX_LCORES];
} prev_snap;

/* The app as telemetry sees it; the lock keeps teardown from freeing it
 * under a running callback (telemetry thread vs main only). */
static struct httpd *tel_app;
static rte_spinlock_t tel_lock = RTE_SPINLOCK_INITIALIZER;

static uint64_t
ld(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static void
snap_lcore(const struct httpd_lcore *lc, struct lcore_snap *o)
{
	unsigned int c;

	o->rx_pkts = ewyk_net_counter_get(lc->shard, EWYK_NET_RX_PKTS);
	o->rx_bytes = ewyk_net_counter_get(lc->shard, EWYK_NET_RX_BYTES);
	o->tx_pkts = ewyk_net_counter_get(lc->shard, EWYK_NET_TX_PKTS);
	o->tx_bytes = ewyk_net_counter_get(lc->shard, EWYK_NET_TX_BYTES);
	o->drops = 0;
	for (c = EWYK_NET_DROP_FIRST; c < EWYK_NET_COUNTER_MAX; c++)
		o->drops += ewyk_net_counter_get(lc->shard, c);
	o->iters = ld(&lc->ls.iters);
	o->busy_cycles = ld(&lc->ls.busy_cycles);
	o->busy_pkts = ld(&lc->ls.busy_pkts);
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
}

static void
print_row(const char *name, const struct lcore_snap *s,
		const struct lcore_snap *p, double secs)
{
	double rx_pps = 0, tx_pps = 0, rx_mbps = 0, tx_mbps = 0;
	double cpp = s->busy_pkts != 0 ?
		(double)s->busy_cycles / (double)s->busy_pkts : 0.0;

	if (p != NULL && secs > 0) {
		rx_pps = (double)(s->rx_pkts - p->rx_pkts) / secs;
		tx_pps = (double)(s->tx_pkts - p->tx_pkts) / secs;
		rx_mbps = (double)(s->rx_bytes - p->rx_bytes) * 8 / secs / 1e6;
		tx_mbps = (double)(s->tx_bytes - p->tx_bytes) * 8 / secs / 1e6;
	}
	printf("%-7s %12" PRIu64 " %14" PRIu64 " %12" PRIu64 " %14" PRIu64
		" %9" PRIu64 " %11.0f %11.0f %9.2f %9.2f %13" PRIu64 " %9.1f\n",
		name, s->rx_pkts, s->rx_bytes, s->tx_pkts, s->tx_bytes,
		s->drops, rx_pps, tx_pps, rx_mbps, tx_mbps, s->iters, cpp);
}

void
httpd_stats_print(struct httpd *h, bool final)
{
	struct lcore_snap cur[HTTPD_MAX_LCORES];
	struct lcore_snap tot, ptot;
	uint64_t now = rte_rdtsc();
	double secs = prev_snap.tsc != 0 ?
		(double)(now - prev_snap.tsc) / (double)rte_get_tsc_hz() : 0;
	unsigned int i, c;
	char name[16];
	bool any_drop = false;

	memset(&tot, 0, sizeof(tot));
	memset(&ptot, 0, sizeof(ptot));
	printf("\n%s per-lcore stats (rates over the last %.1f s)\n",
		final ? "Final" : "==", secs);
	printf("%-7s %12s %14s %12s %14s %9s %11s %11s %9s %9s %13s %9s\n",
		"lcore", "rx_pkts", "rx_bytes", "tx_pkts", "tx_bytes", "drops",
		"rx_pps", "tx_pps", "rx_Mbps", "tx_Mbps", "loops", "cyc/pkt");
	for (i = 0; i < h->nb_lcores; i++) {
		snap_lcore(&h->lc[i], &cur[i]);
		snprintf(name, sizeof(name), "%u", h->lc[i].lcore_id);
		print_row(name, &cur[i], secs > 0 ? &prev_snap.s[i] : NULL,
			secs);
		snap_add(&tot, &cur[i]);
		snap_add(&ptot, &prev_snap.s[i]);
	}
	print_row("total", &tot, secs > 0 ? &ptot : NULL, secs);

	for (c = EWYK_NET_DROP_FIRST; c < EWYK_NET_COUNTER_MAX; c++) {
		uint64_t sum = ewyk_net_counter_sum(h->net, c);

		if (sum == 0)
			continue;
		if (!any_drop)
			printf("drops by reason (per lcore):\n");
		any_drop = true;
		printf("  %-22s %10" PRIu64 "  [", ewyk_net_counter_name(c),
			sum);
		for (i = 0; i < h->nb_lcores; i++)
			printf("%s%u:%" PRIu64, i ? " " : "", h->lc[i].lcore_id,
				ewyk_net_counter_get(h->lc[i].shard, c));
		printf("]\n");
	}
	tcp_services_stats_print(h);
	fflush(stdout);
	memcpy(prev_snap.s, cur, sizeof(cur[0]) * h->nb_lcores);
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
	rte_tel_data_add_dict_u64(d, "loop_iterations", s->iters);
	rte_tel_data_add_dict_u64(d, "busy_cycles", s->busy_cycles);
	rte_tel_data_add_dict_u64(d, "busy_pkts", s->busy_pkts);
	rte_tel_data_add_dict_u64(d, "busy_cycles_per_pkt",
		s->busy_pkts != 0 ? s->busy_cycles / s->busy_pkts : 0);
}

/*
 * /ewyk/stats: {"total": {...}, "lcore_<id>": {..., drop reasons}, ...}
 */
static int
tel_stats_locked(struct httpd *h, struct rte_tel_data *d)
{
	struct lcore_snap tot, s;
	struct rte_tel_data *t;
	unsigned int i, c;
	char key[32];

	if (h == NULL)
		return -ENODEV;
	memset(&tot, 0, sizeof(tot));
	rte_tel_data_start_dict(d);
	for (i = 0; i < h->nb_lcores; i++) {
		struct rte_tel_data *l = rte_tel_data_alloc();

		if (l == NULL)
			return -ENOMEM;
		snap_lcore(&h->lc[i], &s);
		snap_add(&tot, &s);
		rte_tel_data_start_dict(l);
		rte_tel_data_add_dict_u64(l, "shard", h->lc[i].shard_id);
		tel_add_snap(l, &s);
		for (c = EWYK_NET_DROP_FIRST; c < EWYK_NET_COUNTER_MAX; c++)
			rte_tel_data_add_dict_u64(l, ewyk_net_counter_name(c),
				ewyk_net_counter_get(h->lc[i].shard, c));
		tcp_services_tel_lcore(l, &h->lc[i]);
		snprintf(key, sizeof(key), "lcore_%u", h->lc[i].lcore_id);
		rte_tel_data_add_dict_container(d, key, l, 0);
	}
	t = rte_tel_data_alloc();
	if (t == NULL)
		return -ENOMEM;
	rte_tel_data_start_dict(t);
	tel_add_snap(t, &tot);
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
httpd_stats_telemetry_fini(void)
{
	rte_spinlock_lock(&tel_lock);
	tel_app = NULL;
	rte_spinlock_unlock(&tel_lock);
}

int
httpd_stats_telemetry_init(struct httpd *h)
{
	/* Rates of the first report run from here, when every counter is 0. */
	prev_snap.tsc = rte_rdtsc();
	rte_spinlock_lock(&tel_lock);
	tel_app = h;
	rte_spinlock_unlock(&tel_lock);
	return rte_telemetry_register_cmd("/ewyk/stats", tel_stats,
		"Per-lcore stats of ewyk-httpd: packets, bytes, drops, loop iterations, busy cycles per packet");
}
