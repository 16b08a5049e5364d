// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of module/pelt_core.c (and of the tools/pelt CLI's margin
 * table) against values computed here, independently of the core:
 *
 *  - a slow floating-point PELT: the running time of every 2^20 ns period
 *    kept in an array, util = 1024 * sum(r_k * y^(c - k)) / (1024 * y /
 *    (1 - y) + elapsed part of the current period), y = 0.5^(1/32);
 *  - closed forms of the same model: ramp-up 1024 * (1 - y^n), idle decay
 *    u * y^n, util after running t more 1024 - (1024 - u) * y^(t / period);
 *  - the inverse table and LOAD_AVG_MAX recomputed from their definitions;
 *  - the migration-margin table published by the response-time RFC
 *    (reference 010: "sched/fair/schedutil: Better manage system response
 *    time"), every row of both columns, typed in from the RFC: it is the
 *    independent source the margin must reproduce.
 *
 * The period is 2^20 ns (1024 units of 1024 ns, the kernel's "1024 us"
 * after delta >>= 10), so t / period uses 1.048576 ms.
 *
 * Output: "ok - ..." / "not ok - ..." lines and "# ..." diagnostics, which
 * test_pelt.sh numbers into TAP. Usage: test_pelt [PATH_TO_PELT_CLI]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pelt_core.h"
#include "../lib/tap.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define PERIOD_NS	1048576.0	/* 2^20 */
#define HISTORY		2200		/* periods summed; y^2200 < 2^-68 */

static double y;	/* 0.5^(1/32) */



/* xorshift64*: a fixed, portable random sequence */
static u64 rng_state = 0x5ced1ab5eed2024ULL;

static u64 rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static u64 rnd_range(u64 lo, u64 hi)	/* [lo, hi] */
{
	return lo + rnd() % (hi - lo + 1);
}

/*
 * The floating-point reference: r[k] is the scaled running time, in 1024
 * ns units, spent in period k (periods at multiples of 2^20 ns from 0).
 */
struct ref {
	double *r;
	size_t cap;
	u64 now;		/* ns */
	double init;		/* sum contributed by the initial util */
};

static void ref_init(struct ref *rf, double util)
{
	memset(rf, 0, sizeof(*rf));
	/* as if it had run util / 1024 of every past period */
	rf->init = util * y / (1 - y);
}

static void ref_free(struct ref *rf)
{
	free(rf->r);
}

static void ref_add(struct ref *rf, size_t k, double units)
{
	if (k >= rf->cap) {
		size_t n = rf->cap ? rf->cap : 1024;

		while (n <= k)
			n *= 2;
		rf->r = realloc(rf->r, n * sizeof(*rf->r));
		if (!rf->r)
			abort();
		memset(rf->r + rf->cap, 0, (n - rf->cap) * sizeof(*rf->r));
		rf->cap = n;
	}
	rf->r[k] += units;
}

/* Advance to @to ns, running (at @scale / 1024) or not. */
static void ref_run(struct ref *rf, u64 to, int running, double scale)
{
	while (rf->now < to) {
		u64 k = rf->now >> 20;
		u64 end = (k + 1) << 20;

		if (end > to)
			end = to;
		if (running)
			ref_add(rf, k, (end - rf->now) / 1024.0 * scale / 1024.0);
		rf->now = end;
	}
}

static double ref_util(const struct ref *rf)
{
	u64 c = rf->now >> 20;
	double p = (rf->now - (c << 20)) / 1024.0;
	double num = rf->init * pow(y, (double)c), w = 1;
	u64 k;

	for (k = c + 1; k-- > 0 && c - k < HISTORY; w *= y)
		if (k < rf->cap)
			num += rf->r[k] * w;
	return 1024 * num / (1024 * y / (1 - y) + p);
}

/* Closed form: util after running t_ns more from u, at full scale. */
static double ref_after(double u, double t_ns)
{
	return 1024 - (1024 - u) * pow(y, t_ns / PERIOD_NS);
}

/*
 * The RFC's migration-margin table: capacity, threshold with no tick and
 * its share of the capacity in hundredths of a percent (truncated), the
 * same with a 1 ms tick ("threshold-tick"). Every published row.
 */
static const struct rfc_row {
	unsigned int cap, thr0, pct0, thr1, pct1;
} rfc_table[] = {
	{   0,   0,    0,   0,    0 }, {  16,   0,    0,   0,    0 },
	{  32,   1,  312,   0,    0 }, {  48,   3,  625,   2,  416 },
	{  64,   4,  625,   2,  312 }, {  80,   6,  750,   5,  625 },
	{  96,  10, 1041,   8,  833 }, { 112,  14, 1250,  11,  982 },
	{ 128,  18, 1406,  16, 1250 }, { 144,  21, 1458,  18, 1250 },
	{ 160,  26, 1625,  23, 1437 }, { 176,  33, 1875,  29, 1647 },
	{ 192,  39, 2031,  35, 1822 }, { 208,  47, 2259,  43, 2067 },
	{ 224,  55, 2455,  50, 2232 }, { 240,  63, 2625,  59, 2458 },
	{ 256,  73, 2851,  68, 2656 }, { 272,  82, 3014,  77, 2830 },
	{ 288,  93, 3229,  87, 3020 }, { 304, 103, 3388,  97, 3190 },
	{ 320, 114, 3562, 108, 3375 }, { 336, 126, 3750, 120, 3571 },
	{ 352, 138, 3920, 132, 3750 }, { 368, 151, 4103, 144, 3913 },
	{ 384, 163, 4244, 157, 4088 },
	{ 704, 557, 7911, 550, 7812 }, { 720, 578, 8027, 572, 7944 },
	{ 736, 606, 8233, 600, 8152 }, { 752, 633, 8417, 627, 8337 },
};

/*
 * The margin threshold from the floating-point PELT: the window of the
 * definition, ((n * 1000 - tick_us) * cap) >> 10 units of 1024 ns with n
 * the core's ramp-up periods (checked above against the closed form), run
 * from util 0 through the slow reference.
 */
static double ref_margin(unsigned long cap, u64 tick_ns)
{
	u64 n = sl_pelt_approx_runtime(cap) / (u64)PERIOD_NS;
	u64 tick_us = tick_ns / 1000;
	u64 units = n * 1000 > tick_us ? ((n * 1000 - tick_us) * cap) >> 10 : 0;
	struct ref rf;
	double u;

	ref_init(&rf, 0);
	ref_run(&rf, units * 1024, 1, 1024);
	u = ref_util(&rf);
	ref_free(&rf);
	return u;
}

static void test_table(void)
{
	int n, same = 1, off_by_one = 0;

	for (n = 0; n < SL_PELT_HALFLIFE; n++) {
		u32 want = (u32)(4294967295.0 * pow(y, n));
		double pow2 = floor(4294967296.0 * pow(y, n));

		if (sl_pelt_y_inv[n] != want) {
			tap_diag("y_inv[%d] = %#x, want %#x", n, sl_pelt_y_inv[n],
			     want);
			same = 0;
		}
		if (pow2 != want)
			off_by_one += (pow2 - want == 1);
	}
	tap(same, "inverse table is floor((2^32 - 1) * y^n), n = 0..31");
	tap_diag("floor(2^32 * y^n) is one more in %d entries (and 2^32 at n = 0)",
	     off_by_one - 1);
	tap(fabs(pow(y, SL_PELT_HALFLIFE) - 0.5) < 1e-12, "y^32 = 1/2");
}

static void test_load_avg_max(void)
{
	/* the kernel's integer series: max = max * y + 1024, truncating */
	u64 y_inv = (u64)(4294967295.0 * y), max = 1024, last = 0;
	struct sl_pelt_avg sa;
	int n = 0, ok;

	while (max != last && n < 10000) {
		last = max;
		max = ((max * y_inv) >> 32) + 1024;
		n++;
	}
	/* n - 1 steps changed it: terms y^0 .. y^(n - 2), kernel's _N = n - 2 */
	tap_diag("integer series converges to %llu with terms y^0..y^%d (real sum %.1f)",
	     (unsigned long long)max, n - 2, 1024 / (1 - y));
	tap(max == SL_PELT_LOAD_AVG_MAX,
	      "LOAD_AVG_MAX %d is the fixed point of the integer series (%llu)",
	      SL_PELT_LOAD_AVG_MAX, (unsigned long long)max);
	sl_pelt_init(&sa, 0, 0);
	ok = sl_pelt_divider(&sa) == max - 1024;
	sl_pelt_update(&sa, 512 * 1024 + 1000, true, 1024);
	ok &= sl_pelt_divider(&sa) == max - 1024 + 512;
	tap(ok, "divider is LOAD_AVG_MAX - 1024 + period_contrib");
}

static void test_decay_load(void)
{
	double worst = 0, worst_rel = 0;
	int i, ok = 1;

	for (i = 0; i < 20000; i++) {
		u64 val = rnd() >> rnd_range(8, 63);
		u64 n = rnd_range(0, 2100);
		double want = (double)val * pow(y, (double)n);
		double got = (double)sl_pelt_decay_load(val, n);
		double err = got - want;

		if (n > 63 * 32) {
			/* the kernel's cut-off: 63 half-lives clear any u64 */
			ok &= got == 0;
			continue;
		}
		/*
		 * Truncating: never above, and below by at most 2 (the shift
		 * and the multiply) plus the table's own shortfall: entries
		 * are floor((2^32 - 1) * y^r) / 2^32 with y^r >= 1/2, short
		 * of y^r by less than 3 * 2^-32 of it.
		 */
		if (err > want * 1e-12 || err < -2 - want * 3 / 4294967296.0)
			ok = 0;
		if (val < (1ULL << 32) && fabs(err) > fabs(worst))
			worst = err;
		if (want > 1e12 && fabs(err / want) > fabs(worst_rel))
			worst_rel = err / want;
	}
	tap(ok, "decay_load(val, n) = val * y^n rounded down (within 2 + 3 * 2^-32 * val), 0 past 63 half-lives");
	tap_diag("decay_load worst error %.3f for val < 2^32, worst relative %.3g for val * y^n > 1e12",
	     worst, worst_rel);
}

/* Core and reference driven through the same timeline. */
struct pair {
	struct sl_pelt_avg sa;
	struct ref rf;
	double worst;		/* largest |core - ref| */
	int bad_range;		/* util outside 0..1024 */
	int stale_bad;		/* util_avg not as ___update_load_avg leaves it */
};

static void pair_init(struct pair *pp, unsigned long util)
{
	memset(pp, 0, sizeof(*pp));
	sl_pelt_init(&pp->sa, 0, util);
	ref_init(&pp->rf, util);
}

/* Both advance to @to (ns), then compare; returns core - ref. */
static double pair_step(struct pair *pp, u64 to, int running, unsigned long scale)
{
	unsigned long before = pp->sa.util_avg, now;
	bool crossed;
	double d;

	crossed = sl_pelt_update(&pp->sa, to, running, scale);
	ref_run(&pp->rf, to, running, scale > 1024 ? 1024 : scale);
	now = sl_pelt_util_now(&pp->sa);
	if (crossed ? pp->sa.util_avg != now : pp->sa.util_avg != before)
		pp->stale_bad++;
	if (now > 1024)
		pp->bad_range++;
	d = (double)now - ref_util(&pp->rf);
	if (fabs(d) > fabs(pp->worst))
		pp->worst = d;
	return d;
}

static void test_always_running(void)
{
	struct pair pp;
	u64 t = 0;
	int i;

	/* uneven update intervals: every 0.1 .. 3 ms, for 2 s */
	pair_init(&pp, 0);
	for (i = 0; t < 2000000000ULL; i++) {
		t += rnd_range(100000, 3000000);
		pair_step(&pp, t, 1, 1024);
	}
	tap_diag("always running: util %lu (ref %.2f) after %.1f ms, worst diff %.2f",
	     sl_pelt_util_now(&pp.sa), ref_util(&pp.rf), t / 1e6, pp.worst);
	tap(sl_pelt_util_now(&pp.sa) >= 1018 && pp.bad_range == 0,
	      "always running converges to 1018..1024");
	tap(fabs(pp.worst) <= 2, "always running within 2 of the reference at all %d updates", i);
	tap(pp.stale_bad == 0,
	      "util_avg refreshed exactly when a period boundary is crossed");
	ref_free(&pp.rf);
}

static void test_duty_cycle(void)
{
	struct pair pp;
	double lo = 1024, hi = 0, worst_at_boundary = 0;
	u64 t = 0;
	int k;

	/* each period: first half running, second half idle, for 1 s+ */
	pair_init(&pp, 0);
	for (k = 0; k < 1000; k++) {
		t += 1 << 19;
		pair_step(&pp, t, 1, 1024);
		t += 1 << 19;
		pair_step(&pp, t, 0, 1024);
		if (k >= 500) {
			double u = sl_pelt_util_now(&pp.sa);

			lo = u < lo ? u : lo;
			hi = u > hi ? u : hi;
			if (fabs(u - 512) > fabs(worst_at_boundary))
				worst_at_boundary = u - 512;
		}
	}
	tap_diag("50%% duty cycle: util at period starts %.0f..%.0f, worst diff to ref %.2f",
	     lo, hi, pp.worst);
	tap(fabs(worst_at_boundary) <= 2, "50%% duty cycle settles at 512 +- 2 at period boundaries");
	tap(fabs(pp.worst) <= 2, "50%% duty cycle within 2 of the reference at every switch");
	ref_free(&pp.rf);

	/* 3 ms on, 3 ms off: oscillates around 512 */
	pair_init(&pp, 0);
	lo = 1024;
	hi = 0;
	for (k = 0, t = 0; k < 300; k++) {
		t += 3000000;
		pair_step(&pp, t, 1, 1024);
		if (k > 200)
			hi = fmax(hi, sl_pelt_util_now(&pp.sa));
		t += 3000000;
		pair_step(&pp, t, 0, 1024);
		if (k > 200)
			lo = fmin(lo, sl_pelt_util_now(&pp.sa));
	}
	tap_diag("3 ms on / 3 ms off: util %.0f..%.0f, worst diff to ref %.2f",
	     lo, hi, pp.worst);
	tap(lo < 512 && hi > 512 && hi - lo < 60 && fabs(pp.worst) <= 2,
	      "3 ms on/off oscillates around 512 and follows the reference");
	ref_free(&pp.rf);
}

static void test_idle_decay(void)
{
	static const unsigned long starts[] = { 1024, 800, 300, 37 };
	double worst = 0;
	unsigned int i;
	int n, ok = 1;

	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		struct sl_pelt_avg sa;

		sl_pelt_init(&sa, 0, starts[i]);
		for (n = 1; n <= 400; n++) {
			double want = starts[i] * pow(y, n), d;

			sl_pelt_update(&sa, (u64)n << 20, false, 1024);
			d = (double)sa.util_avg - want;
			if (d > 0.001 || d < -1.5)
				ok = 0;
			if (fabs(d) > fabs(worst))
				worst = d;
		}
	}
	tap_diag("idle decay worst diff %.3f", worst);
	tap(ok, "idle util after n periods is u * y^n (rounded down, within 1.5)");

	/* ramp for 50 ms then idle 200 ms in one update each */
	{
		struct pair pp;

		pair_init(&pp, 0);
		pair_step(&pp, 50000000, 1, 1024);
		pair_step(&pp, 250000000, 0, 1024);
		tap_diag("ramp 50 ms then idle 200 ms: %lu (ref %.2f)",
		     sl_pelt_util_now(&pp.sa), ref_util(&pp.rf));
		tap(fabs(pp.worst) <= 2, "one-update ramp then idle decay within 2 of the reference");
		ref_free(&pp.rf);
	}
}

