/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_HTTPD_TCP_SERVICES_H
#define EWYK_HTTPD_TCP_SERVICES_H

/*
 * TCP in ewyk-httpd: one lib/tcp context per shard (found by the layers
 * above with ewyk_tcp_get(shard_id)) on the shard's timer wheel, advanced
 * by the loop, and built-in test services that let real clients exercise
 * TCP without HTTP:
 *   --echo-port N       everything received is sent back; after the peer's
 *                       FIN, the connection closes once all is echoed;
 *   --discard-port N    everything received is dropped; closes after FIN;
 *   --slow-echo-port N  echo, each chunk a BLOCKING task (slow_echo.c).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_telemetry.h>

#include "httpd.h"

/* A connection of a service; from the shard's conns pool. */
struct svc_conn {
	struct ewyk_tcp_conn *c;
	struct ewyk_pool *pool;
	struct httpd_shard *sh;
	struct rte_mbuf *pend; /* received, not yet handed to send */
	struct rte_mbuf *wait; /* slow echo: received, not yet dispatched */
	struct ewyk_purgatory_op *op; /* slow echo: the task in flight */
	bool eof;
	bool closed; /* TCP closed it while a task ran */
};

/* Create the shard's wheel, TCP context and listeners. 0 or -1 (printed). */
int tcp_services_shard_init(struct httpd *h, struct httpd_shard *sh);

/* Loop hook: TCP's clock, then every timer of the shard's wheel. */
void tcp_services_poll(struct httpd_shard *sh, uint64_t now);

/* Free every shard's TCP context and wheel (after the lcores stopped). */
void tcp_services_free(struct httpd *h);

/* The TCP part of the stats table. */
void tcp_services_stats_print(struct httpd *h);

/* TCP counters of one shard, into its /ewyk/stats dictionary. */
void tcp_services_tel_shard(struct rte_tel_data *d,
	const struct httpd_shard *sh);

/* Shared by the services. */
int svc_accept(void *arg, struct ewyk_tcp_conn *c);
void svc_release(struct svc_conn *sc);
void svc_close(struct svc_conn *sc);
void svc_echo_flush(struct svc_conn *sc);

#endif /* EWYK_HTTPD_TCP_SERVICES_H */
