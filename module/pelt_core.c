// SPDX-License-Identifier: GPL-2.0
/*
 * pelt_core: fixed-point PELT utilization, the way kernel/sched/pelt.c
 * computes it, plus the response-time helpers of the "dynamic threshold"
 * idea (how fast util ramps, and how much margin a CPU needs so that a
 * task growing out of it is noticed before the next tick).
 *
 * The signal
 * ----------
 * Time is cut into periods of 1024 units of 1024 ns (2^20 ns, ~1 ms). Let
 * r_i be the part of period i (counting back from the current one, i = 0)
 * the entity spent running, scaled by the capacity it ran at. Then
 *
 *	util_sum = 1024 * (r_0 + r_1 * y + r_2 * y^2 + ...)
 *
 * with y chosen so that y^32 = 1/2: what ran 32 periods ago counts half.
 * util_avg divides util_sum by the largest value it could have had, i.e.
 * by the sum for an entity that always ran:
 *
 *	divider = 1024 * (y + y^2 + ...) + period_contrib
 *		= LOAD_AVG_MAX - 1024 + period_contrib
 *
 * where period_contrib is the elapsed part of the current period, so
 * util_avg is in [0, 1024].
 *
 * The fixed-point arithmetic
 * --------------------------
 * y^n is a multiplication by sl_pelt_y_inv[n % 32] / 2^32 and a right
 * shift by n / 32 (sl_pelt_decay_load()). LOAD_AVG_MAX is not the real
 * 1024 / (1 - y) = 47788 but the fixed point of the truncating integer
 * iteration sum = decay(sum, 1) + 1024, which is what the sums built by
 * decay_load() can reach.
 *
 * An update that moves d units forward from period_contrib c splits the
 * interval in three (sl_pelt_segments()):
 *
 *	    d1          d2 = p - 1 full periods        d3
 *	|<------->|<----------....-------->|<-------->|
 *	 end of the    periods crossed         start of
 *	 old period    entirely                the new one
 *
 * The old sum and d1 are decayed by the p periods crossed, the full
 * periods add 1024 * (y + ... + y^(p-1)), computed as LOAD_AVG_MAX minus
 * its own p-period decay minus the y^0 term, and d3 is in the current
 * period (weight 1). The running part is scaled by capacity * frequency
 * invariance (cap_scale: contrib * scale >> 10) before being added.
 *
 * Like the kernel, an update consumes only whole 1024 ns units (the rest
 * of delta is left for the next update, last_update_time advancing by
 * the units consumed) and refreshes util_avg only when a period boundary
 * is crossed; sl_pelt_util_now() gives the value at the last update.
 *
 * Response time
 * -------------
 * sl_pelt_approx_util_avg() and sl_pelt_approx_runtime() run that same
 * arithmetic one whole period at a time for an entity that always runs
 * at full scale: where util ends after some more running, and how long a
 * ramp from 0 takes. The loops stop at the integer fixed point of util_sum
 * (at most 667 periods, from 0; util_avg is 1024 after 323), after which
 * further periods change nothing, and are bounded by SL_PELT_MAX_PERIODS
 * (2016) in any case.
 *
 * sl_pelt_margin_threshold() is the migration margin of the response-time
 * RFC: per capacity, the util above which a task has to leave the CPU (or
 * the CPU go faster) now. Its derivation is beside the code.
 */
#include "pelt_core.h"

/* floor((2^32 - 1) * y^n) for n = 0..31, y = 2^(-1/32) */
const u32 sl_pelt_y_inv[SL_PELT_HALFLIFE] = {
	0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a,
	0xeac0c6e6, 0xe5b906e6, 0xe0ccdeeb, 0xdbfbb796,
	0xd744fcc9, 0xd2a81d91, 0xce248c14, 0xc9b9bd85,
	0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46,
	0xb504f333, 0xb123f581, 0xad583ee9, 0xa9a15ab4,
	0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9,
	0x9837f050, 0x94f4efa8, 0x91c3d373, 0x8ea4398a,
	0x8b95c1e3, 0x88980e80, 0x85aac367, 0x82cd8698,
};

