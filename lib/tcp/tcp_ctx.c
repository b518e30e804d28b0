/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The per-shard context: configuration defaults, memory (connection pool,
 * table buckets, timer wheel), the clock, and active opens (choosing a
 * local port whose return traffic lands on this shard).
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf_dyn.h>
#include <rte_random.h>
#include <rte_thash.h>

#include "tcp_private.h"

RTE_LOG_REGISTER(ewyk_tcp_logtype, ewyk.tcp, INFO);

/* The first @p len bits of a and b are equal. */
static bool
prefix_eq(const uint8_t a[16], const uint8_t b[16], uint8_t len)
{
	unsigned int n = len / 8u, r = len % 8u;

	if (memcmp(a, b, n) != 0)
		return false;
	return r == 0 || ((a[n] ^ b[n]) & (uint8_t)(0xff << (8 - r))) == 0;
}

static int
net_output(void *arg, struct rte_mbuf *m, uint16_t port, rte_be32_t src,
	rte_be32_t dst)
{
	return ewyk_net_ip_output(arg, m, port, src, dst, IPPROTO_TCP, true);
}

static int
net_output6(void *arg, struct rte_mbuf *m, uint16_t port, const uint8_t src[16],
	const uint8_t dst[16])
{
	return ewyk_net_ip6_output(arg, m, port, src, dst, IPPROTO_TCP, true);
}

static uint32_t
net_tx_room(void *arg, uint16_t port)
{
	return ewyk_net_tx_room(arg, port);
}

static int
conf_defaults(struct ewyk_tcp_conf *c)
{
#define DEF(f, v)                   \
	do {                        \
		if (c->f == 0)      \
			c->f = (v); \
	} while (0)
	DEF(max_conns, 16384);
	DEF(mss, 1460);
	DEF(rcv_buf, 256 * 1024);
	DEF(snd_buf, 256 * 1024);
	DEF(time_wait_ms, 60000);
	DEF(max_time_wait, c->max_conns / 2);
	DEF(delack_ms, 40);
	DEF(rto_init_ms, 1000);
	DEF(rto_min_ms, 200);
	DEF(rto_max_ms, 60000);
	DEF(max_retries, 12);
	DEF(syn_retries, 5);
	DEF(fin_wait2_ms, 60000);
	DEF(keepalive_intvl_ms, 75000);
	DEF(keepalive_probes, 9);
	DEF(quickack_segs, 16);
	DEF(challenge_ack_limit, 1000);
	DEF(ephemeral_lo, 32768);
	DEF(ephemeral_hi, 60999);
	/* hardening (docs/guides/security.md) */
	DEF(oow_ratelimit_ms, 500);
	DEF(orphan_timeout_ms, 60000);
	DEF(persist_max_ms, 300000);
	DEF(rst_limit, 1000);
	DEF(max_conns_per_net6, c->max_conns_per_src);
	/* Enough to hold a whole window of small segments. */
	DEF(ooo_max_segs,
		(uint16_t)RTE_MIN(RTE_MAX(c->rcv_buf / 512, 64u), 4096u));
#undef DEF
	/* A share of all the connections or more is no limit, whatever
	 * the table's size (the counts are 32-bit). */
	if (c->max_conns_per_src >= c->max_conns)
		c->max_conns_per_src = 0;
	if (c->max_conns_per_net6 >= c->max_conns)
		c->max_conns_per_net6 = 0;
	if (c->hash_buckets == 0)
		c->hash_buckets = rte_align32pow2(c->max_conns);
	if (!rte_is_power_of_2(c->hash_buckets))
		return -1;
	if (c->mss < TCP_MIN_MSS || c->rto_min_ms > c->rto_max_ms ||
		c->rto_init_ms > c->rto_max_ms ||
		c->ephemeral_lo > c->ephemeral_hi || c->rcv_buf < c->mss ||
		c->rcv_buf > (1u << 30) || c->snd_buf > (1u << 30))
		return -1;
	return 0;
}

/* A shard takes one context; without a shard, the caller sends. */
static int
tcp_conf_check(const struct ewyk_tcp_conf *conf)
{
	if (conf == NULL)
		return -EINVAL;
	if (conf->shard == NULL &&
		(conf->output == NULL || conf->tx_pool == NULL))
		return -EINVAL;
	if (conf->shard != NULL &&
		tcp_registry_check(ewyk_net_shard_id(conf->shard)) != 0)
		return -EEXIST;
	return 0;
}

