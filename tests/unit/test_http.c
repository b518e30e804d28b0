/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/http unit tests: the request-head parser on tables of valid and
 * malformed requests, each fed whole, split at every byte offset, one byte
 * per piece and as mbuf chains of small segments, with every instruction
 * set the CPU has: every way must give the same result. Then the body
 * decoders (split everywhere), the response writer and the router.
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

/* Small limits, so that the limit cases stay short. */
static const struct ewyk_http_limits lim = {
	.max_line = 256,
	.max_header_bytes = 1024,
	.max_body = 4096,
};
#define MAXH 16

static struct rte_mempool *mp;

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

#define RES_MAX 4096

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

/* Build an mbuf chain of s[0, n) with segment sizes cycling 1..maxseg. */
static struct rte_mbuf *
chain_of(const char *s, size_t n, unsigned int maxseg)
{
	struct rte_mbuf *head = NULL, *m;
	size_t off = 0;
	unsigned int sz = 1;

	while (off < n) {
		size_t k = sz < n - off ? sz : n - off;

		m = rte_pktmbuf_alloc(mp);
		assert_non_null(m);
		memcpy(rte_pktmbuf_append(m, (uint16_t)k), s + off, k);
		if (head == NULL)
			head = m;
		else
			assert_int_equal(rte_pktmbuf_chain(head, m), 0);
		off += k;
		sz = sz % maxseg + 1;
	}
	return head;
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

/* ---- body decoders ---- */

/*
 * Decode body s[0, n) (framing from 'req') in pieces ending at cuts[];
 * the data, the stop offset and the outcome as a string.
 */
static void
body_pieces(const struct ewyk_http_request *req, const char *s, size_t n,
	const size_t *cuts, size_t ncuts, char *out)
{
	struct ewyk_http_body b;
	struct ewyk_http_view d;
	char data[RES_MAX];
	size_t k, from = 0, dlen = 0, off;
	uint32_t used, total = 0;
	int rc = EWYK_HTTP_AGAIN;

	assert_int_equal(ewyk_http_body_init(&b, req, &lim), 0);
	for (k = 0; k <= ncuts && rc != EWYK_HTTP_DONE && rc >= 0; k++) {
		size_t to = k < ncuts ? cuts[k] : n;
		char *buf = malloc(to - from + 1);

		assert_non_null(buf);
		memcpy(buf, s + from, to - from);
		off = 0;
		do {
			rc = ewyk_http_body_parse(&b, buf + off,
				(uint32_t)(to - from - off), &used, &d);
			if (rc == EWYK_HTTP_DATA) {
				assert_true(d.p >= buf + off &&
					d.p + d.len <= buf + (to - from));
				assert_true(dlen + d.len < sizeof(data));
				memcpy(data + dlen, d.p, d.len);
				dlen += d.len;
			}
			off += used;
			total += used;
		} while (rc == EWYK_HTTP_DATA && off < to - from);
		if (rc == EWYK_HTTP_DATA) /* piece ended with data: ask again */
			rc = EWYK_HTTP_AGAIN;
		free(buf);
		from = to;
	}
	if (rc == EWYK_HTTP_AGAIN) {
		/* may complete with no more input (CL body just ended) */
		rc = ewyk_http_body_parse(&b, NULL, 0, &used, &d);
	}
	snprintf(out, RES_MAX, "rc=%d st=%u used=%u data=[%.*s]", rc,
		rc < 0 ? b.status : 0, rc < 0 ? 0 : total, (int)dlen, data);
}

static void
body_every_way(const struct ewyk_http_request *req, const char *s, size_t n,
	char *ref)
{
	char out[RES_MAX];
	size_t cuts[2048], k;

	assert_true(n <= RTE_DIM(cuts));
	body_pieces(req, s, n, NULL, 0, ref);
	for (k = 1; k < n; k++) {
		body_pieces(req, s, n, &k, 1, out);
		assert_string_equal(out, ref);
	}
	for (k = 0; k + 1 < n; k++)
		cuts[k] = k + 1;
	body_pieces(req, s, n, cuts, n - 1, out);
	assert_string_equal(out, ref);
}

struct body_case {
	uint8_t framing;
	uint64_t cl;
	const char *in;
	const char *want;
};

static const struct body_case bodies[] = {
	{ EWYK_HTTP_BODY_LENGTH, 5, "helloGET / ",
		"rc=1 st=0 used=5 data=[hello]" },
	{ EWYK_HTTP_BODY_NONE, 0, "GET / ", "rc=1 st=0 used=0 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "5\r\nhello\r\n0\r\n\r\nGET",
		"rc=1 st=0 used=15 data=[hello]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0,
		"5;a=b;c\r\nhello\r\n6 ; x=\"y z\"\r\n world\r\n0\r\nTrailer: x\r\nT2: y\r\n\r\nX",
		"rc=1 st=0 used=61 data=[hello world]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0,
		"A\r\n0123456789\r\n00003\r\nabc\r\n000\r\n\r\n",
		"rc=1 st=0 used=34 data=[0123456789abc]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "g\r\n", "rc=-74 st=400 used=0 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "\r\n", "rc=-74 st=400 used=0 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "-1\r\n", "rc=-74 st=400 used=0 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "0x5\r\n",
		"rc=-74 st=400 used=0 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "5\r\nhelloX\r\n",
		"rc=-74 st=400 used=0 data=[hello]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "5\nhello",
		"rc=-74 st=400 used=0 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "5\r\nhello\n0\r\n\r\n",
		"rc=-74 st=400 used=0 data=[hello]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "5 \r\nhello",
		"rc=-74 st=400 used=0 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "5;a\x01\r\nhello",
		"rc=-74 st=400 used=0 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "4000000000000000\r\n",
		"rc=-74 st=400 used=0 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "10000000000000000000\r\n",
		"rc=-74 st=400 used=0 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "1001\r\n",
		"rc=-74 st=413 used=0 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "800\r\n", "rc=0 st=0 used=5 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "0\r\n x: y\r\n\r\n",
		"rc=-74 st=400 used=0 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "0\r\nx: \x7f\r\n\r\n",
		"rc=-74 st=400 used=0 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "0\r\nx: y\n\r\n",
		"rc=-74 st=400 used=0 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "0\r\n\r\r",
		"rc=-74 st=400 used=0 data=[]" },
	{ EWYK_HTTP_BODY_LENGTH, 4097, "x", "rc=-74 st=413 used=0 data=[]" },
};

static void
test_body(void **state)
{
	struct ewyk_http_request req;
	char ref[RES_MAX], big[1200];
	size_t i;

	(void)state;
	memset(&req, 0, sizeof(req));
	for (i = 0; i < RTE_DIM(bodies); i++) {
		req.framing = bodies[i].framing;
		req.content_length = bodies[i].cl;
		body_every_way(&req, bodies[i].in, strlen(bodies[i].in), ref);
		if (strcmp(ref, bodies[i].want) != 0)
			fail_msg("body %zu: got '%s', want '%s'", i, ref,
				bodies[i].want);
	}
	/* the chunk sizes add up against max_body (4096) */
	req.framing = EWYK_HTTP_BODY_CHUNKED;
	body_every_way(&req, "800\r\n", 5, ref);
	/* chunk-size line (with extensions) over the limit */
	memset(big, 'a', sizeof(big));
	memcpy(big, "1;", 2);
	body_every_way(&req, big, sizeof(big), ref);
	assert_string_equal(ref, "rc=-74 st=400 used=0 data=[]");
	/* trailer section over max_header_bytes (1024) */
	memcpy(big, "0\r\nX: ", 6);
	body_every_way(&req, big, sizeof(big), ref);
	assert_string_equal(ref, "rc=-74 st=431 used=0 data=[]");
}

static void
test_body_mbuf(void **state)
{
	static const char in[] =
		"3\r\nabc\r\n4;e\r\ndefg\r\n0\r\nT: 1\r\n\r\nNEXT";
	struct ewyk_http_request req;
	struct ewyk_http_body b;
	struct ewyk_http_view d;
	struct rte_mbuf *m;
	char data[64];
	uint32_t off = 0, used;
	size_t dlen = 0;
	int rc;

	(void)state;
	memset(&req, 0, sizeof(req));
	req.framing = EWYK_HTTP_BODY_CHUNKED;
	m = chain_of(in, sizeof(in) - 1, 3);
	assert_int_equal(ewyk_http_body_init(&b, &req, NULL), 0);
	do {
		rc = ewyk_http_body_parse_mbuf(&b, m, off, &used, &d);
		off += used;
		if (rc == EWYK_HTTP_DATA) {
			memcpy(data + dlen, d.p, d.len);
			dlen += d.len;
		}
	} while (rc == EWYK_HTTP_DATA);
	assert_int_equal(rc, EWYK_HTTP_DONE);
	assert_int_equal(dlen, 7);
	assert_memory_equal(data, "abcdefg", 7);
	assert_int_equal(off, sizeof(in) - 1 - 4);
	assert_int_equal(ewyk_http_body_parse_mbuf(&b, m, off, &used, &d),
		EWYK_HTTP_DONE);
	rte_pktmbuf_free(m);
	assert_int_equal(ewyk_http_body_init(NULL, &req, NULL), -EINVAL);
}

/* ---- response writer ---- */

static void
test_response(void **state)
{
	struct ewyk_http_date d;
	struct ewyk_http_response r = {
		.status = 200,
		.framing = EWYK_HTTP_BODY_LENGTH,
		.content_length = 12,
		.content_type = "text/plain",
	};
	char buf[512];
	int n, cap;

	(void)state;
	memset(&d, 0, sizeof(d));
	assert_int_equal(ewyk_http_date_update(&d, 784111777), 1);
	assert_string_equal(d.line, "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n");
	assert_int_equal(ewyk_http_date_update(&d, 784111777), 0);
	assert_int_equal(ewyk_http_date_update(&d, 1763942400), 1);
	assert_string_equal(d.line, "Date: Mon, 24 Nov 2025 00:00:00 GMT\r\n");
	assert_int_equal(ewyk_http_date_update(&d, 784111777), 1);

	/* The IMF-fixdate alone (Last-Modified): before the Epoch too; a
	 * year past 9999 has none; the buffer must hold it and its NUL. */
	{
		char v[EWYK_HTTP_IMF_DATE_LEN + 1];

		assert_int_equal(ewyk_http_imf_date(784111777, v, sizeof(v)),
			0);
		assert_string_equal(v, "Sun, 06 Nov 1994 08:49:37 GMT");
		assert_int_equal(ewyk_http_imf_date(-86400, v, sizeof(v)), 0);
		assert_string_equal(v, "Wed, 31 Dec 1969 00:00:00 GMT");
		assert_int_equal(ewyk_http_imf_date(INT64_C(253402300800), v,
					 sizeof(v)),
			-ERANGE);
		assert_int_equal(ewyk_http_imf_date(0, v, sizeof(v) - 1),
			-EINVAL);
		assert_int_equal(ewyk_http_imf_date(0, NULL, sizeof(v)),
			-EINVAL);
	}

	n = ewyk_http_response_head(buf, sizeof(buf), &r, &d);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf,
		"HTTP/1.1 200 OK\r\nServer: ewyk\r\n"
		"Date: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Length: 12\r\n"
		"Content-Type: text/plain\r\n\r\n");
	/* every smaller buffer is refused */
	for (cap = 0; cap < n; cap++)
		assert_int_equal(ewyk_http_response_head(buf, (uint32_t)cap, &r,
					 &d),
			-ENOSPC);

	r.status = 405;
	r.framing = EWYK_HTTP_BODY_CHUNKED;
	r.content_type = NULL;
	r.connection = EWYK_HTTP_CONN_CLOSE;
	r.server = "test";
	r.extra = "Allow: GET, HEAD\r\n";
	n = ewyk_http_response_head(buf, sizeof(buf), &r, NULL);
	buf[n] = '\0';
	assert_string_equal(buf,
		"HTTP/1.1 405 Method Not Allowed\r\n"
		"Server: test\r\nTransfer-Encoding: chunked\r\n"
		"Connection: close\r\nAllow: GET, HEAD\r\n\r\n");

	memset(&r, 0, sizeof(r));
	r.status = 204;
	r.framing = EWYK_HTTP_BODY_LENGTH;
	r.connection = EWYK_HTTP_CONN_KEEP_ALIVE;
	n = ewyk_http_response_head(buf, sizeof(buf), &r, NULL);
	buf[n] = '\0';
	assert_string_equal(buf,
		"HTTP/1.1 204 No Content\r\nServer: ewyk\r\n"
		"Connection: keep-alive\r\n\r\n");
	r.status = 404;
	r.framing = EWYK_HTTP_BODY_NONE;
	n = ewyk_http_response_head(buf, sizeof(buf), &r, NULL);
	buf[n] = '\0';
	assert_string_equal(buf,
		"HTTP/1.1 404 Not Found\r\nServer: ewyk\r\n"
		"Content-Length: 0\r\nConnection: keep-alive\r\n\r\n");
	/* close-delimited (to HTTP/1.0): no framing field at all */
	r.status = 200;
	r.framing = EWYK_HTTP_BODY_CLOSE;
	r.connection = EWYK_HTTP_CONN_CLOSE;
	n = ewyk_http_response_head(buf, sizeof(buf), &r, NULL);
	buf[n] = '\0';
	assert_string_equal(buf,
		"HTTP/1.1 200 OK\r\nServer: ewyk\r\nConnection: close\r\n\r\n");
	r.framing = EWYK_HTTP_BODY_CLOSE + 1;
	assert_int_equal(ewyk_http_response_head(buf, sizeof(buf), &r, NULL),
		-EINVAL);
	r.framing = EWYK_HTTP_BODY_NONE;
	r.connection = EWYK_HTTP_CONN_KEEP_ALIVE;
	r.status = 100;
	n = ewyk_http_response_head(buf, sizeof(buf), &r, &d);
	assert_int_equal(n, 25);
	assert_memory_equal(buf, "HTTP/1.1 100 Continue\r\n\r\n", 25);
	r.status = 99;
	assert_int_equal(ewyk_http_response_head(buf, sizeof(buf), &r, NULL),
		-EINVAL);
	/* no header injection: CR, LF, CTL in the strings copied */
	r.status = 200;
	r.server = "x\r\nSet-Cookie: a=b";
	assert_int_equal(ewyk_http_response_head(buf, sizeof(buf), &r, NULL),
		-EINVAL);
	r.server = "x\ny";
	assert_int_equal(ewyk_http_response_head(buf, sizeof(buf), &r, NULL),
		-EINVAL);
	r.server = "x\x7f";
	assert_int_equal(ewyk_http_response_head(buf, sizeof(buf), &r, NULL),
		-EINVAL);
	r.server = "ewyk/1\t(test)";
	r.content_type = "text/html\r\n\r\n<script>";
	assert_int_equal(ewyk_http_response_head(buf, sizeof(buf), &r, NULL),
		-EINVAL);
	r.content_type = "text/plain\x01";
	assert_int_equal(ewyk_http_response_head(buf, sizeof(buf), &r, NULL),
		-EINVAL);
	r.content_type = NULL;
	{
		static const char *const bad_extra[] = {
			"X-A: 1",               /* no CRLF */
			"X-A: 1\n",             /* bare LF */
			"X-A: 1\rX-B: 2\r\n",   /* bare CR */
			"X-A: 1\r\n\r\nbody",   /* ends the head */
			"X-A 1\r\n",            /* no colon */
			": 1\r\n",              /* empty name */
			"X A: 1\r\n",           /* name not a token */
			"X-A: 1\r\n\tfold\r\n", /* obs-fold */
			"X-A: \x01\r\n",        /* CTL */
		};
		size_t i;

		for (i = 0; i < RTE_DIM(bad_extra); i++) {
			r.extra = bad_extra[i];
			if (ewyk_http_response_head(buf, sizeof(buf), &r,
				    NULL) != -EINVAL)
				fail_msg("extra %zu accepted", i);
		}
	}
	r.extra = "X-A: 1\r\nX-B:\t2 \t3\r\nX-Empty:\r\n";
	n = ewyk_http_response_head(buf, sizeof(buf), &r, NULL);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf,
		"HTTP/1.1 200 OK\r\nServer: ewyk/1\t(test)\r\n"
		"Content-Length: 0\r\nConnection: keep-alive\r\n"
		"X-A: 1\r\nX-B:\t2 \t3\r\nX-Empty:\r\n\r\n");
	r.extra = "";
	assert_true(ewyk_http_response_head(buf, sizeof(buf), &r, NULL) > 0);
	assert_string_equal(ewyk_http_reason(431),
		"Request Header Fields Too Large");
	assert_string_equal(ewyk_http_reason(299), "Unknown");
}

