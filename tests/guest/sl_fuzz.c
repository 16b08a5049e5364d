// SPDX-License-Identifier: GPL-2.0
/*
 * sl_fuzz: a seeded, reproducible fuzzer of every interface schedlab offers
 * to userspace.
 *
 *   sl_fuzz [-s SEED] [-n OPS] [-u UID] [-d] [-c] INTERFACE...
 *
 * INTERFACE is sysfs, debugfs or dlparams; OPS operations each (default
 * 10000). SEED defaults to the time and is printed first: the same seed
 * and options replay the same operations. -u drops to that uid/gid first;
 * -d (root) makes the fuzzing thread SCHED_DEADLINE so that /dev/dlparams
 * answers with values rather than ENODATA.
 *
 * Strict mode (the default) predicts the result of every operation from
 * the rules the interface documents and fails on any other: a write is
 * accepted exactly when its value is valid, a rejected write leaves the
 * file as it was, an accepted one reads back and is undone; read() and
 * ioctl() of /dev/dlparams get exactly the errno their arguments call for
 * (EINVAL, EFAULT, ENOTTY, ESRCH, EPERM, ENODATA), never success with a
 * kernel or unmapped pointer. With -c other programs change the state at
 * the same time (enable/disable, unload): then only the class of the
 * result is checked (an errno from the documented set, or success), and
 * files or the device may vanish (ENOENT, ENODEV, ENXIO).
 *
 * Output: TAP lines (tests/lib/tap.h), per interface the operation count,
 * how many were accepted and rejected, and the mismatches (the first few
 * in full: enough to replay them with the seed).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/schedlab_dlparams.h>
#include "../../tools/lib/dl_util.h"
#include "../lib/tap.h"

#define SYSFS_ROOT	"/sys/kernel/schedlab"
#define DEBUGFS_ROOT	"/sys/kernel/debug/schedlab"
#define PG		4096L
#define MAX_FILES	256
#define SHOW_MISMATCHES	12
#define PID_MAX_LIMIT	(4 * 1024 * 1024)
#define CAPACITY_MAX	256	/* module/schedlab.h: SL_PARAM_STR_MAX, a string parameter's buffer */

static int concurrent, as_root, deadline;

/* --- the generator -------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static int chance(int percent)
{
	return (int)below(100) < percent;
}

/* --- results -------------------------------------------------------------- */

struct tally {
	const char *name;
	long ops, accepted, rejected, mismatches;
};

static void __attribute__((format(printf, 3, 4)))
mismatch(struct tally *t, long op, const char *fmt, ...)
{
	va_list ap;
	char msg[512];

	if (t->mismatches++ >= SHOW_MISMATCHES)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tap_diag("%s op %ld: %s", t->name, op, msg);
}

static void result(struct tally *t, int rc)
{
	if (rc < 0)
		t->rejected++;
	else
		t->accepted++;
}

static void report(const struct tally *t, long want)
{
	tap_diag("%s: %ld operations, %ld accepted, %ld rejected, %ld mismatches",
		 t->name, t->ops, t->accepted, t->rejected, t->mismatches);
	tap(t->ops >= want, "%s: %ld operations (at least %ld)", t->name, t->ops, want);
	tap(t->mismatches == 0, "%s: every result as the interface documents (%ld mismatches)",
	    t->name, t->mismatches);
}

static const char *errname(int e)
{
	static char buf[16];

	switch (e) {
	case 0: return "success";
	case EINVAL: return "EINVAL";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ENODEV: return "ENODEV";
	case ENXIO: return "ENXIO";
	case ENOTTY: return "ENOTTY";
	case ESRCH: return "ESRCH";
	case ENODATA: return "ENODATA";
	case ENOMEM: return "ENOMEM";
	case ESPIPE: return "ESPIPE";
	case EOVERFLOW: return "EOVERFLOW";
	case EAGAIN: return "EAGAIN";
	case E2BIG: return "E2BIG";
	case EIO: return "EIO";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	}
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

/* --- files ---------------------------------------------------------------- */

struct file {
	char path[PATH_MAX];
	char name[256];		/* the attribute's own name */
	char feature[256];	/* its directory's name ("" at the top) */
	mode_t mode;
	int rfd, wfd;		/* kept open between operations (-1: none) */
};

static struct file files[MAX_FILES];
static int nr_files;

/*
 * Where a strict run's time goes, per file (the debug kernel's suite is
 * timed): each operation's time is charged to its file when the next one
 * starts; the files that took the most are printed with the tally.
 */
static double mono_s(void);
static double file_s[MAX_FILES];
static long file_ops[MAX_FILES];
static int timed_file = -1;
static double timed_since;

static void time_file(const struct file *f)
{
	double now = mono_s();

	if (timed_file >= 0) {
		file_s[timed_file] += now - timed_since;
		file_ops[timed_file]++;
	}
	timed_file = f && !concurrent ? (int)(f - files) : -1;
	timed_since = now;
}

static void print_file_times(const char *what, const char *root)
{
	char line[512] = "";
	int i, k, best;
	size_t n = 0;

	time_file(NULL);
	for (k = 0; k < 3; k++) {
		best = -1;
		for (i = 0; i < nr_files; i++)
			if (file_ops[i] && (best < 0 || file_s[i] > file_s[best]))
				best = i;
		if (best < 0)
			break;
		n += snprintf(line + n, sizeof(line) - n, "%s%s %.1f s (%ld ops)", k ? ", " : "",
			      files[best].path + strlen(root) + 1, file_s[best], file_ops[best]);
		if (n >= sizeof(line))
			break;
		file_ops[best] = 0;
	}
	if (line[0])
		tap_diag("%s: the files that took longest: %s", what, line);
	memset(file_s, 0, sizeof(file_s));
	memset(file_ops, 0, sizeof(file_ops));
}

static void collect(const char *dir, const char *feature, int depth)
{
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return;
	while ((d = readdir(dp)) && nr_files < MAX_FILES) {
		char path[PATH_MAX];
		struct stat st;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (depth < 3)
				collect(path, d->d_name, depth + 1);
			continue;
		}
		if (!S_ISREG(st.st_mode))
			continue;
		snprintf(files[nr_files].path, PATH_MAX, "%s", path);
		snprintf(files[nr_files].name, 256, "%s", d->d_name);
		snprintf(files[nr_files].feature, 256, "%s", feature);
		files[nr_files].mode = st.st_mode & 0777;
		files[nr_files].rfd = files[nr_files].wfd = -1;
		nr_files++;
	}
	closedir(dp);
}

