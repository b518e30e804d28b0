/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for lib/http2's input path: bytes in, frames handled,
 * responses out. One server (tests/unit/http2_test_util.c's world and
 * handler: /hello, /bytes/<n>, /later, /body, 404) on a captured
 * transport; each input is one connection's bytes after the client
 * preface:
 *
 *   byte 0      how the rest is cut into reads (1 + b * 7 bytes each)
 *   byte 1      bit 0: the transport takes little at a time (3000 bytes
 *               per read, so frames wait and resume); bit 1: the peer's
 *               FIN comes at the end instead of a reset
 *   the rest    frames, fed as TCP would deliver them
 *
 * After the input, every stream kept for later (/later) is answered, then
 * the connection ends. Invariants (abort() on violation):
 *   - what the server wrote is whole HTTP/2 frames: 9-byte headers, known
 *     types, payloads no longer than the 16,384 the client allows;
 *   - at the end every connection and stream object is back, and every
 *     mbuf is back in the pool.
 *
 *   CC=clang CXX=clang++ meson setup build-fuzz -Dfuzz=true
 *   build-fuzz/tests/fuzz/fuzz_http2 tests/fuzz/corpus/http2
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_mbuf.h>

#include "fuzz_common.h"
#include "http2_test_util.h"

static struct h2t_world W;
static int ready;

/* Whole frames, in limits. */
static void
check_frames(const uint8_t *p, size_t n)
{
	size_t off = 0;

	while (off < n) {
		uint32_t len;

		if (n - off < 9)
			abort();
		len = ((uint32_t)p[off] << 16) | ((uint32_t)p[off + 1] << 8) |
			p[off + 2];
		if (len > 16384 || p[off + 3] > NGHTTP2_CONTINUATION ||
			n - off - 9 < len)
			abort();
		off += 9 + len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* At exit: the world's server (nghttp2's objects with it) goes. */
static void
world_free(void)
{
	h2t_fini(&W);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ewyk_http2_conf conf = { .max_conns = 4, .max_streams = 128 };
	size_t off, step;
	unsigned int i, avail;

	if (!ready) {
		if (rte_eal_init(8,
			    (char *[]){ (char *)"fuzz_http2",
				    (char *)"--no-huge", (char *)"-m",
				    (char *)"256", (char *)"--no-pci",
				    (char *)"--no-shconf",
				    (char *)"--no-telemetry",
				    (char *)"--log-level=error", NULL }) < 0 ||
			h2t_init(&W, &conf) != 0)
			abort();
		atexit(world_free);
		ready = 1;
	}
	if (size < 2)
		return 0;
	avail = rte_mempool_avail_count(W.pool);
	if (h2t_connect(&W, NULL, 0) != 0)
		abort();
	/* no client session: the input is the client */
	nghttp2_session_del(W.cli);
	W.cli = NULL;
	W.refill = (data[1] & 1) ? 3000 : 0;
	W.space = W.refill != 0 ? W.refill : UINT32_MAX / 2;
	step = 1 + (size_t)data[0] * 7;
	h2t_raw(&W, EWYK_HTTP2_PREFACE, EWYK_HTTP2_PREFACE_LEN);
	for (off = 2; off < size && W.c != NULL; off += step)
		h2t_raw(&W, data + off, RTE_MIN(step, size - off));
	h2t_pump(&W);
	for (i = 0; i < W.nlater; i++)
		if (W.later[i] != NULL && W.c != NULL)
			ewyk_http2_respond(W.later[i], 200, NULL, NULL, "ok",
				2);
	W.nlater = 0;
	h2t_pump(&W);
	check_frames(W.out, W.out_len);
	W.out_len = 0;
	if (W.c != NULL) {
		struct h2_conn *c = W.c;

		if (data[1] & 2) {
			c->eof = 1;
			h2_conn_flush(c);
		}
		if (W.c != NULL) {
			c->gone = 1;
			h2_conn_gone(c);
			W.c = NULL;
		}
	}
	check_frames(W.out, W.out_len);
	W.out_len = 0;
	if (ewyk_http2_server_conns(W.srv) != 0 ||
		ewyk_http2_server_streams(W.srv) != 0 ||
		rte_mempool_avail_count(W.pool) != avail)
		abort();
	return 0;
}
