/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_TWHEEL_H
#define EWYK_TWHEEL_H

/**
 * @file
 * ewyk per-lcore hierarchical timer wheel.
 *
 * One wheel per shard. It is never shared: only the lcore that currently
 * works the shard may call any function on it (no locks, no atomics).
 *
 * Time is in TSC cycles, read once per poll loop by the caller
 * (rte_rdtsc()) and passed in. Internally the wheel counts ticks of
 * 2^tick_shift cycles (default: the smallest power of two >= 1 us, so a tick
 * is 1-2 us).
 *
 * Structure: EWYK_TWHEEL_LEVELS levels of 64 slots, each level with a 64-bit
 * occupancy bitmap; level l has slots of 64^l ticks. With a 1 us tick the
 * levels reach 64 us, 4 ms, 262 ms, 16.8 s, 17.9 min, 19.1 h and 50.9 days;
 * anything further is parked in the top level and re-placed when it comes
 * up. When a slot of level l > 0 comes due, its timers that are not due yet
 * cascade down to finer levels.
 *
 * Slack. Cascading down to the exact tick costs one more touch of the timer
 * per level. A wheel may instead let a timer fire a little late: with slack
 * shift k (default EWYK_TWHEEL_SLACK_DEFAULT = 3), a timer whose delay is at
 * least 2^k slots of its level is put in the slot that starts at or just
 * after its expiry and fires from there without cascading, at most
 * delay / 2^k late (12.5% by default, as Linux's timer wheel). Shorter
 * timers, and every timer of a wheel made with EWYK_TWHEEL_SLACK_EXACT,
 * cascade to the exact tick.
 *
 * Timers are intrusive: struct ewyk_twheel_timer (32 bytes) lives in the
 * user's object. Arm, re-arm and cancel are O(1). Re-arming to a later
 * expiry only stores the new expiry; the timer is re-placed lazily when the
 * slot it sits in comes up (TCP re-arms its RTO on every ACK).
 *
 * Timing guarantee. Let T = 2^tick_shift cycles and c = floor(n / T), n
 * being the now of the latest advance() call when the timer is armed or
 * re-armed (of the running call, when armed from a callback; start_tsc
 * before the first call). A timer armed for expiry E has the due tick
 * x = max(ceil(E / T), c + 1) and the allowed lateness L = 0 on an exact
 * wheel, L = floor((x - c) / 2^k) ticks otherwise. Its callback runs in
 * the first call of ewyk_twheel_advance() whose @p now is >= y * T for some
 * y with x <= y <= x + L, and never in a call whose now < E (never early).
 * So it runs less than T cycles plus (E - n) / 2^k after E, plus however
 * long the caller waits between two advance() calls, unless max_callbacks
 * defers it to a later call. A timer armed for a time already due runs in
 * the first advance() of a later tick (a callback re-arming itself "now"
 * cannot loop).
 *
 * Callbacks run inside ewyk_twheel_advance() and may arm, re-arm or cancel
 * any timer of the wheel, themselves included. A timer is no longer pending
 * when its callback starts.
 */

#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_branch_prediction.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bits of tick per level (64 slots). */
#define EWYK_TWHEEL_LEVEL_BITS 6
/** Slots per level. */
#define EWYK_TWHEEL_SLOTS (1u << EWYK_TWHEEL_LEVEL_BITS)
/** Number of levels: 42 bits of ticks, 50.9 days at a 1 us tick. */
#define EWYK_TWHEEL_LEVELS 7
/**
 * Lists per slot. Timers of a slot are spread over this many lists (in
 * turn), and a slot that comes up is walked one node of each list in turn,
 * so that the cache misses of cold nodes overlap instead of following one
 * another down a single chain. A power of two.
 */
#define EWYK_TWHEEL_WAYS 4
/** Distinct callback functions one wheel can hold (see ewyk_twheel_arm()). */
#define EWYK_TWHEEL_MAX_CBS 63
/** Smallest and largest accepted tick_shift. */
#define EWYK_TWHEEL_MIN_SHIFT 8
#define EWYK_TWHEEL_MAX_SHIFT 30
/** Default slack shift: fire at most delay / 8 late (see file comment). */
#define EWYK_TWHEEL_SLACK_DEFAULT 3
/** Largest slack shift accepted. */
#define EWYK_TWHEEL_MAX_SLACK 16
/** slack_shift value for an exact wheel: cascade down to the tick. */
#define EWYK_TWHEEL_SLACK_EXACT 255
/** Bits of expiry tick in a node (private layout, see twheel.c). */
#define EWYK_TWHEEL_TICK_BITS 54
/** Longest wheel name, terminating NUL included. */
#define EWYK_TWHEEL_NAMESIZE 24

