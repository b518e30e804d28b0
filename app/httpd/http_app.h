/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_HTTPD_HTTP_APP_H
#define EWYK_HTTPD_HTTP_APP_H

/*
 * HTTP in ewyk-httpd: the routes and how a route's code is run.
 *
 * One router for the whole process (built before the shards start, read
 * only afterwards), one lib/http server per shard listening on --port.
 * A route is one of two kinds:
 *
 * 1. In place (NON_BLOCKING, or EITHER handled by its own code): an
 *    ewyk_http_handler_t of lib/http, run on the shard's token holder in
 *    the receive pass, while the request's bytes are hot. It responds with
 *    ewyk_http_respond*() during the call or later (EWYK_HTTP_PENDING).
 *    Register with httpd_route_inplace(). It must not block.
 *
 * 2. Blocking (BLOCKING, or EITHER): an httpd_blocking_fn, run by the
 *    strategy on whatever lcore it picks (PC: in place; EPC: here, after
 *    production moved to a reserved lcore; PEC: queued for a reserved
 *    lcore; PIC: in place, EITHER only, told it must not block). Register
 *    with httpd_route_blocking(). The function gets a copy of the request
 *    head (struct httpd_req, owned by the task, valid during the call) and
 *    fills a struct httpd_result (status, Content-Type, extra field lines,
 *    and a body: bytes copied into the result, or a stream made on the
 *    token holder). It never sees the connection: the task holds a
 *    purgatory ticket only. The token holder applies the result through
 *    the shard's inbox. The request body of a dispatched request is read
 *    and dropped (a route that needs the body reads it in place, as
 *    POST /sha256 does, and dispatches its own work).
 *
 *    Whatever comes first wins, by one CAS on the purgatory op:
 *    - the result: the holder responds with it;
 *    - the deadline (--task-timeout): the holder answers 504; the late
 *      result is freed (httpd_result_release()) and counted "late" (a
 *      result made after its deadline does not claim the op, even when
 *      the holder could not see the deadline pass: a task run in place
 *      under PC);
 *    - the connection closes: the op is cancelled, the result freed when
 *      the task ends, counted "orphaned".
 *    A task the strategy refuses (PEC ring full) is answered 503 (counted
 *    "rejected"). A connection with a dispatched request parses no
 *    further pipelined request until it is answered (lib/http), so
 *    responses keep request order.
 *
 * Threads: httpd_route_*() before the lcores start (main lcore). A
 * blocking function runs on any lcore, concurrently with others: it may
 * use only its arguments and its own thread-safe state.
 */

#include <stdint.h>

#include <ewyk_http.h>
#include <ewyk_strategy.h>

#include "httpd.h"

/** Bytes of a dispatched request head kept in the task itself (target and
 *  header fields); a longer head takes a large copy. */
#define HTTPD_REQ_BUF 4096
/** Header fields kept in the task itself; more take a large copy. */
#define HTTPD_REQ_MAX_HEADERS 32
/** Large head copies of a shard: each holds any head the shard's HTTP
 *  server accepts (sized from its limits, ewyk_http_server_limits()). */
#define HTTPD_REQ_LARGE 64
/** Room for the extra field lines of a result. */
#define HTTPD_RESULT_EXTRA 256
/** Bytes of a result body kept inside the result (no allocation). */
#define HTTPD_RESULT_INLINE 256
/** Largest body a result may copy (httpd_result_body()); larger: stream.
 *  One longer than EWYK_HTTP_RESPOND_MAX is sent from the result under TCP
 *  flow control (the task is kept until the request ends). */
#define HTTPD_RESULT_MAX_BODY (1u << 20)
/** Routes of the process, at most. */
#define HTTPD_MAX_ROUTES 64

/** One header field of a dispatched request; NUL-terminated copies. */
struct httpd_req_header {
	const char *name;  /**< as received */
	const char *value; /**< OWS trimmed */
};

/**
 * A copy of a request head, handed to a blocking function. Strings are
 * NUL-terminated copies. Any head the HTTP server accepted (its limits:
 * request line, header section bytes, field count) is dispatched: one
 * whose strings fit in HTTPD_REQ_BUF bytes and HTTPD_REQ_MAX_HEADERS
 * fields is copied into the task itself, a larger one into one of the
 * shard's HTTPD_REQ_LARGE large copies, sized from the server's limits.
 * With every large copy in use the request is answered 503 (counted
 * "head_busy").
 */
