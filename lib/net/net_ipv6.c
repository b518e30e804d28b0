/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 (RFC 8200): input with a bounded walk of the extension headers,
 * ICMPv6 (RFC 4443): echo replies, the errors we send (rate-limited) and
 * packet-too-big (the path MTU table, per port and destination, is
 * net_pmtu.c, RFC 8201), and output.
 * Neighbour discovery is in net_nd.c.
 *
 * IPv6 is off on a port until it has an address (ewyk_net_port_add_ip6()):
 * the IPv4 path does not test for it, the EtherType switch of net_rx_one()
 * brings IPv6 frames here.
 */

#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ip.h>

#include "ewyk_siphash.h"
#include "net_private.h"

/* Extension headers (RFC 8200 4) and protocol numbers. */
#define NET_IP6_HOPOPTS 0
#define NET_IP6_ROUTING 43
#define NET_IP6_FRAGMENT 44
#define NET_IP6_ICMP 58
#define NET_IP6_NONXT 59
#define NET_IP6_DSTOPTS 60

/* ICMPv6 types (RFC 4443, RFC 4861). */
#define NET_ICMP6_UNREACH 1
#define NET_ICMP6_PTB 2
#define NET_ICMP6_PARAM 4
#define NET_ICMP6_ECHO_REQ 128
#define NET_ICMP6_ECHO_REP 129
#define NET_ICMP6_NS 135
#define NET_ICMP6_NA 136

/* The most of an invoking packet an ICMPv6 error carries: the whole error
 * must fit the minimum MTU (RFC 4443 2.4 c). */
#define NET_ICMP6_ERR_DATA (EWYK_NET_IP6_MIN_MTU - 40 - 8)

bool
net_rate_ok(struct net_rate *r, uint32_t limit, uint32_t dflt, uint64_t now)
{
	uint64_t sec = now / rte_get_tsc_hz();

	if (limit == 0)
		limit = dflt;
	if (sec != r->sec) {
		r->sec = sec;
		r->count = 0;
	}
	if (limit != UINT32_MAX && r->count >= limit)
		return false;
	r->count++;
	return true;
}

static inline bool
ip6_is_mcast(const uint8_t a[16])
{
	return a[0] == 0xff;
}

static inline bool
ip6_is_unspec(const uint8_t a[16])
{
	static const uint8_t zero[16];

	return memcmp(a, zero, 16) == 0;
}

static inline bool
ip6_is_loopback(const uint8_t a[16])
{
	static const uint8_t lo[16] = { [15] = 1 };

	return memcmp(a, lo, 16) == 0;
}

static inline bool
ip6_is_linklocal(const uint8_t a[16])
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

static bool
ip6_prefix_eq(const uint8_t a[16], const uint8_t b[16], uint8_t plen)
{
	uint8_t bytes = plen / 8, bits = plen % 8;

	if (plen == 64) {
		uint64_t x, y;

		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		return x == y;
	}
	if (memcmp(a, b, bytes) != 0)
		return false;
	if (bits == 0)
		return true;
	return ((a[bytes] ^ b[bytes]) & (uint8_t)(0xff << (8 - bits))) == 0;
}

bool
net_ip6_onlink(const struct net_port *pt, const uint8_t a[16])
{
	uint8_t i;

	if (ip6_is_linklocal(a))
		return pt->nb_ip6 != 0;
	for (i = 1; i < pt->nb_ip6; i++)
		if (ip6_prefix_eq(pt->ip6[i].a, a, pt->ip6[i].plen))
			return true;
	return false;
}

void
net_ip6_solnode(const uint8_t a[16], uint8_t out[16])
{
	static const uint8_t pfx[13] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };

	memcpy(out, pfx, sizeof(pfx));
	memcpy(out + 13, a + 13, 3);
}

void
net_ip6_mcast_mac(const uint8_t a[16], struct rte_ether_addr *mac)
{
	mac->addr_bytes[0] = 0x33;
	mac->addr_bytes[1] = 0x33;
	memcpy(&mac->addr_bytes[2], a + 12, 4);
}

