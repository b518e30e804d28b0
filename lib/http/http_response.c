/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Response heads (RFC 9112 section 4, RFC 9110 sections 6.6.1, 8.6, 10.2.4),
 * the per-shard Date cache, and the chunked encoder (RFC 9112 section 7.1).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "http_private.h"

/*
 * Status codes with a reason phrase: code, reason. Each becomes a ready
 * status line below, so that writing one is a copy, not a format.
 */
#define EWYK_HTTP_STATUS_LIST(X)                  \
	X(100, "Continue")                        \
	X(101, "Switching Protocols")             \
	X(200, "OK")                              \
	X(201, "Created")                         \
	X(202, "Accepted")                        \
	X(204, "No Content")                      \
	X(206, "Partial Content")                 \
	X(301, "Moved Permanently")               \
	X(302, "Found")                           \
	X(304, "Not Modified")                    \
	X(400, "Bad Request")                     \
	X(403, "Forbidden")                       \
	X(404, "Not Found")                       \
	X(405, "Method Not Allowed")              \
	X(408, "Request Timeout")                 \
	X(411, "Length Required")                 \
	X(413, "Content Too Large")               \
	X(414, "URI Too Long")                    \
	X(417, "Expectation Failed")              \
	X(431, "Request Header Fields Too Large") \
	X(500, "Internal Server Error")           \
	X(501, "Not Implemented")                 \
	X(503, "Service Unavailable")             \
	X(504, "Gateway Timeout")                 \
	X(505, "HTTP Version Not Supported")

struct status_line {
	const char *line; /* "HTTP/1.1 NNN Reason\r\n" */
	uint8_t len;      /* its length */
};

#define STATUS_LINE(code, reason)                                            \
	case code: {                                                         \
		static const char l[] = "HTTP/1.1 " #code " " reason "\r\n"; \
		return (struct status_line){ l, sizeof(l) - 1 };             \
	}

/* The ready status line of a known code; line NULL for the others. */
static struct status_line
status_line(uint16_t status)
{
	switch (status) {
		EWYK_HTTP_STATUS_LIST(STATUS_LINE)
	default:
		return (struct status_line){ NULL, 0 };
	}
}

#undef STATUS_LINE

#define REASON(code, reason) \
	case code:           \
		return reason;

const char *
ewyk_http_reason(uint16_t status)
{
	switch (status) {
		EWYK_HTTP_STATUS_LIST(REASON)
	default:
		return "Unknown";
	}
}

#undef REASON

/* IMF-fixdate (RFC 9110 section 5.6.7), written without locale. */
int
ewyk_http_imf_date(int64_t unix_sec, char *buf, size_t size)
{
	static const char wday[7][4] = {
		"Sun",
		"Mon",
		"Tue",
		"Wed",
		"Thu",
		"Fri",
		"Sat",
	};
	static const char mon[12][4] = {
		"Jan",
		"Feb",
		"Mar",
		"Apr",
		"May",
		"Jun",
		"Jul",
		"Aug",
		"Sep",
		"Oct",
		"Nov",
		"Dec",
	};
	time_t t = (time_t)unix_sec;
	struct tm tm;

	if (buf == NULL || size <= EWYK_HTTP_IMF_DATE_LEN)
		return -EINVAL;
	if (gmtime_r(&t, &tm) == NULL || tm.tm_year < -1900 ||
		tm.tm_year > 8099)
		return -ERANGE;
	{
		char tmp[64];
		int n = snprintf(tmp, sizeof(tmp),
			"%s, %02d %s %04d %02d:%02d:%02d GMT", wday[tm.tm_wday],
			tm.tm_mday, mon[tm.tm_mon], tm.tm_year + 1900,
			tm.tm_hour, tm.tm_min, tm.tm_sec);

		if (n != EWYK_HTTP_IMF_DATE_LEN)
			return -ERANGE;
		memcpy(buf, tmp, EWYK_HTTP_IMF_DATE_LEN + 1);
	}
	return 0;
}

int
ewyk_http_date_update(struct ewyk_http_date *d, uint64_t unix_sec)
{
	char v[EWYK_HTTP_IMF_DATE_LEN + 1];

	if (d->line[0] != '\0' && d->sec == unix_sec)
		return 0;
	if (unix_sec > INT64_MAX ||
		ewyk_http_imf_date((int64_t)unix_sec, v, sizeof(v)) != 0)
		return 0;
	memcpy(d->line, "Date: ", 6);
	memcpy(d->line + 6, v, EWYK_HTTP_IMF_DATE_LEN);
	memcpy(d->line + 6 + EWYK_HTTP_IMF_DATE_LEN, "\r\n", 3);
	d->sec = unix_sec;
	return 1;
}

