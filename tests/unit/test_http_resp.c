/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/http response-head parser (ewyk_http_resp_parse): tables of valid
 * and malformed heads, each given whole and then every prefix of it (a
 * prefix must say AGAIN, never DONE or an error it would not give whole),
 * the framing rules of RFC 9112 6.3 for responses, the head length limit,
 * and a body decoded after the head (Content-Length and chunked).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>

#include <ewyk_http.h>

#include "test_common.h"

#define MAXH 8

struct resp_case {
	const char *text;
	int head_req;
	uint16_t status;
	uint8_t framing;
	uint8_t until_close;
	uint8_t keep_alive;
	uint64_t content_length;
	uint16_t nheaders;
};

static const struct resp_case valid[] = {
	{ "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n", 0, 200,
		EWYK_HTTP_BODY_LENGTH, 0, 1, 12, 1 },
	{ "HTTP/1.1 200 OK\r\nServer: nginx\r\nDate: x\r\n"
	  "Content-Type: text/plain\r\nContent-Length: 12\r\n"
	  "Connection: keep-alive\r\n\r\n",
		0, 200, EWYK_HTTP_BODY_LENGTH, 0, 1, 12, 5 },
	{ "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n"
	  "Connection: close\r\n\r\n",
		0, 500, EWYK_HTTP_BODY_LENGTH, 0, 0, 0, 2 },
	{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", 0, 200,
		EWYK_HTTP_BODY_CHUNKED, 0, 1, 0, 1 },
	/* Transfer-Encoding wins over Content-Length. */
	{ "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"
	  "Transfer-Encoding: gzip, chunked\r\n\r\n",
		0, 200, EWYK_HTTP_BODY_CHUNKED, 0, 1, 0, 2 },
	/* Not chunked last, or no length at all: until close. */
	{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", 0, 200,
		EWYK_HTTP_BODY_NONE, 1, 0, 0, 1 },
	{ "HTTP/1.1 200 OK\r\n\r\n", 0, 200, EWYK_HTTP_BODY_NONE, 1, 0, 0, 0 },
	/* No body whatever the fields: 204, 304, 1xx, HEAD. */
	{ "HTTP/1.1 204 No Content\r\n\r\n", 0, 204, EWYK_HTTP_BODY_NONE, 0, 1,
		0, 0 },
	{ "HTTP/1.1 304 Not Modified\r\nContent-Length: 99\r\n\r\n", 0, 304,
		EWYK_HTTP_BODY_NONE, 0, 1, 0, 1 },
	{ "HTTP/1.1 100 Continue\r\n\r\n", 0, 100, EWYK_HTTP_BODY_NONE, 0, 1, 0,
		0 },
	{ "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n", 1, 200,
		EWYK_HTTP_BODY_NONE, 0, 1, 0, 1 },
	/* HTTP/1.0: close unless keep-alive. */
	{ "HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\n", 0, 200,
		EWYK_HTTP_BODY_LENGTH, 0, 0, 3, 1 },
	{ "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\n"
	  "Content-Length: 3\r\n\r\n",
		0, 200, EWYK_HTTP_BODY_LENGTH, 0, 1, 3, 2 },
	/* Repeated equal lengths; a Connection list; bare LF; no reason;
	 * OWS around the value; HTTP/1.9 counts as 1.1. */
	{ "HTTP/1.1 200 OK\r\nContent-Length: 7\r\nContent-Length: 7\r\n\r\n",
		0, 200, EWYK_HTTP_BODY_LENGTH, 0, 1, 7, 2 },
	{ "HTTP/1.1 200 OK\r\nConnection: upgrade, Close\r\n"
	  "Content-Length: 1\r\n\r\n",
		0, 200, EWYK_HTTP_BODY_LENGTH, 0, 0, 1, 2 },
	{ "HTTP/1.1 200 OK\nContent-Length: 2\n\n", 0, 200,
		EWYK_HTTP_BODY_LENGTH, 0, 1, 2, 1 },
	{ "HTTP/1.1 404\r\nContent-Length: 0\r\n\r\n", 0, 404,
		EWYK_HTTP_BODY_LENGTH, 0, 1, 0, 1 },
	{ "HTTP/1.1 200 \r\nContent-Length:\t 4 \t\r\n\r\n", 0, 200,
		EWYK_HTTP_BODY_LENGTH, 0, 1, 4, 1 },
	{ "HTTP/1.9 200 OK\r\nContent-Length: 1\r\n\r\n", 0, 200,
		EWYK_HTTP_BODY_LENGTH, 0, 1, 1, 1 },
};

