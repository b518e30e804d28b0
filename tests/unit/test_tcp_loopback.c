/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/tcp's loopback transfers, run by test_tcp.c's main: two endpoints,
 * each its own context, over a "wire" that loses, delays and reorders
 * segments, clean and lossy, with and without SACK, many connections at
 * once, and buffers sent by reference again and again.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_random.h>
#include <rte_tcp.h>

#include "tcp_private.h"
#include "tcp_script.h"
#include "test_common.h"

/*
 * Loopback: a client and an echo server, each its own context, joined by a
 * wire that loses, delays and reorders segments. The client sends a
 * pattern, shuts down, and checks that exactly the pattern comes back.
 */
#define LB_MAXQ 65536
#define LB_MAXC 32

struct lb_pkt {
	struct rte_mbuf *m;
	uint64_t at_us;
	int to;
};

struct lb_conn {
	struct ewyk_tcp_conn *c;
	int side;
	uint64_t sent, rcvd, total;
	bool eof, closed, shut, bad;
	struct rte_mbuf *pend[512];
	unsigned int npend;
	struct rte_mbuf *buf; /* L.shared: the client's buffer, resent */
	uint64_t reused;      /* sends of buf by reference */
};

static struct {
	struct ewyk_tcp *t[2]; /* 0: server (LIP), 1: client (PIP) */
	struct lb_pkt q[LB_MAXQ];
	unsigned int nq;
	uint64_t now_us, base;
	uint32_t loss_pm, reorder_pm; /* per mille */
	bool shared; /* the client resends one buffer by reference */
	struct lb_conn srv[LB_MAXC], cli[LB_MAXC];
	unsigned int nsrv, ncli;
	uint64_t dropped;
} L;

static int
lb_output(void *arg, struct rte_mbuf *m, uint16_t port, rte_be32_t src,
	rte_be32_t dst)
{
	int from = (int)(uintptr_t)arg;
	uint64_t delay = 500;

	RTE_SET_USED(port);
	assert_true(src == (from == 0 ? LIP : PIP) &&
		dst == (from == 0 ? PIP : LIP));
	{
		const struct rte_tcp_hdr *th = rte_pktmbuf_mtod(m,
			const struct rte_tcp_hdr *);

		/* Payload + options within the MSS (1460) of the other side. */
		if (!(th->tcp_flags & RTE_TCP_SYN_FLAG))
			assert_true(m->pkt_len - 20 <= 1460);
	}
	if (rte_rand_max(1000) < L.loss_pm || L.nq == LB_MAXQ) {
		L.dropped++;
		rte_pktmbuf_free(m);
		return 0;
	}
	if (rte_rand_max(1000) < L.reorder_pm)
		delay += rte_rand_max(2000);
	L.q[L.nq].m = m;
	L.q[L.nq].at_us = L.now_us + delay;
	L.q[L.nq].to = 1 - from;
	L.nq++;
	return 0;
}

static void
srv_flush(struct lb_conn *lc)
{
	while (lc->npend > 0) {
		uint32_t len = lc->pend[0]->pkt_len;

		if (ewyk_tcp_send(lc->c, lc->pend[0]) != 0)
			break;
		ewyk_tcp_recvd(lc->c, len);
		memmove(&lc->pend[0], &lc->pend[1],
			--lc->npend * sizeof(lc->pend[0]));
	}
	if (lc->eof && lc->npend == 0 && !lc->closed) {
		lc->closed = true;
		ewyk_tcp_close(lc->c);
	}
}

static int
srv_accept(void *arg, struct ewyk_tcp_conn *c)
{
	struct lb_conn *lc;

	RTE_SET_USED(arg);
	assert_true(L.nsrv < LB_MAXC);
	lc = &L.srv[L.nsrv++];
	memset(lc, 0, sizeof(*lc));
	lc->c = c;
	ewyk_tcp_conn_set_ctx(c, lc);
	return 0;
}

static void
srv_recv(void *ctx, struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	struct lb_conn *lc = ctx;

	RTE_SET_USED(c);
	assert_true(lc->npend < RTE_DIM(lc->pend));
	lc->pend[lc->npend++] = m;
	srv_flush(lc);
}

static void
srv_eof(void *ctx, struct ewyk_tcp_conn *c)
{
	struct lb_conn *lc = ctx;

	RTE_SET_USED(c);
	lc->eof = true;
	srv_flush(lc);
}

static void
srv_writable(void *ctx, struct ewyk_tcp_conn *c)
{
	RTE_SET_USED(c);
	srv_flush(ctx);
}

