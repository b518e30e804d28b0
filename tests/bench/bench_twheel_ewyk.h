/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_twheel's adapter for the ewyk timer wheel (struct Tw): populations,
 * and the operations the benchmark bodies in bench_twheel.cc call.
 */

#ifndef EWYK_BENCH_TWHEEL_EWYK_H
#define EWYK_BENCH_TWHEEL_EWYK_H

#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_memory.h>

#include <ewyk_twheel.h>

#include "bench_twheel.h"

namespace twb
{

inline void
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
	uint64_t now = 0;            /* the clock given to the wheel */
	uint32_t k = 0;
	bool live = false; /* rearm ran: some timers may have fired */
	bool warm = false; /* expire: warmed up */
	Rng rng{ 1 };
};

inline void
tw_cb_expire(struct ewyk_twheel *, struct ewyk_twheel_timer *t, void *arg)
{
	auto *p = static_cast<TwPop *>(arg);

	p->fired.push_back(static_cast<uint32_t>(t - p->t));
}

inline void
tw_pop_free(TwPop *p)
{
	ewyk_twheel_free(p->w);
	free(p->t);
	delete p;
}

/*
 * One population per kind ("ops": arm, rearm, cancel; "expire"), rebuilt
 * when N changes so that memory stays bounded. nullptr on failure.
 */
inline TwPop *g_tw_ops, *g_tw_exp; /* the populations of now */

inline TwPop *
tw_pop(const char *kind, uint32_t n)
{
	bool expire = strcmp(kind, "expire") == 0;
	TwPop **cur = expire ? &g_tw_exp : &g_tw_ops;

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
		delete p;
		return nullptr;
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
				p->now + 1 + p->rng.next() % d, tw_cb_expire,
				p);
		} else {
			ewyk_twheel_arm(p->w, &p->t[x], p->now + d, tw_cb_nop,
				p);
		}
	}
	*cur = p;
	return p;
}

/* Free both populations (at exit). */
inline void
tw_teardown(void)
{
	if (g_tw_ops != nullptr)
		tw_pop_free(g_tw_ops);
	if (g_tw_exp != nullptr)
		tw_pop_free(g_tw_exp);
	g_tw_ops = g_tw_exp = nullptr;
}

struct Tw {
	using Pop = TwPop;

	static Pop *ops(uint32_t n)
	{
		Pop *p = tw_pop("ops", n);

		if (p != nullptr && p->live) {
			/* rearm ran: all N pending again */
			uint64_t now = rte_rdtsc();

			for (uint32_t i = 0; i < n; i++)
				if (!ewyk_twheel_pending(&p->t[i]))
					ewyk_twheel_rearm(p->w, &p->t[i],
						now + tcp_delay(i, p->k++));
			p->live = false;
		}
		return p;
	}

	/* The loop's clock for the next batch of arms (untimed). */
	static void clock(Pop *p)
	{
		p->now = rte_rdtsc();
	}

	static void arm(Pop *p, uint32_t x, uint64_t d)
	{
		ewyk_twheel_arm(p->w, &p->t[x], p->now + d, tw_cb_nop, p);
	}

	static void cancel(Pop *p, uint32_t x)
	{
		ewyk_twheel_cancel(p->w, &p->t[x]);
	}

	/* rearm: real clock, real delays, uniform time left (untimed). */
	static void live(Pop *p)
	{
		if (p->live)
			return;
		p->now = rte_rdtsc();
		ewyk_twheel_advance(p->w, p->now, 0);
		for (uint32_t i = 0; i < p->n; i++)
			ewyk_twheel_rearm(p->w, &p->t[i],
				p->now + 1 +
					p->rng.next() % tcp_delay(i, p->k++));
		p->live = true;
	}

	static void poll(Pop *p)
	{
		p->now = rte_rdtsc();
		ewyk_twheel_advance(p->w, p->now, 0);
	}

	static void rearm(Pop *p, uint32_t x, uint64_t d)
	{
		ewyk_twheel_rearm(p->w, &p->t[x], p->now + d);
	}

