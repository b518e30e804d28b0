/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_http_conn's response checker (http_resp_check.h). */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "http_resp_check.h"

static size_t
line_end(const char *p, size_t n, size_t i)
{
	for (; i + 1 < n; i++)
		if (p[i] == '\r' && p[i + 1] == '\n')
			return i;
	return n;
}

/* A malformed response: show the bytes (FUZZ_HTTP_CONN_DEBUG) and stop. */
static void
bad(const char *rx, size_t n)
{
	if (getenv("FUZZ_HTTP_CONN_DEBUG") != NULL)
		fprintf(stderr, "bad response bytes (%zu):\n%.*s\n", n,
			(int)RTE_MIN(n, 2000u), rx);
	abort();
}

/*
 * Check the responses in rx[0, n). Returns when the bytes end (a response
 * may be incomplete) or after the first head when heads_only.
 */
void
check_responses(const char *rx, size_t n, int heads_only)
{
	size_t i = 0;

	while (i < n) {
		size_t e, j;
		uint64_t clen = 0;
		int has_cl = 0, chunked = 0, close = 0, status;

		if (n - i < 12)
			return;
		if (memcmp(rx + i, "HTTP/1.1 ", 9) != 0 || rx[i + 12] != ' ')
			bad(rx, n);
		status = 0;
		for (j = i + 9; j < i + 12; j++) {
			if (rx[j] < '0' || rx[j] > '9')
				bad(rx, n);
			status = status * 10 + rx[j] - '0';
		}
		if (status < 100)
			bad(rx, n);
		e = line_end(rx, n, i);
		if (e == n)
			return;
		for (j = i; j < e; j++)
			if ((unsigned char)rx[j] < 0x20)
				bad(rx, n);
		i = e + 2;
		/* field lines */
		for (;;) {
			const char *l = rx + i;
			size_t ll;

			e = line_end(rx, n, i);
			if (e == n)
				return;
			ll = e - i;
			i = e + 2;
			if (ll == 0)
				break;
			if (memchr(l, ':', ll) == NULL)
				bad(rx, n);
			for (j = 0; j < ll; j++)
				if ((unsigned char)l[j] < 0x20)
					bad(rx, n);
			if (ll > 16 &&
				strncmp(l, "Content-Length: ", 16) == 0) {
				if (has_cl)
					bad(rx, n);
				has_cl = 1;
				clen = strtoull(l + 16, NULL, 10);
			} else if (ll == 26 &&
				memcmp(l, "Transfer-Encoding: chunked", 26) ==
					0) {
				chunked = 1;
			} else if (ll == 17 &&
				memcmp(l, "Connection: close", 17) == 0) {
				close = 1;
			}
		}
		if (has_cl && chunked)
			bad(rx, n);
		if (status < 200 || status == 204 || status == 304) {
			/* no content, no framing field (RFC 9110 8.6) */
			if (has_cl || chunked)
				bad(rx, n);
			if (close && i != n)
				bad(rx, n);
			continue;
		}
		if (heads_only)
			return;
		if (chunked) {
			for (;;) {
				uint64_t sz;
				char *end;

				e = line_end(rx, n, i);
				if (e == n)
					return;
				sz = strtoull(rx + i, &end, 16);
				if (end == rx + i || end != rx + e)
					bad(rx, n);
				i = e + 2;
				if (sz == 0) {
					if (n - i < 2)
						return;
					if (rx[i] != '\r' || rx[i + 1] != '\n')
						bad(rx, n);
					i += 2;
					break;
				}
				if (n - i < sz + 2)
					return;
				if (rx[i + sz] != '\r' ||
					rx[i + sz + 1] != '\n')
					bad(rx, n);
				i += sz + 2;
			}
		} else if (!has_cl) {
			/* close-delimited (a stream to HTTP/1.0): says so,
			 * and the body runs to the end */
			if (!close)
				bad(rx, n);
			return;
		} else {
			if (n - i < clen)
				return;
			i += clen;
		}
		if (close && i != n)
			bad(rx, n); /* bytes after a closing response */
	}
}
