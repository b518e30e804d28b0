/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ewyk-loadgen's HTTP/2 connections: nghttp2 client sessions, streams and
 * their outcomes (h2.h). No I/O and no clock here: the owner feeds bytes
 * in, takes frames out and counts the outcomes.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h2.h"
#include "loadgen.h"

#define NO_REC UINT32_MAX

static struct lg_h2_stream *
stream_of(struct lg_h2 *h, int32_t id)
{
	return nghttp2_session_get_stream_user_data(h->sess, id);
}

static ssize_t
cb_send(nghttp2_session *sess, const uint8_t *data, size_t len, int flags,
	void *arg)
{
	struct lg_h2 *h = arg;
	size_t n;

	(void)sess;
	(void)flags;
	n = h->conf->out(h->owner, data, len);
	return n == 0 ? NGHTTP2_ERR_WOULDBLOCK : (ssize_t)n;
}

/* The digits of a :status or content-length value; -1: not a number. */
static int64_t
parse_num(const uint8_t *v, size_t n, size_t max_digits)
{
	int64_t x = 0;
	size_t i;

	if (n == 0 || n > max_digits)
		return -1;
	for (i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
		x = x * 10 + (v[i] - '0');
	}
	return x;
}

static int
cb_header(nghttp2_session *sess, const nghttp2_frame *frame,
	const uint8_t *name, size_t namelen, const uint8_t *value,
	size_t valuelen, uint8_t flags, void *arg)
{
	struct lg_h2 *h = arg;
	struct lg_h2_stream *r;
	int64_t v;

	(void)sess;
	(void)flags;
	if (frame->hd.type != NGHTTP2_HEADERS)
		return 0;
	r = stream_of(h, frame->hd.stream_id);
	if (r == NULL)
		return 0;
	if (namelen == 7 && memcmp(name, ":status", 7) == 0) {
		v = parse_num(value, valuelen, 3);
		r->status = v < 100 ? 0 : (uint16_t)v;
		/* An interim (1xx) head's length is not the response's. */
		if (v >= 100 && v < 200)
			r->clen = -1;
	} else if (namelen == 14 && memcmp(name, "content-length", 14) == 0) {
		r->clen = parse_num(value, valuelen, 18);
		if (r->clen < 0)
			/* nghttp2 resets such a stream; count it framing. */
			r->status = 0;
	}
	return 0;
}

static int
cb_data(nghttp2_session *sess, uint8_t flags, int32_t id, const uint8_t *data,
	size_t len, void *arg)
{
	struct lg_h2 *h = arg;
	struct lg_h2_stream *r = stream_of(h, id);

	(void)sess;
	(void)flags;
	(void)data;
	if (r != NULL)
		r->bytes += len;
	return 0;
}

static int
cb_frame_recv(nghttp2_session *sess, const nghttp2_frame *frame, void *arg)
{
	struct lg_h2 *h = arg;
	struct lg_h2_stream *r;

	(void)sess;
	switch (frame->hd.type) {
	case NGHTTP2_SETTINGS:
		if (!(frame->hd.flags & NGHTTP2_FLAG_ACK))
			h->settings = 1;
		return 0;
	case NGHTTP2_GOAWAY:
		h->goaway = 1;
		return 0;
	case NGHTTP2_RST_STREAM:
		r = stream_of(h, frame->hd.stream_id);
		if (r != NULL)
			r->rst = 1;
		return 0;
	case NGHTTP2_HEADERS:
	case NGHTTP2_DATA:
		if (!(frame->hd.flags & NGHTTP2_FLAG_END_STREAM))
			return 0;
		r = stream_of(h, frame->hd.stream_id);
		if (r != NULL)
			r->end = 1;
		return 0;
	default:
		return 0;
	}
}

/* What a closed stream came to. */
static int
outcome(const struct lg_h2 *h, const struct lg_h2_stream *r, uint32_t code)
{
	if (code == NGHTTP2_NO_ERROR && r->end) {
		if (r->status == 0)
			return LG_ERR_FRAMING;
		if (r->clen >= 0 && (uint64_t)r->clen != r->bytes)
			return LG_ERR_FRAMING;
		if (r->status < 200 || r->status > 299)
			return LG_ERR_STATUS;
		return LG_H2_OK;
	}
	if (r->rst)
		return LG_ERR_RST_STREAM;
	if (code == NGHTTP2_REFUSED_STREAM && h->goaway)
		return LG_ERR_GOAWAY;
	/* nghttp2 reset it: the response broke the protocol. */
	return LG_ERR_FRAMING;
}

