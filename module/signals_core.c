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
 *
 * Lazy accounting
 * ---------------
 * A task switches in and out thousands of times a second, mostly within
 * one PELT period (~1 ms), and within a period the order of running,
 * waiting and sleeping does not matter to any signal: only how much of
 * each. So an event only adds the time since the previous one to the
 * state's total (inline, sl_signals_event()), as long as no clock has
 * reached the next period boundary of a signal on it. The signals are in
 * three groups by clock: wall (time, waiting), burst, model. The first
 * event past a group's boundary (fold_by_wall_ns; fold_by_burst_ns, on the
 * wall clock, which the burst clock never outruns; fold_by_model_ns) folds
 * what the group has not seen yet into its signals at once
 * (sl_pelt_update_within()), then accounts its own interval with the full
 * update; the other groups go on adding up. So each signal is updated
 * about once per period, whatever the rate of events. Reads fold a copy.
 * The result is the eager update at every event but for the rounding to
 * 1024 ns units, done once per fold instead of once per event (the host
 * tests compare both).
 */
#include "signals_core.h"

/* --- the three clock groups: fold what they have not seen, set fold_by --- */

static void wall_fold(struct sl_signals *s)
{
	u64 run = s->state_ns[SL_TASK_RUNNING] - s->wall_fold_ns[SL_TASK_RUNNING];
	u64 wait = s->state_ns[SL_TASK_WAITING] - s->wall_fold_ns[SL_TASK_WAITING];
	u64 sleep = s->state_ns[SL_TASK_SLEEPING] - s->wall_fold_ns[SL_TASK_SLEEPING];

	sl_pelt_update_within(&s->time, s->last_ns, run, wait + sleep,
			      SL_PELT_CAPACITY_SCALE);
	sl_pelt_update_within(&s->waiting, s->last_ns, wait, run + sleep,
			      SL_PELT_CAPACITY_SCALE);
}

static void wall_done(struct sl_signals *s)
{
	u64 a = sl_pelt_next_boundary(&s->time), b = sl_pelt_next_boundary(&s->waiting);

	s->wall_fold_ns[0] = s->state_ns[0];
	s->wall_fold_ns[1] = s->state_ns[1];
	s->wall_fold_ns[2] = s->state_ns[2];
	s->fold_by_wall_ns = a < b ? a : b;
}

static void burst_fold(struct sl_signals *s)
{
	u64 run = s->state_ns[SL_TASK_RUNNING] - s->burst_fold_ns[SL_TASK_RUNNING];
	u64 sleep = s->state_ns[SL_TASK_SLEEPING] - s->burst_fold_ns[SL_TASK_SLEEPING];

	s->burst_clock_ns += run + sleep;
	sl_pelt_update_within(&s->burst, s->burst_clock_ns, run, sleep,
			      SL_PELT_CAPACITY_SCALE);
}

/* @now_ns: the wall time at which the burst clock reads burst_clock_ns */
static void burst_done(struct sl_signals *s, u64 now_ns)
{
	s->burst_fold_ns[0] = s->state_ns[0];
	s->burst_fold_ns[1] = s->state_ns[1];
	s->burst_fold_ns[2] = s->state_ns[2];
	s->fold_by_burst_ns = now_ns + (sl_pelt_next_boundary(&s->burst) - s->burst_clock_ns);
}

static void model_fold(struct sl_signals *s)
{
	/* the model's scale is already in its clock (or 1024 on the host) */
	if ((s64)(s->last_model_ns - s->model.last_update_time) > 0)
		sl_pelt_update_within(&s->model, s->last_model_ns,
				      s->pend_model_run_ns,
				      s->last_model_ns - s->fold_model_ns -
				      s->pend_model_run_ns, SL_PELT_CAPACITY_SCALE);
}

static void model_done(struct sl_signals *s)
{
	s->fold_model_ns = s->last_model_ns;
	s->pend_model_run_ns = 0;
	s->fold_by_model_ns = sl_pelt_next_boundary(&s->model);
}

static void set_fold_by(struct sl_signals *s)
{
	s->fold_by_ns = s->fold_by_wall_ns < s->fold_by_burst_ns ?
			s->fold_by_wall_ns : s->fold_by_burst_ns;
}

void sl_signals_init(struct sl_signals *s, u64 now_ns, u64 model_ns,
		     unsigned int state, unsigned long util_seed)
{
	unsigned int i;

	s->last_ns = now_ns;
	s->last_model_ns = model_ns;
	s->burst_clock_ns = now_ns;
	s->state = state;
	for (i = 0; i < SL_TASK_NR_STATES; i++)
		s->state_ns[i] = 0;
	sl_pelt_init(&s->model, model_ns, util_seed);
	sl_pelt_init(&s->burst, now_ns, util_seed);
	sl_pelt_init(&s->waiting, now_ns, 0);
	sl_pelt_init(&s->time, now_ns, util_seed);
	wall_done(s);
	burst_done(s, now_ns);
	model_done(s);
	set_fold_by(s);
}

/**
 * sl_signals_sync - fold the time added up by events into the signals
 * @s: the task's signals, which then all stand at the last event
 */
