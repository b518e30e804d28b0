/* SPDX-License-Identifier: BSD-3-Clause */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>

#include "app_common.h"

int
ewyk_app_eal_init(int *argc, char ***argv, const char *prog)
{
	int n = rte_eal_init(*argc, *argv);

	if (n < 0) {
		fprintf(stderr, "error: EAL init: %s\n",
			rte_strerror(rte_errno));
		return -1;
	}
	*argc -= n;
	*argv += n;
	(*argv)[0] = (char *)(uintptr_t)prog;
	return 0;
}

int
ewyk_app_parse_opts(int argc, char **argv, const struct option *opts,
	void (*usage)(const char *prog),
	int (*parse)(void *conf, int o, const char *arg), void *conf)
{
	int o;

	optind = 1;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (o == 'h') {
			usage(argv[0]);
			exit(0);
		}
		if (parse(conf, o, optarg) != 0)
			return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "error: unexpected argument '%s'\n",
			argv[optind]);
		return -1;
	}
	return 0;
}

int
ewyk_app_parse_ulong(const char *s, unsigned long min, unsigned long max,
	unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || v < min ||
		v > max)
		return -1;
	*out = v;
	return 0;
}

int
ewyk_app_opt_ulong(const char *name, const char *s, unsigned long min,
	unsigned long max, unsigned long *out)
{
	if (ewyk_app_parse_ulong(s, min, max, out) == 0)
		return 0;
	fprintf(stderr, "error: --%s '%s': expected %lu..%lu\n", name, s, min,
		max);
	return -1;
}

int
ewyk_app_parse_ip_num(const char *s, char sep, unsigned long max,
	rte_be32_t *ip, unsigned long *n)
{
	char buf[32];
	char *p;
	struct in_addr a;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	p = strchr(buf, sep);
	if (p == NULL)
		return -1;
	*p++ = '\0';
	if (inet_pton(AF_INET, buf, &a) != 1 || a.s_addr == 0)
		return -1;
	if (ewyk_app_parse_ulong(p, 1, max, n) != 0)
		return -1;
	*ip = a.s_addr;
	return 0;
}

int
ewyk_app_lcores(unsigned int *ids, unsigned int max)
{
	unsigned int lcore, n = 0;

	if (rte_lcore_count() > max) {
		fprintf(stderr, "error: at most %u lcores\n", max);
		return -1;
	}
	ids[n++] = rte_get_main_lcore();
	RTE_LCORE_FOREACH_WORKER (lcore)
		ids[n++] = lcore;
	return (int)n;
}

struct rte_mempool *
ewyk_app_pool_create(const char *prefix, unsigned int idx,
	unsigned int nb_mbufs, unsigned int lcore_id, const char *ops)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	int socket = (int)rte_lcore_to_socket_id(lcore_id);
	struct rte_mempool *mp;

	snprintf(name, sizeof(name), "%s%u", prefix, idx);
	mp = rte_pktmbuf_pool_create_by_ops(name, nb_mbufs, 256, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, socket, ops);
	if (mp == NULL)
		fprintf(stderr,
			"error: mbuf pool for lcore %u on socket %d (ops %s): %s (try a larger -m, or fewer --mbufs)\n",
			lcore_id, socket,
			ops != NULL ? ops : rte_mbuf_best_mempool_ops(),
			rte_strerror(rte_errno));
	return mp;
}

struct ewyk_net *
ewyk_app_net_create(uint16_t nb_shards)
{
	struct ewyk_net_conf nc;
	struct ewyk_net *net;

	memset(&nc, 0, sizeof(nc));
	nc.nb_shards = nb_shards;
	net = ewyk_net_create(&nc);
	if (net == NULL)
		fprintf(stderr, "error: network context: %s\n",
			rte_strerror(rte_errno));
	return net;
}

int
ewyk_app_port_add(struct ewyk_net *net, const struct ewyk_net_port_conf *pc,
	struct ewyk_net_port_info *info)
{
	int rc = ewyk_net_port_add(net, pc, info);

	if (rc < 0) {
		fprintf(stderr, "error: port %u: %s\n", pc->port_id,
			rte_strerror(-rc));
		return -1;
	}
	return 0;
}

struct ewyk_net_shard *
ewyk_app_shard_create(struct ewyk_net *net, uint16_t idx, unsigned int lcore_id,
	struct rte_mempool *pool)
{
	struct ewyk_net_shard *sh;

	sh = ewyk_net_shard_create(net, idx,
		(int)rte_lcore_to_socket_id(lcore_id), pool);
	if (sh == NULL)
		fprintf(stderr, "error: shard %u: %s\n", idx,
			rte_strerror(rte_errno));
	return sh;
}

int
ewyk_app_wait_link(uint16_t port_id, struct rte_eth_link *link)
{
	int tries;

	for (tries = 0; tries < 30; tries++) {
		memset(link, 0, sizeof(*link));
		if (rte_eth_link_get_nowait(port_id, link) == 0 &&
			link->link_status == RTE_ETH_LINK_UP)
			return 1;
		rte_delay_ms(100);
	}
	return 0;
}