struct httpd_req {
	uint16_t shard; /**< shard that received it */
	uint8_t method; /**< enum ewyk_http_method */
	uint8_t head;   /**< 1: HEAD: the body of the result is not sent */
	uint8_t version_minor;        /**< 0 or 1 */
	uint16_t nheaders;            /**< fields in hdr[] */
	const char *target;           /**< request-target as received */
	const char *path;             /**< target up to '?' (percent-encoded) */
	uint32_t path_len;            /**< its length */
	const char *query;            /**< after '?', "" when none */
	const char *host;             /**< the request's host ("" when none) */
	struct httpd_req_header *hdr; /**< fields, nheaders of them */
	/** TSC of the task's deadline (--task-timeout after dispatch): a
	 *  result made after it is dropped and the client has had its 504,
	 *  so a function that waits should wait no longer than this. */
	uint64_t deadline;
};

/**
 * Find a field of a dispatched request, case-insensitively.
 *
 * @param r     request
 * @param name  field name, NUL-terminated
 * @return the first value of that field, or NULL
 */
const char *httpd_req_header(const struct httpd_req *r, const char *name);

/**
 * A streamed body, produced on the shard's token holder whenever TCP can
 * take more bytes (after the task ended). Must not block.
 *
 * @param arg  httpd_result_stream()'s argument
 * @param buf  where to write
 * @param cap  room in buf (> 0; never more than the bytes still owed)
 * @param off  bytes produced before this call
 * @return bytes written (> 0); 0: end of a chunked body; a negative errno:
 *   abort the connection
 */
typedef int (
	*httpd_stream_fn)(void *arg, char *buf, uint32_t cap, uint64_t off);

/**
 * Release a stream's argument; called exactly once on the token holder,
 * when the response is over, the connection is gone, or the result is
 * dropped (deadline, shutdown) before it was used.
 *
 * @param arg  httpd_result_stream()'s argument
 */
typedef void (*httpd_stream_free_fn)(void *arg);

/**
 * What a blocking function returns. Zeroed before the call; fill it with
 * the httpd_result_*() helpers. The body is either bytes (body, body_len)
 * or a stream (stream != NULL), never both.
 */
struct httpd_result {
	uint16_t status;                  /**< 200..999; 0 means 500 */
	const char *content_type;         /**< static storage, or NULL: none */
	char extra[HTTPD_RESULT_EXTRA];   /**< field lines, each ending CRLF */
	char *body;                       /**< body bytes (inline or heap) */
	uint32_t body_len;                /**< their number */
	httpd_stream_fn stream;           /**< or a streamed body */
	httpd_stream_free_fn stream_free; /**< its release (may be NULL) */
	void *stream_arg;                 /**< their argument */
	uint64_t stream_len; /**< body bytes, or EWYK_HTTP_LEN_CHUNKED */
	char inline_body[HTTPD_RESULT_INLINE]; /**< small bodies, no malloc */
};

/**
 * Set the status and Content-Type of a result.
 *
 * @param res           result
 * @param status        200..999
 * @param content_type  static string or NULL
 * @return 0, or -EINVAL
 */
int httpd_result_status(struct httpd_result *res, uint16_t status,
	const char *content_type);

/**
 * Append one field line "name: value\r\n" to a result (e.g.
 * Last-Modified). Name and value must be free of CR, LF and NUL.
 *
 * @param res    result
 * @param name   field name
 * @param value  field value
 * @return 0, -ENOSPC (HTTPD_RESULT_EXTRA full) or -EINVAL
 */
int httpd_result_header(struct httpd_result *res, const char *name,
	const char *value);

/**
 * Copy a body into a result: inline up to HTTPD_RESULT_INLINE bytes,
 * otherwise into memory of its own (rte_malloc, freed with the result).
 *
 * @param res  result
 * @param p    bytes
 * @param len  their number (<= HTTPD_RESULT_MAX_BODY)
 * @return 0, -E2BIG (use a stream) or -ENOMEM
 */
int httpd_result_body(struct httpd_result *res, const void *p, uint32_t len);

/**
 * Give a result a streamed body instead.
 *
 * @param res   result
 * @param len   body length, or EWYK_HTTP_LEN_CHUNKED
 * @param fn    producer (run on the token holder)
 * @param fr    release of @p arg (may be NULL)
 * @param arg   their argument (owned by the result from now on)
 * @return 0, or -EINVAL
 */
