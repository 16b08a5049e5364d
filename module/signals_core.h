/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDLAB_SIGNALS_CORE_H
#define SCHEDLAB_SIGNALS_CORE_H

/*
 * signals_core: one task's utilization signals, computed from its state
 * changes (running, runnable but waiting, sleeping). Kernel-agnostic: the
 * module feeds it scheduler events, the host tests synthetic ones. The
 * definitions are in signals_core.c and docs/signals.md.
 */
#include "pelt_core.h"

enum sl_task_state {
	SL_TASK_SLEEPING,	/* dequeued: blocked or not yet woken */
	SL_TASK_WAITING,	/* enqueued, not running: waiting for the CPU */
	SL_TASK_RUNNING,
};

struct sl_signals {
	u64 last_ns;		/* time of the last event */
	u64 burst_clock_ns;	/* advances only while running or sleeping */
	unsigned int state;	/* enum sl_task_state since last_ns */
	struct sl_pelt_avg model;	/* PELT like the kernel's util_avg */
	struct sl_pelt_avg burst;	/* util_burst: PELT on burst_clock_ns */
	struct sl_pelt_avg waiting;	/* waiting_avg: PELT of waiting time */
	struct sl_pelt_avg time;	/* time-domain util: no invariance */
	u64 running_ns, waiting_ns, sleeping_ns;	/* totals */
};

/* The values of the signals at some instant. */
struct sl_signal_values {
	unsigned long model, burst, waiting, time;
	u64 running_ns, waiting_ns, sleeping_ns;
};

/*
 * @now_ns: wall-clock time of the event; @model_ns: the same instant on the
 * model's clock (the kernel's PELT clock of the task's CPU, in the module;
 * the same as @now_ns in the host tests); @scale: invariance of the model's
 * running contribution (1024 where the clock already carries it).
 */
void sl_signals_init(struct sl_signals *s, u64 now_ns, u64 model_ns,
		     unsigned int state, unsigned long util_seed);
void sl_signals_event(struct sl_signals *s, u64 now_ns, u64 model_ns,
		      unsigned int new_state, unsigned long scale);
void sl_signals_read(const struct sl_signals *s, u64 now_ns, u64 model_ns,
		     unsigned long scale, struct sl_signal_values *v);
unsigned long sl_signals_model_at(const struct sl_signals *s, u64 model_ns,
				  unsigned long scale);
void sl_signals_reseed_model(struct sl_signals *s, u64 now_ns, u64 model_ns,
			     unsigned long util);

#endif /* SCHEDLAB_SIGNALS_CORE_H */