void sl_signals_sync(struct sl_signals *s)
{
	wall_fold(s);
	wall_done(s);
	burst_fold(s);
	burst_done(s, s->last_ns);
	model_fold(s);
	model_done(s);
	set_fold_by(s);
}

/*
 * Account [last_ns, now_ns] in the current state, with the full update for
 * the groups in @groups (which must have nothing left to fold) and by
 * adding up for the others; then move last_ns to @now_ns.
 */
#define GROUP_WALL	1
#define GROUP_BURST	2
#define GROUP_MODEL	4
#define GROUP_ALL	7

static void advance(struct sl_signals *s, u64 now_ns, u64 model_ns,
		    unsigned long scale, unsigned int groups)
{
	bool running = s->state == SL_TASK_RUNNING;
	bool waiting = s->state == SL_TASK_WAITING;
	u64 delta;

	/* events from CPUs whose clocks disagree slightly: never go back */
	if ((s64)(now_ns - s->last_ns) < 0)
		now_ns = s->last_ns;
	delta = now_ns - s->last_ns;
	s->state_ns[s->state] += delta;
	s->last_ns = now_ns;
	if (groups & GROUP_WALL) {
		sl_pelt_update(&s->waiting, now_ns, waiting, SL_PELT_CAPACITY_SCALE);
		sl_pelt_update(&s->time, now_ns, running, SL_PELT_CAPACITY_SCALE);
		wall_done(s);
	}
	if (groups & GROUP_BURST) {
		if (!waiting) {
			s->burst_clock_ns += delta;
			sl_pelt_update(&s->burst, s->burst_clock_ns, running,
				       SL_PELT_CAPACITY_SCALE);
		}
		burst_done(s, now_ns);
	}
	if (groups & GROUP_MODEL) {
		/* a model clock behind the model (another CPU's) accounts nothing */
		if ((s64)(model_ns - s->model.last_update_time) > 0)
			sl_pelt_update(&s->model, model_ns, running, scale);
		if ((s64)(model_ns - s->last_model_ns) > 0)
			s->last_model_ns = model_ns;
		model_done(s);
	} else {
		/* sl_signals_event() checked the model clock moves forward */
		if (running)
			s->pend_model_run_ns += model_ns - s->last_model_ns;
		s->last_model_ns = model_ns;
	}
	set_fold_by(s);
}

/*
 * The general case of sl_signals_event() (signals_core.h): the groups
 * whose next boundary the event reaches are folded and updated in full,
 * the others add up.
 */
void sl_signals_event_slow(struct sl_signals *s, u64 now_ns, u64 model_ns,
			   unsigned int new_state, unsigned long scale)
{
	unsigned int groups = 0;

	if ((s64)(now_ns - s->fold_by_wall_ns) >= 0 || (s64)(now_ns - s->last_ns) < 0) {
		wall_fold(s);
		groups |= GROUP_WALL;
	}
	if ((s64)(now_ns - s->fold_by_burst_ns) >= 0 || (s64)(now_ns - s->last_ns) < 0) {
		burst_fold(s);
		groups |= GROUP_BURST;
	}
	if ((s64)(model_ns - s->fold_by_model_ns) >= 0 ||
	    (s64)(model_ns - s->last_model_ns) < 0) {
		model_fold(s);
		groups |= GROUP_MODEL;
	}
	advance(s, now_ns, model_ns, scale, groups);
	s->state = new_state;
}

/* The signals as they would be at @now_ns, without changing @s. */
void sl_signals_read(const struct sl_signals *s, u64 now_ns, u64 model_ns,
		     unsigned long scale, struct sl_signal_values *v)
{
	struct sl_signals t = *s;

	sl_signals_sync(&t);
	advance(&t, now_ns, model_ns, scale, GROUP_ALL);
	v->model = t.model.util_avg;
	v->burst = t.burst.util_avg;
	v->waiting = t.waiting.util_avg;
	v->time = t.time.util_avg;
	v->running_ns = t.state_ns[SL_TASK_RUNNING];
	v->waiting_ns = t.state_ns[SL_TASK_WAITING];
	v->sleeping_ns = t.state_ns[SL_TASK_SLEEPING];
}

/* The model alone at @model_ns, from synced signals @s. */
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
	sl_signals_sync(s);
	advance(s, now_ns, model_ns, SL_PELT_CAPACITY_SCALE, GROUP_ALL);
	sl_pelt_init(&s->model, model_ns, util);
	s->last_model_ns = model_ns;
	model_done(s);
}

/**
 * sl_mean - the mean of @n values totalling @sum, in @unit: @sum / @n / @unit
 * @sum: the values' total
 * @n: how many; the mean is 0 if none
 * @unit: e.g. NSEC_PER_USEC for a total in ns and a mean in us
 *
 * With 64-bit divisors throughout: div_u64()'s divisor is 32 bits, so
 * div_u64(sum, n * unit) is wrong once n * unit reaches 2^32 (n above
 * 4294967 for ns to us) and a divide error where it is a multiple of 2^32;
 * floor(floor(sum / n) / unit) is floor(sum / (n * unit)) without the
 * product.
 */
u64 sl_mean(u64 sum, u64 n, u32 unit)
{
	return n ? div_u64(div64_u64(sum, n), unit ?: 1) : 0;
}