static void test_random(void)
{
	double worst = 0;
	int seq, bad_range = 0, stale_bad = 0, updates = 0;

	for (seq = 0; seq < 300; seq++) {
		unsigned long start = rnd_range(0, 1) ? rnd_range(0, 1024) : 0;
		struct pair pp;
		u64 t = rnd_range(0, 1 << 20);	/* not period aligned */
		int i, segs = (int)rnd_range(5, 80);

		pair_init(&pp, start);
		/* an initial idle stretch, so the start is arbitrary too */
		pair_step(&pp, t, 0, 1024);
		for (i = 0; i < segs; i++) {
			int running = rnd() & 1;
			unsigned long scale = rnd_range(0, 3) ? 1024 : rnd_range(100, 1024);
			/* 1 ns .. ~67 ms, log-uniform-ish */
			u64 len = rnd_range(1, 1ULL << rnd_range(4, 26));
			u64 end = t + len;

			/* sometimes several updates inside one segment */
			while (rnd_range(0, 2) == 0 && t + 1 < end) {
				t = rnd_range(t + 1, end);
				pair_step(&pp, t, running, scale);
				updates++;
			}
			t = end;
			pair_step(&pp, t, running, scale);
			updates++;
		}
		if (fabs(pp.worst) > fabs(worst))
			worst = pp.worst;
		bad_range += pp.bad_range;
		stale_bad += pp.stale_bad;
		ref_free(&pp.rf);
	}
	tap_diag("random sequences: %d updates, worst core - ref %.3f", updates, worst);
	tap(fabs(worst) <= 2.5,
	      "300 random running/idle sequences (ns boundaries, scaled) within 2.5 of the reference");
	tap(bad_range == 0, "util stays within 0..1024");
	tap(stale_bad == 0, "util_avg only refreshed on period boundaries");
}