int httpd_result_stream(struct httpd_result *res, uint64_t len,
	httpd_stream_fn fn, httpd_stream_free_fn fr, void *arg);

/**
 * Free what a result holds (heap body, stream argument). Done by the
 * dispatcher; a blocking function calls it only to discard a result it
 * started and then fills again.
 *
 * @param res  result
 */
void httpd_result_release(struct httpd_result *res);

/**
 * A blocking route's function.
 *
 * @param req   copy of the request head
 * @param res   result to fill (zeroed)
 * @param mode  how it runs: PC, EPC or PEC may block; PIC (EITHER routes
 *              only) must not (ewyk_strategy_mode_may_block())
 * @param arg   httpd_route_blocking()'s argument
 * @return 0 (res filled), or a negative errno (answered 500)
 */
typedef int (*httpd_blocking_fn)(const struct httpd_req *req,
	struct httpd_result *res, enum ewyk_strategy_mode mode, void *arg);

/**
 * Add an in-place route (runs on the token holder; must not block).
 *
 * @param h        the application
 * @param path     path, or prefix when @p prefix
 * @param prefix   1: every path below @p path too (whole segments)
 * @param methods  EWYK_HTTP_M() bits (GET implies HEAD)
 * @param inv      EWYK_STRATEGY_INVOKE_NON_BLOCKING, or _EITHER for a
 *                 handler that dispatches its own work (POST /sha256)
 * @param fn       lib/http handler
 * @param arg      its argument
 * @return 0, or a negative errno (printed)
 */
int httpd_route_inplace(struct httpd *h, const char *path, int prefix,
	uint32_t methods, enum ewyk_strategy_invocation inv,
	ewyk_http_handler_t fn, void *arg);

/**
 * Add a blocking route: @p fn is run by the strategy (see above).
 *
 * @param h        the application
 * @param path     path, or prefix when @p prefix
 * @param prefix   1: every path below @p path too (whole segments)
 * @param methods  EWYK_HTTP_M() bits (GET implies HEAD)
 * @param inv      EWYK_STRATEGY_INVOKE_BLOCKING or _EITHER
 * @param fn       the function
 * @param arg      its argument
 * @return 0, or a negative errno (printed)
 */
int httpd_route_blocking(struct httpd *h, const char *path, int prefix,
	uint32_t methods, enum ewyk_strategy_invocation inv,
	httpd_blocking_fn fn, void *arg);

/* ---- wiring (http_server.c, http_dispatch.c) ---- */

/* The router and the built-in routes (http_routes.c). 0 or -1 (printed). */
int http_app_init(struct httpd *h);
/* Free the router (after every shard's server). */
void http_app_fini(struct httpd *h);
/* Each shard: its lib/http server on --port, dispatch state. 0 or -1. */
int http_shard_init(struct httpd *h, struct httpd_shard *sh);
/* Free what http_shard_init() made (lcores stopped). */
void http_shard_free(struct httpd_shard *sh);
/* Loop hook of the holder: Date refresh once a second. */
void http_shard_poll(struct httpd_shard *sh, uint64_t now);
/* The HTTP line of the stats table (counters summed over the shards). */
void http_stats_print(const struct httpd *h);
/* Production leaves this lcore: flush the shard's HTTP pool caches. */
void http_shard_depart(struct httpd_shard *sh);

/* The lib/http dispatch hook (http_dispatch.c). */
int http_dispatch(void *arg, struct ewyk_http_conn *c,
	const struct ewyk_http_route *route);
int http_dispatch_shard_init(struct httpd_shard *sh);
/* The large head copies, sized from sh->http's limits (once it exists). */
int http_dispatch_shard_heads(struct httpd_shard *sh);
void http_dispatch_shard_free(struct httpd_shard *sh);

/* Built-in routes (http_routes.c, http_sha256.c). */
int http_routes_register(struct httpd *h);
int http_sha256_register(struct httpd *h);
int http_sha256_shard_init(struct httpd_shard *sh);
void http_sha256_shard_free(struct httpd_shard *sh);
int http_echo_shard_init(struct httpd_shard *sh);
void http_echo_shard_free(struct httpd_shard *sh);

#endif /* EWYK_HTTPD_HTTP_APP_H */