/**
 * sl_pelt_decay_load - val * y^n in fixed point
 * @val: the value to decay
 * @n: number of periods
 *
 * y^32 = 1/2, so whole half-lives are shifts and the remaining n % 32
 * periods one multiply by the inverse table. Past 63 half-lives any u64
 * is gone.
 */
u64 sl_pelt_decay_load(u64 val, u64 n)
{
	unsigned int local_n;

	if (n > 63 * SL_PELT_HALFLIFE)
		return 0;

	local_n = (unsigned int)n;
	if (local_n >= SL_PELT_HALFLIFE) {
		val >>= local_n / SL_PELT_HALFLIFE;
		local_n %= SL_PELT_HALFLIFE;
	}

	return mul_u64_u32_shr(val, sl_pelt_y_inv[local_n], 32);
}

/*
 * Contribution, in 1024 ns units weighted by their decay, of an interval
 * crossing @periods (> 0) period boundaries: @d1 units ending the old
 * period, @periods - 1 full periods, @d3 units of the new period.
 */
static u32 sl_pelt_segments(u64 periods, u32 d1, u32 d3)
{
	u32 c1, c2, c3 = d3;	/* y^0 == 1 */

	c1 = (u32)sl_pelt_decay_load((u64)d1, periods);
	/* 1024 * (y + y^2 + ... + y^(periods - 1)) */
	c2 = SL_PELT_LOAD_AVG_MAX -
	     (u32)sl_pelt_decay_load(SL_PELT_LOAD_AVG_MAX, periods) -
	     SL_PELT_PERIOD;

	return c1 + c2 + c3;
}

/*
 * Move @sa forward by @delta units of 1024 ns, running at @scale (0 for
 * not running). Returns the number of period boundaries crossed.
 */
static u64 sl_pelt_accumulate(struct sl_pelt_avg *sa, u64 delta,
			      unsigned long scale)
{
	u32 contrib = (u32)delta;	/* no boundary crossed: delta < 1024 */
	u64 periods;

	delta += sa->period_contrib;
	periods = delta / SL_PELT_PERIOD;

	if (periods) {
		sa->util_sum = sl_pelt_decay_load(sa->util_sum, periods);
		delta %= SL_PELT_PERIOD;
		contrib = sl_pelt_segments(periods,
					   SL_PELT_PERIOD - sa->period_contrib,
					   (u32)delta);
	}
	sa->period_contrib = (u32)delta;

	if (scale) {
		/* cap_scale() */
		u64 scaled = ((u64)contrib * scale) >> SL_PELT_CAPACITY_SHIFT;

		sa->util_sum += scaled << SL_PELT_CAPACITY_SHIFT;
	}

	return periods;
}

/**
 * sl_pelt_divider - what util_sum is divided by
 * @sa: the signal
 *
 * The sum an always-running entity has at this point of the period.
 */
u32 sl_pelt_divider(const struct sl_pelt_avg *sa)
{
	return SL_PELT_MIN_DIVIDER + sa->period_contrib;
}

/**
 * sl_pelt_util_now - util_avg as of the last update
 * @sa: the signal
 *
 * util_sum / divider, whether or not the last update crossed a period
 * boundary (sa->util_avg is only refreshed when it did).
 */
unsigned long sl_pelt_util_now(const struct sl_pelt_avg *sa)
{
	return (unsigned long)div_u64(sa->util_sum, sl_pelt_divider(sa));
}

/**
 * sl_pelt_init - start a signal at a given util
 * @sa: the signal
 * @now_ns: time of the start, a period boundary from then on
 * @util: initial util_avg, clamped to 1024
 *
 * util_sum is set to util * divider, as if the entity had always run at
 * util / 1024 of the time (the kernel does the same for new tasks).
 */
