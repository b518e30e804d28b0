/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_TEST_HTTP_CORPUS_H
#define EWYK_TEST_HTTP_CORPUS_H

/*
 * Loader of tests/http_corpus/requests.txt: the malformed and smuggling
 * requests shared by the unit test of lib/http's connection layer and by
 * DTS (see the file's head for its format).
 */

#include <stddef.h>

/** One case of the corpus. */
struct http_corpus_case {
	char name[64]; /**< case name */
	int status;    /**< expected first status, 0: closed without one */
	char *req;     /**< the request bytes (malloc'ed) */
	size_t len;    /**< their number */
};

/**
 * Load a corpus file.
 *
 * @param path
 *   The file.
 * @param cases
 *   Out: an array of the cases (free with http_corpus_free()).
 * @return
 *   The number of cases, or a negative errno (-ENOENT, -EINVAL for a
 *   malformed line, -ENOMEM).
 */
int http_corpus_load(const char *path, struct http_corpus_case **cases);

/**
 * Free what http_corpus_load() returned.
 *
 * @param cases
 *   The array.
 * @param n
 *   Its number of cases.
 */
void http_corpus_free(struct http_corpus_case *cases, int n);

#endif /* EWYK_TEST_HTTP_CORPUS_H */
