/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_HTTP_H
#define EWYK_HTTP_H

/**
 * @file
 * HTTP/1.1 (RFC 9110 / RFC 9112) message parsing and writing for ewyk.
 *
 * lib/http in five headers, all included by this one:
 *
 * - ewyk_http_parse.h: request-head parser, framing rules, body decoders,
 *   lexical helpers;
 * - ewyk_http_response.h: Date, response heads, chunked encoder;
 * - ewyk_http_router.h: the router;
 * - ewyk_http_server.h: the connection layer on lib/tcp;
 * - ewyk_http_client.h: the response-head parser (client side).
 *
 * What they hold:
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
 *   404 / 405 with Allow;
 * - a connection layer: one HTTP/1.1 server connection per lib/tcp
 *   connection of a shard, handlers that answer in place or later;
 * - a response-head parser for clients.
 *
 * Threading: nothing here is shared. A parser, body decoder, date cache,
 * router or server belongs to its caller's lcore; a router may be read
 * from several lcores once it is no longer modified; a server's
 * connections are touched only by its shard (answers from other lcores
 * reach them through the shard's inbox).
 *
 * Return conventions: parsing functions return EWYK_HTTP_AGAIN (0),
 * EWYK_HTTP_DONE (1), EWYK_HTTP_DATA (2), or -EBADMSG when the message is
 * malformed; the HTTP status to answer is then in the parser's or
 * decoder's `status` field, and the connection must be closed after it
 * (its framing can no longer be trusted). Other functions return 0 (or a
 * length) on success and a negative errno value on failure.
 */

#include <ewyk_http_parse.h>
#include <ewyk_http_response.h>
#include <ewyk_http_router.h>
#include <ewyk_http_server.h>
#include <ewyk_http_client.h>

#endif /* EWYK_HTTP_H */
