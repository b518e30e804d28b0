/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hello: the smallest TCP application on the installed libewyk runtime.
 * It answers ARP and ping, and on a TCP port sends "hello from ewyk" to
 * every client and closes. Every lcore of the EAL core list polls a shard.
 *
 *   hello [EAL args] -- --ip A.B.C.D/NN [--hello-port N] [runtime options]
 *   hello -l 0 --no-huge -m 512 --no-pci --vdev=net_af_packet0,iface=veth0 \
 *       -- --ip 198.18.0.2/24 --hello-port 8080
 *
 * Built outside the ewyk tree with pkg-config's libewyk (Makefile).
 */

#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_mbuf.h>

#include <ewyk_runtime.h>

static const char greeting[] = "hello from ewyk\n";

/* A client connected (on its shard's lcore): greeting, then our FIN. */
static int
hello_accept(void *arg, struct ewyk_tcp_conn *c)
{
	struct ewyk_rt_shard *sh = ewyk_rt_shard_current();
	struct rte_mbuf *m = rte_pktmbuf_alloc(ewyk_rt_shard_mbufs(sh));

	(void)arg;
	if (m == NULL)
		return -1; /* refused: the client gets a RST */
	memcpy(rte_pktmbuf_append(m, sizeof(greeting) - 1), greeting,
		sizeof(greeting) - 1);
	if (ewyk_tcp_send(c, m) != 0)
		rte_pktmbuf_free(m);
	ewyk_tcp_close(c);
	return 0;
}

static const struct ewyk_tcp_ops hello_ops = { .accept = hello_accept };

static int
opt_port(const char *val, void *arg)
{
	return ewyk_rt_opt_ulong("hello-port", val, 1, 65535, arg);
}

int
main(int argc, char **argv)
{
	unsigned long port = 8080;
	const struct ewyk_rt_opt opts[] = {
		{ "hello-port", 1, "N: TCP port of the greeting (8080)",
			opt_port, &port },
	};
	struct ewyk_rt_conf c;
	struct ewyk_rt *rt;
	int ret;

	if (ewyk_rt_eal_init(&argc, &argv) != 0)
		return 1;
	ewyk_rt_conf_init(&c, "hello");
	ret = ewyk_rt_parse_args(&c, argc, argv, opts, 1);
	if (ret != 0)
		return ret > 0 ? 0 : 2;
	rt = ewyk_rt_create(&c);
	if (rt == NULL)
		return 1;
	ret = ewyk_rt_tcp_listen(rt, (uint16_t)port, &hello_ops, NULL);
	if (ret == 0) {
		printf("hello: serving on port %lu\n", port);
		ret = ewyk_rt_run(rt);
	}
	ewyk_rt_free(rt);
	rte_eal_cleanup();
	printf("hello: stopped\n");
	return ret == 0 ? 0 : 1;
}
