/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_twheel's workload: TCP-like delays, random index streams, timer
 * node arrays, cache eviction. Shared by both adapters and the bodies.
 */

#ifndef EWYK_BENCH_TWHEEL_H
#define EWYK_BENCH_TWHEEL_H

#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include <rte_common.h>

namespace twb
{

inline uint64_t g_hz;
inline uint64_t g_d40, g_d200, g_d3s, g_d60, g_hour;
constexpr uint32_t kRtoTable = 4096;
inline std::vector<uint64_t> g_rto; /* random RTO delays, 200 ms - 3 s */

struct Rng {
	uint64_t s;
	explicit Rng(uint64_t seed) : s(seed | 1)
	{
	}
	uint64_t next()
	{
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		return s;
	}
};

inline uint64_t
tcp_delay(uint32_t idx, uint32_t k)
{
	switch (idx % 3) {
	case 0:
		return g_d40;
	case 1:
		return g_rto[k & (kRtoTable - 1)];
	default:
		return g_d60;
	}
}

/* Random index stream into [0, n): 2^20 entries (2^16 for small n). */
inline std::vector<uint32_t>
index_stream(uint32_t n, uint64_t seed)
{
	size_t len = n >= 100000 ? (1u << 20) : (1u << 16);
	std::vector<uint32_t> v(len);
	Rng r(seed);

	for (auto &x : v)
		x = r.next() % n;
	return v;
}

inline uint32_t
batch_of(uint32_t n)
{
	return n >= 4096 ? 1024 : n / 4;
}

/*
 * Timer nodes of both structures: 2 MB aligned and backed by transparent
 * huge pages where the kernel allows it, as DPDK (hugepage) memory would
 * be in production; the same for both, so TLB misses do not decide.
 */
template <typename T>
inline T *
alloc_nodes(size_t n)
{
	const size_t huge = 2u << 20;
	size_t len = (n * sizeof(T) + huge - 1) / huge * huge;
	void *p = aligned_alloc(huge, len);

	if (p == nullptr) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	madvise(p, len, MADV_HUGEPAGE);
	memset(p, 0, len);
	return static_cast<T *>(p);
}

/* Evict an object from the caches. */
inline void
flush_lines(const void *p, size_t len)
{
#if defined(RTE_ARCH_X86)
	const char *c = static_cast<const char *>(p);
	const char *end = c + len;

	for (c = (const char *)((uintptr_t)c & ~(uintptr_t)63); c < end;
		c += 64)
		__builtin_ia32_clflush(c);
#else
	(void)p;
	(void)len;
#endif
}

/* Move b distinct random entries of slots[0..n) to slots[n-b..n). */
inline void
pick_batch(std::vector<uint32_t> &slots, uint32_t n, uint32_t b, Rng &r)
{
	for (uint32_t k = 0; k < b; k++) {
		uint32_t j = r.next() % (n - k);

		std::swap(slots[j], slots[n - 1 - k]);
	}
}

} /* namespace twb */

#endif /* EWYK_BENCH_TWHEEL_H */
