/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ewyk timer wheel vs DPDK rte_timer, same binary, same run.
 *
 *   BM_twheel_<op>/<N>, BM_rte_timer_<op>/<N>
 *     op: arm, rearm, cancel, expire; N: timers pending (1000, 1e5, 1e6)
 *     one benchmark iteration = one operation on one timer
 *   BM_twheel_poll_empty, BM_rte_timer_manage_empty
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
 * may exist at a time; all its delays are offset by 1 h so that nothing
 * comes due unless a benchmark makes it - the skiplist's costs depend on
 * the order of expiries, not their magnitude).
 *
 * arm / cancel: between batches all N timers are pending. A batch picks B
 * distinct random pending timers (untimed, Fisher-Yates); for cancel the
 * timed part cancels them, for arm they are cancelled untimed and the timed
 * part arms them again; the population is then restored untimed. B is 1024
 * (N / 4 for N = 1000), so PauseTiming()/ResumeTiming() cost is spread over
 * B operations; the "cycles" counter is the TSC measured around the timed
 * parts only (wall clock: it includes preemption on a busy machine).
 * rearm: each iteration moves a random pending timer to now + its class's
 * delay (TCP re-arms RTO on each ACK; the 40 ms and 60 s classes always
 * move later, the RTO class sometimes earlier). The wheel is given the TSC
 * read once per 64 operations (a poll loop reads it once per iteration);
 * rte_timer_reset() reads it itself. No expiry processing runs during
 * arm / rearm / cancel, for either structure.
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
 * poll_empty: twheel's advance() is given the loop's TSC (the caller reads
 *   it once per loop); rte_timer_manage() reads the TSC itself, which is
 *   part of its cost.
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