struct ewyk_twheel;
struct ewyk_twheel_timer;

/**
 * Timer callback. Runs on the wheel's lcore inside ewyk_twheel_advance().
 *
 * @param w
 *   The wheel; the callback may arm, re-arm or cancel any of its timers.
 * @param t
 *   The timer that expired; it is no longer pending.
 * @param arg
 *   The argument given to ewyk_twheel_arm().
 */
typedef void (*ewyk_twheel_cb_t)(struct ewyk_twheel *w,
	struct ewyk_twheel_timer *t, void *arg);

/**
 * Intrusive timer node, embedded in the user's object. 32 bytes.
 * Initialise with ewyk_twheel_timer_init() (or zero it); its fields are
 * private to the wheel.
 */
struct ewyk_twheel_timer {
	struct ewyk_twheel_timer *next; /**< private: next in slot list */
	struct ewyk_twheel_timer *
		*pprev; /**< private: link to us; NULL = idle */
	uint64_t word;  /**< private: expiry tick, placement, callback index */
	void *arg;      /**< private: callback argument */
};

/** Parameters of ewyk_twheel_create() and ewyk_twheel_init(). */
struct ewyk_twheel_params {
	/** Name (telemetry, logs). Required by create, optional for init. */
	const char *name;
	/** NUMA socket for create(); SOCKET_ID_ANY allowed. Ignored by init. */
	int socket_id;
	/**
	 * log2 of the tick in TSC cycles, EWYK_TWHEEL_MIN_SHIFT to
	 * EWYK_TWHEEL_MAX_SHIFT; 0 picks the default: the smallest power of
	 * two of cycles >= 1 us.
	 */
	unsigned int tick_shift;
	/** The wheel's start time in TSC cycles; 0 means rte_rdtsc(). */
	uint64_t start_tsc;
	/**
	 * Slack shift k: a timer may fire up to delay / 2^k late to save
	 * cascades. 0 picks EWYK_TWHEEL_SLACK_DEFAULT; 1 to
	 * EWYK_TWHEEL_MAX_SLACK; EWYK_TWHEEL_SLACK_EXACT for an exact wheel
	 * (late by less than one tick).
	 */
	unsigned int slack_shift;
};

/** Counters of one wheel (see ewyk_twheel_stats_get()). */
struct ewyk_twheel_stats {
	uint64_t armed;     /**< arm() calls */
	uint64_t rearmed;   /**< rearm() calls */
	uint64_t cancelled; /**< cancel() calls that stopped a pending timer */
	uint64_t fired;     /**< callbacks run */
	uint64_t
		cascaded; /**< timers moved to a finer level (incl. lazy re-arm) */
	uint64_t pending; /**< timers pending now */
};

/**
 * The wheel. Its fields are private; the structure is public only so that
 * ewyk_twheel_advance() can be inline and a wheel can be embedded in a shard
 * (ewyk_twheel_init()).
 */
struct ewyk_twheel {
	/* Hot: read by the inline advance() fast path. */
	uint64_t next_due; /**< no work before this TSC (a lower bound) */
	uint64_t now;      /**< now of the current or last advance() */
	uint64_t elapsed;  /**< current tick: all earlier ticks are processed */
	uint32_t shift;    /**< tick_shift */
	uint32_t slack;    /**< slack shift, 0 = exact */
	uint32_t count;    /**< pending timers */
	uint32_t ncbs;     /**< callbacks in cbs[] (index 0 unused) */
	uint32_t last_cb;  /**< index of the callback last armed */
	uint32_t rr;       /**< list of a slot the next insert goes to */
	/** Timers taken from a slot, to run or re-place (one per list). */
	struct ewyk_twheel_timer *due[EWYK_TWHEEL_WAYS];
	uint64_t bitmap[EWYK_TWHEEL_LEVELS]; /**< occupied slots per level */
	struct ewyk_twheel_stats stats;      /**< counters (pending unused) */
	void *te;           /**< registration (telemetry), NULL if none */
	uint32_t allocated; /**< set by create(): free() releases the memory */
	uint32_t holder;    /**< lcore id + 1 of the recorded holder, 0: none */
	char name[EWYK_TWHEEL_NAMESIZE];
	ewyk_twheel_cb_t cbs[EWYK_TWHEEL_MAX_CBS + 1]; /**< callback table */
	/** Slot list heads. */
	struct ewyk_twheel_timer
		*slots[EWYK_TWHEEL_LEVELS][EWYK_TWHEEL_SLOTS][EWYK_TWHEEL_WAYS];
} __rte_cache_aligned;

