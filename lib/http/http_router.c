/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Router: a small array of routes scanned linearly (servers have tens of
 * routes; the scan compares lengths before bytes). An exact route beats
 * every prefix route; among prefix routes the longest wins; routes with the
 * same path and kind are merged by method for 405's Allow.
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "http_private.h"

struct ewyk_http_router {
	uint32_t n;                      /* routes in use */
	uint32_t cap;                    /* capacity */
	struct ewyk_http_route routes[]; /* path strings follow the array */
};

#define ROUTE_PATH_MAX 256

static char *
route_path_slot(struct ewyk_http_router *r, uint32_t i)
{
	return (char *)&r->routes[r->cap] + (size_t)i * ROUTE_PATH_MAX;
}

struct ewyk_http_router *
ewyk_http_router_create(uint32_t max_routes, int socket_id)
{
	struct ewyk_http_router *r;
	size_t sz;

	if (max_routes == 0 || max_routes > 65536) {
		rte_errno = EINVAL;
		return NULL;
	}
	sz = sizeof(*r) +
		(size_t)max_routes *
			(sizeof(struct ewyk_http_route) + ROUTE_PATH_MAX);
	r = rte_zmalloc_socket("ewyk_http_router", sz, 0, socket_id);
	if (r == NULL) {
		HTTP_LOG(ERR, "router: no memory for %u routes", max_routes);
		rte_errno = ENOMEM;
		return NULL;
	}
	r->cap = max_routes;
	return r;
}

void
ewyk_http_router_free(struct ewyk_http_router *r)
{
	rte_free(r);
}

static uint32_t
with_head(uint32_t methods)
{
	if (methods & EWYK_HTTP_M(EWYK_HTTP_GET))
		methods |= EWYK_HTTP_M(EWYK_HTTP_HEAD);
	return methods;
}

int
ewyk_http_route_add(struct ewyk_http_router *r, const char *path, int prefix,
	uint32_t methods, enum ewyk_strategy_invocation invocation,
	void *handler, void *arg)
{
	struct ewyk_http_route *rt;
	size_t len;
	uint32_t i;
	char *s;

	if (r == NULL || path == NULL || path[0] != '/' || methods == 0 ||
		(methods >> EWYK_HTTP_METHOD_MAX) != 0 ||
		(unsigned int)invocation > EWYK_STRATEGY_INVOKE_EITHER)
		return -EINVAL;
	len = strlen(path);
	if (len >= ROUTE_PATH_MAX)
		return -EINVAL;
	prefix = prefix != 0;
	methods = with_head(methods);
	for (i = 0; i < r->n; i++) {
		rt = &r->routes[i];
		if (rt->prefix == prefix && rt->path_len == len &&
			memcmp(rt->path, path, len) == 0 &&
			(rt->methods & methods) != 0)
			return -EEXIST;
	}
	if (r->n == r->cap)
		return -ENOSPC;
	s = route_path_slot(r, r->n);
	memcpy(s, path, len + 1);
	rt = &r->routes[r->n];
	rt->path = s;
	rt->path_len = (uint32_t)len;
	rt->prefix = (uint8_t)prefix;
	rt->invocation = (uint8_t)invocation;
	rt->methods = methods;
	rt->handler = handler;
	rt->arg = arg;
	r->n++;
	return 0;
}

/* a[0, n) is b[0, n); the usual short path without a call. */
static inline int
path_eq(const char *a, const char *b, uint32_t n)
{
	uint32_t i;

	if (n > 8)
		return memcmp(a, b, n) == 0;
	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

static int
route_matches(const struct ewyk_http_route *rt, struct ewyk_http_view path)
{
	/*
	 * A prefix matches whole path segments: "/api" matches "/api",
	 * "/api/..." and "/api?..." but not "/apix"; a prefix ending in '/'
	 * matches every path that starts with it.
	 */
	if (rt->prefix)
		return rt->path_len <= path.len &&
			memcmp(rt->path, path.p, rt->path_len) == 0 &&
			(rt->path_len == path.len || rt->path_len == 0 ||
				rt->path[rt->path_len - 1] == '/' ||
				path.p[rt->path_len] == '/' ||
				path.p[rt->path_len] == '?');
	return rt->path_len == path.len && path_eq(rt->path, path.p, path.len);
}

int
ewyk_http_route_lookup(const struct ewyk_http_router *r, unsigned int method,
	struct ewyk_http_view path, const struct ewyk_http_route **route,
	uint32_t *allow)
{
	const struct ewyk_http_route *rt;
	uint32_t allowed = 0, i, key_len = 0, mbit;
	int found = 0, key_prefix = 1;

	if (r == NULL || route == NULL || (path.p == NULL && path.len > 0) ||
		method >= EWYK_HTTP_METHOD_MAX)
		return -EINVAL;
	mbit = EWYK_HTTP_M(method);
	*route = NULL;
	/* 1: the best path: an exact match, else the longest prefix */
	for (i = 0; i < r->n; i++) {
		rt = &r->routes[i];
		if (!route_matches(rt, path))
			continue;
		if (!rt->prefix) {
			/* The first exact route of the path: the second pass
			 * would start with it, so when it takes the method it
			 * is the answer. */
			if (rt->methods & mbit) {
				*route = rt;
				return 0;
			}
			key_prefix = 0;
			key_len = rt->path_len;
			found = 1;
			break;
		}
		if (!found || rt->path_len > key_len)
			key_len = rt->path_len;
		found = 1;
	}
	if (!found)
		return -ENOENT;
	/* 2: among the routes of that path, the one for the method */
	for (i = 0; i < r->n; i++) {
		rt = &r->routes[i];
		if (rt->prefix != key_prefix || rt->path_len != key_len ||
			!route_matches(rt, path))
			continue;
		if (rt->methods & mbit) {
			*route = rt;
			return 0;
		}
		allowed |= rt->methods;
	}
	if (allow != NULL)
		*allow = allowed;
	return -ENOTSUP;
}

int
ewyk_http_allow_format(char *buf, uint32_t cap, uint32_t methods)
{
	uint32_t len = 0, m;

	if (buf == NULL || cap == 0)
		return -ENOSPC;
	for (m = 0; m < EWYK_HTTP_METHOD_MAX; m++) {
		const char *n = ewyk_http_method_name(m);
		size_t nl = strlen(n);

		if (!(methods & EWYK_HTTP_M(m)))
			continue;
		if (len + nl + (len ? 2 : 0) + 1 > cap)
			return -ENOSPC;
		if (len) {
			buf[len++] = ',';
			buf[len++] = ' ';
		}
		memcpy(buf + len, n, nl);
		len += (uint32_t)nl;
	}
	buf[len] = '\0';
	return (int)len;
}