/* ff02::1, or the solicited-node group of one of the port's addresses. */
static bool
ip6_group_is_ours(const struct net_port *pt, const uint8_t a[16])
{
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	uint8_t sn[16];
	uint8_t i;

	if (memcmp(a, all_nodes, 16) == 0)
		return true;
	for (i = 0; i < pt->nb_ip6; i++) {
		net_ip6_solnode(pt->ip6[i].a, sn);
		if (memcmp(a, sn, 16) == 0)
			return true;
	}
	return false;
}

void
net_ip6_hdr_fill(struct rte_ipv6_hdr *ip, uint16_t plen, uint8_t proto,
	uint8_t hlim, const uint8_t src[16], const uint8_t dst[16])
{
	ip->vtc_flow = rte_cpu_to_be_32(UINT32_C(6) << 28);
	ip->payload_len = rte_cpu_to_be_16(plen);
	ip->proto = proto;
	ip->hop_limits = hlim;
	memcpy(ip->src_addr, src, 16);
	memcpy(ip->dst_addr, dst, 16);
}

uint32_t
net_ip6_psum(const uint8_t src[16], const uint8_t dst[16], uint8_t proto)
{
	/* Pseudo-header (RFC 8200 8.1): source, destination and the next
	 * header as the low byte of a zero word. The one's complement sum of
	 * 16-bit words in memory order is that of the 32-bit words in memory
	 * order, folded: nine adds, no copy. */
	uint32_t w[8];
	uint64_t sum = rte_cpu_to_be_32(proto);
	unsigned int i;

	memcpy(w, src, 16);
	memcpy(w + 4, dst, 16);
	for (i = 0; i < 8; i++)
		sum += w[i];
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	return (uint32_t)sum;
}

uint16_t
net_cksum6_psum(const struct rte_mbuf *m, uint32_t off, uint32_t len,
	uint32_t psum)
{
	uint16_t raw = 0;
	uint64_t sum;

	/* 0xffff never comes out of a real sum: the pseudo-header's next
	 * header is not zero, so the folded sum is never 0. */
	if (net_cksum_mbuf(m, off, len, &raw) != 0)
		return 0xffff;
	sum = (uint64_t)psum + rte_cpu_to_be_32(len) + raw;
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

uint16_t
net_cksum6(const struct rte_mbuf *m, uint32_t off, uint32_t len,
	const uint8_t src[16], const uint8_t dst[16], uint8_t proto)
{
	return net_cksum6_psum(m, off, len, net_ip6_psum(src, dst, proto));
}

/* The input path's check (every TCP segment over IPv6 without offload):
 * the pseudo-header summed in place, one call below it, as the IPv4
 * ewyk_net_l4_cksum() does. The same value as net_cksum6(). */
uint16_t
ewyk_net_l4_cksum6(const struct rte_mbuf *m, const uint8_t src[16],
	const uint8_t dst[16], uint8_t proto)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint16_t raw = 0;
	uint32_t w[8];
	uint64_t sum;
	unsigned int i;

	if (net_cksum_mbuf(m, 0, len, &raw) != 0)
		return 0xffff;
	memcpy(w, src, 16);
	memcpy(w + 4, dst, 16);
	sum = (uint64_t)rte_cpu_to_be_32(proto) + rte_cpu_to_be_32(len) + raw;
	for (i = 0; i < 8; i++)
		sum += w[i];
	return (uint16_t)~net_cksum_fold(sum);
}

/* The source we answer from: the address of the port sharing dst's prefix,
 * the link-local one for link-local destinations and when none does. */
const uint8_t *
net_ip6_src_for(const struct net_port *pt, const uint8_t dst[16])
{
	uint8_t i;

	if (!ip6_is_linklocal(dst))
		for (i = 1; i < pt->nb_ip6; i++)
			if (ip6_prefix_eq(pt->ip6[i].a, dst, pt->ip6[i].plen))
				return pt->ip6[i].a;
	return pt->ip6[0].a;
}

const uint8_t *
net_ip6_nexthop(const struct net_port *pt, const uint8_t dst[16])
{
	if (ip6_is_mcast(dst))
		return NULL;
	if (net_ip6_onlink(pt, dst))
		return dst;
	return pt->has_gw6 ? pt->gw6 : NULL;
}

/* Copy a frame to every other shard's inbox (what one shard learns from
 * ARP, ND or packet-too-big, the others need too: they send as well). */
