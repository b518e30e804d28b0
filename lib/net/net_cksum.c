/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internet checksums (RFC 1071) in software. Used when the port does not
 * offer the offload, and to verify what arrives when the NIC did not.
 */

#include <rte_ip.h>
#include <rte_mbuf.h>

#include "net_private.h"

bool
net_ipv4_hdr_valid_cksum(const struct rte_ipv4_hdr *ip, uint16_t hlen)
{
	/* The sum over a valid header, checksum included, is 0xffff. */
	return rte_raw_cksum(ip, hlen) == 0xffff;
}

uint16_t
ewyk_net_l4_cksum(const struct rte_mbuf *m, rte_be32_t src, rte_be32_t dst,
		uint8_t proto)
{
	/* Pseudo-header (RFC 9293 3.1), summed as it would sit in memory. */
	struct {
		rte_be32_t src;
		rte_be32_t dst;
		uint8_t zero;
		uint8_t proto;
		rte_be16_t len;
	} __rte_packed ph;
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint32_t sum;
	uint16_t raw = 0;

	ph.src = src;
	ph.dst = dst;
	ph.zero = 0;
	ph.proto = proto;
	ph.len = rte_cpu_to_be_16((uint16_t)len);
	if (rte_raw_cksum_mbuf(m, 0, len, &raw) != 0)
		return 0;
	sum = (uint32_t)rte_raw_cksum(&ph, sizeof(ph)) + raw;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}