void sl_pelt_init(struct sl_pelt_avg *sa, u64 now_ns, unsigned long util)
{
	if (util > SL_PELT_CAPACITY_SCALE)
		util = SL_PELT_CAPACITY_SCALE;
	sa->last_update_time = now_ns;
	sa->period_contrib = 0;
	sa->util_sum = (u64)util * SL_PELT_MIN_DIVIDER;
	sa->util_avg = util;
}

/**
 * sl_pelt_update - account the time since the last update
 * @sa: the signal
 * @now_ns: current time in ns
 * @running: whether the entity ran since the last update
 * @scale: capacity * frequency invariance of that running, 0..1024
 *	(larger values are taken as 1024)
 *
 * Only whole 1024 ns units are consumed; a clock that went backwards just
 * resets last_update_time. util_avg is recomputed when a period boundary
 * was crossed, as ___update_load_avg() does.
 *
 * Return: true if at least one period boundary was crossed.
 */
bool sl_pelt_update(struct sl_pelt_avg *sa, u64 now_ns, bool running,
		    unsigned long scale)
{
	u64 delta = now_ns - sa->last_update_time;

	if ((s64)delta < 0) {
		sa->last_update_time = now_ns;
		return false;
	}

	delta >>= SL_PELT_UNIT_SHIFT;
	if (!delta)
		return false;
	sa->last_update_time += delta << SL_PELT_UNIT_SHIFT;

	if (scale > SL_PELT_CAPACITY_SCALE)
		scale = SL_PELT_CAPACITY_SCALE;
	if (!sl_pelt_accumulate(sa, delta, running ? scale : 0))
		return false;

	sa->util_avg = sl_pelt_util_now(sa);
	return true;
}

/**
 * sl_pelt_update_within - account time that crosses no period boundary
 * @sa: the signal
 * @now_ns: current time in ns
 * @running_ns: how long the entity ran since the last update
 * @other_ns: how long it did not
 * @scale: capacity * frequency invariance of that running
 *
 * For time gathered over several intervals that all lie in the current
 * period (the caller knows no boundary was crossed): within a period the
 * order of running and not running does not matter, so one update adds
 * them all. Like sl_pelt_update(), whole 1024 ns units are consumed; the
 * running part is @running_ns in whole units, or all the units consumed
 * when @other_ns is 0, so that running throughout gives exactly what
 * sl_pelt_update(running = true) would. A boundary crossed after all (a
 * caller's bug) falls back to sl_pelt_update() in the majority state.
 */
void sl_pelt_update_within(struct sl_pelt_avg *sa, u64 now_ns, u64 running_ns,
			   u64 other_ns, unsigned long scale)
{
	u64 delta = now_ns - sa->last_update_time, run;

	if ((s64)delta < 0)
		return;
	delta >>= SL_PELT_UNIT_SHIFT;
	if (!delta)
		return;
	if (sa->period_contrib + delta >= SL_PELT_PERIOD) {
		sl_pelt_update(sa, now_ns, running_ns > other_ns, scale);
		return;
	}
	run = other_ns ? running_ns >> SL_PELT_UNIT_SHIFT : delta;
	if (run > delta)
		run = delta;
	if (scale > SL_PELT_CAPACITY_SCALE)
		scale = SL_PELT_CAPACITY_SCALE;
	sa->last_update_time += delta << SL_PELT_UNIT_SHIFT;
	sa->period_contrib += (u32)delta;
	/* cap_scale(), as in sl_pelt_accumulate() */
	sa->util_sum += ((run * scale) >> SL_PELT_CAPACITY_SHIFT) << SL_PELT_CAPACITY_SHIFT;
}

/* The first instant at which @sa's next period boundary is crossed. */
u64 sl_pelt_next_boundary(const struct sl_pelt_avg *sa)
{
	return sa->last_update_time +
	       ((u64)(SL_PELT_PERIOD - sa->period_contrib) << SL_PELT_UNIT_SHIFT);
}