static int
cb_stream_close(nghttp2_session *sess, int32_t id, uint32_t code, void *arg)
{
	struct lg_h2 *h = arg;
	struct lg_h2_stream *r = stream_of(h, id);
	int o;

	(void)sess;
	if (r == NULL)
		return 0;
	o = outcome(h, r, code);
	r->busy = 0;
	r->next = h->free_head;
	h->free_head = (uint32_t)(r - h->st);
	h->open--;
	if (o == LG_H2_OK || o == LG_ERR_STATUS)
		h->answered++;
	h->conf->done(h->owner, r->t0, o);
	return 0;
}

/* ---- requests ---- */

static void
nv_set(nghttp2_nv *nv, const char *name, const char *value)
{
	nv->name = (uint8_t *)(uintptr_t)name;
	nv->namelen = strlen(name);
	nv->value = (uint8_t *)(uintptr_t)value;
	nv->valuelen = strlen(value);
	nv->flags = NGHTTP2_NV_FLAG_NO_COPY_NAME |
		NGHTTP2_NV_FLAG_NO_COPY_VALUE;
}

int
lg_h2_conf_init(struct lg_h2_conf *c, unsigned int streams,
	const char *authority, const char *path, const char *mix_path,
	lg_h2_done_fn done, lg_h2_out_fn out)
{
	unsigned int i;
	int n;

	memset(c, 0, sizeof(*c));
	if (streams == 0 || streams > LG_MAX_STREAMS)
		return -EINVAL;
	c->streams = streams;
	c->done = done;
	c->out = out;
	n = snprintf(c->authority, sizeof(c->authority), "%s", authority);
	if (n < 0 || (size_t)n >= sizeof(c->authority))
		return -EINVAL;
	for (i = 0; i < 2; i++) {
		const char *p = i == 0 ?
			path :
			(mix_path != NULL && mix_path[0] != '\0' ? mix_path :
								   path);

		n = snprintf(c->path[i], sizeof(c->path[i]), "%s", p);
		if (n < 0 || (size_t)n >= sizeof(c->path[i]))
			return -EINVAL;
		nv_set(&c->nv[i][0], ":method", "GET");
		nv_set(&c->nv[i][1], ":scheme", "http");
		nv_set(&c->nv[i][2], ":authority", c->authority);
		nv_set(&c->nv[i][3], ":path", c->path[i]);
	}
	if (nghttp2_session_callbacks_new(&c->cbs) != 0)
		return -ENOMEM;
	nghttp2_session_callbacks_set_send_callback(c->cbs, cb_send);
	nghttp2_session_callbacks_set_on_header_callback(c->cbs, cb_header);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(c->cbs,
		cb_data);
	nghttp2_session_callbacks_set_on_frame_recv_callback(c->cbs,
		cb_frame_recv);
	nghttp2_session_callbacks_set_on_stream_close_callback(c->cbs,
		cb_stream_close);
	if (nghttp2_option_new(&c->opt) != 0) {
		lg_h2_conf_fini(c);
		return -ENOMEM;
	}
	/* No server push to keep; no closed streams kept either. */
	nghttp2_option_set_max_reserved_remote_streams(c->opt, 0);
	nghttp2_option_set_no_closed_streams(c->opt, 1);
	return 0;
}

void
lg_h2_conf_fini(struct lg_h2_conf *c)
{
	if (c->cbs != NULL)
		nghttp2_session_callbacks_del(c->cbs);
	if (c->opt != NULL)
		nghttp2_option_del(c->opt);
	c->cbs = NULL;
	c->opt = NULL;
}

static void
records_reset(struct lg_h2 *h)
{
	unsigned int i, n = h->conf->streams;

	for (i = 0; i < n; i++) {
		h->st[i].next = i + 1 < n ? i + 1 : NO_REC;
		h->st[i].busy = 0;
	}
	h->free_head = 0;
	h->open = 0;
	h->answered = 0;
	h->settings = 0;
	h->goaway = 0;
}

