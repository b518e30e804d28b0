/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_HTTP_SERVER_H
#define EWYK_HTTP_SERVER_H

/**
 * @file
 * lib/http connection layer: an HTTP/1.1 server connection per lib/tcp
 * connection on one shard (keep-alive, pipelining in order, streaming in
 * both directions, timeouts on the shard's wheel), handlers that answer
 * in place or later from another lcore, and the per-shard counters.
 */

#include <stdint.h>

#include <ewyk_strategy.h>

#include <ewyk_http_parse.h>
#include <ewyk_http_response.h>
#include <ewyk_http_router.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Connection layer (http_conn*.c): an HTTP/1.1 server connection driven by
 * lib/tcp events on one shard.
 */

struct ewyk_tcp_conn;
struct ewyk_tcp_ops;
struct ewyk_tcp_conn_info;
struct rte_mbuf;
struct ewyk_twheel;

/**
 * Per-shard counters of the connection layer, declared once. Each entry
 * X(SYM, name, type, help) gives EWYK_HTTP_C_<SYM> and the Prometheus
 * metric ewyk_http_<name>_total.
 */
#define EWYK_HTTP_COUNTERS(X)                                                  \
	X(CONN_ACCEPTED, conn_accepted, COUNTER, "Connections taken")          \
	X(CONN_REFUSED, conn_refused, COUNTER,                                 \
		"Connections refused (RST): every connection object in use, "  \
		"none idle")                                                   \
	X(CONN_SRC_REFUSED, conn_src_refused, COUNTER,                         \
		"Connections refused (RST): the peer address holds its share " \
		"of the connection objects")                                   \
	X(IDLE_RECLAIMED, idle_reclaimed, COUNTER,                             \
		"Idle keep-alive connections closed (FIN) for a new one")      \
	X(HEAD_REFUSED, head_refused, COUNTER,                                 \
		"Request heads answered 503 and closed: no head lease free")   \
	X(HEAD_SRC_REFUSED, head_src_refused, COUNTER,                         \
		"Request heads answered 503 and closed: the peer address "     \
		"holds its share of the head leases")                          \
	X(QUOTA_REFUSED, quota_refused, COUNTER,                               \
		"ewyk_http_quota_take() refusals (a source's share, or full)") \
	X(REQUESTS, requests, COUNTER, "Request heads parsed")                 \
	X(PENDING, pending, COUNTER, "Handlers that returned pending")         \
	X(CONN_ORPHANED, conn_orphaned, COUNTER,                               \
		"Pending requests whose connection went away: freed at once, " \
		"their owner told")                                            \
	X(DISPATCH_REFUSED, dispatch_refused, COUNTER,                         \
		"Blocking routes answered 503: no dispatcher or it refused")   \
	X(CONTINUE_SENT, continue_sent, COUNTER, "100 Continue sent")          \
	X(RESP_1XX, resp_1xx, COUNTER, "Responses 1xx")                        \
	X(RESP_2XX, resp_2xx, COUNTER, "Responses 2xx")                        \
	X(RESP_3XX, resp_3xx, COUNTER, "Responses 3xx")                        \
	X(RESP_4XX, resp_4xx, COUNTER, "Responses 4xx")                        \
	X(RESP_5XX, resp_5xx, COUNTER, "Responses 5xx")                        \
	X(RESP_400, resp_400, COUNTER, "Responses 400")                        \
	X(RESP_404, resp_404, COUNTER, "Responses 404")                        \
	X(RESP_405, resp_405, COUNTER, "Responses 405")                        \
	X(RESP_408, resp_408, COUNTER, "Responses 408")                        \
	X(RESP_413, resp_413, COUNTER, "Responses 413")                        \
	X(RESP_414, resp_414, COUNTER, "Responses 414")                        \
	X(RESP_417, resp_417, COUNTER, "Responses 417")                        \
	X(RESP_431, resp_431, COUNTER, "Responses 431")                        \
	X(RESP_4XX_OTHER, resp_4xx_other, COUNTER,                             \
		"Responses 4xx with a status not listed")                      \
	X(RESP_500, resp_500, COUNTER, "Responses 500")                        \
	X(RESP_501, resp_501, COUNTER, "Responses 501")                        \
	X(RESP_503, resp_503, COUNTER, "Responses 503")                        \
	X(RESP_504, resp_504, COUNTER, "Responses 504")                        \
	X(RESP_505, resp_505, COUNTER, "Responses 505")                        \
	X(RESP_5XX_OTHER, resp_5xx_other, COUNTER,                             \
		"Responses 5xx with a status not listed")                      \
	X(PARSE_ERR_400, parse_err_400, COUNTER,                               \
		"Malformed heads answered 400")                                \
	X(PARSE_ERR_413, parse_err_413, COUNTER, "Heads answered 413")         \
	X(PARSE_ERR_414, parse_err_414, COUNTER,                               \
		"Request lines too long (414)")                                \
	X(PARSE_ERR_417, parse_err_417, COUNTER, "Unmet expectations (417)")   \
	X(PARSE_ERR_431, parse_err_431, COUNTER,                               \
		"Header sections too large (431)")                             \
	X(PARSE_ERR_501, parse_err_501, COUNTER,                               \
		"Unknown methods or transfer codings (501)")                   \
	X(PARSE_ERR_505, parse_err_505, COUNTER, "Unsupported versions (505)") \
	X(PARSE_ERR_BODY, parse_err_body, COUNTER,                             \
		"Malformed or too large bodies (chunk syntax, 413)")           \
	X(TIMEOUT_HEADER, timeout_header, COUNTER, "Header read timeouts")     \
	X(TIMEOUT_BODY, timeout_body, COUNTER,                                 \
		"Body read timeouts: nothing for body_timeout_ms")             \
	X(TIMEOUT_BODY_RATE, timeout_body_rate, COUNTER,                       \
		"Bodies ended for arriving slower than body_min_rate")         \
	X(TIMEOUT_IDLE, timeout_idle, COUNTER, "Keep-alive idle timeouts")     \
	X(TIMEOUT_WRITE, timeout_write, COUNTER, "Response write stalls")      \
	X(BYTES_IN, bytes_in, COUNTER, "Request bytes consumed")               \
	X(BYTES_OUT, bytes_out, COUNTER, "Response bytes handed to TCP")

