/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The script harness of the lib/tcp unit tests: builds the segments a
 * script sends, catches and checks what the endpoint sends, runs the
 * application calls and the clock. The scripts are in tcp_scripts.c.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "tcp_script.h"

struct rte_mempool *mp;
struct tcp_harness H;
const uint8_t LIP6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
const uint8_t PIP6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

static void
parse_opts(const uint8_t *p, unsigned int n, struct cap *c)
{
	unsigned int i = 0;

	c->mss = -1;
	c->ws = -1;
	while (i < n) {
		if (p[i] == 0)
			break;
		if (p[i] == 1) {
			i++;
			continue;
		}
		assert_true(i + 1 < n && p[i + 1] >= 2 && i + p[i + 1] <= n);
		switch (p[i]) {
		case 2:
			c->mss = (p[i + 2] << 8) | p[i + 3];
			break;
		case 3:
			c->ws = p[i + 2];
			break;
		case 4:
			c->sackok = true;
			break;
		case 5:
			c->nsack = (p[i + 1] - 2) / 8;
			for (int k = 0; k < c->nsack; k++) {
				memcpy(&c->sack[k][0], p + i + 2 + 8 * k, 4);
				memcpy(&c->sack[k][1], p + i + 6 + 8 * k, 4);
				c->sack[k][0] = rte_be_to_cpu_32(c->sack[k][0]);
				c->sack[k][1] = rte_be_to_cpu_32(c->sack[k][1]);
			}
			break;
		case 8:
			c->ts = true;
			memcpy(&c->tsval, p + i + 2, 4);
			memcpy(&c->tsecr, p + i + 6, 4);
			c->tsval = rte_be_to_cpu_32(c->tsval);
			c->tsecr = rte_be_to_cpu_32(c->tsecr);
			break;
		}
		i += p[i + 1];
	}
}

static int cap_seg(struct rte_mbuf *m);

static int
cap_output(void *arg, struct rte_mbuf *m, uint16_t port, rte_be32_t src,
	rte_be32_t dst)
{
	RTE_SET_USED(arg);
	assert_int_equal(port, 0);
	assert_false(H.v6);
	assert_true(src == LIP && dst == PIP);
	assert_true(rte_pktmbuf_headroom(m) >= 38);
	return cap_seg(m);
}

/* The port's TX state as the test sets it (back-pressure). */
static uint32_t
cap_tx_room(void *arg, uint16_t port)
{
	RTE_SET_USED(arg);
	assert_int_equal(port, 0);
	if (H.port_model)
		return H.port_room;
	return H.tx_room != 0 ? H.tx_room : 512;
}

/* Over IPv6: from our /64 (the listener scripts use several addresses
 * of it), to the peer's /32 (the per-/64 scripts talk to several peers),
 * with room for the IPv6 header. */
static int
cap_output6(void *arg, struct rte_mbuf *m, uint16_t port, const uint8_t src[16],
	const uint8_t dst[16])
{
	int rc;

	RTE_SET_USED(arg);
	assert_int_equal(port, 0);
	assert_true(H.v6);
	assert_memory_equal(src, LIP6, 8);
	assert_memory_equal(dst, PIP6, 4);
	memcpy(H.dst6, dst, 16);
	assert_true(rte_pktmbuf_headroom(m) >= 58);
	rc = cap_seg(m);
	H.caps[H.ncap - 1].src6_last = src[15];
	return rc;
}

