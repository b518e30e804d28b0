/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_HTTP_H
#define EWYK_HTTP_H

/**
 * @file
 * HTTP/1.1 (RFC 9110 / RFC 9112) message parsing and writing for ewyk.
 *
 * This header holds the self-contained core of lib/http:
 *
 * - a request-head parser (request line + header section) that works on
 *   the TCP layer's mbuf segments as they arrive. It allocates nothing and
 *   copies nothing, except for one bounded case: a token (method, target,
 *   field name, field value) that straddles a segment boundary is
 *   assembled in a caller-provided scratch area. Everything else is a view
 *   (pointer + length) into the caller's segments. It resumes where it
 *   stopped and never goes back over bytes of earlier calls, however the
 *   input is split (a whole head in the first piece is tried by a
 *   straight-line fast path first; if that gives up, the state machine
 *   parses that piece again: at most twice, only in that piece);
 * - the framing rules of RFC 9112 section 6 (Content-Length, chunked,
 *   rejection of every ambiguous combination) with the exact status code
 *   to answer for each malformed request;
 * - streaming body decoders (Content-Length and chunked), which hand out
 *   views of the body bytes and never buffer a body;
 * - a response writer (status line, Date, Server, framing, Connection)
 *   and a chunked body encoder that wraps mbufs in place;
 * - a router: exact and prefix paths, methods, invocation type per route,
 *   404 / 405 with Allow.
 *
 * Threading: nothing here is shared. A parser, body decoder, date cache or
 * router belongs to its caller; a router may be read from several lcores
 * once it is no longer modified.
 *
 * Return conventions: parsing functions return EWYK_HTTP_AGAIN (0),
 * EWYK_HTTP_DONE (1), EWYK_HTTP_DATA (2), or -EBADMSG when the message is
 * malformed; the HTTP status to answer is then in the parser's or
 * decoder's `status` field, and the connection must be closed after it
 * (its framing can no longer be trusted). Other functions return 0 (or a
 * length) on success and a negative errno value on failure.
 */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_mbuf.h>

#include <ewyk_strategy.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Need more input; everything given was consumed. */
#define EWYK_HTTP_AGAIN 0
/** The request head (or the body) is complete. */
#define EWYK_HTTP_DONE 1
/** A piece of body data is returned (body decoders only). */
#define EWYK_HTTP_DATA 2

/** Default limit on the request line (CRLF included): beyond it, 414. */
#define EWYK_HTTP_DEF_MAX_LINE 8192
/** Default limit on the header section (all field lines + final CRLF). */
#define EWYK_HTTP_DEF_MAX_HEADER_BYTES 16384
/** Default number of header fields a request may carry (431 beyond). */
#define EWYK_HTTP_DEF_MAX_HEADERS 64
/** Default body limit (413 beyond). */
#define EWYK_HTTP_DEF_MAX_BODY (UINT64_C(1) << 20)
/** Longest method accepted (a longer token is answered 501). */
#define EWYK_HTTP_MAX_METHOD 16
/** Limit on one chunk's extensions (400 beyond). */
#define EWYK_HTTP_MAX_CHUNK_EXT 1024

/** A view into the caller's bytes (or into the parser's scratch area). */
struct ewyk_http_view {
	const char *p; /**< first byte; not NUL-terminated */
	uint32_t len;  /**< bytes */
};

/** One header field line: name and value (value without surrounding OWS). */
struct ewyk_http_header {
	struct ewyk_http_view name;  /**< field name, case as received */
	struct ewyk_http_view value; /**< field value, OWS trimmed */
};

/** Request methods known to the parser (RFC 9110 section 9 + PATCH). */
enum ewyk_http_method {
	EWYK_HTTP_GET = 0,
	EWYK_HTTP_HEAD,
	EWYK_HTTP_POST,
	EWYK_HTTP_PUT,
	EWYK_HTTP_DELETE,
	EWYK_HTTP_CONNECT,
	EWYK_HTTP_OPTIONS,
	EWYK_HTTP_TRACE,
	EWYK_HTTP_PATCH,
	EWYK_HTTP_METHOD_MAX, /**< number of methods */
};

