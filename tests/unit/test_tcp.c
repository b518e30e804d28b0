/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/tcp unit tests. The endpoint is driven without lib/net's datapath:
 * crafted segments go in through ewyk_tcp_input(), and what it sends is
 * caught by an output hook. Most tests are scripts: each step is a
 * segment in, a segment expected out (flags, sequence numbers relative to
 * the ISNs, length, window, options), an application call, an event
 * expected by the application, a jump of the clock or a counter check.
 * Then come bad input and a loopback transfer between two endpoints over
 * a lossy, reordering "wire".
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
#include <rte_random.h>
#include <rte_tcp.h>

#include "ewyk_tcp.h"
#include "ewyk_twheel.h"
#include "test_common.h"

#define LIP RTE_BE32(RTE_IPV4(10, 0, 0, 1))
#define PIP RTE_BE32(RTE_IPV4(10, 0, 0, 2))
#define LPORT 80
#define PPORT 40000
#define PISN 1000000u              /* the peer's ISN */
#define MAXCAP 256
#define MAXEV 64

#define F_FIN RTE_TCP_FIN_FLAG
#define F_SYN RTE_TCP_SYN_FLAG
#define F_RST RTE_TCP_RST_FLAG
#define F_PSH RTE_TCP_PSH_FLAG
#define F_ACK RTE_TCP_ACK_FLAG

static struct rte_mempool *mp;

/* ---- what the endpoint sent ---- */
struct cap {
	uint8_t flags;
	uint32_t seq, ack, len;
	uint16_t wnd, sport, dport;
	int mss, ws;                    /* -1: absent */
	bool sackok, ts;
	uint32_t tsval, tsecr;
	int nsack;
	uint32_t sack[4][2];
	uint8_t data[2048];
};

enum ev_type { EV_NONE, EV_ACCEPT, EV_CONNECTED, EV_RECV, EV_EOF, EV_WRITABLE, EV_CLOSED };
struct ev {
	enum ev_type type;
	int val;
};

static struct {
	struct ewyk_tcp *t;
	struct ewyk_twheel *w;          /* shared wheel, exact (no slack) */
	uint64_t base, now_ms;
	struct cap caps[MAXCAP];
	unsigned int ncap, rcap;
	struct ev evs[MAXEV];
	unsigned int nev, rev;
	struct ewyk_tcp_conn *conn;     /* the application's handle */
	uint32_t iss;                   /* ours, learnt from the first SYN out */
	uint16_t lport;                 /* our port in this conversation */
	uint32_t last_tsval;            /* last TSval we sent */
	uint32_t peer_ts;
	uint32_t peer_mss;              /* announced in the peer's SYN */
	bool refuse, hold, close_on_eof;
	uint64_t ctr0[EWYK_TCP_COUNTER_MAX];
} H;

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
		case 2: c->mss = (p[i + 2] << 8) | p[i + 3]; break;
		case 3: c->ws = p[i + 2]; break;
		case 4: c->sackok = true; break;
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

