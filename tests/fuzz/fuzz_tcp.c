/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for lib/tcp's segment input path. Every input is a
 * little script run against a fresh TCP context that listens on port 80:
 *
 *   op & 3 == 0  segment: 2 bytes of length, then that many bytes from the
 *                TCP header on. Bit 2: force the ports to the
 *                conversation's; bit 3: make seq/ack relative to the ISNs
 *                (so the fuzzer reaches the synchronized states); bit 4:
 *                check the checksum in software (bit 5: fill it right).
 *   op & 3 == 1  the clock moves by the next byte x 5 ms (timers fire).
 *   op & 3 == 2  the application acts on its newest connection (next
 *                byte): send, shutdown, close, abort, recvd.
 *   op & 3 == 3  active open to the peer.
 *
 * Everything sent is parsed (to learn our ISN) and freed. The fuzzer checks
 * for crashes, ASan/UBSan reports and mbuf leaks: when the context is
 * freed, every mbuf must be back in the pool.
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true
 *   build-fuzz/tests/fuzz/fuzz_tcp -max_total_time=60
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include <ewyk_tcp.h>

#include "fuzz_common.h"

#define LIP RTE_BE32(RTE_IPV4(10, 0, 0, 1))
#define PIP RTE_BE32(RTE_IPV4(10, 0, 0, 2))
#define MAXC 16

static struct rte_mempool *mp;
static uint32_t our_iss;
static struct ewyk_tcp_conn *conns[MAXC];
static unsigned int nconns;

static int
fz_output(void *arg, struct rte_mbuf *m, uint16_t port, rte_be32_t src,
	rte_be32_t dst)
{
	const struct rte_tcp_hdr *th = rte_pktmbuf_mtod(m,
		const struct rte_tcp_hdr *);

	(void)arg;
	(void)port;
	if (src != LIP || dst != PIP || m->data_len < sizeof(*th) ||
		m->pkt_len < (unsigned int)(th->data_off >> 4) * 4u)
		abort();
	if (th->tcp_flags & RTE_TCP_SYN_FLAG)
		our_iss = rte_be_to_cpu_32(th->sent_seq);
	rte_pktmbuf_free(m);
	return 0;
}

static void
forget(struct ewyk_tcp_conn *c)
{
	unsigned int i;

	for (i = 0; i < nconns; i++) {
		if (conns[i] == c) {
			conns[i] = conns[--nconns];
			return;
		}
	}
}

static void
remember(struct ewyk_tcp_conn *c)
{
	if (nconns < MAXC)
		conns[nconns++] = c;
}

static int
fz_accept(void *arg, struct ewyk_tcp_conn *c)
{
	(void)arg;
	remember(c);
	return 0;
}

static void
fz_connected(void *ctx, struct ewyk_tcp_conn *c, int err)
{
	(void)ctx;
	if (err != 0)
		forget(c);
}

static void
fz_recv(void *ctx, struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	(void)ctx;
	ewyk_tcp_recvd(c, m->pkt_len);
	rte_pktmbuf_free(m);
}

static void
fz_closed(void *ctx, struct ewyk_tcp_conn *c, int err)
{
	(void)ctx;
	(void)err;
	forget(c);
}

static const struct ewyk_tcp_ops ops = {
	.accept = fz_accept,
	.connected = fz_connected,
	.recv = fz_recv,
	.closed = fz_closed,
};

static int
init(void)
{
	mp = fuzz_init("fuzz_tcp", "256", 4095);
	return mp == NULL ? -1 : 0;
}