/** How a message body is delimited (RFC 9112 section 6.3). */
enum ewyk_http_framing {
	EWYK_HTTP_BODY_NONE = 0, /**< no body */
	EWYK_HTTP_BODY_LENGTH,   /**< Content-Length bytes */
	EWYK_HTTP_BODY_CHUNKED,  /**< chunked transfer coding */
	/** Responses only: no framing field, the body ends when the
	 * connection closes (RFC 9112 6.3 item 8; for HTTP/1.0 clients). */
	EWYK_HTTP_BODY_CLOSE,
};

/** Vector instruction set used by the parser's scanners. */
enum ewyk_http_isa {
	EWYK_HTTP_ISA_SCALAR = 0, /**< portable byte loop */
	EWYK_HTTP_ISA_SSE42,      /**< 16 bytes per step (PCMPESTRI ranges) */
	EWYK_HTTP_ISA_AVX2,       /**< 32 bytes per step */
};

/** A parsed request head. Filled by ewyk_http_parse(). */
struct ewyk_http_request {
	struct ewyk_http_view method; /**< method token */
	struct ewyk_http_view target; /**< request-target as received */
	struct ewyk_http_view path;   /**< target up to '?' (origin-form) */
	struct ewyk_http_header
		*headers;     /**< caller's array (set before parsing) */
	uint16_t max_headers; /**< its capacity: the header count limit (431) */
	uint16_t nheaders;    /**< fields parsed */
	uint8_t method_id;    /**< enum ewyk_http_method */
	uint8_t version_minor; /**< 0 or 1 (HTTP/1.x, x > 1, counts as 1) */
	uint8_t framing;       /**< enum ewyk_http_framing */
	uint8_t keep_alive; /**< 1: the connection may carry another request */
	uint8_t expect_continue; /**< 1: Expect: 100-continue (HTTP/1.1) */
	uint8_t head;            /**< 1: HEAD, the response carries no body */
	uint64_t content_length; /**< with EWYK_HTTP_BODY_LENGTH */
	/**
	 * The request's host (RFC 9112 3.2.2): for an absolute-form target
	 * its authority (any Host field is then ignored, though HTTP/1.1
	 * still requires exactly one); otherwise the Host field's value
	 * (len 0: none or empty). Always a valid uri-host [":" port].
	 */
	struct ewyk_http_view host;
};

/** Limits of a parser. Zero fields take the EWYK_HTTP_DEF_* values. */
struct ewyk_http_limits {
	uint32_t max_line; /**< request line bytes, CRLF included */
	uint32_t
		max_header_bytes; /**< header section bytes, final CRLF included */
	uint64_t max_body;        /**< body bytes (decoded chunk data) */
};

/**
 * Request-head parser state. Initialise with ewyk_http_parser_init(),
 * reset with ewyk_http_parser_reset() before each request. The fields are
 * private except `status`.
 */
struct ewyk_http_parser {
	/* per request: zeroed by ewyk_http_parser_reset() */
	uint16_t status;     /**< HTTP status to answer after -EBADMSG */
	uint8_t state;       /**< private */
	uint8_t tok_partial; /**< private: token continues from scratch */
	uint8_t vpos;        /**< private: empty lines, then version position */
	uint8_t nhost;       /**< private: Host fields seen */
	uint8_t flags;       /**< private: field semantics seen */
	uint8_t te_count;    /**< private: transfer codings seen */
	uint8_t te_chunked;  /**< private: times "chunked" seen */
	uint8_t te_last_chunked; /**< private: last coding is chunked */
	uint8_t te_other;        /**< private: another coding seen */
	uint32_t scratch_used;   /**< bytes of scratch used for this request */
	uint32_t tok_off;        /**< private: token start in scratch */
	uint32_t tok_len;        /**< private: token bytes in scratch */
	uint64_t cl;             /**< private: Content-Length seen */
	/* per request, set by reset from the limits */
	uint32_t line_left;         /**< private: request line budget */
	uint32_t hdr_left;          /**< private: header section budget */
	struct ewyk_http_view name; /**< private: current field name */
	/* for the parser's life */
	char *scratch;         /**< straddling tokens are assembled here */
	uint32_t scratch_size; /**< its size */
	struct ewyk_http_limits lim; /**< limits in force */
	uint8_t isa;                 /**< enum ewyk_http_isa in use */
};