static void test_rampup(void)
{
	double worst = 0, worst_hi = 0;
	int u, ok = 1, ok_hi = 1;

	for (u = 1; u <= 1000; u++) {
		double want = 32 * log2(1024.0 / (1024 - u));
		double got = sl_pelt_approx_runtime(u) / PERIOD_NS;
		double d = got - want;

		if (u <= 985) {
			ok &= fabs(d) <= 1;
			worst = fabs(d) > fabs(worst) ? d : worst;
		} else {
			ok_hi &= fabs(d) <= 2;
			worst_hi = fabs(d) > fabs(worst_hi) ? d : worst_hi;
		}
	}
	tap_diag("rampup worst (periods): %.3f up to 985, %.3f for 986..1000",
	     worst, worst_hi);
	tap(ok, "rampup 0 -> u within a period of 32 * log2(1024 / (1024 - u)) periods, u = 1..985");
	tap(ok_hi, "rampup 0 -> u within two periods of it, u = 986..1000");
	tap(sl_pelt_approx_runtime(0) == 0, "rampup to 0 takes no time");
	tap(sl_pelt_approx_runtime(1024) < (u64)SL_PELT_MAX_PERIODS * (1 << 20),
	      "util 1024 is reached before the iteration cap (%.1f ms)",
	      sl_pelt_approx_runtime(1024) / 1e6);
	tap(sl_pelt_approx_runtime(5000) == sl_pelt_approx_runtime(1024),
	      "util above 1024 is taken as 1024");
}

