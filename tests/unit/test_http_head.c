/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/http's response-head writer against printf: the status line of every
 * code it accepts (100..999, known reason phrases and "Unknown"), and
 * Content-Length values across every decimal width up to UINT64_MAX.
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

/* Every code: the head starts with "HTTP/1.1 NNN reason\r\n" as printf
 * writes it; the reason is ewyk_http_reason()'s. */
static void
test_status_lines(void **state)
{
	struct ewyk_http_response r;
	char buf[256], want[128];
	unsigned int code;
	int n, wn;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.framing = EWYK_HTTP_BODY_NONE;
	for (code = 100; code <= 999; code++) {
		r.status = (uint16_t)code;
		n = ewyk_http_response_head(buf, sizeof(buf), &r, NULL);
		assert_true(n > 0);
		buf[n] = '\0';
		wn = snprintf(want, sizeof(want), "HTTP/1.1 %03u %s\r\n", code,
			ewyk_http_reason((uint16_t)code));
		assert_true(wn > 0 && wn < (int)sizeof(want));
		assert_memory_equal(buf, want, (size_t)wn);
		if (code < 200) {
			/* a 1xx is its status line and CRLF only */
			assert_int_equal(n, wn + 2);
			assert_string_equal(buf + wn, "\r\n");
		} else {
			assert_memory_equal(buf + wn, "Server: ewyk\r\n", 14);
		}
	}
	/* a few phrases spelled out, so that the table is checked too */
	assert_string_equal(ewyk_http_reason(200), "OK");
	assert_string_equal(ewyk_http_reason(404), "Not Found");
	assert_string_equal(ewyk_http_reason(505),
		"HTTP Version Not Supported");
	assert_string_equal(ewyk_http_reason(999), "Unknown");
	r.status = 418;
	n = ewyk_http_response_head(buf, sizeof(buf), &r, NULL);
	assert_true(n > 0);
	assert_memory_equal(buf, "HTTP/1.1 418 Unknown\r\n", 22);
	/* out of range */
	r.status = 99;
	assert_int_equal(ewyk_http_response_head(buf, sizeof(buf), &r, NULL),
		-EINVAL);
	r.status = 1000;
	assert_int_equal(ewyk_http_response_head(buf, sizeof(buf), &r, NULL),
		-EINVAL);
}

static void
check_length(uint64_t v)
{
	struct ewyk_http_response r;
	char buf[256], want[64];
	const char *p;
	int n;

	memset(&r, 0, sizeof(r));
	r.status = 200;
	r.framing = EWYK_HTTP_BODY_LENGTH;
	r.content_length = v;
	n = ewyk_http_response_head(buf, sizeof(buf), &r, NULL);
	assert_true(n > 0);
	buf[n] = '\0';
	snprintf(want, sizeof(want), "\r\nContent-Length: %" PRIu64 "\r\n", v);
	p = strstr(buf, want);
	assert_non_null(p);
	/* and nothing else around it: the field ends the head */
	assert_string_equal(p + strlen(want), "\r\n");
}

/* Content-Length at every decimal width: 10^k - 1, 10^k, 10^k + 1, some
 * digits in between, and the largest values. */
static void
test_content_length(void **state)
{
	uint64_t p10 = 1, v;
	int k;

	(void)state;
	check_length(0);
	for (k = 0; k < 20; k++) {
		check_length(p10 - 1);
		check_length(p10);
		check_length(p10 + 1);
		check_length(p10 * 9 + p10 / 3);
		if (k < 19)
			p10 *= 10;
	}
	for (v = 0; v < 1000; v++)
		check_length(v);
	check_length(12345678901234567890ull);
	check_length(UINT64_MAX - 1);
	check_length(UINT64_MAX);
}

/* The head does not fit by one byte, at the status line and elsewhere. */
static void
test_head_nospace(void **state)
{
	struct ewyk_http_response r;
	char buf[256];
	int n, cap;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.status = 431;
	r.framing = EWYK_HTTP_BODY_LENGTH;
	r.content_length = UINT64_MAX;
	r.server = "x";
	r.content_type = "text/plain";
	n = ewyk_http_response_head(buf, sizeof(buf), &r, NULL);
	assert_true(n > 0);
	for (cap = 0; cap < n; cap++)
		assert_int_equal(ewyk_http_response_head(buf, (uint32_t)cap, &r,
					 NULL),
			-ENOSPC);
	assert_int_equal(ewyk_http_response_head(buf, (uint32_t)n, &r, NULL),
		n);
	r.content_type = "text/plain\r\nX: y";
	assert_int_equal(ewyk_http_response_head(buf, sizeof(buf), &r, NULL),
		-EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_lines),
		cmocka_unit_test(test_content_length),
		cmocka_unit_test(test_head_nospace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
