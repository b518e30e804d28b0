/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Request-head parser, the state machine (RFC 9112 sections 2-5): byte
 * driven, it resumes where the previous piece of input stopped. The long
 * runs (request-target, field values) go through the vector scanners;
 * tokens that end inside the piece become views into it; a token that
 * reaches the end of a piece is saved to the scratch area and completed
 * there. Every malformed request gets its status here: the fast path
 * (http_parse.c) hands anything unusual to this machine.
 */

#include <errno.h>
#include <string.h>

#include "http_private.h"

static int
fail(struct ewyk_http_parser *p, uint16_t status)
{
	p->status = status;
	p->state = PS_ERROR;
	return -EBADMSG;
}

/* Append to the scratch area; the caller sized it for the worst case. */
static int
scratch_put(struct ewyk_http_parser *p, const char *s, size_t n)
{
	if (n > p->scratch_size - p->scratch_used)
		return -1;
	memcpy(p->scratch + p->scratch_used, s, n);
	p->scratch_used += (uint32_t)n;
	return 0;
}

/* The token that started at buf[ts] (or earlier, in scratch) ends at e. */
static int
tok_finish(struct ewyk_http_parser *p, const char *buf, size_t ts, size_t e,
	struct ewyk_http_view *v)
{
	if (!p->tok_partial) {
		v->p = buf + ts;
		v->len = (uint32_t)(e - ts);
		return 0;
	}
	if (scratch_put(p, buf, e) < 0)
		return -1;
	p->tok_partial = 0;
	v->p = p->scratch + p->tok_off;
	v->len = p->tok_len + (uint32_t)e;
	return 0;
}

/* The input ends inside a token: keep its bytes so far in scratch. */
static int
tok_save(struct ewyk_http_parser *p, const char *buf, size_t ts, size_t len)
{
	if (!p->tok_partial) {
		p->tok_off = p->scratch_used;
		p->tok_len = 0;
		p->tok_partial = 1;
	}
	if (scratch_put(p, buf + ts, len - ts) < 0)
		return -1;
	p->tok_len += (uint32_t)(len - ts);
	return 0;
}

/* One field line is complete: record it and apply its semantics. */
static uint16_t
field_commit(struct ewyk_http_parser *p, struct ewyk_http_request *req)
{
	struct ewyk_http_header *h = &req->headers[req->nheaders];
	const char *v = h->value.p;
	uint32_t n = h->value.len;

	while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	h->value.len = n;
	h->name = p->name;
	req->nheaders++;
	return HTTP_FIELD_MAYBE(h->name.len) ? http_field_apply(p, req, h) : 0;
}

/*
 * The state machine: any segmentation, any request, every error. Its own
 * function (and file), so that the fast path's stays small.
 */
