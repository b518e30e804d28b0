/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef TWHEEL_PRIVATE_H
#define TWHEEL_PRIVATE_H

#include <rte_log.h>

#include <ewyk_ctr.h>

#include "ewyk_twheel.h"

extern int ewyk_twheel_logtype;

#define TWHEEL_LOG(level, fmt, ...)                                        \
	rte_log(RTE_LOG_##level, ewyk_twheel_logtype, "twheel: " fmt "\n", \
		##__VA_ARGS__)

/*
 * Node word: expiry tick (bits 0-53), rounded level (54-56: 0 = the node's
 * slot starts at or before its tick; l > 0 = the node was placed with slack
 * in the level-l slot that starts at its tick rounded up to 64^l), callback
 * index (57-63).
 */
#define TW_TICK_BITS EWYK_TWHEEL_TICK_BITS
#define TW_TICK_MASK ((UINT64_C(1) << TW_TICK_BITS) - 1)
#define TW_RLVL_SHIFT TW_TICK_BITS
#define TW_RLVL_MASK (UINT64_C(7) << TW_RLVL_SHIFT)
#define TW_CB_SHIFT (TW_TICK_BITS + 3)

/* Counters are written by the owner only, read by telemetry. */
#define TW_STAT_ADD(w, field, n) ewyk_ctr_add(&(w)->stats.field, (n))

/* Registry (twheel_registry.c): named wheels in the registry of lib/common. */
int twheel_register(struct ewyk_twheel *w);
void twheel_unregister(struct ewyk_twheel *w);

#endif /* TWHEEL_PRIVATE_H */