static int list_files(const char *root)
{
	int i;

	for (i = 0; i < nr_files; i++) {
		if (files[i].rfd >= 0)
			close(files[i].rfd);
		if (files[i].wfd >= 0)
			close(files[i].wfd);
	}
	nr_files = 0;
	collect(root, "", 0);
	return nr_files;
}

/* read a whole (small) file; -errno */
static int read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY), n, e;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	e = errno;
	close(fd);
	if (n < 0)
		return -e;
	buf[n] = '\0';
	return n;
}

/* one write() of exactly len bytes; -errno */
static int write_file(const char *path, const char *val, size_t len)
{
	int fd = open(path, O_WRONLY), n, e;

	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	e = errno;
	close(fd);
	return n < 0 ? -e : n;
}

/*
 * A strict run reads and writes a sysfs file through descriptors it keeps
 * open (one write() is one store() call either way) and opens it afresh
 * one time in eight: on the debug kernel an open and close cost most of
 * an operation (about 20 ms under TCG) and are the kernel's code, not the
 * module's. The concurrent run, where the files come and go, opens at
 * every operation.
 */
static int file_fd(struct file *f, int wr)
{
	int *fd = wr ? &f->wfd : &f->rfd;

	if (concurrent)
		return -1;
	if (*fd >= 0 && chance(12)) {
		close(*fd);
		*fd = -1;
	}
	if (*fd < 0)
		*fd = open(f->path, wr ? O_WRONLY : O_RDONLY);
	return *fd < 0 ? -errno : *fd;
}

static int file_read(struct file *f, char *buf, size_t size)
{
	int fd, n;

	if (concurrent)
		return read_file(f->path, buf, size);
	fd = file_fd(f, 0);
	if (fd < 0)
		return fd;
	n = pread(fd, buf, size - 1, 0);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n;
}

static int file_write(struct file *f, const char *val, size_t len)
{
	int fd, n;

	if (concurrent)
		return write_file(f->path, val, len);
	fd = file_fd(f, 1);
	if (fd < 0)
		return fd;
	n = write(fd, val, len);
	return n < 0 ? -errno : n;
}

/*
 * A file of @root for the next operation; NULL when there is none (yet).
 * In concurrent mode the module comes and goes: list again now and then,
 * and wait a little while nothing is there.
 */
static struct file *pick_file(const char *root)
{
	if (!nr_files || (concurrent && chance(2))) {
		list_files(root);
		if (!nr_files) {
			usleep(1000);
			return NULL;
		}
	}
	return &files[below(nr_files)];
}

/* --- sysfs ---------------------------------------------------------------- */

/*
 * The documented validity of a value for an attribute: integers in
 * decimal, one optional trailing newline, nothing else, within the
 * attribute's range; strings printable ASCII below a length; capacity a
 * comma list of 0..1024, one per CPU at most; overutil's drive "off" or a
 * rule's name (a rule is EOPNOTSUPP on a kernel without the hook). The
 * fuzzer's own copy of those rules: where it and the module disagree, one
 * of them is wrong.
 */
static const char *const drive_values[] = {
	"off", "mainline", "linger", "idle", "dynamic", "lone", "all",
};

struct range {
	const char *feature, *name;
	long long min, max;
};

static const struct range ranges[] = {
	{ "*", "enabled", 0, 1 },
	{ "cpu_signals", "period_ms", 1, 10000 },
	{ "signals", "sample_ms", 1, 10000 },
	{ "signals", "check_model", 0, 1 },
	{ "signals", "max_tasks", 16, 65536 },
	{ "signals", "filter_pid", 0, 4194304 },
	{ "signals", "filter_cgroup", 0, LLONG_MAX },
	{ "overutil", "linger_clear_ticks", 0, 1000 },
	{ "overutil", "linger_set_ticks", 0, 1000 },
	{ "overutil", "idle_window_ms", 1, 10000 },
	{ "blocked_on", "min_wait_us", 0, 10000000 },
	{ "blocked_on", "rules", 1, 15 },
	{ "blocked_on", "max_tasks", 16, 8192 },
	{ "eevdf", "check_every", 1, 1000000 },
	{ "eevdf", "sample_every", 1, 1000000 },
	{ "eevdf", "keep", 0, 4096 },
	{ "eevdf", "mutate", 0, 11 },
	{ "perf", "period_ms", 1, 10000 },
	{ "perf", "max_freq_khz", 1, 100000000 },
	{ "perf", "nr_opps", 0, 64 },
	{ "perf", "update_delay_us", 0, 1000000 },
};

