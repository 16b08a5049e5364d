/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDLAB_HIST_CORE_H
#define SCHEDLAB_HIST_CORE_H

/* log2 histograms of durations, shared by the cores (kernel and host) */
#include "pelt_core.h"	/* u64 and div_u64() outside the kernel */

/*
 * The bucket of a duration of @ns: floor(log2(us)) of it in whole
 * microseconds, 0 below 2 us, at most @nr_buckets - 1.
 */
static inline unsigned int sl_log2_us_bucket(u64 ns, unsigned int nr_buckets)
{
	u64 us = div_u64(ns, 1000);
	unsigned int b = 0;

	while (us >= 2 && b < nr_buckets - 1) {
		us >>= 1;
		b++;
	}
	return b;
}

#endif /* SCHEDLAB_HIST_CORE_H */
