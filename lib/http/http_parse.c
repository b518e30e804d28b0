/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Request-head parser (RFC 9112 sections 2-5): the entry points, the
 * parser's set-up, the request-target rules, and the fast path that parses
 * a whole, well-formed head in one piece with no per-byte state dispatch.
 * Anything else goes to the state machine (http_parse_machine.c).
 */

#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>

#include "http_private.h"

static const char *const method_names[EWYK_HTTP_METHOD_MAX] = {
	[EWYK_HTTP_GET] = "GET",
	[EWYK_HTTP_HEAD] = "HEAD",
	[EWYK_HTTP_POST] = "POST",
	[EWYK_HTTP_PUT] = "PUT",
	[EWYK_HTTP_DELETE] = "DELETE",
	[EWYK_HTTP_CONNECT] = "CONNECT",
	[EWYK_HTTP_OPTIONS] = "OPTIONS",
	[EWYK_HTTP_TRACE] = "TRACE",
	[EWYK_HTTP_PATCH] = "PATCH",
};

const char *
ewyk_http_method_name(unsigned int m)
{
	return m < EWYK_HTTP_METHOD_MAX ? method_names[m] : NULL;
}

/* Methods are case-sensitive (RFC 9110 section 9.1). */
int
http_method_lookup(const char *p, uint32_t len)
{
#define IS(m, lit) (memcmp(p, lit, sizeof(lit) - 1) == 0 ? (m) : -1)
	switch (len) {
	case 3:
		return p[0] == 'G' ? IS(EWYK_HTTP_GET, "GET") :
				     IS(EWYK_HTTP_PUT, "PUT");
	case 4:
		return p[0] == 'H' ? IS(EWYK_HTTP_HEAD, "HEAD") :
				     IS(EWYK_HTTP_POST, "POST");
	case 5:
		return p[0] == 'P' ? IS(EWYK_HTTP_PATCH, "PATCH") :
				     IS(EWYK_HTTP_TRACE, "TRACE");
	case 6:
		return IS(EWYK_HTTP_DELETE, "DELETE");
	case 7:
		return p[0] == 'O' ? IS(EWYK_HTTP_OPTIONS, "OPTIONS") :
				     IS(EWYK_HTTP_CONNECT, "CONNECT");
	default:
		return -1;
	}
#undef IS
}

static void
limits_fill(struct ewyk_http_limits *out, const struct ewyk_http_limits *in)
{
	out->max_line = in != NULL && in->max_line != 0 ?
		in->max_line :
		EWYK_HTTP_DEF_MAX_LINE;
	out->max_header_bytes = in != NULL && in->max_header_bytes != 0 ?
		in->max_header_bytes :
		EWYK_HTTP_DEF_MAX_HEADER_BYTES;
	out->max_body = in != NULL && in->max_body != 0 ?
		in->max_body :
		EWYK_HTTP_DEF_MAX_BODY;
}

uint32_t
ewyk_http_scratch_size(const struct ewyk_http_limits *lim)
{
	struct ewyk_http_limits l;

	limits_fill(&l, lim);
	return l.max_line + l.max_header_bytes;
}

int
ewyk_http_parser_init(struct ewyk_http_parser *p,
	const struct ewyk_http_limits *lim, char *scratch,
	uint32_t scratch_size)
{
	if (p == NULL || scratch == NULL)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	limits_fill(&p->lim, lim);
	if ((uint64_t)p->lim.max_line + p->lim.max_header_bytes > UINT32_MAX ||
		scratch_size < p->lim.max_line + p->lim.max_header_bytes)
		return -EINVAL;
	p->scratch = scratch;
	p->scratch_size = scratch_size;
	p->isa = (uint8_t)ewyk_http_isa_best();
	ewyk_http_parser_reset(p);
	return 0;
}

/* has_dot_segment() of a long path: memchr() from '.' to '.' */
static int
has_dot_segment_long(const char *t, uint32_t n)
{
	const char *d = memchr(t, '.', n);

	while (d != NULL) {
		uint32_t k = (uint32_t)(d - t);

		if (k > 0 && t[k - 1] == '/') {
			if (k + 1 == n || t[k + 1] == '/')
				return 1;
			if (t[k + 1] == '.' && (k + 2 == n || t[k + 2] == '/'))
				return 1;
		}
		if (k + 1 >= n)
			break;
		d = memchr(d + 1, '.', n - k - 1);
	}
	return 0;
}

