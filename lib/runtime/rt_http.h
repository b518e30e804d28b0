/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_RT_HTTP_H
#define EWYK_RT_HTTP_H

/* HTTP of the runtime (not installed): a shard's dispatch state. */

#include <ewyk_http.h>
#include <ewyk_http_server.h>
#include <ewyk_pool.h>

#include "rt_private.h"

struct rt_http_shard {
	struct ewyk_pool *tasks; /* dispatched requests (rt_dispatch.c) */
	/* large head copies: head_max_headers fields, then head_buf bytes */
	struct ewyk_pool *heads;
	uint32_t head_buf;
	uint16_t head_max_headers;
	/* per-source shares of those */
	struct ewyk_http_quota *q_tasks, *q_heads;
};

#endif /* EWYK_RT_HTTP_H */