static int
cap_seg(struct rte_mbuf *m)
{
	uint8_t hdr[60];
	const struct rte_tcp_hdr *th;
	struct cap *c;
	unsigned int hlen;

	if (H.port_model) {
		if (H.port_room == 0) {
			H.drop_tx_full++;
			rte_pktmbuf_free(m);
			return 0;
		}
		H.port_room--;
	}
	assert_true(H.ncap < MAXCAP);
	c = &H.caps[H.ncap++];
	memset(c, 0, sizeof(*c));
	th = rte_pktmbuf_read(m, 0, 20, hdr);
	hlen = (th->data_off >> 4) * 4;
	assert_true(hlen >= 20 && hlen <= m->pkt_len);
	th = rte_pktmbuf_read(m, 0, hlen, hdr);
	c->flags = th->tcp_flags;
	c->seq = rte_be_to_cpu_32(th->sent_seq);
	c->ack = rte_be_to_cpu_32(th->recv_ack);
	c->wnd = rte_be_to_cpu_16(th->rx_win);
	c->sport = rte_be_to_cpu_16(th->src_port);
	c->dport = rte_be_to_cpu_16(th->dst_port);
	parse_opts((const uint8_t *)th + 20, hlen - 20, c);
	c->len = m->pkt_len - hlen;
	/* Options and payload never exceed the MSS the peer announced. */
	if (!(c->flags & RTE_TCP_SYN_FLAG) && c->len + hlen - 20 > H.peer_mss)
		fail_msg("segment of %u + %u option bytes over MSS %u", c->len,
			hlen - 20, H.peer_mss);
	if (c->len > 0 && c->len <= sizeof(c->data))
		assert_non_null(rte_pktmbuf_read(m, hlen, c->len, c->data));
	if (c->ts)
		H.last_tsval = c->tsval;
	rte_pktmbuf_free(m);
	return 0;
}

static void
push_ev(enum ev_type type, int val)
{
	assert_true(H.nev < MAXEV);
	H.evs[H.nev].type = type;
	H.evs[H.nev].val = val;
	H.nev++;
}

static int
app_accept(void *arg, struct ewyk_tcp_conn *c)
{
	RTE_SET_USED(arg);
	push_ev(EV_ACCEPT, 0);
	if (H.refuse)
		return -1;
	H.conn = c;
	return 0;
}

static void
app_connected(void *ctx, struct ewyk_tcp_conn *c, int err)
{
	RTE_SET_USED(ctx);
	push_ev(EV_CONNECTED, err);
	H.conn = err == 0 ? c : NULL;
}

/*
 * An echo as ewyk-httpd's: what arrives goes behind what is pending
 * (ewyk_tcp_recv_append), and is sent and reported consumed when the
 * send buffer takes it.
 */
static void
app_echo(struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	uint32_t len;

	assert_int_equal(ewyk_tcp_recv_append(c, &H.pend, m), 0);
	len = H.pend->pkt_len;
	if (ewyk_tcp_send_held(c, H.pend) == 0) {
		H.pend = NULL;
		ewyk_tcp_recvd(c, len);
	}
}

static void
app_recv(void *ctx, struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	RTE_SET_USED(ctx);
	if (H.echo) {
		app_echo(c, m);
		return;
	}
	push_ev(EV_RECV, (int)m->pkt_len);
	if (!H.hold)
		ewyk_tcp_recvd(c, m->pkt_len);
	rte_pktmbuf_free(m);
}

static void
app_eof(void *ctx, struct ewyk_tcp_conn *c)
{
	RTE_SET_USED(ctx);
	push_ev(EV_EOF, 0);
	if (H.close_on_eof)
		ewyk_tcp_close(c);
}

static void
app_writable(void *ctx, struct ewyk_tcp_conn *c)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(c);
	push_ev(EV_WRITABLE, 0);
}

static void
app_closed(void *ctx, struct ewyk_tcp_conn *c, int err)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(c);
	push_ev(EV_CLOSED, err);
	H.conn = NULL;
}

const struct ewyk_tcp_ops app_ops = {
	.accept = app_accept,
	.connected = app_connected,
	.recv = app_recv,
	.eof = app_eof,
	.writable = app_writable,
	.closed = app_closed,
};

