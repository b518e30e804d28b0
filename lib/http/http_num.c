/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The small lexical helpers lib/http and its users share: one hexadecimal
 * digit, one percent-encoded octet, one decimal number. Each reads only
 * the bytes it is given and never allocates.
 */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "ewyk_http.h"

int
ewyk_http_hex_digit(char c)
{
	unsigned char u = (unsigned char)c;

	if (u >= '0' && u <= '9')
		return u - '0';
	u |= 0x20; /* 'A'..'F' to 'a'..'f'; no other byte maps into them */
	if (u >= 'a' && u <= 'f')
		return u - 'a' + 10;
	return -EINVAL;
}

int
ewyk_http_pct_octet(const char *s, size_t n)
{
	int h, l;

	if (s == NULL || n < 3 || s[0] != '%')
		return -EINVAL;
	h = ewyk_http_hex_digit(s[1]);
	l = ewyk_http_hex_digit(s[2]);
	if (h < 0 || l < 0)
		return -EINVAL;
	return h * 16 + l;
}

int
ewyk_http_parse_u64(const char *s, size_t n, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	int over = 0;
	size_t i;

	if (s == NULL || out == NULL || n == 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		unsigned int d = (unsigned char)s[i] - (unsigned int)'0';

		if (d > 9)
			return -EINVAL;
		if (over)
			continue; /* still every byte a digit? */
		if (d > max || v > (max - d) / 10)
			over = 1;
		else
			v = v * 10 + d;
	}
	if (over)
		return -ERANGE;
	*out = v;
	return 0;
}
