/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/http unit tests: the request-head parser on tables of valid and
 * malformed requests, each fed whole, split at every byte offset, one byte
 * per piece and as mbuf chains of small segments, with every instruction
 * set the CPU has: every way must give the same result. This file's main
 * also runs the body decoders' tests (test_http_body.c), the response
 * writer's (test_http_response.c), the router's (test_http_router.c) and
 * the lexical helpers' (test_http_num.c); what they share is in
 * http_test_util.h.
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

#define MAXH 16

#define BROWSER                                                                                 \
	"GET /wp-content/uploads/2010/03/hello-kitty-darth-vader-pink.jpg HTTP/1.1\r\n"         \
	"Host: www.kittyhell.com\r\n"                                                           \
	"User-Agent: Mozilla/5.0 (Macintosh; U; Intel Mac OS X 10_6_3; ja-JP-mac; rv:1.9.2.3) " \
	"Gecko/20100401 Firefox/3.6.3 Pathtraq/0.9\r\n"                                         \
	"Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n"           \
	"Accept-Language: ja,en-us;q=0.7,en;q=0.3\r\n"                                          \
	"Accept-Encoding: gzip,deflate\r\n"                                                     \
	"Accept-Charset: Shift_JIS,utf-8;q=0.7,*;q=0.7\r\n"                                     \
	"Keep-Alive: 115\r\n"                                                                   \
	"Connection: keep-alive\r\n"                                                            \
	"Cookie: wp_ozh_wsa_visits=2; wp_ozh_wsa_visit_lasttime=xxxxxxxxxx; "                   \
	"__utma=xxxxxxxxx.xxxxxxxxxx.xxxxxxxxxx.xxxxxxxxxx.xxxxxxxxxx.x; "                      \
	"__utmz=xxxxxxxxx.xxxxxxxxxx.x.x.utmccn=(referral)|utmcsr=reader.livedoor.com|"         \
	"utmcct=/reader/|utmcmd=referral\r\n"                                                   \
	"\r\n"

/* ---- one parse, fed in pieces; the result as a string ---- */

static void
view_out(char *out, size_t *len, const char *tag, struct ewyk_http_view v)
{
	*len += (size_t)snprintf(out + *len, RES_MAX - *len, " %s=[%.*s]", tag,
		(int)v.len, v.p);
}

static void
result_string(char *out, int rc, const struct ewyk_http_parser *p,
	const struct ewyk_http_request *req, uint32_t used)
{
	size_t len;
	uint16_t i;

	len = (size_t)snprintf(out, RES_MAX, "rc=%d st=%u", rc,
		rc < 0 ? p->status : 0);
	if (rc != EWYK_HTTP_DONE)
		return;
	len += (size_t)snprintf(out + len, RES_MAX - len,
		" used=%u m=%u v=%u f=%u cl=%" PRIu64
		" ka=%u ec=%u head=%u n=%u",
		used, req->method_id, req->version_minor, req->framing,
		req->content_length, req->keep_alive, req->expect_continue,
		req->head, req->nheaders);
	view_out(out, &len, "M", req->method);
	view_out(out, &len, "T", req->target);
	view_out(out, &len, "P", req->path);
	view_out(out, &len, "H", req->host);
	for (i = 0; i < req->nheaders; i++) {
		view_out(out, &len, "n", req->headers[i].name);
		view_out(out, &len, "v", req->headers[i].value);
	}
}

/*
 * Feed s[0, n) as pieces ending at cuts[0] < cuts[1] < ... < n, each in a
 * buffer of its own exact size (ASan sees any read outside it).
 */
static void
parse_pieces(unsigned int isa, const char *s, size_t n, const size_t *cuts,
	size_t ncuts, char *out, uint32_t *scratch_used)
{
	static char scratch[2048];
	struct ewyk_http_header hdr[MAXH];
	struct ewyk_http_request req = { .headers = hdr, .max_headers = MAXH };
	struct ewyk_http_parser p;
	char *pieces[2048];
	size_t k, from = 0, np = 0;
	uint32_t used, total = 0;
	int rc = EWYK_HTTP_AGAIN;

	assert_int_equal(ewyk_http_parser_init(&p, &lim, scratch,
				 sizeof(scratch)),
		0);
	if (ewyk_http_parser_set_isa(&p, (enum ewyk_http_isa)isa) != 0)
		fail();
	for (k = 0; k <= ncuts && rc == EWYK_HTTP_AGAIN; k++) {
		size_t to = k < ncuts ? cuts[k] : n;
		char *b = malloc(to - from + 1);

		assert_non_null(b);
		memcpy(b, s + from, to - from);
		pieces[np++] = b;
		rc = ewyk_http_parse(&p, &req, b, (uint32_t)(to - from), &used);
		total += used;
		if (rc == EWYK_HTTP_AGAIN)
			assert_int_equal(used, to - from);
		from = to;
	}
	result_string(out, rc, &p, &req, total);
	if (scratch_used != NULL)
		*scratch_used = p.scratch_used;
	while (np > 0)
		free(pieces[--np]);
}