static struct rte_mbuf *
build_seg(const struct step *s, bool ts_on)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_tcp_hdr *th;
	uint8_t opt[40], *p = opt;
	unsigned int olen, i;
	uint8_t *d;

	assert_non_null(m);
	if (s->linux_opts) {
		/* Linux's SYN: MSS, SACK permitted, TS, NOP, WS (20 bytes). */
		uint32_t v = rte_cpu_to_be_32(
			s->tsval ? s->tsval : ++H.peer_ts);

		assert_true(s->mss && s->sackok && s->ts && s->ws && ts_on);
		*p++ = 2;
		*p++ = 4;
		*p++ = (uint8_t)(s->mss >> 8);
		*p++ = (uint8_t)s->mss;
		*p++ = 4;
		*p++ = 2;
		*p++ = 8;
		*p++ = 10;
		memcpy(p, &v, 4);
		memset(p + 4, 0, 4);
		p += 8;
		*p++ = 1;
		*p++ = 3;
		*p++ = 3;
		*p++ = (uint8_t)(s->ws - 1);
		goto opts_done;
	}
	if (s->mss) {
		*p++ = 2;
		*p++ = 4;
		*p++ = (uint8_t)(s->mss >> 8);
		*p++ = (uint8_t)s->mss;
	}
	if (s->sackok) {
		*p++ = 1;
		*p++ = 1;
		*p++ = 4;
		*p++ = 2;
	}
	if (s->ws) {
		*p++ = 1;
		*p++ = 3;
		*p++ = 3;
		*p++ = (uint8_t)(s->ws - 1);
	}
	if (ts_on) {
		uint32_t v = rte_cpu_to_be_32(
			s->tsval ? s->tsval : ++H.peer_ts);
		uint32_t e = rte_cpu_to_be_32(H.last_tsval);

		*p++ = 1;
		*p++ = 1;
		*p++ = 8;
		*p++ = 10;
		memcpy(p, &v, 4);
		memcpy(p + 4, &e, 4);
		p += 8;
	}
	if (s->nsack > 0) {
		*p++ = 1;
		*p++ = 1;
		*p++ = 5;
		*p++ = (uint8_t)(2 + 8 * s->nsack);
		for (i = 0; i < (unsigned int)s->nsack; i++) {
			uint32_t a = rte_cpu_to_be_32(
				H.iss + (uint32_t)s->sack[i][0]);
			uint32_t b = rte_cpu_to_be_32(
				H.iss + (uint32_t)s->sack[i][1]);

			memcpy(p, &a, 4);
			memcpy(p + 4, &b, 4);
			p += 8;
		}
	}
opts_done:
	olen = (unsigned int)(p - opt);
	th = (struct rte_tcp_hdr *)rte_pktmbuf_append(m,
		(uint16_t)(20 + olen + s->len));
	assert_non_null(th);
	memset(th, 0, 20);
	th->src_port = rte_cpu_to_be_16(s->sport ? s->sport : PPORT);
	th->dst_port = rte_cpu_to_be_16(s->dport ? s->dport : H.lport);
	th->sent_seq = rte_cpu_to_be_32(PISN + (uint32_t)s->seq);
	th->recv_ack = rte_cpu_to_be_32(
		(s->fl & F_ACK) ? H.iss + (uint32_t)s->ack : 0);
	th->data_off = (uint8_t)(((20 + olen) / 4) << 4);
	th->tcp_flags = s->fl;
	th->rx_win = rte_cpu_to_be_16(s->win == WIN0 ? 0 :
			s->win == 0                  ? 65535 :
						       (uint16_t)s->win);
	memcpy(th + 1, opt, olen);
	d = (uint8_t *)(th + 1) + olen;
	for (i = 0; i < s->len; i++)
		d[i] = (uint8_t)((uint32_t)s->seq + i);
	return m;
}

/* The peer's IPv6 address as a step gives it. */
static void
peer6(const struct step *s, uint8_t a[16])
{
	memcpy(a, PIP6, 16);
	if (s != NULL && s->paddr != 0)
		a[15] = s->paddr;
	if (s != NULL && s->pnet != 0)
		a[7] = s->pnet;
}

static void
input_seg6(struct rte_mbuf *m, bool cksum_good, const struct step *s)
{
	struct ewyk_net_ip6_info ip = {
		.port = 0,
		.proto = IPPROTO_TCP,
		.hop_limit = 64,
		.cksum_good = cksum_good,
		.l4_len = (uint16_t)m->pkt_len,
	};

	peer6(s, ip.src);
	memcpy(ip.dst, LIP6, 16);
	if (s != NULL && s->laddr != 0)
		ip.dst[15] = s->laddr;
	if (s != NULL && s->mcast6) {
		static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };

		memcpy(ip.dst, all_nodes, 16);
		ip.cksum_good = true;
	}
	ewyk_tcp_input6(H.t, m, &ip);
}

