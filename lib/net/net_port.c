/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port set-up: one RX and one TX queue per shard, symmetric RSS, checksum
 * offloads when the PMD has them, MTU, start and link status.
 */

#include <errno.h>
#include <string.h>

#include <rte_ethdev.h>

#include "net_private.h"

/*
 * A Toeplitz key made of one repeated 16-bit pattern hashes (a, b) and
 * (b, a) alike, so both directions of a flow land on the same queue
 * (Woo & Park, "Scalable TCP Session Monitoring with Symmetric RSS").
 */
/* clang-format off */
static const uint8_t net_rss_key[40] = {
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
};
/* clang-format on */

const uint8_t *
ewyk_net_rss_key(uint8_t *len)
{
	if (len != NULL)
		*len = sizeof(net_rss_key);
	return net_rss_key;
}

/* Arguments, room for a port, and queues enough for every shard. */
static int
port_validate(const struct ewyk_net *net, const struct ewyk_net_port_conf *conf,
	struct rte_eth_dev_info *di)
{
	uint16_t q, nq;
	int rc;

	if (net == NULL || conf == NULL || conf->rx_pools == NULL ||
		conf->prefix_len == 0 || conf->prefix_len > 32 ||
		conf->vlan_id > 4094 || conf->ip == 0 ||
		!rte_eth_dev_is_valid_port(conf->port_id))
		return -EINVAL;
	if (conf->nb_extra_ips != 0) {
		/* the extra addresses: in the subnet, short of its broadcast */
		uint32_t h = rte_be_to_cpu_32(conf->ip);
		uint32_t host = conf->prefix_len == 32 ?
			0 :
			UINT32_MAX >> conf->prefix_len;

		if (conf->prefix_len > 30 ||
			(uint64_t)(h & host) + conf->nb_extra_ips >= host)
			return -EINVAL;
	}
	if (net->nb_ports == EWYK_NET_MAX_PORTS)
		return -ENOSPC;
	nq = net->nb_shards;
	rc = rte_eth_dev_info_get(conf->port_id, di);
	if (rc != 0)
		return rc;
	if (di->max_rx_queues < nq || di->max_tx_queues < nq) {
		NET_LOG(ERR,
			"port %u (%s) has %u RX / %u TX queues, %u shards need %u"
			" (af_packet: add qpairs=%u to the vdev)",
			conf->port_id, di->driver_name, di->max_rx_queues,
			di->max_tx_queues, nq, nq, nq);
		return -ENOTSUP;
	}
	for (q = 0; q < nq; q++)
		if (conf->rx_pools[q] == NULL)
			return -EINVAL;
	return 0;
}

/*
 * The device configuration: symmetric RSS over several queues, and every
 * checksum offload the PMD has; pt records what the datapath may rely on.
 */
