/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_HTTPD_METRICS_H
#define EWYK_HTTPD_METRICS_H

/*
 * GET /metrics: Prometheus text exposition (format 0.0.4) of every counter
 * of ewyk-httpd. The text is built by the libraries' own writers (lib/common
 * ewyk_ctr_prometheus() over each lib's counter table: net, TCP, HTTP,
 * timer wheels, purgatories, pools, strategies) and, for what only the
 * application knows (mbufs in use, inboxes, task outcomes, loop work per
 * lcore), from the tables of metrics.c. Samples are labelled shard="N"
 * (per-shard objects), name="..." (registered objects) or lcore="N".
 *
 * The page is built into a buffer of a fixed size per lcore (whoever holds
 * the shard's token runs the NON_BLOCKING handler: its worker or a reserved
 * lcore); a page that does not fit is answered 500, never truncated.
 */

#include <stddef.h>

#include <ewyk_http.h>

#include "httpd.h"

/** Default size of the page buffer of one lcore. */
#define HTTPD_METRICS_DEF_SIZE (512u * 1024)

struct httpd_metrics;

/*
 * Write the whole page into buf.
 * Returns its length (< size, NUL-terminated), -ENOSPC when it does not
 * fit in size bytes, or another negative errno from a writer.
 */
int httpd_metrics_write(const struct httpd *h,
	const struct ewyk_http_server *const *srv, unsigned int nsrv, char *buf,
	size_t size);

/*
 * Create the /metrics state: one page buffer of @p size bytes for each
 * lcore of @p h (0: HTTPD_METRICS_DEF_SIZE); @p srv are the shards' HTTP
 * servers (nsrv of them, NULL allowed for none), kept by pointer.
 * Returns NULL (printed) on failure.
 */
struct httpd_metrics *httpd_metrics_create(const struct httpd *h,
	const struct ewyk_http_server *const *srv, unsigned int nsrv,
	size_t size);

/* Free it (after the lcores stopped). NULL allowed. */
void httpd_metrics_free(struct httpd_metrics *m);

/*
 * Register GET (and HEAD) /metrics, NON_BLOCKING, on a router.
 * Returns 0 or the negative errno of ewyk_http_route_add().
 */
int httpd_metrics_route(struct ewyk_http_router *r, struct httpd_metrics *m);

#endif /* EWYK_HTTPD_METRICS_H */
