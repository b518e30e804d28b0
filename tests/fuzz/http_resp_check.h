/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The invariant fuzz_http_conn checks on what each client receives: the
 * bytes parse as HTTP/1.1 responses (status line, field lines, CRLF, a
 * Content-Length or chunked body, or one delimited by the close it
 * announces), and nothing follows a "Connection: close" response.
 */

#ifndef EWYK_FUZZ_HTTP_RESP_CHECK_H
#define EWYK_FUZZ_HTTP_RESP_CHECK_H

#include <stddef.h>

/**
 * Check the responses in rx[0, n); abort() on the first violation (with
 * FUZZ_HTTP_CONN_DEBUG set, the bytes are printed first).
 *
 * @param rx
 *   What a client received, from the start of its connection.
 * @param n
 *   Its length; the last response may be incomplete.
 * @param heads_only
 *   Check only the first head (a HEAD response's body length cannot be
 *   told from its bytes).
 */
void check_responses(const char *rx, size_t n, int heads_only);

#endif /* EWYK_FUZZ_HTTP_RESP_CHECK_H */
