/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/pool beside its peers, same binary, same run:
 *
 *  BM_ewyk_pool/threads:{1,2}      ewyk_pool_get/put, cache 256
 *  BM_rte_mempool/threads:{1,2}    rte_mempool_get/put, cache 256, default
 *                                  (ring_mp_mc) ops
 *  BM_mutex_deque/threads:{1,2}    std::mutex + std::deque (LIFO)
 *  BM_spinlock_array/threads:{1,2} rte_spinlock + an array used as a stack
 *                                  (LIFO): what a DPDK user would write
 *  BM_ewyk_pool_nocache/threads:{1,2}  the shared CAS array alone
 *
 * One iteration: acquire one object, 16 rounds of work on it that the
 * compiler cannot fold (JMH's Blackhole.consumeCPU recurrence, seeded from
 * and written back to the object), release it.
 *
 *  BM_*_cross/threads:2            (ewyk_pool, rte_mempool, mutex_deque,
 *                                  spinlock_array) each thread acquires, works, and hands
 *                                  the object to the other thread, which
 *                                  releases it (a cross-lcore free)
 *  BM_ewyk_pool_held/<held>       a FIRST pool of 2^18 entries without a
 *                                  cache (lib/tcp's kind), <held> of them
 *                                  held throughout (as connections in
 *                                  TIME_WAIT hold theirs): one object from
 *                                  the shared array and back. The search
 *                                  starts at the pool's low-water mark, so
 *                                  the cost must not grow with <held>.
 *  BM_mempool_bulk32/<ops>/cache:<n>/threads:{1,2}
 *                                  rte_mempool_get_bulk + put_bulk of 32
 *                                  through the "ewyk" driver vs ring_mp_mc
 *
 * items_per_second is the aggregate throughput: each thread's iterations
 * (objects, for bulk32) divided by that thread's wall-clock time in the
 * timed loop, summed over threads. items_per_cpu_second divides by each
 * thread's CPU time instead (what the threads would do on idle CPUs). Benchmark threads other than the main
 * one register with EAL (rte_thread_register) so they have an lcore id and
 * a cache, and are pinned: thread i to CPU i % ncpu.
 */

#include <pthread.h>
#include <time.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_pause.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include <ewyk_pool.h>

#include "bench_common.h"

namespace
{

constexpr unsigned kWorkRounds = 16;
constexpr unsigned kObjSize = 64;
constexpr unsigned kCap = 8192;
constexpr unsigned kCache = 256;
constexpr unsigned kBulk = 32;
constexpr unsigned kCrossSpins = 4096;

struct ewyk_pool *g_ewyk;
struct ewyk_pool *g_ewyk_nocache;
struct ewyk_pool *g_ewyk_first;
constexpr unsigned kFirstCap = 1u << 18;
struct rte_mempool *g_mp;
std::mutex g_mtx;
std::deque<void *> g_dq;
void *g_dq_mem;
/* rte_spinlock + array (a LIFO stack of free objects) */
struct {
	rte_spinlock_t lock;
	unsigned int top;
	void *obj[kCap];
} g_sa;
void *g_sa_mem;
struct rte_ring *g_inbox[2];

/* JMH Blackhole.consumeCPU's recurrence on the object's first word. */
inline void
work(void *obj)
{
	uint64_t *w = static_cast<uint64_t *>(obj);
	uint64_t t = *w;

	for (uint64_t i = kWorkRounds; i > 0; i--)
		t += (t * 0x5DEECE66DULL + 0xBULL + i) & 0xFFFFFFFFFFFFULL;
	*w = t;
	benchmark::DoNotOptimize(t);
}

/* Per-thread EAL registration and pinning for the benchmark's threads. */
struct ThreadCtx {
	bool registered = false;

	explicit ThreadCtx(const benchmark::State &state)
	{
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		cpu_set_t set;

		if (rte_lcore_id() == LCORE_ID_ANY) {
			CPU_ZERO(&set);
			CPU_SET(state.thread_index() % (ncpu > 0 ? ncpu : 1),
				&set);
			pthread_setaffinity_np(pthread_self(), sizeof(set),
				&set);
			registered = rte_thread_register() == 0;
		}
	}
	~ThreadCtx()
	{
		if (registered)
			rte_thread_unregister();
	}
};

using Clock = std::chrono::steady_clock;

double
thread_cpu_seconds()
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

/* Start of the timed loop, per thread: wall clock and thread CPU time. */
struct T0 {
	Clock::time_point wall = Clock::now();
	double cpu = thread_cpu_seconds();
};

void
report(benchmark::State &state, const T0 &t0, double items)
{
	double s =
		std::chrono::duration<double>(Clock::now() - t0.wall).count();
	double c = thread_cpu_seconds() - t0.cpu;

	/* Both summed over threads. Wall clock: aggregate objects/s. */
	state.counters["items_per_second"] = benchmark::Counter(
		s > 0 ? items / s : 0);
	/*
	 * Thread CPU time: the same, had each thread had its CPU to itself
	 * (robust to a loaded machine; flatters a thread that sleeps on a
	 * contended mutex, since sleeping costs no CPU time).
	 */
	state.counters["items_per_cpu_second"] = benchmark::Counter(
		c > 0 ? items / c : 0);
}

void
run_ewyk(benchmark::State &state, struct ewyk_pool *pool)
{
	ThreadCtx ctx(state);

	if (rte_lcore_id() == LCORE_ID_ANY) {
		state.SkipWithError("no lcore id");
		return;
	}
	T0 t0;
	for (auto _ : state) {
		void *o = ewyk_pool_get(pool);

		if (o == nullptr) {
			state.SkipWithError("ewyk pool exhausted");
			break;
		}
		work(o);
		ewyk_pool_put(pool, o);
	}
	report(state, t0, static_cast<double>(state.iterations()));
}

void
BM_ewyk_pool(benchmark::State &state)
{
	run_ewyk(state, g_ewyk);
}

void
BM_ewyk_pool_nocache(benchmark::State &state)
{
	run_ewyk(state, g_ewyk_nocache);
}

void
BM_ewyk_pool_held(benchmark::State &state)
{
	std::vector<void *> held(static_cast<size_t>(state.range(0)));

	for (auto &o : held) {
		o = ewyk_pool_get(g_ewyk_first);
		if (o == nullptr) {
			state.SkipWithError("ewyk pool exhausted");
			return;
		}
	}
	run_ewyk(state, g_ewyk_first);
	for (void *o : held)
		ewyk_pool_put(g_ewyk_first, o);
}

void
BM_rte_mempool(benchmark::State &state)
{
	ThreadCtx ctx(state);

	if (rte_lcore_id() == LCORE_ID_ANY) {
		state.SkipWithError("no lcore id");
		return;
	}
	T0 t0;
	for (auto _ : state) {
		void *o;

		if (rte_mempool_get(g_mp, &o) != 0) {
			state.SkipWithError("rte_mempool exhausted");
			break;
		}
		work(o);
		rte_mempool_put(g_mp, o);
	}
	report(state, t0, static_cast<double>(state.iterations()));
}

void *
dq_get()
{
	std::lock_guard<std::mutex> g(g_mtx);
	void *o;

	if (g_dq.empty())
		return nullptr;
	o = g_dq.front();
	g_dq.pop_front();
	return o;
}

void
dq_put(void *o)
{
	std::lock_guard<std::mutex> g(g_mtx);

	g_dq.push_front(o);
}

void
BM_mutex_deque(benchmark::State &state)
{
	ThreadCtx ctx(state);

	T0 t0;
	for (auto _ : state) {
		void *o = dq_get();

		if (o == nullptr) {
			state.SkipWithError("deque exhausted");
			break;
		}
		work(o);
		dq_put(o);
	}
	report(state, t0, static_cast<double>(state.iterations()));
}

void *
sa_get()
{
	void *o = nullptr;

	rte_spinlock_lock(&g_sa.lock);
	if (g_sa.top > 0)
		o = g_sa.obj[--g_sa.top];
	rte_spinlock_unlock(&g_sa.lock);
	return o;
}

void
sa_put(void *o)
{
	rte_spinlock_lock(&g_sa.lock);
	g_sa.obj[g_sa.top++] = o;
	rte_spinlock_unlock(&g_sa.lock);
}

void
BM_spinlock_array(benchmark::State &state)
{
	ThreadCtx ctx(state);

	T0 t0;
	for (auto _ : state) {
		void *o = sa_get();

		if (o == nullptr) {
			state.SkipWithError("array exhausted");
			break;
		}
		work(o);
		sa_put(o);
	}
	report(state, t0, static_cast<double>(state.iterations()));
}

/* Reusable two-thread barrier (sense by generation). */
std::atomic<unsigned> g_bar_count{ 0 };
std::atomic<unsigned> g_bar_gen{ 0 };

void
barrier2()
{
	unsigned g = g_bar_gen.load(std::memory_order_acquire);

	if (g_bar_count.fetch_add(1, std::memory_order_acq_rel) == 1) {
		g_bar_count.store(0, std::memory_order_relaxed);
		g_bar_gen.fetch_add(1, std::memory_order_release);
	} else {
		while (g_bar_gen.load(std::memory_order_acquire) == g)
			sched_yield();
	}
}

/*
 * Cross-thread release: acquire, work, send to the peer's inbox; take one
 * object from the own inbox and release it. When the peer's inbox is full,
 * the thread releases what it was sent while it waits for room; if the
 * peer does not make room within kCrossSpins (it was descheduled, or has
 * finished its iterations), the object is released locally and counted in
 * "local_frees" (the share of frees that were not cross-thread).
 */
template <typename Get, typename Put>
void
run_cross(benchmark::State &state, Get get, Put put)
{
	ThreadCtx ctx(state);
	unsigned me = static_cast<unsigned>(state.thread_index()) & 1;
	struct rte_ring *in = g_inbox[me], *out = g_inbox[1 - me];
	unsigned spins;
	double local = 0;
	void *o, *x;

	if (rte_lcore_id() == LCORE_ID_ANY) {
		state.SkipWithError("no lcore id");
		return;
	}
	T0 t0;
	for (auto _ : state) {
		o = get();
		if (o == nullptr) {
			state.SkipWithError("exhausted");
			break;
		}
		work(o);
		for (spins = 0; rte_ring_sp_enqueue(out, o) != 0; spins++) {
			if (rte_ring_sc_dequeue(in, &x) == 0) {
				put(x);
			} else if (spins > kCrossSpins) {
				/* Peer descheduled or done: free here. */
				put(o);
				local++;
				break;
			} else {
				rte_pause();
			}
		}
		if (rte_ring_sc_dequeue(in, &x) == 0)
			put(x);
	}
	report(state, t0, static_cast<double>(state.iterations()));
	state.counters["local_frees"] = local;
	/* Both loops done: nothing more is sent; empty the inbox. */
	barrier2();
	while (rte_ring_sc_dequeue(in, &x) == 0)
		put(x);
	barrier2();
}

void
BM_ewyk_pool_cross(benchmark::State &state)
{
	run_cross(
		state, [] { return ewyk_pool_get(g_ewyk); },
		[](void *o) { ewyk_pool_put(g_ewyk, o); });
}

void
BM_rte_mempool_cross(benchmark::State &state)
{
	run_cross(
		state,
		[]() -> void * {
			void *o;
			return rte_mempool_get(g_mp, &o) == 0 ? o : nullptr;
		},
		[](void *o) { rte_mempool_put(g_mp, o); });
}

void
BM_mutex_deque_cross(benchmark::State &state)
{
	run_cross(state, dq_get, dq_put);
}

void
BM_spinlock_array_cross(benchmark::State &state)
{
	run_cross(state, sa_get, sa_put);
}

/* The mempool driver: get_bulk/put_bulk of 32 through rte_mempool. */
void
BM_mempool_bulk32(benchmark::State &state, struct rte_mempool *mp)
{
	ThreadCtx ctx(state);
	void *objs[kBulk];

	if (rte_lcore_id() == LCORE_ID_ANY) {
		state.SkipWithError("no lcore id");
		return;
	}
	T0 t0;
	for (auto _ : state) {
		if (rte_mempool_get_bulk(mp, objs, kBulk) != 0) {
			state.SkipWithError("mempool exhausted");
			break;
		}
		benchmark::DoNotOptimize(objs[0]);
		rte_mempool_put_bulk(mp, objs, kBulk);
	}
	report(state, t0, static_cast<double>(state.iterations()) * kBulk);
}

struct rte_mempool *
mk_mempool(const char *name, unsigned cache, const char *ops)
{
	struct rte_mempool *mp;

	mp = rte_mempool_create_empty(name, kCap - 1, kObjSize, cache, 0,
		SOCKET_ID_ANY, 0);
	if (mp == nullptr)
		return nullptr;
	if (rte_mempool_set_ops_byname(mp, ops, nullptr) != 0 ||
		rte_mempool_populate_default(mp) < 0) {
		rte_mempool_free(mp);
		return nullptr;
	}
	return mp;
}

struct ewyk_pool *
mk_ewyk(const char *name, unsigned cache,
	enum ewyk_pool_strategy strategy = EWYK_POOL_STRATEGY_LCORE,
	unsigned cap = kCap)
{
	struct ewyk_pool_params prm = {};

	prm.name = name;
	prm.capacity = cap;
	prm.obj_size = kObjSize;
	prm.socket_id = EWYK_POOL_SOCKET_ANY;
	prm.cache_size = cache;
	prm.strategy = strategy;
	return ewyk_pool_create(&prm);
}

int
setup()
{
	const char *ops[2] = { "ewyk", "ring_mp_mc" };
	unsigned caches[2] = { 0, kCache };
	char *p;

	g_ewyk = mk_ewyk("bench", kCache);
	g_ewyk_nocache = mk_ewyk("bench_nocache", 0);
	g_ewyk_first = mk_ewyk("bench_first", 0, EWYK_POOL_STRATEGY_FIRST,
		kFirstCap);
	/* rte_mempool_create: default ops (ring_mp_mc), cache 256. */
	g_mp = rte_mempool_create("bench_rte", kCap - 1, kObjSize, kCache, 0,
		nullptr, nullptr, nullptr, nullptr, SOCKET_ID_ANY, 0);
	g_dq_mem = rte_zmalloc("bench_dq", (size_t)kCap * kObjSize,
		RTE_CACHE_LINE_SIZE);
	g_sa_mem = rte_zmalloc("bench_sa", (size_t)kCap * kObjSize,
		RTE_CACHE_LINE_SIZE);
	g_inbox[0] = rte_ring_create("bench_in0", 1024, SOCKET_ID_ANY,
		RING_F_SP_ENQ | RING_F_SC_DEQ);
	g_inbox[1] = rte_ring_create("bench_in1", 1024, SOCKET_ID_ANY,
		RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (g_ewyk == nullptr || g_ewyk_nocache == nullptr ||
		g_ewyk_first == nullptr || g_mp == nullptr ||
		g_dq_mem == nullptr || g_sa_mem == nullptr ||
		g_inbox[0] == nullptr || g_inbox[1] == nullptr) {
		fprintf(stderr, "setup failed: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	p = static_cast<char *>(g_dq_mem);
	for (unsigned i = 0; i < kCap; i++)
		g_dq.push_back(p + (size_t)i * kObjSize);
	rte_spinlock_init(&g_sa.lock);
	p = static_cast<char *>(g_sa_mem);
	for (unsigned i = 0; i < kCap; i++)
		g_sa.obj[g_sa.top++] = p + (size_t)i * kObjSize;

	benchmark::RegisterBenchmark("BM_ewyk_pool", BM_ewyk_pool)
		->Threads(1)
		->Threads(2);
	benchmark::RegisterBenchmark("BM_rte_mempool", BM_rte_mempool)
		->Threads(1)
		->Threads(2);
	benchmark::RegisterBenchmark("BM_mutex_deque", BM_mutex_deque)
		->Threads(1)
		->Threads(2);
	benchmark::RegisterBenchmark("BM_spinlock_array", BM_spinlock_array)
		->Threads(1)
		->Threads(2);
	benchmark::RegisterBenchmark("BM_ewyk_pool_nocache",
		BM_ewyk_pool_nocache)
		->Threads(1)
		->Threads(2);
	benchmark::RegisterBenchmark("BM_ewyk_pool_held", BM_ewyk_pool_held)
		->Arg(0)
		->Arg(1 << 12)
		->Arg(kFirstCap / 2);
	benchmark::RegisterBenchmark("BM_ewyk_pool_cross", BM_ewyk_pool_cross)
		->Threads(2);
	benchmark::RegisterBenchmark("BM_rte_mempool_cross",
		BM_rte_mempool_cross)
		->Threads(2);
	benchmark::RegisterBenchmark("BM_mutex_deque_cross",
		BM_mutex_deque_cross)
		->Threads(2);
	benchmark::RegisterBenchmark("BM_spinlock_array_cross",
		BM_spinlock_array_cross)
		->Threads(2);
	for (const char *o : ops) {
		for (unsigned c : caches) {
			std::string name = std::string("bench_") + o + "_" +
				std::to_string(c);
			struct rte_mempool *mp = mk_mempool(name.c_str(), c, o);

			if (mp == nullptr) {
				fprintf(stderr, "mempool %s/%u: %s\n", o, c,
					rte_strerror(rte_errno));
				return -1;
			}
			benchmark::RegisterBenchmark(
				(std::string("BM_mempool_bulk32/") + o +
					"/cache:" + std::to_string(c))
					.c_str(),
				BM_mempool_bulk32, mp)
				->Threads(1)
				->Threads(2);
		}
	}
	return 0;
}

} /* namespace */

int
main(int argc, char **argv)
{
	if (ewyk_bench::eal_init(argv[0], "pool", { "-l", "0" }, 512) < 0)
		return 1;
	if (setup() < 0)
		return 1;
	return ewyk_bench::run(argc, argv);
}
