/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_HTTP2_H
#define EWYK_HTTP2_H

/**
 * @file
 * lib/http2: HTTP/2 server connections (RFC 9113) on lib/tcp, one shard
 * each. libnghttp2 owns the protocol (framing, HPACK, flow control,
 * stream states); ewyk owns the I/O: the bytes TCP received go straight
 * into the session, and the frames it writes go out in mbufs of the
 * shard's pool, a DATA frame's body written by its producer directly
 * into them (no copy through nghttp2). A connection is a producer of
 * streams: each request is handed to the application (on_request) as
 * soon as its header block is complete, and the application answers it
 * now or later, from the holder of the shard; the connection keeps
 * reading frames and granting flow control meanwhile.
 *
 * Defences, on by default and counted: SETTINGS_MAX_CONCURRENT_STREAMS,
 * the header list size and field count of every request (enforced here:
 * nghttp2 does not, which the HPACK bomb uses), a token bucket on
 * RST_STREAM (rapid reset), one on SETTINGS, PING, PRIORITY and empty
 * frames, nghttp2's CONTINUATION limit, and the idle and write timeouts
 * on the shard's timer wheel.
 */

#include <stdint.h>

#include <ewyk_http_parse.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mbuf;
struct rte_mempool;
struct ewyk_tcp_conn;
struct ewyk_http_peer;
struct ewyk_http_quota;
struct ewyk_twheel;

/**
 * Per-shard counters, declared once. Each entry X(SYM, name, type, help)
 * gives EWYK_HTTP2_C_<SYM> and the Prometheus metric
 * ewyk_http2_<name>_total.
 */