void
net_share(struct ewyk_net_shard *s, uint16_t port, const struct rte_mbuf *m)
{
	uint16_t i;

	for (i = 0; i < s->net->nb_shards; i++) {
		struct ewyk_net_shard *o = s->net->shards[i];
		struct rte_mbuf *c;

		if (o == NULL || o == s)
			continue;
		c = rte_pktmbuf_copy(m, s->pool, 0, UINT32_MAX);
		if (c == NULL) {
			net_ctr_add(s, EWYK_NET_DROP_NO_MBUF, 1);
			continue;
		}
		ewyk_net_shard_forward(o, c, port);
	}
}

/*
 * Send an ICMPv6 error about the packet in @m (data at the Ethernet header,
 * m->l2_len set), which the caller still owns and frees. RFC 4443 2.4 (e):
 * never about a packet to a group or a link-layer group (but parameter
 * problem code 2, @mcast_ok), nor one from the unspecified or a multicast
 * source. Rate-limited per shard (2.4 f). The error goes back to the
 * frame's Ethernet source: the sender is on-link.
 */
static void
net_icmp6_error(struct ewyk_net_shard *s, uint16_t port,
	const struct rte_mbuf *m, uint8_t type, uint8_t code, uint32_t param,
	bool mcast_ok)
{
	const struct net_port *pt = &s->net->ports[port];
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m,
		const struct rte_ether_hdr *);
	const struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m,
		const struct rte_ipv6_hdr *, m->l2_len);
	struct rte_ether_addr to;
	uint8_t src[16], dst[16];
	struct rte_mbuf *e;
	const void *from;
	uint8_t *p;
	uint32_t n;
	uint16_t ck;

	if (!mcast_ok &&
		(ip6_is_mcast(ip->dst_addr) ||
			rte_is_multicast_ether_addr(&eth->dst_addr)))
		return;
	if (ip6_is_unspec(ip->src_addr) || ip6_is_mcast(ip->src_addr) ||
		rte_is_multicast_ether_addr(&eth->src_addr))
		return;
	if (!net_rate_ok(&s->icmp6_err, s->net->conf.icmp6_err_limit, 100,
		    s->now)) {
		net_ctr_add(s, EWYK_NET_ICMP6_ERR_LIMITED, 1);
		return;
	}
	memcpy(dst, ip->src_addr, 16);
	if (!ip6_is_mcast(ip->dst_addr))
		memcpy(src, ip->dst_addr, 16);
	else
		memcpy(src, net_ip6_src_for(pt, dst), 16);
	rte_ether_addr_copy(&eth->src_addr, &to);

	e = rte_pktmbuf_alloc(s->pool);
	if (e == NULL) {
		net_ctr_add(s, EWYK_NET_DROP_NO_MBUF, 1);
		return;
	}
	n = RTE_MIN(rte_pktmbuf_pkt_len(m) - m->l2_len,
		(uint32_t)NET_ICMP6_ERR_DATA);
	if (rte_pktmbuf_tailroom(e) < 8 + n)
		n = rte_pktmbuf_tailroom(e) > 8 ? rte_pktmbuf_tailroom(e) - 8u :
						  0;
	p = (uint8_t *)rte_pktmbuf_append(e, (uint16_t)(8 + n));
	if (p == NULL || n < sizeof(struct rte_ipv6_hdr) ||
		rte_pktmbuf_headroom(e) < NET_HDR_ROOM6) {
		net_drop(s, e, EWYK_NET_DROP_NO_MBUF);
		return;
	}
	p[0] = type;
	p[1] = code;
	p[2] = p[3] = 0;
	param = rte_cpu_to_be_32(param);
	memcpy(p + 4, &param, 4);
	from = rte_pktmbuf_read(m, m->l2_len, n, p + 8);
	if (from != NULL && from != p + 8)
		memcpy(p + 8, from, n);
	ck = net_cksum6(e, 0, 8 + n, src, dst, NET_IP6_ICMP);
	memcpy(p + 2, &ck, 2);
	net_ip6_hdr_fill((struct rte_ipv6_hdr *)rte_pktmbuf_prepend(e,
				 sizeof(struct rte_ipv6_hdr)),
		(uint16_t)(8 + n), NET_IP6_ICMP, 64, src, dst);
	net_ctr_add(s, EWYK_NET_ICMP6_ERR_TX, 1);
	net_send_l2(s, port, e, &to, RTE_ETHER_TYPE_IPV6);
}

