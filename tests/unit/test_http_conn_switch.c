/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/http's protocol switch (ewyk_http_server_conf.h2c): the HTTP/2
 * preface on a connection's first bytes, and Upgrade: h2c, hand the
 * connection over with what it received; a refusal leaves it HTTP/1.1.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>

#include <ewyk_tcp.h>

#include "http_conn_world.h"

#define PREFACE "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

static struct {
	unsigned int calls;
	int upgrade, take;
	uint32_t rx_off, rx_len;
	char first[32], path[32];
} SW;

/* The new owner: records what it got and, when it takes it, lets the
 * connection go as a real one would on an error (its buffers back). */
static int
sw_hook(void *arg, struct ewyk_tcp_conn *tc, struct rte_mbuf *rx,
	uint32_t rx_off, const struct ewyk_http_request *up)
{
	uint32_t n;

	RTE_SET_USED(arg);
	SW.calls++;
	SW.upgrade = up != NULL;
	SW.rx_off = rx_off;
	SW.rx_len = rx != NULL ? rx->pkt_len : 0;
	if (rx != NULL) {
		n = RTE_MIN(rx->pkt_len - rx_off,
			(uint32_t)sizeof(SW.first) - 1);
		memcpy(SW.first, rte_pktmbuf_read(rx, rx_off, n, SW.first), n);
		SW.first[n] = '\0';
	}
	if (up != NULL) {
		n = RTE_MIN(up->path.len, (uint32_t)sizeof(SW.path) - 1);
		memcpy(SW.path, up->path.p, n);
		SW.path[n] = '\0';
	}
	if (!SW.take)
		return -ENOTSUP;
	if (rx != NULL) {
		ewyk_tcp_recv_release(tc, rx->nb_segs);
		rte_pktmbuf_free(rx);
	}
	ewyk_tcp_abort(tc);
	return 0;
}

int
setup_switch(void **state)
{
	struct ewyk_http_server_conf hc;

	RTE_SET_USED(state);
	memset(&SW, 0, sizeof(SW));
	SW.take = 1;
	memset(&hc, 0, sizeof(hc));
	hc.header_timeout_ms = 1000;
	hc.idle_timeout_ms = 2000;
	hc.h2c = sw_hook;
	setup_conf(&hc);
	return 0;
}

/* The preface, in two segments, and what follows it: handed over. */
void
test_switch_preface(void **state)
{
	struct cli *cl;

	RTE_SET_USED(state);
	cl = cli_open(0);
	cli_sends(cl, "PRI * HTTP/2.0\r\n");
	RUN_UNTIL(false, 5);
	assert_int_equal(SW.calls, 0); /* a prefix: wait */
	cli_sends(cl, "\r\nSM\r\n\r\nxyz");
	RUN_UNTIL(SW.calls > 0, 100);
	assert_int_equal(SW.calls, 1);
	assert_int_equal(SW.upgrade, 0);
	assert_int_equal(SW.rx_off, 0);
	assert_int_equal(SW.rx_len, 24 + 3);
	assert_memory_equal(SW.first, PREFACE, 24);
	RUN_UNTIL(cl->closed, 100);
	assert_true(cl->closed);
	assert_int_equal(ewyk_http_server_conns(W.srv), 0);
}

/* Refused by the hook: HTTP/1.1 answers the preface (501: PRI is no
 * method it knows). */
void
test_switch_refused(void **state)
{
	struct cli *cl;
	size_t off = 0;
	struct resp r;

	RTE_SET_USED(state);
	SW.take = 0;
	cl = cli_open(0);
	cli_sends(cl, PREFACE);
	r = wait_resp(cl, &off, false);
	assert_int_equal(SW.calls, 1);
	assert_int_equal(r.status, 501);
}

/* Upgrade: h2c with HTTP2-Settings: handed over with the request; the
 * head is counted consumed, what follows it is the new owner's. */
void
test_switch_upgrade(void **state)
{
#define HEAD                                                           \
	"GET /up?x=1 HTTP/1.1\r\nHost: x\r\n"                          \
	"Connection: Upgrade, HTTP2-Settings\r\nUpgrade: foo, h2c\r\n" \
	"HTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n\r\n"
	static const char head[] = HEAD;
	struct cli *cl;

	RTE_SET_USED(state);
	cl = cli_open(0);
	cli_sends(cl, HEAD PREFACE); /* one segment */
	RUN_UNTIL(SW.calls > 0, 100);
	assert_int_equal(SW.calls, 1);
	assert_int_equal(SW.upgrade, 1);
	assert_string_equal(SW.path, "/up");
	assert_int_equal(SW.rx_off, sizeof(head) - 1);
	assert_memory_equal(SW.first, PREFACE, 24);
	RUN_UNTIL(cl->closed, 100);
	assert_int_equal(ewyk_http_server_conns(W.srv), 0);
}

/* Not switched: an upgrade with a body, one without HTTP2-Settings, and
 * the preface after a first HTTP/1.1 request. */
void
test_switch_not_taken(void **state)
{
	struct cli *cl;
	size_t off = 0;
	struct resp r;

	RTE_SET_USED(state);
	cl = cli_open(0);
	cli_sends(cl,
		"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\n"
		"HTTP2-Settings: AAMAAABk\r\nContent-Length: 2\r\n\r\nab");
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 200);
	cli_sends(cl, "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\n\r\n");
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 200);
	cli_sends(cl, PREFACE);
	r = wait_resp(cl, &off, false);
	assert_int_equal(r.status, 501);
	assert_int_equal(SW.calls, 0);
}