namespace {

uint64_t g_hz;
uint64_t g_d40, g_d200, g_d3s, g_d60, g_hour;
constexpr uint32_t kRtoTable = 4096;
std::vector<uint64_t> g_rto; /* random RTO delays, 200 ms - 3 s */

struct Rng {
	uint64_t s;
	explicit Rng(uint64_t seed) : s(seed | 1) {}
	uint64_t
	next()
	{
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		return s;
	}
};

inline uint64_t
tcp_delay(uint32_t idx, uint32_t k)
{
	switch (idx % 3) {
	case 0:
		return g_d40;
	case 1:
		return g_rto[k & (kRtoTable - 1)];
	default:
		return g_d60;
	}
}

/* Random index stream into [0, n): 2^20 entries (2^16 for small n). */
std::vector<uint32_t>
index_stream(uint32_t n, uint64_t seed)
{
	size_t len = n >= 100000 ? (1u << 20) : (1u << 16);
	std::vector<uint32_t> v(len);
	Rng r(seed);

	for (auto &x : v)
		x = r.next() % n;
	return v;
}

uint32_t
batch_of(uint32_t n)
{
	return n >= 4096 ? 1024 : n / 4;
}

/*
 * Timer nodes of both structures: 2 MB aligned and backed by transparent
 * huge pages where the kernel allows it, as DPDK (hugepage) memory would
 * be in production; the same for both, so TLB misses do not decide.
 */
template <typename T>
T *
alloc_nodes(size_t n)
{
	const size_t huge = 2u << 20;
	size_t len = (n * sizeof(T) + huge - 1) / huge * huge;
	void *p = aligned_alloc(huge, len);

	if (p == nullptr) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	madvise(p, len, MADV_HUGEPAGE);
	memset(p, 0, len);
	return static_cast<T *>(p);
}

/* Evict an object from the caches. */
inline void
flush_lines(const void *p, size_t len)
{
#if defined(RTE_ARCH_X86)
	const char *c = static_cast<const char *>(p);
	const char *end = c + len;

	for (c = (const char *)((uintptr_t)c & ~(uintptr_t)63); c < end;
			c += 64)
		__builtin_ia32_clflush(c);
#else
	(void)p;
	(void)len;
#endif
}

/* Move b distinct random entries of slots[0..n) to slots[n-b..n). */
void
pick_batch(std::vector<uint32_t> &slots, uint32_t n, uint32_t b, Rng &r)
{
	for (uint32_t k = 0; k < b; k++) {
		uint32_t j = r.next() % (n - k);

		std::swap(slots[j], slots[n - 1 - k]);
	}
}

/* ------------------------------------------------------------------ */
/* ewyk twheel */

void
tw_cb_nop(struct ewyk_twheel *, struct ewyk_twheel_timer *, void *)
{
}

struct TwPop {
	struct ewyk_twheel *w = nullptr;
	struct ewyk_twheel_timer *t = nullptr;
	uint32_t n = 0;
	std::vector<uint32_t> slots;
	std::vector<uint32_t> rnd;
	std::vector<uint32_t> fired; /* expire: indices fired this batch */
	uint64_t now = 0;            /* expire: synthetic clock */
	uint32_t k = 0;
	Rng rng{1};
};

void
tw_cb_expire(struct ewyk_twheel *, struct ewyk_twheel_timer *t, void *arg)
{
	auto *p = static_cast<TwPop *>(arg);

	p->fired.push_back(static_cast<uint32_t>(t - p->t));
}

void
tw_pop_free(TwPop *p)
{
	ewyk_twheel_free(p->w);
	free(p->t);
	delete p;
}

/* Expire: run until b callbacks ran, jumping the clock to the next work. */
uint64_t
tw_fire(TwPop *p, uint32_t b)
{
	uint32_t ran = 0;
	uint64_t calls = 0;

	p->fired.clear();
	while (ran < b) {
		uint64_t nx = ewyk_twheel_next_expiry(p->w);

		if (nx == UINT64_MAX)
			break; /* fewer than b pending: cannot happen */
		if (nx > p->now)
			p->now = nx;
		ran += ewyk_twheel_advance(p->w, p->now, b - ran);
		calls++;
	}
	return calls;
}

/* Re-arm the fired timers; evict them, as if armed long ago (untimed). */
void
tw_refill(TwPop *p)
{
	for (uint32_t x : p->fired)
		ewyk_twheel_rearm(p->w, &p->t[x], p->now + tcp_delay(x, p->k++));
	for (uint32_t x : p->fired)
		flush_lines(&p->t[x], sizeof(p->t[0]));
}

/*
 * One population per kind ("ops": arm, rearm, cancel; "expire"), rebuilt
 * when N changes so that memory stays bounded.
 */
TwPop *
tw_pop(const char *kind, uint32_t n)
{
	static TwPop *cur_ops, *cur_exp;
	bool expire = strcmp(kind, "expire") == 0;
	TwPop **cur = expire ? &cur_exp : &cur_ops;

	if (*cur != nullptr && (*cur)->n == n)
		return *cur;
	if (*cur != nullptr) {
		tw_pop_free(*cur);
		*cur = nullptr;
	}

	TwPop *p = new TwPop();
	struct ewyk_twheel_params prm = {};
	char name[EWYK_TWHEEL_NAMESIZE];

	snprintf(name, sizeof(name), "b%s%u", kind, n);
	prm.name = name;
	prm.socket_id = SOCKET_ID_ANY;
	prm.tick_shift = 0; /* default: ~1-2 us */
	prm.start_tsc = rte_rdtsc();
	p->w = ewyk_twheel_create(&prm);
	if (p->w == nullptr) {
		fprintf(stderr, "ewyk_twheel_create: %s\n",
			rte_strerror(rte_errno));
		exit(1);
	}
	p->n = n;
	p->t = alloc_nodes<struct ewyk_twheel_timer>(n);
	p->slots.resize(n);
	p->rnd = index_stream(n, 0x1234 + n);
	p->rng = Rng(0x9876 + n);
	p->now = prm.start_tsc;
	p->fired.reserve(1024);
	for (uint32_t i = 0; i < n; i++) {
		ewyk_twheel_timer_init(&p->t[i]);
		p->slots[i] = i;
	}
	/* arm in random order */
	for (uint32_t i = n; i > 1; i--)
		std::swap(p->slots[i - 1], p->slots[p->rng.next() % i]);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t x = p->slots[i];
		uint64_t d = tcp_delay(x, i);

		if (expire) {
			/* steady state: uniform time left, not one burst */
			ewyk_twheel_arm(p->w, &p->t[x],
				p->now + 1 + p->rng.next() % d, tw_cb_expire, p);
		} else {
			ewyk_twheel_arm(p->w, &p->t[x], p->now + d, tw_cb_nop,
				p);
		}
	}
	if (expire) {
		/* warm up: several 40 ms periods, at most 4M callbacks */
		uint64_t until = p->now + 8 * g_d40;
		uint64_t fired = 0;

		while (p->now < until && fired < 4000000) {
			tw_fire(p, batch_of(n));
			tw_refill(p);
			fired += batch_of(n);
		}
		for (uint32_t i = 0; i < n; i++)
			flush_lines(&p->t[i], sizeof(p->t[0]));
	}
	*cur = p;
	return p;
}