/**
 * Scratch bytes a parser needs so that no request within its limits can
 * fail for lack of scratch, whatever the segmentation.
 *
 * @param lim
 *   Limits (NULL: defaults).
 * @return
 *   max_line + max_header_bytes.
 */
uint32_t ewyk_http_scratch_size(const struct ewyk_http_limits *lim);

/**
 * Initialise a parser.
 *
 * @param p
 *   Parser.
 * @param lim
 *   Limits (NULL or zero fields: defaults).
 * @param scratch
 *   Caller's scratch area where tokens that straddle two segments are
 *   assembled (the only copy the parser makes). Must stay valid while the
 *   request's views are used.
 * @param scratch_size
 *   Its size; at least ewyk_http_scratch_size(lim).
 * @return
 *   0, or -EINVAL (NULL argument or scratch too small).
 */
int ewyk_http_parser_init(struct ewyk_http_parser *p,
	const struct ewyk_http_limits *lim, char *scratch,
	uint32_t scratch_size);

/**
 * Make the parser ready for the next request (scratch is reused). Inline:
 * it runs once per request, and is two stores of zeroes and a copy of the
 * limits.
 *
 * @param p
 *   Parser.
 */
static inline void
ewyk_http_parser_reset(struct ewyk_http_parser *p)
{
	memset(p, 0, offsetof(struct ewyk_http_parser, line_left));
	p->line_left = p->lim.max_line;
	p->hdr_left = p->lim.max_header_bytes;
}

/**
 * The best instruction set this CPU offers the scanners.
 *
 * @return
 *   An enum ewyk_http_isa.
 */
enum ewyk_http_isa ewyk_http_isa_best(void);

/**
 * Choose the scanners' instruction set (ewyk_http_parser_init() picks the
 * best). All choices give identical results.
 *
 * @param p
 *   Parser.
 * @param isa
 *   An enum ewyk_http_isa.
 * @return
 *   0, -ENOTSUP (the CPU lacks it) or -EINVAL.
 */
int ewyk_http_parser_set_isa(struct ewyk_http_parser *p,
	enum ewyk_http_isa isa);

/**
 * Feed the next contiguous bytes of a request head.
 *
 * Call with consecutive pieces of the byte stream; they may be split
 * anywhere. Views in @p req point into those pieces (or into the scratch
 * area for a token that straddled two pieces), so the caller keeps every
 * piece given since the last reset alive while it uses @p req. Before the
 * first call, set req->headers and req->max_headers; pass the same @p req
 * on every call for one request.
 *
 * Up to 4 empty lines (CRLF) before the request line are ignored and not
 * counted in max_line (RFC 9112 2.2); a fifth is answered 400. A Host
 * value or an absolute-form authority that is not uri-host [":" port]
 * (reg-name, IPv4 or bracketed IP-literal; no userinfo) is answered 400
 * (RFC 9112 3.2, RFC 9110 4.2.4), and so is a path with a "." or ".."
 * segment (the router compares bytes and does not normalise).
 *
 * @param p
 *   Parser.
 * @param req
 *   Request being filled.
 * @param buf
 *   Bytes.
 * @param len
 *   Their number.
 * @param consumed
 *   Out: bytes of @p buf used (on EWYK_HTTP_DONE, where the body or the
 *   next request starts).
 * @return
 *   EWYK_HTTP_DONE (head complete: req is filled and its framing
 *   checked), EWYK_HTTP_AGAIN (all consumed, need more), -EBADMSG
 *   (p->status: 400, 413, 414, 417, 431, 501 or 505), -EINVAL (NULL
 *   argument or the parser is already done or failed).
 */
int ewyk_http_parse(struct ewyk_http_parser *p, struct ewyk_http_request *req,
	const char *buf, uint32_t len, uint32_t *consumed);

/**
 * Feed the bytes of an mbuf chain from offset @p off on, segment by
 * segment, to ewyk_http_parse().
 *
 * @param p
 *   Parser.
 * @param req
 *   Request being filled.
 * @param m
 *   First mbuf of the chain (as ewyk_tcp_ops.recv hands it over).
 * @param off
 *   Bytes of the chain already consumed.
 * @param consumed
 *   Out: bytes of the chain consumed by this call (from @p off).
 * @return
 *   As ewyk_http_parse().
 */