/*
 * A "/." or "/.." segment (RFC 3986 section 3.3) in path[0..n): such a
 * path names another resource once normalised, and the router compares
 * bytes, so the request is refused (400) rather than routed as received.
 */
static __rte_always_inline int
has_dot_segment(const char *t, uint32_t n)
{
	uint32_t k;

	if (n >= 32)
		return has_dot_segment_long(t, n);
	/* short paths: a byte loop beats a call to memchr */
	for (k = 1; k < n; k++) {
		if (t[k] != '.' || t[k - 1] != '/')
			continue;
		if (k + 1 == n || t[k + 1] == '/')
			return 1;
		if (t[k + 1] == '.' && (k + 2 == n || t[k + 2] == '/'))
			return 1;
	}
	return 0;
}

#ifdef __SSSE3__
/*
 * The path of an origin-form target t[0, n) in 16-byte steps, avail bytes
 * readable from t (avail >= 16): its length (up to the first '?') in
 * *plen; non-zero when a '.' follows a '/' in it (has_dot_segment() then
 * decides, as such paths are rare).
 */
static __rte_always_inline uint32_t
path_vec(const char *t, uint32_t n, size_t avail, uint32_t *plen)
{
	uint32_t j, carry = 0, dots = 0;

	for (j = 0; j < n && avail - j >= 16; j += 16) {
		const __m128i x = http_load16(t + j);
		const uint32_t in = n - j < 16 ? (UINT32_C(1) << (n - j)) - 1 :
						 0xffff;
		const uint32_t q = http_eq16(x, '?') & in;
		const uint32_t sl = http_eq16(x, '/');
		/* a '.' after a '/' (the previous step's last byte too) */
		const uint32_t d = http_eq16(x, '.') & (sl << 1 | carry);

		if (q != 0) {
			const uint32_t k = (uint32_t)__builtin_ctz(q);

			*plen = j + k;
			return dots | (d & ((UINT32_C(1) << k) - 1));
		}
		dots |= d & in;
		carry = sl >> 15;
	}
	if (j > n)
		j = n;
	/* the last bytes of a target at the end of the readable bytes */
	for (; j < n && t[j] != '?'; j++)
		dots |= t[j] == '.' && t[j - 1] == '/';
	*plen = j;
	return dots;
}
#endif

/*
 * The target's form, host and path. avail: bytes readable from the
 * target (0: unknown, the byte loops).
 */
static __rte_always_inline uint16_t
target_finish(struct ewyk_http_request *req, size_t avail)
{
	const char *t = req->target.p;
	uint32_t n = req->target.len;
	uint32_t i;

	if (t[0] == '/') {
		/* origin-form */
	} else if (n == 1 && t[0] == '*') {
		if (req->method_id != EWYK_HTTP_OPTIONS)
			return 400;
		req->path = req->target;
		return 0;
	} else {
		/*
		 * absolute-form: http:// or https:// authority [path]; the
		 * authority is the request's host (RFC 9112 3.2.2), so it
		 * must be a valid, non-empty uri-host [":" port] with no
		 * userinfo (RFC 9110 4.2.1, 4.2.4).
		 */
		uint32_t s;

		if (n > 7 && HTTP_IEQ(t, 7, "http://"))
			s = 7;
		else if (n > 8 && HTTP_IEQ(t, 8, "https://"))
			s = 8;
		else
			return 400;
		for (i = s; i < n && t[i] != '/' && t[i] != '?'; i++)
			;
		if (!http_authority_valid(t + s, i - s, 0))
			return 400;
		req->host.p = t + s;
		req->host.len = i - s;
		if (i == n || t[i] == '?') {
			req->path.p = "/";
			req->path.len = 1;
			return 0;
		}
		t += i;
		n -= i;
	}
	req->path.p = t;
#ifdef __SSSE3__
	if (avail >= 16 && n >= 16 && t == req->target.p) {
		if (path_vec(t, n, avail, &req->path.len) != 0 &&
			has_dot_segment(t, req->path.len))
			return 400;
		return 0;
	}
#else
	RTE_SET_USED(avail);
#endif
	if (n < 32) {
		for (i = 0; i < n && t[i] != '?'; i++)
			;
		req->path.len = i;
	} else {
		const char *q = memchr(t, '?', n);

		req->path.len = q != NULL ? (uint32_t)(q - t) : n;
	}
	if (has_dot_segment(req->path.p, req->path.len))
		return 400;
	return 0;
}