/** Connection-layer counters: one per entry of EWYK_HTTP_COUNTERS. */
enum ewyk_http_counter {
#define EWYK_HTTP_COUNTER_ENUM(sym, name, type, help) EWYK_HTTP_C_##sym,
	EWYK_HTTP_COUNTERS(EWYK_HTTP_COUNTER_ENUM)
#undef EWYK_HTTP_COUNTER_ENUM
		EWYK_HTTP_C_MAX /**< number of counters */
};

/** One server connection (opaque); also the handle of its request. */
struct ewyk_http_conn;
/** The connection layer of one shard (opaque). */
struct ewyk_http_server;

/** A handler returns this when it has responded (or will not). */
#define EWYK_HTTP_HANDLED 0
/** A handler returns this when its response comes later (ewyk_http_respond*). */
#define EWYK_HTTP_PENDING 1
/** ewyk_http_respond_stream() length of a chunked response. */
#define EWYK_HTTP_LEN_CHUNKED UINT64_MAX

/**
 * Request handler (ewyk_http_route.handler). Runs on the shard's lcore.
 * The request's views are valid during the call only: a handler returning
 * EWYK_HTTP_PENDING copies what its later response needs. To read the
 * body it calls ewyk_http_read_body() during the call; otherwise the body
 * is read and dropped.
 *
 * @param c
 *   The connection, handle of this request.
 * @param req
 *   The request head.
 * @param arg
 *   The route's argument.
 * @return
 *   EWYK_HTTP_HANDLED (responded with ewyk_http_respond*()),
 *   EWYK_HTTP_PENDING (the response follows later, made by whoever holds
 *   @p c), or a negative errno (answered 500).
 */
