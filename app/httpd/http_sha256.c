/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * POST /sha256: the lowercase hex SHA-256 of the request body and "\n",
 * with OpenSSL's libcrypto (EVP).
 *
 * The route is EITHER and its handler runs in place: it reads the body
 * into a bounded buffer per request. Each full buffer is hashed by an
 * EITHER job (ewyk_rt_job_start(): EPC when a reserved lcore is free, in
 * place (PIC) otherwise) while the body is paused: nothing more is read,
 * so nothing more is acknowledged and the uploader's window closes. When
 * the job is done the holder resumes the body, and at its end hashes the
 * rest and responds. A job refused or dropped by the strategy is hashed
 * on the holder instead (bounded CPU work: the body must go on); one past
 * its deadline (--task-timeout) is answered 504. Memory per request: one
 * buffer, whatever the body size (Content-Length or chunked).
 *
 * The hashing job touches the buffer and the digest context only; the
 * connection is the holder's business.
 *
 * HTTP/2 streams take the route's fn form with a body consumer: the
 * runtime hands the body over piece by piece as its DATA frames arrive
 * (up to SHA_FN_MAX, 413 beyond), each piece hashed by an EITHER job
 * (sha_piece) into a digest context of the shard's (one per dispatched
 * task the runtime may hold, so no source can take another's: the
 * tasks carry the per-source shares), and reopens the stream's window as
 * each piece is hashed; fn (sha_fn) then makes the digest. Memory per
 * stream: one window of body, whatever the body size.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>

#include <openssl/evp.h>

#include <rte_mbuf.h>

#include <ewyk_http_server.h>

#include "httpd.h"

#define SHA_BUF 65536
#define SHA_MAX 256
/* Largest body of the fn form (HTTP/2). */
#define SHA_FN_MAX (64u << 20)
/* Digest contexts of the fn form: one per task the runtime may hold. */
#define SHA_MD_MAX EWYK_RT_HTTP_MAX_TASKS

/* A digest context of the fn form. */
struct sha_md {
	EVP_MD_CTX *md;
	struct ewyk_pool *pool;
};

struct sha_st {
	struct ewyk_rt_job job; /* the hashing job */
	struct httpd_shard *sh;
	struct ewyk_http_conn *c; /* holder only */
	EVP_MD_CTX *md;           /* made with the pool, one per object */
	uint32_t len;             /* bytes in buf */
	uint32_t thresh;          /* hash when less room than this is left */
	uint8_t busy;             /* a hashing job runs */
	uint8_t body_done;
	uint8_t failed; /* libcrypto refused */
	int qtok;       /* the source's share (sh->q_sha) */
	char buf[SHA_BUF];
};

static void
sha_put(struct sha_st *s)
{
	ewyk_http_quota_give(s->sh->q_sha, s->qtok);
	s->qtok = -1;
	ewyk_pool_put(s->sh->sha_st, s);
}

/* Digest and respond; the request's end then frees @p s. */
static void
sha_finish(struct sha_st *s)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned int n = 0, i;
	char out[2 * EVP_MAX_MD_SIZE + 1];

	if (s->failed || EVP_DigestUpdate(s->md, s->buf, s->len) != 1 ||
		EVP_DigestFinal_ex(s->md, d, &n) != 1) {
		ewyk_http_respond(s->c, 500, "text/plain", NULL,
			"Internal Server Error\n", 22);
		return;
	}
	s->len = 0;
	for (i = 0; i < n; i++) {
		out[2 * i] = hex[d[i] >> 4];
		out[2 * i + 1] = hex[d[i] & 15];
	}
	out[2 * n] = '\n';
	ewyk_http_respond(s->c, 200, "text/plain", NULL, out, 2 * n + 1);
}

/* Hash what the buffer holds. */
static void
sha_update(struct sha_st *s)
{
	if (EVP_DigestUpdate(s->md, s->buf, s->len) != 1)
		s->failed = 1;
	s->len = 0;
}

/* The hashing job, on whatever lcore the strategy chose. */
static int
sha_run(struct ewyk_rt_job *j, enum ewyk_strategy_mode mode)
{
	RTE_SET_USED(mode);
	sha_update(container_of(j, struct sha_st, job));
	return 0;
}

