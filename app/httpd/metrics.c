/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GET /metrics (see metrics.h). Every lib writes its own counters from its
 * own table (no name is repeated here); this file adds what only the
 * application holds, from its tables below, and joins the pieces into one
 * bounded page. A shard renders the page at most once per
 * HTTPD_METRICS_INTERVAL_MS into one of a small fixed set of snapshots,
 * and every response within the interval streams that same snapshot
 * (metrics.h).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include <ewyk_common.h>

#include "http_app.h"
#include "metrics.h"
#include "static_files.h"

/* Per shard, what the application holds. */
#define HTTPD_SHARD_METRICS(X)                                             \
	X(MBUFS, mbufs, GAUGE, "Mbufs in the shard's pool")                \
	X(MBUFS_IN_USE, mbufs_in_use, GAUGE,                               \
		"Mbufs of the shard's pool in use (not in the pool)")      \
	X(HTTP_CONNS, http_conns, GAUGE, "HTTP connection objects in use") \
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
#define HTTPD_LCORE_METRICS(X)                                    \
	X(LOOPS, loops, COUNTER, "Loop iterations of the lcore")  \
	X(BUSY_CYCLES, busy_cycles, COUNTER,                      \
		"Cycles of the loop iterations that had packets") \
	X(BUSY_PKTS, busy_pkts, COUNTER,                          \
		"Packets taken by the loop iterations that had packets")

enum {
#define M_ENUM(sym, name, type, help) SM_##sym,
	HTTPD_SHARD_METRICS(M_ENUM) SM_MAX
#undef M_ENUM
};
enum {
#define M_ENUM(sym, name, type, help) LM_##sym,
	HTTPD_LCORE_METRICS(M_ENUM) LM_MAX
#undef M_ENUM
};

/* Series a table has at most: an outcome or mode per shard or lcore. */
#define MAX_PER_OBJ                                            \
	(EWYK_STRATEGY_MODE_MAX > HTTPD_TASK_CTR_MAX ?         \
			(unsigned int)EWYK_STRATEGY_MODE_MAX : \
			(unsigned int)HTTPD_TASK_CTR_MAX)
#define MAX_SERIES (HTTPD_MAX_LCORES * MAX_PER_OBJ)

static const struct ewyk_ctr_desc shard_desc[] = { HTTPD_SHARD_METRICS(
	EWYK_CTR_DESC) };