typedef int (*ewyk_http_handler_t)(struct ewyk_http_conn *c,
	const struct ewyk_http_request *req, void *arg);

/**
 * Request body consumer: called with each piece of the decoded body as it
 * arrives, then once with @p last set (and maybe no data).
 *
 * @param c
 *   Connection.
 * @param p
 *   Body bytes (valid during the call).
 * @param len
 *   Their number.
 * @param last
 *   1: the body is complete.
 * @param arg
 *   ewyk_http_read_body()'s argument.
 * @return
 *   0 to go on; EWYK_HTTP_PENDING to pause after this piece: nothing more
 *   is read (and so nothing more acknowledged to TCP: the uploader's
 *   window closes) until ewyk_http_body_resume().
 */
typedef int (*ewyk_http_body_cb_t)(struct ewyk_http_conn *c, const char *p,
	uint32_t len, int last, void *arg);

/**
 * Response body producer: called whenever TCP can take more bytes, until
 * the body is complete.
 *
 * @param c
 *   Connection.
 * @param buf
 *   Where to write.
 * @param cap
 *   Room in @p buf (> 0; never more than the bytes the response still owes).
 * @param off
 *   Body bytes produced before this call.
 * @param arg
 *   ewyk_http_respond_stream()'s argument.
 * @return
 *   Bytes written (> 0); 0: the body is complete (chunked responses only);
 *   -EAGAIN: nothing to give now (call ewyk_http_stream_resume() when
 *   there is, e.g. an echo waiting for request body); another negative
 *   errno: abort the connection.
 */
typedef int (*ewyk_http_producer_t)(struct ewyk_http_conn *c, char *buf,
	uint32_t cap, uint64_t off, void *arg);

/**
 * Hand-off of a request whose route is BLOCKING (or EITHER, when the
 * dispatcher takes it): the dispatcher takes it and completes it later
 * with ewyk_http_respond*().
 *
 * @param dispatch_arg
 *   ewyk_http_server_conf.dispatch_arg.
 * @param c
 *   Connection (its request's views are valid during the call only).
 * @param route
 *   The route matched.
 * @return
 *   0 (taken: pending), 1 (EITHER only: run it in place), or a negative
 *   errno (refused: answered 503).
 */
typedef int (*ewyk_http_dispatch_t)(void *dispatch_arg,
	struct ewyk_http_conn *c, const struct ewyk_http_route *route);

/**
 * Protocol switch: hand a connection over to HTTP/2 (lib/http2's
 * ewyk_http2_conn_start()). Called on the shard's lcore when a
 * connection's first bytes are the HTTP/2 connection preface (prior
 * knowledge), or when a request without a body asks for
 * `Upgrade: h2c` with an HTTP2-Settings field.
 *
 * @param arg
 *   ewyk_http_server_conf.h2c_arg.
 * @param tc
 *   The TCP connection: its callbacks are the new owner's from now on.
 * @param rx
 *   What was received and not consumed (a chain built with
 *   ewyk_tcp_recv_append()): the new owner's.
 * @param rx_off
 *   Bytes of @p rx consumed already (the upgrading request's head).
 * @param upgrade
 *   NULL for the preface; the request asking for h2c otherwise (its
 *   views valid during the call).
 * @return
 *   0: taken (lib/http lets go of the connection without a word);
 *   negative: not taken, lib/http goes on with HTTP/1.1 (the preface is
 *   then answered 501: PRI is no method it knows).
 */
typedef int (*ewyk_http_switch_t)(void *arg, struct ewyk_tcp_conn *tc,
	struct rte_mbuf *rx, uint32_t rx_off,
	const struct ewyk_http_request *upgrade);

