/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ewyk-loadgen [EAL args] -- --ip A.B.C.D/NN --target IP:PORT --conns N
 *     --duration SECONDS [options]
 *
 * Every lcore of the EAL core list is a client lcore with a shard of its
 * own (one RX/TX queue of the port); --conns are spread evenly over
 * them. Everything but the final JSON line goes to stderr (the EAL's log
 * too), so stdout holds that one line and nothing after it.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "app_common.h"
#include "loadgen.h"

static void
usage(const char *prog)
{
	fprintf(stderr,
		"Usage: %s [EAL args] -- --ip A.B.C.D/NN --target IP:PORT --conns N --duration S [options]\n"
		"  --ip A.B.C.D/NN     our address on the port\n"
		"  --target IP:PORT    the HTTP server\n"
		"  --conns N           connections (1..%d), spread over the lcores\n"
		"  --duration S        measured seconds (> 0, decimals allowed)\n"
		"  --warmup S          seconds before measuring (default 0)\n"
		"  --path P            request target (default /)\n"
		"  --mix-path P        a second target, for --mix-percent of requests\n"
		"  --mix-percent X     0..100 (default 0)\n"
		"  --pipeline D        requests in flight per connection (1..%d, default 1)\n"
		"  --new-conn          one request per connection: connect, request, response, close\n"
		"  --rate R            open loop at R requests/s in all (default: closed loop)\n"
		"  --timeout MS        a response (or connect) later than this is an error (default 5000)\n"
		"  --mbufs N           mbufs per lcore (default 16383)\n"
		"  --quiet             no live line\n"
		"  --hold              after the JSON line, keep the port up until SIGINT/SIGTERM\n"
		"                      (a memif server is then not disconnected while it polls)\n"
		"  -h, --help          this text\n"
		"Prints a live line per second on stderr, and one JSON line on stdout at the end.\n",
		prog, LG_MAX_CONNS, LG_MAX_PIPELINE);
}

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

	if (ewyk_app_opt_ulong(name, s, min, max, &v) != 0)
		return -1;
	*out = (unsigned int)v;
	return 0;
}

/* "A.B.C.D/NN" (sep '/') or "A.B.C.D:PORT" (sep ':'). */
static int
parse_pair(const char *name, const char *arg, char sep, unsigned long max,
	rte_be32_t *ip, unsigned int *n)
{
	unsigned long v;

	if (ewyk_app_parse_ip_num(arg, sep, max, ip, &v) == 0) {
		*n = (unsigned int)v;
		return 0;
	}
	fprintf(stderr, "error: --%s '%s': expected %s\n", name, arg,
		sep == '/' ? "A.B.C.D/NN" : "A.B.C.D:PORT");
	return -1;
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

enum {
	OPT_IP = 256,
	OPT_TARGET,
	OPT_CONNS,
	OPT_DURATION,
	OPT_WARMUP,
	OPT_PATH,
	OPT_MIX_PATH,
	OPT_MIX_PERCENT,
	OPT_PIPELINE,
	OPT_NEW_CONN,
	OPT_RATE,
	OPT_TIMEOUT,
	OPT_MBUFS,
	OPT_QUIET,
	OPT_HOLD,
};

static const struct option lg_opts[] = {
	{ "ip", required_argument, NULL, OPT_IP },
	{ "target", required_argument, NULL, OPT_TARGET },
	{ "conns", required_argument, NULL, OPT_CONNS },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "path", required_argument, NULL, OPT_PATH },
	{ "mix-path", required_argument, NULL, OPT_MIX_PATH },
	{ "mix-percent", required_argument, NULL, OPT_MIX_PERCENT },
	{ "pipeline", required_argument, NULL, OPT_PIPELINE },
	{ "new-conn", no_argument, NULL, OPT_NEW_CONN },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "mbufs", required_argument, NULL, OPT_MBUFS },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "hold", no_argument, NULL, OPT_HOLD },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int
