/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Set-up the libFuzzer targets share: the EAL without hugepages, PCI,
 * shared config or telemetry on lcore 0 with one mbuf pool, and a lib/net shard on a
 * ring-backed port (what the stack sends lands on a TX ring to drain).
 */

#ifndef EWYK_FUZZ_COMMON_H
#define EWYK_FUZZ_COMMON_H

#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <ewyk_net.h>

/**
 * Initialise the EAL for a fuzz target and make its mbuf pool.
 *
 * @param prog
 *   The target's name, and its pool's.
 * @param mem_mb
 *   Memory (-m), in MB, as text.
 * @param nb_mbufs
 *   Mbufs in the pool (no per-lcore cache).
 * @return
 *   The pool, or NULL.
 */
static inline struct rte_mempool *
fuzz_init(const char *prog, const char *mem_mb, unsigned int nb_mbufs)
{
	char *args[] = { (char *)(uintptr_t)prog, (char *)"--no-huge",
		(char *)"-m", (char *)(uintptr_t)mem_mb, (char *)"--no-pci",
		(char *)"--no-shconf", (char *)"--no-telemetry", (char *)"-l",
		(char *)"0", (char *)"--log-level=error", NULL };

	if (rte_eal_init(10, args) < 0)
		return NULL;
	return rte_pktmbuf_pool_create(prog, nb_mbufs, 0, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
}

/** The IPv6 address the targets give their port: 2001:db8::2. */
static const uint8_t fuzz_ip6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

/**
 * One shard of a one-shard network context on a ring-backed port (RX ring
 * of 256 entries).
 *
 * @param name
 *   Name of the port; its rings are "<name>_rx" and "<name>_tx".
 * @param tx_size
 *   Entries of the TX ring.
 * @param ip
 *   The port's address (a /24).
 * @param mp
 *   The mbuf pool (RX and the shard's), kept by the caller.
 * @param txr
 *   The TX ring, on success.
 * @param mac
 *   The port's MAC, on success.
 * @return
 *   The shard, or NULL.
 */
static inline struct ewyk_net_shard *
fuzz_ring_shard(const char *name, unsigned int tx_size, rte_be32_t ip,
	struct rte_mempool **mp, struct rte_ring **txr,
	struct rte_ether_addr *mac)
{
	char rn[RTE_RING_NAMESIZE];
	struct rte_ring *rxr;
	struct ewyk_net_conf nc;
	struct ewyk_net_port_conf pc;
	struct ewyk_net_port_info info;
	struct ewyk_net *net;
	int port;

	snprintf(rn, sizeof(rn), "%s_rx", name);
	rxr = rte_ring_create(rn, 256, SOCKET_ID_ANY, 0);
	snprintf(rn, sizeof(rn), "%s_tx", name);
	*txr = rte_ring_create(rn, tx_size, SOCKET_ID_ANY, 0);
	if (rxr == NULL || *txr == NULL)
		return NULL;
	port = rte_eth_from_rings(name, &rxr, 1, txr, 1, SOCKET_ID_ANY);
	memset(&nc, 0, sizeof(nc));
	nc.nb_shards = 1;
	net = ewyk_net_create(&nc);
	if (port < 0 || net == NULL)
		return NULL;
	memset(&pc, 0, sizeof(pc));
	pc.port_id = (uint16_t)port;
	pc.ip = ip;
	pc.prefix_len = 24;
	pc.rx_pools = mp;
	if (ewyk_net_port_add(net, &pc, &info) < 0)
		return NULL;
	*mac = info.mac;
	return ewyk_net_shard_create(net, 0, SOCKET_ID_ANY, *mp);
}

#endif /* EWYK_FUZZ_COMMON_H */
