/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The runtime's configuration: defaults, the standard options every ewyk
 * application takes after the EAL's, the application's own beside them,
 * and the checks of the limits against each other.
 */

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "rt_private.h"

static const char std_usage[] =
	"  --ip A.B.C.D/NN         address of a port; one per port, in port order\n"
	"  --gw A.B.C.D            default gateway of a port, in port order as --ip (at most one\n"
	"                          per --ip): destinations off the port's subnet go through it\n"
	"                          (without one they are unreachable). On the port's subnet\n"
	"  --ip6 ADDR/LEN          IPv6 address of a port (LEN 1..128), in port order as --ip:\n"
	"                          the first --ip6 is port 0's, the next port 1's; ports past\n"
	"                          the last --ip6 have no IPv6. A port with one also gets its\n"
	"                          link-local fe80:: address (from its MAC). TCP and HTTP\n"
	"                          listen on both families\n"
	"  --gw6 ADDR              IPv6 default router of a port, in port order as --ip6 (at most\n"
	"                          one per --ip6): off-link destinations go through it. On-link\n"
	"                          (link-local or on the port's --ip6 prefix). Static: router\n"
	"                          advertisements are not learnt\n"
	"  --stats-interval SEC    print per-lcore stats every SEC seconds (default 5; 0: only at exit)\n"
	"  --mtu N                 MTU of every port (68..9000; default: the port's)\n"
	"  --vlan ID               live on 802.1Q VLAN ID (1..4094) on every port\n"
	"  --mbufs N               mbufs per lcore pool (default 16383)\n"
	"  --mbuf-ops NAME         mempool ops of the mbuf pools, e.g. ewyk (lib/pool) or ring_mp_mc;\n"
	"                          default: DPDK's choice (--mbuf-pool-ops-name, else the platform's)\n"
	"  --reserved N            the last N lcores are reserved lcores (default 0)\n"
	"  --shared-reserved N     threads sharing the workers' CPUs that run queued blocking\n"
	"                          tasks (0..16; default 4 with --reserved 0, else 0; none with\n"
	"                          --strategy pc or epc; none and --reserved 0: run in place, as pc)\n"
	"  --strategy KIND         pc | pec | epc | adaptive (default adaptive)\n"
	"  --task-timeout MS       deadline of a dispatched task (default 5000)\n"
	"  --pec-ring N            capacity of the PEC ring of queued blocking tasks (default 1024)\n"
	"TCP limits, per shard (docs/guides/security.md):\n"
	"  --tcp-max-conns N       connections (default: from the memory given to the process,\n"
	"                          docs/guides/runtime.md; 1024..1048576)\n"
	"  --tcp-max-per-src N     connections one peer address may hold (default: a quarter of\n"
	"                          --tcp-max-conns; 0: no limit)\n"
	"  --tcp-mbuf-budget N     mbufs all send and out-of-order queues may pin (default: half\n"
	"                          of --mbufs; must leave some to receive)\n"
	"  --tcp-conn-mbufs N      mbufs one connection's queues may pin (default: budget / 16,\n"
	"                          at least 64)\n"
	"  --tcp-idle-ms MS        reset a connection nothing arrived on for MS (default 300000;\n"
	"                          0: never)\n"
	"  --tcp-orphan-ms MS      give up a closed connection the peer does not finish (default 60000)\n"
	"  --tcp-persist-ms MS     give up when the peer's window stays zero MS (default 300000)\n"
	"HTTP (when the application serves it):\n"
	"  --port N                HTTP on TCP port N (default: the application's; 0: no HTTP)\n"
	"  --listen ADDR           HTTP on this local address only (IPv4 or IPv6, one of the\n"
	"                          ports' addresses; default: all of them, both families)\n"
	"  --max-body BYTES        request body limit, 413 beyond (default 1 GiB)\n"
	"  --header-timeout S      request head read timeout, 408 (default 10)\n"
	"  --keepalive-timeout S   idle keep-alive connection timeout (default 60)\n"
	"  --body-timeout S        time between request body bytes, and a body's first\n"
	"                          allowance (default 30)\n"
	"  --body-min-rate N       a body must average N bytes/s: each byte extends its\n"
	"                          allowance by 1/N s; slower: 408 (default 500; 0: no minimum)\n"
	"  --write-timeout S       response write stall timeout (default 30)\n"
	"HTTP limits, per shard (docs/guides/http.md):\n"
	"  --http-max-conns N      HTTP connection objects, ~0.3 KB each (default: --tcp-max-conns)\n"
	"  --http-max-heads N      head leases: parser scratch and header array of a connection\n"
	"                          reading or serving a request, ~26 KB each (default 2048)\n"
	"  --http-max-per-src N    connection objects one peer address may hold (default: a\n"
	"                          quarter of --http-max-conns)\n"
	"  --http-max-heads-per-src N  head leases one peer address may hold (default: a quarter\n"
	"                          of --http-max-heads)\n"
	"  --h2-body-budget N      HTTP/2 request body bytes a shard holds, a quarter per peer\n"
	"                          address; beyond, WINDOW_UPDATEs wait (default: 64 MiB, or 4x\n"
	"                          the largest max_body a route gathers)\n";