static int
cap_output(void *arg, struct rte_mbuf *m, uint16_t port, rte_be32_t src,
		rte_be32_t dst)
{
	uint8_t hdr[60];
	const struct rte_tcp_hdr *th;
	struct cap *c;
	unsigned int hlen;

	RTE_SET_USED(arg);
	assert_int_equal(port, 0);
	assert_true(src == LIP && dst == PIP);
	assert_true(H.ncap < MAXCAP);
	c = &H.caps[H.ncap++];
	memset(c, 0, sizeof(*c));
	th = rte_pktmbuf_read(m, 0, 20, hdr);
	hlen = (th->data_off >> 4) * 4;
	assert_true(hlen >= 20 && hlen <= m->pkt_len);
	assert_true(rte_pktmbuf_headroom(m) >= 38);
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

static void
app_recv(void *ctx, struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	RTE_SET_USED(ctx);
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

static const struct ewyk_tcp_ops app_ops = {
	.accept = app_accept,
	.connected = app_connected,
	.recv = app_recv,
	.eof = app_eof,
	.writable = app_writable,
	.closed = app_closed,
};

/* ---- scripts ---- */
enum op {
	OP_END, OP_IN, OP_OUT, OP_NOOUT, OP_WAIT, OP_STATE, OP_GONE, OP_EV,
	OP_CTR, OP_SEND, OP_CLOSE, OP_SHUT, OP_ABORT, OP_CONNECT, OP_RECVD,
	OP_SENDX, OP_BAD,
};

#define WS(n) ((n) + 1)
#define WIN0 0x10000

struct step {
	enum op op;
	uint8_t fl;
	int64_t seq, ack;       /* IN: peer-relative seq, our-relative ack; OUT: reverse */
	uint32_t len;           /* payload bytes */
	uint32_t win;           /* window field (0: 65535 in, unchecked out; WIN0: zero) */
	int mss, ws;            /* options (0: none / unchecked) */
	bool sackok, ts, noopt, any_ack, plain, learn, any_seq;
	uint32_t tsval;         /* IN: explicit TSval (0: next of the peer's clock) */
	int nsack;              /* IN: blocks given; OUT: blocks expected (-1: none) */
	int64_t sack[4][2];     /* relative to the receiver's view */
	uint16_t sport, dport;  /* 0: the defaults */
	uint64_t ms;            /* WAIT */
	enum ewyk_tcp_state state;
	enum ev_type ev;
	int val;                /* EV: value; CTR: expected delta */
	enum ewyk_tcp_counter ctr;
};

#define IN(f, s, a, ...) { .op = OP_IN, .fl = (f), .seq = (s), .ack = (a), __VA_ARGS__ }
#define OUT(f, s, a, ...) { .op = OP_OUT, .fl = (f), .seq = (s), .ack = (a), __VA_ARGS__ }
#define NOOUT { .op = OP_NOOUT }
#define WAIT(m) { .op = OP_WAIT, .ms = (m) }
#define STATE(s) { .op = OP_STATE, .state = (s) }
#define STATEP(s, p) { .op = OP_STATE, .state = (s), .sport = (p) }
#define GONE { .op = OP_GONE }
#define EV(e, v) { .op = OP_EV, .ev = (e), .val = (v) }
#define CTR(c, v) { .op = OP_CTR, .ctr = (c), .val = (v) }
#define SEND(n) { .op = OP_SEND, .len = (n) }
#define SENDX(n) { .op = OP_SENDX, .len = (n) }
#define BAD(k) { .op = OP_BAD, .val = (k) }
#define CLOSE { .op = OP_CLOSE }
#define SHUT { .op = OP_SHUT }
#define ABORT { .op = OP_ABORT }
#define CONNECT { .op = OP_CONNECT }
#define RECVD(n) { .op = OP_RECVD, .len = (n) }
#define END { .op = OP_END }

/* The usual handshakes (peer offers MSS 1460, wscale 7, SACK, timestamps). */
#define PASSIVE_OPEN \
	IN(F_SYN, 0, 0, .mss = 1460, .ws = WS(7), .sackok = true, .ts = true), \
	OUT(F_SYN | F_ACK, 0, 1, .mss = 1460, .ws = WS(3), .sackok = true, .ts = true), \
	IN(F_ACK, 1, 1, .ts = true), \
	EV(EV_ACCEPT, 0), STATE(EWYK_TCP_ESTABLISHED)
#define PASSIVE_OPEN_PLAIN \
	IN(F_SYN, 0, 0, .mss = 1460), \
	OUT(F_SYN | F_ACK, 0, 1, .mss = 1460), \
	IN(F_ACK, 1, 1), \
	EV(EV_ACCEPT, 0), STATE(EWYK_TCP_ESTABLISHED)

struct script {
	const char *name;
	bool delack, refuse, hold, close_on_eof, nocookies;
	uint32_t rcv_buf, snd_buf, backlog, keepalive_ms, max_tw, chack;
	const struct step *steps;
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
	if (s->mss) {
		*p++ = 2; *p++ = 4; *p++ = (uint8_t)(s->mss >> 8); *p++ = (uint8_t)s->mss;
	}
	if (s->sackok) {
		*p++ = 1; *p++ = 1; *p++ = 4; *p++ = 2;
	}
	if (s->ws) {
		*p++ = 1; *p++ = 3; *p++ = 3; *p++ = (uint8_t)(s->ws - 1);
	}
	if (ts_on) {
		uint32_t v = rte_cpu_to_be_32(s->tsval ? s->tsval : ++H.peer_ts);
		uint32_t e = rte_cpu_to_be_32(H.last_tsval);

		*p++ = 1; *p++ = 1; *p++ = 8; *p++ = 10;
		memcpy(p, &v, 4);
		memcpy(p + 4, &e, 4);
		p += 8;
	}
	if (s->nsack > 0) {
		*p++ = 1; *p++ = 1; *p++ = 5; *p++ = (uint8_t)(2 + 8 * s->nsack);
		for (i = 0; i < (unsigned int)s->nsack; i++) {
			uint32_t a = rte_cpu_to_be_32(H.iss + (uint32_t)s->sack[i][0]);
			uint32_t b = rte_cpu_to_be_32(H.iss + (uint32_t)s->sack[i][1]);

			memcpy(p, &a, 4);
			memcpy(p + 4, &b, 4);
			p += 8;
		}
	}
	olen = (unsigned int)(p - opt);
	th = (struct rte_tcp_hdr *)rte_pktmbuf_append(m, (uint16_t)(20 + olen + s->len));
	assert_non_null(th);
	memset(th, 0, 20);
	th->src_port = rte_cpu_to_be_16(s->sport ? s->sport : PPORT);
	th->dst_port = rte_cpu_to_be_16(s->dport ? s->dport : H.lport);
	th->sent_seq = rte_cpu_to_be_32(PISN + (uint32_t)s->seq);
	th->recv_ack = rte_cpu_to_be_32((s->fl & F_ACK) ? H.iss + (uint32_t)s->ack : 0);
	th->data_off = (uint8_t)(((20 + olen) / 4) << 4);
	th->tcp_flags = s->fl;
	th->rx_win = rte_cpu_to_be_16(s->win == WIN0 ? 0 :
			s->win == 0 ? 65535 : (uint16_t)s->win);
	memcpy(th + 1, opt, olen);
	d = (uint8_t *)(th + 1) + olen;
	for (i = 0; i < s->len; i++)
		d[i] = (uint8_t)((uint32_t)s->seq + i);
	return m;
}

static void
input_seg(struct rte_mbuf *m, bool cksum_good)
{
	struct ewyk_net_ip_info ip = {
		.src = PIP, .dst = LIP, .port = 0, .proto = IPPROTO_TCP,
		.ttl = 64, .cksum_good = cksum_good,
		.l4_len = (uint16_t)m->pkt_len,
	};

	ewyk_tcp_input(H.t, m, &ip);
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
		fail_msg("step %u: flags 0x%x, want 0x%x", idx, c->flags, s->fl);
	if (!s->any_seq && c->seq != H.iss + (uint32_t)s->seq)
		fail_msg("step %u: seq %d, want %d", idx,
				(int)(c->seq - H.iss), (int)s->seq);
	if (!s->any_ack && (s->fl & F_ACK) && c->ack != PISN + (uint32_t)s->ack)
		fail_msg("step %u: ack %d, want %d", idx,
				(int)(c->ack - PISN), (int)s->ack);
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
			assert_int_equal(c->sack[k][0] - PISN, (uint32_t)s->sack[k][0]);
			assert_int_equal(c->sack[k][1] - PISN, (uint32_t)s->sack[k][1]);
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

static void
h_free(void)
{
	ewyk_tcp_free(H.t);
	H.t = NULL;
	ewyk_twheel_free(H.w);
	rte_free(H.w);
	H.w = NULL;
}

static void
make_ctx(const struct script *sc)
{
	struct ewyk_tcp_conf cf;
	struct ewyk_twheel_params wp;

	memset(&cf, 0, sizeof(cf));
	cf.output = cap_output;
	cf.tx_pool = mp;
	cf.socket_id = SOCKET_ID_ANY;
	cf.max_conns = 64;
	cf.no_delack = !sc->delack;
	cf.no_quickack = true;
	cf.time_wait_ms = 1000;
	cf.fin_wait2_ms = 2000;
	cf.rcv_buf = sc->rcv_buf;
	cf.snd_buf = sc->snd_buf;
	cf.max_time_wait = sc->max_tw;
	cf.challenge_ack_limit = sc->chack;
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
	assert_int_equal(ewyk_tcp_listen(H.t, 0, LPORT, &app_ops, NULL,
			sc->backlog), 0);
}

/*
 * Bad input: a valid data segment (seq 1, ack 1, 10 bytes) spoilt in one
 * way. Each kind must be dropped and counted under its reason.
 */
enum bad_kind {
	BAD_CKSUM = 1, BAD_DOFF_SMALL, BAD_DOFF_BEYOND, BAD_OPT_OVERLONG,
	BAD_OPT_ZERO_LEN, BAD_OPT_MSS_LEN, BAD_OPT_SACK_LEN, BAD_OPT_NO_LEN,
	BAD_SYN_FIN, BAD_SYN_RST, BAD_RST_FIN, BAD_NO_FLAGS, BAD_FIN_ONLY,
	BAD_PSH_URG_ONLY, BAD_SPORT_ZERO, BAD_DPORT_ZERO, BAD_SHORT,
	BAD_GOOD_CKSUM,         /* control: a correct checksum checked in software */
};

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
		th->cksum = (uint16_t)(ewyk_net_l4_cksum(m, PIP, LIP, IPPROTO_TCP) ^ 0x0101);
		sw_cksum = true;
		break;
	case BAD_GOOD_CKSUM:
		th->cksum = 0;
		th->cksum = ewyk_net_l4_cksum(m, PIP, LIP, IPPROTO_TCP);
		sw_cksum = true;
		break;
	case BAD_DOFF_SMALL: th->data_off = 4 << 4; break;
	case BAD_DOFF_BEYOND: th->data_off = 15 << 4; break;
	/* The 10 payload bytes become 8 bytes of options (doff 7) + 2. */
	case BAD_OPT_OVERLONG:
		th->data_off = 7 << 4;
		memcpy(o, (const uint8_t[]){1, 1, 8, 10, 0, 0, 0, 1}, 8);
		break;
	case BAD_OPT_ZERO_LEN:
		th->data_off = 7 << 4;
		memcpy(o, (const uint8_t[]){30, 0, 1, 1, 1, 1, 1, 1}, 8);
		break;
	case BAD_OPT_MSS_LEN:
		th->data_off = 7 << 4;
		memcpy(o, (const uint8_t[]){2, 3, 5, 1, 1, 1, 1, 1}, 8);
		break;
	case BAD_OPT_SACK_LEN:
		th->data_off = 7 << 4;
		memcpy(o, (const uint8_t[]){5, 7, 0, 0, 0, 1, 0, 0}, 8);
		break;
	case BAD_OPT_NO_LEN:
		th->data_off = 7 << 4;
		memcpy(o, (const uint8_t[]){1, 1, 1, 1, 1, 1, 1, 2}, 8);
		break;
	case BAD_SYN_FIN: th->tcp_flags = F_SYN | F_FIN; break;
	case BAD_SYN_RST: th->tcp_flags = F_SYN | F_RST | F_ACK; break;
	case BAD_RST_FIN: th->tcp_flags = F_RST | F_FIN | F_ACK; break;
	case BAD_NO_FLAGS: th->tcp_flags = 0; break;
	case BAD_FIN_ONLY: th->tcp_flags = F_FIN; break;
	case BAD_PSH_URG_ONLY: th->tcp_flags = F_PSH | RTE_TCP_URG_FLAG; break;
	case BAD_SPORT_ZERO: th->src_port = 0; break;
	case BAD_DPORT_ZERO: th->dst_port = 0; break;
	case BAD_SHORT: rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - 12)); break;
	default: fail();
	}
	input_seg(m, !sw_cksum);
}

