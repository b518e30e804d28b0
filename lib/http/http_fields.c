/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Field semantics that decide framing and connection handling (RFC 9112
 * sections 6 and 9, RFC 9110 sections 7.2, 7.6.1, 8.6 and 10.1.1). Each
 * rule's status is the one the request is answered with; every ambiguity
 * of RFC 9112 section 6.3 / 11.2 is rejected here (see docs/guides/http.md).
 */

#include <string.h>

#include "http_private.h"

static int
is_ows(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Next element of a comma-separated list (RFC 9110 section 5.6.1) from
 * v[*pos]: trimmed of OWS; may be empty.
 */
static void
list_next(const char *v, uint32_t n, uint32_t *pos, const char **e,
	uint32_t *elen)
{
	uint32_t i = *pos, s, t;

	while (i < n && is_ows(v[i]))
		i++;
	s = i;
	while (i < n && v[i] != ',')
		i++;
	t = i;
	while (t > s && is_ows(v[t - 1]))
		t--;
	*e = v + s;
	*elen = t - s;
	*pos = i < n ? i + 1 : n + 1;
}

/*
 * Content-Length: 1*DIGIT, or a list of identical values (RFC 9112
 * section 6.3 item 5, RFC 9110 section 8.6); equal to any earlier
 * Content-Length line. Anything else is 400.
 */
static uint16_t
content_length(struct ewyk_http_parser *p, const struct ewyk_http_view *v)
{
	uint32_t pos = 0;
	const char *e;
	uint32_t elen, i;

	if (v->len == 0)
		return 400;
	while (pos <= v->len) {
		uint64_t x = 0;

		list_next(v->p, v->len, &pos, &e, &elen);
		if (elen == 0)
			return 400;
		for (i = 0; i < elen; i++) {
			unsigned int d = (unsigned char)e[i] - '0';

			if (d > 9)
				return 400;
			if (x > (UINT64_MAX - d) / 10 ||
				x * 10 + d > (UINT64_C(1) << 62))
				return 400; /* overflow */
			x = x * 10 + d;
		}
		if ((p->flags & HF_CL) && x != p->cl)
			return 400; /* conflicting */
		p->cl = x;
		p->flags |= HF_CL;
	}
	return 0;
}

/* Transfer-Encoding: codings in order; empty list elements are skipped. */
static uint16_t
transfer_encoding(struct ewyk_http_parser *p, const struct ewyk_http_view *v)
{
	uint32_t pos = 0, elen, i;
	const char *e;

	p->flags |= HF_TE;
	while (pos <= v->len) {
		list_next(v->p, v->len, &pos, &e, &elen);
		if (elen == 0)
			continue;
		/* transfer-coding = token *( OWS ";" OWS transfer-parameter ) */
		for (i = 0; i < elen && e[i] != ';' && !is_ows(e[i]); i++)
			if (!http_tchar[(unsigned char)e[i]])
				return 400;
		if (i == 0)
			return 400;
		if (p->te_count < UINT8_MAX)
			p->te_count++;
		if (HTTP_IEQ(e, elen, "chunked")) {
			p->te_last_chunked = 1;
			if (p->te_chunked < UINT8_MAX)
				p->te_chunked++;
		} else {
			p->te_last_chunked = 0;
			p->te_other = 1;
		}
	}
	return 0;
}

static void
connection(struct ewyk_http_parser *p, const struct ewyk_http_view *v)
{
	uint32_t pos = 0, elen;
	const char *e;

	while (pos <= v->len) {
		list_next(v->p, v->len, &pos, &e, &elen);
		if (HTTP_IEQ(e, elen, "close"))
			p->flags |= HF_CLOSE;
		else if (HTTP_IEQ(e, elen, "keep-alive"))
			p->flags |= HF_KEEP_ALIVE;
	}
}

/* unreserved / sub-delims (RFC 3986 2.2, 2.3): reg-name bytes but '%' */
static inline int
regname_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		(c >= '0' && c <= '9') ||
		(c != 0 && strchr("-._~!$&'()*+,;=", c) != NULL);
}

