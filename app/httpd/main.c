/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ewyk-httpd [EAL args] -- --ip A.B.C.D/NN [--ip ...] [options]
 *
 * The last --reserved N lcores of the EAL core list are reserved lcores;
 * every other lcore (the main lcore first) is a worker, the home of one
 * shard: each port gets one RX and one TX queue per worker. Set-up goes
 * step by step: mbuf pools, network context, ports, shards (net, TCP,
 * services, producer), strategy.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <getopt.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>

#include "app_common.h"
#include "http_app.h"
#include "httpd.h"
#include "metrics.h"
#include "static_files.h"
#include "tcp_services.h"

static void
usage(const char *prog)
{
	fprintf(stderr,
		"Usage: %s [EAL args] -- --ip A.B.C.D/NN [--ip ...] [options]\n"
		"  --ip A.B.C.D/NN         address of a port; one per port, in port order\n"
		"  --stats-interval SEC    print per-lcore stats every SEC seconds (default 5; 0: only at exit)\n"
		"  --mtu N                 MTU of every port (68..9000; default: the port's)\n"
		"  --vlan ID               live on 802.1Q VLAN ID (1..4094) on every port\n"
		"  --mbufs N               mbufs per lcore pool (default 16383)\n"
		"  --mbuf-ops NAME         mempool ops of the mbuf pools, e.g. ewyk (lib/pool) or ring_mp_mc;\n"
		"                          default: DPDK's choice (--mbuf-pool-ops-name, else the platform's)\n"
		"  --echo-port N           TCP echo service on port N\n"
		"  --discard-port N        TCP discard service on port N\n"
		"  --slow-echo-port N      TCP echo on port N whose every chunk is a BLOCKING task\n"
		"  --slow-ms M             how long a slow-echo task blocks its lcore (default 50)\n"
		"  --reserved N            the last N lcores are reserved lcores (default 0)\n"
		"  --shared-reserved N     threads sharing the workers' CPUs that run queued blocking\n"
		"                          tasks (0..16; default 4 with --reserved 0, else 0; none with\n"
		"                          --strategy pc or epc; none and --reserved 0: run in place, as pc)\n"
		"  --strategy KIND         pc | pec | epc | adaptive (default adaptive)\n"
		"  --task-timeout MS       deadline of a dispatched task (default 5000)\n"
		"TCP limits, per shard (docs/guides/security.md):\n"
		"  --tcp-max-conns N       connections (default 16384)\n"
		"  --tcp-max-per-src N     connections one peer address may hold (default: a quarter of\n"
		"                          --tcp-max-conns; 0: no limit)\n"
		"  --tcp-mbuf-budget N     mbufs all send and out-of-order queues may pin (default: half\n"
		"                          of --mbufs; must leave some to receive)\n"
		"  --tcp-conn-mbufs N      mbufs one connection's queues may pin (default: budget / 16,\n"
		"                          at least 64)\n"
		"  --tcp-idle-ms MS        reset a connection nothing arrived on for MS (default 300000;\n"
		"                          0: never)\n"
		"  --tcp-orphan-ms MS      give up a closed connection the peer does not finish (default 60000)\n"
		"  --tcp-persist-ms MS     give up when the peer's window stays zero MS (default 300000)\n"
		"  --pec-ring N            capacity of the PEC ring of queued blocking tasks (default 1024)\n"
		"  --port N                HTTP on TCP port N (default 80; 0: no HTTP)\n"
		"  --max-body BYTES        request body limit, 413 beyond (default 1 GiB)\n"
		"  --header-timeout S      request head read timeout, 408 (default 10)\n"
		"  --keepalive-timeout S   idle keep-alive connection timeout (default 60)\n"
		"  --body-timeout S        time between request body bytes, and a body's first\n"
		"                          allowance (default 30)\n"
		"  --body-min-rate N       a body must average N bytes/s: each byte extends its\n"
		"                          allowance by 1/N s; slower: 408 (default 500; 0: no minimum)\n"
		"  --write-timeout S       response write stall timeout (default 30)\n"
		"HTTP limits, per shard (docs/guides/http.md):\n"
		"  --http-max-conns N      HTTP connection objects, ~0.4 KB each (default: --tcp-max-conns)\n"
		"  --http-max-heads N      head leases: parser scratch and header array of a connection\n"
		"                          reading or serving a request, ~26 KB each (default 2048)\n"
		"  --http-max-per-src N    connection objects one peer address may hold (default: a\n"
		"                          quarter of --http-max-conns)\n"
		"  --http-max-heads-per-src N  head leases one peer address may hold (default: a quarter\n"
		"                          of --http-max-heads)\n"
		"  --root DIR              static files under DIR (GET, HEAD); every other route wins\n"
		"  -h, --help              this text\n"
		"Without a NIC, e.g.: --no-huge -m 512 --vdev=net_af_packet0,iface=veth0\n",
		prog);
}

