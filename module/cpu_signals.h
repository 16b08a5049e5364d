/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDLAB_CPU_SIGNALS_H
#define SCHEDLAB_CPU_SIGNALS_H

#include "schedlab.h"

/*
 * One CPU's CFS signals as read from its struct rq. Fields the running
 * kernel lacks read as SL_SIGNAL_NONE.
 */
#define SL_SIGNAL_NONE	((u64)-1)

struct sl_cpu_signals {
	u64 nr_running;		/* rq->nr_running: tasks of every class */
	u64 cfs_h_nr;		/* rq->cfs.h_nr_running (h_nr_queued on 6.13+) */
	u64 util_avg;		/* rq->cfs.avg.util_avg */
	u64 util_est;		/* rq->cfs.avg.util_est(.enqueued) */
	u64 capacity;		/* rq->cpu_capacity: left for CFS */
	u64 capacity_orig;	/* rq->cpu_capacity_orig, where it exists */
};

void sl_read_cpu_signals(int cpu, struct sl_cpu_signals *s);

extern struct sl_feature cpu_signals_feature;

#endif