void
BM_twheel_arm(benchmark::State &state)
{
	uint32_t n = state.range(0);
	TwPop *p = tw_pop("ops", n);
	uint32_t b = batch_of(n);
	uint64_t cyc = 0;

	while (state.KeepRunningBatch(b)) {
		state.PauseTiming();
		pick_batch(p->slots, n, b, p->rng);
		for (uint32_t i = n - b; i < n; i++)
			ewyk_twheel_cancel(p->w, &p->t[p->slots[i]]);
		uint64_t now = rte_rdtsc();
		uint32_t k = p->k;
		state.ResumeTiming();

		uint64_t t0 = rte_rdtsc();
		for (uint32_t i = n - b; i < n; i++) {
			uint32_t x = p->slots[i];

			ewyk_twheel_arm(p->w, &p->t[x], now + tcp_delay(x, k++),
				tw_cb_nop, p);
		}
		cyc += rte_rdtsc() - t0;
		p->k = k;
	}
	state.counters["cycles"] = benchmark::Counter(cyc,
		benchmark::Counter::kAvgIterations);
	state.counters["pending"] = ewyk_twheel_count(p->w);
	state.SetItemsProcessed(state.iterations());
}

void
BM_twheel_cancel(benchmark::State &state)
{
	uint32_t n = state.range(0);
	TwPop *p = tw_pop("ops", n);
	uint32_t b = batch_of(n);
	uint64_t cyc = 0;

	while (state.KeepRunningBatch(b)) {
		state.PauseTiming();
		pick_batch(p->slots, n, b, p->rng);
		state.ResumeTiming();

		uint64_t t0 = rte_rdtsc();
		for (uint32_t i = n - b; i < n; i++)
			ewyk_twheel_cancel(p->w, &p->t[p->slots[i]]);
		cyc += rte_rdtsc() - t0;

		state.PauseTiming();
		uint64_t now = rte_rdtsc();
		for (uint32_t i = n - b; i < n; i++) {
			uint32_t x = p->slots[i];

			ewyk_twheel_arm(p->w, &p->t[x],
				now + tcp_delay(x, p->k++), tw_cb_nop, p);
		}
		state.ResumeTiming();
	}
	state.counters["cycles"] = benchmark::Counter(cyc,
		benchmark::Counter::kAvgIterations);
	state.counters["pending"] = ewyk_twheel_count(p->w);
	state.SetItemsProcessed(state.iterations());
}

void
BM_twheel_rearm(benchmark::State &state)
{
	uint32_t n = state.range(0);
	TwPop *p = tw_pop("ops", n);
	const uint32_t *rnd = p->rnd.data();
	uint32_t mask = p->rnd.size() - 1;
	uint32_t k = p->k;
	uint64_t now = rte_rdtsc();
	uint64_t t0 = rte_rdtsc();

	for (auto _ : state) {
		uint32_t x = rnd[k & mask];

		/* the loop reads the TSC once per 64 operations */
		if ((k & 63) == 0)
			now = rte_rdtsc();
		ewyk_twheel_rearm(p->w, &p->t[x], now + tcp_delay(x, k));
		k++;
	}
	uint64_t cyc = rte_rdtsc() - t0;
	p->k = k;
	state.counters["cycles"] = benchmark::Counter(cyc,
		benchmark::Counter::kAvgIterations);
	state.counters["pending"] = ewyk_twheel_count(p->w);
	state.SetItemsProcessed(state.iterations());
}