/**
 * sl_pelt_approx_util_avg - util reached after running some more
 * @util: util_avg to start from (clamped to 1024), at a period boundary
 * @delta_ns: how long the entity keeps running, at full scale
 *
 * Runs the fixed-point update one whole period at a time, then the rest
 * of @delta_ns (whole 1024 ns units). The loop ends at the integer fixed
 * point (a whole period that leaves util_sum unchanged, so every further
 * one does too) or after SL_PELT_MAX_PERIODS periods.
 *
 * Return: util_avg after @delta_ns.
 */
unsigned long sl_pelt_approx_util_avg(unsigned long util, u64 delta_ns)
{
	u64 periods = delta_ns >> SL_PELT_PERIOD_NS_SHIFT;
	struct sl_pelt_avg sa;
	u64 now = 0, n, prev;

	sl_pelt_init(&sa, 0, util);
	if (!delta_ns)
		return sa.util_avg;

	for (n = 0; n < periods && n < SL_PELT_MAX_PERIODS; n++) {
		prev = sa.util_sum;
		now += SL_PELT_PERIOD_NS;
		sl_pelt_update(&sa, now, true, SL_PELT_CAPACITY_SCALE);
		if (sa.util_sum == prev)
			break;
	}
	now += delta_ns & (SL_PELT_PERIOD_NS - 1);
	sl_pelt_update(&sa, now, true, SL_PELT_CAPACITY_SCALE);

	return sl_pelt_util_now(&sa);
}

/**
 * sl_pelt_approx_runtime - time to ramp from 0 to a util
 * @util: target util_avg
 *
 * Counts whole periods of always running at full scale, from 0, until
 * util_avg >= @util, with the same steps as sl_pelt_approx_util_avg(), so
 * that sl_pelt_approx_util_avg(0, sl_pelt_approx_runtime(u)) >= u and one
 * period less falls short. @util is clamped to 1024, which the integer
 * signal reaches (after 323 periods); were a target ever out of reach, the
 * time at which util_sum stops changing would be returned.
 *
 * Return: the ramp-up time in ns, a whole number of periods.
 */
u64 sl_pelt_approx_runtime(unsigned long util)
{
	struct sl_pelt_avg sa;
	u64 n, prev;

	sl_pelt_init(&sa, 0, 0);
	if (!util)
		return 0;
	if (util > SL_PELT_CAPACITY_SCALE)
		util = SL_PELT_CAPACITY_SCALE;

	for (n = 1; n <= SL_PELT_MAX_PERIODS; n++) {
		prev = sa.util_sum;
		sl_pelt_update(&sa, n * SL_PELT_PERIOD_NS, true,
			       SL_PELT_CAPACITY_SCALE);
		if (sa.util_avg >= util)
			break;
		if (sa.util_sum == prev) {
			/* saturated one period ago */
			n--;
			break;
		}
	}
	if (n > SL_PELT_MAX_PERIODS)
		n = SL_PELT_MAX_PERIODS;

	return n * SL_PELT_PERIOD_NS;
}

