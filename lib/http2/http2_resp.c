/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Responses: the fields of a stream's response head, submitted to
 * nghttp2 (HPACK is its own), and its body, of known length written by
 * send_data() straight into the outgoing chain (NGHTTP2_DATA_FLAG_NO_COPY,
 * http2_conn.c), of unknown length through nghttp2's buffer.
 */

#include <errno.h>
#include <string.h>
#include <strings.h>

#include <ewyk_http_server.h>

#include "http2_private.h"

static void
status_count(struct ewyk_http2_server *s, uint16_t status)
{
	if (status < 300)
		H2_CTR(s, RESP_2XX, 1);
	else if (status < 400)
		H2_CTR(s, RESP_3XX, 1);
	else if (status < 500)
		H2_CTR(s, RESP_4XX, 1);
	else
		H2_CTR(s, RESP_5XX, 1);
}

/* Fields an HTTP/2 message must not carry (RFC 9113 8.2.2). */
static int
conn_specific(const char *n, size_t len)
{
	static const char *const drop[] = { "connection", "keep-alive",
		"proxy-connection", "transfer-encoding", "upgrade" };
	unsigned int i;

	for (i = 0; i < RTE_DIM(drop); i++)
		if (strlen(drop[i]) == len && strncasecmp(n, drop[i], len) == 0)
			return 1;
	return 0;
}

#define H2_MAX_RESP_FIELDS 16

static nghttp2_nv
nv(const char *n, size_t nl, const char *v, size_t vl, uint8_t flags)
{
	return (nghttp2_nv){ (uint8_t *)(uintptr_t)n, (uint8_t *)(uintptr_t)v,
		nl, vl, flags };
}

/* A field whose name is a lowercase literal and whose value lives in
 * the stream: nghttp2 keeps pointers, copies nothing. */
#define H2_NV_STATIC \
	(NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE)

/* Bodies of known length, a small one or a producer's: nghttp2 only
 * sizes the frames, h2_cb_send_data() writes them (NO_COPY). */