void
BM_twheel_expire(benchmark::State &state)
{
	uint32_t n = state.range(0);
	TwPop *p = tw_pop("expire", n);
	uint32_t b = batch_of(n);
	uint64_t cyc = 0;
	uint64_t advances = 0;

	while (state.KeepRunningBatch(b)) {
		uint64_t t0 = rte_rdtsc();

		advances += tw_fire(p, b);
		cyc += rte_rdtsc() - t0;

		state.PauseTiming();
		tw_refill(p);
		state.ResumeTiming();
	}
	struct ewyk_twheel_stats st;

	ewyk_twheel_stats_get(p->w, &st); /* since the population was built */
	state.counters["cycles"] = benchmark::Counter(cyc,
		benchmark::Counter::kAvgIterations);
	state.counters["pending"] = ewyk_twheel_count(p->w);
	state.counters["cascades_per_fire"] = st.fired ?
		(double)st.cascaded / st.fired : 0;
	state.counters["advance_calls"] = benchmark::Counter(advances,
		benchmark::Counter::kAvgIterations);
	state.SetItemsProcessed(state.iterations());
}

void
BM_twheel_poll_empty(benchmark::State &state)
{
	static struct ewyk_twheel_timer t[1000];
	struct ewyk_twheel_params prm = {};
	struct ewyk_twheel *w;
	uint64_t now = rte_rdtsc();
	uint64_t polls = 0;

	prm.name = "bpoll";
	prm.socket_id = SOCKET_ID_ANY;
	prm.start_tsc = now;
	w = ewyk_twheel_create(&prm);
	if (w == nullptr) {
		state.SkipWithError("ewyk_twheel_create failed");
		return;
	}
	for (uint32_t i = 0; i < 1000; i++) {
		ewyk_twheel_timer_init(&t[i]);
		ewyk_twheel_arm(w, &t[i], now + g_d60 + i, tw_cb_nop, nullptr);
	}
	ewyk_twheel_advance(w, now, 0);
	uint64_t t0 = rte_rdtsc();
	for (auto _ : state) {
		/* the loop's TSC, advancing; nothing is due for 60 s */
		now += 16;
		benchmark::DoNotOptimize(now);
		unsigned int ran = ewyk_twheel_advance(w, now, 64);
		benchmark::DoNotOptimize(ran);
		/* a real loop calls opaque code around it: reload state */
		benchmark::ClobberMemory();
		polls++;
	}
	uint64_t cyc = rte_rdtsc() - t0;
	state.counters["cycles"] = benchmark::Counter(cyc,
		benchmark::Counter::kAvgIterations);
	state.SetItemsProcessed(state.iterations());
	if (ewyk_twheel_count(w) != 1000)
		state.SkipWithError("a timer fired during the empty poll");
	ewyk_twheel_free(w);
}

/* ------------------------------------------------------------------ */
/* DPDK rte_timer */

struct RtPop {
	struct rte_timer *t = nullptr;
	uint32_t n = 0;
	std::vector<uint32_t> slots;
	std::vector<uint32_t> rnd;
	uint32_t fired = 0;
	uint64_t offset = 0;
	uint32_t k = 0;
	Rng rng{1};
};

void
rt_cb_empty(struct rte_timer *, void *)
{
}

void
rt_cb_count(struct rte_timer *, void *arg)
{
	static_cast<RtPop *>(arg)->fired++;
}

inline void
rt_arm(RtPop *p, uint32_t x, uint64_t delay, rte_timer_cb_t cb)
{
	rte_timer_reset(&p->t[x], delay + p->offset, SINGLE, rte_lcore_id(),
		cb, p);
}

RtPop *g_rt; /* the population: rte_timer lists are per lcore, shared */

void
rt_teardown(void)
{
	if (g_rt == nullptr)
		return;
	for (uint32_t i = 0; i < g_rt->n; i++)
		rte_timer_stop(&g_rt->t[i]);
	free(g_rt->t);
	delete g_rt;
	g_rt = nullptr;
}

/*
 * The timers of one lcore share one skiplist, so only one population
 * exists at a time (all ops of one N share it). Every delay is offset by
 * 1 h so that no timer comes due during a run unless a benchmark makes it.
 */