static const struct range *range_of(const struct file *f)
{
	size_t i;

	for (i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
		if ((!strcmp(ranges[i].feature, "*") || !strcmp(ranges[i].feature, f->feature)) &&
		    !strcmp(ranges[i].name, f->name))
			return &ranges[i];
	return NULL;
}

/* strict decimal s64 with one optional trailing newline */
static int parse_s64(const char *v, size_t len, long long *out)
{
	char tmp[32], *end;

	if (len == 0 || len >= sizeof(tmp))
		return -1;
	memcpy(tmp, v, len);
	tmp[len] = '\0';
	if (strlen(tmp) != len)
		return -1;	/* an embedded NUL */
	if (tmp[len - 1] == '\n')
		tmp[--len] = '\0';
	if (!len || tmp[0] == ' ' || tmp[0] == '\t' || tmp[0] == '\n' ||
	    tmp[0] == '\v' || tmp[0] == '\f' || tmp[0] == '\r')
		return -1;
	errno = 0;
	*out = strtoll(tmp, &end, 10);
	if (errno || *end)
		return -1;
	/* kstrtos64 takes one leading '+' or '-' and digits only */
	return strspn(tmp + (tmp[0] == '+' || tmp[0] == '-'), "0123456789") ==
	       strlen(tmp + (tmp[0] == '+' || tmp[0] == '-')) ? 0 : -1;
}

static int nr_possible_cpus(void)
{
	char buf[64];
	int lo, hi;

	if (read_file("/sys/devices/system/cpu/possible", buf, sizeof(buf)) <= 0)
		return 1;
	if (sscanf(buf, "%d-%d", &lo, &hi) == 2)
		return hi + 1;
	return 1;
}

static int printable(const char *v, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)v[i] < 0x20 || (unsigned char)v[i] > 0x7e)
			return 0;
	return 1;
}

