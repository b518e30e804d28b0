/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_purgatory: Kafka's purgatory benchmark, on one lcore, with a
 * virtual clock. lib/purgatory (on lib/twheel) against the design Kafka
 * replaced, built here: the same request stream through both.
 *
 *   BM_purgatory_ewyk/{low,high}     lib/purgatory + lib/twheel
 *   BM_purgatory_heap/{low,high}     the old design (below)
 *   each at a target rate at which the baseline saturates (named_rate():
 *   240 k/s low, 60 k/s high: 2-3x past its peak);
 *   BM_purgatory_sweep/<impl>/<scenario>/<rate>   per-rate sweep, only
 *   registered with --sweep (it is long: the baseline's cost grows with
 *   the rate); devtools/plot_purgatory.py plots its JSON output.
 *
 * Workload (Kafka's TestPurgatoryPerformance, as its purgatory redesign
 * measured it): requests arrive with exponentially distributed gaps at the
 * target rate; each has a 200 ms timeout and watches two keys: its own key
 * (one of 2^20, like a connection) and a shared key (one of 1024, like a
 * partition). Its completion time is drawn from a log-normal distribution
 * (low: median 20 ms, 75th percentile 60 ms; high: median 200 ms, 75th
 * percentile 400 ms); if it is before the timeout, an event on the
 * request's own key arrives then (the request becomes completable and the
 * key is checked); otherwise the request times out. Low: ~8% time out;
 * high: ~50%.
 *
 * Virtual clock. Time is simulated, in ns; nothing waits. The stream is
 * generated from a fixed seed per (scenario, rate), so both designs see
 * the same requests, events and times. The run goes in windows of 50 ms
 * of simulated time: the window's arrivals and events are generated first
 * (untimed), then replayed in time order (timed, thread CPU time): before
 * each arrival and each event, the implementation's clock is advanced to
 * its time (the wheel's advance(), the heap's pops), so every piece of
 * deferred work (expiries, stale heap pops, purge scans) falling in the
 * window is paid in it. A 250 ms warm-up (untimed) reaches steady state
 * first.
 *
 * Sustained rate. Replaying S simulated seconds of arrivals at target
 * rate R costs C CPU seconds. If C <= S, one lcore keeps up with R in real
 * time. If C > S it cannot: it does R * S / C requests per CPU-second,
 * which is the rate it sustains (assuming each request costs what it cost
 * at rate R; a real overloaded server would also queue, which the virtual
 * clock does not model). So
 *   requests_per_cpu_second = requests / C     (the throughput per CPU)
 *   sustained_rate = min(R, R * S / C)
 *   cpu_ns_per_request = C / requests
 *   cpu_per_sim_second = C / S    (> 1: saturated)
 * Memory at the end of the run: outstanding_at_end (pending requests),
 * timer_entries_at_end (wheel timers, or heap entries, stale included),
 * stale_watchers_at_end (watch entries of requests already done); and
 * purge_scans (full sweeps of the watch lists), completed and expired
 * (requests, over the measured windows: the same in both designs but for
 * timeouts still in flight at the end).
 *
 * The baseline ("heap"), Kafka's old RequestPurgatory: a binary min-heap
 * of (deadline, request) with no removal: a completed request's entry
 * stays until its deadline pops it (a stale pop). Watch lists per key
 * (std::vector, direct-indexed by key; a completion event walks the key's
 * list, completing completable requests and dropping finished ones); the
 * expiry reaper, after each request it expires, sweeps every watch list
 * when their total size reaches kPurgeInterval (1000, Kafka's default
 * purge interval) - a full scan of all non-empty lists. Requests and their
 * generations come from a free list, as in lib/purgatory.
 *
 * lib/purgatory: ewyk_purgatory_add() (deadline on an ewyk_twheel with a
 * 1.024 us tick and the default slack, so a timeout may fire up to 25 ms
 * late), ewyk_purgatory_check(own key) on an event; its default purge
 * threshold (a sweep when a quarter of the watch pool is stale, counted
 * exactly); capacity sized to the rate.
 */

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <queue>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench_common.h"

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_memory.h>

#include <ewyk_purgatory.h>
#include <ewyk_twheel.h>