static void test_round_trip(void)
{
	int u, ok = 1, ok2 = 1, ok3 = 1, i;
	double worst = 0;

	for (u = 1; u <= 1024; u++) {
		u64 t = sl_pelt_approx_runtime(u);

		if (sl_pelt_approx_util_avg(0, t) < (unsigned long)u)
			ok = 0;
		if (t >= (1 << 20) &&
		    sl_pelt_approx_util_avg(0, t - (1 << 20)) >= (unsigned long)u)
			ok = 0;
	}
	tap(ok, "approx_util_avg(0, approx_runtime(u)) >= u, one period less < u, u = 1..1024");

	/* time -> util -> time, where util still grows > 2 per period */
	for (i = 0; i < 2000; i++) {
		u64 t = rnd_range(0, 100000000);
		unsigned long v = sl_pelt_approx_util_avg(0, t);
		double d = ((double)sl_pelt_approx_runtime(v) - t) / PERIOD_NS;

		if (v > 900)
			continue;
		ok2 &= fabs(d) <= 1;
		worst = fabs(d) > fabs(worst) ? d : worst;
	}
	tap(ok2, "approx_runtime(approx_util_avg(0, t)) within a period of t (util <= 900)");
	tap_diag("time round trip worst %.3f periods", worst);

	/* against the closed form, from any start, at any (1024 ns) time */
	worst = 0;
	for (i = 0; i < 20000; i++) {
		unsigned long from = rnd_range(0, 1024);
		u64 t = rnd_range(0, 400000000) & ~1023ULL;
		double d = sl_pelt_approx_util_avg(from, t) - ref_after(from, t);

		ok3 &= fabs(d) <= 2;
		worst = fabs(d) > fabs(worst) ? d : worst;
	}
	tap(ok3, "approx_util_avg(u, t) within 2 of 1024 - (1024 - u) * y^(t / period)");
	tap_diag("approx_util_avg worst diff %.3f", worst);
	tap(sl_pelt_approx_util_avg(1024, 10000000000ULL) == 1024 &&
	      sl_pelt_approx_util_avg(0, 10000000000ULL) == 1024 &&
	      sl_pelt_approx_util_avg(0, (u64)SL_PELT_MAX_PERIODS << 20) ==
	      sl_pelt_approx_util_avg(0, (u64)SL_PELT_MAX_PERIODS << 24),
	      "long runs saturate at 1024 within the iteration cap");
	tap(sl_pelt_approx_util_avg(300, 0) == 300 &&
	      sl_pelt_approx_util_avg(300, 1023) == 300,
	      "no whole 1024 ns unit, no change");
}

