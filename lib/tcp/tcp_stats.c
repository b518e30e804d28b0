/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters: names, per-context reads, sums over the contexts of every
 * shard, and the telemetry commands /ewyk/tcp/stats and
 * /ewyk/tcp/shard_stats,<id>.
 */

#include <stdlib.h>

#include <rte_telemetry.h>

#include "tcp_private.h"

/* The per-shard array of contexts (written at create/free only). */
static struct ewyk_tcp *tcp_registry[EWYK_NET_MAX_SHARDS];

static const char *const ctr_names[EWYK_TCP_COUNTER_MAX] = {
	[EWYK_TCP_SEG_IN] = "seg_in",
	[EWYK_TCP_SEG_OUT] = "seg_out",
	[EWYK_TCP_BYTES_IN] = "bytes_in",
	[EWYK_TCP_BYTES_OUT] = "bytes_out",
	[EWYK_TCP_RETRANS_SEGS] = "retrans_segs",
	[EWYK_TCP_RETRANS_BYTES] = "retrans_bytes",
	[EWYK_TCP_FAST_RETRANS] = "fast_retrans",
	[EWYK_TCP_SACK_RETRANS] = "sack_retrans",
	[EWYK_TCP_PARTIAL_ACKS] = "partial_acks",
	[EWYK_TCP_LOST_RETRANS] = "lost_retrans",
	[EWYK_TCP_RTO] = "rto",
	[EWYK_TCP_TLP_PROBES] = "tlp_probes",
	[EWYK_TCP_SYN_RETRANS] = "syn_retrans",
	[EWYK_TCP_DUPACKS_IN] = "dupacks_in",
	[EWYK_TCP_SACK_BLOCKS_IN] = "sack_blocks_in",
	[EWYK_TCP_SACK_BLOCKS_OUT] = "sack_blocks_out",
	[EWYK_TCP_OOO_QUEUED] = "ooo_queued",
	[EWYK_TCP_PERSIST_PROBES] = "persist_probes",
	[EWYK_TCP_KEEPALIVE_PROBES] = "keepalive_probes",
	[EWYK_TCP_DELAYED_ACKS] = "delayed_acks",
	[EWYK_TCP_QUICK_ACKS] = "quick_acks",
	[EWYK_TCP_WINDOW_UPDATES] = "window_updates",
	[EWYK_TCP_CHALLENGE_ACKS] = "challenge_acks",
	[EWYK_TCP_CHALLENGE_LIMITED] = "challenge_limited",
	[EWYK_TCP_RST_IN] = "rst_in",
	[EWYK_TCP_RST_OUT] = "rst_out",
	[EWYK_TCP_SYNCOOKIES_SENT] = "syncookies_sent",
	[EWYK_TCP_SYNCOOKIES_OK] = "syncookies_ok",
	[EWYK_TCP_PASSIVE_OPENS] = "passive_opens",
	[EWYK_TCP_ACTIVE_OPENS] = "active_opens",
	[EWYK_TCP_ESTABLISHED_CONNS] = "established",
	[EWYK_TCP_CONN_CLOSED] = "conn_closed",
	[EWYK_TCP_CONN_RESET] = "conn_reset",
	[EWYK_TCP_CONN_ABORTED] = "conn_aborted",
	[EWYK_TCP_CONN_TIMEOUT] = "conn_timeout",
	[EWYK_TCP_TW_REUSE] = "tw_reuse",
	[EWYK_TCP_TW_OVERFLOW] = "tw_overflow",
	[EWYK_TCP_SEND_REFUSED] = "send_refused",
	[EWYK_TCP_DROP_SHORT] = "drop_short",
	[EWYK_TCP_DROP_DOFF] = "drop_doff",
	[EWYK_TCP_DROP_CKSUM] = "drop_cksum",
	[EWYK_TCP_DROP_OPTIONS] = "drop_options",
	[EWYK_TCP_DROP_FLAGS] = "drop_flags",
	[EWYK_TCP_DROP_PORT] = "drop_port",
	[EWYK_TCP_DROP_NO_LISTENER] = "drop_no_listener",
	[EWYK_TCP_DROP_OUT_OF_WINDOW] = "drop_out_of_window",
	[EWYK_TCP_DROP_PAWS] = "drop_paws",
	[EWYK_TCP_DROP_BAD_ACK] = "drop_bad_ack",
	[EWYK_TCP_DROP_NO_ACK] = "drop_no_ack",
	[EWYK_TCP_DROP_RST] = "drop_rst",
	[EWYK_TCP_DROP_SYN] = "drop_syn",
	[EWYK_TCP_DROP_STATE] = "drop_state",
	[EWYK_TCP_DROP_OOO_FULL] = "drop_ooo_full",
	[EWYK_TCP_DROP_BACKLOG] = "drop_backlog",
	[EWYK_TCP_DROP_COOKIE] = "drop_cookie",
	[EWYK_TCP_DROP_NO_CONN_MEM] = "drop_no_conn_mem",
	[EWYK_TCP_DROP_NO_MBUF] = "drop_no_mbuf",
	[EWYK_TCP_DROP_STEERED] = "drop_steered",
	/* hardening (issue 13) */
	[EWYK_TCP_DROP_NO_TS] = "drop_no_ts",
	[EWYK_TCP_OOW_LIMITED] = "oow_limited",
	[EWYK_TCP_IDLE_TIMEOUT] = "idle_timeout",
	[EWYK_TCP_ORPHAN_TIMEOUT] = "orphan_timeout",
	[EWYK_TCP_PERSIST_TIMEOUT] = "persist_timeout",
	[EWYK_TCP_DROP_SRC_LIMIT] = "drop_src_limit",
	[EWYK_TCP_RST_LIMITED] = "rst_limited",
	[EWYK_TCP_DROP_AFTER_FIN] = "drop_after_fin",
	[EWYK_TCP_SEND_COALESCED] = "send_coalesced",
	[EWYK_TCP_DROP_OOO_BUDGET] = "drop_ooo_budget",
};