int ewyk_http_parse_mbuf(struct ewyk_http_parser *p,
	struct ewyk_http_request *req, const struct rte_mbuf *m, uint32_t off,
	uint32_t *consumed);

/**
 * Name of a method.
 *
 * @param m
 *   An enum ewyk_http_method.
 * @return
 *   Its name ("GET", ...), or NULL when out of range.
 */
const char *ewyk_http_method_name(unsigned int m);

/**
 * Find a header field by name (case-insensitive).
 *
 * @param req
 *   Parsed request.
 * @param name
 *   Field name, NUL-terminated.
 * @return
 *   The first field of that name, or NULL.
 */
const struct ewyk_http_header *
ewyk_http_header_find(const struct ewyk_http_request *req, const char *name);

/** Streaming body decoder state (Content-Length or chunked). */
struct ewyk_http_body {
	uint16_t status;      /**< HTTP status to answer after -EBADMSG */
	uint8_t framing;      /**< enum ewyk_http_framing */
	uint8_t state;        /**< private */
	uint8_t ndigits;      /**< private: significant chunk-size digits */
	uint32_t aux;         /**< private: extension / trailer bytes */
	uint32_t max_trailer; /**< trailer section limit (431 beyond) */
	uint64_t remaining;   /**< bytes left in the body / current chunk */
	uint64_t total;       /**< body bytes decoded so far */
	uint64_t max_body;    /**< body limit (413 beyond) */
};

/**
 * Prepare a body decoder for a parsed request.
 *
 * @param b
 *   Decoder.
 * @param req
 *   The request whose body follows (its framing and content_length).
 * @param lim
 *   Limits (NULL or zero fields: defaults): max_body and, for trailers,
 *   max_header_bytes.
 * @return
 *   0, or -EINVAL.
 */
int ewyk_http_body_init(struct ewyk_http_body *b,
	const struct ewyk_http_request *req,
	const struct ewyk_http_limits *lim);

/**
 * Decode the next contiguous bytes of a body. Returns at most one piece
 * of data per call; call again with the rest of the input.
 *
 * @param b
 *   Decoder.
 * @param buf
 *   Bytes.
 * @param len
 *   Their number.
 * @param consumed
 *   Out: bytes of @p buf used (framing and data).
 * @param data
 *   Out: with EWYK_HTTP_DATA, the body bytes (a view into @p buf).
 * @return
 *   EWYK_HTTP_DATA, EWYK_HTTP_AGAIN (all consumed, no data),
 *   EWYK_HTTP_DONE (body complete; what follows belongs to the next
 *   request), -EBADMSG (b->status: 400, 413 or 431), -EINVAL.
 */
int ewyk_http_body_parse(struct ewyk_http_body *b, const char *buf,
	uint32_t len, uint32_t *consumed, struct ewyk_http_view *data);

/**
 * ewyk_http_body_parse() over an mbuf chain from offset @p off: stops at
 * the first data piece, the end of the body, an error or the chain's end.
 *
 * @param b
 *   Decoder.
 * @param m
 *   First mbuf of the chain.
 * @param off
 *   Bytes of the chain already consumed.
 * @param consumed
 *   Out: bytes consumed by this call (from @p off).
 * @param data
 *   Out: with EWYK_HTTP_DATA, the data (inside one segment).
 * @return
 *   As ewyk_http_body_parse().
 */
int ewyk_http_body_parse_mbuf(struct ewyk_http_body *b,
	const struct rte_mbuf *m, uint32_t off, uint32_t *consumed,
	struct ewyk_http_view *data);

/** Length of an IMF-fixdate, "Sun, 06 Nov 1994 08:49:37 GMT" (RFC 9110 5.6.7). */
#define EWYK_HTTP_IMF_DATE_LEN 29
/** Length of "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n". */
#define EWYK_HTTP_DATE_LEN 37

