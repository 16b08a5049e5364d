/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small userspace helpers shared by the SCHED_DEADLINE examples, tests and
 * benchmarks: sched_setattr(SCHED_DEADLINE), CLOCK_MONOTONIC in ns, burning
 * CPU time, joining the cpuset partition named in DLPARAMS_CGROUP.
 */
#ifndef DL_UTIL_H
#define DL_UTIL_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

struct dl_sched_attr {
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
	uint32_t sched_util_min, sched_util_max;
};

static inline int dl_become(uint64_t runtime, uint64_t deadline, uint64_t period)
{
	struct dl_sched_attr a = {
		.size = sizeof(a), .sched_policy = SCHED_DEADLINE,
		.sched_runtime = runtime, .sched_deadline = deadline,
		.sched_period = period,
	};

	return syscall(SYS_sched_setattr, 0, &a, 0) ? -errno : 0;
}

static inline int64_t dl_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Burn CPU for about ns of this thread's CPU time. */
/*
 * A CPU-time jump this large between two consecutive clock reads in a busy
 * loop is not the loop's work: the (virtual) CPU stalled or a long interrupt
 * ran, and the thread was charged for it anyway. Emulators do this when
 * their host deschedules them.
 */
#define DL_STALL_NS (100 * 1000LL)

/* Burn @ns of this thread's CPU time; returns the largest jump seen (ns). */
static inline int64_t dl_burn(int64_t ns)
{
	struct timespec ts;
	int64_t end, now, prev, gap = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	prev = ts.tv_sec * 1000000000LL + ts.tv_nsec;
	end = prev + ns;
	do {
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		now = ts.tv_sec * 1000000000LL + ts.tv_nsec;
		if (now - prev > gap)
			gap = now - prev;
		prev = now;
	} while (now < end);
	return gap;
}

/* Join the cgroup named in DLPARAMS_CGROUP, if any (a cpuset partition). */
static inline void dl_join_cgroup(void)
{
	const char *cg = getenv("DLPARAMS_CGROUP");
	char path[512], pid[32];
	int fd;

	if (!cg)
		return;
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(pid, sizeof(pid), "%d", getpid());
	fd = open(path, O_WRONLY);
	if (fd >= 0) {
		if (write(fd, pid, strlen(pid)) < 0)
			perror(path);
		close(fd);
	}
}

#endif
