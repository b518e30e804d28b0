/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The runtime over IPv6 (runtime_test_util.h's world is dual-stack): a
 * request from an IPv6 client beside an IPv4 one on the one listener, and
 * a connection's MSS lowered by a packet too big and raised again when the
 * path MTU entry expires, and the client's neighbour entry confirmed by
 * its ACKs, on the virtual clock.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <ewyk_net.h>

#include "net_private.h"
#include "runtime_test_util.h"

#define GET(p) "GET " p " HTTP/1.1\r\nHost: t\r\n\r\n"

/* TCP payload of a full segment over a 1500-byte MTU (the clients offer
 * that MSS, no timestamps), and over the IPv6 minimum MTU. */
#define MSS4 1460
#define MSS6 1440
#define MSS6_MIN (EWYK_NET_IP6_MIN_MTU - 60)

static void
expect_resp(struct rtw_cli *c, int status, const char *body)
{
	struct rtw_resp r;

	assert_int_equal(rtw_resp_next(c, &r), 1);
	assert_int_equal(r.status, status);
	assert_int_equal(r.body_len, strlen(body));
	assert_memory_equal(r.body, body, r.body_len);
}

/* GET /big on @p c: the largest segment and IP packet it came in. */
static void
get_big(struct rtw_cli *c, uint32_t *seg, uint32_t *pkt)
{
	struct rtw_resp r;
	size_t i;

	c->seg_max = c->pkt_max = 0;
	rtw_send(c, GET("/big"));
	rtw_run();
	assert_int_equal(rtw_resp_next(c, &r), 1);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.body_len, RTW_BIG);
	for (i = 0; i < r.body_len; i++)
		assert_int_equal(r.body[i], 'b');
	/* the client's buffer holds the next response from its start */
	c->nrx = c->off = 0;
	*seg = c->seg_max;
	*pkt = c->pkt_max;
}

/* A request over IPv6 through the runtime: the handler sees its peer in
 * the v6 family; an IPv4 client on the same listener meanwhile. */
void
test_v6_request(void **state)
{
	struct rtw_cli *c6, *c4;
	char txt[64];

	(void)state;
	rtw_create(EWYK_STRATEGY_PC, 0);
	rtw_start();
	c6 = rtw_connect6(0);
	c4 = rtw_connect(1);
	rtw_send(c6, "GET /block?v=6 HTTP/1.1\r\nHost: t\r\nX-T: six\r\n\r\n");
	rtw_run();
	expect_resp(c6, 200, "block");
	assert_int_equal(RTW.calls_block, 1);
	assert_string_equal(RTW.path, "/block");
	assert_string_equal(RTW.query, "v=6");
	assert_string_equal(RTW.hdr, "six");
	assert_true(RTW.peer.ipv6);
	assert_memory_equal(RTW.peer.addr, rtw_cip6, 16);
	assert_int_equal(RTW.peer.port, c6->sport);
	assert_int_equal(ewyk_http_peer_format(&RTW.peer, txt, sizeof(txt)),
		11);
	assert_string_equal(txt, "2001:db8::2");
	/* the IPv4 client, its peer in its own family */
	rtw_send(c4, GET("/block"));
	rtw_run();
	expect_resp(c4, 200, "block");
	assert_int_equal(RTW.calls_block, 2);
	assert_false(RTW.peer.ipv6);
	assert_memory_equal(RTW.peer.addr, &(rte_be32_t){ RTE_BE32(RTW_CIP) },
		4);
	assert_int_equal(RTW.peer.port, c4->sport);
	/* keep-alive over IPv6, a NON_BLOCKING route */
	rtw_send(c6, GET("/nb"));
	rtw_run();
	expect_resp(c6, 200, "nb");
	assert_false(c6->rst || c6->fin || c4->rst || c4->fin);
	rtw_free();
}

/*
 * A packet too big (MTU 1280) lowers the MSS of the IPv6 connection
 * towards its sender: the next response comes in segments that fit 1280
 * bytes. While the path MTU entry lives, it stays so; once it expires
 * (lib/net's housekeeping forgets it and moves the path MTU generation),
 * the same connection sends full segments again. A small response in
 * between (its segments skip the path MTU look) changes neither. IPv4
 * has no path MTU discovery (lib/net honours no ICMP fragmentation
 * needed): the IPv4 connection beside it sends full segments throughout.
 */
