/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --root DIR: static files (see static_files.h for the design).
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_spinlock.h>

#include "static_files.h"

/* Slot states. */
enum {
	SLOT_FREE = 0,
	SLOT_ACTIVE, /* mapped; owned by a request or its stream */
	SLOT_BUSY,   /* the producer is reading it */
};

struct static_slot {
	uint32_t state; /* SLOT_*, atomic */
	void *owner;    /* the connection streaming it (holder only) */
	void *map;      /* the mapping */
	uint64_t len;   /* its length */
	uint64_t last;  /* TSC of its last use, atomic */
} __rte_cache_aligned;

struct static_root {
	int fd;              /* the directory */
	char real[PATH_MAX]; /* its realpath() */
	size_t real_len;
	uint64_t reap_cycles; /* a slot idle this long is reclaimed */
	uint64_t next_sweep;  /* TSC of the next sweep */
	rte_spinlock_t lock;  /* allocation and sweep */
	uint32_t next;        /* where the next search starts */
	struct static_slot slot[STATIC_SLOTS];
};

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

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
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
			int h, l;

			if (i + 2 >= len)
				return -EACCES;
			h = hexval(path[i + 1]);
			l = hexval(path[i + 2]);
			if (h < 0 || l < 0)
				return -EACCES;
			c = (char)(h * 16 + l);
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

/* ---- slots ---- */

static void
slot_free(struct static_slot *s)
{
	if (s->map != NULL)
		munmap(s->map, s->len);
	s->map = NULL;
	s->len = 0;
	s->owner = NULL;
	__atomic_store_n(&s->state, SLOT_FREE, __ATOMIC_RELEASE);
}

/* Reclaim the slots of requests or streams that went away (lock held). */
static void
sweep(struct static_root *r, uint64_t now)
{
	uint32_t i;

	for (i = 0; i < STATIC_SLOTS; i++) {
		struct static_slot *s = &r->slot[i];
		uint32_t st = SLOT_ACTIVE;

		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) !=
				SLOT_ACTIVE ||
			now - __atomic_load_n(&s->last, __ATOMIC_RELAXED) <
				r->reap_cycles)
			continue;
		/* BUSY (the producer is in it) is never taken. */
		if (__atomic_compare_exchange_n(&s->state, &st, SLOT_BUSY, 0,
			    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			slot_free(s);
	}
	r->next_sweep = now + rte_get_tsc_hz();
}

static int
slot_alloc(struct static_root *r)
{
	uint64_t now = rte_rdtsc();
	uint32_t i, k;
	int ret = -1;

	rte_spinlock_lock(&r->lock);
	if (now >= r->next_sweep)
		sweep(r, now);
	for (k = 0; k < STATIC_SLOTS && ret < 0; k++) {
		i = (r->next + k) % STATIC_SLOTS;
		if (__atomic_load_n(&r->slot[i].state, __ATOMIC_ACQUIRE) ==
			SLOT_FREE) {
			__atomic_store_n(&r->slot[i].last, now,
				__ATOMIC_RELAXED);
			r->slot[i].owner = NULL;
			__atomic_store_n(&r->slot[i].state, SLOT_ACTIVE,
				__ATOMIC_RELEASE);
			r->next = i + 1;
			ret = (int)i;
		}
	}
	rte_spinlock_unlock(&r->lock);
	return ret;
}

/* ---- the blocking half ---- */

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

void
static_file_open(struct static_root *r, const char *path, size_t len, int head,
	const char *ims, size_t ims_len, struct static_file *f)
{
	char rel[PATH_MAX], idx[PATH_MAX];
	struct stat st;
	struct tm tm;
	time_t since;
	void *map;
	int fd, slot, ret;

	memset(f, 0, sizeof(*f));
	f->head = (uint8_t)(head != 0);
	ret = static_path_decode(path, len, rel, sizeof(rel));
	if (ret != 0) {
		f->status = ret == -EACCES ? 403 : 404;
		return;
	}
	fd = open_beneath(r, rel);
	if (fd < 0) {
		f->status = (uint16_t)-fd;
		return;
	}
	if (fstat(fd, &st) != 0)
		goto err500;
	if (S_ISDIR(st.st_mode)) {
		/* A directory is served by its index.html, or refused. */
		close(fd);
		if (snprintf(idx, sizeof(idx), "%s/index.html", rel) >=
			(int)sizeof(idx)) {
			f->status = 404;
			return;
		}
		fd = open_beneath(r, idx);
		if (fd < 0) {
			f->status = fd == -404 ? 403 : (uint16_t)-fd;
			return;
		}
		if (fstat(fd, &st) != 0)
			goto err500;
		snprintf(rel, sizeof(rel), "%s", idx);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		f->status = 403;
		return;
	}
	f->ctype = static_content_type(rel, strlen(rel));
	gmtime_r(&st.st_mtime, &tm);
	strftime(f->extra, sizeof(f->extra),
		"Last-Modified: %a, %d %b %Y %H:%M:%S GMT\r\n", &tm);
	if (ims != NULL && parse_http_date(ims, ims_len, &since) == 0 &&
		st.st_mtime <= since) {
		close(fd);
		f->status = 304;
		return;
	}
	f->status = 200;
	f->len = (uint64_t)st.st_size;
	if (head || f->len == 0) {
		close(fd);
		return;
	}
	slot = slot_alloc(r);
	if (slot < 0) {
		close(fd);
		f->status = 503;
		return;
	}
	/* Read in here, where blocking is allowed; a file beyond the cap is
	 * read ahead and may still fault on the holder (see the guide). */
	map = mmap(NULL, f->len, PROT_READ,
		MAP_PRIVATE |
			(f->len <= STATIC_POPULATE_MAX ? MAP_POPULATE : 0),
		fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		slot_free(&r->slot[slot]);
		f->status = 500;
		return;
	}
	if (f->len > STATIC_POPULATE_MAX)
		madvise(map, f->len, MADV_SEQUENTIAL | MADV_WILLNEED);
	r->slot[slot].map = map;
	r->slot[slot].len = f->len;
	f->slot = (uint32_t)slot;
	return;
err500:
	close(fd);
	f->status = 500;
}

