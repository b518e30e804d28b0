/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Strategy objects: the decision table, out-of-loop execution, counters
 * and the /ewyk/strategy telemetry commands.
 *
 * A strategy lives in a memzone named STRATEGY_MZ_PREFIX<name>, so that
 * lookup and telemetry find it without any global list.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_memzone.h>
#include <rte_telemetry.h>

#include "strategy_private.h"

RTE_LOG_REGISTER(ewyk_strategy_logtype, ewyk.strategy, INFO);

RTE_DEFINE_PER_LCORE(int, ewyk_strategy_cur_mode) = -1;

static const char *const strategy_kind_names[] = {
	[EWYK_STRATEGY_PC] = "pc",
	[EWYK_STRATEGY_PEC] = "pec",
	[EWYK_STRATEGY_EPC] = "epc",
	[EWYK_STRATEGY_ADAPTIVE] = "adaptive",
};

static const char *const strategy_mode_names[EWYK_STRATEGY_MODE_MAX] = {
	[EWYK_STRATEGY_MODE_PC] = "pc",
	[EWYK_STRATEGY_MODE_PIC] = "pic",
	[EWYK_STRATEGY_MODE_EPC] = "epc",
	[EWYK_STRATEGY_MODE_PEC] = "pec",
	[EWYK_STRATEGY_MODE_REJECTED] = "rejected",
	[EWYK_STRATEGY_MODE_DROPPED] = "dropped",
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
			EWYK_STRATEGY_MODE_PIC : EWYK_STRATEGY_MODE_PEC;
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
	const struct rte_memzone *mz;
	struct ewyk_strategy *s;
	char mzname[RTE_MEMZONE_NAMESIZE];

	if (conf == NULL || conf->name == NULL || conf->name[0] == '\0' ||
			strlen(conf->name) > STRATEGY_NAME_MAX ||
			(unsigned int)conf->kind > EWYK_STRATEGY_ADAPTIVE ||
			(conf->kind != EWYK_STRATEGY_PC &&
			 conf->executor == NULL)) {
		rte_errno = EINVAL;
		return NULL;
	}
	snprintf(mzname, sizeof(mzname), STRATEGY_MZ_PREFIX "%.*s",
		STRATEGY_NAME_MAX, conf->name);
	if (rte_memzone_lookup(mzname) != NULL) {
		rte_errno = EEXIST;
		return NULL;
	}
	mz = rte_memzone_reserve_aligned(mzname, sizeof(*s), conf->socket_id,
		0, RTE_CACHE_LINE_SIZE);
	if (mz == NULL) {
		if (rte_errno != EEXIST)
			rte_errno = ENOMEM;
		return NULL;
	}
	s = mz->addr;
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%.*s", STRATEGY_NAME_MAX,
		conf->name);
	s->kind = conf->kind;
	s->ex = conf->executor;
	s->mz = mz;
	STRATEGY_LOG(DEBUG, "strategy %s (%s) created", s->name,
		strategy_kind_names[s->kind]);
	return s;
}

void
ewyk_strategy_free(struct ewyk_strategy *s)
{
	if (s == NULL)
		return;
	rte_memzone_free(s->mz);
}

