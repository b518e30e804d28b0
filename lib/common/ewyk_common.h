/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_COMMON_H
#define EWYK_COMMON_H

/**
 * @file
 * Machinery shared by the ewyk libraries: counter tables, the registry of
 * named objects and the telemetry commands over it.
 *
 * Internal: this header is not installed and is no part of the API. Every
 * lib under lib/ (and app/ or tests/) may include it.
 *
 * Counter tables. A lib declares its counters once, as an X-macro list
 * X(SYM, name, type, help), and generates from it its enum (in its public
 * header), a table of struct ewyk_ctr_desc (here) and, through the
 * functions below, its telemetry dictionary and its Prometheus text.
 *
 * Registry. Each lib that names objects owns one registry, described by a
 * static const struct ewyk_registry: a memzone "ewyk_<lib>" holds the table
 * of its names and object pointers, so the EAL is the only place that
 * knows the objects (no global of ours) and every process sees them. The
 * telemetry commands of a registry follow one scheme, documented in
 * docs/guides/telemetry.md:
 *   /ewyk/<lib>/list          names of the objects
 *   /ewyk/<lib>/stats         totals: every counter summed over the objects
 *   /ewyk/<lib>/stats,<name>  one object: its description and counters
 */

#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_telemetry.h>

#include "ewyk_ctr.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Kind of a counter, as Prometheus types it. */
enum ewyk_ctr_type {
	EWYK_CTR_COUNTER, /**< only grows (events, bytes) */
	EWYK_CTR_GAUGE,   /**< goes up and down (in use, pending, capacity) */
};

/** One entry of a counter table. */
struct ewyk_ctr_desc {
	const char *name; /**< snake_case: telemetry key, metric name suffix */
	const char *help; /**< one line, no newline or backslash */
	enum ewyk_ctr_type type; /**< counter or gauge */
};

/**
 * Expands one entry X(SYM, name, type, help) of a counter list into a
 * struct ewyk_ctr_desc initialiser; type is COUNTER or GAUGE.
 */
#define EWYK_CTR_DESC(sym, name, type, help) { #name, help, EWYK_CTR_##type },

/**
 * Add the counters of a table to a telemetry dictionary already started
 * with rte_tel_data_start_dict().
 *
 * @param d
 *   The dictionary.
 * @param desc
 *   The table: nb entries.
 * @param vals
 *   Their values, in the order of the table.
 * @param nb
 *   Number of counters.
 * @return
 *   0, or -ENOSPC when the dictionary is full (RTE_TEL_MAX_DICT_ENTRIES).
 */
int ewyk_ctr_tel_dict(struct rte_tel_data *d, const struct ewyk_ctr_desc *desc,
	const uint64_t *vals, unsigned int nb);

/** One series of a Prometheus exposition: a label set and its values. */
struct ewyk_prom_series {
	const char *labels;   /**< e.g. "shard=\"0\"", or NULL for none */
	const uint64_t *vals; /**< one per counter of the table */
};

/**
 * Write a counter table as Prometheus text exposition (format 0.0.4):
 * for each counter, its "# HELP" and "# TYPE" lines, then one sample per
 * series. A counter is named <prefix>_<name>_total, a gauge
 * <prefix>_<name>.
 *
 * @param buf
 *   Output; may be NULL when size is 0 (to learn the length).
 * @param size
 *   Size of buf. The text is always NUL-terminated when size > 0, and
 *   truncated when it does not fit, as snprintf() does.
 * @param prefix
 *   Metric name prefix, e.g. "ewyk_net"; [a-zA-Z_:][a-zA-Z0-9_:]*.
 * @param desc
 *   The counter table.
 * @param nb
 *   Number of counters in the table.
 * @param series
 *   The series (label sets and values).
 * @param nb_series
 *   Number of series; 0 writes HELP and TYPE lines only.
 * @return
 *   The length of the whole text (without the NUL), whether it fitted or
 *   not; -EINVAL for a NULL or invalid argument (prefix, or a counter name
 *   that is not a valid metric name).
 */
int ewyk_ctr_prometheus(char *buf, size_t size, const char *prefix,
	const struct ewyk_ctr_desc *desc, unsigned int nb,
	const struct ewyk_prom_series *series, unsigned int nb_series);

/** Longest object name a registry holds, NUL included. */
#define EWYK_REGISTRY_NAMESIZE 32
/** Objects a registry holds at most. */
#define EWYK_REGISTRY_MAX 512
/** Counters of a registry's stats table at most. */
#define EWYK_REGISTRY_MAX_CTR 128

/** A lib's registry of named objects: one static const per lib. */
struct ewyk_registry {
	/** Lib name: memzone "ewyk_<lib>", commands /ewyk/<lib>/... */
	const char *lib;
	/** What it holds, plural, for the help texts ("timer wheels"). */
	const char *what;
	/** Stats table of one object. */
	const struct ewyk_ctr_desc *ctr;
	/** Entries in ctr, <= EWYK_REGISTRY_MAX_CTR. */
	unsigned int nb_ctr;
	/** Read the values of one object, in the order of ctr. */
	void (*read)(const void *obj, uint64_t *vals);
	/**
	 * Optional: add the fields of one object that are no counters
	 * (strings, configuration) to its dictionary, before the counters.
	 */
	void (*describe)(const void *obj, struct rte_tel_data *d);
	/**
	 * Label key of an object's samples on the metrics page ("shard",
	 * "name"): the registry is one of the counter sets
	 * ewyk_registry_prometheus_all() writes. NULL: it is not.
	 */
	const char *prom_label;
};