/* Options without a short form. */
enum {
	OPT_IP = 256,
	OPT_IP6,
	OPT_GW,
	OPT_GW6,
	OPT_LISTEN,
	OPT_MBUF_OPS,
	OPT_STRATEGY,
	OPT_NUM,       /* + index into num_opts */
	OPT_APP = 512, /* + index into the application's */
};

/* The numeric options: name, bounds and where they go. */
struct num_opt {
	const char *name;
	unsigned long min, max;
	size_t off;
	size_t size; /* of the field: 2, 4 or 8 */
};

#define NUM_OPT(name, min, max, field)                                \
	{                                                             \
		name, min, max, offsetof(struct ewyk_rt_conf, field), \
			sizeof(((struct ewyk_rt_conf *)0)->field)     \
	}

static const struct num_opt num_opts[] = {
	NUM_OPT("stats-interval", 0, 86400, stats_interval),
	NUM_OPT("mtu", 68, 9000, mtu),
	NUM_OPT("vlan", 1, 4094, vlan),
	NUM_OPT("mbufs", 1023, 1u << 22, nb_mbufs),
	NUM_OPT("reserved", 0, EWYK_RT_MAX_LCORES - 1, reserved),
	NUM_OPT("shared-reserved", 0, EWYK_RT_MAX_SHARED, shared_reserved),
	NUM_OPT("task-timeout", 1, 3600000, task_timeout_ms),
	NUM_OPT("pec-ring", 1, 1u << 20, pec_ring),
	NUM_OPT("tcp-max-conns", 16, EWYK_RT_MAX_CONNS, tcp_max_conns),
	NUM_OPT("tcp-max-per-src", 0, EWYK_RT_MAX_CONNS, tcp_max_per_src),
	NUM_OPT("tcp-mbuf-budget", 0, 1u << 22, tcp_mbuf_budget),
	NUM_OPT("tcp-conn-mbufs", 0, 1u << 22, tcp_conn_mbufs),
	NUM_OPT("tcp-idle-ms", 0, 86400000, tcp_idle_ms),
	NUM_OPT("tcp-orphan-ms", 1, 86400000, tcp_orphan_ms),
	NUM_OPT("tcp-persist-ms", 1, 86400000, tcp_persist_ms),
	NUM_OPT("port", 0, 65535, http_port),
	NUM_OPT("max-body", 1, (unsigned long)INT64_MAX, max_body),
	NUM_OPT("header-timeout", 1, 86400, header_timeout),
	NUM_OPT("keepalive-timeout", 1, 86400, keepalive_timeout),
	NUM_OPT("body-timeout", 1, 86400, body_timeout),
	NUM_OPT("body-min-rate", 0, 1u << 30, body_min_rate),
	NUM_OPT("write-timeout", 1, 86400, write_timeout),
	NUM_OPT("http-max-conns", 1, 1u << 20, http_max_conns),
	NUM_OPT("http-max-heads", 1, 1u << 20, http_max_heads),
	NUM_OPT("http-max-per-src", 1, 1u << 20, http_max_per_src),
	NUM_OPT("http-max-heads-per-src", 1, 1u << 20, http_max_heads_per_src),
	NUM_OPT("h2-body-budget", 65536, (unsigned long)INT64_MAX,
		h2_body_budget),
};

