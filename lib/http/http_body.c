/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Streaming body decoders (RFC 9112 sections 6.2 and 7.1): Content-Length
 * and chunked. They hand out views of the data inside the caller's input
 * and keep a few integers of state: a body is never buffered.
 *
 * chunked-body = *chunk last-chunk trailer-section CRLF
 * chunk        = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
 * field-line   = field-name ":" OWS field-value OWS
 * Extensions are checked for CTLs, bounded and ignored. The framing as a
 * whole (size lines, extensions, CRLFs) is bounded relative to the data
 * (EWYK_HTTP_CHUNK_OVERHEAD): a client cannot make us read and parse much
 * more than max_body by sending tiny chunks with long extensions. Each
 * trailer line must be a field line (a token, a colon, a value without
 * CTLs but HTAB: no obs-fold), so that what follows the last chunk is
 * framed as a strict front end frames it; the section is bounded
 * (max_header_bytes) and ignored.
 */

#include <errno.h>
#include <string.h>

#include "http_private.h"

enum {
	BS_LENGTH = 0, /* Content-Length data */
	BS_DATA,       /* chunk data */
	/* BS_SIZE up to BS_DATA_LF: chunk framing, paid from b->credit */
	BS_SIZE,     /* chunk-size digits */
	BS_SIZE_BWS, /* whitespace after the size: ';' must follow */
	BS_EXT,      /* chunk extensions, up to CR */
	BS_SIZE_LF,
	BS_DATA_CR,
	BS_DATA_LF,
	BS_TRAILER,       /* start of a trailer line (or of the final CRLF) */
	BS_TRAILER_NAME,  /* field-name, up to ':' */
	BS_TRAILER_VALUE, /* OWS field-value OWS, up to CR */
	BS_TRAILER_LF,
	BS_END_LF,
	BS_DONE,
	BS_ERROR,
};

int
ewyk_http_body_init(struct ewyk_http_body *b,
	const struct ewyk_http_request *req, const struct ewyk_http_limits *lim)
{
	if (b == NULL || req == NULL || req->framing > EWYK_HTTP_BODY_CHUNKED)
		return -EINVAL;
	memset(b, 0, sizeof(*b));
	b->framing = req->framing;
	b->max_body = lim != NULL && lim->max_body != 0 ?
		lim->max_body :
		EWYK_HTTP_DEF_MAX_BODY;
	b->max_trailer = lim != NULL && lim->max_header_bytes != 0 ?
		lim->max_header_bytes :
		EWYK_HTTP_DEF_MAX_HEADER_BYTES;
	switch (req->framing) {
	case EWYK_HTTP_BODY_LENGTH:
		b->remaining = req->content_length;
		b->state = b->remaining == 0 ? BS_DONE : BS_LENGTH;
		if (b->remaining > b->max_body) {
			b->status = 413;
			b->state = BS_ERROR;
		}
		break;
	case EWYK_HTTP_BODY_CHUNKED:
		b->state = BS_SIZE;
		b->credit = EWYK_HTTP_CHUNK_OVERHEAD;
		break;
	default:
		b->state = BS_DONE;
		break;
	}
	return 0;
}

static int
body_fail(struct ewyk_http_body *b, uint16_t status, uint32_t i,
	uint32_t *consumed)
{
	b->status = status;
	b->state = BS_ERROR;
	*consumed = i;
	return -EBADMSG;
}

static int
is_ctl(unsigned char c)
{
	return (c < 0x20 && c != '\t') || c == 0x7f;
}