static const char *const malformed[] = {
	"HTTP/2.0 200 OK\r\n\r\n",
	"HTTP/1.1 20 OK\r\n\r\n",
	"HTTP/1.1 2000 OK\r\n\r\n",
	"HTTP/1.1 099 Low\r\n\r\n",
	"HTTP/1.1 600 High\r\n\r\n",
	"HTTP/1.1 2x0 OK\r\n\r\n",
	"HTTP/1.x 200 OK\r\n\r\n",
	"HTTP/1.1  200 OK\r\n\r\n",
	"http/1.1 200 OK\r\n\r\n",
	"HTTP/1.1 200 O\x01K\r\n\r\n",
	"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
	"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
	"HTTP/1.1 200 OK\r\nContent-Length: 1 2\r\n\r\n",
	"HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n",
	"HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n",
	"HTTP/1.1 200 OK\r\nContent-Length : 1\r\n\r\n",
	"HTTP/1.1 200 OK\r\n: empty\r\n\r\n",
	"HTTP/1.1 200 OK\r\nNo colon\r\n\r\n",
	"HTTP/1.1 200 OK\r\nX: a\r\n folded\r\n\r\n",
	"HTTP/1.1 200 OK\r\nX: a\x7f\r\n\r\n",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding:\r\n\r\n",
};

static void
check_valid(const struct resp_case *c)
{
	struct ewyk_http_header h[MAXH];
	struct ewyk_http_resp r = { .headers = h, .max_headers = MAXH };
	uint32_t len = (uint32_t)strlen(c->text), hl = 0, k;
	int rc;

	rc = ewyk_http_resp_parse(c->text, len, 0, c->head_req, &r, &hl);
	if (rc != EWYK_HTTP_DONE)
		fail_msg("'%s': %d", c->text, rc);
	assert_int_equal(hl, len);
	assert_int_equal(r.status, c->status);
	assert_int_equal(r.framing, c->framing);
	assert_int_equal(r.until_close, c->until_close);
	assert_int_equal(r.keep_alive, c->keep_alive);
	assert_int_equal(r.content_length, c->content_length);
	assert_int_equal(r.nheaders, c->nheaders);
	/* Every proper prefix is incomplete. */
	for (k = 0; k < len; k++) {
		rc = ewyk_http_resp_parse(c->text, k, 0, c->head_req, &r, &hl);
		if (rc != EWYK_HTTP_AGAIN)
			fail_msg("'%s' cut at %u: %d", c->text, k, rc);
	}
}

static void
test_valid(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(valid); i++)
		check_valid(&valid[i]);
}

static void
test_malformed(void **state)
{
	struct ewyk_http_header h[MAXH];
	struct ewyk_http_resp r = { .headers = h, .max_headers = MAXH };
	unsigned int i;
	uint32_t hl;
	int rc;

	(void)state;
	for (i = 0; i < RTE_DIM(malformed); i++) {
		rc = ewyk_http_resp_parse(malformed[i],
			(uint32_t)strlen(malformed[i]), 0, 0, &r, &hl);
		if (rc != -EBADMSG)
			fail_msg("'%s': %d, expected -EBADMSG", malformed[i],
				rc);
	}
}

/* Fields beyond the caller's array are checked but not kept; the text
 * after the head is not looked at. */
