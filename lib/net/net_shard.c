/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The network context and its shards: creation, the receive pass, the
 * inbox, counters and their telemetry.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_spinlock.h>
#include <rte_telemetry.h>

#include "net_private.h"

RTE_LOG_REGISTER(ewyk_net_logtype, ewyk.net, INFO);

/*
 * Telemetry callbacks take no user argument, so the live context is kept
 * here. The lock (telemetry thread vs create/free only, never taken by an
 * lcore) keeps a callback from reading a context while it is being freed.
 */
static struct ewyk_net *net_telemetry_ctx;
static rte_spinlock_t net_telemetry_lock = RTE_SPINLOCK_INITIALIZER;

static const char *const net_counter_names[EWYK_NET_COUNTER_MAX] = {
	[EWYK_NET_RX_PKTS] = "rx_pkts",
	[EWYK_NET_RX_BYTES] = "rx_bytes",
	[EWYK_NET_TX_PKTS] = "tx_pkts",
	[EWYK_NET_TX_BYTES] = "tx_bytes",
	[EWYK_NET_ARP_RX] = "arp_rx",
	[EWYK_NET_ARP_REPLY_TX] = "arp_reply_tx",
	[EWYK_NET_ARP_REQ_TX] = "arp_req_tx",
	[EWYK_NET_ARP_LEARNT] = "arp_learnt",
	[EWYK_NET_ICMP_ECHO_RX] = "icmp_echo_rx",
	[EWYK_NET_IP_OPTIONS] = "ip_options",
	[EWYK_NET_L4_DELIVERED] = "l4_delivered",
	[EWYK_NET_INBOX_RX] = "inbox_rx",
	[EWYK_NET_DROP_RUNT] = "drop_runt",
	[EWYK_NET_DROP_NOT_OURS] = "drop_not_ours",
	[EWYK_NET_DROP_MULTICAST] = "drop_multicast",
	[EWYK_NET_DROP_VLAN] = "drop_vlan",
	[EWYK_NET_DROP_ETHERTYPE] = "drop_ethertype",
	[EWYK_NET_DROP_ARP_MALFORMED] = "drop_arp_malformed",
	[EWYK_NET_DROP_ARP_NOT_OURS] = "drop_arp_not_ours",
	[EWYK_NET_DROP_ARP_OP] = "drop_arp_op",
	[EWYK_NET_DROP_IP_TRUNCATED] = "drop_ip_truncated",
	[EWYK_NET_DROP_IP_VERSION] = "drop_ip_version",
	[EWYK_NET_DROP_IP_IHL] = "drop_ip_ihl",
	[EWYK_NET_DROP_IP_LEN] = "drop_ip_len",
	[EWYK_NET_DROP_IP_CKSUM] = "drop_ip_cksum",
	[EWYK_NET_DROP_IP_TTL] = "drop_ip_ttl",
	[EWYK_NET_DROP_IP_FRAG] = "drop_ip_frag",
	[EWYK_NET_DROP_IP_NOT_OURS] = "drop_ip_not_ours",
	[EWYK_NET_DROP_IP_SRC] = "drop_ip_src",
	[EWYK_NET_DROP_IP_PROTO] = "drop_ip_proto",
	[EWYK_NET_DROP_ICMP_TRUNCATED] = "drop_icmp_truncated",
	[EWYK_NET_DROP_ICMP_CKSUM] = "drop_icmp_cksum",
	[EWYK_NET_DROP_ICMP_TYPE] = "drop_icmp_type",
	[EWYK_NET_DROP_NO_ROUTE] = "drop_no_route",
	[EWYK_NET_DROP_ARP_QUEUE] = "drop_arp_queue",
	[EWYK_NET_DROP_ARP_UNRESOLVED] = "drop_arp_unresolved",
	[EWYK_NET_DROP_NO_MBUF] = "drop_no_mbuf",
	[EWYK_NET_DROP_TX_FULL] = "drop_tx_full",
	[EWYK_NET_DROP_INBOX_FULL] = "drop_inbox_full",
	[EWYK_NET_DROP_TOO_BIG] = "drop_too_big",
	/* hardening (issue 13) */
	[EWYK_NET_DROP_ICMP_SRC] = "drop_icmp_src",
	[EWYK_NET_DROP_RX_NOMBUF] = "drop_rx_nombuf",
	[EWYK_NET_DROP_RX_MISSED] = "drop_rx_missed",
	[EWYK_NET_DROP_ARP_LIMITED] = "drop_arp_limited",
};

