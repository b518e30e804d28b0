/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The request-head fast path's scanners (http_parse.c includes this file
 * once): field names, values, the request target and the Host line found
 * eight or sixteen bytes at a time, with no per-byte state dispatch. They
 * are static and always inlined into parse_fast(), so that the fast path
 * stays one straight-line function; they live here only to keep the
 * parser's own rules readable apart from its byte tricks.
 */

#ifndef HTTP_PARSE_SCAN_H
#define HTTP_PARSE_SCAN_H

#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>

#include "http_private.h"

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
 * 32 bytes there or in the buffer's last 16, with no OWS and only the
 * usual host [":" port] bytes (http_authority_quick16()): the CR's index.
 * 0 otherwise (the general steps decide). isa not scalar only.
 */
static inline uint32_t
host_value_end(const char *buf, uint32_t i, uint32_t len, uint32_t hend,
	unsigned int isa)
{
#ifdef __SSSE3__
	/* pshufb indices that move bytes sh.. of a load down to byte 0 and
	 * zero the bytes above (index with its high bit set) */
	static const int8_t down[32] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
		12, 13, 14, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
		-1, -1, -1, -1 };

	if (isa != EWYK_HTTP_ISA_SCALAR && len - i < 16 && len >= 16) {
		/*
		 * A small request's Host line ends its buffer: the value is
		 * in the buffer's last 16 bytes, moved down to byte 0 with
		 * zeros after (a zero stops the value like any CTL, so a
		 * stop past the buffer's end is no CR).
		 */
		const uint32_t sh = i + 16 - len;
		const __m128i x = _mm_shuffle_epi8(http_load16(buf + len - 16),
			_mm_loadu_si128(
				(const __m128i *)(const void *)(down + sh)));
		const uint32_t k = (uint32_t)__builtin_ctz(
			http_value_stop16(x) | 0x10000);

		return k < len - i && i + k < hend && buf[i + k] == '\r' &&
				http_authority_quick16(x, k) ?
			i + k :
			0;
	}
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

#endif /* HTTP_PARSE_SCAN_H */
