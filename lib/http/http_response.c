/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Response heads (RFC 9112 section 4, RFC 9110 sections 6.6.1, 8.6, 10.2.4),
 * the per-shard Date cache, and the chunked encoder (RFC 9112 section 7.1).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "http_private.h"

const char *
ewyk_http_reason(uint16_t status)
{
	switch (status) {
	case 100:
		return "Continue";
	case 101:
		return "Switching Protocols";
	case 200:
		return "OK";
	case 201:
		return "Created";
	case 202:
		return "Accepted";
	case 204:
		return "No Content";
	case 206:
		return "Partial Content";
	case 301:
		return "Moved Permanently";
	case 302:
		return "Found";
	case 304:
		return "Not Modified";
	case 400:
		return "Bad Request";
	case 403:
		return "Forbidden";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 408:
		return "Request Timeout";
	case 411:
		return "Length Required";
	case 413:
		return "Content Too Large";
	case 414:
		return "URI Too Long";
	case 417:
		return "Expectation Failed";
	case 431:
		return "Request Header Fields Too Large";
	case 500:
		return "Internal Server Error";
	case 501:
		return "Not Implemented";
	case 503:
		return "Service Unavailable";
	case 504:
		return "Gateway Timeout";
	case 505:
		return "HTTP Version Not Supported";
	default:
		return "Unknown";
	}
}

/* IMF-fixdate (RFC 9110 section 5.6.7), written without locale. */
int
ewyk_http_date_update(struct ewyk_http_date *d, uint64_t unix_sec)
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

	if (d->line[0] != '\0' && d->sec == unix_sec)
		return 0;
	if (gmtime_r(&t, &tm) == NULL || tm.tm_year > 8099)
		return 0;
	{
		char tmp[64];
		int n = snprintf(tmp, sizeof(tmp),
			"Date: %s, %02d %s %04d %02d:%02d:%02d GMT\r\n",
			wday[tm.tm_wday], tm.tm_mday, mon[tm.tm_mon],
			tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);

		if (n != EWYK_HTTP_DATE_LEN)
			return 0;
		memcpy(d->line, tmp, EWYK_HTTP_DATE_LEN + 1);
	}
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

static void
put_str(struct wbuf *w, const char *s)
{
	put(w, s, strlen(s));
}

static void
put_u64(struct wbuf *w, uint64_t v)
{
	char tmp[24];
	int i = (int)sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	put(w, tmp + i, sizeof(tmp) - (size_t)i);
}

/* A field value to copy: no CTL but HTAB, no DEL (RFC 9110 5.5). */
static int
value_ok(const char *s)
{
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return 0;
	}
	return 1;
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
	char sl[16];
	int bodiless;

	if (buf == NULL || r == NULL || r->status < 100 || r->status > 999 ||
		r->framing > EWYK_HTTP_BODY_CLOSE ||
		r->connection > EWYK_HTTP_CONN_KEEP_ALIVE)
		return -EINVAL;
	/* no header injection through the caller's strings */
	if ((r->server != NULL && !value_ok(r->server)) ||
		(r->content_type != NULL && !value_ok(r->content_type)) ||
		(r->extra != NULL && !extra_ok(r->extra)))
		return -EINVAL;
	snprintf(sl, sizeof(sl), "HTTP/1.1 %03u ", r->status);
	put(&w, sl, 13);
	put_str(&w, ewyk_http_reason(r->status));
	PUTS(&w, "\r\n");
	if (r->status < 200) {
		PUTS(&w, "\r\n");
		return w.err ? -ENOSPC : (int)w.len;
	}
	PUTS(&w, "Server: ");
	put_str(&w, r->server != NULL ? r->server : "ewyk");
	PUTS(&w, "\r\n");
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
		put_str(&w, r->content_type);
		PUTS(&w, "\r\n");
	}
	if (r->connection == EWYK_HTTP_CONN_CLOSE)
		PUTS(&w, "Connection: close\r\n");
	else if (r->connection == EWYK_HTTP_CONN_KEEP_ALIVE)
		PUTS(&w, "Connection: keep-alive\r\n");
	if (r->extra != NULL)
		put_str(&w, r->extra);
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