void
ewyk_rt_conf_init(struct ewyk_rt_conf *c, const char *name)
{
	memset(c, 0, sizeof(*c));
	c->name = name != NULL ? name : "ewyk";
	c->stats_interval = 5;
	c->stats_out = stdout;
	c->nb_mbufs = 16383;
	c->strategy = EWYK_STRATEGY_ADAPTIVE;
	c->shared_reserved = UINT_MAX; /* RT_SHARED_DEFAULT or 0 */
	c->task_timeout_ms = 5000;
	c->tcp_max_conns = 0; /* from the memory (rt_conf_capacity()) */
	c->tcp_max_per_src = UINT_MAX; /* a quarter of tcp_max_conns */
	c->tcp_idle_ms = 300000;
	c->tcp_orphan_ms = 60000;
	c->tcp_persist_ms = 300000;
	c->http_port = UINT16_MAX; /* not given: ewyk_rt_http_listen's */
	c->max_body = UINT64_C(1) << 30;
	c->header_timeout = 10;
	c->keepalive_timeout = 60;
	c->body_timeout = 30;
	c->body_min_rate = 500;
	c->write_timeout = 30;
	c->http_max_heads = 2048;
}

int
ewyk_rt_opt_ulong(const char *name, const char *val, unsigned long min,
	unsigned long max, unsigned long *out)
{
	if (val != NULL && rt_parse_ulong(val, min, max, out) == 0)
		return 0;
	fprintf(stderr, "error: --%s '%s': expected %lu..%lu\n", name,
		val != NULL ? val : "", min, max);
	return -1;
}

int
ewyk_rt_eal_init(int *argc, char ***argv)
{
	const char *prog = (*argv)[0];
	sigset_t set;
	int n;

	/* Blocked here, inherited by every thread the EAL creates: only
	 * the runtime's own thread takes them (sigwait in rt.c). */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	n = rte_eal_init(*argc, *argv);
	if (n < 0) {
		fprintf(stderr, "error: EAL init: %s\n",
			rte_strerror(rte_errno));
		return -1;
	}
	*argc -= n;
	*argv += n;
	(*argv)[0] = (char *)(uintptr_t)prog;
	return 0;
}

static int
opt_ip(struct ewyk_rt_conf *c, const char *arg)
{
	unsigned long prefix;

	if (c->nb_ips == EWYK_NET_MAX_PORTS) {
		fprintf(stderr, "error: at most %d --ip\n", EWYK_NET_MAX_PORTS);
		return -1;
	}
	if (rt_parse_ip_num(arg, '/', 32, &c->ip[c->nb_ips], &prefix) != 0) {
		fprintf(stderr,
			"error: --ip '%s': expected A.B.C.D/NN (NN 1..32, address not 0.0.0.0)\n",
			arg);
		return -1;
	}
	c->prefix[c->nb_ips] = (uint8_t)prefix;
	c->nb_ips++;
	return 0;
}

static int
opt_gw(struct ewyk_rt_conf *c, const char *arg)
{
	struct in_addr a;

	if (c->nb_gws == EWYK_NET_MAX_PORTS) {
		fprintf(stderr,
			"error: --gw '%s': at most %d --gw, one per port\n",
			arg, EWYK_NET_MAX_PORTS);
		return -1;
	}
	if (inet_pton(AF_INET, arg, &a) != 1 || a.s_addr == 0) {
		fprintf(stderr,
			"error: --gw '%s': expected a unicast address A.B.C.D (no /NN)\n",
			arg);
		return -1;
	}
	c->gw[c->nb_gws++] = a.s_addr;
	return 0;
}

