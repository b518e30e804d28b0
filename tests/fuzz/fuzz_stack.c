/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the whole input path: Ethernet frames into lib/net
 * (ewyk_net_input on a ring-backed port), on to lib/tcp and an echo
 * service as ewyk-httpd's (ewyk_tcp_recv_append, send as the buffer
 * allows, consumed when sent). One input is a sequence of operations
 * against one TCP context, so state carries across frames: connections
 * opened by earlier frames receive the later ones.
 *
 *   op & 3 == 0  frame: 2 bytes of length, then that many bytes.
 *                Bit 2 clear: a whole Ethernet frame (bit 3: addressed
 *                to our MAC). Bit 2 set: the bytes are a TCP segment (from
 *                its header on), wrapped in a valid Ethernet + IPv4
 *                header from the peer to us; bit 3: ports forced to
 *                (40000 + bits 6-7, 7) and seq/ack made relative to the
 *                peer's ISN and ours (so the fuzzer reaches the
 *                synchronized states); bit 4: TCP checksum filled right;
 *                bit 5: in IPv6 (2001:db8::1 to 2001:db8::2) instead.
 *   op & 3 == 1  the clock moves by the next byte x 5 ms (timers fire).
 *   op & 3 == 2  the echo's newest connection: close, abort or nothing
 *                (next byte).
 *   op & 3 == 3  an ARP request from the peer.
 *
 * The port has 2001:db8::2/64 (and its link-local address) as well, so raw
 * frames also exercise IPv6, neighbour discovery and ICMPv6.
 *
 * Invariants: no crash, no ASan/UBSan report, and when the context is
 * freed every mbuf is back in the pool (frames held for an ARP
 * resolution aside, at most the hold queue).
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true
 *   build-fuzz/tests/fuzz/fuzz_stack tests/fuzz/corpus/stack
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_tcp.h>

#include <ewyk_net.h>
#include <ewyk_tcp.h>

#include "fuzz_common.h"

#define LIP RTE_BE32(RTE_IPV4(10, 0, 0, 2))
#define PIP RTE_BE32(RTE_IPV4(10, 0, 0, 1))
#define ECHO_PORT 7
#define MAXC 16
#define PISN 7000u
#define ARP_SLACK 64 /* frames an unresolved neighbour may hold */

struct echo_conn {
	struct ewyk_tcp_conn *c;
	struct rte_mbuf *pend;
	int used;
};

static struct rte_mempool *mp;
static struct ewyk_net_shard *shard;
static struct rte_ring *txr;
static struct rte_ether_addr mac;
static const struct rte_ether_addr peer_mac = { .addr_bytes = { 0x02, 0, 0, 0,
							0, 1 } };
static struct echo_conn ec[MAXC];
static struct echo_conn *newest;
static uint32_t our_iss;

static void
ec_release(struct echo_conn *e)
{
	rte_pktmbuf_free(e->pend);
	e->pend = NULL;
	e->used = 0;
	if (newest == e)
		newest = NULL;
}

static void
ec_flush(struct echo_conn *e)
{
	uint32_t len;

	if (e->pend == NULL)
		return;
	len = e->pend->pkt_len;
	if (ewyk_tcp_send(e->c, e->pend) == 0) {
		e->pend = NULL;
		ewyk_tcp_recvd(e->c, len);
	}
}

static int
ec_accept(void *arg, struct ewyk_tcp_conn *c)
{
	unsigned int i;

	(void)arg;
	for (i = 0; i < MAXC; i++) {
		if (!ec[i].used) {
			memset(&ec[i], 0, sizeof(ec[i]));
			ec[i].used = 1;
			ec[i].c = c;
			ewyk_tcp_conn_set_ctx(c, &ec[i]);
			newest = &ec[i];
			return 0;
		}
	}
	return -1;
}

static void
ec_recv(void *ctx, struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	struct echo_conn *e = ctx;

	if (ewyk_tcp_recv_append(c, &e->pend, m) != 0) {
		rte_pktmbuf_free(m);
		ewyk_tcp_abort(c);
		ec_release(e);
		return;
	}
	ec_flush(e);
}

static void
ec_eof(void *ctx, struct ewyk_tcp_conn *c)
{
	struct echo_conn *e = ctx;

	ec_flush(e);
	ewyk_tcp_close(c);
	ec_release(e);
}

static void
ec_writable(void *ctx, struct ewyk_tcp_conn *c)
{
	(void)c;
	ec_flush(ctx);
}

static void
ec_closed(void *ctx, struct ewyk_tcp_conn *c, int err)
{
	(void)c;
	(void)err;
	ec_release(ctx);
}