static void
lb_closed(void *ctx, struct ewyk_tcp_conn *c, int err)
{
	struct lb_conn *lc = ctx;

	RTE_SET_USED(c);
	lc->closed = true;
	lc->bad = err != 0;
	lc->c = NULL;
}

static const struct ewyk_tcp_ops srv_ops = {
	.accept = srv_accept,
	.recv = srv_recv,
	.eof = srv_eof,
	.writable = srv_writable,
	.closed = lb_closed,
};

/* The byte at offset @p x of the stream; with L.shared it repeats
 * every LB_CHUNK bytes, so that one buffer carries every chunk. */
#define LB_CHUNK 1999
static uint8_t
lb_byte(uint64_t x)
{
	if (L.shared)
		x %= LB_CHUNK;
	return (uint8_t)(x * 7 + x / 251);
}

/*
 * L.shared: the client's buffer is sent by reference, as an application
 * may send a prebuilt buffer: one more reference per send, which lib/tcp
 * drops once the bytes are acknowledged (and the frames that referred to
 * it are gone); the buffer is sent again only while its holder's
 * reference is the only one, else a copy goes.
 */
static struct rte_mbuf *
cli_shared(struct lb_conn *lc, uint16_t n)
{
	struct rte_mbuf *b = lc->buf;

	if (b == NULL) {
		b = rte_pktmbuf_alloc(mp);
		assert_non_null(b);
		for (uint16_t i = 0; i < LB_CHUNK; i++)
			rte_pktmbuf_mtod(b, uint8_t *)[i] = lb_byte(i);
		lc->buf = b;
	}
	if (rte_mbuf_refcnt_read(b) != 1)
		return NULL;
	b->next = NULL;
	b->nb_segs = 1;
	b->data_len = n;
	b->pkt_len = n;
	rte_mbuf_refcnt_update(b, 1);
	lc->reused++;
	return b;
}

static void
cli_push(struct lb_conn *lc)
{
	while (lc->sent < lc->total && !lc->closed) {
		uint16_t n = (uint16_t)RTE_MIN(lc->total - lc->sent,
			(uint64_t)LB_CHUNK);
		struct rte_mbuf *m = L.shared ? cli_shared(lc, n) : NULL;
		uint8_t *d;

		if (m == NULL) {
			m = rte_pktmbuf_alloc(mp);
			assert_non_null(m);
			d = (uint8_t *)rte_pktmbuf_append(m, n);
			for (uint16_t i = 0; i < n; i++)
				d[i] = lb_byte(lc->sent + i);
		}
		if (ewyk_tcp_send(lc->c, m) != 0) {
			if (m == lc->buf) {
				rte_mbuf_refcnt_update(m, -1);
				lc->reused--;
			} else {
				rte_pktmbuf_free(m);
			}
			return;
		}
		lc->sent += n;
	}
	if (lc->sent == lc->total && !lc->shut) {
		lc->shut = true;
		assert_int_equal(ewyk_tcp_shutdown(lc->c), 0);
	}
}

static void
cli_connected(void *ctx, struct ewyk_tcp_conn *c, int err)
{
	RTE_SET_USED(c);
	assert_int_equal(err, 0);
	cli_push(ctx);
}

static void
cli_recv(void *ctx, struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	struct lb_conn *lc = ctx;
	struct rte_mbuf *s;

	for (s = m; s != NULL; s = s->next) {
		const uint8_t *d = rte_pktmbuf_mtod(s, const uint8_t *);

		for (uint16_t i = 0; i < s->data_len; i++, lc->rcvd++)
			if (d[i] != lb_byte(lc->rcvd))
				lc->bad = true;
	}
	ewyk_tcp_recvd(c, m->pkt_len);
	rte_pktmbuf_free(m);
}

static void
cli_eof(void *ctx, struct ewyk_tcp_conn *c)
{
	struct lb_conn *lc = ctx;

	lc->eof = true;
	lc->closed = true;
	ewyk_tcp_close(c);
}

static void
cli_writable(void *ctx, struct ewyk_tcp_conn *c)
{
	RTE_SET_USED(c);
	cli_push(ctx);
}

static const struct ewyk_tcp_ops cli_ops = {
	.connected = cli_connected,
	.recv = cli_recv,
	.eof = cli_eof,
	.writable = cli_writable,
	.closed = lb_closed,
};

