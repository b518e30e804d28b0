/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * White-box tests of the request parser's fast path (lib/http): the
 * 16-byte classifiers against the tables and functions they stand in for,
 * byte for byte, and whole-input parses on every instruction set against
 * a byte-at-a-time parse (the state machine) for the forms of field lines
 * the fast path treats apart: "Host: ", names with every byte value,
 * values with every byte value, leading and trailing OWS, targets with
 * dot segments and queries at every offset.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_common.h>

#include "http_private.h"
#include "test_common.h"

#define MAXH 16

static const struct ewyk_http_limits lim = { 0 };

/*
 * An outcome as text: return code, status, and for a parsed head the bytes
 * used and every view (after an error, what was used is not defined the
 * same way for one piece and for many).
 */
static void
outcome(char *out, size_t cap, int rc, const struct ewyk_http_parser *p,
	const struct ewyk_http_request *req, uint32_t used)
{
	size_t n;
	uint16_t i;

	n = (size_t)snprintf(out, cap, "rc=%d st=%u", rc,
		(unsigned int)p->status);
	if (rc != EWYK_HTTP_DONE)
		return;
	n += (size_t)snprintf(out + n, cap - n,
		" used=%u m=%u v=%u f=%u ka=%u cl=%llu t=%.*s p=%.*s h=%.*s",
		used, req->method_id, req->version_minor, req->framing,
		req->keep_alive, (unsigned long long)req->content_length,
		(int)req->target.len, req->target.p, (int)req->path.len,
		req->path.p, (int)req->host.len,
		req->host.p != NULL ? req->host.p : "");
	for (i = 0; i < req->nheaders && n < cap; i++)
		n += (size_t)snprintf(out + n, cap - n, " [%.*s]=[%.*s]",
			(int)req->headers[i].name.len, req->headers[i].name.p,
			(int)req->headers[i].value.len,
			req->headers[i].value.p);
}

/*
 * Parse s[0, n) with isa, whole (one exact-size buffer: ASan sees any read
 * beyond it) or one byte per piece.
 */
static void
parse(unsigned int isa, const char *s, size_t n, int bytewise, char *out,
	size_t cap)
{
	static char scratch[EWYK_HTTP_DEF_MAX_LINE +
		EWYK_HTTP_DEF_MAX_HEADER_BYTES];
	struct ewyk_http_header hdr[MAXH];
	struct ewyk_http_request req = { .headers = hdr, .max_headers = MAXH };
	struct ewyk_http_parser p;
	uint32_t used, total = 0;
	int rc = EWYK_HTTP_AGAIN;
	size_t off = 0;

	assert_int_equal(ewyk_http_parser_init(&p, &lim, scratch,
				 sizeof(scratch)),
		0);
	assert_int_equal(ewyk_http_parser_set_isa(&p, (enum ewyk_http_isa)isa),
		0);
	while (off < n && rc == EWYK_HTTP_AGAIN) {
		size_t k = bytewise ? 1 : n - off;
		char *b = malloc(k);

		assert_non_null(b);
		memcpy(b, s + off, k);
		rc = ewyk_http_parse(&p, &req, b, (uint32_t)k, &used);
		total += used;
		/* views into b are printed before it is freed */
		if (rc != EWYK_HTTP_AGAIN)
			outcome(out, cap, rc, &p, &req, total);
		free(b);
		off += k;
	}
	if (rc == EWYK_HTTP_AGAIN)
		outcome(out, cap, rc, &p, &req, total);
}

/* Every isa, whole, gives what the state machine gives byte by byte. */
static void
same_every_isa(const char *s, size_t n)
{
	char ref[4096], out[4096];
	unsigned int isa;

	parse(EWYK_HTTP_ISA_SCALAR, s, n, 1, ref, sizeof(ref));
	for (isa = EWYK_HTTP_ISA_SCALAR;
		isa <= (unsigned int)ewyk_http_isa_best(); isa++) {
		parse(isa, s, n, 0, out, sizeof(out));
		if (strcmp(out, ref) != 0)
			fail_msg("isa %u on %.*s:\n  %s\n  byte-wise: %s", isa,
				(int)n, s, out, ref);
	}
}

static void
test_tchar16(void **state)
{
#ifdef __SSSE3__
	unsigned int b, k;
	uint8_t v[16];

	(void)state;
	/* each byte value in each lane, the other lanes a tchar and not */
	for (b = 0; b < 256; b++) {
		for (k = 0; k < 16; k++) {
			uint32_t m;

			memset(v, 'a', sizeof(v));
			v[k] = (uint8_t)b;
			m = http_tchar16(_mm_loadu_si128((const __m128i *)v));
			assert_int_equal((m >> k) & 1, http_tchar[b] != 0);
			assert_int_equal(m | (UINT32_C(1) << k), 0xffff);
			memset(v, ' ', sizeof(v));
			v[k] = (uint8_t)b;
			m = http_tchar16(_mm_loadu_si128((const __m128i *)v));
			assert_int_equal(m,
				http_tchar[b] ? UINT32_C(1) << k : 0);
		}
	}
#else
	(void)state;
	skip();
#endif
}