/* 1: the module must accept @v for @f (when the feature is disabled) */
static int valid_value(const struct file *f, const char *v, size_t len)
{
	const struct range *r = range_of(f);
	long long x;

	if (r)
		return !parse_s64(v, len, &x) && x >= r->min && x <= r->max;
	if (len && v[len - 1] == '\n')
		len--;
	if (!strcmp(f->name, "filter_comm"))
		return len < 16 && printable(v, len);
	if (!strcmp(f->name, "drive")) {
		size_t i;

		for (i = 0; i < sizeof(drive_values) / sizeof(drive_values[0]); i++)
			if (len == strlen(drive_values[i]) && !memcmp(v, drive_values[i], len))
				return 1;
		return 0;
	}
	if (!strcmp(f->name, "capacity")) {
		/* "" (off) or 1..possible CPUs values 0..1024 */
		char tmp[256], *tok, *save;
		int n = 0;

		if (len == 0)
			return 1;
		if (len >= CAPACITY_MAX || !printable(v, len) || v[0] == ',' || v[len - 1] == ',')
			return 0;
		memcpy(tmp, v, len);
		tmp[len] = '\0';
		if (strstr(tmp, ",,"))
			return 0;
		/* each entry 1 to 5 decimal digits (no sign), at most 1024 */
		for (tok = strtok_r(tmp, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			size_t d = strspn(tok, "0123456789");

			if (!d || d > 5 || tok[d] || atoi(tok) > 1024)
				return 0;
			n++;
		}
		return n >= 1 && n <= nr_possible_cpus();
	}
	return -1;	/* unknown attribute: no prediction */
}

static const char *const numbers[] = {
	"0", "1", "-1", "2", "15", "16", "17", "100", "250", "1000", "1001", "1024",
	"1025", "8192", "8193", "10000", "10001", "65536", "65537", "4194304",
	"4194305", "10000000", "10000001", "2147483647", "2147483648",
	"4294967295", "4294967296", "9223372036854775807", "-9223372036854775808",
	"9223372036854775808", "18446744073709551615", "-0", "+1", "007",
};

static const char *const decorations[][2] = {
	{ "", "" }, { "", "\n" }, { " ", "" }, { "", " " }, { "\t", "" },
	{ "", "\n\n" }, { "0x", "" }, { "", "x" }, { "+", "" }, { "", "\r" },
	{ "", ".5" }, { "1", "" }, { "", "\0" },
};

/* a value for @f into @v; its length */
static size_t gen_value(const struct file *f, char *v, size_t size)
{
	const struct range *r = range_of(f);
	size_t len, i;
	int k = below(100);

	if (k < 45) {
		const char *n = numbers[below(sizeof(numbers) / sizeof(numbers[0]))];
		const char *const *d = decorations[chance(50) ? 0 :
			below(sizeof(decorations) / sizeof(decorations[0]))];
		size_t dl = d[1][0] ? strlen(d[1]) : (d == decorations[12] ? 1 : 0);

		len = strlen(d[0]);
		memcpy(v, d[0], len);
		memcpy(v + len, n, strlen(n));
		len += strlen(n);
		memcpy(v + len, d[1], dl);
		return len + dl;
	}
	if (k < 55 && r) {	/* inside and at the edges of the range */
		long long x = r->min + (long long)below(r->max - r->min < 1000000 ?
			(uint64_t)(r->max - r->min + 3) : 1000000) - 1;

		return snprintf(v, size, "%lld%s", x, chance(50) ? "\n" : "");
	}
	if (k < 70) {		/* comma lists (capacity) */
		int n = 1 + below(5);

		len = 0;
		for (i = 0; i < (size_t)n && len < size - 16; i++)
			len += snprintf(v + len, size - len, "%s%d", i ? "," : "",
					(int)below(1100) - 20);
		if (chance(10))
			v[len++] = ',';
		return len;
	}
	if (k < 74) {		/* names (drive), sometimes decorated */
		const char *n = drive_values[below(sizeof(drive_values) / sizeof(drive_values[0]))];

		return snprintf(v, size, "%s%s%s", chance(85) ? "" : " ", n,
				chance(60) ? "" : chance(50) ? "\n" : "X");
	}
	if (k < 80) {		/* printable strings of every length (filter_comm) */
		len = below(20);
		for (i = 0; i < len; i++)
			v[i] = 0x20 + below(0x5f);
		return len;
	}
	if (k < 90) {		/* random bytes */
		len = below(40);
		for (i = 0; i < len; i++)
			v[i] = rnd();
		return len;
	}
	/* long: past every buffer, up to past a page */
	len = chance(50) ? 30 + below(300) : 4000 + below(300);
	if (len > size)
		len = size;
	memset(v, chance(50) ? '1' : 'a', len);
	return len;
}

static int feature_enabled(const struct file *f)
{
	char path[PATH_MAX], buf[16];

	snprintf(path, sizeof(path), SYSFS_ROOT "/%s/enabled", f->feature);
	return read_file(path, buf, sizeof(buf)) > 0 && buf[0] == '1';
}

static int feature_available(const struct file *f)
{
	char path[PATH_MAX], buf[256];

	snprintf(path, sizeof(path), SYSFS_ROOT "/%s/available", f->feature);
	return read_file(path, buf, sizeof(buf)) > 0 && buf[0] == '1';
}

static void fuzz_sysfs(long ops)
{
	struct tally t = { .name = "sysfs" };
	static char v[8192], before[8192], after[8192];
	long op;

	if (!list_files(SYSFS_ROOT) && !concurrent) {
		tap(0, "sysfs: files under " SYSFS_ROOT);
		return;
	}
	for (op = 0; op < ops; op++) {
		struct file *f;
		size_t len;
		int rc, valid, writable, b;

		f = pick_file(SYSFS_ROOT);
		time_file(f);
		if (!f)
			continue;
		t.ops++;
		if (chance(15)) {	/* reads at every size and offset */
			int fd = open(f->path, O_RDONLY);
			off_t off = chance(50) ? 0 : chance(50) ? (off_t)below(8192) :
				    chance(50) ? -1 : (off_t)1 << 40;
			size_t sz = chance(50) ? below(16) : below(sizeof(v));

			if (fd < 0) {
				rc = -errno;
				if (!(concurrent && rc == -ENOENT) && !(rc == -EACCES && !(f->mode & 0444)))
					mismatch(&t, op, "open %s for reading: %s", f->path, errname(-rc));
				result(&t, rc);
				continue;
			}
			rc = pread(fd, v, sz, off) < 0 ? -errno : 0;
			close(fd);
			result(&t, rc);
			if (off < 0 ? rc != -EINVAL : rc && !(concurrent && rc == -ENODEV))
				mismatch(&t, op, "pread %s size %zu at %lld: %s", f->path, sz,
					 (long long)off, errname(-rc));
			continue;
		}
		len = gen_value(f, v, sizeof(v));
		writable = (f->mode & 0200) && as_root;
		/* the value before: to compare with after, or to restore (a
		 * write that must be refused changes nothing the state
		 * comparison of the whole run would not see) */
		b = writable || concurrent ? file_read(f, before, sizeof(before)) : 0;
		valid = writable ? valid_value(f, v, len) : 0;
		rc = file_write(f, v, len);
		result(&t, rc);
		if (concurrent) {
			/* only the class of the answer */
			if (rc >= 0 ? !writable || valid == 0 :
			    rc != -EINVAL && rc != -EBUSY && rc != -EACCES && rc != -ENOENT &&
			    rc != -ENODEV && rc != -EPERM && rc != -EOPNOTSUPP)
				mismatch(&t, op, "write %zu bytes to %s: %s", len, f->path, errname(-rc));
			if (rc >= 0 && b >= 0 && strcmp(f->name, "enabled"))
				write_file(f->path, before, strlen(before));
			continue;
		}
		if (!writable) {
			if (rc != -EACCES)
				mismatch(&t, op, "write to %s (mode %o, uid %d): %s, want EACCES",
					 f->path, f->mode, (int)getuid(), errname(-rc));
			continue;
		}
		if (len > PG) {
			/* sysfs passes at most a page: never a valid value here */
			if (rc != -EINVAL)
				mismatch(&t, op, "%zu-byte write to %s: %s, want EINVAL", len, f->path,
					 errname(-rc));
			continue;
		}
		if (len == 0) {
			/* sysfs drops a zero-length write before the attribute */
			if (rc != 0)
				mismatch(&t, op, "empty write to %s: %s", f->path, errname(-rc));
			continue;
		}
		if (valid > 0 && rc < 0) {
			/* valid, but a parameter of an enabled feature is busy, an unavailable one stays off */
			int busy = strcmp(f->name, "enabled") && feature_enabled(f);
			int off = !strcmp(f->name, "enabled") && !feature_available(f);

			if (!(busy && rc == -EBUSY) && !(off && rc == -ENODEV) &&
			    !(rc == -EINVAL && !strcmp(f->name, "capacity")) &&
			    !(rc == -EOPNOTSUPP && !strcmp(f->name, "drive")))
				mismatch(&t, op, "valid '%.*s' to %s: %s", (int)len, v, f->path,
					 errname(-rc));
		} else if (valid == 0 && rc >= 0) {
			mismatch(&t, op, "invalid '%.*s' (%zu bytes) accepted by %s", (int)(len > 60 ? 60 : len),
				 v, len, f->path);
		} else if (valid == 0 && rc != -EINVAL) {
			mismatch(&t, op, "invalid value to %s: %s, want EINVAL", f->path, errname(-rc));
		}
		if (file_read(f, after, sizeof(after)) < 0) {
			mismatch(&t, op, "%s unreadable after a write", f->path);
			continue;
		}
		if (rc < 0 && strcmp(before, after))
			mismatch(&t, op, "%s changed by a rejected write: '%s' -> '%s'", f->path,
				 before, after);
		if (rc >= 0 && strcmp(before, after)) {
			/* accepted: undo it (the rest of the run starts from the same state) */
			if (file_write(f, before, strlen(before)) < 0 ||
			    file_read(f, after, sizeof(after)) < 0 || strcmp(before, after))
				mismatch(&t, op, "%s: could not restore '%s'", f->path, before);
		}
	}
	if (!concurrent)
		print_file_times("sysfs", SYSFS_ROOT);
	report(&t, ops);
}

/* --- debugfs ---------------------------------------------------------------- */

static void fuzz_debugfs(long ops)
{
	struct tally t = { .name = "debugfs" };
	static char buf[70000];
	long op;

	if (!list_files(DEBUGFS_ROOT) && !concurrent) {
		/* unprivileged: the directory is root's only */
		int e = access(DEBUGFS_ROOT "/status", R_OK) ? errno : 0;

		tap(!as_root && e == EACCES, "debugfs: not readable as uid %d (%s)",
		    (int)getuid(), errname(e));
		return;
	}
	for (op = 0; op < ops; op++) {
		struct file *f;
		int fd, rc, n, steps;

		f = pick_file(DEBUGFS_ROOT);
		time_file(f);
		if (!f)
			continue;
		t.ops++;
		if (!strcmp(f->name, "reset")) {
			/* valid: "1" with one optional newline */
			static const char *const vals[] = { "1", "1\n", "0", "", "11", "1\n\n", " 1", "x", "1 " };
			char raw[8];
			const char *val;
			size_t len;
			int valid;

			if (chance(20)) {
				len = below(sizeof(raw));
				for (n = 0; n < (int)len; n++)
					raw[n] = rnd();
				val = raw;
			} else {
				val = vals[below(sizeof(vals) / sizeof(vals[0]))];
				len = strlen(val);
			}
			valid = (len == 1 && val[0] == '1') || (len == 2 && val[0] == '1' && val[1] == '\n');
			rc = write_file(f->path, val, len);
			result(&t, rc);
			/* a feature that keeps no statistics while off has nothing to reset */
			if (valid && rc == -ENODEV && !concurrent && !feature_enabled(f))
				continue;
			if (concurrent ? rc < 0 && rc != -EINVAL && rc != -ENOENT && rc != -EACCES &&
					  rc != -ENODEV && rc != -EBUSY
				       : valid ? rc != (int)len : len ? rc != -EINVAL : rc > 0)
				mismatch(&t, op, "reset %s with %zu bytes (%s): %s", f->path, len,
					 valid ? "valid" : "invalid", errname(-rc));
			/* a write-only file cannot be read */
			fd = open(f->path, O_RDONLY);
			if (fd >= 0) {
				rc = read(fd, buf, 16) < 0 ? -errno : 0;
				close(fd);
				if (rc != -EINVAL && !(concurrent && rc == -EIO))
					mismatch(&t, op, "read of %s: %s, want EINVAL", f->path, errname(-rc));
			}
			continue;
		}
		fd = open(f->path, O_RDONLY);
		if (fd < 0) {
			rc = -errno;
			result(&t, rc);
			if (!(concurrent && rc == -ENOENT))
				mismatch(&t, op, "open %s: %s", f->path, errname(-rc));
			continue;
		}
		rc = 0;
		for (steps = below(6) + 1; steps > 0; steps--) {
			size_t sz = chance(30) ? below(8) : chance(50) ? below(4097) : below(sizeof(buf));
			off_t off, got;
			int whence;

			switch (below(4)) {
			case 0:
			case 1:
				n = read(fd, buf, sz);
				if (n < 0 && !(concurrent && (errno == EIO || errno == ENODEV)))
					mismatch(&t, op, "read %s (%zu bytes): %s", f->path, sz, errname(errno));
				break;
			case 2:
				off = chance(50) ? (off_t)below(20000) : chance(50) ? -(off_t)below(100) - 1 :
				      (off_t)1 << below(62);
				n = pread(fd, buf, sz, off);
				if (n < 0 && !(off < 0 && errno == EINVAL) &&
				    !(concurrent && (errno == EIO || errno == ENODEV)))
					mismatch(&t, op, "pread %s (%zu at %lld): %s", f->path, sz,
						 (long long)off, errname(errno));
				break;
			default:
				whence = below(3);
				off = chance(50) ? (off_t)below(20000) : -(off_t)below(100) - 1;
				got = lseek(fd, off, whence);
				/* seq_file: SEEK_SET and SEEK_CUR to non-negative offsets */
				if (got < 0 && errno != EINVAL && !(concurrent && errno == EIO))
					mismatch(&t, op, "lseek %s %lld/%d: %s", f->path, (long long)off,
						 whence, errname(errno));
				break;
			}
		}
		close(fd);
		result(&t, rc);
	}
	if (!concurrent)
		print_file_times("debugfs", DEBUGFS_ROOT);
	report(&t, ops);
}

/* --- /dev/dlparams -------------------------------------------------------- */

/*
 * The arena, five pages: read-write, read-write, read-only, no access, no
 * access (kept mapped so that no other mapping lands there). A pointer's page says what the kernel may do there.
 */
enum access { A_RW, A_RO, A_NONE };
static char *arena;

static enum access access_at(uintptr_t p)
{
	uintptr_t a = (uintptr_t)arena;

	if (p >= a && p < a + 2 * PG)
		return A_RW;
	if (p >= a + 2 * PG && p < a + 3 * PG)
		return A_RO;
	return A_NONE;
}

/* may the kernel read (write) [p, p + n)? */
static int range_ok(uintptr_t p, size_t n, int write)
{
	uintptr_t end = p + n, q;

	if (n == 0)
		return 1;
	if (end < p)
		return 0;
	for (q = p & ~(PG - 1); q < end; q += PG) {
		enum access a = access_at(q < p ? p : q);

		if (a == A_NONE || (write && a == A_RO))
			return 0;
	}
	return 1;
}

static uintptr_t gen_pointer(void)
{
	uintptr_t a = (uintptr_t)arena;

	switch (below(10)) {
	case 0: return 0;
	case 1: return 1 + below(PG);					/* first page: unmapped */
	case 2: return chance(50) ? 0xffff888000000000ULL : 0xffffffff81000000ULL;	/* kernel */
	case 3: return (uintptr_t)-1 - below(128);
	case 4: return a + 2 * PG - 64 + below(128);			/* across RW -> RO */
	case 5: return a + 3 * PG - 64 + below(128);			/* across RO -> none */
	default: return a + below(5 * PG);				/* anywhere, misaligned too */
	}
}

/* the caller's struct: in RW memory the fuzzer writes it, elsewhere it is what it is */
static void plant(uintptr_t p, uint32_t size, uint32_t tid)
{
	if (range_ok(p, 4, 1))
		memcpy((void *)p, &size, 4);
	if (range_ok(p + 4, 4, 1))
		memcpy((void *)(p + 4), &tid, 4);
}

static int peek32(uintptr_t p, uint32_t *v)
{
	if (!range_ok(p, 4, 0))
		return -1;
	memcpy(v, (const void *)p, 4);
	return 0;
}

static pid_t other_root_dl;	/* a SCHED_DEADLINE thread of root's, another process (0: none) */

static uint32_t gen_tid(void)
{
	switch (below(8)) {
	case 0: return 0;
	case 1: return gettid();
	case 2: return 1;
	case 3: return PID_MAX_LIMIT + below(1000);
	case 4: return (uint32_t)-1 - below(4);
	case 5: return other_root_dl ? other_root_dl : 1;
	case 6: return getpid();
	default: return 1 + below(4000);
	}
}

static int maybe_efault;	/* the last read() prediction may also be EFAULT */

/* what read() must answer: bytes written, or -errno */
static int predict_read(uintptr_t p, size_t count)
{
	uint32_t size, n;

	maybe_efault = 0;
	/*
	 * access_ok(), in vfs_read() before the driver: a range that wraps
	 * or starts in the kernel's half fails everywhere; one that ends
	 * past the 47-bit user space fails unless the CPU has LAM, where
	 * the kernel checks the 63-bit range.
	 */
	if (p + count < p || p >= 0x8000000000000000ULL)
		return -EFAULT;
	maybe_efault = p + count > 0x800000000000ULL;
	/* vfs_read() then clamps the count to MAX_RW_COUNT */
	if (count > 0x7ffff000)
		count = 0x7ffff000;
	if (count < DLPARAMS_SIZE_VER0)
		return -EINVAL;
	if (peek32(p, &size))
		return -EFAULT;
	if (size < DLPARAMS_SIZE_VER0 || size > count)
		return -EINVAL;
	if (!deadline)
		return -ENODATA;
	n = size < sizeof(struct dlparams) ? size : sizeof(struct dlparams);
	if (!range_ok(p, size, 1))
		return -EFAULT;
	return n;
}

static int readable_tid(uint32_t tid, int *is_dl)
{
	char path[64], buf[512], *s;
	int uid = -1, policy = -1;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%u/status", tid);
	fp = fopen(path, "r");
	if (!fp)
		return -ESRCH;
	while (fgets(buf, sizeof(buf), fp))
		if (!strncmp(buf, "Uid:", 4))
			uid = atoi(buf + 5);
	fclose(fp);
	snprintf(path, sizeof(path), "/proc/%u/stat", tid);
	fp = fopen(path, "r");
	if (fp && fgets(buf, sizeof(buf), fp) && (s = strrchr(buf, ')'))) {
		int i;

		/* field 41: policy */
		for (i = 2; i < 41 && s; i++)
			s = strchr(s + 1, ' ');
		if (s)
			policy = atoi(s + 1);
	}
	if (fp)
		fclose(fp);
	*is_dl = policy == SCHED_DEADLINE;
	if (tid == (uint32_t)gettid() || tid == (uint32_t)getpid() || as_root)
		return 0;
	/* same user: ptrace rules also look at dumpability (a setuid drop clears it) */
	return uid == (int)getuid() ? 1 : -EPERM;
}

static int maybe_eperm;	/* the last prediction may also be EPERM */

static int predict_ioctl(unsigned int cmd, uintptr_t p)
{
	uint32_t size, tid;
	int dl, r;

	maybe_eperm = 0;
	if (_IOC_TYPE(cmd) != DLPARAMS_IOC_MAGIC || _IOC_NR(cmd) != 1 ||
	    _IOC_DIR(cmd) != (_IOC_READ | _IOC_WRITE))
		return -ENOTTY;
	if (_IOC_SIZE(cmd) < DLPARAMS_SIZE_VER0)
		return -EINVAL;
	if (peek32(p, &size))
		return -EFAULT;
	if (size < DLPARAMS_SIZE_VER0 || size > _IOC_SIZE(cmd))
		return -EINVAL;
	if (peek32(p + 4, &tid))
		return -EFAULT;
	if (!tid || tid > PID_MAX_LIMIT)
		return -ESRCH;
	r = readable_tid(tid, &dl);
	maybe_eperm = r == 1;
	if (r < 0)
		return r;
	if (!dl)
		return -ENODATA;
	if (!range_ok(p, size, 1))
		return -EFAULT;
	return 0;
}

static unsigned int gen_cmd(void)
{
	unsigned int size;

	switch (below(6)) {
	case 0:
		/* any type but the VFS's own ('T', 'f', 'X', 0x94, 0x15 reach the VFS first) */
		do {
			size = rnd();
		} while (_IOC_TYPE(size) == 'T' || _IOC_TYPE(size) == 'f' ||
			 _IOC_TYPE(size) == 'X' || _IOC_TYPE(size) == 0x94 || _IOC_TYPE(size) == 0x15 ||
			 _IOC_TYPE(size) == 0);
		return size;
	case 1:
		return _IOC(below(4), DLPARAMS_IOC_MAGIC, below(4), below(200));
	default:
		size = chance(60) ? sizeof(struct dlparams) : below(1 << 14);
		return _IOC(_IOC_READ | _IOC_WRITE, DLPARAMS_IOC_MAGIC, 1, size);
	}
}

static sigjmp_buf fault_jmp;
static volatile sig_atomic_t catching;

static const char *cur_what = "";	/* what the fuzzer is doing, for a fatal signal */
static long cur_op;
static int last_advice;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	char msg[160];
	int n;

	(void)uc;
	if (catching)
		siglongjmp(fault_jmp, sig);
	n = snprintf(msg, sizeof(msg), "not ok - fatal signal %d at %p in op %ld (%s; last advice %d)\n",
		     sig, si->si_addr, cur_op, cur_what, last_advice);
	if (write(1, msg, n) < 0)
		_exit(128 + sig);
	_exit(128 + sig);
}