uint16_t
http_target_finish(struct ewyk_http_request *req)
{
	return target_finish(req, 0);
}

/*
 * End of a field name starting at buf[i], before `end`: the first byte that
 * is not a tchar. Words are searched for the colon (the lowest flagged byte
 * of a little-endian word is exact), and the bytes before it are checked
 * together, with no branch per byte; a name longer than the words tried,
 * or with a non-tchar before the colon, goes through the byte loop.
 */
static inline uint32_t
name_end(const char *buf, uint32_t i, uint32_t end)
{
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	uint32_t w;

	for (w = i; w + 8 <= end && w - i < 24; w += 8) {
		uint64_t m = HTTP_ANY_ZERO(
			http_load64(buf + w) ^ (':' * HTTP_ONES));
		uint32_t c, k;
		uint8_t all = 1;

		if (m == 0)
			continue;
		c = w + (uint32_t)__builtin_ctzll(m) / 8;
		for (k = i; k < c; k++)
			all &= http_tchar[(unsigned char)buf[k]];
		if (all)
			return c;
		break;
	}
#endif
	while (i < end && http_tchar[(unsigned char)buf[i]])
		i++;
	return i;
}

/* Four bytes CR LF CR LF at s. */
static inline int
crlf_crlf_at(const char *s)
{
	uint32_t w;

	memcpy(&w, s, sizeof(w));
	return w == rte_cpu_to_le_32(UINT32_C(0x0a0d0a0d));
}

/* 8 bytes "HTTP/1.1" or "HTTP/1.0": the minor version, or -1. */
static inline int
version_at(const char *v8)
{
	uint64_t v;

	memcpy(&v, v8, sizeof(v));
	if ((v | rte_cpu_to_le_64(UINT64_C(1) << 56)) !=
		(uint64_t)rte_cpu_to_le_64(UINT64_C(0x312e312f50545448)))
		return -1;
	return v8[7] == '1';
}

#ifdef __SSSE3__
/*
 * The fast path's 16-byte steps (the build's baseline has SSSE3, and the
 * parser's isa is not scalar). Each finds the first byte at or after
 * buf[i] that a class stops at, 16 bytes at a time while 16 are readable;
 * the last bytes of the buffer (fewer than 16) come from one load of its
 * last 16, shifted: no byte outside buf[0, len) is read, and no byte loop
 * runs (len >= 16: the caller checked).
 */

/* Bytes outside 0x21-0x7e (SP, CTL, DEL, obs-text): they end a target. */
static __rte_always_inline uint32_t
target_stop16(__m128i x)
{
	/* x + 0x5f maps 0x21-0x7e to -128..-35 (signed), all else above */
	return (uint32_t)_mm_movemask_epi8(
		_mm_cmpgt_epi8(_mm_add_epi8(x, _mm_set1_epi8(0x5f)),
			_mm_set1_epi8(-35)));
}

/*
 * Bytes outside 0x20-0x7e: a CTL (the CR that ends a value, or HT, or one
 * that makes it invalid), DEL, or obs-text. Anything but the CR goes to
 * the general steps, which decide (HT and obs-text are allowed).
 */
static __rte_always_inline __m128i
value_stop_v(__m128i x)
{
	/* x + 0x60 maps 0x20-0x7e to -128..-34 (signed), all else above */
	return _mm_cmpgt_epi8(_mm_add_epi8(x, _mm_set1_epi8(0x60)),
		_mm_set1_epi8(-34));
}

