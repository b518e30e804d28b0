/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for lib/http's request-head parser and body decoders.
 *
 * The input is a byte stream from a client (pipelined requests and their
 * bodies). It is run through the parse -> body -> parse ... state machine
 * three ways:
 *   A. whole, scalar scanners;
 *   B. cut into pieces of 1..64 bytes (sizes from a PRNG seeded by the
 *      input), each piece in its own malloc'ed buffer, best scanners, fed
 *      as an mbuf chain through the _mbuf entry points;
 *   C. one byte per piece, SSE4.2 scanners where the CPU has them;
 *   D. whole, best scanners: the fast path's 16-byte steps on every
 *      request (A runs its scalar steps).
 * Invariants checked (abort() on violation):
 *   - every view (method, target, path, Host, field names and values, body
 *     data) lies inside the input pieces or inside the parser's scratch;
 *     its bytes equal the input's (tokens are never altered);
 *   - scratch use never exceeds the bytes fed (each byte copied once);
 *   - the three runs agree on every outcome: return codes, statuses,
 *     offsets, views' contents, body bytes.
 * ASan/UBSan catch any read outside the pieces.
 *
 *   CC=clang CXX=clang++ meson setup build-fuzz -Dfuzz=true
 *   build-fuzz/tests/fuzz/fuzz_http tests/fuzz/corpus/http -max_total_time=60
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include <ewyk_http.h>

#define MAXH 8
#define MAXREQ 8
#define MAXPIECES 4096

static const struct ewyk_http_limits lim = {
	.max_line = 128,
	.max_header_bytes = 512,
	.max_body = 1024,
};

/* Pieces of the input: copies in their own buffers. */
struct pieces {
	size_t n;
	const char *buf[MAXPIECES];
	size_t off[MAXPIECES]; /* stream offset of each piece */
	size_t len[MAXPIECES];
	struct rte_mbuf mb[MAXPIECES];
};

static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	while (n-- > 0)
		h = (h ^ *s++) * 0x100000001b3ULL;
	return h;
}

static uint64_t
mix(uint64_t h, uint64_t v)
{
	return fnv(h, &v, sizeof(v));
}

/* A view must lie in one piece (at the stream position it claims) or in
 * scratch; its bytes must be input bytes (checked against 'data'). */
static uint64_t
check_view(uint64_t h, const struct pieces *ps, const char *scratch,
	uint32_t sused, struct ewyk_http_view v, const uint8_t *data,
	size_t size)
{
	size_t i;

	if (v.len == 0)
		return mix(h, 0);
	if (v.p >= scratch && v.p + v.len <= scratch + sused)
		return fnv(mix(h, v.len), v.p, v.len);
	if (v.len == 1 && v.p[0] == '/' &&
		(v.p < scratch || v.p >= scratch + sused)) {
		/* absolute-form without a path: the parser's "/" */
		int inside = 0;

		for (i = 0; i < ps->n; i++)
			if (v.p >= ps->buf[i] && v.p < ps->buf[i] + ps->len[i])
				inside = 1;
		if (!inside)
			return fnv(mix(h, 1), "/", 1);
	}
	for (i = 0; i < ps->n; i++) {
		if (v.p >= ps->buf[i] &&
			v.p + v.len <= ps->buf[i] + ps->len[i]) {
			size_t at = ps->off[i] + (size_t)(v.p - ps->buf[i]);

			if (at + v.len > size ||
				memcmp(data + at, v.p, v.len) != 0)
				abort();
			return fnv(mix(h, v.len), v.p, v.len);
		}
	}
	abort(); /* a view outside the input and the scratch */
}

