// SPDX-License-Identifier: GPL-2.0
/*
 * signals_core: utilization signals of one task, side by side.
 *
 * A task is, at any instant, RUNNING, WAITING (enqueued, runnable, but
 * another task has the CPU) or SLEEPING (dequeued). Each event says which
 * state the task enters; the time since the previous event was spent in the
 * previous state. Four PELT signals (pelt_core.c: 1024 ns units, periods of
 * 1024 units, y^32 = 1/2) are kept from the same events:
 *
 *   model    the kernel's util_avg as PELT computes it, on its own clock
 *            (@model_ns: in the module the kernel's PELT clock of the
 *            task's CPU, which already carries capacity and frequency
 *            invariance; else @scale does, 1024 = the biggest CPU at its
 *            top frequency): running time contributes, waiting and
 *            sleeping only decay it. It is seeded with the kernel's own
 *            util_avg when schedlab first sees the task (and again where
 *            the kernel re-bases it, a migration), and checked against it.
 *
 *   burst    util_burst: running time accumulated while the task stays
 *            enqueued, accounted at once when it dequeues, so that waiting
 *            behind other tasks is not mistaken for idling. Equivalently,
 *            PELT whose clock advances only while the task runs or sleeps,
 *            never while it waits: the run slices of one enqueued stretch
 *            then join into one burst, as if run back to back. Because
 *            waiting does not move that clock, reading the signal at any
 *            instant includes the pending burst; a task that never
 *            dequeues still shows it. Not invariant: it measures what the
 *            task needs of the CPU it runs on.
 *
 *   waiting  waiting_avg: PELT of the time spent runnable but not running
 *            (wall clock), 1024 = always waiting.
 *
 *   time     time-domain util: PELT of running time on the wall clock,
 *            without invariance, the signal a rampup-friendly util_est
 *            would start from.
 *
 * Two always-running tasks sharing a CPU each run half of the wall time:
 * model and time settle at their share (by weight), waiting at the rest,
 * while burst, whose clock only sees the running halves, rises to 1024.
 */
#include "signals_core.h"

void sl_signals_init(struct sl_signals *s, u64 now_ns, u64 model_ns,
		     unsigned int state, unsigned long util_seed)
{
	s->last_ns = now_ns;
	s->burst_clock_ns = now_ns;
	s->state = state;
	sl_pelt_init(&s->model, model_ns, util_seed);
	sl_pelt_init(&s->burst, now_ns, util_seed);
	sl_pelt_init(&s->waiting, now_ns, 0);
	sl_pelt_init(&s->time, now_ns, util_seed);
	s->running_ns = 0;
	s->waiting_ns = 0;
	s->sleeping_ns = 0;
}

/* account [last_ns, now_ns] in the current state */
static void advance(struct sl_signals *s, u64 now_ns, u64 model_ns,
		    unsigned long scale)
{
	bool running = s->state == SL_TASK_RUNNING;
	bool waiting = s->state == SL_TASK_WAITING;
	u64 delta;

	/* events from CPUs whose clocks disagree slightly: never go back */
	if ((s64)(now_ns - s->last_ns) < 0)
		now_ns = s->last_ns;
	delta = now_ns - s->last_ns;
	if (running)
		s->running_ns += delta;
	else if (waiting)
		s->waiting_ns += delta;
	else
		s->sleeping_ns += delta;
	if (!waiting) {
		s->burst_clock_ns += delta;
		sl_pelt_update(&s->burst, s->burst_clock_ns, running,
			       SL_PELT_CAPACITY_SCALE);
	}
	/* a model clock behind the model (another CPU's) accounts nothing */
	if ((s64)(model_ns - s->model.last_update_time) > 0)
		sl_pelt_update(&s->model, model_ns, running, scale);
	sl_pelt_update(&s->waiting, now_ns, waiting, SL_PELT_CAPACITY_SCALE);
	sl_pelt_update(&s->time, now_ns, running, SL_PELT_CAPACITY_SCALE);
	s->last_ns = now_ns;
}

/**
 * sl_signals_event - the task enters @new_state at @now_ns
 * @scale: capacity * frequency of the CPU it ran on since the last event
 */
void sl_signals_event(struct sl_signals *s, u64 now_ns, u64 model_ns,
		      unsigned int new_state, unsigned long scale)
{
	advance(s, now_ns, model_ns, scale);
	s->state = new_state;
}

/* The signals as they would be at @now_ns, without changing @s. */
void sl_signals_read(const struct sl_signals *s, u64 now_ns, u64 model_ns,
		     unsigned long scale, struct sl_signal_values *v)
{
	struct sl_signals t = *s;

	advance(&t, now_ns, model_ns, scale);
	v->model = t.model.util_avg;
	v->burst = t.burst.util_avg;
	v->waiting = t.waiting.util_avg;
	v->time = t.time.util_avg;
	v->running_ns = t.running_ns;
	v->waiting_ns = t.waiting_ns;
	v->sleeping_ns = t.sleeping_ns;
}

/* The model alone at @now_ns (cheaper than sl_signals_read()). */
unsigned long sl_signals_model_at(const struct sl_signals *s, u64 model_ns,
				  unsigned long scale)
{
	struct sl_pelt_avg m = s->model;

	if ((s64)(model_ns - m.last_update_time) > 0)
		sl_pelt_update(&m, model_ns, s->state == SL_TASK_RUNNING, scale);
	return m.util_avg;
}

/*
 * Restart the model from @util at @now_ns, after accounting the time so far:
 * where the kernel re-bases a task's signal (a migration) in a way the
 * events do not show.
 */
void sl_signals_reseed_model(struct sl_signals *s, u64 now_ns, u64 model_ns,
			     unsigned long util)
{
	advance(s, now_ns, model_ns, SL_PELT_CAPACITY_SCALE);
	sl_pelt_init(&s->model, model_ns, util);
}