/**
 * Create a wheel in memory of the given NUMA socket (rte_zmalloc_socket).
 *
 * @param params
 *   Name (required, unique among created and named wheels), socket, tick
 *   and start time.
 * @return
 *   The wheel, or NULL with rte_errno set: EINVAL (NULL params or name, bad
 *   tick_shift or slack_shift, name too long), EEXIST (name in use), ENOSPC
 *   (512 named wheels registered already), ENOMEM.
 */
struct ewyk_twheel *ewyk_twheel_create(const struct ewyk_twheel_params *params);

/**
 * Initialise a wheel in caller-provided memory (e.g. inside a shard).
 *
 * @param w
 *   Memory for the wheel (sizeof(struct ewyk_twheel), cache aligned).
 * @param params
 *   As for ewyk_twheel_create(); name may be NULL (then the wheel is not
 *   visible in telemetry); socket_id is ignored.
 * @return
 *   0, or -EINVAL (NULL argument, bad tick_shift or slack_shift, name too
 *   long), -EEXIST (name in use), -ENOSPC (512 named wheels registered
 *   already), -ENOMEM (registration failed).
 */
int ewyk_twheel_init(struct ewyk_twheel *w,
	const struct ewyk_twheel_params *params);

/**
 * Release a wheel made by ewyk_twheel_create() or ewyk_twheel_init().
 * Pending timers are dropped without running: each is left idle
 * (ewyk_twheel_pending() returns 0) so their owners may free them. Memory
 * from create() is freed; memory given to init() is left to its owner.
 *
 * @param w
 *   The wheel; NULL is a no-op.
 */
void ewyk_twheel_free(struct ewyk_twheel *w);

/**
 * Initialise a timer node: idle, no callback.
 *
 * @param t
 *   The node.
 */
static inline void
ewyk_twheel_timer_init(struct ewyk_twheel_timer *t)
{
	t->next = NULL;
	t->pprev = NULL;
	t->word = 0;
	t->arg = NULL;
}

/**
 * Whether a timer is pending (armed and its callback not yet started).
 *
 * @param t
 *   The node.
 * @return
 *   1 if pending, 0 if idle.
 */
static inline int
ewyk_twheel_pending(const struct ewyk_twheel_timer *t)
{
	return t->pprev != NULL;
}

/**
 * Arm a timer: run @p cb(@p w, @p t, @p arg) once @p expiry_tsc has passed.
 * If the timer is already pending it is moved to the new expiry and its
 * callback and argument replaced. O(1).
 *
 * The wheel keeps a small table of callback functions
 * (EWYK_TWHEEL_MAX_CBS distinct functions per wheel); the node stores an
 * index into it, which is how the node fits in 32 bytes.
 *
 * @param w
 *   The wheel (the node must not be pending on another wheel).
 * @param t
 *   The node, initialised by ewyk_twheel_timer_init().
 * @param expiry_tsc
 *   Absolute expiry in TSC cycles. A time already due makes the timer run
 *   at the start of the next tick.
 * @param cb
 *   Callback, not NULL.
 * @param arg
 *   Its argument.
 * @return
 *   0, or -EINVAL (NULL w, t or cb), -ENOSPC (callback table full).
 */
int ewyk_twheel_arm(struct ewyk_twheel *w, struct ewyk_twheel_timer *t,
	uint64_t expiry_tsc, ewyk_twheel_cb_t cb, void *arg);