/* The bits of the buffer's last 16 bytes from buf[i] on (len - i < 16). */
#define TAIL16(f, buf, i, len) \
	((f)(http_load16((buf) + (len)-16)) >> (16 - ((len) - (i))))

static __rte_always_inline uint32_t
target_stop(const char *buf, uint32_t i, uint32_t len)
{
	uint32_t m;

	for (; len - i >= 16; i += 16) {
		m = target_stop16(http_load16(buf + i));
		if (m != 0)
			return i + (uint32_t)__builtin_ctz(m);
	}
	if (i == len)
		return len;
	m = TAIL16(target_stop16, buf, i, len);
	return m != 0 ? i + (uint32_t)__builtin_ctz(m) : len;
}

static __rte_always_inline uint32_t
value_stop_mask(__m128i x)
{
	return (uint32_t)_mm_movemask_epi8(value_stop_v(x));
}

/*
 * Values are long (User-Agent, Cookie, Accept): 64 bytes a step, with one
 * test of the four masks merged; then 16 at a time.
 */
static __rte_always_inline uint32_t
value_stop(const char *buf, uint32_t i, uint32_t len)
{
	uint32_t m;

	for (; len - i >= 64; i += 64) {
		const __m128i a = value_stop_v(http_load16(buf + i));
		const __m128i b = value_stop_v(http_load16(buf + i + 16));
		const __m128i c = value_stop_v(http_load16(buf + i + 32));
		const __m128i d = value_stop_v(http_load16(buf + i + 48));

		if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b),
			    _mm_or_si128(c, d))) != 0) {
			const uint64_t w = (uint64_t)_mm_movemask_epi8(a) |
				(uint64_t)_mm_movemask_epi8(b) << 16 |
				(uint64_t)_mm_movemask_epi8(c) << 32 |
				(uint64_t)_mm_movemask_epi8(d) << 48;

			return i + (uint32_t)__builtin_ctzll(w);
		}
	}
	for (; len - i >= 16; i += 16) {
		m = value_stop_mask(http_load16(buf + i));
		if (m != 0)
			return i + (uint32_t)__builtin_ctz(m);
	}
	if (i == len)
		return len;
	m = TAIL16(value_stop_mask, buf, i, len);
	return m != 0 ? i + (uint32_t)__builtin_ctz(m) : len;
}
#endif

/*
 * The end of a request-target starting at buf[i]: the first byte outside
 * 0x21-0x7e, or len.
 */
static inline uint32_t
target_end(const char *buf, uint32_t i, uint32_t len, unsigned int isa)
{
#ifdef __SSSE3__
	if (isa != EWYK_HTTP_ISA_SCALAR && len >= 16)
		return target_stop(buf, i, len);
#endif
	return i + (uint32_t)http_scan_target_inl(isa, buf + i, len - i);
}

/*
 * "Host: " (any case) at s, n bytes readable: the field nearly every request
 * carries, usually first, is known without scanning its name.
 */
static inline int
starts_host_sp(const char *s, uint32_t n)
{
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	/* the name's letters lower-cased: x | 0x20 is a letter only for that
	 * letter in either case */
	return n >= 8 &&
		((http_load64(s) | UINT64_C(0x20202020)) &
			UINT64_C(0xffffffffffff)) == UINT64_C(0x203a74736f68);
#else
	return n >= 6 && HTTP_NAME_IS(s, "host") && s[4] == ':' && s[5] == ' ';
#endif
}

#ifdef __SSSE3__
/* Bits of the host bytes http_authority_quick16() takes; digits in *dig. */
static __rte_always_inline uint32_t
host_quick_bits(__m128i x, uint32_t *dig)
{
	const __m128i l = _mm_or_si128(x, _mm_set1_epi8(0x20));
	/* signed: bytes >= 0x80 are negative and never pass */
	const __m128i d = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('/')),
		_mm_cmplt_epi8(x, _mm_set1_epi8(':')));
	const __m128i a = _mm_and_si128(_mm_cmpgt_epi8(l, _mm_set1_epi8('`')),
		_mm_cmplt_epi8(l, _mm_set1_epi8('{')));

	*dig = (uint32_t)_mm_movemask_epi8(d);
	return (uint32_t)_mm_movemask_epi8(_mm_or_si128(a, d)) |
		http_eq16(x, '-') | http_eq16(x, '.');
}

