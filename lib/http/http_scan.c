/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Byte scanners of the request-head parser, in three instruction sets.
 * The vector variants only load whole vectors inside [s, s + n) (no read
 * past the caller's segment) and finish with the scalar loop, so every
 * variant returns the same index for the same input.
 */

#include <errno.h>
#include <string.h>

#include <rte_log.h>

#include "http_private.h"

#if defined(__x86_64__) || defined(__i386__)
#define HTTP_X86 1
#include <immintrin.h>
#endif

RTE_LOG_REGISTER(ewyk_http_logtype, ewyk.http, INFO);

#define T(c) [(unsigned char)(c)] = 1
const uint8_t http_tchar[256] = {
	T('!'),
	T('#'),
	T('$'),
	T('%'),
	T('&'),
	T('\''),
	T('*'),
	T('+'),
	T('-'),
	T('.'),
	T('^'),
	T('_'),
	T('`'),
	T('|'),
	T('~'),
	T('0'),
	T('1'),
	T('2'),
	T('3'),
	T('4'),
	T('5'),
	T('6'),
	T('7'),
	T('8'),
	T('9'),
	T('A'),
	T('B'),
	T('C'),
	T('D'),
	T('E'),
	T('F'),
	T('G'),
	T('H'),
	T('I'),
	T('J'),
	T('K'),
	T('L'),
	T('M'),
	T('N'),
	T('O'),
	T('P'),
	T('Q'),
	T('R'),
	T('S'),
	T('T'),
	T('U'),
	T('V'),
	T('W'),
	T('X'),
	T('Y'),
	T('Z'),
	T('a'),
	T('b'),
	T('c'),
	T('d'),
	T('e'),
	T('f'),
	T('g'),
	T('h'),
	T('i'),
	T('j'),
	T('k'),
	T('l'),
	T('m'),
	T('n'),
	T('o'),
	T('p'),
	T('q'),
	T('r'),
	T('s'),
	T('t'),
	T('u'),
	T('v'),
	T('w'),
	T('x'),
	T('y'),
	T('z'),
};
#undef T

/*
 * Portable scanners: eight bytes at a time with word arithmetic (a word
 * holding no stop byte is skipped whole), then the byte test on the word
 * that holds one (the SWAR macros are in http_private.h).
 */
#define load64 http_load64
#define TARGET_WORD_STOP HTTP_TARGET_WORD_STOP
#define VALUE_WORD_STOP HTTP_VALUE_WORD_STOP

static inline size_t
scan_target_scalar(const char *s, size_t i, size_t n)
{
	for (; i + 8 <= n; i += 8) {
		uint64_t x = load64(s + i);

		if (TARGET_WORD_STOP(x) != 0)
			break;
	}
	for (; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= 0x20 || c >= 0x7f)
			break;
	}
	return i;
}

static inline size_t
scan_value_scalar(const char *s, size_t i, size_t n)
{
	for (;;) {
		size_t w;

		for (; i + 8 <= n; i += 8) {
			uint64_t x = load64(s + i);

			/* HT stops the word test too; the byte test passes it */
			if (VALUE_WORD_STOP(x) != 0)
				break;
		}
		w = i + 8 <= n ? i + 8 : n;
		for (; i < w; i++) {
			unsigned char c = (unsigned char)s[i];

			if ((c < 0x20 && c != '\t') || c == 0x7f)
				return i;
		}
		if (i >= n)
			return n;
	}
}

#ifdef HTTP_X86
/* PCMPESTRI with ranges: index of the first byte inside any range. */
__attribute__((target("sse4.2"))) static size_t
scan_target_sse42(const char *s, size_t n)
{
	static const char ranges[16] = "\x00\x20\x7f\xff";
	const __m128i r = _mm_loadu_si128(
		(const __m128i *)(const void *)ranges);
	size_t i = 0;

	/* short tokens end in the first word: no vector set-up for them */
	if (n >= 8 && TARGET_WORD_STOP(load64(s)) != 0)
		return scan_target_scalar(s, 0, 8);

	for (; i + 16 <= n; i += 16) {
		__m128i b = _mm_loadu_si128(
			(const __m128i *)(const void *)(s + i));
		int k = _mm_cmpestri(r, 4, b, 16,
			_SIDD_UBYTE_OPS | _SIDD_CMP_RANGES |
				_SIDD_LEAST_SIGNIFICANT);

		if (k != 16)
			return i + (size_t)k;
	}
	return scan_target_scalar(s, i, n);
}

