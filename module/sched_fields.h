/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched_fields: one accessor per private scheduler field that more than one
 * feature reads, so that the ladder over the kernels' layouts (from BTF,
 * layout.spec) is written once. Each says what it returns where the kernel
 * has no such field. Lockless reads (READ_ONCE through SL_READ).
 */
#ifndef SCHEDLAB_SCHED_FIELDS_H
#define SCHEDLAB_SCHED_FIELDS_H

#include <linux/sched.h>
#include <linux/sched/topology.h>
#include "compat.h"

/*
 * rq->cfs.avg.util_est: its enqueued part before 6.9, one word since (bit
 * 31 is the UTIL_AVG_UNCHANGED flag); -1 where the kernel has none.
 */
static inline long sl_rq_util_est(void *rq)
{
#if SL_HAS_rq__cfs__avg__util_est__enqueued
	return SL_READ(rq, rq__cfs__avg__util_est__enqueued);
#elif SL_HAS_rq__cfs__avg__util_est
	return SL_READ(rq, rq__cfs__avg__util_est) & 0x7fffffffUL;
#else
	return -1;
#endif
}

/* p->se.avg.util_est, the same way (flag bit cleared); -1 where none */
static inline long sl_task_util_est(struct task_struct *p)
{
#if SL_HAS_task_struct__se__avg__util_est__enqueued
	return SL_READ(p, task_struct__se__avg__util_est__enqueued) & 0x7fffffffUL;
#elif SL_HAS_task_struct__se__avg__util_est
	return SL_READ(p, task_struct__se__avg__util_est) & 0x7fffffffUL;
#else
	return -1;
#endif
}

/*
 * p->se.sched_delayed: the fair class kept @p queued after it blocked
 * (delayed dequeue, 6.12+); false where the kernel has no delayed dequeue.
 */
static inline bool sl_task_delayed(struct task_struct *p)
{
#if SL_HAS_task_struct__se__sched_delayed
	return SL_READ(p, task_struct__se__sched_delayed);
#else
	return false;
#endif
}

/*
 * rq->donor: the task whose scheduling context the CPU runs, which with
 * proxy execution may be a blocked task lending it to rq->curr (6.14+);
 * NULL where the kernel has no such field (then it is always curr).
 */
static inline struct task_struct *sl_rq_donor(void *rq)
{
#if SL_HAS_rq__donor
	return (struct task_struct *)SL_READ(rq, rq__donor);
#else
	return NULL;
#endif
}

/*
 * @p is queued on its runqueue and not being moved: p->on_rq is 1
 * (TASK_ON_RQ_QUEUED, kernel/sched/sched.h, unchanged since 3.19; 2 is
 * TASK_ON_RQ_MIGRATING, 0 dequeued).
 */
static inline bool sl_task_queued(struct task_struct *p)
{
	return READ_ONCE(p->on_rq) == 1;
}

/* rq->cpu_capacity_orig; -1 where the kernel keeps none (6.7+) */
static inline long sl_rq_capacity_orig(void *rq)
{
#if SL_HAS_rq__cpu_capacity_orig
	return SL_READ(rq, rq__cpu_capacity_orig);
#else
	return -1;
#endif
}

/*
 * The CPU's original capacity as the rules use it: rq->cpu_capacity_orig
 * where the kernel has a non-zero one, else the arch topology's cpu_scale
 * (6.7+ keep none in the rq), else the scale (sl_cpu_scale(): an x86
 * guest's every CPU is at the scale).
 */
static inline unsigned long sl_rq_capacity_orig_or_scale(void *rq)
{
	long cap = sl_rq_capacity_orig(rq);

	return cap > 0 ? cap : sl_cpu_scale((int)SL_READ(rq, rq__cpu));
}

/*
 * rq->uclamp[UCLAMP_MIN].value and [UCLAMP_MAX].value (the max-aggregated
 * clamps of the runnable tasks); false, and 0/SCHED_CAPACITY_SCALE, where
 * the kernel has no uclamp.
 */
static inline bool sl_rq_uclamp(void *rq, unsigned long *min, unsigned long *max)
{
#if SL_HAS_rq__uclamp && SL_HAS_SIZE_uclamp_rq && SL_HAS_uclamp_rq__value
	char *uc = (char *)rq + SL_OFF_rq__uclamp;

	*min = sl_read_width(uc + SL_OFF_uclamp_rq__value, SL_SZ_uclamp_rq__value);
	*max = sl_read_width(uc + SL_SIZE_uclamp_rq + SL_OFF_uclamp_rq__value,
			     SL_SZ_uclamp_rq__value);
	return true;
#else
	*min = 0;
	*max = SCHED_CAPACITY_SCALE;
	return false;
#endif
}

#endif /* SCHEDLAB_SCHED_FIELDS_H */