/* Drop with a counter, and answer with an ICMPv6 error. */
static void
net_ip6_reject(struct ewyk_net_shard *s, uint16_t port, struct rte_mbuf *m,
	enum ewyk_net_counter c, uint8_t type, uint8_t code, uint32_t param,
	bool mcast_ok, bool from_inbox)
{
	if (!from_inbox)
		net_icmp6_error(s, port, m, type, code, param, mcast_ok);
	net_drop(s, m, c);
}

/* Packet too big (RFC 4443 3.2, RFC 8201 4): about a packet we sent (its
 * source is ours), lowering the MTU towards its destination. */
static void
net_icmp6_ptb(struct ewyk_net_shard *s, uint16_t port, struct rte_mbuf *m,
	uint32_t off, uint32_t len, bool from_inbox)
{
	const struct net_port *pt = &s->net->ports[port];
	const struct rte_ipv6_hdr *in;
	uint8_t buf[sizeof(*in)];
	rte_be32_t v;
	uint32_t mtu;

	if (len < 8 + sizeof(*in)) {
		net_drop(s, m, EWYK_NET_DROP_ICMP6_PTB);
		return;
	}
	memcpy(&v, rte_pktmbuf_mtod_offset(m, uint8_t *, off + 4), 4);
	mtu = rte_be_to_cpu_32(v);
	in = rte_pktmbuf_read(m, off + 8, sizeof(*in), buf);
	if (in == NULL || net_ip6_is_ours(pt, in->src_addr) < 0 ||
		ip6_is_mcast(in->dst_addr)) {
		net_drop(s, m, EWYK_NET_DROP_ICMP6_PTB);
		return;
	}
	if (mtu < EWYK_NET_IP6_MIN_MTU)
		mtu = EWYK_NET_IP6_MIN_MTU;
	if (mtu >= ewyk_net_pmtu6(s, port, in->dst_addr)) {
		net_drop(s, m, EWYK_NET_DROP_ICMP6_PTB);
		return;
	}
	net_pmtu_update(s, port, in->dst_addr, mtu, s->now);
	if (!from_inbox) {
		net_ctr_add(s, EWYK_NET_ICMP6_PTB_RX, 1);
		net_share(s, port, m);
	}
	rte_pktmbuf_free(m);
}

/* Echo request: the request becomes the reply, in place. Extension headers
 * it came with are cut out (the reply has none). */
static void
net_icmp6_echo(struct ewyk_net_shard *s, uint16_t port, struct rte_mbuf *m,
	uint32_t off, uint32_t len)
{
	struct rte_ether_hdr *eth;
	struct rte_ipv6_hdr *ip;
	uint8_t *icmp;
	uint32_t ext = off - m->l2_len - sizeof(*ip);
	uint8_t tmp[16];
	uint16_t ck;

	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, m->l2_len);
	if (ip6_is_mcast(ip->dst_addr) ||
		rte_is_multicast_ether_addr(&eth->src_addr)) {
		net_drop(s, m, EWYK_NET_DROP_ICMP6_SRC);
		return;
	}
	if (ext != 0) {
		memmove(rte_pktmbuf_mtod_offset(m, uint8_t *, ext),
			rte_pktmbuf_mtod(m, uint8_t *),
			m->l2_len + sizeof(*ip));
		rte_pktmbuf_adj(m, (uint16_t)ext);
		off -= ext;
		eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *,
			m->l2_len);
		ip->proto = NET_IP6_ICMP;
		ip->payload_len = rte_cpu_to_be_16((uint16_t)len);
	}
	net_ctr_add(s, EWYK_NET_ICMP6_ECHO_RX, 1);
	memcpy(tmp, ip->src_addr, 16);
	memcpy(ip->src_addr, ip->dst_addr, 16);
	memcpy(ip->dst_addr, tmp, 16);
	ip->hop_limits = 64;
	icmp = rte_pktmbuf_mtod_offset(m, uint8_t *, off);
	icmp[0] = NET_ICMP6_ECHO_REP;
	icmp[2] = icmp[3] = 0;
	ck = net_cksum6(m, off, len, ip->src_addr, ip->dst_addr, NET_IP6_ICMP);
	memcpy(icmp + 2, &ck, 2);

	rte_ether_addr_copy(&eth->src_addr, &eth->dst_addr);
	rte_ether_addr_copy(&s->net->ports[port].mac, &eth->src_addr);
	m->ol_flags &= RTE_MBUF_F_EXTERNAL | RTE_MBUF_F_INDIRECT;
	net_tx_enqueue(s, port, m);
}