/*
 * Clock, output path, secrets and window scale: no memory yet.
 * Returns 0, or a negative errno when no entropy could be had.
 */
static int
tcp_ctx_init(struct ewyk_tcp *t, const struct ewyk_tcp_conf *conf)
{
	t->hz = rte_get_tsc_hz();
	t->cyc_ms = RTE_MAX(t->hz / 1000, (uint64_t)1);
	t->cyc_us = RTE_MAX(t->hz / 1000000, (uint64_t)1);
	t->idle_cyc = UINT64_MAX;
	if (t->conf.keepalive_ms != 0)
		t->idle_cyc = tcp_ms_to_cyc(t, t->conf.keepalive_ms);
	if (t->conf.idle_timeout_ms != 0)
		t->idle_cyc = RTE_MIN(t->idle_cyc,
			tcp_ms_to_cyc(t, t->conf.idle_timeout_ms));
	t->now = rte_rdtsc();
	t->shard = conf->shard;
	if (t->shard != NULL) {
		t->net = ewyk_net_shard_net(t->shard);
		t->shard_id = ewyk_net_shard_id(t->shard);
		t->nb_shards = ewyk_net_nb_shards(t->net);
		t->tx_pool = conf->tx_pool != NULL ?
			conf->tx_pool :
			ewyk_net_shard_pool(t->shard);
		t->output = conf->output != NULL ? conf->output : net_output;
		t->output_arg = conf->output != NULL ? conf->output_arg :
						       t->shard;
		t->output6 = conf->output6 != NULL ? conf->output6 :
						     net_output6;
		t->output6_arg = conf->output6 != NULL ? conf->output6_arg :
							 t->shard;
		t->out_net = conf->output == NULL;
		t->out_net6 = conf->output6 == NULL;
		if (conf->tx_room != NULL) {
			t->tx_room = conf->tx_room;
			t->tx_room_arg = conf->tx_room_arg;
		} else if (conf->output == NULL) {
			t->tx_room = net_tx_room;
			t->tx_room_arg = t->shard;
		}
	} else {
		t->nb_shards = 1;
		t->tx_pool = conf->tx_pool;
		t->output = conf->output;
		t->output_arg = conf->output_arg;
		t->output6 = conf->output6;
		t->output6_arg = conf->output6_arg;
		t->tx_room = conf->tx_room;
		t->tx_room_arg = conf->tx_room_arg;
	}
	if (tcp_crypto_init(t) != 0) /* keys from getentropy */
		return rte_errno != 0 ? -rte_errno : -EIO;
	/* Offer the smallest scale that lets the whole buffer be announced. */
	while (t->rcv_wscale < TCP_MAX_WSCALE &&
		(t->conf.rcv_buf >> t->rcv_wscale) > UINT16_MAX)
		t->rcv_wscale++;
	t->eph_next = (uint16_t)rte_rand();
	return 0;
}

/* Table buckets, connection pool and (unless given) the timer wheel. */
static int
tcp_ctx_alloc(struct ewyk_tcp *t, int socket)
{
	struct ewyk_pool_params pp;
	char name[EWYK_POOL_NAMESIZE];

	t->hmask = t->conf.hash_buckets - 1;
	t->buckets = rte_zmalloc_socket("ewyk_tcp_tbl",
		sizeof(t->buckets[0]) * t->conf.hash_buckets,
		RTE_CACHE_LINE_SIZE, socket);
	if (t->buckets == NULL)
		return -ENOMEM;
	if (tcp_limits_init(t) != 0)
		return -ENOMEM;
	if (tcp_txw_init(t) != 0)
		return -ENOMEM;

	snprintf(name, sizeof(name), "tcp%" PRIxPTR,
		(uintptr_t)t & 0xffffffffffu);
	memset(&pp, 0, sizeof(pp));
	pp.name = name;
	pp.capacity = t->conf.max_conns;
	pp.obj_size = sizeof(struct ewyk_tcp_conn);
	pp.socket_id = socket;
	pp.cache_size = RTE_MIN(64u, t->conf.max_conns);
	t->conn_pool = ewyk_pool_create(&pp);
	if (t->conn_pool == NULL)
		return rte_errno != 0 ? -rte_errno : -ENOMEM;

	if (t->conf.wheel != NULL) {
		t->wheel = t->conf.wheel;
	} else {
		struct ewyk_twheel_params wp;

		memset(&wp, 0, sizeof(wp));
		snprintf(name, sizeof(name), "tcpw%" PRIxPTR,
			(uintptr_t)t & 0xffffffffffu);
		wp.name = name;
		wp.socket_id = socket;
		wp.start_tsc = t->now;
		t->wheel = ewyk_twheel_create(&wp);
		if (t->wheel == NULL)
			return rte_errno != 0 ? -rte_errno : -ENOMEM;
		t->own_wheel = true;
	}
	return 0;
}

