/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hello_http: an HTTP service on the installed libewyk runtime.
 *   GET /hello    answered in place, on the lcore that received it
 *   GET /slow     BLOCKING: a 50 ms call standing for a database; the
 *                 strategy takes it (or production) off the packet path
 *   GET /metrics  every counter, Prometheus text
 * and the per-lcore stats table every --stats-interval seconds.
 *   hello_http [EAL args] -- --ip A.B.C.D/NN [--port N] [runtime options]
 *   hello_http -l 0,1 --no-huge -m 512 --no-pci \
 *       --vdev=net_af_packet0,iface=veth0 -- --ip 198.18.0.2/24 --reserved 1
 */

#include <errno.h>
#include <stdio.h>
#include <time.h>

#include <rte_common.h>
#include <rte_eal.h>

#include <ewyk_runtime.h>

static int
hello(const struct ewyk_rt_req *req, struct ewyk_rt_result *res,
	enum ewyk_strategy_mode mode, void *arg)
{
	(void)req, (void)mode, (void)arg;
	ewyk_rt_result_status(res, 200, "text/plain");
	return ewyk_rt_result_body(res, "hello\n", 6);
}

static int
slow(const struct ewyk_rt_req *req, struct ewyk_rt_result *res,
	enum ewyk_strategy_mode mode, void *arg)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };

	(void)req, (void)mode, (void)arg;
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	ewyk_rt_result_status(res, 200, "text/plain");
	return ewyk_rt_result_body(res, "slow\n", 5);
}

static const struct ewyk_rt_route routes[] = {
	{ .path = "/hello",
		.methods = EWYK_HTTP_M(EWYK_HTTP_GET),
		.invocation = EWYK_STRATEGY_INVOKE_NON_BLOCKING,
		.fn = hello },
	{ .path = "/slow",
		.methods = EWYK_HTTP_M(EWYK_HTTP_GET),
		.invocation = EWYK_STRATEGY_INVOKE_BLOCKING,
		.fn = slow },
};

int
main(int argc, char **argv)
{
	struct ewyk_rt_conf c;
	struct ewyk_rt *rt;
	unsigned int i;
	int ret;

	if (ewyk_rt_eal_init(&argc, &argv) != 0)
		return 1;
	ewyk_rt_conf_init(&c, "hello_http");
	ret = ewyk_rt_parse_args(&c, argc, argv, NULL, 0);
	if (ret != 0)
		return ret > 0 ? 0 : 2;
	rt = ewyk_rt_create(&c);
	if (rt == NULL)
		return 1;
	ret = ewyk_rt_http_listen(rt, 8080);
	for (i = 0; ret == 0 && i < RTE_DIM(routes); i++)
		ret = ewyk_rt_http_route(rt, &routes[i]);
	if (ret == 0)
		ret = ewyk_rt_metrics_route(rt, "/metrics");
	if (ret == 0)
		ret = ewyk_rt_run(rt);
	ewyk_rt_free(rt);
	rte_eal_cleanup();
	printf("hello_http: stopped\n");
	return ret == 0 ? 0 : 1;
}
