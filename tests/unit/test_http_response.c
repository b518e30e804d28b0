/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/http response writer: heads with every framing and field, refusals
 * when the buffer is short, the Date line, chunk-size lines and chunk
 * wrapping of mbufs. (test_http_head.c checks the status line and
 * Content-Length against printf in a binary of its own.) Run by
 * test_http.c's main.
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

void
test_response(void **state)
{
	struct ewyk_http_date d;
	struct ewyk_http_response r = {
		.status = 200,
		.framing = EWYK_HTTP_BODY_LENGTH,
		.content_length = 12,
		.content_type = "text/plain",
	};
	char buf[512];
	int n, cap;

	(void)state;
	memset(&d, 0, sizeof(d));
	assert_int_equal(ewyk_http_date_update(&d, 784111777), 1);
	assert_string_equal(d.line, "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n");
	assert_int_equal(ewyk_http_date_update(&d, 784111777), 0);
	assert_int_equal(ewyk_http_date_update(&d, 1763942400), 1);
	assert_string_equal(d.line, "Date: Mon, 24 Nov 2025 00:00:00 GMT\r\n");
	assert_int_equal(ewyk_http_date_update(&d, 784111777), 1);

	/* The IMF-fixdate alone (Last-Modified): before the Epoch too; a
	 * year past 9999 has none; the buffer must hold it and its NUL. */
	{
		char v[EWYK_HTTP_IMF_DATE_LEN + 1];

		assert_int_equal(ewyk_http_imf_date(784111777, v, sizeof(v)),
			0);
		assert_string_equal(v, "Sun, 06 Nov 1994 08:49:37 GMT");
		assert_int_equal(ewyk_http_imf_date(-86400, v, sizeof(v)), 0);
		assert_string_equal(v, "Wed, 31 Dec 1969 00:00:00 GMT");
		assert_int_equal(ewyk_http_imf_date(INT64_C(253402300800), v,
					 sizeof(v)),
			-ERANGE);
		assert_int_equal(ewyk_http_imf_date(0, v, sizeof(v) - 1),
			-EINVAL);
		assert_int_equal(ewyk_http_imf_date(0, NULL, sizeof(v)),
			-EINVAL);
	}

	n = ewyk_http_response_head(buf, sizeof(buf), &r, &d);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf,
		"HTTP/1.1 200 OK\r\nServer: ewyk\r\n"
		"Date: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Length: 12\r\n"
		"Content-Type: text/plain\r\n\r\n");
	/* every smaller buffer is refused */
	for (cap = 0; cap < n; cap++)
		assert_int_equal(ewyk_http_response_head(buf, (uint32_t)cap, &r,
					 &d),
			-ENOSPC);

	r.status = 405;
	r.framing = EWYK_HTTP_BODY_CHUNKED;
	r.content_type = NULL;
	r.connection = EWYK_HTTP_CONN_CLOSE;
	r.server = "test";
	r.extra = "Allow: GET, HEAD\r\n";
	n = ewyk_http_response_head(buf, sizeof(buf), &r, NULL);
	buf[n] = '\0';
	assert_string_equal(buf,
		"HTTP/1.1 405 Method Not Allowed\r\n"
		"Server: test\r\nTransfer-Encoding: chunked\r\n"
		"Connection: close\r\nAllow: GET, HEAD\r\n\r\n");

	memset(&r, 0, sizeof(r));
	r.status = 204;
	r.framing = EWYK_HTTP_BODY_LENGTH;
	r.connection = EWYK_HTTP_CONN_KEEP_ALIVE;
	n = ewyk_http_response_head(buf, sizeof(buf), &r, NULL);
	buf[n] = '\0';
	assert_string_equal(buf,
		"HTTP/1.1 204 No Content\r\nServer: ewyk\r\n"
		"Connection: keep-alive\r\n\r\n");
	r.status = 404;
	r.framing = EWYK_HTTP_BODY_NONE;
	n = ewyk_http_response_head(buf, sizeof(buf), &r, NULL);
	buf[n] = '\0';
	assert_string_equal(buf,
		"HTTP/1.1 404 Not Found\r\nServer: ewyk\r\n"
		"Content-Length: 0\r\nConnection: keep-alive\r\n\r\n");
	/* close-delimited (to HTTP/1.0): no framing field at all */
	r.status = 200;
	r.framing = EWYK_HTTP_BODY_CLOSE;
	r.connection = EWYK_HTTP_CONN_CLOSE;
	n = ewyk_http_response_head(buf, sizeof(buf), &r, NULL);
	buf[n] = '\0';
	assert_string_equal(buf,
		"HTTP/1.1 200 OK\r\nServer: ewyk\r\nConnection: close\r\n\r\n");
	r.framing = EWYK_HTTP_BODY_CLOSE + 1;
	assert_int_equal(ewyk_http_response_head(buf, sizeof(buf), &r, NULL),
		-EINVAL);
	r.framing = EWYK_HTTP_BODY_NONE;
	r.connection = EWYK_HTTP_CONN_KEEP_ALIVE;
	r.status = 100;
	n = ewyk_http_response_head(buf, sizeof(buf), &r, &d);
	assert_int_equal(n, 25);
	assert_memory_equal(buf, "HTTP/1.1 100 Continue\r\n\r\n", 25);
	r.status = 99;
	assert_int_equal(ewyk_http_response_head(buf, sizeof(buf), &r, NULL),
		-EINVAL);
	/* no header injection: CR, LF, CTL in the strings copied */
	r.status = 200;
	r.server = "x\r\nSet-Cookie: a=b";
	assert_int_equal(ewyk_http_response_head(buf, sizeof(buf), &r, NULL),
		-EINVAL);
	r.server = "x\ny";
	assert_int_equal(ewyk_http_response_head(buf, sizeof(buf), &r, NULL),
		-EINVAL);
	r.server = "x\x7f";
	assert_int_equal(ewyk_http_response_head(buf, sizeof(buf), &r, NULL),
		-EINVAL);
	r.server = "ewyk/1\t(test)";
	r.content_type = "text/html\r\n\r\n<script>";
	assert_int_equal(ewyk_http_response_head(buf, sizeof(buf), &r, NULL),
		-EINVAL);
	r.content_type = "text/plain\x01";
	assert_int_equal(ewyk_http_response_head(buf, sizeof(buf), &r, NULL),
		-EINVAL);
	r.content_type = NULL;
	{
		static const char *const bad_extra[] = {
			"X-A: 1",               /* no CRLF */
			"X-A: 1\n",             /* bare LF */
			"X-A: 1\rX-B: 2\r\n",   /* bare CR */
			"X-A: 1\r\n\r\nbody",   /* ends the head */
			"X-A 1\r\n",            /* no colon */
			": 1\r\n",              /* empty name */
			"X A: 1\r\n",           /* name not a token */
			"X-A: 1\r\n\tfold\r\n", /* obs-fold */
			"X-A: \x01\r\n",        /* CTL */
		};
		size_t i;

		for (i = 0; i < RTE_DIM(bad_extra); i++) {
			r.extra = bad_extra[i];
			if (ewyk_http_response_head(buf, sizeof(buf), &r,
				    NULL) != -EINVAL)
				fail_msg("extra %zu accepted", i);
		}
	}
	r.extra = "X-A: 1\r\nX-B:\t2 \t3\r\nX-Empty:\r\n";
	n = ewyk_http_response_head(buf, sizeof(buf), &r, NULL);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf,
		"HTTP/1.1 200 OK\r\nServer: ewyk/1\t(test)\r\n"
		"Content-Length: 0\r\nConnection: keep-alive\r\n"
		"X-A: 1\r\nX-B:\t2 \t3\r\nX-Empty:\r\n\r\n");
	r.extra = "";
	assert_true(ewyk_http_response_head(buf, sizeof(buf), &r, NULL) > 0);
	assert_string_equal(ewyk_http_reason(431),
		"Request Header Fields Too Large");
	assert_string_equal(ewyk_http_reason(299), "Unknown");
}

