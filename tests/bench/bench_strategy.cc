/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_strategy: PC, PEC, EPC and ADAPTIVE side by side, in the shape of
 * Jetty's EWYKBenchmark. The producer "parses": it writes each task's data
 * (DATA_BYTES) into a slot; the consumer reads all of it (so a cold cache
 * costs) and folds it into a per-session total under that session's lock.
 *
 *   BM_strategy_nonblocking/<mode>  every task NON_BLOCKING
 *   BM_strategy_mixed/<mode>        1% BLOCKING (they sleep ~200 us), the
 *                                   rest NON_BLOCKING
 *
 * One benchmark iteration is a batch of BATCH tasks produced by one
 * producer (token) and completed. The main lcore starts each batch as the
 * producer and is its home; the other EAL lcores serve the executor as
 * reserved lcores; whenever the main lcore does not hold the token (EPC
 * handed it on) it waits in the executor for production to come back,
 * running no queued task (EWYK_STRATEGY_SERVE_NO_RING). Counters:
 *
 *   items_per_second       tasks / wall time of the run
 *   items_per_cpu_second   tasks / CPU time of all the process's threads
 *                          over the run (getrusage(RUSAGE_SELF))
 *   cpus                   CPU seconds per wall second (cores burnt)
 *   p50_ns, p99_ns         NON_BLOCKING tasks, production to completion
 *                          (log-linear histogram, 1.6% resolution)
 *
 * Placement: EAL --lcores, default "0@0,1@1,2@1" (main lcore on CPU 0,
 * reserved lcores 1 and 2 both on CPU 1); override with
 * EWYK_BENCH_LCORES. Placement is printed on stderr at start.
 */

#include <benchmark/benchmark.h>

#include <pthread.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#include <ewyk_strategy.h>

#include "bench_common.h"