parse_opt(void *conf, int o, const char *a)
{
	struct lg_conf *c = conf;
	unsigned int v;

	switch (o) {
	case OPT_IP:
		if (parse_pair("ip", a, '/', 32, &c->ip, &v) != 0)
			return -1;
		c->prefix = (uint8_t)v;
		return 0;
	case OPT_TARGET:
		if (parse_pair("target", a, ':', 65535, &c->dst_ip, &v) != 0)
			return -1;
		c->dst_port = (uint16_t)v;
		return 0;
	case OPT_CONNS:
		return parse_uint("conns", a, 1, LG_MAX_CONNS, &c->conns);
	case OPT_DURATION:
		return parse_double("duration", a, 0.001, 86400,
			&c->duration_s);
	case OPT_WARMUP:
		return parse_double("warmup", a, 0, 3600, &c->warmup_s);
	case OPT_PATH:
		return parse_path("path", a, c->path, sizeof(c->path));
	case OPT_MIX_PATH:
		return parse_path("mix-path", a, c->mix_path,
			sizeof(c->mix_path));
	case OPT_MIX_PERCENT:
		return parse_double("mix-percent", a, 0, 100, &c->mix_percent);
	case OPT_PIPELINE:
		return parse_uint("pipeline", a, 1, LG_MAX_PIPELINE,
			&c->pipeline);
	case OPT_NEW_CONN:
		c->new_conn = true;
		return 0;
	case OPT_RATE:
		return parse_double("rate", a, 1, 1e9, &c->rate);
	case OPT_TIMEOUT:
		return parse_uint("timeout", a, 1, 3600000, &c->timeout_ms);
	case OPT_MBUFS:
		return parse_uint("mbufs", a, 1023, 1u << 22, &c->nb_mbufs);
	case OPT_QUIET:
		c->quiet = true;
		return 0;
	case OPT_HOLD:
		c->hold = true;
		return 0;
	default:
		return -1;
	}
}