static void
input_seg(struct rte_mbuf *m, bool cksum_good, const struct step *s)
{
	struct ewyk_net_ip_info ip = {
		.src = PIP,
		.dst = LIP,
		.port = 0,
		.proto = IPPROTO_TCP,
		.ttl = 64,
		.cksum_good = cksum_good,
		.l4_len = (uint16_t)m->pkt_len,
	};

	if (H.v6) {
		input_seg6(m, cksum_good, s);
		return;
	}
	ewyk_tcp_input(H.t, m, &ip);
}

/* The segment's checksum with this family's pseudo-header (or the other's). */
static uint16_t
seg_cksum(struct rte_mbuf *m, bool other)
{
	if (H.v6 != other) {
		uint8_t l[16];

		memcpy(l, LIP6, 16);
		if (H.laddr != 0)
			l[15] = H.laddr;
		return ewyk_net_l4_cksum6(m, PIP6, l, IPPROTO_TCP);
	}
	return ewyk_net_l4_cksum(m, PIP, LIP, IPPROTO_TCP);
}

struct ewyk_tcp_conn *
h_lookup(uint16_t sport)
{
	if (H.v6)
		return ewyk_tcp_lookup6(H.t, LIP6, H.lport, PIP6, sport);
	return ewyk_tcp_lookup(H.t, LIP, H.lport, PIP, sport);
}

static void
check_out(const struct step *s, unsigned int idx)
{
	struct cap *c;

	if (H.rcap >= H.ncap)
		fail_msg("step %u: expected a segment, none sent", idx);
	c = &H.caps[H.rcap++];
	if (((s->fl & F_SYN) && H.rcap == 1) || s->learn)
		H.iss = c->seq - (uint32_t)s->seq;
	if (c->flags != s->fl)
		fail_msg("step %u: flags 0x%x, want 0x%x", idx, c->flags,
			s->fl);
	if (H.v6 && c->src6_last != (s->laddr != 0 ? s->laddr : LIP6[15]))
		fail_msg("step %u: from ...:%x, want ...:%x", idx, c->src6_last,
			s->laddr != 0 ? s->laddr : LIP6[15]);
	if (!s->any_seq && c->seq != H.iss + (uint32_t)s->seq)
		fail_msg("step %u: seq %d, want %d", idx, (int)(c->seq - H.iss),
			(int)s->seq);
	if (!s->any_ack && (s->fl & F_ACK) && c->ack != PISN + (uint32_t)s->ack)
		fail_msg("step %u: ack %d, want %d", idx, (int)(c->ack - PISN),
			(int)s->ack);
	if (c->len != s->len)
		fail_msg("step %u: len %u, want %u", idx, c->len, s->len);
	if (s->win == WIN0)
		assert_int_equal(c->wnd, 0);
	else if (s->win != 0)
		assert_int_equal(c->wnd, s->win);
	if (s->mss)
		assert_int_equal(c->mss, s->mss);
	if (s->ws)
		assert_int_equal(c->ws, s->ws - 1);
	if (s->sackok)
		assert_true(c->sackok);
	if (s->ts)
		assert_true(c->ts);
	if (s->plain)
		assert_true(c->ws < 0 && !c->sackok && !c->ts);
	if (s->noopt)
		assert_true(c->mss < 0 && c->ws < 0 && !c->sackok && !c->ts &&
			c->nsack == 0);
	if (s->nsack < 0)
		assert_int_equal(c->nsack, 0);
	if (s->nsack > 0) {
		assert_int_equal(c->nsack, s->nsack);
		for (int k = 0; k < s->nsack && s->sack[0][1] != 0; k++) {
			assert_int_equal(c->sack[k][0] - PISN,
				(uint32_t)s->sack[k][0]);
			assert_int_equal(c->sack[k][1] - PISN,
				(uint32_t)s->sack[k][1]);
		}
	}
}

static void
h_advance(void)
{
	uint64_t now = H.base + H.now_ms * rte_get_tsc_hz() / 1000;

	ewyk_tcp_advance(H.t, now);
	ewyk_twheel_advance(H.w, now, 0);
}

void
h_free(void)
{
	rte_pktmbuf_free(H.pend);
	H.pend = NULL;
	ewyk_tcp_free(H.t);
	H.t = NULL;
	ewyk_twheel_free(H.w);
	rte_free(H.w);
	H.w = NULL;
}