static void test_rfc_table(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rfc_table); i++) {
		const struct rfc_row *r = &rfc_table[i];
		unsigned long t0 = sl_pelt_margin_threshold(r->cap, 0);
		unsigned long t1 = sl_pelt_margin_threshold(r->cap, 1000000);

		tap(t0 == r->thr0 && t1 == r->thr1,
		    "RFC margin table, capacity %u: threshold %lu (RFC %u), with a 1 ms tick %lu (RFC %u)",
		    r->cap, t0, r->thr0, t1, r->thr1);
	}
}

static void test_threshold(void)
{
	static const double ticks_ms[] = { 0, 1, 2, 4, 10 };
	unsigned long cap, t, prev;
	unsigned int i;
	int ok, mono, share, tick_mono = 1;
	double worst;

	for (i = 0; i < ARRAY_SIZE(ticks_ms); i++) {
		u64 tick = (u64)(ticks_ms[i] * 1e6);

		ok = 1;
		mono = 1;
		share = 1;
		worst = 0;
		prev = 0;
		for (cap = 0; cap <= 1024; cap++) {
			double d;

			t = sl_pelt_margin_threshold(cap, tick);
			d = t - ref_margin(cap, tick);
			if (fabs(d) > 1.5)
				ok = 0;
			worst = fabs(d) > fabs(worst) ? d : worst;
			if (t < prev || t > cap)
				mono = 0;
			/* the share thr / cap grows with cap: compare with cap - 64 */
			if (cap >= 128 && t * (cap - 64) <
			    sl_pelt_margin_threshold(cap - 64, tick) * cap)
				share = 0;
			prev = t;
			if (i && t > sl_pelt_margin_threshold(cap, (u64)(ticks_ms[i - 1] * 1e6)))
				tick_mono = 0;
		}
		tap(ok, "tick %g ms: threshold within 1.5 of the float PELT over the same window, capacity 0..1024",
		    ticks_ms[i]);
		tap_diag("tick %g ms: worst threshold - float %.3f", ticks_ms[i], worst);
		tap(mono, "tick %g ms: threshold monotonic in capacity and at most the capacity",
		    ticks_ms[i]);
		tap(share, "tick %g ms: the smaller the CPU, the smaller the threshold's share (the larger the margin), steps of 64",
		    ticks_ms[i]);
	}
	tap(tick_mono, "a longer tick never raises the threshold");

	/* the window: the tick comes off before the capacity scaling */
	ok = 1;
	for (cap = 1; cap <= 1024; cap++) {
		u64 n = sl_pelt_approx_runtime(cap) / (u64)PERIOD_NS;

		if (sl_pelt_margin_window(cap, 0) != (n * 1000 * cap) >> 10 ||
		    sl_pelt_margin_window(cap, 4000000) !=
		    (n * 1000 > 4000 ? ((n * 1000 - 4000) * cap) >> 10 : 0))
			ok = 0;
	}
	tap(ok, "window: ramp periods as ms, less the tick in us, scaled by capacity / 1024");
	tap(sl_pelt_margin_window(160, 100000000) == 0 &&
	    sl_pelt_margin_threshold(160, 100000000) == 0,
	    "a tick longer than the ramp leaves no window, threshold 0");
	tap(sl_pelt_margin_threshold(2048, 1000000) == sl_pelt_margin_threshold(1024, 1000000),
	    "capacity above 1024 is taken as 1024");
	ok = 1;
	for (cap = 1; cap <= 1024; cap++)
		if (sl_pelt_margin_window(cap, 999999) != sl_pelt_margin_window(cap, 999000))
			ok = 0;
	tap(ok, "the tick counts in whole us (999999 ns as 999000 ns)");
}