	static uint64_t fired(Pop *p)
	{
		struct ewyk_twheel_stats st;

		ewyk_twheel_stats_get(p->w, &st);
		return st.fired;
	}

	static uint64_t moved(Pop *p)
	{
		struct ewyk_twheel_stats st;

		ewyk_twheel_stats_get(p->w, &st);
		return st.cascaded;
	}

	static bool has_moves()
	{
		return true;
	}

	static uint64_t pending(Pop *p)
	{
		return ewyk_twheel_count(p->w);
	}

	/* expire */
	static Pop *exp(uint32_t n)
	{
		Pop *p = tw_pop("expire", n);

		if (p == nullptr || p->warm)
			return p;
		/* warm up: several 40 ms periods, at most 4M callbacks */
		uint64_t until = p->now + 8 * g_d40;
		uint64_t fired = 0;

		while (p->now < until && fired < 4000000) {
			fire(p, batch_of(n));
			refill(p);
			fired += batch_of(n);
		}
		for (uint32_t i = 0; i < n; i++)
			flush_lines(&p->t[i], sizeof(p->t[0]));
		p->warm = true;
		return p;
	}

	static void prepare(Pop *p, uint32_t b)
	{
		(void)p;
		(void)b;
	}

	/* Run until b callbacks ran, jumping the clock to the next work. */
	static uint64_t fire(Pop *p, uint32_t b)
	{
		uint32_t ran = 0;
		uint64_t calls = 0;

		p->fired.clear();
		while (ran < b) {
			uint64_t nx = ewyk_twheel_next_expiry(p->w);

			if (nx == UINT64_MAX)
				break; /* fewer than b pending */
			if (nx > p->now)
				p->now = nx;
			ran += ewyk_twheel_advance(p->w, p->now, b - ran);
			calls++;
		}
		return calls;
	}

	static bool fired_ok(Pop *p, uint32_t b)
	{
		return p->fired.size() == b;
	}

	/* Re-arm the fired timers; evict them, as if armed long ago. */
	static void refill(Pop *p)
	{
		for (uint32_t x : p->fired)
			ewyk_twheel_rearm(p->w, &p->t[x],
				p->now + tcp_delay(x, p->k++));
		for (uint32_t x : p->fired)
			flush_lines(&p->t[x], sizeof(p->t[0]));
	}

	static void expire_counters(benchmark::State &state, Pop *p,
		uint64_t calls)
	{
		struct ewyk_twheel_stats st;

		ewyk_twheel_stats_get(p->w, &st); /* since it was built */
		state.counters["cascades_per_fire"] = st.fired ?
			(double)st.cascaded / st.fired :
			0;
		state.counters["advance_calls"] = benchmark::Counter(calls,
			benchmark::Counter::kAvgIterations);
	}

	/* poll_empty */
	struct Empty {
		struct ewyk_twheel *w = nullptr;
		struct ewyk_twheel_timer t[1000];
	};

	static bool empty_setup(Empty *e)
	{
		struct ewyk_twheel_params prm = {};
		uint64_t now = rte_rdtsc();

		prm.name = "bpoll";
		prm.socket_id = SOCKET_ID_ANY;
		prm.start_tsc = now;
		e->w = ewyk_twheel_create(&prm);
		if (e->w == nullptr)
			return false;
		for (uint32_t i = 0; i < 1000; i++) {
			ewyk_twheel_timer_init(&e->t[i]);
			ewyk_twheel_arm(e->w, &e->t[i], now + g_d60 + i,
				tw_cb_nop, nullptr);
		}
		ewyk_twheel_advance(e->w, now, 0);
		return true;
	}

	static void empty_poll(Empty *e, uint64_t now)
	{
		unsigned int ran = ewyk_twheel_advance(e->w, now, 64);

		benchmark::DoNotOptimize(ran);
	}

	static bool empty_teardown(Empty *e)
	{
		bool ok = ewyk_twheel_count(e->w) == 1000;

		ewyk_twheel_free(e->w);
		return ok;
	}
};

} /* namespace twb */

#endif /* EWYK_BENCH_TWHEEL_EWYK_H */
