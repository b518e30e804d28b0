/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for lib/http's response-head parser
 * (ewyk_http_resp_parse) and the body decoders behind it
 * (ewyk_http_resp_body_init): the input is what a server sends, a stream
 * of responses, parsed one after the other as ewyk-loadgen does.
 * Each head is parsed from its own exact-size malloc'ed copy of the rest
 * of the stream (ASan catches any read beyond it). Invariants (abort() on
 * violation):
 *   - DONE: the head length is within the bytes given and ends in LF;
 *     every header and the reason phrase lie inside the head; the same
 *     head given exactly (head_len bytes) parses the same; one byte less
 *     is AGAIN (a prefix of a valid head is never complete nor an error);
 *   - with max_head = head_len the head still parses, with head_len - 1
 *     it is an error;
 *   - the body decoder hands out views inside the bytes it was given and
 *     never more body bytes than a Content-Length announced.
 *
 *   CC=clang CXX=clang++ meson setup build-fuzz -Dfuzz=true
 *   build-fuzz/tests/fuzz/fuzz_http_resp -max_total_time=60
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ewyk_http.h>

#define MAXH 8

static int
inside(const char *p, uint32_t len, const char *b, uint32_t blen)
{
	return p >= b && p + len <= b + blen;
}

static void
check_head(const char *b, uint32_t n, const struct ewyk_http_resp *r,
	uint32_t hl)
{
	struct ewyk_http_header h2[MAXH];
	struct ewyk_http_resp r2 = { .headers = h2, .max_headers = MAXH };
	uint32_t hl2 = 0;
	uint16_t i;

	if (hl == 0 || hl > n || b[hl - 1] != '\n')
		abort();
	for (i = 0; i < r->nheaders; i++)
		if (!inside(r->headers[i].name.p, r->headers[i].name.len, b,
			    hl) ||
			!inside(r->headers[i].value.p, r->headers[i].value.len,
				b, hl))
			abort();
	if (!inside(r->reason.p, r->reason.len, b, hl))
		abort();
	if (ewyk_http_resp_parse(b, hl, 0, 0, &r2, &hl2) != EWYK_HTTP_DONE ||
		hl2 != hl || r2.status != r->status ||
		r2.framing != r->framing || r2.keep_alive != r->keep_alive ||
		r2.content_length != r->content_length ||
		r2.nheaders != r->nheaders)
		abort();
	if (ewyk_http_resp_parse(b, hl - 1, 0, 0, &r2, &hl2) != EWYK_HTTP_AGAIN)
		abort();
	if (ewyk_http_resp_parse(b, n, hl, 0, &r2, &hl2) != EWYK_HTTP_DONE)
		abort();
	if (hl > 1 &&
		ewyk_http_resp_parse(b, n, hl - 1, 0, &r2, &hl2) != -EBADMSG)
		abort();
}

/* Decode a body from b[0..n); returns the bytes used, or -1 to stop. */
static int64_t
body(const char *b, uint32_t n, const struct ewyk_http_resp *r)
{
	static const struct ewyk_http_limits lim = { .max_body = 1 << 20 };
	struct ewyk_http_body d;
	struct ewyk_http_view v;
	uint64_t got = 0;
	uint32_t off = 0, used;
	int rc;

	if (ewyk_http_resp_body_init(&d, r, &lim) != 0)
		abort();
	for (;;) {
		rc = ewyk_http_body_parse(&d, b + off, n - off, &used, &v);
		if (used > n - off)
			abort();
		if (rc == EWYK_HTTP_DATA) {
			if (!inside(v.p, v.len, b + off, used))
				abort();
			got += v.len;
		}
		off += used;
		if (r->framing == EWYK_HTTP_BODY_LENGTH &&
			got > r->content_length)
			abort();
		if (rc == EWYK_HTTP_DONE)
			return off;
		if (rc < 0 || (rc == EWYK_HTTP_AGAIN && off == n))
			return -1;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;
	int head_req = size > 0 && (data[0] & 1);

	while (off < size) {
		struct ewyk_http_header h[MAXH];
		struct ewyk_http_resp r = { .headers = h, .max_headers = MAXH };
		uint32_t n = (uint32_t)(size - off), hl = 0;
		char *b = malloc(n);
		int64_t used;
		int rc;

		if (b == NULL)
			return 0;
		memcpy(b, data + off, n);
		rc = ewyk_http_resp_parse(b, n, 1024, head_req, &r, &hl);
		if (rc != EWYK_HTTP_DONE) {
			if (rc != EWYK_HTTP_AGAIN && rc != -EBADMSG)
				abort();
			free(b);
			break;
		}
		check_head(b, n, &r, hl);
		used = r.until_close ? -1 : body(b + hl, n - hl, &r);
		free(b);
		if (used < 0)
			break;
		off += hl + (size_t)used;
	}
	return 0;
}
