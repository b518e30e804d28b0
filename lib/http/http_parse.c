/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Request-head parser (RFC 9112 sections 2-5): the entry points, the
 * parser's set-up, the request-target rules, and the fast path that parses
 * a whole, well-formed head in one piece with no per-byte state dispatch.
 * Anything else goes to the state machine (http_parse_machine.c); the
 * fast path's byte scanners are in http_parse_scan.h.
 */

#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>

#include "http_private.h"
#include "http_parse_scan.h"

static const char *const method_names[EWYK_HTTP_METHOD_MAX] = {
	[EWYK_HTTP_GET] = "GET",
	[EWYK_HTTP_HEAD] = "HEAD",
	[EWYK_HTTP_POST] = "POST",
	[EWYK_HTTP_PUT] = "PUT",
	[EWYK_HTTP_DELETE] = "DELETE",
	[EWYK_HTTP_CONNECT] = "CONNECT",
	[EWYK_HTTP_OPTIONS] = "OPTIONS",
	[EWYK_HTTP_TRACE] = "TRACE",
	[EWYK_HTTP_PATCH] = "PATCH",
};

const char *
ewyk_http_method_name(unsigned int m)
{
	return m < EWYK_HTTP_METHOD_MAX ? method_names[m] : NULL;
}

/* Methods are case-sensitive (RFC 9110 section 9.1). */
int
http_method_lookup(const char *p, uint32_t len)
{
#define IS(m, lit) (memcmp(p, lit, sizeof(lit) - 1) == 0 ? (m) : -1)
	switch (len) {
	case 3:
		return p[0] == 'G' ? IS(EWYK_HTTP_GET, "GET") :
				     IS(EWYK_HTTP_PUT, "PUT");
	case 4:
		return p[0] == 'H' ? IS(EWYK_HTTP_HEAD, "HEAD") :
				     IS(EWYK_HTTP_POST, "POST");
	case 5:
		return p[0] == 'P' ? IS(EWYK_HTTP_PATCH, "PATCH") :
				     IS(EWYK_HTTP_TRACE, "TRACE");
	case 6:
		return IS(EWYK_HTTP_DELETE, "DELETE");
	case 7:
		return p[0] == 'O' ? IS(EWYK_HTTP_OPTIONS, "OPTIONS") :
				     IS(EWYK_HTTP_CONNECT, "CONNECT");
	default:
		return -1;
	}
#undef IS
}

static void
limits_fill(struct ewyk_http_limits *out, const struct ewyk_http_limits *in)
{
	out->max_line = in != NULL && in->max_line != 0 ?
		in->max_line :
		EWYK_HTTP_DEF_MAX_LINE;
	out->max_header_bytes = in != NULL && in->max_header_bytes != 0 ?
		in->max_header_bytes :
		EWYK_HTTP_DEF_MAX_HEADER_BYTES;
	out->max_body = in != NULL && in->max_body != 0 ?
		in->max_body :
		EWYK_HTTP_DEF_MAX_BODY;
}

uint32_t
ewyk_http_scratch_size(const struct ewyk_http_limits *lim)
{
	struct ewyk_http_limits l;

	limits_fill(&l, lim);
	return l.max_line + l.max_header_bytes;
}

int
ewyk_http_parser_init(struct ewyk_http_parser *p,
	const struct ewyk_http_limits *lim, char *scratch,
	uint32_t scratch_size)
{
	if (p == NULL || scratch == NULL)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	limits_fill(&p->lim, lim);
	if ((uint64_t)p->lim.max_line + p->lim.max_header_bytes > UINT32_MAX ||
		scratch_size < p->lim.max_line + p->lim.max_header_bytes)
		return -EINVAL;
	p->scratch = scratch;
	p->scratch_size = scratch_size;
	p->isa = (uint8_t)ewyk_http_isa_best();
	ewyk_http_parser_reset(p);
	return 0;
}

/* has_dot_segment() of a long path: memchr() from '.' to '.' */
static int
has_dot_segment_long(const char *t, uint32_t n)
{
	const char *d = memchr(t, '.', n);

	while (d != NULL) {
		uint32_t k = (uint32_t)(d - t);

		if (k > 0 && t[k - 1] == '/') {
			if (k + 1 == n || t[k + 1] == '/')
				return 1;
			if (t[k + 1] == '.' && (k + 2 == n || t[k + 2] == '/'))
				return 1;
		}
		if (k + 1 >= n)
			break;
		d = memchr(d + 1, '.', n - k - 1);
	}
	return 0;
}

