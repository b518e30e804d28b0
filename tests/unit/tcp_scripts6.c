/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What TCP over IPv6 does differently from IPv4, as scripts (tcp_script.h):
 * the MSS it offers (20 bytes less for the longer header), the limit per
 * /64 beside the one per address, and a mixed table where an IPv4 and an
 * IPv6 connection share ports. Every IPv4 script of tcp_scripts.c and
 * tcp_scripts_hard.c also runs over IPv6 (test_tcp.c): handshakes, data,
 * loss and retransmission, RST rules, RFC 5961, timestamps, TIME_WAIT,
 * SYN cookies and bad input.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tcp_script.h"

/* conf.mss 1460 over IPv6: 1440 offered, 1428 of payload with timestamps. */
static const struct step s_v6_mss[] = {
	IN(F_SYN, 0, 0, .mss = 1460, .ws = WS(7), .sackok = true, .ts = true),
	OUT(F_SYN | F_ACK, 0, 1, .mss = 1440, .ws = WS(3), .sackok = true,
		.ts = true),
	IN(F_ACK, 1, 1, .ts = true), EV(EV_ACCEPT, 0), STATE(ES), SEND(3000),
	OUT(F_ACK, 1, 1, .len = 1428), OUT(F_ACK, 1429, 1, .len = 1428),
	OUT(F_ACK | F_PSH, 2857, 1, .len = 144), IN(F_ACK, 1, 3001), NOOUT, END
};

/* A peer announcing less than our cap is taken at its word. */
static const struct step s_v6_mss_peer[] = { CONNECT,
	OUT(F_SYN, 0, 0, .mss = 1440, .sackok = true, .ts = true),
	IN(F_SYN | F_ACK, 0, 1, .mss = 1220), OUT(F_ACK, 1, 1),
	EV(EV_CONNECTED, 0), SEND(2000), OUT(F_ACK, 1, 1, .len = 1220),
	OUT(F_ACK | F_PSH, 1221, 1, .len = 780), END };

/*
 * max_conns_per_src 2, max_conns_per_net6 3: three addresses of one /64
 * fill its share although none holds two; a fourth address of that /64
 * is refused, an address of another /64 is not.
 */
#define SYN6(p, ...) IN(F_SYN, 0, 0, .sport = (p), .mss = 1460, __VA_ARGS__)
static const struct step s_v6_per_net64[] = { PASSIVE_OPEN_PLAIN,
	SYN6(40001, .paddr = 3), OUT(F_SYN | F_ACK, 0, 1, .learn = true),
	IN(F_ACK, 1, 1, .sport = 40001, .paddr = 3), EV(EV_ACCEPT, 0),
	SYN6(40002, .paddr = 4), OUT(F_SYN | F_ACK, 0, 1, .learn = true),
	IN(F_ACK, 1, 1, .sport = 40002, .paddr = 4), EV(EV_ACCEPT, 0),
	SYN6(40003, .paddr = 5), NOOUT, CTR(EWYK_TCP_DROP_SRC_LIMIT, 1),
	SYN6(40004, .paddr = 5, .pnet = 1),
	OUT(F_SYN | F_ACK, 0, 1, .learn = true), CTR(EWYK_TCP_PASSIVE_OPENS, 4),
	/* One of the /64's connections goes: room for another. */
	ABORT, OUT(F_RST | F_ACK, 1, 1, .any_seq = true),
	SYN6(40003, .paddr = 5), OUT(F_SYN | F_ACK, 0, 1, .learn = true),
	CTR(EWYK_TCP_DROP_SRC_LIMIT, 1), END };

/* A closed port answers with a RST over IPv6 too, counted the same. */
static const struct step s_v6_closed_port[] = { IN(F_SYN, 0, 0, .dport = 81),
	OUT(F_RST | F_ACK, 0, 1), IN(F_ACK, 5, 77, .dport = 81),
	OUT(F_RST, 77, 0), CTR(EWYK_TCP_DROP_NO_LISTENER, 2),
	CTR(EWYK_TCP_RST_OUT, 2), END };

/*
 * Segments to a multicast address (lib/net passes ff02::1 and our
 * solicited-node groups up): no SYN-ACK, no RST, no connection (RFC 1122
 * 4.2.3.10; RFC 9293 3.10.7.1). A wildcard listener takes IPv6.
 */
static const struct step s_v6_mcast_dst[] = { IN(F_SYN, 0, 0, .mss = 1460,
						      .mcast6 = true),
	NOOUT, IN(F_ACK, 5, 77, .dport = 81, .mcast6 = true), NOOUT,
	CTR(EWYK_TCP_PASSIVE_OPENS, 0), CTR(EWYK_TCP_RST_OUT, 0),
	CTR(EWYK_TCP_DROP_MCAST, 2), END };

/*
 * A listener on one IPv6 address (ewyk_tcp_listen6(), ...::9 of our /64):
 * a SYN to it is answered from it; a SYN to another address of ours
 * (LIP6, ...::1) on the same port gets a RST, counted as no listener.
 */
static const struct step s_v6_listen_addr[] = {
	IN(F_SYN, 0, 0, .mss = 1460, .laddr = 9),
	OUT(F_SYN | F_ACK, 0, 1, .mss = 1460, .laddr = 9),
	IN(F_ACK, 1, 1, .laddr = 9), EV(EV_ACCEPT, 0),
	IN(F_SYN, 0, 0, .sport = 40001, .mss = 1460),
	OUT(F_RST | F_ACK, 0, 1, .any_seq = true),
	CTR(EWYK_TCP_DROP_NO_LISTENER, 1), CTR(EWYK_TCP_PASSIVE_OPENS, 1), END
};

/* Listening on ...::1 itself: its SYN is taken, ...::9's gets the RST. */
static const struct step s_v6_listen_addr_own[] = { PASSIVE_OPEN_PLAIN,
	IN(F_SYN, 0, 0, .sport = 40001, .mss = 1460, .laddr = 9),
	OUT(F_RST | F_ACK, 0, 1, .any_seq = true, .laddr = 9),
	CTR(EWYK_TCP_DROP_NO_LISTENER, 1), CTR(EWYK_TCP_PASSIVE_OPENS, 1),
	END };

#define SC(n, ...)                                                  \
	{                                                           \
		.name = #n, .steps = s_##n, .v6 = true, __VA_ARGS__ \
	}
const struct script tcp_v6_scripts[] = {
	SC(v6_mss, .mss = 1460),
	SC(v6_mss_peer, .mss = 1460),
	SC(v6_per_net64, .per_src = 2, .per_net6 = 3),
	SC(v6_closed_port),
	SC(v6_mcast_dst),
	SC(v6_listen_addr, .listen6 = 9),
	SC(v6_listen_addr_own, .listen6 = 1),
};

const unsigned int tcp_v6_nscripts = RTE_DIM(tcp_v6_scripts);
