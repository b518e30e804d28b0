/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --root DIR: static files (see static_files.h for the design).
 */

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_per_lcore.h>

#include "static_files.h"

struct static_root {
	int fd;              /* the directory */
	char real[PATH_MAX]; /* its realpath() */
	size_t real_len;
};

/* A body being streamed: the file's mapping. */
struct static_body {
	void *map;
	uint64_t len;
};

/*
 * A copy out of a mapping that may lose its pages: the file shrinks after
 * mmap() (truncated by someone else) and reading past its new end raises
 * SIGBUS. The copy runs on the token holder; without this guard one
 * truncated file would kill the whole server. The holder arms its
 * per-lcore guard around the memcpy; the SIGBUS handler jumps back to it
 * when the faulting address lies in the armed range. Any other SIGBUS
 * leaves the handler in place:
 *  - one sent by a process (kill -BUS, sigqueue, tgkill: si_code <= 0) is
 *    no fault (no access failed, and si_addr then holds the sender's pid,
 *    not an address): it goes to the handler that was installed before
 *    ours if that was a function, and is otherwise ignored and counted
 *    (static_files_sigbus_ignored()), so the guard stays for the next
 *    truncated file;
 *  - a fault outside the guard goes to the previous handler if it was a
 *    function; otherwise the previous disposition (the default: terminate
 *    with a core) is put back and the handler returns, so the access
 *    faults again under it and the process dies of it, as without --root.
 */
struct copy_guard {
	sigjmp_buf jb;
	const char *lo, *hi; /* the source range being copied */
	volatile sig_atomic_t armed;
};

static RTE_DEFINE_PER_LCORE(struct copy_guard, copy_guard);

/* The SIGBUS disposition before ours, and the signals sent (not faults)
 * that nobody else handled. */
static struct sigaction sigbus_prev;
static uint64_t sigbus_ignored;

uint64_t
static_files_sigbus_ignored(void)
{
	return __atomic_load_n(&sigbus_ignored, __ATOMIC_RELAXED);
}

/* Give the signal to the handler installed before ours; 0 if that was no
 * function (SIG_DFL, SIG_IGN). */
static int
sigbus_chain(int sig, siginfo_t *si, void *uc)
{
	if ((sigbus_prev.sa_flags & SA_SIGINFO) != 0) {
		if (sigbus_prev.sa_sigaction == NULL)
			return 0;
		sigbus_prev.sa_sigaction(sig, si, uc);
		return 1;
	}
	if (sigbus_prev.sa_handler == SIG_DFL ||
		sigbus_prev.sa_handler == SIG_IGN)
		return 0;
	sigbus_prev.sa_handler(sig);
	return 1;
}

static void
sigbus_handler(int sig, siginfo_t *si, void *uc)
{
	struct copy_guard *g = &RTE_PER_LCORE(copy_guard);
	const char *a;

	if (si == NULL || si->si_code <= 0) {
		/* Sent by a process: no fault, nothing to unwind. */
		if (!sigbus_chain(sig, si, uc))
			__atomic_fetch_add(&sigbus_ignored, 1,
				__ATOMIC_RELAXED);
		return;
	}
	a = (const char *)si->si_addr;
	if (g->armed && a >= g->lo && a < g->hi) {
		g->armed = 0;
		siglongjmp(g->jb, 1);
	}
	if (sigbus_chain(sig, si, uc))
		return;
	/* A fault we do not guard, and no handler before ours: the access
	 * runs again under the previous (default) action, which ends the
	 * process. */
	sigaction(SIGBUS, &sigbus_prev, NULL);
}

/* Install the SIGBUS handler (once, at start-up). 0, or -errno. */
static int
sigbus_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sigbus_handler;
	/* NODEFER: the jump leaves the handler, and SIGBUS must not stay
	 * blocked (sigsetjmp without saving the mask: no syscall per copy). */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGBUS, &sa, &sigbus_prev) == 0 ? 0 : -errno;
}

/* memcpy from a file mapping; 0, or -EIO when the file shrank under it. */
static int
guarded_copy(char *dst, const char *src, size_t n)
{
	struct copy_guard *g = &RTE_PER_LCORE(copy_guard);

	g->lo = src;
	g->hi = src + n;
	if (sigsetjmp(g->jb, 0) != 0)
		return -EIO;
	g->armed = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	memcpy(dst, src, n);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	g->armed = 0;
	return 0;
}

