/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Request-head parsing: ewyk's parser (scalar, SSE4.2 and AVX2 scanners)
 * beside picohttpparser, same binary, same requests, same run.
 *
 *   BM_ewyk_parse/<request>/<isa>  ewyk_http_parser_reset() +
 *                                  ewyk_http_parse() of the whole request
 *   BM_ewyk_parse_mbuf/<request>/<isa>
 *                                  the same through ewyk_http_parse_mbuf()
 *                                  on a one-segment mbuf (the TCP path)
 *   BM_pico_parse/<request>/<build>
 *                                  phr_parse_request() of the same bytes;
 *                                  <build> names the picohttpparser
 *                                  linked (below)
 *
 * Requests: "small" is `GET / HTTP/1.1` with a Host field (41 bytes);
 * "get" adds an Accept field (54 bytes); "browser" is the 703-byte Firefox
 * request of picohttpparser's own bench.c, byte for byte (Host,
 * User-Agent, Accept*, Keep-Alive, Connection, Cookie: 9 fields).
 *
 * One iteration = one request parsed. Both sides produce the same views:
 * method, path (target), version, and name/value views of every field.
 * ewyk does more on top: it checks every field name for tchar and values
 * for CTLs (pico too), splits the path from the query, recognises Host,
 * Content-Length, Transfer-Encoding, Connection and Expect and applies the
 * RFC 9112 framing rules (the answer's status for a malformed request),
 * and computes keep-alive. pico stops at "syntax is fine".
 *
 * Counters: bytes_per_cycle = request bytes / cycles, where cycles = the
 * thread's CPU time over the timed loop x the TSC rate (CPU time, not wall
 * time: the test machine is shared and wall time includes preemption);
 * items_per_second = requests/s (per CPU second, as Google Benchmark
 * reports it).
 *
 * picohttpparser: when a peers folder holds its source,
 * tests/bench/meson.build builds it twice into this binary: .../sse4.2 is
 * -O2 -msse4.2, its fastest normal build (its PCMPESTRI scanners are
 * compiled only where __SSE4_2__ is defined); .../generic is -O2 for
 * generic x86-64, its byte loop, as Debian builds it. Otherwise it is
 * Debian's build, from libh2o-evloop (package libh2o-evloop-dev):
 * .../debian-generic. Figures against pico at its best need the peers
 * folder. Debian ships no picohttpparser.h: the prototype and struct
 * phr_header are declared below, as in picohttpparser.h.
 *
 *   build/tests/bench/bench_http --benchmark_repetitions=5 \
 *       --benchmark_report_aggregates_only=true
 */

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <time.h>
#include <unistd.h>

#include <benchmark/benchmark.h>

#include "bench_common.h"

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include <ewyk_http.h>

#ifdef EWYK_BENCH_PICO
extern "C" {
/* As declared in picohttpparser.h (h2o/picohttpparser). */
struct phr_header {
	const char *name;
	size_t name_len;
	const char *value;
	size_t value_len;
};
typedef int(phr_parse_request_t)(const char *buf, size_t len,
	const char **method, size_t *method_len, const char **path,
	size_t *path_len, int *minor_version, struct phr_header *headers,
	size_t *num_headers, size_t last_len);
#ifdef EWYK_BENCH_PICO_PEERS
/* phr_parse_request() of each build tests/bench/meson.build makes */
phr_parse_request_t pico_sse42_parse_request;
phr_parse_request_t pico_generic_parse_request;
#else
phr_parse_request_t phr_parse_request;
#endif
}

#endif