void
make_ctx(const struct script *sc)
{
	struct ewyk_tcp_conf cf;
	struct ewyk_twheel_params wp;

	memset(&cf, 0, sizeof(cf));
	cf.output = cap_output;
	cf.output6 = cap_output6;
	cf.tx_room = cap_tx_room;
	cf.mss = sc->mss != 0 ? sc->mss : sc->v6 ? 1480 : 1460;
	cf.max_conns_per_net6 = sc->per_net6;
	cf.tx_pool = mp;
	cf.socket_id = SOCKET_ID_ANY;
	cf.max_conns = sc->max_conns != 0 ? sc->max_conns : 64;
	cf.no_delack = !sc->delack;
	cf.no_quickack = true;
	cf.time_wait_ms = 1000;
	cf.fin_wait2_ms = 2000;
	cf.rcv_buf = sc->rcv_buf;
	cf.snd_buf = sc->snd_buf;
	cf.max_time_wait = sc->max_tw;
	cf.challenge_ack_limit = sc->chack;
	/* Unlimited unless a script tests the limit: scripts answer every
	 * segment at once. */
	cf.oow_ratelimit_ms = sc->oow_ms != 0 ? sc->oow_ms : UINT32_MAX;
	cf.idle_timeout_ms = sc->idle_ms;
	cf.orphan_timeout_ms = sc->orphan_ms;
	cf.persist_max_ms = sc->persist_ms;
	cf.max_conns_per_src = sc->per_src;
	cf.rst_limit = sc->rst_limit;
	cf.mbuf_budget = sc->mbuf_budget;
	cf.conn_mbuf_max = sc->conn_mbufs;
	cf.max_retries = 4;
	cf.syn_retries = 2;
	cf.no_syncookies = sc->nocookies;
	cf.keepalive_ms = sc->keepalive_ms;
	cf.keepalive_intvl_ms = 1000;
	cf.keepalive_probes = 2;
	cf.secret = 42;
	/*
	 * The scripts time timers to the millisecond: they bring a wheel of
	 * their own without slack (the shared-wheel way of running TCP), and
	 * advance it after the context's clock.
	 */
	memset(&wp, 0, sizeof(wp));
	wp.socket_id = SOCKET_ID_ANY;
	wp.slack_shift = EWYK_TWHEEL_SLACK_EXACT;
	H.w = rte_zmalloc("test_tcp_wheel", sizeof(*H.w), RTE_CACHE_LINE_SIZE);
	assert_non_null(H.w);
	assert_int_equal(ewyk_twheel_init(H.w, &wp), 0);
	cf.wheel = H.w;
	H.t = ewyk_tcp_create(&cf);
	assert_non_null(H.t);
	H.base = rte_rdtsc() + rte_get_tsc_hz();
	H.now_ms = 0;
	h_advance();
	if (sc->listen6 != 0) {
		uint8_t a[16];

		memcpy(a, LIP6, 16);
		a[15] = sc->listen6;
		assert_int_equal(ewyk_tcp_listen6(H.t, a, LPORT, &app_ops, NULL,
					 sc->backlog),
			0);
		return;
	}
	assert_int_equal(ewyk_tcp_listen(H.t, 0, LPORT, &app_ops, NULL,
				 sc->backlog),
		0);
}