/*
 * A "/." or "/.." segment (RFC 3986 section 3.3) in path[0..n): such a
 * path names another resource once normalised, and the router compares
 * bytes, so the request is refused (400) rather than routed as received.
 */
static __rte_always_inline int
has_dot_segment(const char *t, uint32_t n)
{
	uint32_t k;

	if (n >= 32)
		return has_dot_segment_long(t, n);
	/* short paths: a byte loop beats a call to memchr */
	for (k = 1; k < n; k++) {
		if (t[k] != '.' || t[k - 1] != '/')
			continue;
		if (k + 1 == n || t[k + 1] == '/')
			return 1;
		if (t[k + 1] == '.' && (k + 2 == n || t[k + 2] == '/'))
			return 1;
	}
	return 0;
}

#ifdef __SSSE3__
/*
 * The path of an origin-form target t[0, n) in 16-byte steps, avail bytes
 * readable from t (avail >= 16): its length (up to the first '?') in
 * *plen; non-zero when a '.' follows a '/' in it (has_dot_segment() then
 * decides, as such paths are rare).
 */
static __rte_always_inline uint32_t
path_vec(const char *t, uint32_t n, size_t avail, uint32_t *plen)
{
	uint32_t j, carry = 0, dots = 0;

	for (j = 0; j < n && avail - j >= 16; j += 16) {
		const __m128i x = http_load16(t + j);
		const uint32_t in = n - j < 16 ? (UINT32_C(1) << (n - j)) - 1 :
						 0xffff;
		const uint32_t q = http_eq16(x, '?') & in;
		const uint32_t sl = http_eq16(x, '/');
		/* a '.' after a '/' (the previous step's last byte too) */
		const uint32_t d = http_eq16(x, '.') & (sl << 1 | carry);

		if (q != 0) {
			const uint32_t k = (uint32_t)__builtin_ctz(q);

			*plen = j + k;
			return dots | (d & ((UINT32_C(1) << k) - 1));
		}
		dots |= d & in;
		carry = sl >> 15;
	}
	if (j > n)
		j = n;
	/* the last bytes of a target at the end of the readable bytes */
	for (; j < n && t[j] != '?'; j++)
		dots |= t[j] == '.' && t[j - 1] == '/';
	*plen = j;
	return dots;
}
#endif

/*
 * The target's form, host and path. avail: bytes readable from the
 * target (0: unknown, the byte loops).
 */
static __rte_always_inline uint16_t
target_finish(struct ewyk_http_request *req, size_t avail)
{
	const char *t = req->target.p;
	uint32_t n = req->target.len;
	uint32_t i;

	if (t[0] == '/') {
		/* origin-form */
	} else if (n == 1 && t[0] == '*') {
		if (req->method_id != EWYK_HTTP_OPTIONS)
			return 400;
		req->path = req->target;
		return 0;
	} else {
		/*
		 * absolute-form: http:// or https:// authority [path]; the
		 * authority is the request's host (RFC 9112 3.2.2), so it
		 * must be a valid, non-empty uri-host [":" port] with no
		 * userinfo (RFC 9110 4.2.1, 4.2.4).
		 */
		uint32_t s;

		if (n > 7 && HTTP_IEQ(t, 7, "http://"))
			s = 7;
		else if (n > 8 && HTTP_IEQ(t, 8, "https://"))
			s = 8;
		else
			return 400;
		for (i = s; i < n && t[i] != '/' && t[i] != '?'; i++)
			;
		if (!http_authority_valid(t + s, i - s, 0))
			return 400;
		req->host.p = t + s;
		req->host.len = i - s;
		if (i == n || t[i] == '?') {
			req->path.p = "/";
			req->path.len = 1;
			return 0;
		}
		t += i;
		n -= i;
	}
	req->path.p = t;
#ifdef __SSSE3__
	if (avail >= 16 && n >= 16 && t == req->target.p) {
		if (path_vec(t, n, avail, &req->path.len) != 0 &&
			has_dot_segment(t, req->path.len))
			return 400;
		return 0;
	}
#else
	RTE_SET_USED(avail);
#endif
	if (n < 32) {
		for (i = 0; i < n && t[i] != '?'; i++)
			;
		req->path.len = i;
	} else {
		const char *q = memchr(t, '?', n);

		req->path.len = q != NULL ? (uint32_t)(q - t) : n;
	}
	if (has_dot_segment(req->path.p, req->path.len))
		return 400;
	return 0;
}