static void
test_value_stop16(void **state)
{
#ifdef __SSSE3__
	unsigned int b, k;
	uint8_t v[16];

	(void)state;
	for (b = 0; b < 256; b++) {
		/* CTL (HT included) and DEL stop; SP, VCHAR, obs-text pass */
		uint32_t stop = b < 0x20 || b == 0x7f;

		for (k = 0; k < 16; k++) {
			memset(v, 'x', sizeof(v));
			v[k] = (uint8_t)b;
			assert_int_equal(http_value_stop16(_mm_loadu_si128(
						 (const __m128i *)v)),
				stop << k);
		}
	}
#else
	(void)state;
	skip();
#endif
}

/* http_authority_quick() accepts only what http_authority_valid() does. */
static void
test_authority_quick(void **state)
{
	static const char alpha[] = "aZ09-.:%[]@_~ !/?#\x7f\x80\tfF";
	static const char *const yes[] = { "www.example.com", "a", "A-B.c",
		"localhost:8080", "x:", "10.0.0.1:80", "0123456789abcdef",
		"[::1]", "[fd00:9::1]:80",
		"[2001:db8::2]:", "[::ffff:1.2.3.4]" };
	static const char *const no[] = { ":80", "", "a b", "a:8x",
		"0123456789abcdefg", "[]", "[::1", "[::1]x", "[::1]:8x",
		"[g::1]" };
	char v[32];
	uint64_t seed = 88172645463325252ULL;
	unsigned int t, k, n;

	(void)state;
	for (k = 0; k < RTE_DIM(yes); k++) {
		memset(v, '\r', sizeof(v));
		memcpy(v, yes[k], strlen(yes[k]));
#ifdef __SSE2__
		assert_int_equal(http_authority_quick(v,
					 (uint32_t)strlen(yes[k]), sizeof(v)),
			1);
#endif
		assert_int_equal(http_authority_valid(v,
					 (uint32_t)strlen(yes[k]), 0),
			1);
	}
	for (k = 0; k < RTE_DIM(no); k++) {
		memset(v, '\r', sizeof(v));
		memcpy(v, no[k], strlen(no[k]));
		assert_int_equal(http_authority_quick(v,
					 (uint32_t)strlen(no[k]), sizeof(v)),
			0);
	}
	/* not readable: no decision, whatever the bytes */
	assert_int_equal(http_authority_quick("a", 1, 15), 0);
	for (t = 0; t < 200000; t++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		n = (unsigned int)(seed % 18);
		for (k = 0; k < n; k++)
			v[k] = alpha[(seed >> (5 + 3 * k)) %
				(sizeof(alpha) - 1)];
		memset(v + n, '\r', sizeof(v) - n);
		if (http_authority_quick(v, n, sizeof(v)))
			assert_int_equal(http_authority_valid(v, n, 1), 1);
	}
}

static void
test_name_is(void **state)
{
	(void)state;
	assert_true(HTTP_NAME_IS("Host", "host"));
	assert_true(HTTP_NAME_IS("HOST", "host"));
	assert_false(HTTP_NAME_IS("Hosu", "host"));
	assert_true(HTTP_NAME_IS("Expect", "expect"));
	assert_false(HTTP_NAME_IS("Expecu", "expect"));
	assert_true(HTTP_NAME_IS("CONNECTION", "connection"));
	assert_false(HTTP_NAME_IS("connectiom", "connection"));
	assert_true(HTTP_NAME_IS("Content-Length", "content-length"));
	assert_false(HTTP_NAME_IS("Content_Length", "content-length"));
	assert_true(HTTP_NAME_IS("Transfer-Encoding", "transfer-encoding"));
	assert_false(HTTP_NAME_IS("Transfer-EncodinG!", "transfer-encoding!x"));
	assert_false(HTTP_NAME_IS("Transfer-Encodinh", "transfer-encoding"));
}