namespace
{

constexpr uint64_t kMs = 1000000; /* ns */
constexpr uint64_t kTimeout = 200 * kMs;
constexpr uint64_t kWarmup = 250 * kMs;
constexpr uint64_t kWindow = 50 * kMs;
constexpr uint64_t kT0 = 1000 * kMs; /* virtual clock start (nonzero) */
constexpr uint32_t kOwnKeys = 1u << 20;
constexpr uint32_t kSharedKeys = 1024;
constexpr uint32_t kNkeys = 2;
constexpr uint32_t kPurgeInterval = 1000;
constexpr unsigned int kTickShift = 10; /* 1.024 us of virtual ns */

struct Scenario {
	const char *name;
	double median_ms;
	double p75_ms;
};

const Scenario kLow = { "low", 20.0, 60.0 };
const Scenario kHigh = { "high", 200.0, 400.0 };

/* Rate of the BM_purgatory_<impl>/<scenario> runs: above the baseline's
 * saturation (see docs/guides/purgatory.md for the sweep).
 */
double
named_rate(const Scenario &sc)
{
	return &sc == &kLow ? 240000.0 : 60000.0;
}

double
thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Per-request driver state, in a ring indexed by sequence number. */
struct Rec {
	uint32_t seq;
	uint32_t completable;
};

struct Arrival {
	uint64_t t;
	uint64_t keys[kNkeys];
	uint32_t seq;
};

struct Event {
	uint64_t t;
	uint64_t key;
	uint32_t seq;
	bool operator>(const Event &o) const
	{
		return t > o.t;
	}
};

struct Gauges {
	uint64_t outstanding;
	uint64_t timer_entries;
	uint64_t stale_watchers;
	uint64_t purge_scans;
	uint64_t completed;
	uint64_t expired;
	uint64_t refused;
};

/* ------------------------------------------------------------------ */
/* lib/purgatory on lib/twheel */

int
ew_try(struct ewyk_purgatory_op *, void *ctx)
{
	return static_cast<Rec *>(ctx)->completable != 0;
}

void
ew_done(struct ewyk_purgatory_op *, void *)
{
}

const struct ewyk_purgatory_op_ops kEwOps = { ew_try, ew_done, ew_done };

class EwykImpl
{
      public:
	EwykImpl(double rate, unsigned int id)
	{
		struct ewyk_twheel_params wp = {};
		struct ewyk_purgatory_params pp = {};
		char name[EWYK_PURGATORY_NAMESIZE];

		snprintf(name, sizeof(name), "bpg_w%u", id);
		wp.name = name;
		wp.socket_id = SOCKET_ID_ANY;
		wp.tick_shift = kTickShift;
		wp.start_tsc = kT0;
		w_ = ewyk_twheel_create(&wp);
		if (w_ == nullptr)
			die("ewyk_twheel_create");
		/* pending: < 225 ms of arrivals; room to spare */
		uint32_t cap = static_cast<uint32_t>(rate * 0.3) + 4096;

		snprintf(name, sizeof(name), "bpg_p%u", id);
		pp.name = name;
		pp.socket_id = SOCKET_ID_ANY;
		pp.wheel = w_;
		pp.capacity = cap;
		pp.max_keys = 2 * cap + kSharedKeys;
		p_ = ewyk_purgatory_create(&pp);
		if (p_ == nullptr)
			die("ewyk_purgatory_create");
	}

	~EwykImpl()
	{
		ewyk_purgatory_free(p_);
		ewyk_twheel_free(w_);
	}

	bool add(uint64_t now, const uint64_t *keys, Rec *r)
	{
		return ewyk_purgatory_add(p_, &kEwOps, r, now + kTimeout, keys,
			       kNkeys) != nullptr;
	}

	void event(uint64_t key)
	{
		ewyk_purgatory_check(p_, key);
	}

	void advance(uint64_t now)
	{
		ewyk_twheel_advance(w_, now, 0);
	}

	void end_warmup(void)
	{
	}

	Gauges gauges(void) const;

      private:
	static void die(const char *what)
	{
		fprintf(stderr, "%s: %s\n", what, rte_strerror(rte_errno));
		exit(1);
	}