static void
net_icmp6_input(struct ewyk_net_shard *s, uint16_t port, struct rte_mbuf *m,
	uint32_t off, uint32_t len, bool from_inbox)
{
	const struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m,
		const struct rte_ipv6_hdr *, m->l2_len);
	const uint8_t *icmp;

	if (len < 8 || rte_pktmbuf_data_len(m) < off + 8) {
		net_drop(s, m, EWYK_NET_DROP_ICMP6_TRUNCATED);
		return;
	}
	if (net_cksum6(m, off, len, ip->src_addr, ip->dst_addr, NET_IP6_ICMP) !=
		0) {
		net_drop(s, m, EWYK_NET_DROP_ICMP6_CKSUM);
		return;
	}
	icmp = rte_pktmbuf_mtod_offset(m, const uint8_t *, off);
	/* Only a DAD probe comes from the unspecified address. */
	if (ip6_is_unspec(ip->src_addr) && icmp[0] != NET_ICMP6_NS) {
		net_drop(s, m, EWYK_NET_DROP_IP6_SRC);
		return;
	}
	switch (icmp[0]) {
	case NET_ICMP6_ECHO_REQ:
		if (icmp[1] != 0 || from_inbox) {
			net_drop(s, m, EWYK_NET_DROP_ICMP6_TYPE);
			return;
		}
		net_icmp6_echo(s, port, m, off, len);
		return;
	case NET_ICMP6_PTB:
		net_icmp6_ptb(s, port, m, off, len, from_inbox);
		return;
	case NET_ICMP6_NS:
	case NET_ICMP6_NA:
		net_nd_input(s, port, m, from_inbox, off, (uint16_t)len);
		return;
	default:
		/* Router and redirect messages, MLD, replies and the other
		 * errors: nothing here acts on them. */
		net_drop(s, m, EWYK_NET_DROP_ICMP6_TYPE);
		return;
	}
}

/*
 * Options of a hop-by-hop or destination options header at [off, off+len)
 * (RFC 8200 4.2). Returns 0 to go on, or -1 with *ptr set to the offset of
 * the option to complain about (-1 if not) and *mc to whether a parameter
 * problem may answer a group destination.
 */
static int
ip6_opts_walk(const uint8_t *h, uint32_t len, int32_t *ptr, bool *mc,
	bool dst_mcast)
{
	uint32_t i = 2;

	*ptr = -1;
	*mc = false;
	while (i < len) {
		uint8_t t = h[i];

		if (t == 0) { /* Pad1 */
			i++;
			continue;
		}
		if (i + 2 > len || i + 2 + h[i + 1] > len)
			return -1; /* runs past the header */
		/* PadN (1) and router alert (5) are skipped; others by the
		 * action in their two high bits. */
		if (t != 1 && t != 5) {
			switch (t >> 6) {
			case 0:
				break;
			case 1:
				return -1;
			case 2:
				*ptr = (int32_t)i;
				*mc = true;
				return -1;
			default:
				if (!dst_mcast)
					*ptr = (int32_t)i;
				return -1;
			}
		}
		i += 2u + h[i + 1];
	}
	return 0;
}

