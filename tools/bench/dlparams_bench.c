// SPDX-License-Identifier: GPL-2.0
/*
 * dlparams_bench: cost per call of each way to learn a SCHED_DEADLINE
 * thread's leftover runtime and deadline, measured in one process:
 *   fast    the mapped page (libdlparams, one clock_gettime)
 *   read    read() on /dev/dlparams
 *   ioctl   DLPARAMS_IOC_GET_TID on the thread itself
 *   getattr sched_getattr(..., SCHED_GETATTR_FLAG_DL_DYNAMIC), if the kernel has it
 *   proc    open + read + parse /proc/self/sched, close
 * Paths are interleaved: each of BATCHES rounds times a short batch of every
 * path in turn, so a throttled period or a noisy moment hits all of them.
 * Per path: median ns per call over the batches, and the 10th-90th
 * percentile spread. Prints a table of ratios and writes JSON to argv[1].
 *
 * usage: dlparams_bench OUT.json [BATCHES]
 */
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

#include "../lib/dlparams.h"
#include "../lib/dl_util.h"

static struct dlparams_handle h;
static volatile int64_t sink;

static int do_fast(void)
{
	struct dlparams p;
	int r = dlparams_self_fast(&h, &p);

	sink += p.runtime_left_ns;
	return r;
}

static int do_read(void)
{
	struct dlparams p;
	int r = dlparams_self_read(&h, &p);

	sink += p.runtime_left_ns;
	return r;
}

static int do_ioctl(void)
{
	struct dlparams p;
	int r = dlparams_tid(&h, h.tid, &p);

	sink += p.runtime_left_ns;
	return r;
}

static int do_getattr(void)
{
	struct dl_sched_attr a;

	if (syscall(SYS_sched_getattr, 0, &a, sizeof(a), 1))
		return -errno;
	sink += a.sched_runtime;
	return 0;
}

static int do_proc(void)
{
	char buf[8192], *s;
	int fd = open("/proc/self/sched", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	s = strstr(buf, "dl.runtime");
	if (!s)
		return -ENODATA;
	s = strchr(s, ':');
	sink += s ? strtoll(s + 1, NULL, 10) : 0;
	s = strstr(buf, "dl.deadline");
	s = s ? strchr(s, ':') : NULL;
	sink += s ? strtoll(s + 1, NULL, 10) : 0;
	return 0;
}

struct path {
	const char *name;
	int (*fn)(void);
	int calls;		/* per batch */
	double *per_call;
	int ok;
};

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct path paths[] = {
		{ "fast", do_fast, 2000, NULL, 1 },
		{ "read", do_read, 200, NULL, 1 },
		{ "ioctl", do_ioctl, 200, NULL, 1 },
		{ "getattr", do_getattr, 200, NULL, 1 },
		{ "proc", do_proc, 20, NULL, 1 },
	};
	int np = sizeof(paths) / sizeof(paths[0]), batches, b, i, k, ret;
	double med[8], lo[8], hi[8], base;
	const char *base_name;
	FILE *out;

	if (argc < 2) {
		fprintf(stderr, "usage: %s OUT.json [BATCHES]\n", argv[0]);
		return 2;
	}
	batches = argc > 2 ? atoi(argv[2]) : 41;
	if (batches < 5)
		batches = 5;
	dl_join_cgroup();
	ret = dl_become(60000000, 100000000, 100000000);
	if (ret) {
		fprintf(stderr, "sched_setattr(SCHED_DEADLINE): %s\n", strerror(-ret));
		return 2;
	}
	ret = dlparams_open(&h, DLPARAMS_OPEN_MAP);
	if (ret) {
		fprintf(stderr, "%s: %s\n", DLPARAMS_DEVICE, strerror(-ret));
		return 2;
	}
	usleep(1000);	/* be switched in once: the page gets published */
	for (i = 0; i < np; i++) {
		paths[i].per_call = calloc(batches, sizeof(double));
		if (paths[i].fn() != 0) {
			paths[i].ok = 0;
			printf("# %s: not available on this kernel (%s)\n", paths[i].name,
			       strerror(-paths[i].fn()));
		}
	}
	for (b = 0; b < batches; b++) {
		for (i = 0; i < np; i++) {
			int64_t t0;

			if (!paths[i].ok)
				continue;
			t0 = dl_mono();
			for (k = 0; k < paths[i].calls; k++)
				paths[i].fn();
			paths[i].per_call[b] = (double)(dl_mono() - t0) / paths[i].calls;
		}
	}
	for (i = 0; i < np; i++) {
		if (!paths[i].ok)
			continue;
		qsort(paths[i].per_call, batches, sizeof(double), cmp);
		med[i] = paths[i].per_call[batches / 2];
		lo[i] = paths[i].per_call[batches / 10];
		hi[i] = paths[i].per_call[batches - 1 - batches / 10];
	}
	base_name = paths[3].ok ? "getattr" : "read";
	base = paths[3].ok ? med[3] : med[1];
	printf("%-8s %12s %12s %12s %14s %12s\n", "path", "median_ns", "p10_ns", "p90_ns",
	       "vs_getattr", "proc/path");
	for (i = 0; i < np; i++) {
		if (!paths[i].ok)
			continue;
		printf("%-8s %12.0f %12.0f %12.0f %13.2fx %11.1fx\n", paths[i].name, med[i], lo[i],
		       hi[i], base / med[i], med[4] / med[i]);
	}
	printf("# ratios: >1 means cheaper than %s (column 5) or than /proc/self/sched (column 6)\n",
	       base_name);
	out = fopen(argv[1], "w");
	if (!out) {
		perror(argv[1]);
		return 2;
	}
	fprintf(out, "{\n  \"benchmark\": \"dlparams\",\n  \"batches\": %d,\n  \"baseline\": \"%s\",\n  \"paths\": {\n",
		batches, base_name);
	for (i = 0, k = 0; i < np; i++) {
		if (!paths[i].ok)
			continue;
		fprintf(out, "%s    \"%s\": {\"median_ns\": %.1f, \"p10_ns\": %.1f, \"p90_ns\": %.1f, \"calls_per_batch\": %d}",
			k++ ? ",\n" : "", paths[i].name, med[i], lo[i], hi[i], paths[i].calls);
	}
	fprintf(out, "\n  }\n}\n");
	fclose(out);
	dlparams_close(&h);
	return 0;
}