const char *
ewyk_net_counter_name(enum ewyk_net_counter c)
{
	if ((unsigned int)c >= EWYK_NET_COUNTER_MAX)
		return NULL;
	return net_counter_names[c];
}

uint64_t
ewyk_net_counter_get(const struct ewyk_net_shard *s, enum ewyk_net_counter c)
{
	if (s == NULL || (unsigned int)c >= EWYK_NET_COUNTER_MAX)
		return 0;
	return __atomic_load_n(&s->ctr[c], __ATOMIC_RELAXED);
}

uint64_t
ewyk_net_counter_sum(const struct ewyk_net *net, enum ewyk_net_counter c)
{
	uint64_t sum = 0;
	uint16_t i;

	if (net == NULL)
		return 0;
	for (i = 0; i < net->nb_shards; i++)
		sum += ewyk_net_counter_get(net->shards[i], c);
	return sum;
}

static int
net_is_pow2_or_zero(uint32_t v)
{
	return v == 0 || rte_is_power_of_2(v);
}

struct ewyk_net *
ewyk_net_create(const struct ewyk_net_conf *conf)
{
	struct ewyk_net *net;
	uint64_t hz = rte_get_tsc_hz();

	if (conf == NULL || conf->nb_shards == 0 ||
			conf->nb_shards > EWYK_NET_MAX_SHARDS ||
			!net_is_pow2_or_zero(conf->arp_entries) ||
			!net_is_pow2_or_zero(conf->inbox_size) ||
			(conf->arp_entries != 0 && conf->arp_entries < NET_ARP_PROBE)) {
		rte_errno = EINVAL;
		return NULL;
	}
	net = rte_zmalloc("ewyk_net", sizeof(*net), RTE_CACHE_LINE_SIZE);
	if (net == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	net->conf = *conf;
	/* hardening (issue 13): the ARP table's hash key, per boot */
	if (getentropy(&net->arp_k0, sizeof(net->arp_k0)) != 0 ||
			getentropy(&net->arp_k1, sizeof(net->arp_k1)) != 0) {
		rte_free(net);
		rte_errno = EIO;
		return NULL;
	}
	if (net->conf.arp_entries == 0)
		net->conf.arp_entries = 256;
	if (net->conf.arp_queue_len == 0)
		net->conf.arp_queue_len = 8;
	if (net->conf.arp_timeout_ms == 0)
		net->conf.arp_timeout_ms = 300000;
	if (net->conf.arp_retry_ms == 0)
		net->conf.arp_retry_ms = 1000;
	if (net->conf.arp_retries == 0)
		net->conf.arp_retries = 3;
	if (net->conf.inbox_size == 0)
		net->conf.inbox_size = 1024;
	net->nb_shards = conf->nb_shards;
	net->arp_timeout_cyc = hz / 1000 * net->conf.arp_timeout_ms;
	net->arp_retry_cyc = hz / 1000 * net->conf.arp_retry_ms;
	net->housekeep_cyc = hz / 1000 * NET_ARP_HOUSEKEEP_MS;
	rte_spinlock_lock(&net_telemetry_lock);
	net_telemetry_ctx = net;
	rte_spinlock_unlock(&net_telemetry_lock);
	return net;
}

static void
net_shard_free(struct ewyk_net_shard *s)
{
	struct rte_mbuf *m;
	uint16_t p;

	if (s == NULL)
		return;
	for (p = 0; p < EWYK_NET_MAX_PORTS; p++) {
		rte_pktmbuf_free_bulk(s->txb[p].pkts, s->txb[p].n);
		s->txb[p].n = 0;
	}
	net_arp_flush(s);
	if (s->inbox != NULL) {
		while (rte_ring_dequeue(s->inbox, (void **)&m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(s->inbox);
	}
	rte_free(s->arp_q);
	rte_free(s->arp);
	rte_free(s);
}

void
ewyk_net_free(struct ewyk_net *net)
{
	uint16_t i;

	if (net == NULL)
		return;
	rte_spinlock_lock(&net_telemetry_lock);
	if (net_telemetry_ctx == net)
		net_telemetry_ctx = NULL;
	rte_spinlock_unlock(&net_telemetry_lock);
	for (i = 0; i < net->nb_ports; i++) {
		int rc = rte_eth_dev_stop(net->ports[i].port_id);

		if (rc != 0)
			NET_LOG(WARNING, "port %u: stop failed: %s",
				net->ports[i].port_id, rte_strerror(-rc));
	}
	for (i = 0; i < net->nb_shards; i++)
		net_shard_free(net->shards[i]);
	for (i = 0; i < net->nb_ports; i++)
		rte_eth_dev_close(net->ports[i].port_id);
	rte_free(net);
}

uint16_t
ewyk_net_nb_ports(const struct ewyk_net *net)
{
	return net->nb_ports;
}

uint16_t
ewyk_net_nb_shards(const struct ewyk_net *net)
{
	return net->nb_shards;
}

uint16_t
ewyk_net_port_id(const struct ewyk_net *net, uint16_t port)
{
	if (port >= net->nb_ports)
		return UINT16_MAX;
	return net->ports[port].port_id;
}

rte_be32_t
ewyk_net_port_ip(const struct ewyk_net *net, uint16_t port)
{
	if (port >= net->nb_ports)
		return 0;
	return net->ports[port].ip;
}

bool
ewyk_net_port_rss(const struct ewyk_net *net, uint16_t port)
{
	return port < net->nb_ports && net->ports[port].rss;
}

int
ewyk_net_route(const struct ewyk_net *net, rte_be32_t dst)
{
	uint16_t i;

	for (i = 0; i < net->nb_ports; i++) {
		const struct net_port *p = &net->ports[i];

		if ((dst & p->mask) == (p->ip & p->mask))
			return i;
	}
	return -ENETUNREACH;
}

struct ewyk_net_shard *
ewyk_net_shard_create(struct ewyk_net *net, uint16_t shard_id, int socket_id,
		struct rte_mempool *tx_pool)
{
	struct ewyk_net_shard *s;
	char name[RTE_RING_NAMESIZE];
	size_t nq;

	if (net == NULL || shard_id >= net->nb_shards || tx_pool == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (net->shards[shard_id] != NULL) {
		rte_errno = EEXIST;
		return NULL;
	}
	s = rte_zmalloc_socket("ewyk_net_shard", sizeof(*s),
		RTE_CACHE_LINE_SIZE, socket_id);
	if (s == NULL)
		goto nomem;
	s->net = net;
	s->id = shard_id;
	s->pool = tx_pool;
	s->arp_mask = net->conf.arp_entries - 1;
	s->arp = rte_zmalloc_socket("ewyk_net_arp",
		sizeof(*s->arp) * net->conf.arp_entries, RTE_CACHE_LINE_SIZE,
		socket_id);
	nq = (size_t)net->conf.arp_entries * net->conf.arp_queue_len;
	s->arp_q = rte_zmalloc_socket("ewyk_net_arpq", sizeof(*s->arp_q) * nq,
		RTE_CACHE_LINE_SIZE, socket_id);
	/* Ring names are process-wide: tell contexts apart. */
	snprintf(name, sizeof(name), "ewyk_ib_%08x_%u",
		(uint32_t)(uintptr_t)net, shard_id);
	s->inbox = rte_ring_create(name, net->conf.inbox_size, socket_id,
		RING_F_SC_DEQ);
	if (s->inbox == NULL) {
		int err = rte_errno;

		net_shard_free(s);
		rte_errno = err;
		return NULL;
	}
	if (s->arp == NULL || s->arp_q == NULL) {
		net_shard_free(s);
		goto nomem;
	}
	net->shards[shard_id] = s;
	return s;
nomem:
	rte_errno = ENOMEM;
	return NULL;
}

struct ewyk_net_shard *
ewyk_net_shard_get(const struct ewyk_net *net, uint16_t shard_id)
{
	if (net == NULL || shard_id >= net->nb_shards)
		return NULL;
	return net->shards[shard_id];
}

uint16_t
ewyk_net_shard_id(const struct ewyk_net_shard *s)
{
	return s->id;
}

struct ewyk_net *
ewyk_net_shard_net(const struct ewyk_net_shard *s)
{
	return s->net;
}

struct rte_mempool *
ewyk_net_shard_pool(const struct ewyk_net_shard *s)
{
	return s->pool;
}

int
ewyk_net_l4_register(struct ewyk_net_shard *s, uint8_t proto,
		ewyk_net_l4_input_t fn, void *arg)
{
	if (s == NULL || fn == NULL || proto == IPPROTO_ICMP)
		return -EINVAL;
	s->l4[proto].arg = arg;
	s->l4[proto].fn = fn;
	return 0;
}

int
ewyk_net_shard_forward(struct ewyk_net_shard *target, struct rte_mbuf *m,
		uint16_t port)
{
	m->port = port;
	if (rte_ring_mp_enqueue(target->inbox, m) != 0) {
		/* Counted on the target, whose counters have a single writer:
		 * the inbox is the only path where another lcore would write,
		 * so the drop is added atomically. */
		__atomic_fetch_add(&target->ctr[EWYK_NET_DROP_INBOX_FULL], 1,
			__ATOMIC_RELAXED);
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	return 0;
}

void
ewyk_net_input(struct ewyk_net_shard *s, uint16_t port, struct rte_mbuf **pkts,
		uint16_t n, uint64_t now)
{
	uint16_t i;

	s->now = now;
	for (i = 0; i < n; i++) {
		if (i + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
		net_rx_one(s, port, pkts[i], false, now);
	}
}

uint16_t
ewyk_net_poll(struct ewyk_net_shard *s, uint64_t now)
{
	struct ewyk_net *net = s->net;
	struct rte_mbuf *pkts[EWYK_NET_BURST];
	uint16_t total = 0;
	unsigned int n, i;
	uint16_t p;

	s->now = now;
	/* Inbox first: it holds what other shards learnt or steered here. */
	n = rte_ring_sc_dequeue_burst(s->inbox, (void **)pkts, EWYK_NET_BURST,
		NULL);
	if (n > 0) {
		net_ctr_add(s, EWYK_NET_INBOX_RX, n);
		for (i = 0; i < n; i++)
			net_rx_one(s, pkts[i]->port, pkts[i], true, now);
		total += n;
	}
	for (p = 0; p < net->nb_ports; p++) {
		uint16_t nb = rte_eth_rx_burst(net->ports[p].port_id, s->id,
			pkts, EWYK_NET_BURST);

		if (nb == 0)
			continue;
		ewyk_net_input(s, p, pkts, nb, now);
		total += nb;
	}
	if (unlikely(now >= s->next_housekeep)) {
		s->next_housekeep = now + net->housekeep_cyc;
		net_arp_housekeep(s, now);
		net_port_stats_poll(s);     /* hardening (issue 13) */
	}
	return total;
}

/* ---- telemetry: /ewyk/net/stats[,shard] ---- */

static int
net_tel_stats_locked(struct ewyk_net *net, const char *params,
		struct rte_tel_data *d)
{
	struct ewyk_net_shard *s = NULL;
	unsigned int c;

	if (net == NULL)
		return -ENODEV;
	if (params != NULL && *params != '\0') {
		char *end;
		unsigned long id = strtoul(params, &end, 10);

		if (*end != '\0' || id >= net->nb_shards)
			return -EINVAL;
		s = net->shards[id];
	}
	rte_tel_data_start_dict(d);
	for (c = 0; c < EWYK_NET_COUNTER_MAX; c++) {
		uint64_t v = s != NULL ? ewyk_net_counter_get(s, c) :
			ewyk_net_counter_sum(net, c);

		rte_tel_data_add_dict_u64(d, net_counter_names[c], v);
	}
	return 0;
}

static int
net_tel_stats(const char *cmd __rte_unused, const char *params,
		struct rte_tel_data *d)
{
	int rc;

	rte_spinlock_lock(&net_telemetry_lock);
	rc = net_tel_stats_locked(net_telemetry_ctx, params, d);
	rte_spinlock_unlock(&net_telemetry_lock);
	return rc;
}

RTE_INIT(net_telemetry_init)
{
	rte_telemetry_register_cmd("/ewyk/net/stats", net_tel_stats,
		"Network layer counters, summed over shards. Parameter: shard id (optional)");
}