static void
port_offloads(const struct rte_eth_dev_info *di, uint16_t nq,
	struct rte_eth_conf *pconf, struct net_port *pt)
{
	if (nq > 1 && di->flow_type_rss_offloads != 0) {
		/* RTE_ETH_RSS_IP and _TCP/_UDP cover IPv6 too (IPV6,
		 * NONFRAG_IPV6_TCP/UDP, IPV6_EX...): with the key below both
		 * directions of an IPv6 flow hash alike as well, the
		 * addresses being swapped 16 bits at a time. */
		uint64_t hf = (RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP |
				      RTE_ETH_RSS_UDP) &
			di->flow_type_rss_offloads;

		pconf->rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		pconf->rx_adv_conf.rss_conf.rss_hf = hf;
		/* Symmetric only with our key; a PMD with another key size
		 * spreads flows but the layer above must not predict it. */
		if (di->hash_key_size == sizeof(net_rss_key)) {
			pconf->rx_adv_conf.rss_conf.rss_key =
				(uint8_t *)(uintptr_t)net_rss_key;
			pconf->rx_adv_conf.rss_conf.rss_key_len = sizeof(
				net_rss_key);
			pt->rss = hf != 0;
		}
	}
	if (di->tx_offload_capa & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM) {
		pconf->txmode.offloads |= RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
		pt->tx_ip_cksum = true;
	}
	if (di->tx_offload_capa & RTE_ETH_TX_OFFLOAD_TCP_CKSUM) {
		pconf->txmode.offloads |= RTE_ETH_TX_OFFLOAD_TCP_CKSUM;
		pt->tx_tcp_cksum = true;
	}
	if (di->tx_offload_capa & RTE_ETH_TX_OFFLOAD_UDP_CKSUM) {
		pconf->txmode.offloads |= RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
		pt->tx_udp_cksum = true;
	}
	if (di->tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
		pconf->txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	if ((di->rx_offload_capa &
		    (RTE_ETH_RX_OFFLOAD_IPV4_CKSUM |
			    RTE_ETH_RX_OFFLOAD_TCP_CKSUM)) ==
		(RTE_ETH_RX_OFFLOAD_IPV4_CKSUM |
			RTE_ETH_RX_OFFLOAD_TCP_CKSUM)) {
		pconf->rxmode.offloads |= RTE_ETH_RX_OFFLOAD_IPV4_CKSUM |
			RTE_ETH_RX_OFFLOAD_TCP_CKSUM;
		pt->rx_cksum = true;
	}
}

/* Configure the device and its MTU; pt->mtu is what the port runs with. */
static int
port_configure(uint16_t pid, uint16_t nq, const struct rte_eth_conf *pconf,
	uint16_t mtu, struct net_port *pt)
{
	int rc;

	rc = rte_eth_dev_configure(pid, nq, nq, pconf);
	if (rc != 0) {
		NET_LOG(ERR, "port %u: configure: %s", pid, rte_strerror(-rc));
		return rc;
	}
	if (mtu != 0) {
		rc = rte_eth_dev_set_mtu(pid, mtu);
		if (rc != 0) {
			NET_LOG(ERR, "port %u: MTU %u: %s", pid, mtu,
				rte_strerror(-rc));
			return rc;
		}
	}
	rc = rte_eth_dev_get_mtu(pid, &pt->mtu);
	if (rc != 0 || pt->mtu == 0)
		pt->mtu = RTE_ETHER_MTU;
	return 0;
}

/* One RX and one TX queue per shard, on the port's NUMA node. */
static int
port_queues(uint16_t pid, uint16_t nq, const struct ewyk_net_port_conf *conf,
	const struct rte_eth_dev_info *di, uint64_t tx_offloads)
{
	uint16_t q, nrx, ntx;
	int socket, rc;

	nrx = conf->nb_rx_desc != 0 ? conf->nb_rx_desc : 1024;
	ntx = conf->nb_tx_desc != 0 ? conf->nb_tx_desc : 1024;
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(pid, &nrx, &ntx);
	if (rc != 0)
		return rc;
	socket = rte_eth_dev_socket_id(pid);
	for (q = 0; q < nq; q++) {
		struct rte_eth_txconf txc = di->default_txconf;

		rc = rte_eth_rx_queue_setup(pid, q, nrx, socket, NULL,
			conf->rx_pools[q]);
		if (rc != 0) {
			NET_LOG(ERR, "port %u: rx queue %u: %s", pid, q,
				rte_strerror(-rc));
			return rc;
		}
		txc.offloads = tx_offloads;
		rc = rte_eth_tx_queue_setup(pid, q, ntx, socket, &txc);
		if (rc != 0) {
			NET_LOG(ERR, "port %u: tx queue %u: %s", pid, q,
				rte_strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/* Start the port, then its addresses become live; fill info. */
static int
port_start(uint16_t pid, const struct ewyk_net_port_conf *conf,
	const struct rte_eth_dev_info *di, uint16_t nq, struct net_port *pt,
	struct ewyk_net_port_info *info)
{
	struct rte_eth_link link;
	int rc;

	rc = rte_eth_dev_start(pid);
	if (rc != 0) {
		NET_LOG(ERR, "port %u: start: %s", pid, rte_strerror(-rc));
		return rc;
	}
	pt->port_id = pid;
	pt->ip = conf->ip;
	pt->ip_h = rte_be_to_cpu_32(conf->ip);
	pt->nb_ips = conf->nb_extra_ips + 1;
	pt->prefix_len = conf->prefix_len;
	pt->mask = rte_cpu_to_be_32(conf->prefix_len == 32 ?
			UINT32_MAX :
			~(UINT32_MAX >> conf->prefix_len));
	pt->vlan_id = conf->vlan_id;

	memset(&link, 0, sizeof(link));
	rte_eth_link_get_nowait(pid, &link);
	if (info != NULL) {
		info->mac = pt->mac;
		info->mtu = pt->mtu;
		info->rss = pt->rss;
		info->tx_ip_cksum = pt->tx_ip_cksum;
		info->tx_l4_cksum = pt->tx_tcp_cksum;
		info->rx_cksum = pt->rx_cksum;
		info->link_up = link.link_status == RTE_ETH_LINK_UP;
		info->link_speed = link.link_speed;
	}
	NET_LOG(INFO,
		"port %u (%s): %u queue(s), MTU %u, RSS %s, tx cksum ip=%d tcp=%d, link %s",
		pid, di->driver_name, nq, pt->mtu,
		pt->rss ? "symmetric" : "off", pt->tx_ip_cksum,
		pt->tx_tcp_cksum,
		link.link_status == RTE_ETH_LINK_UP ? "up" : "down");
	return 0;
}

int
ewyk_net_port_add(struct ewyk_net *net, const struct ewyk_net_port_conf *conf,
	struct ewyk_net_port_info *info)
{
	struct rte_eth_conf pconf;
	struct rte_eth_dev_info di;
	struct net_port *pt;
	uint16_t pid, nq;
	int rc;

	rc = port_validate(net, conf, &di);
	if (rc != 0)
		return rc;
	pid = conf->port_id;
	nq = net->nb_shards;
	pt = &net->ports[net->nb_ports];
	memset(pt, 0, sizeof(*pt));
	memset(&pconf, 0, sizeof(pconf));
	/* Everything that can fail without side effects goes before start, so
	 * that a port is never left running behind a failed add. */
	rc = rte_eth_macaddr_get(pid, &pt->mac);
	if (rc != 0)
		return rc;
	port_offloads(&di, nq, &pconf, pt);
	rc = port_configure(pid, nq, &pconf, conf->mtu, pt);
	if (rc == 0)
		rc = port_queues(pid, nq, conf, &di, pconf.txmode.offloads);
	if (rc == 0)
		rc = port_start(pid, conf, &di, nq, pt, info);
	if (rc != 0)
		return rc;
	return net->nb_ports++;
}

/*
 * What the NIC drops before ewyk sees it -- no mbuf to receive into
 * (rx_nombuf), RX queue overrun (imissed) -- becomes shard 0's drop
 * counters: the port's totals only grow, the new part is added.
 */
void
net_port_rx_drops(struct ewyk_net_shard *s, uint16_t port,
	const struct rte_eth_stats *st)
{
	struct net_port *pt = &s->net->ports[port];

	if (st->rx_nombuf < pt->rx_nombuf_seen) /* stats were reset */
		pt->rx_nombuf_seen = 0;
	if (st->imissed < pt->rx_missed_seen)
		pt->rx_missed_seen = 0;
	net_ctr_add(s, EWYK_NET_DROP_RX_NOMBUF,
		st->rx_nombuf - pt->rx_nombuf_seen);
	net_ctr_add(s, EWYK_NET_DROP_RX_MISSED,
		st->imissed - pt->rx_missed_seen);
	pt->rx_nombuf_seen = st->rx_nombuf;
	pt->rx_missed_seen = st->imissed;
}

/* From shard 0's housekeeping (every NET_ARP_HOUSEKEEP_MS). */
void
net_port_stats_poll(struct ewyk_net_shard *s)
{
	struct rte_eth_stats st;
	uint16_t p;

	if (s->id != 0)
		return;
	for (p = 0; p < s->net->nb_ports; p++)
		if (rte_eth_stats_get(s->net->ports[p].port_id, &st) == 0)
			net_port_rx_drops(s, p, &st);
}

/*
 * The groups a port with IPv6 must hear (RFC 4291 2.8): all-nodes and the
 * solicited-node group of each address, in the NIC's multicast filter; a
 * PMD without one gets all-multicast, so that no solicitation is missed.
 */
static void
port_ip6_groups(struct net_port *pt)
{
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	struct rte_ether_addr mc[EWYK_NET_MAX_IP6 + 1];
	uint32_t n = 0, i, j;
	int rc;

	net_ip6_mcast_mac(all_nodes, &mc[n++]);
	for (i = 0; i < pt->nb_ip6; i++) {
		uint8_t sn[16];

		net_ip6_solnode(pt->ip6[i].a, sn);
		net_ip6_mcast_mac(sn, &mc[n]);
		for (j = 0; j < n; j++)
			if (rte_is_same_ether_addr(&mc[j], &mc[n]))
				break;
		if (j == n)
			n++;
	}
	rc = rte_eth_dev_set_mc_addr_list(pt->port_id, mc, n);
	if (rc == 0) {
		pt->allmulti = false;
		return;
	}
	rc = rte_eth_allmulticast_enable(pt->port_id);
	pt->allmulti = rc == 0;
	if (rc != 0)
		NET_LOG(WARNING,
			"port %u: neither a multicast filter nor all-multicast (%s): IPv6 solicitations may not be received",
			pt->port_id, rte_strerror(-rc));
	else
		NET_LOG(INFO, "port %u: no multicast filter, all-multicast on",
			pt->port_id);
}

int
ewyk_net_port_add_ip6(struct ewyk_net *net, uint16_t port,
	const uint8_t addr[16], uint8_t prefix_len)
{
	static const uint8_t zero[16];
	static const uint8_t lo[16] = { [15] = 1 };
	struct net_port *pt;
	uint8_t i;

	if (net == NULL || addr == NULL || port >= net->nb_ports ||
		prefix_len == 0 || prefix_len > 128 || addr[0] == 0xff ||
		memcmp(addr, zero, 16) == 0 || memcmp(addr, lo, 16) == 0 ||
		(addr[0] == 0xfe && (addr[1] & 0xc0) == 0x80))
		return -EINVAL;
	pt = &net->ports[port];
	for (i = 0; i < pt->nb_ip6; i++)
		if (memcmp(pt->ip6[i].a, addr, 16) == 0)
			return -EEXIST;
	if (pt->nb_ip6 == EWYK_NET_MAX_IP6)
		return -ENOSPC;
	if (pt->nb_ip6 == 0) {
		/* fe80::/64 with the modified EUI-64 of the MAC (RFC 4291
		 * appendix A): ff:fe in the middle, universal/local bit
		 * flipped. */
		struct net_ip6_addr *ll = &pt->ip6[0];
		const uint8_t *mac = pt->mac.addr_bytes;

		memset(ll, 0, sizeof(*ll));
		ll->a[0] = 0xfe;
		ll->a[1] = 0x80;
		ll->a[8] = mac[0] ^ 0x02;
		ll->a[9] = mac[1];
		ll->a[10] = mac[2];
		ll->a[11] = 0xff;
		ll->a[12] = 0xfe;
		ll->a[13] = mac[3];
		ll->a[14] = mac[4];
		ll->a[15] = mac[5];
		ll->plen = 64;
		pt->nb_ip6 = 1;
	}
	if (pt->nb_ip6 == EWYK_NET_MAX_IP6)
		return -ENOSPC;
	memcpy(pt->ip6[pt->nb_ip6].a, addr, 16);
	pt->ip6[pt->nb_ip6].plen = prefix_len;
	pt->nb_ip6++;
	/* after the change: output templates of the old one lapse */
	__atomic_store_n(&pt->ip6_gen, pt->ip6_gen + 1, __ATOMIC_RELEASE);
	net->has_ip6 = true;
	port_ip6_groups(pt);
	return 0;
}

int
ewyk_net_port_set_gw(struct ewyk_net *net, uint16_t port, rte_be32_t gw)
{
	struct net_port *pt;

	if (net == NULL || port >= net->nb_ports)
		return -EINVAL;
	pt = &net->ports[port];
	if (gw == 0) {
		pt->gw = 0;
		/* after the change: output templates of the old one lapse */
		__atomic_store_n(&pt->ip4_gen, pt->ip4_gen + 1,
			__ATOMIC_RELEASE);
		return 0;
	}
	/* A unicast host no source may be either (net_ip_src_bad()), and
	 * not the subnet's network address. */
	if (net_ip_src_bad(net, port, gw))
		return -EINVAL;
	if ((gw & pt->mask) != (pt->ip & pt->mask))
		return -ENETUNREACH;
	if (pt->prefix_len <= 30 && (gw & ~pt->mask) == 0)
		return -EINVAL;
	pt->gw = gw;
	__atomic_store_n(&pt->ip4_gen, pt->ip4_gen + 1, __ATOMIC_RELEASE);
	return 0;
}

int
ewyk_net_port_set_gw6(struct ewyk_net *net, uint16_t port,
	const uint8_t addr[16])
{
	static const uint8_t zero[16];
	struct net_port *pt;

	if (net == NULL || addr == NULL || port >= net->nb_ports)
		return -EINVAL;
	pt = &net->ports[port];
	if (pt->nb_ip6 == 0 || addr[0] == 0xff || memcmp(addr, zero, 16) == 0 ||
		net_ip6_is_ours(pt, addr) >= 0)
		return -EINVAL;
	if (!net_ip6_onlink(pt, addr))
		return -ENETUNREACH;
	memcpy(pt->gw6, addr, 16);
	pt->has_gw6 = true;
	/* after the change: output templates of the old one lapse */
	__atomic_store_n(&pt->ip6_gen, pt->ip6_gen + 1, __ATOMIC_RELEASE);
	return 0;
}

int
ewyk_net_port_ip6(const struct ewyk_net *net, uint16_t port, unsigned int idx,
	uint8_t addr[16], uint8_t *prefix_len)
{
	const struct net_port *pt;

	if (net == NULL || port >= net->nb_ports)
		return -ENOENT;
	pt = &net->ports[port];
	if (idx >= pt->nb_ip6)
		return -ENOENT;
	memcpy(addr, pt->ip6[idx].a, 16);
	if (prefix_len != NULL)
		*prefix_len = pt->ip6[idx].plen;
	return 0;
}