#define EWYK_HTTP2_COUNTERS(X)                                                 \
	X(CONN_PRIOR, conn_prior_knowledge, COUNTER,                           \
		"Connections that began with the HTTP/2 preface")              \
	X(CONN_UPGRADED, conn_upgraded, COUNTER,                               \
		"Connections upgraded from HTTP/1.1 (Upgrade: h2c)")           \
	X(CONN_REFUSED, conn_refused, COUNTER,                                 \
		"Connections reset: every HTTP/2 connection object in use")    \
	X(CONN_CLOSED, conn_closed, COUNTER, "HTTP/2 connections ended")       \
	X(STREAMS, streams, COUNTER, "Streams opened by peers")                \
	X(STREAM_REFUSED, stream_refused, COUNTER,                             \
		"Streams refused (REFUSED_STREAM): no stream object free")     \
	X(STREAM_SRC_REFUSED, stream_src_refused, COUNTER,                     \
		"... of them: the peer's address held its share")              \
	X(CONN_SRC_REFUSED, conn_src_refused, COUNTER,                         \
		"Connections reset: the peer's address held its share")        \
	X(REQUESTS, requests, COUNTER, "Request header blocks complete")       \
	X(RESP_2XX, resp_2xx, COUNTER, "Responses 2xx")                        \
	X(RESP_3XX, resp_3xx, COUNTER, "Responses 3xx")                        \
	X(RESP_4XX, resp_4xx, COUNTER, "Responses 4xx")                        \
	X(RESP_5XX, resp_5xx, COUNTER, "Responses 5xx")                        \
	X(STREAM_ABORTED, stream_aborted, COUNTER,                             \
		"Streams that ended before their response was complete")       \
	X(HEADER_LIST_LARGE, header_list_large, COUNTER,                       \
		"Requests answered 431: header list over max_header_list")     \
	X(HEADER_FIELDS_MANY, header_fields_many, COUNTER,                     \
		"Requests answered 431: more than max_header_fields fields")   \
	X(RST_IN, rst_in, COUNTER, "RST_STREAM frames received")               \
	X(RST_OUT, rst_out, COUNTER,                                           \
		"RST_STREAM frames sent (stream errors, refusals, cancels)")   \
	X(RAPID_RESET, rapid_reset, COUNTER,                                   \
		"GOAWAY ENHANCE_YOUR_CALM: RST_STREAM over its rate")          \
	X(CTRL_FLOOD, ctrl_flood, COUNTER,                                     \
		"GOAWAY ENHANCE_YOUR_CALM: SETTINGS, PING, PRIORITY or empty " \
		"frames over their rate")                                      \
	X(NGH_FLOOD, nghttp2_flood, COUNTER,                                   \
		"Connections nghttp2 found flooding (unread ACKs queued)")     \
	X(CONT_FLOOD, continuation_flood, COUNTER,                             \
		"Connections ended: CONTINUATION frames over the limit")       \
	X(BAD_PREFACE, bad_preface, COUNTER,                                   \
		"Connections ended: a wrong client magic after lib/http's "    \
		"check (a test's transport)")                                  \
	X(PROTO_ERROR, protocol_error, COUNTER,                                \
		"Connections ended by a protocol error (GOAWAY sent with an "  \
		"error code other than ENHANCE_YOUR_CALM)")                    \
	X(GOAWAY_IN, goaway_in, COUNTER, "GOAWAY frames received")             \
	X(TIMEOUT_IDLE, timeout_idle, COUNTER,                                 \
		"Connections closed: no stream for idle_timeout_ms")           \
	X(TIMEOUT_WRITE, timeout_write, COUNTER,                               \
		"Connections reset: a response made no progress for "          \
		"write_timeout_ms (zero window, unread socket)")               \
	X(BODY_HELD, body_held, GAUGE,                                         \
		"Request body bytes given to body consumers, not yet given "   \
		"back (their streams open)")                                   \
	X(BODY_OWED, body_owed, GAUGE,                                         \
		"... of them received beyond the body budget: their window "   \
		"not granted yet")                                             \
	X(BODY_WAITING, body_waiting, GAUGE,                                   \
		"Streams waiting for the body budget (window withheld)")       \
	X(BODY_WAIT, body_budget_wait, COUNTER,                                \
		"Streams made to wait: the shard's body budget spent")         \
	X(BODY_SRC_WAIT, body_src_wait, COUNTER,                               \
		"Streams made to wait: the peer's address held its share of "  \
		"the body budget")                                             \
	X(BODY_TIMEOUT, body_timeout, COUNTER,                                 \
		"Streams reset (CANCEL): waited body_timeout_ms for the body " \
		"budget")                                                      \
	X(BODY_SLOW, body_slow, COUNTER,                                       \
		"Streams reset (CANCEL): request body slower than "            \
		"body_min_rate, or nothing for body_timeout_ms")               \
	X(BODY_SPARE, body_spare, GAUGE,                                       \
		"Bytes of body consumers' buffers beyond the bytes they hold " \
		"(ewyk_http2_body_buffer()), charged to the body budget")      \
	X(BYTES_IN, bytes_in, COUNTER, "Bytes received")                       \
	X(BYTES_OUT, bytes_out, COUNTER, "Bytes handed to TCP")

/** Counters: one per entry of EWYK_HTTP2_COUNTERS. */
enum ewyk_http2_counter {
#define EWYK_HTTP2_COUNTER_ENUM(sym, name, type, help) EWYK_HTTP2_C_##sym,
	EWYK_HTTP2_COUNTERS(EWYK_HTTP2_COUNTER_ENUM)
#undef EWYK_HTTP2_COUNTER_ENUM
		EWYK_HTTP2_C_MAX /**< number of counters */
};

/** The HTTP/2 connections of one shard (opaque). */
struct ewyk_http2_server;
/** One stream of a connection: the handle of its request (opaque). */
struct ewyk_http2_stream;

/** The HTTP/2 connection preface a client opens with. */
#define EWYK_HTTP2_PREFACE "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
/** Its length. */
#define EWYK_HTTP2_PREFACE_LEN 24
/** Largest body ewyk_http2_respond() copies. */
#define EWYK_HTTP2_RESPOND_MAX 512

