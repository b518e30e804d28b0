/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ewyk timer wheel vs DPDK rte_timer, same binary, same run. Every
 * benchmark body is written once (templates below) over a small adapter
 * per implementation (Tw, Rt).
 *
 *   BM_twheel_<op>/<N>, BM_rte_timer_<op>/<N>
 *     op: arm, rearm, cancel, expire; N: timers pending (1000, 1e5, 1e6)
 *     one benchmark iteration = one operation on one timer
 *   BM_twheel_poll_empty, BM_rte_timer_manage_empty,
 *   BM_rte_timer_manage_empty_gated
 *     one poll of a timer structure with nothing due (1000 pending)
 *
 * The wheel runs with its defaults (tick ~1-2 us, slack shift 3: a timer
 * may fire up to 1/8 of its delay late instead of cascading to the tick).
 * rte_timer: rte_timer_subsystem_init(), rte_timer_reset(SINGLE, this
 * lcore), rte_timer_stop(), rte_timer_manage().
 *
 * Timer nodes of both live in arrays backed by transparent huge pages (as
 * DPDK memory is hugepage-backed), so TLB misses hit both the same way.
 *
 * Delays are TCP-like: each timer has a class by its index: delayed ACK
 * (40 ms), RTO (uniform 200 ms - 3 s) or TIME_WAIT/keepalive (60 s).
 * Timers are touched in random order (precomputed random index streams),
 * so the cache is not flattered. Benchmarks are registered per N, so one
 * population per structure and N is built and shared by arm, rearm, cancel
 * and expire (rte_timer keeps one skiplist per lcore: only one population
 * may exist at a time). Outside the rearm benchmark rte_timer's delays are
 * offset by 1 h, so that nothing comes due unless a benchmark makes it (the
 * skiplist's costs depend on the order of expiries, not their magnitude).
 *
 * arm / cancel: between batches all N timers are pending. A batch picks B
 * distinct random pending timers (untimed, Fisher-Yates); for cancel the
 * timed part cancels them, for arm they are cancelled untimed and the timed
 * part arms them again; the population is then restored untimed. B is 1024
 * (N / 4 for N = 1000), so PauseTiming()/ResumeTiming() cost is spread over
 * B operations; the "cycles" counter is the TSC measured around the timed
 * parts only (wall clock: it includes preemption on a busy machine).
 * rearm: a poll loop on a real clock. Before the first iteration (untimed)
 * both populations are re-armed with real TCP delays, uniform time left.
 * Each iteration moves a random timer (pending or fired) to now + its
 * class's delay (TCP re-arms RTO on each ACK; the 40 ms and 60 s classes
 * always move later, the RTO class sometimes earlier). Every 64 operations
 * (one loop iteration of 64 events) the loop polls, inside the timed
 * region: the wheel reads the TSC and runs ewyk_twheel_advance(now), which
 * does the moves a later re-arm deferred and runs what is due; rte_timer
 * runs rte_timer_manage() (its rte_timer_reset() reads the TSC itself).
 * Both pay their expiries. Counters: expiries_per_op (callbacks run per
 * re-arm), deferred_moves_per_op (twheel: timers moved between levels or
 * slots by advance(), the lazy re-arm's deferred work included).
 * expire: the cost of running one expired timer's callback, N pending, the
 *   expiring timers' memory cold (as for timers armed long ago):
 *   - twheel: full life cycle on a synthetic clock. Timers carry the real
 *     TCP delays; the clock jumps to ewyk_twheel_next_expiry() and
 *     advance() runs until B callbacks ran. This includes every cascade on
 *     the way down. Fired timers are re-armed (untimed) at now + their
 *     class delay and evicted from the cache (steady state, after a
 *     warm-up at build time).
 *   - rte_timer reads the real TSC itself, so its clock cannot be moved.
 *     Per batch, B random pending timers are reset (untimed) to expire now
 *     and evicted from the cache; the timed part is the rte_timer_manage()
 *     call that runs them, with the other N - B pending behind them. One
 *     manage() call splits off all B at once, which favours rte_timer over
 *     a poll loop that finds one due timer per call.
 * poll_empty: every poll reads the TSC (rte_rdtsc(), as a poll loop does
 *   once per iteration), then: twheel: ewyk_twheel_advance(now);
 *   rte_timer ungated: rte_timer_manage() (which reads the TSC again
 *   itself); rte_timer gated: rte_timer_manage() only when a resolution
 *   has passed since the last call, as DPDK's examples/timer does (it
 *   gates at 10 ms); here the resolution is the wheel's tick, so both
 *   structures run timers with the same resolution.
 */

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include <benchmark/benchmark.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_memory.h>
#include <rte_timer.h>