static void
bad_input(int kind)
{
	static const struct step base = IN(F_ACK | F_PSH, 1, 1, .len = 10);
	struct rte_mbuf *m = build_seg(&base, false);
	struct rte_tcp_hdr *th = rte_pktmbuf_mtod(m, struct rte_tcp_hdr *);
	uint8_t *o = (uint8_t *)(th + 1);
	bool sw_cksum = false;

	switch (kind) {
	case BAD_CKSUM:
		th->cksum = 0;
		th->cksum = (uint16_t)(seg_cksum(m, false) ^ 0x0101);
		sw_cksum = true;
		break;
	case BAD_GOOD_CKSUM:
		th->cksum = 0;
		th->cksum = seg_cksum(m, false);
		sw_cksum = true;
		break;
	case BAD_CKSUM_FAMILY:
		th->cksum = 0;
		th->cksum = seg_cksum(m, true);
		sw_cksum = true;
		break;
	case BAD_DOFF_SMALL:
		th->data_off = 4 << 4;
		break;
	case BAD_DOFF_BEYOND:
		th->data_off = 15 << 4;
		break;
	/* The 10 payload bytes become 8 bytes of options (doff 7) + 2. */
	case BAD_OPT_OVERLONG:
		th->data_off = 7 << 4;
		memcpy(o, (const uint8_t[]){ 1, 1, 8, 10, 0, 0, 0, 1 }, 8);
		break;
	case BAD_OPT_ZERO_LEN:
		th->data_off = 7 << 4;
		memcpy(o, (const uint8_t[]){ 30, 0, 1, 1, 1, 1, 1, 1 }, 8);
		break;
	case BAD_OPT_MSS_LEN:
		th->data_off = 7 << 4;
		memcpy(o, (const uint8_t[]){ 2, 3, 5, 1, 1, 1, 1, 1 }, 8);
		break;
	case BAD_OPT_SACK_LEN:
		th->data_off = 7 << 4;
		memcpy(o, (const uint8_t[]){ 5, 7, 0, 0, 0, 1, 0, 0 }, 8);
		break;
	case BAD_OPT_NO_LEN:
		th->data_off = 7 << 4;
		memcpy(o, (const uint8_t[]){ 1, 1, 1, 1, 1, 1, 1, 2 }, 8);
		break;
	case BAD_SYN_FIN:
		th->tcp_flags = F_SYN | F_FIN;
		break;
	case BAD_SYN_RST:
		th->tcp_flags = F_SYN | F_RST | F_ACK;
		break;
	case BAD_RST_FIN:
		th->tcp_flags = F_RST | F_FIN | F_ACK;
		break;
	case BAD_NO_FLAGS:
		th->tcp_flags = 0;
		break;
	case BAD_FIN_ONLY:
		th->tcp_flags = F_FIN;
		break;
	case BAD_PSH_URG_ONLY:
		th->tcp_flags = F_PSH | RTE_TCP_URG_FLAG;
		break;
	case BAD_SPORT_ZERO:
		th->src_port = 0;
		break;
	case BAD_DPORT_ZERO:
		th->dst_port = 0;
		break;
	case BAD_SHORT:
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - 12));
		break;
	default:
		fail();
	}
	input_seg(m, !sw_cksum, NULL);
}

void
script_begin(const struct script *sc)
{
	unsigned int i;

	memset(&H, 0, sizeof(H));
	H.peer_ts = 1000;
	H.lport = LPORT;
	H.refuse = sc->refuse;
	H.hold = sc->hold;
	H.echo = sc->echo;
	H.close_on_eof = sc->close_on_eof;
	H.v6 = sc->v6;
	make_ctx(sc);
	for (i = 0; i < EWYK_TCP_COUNTER_MAX; i++)
		H.ctr0[i] = ewyk_tcp_counter_get(H.t, (enum ewyk_tcp_counter)i);
}

void
run_script(const struct script *sc)
{
	script_begin(sc);
	run_steps(sc->steps);
	if (H.rcap != H.ncap)
		fail_msg(
			"%s: %u unexpected segment(s), first flags 0x%x seq %d",
			sc->name, H.ncap - H.rcap, H.caps[H.rcap].flags,
			(int)(H.caps[H.rcap].seq - H.iss));
	if (H.rev != H.nev)
		fail_msg("%s: unexpected event %d/%d", sc->name,
			H.evs[H.rev].type, H.evs[H.rev].val);
	h_free();
}

