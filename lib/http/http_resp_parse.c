/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Response-head parser (client side). Stateless: it parses from the first
 * byte every time and reports AGAIN until the blank line that ends the
 * head is there, so the caller keeps an incomplete head (bounded by
 * max_head) and calls again with more. Heads of a load generator's
 * answers are short and nearly always arrive whole in one segment, where
 * one pass is all it costs.
 */

#include <errno.h>
#include <string.h>

#include "ewyk_http.h"
#include "http_private.h"

/* Per-head facts gathered from the fields. */
struct resp_fields {
	int cl_seen; /* Content-Length fields seen */
	uint64_t cl; /* their value */
	int te_seen; /* Transfer-Encoding fields seen */
	int te_chunked_last;
	int conn_close;
	int conn_keep_alive;
};

/* Find the end of the line starting at @p off: the offset of its LF,
 * or -1 when there is none before @p len. */
static inline int64_t
line_end(const char *buf, uint32_t off, uint32_t len)
{
	const char *lf = memchr(buf + off, '\n', len - off);

	return lf == NULL ? -1 : (int64_t)(lf - buf);
}

/* Line content [off, lf) without a final CR. */
static inline uint32_t
line_len(const char *buf, uint32_t off, uint32_t lf)
{
	uint32_t n = lf - off;

	if (n > 0 && buf[off + n - 1] == '\r')
		n--;
	return n;
}

static int
parse_status_line(const char *p, uint32_t n, struct ewyk_http_resp *r)
{
	uint32_t i;

	/* "HTTP/1.x SP 3DIGIT SP reason" (the SP before an empty reason may
	 * be missing: RFC 9112 4 asks recipients to accept it). */
	if (n < 12 || memcmp(p, "HTTP/1.", 7) != 0 || p[7] < '0' ||
		p[7] > '9' || p[8] != ' ')
		return -EBADMSG;
	r->version_minor = p[7] == '0' ? 0 : 1;
	for (i = 9; i < 12; i++)
		if (p[i] < '0' || p[i] > '9')
			return -EBADMSG;
	r->status = (uint16_t)((p[9] - '0') * 100 + (p[10] - '0') * 10 +
		(p[11] - '0'));
	if (r->status < 100 || r->status > 599)
		return -EBADMSG;
	if (n == 12) {
		r->reason.p = p + 12;
		r->reason.len = 0;
		return 0;
	}
	if (p[12] != ' ')
		return -EBADMSG;
	for (i = 13; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return -EBADMSG;
	}
	r->reason.p = p + 13;
	r->reason.len = n - 13;
	return 0;
}

/* Content-Length: 1*DIGIT; repeated fields must agree. */
static int
field_content_length(const char *v, uint32_t n, struct resp_fields *f)
{
	uint64_t x;

	if (ewyk_http_parse_u64(v, n, UINT64_MAX, &x) != 0)
		return -EBADMSG;
	if (f->cl_seen && f->cl != x)
		return -EBADMSG;
	f->cl_seen++;
	f->cl = x;
	return 0;
}

/* The last element of a comma-separated list, OWS trimmed. */
static void
list_last(const char *v, uint32_t n, const char **e, uint32_t *en)
{
	uint32_t s = n;

	while (s > 0 && v[s - 1] != ',')
		s--;
	while (s < n && (v[s] == ' ' || v[s] == '\t'))
		s++;
	*e = v + s;
	*en = n - s;
}

/* Does the comma-separated list @p v hold the (lower-case) token? */
static int
list_has(const char *v, uint32_t n, const char *tok, uint32_t toklen)
{
	uint32_t i = 0;

	while (i < n) {
		uint32_t s, e;

		while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		s = i;
		while (i < n && v[i] != ',')
			i++;
		e = i;
		while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
			e--;
		if (http_view_ieq(v + s, e - s, tok, toklen))
			return 1;
	}
	return 0;
}

static int
parse_field(const char *p, uint32_t n, struct ewyk_http_resp *r,
	struct resp_fields *f)
{
	uint32_t i = 0, vs, ve;