namespace
{

constexpr unsigned int DATA_BYTES = 2048; /* "a few KB" parsed per task */
constexpr unsigned int NSLOTS = 4096;     /* task slots (ring of them) */
constexpr uint64_t WINDOW = 1024;         /* tasks in flight, at most */
constexpr uint64_t BATCH = 20000;         /* tasks per iteration */
constexpr unsigned int NSESSIONS = 16;
constexpr unsigned int BURST = 32;
constexpr uint64_t BLOCK_NS = 200000; /* a blocking task sleeps */
constexpr unsigned int HBITS = 6;     /* histogram: 64 per octave */
constexpr unsigned int HBUCKETS = 48 << HBITS;

/*
 * The per-session lock (Jetty's benchmark locks a session per task). An
 * adaptive mutex spins briefly then sleeps, like a Java monitor; a pure
 * spinlock would turn every preemption of a holder on an oversubscribed
 * CPU into a time slice of spinning for the other thread there.
 */
struct Session {
	pthread_mutex_t lock;
	uint64_t sum;
	uint64_t n;
} __rte_cache_aligned;

struct Bench;

struct Slot {
	Bench *b;
	uint64_t t_prod; /* TSC when the task was produced */
	uint32_t session;
	uint32_t blocking;
	uint32_t inflight; /* produced, not yet completed */
	alignas(64) uint64_t data[DATA_BYTES / 8];
};

struct Hist {
	uint64_t c[HBUCKETS];
} __rte_cache_aligned;

struct Bench {
	/* holder-only (moves with the token) */
	uint64_t produced;
	uint64_t seq;
	int mixed;
	struct ewyk_strategy_executor *ex;
	alignas(64) uint64_t completed;
	alignas(64) uint32_t quit;
	alignas(64) uint64_t rejected;
	Slot *slots;
	Session sessions[NSESSIONS];
	Hist hist[RTE_MAX_LCORE];
};

unsigned int
hbucket(uint64_t v)
{
	unsigned int e;

	if (v < (1u << HBITS))
		return (unsigned int)v;
	e = 63 - (unsigned int)__builtin_clzll(v);
	return std::min((e - HBITS + 1) * (1u << HBITS) +
			(unsigned int)((v >> (e - HBITS)) &
				((1u << HBITS) - 1)),
		HBUCKETS - 1);
}

double
hbucket_value(unsigned int i)
{
	unsigned int oct = i >> HBITS, sub = i & ((1u << HBITS) - 1);

	if (oct == 0)
		return sub;
	return (double)((uint64_t)((1u << HBITS) + sub) << (oct - 1));
}

double
now_s()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double
cpu_s()
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
		ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

void
consume(void *arg, enum ewyk_strategy_mode mode)
{
	Slot *s = static_cast<Slot *>(arg);
	Bench *b = s->b;
	uint64_t sum = 0;
	unsigned int i;

	if (mode == EWYK_STRATEGY_MODE_REJECTED) {
		__atomic_fetch_add(&b->rejected, 1, __ATOMIC_RELAXED);
	} else {
		for (i = 0; i < DATA_BYTES / 8; i++)
			sum += s->data[i];
		if (s->blocking) {
			struct timespec ts = { 0, (long)BLOCK_NS };

			nanosleep(&ts, nullptr);
		}
		Session *se = &b->sessions[s->session];
		pthread_mutex_lock(&se->lock);
		se->sum += sum;
		se->n++;
		pthread_mutex_unlock(&se->lock);
		if (!s->blocking) {
			uint64_t d = rte_rdtsc() - s->t_prod;
			unsigned int lc = rte_lcore_id();

			b->hist[lc < RTE_MAX_LCORE ? lc : 0].c[hbucket(d)]++;
		}
	}
	__atomic_store_n(&s->inflight, 0, __ATOMIC_RELEASE);
	if (__atomic_add_fetch(&b->completed, 1, __ATOMIC_ACQ_REL) == BATCH) {
		__atomic_store_n(&b->quit, 1, __ATOMIC_RELEASE);
		ewyk_strategy_executor_wake_all(b->ex);
	}
}

/* Wait for room; the holder owns production, so it just waits its turn. */
void
wait_room(Bench *b)
{
	unsigned int spins = 0;

	for (;;) {
		if (b->produced -
				__atomic_load_n(&b->completed,
					__ATOMIC_ACQUIRE) <
			WINDOW)
			return;
		if (++spins < 64)
			rte_pause();
		else
			sched_yield(); /* let a consumer on this CPU run */
	}
}

unsigned int
produce(void *ctx, struct ewyk_strategy_task *out, unsigned int max)
{
	Bench *b = static_cast<Bench *>(ctx);
	unsigned int n, i, j;

	if (b->produced >= BATCH)
		return 0;
	wait_room(b);
	n = (unsigned int)std::min<uint64_t>(
		{ (uint64_t)max, BATCH - b->produced,
			WINDOW -
				(b->produced -
					__atomic_load_n(&b->completed,
						__ATOMIC_ACQUIRE)) });
	for (i = 0; i < n; i++) {
		uint64_t seq;
		Slot *s;

		/*
		 * Next free slot: fewer than WINDOW < NSLOTS are in flight,
		 * so one is free within WINDOW steps (a blocked task may
		 * hold an old one for long: skip it, never wait for it).
		 */
		do {
			seq = b->seq++;
			s = &b->slots[seq % NSLOTS];
		} while (__atomic_load_n(&s->inflight, __ATOMIC_ACQUIRE));
		s->inflight = 1;
		s->session = (uint32_t)((seq * 0x9e3779b97f4a7c15ULL) >> 60) %
			NSESSIONS;
		s->blocking = b->mixed && seq % 100 == 37;
		for (j = 0; j < DATA_BYTES / 8; j++)
			s->data[j] = seq ^ j; /* "parse" */
		s->t_prod = rte_rdtsc();
		out[i].fn = consume;
		out[i].arg = s;
		out[i].invocation = s->blocking ?
			EWYK_STRATEGY_INVOKE_BLOCKING :
			EWYK_STRATEGY_INVOKE_NON_BLOCKING;
		out[i].flags = 0;
	}
	b->produced += n;
	return n;
}

void
run(benchmark::State &state, enum ewyk_strategy_kind kind, int mixed)
{
	struct ewyk_strategy_executor_conf ec = {};
	struct ewyk_strategy_conf sc = {};
	struct ewyk_strategy_producer_conf pc = {};
	struct ewyk_strategy_stats st;
	struct ewyk_strategy_executor *ex;
	struct ewyk_strategy *s;
	struct ewyk_strategy_producer *p;
	unsigned int lc, i;
	uint64_t items = 0;
	double w0, c0, wall, cpu;
	Bench *b;

	b = static_cast<Bench *>(rte_zmalloc("bench", sizeof(*b), 64));
	b->slots = static_cast<Slot *>(
		rte_zmalloc("slots", sizeof(Slot) * NSLOTS, 64));
	if (b == nullptr || b->slots == nullptr) {
		state.SkipWithError("no memory");
		return;
	}
	for (i = 0; i < NSLOTS; i++)
		b->slots[i].b = b;
	pthread_mutexattr_t ma;

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ADAPTIVE_NP);
	for (i = 0; i < NSESSIONS; i++)
		pthread_mutex_init(&b->sessions[i].lock, &ma);
	pthread_mutexattr_destroy(&ma);
	b->mixed = mixed;
	ec.name = "bench";
	ec.socket_id = SOCKET_ID_ANY;
	ec.ring_size = 2 * WINDOW; /* never full: the window bounds it */
	ex = ewyk_strategy_executor_create(&ec);
	sc.name = "bench";
	sc.kind = kind;
	sc.executor = ex;
	sc.socket_id = SOCKET_ID_ANY;
	s = ex != nullptr ? ewyk_strategy_create(&sc) : nullptr;
	pc.produce = produce;
	pc.ctx = b;
	pc.burst = BURST;
	/* The main lcore is the shard's worker: production comes home. */
	pc.flags = EWYK_STRATEGY_PRODUCER_F_HOME;
	pc.home_lcore = rte_get_main_lcore();
	p = s != nullptr ? ewyk_strategy_producer_create(s, &pc) : nullptr;
	if (p == nullptr) {
		state.SkipWithError(rte_strerror(rte_errno));
		return;
	}
	b->ex = ex;
	RTE_LCORE_FOREACH_WORKER (lc)
		rte_eal_remote_launch(ewyk_strategy_executor_lcore_main, ex,
			lc);
	while (ewyk_strategy_executor_idle_count(ex) < rte_lcore_count() - 1)
		rte_pause();

