/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_LOADGEN_IDLE_H
#define EWYK_LOADGEN_IDLE_H

/*
 * ewyk-loadgen --idle N: a set of N keep-alive connections that are opened
 * before the measured run, carry one request each, then stay open and
 * silent while the --conns connections measure; once the measured window
 * is over each of them carries one more request (all of them are still
 * served), then they are closed. A module of the runtime of its own
 * (idle.c), beside the client's: each shard holds its share of the set.
 * The set's connections take their source address in turn from --ip and
 * the --src-addrs - 1 addresses after it (the port answers ARP for all of
 * them), so that they are not bounded by one address's local ports.
 */

#include <stdbool.h>
#include <stdint.h>

#include <ewyk_runtime.h>

struct lg;

/* Idle connections, at most, over all lcores. */
#define LG_IDLE_MAX (1u << 22)
/* Source addresses, at most (the server's ARP cache holds 256 a shard). */
#define LG_SRC_ADDRS_MAX 64

/* Counts of the set over all shards (lg_idle_counts()). */
struct lg_idle_counts {
	uint64_t opened;   /* connections established */
	uint64_t answered; /* first responses (2xx) */
	uint64_t reused;   /* second responses (2xx), after the window */
	uint64_t errors;   /* connect failures, resets, bad responses */
};

/* The module's hooks (arg: struct lg); lg_idle_alloc() before the run. */
int lg_idle_alloc(struct lg *g);
void lg_idle_release(struct lg *g);
int lg_idle_init(struct ewyk_rt_shard *sh, void *arg);
void lg_idle_poll(struct ewyk_rt_shard *sh, uint64_t now, void *arg);
void lg_idle_fini(struct ewyk_rt_shard *sh, void *arg);

/* Every shard's set is open and answered (or failed): the measured run
 * may start. True without --idle. */
bool lg_idle_ready(const struct lg *g);
/* This shard's set is closed after its second round (or the run was
 * stopped): the shard may finish. True without --idle. */
bool lg_idle_finished(const struct lg *g, unsigned int shard);
void lg_idle_counts(const struct lg *g, struct lg_idle_counts *out);
/* The "idle" member of the JSON line (", \"idle\": {...}"), or nothing. */
void lg_idle_json(const struct lg *g);

#endif /* EWYK_LOADGEN_IDLE_H */