/* ---- names ---- */

static const struct {
	const char *ext;
	const char *type;
} ctypes[] = {
	{ "html", "text/html; charset=utf-8" },
	{ "htm", "text/html; charset=utf-8" },
	{ "css", "text/css; charset=utf-8" },
	{ "js", "text/javascript; charset=utf-8" },
	{ "mjs", "text/javascript; charset=utf-8" },
	{ "json", "application/json" },
	{ "txt", "text/plain; charset=utf-8" },
	{ "md", "text/markdown; charset=utf-8" },
	{ "csv", "text/csv; charset=utf-8" },
	{ "xml", "application/xml" },
	{ "svg", "image/svg+xml" },
	{ "png", "image/png" },
	{ "jpg", "image/jpeg" },
	{ "jpeg", "image/jpeg" },
	{ "gif", "image/gif" },
	{ "webp", "image/webp" },
	{ "ico", "image/vnd.microsoft.icon" },
	{ "wasm", "application/wasm" },
	{ "pdf", "application/pdf" },
	{ "zip", "application/zip" },
	{ "gz", "application/gzip" },
	{ "tar", "application/x-tar" },
	{ "mp4", "video/mp4" },
	{ "webm", "video/webm" },
	{ "mp3", "audio/mpeg" },
	{ "woff", "font/woff" },
	{ "woff2", "font/woff2" },
};

const char *
static_content_type(const char *name, size_t len)
{
	size_t i, dot = len;

	for (i = len; i > 0; i--) {
		if (name[i - 1] == '/')
			break;
		if (name[i - 1] == '.') {
			dot = i;
			break;
		}
	}
	if (dot < len) {
		for (i = 0; i < RTE_DIM(ctypes); i++) {
			size_t el = strlen(ctypes[i].ext);

			if (el == len - dot &&
				strncasecmp(name + dot, ctypes[i].ext, el) == 0)
				return ctypes[i].type;
		}
	}
	return "application/octet-stream";
}

/* The segment s[0..n) is "." or "..". */
static int
dot_segment(const char *s, size_t n)
{
	return (n == 1 && s[0] == '.') ||
		(n == 2 && s[0] == '.' && s[1] == '.');
}

int
static_path_decode(const char *path, size_t len, char *out, size_t cap)
{
	size_t i = 0, o = 0, seg = 0;

	if (len == 0 || path[0] != '/' || cap < 2)
		return -EACCES;
	i = 1; /* the leading '/' */
	while (i < len) {
		char c = path[i];

		if (c == '%') {
			int v = ewyk_http_pct_octet(path + i, len - i);

			if (v < 0)
				return -EACCES;
			c = (char)v;
			/* An encoded '/' or NUL names no file. */
			if (c == '/' || c == '\0')
				return -EACCES;
			i += 3;
		} else {
			i++;
			if (c == '/') {
				if (dot_segment(out + seg, o - seg))
					return -EACCES;
				seg = o + 1;
			}
		}
		if (o + 1 >= cap)
			return -ENAMETOOLONG;
		out[o++] = c;
	}
	if (dot_segment(out + seg, o - seg))
		return -EACCES;
	if (o == 0)
		out[o++] = '.';
	out[o] = '\0';
	return 0;
}

/* ---- opening beneath the root ---- */

/* Map an open errno to a status. */
static uint16_t
errno_status(int err)
{
	switch (err) {
	case ENOENT:
	case ENOTDIR:
	case ENAMETOOLONG:
		return 404;
	case EXDEV: /* RESOLVE_BENEATH: the path leads out of the root */
	case ELOOP:
	case EACCES:
	case EPERM:
		return 403;
	default:
		return 500;
	}
}

