/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The metrics page (ewyk_rt_metrics_route()): Prometheus text exposition
 * (format 0.0.4) of every registered counter set. Every lib writes its own
 * counters from its own table (lib/common ewyk_ctr_prometheus(): net, TCP,
 * HTTP, timer wheels, purgatories, pools, strategies); the runtime adds
 * what only it holds (mbufs in use, inboxes, job outcomes, loop work per
 * lcore) from its tables below; then every set the application added
 * (ewyk_rt_metrics_add()). Samples are labelled shard="N", name="..." or
 * lcore="N".
 *
 * Each response is a snapshot, rendered at most once per
 * RT_METRICS_INTERVAL_MS per shard: the page is written whole into one of
 * RT_METRICS_SNAPSHOTS buffers of RT_METRICS_SIZE bytes that each shard
 * has (on its NUMA node, made at start; whoever holds the shard's token
 * runs the handler and so owns them), and every response of the shard
 * within the interval streams that same page (counted in
 * ewyk_rt_metrics_renders_total). The page is streamed under TCP flow
 * control; a buffer is free again when the last response streaming it
 * ends. A shard sends at most RT_METRICS_SNAPSHOTS responses at once;
 * beyond them the answer is 503 with Retry-After, counted in
 * ewyk_rt_metrics_busy_total. A page that does not fit is answered 500,
 * never truncated.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include <ewyk_common.h>

#include "rt_private.h"

/* Size of one page snapshot. */
#define RT_METRICS_SIZE (512u * 1024)
/* Page snapshots per shard: responses it sends at once. */
#define RT_METRICS_SNAPSHOTS 4
/* A shard renders the page at most once per this many milliseconds. */
#define RT_METRICS_INTERVAL_MS 1000

/* Per shard, what the application holds. */
#define RT_SHARD_METRICS(X)                                                \
	X(MBUFS, mbufs, GAUGE, "Mbufs in the shard's pool")                \
	X(MBUFS_IN_USE, mbufs_in_use, GAUGE,                               \
		"Mbufs of the shard's pool in use (not in the pool)")      \
	X(HTTP_CONNS, http_conns, GAUGE, "HTTP connection objects in use") \
	X(HTTP_CONNS_IDLE, http_conns_idle, GAUGE,                         \
		"HTTP connections idle (keep-alive), no head lease")       \
	X(HTTP_LEASES, http_leases, GAUGE,                                 \
		"HTTP head leases in use (parser scratch, header array)")  \
	X(HTTP_LEASE_FAILURES, http_lease_failures, COUNTER,               \
		"HTTP heads answered 503 for want of a lease")             \
	X(CONN_MEM_BYTES, conn_mem_bytes, GAUGE,                           \
		"Bytes per connection, TCP and HTTP, busy or idle")        \
	X(INBOX_CALLS, inbox_calls, COUNTER, "Calls posted to the inbox")  \
	X(INBOX_COMPLETIONS, inbox_completions, COUNTER,                   \
		"Task completions posted to the inbox")                    \
	X(INBOX_APPLIED, inbox_applied, COUNTER,                           \
		"Inbox messages applied by the holder")                    \
	X(INBOX_FULL, inbox_full, COUNTER,                                 \
		"Inbox posts and reservations refused: full")              \
	X(INBOX_QUEUED, inbox_queued, GAUGE, "Inbox messages waiting")     \
	X(METRICS_SNAPSHOTS, metrics_snapshots, GAUGE,                     \
		"GET /metrics responses of the shard being sent")          \
	X(METRICS_BUSY, metrics_busy, COUNTER,                             \
		"GET /metrics answered 503: it sends the most it may")     \
	X(METRICS_RENDERS, metrics_renders, COUNTER,                       \
		"GET /metrics pages rendered, once a second at most")

/* Per lcore, who did the work. */
#define RT_LCORE_METRICS(X)                                       \
	X(LOOPS, loops, COUNTER, "Loop iterations of the lcore")  \
	X(BUSY_CYCLES, busy_cycles, COUNTER,                      \
		"Cycles of the loop iterations that had packets") \
	X(BUSY_PKTS, busy_pkts, COUNTER,                          \
		"Packets taken by the loop iterations that had packets")

