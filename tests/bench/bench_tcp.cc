/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/tcp per-core costs, no NIC: segments are built in memory, handed to
 * ewyk_tcp_input() as a NIC with checksum offload would deliver them, and
 * what TCP sends is freed by the output hook (a NIC taking it). Beside
 * them, the same work done by the Linux kernel over 127.0.0.1 in the same
 * binary (syscalls included: that is what an application pays there).
 *
 *  BM_ewyk_conn_lifetime    one passive connection from SYN to freed:
 *                           SYN in, SYN-ACK out, ACK in (accept), FIN in,
 *                           the application closes (FIN out), last ACK in.
 *                           items = connections.
 *  BM_kernel_conn_lifetime  connect + accept + close of both ends on
 *                           loopback, one thread (nonblocking connect).
 *  BM_ewyk_rx_segment       in-order 1448-byte segments into an established
 *                           connection, delivered zero-copy to the
 *                           application (which consumes them), delayed
 *                           ACKs (one per two segments). items = segments.
 *  BM_ewyk_tx_64k           the application sends 64 KiB (32 mbufs of 2 KiB);
 *                           TCP cuts it into 46 segments referencing them
 *                           (indirect mbufs); the peer's ACK frees them.
 *                           bytes/s of payload.
 *  BM_kernel_loopback_64k   write 64 KiB into a loopback TCP socket and read
 *                           it from the other end, one thread.
 *
 * Run: build/tests/bench/bench_tcp --benchmark_repetitions=5
 *      --benchmark_report_aggregates_only=true (pinned with taskset -c 1).
 */

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include <ewyk_tcp.h>

namespace {

const rte_be32_t kLocal = RTE_BE32(RTE_IPV4(10, 0, 0, 1));
const rte_be32_t kPeer = RTE_BE32(RTE_IPV4(10, 0, 0, 2));
constexpr uint16_t kPort = 80;
constexpr uint32_t kMss = 1448;

struct rte_mempool *g_mp;

/* What the last segment sent said (seq, ack), for the next crafted one. */
struct last_out {
	uint32_t seq, ack;
	uint8_t flags;
	unsigned int n;
} g_out;

int
out_free(void *arg, struct rte_mbuf *m, uint16_t port, rte_be32_t src,
		rte_be32_t dst)
{
	const struct rte_tcp_hdr *th = rte_pktmbuf_mtod(m, const struct rte_tcp_hdr *);

	(void)arg;
	(void)port;
	(void)src;
	(void)dst;
	g_out.seq = rte_be_to_cpu_32(th->sent_seq);
	g_out.ack = rte_be_to_cpu_32(th->recv_ack);
	g_out.flags = th->tcp_flags;
	g_out.n++;
	rte_pktmbuf_free(m);
	return 0;
}

struct ewyk_tcp_conn *g_conn;

int
app_accept(void *arg, struct ewyk_tcp_conn *c)
{
	(void)arg;
	g_conn = c;
	return 0;
}

void
app_recv(void *ctx, struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	(void)ctx;
	ewyk_tcp_recvd(c, m->pkt_len);
	rte_pktmbuf_free(m);
}

void
app_eof(void *ctx, struct ewyk_tcp_conn *c)
{
	(void)ctx;
	ewyk_tcp_close(c);
}

const struct ewyk_tcp_ops g_ops = {
	app_accept, nullptr, app_recv, app_eof, nullptr, nullptr,
};

struct ewyk_tcp *
make_tcp(bool delack)
{
	struct ewyk_tcp_conf cf;

	memset(&cf, 0, sizeof(cf));
	cf.output = out_free;
	cf.tx_pool = g_mp;
	cf.socket_id = SOCKET_ID_ANY;
	cf.max_conns = 4096;
	cf.no_delack = !delack;
	cf.no_quickack = true;
	cf.no_timestamps = true;   /* a NIC-speed peer would use them; see guide */
	cf.secret = 7;
	struct ewyk_tcp *t = ewyk_tcp_create(&cf);
	if (t == nullptr || ewyk_tcp_listen(t, 0, kPort, &g_ops, nullptr, 0) != 0)
		abort();
	ewyk_tcp_advance(t, rte_rdtsc());
	return t;
}

/* A segment as a NIC would hand it over (checksum verified by hardware). */
inline void
inject(struct ewyk_tcp *t, uint16_t sport, uint32_t seq, uint32_t ack,
		uint8_t flags, uint16_t len, bool mss_opt)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(g_mp);
	unsigned int hlen = mss_opt ? 24 : 20;
	struct rte_tcp_hdr *th;
	struct ewyk_net_ip_info ip;

