/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/http's lexical helpers (http_num.c): every byte value through
 * ewyk_http_hex_digit() and ewyk_http_pct_octet() against a model, and
 * ewyk_http_parse_u64() at its edges: empty, bad digits, the limit, the
 * overflow of 64 bits, long runs of leading zeros. Run by test_http.c's
 * main.
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>

#include <ewyk_http.h>

#include "http_test_util.h"

/* The model: the digits of RFC 5234's HEXDIG, either case. */
static int
hex_model(unsigned int c)
{
	static const char digits[] = "0123456789abcdef";
	const char *p;

	if (c == 0)
		return -EINVAL;
	p = strchr(digits,
		c >= 'A' && c <= 'F' ? (int)(c - 'A' + 'a') : (int)c);
	return p == NULL ? -EINVAL : (int)(p - digits);
}

void
test_hex_digit_and_pct_octet(void **state)
{
	unsigned int c, d;
	char s[4] = "%00";

	(void)state;
	for (c = 0; c < 256; c++)
		assert_int_equal(ewyk_http_hex_digit((char)c), hex_model(c));
	/* every pair of bytes after a '%' */
	for (c = 0; c < 256; c++) {
		for (d = 0; d < 256; d++) {
			int want = hex_model(c) < 0 || hex_model(d) < 0 ?
				-EINVAL :
				hex_model(c) * 16 + hex_model(d);

			s[1] = (char)c;
			s[2] = (char)d;
			assert_int_equal(ewyk_http_pct_octet(s, 3), want);
		}
	}
	assert_int_equal(ewyk_http_pct_octet("%2F", 3), '/');
	assert_int_equal(ewyk_http_pct_octet("%2e%2e", 6), '.');
	assert_int_equal(ewyk_http_pct_octet("%fF", 3), 255);
	assert_int_equal(ewyk_http_pct_octet("%00", 3), 0);
	/* '%' at the end, or one digit short: only n bytes are read */
	assert_int_equal(ewyk_http_pct_octet("%", 1), -EINVAL);
	assert_int_equal(ewyk_http_pct_octet("%4", 2), -EINVAL);
	assert_int_equal(ewyk_http_pct_octet("%41", 2), -EINVAL);
	assert_int_equal(ewyk_http_pct_octet("", 0), -EINVAL);
	assert_int_equal(ewyk_http_pct_octet(NULL, 3), -EINVAL);
	/* not a '%' first */
	assert_int_equal(ewyk_http_pct_octet("x41", 3), -EINVAL);
	assert_int_equal(ewyk_http_pct_octet("%%41", 4), -EINVAL);
	assert_int_equal(ewyk_http_pct_octet("%-1", 3), -EINVAL);
	assert_int_equal(ewyk_http_pct_octet("%4g", 3), -EINVAL);
}

/* ewyk_http_parse_u64(s, strlen(s), max): its return; the value in *v. */
static int
pu(const char *s, uint64_t max, uint64_t *v)
{
	*v = UINT64_C(0xabad1dea);
	return ewyk_http_parse_u64(s, strlen(s), max, v);
}

void
test_parse_u64(void **state)
{
	char buf[64];
	uint64_t v, m;

	(void)state;
	assert_int_equal(pu("0", 0, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(pu("12345", UINT64_MAX, &v), 0);
	assert_int_equal(v, 12345);
	/* the limit itself, and one more */
	assert_int_equal(pu("1099511627776", UINT64_C(1) << 40, &v), 0);
	assert_int_equal(v, UINT64_C(1) << 40);
	assert_int_equal(pu("1099511627777", UINT64_C(1) << 40, &v), -ERANGE);
	assert_int_equal(v, UINT64_C(0xabad1dea)); /* untouched */
	assert_int_equal(pu("10", 9, &v), -ERANGE);
	assert_int_equal(pu("5", 4, &v), -ERANGE);
	assert_int_equal(pu("0", 0, &v), 0);
	/* the 64-bit edge: 2^64 - 1 fits, 2^64 and beyond do not */
	assert_int_equal(pu("18446744073709551615", UINT64_MAX, &v), 0);
	assert_int_equal(v, UINT64_MAX);
	assert_int_equal(pu("18446744073709551616", UINT64_MAX, &v), -ERANGE);
	assert_int_equal(pu("18446744073709551620", UINT64_MAX, &v), -ERANGE);
	assert_int_equal(pu("99999999999999999999999", UINT64_MAX, &v),
		-ERANGE);
	assert_int_equal(v, UINT64_C(0xabad1dea));
	/* every value around a power of ten against printf */
	for (m = 1; m <= UINT64_MAX / 10; m *= 10) {
		uint64_t x;

		for (x = m - 1; x <= m + 1; x++) {
			snprintf(buf, sizeof(buf), "%" PRIu64, x);
			assert_int_equal(pu(buf, UINT64_MAX, &v), 0);
			assert_int_equal(v, x);
			assert_int_equal(pu(buf, x, &v), 0);
			if (x > 0)
				assert_int_equal(pu(buf, x - 1, &v), -ERANGE);
		}
	}
	/* leading zeros are digits like any other */
	memset(buf, '0', 40);
	buf[40] = '7';
	buf[41] = '\0';
	assert_int_equal(pu(buf, 7, &v), 0);
	assert_int_equal(v, 7);
	/* empty, signs, spaces, bad digits: -EINVAL, even after an overflow */
	assert_int_equal(pu("", UINT64_MAX, &v), -EINVAL);
	assert_int_equal(pu("-1", UINT64_MAX, &v), -EINVAL);
	assert_int_equal(pu("+1", UINT64_MAX, &v), -EINVAL);
	assert_int_equal(pu(" 1", UINT64_MAX, &v), -EINVAL);
	assert_int_equal(pu("1 ", UINT64_MAX, &v), -EINVAL);
	assert_int_equal(pu("12a", UINT64_MAX, &v), -EINVAL);
	assert_int_equal(pu("0x10", UINT64_MAX, &v), -EINVAL);
	assert_int_equal(pu("1/", UINT64_MAX, &v), -EINVAL);
	assert_int_equal(pu("1:", UINT64_MAX, &v), -EINVAL);
	assert_int_equal(pu("99999999999999999999999x", UINT64_MAX, &v),
		-EINVAL);
	assert_int_equal(pu("99x", 5, &v), -EINVAL);
	assert_int_equal(v, UINT64_C(0xabad1dea));
	/* only n bytes are read */
	assert_int_equal(ewyk_http_parse_u64("123x", 3, UINT64_MAX, &v), 0);
	assert_int_equal(v, 123);
	assert_int_equal(ewyk_http_parse_u64("1", 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(ewyk_http_parse_u64(NULL, 1, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(ewyk_http_parse_u64("1", 1, UINT64_MAX, NULL),
		-EINVAL);
}