/**
 * Write a time as an IMF-fixdate, the HTTP-date servers send (RFC 9110
 * 5.6.7): the value of Date, Last-Modified, Expires. Independent of the
 * locale.
 *
 * @param unix_sec
 *   Seconds since the Epoch (negative: before it).
 * @param buf
 *   Output, NUL-terminated.
 * @param size
 *   Its size: more than EWYK_HTTP_IMF_DATE_LEN.
 * @return
 *   0; -EINVAL (NULL or too small @p buf), -ERANGE (a year outside
 *   0000-9999).
 */
int ewyk_http_imf_date(int64_t unix_sec, char *buf, size_t size);

/*
 * Lexical helpers: a hexadecimal digit, a percent-encoded octet, a decimal
 * number. They read only the bytes they are given.
 */

/**
 * The value of one hexadecimal digit (HEXDIG of RFC 5234, either case).
 *
 * @param c
 *   The character.
 * @return
 *   0..15; -EINVAL when @p c is not a hexadecimal digit.
 */
int ewyk_http_hex_digit(char c);

/**
 * Decode the percent-encoded octet ("%" HEXDIG HEXDIG, RFC 3986 2.1) at
 * the start of s[0, n). The caller decides what a decoded octet may be
 * (an encoded '/' or NUL, for instance).
 *
 * @param s
 *   The input; s[0] is the '%'.
 * @param n
 *   Bytes readable at @p s (only the first 3 are read).
 * @return
 *   The octet, 0..255; -EINVAL when s[0, n) does not start with one:
 *   @p s NULL, @p n under 3 ('%' at the end), s[0] not '%', or a digit
 *   that is not hexadecimal.
 */
int ewyk_http_pct_octet(const char *s, size_t n);

/**
 * Parse s[0, n) as a decimal number (1*DIGIT: no sign, no space, leading
 * zeros allowed) no greater than @p max. Overflow-safe for any length.
 *
 * @param s
 *   The digits.
 * @param n
 *   Their count.
 * @param max
 *   The largest value accepted (UINT64_MAX: any that fits).
 * @param out
 *   The value; left unchanged on error.
 * @return
 *   0; -EINVAL when @p s or @p out is NULL, @p n is 0 or a byte is not a
 *   digit (whatever the digits before it); -ERANGE when the value is
 *   greater than @p max.
 */
int ewyk_http_parse_u64(const char *s, size_t n, uint64_t max, uint64_t *out);

/** Per-shard cache of the Date field line, refreshed once per second. */
struct ewyk_http_date {
	uint64_t sec; /**< Unix time of the cached line */
	char line[EWYK_HTTP_DATE_LEN +
		1]; /**< "Date: ...\r\n", NUL-terminated */
};

/**
 * Refresh the cached Date line from the caller's clock; does nothing when
 * the second has not changed (call it once per poll loop).
 *
 * @param d
 *   Cache (zeroed memory is a valid empty cache).
 * @param unix_sec
 *   Current time, seconds since the Epoch.
 * @return
 *   1 when the line was rewritten, 0 when it was current.
 */
int ewyk_http_date_update(struct ewyk_http_date *d, uint64_t unix_sec);

/** Connection field of a response. */
enum ewyk_http_conn_field {
	EWYK_HTTP_CONN_NONE = 0,   /**< no Connection field (1.1 keep-alive) */
	EWYK_HTTP_CONN_CLOSE,      /**< Connection: close */
	EWYK_HTTP_CONN_KEEP_ALIVE, /**< Connection: keep-alive (for 1.0) */
};

/** What a response head says. */
struct ewyk_http_response {
	uint16_t status;          /**< 100-999 */
	uint8_t framing;          /**< enum ewyk_http_framing */
	uint8_t connection;       /**< enum ewyk_http_conn_field */
	uint64_t content_length;  /**< with EWYK_HTTP_BODY_LENGTH */
	const char *content_type; /**< value (no CTL but HTAB), or NULL */
	const char *server;       /**< value (no CTL but HTAB), NULL: "ewyk" */
	/** More field lines, each token ":" OWS value CRLF, or NULL. */
	const char *extra;
};