/* Feed s as two mbuf chains (two recv events) split at 'cut'. */
static void
parse_mbufs(unsigned int isa, const char *s, size_t n, size_t cut,
	unsigned int maxseg, char *out)
{
	static char scratch[2048];
	struct ewyk_http_header hdr[MAXH];
	struct ewyk_http_request req = { .headers = hdr, .max_headers = MAXH };
	struct ewyk_http_parser p;
	struct rte_mbuf *c1, *c2 = NULL;
	uint32_t used, total;
	int rc;

	assert_int_equal(ewyk_http_parser_init(&p, &lim, scratch,
				 sizeof(scratch)),
		0);
	assert_int_equal(ewyk_http_parser_set_isa(&p, (enum ewyk_http_isa)isa),
		0);
	c1 = chain_of(s, cut, maxseg);
	rc = EWYK_HTTP_AGAIN;
	total = 0;
	if (c1 != NULL) {
		rc = ewyk_http_parse_mbuf(&p, &req, c1, 0, &used);
		total = used;
	}
	if (rc == EWYK_HTTP_AGAIN && cut < n) {
		c2 = chain_of(s + cut, n - cut, maxseg);
		rc = ewyk_http_parse_mbuf(&p, &req, c2, 0, &used);
		total += used;
	}
	result_string(out, rc, &p, &req, total);
	rte_pktmbuf_free(c1);
	rte_pktmbuf_free(c2);
}

/*
 * Parse s every way, with every instruction set; all results must equal
 * the scalar parse of the whole input, which is returned in 'ref'.
 */
static void
parse_every_way(const char *s, size_t n, char *ref)
{
	char out[RES_MAX];
	size_t cuts[2048], k;
	unsigned int isa;
	uint32_t sused;

	assert_true(n < 2048);
	parse_pieces(EWYK_HTTP_ISA_SCALAR, s, n, NULL, 0, ref, NULL);
	for (isa = EWYK_HTTP_ISA_SCALAR; isa <= EWYK_HTTP_ISA_AVX2; isa++) {
		if (isa > (unsigned int)ewyk_http_isa_best())
			break;
		parse_pieces(isa, s, n, NULL, 0, out, NULL);
		assert_string_equal(out, ref);
		for (k = 1; k < n; k++) {
			parse_pieces(isa, s, n, &k, 1, out, NULL);
			assert_string_equal(out, ref);
		}
		for (k = 0; k + 1 < n; k++)
			cuts[k] = k + 1;
		parse_pieces(isa, s, n, cuts, n > 0 ? n - 1 : 0, out, &sused);
		assert_string_equal(out, ref);
		/* each byte is copied at most once: no re-scanning */
		assert_true(sused <= n);
		for (k = 0; k < n; k += 1 + n / 16) {
			parse_mbufs(isa, s, n, k, 1, out);
			assert_string_equal(out, ref);
			parse_mbufs(isa, s, n, k, 7, out);
			assert_string_equal(out, ref);
		}
	}
}

struct valid_case {
	const char *req;
	uint8_t method;
	uint8_t minor;
	uint8_t framing;
	uint8_t keep_alive;
	uint8_t expect;
	uint64_t cl;
	const char *path;
	uint16_t nheaders;
};

