// SPDX-License-Identifier: GPL-2.0
/*
 * sl_reload: load and unload a module N times from one process, through
 * finit_module(2) and delete_module(2), so that a load/unload cycle costs
 * what the kernel does and not two program starts (insmod and rmmod each
 * cost more than a second under emulation with KASAN and lockdep).
 *
 *   sl_reload -m MODULE.ko -n CYCLES [-p PARAMS] [-e EVERY] [-r DIR]...
 *             [-t TRACEDIR] [-w PATH=VALUE]... [-s MS]
 *
 * Every cycle, right after the load: VALUE is written to each PATH (e.g.
 * a sysfs parameter), in the order given; a failed write fails the cycle.
 * Every EVERY-th cycle (default 10; the first cycle among them) while the
 * module is loaded: TRACEDIR/enable is set to 1 (the module's trace
 * events), every readable regular file under each DIR (or DIR itself, if
 * it is a file) is read to its end, the module stays loaded MS more
 * milliseconds (default 0), TRACEDIR/enable is set back to 0. An unload
 * refused because the module is in use (EBUSY/EAGAIN: a process holds its
 * device open) is retried every 10 ms, up to 30 s: the reload stress's
 * mapper is a SCHED_DEADLINE thread that holds the device while it runs,
 * and on the debug kernel, with every feature and the trace events on, it
 * was once still holding it after 2 s. Giving up prints the module's
 * reference count.
 *
 * Prints "ok - ..." / "not ok - ..." lines (tests/lib/tap.h) and, per
 * phase, the mean and the longest time in milliseconds.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../lib/tap.h"

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

struct phase {
	const char *name;
	uint64_t n, sum_us, max_us;
};

static void phase_add(struct phase *p, uint64_t us)
{
	p->n++;
	p->sum_us += us;
	if (us > p->max_us)
		p->max_us = us;
}

static void phase_print(const struct phase *p)
{
	if (!p->n)
		return;
	tap_diag("%-8s %4llu times, mean %6.1f ms, longest %6.1f ms", p->name,
		 (unsigned long long)p->n, p->sum_us / 1000.0 / p->n,
		 p->max_us / 1000.0);
}

static long files_read, read_errors;

/* read the file at path to its end */
static void read_file(const char *path)
{
	static char buf[65536];
	ssize_t r;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		read_errors++;
		tap_diag("open %s: %s", path, strerror(errno));
		return;
	}
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		;
	if (r < 0) {
		read_errors++;
		tap_diag("read %s: %s", path, strerror(errno));
	}
	files_read++;
	close(fd);
}

/*
 * read every readable regular file under dir, recursively, to its end;
 * dir itself if it is a regular file
 */
