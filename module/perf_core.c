// SPDX-License-Identifier: GPL-2.0
/*
 * perf_core: the performance request of three frequency policies, side
 * by side (docs/perf.md).
 *
 * max   the kernel's: schedutil's sugov_get_util() (7.x): the CFS util
 *       with the runnable boost, cpu_util_cfs_boost() =
 *       min(max(util_avg, runnable_avg, util_est), cap); effective_cpu_util()
 *       adds rt and dl, scales by the irq pressure and bounds the request
 *       with the runqueue's max-aggregated clamps (min = max(irq + bw_dl,
 *       rq uclamp_min), max = min(cap, rq uclamp_max)); the request is
 *       sugov_effective_cpu_perf(): max(min, min(util * 1.25, max)), the
 *       1.25 being map_util_perf()'s util + util / 4.
 * time  the same util and bounds, but the headroom is time-based (the
 *       response-time RFC): the util the CPU's load reaches if it keeps
 *       running for one more window (the tick, or the frequency update
 *       delay if longer), sl_pelt_approx_util_avg(), instead of * 1.25.
 * sum   uclamp sum aggregation (Xia v2): the clamps act per task, not per
 *       runqueue: CFS util = max(util_avg + sum of the enqueued tasks'
 *       biases clamp(util, min, max) - util, sum of their clamped
 *       util_est), capped at cap; effective_cpu_util() then without rq
 *       clamps (min = irq + bw_dl, max = cap) and the same 1.25 headroom.
 *       The runnable boost is not applied: runnable_avg carries no clamp,
 *       an always-running capped task would lift it to the top.
 *
 * The frequency: map_util_freq(), ref_freq * perf / cap, then the lowest
 * frequency of the reference table at or above it (the table: nr_opps
 * equal steps up to ref_freq, CPUFREQ_RELATION_L), or the raw value with
 * no table.
 */
#include "perf_core.h"

static unsigned long umax(unsigned long a, unsigned long b)
{
	return a > b ? a : b;
}

static unsigned long umin(unsigned long a, unsigned long b)
{
	return a < b ? a : b;
}

/* cpu_bw_dl(): running_bw (BW_SHIFT fixed point) on the capacity scale */
unsigned long sl_perf_bw_to_util(u64 running_bw)
{
	return (running_bw * SL_PELT_CAPACITY_SCALE) >> SL_PERF_BW_SHIFT;
}

/*
 * cpu_util_cfs() (boost 0) and cpu_util_cfs_boost() (boost 1), for the
 * CPU itself (no task added or removed); util_est counts as the kernel's
 * UTIL_EST feature is on by default.
 */
unsigned long sl_perf_cfs_util(const struct sl_perf_in *in, int boost)
{
	unsigned long util = in->util_avg;

	if (boost)
		util = umax(util, in->runnable_avg);
	util = umax(util, in->util_est);
	return umin(util, in->cap);
}

/*
 * effective_cpu_util() with the runqueue's clamps @rq_min, @rq_max: the
 * util of every class on the capacity scale, *min and *max the bounds of
 * the request.
 */
unsigned long sl_perf_effective(const struct sl_perf_in *in, unsigned long cfs,
				unsigned long rq_min, unsigned long rq_max,
				unsigned long *min, unsigned long *max)
{
	unsigned long scale = in->cap, irq = in->irq, util;

	/* irq/steal time saturates the CPU */
	if (irq >= scale) {
		*min = scale;
		*max = scale;
		return scale;
	}
	/* the DL bandwidth with the irq pressure, or the minimum clamp */
	*min = umax(irq + in->bw_dl, rq_min);
	/* a runnable RT task without uclamp: full speed */
	if (!in->uclamp_used && in->rt_runnable)
		*min = umax(*min, scale);

	util = cfs + in->rt + in->dl;
	*max = umin(scale, rq_max);
	if (util >= scale)
		return scale;
	/* U' = irq + (scale - irq) / scale * U */
	util = util * (scale - irq) / scale;
	util += irq;
	return umin(scale, util);
}

