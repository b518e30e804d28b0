/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/http router: exact and prefix routes, methods, segment matching,
 * and a parsed request's path routed. Run by test_http.c's main.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>

#include <rte_errno.h>
#include <rte_mbuf.h>

#include <ewyk_http.h>

#include "test_common.h"
#include "http_test_util.h"

static int h_root, h_bytes, h_bytes_big, h_echo, h_echo_put, h_sleep;

void
test_router(void **state)
{
	struct ewyk_http_router *r;
	const struct ewyk_http_route *rt;
	struct ewyk_http_view v;
	uint32_t allow;
	char buf[64];

	(void)state;
	assert_null(ewyk_http_router_create(0, SOCKET_ID_ANY));
	assert_int_equal(rte_errno, EINVAL);
	r = ewyk_http_router_create(6, SOCKET_ID_ANY);
	assert_non_null(r);
	assert_int_equal(ewyk_http_route_add(r, "/", 0,
				 EWYK_HTTP_M(EWYK_HTTP_GET),
				 EWYK_STRATEGY_INVOKE_NON_BLOCKING, &h_root,
				 NULL),
		0);
	assert_int_equal(ewyk_http_route_add(r, "/bytes/", 1,
				 EWYK_HTTP_M(EWYK_HTTP_GET),
				 EWYK_STRATEGY_INVOKE_NON_BLOCKING, &h_bytes,
				 NULL),
		0);
	assert_int_equal(ewyk_http_route_add(r, "/bytes/big/", 1,
				 EWYK_HTTP_M(EWYK_HTTP_GET),
				 EWYK_STRATEGY_INVOKE_EITHER, &h_bytes_big,
				 NULL),
		0);
	assert_int_equal(ewyk_http_route_add(r, "/echo", 0,
				 EWYK_HTTP_M(EWYK_HTTP_POST),
				 EWYK_STRATEGY_INVOKE_EITHER, &h_echo, &h_root),
		0);
	assert_int_equal(ewyk_http_route_add(r, "/echo", 0,
				 EWYK_HTTP_M(EWYK_HTTP_PUT),
				 EWYK_STRATEGY_INVOKE_BLOCKING, &h_echo_put,
				 NULL),
		0);
	assert_int_equal(ewyk_http_route_add(r, "/echo", 0,
				 EWYK_HTTP_M(EWYK_HTTP_PUT),
				 EWYK_STRATEGY_INVOKE_BLOCKING, &h_echo_put,
				 NULL),
		-EEXIST);
	assert_int_equal(ewyk_http_route_add(r, "nope", 0,
				 EWYK_HTTP_M(EWYK_HTTP_PUT),
				 EWYK_STRATEGY_INVOKE_BLOCKING, NULL, NULL),
		-EINVAL);
	assert_int_equal(ewyk_http_route_add(r, "/x", 0, 0,
				 EWYK_STRATEGY_INVOKE_BLOCKING, NULL, NULL),
		-EINVAL);
	assert_int_equal(ewyk_http_route_add(r, "/sleep/", 1,
				 EWYK_HTTP_M(EWYK_HTTP_GET),
				 EWYK_STRATEGY_INVOKE_BLOCKING, &h_sleep, NULL),
		0);
	assert_int_equal(ewyk_http_route_add(r, "/full", 0,
				 EWYK_HTTP_M(EWYK_HTTP_GET),
				 EWYK_STRATEGY_INVOKE_BLOCKING, NULL, NULL),
		-ENOSPC);

#define LOOK(m, s)                               \
	(v.p = (s), v.len = (uint32_t)strlen(s), \
		ewyk_http_route_lookup(r, (m), v, &rt, &allow))
	assert_int_equal(LOOK(EWYK_HTTP_GET, "/"), 0);
	assert_ptr_equal(rt->handler, &h_root);
	assert_int_equal(rt->invocation, EWYK_STRATEGY_INVOKE_NON_BLOCKING);
	assert_int_equal(LOOK(EWYK_HTTP_HEAD, "/"), 0); /* GET implies HEAD */
	assert_ptr_equal(rt->handler, &h_root);
	assert_int_equal(LOOK(EWYK_HTTP_GET, "/bytes/5"), 0);
	assert_ptr_equal(rt->handler, &h_bytes);
	assert_int_equal(LOOK(EWYK_HTTP_GET, "/bytes/"), 0);
	assert_ptr_equal(rt->handler, &h_bytes);
	assert_int_equal(LOOK(EWYK_HTTP_GET, "/bytes/big/7"), 0); /* longest */
	assert_ptr_equal(rt->handler, &h_bytes_big);
	assert_int_equal(rt->invocation, EWYK_STRATEGY_INVOKE_EITHER);
	assert_int_equal(LOOK(EWYK_HTTP_GET, "/bytes"), -ENOENT);
	assert_int_equal(LOOK(EWYK_HTTP_GET, "/nothing"), -ENOENT);
	assert_int_equal(LOOK(EWYK_HTTP_POST, "/echo"), 0);
	assert_ptr_equal(rt->handler, &h_echo);
	assert_ptr_equal(rt->arg, &h_root);
	assert_int_equal(LOOK(EWYK_HTTP_PUT, "/echo"), 0);
	assert_ptr_equal(rt->handler, &h_echo_put);
	assert_int_equal(rt->invocation, EWYK_STRATEGY_INVOKE_BLOCKING);
	assert_int_equal(LOOK(EWYK_HTTP_GET, "/echo"), -ENOTSUP);
	assert_null(rt);
	assert_int_equal(allow,
		EWYK_HTTP_M(EWYK_HTTP_POST) | EWYK_HTTP_M(EWYK_HTTP_PUT));
	assert_int_equal(ewyk_http_allow_format(buf, sizeof(buf), allow), 9);
	assert_string_equal(buf, "POST, PUT");
	assert_int_equal(LOOK(EWYK_HTTP_DELETE, "/bytes/9"), -ENOTSUP);
	assert_int_equal(allow,
		EWYK_HTTP_M(EWYK_HTTP_GET) | EWYK_HTTP_M(EWYK_HTTP_HEAD));
	assert_int_equal(ewyk_http_allow_format(buf, sizeof(buf), allow), 9);
	assert_string_equal(buf, "GET, HEAD");
	assert_int_equal(ewyk_http_allow_format(buf, 9, allow), -ENOSPC);
	assert_int_equal(LOOK(EWYK_HTTP_GET, "/sleep/100"), 0);
	assert_int_equal(rt->invocation, EWYK_STRATEGY_INVOKE_BLOCKING);
	assert_int_equal(LOOK(EWYK_HTTP_METHOD_MAX, "/"), -EINVAL);
#undef LOOK
	ewyk_http_router_free(r);
}

