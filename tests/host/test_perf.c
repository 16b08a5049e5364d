// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of module/perf_core.c: each policy's request against its
 * definition written out again here in floating point (effective_cpu_util's
 * irq scaling, the 1.25 headroom, PELT's closed form for the time-based
 * headroom, the frequency table's lowest step at or above the raw
 * frequency), over sweeps of inputs, and the uclamp scenario of the sum
 * aggregation series (an always-running task capped at 256 joined by an
 * uncapped small one). Prints "ok - ..." / "not ok - ..." lines; exit 1 if
 * any failed.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "perf_core.h"
#include "../lib/tap.h"

#define MS 1000000ULL

static struct sl_perf_in idle_cpu(void)
{
	struct sl_perf_in in;

	memset(&in, 0, sizeof(in));
	in.cap = 1024;
	in.rq_uclamp_max = 1024;
	return in;
}

/* effective_cpu_util by its definition, in floating point */
static double ref_effective(double cfs, double rt, double dl, double irq, double cap)
{
	double u = cfs + rt + dl;

	if (irq >= cap || u >= cap)
		return cap;
	u = irq + u * (cap - irq) / cap;
	return u < cap ? u : cap;
}

/* PELT: util reached from u after running ms more at full speed */
static double ref_after(double u, double ms)
{
	return 1024 - (1024 - u) * pow(0.5, ms / 1.048576 / 32);
}

