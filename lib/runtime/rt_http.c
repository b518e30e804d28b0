/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * HTTP of the runtime: the process's router and its route table (built
 * on the main lcore before the lcores start, read only afterwards), and
 * per shard a lib/http server on the shard's wheel and mbuf pool,
 * listening through the shard's TCP, with the dispatch hook of
 * rt_dispatch.c. The holder refreshes the server's Date line once a
 * second.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "rt_http.h"

int
rt_http_init(struct ewyk_rt *rt)
{
	rt->router = ewyk_http_router_create(EWYK_RT_MAX_ROUTES, SOCKET_ID_ANY);
	rt->h2_router = ewyk_http_router_create(EWYK_RT_MAX_ROUTES,
		SOCKET_ID_ANY);
	if (rt->router == NULL || rt->h2_router == NULL) {
		RT_LOG(ERR, "error: HTTP router: %s", rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

void
rt_http_fini(struct ewyk_rt *rt)
{
	ewyk_http_router_free(rt->router);
	ewyk_http_router_free(rt->h2_router);
	rt->router = NULL;
	rt->h2_router = NULL;
}

/* --listen ADDR is one of the ports' addresses (their IPv4 address, or
 * one of their IPv6 ones, link-local included). */
static bool
rt_listen_addr_ours(const struct ewyk_rt *rt)
{
	const struct ewyk_rt_conf *c = &rt->conf;
	uint16_t p, n = ewyk_net_nb_ports(rt->net);
	unsigned int i;
	uint8_t a[16];

	for (p = 0; p < n; p++) {
		if (c->http_listen_family == 4 &&
			ewyk_net_port_ip(rt->net, p) == c->http_listen_ip)
			return true;
		for (i = 0; c->http_listen_family == 6 && i < EWYK_NET_MAX_IP6;
			i++)
			if (ewyk_net_port_ip6(rt->net, p, i, a, NULL) == 0 &&
				memcmp(a, c->http_listen_ip6, 16) == 0)
				return true;
	}
	return false;
}

/* The shard's HTTP listener: on every address, or on --listen's only. */
static int
rt_http_listen_addr(struct ewyk_rt_shard *sh)
{
	const struct ewyk_rt_conf *c = &sh->rt->conf;
	const struct ewyk_tcp_ops *ops = ewyk_http_server_tcp_ops();

	if (c->http_listen_family == 0)
		return ewyk_tcp_listen(sh->tcp, 0, sh->rt->http_port, ops,
			sh->http, 0);
	if (!rt_listen_addr_ours(sh->rt)) {
		RT_LOG(ERR, "error: --listen: not an address of a port");
		return -EADDRNOTAVAIL;
	}
	if (c->http_listen_family == 4)
		return ewyk_tcp_listen(sh->tcp, c->http_listen_ip,
			sh->rt->http_port, ops, sh->http, 0);
	return ewyk_tcp_listen6(sh->tcp, c->http_listen_ip6, sh->rt->http_port,
		ops, sh->http, 0);
}

int
ewyk_rt_http_listen(struct ewyk_rt *rt, uint16_t port)
{
	if (rt == NULL)
		return -EINVAL;
	if (rt->running || rt->ran)
		return -EBUSY;
	/* --port wins; --port 0 turns HTTP off. */
	if (rt->conf.http_port != UINT16_MAX)
		port = rt->conf.http_port;
	rt->http = port != 0;
	rt->http_port = port;
	return 0;
}

int
ewyk_rt_http_route(struct ewyk_rt *rt, const struct ewyk_rt_route *r)
{
	struct rt_route *d;
	int rc;

	if (rt == NULL || r == NULL || r->path == NULL ||
		(r->fn == NULL && r->raw == NULL) ||
		(unsigned int)r->invocation > EWYK_STRATEGY_INVOKE_EITHER ||
		(r->raw != NULL &&
			r->invocation == EWYK_STRATEGY_INVOKE_BLOCKING)) {
		RT_LOG(ERR,
			"error: route %s: fn or raw (or both), and raw handlers are not BLOCKING",
			r != NULL && r->path != NULL ? r->path : "?");
		return -EINVAL;
	}
	if (rt->running || rt->ran)
		return -EBUSY;
	if (rt->nb_routes == EWYK_RT_MAX_ROUTES) {
		RT_LOG(ERR, "error: route %s: at most %u routes", r->path,
			EWYK_RT_MAX_ROUTES);
		return -ENOSPC;
	}
	d = &rt->routes[rt->nb_routes];
	d->r = *r;
	/* raw: lib/http calls the handler with its own argument (an EITHER
	 * one after the dispatcher declined it). fn: no handler, and the
	 * route's argument is the route the dispatcher runs. */
	if (r->raw != NULL)
		rc = ewyk_http_route_add(rt->router, r->path, r->prefix,
			r->methods, r->invocation, (void *)(uintptr_t)r->raw,
			r->arg);
	else
		rc = ewyk_http_route_add(rt->router, r->path, r->prefix,
			r->methods,
			/* a NON_BLOCKING fn is dispatched too: it runs as a
			 * job the strategy runs in place (PIC) */
			r->invocation == EWYK_STRATEGY_INVOKE_NON_BLOCKING ?
				EWYK_STRATEGY_INVOKE_EITHER :
				r->invocation,
			NULL, &d->r);
	/* HTTP/2 streams always take fn (rt_h2.c): 501 without one */
	if (rc == 0)
		rc = ewyk_http_route_add(rt->h2_router, r->path, r->prefix,
			r->methods, r->invocation, NULL, &d->r);
	if (rc != 0) {
		RT_LOG(ERR, "error: route %s: %s", r->path, strerror(-rc));
		return rc;
	}
	rt->nb_routes++;
	return 0;
}

static uint32_t
secs_ms(unsigned int s)
{
	return s * 1000u;
}

/* The body budget of a shard's HTTP/2 streams: --h2-body-budget, or
 * 64 MiB, or more so that a source's share (a quarter) gathers the
 * largest body a route's fn reads. */
static uint64_t
rt_h2_body_budget(const struct ewyk_rt *rt)
{
	uint64_t b = UINT64_C(64) << 20;
	unsigned int i;

	if (rt->conf.h2_body_budget != 0)
		return rt->conf.h2_body_budget;
	for (i = 0; i < rt->nb_routes; i++)
		/* a streamed body holds one window, not max_body */
		if (rt->routes[i].r.fn != NULL && rt->routes[i].r.body == NULL)
			b = RTE_MAX(b, (uint64_t)rt->routes[i].r.max_body * 4);
	return b;
}

/* The shard's HTTP/2 layer, on the limits of its HTTP/1.1 server. */
static int
rt_h2_shard_init(struct ewyk_rt_shard *sh,
	const struct ewyk_http_server_conf *sc)
{
	struct ewyk_http2_conf hc;

	memset(&hc, 0, sizeof(hc));
	hc.wheel = sh->wheel;
	hc.pool = sh->pool;
	/* a head it accepts fits the dispatcher's copies, as HTTP/1.1's */
	hc.max_header_list = sc->lim.max_header_bytes != 0 ?
		sc->lim.max_header_bytes :
		EWYK_HTTP_DEF_MAX_HEADER_BYTES;
	hc.max_header_fields = EWYK_HTTP_DEF_MAX_HEADERS;
	hc.idle_timeout_ms = sc->idle_timeout_ms;
	hc.write_timeout_ms = sc->write_timeout_ms;
	hc.body_timeout_ms = sc->body_timeout_ms;
	hc.body_min_rate = sc->body_min_rate;
	hc.max_streams = EWYK_RT_HTTP_MAX_TASKS * 4;
	hc.body_budget = rt_h2_body_budget(sh->rt);
	sh->hs->h2_body_max = hc.body_budget / 4;
	hc.on_request = rt_h2_request;
	hc.on_request_arg = sh;
	hc.shard_id = sh->id;
	hc.socket_id = sh->socket;
	sh->h2 = ewyk_http2_server_create(&hc);
	if (sh->h2 == NULL) {
		RT_LOG(ERR, "error: HTTP/2 of shard %u: %s", sh->id,
			rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

int
rt_http_shard_init(struct ewyk_rt_shard *sh)
{
	const struct ewyk_rt_conf *c = &sh->rt->conf;
	struct ewyk_http_server_conf sc;
	int rc;

	sh->hs = rte_zmalloc_socket("rt_http_shard", sizeof(*sh->hs),
		RTE_CACHE_LINE_SIZE, sh->socket);
	if (sh->hs == NULL) {
		RT_LOG(ERR, "error: HTTP of shard %u: no memory", sh->id);
		return -1;
	}
	TAILQ_INIT(&sh->hs->h2_wait);
	memset(&sc, 0, sizeof(sc));
	sc.wheel = sh->wheel;
	sc.pool = sh->pool;
	sc.router = sh->rt->router;
	sc.lim.max_body = c->max_body;
	sc.max_conns = c->http_max_conns;
	sc.max_heads = c->http_max_heads;
	sc.max_conns_per_src = c->http_max_per_src;
	sc.max_heads_per_src = c->http_max_heads_per_src;
	sc.header_timeout_ms = secs_ms(c->header_timeout);
	sc.idle_timeout_ms = secs_ms(c->keepalive_timeout);
	sc.body_timeout_ms = secs_ms(c->body_timeout);
	sc.body_min_rate = c->body_min_rate == 0 ? UINT32_MAX :
						   c->body_min_rate;
	sc.write_timeout_ms = secs_ms(c->write_timeout);
	sc.dispatch = rt_dispatch;
	sc.dispatch_arg = sh;
	if (rt_h2_shard_init(sh, &sc) != 0)
		return -1;
	sc.h2c = ewyk_http2_conn_start;
	sc.h2c_arg = sh->h2;
	sc.shard_id = sh->id;
	sc.socket_id = sh->socket;
	sh->http = ewyk_http_server_create(&sc);
	if (sh->http == NULL) {
		RT_LOG(ERR, "error: HTTP server of shard %u: %s", sh->id,
			rte_strerror(rte_errno));
		return -1;
	}
	ewyk_http_server_set_time(sh->http, (uint64_t)time(NULL));
	if (rt_dispatch_shard_init(sh) != 0)
		return -1;
	rc = rt_http_listen_addr(sh);
	if (rc != 0) {
		RT_LOG(ERR, "error: cannot listen on HTTP port %u: %s",
			sh->rt->http_port, strerror(-rc));
		return -1;
	}
	if (sh->id == 0)
		RT_LOG(INFO,
			"http: port %u, %u route(s), max body %" PRIu64
			" bytes, timeouts header %u s keep-alive %u s body %u s write %u s\n"
			"http: per shard %u connections (%u per source), %u head leases (%u per source)",
			sh->rt->http_port, sh->rt->nb_routes, c->max_body,
			c->header_timeout, c->keepalive_timeout,
			c->body_timeout, c->write_timeout, c->http_max_conns,
			c->http_max_per_src, c->http_max_heads,
			c->http_max_heads_per_src);
	if (sh->id == 0)
		RT_LOG(INFO,
			"http2: body budget %" PRIu64
			" bytes per shard (%" PRIu64 " per source)",
			sh->hs->h2_body_max * 4, sh->hs->h2_body_max);
	return 0;
}

void
rt_http_shard_poll(struct ewyk_rt_shard *sh, uint64_t now)
{
	if (!TAILQ_EMPTY(&sh->hs->h2_wait))
		rt_h2_poll(sh);
	if (now < sh->next_date)
		return;
	/* One system call a second per shard, not per response. */
	sh->next_date = now + rte_get_tsc_hz();
	ewyk_http_server_set_time(sh->http, (uint64_t)time(NULL));
}

void
rt_http_shard_depart(struct ewyk_rt_shard *sh)
{
	rt_dispatch_shard_depart(sh);
}

void
rt_http_shard_free(struct ewyk_rt_shard *sh)
{
	/* Every connection is reset; their end-of-request callbacks cancel
	 * the jobs and free buffers. */
	ewyk_http_server_free(sh->http);
	sh->http = NULL;
	ewyk_http2_server_free(sh->h2);
	sh->h2 = NULL;
	rt_dispatch_shard_free(sh);
	rte_free(sh->hs);
	sh->hs = NULL;
}

void
rt_conn_mem(const struct ewyk_rt_shard *sh, struct rt_conn_mem *m)
{
	struct ewyk_http_slots_info si;
	struct ewyk_tcp_mem_info ti;

	memset(m, 0, sizeof(*m));
	if (ewyk_tcp_mem(sh->tcp, &ti) == 0)
		m->conn_bytes = ti.conn_bytes;
	if (sh->http == NULL || ewyk_http_server_slots(sh->http, &si) != 0)
		return;
	m->conn_bytes += (uint32_t)si.conn_mem_bytes;
	m->http_conns = si.conns;
	m->http_idle = si.idle;
	m->http_leases = si.leases;
	m->http_lease_failures = si.lease_failures;
	m->http_lease_mem = si.lease_mem_bytes;
}

void
rt_http_tel_shard(struct rte_tel_data *d, const struct ewyk_rt_shard *sh)
{
	struct rt_conn_mem m;

	rt_conn_mem(sh, &m);
	rte_tel_data_add_dict_u64(d, "conn_mem_bytes", m.conn_bytes);
	if (sh->http == NULL)
		return;
	rte_tel_data_add_dict_u64(d, "http_conns", m.http_conns);
	rte_tel_data_add_dict_u64(d, "http_conns_idle", m.http_idle);
	rte_tel_data_add_dict_u64(d, "http_leases_in_use", m.http_leases);
	rte_tel_data_add_dict_u64(d, "http_lease_failures",
		m.http_lease_failures);
	rte_tel_data_add_dict_u64(d, "http_lease_mem_bytes", m.http_lease_mem);
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

static const enum ewyk_http2_counter h2_table_ctrs[] = {
	EWYK_HTTP2_C_REQUESTS,
	EWYK_HTTP2_C_RESP_2XX,
	EWYK_HTTP2_C_RESP_4XX,
	EWYK_HTTP2_C_RESP_5XX,
	EWYK_HTTP2_C_CONN_PRIOR,
	EWYK_HTTP2_C_CONN_UPGRADED,
	EWYK_HTTP2_C_STREAM_REFUSED,
	EWYK_HTTP2_C_RAPID_RESET,
	EWYK_HTTP2_C_CTRL_FLOOD,
	EWYK_HTTP2_C_PROTO_ERROR,
	EWYK_HTTP2_C_TIMEOUT_WRITE,
};

void
rt_http_stats_dump(const struct ewyk_rt *rt, FILE *f)
{
	unsigned int i, k;

	if (!rt->http)
		return;
	fprintf(f, "http:");
	for (k = 0; k < RTE_DIM(table_ctrs); k++) {
		uint64_t v = 0;

		for (i = 0; i < rt->nb_shards; i++)
			v += ewyk_http_server_counter(rt->sh[i].http,
				table_ctrs[k]);
		fprintf(f, " %s=%" PRIu64,
			ewyk_http_counter_name(table_ctrs[k]), v);
	}
	/* ewyk-loadgen and the perf report check theirs against these. */
	fprintf(f, " requests_per_shard=");
	for (i = 0; i < rt->nb_shards; i++)
		fprintf(f, "%s%u:%" PRIu64, i ? "," : "", i,
			ewyk_http_server_counter(rt->sh[i].http,
				EWYK_HTTP_C_REQUESTS));
	fprintf(f, "\n");
	/* HTTP/2: every counter is in /ewyk/http2 */
	fprintf(f, "http2:");
	for (k = 0; k < RTE_DIM(h2_table_ctrs); k++) {
		uint64_t v = 0;

		for (i = 0; i < rt->nb_shards; i++)
			v += ewyk_http2_server_counter(rt->sh[i].h2,
				h2_table_ctrs[k]);
		fprintf(f, " %s=%" PRIu64,
			ewyk_http2_counter_name(h2_table_ctrs[k]), v);
	}
	fprintf(f, "\n");
}