/** Configuration of a shard's connection layer. Zero fields: defaults. */
struct ewyk_http_server_conf {
	struct ewyk_twheel *wheel; /**< the shard's wheel (required) */
	struct rte_mempool *pool;  /**< mbufs for responses (required) */
	const struct ewyk_http_router *router; /**< routes (required) */
	struct ewyk_http_limits lim;           /**< parser limits */
	uint32_t max_conns; /**< connection objects; 0 = 1024 */
	/** Head leases (parser scratch and header array, taken at a
	 * request head's first byte, given back when the connection is idle
	 * or gone); 0 = max_conns, at most 2048 (above max_conns: max_conns) */
	uint32_t max_heads;
	/** Connection objects one peer address may hold (counted per bucket
	 * of a keyed hash of the address); 0 = a quarter of max_conns;
	 * max_conns or more: no per-address limit */
	uint32_t max_conns_per_src;
	/** Head leases one peer address may hold; 0 = a quarter of max_heads;
	 * max_heads or more: no per-address limit */
	uint32_t max_heads_per_src;
	/** Key of the per-source hash; 0 = random (getentropy()). Tests set
	 * one to know which addresses share a bucket. */
	uint64_t secret;
	uint32_t header_timeout_ms; /**< head read; 0 = 10000 */
	uint32_t body_timeout_ms; /**< between body bytes, and the body's first
				   allowance (body_min_rate); 0 = 30000 */
	/**
	 * Minimum body rate, bytes a second: a body may take body_timeout_ms
	 * plus one second per body_min_rate bytes received, never more than
	 * body_timeout_ms between two pieces (Apache mod_reqtimeout's
	 * MinRate); slower bodies end with 408 (or a reset once the response
	 * has started). 0 = 500; UINT32_MAX = no minimum.
	 */
	uint32_t body_min_rate;
	uint32_t idle_timeout_ms;      /**< keep-alive idle; 0 = 60000 */
	uint32_t write_timeout_ms;     /**< response write stall; 0 = 30000 */
	ewyk_http_dispatch_t dispatch; /**< NULL: BLOCKING routes get 503 */
	void *dispatch_arg;            /**< its argument */
	ewyk_http_switch_t h2c;        /**< NULL: HTTP/1.1 only */
	void *h2c_arg;                 /**< its argument */
	uint16_t shard_id;             /**< label of the counters */
	int socket_id;                 /**< NUMA node (SOCKET_ID_ANY ok) */
};

/**
 * Create a shard's connection layer: every connection object (parser,
 * scratch, header array) is allocated here, none later.
 *
 * @param conf
 *   Configuration (copied).
 * @return
 *   The server, or NULL with rte_errno EINVAL or ENOMEM.
 */
struct ewyk_http_server *ewyk_http_server_create(
	const struct ewyk_http_server_conf *conf);

/**
 * Free a server, on the lcore holding its shard. Every connection it
 * still has is reset (ewyk_tcp_abort(): the RST leaves with the shard's
 * next TX flush) and the owner of its request told (ewyk_http_on_done(),
 * aborted). So: free it before the TCP context its connections live on
 * (ewyk_tcp_free() drops connections without a RST), then flush TX. The
 * runtime does it in that order (ewyk_rt_free()).
 *
 * @param s
 *   Server (NULL allowed).
 */
void ewyk_http_server_free(struct ewyk_http_server *s);

/**
 * The lib/tcp events of an HTTP listener: pass them to ewyk_tcp_listen()
 * with the server as listen argument.
 *
 * @return
 *   The ops (static).
 */
const struct ewyk_tcp_ops *ewyk_http_server_tcp_ops(void);

/**
 * Refresh the server's Date line (once per poll loop).
 *
 * @param s
 *   Server.
 * @param unix_sec
 *   Seconds since the Epoch.
 */
void ewyk_http_server_set_time(struct ewyk_http_server *s, uint64_t unix_sec);

/**
 * A counter of a server.
 *
 * @param s
 *   Server.
 * @param ctr
 *   enum ewyk_http_counter.
 * @return
 *   Its value (0 when out of range).
 */
