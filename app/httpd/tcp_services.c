/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The echo and discard services (--echo-port, --discard-port) and the
 * connection objects every TCP service of ewyk-httpd uses. Echo is the
 * runtime's buffered sender: what TCP cannot take yet waits on the
 * connection, and is reported consumed only once sent, so a client that
 * sends faster than it reads sees the receive window close.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>

#include <ewyk_tcp.h>

#include "tcp_services.h"

void
svc_release(struct svc_conn *sc)
{
	ewyk_rt_sendbuf_clear(&sc->out);
	ewyk_pool_put(sc->pool, sc);
}

void
svc_close(struct svc_conn *sc)
{
	struct ewyk_tcp_conn *c = sc->c;

	svc_release(sc);
	ewyk_tcp_close(c);
}

void
svc_echo_flush(struct svc_conn *sc)
{
	if (ewyk_rt_sendbuf_flush(sc->c, &sc->out) && sc->eof &&
		sc->task == NULL && sc->wait == NULL)
		svc_close(sc);
}

int
svc_accept(void *arg, struct ewyk_tcp_conn *c)
{
	struct httpd *h = arg;
	struct ewyk_rt_shard *sh = ewyk_rt_shard_current();
	struct ewyk_pool *pool = httpd_shard(h, sh)->conns;
	struct svc_conn *sc = ewyk_pool_get(pool);

	if (sc == NULL)
		return -ENOBUFS; /* refused: a RST, counted by TCP */
	memset(sc, 0, sizeof(*sc));
	sc->c = c;
	sc->pool = pool;
	sc->h = h;
	sc->sh = sh;
	ewyk_tcp_conn_set_ctx(c, sc);
	return 0;
}

static void
echo_recv(void *ctx, struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	struct svc_conn *sc = ctx;

	if (ewyk_rt_sendbuf_put(c, &sc->out, m) != 0) {
		/* The chain is full (counted: drop_app_chain). TCP has
		 * acknowledged these bytes: dropping them would corrupt the
		 * echo, so the connection goes. */
		ewyk_tcp_abort(c);
		svc_release(sc);
		return;
	}
	svc_echo_flush(sc);
}

static void
echo_eof(void *ctx, struct ewyk_tcp_conn *c)
{
	struct svc_conn *sc = ctx;

	RTE_SET_USED(c);
	sc->eof = true;
	if (sc->out.pend == NULL)
		svc_close(sc);
}

static void
echo_writable(void *ctx, struct ewyk_tcp_conn *c)
{
	RTE_SET_USED(c);
	svc_echo_flush(ctx);
}

static void
svc_closed(void *ctx, struct ewyk_tcp_conn *c, int err)
{
	RTE_SET_USED(c);
	RTE_SET_USED(err);
	svc_release(ctx);
}

static void
discard_recv(void *ctx, struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	RTE_SET_USED(ctx);
	ewyk_tcp_recvd(c, m->pkt_len);
	rte_pktmbuf_free(m);
}

static void
discard_eof(void *ctx, struct ewyk_tcp_conn *c)
{
	RTE_SET_USED(c);
	svc_close(ctx);
}

static const struct ewyk_tcp_ops echo_ops = {
	.accept = svc_accept,
	.recv = echo_recv,
	.eof = echo_eof,
	.writable = echo_writable,
	.closed = svc_closed,
};

static const struct ewyk_tcp_ops discard_ops = {
	.accept = svc_accept,
	.recv = discard_recv,
	.eof = discard_eof,
	.closed = svc_closed,
};

/* The module: the shard's pool of connection objects. */
static int
conns_init(struct ewyk_rt_shard *sh, void *arg)
{
	struct httpd *h = arg;
	struct ewyk_pool_params pp;
	char name[32];

	snprintf(name, sizeof(name), "svc_conn_%u", ewyk_rt_shard_id(sh));
	memset(&pp, 0, sizeof(pp));
	pp.name = name;
	/* The services are for tests and diagnostics: they need not hold
	 * as many connections as HTTP, and every object here is memory each
	 * connection of the capacity would pay for. Beyond: RST, counted. */
	pp.capacity = RTE_MIN(ewyk_rt_conf_get(h->rt)->tcp_max_conns,
		SVC_MAX_CONNS);
	pp.obj_size = sizeof(struct svc_conn);
	pp.socket_id = ewyk_rt_shard_socket(sh);
	pp.cache_size = 64;
	httpd_shard(h, sh)->conns = ewyk_pool_create(&pp);
	if (httpd_shard(h, sh)->conns == NULL) {
		fprintf(stderr, "error: service pool of shard %u: %s\n",
			ewyk_rt_shard_id(sh), rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

static void
conns_depart(struct ewyk_rt_shard *sh, void *arg)
{
	ewyk_pool_cache_flush(httpd_shard(arg, sh)->conns);
}

/* TCP still holds the connections: it resets them afterwards without
 * callbacks, so the pool goes whole. */
static void
conns_fini(struct ewyk_rt_shard *sh, void *arg)
{
	struct httpd_shard *hs = httpd_shard(arg, sh);

	ewyk_pool_free(hs->conns);
	hs->conns = NULL;
}

/* Objects the services hold (not in caches) of a pool. */
static uint64_t
pool_held(const struct ewyk_pool *p)
{
	struct ewyk_pool_info in;

	if (p == NULL || ewyk_pool_info_get(p, &in) != 0)
		return 0;
	return in.n_in_use - RTE_MIN(in.n_in_use, in.n_cached + in.n_handback);
}

static void
conns_telemetry(const struct ewyk_rt_shard *sh, struct rte_tel_data *d,
	void *arg)
{
	struct httpd_shard *hs = httpd_shard(arg, sh);

	rte_tel_data_add_dict_u64(d, "conns_held", pool_held(hs->conns));
	rte_tel_data_add_dict_u64(d, "tasks_held", pool_held(hs->tasks));
}

static int
listen_on(struct httpd *h, uint16_t port, const struct ewyk_tcp_ops *ops,
	const char *what)
{
	if (port == 0)
		return 0;
	if (ewyk_rt_tcp_listen(h->rt, port, ops, h) != 0)
		return -1;
	printf("tcp: %s on port %u\n", what, port);
	return 0;
}

int
tcp_services_register(struct httpd *h)
{
	const struct ewyk_rt_module m = {
		.name = "tcp services",
		.init = conns_init,
		.depart = conns_depart,
		.fini = conns_fini,
		.telemetry = conns_telemetry,
		.arg = h,
	};

	if (h->conf.echo_port == 0 && h->conf.discard_port == 0 &&
		h->conf.slow_echo_port == 0)
		return 0;
	if (ewyk_rt_module_add(h->rt, &m) != 0 ||
		listen_on(h, h->conf.echo_port, &echo_ops, "echo") != 0 ||
		listen_on(h, h->conf.discard_port, &discard_ops, "discard") !=
			0)
		return -1;
	return 0;
}
