/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_LOADGEN_H2_H
#define EWYK_LOADGEN_H2_H

/*
 * ewyk-loadgen's HTTP/2 client (--h2): h2c with prior knowledge, one
 * nghttp2 client session per connection, up to --streams requests open at
 * once on it.
 *
 * Two halves:
 *
 * - h2.c, the protocol and the accounting of one connection, with no I/O
 *   and no clock of its own: bytes from the server go in (lg_h2_recv),
 *   frames for the server come out through the configuration's out()
 *   callback (lg_h2_flush), and every stream that was opened comes to
 *   exactly one outcome through its done() callback: a valid response
 *   (2xx or not) or an error by kind. Unit-tested against an nghttp2
 *   server session (tests/unit/test_loadgen_h2.c).
 * - h2_slot.c, the glue to a connection slot of client.c: output into
 *   mbuf chains for lib/tcp, input from its recv callback, outcomes into
 *   the lcore's counters and latency histogram.
 *
 * What holds for a connection:
 * - no stream is opened before the server's first SETTINGS frame, and
 *   never more than min(--streams, the server's
 *   SETTINGS_MAX_CONCURRENT_STREAMS) are open; none after a GOAWAY;
 * - a stream's latency runs from its request (HEADERS submitted and
 *   flushed in the same loop iteration) to the END_STREAM of its response;
 * - a response is valid when it ended cleanly (END_STREAM, no reset) and
 *   its DATA bytes match its content-length when it has one (nghttp2
 *   checks the header fields on the way); it counts as a status error
 *   when its :status is not 2xx;
 * - errors: rst_stream (the server reset the stream), goaway (the stream
 *   was above the GOAWAY's last stream id, or still open when the
 *   connection ended after a GOAWAY, or a GOAWAY ended a connection before
 *   it answered anything), framing (a malformed response or a connection
 *   error nghttp2 detected: it sends GOAWAY and the connection ends).
 * - the receive windows are large (16 MiB per stream, 1 GiB for the
 *   connection) and nghttp2 sends WINDOW_UPDATEs as DATA is consumed
 *   (automatic window update): /bytes downloads do not stall.
 *
 * Memory: per connection, the session (nghttp2's allocations, bounded by
 * its settings: header table 4 KiB, at most --streams streams) and an
 * array of --streams stream records.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nghttp2/nghttp2.h>

#define LG_MAX_STREAMS 1024          /* --streams */
#define LG_MAX_H2_STREAMS (1u << 20) /* --conns x --streams */
/* Receive windows we announce: per stream, for the connection. */
#define LG_H2_STREAM_WINDOW (1u << 24)
#define LG_H2_CONN_WINDOW (1 << 30)

/* The outcome of a stream that is a 2xx response: beside enum lg_err's
 * kinds (LG_ERR_STATUS is a response too: valid, not 2xx). */
#define LG_H2_OK (-1)

/** A stream's outcome, to the connection's owner: @p t0 its start (as
 *  given to lg_h2_request), @p outcome LG_H2_OK or an enum lg_err kind. */
typedef void (*lg_h2_done_fn)(void *owner, uint64_t t0, int outcome);
/** Frame bytes for the server: return how many were taken (0: none now;
 *  the rest is offered again at the next lg_h2_flush). */
typedef size_t (*lg_h2_out_fn)(void *owner, const uint8_t *p, size_t n);

/* What every connection of a run shares (read-only once built). */
struct lg_h2_conf {
	unsigned int streams; /* most streams open at once (--streams) */
	lg_h2_done_fn done;
	lg_h2_out_fn out;
	nghttp2_session_callbacks *cbs;
	nghttp2_option *opt;
	/* Header fields of the requests: [0] --path, [1] --mix-path. */
	nghttp2_nv nv[2][4];
	char authority[64];
	char path[2][256];
};

