/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The per-source limit's hashes (tcp_limits.c): SipHash-1-3
 * (ewyk_siphash.h) in steps, so that an IPv6 address and its /64 share
 * the compression of their first eight bytes: the /64 is the hash of
 * those 8 bytes, the address the hash of all 16, and the IPv4 address
 * the hash of its 4. The lengths, which SipHash's last block carries,
 * keep the three kinds apart in the one table. The values are those of
 * ewyk_siphash13() over 1, 4 and 2 words (test_tcp_src_hash checks it).
 */
#ifndef EWYK_TCP_SRC_HASH_H
#define EWYK_TCP_SRC_HASH_H

#include <stdbool.h>
#include <stdint.h>

#include "ewyk_siphash.h"
#include "tcp_private.h"

struct tcp_src_sip {
	uint64_t v0, v1, v2, v3;
};

static inline void
tcp_src_sip_init(uint64_t k0, uint64_t k1, struct tcp_src_sip *h)
{
	h->v0 = k0 ^ UINT64_C(0x736f6d6570736575);
	h->v1 = k1 ^ UINT64_C(0x646f72616e646f6d);
	h->v2 = k0 ^ UINT64_C(0x6c7967656e657261);
	h->v3 = k1 ^ UINT64_C(0x7465646279746573);
}

static inline void
tcp_src_sip_block(struct tcp_src_sip *h, uint64_t m)
{
	h->v3 ^= m;
	EWYK_SIPROUND(h->v0, h->v1, h->v2, h->v3);
	h->v0 ^= m;
}

/* The last block @p b (length byte and any tail), three final rounds. */
static inline uint32_t
tcp_src_sip_end(struct tcp_src_sip h, uint64_t b)
{
	h.v3 ^= b;
	EWYK_SIPROUND(h.v0, h.v1, h.v2, h.v3);
	h.v0 ^= b;
	h.v2 ^= 0xff;
	EWYK_SIPROUND(h.v0, h.v1, h.v2, h.v3);
	EWYK_SIPROUND(h.v0, h.v1, h.v2, h.v3);
	EWYK_SIPROUND(h.v0, h.v1, h.v2, h.v3);
	return (uint32_t)(h.v0 ^ h.v1 ^ h.v2 ^ h.v3);
}

/*
 * The hashes of @p a under the key (@p k0, @p k1): @p addr that of the
 * address (an IPv4 one when @p v6 is false), and, for an IPv6 address
 * when @p net64 is true, @p net that of its /64 (untouched otherwise).
 * The words are read in the host's order, as ewyk_siphash13() reads them
 * (little-endian x86 and arm64, the targets).
 */
static inline void
tcp_src_hash(uint64_t k0, uint64_t k1, const union tcp_addr *a, bool v6,
	bool net64, uint32_t *addr, uint32_t *net)
{
	struct tcp_src_sip sh, sa;

	tcp_src_sip_init(k0, k1, &sh);
	if (!v6) {
		*addr = tcp_src_sip_end(sh, (UINT64_C(4) << 56) | a->v4);
		return;
	}
	tcp_src_sip_block(&sh, a->q[0]); /* the /64: shared */
	sa = sh;
	tcp_src_sip_block(&sa, a->q[1]);
	*addr = tcp_src_sip_end(sa, UINT64_C(16) << 56);
	if (net64)
		*net = tcp_src_sip_end(sh, UINT64_C(8) << 56);
}

#endif /* EWYK_TCP_SRC_HASH_H */
