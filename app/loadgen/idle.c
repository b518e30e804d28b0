/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The idle set of ewyk-loadgen (--idle N, idle.h): per shard, its share
 * of N connections, each a few words (its handle and the response bytes
 * it has while one is arriving), opened at a bounded rate (LG_IDLE_BURST
 * connects an iteration, LG_IDLE_INFLIGHT connecting or waiting for their
 * response), one request each, then held. The shard's phases:
 *
 *   OPEN   connect and ask, until every connection of the share was
 *          answered or failed (a share with no progress for --timeout
 *          gives up its pending ones: errors);
 *   HOLD   silent: the measured run of --conns goes on meanwhile;
 *   REUSE  once the client's shard drains (its window is over), one more
 *          request on every connection still held, LG_IDLE_BURST an
 *          iteration and LG_IDLE_INFLIGHT at once, until all are answered (or --timeout without
 *          progress);
 *   DONE   every connection closed (FIN): the client's shard may finish.
 *
 * A response counts when its head parses (lib/http's response parser),
 * its status is 2xx, it keeps the connection and its body has a length;
 * anything else (a reset, a FIN, bytes nobody asked for) is an error and
 * the connection is dropped.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include <ewyk_http_client.h>
#include <ewyk_tcp.h>

#include "idle.h"
#include "loadgen.h"

#define LG_IDLE_BURST 64 /* connects or requests an iteration */
/* Connections in SYN-SENT or waiting for a response, at most: what the
 * set has in flight stays within the shard's mbufs and TX ring (the
 * requests wait in TCP's send queues until acknowledged). */
#define LG_IDLE_INFLIGHT 512
#define LG_IDLE_HEAD 4096 /* longest response head (and body) taken */

enum ic_state {
	IC_NONE = 0, /* not opened yet */
	IC_SYN,      /* connecting */
	IC_WAIT,     /* request sent, response not complete */
	IC_HELD,     /* answered, open, silent */
	IC_DEAD,     /* failed or closed */
};

/* Why a connection of the set was lost (the JSON's idle errors). */
#define IE_KINDS(X)                                                         \
	X(CONNECT, connect)   /* connect failed: no port, object, answer */ \
	X(SEND, send)         /* request not sent: no mbuf, TCP refused */  \
	X(RESPONSE, response) /* not a 2xx keep-alive with a length */      \
	X(LOST, lost)         /* the server closed or reset it */           \
	X(TIMEOUT, timeout)   /* no progress for --timeout */

enum ie_kind {
#define IE_ENUM(sym, name) IE_##sym,
	IE_KINDS(IE_ENUM)
#undef IE_ENUM
		IE_MAX,
};

static const char *const ie_names[] = {
#define IE_NAME(sym, name) #name,
	IE_KINDS(IE_NAME)
#undef IE_NAME
};

enum is_phase {
	IS_OPEN = 0,
	IS_HOLD,
	IS_REUSE,
	IS_DONE,
};

struct lg_idle_shard;

struct lg_idle_conn {
	struct ewyk_tcp_conn *c;
	struct rte_mbuf *rx; /* the response so far */
	struct lg_idle_shard *is;
	uint8_t state; /* enum ic_state */
	uint8_t round; /* responses had: 1 after OPEN, 2 after REUSE */
};

struct lg_idle_shard {
	struct lg *g;
	struct ewyk_tcp *tcp;
	struct rte_mempool *pool;
	struct lg_idle_conn *conns;
	uint32_t n;        /* the share */
	uint32_t first;    /* index of conns[0] in the whole set */
	uint32_t next;     /* next to open, then next to ask again */
	uint32_t syns;     /* in IC_SYN */
	uint32_t waiting;  /* in IC_WAIT */
	uint32_t phase;    /* enum is_phase (read by other shards: atomic) */
	uint64_t now;      /* TSC of this iteration's poll (the last one) */
	uint64_t progress; /* TSC of the last connect, answer or failure */
	uint64_t opened, answered, reused; /* lg_stat_add */
	uint64_t errors[IE_MAX];
} __rte_cache_aligned;

struct lg_idle {
	rte_be32_t src0; /* --ip: the first source address */
	struct lg_idle_shard sh[LG_MAX_LCORES];
};

static struct lg_idle_shard *
shard_of(const struct lg *g, unsigned int id)
{
	return &g->idle->sh[id];
}

static void
ic_fail(struct lg_idle_conn *ic, enum ie_kind why)
{
	struct lg_idle_shard *is = ic->is;

	if (ic->state == IC_SYN)
		is->syns--;
	else if (ic->state == IC_WAIT)
		is->waiting--;
	if (ic->c != NULL) {
		if (ic->rx != NULL)
			ewyk_tcp_recv_consume(ic->c, &ic->rx,
				rte_pktmbuf_pkt_len(ic->rx));
		ewyk_tcp_abort(ic->c);
	}
	rte_pktmbuf_free(ic->rx);
	ic->rx = NULL;
	ic->c = NULL;
	ic->state = IC_DEAD;
	lg_stat_add(&is->errors[why], 1);
	is->progress = is->now;
}

/* One request on an open connection: 0, or -1 (failed, counted). */
static int
ic_ask(struct lg_idle_conn *ic)
{
	struct lg_idle_shard *is = ic->is;
	struct lg *g = is->g;
	struct rte_mbuf *m = rte_pktmbuf_alloc(is->pool);
	char *p;

	if (m == NULL)
		return -1;
	p = rte_pktmbuf_append(m, (uint16_t)g->req_len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return -1;
	}
	memcpy(p, g->req, g->req_len);
	if (ewyk_tcp_send(ic->c, m) != 0) {
		rte_pktmbuf_free(m);
		return -1;
	}
	ic->state = IC_WAIT;
	is->waiting++;
	return 0;
}

/* The response bytes so far: complete? Returns 1 (answered), 0 (more to
 * come) or -1 (not a response the set takes). */
static int
ic_parse(struct lg_idle_conn *ic)
{
	char buf[LG_IDLE_HEAD];
	struct ewyk_http_resp r;
	uint32_t len, n, hl;
	uint64_t total;
	const char *p;
	int rc;

	for (;;) {
		len = rte_pktmbuf_pkt_len(ic->rx);
		n = RTE_MIN(len, (uint32_t)LG_IDLE_HEAD);
		p = rte_pktmbuf_read(ic->rx, 0, n, buf);
		memset(&r, 0, sizeof(r));
		rc = ewyk_http_resp_parse(p, n, LG_IDLE_HEAD, 0, &r, &hl);
		if (rc == EWYK_HTTP_AGAIN)
			return len < LG_IDLE_HEAD ? 0 : -1;
		if (rc != EWYK_HTTP_DONE)
			return -1;
		if (r.status >= 200)
			break;
		/* interim (1xx): the answer follows */
		ewyk_tcp_recv_consume(ic->c, &ic->rx, hl);
		if (ic->rx == NULL)
			return 0;
	}
	if (r.until_close || r.framing == EWYK_HTTP_BODY_CHUNKED ||
		!r.keep_alive || r.status > 299)
		return -1;
	total = hl +
		(r.framing == EWYK_HTTP_BODY_LENGTH ? r.content_length : 0);
	if (len < total)
		return total <= LG_IDLE_HEAD ? 0 : -1;
	if (len > total)
		return -1; /* bytes nobody asked for */
	ewyk_tcp_recv_consume(ic->c, &ic->rx, len);
	return 1;
}

static void
ic_recv(void *ctx, struct ewyk_tcp_conn *c, struct rte_mbuf *m)
{
	struct lg_idle_conn *ic = ctx;
	struct lg_idle_shard *is = ic->is;
	int rc;

	if (ewyk_tcp_recv_append(c, &ic->rx, m) != 0) {
		rte_pktmbuf_free(m);
		ic_fail(ic, IE_RESPONSE);
		return;
	}
	if (ic->state != IC_WAIT) {
		ic_fail(ic, IE_RESPONSE); /* unsolicited */
		return;
	}
	rc = ic_parse(ic);
	if (rc < 0) {
		ic_fail(ic, IE_RESPONSE);
		return;
	}
	if (rc == 0)
		return;
	ic->state = IC_HELD;
	is->waiting--;
	is->progress = is->now;
	if (ic->round++ == 0)
		lg_stat_add(&is->answered, 1);
	else
		lg_stat_add(&is->reused, 1);
}

static void
ic_connected(void *ctx, struct ewyk_tcp_conn *c, int err)
{
	struct lg_idle_conn *ic = ctx;
	struct lg_idle_shard *is = ic->is;

	RTE_SET_USED(c);
	if (err != 0) {
		ic->c = NULL; /* gone already */
		ic_fail(ic, IE_CONNECT);
		return;
	}
	is->syns--;
	ic->state = IC_NONE;
	lg_stat_add(&is->opened, 1);
	is->progress = is->now;
	if (ic_ask(ic) != 0)
		ic_fail(ic, IE_SEND);
}

/* The server closed or reset it: the set has lost it. */
static void
ic_eof(void *ctx, struct ewyk_tcp_conn *c)
{
	RTE_SET_USED(c);
	ic_fail(ctx, IE_LOST);
}

static void
ic_closed(void *ctx, struct ewyk_tcp_conn *c, int err)
{
	struct lg_idle_conn *ic = ctx;

	RTE_SET_USED(c);
	RTE_SET_USED(err);
	ic->c = NULL; /* the handle is gone, and its budgets with it */
	ic_fail(ic, IE_LOST);
}

static const struct ewyk_tcp_ops ic_ops = {
	.connected = ic_connected,
	.recv = ic_recv,
	.eof = ic_eof,
	.closed = ic_closed,
};

static void
open_some(struct lg_idle_shard *is)
{
	struct lg *g = is->g;
	unsigned int k = 0;

	while (k < LG_IDLE_BURST && is->next < is->n &&
		is->syns + is->waiting < LG_IDLE_INFLIGHT) {
		struct lg_idle_conn *ic = &is->conns[is->next];
		uint32_t i = is->first + is->next;
		struct ewyk_tcp_connect_args a = {
			.dst_ip = g->conf.dst_ip,
			.dst_port = g->conf.dst_port,
			.src_ip = rte_cpu_to_be_32(
				rte_be_to_cpu_32(g->idle->src0) +
				i % g->conf.src_addrs),
			.ops = &ic_ops,
			.ctx = ic,
		};

		is->next++;
		k++;
		ic->c = ewyk_tcp_connect(is->tcp, &a);
		if (ic->c == NULL) {
			ic_fail(ic,
				IE_CONNECT); /* no local port or object: counted */
			continue;
		}
		ic->state = IC_SYN;
		is->syns++;
	}
}

static void
ask_again_some(struct lg_idle_shard *is)
{
	unsigned int k = 0;

	while (k < LG_IDLE_BURST && is->next < is->n &&
		is->waiting < LG_IDLE_INFLIGHT) {
		struct lg_idle_conn *ic = &is->conns[is->next++];

		if (ic->state != IC_HELD)
			continue;
		k++;
		if (ic_ask(ic) != 0)
			ic_fail(ic, IE_SEND);
	}
}

/* No progress for --timeout: what is still pending fails. */
static void
give_up(struct lg_idle_shard *is)
{
	uint32_t i;

	for (i = 0; i < is->n; i++)
		if (is->conns[i].state == IC_SYN ||
			is->conns[i].state == IC_WAIT)
			ic_fail(&is->conns[i], IE_TIMEOUT);
}

static void
close_all(struct lg_idle_shard *is)
{
	uint32_t i;

	for (i = 0; i < is->n; i++) {
		struct lg_idle_conn *ic = &is->conns[i];

		if (ic->state != IC_HELD)
			continue;
		ewyk_tcp_close(ic->c); /* FIN; no more callbacks */
		ic->c = NULL;
		ic->state = IC_DEAD;
	}
}

static void
set_phase(struct lg_idle_shard *is, enum is_phase p)
{
	__atomic_store_n(&is->phase, (uint32_t)p, __ATOMIC_RELEASE);
}

void
lg_idle_poll(struct ewyk_rt_shard *sh, uint64_t now, void *arg)
{
	struct lg *g = arg;
	unsigned int id = ewyk_rt_shard_id(sh);
	struct lg_idle_shard *is = shard_of(g, id);
	bool stale;

	is->now = now;
	if (is->progress == 0)
		is->progress = now;
	stale = now - is->progress > g->timeout_tsc;
	if (ewyk_rt_stopping(g->rt) && is->phase != IS_DONE) {
		/* a signal: the runtime resets what is open */
		set_phase(is, IS_DONE);
		return;
	}
	switch (is->phase) {
	case IS_OPEN:
		open_some(is);
		if (stale && (is->syns > 0 || is->waiting > 0))
			give_up(is);
		if (is->next == is->n && is->syns == 0 && is->waiting == 0)
			set_phase(is, IS_HOLD);
		break;
	case IS_HOLD:
		if (!g->lc[id].draining)
			break;
		is->next = 0;
		is->progress = now;
		stale = false; /* the hold was no stall */
		set_phase(is, IS_REUSE);
		/* fall through */
	case IS_REUSE:
		ask_again_some(is);
		if (stale && is->waiting > 0)
			give_up(is);
		if (is->next == is->n && is->waiting == 0) {
			close_all(is);
			set_phase(is, IS_DONE);
		}
		break;
	default:
		break;
	}
}

int
lg_idle_alloc(struct lg *g)
{
	g->idle = rte_zmalloc("lg_idle", sizeof(*g->idle), RTE_CACHE_LINE_SIZE);
	return g->idle == NULL ? -ENOMEM : 0;
}

void
lg_idle_release(struct lg *g)
{
	rte_free(g->idle);
	g->idle = NULL;
}

int
lg_idle_init(struct ewyk_rt_shard *sh, void *arg)
{
	struct lg *g = arg;
	unsigned int id = ewyk_rt_shard_id(sh);
	struct lg_idle_shard *is = shard_of(g, id);
	uint32_t per = g->conf.idle / g->nb_lcores;
	uint32_t rest = g->conf.idle % g->nb_lcores;
	uint32_t i;

	g->idle->src0 = ewyk_rt_conf_get(g->rt)->ip[0];
	is->g = g;
	is->tcp = ewyk_rt_shard_tcp(sh);
	is->pool = ewyk_rt_shard_mbufs(sh);
	is->n = per + (id < rest);
	is->first = per * id + RTE_MIN(id, rest);
	set_phase(is, is->n == 0 ? IS_HOLD : IS_OPEN);
	if (is->n == 0)
		return 0;
	is->conns = rte_zmalloc_socket("lg_idle_conns",
		sizeof(*is->conns) * is->n, RTE_CACHE_LINE_SIZE,
		ewyk_rt_shard_socket(sh));
	if (is->conns == NULL) {
		fprintf(stderr,
			"error: memory for %u idle connections on shard %u (try a larger -m)\n",
			is->n, id);
		return -ENOMEM;
	}
	for (i = 0; i < is->n; i++)
		is->conns[i].is = is;
	return 0;
}

void
lg_idle_fini(struct ewyk_rt_shard *sh, void *arg)
{
	struct lg *g = arg;
	struct lg_idle_shard *is = shard_of(g, ewyk_rt_shard_id(sh));
	uint32_t i;

	/* Chains of responses still arriving (a stop by signal); the
	 * connections themselves are reset by the runtime. */
	for (i = 0; i < is->n && is->conns != NULL; i++) {
		rte_pktmbuf_free(is->conns[i].rx);
		is->conns[i].rx = NULL;
	}
	rte_free(is->conns);
	is->conns = NULL;
}

bool
lg_idle_ready(const struct lg *g)
{
	unsigned int i;

	if (g->conf.idle == 0)
		return true;
	for (i = 0; i < g->nb_lcores; i++)
		if (__atomic_load_n(&g->idle->sh[i].phase, __ATOMIC_ACQUIRE) ==
			IS_OPEN)
			return false;
	return true;
}

bool
lg_idle_finished(const struct lg *g, unsigned int shard)
{
	return g->conf.idle == 0 ||
		__atomic_load_n(&g->idle->sh[shard].phase, __ATOMIC_ACQUIRE) ==
		IS_DONE;
}

void
lg_idle_counts(const struct lg *g, struct lg_idle_counts *out)
{
	unsigned int i, k;

	memset(out, 0, sizeof(*out));
	for (i = 0; g->idle != NULL && i < g->nb_lcores; i++) {
		const struct lg_idle_shard *is = &g->idle->sh[i];

		out->opened += lg_stat_get(&is->opened);
		out->answered += lg_stat_get(&is->answered);
		out->reused += lg_stat_get(&is->reused);
		for (k = 0; k < IE_MAX; k++)
			out->errors += lg_stat_get(&is->errors[k]);
	}
}

void
lg_idle_json(const struct lg *g)
{
	struct lg_idle_counts k;
	unsigned int i, e;

	if (g->conf.idle == 0)
		return;
	lg_idle_counts(g, &k);
	printf(", \"idle\": {\"conns\": %u, \"src_addrs\": %u, "
	       "\"opened\": %" PRIu64 ", \"answered\": %" PRIu64
	       ", \"reused\": %" PRIu64 ", \"errors\": %" PRIu64 "}",
		g->conf.idle, g->conf.src_addrs, k.opened, k.answered, k.reused,
		k.errors);
	printf(", \"idle_errors\": {");
	for (e = 0; e < IE_MAX; e++) {
		uint64_t v = 0;

		for (i = 0; i < g->nb_lcores; i++)
			v += lg_stat_get(&g->idle->sh[i].errors[e]);
		printf("%s\"%s\": %" PRIu64, e == 0 ? "" : ", ", ie_names[e],
			v);
	}
	printf("}");
}
