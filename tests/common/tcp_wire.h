/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two lib/tcp endpoints joined by an in-memory wire on a virtual clock,
 * for tests and fuzz targets: endpoint 0 (the server, with a timer wheel)
 * and endpoint 1 (the clients, which may connect from other addresses
 * than ip[1]: a segment carries the addresses its sender gave). Both
 * families: a client connecting over IPv6 gives its own address
 * (ewyk_tcp_connect_args.src_ip6); its segments reach the server's
 * ewyk_tcp_input6() with the addresses given. A segment one endpoint sends arrives at
 * the other 50 virtual microseconds later; tcp_wire_step() moves the clock,
 * delivers what is due and advances both endpoints and the wheel.
 */

#ifndef EWYK_TEST_TCP_WIRE_H
#define EWYK_TEST_TCP_WIRE_H

#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_mempool.h>

#include <ewyk_tcp.h>
#include <ewyk_twheel.h>

struct tcp_wire_pkt {
	struct rte_mbuf *m;
	uint64_t at_us;
	int to;
	rte_be32_t src, dst; /* as the sender's output gave them */
	bool v6;             /* IPv6: src6 and dst6 instead */
	uint8_t src6[16], dst6[16];
};

struct tcp_wire;

/** What an endpoint's output callback is given: its wire and its side. */
struct tcp_wire_end {
	struct tcp_wire *wr;
	int id;
};

struct tcp_wire {
	struct ewyk_tcp *t[2];  /* 0: server, 1: client */
	struct ewyk_twheel *w;  /* endpoint 0's wheel */
	rte_be32_t ip[2];       /* each endpoint's address */
	struct tcp_wire_pkt *q; /* in flight, cap at most (more: dropped) */
	struct tcp_wire_pkt *due;
	unsigned int nq, cap;
	uint64_t now_us, base, hz;
	struct tcp_wire_end end[2];
};

/**
 * Create both endpoints and the wheel; the clock starts at 0 us, one second
 * of TSC from now.
 *
 * @param wr
 *   The wire (zeroed first).
 * @param name
 *   Name of the wheel.
 * @param mp
 *   The endpoints' TX pool.
 * @param cap
 *   Segments the wire holds in flight.
 * @param max_conns
 *   Connections of each endpoint.
 * @param sip
 *   Endpoint 0's address.
 * @param cip
 *   Endpoint 1's address.
 * @return
 *   0, or -1 (what was made is freed).
 */
int tcp_wire_init(struct tcp_wire *wr, const char *name, struct rte_mempool *mp,
	unsigned int cap, uint32_t max_conns, rte_be32_t sip, rte_be32_t cip);

/**
 * Move the clock by us, deliver what is due, advance endpoints and wheel.
 *
 * @param wr
 *   The wire.
 * @param us
 *   Virtual microseconds.
 */
void tcp_wire_step(struct tcp_wire *wr, uint64_t us);

/**
 * Free both endpoints, what is still on the wire, and the wheel (free
 * whatever uses the wheel first).
 *
 * @param wr
 *   The wire; NULL members are skipped.
 */
void tcp_wire_free(struct tcp_wire *wr);

#endif /* EWYK_TEST_TCP_WIRE_H */
