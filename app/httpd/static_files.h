/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_HTTPD_STATIC_FILES_H
#define EWYK_HTTPD_STATIC_FILES_H

/*
 * --root DIR: static files under DIR, GET and HEAD.
 *
 * Two halves, so that the shard's token holder never waits for the disk:
 *   static_file_open()     BLOCKING (a reserved lcore, or the caller's
 *                          lcore under --strategy pc): resolves the path
 *                          beneath DIR, opens, fstat()s and maps the file
 *                          (MAP_POPULATE: its pages are read in there);
 *   static_file_respond()  on the holder: answers from the result, the
 *                          body streamed from the mapping under TCP's flow
 *                          control (nothing is copied but into mbufs).
 *
 * Escapes are refused with 403: a "." or ".." segment (also percent-encoded:
 * %2e%2e), an encoded '/' (%2f) or NUL, and any symlink that leads out of
 * DIR (openat2 RESOLVE_BENEATH; where the kernel lacks it, realpath() and
 * a prefix check). Directories are served by their index.html, else 403.
 *
 * Memory is bounded: a mapping lives in one of a fixed number of slots
 * (STATIC_SLOTS; a request finding none is answered 503) and is unmapped
 * when its body has been handed to TCP, when the response fails, or, if
 * the connection went away mid-body (lib/http then stops calling the
 * producer), by a sweep once the slot has not been read for reap_ms.
 */

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <ewyk_http.h>

/** Mapping slots of a root: concurrent file bodies at most. */
#define STATIC_SLOTS 1024
/** Files up to this size are read in by the blocking half (MAP_POPULATE). */
#define STATIC_POPULATE_MAX (UINT64_C(256) << 20)

struct static_root;

/** What the blocking half found; handed to the holder. */
struct static_file {
	uint16_t status;   /**< 200, 304, 403, 404, 500 or 503 */
	uint8_t head;      /**< HEAD: no body */
	uint32_t slot;     /**< 200 with a body: its mapping's slot */
	uint64_t len;      /**< 200: file size */
	const char *ctype; /**< 200/304: Content-Type (static string) */
	char extra[64];    /**< "Last-Modified: ...\r\n" (200/304) */
};

/**
 * Open DIR for serving.
 *
 * @param dir
 *   The directory.
 * @param reap_ms
 *   A slot not read for this long belongs to a connection that went away
 *   (choose above the HTTP write timeout).
 * @return
 *   The root, or NULL (message printed).
 */
struct static_root *static_root_open(const char *dir, uint32_t reap_ms);

/**
 * Close a root: every mapping is unmapped. No request may be under way.
 *
 * @param r
 *   Root (NULL allowed).
 */
void static_root_close(struct static_root *r);

/**
 * The BLOCKING half: resolve, open, stat and map a request's file.
 *
 * @param r
 *   Root.
 * @param path
 *   The request's path as received (percent-encoded, no query).
 * @param len
 *   Its length.
 * @param head
 *   1 for HEAD (nothing is mapped).
 * @param ims
 *   The If-Modified-Since value (NULL: none).
 * @param ims_len
 *   Its length.
 * @param f
 *   Out: the result (its status says which).
 */
void static_file_open(struct static_root *r, const char *path, size_t len,
	int head, const char *ims, size_t ims_len, struct static_file *f);

/**
 * The holder's half: respond with @p f (on the connection's shard).
 *
 * @param r
 *   Root.
 * @param c
 *   The connection of the request.
 * @param f
 *   static_file_open()'s result (copied: may be freed after the call).
 * @return
 *   EWYK_HTTP_HANDLED, or a negative errno (the mapping is released).
 */
int static_file_respond(struct static_root *r, struct ewyk_http_conn *c,
	const struct static_file *f);

/**
 * Release what static_file_open() took, when its result will not be
 * given to static_file_respond() (the request was dropped).
 *
 * @param r
 *   Root.
 * @param f
 *   The result.
 */
void static_file_discard(struct static_root *r, const struct static_file *f);

/**
 * Content-Type of a file name by its extension.
 *
 * @param name
 *   The name (or path).
 * @param len
 *   Its length.
 * @return
 *   A static string; "application/octet-stream" when unknown.
 */
const char *static_content_type(const char *name, size_t len);

/**
 * Decode a request path into a relative file path beneath the root.
 *
 * @param path
 *   The request path, starting with '/', percent-encoded.
 * @param len
 *   Its length.
 * @param out
 *   Output, NUL-terminated: the path without its leading '/' ("." for
 *   the root itself).
 * @param cap
 *   Its size.
 * @return
 *   0; -EACCES (an escape: "." or ".." segment, %2f, NUL, bad escape);
 *   -ENAMETOOLONG.
 */
int static_path_decode(const char *path, size_t len, char *out, size_t cap);

#endif /* EWYK_HTTPD_STATIC_FILES_H */