/* ADDR/LEN: a unicast address that is not ::, ::1 or link-local. */
static int
parse_ip6(const char *arg, uint8_t addr[16], uint8_t *prefix)
{
	static const uint8_t lo[16] = { [15] = 1 };
	char buf[INET6_ADDRSTRLEN + 8];
	unsigned long len;
	uint8_t a[16], any = 0;
	char *p;
	unsigned int i;

	if (strlen(arg) >= sizeof(buf))
		return -1;
	strcpy(buf, arg);
	p = strchr(buf, '/');
	if (p == NULL)
		return -1;
	*p++ = '\0';
	if (inet_pton(AF_INET6, buf, a) != 1 ||
		rt_parse_ulong(p, 1, 128, &len) != 0)
		return -1;
	for (i = 0; i < 16; i++)
		any |= a[i];
	if (any == 0 || memcmp(a, lo, 16) == 0 || a[0] == 0xff ||
		(a[0] == 0xfe && (a[1] & 0xc0) == 0x80))
		return -1;
	memcpy(addr, a, 16);
	*prefix = (uint8_t)len;
	return 0;
}

static int
opt_ip6(struct ewyk_rt_conf *c, const char *arg)
{
	if (c->nb_ip6s == EWYK_NET_MAX_PORTS) {
		fprintf(stderr,
			"error: --ip6 '%s': at most %d --ip6, one per port\n",
			arg, EWYK_NET_MAX_PORTS);
		return -1;
	}
	if (parse_ip6(arg, c->ip6[c->nb_ip6s], &c->prefix6[c->nb_ip6s]) != 0) {
		fprintf(stderr,
			"error: --ip6 '%s': expected ADDR/LEN (LEN 1..128; a unicast address, not ::, ::1, fe80::/10 or ff00::/8)\n",
			arg);
		return -1;
	}
	c->nb_ip6s++;
	return 0;
}

static int
opt_strategy(struct ewyk_rt_conf *c, const char *arg)
{
	unsigned int k;

	for (k = 0; k < EWYK_STRATEGY_KIND_MAX; k++)
		if (strcmp(arg, ewyk_strategy_kind_name(k)) == 0) {
			c->strategy = (enum ewyk_strategy_kind)k;
			return 0;
		}
	fprintf(stderr,
		"error: --strategy '%s': expected pc, pec, epc or adaptive\n",
		arg);
	return -1;
}

static int
opt_mbuf_ops(struct ewyk_rt_conf *c, const char *arg)
{
	if (arg[0] == '\0' || strlen(arg) >= RTE_MEMPOOL_OPS_NAMESIZE) {
		fprintf(stderr,
			"error: --mbuf-ops '%s': expected an ops name of 1..%d characters\n",
			arg, RTE_MEMPOOL_OPS_NAMESIZE - 1);
		return -1;
	}
	snprintf(c->mbuf_ops, sizeof(c->mbuf_ops), "%s", arg);
	return 0;
}

static int
opt_num(struct ewyk_rt_conf *c, const struct num_opt *no, const char *arg)
{
	unsigned long v;
	char *f;

	if (ewyk_rt_opt_ulong(no->name, arg, no->min, no->max, &v) != 0)
		return -1;
	f = (char *)c + no->off;
	if (no->size == sizeof(uint16_t))
		*(uint16_t *)f = (uint16_t)v;
	else if (no->size == sizeof(uint64_t))
		*(uint64_t *)f = (uint64_t)v;
	else
		*(unsigned int *)f = (unsigned int)v;
	return 0;
}

