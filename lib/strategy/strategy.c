/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Strategy objects: the decision table, out-of-loop execution, counters
 * and the /ewyk/strategy telemetry commands.
 *
 * A strategy is in the registry of lib/common (memzone "ewyk_strategy"),
 * so that lookup and telemetry find it without any global list.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_telemetry.h>

#include <ewyk_common.h>

#include "strategy_private.h"

RTE_LOG_REGISTER(ewyk_strategy_logtype, ewyk.strategy, INFO);

RTE_DEFINE_PER_LCORE(int, ewyk_strategy_cur_mode) = -1;

static const char *const strategy_kind_names[EWYK_STRATEGY_KIND_MAX] = {
	[EWYK_STRATEGY_PC] = "pc",
	[EWYK_STRATEGY_PEC] = "pec",
	[EWYK_STRATEGY_EPC] = "epc",
	[EWYK_STRATEGY_ADAPTIVE] = "adaptive",
};

int
ewyk_strategy_decide(enum ewyk_strategy_kind kind, uint32_t invocation,
	int reserved_idle)
{
	if (invocation > EWYK_STRATEGY_INVOKE_EITHER)
		return -EINVAL;
	switch (kind) {
	case EWYK_STRATEGY_PC:
		return EWYK_STRATEGY_MODE_PC;
	case EWYK_STRATEGY_PEC:
		return EWYK_STRATEGY_MODE_PEC;
	case EWYK_STRATEGY_EPC:
		return reserved_idle ? EWYK_STRATEGY_MODE_EPC :
				       EWYK_STRATEGY_MODE_PC;
	case EWYK_STRATEGY_ADAPTIVE:
		if (invocation == EWYK_STRATEGY_INVOKE_NON_BLOCKING)
			return EWYK_STRATEGY_MODE_PC;
		if (reserved_idle)
			return EWYK_STRATEGY_MODE_EPC;
		return invocation == EWYK_STRATEGY_INVOKE_EITHER ?
			EWYK_STRATEGY_MODE_PIC :
			EWYK_STRATEGY_MODE_PEC;
	}
	return -EINVAL;
}

int
ewyk_strategy_current_mode(void)
{
	return RTE_PER_LCORE(ewyk_strategy_cur_mode);
}

