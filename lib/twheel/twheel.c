/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hierarchical timer wheel with cascading and lazy re-arm.
 *
 * Placement. The wheel's current tick is w->elapsed. A timer due at tick x
 * (x > elapsed) goes to level l = (index of the highest bit in which x and
 * elapsed differ) / 6, slot (x >> 6l) & 63: the coarsest digit in which it
 * differs from "now". Its slot then starts at x with the low 6l bits
 * cleared, which is > elapsed, and no slot of level l at or before the
 * current digit is ever occupied (except while being processed). Timers
 * beyond the top level's range are parked in the top level's last slot.
 *
 * Processing. advance() repeatedly finds the occupied slot with the earliest
 * start over all levels (a rotate and a count-trailing-zeros per level),
 * moves the clock to that start, and moves the slot's lists to w->due[].
 * Each timer popped from w->due[] either fires (its tick <= elapsed) or is
 * placed again relative to the new elapsed, i.e. cascades to a finer
 * level.
 *
 * Ways. A slot is EWYK_TWHEEL_WAYS lists, filled in turn (w->rr). Running
 * a slot pops one node of each list in turn: popping a node touches the
 * next node of its list (its pprev), so that node's cache miss is in
 * flight while the nodes of the other lists are handled. With one list,
 * the misses of a cold slot follow one another down the chain (one full
 * memory latency per timer at 1e6 pending); with four, about four
 * overlap. A slot is empty (its bitmap bit clear) when all its lists are.
 * Timers of one slot run in no particular order.
 *
 * A timer re-armed to a later expiry was left where it was; it simply gets
 * placed again when its old slot comes up. Empty stretches of time cost
 * nothing: the bitmaps jump straight to the next occupied slot.
 *
 * Slack. With slack shift k, a timer at level l > 0 whose tick would be
 * rounded up to the next level-l slot boundary by at most (delay >> k)
 * ticks goes into that slot instead: it fires when the slot comes up,
 * without cascading. The node records l (its "rounded level") so that a
 * lazy re-arm can tell where its slot starts.
 *
 * w->next_due caches the start (in TSC) of the earliest occupied slot, so
 * an advance() with nothing to do is one compare. It is a lower bound:
 * cancel does not raise it, arm lowers it.
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_debug.h>
#include <rte_lcore.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_string_fns.h>

#include "twheel_private.h"

RTE_LOG_REGISTER(ewyk_twheel_logtype, ewyk.twheel, INFO);

#define LVL_BITS EWYK_TWHEEL_LEVEL_BITS
#define LVL_MASK (EWYK_TWHEEL_SLOTS - 1)
#define NLEVELS EWYK_TWHEEL_LEVELS
#define TOP_SHIFT (LVL_BITS * (NLEVELS - 1))
#define WHEEL_BITS (LVL_BITS * NLEVELS)
#define WAYS EWYK_TWHEEL_WAYS
#define WAYS_MASK (WAYS - 1)

static_assert((WAYS & WAYS_MASK) == 0, "EWYK_TWHEEL_WAYS: a power of two");

static_assert(sizeof(struct ewyk_twheel_timer) <= 32,
	"timer node must stay within 32 bytes");
static_assert(EWYK_TWHEEL_MAX_CBS < 128, "callback index is 7 bits");
static_assert(NLEVELS < 8, "rounded level is 3 bits");

static inline uint64_t
tw_tick(const struct ewyk_twheel_timer *t)
{
	return t->word & TW_TICK_MASK;
}

/* Tick of a TSC, rounded up: a timer never fires before its expiry. */
static inline uint64_t
tw_tsc_to_tick(const struct ewyk_twheel *w, uint64_t tsc)
{
	uint64_t tick = tsc >> w->shift;

	if ((tsc & ((UINT64_C(1) << w->shift) - 1)) != 0)
		tick++;
	return RTE_MIN(tick, TW_TICK_MASK);
}

static inline uint64_t
tw_tick_to_tsc(const struct ewyk_twheel *w, uint64_t tick)
{
	if (tick > (UINT64_MAX >> w->shift))
		return UINT64_MAX;
	return tick << w->shift;
}