/**
 * Latest time at which a pending timer comes up as it is placed now: its
 * expiry rounded up to a tick, or, for a node that slack placed in a later
 * slot, that slot's start. A caller that multiplexes several deadlines over
 * one node can leave the node where it is for any deadline at or after
 * this time, and move it on when it comes up early. A node still in a
 * coarse slot that starts before its expiry is placed again when that slot
 * comes up, and slack may then round it up, within the timing guarantee
 * (see ewyk_twheel_due_bound()).
 *
 * @param w
 *   The wheel.
 * @param t
 *   A pending node (ewyk_twheel_pending()).
 * @return
 *   TSC cycles; UINT64_MAX for a node that is not pending.
 */
uint64_t ewyk_twheel_due_by(const struct ewyk_twheel *w,
	const struct ewyk_twheel_timer *t);

/**
 * Upper bound, computed before the call, of when a timer armed or
 * re-armed now (ewyk_twheel_arm() or ewyk_twheel_rearm() before the next
 * advance()) for @p expiry_tsc will come up: the timing guarantee's
 * (x + L) * T of the file comment, rounded up in TSC. It bounds
 * ewyk_twheel_due_by() of the node right after that call, whatever slot
 * the node keeps (a node moved later keeps its first slot only within the
 * new delay's slack), and every later cascade of it too (each rounds by
 * the slack of a shorter remaining delay). Inline, a few instructions: a
 * caller that only needs "comes up by D" compares this with D and asks
 * ewyk_twheel_due_by() only when it is larger.
 *
 * @param w
 *   The wheel.
 * @param expiry_tsc
 *   The expiry about to be armed, TSC cycles.
 * @return
 *   TSC cycles; UINT64_MAX when the sum would overflow.
 */
static inline uint64_t
ewyk_twheel_due_bound(const struct ewyk_twheel *w, uint64_t expiry_tsc)
{
	uint64_t n = w->now;
	uint64_t e = expiry_tsc > n ? expiry_tsc : n;
	uint64_t tk = UINT64_C(1) << w->shift;

	if (unlikely(e > (UINT64_MAX >> 2)))
		return UINT64_MAX;
	/* x * T < e + T and (x - c) * T < e - n + 2T (c * T > n - T) */
	if (w->slack == 0)
		return e + tk;
	return e + tk + ((e - n + 2 * tk) >> w->slack);
}

/**
 * Change a timer's expiry, keeping its callback and argument. If the timer
 * is idle (it fired or was cancelled) it is armed again. O(1): a later
 * expiry is only stored (the timer is re-placed lazily when the slot it
 * sits in comes up); an earlier one moves the node.
 *
 * @param w
 *   The wheel.
 * @param t
 *   A node armed at least once on @p w.
 * @param expiry_tsc
 *   New absolute expiry in TSC cycles.
 * @return
 *   0, or -EINVAL (NULL argument, or the node was never armed).
 */
int ewyk_twheel_rearm(struct ewyk_twheel *w, struct ewyk_twheel_timer *t,
	uint64_t expiry_tsc);

/**
 * Stop a pending timer; its callback will not run. O(1). The node keeps its
 * callback and argument (ewyk_twheel_rearm() can arm it again).
 *
 * @param w
 *   The wheel the timer is pending on.
 * @param t
 *   The node.
 * @return
 *   0 if the timer was pending and is now stopped, -ENOENT if it was idle,
 *   -EINVAL on a NULL argument.
 */
int ewyk_twheel_cancel(struct ewyk_twheel *w, struct ewyk_twheel_timer *t);

/**
 * Slow path of ewyk_twheel_advance(); do not call directly.
 *
 * @param w
 *   The wheel.
 * @param now
 *   Current TSC.
 * @param max_callbacks
 *   Cap on callbacks run, 0 for none.
 * @return
 *   Callbacks run.
 */
unsigned int ewyk_twheel_advance_slow(struct ewyk_twheel *w, uint64_t now,
	unsigned int max_callbacks);

