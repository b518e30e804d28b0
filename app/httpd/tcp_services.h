/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_HTTPD_TCP_SERVICES_H
#define EWYK_HTTPD_TCP_SERVICES_H

/*
 * Built-in TCP services that let real clients exercise TCP without HTTP:
 *   --echo-port N       everything received is sent back; after the peer's
 *                       FIN, the connection closes once all is echoed;
 *   --discard-port N    everything received is dropped; closes after FIN;
 *   --slow-echo-port N  echo, each chunk a BLOCKING job (slow_echo.c).
 * Their connection objects come from a pool per shard, made by the module
 * tcp_services_register() adds.
 */

#include <stdbool.h>

#include <rte_mbuf.h>

#include "httpd.h"

struct slow_task;

/* Connection objects of the TCP services, per shard, at most. */
#define SVC_MAX_CONNS 4096u

/* A connection of a service; from the shard's conns pool. */
struct svc_conn {
	struct ewyk_tcp_conn *c;
	struct ewyk_pool *pool;
	struct httpd *h;
	struct ewyk_rt_shard *sh;
	struct ewyk_rt_sendbuf out; /* received, not yet handed to send */
	struct rte_mbuf *wait;  /* slow echo: received, not yet dispatched */
	struct slow_task *task; /* slow echo: the job in flight */
	bool eof;
};

/* Shared by the services (accept's argument: the struct httpd). */
int svc_accept(void *arg, struct ewyk_tcp_conn *c);
void svc_release(struct svc_conn *sc);
void svc_close(struct svc_conn *sc);
/* Send what waits; close once all is sent after the peer's FIN. */
void svc_echo_flush(struct svc_conn *sc);

#endif /* EWYK_HTTPD_TCP_SERVICES_H */