#define HOST "Host: a\r\n"
static const struct valid_case valid[] = {
	{ "GET / HTTP/1.1\r\n" HOST "\r\n", EWYK_HTTP_GET, 1, 0, 1, 0, 0, "/",
		1 },
	{ BROWSER, EWYK_HTTP_GET, 1, 0, 1, 0, 0,
		"/wp-content/uploads/2010/03/hello-kitty-darth-vader-pink.jpg",
		9 },
	{ "GET /x HTTP/1.0\r\n\r\n", EWYK_HTTP_GET, 0, 0, 0, 0, 0, "/x", 0 },
	{ "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", EWYK_HTTP_GET, 0,
		0, 1, 0, 0, "/", 1 },
	{ "GET / HTTP/1.1\r\n" HOST "Connection: close\r\n\r\n", EWYK_HTTP_GET,
		1, 0, 0, 0, 0, "/", 2 },
	{ "GET / HTTP/1.1\r\n" HOST "Connection: foo , Close\r\n\r\n",
		EWYK_HTTP_GET, 1, 0, 0, 0, 0, "/", 2 },
	{ "GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n",
		EWYK_HTTP_GET, 0, 0, 0, 0, 0, "/", 1 },
	{ "POST /echo HTTP/1.1\r\n" HOST "Content-Length: 5\r\n\r\nhello",
		EWYK_HTTP_POST, 1, EWYK_HTTP_BODY_LENGTH, 1, 0, 5, "/echo", 2 },
	{ "POST / HTTP/1.1\r\n" HOST "Content-Length: 5, 5\r\n\r\n",
		EWYK_HTTP_POST, 1, EWYK_HTTP_BODY_LENGTH, 1, 0, 5, "/", 2 },
	{ "POST / HTTP/1.1\r\n" HOST
	  "content-length: 7\r\nCONTENT-LENGTH: 7\r\n\r\n",
		EWYK_HTTP_POST, 1, EWYK_HTTP_BODY_LENGTH, 1, 0, 7, "/", 3 },
	{ "POST / HTTP/1.1\r\n" HOST "Content-Length: 0\r\n\r\n",
		EWYK_HTTP_POST, 1, EWYK_HTTP_BODY_NONE, 1, 0, 0, "/", 2 },
	{ "POST / HTTP/1.1\r\n" HOST "Transfer-Encoding: chunked\r\n\r\n",
		EWYK_HTTP_POST, 1, EWYK_HTTP_BODY_CHUNKED, 1, 0, 0, "/", 2 },
	{ "PUT / HTTP/1.1\r\n" HOST "Transfer-Encoding: ,Chunked ,\r\n\r\n",
		EWYK_HTTP_PUT, 1, EWYK_HTTP_BODY_CHUNKED, 1, 0, 0, "/", 2 },
	{ "PUT /u HTTP/1.1\r\n" HOST
	  "Expect: 100-Continue\r\nContent-Length: 10\r\n\r\n",
		EWYK_HTTP_PUT, 1, EWYK_HTTP_BODY_LENGTH, 1, 1, 10, "/u", 3 },
	{ "PUT /u HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n",
		EWYK_HTTP_PUT, 0, EWYK_HTTP_BODY_LENGTH, 0, 0, 1, "/u", 2 },
	{ "PUT /u HTTP/1.0\r\nExpect: whatever\r\n\r\n", EWYK_HTTP_PUT, 0, 0, 0,
		0, 0, "/u", 1 },
	{ "HEAD /h HTTP/1.1\r\n" HOST "\r\n", EWYK_HTTP_HEAD, 1, 0, 1, 0, 0,
		"/h", 1 },
	{ "OPTIONS * HTTP/1.1\r\n" HOST "\r\n", EWYK_HTTP_OPTIONS, 1, 0, 1, 0,
		0, "*", 1 },
	{ "GET http://example.com/a/b?c HTTP/1.1\r\n" HOST "\r\n",
		EWYK_HTTP_GET, 1, 0, 1, 0, 0, "/a/b", 1 },
	{ "GET HTTPS://example.com HTTP/1.1\r\n" HOST "\r\n", EWYK_HTTP_GET, 1,
		0, 1, 0, 0, "/", 1 },
	{ "\r\n\r\nDELETE /d?q=1&r=2 HTTP/1.1\r\n" HOST "\r\n",
		EWYK_HTTP_DELETE, 1, 0, 1, 0, 0, "/d", 1 },
	{ "GET / HTTP/1.1\r\n" HOST
	  "X-Empty:\r\nX-Ows: \t a b \t \r\nX-Tab: a\tb\r\n\r\n",
		EWYK_HTTP_GET, 1, 0, 1, 0, 0, "/", 4 },
	{ "GET / HTTP/1.1\r\n" HOST "X-Obs: caf\xc3\xa9 \xff\x80\r\n\r\n",
		EWYK_HTTP_GET, 1, 0, 1, 0, 0, "/", 2 },
	{ "GET / HTTP/1.2\r\n" HOST "\r\n", EWYK_HTTP_GET, 1, 0, 1, 0, 0, "/",
		1 },
	{ "TRACE / HTTP/1.1\r\n" HOST "\r\nGET /next HTTP/1.1\r\n" HOST "\r\n",
		EWYK_HTTP_TRACE, 1, 0, 1, 0, 0, "/", 1 },
	{ "PATCH /p HTTP/1.1\r\n" HOST
	  "X-Long: 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\r\n\r\n",
		EWYK_HTTP_PATCH, 1, 0, 1, 0, 0, "/p", 2 },
	{ "GET /!$&'()*+,;=:@-._~%20/ HTTP/1.1\r\n" HOST "\r\n", EWYK_HTTP_GET,
		1, 0, 1, 0, 0, "/!$&'()*+,;=:@-._~%20/", 1 },
	/* Host values: uri-host [":" port] (RFC 9112 3.2) */
	{ "GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n", EWYK_HTTP_GET, 1, 0, 1,
		0, 0, "/", 1 },
	{ "GET / HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n", EWYK_HTTP_GET, 1, 0,
		1, 0, 0, "/", 1 },
	{ "GET / HTTP/1.1\r\nHost: a-b.c_d~%41!$&'()*+,;=\r\n\r\n",
		EWYK_HTTP_GET, 1, 0, 1, 0, 0, "/", 1 },
	{ "GET / HTTP/1.1\r\nHost:\r\n\r\n", EWYK_HTTP_GET, 1, 0, 1, 0, 0, "/",
		1 },
	/* names ending in each of the fast path's colon-search words */
	{ "GET / HTTP/1.1\r\n" HOST "Abcdefg: 1\r\nAbcdefgh: 2\r\n"
	  "Abcdefghijklmnop: 3\r\nAbcdefghijklmnopqrstuvwx: 4\r\n"
	  "Abcdefghijklmnopqrstuvwxyz0123: 5\r\nX-!#$%&'*+.^_`|~: 6\r\n\r\n",
		EWYK_HTTP_GET, 1, 0, 1, 0, 0, "/", 7 },
	/* Host values across the validator's eight-byte steps */
	{ "GET / HTTP/1.1\r\nHost: abcdefgh%41bcdefgh.ijk:8080\r\n\r\n",
		EWYK_HTTP_GET, 1, 0, 1, 0, 0, "/", 1 },
	{ "GET / HTTP/1.1\r\nHost: www.example.com\r\n\r\n", EWYK_HTTP_GET, 1,
		0, 1, 0, 0, "/", 1 },
	{ "GET / HTTP/1.1\r\n" HOST "X-V: \ta\tb\tc\td\te\tf\tg\th \t\r\n\r\n",
		EWYK_HTTP_GET, 1, 0, 1, 0, 0, "/", 2 },
	/* dots that are not dot-segments, and dots in the query */
	{ "GET /a..b/.x/..y/...?q=/../. HTTP/1.1\r\n" HOST "\r\n",
		EWYK_HTTP_GET, 1, 0, 1, 0, 0, "/a..b/.x/..y/...", 1 },
	{ "GET http://h.example:8080/.well-known HTTP/1.1\r\n" HOST "\r\n",
		EWYK_HTTP_GET, 1, 0, 1, 0, 0, "/.well-known", 1 },
};