static void
app_action(uint8_t what)
{
	struct ewyk_tcp_conn *c;

	if (nconns == 0)
		return;
	c = conns[nconns - 1];
	switch (what % 5) {
	case 0: {
		struct rte_mbuf *m = rte_pktmbuf_alloc(mp);

		if (m == NULL)
			abort();
		if (rte_pktmbuf_append(m, (uint16_t)(1 + what * 7)) == NULL ||
			ewyk_tcp_send(c, m) != 0)
			rte_pktmbuf_free(m);
		break;
	}
	case 1:
		ewyk_tcp_shutdown(c);
		break;
	case 2:
		forget(c);
		ewyk_tcp_close(c);
		break;
	case 3:
		forget(c);
		ewyk_tcp_abort(c);
		break;
	default:
		ewyk_tcp_recvd(c, what);
		break;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	static const uint32_t pisn = 7000;
	struct ewyk_tcp_conf cf;
	struct ewyk_tcp *t;
	uint64_t now, hz;
	unsigned int avail;
	size_t i = 0;

	if (!ready) {
		if (init() != 0)
			abort();
		ready = 1;
	}
	avail = rte_mempool_avail_count(mp);
	memset(&cf, 0, sizeof(cf));
	cf.output = fz_output;
	cf.tx_pool = mp;
	cf.socket_id = SOCKET_ID_ANY;
	cf.max_conns = MAXC;
	cf.ooo_max_segs = 8;
	cf.secret = 1;
	t = ewyk_tcp_create(&cf);
	if (t == NULL || ewyk_tcp_listen(t, 0, 80, &ops, NULL, 2) != 0)
		abort();
	hz = rte_get_tsc_hz();
	now = rte_rdtsc() + hz;
	ewyk_tcp_advance(t, now);
	our_iss = 0;
	nconns = 0;
	while (i < size) {
		uint8_t op = data[i++];

		switch (op & 3) {
		case 0: {
			struct ewyk_net_ip_info ip = {
				.src = PIP,
				.dst = LIP,
				.proto = IPPROTO_TCP,
				.ttl = 64,
				.cksum_good = (op & 0x10) == 0,
			};
			struct rte_mbuf *m;
			struct rte_tcp_hdr *th;
			size_t len;
			char *p;

			if (i + 2 > size)
				goto out;
			len = ((size_t)data[i] << 8 | data[i + 1]) % 1600;
			i += 2;
			if (len > size - i)
				len = size - i;
			m = rte_pktmbuf_alloc(mp);
			if (m == NULL)
				abort();
			p = rte_pktmbuf_append(m, (uint16_t)len);
			memcpy(p, data + i, len);
			i += len;
			th = (struct rte_tcp_hdr *)p;
			if (len >= sizeof(*th)) {
				if (op & 0x04) {
					th->src_port = RTE_BE16(40000);
					th->dst_port = RTE_BE16(
						(op & 0x40) ? 33000 : 80);
				}
				if (op & 0x08) {
					th->sent_seq = rte_cpu_to_be_32(pisn +
						(rte_be_to_cpu_32(
							 th->sent_seq) &
							0xffff));
					th->recv_ack = rte_cpu_to_be_32(
						our_iss +
						(rte_be_to_cpu_32(
							 th->recv_ack) &
							0xffff));
				}
				if ((op & 0x30) == 0x30) {
					th->cksum = 0;
					th->cksum = ewyk_net_l4_cksum(m, PIP,
						LIP, IPPROTO_TCP);
				}
			}
			ip.l4_len = (uint16_t)len;
			ewyk_tcp_input(t, m, &ip);
			break;
		}
		case 1:
			if (i < size)
				now += (uint64_t)data[i++] * hz / 200;
			ewyk_tcp_advance(t, now);
			break;
		case 2:
			if (i < size)
				app_action(data[i++]);
			break;
		default: {
			struct ewyk_tcp_connect_args a = {
				.dst_ip = PIP,
				.dst_port = 40000,
				.src_ip = LIP,
				.src_port = (op & 0x40) ? 33000 : 0,
				.ops = &ops,
			};
			struct ewyk_tcp_conn *c = ewyk_tcp_connect(t, &a);

			if (c != NULL)
				remember(c);
			break;
		}
		}
	}
out:
	ewyk_tcp_free(t);
	if (rte_mempool_avail_count(mp) != avail)
		abort();
	return 0;
}
