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
	uint32_t elen;

	if (v->len == 0)
		return 400;
	while (pos <= v->len) {
		uint64_t x;

		list_next(v->p, v->len, &pos, &e, &elen);
		/* empty, not digits, or beyond 2^62 (no overflow anywhere) */
		if (ewyk_http_parse_u64(e, elen, UINT64_C(1) << 62, &x) != 0)
			return 400;
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

	/*
	 * The usual values, whole, a word at a time: a value holds no CR, so
	 * x | 0x20 is a letter or '-' only for that letter in either case or
	 * '-' itself (as for field names).
	 */
	if (v->len == 10 && HTTP_NAME_IS(v->p, "keep-alive")) {
		p->flags |= HF_KEEP_ALIVE;
		return;
	}
	if (v->len == 5 && HTTP_NAME_IS(v->p, "close")) {
		p->flags |= HF_CLOSE;
		return;
	}
	while (pos <= v->len) {
		list_next(v->p, v->len, &pos, &e, &elen);
		if (HTTP_IEQ(e, elen, "close"))
			p->flags |= HF_CLOSE;
		else if (HTTP_IEQ(e, elen, "keep-alive"))
			p->flags |= HF_KEEP_ALIVE;
	}
}

/*
 * Byte classes of a uri-host [":" port] (RFC 3986 2.1-2.3, 3.2.2), looked
 * up once per byte: AC_REG for unreserved / sub-delims (reg-name bytes but
 * '%'), AC_HEX for HEXDIG, AC_DIGIT for DIGIT.
 */
#define AC_REG 0x01
#define AC_HEX 0x02
#define AC_DIGIT 0x04
#define AC_ALPHA_HEX(c) [(unsigned char)(c)] = AC_REG | AC_HEX
#define AC_ALPHA(c) [(unsigned char)(c)] = AC_REG
#define AC_NUM(c) [(unsigned char)(c)] = AC_REG | AC_HEX | AC_DIGIT
/* clang-format off */
static const uint8_t host_class[256] = {
	AC_NUM('0'), AC_NUM('1'), AC_NUM('2'), AC_NUM('3'), AC_NUM('4'),
	AC_NUM('5'), AC_NUM('6'), AC_NUM('7'), AC_NUM('8'), AC_NUM('9'),
	AC_ALPHA_HEX('a'), AC_ALPHA_HEX('b'), AC_ALPHA_HEX('c'),
	AC_ALPHA_HEX('d'), AC_ALPHA_HEX('e'), AC_ALPHA_HEX('f'),
	AC_ALPHA_HEX('A'), AC_ALPHA_HEX('B'), AC_ALPHA_HEX('C'),
	AC_ALPHA_HEX('D'), AC_ALPHA_HEX('E'), AC_ALPHA_HEX('F'),
	AC_ALPHA('g'), AC_ALPHA('h'), AC_ALPHA('i'), AC_ALPHA('j'),
	AC_ALPHA('k'), AC_ALPHA('l'), AC_ALPHA('m'), AC_ALPHA('n'),
	AC_ALPHA('o'), AC_ALPHA('p'), AC_ALPHA('q'), AC_ALPHA('r'),
	AC_ALPHA('s'), AC_ALPHA('t'), AC_ALPHA('u'), AC_ALPHA('v'),
	AC_ALPHA('w'), AC_ALPHA('x'), AC_ALPHA('y'), AC_ALPHA('z'),
	AC_ALPHA('G'), AC_ALPHA('H'), AC_ALPHA('I'), AC_ALPHA('J'),
	AC_ALPHA('K'), AC_ALPHA('L'), AC_ALPHA('M'), AC_ALPHA('N'),
	AC_ALPHA('O'), AC_ALPHA('P'), AC_ALPHA('Q'), AC_ALPHA('R'),
	AC_ALPHA('S'), AC_ALPHA('T'), AC_ALPHA('U'), AC_ALPHA('V'),
	AC_ALPHA('W'), AC_ALPHA('X'), AC_ALPHA('Y'), AC_ALPHA('Z'),
	AC_ALPHA('-'), AC_ALPHA('.'), AC_ALPHA('_'), AC_ALPHA('~'),
	AC_ALPHA('!'), AC_ALPHA('$'), AC_ALPHA('&'), AC_ALPHA('\''),
	AC_ALPHA('('), AC_ALPHA(')'), AC_ALPHA('*'), AC_ALPHA('+'),
	AC_ALPHA(','), AC_ALPHA(';'), AC_ALPHA('='),
};
/* clang-format on */
#undef AC_ALPHA_HEX
#undef AC_ALPHA
#undef AC_NUM

static inline int
regname_char(unsigned char c)
{
	return (host_class[c] & AC_REG) != 0;
}

static inline int
hexdig(unsigned char c)
{
	return (host_class[c] & AC_HEX) != 0;
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
		/* reg-name runs, pct-encoded triplets between them */
		for (;;) {
			/* eight at a time while all are reg-name bytes */
			while (i + 8 <= n &&
				(host_class[(unsigned char)s[i]] &
					host_class[(unsigned char)s[i + 1]] &
					host_class[(unsigned char)s[i + 2]] &
					host_class[(unsigned char)s[i + 3]] &
					host_class[(unsigned char)s[i + 4]] &
					host_class[(unsigned char)s[i + 5]] &
					host_class[(unsigned char)s[i + 6]] &
					host_class[(unsigned char)s[i + 7]] &
					AC_REG))
				i += 8;
			while (i < n && regname_char((unsigned char)s[i]))
				i++;
			if (i == n || s[i] != '%')
				break;
			if (n - i < 3 || !hexdig((unsigned char)s[i + 1]) ||
				!hexdig((unsigned char)s[i + 2]))
				return 0;
			i += 3;
		}
		if (i == 0)
			return 0; /* empty host */
	}
	if (i == n)
		return 1;
	if (s[i] != ':')
		return 0;
	for (i++; i < n; i++)
		if (!(host_class[(unsigned char)s[i]] & AC_DIGIT))
			return 0;
	return 1;
}

uint16_t
http_field_apply(struct ewyk_http_parser *p, struct ewyk_http_request *req,
	const struct ewyk_http_header *h)
{
	const char *n = h->name.p;

	switch (h->name.len) {
	case 4:
		if (HTTP_NAME_IS(n, "host"))
			return http_field_host(p, req, h, 0);
		break;
	case 6:
		if (!HTTP_NAME_IS(n, "expect") || req->version_minor == 0)
			break; /* 1.0: the expectation is ignored */
		if (!HTTP_IEQ(h->value.p, h->value.len, "100-continue"))
			return 417;
		p->flags |= HF_EXPECT;
		break;
	case 10:
		if (HTTP_NAME_IS(n, "connection"))
			connection(p, &h->value);
		break;
	case 14:
		if (HTTP_NAME_IS(n, "content-length"))
			return content_length(p, &h->value);
		break;
	case 17:
		if (HTTP_NAME_IS(n, "transfer-encoding"))
			return transfer_encoding(p, &h->value);
		break;
	default:
		break;
	}
	return 0;
}
