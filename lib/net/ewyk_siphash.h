/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_SIPHASH_H
#define EWYK_SIPHASH_H

/**
 * @file
 * SipHash (Aumasson and Bernstein, 2012), written from the paper, over
 * 32-bit words. SipHash-2-4 for ISNs, timestamp offsets and SYN cookies;
 * SipHash-1-3 (fewer rounds, as Linux's hsiphash and Rust's HashMap use
 * for hash tables) for the tables an attacker can feed: TCP connections,
 * ARP entries, per-source counts. Keys come from getentropy() once per
 * context: without the key, nobody can pick inputs that collide.
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @internal One SipRound. */
#define EWYK_SIPROUND(v0, v1, v2, v3)         \
	do {                                  \
		v0 += v1;                     \
		v1 = (v1 << 13) | (v1 >> 51); \
		v1 ^= v0;                     \
		v0 = (v0 << 32) | (v0 >> 32); \
		v2 += v3;                     \
		v3 = (v3 << 16) | (v3 >> 48); \
		v3 ^= v2;                     \
		v0 += v3;                     \
		v3 = (v3 << 21) | (v3 >> 43); \
		v3 ^= v0;                     \
		v2 += v1;                     \
		v1 = (v1 << 17) | (v1 >> 47); \
		v1 ^= v2;                     \
		v2 = (v2 << 32) | (v2 >> 32); \
	} while (0)

/** @internal SipHash-c-d of @p n 32-bit words. */
static inline uint64_t
ewyk_siphash_cd(uint64_t k0, uint64_t k1, const uint32_t *w, unsigned int n,
	unsigned int c, unsigned int d)
{
	uint64_t v0 = k0 ^ UINT64_C(0x736f6d6570736575);
	uint64_t v1 = k1 ^ UINT64_C(0x646f72616e646f6d);
	uint64_t v2 = k0 ^ UINT64_C(0x6c7967656e657261);
	uint64_t v3 = k1 ^ UINT64_C(0x7465646279746573);
	uint64_t b = (uint64_t)(n * 4) << 56;
	unsigned int i;

	for (i = 0; i + 1 < n; i += 2) {
		uint64_t mi = (uint64_t)w[i] | ((uint64_t)w[i + 1] << 32);

		unsigned int r;

		v3 ^= mi;
		for (r = 0; r < c; r++)
			EWYK_SIPROUND(v0, v1, v2, v3);
		v0 ^= mi;
	}
	if (i < n)
		b |= w[i];
	v3 ^= b;
	for (i = 0; i < c; i++)
		EWYK_SIPROUND(v0, v1, v2, v3);
	v0 ^= b;
	v2 ^= 0xff;
	for (i = 0; i < d; i++)
		EWYK_SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

/**
 * SipHash-2-4 of @p n 32-bit words (little-endian byte order of the
 * message, as the reference takes 4 * n bytes).
 *
 * @param k0  first half of the 128-bit key
 * @param k1  second half of the key
 * @param w   the words
 * @param n   how many
 * @return the 64-bit hash.
 */
static inline uint64_t
ewyk_siphash24(uint64_t k0, uint64_t k1, const uint32_t *w, unsigned int n)
{
	return ewyk_siphash_cd(k0, k1, w, n, 2, 4);
}

/**
 * SipHash-1-3 of @p n 32-bit words: the hash-table variant.
 *
 * @param k0  first half of the 128-bit key
 * @param k1  second half of the key
 * @param w   the words
 * @param n   how many
 * @return the 64-bit hash.
 */
static inline uint64_t
ewyk_siphash13(uint64_t k0, uint64_t k1, const uint32_t *w, unsigned int n)
{
	return ewyk_siphash_cd(k0, k1, w, n, 1, 3);
}

#ifdef __cplusplus
}
#endif

#endif /* EWYK_SIPHASH_H */
