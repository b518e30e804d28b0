/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The connection layer against a hostile client: what one client can make
 * the server hold (objects, buffers, time) and for how long. Each case is
 * a hole an adversarial review showed end to end:
 *  - a pending request whose client resets (or half-closes) mid-upload
 *    frees its object whatever the handler does;
 *  - a head sent a byte a segment pins a few buffers, and costs the same
 *    per byte at its end as at its start;
 *  - bytes behind a pending response pin buffers in proportion to bytes;
 *  - a body has a minimum rate;
 *  - after the client's FIN, complete requests it sent are answered.
 */

#include <errno.h>
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

/* A client slot opened again (its receive buffer freed first). */
static struct cli *
cli_reopen(unsigned int i)
{
	struct cli *cl = &W.cli[i];

	free(cl->rx);
	memset(cl, 0, sizeof(*cl));
	return cli_open(i);
}

static uint64_t
tcp_ctr(enum ewyk_tcp_counter k)
{
	return ewyk_tcp_counter_get(W.wire.t[0], k);
}

/*
 * POST /hold reads its body and answers when a task it started ends (as
 * ewyk-httpd's /sha256): its done callback frees its own state and never
 * responds. 40 clients reset mid-upload, 40 half-close mid-upload: every
 * object is back, each counted orphaned, each owner told once.
 */
void
test_orphan_mid_upload(void **state)
{
	static const char head[] = "POST /hold HTTP/1.1\r\nHost: x\r\n"
				   "Content-Length: 100000\r\n\r\n";
	static char part[1000];
	uint64_t orphaned = ctr(EWYK_HTTP_C_CONN_ORPHANED);
	unsigned int i;

	RTE_SET_USED(state);
	memset(part, 'p', sizeof(part));
	for (i = 0; i < 80; i++) {
		struct cli *cl = cli_reopen(i % MAXCLI);

		cli_sends(cl, head);
		cli_send(cl, part, sizeof(part));
		RUN_UNTIL(W.nhold == i + 1, 1000);
		assert_int_equal(W.nhold, i + 1);
		if (i < 40) {
			ewyk_tcp_abort(cl->c); /* RST */
			cl->c = NULL;
		} else {
			ewyk_tcp_close(cl->c); /* FIN inside the body */
		}
		RUN_UNTIL(ewyk_http_server_conns(W.srv) == 0, 1000);
		assert_int_equal(ewyk_http_server_conns(W.srv), 0);
		assert_int_equal(W.ndone, i + 1);
		assert_int_equal(W.done_aborted, 1);
	}
	assert_int_equal(ctr(EWYK_HTTP_C_CONN_ORPHANED), orphaned + 80);
}

/* A head of over 11,000 bytes: 62 lines of 180 bytes. */
static size_t
big_head(char *buf, size_t cap)
{
	size_t n = 0;
	int i;

	n += (size_t)snprintf(buf + n, cap - n,
		"GET / HTTP/1.1\r\nHost: x\r\n");
	for (i = 0; i < 62; i++) {
		n += (size_t)snprintf(buf + n, cap - n, "X-F%02d: ", i);
		memset(buf + n, 'a' + i % 26, 170);
		n += 170;
		n += (size_t)snprintf(buf + n, cap - n, "\r\n");
	}
	n += (size_t)snprintf(buf + n, cap - n, "\r\n");
	return n;
}

/* Send s[0, n) one byte a segment. */
static void
send_bytes(struct cli *cl, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		cli_send(cl, s + i, 1);
}

/*
 * A head of 11,000 bytes, one byte a segment: small segments are copied
 * together (the chain pins a handful of buffers, not one per segment),
 * and the request is answered.
 */
void
test_head_byte_segments(void **state)
{
	static char head[12000];
	struct cli *cl = cli_open(0);
	size_t n = big_head(head, sizeof(head)), off = 0;
	uint64_t coalesced = tcp_ctr(EWYK_TCP_RECV_COALESCED);
	unsigned int in0;
	struct resp r;

	RTE_SET_USED(state);
	assert_true(n > 11000);
	ewyk_tcp_set_nodelay(cl->c, true);
	RUN_UNTIL(false, 10);
	in0 = rte_mempool_in_use_count(mp);
	send_bytes(cl, head, n / 2);
	RUN_UNTIL(false, 10);
	assert_true(rte_mempool_in_use_count(mp) - in0 < 16);
	send_bytes(cl, head + n / 2, n - n / 2 - 1);
	RUN_UNTIL(false, 10);
	assert_true(rte_mempool_in_use_count(mp) - in0 < 16);
	assert_int_equal(cl->nrx, 0);
	send_bytes(cl, head + n - 1, 1);
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 200);
	/* nearly every segment was copied into the one before */
	assert_true(tcp_ctr(EWYK_TCP_RECV_COALESCED) - coalesced > n - 100);
}