uint16_t
http_target_finish(struct ewyk_http_request *req)
{
	return target_finish(req, 0);
}

/*
 * Fast path: a whole, well-formed head in one piece, at the start of a
 * request. Straight-line code with no per-byte state dispatch; anything
 * unusual (end of input, an error, a limit, a leading empty line, a version
 * other than 1.0/1.1) returns -1 and the state machine below parses the
 * piece from its start instead, so errors and their statuses come from one
 * place only. Where the CPU has SSSE3 and the isa is not scalar, field
 * names and values are found in 16-byte steps, and a "Host: " line is known
 * without a scan of its name. The unit tests and the fuzzer compare this
 * path (whole input, each isa) with the state machine (split input) on
 * every request.
 */
static __rte_always_inline int
parse_fast(struct ewyk_http_parser *p, struct ewyk_http_request *req,
	const char *buf, uint32_t len, uint32_t *consumed)
{
	uint32_t i = 0, s, e, c, cr, lend, hend;
	struct ewyk_http_header *h;
	int m, minor, is_host;
	/* the 16-byte steps; the scalar isa never runs a vector instruction */
	const int vec = p->isa != EWYK_HTTP_ISA_SCALAR;

	if (len >= 4 && memcmp(buf, "GET ", 4) == 0) {
		i = 3;
		m = EWYK_HTTP_GET;
		goto method_done;
	}
	while (i < len && http_tchar[(unsigned char)buf[i]])
		i++;
	if (i == 0 || i >= len || buf[i] != ' ')
		return -1;
	m = http_method_lookup(buf, i);
method_done:
	if (m < 0 || m == EWYK_HTTP_CONNECT)
		return -1;
	req->method_id = (uint8_t)m;
	req->method.p = buf;
	req->method.len = i;
	s = ++i;
	i = target_end(buf, i, len, p->isa);
	if (i == s || len - i < 11 || buf[i] != ' ')
		return -1;
	req->target.p = buf + s;
	req->target.len = i - s;
	if (target_finish(req, vec ? len - s : 0) != 0)
		return -1;
	i++;
	/* "HTTP/1.1" or "HTTP/1.0", then CRLF */
	minor = version_at(buf + i);
	if (minor < 0 || buf[i + 8] != '\r' || buf[i + 9] != '\n')
		return -1;
	req->version_minor = (uint8_t)minor;
	i += 8; /* at the request line's CR */
	lend = i + 2;
	if (lend > p->lim.max_line)
		return -1;
	hend = len - lend > p->lim.max_header_bytes ?
		lend + p->lim.max_header_bytes :
		len;
	/* i is at the CR of a CRLF that ends a line */
	for (;;) {
		/* CRLF CRLF: the end of the head, in one compare */
		if (i + 3 < hend && crlf_crlf_at(buf + i)) {
			i += 4;
			break;
		}
		i += 2;
		if (i >= hend || buf[i] == '\r' ||
			req->nheaders >= req->max_headers)
			goto slow;
		h = &req->headers[req->nheaders];
		s = i;
		is_host = starts_host_sp(buf + i, len - i);
		h->name.p = buf + s;
		if (is_host) {
			/* "Host: " value CR, the value checked on the way */
			e = host_value_end(buf, i + 6, len, hend, p->isa);
			if (e != 0) {
				h->name.len = 4;
				h->value.p = buf + i + 6;
				h->value.len = e - i - 6;
				i = e;
				if (i + 1 >= hend || buf[i + 1] != '\n' ||
					http_field_host(p, req, h, SIZE_MAX) !=
						0)
					goto slow;
				req->nheaders++;
				continue;
			}
		}
		cr = vec && !is_host ?
			field_line(buf, i, len, hend, &c, &s, &e) :
			0;
		if (cr != 0) {
			h->name.len = c - i;
			i = cr;
		} else {
			i = is_host ? i + 4 :
				      field_name_end(buf, i, len, hend, p->isa);
			if (i >= hend)
				goto slow;
			h->name.len = i - s;
			i++;
			/* the usual single SP, before the 16 bytes */
			if (i < hend && buf[i] == ' ')
				i++;
			i = field_value_end(buf, i, len, hend, p->isa, &s, &e);
		}
		if (i + 1 >= hend || buf[i + 1] != '\n')
			goto slow;
		h->value.p = buf + s;
		h->value.len = e - s;
		req->nheaders++;
		if (is_host) {
			if (http_field_host(p, req, h, vec ? len - s : 0) != 0)
				goto slow;
		} else if (field_maybe(h->name.p, h->name.len) &&
			http_field_apply(p, req, h) != 0) {
			goto slow;
		}
	}
	if (http_fields_finish(p, req) != 0)
		goto slow;
	p->state = PS_DONE;
	*consumed = i;
	return EWYK_HTTP_DONE;
slow:
	/* undo what the fields did; the state machine starts over */
	p->nhost = 0;
	p->flags = 0;
	p->cl = 0;
	p->te_count = 0;
	p->te_chunked = 0;
	p->te_last_chunked = 0;
	p->te_other = 0;
	req->nheaders = 0;
	req->host.p = NULL;
	req->host.len = 0;
	return -1;
}