/**
 * A request whose header block is complete, on the shard's holder.
 *
 * @param arg
 *   ewyk_http2_conf.on_request_arg.
 * @param st
 *   The stream: answer it now or later with ewyk_http2_respond*(); to
 *   answer later, set ewyk_http2_on_done() to learn if it goes first.
 * @param req
 *   The request as lib/http describes one: method, target (:path), path
 *   (up to '?'), host (:authority), the fields, framing (NONE: no body;
 *   LENGTH: content-length; CHUNKED: a body of unknown length). Views
 *   valid during the call.
 * @return
 *   0 (answered, or will be), or a negative errno (answered 503).
 */
typedef int (*ewyk_http2_request_fn)(void *arg, struct ewyk_http2_stream *st,
	const struct ewyk_http_request *req);

/**
 * Request body consumer: each DATA payload as it arrives, then once with
 * @p last set. The connection grants flow control for what it was given.
 *
 * @return 0; 1: the consumer keeps nothing more (a request refused while
 *   its body arrives): this payload and the rest are dropped with their
 *   window granted at once, out of the body budget, and once the
 *   stream's response is complete the peer is told to stop (RST_STREAM
 *   NO_ERROR); or a negative errno: the stream is reset (CANCEL)
 */
typedef int (*ewyk_http2_body_fn)(struct ewyk_http2_stream *st, const char *p,
	uint32_t len, int last, void *arg);

/**
 * Response body producer, called as the peer's flow-control windows and
 * TCP take bytes; it writes straight into the mbufs of the DATA frame.
 *
 * @param buf  where to write
 * @param cap  room (> 0; never more than the bytes still owed)
 * @param off  bytes produced before
 * @return bytes written (> 0); 0: end of a body of unknown length;
 *   -EAGAIN: nothing now (ewyk_http2_stream_resume() later); another
 *   negative errno: the stream is reset (INTERNAL_ERROR)
 */
typedef int (*ewyk_http2_producer_fn)(struct ewyk_http2_stream *st, char *buf,
	uint32_t cap, uint64_t off, void *arg);

/**
 * End of a stream, once, on the holder: @p aborted 0 when its response
 * was sent whole, 1 when it went first (reset by the peer or by us, the
 * connection gone). The handle is dead when this returns.
 */
typedef void (*ewyk_http2_done_fn)(struct ewyk_http2_stream *st, int aborted,
	void *arg);

