/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_TCP_FLOW_H
#define EWYK_TCP_FLOW_H

/**
 * @file
 * lib/tcp's lookups: a connection by its 4-tuple, a shard's context, the
 * shard that owns a flow (part of ewyk_tcp.h, which includes it after its
 * own declarations: include ewyk_tcp.h).
 */

#include <stdint.h>

#include <rte_byteorder.h>

#include "ewyk_tcp.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Find a connection by its 4-tuple (tests, debugging). Token holder only.
 *
 * @param t
 *   context
 * @param local_ip
 *   our address
 * @param local_port
 *   our port
 * @param remote_ip
 *   the peer's address
 * @param remote_port
 *   the peer's port
 * @return
 *   the connection (TIME_WAIT ones included), or NULL.
 */
struct ewyk_tcp_conn *ewyk_tcp_lookup(struct ewyk_tcp *t, rte_be32_t local_ip,
	uint16_t local_port, rte_be32_t remote_ip, uint16_t remote_port);

/**
 * Find an IPv6 connection by its 4-tuple (tests, debugging).
 *
 * @param t            context
 * @param local_ip     our address
 * @param local_port   our port
 * @param remote_ip    the peer's address
 * @param remote_port  the peer's port
 * @return the connection (TIME_WAIT ones included), or NULL.
 */
struct ewyk_tcp_conn *ewyk_tcp_lookup6(struct ewyk_tcp *t,
	const uint8_t local_ip[16], uint16_t local_port,
	const uint8_t remote_ip[16], uint16_t remote_port);

/**
 * @param t
 *   context
 * @return
 *   the shard it serves, or NULL (no lib/net, or a NULL @p t).
 */
struct ewyk_net_shard *ewyk_tcp_shard(const struct ewyk_tcp *t);

/**
 * The context created for a shard (any thread; contexts are registered
 * when created with a shard and unregistered when freed).
 *
 * @param shard_id
 *   shard index
 * @return
 *   the context, or NULL.
 */
struct ewyk_tcp *ewyk_tcp_get(uint16_t shard_id);

/**
 * Which shard owns a flow when the port has RSS with lib/net's symmetric
 * key and the PMD's default RETA, or when the shards steer in software
 * (the same hash).
 *
 * @param local_ip
 *   our address
 * @param local_port
 *   our port
 * @param remote_ip
 *   the peer's address
 * @param remote_port
 *   the peer's port
 * @param nb_shards
 *   number of shards
 * @return
 *   the shard index in 0..nb_shards-1 (0 when nb_shards <= 1).
 */
uint16_t ewyk_tcp_flow_shard(rte_be32_t local_ip, uint16_t local_port,
	rte_be32_t remote_ip, uint16_t remote_port, uint16_t nb_shards);

/**
 * @ref ewyk_tcp_flow_shard for an IPv6 flow (the NIC's IPv6 TCP hash:
 * addresses and ports).
 *
 * @param local_ip     our address (16 bytes)
 * @param local_port   our port
 * @param remote_ip    the peer's address (16 bytes)
 * @param remote_port  the peer's port
 * @param nb_shards    shards (RX queues)
 * @return the shard index.
 */
uint16_t ewyk_tcp_flow_shard6(const uint8_t local_ip[16], uint16_t local_port,
	const uint8_t remote_ip[16], uint16_t remote_port, uint16_t nb_shards);

#ifdef __cplusplus
}
#endif

#endif /* EWYK_TCP_FLOW_H */