	while (i < n && http_tchar[(unsigned char)p[i]])
		i++;
	/* An empty name, whitespace before the colon (RFC 9112 5.1) or no
	 * colon at all. */
	if (i == 0 || i == n || p[i] != ':')
		return -EBADMSG;
	vs = i + 1;
	while (vs < n && (p[vs] == ' ' || p[vs] == '\t'))
		vs++;
	ve = n;
	while (ve > vs && (p[ve - 1] == ' ' || p[ve - 1] == '\t'))
		ve--;
	for (uint32_t k = vs; k < ve; k++) {
		unsigned char c = (unsigned char)p[k];

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return -EBADMSG;
	}
	if (r->headers != NULL && r->nheaders < r->max_headers) {
		struct ewyk_http_header *h = &r->headers[r->nheaders++];

		h->name.p = p;
		h->name.len = i;
		h->value.p = p + vs;
		h->value.len = ve - vs;
	}
	if (http_view_ieq(p, i, "content-length", 14))
		return field_content_length(p + vs, ve - vs, f);
	if (http_view_ieq(p, i, "transfer-encoding", 17)) {
		const char *e;
		uint32_t en;

		if (ve == vs)
			return -EBADMSG;
		list_last(p + vs, ve - vs, &e, &en);
		f->te_seen++;
		/* The last field's last coding is what counts. */
		f->te_chunked_last = http_view_ieq(e, en, "chunked", 7);
		return 0;
	}
	if (http_view_ieq(p, i, "connection", 10)) {
		if (list_has(p + vs, ve - vs, "close", 5))
			f->conn_close = 1;
		if (list_has(p + vs, ve - vs, "keep-alive", 10))
			f->conn_keep_alive = 1;
	}
	return 0;
}

/* RFC 9112 6.3 for a response. */
static int
resp_framing(struct ewyk_http_resp *r, const struct resp_fields *f,
	int head_req)
{
	r->keep_alive = r->version_minor >= 1 ?
		!f->conn_close :
		(f->conn_keep_alive && !f->conn_close);
	if (head_req || r->status < 200 || r->status == 204 ||
		r->status == 304) {
		r->framing = EWYK_HTTP_BODY_NONE;
		return 0;
	}
	if (f->te_seen) {
		if (f->te_chunked_last) {
			r->framing = EWYK_HTTP_BODY_CHUNKED;
			return 0;
		}
		/* Until close: the connection cannot carry another one. */
		r->framing = EWYK_HTTP_BODY_NONE;
		r->until_close = 1;
		r->keep_alive = 0;
		return 0;
	}
	if (f->cl_seen) {
		r->framing = EWYK_HTTP_BODY_LENGTH;
		r->content_length = f->cl;
		return 0;
	}
	r->framing = EWYK_HTTP_BODY_NONE;
	r->until_close = 1;
	r->keep_alive = 0;
	return 0;
}

int
ewyk_http_resp_parse(const char *buf, uint32_t len, uint32_t max_head,
	int head_req, struct ewyk_http_resp *r, uint32_t *head_len)
{
	struct resp_fields f;
	uint32_t off = 0, lim;
	int64_t lf;
	int rc;

	if (buf == NULL || r == NULL || head_len == NULL)
		return -EINVAL;
	if (max_head == 0)
		max_head = EWYK_HTTP_DEF_MAX_HEADER_BYTES;
	lim = len < max_head ? len : max_head;
	memset(&f, 0, sizeof(f));
	r->nheaders = 0;
	r->status = 0;
	r->framing = EWYK_HTTP_BODY_NONE;
	r->until_close = 0;
	r->keep_alive = 0;
	r->content_length = 0;
	r->reason.p = NULL;
	r->reason.len = 0;

	lf = line_end(buf, 0, lim);
	if (lf < 0)
		return len >= max_head ? -EBADMSG : EWYK_HTTP_AGAIN;
	rc = parse_status_line(buf, line_len(buf, 0, (uint32_t)lf), r);
	if (rc < 0)
		return rc;
	off = (uint32_t)lf + 1;
	for (;;) {
		uint32_t n;

		lf = line_end(buf, off, lim);
		if (lf < 0)
			return len >= max_head ? -EBADMSG : EWYK_HTTP_AGAIN;
		n = line_len(buf, off, (uint32_t)lf);
		if (n == 0)
			break;
		/* obs-fold: a line starting with whitespace. */
		if (buf[off] == ' ' || buf[off] == '\t')
			return -EBADMSG;
		rc = parse_field(buf + off, n, r, &f);
		if (rc < 0)
			return rc;
		off = (uint32_t)lf + 1;
	}
	*head_len = (uint32_t)lf + 1;
	return resp_framing(r, &f, head_req) < 0 ? -EBADMSG : EWYK_HTTP_DONE;
}

int
ewyk_http_resp_body_init(struct ewyk_http_body *b,
	const struct ewyk_http_resp *r, const struct ewyk_http_limits *lim)
{
	struct ewyk_http_request req;

	if (b == NULL || r == NULL)
		return -EINVAL;
	memset(&req, 0, sizeof(req));
	req.framing = r->framing;
	req.content_length = r->content_length;
	return ewyk_http_body_init(b, &req, lim);
}