static inline void
tw_set_count(struct ewyk_twheel *w, uint32_t count)
{
	__atomic_store_n(&w->count, count, __ATOMIC_RELAXED);
}

/* Insert t at the head of one of the lists of slot (lvl, slot), in turn. */
static inline void
tw_slot_insert(struct ewyk_twheel *w, struct ewyk_twheel_timer *t,
	unsigned int lvl, unsigned int slot)
{
	struct ewyk_twheel_timer **head =
		&w->slots[lvl][slot][w->rr++ & WAYS_MASK];
	struct ewyk_twheel_timer *first = *head;

	t->next = first;
	if (first != NULL)
		first->pprev = &t->next;
	*head = t;
	t->pprev = head;
	w->bitmap[lvl] |= UINT64_C(1) << slot;
}

/*
 * Put t (tick > w->elapsed; t->word holds tick) in its slot and lower
 * next_due if needed. With slack, a timer far enough out goes to the slot
 * starting just after its tick (recorded in the node's rounded level) and
 * will fire from there without cascading.
 */
static inline void
tw_place(struct ewyk_twheel *w, struct ewyk_twheel_timer *t, uint64_t tick)
{
	uint64_t diff = (tick ^ w->elapsed) | LVL_MASK;
	unsigned int lvl = (63 - __builtin_clzll(diff)) / LVL_BITS;
	uint64_t rlvl = 0;
	unsigned int slot;
	uint64_t start;
	uint64_t tsc;

	if (likely(lvl < NLEVELS)) {
		unsigned int sh = lvl * LVL_BITS;

		start = tick & ~((UINT64_C(1) << sh) - 1);
		if (lvl > 0 && w->slack != 0 && start != tick) {
			uint64_t g = UINT64_C(1) << sh;
			uint64_t now_tick = w->now >> w->shift;
			uint64_t up = start + g;

			/* late by up - tick <= delay / 2^slack, and the
			 * rounded slot is still ahead on this level
			 */
			if (tick > now_tick &&
				((tick - now_tick) >> w->slack) >= up - tick &&
				((up ^ w->elapsed) >> (sh + LVL_BITS)) == 0) {
				start = up;
				rlvl = lvl;
			}
		}
		slot = (start >> sh) & LVL_MASK;
	} else {
		/* Past the end of the top level's current turn. */
		unsigned int cur = (w->elapsed >> TOP_SHIFT) & LVL_MASK;

		lvl = NLEVELS - 1;
		slot = (tick >> TOP_SHIFT) & LVL_MASK;
		if (tick - w->elapsed < (UINT64_C(1) << WHEEL_BITS) &&
			slot != cur) {
			/* Within one turn: its own slot, in the next turn. */
			start = tick & ~((UINT64_C(1) << TOP_SHIFT) - 1);
		} else {
			/* Further: park in the slot before the current one,
			 * almost a full turn ahead; re-placed when it comes.
			 */
			slot = (cur + LVL_MASK) & LVL_MASK;
			start = (w->elapsed &
					~((UINT64_C(1) << WHEEL_BITS) - 1)) +
				((uint64_t)(cur + LVL_MASK) << TOP_SHIFT);
		}
	}
	t->word = (t->word & ~TW_RLVL_MASK) | (rlvl << TW_RLVL_SHIFT);
	tw_slot_insert(w, t, lvl, slot);
	tsc = tw_tick_to_tsc(w, start);
	if (tsc < w->next_due)
		w->next_due = tsc;
}

