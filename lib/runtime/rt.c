/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The runtime's life: create (lcores, mbuf pools, ports, strategy,
 * shards), run (HTTP servers and modules on every shard, then the
 * lcores), stop, free (in the order that leaves no client hanging), and
 * the housekeeping thread that takes SIGINT/SIGTERM and prints the stats
 * table outside every shard's loop.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "rt_private.h"

RTE_LOG_REGISTER(ewyk_rt_logtype, ewyk.runtime, INFO);

/* The runtime a signal handler stops when the EAL was initialised
 * without ewyk_rt_eal_init() (signals not blocked): one per process. */
static struct ewyk_rt *rt_signalled;

void
ewyk_rt_stop(struct ewyk_rt *rt)
{
	if (rt != NULL)
		__atomic_store_n(&rt->stop, 1, __ATOMIC_RELEASE);
}

bool
ewyk_rt_stopping(const struct ewyk_rt *rt)
{
	return rt != NULL && __atomic_load_n(&rt->stop, __ATOMIC_ACQUIRE);
}

/* Step 1: who is what. Workers first (main lcore first), then reserved. */
static int
setup_lcores(struct ewyk_rt *rt)
{
	unsigned int ids[EWYK_RT_MAX_LCORES];
	unsigned int i;
	int n;

	n = rt_lcores(ids, EWYK_RT_MAX_LCORES);
	if (n < 0)
		return -1;
	rt->nb_lcores = (uint16_t)n;
	if (rt->conf.reserved >= rt->nb_lcores) {
		RT_LOG(ERR,
			"error: --reserved %u: needs at least one worker, and there are %u lcore(s)",
			rt->conf.reserved, rt->nb_lcores);
		return -1;
	}
	rt->nb_shards = (uint16_t)(rt->nb_lcores - rt->conf.reserved);
	for (i = 0; i < RTE_MAX_LCORE; i++)
		rt->lc_of[i] = -1;
	for (i = 0; i < rt->nb_lcores; i++) {
		struct rt_lcore *lc = &rt->lc[i];

		lc->lcore_id = ids[i];
		lc->rt = rt;
		lc->reserved = i >= rt->nb_shards;
		lc->shard = lc->reserved ? -1 : (int)i;
		rt->lc_of[lc->lcore_id] = (int16_t)i;
		if (!lc->reserved) {
			struct ewyk_rt_shard *sh = &rt->sh[i];

			sh->id = (uint16_t)i;
			sh->home = lc->lcore_id;
			sh->socket = (int)rte_lcore_to_socket_id(sh->home);
			sh->rt = rt;
		}
	}
	return 0;
}

/* Step 2: one mbuf pool per shard, on its worker's socket. */
static int
setup_pools(struct ewyk_rt *rt, struct rte_mempool **pools)
{
	unsigned int i;

	for (i = 0; i < rt->nb_shards; i++) {
		struct ewyk_rt_shard *sh = &rt->sh[i];

		sh->pool = rt_pool_create("ewyk_mbuf_", i, rt->conf.nb_mbufs,
			sh->home,
			rt->conf.mbuf_ops[0] != '\0' ? rt->conf.mbuf_ops :
						       NULL);
		if (sh->pool == NULL)
			return -1;
		pools[i] = sh->pool;
	}
	return 0;
}

/*
 * The --ip6 of the port of index @p idx, if it has one: add it, and write
 * " ADDR/LEN" for each IPv6 address of the port (the link-local one first)
 * into @p buf. Ports are added in port order, so @p idx, lib/net's index
 * of the port, is also its place among the --ip and --ip6. 0, or -1
 * (printed).
 */
