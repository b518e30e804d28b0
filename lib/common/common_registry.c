/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Registry of named objects, one per lib, and its telemetry commands.
 *
 * The table of a lib lives in a memzone "ewyk_<lib>", made by the first
 * registration and freed with the last: the EAL's memzone list is where a
 * registry is found, so no global of ours holds it, and an empty registry
 * holds no memory. The EAL's tailq lock, the control-path rwlock DPDK's own
 * registries (rings, mempools, hashes) use, is held for writing to change
 * a table and for reading while one is read: a telemetry command never
 * reads an object being unregistered, nor a table being freed.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal_memconfig.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_memzone.h>

#include "ewyk_common.h"

RTE_LOG_REGISTER(ewyk_common_logtype, ewyk.common, INFO);

#define COMMON_LOG(level, fmt, ...)                   \
	rte_log(RTE_LOG_##level, ewyk_common_logtype, \
		"ewyk.common: " fmt "\n", ##__VA_ARGS__)

struct registry_slot {
	char name[EWYK_REGISTRY_NAMESIZE];
	void *obj;
};

struct registry_table {
	uint32_t count; /* slots [0, count) in use, in registration order */
	struct registry_slot slot[EWYK_REGISTRY_MAX];
};

static int
reg_mzname(const struct ewyk_registry *r, char *buf, size_t size)
{
	int n = snprintf(buf, size, "ewyk_%s", r->lib);

	return n > 0 && (size_t)n < size ? 0 : -EINVAL;
}

/*
 * The memzone of a registry's table, NULL if there is none; made when
 * create is set. Called with the tailq lock held (for writing to create).
 */
static const struct rte_memzone *
reg_mz(const struct ewyk_registry *r, int create)
{
	char mzname[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;

	if (reg_mzname(r, mzname, sizeof(mzname)) < 0)
		return NULL;
	mz = rte_memzone_lookup(mzname);
	if (mz != NULL || !create)
		return mz;
	mz = rte_memzone_reserve(mzname, sizeof(struct registry_table),
		SOCKET_ID_ANY, 0);
	if (mz == NULL) {
		COMMON_LOG(ERR, "%s: no memory for the registry: %s", r->lib,
			rte_strerror(rte_errno));
		return NULL;
	}
	memset(mz->addr, 0, sizeof(struct registry_table));
	return mz;
}

static struct registry_table *
reg_table(const struct ewyk_registry *r)
{
	const struct rte_memzone *mz = reg_mz(r, 0);

	return mz != NULL ? mz->addr : NULL;
}

/* Index of a name in the table, or -1. Under the tailq lock. */
static int
reg_find(const struct registry_table *t, const char *name)
{
	uint32_t i;

	for (i = 0; i < t->count; i++)
		if (strcmp(t->slot[i].name, name) == 0)
			return (int)i;
	return -1;
}

/*
 * The registries this process added an object to, in that order: the
 * counter sets of the metrics page. Written under the tailq write lock,
 * read under its read lock; a registry is a static const of its lib, so
 * it outlives every page.
 */
#define REG_SEEN_MAX 32
static const struct ewyk_registry *reg_seen[REG_SEEN_MAX];
static unsigned int reg_nb_seen;

/* Remember a registry (tailq write lock held). */
static void
reg_note(const struct ewyk_registry *r)
{
	unsigned int i;

	if (r->prom_label == NULL)
		return;
	for (i = 0; i < reg_nb_seen; i++)
		if (reg_seen[i] == r)
			return;
	if (reg_nb_seen < REG_SEEN_MAX)
		reg_seen[reg_nb_seen++] = r;
}

int
ewyk_registry_add(const struct ewyk_registry *r, const char *name, void *obj)
{
	const struct rte_memzone *mz;
	struct registry_table *t;
	size_t len;
	int ret = 0;

	if (r == NULL || name == NULL || obj == NULL)
		return -EINVAL;
	len = strnlen(name, EWYK_REGISTRY_NAMESIZE);
	if (len == 0 || len >= EWYK_REGISTRY_NAMESIZE)
		return -EINVAL;
	rte_mcfg_tailq_write_lock();
	mz = reg_mz(r, 1);
	t = mz != NULL ? mz->addr : NULL;
	if (t == NULL) {
		ret = -ENOMEM;
	} else if (reg_find(t, name) >= 0) {
		ret = -EEXIST;
	} else if (t->count == EWYK_REGISTRY_MAX) {
		ret = -ENOSPC;
	} else {
		memcpy(t->slot[t->count].name, name, len + 1);
		t->slot[t->count].obj = obj;
		t->count++;
		reg_note(r);
	}
	rte_mcfg_tailq_write_unlock();
	return ret;
}

int
ewyk_registry_del(const struct ewyk_registry *r, const void *obj)
{
	const struct rte_memzone *mz;
	struct registry_table *t;
	uint32_t i;
	int ret = -ENOENT;

	if (r == NULL || obj == NULL)
		return -EINVAL;
	rte_mcfg_tailq_write_lock();
	mz = reg_mz(r, 0);
	t = mz != NULL ? mz->addr : NULL;
	for (i = 0; t != NULL && i < t->count; i++) {
		if (t->slot[i].obj != obj)
			continue;
		memmove(&t->slot[i], &t->slot[i + 1],
			(t->count - i - 1) * sizeof(t->slot[0]));
		t->count--;
		memset(&t->slot[t->count], 0, sizeof(t->slot[0]));
		ret = 0;
		break;
	}
	if (t != NULL && t->count == 0)
		rte_memzone_free(mz);
	rte_mcfg_tailq_write_unlock();
	return ret;
}

void *
ewyk_registry_lookup(const struct ewyk_registry *r, const char *name)
{
	struct registry_table *t;
	void *obj = NULL;
	int i;

	if (r == NULL || name == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	rte_mcfg_tailq_read_lock();
	t = reg_table(r);
	i = t != NULL ? reg_find(t, name) : -1;
	if (i >= 0)
		obj = t->slot[i].obj;
	rte_mcfg_tailq_read_unlock();
	if (obj == NULL)
		rte_errno = ENOENT;
	return obj;
}

int
ewyk_registry_tel_list(const struct ewyk_registry *r,
	const char *params __rte_unused, struct rte_tel_data *d)
{
	struct registry_table *t;
	uint32_t i;

	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	rte_mcfg_tailq_read_lock();
	t = reg_table(r);
	for (i = 0; t != NULL && i < t->count; i++)
		rte_tel_data_add_array_string(d, t->slot[i].name);
	rte_mcfg_tailq_read_unlock();
	return 0;
}

int
ewyk_registry_tel_stats(const struct ewyk_registry *r, const char *params,
	struct rte_tel_data *d)
{
	uint64_t tot[EWYK_REGISTRY_MAX_CTR], v[EWYK_REGISTRY_MAX_CTR];
	const struct registry_table *t;
	uint32_t i, c, n = 0;
	int ret = 0, k;

	if (r->nb_ctr > EWYK_REGISTRY_MAX_CTR)
		return -EINVAL;
	memset(tot, 0, sizeof(tot));
	rte_mcfg_tailq_read_lock();
	t = reg_table(r);
	if (params != NULL && params[0] != '\0') {
		/* One object. */
		k = t != NULL ? reg_find(t, params) : -1;
		if (k < 0) {
			ret = -EINVAL;
		} else {
			rte_tel_data_start_dict(d);
			rte_tel_data_add_dict_string(d, "name",
				t->slot[k].name);
			if (r->describe != NULL)
				r->describe(t->slot[k].obj, d);
			r->read(t->slot[k].obj, v);
			ret = ewyk_ctr_tel_dict(d, r->ctr, v, r->nb_ctr);
		}
		rte_mcfg_tailq_read_unlock();
		return ret;
	}
	/* Totals. */
	for (i = 0; t != NULL && i < t->count; i++) {
		r->read(t->slot[i].obj, v);
		for (c = 0; c < r->nb_ctr; c++)
			tot[c] += v[c];
		n++;
	}
	rte_mcfg_tailq_read_unlock();
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "objects", n);
	return ewyk_ctr_tel_dict(d, r->ctr, tot, r->nb_ctr);
}

/* A Prometheus label name: [a-zA-Z_][a-zA-Z0-9_]* */
static int
reg_label_name_ok(const char *s)
{
	const char *c;

	if (s == NULL || s[0] == '\0' || (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (c = s; *c != '\0'; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			    (*c >= '0' && *c <= '9') || *c == '_'))
			return 0;
	return 1;
}

/*
 * label="value", the value escaped as the exposition format asks.
 * Returns 0, or -ENAMETOOLONG when it does not fit: a truncated value
 * could make two objects one series, which the format forbids.
 */
static int
reg_label(char *buf, size_t size, const char *key, const char *val)
{
	int k = snprintf(buf, size, "%s=\"", key);
	size_t n;

	if (k < 0 || (size_t)k + 2 > size)
		return -ENAMETOOLONG;
	/* Room for an escaped character, the closing quote and the NUL. */
	for (n = (size_t)k; *val != '\0'; val++) {
		if (n + 4 > size)
			return -ENAMETOOLONG;
		if (*val == '\\' || *val == '"' || *val == '\n')
			buf[n++] = '\\';
		buf[n++] = *val == '\n' ? 'n' : *val;
	}
	buf[n++] = '"';
	buf[n] = '\0';
	return 0;
}

int
ewyk_registry_prometheus(const struct ewyk_registry *r, const char *label,
	char *buf, size_t size)
{
	char(*labels)[2 * EWYK_REGISTRY_NAMESIZE + 32] = NULL;
	struct ewyk_prom_series *series = NULL;
	const struct registry_table *t;
	char prefix[RTE_MEMZONE_NAMESIZE];
	uint64_t *vals = NULL;
	uint32_t i, n = 0;
	int ret;

	if (r == NULL || !reg_label_name_ok(label) ||
		reg_mzname(r, prefix, sizeof(prefix)) < 0)
		return -EINVAL;
	/* Sized for a full registry: no allocation under the lock. */
	series = calloc(EWYK_REGISTRY_MAX, sizeof(*series));
	labels = calloc(EWYK_REGISTRY_MAX, sizeof(*labels));
	vals = calloc((size_t)EWYK_REGISTRY_MAX * RTE_MAX(r->nb_ctr, 1u),
		sizeof(*vals));
	if (series == NULL || labels == NULL || vals == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	rte_mcfg_tailq_read_lock();
	t = reg_table(r);
	for (i = 0; t != NULL && i < t->count; i++) {
		if (reg_label(labels[i], sizeof(labels[i]), label,
			    t->slot[i].name) < 0) {
			rte_mcfg_tailq_read_unlock();
			ret = -ENAMETOOLONG;
			goto out;
		}
		r->read(t->slot[i].obj, &vals[i * r->nb_ctr]);
		series[i].labels = labels[i];
		series[i].vals = &vals[i * r->nb_ctr];
		n++;
	}
	rte_mcfg_tailq_read_unlock();
	ret = ewyk_ctr_prometheus(buf, size, prefix, r->ctr, r->nb_ctr, series,
		n);
out:
	free(series);
	free(labels);
	free(vals);
	return ret;
}

int
ewyk_registry_tel_register(const struct ewyk_registry *r, telemetry_cb list,
	telemetry_cb stats)
{
	char cmd[64], help[RTE_TEL_MAX_STRING_LEN];
	int ret;

	snprintf(cmd, sizeof(cmd), "/ewyk/%s/list", r->lib);
	snprintf(help, sizeof(help), "Names of the %s. No parameters", r->what);
	ret = rte_telemetry_register_cmd(cmd, list, help);
	if (ret != 0)
		return ret;
	snprintf(cmd, sizeof(cmd), "/ewyk/%s/stats", r->lib);
	snprintf(help, sizeof(help),
		"Counters of the %s: summed, or of one. Parameter: name "
		"(optional)",
		r->what);
	return rte_telemetry_register_cmd(cmd, stats, help);
}

int
ewyk_registry_prometheus_all(char *buf, size_t size)
{
	const struct ewyk_registry *seen[REG_SEEN_MAX];
	unsigned int i, n;
	size_t off = 0;
	int ret;

	if (buf == NULL && size != 0)
		return -EINVAL;
	rte_mcfg_tailq_read_lock();
	n = reg_nb_seen;
	memcpy(seen, reg_seen, sizeof(seen[0]) * n);
	rte_mcfg_tailq_read_unlock();
	for (i = 0; i < n; i++) {
		ret = ewyk_registry_prometheus(seen[i], seen[i]->prom_label,
			off < size ? buf + off : NULL,
			off < size ? size - off : 0);
		if (ret < 0)
			return ret;
		off += (size_t)ret;
	}
	return (int)off;
}