uint64_t ewyk_http_server_counter(const struct ewyk_http_server *s,
	enum ewyk_http_counter ctr);

/**
 * Name of a counter.
 *
 * @param ctr
 *   enum ewyk_http_counter.
 * @return
 *   Its name, NULL when out of range.
 */
const char *ewyk_http_counter_name(enum ewyk_http_counter ctr);

/**
 * The request limits a server enforces (its configuration with the
 * defaults filled in): any request head it accepts has a request line of
 * at most lim->max_line bytes, a header section of at most
 * lim->max_header_bytes bytes and at most *max_headers fields. For
 * whoever copies heads (a dispatcher) to size its copies.
 *
 * @param s
 *   Server.
 * @param lim
 *   Out: the limits.
 * @param max_headers
 *   Out: the header field count limit (431 beyond).
 * @return
 *   0, or -EINVAL (a NULL argument).
 */
int ewyk_http_server_limits(const struct ewyk_http_server *s,
	struct ewyk_http_limits *lim, uint16_t *max_headers);

/**
 * Connections in use.
 *
 * @param s
 *   Server.
 * @return
 *   The number of connection objects taken.
 */
uint32_t ewyk_http_server_conns(const struct ewyk_http_server *s);

/**
 * Prometheus text of the counters of several servers, one series each
 * (label shard="N").
 *
 * @param srv
 *   The servers.
 * @param n
 *   Their number.
 * @param buf
 *   Output (NULL with size 0 to learn the length).
 * @param size
 *   Its size.
 * @return
 *   As ewyk_ctr_prometheus(); -EINVAL, -ENOMEM.
 */
int ewyk_http_server_prometheus(const struct ewyk_http_server *const *srv,
	unsigned int n, char *buf, size_t size);

/**
 * Ask for the request body (during the handler call): sends 100 Continue
 * when the client expects it, then calls @p cb with the body as it comes.
 * The response may be made before, during or after the body.
 *
 * @param c
 *   Connection.
 * @param cb
 *   Consumer.
 * @param arg
 *   Its argument.
 * @return
 *   0, -EINVAL (no handler running on @p c) or -ENOENT (no body).
 */
int ewyk_http_read_body(struct ewyk_http_conn *c, ewyk_http_body_cb_t cb,
	void *arg);

/**
 * Resume reading a body paused by its consumer (on the shard's lcore).
 *
 * @param c
 *   Connection.
 * @return
 *   0, or -EINVAL (not paused).
 */
int ewyk_http_body_resume(struct ewyk_http_conn *c);

/**
 * Call a streamed response's producer again after it returned -EAGAIN.
 *
 * @param c
 *   Connection.
 * @return
 *   0, -EINVAL (no streamed response under way) or -ECONNABORTED (the
 *   producer failed or no mbuf was left: the connection was reset).
 */
int ewyk_http_stream_resume(struct ewyk_http_conn *c);

/**
 * Largest body ewyk_http_respond() takes. Its body is copied into mbufs of
 * the shard's pool and handed to TCP whole, whatever the send space, so a
 * peer that does not read pins all of it until the write timeout: the
 * bound keeps that to a few mbufs per connection. A larger body goes out
 * through ewyk_http_respond_stream(), whose producer is called only while
 * TCP takes bytes (the caller keeps the bytes until the request ends:
 * ewyk_http_on_done()).
 */
#define EWYK_HTTP_RESPOND_MAX (16u * 1024)

/**
 * Respond with a whole body (copied: @p body may be freed once the call
 * returns). For HEAD only the head is sent. Callable in the handler or
 * later (completion of a pending request). Bodies up to
 * EWYK_HTTP_RESPOND_MAX bytes only; a larger one is refused with
 * -EMSGSIZE before anything is sent, and the request still waits for its
 * response (ewyk_http_respond_stream()).
 *
 * @param c
 *   Connection.
 * @param status
 *   Status (200-999).
 * @param content_type
 *   Content-Type value or NULL.
 * @param extra
 *   More field lines, each ending CRLF, or NULL.
 * @param body
 *   Body bytes (NULL with len 0).
 * @param len
 *   Their number.
 * @return
 *   0; -EINVAL (bad argument), -EMSGSIZE (@p len above
 *   EWYK_HTTP_RESPOND_MAX: nothing done), -EALREADY (already responded),
 *   -ENOMEM (no mbuf: the connection is aborted).
 */