int
ewyk_http_body_parse(struct ewyk_http_body *b, const char *buf, uint32_t len,
	uint32_t *consumed, struct ewyk_http_view *data)
{
	uint64_t credit;
	uint32_t i = 0, n;
	unsigned char c;
	int h;

	if (b == NULL || consumed == NULL || data == NULL ||
		(buf == NULL && len > 0))
		return -EINVAL;
	*consumed = 0;
	data->p = NULL;
	data->len = 0;
	if (b->state == BS_DONE)
		return EWYK_HTTP_DONE;
	if (b->state == BS_ERROR)
		return -EBADMSG;
	while (i < len) {
		c = (unsigned char)buf[i];
		if (b->state >= BS_SIZE && b->state < BS_TRAILER) {
			/* a framing byte, paid from the credit */
			if (b->credit == 0)
				return body_fail(b, 400, i, consumed);
			b->credit--;
		}
		switch (b->state) {
		case BS_LENGTH:
		case BS_DATA:
			n = len - i;
			if (n > b->remaining)
				n = (uint32_t)b->remaining;
			data->p = buf + i;
			data->len = n;
			b->remaining -= n;
			b->total += n;
			/* data earns framing credit (saturating; unused with
			 * Content-Length) */
			credit = b->credit +
				(uint64_t)n * EWYK_HTTP_CHUNK_OVERHEAD_PER_BYTE;
			b->credit = credit < b->credit ? UINT64_MAX : credit;
			i += n;
			if (b->remaining == 0)
				b->state = b->state == BS_LENGTH ? BS_DONE :
								   BS_DATA_CR;
			*consumed = i;
			return EWYK_HTTP_DATA;
		case BS_SIZE:
			h = ewyk_http_hex_digit((char)c);
			if (h >= 0) {
				if (b->remaining >> 58)
					return body_fail(b, 400, i, consumed);
				b->remaining = (b->remaining << 4) |
					(uint64_t)h;
				b->ndigits = 1;
			} else if (!b->ndigits) {
				return body_fail(b, 400, i, consumed);
			} else if (c == ';') {
				b->state = BS_EXT;
			} else if (c == ' ' || c == '\t') {
				b->state = BS_SIZE_BWS;
			} else if (c == '\r') {
				b->state = BS_SIZE_LF;
			} else {
				return body_fail(b, 400, i, consumed);
			}
			break;
		case BS_SIZE_BWS:
			if (c == ';')
				b->state = BS_EXT;
			else if (c != ' ' && c != '\t')
				return body_fail(b, 400, i, consumed);
			break;
		case BS_EXT:
			if (c == '\r')
				b->state = BS_SIZE_LF;
			else if (is_ctl(c))
				return body_fail(b, 400, i, consumed);
			break;
		case BS_SIZE_LF:
			if (c != '\n')
				return body_fail(b, 400, i, consumed);
			b->aux = 0;
			b->ndigits = 0;
			if (b->remaining > b->max_body - b->total)
				return body_fail(b, 413, i, consumed);
			b->state = b->remaining == 0 ? BS_TRAILER : BS_DATA;
			i++;
			continue;
		case BS_DATA_CR:
			if (c != '\r')
				return body_fail(b, 400, i, consumed);
			b->state = BS_DATA_LF;
			break;
		case BS_DATA_LF:
			if (c != '\n')
				return body_fail(b, 400, i, consumed);
			b->state = BS_SIZE;
			b->aux = 0;
			i++;
			continue;
		case BS_TRAILER:
			if (c == '\r')
				b->state = BS_END_LF;
			else if (http_tchar[c])
				b->state = BS_TRAILER_NAME;
			else /* obs-fold, an empty name, a bare LF */
				return body_fail(b, 400, i, consumed);
			break;
		case BS_TRAILER_NAME:
			if (c == ':')
				b->state = BS_TRAILER_VALUE;
			else if (!http_tchar[c]) /* a request line stops here */
				return body_fail(b, 400, i, consumed);
			break;
		case BS_TRAILER_VALUE:
			if (c == '\r')
				b->state = BS_TRAILER_LF;
			else if (is_ctl(c))
				return body_fail(b, 400, i, consumed);
			break;
		case BS_TRAILER_LF:
			if (c != '\n')
				return body_fail(b, 400, i, consumed);
			b->state = BS_TRAILER;
			break;
		case BS_END_LF:
			if (c != '\n')
				return body_fail(b, 400, i, consumed);
			/* the section's final CRLF counts, as the head's does */
			if (++b->aux > b->max_trailer)
				return body_fail(b, 431, i, consumed);
			b->state = BS_DONE;
			*consumed = i + 1;
			return EWYK_HTTP_DONE;
		default:
			return -EINVAL;
		}
		/* framing bytes: chunk lines are bounded, trailers too */
		i++;
		if (++b->aux > (b->state >= BS_TRAILER ?
					       b->max_trailer :
					       EWYK_HTTP_MAX_CHUNK_EXT))
			return body_fail(b, b->state >= BS_TRAILER ? 431 : 400,
				i, consumed);
	}
	*consumed = i;
	return b->state == BS_DONE ? EWYK_HTTP_DONE : EWYK_HTTP_AGAIN;
}

int
ewyk_http_body_parse_mbuf(struct ewyk_http_body *b, const struct rte_mbuf *m,
	uint32_t off, uint32_t *consumed, struct ewyk_http_view *data)
{
	uint32_t total = 0, used;
	int r = EWYK_HTTP_AGAIN;

	if (b == NULL || m == NULL || consumed == NULL || data == NULL)
		return -EINVAL;
	*consumed = 0;
	data->p = NULL;
	data->len = 0;
	if (b->state == BS_DONE)
		return EWYK_HTTP_DONE;
	for (; m != NULL; m = m->next) {
		if (off >= m->data_len) {
			off -= m->data_len;
			continue;
		}
		r = ewyk_http_body_parse(b,
			rte_pktmbuf_mtod_offset(m, const char *, off),
			m->data_len - off, &used, data);
		total += used;
		off = 0;
		if (r != EWYK_HTTP_AGAIN)
			break;
	}
	*consumed = total;
	return r;
}