/* The CLI's margin table, parsed. */
struct row {
	unsigned long cap, ramp, thr0, thr, margin, mainline;
	unsigned long pct0, pct, pct_main;	/* hundredths */
	double window_ms;
};

/* "12.34" -> 1234 */
static int parse_pct(const char *s, unsigned long *out)
{
	unsigned long i, f;

	if (sscanf(s, "%lu.%2lu", &i, &f) != 2 || strlen(strchr(s, '.') + 1) != 2)
		return -1;
	*out = i * 100 + f;
	return 0;
}

static int run_margin(const char *cli, const char *args, struct row *rows, int max)
{
	char cmd[1024], line[256];
	int n = 0, st;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "'%s' margin %s", cli, args);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		struct row r;
		char p0[32], p[32], pm[32];

		if (line[0] == '#' ||
		    sscanf(line, "%lu %lu %lu %31s %lu %31s %lu %lf %lu %31s",
			   &r.cap, &r.ramp, &r.thr0, p0, &r.thr, p, &r.margin,
			   &r.window_ms, &r.mainline, pm) != 10)
			continue;
		if (parse_pct(p0, &r.pct0) || parse_pct(p, &r.pct) ||
		    parse_pct(pm, &r.pct_main))
			continue;
		if (n < max)
			rows[n++] = r;
	}
	st = pclose(f);
	return st == 0 ? n : -1;
}