static const struct ewyk_tcp_ops echo_ops = {
	.accept = ec_accept,
	.recv = ec_recv,
	.eof = ec_eof,
	.writable = ec_writable,
	.closed = ec_closed,
};

static int
init(void)
{
	mp = fuzz_init("fuzz_stack", "256", 4095);
	if (mp == NULL)
		return -1;
	shard = fuzz_ring_shard("fuzzstack", 1024, LIP, &mp, &txr, &mac);
	if (shard == NULL)
		return -1;
	/* IPv6 on too: raw frames reach the IPv6 input, ND and ICMPv6. */
	return ewyk_net_port_add_ip6(ewyk_net_shard_net(shard), 0, fuzz_ip6,
		64);
}

/* Whatever the stack sent: note our ISN from a SYN, free the rest. */
static void
drain_tx(void)
{
	struct rte_mbuf *out[64];
	unsigned int n, k;

	ewyk_net_tx_flush(shard);
	while ((n = rte_ring_dequeue_burst(txr, (void **)out, 64, NULL)) > 0) {
		for (k = 0; k < n; k++) {
			struct rte_mbuf *m = out[k];
			const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m,
				const struct rte_ether_hdr *);
			const struct rte_ipv4_hdr *ip;
			const struct rte_ipv6_hdr *ip6;
			const struct rte_tcp_hdr *th;
			size_t off = sizeof(struct rte_ether_hdr);

			if (m->data_len >= off + sizeof(*ip6) + sizeof(*th) &&
				eh->ether_type ==
					RTE_BE16(RTE_ETHER_TYPE_IPV6)) {
				ip6 = rte_pktmbuf_mtod_offset(m,
					const struct rte_ipv6_hdr *, off);
				th = (const struct rte_tcp_hdr *)(ip6 + 1);
				if (ip6->proto == IPPROTO_TCP &&
					(th->tcp_flags & RTE_TCP_SYN_FLAG))
					our_iss = rte_be_to_cpu_32(
						th->sent_seq);
			} else if (m->data_len >=
				off + sizeof(*ip) + sizeof(*th)) {
				ip = rte_pktmbuf_mtod_offset(m,
					const struct rte_ipv4_hdr *, off);
				th = rte_pktmbuf_mtod_offset(m,
					const struct rte_tcp_hdr *,
					off + rte_ipv4_hdr_len(ip));
				if (ip->next_proto_id == IPPROTO_TCP &&
					(th->tcp_flags & RTE_TCP_SYN_FLAG))
					our_iss = rte_be_to_cpu_32(
						th->sent_seq);
			}
		}
		rte_pktmbuf_free_bulk(out, n);
	}
}

static struct rte_mbuf *
frame_alloc(void)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);

	if (m == NULL)
		abort();
	return m;
}

static void
input(struct rte_mbuf *m)
{
	ewyk_net_input(shard, 0, &m, 1, 0);
	drain_tx();
}

static void
arp_from_peer(void)
{
	struct rte_mbuf *m = frame_alloc();
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m,
		sizeof(*eh) + sizeof(struct rte_arp_hdr));
	struct rte_arp_hdr *a = (struct rte_arp_hdr *)(eh + 1);

	memset(&eh->dst_addr, 0xff, sizeof(eh->dst_addr));
	eh->src_addr = peer_mac;
	eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
	a->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
	a->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	a->arp_hlen = RTE_ETHER_ADDR_LEN;
	a->arp_plen = 4;
	a->arp_opcode = RTE_BE16(RTE_ARP_OP_REQUEST);
	a->arp_data.arp_sha = peer_mac;
	a->arp_data.arp_sip = PIP;
	memset(&a->arp_data.arp_tha, 0, sizeof(a->arp_data.arp_tha));
	a->arp_data.arp_tip = LIP;
	input(m);
}

