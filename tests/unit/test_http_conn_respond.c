/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ewyk_http_respond()'s bound (EWYK_HTTP_RESPOND_MAX): a whole body is
 * copied into mbufs and queued whatever the send space, so a large one
 * sent to a reader that does not read would pin all of it. Beyond the
 * bound it is refused, and the body goes out as a stream, produced only
 * as TCP takes it; such a stream under a pending request ends when we
 * reset the connection ourselves. And the limits a server tells a
 * dispatcher.
 */

#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <rte_mbuf.h>
#include "ewyk_http.h"
#include "ewyk_tcp.h"
#include "http_conn_world.h"

/* The bytes /big/<n> answers with: byte i is (i * 7) % 251. */
#define BIG_MAX (1u << 20)

static char *big;
/* What the handler saw from ewyk_http_respond(). */
static int big_rc;

static int
prod_big(struct ewyk_http_conn *c, char *buf, uint32_t cap, uint64_t off,
	void *arg)
{
	RTE_SET_USED(c);
	RTE_SET_USED(arg);
	memcpy(buf, big + off, cap);
	W.produced += cap;
	return (int)cap;
}

/* /big/<n>: the whole-body API first; refused, the same bytes streamed. */
static int
h_big(struct ewyk_http_conn *c, const struct ewyk_http_request *req, void *arg)
{
	uint32_t n = (uint32_t)strtoul(req->path.p + 5, NULL, 10);

	RTE_SET_USED(arg);
	assert_true(n <= BIG_MAX);
	big_rc = ewyk_http_respond(c, 200, NULL, NULL, big, n);
	if (big_rc != -EMSGSIZE)
		return big_rc;
	return ewyk_http_respond_stream(c, 200, NULL, NULL, n, prod_big, NULL);
}

static void
big_setup(void)
{
	uint32_t i;

	big = malloc(BIG_MAX);
	assert_non_null(big);
	for (i = 0; i < BIG_MAX; i++)
		big[i] = (char)((i * 7) % 251);
	assert_int_equal(ewyk_http_route_add(W.rt, "/big/", 1,
				 EWYK_HTTP_M(EWYK_HTTP_GET),
				 EWYK_STRATEGY_INVOKE_NON_BLOCKING,
				 (void *)h_big, NULL),
		0);
}

/* Mbufs that hold @p bytes of payload, one partly filled. */
static unsigned int
mbufs_for(uint32_t bytes)
{
	uint32_t room = rte_pktmbuf_data_room_size(mp) - RTE_PKTMBUF_HEADROOM;

	return (bytes + room - 1) / room + 1;
}

/*
 * A 1 MiB body to a reader that withholds its window: its receive buffer
 * (256 KiB) fills and its window closes. The server then pins no more
 * than its send buffer's worth (256 KiB) of mbufs; before the bound the
 * whole body (512 mbufs) sat in TCP's queue. Once the reader reads, the
 * body arrives whole and exact.
 */
void
test_respond_zero_window(void **state)
{
	const uint32_t n = BIG_MAX;
	unsigned int in0, pinned;
	struct cli *cl;
	size_t off = 0;
	struct resp r;

	RTE_SET_USED(state);
	big_setup();
	cl = cli_open(0);
	in0 = rte_mempool_in_use_count(mp);
	cl->hold = true;
	cli_sends(cl, "GET /big/1048576 HTTP/1.1\r\nHost: x\r\n\r\n");
	RUN_UNTIL(false, 300);
	/* The window is shut: nothing more flows, and what the server
	 * holds is its send buffer's worth (plus a response head, a probe
	 * and mbufs of the client's own, a few). */
	assert_true(cl->nrx < n);
	pinned = rte_mempool_in_use_count(mp) - in0;
	assert_true(pinned <= mbufs_for(256u << 10) + 8);
	assert_int_equal(big_rc, -EMSGSIZE);
	RUN_UNTIL(false, 300);
	assert_true(rte_mempool_in_use_count(mp) - in0 <= pinned + 2);
	/* The reader reads: the rest flows, byte for byte. */
	cl->hold = false;
	ewyk_tcp_recvd(cl->c, (uint32_t)cl->held);
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.body_len, n);
	assert_memory_equal(r.body, big, n);
	assert_int_equal(W.produced, n);
	free(big);
	big = NULL;
}

/*
 * At the bound the body is copied whole (the caller's bytes are not
 * needed after the call); one byte over, it is refused and nothing was
 * sent: the handler streams it instead, and the client cannot tell.
 */
