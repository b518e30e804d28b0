/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/tcp's per-connection knobs and accessors, run by test_tcp.c's main:
 * Nagle's algorithm (ewyk_tcp_set_nodelay()) through the script harness,
 * a connection's own callbacks and context (ewyk_tcp_conn_set_ops(),
 * ewyk_tcp_conn_ctx(), ewyk_tcp_conn_tcp()), and the contexts of a
 * network's shards (ewyk_tcp_shard(), ewyk_tcp_counter_sum()), and
 * back-pressure from a full TX (ewyk_tcp_conf.tx_room), and per-source
 * limits in a table above 65,535 connections.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <rte_mbuf.h>

#include <ewyk_net.h>

#include "tcp_private.h"
#include "tcp_script.h"
#include "tcp_src_hash.h"

/*
 * Nagle (RFC 9293 3.7.4), asked for with ewyk_tcp_set_nodelay(c, false):
 * a small send goes at once when nothing is in flight, and is held while
 * data is unacknowledged until the ACK comes or a full segment's worth
 * is queued. With nodelay (the default) the same small send leaves at
 * once, in flight or not.
 */
void
test_nagle(void **state)
{
	static const struct script sc = { .name = "nagle" };
	static const struct step open[] = { PASSIVE_OPEN, END };
	static const struct step nagle[] = {
		/* Nothing in flight: the small send leaves. */
		SEND(100), OUT(F_ACK | F_PSH, 1, 1, .len = 100),
		/* 100 bytes in flight: 50 more wait for the ACK... */
		SEND(50), NOOUT,
		/* ...which sends them. */
		IN(F_ACK, 1, 101), OUT(F_ACK | F_PSH, 101, 1, .len = 50),
		/* 50 in flight, 40 held; 1,410 more make a full segment
		 * (MSS 1448 with timestamps): it leaves, the last 2 wait. */
		SEND(40), NOOUT, SEND(1410), OUT(F_ACK, 151, 1, .len = 1448),
		NOOUT, IN(F_ACK, 1, 1599),
		OUT(F_ACK | F_PSH, 1599, 1, .len = 2), IN(F_ACK, 1, 1601),
		NOOUT, END
	};
	static const struct step nodelay[] = { SEND(100),
		OUT(F_ACK | F_PSH, 1601, 1, .len = 100),
		/* In flight, and still sent at once. */
		SEND(50), OUT(F_ACK | F_PSH, 1701, 1, .len = 50),
		IN(F_ACK, 1, 1751), NOOUT, END };

	RTE_SET_USED(state);
	script_begin(&sc);
	run_steps(open);
	ewyk_tcp_set_nodelay(H.conn, false);
	run_steps(nagle);
	ewyk_tcp_set_nodelay(H.conn, true);
	run_steps(nodelay);
	ewyk_tcp_set_nodelay(NULL, false); /* no-op */
	assert_int_equal(H.ncap, H.rcap);
	h_free();
	memset(&H, 0, sizeof(H));
}

/*
 * Shutdown (ewyk_tcp_abort_all()): an established connection gets its
 * RST, no callback runs, and the table is empty afterwards.
 */
void
test_abort_all(void **state)
{
	static const struct script sc = { .name = "abort_all" };
	static const struct step open[] = { PASSIVE_OPEN, END };
	static const struct step after[] = { OUT(F_RST | F_ACK, 1, 1), GONE,
		CTR(EWYK_TCP_CONN_ABORTED, 1), END };

	RTE_SET_USED(state);
	script_begin(&sc);
	run_steps(open);
	assert_int_equal(ewyk_tcp_abort_all(H.t), 1);
	run_steps(after);
	assert_int_equal(ewyk_tcp_abort_all(H.t), 0);
	assert_int_equal(ewyk_tcp_abort_all(NULL), 0);
	h_free();
	memset(&H, 0, sizeof(H));
}

/*
 * ewyk_tcp_listen6(): one listener per (address, port), a group refused,
 * :: the wildcard (the same listener as ewyk_tcp_listen() with 0); the
 * listener on an address goes before the wildcard, and unlisten6 takes
 * exactly the one named.
 */