void
test_response_mbuf_chunked(void **state)
{
	struct ewyk_http_response r = {
		.status = 200,
		.framing = EWYK_HTTP_BODY_CHUNKED,
	};
	struct ewyk_http_request req;
	struct rte_mbuf *m, *m2;
	char flat[256], out[RES_MAX];
	int n;

	(void)state;
	assert_int_equal(ewyk_http_chunk_size_line(flat, 8, 0x1a2b), 6);
	assert_memory_equal(flat, "1a2b\r\n", 6);
	assert_int_equal(ewyk_http_chunk_size_line(flat, 5, 0x1a2b), -ENOSPC);
	assert_int_equal(ewyk_http_chunk_size_line(flat, 20, UINT64_MAX), 18);

	m = rte_pktmbuf_alloc(mp);
	assert_int_equal(ewyk_http_response_head_mbuf(m, &r, NULL), 0);
	n = ewyk_http_response_head(flat, sizeof(flat), &r, NULL);
	assert_int_equal(m->pkt_len, (uint32_t)n);
	assert_memory_equal(rte_pktmbuf_mtod(m, char *), flat, (size_t)n);
	rte_pktmbuf_free(m);

	/* a two-segment chunk, wrapped in place, then the last chunk */
	m = chain_of("hello world", 11, 6);
	assert_int_equal(m->nb_segs, 5); /* 1+2+3+4+1 bytes */
	assert_int_equal(ewyk_http_chunk_wrap_mbuf(m), 0);
	assert_int_equal(m->pkt_len, 3 + 11 + 2);
	m2 = rte_pktmbuf_alloc(mp);
	assert_int_equal(ewyk_http_chunk_last_mbuf(m2), 0);
	assert_int_equal(rte_pktmbuf_chain(m, m2), 0);
	assert_non_null(rte_pktmbuf_read(m, 0, m->pkt_len, flat));
	assert_memory_equal(rte_pktmbuf_read(m, 0, m->pkt_len, flat),
		"b\r\nhello world\r\n0\r\n\r\n", m->pkt_len);
	/* what the encoder wrote, the decoder reads back, split anywhere */
	memset(&req, 0, sizeof(req));
	req.framing = EWYK_HTTP_BODY_CHUNKED;
	body_every_way(&req, rte_pktmbuf_read(m, 0, m->pkt_len, flat),
		m->pkt_len, out);
	assert_string_equal(out, "rc=1 st=0 used=21 data=[hello world]");
	rte_pktmbuf_free(m);

	m = rte_pktmbuf_alloc(mp);
	assert_int_equal(ewyk_http_chunk_wrap_mbuf(m), -EINVAL);
	/* no headroom: refused, unchanged */
	rte_pktmbuf_prepend(m, rte_pktmbuf_headroom(m));
	assert_int_equal(ewyk_http_chunk_wrap_mbuf(m), -ENOSPC);
	assert_int_equal(m->data_len, RTE_PKTMBUF_HEADROOM);
	rte_pktmbuf_free(m);
}