/*
 * http_authority_quick16() of 16 < n < 32 bytes: x holds the first 16, y
 * holds the others from its byte sh on. The usual host [":" port]
 * (letters, digits, '-' and '.', then optionally ':' and digits) is 1; 0:
 * http_authority_valid() decides.
 */
static __rte_always_inline int
authority_quick32(__m128i x, __m128i y, uint32_t sh, uint32_t n)
{
	const uint32_t full = (UINT32_C(1) << n) - 1;
	uint32_t dx, dy, m, dig, k;

	m = (host_quick_bits(x, &dx) | (host_quick_bits(y, &dy) >> sh) << 16) &
		full;
	if (m == full)
		return 1;
	dig = (dx | (dy >> sh) << 16) & full;
	/* "host:port": a colon after a non-empty host, then digits only */
	k = (uint32_t)__builtin_ctz(~m & full);
	if (k == 0 ||
		!(((http_eq16(x, ':') | (http_eq16(y, ':') >> sh) << 16) >> k) &
			1))
		return 0;
	return (dig | ((UINT32_C(2) << k) - 1)) == full;
}
#endif

/*
 * A Host value at buf[i] (after "Host: ") that ends, with its CR, in the
 * 32 bytes there, with no OWS and only the usual host [":" port] bytes
 * (http_authority_quick16()): the CR's index. 0 otherwise (the general
 * steps decide). isa not scalar only.
 */
static inline uint32_t
host_value_end(const char *buf, uint32_t i, uint32_t len, uint32_t hend,
	unsigned int isa)
{
#ifdef __SSSE3__
	if (isa != EWYK_HTTP_ISA_SCALAR && len - i >= 16) {
		const __m128i x = http_load16(buf + i);
		uint32_t k = (uint32_t)__builtin_ctz(
			http_value_stop16(x) | 0x10000);

		if (k < 16)
			return i + k < hend && buf[i + k] == '\r' &&
					http_authority_quick16(x, k) ?
				i + k :
				0;
		if (len - i > 16) {
			/* the next 16 bytes, or those left, from byte sh of y */
			const uint32_t at = len - i >= 32 ? i + 16 : len - 16;
			const uint32_t sh = i + 16 - at;
			const __m128i y = http_load16(buf + at);

			k = 16 +
				(uint32_t)__builtin_ctz(
					(http_value_stop16(y) | 0x10000) >> sh);
			if (k < 32 && i + k < hend && buf[i + k] == '\r' &&
				authority_quick32(x, y, sh, k))
				return i + k;
		}
	}
#else
	RTE_SET_USED(buf);
	RTE_SET_USED(i);
	RTE_SET_USED(len);
	RTE_SET_USED(hend);
	RTE_SET_USED(isa);
#endif
	return 0;
}

/*
 * The colon that ends a field name starting at buf[i], with only tchars
 * before it; hend or beyond when there is none before hend. 16 bytes a
 * step (isa not scalar) while 16 are readable (len: bytes readable from
 * buf).
 */
static inline uint32_t
field_name_end(const char *buf, uint32_t i, uint32_t len, uint32_t hend,
	unsigned int isa)
{
	const uint32_t s = i;
	uint32_t e;

#ifdef __SSSE3__
	if (isa != EWYK_HTTP_ISA_SCALAR && len >= 16) {
		for (;; i += 16) {
			/* the last bytes: the buffer's last 16, from lane sh */
			const uint32_t sh = len - i >= 16 ? 0 : 16 - (len - i);
			const __m128i x = http_load16(buf + i - sh);
			const uint32_t t = http_tchar16(x) >> sh;
			const uint32_t c = http_eq16(x, ':') >> sh;

			if (c != 0) {
				const uint32_t k = (uint32_t)__builtin_ctz(c);

				/* the caller checks i + k < hend */
				return i + k == s ||
						(~t &
							((UINT32_C(1) << k) -
								1)) ?
					hend :
					i + k;
			}
			/* a non-tchar, or the end of the input: no name */
			if (t != 0xffff || sh != 0)
				return hend;
		}
	}
#else
	RTE_SET_USED(len);
	RTE_SET_USED(isa);
#endif
	e = name_end(buf, i, hend);
	return e > s && e < hend && buf[e] == ':' ? e : hend;
}

