/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_PURGATORY_H
#define EWYK_PURGATORY_H

/**
 * @file
 * ewyk purgatory: delayed operations (Kafka's DelayedOperationPurgatory,
 * on a per-shard timer wheel).
 *
 * A delayed operation waits until either
 *  - its condition holds: ewyk_purgatory_check(key) runs the op's
 *    try_complete() for every op watching @p key, or the owner completes it
 *    directly (ewyk_purgatory_try_complete()), or another lcore claims it
 *    (ewyk_purgatory_claim()) and hands it back to the owner through the
 *    shard's completion ring (ewyk_purgatory_finish());
 *  - or its deadline passes on the shard's ewyk_twheel (on_expire()).
 * Whichever comes first wins, exactly once, by one compare-and-swap on the
 * op's state word. Exactly one of on_complete() / on_expire() runs, unless
 * the op is cancelled first (then neither).
 *
 * Threading. A purgatory belongs to one shard: every function except
 * ewyk_purgatory_claim() and ewyk_purgatory_ticket() must be called by the
 * lcore holding the shard (the wheel's owner). ewyk_purgatory_claim() may
 * be called from any lcore.
 *
 * Memory. Ops come from a fixed array allocated at create; the memory of an
 * op stays valid (and is recycled with a new generation) for the life of
 * the purgatory, so a late claim from another lcore on a ticket whose op has
 * already expired and been reused fails cleanly. Watch entries and keys also
 * come from fixed pools: a full purgatory answers ENOSPC, it never grows.
 *
 * Watch lists are purged lazily: completing an op does not touch the lists
 * that watch it. Stale entries are dropped when their key is checked, and
 * all lists are swept when the estimated number of completed-but-watched
 * entries reaches purge_threshold, or when the watch pool runs out.
 */

#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ewyk_twheel;
struct ewyk_purgatory;
struct ewyk_purgatory_op;

/** Longest purgatory name, terminating NUL included. */
#define EWYK_PURGATORY_NAMESIZE 24
/** Most watch keys one op may have. */
#define EWYK_PURGATORY_MAX_KEYS 8

/**
 * Callbacks of a delayed operation. All run on the owner lcore. After
 * on_complete() or on_expire() returns, the op is recycled: do not touch it.
 */
struct ewyk_purgatory_op_ops {
	/**
	 * Condition check, run by ewyk_purgatory_check() for an op watching
	 * the checked key. Return nonzero if the op can complete now (then
	 * on_complete() runs). May be NULL: the op then completes only by
	 * try_complete/claim, or expires.
	 */
	int (*try_complete)(struct ewyk_purgatory_op *op, void *ctx);
	/** The op completed before its deadline. Not NULL. */
	void (*on_complete)(struct ewyk_purgatory_op *op, void *ctx);
	/** The deadline passed first. Not NULL. */
	void (*on_expire)(struct ewyk_purgatory_op *op, void *ctx);
};

/**
 * A handle to one incarnation of an op, safe to hand to another lcore: it
 * stays harmless after the op has expired and its memory been reused.
 */
struct ewyk_purgatory_ticket {
	struct ewyk_purgatory_op *op; /**< the op */
	uint32_t gen;                 /**< its generation when ticketed */
};

/** Parameters of ewyk_purgatory_create(). */
struct ewyk_purgatory_params {
	/** Name (telemetry, logs); required, unique. */
	const char *name;
	/** NUMA socket of the memory; SOCKET_ID_ANY allowed. */
	int socket_id;
	/** The shard's timer wheel for deadlines; required. */
	struct ewyk_twheel *wheel;
	/** Most ops pending at once (>= 1). */
	uint32_t capacity;
	/** Most distinct watched keys at once; 0 means capacity. */
	uint32_t max_keys;
	/** Most watch entries (op, key) at once; 0 means 2 * capacity. */
	uint32_t max_watches;
	/**
	 * Sweep all watch lists when this many completed ops may still be
	 * watched; 0 means max_watches / 4 (at least 1).
	 */
	uint32_t purge_threshold;
};

/** Counters and gauges of one purgatory (ewyk_purgatory_stats_get()). */
struct ewyk_purgatory_stats {
	uint64_t added;      /**< ops added */
	uint64_t completed;  /**< on_complete() run */
	uint64_t expired;    /**< on_expire() run */
	uint64_t cancelled;  /**< ops cancelled */
	uint64_t races_lost; /**< owner-side expiry, completion or cancel
				  that lost the race to a claim */
	uint64_t purges;     /**< full sweeps of the watch lists */
	uint64_t purged;     /**< stale watch entries dropped */
	uint64_t full;       /**< add() refused with ENOSPC */
	uint64_t ops_in_use; /**< gauge: ops not free (pending or claimed) */
	uint64_t watches_in_use; /**< gauge: watch entries in lists */
	uint64_t keys_in_use;    /**< gauge: keys with a watch list */
};

/**
 * Create a purgatory.
 *
 * @param params
 *   See struct ewyk_purgatory_params.
 * @return
 *   The purgatory, or NULL with rte_errno set: EINVAL (NULL params, name or
 *   wheel, zero capacity, name too long), EEXIST (name in use), ENOSPC
 *   (512 purgatories registered already), ENOMEM.
 */
struct ewyk_purgatory *ewyk_purgatory_create(
	const struct ewyk_purgatory_params *params);

/**
 * Free a purgatory. Pending ops are dropped without callbacks and their
 * timers cancelled; outstanding tickets must not be claimed afterwards.
 *
 * @param p
 *   The purgatory; NULL is a no-op.
 */
void ewyk_purgatory_free(struct ewyk_purgatory *p);