void
static_file_discard(struct static_root *r, const struct static_file *f)
{
	if (f->status == 200 && !f->head && f->len > 0)
		slot_free(&r->slot[f->slot]);
}

/* ---- the holder's half ---- */

static int
produce(struct ewyk_http_conn *c, char *buf, uint32_t cap, uint64_t off,
	void *arg)
{
	struct static_slot *s = arg;
	uint32_t st = SLOT_ACTIVE;
	uint64_t n;

	if (s == NULL ||
		!__atomic_compare_exchange_n(&s->state, &st, SLOT_BUSY, 0,
			__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return -ECONNABORTED;
	if (s->owner != c || off >= s->len) {
		__atomic_store_n(&s->state, SLOT_ACTIVE, __ATOMIC_RELEASE);
		return -ECONNABORTED;
	}
	n = RTE_MIN((uint64_t)cap, s->len - off);
	memcpy(buf, (const char *)s->map + off, n);
	if (off + n == s->len) {
		slot_free(s); /* all handed to TCP */
	} else {
		__atomic_store_n(&s->last, rte_rdtsc(), __ATOMIC_RELAXED);
		__atomic_store_n(&s->state, SLOT_ACTIVE, __ATOMIC_RELEASE);
	}
	return (int)n;
}

int
static_file_respond(struct static_root *r, struct ewyk_http_conn *c,
	const struct static_file *f)
{
	struct static_slot *s;
	const char *reason;
	int ret;

	switch (f->status) {
	case 200:
		if (f->head || f->len == 0)
			return ewyk_http_respond_stream(c, 200, f->ctype,
				f->extra, f->len, produce, NULL);
		s = &r->slot[f->slot];
		s->owner = c;
		__atomic_store_n(&s->last, rte_rdtsc(), __ATOMIC_RELAXED);
		ret = ewyk_http_respond_stream(c, 200, f->ctype, f->extra,
			f->len, produce, s);
		/* Failed before the end: the slot is still ours to free. */
		if (ret != 0 && s->owner == c &&
			__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) ==
				SLOT_ACTIVE)
			slot_free(s);
		return ret;
	case 304:
		return ewyk_http_respond(c, 304, NULL, f->extra, NULL, 0);
	default:
		reason = ewyk_http_reason(f->status);
		return ewyk_http_respond(c, f->status, "text/plain", NULL,
			reason, (uint32_t)strlen(reason));
	}
}

/* ---- root ---- */

struct static_root *
static_root_open(const char *dir, uint32_t reap_ms)
{
	struct static_root *r;
	struct stat st;

	r = rte_zmalloc("static_root", sizeof(*r), RTE_CACHE_LINE_SIZE);
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
	if (r->fd < 0 || fstat(r->fd, &st) != 0) {
		printf("--root %s: %s\n", dir, strerror(errno));
		if (r->fd >= 0)
			close(r->fd);
		rte_free(r);
		return NULL;
	}
	r->reap_cycles = (uint64_t)reap_ms * rte_get_tsc_hz() / 1000;
	rte_spinlock_init(&r->lock);
	return r;
}

void
static_root_close(struct static_root *r)
{
	uint32_t i;

	if (r == NULL)
		return;
	for (i = 0; i < STATIC_SLOTS; i++)
		if (r->slot[i].state != SLOT_FREE)
			slot_free(&r->slot[i]);
	close(r->fd);
	rte_free(r);
}