void
run_steps(const struct step *steps)
{
	const struct step *s;
	unsigned int i;
	bool ts_on = H.ts_on, ts_set = H.ts_set;

	for (i = 0, s = steps; s->op != OP_END; s++, i++) {
		switch (s->op) {
		case OP_IN:
			if (s->fl & F_SYN)
				H.peer_mss = s->mss ? (uint32_t)s->mss : 536;
			if ((s->fl & F_SYN) && !ts_set) {
				ts_on = s->ts;
				ts_set = true;
			}
			H.laddr = s->laddr;
			input_seg(build_seg(s,
					  s->ts ||
						  (ts_on && !(s->fl & F_SYN) &&
							  !(s->fl & F_RST) &&
							  !s->nots)),
				true, s);
			break;
		case OP_OUT:
			check_out(s, i);
			break;
		case OP_NOOUT:
			if (H.rcap != H.ncap)
				fail_msg(
					"step %u: unexpected segment flags 0x%x seq %d",
					i, H.caps[H.rcap].flags,
					(int)(H.caps[H.rcap].seq - H.iss));
			break;
		case OP_WAIT:
			H.now_ms += s->ms;
			h_advance();
			break;
		case OP_STATE:
			if (h_lookup(s->sport ? s->sport : PPORT) == NULL)
				fail_msg("step %u: no connection", i);
			if (ewyk_tcp_conn_state(h_lookup(
				    s->sport ? s->sport : PPORT)) != s->state)
				fail_msg("step %u: state %s, want %s", i,
					ewyk_tcp_state_name(ewyk_tcp_conn_state(
						h_lookup(s->sport ? s->sport :
								    PPORT))),
					ewyk_tcp_state_name(s->state));
			break;
		case OP_GONE:
			if (h_lookup(PPORT) != NULL)
				fail_msg("step %u: connection still there", i);
			break;
		case OP_EV:
			if (H.rev >= H.nev)
				fail_msg("step %u: expected event %d, none", i,
					s->ev);
			if (H.evs[H.rev].type != s->ev ||
				H.evs[H.rev].val != s->val)
				fail_msg("step %u: event %d/%d, want %d/%d", i,
					H.evs[H.rev].type, H.evs[H.rev].val,
					s->ev, s->val);
			H.rev++;
			break;
		case OP_CTR: {
			uint64_t v = ewyk_tcp_counter_get(H.t, s->ctr) -
				H.ctr0[s->ctr];

			if (v != (uint64_t)s->val)
				fail_msg("step %u: counter %s = %" PRIu64
					 ", want %d",
					i, ewyk_tcp_counter_name(s->ctr), v,
					s->val);
			break;
		}
		case OP_SEND:
		case OP_SENDX: {
			struct rte_mbuf *m = NULL;
			uint32_t k = 0;

			assert_non_null(H.conn);
			while (k < s->len) {
				struct rte_mbuf *sg = rte_pktmbuf_alloc(mp);
				uint16_t n = (uint16_t)RTE_MIN(s->len - k,
					2000u);
				uint8_t *d = (uint8_t *)rte_pktmbuf_append(sg,
					n);

				assert_non_null(d);
				for (uint16_t j = 0; j < n; j++, k++)
					d[j] = (uint8_t)k;
				if (m == NULL)
					m = sg;
				else
					assert_int_equal(rte_pktmbuf_chain(m,
								 sg),
						0);
			}
			if (s->op == OP_SEND) {
				assert_int_equal(ewyk_tcp_send(H.conn, m), 0);
			} else {
				assert_int_equal(ewyk_tcp_send(H.conn, m),
					-EAGAIN);
				rte_pktmbuf_free(m);
			}
			break;
		}
		case OP_CLOSE:
			ewyk_tcp_close(H.conn);
			H.conn = NULL;
			break;
		case OP_SHUT:
			assert_int_equal(ewyk_tcp_shutdown(H.conn), 0);
			break;
		case OP_ABORT:
			ewyk_tcp_abort(H.conn);
			H.conn = NULL;
			break;
		case OP_RECVD:
			ewyk_tcp_recvd(H.conn, s->len);
			break;
		case OP_CONNECT: {
			struct ewyk_tcp_connect_args a = {
				.dst_ip = PIP,
				.dst_port = PPORT,
				.src_ip = LIP,
				.src_port = LPORT + 1000,
				.ops = &app_ops,
				.ipv6 = H.v6,
			};

			memcpy(a.dst_ip6, PIP6, 16);
			memcpy(a.src_ip6, LIP6, 16);
			H.lport = LPORT + 1000;
			H.conn = ewyk_tcp_connect(H.t, &a);
			assert_non_null(H.conn);
			break;
		}
		case OP_BAD:
			bad_input(s->val);
			break;
		case OP_END:
			break;
		}
		H.ts_on = ts_on;
		H.ts_set = ts_set;
	}
}