/* Remove t from whatever list it is on; clear its slot's bit if emptied. */
static inline void
tw_unlink(struct ewyk_twheel *w, struct ewyk_twheel_timer *t)
{
	struct ewyk_twheel_timer **pp = t->pprev;
	struct ewyk_twheel_timer *n = t->next;

	*pp = n;
	if (n != NULL) {
		n->pprev = pp;
	} else {
		uintptr_t off = (uintptr_t)pp - (uintptr_t)&w->slots[0][0][0];

		/* pp is a slot's list head (not a node's next, not w->due):
		 * the slot is empty if its other lists are.
		 */
		if (off < sizeof(w->slots)) {
			unsigned int idx = off / sizeof(w->slots[0][0]);
			struct ewyk_twheel_timer *const *h = w->slots[idx /
				EWYK_TWHEEL_SLOTS][idx % EWYK_TWHEEL_SLOTS];
			unsigned int i;

			for (i = 0; i < WAYS; i++)
				if (h[i] != NULL)
					break;
			if (i == WAYS)
				w->bitmap[idx / EWYK_TWHEEL_SLOTS] &= ~(
					UINT64_C(1)
					<< (idx % EWYK_TWHEEL_SLOTS));
		}
	}
	t->next = NULL;
	t->pprev = NULL;
}

/* Index of cb in the wheel's table, adding it; 0 if the table is full. */
static unsigned int
tw_cb_index(struct ewyk_twheel *w, ewyk_twheel_cb_t cb)
{
	unsigned int i;

	for (i = 1; i <= w->ncbs; i++)
		if (w->cbs[i] == cb)
			return i;
	if (w->ncbs >= EWYK_TWHEEL_MAX_CBS)
		return 0;
	w->cbs[++w->ncbs] = cb;
	return w->ncbs;
}

/*
 * Tick for an expiry: rounded up, and after the tick of the latest now
 * (which is >= elapsed), so a timer armed in the past, even from a
 * callback, waits for the next advance() of a later tick.
 */
static inline uint64_t
tw_expiry_tick(const struct ewyk_twheel *w, uint64_t expiry_tsc)
{
	uint64_t tick = tw_tsc_to_tick(w, expiry_tsc);
	uint64_t min = (w->now >> w->shift) + 1;

	return tick < min ? min : tick;
}

/*
 * Outside advance(), when nothing is due before now (the fast path left
 * the clock behind), move the wheel's tick up to now so that new timers
 * are placed relative to the present: fewer cascades.
 */
static inline void
tw_sync(struct ewyk_twheel *w)
{
	if (w->now < w->next_due) {
		uint64_t nt = w->now >> w->shift;

		if (nt > w->elapsed)
			w->elapsed = nt;
	}
}

int
ewyk_twheel_arm(struct ewyk_twheel *w, struct ewyk_twheel_timer *t,
	uint64_t expiry_tsc, ewyk_twheel_cb_t cb, void *arg)
{
	unsigned int idx;
	uint64_t tick;

	RTE_ASSERT(ewyk_twheel_held_here(w));

	if (unlikely(w == NULL || t == NULL || cb == NULL))
		return -EINVAL;
	idx = w->last_cb;
	if (unlikely(w->cbs[idx] != cb)) {
		idx = tw_cb_index(w, cb);
		if (idx == 0) {
			TWHEEL_LOG(ERR, "%s: more than %u callbacks", w->name,
				EWYK_TWHEEL_MAX_CBS);
			return -ENOSPC;
		}
		w->last_cb = idx;
	}
	tick = tw_expiry_tick(w, expiry_tsc);
	tw_sync(w);
	if (t->pprev != NULL)
		tw_unlink(w, t);
	else
		tw_set_count(w, w->count + 1);
	t->word = tick | ((uint64_t)idx << TW_CB_SHIFT);
	t->arg = arg;
	tw_place(w, t, tick);
	TW_STAT_ADD(w, armed, 1);
	return 0;
}

