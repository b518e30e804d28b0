/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What ewyk-loadgen tells: a live line per second on stderr, and at the
 * end a summary on stderr and exactly one JSON line on stdout.
 */

#include <inttypes.h>
#include <stdio.h>

#include <rte_lcore.h>

#include "idle.h"
#include "loadgen.h"

static const char *const err_names[LG_ERR_MAX] = {
#define LG_ERR_NAME(sym, name, help) #name,
	LG_ERRORS(LG_ERR_NAME)
#undef LG_ERR_NAME
};

const char *
lg_err_name(unsigned int e)
{
	return e < LG_ERR_MAX ? err_names[e] : NULL;
}

static uint64_t
errors_of(struct lg_lcore *lc)
{
	uint64_t v = 0;
	unsigned int e;

	for (e = 0; e < LG_ERR_MAX; e++)
		v += lg_stat_get(&lc->st.err[e]);
	return v;
}

void
lg_report_live(struct lg *g, uint64_t now)
{
	uint64_t ok = 0, err = 0, p99 = 0;
	double secs;
	unsigned int i;

	if (now < g->live_at)
		return;
	if (g->live_prev == 0) {
		/* The first call: start counting from here. */
		g->live_prev = now;
		g->live_at = now + g->hz;
		return;
	}
	secs = (double)(now - g->live_prev) / (double)g->hz;
	g->live_prev = now;
	g->live_at = now + g->hz;
	for (i = 0; i < g->nb_lcores; i++) {
		struct lg_lcore *lc = &g->lc[i];
		uint64_t p = lg_stat_get(&lc->live_p99_ns);

		ok += lg_stat_get(&lc->st.ok);
		err += errors_of(lc);
		if (p > p99)
			p99 = p;
	}
	if (!g->conf.quiet) {
		fprintf(stderr,
			"loadgen: %6.1f s %s: %10.0f req/s, %" PRIu64
			" errors, p99 %.1f us (worst lcore), busy",
			(double)(now - g->t_start) / (double)g->hz,
			now < g->t_measure ? "warm-up " : "measured",
			(double)(ok - g->prev_ok) / secs, err - g->prev_err,
			(double)p99 / 1000.0);
		for (i = 0; i < g->nb_lcores; i++) {
			struct lg_lcore *lc = &g->lc[i];
			uint64_t b = lg_stat_get(&lc->st.busy_cycles);
			uint64_t c = lg_stat_get(&lc->st.cycles);
			uint64_t dc = c - g->prev_cycles[i];

			fprintf(stderr, " %u:%.0f%%", lc->lcore_id,
				dc == 0 ?
					0.0 :
					100.0 * (double)(b - g->prev_busy[i]) /
						(double)dc);
			g->prev_busy[i] = b;
			g->prev_cycles[i] = c;
		}
		fprintf(stderr, "\n");
	}
	g->prev_ok = ok;
	g->prev_err = err;
}

static double
us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