/* A prefix route matches whole path segments. */
void
test_router_segments(void **state)
{
	struct ewyk_http_router *r;
	const struct ewyk_http_route *rt;
	struct ewyk_http_view v;
	uint32_t allow;

	(void)state;
	r = ewyk_http_router_create(4, SOCKET_ID_ANY);
	assert_non_null(r);
	assert_int_equal(ewyk_http_route_add(r, "/api", 1,
				 EWYK_HTTP_M(EWYK_HTTP_GET),
				 EWYK_STRATEGY_INVOKE_NON_BLOCKING, &h_root,
				 NULL),
		0);
	assert_int_equal(ewyk_http_route_add(r, "/static/", 1,
				 EWYK_HTTP_M(EWYK_HTTP_GET),
				 EWYK_STRATEGY_INVOKE_NON_BLOCKING, &h_bytes,
				 NULL),
		0);
#define LOOK(s)                                  \
	(v.p = (s), v.len = (uint32_t)strlen(s), \
		ewyk_http_route_lookup(r, EWYK_HTTP_GET, v, &rt, &allow))
	assert_int_equal(LOOK("/api"), 0);
	assert_ptr_equal(rt->handler, &h_root);
	assert_int_equal(LOOK("/api/"), 0);
	assert_int_equal(LOOK("/api/v1/x"), 0);
	assert_int_equal(LOOK("/api?q=1"), 0);
	assert_int_equal(LOOK("/apix"), -ENOENT);
	assert_int_equal(LOOK("/api.json"), -ENOENT);
	assert_int_equal(LOOK("/ap"), -ENOENT);
	/* a prefix ending in '/' matches every path starting with it */
	assert_int_equal(LOOK("/static/"), 0);
	assert_ptr_equal(rt->handler, &h_bytes);
	assert_int_equal(LOOK("/static/a.css"), 0);
	assert_int_equal(LOOK("/static"), -ENOENT);
	assert_int_equal(LOOK("/staticx"), -ENOENT);
#undef LOOK
	ewyk_http_router_free(r);
}

/* A parsed request's path routes as the router expects (query dropped). */
void
test_parse_then_route(void **state)
{
	static const char in[] =
		"GET /bytes/12?x=1 HTTP/1.1\r\nHost: h\r\n\r\n";
	static char scratch[2048];
	struct ewyk_http_header hdr[4];
	struct ewyk_http_request req = { .headers = hdr, .max_headers = 4 };
	struct ewyk_http_parser p;
	struct ewyk_http_router *r;
	const struct ewyk_http_route *rt;
	uint32_t used;

	(void)state;
	assert_int_equal(ewyk_http_parser_init(&p, NULL, scratch, 100),
		-EINVAL);
	assert_int_equal(ewyk_http_scratch_size(NULL),
		EWYK_HTTP_DEF_MAX_LINE + EWYK_HTTP_DEF_MAX_HEADER_BYTES);
	assert_int_equal(ewyk_http_parser_init(&p, &lim, scratch,
				 sizeof(scratch)),
		0);
	assert_int_equal(ewyk_http_parse(&p, &req, in, sizeof(in) - 1, &used),
		EWYK_HTTP_DONE);
	r = ewyk_http_router_create(2, SOCKET_ID_ANY);
	assert_int_equal(ewyk_http_route_add(r, "/bytes/", 1,
				 EWYK_HTTP_M(EWYK_HTTP_GET),
				 EWYK_STRATEGY_INVOKE_NON_BLOCKING, &h_bytes,
				 NULL),
		0);
	assert_int_equal(ewyk_http_route_lookup(r, req.method_id, req.path, &rt,
				 NULL),
		0);
	assert_ptr_equal(rt->handler, &h_bytes);
	assert_string_equal(ewyk_http_method_name(req.method_id), "GET");
	assert_null(ewyk_http_method_name(EWYK_HTTP_METHOD_MAX));
	ewyk_http_router_free(r);
}