struct lg_h2 *
lg_h2_create(const struct lg_h2_conf *c, void *owner)
{
	struct lg_h2 *h = calloc(1, sizeof(*h) + c->streams * sizeof(h->st[0]));

	if (h == NULL)
		return NULL;
	h->conf = c;
	h->owner = owner;
	records_reset(h);
	return h;
}

void
lg_h2_destroy(struct lg_h2 *h)
{
	if (h == NULL)
		return;
	lg_h2_stop(h);
	free(h);
}

int
lg_h2_start(struct lg_h2 *h)
{
	nghttp2_settings_entry iv[] = {
		{ NGHTTP2_SETTINGS_ENABLE_PUSH, 0 },
		{ NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, LG_H2_STREAM_WINDOW },
	};

	lg_h2_stop(h);
	if (nghttp2_session_client_new3(&h->sess, h->conf->cbs, h, h->conf->opt,
		    h->mem) != 0) {
		h->sess = NULL;
		return -ENOMEM;
	}
	/* The preface goes with the first flush, SETTINGS with it. */
	if (nghttp2_submit_settings(h->sess, NGHTTP2_FLAG_NONE, iv,
		    RTE_DIM(iv)) != 0 ||
		nghttp2_session_set_local_window_size(h->sess,
			NGHTTP2_FLAG_NONE, 0, LG_H2_CONN_WINDOW) != 0) {
		lg_h2_stop(h);
		return -ENOMEM;
	}
	return 0;
}

void
lg_h2_stop(struct lg_h2 *h)
{
	if (h->sess != NULL)
		nghttp2_session_del(h->sess);
	h->sess = NULL;
	records_reset(h);
}

int
lg_h2_recv(struct lg_h2 *h, const uint8_t *p, size_t n)
{
	ssize_t rc;

	if (h->sess == NULL)
		return -EPROTO;
	rc = nghttp2_session_mem_recv(h->sess, p, n);
	return rc < 0 ? -EPROTO : 0;
}

int
lg_h2_flush(struct lg_h2 *h)
{
	if (h->sess == NULL)
		return -EPROTO;
	return nghttp2_session_send(h->sess) != 0 ? -EPROTO : 0;
}

unsigned int
lg_h2_room(const struct lg_h2 *h)
{
	uint32_t limit;

	if (h->sess == NULL || !h->settings || h->goaway ||
		!nghttp2_session_check_request_allowed(h->sess))
		return 0;
	limit = nghttp2_session_get_remote_settings(h->sess,
		NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
	if (limit > h->conf->streams)
		limit = h->conf->streams;
	return limit > h->open ? limit - h->open : 0;
}

int
lg_h2_request(struct lg_h2 *h, unsigned int which, uint64_t t0, uint64_t now)
{
	struct lg_h2_stream *r;
	uint32_t i;
	int32_t id;

	if (lg_h2_room(h) == 0 || h->free_head == NO_REC)
		return -ENOSPC;
	i = h->free_head;
	r = &h->st[i];
	id = nghttp2_submit_request(h->sess, NULL, h->conf->nv[which & 1], 4,
		NULL, r);
	if (id < 0)
		return -EPROTO;
	h->free_head = r->next;
	r->t0 = t0;
	r->opened = now;
	r->busy = 1;
	r->clen = -1;
	r->bytes = 0;
	r->status = 0;
	r->end = 0;
	r->rst = 0;
	h->open++;
	return 0;
}

uint64_t
lg_h2_oldest(const struct lg_h2 *h)
{
	uint64_t t = UINT64_MAX;
	unsigned int i;

	if (h->open == 0)
		return t;
	for (i = 0; i < h->conf->streams; i++)
		if (h->st[i].busy && h->st[i].opened < t)
			t = h->st[i].opened;
	return t;
}

bool
lg_h2_over(const struct lg_h2 *h)
{
	return h->sess != NULL && !nghttp2_session_want_read(h->sess) &&
		!nghttp2_session_want_write(h->sess);
}