void
test_listen6_api(void **state)
{
	static const struct script sc = { .name = "listen6",
		.v6 = true,
		.listen6 = 9 };
	static const uint8_t any[16];
	static const uint8_t group[16] = { 0xff, 0x02, [15] = 1 };
	/* A SYN to ...::9 is the address listener's, then to ...::1 the
	 * wildcard's; without the address listener ...::9 goes to the
	 * wildcard too. */
	static const struct step both[] = { IN(F_SYN, 0, 0, .mss = 1460,
						    .laddr = 9),
		OUT(F_SYN | F_ACK, 0, 1, .mss = 1460, .laddr = 9),
		IN(F_SYN, 0, 0, .sport = 40001, .mss = 1460),
		OUT(F_SYN | F_ACK, 0, 1, .mss = 1460, .learn = true),
		CTR(EWYK_TCP_PASSIVE_OPENS, 2), END };
	uint8_t a[16];

	RTE_SET_USED(state);
	script_begin(&sc);
	memcpy(a, LIP6, 16);
	a[15] = 9;
	assert_int_equal(ewyk_tcp_listen6(H.t, a, LPORT, &app_ops, NULL, 0),
		-EADDRINUSE);
	assert_int_equal(ewyk_tcp_listen6(H.t, group, LPORT, &app_ops, NULL, 0),
		-EINVAL);
	assert_int_equal(ewyk_tcp_listen6(H.t, a, 0, &app_ops, NULL, 0),
		-EINVAL);
	/* The wildcard beside it; :: and 0 name the same listener. */
	assert_int_equal(ewyk_tcp_listen6(H.t, any, LPORT, &app_ops, NULL, 0),
		0);
	assert_int_equal(ewyk_tcp_listen(H.t, 0, LPORT, &app_ops, NULL, 0),
		-EADDRINUSE);
	run_steps(both);
	assert_int_equal(ewyk_tcp_unlisten(H.t, 0, LPORT), 0);
	assert_int_equal(ewyk_tcp_unlisten6(H.t, NULL, LPORT), -ENOENT);
	assert_int_equal(ewyk_tcp_unlisten6(H.t, a, LPORT), 0);
	assert_int_equal(ewyk_tcp_unlisten6(H.t, a, LPORT), -ENOENT);
	h_free();
	memset(&H, 0, sizeof(H));
}

/* The callbacks a connection is given after its accept. */
static struct {
	unsigned int recv, closed;
	void *ctx;
} own;

static void
own_recv(void *ctx, struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	own.recv += m->pkt_len;
	own.ctx = ctx;
	ewyk_tcp_recvd(c, m->pkt_len);
	rte_pktmbuf_free(m);
}

static void
own_closed(void *ctx, struct ewyk_tcp_conn *c, int err)
{
	RTE_SET_USED(c);
	RTE_SET_USED(err);
	own.closed++;
	own.ctx = ctx;
}

static const struct ewyk_tcp_ops own_ops = {
	.recv = own_recv,
	.closed = own_closed,
};

/*
 * A connection accepted on the listener's callbacks moves to its own
 * (ewyk_tcp_conn_set_ops()) with its own context: the data and the end
 * go there, not to the listener's; the accessors give back what was set.
 */
void
test_conn_own_ops(void **state)
{
	static const struct script sc = { .name = "conn_own_ops" };
	static const struct step open[] = { PASSIVE_OPEN, END };
	static const struct step data[] = { IN(F_ACK | F_PSH, 1, 1, .len = 300),
		OUT(F_ACK, 1, 301), END };
	static const struct step rst[] = { IN(F_RST, 301, 0), GONE, END };
	int cookie;

	RTE_SET_USED(state);
	memset(&own, 0, sizeof(own));
	script_begin(&sc);
	run_steps(open);
	assert_ptr_equal(ewyk_tcp_conn_tcp(H.conn), H.t);
	assert_null(ewyk_tcp_conn_ctx(H.conn)); /* the listener's: NULL */
	ewyk_tcp_conn_set_ops(H.conn, &own_ops);
	ewyk_tcp_conn_set_ctx(H.conn, &cookie);
	assert_ptr_equal(ewyk_tcp_conn_ctx(H.conn), &cookie);
	run_steps(data);
	assert_int_equal(own.recv, 300);
	assert_ptr_equal(own.ctx, &cookie);
	run_steps(rst);
	assert_int_equal(own.closed, 1);
	/* The harness's callbacks saw nothing past the accept. */
	assert_int_equal(H.nev, H.rev);
	assert_int_equal(H.ncap, H.rcap);
	/* NULL in, nothing done, NULL out. */
	ewyk_tcp_conn_set_ops(NULL, &own_ops);
	ewyk_tcp_conn_set_ctx(NULL, &cookie);
	assert_null(ewyk_tcp_conn_ctx(NULL));
	assert_null(ewyk_tcp_conn_tcp(NULL));
	h_free();
	memset(&H, 0, sizeof(H));
}