static void
test_fields_and_rest(void **state)
{
	static const char t[] = "HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\n"
				"Content-Length: 3\r\n\r\nabcHTTP/1.1 garbage";
	struct ewyk_http_header h[2];
	struct ewyk_http_resp r = { .headers = h, .max_headers = 2 };
	uint32_t hl;

	(void)state;
	assert_int_equal(ewyk_http_resp_parse(t, sizeof(t) - 1, 0, 0, &r, &hl),
		EWYK_HTTP_DONE);
	assert_int_equal(r.nheaders, 2);
	assert_int_equal(h[1].name.len, 1);
	assert_memory_equal(h[1].name.p, "B", 1);
	assert_memory_equal(h[1].value.p, "2", 1);
	assert_int_equal(r.reason.len, 2);
	assert_memory_equal(r.reason.p, "OK", 2);
	assert_memory_equal(t + hl, "abc", 3);
	assert_int_equal(r.content_length, 3);
	/* Without an array. */
	r.headers = NULL;
	r.max_headers = 0;
	assert_int_equal(ewyk_http_resp_parse(t, sizeof(t) - 1, 0, 0, &r, &hl),
		EWYK_HTTP_DONE);
	assert_int_equal(r.nheaders, 0);
	assert_int_equal(r.content_length, 3);
}

static void
test_limit(void **state)
{
	static const char t[] = "HTTP/1.1 200 OK\r\nX-Long: aaaaaaaaaaaaaaaa"
				"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n";
	struct ewyk_http_resp r = { 0 };
	uint32_t hl, len = sizeof(t) - 1;

	(void)state;
	assert_int_equal(ewyk_http_resp_parse(t, len, len, 0, &r, &hl),
		EWYK_HTTP_DONE);
	/* One byte short of the limit: the blank line is out of reach. */
	assert_int_equal(ewyk_http_resp_parse(t, len, len - 1, 0, &r, &hl),
		-EBADMSG);
	assert_int_equal(ewyk_http_resp_parse(t, 20, 32, 0, &r, &hl),
		EWYK_HTTP_AGAIN);
	assert_int_equal(ewyk_http_resp_parse(t, 40, 32, 0, &r, &hl), -EBADMSG);
	assert_int_equal(ewyk_http_resp_parse(NULL, 0, 0, 0, &r, &hl), -EINVAL);
	assert_int_equal(ewyk_http_resp_parse(t, len, 0, 0, NULL, &hl),
		-EINVAL);
}

/* Decode the body that follows a head; return the body bytes seen. */
static uint64_t
decode_body(const char *t, uint32_t len, int *done)
{
	struct ewyk_http_resp r = { 0 };
	struct ewyk_http_body b;
	struct ewyk_http_view d;
	uint32_t hl, off, used;
	uint64_t got = 0;
	int rc;

	assert_int_equal(ewyk_http_resp_parse(t, len, 0, 0, &r, &hl),
		EWYK_HTTP_DONE);
	assert_int_equal(ewyk_http_resp_body_init(&b, &r, NULL), 0);
	*done = 0;
	/* Until the decoder says DONE, or AGAIN with every byte used (a
	 * call with no bytes left says DONE once the length is complete). */
	for (off = hl;;) {
		rc = ewyk_http_body_parse(&b, t + off, len - off, &used, &d);
		assert_true(rc >= 0);
		off += used;
		if (rc == EWYK_HTTP_DATA)
			got += d.len;
		if (rc == EWYK_HTTP_DONE) {
			*done = 1;
			break;
		}
		if (rc == EWYK_HTTP_AGAIN)
			break;
	}
	return got;
}

static void
test_body(void **state)
{
	static const char cl[] = "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n"
				 "hello world\n";
	static const char ch[] = "HTTP/1.1 200 OK\r\n"
				 "Transfer-Encoding: chunked\r\n\r\n"
				 "6\r\nhello \r\n6\r\nworld\n\r\n0\r\n\r\n";
	int done;

	(void)state;
	assert_int_equal(decode_body(cl, sizeof(cl) - 1, &done), 12);
	assert_true(done);
	assert_int_equal(decode_body(cl, sizeof(cl) - 3, &done), 10);
	assert_false(done);
	assert_int_equal(decode_body(ch, sizeof(ch) - 1, &done), 12);
	assert_true(done);
	assert_int_equal(ewyk_http_resp_body_init(NULL, NULL, NULL), -EINVAL);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_fields_and_rest),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_body),
	};

	(void)argc;
	(void)argv;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