enum {
#define M_ENUM(sym, name, type, help) SM_##sym,
	RT_SHARD_METRICS(M_ENUM) SM_MAX
#undef M_ENUM
};
enum {
#define M_ENUM(sym, name, type, help) LM_##sym,
	RT_LCORE_METRICS(M_ENUM) LM_MAX
#undef M_ENUM
};

/* Series a table has at most: an outcome or mode per shard or lcore. */
#define MAX_PER_OBJ                                            \
	(EWYK_STRATEGY_MODE_MAX > EWYK_RT_TASK_CTR_MAX ?       \
			(unsigned int)EWYK_STRATEGY_MODE_MAX : \
			(unsigned int)EWYK_RT_TASK_CTR_MAX)
#define MAX_SERIES (EWYK_RT_MAX_LCORES * MAX_PER_OBJ)

static const struct ewyk_ctr_desc shard_desc[] = { RT_SHARD_METRICS(
	EWYK_CTR_DESC) };
static const struct ewyk_ctr_desc lcore_desc[] = { RT_LCORE_METRICS(
	EWYK_CTR_DESC) };
/* One metric each, the kind of thing in a label. */
static const struct ewyk_ctr_desc task_desc[] = {
	{ "tasks", "Dispatched tasks of the shard, by outcome",
		EWYK_CTR_COUNTER },
};
static const struct ewyk_ctr_desc mode_desc[] = {
	{ "lcore_tasks", "Tasks run on the lcore, by strategy mode",
		EWYK_CTR_COUNTER },
};

/* Label strings: shard="65535",outcome="..." and the like. */
#define LBL_SIZE 96

struct metrics_shard;

/* One rendered page: held by every response streaming it. */
struct metrics_snap {
	struct metrics_shard *ms;
	char *buf; /* RT_METRICS_SIZE bytes, on the shard's node */
	uint32_t len;
	uint32_t refs; /* responses streaming it */
};

/* A shard's snapshots; only its token holder touches them. */
struct metrics_shard {
	struct metrics_snap snap[RT_METRICS_SNAPSHOTS];
	struct metrics_snap *cur; /* the last page rendered, NULL: none */
	uint64_t cur_tsc;         /* when */
	uint32_t streams;         /* responses being sent */
	uint64_t in_use;  /* = streams, read by other lcores (relaxed) */
	uint64_t busy;    /* 503s: RT_METRICS_SNAPSHOTS streams */
	uint64_t renders; /* pages rendered */
	/* The application tables' scratch, made at start. */
	struct ewyk_prom_series *ser;
	char (*lbl)[LBL_SIZE];
	uint64_t *vals;
};

struct rt_metrics {
	struct ewyk_rt *rt;
	size_t size;
	uint64_t interval; /* TSC cycles between two renders, at least */
	struct metrics_shard sh[EWYK_RT_MAX_LCORES];
};

/* Scratch of a render outside any shard (ewyk_rt_metrics_write()). */
struct metrics_scratch {
	struct ewyk_prom_series *ser;
	char (*lbl)[LBL_SIZE];
	uint64_t *vals;
};