/*
 * OWS field-value OWS CR from buf[i]: the CR's index, and the value in
 * [*vs, *ve); hend when the line has a CTL other than HT before its CR, or
 * no CR before hend. In 16-byte steps (isa not scalar) up to the first
 * CTL; a line with HT or obs-text goes on through the general steps.
 */
static inline uint32_t
field_value_end(const char *buf, uint32_t i, uint32_t len, uint32_t hend,
	unsigned int isa, uint32_t *vs, uint32_t *ve)
{
	uint32_t e;

#ifdef __SSSE3__
	if (isa != EWYK_HTTP_ISA_SCALAR && len >= 16) {
		/* the first CTL (HT included), DEL or obs-text byte */
		const uint32_t k = value_stop(buf, i, len);

		if (k >= hend) {
			*vs = *ve = i;
			return hend;
		}
		if (buf[k] == '\r') {
			/* OWS here is SP only: HT would have stopped */
			for (; i < k && buf[i] == ' '; i++)
				;
			for (e = k; e > i && buf[e - 1] == ' '; e--)
				;
			*vs = i;
			*ve = e;
			return k;
		}
	}
#else
	RTE_SET_USED(len);
#endif
	while (i < hend && (buf[i] == ' ' || buf[i] == '\t'))
		i++;
	*vs = i;
	i += (uint32_t)http_scan_value_inl(isa, buf + i, hend - i);
	for (e = i; e > *vs && (buf[e - 1] == ' ' || buf[e - 1] == '\t'); e--)
		;
	*ve = e;
	return i < hend && buf[i] == '\r' ? i : hend;
}

/*
 * A field line from its first byte, buf[i], to its CR in one pass: the
 * first byte outside 0x20-0x7e (value_stop()) and the colon are looked
 * for from the same start, apart, so that the value's end does not wait
 * for the name's. Returns the CR's index, the colon's in *c and the value
 * without its SP OWS in [*vs, *ve); 0 for anything else (a name of 16
 * bytes or more, a byte other than a tchar before the colon, HT,
 * obs-text, a CTL, no CR before hend), which the general steps parse.
 */
static __rte_always_inline uint32_t
field_line(const char *buf, uint32_t i, uint32_t len, uint32_t hend,
	uint32_t *c, uint32_t *vs, uint32_t *ve)
{
#ifdef __SSSE3__
	uint32_t sh, colon, k, n, v, e;
	__m128i x;

	if (len < 16)
		return 0;
	sh = len - i >= 16 ? 0 : 16 - (len - i);
	x = http_load16(buf + i - sh);
	colon = http_eq16(x, ':') >> sh;
	k = value_stop(buf, i, len);
	if (colon == 0)
		return 0;
	n = (uint32_t)__builtin_ctz(colon);
	/* a name: tchars, at least one (the CR is after them: k > n) */
	if (n == 0 || (~(http_tchar16(x) >> sh) & ((UINT32_C(1) << n) - 1)) ||
		k >= hend || buf[k] != '\r')
		return 0;
	for (v = i + n + 1; v < k && buf[v] == ' '; v++)
		;
	for (e = k; e > v && buf[e - 1] == ' '; e--)
		;
	*c = i + n;
	*vs = v;
	*ve = e;
	return k;
#else
	RTE_SET_USED(buf);
	RTE_SET_USED(i);
	RTE_SET_USED(len);
	RTE_SET_USED(hend);
	RTE_SET_USED(c);
	RTE_SET_USED(vs);
	RTE_SET_USED(ve);
	return 0;
#endif
}

/*
 * A field http_field_apply() may act on, by its name's length and first
 * letter (h, e, c or t, in either case; a few other tchars alias them,
 * and http_field_apply() tells): most fields are not called for.
 */