void
net_ipv6_input(struct ewyk_net_shard *s, uint16_t port, struct rte_mbuf *m,
	bool from_inbox)
{
	const struct net_port *pt = &s->net->ports[port];
	struct rte_ipv6_hdr *ip;
	uint32_t avail, end, off, nxt_at;
	uint16_t plen;
	uint8_t nxt;
	unsigned int n;
	struct net_l4_handler6 *h;
	struct ewyk_net_ip6_info info;
	bool mcast;

	if (unlikely(pt->nb_ip6 == 0)) {
		net_drop(s, m, EWYK_NET_DROP_ETHERTYPE);
		return;
	}
	avail = rte_pktmbuf_pkt_len(m) - m->l2_len;
	if (avail < sizeof(*ip) ||
		rte_pktmbuf_data_len(m) < m->l2_len + sizeof(*ip)) {
		net_drop(s, m, EWYK_NET_DROP_IP6_TRUNCATED);
		return;
	}
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, m->l2_len);
	if ((rte_be_to_cpu_32(ip->vtc_flow) >> 28) != 6) {
		net_drop(s, m, EWYK_NET_DROP_IP6_VERSION);
		return;
	}
	plen = rte_be_to_cpu_16(ip->payload_len);
	if (plen > avail - sizeof(*ip)) {
		net_drop(s, m, EWYK_NET_DROP_IP6_LEN);
		return;
	}
	if (ip->hop_limits == 0) {
		net_drop(s, m, EWYK_NET_DROP_IP6_HLIM);
		return;
	}
	mcast = ip6_is_mcast(ip->dst_addr);
	if (mcast ? !ip6_group_is_ours(pt, ip->dst_addr) :
		    net_ip6_is_ours(pt, ip->dst_addr) < 0) {
		net_drop(s, m, EWYK_NET_DROP_IP6_NOT_OURS);
		return;
	}
	if (ip6_is_mcast(ip->src_addr) || ip6_is_loopback(ip->src_addr) ||
		net_ip6_is_ours(pt, ip->src_addr) >= 0) {
		net_drop(s, m, EWYK_NET_DROP_IP6_SRC);
		return;
	}
	/* Ethernet padding: keep exactly the IPv6 packet. */
	if (avail > sizeof(*ip) + plen &&
		rte_pktmbuf_trim(m, avail - sizeof(*ip) - plen) != 0) {
		net_drop(s, m, EWYK_NET_DROP_IP6_LEN);
		return;
	}
	if (!from_inbox)
		net_ctr_add(s, EWYK_NET_IP6_RX, 1);

	/* The extension headers, at most NET_IP6_MAX_EXT of them, each
	 * whole in the first segment. nxt_at: where the current next header
	 * value sits (for a parameter problem's pointer). */
	end = m->l2_len + sizeof(*ip) + plen;
	off = m->l2_len + sizeof(*ip);
	nxt = ip->proto;
	nxt_at = m->l2_len + 6;
	for (n = 0;; n++) {
		const uint8_t *x;
		uint32_t xlen;
		int32_t ptr;
		bool mc;

		if (nxt != NET_IP6_HOPOPTS && nxt != NET_IP6_DSTOPTS &&
			nxt != NET_IP6_ROUTING && nxt != NET_IP6_FRAGMENT)
			break;
		if (n == NET_IP6_MAX_EXT) {
			net_drop(s, m, EWYK_NET_DROP_IP6_EXT_LIMIT);
			return;
		}
		/* Hop-by-hop options only right after the IPv6 header
		 * (RFC 8200 4.1): elsewhere an unrecognised next header. */
		if (nxt == NET_IP6_HOPOPTS && n != 0) {
			net_ip6_reject(s, port, m, EWYK_NET_DROP_IP6_EXT,
				NET_ICMP6_PARAM, 1, nxt_at - m->l2_len, false,
				from_inbox);
			return;
		}
		if (off + 8 > end || off + 8 > rte_pktmbuf_data_len(m)) {
			net_drop(s, m, EWYK_NET_DROP_IP6_EXT);
			return;
		}
		x = rte_pktmbuf_mtod_offset(m, const uint8_t *, off);
		if (nxt == NET_IP6_FRAGMENT) {
			/* No reassembly: every fragment is dropped, atomic
			 * ones (RFC 6946) included. */
			net_drop(s, m, EWYK_NET_DROP_IP6_FRAG);
			return;
		}
		xlen = ((uint32_t)x[1] + 1) * 8;
		if (off + xlen > end || off + xlen > rte_pktmbuf_data_len(m)) {
			net_drop(s, m, EWYK_NET_DROP_IP6_EXT);
			return;
		}
		if (nxt == NET_IP6_ROUTING) {
			/* Segments left: we would have to forward it. Type 0
			 * is deprecated (RFC 5095 3) and the others are not
			 * ours to process: parameter problem code 0 at the
			 * routing type (RFC 8200 4.4). With none left the
			 * header is ignored. */
			if (x[3] != 0) {
				net_ip6_reject(s, port, m, EWYK_NET_DROP_IP6_RH,
					NET_ICMP6_PARAM, 0, off + 2 - m->l2_len,
					false, from_inbox);
				return;
			}
		} else if (ip6_opts_walk(x, xlen, &ptr, &mc, mcast) != 0) {
			if (ptr >= 0)
				net_ip6_reject(s, port, m,
					EWYK_NET_DROP_IP6_EXT, NET_ICMP6_PARAM,
					2, off + (uint32_t)ptr - m->l2_len, mc,
					from_inbox);
			else
				net_drop(s, m, EWYK_NET_DROP_IP6_EXT);
			return;
		}
		if (!from_inbox)
			net_ctr_add(s, EWYK_NET_IP6_EXT, 1);
		nxt = x[0];
		nxt_at = off;
		off += xlen;
	}
	if (nxt == NET_IP6_NONXT) {
		net_drop(s, m, EWYK_NET_DROP_IP6_NONXT);
		return;
	}
	m->l3_len = (uint16_t)(off - m->l2_len);
	if (nxt == NET_IP6_ICMP) {
		net_icmp6_input(s, port, m, off, end - off, from_inbox);
		return;
	}
	if (ip6_is_unspec(ip->src_addr)) {
		net_drop(s, m, EWYK_NET_DROP_IP6_SRC);
		return;
	}
	h = &s->l4_6[nxt];
	if (h->fn == NULL) {
		/* RFC 4443 3.1: port unreachable when the transport has no
		 * listener; RFC 8200 4: parameter problem code 1 for a next
		 * header we do not know. */
		if (nxt == IPPROTO_UDP)
			net_ip6_reject(s, port, m, EWYK_NET_DROP_IP6_PROTO,
				NET_ICMP6_UNREACH, 4, 0, false, from_inbox);
		else
			net_ip6_reject(s, port, m, EWYK_NET_DROP_IP6_PROTO,
				NET_ICMP6_PARAM, 1, nxt_at - m->l2_len, false,
				from_inbox);
		return;
	}
	memcpy(info.src, ip->src_addr, 16);
	memcpy(info.dst, ip->dst_addr, 16);
	info.port = port;
	info.proto = nxt;
	info.tclass = (uint8_t)(rte_be_to_cpu_32(ip->vtc_flow) >> 20);
	info.flow_label = rte_be_to_cpu_32(ip->vtc_flow) & 0xfffff;
	info.hop_limit = ip->hop_limits;
	info.l4_len = (uint16_t)(end - off);
	info.cksum_good = pt->rx_cksum &&
		(m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) ==
			RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	rte_pktmbuf_adj(m, (uint16_t)off);
	if (!from_inbox)
		net_ctr_add(s, EWYK_NET_L4_DELIVERED, 1);
	h->fn(h->arg, s, m, &info);
}

