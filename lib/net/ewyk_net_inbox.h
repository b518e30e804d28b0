/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_NET_INBOX_H
#define EWYK_NET_INBOX_H

/**
 * @file
 * lib/net's message inbox API (part of ewyk_net.h, which includes it after
 * its own declarations: include ewyk_net.h). docs/guides/net.md.
 */

#include <stdint.h>

#include "ewyk_net.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Typed messages (net_inbox.c): the shard's inbox for changes other lcores
 * want, beside the frame inbox of ewyk_net_shard_forward(). Nothing outside
 * the token holder touches shard state: a completion of a dispatched task or
 * a function to run on the holder is posted here, from any lcore or non-EAL
 * thread, and applied by the holder in its loop (ewyk_net_msg_inbox_drain()),
 * in order per sender (Jetty's ManagedSelector SelectorUpdate).
 */

/** Kinds of typed messages. */
enum ewyk_net_msg_type {
	EWYK_NET_MSG_CALL = 1,       /**< run fn(shard, arg) on the holder */
	EWYK_NET_MSG_COMPLETION = 2, /**< a dispatched task finished */
};

/**
 * Completion handler of a shard's inbox, run by the holder for every
 * EWYK_NET_MSG_COMPLETION.
 *
 * @param arg     the pointer given to ewyk_net_inbox_create()
 * @param s       the shard
 * @param ticket  what the task was dispatched with (e.g. a purgatory key)
 * @param result  what the task produced; the handler owns it
 */
typedef void (*ewyk_net_completion_fn)(void *arg, struct ewyk_net_shard *s,
	uint64_t ticket, void *result);

/**
 * A function posted to run on the holder (EWYK_NET_MSG_CALL).
 *
 * @param s    the shard, on its holder's lcore
 * @param arg  the pointer given to ewyk_net_inbox_call()
 */
typedef void (*ewyk_net_call_fn)(struct ewyk_net_shard *s, void *arg);

/** Counters of a shard's message inbox. */
struct ewyk_net_inbox_stats {
	uint64_t posted[3]; /**< by enum ewyk_net_msg_type (0 unused) */
	uint64_t applied;   /**< messages applied by the holder */
	uint64_t full;      /**< posts and reservations refused: full */
	uint32_t reserved;  /**< slots reserved now, not yet posted */
	uint32_t queued;    /**< messages waiting now */
	uint32_t capacity;  /**< slots in all */
};

/**
 * Give shard @p s its message inbox. Called before polling starts. The ring
 * is multi-producer with relaxed tail sync (RTS): measured on the 2-CPU
 * machine with producers preempted mid-enqueue, the classic MP sync
 * convoyed behind them (see docs/guides/strategy.md).
 *
 * Capacity and failure mode: the inbox holds @p size messages. A post
 * without a reservation fails with -ENOBUFS when every slot is taken,
 * counting "full". A slot reserved with ewyk_net_inbox_reserve() is kept
 * for its sender: a completion posted with it is never refused (reserve at
 * dispatch, so a task whose result won its claim can always be delivered).
 *
 * @param s     the shard
 * @param size  capacity (exact, >= 1); 0 means 1024
 * @param fn    completion handler (NULL: completions are refused -EINVAL)
 * @param arg   its argument
 * @return 0, -EINVAL, -EEXIST (already has one), -ENOMEM.
 */
int ewyk_net_inbox_create(struct ewyk_net_shard *s, uint32_t size,
	ewyk_net_completion_fn fn, void *arg);

/**
 * Reserve one slot of the inbox for a later ewyk_net_inbox_complete() with
 * @p reserved set. Any lcore or thread.
 *
 * @param s  the shard
 * @return 0, or -ENOBUFS when every slot is taken or reserved (counted),
 *   -EINVAL without an inbox.
 */
int ewyk_net_inbox_reserve(struct ewyk_net_shard *s);

/**
 * Give back a reserved slot that will not be used (e.g. the task lost its
 * claim to the deadline and has nothing to deliver).
 *
 * @param s  the shard
 */
void ewyk_net_inbox_unreserve(struct ewyk_net_shard *s);

/**
 * Post the completion of a dispatched task. Any lcore or thread.
 *
 * @param s         the shard
 * @param ticket    passed to the completion handler
 * @param result    passed to the completion handler (ownership passes)
 * @param reserved  1: uses a slot taken by ewyk_net_inbox_reserve(), never
 *                  fails; 0: may fail when full
 * @return 0, -ENOBUFS (full, only when @p reserved is 0: the caller keeps
 *   @p result), -EINVAL (no inbox or no completion handler).
 */
int ewyk_net_inbox_complete(struct ewyk_net_shard *s, uint64_t ticket,
	void *result, int reserved);

/**
 * Post a function to run on the holder. Any lcore or thread.
 *
 * @param s    the shard
 * @param fn   the function
 * @param arg  its argument
 * @return 0, -ENOBUFS when full, -EINVAL.
 */
int ewyk_net_inbox_call(struct ewyk_net_shard *s, ewyk_net_call_fn fn,
	void *arg);

/**
 * Apply up to @p max waiting messages of the shard's message inbox, in
 * order per sender (the frame inbox is drained by ewyk_net_poll()). Token
 * holder only: the loop's "drain the message inbox" step.
 *
 * @param s    the shard
 * @param max  most messages to apply
 * @return the number applied.
 */
unsigned int ewyk_net_msg_inbox_drain(struct ewyk_net_shard *s,
	unsigned int max);

/**
 * Read the counters of a shard's message inbox. Any thread.
 *
 * @param s   the shard
 * @param st  filled in (zeroes without an inbox)
 * @return 0, or -EINVAL.
 */
int ewyk_net_inbox_stats_get(const struct ewyk_net_shard *s,
	struct ewyk_net_inbox_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* EWYK_NET_INBOX_H */