static int
opt_ip(struct httpd_conf *c, const char *arg)
{
	unsigned long prefix;

	if (c->nb_ips == EWYK_NET_MAX_PORTS) {
		fprintf(stderr, "error: at most %d --ip\n", EWYK_NET_MAX_PORTS);
		return -1;
	}
	if (ewyk_app_parse_ip_num(arg, '/', 32, &c->ip[c->nb_ips], &prefix) !=
		0) {
		fprintf(stderr,
			"error: --ip '%s': expected A.B.C.D/NN (NN 1..32, address not 0.0.0.0)\n",
			arg);
		return -1;
	}
	c->prefix[c->nb_ips] = (uint8_t)prefix;
	c->nb_ips++;
	return 0;
}

static int
opt_strategy(struct httpd_conf *c, const char *arg)
{
	unsigned int k;

	for (k = 0; k < EWYK_STRATEGY_KIND_MAX; k++)
		if (strcmp(arg, ewyk_strategy_kind_name(k)) == 0) {
			c->strategy = (enum ewyk_strategy_kind)k;
			return 0;
		}
	fprintf(stderr,
		"error: --strategy '%s': expected pc, pec, epc or adaptive\n",
		arg);
	return -1;
}

static int
opt_mbuf_ops(struct httpd_conf *c, const char *arg)
{
	if (arg[0] == '\0' || strlen(arg) >= RTE_MEMPOOL_OPS_NAMESIZE) {
		fprintf(stderr,
			"error: --mbuf-ops '%s': expected an ops name of 1..%d characters\n",
			arg, RTE_MEMPOOL_OPS_NAMESIZE - 1);
		return -1;
	}
	snprintf(c->mbuf_ops, sizeof(c->mbuf_ops), "%s", arg);
	return 0;
}

/* Long-only options. */
enum {
	OPT_TCP_MAX_CONNS = 256,
	OPT_TCP_MAX_PER_SRC,
	OPT_TCP_MBUF_BUDGET,
	OPT_TCP_CONN_MBUFS,
	OPT_TCP_IDLE_MS,
	OPT_TCP_ORPHAN_MS,
	OPT_TCP_PERSIST_MS,
	OPT_BODY_MIN_RATE,
	OPT_SHARED_RESERVED,
	OPT_HTTP_MAX_CONNS,
	OPT_HTTP_MAX_HEADS,
	OPT_HTTP_MAX_PER_SRC,
	OPT_HTTP_MAX_HEADS_PER_SRC,
};