static __rte_always_inline int
field_maybe(const char *n, uint32_t len)
{
	const uint32_t first = UINT32_C(1) << ((unsigned char)n[0] & 0x1f);

	return HTTP_FIELD_MAYBE(len) &&
		(first &
			(UINT32_C(1) << ('h' & 0x1f) |
				UINT32_C(1) << ('e' & 0x1f) |
				UINT32_C(1) << ('c' & 0x1f) |
				UINT32_C(1) << ('t' & 0x1f)));
}

/*
 * Fast path: a whole, well-formed head in one piece, at the start of a
 * request. Straight-line code with no per-byte state dispatch; anything
 * unusual (end of input, an error, a limit, a leading empty line, a version
 * other than 1.0/1.1) returns -1 and the state machine below parses the
 * piece from its start instead, so errors and their statuses come from one
 * place only. Where the CPU has SSSE3 and the isa is not scalar, field
 * names and values are found in 16-byte steps, and a "Host: " line is known
 * without a scan of its name. The unit tests and the fuzzer compare this
 * path (whole input, each isa) with the state machine (split input) on
 * every request.
 */
static __rte_always_inline int
parse_fast(struct ewyk_http_parser *p, struct ewyk_http_request *req,
	const char *buf, uint32_t len, uint32_t *consumed)
{
	uint32_t i = 0, s, e, c, cr, lend, hend;
	struct ewyk_http_header *h;
	int m, minor, is_host;
	/* the 16-byte steps; the scalar isa never runs a vector instruction */
	const int vec = p->isa != EWYK_HTTP_ISA_SCALAR;

	if (len >= 4 && memcmp(buf, "GET ", 4) == 0) {
		i = 3;
		m = EWYK_HTTP_GET;
		goto method_done;
	}
	while (i < len && http_tchar[(unsigned char)buf[i]])
		i++;
	if (i == 0 || i >= len || buf[i] != ' ')
		return -1;
	m = http_method_lookup(buf, i);
method_done:
	if (m < 0 || m == EWYK_HTTP_CONNECT)
		return -1;
	req->method_id = (uint8_t)m;
	req->method.p = buf;
	req->method.len = i;
	s = ++i;
	i = target_end(buf, i, len, p->isa);
	if (i == s || len - i < 11 || buf[i] != ' ')
		return -1;
	req->target.p = buf + s;
	req->target.len = i - s;
	if (target_finish(req, vec ? len - s : 0) != 0)
		return -1;
	i++;
	/* "HTTP/1.1" or "HTTP/1.0", then CRLF */
	minor = version_at(buf + i);
	if (minor < 0 || buf[i + 8] != '\r' || buf[i + 9] != '\n')
		return -1;
	req->version_minor = (uint8_t)minor;
	i += 8; /* at the request line's CR */
	lend = i + 2;
	if (lend > p->lim.max_line)
		return -1;
	hend = len - lend > p->lim.max_header_bytes ?
		lend + p->lim.max_header_bytes :
		len;
	/* i is at the CR of a CRLF that ends a line */
	for (;;) {
		/* CRLF CRLF: the end of the head, in one compare */
		if (i + 3 < hend && crlf_crlf_at(buf + i)) {
			i += 4;
			break;
		}
		i += 2;
		if (i >= hend || buf[i] == '\r' ||
			req->nheaders >= req->max_headers)
			goto slow;
		h = &req->headers[req->nheaders];
		s = i;
		is_host = starts_host_sp(buf + i, len - i);
		h->name.p = buf + s;
		if (is_host) {
			/* "Host: " value CR, the value checked on the way */
			e = host_value_end(buf, i + 6, len, hend, p->isa);
			if (e != 0) {
				h->name.len = 4;
				h->value.p = buf + i + 6;
				h->value.len = e - i - 6;
				i = e;
				if (i + 1 >= hend || buf[i + 1] != '\n' ||
					http_field_host(p, req, h, SIZE_MAX) !=
						0)
					goto slow;
				req->nheaders++;
				continue;
			}
		}
		cr = vec && !is_host ?
			field_line(buf, i, len, hend, &c, &s, &e) :
			0;
		if (cr != 0) {
			h->name.len = c - i;
			i = cr;
		} else {
			i = is_host ? i + 4 :
				      field_name_end(buf, i, len, hend, p->isa);
			if (i >= hend)
				goto slow;
			h->name.len = i - s;
			i++;
			/* the usual single SP, before the 16 bytes */
			if (i < hend && buf[i] == ' ')
				i++;
			i = field_value_end(buf, i, len, hend, p->isa, &s, &e);
		}
		if (i + 1 >= hend || buf[i + 1] != '\n')
			goto slow;
		h->value.p = buf + s;
		h->value.len = e - s;
		req->nheaders++;
		if (is_host) {
			if (http_field_host(p, req, h, vec ? len - s : 0) != 0)
				goto slow;
		} else if (field_maybe(h->name.p, h->name.len) &&
			http_field_apply(p, req, h) != 0) {
			goto slow;
		}
	}
	if (http_fields_finish(p, req) != 0)
		goto slow;
	p->state = PS_DONE;
	*consumed = i;
	return EWYK_HTTP_DONE;
slow:
	/* undo what the fields did; the state machine starts over */
	p->nhost = 0;
	p->flags = 0;
	p->cl = 0;
	p->te_count = 0;
	p->te_chunked = 0;
	p->te_last_chunked = 0;
	p->te_other = 0;
	req->nheaders = 0;
	req->host.p = NULL;
	req->host.len = 0;
	return -1;
}

