/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pool life cycle (create, free, lookup), NUMA placement, and the read side
 * (info, stats, entry state).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal_memconfig.h>
#include <rte_malloc.h>
#include <rte_memory.h>
#include <rte_ring.h>

#include "pool_private.h"

RTE_LOG_REGISTER(ewyk_pool_logtype, ewyk.pool, INFO);

const char *
ewyk_pool_strategy_name(enum ewyk_pool_strategy s)
{
	switch (s) {
	case EWYK_POOL_STRATEGY_FIRST:
		return "first";
	case EWYK_POOL_STRATEGY_RANDOM:
		return "random";
	case EWYK_POOL_STRATEGY_LCORE:
		return "lcore";
	case EWYK_POOL_STRATEGY_ROUND_ROBIN:
		return "round_robin";
	}
	return "unknown";
}

static bool
node_known(int node)
{
	unsigned int i;

	for (i = 0; i < rte_socket_count(); i++)
		if (rte_socket_id_by_idx(i) == node)
			return true;
	return false;
}

static int
lcore_node(const struct ewyk_pool_params *prm, unsigned int lcore)
{
	if (prm->lcore_node != NULL)
		return prm->lcore_node(lcore, prm->lcore_node_arg);
	return (int)rte_lcore_to_socket_id(lcore);
}

static int
check_params(const struct ewyk_pool_params *prm)
{
	bool ext;

	if (prm == NULL || prm->name == NULL || prm->name[0] == '\0')
		return EINVAL;
	if (strnlen(prm->name, EWYK_POOL_NAMESIZE) >= EWYK_POOL_NAMESIZE)
		return ENAMETOOLONG;
	ext = (prm->flags & EWYK_POOL_F_EXTERNAL) != 0;
	if (prm->capacity == 0 || prm->capacity > EWYK_POOL_CAPACITY_MAX ||
		(ext && prm->obj_size != 0) || (!ext && prm->obj_size == 0) ||
		(prm->obj_align != 0 && !rte_is_power_of_2(prm->obj_align)) ||
		prm->cache_size > EWYK_POOL_CACHE_MAX ||
		prm->max_multiplex > EWYK_POOL_MULTIPLEX_MAX ||
		(unsigned int)prm->strategy > EWYK_POOL_STRATEGY_ROUND_ROBIN ||
		prm->flags &
			~(EWYK_POOL_F_EMPTY | EWYK_POOL_F_EXTERNAL |
				EWYK_POOL_F_NO_HANDBACK) ||
		(ext &&
			(prm->max_multiplex > 1 || prm->max_usage != 0 ||
				(prm->flags & EWYK_POOL_F_EMPTY))))
		return EINVAL;
	return 0;
}

/*
 * The node the object memory must come from: SOCKET_ID_ANY, or an explicit
 * node EAL knows. Returns -1 with *err set on failure.
 */
static int
resolve_socket(const struct ewyk_pool_params *prm, int *socket)
{
	unsigned int lcore;
	int node = prm->socket_id;

	if (node == EWYK_POOL_SOCKET_ANY) {
		*socket = SOCKET_ID_ANY;
		return 0;
	}
	if (node == EWYK_POOL_SOCKET_CALLER) {
		lcore = rte_lcore_id();
		if (lcore >= RTE_MAX_LCORE) {
			POOL_LOG(ERR,
				"%s: SOCKET_CALLER from a thread without "
				"lcore id",
				prm->name);
			return -EINVAL;
		}
		node = lcore_node(prm, lcore);
		if (node < 0) {
			*socket = SOCKET_ID_ANY;
			return 0;
		}
	}
	if (node < 0 || !node_known(node)) {
		POOL_LOG(ERR, "%s: NUMA node %d is not one EAL knows",
			prm->name, node);
		return -ENODEV;
	}
	*socket = node;
	return 0;
}

static void *
alloc_on(const struct ewyk_pool_params *prm, const char *what, size_t len,
	unsigned int align, int socket)
{
	void *m = rte_zmalloc_socket("ewyk_pool", len, align, socket);

	if (m == NULL)
		POOL_LOG(ERR, "%s: cannot allocate %zu bytes for %s on %s%d",
			prm->name, len, what,
			socket == SOCKET_ID_ANY ? "any NUMA node " :
						  "NUMA node ",
			socket == SOCKET_ID_ANY ? -1 : socket);
	return m;
}

/* Fibonacci hashing of the lcore id: where the LCORE strategy starts. */
static uint32_t
lcore_start(unsigned int lcore, uint32_t cap)
{
	uint32_t h = (uint32_t)(lcore * UINT32_C(0x9e3779b9));

	return (uint32_t)(((uint64_t)h * cap) >> 32);
}

