/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the packet input path of lib/net: every input is one
 * Ethernet frame handed to ewyk_net_input on a ring-backed port (IPv4 and
 * IPv6: the port has both). A UDP
 * handler is registered so that delivery to L4 is exercised too. Whatever
 * comes back is flushed and freed; the fuzzer checks for crashes, ASan/UBSan
 * reports and mbuf leaks (pool count checked on every input).
 *
 *   build-fuzz/tests/fuzz/fuzz_net -max_total_time=60
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <ewyk_net.h>

#include "fuzz_common.h"

static struct rte_mempool *mp;
static struct ewyk_net_shard *shard;
static struct rte_ring *txr;
static struct rte_ether_addr mac;

static void
udp_sink(void *arg, struct ewyk_net_shard *s, struct rte_mbuf *m,
	const struct ewyk_net_ip_info *ip)
{
	(void)arg;
	(void)s;
	(void)ip;
	rte_pktmbuf_free(m);
}

static void
udp6_sink(void *arg, struct ewyk_net_shard *s, struct rte_mbuf *m,
	const struct ewyk_net_ip6_info *ip)
{
	(void)arg;
	(void)s;
	(void)ip;
	rte_pktmbuf_free(m);
}

static int
init(void)
{
	mp = fuzz_init("fuzz_net", "128", 1023);
	if (mp == NULL)
		return -1;
	shard = fuzz_ring_shard("fuzznet", 256,
		rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, 2)), &mp, &txr, &mac);
	if (shard == NULL)
		return -1;
	/* IPv6 on too (2001:db8::2/64 and the link-local address), with a
	 * UDP handler there as well; TCP over IPv6 has none, so the ICMPv6
	 * errors are exercised. */
	if (ewyk_net_port_add_ip6(ewyk_net_shard_net(shard), 0, fuzz_ip6, 64) !=
			0 ||
		ewyk_net_l4_register6(shard, IPPROTO_UDP, udp6_sink, NULL) != 0)
		return -1;
	return ewyk_net_l4_register(shard, IPPROTO_UDP, udp_sink, NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct rte_mbuf *m, *out[64];
	unsigned int n, avail;
	char *p;

	if (!ready) {
		if (init() != 0)
			abort();
		ready = 1;
	}
	if (size > RTE_MBUF_DEFAULT_DATAROOM)
		return 0;
	avail = rte_mempool_avail_count(mp);
	m = rte_pktmbuf_alloc(mp);
	if (m == NULL)
		abort();
	p = rte_pktmbuf_append(m, (uint16_t)size);
	memcpy(p, data, size);
	/* Half the inputs are addressed to us, so the fuzzer gets past L2. */
	if (size >= 6 && (data[0] & 1) == 0 && (data[0] & 2) == 0)
		memcpy(p, &mac, 6);
	ewyk_net_input(shard, 0, &m, 1, 0);
	ewyk_net_tx_flush(shard);
	while ((n = rte_ring_dequeue_burst(txr, (void **)out, 64, NULL)) > 0)
		rte_pktmbuf_free_bulk(out, n);
	/* Frames waiting for ARP stay queued by design; everything else must
	 * be back in the pool. */
	if (rte_mempool_avail_count(mp) + 64 < avail)
		abort();
	return 0;
}
