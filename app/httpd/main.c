/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ewyk-httpd [EAL args] -- --ip A.B.C.D/NN [--ip ...] [--stats-interval S]
 *
 * Every lcore of the EAL core list polls one shard (the main lcore too),
 * so it runs on one lcore as well as on many. Each port gets one RX and one
 * TX queue per lcore.
 */

#include <arpa/inet.h>
#include <errno.h>
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

static int
parse_args(int argc, char **argv, struct httpd_conf *c)
{
	static const struct option opts[] = {
		{ "ip", required_argument, NULL, 'i' },
		{ "stats-interval", required_argument, NULL, 's' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "vlan", required_argument, NULL, 'v' },
		{ "mbufs", required_argument, NULL, 'b' },
		{ "mbuf-ops", required_argument, NULL, 'o' },
		{ "echo-port", required_argument, NULL, 'E' },
		{ "discard-port", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long v;
	int o;

	c->stats_interval = 5;
	c->nb_mbufs = 16383;
	optind = 1;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'i':
			if (c->nb_ips == EWYK_NET_MAX_PORTS) {
				fprintf(stderr, "error: at most %d --ip\n",
					EWYK_NET_MAX_PORTS);
				return -1;
			}
			if (parse_cidr(optarg, &c->ip[c->nb_ips],
					&c->prefix[c->nb_ips]) != 0) {
				fprintf(stderr, "error: --ip '%s': expected A.B.C.D/NN (NN 1..32, address not 0.0.0.0)\n",
					optarg);
				return -1;
			}
			c->nb_ips++;
			break;
		case 's':
			if (parse_uint(optarg, 0, 86400, &v) != 0) {
				fprintf(stderr, "error: --stats-interval '%s': expected seconds 0..86400\n",
					optarg);
				return -1;
			}
			c->stats_interval = (unsigned int)v;
			break;
		case 'm':
			if (parse_uint(optarg, 68, 9000, &v) != 0) {
				fprintf(stderr, "error: --mtu '%s': expected 68..9000\n",
					optarg);
				return -1;
			}
			c->mtu = (uint16_t)v;
			break;
		case 'v':
			if (parse_uint(optarg, 1, 4094, &v) != 0) {
				fprintf(stderr, "error: --vlan '%s': expected 1..4094\n",
					optarg);
				return -1;
			}
			c->vlan = (uint16_t)v;
			break;
		case 'b':
			if (parse_uint(optarg, 1023, 1u << 22, &v) != 0) {
				fprintf(stderr, "error: --mbufs '%s': expected 1023..4194304\n",
					optarg);
				return -1;
			}
			c->nb_mbufs = (unsigned int)v;
			break;
		case 'o':
			if (optarg[0] == '\0' ||
					strlen(optarg) >= RTE_MEMPOOL_OPS_NAMESIZE) {
				fprintf(stderr, "error: --mbuf-ops '%s': expected an ops name of 1..%d characters\n",
					optarg, RTE_MEMPOOL_OPS_NAMESIZE - 1);
				return -1;
			}
			snprintf(c->mbuf_ops, sizeof(c->mbuf_ops), "%s", optarg);
			break;
		case 'E':
		case 'D':
			if (parse_uint(optarg, 1, 65535, &v) != 0) {
				fprintf(stderr, "error: --%s '%s': expected a port 1..65535\n",
					o == 'E' ? "echo-port" : "discard-port", optarg);
				return -1;
			}
			if (o == 'E')
				c->echo_port = (uint16_t)v;
			else
				c->discard_port = (uint16_t)v;
			break;
		case 'h':
			usage(argv[0]);
			exit(0);
		default:
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "error: unexpected argument '%s'\n",
			argv[optind]);
		return -1;
	}
	if (c->nb_ips == 0) {
		fprintf(stderr, "error: at least one --ip A.B.C.D/NN is required\n");
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

static int
setup(struct httpd *h)
{
	struct ewyk_net_conf nc;
	struct rte_mempool *pools[HTTPD_MAX_LCORES];
	uint16_t nb_ports = rte_eth_dev_count_avail();
	unsigned int lcore, i;
	uint16_t pid, p;
	char name[RTE_MEMPOOL_NAMESIZE];

	if (nb_ports == 0) {
		fprintf(stderr, "error: no ports. Bind a NIC to vfio-pci (dpdk-devbind.py) and pass -a <PCI>, or add a virtual device, e.g. --vdev=net_af_packet0,iface=veth0\n");
		return -1;
	}
	if (nb_ports != h->conf.nb_ips) {
		fprintf(stderr, "error: %u port(s) but %u --ip: give one --ip per port, in port order\n",
			nb_ports, h->conf.nb_ips);
		return -1;
	}
	h->nb_lcores = (uint16_t)rte_lcore_count();
	if (h->nb_lcores > HTTPD_MAX_LCORES) {
		fprintf(stderr, "error: at most %d lcores\n", HTTPD_MAX_LCORES);
		return -1;
	}
	/* lc[0] is the main lcore: it polls shard 0 itself. */
	h->lc[0].lcore_id = rte_get_main_lcore();
	i = 1;
	RTE_LCORE_FOREACH_WORKER(lcore)
		h->lc[i++].lcore_id = lcore;
	for (i = 0; i < h->nb_lcores; i++) {
		struct httpd_lcore *lc = &h->lc[i];
		int socket = (int)rte_lcore_to_socket_id(lc->lcore_id);

		lcore = lc->lcore_id;

		snprintf(name, sizeof(name), "ewyk_mbuf_%u", i);
		lc->pool = rte_pktmbuf_pool_create_by_ops(name, h->conf.nb_mbufs,
			256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, socket,
			h->conf.mbuf_ops[0] != '\0' ? h->conf.mbuf_ops : NULL);
		if (lc->pool == NULL) {
			fprintf(stderr, "error: mbuf pool for lcore %u on socket %d (ops %s): %s (try a larger -m, or fewer --mbufs)\n",
				lcore, socket, h->conf.mbuf_ops[0] != '\0' ?
				h->conf.mbuf_ops : rte_mbuf_best_mempool_ops(),
				rte_strerror(rte_errno));
			return -1;
		}
		lc->shard_id = (uint16_t)i;
		lc->app = h;
		pools[i] = lc->pool;
	}

	memset(&nc, 0, sizeof(nc));
	nc.nb_shards = h->nb_lcores;
	h->net = ewyk_net_create(&nc);
	if (h->net == NULL) {
		fprintf(stderr, "error: network context: %s\n",
			rte_strerror(rte_errno));
		return -1;
	}
	p = 0;
	RTE_ETH_FOREACH_DEV(pid) {
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
			pid, ip, pc.prefix_len, mac, info.mtu, h->nb_lcores,
			info.rss ? "symmetric" : "off",
			info.tx_ip_cksum ? "yes" : "no",
			info.tx_l4_cksum ? "yes" : "no");
		p++;
	}
	for (i = 0; i < h->nb_lcores; i++) {
		struct httpd_lcore *lc = &h->lc[i];

		lc->shard = ewyk_net_shard_create(h->net, lc->shard_id,
			(int)rte_lcore_to_socket_id(lc->lcore_id), lc->pool);
		if (lc->shard == NULL) {
			fprintf(stderr, "error: shard %u: %s\n", i,
				rte_strerror(rte_errno));
			return -1;
		}
		/* The layers above register their protocol handlers. */
		if (tcp_services_shard_init(h, lc) != 0)
			return -1;
	}
	return 0;
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
		fprintf(stderr, "error: EAL init: %s\n", rte_strerror(rte_errno));
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
		tcp_services_free(h);
		ewyk_net_free(h->net);
		rte_eal_cleanup();
		return 1;
	}
	if (httpd_stats_telemetry_init(h) != 0)
		fprintf(stderr, "warning: /ewyk/stats telemetry not registered\n");
	wait_links(h);
	/* Gratuitous ARP: peers learn our MAC before we talk. */
	ewyk_net_announce(h->lc[0].shard);
	ewyk_net_tx_flush(h->lc[0].shard);

	printf("ewyk-httpd: mbuf pools on mempool ops '%s'\n",
		rte_mempool_get_ops(h->lc[0].pool->ops_index)->name);
	printf("ewyk-httpd: %u lcore(s) polling, stats every %u s; Ctrl-C stops\n",
		h->nb_lcores, h->conf.stats_interval);
	fflush(stdout);
	for (i = 1; i < h->nb_lcores; i++)
		rte_eal_remote_launch(httpd_loop, &h->lc[i], h->lc[i].lcore_id);
	httpd_loop(&h->lc[0]);
	rte_eal_mp_wait_lcore();

	httpd_stats_print(h, true);
	httpd_stats_telemetry_fini();
	tcp_services_free(h);
	ewyk_net_free(h->net);
	rte_free(h);
	rte_eal_cleanup();
	printf("ewyk-httpd: stopped\n");
	return 0;
}