/** Configuration of a shard's HTTP/2 connections. Zero fields: defaults. */
struct ewyk_http2_conf {
	struct ewyk_twheel *wheel; /**< the shard's wheel (required) */
	struct rte_mempool *pool;  /**< mbufs for frames (required) */
	uint32_t max_conns;        /**< connection objects; 0 = 256 */
	uint32_t max_streams;      /**< stream objects of the shard; 0 = 4096 */
	/** connection objects one peer address may hold (an IPv4 address,
	 *  an IPv6 /64, as lib/http's per-source shares); 0 = a quarter of
	 *  max_conns. Beyond: reset, counted conn_src_refused */
	uint32_t max_conns_per_src;
	/** stream objects the connections of one peer address may hold at
	 *  once; 0 = a quarter of max_streams. Beyond: REFUSED_STREAM,
	 *  counted stream_src_refused */
	uint32_t max_streams_per_src;
	/** SETTINGS_MAX_CONCURRENT_STREAMS; 0 = 100 */
	uint32_t max_concurrent_streams;
	/** Header list bytes of a request (RFC 9113 6.5.2: name + value +
	 *  32 per field, pseudo-fields included); 0 = 16384: 431 beyond */
	uint32_t max_header_list;
	/** Fields of a request, pseudo-fields excluded; 0 = 64: 431 beyond */
	uint16_t max_header_fields;
	/** SETTINGS_INITIAL_WINDOW_SIZE of the streams; 0 = 1 MiB */
	uint32_t initial_window;
	/** RST_STREAM frames a connection may send at once; 0 = 200 */
	uint32_t rst_burst;
	/** ... and a second after that; 0 = 100. Beyond: GOAWAY */
	uint32_t rst_rate;
	/** SETTINGS, PING, PRIORITY and empty frames at once; 0 = 500 */
	uint32_t ctrl_burst;
	/** ... and a second after that; 0 = 200. Beyond: GOAWAY */
	uint32_t ctrl_rate;
	/** CONTINUATION frames after a HEADERS frame; 0 = 8 */
	uint32_t max_continuations;
	uint32_t idle_timeout_ms;  /**< no stream open; 0 = 60000 */
	uint32_t write_timeout_ms; /**< a response stalled; 0 = 30000 */
	/** Request body bytes the shard's streams may hold in their body
	 *  consumers (ewyk_http2_read_body()) with flow control granted:
	 *  beyond it, what arrives is still handed over but its WINDOW_UPDATE
	 *  is withheld until bodies are given back (their streams end), so
	 *  the peer stalls on a zero window. 0 = 64 MiB */
	uint64_t body_budget;
	/** ... of which the streams of one peer address may hold; 0 = a
	 *  quarter of body_budget */
	uint64_t body_budget_per_src;
	/** a stream waiting for the budget this long is reset (CANCEL,
	 *  counted body_timeout); and between two DATA frames of a request
	 *  body, and the body's first allowance (body_min_rate); 0 = 30000 */
	uint32_t body_timeout_ms;
	/**
	 * Minimum request body rate, bytes a second, as HTTP/1.1's
	 * (ewyk_http_server_conf.body_min_rate): a body still arriving may
	 * take body_timeout_ms plus one second per body_min_rate bytes
	 * received, never more than body_timeout_ms between two DATA frames;
	 * a slower stream is reset (CANCEL, counted body_slow) and its bytes
	 * go back to the budget. Time spent waiting for the budget (its
	 * window withheld by us) is not held against it. 0 = 500;
	 * UINT32_MAX = no minimum (the gap still holds).
	 */
	uint32_t body_min_rate;
	ewyk_http2_request_fn on_request; /**< requests (required) */
	void *on_request_arg;             /**< its argument */
	uint16_t shard_id;                /**< label of the counters */
	int socket_id;                    /**< NUMA node (SOCKET_ID_ANY ok) */
};

/**
 * Create a shard's HTTP/2 layer: every connection and stream object is
 * allocated here, none later.
 *
 * @param conf  configuration (copied)
 * @return the server, or NULL with rte_errno EINVAL or ENOMEM
 */
struct ewyk_http2_server *ewyk_http2_server_create(
	const struct ewyk_http2_conf *conf);

/**
 * Free a server on the shard's holder: every connection is reset and
 * every stream's owner told (aborted). Before the TCP context.
 *
 * @param s  server (NULL allowed)
 */
void ewyk_http2_server_free(struct ewyk_http2_server *s);

/**
 * Hold the flushes that input brings, for one receive pass: from now
 * until ewyk_http2_server_flush(), the frames a connection's input
 * makes (its streams answered in place, WINDOW_UPDATEs, ACKs) stay
 * queued in its session instead of leaving after each TCP segment, so
 * that a connection that gets several segments in one receive burst
 * answers them all in one nghttp2_session_send() and one chain to TCP.
 * Flushes from anything else (a job's response, TCP's writable event,
 * timers) are not held. The shard's loop calls it before polling the
 * ports; without it every segment's frames leave at once.
 *
 * @param s  server (NULL allowed: nothing)
 */
void ewyk_http2_server_hold(struct ewyk_http2_server *s);

/**
 * End what ewyk_http2_server_hold() began: flush every connection that
 * received input since (each once), and flush at once again from then
 * on. The shard's loop calls it at the end of the receive pass, before
 * the port's TX batch is sent.
 *
 * @param s  server (NULL allowed: nothing)
 */