/* One piece of input, the arguments checked: fast path, else the machine. */
static __rte_always_inline int
parse_piece(struct ewyk_http_parser *p, struct ewyk_http_request *req,
	const char *buf, uint32_t len, uint32_t *consumed)
{
	if (p->state == PS_START) {
		req->nheaders = 0;
		req->host.p = NULL;
		req->host.len = 0;
		if (p->line_left == p->lim.max_line &&
			parse_fast(p, req, buf, len, consumed) > 0)
			return EWYK_HTTP_DONE;
	}
	*consumed = 0;
	return http_parse_machine(p, req, buf, len, consumed);
}

int
ewyk_http_parse(struct ewyk_http_parser *p, struct ewyk_http_request *req,
	const char *buf, uint32_t len, uint32_t *consumed)
{
	if (p == NULL || req == NULL || consumed == NULL ||
		(buf == NULL && len > 0) || p->state >= PS_DONE ||
		req->headers == NULL)
		return -EINVAL;
	return parse_piece(p, req, buf, len, consumed);
}

int
ewyk_http_parse_mbuf(struct ewyk_http_parser *p, struct ewyk_http_request *req,
	const struct rte_mbuf *m, uint32_t off, uint32_t *consumed)
{
	uint32_t total = 0, used;
	int r;

	if (p == NULL || req == NULL || m == NULL || consumed == NULL ||
		p->state >= PS_DONE || req->headers == NULL)
		return -EINVAL;
	*consumed = 0;
	for (; m != NULL; m = m->next) {
		if (off >= m->data_len) {
			off -= m->data_len;
			continue;
		}
		r = parse_piece(p, req,
			rte_pktmbuf_mtod_offset(m, const char *, off),
			m->data_len - off, &used);
		total += used;
		off = 0;
		if (r != EWYK_HTTP_AGAIN) {
			*consumed = total;
			return r;
		}
	}
	*consumed = total;
	return EWYK_HTTP_AGAIN;
}

const struct ewyk_http_header *
ewyk_http_header_find(const struct ewyk_http_request *req, const char *name)
{
	uint32_t n, i;

	if (req == NULL || name == NULL)
		return NULL;
	n = (uint32_t)strlen(name);
	for (i = 0; i < req->nheaders; i++) {
		const struct ewyk_http_header *h = &req->headers[i];
		uint32_t j;

		if (h->name.len != n)
			continue;
		for (j = 0; j < n; j++) {
			unsigned char a = (unsigned char)h->name.p[j];
			unsigned char b = (unsigned char)name[j];

			if (a >= 'A' && a <= 'Z')
				a |= 0x20;
			if (b >= 'A' && b <= 'Z')
				b |= 0x20;
			if (a != b)
				break;
		}
		if (j == n)
			return h;
	}
	return NULL;
}