int ewyk_http_respond(struct ewyk_http_conn *c, uint16_t status,
	const char *content_type, const char *extra, const void *body,
	uint32_t len);

/**
 * Respond with a body made by @p prod as TCP takes it (flow controlled:
 * nothing is produced while the send buffer is full, so a reader that
 * stops reading pins at most the send buffer and one mbuf). The way to
 * send a body longer than EWYK_HTTP_RESPOND_MAX, or one the caller keeps
 * anyway (release it in an ewyk_http_on_done() callback).
 *
 * @param c
 *   Connection.
 * @param status
 *   Status (200-999).
 * @param content_type
 *   Content-Type value or NULL.
 * @param extra
 *   More field lines, each ending CRLF, or NULL.
 * @param len
 *   Body length (Content-Length), or EWYK_HTTP_LEN_CHUNKED.
 * @param prod
 *   Producer.
 * @param arg
 *   Its argument.
 * @return
 *   As ewyk_http_respond().
 */
int ewyk_http_respond_stream(struct ewyk_http_conn *c, uint16_t status,
	const char *content_type, const char *extra, uint64_t len,
	ewyk_http_producer_t prod, void *arg);

/**
 * The request head of a connection, for a dispatch hook (its views are
 * valid during the hook's call only, as during a handler's).
 *
 * @param c
 *   Connection.
 * @return
 *   The request, or NULL when no request head is parsed.
 */
const struct ewyk_http_request *ewyk_http_conn_request(
	const struct ewyk_http_conn *c);

/**
 * End-of-request notification (ewyk_http_on_done()).
 * @param c
 *   Connection; with @p aborted set its TCP connection is gone.
 * @param aborted
 *   0: the request is over (response handed whole to TCP, body read);
 *   1: the connection went away first (the peer's reset or FIN, or a
 *   reset of ours: a write or body timeout, a body cut short). lib/http
 *   frees the connection object when this callback returns, whatever the
 *   owner does (counted conn_orphaned when a response was still owed):
 *   from then on @p c is not the owner's; ewyk_http_respond*() on it is
 *   refused (-EINVAL) during the callback, and must not be called after.
 *   An owner whose work goes on elsewhere (a dispatched task) drops its
 *   reference to @p c here.
 * @param arg
 *   ewyk_http_on_done()'s argument.
 */
typedef void (
	*ewyk_http_done_t)(struct ewyk_http_conn *c, int aborted, void *arg);

/**
 * Be told, once, on the shard's lcore, when the current request ends:
 * where a handler releases what it holds for the request (body buffers,
 * a stream's state, a dispatched task's delayed operation).
 *
 * @param c
 *   Connection, during its handler or while its request is pending.
 * @param fn
 *   Callback (NULL: none).
 * @param arg
 *   Its argument.
 * @return
 *   0, or -EINVAL (@p c not in use).
 */
int ewyk_http_on_done(struct ewyk_http_conn *c, ewyk_http_done_t fn, void *arg);

/**
 * Whether the connection under a request is still there (during a
 * handler or the dispatch hook; a pending request's owner learns that its
 * peer went through ewyk_http_on_done()).
 *
 * @param c
 *   Connection.
 * @return
 *   1 or 0.
 */
int ewyk_http_conn_alive(const struct ewyk_http_conn *c);

/** The peer of a connection, in either family. */
struct ewyk_http_peer {
	bool ipv6;        /**< the family of @p addr */
	uint16_t port;    /**< the peer's TCP port */
	uint8_t addr[16]; /**< IPv6 address, or the IPv4 one in the first
			       4 bytes; network order */
};

