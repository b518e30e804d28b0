/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/http request-body decoders (Content-Length and chunked), each body
 * fed whole, split at every offset and one byte per piece, and as an mbuf
 * chain. Run by test_http.c's main.
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

void
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
	/* trailer lines: field-name ":" OWS field-value OWS */
	{ EWYK_HTTP_BODY_CHUNKED, 0, "0\r\nfoo bar\r\n\r\n",
		"rc=-74 st=400 used=0 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "0\r\nfoo\r\n\r\n",
		"rc=-74 st=400 used=0 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "0\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n",
		"rc=-74 st=400 used=0 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "0\r\nx : y\r\n\r\n",
		"rc=-74 st=400 used=0 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "0\r\nx\t: y\r\n\r\n",
		"rc=-74 st=400 used=0 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "0\r\nx(y: z\r\n\r\n",
		"rc=-74 st=400 used=0 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "0\r\n: y\r\n\r\n",
		"rc=-74 st=400 used=0 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "0\r\nx: y\r\nz\r\n\r\n",
		"rc=-74 st=400 used=0 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "0\r\nx: y\r\n\tz\r\n\r\n",
		"rc=-74 st=400 used=0 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "0\r\nx\n\r\n",
		"rc=-74 st=400 used=0 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0, "0\r\nx: a\rb\r\n\r\n",
		"rc=-74 st=400 used=0 data=[]" },
	{ EWYK_HTTP_BODY_CHUNKED, 0,
		"1\r\na\r\n0\r\nx:\r\ny:\t z \t\r\nz: a:b \x80\xff\r\n\r\nN",
		"rc=1 st=0 used=35 data=[a]" },
	{ EWYK_HTTP_BODY_LENGTH, 4097, "x", "rc=-74 st=413 used=0 data=[]" },
};

void
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
	/* the trailer section's field lines and final CRLF: 1024 bytes fit,
	 * 1025 do not (as for the header section) */
	memcpy(big + 6 + 1017, "\r\n\r\n", 4);
	body_every_way(&req, big, 3 + 3 + 1017 + 4, ref);
	assert_string_equal(ref, "rc=1 st=0 used=1027 data=[]");
	big[6 + 1017] = 'a';
	memcpy(big + 6 + 1018, "\r\n\r\n", 4);
	body_every_way(&req, big, 3 + 3 + 1018 + 4, ref);
	assert_string_equal(ref, "rc=-74 st=431 used=0 data=[]");
}

void
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

/* body_pieces() whole and one byte per piece: both must agree. */
static void
body_whole_and_bytes(const struct ewyk_http_request *req, const char *s,
	size_t n, char *ref)
{
	char out[RES_MAX];
	size_t *cuts = malloc(n * sizeof(*cuts)), k;

	assert_non_null(cuts);
	for (k = 0; k + 1 < n; k++)
		cuts[k] = k + 1;
	body_pieces(req, s, n, NULL, 0, ref);
	body_pieces(req, s, n, cuts, n - 1, out);
	assert_string_equal(out, ref);
	free(cuts);
}

/*
 * k one-byte chunks "1;eee...\r\nA\r\n" whose size lines are 'line' bytes
 * (CRLF included), the last one 'last' bytes, then "0\r\n\r\n"; s must
 * hold them. Returns the length.
 */
static size_t
ext_flood(char *s, unsigned int k, size_t line, size_t last)
{
	size_t n = 0, l;
	unsigned int i;

	for (i = 0; i < k; i++) {
		l = i + 1 < k ? line : last;
		memcpy(s + n, "1;", 2);
		memset(s + n + 2, 'e', l - 4);
		memcpy(s + n + l - 2, "\r\nA\r\n", 5);
		n += l + 3;
	}
	memcpy(s + n, "0\r\n\r\n", 5);
	return n + 5;
}

void
test_body_overhead(void **state)
{
	struct ewyk_http_request req;
	char ref[RES_MAX], want[RES_MAX], *s;
	size_t n, k;

	(void)state;
	memset(&req, 0, sizeof(req));
	req.framing = EWYK_HTTP_BODY_CHUNKED;
	s = malloc(64 * 1024);
	assert_non_null(s);
	/*
	 * The framing bytes (chunk-size lines, extensions, the CRLF after
	 * each chunk's data) may exceed 5 per decoded byte by 16 KiB at
	 * most. Seventeen one-byte chunks: 16 size lines of 1000 bytes and
	 * one of 432, then "0\r\n", are 16384 + 5 * 17 framing bytes, just
	 * allowed; one extension byte more is refused (on the 17th line,
	 * before its data byte earns 5 more).
	 */
	n = ext_flood(s, 17, 1000, 432);
	body_whole_and_bytes(&req, s, n, ref);
	snprintf(want, sizeof(want), "rc=1 st=0 used=%zu data=[%.17s]", n,
		"AAAAAAAAAAAAAAAAAAAA");
	assert_string_equal(ref, want);
	n = ext_flood(s, 17, 1000, 433);
	body_whole_and_bytes(&req, s, n, ref);
	assert_string_equal(ref,
		"rc=-74 st=400 used=0 data=[AAAAAAAAAAAAAAAA]");
	/* A flood of long extensions stops at the 17th line. */
	n = ext_flood(s, 40, 1000, 1000);
	body_whole_and_bytes(&req, s, n, ref);
	assert_string_equal(ref,
		"rc=-74 st=400 used=0 data=[AAAAAAAAAAAAAAAA]");
	/* Short extensions too: 14 framing bytes for each data byte. */
	for (n = 0, k = 0; k < 4000; k++, n += 15)
		memcpy(s + n, "1;xxxxxxxx\r\nA\r\n", 15);
	memcpy(s + n, "0\r\n\r\n", 5);
	body_whole_and_bytes(&req, s, n + 5, ref);
	assert_int_equal(strncmp(ref, "rc=-74 st=400 used=0 data=[AAAA", 31),
		0);
	/* A byte at a time without extensions ("1\r\nA\r\n": 5 framing
	 * bytes for 1) is never refused, however long. */
	for (n = 0, k = 0; k < 4000; k++, n += 6)
		memcpy(s + n, "1\r\nA\r\n", 6);
	memcpy(s + n, "0\r\n\r\n", 5);
	body_whole_and_bytes(&req, s, n + 5, ref);
	assert_int_equal(strncmp(ref, "rc=1 st=0 used=24005 data=[AAAA", 31),
		0);
	free(s);
}