/* The Host line's forms: shortcut taken or not, the result is the same. */
static void
test_host_forms(void **state)
{
	static const char *const lines[] = {
		"Host: www.example.com",
		"HOST: www.example.com",
		"hOsT: a:8080",
		"Host:www.example.com",
		"Host:  a.b  ",
		"Host:\ta",
		"Host: a\t",
		"Host: ",
		"Host:",
		"Host: a b",
		"Host: [::1]:80",
		"Host: a%41.b",
		"Host: a@b",
		"Host: :80",
		"Host: 0123456789abcdef",
		"Host: 0123456789abcdefg",
		"Host : a",
		"Hostx: a",
		"Hos: a",
		"Host: \x80",
		"Host: a\x7f",
		"Host: a:b",
		/* 17-31 bytes: the second 16-byte step */
		"Host: www.kittyhell.com",
		"Host: www.example.org:80",
		"Host: 0123456789abcdef0123456789abcde",
		"Host: 0123456789abcdef0123456789abcdef",
		"Host: www.example.org:8x",
		"Host: www.example.org:",
		"Host: :80123456789012345",
		"Host: www.example.org\x80",
		"Host: www.example.org ",
		"Host: www.example.o\trg",
		"Host: www.example_org.com",
		"Host: [::1]:8080123456789",
		"Host: www.exa%41mple.org",
		/* a small request's: the value in the input's last 16 */
		"Host: 10.9.0.1:80",
		"hOST: 10.9.0.1:80",
		"Host: [fd00:9::1]:80",
		"Host: 10.9.0.1:8x",
		"Host: 10.9.0.1:80 ",
		"Host: 10.9.\x7f.1",
	};
	char req[256];
	unsigned int k, tail;
	int m;

	(void)state;
	for (k = 0; k < RTE_DIM(lines); k++) {
		/* the line last, and with fields after it (window lengths) */
		for (tail = 0; tail < 3; tail++) {
			int n = snprintf(req, sizeof(req),
				"GET /a?b HTTP/1.1\r\n%s\r\n%s\r\n", lines[k],
				tail == 0 ? "" :
					tail == 1 ?
					    "X: y\r\n" :
					    "Accept: */*\r\nHost: again\r\n");

			same_every_isa(req, (size_t)n);
			/* cut anywhere: the value's end, and its CR, may lie
			 * past the input */
			for (m = n - 1; tail == 0 && m >= 16; m--)
				same_every_isa(req, (size_t)m);
		}
	}
}

/*
 * Every byte value in a name and in a value, at every offset in the first
 * 20 bytes: the 16-byte steps agree with the byte-wise state machine.
 */
/* "GET / HTTP/1.1\r\nHost: h\r\n" a "\r\n\r\n", a holding any bytes */
static size_t
with_line(char *req, const char *a, size_t n)
{
	static const char head[] = "GET / HTTP/1.1\r\nHost: h\r\n";
	size_t k = sizeof(head) - 1;

	memcpy(req, head, k);
	memcpy(req + k, a, n);
	memcpy(req + k + n, "\r\n\r\n", 4);
	return k + n + 4;
}

/*
 * Every byte value in a name and in a value, at every offset in the first
 * 40 bytes (three 16-byte steps, and the input's last bytes): the 16-byte
 * steps agree with the byte-wise state machine.
 */
static void
test_every_byte(void **state)
{
	char line[64], req[128];
	unsigned int b, k;

	(void)state;
	for (b = 0; b < 256; b++) {
		for (k = 0; k < 40; k++) {
			/* name: k+1 bytes ending with b, then ": x" */
			memset(line, 'N', k);
			line[k] = (char)b;
			memcpy(line + k + 1, ": x", 3);
			same_every_isa(req, with_line(req, line, k + 4));
			/* value: 40 bytes, byte k is b */
			memcpy(line, "X: ", 3);
			memset(line + 3, 'v', 40);
			line[3 + k] = (char)b;
			same_every_isa(req, with_line(req, line, 43));
		}
	}
}

/*
 * Request-targets of 1-70 bytes with a dot segment, a '?' or neither at
 * every offset (either side of the 16-byte steps), each with fields after
 * it and last: the path and the 400 for "/." and "/.." segments agree.
 */
static void
test_targets(void **state)
{
	static const char *const marks[] = { "/./", "/../", "/.", "/..", "?",
		"/.x", "..", "/?/../", "/a.b", "." };
	char tgt[96], req[192];
	unsigned int m, k, n;

	(void)state;
	for (m = 0; m < RTE_DIM(marks); m++) {
		const size_t ml = strlen(marks[m]);

		for (n = 1; n <= 70; n += 3) {
			for (k = 0; k + ml <= n; k++) {
				int len;

				memset(tgt, 'p', n);
				tgt[0] = '/';
				memcpy(tgt + k, marks[m], ml);
				if (tgt[0] != '/')
					continue;
				len = snprintf(req, sizeof(req),
					"GET %.*s HTTP/1.1\r\nHost: h\r\n\r\n",
					(int)n, tgt);
				same_every_isa(req, (size_t)len);
				len = snprintf(req, sizeof(req),
					"GET %.*s HTTP/1.1\r\nHost: h\r\n"
					"Accept: */*\r\n\r\n",
					(int)n, tgt);
				same_every_isa(req, (size_t)len);
			}
		}
	}
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tchar16),
		cmocka_unit_test(test_value_stop16),
		cmocka_unit_test(test_authority_quick),
		cmocka_unit_test(test_name_is),
		cmocka_unit_test(test_host_forms),
		cmocka_unit_test(test_every_byte),
		cmocka_unit_test(test_targets),
	};

	if (ewyk_test_eal_init(argc, argv) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