/**
 * The peer a request came from (during a handler or the dispatch hook,
 * or while a request is pending and its connection alive).
 *
 * @param c  connection
 * @param p  filled in (zeroed on error)
 * @return 0, -EINVAL (NULL argument) or -ENOTCONN (the TCP connection
 *   is gone).
 */
int ewyk_http_conn_peer(const struct ewyk_http_conn *c,
	struct ewyk_http_peer *p);

/**
 * The peer of a TCP connection, for a protocol that runs on its own
 * connection objects (lib/http2's streams).
 *
 * @param tc  TCP connection (NULL: -ENOTCONN)
 * @param p   filled in (zeroed on error)
 * @return 0, -EINVAL or -ENOTCONN
 */
int ewyk_http_tcp_peer(struct ewyk_tcp_conn *tc, struct ewyk_http_peer *p);

/**
 * The peer of a TCP connection from what lib/tcp told of it
 * (ewyk_tcp_conn_info()), for a caller that keeps that.
 *
 * @param ti  the connection's information
 * @param p   filled in
 * @return 0, or -EINVAL
 */
int ewyk_http_peer_from_info(const struct ewyk_tcp_conn_info *ti,
	struct ewyk_http_peer *p);

/**
 * Write a peer's address as text (dotted quad, or RFC 5952 IPv6 without
 * brackets or port).
 *
 * @param p    the peer
 * @param buf  where to write, NUL-terminated
 * @param len  its size (46 bytes fit every address)
 * @return the length written, -EINVAL or -ENOSPC.
 */
int ewyk_http_peer_format(const struct ewyk_http_peer *p, char *buf,
	size_t len);

/** What a server's connections hold of it (ewyk_http_server_slots()). */
struct ewyk_http_slots_info {
	uint32_t conns;             /**< connection objects in use */
	uint32_t idle;              /**< ... of which idle (keep-alive) */
	uint32_t leases;            /**< head leases in use */
	uint32_t max_conns;         /**< connection objects */
	uint32_t max_heads;         /**< head leases */
	uint32_t max_conns_per_src; /**< objects one peer address may hold */
	uint32_t max_heads_per_src; /**< leases one peer address may hold */
	size_t conn_bytes;          /**< bytes of one connection object */
	size_t lease_bytes; /**< bytes of one lease (scratch, header array,
			      *  parser and body decoder) */
	/** Per connection of the capacity: the objects and the per-source
	 * counts over max_conns, rounded up (what an idle connection costs) */
	size_t conn_mem_bytes;
	/** Every lease, and their free list (fixed: max_heads of them) */
	uint64_t lease_mem_bytes;
	uint64_t lease_failures; /**< heads refused for want of a lease (503) */
};

/**
 * The connection objects and head leases of a server: in use, limits
 * (defaults filled in) and sizes. An idle keep-alive connection holds
 * its object only (conn_bytes; conn_mem_bytes with its share of the
 * per-source counts); a connection reading or serving a request holds a
 * lease too (lease_bytes). O(1); from another thread (telemetry) the
 * counts are read without a lock, so approximate.
 *
 * @param s
 *   Server.
 * @param info
 *   Out.
 * @return
 *   0, or -EINVAL (a NULL argument).
 */
int ewyk_http_server_slots(const struct ewyk_http_server *s,
	struct ewyk_http_slots_info *info);

/**
 * A per-source quota (opaque): bounds what the requests of one peer
 * address may hold of an application resource (buffers, task objects,
 * copies), so that one address cannot take all of it.
 */
struct ewyk_http_quota;