/*
 * Contexts made on the shards of a network (no ports are needed): each
 * knows its shard, is found by its shard id, and ewyk_tcp_counter_sum()
 * adds up a counter over the registered ones only. A context without a
 * shard has none and is not counted; a freed one stops counting.
 */
void
test_shard_contexts(void **state)
{
	struct ewyk_net_conf nc = { .nb_shards = 2 };
	struct ewyk_net_shard *s[2];
	struct ewyk_tcp_conf cf;
	struct ewyk_tcp *t[2], *lone;
	struct ewyk_net *net;
	const enum ewyk_tcp_counter k = EWYK_TCP_SEG_IN;
	unsigned int i;

	RTE_SET_USED(state);
	net = ewyk_net_create(&nc);
	assert_non_null(net);
	for (i = 0; i < 2; i++) {
		s[i] = ewyk_net_shard_create(net, (uint16_t)i, SOCKET_ID_ANY,
			mp);
		assert_non_null(s[i]);
		memset(&cf, 0, sizeof(cf));
		cf.shard = s[i];
		t[i] = ewyk_tcp_create(&cf);
		assert_non_null(t[i]);
		assert_ptr_equal(ewyk_tcp_shard(t[i]), s[i]);
		assert_ptr_equal(ewyk_tcp_get((uint16_t)i), t[i]);
	}
	make_ctx(&(const struct script){ .name = "lone" });
	lone = H.t;
	assert_null(ewyk_tcp_shard(lone));
	assert_null(ewyk_tcp_shard(NULL));

	/* The counters' only writer is the shard's holder: here, us. */
	assert_int_equal(ewyk_tcp_counter_sum(k), 0);
	tcp_ctr_add(t[0], k, 3);
	tcp_ctr_add(t[1], k, 4);
	tcp_ctr_add(lone, k, 100);
	assert_int_equal(ewyk_tcp_counter_sum(k), 7);
	assert_int_equal(ewyk_tcp_counter_sum(EWYK_TCP_COUNTER_MAX), 0);
	ewyk_tcp_free(t[1]);
	assert_null(ewyk_tcp_get(1));
	assert_int_equal(ewyk_tcp_counter_sum(k), 3);
	ewyk_tcp_free(t[0]);
	assert_int_equal(ewyk_tcp_counter_sum(k), 0);
	h_free();
	memset(&H, 0, sizeof(H));
	ewyk_net_free(net);
}

/*
 * Back-pressure: while the port's TX buffer has no more room than the
 * reserve, new data stays in the send queue (no segment is made to be
 * dropped), ACKs still go, and the data leaves in the first loop
 * (ewyk_tcp_advance) that finds the room back. Nothing is retransmitted.
 */
void
test_tx_backpressure(void **state)
{
	static const struct script sc = { .name = "tx_backpressure" };
	static const struct step open[] = { PASSIVE_OPEN, END };
	static const struct step full[] = {
		/* Held: no segment, counted once per attempt. */
		SEND(100), NOOUT, CTR(EWYK_TCP_TX_BLOCKED, 1),
		/* The peer's data is still ACKed, alone: ours waits. */
		IN(F_ACK | F_PSH, 1, 1, .len = 50), EV(EV_RECV, 50),
		OUT(F_ACK, 1, 51), NOOUT,
		/* More data joins the queue; the loop finds no room yet. */
		SEND(200), NOOUT, WAIT(1), NOOUT, CTR(EWYK_TCP_TX_RESUMED, 0),
		END
	};
	static const struct step drained[] = {
		/* The first loop with room sends all of it, once. */
		WAIT(1), OUT(F_ACK | F_PSH, 1, 51, .len = 300), NOOUT,
		CTR(EWYK_TCP_TX_RESUMED, 1), IN(F_ACK, 51, 301), NOOUT,
		CTR(EWYK_TCP_RETRANS_SEGS, 0), WAIT(1000), NOOUT, END
	};
	struct ewyk_tcp_conn_info ci;

	RTE_SET_USED(state);
	script_begin(&sc);
	run_steps(open);
	H.tx_room = EWYK_TCP_TX_RESERVE;
	run_steps(full);
	ewyk_tcp_conn_info(H.conn, &ci);
	assert_int_equal(ci.snd_queued, 300);
	assert_int_equal(ci.in_flight, 0);
	H.tx_room = EWYK_TCP_TX_RESERVE + 1;
	run_steps(drained);
	/* A connection destroyed while it waits leaves the list. */
	H.tx_room = 1;
	run_steps((const struct step[]){ SEND(10), NOOUT, END });
	assert_int_equal(H.t->txw_n, 1);
	ewyk_tcp_abort(H.conn);
	assert_int_equal(H.t->txw_n, 0);
	H.tx_room = 0;
	h_free();
	memset(&H, 0, sizeof(H));
}

