/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hello: the smallest application on the installed libewyk. One lcore, one
 * port: it answers ARP and ping (lib/net) and, on a TCP port (lib/tcp),
 * sends "hello from ewyk" to every client and closes.
 *
 *   hello [EAL args] -- A.B.C.D/NN [PORT]
 *   hello -l 0 --no-huge -m 512 --no-pci --vdev=net_af_packet0,iface=veth0 \
 *       -- 198.18.0.2/24 8080
 *
 * Built outside the ewyk tree against pkg-config's libewyk (see Makefile).
 * Ctrl-C (SIGINT) or SIGTERM stops it.
 */

#include <arpa/inet.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include <ewyk_net.h>
#include <ewyk_tcp.h>

static const char greeting[] = "hello from ewyk\n";

static volatile sig_atomic_t quit;

static void
on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

/* A client connected: send the greeting, then our FIN. */
static int
hello_accept(void *arg, struct ewyk_tcp_conn *c)
{
	struct rte_mempool *mp = arg;
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	char *p;

	if (m == NULL)
		return -1; /* refused: the client gets a RST */
	p = rte_pktmbuf_append(m, sizeof(greeting) - 1);
	memcpy(p, greeting, sizeof(greeting) - 1);
	if (ewyk_tcp_send(c, m) != 0)
		rte_pktmbuf_free(m);
	ewyk_tcp_close(c);
	return 0;
}

static const struct ewyk_tcp_ops hello_ops = {
	.accept = hello_accept,
};

static int
parse_cidr(const char *s, rte_be32_t *ip, uint8_t *len)
{
	char buf[32];
	char *slash;
	struct in_addr a;
	int n;

	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	if (slash == NULL)
		return -1;
	*slash = '\0';
	n = atoi(slash + 1);
	if (inet_pton(AF_INET, buf, &a) != 1 || n < 1 || n > 32)
		return -1;
	*ip = a.s_addr;
	*len = (uint8_t)n;
	return 0;
}

int
main(int argc, char **argv)
{
	struct ewyk_net_conf nc = { .nb_shards = 1 };
	struct ewyk_net_port_conf pc = { .port_id = 0 };
	struct ewyk_tcp_conf tc = { .socket_id = SOCKET_ID_ANY };
	struct ewyk_net_port_info info;
	struct rte_mempool *mp;
	struct ewyk_net *net;
	struct ewyk_net_shard *shard;
	struct ewyk_tcp *tcp;
	uint16_t port = 8080;
	int n;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	argc -= n;
	argv += n;
	if (argc < 2 || parse_cidr(argv[1], &pc.ip, &pc.prefix_len) != 0) {
		fprintf(stderr,
			"usage: hello [EAL args] -- A.B.C.D/NN [PORT]\n");
		return 2;
	}
	if (argc > 2)
		port = (uint16_t)atoi(argv[2]);
	if (rte_eth_dev_count_avail() == 0) {
		fprintf(stderr,
			"no port: add e.g. --vdev=net_af_packet0,iface=veth0\n");
		return 1;
	}
	mp = rte_pktmbuf_pool_create("hello_mbuf", 8191, 256, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	net = mp != NULL ? ewyk_net_create(&nc) : NULL;
	if (net == NULL) {
		fprintf(stderr, "set-up: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	pc.rx_pools = &mp;
	n = ewyk_net_port_add(net, &pc, &info);
	shard = n == 0 ? ewyk_net_shard_create(net, 0, SOCKET_ID_ANY, mp) :
			 NULL;
	tc.shard = shard;
	tcp = shard != NULL ? ewyk_tcp_create(&tc) : NULL;
	if (tcp == NULL ||
		ewyk_tcp_listen(tcp, 0, port, &hello_ops, mp, 0) != 0) {
		fprintf(stderr, "set-up: port %d: %s\n", n,
			rte_strerror(n < 0 ? -n : rte_errno));
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ewyk_net_announce(shard);
	printf("hello: serving on %s port %u\n", argv[1], port);
	fflush(stdout);

	/* The loop: receive and process in place, run timers, send. */
	while (!quit) {
		uint64_t now = rte_rdtsc();

		ewyk_net_poll(shard, now);
		ewyk_tcp_advance(tcp, now);
		ewyk_net_tx_flush(shard);
	}

	ewyk_tcp_free(tcp);
	ewyk_net_free(net);
	rte_mempool_free(mp);
	rte_eal_cleanup();
	printf("hello: stopped\n");
	return 0;
}