RtPop *
rt_pop(uint32_t n)
{
	if (g_rt != nullptr && g_rt->n == n)
		return g_rt;
	rt_teardown();

	RtPop *p = new RtPop();

	p->n = n;
	p->t = alloc_nodes<struct rte_timer>(n);
	p->slots.resize(n);
	p->rnd = index_stream(n, 0x1234 + n);
	p->rng = Rng(0x9876 + n);
	p->offset = g_hour;
	for (uint32_t i = 0; i < n; i++) {
		rte_timer_init(&p->t[i]);
		p->slots[i] = i;
	}
	for (uint32_t i = n; i > 1; i--)
		std::swap(p->slots[i - 1], p->slots[p->rng.next() % i]);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t x = p->slots[i];

		rt_arm(p, x, tcp_delay(x, i), rt_cb_count);
	}
	g_rt = p;
	return p;
}

void
BM_rte_timer_arm(benchmark::State &state)
{
	uint32_t n = state.range(0);
	RtPop *p = rt_pop(n);
	uint32_t b = batch_of(n);
	uint64_t cyc = 0;

	while (state.KeepRunningBatch(b)) {
		state.PauseTiming();
		pick_batch(p->slots, n, b, p->rng);
		for (uint32_t i = n - b; i < n; i++)
			rte_timer_stop(&p->t[p->slots[i]]);
		uint32_t k = p->k;
		state.ResumeTiming();

		uint64_t t0 = rte_rdtsc();
		for (uint32_t i = n - b; i < n; i++) {
			uint32_t x = p->slots[i];

			rt_arm(p, x, tcp_delay(x, k++), rt_cb_count);
		}
		cyc += rte_rdtsc() - t0;
		p->k = k;
	}
	state.counters["cycles"] = benchmark::Counter(cyc,
		benchmark::Counter::kAvgIterations);
	state.SetItemsProcessed(state.iterations());
}

void
BM_rte_timer_cancel(benchmark::State &state)
{
	uint32_t n = state.range(0);
	RtPop *p = rt_pop(n);
	uint32_t b = batch_of(n);
	uint64_t cyc = 0;

	while (state.KeepRunningBatch(b)) {
		state.PauseTiming();
		pick_batch(p->slots, n, b, p->rng);
		state.ResumeTiming();

		uint64_t t0 = rte_rdtsc();
		for (uint32_t i = n - b; i < n; i++)
			rte_timer_stop(&p->t[p->slots[i]]);
		cyc += rte_rdtsc() - t0;

		state.PauseTiming();
		for (uint32_t i = n - b; i < n; i++) {
			uint32_t x = p->slots[i];

			rt_arm(p, x, tcp_delay(x, p->k++), rt_cb_count);
		}
		state.ResumeTiming();
	}
	state.counters["cycles"] = benchmark::Counter(cyc,
		benchmark::Counter::kAvgIterations);
	state.SetItemsProcessed(state.iterations());
}

void
BM_rte_timer_rearm(benchmark::State &state)
{
	uint32_t n = state.range(0);
	RtPop *p = rt_pop(n);
	const uint32_t *rnd = p->rnd.data();
	uint32_t mask = p->rnd.size() - 1;
	uint32_t k = p->k;
	uint64_t t0 = rte_rdtsc();

	for (auto _ : state) {
		uint32_t x = rnd[k & mask];

		/* rte_timer_reset computes now + delay itself */
		rt_arm(p, x, tcp_delay(x, k), rt_cb_count);
		k++;
	}
	uint64_t cyc = rte_rdtsc() - t0;
	p->k = k;
	state.counters["cycles"] = benchmark::Counter(cyc,
		benchmark::Counter::kAvgIterations);
	state.SetItemsProcessed(state.iterations());
}

