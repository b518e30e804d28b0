/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Start-up helpers of the runtime: numbers and addresses of options, the
 * lcore list, mbuf pools, links.
 */

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

#include "rt_private.h"

int
rt_parse_ulong(const char *s, unsigned long min, unsigned long max,
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
rt_parse_ip_num(const char *s, char sep, unsigned long max, rte_be32_t *ip,
	unsigned long *n)
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
	if (rt_parse_ulong(p, 1, max, n) != 0)
		return -1;
	*ip = a.s_addr;
	return 0;
}

int
rt_lcores(unsigned int *ids, unsigned int max)
{
	unsigned int lcore, n = 0;

	if (rte_lcore_count() > max) {
		RT_LOG(ERR, "error: at most %u lcores", max);
		return -1;
	}
	ids[n++] = rte_get_main_lcore();
	RTE_LCORE_FOREACH_WORKER (lcore)
		ids[n++] = lcore;
	return (int)n;
}

struct rte_mempool *
rt_pool_create(const char *prefix, unsigned int idx, unsigned int nb_mbufs,
	unsigned int lcore_id, const char *ops)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	int socket = (int)rte_lcore_to_socket_id(lcore_id);
	struct rte_mempool *mp;

	snprintf(name, sizeof(name), "%s%u", prefix, idx);
	mp = rte_pktmbuf_pool_create_by_ops(name, nb_mbufs, 256, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, socket, ops);
	if (mp == NULL)
		RT_LOG(ERR,
			"error: mbuf pool for lcore %u on socket %d (ops %s): %s (try a larger -m, or fewer --mbufs)",
			lcore_id, socket,
			ops != NULL ? ops : rte_mbuf_best_mempool_ops(),
			rte_strerror(rte_errno));
	return mp;
}

int
rt_wait_link(uint16_t port_id, struct rte_eth_link *link)
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