	w0 = now_s();
	c0 = cpu_s();
	for (auto _ : state) {
		b->produced = 0;
		__atomic_store_n(&b->completed, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&b->quit, 0, __ATOMIC_RELEASE);
		ewyk_strategy_producer_run(p);
		/*
		 * Not holding the token: wait in the executor for production
		 * to come back (EPC hand-off, or home), running no queued
		 * task meanwhile, until the batch is complete.
		 */
		while (!__atomic_load_n(&b->quit, __ATOMIC_ACQUIRE))
			ewyk_strategy_executor_serve_opt(ex, &b->quit,
				EWYK_STRATEGY_SERVE_NO_RING);
		while (ewyk_strategy_producer_state_get(p) !=
			EWYK_STRATEGY_PRODUCER_IDLE)
			rte_pause();
		items += BATCH;
	}
	wall = now_s() - w0;
	cpu = cpu_s() - c0;

	ewyk_strategy_stats_get(s, &st);
	ewyk_strategy_executor_stop(ex);
	rte_eal_mp_wait_lcore();

	Hist h = {};
	uint64_t tot = 0, acc = 0;
	double p50 = 0, p90 = 0, p99 = 0, p999 = 0;

	for (lc = 0; lc < RTE_MAX_LCORE; lc++)
		for (i = 0; i < HBUCKETS; i++)
			h.c[i] += b->hist[lc].c[i];
	for (i = 0; i < HBUCKETS; i++)
		tot += h.c[i];
	for (i = 0; i < HBUCKETS && tot != 0; i++) {
		acc += h.c[i];
		if (p50 == 0 && acc * 2 >= tot)
			p50 = hbucket_value(i);
		if (p90 == 0 && acc * 10 >= tot * 9)
			p90 = hbucket_value(i);
		if (p99 == 0 && acc * 100 >= tot * 99)
			p99 = hbucket_value(i);
		if (acc * 1000 >= tot * 999) {
			p999 = hbucket_value(i);
			break;
		}
	}
	double ns_per_tsc = 1e9 / (double)rte_get_tsc_hz();