static inline int
hexdig(unsigned char c)
{
	return (c >= '0' && c <= '9') ||
		((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

int
http_authority_valid(const char *s, uint32_t n, int allow_empty)
{
	uint32_t i = 0;

	if (n == 0)
		return allow_empty;
	if (s[0] == '[') {
		/* IP-literal: IPv6address / IPvFuture, checked for bytes */
		for (i = 1; i < n && s[i] != ']'; i++) {
			unsigned char c = (unsigned char)s[i];

			if (!regname_char(c) && c != ':')
				return 0;
		}
		if (i == n || i == 1)
			return 0;
		i++;
	} else {
		for (; i < n && s[i] != ':'; i++) {
			unsigned char c = (unsigned char)s[i];

			if (c == '%') {
				if (n - i < 3 ||
					!hexdig((unsigned char)s[i + 1]) ||
					!hexdig((unsigned char)s[i + 2]))
					return 0;
				i += 2;
			} else if (!regname_char(c)) {
				return 0;
			}
		}
		if (i == 0)
			return 0; /* empty host */
	}
	if (i == n)
		return 1;
	if (s[i] != ':')
		return 0;
	for (i++; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/*
 * Field-name comparison with a lower-case literal, a word at a time: for
 * a token character x, (x | 0x20) equals a lower-case letter or '-' only
 * when x is that letter in either case or '-' itself.
 */
static inline int
name_is(const char *n, const char *lit, uint32_t len)
{
	uint64_t a, b;
	uint32_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&a, n + i, 8);
		memcpy(&b, lit + i, 8);
		if ((a | UINT64_C(0x2020202020202020)) != b)
			return 0;
	}
	for (; i < len; i++)
		if (((unsigned char)n[i] | 0x20) != (unsigned char)lit[i])
			return 0;
	return 1;
}

#define NAME_IS(n, lit) name_is(n, lit, sizeof(lit) - 1)

uint16_t
http_field_apply(struct ewyk_http_parser *p, struct ewyk_http_request *req,
	const struct ewyk_http_header *h)
{
	const char *n = h->name.p;

	switch (h->name.len) {
	case 4:
		if (!NAME_IS(n, "host"))
			break;
		if (p->nhost++ != 0)
			return 400; /* more than one Host */
		if (!http_authority_valid(h->value.p, h->value.len, 1))
			return 400; /* RFC 9112 3.2 */
		/* absolute-form: the target's authority is the host (3.2.2) */
		if (req->target.p[0] == '/' || req->target.len == 1)
			req->host = h->value;
		break;
	case 6:
		if (!NAME_IS(n, "expect") || req->version_minor == 0)
			break; /* 1.0: the expectation is ignored */
		if (!HTTP_IEQ(h->value.p, h->value.len, "100-continue"))
			return 417;
		p->flags |= HF_EXPECT;
		break;
	case 10:
		if (NAME_IS(n, "connection"))
			connection(p, &h->value);
		break;
	case 14:
		if (NAME_IS(n, "content-length"))
			return content_length(p, &h->value);
		break;
	case 17:
		if (NAME_IS(n, "transfer-encoding"))
			return transfer_encoding(p, &h->value);
		break;
	default:
		break;
	}
	return 0;
}

uint16_t
http_fields_finish(struct ewyk_http_parser *p, struct ewyk_http_request *req)
{
	if (req->version_minor == 1 && p->nhost == 0)
		return 400;
	req->content_length = 0;
	if (p->flags & HF_TE) {
		/* RFC 9112 6.1: TE in 1.0 is faulty framing; 6.3: CL + TE */
		if (req->version_minor == 0 || (p->flags & HF_CL))
			return 400;
		/* chunked must be final, and applied once */
		if (p->te_count == 0 || !p->te_last_chunked ||
			p->te_chunked != 1)
			return 400;
		if (p->te_other)
			return 501;
		req->framing = EWYK_HTTP_BODY_CHUNKED;
	} else if ((p->flags & HF_CL) && p->cl > 0) {
		if (p->cl > p->lim.max_body)
			return 413;
		req->framing = EWYK_HTTP_BODY_LENGTH;
		req->content_length = p->cl;
	} else {
		req->framing = EWYK_HTTP_BODY_NONE;
	}
	if (req->version_minor == 1)
		req->keep_alive = !(p->flags & HF_CLOSE);
	else
		req->keep_alive = (p->flags & HF_KEEP_ALIVE) &&
			!(p->flags & HF_CLOSE);
	req->expect_continue = (p->flags & HF_EXPECT) != 0;
	req->head = req->method_id == EWYK_HTTP_HEAD;
	return 0;
}