static void
test_valid(void **state)
{
	char ref[RES_MAX];
	struct ewyk_http_header hdr[MAXH];
	struct ewyk_http_request req = { .headers = hdr, .max_headers = MAXH };
	struct ewyk_http_parser p;
	static char scratch[2048];
	size_t i;
	uint32_t used;

	(void)state;
	for (i = 0; i < RTE_DIM(valid); i++) {
		const struct valid_case *v = &valid[i];
		size_t n = strlen(v->req);

		parse_every_way(v->req, n, ref);
		assert_int_equal(ewyk_http_parser_init(&p, &lim, scratch,
					 sizeof(scratch)),
			0);
		assert_int_equal(ewyk_http_parse(&p, &req, v->req, (uint32_t)n,
					 &used),
			EWYK_HTTP_DONE);
		assert_int_equal(req.method_id, v->method);
		assert_int_equal(req.version_minor, v->minor);
		assert_int_equal(req.framing, v->framing);
		assert_int_equal(req.keep_alive, v->keep_alive);
		assert_int_equal(req.expect_continue, v->expect);
		assert_int_equal(req.content_length, v->cl);
		assert_int_equal(req.nheaders, v->nheaders);
		assert_int_equal(req.head, v->method == EWYK_HTTP_HEAD);
		assert_int_equal(req.path.len, strlen(v->path));
		assert_memory_equal(req.path.p, v->path, req.path.len);
		/* the view points into the input when nothing straddled */
		assert_true(
			req.target.p >= v->req && req.target.p < v->req + n);
		assert_int_equal(p.scratch_used, 0);
		/* a body or the next request starts at 'used' */
		assert_true(used <= n);
		assert_memory_equal(v->req + used - 4, "\r\n\r\n", 4);
	}
	/* field values: OWS trimmed, obs-text and inner HT kept */
	assert_int_equal(ewyk_http_parser_init(&p, &lim, scratch,
				 sizeof(scratch)),
		0);
	assert_int_equal(ewyk_http_parse(&p, &req, valid[21].req,
				 (uint32_t)strlen(valid[21].req), &used),
		EWYK_HTTP_DONE);
	assert_int_equal(ewyk_http_header_find(&req, "x-empty")->value.len, 0);
	assert_memory_equal(ewyk_http_header_find(&req, "X-OWS")->value.p,
		"a b", 3);
	assert_int_equal(ewyk_http_header_find(&req, "X-OWS")->value.len, 3);
	assert_memory_equal(ewyk_http_header_find(&req, "x-tab")->value.p,
		"a\tb", 3);
	assert_null(ewyk_http_header_find(&req, "x-none"));
	assert_memory_equal(req.host.p, "a", 1);
	/* one byte per piece: views of straddling tokens are in scratch */
	ewyk_http_parser_reset(&p);
	for (i = 0; i < strlen(valid[0].req); i++) {
		int rc = ewyk_http_parse(&p, &req, valid[0].req + i, 1, &used);

		assert_int_equal(rc,
			i + 1 == strlen(valid[0].req) ? EWYK_HTTP_DONE :
							EWYK_HTTP_AGAIN);
	}
	assert_true(req.method.p >= scratch && req.method.p < scratch + 2048);
	assert_memory_equal(req.method.p, "GET", 3);
	/* done: more input is refused until reset */
	assert_int_equal(ewyk_http_parse(&p, &req, "x", 1, &used), -EINVAL);
}

