// SPDX-License-Identifier: GPL-2.0
/*
 * rename_loop: contention on a kernel mutex from ordinary syscalls. Moving
 * a directory from one parent to another takes the filesystem's
 * s_vfs_rename_mutex (lock_rename(); since 6.x kernels a non-directory
 * moves without it), so a few of these on one filesystem wait on each
 * other's mutex all the time.
 *
 *   rename_loop [-p USEC] [-l] DIR SECONDS [NAME]
 *
 * Creates DIR/a and DIR/b if missing and the empty directory DIR/a/NAME
 * (default "d<pid>"), then for SECONDS seconds (decimals allowed;
 * CLOCK_MONOTONIC) renames it to DIR/b/NAME and back. Prints "renames N"
 * (the renames done) and "seconds S.SSS" (the time they took), removes its
 * directory and exits 0. -p sleeps USEC microseconds after each rename:
 * a task that keeps waking up, and preempts whatever runs on its CPU.
 * -l also times every rename (CLOCK_MONOTONIC around the syscall: its
 * wait on the mutex included) and prints "lat_us_p50", "lat_us_p99",
 * "lat_us_p999" and "lat_us_max" (nearest-rank percentiles, microseconds,
 * three decimals) after "seconds".
 * SIGINT and SIGTERM end the loop early, with the same output. Exit status
 * 2 on bad arguments, 1 if a file operation fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int usage(const char *why)
{
	if (why)
		fprintf(stderr, "rename_loop: %s\n", why);
	fprintf(stderr, "usage: rename_loop [-p USEC] [-l] DIR SECONDS [NAME]\n");
	return 2;
}

/* -l: every rename's duration, ns */
static uint64_t *lat;
static size_t nlat, caplat;

static void lat_add(uint64_t ns)
{
	if (nlat == caplat) {
		size_t cap = caplat ? 2 * caplat : 65536;
		uint64_t *p = cap <= (1 << 26) ? realloc(lat, cap * sizeof(*lat)) : NULL;

		if (!p)
			return;		/* beyond 64 M samples: the first ones */
		lat = p;
		caplat = cap;
	}
	lat[nlat++] = ns;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* the nearest-rank percentile @p (0 < p <= 100) of the sorted samples, us */
static double lat_pct(double p)
{
	size_t rank = (size_t)(p / 100 * nlat + 0.999999);

	if (!nlat)
		return 0;
	if (rank < 1)
		rank = 1;
	if (rank > nlat)
		rank = nlat;
	return lat[rank - 1] / 1e3;
}

/* DIR/sub, created if missing, opened as a directory; -1 on error (printed) */
static int subdir(int dfd, const char *dir, const char *sub)
{
	int fd;

	if (mkdirat(dfd, sub, 0755) && errno != EEXIST) {
		fprintf(stderr, "rename_loop: mkdir %s/%s: %s\n", dir, sub, strerror(errno));
		return -1;
	}
	fd = openat(dfd, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "rename_loop: open %s/%s: %s\n", dir, sub, strerror(errno));
	return fd;
}

int main(int argc, char **argv)
{
	const char *dir, *from = "a", *to = "b";
	int dfd, afd, bfd, here;
	long long renames = 0;
	struct sigaction sa;
	double secs, start, end, t;
	char name[64];
	long pause_us = 0;
	int opt, timed = 0;
	char *endp;

	while ((opt = getopt(argc, argv, "p:l")) != -1) {
		if (opt == 'l') {
			timed = 1;
			continue;
		}
		if (opt != 'p')
			return usage(NULL);
		errno = 0;
		pause_us = strtol(optarg, &endp, 10);
		if (errno || endp == optarg || *endp || pause_us < 0 || pause_us > 1000000)
			return usage("-p USEC: 0 to 1000000 microseconds");
	}
	argc -= optind - 1;
	argv += optind - 1;
	if (argc < 3 || argc > 4)
		return usage(NULL);
	dir = argv[1];
	errno = 0;
	secs = strtod(argv[2], &endp);
	if (errno || endp == argv[2] || *endp || !(secs > 0 && secs <= 86400))
		return usage("SECONDS: a number of seconds, more than 0 and at most 86400");
	if (argc == 4) {
		if (!*argv[3] || strchr(argv[3], '/') || !strcmp(argv[3], ".") ||
		    !strcmp(argv[3], "..") || strlen(argv[3]) >= sizeof(name))
			return usage("NAME: a file name (no '/', at most 63 bytes)");
		strcpy(name, argv[3]);
	} else {
		snprintf(name, sizeof(name), "d%d", (int)getpid());
	}

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		fprintf(stderr, "rename_loop: %s: %s\n", dir, strerror(errno));
		return usage(NULL);
	}
	afd = subdir(dfd, dir, "a");
	bfd = afd < 0 ? -1 : subdir(dfd, dir, "b");
	if (bfd < 0)
		return 1;
	if (mkdirat(afd, name, 0755)) {
		fprintf(stderr, "rename_loop: mkdir %s/a/%s: %s\n", dir, name, strerror(errno));
		return 1;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	/* here: where the file is, afd or bfd */
	here = afd;
	start = now();
	end = start + secs;
	t = start;
	while (!stop && t < end) {
		int there = here == afd ? bfd : afd;
		double t0 = timed ? now() : 0;

		if (renameat(here, name, there, name)) {
			fprintf(stderr, "rename_loop: rename %s/%s/%s -> %s/%s/%s: %s\n", dir,
				from, name, dir, to, name, strerror(errno));
			unlinkat(here, name, AT_REMOVEDIR);
			return 1;
		}
		renames++;
		if (timed)
			lat_add((uint64_t)((now() - t0) * 1e9));
		if (pause_us) {
			struct timespec ts = { pause_us / 1000000, pause_us % 1000000 * 1000 };

			nanosleep(&ts, NULL);
		}
		here = there;
		from = here == afd ? "a" : "b";
		to = here == afd ? "b" : "a";
		t = now();
	}

	printf("renames %lld\nseconds %.3f\n", renames, t - start);
	if (timed) {
		qsort(lat, nlat, sizeof(*lat), cmp_u64);
		printf("lat_us_p50 %.3f\nlat_us_p99 %.3f\nlat_us_p999 %.3f\nlat_us_max %.3f\n",
		       lat_pct(50), lat_pct(99), lat_pct(99.9), nlat ? lat[nlat - 1] / 1e3 : 0.0);
	}
	free(lat);
	if (unlinkat(here, name, AT_REMOVEDIR)) {
		fprintf(stderr, "rename_loop: remove %s/%s/%s: %s\n", dir, from, name,
			strerror(errno));
		return 1;
	}
	return fflush(stdout) ? 1 : 0;
}
