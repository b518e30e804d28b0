/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_HTTPD_SLOW_ECHO_H
#define EWYK_HTTPD_SLOW_ECHO_H

/*
 * --slow-echo-port N [--slow-ms M]: an echo whose every received chunk is
 * a BLOCKING task that really blocks its lcore M ms, dispatched by the
 * strategy; the echo comes back through the shard's inbox and is written
 * by the token holder. Past --task-timeout the connection is reset.
 */

#include <ewyk_tcp.h>

#include "httpd.h"

/* Per-shard purgatory, task pool and inbox. 0 or -1 (printed). */
int slow_echo_shard_init(struct httpd *h, struct httpd_shard *sh);

/* Free what slow_echo_shard_init() made (after every lcore stopped and
 * the executor was freed). */
void slow_echo_shard_free(struct httpd_shard *sh);

/* The TCP callbacks of the service. */
const struct ewyk_tcp_ops *slow_echo_ops(void);

#endif /* EWYK_HTTPD_SLOW_ECHO_H */
