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

#ifndef __KERNEL__
static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}
#endif

enum sl_task_state {
	SL_TASK_SLEEPING,	/* dequeued: blocked or not yet woken */
	SL_TASK_WAITING,	/* enqueued, not running: waiting for the CPU */
	SL_TASK_RUNNING,
};

#define SL_TASK_NR_STATES	3

/*
 * The PELT signals are brought up to date lazily, per clock (see "Lazy
 * accounting" in signals_core.c): an event only adds the time since the
 * previous one to state_ns[] (and to pend_model_run_ns) until it reaches
 * the next period boundary of the signals on one clock (fold_by_*); then
 * those signals alone are folded forward. Reads fold a copy.
 */
struct sl_signals {
	u64 last_ns;		/* time of the last event */
	u64 last_model_ns;	/* the model's clock at the last event */
	unsigned int state;	/* enum sl_task_state since last_ns */
	u64 state_ns[SL_TASK_NR_STATES];	/* total time in each state */
	u64 fold_by_ns;		/* min(fold_by_wall_ns, fold_by_burst_ns) */
	u64 fold_by_model_ns;	/* the model clock's next boundary */
	/* wall clock: time and waiting, folded up to wall_fold_ns[] */
	u64 wall_fold_ns[SL_TASK_NR_STATES];
	u64 fold_by_wall_ns;
	/* burst clock: folded up to burst_fold_ns[], where it read burst_clock_ns */
	u64 burst_fold_ns[SL_TASK_NR_STATES];
	u64 burst_clock_ns;	/* advances only while running or sleeping */
	u64 fold_by_burst_ns;	/* on the wall clock, which runs no slower */
	/* model clock: folded up to fold_model_ns, but pend_model_run_ns */
	u64 fold_model_ns;
	u64 pend_model_run_ns;
	struct sl_pelt_avg model;	/* PELT like the kernel's util_avg */
	struct sl_pelt_avg burst;	/* util_burst: PELT on burst_clock_ns */
	struct sl_pelt_avg waiting;	/* waiting_avg: PELT of waiting time */
	struct sl_pelt_avg time;	/* time-domain util: no invariance */
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
void sl_signals_event_slow(struct sl_signals *s, u64 now_ns, u64 model_ns,
			   unsigned int new_state, unsigned long scale);
void sl_signals_sync(struct sl_signals *s);
void sl_signals_read(const struct sl_signals *s, u64 now_ns, u64 model_ns,
		     unsigned long scale, struct sl_signal_values *v);
unsigned long sl_signals_model_at(const struct sl_signals *s, u64 model_ns,
				  unsigned long scale);
void sl_signals_reseed_model(struct sl_signals *s, u64 now_ns, u64 model_ns,
			     unsigned long util);
u64 sl_mean(u64 sum, u64 n, u32 unit);

/**
 * sl_signals_event - the task enters @new_state at @now_ns
 * @scale: capacity * frequency of the CPU it ran on since the last event
 *
 * Inline for the common case of an event in the same PELT period as the
 * last fold (a context switch, usually): only the time is added up.
 */
static inline void sl_signals_event(struct sl_signals *s, u64 now_ns,
				    u64 model_ns, unsigned int new_state,
				    unsigned long scale)
{
	u64 delta = now_ns - s->last_ns;

	if ((s64)delta < 0 || now_ns >= s->fold_by_ns ||
	    (s64)(model_ns - s->last_model_ns) < 0 ||
	    model_ns >= s->fold_by_model_ns) {
		sl_signals_event_slow(s, now_ns, model_ns, new_state, scale);
		return;
	}
	s->state_ns[s->state] += delta;
	if (s->state == SL_TASK_RUNNING)
		s->pend_model_run_ns += model_ns - s->last_model_ns;
	s->last_ns = now_ns;
	s->last_model_ns = model_ns;
	s->state = new_state;
}

#endif /* SCHEDLAB_SIGNALS_CORE_H */