struct bad_case {
	const char *req;
	uint16_t status;
	const char *why;
};

#define RL "GET / HTTP/1.1\r\n"
#define PL "POST / HTTP/1.1\r\n" HOST
static const struct bad_case bad[] = {
	{ PL "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", 400,
		"CL + TE" },
	{ PL "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n", 400,
		"TE + CL" },
	{ PL "Transfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n", 400,
		"TE + CL 0" },
	{ RL "\r\n", 400, "no Host in 1.1" },
	{ RL HOST "Host: b\r\n\r\n", 400, "two Host" },
	{ RL HOST "hOST: a\r\n\r\n", 400, "two Host, same value" },
	{ RL "Host : a\r\n\r\n", 400, "SP before colon" },
	{ RL "Host\t: a\r\n\r\n", 400, "HT before colon" },
	{ RL HOST "X: a\r\n b\r\n\r\n", 400, "obs-fold SP" },
	{ RL HOST "X: a\r\n\tb\r\n\r\n", 400, "obs-fold HT" },
	{ RL " Host: a\r\n\r\n", 400, "whitespace before first field" },
	{ RL HOST "Abcdefghij(lm: 1\r\n\r\n", 400, "'(' in a name" },
	{ RL HOST "Abcdefghijklmnopqrstuvwxyz0\"23: 1\r\n\r\n", 400,
		"DQUOTE in a long name" },
	{ RL "Host: abcdefghi/jk\r\n\r\n", 400, "Host '/' after 8 bytes" },
	{ RL "Host: abcdefgh%4g\r\n\r\n", 400, "Host bad pct after 8" },
	{ RL HOST "X: ab\tc\x01\r\n\r\n", 400, "CTL after HT in value" },
	{ RL HOST "X: a\0b\r\n\r\n", 400, "NUL in value" },
	{ RL HOST "X: a\x01"
		  "b\r\n\r\n",
		400, "CTL in value" },
	{ RL HOST "X: a\x7f\r\n\r\n", 400, "DEL in value" },
	{ RL HOST "X: a\rb\r\n\r\n", 400, "bare CR in value" },
	{ RL HOST "X: a\nY: b\r\n\r\n", 400, "bare LF ends a field" },
	{ "GET / HTTP/1.1\n" HOST "\r\n", 400, "bare LF ends request line" },
	{ RL HOST "\r\r\n", 400, "CR CR at the end" },
	{ "GET /a\0b HTTP/1.1\r\n" HOST "\r\n", 400, "NUL in target" },
	{ "GET /a\x7f HTTP/1.1\r\n" HOST "\r\n", 400, "DEL in target" },
	{ "GET /\xc3\xa9 HTTP/1.1\r\n" HOST "\r\n", 400, "obs-text in target" },
	{ "GET /a\tb HTTP/1.1\r\n" HOST "\r\n", 400, "HT in target" },
	{ PL "Content-Length: abc\r\n\r\n", 400, "CL not a number" },
	{ PL "Content-Length: -1\r\n\r\n", 400, "CL negative" },
	{ PL "Content-Length: +5\r\n\r\n", 400, "CL signed" },
	{ PL "Content-Length: 5 5\r\n\r\n", 400, "CL two numbers" },
	{ PL "Content-Length: 5, 6\r\n\r\n", 400, "CL list differs" },
	{ PL "Content-Length: 5,\r\n\r\n", 400, "CL empty element" },
	{ PL "Content-Length: 5\r\nContent-Length: 6\r\n\r\n", 400,
		"CL lines differ" },
	{ PL "Content-Length:\r\n\r\n", 400, "CL empty" },
	{ PL "Content-Length: 0x10\r\n\r\n", 400, "CL hex" },
	{ PL "Content-Length: 99999999999999999999999\r\n\r\n", 400,
		"CL overflow" },
	{ PL "Transfer-Encoding: gzip\r\n\r\n", 400, "TE not chunked" },
	{ PL "Transfer-Encoding: chunked, gzip\r\n\r\n", 400,
		"chunked not last" },
	{ PL "Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n",
		400, "chunked not last across lines" },
	{ PL "Transfer-Encoding: chunked, chunked\r\n\r\n", 400,
		"chunked twice" },
	{ PL "Transfer-Encoding:\r\n\r\n", 400, "TE empty" },
	{ PL "Transfer-Encoding: chunked;x=1\r\n\r\n", 400,
		"chunked with parameter" },
	{ PL "Transfer-Encoding: \"chunked\"\r\n\r\n", 400, "TE quoted" },
	{ PL "Transfer-Encoding: identity\r\n\r\n", 400, "TE identity" },
	{ "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400,
		"TE in 1.0" },
	{ PL "Transfer-Encoding: gzip, chunked\r\n\r\n", 501,
		"unsupported coding" },
	{ PL "Transfer-Encoding: foo\r\nTransfer-Encoding: chunked\r\n\r\n",
		501, "unknown coding" },
	{ "FOO / HTTP/1.1\r\n" HOST "\r\n", 501, "unknown method" },
	{ "get / HTTP/1.1\r\n" HOST "\r\n", 501, "method is case-sensitive" },
	{ "CONNECT a:443 HTTP/1.1\r\n" HOST "\r\n", 501, "CONNECT" },
	{ "GETGETGETGETGETGET / HTTP/1.1\r\n" HOST "\r\n", 501,
		"method too long" },
	{ "G(T / HTTP/1.1\r\n" HOST "\r\n", 400, "method not a token" },
	{ "GET / HTTP/2.0\r\n" HOST "\r\n", 505, "HTTP/2.0" },
	{ "GET / HTTP/0.9\r\n" HOST "\r\n", 505, "HTTP/0.9" },
	{ "GET / HTTP/1.10\r\n" HOST "\r\n", 400, "version too long" },
	{ "GET / http/1.1\r\n" HOST "\r\n", 400, "version lower case" },
	{ "GET / HTTP/1\r\n" HOST "\r\n", 400, "version short" },
	{ "GET /\r\n\r\n", 400, "HTTP/0.9 request line" },
	{ "GET  / HTTP/1.1\r\n" HOST "\r\n", 400, "two SP" },
	{ "GET / HTTP/1.1 \r\n" HOST "\r\n", 400, "SP after version" },
	{ "GET /a b HTTP/1.1\r\n" HOST "\r\n", 400, "SP in target" },
	{ "GET a HTTP/1.1\r\n" HOST "\r\n", 400, "relative target" },
	{ "GET * HTTP/1.1\r\n" HOST "\r\n", 400, "asterisk not OPTIONS" },
	{ "GET http:///a HTTP/1.1\r\n" HOST "\r\n", 400,
		"absolute without host" },
	{ " GET / HTTP/1.1\r\n" HOST "\r\n", 400, "SP before method" },
	{ "GET http://@/x HTTP/1.1\r\n" HOST "\r\n", 400,
		"absolute, empty authority" },
	{ "GET http://u@h/x HTTP/1.1\r\n" HOST "\r\n", 400,
		"absolute, userinfo" },
	{ "GET http://u:p@h HTTP/1.1\r\n" HOST "\r\n", 400,
		"absolute, user:pass" },
	{ "GET http://:80/x HTTP/1.1\r\n" HOST "\r\n", 400,
		"absolute, port only" },
	{ "GET http://h:8x/ HTTP/1.1\r\n" HOST "\r\n", 400,
		"absolute, bad port" },
	{ "GET http://h\"/ HTTP/1.1\r\n" HOST "\r\n", 400,
		"absolute, bad host char" },
	{ "GET http://h/x HTTP/1.1\r\n\r\n", 400, "absolute, no Host in 1.1" },
	{ "GET http://h/x HTTP/1.1\r\n" HOST HOST "\r\n", 400,
		"absolute, two Host" },
	{ RL "Host: a b\r\n\r\n", 400, "Host with SP" },
	{ RL "Host: u@a\r\n\r\n", 400, "Host with userinfo" },
	{ RL "Host: a/b\r\n\r\n", 400, "Host with path" },
	{ RL "Host: :80\r\n\r\n", 400, "Host port only" },
	{ RL "Host: a:80x\r\n\r\n", 400, "Host bad port" },
	{ RL "Host: a:1:2\r\n\r\n", 400, "Host two colons" },
	{ RL "Host: [::1\r\n\r\n", 400, "Host IP-literal unclosed" },
	{ RL "Host: []\r\n\r\n", 400, "Host IP-literal empty" },
	{ RL "Host: [::1]x\r\n\r\n", 400, "Host after IP-literal" },
	{ RL "Host: a%4\r\n\r\n", 400, "Host short pct-encoding" },
	{ RL "Host: a%zz\r\n\r\n", 400, "Host bad pct-encoding" },
	{ RL "Host: \xc3\xa9\r\n\r\n", 400, "Host obs-text" },
	{ "GET /a/../b HTTP/1.1\r\n" HOST "\r\n", 400, "dot-dot segment" },
	{ "GET /.. HTTP/1.1\r\n" HOST "\r\n", 400, "dot-dot segment at end" },
	{ "GET /a/./b HTTP/1.1\r\n" HOST "\r\n", 400, "dot segment" },
	{ "GET /a/. HTTP/1.1\r\n" HOST "\r\n", 400, "dot segment at end" },
	{ "GET /./?x HTTP/1.1\r\n" HOST "\r\n", 400,
		"dot segment before query" },
	{ "GET http://h/a/../b HTTP/1.1\r\n" HOST "\r\n", 400,
		"absolute, dot-dot" },
	{ "\r\n\r\n\r\n\r\n\r\n" RL HOST "\r\n", 400, "five empty lines" },
	{ "\r\r\nGET / HTTP/1.1\r\n" HOST "\r\n", 400, "bad empty line" },
	{ RL HOST "X(y): a\r\n\r\n", 400, "name not a token" },
	{ RL HOST ": a\r\n\r\n", 400, "empty name" },
	{ RL HOST "X a\r\n\r\n", 400, "no colon" },
	{ RL HOST "Expect: 100-continue-please\r\n\r\n", 417,
		"unknown expectation" },
	{ PL "Content-Length: 4097\r\n\r\n", 413, "CL over max_body" },
	{ "GET /"
	  "0123456789012345678901234567890123456789012345678901234567890123"
	  "0123456789012345678901234567890123456789012345678901234567890123"
	  "0123456789012345678901234567890123456789012345678901234567890123"
	  "0123456789012345678901234567890123456789012345678901234567890123"
	  " HTTP/1.1\r\n" HOST "\r\n",
		414, "request line over 256" },
};

