/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What an HTTP connection holds of its shard, and how much of it one peer
 * may take.
 *
 * - Its object (struct ewyk_http_conn, a few hundred bytes): from the
 *   free list at accept. With none free, the oldest idle keep-alive
 *   connection is closed (FIN, idle_reclaimed) and its object taken;
 *   with none idle, the connection is refused (RST, conn_refused).
 * - A head lease: the parser's scratch (max line + max header bytes),
 *   the header array, the head parser and the body decoder (struct
 *   http_lease), from a per-shard free list, taken when a request
 *   head's first byte is parsed and given back when the connection goes
 *   idle (keep-alive timer armed, nothing unparsed) or away. The
 *   request's views point into the scratch: they die before the
 *   connection can go idle (after the handler or dispatch hook, and the
 *   response). No lease free: the head is answered 503 and the
 *   connection closed (head_refused). An idle connection holds no lease,
 *   so closing one would free none: leases are not reclaimed.
 * - Its source's share: objects and leases are counted per bucket of a
 *   keyed hash of the peer address (SipHash-1-3, as lib/tcp counts its
 *   connections per source), as many buckets as objects. Beyond
 *   max_conns_per_src a connection is refused (RST, conn_src_refused);
 *   beyond max_heads_per_src a head is answered 503 (head_src_refused).
 *   Two addresses sharing a bucket share its limit; without the key,
 *   nobody can choose to. A share of all the objects (or leases) or more is
 *   no limit, for any number of them (the counts are 32-bit): no address
 *   is refused for the bucket it happens to share. An IPv6 peer is
 *   counted by its /64: one host is routinely given a whole /64 and may
 *   pick any address in it.
 * - The idle list: the connections whose keep-alive timer runs, oldest
 *   first (intrusive, by object index), so that pressure takes the
 *   connections nobody uses first.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include <ewyk_siphash.h>
#include <ewyk_tcp.h>
#include <ewyk_twheel.h>

#include "http_private.h"

#define NONE UINT32_MAX

/* What a peer is counted as: its IPv4 address, the /64 of its IPv6
 * address, or for a link-local peer (all of them share fe80::/64) its
 * interface identifier; *kind says which, so that the three never
 * collide (HTTP_SRC_V4, _NET6, _LL6). */
uint64_t
http_src_key(const struct ewyk_tcp_conn_info *ti, uint8_t *kind)
{
	uint64_t k;

	if (!ti->ipv6) {
		*kind = HTTP_SRC_V4;
		return ti->remote_ip;
	}
	if (ti->remote_ip6[0] == 0xfe && (ti->remote_ip6[1] & 0xc0) == 0x80) {
		*kind = HTTP_SRC_LL6;
		memcpy(&k, ti->remote_ip6 + 8, 8);
		return k;
	}
	*kind = HTTP_SRC_NET6;
	memcpy(&k, ti->remote_ip6, 8);
	return k;
}

static uint32_t
src_bucket(const struct ewyk_http_server *s, uint64_t key, uint8_t kind)
{
	uint32_t w[3] = { 0x68747470 + kind, (uint32_t)key,
		(uint32_t)(key >> 32) };

	return (uint32_t)ewyk_siphash13(s->hk0, s->hk1, w, 3) & s->src_mask;
}

