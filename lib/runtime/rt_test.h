/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EWYK_RT_TEST_H
#define EWYK_RT_TEST_H

/*
 * The runtime's seam for its unit tests (not installed, not exported):
 * a virtual clock, and the loop run one step at a time on the calling
 * lcore instead of ewyk_rt_run(), so that a test decides when frames are
 * read, results applied and deadlines passed.
 *
 *   ewyk_rt_create(), routes, modules
 *   rt_test_start()       what ewyk_rt_run() does before the lcores start
 *   rt_test_step() ...    the shard's loop until it finds nothing to do
 *   ewyk_rt_free()
 */

#include <stdint.h>

#include "ewyk_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ewyk_http2_server;

/**
 * Read time from @p now instead of the TSC: every loop iteration, the
 * default deadline of a job and a job's late check. NULL: the TSC again.
 * Libraries below the runtime get the loop's time from it.
 */
void rt_test_set_clock(uint64_t (*now)(void));

/**
 * Initialise every shard's HTTP server and run the modules' init hooks,
 * as ewyk_rt_run() does, without starting any lcore or thread.
 *
 * @return 0, or -1 (printed; ewyk_rt_free() still frees everything)
 */
int rt_test_start(struct ewyk_rt *rt);

/**
 * Run shard @p shard's loop on the calling lcore, through its producer
 * and the strategy (tasks are dispatched as in ewyk_rt_run()), until an
 * iteration yields no task; then production leaves the lcore (the
 * departure hooks run). Nobody else may run the shard meanwhile.
 *
 * @return the producer's status (EWYK_STRATEGY_PRODUCE_STOPPED), or
 *   -EINVAL
 */
int rt_test_step(struct ewyk_rt *rt, unsigned int shard);

/**
 * Run up to @p max of the tasks queued for the reserved lcores (PEC), in
 * their order, on the calling lcore, as a reserved lcore would.
 *
 * @return the number run
 */
unsigned int rt_test_run_queued(struct ewyk_rt *rt, unsigned int max);

/**
 * Dispatched HTTP requests of a shard whose task object is still held
 * (queued, running, or answering with a stream). Flushes the calling
 * lcore's cache of the task pool first.
 *
 * @return the count, or -1 without HTTP
 */
int rt_test_http_tasks(struct ewyk_rt *rt, unsigned int shard);

/**
 * The shard's HTTP/2 server (its counters: ewyk_http2_server_counter()).
 *
 * @return the server, or NULL without one
 */
struct ewyk_http2_server *rt_test_h2_server(struct ewyk_rt *rt,
	unsigned int shard);

#ifdef __cplusplus
}
#endif

#endif /* EWYK_RT_TEST_H */