/* absolute-form: the host is the target's authority, Host is ignored */
static void
test_absolute_host(void **state)
{
	static const char *const reqs[] = {
		"GET http://example.com/a/b?c HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET http://example.com?c HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET http://example.com HTTP/1.0\r\n\r\n",
		"GET http://example.com/x HTTP/1.1\r\nX: y\r\nHost: a\r\n\r\n",
	};
	char ref[RES_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < RTE_DIM(reqs); i++) {
		parse_every_way(reqs[i], strlen(reqs[i]), ref);
		if (strstr(ref, " H=[example.com]") == NULL)
			fail_msg("case %zu: '%s'", i, ref);
	}
	/* origin-form: the host is the Host field's value */
	parse_every_way("GET /x HTTP/1.1\r\nHost: a:1\r\n\r\n", 30, ref);
	assert_non_null(strstr(ref, " H=[a:1]"));
}

/* Empty lines before the request line are not charged to its budget. */
static void
test_empty_lines(void **state)
{
	char ref[RES_MAX], buf[512];
	size_t k, n, line;
	unsigned int e;

	(void)state;
	for (line = 256; line <= 257; line++) {
		for (e = 0; e <= 5; e++) {
			n = 0;
			for (k = 0; k < e; k++) {
				buf[n++] = '\r';
				buf[n++] = '\n';
			}
			memcpy(buf + n, "GET /", 5);
			n += 5;
			memset(buf + n, 'a', line - 16);
			n += line - 16;
			memcpy(buf + n, " HTTP/1.1\r\n" HOST "\r\n", 22);
			n += 22;
			parse_every_way(buf, n, ref);
			if (e == 5)
				assert_string_equal(ref, "rc=-74 st=400");
			else if (line == 257)
				assert_string_equal(ref, "rc=-74 st=414");
			else if (strncmp(ref, "rc=1 ", 5) != 0)
				fail_msg("%u empty lines: '%s'", e, ref);
		}
	}
}

