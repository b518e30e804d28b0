/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_HTTPD_STATIC_FILES_H
#define EWYK_HTTPD_STATIC_FILES_H

/*
 * --root DIR: static files under DIR, GET and HEAD, as a BLOCKING route
 * of the runtime (ewyk_rt_route.fn): a prefix route on "/", so every other route wins over it
 * (an exact route beats every prefix route, a longer prefix beats a
 * shorter one): GET / is the hello route, /metrics the metrics page,
 * /bytes/... the generator; a file named like a route is not served.
 *
 * The blocking function (a reserved lcore, or in place under --strategy
 * pc) resolves the path beneath DIR, opens, fstat()s and maps the file
 * with MAP_POPULATE, so its pages are read in there; the token holder
 * then streams the body from the mapping under TCP's flow control (copied
 * only into mbufs) and the stream's release unmaps it, exactly once,
 * however the response ends. Memory stays bounded: nothing is buffered
 * but the mapping of the file itself (page cache), one per response in
 * flight. Files larger than STATIC_POPULATE_MAX are mapped without
 * MAP_POPULATE (read ahead with MADV_WILLNEED): the holder may then take
 * a page fault on a page not yet read.
 *
 * A file that shrinks after it was mapped (truncated by someone else)
 * would raise SIGBUS on the token holder when the copy reaches past its
 * new end: the copy is guarded (a SIGBUS handler, installed with --root,
 * jumps back out of it), the producer fails and the connection is aborted
 * short of its Content-Length; the server goes on. The handler stays
 * installed whatever SIGBUS comes: one sent by a process (kill -BUS) is
 * passed to the handler installed before it, or ignored and counted
 * (ewyk_httpd_sigbus_ignored_total); a fault outside the guard goes to the
 * previous disposition (by default it ends the process). Under the openat2()
 * fallback the realpath() check and the open() race with a rename of a
 * directory component into a symlink (O_NOFOLLOW covers the last one).
 *
 * Escapes are refused with 403: a "." or ".." segment (also encoded:
 * %2e%2e), an encoded '/' (%2f) or NUL, and any symlink that leads out of
 * DIR (openat2 RESOLVE_BENEATH; where the kernel lacks it, realpath() and
 * a prefix check). Raw ".." never gets here: the parser answers 400.
 * Directories are served by their index.html, else 403 (no listings).
 * Content-Type by extension; Last-Modified, and 304 for an
 * If-Modified-Since at or after it (a date later than now is ignored,
 * RFC 9110 13.1.3).
 */

#include <stddef.h>
#include <stdint.h>

#include "httpd.h"

/** Files up to this size are read in by the blocking function. */
#define STATIC_POPULATE_MAX (UINT64_C(256) << 20)

struct static_root;

/**
 * Open DIR for serving.
 *
 * @param dir
 *   The directory.
 * @return
 *   The root, or NULL (message printed).
 */
struct static_root *static_root_open(const char *dir);

/**
 * Close a root (no request under way).
 *
 * @param r
 *   Root (NULL allowed).
 */
void static_root_close(struct static_root *r);

/*
 * SIGBUS signals sent by a process (kill, sigqueue: not a fault) that no
 * handler installed before ours took, and so were ignored; 0 without
 * --root. Any lcore.
 */
uint64_t static_files_sigbus_ignored(void);

/**
 * The route's blocking function (ewyk_rt_http_fn).
 *
 * @param req
 *   The request head.
 * @param res
 *   The result to fill.
 * @param mode
 *   How it runs.
 * @param arg
 *   The struct static_root.
 * @return
 *   0, or a negative errno (answered 500).
 */
int static_file_get(const struct ewyk_rt_req *req, struct ewyk_rt_result *res,
	enum ewyk_strategy_mode mode, void *arg);

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
