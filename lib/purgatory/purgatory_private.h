/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef PURGATORY_PRIVATE_H
#define PURGATORY_PRIVATE_H

#include <stdint.h>

#include <rte_common.h>
#include <rte_log.h>

#include <ewyk_ctr.h>
#include <ewyk_twheel.h>

#include "ewyk_purgatory.h"

extern int ewyk_purgatory_logtype;

#define PG_LOG(level, fmt, ...)                          \
	rte_log(RTE_LOG_##level, ewyk_purgatory_logtype, \
		"purgatory: " fmt "\n", ##__VA_ARGS__)

/* List terminator for watch and free lists (indices). */
#define PG_NIL UINT32_MAX

/*
 * Op state word: generation in the high 32 bits, state in the low 32. The
 * generation changes each time the op is allocated, so a ticket names one
 * incarnation. Only PENDING -> CLAIMED (any lcore) and PENDING -> DONE
 * (owner) are compare-and-swaps; the rest are owner stores.
 */
enum pg_state {
	PG_FREE = 0,    /* on the free list */
	PG_PENDING = 1, /* waiting: condition, claim or deadline */
	PG_CLAIMED = 2, /* won by ewyk_purgatory_claim(); finish will come */
	PG_DONE = 3,    /* won by the owner; callbacks running */
};

#define PG_WORD(gen, st) (((uint64_t)(gen) << 32) | (uint32_t)(st))
#define PG_GEN(word) ((uint32_t)((word) >> 32))
#define PG_ST(word) ((uint32_t)(word))

/* One delayed operation: exactly one cache line. */
struct ewyk_purgatory_op {
	uint64_t state;                 /* PG_WORD(gen, st); atomic */
	struct ewyk_twheel_timer timer; /* deadline; arg = purgatory */
	const struct ewyk_purgatory_op_ops *ops;
	void *ctx;
	uint32_t nkeys;     /* watch entries it owns */
	uint32_t next_free; /* free-list link */
} __rte_cache_aligned;

/* A watch entry: op (index and generation) in a key's list. */
struct pg_watch {
	uint32_t next;
	uint32_t op;
	uint32_t gen;
};

/* A watched key: open addressing, linear probing; count 0 = empty. */
struct pg_key {
	uint64_t key;
	uint32_t head;  /* first watch entry */
	uint32_t count; /* entries in the list */
};

#define PG_STAT_ADD(p, field, n) ewyk_ctr_add(&(p)->stats.field, (n))

struct ewyk_purgatory {
	struct ewyk_twheel *wheel;
	struct ewyk_purgatory_op *ops; /* capacity entries */
	struct pg_watch *watches;      /* max_watches entries */
	struct pg_key *keys;           /* key_mask + 1 entries */
	uint32_t capacity;
	uint32_t free_head; /* free ops */
	uint32_t in_use;    /* ops not free */
	uint32_t max_watches;
	uint32_t watch_free; /* free watch entries */
	uint32_t watches_in_use;
	uint32_t live_watches; /* entries of ops not yet finalized */
	uint32_t key_mask;
	uint32_t max_keys;
	uint32_t keys_in_use;
	uint32_t purge_threshold;
	uint32_t depth;                    /* check() nesting: no unlinking */
	struct ewyk_purgatory_stats stats; /* gauges filled on read */
	const void *reg; /* registry, NULL if not registered */
	char name[EWYK_PURGATORY_NAMESIZE];
};

/* purgatory_watch.c */
int pg_watch_init(struct ewyk_purgatory *p, int socket_id);
void pg_watch_fini(struct ewyk_purgatory *p);
int pg_watch_reserve(struct ewyk_purgatory *p, const uint64_t *keys,
	unsigned int nkeys);
unsigned int pg_watch_add(struct ewyk_purgatory *p, uint32_t op_idx,
	uint32_t gen, const uint64_t *keys, unsigned int nkeys);
unsigned int pg_watch_check(struct ewyk_purgatory *p, uint64_t key);
unsigned int pg_watch_purge_key(struct ewyk_purgatory *p, uint64_t key);
unsigned int pg_watch_purge_all(struct ewyk_purgatory *p);
void pg_maybe_purge(struct ewyk_purgatory *p);

/* purgatory.c, used by the watch lists */
int pg_complete_if_pending(struct ewyk_purgatory *p,
	struct ewyk_purgatory_op *op, uint32_t gen);

/* purgatory_registry.c */
int pg_register(struct ewyk_purgatory *p);
void pg_unregister(struct ewyk_purgatory *p);

static inline uint64_t
pg_load(const struct ewyk_purgatory_op *op)
{
	return __atomic_load_n(&op->state, __ATOMIC_ACQUIRE);
}

#endif /* PURGATORY_PRIVATE_H */