void ewyk_http2_server_flush(struct ewyk_http2_server *s);

/**
 * Take over a TCP connection that speaks HTTP/2 from now on (lib/http's
 * protocol switch, ewyk_http_server_conf.h2c): its callbacks become this
 * layer's.
 *
 * @param arg      the server
 * @param tc       the connection
 * @param rx       bytes received and not consumed yet (a chain built with
 *                 ewyk_tcp_recv_append(), owned from now on), or NULL
 * @param rx_off   bytes of @p rx already consumed (an upgrade's head)
 * @param upgrade  NULL: @p rx begins with the preface (prior knowledge);
 *                 otherwise the HTTP/1.1 request that asked for h2c (with
 *                 its HTTP2-Settings field): 101 is sent, and the request
 *                 becomes stream 1 (views valid during the call)
 * @return 0; -ENOBUFS (no connection object), -EINVAL (a bad
 *   HTTP2-Settings) or -ENOMEM: nothing taken, the caller answers
 */
int ewyk_http2_conn_start(void *arg, struct ewyk_tcp_conn *tc,
	struct rte_mbuf *rx, uint32_t rx_off,
	const struct ewyk_http_request *upgrade);

/**
 * Respond with a small body, copied.
 *
 * @param st            stream
 * @param status        200..999
 * @param content_type  Content-Type or NULL
 * @param extra         more field lines, each ending CRLF, or NULL
 *                      (connection-specific ones are dropped)
 * @param body          bytes (NULL with len 0)
 * @param len           at most EWYK_HTTP2_RESPOND_MAX
 * @return 0; -EINVAL, -EMSGSIZE, -EALREADY (answered), -ENOMEM
 */
int ewyk_http2_respond(struct ewyk_http2_stream *st, uint16_t status,
	const char *content_type, const char *extra, const void *body,
	uint32_t len);

/**
 * Respond with a body made by @p prod as flow control allows.
 *
 * @param len   body bytes, or EWYK_HTTP_LEN_CHUNKED (unknown: the
 *              producer returns 0 at its end)
 * @return as ewyk_http2_respond()
 */
int ewyk_http2_respond_stream(struct ewyk_http2_stream *st, uint16_t status,
	const char *content_type, const char *extra, uint64_t len,
	ewyk_http2_producer_fn prod, void *arg);

/**
 * Call a producer that returned -EAGAIN again.
 *
 * @return 0, or -EINVAL (no streamed response waiting)
 */
int ewyk_http2_stream_resume(struct ewyk_http2_stream *st);

/**
 * Read the request body (during on_request): @p cb gets it as it comes.
 *
 * @return 0, -ENOENT (no body) or -EINVAL
 */
int ewyk_http2_read_body(struct ewyk_http2_stream *st, ewyk_http2_body_fn cb,
	void *arg);

/**
 * Read the request body streamed (during on_request): as
 * ewyk_http2_read_body(), but what @p cb is given stays held until it is
 * released (ewyk_http2_body_release()), and only then is the stream's
 * window reopened for it. The connection's window reopens as bytes
 * arrive, within the body budget (beyond it they are owed, as gathered
 * bodies' are). So a consumer that keeps up takes the body at the
 * peer's pace, one that falls behind holds at most the stream's window
 * (ewyk_http2_stream_window()), whatever the body's size; while it holds
 * bytes the body's pace rule (body_min_rate) waits for it, not for the
 * peer.
 *
 * @return 0, -ENOENT (no body) or -EINVAL
 */
int ewyk_http2_read_body_stream(struct ewyk_http2_stream *st,
	ewyk_http2_body_fn cb, void *arg);

/**
 * A streamed body's consumer is done with @p n more of the bytes it was
 * given (in order): they leave the body budget and the stream's window
 * reopens for them (a WINDOW_UPDATE once half a window is released).
 *
 * @return 0, or -EINVAL (no stream, or its body is not streamed)
 */
