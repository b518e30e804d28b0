/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_tcp's kernel rows: the Linux TCP stack, both endpoints in the
 * benchmark's thread, over a veth pair between this network namespace and
 * one of its own (1500-byte MTU; TSO, GSO, GRO and checksum offloads off,
 * TCP timestamps off in that namespace, so the connecting end does not
 * offer them: the kernel cuts 1460-byte segments and computes checksums
 * in software, as ewyk does in bench_tcp), and over 127.0.0.1.
 *
 * The namespace and the veth pair are made with ip(8) and ethtool(8) on
 * first use (root needed) and removed at exit; when that fails the veth
 * rows report an error that says so.
 */

#ifndef EWYK_BENCH_TCP_KERNEL_H
#define EWYK_BENCH_TCP_KERNEL_H

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <benchmark/benchmark.h>

namespace bench_tcp_kernel
{

struct Net {
	bool tried = false;
	bool ok = false;
	std::string err;
	std::string ns, va, vb;
	uint32_t ip_a = 0, ip_b = 0; /* host order */
};

inline Net g_net;

inline int
sh(const std::string &cmd)
{
	return system((cmd + " >/dev/null 2>&1").c_str());
}

/* The namespace and the veth pair, once. */
inline bool
veth_setup()
{
	Net &n = g_net;
	unsigned int pid = (unsigned int)getpid();
	char a[32], b[32];

	if (n.tried)
		return n.ok;
	n.tried = true;
	n.ns = "ewykb" + std::to_string(pid);
	n.va = "ewb" + std::to_string(pid % 10000000) + "a";
	n.vb = "ewb" + std::to_string(pid % 10000000) + "b";
	/* 198.18.0.0/15: benchmarking addresses (RFC 2544), a /30 per pid */
	n.ip_a = (198u << 24) | (18u << 16) | ((pid % 256) << 8) |
		((pid / 256 % 64) << 2) | 1;
	n.ip_b = n.ip_a + 1;
	snprintf(a, sizeof(a), "%u.%u.%u.%u/30", n.ip_a >> 24,
		(n.ip_a >> 16) & 255, (n.ip_a >> 8) & 255, n.ip_a & 255);
	snprintf(b, sizeof(b), "%u.%u.%u.%u/30", n.ip_b >> 24,
		(n.ip_b >> 16) & 255, (n.ip_b >> 8) & 255, n.ip_b & 255);
	const std::string off = " tso off gso off gro off tx off rx off";
	const std::string cmds[] = {
		"ip netns add " + n.ns,
		"ip link add " + n.va + " type veth peer name " + n.vb,
		"ip link set " + n.vb + " netns " + n.ns,
		"ip addr add " + std::string(a) + " dev " + n.va,
		"ip link set " + n.va + " mtu 1500 up",
		"ip -n " + n.ns + " addr add " + std::string(b) + " dev " +
			n.vb,
		"ip -n " + n.ns + " link set " + n.vb + " mtu 1500 up",
		"ip -n " + n.ns + " link set lo up",
		"ip netns exec " + n.ns +
			" sysctl -qw net.ipv4.tcp_timestamps=0",
		"ethtool -K " + n.va + off,
		"ip netns exec " + n.ns + " ethtool -K " + n.vb + off,
	};
	for (const auto &c : cmds) {
		if (sh(c) != 0) {
			n.err = "cannot set up the veth pair and namespace "
				"(root, ip and ethtool needed): `" +
				c + "` failed";
			return false;
		}
	}
	n.ok = true;
	return true;
}

inline void
teardown()
{
	if (!g_net.tried)
		return;
	sh("ip netns del " + g_net.ns);
	sh("ip link del " + g_net.va);
}

/*
 * Move this thread into the benchmark's namespace (enter) and back
 * (leave): sockets made in between live there. A listening socket made
 * before enter stays in this namespace, so one thread holds both ends
 * without a setns() per connection.
 */
inline int g_self_ns = -1;

inline bool
enter_ns()
{
	std::string path = "/var/run/netns/" + g_net.ns;
	int ns = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	bool ok;

	if (g_self_ns < 0)
		g_self_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ok = ns >= 0 && g_self_ns >= 0 && setns(ns, CLONE_NEWNET) == 0;
	if (ns >= 0)
		close(ns);
	return ok;
}

inline void
leave_ns()
{
	if (setns(g_self_ns, CLONE_NEWNET) != 0)
		abort(); /* cannot come back: the thread is lost */
}

/* A listening socket on addr (host order), port chosen by the kernel. */
inline int
listener(uint32_t addr, struct sockaddr_in *sa)
{
	socklen_t len = sizeof(*sa);
	int one = 1;
	int l = socket(AF_INET, SOCK_STREAM, 0);

	if (l < 0)
		return -1;
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = htonl(addr);
	if (bind(l, (struct sockaddr *)sa, sizeof(*sa)) != 0 ||
		listen(l, 4096) != 0 ||
		getsockname(l, (struct sockaddr *)sa, &len) != 0) {
		close(l);
		return -1;
	}
	return l;
}

/* Write 64 KiB from c, read it at a, per iteration. */
inline void
stream_64k(benchmark::State &state, int c, int a)
{
	static char buf[65536];
	int one = 1;

	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	for (auto _ : state) {
		size_t done = 0;

		while (done < sizeof(buf)) {
			ssize_t w = write(c, buf, sizeof(buf) - done);
			ssize_t r = 0;

			if (w <= 0) {
				state.SkipWithError("write failed");
				return;
			}
			done += (size_t)w;
			/* read what was written */
			while (r < w) {
				ssize_t k = read(a, buf, (size_t)(w - r));

				if (k <= 0) {
					state.SkipWithError("read failed");
					return;
				}
				r += k;
			}
		}
	}
	state.SetBytesProcessed(state.iterations() * 65536);
}

inline void
conn_lifetime(benchmark::State &state)
{
	struct linger lg = { 1, 0 };
	struct sockaddr_in sa;
	int l;

	if (!veth_setup()) {
		state.SkipWithError(g_net.err.c_str());
		return;
	}
	l = listener(g_net.ip_a, &sa);
	if (l < 0 || !enter_ns()) {
		state.SkipWithError("listen or setns failed");
		if (l >= 0)
			close(l);
		return;
	}
	for (auto _ : state) {
		int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		int a;

		if (c < 0 ||
			(connect(c, (struct sockaddr *)&sa, sizeof(sa)) != 0 &&
				errno != EINPROGRESS)) {
			state.SkipWithError("socket/connect failed");
			if (c >= 0)
				close(c);
			break;
		}
		a = accept(l, nullptr, nullptr);
		if (a < 0) {
			state.SkipWithError("accept failed");
			close(c);
			break;
		}
		/* orderly close from the server, then the client resets (no
		 * TIME_WAIT pile-up on the client) */
		close(a);
		setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(c);
	}
	leave_ns();
	close(l);
	state.SetItemsProcessed(state.iterations());
}

inline void
veth_64k(benchmark::State &state)
{
	struct sockaddr_in sa;
	int l, c, a;

	if (!veth_setup()) {
		state.SkipWithError(g_net.err.c_str());
		return;
	}
	l = listener(g_net.ip_a, &sa);
	c = -1;
	if (l >= 0 && enter_ns()) {
		c = socket(AF_INET, SOCK_STREAM, 0);
		leave_ns();
	}
	if (l < 0 || c < 0 ||
		connect(c, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
		(a = accept(l, nullptr, nullptr)) < 0) {
		state.SkipWithError("connection over veth failed");
		if (l >= 0)
			close(l);
		if (c >= 0)
			close(c);
		return;
	}
	struct tcp_info ti;
	socklen_t tl = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(c, IPPROTO_TCP, TCP_INFO, &ti, &tl) != 0 ||
		(ti.tcpi_options & TCPI_OPT_TIMESTAMPS) != 0) {
		state.SkipWithError("timestamps on over veth: segments would "
				    "not be ewyk's 1460 bytes");
	} else {
		state.counters["snd_mss"] = ti.tcpi_snd_mss;
		stream_64k(state, c, a);
	}
	close(c);
	close(a);
	close(l);
}

inline void
loopback_64k(benchmark::State &state)
{
	struct sockaddr_in sa;
	int l = listener(INADDR_LOOPBACK, &sa);
	int c = socket(AF_INET, SOCK_STREAM, 0);
	int a;

	if (l < 0 || c < 0 ||
		connect(c, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
		(a = accept(l, nullptr, nullptr)) < 0) {
		state.SkipWithError("connection over loopback failed");
		if (l >= 0)
			close(l);
		if (c >= 0)
			close(c);
		return;
	}
	stream_64k(state, c, a);
	close(c);
	close(a);
	close(l);
}

} /* namespace bench_tcp_kernel */

#endif /* EWYK_BENCH_TCP_KERNEL_H */