static int
port_ip6(struct ewyk_rt *rt, uint16_t pid, uint16_t idx, char *buf, size_t size)
{
	char a[INET6_ADDRSTRLEN];
	uint8_t addr[16], len;
	unsigned int i;
	size_t n = 0;
	int rc;

	buf[0] = '\0';
	if (idx >= rt->conf.nb_ip6s)
		return 0;
	rc = ewyk_net_port_add_ip6(rt->net, idx, rt->conf.ip6[idx],
		rt->conf.prefix6[idx]);
	if (rc < 0) {
		inet_ntop(AF_INET6, rt->conf.ip6[idx], a, sizeof(a));
		RT_LOG(ERR, "error: port %u: --ip6 %s/%u: %s", pid, a,
			rt->conf.prefix6[idx], rte_strerror(-rc));
		return -1;
	}
	if (idx < rt->conf.nb_gw6s) {
		rc = ewyk_net_port_set_gw6(rt->net, idx, rt->conf.gw6[idx]);
		if (rc < 0) {
			inet_ntop(AF_INET6, rt->conf.gw6[idx], a, sizeof(a));
			RT_LOG(ERR,
				"error: port %u: --gw6 %s: %s (it must be link-local or on the port's --ip6 prefix)",
				pid, a, rte_strerror(-rc));
			return -1;
		}
	}
	for (i = 0;
		n < size && ewyk_net_port_ip6(rt->net, idx, i, addr, &len) == 0;
		i++) {
		inet_ntop(AF_INET6, addr, a, sizeof(a));
		n += (size_t)snprintf(buf + n, size - n, " %s/%u", a, len);
	}
	return 0;
}

/* Step 3: the network context and its ports, one queue pair per shard. */
static int
setup_ports(struct ewyk_rt *rt, struct rte_mempool **pools)
{
	struct ewyk_net_conf nc;
	uint16_t pid, p = 0;

	memset(&nc, 0, sizeof(nc));
	nc.nb_shards = rt->nb_shards;
	rt->net = ewyk_net_create(&nc);
	if (rt->net == NULL) {
		RT_LOG(ERR, "error: network context: %s",
			rte_strerror(rte_errno));
		return -1;
	}
	RTE_ETH_FOREACH_DEV (pid) {
		struct ewyk_net_port_conf pc;
		struct ewyk_net_port_info info;
		char mac[RTE_ETHER_ADDR_FMT_SIZE], ip[INET_ADDRSTRLEN];
		char ip6[EWYK_NET_MAX_IP6 * (INET6_ADDRSTRLEN + 5)];
		int rc;

		memset(&pc, 0, sizeof(pc));
		pc.port_id = pid;
		pc.ip = rt->conf.ip[p];
		pc.prefix_len = rt->conf.prefix[p];
		pc.mtu = rt->conf.mtu;
		pc.vlan_id = rt->conf.vlan;
		pc.rx_pools = pools;
		pc.nb_extra_ips = rt->conf.nb_extra_ips;
		rc = ewyk_net_port_add(rt->net, &pc, &info);
		if (rc < 0) {
			RT_LOG(ERR, "error: port %u: %s", pid,
				rte_strerror(-rc));
			return -1;
		}
		if (p < rt->conf.nb_gws) {
			int g = ewyk_net_port_set_gw(rt->net, (uint16_t)rc,
				rt->conf.gw[p]);

			if (g < 0) {
				inet_ntop(AF_INET, &rt->conf.gw[p], ip,
					sizeof(ip));
				RT_LOG(ERR,
					"error: port %u: --gw %s: %s (it must be a host on the port's --ip subnet)",
					pid, ip, rte_strerror(-g));
				return -1;
			}
		}
		if (port_ip6(rt, pid, (uint16_t)rc, ip6, sizeof(ip6)) != 0)
			return -1;
		rte_ether_format_addr(mac, sizeof(mac), &info.mac);
		inet_ntop(AF_INET, &pc.ip, ip, sizeof(ip));
		RT_LOG(INFO,
			"port %u: %s/%u%s mac %s mtu %u, %u queue(s), rss %s, cksum offload ip=%s l4=%s",
			pid, ip, pc.prefix_len, ip6, mac, info.mtu,
			rt->nb_shards, info.rss ? "symmetric" : "off",
			info.tx_ip_cksum ? "yes" : "no",
			info.tx_l4_cksum ? "yes" : "no");
		p++;
	}
	return 0;
}

/*
 * Step 4: the strategy. With --reserved 0 the reserved lcores are the
 * shared ones (--shared-reserved, 4 by default): threads that run queued
 * blocking tasks off the worker's back. With neither (or --strategy pc)
 * nothing can take a task or production away, so every kind is run as
 * PC: a BLOCKING task runs in place on the holder and is counted as PC.
 */