static void
test_response_mbuf_chunked(void **state)
{
	struct ewyk_http_response r = {
		.status = 200,
		.framing = EWYK_HTTP_BODY_CHUNKED,
	};
	struct ewyk_http_request req;
	struct rte_mbuf *m, *m2;
	char flat[256], out[RES_MAX];
	int n;

	(void)state;
	assert_int_equal(ewyk_http_chunk_size_line(flat, 8, 0x1a2b), 6);
	assert_memory_equal(flat, "1a2b\r\n", 6);
	assert_int_equal(ewyk_http_chunk_size_line(flat, 5, 0x1a2b), -ENOSPC);
	assert_int_equal(ewyk_http_chunk_size_line(flat, 20, UINT64_MAX), 18);

	m = rte_pktmbuf_alloc(mp);
	assert_int_equal(ewyk_http_response_head_mbuf(m, &r, NULL), 0);
	n = ewyk_http_response_head(flat, sizeof(flat), &r, NULL);
	assert_int_equal(m->pkt_len, (uint32_t)n);
	assert_memory_equal(rte_pktmbuf_mtod(m, char *), flat, (size_t)n);
	rte_pktmbuf_free(m);

	/* a two-segment chunk, wrapped in place, then the last chunk */
	m = chain_of("hello world", 11, 6);
	assert_int_equal(m->nb_segs, 5); /* 1+2+3+4+1 bytes */
	assert_int_equal(ewyk_http_chunk_wrap_mbuf(m), 0);
	assert_int_equal(m->pkt_len, 3 + 11 + 2);
	m2 = rte_pktmbuf_alloc(mp);
	assert_int_equal(ewyk_http_chunk_last_mbuf(m2), 0);
	assert_int_equal(rte_pktmbuf_chain(m, m2), 0);
	assert_non_null(rte_pktmbuf_read(m, 0, m->pkt_len, flat));
	assert_memory_equal(rte_pktmbuf_read(m, 0, m->pkt_len, flat),
		"b\r\nhello world\r\n0\r\n\r\n", m->pkt_len);
	/* what the encoder wrote, the decoder reads back, split anywhere */
	memset(&req, 0, sizeof(req));
	req.framing = EWYK_HTTP_BODY_CHUNKED;
	body_every_way(&req, rte_pktmbuf_read(m, 0, m->pkt_len, flat),
		m->pkt_len, out);
	assert_string_equal(out, "rc=1 st=0 used=21 data=[hello world]");
	rte_pktmbuf_free(m);

	m = rte_pktmbuf_alloc(mp);
	assert_int_equal(ewyk_http_chunk_wrap_mbuf(m), -EINVAL);
	/* no headroom: refused, unchanged */
	rte_pktmbuf_prepend(m, rte_pktmbuf_headroom(m));
	assert_int_equal(ewyk_http_chunk_wrap_mbuf(m), -ENOSPC);
	assert_int_equal(m->data_len, RTE_PKTMBUF_HEADROOM);
	rte_pktmbuf_free(m);
}

/* ---- router ---- */

static int h_root, h_bytes, h_bytes_big, h_echo, h_echo_put, h_sleep;

static void
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
static void
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
static void
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
		cmocka_unit_test(test_response),
		cmocka_unit_test(test_response_mbuf_chunked),
		cmocka_unit_test(test_router),
		cmocka_unit_test(test_router_segments),
		cmocka_unit_test(test_parse_then_route),
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
