/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nghttp2's memory (nghttp2_mem, ewyk_http2_mem.h), per lcore: every session allocates and
 * frees a stream, its queued frames, their header copies and their
 * buffers for each request, through malloc() by default. Here small
 * blocks come back from per-size free lists of the shard (no lock, no
 * atomics: a session is only used by its shard's holder, one lcore at a
 * time as every other object of the shard, and the server is freed after
 * its lcores stopped), and only the first use
 * of a block, or one beyond the bounds, goes to malloc().
 *
 * A block carries its class in a header before it: classes of 64 to
 * 4,096 bytes (powers of two, the header included); larger requests go
 * to malloc() with a header saying so. Each list keeps at most
 * EWYK_HTTP2_MEM_KEEP blocks: what is freed beyond that goes back to free(), so
 * that a burst of streams leaves no more than EWYK_HTTP2_MEM_KEEP * 4 KiB per
 * class behind.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ewyk_http2_mem.h"

#define H2_MEM_HDR 16u
#define H2_MEM_BIG UINT32_MAX

struct h2_mem_blk {
	uint32_t cls;
	uint32_t pad[3]; /* keep the block 16-byte aligned */
};

static inline struct h2_mem_blk *
blk_of(void *p)
{
	return (struct h2_mem_blk *)((char *)p - H2_MEM_HDR);
}

/* The class of a block that gives @p size bytes, or H2_MEM_BIG. */
static inline uint32_t
cls_of(size_t size)
{
	size_t need = size + H2_MEM_HDR;

	if (need > ((size_t)1 << (EWYK_HTTP2_MEM_MIN_SHIFT +
			    EWYK_HTTP2_MEM_CLASSES - 1)))
		return H2_MEM_BIG;
	if (need <= ((size_t)1 << EWYK_HTTP2_MEM_MIN_SHIFT))
		return 0;
	/* the smallest power of two >= need, by its bit: no loop (nghttp2
	 * allocates several times a stream) */
	return (uint32_t)(64 - __builtin_clzll((unsigned long long)need - 1)) -
		EWYK_HTTP2_MEM_MIN_SHIFT;
}

static void *
h2_malloc(size_t size, void *user)
{
	struct ewyk_http2_mem *m = user;
	uint32_t c = cls_of(size);
	struct h2_mem_blk *b;
	void **head;

	if (c == H2_MEM_BIG) {
		b = malloc(size + H2_MEM_HDR);
		if (b == NULL)
			return NULL;
		b->cls = H2_MEM_BIG;
		m->big++;
		return (char *)b + H2_MEM_HDR;
	}
	head = m->free[c];
	if (head != NULL) {
		m->free[c] = *head;
		m->nfree[c]--;
		b = blk_of(head);
	} else {
		b = malloc((size_t)1 << (EWYK_HTTP2_MEM_MIN_SHIFT + c));
		if (b == NULL)
			return NULL;
		b->cls = c;
		m->fresh++;
	}
	return (char *)b + H2_MEM_HDR;
}

static void
h2_free(void *p, void *user)
{
	struct ewyk_http2_mem *m = user;
	struct h2_mem_blk *b;
	uint32_t c;

	if (p == NULL)
		return;
	b = blk_of(p);
	c = b->cls;
	if (c == H2_MEM_BIG || m->nfree[c] >= EWYK_HTTP2_MEM_KEEP) {
		free(b);
		return;
	}
	*(void **)p = m->free[c];
	m->free[c] = p;
	m->nfree[c]++;
}

static void *
h2_calloc(size_t n, size_t size, void *user)
{
	void *p;

	if (size != 0 && n > SIZE_MAX / size)
		return NULL;
	p = h2_malloc(n * size, user);
	if (p != NULL)
		memset(p, 0, n * size);
	return p;
}

static void *
h2_realloc(void *p, size_t size, void *user)
{
	struct h2_mem_blk *b;
	size_t have;
	void *q;

	if (p == NULL)
		return h2_malloc(size, user);
	if (size == 0) {
		h2_free(p, user);
		return NULL;
	}
	b = blk_of(p);
	if (b->cls == H2_MEM_BIG) {
		b = realloc(b, size + H2_MEM_HDR);
		return b != NULL ? (char *)b + H2_MEM_HDR : NULL;
	}
	have = ((size_t)1 << (EWYK_HTTP2_MEM_MIN_SHIFT + b->cls)) - H2_MEM_HDR;
	if (size <= have)
		return p;
	q = h2_malloc(size, user);
	if (q == NULL)
		return NULL;
	memcpy(q, p, have);
	h2_free(p, user);
	return q;
}

void
ewyk_http2_mem_init(struct ewyk_http2_mem *m)
{
	memset(m, 0, sizeof(*m));
	m->mem.mem_user_data = m;
	m->mem.malloc = h2_malloc;
	m->mem.free = h2_free;
	m->mem.calloc = h2_calloc;
	m->mem.realloc = h2_realloc;
}

void
ewyk_http2_mem_fini(struct ewyk_http2_mem *m)
{
	unsigned int c;
	void *p;

	for (c = 0; c < EWYK_HTTP2_MEM_CLASSES; c++) {
		while ((p = m->free[c]) != NULL) {
			m->free[c] = *(void **)p;
			free(blk_of(p));
		}
		m->nfree[c] = 0;
	}
}