/* Past its deadline, or its request ended while it ran: the job ends
 * here and frees the state (any lcore: pool and quota are atomic). */
static void
sha_drop(struct ewyk_rt_job *j)
{
	sha_put(container_of(j, struct sha_st, job));
}

/* The holder learns how the hashing job ended. */
static void
sha_job_done(void *ctx, struct ewyk_rt_job *j, enum ewyk_rt_outcome o, int ret)
{
	struct sha_st *s = ctx;

	RTE_SET_USED(j);
	RTE_SET_USED(ret);
	if (o == EWYK_RT_TIMED_OUT) {
		/* The job still runs: sha_drop() frees the state. */
		ewyk_http_on_done(s->c, NULL, NULL);
		ewyk_http_respond(s->c, 504, "text/plain", NULL,
			"Gateway Timeout\n", 16);
		return;
	}
	s->busy = 0;
	if (o != EWYK_RT_DONE)
		sha_update(s); /* refused or dropped: hash here */
	if (s->body_done)
		sha_finish(s);
	else
		ewyk_http_body_resume(s->c);
}

static const struct ewyk_rt_job_ops sha_ops = {
	.invocation = EWYK_STRATEGY_INVOKE_EITHER,
	.run = sha_run,
	.done = sha_job_done,
	.drop = sha_drop,
};

/* Hash the buffer: 1 when a job does it (wait for sha_job_done), 0 when
 * done here. */
static int
sha_flush(struct sha_st *s)
{
	struct ewyk_rt_shard *rs = ewyk_rt_shard_current();

	if (ewyk_rt_job_start(rs, &s->job, &sha_ops, s, 0) == 0) {
		s->busy = 1;
		return 1;
	}
	sha_update(s);
	return 0;
}

static int
sha_body(struct ewyk_http_conn *c, const char *p, uint32_t len, int last,
	void *arg)
{
	struct sha_st *s = arg;

	RTE_SET_USED(c);
	if (len > 0) {
		/* Room for a segment is always left (thresh). */
		memcpy(s->buf + s->len, p, len);
		s->len += len;
	}
	if (last) {
		s->body_done = 1;
		/* The tail is hashed in sha_finish(). */
		sha_finish(s);
		return 0;
	}
	if (SHA_BUF - s->len < s->thresh && sha_flush(s))
		return EWYK_HTTP_PENDING;
	return 0;
}

static void
sha_done(struct ewyk_http_conn *c, int aborted, void *arg)
{
	struct sha_st *s = arg;

	RTE_SET_USED(c);
	RTE_SET_USED(aborted);
	if (s->busy)
		ewyk_rt_job_cancel(&s->job); /* sha_drop() frees it */
	else
		sha_put(s);
}

static int
sha_handler(struct ewyk_http_conn *c, const struct ewyk_http_request *req,
	void *arg)
{
	struct ewyk_rt_shard *rs = ewyk_rt_shard_current();
	struct httpd_shard *sh = httpd_shard(arg, rs);
	struct sha_st *s;
	EVP_MD_CTX *md;
	int rc, tok;

	RTE_SET_USED(req);
	/* No source holds more than its share of the states. */
	tok = ewyk_http_quota_take(sh->q_sha, c);
	s = tok >= 0 ? ewyk_pool_get(sh->sha_st) : NULL;
	if (s == NULL) {
		ewyk_http_quota_give(sh->q_sha, tok);
		ewyk_http_respond(c, 503, "text/plain", NULL,
			"Service Unavailable\n", 20);
		return EWYK_HTTP_HANDLED;
	}
	s->qtok = tok;
	md = s->md;
	if (EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1) {
		s->sh = sh;
		sha_put(s);
		ewyk_http_respond(c, 500, "text/plain", NULL,
			"Internal Server Error\n", 22);
		return EWYK_HTTP_HANDLED;
	}
	s->sh = sh;
	s->c = c;
	s->len = 0;
	s->thresh = rte_pktmbuf_data_room_size(ewyk_rt_shard_mbufs(rs));
	s->busy = s->body_done = s->failed = 0;
	rc = ewyk_http_read_body(c, sha_body, s);
	if (rc == -ENOENT) {
		/* No body: the hash of nothing. */
		s->body_done = 1;
		ewyk_http_on_done(c, sha_done, s);
		sha_finish(s);
		return EWYK_HTTP_HANDLED;
	}
	if (rc != 0) {
		sha_put(s);
		ewyk_http_respond(c, 500, "text/plain", NULL,
			"Internal Server Error\n", 22);
		return EWYK_HTTP_HANDLED;
	}
	ewyk_http_on_done(c, sha_done, s);
	return EWYK_HTTP_PENDING;
}

