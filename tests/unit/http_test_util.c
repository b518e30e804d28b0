/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lib/http unit tests' shared fixtures (http_test_util.h).
 */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <rte_mbuf.h>

#include "http_test_util.h"

const struct ewyk_http_limits lim = {
	.max_line = 256,
	.max_header_bytes = 1024,
	.max_body = 4096,
};

struct rte_mempool *mp;

struct rte_mbuf *
chain_of(const char *s, size_t n, unsigned int maxseg)
{
	struct rte_mbuf *head = NULL, *m;
	size_t off = 0;
	unsigned int sz = 1;

	while (off < n) {
		size_t k = sz < n - off ? sz : n - off;

		m = rte_pktmbuf_alloc(mp);
		assert_non_null(m);
		memcpy(rte_pktmbuf_append(m, (uint16_t)k), s + off, k);
		if (head == NULL)
			head = m;
		else
			assert_int_equal(rte_pktmbuf_chain(head, m), 0);
		off += k;
		sz = sz % maxseg + 1;
	}
	return head;
}