__attribute__((target("sse4.2"))) static size_t
scan_value_sse42(const char *s, size_t n)
{
	static const char ranges[16] = "\x00\x08\x0a\x1f\x7f\x7f";
	const __m128i r = _mm_loadu_si128(
		(const __m128i *)(const void *)ranges);
	size_t i = 0;

	if (n >= 8 && VALUE_WORD_STOP(load64(s)) != 0) {
		i = scan_value_scalar(s, 0, 8);
		if (i < 8)
			return i;
	}

	for (; i + 16 <= n; i += 16) {
		__m128i b = _mm_loadu_si128(
			(const __m128i *)(const void *)(s + i));
		int k = _mm_cmpestri(r, 6, b, 16,
			_SIDD_UBYTE_OPS | _SIDD_CMP_RANGES |
				_SIDD_LEAST_SIGNIFICANT);

		if (k != 16)
			return i + (size_t)k;
	}
	return scan_value_scalar(s, i, n);
}

/*
 * AVX2: as signed bytes, 0x21-0x7e is exactly (b > 0x20 && b < 0x7f)
 * (0x80-0xff are negative). A value byte stops the scan when
 * min_u(b, 0x1f) == b (b <= 0x1f) and b != HT, or b == DEL.
 */
__attribute__((target("avx2"))) static size_t
scan_target_avx2(const char *s, size_t n)
{
	const __m256i lo = _mm256_set1_epi8(0x20);
	const __m256i hi = _mm256_set1_epi8(0x7f);
	size_t i = 0;

	if (n >= 8 && TARGET_WORD_STOP(load64(s)) != 0)
		return scan_target_scalar(s, 0, 8);

	for (; i + 32 <= n; i += 32) {
		__m256i b = _mm256_loadu_si256(
			(const __m256i *)(const void *)(s + i));
		__m256i ok = _mm256_and_si256(_mm256_cmpgt_epi8(b, lo),
			_mm256_cmpgt_epi8(hi, b));
		uint32_t m = ~(uint32_t)_mm256_movemask_epi8(ok);

		if (m != 0)
			return i + (size_t)__builtin_ctz(m);
	}
	return scan_target_scalar(s, i, n);
}

__attribute__((target("avx2"))) static size_t
scan_value_avx2(const char *s, size_t n)
{
	const __m256i c1f = _mm256_set1_epi8(0x1f);
	const __m256i ht = _mm256_set1_epi8('\t');
	const __m256i del = _mm256_set1_epi8(0x7f);
	size_t i = 0;

	if (n >= 8 && VALUE_WORD_STOP(load64(s)) != 0) {
		i = scan_value_scalar(s, 0, 8);
		if (i < 8)
			return i;
	}

	for (; i + 32 <= n; i += 32) {
		__m256i b = _mm256_loadu_si256(
			(const __m256i *)(const void *)(s + i));
		__m256i ctl = _mm256_cmpeq_epi8(_mm256_min_epu8(b, c1f), b);
		__m256i bad = _mm256_or_si256(
			_mm256_andnot_si256(_mm256_cmpeq_epi8(b, ht), ctl),
			_mm256_cmpeq_epi8(b, del));
		uint32_t m = (uint32_t)_mm256_movemask_epi8(bad);

		if (m != 0)
			return i + (size_t)__builtin_ctz(m);
	}
	return scan_value_scalar(s, i, n);
}
#endif

size_t
http_scan_target(unsigned int isa, const char *s, size_t n)
{
#ifdef HTTP_X86
	if (isa == EWYK_HTTP_ISA_AVX2)
		return scan_target_avx2(s, n);
	if (isa == EWYK_HTTP_ISA_SSE42)
		return scan_target_sse42(s, n);
#else
	(void)isa;
#endif
	return scan_target_scalar(s, 0, n);
}

size_t
http_scan_value(unsigned int isa, const char *s, size_t n)
{
#ifdef HTTP_X86
	if (isa == EWYK_HTTP_ISA_AVX2)
		return scan_value_avx2(s, n);
	if (isa == EWYK_HTTP_ISA_SSE42)
		return scan_value_sse42(s, n);
#else
	(void)isa;
#endif
	return scan_value_scalar(s, 0, n);
}

static int
isa_supported(enum ewyk_http_isa isa)
{
	switch (isa) {
	case EWYK_HTTP_ISA_SCALAR:
		return 1;
#ifdef HTTP_X86
	case EWYK_HTTP_ISA_SSE42:
		return __builtin_cpu_supports("sse4.2");
	case EWYK_HTTP_ISA_AVX2:
		return __builtin_cpu_supports("avx2");
#endif
	default:
		return 0;
	}
}

enum ewyk_http_isa
ewyk_http_isa_best(void)
{
	if (isa_supported(EWYK_HTTP_ISA_AVX2))
		return EWYK_HTTP_ISA_AVX2;
	if (isa_supported(EWYK_HTTP_ISA_SSE42))
		return EWYK_HTTP_ISA_SSE42;
	return EWYK_HTTP_ISA_SCALAR;
}

int
ewyk_http_parser_set_isa(struct ewyk_http_parser *p, enum ewyk_http_isa isa)
{
	if (p == NULL || (unsigned int)isa > EWYK_HTTP_ISA_AVX2)
		return -EINVAL;
	if (!isa_supported(isa))
		return -ENOTSUP;
	p->isa = (uint8_t)isa;
	return 0;
}