int
ewyk_net_l4_register6(struct ewyk_net_shard *s, uint8_t proto,
	ewyk_net_l4_input6_t fn, void *arg)
{
	if (s == NULL || fn == NULL || proto == NET_IP6_ICMP ||
		proto == NET_IP6_HOPOPTS || proto == NET_IP6_ROUTING ||
		proto == NET_IP6_FRAGMENT || proto == NET_IP6_DSTOPTS ||
		proto == NET_IP6_NONXT)
		return -EINVAL;
	s->l4_6[proto].arg = arg;
	s->l4_6[proto].fn = fn;
	return 0;
}

int
ewyk_net_nexthop6(const struct ewyk_net *net, uint16_t port,
	const uint8_t dst[16], uint8_t nexthop[16])
{
	const uint8_t *nh;

	if (net == NULL || dst == NULL || nexthop == NULL ||
		port >= net->nb_ports || ip6_is_mcast(dst))
		return -EINVAL;
	nh = net_ip6_nexthop(&net->ports[port], dst);
	if (nh == NULL)
		return -ENETUNREACH;
	memcpy(nexthop, nh, 16);
	return 0;
}

int
ewyk_net_route6(const struct ewyk_net *net, const uint8_t dst[16])
{
	uint16_t i;

	for (i = 0; i < net->nb_ports; i++)
		if (net_ip6_onlink(&net->ports[i], dst))
			return i;
	for (i = 0; i < net->nb_ports; i++)
		if (net->ports[i].has_gw6)
			return i;
	return -ENETUNREACH;
}