/* A TCP segment from the peer in valid Ethernet and IPv4 or IPv6 headers. */
static void
tcp_frame(uint8_t op, const uint8_t *d, size_t len)
{
	static const uint8_t peer6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	struct rte_mbuf *m = frame_alloc();
	bool v6 = (op & 0x20) != 0;
	size_t hl = sizeof(struct rte_ether_hdr) +
		(v6 ? sizeof(struct rte_ipv6_hdr) :
		      sizeof(struct rte_ipv4_hdr));
	struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ip;
	struct rte_ipv6_hdr *ip6;
	struct rte_tcp_hdr *th;
	char *p;

	if (len + hl > RTE_MBUF_DEFAULT_DATAROOM - 64)
		len = RTE_MBUF_DEFAULT_DATAROOM - 64 - hl;
	p = rte_pktmbuf_append(m, (uint16_t)(hl + len));
	eh = (struct rte_ether_hdr *)p;
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	ip6 = (struct rte_ipv6_hdr *)(eh + 1);
	eh->dst_addr = mac;
	eh->src_addr = peer_mac;
	if (v6) {
		eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
		memset(ip6, 0, sizeof(*ip6));
		ip6->vtc_flow = RTE_BE32(6u << 28);
		ip6->payload_len = rte_cpu_to_be_16((uint16_t)len);
		ip6->proto = IPPROTO_TCP;
		ip6->hop_limits = 64;
		memcpy(ip6->src_addr, peer6, 16);
		memcpy(ip6->dst_addr, fuzz_ip6, 16);
		th = (struct rte_tcp_hdr *)(ip6 + 1);
	} else {
		eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
		memset(ip, 0, sizeof(*ip));
		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->total_length = rte_cpu_to_be_16(
			(uint16_t)(sizeof(*ip) + len));
		ip->time_to_live = 64;
		ip->next_proto_id = IPPROTO_TCP;
		ip->src_addr = PIP;
		ip->dst_addr = LIP;
		th = (struct rte_tcp_hdr *)(ip + 1);
	}
	memcpy(th, d, len);
	if (len >= sizeof(*th)) {
		if (op & 0x08) {
			th->src_port = rte_cpu_to_be_16(
				(uint16_t)(40000 + (op >> 6)));
			th->dst_port = RTE_BE16(ECHO_PORT);
			th->sent_seq = rte_cpu_to_be_32(PISN +
				(rte_be_to_cpu_32(th->sent_seq) & 0xffff));
			th->recv_ack = rte_cpu_to_be_32(our_iss +
				(rte_be_to_cpu_32(th->recv_ack) & 0xffff));
		}
		if (op & 0x10) {
			th->cksum = 0;
			th->cksum = v6 ? rte_ipv6_udptcp_cksum(ip6, th) :
					 rte_ipv4_udptcp_cksum(ip, th);
		}
	}
	if (!v6)
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	input(m);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct ewyk_tcp_conf cf;
	struct ewyk_tcp *t;
	unsigned int avail, i;
	uint64_t now, hz;
	size_t k = 0;

	if (!ready) {
		if (init() != 0)
			abort();
		ready = 1;
	}
	avail = rte_mempool_avail_count(mp);
	memset(&cf, 0, sizeof(cf));
	cf.shard = shard;
	cf.socket_id = SOCKET_ID_ANY;
	cf.max_conns = MAXC;
	cf.ooo_max_segs = 8;
	cf.snd_buf = 8192;
	cf.conn_mbuf_max = 32;
	cf.secret = 1;
	t = ewyk_tcp_create(&cf);
	if (t == NULL || ewyk_tcp_listen(t, 0, ECHO_PORT, &echo_ops, NULL, 4))
		abort();
	hz = rte_get_tsc_hz();
	now = rte_rdtsc() + hz;
	ewyk_tcp_advance(t, now);
	our_iss = 0;
	newest = NULL;
	memset(ec, 0, sizeof(ec));
	arp_from_peer();
	while (k < size) {
		uint8_t op = data[k++];

		switch (op & 3) {
		case 0: {
			size_t len;

			if (k + 2 > size)
				goto out;
			len = ((size_t)data[k] << 8 | data[k + 1]) % 1600;
			k += 2;
			if (len > size - k)
				len = size - k;
			if (op & 0x04) {
				tcp_frame(op, data + k, len);
			} else {
				struct rte_mbuf *m = frame_alloc();
				char *p = rte_pktmbuf_append(m, (uint16_t)len);

				memcpy(p, data + k, len);
				if ((op & 0x08) && len >= 6)
					memcpy(p, &mac, 6);
				input(m);
			}
			k += len;
			break;
		}
		case 1:
			if (k < size)
				now += (uint64_t)data[k++] * hz / 200;
			ewyk_tcp_advance(t, now);
			drain_tx();
			break;
		case 2:
			if (k < size && newest != NULL) {
				struct echo_conn *e = newest;
				uint8_t what = data[k] % 3;

				if (what == 0) {
					ewyk_tcp_close(e->c);
					ec_release(e);
				} else if (what == 1) {
					ewyk_tcp_abort(e->c);
					ec_release(e);
				}
			}
			k++;
			drain_tx();
			break;
		default:
			arp_from_peer();
			break;
		}
	}
out:
	/* Freeing the context tells no application: release the echoes. */
	for (i = 0; i < MAXC; i++)
		if (ec[i].used)
			ec_release(&ec[i]);
	ewyk_tcp_free(t);
	drain_tx();
	if (rte_mempool_avail_count(mp) + ARP_SLACK < avail)
		abort();
	return 0;
}
