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

#include "http_app.h"
#include "httpd.h"
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
		"  --strategy KIND         pc | pec | epc | adaptive (default adaptive)\n"
		"  --task-timeout MS       deadline of a dispatched task (default 5000)\n"
		"  --port N                HTTP on TCP port N (default 80; 0: no HTTP)\n"
		"  --max-body BYTES        request body limit, 413 beyond (default 1 GiB)\n"
		"  --header-timeout S      request head read timeout, 408 (default 10)\n"
		"  --keepalive-timeout S   idle keep-alive connection timeout (default 60)\n"
		"  --body-timeout S        time between request body bytes (default 30)\n"
		"  --write-timeout S       response write stall timeout (default 30)\n"
		"  -h, --help              this text\n"
		"Without a NIC, e.g.: --no-huge -m 512 --vdev=net_af_packet0,iface=veth0\n",
		prog);
}

static int
parse_uint(const char *s, unsigned long min, unsigned long max,
	unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int
parse_cidr(const char *arg, rte_be32_t *ip, uint8_t *prefix)
{
	char buf[32];
	char *slash;
	struct in_addr a;
	unsigned long p;

	if (strlen(arg) >= sizeof(buf))
		return -1;
	strcpy(buf, arg);
	slash = strchr(buf, '/');
	if (slash == NULL)
		return -1;
	*slash = '\0';
	if (inet_pton(AF_INET, buf, &a) != 1 || a.s_addr == 0)
		return -1;
	if (parse_uint(slash + 1, 1, 32, &p) != 0)
		return -1;
	*ip = a.s_addr;
	*prefix = (uint8_t)p;
	return 0;
}

/* A numeric option in [min, max]; -1 (printed) otherwise. */
static int
opt_uint(const char *name, const char *arg, unsigned long min,
	unsigned long max, unsigned long *v)
{
	if (parse_uint(arg, min, max, v) == 0)
		return 0;
	fprintf(stderr, "error: --%s '%s': expected %lu..%lu\n", name, arg, min,
		max);
	return -1;
}

static int
opt_ip(struct httpd_conf *c, const char *arg)
{
	if (c->nb_ips == EWYK_NET_MAX_PORTS) {
		fprintf(stderr, "error: at most %d --ip\n", EWYK_NET_MAX_PORTS);
		return -1;
	}
	if (parse_cidr(arg, &c->ip[c->nb_ips], &c->prefix[c->nb_ips]) != 0) {
		fprintf(stderr,
			"error: --ip '%s': expected A.B.C.D/NN (NN 1..32, address not 0.0.0.0)\n",
			arg);
		return -1;
	}
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
	{ "strategy", required_argument, NULL, 'k' },
	{ "task-timeout", required_argument, NULL, 't' },
	{ "port", required_argument, NULL, 'P' },
	{ "max-body", required_argument, NULL, 'B' },
	{ "header-timeout", required_argument, NULL, 'H' },
	{ "keepalive-timeout", required_argument, NULL, 'K' },
	{ "body-timeout", required_argument, NULL, 'Y' },
	{ "write-timeout", required_argument, NULL, 'W' },
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
	NUM_OPT('t', "task-timeout", 1, 3600000, task_timeout_ms),
	NUM_OPT('P', "port", 0, 65535, http_port),
	NUM_OPT('B', "max-body", 1, (unsigned long)INT64_MAX, max_body),
	NUM_OPT('H', "header-timeout", 1, 86400, header_timeout),
	NUM_OPT('K', "keepalive-timeout", 1, 86400, keepalive_timeout),
	NUM_OPT('Y', "body-timeout", 1, 86400, body_timeout),
	NUM_OPT('W', "write-timeout", 1, 86400, write_timeout),
};

/* One option: 0, or -1 (printed). */
static int
parse_opt(struct httpd_conf *c, int o, const char *arg)
{
	unsigned long v;
	unsigned int k;
	char *f;

	if (o == 'i')
		return opt_ip(c, arg);
	if (o == 'o')
		return opt_mbuf_ops(c, arg);
	if (o == 'k')
		return opt_strategy(c, arg);
	for (k = 0; k < RTE_DIM(num_opts); k++) {
		if (num_opts[k].o != o)
			continue;
		if (opt_uint(num_opts[k].name, arg, num_opts[k].min,
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
	c->task_timeout_ms = 5000;
	c->http_port = 80;
	c->max_body = UINT64_C(1) << 30;
	c->header_timeout = 10;
	c->keepalive_timeout = 60;
	c->body_timeout = 30;
	c->write_timeout = 30;
}

static int
parse_args(int argc, char **argv, struct httpd_conf *c)
{
	int o;

	conf_defaults(c);
	optind = 1;
	while ((o = getopt_long(argc, argv, "h", httpd_opts, NULL)) != -1) {
		if (o == 'h') {
			usage(argv[0]);
			exit(0);
		}
		if (parse_opt(c, o, optarg) != 0)
			return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "error: unexpected argument '%s'\n",
			argv[optind]);
		return -1;
	}
	if (c->nb_ips == 0) {
		fprintf(stderr,
			"error: at least one --ip A.B.C.D/NN is required\n");
		return -1;
	}
	return 0;
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
	unsigned int lcore, i, n = 0;

	h->nb_lcores = (uint16_t)rte_lcore_count();
	if (h->nb_lcores > HTTPD_MAX_LCORES) {
		fprintf(stderr, "error: at most %d lcores\n", HTTPD_MAX_LCORES);
		return -1;
	}
	if (h->conf.reserved >= h->nb_lcores) {
		fprintf(stderr,
			"error: --reserved %u: needs at least one worker, and there are %u lcore(s)\n",
			h->conf.reserved, h->nb_lcores);
		return -1;
	}
	h->nb_shards = (uint16_t)(h->nb_lcores - h->conf.reserved);
	for (i = 0; i < RTE_MAX_LCORE; i++)
		h->lc_of[i] = -1;
	h->lc[n++].lcore_id = rte_get_main_lcore();
	RTE_LCORE_FOREACH_WORKER (lcore)
		h->lc[n++].lcore_id = lcore;
	for (i = 0; i < h->nb_lcores; i++) {
		struct httpd_lcore *lc = &h->lc[i];

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
	char name[RTE_MEMPOOL_NAMESIZE];
	unsigned int i;

	for (i = 0; i < h->nb_shards; i++) {
		struct httpd_shard *sh = &h->sh[i];
		int socket = (int)rte_lcore_to_socket_id(sh->home);

		snprintf(name, sizeof(name), "ewyk_mbuf_%u", i);
		sh->pool = rte_pktmbuf_pool_create_by_ops(name,
			h->conf.nb_mbufs, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
			socket,
			h->conf.mbuf_ops[0] != '\0' ? h->conf.mbuf_ops : NULL);
		if (sh->pool == NULL) {
			fprintf(stderr,
				"error: mbuf pool for lcore %u on socket %d (ops %s): %s (try a larger -m, or fewer --mbufs)\n",
				sh->home, socket,
				h->conf.mbuf_ops[0] != '\0' ?
					h->conf.mbuf_ops :
					rte_mbuf_best_mempool_ops(),
				rte_strerror(rte_errno));
			return -1;
		}
		pools[i] = sh->pool;
	}
	return 0;
}

/* Step 3: the network context and its ports, one queue pair per shard. */
static int
setup_ports(struct httpd *h, struct rte_mempool **pools)
{
	struct ewyk_net_conf nc;
	uint16_t pid, p = 0;

	memset(&nc, 0, sizeof(nc));
	nc.nb_shards = h->nb_shards;
	h->net = ewyk_net_create(&nc);
	if (h->net == NULL) {
		fprintf(stderr, "error: network context: %s\n",
			rte_strerror(rte_errno));
		return -1;
	}
	RTE_ETH_FOREACH_DEV (pid) {
		struct ewyk_net_port_conf pc;
		struct ewyk_net_port_info info;
		char mac[RTE_ETHER_ADDR_FMT_SIZE], ip[INET_ADDRSTRLEN];
		int rc;

		memset(&pc, 0, sizeof(pc));
		pc.port_id = pid;
		pc.ip = h->conf.ip[p];
		pc.prefix_len = h->conf.prefix[p];
		pc.mtu = h->conf.mtu;
		pc.vlan_id = h->conf.vlan;
		pc.rx_pools = pools;
		rc = ewyk_net_port_add(h->net, &pc, &info);
		if (rc < 0) {
			fprintf(stderr, "error: port %u: %s\n", pid,
				rte_strerror(-rc));
			return -1;
		}
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
 * Step 4: the strategy. With --reserved 0 no lcore can take a task or
 * production away, so every kind is run as PC: a BLOCKING task runs in
 * place on the holder and is counted as PC (the same for every service).
 */
static int
setup_strategy(struct httpd *h)
{
	struct ewyk_strategy_executor_conf xc;
	struct ewyk_strategy_conf sc;
	enum ewyk_strategy_kind kind = h->conf.strategy;

	if (h->conf.reserved == 0 && kind != EWYK_STRATEGY_PC) {
		printf("strategy: --reserved 0: %s runs as pc (blocking tasks run in place)\n",
			ewyk_strategy_kind_name(kind));
		kind = EWYK_STRATEGY_PC;
	}
	if (h->conf.reserved != 0) {
		memset(&xc, 0, sizeof(xc));
		xc.name = "httpd";
		xc.socket_id = SOCKET_ID_ANY;
		/* One warm reserved lcore answers a hand-off at once. */
		xc.spin_keep = 1;
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
	return 0;
}

/* Step 5: each shard: network, TCP and services, producer. */
static int
setup_shards(struct httpd *h)
{
	unsigned int i;

	for (i = 0; i < h->nb_shards; i++) {
		struct httpd_shard *sh = &h->sh[i];

		sh->shard = ewyk_net_shard_create(h->net, sh->id,
			(int)rte_lcore_to_socket_id(sh->home), sh->pool);
		if (sh->shard == NULL) {
			fprintf(stderr, "error: shard %u: %s\n", i,
				rte_strerror(rte_errno));
			return -1;
		}
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
		http_app_init(h) != 0)
		return -1;
	return setup_shards(h);
}

/* Undo setup(), in reverse; every lcore has returned. */
static void
teardown(struct httpd *h)
{
	unsigned int i;

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
	http_app_fini(h);
	ewyk_net_free(h->net);
	h->net = NULL;
}

/* Wait up to 3 s for every port's link; af_packet and memif come up fast. */
static void
wait_links(struct httpd *h)
{
	uint16_t p;
	int tries;

	for (p = 0; p < ewyk_net_nb_ports(h->net); p++) {
		struct rte_eth_link link;
		uint16_t pid = ewyk_net_port_id(h->net, p);

		for (tries = 0; tries < 30; tries++) {
			memset(&link, 0, sizeof(link));
			if (rte_eth_link_get_nowait(pid, &link) == 0 &&
				link.link_status == RTE_ETH_LINK_UP)
				break;
			rte_delay_ms(100);
		}
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
	int n;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "error: EAL init: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	argc -= n;
	argv += n;
	argv[0] = (char *)"ewyk-httpd";

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
	printf("ewyk-httpd: %u lcore(s): %u worker(s) polling, %u reserved; strategy %s, task timeout %u ms; stats every %u s; Ctrl-C stops\n",
		h->nb_lcores, h->nb_shards, h->conf.reserved,
		ewyk_strategy_kind_name(ewyk_strategy_kind_get(h->strategy)),
		h->conf.task_timeout_ms, h->conf.stats_interval);
	fflush(stdout);
	h->next_stats = rte_rdtsc() +
		(uint64_t)h->conf.stats_interval * rte_get_tsc_hz();
	for (i = 1; i < h->nb_lcores; i++)
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