int ewyk_http2_body_release(struct ewyk_http2_stream *st, uint64_t n);

/**
 * The memory @p st's body consumer keeps for the body is @p bytes now (a
 * streamed body's ring, a gathered body's buffer; 0 once freed): what of
 * it is beyond the bytes the stream holds (spare room the buffer grew
 * into) is charged to the body budget, the shard's and the source's, as
 * held bytes are, until the stream ends or a smaller size is given: the
 * streams that come after wait for their window instead, so the memory a
 * source makes the shard allocate for its bodies counts against its
 * share, not its bytes alone. The charge stops where the source's share
 * or the shard's budget is full (a source's buffers never hold back
 * other sources' bodies); what is beyond is bounded by the consumer's
 * own limits on its buffers and the stream limits.
 *
 * @return 0, or -EINVAL (no stream)
 */
int ewyk_http2_body_buffer(struct ewyk_http2_stream *st, uint64_t bytes);

/**
 * Stop reading the request body: the consumer is called no more, what a
 * streamed one holds is released, and the rest of the body is dropped
 * with its window granted at once; once the stream's response is
 * complete the peer is told to stop (RST_STREAM NO_ERROR).
 *
 * @return 0, or -EINVAL
 */
int ewyk_http2_body_stop(struct ewyk_http2_stream *st);

/** @return the window a stream's peer may send without a WINDOW_UPDATE
 *  (SETTINGS_INITIAL_WINDOW_SIZE: initial_window) */
uint32_t ewyk_http2_stream_window(const struct ewyk_http2_stream *st);

/**
 * Be told once when the stream ends (ewyk_http2_done_fn).
 *
 * @return 0, or -EINVAL
 */
int ewyk_http2_on_done(struct ewyk_http2_stream *st, ewyk_http2_done_fn fn,
	void *arg);

/**
 * The peer of @p st's connection (address and port), taken once when the
 * connection opened: no call into lib/tcp per stream.
 *
 * @return 0, -EINVAL, or -ENOTCONN (no peer known: @p p zeroed)
 */
int ewyk_http2_stream_peer(const struct ewyk_http2_stream *st,
	struct ewyk_http_peer *p);

/**
 * The source of @p st's peer in @p q (ewyk_http_quota_source()), for
 * ewyk_http_quota_take_source(): computed once per connection for each
 * of the last two quotas asked, not once per stream.
 *
 * @return the source (>= 0), -EINVAL, or -ENOTCONN (no peer known: the
 *   stream is held to no share)
 */
int ewyk_http2_stream_source(struct ewyk_http2_stream *st,
	const struct ewyk_http_quota *q);

/** @return the stream's id (odd: the client's) */
int32_t ewyk_http2_stream_id(const struct ewyk_http2_stream *st);

/** @return the TCP connection the stream's connection runs on (NULL
 *  when it runs on none, as in the unit tests' world) */
struct ewyk_tcp_conn *ewyk_http2_stream_tcp(const struct ewyk_http2_stream *st);

/** @return a counter of a server (0 when out of range) */
uint64_t ewyk_http2_server_counter(const struct ewyk_http2_server *s,
	enum ewyk_http2_counter ctr);

/** @return the name of a counter, NULL when out of range */
const char *ewyk_http2_counter_name(enum ewyk_http2_counter ctr);

/** @return connection objects in use */
uint32_t ewyk_http2_server_conns(const struct ewyk_http2_server *s);

/** @return request body bytes the shard's streams hold (body_held) */
uint64_t ewyk_http2_server_body_held(const struct ewyk_http2_server *s);

/** @return stream objects in use */
uint32_t ewyk_http2_server_streams(const struct ewyk_http2_server *s);

#ifdef __cplusplus
}
#endif

#endif /* EWYK_HTTP2_H */