/**
 * Write a response head: status line, Server, Date, framing field
 * (Content-Length or Transfer-Encoding: chunked; Content-Length: 0 for
 * EWYK_HTTP_BODY_NONE; none for 1xx, 204, 304 and EWYK_HTTP_BODY_CLOSE),
 * Content-Type, Connection, extra lines and the
 * final CRLF. A 1xx response is its status line and CRLF only. For HEAD,
 * write the head of the GET response and send no body.
 *
 * @param buf
 *   Destination.
 * @param cap
 *   Its size.
 * @param r
 *   Response.
 * @param d
 *   Date cache (NULL: no Date field).
 * @return
 *   Bytes written (> 0), -ENOSPC (does not fit) or -EINVAL (also for a
 *   CR, LF or other CTL but HTAB in server or content_type, or extra not
 *   made of well-formed field lines: no header injection).
 */
int ewyk_http_response_head(char *buf, uint32_t cap,
	const struct ewyk_http_response *r, const struct ewyk_http_date *d);

/**
 * ewyk_http_response_head() appended to the last segment of an mbuf.
 *
 * @param m
 *   Packet mbuf; its last segment's tailroom receives the head.
 * @param r
 *   Response.
 * @param d
 *   Date cache (NULL: no Date field).
 * @return
 *   0, -ENOSPC (not enough tailroom; m unchanged) or -EINVAL.
 */
int ewyk_http_response_head_mbuf(struct rte_mbuf *m,
	const struct ewyk_http_response *r, const struct ewyk_http_date *d);

/**
 * Reason phrase of a status code.
 *
 * @param status
 *   Status code.
 * @return
 *   Its phrase ("OK", ...); "Unknown" for codes without one.
 */
const char *ewyk_http_reason(uint16_t status);

/**
 * Make an mbuf chain one chunk of a chunked body, in place: prepend the
 * chunk-size line in the first segment's headroom, append CRLF in the last
 * segment's tailroom.
 *
 * @param m
 *   Chain holding the chunk's data (pkt_len > 0).
 * @return
 *   0, -ENOSPC (not enough headroom or tailroom; m unchanged), -EINVAL
 *   (empty chain: use ewyk_http_chunk_last_mbuf()).
 */
int ewyk_http_chunk_wrap_mbuf(struct rte_mbuf *m);

/**
 * Append the last chunk and the end of an empty trailer section
 * ("0\r\n\r\n") to an mbuf.
 *
 * @param m
 *   Packet mbuf (its last segment's tailroom is used).
 * @return
 *   0, or -ENOSPC (m unchanged).
 */
int ewyk_http_chunk_last_mbuf(struct rte_mbuf *m);

/**
 * Write a chunk-size line ("<hex>\r\n") for a chunk of @p len bytes.
 *
 * @param buf
 *   Destination.
 * @param cap
 *   Its size.
 * @param len
 *   Chunk length.
 * @return
 *   Bytes written, or -ENOSPC.
 */
int ewyk_http_chunk_size_line(char *buf, uint32_t cap, uint64_t len);

/** Method bit of an enum ewyk_http_method, for route method masks. */
#define EWYK_HTTP_M(m) (UINT32_C(1) << (m))

/** A route: what ewyk_http_route_lookup() returns. */
struct ewyk_http_route {
	const char *path;   /**< path or prefix (copied into the router) */
	uint32_t path_len;  /**< its length */
	uint8_t prefix;     /**< 1: matches path and paths below it */
	uint8_t invocation; /**< enum ewyk_strategy_invocation of its handler */
	uint32_t methods;   /**< EWYK_HTTP_M() bits; GET implies HEAD */
	void *handler;      /**< the caller's handler (opaque here) */
	void *arg;          /**< its argument */
};

struct ewyk_http_router;

/**
 * Create a router.
 *
 * @param max_routes
 *   Capacity (> 0).
 * @param socket_id
 *   NUMA socket of its memory (SOCKET_ID_ANY allowed).
 * @return
 *   The router, or NULL with rte_errno EINVAL or ENOMEM.
 */
struct ewyk_http_router *ewyk_http_router_create(uint32_t max_routes,
	int socket_id);

/**
 * Free a router (NULL is allowed).
 *
 * @param r
 *   Router.
 */
void ewyk_http_router_free(struct ewyk_http_router *r);

