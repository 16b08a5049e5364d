// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of module/signals_core.c: the composition rules of the four
 * signals, checked against
 *  - the PELT core driven directly on the clock each definition names
 *    (util_burst of a task that waits between slices == an always-running
 *    signal updated at the same running-clock instants: exact);
 *  - a continuous-time floating-point PELT reference for the steady states
 *    (1024 * fraction of the time in the state), to 3% of 1024;
 *  - exact bookkeeping of the time spent in each state.
 * Prints "ok - ..." / "not ok - ..." lines; exit 1 if any failed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "signals_core.h"
#include "../lib/tap.h"

#define MS 1000000ULL


/* continuous PELT: u' relaxes to 1024*x with half-life 32 periods of 2^20 ns */
struct cref { double u; };
static void cref_run(struct cref *c, double ns, int on)
{
	double k = pow(0.5, ns / (32.0 * 1048576.0));

	c->u = c->u * k + (on ? 1024.0 * (1.0 - k) : 0.0);
}

/*
 * The eager reference: every signal updated at every event on its clock,
 * as signals_core.c defines them (before lazy accounting).
 */
struct eager {
	u64 last, burst_clock;
	unsigned int state;
	struct sl_pelt_avg model, burst, waiting, time;
	u64 ns[3];
};

static void eager_init(struct eager *e, u64 now, unsigned int state)
{
	memset(e, 0, sizeof(*e));
	e->last = e->burst_clock = now;
	e->state = state;
	sl_pelt_init(&e->model, now, 0);
	sl_pelt_init(&e->burst, now, 0);
	sl_pelt_init(&e->waiting, now, 0);
	sl_pelt_init(&e->time, now, 0);
}

static void eager_event(struct eager *e, u64 now, unsigned int state)
{
	bool run = e->state == SL_TASK_RUNNING, wait = e->state == SL_TASK_WAITING;

	e->ns[e->state] += now - e->last;
	if (!wait) {
		e->burst_clock += now - e->last;
		sl_pelt_update(&e->burst, e->burst_clock, run, 1024);
	}
	sl_pelt_update(&e->model, now, run, 1024);
	sl_pelt_update(&e->waiting, now, wait, 1024);
	sl_pelt_update(&e->time, now, run, 1024);
	e->last = now;
	e->state = state;
}

static u64 rnd_state = 88172645463325252ULL;
static u64 rnd(u64 n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state % n;
}

/*
 * Lazy accounting against the eager reference: events every 1..400 us in
 * random states (many per PELT period, as context switches are), read
 * every ~5 ms over 3 s. The only difference allowed is the rounding to
 * 1024 ns units (once per fold instead of once per event): a few units of
 * util. Time in each state is exact.
 */
static void lazy_vs_eager(void)
{
	struct sl_signals s;
	struct sl_signal_values v;
	struct eager e, c;
	u64 now = 5000 * MS, end = now + 3000 * MS, next_read = now;
	unsigned long worst = 0, d;
	unsigned int st, reads = 0, events = 0, slow_ok = 1;
	int times_ok = 1;

	sl_signals_init(&s, now, now, SL_TASK_RUNNING, 0);
	eager_init(&e, now, SL_TASK_RUNNING);
	while (now < end) {
		now += 1000 + rnd(400000);
		st = rnd(3);
		sl_signals_event(&s, now, now, st, 1024);
		eager_event(&e, now, st);
		events++;
		if (now >= next_read) {
			next_read = now + 5 * MS;
			sl_signals_read(&s, now + 1234, now + 1234, 1024, &v);
			c = e;
			eager_event(&c, now + 1234, c.state);
			d = labs((long)v.model - (long)c.model.util_avg);
			if (labs((long)v.burst - (long)c.burst.util_avg) > (long)d)
				d = labs((long)v.burst - (long)c.burst.util_avg);
			if (labs((long)v.waiting - (long)c.waiting.util_avg) > (long)d)
				d = labs((long)v.waiting - (long)c.waiting.util_avg);
			if (labs((long)v.time - (long)c.time.util_avg) > (long)d)
				d = labs((long)v.time - (long)c.time.util_avg);
			if (d > worst)
				worst = d;
			if (v.running_ns != c.ns[SL_TASK_RUNNING] ||
			    v.waiting_ns != c.ns[SL_TASK_WAITING] ||
			    v.sleeping_ns != c.ns[SL_TASK_SLEEPING])
				times_ok = 0;
			reads++;
		}
	}
	tap(worst <= 4, "lazy accounting vs eager updates at every event: %u events, %u reads, largest difference %lu (<= 4)",
	    events, reads, worst);
	tap(times_ok, "lazy accounting: time in each state exact at every read");
	/* most events take the inline path: fold_by is ahead of them */
	sl_signals_init(&s, now, now, SL_TASK_RUNNING, 0);
	for (st = 0; st < 100; st++) {
		u64 before = s.fold_by_ns;

		now += 3000;
		sl_signals_event(&s, now, now, st % 3, 1024);
		if (now < before && s.fold_by_ns != before)
			slow_ok = 0;
	}
	tap(slow_ok, "events before the next period boundary do not fold");
}