/* read the first word of @p; the signal if it faulted */
static int touch(const void *p)
{
	int sig = sigsetjmp(fault_jmp, 1);

	if (sig) {
		catching = 0;
		return sig;
	}
	catching = 1;
	(void)*(const volatile uint32_t *)p;
	catching = 0;
	return 0;
}

/* one mapping's life: mmap, then operations in random order */
static void map_life(struct tally *t, long op, int fd)
{
	static const size_t lens[] = { 0, 1, 4095, 4096, 4097, 8192, 1UL << 30 };
	static const int advice[] = {
		MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL, MADV_WILLNEED, MADV_DONTNEED,
		MADV_DONTFORK, MADV_DOFORK, MADV_DONTDUMP, MADV_DODUMP, MADV_FREE,
		MADV_WIPEONFORK, MADV_KEEPONFORK, MADV_MERGEABLE, MADV_UNMERGEABLE,
		MADV_HUGEPAGE, MADV_NOHUGEPAGE, 20 /* COLD */, 21 /* PAGEOUT */,
		22 /* POPULATE_READ */, 23 /* POPULATE_WRITE */, 24 /* DONTNEED_LOCKED */,
		25 /* COLLAPSE */, 102 /* GUARD_INSTALL */, 103 /* GUARD_REMOVE */, 77, -1,
		/* not 100/101 (HWPOISON, SOFT_OFFLINE): root's memory-failure injection poisons any page */
	};
	size_t len = lens[below(sizeof(lens) / sizeof(lens[0]))];
	off_t off = chance(80) ? 0 : chance(50) ? PG : (off_t)below(3 * PG);
	int prot = chance(70) ? PROT_READ : (int)below(8);
	int flags = chance(80) ? MAP_SHARED : chance(50) ? MAP_PRIVATE : MAP_SHARED | MAP_POPULATE;
	int must_fail = len == 0 || (len + PG - 1) / PG != 1 || off != 0 ||
			(prot & (PROT_WRITE | PROT_EXEC));
	int readable, steps, rc;
	char *p, *q;
	size_t cur = PG;

	p = mmap(NULL, len, prot, flags, fd, off);
	if (p == MAP_FAILED) {
		rc = errno;
		result(t, -rc);
		if (!must_fail && rc != EBUSY && !(concurrent && (rc == ENODEV || rc == ENXIO)))
			mismatch(t, op, "mmap len %zu off %lld prot %d flags 0x%x: %s", len,
				 (long long)off, prot, flags, errname(rc));
		return;
	}
	result(t, 0);
	if (must_fail) {
		mismatch(t, op, "mmap len %zu off %lld prot %d accepted", len, (long long)off, prot);
		munmap(p, len);
		return;
	}
	readable = !!(prot & PROT_READ);
	for (steps = below(8) + 1; steps > 0 && p; steps--) {
		int sig, np, a;
		pid_t pid;

		switch (below(7)) {
		case 0:
			cur_what = "mprotect";
			np = below(8);
			rc = mprotect(p, cur, np) ? errno : 0;
			if (!rc)
				readable = !!(np & (PROT_READ | PROT_EXEC | PROT_WRITE)) && np != 0;
			if (!rc && (np & PROT_WRITE))
				mismatch(t, op, "mprotect PROT_WRITE accepted");
			if (rc && !(np & (PROT_WRITE | PROT_EXEC)))
				mismatch(t, op, "mprotect %d: %s", np, errname(rc));
			break;
		case 1:
			a = advice[below(sizeof(advice) / sizeof(advice[0]))];
			cur_what = "madvise";
			last_advice = a;
			madvise(p, cur, a);	/* any answer; then the page must still read */
			break;
		case 2:
			cur_what = "reading the page";
			if (readable && (sig = touch(p)))
				mismatch(t, op, "reading the page: signal %d", sig);
			break;
		case 3:
			cur_what = "fork";
			pid = fork();
			if (pid == 0) {
				touch(p);	/* inherited or not: either answer, no crash */
				_exit(0);
			}
			if (pid > 0)
				waitpid(pid, NULL, 0);
			break;
		case 4: {
			size_t nl = chance(50) ? cur : chance(50) ? 2 * PG : below(3 * PG);
			int fl = chance(50) ? MREMAP_MAYMOVE : chance(50) ? 0 : MREMAP_MAYMOVE | 4;

			cur_what = "mremap";
			q = mremap(p, cur, nl, fl);
			if (q != MAP_FAILED) {
				if (nl > PG)
					mismatch(t, op, "mremap grew the mapping to %zu", nl);
				p = q;
				cur = nl ? nl : cur;
			}
			break;
		}
		case 5:
			if (chance(30)) {
				munmap(p, cur);
				p = NULL;
			}
			break;
		default: {
			/* the page's sequence counter: even when nothing writes */
			cur_what = "sequence counter";
			const volatile struct dlparams_page *pg = (const void *)p;

			if (readable && !touch(p) && !deadline && pg->seq & 1)
				mismatch(t, op, "odd sequence counter %u", pg->seq);
		}
		}
	}
	if (p)
		munmap(p, cur);
}