/**
 * Add a route.
 *
 * @param r
 *   Router.
 * @param path
 *   Path starting with '/', NUL-terminated (copied).
 * @param prefix
 *   Non-zero: a prefix route; zero: exact. A prefix matches whole
 *   segments: "/api" matches "/api", "/api/..." and "/api?...", not
 *   "/apix"; a prefix ending in '/' matches every path starting with it.
 * @param methods
 *   EWYK_HTTP_M() bits (non-zero).
 * @param invocation
 *   enum ewyk_strategy_invocation of the handler.
 * @param handler
 *   Caller's handler, returned by lookups.
 * @param arg
 *   Its argument.
 * @return
 *   0, -EINVAL, -EEXIST (same path, kind and an overlapping method) or
 *   -ENOSPC (router full).
 */
int ewyk_http_route_add(struct ewyk_http_router *r, const char *path,
	int prefix, uint32_t methods, enum ewyk_strategy_invocation invocation,
	void *handler, void *arg);

/**
 * Route a request: an exact route wins over prefix routes, the longest
 * prefix wins among them; the query string is ignored. Paths are compared
 * as bytes: no percent-decoding, no dot-segment removal (the parser
 * refuses "." and ".." segments).
 *
 * @param r
 *   Router.
 * @param method
 *   enum ewyk_http_method of the request.
 * @param path
 *   The request's path (ewyk_http_request.path).
 * @param route
 *   Out: the route matched (on 0).
 * @param allow
 *   Out (may be NULL): with -ENOTSUP, the methods the path allows
 *   (EWYK_HTTP_M() bits, for the Allow field).
 * @return
 *   0, -ENOENT (no route for the path: answer 404), -ENOTSUP (routes for
 *   the path, none for the method: answer 405 with Allow) or -EINVAL.
 */
int ewyk_http_route_lookup(const struct ewyk_http_router *r,
	unsigned int method, struct ewyk_http_view path,
	const struct ewyk_http_route **route, uint32_t *allow);

/**
 * Write an Allow field value ("GET, HEAD, POST") for a method mask.
 *
 * @param buf
 *   Destination (NUL-terminated on success).
 * @param cap
 *   Its size.
 * @param methods
 *   EWYK_HTTP_M() bits.
 * @return
 *   Length written, or -ENOSPC.
 */
int ewyk_http_allow_format(char *buf, uint32_t cap, uint32_t methods);

/*
 * Connection layer (http_conn*.c): an HTTP/1.1 server connection driven by
 * lib/tcp events on one shard.
 */

struct ewyk_tcp_conn;
struct ewyk_tcp_ops;
struct ewyk_twheel;

/**
 * Per-shard counters of the connection layer, declared once. Each entry
 * X(SYM, name, type, help) gives EWYK_HTTP_C_<SYM> and the Prometheus
 * metric ewyk_http_<name>_total.
 */
#define EWYK_HTTP_COUNTERS(X)                                                  \
	X(CONN_ACCEPTED, conn_accepted, COUNTER, "Connections taken")          \
	X(CONN_REFUSED, conn_refused, COUNTER,                                 \
		"Connections refused (RST): every connection object in use")   \
	X(REQUESTS, requests, COUNTER, "Request heads parsed")                 \
	X(PENDING, pending, COUNTER, "Handlers that returned pending")         \
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
	X(TIMEOUT_BODY, timeout_body, COUNTER, "Body read timeouts")           \
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

