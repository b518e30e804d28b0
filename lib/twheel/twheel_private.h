/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef TWHEEL_PRIVATE_H
#define TWHEEL_PRIVATE_H

#include <rte_log.h>

#include "ewyk_twheel.h"

extern int ewyk_twheel_logtype;

#define TWHEEL_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, ewyk_twheel_logtype, "twheel: " fmt "\n", \
		##__VA_ARGS__)

/* Node word: expiry tick in the low 56 bits, callback index above. */
#define TW_TICK_BITS 56
#define TW_TICK_MASK ((UINT64_C(1) << TW_TICK_BITS) - 1)

/* Counters are written by the owner only, read by telemetry. */
#define TW_STAT_ADD(w, field, n) \
	__atomic_store_n(&(w)->stats.field, (w)->stats.field + (n), \
		__ATOMIC_RELAXED)

/* Registry (twheel_registry.c): a named memzone per named wheel. */
int twheel_register(struct ewyk_twheel *w);
void twheel_unregister(struct ewyk_twheel *w);

#endif /* TWHEEL_PRIVATE_H */