/* The TCP limits against each other and the pool; -1 (printed). */
static int
check_tcp_limits(struct ewyk_rt_conf *c)
{
	unsigned int budget = c->tcp_mbuf_budget != 0 ? c->tcp_mbuf_budget :
							c->nb_mbufs / 2;

	/* tcp_max_conns 0: ewyk_rt_create() sizes it, then checks again */
	if (c->tcp_max_per_src == UINT_MAX && c->tcp_max_conns != 0)
		c->tcp_max_per_src = c->tcp_max_conns / 4;
	if (c->tcp_max_conns != 0 && c->tcp_max_per_src != UINT_MAX &&
		c->tcp_max_per_src > c->tcp_max_conns) {
		fprintf(stderr,
			"error: --tcp-max-per-src %u is over --tcp-max-conns %u\n",
			c->tcp_max_per_src, c->tcp_max_conns);
		return -1;
	}
	if (budget >= c->nb_mbufs) {
		fprintf(stderr,
			"error: --tcp-mbuf-budget %u leaves no mbuf of the %u (--mbufs) to receive into\n",
			budget, c->nb_mbufs);
		return -1;
	}
	if (c->tcp_conn_mbufs > budget) {
		fprintf(stderr,
			"error: --tcp-conn-mbufs %u is over the shard's budget %u\n",
			c->tcp_conn_mbufs, budget);
		return -1;
	}
	return 0;
}

/*
 * The HTTP limits from the TCP ones: an object per TCP connection (so
 * that TCP's limits, not HTTP's, decide who is refused), a quarter of
 * them per source, leases at most one per object. -1 (printed).
 */
static int
check_http_limits(struct ewyk_rt_conf *c)
{
	if (c->tcp_max_conns == 0 && c->http_max_conns == 0)
		return 0; /* ewyk_rt_create() sizes TCP, then checks again */
	if (c->http_max_conns == 0)
		c->http_max_conns = c->tcp_max_conns;
	if (c->http_max_heads > c->http_max_conns)
		c->http_max_heads = c->http_max_conns;
	if (c->http_max_per_src == 0)
		c->http_max_per_src = RTE_MAX(c->http_max_conns / 4, 1u);
	if (c->http_max_heads_per_src == 0)
		c->http_max_heads_per_src = RTE_MAX(c->http_max_heads / 4, 1u);
	if (c->http_max_per_src > c->http_max_conns ||
		c->http_max_heads_per_src > c->http_max_heads) {
		fprintf(stderr,
			"error: --http-max-per-src %u / --http-max-heads-per-src %u over --http-max-conns %u / --http-max-heads %u\n",
			c->http_max_per_src, c->http_max_heads_per_src,
			c->http_max_conns, c->http_max_heads);
		return -1;
	}
	return 0;
}

/*
 * The memory given to the process: with --no-huge, what -m gave the EAL
 * (all of it reserved at start); with hugepages, those the process
 * already holds plus the free ones of the default size on its NUMA nodes
 * (the EAL tells no -m or --socket-mem limit once it allocates on
 * demand).
 */
uint64_t
rt_mem_given(void)
{
	struct rte_malloc_socket_stats st;
	unsigned long long kb = 0, n;
	uint64_t total = 0;
	unsigned int i;
	char path[128], line[128];
	FILE *f;

	if (!rte_eal_has_hugepages())
		return rte_eal_get_physmem_size();
	for (i = 0; i < rte_socket_count(); i++)
		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &st) ==
			0)
			total += st.heap_totalsz_bytes;
	/* What the heap may still grow into: the free pages of the default
	 * size (the one hugetlbfs mounts without a pagesize option) on the
	 * NUMA nodes the EAL uses. Other processes may take them first:
	 * an estimate, which --tcp-max-conns replaces. */
	f = fopen("/proc/meminfo", "r");
	if (f == NULL)
		return total;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Hugepagesize: %llu kB", &kb) == 1)
			break;
	fclose(f);
	for (i = 0; kb != 0 && i < rte_socket_count(); i++) {
		snprintf(path, sizeof(path),
			"/sys/devices/system/node/node%d/hugepages/hugepages-%llukB/free_hugepages",
			rte_socket_id_by_idx(i), kb);
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		if (fscanf(f, "%llu", &n) == 1)
			total += (uint64_t)kb * 1024 * n;
		fclose(f);
	}
	return total;
}

