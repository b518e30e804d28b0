/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_TCP_STATS_H
#define EWYK_TCP_STATS_H

/**
 * @file
 * lib/tcp's statistics: counters, connection states, memory and the
 * Prometheus text (part of ewyk_tcp.h, which includes it after its own
 * declarations: include ewyk_tcp.h). The counters themselves are listed
 * in ewyk_tcp_counters.h.
 */

#include <stddef.h>
#include <stdint.h>

#include "ewyk_tcp.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Read one counter of a context (any thread; relaxed loads).
 *
 * @param t
 *   context (NULL: 0)
 * @param c
 *   counter
 * @return
 *   its value (0 for an unknown counter).
 */
uint64_t ewyk_tcp_counter_get(const struct ewyk_tcp *t,
	enum ewyk_tcp_counter c);

/**
 * Add up one counter over every registered context (any thread).
 *
 * @param c
 *   counter
 * @return
 *   the sum.
 */
uint64_t ewyk_tcp_counter_sum(enum ewyk_tcp_counter c);

/**
 * Connections in a state (any thread).
 *
 * @param t
 *   context (NULL: 0)
 * @param s
 *   state (CLOSED and LISTEN are not counted: 0)
 * @return
 *   how many.
 */
uint64_t ewyk_tcp_state_count(const struct ewyk_tcp *t, enum ewyk_tcp_state s);

/** What a context's connections take of memory (ewyk_tcp_mem()). */
struct ewyk_tcp_mem_info {
	uint32_t max_conns;   /**< capacity */
	uint32_t conn_bytes;  /**< per connection of the capacity: pool and
			       *  table over max_conns, rounded up */
	uint64_t pool_bytes;  /**< the connection pool (ewyk_pool_mem_bytes) */
	uint64_t table_bytes; /**< hash buckets, per-source counts and
			       *  each connection's per-source buckets */
};

/**
 * Memory of a context's connections, from its pool's and table's own
 * sizes: all of it is allocated at creation for max_conns connections, so
 * a connection, busy or idle, costs conn_bytes (its receive and send
 * queues excepted: mbufs, none once everything is acknowledged and
 * consumed). Any thread; O(1).
 *
 * @param t
 *   context
 * @param m
 *   filled in
 * @return
 *   0, or -EINVAL (a NULL argument).
 */
int ewyk_tcp_mem(const struct ewyk_tcp *t, struct ewyk_tcp_mem_info *m);

/**
 * @param c
 *   counter
 * @return
 *   its name ("seg_in", "drop_cksum", ...; the telemetry key), or
 *   NULL when out of range.
 */
const char *ewyk_tcp_counter_name(enum ewyk_tcp_counter c);

/**
 * Write the counters and connection states of every shard as Prometheus
 * text exposition (format 0.0.4): ewyk_tcp_<name>_total for a counter,
 * ewyk_tcp_state_<state> (a gauge) for a state from SYN-SENT on, one
 * sample per shard labelled shard="<id>". For an HTTP /metrics page.
 *
 * @param buf
 *   Output; may be NULL when @p size is 0, to learn the length needed.
 * @param size
 *   Size of @p buf. The text is NUL-terminated when @p size > 0, and
 *   truncated when it does not fit, as with snprintf().
 * @return
 *   Length of the whole text (without the NUL), fitting or not;
 *   -ENOMEM.
 */
int ewyk_tcp_prometheus(char *buf, size_t size);

/**
 * @param s
 *   state
 * @return
 *   its name ("ESTABLISHED", ...), or NULL when out of range.
 */
const char *ewyk_tcp_state_name(enum ewyk_tcp_state s);

#ifdef __cplusplus
}
#endif

#endif /* EWYK_TCP_STATS_H */
