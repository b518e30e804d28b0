/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_twheel's adapters for DPDK's rte_timer (struct Rt, and RtGated for
 * the gated empty poll).
 */

#ifndef EWYK_BENCH_TWHEEL_RTE_H
#define EWYK_BENCH_TWHEEL_RTE_H

#include <benchmark/benchmark.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_timer.h>

#include <ewyk_twheel.h>

#include "bench_twheel.h"

namespace twb
{

struct RtPop {
	struct rte_timer *t = nullptr;
	uint32_t n = 0;
	std::vector<uint32_t> slots;
	std::vector<uint32_t> rnd;
	uint64_t fired = 0;
	uint64_t offset = 0;
	uint32_t k = 0;
	bool live = false; /* rearm ran: real delays, some fired */
	Rng rng{ 1 };
};

inline void
rt_cb_empty(struct rte_timer *, void *)
{
}

inline void
rt_cb_count(struct rte_timer *, void *arg)
{
	static_cast<RtPop *>(arg)->fired++;
}

inline void
rt_arm(RtPop *p, uint32_t x, uint64_t delay)
{
	rte_timer_reset(&p->t[x], delay + p->offset, SINGLE, rte_lcore_id(),
		rt_cb_count, p);
}

inline RtPop *g_rt; /* the population: rte_timer lists are per lcore, shared */

inline void
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
 * exists at a time (all ops of one N share it).
 */
inline RtPop *
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

		rt_arm(p, x, tcp_delay(x, i));
	}
	g_rt = p;
	return p;
}

struct Rt {
	using Pop = RtPop;

	/* All N pending, 1 h away (after rearm: re-armed so, untimed). */
	static Pop *ops(uint32_t n)
	{
		Pop *p = rt_pop(n);

		if (p->live) {
			p->offset = g_hour;
			for (uint32_t i = 0; i < n; i++)
				rt_arm(p, p->slots[i],
					tcp_delay(p->slots[i], p->k++));
			p->live = false;
		}
		return p;
	}

	static void clock(Pop *)
	{
	} /* rte_timer_reset() reads the TSC */

	static void arm(Pop *p, uint32_t x, uint64_t d)
	{
		rt_arm(p, x, d);
	}

	static void cancel(Pop *p, uint32_t x)
	{
		rte_timer_stop(&p->t[x]);
	}

	static void live(Pop *p)
	{
		if (p->live)
			return;
		p->offset = 0;
		for (uint32_t i = 0; i < p->n; i++) {
			uint32_t x = p->slots[i];

			rt_arm(p, x, 1 + p->rng.next() % tcp_delay(x, p->k++));
		}
		p->live = true;
	}

	static void poll(Pop *)
	{
		rte_timer_manage();
	}

	static void rearm(Pop *p, uint32_t x, uint64_t d)
	{
		rt_arm(p, x, d);
	}

	static uint64_t fired(Pop *p)
	{
		return p->fired;
	}
	static uint64_t moved(Pop *)
	{
		return 0;
	}
	static bool has_moves()
	{
		return false;
	}
	static uint64_t pending(Pop *)
	{
		return 0;
	}

	/* expire */
	static Pop *exp(uint32_t n)
	{
		return ops(n);
	}

	/* B random pending timers due now, cold (untimed). */
	static void prepare(Pop *p, uint32_t b)
	{
		uint32_t n = p->n;

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
	}

	static uint64_t fire(Pop *p, uint32_t b)
	{
		uint64_t calls = 0;

		while (p->fired < b) {
			rte_timer_manage();
			calls++;
		}
		return calls;
	}

	static bool fired_ok(Pop *p, uint32_t b)
	{
		return p->fired == b;
	}

	static void refill(Pop *p)
	{
		for (uint32_t i = p->n - batch_of(p->n); i < p->n; i++) {
			uint32_t x = p->slots[i];

			rt_arm(p, x, tcp_delay(x, p->k++));
		}
	}

	static void expire_counters(benchmark::State &, Pop *, uint64_t)
	{
	}

	/* poll_empty */
	struct Empty {
		struct rte_timer t[1000];
		uint64_t last = 0;
		uint64_t gate = 0; /* 0: ungated */
	};

	static bool empty_setup(Empty *e)
	{
		rt_teardown(); /* only these 1000 on this lcore */
		for (uint32_t i = 0; i < 1000; i++) {
			rte_timer_init(&e->t[i]);
			rte_timer_reset(&e->t[i], g_d60 + i, SINGLE,
				rte_lcore_id(), rt_cb_empty, nullptr);
		}
		e->last = rte_rdtsc();
		return true;
	}

	static void empty_poll(Empty *e, uint64_t now)
	{
		if (e->gate != 0 && now - e->last < e->gate)
			return;
		e->last = now;
		int ret = rte_timer_manage();

		benchmark::DoNotOptimize(ret);
	}

	static bool empty_teardown(Empty *e)
	{
		bool ok = true;

		for (uint32_t i = 0; i < 1000; i++) {
			if (!rte_timer_pending(&e->t[i]))
				ok = false;
			rte_timer_stop(&e->t[i]);
		}
		return ok;
	}
};

/* The gated rte_timer poll: manage() once per wheel tick at most. */
struct RtGated : Rt {
	static bool empty_setup(Empty *e)
	{
		struct ewyk_twheel_params prm = {};
		struct ewyk_twheel *w;

		prm.name = "bgate";
		prm.socket_id = SOCKET_ID_ANY;
		prm.start_tsc = rte_rdtsc();
		w = ewyk_twheel_create(&prm);
		if (w == nullptr)
			return false;
		e->gate = ewyk_twheel_tick_cycles(w);
		ewyk_twheel_free(w);
		return Rt::empty_setup(e);
	}
};

} /* namespace twb */

#endif /* EWYK_BENCH_TWHEEL_RTE_H */