static int
setup_strategy(struct ewyk_rt *rt)
{
	struct ewyk_strategy_executor_conf xc;
	struct ewyk_strategy_conf sc;
	enum ewyk_strategy_kind kind = rt->conf.strategy;
	/* Shared reserved lcores run queued (PEC) tasks only: pc and epc
	 * never queue one. */
	bool queues = kind == EWYK_STRATEGY_PEC ||
		kind == EWYK_STRATEGY_ADAPTIVE;

	if (rt->conf.shared_reserved == UINT_MAX)
		rt->conf.shared_reserved = rt->conf.reserved == 0 && queues ?
			RTE_MIN(RT_SHARED_DEFAULT,
				EWYK_RT_MAX_LCORES - rt->nb_lcores) :
			0;
	if (!queues)
		rt->conf.shared_reserved = 0;
	if (rt->conf.reserved == 0 && rt->conf.shared_reserved == 0 &&
		kind != EWYK_STRATEGY_PC) {
		RT_LOG(NOTICE,
			"strategy: --reserved 0, no shared reserved lcore: %s runs as pc (blocking tasks run in place)",
			ewyk_strategy_kind_name(kind));
		kind = EWYK_STRATEGY_PC;
	}
	if (rt->conf.reserved != 0 || rt->conf.shared_reserved != 0) {
		memset(&xc, 0, sizeof(xc));
		xc.name = rt->conf.name;
		xc.socket_id = SOCKET_ID_ANY;
		/* One warm reserved lcore answers a hand-off at once; shared
		 * ones (ring-only) always park: they share a polling CPU. */
		xc.spin_keep = rt->conf.reserved != 0 ? 1 : 0;
		xc.ring_size = rt->conf.pec_ring;
		rt->ex = ewyk_strategy_executor_create(&xc);
		if (rt->ex == NULL) {
			RT_LOG(ERR, "error: executor: %s",
				rte_strerror(rte_errno));
			return -1;
		}
	}
	memset(&sc, 0, sizeof(sc));
	sc.name = rt->conf.name;
	sc.kind = kind;
	sc.executor = rt->ex;
	sc.socket_id = SOCKET_ID_ANY;
	rt->strategy = ewyk_strategy_create(&sc);
	if (rt->strategy == NULL) {
		RT_LOG(ERR, "error: strategy: %s", rte_strerror(rte_errno));
		return -1;
	}
	rt->kind = kind;
	return rt_shared_start(rt);
}

/* Step 5: each shard, in this order: network, wheel and TCP, purgatory
 * and the inbox sized to it, producer. */
static int
setup_shards(struct ewyk_rt *rt)
{
	unsigned int i;

	for (i = 0; i < rt->nb_shards; i++) {
		struct ewyk_rt_shard *sh = &rt->sh[i];

		sh->net = ewyk_net_shard_create(rt->net, sh->id, sh->socket,
			sh->pool);
		if (sh->net == NULL) {
			RT_LOG(ERR, "error: shard %u: %s", sh->id,
				rte_strerror(rte_errno));
			return -1;
		}
		if (rt_tcp_shard_init(sh) != 0 || rt_jobs_shard_init(sh) != 0 ||
			rt_shard_producer_init(rt, sh) != 0)
			return -1;
	}
	return 0;
}