/* One piece of input, the arguments checked: fast path, else the machine. */
static __rte_always_inline int
parse_piece(struct ewyk_http_parser *p, struct ewyk_http_request *req,
	const char *buf, uint32_t len, uint32_t *consumed)
{
	if (p->state == PS_START) {
		req->nheaders = 0;
		req->host.p = NULL;
		req->host.len = 0;
		if (p->line_left == p->lim.max_line &&
			parse_fast(p, req, buf, len, consumed) > 0)
			return EWYK_HTTP_DONE;
	}
	*consumed = 0;
	return http_parse_machine(p, req, buf, len, consumed);
}

int
ewyk_http_parse(struct ewyk_http_parser *p, struct ewyk_http_request *req,
	const char *buf, uint32_t len, uint32_t *consumed)
{
	if (p == NULL || req == NULL || consumed == NULL ||
		(buf == NULL && len > 0) || p->state >= PS_DONE ||
		req->headers == NULL)
		return -EINVAL;
	return parse_piece(p, req, buf, len, consumed);
}

int
ewyk_http_parse_mbuf(struct ewyk_http_parser *p, struct ewyk_http_request *req,
	const struct rte_mbuf *m, uint32_t off, uint32_t *consumed)
{
	uint32_t total = 0, used;
	int r;

	if (p == NULL || req == NULL || m == NULL || consumed == NULL ||
		p->state >= PS_DONE || req->headers == NULL)
		return -EINVAL;
	*consumed = 0;
	for (; m != NULL; m = m->next) {
		if (off >= m->data_len) {
			off -= m->data_len;
			continue;
		}
		r = parse_piece(p, req,
			rte_pktmbuf_mtod_offset(m, const char *, off),
			m->data_len - off, &used);
		total += used;
		off = 0;
		if (r != EWYK_HTTP_AGAIN) {
			*consumed = total;
			return r;
		}
	}
	*consumed = total;
	return EWYK_HTTP_AGAIN;
}

const struct ewyk_http_header *
ewyk_http_header_find(const struct ewyk_http_request *req, const char *name)
{
	uint32_t n, i;

	if (req == NULL || name == NULL)
		return NULL;
	n = (uint32_t)strlen(name);
	for (i = 0; i < req->nheaders; i++) {
		const struct ewyk_http_header *h = &req->headers[i];
		uint32_t j;

		if (h->name.len != n)
			continue;
		for (j = 0; j < n; j++) {
			unsigned char a = (unsigned char)h->name.p[j];
			unsigned char b = (unsigned char)name[j];

			if (a >= 'A' && a <= 'Z')
				a |= 0x20;
			if (b >= 'A' && b <= 'Z')
				b |= 0x20;
			if (a != b)
				break;
		}
		if (j == n)
			return h;
	}
	return NULL;
}