struct ewyk_strategy *
ewyk_strategy_create(const struct ewyk_strategy_conf *conf)
{
	struct ewyk_strategy *s;
	int ret;

	if (conf == NULL || conf->name == NULL || conf->name[0] == '\0' ||
		strlen(conf->name) > STRATEGY_NAME_MAX ||
		(unsigned int)conf->kind > EWYK_STRATEGY_ADAPTIVE ||
		(conf->kind != EWYK_STRATEGY_PC && conf->executor == NULL)) {
		rte_errno = EINVAL;
		return NULL;
	}
	s = rte_zmalloc_socket("ewyk_strategy", sizeof(*s), RTE_CACHE_LINE_SIZE,
		conf->socket_id);
	if (s == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	snprintf(s->name, sizeof(s->name), "%.*s", STRATEGY_NAME_MAX,
		conf->name);
	s->kind = conf->kind;
	s->ex = conf->executor;
	ret = strategy_register(s);
	if (ret < 0) {
		rte_free(s);
		rte_errno = -ret;
		return NULL;
	}
	STRATEGY_LOG(DEBUG, "strategy %s (%s) created", s->name,
		strategy_kind_names[s->kind]);
	return s;
}

void
ewyk_strategy_free(struct ewyk_strategy *s)
{
	if (s == NULL)
		return;
	strategy_unregister(s);
	rte_free(s);
}

struct ewyk_strategy *
ewyk_strategy_lookup(const char *name)
{
	return strategy_lookup(name);
}

enum ewyk_strategy_kind
ewyk_strategy_kind_get(const struct ewyk_strategy *s)
{
	return s->kind;
}

int
ewyk_strategy_execute(struct ewyk_strategy *s,
	const struct ewyk_strategy_task *task)
{
	struct strategy_lcore_stats *st;
	int mode, ret;

	if (s == NULL || task == NULL || task->fn == NULL)
		return -EINVAL;
	mode = ewyk_strategy_decide(s->kind, task->invocation, 0);
	if (mode < 0)
		return mode;
	st = strategy_stats_here(s);
	if (mode == EWYK_STRATEGY_MODE_PEC) {
		ret = ewyk_strategy_executor_submit(s->ex, task);
		if (ret != 0) {
			/* As in a producer loop: told here, exactly once. */
			mode = EWYK_STRATEGY_MODE_REJECTED;
			strategy_count(s, &st->mode[mode]);
			strategy_invoke(task, EWYK_STRATEGY_MODE_REJECTED);
			return mode;
		}
		strategy_count(s, &st->mode[EWYK_STRATEGY_MODE_PEC]);
		return mode;
	}
	strategy_count(s, &st->mode[mode]);
	strategy_invoke(task, (enum ewyk_strategy_mode)mode);
	return mode;
}

int
ewyk_strategy_stats_get(const struct ewyk_strategy *s,
	struct ewyk_strategy_stats *st)
{
	unsigned int l, m;

	if (s == NULL || st == NULL)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	for (l = 0; l <= RTE_MAX_LCORE; l++) {
		const struct strategy_lcore_stats *c = &s->stats[l];

		for (m = 0; m < EWYK_STRATEGY_MODE_MAX; m++)
			st->mode[m] += __atomic_load_n(&c->mode[m],
				__ATOMIC_RELAXED);
		st->handoffs += __atomic_load_n(&c->handoffs, __ATOMIC_RELAXED);
		st->epc_misses += __atomic_load_n(&c->epc_misses,
			__ATOMIC_RELAXED);
		st->produce_calls += __atomic_load_n(&c->produce_calls,
			__ATOMIC_RELAXED);
		st->reproduce += __atomic_load_n(&c->reproduce,
			__ATOMIC_RELAXED);
		st->idle += __atomic_load_n(&c->idle, __ATOMIC_RELAXED);
		st->homecomings += __atomic_load_n(&c->homecomings,
			__ATOMIC_RELAXED);
	}
	executor_stats_add(s->ex, st);
	return 0;
}

/*
 * Registry and telemetry, in the scheme of docs/guides/telemetry.md:
 *   /ewyk/strategy/list          names of the strategies
 *   /ewyk/strategy/stats         counters summed over the strategies
 *   /ewyk/strategy/stats,<name>  kind and counters of one strategy
 */

/*
 * struct ewyk_strategy_stats, field by field (mode[] first):
 * X(SYM, field, name, type, help), name being the telemetry key and the
 * Prometheus metric (whose conventions want no "_total" on a gauge, no
 * "_count" suffix and no abbreviated unit).
 */
#define STRATEGY_STATS(X)                                                     \
	X(HANDOFFS, handoffs, handoffs, COUNTER,                              \
		"Production handed to a reserved lcore")                      \
	X(EPC_MISSES, epc_misses, epc_misses, COUNTER,                        \
		"EPC wanted but no reserved lcore idle")                      \
	X(PRODUCE_CALLS, produce_calls, produce_calls, COUNTER,               \
		"Producer run calls")                                         \
	X(REPRODUCE, reproduce, reproduce, COUNTER,                           \
		"Producer runs that found the token held")                    \
	X(IDLE, idle, idle, COUNTER, "Times a holder released the token")     \
	X(HOMECOMINGS, homecomings, homecomings, COUNTER,                     \
		"Production handed back to its home lcore")                   \
	X(RESERVED_TOTAL, reserved_total, reserved_lcores, GAUGE,             \
		"Lcores that ever served the executor")                       \
	X(RESERVED_IDLE, reserved_idle, reserved_idle, GAUGE,                 \
		"Reserved lcores idle")                                       \
	X(RESERVED_BUSY, reserved_busy, reserved_busy, GAUGE,                 \
		"Serving lcores not idle")                                    \
	X(RESERVED_SPINNING, reserved_spinning, reserved_spinning, GAUGE,     \
		"Idle ring servers spinning now")                             \
	X(RING_COUNT, ring_count, ring_tasks, GAUGE, "Tasks on the PEC ring") \
	X(RING_CAPACITY, ring_capacity, ring_capacity, GAUGE,                 \
		"PEC ring capacity")                                          \
	X(PARKS, parks, parks, COUNTER, "Times a reserved lcore parked")      \
	X(WAKES, wakes, wakes, COUNTER, "Wakes sent to parked lcores")        \
	X(JOBS, jobs, jobs, COUNTER, "Mailbox jobs run by reserved lcores")   \
	X(PEC_RUN, pec_run, pec_run, COUNTER, "PEC tasks run from the ring")  \
	X(PEC_EXPIRED, pec_expired, pec_expired, COUNTER,                     \
		"Queued PEC tasks dropped at their deadline")                 \
	X(PEC_DELAY_N, pec_delay_n, pec_delay_n, COUNTER,                     \
		"PEC queueing delays measured")                               \
	X(PEC_DELAY_P50_NS, pec_delay_p50_ns, pec_delay_p50, GAUGE,           \
		"Median PEC queueing delay, nanoseconds (+-12%)")             \
	X(PEC_DELAY_P99_NS, pec_delay_p99_ns, pec_delay_p99, GAUGE,           \
		"99th percentile PEC queueing delay, nanoseconds (+-12%)")

static_assert(EWYK_STRATEGY_MODE_MAX == 6, "one counter per mode below");

static const struct ewyk_ctr_desc strategy_ctr[] = {
	{ "pc", "Tasks run in place (PC)", EWYK_CTR_COUNTER },
	{ "pic", "EITHER tasks run in place, non-blocking (PIC)",
		EWYK_CTR_COUNTER },
	{ "epc", "Tasks run after handing production over (EPC)",
		EWYK_CTR_COUNTER },
	{ "pec", "Tasks queued on the PEC ring", EWYK_CTR_COUNTER },
	{ "rejected", "Tasks refused on the holder (PEC ring full)",
		EWYK_CTR_COUNTER },
	{ "dropped", "Tasks dropped: executor stopped or deadline passed",
		EWYK_CTR_COUNTER },
#define STRATEGY_DESC(sym, field, name, type, help) \
	EWYK_CTR_DESC(sym, name, type, help)
	STRATEGY_STATS(STRATEGY_DESC)
#undef STRATEGY_DESC
};

const char *
ewyk_strategy_kind_name(unsigned int kind)
{
	return kind < EWYK_STRATEGY_KIND_MAX ? strategy_kind_names[kind] : NULL;
}

/* The first EWYK_STRATEGY_MODE_MAX counters are the modes, in order. */
const char *
ewyk_strategy_mode_name(unsigned int mode)
{
	return mode < EWYK_STRATEGY_MODE_MAX ? strategy_ctr[mode].name : NULL;
}

static void
strategy_read(const void *obj, uint64_t *v)
{
	struct ewyk_strategy_stats st;
	unsigned int i, m;

	ewyk_strategy_stats_get(obj, &st);
	for (m = 0; m < EWYK_STRATEGY_MODE_MAX; m++)
		v[m] = st.mode[m];
	i = m;
#define STRATEGY_READ(sym, field, name, type, help) v[i++] = st.field;
	STRATEGY_STATS(STRATEGY_READ)
#undef STRATEGY_READ
}

static void
strategy_describe(const void *obj, struct rte_tel_data *d)
{
	const struct ewyk_strategy *s = obj;

	rte_tel_data_add_dict_string(d, "kind", strategy_kind_names[s->kind]);
}

static const struct ewyk_registry strategy_registry = {
	.lib = "strategy",
	.what = "execution strategies",
	.ctr = strategy_ctr,
	.nb_ctr = RTE_DIM(strategy_ctr),
	.read = strategy_read,
	.describe = strategy_describe,
	.prom_label = "name",
};

EWYK_REGISTRY_TELEMETRY(strategy_registry)

int
strategy_register(struct ewyk_strategy *s)
{
	return ewyk_registry_add(&strategy_registry, s->name, s);
}

void
strategy_unregister(struct ewyk_strategy *s)
{
	ewyk_registry_del(&strategy_registry, s);
}

struct ewyk_strategy *
strategy_lookup(const char *name)
{
	return ewyk_registry_lookup(&strategy_registry, name);
}

int
ewyk_strategy_prometheus(char *buf, size_t size)
{
	return ewyk_registry_prometheus(&strategy_registry,
		strategy_registry.prom_label, buf, size);
}