/* Each lcore's cache sits on that lcore's node (injectable mapping). */
static int
alloc_lcores(struct ewyk_pool *p, const struct ewyk_pool_params *prm)
{
	bool hb = p->cache_size > 0 &&
		!(p->head.flags &
			(EWYK_POOL_F_EXTERNAL | EWYK_POOL_F_NO_HANDBACK));
	uint32_t thresh = p->cache_size + p->cache_size / 2;
	unsigned int ring_count = 0;
	size_t objs_len, ring_len = 0, stash_len, len;
	struct ewyk_pool_lcore *lc;
	unsigned int l;
	int node;

	if (hb) {
		ring_count = rte_align32pow2(RTE_MAX(2 * p->cache_size, 64u));
		ring_len = (size_t)rte_ring_get_memsize(ring_count);
	}
	objs_len = RTE_ALIGN_CEIL((size_t)thresh * sizeof(void *),
		RTE_CACHE_LINE_SIZE);
	stash_len = hb ? EWYK_POOL_STASH * sizeof(void *) : 0;
	len = sizeof(*lc) + objs_len + stash_len + ring_len;
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		node = lcore_node(prm, l);
		lc = NULL;
		if (node >= 0 && node_known(node))
			lc = rte_zmalloc_socket("ewyk_pool_lcore", len,
				RTE_CACHE_LINE_SIZE, node);
		if (lc == NULL) {
			/* Internal memory: any node will do, say so. */
			if (node >= 0)
				POOL_LOG(DEBUG,
					"%s: lcore %u cache not on "
					"node %d",
					p->name, l, node);
			lc = alloc_on(prm, "an lcore cache", len,
				RTE_CACHE_LINE_SIZE, SOCKET_ID_ANY);
			if (lc == NULL)
				return -ENOMEM;
		}
		lc->size = p->cache_size;
		lc->flush_thresh = thresh;
		lc->lcore_id = (uint16_t)l;
		lc->check_owner = !(p->head.flags & EWYK_POOL_F_EXTERNAL);
		lc->objs = (void **)(void *)(lc + 1);
		lc->socket_requested = node;
		lc->cursor = lcore_start(l, p->head.capacity);
		if (hb) {
			lc->stash = (void **)(void *)((char *)(lc + 1) +
				objs_len);
			lc->handback = (char *)(lc + 1) + objs_len + stash_len;
			if (rte_ring_init(lc->handback, "ewyk_pool_hb",
				    ring_count, RING_F_SC_DEQ) != 0)
				return -EINVAL;
		}
		p->head.lc[l] = lc;
		p->handback[l] = lc->handback;
	}
	return 0;
}

static void
free_memory(struct ewyk_pool *p)
{
	unsigned int l;

	for (l = 0; l < RTE_MAX_LCORE; l++)
		rte_free(p->head.lc[l]);
	rte_free(p->arena);
	rte_free(p->entries);
}

