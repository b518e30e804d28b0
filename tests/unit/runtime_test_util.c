/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lib/runtime unit tests' world (runtime_test_util.h): a runtime on a
 * ring-backed port, stepped on a virtual clock, and raw TCP clients.
 * Every frame the runtime sends is copied into the clients' pool on its
 * way to the TX ring, so that it outlives the runtime's mbuf pools.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_tcp.h>

#include "runtime_test_util.h"

struct rtw RTW;

const uint8_t rtw_sip6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
const uint8_t rtw_cip6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
/* a router on the way to the clients, which sends packet-too-bigs */
static const uint8_t router6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0xfe };

#define ICMP6_PTB 2
#define ND_NS 135
#define ND_NA 136

static struct rte_mempool *cli_pool;
static struct rte_ring *rxr, *txr;
static uint16_t port_id;
static unsigned int port_gen;
static struct rte_ether_addr srv_mac;
static const struct rte_ether_addr peer_mac = { .addr_bytes = { 0x02, 0, 0, 0,
							0, 0x09 } };

static uint64_t
rtw_clock(void)
{
	return __atomic_load_n(&RTW.vnow, __ATOMIC_ACQUIRE);
}

void
rtw_advance_ms(uint64_t ms)
{
	__atomic_fetch_add(&RTW.vnow, ms * (RTW.hz / 1000), __ATOMIC_RELEASE);
}

/* Frames leave the runtime's pool here: copies in ours take their place. */
static uint16_t
tx_copy(uint16_t port, uint16_t queue, struct rte_mbuf *pkts[], uint16_t n,
	void *arg)
{
	uint16_t i;

	RTE_SET_USED(port);
	RTE_SET_USED(queue);
	RTE_SET_USED(arg);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *c = rte_pktmbuf_copy(pkts[i], cli_pool, 0,
			UINT32_MAX);

		rte_pktmbuf_free(pkts[i]);
		/* no copy: an empty frame, which the pump ignores */
		pkts[i] = c != NULL ? c : rte_pktmbuf_alloc(cli_pool);
	}
	return n;
}

