/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_HTTP_PARSE_H
#define EWYK_HTTP_PARSE_H

/**
 * @file
 * lib/http, parsing side: the request-head parser (views into the
 * caller's segments, scratch for tokens that straddle them), the framing
 * rules of RFC 9112 section 6 with the status to answer for each malformed
 * request, the streaming body decoders (Content-Length, chunked), and the
 * lexical helpers (hexadecimal digit, percent-encoded octet, decimal
 * number). Return conventions: see ewyk_http.h.
 */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_mbuf.h>

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
/**
 * Chunked framing allowance: the framing bytes of a chunked body (each
 * chunk-size line with its extensions and CRLF, the CRLF after each
 * chunk's data) may exceed EWYK_HTTP_CHUNK_OVERHEAD_PER_BYTE per body
 * byte decoded so far by this many bytes at most (400 beyond).
 */
#define EWYK_HTTP_CHUNK_OVERHEAD 16384
/** Framing bytes earned by each body byte: the 5 of "1\r\nX\r\n", so
 * that a body sent a byte per chunk is never refused. */
#define EWYK_HTTP_CHUNK_OVERHEAD_PER_BYTE 5

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
	uint64_t credit;      /**< private: chunk framing bytes allowed */
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

#ifdef __cplusplus
}
#endif

#endif /* EWYK_HTTP_PARSE_H */