namespace
{

const char small_req[] = "GET / HTTP/1.1\r\nHost: www.example.com\r\n\r\n";

const char get_req[] =
	"GET / HTTP/1.1\r\nHost: www.example.com\r\nAccept: */*\r\n\r\n";

const char browser_req[] =
	"GET /wp-content/uploads/2010/03/hello-kitty-darth-vader-pink.jpg HTTP/1.1\r\n"
	"Host: www.kittyhell.com\r\n"
	"User-Agent: Mozilla/5.0 (Macintosh; U; Intel Mac OS X 10.6; ja-JP-mac; rv:1.9.2.3) "
	"Gecko/20100401 Firefox/3.6.3 Pathtraq/0.9\r\n"
	"Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n"
	"Accept-Language: ja,en-us;q=0.7,en;q=0.3\r\n"
	"Accept-Encoding: gzip,deflate\r\n"
	"Accept-Charset: Shift_JIS,utf-8;q=0.7,*;q=0.7\r\n"
	"Keep-Alive: 115\r\n"
	"Connection: keep-alive\r\n"
	"Cookie: wp_ozh_wsa_visits=2; wp_ozh_wsa_visit_lasttime=xxxxxxxxxx; "
	"__utma=xxxxxxxxx.xxxxxxxxxx.xxxxxxxxxx.xxxxxxxxxx.xxxxxxxxxx.x; "
	"__utmz=xxxxxxxxx.xxxxxxxxxx.x.x.utmccn=(referral)|utmcsr=reader.livedoor.com|"
	"utmcct=/reader/|utmcmd=referral\r\n"
	"\r\n";

struct req_def {
	const char *name;
	const char *bytes;
	size_t len;
};

const req_def reqs[] = {
	{ "small", small_req, sizeof(small_req) - 1 },
	{ "get", get_req, sizeof(get_req) - 1 },
	{ "browser", browser_req, sizeof(browser_req) - 1 },
};

struct rte_mempool *g_mp;

uint64_t
cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* t0: cpu_ns() before the loop. Cycles = thread CPU time x TSC rate. */
void
set_counters(benchmark::State &state, size_t len, uint64_t t0)
{
	double cycles = (double)(cpu_ns() - t0) * (double)rte_get_tsc_hz() /
		1e9;

	state.SetItemsProcessed(state.iterations());
	state.SetBytesProcessed((int64_t)(state.iterations() * len));
	state.counters["bytes_per_cycle"] = cycles == 0 ?
		0.0 :
		(double)(state.iterations() * len) / cycles;
}

void
BM_ewyk_parse(benchmark::State &state, const req_def *r, ewyk_http_isa isa)
{
	static char scratch[EWYK_HTTP_DEF_MAX_LINE +
		EWYK_HTTP_DEF_MAX_HEADER_BYTES];
	struct ewyk_http_header hdr[64];
	struct ewyk_http_request req = {};
	struct ewyk_http_parser p;
	uint32_t used;
	uint64_t t0;
	int rc = -EINVAL;

	req.headers = hdr;
	req.max_headers = 64;
	if (ewyk_http_parser_init(&p, nullptr, scratch, sizeof(scratch)) != 0 ||
		ewyk_http_parser_set_isa(&p, isa) != 0) {
		state.SkipWithError("parser init / isa");
		return;
	}
	t0 = cpu_ns();
	for (auto _ : state) {
		ewyk_http_parser_reset(&p);
		rc = ewyk_http_parse(&p, &req, r->bytes, (uint32_t)r->len,
			&used);
		benchmark::DoNotOptimize(rc);
		benchmark::DoNotOptimize(req);
		benchmark::ClobberMemory();
	}
	set_counters(state, r->len, t0);
	/* the last parse must have succeeded, or nothing was measured */
	if (rc != EWYK_HTTP_DONE || req.nheaders == 0)
		state.SkipWithError("request not parsed");
}

void
BM_ewyk_parse_mbuf(benchmark::State &state, const req_def *r, ewyk_http_isa isa)
{
	static char scratch[EWYK_HTTP_DEF_MAX_LINE +
		EWYK_HTTP_DEF_MAX_HEADER_BYTES];
	struct ewyk_http_header hdr[64];
	struct ewyk_http_request req = {};
	struct ewyk_http_parser p;
	struct rte_mbuf *m;
	uint32_t used;
	uint64_t t0;
	int rc = 0;

	req.headers = hdr;
	req.max_headers = 64;
	m = rte_pktmbuf_alloc(g_mp);
	if (m == nullptr ||
		ewyk_http_parser_init(&p, nullptr, scratch, sizeof(scratch)) !=
			0 ||
		ewyk_http_parser_set_isa(&p, isa) != 0) {
		state.SkipWithError("mbuf / parser init / isa");
		return;
	}
	memcpy(rte_pktmbuf_append(m, (uint16_t)r->len), r->bytes, r->len);
	t0 = cpu_ns();
	for (auto _ : state) {
		ewyk_http_parser_reset(&p);
		rc = ewyk_http_parse_mbuf(&p, &req, m, 0, &used);
		benchmark::DoNotOptimize(rc);
		benchmark::DoNotOptimize(req);
		benchmark::ClobberMemory();
	}
	set_counters(state, r->len, t0);
	rte_pktmbuf_free(m);
	if (rc != EWYK_HTTP_DONE)
		state.SkipWithError("request not parsed");
}

#ifdef EWYK_BENCH_PICO
/* A direct call of each build's function, as ewyk's is. */
template <phr_parse_request_t *parse>
void
BM_pico_parse(benchmark::State &state, const req_def *r)
{
	struct phr_header hdr[64];
	const char *method, *path;
	size_t method_len, path_len, nh = 0;
	int minor, rc = 0;
	uint64_t t0;

	t0 = cpu_ns();
	for (auto _ : state) {
		nh = 64;
		rc = parse(r->bytes, r->len, &method, &method_len, &path,
			&path_len, &minor, hdr, &nh, 0);
		benchmark::DoNotOptimize(rc);
		benchmark::DoNotOptimize(method);
		benchmark::DoNotOptimize(path);
		benchmark::DoNotOptimize(hdr);
		benchmark::ClobberMemory();
	}
	set_counters(state, r->len, t0);
	if (rc != (int)r->len || nh == 0)
		state.SkipWithError("request not parsed");
}

struct pico_build {
	const char *name;
	void (*bm)(benchmark::State &state, const req_def *r);
};

const pico_build pico_builds[] = {
#ifdef EWYK_BENCH_PICO_PEERS
	{ "sse4.2", BM_pico_parse<pico_sse42_parse_request> },
	{ "generic", BM_pico_parse<pico_generic_parse_request> },
#else
	{ "debian-generic", BM_pico_parse<phr_parse_request> },
#endif
};
#endif

const char *
isa_name(ewyk_http_isa isa)
{
	switch (isa) {
	case EWYK_HTTP_ISA_AVX2:
		return "avx2";
	case EWYK_HTTP_ISA_SSE42:
		return "sse42";
	default:
		return "scalar";
	}
}

void
register_all(void)
{
	for (const req_def &r : reqs) {
		for (int i = EWYK_HTTP_ISA_SCALAR; i <= EWYK_HTTP_ISA_AVX2;
			i++) {
			ewyk_http_isa isa = (ewyk_http_isa)i;

			if (i > (int)ewyk_http_isa_best())
				break;
			benchmark::RegisterBenchmark(
				(std::string("BM_ewyk_parse/") + r.name + "/" +
					isa_name(isa))
					.c_str(),
				BM_ewyk_parse, &r, isa);
			benchmark::RegisterBenchmark(
				(std::string("BM_ewyk_parse_mbuf/") + r.name +
					"/" + isa_name(isa))
					.c_str(),
				BM_ewyk_parse_mbuf, &r, isa);
		}
#ifdef EWYK_BENCH_PICO
		for (const pico_build &b : pico_builds)
			benchmark::RegisterBenchmark(
				(std::string("BM_pico_parse/") + r.name + "/" +
					b.name)
					.c_str(),
				b.bm, &r);
#endif
	}
}

} // namespace

static void
free_pool(void)
{
	rte_mempool_free(g_mp);
	g_mp = nullptr;
}

int
main(int argc, char **argv)
{
	if (ewyk_bench::eal_init(argv[0], "http", { "-l", "0" }, 128) < 0)
		return 1;
	g_mp = rte_pktmbuf_pool_create("bench_http", 1023, 0, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (g_mp == nullptr) {
		fprintf(stderr, "bench_http: mbuf pool: %s\n",
			rte_strerror(rte_errno));
		rte_eal_cleanup();
		return 1;
	}
#ifndef EWYK_BENCH_PICO
	fprintf(stderr,
		"bench_http: picohttpparser was not found at build time: "
		"the BM_pico_parse peer is skipped\n");
#endif
	register_all();
	return ewyk_bench::run(argc, argv, free_pool);
}
