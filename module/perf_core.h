/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDLAB_PERF_CORE_H
#define SCHEDLAB_PERF_CORE_H

/*
 * perf_core: the performance level (and frequency) each policy would
 * request for one CPU, from the CPU's signals. Kernel-agnostic: the
 * module fills struct sl_perf_in from struct rq and the CPU's tasks, the
 * host test (tests/host/test_perf.c) from synthetic values. Definitions
 * and what each one mirrors: perf_core.c and docs/perf.md.
 */
#include "pelt_core.h"

/* One CPU's signals, as effective_cpu_util() and schedutil read them. */
struct sl_perf_in {
	unsigned long cap;		/* arch_scale_cpu_capacity() */
	unsigned long util_avg;		/* rq->cfs.avg.util_avg */
	unsigned long runnable_avg;	/* rq->cfs.avg.runnable_avg (0: none) */
	unsigned long util_est;		/* rq->cfs.avg.util_est, flag masked (0: none) */
	unsigned long rt;		/* rq->avg_rt.util_avg */
	unsigned long dl;		/* rq->avg_dl.util_avg */
	unsigned long irq;		/* rq->avg_irq.util_avg (0: none) */
	unsigned long bw_dl;		/* running_bw scaled to 1024 */
	unsigned long rq_uclamp_min;	/* max-aggregated: 0 without uclamp */
	unsigned long rq_uclamp_max;	/* max-aggregated: 1024 without uclamp */
	int uclamp_used;		/* sched_uclamp_used is on */
	int rt_runnable;		/* rt_rq_is_runnable(&rq->rt) */
};

/*
 * Per-runqueue sums of the CFS tasks enqueued on the CPU, for sum
 * aggregation: the biases clamp(util_avg, min, max) - util_avg and the
 * clamped util_est.
 */
struct sl_perf_sum {
	s64 bias;
	u64 util_est;
	u32 nr;
};

/* the three levels of a policy: effective util, its bounds, the request */
struct sl_perf_out {
	unsigned long util;		/* effective_cpu_util()'s result */
	unsigned long min, max;		/* its *min and *max */
	unsigned long perf;		/* the performance level requested */
};

/* One CPU's sample: the inputs and every policy's result (report, trace). */
struct sl_perf_cpu {
	int cpu;
	int self;			/* sampled on the CPU itself (the sampler counted) */
	int has_uclamp;			/* the uclamp columns and the sum policy exist */
	struct sl_perf_in in;
	struct sl_perf_sum sum;
	long kernel_util;		/* the kernel's sched_cpu_util(), -1: none */
	unsigned long eff_util;		/* sl_perf_effective() of cpu_util_cfs(): its mirror */
	struct sl_perf_out max, time, sum_out;
	u64 max_khz, time_khz, sum_khz;
	/* the kernel's own, read beside (-1: none) */
	long freq_scale;		/* arch_freq_scale: invariance factor, 0..1024 */
	long policy_cur_khz;		/* the CPU's cpufreq policy: current (requested) */
	long policy_max_khz;		/* and maximum frequency */
};

#define SL_PERF_BW_SHIFT	20	/* the kernel's BW_SHIFT */

unsigned long sl_perf_bw_to_util(u64 running_bw);
unsigned long sl_perf_cfs_util(const struct sl_perf_in *in, int boost);
unsigned long sl_perf_effective(const struct sl_perf_in *in, unsigned long cfs,
				unsigned long rq_min, unsigned long rq_max,
				unsigned long *min, unsigned long *max);
unsigned long sl_perf_headroom_125(unsigned long util);
unsigned long sl_perf_headroom_time(unsigned long util, u64 window_ns);
unsigned long sl_perf_request(unsigned long actual, unsigned long min,
			      unsigned long max);

void sl_perf_sum_add(struct sl_perf_sum *s, unsigned long util_avg,
		     unsigned long util_est, unsigned long umin,
		     unsigned long umax);
unsigned long sl_perf_sum_cfs(const struct sl_perf_in *in,
			      const struct sl_perf_sum *s);

void sl_perf_max_policy(const struct sl_perf_in *in, struct sl_perf_out *o);
void sl_perf_time_policy(const struct sl_perf_in *in, u64 window_ns,
			 struct sl_perf_out *o);
void sl_perf_sum_policy(const struct sl_perf_in *in, const struct sl_perf_sum *s,
			struct sl_perf_out *o);

u64 sl_perf_freq(unsigned long perf, unsigned long cap, u64 max_freq_khz,
		 unsigned int nr_opps);

#endif /* SCHEDLAB_PERF_CORE_H */
