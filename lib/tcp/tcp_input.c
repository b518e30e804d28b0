/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Segment input: validation (length, data offset, checksum, options,
 * flags), then dispatch to a connection, a listener or the CLOSED reply.
 * Every segment that goes no further is counted under exactly one drop
 * reason.
 */

#include <string.h>

#include <rte_ip.h>
#include <rte_prefetch.h>

#include "tcp_private.h"

/* NOP, NOP, kind 8, length 10: the first word of an aligned TS option. */
#define TCP_TS_OPT_WORD                                                \
	(((uint32_t)TCPOPT_NOP << 24) | ((uint32_t)TCPOPT_NOP << 16) | \
		((uint32_t)TCPOPT_TS << 8) | 10u)

/* SACK permitted (kind 4, length 2), then TS's kind 8 and length 10. */
#define TCP_SYN_OPT_WORD1                                  \
	(((uint32_t)TCPOPT_SACK_PERM << 24) | (2u << 16) | \
		((uint32_t)TCPOPT_TS << 8) | 10u)

/* A big-endian 32-bit field at any alignment. */
static inline uint32_t
get32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
		((uint32_t)p[2] << 8) | p[3];
}

/*
 * The SYN options of Linux (and of ewyk's own SYN and SYN-ACK): MSS,
 * SACK permitted, timestamps, NOP, window scale, 20 bytes. Taken with
 * three compares when laid out so; what parse_options() would find in
 * them. Returns false for any other layout (the loop then reads it).
 */
static inline bool
parse_syn_options(const uint8_t *p, unsigned int n, struct tcp_opts *o)
{
	if (n != 20 || get32(p + 4) != TCP_SYN_OPT_WORD1 ||
		(get32(p) >> 16) != ((TCPOPT_MSS << 8) | 4u) ||
		(get32(p + 16) >> 8) !=
			((TCPOPT_NOP << 16) | (TCPOPT_WS << 8) | 3u))
		return false;
	o->has_mss = 1;
	o->mss = (uint16_t)((p[2] << 8) | p[3]);
	o->sack_perm = 1;
	o->has_ts = 1;
	o->tsval = get32(p + 8);
	o->tsecr = get32(p + 12);
	o->has_ws = 1;
	/* RFC 7323 2.3: larger shifts are used as 14. */
	o->ws = RTE_MIN(p[19], TCP_MAX_WSCALE);
	return true;
}

static int
parse_options(const uint8_t *p, unsigned int n, struct tcp_opts *o)
{
	unsigned int i = 0;

	while (i < n) {
		uint8_t kind = p[i];
		uint8_t len;

		if (kind == TCPOPT_EOL)
			break;
		if (kind == TCPOPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= n)
			return -1; /* kind without length */
		len = p[i + 1];
		if (len < 2 || i + len > n)
			return -1; /* zero or overlong length */
		switch (kind) {
		case TCPOPT_MSS:
			if (len != 4)
				return -1;
			o->has_mss = 1;
			o->mss = (uint16_t)((p[i + 2] << 8) | p[i + 3]);
			break;
		case TCPOPT_WS:
			if (len != 3)
				return -1;
			o->has_ws = 1;
			/* RFC 7323 2.3: larger shifts are used as 14. */
			o->ws = RTE_MIN(p[i + 2], TCP_MAX_WSCALE);
			break;
		case TCPOPT_SACK_PERM:
			if (len != 2)
				return -1;
			o->sack_perm = 1;
			break;
		case TCPOPT_SACK: {
			unsigned int k, nb = (len - 2u) / 8u;

			if ((len - 2u) % 8u != 0 || nb == 0 || nb > 4)
				return -1;
			for (k = 0; k < nb; k++) {
				const uint8_t *b = p + i + 2 + 8 * k;

				o->sack[k][0] = get32(b);
				o->sack[k][1] = get32(b + 4);
			}
			o->nsack = (uint8_t)nb;
			break;
		}
		case TCPOPT_TS:
			if (len != 10)
				return -1;
			o->has_ts = 1;
			o->tsval = get32(p + i + 2);
			o->tsecr = get32(p + i + 6);
			break;
		default:
			break; /* unknown: skipped by its length */
		}
		i += len;
	}
	return 0;
}