	struct ewyk_twheel *w_;
	struct ewyk_purgatory *p_;
};

Gauges
EwykImpl::gauges(void) const
{
	struct ewyk_purgatory_stats s;
	Gauges g;

	ewyk_purgatory_stats_get(p_, &s);
	g.outstanding = s.ops_in_use;
	g.timer_entries = ewyk_twheel_count(w_);
	g.stale_watchers = s.watches_in_use - kNkeys * s.ops_in_use;
	g.purge_scans = s.purges;
	g.completed = s.completed;
	g.expired = s.expired;
	g.refused = s.full;
	return g;
}

/* ------------------------------------------------------------------ */
/* The old design: binary heap without removal, threshold-purged lists. */

class HeapImpl
{
      public:
	HeapImpl(double rate, unsigned int)
	{
		uint32_t cap = static_cast<uint32_t>(rate * 0.3) + 4096;

		ops_.resize(cap);
		for (uint32_t i = 0; i < cap; i++)
			free_.push_back(cap - 1 - i);
		heap_.reserve(cap);
		lists_.resize(kOwnKeys + kSharedKeys);
		in_active_.assign(kOwnKeys + kSharedKeys, 0);
	}

	bool add(uint64_t now, const uint64_t *keys, Rec *r)
	{
		if (free_.empty()) {
			g_.refused++;
			return false;
		}
		uint32_t idx = free_.back();
		Op &op = ops_[idx];

		free_.pop_back();
		op.gen++;
		op.pending = 1;
		op.rec = r;
		heap_.push_back(HEnt{ now + kTimeout, idx, op.gen });
		std::push_heap(heap_.begin(), heap_.end(), later);
		for (uint32_t i = 0; i < kNkeys; i++) {
			std::vector<Watch> &l = lists_[keys[i]];

			if (!in_active_[keys[i]]) {
				in_active_[keys[i]] = 1;
				active_.push_back(
					static_cast<uint32_t>(keys[i]));
			}
			l.push_back(Watch{ idx, op.gen });
		}
		watches_ += kNkeys;
		g_.outstanding++;
		return true;
	}

	/* A completion event: walk the key's list, completing completable
	 * requests and dropping finished ones.
	 */
	void event(uint64_t key)
	{
		std::vector<Watch> &l = lists_[key];
		size_t j = 0;

		for (size_t i = 0; i < l.size(); i++) {
			Op &op = ops_[l[i].idx];

			if (op.gen != l[i].gen || !op.pending)
				continue; /* stale: drop */
			if (op.rec->completable) {
				finish(l[i].idx);
				g_.completed++;
				continue;
			}
			l[j++] = l[i];
		}
		watches_ -= l.size() - j;
		l.resize(j);
	}

	/* The expiry reaper: pop every deadline due by now. */
	void advance(uint64_t now)
	{
		while (!heap_.empty() && heap_.front().deadline <= now) {
			HEnt e = heap_.front();

			std::pop_heap(heap_.begin(), heap_.end(), later);
			heap_.pop_back();
			Op &op = ops_[e.idx];

			if (op.gen != e.gen || !op.pending)
				continue; /* completed long ago: a stale pop */
			finish(e.idx);
			g_.expired++;
			if (purging_ && watches_ >= kPurgeInterval)
				purge_all();
		}
	}

	/* Warm-up ran without purge scans (they would dominate its time);
	 * start the measured part just after one.
	 */
	void end_warmup(void)
	{
		purge_all();
		g_.purge_scans = 0;
		purging_ = true;
	}

	Gauges gauges(void) const
	{
		Gauges g = g_;

		g.timer_entries = heap_.size();
		g.stale_watchers = watches_ - kNkeys * g_.outstanding;
		return g;
	}

      private:
	struct Op {
		uint32_t gen;
		uint32_t pending;
		Rec *rec;
	};
	struct HEnt {
		uint64_t deadline;
		uint32_t idx;
		uint32_t gen;
	};
	struct Watch {
		uint32_t idx;
		uint32_t gen;
	};

	static bool later(const HEnt &a, const HEnt &b)
	{
		return a.deadline > b.deadline;
	}

	void finish(uint32_t idx)
	{
		ops_[idx].pending = 0;
		free_.push_back(idx);
		g_.outstanding--;
	}