static struct ewyk_tcp *
lb_ctx(int side, bool plain)
{
	struct ewyk_tcp_conf cf;
	struct ewyk_tcp *t;

	memset(&cf, 0, sizeof(cf));
	cf.output = lb_output;
	cf.output_arg = (void *)(uintptr_t)side;
	cf.tx_pool = mp;
	cf.socket_id = SOCKET_ID_ANY;
	cf.max_conns = 128;
	cf.time_wait_ms = 1000;
	cf.no_timestamps = plain;
	cf.no_sack = plain;
	cf.no_wscale = plain;
	cf.max_retries = 15;
	t = ewyk_tcp_create(&cf);
	assert_non_null(t);
	ewyk_tcp_advance(t, L.base);
	return t;
}

/* Deliver what is due, in the order it was sent (stable: no reordering
 * but the one the extra delays make). */
static void
lb_deliver(void)
{
	static struct lb_pkt due[LB_MAXQ];
	unsigned int i, j = 0, nd = 0;

	for (i = 0; i < L.nq; i++) {
		if (L.q[i].at_us <= L.now_us)
			due[nd++] = L.q[i];
		else
			L.q[j++] = L.q[i];
	}
	L.nq = j;
	for (i = 0; i < nd; i++) {
		struct lb_pkt p = due[i];
		struct ewyk_net_ip_info ip = {
			.proto = IPPROTO_TCP,
			.ttl = 64,
			.cksum_good = true,
		};

		ip.src = p.to == 0 ? PIP : LIP;
		ip.dst = p.to == 0 ? LIP : PIP;
		ip.l4_len = (uint16_t)p.m->pkt_len;
		ewyk_tcp_input(L.t[p.to], p.m, &ip);
	}
}

static void
lb_dump_conn(const char *who, struct ewyk_tcp_conn *c)
{
	struct ewyk_tcp_conn_info ci;

	if (c == NULL) {
		print_message("%s: gone\n", who);
		return;
	}
	ewyk_tcp_conn_info(c, &ci);
	print_message("%s: %s snd_wnd %u rcv_wnd %u cwnd %u ssthresh %u rto %u "
		      "flight %u queued %u ooo %u retrans %u\n",
		who, ewyk_tcp_state_name(ci.state), ci.snd_wnd, ci.rcv_wnd,
		ci.cwnd, ci.ssthresh, ci.rto_ms, ci.in_flight, ci.snd_queued,
		ci.ooo_segs, ci.retransmits);
}

static void
lb_dump(void)
{
	unsigned int i, k;

	for (i = 0; i < L.ncli; i++)
		lb_dump_conn("client", L.cli[i].c);
	for (i = 0; i < L.nsrv; i++)
		lb_dump_conn("server", L.srv[i].c);
	for (k = 0; k < 2; k++)
		for (i = 0; i < EWYK_TCP_COUNTER_MAX; i++)
			if (ewyk_tcp_counter_get(L.t[k],
				    (enum ewyk_tcp_counter)i))
				print_message("%d %s %" PRIu64 "\n", k,
					ewyk_tcp_counter_name(
						(enum ewyk_tcp_counter)i),
					ewyk_tcp_counter_get(L.t[k],
						(enum ewyk_tcp_counter)i));
}