static void
rings_drain(void)
{
	struct rte_mbuf *m;

	while (rte_ring_dequeue(rxr, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	while (rte_ring_dequeue(txr, (void **)&m) == 0)
		rte_pktmbuf_free(m);
}

int
rtw_global_init(void)
{
	cli_pool = rte_pktmbuf_pool_create("rtw_cli", 4095, 0, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	rxr = rte_ring_create("rtw_rx", 1024, SOCKET_ID_ANY,
		RING_F_SP_ENQ | RING_F_SC_DEQ);
	txr = rte_ring_create("rtw_tx", 4096, SOCKET_ID_ANY,
		RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (cli_pool == NULL || rxr == NULL || txr == NULL)
		return -1;
	RTW.hz = rte_get_tsc_hz();
	return 0;
}

/* ---- route handlers ---- */

static int
fn_block(const struct ewyk_rt_req *req, struct ewyk_rt_result *res,
	enum ewyk_strategy_mode mode, void *arg)
{
	const char *h = ewyk_rt_req_header(req, "X-T");

	RTE_SET_USED(arg);
	snprintf(RTW.path, sizeof(RTW.path), "%s", req->path);
	snprintf(RTW.query, sizeof(RTW.query), "%s", req->query);
	snprintf(RTW.hdr, sizeof(RTW.hdr), "%s", h != NULL ? h : "");
	RTW.req_deadline = req->deadline;
	RTW.peer = req->peer;
	RTW.calls_block++;
	RTW.last_mode = mode;
	if (RTW.advance_in_fn != 0)
		__atomic_fetch_add(&RTW.vnow, RTW.advance_in_fn,
			__ATOMIC_RELEASE);
	ewyk_rt_result_status(res, 200, "text/plain");
	return ewyk_rt_result_body(res, "block", 5);
}

static int
fn_nb(const struct ewyk_rt_req *req, struct ewyk_rt_result *res,
	enum ewyk_strategy_mode mode, void *arg)
{
	RTE_SET_USED(req);
	RTE_SET_USED(arg);
	RTW.calls_nb++;
	RTW.last_mode = mode;
	ewyk_rt_result_status(res, 200, "text/plain");
	return ewyk_rt_result_body(res, "nb", 2);
}

static int
fn_fail(const struct ewyk_rt_req *req, struct ewyk_rt_result *res,
	enum ewyk_strategy_mode mode, void *arg)
{
	RTE_SET_USED(req);
	RTE_SET_USED(res);
	RTE_SET_USED(mode);
	RTE_SET_USED(arg);
	return -EIO;
}

/* POST /body: the body the runtime read, back (max_body 64). */
static int
fn_body(const struct ewyk_rt_req *req, struct ewyk_rt_result *res,
	enum ewyk_strategy_mode mode, void *arg)
{
	RTE_SET_USED(mode);
	RTE_SET_USED(arg);
	RTW.calls_body++;
	ewyk_rt_result_status(res, 200, "application/octet-stream");
	return ewyk_rt_result_body(res, req->body, req->body_len);
}

/* POST /stream: its body streamed to body_piece(), then the bytes
 * consumed, in decimal (BLOCKING). */
static int
body_piece(struct ewyk_rt_req *req, enum ewyk_strategy_mode mode, void *arg)
{
	RTE_SET_USED(mode);
	RTE_SET_USED(arg);
	RTW.pieces++;
	RTW.piece_bytes += req->body_len;
	req->state = &RTW.piece_bytes;
	return RTW.piece_ret;
}

static void
piece_state_free(void *state, void *arg)
{
	RTE_SET_USED(arg);
	assert_ptr_equal(state, &RTW.piece_bytes);
	RTW.states_freed++;
}

static int
fn_stream(const struct ewyk_rt_req *req, struct ewyk_rt_result *res,
	enum ewyk_strategy_mode mode, void *arg)
{
	char out[24];
	int n;

	RTE_SET_USED(mode);
	RTE_SET_USED(arg);
	assert_null(req->body);
	RTW.calls_stream++;
	n = snprintf(out, sizeof(out), "%llu",
		(unsigned long long)RTW.piece_bytes);
	ewyk_rt_result_status(res, 200, "text/plain");
	return ewyk_rt_result_body(res, out, (uint32_t)n);
}

/* GET /big: RTW_BIG bytes, more than one segment holds. */
static int
fn_big(const struct ewyk_rt_req *req, struct ewyk_rt_result *res,
	enum ewyk_strategy_mode mode, void *arg)
{
	static char big[RTW_BIG];

	RTE_SET_USED(req);
	RTE_SET_USED(mode);
	RTE_SET_USED(arg);
	memset(big, 'b', sizeof(big));
	ewyk_rt_result_status(res, 200, "application/octet-stream");
	return ewyk_rt_result_body(res, big, sizeof(big));
}

/* ---- the runtime ---- */

uint64_t rtw_h2_body_budget;
unsigned int rtw_idle_s;

struct ewyk_rt *
rtw_create(enum ewyk_strategy_kind kind, unsigned int pec_ring)
{
	const struct ewyk_rt_route routes[] = {
		{ .path = "/block",
			.methods = EWYK_HTTP_M(EWYK_HTTP_GET),
			.invocation = EWYK_STRATEGY_INVOKE_BLOCKING,
			.fn = fn_block },
		{ .path = "/nb",
			.methods = EWYK_HTTP_M(EWYK_HTTP_GET),
			.invocation = EWYK_STRATEGY_INVOKE_NON_BLOCKING,
			.fn = fn_nb },
		{ .path = "/fail",
			.methods = EWYK_HTTP_M(EWYK_HTTP_GET),
			.invocation = EWYK_STRATEGY_INVOKE_BLOCKING,
			.fn = fn_fail },
		{ .path = "/nbfail",
			.methods = EWYK_HTTP_M(EWYK_HTTP_GET),
			.invocation = EWYK_STRATEGY_INVOKE_NON_BLOCKING,
			.fn = fn_fail },
		{ .path = "/body",
			.methods = EWYK_HTTP_M(EWYK_HTTP_POST),
			.invocation = EWYK_STRATEGY_INVOKE_BLOCKING,
			.fn = fn_body,
			.max_body = RTW_MAX_BODY },
		{ .path = "/stream",
			.methods = EWYK_HTTP_M(EWYK_HTTP_POST),
			.invocation = EWYK_STRATEGY_INVOKE_BLOCKING,
			.fn = fn_stream,
			.body = body_piece,
			.state_free = piece_state_free,
			.max_body = 1u << 20 },
		{ .path = "/streamsmall",
			.methods = EWYK_HTTP_M(EWYK_HTTP_POST),
			.invocation = EWYK_STRATEGY_INVOKE_BLOCKING,
			.fn = fn_stream,
			.body = body_piece,
			.state_free = piece_state_free,
			.max_body = RTW_MAX_BODY },
		{ .path = "/nbstream",
			.methods = EWYK_HTTP_M(EWYK_HTTP_POST),
			.invocation = EWYK_STRATEGY_INVOKE_NON_BLOCKING,
			.fn = fn_stream,
			.body = body_piece,
			.state_free = piece_state_free,
			.max_body = 1u << 20 },
		{ .path = "/big",
			.methods = EWYK_HTTP_M(EWYK_HTTP_GET),
			.invocation = EWYK_STRATEGY_INVOKE_NON_BLOCKING,
			.fn = fn_big },
	};
	struct ewyk_rt_conf c;
	char name[32];
	unsigned int i;
	uint16_t pid16;
	int pid;

	/* a failed test may have left its runtime */
	if (RTW.rt != NULL)
		rtw_free();
	memset(&RTW, 0, sizeof(RTW));
	RTW.hz = rte_get_tsc_hz();
	/* and its port, when it failed before the runtime took it */
	RTE_ETH_FOREACH_DEV (pid16) {
		rte_eth_dev_stop(pid16);
		rte_eth_dev_close(pid16);
	}
	rings_drain();
	snprintf(name, sizeof(name), "rtw%u", port_gen++);
	pid = rte_eth_from_rings(name, &rxr, 1, &txr, 1, SOCKET_ID_ANY);
	assert_true(pid >= 0);
	port_id = (uint16_t)pid;
	/* the previous world's port is gone */
	assert_int_equal(rte_eth_dev_count_avail(), 1);
	assert_int_equal(rte_eth_macaddr_get(port_id, &srv_mac), 0);
	assert_non_null(rte_eth_add_tx_callback(port_id, 0, tx_copy, NULL));

	ewyk_rt_conf_init(&c, "rtw");
	c.nb_ips = 1;
	c.ip[0] = RTE_BE32(RTW_SIP);
	c.prefix[0] = 24;
	c.nb_ip6s = 1;
	memcpy(c.ip6[0], rtw_sip6, 16);
	c.prefix6[0] = 64;
	c.reserved = 1; /* lcore 1: reserved, never launched */
	c.shared_reserved = 0;
	c.strategy = kind;
	c.pec_ring = pec_ring;
	c.task_timeout_ms = RTW_TIMEOUT_MS;
	c.stats_interval = 0;
	c.nb_mbufs = 2047;
	c.tcp_max_conns = 64;
	c.http_max_heads = 64;
	c.h2_body_budget = rtw_h2_body_budget;
	if (rtw_idle_s != 0) {
		c.keepalive_timeout = rtw_idle_s;
		c.tcp_idle_ms = rtw_idle_s * 1000;
		rtw_idle_s = 0;
	}
	RTW.rt = ewyk_rt_create(&c);
	assert_non_null(RTW.rt);
	assert_int_equal(ewyk_rt_nb_shards(RTW.rt), 1);
	RTW.sh = ewyk_rt_shard(RTW.rt, 0);
	for (i = 0; i < RTE_DIM(routes); i++)
		assert_int_equal(ewyk_rt_http_route(RTW.rt, &routes[i]), 0);
	assert_int_equal(ewyk_rt_http_listen(RTW.rt, RTW_PORT), 0);
	/* Time stands still unless a test moves it. It starts an hour
	 * ahead of the TSC, which the executor compares the deadlines of
	 * queued tasks with: a slow machine never drops one. */
	RTW.vnow = rte_rdtsc() + 3600 * RTW.hz;
	rt_test_set_clock(rtw_clock);
	return RTW.rt;
}

static struct rte_mbuf *
frame_alloc(uint16_t etype, bool bcast, uint16_t len, void **payload)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(cli_pool);
	struct rte_ether_hdr *e;

	assert_non_null(m);
	e = (struct rte_ether_hdr *)rte_pktmbuf_append(m,
		(uint16_t)(RTE_ETHER_HDR_LEN + len));
	assert_non_null(e);
	if (bcast)
		memset(&e->dst_addr, 0xff, RTE_ETHER_ADDR_LEN);
	else
		rte_ether_addr_copy(&srv_mac, &e->dst_addr);
	rte_ether_addr_copy(&peer_mac, &e->src_addr);
	e->ether_type = rte_cpu_to_be_16(etype);
	*payload = e + 1;
	return m;
}

static void
frame_in(struct rte_mbuf *m)
{
	assert_int_equal(rte_ring_enqueue(rxr, m), 0);
}

/* An IPv6 packet to the runtime's MAC: header, then @p l4len bytes of
 * protocol @p proto, returned to be filled. */
static void *
ip6_frame(struct rte_mbuf **mp, const uint8_t src[16], const uint8_t dst[16],
	uint8_t proto, uint8_t hl, uint16_t l4len)
{
	struct rte_ipv6_hdr *ip;

	*mp = frame_alloc(RTE_ETHER_TYPE_IPV6, false,
		(uint16_t)(sizeof(*ip) + l4len), (void **)&ip);
	memset(ip, 0, sizeof(*ip) + l4len);
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16(l4len);
	ip->proto = proto;
	ip->hop_limits = hl;
	memcpy(ip->src_addr, src, 16);
	memcpy(ip->dst_addr, dst, 16);
	return ip + 1;
}

/* The checksum of the ICMPv6 message that follows @p ip. */
static void
icmp6_sum(uint8_t *icmp)
{
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)icmp - 1;
	uint16_t sum;

	icmp[2] = icmp[3] = 0;
	sum = rte_ipv6_udptcp_cksum(ip, icmp);
	memcpy(icmp + 2, &sum, 2);
}

/* A neighbour solicitation (from the client, to learn it: RFC 4861 7.2.3)
 * or advertisement (solicited, override) of rtw_cip6, with the client's
 * MAC in a link-layer option. */
static void
nd_send(uint8_t type, const uint8_t dst[16], const uint8_t target[16])
{
	struct rte_mbuf *m;
	uint8_t *icmp = ip6_frame(&m, rtw_cip6, dst, IPPROTO_ICMPV6, 255, 32);

	icmp[0] = type;
	if (type == ND_NA)
		icmp[4] = 0x60; /* solicited, override */
	memcpy(icmp + 8, target, 16);
	icmp[24] = type == ND_NA ? 2 : 1; /* target / source link-layer */
	icmp[25] = 1;
	memcpy(icmp + 26, peer_mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	icmp6_sum(icmp);
	frame_in(m);
}

void
rtw_ptb6(const struct rtw_cli *c, uint32_t mtu)
{
	struct rte_ipv6_hdr *in;
	struct rte_tcp_hdr *th;
	struct rte_mbuf *m;
	uint8_t *icmp;
	rte_be32_t v = rte_cpu_to_be_32(mtu);

	icmp = ip6_frame(&m, router6, rtw_sip6, IPPROTO_ICMPV6, 64,
		(uint16_t)(8 + sizeof(*in) + sizeof(*th)));
	icmp[0] = ICMP6_PTB;
	memcpy(icmp + 4, &v, 4);
	/* the start of the segment that did not fit */
	in = (struct rte_ipv6_hdr *)(icmp + 8);
	in->vtc_flow = rte_cpu_to_be_32(6u << 28);
	in->payload_len = rte_cpu_to_be_16(1440 + sizeof(*th));
	in->proto = IPPROTO_TCP;
	in->hop_limits = 64;
	memcpy(in->src_addr, rtw_sip6, 16);
	memcpy(in->dst_addr, rtw_cip6, 16);
	th = (struct rte_tcp_hdr *)(in + 1);
	th->src_port = rte_cpu_to_be_16(RTW_PORT);
	th->dst_port = rte_cpu_to_be_16(c->sport);
	th->sent_seq = rte_cpu_to_be_32(c->rcv_nxt);
	icmp6_sum(icmp);
	frame_in(m);
}

void
rtw_start(void)
{
	struct rte_arp_hdr *a;
	struct rte_mbuf *m;

	assert_int_equal(rt_test_start(RTW.rt), 0);
	/* The peer asks for us: the shard learns its MAC. */
	m = frame_alloc(RTE_ETHER_TYPE_ARP, true, sizeof(*a), (void **)&a);
	memset(a, 0, sizeof(*a));
	a->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	a->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	a->arp_hlen = RTE_ETHER_ADDR_LEN;
	a->arp_plen = 4;
	a->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REQUEST);
	rte_ether_addr_copy(&peer_mac, &a->arp_data.arp_sha);
	a->arp_data.arp_sip = RTE_BE32(RTW_CIP);
	a->arp_data.arp_tip = RTE_BE32(RTW_SIP);
	frame_in(m);
	/* ... and solicits us over IPv6: the shard learns it STALE */
	nd_send(ND_NS, rtw_sip6, rtw_sip6);
	rtw_run();
}

void
rtw_free(void)
{
	ewyk_rt_free(RTW.rt);
	RTW.rt = NULL;
	RTW.sh = NULL;
	rt_test_set_clock(NULL);
}

/* ---- clients ---- */

static void
cli_seg(struct rtw_cli *c, uint8_t flags, const void *data, uint16_t len)
{
	uint16_t opt = (flags & RTE_TCP_SYN_FLAG) ? 4 : 0;
	uint16_t l4 = (uint16_t)(sizeof(struct rte_tcp_hdr) + opt + len);
	/* the MSS of a 1500-byte MTU */
	uint16_t mss = c->v6 ? 1440 : 1460;
	struct rte_ipv4_hdr *ip = NULL;
	struct rte_tcp_hdr *th;
	struct rte_mbuf *m;
	uint8_t *o;

	if (c->v6) {
		th = ip6_frame(&m, rtw_cip6, rtw_sip6, IPPROTO_TCP, 64, l4);
	} else {
		m = frame_alloc(RTE_ETHER_TYPE_IPV4, false,
			(uint16_t)(sizeof(*ip) + l4), (void **)&ip);
		memset(ip, 0, sizeof(*ip));
		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->total_length = rte_cpu_to_be_16(
			(uint16_t)(sizeof(*ip) + l4));
		ip->time_to_live = 64;
		ip->next_proto_id = IPPROTO_TCP;
		ip->src_addr = RTE_BE32(RTW_CIP);
		ip->dst_addr = RTE_BE32(RTW_SIP);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		th = (struct rte_tcp_hdr *)(ip + 1);
	}
	memset(th, 0, sizeof(*th));
	th->src_port = rte_cpu_to_be_16(c->sport);
	th->dst_port = rte_cpu_to_be_16(RTW_PORT);
	th->sent_seq = rte_cpu_to_be_32(c->snd_nxt);
	th->recv_ack = rte_cpu_to_be_32(
		(flags & RTE_TCP_ACK_FLAG) ? c->rcv_nxt : 0);
	th->data_off = (uint8_t)(((sizeof(*th) + opt) / 4) << 4);
	th->tcp_flags = flags;
	th->rx_win = rte_cpu_to_be_16(65535);
	o = (uint8_t *)(th + 1);
	if (opt != 0) {
		o[0] = 2;
		o[1] = 4;
		o[2] = (uint8_t)(mss >> 8);
		o[3] = (uint8_t)(mss & 0xff);
	}
	if (len > 0)
		memcpy(o + opt, data, len);
	if (c->v6)
		th->cksum = rte_ipv6_udptcp_cksum((struct rte_ipv6_hdr *)th - 1,
			th);
	else
		th->cksum = rte_ipv4_udptcp_cksum(ip, th);
	frame_in(m);
	if (flags & (RTE_TCP_SYN_FLAG | RTE_TCP_FIN_FLAG))
		c->snd_nxt++;
	c->snd_nxt += len;
}

static struct rtw_cli *
cli_of(bool v6, uint16_t dport)
{
	unsigned int i;

	for (i = 0; i < RTW_MAXCLI; i++)
		if (RTW.cli[i].used && RTW.cli[i].v6 == v6 &&
			RTW.cli[i].sport == dport)
			return &RTW.cli[i];
	return NULL;
}

/* A TCP segment of @p plen IP bytes (headers included) to a client. */
static void pump_tcp(bool v6, const struct rte_tcp_hdr *th, uint32_t l4,
	uint32_t plen);

/* An IPv6 packet the runtime sent: TCP to a client, or a neighbour
 * solicitation for rtw_cip6, which the client answers. */
static void
pump_ip6(const struct rte_ipv6_hdr *ip, uint32_t len)
{
	const uint8_t *l4 = (const uint8_t *)(ip + 1);
	uint32_t plen = rte_be_to_cpu_16(ip->payload_len);

	if (len < sizeof(*ip) + plen)
		return;
	if (ip->proto == IPPROTO_TCP && plen >= sizeof(struct rte_tcp_hdr) &&
		memcmp(ip->dst_addr, rtw_cip6, 16) == 0)
		pump_tcp(true, (const struct rte_tcp_hdr *)l4, plen,
			(uint32_t)sizeof(*ip) + plen);
	else if (ip->proto == IPPROTO_ICMPV6 && plen >= 24 && l4[0] == ND_NS &&
		memcmp(l4 + 8, rtw_cip6, 16) == 0 && RTW.rt != NULL)
		nd_send(ND_NA, ip->src_addr, rtw_cip6);
}

/* One frame the runtime sent. */
static void
pump_one(struct rte_mbuf *m)
{
	static uint8_t f[16384];
	const struct rte_ether_hdr *e;
	const struct rte_ipv4_hdr *ip;
	uint32_t len = rte_pktmbuf_pkt_len(m), ihl, tot;

	if (len < sizeof(*e) + sizeof(struct rte_ipv6_hdr) || len > sizeof(f))
		return;
	e = rte_pktmbuf_read(m, 0, len, f);
	len -= (uint32_t)sizeof(*e);
	if (e->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6)) {
		pump_ip6((const struct rte_ipv6_hdr *)(e + 1), len);
		return;
	}
	if (e->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return;
	ip = (const struct rte_ipv4_hdr *)(e + 1);
	if (ip->next_proto_id != IPPROTO_TCP)
		return;
	ihl = (ip->version_ihl & 0xf) * 4u;
	tot = rte_be_to_cpu_16(ip->total_length);
	if (tot > len || tot < ihl + sizeof(struct rte_tcp_hdr))
		return;
	pump_tcp(false, (const struct rte_tcp_hdr *)((const uint8_t *)ip + ihl),
		tot - ihl, tot);
}

static void
pump_tcp(bool v6, const struct rte_tcp_hdr *th, uint32_t l4, uint32_t plen)
{
	uint32_t thl = (th->data_off >> 4) * 4u, dlen, seq;
	struct rtw_cli *c;
	bool ack = false;

	if (thl > l4)
		return;
	dlen = l4 - thl;
	c = cli_of(v6, rte_be_to_cpu_16(th->dst_port));
	if (c == NULL)
		return;
	if (dlen > c->seg_max)
		c->seg_max = dlen;
	if (dlen > 0)
		c->nseg++;
	if (plen > c->pkt_max)
		c->pkt_max = plen;
	seq = rte_be_to_cpu_32(th->sent_seq);
	if (th->tcp_flags & RTE_TCP_RST_FLAG) {
		c->rst = true;
		return;
	}
	if ((th->tcp_flags & RTE_TCP_SYN_FLAG) &&
		(th->tcp_flags & RTE_TCP_ACK_FLAG)) {
		c->rcv_nxt = seq + 1;
		c->established = true;
		ack = true;
	} else if (seq == c->rcv_nxt) {
		if (dlen > 0) {
			assert_true(c->nrx + dlen <= sizeof(c->rx));
			memcpy(c->rx + c->nrx, (const uint8_t *)th + thl, dlen);
			c->nrx += dlen;
			c->rcv_nxt += dlen;
			ack = true;
		}
		if (th->tcp_flags & RTE_TCP_FIN_FLAG) {
			c->rcv_nxt++;
			c->fin = true;
			ack = true;
		}
	} else if (dlen > 0) {
		ack = true; /* a retransmission: say where we are */
	}
	if (ack && RTW.rt != NULL)
		cli_seg(c, RTE_TCP_ACK_FLAG, NULL, 0);
}

unsigned int
rtw_pump(void)
{
	struct rte_mbuf *m;
	unsigned int n = 0;

	while (rte_ring_dequeue(txr, (void **)&m) == 0) {
		if (m == NULL)
			continue; /* tx_copy() found no mbuf */
		pump_one(m);
		rte_pktmbuf_free(m);
		n++;
	}
	return n;
}

void
rtw_run(void)
{
	unsigned int i;

	for (i = 0; i < 256; i++) {
		assert_int_equal(rt_test_step(RTW.rt, 0),
			EWYK_STRATEGY_PRODUCE_STOPPED);
		if (rtw_pump() == 0 && rte_ring_count(rxr) == 0)
			return;
	}
	fail_msg("the world does not settle");
}

static struct rtw_cli *
cli_connect(unsigned int i, bool v6)
{
	struct rtw_cli *c = &RTW.cli[i];

	memset(c, 0, sizeof(*c));
	c->used = true;
	c->v6 = v6;
	c->sport = (uint16_t)(40000 + i);
	c->snd_nxt = 1000 + i * 100000;
	cli_seg(c, RTE_TCP_SYN_FLAG, NULL, 0);
	rtw_run();
	assert_true(c->established);
	return c;
}

struct rtw_cli *
rtw_connect(unsigned int i)
{
	return cli_connect(i, false);
}

struct rtw_cli *
rtw_connect6(unsigned int i)
{
	return cli_connect(i, true);
}

void
rtw_send(struct rtw_cli *c, const char *s)
{
	cli_seg(c, RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG, s, (uint16_t)strlen(s));
}

void
rtw_rst(struct rtw_cli *c)
{
	cli_seg(c, RTE_TCP_RST_FLAG, NULL, 0);
}

void
rtw_send_bytes(struct rtw_cli *c, const void *p, uint16_t len)
{
	cli_seg(c, RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG, p, len);
}

int
rtw_resp_next(struct rtw_cli *c, struct rtw_resp *r)
{
	const char *p = c->rx + c->off, *end, *cl;
	size_t avail = c->nrx - c->off, head, blen = 0;
	char hbuf[2048];

	end = memmem(p, avail, "\r\n\r\n", 4);
	if (end == NULL || avail < 12)
		return 0;
	head = (size_t)(end - p) + 4;
	if (head >= sizeof(hbuf))
		return 0;
	memcpy(hbuf, p, head);
	hbuf[head] = '\0';
	cl = strcasestr(hbuf, "\r\ncontent-length:");
	if (cl != NULL)
		blen = strtoul(cl + 17, NULL, 10);
	if (avail < head + blen)
		return 0;
	r->status = atoi(hbuf + 9);
	r->body = p + head;
	r->body_len = blen;
	c->off += head + blen;
	return 1;
}