int main(void)
{
	struct sl_perf_in in;
	struct sl_perf_sum s;
	struct sl_perf_out mx, sm, tm;
	unsigned long u, got, lo, hi;
	int bad, i;

	/* the 1.25 headroom: floor(1.25 u) for every util */
	for (bad = 0, u = 0; u <= 1024; u++)
		bad += sl_perf_headroom_125(u) != (unsigned long)floor(1.25 * u);
	tap(!bad, "headroom_125(u) == floor(1.25 u) for u = 0..1024 (%d wrong)", bad);

	/* effective util against the definition, with irq pressure */
	for (bad = 0, i = 0; i < 20000; i++) {
		unsigned long mn, mxv;

		in = idle_cpu();
		in.util_avg = (i * 37) % 900;
		in.rt = (i * 13) % 200;
		in.dl = (i * 7) % 100;
		in.irq = (i * 11) % 300;
		got = sl_perf_effective(&in, in.util_avg, 0, 1024, &mn, &mxv);
		if (fabs(got - ref_effective(in.util_avg, in.rt, in.dl, in.irq, 1024)) > 1.0)
			bad++;
	}
	tap(!bad, "effective util within 1 of irq + (cap - irq) / cap * (cfs + rt + dl) over 20000 inputs (%d off)", bad);

	/* cpu_util_cfs_boost: the largest of util_avg, runnable_avg, util_est, capped */
	in = idle_cpu();
	in.util_avg = 300; in.runnable_avg = 700; in.util_est = 500;
	tap(sl_perf_cfs_util(&in, 1) == 700 && sl_perf_cfs_util(&in, 0) == 500,
	    "cfs util: boost takes runnable_avg (700), without boost util_est (500)");
	in.util_est = 2000;
	tap(sl_perf_cfs_util(&in, 1) == 1024, "cfs util capped at the capacity");

	/* no clamps: the kernel's request is min(cap, 1.25 * util) */
	for (bad = 0, u = 0; u <= 1024; u += 3) {
		in = idle_cpu();
		in.util_avg = u;
		sl_perf_max_policy(&in, &mx);
		if (mx.perf != (unsigned long)fmin(1024, floor(1.25 * u)))
			bad++;
	}
	tap(!bad, "max policy without clamps: perf == min(1024, floor(1.25 util)) (%d wrong)", bad);

	/* irq saturation and a runnable RT task without uclamp: full speed */
	in = idle_cpu();
	in.irq = 1024;
	sl_perf_max_policy(&in, &mx);
	tap(mx.util == 1024 && mx.perf == 1024 && mx.min == 1024, "irq >= capacity: util, min and perf at capacity");
	in = idle_cpu();
	in.util_avg = 100; in.rt_runnable = 1;
	sl_perf_max_policy(&in, &mx);
	tap(mx.perf == 1024, "runnable RT task, uclamp unused: perf %lu == 1024", mx.perf);
	in.uclamp_used = 1;
	sl_perf_max_policy(&in, &mx);
	tap(mx.perf == 125, "runnable RT task, uclamp used: perf %lu == 1.25 * 100", mx.perf);

	/* the DL bandwidth and uclamp_min set the floor */
	in = idle_cpu();
	in.util_avg = 100; in.bw_dl = sl_perf_bw_to_util(1ULL << 19); in.irq = 10;
	sl_perf_max_policy(&in, &mx);
	tap(in.bw_dl == 512 && mx.min == 522 && mx.perf == 522,
	    "bw_dl (half of 1 << 20 -> %lu) + irq is the floor: perf %lu", in.bw_dl, mx.perf);
	in = idle_cpu();
	in.util_avg = 100; in.rq_uclamp_min = 600;
	sl_perf_max_policy(&in, &mx);
	tap(mx.perf == 600, "rq uclamp_min 600 lifts perf %lu to 600", mx.perf);

	/*
	 * The sum aggregation series' scenario 3: an always-running task
	 * capped at 256 (util, runnable and util_est ~1000), alone, then with
	 * an uncapped task of util 100 enqueued beside it.
	 */
	in = idle_cpu();
	in.util_avg = 1000; in.runnable_avg = 1000; in.util_est = 1000;
	in.rq_uclamp_max = 256; in.uclamp_used = 1;
	memset(&s, 0, sizeof(s));
	sl_perf_sum_add(&s, 1000, 1000, 0, 256);
	sl_perf_max_policy(&in, &mx);
	sl_perf_sum_policy(&in, &s, &sm);
	tap(mx.perf == 256 && sm.util == 256 && sm.perf == 320,
	    "capped task alone: max perf %lu == 256 (the cap), sum util %lu == 256, perf %lu == 1.25 * 256",
	    mx.perf, sm.util, sm.perf);
	in.util_avg = 1100; in.runnable_avg = 1100; in.util_est = 1100;
	in.rq_uclamp_max = 1024;	/* max aggregation: the uncapped task lifts it */
	sl_perf_sum_add(&s, 100, 100, 0, 1024);
	sl_perf_max_policy(&in, &mx);
	sl_perf_sum_policy(&in, &s, &sm);
	tap(mx.perf == 1024 && sm.util == 356 && sm.perf == 445 && s.nr == 2,
	    "uncapped small task joins: max perf %lu == 1024, sum util %lu == 256 + 100, perf %lu == 445",
	    mx.perf, sm.util, sm.perf);

	/* clamps: min raises, inverted pair gives min, util_est clamped too */
	memset(&s, 0, sizeof(s));
	sl_perf_sum_add(&s, 50, 40, 200, 1024);
	sl_perf_sum_add(&s, 500, 600, 700, 300);
	tap(s.bias == 150 + 200 && s.util_est == 200 + 700,
	    "biases: +150 (min 200 over 50), +200 (inverted 700/300 gives 700): %lld; clamped util_est %llu",
	    (long long)s.bias, (unsigned long long)s.util_est);
	in = idle_cpu();
	in.util_avg = 0;
	memset(&s, 0, sizeof(s));
	sl_perf_sum_add(&s, 800, 0, 0, 100);
	tap(sl_perf_sum_cfs(&in, &s) == 0, "a negative total bias floors the sum util at 0");

	/* time-based headroom: PELT's closed form, growing with the window */
	for (bad = 0, u = 0; u <= 1024; u += 16) {
		double want = ref_after(u, 4.0);

		got = sl_perf_headroom_time(u, 4 * MS);
		if (fabs(got - want) > 2.0) {
			bad++;
			tap_diag("u %lu: got %lu, closed form %.2f", u, got, want);
		}
	}
	tap(!bad, "time headroom over 4 ms within 2 of 1024 - (1024 - u) / 2^(t / 32 periods) (%d off)", bad);
	tap(sl_perf_headroom_time(300, 0) == 300 &&
	    sl_perf_headroom_time(300, 4 * MS) < sl_perf_headroom_time(300, 10 * MS),
	    "time headroom: none for a zero window, more for a longer one");
	in = idle_cpu();
	in.util_avg = 512; in.rq_uclamp_max = 400;
	sl_perf_time_policy(&in, 4 * MS, &tm);
	sl_perf_max_policy(&in, &mx);
	tap(tm.util == mx.util && tm.perf == 400 && mx.perf == 400,
	    "time policy: the kernel's util and bounds (rq uclamp_max 400 caps both)");

	/* frequency: the lowest of the table's steps at or above ref * perf / cap */
	for (bad = 0, u = 0; u <= 1024; u++) {
		double raw = 2000000.0 * u / 1024, want = 2000000;

		for (i = 1; i <= 7; i++) {
			double f = floor(2000000.0 * i / 7);

			if (f >= floor(raw)) {
				want = f;
				break;
			}
		}
		if (sl_perf_freq(u, 1024, 2000000, 7) != (u64)want ||
		    sl_perf_freq(u, 1024, 2000000, 0) != (u64)floor(raw))
			bad++;
	}
	tap(!bad, "freq: raw ref * perf / cap, and the lowest of 7 steps at or above it, for perf 0..1024 (%d wrong)", bad);
	lo = sl_perf_freq(512, 1024, 2000000, 4);
	hi = sl_perf_freq(513, 1024, 2000000, 4);
	tap(lo == 1000000 && hi == 1500000, "4 steps of 2 GHz: perf 512 -> %lu kHz, 513 -> %lu kHz", lo, hi);
	tap(sl_perf_freq(600, 640, 1000000, 0) == 937500,
	    "a smaller CPU (cap 640): perf 600 -> ref * 600 / 640");

	return tap_failures ? 1 : 0;
}