	state.counters["items_per_second"] = items / wall;
	state.counters["items_per_cpu_second"] = items / cpu;
	state.counters["cpus"] = cpu / wall;
	state.counters["p50_ns"] = p50 * ns_per_tsc;
	state.counters["p99_ns"] = p99 * ns_per_tsc;
	state.counters["p90_ns"] = p90 * ns_per_tsc;
	state.counters["p999_ns"] = p999 * ns_per_tsc;
	state.counters["epc_frac"] = items ?
		(double)st.mode[EWYK_STRATEGY_MODE_EPC] / (double)items :
		0;
	state.counters["pec_frac"] = items ?
		(double)st.mode[EWYK_STRATEGY_MODE_PEC] / (double)items :
		0;
	state.counters["rejected"] = (double)b->rejected;
	state.counters["homecomings"] = (double)st.homecomings;

	/* sanity: every task ran exactly once; the ring is never full */
	uint64_t ran = 0;

	for (i = 0; i < NSESSIONS; i++)
		ran += b->sessions[i].n;
	if (b->rejected != 0)
		state.SkipWithError("tasks rejected (the ring cannot fill)");
	else if (ran != items)
		state.SkipWithError("tasks run != tasks produced");

	ewyk_strategy_producer_free(p);
	ewyk_strategy_free(s);
	ewyk_strategy_executor_free(ex);
	rte_free(b->slots);
	rte_free(b);
}

/* Record the CPU of each lcore; 1 ns timer slack so sleeps are ~200 us. */
int
where(void *arg)
{
	int *cpu = static_cast<int *>(arg);

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	cpu[rte_lcore_id()] = sched_getcpu();
	return 0;
}

} // namespace

int
main(int argc, char **argv)
{
	static const struct {
		const char *name;
		enum ewyk_strategy_kind kind;
	} modes[] = {
		{ "pc", EWYK_STRATEGY_PC },
		{ "pec", EWYK_STRATEGY_PEC },
		{ "epc", EWYK_STRATEGY_EPC },
		{ "adaptive", EWYK_STRATEGY_ADAPTIVE },
	};
	const char *lcores = getenv("EWYK_BENCH_LCORES");
	std::string lopt = std::string("--lcores=") +
		(lcores != nullptr ? lcores : "0@0,1@1,2@1");
	int cpu[RTE_MAX_LCORE];
	unsigned int lc;

	if (ewyk_bench::eal_init(argv[0], "strategy", { lopt }, 512) < 0)
		return 1;
	if (rte_lcore_count() < 2) {
		fprintf(stderr, "bench_strategy needs >= 2 lcores\n");
		return 1;
	}
	RTE_LCORE_FOREACH_WORKER (lc)
		rte_eal_remote_launch(where, cpu, lc);
	where(cpu);
	rte_eal_mp_wait_lcore();
	RTE_LCORE_FOREACH (lc)
		fprintf(stderr, "lcore %u (%s) on CPU %d\n", lc,
			lc == rte_get_main_lcore() ?
				"main: producer, "
				"reserved when not holding the token" :
				"reserved",
			cpu[lc]);

	for (const auto &m : modes) {
		benchmark::RegisterBenchmark(
			(std::string("BM_strategy_nonblocking/") + m.name)
				.c_str(),
			run, m.kind, 0)
			->Unit(benchmark::kMillisecond);
	}
	for (const auto &m : modes) {
		benchmark::RegisterBenchmark(
			(std::string("BM_strategy_mixed/") + m.name).c_str(),
			run, m.kind, 1)
			->Unit(benchmark::kMillisecond);
	}
	return ewyk_bench::run(argc, argv);
}