static const struct ewyk_ctr_desc lcore_desc[] = { HTTPD_LCORE_METRICS(
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

/* What the process holds, once. */
static const struct ewyk_ctr_desc proc_desc[] = {
	{ "sigbus_ignored",
		"SIGBUS sent by a process (kill), not a fault: ignored, the "
		"--root guard stays",
		EWYK_CTR_COUNTER },
};

/* Label strings: shard="65535",outcome="..." and the like. */
#define LBL_SIZE 96

struct metrics_shard;

/* One rendered page: held by every response streaming it. */
struct metrics_snap {
	struct metrics_shard *ms;
	char *buf; /* HTTPD_METRICS_DEF_SIZE bytes, on the shard's node */
	uint32_t len;
	uint32_t refs; /* responses streaming it */
};

/* A shard's snapshots; only its token holder touches them. */
struct metrics_shard {
	struct metrics_snap snap[HTTPD_METRICS_SNAPSHOTS];
	struct metrics_snap *cur; /* the last page rendered, NULL: none */
	uint64_t cur_tsc;         /* when */
	uint32_t streams;         /* responses being sent */
	uint64_t in_use;  /* = streams, read by other lcores (relaxed) */
	uint64_t busy;    /* 503s: HTTPD_METRICS_SNAPSHOTS streams */
	uint64_t renders; /* pages rendered */
	/* The application tables' scratch, made at start. */
	struct ewyk_prom_series *ser;
	char (*lbl)[LBL_SIZE];
	uint64_t *vals;
};

struct httpd_metrics {
	struct httpd *h;
	size_t size;
	uint64_t interval; /* TSC cycles between two renders, at least */
	struct metrics_shard sh[HTTPD_MAX_LCORES];
};

/* Scratch of a render outside any shard (httpd_metrics_write()). */
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
shard_read(const struct httpd_shard *sh, const struct metrics_shard *ms,
	uint64_t *v)
{
	const struct ewyk_http_server *srv = sh->http;
	struct ewyk_net_inbox_stats is;

	memset(&is, 0, sizeof(is));
	ewyk_net_inbox_stats_get(sh->shard, &is);
	v[SM_MBUFS] = sh->pool != NULL ? sh->pool->size : 0;
	v[SM_MBUFS_IN_USE] = sh->pool != NULL ?
		rte_mempool_in_use_count(sh->pool) :
		0;
	v[SM_HTTP_CONNS] = srv != NULL ? ewyk_http_server_conns(srv) : 0;
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

/* The application's own tables, written with the scratch x. */
static int
app_write(const struct httpd *h, const struct metrics_scratch *x, char *buf,
	size_t size, size_t *off)
{
	struct ewyk_prom_series *ser = x->ser, proc;
	char(*lbl)[LBL_SIZE] = x->lbl;
	uint64_t *vals = x->vals, pv;
	unsigned int i, k, n;
	int ret;

	/* The process. */
	pv = static_files_sigbus_ignored();
	proc.labels = "";
	proc.vals = &pv;
	ret = put(size, off,
		ewyk_ctr_prometheus(buf + *off, size - *off, "ewyk_httpd",
			proc_desc, RTE_DIM(proc_desc), &proc, 1));
	if (ret != 0)
		return ret;
	/* Per shard. */
	for (i = 0; i < h->nb_shards; i++) {
		snprintf(lbl[i], LBL_SIZE, "shard=\"%u\"", i);
		shard_read(&h->sh[i],
			h->metrics != NULL ? &h->metrics->sh[i] : NULL,
			&vals[i * SM_MAX]);
		ser[i].labels = lbl[i];
		ser[i].vals = &vals[i * SM_MAX];
	}
	ret = put(size, off,
		ewyk_ctr_prometheus(buf + *off, size - *off, "ewyk_httpd",
			shard_desc, SM_MAX, ser, h->nb_shards));
	if (ret != 0)
		return ret;
	/* Task outcomes per shard. */
	n = 0;
	for (i = 0; i < h->nb_shards; i++) {
		for (k = 0; k < HTTPD_TASK_CTR_MAX; k++, n++) {
			snprintf(lbl[n], LBL_SIZE,
				"shard=\"%u\",outcome=\"%s\"", i,
				httpd_task_ctr_name(k));
			vals[n] = ld(&h->sh[i].task[k]);
			ser[n].labels = lbl[n];
			ser[n].vals = &vals[n];
		}
	}
	ret = put(size, off,
		ewyk_ctr_prometheus(buf + *off, size - *off, "ewyk_httpd",
			task_desc, 1, ser, n));
	if (ret != 0)
		return ret;
	/* Per lcore: loop work, then tasks by mode. */
	for (i = 0; i < h->nb_lcores; i++) {
		const struct httpd_lcore *lc = &h->lc[i];

		snprintf(lbl[i], LBL_SIZE, "lcore=\"%u\",role=\"%s\"",
			lc->lcore_id, httpd_lcore_role(lc));
		vals[i * LM_MAX + LM_LOOPS] = ld(&lc->ls.iters);
		vals[i * LM_MAX + LM_BUSY_CYCLES] = ld(&lc->ls.busy_cycles);
		vals[i * LM_MAX + LM_BUSY_PKTS] = ld(&lc->ls.busy_pkts);
		ser[i].labels = lbl[i];
		ser[i].vals = &vals[i * LM_MAX];
	}
	ret = put(size, off,
		ewyk_ctr_prometheus(buf + *off, size - *off, "ewyk_httpd",
			lcore_desc, LM_MAX, ser, h->nb_lcores));
	if (ret != 0)
		return ret;
	n = 0;
	for (i = 0; i < h->nb_lcores; i++) {
		const struct httpd_lcore *lc = &h->lc[i];

		for (k = 0; k < EWYK_STRATEGY_MODE_MAX; k++, n++) {
			snprintf(lbl[n], LBL_SIZE,
				"lcore=\"%u\",role=\"%s\",mode=\"%s\"",
				lc->lcore_id, httpd_lcore_role(lc),
				ewyk_strategy_mode_name(k));
			vals[n] = ld(&lc->ls.mode[k]);
			ser[n].labels = lbl[n];
			ser[n].vals = &vals[n];
		}
	}
	return put(size, off,
		ewyk_ctr_prometheus(buf + *off, size - *off, "ewyk_httpd",
			mode_desc, 1, ser, n));
}

/* The page, with the application tables' scratch x. */
static int
metrics_render(const struct httpd *h, const struct metrics_scratch *x,
	char *buf, size_t size)
{
	const struct ewyk_http_server *srv[HTTPD_MAX_LCORES];
	unsigned int i, nsrv = 0;
	size_t off = 0;
	int ret;

	if (h == NULL || buf == NULL || size == 0)
		return -EINVAL;
	for (i = 0; i < h->nb_shards; i++)
		if (h->sh[i].http != NULL)
			srv[nsrv++] = h->sh[i].http;
	buf[0] = '\0';
	ret = put(size, &off, ewyk_net_prometheus(buf, size));
	if (ret == 0)
		ret = put(size, &off,
			ewyk_tcp_prometheus(buf + off, size - off));
	if (ret == 0 && nsrv > 0)
		ret = put(size, &off,
			ewyk_http_server_prometheus(srv, nsrv, buf + off,
				size - off));
	if (ret == 0)
		ret = put(size, &off,
			ewyk_twheel_prometheus(buf + off, size - off));
	if (ret == 0)
		ret = put(size, &off,
			ewyk_purgatory_prometheus(buf + off, size - off));
	if (ret == 0)
		ret = put(size, &off,
			ewyk_pool_prometheus(buf + off, size - off));
	if (ret == 0)
		ret = put(size, &off,
			ewyk_strategy_prometheus(buf + off, size - off));
	if (ret == 0)
		ret = app_write(h, x, buf, size, &off);
	if (ret != 0)
		return ret;
	return (int)off;
}

int
httpd_metrics_write(const struct httpd *h, char *buf, size_t size)
{
	struct metrics_scratch x;
	int ret;

	if (h == NULL || buf == NULL || size == 0)
		return -EINVAL;
	if (scratch_alloc(&x, SOCKET_ID_ANY) != 0)
		return -ENOMEM;
	ret = metrics_render(h, &x, buf, size);
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
 * fewer than HTTPD_METRICS_SNAPSHOTS responses are being sent, each holds
 * one snapshot). NULL: the page does not fit (500).
 */
static struct metrics_snap *
snap_current(struct httpd_metrics *m, struct metrics_shard *ms, uint64_t now)
{
	struct metrics_snap *sn = NULL;
	unsigned int k;
	int len;

	if (ms->cur != NULL && now - ms->cur_tsc < m->interval)
		return ms->cur;
	for (k = 0; k < HTTPD_METRICS_SNAPSHOTS && sn == NULL; k++)
		if (ms->snap[k].refs == 0)
			sn = &ms->snap[k];
	if (sn == NULL)
		return NULL; /* cannot be: streams < SNAPSHOTS */
	/* Counted first: the page says it is the render it is. */
	bump(&ms->renders, 1);
	ms->cur = NULL;
	len = metrics_render(m->h,
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
	struct httpd_metrics *m = arg;
	struct httpd_shard *sh = httpd_shard_current(m->h);
	struct metrics_shard *ms;
	struct metrics_snap *sn;

	RTE_SET_USED(req);
	if (sh == NULL)
		return -ENODEV; /* answered 500 */
	ms = &m->sh[sh->id];
	if (ms->streams >= HTTPD_METRICS_SNAPSHOTS) {
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

static void
metrics_free(struct httpd_metrics *m)
{
	unsigned int i, k;

	if (m == NULL)
		return;
	for (i = 0; i < HTTPD_MAX_LCORES; i++) {
		struct metrics_scratch x = { m->sh[i].ser, m->sh[i].lbl,
			m->sh[i].vals };

		for (k = 0; k < HTTPD_METRICS_SNAPSHOTS; k++)
			rte_free(m->sh[i].snap[k].buf);
		scratch_free(&x);
	}
	rte_free(m);
}

int
httpd_metrics_init(struct httpd *h)
{
	struct httpd_metrics *m;
	unsigned int i, k;

	if (h->conf.http_port == 0)
		return 0;
	m = rte_zmalloc("httpd_metrics", sizeof(*m), 0);
	if (m == NULL) {
		fprintf(stderr, "error: /metrics: no memory\n");
		return -1;
	}
	m->h = h;
	m->size = HTTPD_METRICS_DEF_SIZE;
	m->interval = rte_get_tsc_hz() / 1000 * HTTPD_METRICS_INTERVAL_MS;
	h->metrics = m;
	for (i = 0; i < h->nb_shards; i++) {
		int socket = (int)rte_lcore_to_socket_id(h->sh[i].home);
		struct metrics_scratch x;

		if (scratch_alloc(&x, socket) != 0) {
			fprintf(stderr,
				"error: /metrics: no memory for shard %u\n", i);
			return -1;
		}
		m->sh[i].ser = x.ser;
		m->sh[i].lbl = x.lbl;
		m->sh[i].vals = x.vals;

		for (k = 0; k < HTTPD_METRICS_SNAPSHOTS; k++) {
			struct metrics_snap *sn = &m->sh[i].snap[k];

			sn->ms = &m->sh[i];
			sn->buf = rte_malloc_socket("httpd_metrics_page",
				m->size, 0, socket);
			if (sn->buf == NULL) {
				fprintf(stderr,
					"error: /metrics: no memory for shard %u\n",
					i);
				return -1;
			}
		}
	}
	if (httpd_route_inplace(h, "/metrics", 0, EWYK_HTTP_M(EWYK_HTTP_GET),
		    EWYK_STRATEGY_INVOKE_NON_BLOCKING, metrics_handler, m) != 0)
		return -1;
	return 0;
}

void
httpd_metrics_fini(struct httpd *h)
{
	metrics_free(h->metrics);
	h->metrics = NULL;
}
