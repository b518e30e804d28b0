/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_HTTPD_H
#define EWYK_HTTPD_H

/*
 * ewyk-httpd: shared state of the application. One httpd_lcore per polling
 * lcore (= one shard); the lcore that holds a shard is its only writer.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mempool.h>

#include <ewyk_net.h>
#include <ewyk_tcp.h>

#define HTTPD_MAX_LCORES EWYK_NET_MAX_SHARDS

/* Loop counters of one lcore; written by it only, read by the stats code. */
struct httpd_loop_stats {
	uint64_t iters;        /* loop iterations */
	uint64_t busy_cycles;  /* cycles of iterations that had packets */
	uint64_t busy_pkts;    /* packets those iterations took */
};

struct httpd_lcore {
	unsigned int lcore_id;
	uint16_t shard_id;
	struct ewyk_net_shard *shard;
	struct rte_mempool *pool;
	struct ewyk_tcp *tcp;          /* TCP of the shard (tcp_services.c) */
	struct httpd *app;
	struct httpd_loop_stats ls;
} __rte_cache_aligned;

struct httpd_conf {
	uint16_t nb_ips;
	rte_be32_t ip[EWYK_NET_MAX_PORTS];
	uint8_t prefix[EWYK_NET_MAX_PORTS];
	unsigned int stats_interval;   /* seconds; 0: only at exit */
	uint16_t mtu;
	uint16_t vlan;
	unsigned int nb_mbufs;         /* per shard */
	char mbuf_ops[RTE_MEMPOOL_OPS_NAMESIZE]; /* --mbuf-ops; "": DPDK's choice */
	uint16_t echo_port;            /* --echo-port; 0: off (tcp_services.c) */
	uint16_t discard_port;         /* --discard-port; 0: off */
};

struct httpd {
	struct httpd_conf conf;
	struct ewyk_net *net;
	uint16_t nb_lcores;
	struct httpd_lcore lc[HTTPD_MAX_LCORES];
};

/* loop.c */
int httpd_loop(void *arg);
void httpd_request_stop(void);
bool httpd_stopping(void);

/* stats.c */
void httpd_stats_print(struct httpd *h, bool final);
int httpd_stats_telemetry_init(struct httpd *h);
void httpd_stats_telemetry_fini(void);

#endif /* EWYK_HTTPD_H */