struct ewyk_strategy *
ewyk_strategy_lookup(const char *name)
{
	const struct rte_memzone *mz;
	char mzname[RTE_MEMZONE_NAMESIZE];

	if (name == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	snprintf(mzname, sizeof(mzname), STRATEGY_MZ_PREFIX "%.*s",
		STRATEGY_NAME_MAX, name);
	mz = rte_memzone_lookup(mzname);
	if (mz == NULL) {
		rte_errno = ENOENT;
		return NULL;
	}
	return mz->addr;
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

/* Telemetry. */

static void
strategy_tel_fill(const struct ewyk_strategy *s, struct rte_tel_data *d)
{
	struct ewyk_strategy_stats st;
	unsigned int m;

	ewyk_strategy_stats_get(s, &st);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "kind", strategy_kind_names[s->kind]);
	for (m = 0; m < EWYK_STRATEGY_MODE_MAX; m++)
		rte_tel_data_add_dict_u64(d, strategy_mode_names[m],
			st.mode[m]);
	rte_tel_data_add_dict_u64(d, "handoffs", st.handoffs);
	rte_tel_data_add_dict_u64(d, "epc_misses", st.epc_misses);
	rte_tel_data_add_dict_u64(d, "produce_calls", st.produce_calls);
	rte_tel_data_add_dict_u64(d, "reproduce", st.reproduce);
	rte_tel_data_add_dict_u64(d, "idle", st.idle);
	rte_tel_data_add_dict_u64(d, "homecomings", st.homecomings);
	rte_tel_data_add_dict_u64(d, "reserved_total", st.reserved_total);
	rte_tel_data_add_dict_u64(d, "reserved_idle", st.reserved_idle);
	rte_tel_data_add_dict_u64(d, "reserved_busy", st.reserved_busy);
	rte_tel_data_add_dict_u64(d, "ring_count", st.ring_count);
	rte_tel_data_add_dict_u64(d, "ring_capacity", st.ring_capacity);
	rte_tel_data_add_dict_u64(d, "parks", st.parks);
	rte_tel_data_add_dict_u64(d, "wakes", st.wakes);
	rte_tel_data_add_dict_u64(d, "jobs", st.jobs);
	rte_tel_data_add_dict_u64(d, "pec_run", st.pec_run);
	rte_tel_data_add_dict_u64(d, "pec_expired", st.pec_expired);
	rte_tel_data_add_dict_u64(d, "pec_delay_p50_ns", st.pec_delay_p50_ns);
	rte_tel_data_add_dict_u64(d, "pec_delay_p99_ns", st.pec_delay_p99_ns);
}

static int
strategy_is_ours(const struct rte_memzone *mz)
{
	return strncmp(mz->name, STRATEGY_MZ_PREFIX,
		sizeof(STRATEGY_MZ_PREFIX) - 1) == 0;
}

static void
strategy_tel_all_cb(const struct rte_memzone *mz, void *arg)
{
	struct rte_tel_data *d = arg;
	const struct ewyk_strategy *s;
	struct rte_tel_data *c;

	if (!strategy_is_ours(mz))
		return;
	s = mz->addr;
	c = rte_tel_data_alloc();
	if (c == NULL)
		return;
	strategy_tel_fill(s, c);
	if (rte_tel_data_add_dict_container(d, s->name, c, 0) != 0)
		rte_tel_data_free(c);
}

struct strategy_tel_one {
	const char *name;
	struct rte_tel_data *d;
	int found;
};

/* Under the memzone lock, so a concurrent free cannot pull it away. */
static void
strategy_tel_one_cb(const struct rte_memzone *mz, void *arg)
{
	struct strategy_tel_one *one = arg;
	const struct ewyk_strategy *s = mz->addr;

	if (!strategy_is_ours(mz) || one->found ||
			strcmp(s->name, one->name) != 0)
		return;
	strategy_tel_fill(s, one->d);
	one->found = 1;
}

static int
strategy_tel_stats(const char *cmd, const char *params,
	struct rte_tel_data *d)
{
	struct strategy_tel_one one = { .name = params, .d = d, .found = 0 };

	RTE_SET_USED(cmd);
	if (params != NULL && params[0] != '\0') {
		rte_memzone_walk(strategy_tel_one_cb, &one);
		return one.found ? 0 : -EINVAL;
	}
	rte_tel_data_start_dict(d);
	rte_memzone_walk(strategy_tel_all_cb, d);
	return 0;
}

static void
strategy_tel_list_cb(const struct rte_memzone *mz, void *arg)
{
	if (strategy_is_ours(mz))
		rte_tel_data_add_array_string(arg,
			((const struct ewyk_strategy *)mz->addr)->name);
}

static int
strategy_tel_list(const char *cmd, const char *params,
	struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	rte_memzone_walk(strategy_tel_list_cb, d);
	return 0;
}

RTE_INIT(ewyk_strategy_telemetry_init)
{
	/* Help texts must stay under RTE_TEL_MAX_STRING_LEN (128). */
	if (rte_telemetry_register_cmd("/ewyk/strategy/stats",
			strategy_tel_stats,
			"Strategy counters: tasks per mode, reserved lcores, "
			"PEC ring. Parameter: name (optional, else all)") != 0 ||
			rte_telemetry_register_cmd("/ewyk/strategy/list",
				strategy_tel_list,
				"Names of execution strategies. No parameters") != 0)
		STRATEGY_LOG(ERR, "telemetry commands not registered");
}