const char *
ewyk_tcp_counter_name(enum ewyk_tcp_counter c)
{
	if ((unsigned int)c >= EWYK_TCP_COUNTER_MAX)
		return NULL;
	return ctr_names[c];
}

uint64_t
ewyk_tcp_counter_get(const struct ewyk_tcp *t, enum ewyk_tcp_counter c)
{
	if (t == NULL || (unsigned int)c >= EWYK_TCP_COUNTER_MAX)
		return 0;
	return __atomic_load_n(&t->ctr[c], __ATOMIC_RELAXED);
}

uint64_t
ewyk_tcp_state_count(const struct ewyk_tcp *t, enum ewyk_tcp_state s)
{
	if (t == NULL || (unsigned int)s >= EWYK_TCP_STATE_MAX)
		return 0;
	return __atomic_load_n(&t->states[s], __ATOMIC_RELAXED);
}

struct ewyk_tcp *
ewyk_tcp_get(uint16_t shard_id)
{
	if (shard_id >= EWYK_NET_MAX_SHARDS)
		return NULL;
	return __atomic_load_n(&tcp_registry[shard_id], __ATOMIC_ACQUIRE);
}

uint64_t
ewyk_tcp_counter_sum(enum ewyk_tcp_counter c)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < EWYK_NET_MAX_SHARDS; i++)
		sum += ewyk_tcp_counter_get(ewyk_tcp_get((uint16_t)i), c);
	return sum;
}

int
tcp_registry_check(uint16_t shard_id)
{
	if (shard_id >= EWYK_NET_MAX_SHARDS)
		return -EINVAL;
	return ewyk_tcp_get(shard_id) != NULL ? -EEXIST : 0;
}

void
tcp_registry_add(struct ewyk_tcp *t)
{
	__atomic_store_n(&tcp_registry[t->shard_id], t, __ATOMIC_RELEASE);
	t->registered = true;
}

void
tcp_registry_del(struct ewyk_tcp *t)
{
	__atomic_store_n(&tcp_registry[t->shard_id], NULL, __ATOMIC_RELEASE);
	t->registered = false;
}

static const char *const state_names_lc[EWYK_TCP_STATE_MAX] = {
	"closed", "listen", "syn_sent", "syn_received", "established",
	"fin_wait_1", "fin_wait_2", "close_wait", "closing", "last_ack",
	"time_wait",
};

static void
fill_dict(struct rte_tel_data *d, int shard)
{
	unsigned int c, s;

	rte_tel_data_start_dict(d);
	for (c = 0; c < EWYK_TCP_COUNTER_MAX; c++) {
		uint64_t v = shard < 0 ?
			ewyk_tcp_counter_sum((enum ewyk_tcp_counter)c) :
			ewyk_tcp_counter_get(ewyk_tcp_get((uint16_t)shard),
					(enum ewyk_tcp_counter)c);

		rte_tel_data_add_dict_u64(d, ctr_names[c], v);
	}
	for (s = EWYK_TCP_SYN_SENT; s < EWYK_TCP_STATE_MAX; s++) {
		char key[32];
		uint64_t v = 0;
		unsigned int i;

		for (i = 0; i < EWYK_NET_MAX_SHARDS; i++) {
			if (shard >= 0 && (int)i != shard)
				continue;
			v += ewyk_tcp_state_count(ewyk_tcp_get((uint16_t)i),
					(enum ewyk_tcp_state)s);
		}
		snprintf(key, sizeof(key), "state_%s", state_names_lc[s]);
		rte_tel_data_add_dict_u64(d, key, v);
	}
}

static int
tel_stats(const char *cmd __rte_unused, const char *params __rte_unused,
		struct rte_tel_data *d)
{
	fill_dict(d, -1);
	return 0;
}

static int
tel_shard_stats(const char *cmd __rte_unused, const char *params,
		struct rte_tel_data *d)
{
	char *end;
	unsigned long id;

	if (params == NULL || *params == '\0')
		return -EINVAL;
	id = strtoul(params, &end, 10);
	if (*end != '\0' || id >= EWYK_NET_MAX_SHARDS ||
			ewyk_tcp_get((uint16_t)id) == NULL)
		return -EINVAL;
	fill_dict(d, (int)id);
	return 0;
}

RTE_INIT(tcp_telemetry_init)
{
	rte_telemetry_register_cmd("/ewyk/tcp/stats", tel_stats,
			"TCP counters and connection states summed over shards.");
	rte_telemetry_register_cmd("/ewyk/tcp/shard_stats", tel_shard_stats,
			"TCP counters of one shard. Parameters: shard id");
}
