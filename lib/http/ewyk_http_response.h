/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_HTTP_RESPONSE_H
#define EWYK_HTTP_RESPONSE_H

/**
 * @file
 * lib/http, writing side: IMF-fixdate and the per-shard Date line cache,
 * response heads (status line, Date, Server, framing, Connection), and
 * the chunked body encoder that wraps mbufs in place.
 */

#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include <ewyk_http_parse.h>

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif /* EWYK_HTTP_RESPONSE_H */