static int
parse_args(int argc, char **argv, struct lg_conf *c)
{
	strcpy(c->path, "/");
	c->pipeline = 1;
	c->timeout_ms = 5000;
	c->nb_mbufs = 16383;
	if (ewyk_app_parse_opts(argc, argv, lg_opts, usage, parse_opt, c) != 0)
		return -1;
	if (c->ip == 0 || c->dst_ip == 0 || c->conns == 0 ||
		c->duration_s == 0) {
		fprintf(stderr,
			"error: --ip, --target, --conns and --duration are required\n");
		return -1;
	}
	if (c->new_conn && c->pipeline != 1) {
		fprintf(stderr,
			"error: --new-conn sends one request per connection: --pipeline must be 1\n");
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
	char ip[INET_ADDRSTRLEN];
	int n;

	inet_ntop(AF_INET, &c->dst_ip, ip, sizeof(ip));
	n = snprintf(buf, LG_REQ_MAX, "GET %s HTTP/1.1\r\nHost: %s:%u\r\n\r\n",
		path, ip, c->dst_port);
	if (n < 0 || n >= LG_REQ_MAX)
		return -1;
	*len = (uint32_t)n;
	return 0;
}

static void
on_signal(int sig)
{
	(void)sig;
	lg_request_stop();
}

static int
setup(struct lg *g)
{
	struct rte_mempool *pools[LG_MAX_LCORES];
	unsigned int ids[LG_MAX_LCORES];
	struct ewyk_net_port_conf pc;
	struct ewyk_net_port_info info;
	unsigned int i;
	int n;

	if (rte_eth_dev_count_avail() != 1) {
		fprintf(stderr,
			"error: %u ports: ewyk-loadgen drives exactly one (e.g. --vdev=net_memif0,role=client or --vdev=net_af_packet0,iface=veth0)\n",
			rte_eth_dev_count_avail());
		return -1;
	}
	n = ewyk_app_lcores(ids, LG_MAX_LCORES);
	if (n < 0)
		return -1;
	g->nb_lcores = (uint16_t)n;
	for (i = 0; i < g->nb_lcores; i++) {
		struct lg_lcore *lc = &g->lc[i];

		lc->id = i;
		lc->app = g;
		lc->lcore_id = ids[i];
		lc->pool = ewyk_app_pool_create("lg_mbuf_", i, g->conf.nb_mbufs,
			lc->lcore_id, NULL);
		if (lc->pool == NULL)
			return -1;
		pools[i] = lc->pool;
	}
	g->net = ewyk_app_net_create(g->nb_lcores);
	if (g->net == NULL)
		return -1;
	memset(&pc, 0, sizeof(pc));
	RTE_ETH_FOREACH_DEV (pc.port_id)
		break;
	pc.ip = g->conf.ip;
	pc.prefix_len = g->conf.prefix;
	pc.rx_pools = pools;
	if (ewyk_app_port_add(g->net, &pc, &info) != 0)
		return -1;
	for (i = 0; i < g->nb_lcores; i++) {
		struct lg_lcore *lc = &g->lc[i];
		/* Connections spread evenly; the first lcores take the rest. */
		uint32_t k = g->conf.conns / g->nb_lcores +
			(i < g->conf.conns % g->nb_lcores);

		lc->shard = ewyk_app_shard_create(g->net, (uint16_t)i,
			lc->lcore_id, lc->pool);
		if (lc->shard == NULL || lg_lcore_init(g, lc, k) != 0)
			return -1;
	}
	fprintf(stderr, "ewyk-loadgen: port %u mtu %u, %u lcore(s), rss %s\n",
		pc.port_id, info.mtu, g->nb_lcores, info.rss ? "on" : "off");
	return 0;
}

static void
teardown(struct lg *g)
{
	unsigned int i;

	for (i = 0; i < g->nb_lcores; i++)
		lg_lcore_free(&g->lc[i]);
	ewyk_net_free(g->net);
	g->net = NULL;
}

/* Up to 3 s for the link (af_packet and memif come up fast). */
static void
wait_link(struct lg *g)
{
	uint16_t pid = ewyk_net_port_id(g->net, 0);
	struct rte_eth_link link;

	if (ewyk_app_wait_link(pid, &link))
		return;
	fprintf(stderr, "ewyk-loadgen: warning: port %u link down\n", pid);
}

int
main(int argc, char **argv)
{
	struct lg *g;
	unsigned int i;

	/* EAL and lib logs go to stderr: stdout is the JSON line's. */
	rte_openlog_stream(stderr);
	if (ewyk_app_eal_init(&argc, &argv, "ewyk-loadgen") != 0)
		return 1;
	g = rte_zmalloc("loadgen", sizeof(*g), RTE_CACHE_LINE_SIZE);
	if (g == NULL) {
		fprintf(stderr, "error: out of memory (try a larger -m)\n");
		rte_eal_cleanup();
		return 1;
	}
	if (parse_args(argc, argv, &g->conf) != 0 ||
		build_request(&g->conf, g->conf.path, g->req, &g->req_len) !=
			0 ||
		(g->conf.mix_path[0] != '\0' &&
			build_request(&g->conf, g->conf.mix_path, g->mreq,
				&g->mreq_len) != 0)) {
		usage(argv[0]);
		rte_free(g);
		rte_eal_cleanup();
		return 2;
	}
	g->mix_threshold = (uint32_t)(g->conf.mix_percent / 100.0 *
		4294967295.0);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	g->hz = rte_get_tsc_hz();
	if (setup(g) != 0) {
		teardown(g);
		rte_free(g);
		rte_eal_cleanup();
		return 1;
	}
	wait_link(g);
	ewyk_net_announce(g->lc[0].shard);
	ewyk_net_tx_flush(g->lc[0].shard);

	g->timeout_tsc = g->hz * g->conf.timeout_ms / 1000;
	g->t_start = rte_rdtsc() + g->hz / 100;
	g->t_measure = g->t_start + (uint64_t)(g->conf.warmup_s * g->hz);
	g->t_end = g->t_measure + (uint64_t)(g->conf.duration_s * g->hz);
	fprintf(stderr,
		"ewyk-loadgen: %u connection(s), pipeline %u, %s, %s; warm-up %.1f s, %.1f s measured\n",
		g->conf.conns, g->conf.pipeline,
		g->conf.new_conn ? "new connection per request" : "keep-alive",
		g->conf.rate > 0 ? "open loop" : "closed loop",
		g->conf.warmup_s, g->conf.duration_s);
	for (i = 1; i < g->nb_lcores; i++)
		rte_eal_remote_launch(lg_lcore_main, &g->lc[i],
			g->lc[i].lcore_id);
	lg_lcore_main(&g->lc[0]);
	rte_eal_mp_wait_lcore();

	lg_report_final(g);
	/* Nothing polls the port any more; it stays up until we are told. */
	while (g->conf.hold && !lg_stopping())
		rte_delay_us_sleep(10000);
	teardown(g);
	rte_free(g);
	rte_eal_cleanup();
	return 0;
}
