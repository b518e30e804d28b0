/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Who holds a shard, for assertions: the application records the lcore
 * holding the shard's producer token (ewyk_net_shard_hold() in its loop,
 * ewyk_net_shard_release() when production leaves), and the holder-only
 * calls of lib/net and lib/tcp RTE_ASSERT it in debug builds
 * (-DRTE_ENABLE_ASSERT). A shard nobody ever held is not checked.
 */

#include "net_private.h"

void
ewyk_net_shard_hold(struct ewyk_net_shard *s)
{
	if (s != NULL)
		s->holder = rte_lcore_id() + 1;
}

void
ewyk_net_shard_release(struct ewyk_net_shard *s)
{
	if (s != NULL)
		s->holder = NET_HOLDER_NONE;
}

int
ewyk_net_shard_held_here(const struct ewyk_net_shard *s)
{
	return s == NULL || s->holder == 0 || s->holder == rte_lcore_id() + 1;
}
