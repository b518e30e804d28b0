/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_LOADGEN_CLIENT_H
#define EWYK_LOADGEN_CLIENT_H

/*
 * What the three files of the client share (private to them; loadgen.h
 * has what the rest of the loadgen calls): client.c, the response path
 * and the runtime module's hooks; conn.c, connections opened and closed;
 * sched.c, requests sent, the open loop's schedule, the run's start and
 * window, and latency accounting. Everything here runs on the slot's
 * own shard lcore.
 */

#include <stdbool.h>
#include <stdint.h>

#include "loadgen.h"

/* Connects started per iteration, at most; while the peer's MAC is not
 * known yet (the ARP queue holds 8 frames), connections in SYN-SENT. */
#define LG_CONNECT_BURST 64
#define LG_CONNECT_UNRESOLVED 4

/* Requests an open slot may have in flight now. */
static inline unsigned int
slot_depth(const struct lg_slot *s)
{
	if (s->h2 != NULL)
		return s->inflight + lg_h2_slot_room(s);
	return s->lc->app->conf.pipeline;
}

/* client.c: lib/tcp's recv callback (the response path). */
void lg_on_recv(void *ctx, struct ewyk_tcp_conn *c, struct rte_mbuf *m);

/* conn.c */
/* The slot onto the idle stack (to connect) or the ready stack (open
 * loop: may send), once. */
void lg_push_idle(struct lg_lcore *lc, struct lg_slot *s);
void lg_push_ready(struct lg_lcore *lc, struct lg_slot *s);
/* Start a connection on an idle slot; @p t0 times a --new-conn request.
 * 0 or a negative errno. */
int slot_connect(struct lg_slot *s, uint64_t t0);
/* The next hop's link-layer address is known (ARP or ND). */
bool lg_target_resolved(struct lg_lcore *lc);
/* Connect idle slots, at most @p budget (keep-alive, or --new-conn
 * closed loop). */
void lg_open_some(struct lg_lcore *lc, unsigned int budget);
/* Every 10 ms: requests and connects that took longer than --timeout. */
void lg_scan_timeouts(struct lg_lcore *lc);
/* The end: close every connection (no more callbacks after this). */
void lg_close_all(struct lg_lcore *lc);

/* sched.c */
/* Send @p k requests on an open slot, all started at @p t0; how many
 * were sent. */
unsigned int slot_send(struct lg_slot *s, unsigned int k, uint64_t t0);
/* The latency interval ended (at @p now or before): into the window's
 * histogram when it lay in the window; the next one. */
void lg_live_roll(struct lg_lcore *lc, uint64_t now);
/* Open loop: due requests into the backlog, the backlog onto slots. */
void lg_schedule(struct lg_lcore *lc);
/* The iteration that ended at @p now: into the window's counters. */
void lg_account(struct lg_lcore *lc, uint64_t now);
/* The start (shard 0 sets the run's times); false while the run has not
 * started on this shard. */
bool lg_start(struct lg_lcore *lc, uint64_t now);
/* --window-marks: shard 0's lines as the measured window opens and
 * closes. */
void lg_window_mark(struct lg_lcore *lc, uint64_t now);

#endif /* EWYK_LOADGEN_CLIENT_H */