	if (m == nullptr)
		abort();
	th = (struct rte_tcp_hdr *)rte_pktmbuf_append(m, (uint16_t)(hlen + len));
	th->src_port = rte_cpu_to_be_16(sport);
	th->dst_port = rte_cpu_to_be_16(kPort);
	th->sent_seq = rte_cpu_to_be_32(seq);
	th->recv_ack = rte_cpu_to_be_32(ack);
	th->data_off = (uint8_t)((hlen / 4) << 4);
	th->tcp_flags = flags;
	th->rx_win = RTE_BE16(65535);
	th->cksum = 0;
	th->tcp_urp = 0;
	if (mss_opt) {
		uint8_t *o = (uint8_t *)(th + 1);

		o[0] = 2;
		o[1] = 4;
		o[2] = (uint8_t)(1460 >> 8);
		o[3] = (uint8_t)1460;
	}
	memset(&ip, 0, sizeof(ip));
	ip.src = kPeer;
	ip.dst = kLocal;
	ip.proto = IPPROTO_TCP;
	ip.ttl = 64;
	ip.cksum_good = true;
	ip.l4_len = (uint16_t)(hlen + len);
	ewyk_tcp_input(t, m, &ip);
}

void
BM_ewyk_conn_lifetime(benchmark::State &state)
{
	struct ewyk_tcp *t = make_tcp(false);
	uint16_t sport = 10000;
	const uint32_t isn = 5000;

	for (auto _ : state) {
		uint32_t iss;

		if (++sport == 0)
			sport = 10000;
		inject(t, sport, isn, 0, RTE_TCP_SYN_FLAG, 0, true);
		iss = g_out.seq;                          /* SYN-ACK */
		inject(t, sport, isn + 1, iss + 1, RTE_TCP_ACK_FLAG, 0, false);
		inject(t, sport, isn + 1, iss + 1,
				RTE_TCP_ACK_FLAG | RTE_TCP_FIN_FLAG, 0, false);
		/* The application closed on EOF: our FIN went; ACK it. */
		inject(t, sport, isn + 2, iss + 2, RTE_TCP_ACK_FLAG, 0, false);
	}
	if (ewyk_tcp_state_count(t, EWYK_TCP_ESTABLISHED) != 0 ||
			ewyk_tcp_counter_get(t, EWYK_TCP_CONN_CLOSED) !=
			ewyk_tcp_counter_get(t, EWYK_TCP_PASSIVE_OPENS))
		state.SkipWithError("connections left behind");
	state.SetItemsProcessed(state.iterations());
	ewyk_tcp_free(t);
}
BENCHMARK(BM_ewyk_conn_lifetime);

void
BM_ewyk_rx_segment(benchmark::State &state)
{
	struct ewyk_tcp *t = make_tcp(true);
	const uint32_t isn = 9000;
	uint32_t seq, iss;

	inject(t, 20000, isn, 0, RTE_TCP_SYN_FLAG, 0, true);
	iss = g_out.seq;
	inject(t, 20000, isn + 1, iss + 1, RTE_TCP_ACK_FLAG, 0, false);
	seq = isn + 1;
	for (auto _ : state) {
		inject(t, 20000, seq, iss + 1, RTE_TCP_ACK_FLAG, kMss, false);
		seq += kMss;
	}
	if (ewyk_tcp_counter_get(t, EWYK_TCP_BYTES_IN) !=
			(uint64_t)state.iterations() * kMss)
		state.SkipWithError("data not all delivered");
	state.SetItemsProcessed(state.iterations());
	state.SetBytesProcessed(state.iterations() * kMss);
	ewyk_tcp_free(t);
}
BENCHMARK(BM_ewyk_rx_segment);