/**
 * Add a delayed operation: arm its deadline and watch its keys. The
 * condition is not checked here; check it first if it may already hold.
 *
 * @param p
 *   The purgatory.
 * @param ops
 *   Its callbacks (on_complete and on_expire required); must outlive the op.
 * @param ctx
 *   User context passed to the callbacks.
 * @param deadline_tsc
 *   Absolute deadline in TSC cycles (the wheel's timing guarantee applies).
 * @param keys
 *   Watch keys (may be NULL when nkeys is 0).
 * @param nkeys
 *   Number of keys, at most EWYK_PURGATORY_MAX_KEYS.
 * @return
 *   The op (pending), or NULL with rte_errno set: EINVAL (bad argument),
 *   ENOSPC (no free op, watch entry or key slot).
 */
struct ewyk_purgatory_op *ewyk_purgatory_add(struct ewyk_purgatory *p,
	const struct ewyk_purgatory_op_ops *ops, void *ctx,
	uint64_t deadline_tsc, const uint64_t *keys, unsigned int nkeys);

/**
 * Ticket for the current incarnation of a pending op, to give to another
 * lcore (e.g. with a dispatched blocking task).
 *
 * @param op
 *   A pending op.
 * @return
 *   The ticket.
 */
struct ewyk_purgatory_ticket ewyk_purgatory_ticket(
	const struct ewyk_purgatory_op *op);

/**
 * Claim the completion of an op, from any lcore: one CAS from pending to
 * claimed. The winner MUST then get ewyk_purgatory_finish() called on the
 * owner lcore (typically by posting the ticket and its result on the
 * shard's completion ring); until then the op stays allocated and its
 * deadline no longer matters. A loser drops its result.
 *
 * @param t
 *   The ticket.
 * @return
 *   0 if this caller won, -EALREADY if the op already expired, completed,
 *   was cancelled or claimed (or the ticket is stale), -EINVAL if t.op is
 *   NULL.
 */
int ewyk_purgatory_claim(struct ewyk_purgatory_ticket t);

/**
 * On the owner lcore, finish an op claimed with ewyk_purgatory_claim():
 * cancel its deadline, run on_complete(), recycle it.
 *
 * @param p
 *   The purgatory.
 * @param t
 *   The ticket that won the claim.
 * @return
 *   0, or -EINVAL (NULL argument, op not from @p p, or not claimed under
 *   this ticket).
 */
int ewyk_purgatory_finish(struct ewyk_purgatory *p,
	struct ewyk_purgatory_ticket t);

/**
 * On the owner lcore, complete a pending op now (claim + finish): one CAS;
 * on success its deadline is cancelled and on_complete() runs.
 *
 * @param p
 *   The purgatory.
 * @param op
 *   The op.
 * @return
 *   0 if completed here, -EALREADY if it had already been completed,
 *   claimed, cancelled or had expired, -EINVAL on a bad argument.
 */
int ewyk_purgatory_try_complete(struct ewyk_purgatory *p,
	struct ewyk_purgatory_op *op);

/**
 * On the owner lcore, a watched condition may have changed: run
 * try_complete() of every pending op watching @p key, and complete those
 * for which it returns nonzero. Stale entries of @p key are dropped.
 *
 * @param p
 *   The purgatory.
 * @param key
 *   The key.
 * @return
 *   Number of ops completed.
 */
unsigned int ewyk_purgatory_check(struct ewyk_purgatory *p, uint64_t key);

/**
 * On the owner lcore, abandon a pending op (e.g. its connection closed):
 * one CAS; on success its deadline is cancelled, no callback runs, and the
 * op is recycled.
 *
 * @param p
 *   The purgatory.
 * @param op
 *   The op.
 * @return
 *   0 if cancelled, -EALREADY if it had already been completed, claimed
 *   (its finish is on the way: on_complete will still run) or expired,
 *   -EINVAL on a bad argument.
 */
int ewyk_purgatory_cancel(struct ewyk_purgatory *p,
	struct ewyk_purgatory_op *op);

/**
 * User context of an op.
 *
 * @param op
 *   The op.
 * @return
 *   The ctx given to ewyk_purgatory_add().
 */
void *ewyk_purgatory_op_ctx(const struct ewyk_purgatory_op *op);

/**
 * Number of ops in use (pending, or claimed and awaiting finish).
 *
 * @param p
 *   The purgatory.
 * @return
 *   The count.
 */
unsigned int ewyk_purgatory_count(const struct ewyk_purgatory *p);

/**
 * On the owner lcore, sweep every watch list now, dropping entries of ops
 * that are no longer pending.
 *
 * @param p
 *   The purgatory.
 * @return
 *   Number of stale entries dropped.
 */
unsigned int ewyk_purgatory_purge(struct ewyk_purgatory *p);

/**
 * Read counters and gauges. Safe from any thread (values may be slightly
 * stale while the owner runs).
 *
 * @param p
 *   The purgatory.
 * @param stats
 *   Filled in.
 * @return
 *   0, or -EINVAL on a NULL argument.
 */
int ewyk_purgatory_stats_get(const struct ewyk_purgatory *p,
	struct ewyk_purgatory_stats *stats);

/**
 * Write the counters of every registered purgatory as Prometheus text
 * exposition (format 0.0.4): ewyk_purgatory_<name>_total for a counter, ewyk_purgatory_<name> for a gauge, one sample per object labelled
 * name="<its name>". For an HTTP /metrics page.
 *
 * @param buf
 *   Output; may be NULL when @p size is 0, to learn the length needed.
 * @param size
 *   Size of @p buf. The text is NUL-terminated when @p size > 0, and
 *   truncated when it does not fit, as with snprintf().
 * @return
 *   Length of the whole text (without the NUL), fitting or not;
 *   -ENAMETOOLONG, -ENOMEM.
 */
int ewyk_purgatory_prometheus(char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* EWYK_PURGATORY_H */
