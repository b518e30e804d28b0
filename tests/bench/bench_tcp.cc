/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/tcp per-core costs, no NIC, through lib/net: one ewyk endpoint on a
 * ring-backed port (rte_eth_from_rings), fed real Ethernet/IPv4/TCP frames
 * by a synthetic peer. The port offers no checksum offload, so ewyk checks
 * the IPv4 and TCP checksums of every frame and computes those of every
 * frame it sends, in software. What it sends goes out through
 * ewyk_net_tx_flush() into the port's TX ring (the "wire").
 *
 * The peer's work (building frames, computing their checksums, reading the
 * wire) is outside the timed region (PauseTiming, amortised over a batch);
 * the timed region is ewyk: ewyk_net_input() of the frames in bursts of 32
 * (Ethernet, IPv4, TCP, the application's callbacks) and the TX flush
 * after each burst.
 *
 *  BM_ewyk_conn_lifetime    one passive connection from SYN to freed, in
 *                           batches of 256 connections: 4 segments in (SYN;
 *                           ACK; FIN; the last ACK), 2 out (SYN-ACK; FIN,
 *                           which carries the ACK of the peer's FIN; the
 *                           application closes on EOF). items = connections;
 *                           counters segments_in, segments_out per
 *                           connection (measured on the wire).
 *  BM_ewyk_rx_segment       in-order full-sized segments (1460 bytes:
 *                           1500-byte MTU, MSS 1460, no timestamps) into
 *                           an established connection, delivered
 *                           zero-copy to the application (which consumes
 *                           them), delayed ACKs (one per two full-sized
 *                           segments, counter acks_per_segment).
 *                           items = segments.
 *  BM_ewyk_tx_64k           the application sends 64 KiB (32 mbufs of 2 KiB,
 *                           allocated in the timed region); TCP cuts it
 *                           into 1460-byte segments referencing them
 *                           (indirect mbufs) with software checksums; the
 *                           peer ACKs what is in flight until all of it is
 *                           acknowledged. bytes/s of payload.
 *
 * The Linux kernel, same binary, its two endpoints in this one thread
 * (what an application pays there: syscalls, copies, both stacks):
 *
 *  BM_kernel_conn_lifetime  connect (nonblocking) + accept + close of both
 *                           ends, over a veth pair (1500-byte MTU, TSO,
 *                           GSO, GRO and checksum offload off, timestamps
 *                           off: 1460-byte segments, as ewyk's) between
 *                           this namespace and a network namespace of its
 *                           own.
 *  BM_kernel_veth_64k       write 64 KiB into a TCP socket and read it at
 *                           the other end, over the same veth pair.
 *  BM_kernel_loopback_64k   the same over 127.0.0.1 (64 KiB MTU).
 *
 * The veth rows need root (ip netns, ip link, ethtool); without it they
 * report an error saying so. The kernel rows include both endpoints and
 * the ewyk rows one: they are not a ratio (docs/guides/tcp.md).
 *
 * Run: taskset -c 1 build/tests/bench/bench_tcp --benchmark_repetitions=5
 *      --benchmark_report_aggregates_only=true
 */

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_tcp.h>

#include <ewyk_net.h>
#include <ewyk_tcp.h>

#include "bench_common.h"
#include "bench_tcp_kernel.h"

namespace
{

constexpr uint32_t kLocal = RTE_IPV4(10, 0, 0, 1);
constexpr uint32_t kPeer = RTE_IPV4(10, 0, 0, 2);
constexpr uint16_t kPort = 80;
constexpr uint16_t kMss = 1460; /* full-sized: MSS 1460, no timestamps */
constexpr unsigned int kBurst = 32;
constexpr unsigned int kConnBatch = 256;
constexpr unsigned int kSegBatch = 256;

struct rte_mempool *g_mp;
struct rte_ring *g_rx, *g_tx; /* the port's rings: peer -> ewyk, ewyk -> peer */
struct ewyk_net *g_net;
struct ewyk_net_shard *g_sh;
struct rte_ether_addr g_our_mac;
const struct rte_ether_addr g_peer_mac = { { 0x02, 0, 0, 0, 0, 0x02 } };

/* ---- the peer ---- */

/* A frame from the peer: Ethernet, IPv4, TCP (+ MSS option), len bytes. */
struct rte_mbuf *
frame(uint16_t sport, uint32_t seq, uint32_t ack, uint8_t flags, uint16_t len,
	bool mss_opt)
{
	unsigned int thl = mss_opt ? 24 : 20;
	unsigned int tot = sizeof(struct rte_ether_hdr) +
		sizeof(struct rte_ipv4_hdr) + thl + len;
	struct rte_mbuf *m = rte_pktmbuf_alloc(g_mp);
	struct rte_ether_hdr *e;
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;

	if (m == nullptr)
		return nullptr;
	e = (struct rte_ether_hdr *)rte_pktmbuf_append(m, (uint16_t)tot);
	if (e == nullptr) {
		rte_pktmbuf_free(m);
		return nullptr;
	}
	rte_ether_addr_copy(&g_our_mac, &e->dst_addr);
	rte_ether_addr_copy(&g_peer_mac, &e->src_addr);
	e->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(e + 1);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(
		(uint16_t)(sizeof(*ip) + thl + len));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_TCP;
	ip->src_addr = rte_cpu_to_be_32(kPeer);
	ip->dst_addr = rte_cpu_to_be_32(kLocal);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	th = (struct rte_tcp_hdr *)(ip + 1);
	th->src_port = rte_cpu_to_be_16(sport);
	th->dst_port = rte_cpu_to_be_16(kPort);
	th->sent_seq = rte_cpu_to_be_32(seq);
	th->recv_ack = rte_cpu_to_be_32(ack);
	th->data_off = (uint8_t)((thl / 4) << 4);
	th->tcp_flags = flags;
	th->rx_win = RTE_BE16(65535);
	th->cksum = 0;
	th->tcp_urp = 0;
	if (mss_opt) {
		uint8_t *o = (uint8_t *)(th + 1);

		o[0] = 2;
		o[1] = 4;
		o[2] = (uint8_t)(1460 >> 8);
		o[3] = (uint8_t)(1460 & 0xff);
	}
	th->cksum = rte_ipv4_udptcp_cksum(ip, th);
	return m;
}

/* What ewyk last sent to a peer port. */
struct Seen {
	uint32_t seq = 0, ack = 0;
	uint8_t flags = 0;
};

std::vector<Seen> g_seen(65536);

/* Read the wire: note each segment ewyk sent, free it. Returns the count. */
unsigned int
drain()
{
	struct rte_mbuf *m[kBurst];
	unsigned int n, i, total = 0;

	while ((n = rte_ring_dequeue_burst(g_tx, (void **)m, kBurst, nullptr)) >
		0) {
		for (i = 0; i < n; i++) {
			const struct rte_ether_hdr *e = rte_pktmbuf_mtod(m[i],
				const struct rte_ether_hdr *);
			const struct rte_ipv4_hdr *ip;
			const struct rte_tcp_hdr *th;

			if (e->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV4)) {
				ip = (const struct rte_ipv4_hdr *)(e + 1);
				th = (const struct rte_tcp_hdr *)((const char *)
									  ip +
					rte_ipv4_hdr_len(ip));
				if (ip->next_proto_id == IPPROTO_TCP) {
					Seen &s = g_seen[rte_be_to_cpu_16(
						th->dst_port)];

					s.seq = rte_be_to_cpu_32(th->sent_seq);
					s.ack = rte_be_to_cpu_32(th->recv_ack);
					s.flags = th->tcp_flags;
					total++;
				}
			}
			rte_pktmbuf_free(m[i]);
		}
	}
	return total;
}

/* ---- ewyk: what is timed ---- */

/* Frames into the shard in bursts, flushing TX after each (a poll loop). */
inline void
input(std::vector<struct rte_mbuf *> &f)
{
	uint64_t now = rte_rdtsc();

	for (size_t i = 0; i < f.size(); i += kBurst) {
		uint16_t n = (uint16_t)RTE_MIN((size_t)kBurst, f.size() - i);

		ewyk_net_input(g_sh, 0, &f[i], n, now);
		ewyk_net_tx_flush(g_sh);
	}
	f.clear();
}

/* ---- the application ---- */

struct ewyk_tcp_conn *g_conn;

int
app_accept(void *, struct ewyk_tcp_conn *c)
{
	g_conn = c;
	return 0;
}

void
app_recv(void *, struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	ewyk_tcp_recvd(c, m->pkt_len);
	rte_pktmbuf_free(m);
}

void
app_eof(void *, struct ewyk_tcp_conn *c)
{
	ewyk_tcp_close(c);
}

const struct ewyk_tcp_ops g_ops = {
	app_accept,
	nullptr,
	app_recv,
	app_eof,
	nullptr,
	nullptr,
};

struct ewyk_tcp *
make_tcp(bool delack)
{
	struct ewyk_tcp_conf cf;

	memset(&cf, 0, sizeof(cf));
	cf.shard = g_sh;
	cf.socket_id = SOCKET_ID_ANY;
	cf.max_conns = 4096;
	cf.no_delack = !delack;
	cf.no_quickack = true;
	cf.no_timestamps =
		true; /* a NIC-speed peer would use them; see guide */
	cf.secret = 7;
	struct ewyk_tcp *t = ewyk_tcp_create(&cf);
	if (t == nullptr)
		return nullptr;
	if (ewyk_tcp_listen(t, 0, kPort, &g_ops, nullptr, 0) != 0) {
		ewyk_tcp_free(t);
		return nullptr;
	}
	ewyk_tcp_advance(t, rte_rdtsc());
	return t;
}

/* An established connection from peer port sport (untimed). */
bool
handshake(struct ewyk_tcp *t, uint16_t sport, uint32_t isn, uint32_t *iss)
{
	std::vector<struct rte_mbuf *> f;

	g_conn = nullptr;
	f.push_back(frame(sport, isn, 0, RTE_TCP_SYN_FLAG, 0, true));
	input(f);
	if (drain() != 1 ||
		g_seen[sport].flags != (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG))
		return false;
	*iss = g_seen[sport].seq;
	f.push_back(
		frame(sport, isn + 1, *iss + 1, RTE_TCP_ACK_FLAG, 0, false));
	input(f);
	drain();
	(void)t;
	return g_conn != nullptr;
}

void
BM_ewyk_conn_lifetime(benchmark::State &state)
{
	struct ewyk_tcp *t = make_tcp(false);
	std::vector<struct rte_mbuf *> f;
	const uint32_t isn = 5000;
	uint16_t base = 10000;
	uint64_t in = 0, out = 0;
	bool ok = true;

	if (t == nullptr) {
		state.SkipWithError("ewyk_tcp_create/listen failed");
		return;
	}
	f.reserve(2 * kConnBatch);
	while (ok && state.KeepRunningBatch(kConnBatch)) {
		state.PauseTiming();
		if (base > 65535 - kConnBatch)
			base = 10000;
		for (unsigned int i = 0; i < kConnBatch; i++)
			f.push_back(frame(base + i, isn, 0, RTE_TCP_SYN_FLAG, 0,
				true));
		state.ResumeTiming();
		input(f); /* SYN in, SYN-ACK out */
		state.PauseTiming();
		out += drain();
		for (unsigned int i = 0; i < kConnBatch; i++) {
			uint32_t iss = g_seen[base + i].seq;

			f.push_back(frame(base + i, isn + 1, iss + 1,
				RTE_TCP_ACK_FLAG, 0, false));
			f.push_back(frame(base + i, isn + 1, iss + 1,
				RTE_TCP_ACK_FLAG | RTE_TCP_FIN_FLAG, 0, false));
		}
		state.ResumeTiming();
		input(f); /* ACK, FIN in; FIN(+ACK) out */
		state.PauseTiming();
		out += drain();
		for (unsigned int i = 0; i < kConnBatch; i++) {
			const Seen &s = g_seen[base + i];

			if (!(s.flags & RTE_TCP_FIN_FLAG))
				ok = false;
			f.push_back(frame(base + i, isn + 2, s.seq + 1,
				RTE_TCP_ACK_FLAG, 0, false));
		}
		state.ResumeTiming();
		input(f); /* last ACK in */
		state.PauseTiming();
		out += drain();
		in += 4 * kConnBatch;
		base += kConnBatch;
		state.ResumeTiming();
	}
	if (!ok)
		state.SkipWithError("no FIN from ewyk");
	else if (ewyk_tcp_state_count(t, EWYK_TCP_ESTABLISHED) != 0 ||
		ewyk_tcp_counter_get(t, EWYK_TCP_CONN_CLOSED) !=
			ewyk_tcp_counter_get(t, EWYK_TCP_PASSIVE_OPENS) ||
		ewyk_tcp_counter_get(t, EWYK_TCP_PASSIVE_OPENS) !=
			(uint64_t)state.iterations())
		state.SkipWithError("connections not all opened and freed");
	state.counters["segments_in"] = benchmark::Counter((double)in,
		benchmark::Counter::kAvgIterations);
	state.counters["segments_out"] = benchmark::Counter((double)out,
		benchmark::Counter::kAvgIterations);
	state.SetItemsProcessed(state.iterations());
	ewyk_tcp_free(t);
}

void
BM_ewyk_rx_segment(benchmark::State &state)
{
	struct ewyk_tcp *t = make_tcp(true);
	std::vector<struct rte_mbuf *> f;
	const uint16_t sport = 20000;
	const uint32_t isn = 9000;
	uint32_t seq, iss;
	uint64_t acks = 0;

	if (t == nullptr || !handshake(t, sport, isn, &iss)) {
		state.SkipWithError("connection set-up failed");
		ewyk_tcp_free(t);
		return;
	}
	seq = isn + 1;
	f.reserve(kSegBatch);
	while (state.KeepRunningBatch(kSegBatch)) {
		state.PauseTiming();
		acks += drain();
		for (unsigned int i = 0; i < kSegBatch; i++) {
			f.push_back(frame(sport, seq, iss + 1, RTE_TCP_ACK_FLAG,
				kMss, false));
			seq += kMss;
		}
		state.ResumeTiming();
		input(f);
	}
	acks += drain();
	if (ewyk_tcp_counter_get(t, EWYK_TCP_BYTES_IN) !=
		(uint64_t)state.iterations() * kMss)
		state.SkipWithError("data not all delivered");
	state.counters["acks_per_segment"] = state.iterations() ?
		(double)acks / (double)state.iterations() :
		0;
	state.SetItemsProcessed(state.iterations());
	state.SetBytesProcessed(state.iterations() * kMss);
	ewyk_tcp_free(t);
}

void
BM_ewyk_tx_64k(benchmark::State &state)
{
	struct ewyk_tcp *t = make_tcp(false);
	std::vector<struct rte_mbuf *> f;
	const uint16_t sport = 30000;
	const uint32_t isn = 7000;
	uint32_t iss, una;
	uint64_t segs = 0;
	bool ok = true;

	if (t == nullptr || !handshake(t, sport, isn, &iss)) {
		state.SkipWithError("connection set-up failed");
		ewyk_tcp_free(t);
		return;
	}
	una = iss + 1;
	for (auto _ : state) {
		struct rte_mbuf *head = nullptr;
		struct ewyk_tcp_conn_info ci;

		for (int i = 0; i < 32 && ok; i++) {
			struct rte_mbuf *m = rte_pktmbuf_alloc(g_mp);

			if (m == nullptr ||
				rte_pktmbuf_append(m, 2048) == nullptr)
				ok = false;
			else if (head == nullptr)
				head = m;
			else if (rte_pktmbuf_chain(head, m) != 0)
				ok = false;
		}
		if (!ok || ewyk_tcp_send(g_conn, head) != 0) {
			ok = false;
			break;
		}
		ewyk_tcp_conn_info(g_conn, &ci);
		ewyk_net_tx_flush(g_sh);
		/* The peer ACKs all that is in flight until nothing is left. */
		while (ci.snd_queued > 0 && ci.in_flight > 0) {
			state.PauseTiming();
			segs += drain();
			una += ci.in_flight;
			f.push_back(frame(sport, isn + 1, una, RTE_TCP_ACK_FLAG,
				0, false));
			state.ResumeTiming();
			input(f);
			ewyk_tcp_conn_info(g_conn, &ci);
		}
		if (ci.snd_queued != 0) {
			ok = false;
			break;
		}
	}
	segs += drain();
	if (!ok)
		state.SkipWithError("send failed or data left queued");
	state.counters["segments_out"] = benchmark::Counter((double)segs,
		benchmark::Counter::kAvgIterations);
	state.SetBytesProcessed(state.iterations() * 65536);
	ewyk_tcp_free(t);
}

/* The port: rings, lib/net, one shard; the peer's MAC learnt by ARP. */
int
setup_net()
{
	struct ewyk_net_conf nc;
	struct ewyk_net_port_conf pc;
	struct ewyk_net_port_info info;
	struct rte_mempool *pools[1];
	struct rte_arp_hdr *a;
	struct rte_ether_hdr *e;
	struct rte_mbuf *m;
	struct rte_ether_addr mac;
	int port_id;

	g_mp = rte_pktmbuf_pool_create("bench_tcp", 65535, 256, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	g_rx = rte_ring_create("btcp_rx", 4096, SOCKET_ID_ANY,
		RING_F_SP_ENQ | RING_F_SC_DEQ);
	g_tx = rte_ring_create("btcp_tx", 4096, SOCKET_ID_ANY,
		RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (g_mp == nullptr || g_rx == nullptr || g_tx == nullptr)
		return -1;
	port_id = rte_eth_from_rings("btcp", &g_rx, 1, &g_tx, 1, SOCKET_ID_ANY);
	if (port_id < 0)
		return -1;
	memset(&nc, 0, sizeof(nc));
	nc.nb_shards = 1;
	g_net = ewyk_net_create(&nc);
	if (g_net == nullptr)
		return -1;
	pools[0] = g_mp;
	memset(&pc, 0, sizeof(pc));
	pc.port_id = (uint16_t)port_id;
	pc.ip = rte_cpu_to_be_32(kLocal);
	pc.prefix_len = 24;
	pc.rx_pools = pools;
	if (ewyk_net_port_add(g_net, &pc, &info) != 0)
		return -1;
	if (info.tx_l4_cksum || info.rx_cksum)
		fprintf(stderr,
			"bench_tcp: the ring port offers checksum "
			"offload: checksums are not computed in software\n");
	g_our_mac = info.mac;
	g_sh = ewyk_net_shard_create(g_net, 0, SOCKET_ID_ANY, g_mp);
	if (g_sh == nullptr)
		return -1;

	/* ARP request from the peer: ewyk learns its MAC and replies */
	m = rte_pktmbuf_alloc(g_mp);
	if (m == nullptr)
		return -1;
	e = (struct rte_ether_hdr *)rte_pktmbuf_append(m,
		sizeof(*e) + sizeof(*a));
	memset(&e->dst_addr, 0xff, sizeof(e->dst_addr));
	rte_ether_addr_copy(&g_peer_mac, &e->src_addr);
	e->ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
	a = (struct rte_arp_hdr *)(e + 1);
	memset(a, 0, sizeof(*a));
	a->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
	a->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	a->arp_hlen = RTE_ETHER_ADDR_LEN;
	a->arp_plen = 4;
	a->arp_opcode = RTE_BE16(RTE_ARP_OP_REQUEST);
	rte_ether_addr_copy(&g_peer_mac, &a->arp_data.arp_sha);
	a->arp_data.arp_sip = rte_cpu_to_be_32(kPeer);
	a->arp_data.arp_tip = rte_cpu_to_be_32(kLocal);
	ewyk_net_input(g_sh, 0, &m, 1, rte_rdtsc());
	ewyk_net_tx_flush(g_sh);
	drain();
	if (ewyk_net_arp_lookup(g_sh, 0, rte_cpu_to_be_32(kPeer), &mac) != 0) {
		fprintf(stderr,
			"bench_tcp: ewyk did not learn the peer's "
			"MAC from its ARP request\n");
		return -1;
	}
	return 0;
}

} /* namespace */

int
main(int argc, char **argv)
{
	if (ewyk_bench::eal_init(argv[0], "tcp", { "-l", "0-1" }, 512) < 0)
		return 1;
	if (setup_net() < 0) {
		fprintf(stderr, "bench_tcp: set-up failed: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	benchmark::RegisterBenchmark("BM_ewyk_conn_lifetime",
		BM_ewyk_conn_lifetime);
	benchmark::RegisterBenchmark("BM_ewyk_rx_segment", BM_ewyk_rx_segment);
	benchmark::RegisterBenchmark("BM_ewyk_tx_64k", BM_ewyk_tx_64k);
	benchmark::RegisterBenchmark("BM_kernel_conn_lifetime",
		bench_tcp_kernel::conn_lifetime);
	benchmark::RegisterBenchmark("BM_kernel_veth_64k",
		bench_tcp_kernel::veth_64k);
	benchmark::RegisterBenchmark("BM_kernel_loopback_64k",
		bench_tcp_kernel::loopback_64k);
	int rc = ewyk_bench::run(argc, argv);

	bench_tcp_kernel::teardown();
	return rc;
}