/* One stream of a connection. */
struct lg_h2_stream {
	uint64_t t0;
	uint64_t opened; /* when its request went out (timeouts) */
	int64_t clen;    /* content-length; -1: none */
	uint64_t bytes;  /* DATA bytes received */
	uint16_t status; /* :status; 0 until seen */
	uint8_t end;     /* END_STREAM of the response received */
	uint8_t rst;     /* RST_STREAM received */
	uint8_t busy;    /* open (not on the free list) */
	uint32_t next;   /* free list */
};

/* One connection. */
struct lg_h2 {
	const struct lg_h2_conf *conf;
	void *owner;
	nghttp2_mem *mem;      /* its sessions' memory; NULL: malloc() */
	nghttp2_session *sess; /* NULL between connections */
	void *pending;         /* the owner's output its transport refused */
	unsigned int open;     /* streams opened, no outcome yet */
	uint64_t answered;     /* responses on this connection */
	uint8_t settings;      /* the server's first SETTINGS came */
	uint8_t goaway;        /* the server sent GOAWAY */
	uint32_t free_head;    /* free stream records (UINT32_MAX: none) */
	/* input came in this pass of the loop: its owner answers it at the
	 * pass's end (h2_slot.c), on its lcore's list once */
	uint8_t queued;
	struct lg_h2 *qnext;
	struct lg_h2_stream st[];
};

/**
 * Build the shared part: @p authority is the :authority of the requests,
 * @p path and @p mix_path (NULL or "": none) their :path.
 * Returns 0, -EINVAL (too long) or -ENOMEM.
 */
int lg_h2_conf_init(struct lg_h2_conf *c, unsigned int streams,
	const char *authority, const char *path, const char *mix_path,
	lg_h2_done_fn done, lg_h2_out_fn out);
void lg_h2_conf_fini(struct lg_h2_conf *c);

/** A connection's state, without a session yet; NULL: no memory. */
struct lg_h2 *lg_h2_create(const struct lg_h2_conf *c, void *owner);
void lg_h2_destroy(struct lg_h2 *h);

/**
 * The connection is up: a new session, its connection preface and
 * SETTINGS queued (flush them). 0 or -ENOMEM.
 */
int lg_h2_start(struct lg_h2 *h);

/**
 * The connection is gone: the session goes; streams still open get no
 * outcome (the owner counts them: lg_h2_open() before this).
 */
void lg_h2_stop(struct lg_h2 *h);

/**
 * Bytes from the server. Outcomes of the streams they finish come through
 * done(). 0, or -EPROTO when the session cannot go on (a fatal nghttp2
 * error: count the connection failed).
 */
int lg_h2_recv(struct lg_h2 *h, const uint8_t *p, size_t n);

/** What nghttp2 has to send, through out(). 0, or a fatal nghttp2 error
 *  as -EPROTO. */
int lg_h2_flush(struct lg_h2 *h);

/** Requests the connection may open now: 0 before the server's SETTINGS,
 *  after a GOAWAY either way, and while min(streams, the server's limit)
 *  are open. */
unsigned int lg_h2_room(const struct lg_h2 *h);

/** Open a stream: a GET of path @p which (0 or 1), its latency counted
 *  from @p t0 (the open loop's intended time), sent at @p now.
 *  0, or -ENOSPC (no room), -EPROTO (nghttp2 refused it). */
int lg_h2_request(struct lg_h2 *h, unsigned int which, uint64_t t0,
	uint64_t now);

/** When the oldest open stream was sent; UINT64_MAX when none is open.
 *  O(--streams): for the timeout scan. */
uint64_t lg_h2_oldest(const struct lg_h2 *h);

/** The session is over (GOAWAY sent or received and nothing left to
 *  read or write): close the connection. */
bool lg_h2_over(const struct lg_h2 *h);

/** The session waits for the server's first SETTINGS. */
static inline bool
lg_h2_waiting(const struct lg_h2 *h)
{
	return h->sess != NULL && !h->settings;
}

#endif /* EWYK_LOADGEN_H2_H */