int
ewyk_twheel_rearm(struct ewyk_twheel *w, struct ewyk_twheel_timer *t,
	uint64_t expiry_tsc)
{
	uint64_t tick;

	RTE_ASSERT(ewyk_twheel_held_here(w));

	if (unlikely(w == NULL || t == NULL || (t->word >> TW_CB_SHIFT) == 0))
		return -EINVAL;
	tick = tw_expiry_tick(w, expiry_tsc);
	TW_STAT_ADD(w, rearmed, 1);
	if (likely(t->pprev != NULL)) {
		uint64_t old = tw_tick(t);
		unsigned int rl = (t->word & TW_RLVL_MASK) >> TW_RLVL_SHIFT;

		if (likely(tick >= old && rl == 0)) {
			/* Same or later: the node's slot starts no later than
			 * the new expiry; store it and let the slot re-place
			 * the node when it comes up.
			 */
			t->word = (t->word & ~TW_TICK_MASK) | tick;
			return 0;
		}
		if (tick >= old) {
			/* Placed with slack: its slot starts at s, just after
			 * the old tick.
			 */
			uint64_t g = UINT64_C(1) << (rl * LVL_BITS);
			uint64_t s = (old + g - 1) & ~(g - 1);
			uint64_t now_tick = w->now >> w->shift;

			if (tick >= s) {
				t->word = (t->word &
						  ~(TW_TICK_MASK |
							  TW_RLVL_MASK)) |
					tick;
				return 0;
			}
			if (s - tick <= ((tick - now_tick) >> w->slack)) {
				t->word = (t->word & ~TW_TICK_MASK) | tick;
				return 0;
			}
		}
		tw_unlink(w, t);
	} else {
		tw_set_count(w, w->count + 1);
	}
	tw_sync(w);
	t->word = (t->word & ~TW_TICK_MASK) | tick;
	tw_place(w, t, tick);
	return 0;
}

uint64_t
ewyk_twheel_due_by(const struct ewyk_twheel *w,
	const struct ewyk_twheel_timer *t)
{
	uint64_t tick;
	unsigned int rl;

	if (w == NULL || t == NULL || t->pprev == NULL)
		return UINT64_MAX;
	tick = tw_tick(t);
	rl = (t->word & TW_RLVL_MASK) >> TW_RLVL_SHIFT;
	if (rl != 0) {
		/* Placed with slack in the slot starting just after it. */
		uint64_t g = UINT64_C(1) << (rl * LVL_BITS);

		tick = (tick + g - 1) & ~(g - 1);
	}
	return tw_tick_to_tsc(w, tick);
}

int
ewyk_twheel_cancel(struct ewyk_twheel *w, struct ewyk_twheel_timer *t)
{
	RTE_ASSERT(ewyk_twheel_held_here(w));
	if (unlikely(w == NULL || t == NULL))
		return -EINVAL;
	if (t->pprev == NULL)
		return -ENOENT;
	tw_unlink(w, t);
	tw_set_count(w, w->count - 1);
	TW_STAT_ADD(w, cancelled, 1);
	return 0;
}

/*
 * Earliest occupied slot: returns its start tick (UINT64_MAX if none) and
 * its level in *lvl_out. A slot at the current digit of its level is one
 * whose start has been reached (it starts at or before elapsed).
 */
static inline uint64_t
tw_next_slot(const struct ewyk_twheel *w, unsigned int *lvl_out)
{
	uint64_t best = UINT64_MAX;
	unsigned int lvl;

	for (lvl = 0; lvl < NLEVELS; lvl++) {
		uint64_t bm = w->bitmap[lvl];
		unsigned int sh = lvl * LVL_BITS;
		unsigned int cur, off;
		uint64_t base, start;

		if (bm == 0)
			continue;
		cur = (w->elapsed >> sh) & LVL_MASK;
		/* bit i of the rotated map is slot (cur + i) mod 64 */
		off = __builtin_ctzll(
			(bm >> cur) | (cur != 0 ? bm << (64 - cur) : 0));
		base = w->elapsed & ~((UINT64_C(1) << (sh + LVL_BITS)) - 1);
		start = base + ((uint64_t)(cur + off) << sh);
		if (start < best) {
			best = start;
			*lvl_out = lvl;
		}
	}
	return best;
}

/* Move the lists of the slot of level lvl that starts at tick start to
 * w->due (empty here).
 */
static inline void
tw_take_slot(struct ewyk_twheel *w, unsigned int lvl, uint64_t start)
{
	unsigned int slot = (start >> (lvl * LVL_BITS)) & LVL_MASK;
	struct ewyk_twheel_timer **h = w->slots[lvl][slot];
	unsigned int i;

	w->bitmap[lvl] &= ~(UINT64_C(1) << slot);
	for (i = 0; i < WAYS; i++) {
		struct ewyk_twheel_timer *first = h[i];

		h[i] = NULL;
		w->due[i] = first;
		if (first != NULL)
			first->pprev = &w->due[i];
	}
}