void
test_v6_pmtu_expiry(void **state)
{
	struct ewyk_net_shard *ns;
	struct rtw_cli *c6, *c4;
	uint32_t seg, pkt;

	(void)state;
	/* the connections outlive the entry */
	rtw_idle_s = 2 * NET_PMTU_EXPIRE_S;
	rtw_create(EWYK_STRATEGY_PC, 0);
	rtw_start();
	ns = ewyk_rt_shard_net(RTW.sh);
	c6 = rtw_connect6(0);
	c4 = rtw_connect(1);
	get_big(c6, &seg, &pkt);
	assert_int_equal(seg, MSS6);
	assert_int_equal(pkt, 1500);
	get_big(c4, &seg, &pkt);
	assert_int_equal(seg, MSS4);

	/* a router on the way cannot forward 1500 bytes */
	rtw_ptb6(c6, EWYK_NET_IP6_MIN_MTU);
	rtw_run();
	assert_int_equal(ewyk_net_counter_get(ns, EWYK_NET_ICMP6_PTB_RX), 1);
	assert_int_equal(ewyk_net_pmtu6(ns, 0, rtw_cip6), EWYK_NET_IP6_MIN_MTU);
	/* a small response first: segments that fit 1280 bytes do not look
	 * at the path MTU; the first full one after it still does */
	rtw_send(c6, GET("/nb"));
	rtw_run();
	expect_resp(c6, 200, "nb");
	get_big(c6, &seg, &pkt);
	assert_int_equal(seg, MSS6_MIN);
	assert_int_equal(pkt, EWYK_NET_IP6_MIN_MTU);
	get_big(c4, &seg, &pkt);
	assert_int_equal(seg, MSS4);

	/* a second before the entry's lifetime ends: still lowered */
	rtw_advance_ms((NET_PMTU_EXPIRE_S - 1) * 1000ull);
	rtw_run();
	assert_int_equal(ewyk_net_pmtu6(ns, 0, rtw_cip6), EWYK_NET_IP6_MIN_MTU);
	get_big(c6, &seg, &pkt);
	assert_int_equal(seg, MSS6_MIN);

	/* past it: the shard's housekeeping forgets the entry (a step with
	 * nothing to read runs it), and the connection's next segments are
	 * full-sized again */
	rtw_advance_ms(2000);
	rtw_run();
	assert_int_equal(ewyk_net_pmtu6(ns, 0, rtw_cip6), 1500);
	rtw_send(c6, GET("/nb"));
	rtw_run();
	expect_resp(c6, 200, "nb");
	get_big(c6, &seg, &pkt);
	assert_int_equal(seg, MSS6);
	assert_int_equal(pkt, 1500);
	get_big(c4, &seg, &pkt);
	assert_int_equal(seg, MSS4);
	assert_false(c6->rst || c6->fin || c4->rst || c4->fin);
	rtw_free();
}

/*
 * New data an IPv6 client acknowledges confirms its neighbour entry (RFC
 * 4861 7.3.1), through TCP's inline once-a-second test: the entry gone
 * STALE after its ReachableTime (at most 45 s), which the next response
 * takes to DELAY, is REACHABLE again once the client's ACK of that
 * response is in, with no solicitation sent. A second response within
 * the same second leaves it so.
 */
void
test_v6_nd_confirm_by_ack(void **state)
{
	struct ewyk_net_shard *ns;
	struct rtw_cli *c6;
	uint64_t ns_tx;

	(void)state;
	/* the connection outlives the neighbour's ReachableTime */
	rtw_idle_s = 120;
	rtw_create(EWYK_STRATEGY_PC, 0);
	rtw_start();
	ns = ewyk_rt_shard_net(RTW.sh);
	c6 = rtw_connect6(0);
	rtw_send(c6, GET("/nb"));
	rtw_run();
	expect_resp(c6, 200, "nb");
	assert_non_null(net_nd_reachable(ns, 0, rtw_cip6, RTW.vnow));

	/* ReachableTime over (drawn from 0.5 to 1.5 times the base 30 s,
	 * RFC 4861 6.3.2): the housekeeping makes the entry STALE */
	rtw_advance_ms(46000);
	rtw_run();
	assert_null(net_nd_reachable(ns, 0, rtw_cip6, RTW.vnow));
	ns_tx = ewyk_net_counter_get(ns, EWYK_NET_ND_NS_TX);

	/* the response goes out (DELAY), its ACK confirms the entry */
	rtw_send(c6, GET("/nb"));
	rtw_run();
	expect_resp(c6, 200, "nb");
	assert_non_null(net_nd_reachable(ns, 0, rtw_cip6, RTW.vnow));
	assert_int_equal(ewyk_net_counter_get(ns, EWYK_NET_ND_NS_TX), ns_tx);

	rtw_send(c6, GET("/nb"));
	rtw_run();
	expect_resp(c6, 200, "nb");
	assert_non_null(net_nd_reachable(ns, 0, rtw_cip6, RTW.vnow));
	assert_int_equal(ewyk_net_counter_get(ns, EWYK_NET_ND_NS_TX), ns_tx);
	assert_false(c6->rst || c6->fin);
	rtw_free();
}
