/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ewyk-loadgen [EAL args] -- --ip A.B.C.D/NN --target IP:PORT --conns N
 * (or, over IPv6, --ip6 ADDR/LEN --target [ADDR]:PORT)
 *     --duration SECONDS [options]
 *
 * An application of the runtime (lib/runtime): the runtime sets up the
 * EAL, the port, the lcores and their shards and runs the loop; the
 * client is a module of it (client.c). Every lcore of the EAL core list
 * is a worker with a shard of its own (one RX/TX queue of the port);
 * --conns are spread evenly over them. Everything but the final JSON line
 * goes to stderr (the EAL's log and the runtime's lines too), so stdout
 * holds that one line and nothing after it.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>

#include <ewyk_runtime.h>

#include "h2.h"
#include "idle.h"
#include "loadgen.h"

static int
parse_double(const char *name, const char *s, double min, double max,
	double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !isfinite(v) || v < min ||
		v > max) {
		fprintf(stderr,
			"error: --%s '%s': expected a number in %g..%g\n", name,
			s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

static int
parse_uint(const char *name, const char *s, unsigned long min,
	unsigned long max, unsigned int *out)
{
	unsigned long v;

	if (ewyk_rt_opt_ulong(name, s, min, max, &v) != 0)
		return -1;
	*out = (unsigned int)v;
	return 0;
}

static int
parse_path(const char *name, const char *arg, char *out, size_t size)
{
	size_t i, n = strlen(arg);

	if (n == 0 || n >= size || arg[0] != '/')
		goto bad;
	for (i = 0; i < n; i++)
		if ((unsigned char)arg[i] <= ' ' || arg[i] == 0x7f)
			goto bad;
	memcpy(out, arg, n + 1);
	return 0;
bad:
	fprintf(stderr,
		"error: --%s '%s': expected an origin-form target: '/', then at most %zu bytes without spaces or controls\n",
		name, arg, size - 2);
	return -1;
}

/* The options of the client; the runtime's (--ip, --mbufs, the TCP
 * limits, ...) come with them. */

/* An IPv6 --target: "[ADDR]:PORT"; 0 with the address, -1. */
static int
target6(struct lg_conf *c, const char *a, const char **colon)
{
	const char *end = strchr(a, ']');
	char ip[INET6_ADDRSTRLEN];
	static const uint8_t zero[16];

	if (end == NULL || end[1] != ':' || (size_t)(end - a - 1) >= sizeof(ip))
		return -1;
	memcpy(ip, a + 1, (size_t)(end - a - 1));
	ip[end - a - 1] = '\0';
	if (inet_pton(AF_INET6, ip, c->dst_ip6) != 1 ||
		memcmp(c->dst_ip6, zero, 16) == 0 || c->dst_ip6[0] == 0xff)
		return -1;
	*colon = end + 1;
	return 0;
}

static int
opt_target(const char *a, void *arg)
{
	struct lg_conf *c = arg;
	const char *colon = strrchr(a, ':');
	char ip[INET_ADDRSTRLEN];
	unsigned long port;
	struct in_addr in = { .s_addr = 0 };

	c->ipv6 = a[0] == '[';
	if (c->ipv6) {
		if (target6(c, a, &colon) != 0)
			goto bad;
	} else {
		if (colon == NULL || colon == a ||
			(size_t)(colon - a) >= sizeof(ip))
			goto bad;
		memcpy(ip, a, (size_t)(colon - a));
		ip[colon - a] = '\0';
		if (inet_pton(AF_INET, ip, &in) != 1 || in.s_addr == 0)
			goto bad;
	}
	if (colon[1] < '0' || colon[1] > '9')
		goto bad;
	errno = 0;
	port = strtoul(colon + 1, NULL, 10);
	if (strspn(colon + 1, "0123456789") != strlen(colon + 1) ||
		errno != 0 || port < 1 || port > 65535)
		goto bad;
	c->dst_ip = in.s_addr;
	c->dst_port = (uint16_t)port;
	return 0;
bad:
	fprintf(stderr,
		"error: --target '%s': expected A.B.C.D:PORT or [IPV6]:PORT\n",
		a);
	return -1;
}

static int
opt_conns(const char *a, void *arg)
{
	return parse_uint("conns", a, 1, LG_MAX_CONNS,
		&((struct lg_conf *)arg)->conns);
}

static int
opt_duration(const char *a, void *arg)
{
	return parse_double("duration", a, 0.001, 86400,
		&((struct lg_conf *)arg)->duration_s);
}

static int
opt_warmup(const char *a, void *arg)
{
	return parse_double("warmup", a, 0, 3600,
		&((struct lg_conf *)arg)->warmup_s);
}

static int
opt_path(const char *a, void *arg)
{
	struct lg_conf *c = arg;

	return parse_path("path", a, c->path, sizeof(c->path));
}

static int
opt_mix_path(const char *a, void *arg)
{
	struct lg_conf *c = arg;

	return parse_path("mix-path", a, c->mix_path, sizeof(c->mix_path));
}

static int
opt_mix_percent(const char *a, void *arg)
{
	return parse_double("mix-percent", a, 0, 100,
		&((struct lg_conf *)arg)->mix_percent);
}

static int
opt_pipeline(const char *a, void *arg)
{
	return parse_uint("pipeline", a, 1, LG_MAX_PIPELINE,
		&((struct lg_conf *)arg)->pipeline);
}

static int
opt_new_conn(const char *a, void *arg)
{
	RTE_SET_USED(a);
	((struct lg_conf *)arg)->new_conn = true;
	return 0;
}

static int
opt_rate(const char *a, void *arg)
{
	return parse_double("rate", a, 1, 1e9, &((struct lg_conf *)arg)->rate);
}

static int
opt_timeout(const char *a, void *arg)
{
	return parse_uint("timeout", a, 1, 3600000,
		&((struct lg_conf *)arg)->timeout_ms);
}

static int
opt_h2(const char *a, void *arg)
{
	RTE_SET_USED(a);
	((struct lg_conf *)arg)->h2 = true;
	return 0;
}

static int
opt_streams(const char *a, void *arg)
{
	return parse_uint("streams", a, 1, LG_MAX_STREAMS,
		&((struct lg_conf *)arg)->streams);
}

static int
opt_idle(const char *a, void *arg)
{
	return parse_uint("idle", a, 1, LG_IDLE_MAX,
		&((struct lg_conf *)arg)->idle);
}

static int
opt_src_addrs(const char *a, void *arg)
{
	return parse_uint("src-addrs", a, 1, LG_SRC_ADDRS_MAX,
		&((struct lg_conf *)arg)->src_addrs);
}

static int
opt_quiet(const char *a, void *arg)
{
	RTE_SET_USED(a);
	((struct lg_conf *)arg)->quiet = true;
	return 0;
}

static int
opt_hold(const char *a, void *arg)
{
	RTE_SET_USED(a);
	((struct lg_conf *)arg)->hold = true;
	return 0;
}

static int
opt_window_marks(const char *a, void *arg)
{
	RTE_SET_USED(a);
	((struct lg_conf *)arg)->window_marks = true;
	return 0;
}

#define LG_OPT(n, has, h, fn)                                     \
	{                                                         \
		.name = n, .has_arg = has, .help = h, .parse = fn \
	}

static struct ewyk_rt_opt lg_opts[] = {
	LG_OPT("target", 1,
		"IP:PORT or [IPV6]:PORT: the HTTP server (required; IPv6 needs --ip6)",
		opt_target),
	LG_OPT("conns", 1,
		"N: connections (1..65536), spread over the lcores (required)",
		opt_conns),
	LG_OPT("duration", 1,
		"S: measured seconds (> 0, decimals allowed; required)",
		opt_duration),
	LG_OPT("warmup", 1, "S: seconds before measuring (default 0)",
		opt_warmup),
	LG_OPT("path", 1, "P: request target (default /)", opt_path),
	LG_OPT("mix-path", 1,
		"P: a second target, for --mix-percent of requests",
		opt_mix_path),
	LG_OPT("mix-percent", 1, "X: 0..100 (default 0)", opt_mix_percent),
	LG_OPT("pipeline", 1,
		"D: requests in flight per connection (1..256, default 1)",
		opt_pipeline),
	LG_OPT("new-conn", 0,
		"one request per connection: connect, request, response, close",
		opt_new_conn),
	LG_OPT("rate", 1,
		"R: open loop at R requests/s in all (default: closed loop)",
		opt_rate),
	LG_OPT("timeout", 1,
		"MS: a response (or connect) later than this is an error (default 5000)",
		opt_timeout),
	LG_OPT("h2", 0,
		"HTTP/2 (h2c, prior knowledge): one nghttp2 session per connection",
		opt_h2),
	LG_OPT("streams", 1,
		"M: with --h2, requests open per connection (1..1024, default 1; the server's SETTINGS_MAX_CONCURRENT_STREAMS caps it)",
		opt_streams),
	LG_OPT("idle", 1,
		"N: also open N keep-alive connections before the run, one request each, hold them silent while --conns measure, then one more request each (docs/guides/http.md)",
		opt_idle),
	LG_OPT("src-addrs", 1,
		"N: the idle connections' source addresses: --ip and the N - 1 after it, in turn (1..64, default 1; the port answers ARP for all)",
		opt_src_addrs),
	LG_OPT("quiet", 0, "no live line", opt_quiet),
	LG_OPT("hold", 0,
		"after the JSON line, keep the port up until SIGINT/SIGTERM (a memif server is then not disconnected while it polls)",
		opt_hold),
	LG_OPT("window-marks", 0,
		"print {\"window\": \"open\"} and {\"window\": \"closed\"} lines on stdout as the measured window opens and closes, before the JSON line (a caller reads the server's counters then)",
		opt_window_marks),
};

static int
parse_args(int argc, char **argv, struct ewyk_rt_conf *rc, struct lg_conf *c)
{
	unsigned int i;
	int rc_parse;

	strcpy(c->path, "/");
	c->pipeline = 1;
	c->timeout_ms = 5000;
	c->src_addrs = 1;
	for (i = 0; i < RTE_DIM(lg_opts); i++)
		lg_opts[i].arg = c;
	rc_parse = ewyk_rt_parse_args(rc, argc, argv, lg_opts,
		RTE_DIM(lg_opts));
	if (rc_parse != 0)
		return rc_parse;
	if ((c->dst_ip == 0 && !c->ipv6) || c->conns == 0 ||
		c->duration_s == 0) {
		fprintf(stderr,
			"error: --ip, --target, --conns and --duration are required\n");
		return -1;
	}
	if (rc->nb_ips != 1) {
		fprintf(stderr,
			"error: --ip: ewyk-loadgen drives one port: one --ip\n");
		return -1;
	}
	if (c->ipv6 && rc->nb_ip6s != 1) {
		fprintf(stderr,
			"error: --target [IPV6]:PORT needs the port's --ip6 (the source)\n");
		return -1;
	}
	if (c->new_conn && c->pipeline != 1) {
		fprintf(stderr,
			"error: --new-conn sends one request per connection: --pipeline must be 1\n");
		return -1;
	}
	if (c->streams != 0 && !c->h2) {
		fprintf(stderr, "error: --streams needs --h2\n");
		return -1;
	}
	if (c->h2 && (c->new_conn || c->pipeline != 1)) {
		fprintf(stderr,
			"error: --h2 keeps connections and opens streams: no --new-conn or --pipeline (use --streams)\n");
		return -1;
	}
	if (c->h2 && c->streams == 0)
		c->streams = 1;
	/* Stream records are made for every connection up front. */
	if (c->h2 && (uint64_t)c->conns * c->streams > LG_MAX_H2_STREAMS) {
		fprintf(stderr,
			"error: --conns x --streams: at most %u streams in all\n",
			LG_MAX_H2_STREAMS);
		return -1;
	}
	if (c->idle > 0 && c->new_conn) {
		fprintf(stderr,
			"error: --idle holds keep-alive connections: not with --new-conn\n");
		return -1;
	}
	rc->nb_extra_ips = c->src_addrs - 1;
	/* The sources are ours to answer ARP for: the target is not one. */
	if (!c->ipv6 &&
		rte_be_to_cpu_32(c->dst_ip) - rte_be_to_cpu_32(rc->ip[0]) <
			c->src_addrs) {
		fprintf(stderr,
			"error: --target is among the loadgen's own addresses (--ip and the --src-addrs after it)\n");
		return -1;
	}
	if (c->mix_percent > 0 && c->mix_path[0] == '\0') {
		fprintf(stderr, "error: --mix-percent needs --mix-path\n");
		return -1;
	}
	return 0;
}

/* The request bytes, once. */
static int
build_request(const struct lg_conf *c, const char *path, char *buf,
	uint32_t *len)
{
	char ip[INET6_ADDRSTRLEN];
	int n;

	if (c->ipv6)
		inet_ntop(AF_INET6, c->dst_ip6, ip, sizeof(ip));
	else
		inet_ntop(AF_INET, &c->dst_ip, ip, sizeof(ip));
	n = snprintf(buf, LG_REQ_MAX,
		"GET %s HTTP/1.1\r\nHost: %s%s%s:%u\r\n\r\n", path,
		c->ipv6 ? "[" : "", ip, c->ipv6 ? "]" : "", c->dst_port);
	if (n < 0 || n >= LG_REQ_MAX)
		return -1;
	*len = (uint32_t)n;
	return 0;
}

/*
 * The runtime's configuration for a client: no strategy (the loadgen
 * dispatches nothing, so no reserved or shared threads), no stats table
 * but at exit (the live line is the loadgen's), and TCP as a client needs
 * it: no per-source limit (every connection goes to one server), no idle
 * reset, and short TIME_WAIT (a few; beyond 1024 closed at once) so that
 * --new-conn does not run out of connections or local ports. Options
 * given on the command line override these.
 */
static void
client_defaults(struct ewyk_rt_conf *rc)
{
	ewyk_rt_conf_init(rc, "ewyk-loadgen");
	rc->strategy = EWYK_STRATEGY_PC;
	rc->shared_reserved = 0;
	rc->stats_interval = 0;
	rc->tcp_max_per_src = 0;
	rc->tcp_idle_ms = 0;
	/* From --conns unless given: a value no option gives. */
	rc->tcp_max_conns = UINT_MAX;
	rc->tcp_time_wait_ms = 1000;
	rc->tcp_max_time_wait = 1024;
}

/* The shards' connection objects: a shard's slots, plus the connections
 * we closed that linger in TIME_WAIT. */
static void
client_tcp_limits(struct ewyk_rt_conf *rc, const struct lg_conf *c)
{
	unsigned int workers = rte_lcore_count() > rc->reserved ?
		rte_lcore_count() - rc->reserved :
		1;
	unsigned int nslots = (c->conns + workers - 1) / workers;
	unsigned int nidle = (c->idle + workers - 1) / workers;

	if (rc->tcp_max_conns != UINT_MAX)
		return;
	/* the idle set closes once: its TIME_WAITs beyond the bound are
	 * closed at once, they need no second object */
	rc->tcp_max_conns = RTE_MIN(RTE_MAX(2 * nslots + nidle + 1024, 4096u),
		EWYK_RT_MAX_CONNS);
	/* The checks of the options derived HTTP's limits from the mark;
	 * ewyk_rt_create() derives them again (the loadgen serves none). */
	if (rc->http_max_conns == UINT_MAX) {
		rc->http_max_conns = 0;
		rc->http_max_per_src = 0;
	}
}

/* --hold: the port stays up (nothing polls it) until SIGINT or SIGTERM,
 * which ewyk_rt_eal_init() blocked in every thread. */
static void
hold(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigwait(&set, &sig);
}

int
main(int argc, char **argv)
{
	struct ewyk_rt_module mod = {
		.name = "loadgen",
		.init = lg_shard_init,
		.poll = lg_shard_poll,
		.fini = lg_shard_fini,
	};
	struct ewyk_rt_module idle_mod = {
		.name = "loadgen-idle",
		.init = lg_idle_init,
		.poll = lg_idle_poll,
		.fini = lg_idle_fini,
	};
	struct ewyk_rt_conf rc;
	struct ewyk_rt *rt;
	struct lg *g;
	int json_fd, ret;

	/* stdout is the JSON line's: everything else (the EAL's log, the
	 * runtime's lines and its stats table) goes to stderr. */
	fflush(stdout);
	json_fd = dup(STDOUT_FILENO);
	if (json_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		perror("error: stdout");
		return 1;
	}
	rte_openlog_stream(stderr);
	if (ewyk_rt_eal_init(&argc, &argv) != 0)
		return 1;
	argv[0] = (char *)(uintptr_t) "ewyk-loadgen";
	g = rte_zmalloc("loadgen", sizeof(*g), RTE_CACHE_LINE_SIZE);
	if (g == NULL) {
		fprintf(stderr, "error: out of memory (try a larger -m)\n");
		rte_eal_cleanup();
		return 1;
	}
	client_defaults(&rc);
	ret = parse_args(argc, argv, &rc, &g->conf);
	if (ret == 0 &&
		(build_request(&g->conf, g->conf.path, g->req, &g->req_len) !=
				0 ||
			(g->conf.mix_path[0] != '\0' &&
				build_request(&g->conf, g->conf.mix_path,
					g->mreq, &g->mreq_len) != 0))) {
		fprintf(stderr, "error: --path: the request is too long\n");
		ret = -1;
	}
	if (ret != 0) {
		rte_free(g);
		rte_eal_cleanup();
		return ret > 0 ? 0 : 2;
	}
	g->mix_threshold = (uint32_t)(g->conf.mix_percent / 100.0 *
		4294967295.0);
	g->hz = rte_get_tsc_hz();
	g->ns_mult = (uint64_t)(((unsigned __int128)1000000000 << 32) / g->hz);
	g->stall_tsc = g->hz / 1000000 * LG_STALL_US;
	g->timeout_tsc = g->hz * g->conf.timeout_ms / 1000;
	if (rte_eth_dev_count_avail() != 1) {
		fprintf(stderr,
			"error: %u ports: ewyk-loadgen drives exactly one (e.g. --vdev=net_memif0,role=client or --vdev=net_af_packet0,iface=veth0)\n",
			rte_eth_dev_count_avail());
		rte_free(g);
		rte_eal_cleanup();
		return 1;
	}
	client_tcp_limits(&rc, &g->conf);
	if (g->conf.h2 && lg_h2_setup(g) != 0) {
		fprintf(stderr, "error: --h2: out of memory\n");
		rte_free(g);
		rte_eal_cleanup();
		return 1;
	}
	rt = ewyk_rt_create(&rc);
	if (rt == NULL) {
		lg_h2_teardown(g);
		rte_free(g);
		rte_eal_cleanup();
		return 1;
	}
	g->rt = rt;
	g->nb_lcores = (uint16_t)ewyk_rt_nb_shards(rt);
	mod.arg = g;
	idle_mod.arg = g;
	if ((g->conf.idle > 0 &&
		    (lg_idle_alloc(g) != 0 ||
			    ewyk_rt_module_add(rt, &idle_mod) != 0)) ||
		ewyk_rt_module_add(rt, &mod) != 0) {
		ewyk_rt_free(rt);
		lg_h2_teardown(g);
		lg_idle_release(g);
		rte_free(g);
		rte_eal_cleanup();
		return 1;
	}
	fprintf(stderr,
		"ewyk-loadgen: %u connection(s) on %u lcore(s), pipeline %u, %s, %s; warm-up %.1f s, %.1f s measured\n",
		g->conf.conns, g->nb_lcores, g->conf.pipeline,
		g->conf.new_conn ? "new connection per request" : "keep-alive",
		g->conf.rate > 0 ? "open loop" : "closed loop",
		g->conf.warmup_s, g->conf.duration_s);
	if (g->conf.h2)
		fprintf(stderr,
			"ewyk-loadgen: HTTP/2 (h2c, prior knowledge), up to %u stream(s) per connection\n",
			g->conf.streams);
	if (ewyk_rt_run(rt) != 0) {
		ewyk_rt_free(rt);
		lg_h2_teardown(g);
		lg_idle_release(g);
		rte_free(g);
		rte_eal_cleanup();
		return 1;
	}

	/* The one line of stdout. */
	fflush(stdout);
	dup2(json_fd, STDOUT_FILENO);
	ret = lg_report_final(g);
	dup2(STDERR_FILENO, STDOUT_FILENO);
	/* Nothing polls the port any more; it stays up until we are told
	 * (unless a signal ended the run already). */
	if (g->conf.hold && lg_finished(g))
		hold();
	ewyk_rt_free(rt);
	lg_h2_teardown(g);
	lg_idle_release(g);
	rte_free(g);
	rte_eal_cleanup();
	return ret == 0 ? 0 : 1;
}