void
BM_rte_timer_expire(benchmark::State &state)
{
	uint32_t n = state.range(0);
	RtPop *p = rt_pop(n);
	uint32_t b = batch_of(n);
	uint64_t cyc = 0;

	while (state.KeepRunningBatch(b)) {
		state.PauseTiming();
		pick_batch(p->slots, n, b, p->rng);
		for (uint32_t i = n - b; i < n; i++)
			rte_timer_reset(&p->t[p->slots[i]], 0, SINGLE,
				rte_lcore_id(), rt_cb_count, p);
		p->fired = 0;
		/* as in real life (and as twheel's here), expiring timers are
		 * cold: they were armed long ago
		 */
		for (uint32_t i = n - b; i < n; i++)
			flush_lines(&p->t[p->slots[i]], sizeof(p->t[0]));
		/* let the TSC move past their expiry */
		uint64_t due = rte_get_timer_cycles() + 1;
		while (rte_get_timer_cycles() <= due)
			;
		state.ResumeTiming();

		uint64_t t0 = rte_rdtsc();
		while (p->fired < b)
			rte_timer_manage();
		cyc += rte_rdtsc() - t0;

		state.PauseTiming();
		if (p->fired != b) {
			state.SkipWithError("unexpected expiries");
			break;
		}
		for (uint32_t i = n - b; i < n; i++) {
			uint32_t x = p->slots[i];

			rt_arm(p, x, tcp_delay(x, p->k++), rt_cb_count);
		}
		state.ResumeTiming();
	}
	state.counters["cycles"] = benchmark::Counter(cyc,
		benchmark::Counter::kAvgIterations);
	state.SetItemsProcessed(state.iterations());
}

void
BM_rte_timer_manage_empty(benchmark::State &state)
{
	static struct rte_timer t[1000];
	uint64_t cyc;

	rt_teardown(); /* only these 1000 on this lcore */
	for (uint32_t i = 0; i < 1000; i++) {
		rte_timer_init(&t[i]);
		rte_timer_reset(&t[i], g_d60 + i, SINGLE, rte_lcore_id(),
			rt_cb_empty, nullptr);
	}
	uint64_t t0 = rte_rdtsc();
	for (auto _ : state) {
		int ret = rte_timer_manage();
		benchmark::DoNotOptimize(ret);
		benchmark::ClobberMemory();
	}
	cyc = rte_rdtsc() - t0;
	state.counters["cycles"] = benchmark::Counter(cyc,
		benchmark::Counter::kAvgIterations);
	state.SetItemsProcessed(state.iterations());
	for (uint32_t i = 0; i < 1000; i++)
		rte_timer_stop(&t[i]);
}

} /* namespace */

/*
 * Per N, every op of both structures, so that each population is built
 * once per N (rte_timer's 1e6 set-up is slow) and only one exists at a
 * time in rte_timer's per-lcore list.
 */
#define BOTH(n) \
	BENCHMARK(BM_twheel_arm)->Arg(n); \
	BENCHMARK(BM_rte_timer_arm)->Arg(n); \
	BENCHMARK(BM_twheel_rearm)->Arg(n); \
	BENCHMARK(BM_rte_timer_rearm)->Arg(n); \
	BENCHMARK(BM_twheel_cancel)->Arg(n); \
	BENCHMARK(BM_rte_timer_cancel)->Arg(n); \
	BENCHMARK(BM_twheel_expire)->Arg(n); \
	BENCHMARK(BM_rte_timer_expire)->Arg(n)

BOTH(1000);
BOTH(100000);
BOTH(1000000);
BENCHMARK(BM_twheel_poll_empty);
BENCHMARK(BM_rte_timer_manage_empty);

int
main(int argc, char **argv)
{
	char prefix[64];
	char *eal[] = {
		argv[0], (char *)"-l", (char *)"0-1", (char *)"--no-huge",
		(char *)"-m", (char *)"256", (char *)"--no-pci",
		(char *)"--no-shconf", (char *)"--no-telemetry",
		(char *)"--log-level=lib.eal:error", prefix, nullptr,
	};

	snprintf(prefix, sizeof(prefix), "--file-prefix=bench-twheel-%d",
		(int)getpid());
	if (rte_eal_init(11, eal) < 0) {
		fprintf(stderr, "rte_eal_init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
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
	benchmark::Initialize(&argc, argv);
	if (benchmark::ReportUnrecognizedArguments(argc, argv))
		return 1;
	benchmark::RunSpecifiedBenchmarks();
	benchmark::Shutdown();
	rte_eal_cleanup();
	return 0;
}
