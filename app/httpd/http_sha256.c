/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * POST /sha256: the lowercase hex SHA-256 of the request body and "\n",
 * with OpenSSL's libcrypto (EVP).
 *
 * The route is EITHER and its handler runs in place: it reads the body
 * into a bounded buffer per request. Each full buffer is hashed by an
 * EITHER task of the strategy (EPC when a reserved lcore is free, in
 * place (PIC) otherwise) while the body is paused: nothing more is read,
 * so nothing more is acknowledged and the uploader's window closes. The
 * task posts its completion on the shard's inbox (a slot reserved at
 * dispatch); the holder resumes the body, and at its end hashes the rest
 * and responds. Memory per request: one buffer, whatever the body size
 * (Content-Length or chunked).
 *
 * The hashing task touches the buffer and the digest context only; the
 * connection is the holder's business.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>

#include <openssl/evp.h>

#include "http_app.h"

#define SHA_BUF 65536
#define SHA_MAX 256

struct sha_st {
	struct httpd_msg msg; /* first: the hashing task's completion */
	struct httpd_shard *sh;
	struct ewyk_http_conn *c; /* holder only */
	EVP_MD_CTX *md;           /* made with the pool, one per object */
	uint32_t len;             /* bytes in buf */
	uint32_t thresh;          /* hash when less room than this is left */
	uint8_t busy;             /* a hashing task runs */
	uint8_t body_done;
	uint8_t orphan; /* the request ended while busy: the task frees */
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

static void sha_apply(struct httpd_shard *sh, struct httpd_msg *m);

/* The hashing task, on whatever lcore the strategy chose. A task the
 * strategy refused or dropped hashes too: it is bounded CPU work, and the
 * body must go on. */
static void
sha_task(void *arg, enum ewyk_strategy_mode mode)
{
	struct sha_st *s = arg;
	struct httpd_lcore *lc = httpd_lcore_self(s->sh->app);

	if (lc != NULL)
		__atomic_fetch_add(&lc->ls.mode[mode], 1, __ATOMIC_RELAXED);
	if (EVP_DigestUpdate(s->md, s->buf, s->len) != 1)
		s->failed = 1;
	ewyk_net_inbox_complete(s->sh->shard, 0, &s->msg, 1);
}

/* Hash the buffer: 1 when a task does it (wait for sha_apply), 0 when
 * done here. */
static int
sha_flush(struct sha_st *s)
{
	struct httpd_shard *sh = s->sh;
	struct ewyk_strategy_task t = { .fn = sha_task,
		.arg = s,
		.invocation = EWYK_STRATEGY_INVOKE_EITHER };

	if (ewyk_net_inbox_reserve(sh->shard) == 0) {
		s->busy = 1;
		if (httpd_yield_task(sh, &t) == 0) {
			httpd_task_count(sh, HTTPD_TASK_DISPATCHED);
			return 1;
		}
		s->busy = 0;
		ewyk_net_inbox_unreserve(sh->shard);
	}
	if (EVP_DigestUpdate(s->md, s->buf, s->len) != 1)
		s->failed = 1;
	s->len = 0;
	return 0;
}

/* The holder applies a hashing task's completion. */
static void
sha_apply(struct httpd_shard *sh, struct httpd_msg *m)
{
	struct sha_st *s = (struct sha_st *)m;

	s->busy = 0;
	s->len = 0;
	httpd_task_count(sh, HTTPD_TASK_DONE);
	if (s->orphan) {
		httpd_task_count(sh, HTTPD_TASK_ORPHANED);
		sha_put(s);
		return;
	}
	if (s->body_done)
		sha_finish(s);
	else
		ewyk_http_body_resume(s->c);
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
		s->orphan = 1; /* sha_apply() frees it */
	else
		sha_put(s);
}

static int
sha_handler(struct ewyk_http_conn *c, const struct ewyk_http_request *req,
	void *arg)
{
	struct httpd_shard *sh = httpd_shard_current(arg);
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
	s->msg.apply = sha_apply;
	s->sh = sh;
	s->c = c;
	s->len = 0;
	s->thresh = rte_pktmbuf_data_room_size(sh->pool);
	s->busy = s->body_done = s->orphan = s->failed = 0;
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

int
http_sha256_register(struct httpd *h)
{
	return httpd_route_inplace(h, "/sha256", 0, EWYK_HTTP_M(EWYK_HTTP_POST),
		EWYK_STRATEGY_INVOKE_EITHER, sha_handler, h);
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

int
http_sha256_shard_init(struct httpd_shard *sh)
{
	struct ewyk_pool_params pp;
	struct sha_st *all[SHA_MAX];
	char name[32];
	unsigned int i, n;
	int rc = 0;

	/* a quarter of the states per source */
	sh->q_sha = ewyk_http_quota_create(SHA_MAX, SHA_MAX / 4,
		(int)rte_lcore_to_socket_id(sh->home));
	if (sh->q_sha == NULL) {
		fprintf(stderr, "error: sha256 quota of shard %u: %s\n", sh->id,
			rte_strerror(rte_errno));
		return -1;
	}
	snprintf(name, sizeof(name), "http_sha_%u", sh->id);
	memset(&pp, 0, sizeof(pp));
	pp.name = name;
	pp.capacity = SHA_MAX;
	pp.obj_size = sizeof(struct sha_st);
	pp.socket_id = (int)rte_lcore_to_socket_id(sh->home);
	pp.cache_size = 4;
	sh->sha_st = ewyk_pool_create(&pp);
	if (sh->sha_st == NULL) {
		fprintf(stderr, "error: sha256 pool of shard %u: %s\n", sh->id,
			rte_strerror(rte_errno));
		return -1;
	}
	/* Every object gets its digest context now: none is made in the
	 * loop. */
	n = sha_take_all(sh->sha_st, all);
	for (i = 0; i < n; i++) {
		all[i]->md = EVP_MD_CTX_new();
		if (all[i]->md == NULL)
			rc = -1;
		ewyk_pool_put(sh->sha_st, all[i]);
	}
	if (rc != 0)
		fprintf(stderr,
			"error: sha256 contexts of shard %u: no memory\n",
			sh->id);
	return rc;
}

void
http_sha256_shard_free(struct httpd_shard *sh)
{
	struct sha_st *all[SHA_MAX];
	unsigned int i, n;

	ewyk_http_quota_free(sh->q_sha);
	sh->q_sha = NULL;
	if (sh->sha_st == NULL)
		return;
	n = sha_take_all(sh->sha_st, all);
	for (i = 0; i < n; i++)
		EVP_MD_CTX_free(all[i]->md);
	ewyk_pool_free(sh->sha_st);
	sh->sha_st = NULL;
}