static void
init_entries(struct ewyk_pool *p)
{
	uint32_t cap = p->head.capacity, i;
	struct ewyk_pool_objhdr *oh;
	char *obj;

	if (p->head.flags & EWYK_POOL_F_EXTERNAL) {
		p->nfree = cap;
		return;
	}
	for (i = 0; i < cap; i++) {
		obj = p->head.objs + (size_t)i * p->head.elt_size;
		oh = pool_objhdr(p, obj);
		oh->idx = i;
		oh->owner = EWYK_POOL_OWNER_NONE;
		p->entries[i].obj = obj;
		if (p->head.flags & EWYK_POOL_F_EMPTY)
			continue;
		if (p->obj_ctor != NULL)
			p->obj_ctor(p, obj, i, p->obj_ctor_arg);
		p->entries[i].state = ST_ACTIVE;
	}
	if (p->head.flags & EWYK_POOL_F_EMPTY)
		p->nfree = cap;
	else
		p->avail = (int64_t)cap * p->max_mux;
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

struct ewyk_pool *
ewyk_pool_create(const struct ewyk_pool_params *prm)
{
	const struct rte_memseg_list *msl;
	struct ewyk_pool *p;
	uint32_t align;
	int socket, err;

	err = check_params(prm);
	if (err != 0) {
		POOL_LOG(ERR, "invalid pool parameters (%s)", strerror(err));
		rte_errno = err;
		return NULL;
	}
	err = resolve_socket(prm, &socket);
	if (err < 0) {
		rte_errno = -err;
		return NULL;
	}
	if (pool_lookup(prm->name) != NULL) {
		POOL_LOG(ERR, "%s: a pool with this name exists", prm->name);
		rte_errno = EEXIST;
		return NULL;
	}
	p = rte_zmalloc_socket("ewyk_pool", sizeof(*p), RTE_CACHE_LINE_SIZE,
		socket);
	if (p == NULL) {
		POOL_LOG(ERR, "%s: cannot allocate the pool header on node %d",
			prm->name, socket);
		rte_errno = ENOMEM;
		return NULL;
	}
	snprintf(p->name, sizeof(p->name), "%s", prm->name);
	p->head.capacity = prm->capacity;
	p->head.flags = prm->flags;
	p->obj_size = prm->obj_size;
	align = prm->obj_align != 0 ? prm->obj_align : RTE_CACHE_LINE_SIZE;
	p->obj_align = align;
	p->max_mux = prm->max_multiplex != 0 ? prm->max_multiplex : 1;
	p->max_usage = prm->max_usage;
	/* The cache would hide holders and acquisitions from the array. */
	p->cache_size = (p->max_mux == 1 && p->max_usage == 0) ?
		prm->cache_size :
		0;
	p->strategy = prm->strategy;
	p->socket_id = socket;
	p->obj_ctor = prm->obj_ctor;
	p->obj_retire = prm->obj_retire;
	p->obj_ctor_arg = prm->obj_ctor_arg;
	p->lcore_node = prm->lcore_node;
	p->lcore_node_arg = prm->lcore_node_arg;

	p->entries = alloc_on(prm, "the entry array",
		(size_t)prm->capacity * sizeof(struct pool_entry),
		RTE_CACHE_LINE_SIZE, socket);
	if (p->entries == NULL)
		goto nomem;
	if (!(prm->flags & EWYK_POOL_F_EXTERNAL)) {
		/* Object, then its hidden trailer, padded to the alignment. */
		p->head.hdr_off = RTE_ALIGN_CEIL(prm->obj_size, 8);
		p->head.elt_size = RTE_ALIGN_CEIL(p->head.hdr_off +
				(uint32_t)sizeof(struct ewyk_pool_objhdr),
			align);
		p->head.arena_len = (size_t)prm->capacity * p->head.elt_size;
		p->arena = alloc_on(prm, "the objects", p->head.arena_len,
			align, socket);
		if (p->arena == NULL)
			goto nomem;
		p->head.objs = p->arena;
	}
	if (alloc_lcores(p, prm) < 0)
		goto nomem;
	if (socket == SOCKET_ID_ANY) {
		/* Say where "any" landed. */
		msl = rte_mem_virt2memseg_list(p->entries);
		if (msl != NULL)
			p->socket_id = msl->socket_id;
	}
	init_entries(p);
	/* Last, so that lookups and telemetry see only whole pools. */
	err = pool_register(p);
	if (err < 0) {
		POOL_LOG(ERR, "%s: cannot register: %s", p->name,
			rte_strerror(-err));
		free_memory(p);
		rte_free(p);
		rte_errno = -err;
		return NULL;
	}
	POOL_LOG(DEBUG, "%s: created, %u x %u bytes, cache %u, node %d",
		p->name, p->head.capacity, p->obj_size, p->cache_size, socket);
	return p;
nomem:
	free_memory(p);
	rte_free(p);
	rte_errno = ENOMEM;
	return NULL;
}

void
ewyk_pool_free(struct ewyk_pool *p)
{
	if (p == NULL)
		return;
	/*
	 * Unregister first (a telemetry command reads the pool under the
	 * registry's lock), then free what the header points to, and it.
	 */
	pool_unregister(p);
	free_memory(p);
	rte_free(p);
}

struct ewyk_pool *
ewyk_pool_lookup(const char *name)
{
	return pool_lookup(name);
}

const char *
ewyk_pool_name(const struct ewyk_pool *p)
{
	return p != NULL ? p->name : NULL;
}

int
ewyk_pool_obj_index(const struct ewyk_pool *p, const void *obj)
{
	int64_t idx;

	if (p == NULL)
		return -EINVAL;
	idx = pool_obj_idx(p, obj);
	return idx < 0 ? -EINVAL : (int)idx;
}

void *
ewyk_pool_obj_at(const struct ewyk_pool *p, uint32_t idx)
{
	if (p == NULL || p->head.objs == NULL || idx >= p->head.capacity) {
		rte_errno = EINVAL;
		return NULL;
	}
	return p->head.objs + (size_t)idx * p->head.elt_size;
}

int
ewyk_pool_obj_state(const struct ewyk_pool *p, const void *obj,
	struct ewyk_pool_entry_info *info)
{
	int64_t idx;
	uint64_t s;
	uint16_t owner;

	if (p == NULL || info == NULL)
		return -EINVAL;
	idx = pool_obj_idx(p, obj);
	if (idx < 0)
		return -EINVAL;
	s = __atomic_load_n(&p->entries[idx].state, __ATOMIC_ACQUIRE);
	info->state = (enum ewyk_pool_entry_state)(st_kind(s) >> ST_KIND_SHIFT);
	info->multiplex = st_mux(s);
	info->usage = st_usage(s);
	owner = __atomic_load_n(&pool_objhdr(p, obj)->owner, __ATOMIC_RELAXED);
	info->owner = owner == EWYK_POOL_OWNER_NONE ? -1 : (int)owner;
	return 0;
}

static void
stats_add(struct ewyk_pool_stats *sum, const struct ewyk_pool_stats *s)
{
	const uint64_t *src = (const uint64_t *)(const void *)s;
	uint64_t *dst = (uint64_t *)(void *)sum;
	size_t i;

	for (i = 0; i < sizeof(*s) / sizeof(uint64_t); i++)
		dst[i] += __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

int
ewyk_pool_lcore_stats_get(const struct ewyk_pool *p, unsigned int lcore,
	struct ewyk_pool_stats *stats)
{
	if (p == NULL || stats == NULL || lcore > RTE_MAX_LCORE)
		return -EINVAL;
	memset(stats, 0, sizeof(*stats));
	if (lcore == RTE_MAX_LCORE)
		stats_add(stats, &p->anon_stats);
	else
		stats_add(stats, &p->head.lc[lcore]->stats);
	return 0;
}

int
ewyk_pool_stats_get(const struct ewyk_pool *p, struct ewyk_pool_stats *stats)
{
	unsigned int l;

	if (p == NULL || stats == NULL)
		return -EINVAL;
	memset(stats, 0, sizeof(*stats));
	for (l = 0; l < RTE_MAX_LCORE; l++)
		stats_add(stats, &p->head.lc[l]->stats);
	stats_add(stats, &p->anon_stats);
	return 0;
}

uint64_t
ewyk_pool_mem_bytes(const struct ewyk_pool *p)
{
	if (p == NULL)
		return 0;
	return (uint64_t)p->head.capacity *
		(p->head.elt_size + sizeof(struct pool_entry));
}

int
ewyk_pool_info_get(const struct ewyk_pool *p, struct ewyk_pool_info *info)
{
	const struct ewyk_pool_lcore *lc;
	uint32_t i, l;
	uint64_t s;

	if (p == NULL || info == NULL)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%s", p->name);
	info->capacity = p->head.capacity;
	info->obj_size = p->obj_size;
	info->elt_size = p->head.elt_size;
	info->cache_size = p->cache_size;
	info->max_multiplex = p->max_mux;
	info->max_usage = p->max_usage;
	info->flags = p->head.flags;
	info->strategy = p->strategy;
	info->socket_id = p->socket_id;
	for (i = 0; i < p->head.capacity; i++) {
		s = __atomic_load_n(&p->entries[i].state, __ATOMIC_RELAXED);
		if (p->head.flags & EWYK_POOL_F_EXTERNAL) {
			if (s == 0)
				info->n_free++;
			else
				info->n_idle++;
			continue;
		}
		switch (st_kind(s)) {
		case ST_FREE:
			info->n_free++;
			break;
		case ST_RESERVED:
			info->n_reserved++;
			break;
		case ST_ACTIVE:
			if (st_mux(s) == 0)
				info->n_idle++;
			else
				info->n_in_use++;
			break;
		default:
			info->n_closed++;
			break;
		}
	}
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		lc = p->head.lc[l];
		info->n_cached += __atomic_load_n(&lc->len, __ATOMIC_RELAXED);
		if (lc->handback != NULL)
			info->n_handback += rte_ring_count(lc->handback);
		info->n_handback += __atomic_load_n(&lc->stash_len,
			__ATOMIC_RELAXED);
	}
	return 0;
}

int
ewyk_pool_lcore_info_get(const struct ewyk_pool *p, unsigned int lcore,
	struct ewyk_pool_lcore_info *info)
{
	const struct ewyk_pool_lcore *lc;
	const struct rte_memseg_list *msl;

	if (p == NULL || info == NULL || lcore >= RTE_MAX_LCORE)
		return -EINVAL;
	lc = p->head.lc[lcore];
	info->socket_requested = lc->socket_requested;
	msl = rte_mem_virt2memseg_list(lc);
	info->socket = msl != NULL ? msl->socket_id : -1;
	info->cache_len = __atomic_load_n(&lc->len, __ATOMIC_RELAXED);
	info->handback_len = lc->handback != NULL ?
		rte_ring_count(lc->handback) :
		0;
	info->stash_len = __atomic_load_n(&lc->stash_len, __ATOMIC_RELAXED);
	return 0;
}
