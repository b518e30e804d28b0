/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_HTTP_ROUTER_H
#define EWYK_HTTP_ROUTER_H

/**
 * @file
 * lib/http router: exact and prefix paths, methods, the invocation type
 * of each route's handler, 404 / 405 with Allow. A router may be read
 * from several lcores once it is no longer modified.
 */

#include <stdint.h>

#include <ewyk_strategy.h>

#include <ewyk_http_parse.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Method bit of an enum ewyk_http_method, for route method masks. */
#define EWYK_HTTP_M(m) (UINT32_C(1) << (m))

/** A route: what ewyk_http_route_lookup() returns. */
struct ewyk_http_route {
	const char *path;   /**< path or prefix (copied into the router) */
	uint32_t path_len;  /**< its length */
	uint8_t prefix;     /**< 1: matches path and paths below it */
	uint8_t invocation; /**< enum ewyk_strategy_invocation of its handler */
	uint32_t methods;   /**< EWYK_HTTP_M() bits; GET implies HEAD */
	void *handler;      /**< the caller's handler (opaque here) */
	void *arg;          /**< its argument */
};

struct ewyk_http_router;

/**
 * Create a router.
 *
 * @param max_routes
 *   Capacity (> 0).
 * @param socket_id
 *   NUMA socket of its memory (SOCKET_ID_ANY allowed).
 * @return
 *   The router, or NULL with rte_errno EINVAL or ENOMEM.
 */
struct ewyk_http_router *ewyk_http_router_create(uint32_t max_routes,
	int socket_id);

/**
 * Free a router (NULL is allowed).
 *
 * @param r
 *   Router.
 */
void ewyk_http_router_free(struct ewyk_http_router *r);

/**
 * Add a route.
 *
 * @param r
 *   Router.
 * @param path
 *   Path starting with '/', NUL-terminated (copied).
 * @param prefix
 *   Non-zero: a prefix route; zero: exact. A prefix matches whole
 *   segments: "/api" matches "/api", "/api/..." and "/api?...", not
 *   "/apix"; a prefix ending in '/' matches every path starting with it.
 * @param methods
 *   EWYK_HTTP_M() bits (non-zero).
 * @param invocation
 *   enum ewyk_strategy_invocation of the handler.
 * @param handler
 *   Caller's handler, returned by lookups.
 * @param arg
 *   Its argument.
 * @return
 *   0, -EINVAL, -EEXIST (same path, kind and an overlapping method) or
 *   -ENOSPC (router full).
 */
int ewyk_http_route_add(struct ewyk_http_router *r, const char *path,
	int prefix, uint32_t methods, enum ewyk_strategy_invocation invocation,
	void *handler, void *arg);

/**
 * Route a request: an exact route wins over prefix routes, the longest
 * prefix wins among them; the query string is ignored. Paths are compared
 * as bytes: no percent-decoding, no dot-segment removal (the parser
 * refuses "." and ".." segments).
 *
 * @param r
 *   Router.
 * @param method
 *   enum ewyk_http_method of the request.
 * @param path
 *   The request's path (ewyk_http_request.path).
 * @param route
 *   Out: the route matched (on 0).
 * @param allow
 *   Out (may be NULL): with -ENOTSUP, the methods the path allows
 *   (EWYK_HTTP_M() bits, for the Allow field).
 * @return
 *   0, -ENOENT (no route for the path: answer 404), -ENOTSUP (routes for
 *   the path, none for the method: answer 405 with Allow) or -EINVAL.
 */
int ewyk_http_route_lookup(const struct ewyk_http_router *r,
	unsigned int method, struct ewyk_http_view path,
	const struct ewyk_http_route **route, uint32_t *allow);

/**
 * Write an Allow field value ("GET, HEAD, POST") for a method mask.
 *
 * @param buf
 *   Destination (NUL-terminated on success).
 * @param cap
 *   Its size.
 * @param methods
 *   EWYK_HTTP_M() bits.
 * @return
 *   Length written, or -ENOSPC.
 */
int ewyk_http_allow_format(char *buf, uint32_t cap, uint32_t methods);

#ifdef __cplusplus
}
#endif

#endif /* EWYK_HTTP_ROUTER_H */
