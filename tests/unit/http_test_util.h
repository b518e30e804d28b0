/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the lib/http unit tests (test_http.c and the test_http_*.c files
 * its main runs) share: the small limits, the mbuf pool, mbuf chains cut
 * into small segments, and the test functions of each file.
 */

#ifndef EWYK_TEST_HTTP_UTIL_H
#define EWYK_TEST_HTTP_UTIL_H

#include <stddef.h>

#include <rte_mbuf.h>

#include <ewyk_http.h>

/* Size of a result string (the outcome of a parse or a decode). */
#define RES_MAX 4096

/* Small limits, so that the limit cases stay short. */
extern const struct ewyk_http_limits lim;
/* The mbuf pool, made by test_http.c's main. */
extern struct rte_mempool *mp;

/* An mbuf chain of s[0, n) with segment sizes cycling 1..maxseg (NULL
 * when n is 0); the test fails when the pool runs dry. */
struct rte_mbuf *chain_of(const char *s, size_t n, unsigned int maxseg);

/* test_http_body.c: the body decoders. body_every_way() decodes body
 * s[0, n) (framing from 'req') whole, split at every offset and one byte
 * per piece; every way must agree; the outcome as a string in 'ref'. */
void body_every_way(const struct ewyk_http_request *req, const char *s,
	size_t n, char *ref);
void test_body(void **state);
void test_body_mbuf(void **state);
void test_body_overhead(void **state);
/* test_http_response.c: the response writer. */
void test_response(void **state);
void test_response_mbuf_chunked(void **state);
/* test_http_num.c: the lexical helpers. */
void test_hex_digit_and_pct_octet(void **state);
void test_parse_u64(void **state);
/* test_http_router.c: the router. */
void test_router(void **state);
void test_router_segments(void **state);
void test_parse_then_route(void **state);

#endif /* EWYK_TEST_HTTP_UTIL_H */