/* The piece holding stream offset pos. */
static size_t
piece_at(const struct pieces *ps, size_t pos)
{
	size_t lo = 0, hi = ps->n;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (ps->off[mid] <= pos)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static uint64_t
hash_head(uint64_t h, const struct pieces *ps, const char *scratch,
	const struct ewyk_http_parser *p, const struct ewyk_http_request *req,
	const uint8_t *data, size_t size)
{
	uint16_t i;

	h = mix(h, req->method_id);
	h = mix(h, req->version_minor);
	h = mix(h, req->framing);
	h = mix(h, req->content_length);
	h = mix(h, req->keep_alive);
	h = mix(h, req->expect_continue);
	h = mix(h, req->head);
	h = mix(h, req->nheaders);
	h = check_view(h, ps, scratch, p->scratch_used, req->method, data,
		size);
	h = check_view(h, ps, scratch, p->scratch_used, req->target, data,
		size);
	h = check_view(h, ps, scratch, p->scratch_used, req->path, data, size);
	h = check_view(h, ps, scratch, p->scratch_used, req->host, data, size);
	for (i = 0; i < req->nheaders; i++) {
		h = check_view(h, ps, scratch, p->scratch_used,
			req->headers[i].name, data, size);
		h = check_view(h, ps, scratch, p->scratch_used,
			req->headers[i].value, data, size);
	}
	return h;
}

/*
 * Run the stream in 'ps' through parse/body cycles; return a hash of
 * everything observed that does not depend on the segmentation.
 */
static uint64_t
run(const struct pieces *ps, enum ewyk_http_isa isa, int use_mbuf,
	const uint8_t *data, size_t size)
{
	static char scratch[1024];
	struct ewyk_http_header hdr[MAXH];
	struct ewyk_http_request req;
	struct ewyk_http_parser p;
	struct ewyk_http_body b;
	struct ewyk_http_view d;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t pos = 0, head_start = 0, pi, po, k;
	int in_body = 0, nreq = 0, rc;
	uint32_t used;

	if (ewyk_http_parser_init(&p, &lim, scratch, sizeof(scratch)) != 0)
		abort();
	if (ewyk_http_parser_set_isa(&p, isa) != 0 &&
		ewyk_http_parser_set_isa(&p, EWYK_HTTP_ISA_SCALAR) != 0)
		abort();
	memset(&req, 0, sizeof(req));
	req.headers = hdr;
	req.max_headers = MAXH;
	while (pos < size && nreq < MAXREQ) {
		pi = piece_at(ps, pos);
		po = pos - ps->off[pi];
		if (!in_body) {
			if (use_mbuf)
				rc = ewyk_http_parse_mbuf(&p, &req, &ps->mb[pi],
					(uint32_t)po, &used);
			else
				rc = ewyk_http_parse(&p, &req, ps->buf[pi] + po,
					(uint32_t)(ps->len[pi] - po), &used);
			pos += used;
			/* each byte is copied to scratch at most once */
			if (rc >= 0 && p.scratch_used > pos - head_start)
				abort();
			if (rc == EWYK_HTTP_AGAIN)
				continue;
			if (rc < 0) /* where it stops depends on the pieces */
				return mix(mix(h, (uint64_t)rc), p.status);
			h = mix(mix(h, (uint64_t)rc), pos);
			h = hash_head(h, ps, scratch, &p, &req, data, size);
			if (ewyk_http_body_init(&b, &req, &lim) != 0)
				abort();
			in_body = 1;
			nreq++;
			continue;
		}
		if (use_mbuf)
			rc = ewyk_http_body_parse_mbuf(&b, &ps->mb[pi],
				(uint32_t)po, &used, &d);
		else
			rc = ewyk_http_body_parse(&b, ps->buf[pi] + po,
				(uint32_t)(ps->len[pi] - po), &used, &d);
		pos += used;
		if (rc == EWYK_HTTP_DATA) {
			/* inside a piece; bytes hashed one by one, since each
			 * segmentation cuts the data differently */
			check_view(0, ps, scratch, 0, d, data, size);
			for (k = 0; k < d.len; k++)
				h = mix(h, (uint8_t)d.p[k]);
		} else if (rc < 0) {
			return mix(mix(h, (uint64_t)rc), b.status);
		} else if (rc == EWYK_HTTP_DONE) {
			h = mix(mix(h, 77), pos);
			in_body = 0;
			ewyk_http_parser_reset(&p);
			head_start = pos;
		}
	}
	return mix(h, (uint64_t)in_body);
}

static void
cut(struct pieces *ps, const uint8_t *data, size_t size, int mode,
	uint64_t seed)
{
	size_t off = 0, k;
	char *b;

	ps->n = 0;
	while (off < size && ps->n < MAXPIECES) {
		if (mode == 0) {
			k = size - off;
		} else if (mode == 1) {
			k = 1;
		} else {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			k = 1 + (size_t)(seed % 64);
		}
		if (k > size - off || ps->n == MAXPIECES - 1)
			k = size - off;
		b = malloc(k);
		if (b == NULL)
			abort();
		memcpy(b, data + off, k);
		ps->buf[ps->n] = b;
		ps->off[ps->n] = off;
		ps->len[ps->n] = k;
		memset(&ps->mb[ps->n], 0, sizeof(ps->mb[0]));
		ps->mb[ps->n].buf_addr = b;
		ps->mb[ps->n].data_len = (uint16_t)k;
		if (ps->n > 0)
			ps->mb[ps->n - 1].next = &ps->mb[ps->n];
		ps->n++;
		off += k;
	}
}

static void
uncut(struct pieces *ps)
{
	while (ps->n > 0)
		free((void *)(uintptr_t)ps->buf[--ps->n]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pieces ps;
	uint64_t a, bb, c, d;

	if (size == 0 || size > 16384)
		return 0;
	cut(&ps, data, size, 0, 0);
	a = run(&ps, EWYK_HTTP_ISA_SCALAR, 0, data, size);
	uncut(&ps);
	cut(&ps, data, size, 2, fnv(0x9e3779b97f4a7c15ULL, data, size) | 1);
	bb = run(&ps, ewyk_http_isa_best(), 1, data, size);
	uncut(&ps);
	cut(&ps, data, size, 1, 0);
	c = run(&ps, EWYK_HTTP_ISA_SSE42, 0, data, size);
	uncut(&ps);
	cut(&ps, data, size, 0, 0);
	d = run(&ps, ewyk_http_isa_best(), 0, data, size);
	uncut(&ps);
	if (a != bb || a != c || a != d)
		abort();
	return 0;
}