/*
 * Flag combinations that no state accepts: SYN with FIN or RST, RST with
 * FIN, and anything that carries neither SYN, RST nor ACK (a segment
 * without ACK is only meaningful as SYN or RST).
 */
static bool
flags_valid(uint8_t f)
{
	if ((f & TH_SYN) && (f & (TH_FIN | TH_RST)))
		return false;
	if ((f & TH_RST) && (f & TH_FIN))
		return false;
	if ((f & (TH_SYN | TH_RST | TH_ACK)) == 0)
		return false;
	return true;
}

/*
 * Validate and parse. On success the mbuf is unchanged (data still at
 * the TCP header) and 0 is returned; otherwise the drop counter to use.
 */
int
tcp_parse(struct ewyk_tcp *t, struct rte_mbuf *m, const struct tcp_ip *ip,
	struct tcp_seg *s)
{
	uint8_t buf[TCP_HDR_LEN + TCP_MAX_OPT_LEN];
	const struct rte_tcp_hdr *th;
	const uint8_t *hp;
	uint32_t plen = rte_pktmbuf_pkt_len(m);
	unsigned int hlen;

	if (plen < TCP_HDR_LEN)
		return EWYK_TCP_DROP_SHORT;
	hp = rte_pktmbuf_read(m, 0, TCP_HDR_LEN, buf);
	if (hp == NULL)
		return EWYK_TCP_DROP_SHORT;
	th = (const struct rte_tcp_hdr *)hp;
	hlen = (th->data_off >> 4) * 4u;
	if (hlen < TCP_HDR_LEN || hlen > plen)
		return EWYK_TCP_DROP_DOFF;
	if (hlen > TCP_HDR_LEN) {
		hp = rte_pktmbuf_read(m, 0, hlen, buf);
		if (hp == NULL)
			return EWYK_TCP_DROP_DOFF;
		th = (const struct rte_tcp_hdr *)hp;
	}
	s->sport = rte_be_to_cpu_16(th->src_port);
	s->dport = rte_be_to_cpu_16(th->dst_port);
	/*
	 * The tuple's bucket is loaded while the checksum is summed: for a
	 * new tuple (a SYN) it is a cache miss in a table as large as the
	 * connection capacity, which the lookup would otherwise wait for.
	 */
	s->hash = likely(!ip->v6) ?
		tcp_hash(t, ip->dst.v4, s->dport, ip->src.v4, s->sport) :
		tcp_hash6(t, &ip->dst, s->dport, &ip->src, s->sport);
	rte_prefetch0(&t->buckets[s->hash & t->hmask]);
	if (!ip->cksum_good &&
		(ip->v6 ? ewyk_net_l4_cksum6(m, ip->src.b, ip->dst.b,
				  IPPROTO_TCP) :
			  ewyk_net_l4_cksum(m, ip->src.v4, ip->dst.v4,
				  IPPROTO_TCP)) != 0)
		return EWYK_TCP_DROP_CKSUM;
	if (s->sport == 0 || s->dport == 0)
		return EWYK_TCP_DROP_PORT;
	/* RFC 1122 4.2.3.10: no SYN-ACK, RST or connection for a group
	 * (lib/net passes ff02::1 and our solicited-node groups up). */
	if (unlikely(ip->v6 && ip->dst.b[0] == 0xff))
		return EWYK_TCP_DROP_MCAST;
	s->flags = th->tcp_flags &
		(TH_FIN | TH_SYN | TH_RST | TH_PSH | TH_ACK | TH_URG);
	if (!flags_valid(s->flags))
		return EWYK_TCP_DROP_FLAGS;
	memset(&s->o, 0, sizeof(s->o));
	if (likely(hlen == TCP_HDR_LEN + TCP_TS_OPT_LEN &&
		    get32(hp + TCP_HDR_LEN) == TCP_TS_OPT_WORD)) {
		/* NOP, NOP, TS: the layout of RFC 7323 appendix A, on every
		 * segment of an established connection with timestamps (ours,
		 * Linux's); what the loop below would find, in one compare. */
		s->o.has_ts = 1;
		s->o.tsval = get32(hp + TCP_HDR_LEN + 4);
		s->o.tsecr = get32(hp + TCP_HDR_LEN + 8);
	} else if (!((s->flags & TH_SYN) &&
			   parse_syn_options(hp + TCP_HDR_LEN,
				   hlen - TCP_HDR_LEN, &s->o)) &&
		parse_options(hp + TCP_HDR_LEN, hlen - TCP_HDR_LEN, &s->o) !=
			0) {
		return EWYK_TCP_DROP_OPTIONS;
	}
	s->seq = rte_be_to_cpu_32(th->sent_seq);
	s->ack = rte_be_to_cpu_32(th->recv_ack);
	s->wnd = rte_be_to_cpu_16(th->rx_win);
	s->hlen = (uint8_t)hlen;
	s->len = plen - hlen;
	return 0;
}

