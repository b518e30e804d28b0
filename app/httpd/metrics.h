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
 * Each response is a snapshot, rendered at most once per
 * HTTPD_METRICS_INTERVAL_MS per shard: the page is written whole into one
 * of HTTPD_METRICS_SNAPSHOTS buffers of HTTPD_METRICS_DEF_SIZE bytes that
 * each shard has (on its NUMA node, made at start, with the scratch of the
 * application's tables; whoever holds the shard's token runs the
 * NON_BLOCKING handler and so owns them), and every response of the shard
 * within the interval streams that same page (counted in
 * ewyk_httpd_metrics_renders_total: a scrape costs a render once a second
 * at most, and no allocation of the application's). The page is streamed
 * under TCP flow control (ewyk_http_respond_stream(): a reader that stops
 * reading pins its send buffer's worth of mbufs, not the page); a buffer
 * is free again when the last response streaming it ends (sent, or the
 * connection gone, at the latest by --write-timeout). A shard sends at
 * most HTTPD_METRICS_SNAPSHOTS responses at once, so a render always finds
 * a free buffer; beyond them the answer is 503 with Retry-After, counted in
 * ewyk_httpd_metrics_busy_total. A page that does not fit a buffer is
 * answered 500, never truncated.
 */

#include <stddef.h>

#include <ewyk_http.h>

#include "httpd.h"

/** Size of one page snapshot. */
#define HTTPD_METRICS_DEF_SIZE (512u * 1024)
/** Page snapshots per shard: /metrics responses it sends at once. */
#define HTTPD_METRICS_SNAPSHOTS 4
/** A shard renders the page at most once per this many milliseconds. */
#define HTTPD_METRICS_INTERVAL_MS 1000

struct httpd_metrics;

/*
 * Write the whole page into buf.
 * Returns its length (< size, NUL-terminated), -ENOSPC when it does not
 * fit in size bytes, or another negative errno from a writer.
 */
int httpd_metrics_write(const struct httpd *h, char *buf, size_t size);

/*
 * Create the page snapshots (HTTPD_METRICS_SNAPSHOTS per shard of h) and
 * register GET /metrics, NON_BLOCKING (http_app.h). Nothing
 * without HTTP (--port 0). Returns 0 or -1 (printed).
 */
int httpd_metrics_init(struct httpd *h);

/* Free them (after the lcores stopped). */
void httpd_metrics_fini(struct httpd *h);

#endif /* EWYK_HTTPD_METRICS_H */