/**
 * Move the wheel to @p now and run the callback of every timer due by then
 * (see the timing guarantee in the file comment). Call it once per poll
 * loop with the loop's TSC. When nothing is due it costs one compare
 * (inline). After a long stall it catches up by jumping over empty slots
 * with the bitmaps, not tick by tick.
 *
 * @param w
 *   The wheel.
 * @param now
 *   Current TSC (rte_rdtsc()); must not go backwards.
 * @param max_callbacks
 *   Run at most this many callbacks in this call (0: no cap). Timers left
 *   over run in the next call.
 * @return
 *   Number of callbacks run.
 */
static inline unsigned int
ewyk_twheel_advance(struct ewyk_twheel *w, uint64_t now,
	unsigned int max_callbacks)
{
	if (likely(now < w->next_due)) {
		w->now = now;
		return 0;
	}
	return ewyk_twheel_advance_slow(w, now, max_callbacks);
}

/**
 * Earliest TSC at which ewyk_twheel_advance() may have a callback to run.
 * It is <= the earliest pending expiry (timers parked in coarse slots or
 * re-armed later count from the start of their slot), so sleeping until it
 * never misses a timer.
 *
 * @param w
 *   The wheel.
 * @return
 *   The TSC, or UINT64_MAX when no timer is pending.
 */
uint64_t ewyk_twheel_next_expiry(struct ewyk_twheel *w);

/**
 * Number of pending timers.
 *
 * @param w
 *   The wheel.
 * @return
 *   The count.
 */
static inline unsigned int
ewyk_twheel_count(const struct ewyk_twheel *w)
{
	return w->count;
}

/**
 * The @p now of the current (inside a callback) or last advance() call.
 *
 * @param w
 *   The wheel.
 * @return
 *   TSC cycles.
 */
static inline uint64_t
ewyk_twheel_now(const struct ewyk_twheel *w)
{
	return w->now;
}

/**
 * Tick length in TSC cycles (2^tick_shift).
 *
 * @param w
 *   The wheel.
 * @return
 *   Cycles per tick.
 */
static inline uint64_t
ewyk_twheel_tick_cycles(const struct ewyk_twheel *w)
{
	return UINT64_C(1) << w->shift;
}

/**
 * Expiry a timer will be treated as having: its expiry rounded up to a tick.
 *
 * @param w
 *   The wheel.
 * @param t
 *   A node armed at least once.
 * @return
 *   TSC cycles (meaningless for a never-armed node).
 */
static inline uint64_t
ewyk_twheel_timer_expiry(const struct ewyk_twheel *w,
	const struct ewyk_twheel_timer *t)
{
	return (t->word & ((UINT64_C(1) << EWYK_TWHEEL_TICK_BITS) - 1))
		<< w->shift;
}

/**
 * Read a wheel's counters. Safe from any thread (values may be slightly
 * stale while the owner runs).
 *
 * @param w
 *   The wheel.
 * @param stats
 *   Filled in.
 * @return
 *   0, or -EINVAL on a NULL argument.
 */
int ewyk_twheel_stats_get(const struct ewyk_twheel *w,
	struct ewyk_twheel_stats *stats);

/**
 * Record the calling lcore as the one that owns the wheel from now on (the
 * token holder of the shard the wheel belongs to). From then on the
 * wheel's arm, re-arm, cancel and advance calls, and the owner-side calls
 * of a lib/purgatory built on it, RTE_ASSERT (debug builds,
 * -DRTE_ENABLE_ASSERT) that they run on the recorded lcore. A wheel
 * nobody ever held is not checked.
 *
 * @param w
 *   The wheel.
 */
void ewyk_twheel_hold(struct ewyk_twheel *w);

/**
 * Forget the holder (production left this lcore): every owner-only call
 * asserts until the next ewyk_twheel_hold().
 *
 * @param w
 *   The wheel.
 */
void ewyk_twheel_release(struct ewyk_twheel *w);

/**
 * Whether the calling lcore may make owner-only calls on a wheel.
 *
 * @param w
 *   The wheel.
 * @return
 *   1 if the wheel is NULL, was never held or is held by the calling
 *   lcore, else 0.
 */
int ewyk_twheel_held_here(const struct ewyk_twheel *w);

/**
 * Write the counters of every registered timer wheel as Prometheus text
 * exposition (format 0.0.4): ewyk_twheel_<name>_total for a counter, ewyk_twheel_<name> for a gauge (pending), one sample per object labelled
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
int ewyk_twheel_prometheus(char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* EWYK_TWHEEL_H */