void
test_respond_bound(void **state)
{
	char req[96];
	struct cli *cl;
	size_t off = 0;
	struct resp r;
	uint32_t k;

	RTE_SET_USED(state);
	big_setup();
	cl = cli_open(0);
	for (k = 0; k < 2; k++) {
		uint32_t n = EWYK_HTTP_RESPOND_MAX + k;

		W.produced = 0;
		snprintf(req, sizeof(req),
			"GET /big/%" PRIu32 " HTTP/1.1\r\nHost: x\r\n\r\n", n);
		cli_sends(cl, req);
		r = wait_resp(cl, &off, false);
		assert_int_equal(r.status, 200);
		assert_int_equal(r.body_len, n);
		assert_memory_equal(r.body, big, n);
		assert_int_equal(big_rc, k == 0 ? 0 : -EMSGSIZE);
		assert_int_equal(W.produced, k == 0 ? 0 : n);
	}
	free(big);
	big = NULL;
}

/* The limits a dispatcher sizes its head copies from: the configuration
 * with the defaults filled in. */
void
test_server_limits(void **state)
{
	struct ewyk_http_server_conf hc;
	struct ewyk_http_limits lim;
	uint16_t mh = 0;

	RTE_SET_USED(state);
	assert_int_equal(ewyk_http_server_limits(W.srv, &lim, &mh), 0);
	assert_int_equal(lim.max_line, EWYK_HTTP_DEF_MAX_LINE);
	assert_int_equal(lim.max_header_bytes, EWYK_HTTP_DEF_MAX_HEADER_BYTES);
	assert_int_equal(lim.max_body, EWYK_HTTP_DEF_MAX_BODY);
	assert_int_equal(mh, EWYK_HTTP_DEF_MAX_HEADERS);
	assert_int_equal(ewyk_http_server_limits(NULL, &lim, &mh), -EINVAL);
	assert_int_equal(ewyk_http_server_limits(W.srv, NULL, &mh), -EINVAL);
	assert_int_equal(ewyk_http_server_limits(W.srv, &lim, NULL), -EINVAL);
	/* Configured ones are kept. */
	teardown(state);
	memset(&hc, 0, sizeof(hc));
	hc.lim.max_line = 1000;
	hc.lim.max_header_bytes = 30000;
	hc.lim.max_body = 5;
	setup_conf(&hc);
	assert_int_equal(ewyk_http_server_limits(W.srv, &lim, &mh), 0);
	assert_int_equal(lim.max_line, 1000);
	assert_int_equal(lim.max_header_bytes, 30000);
	assert_int_equal(lim.max_body, 5);
	assert_int_equal(mh, EWYK_HTTP_DEF_MAX_HEADERS);
}

/*
 * A pending request (a dispatched one) answered with a stream too long
 * for ewyk_http_respond(), to a reader that stops reading: the write
 * timeout resets the connection, and the request must end there (the
 * owner told, the object freed). Nobody else would end it: no TCP event
 * follows an abort of our own, and the producer waits for nothing. The
 * same after a malformed body under such a stream.
 */
void
test_pending_stream_write_timeout(void **state)
{
	struct cli *cl;

	RTE_SET_USED(state);
	cl = cli_open(0);
	cl->hold = true;
	cli_sends(cl, "GET /done/w HTTP/1.1\r\nHost: x\r\n\r\n");
	RUN_UNTIL(W.ndeferred == 1, 1000);
	assert_int_equal(W.ndeferred, 1);
	assert_int_equal(ewyk_http_respond_stream(W.deferred[0], 200, NULL,
				 NULL, 1u << 24, prod_bytes, NULL),
		0);
	assert_int_equal(W.ndone, 0);
	/* past the write timeout (1 s) */
	RUN_UNTIL(W.ndone == 1, 3000);
	assert_int_equal(ctr(EWYK_HTTP_C_TIMEOUT_WRITE), 1);
	assert_int_equal(W.ndone, 1);
	assert_int_equal(W.done_aborted, 1);
	assert_int_equal(ewyk_http_server_conns(W.srv), 0);
	/* A malformed body under the stream resets the connection. */
	cl = cli_open(1);
	cl->hold = true;
	cli_sends(cl,
		"GET /done/b HTTP/1.1\r\nHost: x\r\n"
		"Transfer-Encoding: chunked\r\n\r\n");
	RUN_UNTIL(W.ndeferred == 2, 1000);
	assert_int_equal(W.ndeferred, 2);
	assert_int_equal(ewyk_http_respond_stream(W.deferred[1], 200, NULL,
				 NULL, 1u << 24, prod_bytes, NULL),
		0);
	RUN_UNTIL(false, 20);
	assert_int_equal(W.ndone, 1);
	cli_sends(cl, "zz\r\n");
	RUN_UNTIL(W.ndone == 2, 500);
	assert_int_equal(ctr(EWYK_HTTP_C_PARSE_ERR_BODY), 1);
	assert_int_equal(W.ndone, 2);
	assert_int_equal(W.done_aborted, 1);
	assert_int_equal(ewyk_http_server_conns(W.srv), 0);
}