/*
 * sl_mean(), the per-sample means of the debugfs reports (sample_mean_us
 * in stats: total ns over samples, in us; err_mean in tasks), against
 * 128-bit arithmetic, around and beyond the counts where the divisor of
 * the old div_u64(sum, n * NSEC_PER_USEC) no longer fits in 32 bits. The
 * host shim's div_u64() takes a u32 divisor like the kernel's, so the old
 * expression is evaluated here exactly as the module did; where its
 * truncated divisor is 0 (the module's divide error) it is not evaluated.
 */
static void means(void)
{
	static const u64 counts[] = {
		1, 3, 4294967, 4294968, 4294969, 5000000, 536870912, 1073741824,
		4294967295ULL, 4294967296ULL, 4294967297ULL, 1ULL << 40, 1ULL << 52,
	};
	unsigned int i, bad = 0, old_wrong = 0, old_div0 = 0, checked = 0;
	u64 n, sum, want, got;

	tap(sl_mean(12345, 0, 1000) == 0, "sl_mean of no values is 0");
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		unsigned int k;

		n = counts[i];
		for (k = 0; k < 4; k++) {
			/* means of 0, 1, 7 and 4000 us and a bit, as far as sum fits */
			static const u64 mean_ns[] = { 999, 1000, 7 * 1000 + 999, 4000 * 1000 + 123 };
			unsigned __int128 s128 = (unsigned __int128)n * mean_ns[k] + (n > 1 ? n / 2 : 0);
			u32 old_divisor;

			if (s128 >> 64)
				continue;
			sum = (u64)s128;
			want = (u64)(s128 / ((unsigned __int128)n * 1000));
			got = sl_mean(sum, n, 1000);
			checked++;
			if (got != want) {
				bad++;
				tap_diag("sl_mean(%llu, %llu, 1000) = %llu, want %llu",
					 (unsigned long long)sum, (unsigned long long)n,
					 (unsigned long long)got, (unsigned long long)want);
			}
			old_divisor = (u32)(n * 1000);
			if (!old_divisor)
				old_div0++;
			else if (div_u64(sum, n * 1000) != want)
				old_wrong++;
		}
	}
	tap(!bad, "sl_mean(sum, n, 1000) == sum / (n * 1000) in 128 bits for n from 1 to 2^52 (%u cases)",
	    checked);
	tap(old_wrong > 0 && old_div0 > 0,
	    "the cases include counts where div_u64(sum, n * 1000) is wrong (%u) or divides by 0 (%u)",
	    old_wrong, old_div0);
	/* the tasks report's err_mean: a total over more than 2^32 checks */
	n = (1ULL << 32) + 10;
	tap(sl_mean(n * 37 + 5, n, 1) == 37, "sl_mean over 2^32 + 10 values (err_mean): %llu",
	    (unsigned long long)sl_mean(n * 37 + 5, n, 1));
}