static void fuzz_dlparams(long ops)
{
	struct tally t = { .name = "dlparams" };
	struct sigaction sa = { .sa_sigaction = on_fault, .sa_flags = SA_SIGINFO };
	int fd = -1;
	long op;

	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	arena = mmap(NULL, 5 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (arena == MAP_FAILED) {
		tap(0, "dlparams: arena");
		return;
	}
	/* the read-only page: size words of 64 at every 4-aligned offset */
	for (op = 0; op < PG / 4; op++)
		((uint32_t *)(arena + 2 * PG))[op] = op & 1 ? (uint32_t)gettid() : 64;
	mprotect(arena + 2 * PG, PG, PROT_READ);
	mprotect(arena + 3 * PG, PG, PROT_NONE);
	mprotect(arena + 4 * PG, PG, PROT_NONE);

	for (op = 0; op < ops; op++) {
		uintptr_t p;
		int rc, want;

		if (fd < 0 || (concurrent && chance(5))) {
			if (fd >= 0)
				close(fd);
			fd = open(DLPARAMS_DEVICE, O_RDONLY);
			if (fd < 0) {
				if (!concurrent) {
					tap(0, "dlparams: open " DLPARAMS_DEVICE ": %s", errname(errno));
					return;
				}
				usleep(1000);
				continue;
			}
		}
		t.ops++;
		cur_op = op;
		switch (below(10)) {
		case 0: case 1: case 2: case 3: {
			size_t count = chance(30) ? below(128) : chance(50) ? below(3 * PG) :
				       (size_t)1 << below(63);

			cur_what = "read";
			p = gen_pointer();
			plant(p, chance(60) ? (chance(50) ? 64 : count) : (uint32_t)rnd(), 0);
			want = predict_read(p, count);
			rc = read(fd, (void *)p, count);
			rc = rc < 0 ? -errno : rc;
			result(&t, rc);
			if (rc != want && !(maybe_efault && rc == -EFAULT) &&
			    !(concurrent && rc < 0 && want < 0))
				mismatch(&t, op, "read(%#lx, %zu): %s, want %s", (unsigned long)p, count,
					 rc < 0 ? errname(-rc) : "success", want < 0 ? errname(-want) : "success");
			if (rc > 0 && ((struct dlparams *)p)->tid != (uint32_t)gettid())
				mismatch(&t, op, "read: tid %u, want %d", ((struct dlparams *)p)->tid, gettid());
			break;
		}
		case 4: case 5: case 6: case 7: {
			unsigned int cmd = gen_cmd();

			cur_what = "ioctl";
			p = gen_pointer();
			plant(p, chance(70) ? 64 : (uint32_t)rnd(), gen_tid());
			want = predict_ioctl(cmd, p);
			rc = ioctl(fd, cmd, (void *)p) < 0 ? -errno : 0;
			result(&t, rc);
			/* a thread may exit or change policy between the two: ESRCH/ENODATA vary */
			if (rc != want && !(maybe_eperm && rc == -EPERM) && !((rc == -ESRCH || rc == -ENODATA) && (want == -ESRCH || want == -ENODATA)) &&
			    !(concurrent && rc < 0 && want < 0))
				mismatch(&t, op, "ioctl(%#x, %#lx): %s, want %s", cmd, (unsigned long)p,
					 errname(-rc), errname(-want));
			break;
		}
		default:
			cur_what = "mapping";
			map_life(&t, op, fd);
		}
	}
	if (fd >= 0)
		close(fd);
	report(&t, ops);
}

/* --- main ----------------------------------------------------------------- */

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int become_deadline(void)
{
	struct dl_sched_attr a = {
		.size = sizeof(a), .sched_policy = SCHED_DEADLINE,
		.sched_flags = 1,	/* SCHED_FLAG_RESET_ON_FORK: the fuzzer forks */
		.sched_runtime = 5000000, .sched_deadline = 10000000,
		.sched_period = 10000000,
	};

	return syscall(SYS_sched_setattr, 0, &a, 0) ? -errno : 0;
}

int main(int argc, char **argv)
{
	long ops = 10000;
	int uid = -1, opt, i;
	uint64_t seed = 0;
	double t0;
	char *e;

	while ((opt = getopt(argc, argv, "s:n:u:dc")) != -1) {
		switch (opt) {
		case 's': seed = strtoull(optarg, &e, 0); break;
		case 'n': ops = atol(optarg); break;
		case 'u': uid = atoi(optarg); break;
		case 'd': deadline = 1; break;
		case 'c': concurrent = 1; break;
		default:
			fprintf(stderr, "usage: %s [-s SEED] [-n OPS] [-u UID] [-d] [-c] sysfs|debugfs|dlparams...\n",
				argv[0]);
			return 2;
		}
	}
	if (!seed)
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	tap_diag("seed %#" PRIx64 " (replay: %s -s %#" PRIx64 " -n %ld%s%s%s ...)", seed, argv[0],
		 seed, ops, uid >= 0 ? " -u UID" : "", deadline ? " -d" : "", concurrent ? " -c" : "");
	if (deadline) {
		int r = become_deadline();

		tap(r == 0, "fuzzing thread is SCHED_DEADLINE (%s)", r ? errname(-r) : "ok");
		if (r)
			deadline = 0;
	}
	if (uid >= 0 && (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))) {
		tap(0, "drop to uid %d: %s", uid, errname(errno));
		return 1;
	}
	as_root = geteuid() == 0;
	if (getenv("SL_FUZZ_OTHER_DL"))
		other_root_dl = atoi(getenv("SL_FUZZ_OTHER_DL"));
	for (i = optind; i < argc; i++) {
		rng_state = seed ^ (0x9E3779B97F4A7C15ULL * (uint64_t)(i - optind + 1));
		if (!rng_state)
			rng_state = 1;
		t0 = mono_s();
		if (!strcmp(argv[i], "sysfs"))
			fuzz_sysfs(ops);
		else if (!strcmp(argv[i], "debugfs"))
			fuzz_debugfs(ops);
		else if (!strcmp(argv[i], "dlparams"))
			fuzz_dlparams(ops);
		else
			tap(0, "unknown interface %s", argv[i]);
		/* where a run's time goes (the debug kernel's suite is timed) */
		tap_diag("%s: %.1f s", argv[i], mono_s() - t0);
	}
	return tap_failures ? 1 : 0;
}