int
http_slots_init(struct ewyk_http_server *s)
{
	struct ewyk_http_server_conf *cf = &s->conf;
	uint64_t k[2];
	uint32_t i, nb;

	if (cf->max_heads == 0)
		cf->max_heads = RTE_MIN(cf->max_conns, 2048u);
	cf->max_heads = RTE_MIN(cf->max_heads, cf->max_conns);
	if (cf->max_conns_per_src == 0)
		cf->max_conns_per_src = RTE_MAX(cf->max_conns / 4, 1u);
	if (cf->max_heads_per_src == 0)
		cf->max_heads_per_src = RTE_MAX(cf->max_heads / 4, 1u);
	/* A share of all the objects (or leases) or more is no limit, for
	 * any number of them: the counts are 32-bit, nothing is clamped. */
	if (cf->secret != 0) {
		uint32_t w[2] = { (uint32_t)cf->secret,
			(uint32_t)(cf->secret >> 32) };

		k[0] = ewyk_siphash24(UINT64_C(0x68747470), 0, w, 2);
		k[1] = ewyk_siphash24(UINT64_C(0x68747471), 0, w, 2);
	} else if (getentropy(k, sizeof(k)) != 0) {
		return -errno;
	}
	s->hk0 = k[0];
	s->hk1 = k[1];
	nb = rte_align32pow2(cf->max_conns);
	s->src_mask = nb - 1;
	s->src_conns = rte_zmalloc_socket("ewyk_http_src",
		2 * sizeof(*s->src_conns) * nb, RTE_CACHE_LINE_SIZE,
		cf->socket_id);
	s->lease_next = rte_malloc_socket("ewyk_http_leases",
		sizeof(*s->lease_next) * cf->max_heads, RTE_CACHE_LINE_SIZE,
		cf->socket_id);
	s->ls = rte_zmalloc_socket("ewyk_http_lease_st",
		sizeof(*s->ls) * cf->max_heads, RTE_CACHE_LINE_SIZE,
		cf->socket_id);
	s->hdrs = rte_zmalloc_socket("ewyk_http_hdrs",
		sizeof(s->hdrs[0]) * s->max_headers * cf->max_heads,
		RTE_CACHE_LINE_SIZE, cf->socket_id);
	s->scratch = rte_malloc_socket("ewyk_http_scratch",
		(size_t)s->scratch_size * cf->max_heads, RTE_CACHE_LINE_SIZE,
		cf->socket_id);
	if (s->src_conns == NULL || s->lease_next == NULL || s->ls == NULL ||
		s->hdrs == NULL || s->scratch == NULL)
		return -ENOMEM;
	s->src_heads = s->src_conns + nb;
	s->lease_free = HTTP_NO_LEASE;
	for (i = cf->max_heads; i-- > 0;) {
		/* each lease's parser keeps its own scratch */
		ewyk_http_parser_init(&s->ls[i].p, &cf->lim,
			s->scratch + (size_t)i * s->scratch_size,
			s->scratch_size);
		s->lease_next[i] = s->lease_free;
		s->lease_free = i;
	}
	s->lim = s->ls[0].p.lim;
	s->lru_head = NONE;
	s->lru_tail = NONE;
	return 0;
}

void
http_slots_free(struct ewyk_http_server *s)
{
	rte_free(s->src_conns);
	rte_free(s->lease_next);
	rte_free(s->ls);
	rte_free(s->hdrs);
	rte_free(s->scratch);
	s->src_conns = NULL;
	s->lease_next = NULL;
	s->ls = NULL;
	s->hdrs = NULL;
	s->scratch = NULL;
}

/* ---- the idle list ---- */

static void
lru_append(struct ewyk_http_conn *c)
{
	struct ewyk_http_server *s = c->srv;
	uint32_t i = (uint32_t)(c - s->conns);

	c->lru_prev = s->lru_tail;
	c->lru_next = NONE;
	if (s->lru_tail != NONE)
		s->conns[s->lru_tail].lru_next = i;
	else
		s->lru_head = i;
	s->lru_tail = i;
	c->idle = 1;
	s->nidle++;
}

void
http_slots_unidle(struct ewyk_http_conn *c)
{
	struct ewyk_http_server *s = c->srv;

	if (!c->idle)
		return;
	if (c->lru_prev != NONE)
		s->conns[c->lru_prev].lru_next = c->lru_next;
	else
		s->lru_head = c->lru_next;
	if (c->lru_next != NONE)
		s->conns[c->lru_next].lru_prev = c->lru_prev;
	else
		s->lru_tail = c->lru_prev;
	c->idle = 0;
	s->nidle--;
}

