/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * HTTP in ewyk-httpd: the process's router and its route table (built on
 * the main lcore before the shards start), and per shard a lib/http
 * server on the shard's wheel and mbuf pool, listening on --port through
 * the shard's TCP, with the dispatch hook of http_dispatch.c. The holder
 * refreshes the server's Date line once a second.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include <ewyk_http.h>

#include "http_app.h"

static int
route_add(struct httpd *h, const char *path, int prefix, uint32_t methods,
	enum ewyk_strategy_invocation inv, void (*fn)(void), void *arg,
	int blocking)
{
	struct httpd_route_desc *d;
	int rc;

	if (h->router == NULL || fn == NULL)
		return -EINVAL;
	if (h->nb_routes == HTTPD_MAX_ROUTES ||
		h->nb_routes == RTE_DIM(h->routes)) {
		fprintf(stderr, "error: route %s: at most %u routes\n", path,
			(unsigned int)RTE_DIM(h->routes));
		return -ENOSPC;
	}
	d = &h->routes[h->nb_routes];
	d->fn = fn;
	d->arg = arg;
	d->blocking = (uint8_t)blocking;
	/* In place: lib/http calls the handler with its own argument (an
	 * EITHER one after the dispatcher declined it). Blocking: no handler,
	 * and the route's argument is the description the dispatcher runs. */
	if (blocking)
		rc = ewyk_http_route_add(h->router, path, prefix, methods, inv,
			NULL, d);
	else
		rc = ewyk_http_route_add(h->router, path, prefix, methods, inv,
			(void *)(uintptr_t)fn, arg);
	if (rc != 0) {
		fprintf(stderr, "error: route %s: %s\n", path, strerror(-rc));
		return rc;
	}
	h->nb_routes++;
	return 0;
}

int
httpd_route_inplace(struct httpd *h, const char *path, int prefix,
	uint32_t methods, enum ewyk_strategy_invocation inv,
	ewyk_http_handler_t fn, void *arg)
{
	if (inv == EWYK_STRATEGY_INVOKE_BLOCKING)
		return -EINVAL;
	return route_add(h, path, prefix, methods, inv, (void (*)(void))fn, arg,
		0);
}

int
httpd_route_blocking(struct httpd *h, const char *path, int prefix,
	uint32_t methods, enum ewyk_strategy_invocation inv,
	httpd_blocking_fn fn, void *arg)
{
	if (inv == EWYK_STRATEGY_INVOKE_NON_BLOCKING)
		return -EINVAL;
	return route_add(h, path, prefix, methods, inv, (void (*)(void))fn, arg,
		1);
}

int
http_app_init(struct httpd *h)
{
	if (h->conf.http_port == 0)
		return 0;
	h->router = ewyk_http_router_create(HTTPD_MAX_ROUTES, SOCKET_ID_ANY);
	if (h->router == NULL) {
		fprintf(stderr, "error: HTTP router: %s\n",
			rte_strerror(rte_errno));
		return -1;
	}
	if (http_routes_register(h) != 0 || http_sha256_register(h) != 0)
		return -1;
	return 0;
}

void
http_app_fini(struct httpd *h)
{
	ewyk_http_router_free(h->router);
	h->router = NULL;
}

static uint32_t
secs_ms(unsigned int s)
{
	return s * 1000u;
}