/*
 * Behind a pending request nothing is parsed: the next request's bytes,
 * a byte a segment, wait in the chain, which pins buffers in proportion
 * to bytes. Once the first is answered, the second is.
 */
void
test_pending_byte_segments(void **state)
{
	static char head[12000];
	struct cli *cl = cli_open(0);
	size_t n = big_head(head, sizeof(head)), off = 0;
	unsigned int in0;
	struct resp r;

	RTE_SET_USED(state);
	ewyk_tcp_set_nodelay(cl->c, true);
	cli_sends(cl, "GET /defer/p HTTP/1.1\r\nHost: x\r\n\r\n");
	RUN_UNTIL(W.ndeferred == 1, 1000);
	assert_int_equal(W.ndeferred, 1);
	in0 = rte_mempool_in_use_count(mp);
	send_bytes(cl, head, n);
	RUN_UNTIL(false, 10);
	assert_true(rte_mempool_in_use_count(mp) - in0 < 16);
	assert_int_equal(ewyk_http_respond(W.deferred[0], 200, NULL, NULL, "P",
				 1),
		0);
	r = wait_resp(cl, &off, false);
	assert_memory_equal(r.body, "P", 1);
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 200);
	assert_memory_equal(r.body, "hello world\n", 12);
}

/* body_timeout 1 s, body_min_rate 100 bytes a second. */
int
setup_rate(void **state)
{
	struct ewyk_http_server_conf hc;

	RTE_SET_USED(state);
	memset(&hc, 0, sizeof(hc));
	hc.header_timeout_ms = 1000;
	hc.body_timeout_ms = 1000;
	hc.body_min_rate = 100;
	hc.idle_timeout_ms = 2000;
	hc.write_timeout_ms = 1000;
	setup_conf(&hc);
	return 0;
}

/*
 * A body trickled a byte every 300 ms never waits body_timeout between
 * two bytes, but falls behind its rate: 1 s + 10 ms a byte runs out after
 * about four bytes, and the request ends with 408 (counted). A body at
 * 50 bytes every 300 ms (~167 B/s) keeps ahead and is read whole.
 */
void
test_body_min_rate(void **state)
{
	static const char head[] = "POST /upload HTTP/1.1\r\nHost: x\r\n"
				   "Content-Length: 100\r\n\r\n";
	struct cli *cl = cli_open(0);
	uint64_t start, rate0 = ctr(EWYK_HTTP_C_TIMEOUT_BODY_RATE);
	size_t off = 0;
	struct resp r;
	char fifty[50];
	int i;

	RTE_SET_USED(state);
	cli_sends(cl, head);
	start = W.wire.now_us;
	for (i = 0; i < 30 && cl->nrx == 0; i++) {
		cli_send(cl, "b", 1);
		RUN_UNTIL(cl->nrx > 0, 300);
	}
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 408);
	assert_true(W.wire.now_us - start < 1500000);
	assert_int_equal(ctr(EWYK_HTTP_C_TIMEOUT_BODY_RATE), rate0 + 1);

	cl = cli_open(1);
	off = 0;
	W.body_bytes = 0;
	memset(fifty, 'f', sizeof(fifty));
	cli_sends(cl, head);
	cli_send(cl, fifty, sizeof(fifty));
	RUN_UNTIL(false, 300);
	cli_send(cl, fifty, sizeof(fifty));
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 200);
	assert_int_equal(W.body_bytes, 100);
	assert_int_equal(ctr(EWYK_HTTP_C_TIMEOUT_BODY_RATE), rate0 + 1);
}

/*
 * Two pipelined requests, the first answered with a streamed body, then
 * the client's FIN: both are answered, the last says close, and the
 * server closes after it.
 */
void
test_fin_after_pipelined(void **state)
{
	struct cli *cl = cli_open(0);
	size_t off = 0;
	struct resp r;

	RTE_SET_USED(state);
	cli_sends(cl,
		"GET /bytes/300000 HTTP/1.1\r\nHost: x\r\n\r\n"
		"GET /n/second HTTP/1.1\r\nHost: x\r\n\r\n");
	assert_int_equal(ewyk_tcp_shutdown(cl->c), 0);
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.body_len, 300000);
	assert_false(head_has(&r, "Connection: close"));
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 200);
	assert_memory_equal(r.body, "/n/second", 9);
	assert_true(head_has(&r, "Connection: close"));
	RUN_UNTIL(cl->eof, 1000);
	assert_true(cl->eof);
}
