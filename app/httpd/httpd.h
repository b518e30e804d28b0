/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_HTTPD_H
#define EWYK_HTTPD_H

/*
 * ewyk-httpd on the runtime (lib/runtime): what the application adds to
 * it. main.c parses the options (the runtime's and those below), builds
 * the runtime and registers each feature; each feature file registers its
 * routes or listeners and, when it keeps per-shard state, a module whose
 * hooks make and free that state. The features call the runtime and
 * their own helpers only: no file calls back into main.c.
 *
 *   tcp_services.c   --echo-port, --discard-port (and the connection
 *                    objects the slow echo shares)
 *   slow_echo.c      --slow-echo-port: each chunk a BLOCKING job
 *   http_routes.c    GET /, /bytes/<n>, /sleep/<ms>, POST /echo
 *   http_sha256.c    POST /sha256
 *   static_files.c   --root DIR
 */

#include <stdbool.h>
#include <stdint.h>

#include <ewyk_pool.h>
#include <ewyk_runtime.h>

/* The application's own options. */
struct httpd_conf {
	uint16_t echo_port;      /* --echo-port; 0: off */
	uint16_t discard_port;   /* --discard-port; 0: off */
	uint16_t slow_echo_port; /* --slow-echo-port; 0: off */
	unsigned int slow_ms;    /* --slow-ms: how long a task blocks */
	const char *root;        /* --root DIR; NULL: none */
};

struct static_root;

/* Per shard, what the features keep (each written by its holder). */
struct httpd_shard {
	struct ewyk_pool *conns;   /* TCP service connections */
	struct ewyk_pool *tasks;   /* slow-echo task objects */
	struct ewyk_pool *echo_st; /* POST /echo buffers */
	struct ewyk_pool *sha_st;  /* POST /sha256 buffers and digests */
	struct ewyk_pool *sha_md;  /* ... digests of its fn form (HTTP/2) */
	struct ewyk_http_quota *q_echo, *q_sha; /* per-source shares */
};

struct httpd {
	struct ewyk_rt *rt;
	struct httpd_conf conf;
	struct static_root *static_root; /* --root */
	struct httpd_shard sh[EWYK_RT_MAX_LCORES];
};

/* The feature state of a shard. */
static inline struct httpd_shard *
httpd_shard(struct httpd *h, const struct ewyk_rt_shard *sh)
{
	return &h->sh[ewyk_rt_shard_id(sh)];
}

/* Registration, on the main lcore after ewyk_rt_create(); 0, or -1
 * (printed). */
int tcp_services_register(struct httpd *h);
int slow_echo_register(struct httpd *h);
int http_routes_register(struct httpd *h);
int http_sha256_register(struct httpd *h);
int static_files_register(struct httpd *h);
/* Close what static_files_register() opened (after ewyk_rt_free()). */
void static_files_close(struct httpd *h);

#endif /* EWYK_HTTPD_H */