	/* Full scan of every non-empty list. */
	void purge_all(void)
	{
		size_t a = 0;

		for (size_t k = 0; k < active_.size(); k++) {
			uint32_t key = active_[k];
			std::vector<Watch> &l = lists_[key];
			size_t j = 0;

			for (size_t i = 0; i < l.size(); i++) {
				const Op &op = ops_[l[i].idx];

				if (op.gen == l[i].gen && op.pending)
					l[j++] = l[i];
			}
			watches_ -= l.size() - j;
			l.resize(j);
			if (j == 0)
				in_active_[key] = 0;
			else
				active_[a++] = key;
		}
		active_.resize(a);
		g_.purge_scans++;
	}

	std::vector<Op> ops_;
	std::vector<uint32_t> free_;
	std::vector<HEnt> heap_;
	std::vector<std::vector<Watch>> lists_;
	std::vector<uint8_t> in_active_;
	std::vector<uint32_t> active_;
	uint64_t watches_ = 0;
	bool purging_ = false;
	Gauges g_ = {};
};

/* ------------------------------------------------------------------ */
/* The driver: request stream, windows, replay. */

template <typename Impl> class Sim
{
      public:
	Sim(const Scenario &sc, double rate, unsigned int id)
	    : impl_(rate, id),
	      rng_(0x5eed ^ static_cast<uint64_t>(rate) ^
		      (static_cast<uint64_t>(sc.median_ms) << 40)),
	      gap_(rate / 1e9),
	      lat_(std::log(sc.median_ms * kMs),
		      std::log(sc.p75_ms / sc.median_ms) / 0.6744897501960817),
	      own_(0, kOwnKeys - 1), shared_(0, kSharedKeys - 1)
	{
		uint32_t n = 1;

		while (n < rate * 0.5 + 65536)
			n <<= 1;
		ring_.resize(n);
		mask_ = n - 1;
		t_ = kT0;
		next_arrival_ = kT0 + static_cast<uint64_t>(gap_(rng_));
		generate(kWarmup);
		replay();
		impl_.end_warmup();
	}

	/* Arrivals and events of the next window (untimed). */
	void generate(uint64_t span)
	{
		uint64_t end = t_ + span;

		arr_.clear();
		ev_.clear();
		while (next_arrival_ <= end) {
			Arrival a;
			double lat = lat_(rng_);

			a.t = next_arrival_;
			a.keys[0] = own_(rng_);
			a.keys[1] = kOwnKeys + shared_(rng_);
			a.seq = seq_++;
			arr_.push_back(a);
			if (lat < static_cast<double>(kTimeout))
				pending_.push(
					Event{ a.t + static_cast<uint64_t>(lat),
						a.keys[0], a.seq });
			next_arrival_ += 1 + static_cast<uint64_t>(gap_(rng_));
		}
		while (!pending_.empty() && pending_.top().t <= end) {
			ev_.push_back(pending_.top());
			pending_.pop();
		}
		t_ = end;
	}

	/* Replay the window in time order (timed by the caller). */
	void replay(void)
	{
		size_t i = 0, j = 0;

		while (i < arr_.size() || j < ev_.size()) {
			if (j == ev_.size() ||
				(i < arr_.size() && arr_[i].t < ev_[j].t)) {
				const Arrival &a = arr_[i++];
				Rec *r = &ring_[a.seq & mask_];

				impl_.advance(a.t);
				r->seq = a.seq;
				r->completable = 0;
				impl_.add(a.t, a.keys, r);
			} else {
				const Event &e = ev_[j++];
				Rec *r = &ring_[e.seq & mask_];

				impl_.advance(e.t);
				r->completable = 1;
				impl_.event(e.key);
			}
		}
		impl_.advance(t_);
	}

	size_t requests(void) const
	{
		return arr_.size();
	}
	Gauges gauges(void) const
	{
		return impl_.gauges();
	}

      private:
	Impl impl_;
	std::mt19937_64 rng_;
	std::exponential_distribution<double> gap_;
	std::lognormal_distribution<double> lat_;
	std::uniform_int_distribution<uint32_t> own_;
	std::uniform_int_distribution<uint32_t> shared_;
	std::priority_queue<Event, std::vector<Event>, std::greater<Event>>
		pending_;
	std::vector<Arrival> arr_;
	std::vector<Event> ev_;
	std::vector<Rec> ring_;
	uint32_t mask_;
	uint32_t seq_ = 0;
	uint64_t t_;
	uint64_t next_arrival_;
};

unsigned int g_instance; /* unique wheel / purgatory names */

template <typename Impl>
void
run(benchmark::State &state, const Scenario *sc, double rate)
{
	Sim<Impl> sim(*sc, rate, g_instance++);
	double cpu = 0;
	uint64_t reqs = 0;
	uint64_t sim_ns = 0;
	Gauges g0 = sim.gauges(); /* after the warm-up */

	for (auto _ : state) {
		sim.generate(kWindow);
		double c0 = thread_cpu();

		sim.replay();
		double c = thread_cpu() - c0;

		state.SetIterationTime(c);
		cpu += c;
		reqs += sim.requests();
		sim_ns += kWindow;
	}
	Gauges g = sim.gauges();
	double sim_s = sim_ns * 1e-9;

	if (g.refused != 0)
		state.SkipWithError("the purgatory refused requests (full)");
	state.counters["target_rate"] = rate;
	state.counters["requests_per_cpu_second"] = cpu > 0 ? reqs / cpu : 0;
	state.counters["sustained_rate"] = cpu > 0 ?
		std::min(rate, rate * sim_s / cpu) :
		0;
	state.counters["cpu_ns_per_request"] = reqs ? cpu * 1e9 / reqs : 0;
	state.counters["cpu_per_sim_second"] = sim_s > 0 ? cpu / sim_s : 0;
	state.counters["outstanding_at_end"] = g.outstanding;
	state.counters["timer_entries_at_end"] = g.timer_entries;
	state.counters["stale_watchers_at_end"] = g.stale_watchers;
	state.counters["purge_scans"] = g.purge_scans - g0.purge_scans;
	state.counters["completed"] = g.completed - g0.completed;
	state.counters["expired"] = g.expired - g0.expired;
	state.SetItemsProcessed(reqs);
}

template <typename Impl>
void
reg(const std::string &name, const Scenario *sc, double rate)
{
	benchmark::RegisterBenchmark(name.c_str(),
		[sc, rate](benchmark::State &st) { run<Impl>(st, sc, rate); })
		->UseManualTime()
		->Unit(benchmark::kMillisecond);
}

void
register_all(bool sweep)
{
	for (const Scenario *sc : { &kLow, &kHigh }) {
		reg<EwykImpl>(std::string("BM_purgatory_ewyk/") + sc->name, sc,
			named_rate(*sc));
		reg<HeapImpl>(std::string("BM_purgatory_heap/") + sc->name, sc,
			named_rate(*sc));
	}
	if (!sweep)
		return;
	/* Rates in k requests/s; the baseline stops well past its
	 * saturation (its cost per simulated second grows as rate^2: at 4x
	 * the rate, a window takes 16x the CPU).
	 */
	static const unsigned int rates[] = { 10, 20, 40, 60, 80, 120, 160, 240,
		320, 480, 640, 960, 1280, 1920 };
	for (const Scenario *sc : { &kLow, &kHigh }) {
		unsigned int heap_max = sc == &kLow ? 640 : 160;

		for (unsigned int r : rates) {
			std::string tail = std::string("/") + sc->name + "/" +
				std::to_string(r * 1000);

			reg<EwykImpl>("BM_purgatory_sweep/ewyk" + tail, sc,
				r * 1000.0);
			if (r <= heap_max)
				reg<HeapImpl>("BM_purgatory_sweep/heap" + tail,
					sc, r * 1000.0);
		}
	}
}

} /* namespace */

int
main(int argc, char **argv)
{
	std::vector<char *> args;
	bool sweep = false;

	/* --sweep is ours: take it out before Google Benchmark sees argv. */
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--sweep") == 0)
			sweep = true;
		else
			args.push_back(argv[i]);
	}
	args.push_back(nullptr);
	if (ewyk_bench::eal_init(argv[0], "purgatory", { "-l", "0" }, 1024) < 0)
		return 1;
	register_all(sweep);
	return ewyk_bench::run(static_cast<int>(args.size()) - 1, args.data());
}
