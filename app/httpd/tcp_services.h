/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_HTTPD_TCP_SERVICES_H
#define EWYK_HTTPD_TCP_SERVICES_H

/*
 * TCP in ewyk-httpd: one lib/tcp context per shard (found by the layers
 * above with ewyk_tcp_get(shard_id)), its timers advanced by the poll
 * loop, and two built-in test services that let real clients exercise TCP
 * without HTTP:
 *   --echo-port N     everything received is sent back; after the peer's
 *                     FIN, the connection closes once all is echoed;
 *   --discard-port N  everything received is dropped; closes after FIN.
 */

#include <stdint.h>

#include <rte_telemetry.h>

#include "httpd.h"

/* Create the shard's TCP context and listeners. 0 or -1 (printed). */
int tcp_services_shard_init(struct httpd *h, struct httpd_lcore *lc);

/* Poll-loop hook: the TCP timers of the lcore's shard. */
void tcp_services_poll(struct httpd_lcore *lc, uint64_t now);

/* Free every shard's TCP context (after the lcores stopped). */
void tcp_services_free(struct httpd *h);

/* The TCP part of the stats table. */
void tcp_services_stats_print(struct httpd *h);

/* TCP counters of one lcore, into its /ewyk/stats dictionary. */
void tcp_services_tel_lcore(struct rte_tel_data *d, const struct httpd_lcore *lc);

#endif /* EWYK_HTTPD_TCP_SERVICES_H */
