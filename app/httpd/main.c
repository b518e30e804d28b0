/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ewyk-httpd [EAL args] -- --ip A.B.C.D/NN [--ip ...] [options]
 *
 * An HTTP server and TCP test services on the ewyk runtime: the runtime
 * owns the lcores, shards, loop, dispatch, stats and metrics; this file
 * parses the options the server adds to the runtime's, and registers
 * each feature (httpd.h).
 */

#include <stdio.h>
#include <stdlib.h>

#include <rte_eal.h>

#include "httpd.h"

static int
opt_port(const char *name, const char *val, uint16_t *out)
{
	unsigned long v;

	if (ewyk_rt_opt_ulong(name, val, 1, 65535, &v) != 0)
		return -1;
	*out = (uint16_t)v;
	return 0;
}

static int
opt_echo(const char *val, void *arg)
{
	return opt_port("echo-port", val,
		&((struct httpd_conf *)arg)->echo_port);
}

static int
opt_discard(const char *val, void *arg)
{
	return opt_port("discard-port", val,
		&((struct httpd_conf *)arg)->discard_port);
}

static int
opt_slow_echo(const char *val, void *arg)
{
	return opt_port("slow-echo-port", val,
		&((struct httpd_conf *)arg)->slow_echo_port);
}

static int
opt_slow_ms(const char *val, void *arg)
{
	unsigned long v;

	if (ewyk_rt_opt_ulong("slow-ms", val, 0, 600000, &v) != 0)
		return -1;
	((struct httpd_conf *)arg)->slow_ms = (unsigned int)v;
	return 0;
}

static int
opt_root(const char *val, void *arg)
{
	((struct httpd_conf *)arg)->root = val;
	return 0;
}

/* Every feature, in the order its routes and hooks go. */
static int
setup(struct httpd *h)
{
	if (tcp_services_register(h) != 0 || slow_echo_register(h) != 0)
		return -1;
	if (ewyk_rt_http_listen(h->rt, 80) != 0)
		return -1;
	if (http_routes_register(h) != 0 || http_sha256_register(h) != 0 ||
		ewyk_rt_metrics_route(h->rt, "/metrics") != 0 ||
		static_files_register(h) != 0)
		return -1;
	return 0;
}

int
main(int argc, char **argv)
{
	static struct httpd h;
	const struct ewyk_rt_opt opts[] = {
		{ "echo-port", 1, "N: TCP echo service on port N", opt_echo,
			&h.conf },
		{ "discard-port", 1, "N: TCP discard service on port N",
			opt_discard, &h.conf },
		{ "slow-echo-port", 1,
			"N: TCP echo on port N whose every chunk is a BLOCKING task",
			opt_slow_echo, &h.conf },
		{ "slow-ms", 1,
			"M: how long a slow-echo task blocks its lcore (default 50)",
			opt_slow_ms, &h.conf },
		{ "root", 1,
			"DIR: static files under DIR (GET, HEAD); every other route wins",
			opt_root, &h.conf },
	};
	struct ewyk_rt_conf rc;
	int ret;

	if (ewyk_rt_eal_init(&argc, &argv) != 0)
		return 1;
	argv[0] = (char *)(uintptr_t) "ewyk-httpd";
	ewyk_rt_conf_init(&rc, "ewyk-httpd");
	h.conf.slow_ms = 50;
	ret = ewyk_rt_parse_args(&rc, argc, argv, opts, RTE_DIM(opts));
	if (ret != 0) {
		rte_eal_cleanup();
		return ret > 0 ? 0 : 2;
	}
	h.rt = ewyk_rt_create(&rc);
	if (h.rt == NULL) {
		rte_eal_cleanup();
		return 1;
	}
	ret = setup(&h) == 0 && ewyk_rt_run(h.rt) == 0 ? 0 : 1;
	ewyk_rt_free(h.rt);
	static_files_close(&h);
	rte_eal_cleanup();
	printf("ewyk-httpd: stopped\n");
	return ret;
}