void
tcp_input(struct ewyk_tcp *t, struct rte_mbuf *m, const struct tcp_ip *ip)
{
	struct tcp_open_hint h = { .src_set = false };
	struct ewyk_tcp_conn *c;
	struct tcp_listener *l;
	struct tcp_seg s;
	int drop;

	tcp_ctr_inc(t, EWYK_TCP_SEG_IN);
	drop = tcp_parse(t, m, ip, &s);
	if (unlikely(drop != 0)) {
		tcp_ctr_inc(t, (enum ewyk_tcp_counter)drop);
		rte_pktmbuf_free(m);
		return;
	}
	h.hash = s.hash;
	c = likely(!ip->v6) ? tcp_table_lookup_h(t, s.hash, ip->dst.v4, s.dport,
				      ip->src.v4, s.sport) :
			      tcp_table_lookup6_h(t, s.hash, &ip->dst, s.dport,
				      &ip->src, s.sport);
	if (likely(c != NULL)) {
		/* Strip the header: m now holds only the payload. */
		m = tcp_mbuf_adj(m, s.hlen);
		tcp_state_input(c, &s, m);
		return;
	}
	l = tcp_listener_find(t, ip, s.dport);
	if (l != NULL && !(s.flags & TH_RST)) {
		m = tcp_mbuf_adj(m, s.hlen);
		if ((s.flags & (TH_SYN | TH_ACK)) == TH_SYN) {
			tcp_listen_input(t, l, &s, m, ip, &h);
			return;
		}
		if ((s.flags & (TH_SYN | TH_ACK)) == TH_ACK &&
			l->cookie_tsc != 0 &&
			t->now - l->cookie_tsc <
				2 * TCP_COOKIE_PERIOD_S * t->hz) {
			tcp_cookie_input(t, l, &s, m, ip, &h);
			return;
		}
		/* A listener answers anything else with a RST. */
		tcp_send_rst_reply(t, &s, ip);
		tcp_ctr_inc(t, EWYK_TCP_DROP_NO_LISTENER);
		rte_pktmbuf_free(m);
		return;
	}
	/* CLOSED: RFC 9293 3.10.7.1, a RST for anything but a RST. */
	tcp_send_rst_reply(t, &s, ip);
	tcp_ctr_inc(t, EWYK_TCP_DROP_NO_LISTENER);
	rte_pktmbuf_free(m);
}

