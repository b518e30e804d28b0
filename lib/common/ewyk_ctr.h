/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_CTR_H
#define EWYK_CTR_H

/**
 * @file
 * Single-writer counters: the one way every ewyk lib and app adds to a
 * counter that one lcore writes and other threads read (telemetry, the
 * stats table, Prometheus text).
 *
 * A per-lcore or per-shard counter has exactly one writer, the lcore that
 * owns it (the shard's token holder). Readers run on other threads at any
 * time. A plain `+=` would be a data race (undefined behaviour in C11; a
 * compiler may tear, cache or re-order the store); a locked
 * read-modify-write (`__atomic_fetch_add`, `lock add` on x86) would be
 * correct but costs tens of cycles on the hot path for nothing, since no
 * other thread writes. The writer therefore loads, adds and stores with a
 * relaxed atomic store, which on x86-64 and arm64 is a plain load, add and
 * store; readers use a relaxed atomic load (ewyk_ctr_read()) and see a
 * whole value, never a torn one. The writer's own load may be a plain
 * one: it conflicts with no other thread's access (the readers only read,
 * nobody else writes), and it lets the compiler fold it into the add as it
 * did before this helper existed. The helpers are always inlined: a
 * counter bump on a cold branch of a large function stays inline, never a
 * call.
 *
 * A counter written by several threads (a shared slot for threads without
 * an lcore id, say) must not use ewyk_ctr_add(): it takes
 * `__atomic_fetch_add(c, n, __ATOMIC_RELAXED)`.
 *
 * This header is installed: the inline fast paths of public headers
 * (ewyk_pool_get(), ewyk_pool_put()) count with it.
 */

#include <stdint.h>

#include <rte_common.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Add to a counter that only the calling thread writes (load, add,
 * relaxed atomic store: no locked instruction). A gauge goes down with
 * ewyk_ctr_sub().
 *
 * @param c
 *   The counter; written by no other thread.
 * @param n
 *   What to add.
 */
static __rte_always_inline void
ewyk_ctr_add(uint64_t *c, uint64_t n)
{
	__atomic_store_n(c, *c + n, __ATOMIC_RELAXED);
}

/**
 * Subtract from a single-writer gauge; ewyk_ctr_add() of -n.
 *
 * @param c
 *   The gauge; written by no other thread.
 * @param n
 *   What to subtract.
 */
static __rte_always_inline void
ewyk_ctr_sub(uint64_t *c, uint64_t n)
{
	ewyk_ctr_add(c, (uint64_t)0 - n);
}

/**
 * Read a counter another thread writes with ewyk_ctr_add() (relaxed atomic
 * load: a whole value, ordered with nothing else).
 *
 * @param c
 *   The counter.
 * @return
 *   Its value.
 */
static __rte_always_inline uint64_t
ewyk_ctr_read(const uint64_t *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

#ifdef __cplusplus
}
#endif

#endif /* EWYK_CTR_H */
