/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_HTTP_CLIENT_H
#define EWYK_HTTP_CLIENT_H

/**
 * @file
 * lib/http, client side: the response-head parser and the response body
 * decoder set-up (what ewyk-loadgen uses).
 */

#include <stdint.h>

#include <ewyk_http_parse.h>

#ifdef __cplusplus
extern "C" {
#endif

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

#endif /* EWYK_HTTP_CLIENT_H */