struct ewyk_rt *
ewyk_rt_create(const struct ewyk_rt_conf *c)
{
	struct rte_mempool *pools[EWYK_RT_MAX_LCORES];
	struct ewyk_rt *rt;
	uint16_t nb_ports;

	if (c == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	rt = rte_zmalloc("ewyk_rt", sizeof(*rt), RTE_CACHE_LINE_SIZE);
	if (rt == NULL) {
		RT_LOG(ERR, "error: out of memory");
		rte_errno = ENOMEM;
		return NULL;
	}
	rt->conf = *c;
	rt->iter_mul = ((uint64_t)1 << 32) * 1000000 / rte_get_tsc_hz();
	rt->stall_cyc = rte_get_tsc_hz() / 1000000 * RT_STALL_US;
	if (rt->conf.name == NULL)
		rt->conf.name = "ewyk";
	if (rt_conf_check(&rt->conf) != 0)
		goto fail;
	nb_ports = rte_eth_dev_count_avail();
	if (nb_ports == 0) {
		RT_LOG(ERR,
			"error: no ports. Bind a NIC to vfio-pci (dpdk-devbind.py) and pass -a <PCI>, or add a virtual device, e.g. --vdev=net_af_packet0,iface=veth0");
		goto fail;
	}
	if (nb_ports != rt->conf.nb_ips) {
		RT_LOG(ERR,
			"error: %u port(s) but %u --ip: give one --ip per port, in port order",
			nb_ports, rt->conf.nb_ips);
		goto fail;
	}
	if (setup_lcores(rt) != 0)
		goto fail;
	if (rt->conf.tcp_max_conns == 0) {
		uint64_t mem = rt_mem_given();

		rt->conf.tcp_max_conns = ewyk_rt_conf_capacity(&rt->conf,
			rt->nb_shards, mem);
		RT_LOG(INFO,
			"%s: %u connections per shard (from %" PRIu64
			" MiB of memory, %u shard(s))",
			rt->conf.name, rt->conf.tcp_max_conns, mem >> 20,
			rt->nb_shards);
		if (rt_conf_check(&rt->conf) != 0)
			goto fail;
	}
	if (setup_pools(rt, pools) != 0 || setup_ports(rt, pools) != 0 ||
		setup_strategy(rt) != 0 || setup_shards(rt) != 0 ||
		rt_http_init(rt) != 0)
		goto fail;
	return rt;
fail:
	ewyk_rt_free(rt);
	rte_errno = EINVAL;
	return NULL;
}

int
ewyk_rt_module_add(struct ewyk_rt *rt, const struct ewyk_rt_module *m)
{
	if (rt == NULL || m == NULL)
		return -EINVAL;
	if (rt->running || rt->ran)
		return -EBUSY;
	if (rt->nb_modules == EWYK_RT_MAX_MODULES)
		return -ENOSPC;
	rt->mod[rt->nb_modules++] = *m;
	return 0;
}

/* Every shard's HTTP server, then the modules' init hooks, in order. */
int
rt_start_shards(struct ewyk_rt *rt)
{
	unsigned int i, k;
	int rc;

	if (rt->http) {
		for (i = 0; i < rt->nb_shards; i++)
			if (rt_http_shard_init(&rt->sh[i]) != 0)
				return -1;
		if (rt_metrics_start(rt) != 0)
			return -1;
	}
	for (k = 0; k < rt->nb_modules; k++) {
		const struct ewyk_rt_module *m = &rt->mod[k];

		for (i = 0; i < rt->nb_shards && m->init != NULL; i++) {
			rc = m->init(&rt->sh[i], m->arg);
			if (rc != 0) {
				RT_LOG(ERR, "error: module %s on shard %u: %s",
					m->name != NULL ? m->name : "?", i,
					strerror(rc < 0 ? -rc : rc));
				/* Its fini runs for the shards it did. */
				rt->nb_inited = k + 1;
				rt->last_inited = i;
				return -1;
			}
		}
		rt->nb_inited = k + 1;
		rt->last_inited = rt->nb_shards;
		if (m->poll != NULL)
			rt->polls[rt->nb_polls++] = m;
	}
	return 0;
}

/* Wait up to 3 s for every port's link; af_packet and memif come up fast. */
static void
wait_links(struct ewyk_rt *rt)
{
	uint16_t p;

	for (p = 0; p < ewyk_net_nb_ports(rt->net); p++) {
		struct rte_eth_link link;
		uint16_t pid = ewyk_net_port_id(rt->net, p);

		rt_wait_link(pid, &link);
		RT_LOG(INFO, "port %u: link %s, %u Mbps", pid,
			link.link_status == RTE_ETH_LINK_UP ? "up" : "DOWN",
			link.link_speed);
	}
}

static void
on_signal(int sig)
{
	RTE_SET_USED(sig);
	ewyk_rt_stop(rt_signalled);
}

/*
 * The housekeeping thread: takes SIGINT and SIGTERM (blocked everywhere
 * else, so that no lcore's blocking call is interrupted) and prints the
 * stats table every --stats-interval, so that a slow terminal stalls no
 * shard.
 */
static void *
house_main(void *arg)
{
	struct ewyk_rt *rt = arg;
	uint64_t hz = rte_get_tsc_hz(), next;
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	next = rte_rdtsc() + (uint64_t)rt->conf.stats_interval * hz;
	while (!__atomic_load_n(&rt->quit, __ATOMIC_ACQUIRE)) {
		int sig = sigtimedwait(&set, NULL, &ts);

		if (sig == SIGINT || sig == SIGTERM)
			ewyk_rt_stop(rt);
		if (rt->conf.stats_interval != 0 &&
			rt->conf.stats_out != NULL && rte_rdtsc() >= next &&
			!ewyk_rt_stopping(rt)) {
			next = rte_rdtsc() +
				(uint64_t)rt->conf.stats_interval * hz;
			ewyk_rt_stats_dump(rt, rt->conf.stats_out, false);
		}
	}
	return NULL;
}

/* Signals: ours through the housekeeping thread when they are blocked
 * here (ewyk_rt_eal_init()), else a handler. */
static int
house_start(struct ewyk_rt *rt)
{
	sigset_t cur;
	int rc;

	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	if (!sigismember(&cur, SIGINT) || !sigismember(&cur, SIGTERM)) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sa.sa_flags = SA_RESTART;
		rt_signalled = rt;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	rc = pthread_create(&rt->house, NULL, house_main, rt);
	if (rc != 0) {
		RT_LOG(ERR, "error: housekeeping thread: %s", strerror(rc));
		return -1;
	}
	pthread_setname_np(rt->house, "ewyk-house");
	rt->house_started = true;
	return 0;
}

int
ewyk_rt_run(struct ewyk_rt *rt)
{
	unsigned int i;

	if (rt == NULL || rt->running || rt->ran)
		return -1;
	if (rt_start_shards(rt) != 0)
		return -1;
	if (rt_stats_telemetry_init(rt) != 0)
		RT_LOG(WARNING,
			"warning: /ewyk/stats telemetry not registered");
	wait_links(rt);
	/* Gratuitous ARP: peers learn our MAC before we talk. */
	ewyk_net_announce(rt->sh[0].net);
	ewyk_net_tx_flush(rt->sh[0].net);
	RT_LOG(INFO, "%s: mbuf pools on mempool ops '%s'", rt->conf.name,
		rte_mempool_get_ops(rt->sh[0].pool->ops_index)->name);
	RT_LOG(INFO,
		"%s: %u lcore(s): %u worker(s) polling, %u reserved, %u shared reserved; strategy %s, task timeout %u ms; stats every %u s; Ctrl-C stops",
		rt->conf.name, rt->nb_lcores, rt->nb_shards, rt->conf.reserved,
		rt->nb_shared,
		ewyk_strategy_kind_name(ewyk_strategy_kind_get(rt->strategy)),
		rt->conf.task_timeout_ms, rt->conf.stats_interval);
	fflush(stdout);
	if (house_start(rt) != 0)
		return -1;
	rt->running = true;
	for (i = 1; i < rt->nb_lcores; i++)
		if (!rt->lc[i].shared)
			rte_eal_remote_launch(rt_lcore_main, &rt->lc[i],
				rt->lc[i].lcore_id);
	rt_lcore_main(&rt->lc[0]);
	rte_eal_mp_wait_lcore();
	rt->running = false;
	rt->ran = true;
	__atomic_store_n(&rt->quit, 1, __ATOMIC_RELEASE);
	pthread_join(rt->house, NULL);
	rt->house_started = false;
	return 0;
}

/* Undo create and run, in reverse; no lcore runs a loop any more. */
void
ewyk_rt_free(struct ewyk_rt *rt)
{
	unsigned int i, k;

	if (rt == NULL)
		return;
	if (rt->ran && rt->conf.stats_out != NULL)
		ewyk_rt_stats_dump(rt, rt->conf.stats_out, true);
	rt_stats_telemetry_fini();
	/* The shared reserved lcores leave the executor first. */
	rt_shared_join(rt);
	/* No lcore produces: the producers and the strategy go (its
	 * telemetry reads the executor)... */
	for (i = 0; i < rt->nb_shards; i++) {
		ewyk_strategy_producer_free(rt->sh[i].producer);
		rt->sh[i].producer = NULL;
	}
	ewyk_strategy_free(rt->strategy);
	rt->strategy = NULL;
	/* ...then the executor: tasks still queued are told DROPPED (they
	 * post to the inboxes, applied below, or free themselves). */
	ewyk_strategy_executor_free(rt->ex);
	rt->ex = NULL;
	/* This lcore holds every shard from here on. */
	for (i = 0; i < rt->nb_shards; i++) {
		if (rt->sh[i].net != NULL)
			ewyk_net_shard_hold(rt->sh[i].net);
		if (rt->sh[i].wheel != NULL)
			ewyk_twheel_hold(rt->sh[i].wheel);
	}
	/* Results still queued are applied (answered) first; then HTTP
	 * resets its connections, whose end-of-request callbacks cancel
	 * the delayed operations, while TCP still has them. */
	for (i = 0; i < rt->nb_shards; i++) {
		rt_jobs_drain(&rt->sh[i]);
		rt_http_shard_free(&rt->sh[i]);
	}
	for (k = rt->nb_inited; k-- > 0;) {
		unsigned int n = k + 1 == rt->nb_inited ? rt->last_inited :
							  rt->nb_shards;

		for (i = 0; i < n; i++)
			if (rt->mod[k].fini != NULL)
				rt->mod[k].fini(&rt->sh[i], rt->mod[k].arg);
	}
	rt->nb_inited = 0;
	rt->nb_polls = 0;
	for (i = 0; i < rt->nb_shards; i++) {
		struct ewyk_rt_shard *sh = &rt->sh[i];

		rt_jobs_shard_free(sh);
		/* Every peer still connected gets its RST. */
		ewyk_tcp_abort_all(sh->tcp);
		/* The resets and last responses go out before the ports
		 * close. */
		if (sh->net != NULL)
			ewyk_net_tx_flush(sh->net);
		rt_tcp_shard_free(sh);
	}
	rt_metrics_fini(rt);
	rt_http_fini(rt);
	ewyk_net_free(rt->net);
	rt->net = NULL;
	/* The ports are closed: no queue holds an mbuf of the pools now. */
	for (i = 0; i < rt->nb_shards; i++) {
		rte_mempool_free(rt->sh[i].pool);
		rt->sh[i].pool = NULL;
	}
	if (rt_signalled == rt)
		rt_signalled = NULL;
	rte_free(rt);
}

const struct ewyk_rt_conf *
ewyk_rt_conf_get(const struct ewyk_rt *rt)
{
	return rt != NULL ? &rt->conf : NULL;
}

unsigned int
ewyk_rt_nb_shards(const struct ewyk_rt *rt)
{
	return rt != NULL ? rt->nb_shards : 0;
}

struct ewyk_rt_shard *
ewyk_rt_shard(struct ewyk_rt *rt, unsigned int i)
{
	return rt != NULL && i < rt->nb_shards ? &rt->sh[i] : NULL;
}

uint16_t
ewyk_rt_shard_id(const struct ewyk_rt_shard *sh)
{
	return sh->id;
}

struct ewyk_rt *
ewyk_rt_shard_rt(const struct ewyk_rt_shard *sh)
{
	return sh->rt;
}

unsigned int
ewyk_rt_shard_lcore(const struct ewyk_rt_shard *sh)
{
	return sh->home;
}

int
ewyk_rt_shard_socket(const struct ewyk_rt_shard *sh)
{
	return sh->socket;
}

uint64_t
ewyk_rt_shard_now(const struct ewyk_rt_shard *sh)
{
	return sh->now;
}

struct ewyk_net_shard *
ewyk_rt_shard_net(const struct ewyk_rt_shard *sh)
{
	return sh->net;
}

struct rte_mempool *
ewyk_rt_shard_mbufs(const struct ewyk_rt_shard *sh)
{
	return sh->pool;
}

struct ewyk_tcp *
ewyk_rt_shard_tcp(const struct ewyk_rt_shard *sh)
{
	return sh->tcp;
}

struct ewyk_twheel *
ewyk_rt_shard_wheel(const struct ewyk_rt_shard *sh)
{
	return sh->wheel;
}

struct ewyk_purgatory *
ewyk_rt_shard_purgatory(const struct ewyk_rt_shard *sh)
{
	return sh->purg;
}

struct ewyk_http_server *
ewyk_rt_shard_http(const struct ewyk_rt_shard *sh)
{
	return sh->http;
}

int
ewyk_rt_timer_arm(struct ewyk_rt_shard *sh, struct ewyk_twheel_timer *t,
	uint64_t delay_ms, ewyk_twheel_cb_t cb, void *arg)
{
	uint64_t now = sh->now != 0 ? sh->now : rt_now();

	return ewyk_twheel_arm(sh->wheel, t,
		now + delay_ms * (rte_get_tsc_hz() / 1000), cb, arg);
}