#include <ewyk_twheel.h>

#include "bench_common.h"
#include "bench_twheel.h"
#include "bench_twheel_ewyk.h"
#include "bench_twheel_rte.h"

namespace
{

using namespace twb;

/* ------------------------------------------------------------------ */
/* Benchmark bodies, once for both */

template <typename I>
void
bm_arm(benchmark::State &state)
{
	uint32_t n = state.range(0);
	typename I::Pop *p = I::ops(n);
	uint32_t b = batch_of(n);
	uint64_t cyc = 0;

	if (p == nullptr) {
		state.SkipWithError("population set-up failed");
		return;
	}
	while (state.KeepRunningBatch(b)) {
		state.PauseTiming();
		pick_batch(p->slots, n, b, p->rng);
		for (uint32_t i = n - b; i < n; i++)
			I::cancel(p, p->slots[i]);
		I::clock(p);
		uint32_t k = p->k;
		state.ResumeTiming();

		uint64_t t0 = rte_rdtsc();
		for (uint32_t i = n - b; i < n; i++) {
			uint32_t x = p->slots[i];

			I::arm(p, x, tcp_delay(x, k++));
		}
		cyc += rte_rdtsc() - t0;
		p->k = k;
	}
	state.counters["cycles"] = benchmark::Counter(cyc,
		benchmark::Counter::kAvgIterations);
	if (I::has_moves())
		state.counters["pending"] = I::pending(p);
	state.SetItemsProcessed(state.iterations());
}

template <typename I>
void
bm_cancel(benchmark::State &state)
{
	uint32_t n = state.range(0);
	typename I::Pop *p = I::ops(n);
	uint32_t b = batch_of(n);
	uint64_t cyc = 0;

	if (p == nullptr) {
		state.SkipWithError("population set-up failed");
		return;
	}
	while (state.KeepRunningBatch(b)) {
		state.PauseTiming();
		pick_batch(p->slots, n, b, p->rng);
		state.ResumeTiming();

		uint64_t t0 = rte_rdtsc();
		for (uint32_t i = n - b; i < n; i++)
			I::cancel(p, p->slots[i]);
		cyc += rte_rdtsc() - t0;

		state.PauseTiming();
		I::clock(p);
		for (uint32_t i = n - b; i < n; i++) {
			uint32_t x = p->slots[i];

			I::arm(p, x, tcp_delay(x, p->k++));
		}
		state.ResumeTiming();
	}
	state.counters["cycles"] = benchmark::Counter(cyc,
		benchmark::Counter::kAvgIterations);
	if (I::has_moves())
		state.counters["pending"] = I::pending(p);
	state.SetItemsProcessed(state.iterations());
}

template <typename I>
void
bm_rearm(benchmark::State &state)
{
	uint32_t n = state.range(0);
	typename I::Pop *p = I::ops(n);

	if (p == nullptr) {
		state.SkipWithError("population set-up failed");
		return;
	}
	/*
	 * Real delays, uniform time left; what came due while that ran
	 * (rte_timer at 1e6: seconds) runs here, untimed.
	 */
	I::live(p);
	I::poll(p);

	const uint32_t *rnd = p->rnd.data();
	uint32_t mask = p->rnd.size() - 1;
	uint32_t k = p->k;
	uint64_t fired0 = I::fired(p), moved0 = I::moved(p);
	uint64_t t0 = rte_rdtsc();

	for (auto _ : state) {
		uint32_t x = rnd[k & mask];

		/* one loop iteration per 64 events: poll, paid here */
		if ((k & 63) == 0)
			I::poll(p);
		I::rearm(p, x, tcp_delay(x, k));
		k++;
	}
	uint64_t cyc = rte_rdtsc() - t0;
	double it = static_cast<double>(state.iterations());

	p->k = k;
	state.counters["cycles"] = benchmark::Counter(cyc,
		benchmark::Counter::kAvgIterations);
	state.counters["expiries_per_op"] = it > 0 ?
		(I::fired(p) - fired0) / it :
		0;
	if (I::has_moves()) {
		state.counters["deferred_moves_per_op"] = it > 0 ?
			(I::moved(p) - moved0) / it :
			0;
		state.counters["pending"] = I::pending(p);
	}
	state.SetItemsProcessed(state.iterations());
}

template <typename I>
void
bm_expire(benchmark::State &state)
{
	uint32_t n = state.range(0);
	typename I::Pop *p = I::exp(n);
	uint32_t b = batch_of(n);
	uint64_t cyc = 0;
	uint64_t calls = 0;

	if (p == nullptr) {
		state.SkipWithError("population set-up failed");
		return;
	}
	while (state.KeepRunningBatch(b)) {
		state.PauseTiming();
		I::prepare(p, b);
		state.ResumeTiming();

		uint64_t t0 = rte_rdtsc();
		calls += I::fire(p, b);
		cyc += rte_rdtsc() - t0;

		state.PauseTiming();
		if (!I::fired_ok(p, b)) {
			state.SkipWithError("unexpected number of expiries");
			state.ResumeTiming();
			break;
		}
		I::refill(p);
		state.ResumeTiming();
	}
	state.counters["cycles"] = benchmark::Counter(cyc,
		benchmark::Counter::kAvgIterations);
	if (I::has_moves())
		state.counters["pending"] = I::pending(p);
	I::expire_counters(state, p, calls);
	state.SetItemsProcessed(state.iterations());
}

template <typename I>
void
bm_poll_empty(benchmark::State &state)
{
	auto e = std::make_unique<typename I::Empty>();

	if (!I::empty_setup(e.get())) {
		state.SkipWithError("set-up failed");
		return;
	}
	uint64_t t0 = rte_rdtsc();
	for (auto _ : state) {
		/* the loop's TSC, read once per poll; nothing due for 60 s */
		uint64_t now = rte_rdtsc();

		I::empty_poll(e.get(), now);
		/* a real loop calls opaque code around it: reload state */
		benchmark::ClobberMemory();
	}
	uint64_t cyc = rte_rdtsc() - t0;

	state.counters["cycles"] = benchmark::Counter(cyc,
		benchmark::Counter::kAvgIterations);
	state.SetItemsProcessed(state.iterations());
	if (!I::empty_teardown(e.get()))
		state.SkipWithError("a timer fired during the empty poll");
}

/*
 * Per N, every op of both structures, so that each population is built
 * once per N (rte_timer's 1e6 set-up is slow) and only one exists at a
 * time in rte_timer's per-lcore list.
 */
void
register_all()
{
	static const struct {
		const char *op;
		void (*tw)(benchmark::State &);
		void (*rt)(benchmark::State &);
	} ops[] = {
		{ "arm", bm_arm<Tw>, bm_arm<Rt> },
		{ "rearm", bm_rearm<Tw>, bm_rearm<Rt> },
		{ "cancel", bm_cancel<Tw>, bm_cancel<Rt> },
		{ "expire", bm_expire<Tw>, bm_expire<Rt> },
	};

	for (int64_t n : { 1000, 100000, 1000000 }) {
		for (const auto &o : ops) {
			benchmark::RegisterBenchmark(
				(std::string("BM_twheel_") + o.op).c_str(),
				o.tw)
				->Arg(n);
			benchmark::RegisterBenchmark(
				(std::string("BM_rte_timer_") + o.op).c_str(),
				o.rt)
				->Arg(n);
		}
	}
	benchmark::RegisterBenchmark("BM_twheel_poll_empty", bm_poll_empty<Tw>);
	benchmark::RegisterBenchmark("BM_rte_timer_manage_empty",
		bm_poll_empty<Rt>);
	benchmark::RegisterBenchmark("BM_rte_timer_manage_empty_gated",
		bm_poll_empty<RtGated>);
}

} /* namespace */

int
main(int argc, char **argv)
{
	if (ewyk_bench::eal_init(argv[0], "twheel", { "-l", "0-1" }, 256) < 0)
		return 1;
	if (rte_timer_subsystem_init() < 0) {
		fprintf(stderr, "rte_timer_subsystem_init failed\n");
		return 1;
	}
	g_hz = rte_get_tsc_hz();
	g_d40 = g_hz / 25;
	g_d200 = g_hz / 5;
	g_d3s = g_hz * 3;
	g_d60 = g_hz * 60;
	g_hour = g_hz * 3600;
	{
		Rng r(42);

		g_rto.resize(kRtoTable);
		for (auto &d : g_rto)
			d = g_d200 + r.next() % (g_d3s - g_d200);
	}
	benchmark::AddCustomContext("tsc_hz", std::to_string(g_hz));
	register_all();
	return ewyk_bench::run(argc, argv, [] {
		tw_teardown();
		rt_teardown();
	});
}