/* Take every object of the pool (at set-up and teardown, nobody else
 * holds one). */
static unsigned int
sha_take_all(struct ewyk_pool *p, struct sha_st **all)
{
	unsigned int n = 0;

	while (n < SHA_MAX && (all[n] = ewyk_pool_get(p)) != NULL)
		n++;
	return n;
}

/* The fn form's digest contexts, each made now: none in the loop. */
static int
sha_md_init(struct ewyk_rt_shard *rs, struct httpd_shard *sh)
{
	struct ewyk_pool_params pp;
	struct sha_md *m;
	char name[32];
	void **all;
	unsigned int i, n = 0;
	int rc = 0;

	snprintf(name, sizeof(name), "http_sha_md_%u", ewyk_rt_shard_id(rs));
	memset(&pp, 0, sizeof(pp));
	pp.name = name;
	pp.capacity = SHA_MD_MAX;
	pp.obj_size = sizeof(struct sha_md);
	pp.socket_id = ewyk_rt_shard_socket(rs);
	pp.cache_size = 4;
	sh->sha_md = ewyk_pool_create(&pp);
	all = calloc(SHA_MD_MAX, sizeof(*all));
	if (sh->sha_md == NULL || all == NULL) {
		free(all);
		fprintf(stderr,
			"error: sha256 digests of shard %u: no memory\n",
			ewyk_rt_shard_id(rs));
		return -ENOMEM;
	}
	while (n < SHA_MD_MAX && (all[n] = ewyk_pool_get(sh->sha_md)) != NULL)
		n++;
	for (i = 0; i < n; i++) {
		m = all[i];
		m->pool = sh->sha_md;
		m->md = EVP_MD_CTX_new();
		if (m->md == NULL)
			rc = -ENOMEM;
		ewyk_pool_put(sh->sha_md, m);
	}
	free(all);
	return rc;
}

/* After every job: nobody holds a context. */
static void
sha_md_fini(struct httpd_shard *sh)
{
	struct sha_md *m;

	if (sh->sha_md == NULL)
		return;
	while ((m = ewyk_pool_get(sh->sha_md)) != NULL)
		EVP_MD_CTX_free(m->md);
	ewyk_pool_free(sh->sha_md);
	sh->sha_md = NULL;
}

/* The module: the shard's states, each with its digest context. */
static int
sha_init(struct ewyk_rt_shard *rs, void *arg)
{
	struct httpd_shard *sh = httpd_shard(arg, rs);
	struct ewyk_pool_params pp;
	struct sha_st *all[SHA_MAX];
	char name[32];
	unsigned int i, n;
	int rc = 0;

	/* a quarter of the states per source */
	sh->q_sha = ewyk_http_quota_create(SHA_MAX, SHA_MAX / 4,
		ewyk_rt_shard_socket(rs));
	if (sh->q_sha == NULL) {
		fprintf(stderr, "error: sha256 quota of shard %u: %s\n",
			ewyk_rt_shard_id(rs), rte_strerror(rte_errno));
		return -ENOMEM;
	}
	snprintf(name, sizeof(name), "http_sha_%u", ewyk_rt_shard_id(rs));
	memset(&pp, 0, sizeof(pp));
	pp.name = name;
	pp.capacity = SHA_MAX;
	pp.obj_size = sizeof(struct sha_st);
	pp.socket_id = ewyk_rt_shard_socket(rs);
	pp.cache_size = 4;
	sh->sha_st = ewyk_pool_create(&pp);
	if (sh->sha_st == NULL) {
		fprintf(stderr, "error: sha256 pool of shard %u: %s\n",
			ewyk_rt_shard_id(rs), rte_strerror(rte_errno));
		return -ENOMEM;
	}
	/* Every object gets its digest context now: none is made in the
	 * loop. */
	n = sha_take_all(sh->sha_st, all);
	for (i = 0; i < n; i++) {
		all[i]->md = EVP_MD_CTX_new();
		if (all[i]->md == NULL)
			rc = -ENOMEM;
		ewyk_pool_put(sh->sha_st, all[i]);
	}
	if (rc == 0)
		rc = sha_md_init(rs, sh);
	if (rc != 0)
		fprintf(stderr,
			"error: sha256 contexts of shard %u: no memory\n",
			ewyk_rt_shard_id(rs));
	return rc;
}