static void read_tree(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d && errno == ENOTDIR) {
		read_file(dir);
		return;
	}
	if (!d) {
		read_errors++;
		tap_diag("opendir %s: %s", dir, strerror(errno));
		return;
	}
	while ((e = readdir(d))) {
		char path[4096];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			read_tree(path);
			continue;
		}
		if (!S_ISREG(st.st_mode) || !(st.st_mode & 0444))
			continue;
		read_file(path);
	}
	closedir(d);
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t r;

	if (fd < 0)
		return -1;
	r = write(fd, s, strlen(s));
	close(fd);
	return r == (ssize_t)strlen(s) ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct phase load = { .name = "load" }, unload = { .name = "unload" };
	struct phase reports = { .name = "reports" };
	const char *ko = NULL, *params = "", *tracedir = NULL, *dirs[8];
	char *wpath[8], *wval[8];
	char name[256], enable[4096], modpath[512];
	int ndirs = 0, nwrites = 0, hold_ms = 0, cycles = 0, every = 10, opt, i, fails = 0;
	long busy = 0;
	uint64_t t0;

	while ((opt = getopt(argc, argv, "m:n:p:e:r:t:w:s:")) != -1) {
		switch (opt) {
		case 'm': ko = optarg; break;
		case 'n': cycles = atoi(optarg); break;
		case 'p': params = optarg; break;
		case 'e': every = atoi(optarg); break;
		case 'r':
			if (ndirs < 8)
				dirs[ndirs++] = optarg;
			break;
		case 't': tracedir = optarg; break;
		case 'w':
			/* PATH=VALUE: a sysfs path has no '=', a value may */
			if (nwrites == 8 || !strchr(optarg, '=') || *optarg == '=') {
				fprintf(stderr, "%s: -w PATH=VALUE, at most 8: %s\n", argv[0], optarg);
				return 2;
			}
			wpath[nwrites] = optarg;
			wval[nwrites] = strchr(optarg, '=') + 1;
			wval[nwrites][-1] = 0;
			nwrites++;
			break;
		case 's': hold_ms = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s -m MODULE.ko -n CYCLES [-p PARAMS] [-e EVERY] [-r DIR]... [-t TRACEDIR] [-w PATH=VALUE]... [-s MS]\n",
				argv[0]);
			return 2;
		}
	}
	if (!ko || cycles <= 0 || every <= 0 || hold_ms < 0) {
		fprintf(stderr, "%s: -m and a positive -n are required\n", argv[0]);
		return 2;
	}
	/* the module's name: the file's, without directory and ".ko" */
	snprintf(name, sizeof(name), "%s", strrchr(ko, '/') ? strrchr(ko, '/') + 1 : ko);
	if (strlen(name) > 3 && !strcmp(name + strlen(name) - 3, ".ko"))
		name[strlen(name) - 3] = 0;
	if (tracedir)
		snprintf(enable, sizeof(enable), "%s/enable", tracedir);

	t0 = now_us();
	for (i = 1; i <= cycles; i++) {
		uint64_t t = now_us();
		int fd = open(ko, O_RDONLY | O_CLOEXEC), tries;

		if (fd < 0 || syscall(SYS_finit_module, fd, params, 0)) {
			tap_diag("cycle %d: load: %s", i, strerror(errno));
			if (fd >= 0)
				close(fd);
			fails++;
			break;
		}
		close(fd);
		phase_add(&load, now_us() - t);
		for (int w = 0; w < nwrites; w++) {
			if (write_str(wpath[w], wval[w])) {
				tap_diag("cycle %d: write '%s' to %s: %s", i, wval[w], wpath[w],
					 strerror(errno));
				fails++;
			}
		}
		if (i % every == 1 || every == 1) {
			t = now_us();
			if (tracedir && write_str(enable, "1")) {
				tap_diag("cycle %d: %s: %s", i, enable, strerror(errno));
				fails++;
			}
			for (int d = 0; d < ndirs; d++)
				read_tree(dirs[d]);
			if (hold_ms) {
				struct timespec ts = { hold_ms / 1000, hold_ms % 1000 * 1000000L };

				nanosleep(&ts, NULL);
			}
			if (tracedir && write_str(enable, "0")) {
				tap_diag("cycle %d: %s: %s", i, enable, strerror(errno));
				fails++;
			}
			phase_add(&reports, now_us() - t);
		}
		t = now_us();
		for (tries = 0;; tries++) {
			if (!syscall(SYS_delete_module, name, O_NONBLOCK))
				break;
			if (errno != EBUSY && errno != EAGAIN && errno != EWOULDBLOCK) {
				tap_diag("cycle %d: unload: %s", i, strerror(errno));
				break;
			}
			if (now_us() - t > 30000000)
				break;
			busy++;
			usleep(10000);
		}
		snprintf(modpath, sizeof(modpath), "/sys/module/%s", name);
		if (access(modpath, F_OK) == 0) {
			char ref[32] = "?";
			FILE *f;

			snprintf(modpath, sizeof(modpath), "/sys/module/%s/refcnt", name);
			f = fopen(modpath, "r");
			if (f) {
				if (!fgets(ref, sizeof(ref), f))
					strcpy(ref, "?");
				ref[strcspn(ref, "\n")] = 0;
				fclose(f);
			}
			tap_diag("cycle %d: still loaded after %d tries in %llu ms (refcnt %s)", i,
				 tries, (unsigned long long)((now_us() - t) / 1000), ref);
			fails++;
			break;
		}
		phase_add(&unload, now_us() - t);
		if (i % 25 == 0)
			tap_diag("cycle %d at %llu s", i, (unsigned long long)((now_us() - t0) / 1000000));
	}
	phase_print(&load);
	phase_print(&unload);
	phase_print(&reports);
	tap(fails == 0 && i > cycles,
	    "%d load/unload cycles of %s with '%s' (%llu s; %ld unload retries while in use)",
	    cycles, name, params, (unsigned long long)((now_us() - t0) / 1000000), busy);
	tap(read_errors == 0, "%ld report reads, %ld errors", files_read, read_errors);
	return tap_failures ? 1 : 0;
}