unsigned int
ewyk_rt_conf_capacity(const struct ewyk_rt_conf *c, unsigned int nb_shards,
	uint64_t mem_bytes)
{
	/* per shard: its mbufs and its HTTP head leases */
	uint64_t fixed = (uint64_t)c->nb_mbufs * EWYK_RT_MBUF_BYTES +
		(uint64_t)c->http_max_heads * EWYK_RT_LEASE_BYTES;
	uint64_t left, n;

	nb_shards = RTE_MAX(nb_shards, 1u);
	left = mem_bytes > fixed * nb_shards ? mem_bytes - fixed * nb_shards :
					       0;
	n = left / 4 / nb_shards / EWYK_RT_CONN_BYTES;
	n = RTE_MAX(RTE_MIN(n, (uint64_t)EWYK_RT_MAX_CONNS),
		(uint64_t)EWYK_RT_MIN_CONNS);
	return (unsigned int)rte_align64prevpow2(n);
}

static int
opt_gw6(struct ewyk_rt_conf *c, const char *arg)
{
	static const uint8_t zero[16];
	uint8_t *a;

	if (c->nb_gw6s == EWYK_NET_MAX_PORTS) {
		fprintf(stderr,
			"error: --gw6 '%s': at most %d --gw6, one per port\n",
			arg, EWYK_NET_MAX_PORTS);
		return -1;
	}
	a = c->gw6[c->nb_gw6s];
	if (inet_pton(AF_INET6, arg, a) != 1 || memcmp(a, zero, 16) == 0 ||
		a[0] == 0xff) {
		fprintf(stderr,
			"error: --gw6 '%s': expected a unicast IPv6 address (no /LEN)\n",
			arg);
		return -1;
	}
	c->nb_gw6s++;
	return 0;
}

/* --listen ADDR: an IPv4 or IPv6 unicast address, no /LEN. Whether it is
 * one of ours is checked when the ports have their addresses
 * (rt_http.c). */
static int
opt_listen(struct ewyk_rt_conf *c, const char *arg)
{
	static const uint8_t zero[16];
	struct in_addr a;

	if (inet_pton(AF_INET, arg, &a) == 1 && a.s_addr != 0 &&
		(rte_be_to_cpu_32(a.s_addr) >> 28) < 0xe) {
		c->http_listen_family = 4;
		c->http_listen_ip = a.s_addr;
		return 0;
	}
	if (inet_pton(AF_INET6, arg, c->http_listen_ip6) == 1 &&
		memcmp(c->http_listen_ip6, zero, 16) != 0 &&
		c->http_listen_ip6[0] != 0xff) {
		c->http_listen_family = 6;
		return 0;
	}
	fprintf(stderr,
		"error: --listen '%s': expected a unicast IPv4 or IPv6 address (no /LEN)\n",
		arg);
	return -1;
}

int
rt_conf_check(struct ewyk_rt_conf *c)
{
	if (c->nb_ips == 0) {
		fprintf(stderr,
			"error: at least one --ip A.B.C.D/NN is required\n");
		return -1;
	}
	if (c->nb_gws > c->nb_ips) {
		fprintf(stderr,
			"error: --gw: %u given for %u port(s) (--ip): at most one per port, in port order\n",
			c->nb_gws, c->nb_ips);
		return -1;
	}
	if (c->nb_ip6s > c->nb_ips) {
		fprintf(stderr,
			"error: --ip6: %u given for %u port(s) (--ip): at most one per port, in port order\n",
			c->nb_ip6s, c->nb_ips);
		return -1;
	}
	if (c->nb_gw6s > c->nb_ip6s) {
		fprintf(stderr,
			"error: --gw6: %u given for %u port(s) with --ip6: at most one per --ip6, in port order\n",
			c->nb_gw6s, c->nb_ip6s);
		return -1;
	}
	if (check_tcp_limits(c) != 0)
		return -1;
	return check_http_limits(c);
}