/* Open rel beneath the root; fd, or -status. */
static int
open_beneath(const struct static_root *r, const char *rel)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	char full[PATH_MAX], res[PATH_MAX];
	long fd;

	fd = syscall(SYS_openat2, r->fd, rel, &how, sizeof(how));
	if (fd >= 0)
		return (int)fd;
	if (errno != ENOSYS && errno != E2BIG)
		return -(int)errno_status(errno);
	/* No openat2: resolve every symlink, then check the prefix. */
	if (snprintf(full, sizeof(full), "%s/%s", r->real, rel) >=
		(int)sizeof(full))
		return -404;
	if (realpath(full, res) == NULL)
		return -(int)errno_status(errno);
	if (strncmp(res, r->real, r->real_len) != 0 ||
		(res[r->real_len] != '/' && res[r->real_len] != '\0'))
		return -403;
	fd = open(res, how.flags | O_NOFOLLOW);
	return fd >= 0 ? (int)fd : -(int)errno_status(errno);
}

/* ---- the blocking function ---- */

static int
parse_http_date(const char *v, size_t len, time_t *t)
{
	char buf[64];
	struct tm tm;
	char *end;

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, v, len);
	buf[len] = '\0';
	memset(&tm, 0, sizeof(tm));
	end = strptime(buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
	if (end == NULL || *end != '\0')
		return -EINVAL;
	*t = timegm(&tm);
	return 0;
}

/* Producer, on the token holder: copy from the mapping. */
static int
body_produce(void *arg, char *buf, uint32_t cap, uint64_t off)
{
	struct static_body *b = arg;
	uint64_t n;

	if (b == NULL || off >= b->len)
		return -EINVAL;
	n = RTE_MIN((uint64_t)cap, b->len - off);
	/* The file may have shrunk since it was mapped: SIGBUS, caught. */
	if (guarded_copy(buf, (const char *)b->map + off, n) != 0)
		return -EIO;
	return (int)n;
}

/* Release, on the token holder, once: unmap. */
static void
body_free(void *arg)
{
	struct static_body *b = arg;

	if (b == NULL)
		return;
	munmap(b->map, b->len);
	rte_free(b);
}

static int
respond_status(struct ewyk_rt_result *res, uint16_t status)
{
	const char *reason = ewyk_http_reason(status);
	int ret = ewyk_rt_result_status(res, status, "text/plain");

	return ret != 0 ?
		ret :
		ewyk_rt_result_body(res, reason, (uint32_t)strlen(reason));
}

int
static_file_get(const struct ewyk_rt_req *req, struct ewyk_rt_result *res,
	enum ewyk_strategy_mode mode, void *arg)
{
	struct static_root *r = arg;
	char rel[PATH_MAX], idx[PATH_MAX], lm[EWYK_HTTP_IMF_DATE_LEN + 1];
	const char *ims, *ctype;
	struct static_body *b;
	struct stat st;
	time_t since;
	uint64_t len;
	void *map;
	int fd, ret;

