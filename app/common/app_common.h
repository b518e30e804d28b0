/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What ewyk-httpd and ewyk-loadgen both do at start: EAL init, option
 * numbers and addresses, the lcore list, per-lcore mbuf pools, the network
 * context and its shards, waiting for a link. Application code, not
 * framework API: it prints its errors on stderr, as the apps do.
 */

#ifndef EWYK_APP_COMMON_H
#define EWYK_APP_COMMON_H

#include <getopt.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_ethdev.h>
#include <rte_mempool.h>

#include <ewyk_net.h>

/**
 * Initialise the EAL and drop its arguments.
 *
 * @param argc
 *   In: the process's argc; out: the count of application arguments.
 * @param argv
 *   In: the process's argv; out: the application arguments, argv[0]
 *   set to prog.
 * @param prog
 *   The program name.
 * @return
 *   0, or -1 (printed).
 */
int ewyk_app_eal_init(int *argc, char ***argv, const char *prog);

/**
 * Parse the application arguments with getopt_long: -h/--help prints the
 * usage and exits 0; every other option goes to parse; a non-option
 * argument is an error.
 *
 * @param argc
 *   Count of application arguments.
 * @param argv
 *   The application arguments (argv[0]: the program).
 * @param opts
 *   The long options, "help" mapped to 'h'.
 * @param usage
 *   Prints the usage.
 * @param parse
 *   Takes one option: 0, or -1 (printed).
 * @param conf
 *   Passed to parse.
 * @return
 *   0, or -1 (printed).
 */
int ewyk_app_parse_opts(int argc, char **argv, const struct option *opts,
	void (*usage)(const char *prog),
	int (*parse)(void *conf, int o, const char *arg), void *conf);

/**
 * A decimal number in [min, max], no sign.
 *
 * @param s
 *   The text.
 * @param min
 *   Lowest value accepted.
 * @param max
 *   Highest value accepted.
 * @param out
 *   The value, on success.
 * @return
 *   0, or -1 (nothing printed).
 */
int ewyk_app_parse_ulong(const char *s, unsigned long min, unsigned long max,
	unsigned long *out);

/**
 * The numeric value of option --name, in [min, max].
 *
 * @param name
 *   The option, without "--", for the message.
 * @param s
 *   The text.
 * @param min
 *   Lowest value accepted.
 * @param max
 *   Highest value accepted.
 * @param out
 *   The value, on success.
 * @return
 *   0, or -1 (printed: "error: --name 's': expected min..max").
 */
int ewyk_app_opt_ulong(const char *name, const char *s, unsigned long min,
	unsigned long max, unsigned long *out);

/**
 * "A.B.C.D<sep>N": an address other than 0.0.0.0 and a number in 1..max
 * ("A.B.C.D/NN" with sep '/', "A.B.C.D:PORT" with sep ':').
 *
 * @param s
 *   The text.
 * @param sep
 *   The separator.
 * @param max
 *   Highest number accepted.
 * @param ip
 *   The address (network order), on success.
 * @param n
 *   The number, on success.
 * @return
 *   0, or -1 (nothing printed).
 */
int ewyk_app_parse_ip_num(const char *s, char sep, unsigned long max,
	rte_be32_t *ip, unsigned long *n);

/**
 * The EAL's lcores, the main lcore first, then the workers in order.
 *
 * @param ids
 *   Filled with the lcore ids.
 * @param max
 *   Room in ids.
 * @return
 *   The count, or -1 (printed) when there are more than max.
 */
int ewyk_app_lcores(unsigned int *ids, unsigned int max);

/**
 * The mbuf pool of one lcore, on its socket.
 *
 * @param prefix
 *   Name prefix; the pool is "<prefix><idx>".
 * @param idx
 *   Index of the pool.
 * @param nb_mbufs
 *   Its size.
 * @param lcore_id
 *   The lcore that uses it (its socket is the pool's).
 * @param ops
 *   Mempool ops name, or NULL for DPDK's choice.
 * @return
 *   The pool, or NULL (printed).
 */
struct rte_mempool *ewyk_app_pool_create(const char *prefix, unsigned int idx,
	unsigned int nb_mbufs, unsigned int lcore_id, const char *ops);

/**
 * A network context for nb_shards shards.
 *
 * @param nb_shards
 *   The count of shards.
 * @return
 *   The context, or NULL (printed).
 */
struct ewyk_net *ewyk_app_net_create(uint16_t nb_shards);

/**
 * Add a port to the network context.
 *
 * @param net
 *   The context.
 * @param pc
 *   The port's configuration.
 * @param info
 *   Filled with what the port got.
 * @return
 *   0, or -1 (printed).
 */
int ewyk_app_port_add(struct ewyk_net *net, const struct ewyk_net_port_conf *pc,
	struct ewyk_net_port_info *info);

/**
 * Shard idx of the network context, homed on lcore_id.
 *
 * @param net
 *   The context.
 * @param idx
 *   The shard.
 * @param lcore_id
 *   Its home lcore (its socket is the shard's).
 * @param pool
 *   Its mbuf pool.
 * @return
 *   The shard, or NULL (printed).
 */
struct ewyk_net_shard *ewyk_app_shard_create(struct ewyk_net *net, uint16_t idx,
	unsigned int lcore_id, struct rte_mempool *pool);

/**
 * Wait up to 3 s for a port's link (af_packet and memif come up fast).
 *
 * @param port_id
 *   The port.
 * @param link
 *   Filled with the last link status read.
 * @return
 *   1 if the link is up, 0 if not.
 */
int ewyk_app_wait_link(uint16_t port_id, struct rte_eth_link *link);

#endif /* EWYK_APP_COMMON_H */