static void
ip4_facts(struct tcp_ip *tip, const struct ewyk_net_ip_info *ip)
{
	tip->src.q[0] = 0;
	tip->src.q[1] = 0;
	tip->dst.q[0] = 0;
	tip->dst.q[1] = 0;
	tip->src.v4 = ip->src;
	tip->dst.v4 = ip->dst;
	tip->port = ip->port;
	tip->v6 = false;
	tip->cksum_good = ip->cksum_good;
}

static void
ip6_facts(struct tcp_ip *tip, const struct ewyk_net_ip6_info *ip)
{
	memcpy(tip->src.b, ip->src, 16);
	memcpy(tip->dst.b, ip->dst, 16);
	tip->port = ip->port;
	tip->v6 = true;
	tip->cksum_good = ip->cksum_good;
}

void
ewyk_tcp_input(struct ewyk_tcp *t, struct rte_mbuf *m,
	const struct ewyk_net_ip_info *ip)
{
	struct tcp_ip tip;

	ip4_facts(&tip, ip);
	tcp_input(t, m, &tip);
}

void
ewyk_tcp_input6(struct ewyk_tcp *t, struct rte_mbuf *m,
	const struct ewyk_net_ip6_info *ip)
{
	struct tcp_ip tip;

	ip6_facts(&tip, ip);
	tcp_input(t, m, &tip);
}

/*
 * Without RSS on the port, the shard that got the segment may not own its
 * flow: hand it to the owner (its inbox). Returns true when it went.
 */
static bool
tcp_steer(struct ewyk_tcp *t, struct rte_mbuf *m, const struct tcp_ip *ip)
{
	if (t->nb_shards > 1 && !ewyk_net_port_rss(t->net, ip->port) &&
		rte_pktmbuf_pkt_len(m) >= 4) {
		/* No RSS on this port: steer to the shard that owns the flow. */
		const rte_be16_t *pp = rte_pktmbuf_mtod(m, const rte_be16_t *);
		uint16_t owner;

		if (m->data_len >= 4) {
			uint16_t sp = rte_be_to_cpu_16(pp[0]);
			uint16_t dp = rte_be_to_cpu_16(pp[1]);

			owner = ip->v6 ? ewyk_tcp_flow_shard6(ip->dst.b, dp,
						 ip->src.b, sp, t->nb_shards) :
					 ewyk_tcp_flow_shard(ip->dst.v4, dp,
						 ip->src.v4, sp, t->nb_shards);
			if (owner != t->shard_id) {
				struct ewyk_net_shard *o =
					ewyk_net_shard_get(t->net, owner);
				uint16_t hl = m->l2_len + m->l3_len;

				/* Never handle another shard's flow here: it
				 * would answer for a connection it cannot see. */
				if (o == NULL ||
					rte_pktmbuf_prepend(m, hl) == NULL) {
					tcp_ctr_inc(t, EWYK_TCP_DROP_STEERED);
					rte_pktmbuf_free(m);
					return true;
				}
				/* A full inbox is counted once, by lib/net, on
				 * the owner (drop_inbox_full). */
				(void)ewyk_net_shard_forward(o, m, ip->port);
				return true;
			}
		}
	}
	return false;
}

void
ewyk_tcp_l4_input(void *arg, struct ewyk_net_shard *sh, struct rte_mbuf *m,
	const struct ewyk_net_ip_info *ip)
{
	struct ewyk_tcp *t = arg;
	struct tcp_ip tip;

	RTE_SET_USED(sh);
	ip4_facts(&tip, ip);
	if (!tcp_steer(t, m, &tip))
		tcp_input(t, m, &tip);
}

void
ewyk_tcp_l4_input6(void *arg, struct ewyk_net_shard *sh, struct rte_mbuf *m,
	const struct ewyk_net_ip6_info *ip)
{
	struct ewyk_tcp *t = arg;
	struct tcp_ip tip;

	RTE_SET_USED(sh);
	ip6_facts(&tip, ip);
	if (!tcp_steer(t, m, &tip))
		tcp_input(t, m, &tip);
}