/* map_util_perf(): the fixed 1.25 headroom */
unsigned long sl_perf_headroom_125(unsigned long util)
{
	return util + (util >> 2);
}

/*
 * Time-based headroom: the util reached after @window_ns more running at
 * full speed, from @util (the PELT core's fixed-point arithmetic).
 */
unsigned long sl_perf_headroom_time(unsigned long util, u64 window_ns)
{
	return sl_pelt_approx_util_avg(umin(util, SL_PELT_CAPACITY_SCALE), window_ns);
}

/* sugov_effective_cpu_perf(): @actual with its headroom, within [min, max] */
unsigned long sl_perf_request(unsigned long actual, unsigned long min,
			      unsigned long max)
{
	if (actual < max)
		max = actual;
	return umax(min, max);
}

/*
 * Clamp as uclamp_rq_util_with() does: an inverted pair (min >= max, as
 * max aggregation can produce) gives min.
 */
static unsigned long clamp_util(unsigned long v, unsigned long lo,
				unsigned long hi)
{
	if (lo >= hi)
		return lo;
	return umin(umax(v, lo), hi);
}

/* One enqueued CFS task's contribution to the sums. */
void sl_perf_sum_add(struct sl_perf_sum *s, unsigned long util_avg,
		     unsigned long util_est, unsigned long lo, unsigned long hi)
{
	s->bias += (s64)clamp_util(util_avg, lo, hi) - (s64)util_avg;
	s->util_est += clamp_util(util_est, lo, hi);
	s->nr++;
}

/* The sum-aggregated CFS util: max(util_avg + bias, clamped util_est), <= cap */
unsigned long sl_perf_sum_cfs(const struct sl_perf_in *in,
			      const struct sl_perf_sum *s)
{
	s64 biased = (s64)in->util_avg + s->bias;
	unsigned long util = biased > 0 ? (unsigned long)biased : 0;

	if (s->util_est > util)
		util = s->util_est;
	return umin(util, in->cap);
}

void sl_perf_max_policy(const struct sl_perf_in *in, struct sl_perf_out *o)
{
	o->util = sl_perf_effective(in, sl_perf_cfs_util(in, 1), in->rq_uclamp_min,
				    in->rq_uclamp_max, &o->min, &o->max);
	o->perf = sl_perf_request(sl_perf_headroom_125(o->util), o->min, o->max);
}

void sl_perf_time_policy(const struct sl_perf_in *in, u64 window_ns,
			 struct sl_perf_out *o)
{
	o->util = sl_perf_effective(in, sl_perf_cfs_util(in, 1), in->rq_uclamp_min,
				    in->rq_uclamp_max, &o->min, &o->max);
	o->perf = sl_perf_request(sl_perf_headroom_time(o->util, window_ns),
				  o->min, o->max);
}

void sl_perf_sum_policy(const struct sl_perf_in *in, const struct sl_perf_sum *s,
			struct sl_perf_out *o)
{
	o->util = sl_perf_effective(in, sl_perf_sum_cfs(in, s), 0,
				    SL_PELT_CAPACITY_SCALE, &o->min, &o->max);
	o->perf = sl_perf_request(sl_perf_headroom_125(o->util), o->min, o->max);
}

/*
 * map_util_freq() then the table: the lowest of the @nr_opps equal steps
 * up to @max_freq_khz at or above the raw frequency (the top one if none
 * is); @nr_opps 0: the raw frequency.
 */
u64 sl_perf_freq(unsigned long perf, unsigned long cap, u64 max_freq_khz,
		 unsigned int nr_opps)
{
	u64 raw, f;
	unsigned int i;

	if (!cap)
		return 0;
	raw = div_u64(max_freq_khz * perf, cap);
	if (!nr_opps)
		return raw;
	for (i = 1; i <= nr_opps; i++) {
		f = div_u64(max_freq_khz * i, nr_opps);
		if (f >= raw)
			return f;
	}
	return max_freq_khz;
}