/* Add @p k to every per-source count (a stand-in for k connections in
 * each bucket, without making them). */
static void
src_counts_add(struct ewyk_tcp *t, int64_t k)
{
	uint32_t b;

	for (b = 0; b <= t->src_mask; b++)
		t->src_cnt[b] = (uint32_t)((int64_t)t->src_cnt[b] + k);
}

/*
 * Per-source limits in a table above 65,535 connections: a limit of the
 * table's size (or more) is no limit (no count kept at all), and a limit
 * between 65,535 and the table's size holds exactly where it says, the
 * counts being 32-bit (16-bit ones could not count to it; clamping it to
 * 65,535 made "no limit" a limit).
 */
void
test_src_limit_big(void **state)
{
	static const struct script none = { .name = "src_limit_none",
		.max_conns = 70000,
		.per_src = 70000 };
	static const struct script big = { .name = "src_limit_big",
		.max_conns = 70000,
		.per_src = 66000 };
	static const struct step open2[] = { PASSIVE_OPEN_PLAIN,
		IN(F_SYN, 0, 0, .sport = 40001, .mss = 1460),
		OUT(F_SYN | F_ACK, 0, 1, .learn = true),
		IN(F_ACK, 1, 1, .sport = 40001), EV(EV_ACCEPT, 0),
		CTR(EWYK_TCP_DROP_SRC_LIMIT, 0), END };
	static const struct step under[] = { IN(F_SYN, 0, 0, .sport = 40002,
						     .mss = 1460),
		OUT(F_SYN | F_ACK, 0, 1, .learn = true),
		IN(F_ACK, 1, 1, .sport = 40002), EV(EV_ACCEPT, 0), END };
	static const struct step at[] = { IN(F_SYN, 0, 0, .sport = 40003,
						  .mss = 1460),
		NOOUT, CTR(EWYK_TCP_DROP_SRC_LIMIT, 1), END };

	RTE_SET_USED(state);
	script_begin(&none);
	assert_int_equal(H.t->conf.max_conns_per_src, 0);
	assert_int_equal(H.t->conf.max_conns_per_net6, 0);
	assert_null(H.t->src_cnt);
	run_steps(open2);
	h_free();
	memset(&H, 0, sizeof(H));

	script_begin(&big);
	assert_int_equal(H.t->conf.max_conns_per_src, 66000);
	assert_non_null(H.t->src_cnt);
	assert_true(H.t->src_mask >= 65535);
	run_steps(open2);
	/* 65,998 more in every bucket: this address holds 66,000 - 1. */
	src_counts_add(H.t, 66000 - 2 - 1);
	run_steps(under);
	/* Now it holds 66,000: the next SYN is refused. */
	run_steps(at);
	src_counts_add(H.t, -(66000 - 2 - 1));
	h_free();
	memset(&H, 0, sizeof(H));
}

/* The per-source limit's hashes, computed in steps so that an IPv6
 * address and its /64 share a compression, are SipHash-1-3 of the
 * address (1 word for IPv4, 4 for IPv6) and of the /64 (2 words), as
 * ewyk_siphash13() computes them, over random keys and addresses. */
void
test_tcp_src_hash(void **state)
{
	uint64_t x = UINT64_C(0x9e3779b97f4a7c15);
	unsigned int i, k;

	RTE_SET_USED(state);
	for (i = 0; i < 1000; i++) {
		union tcp_addr a;
		uint64_t k0, k1;
		uint32_t w[4], h, n = 0xdeadbeef;

		/* xorshift64: keys and addresses */
		for (k = 0; k < 4; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			w[k] = (uint32_t)x;
		}
		k0 = x * 3;
		k1 = x ^ UINT64_C(0x5bd1e995);
		memcpy(a.b, w, sizeof(a.b));
		tcp_src_hash(k0, k1, &a, false, false, &h, &n);
		assert_int_equal(h, (uint32_t)ewyk_siphash13(k0, k1, w, 1));
		assert_int_equal(n, 0xdeadbeef);
		tcp_src_hash(k0, k1, &a, true, false, &h, &n);
		assert_int_equal(h, (uint32_t)ewyk_siphash13(k0, k1, w, 4));
		assert_int_equal(n, 0xdeadbeef);
		tcp_src_hash(k0, k1, &a, true, true, &h, &n);
		assert_int_equal(h, (uint32_t)ewyk_siphash13(k0, k1, w, 4));
		assert_int_equal(n, (uint32_t)ewyk_siphash13(k0, k1, w, 2));
	}
}