/**
 * Register an object under a name.
 *
 * @param r
 *   The lib's registry.
 * @param name
 *   Unique in the registry, 1 .. EWYK_REGISTRY_NAMESIZE - 1 characters.
 * @param obj
 *   The object; must stay valid until ewyk_registry_del().
 * @return
 *   0; -EINVAL (bad argument), -EEXIST (name in use), -ENOSPC (registry
 *   full), -ENOMEM (no memory for the registry's table).
 */
int ewyk_registry_add(const struct ewyk_registry *r, const char *name,
	void *obj);

/**
 * Unregister an object. Returns once no telemetry command reads it any
 * more, so the caller may then free it.
 *
 * @param r
 *   The lib's registry.
 * @param obj
 *   The object as registered.
 * @return
 *   0, or -ENOENT when it is not registered.
 */
int ewyk_registry_del(const struct ewyk_registry *r, const void *obj);

/**
 * Find an object by name.
 *
 * @param r
 *   The lib's registry.
 * @param name
 *   Its name.
 * @return
 *   The object, or NULL with rte_errno set: EINVAL (NULL name), ENOENT.
 */
void *ewyk_registry_lookup(const struct ewyk_registry *r, const char *name);

/**
 * Telemetry /ewyk/<lib>/list: an array of the names, in the order they
 * were registered.
 *
 * @param r
 *   The lib's registry.
 * @param params
 *   Ignored.
 * @param d
 *   The reply.
 * @return
 *   0.
 */
int ewyk_registry_tel_list(const struct ewyk_registry *r, const char *params,
	struct rte_tel_data *d);

/**
 * Telemetry /ewyk/<lib>/stats[,<name>]. Without a name: a dictionary of
 * "objects" (how many) and every counter summed over the objects. With a
 * name: "name", the describe() fields, and the object's counters.
 *
 * @param r
 *   The lib's registry.
 * @param params
 *   NULL or "" for the totals, else an object name.
 * @param d
 *   The reply.
 * @return
 *   0, or -EINVAL for an unknown name.
 */
int ewyk_registry_tel_stats(const struct ewyk_registry *r, const char *params,
	struct rte_tel_data *d);

/**
 * Prometheus text of a registry: every counter of every object, one
 * series per object labelled <label>="<name>".
 *
 * @param r
 *   The lib's registry.
 * @param label
 *   Label key, e.g. "name" or "shard": a Prometheus label name,
 *   [a-zA-Z_][a-zA-Z0-9_]*.
 * @param buf
 *   Output, as ewyk_ctr_prometheus().
 * @param size
 *   Size of buf.
 * @return
 *   As ewyk_ctr_prometheus(); -EINVAL for a bad label key, -ENAMETOOLONG
 *   when a label does not fit whole (never truncated), or -ENOMEM.
 */
int ewyk_registry_prometheus(const struct ewyk_registry *r, const char *label,
	char *buf, size_t size);

/**
 * Write every counter set of the process: each registry with a
 * prom_label this process has added an object to, in the order of their
 * first object, as ewyk_registry_prometheus() writes one. A new lib's
 * counters appear on the page with its first object, and no page names a
 * lib by hand.
 *
 * @param buf
 *   Output, as ewyk_ctr_prometheus().
 * @param size
 *   Its size.
 * @return
 *   The length of the whole text (without the NUL), whether it fitted or
 *   not; a negative errno from a writer.
 */
int ewyk_registry_prometheus_all(char *buf, size_t size);

/**
 * Register the telemetry commands /ewyk/<lib>/list and /ewyk/<lib>/stats
 * of a registry (rte_telemetry callbacks take no argument, so each lib
 * gets its own pair of one-line callbacks). Use once per registry, at file
 * scope.
 *
 * @param reg
 *   Identifier of the lib's static const struct ewyk_registry.
 */
#define EWYK_REGISTRY_TELEMETRY(reg)                               \
	static int reg##_tel_list(const char *cmd __rte_unused,    \
		const char *params, struct rte_tel_data *d)        \
	{                                                          \
		return ewyk_registry_tel_list(&(reg), params, d);  \
	}                                                          \
	static int reg##_tel_stats(const char *cmd __rte_unused,   \
		const char *params, struct rte_tel_data *d)        \
	{                                                          \
		return ewyk_registry_tel_stats(&(reg), params, d); \
	}                                                          \
	RTE_INIT(reg##_tel_init)                                   \
	{                                                          \
		ewyk_registry_tel_register(&(reg), reg##_tel_list, \
			reg##_tel_stats);                          \
	}

/**
 * Register a registry's two telemetry commands; see
 * EWYK_REGISTRY_TELEMETRY, which calls it.
 *
 * @param r
 *   The lib's registry.
 * @param list
 *   Callback of /ewyk/<lib>/list.
 * @param stats
 *   Callback of /ewyk/<lib>/stats.
 * @return
 *   0, or the negative errno of rte_telemetry_register_cmd().
 */
int ewyk_registry_tel_register(const struct ewyk_registry *r, telemetry_cb list,
	telemetry_cb stats);

#ifdef __cplusplus
}
#endif

#endif /* EWYK_COMMON_H */