/** Configuration of a shard's connection layer. Zero fields: defaults. */
struct ewyk_http_server_conf {
	struct ewyk_twheel *wheel; /**< the shard's wheel (required) */
	struct rte_mempool *pool;  /**< mbufs for responses (required) */
	const struct ewyk_http_router *router; /**< routes (required) */
	struct ewyk_http_limits lim;           /**< parser limits */
	uint32_t max_conns;            /**< connection objects; 0 = 1024 */
	uint32_t header_timeout_ms;    /**< head read; 0 = 10000 */
	uint32_t body_timeout_ms;      /**< between body bytes; 0 = 30000 */
	uint32_t idle_timeout_ms;      /**< keep-alive idle; 0 = 60000 */
	uint32_t write_timeout_ms;     /**< response write stall; 0 = 30000 */
	ewyk_http_dispatch_t dispatch; /**< NULL: BLOCKING routes get 503 */
	void *dispatch_arg;            /**< its argument */
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
 * Free a server. Its connections must be gone (ewyk_tcp_free() first, or
 * every connection closed).
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
 *
 * @param c
 *   Connection; with @p aborted set its TCP connection is gone.
 * @param aborted
 *   0: the request is over (response handed whole to TCP, body read);
 *   1: the connection went away first. A pending request's object then
 *   stays until ewyk_http_respond*() is called on it (which only frees
 *   it); that call may be made from within this callback.
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
 * Whether the connection under a request is still there (a pending
 * request's peer may have gone; responding then only frees it).
 *
 * @param c
 *   Connection.
 * @return
 *   1 or 0.
 */
int ewyk_http_conn_alive(const struct ewyk_http_conn *c);

/*
 * Response heads (the client side: ewyk-loadgen). A stateless parser in
 * the picohttpparser manner: the caller keeps the bytes of a head that is
 * not complete yet and calls again with all of them.
 */

/** A parsed response head. Filled by ewyk_http_resp_parse(). */
struct ewyk_http_resp {
	struct ewyk_http_header
		*headers;      /**< caller's array, or NULL (fields not kept) */
	uint16_t max_headers;  /**< its capacity (fields beyond: not kept) */
	uint16_t nheaders;     /**< fields kept */
	uint16_t status;       /**< status code, 100..599 */
	uint8_t version_minor; /**< 0 or 1 (HTTP/1.x, x > 1, counts as 1) */
	uint8_t framing;       /**< enum ewyk_http_framing */
	/** 1: no length and not chunked: the body runs until the server
	 *  closes the connection (framing is then EWYK_HTTP_BODY_NONE). */
	uint8_t until_close;
	uint8_t keep_alive; /**< 1: the connection may carry another request */
	uint64_t content_length;      /**< with EWYK_HTTP_BODY_LENGTH */
	struct ewyk_http_view reason; /**< reason phrase (may be empty) */
};

/**
 * Parse a response head (status line and header section, RFC 9112
 * sections 4 and 5) from the start of @p buf, with the framing rules of
 * RFC 9112 section 6.3 for a response: no body for 1xx, 204, 304 or the
 * answer to HEAD; Transfer-Encoding (chunked last) before Content-Length;
 * a Transfer-Encoding whose last coding is not chunked, or neither
 * field, means a body until close (until_close, keep_alive 0).
 * Content-Length fields that disagree, obs-fold, whitespace before a
 * colon and bytes outside the grammar are errors. Lines may end in LF
 * alone (RFC 9112 section 2.2).
 *
 * @param buf
 *   Bytes received so far (the head starts at buf[0]).
 * @param len
 *   Their number.
 * @param max_head
 *   Longest head accepted (0: EWYK_HTTP_DEF_MAX_HEADER_BYTES): an
 *   incomplete head this long or longer is an error.
 * @param head_req
 *   Non-zero when the request was HEAD (the response has no body).
 * @param r
 *   Filled in; set r->headers and r->max_headers before the call.
 * @param head_len
 *   Out: with EWYK_HTTP_DONE, the head's length (the body starts there).
 * @return
 *   EWYK_HTTP_DONE, EWYK_HTTP_AGAIN (incomplete: call again with more
 *   bytes), -EBADMSG (malformed or too long), -EINVAL (NULL argument).
 */
int ewyk_http_resp_parse(const char *buf, uint32_t len, uint32_t max_head,
	int head_req, struct ewyk_http_resp *r, uint32_t *head_len);

/**
 * Prepare a body decoder for the body of a parsed response (its framing
 * and content_length). A body that runs until close is not decoded here.
 *
 * @param b
 *   Decoder.
 * @param r
 *   Response head.
 * @param lim
 *   Limits (NULL or zero fields: defaults): max_body, max_header_bytes.
 * @return
 *   0, or -EINVAL.
 */
int ewyk_http_resp_body_init(struct ewyk_http_body *b,
	const struct ewyk_http_resp *r, const struct ewyk_http_limits *lim);

#ifdef __cplusplus
}
#endif

#endif /* EWYK_HTTP_H */