/* Register for ewyk_tcp_get() and telemetry; take the shard's TCP input. */
static int
tcp_ctx_attach(struct ewyk_tcp *t)
{
	int ret;

	if (t->shard == NULL)
		return 0;
	ret = tcp_registry_add(t);
	if (ret != 0)
		return ret;
	ret = ewyk_net_l4_register(t->shard, IPPROTO_TCP, ewyk_tcp_l4_input, t);
	if (ret == 0)
		ret = ewyk_net_l4_register6(t->shard, IPPROTO_TCP,
			ewyk_tcp_l4_input6, t);
	if (ret != 0)
		tcp_registry_del(t);
	return ret;
}

/* Free what tcp_ctx_alloc() took, and the context. */
static void
tcp_ctx_release(struct ewyk_tcp *t)
{
	if (t->own_wheel)
		ewyk_twheel_free(t->wheel);
	ewyk_pool_free(t->conn_pool);
	rte_free(t->buckets);
	rte_free(t->src_cnt);
	rte_free(t->src_of);
	rte_free(t->txw);
	rte_free(t);
}

struct ewyk_tcp *
ewyk_tcp_create(const struct ewyk_tcp_conf *conf)
{
	static const struct rte_mbuf_dynfield dyn = {
		.name = "ewyk_tcp_seg",
		.size = sizeof(struct tcp_mbuf_meta),
		.align = __alignof__(struct tcp_mbuf_meta),
	};
	struct ewyk_tcp *t;
	int ret;

	ret = tcp_conf_check(conf);
	if (ret < 0) {
		rte_errno = -ret;
		return NULL;
	}
	t = rte_zmalloc_socket("ewyk_tcp", sizeof(*t), RTE_CACHE_LINE_SIZE,
		conf->socket_id);
	if (t == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	t->conf = *conf;
	if (conf_defaults(&t->conf) != 0) {
		rte_free(t);
		rte_errno = EINVAL;
		return NULL;
	}
	t->dyn_off = rte_mbuf_dynfield_register(&dyn);
	ret = t->dyn_off >= 0 ? 0 : rte_errno != 0 ? -rte_errno : -ENOMEM;
	if (ret == 0)
		ret = tcp_ctx_init(t, conf);
	if (ret == 0)
		ret = tcp_ctx_alloc(t, conf->socket_id);
	if (ret == 0)
		ret = tcp_ctx_attach(t);
	if (ret == 0)
		return t;
	tcp_ctx_release(t);
	rte_errno = ret < 0 ? -ret : ENOMEM;
	return NULL;
}

void
ewyk_tcp_free(struct ewyk_tcp *t)
{
	uint32_t i;

	if (t == NULL)
		return;
	if (t->registered)
		tcp_registry_del(t);
	for (i = 0; i <= t->hmask; i++) {
		struct ewyk_tcp_conn *c, *n;

		for (c = t->buckets[i]; c != NULL; c = n) {
			n = c->hnext;
			c->app_closed = 1;
			c->busy = 0;
			tcp_conn_destroy(c);
		}
	}
	tcp_ctx_release(t);
}

unsigned int
ewyk_tcp_abort_all(struct ewyk_tcp *t)
{
	unsigned int n = 0;
	uint32_t i;

	if (t == NULL)
		return 0;
	RTE_ASSERT(ewyk_net_shard_held_here(t->shard));
	for (i = 0; i <= t->hmask; i++) {
		struct ewyk_tcp_conn *c, *next;

		for (c = t->buckets[i]; c != NULL; c = next) {
			next = c->hnext;
			if (c->dead || c->app_closed)
				continue;
			ewyk_tcp_abort(c);
			n++;
		}
	}
	return n;
}

unsigned int
ewyk_tcp_advance(struct ewyk_tcp *t, uint64_t now)
{
	RTE_ASSERT(t == NULL || ewyk_net_shard_held_here(t->shard));
	if (now > t->now)
		t->now = now;
	if (unlikely(t->txw_n != 0))
		tcp_txw_resume(t);
	if (!t->own_wheel)
		return 0;
	return ewyk_twheel_advance(t->wheel, t->now, 0);
}

struct ewyk_net_shard *
ewyk_tcp_shard(const struct ewyk_tcp *t)
{
	return t != NULL ? t->shard : NULL;
}

uint16_t
ewyk_tcp_flow_shard(rte_be32_t local_ip, uint16_t local_port,
	rte_be32_t remote_ip, uint16_t remote_port, uint16_t nb_shards)
{
	uint32_t tuple[3];
	const uint8_t *key;
	uint8_t klen;

	if (nb_shards <= 1)
		return 0;
	/* The tuple as the NIC sees the return traffic: src = remote. */
	tuple[0] = rte_be_to_cpu_32(remote_ip);
	tuple[1] = rte_be_to_cpu_32(local_ip);
	tuple[2] = ((uint32_t)remote_port << 16) | local_port;
	key = ewyk_net_rss_key(&klen);
	RTE_SET_USED(klen);
	/* Default RETA: entry i -> queue i % nb_queues. */
	return (uint16_t)((rte_softrss(tuple, 3, key) & 0x7f) % nb_shards);
}

uint16_t
ewyk_tcp_flow_shard6(const uint8_t local_ip[16], uint16_t local_port,
	const uint8_t remote_ip[16], uint16_t remote_port, uint16_t nb_shards)
{
	uint32_t tuple[9];
	const uint8_t *key;
	uint8_t klen;
	unsigned int i;

	if (nb_shards <= 1)
		return 0;
	/* As the NIC hashes IPv6 TCP (rte_ipv6_tuple): src, dst, ports. */
	for (i = 0; i < 4; i++) {
		uint32_t r, l;

		memcpy(&r, remote_ip + 4 * i, 4);
		memcpy(&l, local_ip + 4 * i, 4);
		tuple[i] = rte_be_to_cpu_32(r);
		tuple[4 + i] = rte_be_to_cpu_32(l);
	}
	tuple[8] = ((uint32_t)remote_port << 16) | local_port;
	key = ewyk_net_rss_key(&klen);
	RTE_SET_USED(klen);
	return (uint16_t)((rte_softrss(tuple, 9, key) & 0x7f) % nb_shards);
}

/* The shard a tuple of either family belongs to. */
static uint16_t
flow_shard(const struct ewyk_tcp *t, const struct tcp_ip *ip, uint16_t lport,
	uint16_t rport)
{
	if (ip->v6)
		return ewyk_tcp_flow_shard6(ip->dst.b, lport, ip->src.b, rport,
			t->nb_shards);
	return ewyk_tcp_flow_shard(ip->dst.v4, lport, ip->src.v4, rport,
		t->nb_shards);
}

/* The tuple's bucket hash, as the input path computes it. */
static uint32_t
tuple_hash(const struct ewyk_tcp *t, const struct tcp_ip *ip, uint16_t lport,
	uint16_t rport)
{
	if (ip->v6)
		return tcp_hash6(t, &ip->dst, lport, &ip->src, rport);
	return tcp_hash(t, ip->dst.v4, lport, ip->src.v4, rport);
}

/* The connection of a tuple whose bucket hash is @p h, if any. */
static struct ewyk_tcp_conn *
tuple_lookup(struct ewyk_tcp *t, const struct tcp_ip *ip, uint32_t h,
	uint16_t lport, uint16_t rport)
{
	if (ip->v6)
		return tcp_table_lookup6_h(t, h, &ip->dst, lport, &ip->src,
			rport);
	return tcp_table_lookup_h(t, h, ip->dst.v4, lport, ip->src.v4, rport);
}

static bool
addr6_zero(const uint8_t a[16])
{
	static const uint8_t z[16];

	return memcmp(a, z, 16) == 0;
}

/*
 * Where an active open goes from: the port that routes to the destination
 * and its address (for IPv6 the global one sharing the destination's
 * prefix, else the link-local one). Fills ip (src = the peer). Returns 0
 * or a positive errno.
 */
static int
connect_route(struct ewyk_tcp *t, const struct ewyk_tcp_connect_args *a,
	struct tcp_ip *ip)
{
	memset(ip, 0, sizeof(*ip));
	ip->v6 = a->ipv6;
	ip->port = a->port;
	if (!a->ipv6) {
		ip->src.v4 = a->dst_ip;
		ip->dst.v4 = a->src_ip;
		if (a->dst_ip == 0)
			return EINVAL;
	} else {
		memcpy(ip->src.b, a->dst_ip6, 16);
		memcpy(ip->dst.b, a->src_ip6, 16);
		if (addr6_zero(a->dst_ip6) || a->dst_ip6[0] == 0xff)
			return EINVAL;
	}
	if (t->net != NULL) {
		int r = a->ipv6 ? ewyk_net_route6(t->net, a->dst_ip6) :
				  ewyk_net_route(t->net, a->dst_ip);

		if (r < 0)
			return ENETUNREACH;
		ip->port = (uint16_t)r;
		if (!a->ipv6 && ip->dst.v4 == 0)
			ip->dst.v4 = ewyk_net_port_ip(t->net, ip->port);
		if (a->ipv6 && addr6_zero(ip->dst.b)) {
			bool ll = a->dst_ip6[0] == 0xfe &&
				(a->dst_ip6[1] & 0xc0) == 0x80;
			unsigned int i;
			uint8_t p;

			/* Index 0 is the link-local address. */
			if (ewyk_net_port_ip6(t->net, ip->port, 0, ip->dst.b,
				    NULL) != 0)
				return ENETUNREACH;
			for (i = 1; !ll; i++) {
				uint8_t g[16];

				if (ewyk_net_port_ip6(t->net, ip->port, i, g,
					    &p) != 0)
					break;
				if (prefix_eq(g, a->dst_ip6, p)) {
					memcpy(ip->dst.b, g, 16);
					break;
				}
			}
		}
	}
	if (ip->v6 ? addr6_zero(ip->dst.b) : ip->dst.v4 == 0)
		return EINVAL;
	return 0;
}

struct ewyk_tcp_conn *
ewyk_tcp_connect(struct ewyk_tcp *t, const struct ewyk_tcp_connect_args *a)
{
	struct ewyk_tcp_conn *c;
	struct tcp_ip ip;
	uint16_t sport = 0;
	uint32_t h = 0;
	int err;

	RTE_ASSERT(t == NULL || ewyk_net_shard_held_here(t->shard));
	if (t == NULL || a == NULL || a->ops == NULL || a->dst_port == 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	err = connect_route(t, a, &ip);
	if (err != 0) {
		rte_errno = err;
		return NULL;
	}
	if (a->src_port != 0) {
		h = tuple_hash(t, &ip, a->src_port, a->dst_port);
		if (tuple_lookup(t, &ip, h, a->src_port, a->dst_port) != NULL) {
			rte_errno = EADDRINUSE;
			return NULL;
		}
		sport = a->src_port;
	} else {
		uint32_t n = (uint32_t)t->conf.ephemeral_hi -
			t->conf.ephemeral_lo + 1;
		uint32_t i;

		for (i = 0; i < n; i++) {
			uint16_t p = (uint16_t)(t->conf.ephemeral_lo +
				(uint16_t)(t->eph_next + i) % n);

			if (flow_shard(t, &ip, p, a->dst_port) != t->shard_id)
				continue;
			h = tuple_hash(t, &ip, p, a->dst_port);
			if (tuple_lookup(t, &ip, h, p, a->dst_port) != NULL)
				continue;
			sport = p;
			t->eph_next = (uint16_t)(t->eph_next + i + 1);
			break;
		}
		if (sport == 0) {
			rte_errno = EADDRNOTAVAIL;
			return NULL;
		}
	}
	c = tcp_conn_alloc(t);
	if (c == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	c->lip = ip.dst;
	c->lport = sport;
	c->rip = ip.src;
	c->rport = a->dst_port;
	c->port = ip.port;
	c->v6 = ip.v6;
	c->mss_cap = tcp_mss_cap(t, &ip);
	c->ops = a->ops;
	c->ctx = a->ctx;
	c->app_known = 1;
	c->rcv_wscale = t->conf.no_wscale ? 0 : t->rcv_wscale;
	c->iss = tcp_isn_ts(t, &ip, c->lport, c->rport, &c->ts_off);
	c->snd_una = c->iss;
	c->snd_nxt = c->snd_max = c->iss;
	c->rtt_timing = 1;
	c->rtt_tsc = t->now;
	tcp_set_state(c, EWYK_TCP_SYN_SENT);
	/* The hash of the lookup that found the tuple free: not again. */
	tcp_table_insert_h(t, c, h);
	tcp_ctr_inc(t, EWYK_TCP_ACTIVE_OPENS);
	tcp_send_syn(c);
	tcp_timer_rto_arm(c);
	return c;
}