void
BM_ewyk_tx_64k(benchmark::State &state)
{
	struct ewyk_tcp *t = make_tcp(false);
	const uint32_t isn = 7000;
	uint32_t iss, una;

	inject(t, 30000, isn, 0, RTE_TCP_SYN_FLAG, 0, true);
	iss = g_out.seq;
	inject(t, 30000, isn + 1, iss + 1, RTE_TCP_ACK_FLAG, 0, false);
	una = iss + 1;
	for (auto _ : state) {
		struct rte_mbuf *head = nullptr;

		for (int i = 0; i < 32; i++) {
			struct rte_mbuf *m = rte_pktmbuf_alloc(g_mp);

			if (m == nullptr || rte_pktmbuf_append(m, 2048) == nullptr)
				abort();
			if (head == nullptr)
				head = m;
			else if (rte_pktmbuf_chain(head, m) != 0)
				abort();
		}
		if (ewyk_tcp_send(g_conn, head) != 0)
			abort();
		/* The peer ACKs all that is in flight until nothing is left. */
		struct ewyk_tcp_conn_info ci;

		ewyk_tcp_conn_info(g_conn, &ci);
		while (ci.snd_queued > 0 && ci.in_flight > 0) {
			una += ci.in_flight;
			inject(t, 30000, isn + 1, una, RTE_TCP_ACK_FLAG, 0, false);
			ewyk_tcp_conn_info(g_conn, &ci);
		}
		if (ci.snd_queued != 0)
			abort();
	}
	state.SetBytesProcessed(state.iterations() * 65536);
	ewyk_tcp_free(t);
}
BENCHMARK(BM_ewyk_tx_64k);

/* ---- the kernel over 127.0.0.1 ---- */
int g_listen = -1;
struct sockaddr_in g_addr;

void
kernel_listen()
{
	socklen_t len = sizeof(g_addr);
	int one = 1;

	if (g_listen >= 0)
		return;
	g_listen = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(g_listen, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&g_addr, 0, sizeof(g_addr));
	g_addr.sin_family = AF_INET;
	g_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(g_listen, (struct sockaddr *)&g_addr, sizeof(g_addr)) != 0 ||
			listen(g_listen, 4096) != 0 ||
			getsockname(g_listen, (struct sockaddr *)&g_addr, &len) != 0)
		abort();
}

void
BM_kernel_conn_lifetime(benchmark::State &state)
{
	struct linger lg = { 1, 0 };

	kernel_listen();
	for (auto _ : state) {
		int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		int a;

		if (connect(c, (struct sockaddr *)&g_addr, sizeof(g_addr)) != 0 &&
				errno != EINPROGRESS)
			abort();
		a = accept(g_listen, nullptr, nullptr);
		if (a < 0)
			abort();
		/* Orderly close from the server, then the client (no
		 * TIME_WAIT pile-up on the client: it resets). */
		close(a);
		setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(c);
	}
	state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_kernel_conn_lifetime);

void
BM_kernel_loopback_64k(benchmark::State &state)
{
	static char buf[65536];
	int c, a, one = 1;

	kernel_listen();
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(c, (struct sockaddr *)&g_addr, sizeof(g_addr)) != 0)
		abort();
	a = accept(g_listen, nullptr, nullptr);
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	for (auto _ : state) {
		size_t done = 0;

		while (done < sizeof(buf)) {
			ssize_t w = write(c, buf, sizeof(buf) - done);
			ssize_t r;

			if (w <= 0)
				abort();
			done += (size_t)w;
			r = read(a, buf, sizeof(buf));
			if (r <= 0)
				abort();
			/* Keep reading what was written. */
			while ((size_t)r < (size_t)w) {
				ssize_t k = read(a, buf, (size_t)w - (size_t)r);

				if (k <= 0)
					abort();
				r += k;
			}
		}
	}
	close(c);
	close(a);
	state.SetBytesProcessed(state.iterations() * 65536);
}
BENCHMARK(BM_kernel_loopback_64k);

}  // namespace

int
main(int argc, char **argv)
{
	std::string prefix = "--file-prefix=bench_tcp_" + std::to_string(getpid());
	const char *eal[] = {
		argv[0], "--no-huge", "-m", "512", "-l", "0-1", "--no-pci",
		"--no-shconf", "--no-telemetry", "--log-level=lib.eal:error",
		prefix.c_str(),
	};

	if (rte_eal_init((int)(sizeof(eal) / sizeof(eal[0])),
			const_cast<char **>(eal)) < 0) {
		fprintf(stderr, "EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	g_mp = rte_pktmbuf_pool_create("bench_tcp", 65535, 256, 0,
			RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (g_mp == nullptr)
		return 1;
	benchmark::Initialize(&argc, argv);
	benchmark::RunSpecifiedBenchmarks();
	benchmark::Shutdown();
	rte_eal_cleanup();
	return 0;
}