static void
usage(const char *prog, const struct ewyk_rt_opt *opts, unsigned int nb)
{
	unsigned int i;

	fprintf(stderr,
		"Usage: %s [EAL args] -- --ip A.B.C.D/NN [--ip ...] [--ip6 ADDR/LEN ...] [options]\n",
		prog);
	if (nb != 0) {
		fprintf(stderr, "Options of %s:\n", prog);
		for (i = 0; i < nb; i++)
			fprintf(stderr, "  --%s%s  %s\n", opts[i].name,
				opts[i].has_arg ? " V" : "",
				opts[i].help != NULL ? opts[i].help : "");
	}
	fprintf(stderr, "Options of every ewyk application:\n%s%s", std_usage,
		"  -h, --help              this text\n"
		"Without a NIC, e.g.: --no-huge -m 512 --vdev=net_af_packet0,iface=veth0\n");
}

int
ewyk_rt_parse_args(struct ewyk_rt_conf *c, int argc, char **argv,
	const struct ewyk_rt_opt *opts, unsigned int nb_opts)
{
	struct option lo[RTE_DIM(num_opts) + EWYK_RT_MAX_APP_OPTS + 8];
	unsigned int n = 0, i;
	int o, ret = 0;

	if (c == NULL || argv == NULL || nb_opts > EWYK_RT_MAX_APP_OPTS ||
		(nb_opts != 0 && opts == NULL))
		return -1;
	lo[n++] = (struct option){ "ip", required_argument, NULL, OPT_IP };
	lo[n++] = (struct option){ "ip6", required_argument, NULL, OPT_IP6 };
	lo[n++] = (struct option){ "gw", required_argument, NULL, OPT_GW };
	lo[n++] = (struct option){ "gw6", required_argument, NULL, OPT_GW6 };
	lo[n++] = (struct option){ "listen", required_argument, NULL,
		OPT_LISTEN };
	lo[n++] = (struct option){ "mbuf-ops", required_argument, NULL,
		OPT_MBUF_OPS };
	lo[n++] = (struct option){ "strategy", required_argument, NULL,
		OPT_STRATEGY };
	for (i = 0; i < RTE_DIM(num_opts); i++)
		lo[n++] = (struct option){ num_opts[i].name, required_argument,
			NULL, OPT_NUM + (int)i };
	for (i = 0; i < nb_opts; i++)
		lo[n++] = (struct option){ opts[i].name,
			opts[i].has_arg ? required_argument : no_argument, NULL,
			OPT_APP + (int)i };
	lo[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[n] = (struct option){ NULL, 0, NULL, 0 };

	optind = 1;
	while (ret == 0 && (o = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		if (o == 'h') {
			usage(argv[0], opts, nb_opts);
			return 1;
		}
		if (o == OPT_IP)
			ret = opt_ip(c, optarg);
		else if (o == OPT_IP6)
			ret = opt_ip6(c, optarg);
		else if (o == OPT_GW)
			ret = opt_gw(c, optarg);
		else if (o == OPT_GW6)
			ret = opt_gw6(c, optarg);
		else if (o == OPT_LISTEN)
			ret = opt_listen(c, optarg);
		else if (o == OPT_MBUF_OPS)
			ret = opt_mbuf_ops(c, optarg);
		else if (o == OPT_STRATEGY)
			ret = opt_strategy(c, optarg);
		else if (o >= OPT_APP && o < OPT_APP + (int)nb_opts)
			ret = opts[o - OPT_APP].parse(optarg,
				opts[o - OPT_APP].arg);
		else if (o >= OPT_NUM && o < OPT_NUM + (int)RTE_DIM(num_opts))
			ret = opt_num(c, &num_opts[o - OPT_NUM], optarg);
		else
			ret = -1; /* getopt printed it */
	}
	if (ret == 0 && optind < argc) {
		fprintf(stderr, "error: unexpected argument '%s'\n",
			argv[optind]);
		ret = -1;
	}
	if (ret == 0)
		ret = rt_conf_check(c);
	if (ret != 0) {
		usage(argv[0], opts, nb_opts);
		return -1;
	}
	return 0;
}