struct wbuf {
	char *p;
	uint32_t cap;
	uint32_t len;
	int err;
};

static void
put(struct wbuf *w, const char *s, size_t n)
{
	if (w->err || n > w->cap - w->len) {
		w->err = 1;
		return;
	}
	memcpy(w->p + w->len, s, n);
	w->len += (uint32_t)n;
}

#define PUTS(w, lit) put(w, lit, sizeof(lit) - 1)

/*
 * Decimal digits of v into the end of tmp[20] (2^64 - 1 has 20 digits),
 * two at a time; returns the index of the first digit.
 */
static int
u64_digits(char tmp[20], uint64_t v)
{
	static const char pairs[] = "00010203040506070809"
				    "10111213141516171819"
				    "20212223242526272829"
				    "30313233343536373839"
				    "40414243444546474849"
				    "50515253545556575859"
				    "60616263646566676869"
				    "70717273747576777879"
				    "80818283848586878889"
				    "90919293949596979899";
	int i = 20;

	while (v >= 100) {
		unsigned int d = (unsigned int)(v % 100) * 2;

		v /= 100;
		tmp[--i] = pairs[d + 1];
		tmp[--i] = pairs[d];
	}
	if (v >= 10) {
		unsigned int d = (unsigned int)v * 2;

		tmp[--i] = pairs[d + 1];
		tmp[--i] = pairs[d];
	} else {
		tmp[--i] = (char)('0' + v);
	}
	return i;
}

static void
put_u64(struct wbuf *w, uint64_t v)
{
	char tmp[20];
	int i = u64_digits(tmp, v);

	put(w, tmp + i, (size_t)(20 - i));
}

/*
 * Length of a field value to copy, or -1 when it holds a CTL but HTAB or
 * a DEL (RFC 9110 5.5): the check and the strlen in one pass.
 */
static ssize_t
value_len(const char *s)
{
	const char *p;

	for (p = s; *p != '\0'; p++) {
		unsigned char c = (unsigned char)*p;

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return -1;
	}
	return p - s;
}

/*
 * Extra field lines: each is token ":" OWS field-value CRLF, with no bare
 * CR or LF and no CTL but HTAB in the value.
 */
static int
extra_ok(const char *s)
{
	while (*s != '\0') {
		const char *n = s;

		while (http_tchar[(unsigned char)*s])
			s++;
		if (s == n || *s != ':')
			return 0;
		s++;
		for (; *s != '\r'; s++) {
			unsigned char c = (unsigned char)*s;

			if ((c < 0x20 && c != '\t') || c == 0x7f)
				return 0; /* includes NUL and a bare LF */
		}
		if (s[1] != '\n')
			return 0;
		s += 2;
	}
	return 1;
}