static ssize_t
read_known(nghttp2_session *sess, int32_t id, uint8_t *buf, size_t length,
	uint32_t *flags, nghttp2_data_source *src, void *user)
{
	struct ewyk_http2_stream *st = src->ptr;
	size_t n;

	RTE_SET_USED(sess);
	RTE_SET_USED(id);
	RTE_SET_USED(buf);
	RTE_SET_USED(user);
	n = (size_t)RTE_MIN((uint64_t)length, st->left);
	st->left -= n;
	*flags |= NGHTTP2_DATA_FLAG_NO_COPY;
	if (st->left == 0)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

/* Bodies of unknown length are written into nghttp2's buffer (copied
 * once more on their way out): only the producer knows where they end. */
static ssize_t
read_copy(nghttp2_session *sess, int32_t id, uint8_t *buf, size_t length,
	uint32_t *flags, nghttp2_data_source *src, void *user)
{
	struct ewyk_http2_stream *st = src->ptr;
	int n;

	RTE_SET_USED(sess);
	RTE_SET_USED(id);
	RTE_SET_USED(user);
	n = st->prod(st, (char *)buf, (uint32_t)RTE_MIN(length, (size_t)65536),
		st->off, st->prod_arg);
	if (n == -EAGAIN) {
		st->deferred = 1;
		return NGHTTP2_ERR_DEFERRED;
	}
	if (n < 0)
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
	st->off += (uint64_t)n;
	if (n == 0)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return n;
}

/* @p v in decimal at @p out (room for 20 digits): its length. The
 * status and content-length of every response: no snprintf(), which
 * cost more than the rest of submit() but nghttp2. */
static size_t
u64_dec(char *out, uint64_t v)
{
	char tmp[20];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	for (i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

static int
submit(struct ewyk_http2_stream *st, uint16_t status, const char *ctype,
	const char *extra, uint64_t len, int has_body)
{
	struct h2_conn *c;
	nghttp2_nv hv[H2_MAX_RESP_FIELDS + 3];
	char lc[H2_MAX_RESP_FIELDS][64];
	nghttp2_data_provider dp;
	size_t n = 0, k = 0;
	const char *e = extra;
	int rc;

	if (st == NULL || !st->used || status < 200 || status > 999)
		return -EINVAL;
	if (st->responded)
		return -EALREADY;
	c = st->c;
	hv[n++] = nv(":status", 7, st->hv_stat, u64_dec(st->hv_stat, status),
		H2_NV_STATIC);
	/* the caller's value may not outlive the call: copied */
	if (ctype != NULL)
		hv[n++] = nv("content-type", 12, ctype, strlen(ctype),
			NGHTTP2_NV_FLAG_NO_COPY_NAME);
	if (len != EWYK_HTTP_LEN_CHUNKED)
		hv[n++] = nv("content-length", 14, st->hv_clen,
			u64_dec(st->hv_clen, len), H2_NV_STATIC);
	/* "Name: value\r\n" lines; names lowercased (RFC 9113 8.2.1) */
	while (e != NULL && *e != '\0' && k < H2_MAX_RESP_FIELDS) {
		const char *colon = strchr(e, ':'), *eol = strstr(e, "\r\n");
		const char *v;
		size_t nl, i;

		if (colon == NULL || eol == NULL || colon > eol)
			break;
		nl = (size_t)(colon - e);
		v = colon + 1;
		while (v < eol && (*v == ' ' || *v == '\t'))
			v++;
		if (nl > 0 && nl < sizeof(lc[0]) && !conn_specific(e, nl)) {
			for (i = 0; i < nl; i++)
				lc[k][i] = (char)((e[i] >= 'A' && e[i] <= 'Z') ?
						e[i] + 32 :
						e[i]);
			hv[n++] = nv(lc[k], nl, v, (size_t)(eol - v),
				NGHTTP2_NV_FLAG_NONE);
			k++;
		}
		e = eol + 2;
	}
	st->status = status;
	if (has_body && !st->head && len != 0) {
		dp.source.ptr = st;
		dp.read_callback = len != EWYK_HTTP_LEN_CHUNKED ? read_known :
								  read_copy;
		st->left = len;
		st->chunked = len == EWYK_HTTP_LEN_CHUNKED;
		rc = nghttp2_submit_response(c->sess, st->id, hv, n, &dp);
	} else {
		rc = nghttp2_submit_response(c->sess, st->id, hv, n, NULL);
	}
	if (rc != 0)
		return -ENOMEM;
	st->responded = 1;
	c->nresp++;
	status_count(c->srv, status);
	h2_conn_flush(c);
	return 0;
}

int
ewyk_http2_respond(struct ewyk_http2_stream *st, uint16_t status,
	const char *content_type, const char *extra, const void *body,
	uint32_t len)
{
	if (st == NULL || (body == NULL && len > 0))
		return -EINVAL;
	if (len > EWYK_HTTP2_RESPOND_MAX)
		return -EMSGSIZE;
	if (st->responded)
		return -EALREADY;
	if (len > 0)
		memcpy(st->small, body, len);
	st->small_len = len;
	st->prod = NULL;
	return submit(st, status, content_type, extra, len, len > 0);
}

int
ewyk_http2_respond_stream(struct ewyk_http2_stream *st, uint16_t status,
	const char *content_type, const char *extra, uint64_t len,
	ewyk_http2_producer_fn prod, void *arg)
{
	if (st == NULL || prod == NULL)
		return -EINVAL;
	if (st->responded)
		return -EALREADY;
	st->prod = prod;
	st->prod_arg = arg;
	return submit(st, status, content_type, extra, len, 1);
}

int
ewyk_http2_stream_resume(struct ewyk_http2_stream *st)
{
	if (st == NULL || !st->used || !st->deferred)
		return -EINVAL;
	st->deferred = 0;
	nghttp2_session_resume_data(st->c->sess, st->id);
	h2_conn_flush(st->c);
	return 0;
}