int
http_shard_init(struct httpd *h, struct httpd_shard *sh)
{
	struct ewyk_http_server_conf sc;

	if (h->conf.http_port == 0)
		return 0;
	if (httpd_tasks_shard_init(sh) != 0 ||
		http_dispatch_shard_init(sh) != 0 ||
		http_echo_shard_init(sh) != 0 ||
		http_sha256_shard_init(sh) != 0)
		return -1;
	memset(&sc, 0, sizeof(sc));
	sc.wheel = sh->wheel;
	sc.pool = sh->pool;
	sc.router = h->router;
	sc.lim.max_body = h->conf.max_body;
	sc.max_conns = h->conf.http_max_conns;
	sc.max_heads = h->conf.http_max_heads;
	sc.max_conns_per_src = h->conf.http_max_per_src;
	sc.max_heads_per_src = h->conf.http_max_heads_per_src;
	sc.header_timeout_ms = secs_ms(h->conf.header_timeout);
	sc.idle_timeout_ms = secs_ms(h->conf.keepalive_timeout);
	sc.body_timeout_ms = secs_ms(h->conf.body_timeout);
	sc.body_min_rate = h->conf.body_min_rate == 0 ? UINT32_MAX :
							h->conf.body_min_rate;
	sc.write_timeout_ms = secs_ms(h->conf.write_timeout);
	sc.dispatch = http_dispatch;
	sc.dispatch_arg = sh;
	sc.shard_id = sh->id;
	sc.socket_id = (int)rte_lcore_to_socket_id(sh->home);
	sh->http = ewyk_http_server_create(&sc);
	if (sh->http == NULL) {
		fprintf(stderr, "error: HTTP server of shard %u: %s\n", sh->id,
			rte_strerror(rte_errno));
		return -1;
	}
	ewyk_http_server_set_time(sh->http, (uint64_t)time(NULL));
	if (http_dispatch_shard_heads(sh) != 0)
		return -1;
	if (ewyk_tcp_listen(sh->tcp, 0, h->conf.http_port,
		    ewyk_http_server_tcp_ops(), sh->http, 0) != 0) {
		fprintf(stderr, "error: cannot listen on HTTP port %u\n",
			h->conf.http_port);
		return -1;
	}
	if (sh->id == 0)
		printf("http: port %u, %u route(s), max body %" PRIu64
		       " bytes, timeouts header %u s keep-alive %u s body %u s write %u s\n"
		       "http: per shard %u connections (%u per source), %u head leases (%u per source)\n",
			h->conf.http_port, h->nb_routes, h->conf.max_body,
			h->conf.header_timeout, h->conf.keepalive_timeout,
			h->conf.body_timeout, h->conf.write_timeout,
			h->conf.http_max_conns, h->conf.http_max_per_src,
			h->conf.http_max_heads, h->conf.http_max_heads_per_src);
	return 0;
}

void
http_shard_poll(struct httpd_shard *sh, uint64_t now)
{
	if (sh->http == NULL || now < sh->next_date)
		return;
	/* One system call a second per shard, not per response. */
	sh->next_date = now + rte_get_tsc_hz();
	ewyk_http_server_set_time(sh->http, (uint64_t)time(NULL));
}

void
http_shard_depart(struct httpd_shard *sh)
{
	if (sh->http_tasks != NULL)
		ewyk_pool_cache_flush(sh->http_tasks);
	if (sh->echo_st != NULL)
		ewyk_pool_cache_flush(sh->echo_st);
	if (sh->sha_st != NULL)
		ewyk_pool_cache_flush(sh->sha_st);
}

void
http_shard_free(struct httpd_shard *sh)
{
	/* Every connection is reset; their end-of-request callbacks cancel
	 * the delayed operations and free buffers. */
	ewyk_http_server_free(sh->http);
	sh->http = NULL;
	http_sha256_shard_free(sh);
	http_echo_shard_free(sh);
	http_dispatch_shard_free(sh);
}

/* Counters worth a line in the table; all of them are in /ewyk/http. */
static const enum ewyk_http_counter table_ctrs[] = {
	EWYK_HTTP_C_REQUESTS, /* first three: parsed by ewyk-loadgen's tests */
	EWYK_HTTP_C_RESP_2XX,
	EWYK_HTTP_C_RESP_4XX,
	EWYK_HTTP_C_RESP_5XX,
	EWYK_HTTP_C_CONN_ACCEPTED,
	EWYK_HTTP_C_PENDING,
	EWYK_HTTP_C_RESP_503,
	EWYK_HTTP_C_RESP_504,
	EWYK_HTTP_C_TIMEOUT_HEADER,
	EWYK_HTTP_C_TIMEOUT_IDLE,
	EWYK_HTTP_C_BYTES_IN,
	EWYK_HTTP_C_BYTES_OUT,
};

void
http_stats_print(const struct httpd *h)
{
	unsigned int i, k;

	if (h->conf.http_port == 0)
		return;
	printf("http:");
	for (k = 0; k < RTE_DIM(table_ctrs); k++) {
		uint64_t v = 0;

		for (i = 0; i < h->nb_shards; i++)
			v += ewyk_http_server_counter(h->sh[i].http,
				table_ctrs[k]);
		printf(" %s=%" PRIu64, ewyk_http_counter_name(table_ctrs[k]),
			v);
	}
	/* ewyk-loadgen and the perf report check theirs against these. */
	printf(" requests_per_shard=");
	for (i = 0; i < h->nb_shards; i++)
		printf("%s%u:%" PRIu64, i ? "," : "", i,
			ewyk_http_server_counter(h->sh[i].http,
				EWYK_HTTP_C_REQUESTS));
	printf("\n");
}