/* ---- leases ---- */

static void
lease_put(struct ewyk_http_conn *c)
{
	struct ewyk_http_server *s = c->srv;

	if (c->lease == HTTP_NO_LEASE)
		return;
	s->lease_next[c->lease] = s->lease_free;
	s->lease_free = c->lease;
	s->leases--;
	s->src_heads[c->src]--;
	c->lease = HTTP_NO_LEASE;
	c->ls = NULL;
	c->req.headers = NULL;
}

int
http_slots_lease(struct ewyk_http_conn *c)
{
	struct ewyk_http_server *s = c->srv;
	uint32_t l = s->lease_free;

	if (l == HTTP_NO_LEASE ||
		(s->conf.max_heads_per_src < s->conf.max_heads &&
			s->src_heads[c->src] >= s->conf.max_heads_per_src)) {
		if (l == HTTP_NO_LEASE)
			HTTP_CTR(s, HEAD_REFUSED, 1);
		else
			HTTP_CTR(s, HEAD_SRC_REFUSED, 1);
		if (c->tmo != HT_NONE)
			ewyk_twheel_cancel(s->conf.wheel, &c->tmr);
		c->tmo = HT_NONE;
		c->st = HC_WAIT;
		http_conn_error(c, 503);
		return -1;
	}
	s->lease_free = s->lease_next[l];
	s->leases++;
	s->src_heads[c->src]++;
	c->lease = l;
	c->ls = &s->ls[l];
	/* whatever its last holder left: a connection may go mid-head */
	ewyk_http_parser_reset(&c->ls->p);
	c->req.headers = s->hdrs + (size_t)l * s->max_headers;
	return 0;
}

void
http_slots_timer(struct ewyk_http_conn *c, enum http_tmo kind)
{
	http_slots_unidle(c);
	if (kind != HT_IDLE)
		return;
	/* Between requests: nothing of a head is parsed (the parser is at
	 * its start and its scratch empty), so nothing points into the
	 * lease. */
	if (c->ls != NULL && c->st == HC_HEAD && c->ls->p.state == PS_START &&
		c->ls->p.scratch_used == 0)
		lease_put(c);
	lru_append(c);
}

void
http_slots_release(struct ewyk_http_conn *c)
{
	struct ewyk_http_server *s = c->srv;

	http_slots_unidle(c);
	lease_put(c);
	if (s->src_conns[c->src] > 0)
		s->src_conns[c->src]--;
}

/* ---- accept ---- */

/* Close the oldest idle keep-alive connection: its object goes back to
 * the free list. 0, or -1 (none). */
static int
reclaim_idle(struct ewyk_http_server *s)
{
	uint32_t i;

	for (i = s->lru_head; i != NONE; i = s->conns[i].lru_next) {
		struct ewyk_http_conn *v = &s->conns[i];

		/* Idle connections have sent everything (their timer is
		 * armed only then) and run no code: skip any other. */
		if (v->tcp == NULL || v->tx != NULL || v->in_run)
			continue;
		http_slots_unidle(v);
		ewyk_twheel_cancel(s->conf.wheel, &v->tmr);
		v->tmo = HT_NONE;
		ewyk_tcp_close(v->tcp); /* FIN; no more callbacks */
		v->tcp = NULL;
		http_conn_release(v);
		HTTP_CTR(s, IDLE_RECLAIMED, 1);
		return 0;
	}
	return -1;
}

