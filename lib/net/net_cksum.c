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
	return net_cksum_raw(ip, hlen) == 0xffff;
}

/*
 * Folded 16-bit one's complement sum over [off, off+len) of a chained mbuf.
 * DPDK 22.11's rte_raw_cksum_mbuf truncates a segment's unfolded 32-bit sum
 * before byte-swapping it when the previous segments had an odd length,
 * losing carries; this folds first. Returns -1 if the range is beyond the
 * packet.
 */
int
net_cksum_mbuf(const struct rte_mbuf *m, uint32_t off, uint32_t len,
	uint16_t *cksum)
{
	const struct rte_mbuf *seg = m;
	uint32_t sum = 0, done = 0;

	if ((uint64_t)off + len > rte_pktmbuf_pkt_len(m))
		return -1;
	if (off + len <= rte_pktmbuf_data_len(m)) {
		*cksum = net_cksum_raw(rte_pktmbuf_mtod_offset(m, const char *,
					       off),
			len);
		return 0;
	}
	while (off >= rte_pktmbuf_data_len(seg)) {
		off -= rte_pktmbuf_data_len(seg);
		seg = seg->next;
	}
	while (done < len) {
		uint32_t n = RTE_MIN((uint32_t)rte_pktmbuf_data_len(seg) - off,
			len - done);
		uint16_t part = net_cksum_raw(rte_pktmbuf_mtod_offset(seg,
						      const char *, off),
			n);

		/* A segment that starts at an odd offset of the range has its
		 * bytes in the other lane of every 16-bit word. */
		if (done & 1)
			part = rte_bswap16(part);
		sum += part;
		done += n;
		off = 0;
		seg = seg->next;
	}
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	*cksum = (uint16_t)sum;
	return 0;
}

uint16_t
ewyk_net_l4_cksum(const struct rte_mbuf *m, rte_be32_t src, rte_be32_t dst,
	uint8_t proto)
{
	/* Pseudo-header (RFC 9293 3.1): the addresses as 32-bit words in
	 * memory order, the zero byte and the protocol as one 16-bit word,
	 * the length; their one's complement sum is that of its 16-bit
	 * words, folded. */
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint16_t raw = 0;
	uint64_t sum;

	if (net_cksum_mbuf(m, 0, len, &raw) != 0)
		return 0;
	sum = (uint64_t)src + dst + rte_cpu_to_be_16((uint16_t)proto) +
		rte_cpu_to_be_16((uint16_t)len) + raw;
	return (uint16_t)~net_cksum_fold(sum);
}