/* Requests built at run time: header section and count limits. */
static size_t
big_header(char *buf, size_t cap, unsigned int nfields, unsigned int vlen)
{
	size_t n = (size_t)snprintf(buf, cap, RL HOST);
	unsigned int i;

	for (i = 0; i < nfields; i++) {
		n += (size_t)snprintf(buf + n, cap - n, "X-%u: ", i);
		memset(buf + n, 'v', vlen);
		n += vlen;
		n += (size_t)snprintf(buf + n, cap - n, "\r\n");
	}
	n += (size_t)snprintf(buf + n, cap - n, "\r\n");
	return n;
}

static void
test_malformed(void **state)
{
	char ref[RES_MAX], want[64], big[2048];
	size_t i, n;

	(void)state;
	assert_true(RTE_DIM(bad) >= 40);
	for (i = 0; i < RTE_DIM(bad); i++) {
		const char *s = bad[i].req;

		/* the tables hold NULs: the length is up to the final CRLFCRLF */
		n = strlen(s);
		if (strstr(bad[i].why, "NUL") != NULL)
			n += strlen(s + n + 1) + 1;
		parse_every_way(s, n, ref);
		snprintf(want, sizeof(want), "rc=%d st=%u", -EBADMSG,
			bad[i].status);
		if (strcmp(ref, want) != 0)
			fail_msg("case %zu (%s): got '%s', want '%s'", i,
				bad[i].why, ref, want);
	}
	/* 16 fields fit (Host + 15), a 17th is over the count limit */
	n = big_header(big, sizeof(big), 15, 4);
	parse_every_way(big, n, ref);
	assert_int_equal(strncmp(ref, "rc=1 ", 5), 0);
	n = big_header(big, sizeof(big), 16, 4);
	parse_every_way(big, n, ref);
	assert_string_equal(ref, "rc=-74 st=431");
	/* header section over 1024 bytes */
	n = big_header(big, sizeof(big), 3, 340);
	parse_every_way(big, n, ref);
	assert_string_equal(ref, "rc=-74 st=431");
	/* exactly at the limits: accepted */
	i = big_header(big, sizeof(big), 1, 0) - 16; /* section, no value */
	n = big_header(big, sizeof(big), 1, (unsigned int)(1024 - i));
	parse_every_way(big, n, ref);
	assert_int_equal(strncmp(ref, "rc=1 ", 5), 0);
	n = big_header(big, sizeof(big), 1, (unsigned int)(1024 - i) + 1);
	parse_every_way(big, n, ref);
	assert_string_equal(ref, "rc=-74 st=431");
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_absolute_host),
		cmocka_unit_test(test_empty_lines),
		cmocka_unit_test(test_body),
		cmocka_unit_test(test_body_mbuf),
		cmocka_unit_test(test_body_overhead),
		cmocka_unit_test(test_response),
		cmocka_unit_test(test_response_mbuf_chunked),
		cmocka_unit_test(test_router),
		cmocka_unit_test(test_router_segments),
		cmocka_unit_test(test_parse_then_route),
		cmocka_unit_test(test_hex_digit_and_pct_octet),
		cmocka_unit_test(test_parse_u64),
	};

	if (ewyk_test_eal_init(argc, argv) < 0)
		return 1;
	mp = rte_pktmbuf_pool_create("test_http", 8191, 0, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (mp == NULL)
		return 1;
	printf("http: scanners up to isa %d (0 scalar, 1 SSE4.2, 2 AVX2)\n",
		(int)ewyk_http_isa_best());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