	RTE_SET_USED(mode); /* BLOCKING: never PIC */
	ret = static_path_decode(req->path, req->path_len, rel, sizeof(rel));
	if (ret != 0)
		return respond_status(res, ret == -EACCES ? 403 : 404);
	fd = open_beneath(r, rel);
	if (fd < 0)
		return respond_status(res, (uint16_t)-fd);
	if (fstat(fd, &st) != 0)
		goto err500;
	if (S_ISDIR(st.st_mode)) {
		/* A directory is served by its index.html, or refused. */
		close(fd);
		if (snprintf(idx, sizeof(idx), "%s/index.html", rel) >=
			(int)sizeof(idx))
			return respond_status(res, 404);
		fd = open_beneath(r, idx);
		if (fd < 0)
			return respond_status(res,
				fd == -404 ? 403 : (uint16_t)-fd);
		if (fstat(fd, &st) != 0)
			goto err500;
		memcpy(rel, idx, sizeof(rel));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return respond_status(res, 403);
	}
	ctype = static_content_type(rel, strlen(rel));
	/* No Last-Modified for a time outside years 0-9999: no HTTP-date. */
	if (ewyk_http_imf_date((int64_t)st.st_mtime, lm, sizeof(lm)) != 0)
		lm[0] = '\0';
	ims = ewyk_rt_req_header(req, "If-Modified-Since");
	/* A date later than now is invalid and ignored (RFC 9110 13.1.3):
	 * otherwise one far-future date would answer 304 to every later
	 * change of the file. */
	if (ims != NULL && parse_http_date(ims, strlen(ims), &since) == 0 &&
		since <= time(NULL) && st.st_mtime <= since) {
		close(fd);
		ret = ewyk_rt_result_status(res, 304, NULL);
		return ret != 0 || lm[0] == '\0' ?
			ret :
			ewyk_rt_result_header(res, "Last-Modified", lm);
	}
	ret = ewyk_rt_result_status(res, 200, ctype);
	if (ret == 0 && lm[0] != '\0')
		ret = ewyk_rt_result_header(res, "Last-Modified", lm);
	if (ret != 0)
		goto err;
	len = (uint64_t)st.st_size;
	if (req->head || len == 0) {
		/* The length only: nothing is mapped, nothing produced. */
		close(fd);
		return ewyk_rt_result_stream(res, len, body_produce, NULL,
			NULL);
	}
	b = rte_zmalloc("static_body", sizeof(*b), 0);
	if (b == NULL) {
		ret = -ENOMEM;
		goto err;
	}
	/* Read in here, where blocking is allowed. */
	map = mmap(NULL, len, PROT_READ,
		MAP_PRIVATE | (len <= STATIC_POPULATE_MAX ? MAP_POPULATE : 0),
		fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		rte_free(b);
		ewyk_rt_result_release(res);
		memset(res, 0, sizeof(*res));
		return respond_status(res, 500);
	}
	if (len > STATIC_POPULATE_MAX)
		madvise(map, len, MADV_SEQUENTIAL | MADV_WILLNEED);
	b->map = map;
	b->len = len;
	ret = ewyk_rt_result_stream(res, len, body_produce, body_free, b);
	if (ret != 0)
		body_free(b);
	return ret;
err500:
	close(fd);
	return respond_status(res, 500);
err:
	close(fd);
	return ret;
}

/* ---- root ---- */

struct static_root *
static_root_open(const char *dir)
{
	struct static_root *r;

	r = rte_zmalloc("static_root", sizeof(*r), 0);
	if (r == NULL) {
		printf("--root: no memory\n");
		return NULL;
	}
	if (realpath(dir, r->real) == NULL) {
		printf("--root %s: %s\n", dir, strerror(errno));
		rte_free(r);
		return NULL;
	}
	r->real_len = strlen(r->real);
	r->fd = open(r->real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->fd < 0) {
		printf("--root %s: %s\n", dir, strerror(errno));
		rte_free(r);
		return NULL;
	}
	return r;
}

void
static_root_close(struct static_root *r)
{
	if (r == NULL)
		return;
	close(r->fd);
	rte_free(r);
}

/* The process's counter set on the metrics page. */
static int
sigbus_metrics(char *buf, size_t size, void *arg)
{
	RTE_SET_USED(arg);
	return snprintf(buf, size,
		"# HELP ewyk_httpd_sigbus_ignored_total SIGBUS sent by a process (kill), not a fault: ignored, the --root guard stays\n"
		"# TYPE ewyk_httpd_sigbus_ignored_total counter\n"
		"ewyk_httpd_sigbus_ignored_total %" PRIu64 "\n",
		static_files_sigbus_ignored());
}

int
static_files_register(struct httpd *h)
{
	struct ewyk_rt_route r = {
		.path = "/",
		.prefix = 1,
		.methods = EWYK_HTTP_M(EWYK_HTTP_GET) |
			EWYK_HTTP_M(EWYK_HTTP_HEAD),
		.invocation = EWYK_STRATEGY_INVOKE_BLOCKING,
		.fn = static_file_get,
	};

	if (ewyk_rt_metrics_add(h->rt, sigbus_metrics, NULL) != 0)
		return -1;
	if (h->conf.root == NULL)
		return 0;
	if (sigbus_install() != 0) {
		printf("--root: cannot install the SIGBUS handler: %s\n",
			strerror(errno));
		return -1;
	}
	h->static_root = static_root_open(h->conf.root);
	if (h->static_root == NULL)
		return -1;
	r.arg = h->static_root;
	return ewyk_rt_http_route(h->rt, &r) == 0 ? 0 : -1;
}

void
static_files_close(struct httpd *h)
{
	static_root_close(h->static_root);
	h->static_root = NULL;
}