/*
 * The migration margin
 * --------------------
 * The response-time RFC (Yousef, "sched/fair/schedutil: Better manage
 * system response time") asks: how long may a task that runs flat out stay
 * on a CPU of capacity C before the scheduler must have moved it? Its
 * answer is the time the task would need, on the biggest CPU at top speed,
 * to ramp its util from 0 to C:
 *
 *	R(C) = sl_pelt_approx_runtime(C)
 *
 * Past that, a task that could have had util C elsewhere is still on a CPU
 * that cannot give it C. On the CPU of capacity C, though, PELT time runs
 * C/1024 as fast as the wall clock (utilization invariance: clock_pelt),
 * so while R(C) passes the task accrues only R(C) * C/1024 of PELT time,
 * and the scheduler looks at the task only at a tick, one tick of it
 * being lost in the worst case. The PELT time the task has is
 *
 *	W(C) = (R(C) - tick) * C / 1024
 *
 * and the threshold is the util it reaches from 0 in W(C):
 *
 *	threshold(C) = util after running W(C) from 0
 *
 * Because R grows faster than linearly in C and W is R scaled down by C,
 * the threshold is a small share of a small capacity (26 of 160) and a
 * large one of a large capacity (633 of 752): the smaller the CPU, the
 * larger its margin C - threshold(C) as a share of C. The margin is not
 * room for one more tick of growth: it pays for the time dilation of a
 * slow CPU, and the tick only shortens the window.
 *
 * The arithmetic, step by step, is the one that reproduces every row of
 * the RFC's published table, both columns (tick 0 and a 1 ms tick, the
 * host test checks them all):
 *
 *  1. R(C) in whole PELT periods: n updates of one full period each, from
 *     0, until util_avg >= C (sl_pelt_approx_runtime() / period);
 *  2. n converted to microseconds as if a period were 1 ms, n * 1000 (the
 *     RFC's runtime is a count of "ms" multiplied by USEC_PER_MSEC), less
 *     the tick in microseconds (TICK_USEC: tick_ns / 1000), at least 0;
 *  3. scaled by the capacity as cap_scale() does: (x * C) >> 10;
 *  4. the result taken as a number of PELT's 1024 ns units (the kernel's
 *     "us" after delta >> 10) and consumed by ONE update from util 0 at a
 *     period boundary: the sum decayed once over the p periods crossed,
 *     1024 * (y + ... + y^(p-1)) added as LOAD_AVG_MAX minus its own
 *     p-period decay minus 1024, util = util_sum / divider.
 *
 * Steps 2 and 4 matter for an exact match. Counting a period as its real
 * 1024 units in step 2 (a window 2.4% longer) gives 27 and 24 instead of
 * 26 and 23 at capacity 160, and 642/636 instead of 633/627 at 752. Going
 * one period at a time in step 4 (sl_pelt_approx_util_avg(), which
 * truncates at every period) is one too high at 320, 384, 720 and 736
 * (tick 0) and 304 (1 ms tick).
 */

/**
 * sl_pelt_margin_window - the PELT time a task has before it must move
 * @capacity: capacity of the CPU (0..1024; larger is taken as 1024)
 * @tick_ns: tick period (0: react at once)
 *
 * Return: W(C) of the derivation above, in 1024 ns units: ((n * 1000 -
 * tick_ns / 1000) * C) >> 10, n the whole periods to ramp from 0 to C;
 * 0 when the tick is longer than the ramp.
 */
u64 sl_pelt_margin_window(unsigned long capacity, u64 tick_ns)
{
	u64 n, us, tick_us = div_u64(tick_ns, 1000);

	if (capacity > SL_PELT_CAPACITY_SCALE)
		capacity = SL_PELT_CAPACITY_SCALE;
	n = sl_pelt_approx_runtime(capacity) >> SL_PELT_PERIOD_NS_SHIFT;
	us = n * 1000;
	if (us <= tick_us)
		return 0;

	return ((us - tick_us) * capacity) >> SL_PELT_CAPACITY_SHIFT;
}

/**
 * sl_pelt_margin_threshold - the migration threshold of a capacity
 * @capacity: capacity of the CPU (0..1024; larger is taken as 1024)
 * @tick_ns: tick period (0: react at once)
 *
 * A util above the threshold does not fit the CPU: see the derivation
 * above. The threshold grows with @capacity and shrinks as @tick_ns grows.
 *
 * Return: util reached from 0 by one update running
 * sl_pelt_margin_window() units at full scale.
 */
unsigned long sl_pelt_margin_threshold(unsigned long capacity, u64 tick_ns)
{
	u64 units = sl_pelt_margin_window(capacity, tick_ns);
	struct sl_pelt_avg sa;

	sl_pelt_init(&sa, 0, 0);
	/* one update: one decay of the sum, as the RFC's single accumulate */
	sl_pelt_update(&sa, units << SL_PELT_UNIT_SHIFT, true,
		       SL_PELT_CAPACITY_SCALE);

	return sl_pelt_util_now(&sa);
}