static const struct option httpd_opts[] = {
	{ "ip", required_argument, NULL, 'i' },
	{ "stats-interval", required_argument, NULL, 's' },
	{ "mtu", required_argument, NULL, 'm' },
	{ "vlan", required_argument, NULL, 'v' },
	{ "mbufs", required_argument, NULL, 'b' },
	{ "mbuf-ops", required_argument, NULL, 'o' },
	{ "echo-port", required_argument, NULL, 'E' },
	{ "discard-port", required_argument, NULL, 'D' },
	{ "slow-echo-port", required_argument, NULL, 'S' },
	{ "slow-ms", required_argument, NULL, 'M' },
	{ "reserved", required_argument, NULL, 'r' },
	{ "shared-reserved", required_argument, NULL, OPT_SHARED_RESERVED },
	{ "strategy", required_argument, NULL, 'k' },
	{ "task-timeout", required_argument, NULL, 't' },
	{ "tcp-max-conns", required_argument, NULL, OPT_TCP_MAX_CONNS },
	{ "tcp-max-per-src", required_argument, NULL, OPT_TCP_MAX_PER_SRC },
	{ "tcp-mbuf-budget", required_argument, NULL, OPT_TCP_MBUF_BUDGET },
	{ "tcp-conn-mbufs", required_argument, NULL, OPT_TCP_CONN_MBUFS },
	{ "tcp-idle-ms", required_argument, NULL, OPT_TCP_IDLE_MS },
	{ "tcp-orphan-ms", required_argument, NULL, OPT_TCP_ORPHAN_MS },
	{ "tcp-persist-ms", required_argument, NULL, OPT_TCP_PERSIST_MS },
	{ "http-max-conns", required_argument, NULL, OPT_HTTP_MAX_CONNS },
	{ "http-max-heads", required_argument, NULL, OPT_HTTP_MAX_HEADS },
	{ "http-max-per-src", required_argument, NULL, OPT_HTTP_MAX_PER_SRC },
	{ "http-max-heads-per-src", required_argument, NULL,
		OPT_HTTP_MAX_HEADS_PER_SRC },
	{ "port", required_argument, NULL, 'P' },
	{ "pec-ring", required_argument, NULL, 'R' },
	{ "max-body", required_argument, NULL, 'B' },
	{ "header-timeout", required_argument, NULL, 'H' },
	{ "keepalive-timeout", required_argument, NULL, 'K' },
	{ "body-timeout", required_argument, NULL, 'Y' },
	{ "body-min-rate", required_argument, NULL, OPT_BODY_MIN_RATE },
	{ "write-timeout", required_argument, NULL, 'W' },
	{ "root", required_argument, NULL, 'F' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The numeric options: name, bounds and where they go. */
struct num_opt {
	int o;
	const char *name;
	unsigned long min, max;
	size_t off;
	size_t size; /* of the field: 2, 4 or 8 */
};

#define NUM_OPT(o, name, min, max, field)                              \
	{                                                              \
		o, name, min, max, offsetof(struct httpd_conf, field), \
			sizeof(((struct httpd_conf *)0)->field)        \
	}

static const struct num_opt num_opts[] = {
	NUM_OPT('s', "stats-interval", 0, 86400, stats_interval),
	NUM_OPT('m', "mtu", 68, 9000, mtu),
	NUM_OPT('v', "vlan", 1, 4094, vlan),
	NUM_OPT('b', "mbufs", 1023, 1u << 22, nb_mbufs),
	NUM_OPT('E', "echo-port", 1, 65535, echo_port),
	NUM_OPT('D', "discard-port", 1, 65535, discard_port),
	NUM_OPT('S', "slow-echo-port", 1, 65535, slow_echo_port),
	NUM_OPT('M', "slow-ms", 0, 600000, slow_ms),
	NUM_OPT('r', "reserved", 0, HTTPD_MAX_LCORES - 1, reserved),
	NUM_OPT(OPT_SHARED_RESERVED, "shared-reserved", 0, HTTPD_MAX_SHARED,
		shared_reserved),
	NUM_OPT('t', "task-timeout", 1, 3600000, task_timeout_ms),
	NUM_OPT(OPT_TCP_MAX_CONNS, "tcp-max-conns", 16, 1u << 20,
		tcp_max_conns),
	NUM_OPT(OPT_TCP_MAX_PER_SRC, "tcp-max-per-src", 0, 65535,
		tcp_max_per_src),
	NUM_OPT(OPT_TCP_MBUF_BUDGET, "tcp-mbuf-budget", 0, 1u << 22,
		tcp_mbuf_budget),
	NUM_OPT(OPT_TCP_CONN_MBUFS, "tcp-conn-mbufs", 0, 1u << 22,
		tcp_conn_mbufs),
	NUM_OPT(OPT_TCP_IDLE_MS, "tcp-idle-ms", 0, 86400000, tcp_idle_ms),
	NUM_OPT(OPT_TCP_ORPHAN_MS, "tcp-orphan-ms", 1, 86400000, tcp_orphan_ms),
	NUM_OPT(OPT_TCP_PERSIST_MS, "tcp-persist-ms", 1, 86400000,
		tcp_persist_ms),
	NUM_OPT(OPT_HTTP_MAX_CONNS, "http-max-conns", 1, 1u << 20,
		http_max_conns),
	NUM_OPT(OPT_HTTP_MAX_HEADS, "http-max-heads", 1, 1u << 20,
		http_max_heads),
	NUM_OPT(OPT_HTTP_MAX_PER_SRC, "http-max-per-src", 1, 65535,
		http_max_per_src),
	NUM_OPT(OPT_HTTP_MAX_HEADS_PER_SRC, "http-max-heads-per-src", 1, 65535,
		http_max_heads_per_src),
	NUM_OPT('P', "port", 0, 65535, http_port),
	NUM_OPT('R', "pec-ring", 1, 1u << 20, pec_ring),
	NUM_OPT('B', "max-body", 1, (unsigned long)INT64_MAX, max_body),
	NUM_OPT('H', "header-timeout", 1, 86400, header_timeout),
	NUM_OPT('K', "keepalive-timeout", 1, 86400, keepalive_timeout),
	NUM_OPT('Y', "body-timeout", 1, 86400, body_timeout),
	NUM_OPT(OPT_BODY_MIN_RATE, "body-min-rate", 0, 1u << 30, body_min_rate),
	NUM_OPT('W', "write-timeout", 1, 86400, write_timeout),
};

/* One option: 0, or -1 (printed). */
static int
parse_opt(void *conf, int o, const char *arg)
{
	struct httpd_conf *c = conf;
	unsigned long v;
	unsigned int k;
	char *f;

	if (o == 'i')
		return opt_ip(c, arg);
	if (o == 'o')
		return opt_mbuf_ops(c, arg);
	if (o == 'k')
		return opt_strategy(c, arg);
	if (o == 'F') {
		c->root = arg;
		return 0;
	}
	for (k = 0; k < RTE_DIM(num_opts); k++) {
		if (num_opts[k].o != o)
			continue;
		if (ewyk_app_opt_ulong(num_opts[k].name, arg, num_opts[k].min,
			    num_opts[k].max, &v) != 0)
			return -1;
		f = (char *)c + num_opts[k].off;
		if (num_opts[k].size == sizeof(uint16_t))
			*(uint16_t *)f = (uint16_t)v;
		else if (num_opts[k].size == sizeof(uint64_t))
			*(uint64_t *)f = (uint64_t)v;
		else
			*(unsigned int *)f = (unsigned int)v;
		return 0;
	}
	return -1;
}

static void
conf_defaults(struct httpd_conf *c)
{
	c->stats_interval = 5;
	c->nb_mbufs = 16383;
	c->slow_ms = 50;
	c->strategy = EWYK_STRATEGY_ADAPTIVE;
	c->shared_reserved = UINT_MAX; /* HTTPD_SHARED_DEFAULT or 0 */
	c->task_timeout_ms = 5000;
	c->tcp_max_conns = 16384;
	c->tcp_max_per_src = UINT_MAX; /* a quarter of tcp_max_conns */
	c->tcp_idle_ms = 300000;
	c->tcp_orphan_ms = 60000;
	c->tcp_persist_ms = 300000;
	c->http_port = 80;
	c->max_body = UINT64_C(1) << 30;
	c->header_timeout = 10;
	c->keepalive_timeout = 60;
	c->body_timeout = 30;
	c->body_min_rate = 500;
	c->write_timeout = 30;
	/* 0: from the TCP limits, or a quarter (check_http_limits) */
	c->http_max_heads = 2048;
}

/* The TCP limits against each other and the pool; -1 (printed). */
static int
check_tcp_limits(struct httpd_conf *c)
{
	unsigned int budget = c->tcp_mbuf_budget != 0 ? c->tcp_mbuf_budget :
							c->nb_mbufs / 2;

	if (c->tcp_max_per_src == UINT_MAX)
		c->tcp_max_per_src = RTE_MIN(c->tcp_max_conns / 4, 65535u);
	if (c->tcp_max_per_src > c->tcp_max_conns) {
		fprintf(stderr,
			"error: --tcp-max-per-src %u is over --tcp-max-conns %u\n",
			c->tcp_max_per_src, c->tcp_max_conns);
		return -1;
	}
	if (budget >= c->nb_mbufs) {
		fprintf(stderr,
			"error: --tcp-mbuf-budget %u leaves no mbuf of the %u (--mbufs) to receive into\n",
			budget, c->nb_mbufs);
		return -1;
	}
	if (c->tcp_conn_mbufs > budget) {
		fprintf(stderr,
			"error: --tcp-conn-mbufs %u is over the shard's budget %u\n",
			c->tcp_conn_mbufs, budget);
		return -1;
	}
	return 0;
}

/*
 * The HTTP limits from the TCP ones: an object per TCP connection (so
 * that TCP's limits, not HTTP's, decide who is refused), a quarter of
 * them per source, leases at most one per object. -1 (printed).
 */
static int
check_http_limits(struct httpd_conf *c)
{
	if (c->http_max_conns == 0)
		c->http_max_conns = c->tcp_max_conns;
	if (c->http_max_heads > c->http_max_conns)
		c->http_max_heads = c->http_max_conns;
	if (c->http_max_per_src == 0)
		c->http_max_per_src = RTE_MAX(c->http_max_conns / 4, 1u);
	if (c->http_max_heads_per_src == 0)
		c->http_max_heads_per_src = RTE_MAX(c->http_max_heads / 4, 1u);
	if (c->http_max_per_src > c->http_max_conns ||
		c->http_max_heads_per_src > c->http_max_heads) {
		fprintf(stderr,
			"error: --http-max-per-src %u / --http-max-heads-per-src %u over --http-max-conns %u / --http-max-heads %u\n",
			c->http_max_per_src, c->http_max_heads_per_src,
			c->http_max_conns, c->http_max_heads);
		return -1;
	}
	return 0;
}

static int
parse_args(int argc, char **argv, struct httpd_conf *c)
{
	conf_defaults(c);
	if (ewyk_app_parse_opts(argc, argv, httpd_opts, usage, parse_opt, c) !=
		0)
		return -1;
	if (c->nb_ips == 0) {
		fprintf(stderr,
			"error: at least one --ip A.B.C.D/NN is required\n");
		return -1;
	}
	if (check_tcp_limits(c) != 0)
		return -1;
	return check_http_limits(c);
}

static void
on_signal(int sig)
{
	(void)sig;
	httpd_request_stop();
}

/* Step 1: who is what. Workers first (main lcore first), then reserved. */
static int
setup_lcores(struct httpd *h)
{
	unsigned int ids[HTTPD_MAX_LCORES];
	unsigned int i;
	int n;

	n = ewyk_app_lcores(ids, HTTPD_MAX_LCORES);
	if (n < 0)
		return -1;
	h->nb_lcores = (uint16_t)n;
	if (h->conf.reserved >= h->nb_lcores) {
		fprintf(stderr,
			"error: --reserved %u: needs at least one worker, and there are %u lcore(s)\n",
			h->conf.reserved, h->nb_lcores);
		return -1;
	}
	h->nb_shards = (uint16_t)(h->nb_lcores - h->conf.reserved);
	for (i = 0; i < RTE_MAX_LCORE; i++)
		h->lc_of[i] = -1;
	for (i = 0; i < h->nb_lcores; i++) {
		struct httpd_lcore *lc = &h->lc[i];

		lc->lcore_id = ids[i];
		lc->app = h;
		lc->reserved = i >= h->nb_shards;
		lc->shard = lc->reserved ? -1 : (int)i;
		h->lc_of[lc->lcore_id] = (int16_t)i;
		if (!lc->reserved) {
			h->sh[i].id = (uint16_t)i;
			h->sh[i].home = lc->lcore_id;
			h->sh[i].app = h;
		}
	}
	return 0;
}

/* Step 2: one mbuf pool per shard, on its worker's socket. */
static int
setup_pools(struct httpd *h, struct rte_mempool **pools)
{
	unsigned int i;

	for (i = 0; i < h->nb_shards; i++) {
		struct httpd_shard *sh = &h->sh[i];

		sh->pool = ewyk_app_pool_create("ewyk_mbuf_", i,
			h->conf.nb_mbufs, sh->home,
			h->conf.mbuf_ops[0] != '\0' ? h->conf.mbuf_ops : NULL);
		if (sh->pool == NULL)
			return -1;
		pools[i] = sh->pool;
	}
	return 0;
}

/* Step 3: the network context and its ports, one queue pair per shard. */
static int
setup_ports(struct httpd *h, struct rte_mempool **pools)
{
	uint16_t pid, p = 0;

	h->net = ewyk_app_net_create(h->nb_shards);
	if (h->net == NULL)
		return -1;
	RTE_ETH_FOREACH_DEV (pid) {
		struct ewyk_net_port_conf pc;
		struct ewyk_net_port_info info;
		char mac[RTE_ETHER_ADDR_FMT_SIZE], ip[INET_ADDRSTRLEN];

		memset(&pc, 0, sizeof(pc));
		pc.port_id = pid;
		pc.ip = h->conf.ip[p];
		pc.prefix_len = h->conf.prefix[p];
		pc.mtu = h->conf.mtu;
		pc.vlan_id = h->conf.vlan;
		pc.rx_pools = pools;
		if (ewyk_app_port_add(h->net, &pc, &info) != 0)
			return -1;
		rte_ether_format_addr(mac, sizeof(mac), &info.mac);
		inet_ntop(AF_INET, &pc.ip, ip, sizeof(ip));
		printf("port %u: %s/%u mac %s mtu %u, %u queue(s), rss %s, cksum offload ip=%s l4=%s\n",
			pid, ip, pc.prefix_len, mac, info.mtu, h->nb_shards,
			info.rss ? "symmetric" : "off",
			info.tx_ip_cksum ? "yes" : "no",
			info.tx_l4_cksum ? "yes" : "no");
		p++;
	}
	return 0;
}

/*
 * Step 4: the strategy. With --reserved 0 the reserved lcores are the
 * shared ones (shared_lcores.c, --shared-reserved, 4 by default): threads
 * that run queued blocking tasks off the worker's back. With neither (or
 * --strategy pc) nothing can take a task or production away, so every
 * kind is run as PC: a BLOCKING task runs in place on the holder and is
 * counted as PC (the same for every service).
 */
static int
setup_strategy(struct httpd *h)
{
	struct ewyk_strategy_executor_conf xc;
	struct ewyk_strategy_conf sc;
	enum ewyk_strategy_kind kind = h->conf.strategy;

	/* Shared reserved lcores run queued (PEC) tasks only: pc and epc
	 * never queue one. */
	bool queues = kind == EWYK_STRATEGY_PEC ||
		kind == EWYK_STRATEGY_ADAPTIVE;

	/* The default fits what is left of the lcore table. */
	if (h->conf.shared_reserved == UINT_MAX)
		h->conf.shared_reserved = h->conf.reserved == 0 && queues ?
			RTE_MIN(HTTPD_SHARED_DEFAULT,
				HTTPD_MAX_LCORES - h->nb_lcores) :
			0;
	if (!queues)
		h->conf.shared_reserved = 0;
	if (h->conf.reserved == 0 && h->conf.shared_reserved == 0 &&
		kind != EWYK_STRATEGY_PC) {
		printf("strategy: --reserved 0, no shared reserved lcore: %s runs as pc (blocking tasks run in place)\n",
			ewyk_strategy_kind_name(kind));
		kind = EWYK_STRATEGY_PC;
	}
	if (h->conf.reserved != 0 || h->conf.shared_reserved != 0) {
		memset(&xc, 0, sizeof(xc));
		xc.name = "httpd";
		xc.socket_id = SOCKET_ID_ANY;
		/* One warm reserved lcore answers a hand-off at once; shared
		 * ones (ring-only) always park: they share a polling CPU. */
		xc.spin_keep = h->conf.reserved != 0 ? 1 : 0;
		xc.ring_size = h->conf.pec_ring;
		h->ex = ewyk_strategy_executor_create(&xc);
		if (h->ex == NULL) {
			fprintf(stderr, "error: executor: %s\n",
				rte_strerror(rte_errno));
			return -1;
		}
	}
	memset(&sc, 0, sizeof(sc));
	sc.name = "httpd";
	sc.kind = kind;
	sc.executor = h->ex;
	sc.socket_id = SOCKET_ID_ANY;
	h->strategy = ewyk_strategy_create(&sc);
	if (h->strategy == NULL) {
		fprintf(stderr, "error: strategy: %s\n",
			rte_strerror(rte_errno));
		return -1;
	}
	return httpd_shared_start(h);
}

/* Step 5: each shard: network, TCP and services, producer. */
static int
setup_shards(struct httpd *h)
{
	unsigned int i;

	for (i = 0; i < h->nb_shards; i++) {
		struct httpd_shard *sh = &h->sh[i];

		sh->shard = ewyk_app_shard_create(h->net, sh->id, sh->home,
			sh->pool);
		if (sh->shard == NULL)
			return -1;
		/* The layers above register their protocol handlers. */
		if (tcp_services_shard_init(h, sh) != 0 ||
			http_shard_init(h, sh) != 0 ||
			httpd_shard_producer_init(h, sh) != 0)
			return -1;
	}
	return 0;
}

static int
setup(struct httpd *h)
{
	struct rte_mempool *pools[HTTPD_MAX_LCORES];
	uint16_t nb_ports = rte_eth_dev_count_avail();

	if (nb_ports == 0) {
		fprintf(stderr,
			"error: no ports. Bind a NIC to vfio-pci (dpdk-devbind.py) and pass -a <PCI>, or add a virtual device, e.g. --vdev=net_af_packet0,iface=veth0\n");
		return -1;
	}
	if (nb_ports != h->conf.nb_ips) {
		fprintf(stderr,
			"error: %u port(s) but %u --ip: give one --ip per port, in port order\n",
			nb_ports, h->conf.nb_ips);
		return -1;
	}
	if (setup_lcores(h) != 0 || setup_pools(h, pools) != 0 ||
		setup_ports(h, pools) != 0 || setup_strategy(h) != 0 ||
		http_app_init(h) != 0 || httpd_metrics_init(h) != 0 ||
		static_files_init(h) != 0)
		return -1;
	return setup_shards(h);
}

/* Undo setup(), in reverse; every lcore has returned. */
static void
teardown(struct httpd *h)
{
	unsigned int i;

	/* The shared reserved lcores leave the executor first. */
	httpd_shared_join(h);
	/* Tasks still queued are told DROPPED (they post or free). */
	ewyk_strategy_executor_free(h->ex);
	h->ex = NULL;
	/* This lcore applies what is left in the shards' inboxes. */
	for (i = 0; i < h->nb_shards; i++) {
		ewyk_net_shard_hold(h->sh[i].shard);
		if (h->sh[i].wheel != NULL)
			ewyk_twheel_hold(h->sh[i].wheel);
	}
	tcp_services_free(h);
	for (i = 0; i < h->nb_shards; i++) {
		ewyk_strategy_producer_free(h->sh[i].producer);
		h->sh[i].producer = NULL;
	}
	ewyk_strategy_free(h->strategy);
	h->strategy = NULL;
	httpd_metrics_fini(h);
	static_files_fini(h);
	http_app_fini(h);
	ewyk_net_free(h->net);
	h->net = NULL;
}

/* Wait up to 3 s for every port's link; af_packet and memif come up fast. */
static void
wait_links(struct httpd *h)
{
	uint16_t p;

	for (p = 0; p < ewyk_net_nb_ports(h->net); p++) {
		struct rte_eth_link link;
		uint16_t pid = ewyk_net_port_id(h->net, p);

		ewyk_app_wait_link(pid, &link);
		printf("port %u: link %s, %u Mbps\n", pid,
			link.link_status == RTE_ETH_LINK_UP ? "up" : "DOWN",
			link.link_speed);
	}
}

int
main(int argc, char **argv)
{
	struct httpd *h;
	unsigned int i;

	if (ewyk_app_eal_init(&argc, &argv, "ewyk-httpd") != 0)
		return 1;

	h = rte_zmalloc("httpd", sizeof(*h), RTE_CACHE_LINE_SIZE);
	if (h == NULL) {
		fprintf(stderr, "error: out of memory\n");
		rte_eal_cleanup();
		return 1;
	}
	if (parse_args(argc, argv, &h->conf) != 0) {
		usage(argv[0]);
		rte_eal_cleanup();
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (setup(h) != 0) {
		teardown(h);
		rte_eal_cleanup();
		return 1;
	}
	if (httpd_stats_telemetry_init(h) != 0)
		fprintf(stderr,
			"warning: /ewyk/stats telemetry not registered\n");
	wait_links(h);
	/* Gratuitous ARP: peers learn our MAC before we talk. */
	ewyk_net_announce(h->sh[0].shard);
	ewyk_net_tx_flush(h->sh[0].shard);

	printf("ewyk-httpd: mbuf pools on mempool ops '%s'\n",
		rte_mempool_get_ops(h->sh[0].pool->ops_index)->name);
	printf("ewyk-httpd: %u lcore(s): %u worker(s) polling, %u reserved, %u shared reserved; strategy %s, task timeout %u ms; stats every %u s; Ctrl-C stops\n",
		h->nb_lcores, h->nb_shards, h->conf.reserved, h->nb_shared,
		ewyk_strategy_kind_name(ewyk_strategy_kind_get(h->strategy)),
		h->conf.task_timeout_ms, h->conf.stats_interval);
	fflush(stdout);
	h->next_stats = rte_rdtsc() +
		(uint64_t)h->conf.stats_interval * rte_get_tsc_hz();
	for (i = 1; i < h->nb_lcores; i++)
		if (!h->lc[i].shared)
			rte_eal_remote_launch(httpd_lcore_main, &h->lc[i],
				h->lc[i].lcore_id);
	httpd_lcore_main(&h->lc[0]);
	rte_eal_mp_wait_lcore();

	httpd_stats_print(h, true);
	httpd_stats_telemetry_fini();
	teardown(h);
	rte_free(h);
	rte_eal_cleanup();
	printf("ewyk-httpd: stopped\n");
	return 0;
}