struct ewyk_http_conn *
http_slots_accept(struct ewyk_http_server *s, struct ewyk_tcp_conn *tc)
{
	struct ewyk_tcp_conn_info ti;
	struct ewyk_http_conn *c;
	uint64_t key;
	uint8_t kind;
	uint32_t b;

	ewyk_tcp_conn_addrs(tc, &ti); /* all http_src_key() reads */
	key = http_src_key(&ti, &kind);
	b = src_bucket(s, key, kind);
	/* A share of every object is no share: an address sharing a
	 * bucket with one that holds them all is not refused for it. */
	if (s->conf.max_conns_per_src < s->conf.max_conns &&
		s->src_conns[b] >= s->conf.max_conns_per_src) {
		HTTP_CTR(s, CONN_SRC_REFUSED, 1);
		return NULL;
	}
	if (s->free_head == UINT32_MAX && reclaim_idle(s) != 0) {
		HTTP_CTR(s, CONN_REFUSED, 1);
		return NULL;
	}
	c = &s->conns[s->free_head];
	s->free_head = c->next_free;
	s->in_use++;
	s->src_conns[b]++;
	c->src = b;
	c->rip = key;
	c->rip_kind = kind;
	c->lease = HTTP_NO_LEASE;
	c->idle = 0;
	return c;
}

int
ewyk_http_conn_peer(const struct ewyk_http_conn *c, struct ewyk_http_peer *p)
{
	if (c == NULL || p == NULL)
		return -EINVAL;
	return ewyk_http_tcp_peer(c->used ? c->tcp : NULL, p);
}

int
ewyk_http_tcp_peer(struct ewyk_tcp_conn *tc, struct ewyk_http_peer *p)
{
	struct ewyk_tcp_conn_info ti;

	if (p == NULL)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	if (tc == NULL)
		return -ENOTCONN;
	ewyk_tcp_conn_info(tc, &ti);
	return ewyk_http_peer_from_info(&ti, p);
}

int
ewyk_http_peer_from_info(const struct ewyk_tcp_conn_info *ti,
	struct ewyk_http_peer *p)
{
	if (ti == NULL || p == NULL)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->ipv6 = ti->ipv6;
	p->port = ti->remote_port;
	if (ti->ipv6)
		memcpy(p->addr, ti->remote_ip6, 16);
	else
		memcpy(p->addr, &ti->remote_ip, 4);
	return 0;
}

int
ewyk_http_peer_format(const struct ewyk_http_peer *p, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (p == NULL || buf == NULL || len == 0)
		return -EINVAL;
	if (inet_ntop(p->ipv6 ? AF_INET6 : AF_INET, p->addr, a, sizeof(a)) ==
		NULL)
		return -EINVAL;
	if (strlen(a) >= len)
		return -ENOSPC;
	memcpy(buf, a, strlen(a) + 1);
	return (int)strlen(a);
}

int
ewyk_http_server_slots(const struct ewyk_http_server *s,
	struct ewyk_http_slots_info *info)
{
	uint64_t all;

	if (s == NULL || info == NULL)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	info->conns = s->in_use;
	info->idle = s->nidle;
	info->leases = s->leases;
	info->max_conns = s->conf.max_conns;
	info->max_heads = s->conf.max_heads;
	info->max_conns_per_src = s->conf.max_conns_per_src;
	info->max_heads_per_src = s->conf.max_heads_per_src;
	info->conn_bytes = sizeof(struct ewyk_http_conn);
	info->lease_bytes = s->scratch_size + sizeof(struct http_lease) +
		(size_t)s->max_headers * sizeof(struct ewyk_http_header);
	all = (uint64_t)s->conf.max_conns * info->conn_bytes +
		2 * ((uint64_t)s->src_mask + 1) * sizeof(*s->src_conns);
	info->conn_mem_bytes = (size_t)((all + s->conf.max_conns - 1) /
		s->conf.max_conns);
	info->lease_mem_bytes = (uint64_t)s->conf.max_heads *
		(info->lease_bytes + sizeof(*s->lease_next));
	info->lease_failures = ewyk_ctr_read(
				       &s->ctr[EWYK_HTTP_C_HEAD_REFUSED]) +
		ewyk_ctr_read(&s->ctr[EWYK_HTTP_C_HEAD_SRC_REFUSED]);
	return 0;
}