static void
run_loopback(bool plain, uint32_t loss_pm, unsigned int nconn, uint64_t bytes,
	bool shared)
{
	uint64_t hz = rte_get_tsc_hz(), limit_us = 600ULL * 1000000;
	unsigned int i, avail = rte_mempool_avail_count(mp);
	bool done = false;

	memset(&L, 0, sizeof(L));
	L.shared = shared;
	L.loss_pm = loss_pm;
	L.reorder_pm = loss_pm > 0 ? 100 : 0;
	L.base = rte_rdtsc() + hz;
	L.t[0] = lb_ctx(0, plain);
	L.t[1] = lb_ctx(1, plain);
	assert_int_equal(ewyk_tcp_listen(L.t[0], LIP, LPORT, &srv_ops, NULL, 0),
		0);
	for (i = 0; i < nconn; i++) {
		struct lb_conn *lc = &L.cli[L.ncli++];
		struct ewyk_tcp_connect_args a = {
			.dst_ip = LIP,
			.dst_port = LPORT,
			.src_ip = PIP,
			.ops = &cli_ops,
			.ctx = lc,
		};

		lc->total = bytes / nconn;
		lc->c = ewyk_tcp_connect(L.t[1], &a);
		assert_non_null(lc->c);
	}
	while (!done && L.now_us < limit_us) {
		L.now_us += 100;
		lb_deliver();
		for (i = 0; i < 2; i++)
			ewyk_tcp_advance(L.t[i],
				L.base + L.now_us * hz / 1000000);
		done = true;
		for (i = 0; i < L.ncli; i++)
			if (L.cli[i].rcvd < L.cli[i].total || !L.cli[i].eof)
				done = false;
		if (L.nsrv < nconn)
			done = false;
		if (done &&
			ewyk_tcp_state_count(L.t[0], ES) +
					ewyk_tcp_state_count(L.t[0],
						EWYK_TCP_LAST_ACK) >
				0)
			done = false;
	}
	if (!done)
		lb_dump();
	for (i = 0; i < L.ncli; i++) {
		if (L.cli[i].bad || L.cli[i].rcvd != L.cli[i].total)
			fail_msg("conn %u: %s, %" PRIu64 " of %" PRIu64
				 " bytes back",
				i, L.cli[i].bad ? "corrupt" : "short",
				L.cli[i].rcvd, L.cli[i].total);
	}
	assert_true(done);
	if (loss_pm == 0) {
		/* A clean wire: not one retransmission, nothing out of order. */
		for (i = 0; i < 2; i++) {
			assert_int_equal(ewyk_tcp_counter_get(L.t[i],
						 EWYK_TCP_RETRANS_SEGS),
				0);
			assert_int_equal(ewyk_tcp_counter_get(L.t[i],
						 EWYK_TCP_OOO_QUEUED),
				0);
		}
	} else {
		assert_true(ewyk_tcp_counter_get(L.t[1],
				    EWYK_TCP_RETRANS_SEGS) > 0);
		assert_true(ewyk_tcp_counter_get(L.t[0],
				    EWYK_TCP_RETRANS_SEGS) > 0);
		assert_true(
			ewyk_tcp_counter_get(L.t[0], EWYK_TCP_OOO_QUEUED) > 0);
		if (!plain)
			assert_true(ewyk_tcp_counter_get(L.t[1],
					    EWYK_TCP_SACK_BLOCKS_IN) > 0);
	}
	/* Let TIME_WAIT run out: nothing may be left. */
	for (i = 0; i < 30; i++) {
		L.now_us += 100000;
		lb_deliver();
		ewyk_tcp_advance(L.t[0], L.base + L.now_us * hz / 1000000);
		ewyk_tcp_advance(L.t[1], L.base + L.now_us * hz / 1000000);
	}
	for (i = EWYK_TCP_SYN_SENT; i < EWYK_TCP_STATE_MAX; i++) {
		assert_int_equal(ewyk_tcp_state_count(L.t[0],
					 (enum ewyk_tcp_state)i),
			0);
		assert_int_equal(ewyk_tcp_state_count(L.t[1],
					 (enum ewyk_tcp_state)i),
			0);
	}
	for (i = 0; i < L.nsrv; i++)
		assert_int_equal(L.srv[i].npend, 0);
	while (L.nq > 0)
		rte_pktmbuf_free(L.q[--L.nq].m);
	ewyk_tcp_free(L.t[0]);
	ewyk_tcp_free(L.t[1]);
	if (shared) {
		/* Every reference lib/tcp took was dropped (none twice: the
		 * buffer is still ours), it was sent by reference, and every
		 * buffer is back in the pool. */
		for (i = 0; i < L.ncli; i++) {
			assert_non_null(L.cli[i].buf);
			assert_int_equal(rte_mbuf_refcnt_read(L.cli[i].buf), 1);
			assert_true(L.cli[i].reused > 0);
			rte_pktmbuf_free_seg(L.cli[i].buf);
		}
		assert_int_equal(rte_mempool_avail_count(mp), avail);
	}
}

static uint64_t
lb_bytes(uint64_t n)
{
	return getenv("EWYK_TEST_LONG") != NULL ? n * 16 : n;
}

void
test_loopback_clean(void **state)
{
	RTE_SET_USED(state);
	run_loopback(false, 0, 1, lb_bytes(2 << 20), false);
}

void
test_loopback_lossy_sack(void **state)
{
	RTE_SET_USED(state);
	run_loopback(false, 30, 1, lb_bytes(1 << 20), false);
}

void
test_loopback_lossy_plain(void **state)
{
	RTE_SET_USED(state);
	run_loopback(true, 30, 1, lb_bytes(1 << 20), false);
}

void
test_loopback_many(void **state)
{
	RTE_SET_USED(state);
	run_loopback(false, 10, 20, lb_bytes(2 << 20), false);
}

/* Buffers sent by reference and sent again once lib/tcp dropped its
 * references (a prebuilt buffer sent again and again), over a clean and
 * over a lossy, reordering wire: the stream intact, every reference dropped
 * once, every buffer back in the pool. */
void
test_loopback_shared_buf(void **state)
{
	RTE_SET_USED(state);
	run_loopback(false, 0, 1, lb_bytes(1 << 20), true);
	run_loopback(false, 30, 4, lb_bytes(1 << 20), true);
}