int
ewyk_http_response_head(char *buf, uint32_t cap,
	const struct ewyk_http_response *r, const struct ewyk_http_date *d)
{
	struct wbuf w = { .p = buf, .cap = cap, .len = 0, .err = 0 };
	ssize_t server_len = 0, ctype_len = 0;
	struct status_line sl;
	int bodiless;

	if (buf == NULL || r == NULL || r->status < 100 || r->status > 999 ||
		r->framing > EWYK_HTTP_BODY_CLOSE ||
		r->connection > EWYK_HTTP_CONN_KEEP_ALIVE)
		return -EINVAL;
	/* no header injection through the caller's strings */
	if (r->server != NULL && (server_len = value_len(r->server)) < 0)
		return -EINVAL;
	if (r->content_type != NULL &&
		(ctype_len = value_len(r->content_type)) < 0)
		return -EINVAL;
	if (r->extra != NULL && !extra_ok(r->extra))
		return -EINVAL;
	sl = status_line(r->status);
	if (sl.line != NULL) {
		put(&w, sl.line, sl.len);
	} else {
		char code[20];

		/* 100..999: three digits */
		put(&w, "HTTP/1.1 ", 9);
		put(&w, code + u64_digits(code, r->status), 3);
		PUTS(&w, " Unknown\r\n");
	}
	if (r->status < 200) {
		PUTS(&w, "\r\n");
		return w.err ? -ENOSPC : (int)w.len;
	}
	if (r->server != NULL) {
		PUTS(&w, "Server: ");
		put(&w, r->server, (size_t)server_len);
		PUTS(&w, "\r\n");
	} else {
		PUTS(&w, "Server: ewyk\r\n");
	}
	if (d != NULL && d->line[0] != '\0')
		put(&w, d->line, EWYK_HTTP_DATE_LEN);
	/* 204 and 304 carry no framing fields (RFC 9110 8.6, 15.4.5) */
	bodiless = r->status == 204 || r->status == 304;
	if (!bodiless && r->framing == EWYK_HTTP_BODY_LENGTH) {
		PUTS(&w, "Content-Length: ");
		put_u64(&w, r->content_length);
		PUTS(&w, "\r\n");
	} else if (!bodiless && r->framing == EWYK_HTTP_BODY_CHUNKED) {
		PUTS(&w, "Transfer-Encoding: chunked\r\n");
	} else if (!bodiless && r->framing == EWYK_HTTP_BODY_NONE) {
		PUTS(&w, "Content-Length: 0\r\n");
	}
	if (r->content_type != NULL) {
		PUTS(&w, "Content-Type: ");
		put(&w, r->content_type, (size_t)ctype_len);
		PUTS(&w, "\r\n");
	}
	if (r->connection == EWYK_HTTP_CONN_CLOSE)
		PUTS(&w, "Connection: close\r\n");
	else if (r->connection == EWYK_HTTP_CONN_KEEP_ALIVE)
		PUTS(&w, "Connection: keep-alive\r\n");
	if (r->extra != NULL)
		put(&w, r->extra, strlen(r->extra));
	PUTS(&w, "\r\n");
	return w.err ? -ENOSPC : (int)w.len;
}

static struct rte_mbuf *
last_seg(struct rte_mbuf *m)
{
	while (m->next != NULL)
		m = m->next;
	return m;
}

int
ewyk_http_response_head_mbuf(struct rte_mbuf *m,
	const struct ewyk_http_response *r, const struct ewyk_http_date *d)
{
	struct rte_mbuf *l;
	int n;

	if (m == NULL)
		return -EINVAL;
	l = last_seg(m);
	n = ewyk_http_response_head(rte_pktmbuf_mtod_offset(l, char *,
					    l->data_len),
		rte_pktmbuf_tailroom(l), r, d);
	if (n < 0)
		return n;
	l->data_len = (uint16_t)(l->data_len + n);
	m->pkt_len += (uint32_t)n;
	return 0;
}

int
ewyk_http_chunk_size_line(char *buf, uint32_t cap, uint64_t len)
{
	char tmp[20];
	int i = 16;

	tmp[16] = '\r';
	tmp[17] = '\n';
	do {
		tmp[--i] = "0123456789abcdef"[len & 15];
		len >>= 4;
	} while (len != 0);
	if (buf == NULL || (uint32_t)(18 - i) > cap)
		return -ENOSPC;
	memcpy(buf, tmp + i, (size_t)(18 - i));
	return 18 - i;
}

int
ewyk_http_chunk_wrap_mbuf(struct rte_mbuf *m)
{
	char line[20];
	struct rte_mbuf *l;
	char *p;
	int n;

	if (m == NULL || m->pkt_len == 0)
		return -EINVAL;
	n = ewyk_http_chunk_size_line(line, sizeof(line), m->pkt_len);
	l = last_seg(m);
	if (n < 0 || rte_pktmbuf_headroom(m) < (uint16_t)n ||
		rte_pktmbuf_tailroom(l) < 2)
		return -ENOSPC;
	p = rte_pktmbuf_mtod_offset(l, char *, l->data_len);
	p[0] = '\r';
	p[1] = '\n';
	l->data_len = (uint16_t)(l->data_len + 2);
	m->pkt_len += 2;
	p = rte_pktmbuf_prepend(m, (uint16_t)n);
	memcpy(p, line, (size_t)n);
	return 0;
}

int
ewyk_http_chunk_last_mbuf(struct rte_mbuf *m)
{
	struct rte_mbuf *l;
	char *p;

	if (m == NULL)
		return -EINVAL;
	l = last_seg(m);
	if (rte_pktmbuf_tailroom(l) < 5)
		return -ENOSPC;
	p = rte_pktmbuf_mtod_offset(l, char *, l->data_len);
	memcpy(p, "0\r\n\r\n", 5);
	l->data_len = (uint16_t)(l->data_len + 5);
	m->pkt_len += 5;
	return 0;
}
