/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the lib/strategy unit tests share: waits with a deadlock guard,
 * executors and strategies made or failed, the EAL worker lcore serving an
 * executor, pthreads registered as lcores, one-shot producers; and the
 * tests of test_strategy_load.c that test_strategy.c's main runs.
 */

#ifndef EWYK_TEST_STRATEGY_UTIL_H
#define EWYK_TEST_STRATEGY_UTIL_H

#include <pthread.h>
#include <stdint.h>

#include <ewyk_strategy.h>

#define WORKER_LCORE 1
#define GUARD_S 20.0

/* A pthread registered as an lcore, free to run on any CPU. */
struct lthread {
	pthread_t tid;
	void (*fn)(void *);
	void *arg;
};

/* A registered thread serving an executor until quit. */
struct srv {
	struct ewyk_strategy_executor *ex;
	uint32_t quit;
};

/* What rec_fn() saw: the record of one task. */
struct rec {
	uint64_t runs;      /* invocations */
	int mode;           /* last mode */
	unsigned int lcore; /* lcore it ran on */
	int cur_mode;       /* ewyk_strategy_current_mode() inside */
};

/* One-shot producer (list_produce()): yields a fixed list of tasks once. */
struct list_prod {
	struct ewyk_strategy_task *tasks;
	unsigned int n, next;
	unsigned int calls_after_first; /* produce calls after the list */
	unsigned int last_lcore;        /* lcore of the last call */
};

/* Monotonic seconds. */
double now_s(void);
/* Wait (yielding) for a value, an idle count, an idle producer; -1 when
 * the deadlock guard fires. */
int wait_u64(const uint64_t *v, uint64_t want, double guard_s);
int wait_idle_count(struct ewyk_strategy_executor *ex, unsigned int want);
int wait_producer_idle(struct ewyk_strategy_producer *p);
/* Made or the test fails. */
struct ewyk_strategy_executor *mk_executor(const char *name, uint32_t ring,
	uint32_t spin_us);
struct ewyk_strategy *mk_strategy(const char *name, enum ewyk_strategy_kind k,
	struct ewyk_strategy_executor *ex);
/* WORKER_LCORE serves ex / stops serving it. */
void serve_on_worker(struct ewyk_strategy_executor *ex);
void stop_worker(struct ewyk_strategy_executor *ex);
/* A pthread registered as an lcore runs fn(arg); join it. */
void lthread_start(struct lthread *t, void (*fn)(void *), void *arg);
void lthread_join(struct lthread *t);
/* Serves x->ex (struct srv) until x->quit. */
void srv_fn(void *arg);
/* A task that fills the struct rec it is given. */
void rec_fn(void *arg, enum ewyk_strategy_mode mode);
unsigned int list_produce(void *ctx, struct ewyk_strategy_task *out,
	unsigned int max);
/* Run one task of inv through a producer of s; return its record. */
void run_one(struct ewyk_strategy *s, uint32_t inv, struct rec *r,
	unsigned int *prod_lcore);

/* Blocks until g->open, counting entries and noting its lcore. */
struct gate {
	uint32_t open;
	uint64_t entered;
	unsigned int lcore;
};

void gate_job(void *arg);
/* Does nothing. */
void nop_job(void *arg);
/* Counts its runs per mode in a struct cnt. */
struct cnt {
	uint64_t run[EWYK_STRATEGY_MODE_MAX];
};

void cnt_fn(void *arg, enum ewyk_strategy_mode mode);

/* test_strategy_producer.c */
void test_reproducing(void **state);
void test_polling_stop(void **state);
void test_chaining(void **state);
void test_nested_in_produce(void **state);
void test_homecoming(void **state);

/* test_strategy_executor.c */
void test_pec_first_free(void **state);
void test_pec_deadline(void **state);
void test_depart_hook(void **state);
void test_spin_keep(void **state);
void test_serve_no_ring(void **state);
void test_serve_ring_only(void **state);

/* test_strategy_load.c */
void test_exactly_once_pc(void **state);
void test_exactly_once_pec(void **state);
void test_exactly_once_epc(void **state);
void test_exactly_once_adaptive(void **state);
void test_no_starvation_adaptive(void **state);
void test_starvation_shape_pc(void **state);

#endif /* EWYK_TEST_STRATEGY_UTIL_H */