unsigned int
ewyk_twheel_advance_slow(struct ewyk_twheel *w, uint64_t now,
	unsigned int max_callbacks)
{
	unsigned int ran = 0;
	unsigned int cascaded = 0;
	uint64_t target, next;

	RTE_ASSERT(ewyk_twheel_held_here(w));

	/* Time never goes backwards for the wheel. */
	if (unlikely(now < w->now))
		now = w->now;
	w->now = now;
	target = now >> w->shift;
	for (;;) {
		unsigned int lvl = 0;
		unsigned int i = 0, idle = 0;

		/* One node of each due list in turn (nothing is added to them
		 * meanwhile): the next node of a list is touched, its miss in
		 * flight, while the other lists' nodes are handled.
		 */
		while (idle < WAYS) {
			struct ewyk_twheel_timer *t = w->due[i];
			struct ewyk_twheel_timer *n;
			uint64_t tick;

			if (t == NULL) {
				idle++;
				i = (i + 1) & WAYS_MASK;
				continue;
			}
			idle = 0;
			if (unlikely(max_callbacks != 0 &&
				    ran >= max_callbacks)) {
				w->next_due = 0;
				goto out;
			}
			n = t->next;
			w->due[i] = n;
			if (n != NULL)
				n->pprev = &w->due[i];
			i = (i + 1) & WAYS_MASK;
			tick = tw_tick(t);
			if (tick <= w->elapsed) {
				t->next = NULL;
				t->pprev = NULL;
				tw_set_count(w, w->count - 1);
				ran++;
				w->cbs[t->word >> TW_CB_SHIFT](w, t, t->arg);
			} else {
				tw_place(w, t, tick);
				cascaded++;
			}
		}
		next = tw_next_slot(w, &lvl);
		if (next > target)
			break;
		if (next > w->elapsed)
			w->elapsed = next;
		tw_take_slot(w, lvl, next);
	}
	if (target > w->elapsed)
		w->elapsed = target;
	w->next_due = next == UINT64_MAX ? UINT64_MAX : tw_tick_to_tsc(w, next);
out:
	TW_STAT_ADD(w, fired, ran);
	TW_STAT_ADD(w, cascaded, cascaded);
	return ran;
}

uint64_t
ewyk_twheel_next_expiry(struct ewyk_twheel *w)
{
	unsigned int lvl;
	uint64_t next;

	for (lvl = 0; lvl < WAYS; lvl++)
		if (w->due[lvl] != NULL)
			return tw_tick_to_tsc(w, w->elapsed);
	next = tw_next_slot(w, &lvl);
	if (next == UINT64_MAX) {
		w->next_due = UINT64_MAX;
		return UINT64_MAX;
	}
	w->next_due = tw_tick_to_tsc(w, next);
	return w->next_due;
}

static unsigned int
tw_default_shift(void)
{
	uint64_t per_us = rte_get_tsc_hz() / 1000000;
	unsigned int s = EWYK_TWHEEL_MIN_SHIFT;

	while (s < EWYK_TWHEEL_MAX_SHIFT && (UINT64_C(1) << s) < per_us)
		s++;
	return s;
}