/* The Content-Type of /ct/<n>, a buffer the test rewrites in place
 * between requests (the same pointer, other bytes). */
static char ct_buf[32];

static int
h_ct(struct ewyk_http_conn *c, const struct ewyk_http_request *req, void *arg)
{
	uint32_t n = (uint32_t)strtoul(req->path.p + 4, NULL, 10);

	RTE_SET_USED(arg);
	return ewyk_http_respond(c, n < 100 ? 200 : (uint16_t)n, ct_buf, NULL,
		"abcdefgh", n < 100 ? n : 1);
}

/*
 * Heads that say the same are copied from the last one built (one per
 * server); any difference, the Content-Type's bytes behind the same
 * pointer included, builds a new one.
 */
void
test_respond_head_cache(void **state)
{
	static const struct {
		const char *ct, *path, *want;
		int status;
	} steps[] = {
		{ "text/a", "/ct/3", "Content-Length: 3\r\n", 200 },
		{ "text/a", "/ct/3", "Content-Length: 3\r\n", 200 },
		{ "text/b", "/ct/3", "Content-Length: 3\r\n", 200 },
		{ "text/b", "/ct/4", "Content-Length: 4\r\n", 200 },
		{ "text/b", "/ct/404", "Content-Length: 1\r\n", 404 },
		{ "text/b", "/ct/4", "Content-Length: 4\r\n", 200 },
		{ "text/a", "/ct/4", "Content-Length: 4\r\n", 200 },
	};
	struct cli *cl;
	size_t off = 0;
	unsigned int i;
	char req[64], ct[64];

	RTE_SET_USED(state);
	assert_int_equal(ewyk_http_route_add(W.rt, "/ct/", 1,
				 EWYK_HTTP_M(EWYK_HTTP_GET),
				 EWYK_STRATEGY_INVOKE_NON_BLOCKING,
				 (void *)h_ct, NULL),
		0);
	cl = cli_open(0);
	for (i = 0; i < RTE_DIM(steps); i++) {
		struct resp r;

		snprintf(ct_buf, sizeof(ct_buf), "%s", steps[i].ct);
		snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: x\r\n\r\n",
			steps[i].path);
		cli_sends(cl, req);
		r = wait_resp(cl, &off, false);
		assert_int_equal(r.status, steps[i].status);
		assert_true(head_has(&r, steps[i].want));
		snprintf(ct, sizeof(ct), "Content-Type: %s\r\n", steps[i].ct);
		assert_true(head_has(&r, ct));
	}
}

/*
 * Requests that arrive in one segment are answered in one: TCP sends what
 * the handlers queued during input when input ends, with the ACK, instead
 * of a segment per response.
 */
void
test_pipelined_one_segment(void **state)
{
	struct cli *cl = cli_open(0);
	uint64_t before;
	size_t off = 0;
	unsigned int i;

	RTE_SET_USED(state);
	/* a first request and its answer: the connection is settled */
	cli_sends(cl, "GET /n/0 HTTP/1.1\r\nHost: x\r\n\r\n");
	assert_int_equal(wait_resp(cl, &off, false).status, 200);
	RUN_UNTIL(false, 300); /* delayed ACKs out of the way */
	before = ewyk_tcp_counter_get(W.wire.t[0], EWYK_TCP_SEG_OUT);
	cli_sends(cl,
		"GET /n/1 HTTP/1.1\r\nHost: x\r\n\r\n"
		"GET /n/2 HTTP/1.1\r\nHost: x\r\n\r\n"
		"GET /n/3 HTTP/1.1\r\nHost: x\r\n\r\n"
		"GET /n/4 HTTP/1.1\r\nHost: x\r\n\r\n");
	for (i = 1; i <= 4; i++) {
		struct resp r = wait_resp(cl, &off, false);
		char want[8];

		assert_int_equal(r.status, 200);
		snprintf(want, sizeof(want), "/n/%u", i);
		assert_memory_equal(r.body, want, strlen(want));
	}
	assert_int_equal(ewyk_tcp_counter_get(W.wire.t[0], EWYK_TCP_SEG_OUT) -
			before,
		1);
}