static const struct row *find_cap(const struct row *r, int n, unsigned long cap)
{
	for (int i = 0; i < n; i++)
		if (r[i].cap == cap)
			return &r[i];
	return NULL;
}

/* every column of one row against the core (tick in ns) */
static int row_matches_core(const struct row *r, u64 tick)
{
	unsigned long thr = sl_pelt_margin_threshold(r->cap, tick);
	unsigned long thr0 = sl_pelt_margin_threshold(r->cap, 0);
	u64 w = sl_pelt_margin_window(r->cap, tick);
	unsigned long main = r->cap * 1024 / 1280;

	return r->thr == thr && r->thr0 == thr0 && r->margin == r->cap - thr &&
	       r->ramp == sl_pelt_approx_runtime(r->cap) / (u64)PERIOD_NS &&
	       fabs(r->window_ms - w * 1024 / 1e6) < 0.0015 &&
	       r->mainline == main && main == (unsigned long)floor(r->cap * 0.8) &&
	       r->pct == (r->cap ? thr * 10000 / r->cap : 0) &&
	       r->pct_main == (r->cap ? main * 10000 / r->cap : 0);
}

static void test_cli(const char *cli)
{
	struct row r1[64], r4[64], rd[64], rz[64], rc[64];
	int n1, n4, nd, nz, nc, i, ok;
	unsigned int k;

	/* the RFC's table, every row, both columns and their shares */
	n1 = run_margin(cli, "--tick-ms 1 --rfc-caps", r1, 64);
	ok = n1 > 0;
	for (k = 0; ok && k < ARRAY_SIZE(rfc_table); k++) {
		const struct rfc_row *want = &rfc_table[k];
		const struct row *got = find_cap(r1, n1, want->cap);

		if (!got || got->thr0 != want->thr0 || got->pct0 != want->pct0 ||
		    got->thr != want->thr1 || got->pct != want->pct1) {
			tap_diag("CLI capacity %u: %lu %lu.%02lu %lu %lu.%02lu, RFC %u %u.%02u %u %u.%02u",
				 want->cap, got ? got->thr0 : 0,
				 got ? got->pct0 / 100 : 0, got ? got->pct0 % 100 : 0,
				 got ? got->thr : 0, got ? got->pct / 100 : 0,
				 got ? got->pct % 100 : 0, want->thr0, want->pct0 / 100,
				 want->pct0 % 100, want->thr1, want->pct1 / 100,
				 want->pct1 % 100);
			ok = 0;
		}
	}
	tap(ok, "pelt margin --tick-ms 1 --rfc-caps prints the RFC's table: all %zu rows, thresholds and %% (%d rows)",
	    ARRAY_SIZE(rfc_table), n1);

	n4 = run_margin(cli, "--tick-ms 4", r4, 64);
	ok = n4 == 8;
	for (i = 0; ok && i < n4; i++)
		ok = row_matches_core(&r4[i], 4000000) && (!i || r4[i].cap > r4[i - 1].cap);
	tap(ok, "pelt margin --tick-ms 4: 8 default capacities, sorted, every column as the core computes it");
	ok = n1 > 0;
	for (i = 0; ok && i < n1; i++)
		ok = row_matches_core(&r1[i], 1000000);
	tap(ok, "pelt margin --tick-ms 1: every column as the core computes it");
	ok = 1;
	for (i = 0; i < n4; i++) {
		const struct row *o = find_cap(r1, n1, r4[i].cap);

		if (!o || r4[i].thr > o->thr || r4[i].thr0 != o->thr0)
			ok = 0;
	}
	tap(ok, "4 ms thresholds at most the 1 ms ones, the no-tick column the same");

	nd = run_margin(cli, "", rd, 64);
	ok = nd == n4;
	for (i = 0; ok && i < nd; i++)
		ok = rd[i].cap == r4[i].cap && rd[i].thr == r4[i].thr;
	tap(ok, "default tick is 4 ms");

	nz = run_margin(cli, "--tick-ms 0", rz, 64);
	ok = nz == n4;
	for (i = 0; ok && i < nz; i++)
		ok = rz[i].thr == rz[i].thr0 && rz[i].thr0 == r4[i].thr0;
	tap(ok, "--tick-ms 0: the threshold is the no-tick one");

	nc = run_margin(cli, "--cap 100 --cap=700 --cap 100 --cap 0 --tick-ms=2.5", rc, 64);
	ok = nc == n4 + 3 && find_cap(rc, nc, 0) && find_cap(rc, nc, 100) &&
	     find_cap(rc, nc, 700);
	for (i = 0; ok && i < nc; i++)
		ok = row_matches_core(&rc[i], 2500000) && (!i || rc[i].cap > rc[i - 1].cap);
	tap(ok, "--cap adds capacities once each (0 allowed), sorted in; a 2.5 ms tick (%d rows)", nc);
}

int main(int argc, char **argv)
{
	y = pow(0.5, 1.0 / 32);

	test_table();
	test_load_avg_max();
	test_decay_load();
	test_always_running();
	test_duty_cycle();
	test_idle_decay();
	test_random();
	test_rampup();
	test_round_trip();
	test_rfc_table();
	test_threshold();
	if (argc > 1)
		test_cli(argv[1]);
	return tap_failures ? 1 : 0;
}