static void
run_script(const struct script *sc)
{
	const struct step *s;
	unsigned int i;
	bool ts_on = false, ts_set = false;

	memset(&H, 0, sizeof(H));
	H.peer_ts = 1000;
	H.lport = LPORT;
	H.refuse = sc->refuse;
	H.hold = sc->hold;
	H.close_on_eof = sc->close_on_eof;
	make_ctx(sc);
	for (i = 0; i < EWYK_TCP_COUNTER_MAX; i++)
		H.ctr0[i] = ewyk_tcp_counter_get(H.t, (enum ewyk_tcp_counter)i);
	for (i = 0, s = sc->steps; s->op != OP_END; s++, i++) {
		switch (s->op) {
		case OP_IN:
			if (s->fl & F_SYN)
				H.peer_mss = s->mss ? (uint32_t)s->mss : 536;
			if ((s->fl & F_SYN) && !ts_set) {
				ts_on = s->ts;
				ts_set = true;
			}
			input_seg(build_seg(s, s->ts || (ts_on && !(s->fl & F_SYN) &&
					!(s->fl & F_RST))), true);
			break;
		case OP_OUT:
			check_out(s, i);
			break;
		case OP_NOOUT:
			if (H.rcap != H.ncap)
				fail_msg("step %u: unexpected segment flags 0x%x seq %d",
						i, H.caps[H.rcap].flags,
						(int)(H.caps[H.rcap].seq - H.iss));
			break;
		case OP_WAIT:
			H.now_ms += s->ms;
			h_advance();
			break;
		case OP_STATE:
			if (ewyk_tcp_lookup(H.t, LIP, H.lport, PIP,
					s->sport ? s->sport : PPORT) == NULL)
				fail_msg("step %u: no connection", i);
			if (ewyk_tcp_conn_state(ewyk_tcp_lookup(H.t, LIP, H.lport,
					PIP, s->sport ? s->sport : PPORT)) != s->state)
				fail_msg("step %u: state %s, want %s", i,
						ewyk_tcp_state_name(ewyk_tcp_conn_state(
						ewyk_tcp_lookup(H.t, LIP, H.lport, PIP,
						s->sport ? s->sport : PPORT))),
						ewyk_tcp_state_name(s->state));
			break;
		case OP_GONE:
			if (ewyk_tcp_lookup(H.t, LIP, H.lport, PIP, PPORT) != NULL)
				fail_msg("step %u: connection still there", i);
			break;
		case OP_EV:
			if (H.rev >= H.nev)
				fail_msg("step %u: expected event %d, none", i, s->ev);
			if (H.evs[H.rev].type != s->ev || H.evs[H.rev].val != s->val)
				fail_msg("step %u: event %d/%d, want %d/%d", i,
						H.evs[H.rev].type, H.evs[H.rev].val,
						s->ev, s->val);
			H.rev++;
			break;
		case OP_CTR: {
			uint64_t v = ewyk_tcp_counter_get(H.t, s->ctr) - H.ctr0[s->ctr];

			if (v != (uint64_t)s->val)
				fail_msg("step %u: counter %s = %" PRIu64 ", want %d", i,
						ewyk_tcp_counter_name(s->ctr), v, s->val);
			break;
		}
		case OP_SEND:
		case OP_SENDX: {
			struct rte_mbuf *m = NULL;
			uint32_t k = 0;

			assert_non_null(H.conn);
			while (k < s->len) {
				struct rte_mbuf *sg = rte_pktmbuf_alloc(mp);
				uint16_t n = (uint16_t)RTE_MIN(s->len - k, 2000u);
				uint8_t *d = (uint8_t *)rte_pktmbuf_append(sg, n);

				assert_non_null(d);
				for (uint16_t j = 0; j < n; j++, k++)
					d[j] = (uint8_t)k;
				if (m == NULL)
					m = sg;
				else
					assert_int_equal(rte_pktmbuf_chain(m, sg), 0);
			}
			if (s->op == OP_SEND) {
				assert_int_equal(ewyk_tcp_send(H.conn, m), 0);
			} else {
				assert_int_equal(ewyk_tcp_send(H.conn, m), -EAGAIN);
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
				.dst_ip = PIP, .dst_port = PPORT, .src_ip = LIP,
				.src_port = LPORT + 1000, .ops = &app_ops,
			};

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
	}
	if (H.rcap != H.ncap)
		fail_msg("%s: %u unexpected segment(s), first flags 0x%x seq %d",
				sc->name, H.ncap - H.rcap, H.caps[H.rcap].flags,
				(int)(H.caps[H.rcap].seq - H.iss));
	if (H.rev != H.nev)
		fail_msg("%s: unexpected event %d/%d", sc->name,
				H.evs[H.rev].type, H.evs[H.rev].val);
	h_free();
}


/* ---- the scripts ---- */
#define ES EWYK_TCP_ESTABLISHED

static const struct step s_passive_data_close[] = {
	PASSIVE_OPEN,
	IN(F_ACK | F_PSH, 1, 1, .len = 100), EV(EV_RECV, 100),
	OUT(F_ACK, 1, 101, .ts = true, .win = 32768, .nsack = -1),
	SEND(50), OUT(F_ACK | F_PSH, 1, 101, .len = 50),
	IN(F_ACK, 101, 51), NOOUT,
	IN(F_FIN | F_ACK, 101, 51), OUT(F_ACK, 51, 102), EV(EV_EOF, 0),
	STATE(EWYK_TCP_CLOSE_WAIT),
	CLOSE, OUT(F_FIN | F_ACK, 51, 102), STATE(EWYK_TCP_LAST_ACK),
	IN(F_ACK, 102, 52), GONE, CTR(EWYK_TCP_CONN_CLOSED, 1),
	CTR(EWYK_TCP_BYTES_IN, 100), CTR(EWYK_TCP_BYTES_OUT, 50), END
};

static const struct step s_passive_plain[] = {
	IN(F_SYN, 0, 0), OUT(F_SYN | F_ACK, 0, 1, .mss = 1460, .plain = true),
	IN(F_ACK, 1, 1), EV(EV_ACCEPT, 0), STATE(ES),
	IN(F_ACK, 1, 1, .len = 700), EV(EV_RECV, 700),
	OUT(F_ACK, 1, 701, .noopt = true, .win = 65535),
	/* No MSS option: 536 bytes per segment (RFC 9293 3.7.1). */
	SEND(1000), OUT(F_ACK, 1, 701, .len = 536), OUT(F_ACK | F_PSH, 537, 701, .len = 464),
	END
};

static const struct step s_active_open[] = {
	CONNECT,
	OUT(F_SYN, 0, 0, .mss = 1460, .ws = WS(3), .sackok = true, .ts = true),
	STATE(EWYK_TCP_SYN_SENT),
	IN(F_SYN | F_ACK, 0, 1, .mss = 1400, .ws = WS(2), .sackok = true, .ts = true),
	OUT(F_ACK, 1, 1, .ts = true), EV(EV_CONNECTED, 0), STATE(ES),
	SEND(2000),
	OUT(F_ACK, 1, 1, .len = 1388), OUT(F_ACK | F_PSH, 1389, 1, .len = 612),
	IN(F_ACK, 1, 2001), NOOUT,
	ABORT, OUT(F_RST | F_ACK, 2001, 1), GONE, CTR(EWYK_TCP_CONN_ABORTED, 1),
	END
};

static const struct step s_active_refused[] = {
	CONNECT, OUT(F_SYN, 0, 0),
	IN(F_RST | F_ACK, 0, 1), EV(EV_CONNECTED, -ECONNREFUSED), GONE,
	CTR(EWYK_TCP_RST_IN, 1), END
};

static const struct step s_syn_sent_corners[] = {
	CONNECT, OUT(F_SYN, 0, 0),
	IN(F_RST, 0, 0), NOOUT, CTR(EWYK_TCP_DROP_RST, 1),
	IN(F_RST | F_ACK, 0, 5), NOOUT, CTR(EWYK_TCP_DROP_BAD_ACK, 1),
	IN(F_ACK, 0, 5), OUT(F_RST, 5, 0), CTR(EWYK_TCP_DROP_BAD_ACK, 2),
	IN(F_ACK, 0, 0), OUT(F_RST, 0, 0), CTR(EWYK_TCP_DROP_BAD_ACK, 3),
	IN(F_ACK, 0, 1), NOOUT, CTR(EWYK_TCP_DROP_STATE, 1),
	STATE(EWYK_TCP_SYN_SENT),
	WAIT(1001), OUT(F_SYN, 0, 0), WAIT(2001), OUT(F_SYN, 0, 0),
	CTR(EWYK_TCP_SYN_RETRANS, 2),
	WAIT(4001), EV(EV_CONNECTED, -ETIMEDOUT), GONE, END
};

static const struct step s_simultaneous_open[] = {
	CONNECT, OUT(F_SYN, 0, 0),
	IN(F_SYN, 0, 0, .mss = 1460, .ts = true, .sackok = true, .ws = WS(7)),
	OUT(F_SYN | F_ACK, 0, 1, .ts = true, .sackok = true, .ws = WS(3)),
	STATE(EWYK_TCP_SYN_RECEIVED),
	IN(F_SYN | F_ACK, 0, 1, .mss = 1460, .ts = true, .sackok = true, .ws = WS(7)),
	OUT(F_ACK, 1, 1), EV(EV_CONNECTED, 0), STATE(ES),
	SEND(10), OUT(F_ACK | F_PSH, 1, 1, .len = 10), END
};

static const struct step s_simultaneous_close[] = {
	PASSIVE_OPEN,
	CLOSE, OUT(F_FIN | F_ACK, 1, 1), STATE(EWYK_TCP_FIN_WAIT_1),
	IN(F_FIN | F_ACK, 1, 1), OUT(F_ACK, 2, 2), STATE(EWYK_TCP_CLOSING),
	IN(F_ACK, 2, 2), STATE(EWYK_TCP_TIME_WAIT), NOOUT,
	WAIT(1001), GONE, CTR(EWYK_TCP_CONN_CLOSED, 1), END
};

static const struct step s_close_fin_ack_together[] = {
	PASSIVE_OPEN,
	CLOSE, OUT(F_FIN | F_ACK, 1, 1),
	IN(F_FIN | F_ACK, 1, 2), OUT(F_ACK, 2, 2), STATE(EWYK_TCP_TIME_WAIT),
	/* The peer lost our ACK and sends its FIN again. */
	IN(F_FIN | F_ACK, 1, 2), OUT(F_ACK, 2, 2), STATE(EWYK_TCP_TIME_WAIT),
	WAIT(1001), GONE, END
};

static const struct step s_active_close[] = {
	PASSIVE_OPEN,
	CLOSE, OUT(F_FIN | F_ACK, 1, 1),
	IN(F_ACK, 1, 2), STATE(EWYK_TCP_FIN_WAIT_2), NOOUT,
	IN(F_FIN | F_ACK, 1, 2), OUT(F_ACK, 2, 2), STATE(EWYK_TCP_TIME_WAIT),
	WAIT(500), STATE(EWYK_TCP_TIME_WAIT), WAIT(501), GONE, END
};

static const struct step s_half_close_ours[] = {
	PASSIVE_OPEN,
	SHUT, OUT(F_FIN | F_ACK, 1, 1), STATE(EWYK_TCP_FIN_WAIT_1),
	IN(F_ACK, 1, 2), STATE(EWYK_TCP_FIN_WAIT_2),
	IN(F_ACK | F_PSH, 1, 2, .len = 300), EV(EV_RECV, 300), OUT(F_ACK, 2, 301),
	IN(F_FIN | F_ACK, 301, 2), OUT(F_ACK, 2, 302), EV(EV_EOF, 0),
	EV(EV_CLOSED, 0), STATE(EWYK_TCP_TIME_WAIT),
	WAIT(1001), GONE, END
};

static const struct step s_half_close_peer[] = {
	PASSIVE_OPEN,
	IN(F_FIN | F_ACK, 1, 1), OUT(F_ACK, 1, 2), EV(EV_EOF, 0),
	STATE(EWYK_TCP_CLOSE_WAIT),
	SEND(1000), OUT(F_ACK | F_PSH, 1, 2, .len = 1000),
	IN(F_ACK, 2, 1001),
	CLOSE, OUT(F_FIN | F_ACK, 1001, 2), STATE(EWYK_TCP_LAST_ACK),
	IN(F_ACK, 2, 1002), GONE, END
};

static const struct step s_close_on_eof[] = {
	PASSIVE_OPEN,
	/* The FIN carries the ACK of the peer's FIN: one segment. */
	IN(F_FIN | F_ACK, 1, 1), EV(EV_EOF, 0), OUT(F_FIN | F_ACK, 1, 2),
	STATE(EWYK_TCP_LAST_ACK), NOOUT,
	IN(F_ACK, 2, 2), GONE, END
};

static const struct step s_rst_exact[] = {
	PASSIVE_OPEN,
	IN(F_RST, 1, 0), EV(EV_CLOSED, -ECONNRESET), GONE, NOOUT,
	CTR(EWYK_TCP_CONN_RESET, 1), CTR(EWYK_TCP_RST_IN, 1), END
};

static const struct step s_rst_hardening[] = {
	PASSIVE_OPEN,
	/* In the window but not at RCV.NXT: challenge ACK (RFC 5961 3.2). */
	IN(F_RST, 100, 0), OUT(F_ACK, 1, 1),
	CTR(EWYK_TCP_CHALLENGE_ACKS, 1), CTR(EWYK_TCP_DROP_RST, 1), STATE(ES),
	IN(F_RST | F_ACK, 2, 1), OUT(F_ACK, 1, 1), CTR(EWYK_TCP_DROP_RST, 2),
	/* Outside the window: silently dropped. */
	IN(F_RST, 1000000, 0), NOOUT, IN(F_RST, -5, 0), NOOUT,
	CTR(EWYK_TCP_DROP_OUT_OF_WINDOW, 2), STATE(ES),
	IN(F_RST | F_ACK, 1, 1), EV(EV_CLOSED, -ECONNRESET), GONE, END
};

static const struct step s_challenge_limit[] = {
	PASSIVE_OPEN,
	IN(F_RST, 100, 0), OUT(F_ACK, 1, 1), IN(F_SYN, 5, 0), OUT(F_ACK, 1, 1),
	/* Two a second at most: the third waits for the next second. */
	IN(F_RST, 101, 0), NOOUT, CTR(EWYK_TCP_CHALLENGE_LIMITED, 1),
	WAIT(1000), IN(F_RST, 102, 0), OUT(F_ACK, 1, 1),
	CTR(EWYK_TCP_CHALLENGE_ACKS, 3), STATE(ES), END
};

static const struct step s_syn_in_established[] = {
	PASSIVE_OPEN,
	IN(F_SYN, 5, 0), OUT(F_ACK, 1, 1), CTR(EWYK_TCP_CHALLENGE_ACKS, 1),
	CTR(EWYK_TCP_DROP_SYN, 1), STATE(ES),
	/* The original SYN again: old, so out of window: plain ACK. */
	IN(F_SYN, 0, 0, .mss = 1460), OUT(F_ACK, 1, 1),
	CTR(EWYK_TCP_DROP_OUT_OF_WINDOW, 1),
	IN(F_SYN | F_ACK, 1, 1), OUT(F_ACK, 1, 1), CTR(EWYK_TCP_DROP_SYN, 2),
	STATE(ES), END
};

static const struct step s_out_of_window_data[] = {
	PASSIVE_OPEN,
	IN(F_ACK, 500000, 1, .len = 10), OUT(F_ACK, 1, 1),
	CTR(EWYK_TCP_DROP_OUT_OF_WINDOW, 1),
	IN(F_ACK | F_PSH, 1, 1, .len = 100), EV(EV_RECV, 100), OUT(F_ACK, 1, 101),
	/* An old duplicate: its ACK is used, its data dropped, ACK at once. */
	IN(F_ACK | F_PSH, 1, 1, .len = 100), OUT(F_ACK, 1, 101),
	CTR(EWYK_TCP_DROP_OUT_OF_WINDOW, 1),
	IN(F_ACK | F_PSH, 51, 1, .len = 100), EV(EV_RECV, 50), OUT(F_ACK, 1, 151),
	/* Straddling the right edge: trimmed to the window. */
	IN(F_ACK, 151 + 262144 - 10, 1, .len = 100), OUT(F_ACK, 1, 151, .nsack = 1,
			.sack = {{151 + 262144 - 10, 151 + 262144}}),
	CTR(EWYK_TCP_BYTES_IN, 150), END
};

static const struct step s_bad_ack[] = {
	PASSIVE_OPEN,
	IN(F_ACK, 1, 1000), OUT(F_ACK, 1, 1), CTR(EWYK_TCP_DROP_BAD_ACK, 1),
	IN(F_ACK | F_PSH, 1, 1000, .len = 10), OUT(F_ACK, 1, 1),
	CTR(EWYK_TCP_DROP_BAD_ACK, 2),
	IN(F_ACK, 1, -10000000), OUT(F_ACK, 1, 1), CTR(EWYK_TCP_DROP_BAD_ACK, 3),
	CTR(EWYK_TCP_CHALLENGE_ACKS, 3), STATE(ES),
	IN(F_ACK | F_PSH, 1, 1, .len = 10), EV(EV_RECV, 10), OUT(F_ACK, 1, 11),
	END
};

static const struct step s_ooo_sack[] = {
	PASSIVE_OPEN,
	IN(F_ACK, 101, 1, .len = 100), OUT(F_ACK, 1, 1, .nsack = 1, .sack = {{101, 201}}),
	CTR(EWYK_TCP_OOO_QUEUED, 1),
	IN(F_ACK, 301, 1, .len = 100),
	OUT(F_ACK, 1, 1, .nsack = 2, .sack = {{301, 401}, {101, 201}}),
	/* Overlapping duplicate of what is queued. */
	IN(F_ACK, 121, 1, .len = 50),
	OUT(F_ACK, 1, 1, .nsack = 2, .sack = {{301, 401}, {101, 201}}),
	IN(F_ACK, 1, 1, .len = 100), EV(EV_RECV, 100), EV(EV_RECV, 100),
	OUT(F_ACK, 1, 201, .nsack = 1, .sack = {{301, 401}}),
	/* Fills the hole and overlaps the queued segment's head. */
	IN(F_ACK, 201, 1, .len = 150), EV(EV_RECV, 150), EV(EV_RECV, 50),
	OUT(F_ACK, 1, 401, .nsack = -1), CTR(EWYK_TCP_BYTES_IN, 400), END
};

static const struct step s_sack_shrinks_payload[] = {
	PASSIVE_OPEN,
	IN(F_ACK, 101, 1, .len = 100), OUT(F_ACK, 1, 1, .nsack = 1, .sack = {{101, 201}}),
	/* 12 bytes of SACK option come out of the 1448 the MSS leaves. */
	SEND(3000),
	OUT(F_ACK, 1, 1, .len = 1436, .nsack = 1, .sack = {{101, 201}}),
	OUT(F_ACK, 1437, 1, .len = 1436, .nsack = 1),
	OUT(F_ACK | F_PSH, 2873, 1, .len = 128, .nsack = 1), END
};

static const struct step s_ooo_fin[] = {
	PASSIVE_OPEN,
	IN(F_ACK | F_FIN, 101, 1, .len = 100),
	OUT(F_ACK, 1, 1, .nsack = 1, .sack = {{101, 201}}),
	IN(F_ACK, 1, 1, .len = 100), EV(EV_RECV, 100), EV(EV_RECV, 100),
	EV(EV_EOF, 0), OUT(F_ACK, 1, 202), STATE(EWYK_TCP_CLOSE_WAIT), END
};

static const struct step s_paws[] = {
	PASSIVE_OPEN,
	IN(F_ACK, 1, 1, .len = 10, .tsval = 5), OUT(F_ACK, 1, 1),
	CTR(EWYK_TCP_DROP_PAWS, 1), CTR(EWYK_TCP_BYTES_IN, 0),
	IN(F_ACK, 1, 1, .len = 10), EV(EV_RECV, 10), OUT(F_ACK, 1, 11), END
};

static const struct step s_paws_disordered_ack[] = {
	PASSIVE_OPEN,
	SEND(5792), OUT(F_ACK, 1, 1, .len = 1448), OUT(F_ACK, 1449, 1, .len = 1448),
	OUT(F_ACK, 2897, 1, .len = 1448), OUT(F_ACK | F_PSH, 4345, 1, .len = 1448),
	IN(F_ACK, 1, 1, .tsval = 2000),
	/* Overtaken on the way: older timestamp, still a duplicate ACK. */
	IN(F_ACK, 1, 1, .tsval = 1990), NOOUT,
	CTR(EWYK_TCP_DUPACKS_IN, 2), CTR(EWYK_TCP_DROP_PAWS, 0),
	/* Older than an RTO: PAWS. */
	IN(F_ACK, 1, 1, .tsval = 1500), OUT(F_ACK, 5793, 1),
	CTR(EWYK_TCP_DROP_PAWS, 1), CTR(EWYK_TCP_DUPACKS_IN, 2), END
};

static const struct step s_rto_backoff[] = {
	PASSIVE_OPEN,
	SEND(100), OUT(F_ACK | F_PSH, 1, 1, .len = 100),
	WAIT(150), NOOUT,
	WAIT(51), OUT(F_ACK | F_PSH, 1, 1, .len = 100), CTR(EWYK_TCP_RTO, 1),
	WAIT(300), NOOUT,
	WAIT(101), OUT(F_ACK | F_PSH, 1, 1, .len = 100), CTR(EWYK_TCP_RTO, 2),
	CTR(EWYK_TCP_RETRANS_SEGS, 2),
	IN(F_ACK, 1, 101), NOOUT, WAIT(5000), NOOUT, END
};

static const struct step s_rto_give_up[] = {
	PASSIVE_OPEN,
	SEND(100), OUT(F_ACK | F_PSH, 1, 1, .len = 100),
	WAIT(201), OUT(F_ACK | F_PSH, 1, 1, .len = 100),
	WAIT(401), OUT(F_ACK | F_PSH, 1, 1, .len = 100),
	WAIT(801), OUT(F_ACK | F_PSH, 1, 1, .len = 100),
	WAIT(1601), OUT(F_ACK | F_PSH, 1, 1, .len = 100),
	WAIT(3201), OUT(F_RST | F_ACK, 101, 1), EV(EV_CLOSED, -ETIMEDOUT), GONE,
	CTR(EWYK_TCP_CONN_TIMEOUT, 1), END
};

#define OUT4(s) OUT(F_ACK, (s), 1, .len = 1460), OUT(F_ACK, (s) + 1460, 1, .len = 1460), \
	OUT(F_ACK, (s) + 2920, 1, .len = 1460), OUT(F_ACK | F_PSH, (s) + 4380, 1, .len = 1460)

static const struct step s_fast_retransmit[] = {
	PASSIVE_OPEN_PLAIN,
	SEND(5840), OUT4(1),
	IN(F_ACK, 1, 1461), IN(F_ACK, 1, 1461), IN(F_ACK, 1, 1461), NOOUT,
	CTR(EWYK_TCP_DUPACKS_IN, 2),
	IN(F_ACK, 1, 1461), OUT(F_ACK, 1461, 1, .len = 1460),
	CTR(EWYK_TCP_FAST_RETRANS, 1),
	IN(F_ACK, 1, 1461), NOOUT,          /* inflation, nothing new to send */
	IN(F_ACK, 1, 5841), NOOUT, END
};

static const struct step s_newreno_partial[] = {
	PASSIVE_OPEN_PLAIN,
	SEND(5840), OUT4(1),
	IN(F_ACK, 1, 1), IN(F_ACK, 1, 1), IN(F_ACK, 1, 1),
	OUT(F_ACK, 1, 1, .len = 1460), CTR(EWYK_TCP_FAST_RETRANS, 1),
	IN(F_ACK, 1, 2921), OUT(F_ACK, 2921, 1, .len = 1460),
	CTR(EWYK_TCP_PARTIAL_ACKS, 1),
	IN(F_ACK, 1, 5841), NOOUT, CTR(EWYK_TCP_RETRANS_SEGS, 2), END
};

static const struct step s_sack_recovery[] = {
	PASSIVE_OPEN,
	SEND(8688),
	OUT(F_ACK, 1, 1, .len = 1448), OUT(F_ACK, 1449, 1, .len = 1448),
	OUT(F_ACK, 2897, 1, .len = 1448), OUT(F_ACK, 4345, 1, .len = 1448),
	OUT(F_ACK, 5793, 1, .len = 1448), OUT(F_ACK | F_PSH, 7241, 1, .len = 1448),
	/* Segments 1 and 3 lost. */
	IN(F_ACK, 1, 1, .nsack = 1, .sack = {{1449, 2897}}), NOOUT,
	IN(F_ACK, 1, 1, .nsack = 2, .sack = {{4345, 5793}, {1449, 2897}}), NOOUT,
	/* More than 2 MSS SACKed above SND.UNA: lost (RFC 6675 IsLost). */
	IN(F_ACK, 1, 1, .nsack = 2, .sack = {{4345, 7241}, {1449, 2897}}),
	OUT(F_ACK, 1, 1, .len = 1448), CTR(EWYK_TCP_FAST_RETRANS, 1),
	IN(F_ACK, 1, 1, .nsack = 2, .sack = {{4345, 8689}, {1449, 2897}}),
	OUT(F_ACK, 2897, 1, .len = 1448), CTR(EWYK_TCP_SACK_RETRANS, 1),
	IN(F_ACK, 1, 1, .nsack = 2, .sack = {{4345, 8689}, {1449, 2897}}), NOOUT,
	CTR(EWYK_TCP_SACK_BLOCKS_IN, 9),
	IN(F_ACK, 1, 8689), NOOUT, CTR(EWYK_TCP_RETRANS_SEGS, 2), END
};

static const struct step s_sack_recovery_bidir[] = {
	/* The peer sends data too: its ACKs all carry data, none is a
	 * "duplicate"; the SACK blocks still show the loss. */
	PASSIVE_OPEN,
	SEND(5792), OUT(F_ACK, 1, 1, .len = 1448), OUT(F_ACK, 1449, 1, .len = 1448),
	OUT(F_ACK, 2897, 1, .len = 1448), OUT(F_ACK | F_PSH, 4345, 1, .len = 1448),
	IN(F_ACK, 1, 1, .len = 100, .nsack = 1, .sack = {{1449, 2897}}),
	EV(EV_RECV, 100), OUT(F_ACK, 5793, 101),
	IN(F_ACK, 101, 1, .len = 100, .nsack = 1, .sack = {{1449, 4345}}),
	EV(EV_RECV, 100), OUT(F_ACK, 5793, 201),
	IN(F_ACK, 201, 1, .len = 100, .nsack = 1, .sack = {{1449, 5793}}),
	EV(EV_RECV, 100), OUT(F_ACK, 1, 201, .len = 1448), OUT(F_ACK, 5793, 301),
	CTR(EWYK_TCP_FAST_RETRANS, 1), CTR(EWYK_TCP_DUPACKS_IN, 3),
	IN(F_ACK, 301, 5793), NOOUT, END
};

static const struct step s_tlp_dsack[] = {
	PASSIVE_OPEN,
	SEND(2896), OUT(F_ACK, 1, 1, .len = 1448), OUT(F_ACK | F_PSH, 1449, 1, .len = 1448),
	/* No ACK for 2 RTTs (10 ms at least): the last segment again. */
	WAIT(9), NOOUT,
	WAIT(2), OUT(F_ACK | F_PSH, 1449, 1, .len = 1448), CTR(EWYK_TCP_TLP_PROBES, 1),
	/* The ACK was what got lost: the peer says so with a D-SACK. */
	IN(F_ACK, 1, 2897, .nsack = 1, .sack = {{1449, 2897}}),
	NOOUT, WAIT(1000), NOOUT, CTR(EWYK_TCP_RTO, 0), END
};

#define OUTD(s, ...) OUT(F_ACK, (s), 1, .len = 1448, __VA_ARGS__)
static const struct step s_tlp_new_data[] = {
	PASSIVE_OPEN,
	/* 12 segments queued, the initial window sends 10. */
	SEND(17376),
	OUTD(1), OUTD(1449), OUTD(2897), OUTD(4345), OUTD(5793), OUTD(7241),
	OUTD(8689), OUTD(10137), OUTD(11585), OUTD(13033),
	/* The probe is new data when the peer's window has room. */
	WAIT(11), OUTD(14481), CTR(EWYK_TCP_TLP_PROBES, 1),
	IN(F_ACK, 1, 15929), OUT(F_ACK | F_PSH, 15929, 1, .len = 1448),
	IN(F_ACK, 1, 17377), NOOUT, WAIT(1000), NOOUT, CTR(EWYK_TCP_RTO, 0), END
};

static const struct step s_persist[] = {
	PASSIVE_OPEN,
	IN(F_ACK, 1, 1, .win = WIN0),
	SEND(100), NOOUT,
	WAIT(201), OUT(F_ACK, 1, 1, .len = 1), CTR(EWYK_TCP_PERSIST_PROBES, 1),
	IN(F_ACK, 1, 1, .win = WIN0), NOOUT, CTR(EWYK_TCP_DUPACKS_IN, 0),
	WAIT(401), OUT(F_ACK, 1, 1, .len = 1),
	IN(F_ACK, 1, 2, .win = 1000), OUT(F_ACK | F_PSH, 2, 1, .len = 99),
	IN(F_ACK, 1, 101), NOOUT, WAIT(10000), NOOUT, END
};

static const struct step s_rcv_window[] = {
	IN(F_SYN, 0, 0, .mss = 1460, .ws = WS(7), .sackok = true, .ts = true),
	OUT(F_SYN | F_ACK, 0, 1, .ws = WS(0), .win = 4096),
	IN(F_ACK, 1, 1), EV(EV_ACCEPT, 0),
	IN(F_ACK, 1, 1, .len = 1448), EV(EV_RECV, 1448), OUT(F_ACK, 1, 1449, .win = 2648),
	IN(F_ACK, 1449, 1, .len = 1448), EV(EV_RECV, 1448), OUT(F_ACK, 1, 2897, .win = 1200),
	IN(F_ACK, 2897, 1, .len = 1200), EV(EV_RECV, 1200), OUT(F_ACK, 1, 4097, .win = WIN0),
	/* Zero window: data at RCV.NXT is a probe; its ACK is taken, not its data. */
	IN(F_ACK, 4097, 1, .len = 100), OUT(F_ACK, 1, 4097, .win = WIN0),
	IN(F_ACK, 4197, 1, .len = 100), OUT(F_ACK, 1, 4097, .win = WIN0),
	CTR(EWYK_TCP_DROP_OUT_OF_WINDOW, 1),
	RECVD(1000), NOOUT,                 /* too small an opening to announce */
	RECVD(3096), OUT(F_ACK, 1, 4097, .win = 4096), CTR(EWYK_TCP_WINDOW_UPDATES, 1),
	END
};

static const struct step s_tw_reuse[] = {
	PASSIVE_OPEN,
	CLOSE, OUT(F_FIN | F_ACK, 1, 1),
	IN(F_FIN | F_ACK, 1, 2), OUT(F_ACK, 2, 2), STATE(EWYK_TCP_TIME_WAIT),
	/* An old SYN (timestamp below TS.Recent): PAWS, ACK. */
	IN(F_SYN, 0, 0, .ts = true, .tsval = 5), OUT(F_ACK, 2, 2),
	CTR(EWYK_TCP_DROP_PAWS, 1), STATE(EWYK_TCP_TIME_WAIT),
	IN(F_SYN, 100000, 0, .mss = 1460, .ts = true),
	OUT(F_SYN | F_ACK, 2 + 131072, 100001, .ts = true),
	CTR(EWYK_TCP_TW_REUSE, 1), STATE(EWYK_TCP_SYN_RECEIVED),
	IN(F_ACK, 100001, 2 + 131072 + 1), EV(EV_ACCEPT, 0), STATE(ES), END
};

static const struct step s_tw_overflow[] = {
	PASSIVE_OPEN,
	CLOSE, OUT(F_FIN | F_ACK, 1, 1), IN(F_FIN | F_ACK, 1, 2), OUT(F_ACK, 2, 2),
	STATE(EWYK_TCP_TIME_WAIT),
	/* A second one: over max_time_wait (1), it closes without TIME_WAIT. */
	IN(F_SYN, 0, 0, .sport = 40001, .mss = 1460),
	OUT(F_SYN | F_ACK, 0, 1, .learn = true),
	IN(F_ACK, 1, 1, .sport = 40001), EV(EV_ACCEPT, 0),
	CLOSE, OUT(F_FIN | F_ACK, 1, 1),
	IN(F_FIN | F_ACK, 1, 2, .sport = 40001), OUT(F_ACK, 2, 2),
	CTR(EWYK_TCP_TW_OVERFLOW, 1), CTR(EWYK_TCP_CONN_CLOSED, 1),
	STATE(EWYK_TCP_TIME_WAIT), END
};

static const struct step s_syncookies[] = {
	IN(F_SYN, 0, 0, .mss = 1460, .ts = true, .sackok = true, .ws = WS(7)),
	OUT(F_SYN | F_ACK, 0, 1),
	/* Backlog (1) full: the next SYN is answered with a cookie. */
	IN(F_SYN, 0, 0, .sport = 40001, .mss = 1460, .ts = true, .sackok = true, .ws = WS(7)),
	OUT(F_SYN | F_ACK, 0, 1, .learn = true, .mss = 1460, .ts = true,
			.sackok = true, .ws = WS(3)),
	CTR(EWYK_TCP_SYNCOOKIES_SENT, 1),
	IN(F_ACK | F_PSH, 1, 1, .sport = 40001, .ts = true, .len = 10),
	EV(EV_ACCEPT, 0), EV(EV_RECV, 10), OUT(F_ACK, 1, 11, .ts = true),
	STATEP(ES, 40001), CTR(EWYK_TCP_SYNCOOKIES_OK, 1),
	/* A forged cookie. */
	IN(F_ACK, 1, 12345, .sport = 40002), OUT(F_RST, 12345, 0),
	CTR(EWYK_TCP_DROP_COOKIE, 1), END
};

static const struct step s_backlog_no_cookies[] = {
	IN(F_SYN, 0, 0, .mss = 1460), OUT(F_SYN | F_ACK, 0, 1),
	IN(F_SYN, 0, 0, .sport = 40001, .mss = 1460), NOOUT,
	CTR(EWYK_TCP_DROP_BACKLOG, 1), END
};

static const struct step s_closed_port[] = {
	IN(F_SYN, 0, 0, .dport = 81), OUT(F_RST | F_ACK, 0, 1),
	IN(F_ACK, 5, 77, .dport = 81), OUT(F_RST, 77, 0),
	IN(F_RST, 5, 0, .dport = 81), NOOUT,
	IN(F_FIN | F_ACK, 5, 3, .dport = 81, .len = 10), OUT(F_RST, 3, 0),
	IN(F_ACK, 1, 1), OUT(F_RST, 1, 0),   /* listener port, no cookie sent */
	CTR(EWYK_TCP_DROP_NO_LISTENER, 5), CTR(EWYK_TCP_RST_OUT, 4), END
};

static const struct step s_delayed_ack[] = {
	PASSIVE_OPEN,
	IN(F_ACK, 1, 1, .len = 100), EV(EV_RECV, 100), NOOUT,
	WAIT(39), NOOUT,
	WAIT(2), OUT(F_ACK, 1, 101), CTR(EWYK_TCP_DELAYED_ACKS, 1),
	IN(F_ACK, 101, 1, .len = 1448), EV(EV_RECV, 1448), NOOUT,
	IN(F_ACK, 1549, 1, .len = 1448), EV(EV_RECV, 1448), OUT(F_ACK, 1, 2997),
	/* A reply piggybacks the ACK; the delayed ACK is cancelled. */
	IN(F_ACK, 2997, 1, .len = 10), EV(EV_RECV, 10), NOOUT, SEND(5),
	OUT(F_ACK | F_PSH, 1, 3007, .len = 5), WAIT(100), NOOUT,
	/* Out of order: at once, and so is the segment that fills the gap. */
	IN(F_ACK, 5000, 6, .len = 10), OUT(F_ACK, 6, 3007, .nsack = 1,
			.sack = {{5000, 5010}}),
	IN(F_ACK, 3007, 6, .len = 1993), EV(EV_RECV, 1993), EV(EV_RECV, 10),
	OUT(F_ACK, 6, 5010, .nsack = -1), CTR(EWYK_TCP_DELAYED_ACKS, 1), END
};

static const struct step s_data_after_close[] = {
	PASSIVE_OPEN,
	CLOSE, OUT(F_FIN | F_ACK, 1, 1),
	IN(F_ACK | F_PSH, 1, 2, .len = 10), OUT(F_RST | F_ACK, 2, 1), GONE,
	CTR(EWYK_TCP_CONN_ABORTED, 1), END
};

static const struct step s_syn_received_corners[] = {
	IN(F_SYN, 0, 0, .mss = 1460), OUT(F_SYN | F_ACK, 0, 1),
	IN(F_SYN, 0, 0, .mss = 1460), OUT(F_SYN | F_ACK, 0, 1),
	CTR(EWYK_TCP_SYN_RETRANS, 1),
	IN(F_ACK, 1, 55), OUT(F_RST, 55, 0), CTR(EWYK_TCP_DROP_BAD_ACK, 1),
	STATE(EWYK_TCP_SYN_RECEIVED),
	IN(F_ACK, 1, 0), OUT(F_RST, 0, 0), STATE(EWYK_TCP_SYN_RECEIVED),
	IN(F_RST, 1, 0), GONE, NOOUT, END
};

static const struct step s_synack_give_up[] = {
	IN(F_SYN, 0, 0, .mss = 1460), OUT(F_SYN | F_ACK, 0, 1),
	WAIT(1001), OUT(F_SYN | F_ACK, 0, 1), WAIT(2001), OUT(F_SYN | F_ACK, 0, 1),
	WAIT(4001), GONE, NOOUT, END
};

static const struct step s_keepalive[] = {
	PASSIVE_OPEN,
	WAIT(1001), OUT(F_ACK, 0, 1), CTR(EWYK_TCP_KEEPALIVE_PROBES, 1),
	IN(F_ACK, 1, 1), NOOUT,            /* answered: idle again */
	WAIT(1001), OUT(F_ACK, 0, 1),
	WAIT(1001), OUT(F_ACK, 0, 1),
	WAIT(1001), OUT(F_RST | F_ACK, 1, 1), EV(EV_CLOSED, -ETIMEDOUT), GONE, END
};

static const struct step s_fin_wait_2_timeout[] = {
	PASSIVE_OPEN,
	CLOSE, OUT(F_FIN | F_ACK, 1, 1), IN(F_ACK, 1, 2),
	STATE(EWYK_TCP_FIN_WAIT_2), WAIT(1999), STATE(EWYK_TCP_FIN_WAIT_2),
	WAIT(2), GONE, NOOUT, CTR(EWYK_TCP_CONN_TIMEOUT, 1), END
};

static const struct step s_accept_refused[] = {
	IN(F_SYN, 0, 0, .mss = 1460), OUT(F_SYN | F_ACK, 0, 1),
	IN(F_ACK, 1, 1), EV(EV_ACCEPT, 0), OUT(F_RST | F_ACK, 1, 1), GONE, END
};

static const struct step s_writable[] = {
	PASSIVE_OPEN,
	IN(F_ACK, 1, 1, .win = WIN0), SEND(3000), SENDX(3000),
	CTR(EWYK_TCP_SEND_REFUSED, 1), WAIT(201), OUT(F_ACK, 1, 1, .len = 1),
	IN(F_ACK, 1, 2, .win = 100), OUT(F_ACK, 2, 1, .len = 1448),
	OUT(F_ACK, 1450, 1, .len = 1448), OUT(F_ACK | F_PSH, 2898, 1, .len = 103),
	IN(F_ACK, 1, 1000), NOOUT,          /* 2001 queued: not yet */
	IN(F_ACK, 1, 1450), EV(EV_WRITABLE, 0), NOOUT, END
};

static const struct step s_bad_input[] = {
	PASSIVE_OPEN_PLAIN,
	BAD(BAD_CKSUM), CTR(EWYK_TCP_DROP_CKSUM, 1),
	BAD(BAD_DOFF_SMALL), BAD(BAD_DOFF_BEYOND), CTR(EWYK_TCP_DROP_DOFF, 2),
	BAD(BAD_OPT_OVERLONG), BAD(BAD_OPT_ZERO_LEN), BAD(BAD_OPT_MSS_LEN),
	BAD(BAD_OPT_SACK_LEN), BAD(BAD_OPT_NO_LEN), CTR(EWYK_TCP_DROP_OPTIONS, 5),
	BAD(BAD_SYN_FIN), BAD(BAD_SYN_RST), BAD(BAD_RST_FIN), BAD(BAD_NO_FLAGS),
	BAD(BAD_FIN_ONLY), BAD(BAD_PSH_URG_ONLY), CTR(EWYK_TCP_DROP_FLAGS, 6),
	BAD(BAD_SPORT_ZERO), BAD(BAD_DPORT_ZERO), CTR(EWYK_TCP_DROP_PORT, 2),
	BAD(BAD_SHORT), CTR(EWYK_TCP_DROP_SHORT, 1),
	NOOUT, STATE(ES), CTR(EWYK_TCP_BYTES_IN, 0),
	BAD(BAD_GOOD_CKSUM), EV(EV_RECV, 10), OUT(F_ACK, 1, 11),
	IN(F_ACK, 11, 1, .len = 5), EV(EV_RECV, 5), OUT(F_ACK, 1, 16), END
};

#define SC(n, ...) { .name = #n, .steps = s_ ## n, __VA_ARGS__ }
static const struct script scripts[] = {
	SC(passive_data_close), SC(passive_plain), SC(active_open),
	SC(active_refused), SC(syn_sent_corners), SC(simultaneous_open),
	SC(simultaneous_close), SC(close_fin_ack_together), SC(active_close),
	SC(half_close_ours), SC(half_close_peer),
	SC(close_on_eof, .close_on_eof = true),
	SC(rst_exact), SC(rst_hardening), SC(syn_in_established),
	SC(challenge_limit, .chack = 2),
	SC(out_of_window_data), SC(bad_ack), SC(ooo_sack), SC(ooo_fin), SC(paws),
	SC(sack_shrinks_payload), SC(paws_disordered_ack),
	SC(rto_backoff), SC(rto_give_up), SC(fast_retransmit),
	SC(newreno_partial), SC(sack_recovery), SC(sack_recovery_bidir),
	SC(tlp_dsack), SC(tlp_new_data), SC(persist),
	SC(rcv_window, .rcv_buf = 4096, .hold = true), SC(tw_reuse),
	SC(tw_overflow, .max_tw = 1),
	SC(syncookies, .backlog = 1),
	SC(backlog_no_cookies, .backlog = 1, .nocookies = true),
	SC(closed_port), SC(delayed_ack, .delack = true),
	SC(data_after_close), SC(syn_received_corners), SC(synack_give_up),
	SC(keepalive, .keepalive_ms = 1000), SC(fin_wait_2_timeout),
	SC(accept_refused, .refuse = true), SC(writable, .snd_buf = 4000),
	SC(bad_input),
};

static void
test_script(void **state)
{
	run_script(*state);
}

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
};

static struct {
	struct ewyk_tcp *t[2];      /* 0: server (LIP), 1: client (PIP) */
	struct lb_pkt q[LB_MAXQ];
	unsigned int nq;
	uint64_t now_us, base;
	uint32_t loss_pm, reorder_pm; /* per mille */
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
	assert_true(src == (from == 0 ? LIP : PIP) && dst == (from == 0 ? PIP : LIP));
	{
		const struct rte_tcp_hdr *th = rte_pktmbuf_mtod(m, const struct rte_tcp_hdr *);

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
		memmove(&lc->pend[0], &lc->pend[1], --lc->npend * sizeof(lc->pend[0]));
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
	.accept = srv_accept, .recv = srv_recv, .eof = srv_eof,
	.writable = srv_writable, .closed = lb_closed,
};

static void
cli_push(struct lb_conn *lc)
{
	while (lc->sent < lc->total && !lc->closed) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
		uint16_t n = (uint16_t)RTE_MIN(lc->total - lc->sent, (uint64_t)1999);
		uint8_t *d;

		assert_non_null(m);
		d = (uint8_t *)rte_pktmbuf_append(m, n);
		for (uint16_t i = 0; i < n; i++)
			d[i] = (uint8_t)((lc->sent + i) * 7 + (lc->sent + i) / 251);
		if (ewyk_tcp_send(lc->c, m) != 0) {
			rte_pktmbuf_free(m);
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
			if (d[i] != (uint8_t)(lc->rcvd * 7 + lc->rcvd / 251))
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
	.connected = cli_connected, .recv = cli_recv, .eof = cli_eof,
	.writable = cli_writable, .closed = lb_closed,
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
			.proto = IPPROTO_TCP, .ttl = 64, .cksum_good = true,
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
			"flight %u queued %u ooo %u retrans %u\n", who,
			ewyk_tcp_state_name(ci.state), ci.snd_wnd, ci.rcv_wnd,
			ci.cwnd, ci.ssthresh, ci.rto_ms, ci.in_flight,
			ci.snd_queued, ci.ooo_segs, ci.retransmits);
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
			if (ewyk_tcp_counter_get(L.t[k], (enum ewyk_tcp_counter)i))
				print_message("%d %s %" PRIu64 "\n", k,
						ewyk_tcp_counter_name((enum ewyk_tcp_counter)i),
						ewyk_tcp_counter_get(L.t[k],
						(enum ewyk_tcp_counter)i));
}

static void
run_loopback(bool plain, uint32_t loss_pm, unsigned int nconn, uint64_t bytes)
{
	uint64_t hz = rte_get_tsc_hz(), limit_us = 600ULL * 1000000;
	unsigned int i;
	bool done = false;

	memset(&L, 0, sizeof(L));
	L.loss_pm = loss_pm;
	L.reorder_pm = loss_pm > 0 ? 100 : 0;
	L.base = rte_rdtsc() + hz;
	L.t[0] = lb_ctx(0, plain);
	L.t[1] = lb_ctx(1, plain);
	assert_int_equal(ewyk_tcp_listen(L.t[0], LIP, LPORT, &srv_ops, NULL, 0), 0);
	for (i = 0; i < nconn; i++) {
		struct lb_conn *lc = &L.cli[L.ncli++];
		struct ewyk_tcp_connect_args a = {
			.dst_ip = LIP, .dst_port = LPORT, .src_ip = PIP,
			.ops = &cli_ops, .ctx = lc,
		};

		lc->total = bytes / nconn;
		lc->c = ewyk_tcp_connect(L.t[1], &a);
		assert_non_null(lc->c);
	}
	while (!done && L.now_us < limit_us) {
		L.now_us += 100;
		lb_deliver();
		for (i = 0; i < 2; i++)
			ewyk_tcp_advance(L.t[i], L.base + L.now_us * hz / 1000000);
		done = true;
		for (i = 0; i < L.ncli; i++)
			if (L.cli[i].rcvd < L.cli[i].total || !L.cli[i].eof)
				done = false;
		if (L.nsrv < nconn)
			done = false;
		if (done && ewyk_tcp_state_count(L.t[0], ES) +
				ewyk_tcp_state_count(L.t[0], EWYK_TCP_LAST_ACK) > 0)
			done = false;
	}
	if (!done)
		lb_dump();
	for (i = 0; i < L.ncli; i++) {
		if (L.cli[i].bad || L.cli[i].rcvd != L.cli[i].total)
			fail_msg("conn %u: %s, %" PRIu64 " of %" PRIu64 " bytes back",
					i, L.cli[i].bad ? "corrupt" : "short",
					L.cli[i].rcvd, L.cli[i].total);
	}
	assert_true(done);
	if (loss_pm == 0) {
		/* A clean wire: not one retransmission, nothing out of order. */
		for (i = 0; i < 2; i++) {
			assert_int_equal(ewyk_tcp_counter_get(L.t[i], EWYK_TCP_RETRANS_SEGS), 0);
			assert_int_equal(ewyk_tcp_counter_get(L.t[i], EWYK_TCP_OOO_QUEUED), 0);
		}
	} else {
		assert_true(ewyk_tcp_counter_get(L.t[1], EWYK_TCP_RETRANS_SEGS) > 0);
		assert_true(ewyk_tcp_counter_get(L.t[0], EWYK_TCP_RETRANS_SEGS) > 0);
		assert_true(ewyk_tcp_counter_get(L.t[0], EWYK_TCP_OOO_QUEUED) > 0);
		if (!plain)
			assert_true(ewyk_tcp_counter_get(L.t[1], EWYK_TCP_SACK_BLOCKS_IN) > 0);
	}
	/* Let TIME_WAIT run out: nothing may be left. */
	for (i = 0; i < 30; i++) {
		L.now_us += 100000;
		lb_deliver();
		ewyk_tcp_advance(L.t[0], L.base + L.now_us * hz / 1000000);
		ewyk_tcp_advance(L.t[1], L.base + L.now_us * hz / 1000000);
	}
	for (i = EWYK_TCP_SYN_SENT; i < EWYK_TCP_STATE_MAX; i++) {
		assert_int_equal(ewyk_tcp_state_count(L.t[0], (enum ewyk_tcp_state)i), 0);
		assert_int_equal(ewyk_tcp_state_count(L.t[1], (enum ewyk_tcp_state)i), 0);
	}
	for (i = 0; i < L.nsrv; i++)
		assert_int_equal(L.srv[i].npend, 0);
	while (L.nq > 0)
		rte_pktmbuf_free(L.q[--L.nq].m);
	ewyk_tcp_free(L.t[0]);
	ewyk_tcp_free(L.t[1]);
}

static uint64_t
lb_bytes(uint64_t n)
{
	return getenv("EWYK_TEST_LONG") != NULL ? n * 16 : n;
}

static void
test_loopback_clean(void **state)
{
	RTE_SET_USED(state);
	run_loopback(false, 0, 1, lb_bytes(2 << 20));
}

static void
test_loopback_lossy_sack(void **state)
{
	RTE_SET_USED(state);
	run_loopback(false, 30, 1, lb_bytes(1 << 20));
}

static void
test_loopback_lossy_plain(void **state)
{
	RTE_SET_USED(state);
	run_loopback(true, 30, 1, lb_bytes(1 << 20));
}

static void
test_loopback_many(void **state)
{
	RTE_SET_USED(state);
	run_loopback(false, 10, 20, lb_bytes(2 << 20));
}

static void
test_api_errors(void **state)
{
	static const struct script sc = { .name = "api" };
	struct ewyk_tcp_conf cf;
	struct ewyk_tcp_connect_args a = {
		.dst_ip = PIP, .dst_port = PPORT, .src_ip = LIP, .ops = &app_ops,
	};
	struct ewyk_tcp_conn *c;
	unsigned int i;

	RTE_SET_USED(state);
	memset(&cf, 0, sizeof(cf));
	assert_null(ewyk_tcp_create(NULL));
	assert_int_equal(rte_errno, EINVAL);
	assert_null(ewyk_tcp_create(&cf));           /* no shard, no output */
	assert_int_equal(rte_errno, EINVAL);
	memset(&H, 0, sizeof(H));
	H.lport = LPORT;
	make_ctx(&sc);
	assert_int_equal(ewyk_tcp_listen(H.t, 0, LPORT, &app_ops, NULL, 0), -EADDRINUSE);
	assert_int_equal(ewyk_tcp_listen(H.t, 0, 0, &app_ops, NULL, 0), -EINVAL);
	assert_int_equal(ewyk_tcp_unlisten(H.t, 0, 99), -ENOENT);
	assert_int_equal(ewyk_tcp_send(NULL, NULL), -EINVAL);
	/* Ephemeral ports, duplicate 4-tuples, pool exhaustion. */
	c = ewyk_tcp_connect(H.t, &a);
	assert_non_null(c);
	assert_int_equal(ewyk_tcp_send_space(c), 0);     /* not established */
	assert_int_equal(ewyk_tcp_shutdown(c), -ENOTCONN);
	a.src_port = 1234;
	assert_non_null(ewyk_tcp_connect(H.t, &a));
	assert_null(ewyk_tcp_connect(H.t, &a));
	assert_int_equal(rte_errno, EADDRINUSE);
	a.src_port = 0;
	for (i = 0; i < 100; i++)
		if (ewyk_tcp_connect(H.t, &a) == NULL)
			break;
	assert_true(i < 100);
	assert_int_equal(rte_errno, ENOMEM);
	assert_true(ewyk_tcp_counter_get(H.t, EWYK_TCP_DROP_NO_CONN_MEM) > 0);
	assert_int_equal(ewyk_tcp_state_count(H.t, EWYK_TCP_SYN_SENT), 64);
	ewyk_tcp_close(c);
	assert_int_equal(ewyk_tcp_state_count(H.t, EWYK_TCP_SYN_SENT), 63);
	for (i = 0; i < EWYK_TCP_COUNTER_MAX; i++)
		assert_non_null(ewyk_tcp_counter_name((enum ewyk_tcp_counter)i));
	assert_null(ewyk_tcp_counter_name(EWYK_TCP_COUNTER_MAX));
	assert_string_equal(ewyk_tcp_state_name(EWYK_TCP_TIME_WAIT), "TIME_WAIT");
	assert_true(ewyk_tcp_flow_shard(LIP, 1000, PIP, 80, 4) < 4);
	assert_int_equal(ewyk_tcp_flow_shard(LIP, 1000, PIP, 80, 1), 0);
	h_free();
	/* Let the segments sent go. */
	memset(&H, 0, sizeof(H));
}

int
main(int argc, char **argv)
{
	struct CMUnitTest tests[RTE_DIM(scripts) + 8];
	unsigned int n = 0, i;

	if (ewyk_test_eal_init(argc, argv) < 0)
		return 1;
	mp = rte_pktmbuf_pool_create("test_tcp", 32768, 256, 0,
			RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (mp == NULL)
		return 1;
	for (i = 0; i < RTE_DIM(scripts); i++) {
		tests[n].name = scripts[i].name;
		tests[n].test_func = test_script;
		tests[n].setup_func = NULL;
		tests[n].teardown_func = NULL;
		tests[n].initial_state = (void *)(uintptr_t)&scripts[i];
		n++;
	}
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_api_errors);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_loopback_clean);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_loopback_lossy_sack);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_loopback_lossy_plain);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_loopback_many);
	return _cmocka_run_group_tests("tcp", tests, n, NULL, NULL);
}