static void
sha_depart(struct ewyk_rt_shard *rs, void *arg)
{
	ewyk_pool_cache_flush(httpd_shard(arg, rs)->sha_st);
	ewyk_pool_cache_flush(httpd_shard(arg, rs)->sha_md);
}

/* After the HTTP server and every job: nobody holds a state. */
static void
sha_fini(struct ewyk_rt_shard *rs, void *arg)
{
	struct httpd_shard *sh = httpd_shard(arg, rs);
	struct sha_st *all[SHA_MAX];
	unsigned int i, n;

	ewyk_http_quota_free(sh->q_sha);
	sh->q_sha = NULL;
	sha_md_fini(sh);
	if (sh->sha_st == NULL)
		return;
	n = sha_take_all(sh->sha_st, all);
	for (i = 0; i < n; i++)
		EVP_MD_CTX_free(all[i]->md);
	ewyk_pool_free(sh->sha_st);
	sh->sha_st = NULL;
}

/* The fn form's body consumer: each piece into the request's digest
 * context, taken from the shard's pool at the first (any lcore: the
 * pool is atomic). */
static int
sha_piece(struct ewyk_rt_req *req, enum ewyk_strategy_mode mode, void *arg)
{
	struct httpd *h = arg;
	struct sha_md *s = req->state;

	RTE_SET_USED(mode);
	if (s == NULL) {
		s = ewyk_pool_get(h->sh[req->shard].sha_md);
		if (s == NULL)
			return -ENOBUFS; /* 500: not while tasks are bounded */
		req->state = s;
		if (EVP_DigestInit_ex(s->md, EVP_sha256(), NULL) != 1)
			return -EIO;
	}
	if (EVP_DigestUpdate(s->md, req->body, req->body_len) != 1)
		return -EIO;
	return 0;
}

static void
sha_state_free(void *state, void *arg)
{
	struct sha_md *s = state;

	RTE_SET_USED(arg);
	ewyk_pool_put(s->pool, s);
}

static int
sha_fn(const struct ewyk_rt_req *req, struct ewyk_rt_result *res,
	enum ewyk_strategy_mode mode, void *arg)
{
	static const char hex[] = "0123456789abcdef";
	const struct sha_md *s = req->state;
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned int n = 0, i;
	char out[2 * EVP_MAX_MD_SIZE + 1];

	RTE_SET_USED(mode);
	RTE_SET_USED(arg);
	if (s == NULL) {
		/* no body */
		if (EVP_Digest("", 0, d, &n, EVP_sha256(), NULL) != 1)
			return -EIO; /* 500 */
	} else if (EVP_DigestFinal_ex(s->md, d, &n) != 1) {
		return -EIO;
	}
	for (i = 0; i < n; i++) {
		out[2 * i] = hex[d[i] >> 4];
		out[2 * i + 1] = hex[d[i] & 15];
	}
	out[2 * n] = '\n';
	ewyk_rt_result_status(res, 200, "text/plain");
	return ewyk_rt_result_body(res, out, 2 * n + 1);
}

int
http_sha256_register(struct httpd *h)
{
	const struct ewyk_rt_route r = {
		.path = "/sha256",
		.methods = EWYK_HTTP_M(EWYK_HTTP_POST),
		.invocation = EWYK_STRATEGY_INVOKE_EITHER,
		.raw = sha_handler,
		.fn = sha_fn,
		.arg = h,
		.max_body = SHA_FN_MAX,
		.body = sha_piece,
		.state_free = sha_state_free,
	};
	const struct ewyk_rt_module m = {
		.name = "http sha256",
		.init = sha_init,
		.depart = sha_depart,
		.fini = sha_fini,
		.arg = h,
	};

	if (ewyk_rt_http_route(h->rt, &r) != 0 ||
		ewyk_rt_module_add(h->rt, &m) != 0)
		return -1;
	return 0;
}