int
http_parse_machine(struct ewyk_http_parser *p, struct ewyk_http_request *req,
	const char *buf, uint32_t len, uint32_t *consumed)
{
	size_t i = 0, ts = 0, end;
	uint32_t *budget;
	uint16_t st;
	unsigned char c;
	int m;

	while (i < len) {
		size_t from = i;

		budget = p->state < PS_LINE ? &p->line_left : &p->hdr_left;
		if (*budget == 0)
			return fail(p, p->state < PS_LINE ? 414 : 431);
		end = len - i > *budget ? i + *budget : len;
		c = (unsigned char)buf[i];
		switch (p->state) {
		case PS_START:
			/*
			 * Empty lines before the request line (RFC 9112 2.2):
			 * up to HTTP_MAX_EMPTY_LINES are ignored and not
			 * charged to the request-line budget; vpos counts
			 * them until the version is reached.
			 */
			if (c == '\r') {
				if (p->vpos++ == HTTP_MAX_EMPTY_LINES)
					return fail(p, 400);
				i++;
				p->state = PS_START_LF;
				continue;
			} else if (http_tchar[c]) {
				ts = i;
				p->tok_partial = 0;
				p->state = PS_METHOD;
			} else {
				return fail(p, 400);
			}
			break;
		case PS_START_LF:
			if (c != '\n')
				return fail(p, 400);
			i++;
			p->state = PS_START;
			continue;
		case PS_METHOD:
			while (i < end && http_tchar[(unsigned char)buf[i]])
				i++;
			if ((p->tok_partial ? p->tok_len : 0) + (i - ts) >
				EWYK_HTTP_MAX_METHOD)
				return fail(p, 501);
			if (i == end)
				break;
			if (buf[i] != ' ')
				return fail(p, 400);
			if (tok_finish(p, buf, ts, i, &req->method) < 0)
				return fail(p, 431);
			m = http_method_lookup(req->method.p, req->method.len);
			if (m < 0 || m == EWYK_HTTP_CONNECT)
				return fail(p, 501);
			req->method_id = (uint8_t)m;
			i++;
			ts = i;
			p->state = PS_TARGET;
			break;
		case PS_TARGET:
			i += http_scan_target(p->isa, buf + i, end - i);
			if (i == end)
				break;
			if (buf[i] != ' ')
				return fail(p, 400);
			if (tok_finish(p, buf, ts, i, &req->target) < 0)
				return fail(p, 431);
			if (req->target.len == 0)
				return fail(p, 400);
			st = http_target_finish(req);
			if (st != 0)
				return fail(p, st);
			i++;
			p->vpos = 0;
			p->state = PS_VERSION;
			break;
		case PS_VERSION:
			/* "HTTP/" DIGIT "." DIGIT, case-sensitive */
			if (p->vpos < 5) {
				if (c != (unsigned char)"HTTP/"[p->vpos])
					return fail(p, 400);
			} else if (p->vpos == 6) {
				if (c != '.')
					return fail(p, 400);
			} else {
				if (c < '0' || c > '9')
					return fail(p, 400);
				if (p->vpos == 5) {
					req->version_minor = (uint8_t)(c - '0');
				} else {
					if (req->version_minor != 1)
						return fail(p, 505);
					req->version_minor = c == '0' ? 0 : 1;
					p->state = PS_RL_CR;
				}
			}
			p->vpos++;
			i++;
			break;
		case PS_RL_CR:
			if (c != '\r')
				return fail(p, 400);
			i++;
			p->state = PS_RL_LF;
			break;
		case PS_RL_LF:
			if (c != '\n')
				return fail(p, 400);
			i++;
			p->state = PS_LINE;
			break;
		case PS_LINE:
			if (c == '\r') {
				i++;
				p->state = PS_END_LF;
			} else if (http_tchar[c]) {
				if (req->nheaders >= req->max_headers)
					return fail(p, 431);
				ts = i;
				p->tok_partial = 0;
				p->state = PS_NAME;
			} else {
				/* obs-fold, whitespace before a name, CTL */
				return fail(p, 400);
			}
			break;
		case PS_NAME:
			while (i < end && http_tchar[(unsigned char)buf[i]])
				i++;
			if (i == end)
				break;
			if (buf[i] != ':')
				return fail(p, 400);
			if (tok_finish(p, buf, ts, i, &p->name) < 0)
				return fail(p, 431);
			i++;
			p->state = PS_OWS;
			break;
		case PS_OWS:
			while (i < end && (buf[i] == ' ' || buf[i] == '\t'))
				i++;
			if (i == end)
				break;
			ts = i;
			p->tok_partial = 0;
			p->state = PS_VALUE;
			break;
		case PS_VALUE:
			i += http_scan_value(p->isa, buf + i, end - i);
			if (i == end)
				break;
			if (buf[i] != '\r')
				return fail(p, 400);
			if (tok_finish(p, buf, ts, i,
				    &req->headers[req->nheaders].value) < 0)
				return fail(p, 431);
			i++;
			p->state = PS_VALUE_LF;
			break;
		case PS_VALUE_LF:
			if (c != '\n')
				return fail(p, 400);
			i++;
			st = field_commit(p, req);
			if (st != 0)
				return fail(p, st);
			p->state = PS_LINE;
			break;
		case PS_END_LF:
			if (c != '\n')
				return fail(p, 400);
			i++;
			*budget -= (uint32_t)(i - from);
			st = http_fields_finish(p, req);
			if (st != 0)
				return fail(p, st);
			p->state = PS_DONE;
			*consumed = (uint32_t)i;
			return EWYK_HTTP_DONE;
		default:
			return -EINVAL;
		}
		*budget -= (uint32_t)(i - from);
	}
	switch (p->state) {
	case PS_METHOD:
	case PS_TARGET:
	case PS_NAME:
	case PS_VALUE:
		if (tok_save(p, buf, ts, len) < 0)
			return fail(p, 431);
		break;
	default:
		break;
	}
	*consumed = len;
	return EWYK_HTTP_AGAIN;
}