/**
 * Create a quota over a resource of @p capacity units, of which the
 * connections of one peer address may hold @p per_src_max. Sources are
 * counted per bucket of a keyed hash of the address (a key per quota, as
 * many buckets as units): two addresses sharing a bucket share its share;
 * without the key nobody can choose to.
 *
 * @param capacity
 *   Units in all (> 0).
 * @param per_src_max
 *   Units one source may hold; 0: a quarter of @p capacity (at least 1).
 * @param socket_id
 *   NUMA node of its counts (SOCKET_ID_ANY ok).
 * @return
 *   The quota, or NULL with rte_errno EINVAL (capacity 0 or above
 *   2^30, or @p per_src_max above it; @p per_src_max equal to it is no
 *   per-source limit), ENOMEM, or getentropy()'s errno.
 */
struct ewyk_http_quota *ewyk_http_quota_create(uint32_t capacity,
	uint32_t per_src_max, int socket_id);

/**
 * Free a quota (NULL allowed). Its tokens must have been given back.
 *
 * @param q
 *   Quota.
 */
void ewyk_http_quota_free(struct ewyk_http_quota *q);

/**
 * Take one unit for the request on @p c (on the shard's lcore). A refusal
 * is counted in the quota and in @p c's server (quota_refused); the
 * caller answers it, e.g. 503.
 *
 * @param q
 *   Quota.
 * @param c
 *   The connection whose peer takes the unit.
 * @return
 *   A token (>= 0) for ewyk_http_quota_give(); -EBUSY (the source holds
 *   its share), -ENOSPC (all @p capacity units are taken) or -EINVAL.
 */
int ewyk_http_quota_take(struct ewyk_http_quota *q,
	const struct ewyk_http_conn *c);

/**
 * The source of a peer in @p q: what ewyk_http_quota_take_source() takes
 * for, computed once per connection by a protocol that has no
 * ewyk_http_conn (lib/http2), from the same key ewyk_http_quota_take()
 * uses (the IPv4 address, the IPv6 /64, a link-local peer's interface
 * identifier).
 *
 * @param q
 *   Quota.
 * @param ti
 *   The connection's lib/tcp information (its peer address).
 * @return
 *   The source (>= 0), or -EINVAL.
 */
int ewyk_http_quota_source(const struct ewyk_http_quota *q,
	const struct ewyk_tcp_conn_info *ti);

/**
 * Take one unit for source @p src (ewyk_http_quota_source()), on the
 * shard's lcore. A refusal is counted in the quota only: the caller
 * counts it in its own lib's counters and answers it.
 *
 * @param q
 *   Quota.
 * @param src
 *   ewyk_http_quota_source()'s source.
 * @return
 *   A token (>= 0) for ewyk_http_quota_give(); -EBUSY (the source holds
 *   its share), -ENOSPC (all units are taken) or -EINVAL.
 */
int ewyk_http_quota_take_source(struct ewyk_http_quota *q, int src);

/**
 * Give a unit back (from any lcore: the counts are atomic).
 *
 * @param q
 *   Quota.
 * @param token
 *   ewyk_http_quota_take()'s token; a negative one is ignored, so a
 *   refusal may be given back too.
 */
void ewyk_http_quota_give(struct ewyk_http_quota *q, int token);

/**
 * Give a unit back on the shard's lcore (the one that takes): the same
 * as ewyk_http_quota_give() without a locked instruction (its counts
 * are written by that lcore alone). From any other lcore, or where the
 * caller cannot tell, ewyk_http_quota_give().
 *
 * @param q
 *   Quota.
 * @param token
 *   ewyk_http_quota_take()'s token; a negative one is ignored.
 */
void ewyk_http_quota_give_here(struct ewyk_http_quota *q, int token);

/**
 * Units in use.
 *
 * @param q
 *   Quota.
 * @return
 *   Units taken and not given back (0 for NULL).
 */
uint32_t ewyk_http_quota_used(const struct ewyk_http_quota *q);

/**
 * Refusals so far.
 *
 * @param q
 *   Quota.
 * @return
 *   ewyk_http_quota_take() calls answered -EBUSY or -ENOSPC (0 for NULL).
 */
uint64_t ewyk_http_quota_refused(const struct ewyk_http_quota *q);

#ifdef __cplusplus
}
#endif

#endif /* EWYK_HTTP_SERVER_H */
