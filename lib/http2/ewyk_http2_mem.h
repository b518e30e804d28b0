/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_HTTP2_MEM_H
#define EWYK_HTTP2_MEM_H

/**
 * @file
 * nghttp2's memory (an nghttp2_mem) from per-size free lists of one
 * lcore. A session allocates and frees a stream, its queued frames, their
 * header copies and their buffers for every request, through malloc() by
 * default; with this allocator blocks of 64 B to 4 KiB (powers of two,
 * a 16-byte header included) come back from free lists, with no lock and
 * no atomics, and only a block's first use, a larger one, or one beyond
 * the bound of its list goes to malloc()/free(). Each list keeps at most
 * EWYK_HTTP2_MEM_KEEP blocks, so a burst of streams leaves at most
 * EWYK_HTTP2_MEM_KEEP × 4 KiB per class behind.
 *
 * One allocator per lcore: every session given its @c mem must be used
 * by that lcore alone (ewyk-httpd: a shard's sessions, used by its
 * holder; ewyk-loadgen: an lcore's client sessions).
 */

#include <stdint.h>

#include <nghttp2/nghttp2.h>

#ifdef __cplusplus
extern "C" {
#endif

/** log2 of the smallest block (64 B, header included). */
#define EWYK_HTTP2_MEM_MIN_SHIFT 6
/** Block sizes: 64 B << 0 .. 6 (4 KiB). */
#define EWYK_HTTP2_MEM_CLASSES 7
/** Blocks each free list keeps at most. */
#define EWYK_HTTP2_MEM_KEEP 4096

/** An lcore's allocator for nghttp2 (see the file's comment). */
struct ewyk_http2_mem {
	/** Give &m->mem to nghttp2_session_{server,client}_new3(). */
	nghttp2_mem mem;
	void *free[EWYK_HTTP2_MEM_CLASSES];     /**< free list per class */
	uint32_t nfree[EWYK_HTTP2_MEM_CLASSES]; /**< blocks on each list */
	uint64_t fresh; /**< blocks taken from malloc() for a class */
	uint64_t big;   /**< blocks over 4 KiB (malloc() each time) */
};

/** Set up @p m, with empty lists. */
void ewyk_http2_mem_init(struct ewyk_http2_mem *m);

/** Give back to free() every block @p m keeps; every session that used
 *  it must be gone. */
void ewyk_http2_mem_fini(struct ewyk_http2_mem *m);

#ifdef __cplusplus
}
#endif

#endif /* EWYK_HTTP2_MEM_H */