int main(void)
{
	struct sl_signals s, t;
	struct sl_signal_values v, w;
	struct sl_pelt_avg ref;
	struct cref cm = { 0 }, cw = { 0 };
	u64 now = 1000 * MS, run_clock;
	int i, exact = 1;

	/* 1. two always-running tasks sharing a CPU: 4 ms slices, alternating */
	sl_signals_init(&s, now, now, SL_TASK_RUNNING, 0);
	sl_pelt_init(&ref, now, 0);
	run_clock = now;
	for (i = 0; i < 250; i++) {		/* 2 s */
		now += 4 * MS;
		sl_signals_event(&s, now, now, SL_TASK_WAITING, 1024);
		run_clock += 4 * MS;
		sl_pelt_update(&ref, run_clock, true, 1024);
		if (s.burst.util_avg != ref.util_avg || s.burst.util_sum != ref.util_sum)
			exact = 0;
		cref_run(&cm, 4 * MS, 1);
		cref_run(&cw, 4 * MS, 0);
		now += 4 * MS;
		sl_signals_event(&s, now, now, SL_TASK_RUNNING, 1024);
		cref_run(&cm, 4 * MS, 0);
		cref_run(&cw, 4 * MS, 1);
	}
	tap(exact, "util_burst of a task waiting half the time equals an always-running signal on the running clock, at every slice (%lu)",
	      s.burst.util_avg);
	sl_signals_read(&s, now, now, 1024, &v);
	tap(v.burst >= 1000, "util_burst of a half-time waiter rises toward 1024 (%lu)", v.burst);
	tap(fabs((double)v.time - cm.u) <= 0.03 * 1024,
	      "time-domain util settles at its share: %lu vs reference %.0f", v.time, cm.u);
	tap(fabs((double)v.model - cm.u) <= 0.03 * 1024,
	      "model util (scale 1024) equals its share: %lu vs reference %.0f", v.model, cm.u);
	tap(fabs((double)v.waiting - cw.u) <= 0.03 * 1024,
	      "waiting_avg settles at the waiting share: %lu vs reference %.0f", v.waiting, cw.u);
	tap(v.running_ns == 1000 * MS && v.waiting_ns == 1000 * MS && v.sleeping_ns == 0,
	      "time in states: running %llu ms, waiting %llu ms, sleeping %llu ms",
	      (unsigned long long)(v.running_ns / MS), (unsigned long long)(v.waiting_ns / MS),
	      (unsigned long long)(v.sleeping_ns / MS));

	/* 2. a periodic 20% duty task alone: 4 ms run, 16 ms sleep */
	memset(&cm, 0, sizeof(cm));
	sl_signals_init(&s, now, now, SL_TASK_RUNNING, 0);
	for (i = 0; i < 100; i++) {		/* 2 s */
		now += 4 * MS;
		sl_signals_event(&s, now, now, SL_TASK_SLEEPING, 1024);
		cref_run(&cm, 4 * MS, 1);
		now += 16 * MS;
		sl_signals_event(&s, now, now, SL_TASK_RUNNING, 1024);
		cref_run(&cm, 16 * MS, 0);
	}
	sl_signals_read(&s, now, now, 1024, &v);
	tap(fabs((double)v.burst - cm.u) <= 0.03 * 1024 && v.burst == v.time,
	      "20%% duty alone: util_burst %lu = time util %lu = reference %.0f (no waiting, same clock)",
	      v.burst, v.time, cm.u);
	tap(v.waiting == 0, "20%% duty alone: waiting_avg 0 (%lu)", v.waiting);

	/* 3. invariance: the model at scale 512 gets half, the others not */
	sl_signals_init(&s, now, now, SL_TASK_RUNNING, 0);
	now += 2000 * MS;
	sl_signals_read(&s, now, now, 512, &v);
	tap(v.model >= 500 && v.model <= 512 && v.time >= 1000,
	      "always running at scale 512: model %lu (~512), time util %lu (~1024)", v.model, v.time);

	/* 4. waiting behind a hog: waiting_avg rises, model/time decay, burst frozen */
	sl_signals_init(&s, now, now, SL_TASK_RUNNING, 0);
	now += 300 * MS;
	sl_signals_event(&s, now, now, SL_TASK_WAITING, 1024);
	sl_signals_read(&s, now, now, 1024, &w);
	now += 200 * MS;
	sl_signals_read(&s, now, now, 1024, &v);
	tap(v.waiting > w.waiting + 900 && v.model < w.model / 2 && v.burst == w.burst,
	      "200 ms waiting: waiting_avg %lu -> %lu, model %lu -> %lu, util_burst unchanged %lu",
	      w.waiting, v.waiting, w.model, v.model, v.burst);

	/* 5. read() does not change the state; event at the same time agrees */
	t = s;
	sl_signals_read(&s, now + 7 * MS, now + 7 * MS, 1024, &v);
	tap(memcmp(&t, &s, sizeof(s)) == 0, "sl_signals_read leaves the state untouched");
	sl_signals_event(&t, now + 7 * MS, now + 7 * MS, SL_TASK_WAITING, 1024);
	tap(t.model.util_avg == v.model && t.burst.util_avg == v.burst &&
	      t.waiting.util_avg == v.waiting && t.time.util_avg == v.time,
	      "a read equals an event at the same instant in the same state");

	/* 6. a clock going backwards changes nothing and breaks nothing */
	t = s;
	sl_signals_event(&s, s.last_ns - 5 * MS, s.last_ns - 5 * MS, SL_TASK_WAITING, 1024);
	tap(s.last_ns == t.last_ns &&
	      s.state_ns[SL_TASK_RUNNING] == t.state_ns[SL_TASK_RUNNING] &&
	      s.state_ns[SL_TASK_WAITING] == t.state_ns[SL_TASK_WAITING] &&
	      s.model.last_update_time == t.model.last_update_time,
	      "an event before the last one accounts no time and moves no clock back");

	/* 7. seeding: the model starts from the kernel's value */
	sl_signals_init(&s, now, now, SL_TASK_SLEEPING, 700);
	sl_signals_read(&s, now, now, 1024, &v);
	tap(v.model == 700 && v.time == 700 && v.burst == 700 && v.waiting == 0,
	      "seeded at 700: model %lu time %lu burst %lu waiting %lu", v.model, v.time, v.burst, v.waiting);
	/* 8. model_at and reseed */
	sl_signals_init(&s, now, now, SL_TASK_RUNNING, 300);
	now += 40 * MS;
	sl_signals_read(&s, now, now, 1024, &v);
	tap(sl_signals_model_at(&s, now, 1024) == v.model,
	      "sl_signals_model_at agrees with sl_signals_read (%lu)", v.model);
	sl_signals_reseed_model(&s, now, now, 100);
	sl_signals_read(&s, now, now, 1024, &w);
	tap(w.model == 100 && w.time == v.time && w.running_ns == 40 * MS,
	      "reseeding restarts the model only (model %lu, time %lu = %lu, running %llu ms)",
	      w.model, w.time, v.time, (unsigned long long)(w.running_ns / MS));

	lazy_vs_eager();
	means();
	return tap_failures ? 1 : 0;
}
