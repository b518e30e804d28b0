/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What connections hold of their shard (lib/http/http_slots.c): head
 * leases taken at a head's first byte and given back when the connection
 * is idle or gone, whatever ends the request; each source's share of
 * objects and leases; the oldest idle keep-alive connection closed for a
 * new one; per-source quotas. Every case ends with nothing held
 * (slots_teardown).
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rte_mbuf.h>

#include "ewyk_http.h"
#include "ewyk_tcp.h"
#include "http_conn_world.h"
#include "http_private.h"
#include "test_common.h"

/* A second source; with the key below it is not in CIP's bucket. */
#define CIP2 RTE_BE32(RTE_IPV4(10, 0, 0, 3))
#define SECRET UINT64_C(0x736c6f7473)

static const char GET[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";

static struct ewyk_http_slots_info
slots(void)
{
	struct ewyk_http_slots_info i;

	assert_int_equal(ewyk_http_server_slots(W.srv, &i), 0);
	return i;
}

static int
slots_setup_with(uint32_t conns, uint32_t per_src, uint32_t heads,
	uint32_t heads_per_src)
{
	struct ewyk_http_server_conf hc;

	memset(&hc, 0, sizeof(hc));
	hc.header_timeout_ms = 1000;
	hc.body_timeout_ms = 1000;
	hc.idle_timeout_ms = 2000;
	hc.write_timeout_ms = 1000;
	hc.max_conns = conns;
	hc.max_conns_per_src = per_src;
	hc.max_heads = heads;
	hc.max_heads_per_src = heads_per_src;
	hc.secret = SECRET;
	setup_conf(&hc);
	return 0;
}

static int
slots_setup(void **state)
{
	RTE_SET_USED(state);
	return slots_setup_with(64, 0, 0, 0);
}

/* Every client gone: no object, no lease, nobody idle. */
static int
slots_teardown(void **state)
{
	struct ewyk_http_slots_info i;
	unsigned int k;

	for (k = 0; k < MAXCLI; k++)
		if (W.cli[k].c != NULL)
			ewyk_tcp_close(W.cli[k].c);
	RUN_UNTIL(ewyk_http_server_conns(W.srv) == 0, 3000);
	i = slots();
	assert_int_equal(i.conns, 0);
	assert_int_equal(i.leases, 0);
	assert_int_equal(i.idle, 0);
	return teardown(state);
}

/* Send @p s and wait for one response: its status. */
static int
request(struct cli *cl, size_t *off, const char *s)
{
	cli_sends(cl, s);
	return wait_resp(cl, off, false).status;
}

/* Taken at the head's first byte (a head across two segments keeps it),
 * given back once the response is out and the connection idle; taken
 * again by the next request. */
static void
test_lease_idle(void **state)
{
	struct cli *cl = cli_open(0);
	size_t off = 0;

	RTE_SET_USED(state);
	RUN_UNTIL(false, 10);
	assert_int_equal(slots().conns, 1);
	assert_int_equal(slots().leases, 0); /* connected, nothing sent */
	cli_sends(cl, "GET / HT");
	RUN_UNTIL(false, 10);
	assert_int_equal(slots().leases, 1);
	cli_sends(cl, "TP/1.1\r\nHost: x\r\n\r\n");
	assert_int_equal(wait_resp(cl, &off, false).status, 200);
	RUN_UNTIL(false, 10);
	assert_int_equal(slots().leases, 0);
	assert_int_equal(slots().idle, 1);
	assert_int_equal(request(cl, &off, GET), 200);
	RUN_UNTIL(false, 10);
	assert_int_equal(slots().leases, 0);
	assert_int_equal(slots().idle, 1);
	/* An idle connection holds its object only. */
	print_message("connection object %zu bytes, head lease %zu bytes\n",
		slots().conn_bytes, slots().lease_bytes);
	assert_true(slots().conn_bytes <= 512);
}

/* Pipelined heads: one lease, given back after the last. */
static void
test_lease_pipelined(void **state)
{
	struct cli *cl = cli_open(0);
	size_t off = 0;
	int k;

	RTE_SET_USED(state);
	cli_sends(cl,
		"GET /n/1 HTTP/1.1\r\nHost: x\r\n\r\n"
		"GET /n/2 HTTP/1.1\r\nHost: x\r\n\r\n"
		"GET /n/3 HTTP/1.1\r\nHost: x\r\n\r\n");
	for (k = 0; k < 3; k++)
		assert_int_equal(wait_resp(cl, &off, false).status, 200);
	RUN_UNTIL(false, 10);
	assert_int_equal(slots().leases, 0);
	assert_int_equal(slots().idle, 1);
}

/* A malformed head (400), a reset in the middle of a head, a header
 * timeout (408), an idle timeout: nothing left held. */
static void
test_lease_error_reset_timeout(void **state)
{
	struct cli *a = cli_open(0), *b = cli_open(1), *c = cli_open(2);
	size_t off = 0;

	RTE_SET_USED(state);
	assert_int_equal(request(a, &off, "GET / HTTP/1.1\r\nHost x\r\n\r\n"),
		400);
	cli_sends(b, "GET / HTTP/1.1\r\nHo");
	cli_sends(c, "GET / HTTP/1.1\r\nHo");
	RUN_UNTIL(false, 10);
	assert_int_equal(slots().leases, 2);
	ewyk_tcp_abort(b->c);
	b->c = NULL;
	RUN_UNTIL(false, 10);
	assert_int_equal(slots().leases, 1);
	RUN_UNTIL(c->eof || c->closed, 2000);
	assert_int_equal(ctr(EWYK_HTTP_C_TIMEOUT_HEADER), 1);
	RUN_UNTIL(ewyk_http_server_conns(W.srv) == 0, 1000);
	assert_int_equal(slots().leases, 0);
	/* idle timeout */
	a = cli_open(3);
	off = 0;
	assert_int_equal(request(a, &off, GET), 200);
	RUN_UNTIL(a->eof, 3000);
	assert_int_equal(ctr(EWYK_HTTP_C_TIMEOUT_IDLE), 1);
	RUN_UNTIL(ewyk_http_server_conns(W.srv) == 0, 1000);
	assert_int_equal(slots().leases, 0);
	assert_int_equal(slots().idle, 0);
}

/*
 * One lease, passed on: a head abandoned mid-line (the lease's parser
 * left in the middle of a field), then a request with a body (the lease
 * held until the body is read and answered), each time by another
 * connection; every holder parses from a clean parser.
 */
static void
test_lease_passed_on(void **state)
{
	struct cli *a, *b, *c;
	size_t off = 0;

	teardown(state);
	slots_setup_with(8, 8, 1, 1);
	a = cli_open(0);
	cli_sends(a, "GET /nope HTTP/1.1\r\nHost: x\r\nX-Lo");
	RUN_UNTIL(false, 10);
	assert_int_equal(slots().leases, 1);
	ewyk_tcp_close(a->c);
	a->c = NULL;
	RUN_UNTIL(slots().leases == 0, 100);
	assert_int_equal(slots().leases, 0);
	b = cli_open(1);
	cli_sends(b,
		"POST /upload HTTP/1.1\r\nHost: x\r\n"
		"Content-Length: 10\r\n\r\n01234");
	RUN_UNTIL(false, 10);
	assert_int_equal(slots().leases, 1); /* body under way */
	cli_sends(b, "56789");
	assert_int_equal(wait_resp(b, &off, false).status, 200);
	RUN_UNTIL(false, 10);
	assert_int_equal(slots().leases, 0);
	assert_int_equal(slots().idle, 1);
	c = cli_open(2);
	off = 0;
	assert_int_equal(request(c, &off, GET), 200);
	assert_int_equal(ctr(EWYK_HTTP_C_HEAD_REFUSED), 0);
}

/*
 * Idle keep-alive connections hold their TCP state and a small HTTP
 * object only: at most a kilobyte each, counted from the TCP pool's and
 * table's and the HTTP server's own figures.
 */
static void
test_idle_memory(void **state)
{
	struct ewyk_http_slots_info i;
	struct ewyk_tcp_mem_info t;
	unsigned int k;

	RTE_SET_USED(state);
	for (k = 0; k < MAXCLI; k++) {
		size_t off = 0;

		assert_int_equal(request(cli_open(k), &off, GET), 200);
	}
	RUN_UNTIL(false, 10);
	i = slots();
	assert_int_equal(i.idle, MAXCLI);
	assert_int_equal(i.leases, 0);
	assert_int_equal(i.lease_failures, 0);
	assert_int_equal(ewyk_tcp_mem(W.wire.t[0], &t), 0);
	assert_int_equal(t.max_conns, 64);
	assert_true(t.pool_bytes >= 64 * (uint64_t)512);
	assert_true(t.conn_bytes * (uint64_t)t.max_conns >=
		t.pool_bytes + t.table_bytes);
	assert_true(i.conn_mem_bytes >= i.conn_bytes);
	print_message("per idle connection: TCP %u + HTTP %zu = %zu bytes; "
		      "leases %" PRIu64 " bytes in all\n",
		t.conn_bytes, i.conn_mem_bytes, t.conn_bytes + i.conn_mem_bytes,
		i.lease_mem_bytes);
	assert_true(t.conn_bytes + i.conn_mem_bytes <= 1024);
	assert_int_equal(i.lease_mem_bytes,
		64 * (uint64_t)(i.lease_bytes + sizeof(uint32_t)));
	assert_int_equal(ewyk_tcp_mem(NULL, &t), -EINVAL);
}

/* A pending request keeps its lease until answered. */
static void
test_lease_pending(void **state)
{
	struct cli *cl = cli_open(0);
	size_t off = 0;

	RTE_SET_USED(state);
	cli_sends(cl, "GET /defer/a HTTP/1.1\r\nHost: x\r\n\r\n");
	RUN_UNTIL(W.ndeferred == 1, 100);
	assert_int_equal(slots().leases, 1);
	assert_int_equal(slots().idle, 0);
	assert_int_equal(ewyk_http_respond(W.deferred[0], 200, NULL, NULL, "ok",
				 2),
		0);
	assert_int_equal(wait_resp(cl, &off, false).status, 200);
	RUN_UNTIL(false, 10);
	assert_int_equal(slots().leases, 0);
	assert_int_equal(slots().idle, 1);
}

/* No lease free: 503 and close, counted; served again once one is. */
static void
test_lease_exhausted(void **state)
{
	struct cli *a, *b;
	size_t off = 0;
	struct resp r;

	teardown(state);
	slots_setup_with(8, 8, 1, 1);
	a = cli_open(0);
	b = cli_open(1);
	cli_sends(a, "GET / HTTP/1.1\r\nHo");
	RUN_UNTIL(false, 10);
	cli_sends(b, GET);
	r = wait_resp(b, &off, false);
	assert_int_equal(r.status, 503);
	assert_true(head_has(&r, "Connection: close"));
	RUN_UNTIL(b->eof, 100);
	assert_true(b->eof);
	assert_int_equal(ctr(EWYK_HTTP_C_HEAD_REFUSED), 1);
	assert_int_equal(slots().lease_failures, 1);
	cli_sends(a, "st: x\r\n\r\n");
	off = 0;
	assert_int_equal(wait_resp(a, &off, false).status, 200);
	assert_int_equal(request(a, &off, GET), 200);
}

/* A source holding its share of leases gets 503; another is served. */
static void
test_lease_per_src(void **state)
{
	struct cli *a, *b, *c;
	size_t off = 0;

	teardown(state);
	slots_setup_with(64, 0, 8, 2);
	a = cli_open(0);
	b = cli_open(1);
	c = cli_open(2);
	cli_sends(a, "GET / HTTP/1.1\r\nHo");
	cli_sends(b, "GET / HTTP/1.1\r\nHo");
	RUN_UNTIL(false, 10);
	assert_int_equal(request(c, &off, GET), 503);
	assert_int_equal(ctr(EWYK_HTTP_C_HEAD_SRC_REFUSED), 1);
	c = cli_open_from(3, CIP2);
	off = 0;
	assert_int_equal(request(c, &off, GET), 200);
	assert_int_equal(slots().leases, 2);
}

/* One source takes its share of the objects, then is refused (RST);
 * another source is still served. */
static void
test_conn_per_src(void **state)
{
	struct cli *cl;
	size_t off = 0;
	unsigned int i;

	RTE_SET_USED(state);
	assert_int_equal(slots().max_conns_per_src, 16); /* 64 / 4 */
	teardown(state);
	slots_setup_with(8, 0, 0, 0); /* a share of 2 */
	for (i = 0; i < 2; i++) {
		cl = cli_open(i);
		assert_int_equal(request(cl, &off, GET), 200);
		off = 0;
	}
	cl = cli_open(2);
	cli_sends(cl, GET);
	RUN_UNTIL(cl->closed, 1000);
	assert_true(cl->closed);
	assert_int_equal(cl->nrx, 0);
	assert_int_equal(ctr(EWYK_HTTP_C_CONN_SRC_REFUSED), 1);
	assert_int_equal(ctr(EWYK_HTTP_C_IDLE_RECLAIMED), 0);
	cl = cli_open_from(3, CIP2);
	assert_int_equal(request(cl, &off, GET), 200);
	assert_int_equal(slots().conns, 3);
}

/*
 * An IPv6 peer is counted by its /64: with a share of 2, two addresses of
 * one /64 fill it between them (a third address of that /64 is refused,
 * although it holds nothing), and an address of another /64 is not.
 */
static void
test_conn_per_net64(void **state)
{
	uint8_t a[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, [15] = 0xa };
	struct cli *cl;
	size_t off = 0;
	unsigned int i;

	teardown(state);
	slots_setup_with(8, 0, 0, 0); /* a share of 2 */
	for (i = 0; i < 2; i++) {
		a[15] = (uint8_t)(0xa + i); /* ...:1::a, ...:1::b */
		cl = cli_open6_from(i, a);
		assert_true(cl->connected);
		assert_int_equal(request(cl, &off, GET), 200);
		off = 0;
	}
	a[15] = 0xc;
	cl = cli_open6_from(2, a);
	cli_sends(cl, GET);
	RUN_UNTIL(cl->closed, 1000);
	assert_true(cl->closed);
	assert_int_equal(cl->nrx, 0);
	assert_int_equal(ctr(EWYK_HTTP_C_CONN_SRC_REFUSED), 1);
	a[7] = 2; /* 2001:db8:0:2::c: another /64 */
	cl = cli_open6_from(3, a);
	assert_int_equal(request(cl, &off, GET), 200);
	assert_int_equal(slots().conns, 3);
}

/* No object free: the oldest idle keep-alive connection is closed (FIN)
 * for the new one; busy connections are not; with none idle, RST. */
static void
test_lru_reclaim(void **state)
{
	struct cli *cl[MAXCLI];
	size_t off[MAXCLI] = { 0 };
	unsigned int i;

	teardown(state);
	slots_setup_with(3, 8, 3, 3); /* one address: no share in the way */
	for (i = 0; i < 3; i++) {
		cl[i] = cli_open(i);
		assert_int_equal(request(cl[i], &off[i], GET), 200);
	}
	/* cl[1] is used again: the oldest idle are cl[0], then cl[2] */
	assert_int_equal(request(cl[1], &off[1], GET), 200);
	RUN_UNTIL(false, 10);
	assert_int_equal(slots().idle, 3);
	cl[3] = cli_open(3);
	assert_int_equal(request(cl[3], &off[3], GET), 200);
	assert_true(cl[0]->eof);
	assert_false(cl[2]->eof);
	assert_int_equal(ctr(EWYK_HTTP_C_IDLE_RECLAIMED), 1);
	cl[4] = cli_open(4);
	assert_int_equal(request(cl[4], &off[4], GET), 200);
	assert_true(cl[2]->eof);
	assert_false(cl[1]->eof);
	assert_int_equal(ctr(EWYK_HTTP_C_IDLE_RECLAIMED), 2);
	/* cl[1] is still served */
	assert_int_equal(request(cl[1], &off[1], GET), 200);
	/* every object busy (heads under way): the next is refused */
	for (i = 1; i < 5; i++)
		if (i != 2)
			cli_sends(cl[i], "GET / HTTP/1.1\r\nHo");
	RUN_UNTIL(false, 10);
	assert_int_equal(slots().idle, 0);
	cl[5] = cli_open(5);
	cli_sends(cl[5], GET);
	RUN_UNTIL(cl[5]->closed, 1000);
	assert_true(cl[5]->closed);
	assert_int_equal(ctr(EWYK_HTTP_C_CONN_REFUSED), 1);
	assert_int_equal(ctr(EWYK_HTTP_C_IDLE_RECLAIMED), 2);
	for (i = 0; i < 6; i++) {
		if (cl[i]->c != NULL)
			ewyk_tcp_abort(cl[i]->c);
		cl[i]->c = NULL;
	}
}

/*
 * A share of every object is no per-address limit. With one object
 * there is one bucket, so any two addresses share it: the second is
 * served by reclaiming the first's idle connection, not refused for the
 * bucket it shares (with more buckets, as likely as one in their
 * number).
 */
static void
test_whole_share_no_limit(void **state)
{
	struct cli *a, *b;
	size_t off = 0;

	teardown(state);
	slots_setup_with(1, 1, 1, 1);
	a = cli_open(0);
	assert_int_equal(request(a, &off, GET), 200);
	RUN_UNTIL(false, 10);
	assert_int_equal(slots().idle, 1);
	b = cli_open_from(1, CIP2);
	off = 0;
	assert_int_equal(request(b, &off, GET), 200);
	assert_true(a->eof);
	assert_int_equal(ctr(EWYK_HTTP_C_CONN_SRC_REFUSED), 0);
	assert_int_equal(ctr(EWYK_HTTP_C_HEAD_SRC_REFUSED), 0);
	assert_int_equal(ctr(EWYK_HTTP_C_IDLE_RECLAIMED), 1);
}

/* Add @p k to every bucket's count of objects (a stand-in for k
 * connections in each, without making them). */
static void
src_conns_add(int64_t k)
{
	uint32_t b;

	for (b = 0; b <= W.srv->src_mask; b++)
		W.srv->src_conns[b] = (uint32_t)((int64_t)W.srv->src_conns[b] +
			k);
}

/*
 * Over 65,535 objects: a share of all of them is no limit, and a share
 * between 65,535 and all of them holds where it says (the counts are
 * 32-bit, the share is not clamped to 65,535).
 */
static void
test_share_big_table(void **state)
{
	struct cli *cl;
	size_t off = 0;

	teardown(state);
	slots_setup_with(70000, 70000, 16, 16);
	assert_int_equal(slots().max_conns_per_src, 70000);
	/* 65,535 in every bucket (the old clamp), and still served. */
	src_conns_add(65535);
	cl = cli_open(0);
	assert_int_equal(request(cl, &off, GET), 200);
	src_conns_add(-65535);
	teardown(state);

	slots_setup_with(70000, 66000, 16, 16);
	assert_int_equal(slots().max_conns_per_src, 66000);
	/* The address holds 65,999: one more is served... */
	src_conns_add(65999);
	cl = cli_open(0);
	off = 0;
	assert_int_equal(request(cl, &off, GET), 200);
	/* ...and at 66,000 the next is refused. */
	cl = cli_open(1);
	cli_sends(cl, GET);
	RUN_UNTIL(cl->closed, 1000);
	assert_true(cl->closed);
	assert_int_equal(ctr(EWYK_HTTP_C_CONN_SRC_REFUSED), 1);
	src_conns_add(-65999);
	/* ewyk_http_quota: a share of the whole capacity is accepted. */
	ewyk_http_quota_free(
		ewyk_http_quota_create(70000, 70000, SOCKET_ID_ANY));
	assert_null(ewyk_http_quota_create(70000, 70001, SOCKET_ID_ANY));
}

/* ewyk_http_quota: a source's share, the capacity, tokens back. */
static struct ewyk_http_quota *quota_one; /* capacity 1 */

static int
h_quota(struct ewyk_http_conn *c, const struct ewyk_http_request *req,
	void *arg)
{
	struct ewyk_http_quota *q = arg;
	int tok[4], k;

	k = ewyk_http_quota_take(quota_one, c);
	assert_true(k >= 0);
	assert_int_equal(ewyk_http_quota_take(quota_one, c), -ENOSPC);
	ewyk_http_quota_give(quota_one, k);

	RTE_SET_USED(req);
	for (k = 0; k < 3; k++)
		tok[k] = ewyk_http_quota_take(q, c);
	assert_true(tok[0] >= 0 && tok[1] >= 0);
	assert_int_equal(tok[2], -EBUSY); /* share of 2 */
	assert_int_equal(ewyk_http_quota_used(q), 2);
	ewyk_http_quota_give(q, tok[0]);
	ewyk_http_quota_give(q, tok[2]); /* a refusal: ignored */
	tok[3] = ewyk_http_quota_take(q, c);
	assert_true(tok[3] >= 0);
	ewyk_http_quota_give(q, tok[1]);
	ewyk_http_quota_give(q, tok[3]);
	assert_int_equal(ewyk_http_quota_used(q), 0);
	return ewyk_http_respond(c, 200, NULL, NULL, NULL, 0);
}

static void
test_quota(void **state)
{
	struct ewyk_http_quota *q = ewyk_http_quota_create(8, 2, SOCKET_ID_ANY);
	struct cli *cl;
	size_t off = 0;

	RTE_SET_USED(state);
	assert_non_null(q);
	quota_one = ewyk_http_quota_create(1, 1, SOCKET_ID_ANY);
	assert_non_null(quota_one);
	assert_null(ewyk_http_quota_create(0, 0, SOCKET_ID_ANY));
	assert_null(ewyk_http_quota_create(4, 5, SOCKET_ID_ANY));
	assert_int_equal(ewyk_http_quota_take(q, NULL), -EINVAL);
	assert_int_equal(ewyk_http_route_add(W.rt, "/quota", 0,
				 EWYK_HTTP_M(EWYK_HTTP_GET),
				 EWYK_STRATEGY_INVOKE_NON_BLOCKING,
				 (void *)h_quota, q),
		0);
	cl = cli_open(0);
	assert_int_equal(request(cl, &off,
				 "GET /quota HTTP/1.1\r\nHost: x\r\n\r\n"),
		200);
	assert_int_equal(ewyk_http_quota_refused(q), 1);
	assert_int_equal(ewyk_http_quota_refused(quota_one), 1);
	assert_int_equal(ctr(EWYK_HTTP_C_QUOTA_REFUSED), 2);
	assert_int_equal(ewyk_http_quota_used(quota_one), 0);
	ewyk_http_quota_free(q);
	ewyk_http_quota_free(quota_one);
	quota_one = NULL;
}

/* A source computed once from lib/tcp's information and taken for
 * without an ewyk_http_conn (lib/http2's streams): one address holds its
 * share, another address keeps being given units. */
static void
test_quota_source(void **state)
{
	struct ewyk_http_quota *q = ewyk_http_quota_create(64, 3,
		SOCKET_ID_ANY);
	struct ewyk_tcp_conn_info a, b;
	int sa, sb, tok[4], i;

	RTE_SET_USED(state);
	assert_non_null(q);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.remote_ip = RTE_IPV4(10, 0, 0, 7);
	b.remote_ip = RTE_IPV4(10, 0, 0, 8);
	sa = ewyk_http_quota_source(q, &a);
	sb = ewyk_http_quota_source(q, &b);
	assert_true(sa >= 0 && sb >= 0);
	assert_int_equal(ewyk_http_quota_source(q, &a), sa); /* stable */
	assert_int_equal(ewyk_http_quota_source(q, NULL), -EINVAL);
	assert_int_equal(ewyk_http_quota_take_source(q, -1), -EINVAL);
	assert_int_equal(ewyk_http_quota_take_source(NULL, sa), -EINVAL);
	for (i = 0; i < 3; i++) {
		tok[i] = ewyk_http_quota_take_source(q, sa);
		assert_int_equal(tok[i], sa);
	}
	assert_int_equal(ewyk_http_quota_take_source(q, sa), -EBUSY);
	assert_int_equal(ewyk_http_quota_refused(q), 1);
	if (sb != sa) { /* two addresses may share a bucket (1 in 64) */
		tok[3] = ewyk_http_quota_take_source(q, sb);
		assert_int_equal(tok[3], sb);
		ewyk_http_quota_give(q, tok[3]);
	}
	ewyk_http_quota_give(q, tok[0]);
	tok[0] = ewyk_http_quota_take_source(q, sa);
	assert_int_equal(tok[0], sa);
	for (i = 0; i < 3; i++)
		ewyk_http_quota_give(q, tok[i]);
	assert_int_equal(ewyk_http_quota_used(q), 0);
	ewyk_http_quota_free(q);
}

/* Gives back from another thread, while the shard's lcore takes. */
static void *
give_far(void *arg)
{
	struct ewyk_http_quota *q = arg;
	int i;

	for (i = 0; i < 1000; i++) {
		while (ewyk_http_quota_used(q) != 1)
			;
		ewyk_http_quota_give(q, 0);
	}
	return NULL;
}

/* ewyk_http_quota_give_here() (the shard's lcore) and
 * ewyk_http_quota_give() (any lcore) give back to the same counts: a
 * source's share and the capacity see both, and gives from another
 * thread beside the takes are none of them lost. */
static void
test_quota_give_here(void **state)
{
	struct ewyk_http_quota *q = ewyk_http_quota_create(1, 1, SOCKET_ID_ANY);
	pthread_t th;
	int tok, i;

	RTE_SET_USED(state);
	assert_non_null(q);
	tok = ewyk_http_quota_take_source(q, 0);
	assert_int_equal(tok, 0);
	assert_int_equal(ewyk_http_quota_take_source(q, 0), -ENOSPC);
	ewyk_http_quota_give_here(q, tok);
	assert_int_equal(ewyk_http_quota_used(q), 0);
	assert_int_equal(ewyk_http_quota_take_source(q, 0), 0);
	ewyk_http_quota_give(q, 0);
	assert_int_equal(ewyk_http_quota_used(q), 0);
	ewyk_http_quota_give_here(q, -1); /* a refusal: ignored */
	ewyk_http_quota_give_here(NULL, 0);
	/* 1000 takes here, each given back by the other thread: the unit
	 * comes back each time (a lost give would hang here) */
	assert_int_equal(pthread_create(&th, NULL, give_far, q), 0);
	for (i = 0; i < 1000; i++) {
		while (ewyk_http_quota_used(q) != 0)
			;
		assert_int_equal(ewyk_http_quota_take_source(q, 0), 0);
	}
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(ewyk_http_quota_used(q), 0);
	ewyk_http_quota_free(q);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lease_idle, slots_setup,
			slots_teardown),
		cmocka_unit_test_setup_teardown(test_lease_pipelined,
			slots_setup, slots_teardown),
		cmocka_unit_test_setup_teardown(test_lease_error_reset_timeout,
			slots_setup, slots_teardown),
		cmocka_unit_test_setup_teardown(test_lease_passed_on,
			slots_setup, slots_teardown),
		cmocka_unit_test_setup_teardown(test_idle_memory, slots_setup,
			slots_teardown),
		cmocka_unit_test_setup_teardown(test_lease_pending, slots_setup,
			slots_teardown),
		cmocka_unit_test_setup_teardown(test_lease_exhausted,
			slots_setup, slots_teardown),
		cmocka_unit_test_setup_teardown(test_lease_per_src, slots_setup,
			slots_teardown),
		cmocka_unit_test_setup_teardown(test_conn_per_net64,
			slots_setup, slots_teardown),
		cmocka_unit_test_setup_teardown(test_conn_per_src, slots_setup,
			slots_teardown),
		cmocka_unit_test_setup_teardown(test_lru_reclaim, slots_setup,
			slots_teardown),
		cmocka_unit_test_setup_teardown(test_whole_share_no_limit,
			slots_setup, slots_teardown),
		cmocka_unit_test_setup_teardown(test_share_big_table,
			slots_setup, slots_teardown),
		cmocka_unit_test_setup_teardown(test_quota, slots_setup,
			slots_teardown),
		cmocka_unit_test(test_quota_source),
		cmocka_unit_test(test_quota_give_here),
	};

	if (ewyk_test_eal_init(argc, argv) < 0)
		return 1;
	mp = rte_pktmbuf_pool_create("test_http_slots", 8192, 256, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (mp == NULL)
		return 1;
	return cmocka_run_group_tests_name("http_slots", tests, NULL, NULL);
}