int
ewyk_twheel_init(struct ewyk_twheel *w, const struct ewyk_twheel_params *params)
{
	unsigned int shift;
	uint64_t start;
	int ret;

	if (w == NULL || params == NULL)
		return -EINVAL;
	shift = params->tick_shift == 0 ? tw_default_shift() :
					  params->tick_shift;
	if (shift < EWYK_TWHEEL_MIN_SHIFT || shift > EWYK_TWHEEL_MAX_SHIFT) {
		TWHEEL_LOG(ERR, "tick_shift %u out of [%u, %u]", shift,
			EWYK_TWHEEL_MIN_SHIFT, EWYK_TWHEEL_MAX_SHIFT);
		return -EINVAL;
	}
	if (params->slack_shift > EWYK_TWHEEL_MAX_SLACK &&
		params->slack_shift != EWYK_TWHEEL_SLACK_EXACT) {
		TWHEEL_LOG(ERR, "slack_shift %u out of range",
			params->slack_shift);
		return -EINVAL;
	}
	if (params->name != NULL &&
		strnlen(params->name, EWYK_TWHEEL_NAMESIZE) >=
			EWYK_TWHEEL_NAMESIZE)
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	w->shift = shift;
	if (params->slack_shift == EWYK_TWHEEL_SLACK_EXACT)
		w->slack = 0;
	else if (params->slack_shift == 0)
		w->slack = EWYK_TWHEEL_SLACK_DEFAULT;
	else
		w->slack = params->slack_shift;
	start = params->start_tsc != 0 ? params->start_tsc : rte_rdtsc();
	w->elapsed = start >> shift;
	w->now = start;
	w->next_due = UINT64_MAX;
	if (params->name != NULL) {
		rte_strlcpy(w->name, params->name, sizeof(w->name));
		ret = twheel_register(w);
		if (ret < 0)
			return ret;
	}
	return 0;
}

struct ewyk_twheel *
ewyk_twheel_create(const struct ewyk_twheel_params *params)
{
	struct ewyk_twheel *w;
	int ret;

	if (params == NULL || params->name == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	w = rte_zmalloc_socket("ewyk_twheel", sizeof(*w), RTE_CACHE_LINE_SIZE,
		params->socket_id);
	if (w == NULL) {
		TWHEEL_LOG(ERR, "%s: no memory", params->name);
		rte_errno = ENOMEM;
		return NULL;
	}
	ret = ewyk_twheel_init(w, params);
	if (ret < 0) {
		rte_free(w);
		rte_errno = -ret;
		return NULL;
	}
	w->allocated = 1;
	return w;
}

/* Leave every timer on a list idle. */
static void
tw_drop_list(struct ewyk_twheel_timer *t)
{
	while (t != NULL) {
		struct ewyk_twheel_timer *n = t->next;

		t->next = NULL;
		t->pprev = NULL;
		t = n;
	}
}

void
ewyk_twheel_free(struct ewyk_twheel *w)
{
	unsigned int l, s, i;

	if (w == NULL)
		return;
	twheel_unregister(w);
	for (i = 0; i < WAYS; i++) {
		tw_drop_list(w->due[i]);
		w->due[i] = NULL;
	}
	for (l = 0; l < NLEVELS; l++) {
		for (s = 0; s < EWYK_TWHEEL_SLOTS; s++) {
			for (i = 0; i < WAYS; i++) {
				tw_drop_list(w->slots[l][s][i]);
				w->slots[l][s][i] = NULL;
			}
		}
		w->bitmap[l] = 0;
	}
	w->count = 0;
	w->next_due = UINT64_MAX;
	if (w->allocated)
		rte_free(w);
}

int
ewyk_twheel_stats_get(const struct ewyk_twheel *w,
	struct ewyk_twheel_stats *stats)
{
	if (w == NULL || stats == NULL)
		return -EINVAL;
	stats->armed = __atomic_load_n(&w->stats.armed, __ATOMIC_RELAXED);
	stats->rearmed = __atomic_load_n(&w->stats.rearmed, __ATOMIC_RELAXED);
	stats->cancelled = __atomic_load_n(&w->stats.cancelled,
		__ATOMIC_RELAXED);
	stats->fired = __atomic_load_n(&w->stats.fired, __ATOMIC_RELAXED);
	stats->cascaded = __atomic_load_n(&w->stats.cascaded, __ATOMIC_RELAXED);
	stats->pending = __atomic_load_n(&w->count, __ATOMIC_RELAXED);
	return 0;
}

void
ewyk_twheel_hold(struct ewyk_twheel *w)
{
	w->holder = rte_lcore_id() + 1;
}

void
ewyk_twheel_release(struct ewyk_twheel *w)
{
	w->holder = UINT32_MAX;
}

int
ewyk_twheel_held_here(const struct ewyk_twheel *w)
{
	return w == NULL || w->holder == 0 || w->holder == rte_lcore_id() + 1;
}