static uint64_t
ld(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* Count a writer's text (written at *off) in; -ENOSPC when it did not
 * fit in the size - *off bytes it had. */
static int
put(size_t size, size_t *off, int len)
{
	if (len < 0)
		return len;
	if ((size_t)len >= size - *off)
		return -ENOSPC;
	*off += (size_t)len;
	return 0;
}

static void
shard_read(const struct ewyk_rt_shard *sh, const struct metrics_shard *ms,
	uint64_t *v)
{
	const struct ewyk_http_server *srv = sh->http;
	struct ewyk_net_inbox_stats is;
	struct rt_conn_mem cm;

	memset(&is, 0, sizeof(is));
	ewyk_net_inbox_stats_get(sh->net, &is);
	v[SM_MBUFS] = sh->pool != NULL ? sh->pool->size : 0;
	v[SM_MBUFS_IN_USE] = sh->pool != NULL ?
		rte_mempool_in_use_count(sh->pool) :
		0;
	v[SM_HTTP_CONNS] = srv != NULL ? ewyk_http_server_conns(srv) : 0;
	rt_conn_mem(sh, &cm);
	v[SM_HTTP_CONNS_IDLE] = cm.http_idle;
	v[SM_HTTP_LEASES] = cm.http_leases;
	v[SM_HTTP_LEASE_FAILURES] = cm.http_lease_failures;
	v[SM_CONN_MEM_BYTES] = cm.conn_bytes;
	v[SM_INBOX_CALLS] = is.posted[EWYK_NET_MSG_CALL];
	v[SM_INBOX_COMPLETIONS] = is.posted[EWYK_NET_MSG_COMPLETION];
	v[SM_INBOX_APPLIED] = is.applied;
	v[SM_INBOX_FULL] = is.full;
	v[SM_INBOX_QUEUED] = is.queued;
	v[SM_METRICS_SNAPSHOTS] = ms != NULL ? ld(&ms->in_use) : 0;
	v[SM_METRICS_BUSY] = ms != NULL ? ld(&ms->busy) : 0;
	v[SM_METRICS_RENDERS] = ms != NULL ? ld(&ms->renders) : 0;
}

static void
scratch_free(struct metrics_scratch *x)
{
	rte_free(x->ser);
	rte_free(x->lbl);
	rte_free(x->vals);
	x->ser = NULL;
	x->lbl = NULL;
	x->vals = NULL;
}

/* The tables' scratch, on a NUMA node. 0 or -ENOMEM. */
static int
scratch_alloc(struct metrics_scratch *x, int socket)
{
	x->ser = rte_zmalloc_socket(NULL, sizeof(*x->ser) * MAX_SERIES, 0,
		socket);
	x->lbl = rte_zmalloc_socket(NULL, sizeof(*x->lbl) * MAX_SERIES, 0,
		socket);
	x->vals = rte_zmalloc_socket(NULL,
		sizeof(*x->vals) * MAX_SERIES * SM_MAX, 0, socket);
	if (x->ser == NULL || x->lbl == NULL || x->vals == NULL) {
		scratch_free(x);
		return -ENOMEM;
	}
	return 0;
}

/* The runtime's own tables, written with the scratch x. */
static int
rt_write(const struct ewyk_rt *rt, const struct metrics_scratch *x, char *buf,
	size_t size, size_t *off)
{
	struct ewyk_prom_series *ser = x->ser;
	char(*lbl)[LBL_SIZE] = x->lbl;
	uint64_t *vals = x->vals;
	unsigned int i, k, n;
	int ret;

	/* Per shard. */
	for (i = 0; i < rt->nb_shards; i++) {
		snprintf(lbl[i], LBL_SIZE, "shard=\"%u\"", i);
		shard_read(&rt->sh[i],
			rt->metrics != NULL ? &rt->metrics->sh[i] : NULL,
			&vals[i * SM_MAX]);
		ser[i].labels = lbl[i];
		ser[i].vals = &vals[i * SM_MAX];
	}
	ret = put(size, off,
		ewyk_ctr_prometheus(buf + *off, size - *off, "ewyk_rt",
			shard_desc, SM_MAX, ser, rt->nb_shards));
	if (ret != 0)
		return ret;
	/* Task outcomes per shard. */
	n = 0;
	for (i = 0; i < rt->nb_shards; i++) {
		for (k = 0; k < EWYK_RT_TASK_CTR_MAX; k++, n++) {
			snprintf(lbl[n], LBL_SIZE,
				"shard=\"%u\",outcome=\"%s\"", i,
				ewyk_rt_task_ctr_name(k));
			vals[n] = ld(&rt->sh[i].task[k]);
			ser[n].labels = lbl[n];
			ser[n].vals = &vals[n];
		}
	}
	ret = put(size, off,
		ewyk_ctr_prometheus(buf + *off, size - *off, "ewyk_rt",
			task_desc, 1, ser, n));
	if (ret != 0)
		return ret;
	/* Per lcore: loop work, then tasks by mode. */
	for (i = 0; i < rt->nb_lcores; i++) {
		const struct rt_lcore *lc = &rt->lc[i];

		snprintf(lbl[i], LBL_SIZE, "lcore=\"%u\",role=\"%s\"",
			lc->lcore_id, rt_lcore_role(lc));
		vals[i * LM_MAX + LM_LOOPS] = ld(&lc->ls.iters);
		vals[i * LM_MAX + LM_BUSY_CYCLES] = ld(&lc->ls.busy_cycles);
		vals[i * LM_MAX + LM_BUSY_PKTS] = ld(&lc->ls.busy_pkts);
		ser[i].labels = lbl[i];
		ser[i].vals = &vals[i * LM_MAX];
	}
	ret = put(size, off,
		ewyk_ctr_prometheus(buf + *off, size - *off, "ewyk_rt",
			lcore_desc, LM_MAX, ser, rt->nb_lcores));
	if (ret != 0)
		return ret;
	n = 0;
	for (i = 0; i < rt->nb_lcores; i++) {
		const struct rt_lcore *lc = &rt->lc[i];

		for (k = 0; k < EWYK_STRATEGY_MODE_MAX; k++, n++) {
			snprintf(lbl[n], LBL_SIZE,
				"lcore=\"%u\",role=\"%s\",mode=\"%s\"",
				lc->lcore_id, rt_lcore_role(lc),
				ewyk_strategy_mode_name(k));
			vals[n] = ld(&lc->ls.mode[k]);
			ser[n].labels = lbl[n];
			ser[n].vals = &vals[n];
		}
	}
	return put(size, off,
		ewyk_ctr_prometheus(buf + *off, size - *off, "ewyk_rt",
			mode_desc, 1, ser, n));
}

/* The page, with the application tables' scratch x. */
static int
metrics_render(const struct ewyk_rt *rt, const struct metrics_scratch *x,
	char *buf, size_t size)
{
	unsigned int i;
	size_t off = 0;
	int ret;

	if (rt == NULL || buf == NULL || size == 0)
		return -EINVAL;
	buf[0] = '\0';
	/* Every lib's counter set (lib/common's registries: net, TCP, HTTP,
	 * wheels, purgatories, pools, strategies, and any lib to come)... */
	ret = put(size, &off, ewyk_registry_prometheus_all(buf, size));
	/* ...the runtime's own... */
	if (ret == 0)
		ret = rt_write(rt, x, buf, size, &off);
	/* ...and every set the application added, in order. */
	for (i = 0; ret == 0 && i < rt->nb_metrics; i++)
		ret = put(size, &off,
			rt->metrics_w[i].fn(buf + off, size - off,
				rt->metrics_w[i].arg));
	if (ret != 0)
		return ret;
	return (int)off;
}

int
ewyk_rt_metrics_write(const struct ewyk_rt *rt, char *buf, size_t size)
{
	struct metrics_scratch x;
	int ret;

	if (rt == NULL || buf == NULL || size == 0)
		return -EINVAL;
	if (scratch_alloc(&x, SOCKET_ID_ANY) != 0)
		return -ENOMEM;
	ret = metrics_render(rt, &x, buf, size);
	scratch_free(&x);
	return ret;
}

/* Holder-written counters other lcores read. */
static void
bump(uint64_t *p, int64_t d)
{
	ewyk_ctr_add(p, (uint64_t)d);
}

static int
snap_produce(struct ewyk_http_conn *c, char *buf, uint32_t cap, uint64_t off,
	void *arg)
{
	const struct metrics_snap *sn = arg;

	RTE_SET_USED(c);
	/* cap never exceeds what the response still owes (len - off) */
	memcpy(buf, sn->buf + off, cap);
	return (int)cap;
}

/* The request ended (sent, or the connection went): one reader less. */
static void
snap_done(struct ewyk_http_conn *c, int aborted, void *arg)
{
	struct metrics_snap *sn = arg;
	struct metrics_shard *ms = sn->ms;

	RTE_SET_USED(c);
	RTE_SET_USED(aborted);
	sn->refs--;
	ms->streams--;
	bump(&ms->in_use, -1);
}

/*
 * The page to send now: the shard's last render while it is younger than
 * the interval, else a new one in a snapshot nobody streams (there is one:
 * fewer than RT_METRICS_SNAPSHOTS responses are being sent, each holds
 * one snapshot). NULL: the page does not fit (500).
 */
static struct metrics_snap *
snap_current(struct rt_metrics *m, struct metrics_shard *ms, uint64_t now)
{
	struct metrics_snap *sn = NULL;
	unsigned int k;
	int len;

	if (ms->cur != NULL && now - ms->cur_tsc < m->interval)
		return ms->cur;
	for (k = 0; k < RT_METRICS_SNAPSHOTS && sn == NULL; k++)
		if (ms->snap[k].refs == 0)
			sn = &ms->snap[k];
	if (sn == NULL)
		return NULL; /* cannot be: streams < SNAPSHOTS */
	/* Counted first: the page says it is the render it is. */
	bump(&ms->renders, 1);
	ms->cur = NULL;
	len = metrics_render(m->rt,
		&(struct metrics_scratch){ ms->ser, ms->lbl, ms->vals },
		sn->buf, m->size);
	if (len < 0)
		return NULL;
	sn->len = (uint32_t)len;
	ms->cur = sn;
	ms->cur_tsc = now;
	return sn;
}

static int
metrics_handler(struct ewyk_http_conn *c, const struct ewyk_http_request *req,
	void *arg)
{
	static const char too_big[] = "metrics do not fit in the page buffer\n";
	static const char busy[] =
		"every /metrics snapshot of this shard is being sent\n";
	struct ewyk_rt *rt = arg;
	struct rt_metrics *m = rt->metrics;
	struct ewyk_rt_shard *sh = ewyk_rt_shard_current();
	struct metrics_shard *ms;
	struct metrics_snap *sn;

	RTE_SET_USED(req);
	if (sh == NULL || m == NULL)
		return -ENODEV; /* answered 500 */
	ms = &m->sh[sh->id];
	if (ms->streams >= RT_METRICS_SNAPSHOTS) {
		bump(&ms->busy, 1);
		return ewyk_http_respond(c, 503, "text/plain",
			"Retry-After: 1\r\n", busy, sizeof(busy) - 1);
	}
	sn = snap_current(m, ms, sh->now);
	if (sn == NULL)
		return ewyk_http_respond(c, 500, "text/plain", NULL, too_big,
			sizeof(too_big) - 1);
	sn->refs++;
	ms->streams++;
	bump(&ms->in_use, 1);
	ewyk_http_on_done(c, snap_done, sn);
	/* Flow controlled: a reader that stops reading holds this snapshot
	 * and its send buffer's worth of mbufs, never the whole page. */
	ewyk_http_respond_stream(c, 200, "text/plain; version=0.0.4", NULL,
		(uint64_t)sn->len, snap_produce, sn);
	return EWYK_HTTP_HANDLED;
}

/* The same page for the route's fn form (HTTP/2 streams): a
 * NON_BLOCKING fn runs in place on the holder, as the raw handler. */
static int
snap_stream(void *arg, char *buf, uint32_t cap, uint64_t off)
{
	const struct metrics_snap *sn = arg;

	memcpy(buf, sn->buf + off, cap);
	return (int)cap;
}

static void
snap_release(void *arg)
{
	snap_done(NULL, 0, arg);
}

static int
metrics_fn(const struct ewyk_rt_req *req, struct ewyk_rt_result *res,
	enum ewyk_strategy_mode mode, void *arg)
{
	static const char too_big[] = "metrics do not fit in the page buffer\n";
	static const char busy[] =
		"every /metrics snapshot of this shard is being sent\n";
	struct ewyk_rt *rt = arg;
	struct rt_metrics *m = rt->metrics;
	struct ewyk_rt_shard *sh = ewyk_rt_shard_current();
	struct metrics_shard *ms;
	struct metrics_snap *sn;

	RTE_SET_USED(req);
	RTE_SET_USED(mode);
	if (sh == NULL || m == NULL)
		return -ENODEV; /* answered 500 */
	ms = &m->sh[sh->id];
	if (ms->streams >= RT_METRICS_SNAPSHOTS) {
		bump(&ms->busy, 1);
		ewyk_rt_result_status(res, 503, "text/plain");
		ewyk_rt_result_header(res, "Retry-After", "1");
		return ewyk_rt_result_body(res, busy, sizeof(busy) - 1);
	}
	sn = snap_current(m, ms, sh->now);
	if (sn == NULL) {
		ewyk_rt_result_status(res, 500, "text/plain");
		return ewyk_rt_result_body(res, too_big, sizeof(too_big) - 1);
	}
	sn->refs++;
	ms->streams++;
	bump(&ms->in_use, 1);
	ewyk_rt_result_status(res, 200, "text/plain; version=0.0.4");
	return ewyk_rt_result_stream(res, (uint64_t)sn->len, snap_stream,
		snap_release, sn);
}

static void
metrics_free(struct rt_metrics *m)
{
	unsigned int i, k;

	if (m == NULL)
		return;
	for (i = 0; i < EWYK_RT_MAX_LCORES; i++) {
		struct metrics_scratch x = { m->sh[i].ser, m->sh[i].lbl,
			m->sh[i].vals };

		for (k = 0; k < RT_METRICS_SNAPSHOTS; k++)
			rte_free(m->sh[i].snap[k].buf);
		scratch_free(&x);
	}
	rte_free(m);
}

int
ewyk_rt_metrics_add(struct ewyk_rt *rt, ewyk_rt_metrics_fn fn, void *arg)
{
	if (rt == NULL || fn == NULL)
		return -EINVAL;
	if (rt->running || rt->ran)
		return -EBUSY;
	if (rt->nb_metrics == EWYK_RT_MAX_METRICS)
		return -ENOSPC;
	rt->metrics_w[rt->nb_metrics].fn = fn;
	rt->metrics_w[rt->nb_metrics].arg = arg;
	rt->nb_metrics++;
	return 0;
}

int
ewyk_rt_metrics_route(struct ewyk_rt *rt, const char *path)
{
	struct ewyk_rt_route r = {
		.path = path,
		.methods = EWYK_HTTP_M(EWYK_HTTP_GET),
		.invocation = EWYK_STRATEGY_INVOKE_NON_BLOCKING,
		.raw = metrics_handler,
		.fn = metrics_fn,
	};

	if (rt == NULL || path == NULL)
		return -EINVAL;
	if (rt->metrics_path != NULL)
		return -EEXIST;
	/* The snapshots come at run; the route's argument is the runtime's
	 * (rt->metrics, set then). */
	r.arg = rt;
	rt->metrics_path = path;
	return ewyk_rt_http_route(rt, &r);
}

int
rt_metrics_start(struct ewyk_rt *rt)
{
	struct rt_metrics *m;
	unsigned int i, k;

	if (rt->metrics_path == NULL)
		return 0;
	m = rte_zmalloc("rt_metrics", sizeof(*m), 0);
	if (m == NULL) {
		RT_LOG(ERR, "error: /metrics: no memory");
		return -1;
	}
	m->rt = rt;
	m->size = RT_METRICS_SIZE;
	m->interval = rte_get_tsc_hz() / 1000 * RT_METRICS_INTERVAL_MS;
	rt->metrics = m;
	for (i = 0; i < rt->nb_shards; i++) {
		int socket = (int)rte_lcore_to_socket_id(rt->sh[i].home);
		struct metrics_scratch x;

		if (scratch_alloc(&x, socket) != 0) {
			RT_LOG(ERR, "error: /metrics: no memory for shard %u",
				i);
			return -1;
		}
		m->sh[i].ser = x.ser;
		m->sh[i].lbl = x.lbl;
		m->sh[i].vals = x.vals;

		for (k = 0; k < RT_METRICS_SNAPSHOTS; k++) {
			struct metrics_snap *sn = &m->sh[i].snap[k];

			sn->ms = &m->sh[i];
			sn->buf = rte_malloc_socket("rt_metrics_page", m->size,
				0, socket);
			if (sn->buf == NULL) {
				RT_LOG(ERR,
					"error: /metrics: no memory for shard %u",
					i);
				return -1;
			}
		}
	}
	return 0;
}

void
rt_metrics_fini(struct ewyk_rt *rt)
{
	metrics_free(rt->metrics);
	rt->metrics = NULL;
}