int
lg_report_final(struct lg *g)
{
	static struct lg_hist all, lag, stall_spanned, gap_spanned, nostall,
		nogap;
	uint64_t stalls = 0, stall_cyc = 0, stall_max = 0;
	uint64_t gaps = 0, gap_cyc = 0, refused = 0;
	uint64_t ok = 0, err[LG_ERR_MAX] = { 0 }, errors = 0;
	uint64_t sent = 0, resp = 0, connects = 0, busy = 0, cycles = 0;
	uint64_t err_all = 0;
	double dur;
	unsigned int i, e;

	lg_hist_reset(&all);
	lg_hist_reset(&lag);
	lg_hist_reset(&stall_spanned);
	lg_hist_reset(&gap_spanned);
	lg_hist_reset(&nostall);
	lg_hist_reset(&nogap);
	for (i = 0; i < g->nb_lcores; i++) {
		struct lg_lcore *lc = &g->lc[i];

		lg_live_flush(lc);
		lg_hist_merge(&all, &lc->hist);
		ok += lc->st.ok;
		for (e = 0; e < LG_ERR_MAX; e++)
			err[e] += lc->st.err[e];
		sent += lc->st.sent;
		resp += lc->st.responses;
		connects += lc->st.connects;
		err_all += lc->st.err_all;
		busy += lc->st.busy_cycles;
		cycles += lc->st.cycles;
		stalls += lc->st.stalls;
		stall_cyc += lc->st.stall_cycles;
		stall_max = RTE_MAX(stall_max, lc->st.stall_max);
		gaps += lc->st.peer_gaps;
		refused += lc->st.send_refused_total;
		gap_cyc += lc->st.peer_gap_cycles;
		lg_hist_merge(&lag, &lc->lag);
		lg_hist_merge(&stall_spanned, &lc->spanned);
		lg_hist_merge(&gap_spanned, &lc->gapped);
	}
	/* The responses whose time overlapped no stall of this loop, and
	 * those that overlapped no peer gap either (their max: the upper
	 * bound of their highest bucket, lg_hist_sub()). */
	lg_hist_merge(&nostall, &all);
	lg_hist_sub(&nostall, &stall_spanned);
	lg_hist_merge(&nogap, &all);
	lg_hist_sub(&nogap, &gap_spanned);
	for (e = 0; e < LG_ERR_MAX; e++)
		errors += err[e];
	/* The measured window as lcore 0 lived it (shorter when stopped). */
	dur = (double)g->lc[0].st.cycles / (double)g->hz;

	fprintf(stderr,
		"loadgen: %" PRIu64 " responses 2xx in %.3f s = %.0f req/s; "
		"latency us p50 %.1f p90 %.1f p99 %.1f p99.9 %.1f max %.1f\n",
		ok, dur, dur > 0 ? (double)ok / dur : 0.0,
		us(lg_hist_quantile(&all, 0.5)),
		us(lg_hist_quantile(&all, 0.9)),
		us(lg_hist_quantile(&all, 0.99)),
		us(lg_hist_quantile(&all, 0.999)), us(all.max));
	fprintf(stderr,
		"loadgen: %" PRIu64 " responses spanned a stall of this loop "
		"(%" PRIu64 ", longest %.1f us), the others p99 %.1f p99.9 "
		"%.1f; %" PRIu64 " spanned it or a peer gap (%" PRIu64
		"), the others p99 %.1f p99.9 %.1f\n",
		stall_spanned.count, stalls, us(lg_tsc_ns(g, stall_max)),
		us(lg_hist_quantile(&nostall, 0.99)),
		us(lg_hist_quantile(&nostall, 0.999)), gap_spanned.count, gaps,
		us(lg_hist_quantile(&nogap, 0.99)),
		us(lg_hist_quantile(&nogap, 0.999)));
	fprintf(stderr, "loadgen: errors %" PRIu64, errors);
	for (e = 0; e < LG_ERR_MAX; e++)
		fprintf(stderr, " %s=%" PRIu64, err_names[e], err[e]);
	fprintf(stderr,
		"; whole run: %" PRIu64 " requests sent, %" PRIu64
		" responses, %" PRIu64 " connections\n",
		sent, resp, connects);
	for (i = 0; i < g->nb_lcores; i++) {
		struct lg_lcore *lc = &g->lc[i];

		fprintf(stderr,
			"loadgen: lcore %u: %" PRIu64
			" req, busy %.1f%%, %.0f cycles/req\n",
			lc->lcore_id, lc->st.ok,
			lc->st.cycles == 0 ?
				0.0 :
				100.0 * (double)lc->st.busy_cycles /
					(double)lc->st.cycles,
			lc->st.ok == 0 ?
				0.0 :
				(double)lc->st.cycles / (double)lc->st.ok);
	}
	fflush(stderr);

	printf("{\"rps\": %.1f, \"p50_us\": %.1f, \"p90_us\": %.1f, "
	       "\"p99_us\": %.1f, \"p999_us\": %.1f, \"max_us\": %.1f, "
	       "\"mean_us\": %.1f, \"errors\": %" PRIu64
	       ", \"errors_by_kind\": {",
		dur > 0 ? (double)ok / dur : 0.0,
		us(lg_hist_quantile(&all, 0.5)),
		us(lg_hist_quantile(&all, 0.9)),
		us(lg_hist_quantile(&all, 0.99)),
		us(lg_hist_quantile(&all, 0.999)), us(all.max),
		all.count == 0 ? 0.0 : us(all.sum / all.count), errors);
	for (e = 0; e < LG_ERR_MAX; e++)
		printf("%s\"%s\": %" PRIu64, e == 0 ? "" : ", ", err_names[e],
			err[e]);
	printf("}, \"requests\": %" PRIu64 ", \"sent_total\": %" PRIu64
	       ", \"responses_total\": %" PRIu64 ", \"errors_total\": %" PRIu64
	       ", \"connects\": %" PRIu64
	       ", \"conns\": %u, \"duration_s\": %.3f, \"lcores\": %u, "
	       "\"busy_pct\": %.1f, \"cycles_per_req\": %.0f, "
	       "\"busy_cycles_per_req\": %.0f, \"tsc_hz\": %" PRIu64,
		ok, sent, resp, err_all, connects, g->conf.conns, dur,
		g->nb_lcores,
		cycles == 0 ? 0.0 : 100.0 * (double)busy / (double)cycles,
		ok == 0 ? 0.0 : (double)cycles / (double)ok,
		ok == 0 ? 0.0 : (double)busy / (double)ok, g->hz);
	/* Loss and its recovery on the client's side, whole run: its TCP's
	 * retransmissions, timeouts and back-pressure stops, its frames
	 * dropped at a full TX. */
	{
		uint64_t rtx = 0, rto = 0, blk = 0, full = 0, loops = 0, kh = 0;

		for (i = 0; i < g->nb_lcores; i++) {
			const struct lg_lcore *lc = &g->lc[i];

			loops += lc->st.loops;
			kh += lc->khead_hits;
			if (lc->tcp == NULL)
				continue;
			rtx += ewyk_tcp_counter_get(lc->tcp,
				EWYK_TCP_RETRANS_SEGS);
			rto += ewyk_tcp_counter_get(lc->tcp, EWYK_TCP_RTO);
			blk += ewyk_tcp_counter_get(lc->tcp,
				EWYK_TCP_TX_BLOCKED);
			full += ewyk_net_counter_get(lc->shard,
				EWYK_NET_DROP_TX_FULL);
		}
		printf(", \"loss\": {\"retrans_segs\": %" PRIu64
		       ", \"rto\": %" PRIu64 ", \"tx_blocked\": %" PRIu64
		       ", \"drop_tx_full\": %" PRIu64 "}",
			rtx, rto, blk, full);
		/* Iterations of the runtime's loop over the whole run, for
		 * instruction counts per iteration and per request. */
		printf(", \"loops_total\": %" PRIu64, loops);
		/* Responses whose head was a known one (not parsed again). */
		printf(", \"known_head_responses\": %" PRIu64, kh);
	}
	/* Where the open loop's latency comes from on the client's side: how
	 * late requests left (from their intended time) and the time the
	 * kernel took the loop's core (iterations of LG_STALL_US or more). */
	printf(", \"send_lag_p99_us\": %.1f, \"send_lag_p999_us\": %.1f, "
	       "\"send_lag_max_us\": %.1f, \"loop_stalls\": %" PRIu64
	       ", \"loop_stall_pct\": %.2f",
		us(lg_hist_quantile(&lag, 0.99)),
		us(lg_hist_quantile(&lag, 0.999)), us(lag.max), stalls,
		cycles == 0 ? 0.0 : 100.0 * (double)stall_cyc / (double)cycles);
	printf(", \"send_lag_p50_us\": %.1f, \"send_lag_p90_us\": %.1f, "
	       "\"loop_stall_max_us\": %.1f, \"send_refused_total\": %" PRIu64,
		us(lg_hist_quantile(&lag, 0.5)),
		us(lg_hist_quantile(&lag, 0.9)), us(lg_tsc_ns(g, stall_max)),
		refused);
	/* The tail with and without the host's share. A response is
	 * stall-spanned when its request was due or in flight while this
	 * loop stalled (the kernel ran something else: exact); gap-spanned
	 * when it was stall-spanned or in flight during a peer gap (defined
	 * in docs/guides/runtime.md, "peer gap"). The max of those without
	 * is a bucket's upper bound, not an exact maximum. */
	printf(", \"stall_spanned\": %" PRIu64
	       ", \"p50_nostall_us\": %.1f, \"p99_nostall_us\": %.1f"
	       ", \"p999_nostall_us\": %.1f, \"max_nostall_us\": %.1f",
		stall_spanned.count, us(lg_hist_quantile(&nostall, 0.5)),
		us(lg_hist_quantile(&nostall, 0.99)),
		us(lg_hist_quantile(&nostall, 0.999)), us(nostall.max));
	printf(", \"peer_gaps\": %" PRIu64 ", \"peer_gap_pct\": %.2f"
	       ", \"gap_spanned\": %" PRIu64
	       ", \"p99_nogap_us\": %.1f, \"p999_nogap_us\": %.1f"
	       ", \"max_nogap_us\": %.1f",
		gaps,
		cycles == 0 ? 0.0 : 100.0 * (double)gap_cyc / (double)cycles,
		gap_spanned.count, us(lg_hist_quantile(&nogap, 0.99)),
		us(lg_hist_quantile(&nogap, 0.999)), us(nogap.max));
	lg_idle_json(g);
	printf("}\n");
	fflush(stdout);
	if (connects != 0 || errors != 0 || !lg_finished(g))
		return 0;
	/* No connection opened and nothing refused one (a closed port's
	 * RSTs are counted errors): nothing answered at all, and the zeros
	 * above are not a result. */
	fprintf(stderr,
		"error: no connection to the target opened: nothing answered "
		"(link down? a memif client with more queues, one per worker "
		"lcore, than its server never comes up)\n");
	return -1;
}
