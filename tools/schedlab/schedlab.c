// SPDX-License-Identifier: GPL-2.0
/*
 * schedlab: the command-line front door of the schedlab module.
 *
 *   schedlab status [--json]
 *   schedlab enable FEATURE [PARAM=VALUE ...]
 *   schedlab disable FEATURE
 *   schedlab reset FEATURE|all
 *   schedlab report FEATURE [NAME] [--json]
 *   schedlab run [-f FEATURE,...] [-o DIR] [--no-record] -- COMMAND ...
 *   schedlab export DIR -o FILE.sqlite [-f]
 *   schedlab plot DIR [-o OUTDIR] [-f FEATURE,...]
 *
 * It drives the module's own interface (sysfs /sys/kernel/schedlab, debugfs
 * /sys/kernel/debug/schedlab) and prints the module's reports: the text
 * form as is, or the machine form the module emits beside it (NAME.json,
 * docs/reporting.md). Exit codes (docs/schedlab.1): 0 ok, 1 usage, 2 module
 * not loaded, 3 feature unavailable, 4 permission, 5 other error. A
 * failing command leaves the module's state as it found it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <sqlite3.h>
#include <trace-cmd.h>

#define EX_OK		0
#define EX_USAGE	1
#define EX_NOMODULE	2
#define EX_UNAVAIL	3
#define EX_PERM		4
#define EX_OTHER	5

#define SYSFS	"/sys/kernel/schedlab"
#define DEBUGFS	"/sys/kernel/debug"
#define DBG	DEBUGFS "/schedlab"

static const char *prog = "schedlab";

static int fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

static int usage(FILE *out, int code)
{
	fprintf(out,
		"usage: %s COMMAND [ARGS]\n"
		"  status [--json]                       module, kernel capabilities, features\n"
		"  enable FEATURE [PARAM=VALUE ...]      set parameters, then enable\n"
		"  disable FEATURE\n"
		"  reset FEATURE|all                     clear a feature's statistics\n"
		"  report FEATURE [NAME] [--json]        print a feature's reports (all, or NAME)\n"
		"  run [-f FEATURE,...] [-o DIR] [--no-record] -- COMMAND ...\n"
		"                                        COMMAND under the features (default: all\n"
		"                                        available but eevdf), their events recorded with\n"
		"                                        trace-cmd; reports and run.json in DIR\n"
		"                                        (default schedlab-run-DATE-TIME); the\n"
		"                                        features' state put back after\n"
		"  export DIR -o FILE.sqlite [-f]        a run directory (trace.dat's events,\n"
		"                                        reports, run.json) as one SQLite file;\n"
		"                                        -f replaces FILE (docs/export.md)\n"
		"  plot DIR [-o OUTDIR] [-f FEATURE,...] PNG timelines of a run's recorded events\n"
		"                                        (gnuplot), with the data drawn (.dat);\n"
		"                                        default OUTDIR: DIR/plots\n"
		"  help\n"
		"exit codes: 0 ok, 1 usage, 2 module not loaded, 3 feature unavailable,\n"
		"            4 permission (not root), 5 other error; see schedlab(1)\n", prog);
	return code;
}

/*
 * Features schedlab run enables only when named (-f): eevdf, the verifier,
 * checks at every context switch and costs about 12% of one (docs/eevdf.md,
 * make bench); a recording of everything else stays under 10%.
 */
static bool run_opt_in(const char *feature)
{
	return !strcmp(feature, "eevdf");
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* the whole file (NUL-terminated, trailing newline dropped), or NULL */
static char *slurp(const char *path, int *err)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY);
	ssize_t n;

	*err = 0;
	if (fd < 0 || !buf) {
		*err = fd < 0 ? errno : ENOMEM;
		if (fd >= 0)
			close(fd);
		free(buf);
		return NULL;
	}
	for (;;) {
		if (len + 1 >= cap) {
			char *b = realloc(buf, cap *= 2);

			if (!b) {
				*err = ENOMEM;
				break;
			}
			buf = b;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			*err = errno;
			break;
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	if (*err) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	if (n && s[n - 1] == '\n')
		s[n - 1] = '\0';
}

/* write @val and a newline to @path in one write(); 0 or an errno */
static int put(const char *path, const char *val)
{
	size_t len = strlen(val);
	char *buf = malloc(len + 2);
	int fd, err = 0;
	ssize_t n;

	if (!buf)
		return ENOMEM;
	memcpy(buf, val, len);
	buf[len] = '\n';
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		free(buf);
		return errno;
	}
	n = write(fd, buf, len + 1);
	if (n < 0)
		err = errno;
	else if ((size_t)n != len + 1)
		err = EIO;
	if (close(fd) && !err)
		err = errno;
	free(buf);
	return err;
}

static int perm_error(const char *what)
{
	return fail(EX_PERM, "%s: permission denied: schedlab's control files and reports are root's; run it as root (sudo %s ...)",
		    what, prog);
}

static int module_loaded(void)
{
	if (exists(SYSFS "/version"))
		return EX_OK;
	return fail(EX_NOMODULE, "the schedlab module is not loaded: load it with insmod module/schedlab.ko or modprobe schedlab");
}

/* debugfs: mounted, readable (root) and holding schedlab's directory */
static int debugfs_ready(void)
{
	if (access(DEBUGFS, X_OK) && (errno == EACCES || errno == EPERM))
		return perm_error(DEBUGFS);
	if (!exists(DBG)) {
		if (!exists(DEBUGFS "/tracing") && !exists(DEBUGFS "/sched"))
			return fail(EX_OTHER, "debugfs is not mounted: mount -t debugfs none %s",
				    DEBUGFS);
		return fail(EX_OTHER, "%s missing although the module is loaded", DBG);
	}
	return EX_OK;
}

static void list_features(FILE *out)
{
	DIR *d = opendir(SYSFS);
	struct dirent *e;
	const char *sep = "";

	if (!d)
		return;
	while ((e = readdir(d))) {
		char p[512];

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), SYSFS "/%s/enabled", e->d_name);
		if (!exists(p))
			continue;
		fprintf(out, "%s%s", sep, e->d_name);
		sep = " ";
	}
	closedir(d);
}

/* a known feature (exit 1 otherwise); with @need_available, available (3) */
static int check_feature(const char *f, bool need_available)
{
	char p[512], *av;
	int err;

	if (!*f || strchr(f, '/') || f[0] == '.') {
		fprintf(stderr, "%s: '%s' is not a feature name\n", prog, f);
		return EX_USAGE;
	}
	snprintf(p, sizeof(p), SYSFS "/%s/enabled", f);
	if (!exists(p)) {
		fprintf(stderr, "%s: unknown feature '%s' (features: ", prog, f);
		list_features(stderr);
		fprintf(stderr, ")\n");
		return EX_USAGE;
	}
	if (!need_available)
		return EX_OK;
	snprintf(p, sizeof(p), SYSFS "/%s/available", f);
	av = slurp(p, &err);
	if (!av)
		return fail(EX_OTHER, "%s: %s", p, strerror(err));
	chomp(av);
	if (av[0] != '1') {
		const char *why = av[0] && av[1] ? av + 2 : "(no reason given)";

		err = fail(EX_UNAVAIL, "feature '%s' is unavailable on this kernel: %s", f, why);
		free(av);
		return err;
	}
	free(av);
	return EX_OK;
}

static bool is_root(void)
{
	return geteuid() == 0;
}

/*
 * The checks a subcommand makes before it touches anything, in the order
 * whose messages help most: the module is loaded, feature @f (NULL: none)
 * exists (and is available, with @need_available), the caller is root
 * (@need_root), debugfs is mounted and readable (@need_debugfs). 0, or the
 * exit code of the first that fails (its message printed).
 */
static int preflight(const char *cmd, const char *f, bool need_available,
		     bool need_root, bool need_debugfs)
{
	int rc = module_loaded();

	if (!rc && f)
		rc = check_feature(f, need_available);
	if (!rc && need_root && !is_root())
		rc = perm_error(cmd);
	if (!rc && need_debugfs)
		rc = debugfs_ready();
	return rc;
}

/* the exit code for a failed write of @val to @path */
static int write_error(const char *path, const char *val, int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
		return perm_error(path);
	case EINVAL:
		return fail(EX_USAGE, "%s: value '%s' refused (EINVAL): out of range or malformed",
			    path, val);
	case EBUSY:
		return fail(EX_OTHER, "%s: can only change while the feature is disabled (EBUSY): run schedlab disable first",
			    path);
	case ENODEV:
		return fail(EX_UNAVAIL, "%s: the feature is unavailable on this kernel (ENODEV)", path);
	default:
		return fail(EX_OTHER, "%s: writing '%s': %s", path, val, strerror(err));
	}
}

/* --- commands ------------------------------------------------------------ */

static int cmd_status(int argc, char **argv)
{
	bool json = false;
	char *s;
	int i, rc, err;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else
			return fail(EX_USAGE, "status: unexpected argument '%s'", argv[i]);
	}
	rc = preflight("status", NULL, false, true, true);
	if (rc)
		return rc;
	s = slurp(json ? DBG "/status.json" : DBG "/status", &err);
	if (!s)
		return err == EACCES || err == EPERM ? perm_error(DBG "/status") :
			fail(EX_OTHER, "%s/status: %s", DBG, strerror(err));
	fputs(s, stdout);
	free(s);
	return EX_OK;
}

struct param_write {
	char path[512];
	char *old;
	bool written;
};

static int cmd_enable(int argc, char **argv)
{
	struct param_write *pw;
	char p[512];
	int i, rc, err;
	const char *f;

	if (argc < 1)
		return fail(EX_USAGE, "enable: which feature? (schedlab enable FEATURE [PARAM=VALUE ...])");
	f = argv[0];
	rc = preflight("enable", f, true, false, false);
	if (rc)
		return rc;
	pw = calloc(argc, sizeof(*pw));
	if (!pw)
		return fail(EX_OTHER, "out of memory");
	/* every argument checked before anything is written */
	for (i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq || eq == argv[i]) {
			rc = fail(EX_USAGE, "enable: '%s' is not PARAM=VALUE", argv[i]);
			goto out;
		}
		*eq = '\0';
		if (strchr(argv[i], '/') || argv[i][0] == '.' ||
		    !strcmp(argv[i], "enabled") || !strcmp(argv[i], "available")) {
			rc = fail(EX_USAGE, "enable: '%s' is not a parameter of %s", argv[i], f);
			*eq = '=';
			goto out;
		}
		snprintf(pw[i].path, sizeof(pw[i].path), SYSFS "/%s/%s", f, argv[i]);
		*eq = '=';
		if (!exists(pw[i].path)) {
			*eq = '\0';
			rc = fail(EX_USAGE, "enable: %s has no parameter '%s' (see ls %s/%s)",
				  f, argv[i], SYSFS, f);
			*eq = '=';
			goto out;
		}
	}
	if (!is_root()) {
		rc = perm_error("enable");
		goto out;
	}
	for (i = 1; i < argc; i++) {
		const char *val = strchr(argv[i], '=') + 1;

		pw[i].old = slurp(pw[i].path, &err);
		if (!pw[i].old) {
			rc = fail(EX_OTHER, "%s: %s", pw[i].path, strerror(err));
			goto restore;
		}
		chomp(pw[i].old);
		err = put(pw[i].path, val);
		if (err) {
			rc = write_error(pw[i].path, val, err);
			goto restore;
		}
		pw[i].written = true;
	}
	snprintf(p, sizeof(p), SYSFS "/%s/enabled", f);
	err = put(p, "1");
	if (err) {
		rc = write_error(p, "1", err);
		goto restore;
	}
	rc = EX_OK;
	goto out;
restore:
	/* the parameters as they were, in reverse */
	for (i = argc - 1; i >= 1; i--)
		if (pw[i].written && put(pw[i].path, pw[i].old))
			fprintf(stderr, "%s: could not restore %s to '%s'\n", prog,
				pw[i].path, pw[i].old);
out:
	for (i = 0; i < argc; i++)
		free(pw[i].old);
	free(pw);
	return rc;
}

static int cmd_disable(int argc, char **argv)
{
	char p[512];
	int rc, err;

	if (argc != 1)
		return fail(EX_USAGE, "disable: exactly one FEATURE");
	rc = preflight("disable", argv[0], false, true, false);
	if (rc)
		return rc;
	snprintf(p, sizeof(p), SYSFS "/%s/enabled", argv[0]);
	err = put(p, "0");
	return err ? write_error(p, "0", err) : EX_OK;
}

static bool enabled(const char *f)
{
	char p[512], *s;
	bool on;
	int err;

	snprintf(p, sizeof(p), SYSFS "/%s/enabled", f);
	s = slurp(p, &err);
	on = s && s[0] == '1';
	free(s);
	return on;
}

/*
 * A feature's statistics: its debugfs reset file where it has one (an
 * enabled feature's counters restart, its state stays); otherwise, if it
 * is enabled, it is disabled and enabled again (what enable clears). A
 * disabled feature has nothing to reset.
 */
static int reset_one(const char *f)
{
	char p[512];
	int err;

	if (!enabled(f)) {
		printf("%s: disabled, nothing to reset\n", f);
		return EX_OK;
	}
	snprintf(p, sizeof(p), DBG "/%s/reset", f);
	if (exists(p)) {
		err = put(p, "1");
		if (err == ENODEV) {	/* disabled meanwhile */
			printf("%s: disabled, nothing to reset\n", f);
			return EX_OK;
		}
		if (err)
			return write_error(p, "1", err);
		printf("%s: statistics reset\n", f);
		return EX_OK;
	}
	snprintf(p, sizeof(p), SYSFS "/%s/enabled", f);
	err = put(p, "0");
	if (!err)
		err = put(p, "1");
	if (err)
		return write_error(p, "0/1", err);
	printf("%s: disabled and enabled again (statistics restart)\n", f);
	return EX_OK;
}

static int cmd_reset(int argc, char **argv)
{
	DIR *d;
	struct dirent *e;
	int rc;

	if (argc != 1)
		return fail(EX_USAGE, "reset: exactly one FEATURE, or all");
	if (strcmp(argv[0], "all")) {
		rc = preflight("reset", argv[0], true, true, true);
		return rc ? rc : reset_one(argv[0]);
	}
	rc = preflight("reset", NULL, false, true, true);
	if (rc)
		return rc;
	d = opendir(SYSFS);
	if (!d)
		return fail(EX_OTHER, "%s: %s", SYSFS, strerror(errno));
	while ((e = readdir(d))) {
		char p[512], *av;
		int err, r;

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), SYSFS "/%s/available", e->d_name);
		av = slurp(p, &err);
		if (av && av[0] == '1') {
			r = reset_one(e->d_name);
			if (r && !rc)
				rc = r;
		}
		free(av);
	}
	closedir(d);
	return rc;
}

/* the reports of @f: the files that have a .json twin, sorted */
static int report_names(const char *f, char ***names)
{
	char dir[512];
	struct dirent **ents;
	int n, i, k = 0;

	snprintf(dir, sizeof(dir), DBG "/%s", f);
	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0)
		return -errno;
	*names = calloc(n + 1, sizeof(char *));
	for (i = 0; i < n; i++) {
		char p[1024];
		const char *nm = ents[i]->d_name;
		size_t len = strlen(nm);

		if (*names && nm[0] != '.' && !(len > 5 && !strcmp(nm + len - 5, ".json"))) {
			snprintf(p, sizeof(p), "%s/%s.json", dir, nm);
			if (exists(p))
				(*names)[k++] = strdup(nm);
		}
		free(ents[i]);
	}
	free(ents);
	return *names ? k : -ENOMEM;
}

static int print_report(const char *f, const char *name, bool json, bool banner)
{
	char p[1024], *s;
	int err;

	snprintf(p, sizeof(p), DBG "/%s/%s%s", f, name, json ? ".json" : "");
	s = slurp(p, &err);
	if (!s) {
		if (err == EACCES || err == EPERM)
			return perm_error(p);
		return fail(EX_OTHER, "%s: %s", p, strerror(err));
	}
	if (banner)
		printf("== %s/%s\n", f, name);
	fputs(s, stdout);
	free(s);
	return EX_OK;
}

static int cmd_report(int argc, char **argv)
{
	const char *f = NULL, *name = NULL;
	bool json = false;
	char **names = NULL;
	int i, n, rc;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (argv[i][0] == '-')
			return fail(EX_USAGE, "report: unknown option '%s'", argv[i]);
		else if (!f)
			f = argv[i];
		else if (!name)
			name = argv[i];
		else
			return fail(EX_USAGE, "report: unexpected argument '%s'", argv[i]);
	}
	if (!f)
		return fail(EX_USAGE, "report: which feature? (schedlab report FEATURE [NAME] [--json])");
	rc = preflight("report", f, true, true, true);
	if (rc)
		return rc;
	n = report_names(f, &names);
	if (n < 0)
		return fail(EX_OTHER, "%s/%s: %s", DBG, f, strerror(-n));
	if (name) {
		for (i = 0; i < n && strcmp(names[i], name); i++)
			;
		if (i == n) {
			fprintf(stderr, "%s: %s has no report '%s' (reports:", prog, f, name);
			for (i = 0; i < n; i++)
				fprintf(stderr, " %s", names[i]);
			fprintf(stderr, ")\n");
			rc = EX_USAGE;
		} else {
			rc = print_report(f, name, json, false);
		}
	} else {
		/* every report: text one after another; JSON as one document */
		if (json)
			printf("{\"feature\":\"%s\",\"reports\":[\n", f);
		for (i = 0; i < n && !rc; i++) {
			if (json && i)
				printf(",\n");
			rc = print_report(f, names[i], json, !json);
		}
		if (json && !rc)
			printf("]}\n");
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

/* --- run: a command under every selected feature, recorded ---------------- */

/* a report's JSON document (docs/reporting.md), read with json-c */
struct jreport {
	json_object *doc, *cols, *rows;
	bool ok;
};

static void jreport_load(struct jreport *r, const char *path)
{
	memset(r, 0, sizeof(*r));
	r->doc = json_object_from_file(path);
	r->ok = r->doc && json_object_object_get_ex(r->doc, "columns", &r->cols) &&
		json_object_object_get_ex(r->doc, "rows", &r->rows) &&
		json_object_is_type(r->cols, json_type_array) &&
		json_object_is_type(r->rows, json_type_array);
}

static int jcol(const struct jreport *r, const char *name)
{
	size_t i, n = r->ok ? json_object_array_length(r->cols) : 0;

	for (i = 0; i < n; i++) {
		json_object *c = json_object_array_get_idx(r->cols, i);

		if (json_object_is_type(c, json_type_string) && !strcmp(json_object_get_string(c), name))
			return (int)i;
	}
	return -1;
}

/* row @i's value of column @name, or NULL */
static json_object *jcell(const struct jreport *r, int i, const char *name)
{
	int c = jcol(r, name);
	json_object *row;

	if (c < 0 || (size_t)i >= json_object_array_length(r->rows))
		return NULL;
	row = json_object_array_get_idx(r->rows, i);
	return json_object_is_type(row, json_type_array) ? json_object_array_get_idx(row, c) : NULL;
}

static double jnum(const struct jreport *r, int i, const char *name)
{
	json_object *v = jcell(r, i, name);

	return json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double) ?
		json_object_get_double(v) : 0;
}

static const char *jstr(const struct jreport *r, int i, const char *name)
{
	json_object *v = jcell(r, i, name);

	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "-";
}

static int jnrows(const struct jreport *r)
{
	return r->ok ? (int)json_object_array_length(r->rows) : 0;
}

/* one feature's saved state: enabled and every parameter */
struct fstate {
	char name[64];
	bool was_enabled;
	int nparam;
	char **param;		/* file names */
	char **val;		/* their values, newline dropped */
	char *events[4];	/* its tracefs events present here */
	int nevents;
};

/* the module's events per feature (module/schedlab_trace.h) */
static const struct {
	const char *feature;
	const char *events[3];
} feature_events[] = {
	{ "cpu_signals", { "cpu_signals" } },
	{ "signals", { "signals_task", "signals_cpu" } },
	{ "overutil", { "overutil" } },
	{ "blocked_on", { "mutex_wait_begin", "mutex_wait_end" } },
	{ "eevdf", { "eevdf_violation" } },
	{ "perf", { "perf_cpu" } },
};

static const char *tracefs_dir(void)
{
	if (exists("/sys/kernel/tracing/instances"))
		return "/sys/kernel/tracing";
	if (exists(DEBUGFS "/tracing/instances"))
		return DEBUGFS "/tracing";
	return NULL;
}

static int save_state(struct fstate *fs, const char *tracefs)
{
	char dir[512], p[1024];
	struct dirent **ents;
	int n, i, err;
	size_t k;

	snprintf(dir, sizeof(dir), SYSFS "/%s", fs->name);
	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0)
		return fail(EX_OTHER, "%s: %s", dir, strerror(errno));
	fs->param = calloc(n, sizeof(char *));
	fs->val = calloc(n, sizeof(char *));
	if (!fs->param || !fs->val)
		return fail(EX_OTHER, "out of memory");
	for (i = 0; i < n; i++) {
		const char *nm = ents[i]->d_name;
		struct stat st;
		char *v;

		snprintf(p, sizeof(p), "%s/%s", dir, nm);
		if (nm[0] == '.' || !strcmp(nm, "available") || stat(p, &st) ||
		    !S_ISREG(st.st_mode) || !(st.st_mode & S_IWUSR)) {
			free(ents[i]);
			continue;
		}
		v = slurp(p, &err);
		if (!v) {
			free(ents[i]);
			return err == EACCES || err == EPERM ? perm_error(p) :
				fail(EX_OTHER, "%s: %s", p, strerror(err));
		}
		chomp(v);
		if (!strcmp(nm, "enabled")) {
			fs->was_enabled = v[0] == '1';
			free(v);
		} else {
			fs->param[fs->nparam] = strdup(nm);
			fs->val[fs->nparam++] = v;
		}
		free(ents[i]);
	}
	free(ents);
	for (k = 0; tracefs && k < sizeof(feature_events) / sizeof(feature_events[0]); k++) {
		int e;

		if (strcmp(feature_events[k].feature, fs->name))
			continue;
		for (e = 0; e < 3 && feature_events[k].events[e]; e++) {
			snprintf(p, sizeof(p), "%s/events/schedlab/%s", tracefs,
				 feature_events[k].events[e]);
			if (exists(p))
				fs->events[fs->nevents++] = (char *)feature_events[k].events[e];
		}
	}
	return EX_OK;
}

/*
 * Put @fs back as it was: parameters that differ are written (the feature
 * disabled meanwhile if one can only change while it is disabled), then
 * enabled as it was. 0, or the number of values that could not be put back.
 */
static int restore_state(const struct fstate *fs)
{
	char p[1024], *cur;
	int i, err, bad = 0;
	bool on = enabled(fs->name);

	snprintf(p, sizeof(p), SYSFS "/%s/enabled", fs->name);
	if (on && !fs->was_enabled) {
		err = put(p, "0");
		if (err) {
			fprintf(stderr, "%s: could not restore %s to 0: %s\n", prog, p, strerror(err));
			bad++;
		}
		on = false;
	}
	for (i = 0; i < fs->nparam; i++) {
		char q[1024];

		snprintf(q, sizeof(q), SYSFS "/%s/%s", fs->name, fs->param[i]);
		cur = slurp(q, &err);
		if (cur)
			chomp(cur);
		if (cur && !strcmp(cur, fs->val[i])) {
			free(cur);
			continue;
		}
		free(cur);
		err = put(q, fs->val[i]);
		if (err == EBUSY && on) {
			on = false;
			err = put(p, "0");
			if (!err)
				err = put(q, fs->val[i]);
		}
		if (err) {
			fprintf(stderr, "%s: could not restore %s to '%s': %s\n", prog, q,
				fs->val[i], strerror(err));
			bad++;
		}
	}
	if (fs->was_enabled && !on) {
		err = put(p, "1");
		if (err) {
			fprintf(stderr, "%s: could not restore %s to 1: %s\n", prog, p, strerror(err));
			bad++;
		}
	}
	return bad;
}

/* reset and enable: what enable clears, or the reset of an enabled feature */
static int reset_enable(const struct fstate *fs)
{
	char p[512];
	int err;

	snprintf(p, sizeof(p), SYSFS "/%s/enabled", fs->name);
	if (!fs->was_enabled) {
		err = put(p, "1");
		return err ? write_error(p, "1", err) : EX_OK;
	}
	snprintf(p, sizeof(p), DBG "/%s/reset", fs->name);
	if (exists(p)) {
		err = put(p, "1");
		return err ? write_error(p, "1", err) : EX_OK;
	}
	snprintf(p, sizeof(p), SYSFS "/%s/enabled", fs->name);
	err = put(p, "0");
	if (!err)
		err = put(p, "1");
	return err ? write_error(p, "0/1", err) : EX_OK;
}

static volatile sig_atomic_t run_sig;
static volatile pid_t run_child;

/*
 * SIGINT, SIGTERM, SIGHUP: noted, and passed on to the command when sent
 * by a process (kill). A terminal's ^C reaches the command by itself, as
 * it is in the terminal's foreground process group with schedlab.
 */
static void run_handler(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (!run_sig)
		run_sig = sig;
	if (run_child > 0 && si && si->si_code <= 0)
		kill(run_child, sig);
}

static char *which(const char *prog_name)
{
	const char *path = getenv("PATH");
	char *dup, *d, *save = NULL;
	static char buf[1024];

	if (!path || !*path)
		path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	dup = strdup(path);
	for (d = strtok_r(dup, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(buf, sizeof(buf), "%s/%s", *d ? d : ".", prog_name);
		if (!access(buf, X_OK)) {
			free(dup);
			return buf;
		}
	}
	free(dup);
	return NULL;
}

static int write_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return errno;
	fputs(s, f);
	if (fclose(f))
		return errno;
	return 0;
}

/* copy debugfs file @src to @dst; 0 or an errno */
static int copy_file(const char *src, const char *dst)
{
	int err;
	char *s = slurp(src, &err);

	if (!s)
		return err;
	err = write_file(dst, s);
	free(s);
	return err;
}

/* JSON string of bytes (docs/reporting.md: bytes >= 0x80 as \u00XX) */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static double now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void iso_time(double t, char *buf, size_t len)
{
	time_t s = (time_t)t;
	struct tm tm;

	localtime_r(&s, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%S%z", &tm);
}

/* the events in @trace per name, read with libtracecmd; -1 if it failed */
struct evcount {
	char name[64];
	long n;
};

struct count_ctx {
	struct evcount *ev;
	int nev;
	long missed;		/* events the ring buffer dropped, where counted */
	bool missed_unknown;	/* a drop whose size the buffer did not keep */
};

static int count_one(struct tracecmd_input *h, struct tep_record *rec,
		     int cpu __attribute__((unused)), void *data)
{
	struct count_ctx *c = data;
	struct tep_event *e = tep_find_event_by_record(tracecmd_get_tep(h), rec);
	int i;

	if (!e)
		return 0;
	for (i = 0; i < c->nev; i++)
		if (!strcmp(c->ev[i].name, e->name)) {
			c->ev[i].n++;
			break;
		}
	return 0;
}

static int count_missed(struct tracecmd_input *h __attribute__((unused)),
			struct tep_event *e __attribute__((unused)), struct tep_record *rec,
			int cpu __attribute__((unused)), void *data)
{
	struct count_ctx *c = data;

	if (rec->missed_events > 0)
		c->missed += rec->missed_events;
	else if (rec->missed_events < 0)
		c->missed_unknown = true;
	return 0;
}

/* one buffer's records; the file's top buffer or one of its instances */
static int count_buffer(struct tracecmd_input *h, struct count_ctx *c)
{
	tracecmd_follow_missed_events(h, count_missed, c);
	return tracecmd_iterate_events(h, NULL, 0, count_one, c) < 0 ? -1 : 0;
}

/*
 * Every buffer of the file: run records into its own tracefs instance,
 * which trace-cmd saves as a buffer instance of trace.dat beside an
 * (empty) top buffer.
 */
static int count_events(const char *trace, struct count_ctx *c)
{
	struct tracecmd_input *h, *b;
	int ret, i, n;

	tracecmd_set_loglevel(TEP_LOG_NONE);
	h = tracecmd_open(trace, 0);
	if (!h)
		return -1;
	ret = count_buffer(h, c);
	n = tracecmd_buffer_instances(h);
	for (i = 0; !ret && i < n; i++) {
		b = tracecmd_buffer_instance_handle(h, i);
		if (!b) {
			ret = -1;
			break;
		}
		ret = count_buffer(b, c);
		tracecmd_close(b);
	}
	tracecmd_close(h);
	return ret;
}

/* one or two lines per feature on what to look at, from its reports' JSON */
static void summarize(const char *dir, const char *f)
{
	char p[1024];
	struct jreport a, b;
	int i, n;

#define LOAD(r, name) do { \
		snprintf(p, sizeof(p), "%s/reports/%s/%s.json", dir, f, name); \
		jreport_load(&(r), p); \
	} while (0)
	memset(&b, 0, sizeof(b));
	if (!strcmp(f, "blocked_on")) {
		LOAD(a, "stats");
		LOAD(b, "locks");
		fprintf(stderr, "  blocked_on: %.0f waits recorded (%.0f shorter than min_wait_us), %d locks\n",
			jnum(&a, 0, "waits_recorded"), jnum(&a, 0, "waits_shorter_than_min"), jnrows(&b));
		n = -1;
		for (i = 0; i < jnrows(&b); i++)
			if (n < 0 || jnum(&b, i, "total_us") > jnum(&b, n, "total_us"))
				n = i;
		if (n >= 0)
			fprintf(stderr, "    top lock %s%s%s: %.0f waits, %.0f us waited, max %.0f us (reports/blocked_on/locks.txt, chains.txt)\n",
				jstr(&b, n, "lock"),
				strcmp(jstr(&b, n, "sym"), jstr(&b, n, "lock")) ? " " : "",
				strcmp(jstr(&b, n, "sym"), jstr(&b, n, "lock")) ? jstr(&b, n, "sym") : "",
				jnum(&b, n, "waits"),
				jnum(&b, n, "total_us"), jnum(&b, n, "max_us"));
	} else if (!strcmp(f, "eevdf")) {
		double checked = 0, violated = 0;

		LOAD(a, "checks");
		for (i = 0; i < jnrows(&a); i++) {
			checked += jnum(&a, i, "checked");
			violated += jnum(&a, i, "violations");
		}
		fprintf(stderr, "  eevdf: %.0f invariant checks, %.0f violations (reports/eevdf/checks.txt, violations.txt)\n",
			checked, violated);
	} else if (!strcmp(f, "signals")) {
		LOAD(a, "stats");
		LOAD(b, "tasks");
		fprintf(stderr, "  signals: %.0f tasks tracked (%.0f dropped), %.0f samples; per task: reports/signals/tasks.txt\n",
			jnum(&a, 0, "tracked"), jnum(&a, 0, "dropped"), jnum(&a, 0, "samples"));
	} else if (!strcmp(f, "cpu_signals")) {
		LOAD(a, "report");
		fprintf(stderr, "  cpu_signals: util_mean/util_max per CPU:");
		for (i = 0; i < jnrows(&a); i++)
			fprintf(stderr, " %.0f:%.0f/%.0f", jnum(&a, i, "cpu"),
				jnum(&a, i, "util_mean"), jnum(&a, i, "util_max"));
		fprintf(stderr, " (reports/cpu_signals/report.txt)\n");
	} else if (!strcmp(f, "overutil")) {
		static const char * const rules[] = { "mainline", "linger", "idle", "dynamic", "lone", "all" };

		LOAD(a, "report");
		for (i = 0; i < jnrows(&a); i++)
			if (!strcmp(jstr(&a, i, "scope"), "system") &&
			    !strcmp(jstr(&a, i, "metric"), "time_us"))
				break;
		fprintf(stderr, "  overutil: system overutilized, us per rule:");
		for (n = 0; i < jnrows(&a) && n < 6; n++)
			fprintf(stderr, " %s %.0f", rules[n], jnum(&a, i, rules[n]));
		fprintf(stderr, " (reports/overutil/report.txt)\n");
	} else if (!strcmp(f, "dlparams")) {
		LOAD(a, "stats");
		fprintf(stderr, "  dlparams: %.0f reads, %.0f ioctls, %.0f publishes (reports/dlparams/stats.txt)\n",
			jnum(&a, 0, "reads"), jnum(&a, 0, "ioctls"), jnum(&a, 0, "publishes"));
	} else {
		fprintf(stderr, "  %s: reports in reports/%s/\n", f, f);
		memset(&a, 0, sizeof(a));
	}
#undef LOAD
	json_object_put(a.doc);
	json_object_put(b.doc);
}

/* is @dir a directory with something in it (or not a directory at all) */
static bool dir_unusable(const char *dir)
{
	DIR *d;
	struct dirent *e;
	bool used = false;

	if (!exists(dir))
		return false;
	d = opendir(dir);
	if (!d)
		return true;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			used = true;
	closedir(d);
	return used;
}

/* trace-cmd's temporary files left in @dir: "(null).cpuN", "trace.dat.*.cpuN" */
static void remove_temp(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[1024];

	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "(null).cpu", 10) &&
		    !(!strncmp(e->d_name, "trace.dat.", 10) && strstr(e->d_name, ".cpu")))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
}

static int cmd_run(int argc, char **argv)
{
	const char *flist = NULL, *dir = NULL, *tracefs = NULL;
	char defdir[64], inst[64], p[1024], trace[1024], *tc = NULL, *av;
	bool record = true;
	struct fstate *fs = NULL;
	struct evcount ev[16];
	struct count_ctx cc = { 0 };
	int nf = 0, nev = 0, i, j, rc = EX_OK, cmd_at = -1, err, status = 0;
	int bad = 0, cmd_rc = -1, tc_ok = -1, cstatus = 0;
	pid_t tc_pid = -1, pid;
	double t0m = 0, t0 = 0, t1 = 0;
	struct sigaction sa, old[3];
	static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	struct utsname un;
	FILE *out;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			cmd_at = i + 1;
			break;
		} else if (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--features")) {
			if (++i == argc)
				return fail(EX_USAGE, "run: %s needs FEATURE[,FEATURE...]", argv[i - 1]);
			flist = argv[i];
		} else if (!strncmp(argv[i], "--features=", 11)) {
			flist = argv[i] + 11;
		} else if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			if (++i == argc)
				return fail(EX_USAGE, "run: %s needs a DIR", argv[i - 1]);
			dir = argv[i];
		} else if (!strncmp(argv[i], "--output=", 9)) {
			dir = argv[i] + 9;
		} else if (!strcmp(argv[i], "--no-record")) {
			record = false;
		} else {
			return fail(EX_USAGE, "run: unexpected argument '%s' (the command comes after --: schedlab run [-f FEATURE,...] [-o DIR] [--no-record] -- COMMAND ...)",
				    argv[i]);
		}
	}
	if (cmd_at < 0 || cmd_at >= argc)
		return fail(EX_USAGE, "run: which command? (schedlab run [-f FEATURE,...] [-o DIR] [--no-record] -- COMMAND ...)");
	if (flist && !*flist)
		return fail(EX_USAGE, "run: -f needs FEATURE[,FEATURE...]");
	if (dir && !*dir)
		return fail(EX_USAGE, "run: -o needs a DIR");
	rc = module_loaded();
	if (rc)
		return rc;

	/*
	 * The features: those named, each known and available; else every
	 * available one but the opt-in ones (run_opt_in[]).
	 */
	fs = calloc(64, sizeof(*fs));
	if (!fs)
		return fail(EX_OTHER, "out of memory");
	if (flist) {
		char *list = strdup(flist), *f, *save = NULL;

		for (f = strtok_r(list, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
			rc = check_feature(f, true);
			for (j = 0; !rc && j < nf; j++)
				if (!strcmp(fs[j].name, f))
					break;
			if (!rc && j == nf && nf < 64 && strlen(f) < sizeof(fs[0].name))
				snprintf(fs[nf++].name, sizeof(fs[0].name), "%s", f);
			if (rc)
				break;
		}
		free(list);
		if (!rc && !nf)
			rc = fail(EX_USAGE, "run: -f needs FEATURE[,FEATURE...]");
		if (rc)
			goto out_free;
	} else {
		struct dirent **ents;
		int n = scandir(SYSFS, &ents, NULL, alphasort);

		for (i = 0; i < n; i++) {
			snprintf(p, sizeof(p), SYSFS "/%s/available", ents[i]->d_name);
			av = ents[i]->d_name[0] == '.' ? NULL : slurp(p, &err);
			if (av && av[0] == '1' && nf < 64 && !run_opt_in(ents[i]->d_name) &&
			    strlen(ents[i]->d_name) < sizeof(fs[0].name))
				snprintf(fs[nf++].name, sizeof(fs[0].name), "%s", ents[i]->d_name);
			free(av);
			free(ents[i]);
		}
		if (n >= 0)
			free(ents);
		if (!nf) {
			rc = fail(EX_UNAVAIL, "run: no feature is available on this kernel (schedlab status says why)");
			goto out_free;
		}
	}

	/* the directory: new, or empty */
	if (!dir) {
		time_t t = time(NULL);
		struct tm tm;

		localtime_r(&t, &tm);
		strftime(defdir, sizeof(defdir), "schedlab-run-%Y%m%d-%H%M%S", &tm);
		dir = defdir;
	}
	if (dir_unusable(dir)) {
		rc = fail(EX_USAGE, "run: %s exists and is not an empty directory: choose another with -o DIR",
			  dir);
		goto out_free;
	}
	if (!is_root()) {
		rc = perm_error("run");
		goto out_free;
	}
	rc = debugfs_ready();
	if (rc)
		goto out_free;
	tracefs = tracefs_dir();
	if (record) {
		tc = which("trace-cmd");
		if (!tc) {
			rc = fail(EX_OTHER, "run: trace-cmd not found: install it (apt install trace-cmd), or run without recording (--no-record)");
			goto out_free;
		}
		tc = strdup(tc);
		if (!tracefs) {
			rc = fail(EX_OTHER, "run: tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing), or use --no-record");
			goto out_free;
		}
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		rc = fail(EX_OTHER, "run: mkdir %s: %s", dir, strerror(errno));
		goto out_free;
	}
	snprintf(p, sizeof(p), "%s/reports", dir);
	if (mkdir(p, 0755)) {
		rc = fail(EX_OTHER, "run: mkdir %s: %s", p, strerror(errno));
		goto out_free;
	}
	for (i = 0; i < nf; i++) {
		rc = save_state(&fs[i], tracefs);
		if (rc)
			goto out_free;
		snprintf(p, sizeof(p), "%s/reports/%s", dir, fs[i].name);
		if (mkdir(p, 0755)) {
			rc = fail(EX_OTHER, "run: mkdir %s: %s", p, strerror(errno));
			goto out_free;
		}
	}

	/* from here on the state is put back whatever happens */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = run_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	for (i = 0; i < nf && !run_sig; i++) {
		rc = reset_enable(&fs[i]);
		if (rc)
			goto restore;
	}

	/* recording: trace-cmd into its own instance, the features' events */
	snprintf(trace, sizeof(trace), "%s/trace.dat", dir);
	snprintf(inst, sizeof(inst), "schedlab-run-%d", (int)getpid());
	for (i = 0; i < nf; i++)
		for (j = 0; j < fs[i].nevents && nev < 16; j++)
			snprintf(ev[nev].name, sizeof(ev[nev].name), "%s", fs[i].events[j]), ev[nev++].n = 0;
	if (record && nev && !run_sig) {
		char *targv[8 + 2 * 16];
		char evarg[16][sizeof("schedlab:") + sizeof(ev[0].name)];
		int k = 0;
		double deadline;

		targv[k++] = "trace-cmd";
		targv[k++] = "record";
		targv[k++] = "-o";
		targv[k++] = "trace.dat";
		targv[k++] = "-B";
		targv[k++] = inst;
		for (j = 0; j < nev; j++) {
			snprintf(evarg[j], sizeof(evarg[j]), "schedlab:%.*s",
				 (int)sizeof(ev[j].name), ev[j].name);
			targv[k++] = "-e";
			targv[k++] = evarg[j];
		}
		targv[k] = NULL;
		snprintf(p, sizeof(p), "%s/trace-cmd.log", dir);
		tc_pid = fork();
		if (tc_pid < 0) {
			rc = fail(EX_OTHER, "run: fork: %s", strerror(errno));
			goto restore;
		}
		if (tc_pid == 0) {
			int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			int nul = open("/dev/null", O_RDONLY);

			/* its own process group: a terminal's ^C is not for it */
			setpgid(0, 0);
			for (i = 0; i < 3; i++)
				sigaction(sigs[i], &old[i], NULL);
			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
			}
			if (nul >= 0)
				dup2(nul, 0);
			/*
			 * In DIR: trace-cmd before 3.2 writes the top instance's
			 * temporary files ("(null).cpuN") in its working
			 * directory even when only -B is recorded (and fails
			 * where that is read-only).
			 */
			if (chdir(dir)) {
				fprintf(stderr, "chdir %s: %s\n", dir, strerror(errno));
				_exit(127);
			}
			execv(tc, targv);
			fprintf(stderr, "exec %s: %s\n", tc, strerror(errno));
			_exit(127);
		}
		/*
		 * Ready once its instance's events are enabled and tracing is
		 * on: trace-cmd clears the instance, enables the events, starts
		 * its readers, then turns tracing on (trace-record.c).
		 */
		deadline = now(CLOCK_MONOTONIC) + 60;
		for (;;) {
			bool ready = true;
			char *s;

			if (waitpid(tc_pid, &status, WNOHANG) == tc_pid) {
				tc_pid = -1;
				snprintf(p, sizeof(p), "%s/trace-cmd.log", dir);
				s = slurp(p, &err);
				rc = fail(EX_OTHER, "run: trace-cmd record failed (%s/trace-cmd.log):\n%s",
					  dir, s ? s : "");
				free(s);
				snprintf(p, sizeof(p), "%s/instances/%s", tracefs, inst);
				if (exists(p))
					rmdir(p);
				remove_temp(dir);
				goto restore;
			}
			snprintf(p, sizeof(p), "%s/instances/%s/tracing_on", tracefs, inst);
			s = slurp(p, &err);
			ready = s && s[0] == '1';
			free(s);
			for (j = 0; ready && j < nev; j++) {
				char q[1400];

				snprintf(q, sizeof(q), "%s/instances/%s/events/schedlab/%s/enable",
					 tracefs, inst, ev[j].name);
				s = slurp(q, &err);
				ready = s && s[0] == '1';
				free(s);
			}
			if (ready)
				break;
			if (run_sig)
				goto stop_trace;
			if (now(CLOCK_MONOTONIC) > deadline) {
				rc = fail(EX_OTHER, "run: trace-cmd record did not start within 60 s (%s/trace-cmd.log)",
					  dir);
				goto stop_trace;
			}
			usleep(20000);
		}
	}

	/* the command */
	t0m = now(CLOCK_MONOTONIC);
	t0 = now(CLOCK_REALTIME);
	if (!run_sig) {
		pid = fork();
		if (pid < 0) {
			rc = fail(EX_OTHER, "run: fork: %s", strerror(errno));
			goto stop_trace;
		}
		if (pid == 0) {
			/* the signals schedlab passes on end the command by default */
			for (i = 0; i < 3; i++)
				signal(sigs[i], SIG_DFL);
			execvp(argv[cmd_at], argv + cmd_at);
			fprintf(stderr, "%s: run: %s: %s\n", prog, argv[cmd_at], strerror(errno));
			_exit(errno == ENOENT ? 127 : 126);
		}
		run_child = pid;
		/* a signal between fork and here: the handler could not pass it on */
		if (run_sig)
			kill(pid, run_sig);
		while (waitpid(pid, &cstatus, 0) < 0 && errno == EINTR)
			;
		run_child = 0;
		cmd_rc = WIFEXITED(cstatus) ? WEXITSTATUS(cstatus) :
			WIFSIGNALED(cstatus) ? 128 + WTERMSIG(cstatus) : 1;
	}
	t1 = now(CLOCK_MONOTONIC);

stop_trace:
	if (tc_pid > 0) {
		kill(tc_pid, SIGINT);
		while (waitpid(tc_pid, &status, 0) < 0 && errno == EINTR)
			;
		tc_ok = WIFEXITED(status) && !WEXITSTATUS(status);
		/* what a failed trace-cmd left: its instance, temporary files */
		snprintf(p, sizeof(p), "%s/instances/%s", tracefs, inst);
		if (exists(p) && rmdir(p))
			fprintf(stderr, "%s: run: rmdir %s: %s\n", prog, p, strerror(errno));
		remove_temp(dir);
		if (!tc_ok) {
			char *s;

			snprintf(p, sizeof(p), "%s/trace-cmd.log", dir);
			s = slurp(p, &err);
			fprintf(stderr, "%s: run: trace-cmd record %s %d (%s):\n%s", prog,
				WIFEXITED(status) ? "exited" : "killed by signal",
				WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
				p, s ? s : "");
			free(s);
		}
	}
	if (!t1)
		t1 = now(CLOCK_MONOTONIC), t0m = t1, t0 = now(CLOCK_REALTIME);

	/* the reports as the command left them */
	snprintf(p, sizeof(p), "%s/status.txt", dir);
	err = copy_file(DBG "/status", p);
	snprintf(p, sizeof(p), "%s/status.json", dir);
	if (!err)
		err = copy_file(DBG "/status.json", p);
	if (err)
		fprintf(stderr, "%s: run: saving the status report: %s\n", prog, strerror(err));
	for (i = 0; i < nf; i++) {
		char **names = NULL;
		int n = report_names(fs[i].name, &names);

		for (j = 0; j < n; j++) {
			char src[1024];

			snprintf(src, sizeof(src), DBG "/%s/%s", fs[i].name, names[j]);
			snprintf(p, sizeof(p), "%s/reports/%s/%s.txt", dir, fs[i].name, names[j]);
			err = copy_file(src, p);
			snprintf(src, sizeof(src), DBG "/%s/%s.json", fs[i].name, names[j]);
			snprintf(p, sizeof(p), "%s/reports/%s/%s.json", dir, fs[i].name, names[j]);
			if (!err)
				err = copy_file(src, p);
			if (err)
				fprintf(stderr, "%s: run: saving %s/%s: %s\n", prog, fs[i].name,
					names[j], strerror(err));
			free(names[j]);
		}
		free(names);
	}

restore:
	for (i = nf - 1; i >= 0; i--)
		bad += restore_state(&fs[i]);
	for (i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	if (bad) {
		fprintf(stderr, "%s: run: %d value(s) could not be put back (above)\n", prog, bad);
		if (!rc)
			rc = EX_OTHER;
	}
	if (rc)
		goto out_free;

	/* what was recorded, run.json, the summary */
	cc.ev = ev;
	cc.nev = nev;
	if (tc_ok > 0 && count_events(trace, &cc))
		fprintf(stderr, "%s: run: libtracecmd could not read %s\n", prog, trace);
	snprintf(p, sizeof(p), "%s/run.json", dir);
	out = fopen(p, "w");
	if (out) {
		char ts0[64], ts1[64];
		int vr;
		char *ver = slurp(SYSFS "/version", &vr);

		iso_time(t0, ts0, sizeof(ts0));
		iso_time(t0 + (t1 - t0m), ts1, sizeof(ts1));
		fprintf(out, "{\"schema\": 1,\n \"command\": [");
		for (i = cmd_at; i < argc; i++) {
			if (i > cmd_at)
				fputs(", ", out);
			json_str(out, argv[i]);
		}
		fprintf(out, "],\n \"exit_status\": ");
		if (cmd_rc >= 0 && WIFEXITED(cstatus))
			fprintf(out, "%d", cmd_rc);
		else
			fputs("null", out);
		fprintf(out, ",\n \"signal\": ");
		if (cmd_rc >= 0 && WIFSIGNALED(cstatus))
			fprintf(out, "%d", WTERMSIG(cstatus));
		else
			fputs("null", out);
		fprintf(out, ",\n \"interrupted_by\": ");
		if (run_sig)
			fprintf(out, "%d", (int)run_sig);
		else
			fputs("null", out);
		fprintf(out, ",\n \"exit_code\": %d", cmd_rc >= 0 ? cmd_rc : 128 + (int)run_sig);
		fprintf(out, ",\n \"start\": \"%s\", \"end\": \"%s\", \"start_unix\": %.6f, \"duration_s\": %.6f",
			ts0, ts1, t0, t1 - t0m);
		uname(&un);
		fprintf(out, ",\n \"kernel_release\": ");
		json_str(out, un.release);
		fprintf(out, ",\n \"schedlab_version\": ");
		if (ver) {
			chomp(ver);
			json_str(out, ver);
		} else {
			fputs("null", out);
		}
		free(ver);
		fprintf(out, ",\n \"features\": [");
		for (i = 0; i < nf; i++)
			fprintf(out, "%s\"%s\"", i ? ", " : "", fs[i].name);
		fprintf(out, "],\n \"trace\": %s,\n \"events\": {",
			tc_ok > 0 ? "\"trace.dat\"" : "null");
		for (j = 0; tc_ok > 0 && j < nev; j++)
			fprintf(out, "%s\"schedlab:%s\": %ld", j ? ", " : "", ev[j].name, ev[j].n);
		fprintf(out, "},\n \"events_lost\": ");
		if (tc_ok > 0 && !cc.missed_unknown)
			fprintf(out, "%ld", cc.missed);
		else
			fputs("null", out);
		fprintf(out, ",\n \"reports\": \"reports\"}\n");
		if (fclose(out))
			fprintf(stderr, "%s: run: writing %s: %s\n", prog, p, strerror(errno));
	} else {
		fprintf(stderr, "%s: run: %s: %s\n", prog, p, strerror(errno));
	}

	fprintf(stderr, "%s: run: ", prog);
	if (cmd_rc < 0)
		fprintf(stderr, "interrupted (signal %d) before the command started", (int)run_sig);
	else if (WIFSIGNALED(cstatus))
		fprintf(stderr, "%s killed by signal %d after %.2f s", argv[cmd_at],
			WTERMSIG(cstatus), t1 - t0m);
	else
		fprintf(stderr, "%s exited %d after %.2f s", argv[cmd_at], cmd_rc, t1 - t0m);
	fprintf(stderr, "; results in %s/ (run.json, reports/%s)\n", dir,
		tc_ok > 0 ? ", trace.dat" : "");
	if (tc_ok > 0) {
		fprintf(stderr, "  events in trace.dat (trace-cmd report -i %s):", trace);
		for (j = 0; j < nev; j++)
			fprintf(stderr, " %s %ld", ev[j].name, ev[j].n);
		fputc('\n', stderr);
		if (cc.missed || cc.missed_unknown)
			fprintf(stderr, "  lost: %s%ld events the ring buffer dropped (a bigger buffer: trace-cmd's -b)\n",
				cc.missed_unknown ? "at least " : "", cc.missed);
		j = (int)strlen(dir);
		while (j > 1 && dir[j - 1] == '/')
			j--;
		fprintf(stderr, "  in SQL: %s export %s -o %.*s.sqlite (docs/export.md)\n",
			prog, dir, j, dir);
	} else if (!record) {
		fprintf(stderr, "  not recorded (--no-record)\n");
	} else if (!nev) {
		fprintf(stderr, "  not recorded: the features selected have no events\n");
	}
	for (i = 0; i < nf; i++)
		summarize(dir, fs[i].name);
	rc = cmd_rc >= 0 ? cmd_rc : 128 + run_sig;

out_free:
	for (i = 0; i < nf; i++) {
		for (j = 0; j < fs[i].nparam; j++) {
			free(fs[i].param[j]);
			free(fs[i].val[j]);
		}
		free(fs[i].param);
		free(fs[i].val);
	}
	free(fs);
	free(tc);
	return rc;
}

/* --- export: a run directory into one SQLite file ---------------------------- */

/* a growing string */
struct sbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void sb_putn(struct sbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *t;

		while (cap < b->len + n + 1)
			cap *= 2;
		t = realloc(b->s, cap);
		if (!t) {
			b->oom = true;
			return;
		}
		b->s = t;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(tmp))
		sb_putn(b, tmp, n);
}

static void sb_reset(struct sbuf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

/* @n bytes up to a NUL as a JSON string (docs/reporting.md: >= 0x80 as \u00XX) */
static void sb_json_bytes(struct sbuf *b, const char *s, size_t n)
{
	size_t i;

	sb_putn(b, "\"", 1);
	for (i = 0; i < n && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };

			sb_putn(b, e, 2);
		} else if (c < 0x20 || c >= 0x7f) {
			sb_printf(b, "\\u%04x", c);
		} else {
			sb_putn(b, (const char *)&c, 1);
		}
	}
	sb_putn(b, "\"", 1);
}

/* @n bytes up to a NUL as UTF-8 text, each byte its code point (latin-1) */
static void sb_utf8_bytes(struct sbuf *b, const char *s, size_t n)
{
	size_t i;

	sb_reset(b);
	sb_putn(b, "", 0);	/* "" rather than NULL when empty */
	for (i = 0; i < n && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x80) {
			sb_putn(b, (const char *)&c, 1);
		} else {
			char u[2] = { (char)(0xc0 | c >> 6), (char)(0x80 | (c & 0x3f)) };

			sb_putn(b, u, 2);
		}
	}
}

/* a SQL identifier, quoted */
static void sb_ident(struct sbuf *b, const char *name)
{
	sb_putn(b, "\"", 1);
	for (; *name; name++)
		sb_putn(b, name, 1 + (*name == '"'));
	sb_putn(b, "\"", 1);
}

/* @s with every byte outside [A-Za-z0-9_] made '_' */
static void sanitize(char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			*s = '_';
}

/* one table per event: ts_ns, common_cpu, common_pid, common_comm, its fields */
struct xevent {
	struct tep_event *ev;		/* as the record's tep knows it */
	struct tep_format_field **fields;
	int nfields;
	sqlite3_stmt *ins;
	char table[160];
};

struct xctx {
	sqlite3 *db;
	const char *what;		/* what failed, for the message */
	int err;			/* a SQLite error or -1: stop */
	sqlite3_stmt *ins_ev;
	struct xevent *xev;
	int nxev;
	long nrec;
	struct sbuf sql, json, txt;
	struct trace_seq seq;
};

static int x_sql_fail(struct xctx *x, const char *what)
{
	if (!x->err) {
		x->err = -1;
		fprintf(stderr, "%s: export: %s: %s\n", prog, what, sqlite3_errmsg(x->db));
	}
	return -1;
}

static int x_exec(struct xctx *x, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(x->db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	if (!x->err) {
		x->err = -1;
		fprintf(stderr, "%s: export: %s: %s\n", prog, sql, msg ? msg : "?");
	}
	sqlite3_free(msg);
	return -1;
}

static int x_prepare(struct xctx *x, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(x->db, sql, -1, st, NULL) != SQLITE_OK)
		return x_sql_fail(x, sql);
	return 0;
}

static int x_step(struct xctx *x, sqlite3_stmt *st, const char *what)
{
	int r = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return r == SQLITE_DONE ? 0 : x_sql_fail(x, what);
}

/* a trace field: its kind */
enum { XF_INT, XF_STR, XF_ARR };

static int xf_kind(const struct tep_format_field *f)
{
	if (f->flags & TEP_FIELD_IS_STRING)
		return XF_STR;
	if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC))
		return XF_ARR;
	return XF_INT;
}

/* @v, a value of @size bytes, sign-extended if the field is signed */
static long long xf_sext(const struct tep_format_field *f, unsigned long long v, int size)
{
	if ((f->flags & TEP_FIELD_IS_SIGNED) && size > 0 && size < 8 && (v >> (size * 8 - 1)) & 1)
		v |= ~0ULL << (size * 8);
	return (long long)v;
}

/* an array's element of @size bytes at @p */
static long long xf_num(struct tep_handle *tep, const struct tep_format_field *f,
			const void *p, int size)
{
	return size > 0 && size <= 8 ? xf_sext(f, tep_read_number(tep, p, size), size) : 0;
}

/* an integer field of @rec, sign-extended as its type says: 0, or -1 (none) */
static int xf_int(struct tep_format_field *f, const struct tep_record *rec, long long *v)
{
	unsigned long long u;

	if (xf_kind(f) != XF_INT || f->offset < 0 || f->offset + f->size > rec->size ||
	    tep_read_number_field(f, rec->data, &u))
		return -1;
	*v = xf_sext(f, u, f->size);
	return 0;
}

/* the table of @ev: created at first sight, with a column per field */
static struct xevent *x_event(struct xctx *x, struct tep_event *ev)
{
	static const char * const reserved[] = { "run", "events", "reports", "status", "waits",
						 "samples", NULL };
	struct xevent *xe, *t;
	char table[160];
	int i;
	bool schedlab = ev->system && !strcmp(ev->system, "schedlab");

	for (i = 0; i < x->nxev; i++)
		if (x->xev[i].ev == ev)
			return &x->xev[i];
	/*
	 * schedlab's events: a table named after the event; another system's
	 * (a trace not made by schedlab run): SYSTEM_EVENT
	 */
	if (schedlab)
		snprintf(table, sizeof(table), "%s", ev->name);
	else
		snprintf(table, sizeof(table), "%s_%s", ev->system ? ev->system : "", ev->name);
	sanitize(table);
	for (i = 0; schedlab && reserved[i]; i++)
		if (!strcmp(table, reserved[i]) || !strncmp(table, "report_", 7))
			snprintf(table, sizeof(table), "schedlab_%s", ev->name);
	/* the same event in another buffer's tep: the same table */
	for (i = 0; i < x->nxev; i++)
		if (!strcmp(x->xev[i].table, table))
			break;
	t = realloc(x->xev, (x->nxev + 1) * sizeof(*t));
	if (!t) {
		x->err = -1;
		return NULL;
	}
	x->xev = t;
	xe = &x->xev[x->nxev];
	memset(xe, 0, sizeof(*xe));
	xe->ev = ev;
	snprintf(xe->table, sizeof(xe->table), "%s", table);
	xe->fields = tep_event_fields(ev);
	for (xe->nfields = 0; xe->fields && xe->fields[xe->nfields]; xe->nfields++)
		;
	x->nxev++;
	if (i == x->nxev - 1) {
		sb_reset(&x->sql);
		sb_puts(&x->sql, "CREATE TABLE ");
		sb_ident(&x->sql, table);
		sb_puts(&x->sql, " (ts_ns INTEGER, common_cpu INTEGER, common_pid INTEGER, common_comm TEXT");
		for (i = 0; i < xe->nfields; i++) {
			const struct tep_format_field *f = xe->fields[i];
			char col[128];

			snprintf(col, sizeof(col), "%s", f->name);
			if (!strcmp(col, "ts_ns") || !strncmp(col, "common_", 7))
				snprintf(col, sizeof(col), "field_%s", f->name);
			sb_puts(&x->sql, ", ");
			sb_ident(&x->sql, col);
			sb_puts(&x->sql, xf_kind(f) == XF_INT ? " INTEGER" : " TEXT");
		}
		sb_puts(&x->sql, ")");
		if (x->sql.oom || x_exec(x, x->sql.s))
			return NULL;
	}
	sb_reset(&x->sql);
	sb_puts(&x->sql, "INSERT INTO ");
	sb_ident(&x->sql, table);
	sb_puts(&x->sql, " VALUES (?, ?, ?, ?");
	for (i = 0; i < xe->nfields; i++)
		sb_puts(&x->sql, ", ?");
	sb_puts(&x->sql, ")");
	if (x->sql.oom || x_prepare(x, x->sql.s, &xe->ins))
		return NULL;
	return xe;
}

/* one record: a row of events and one of its event's table */
static int x_record(struct tracecmd_input *h, struct tep_record *rec,
		    int cpu __attribute__((unused)), void *data)
{
	struct xctx *x = data;
	struct tep_handle *tep = tracecmd_get_tep(h);
	struct tep_event *ev = tep_find_event_by_record(tep, rec);
	struct xevent *xe;
	const char *comm;
	int cpid;
	int i;

	if (x->err)
		return -1;
	if (!ev)
		return 0;
	xe = x_event(x, ev);
	if (!xe)
		return -1;
	cpid = tep_data_pid(tep, rec);
	comm = tep_data_comm_from_pid(tep, cpid);
	sb_utf8_bytes(&x->txt, comm ? comm : "", comm ? strlen(comm) : 0);
	sqlite3_bind_int64(xe->ins, 1, (sqlite3_int64)rec->ts);
	sqlite3_bind_int(xe->ins, 2, rec->cpu);
	sqlite3_bind_int64(xe->ins, 3, cpid);
	sqlite3_bind_text(xe->ins, 4, x->txt.s, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(x->ins_ev, 1, (sqlite3_int64)rec->ts);
	sqlite3_bind_int(x->ins_ev, 2, rec->cpu);
	sqlite3_bind_text(x->ins_ev, 3, ev->system, -1, SQLITE_STATIC);
	sqlite3_bind_text(x->ins_ev, 4, ev->name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(x->ins_ev, 5, cpid);
	sqlite3_bind_text(x->ins_ev, 6, x->txt.s, -1, SQLITE_TRANSIENT);

	/* every field: its column, and the events row's JSON object */
	sb_reset(&x->json);
	sb_puts(&x->json, "{");
	for (i = 0; i < xe->nfields; i++) {
		struct tep_format_field *f = xe->fields[i];
		int kind = xf_kind(f), len = 0, k, es, n;
		const char *raw;
		long long v;

		if (i)
			sb_puts(&x->json, ", ");
		sb_json_bytes(&x->json, f->name, strlen(f->name));
		sb_puts(&x->json, ": ");
		if (kind == XF_INT) {
			if (xf_int(f, rec, &v)) {
				sb_puts(&x->json, "null");
				continue;
			}
			sqlite3_bind_int64(xe->ins, 5 + i, v);
			sb_printf(&x->json, "%lld", v);
			continue;
		}
		raw = tep_get_field_raw(&x->seq, ev, f->name, rec, &len, 0);
		if (!raw || len < 0) {
			sb_puts(&x->json, "null");
			continue;
		}
		if (kind == XF_STR) {
			sb_json_bytes(&x->json, raw, len);
			sb_utf8_bytes(&x->txt, raw, len);
			sqlite3_bind_text(xe->ins, 5 + i, x->txt.s, -1, SQLITE_TRANSIENT);
			continue;
		}
		/* an array: a JSON array of its elements */
		es = f->elementsize > 0 && f->elementsize <= 8 ? (int)f->elementsize : 1;
		n = len / es;
		sb_reset(&x->txt);
		sb_puts(&x->txt, "[");
		for (k = 0; k < n; k++)
			sb_printf(&x->txt, "%s%lld", k ? ", " : "", xf_num(tep, f, raw + k * es, es));
		sb_puts(&x->txt, "]");
		sb_puts(&x->json, x->txt.s);
		sqlite3_bind_text(xe->ins, 5 + i, x->txt.s, -1, SQLITE_TRANSIENT);
	}
	sb_puts(&x->json, "}");
	if (x->json.oom || x->txt.oom) {
		fprintf(stderr, "%s: export: out of memory\n", prog);
		x->err = -1;
		return -1;
	}
	sqlite3_bind_text(x->ins_ev, 7, x->json.s, -1, SQLITE_TRANSIENT);
	if (x_step(x, xe->ins, xe->table) || x_step(x, x->ins_ev, "events"))
		return -1;
	x->nrec++;
	return 0;
}

/*
 * trace.dat: every record of every buffer (the top one and trace-cmd's
 * instances), in time order, to @cb; @first, if given, sees the top
 * buffer's tep before any record. export and plot read the trace through
 * this. 0, or -1 (said why, as @who).
 */
static int trace_iterate(const char *trace, const char *who,
			 int (*first)(struct tep_handle *tep, void *data),
			 int (*cb)(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data),
			 void *data)
{
	struct tracecmd_input *h, **hs;
	int n, i, nh = 0, ret;

	tracecmd_set_loglevel(TEP_LOG_NONE);
	h = tracecmd_open(trace, 0);
	if (!h) {
		fprintf(stderr, "%s: %s: %s: libtracecmd cannot read it (not a trace-cmd file, or damaged)\n",
			prog, who, trace);
		return -1;
	}
	n = tracecmd_buffer_instances(h);
	hs = calloc(n + 1, sizeof(*hs));
	if (!hs) {
		tracecmd_close(h);
		fprintf(stderr, "%s: %s: out of memory\n", prog, who);
		return -1;
	}
	hs[nh++] = h;
	for (i = 0; i < n; i++) {
		struct tracecmd_input *b = tracecmd_buffer_instance_handle(h, i);

		if (b)
			hs[nh++] = b;
	}
	ret = first ? first(tracecmd_get_tep(h), data) : 0;
	if (!ret) {
		ret = tracecmd_iterate_events_multi(hs, nh, cb, data);
		if (ret < 0)
			fprintf(stderr, "%s: %s: %s: reading its records failed\n", prog, who, trace);
	}
	for (i = nh - 1; i >= 0; i--)
		tracecmd_close(hs[i]);
	free(hs);
	return ret < 0 ? -1 : 0;
}

/* a table for each of schedlab's events the file knows, even without records */
static int x_tables(struct tep_handle *tep, void *data)
{
	struct xctx *x = data;
	int i;

	for (i = 0; i < tep_get_events_count(tep); i++) {
		struct tep_event *ev = tep_get_event(tep, i);

		if (ev && ev->system && !strcmp(ev->system, "schedlab") && !x_event(x, ev))
			return -1;
	}
	return x->err ? -1 : 0;
}

/* trace.dat's records into events and the events' tables; 0, or -1 (said why) */
static int x_trace(struct xctx *x, const char *trace)
{
	int ret = trace_iterate(trace, "export", x_tables, x_record, x);

	return ret < 0 || x->err ? -1 : 0;
}

/* a JSON value's column type: the widest of the values seen */
enum { XT_NONE, XT_INT, XT_REAL, XT_TEXT };

static int xt_of(json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null:
		return XT_NONE;
	case json_type_boolean:
	case json_type_int:
		return XT_INT;
	case json_type_double:
		return XT_REAL;
	default:
		return XT_TEXT;
	}
}

static const char *xt_name(int t)
{
	return t == XT_INT ? " INTEGER" : t == XT_REAL ? " REAL" : t == XT_TEXT ? " TEXT" : "";
}

/* bind a JSON value: null, integer, real, text; arrays and objects as JSON text */
static void x_bind_json(sqlite3_stmt *st, int col, json_object *v)
{
	int64_t i;

	switch (json_object_get_type(v)) {
	case json_type_null:
		sqlite3_bind_null(st, col);
		break;
	case json_type_boolean:
		sqlite3_bind_int(st, col, json_object_get_boolean(v));
		break;
	case json_type_int:
		i = json_object_get_int64(v);
		/* above INT64_MAX: the same 64 bits (SQLite has no unsigned) */
		if (i == INT64_MAX)
			i = (int64_t)json_object_get_uint64(v);
		sqlite3_bind_int64(st, col, i);
		break;
	case json_type_double:
		sqlite3_bind_double(st, col, json_object_get_double(v));
		break;
	case json_type_string:
		sqlite3_bind_text(st, col, json_object_get_string(v),
				  json_object_get_string_len(v), SQLITE_TRANSIENT);
		break;
	default:
		sqlite3_bind_text(st, col, json_object_to_json_string_ext(v,
				  JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
				  -1, SQLITE_TRANSIENT);
		break;
	}
}

static const char *x_json_text(json_object *doc, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(doc, key, &v) || !v)
		return NULL;
	return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
}

/*
 * A report's JSON (docs/reporting.md) as table @table: its columns, typed by
 * their values; a row in reports for it. 0, or -1 (said why).
 */
static int x_report(struct xctx *x, const char *path, const char *feature,
		    const char *report, const char *table, sqlite3_stmt *ins_rep)
{
	json_object *doc = json_object_from_file(path), *cols, *rows, *v;
	int ncol, nrow, c, r, rc = -1;
	int *type = NULL;
	char **name = NULL;
	sqlite3_stmt *ins = NULL;

	if (!doc || !json_object_is_type(doc, json_type_object) ||
	    !json_object_object_get_ex(doc, "columns", &cols) ||
	    !json_object_object_get_ex(doc, "rows", &rows) ||
	    !json_object_is_type(cols, json_type_array) || !json_object_is_type(rows, json_type_array)) {
		fprintf(stderr, "%s: export: %s: not a report's JSON (columns and rows; docs/reporting.md)%s%s\n",
			prog, path, doc ? "" : ": ", doc ? "" : json_util_get_last_err());
		json_object_put(doc);
		x->err = -1;
		return -1;
	}
	ncol = json_object_array_length(cols);
	nrow = json_object_array_length(rows);
	type = calloc(ncol + 1, sizeof(*type));
	name = calloc(ncol + 1, sizeof(*name));
	if (!type || !name)
		goto out;
	for (c = 0; c < ncol; c++) {
		const char *s = json_object_get_string(json_object_array_get_idx(cols, c));
		char buf[160];
		int d;

		snprintf(buf, sizeof(buf), "%s", s && *s ? s : "column");
		/* a name twice: the second one numbered */
		for (d = 0; d < c; d++)
			if (!strcmp(name[d], buf)) {
				snprintf(buf, sizeof(buf), "%s_%d", s && *s ? s : "column", c + 1);
				break;
			}
		name[c] = strdup(buf);
		if (!name[c])
			goto out;
		for (r = 0; r < nrow; r++) {
			json_object *row = json_object_array_get_idx(rows, r);
			int t;

			v = json_object_is_type(row, json_type_array) ?
				json_object_array_get_idx(row, c) : NULL;
			t = xt_of(v);
			if (t > type[c])
				type[c] = t;
		}
	}
	sb_reset(&x->sql);
	sb_puts(&x->sql, "CREATE TABLE ");
	sb_ident(&x->sql, table);
	sb_puts(&x->sql, " (");
	for (c = 0; c < ncol; c++) {
		if (c)
			sb_puts(&x->sql, ", ");
		sb_ident(&x->sql, name[c]);
		sb_puts(&x->sql, xt_name(type[c]));
	}
	if (!ncol)
		sb_puts(&x->sql, "nothing");
	sb_puts(&x->sql, ")");
	if (x->sql.oom || x_exec(x, x->sql.s))
		goto out;
	sb_reset(&x->sql);
	sb_puts(&x->sql, "INSERT INTO ");
	sb_ident(&x->sql, table);
	sb_puts(&x->sql, " VALUES (");
	for (c = 0; c < ncol || (!ncol && !c); c++)
		sb_puts(&x->sql, c ? ", ?" : "?");
	sb_puts(&x->sql, ")");
	if (x->sql.oom || x_prepare(x, x->sql.s, &ins))
		goto out;
	for (r = 0; r < nrow; r++) {
		json_object *row = json_object_array_get_idx(rows, r);
		int n = json_object_is_type(row, json_type_array) ? json_object_array_length(row) : 0;

		/* a row shorter than the columns: NULLs */
		for (c = 0; c < ncol && c < n; c++)
			x_bind_json(ins, c + 1, json_object_array_get_idx(row, c));
		if (x_step(x, ins, table))
			goto out;
	}
	sqlite3_bind_text(ins_rep, 1, feature, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(ins_rep, 2, report, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(ins_rep, 3, table, -1, SQLITE_TRANSIENT);
	if (json_object_object_get_ex(doc, "layout", &v))
		x_bind_json(ins_rep, 4, v);
	sqlite3_bind_int(ins_rep, 5, nrow);
	sqlite3_bind_text(ins_rep, 6, x_json_text(doc, "columns"), -1, SQLITE_TRANSIENT);
	if (x_json_text(doc, "units"))
		sqlite3_bind_text(ins_rep, 7, x_json_text(doc, "units"), -1, SQLITE_TRANSIENT);
	if (x_json_text(doc, "notes"))
		sqlite3_bind_text(ins_rep, 8, x_json_text(doc, "notes"), -1, SQLITE_TRANSIENT);
	if (x_json_text(doc, "meta"))
		sqlite3_bind_text(ins_rep, 9, x_json_text(doc, "meta"), -1, SQLITE_TRANSIENT);
	if (x_json_text(doc, "trailer"))
		sqlite3_bind_text(ins_rep, 10, x_json_text(doc, "trailer"), -1, SQLITE_TRANSIENT);
	if (json_object_object_get_ex(doc, "schema", &v))
		x_bind_json(ins_rep, 11, v);
	sqlite3_bind_text(ins_rep, 12, path, -1, SQLITE_TRANSIENT);
	rc = x_step(x, ins_rep, "reports");
out:
	if (rc && !x->err) {
		fprintf(stderr, "%s: export: %s: out of memory\n", prog, path);
		x->err = -1;
	}
	sqlite3_finalize(ins);
	for (c = 0; name && c < ncol; c++)
		free(name[c]);
	free(name);
	free(type);
	json_object_put(doc);
	return rc;
}

/* run.json as the one row of run: its keys as columns, typed as documented */
static int x_run(struct xctx *x, json_object *run)
{
	static const struct {
		const char *key;
		int type;
	} known[] = {
		{ "schema", XT_INT }, { "command", XT_TEXT }, { "exit_status", XT_INT },
		{ "signal", XT_INT }, { "interrupted_by", XT_INT }, { "exit_code", XT_INT },
		{ "start", XT_TEXT }, { "end", XT_TEXT }, { "start_unix", XT_REAL },
		{ "duration_s", XT_REAL }, { "kernel_release", XT_TEXT },
		{ "schedlab_version", XT_TEXT }, { "features", XT_TEXT }, { "trace", XT_TEXT },
		{ "events", XT_TEXT }, { "events_lost", XT_INT }, { "reports", XT_TEXT },
	};
	sqlite3_stmt *ins = NULL;
	int n = 0, i;
	size_t k;

	sb_reset(&x->sql);
	sb_puts(&x->sql, "CREATE TABLE run (");
	json_object_object_foreach(run, key, val) {
		int t = xt_of(val);

		for (k = 0; k < sizeof(known) / sizeof(known[0]); k++)
			if (!strcmp(known[k].key, key))
				t = known[k].type;
		if (n++)
			sb_puts(&x->sql, ", ");
		sb_ident(&x->sql, key);
		sb_puts(&x->sql, xt_name(t));
	}
	sb_puts(&x->sql, ")");
	if (!n || x->sql.oom || x_exec(x, x->sql.s))
		return -1;
	sb_reset(&x->sql);
	sb_puts(&x->sql, "INSERT INTO run VALUES (?");
	for (i = 1; i < n; i++)
		sb_puts(&x->sql, ", ?");
	sb_puts(&x->sql, ")");
	if (x->sql.oom || x_prepare(x, x->sql.s, &ins))
		return -1;
	i = 1;
	json_object_object_foreach(run, key2, val2) {
		(void)key2;
		x_bind_json(ins, i++, val2);
	}
	i = x_step(x, ins, "run");
	sqlite3_finalize(ins);
	return i;
}

/* the conveniences: created where their table is */
static const struct {
	const char *name, *needs, *sql;
} x_views[] = {
	{ "waits", "mutex_wait_end",
	  "CREATE VIEW waits AS SELECT ts_ns, pid, "
	  "CASE WHEN common_pid = pid THEN common_comm END AS comm, "
	  "printf('0x%x', lock) AS lock_hex, duration_us, \"end\", "
	  "json_extract(cat_us, '$[0]') AS run_local_us, "
	  "json_extract(cat_us, '$[1]') AS run_remote_us, "
	  "json_extract(cat_us, '$[2]') AS preempted_us, "
	  "json_extract(cat_us, '$[3]') AS runnable_remote_us, "
	  "json_extract(cat_us, '$[4]') AS sleeping_us, "
	  "json_extract(cat_us, '$[5]') AS blocked_us, "
	  "json_extract(cat_us, '$[6]') AS unowned_us, "
	  "json_extract(cat_us, '$[7]') AS proxy_us, "
	  "max_depth, inv_rules, inv_us FROM mutex_wait_end" },
	{ "samples", "signals_task",
	  "CREATE VIEW samples AS SELECT ts_ns, pid, comm, cpu, util_avg, "
	  "CASE WHEN util_est >= 0 THEN util_est END AS util_est, model, "
	  "burst AS util_burst, waiting AS waiting_avg, time AS time_util "
	  "FROM signals_task WHERE reason = 1" },
};

static int cmd_export(int argc, char **argv)
{
	const char *dir = NULL, *file = NULL;
	bool force = false;
	char p[4096], tmp[4096];
	struct xctx x;
	struct stat st;
	json_object *run = NULL, *tv;
	sqlite3_stmt *ins_rep = NULL;
	struct dirent **fents = NULL;
	int i, nf = 0, rc = EX_OTHER;
	size_t k;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			if (++i == argc)
				return fail(EX_USAGE, "export: %s needs a FILE", argv[i - 1]);
			file = argv[i];
		} else if (!strncmp(argv[i], "--output=", 9)) {
			file = argv[i] + 9;
		} else if (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--force")) {
			force = true;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return fail(EX_USAGE, "export: unknown option '%s' (schedlab export DIR -o FILE.sqlite [-f])",
				    argv[i]);
		} else if (!dir) {
			dir = argv[i];
		} else {
			return fail(EX_USAGE, "export: unexpected argument '%s' (one run directory)", argv[i]);
		}
	}
	if (!dir || !*dir)
		return fail(EX_USAGE, "export: which run directory? (schedlab export DIR -o FILE.sqlite [-f])");
	if (!file || !*file)
		return fail(EX_USAGE, "export: where to? -o FILE.sqlite (schedlab export DIR -o FILE.sqlite [-f])");
	if (!force && lstat(file, &st) == 0)
		return fail(EX_USAGE, "export: %s exists: -f to replace it", file);
	snprintf(p, sizeof(p), "%s/run.json", dir);
	if (stat(dir, &st))
		return fail(EX_OTHER, "export: %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return fail(EX_OTHER, "export: %s is not a run directory (not a directory)", dir);
	if (!exists(p))
		return fail(EX_OTHER, "export: %s is not a run directory: no run.json (schedlab run -o DIR makes one)",
			    dir);
	run = json_object_from_file(p);
	if (!run || !json_object_is_type(run, json_type_object)) {
		json_object_put(run);
		return fail(EX_OTHER, "export: %s: not a run.json (a JSON object): %s", p,
			    run ? "not an object" : json_util_get_last_err());
	}

	/* into a new file beside FILE, renamed to FILE once complete */
	memset(&x, 0, sizeof(x));
	trace_seq_init(&x.seq);
	snprintf(tmp, sizeof(tmp), "%s.tmp-%d", file, (int)getpid());
	unlink(tmp);
	if (sqlite3_open_v2(tmp, &x.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		fprintf(stderr, "%s: export: %s: %s\n", prog, tmp,
			x.db ? sqlite3_errmsg(x.db) : "cannot open");
		goto out;
	}
	if (x_exec(&x, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN") ||
	    x_run(&x, run))
		goto out;

	/* the reports, and status.json */
	if (x_exec(&x, "CREATE TABLE reports (feature TEXT, report TEXT, \"table\" TEXT, layout TEXT, "
		   "rows INTEGER, columns TEXT, units TEXT, notes TEXT, meta TEXT, trailer TEXT, "
		   "schema INTEGER, file TEXT)") ||
	    x_prepare(&x, "INSERT INTO reports VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &ins_rep))
		goto out;
	snprintf(p, sizeof(p), "%s/status.json", dir);
	if (exists(p) && x_report(&x, p, "schedlab", "status", "status", ins_rep))
		goto out;
	snprintf(p, sizeof(p), "%s/reports", dir);
	nf = scandir(p, &fents, NULL, alphasort);
	for (i = 0; i < nf; i++) {
		struct dirent **rents = NULL;
		const char *f = fents[i]->d_name;
		int nr, j, bad = 0;

		if (f[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/reports/%s", dir, f);
		nr = scandir(p, &rents, NULL, alphasort);
		for (j = 0; j < nr; j++) {
			const char *nm = rents[j]->d_name;
			size_t len = strlen(nm);
			char table[600], report[300];

			if (!bad && nm[0] != '.' && len > 5 && !strcmp(nm + len - 5, ".json")) {
				snprintf(report, sizeof(report), "%.*s", (int)(len - 5), nm);
				snprintf(table, sizeof(table), "report_%s_%s", f, report);
				sanitize(table);
				snprintf(p, sizeof(p), "%s/reports/%s/%s", dir, f, nm);
				bad = x_report(&x, p, f, report, table, ins_rep);
			}
			free(rents[j]);
		}
		free(rents);
		if (bad)
			goto out;
	}

	/* the trace */
	if (x_exec(&x, "CREATE TABLE events (ts_ns INTEGER, cpu INTEGER, system TEXT, event TEXT, "
		   "pid INTEGER, comm TEXT, fields TEXT)") ||
	    x_prepare(&x, "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)", &x.ins_ev))
		goto out;
	if (json_object_object_get_ex(run, "trace", &tv) && json_object_is_type(tv, json_type_string)) {
		const char *t = json_object_get_string(tv);

		if (t[0] == '/')
			snprintf(p, sizeof(p), "%s", t);
		else
			snprintf(p, sizeof(p), "%s/%s", dir, t);
		if (!exists(p)) {
			fprintf(stderr, "%s: export: %s: %s (run.json's trace)\n", prog, p, strerror(errno));
			goto out;
		}
		if (x_trace(&x, p))
			goto out;
	}
	if (x_exec(&x, "CREATE INDEX events_by_event ON events (event, ts_ns)"))
		goto out;
	for (k = 0; k < sizeof(x_views) / sizeof(x_views[0]); k++) {
		for (i = 0; i < x.nxev && strcmp(x.xev[i].table, x_views[k].needs); i++)
			;
		if (i < x.nxev && x_exec(&x, x_views[k].sql))
			goto out;
	}
	if (x_exec(&x, "COMMIT"))
		goto out;
	rc = EX_OK;
out:
	sqlite3_finalize(ins_rep);
	sqlite3_finalize(x.ins_ev);
	for (i = 0; i < x.nxev; i++) {
		sqlite3_finalize(x.xev[i].ins);
		free(x.xev[i].fields);
	}
	free(x.xev);
	for (i = 0; i < nf; i++)
		free(fents[i]);
	free(fents);
	if (x.db && sqlite3_close(x.db) != SQLITE_OK && rc == EX_OK)
		rc = fail(EX_OTHER, "export: %s: %s", tmp, sqlite3_errmsg(x.db));
	if (rc == EX_OK && rename(tmp, file))
		rc = fail(EX_OTHER, "export: %s: %s", file, strerror(errno));
	if (rc != EX_OK)
		unlink(tmp);
	else
		fprintf(stderr, "%s: export: %s: %ld events, %d event tables (trace), reports and run in %s\n",
			prog, dir, x.nrec, x.nxev, file);
	free(x.sql.s);
	free(x.json.s);
	free(x.txt.s);
	trace_seq_destroy(&x.seq);
	json_object_put(run);
	return rc;
}

/* --- plot: PNG timelines of a run's recorded events ------------------------------ */

#define P_NA		LLONG_MIN	/* a value the record does not have */
#define P_MAXV		13
#define P_PANELS	16		/* panels of one PNG at most (tasks, CPUs, rules) */
#define P_WIDTH		1100		/* every PNG: P_WIDTH x (P_TOP + P_PANEL * panels) */
#define P_TOP		60
#define P_PANEL		240
#define P_LOCKS		8		/* locks by name in blocked_on's plots, the rest "other" */

struct prec {
	unsigned long long ts;
	long long v[P_MAXV];
	char comm[17];
};

/* one event's records: the known ones' fields, the others' times only */
struct pevent {
	char name[64];
	const char *feature;
	const char *fields[P_MAXV];	/* read into v[], in this order */
	const char *arr;		/* an array field read into v[nf..] */
	int narr;
	const char *comm;		/* a string field (comm), or "pid" for the saved comm of that pid */
	struct prec *r;
	long n, cap;
};

static struct pevent p_known[] = {
	{ .name = "signals_task", .feature = "signals",
	  .fields = { "reason", "pid", "cpu", "util_avg", "util_est", "model", "burst", "waiting",
		      "time" }, .comm = "comm" },
	{ .name = "signals_cpu", .feature = "signals",
	  .fields = { "cpu", "capacity", "cfs_util_avg", "model", "burst", "waiting", "time",
		      "tasks" } },
	{ .name = "cpu_signals", .feature = "cpu_signals",
	  .fields = { "cpu", "nr_running", "util_avg", "util_est", "capacity" } },
	{ .name = "overutil", .feature = "overutil",
	  .fields = { "cpu", "rule", "on", "util", "capacity" } },
	{ .name = "mutex_wait_end", .feature = "blocked_on",
	  .fields = { "pid", "lock", "duration_us", "end", "max_depth" }, .arr = "cat_us", .narr = 8,
	  .comm = "pid" },
	{ .name = "mutex_wait_begin", .feature = "blocked_on" },
};

#define P_NKNOWN ((int)(sizeof(p_known) / sizeof(p_known[0])))
static const char * const p_features[] = { "signals", "cpu_signals", "overutil", "blocked_on", "other",
					   NULL };

struct pctx {
	struct pevent *ev;		/* p_known's, then the other schedlab events seen */
	int nev;
	bool have_t0;
	unsigned long long t0, tend;
	struct trace_seq seq;
	bool oom;
	/* the plots */
	FILE *gp;			/* the gnuplot script */
	const char *tmp;		/* the directory written into */
	char **files;			/* written there, to be renamed into OUTDIR */
	int nfiles;
};

static int nfields(const struct pevent *e)
{
	int n = 0;

	while (n < P_MAXV && e->fields[n])
		n++;
	return n;
}

static struct pevent *p_event(struct pctx *c, const char *name)
{
	struct pevent *t;
	int i;

	for (i = 0; i < c->nev; i++)
		if (!strcmp(c->ev[i].name, name))
			return &c->ev[i];
	t = realloc(c->ev, (c->nev + 1) * sizeof(*t));
	if (!t)
		return NULL;
	c->ev = t;
	memset(&c->ev[c->nev], 0, sizeof(*t));
	snprintf(c->ev[c->nev].name, sizeof(c->ev[0].name), "%s", name);
	c->ev[c->nev].feature = "other";
	return &c->ev[c->nev++];
}

static int p_record(struct tracecmd_input *h, struct tep_record *rec,
		    int cpu __attribute__((unused)), void *data)
{
	struct pctx *c = data;
	struct tep_handle *tep = tracecmd_get_tep(h);
	struct tep_event *ev = tep_find_event_by_record(tep, rec);
	struct pevent *e;
	struct prec *p;
	int i, nf;

	if (!c->have_t0) {
		c->t0 = rec->ts;
		c->have_t0 = true;
	}
	if (rec->ts > c->tend)
		c->tend = rec->ts;
	if (!ev || !ev->system || strcmp(ev->system, "schedlab"))
		return 0;
	e = p_event(c, ev->name);
	if (e && e->n == e->cap) {
		long cap = e->cap ? 2 * e->cap : 1024;

		p = realloc(e->r, cap * sizeof(*p));
		if (p) {
			e->r = p;
			e->cap = cap;
		}
	}
	if (!e || e->n == e->cap) {
		c->oom = true;
		return -1;
	}
	p = &e->r[e->n++];
	memset(p, 0, sizeof(*p));
	p->ts = rec->ts;
	nf = nfields(e);
	for (i = 0; i < nf; i++) {
		struct tep_format_field *f = tep_find_field(ev, e->fields[i]);

		if (!f || xf_int(f, rec, &p->v[i]))
			p->v[i] = P_NA;
		/* signals_task's util_est -1: the kernel has none (docs/export.md) */
		if (!strcmp(e->fields[i], "util_est") && p->v[i] < 0)
			p->v[i] = P_NA;
	}
	if (e->arr) {
		struct tep_format_field *f = tep_find_field(ev, e->arr);
		int len = 0, es, k;
		const char *raw = f ? tep_get_field_raw(&c->seq, ev, e->arr, rec, &len, 0) : NULL;

		es = f && f->elementsize > 0 && f->elementsize <= 8 ? (int)f->elementsize : 8;
		for (k = 0; k < e->narr && nf + k < P_MAXV; k++)
			p->v[nf + k] = raw && (k + 1) * es <= len ? xf_num(tep, f, raw + k * es, es) : P_NA;
	}
	if (e->comm && !strcmp(e->comm, "pid")) {
		const char *s = p->v[0] != P_NA ? tep_data_comm_from_pid(tep, (int)p->v[0]) : NULL;

		snprintf(p->comm, sizeof(p->comm), "%s", s ? s : "<...>");
	} else if (e->comm) {
		int len = 0;
		const char *raw = tep_get_field_raw(&c->seq, ev, e->comm, rec, &len, 0);

		if (raw && len > 0)
			snprintf(p->comm, sizeof(p->comm), "%.*s", len, raw);
	}
	/* a comm as one word of the data files: blanks, quotes, # and bytes >= 0x7f as _ */
	for (i = 0; p->comm[i]; i++)
		if ((unsigned char)p->comm[i] <= ' ' || (unsigned char)p->comm[i] >= 0x7f ||
		    p->comm[i] == '"' || p->comm[i] == '#' || p->comm[i] == '\'')
			p->comm[i] = '_';
	if (!p->comm[0] && e->comm)
		snprintf(p->comm, sizeof(p->comm), "?");
	return 0;
}

/* a new file in the temporary directory, remembered for the rename */
static FILE *p_open(struct pctx *c, const char *name)
{
	char path[4096], **t;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", c->tmp, name);
	f = fopen(path, "w");
	t = realloc(c->files, (c->nfiles + 1) * sizeof(*t));
	if (!f || !t) {
		if (f)
			fclose(f);
		if (t)
			c->files = t;
		fprintf(stderr, "%s: plot: %s: %s\n", prog, path, strerror(errno ? errno : ENOMEM));
		return NULL;
	}
	c->files = t;
	c->files[c->nfiles++] = strdup(name);
	return f;
}

static int p_close(FILE *f, const struct pctx *c, const char *name)
{
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "%s: plot: %s/%s: %s\n", prog, c->tmp, name, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

static double p_t(const struct pctx *c, unsigned long long ts)
{
	return (double)(ts - c->t0) / 1e9;
}

static void p_val(FILE *f, long long v)
{
	if (v == P_NA)
		fputs(" ?", f);
	else
		fprintf(f, " %lld", v);
}

/* the script's header of one PNG of @panels panels */
static void gp_begin(struct pctx *c, const char *png, int panels, const char *title)
{
	FILE *g = c->gp;

	fprintf(g, "reset\nset terminal pngcairo size %d,%d font 'sans,9'\n", P_WIDTH,
		P_TOP + P_PANEL * panels);
	fprintf(g, "set output '%s'\nset termoption noenhanced\nset datafile missing '?'\n", png);
	fprintf(g, "set grid\nset key outside right\nset xlabel 's (from the first record)'\n");
	fprintf(g, "set xrange [0:%.9f]\n", p_t(c, c->tend) > 0 ? p_t(c, c->tend) : 1.0);
	fprintf(g, "set multiplot layout %d,1 title '%s'\n", panels, title);
}

static int p_png(struct pctx *c, const char *png)
{
	char **t = realloc(c->files, (c->nfiles + 1) * sizeof(*t));

	if (!t)
		return -1;
	c->files = t;
	c->files[c->nfiles++] = strdup(png);
	return 0;
}

/* a key of @n distinct values in the order first seen; its index */
static int p_key(long long *keys, int *n, int max, long long k)
{
	int i;

	for (i = 0; i < *n; i++)
		if (keys[i] == k)
			return i;
	if (*n == max)
		return -1;
	keys[*n] = k;
	return (*n)++;
}

/*
 * One PNG, a panel per distinct value of v[@kcol] (at most P_PANELS, the
 * first seen), and its data file: the records of those panels, a gnuplot
 * data block per panel, columns ts_ns t_s and @cols (names of v[] indices
 * @idx). @plots: the panel's plot command after "plot", %1$s the data file,
 * %2$d the block index.
 */
static int p_panels(struct pctx *c, struct pevent *e, const char *base, int kcol, const char *kname,
		    const char *title, const char *ylabel, const int *idx, const char * const *cols,
		    int ncol, const char *plots, bool (*keep)(const struct prec *), const char *extra)
{
	long long keys[P_PANELS];
	char dat[256], png[256], lab[64];
	int nk = 0, skipped = 0, k, j;
	long r;
	FILE *f;

	for (r = 0; r < e->n; r++)
		if ((!keep || keep(&e->r[r])) && p_key(keys, &nk, P_PANELS, e->r[r].v[kcol]) < 0)
			skipped++;
	if (!nk)
		return 0;
	snprintf(dat, sizeof(dat), "%s.dat", base);
	snprintf(png, sizeof(png), "%s.png", base);
	f = p_open(c, dat);
	if (!f)
		return -1;
	fprintf(f, "# schedlab plot: %s, a block per %s; ts_ns: the trace's clock; t_s: seconds from the first record\n#",
		e->name, kname);
	fprintf(f, " ts_ns t_s%s", e->comm ? " comm" : "");
	for (j = 0; j < ncol; j++)
		fprintf(f, " %s", cols[j]);
	fputc('\n', f);
	for (k = 0; k < nk; k++) {
		fprintf(f, "%s# %s %lld\n", k ? "\n\n" : "", kname, keys[k]);
		for (r = 0; r < e->n; r++) {
			const struct prec *p = &e->r[r];

			if (p->v[kcol] != keys[k] || (keep && !keep(p)))
				continue;
			fprintf(f, "%llu %.9f", p->ts, p_t(c, p->ts));
			if (e->comm)
				fprintf(f, " %s", p->comm);
			for (j = 0; j < ncol; j++)
				p_val(f, p->v[idx[j]]);
			fputc('\n', f);
		}
	}
	if (p_close(f, c, dat) || p_png(c, png))
		return -1;
	if (skipped)
		fprintf(stderr, "%s: plot: %s: the first %d %ss only (%d records of others not drawn)\n",
			prog, png, P_PANELS, kname, skipped);
	gp_begin(c, png, nk, title);
	fprintf(c->gp, "set ylabel '%s'\nset yrange [0:*]\n%s", ylabel, extra ? extra : "");
	for (k = 0; k < nk; k++) {
		lab[0] = '\0';
		for (r = 0; e->comm && r < e->n; r++)
			if (e->r[r].v[kcol] == keys[k] && (!keep || keep(&e->r[r])))
				snprintf(lab, sizeof(lab), " (%s)", e->r[r].comm);
		fprintf(c->gp, "set title '%s %lld%s'\nplot ", kname, keys[k], lab);
		fprintf(c->gp, plots, dat, k);
		fputc('\n', c->gp);
	}
	fprintf(c->gp, "unset multiplot\nset output\n");
	return 0;
}

static bool p_is_sample(const struct prec *p)
{
	return p->v[0] == 1;
}

static int p_signals_task(struct pctx *c, struct pevent *e)
{
	static const int idx[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const char * const cols[] = { "pid", "cpu", "util_avg", "util_est", "model", "util_burst",
					     "waiting_avg", "time_util" };

	/* columns: 1 ts_ns 2 t_s 3 comm 4 pid 5 cpu 6 util_avg ... 11 time_util */
	return p_panels(c, e, "signals_task", 1, "pid",
			"schedlab signals: the samples of each task (signals_task)", "util (0..1024)", idx, cols, 8,
			"'%1$s' index %2$d u 2:6 w l lw 2 t 'util_avg (kernel)', '' index %2$d u 2:7 w l t 'util_est (kernel)', "
			"'' index %2$d u 2:8 w l dt 2 t 'model (schedlab PELT)', '' index %2$d u 2:9 w l lw 2 t 'util_burst', "
			"'' index %2$d u 2:10 w l t 'waiting_avg', '' index %2$d u 2:11 w l dt 3 t 'time_util'",
			p_is_sample, NULL);
}

static int p_signals_cpu(struct pctx *c, struct pevent *e)
{
	static const int idx[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	static const char * const cols[] = { "cpu", "capacity", "cfs_util_avg", "sum_model", "sum_burst",
					     "sum_waiting", "sum_time", "tasks" };

	/* 1 ts_ns 2 t_s 3 cpu 4 capacity 5 cfs_util_avg 6 sum_model ... 10 tasks */
	return p_panels(c, e, "signals_cpu", 0, "cpu",
			"schedlab signals: per CPU, the sums over its tasks (signals_cpu)", "util (0..1024)", idx,
			cols, 8,
			"'%1$s' index %2$d u 2:5 w l lw 2 t 'cfs_util_avg (kernel)', '' index %2$d u 2:6 w l dt 2 t 'sum model', "
			"'' index %2$d u 2:7 w l lw 2 t 'sum util_burst', '' index %2$d u 2:8 w l t 'sum waiting_avg', "
			"'' index %2$d u 2:9 w l dt 3 t 'sum time_util', '' index %2$d u 2:4 w l lc rgb 'gray' t 'capacity'",
			NULL, NULL);
}

static int p_cpu_signals(struct pctx *c, struct pevent *e)
{
	static const int idx[] = { 0, 1, 2, 3, 4 };
	static const char * const cols[] = { "cpu", "nr_running", "util_avg", "util_est", "capacity" };

	/* 1 ts_ns 2 t_s 3 cpu 4 nr_running 5 util_avg 6 util_est 7 capacity */
	return p_panels(c, e, "cpu_signals", 0, "cpu", "schedlab cpu_signals: per CPU, util and tasks running",
			"util (0..1024)", idx, cols, 5,
			"'%1$s' index %2$d u 2:5 w l lw 2 t 'util_avg', '' index %2$d u 2:6 w l t 'util_est', "
			"'' index %2$d u 2:7 w l lc rgb 'gray' t 'capacity', "
			"'' index %2$d u 2:4 axes x1y2 w steps dt 2 t 'nr_running (right axis)'",
			NULL, "set ytics nomirror\nset y2tics\nset y2range [0:*]\nset y2label 'nr_running (tasks)'\n");
}

static const char *p_rule(long long r)
{
	static const char * const rules[] = { "mainline", "linger", "idle", "dynamic", "lone", "all" };

	return r >= 0 && r < 6 ? rules[r] : "?";
}

/* a panel per rule, a lane per CPU (the system: -1), the state as a step */
static int p_overutil(struct pctx *c, struct pevent *e)
{
	long long rules[P_PANELS], cpus[256];
	int nr = 0, nc = 0, i, k, nb = 0;
	static long cnt[P_PANELS][256];
	static int blk[P_PANELS][256];
	long r;
	FILE *f;

	for (r = 0; r < e->n; r++) {
		p_key(rules, &nr, P_PANELS, e->r[r].v[1]);
		p_key(cpus, &nc, 256, e->r[r].v[0]);
	}
	if (!nr)
		return 0;
	/* lanes in CPU order */
	for (i = 1; i < nc; i++)
		for (k = i; k > 0 && cpus[k - 1] > cpus[k]; k--) {
			long long t = cpus[k];

			cpus[k] = cpus[k - 1];
			cpus[k - 1] = t;
		}
	f = p_open(c, "overutil.dat");
	if (!f)
		return -1;
	fprintf(f, "# schedlab plot: overutil, a block per rule and cpu (-1: the system) with records, in that order\n"
		"# ts_ns t_s rule cpu on util capacity lane\n");
	for (i = 0; i < nr; i++)
		for (k = 0; k < nc; k++) {
			cnt[i][k] = 0;
			for (r = 0; r < e->n; r++)
				cnt[i][k] += e->r[r].v[1] == rules[i] && e->r[r].v[0] == cpus[k];
			if (!cnt[i][k])
				continue;	/* no empty block: gnuplot's index would not count it */
			blk[i][k] = nb++;
			fprintf(f, "\n\n# rule %lld %s cpu %lld\n", rules[i], p_rule(rules[i]), cpus[k]);
			for (r = 0; r < e->n; r++) {
				const struct prec *p = &e->r[r];

				if (p->v[1] != rules[i] || p->v[0] != cpus[k])
					continue;
				fprintf(f, "%llu %.9f %lld %lld", p->ts, p_t(c, p->ts), p->v[1], p->v[0]);
				p_val(f, p->v[2]);
				p_val(f, p->v[3]);
				p_val(f, p->v[4]);
				fprintf(f, " %d\n", k);
			}
		}
	if (p_close(f, c, "overutil.dat") || p_png(c, "overutil.png"))
		return -1;
	gp_begin(c, "overutil.png", nr, "schedlab overutil: overutilized per rule and CPU (high: on)");
	fprintf(c->gp, "set ylabel 'CPU'\nset yrange [-0.5:%d]\nunset key\nset ytics (", nc);
	for (k = 0; k < nc; k++)
		fprintf(c->gp, "%s'%s' %d", k ? ", " : "", cpus[k] < 0 ? "system" : "", k);
	fprintf(c->gp, ")\n");
	for (k = 0; k < nc; k++)
		if (cpus[k] >= 0)
			fprintf(c->gp, "set ytics add ('%lld' %d)\n", cpus[k], k);
	for (i = 0; i < nr; i++) {
		bool first = true;

		fprintf(c->gp, "set title 'rule %s'\nplot ", p_rule(rules[i]));
		for (k = 0; k < nc; k++) {
			if (!cnt[i][k])
				continue;
			/* the steps, then the last state held until the end of the trace */
			fprintf(c->gp, "%s'overutil.dat' index %d u 2:($8 + 0.7 * $5) w steps lw 2 lc %d, "
				"'' index %d every ::%ld::%ld u 2:($8 + 0.7 * $5):(%.9f - $2):(0) w vectors nohead lw 2 lc %d",
				first ? "" : ", ", blk[i][k], k + 1, blk[i][k], cnt[i][k] - 1, cnt[i][k] - 1,
				p_t(c, c->tend), k + 1);
			first = false;
		}
		fputc('\n', c->gp);
	}
	fprintf(c->gp, "unset multiplot\nset output\n");
	return 0;
}

/* a lock's hex (or "other") and its label: its name in the saved locks report, or the hex */
static void p_lock_label(json_object *locks, bool named, long long lock, char *hex, size_t hlen,
			 char *label, size_t llen)
{
	const char *sym = NULL;
	int i;

	snprintf(hex, hlen, named ? "0x%llx" : "other", (unsigned long long)lock);
	for (i = 0; named && locks && i < (int)json_object_array_length(locks); i++) {
		json_object *row = json_object_array_get_idx(locks, i);
		const char *lk = json_object_get_string(json_object_array_get_idx(row, 0));

		if (lk && !strcmp(lk, hex) &&
		    json_object_is_type(json_object_array_get_idx(row, 1), json_type_string))
			sym = json_object_get_string(json_object_array_get_idx(row, 1));
	}
	snprintf(label, llen, "%s", sym ? sym : hex);
	for (i = 0; label[i]; i++)
		if ((unsigned char)label[i] <= ' ' || label[i] == '"' || label[i] == '\'' ||
		    label[i] == '#' || (unsigned char)label[i] >= 0x7f)
			label[i] = '_';
}

/* blocked_on: each wait's duration over time, per lock; the split per lock */
#define P_BO_CATS	8	/* mutex_wait_end's cat_us[] */
static int p_blocked_on(struct pctx *c, struct pevent *e, json_object *locks)
{
	static const char * const cat[] = { "run_local", "run_remote", "preempted", "runnable_remote",
					    "sleeping", "blocked", "unowned", "proxy" };
	struct plock { long long lock; long long total, waits, cat[P_BO_CATS]; } *l = NULL, *t;
	int nl = 0, i, j, nshow, k;
	long r;
	FILE *f;

	for (r = 0; r < e->n; r++) {
		const struct prec *p = &e->r[r];

		for (i = 0; i < nl && l[i].lock != p->v[1]; i++)
			;
		if (i == nl) {
			t = realloc(l, (nl + 1) * sizeof(*l));
			if (!t) {
				free(l);
				return -1;
			}
			l = t;
			memset(&l[nl++], 0, sizeof(*l));
			l[i].lock = p->v[1];
		}
		l[i].waits++;
		l[i].total += p->v[2] == P_NA ? 0 : p->v[2];
		for (j = 0; j < P_BO_CATS; j++)
			l[i].cat[j] += p->v[5 + j] == P_NA ? 0 : p->v[5 + j];
	}
	if (!nl)
		return 0;
	/* the locks by time waited, the most first; past P_LOCKS: "other" */
	for (i = 1; i < nl; i++)
		for (k = i; k > 0 && l[k - 1].total < l[k].total; k--) {
			struct plock s = l[k];

			l[k] = l[k - 1];
			l[k - 1] = s;
		}
	nshow = nl > P_LOCKS ? P_LOCKS : nl;
	f = p_open(c, "blocked_on_waits.dat");
	if (!f) {
		free(l);
		return -1;
	}
	fprintf(f, "# schedlab plot: mutex_wait_end, a block per lock (the %d waited on most, then the others)\n"
		"# ts_ns t_s comm pid lock duration_us end", P_LOCKS);
	for (j = 0; j < P_BO_CATS; j++)
		fprintf(f, " %s_us", cat[j]);
	fprintf(f, " max_depth\n");
	for (k = 0; k <= nshow && k < nl; k++) {
		if (k < nshow)
			fprintf(f, "\n\n# lock 0x%llx\n", (unsigned long long)l[k].lock);
		else
			fprintf(f, "\n\n# lock other\n");
		for (r = 0; r < e->n; r++) {
			const struct prec *p = &e->r[r];

			for (i = 0; i < nl && l[i].lock != p->v[1]; i++)
				;
			if (k < nshow ? i != k : i < nshow)
				continue;
			fprintf(f, "%llu %.9f %s", p->ts, p_t(c, p->ts), p->comm);
			p_val(f, p->v[0]);
			fprintf(f, " 0x%llx", (unsigned long long)p->v[1]);
			p_val(f, p->v[2]);
			p_val(f, p->v[3]);
			for (j = 0; j < P_BO_CATS; j++)
				p_val(f, p->v[5 + j]);
			p_val(f, p->v[4]);
			fputc('\n', f);
		}
	}
	if (p_close(f, c, "blocked_on_waits.dat") || p_png(c, "blocked_on_waits.png"))
		goto fail;
	f = p_open(c, "blocked_on_split.dat");
	if (!f)
		goto fail;
	fprintf(f, "# schedlab plot: mutex_wait_end per lock (the %d waited on most, then the others): the waits, their time and its split by what the owner did (us)\n"
		"# lock label waits total_us", P_LOCKS);
	for (j = 0; j < P_BO_CATS; j++)
		fprintf(f, " %s_us", cat[j]);
	fputc('\n', f);
	for (k = 0; k <= nshow && k < nl; k++) {
		long long w = 0, tot = 0, cs[P_BO_CATS] = { 0 };
		char hex[32], label[80];

		for (i = k; i < (k < nshow ? k + 1 : nl); i++) {
			w += l[i].waits;
			tot += l[i].total;
			for (j = 0; j < P_BO_CATS; j++)
				cs[j] += l[i].cat[j];
		}
		p_lock_label(locks, k < nshow, l[k].lock, hex, sizeof(hex), label, sizeof(label));
		fprintf(f, "%s %s %lld %lld", hex, label, w, tot);
		for (j = 0; j < P_BO_CATS; j++)
			fprintf(f, " %lld", cs[j]);
		fputc('\n', f);
	}
	if (p_close(f, c, "blocked_on_split.dat") || p_png(c, "blocked_on_split.png"))
		goto fail;

	gp_begin(c, "blocked_on_waits.png", 1, "schedlab blocked_on: each mutex wait (mutex_wait_end), per lock");
	fprintf(c->gp, "set ylabel 'wait (us)'\nset title 'duration of each wait, at its end'\nplot ");
	for (k = 0; k <= nshow && k < nl; k++) {
		char hex[32], label[80];

		p_lock_label(locks, k < nshow, l[k].lock, hex, sizeof(hex), label, sizeof(label));
		fprintf(c->gp, "%s'blocked_on_waits.dat' index %d u 2:6 w p pt 7 ps 0.5 t '%s'",
			k ? ", " : "", k, label);
	}
	fprintf(c->gp, "\nunset multiplot\nset output\n");

	fprintf(c->gp, "reset\nset terminal pngcairo size %d,%d font 'sans,9'\n", P_WIDTH, P_TOP + P_PANEL);
	fprintf(c->gp, "set output 'blocked_on_split.png'\nset termoption noenhanced\nset grid y\nset key outside right\n"
		"set title 'schedlab blocked_on: time waited per lock, split by what the owner did'\n"
		"set ylabel 'us'\nset style data histograms\nset style histogram rowstacked\n"
		"set style fill solid 0.8 border -1\nset boxwidth 0.6\nset xtics rotate by -20\nplot ");
	for (j = 0; j < P_BO_CATS; j++)
		fprintf(c->gp, "%s'blocked_on_split.dat' u %d%s t '%s'", j ? ", " : "", 5 + j,
			j ? "" : ":xtic(2)", cat[j]);
	fprintf(c->gp, "\nset output\n");
	free(l);
	return 0;
fail:
	free(l);
	return -1;
}

/* any other event: its records per time bin (1/100 of the trace, 1 ms at least) */
static int p_count(struct pctx *c, struct pevent *e)
{
	double span = p_t(c, c->tend), w = span / 100 > 0.001 ? span / 100 : 0.001;
	long nb = (long)(span / w) + 1, *bins = calloc(nb, sizeof(*bins)), r, b;
	char dat[128], png[128], title[160];
	FILE *f;

	if (!bins)
		return -1;
	for (r = 0; r < e->n; r++) {
		b = (long)(p_t(c, e->r[r].ts) / w);
		bins[b < nb ? b : nb - 1]++;
	}
	snprintf(dat, sizeof(dat), "count_%s.dat", e->name);
	snprintf(png, sizeof(png), "count_%s.png", e->name);
	f = p_open(c, dat);
	if (!f) {
		free(bins);
		return -1;
	}
	fprintf(f, "# schedlab plot: %s records per bin of %.6f s (%ld records)\n# t_s count\n",
		e->name, w, e->n);
	for (b = 0; b < nb; b++)
		fprintf(f, "%.9f %ld\n", b * w, bins[b]);
	free(bins);
	if (p_close(f, c, dat) || p_png(c, png))
		return -1;
	snprintf(title, sizeof(title), "schedlab:%s: records per %.3f ms", e->name, w * 1000);
	gp_begin(c, png, 1, title);
	fprintf(c->gp, "set ylabel 'records per bin'\nset title '%ld records'\nset style fill solid 0.6\n"
		"plot '%s' u ($1 + %.9f):2 w boxes t '%s'\nunset multiplot\nset output\n",
		e->n, dat, w / 2, e->name);
	return 0;
}

static bool p_wanted(char **want, int nwant, const char *feature)
{
	int i;

	if (!nwant)
		return true;
	for (i = 0; i < nwant; i++)
		if (!strcmp(want[i], feature))
			return true;
	return false;
}

/* the records a feature has to plot */
static long p_feature_records(const struct pctx *c, const char *feature)
{
	long n = 0;
	int i;

	for (i = 0; i < c->nev; i++)
		if (!strcmp(c->ev[i].feature, feature))
			n += c->ev[i].n;
	return n;
}

/* the temporary directory and what is in it (files only) */
static void p_rmtmp(const char *tmp)
{
	DIR *d = opendir(tmp);
	struct dirent *e;
	char p[4096];

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", tmp, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(tmp);
}

static int cmd_plot(int argc, char **argv)
{
	const char *dir = NULL, *out = NULL, *flist = NULL;
	char outdir[2048], p[4096], tmp[2200], *fl = NULL, *want[16], *tok, *save;
	int nwant = 0, i, rc = EX_OTHER, st;
	struct pctx c;
	struct stat sb;
	json_object *run = NULL, *tv, *locks = NULL, *lrows = NULL;
	const char *gnuplot;
	bool made_out = false;
	pid_t pid;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output") ||
		    !strcmp(argv[i], "-f") || !strcmp(argv[i], "--features")) {
			if (i + 1 == argc)
				return fail(EX_USAGE, "plot: %s needs a %s", argv[i],
					    argv[i][1] == 'o' || argv[i][2] == 'o' ? "directory" : "feature list");
			if (argv[i][1] == 'o' || argv[i][2] == 'o')
				out = argv[++i];
			else
				flist = argv[++i];
		} else if (!strncmp(argv[i], "--output=", 9)) {
			out = argv[i] + 9;
		} else if (!strncmp(argv[i], "--features=", 11)) {
			flist = argv[i] + 11;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return fail(EX_USAGE, "plot: unknown option '%s' (schedlab plot DIR [-o OUTDIR] [-f FEATURE,...])",
				    argv[i]);
		} else if (!dir) {
			dir = argv[i];
		} else {
			return fail(EX_USAGE, "plot: unexpected argument '%s' (one run directory)", argv[i]);
		}
	}
	if (!dir || !*dir)
		return fail(EX_USAGE, "plot: which run directory? (schedlab plot DIR [-o OUTDIR] [-f FEATURE,...])");
	if (out && !*out)
		return fail(EX_USAGE, "plot: -o needs a directory");
	if (flist) {
		fl = strdup(flist);
		for (tok = strtok_r(fl, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			int k;

			for (k = 0; p_features[k] && strcmp(p_features[k], tok); k++)
				;
			if (!p_features[k] || nwant == 16) {
				rc = fail(EX_USAGE, "plot: unknown feature '%s' (blocked_on, signals, cpu_signals, overutil, other)",
					  tok);
				free(fl);
				return rc;
			}
			want[nwant++] = tok;
		}
		if (!nwant) {
			free(fl);
			return fail(EX_USAGE, "plot: -f needs a feature (blocked_on, signals, cpu_signals, overutil, other)");
		}
	}
	memset(&c, 0, sizeof(c));
	trace_seq_init(&c.seq);
	tmp[0] = '\0';
	/* the run directory, its trace */
	if (stat(dir, &sb)) {
		rc = fail(EX_OTHER, "plot: %s: %s", dir, strerror(errno));
		goto out;
	}
	if (!S_ISDIR(sb.st_mode)) {
		rc = fail(EX_OTHER, "plot: %s is not a run directory (not a directory)", dir);
		goto out;
	}
	snprintf(p, sizeof(p), "%s/run.json", dir);
	if (!exists(p)) {
		rc = fail(EX_OTHER, "plot: %s is not a run directory: no run.json (schedlab run -o DIR makes one)", dir);
		goto out;
	}
	run = json_object_from_file(p);
	if (!run || !json_object_is_type(run, json_type_object)) {
		rc = fail(EX_OTHER, "plot: %s: not a run.json (a JSON object): %s", p,
			  run ? "not an object" : json_util_get_last_err());
		goto out;
	}
	if (!json_object_object_get_ex(run, "trace", &tv) || !json_object_is_type(tv, json_type_string)) {
		rc = fail(EX_OTHER, "plot: %s has no recording (run.json's trace is null: schedlab run --no-record?)",
			  dir);
		goto out;
	}
	if (json_object_get_string(tv)[0] == '/')
		snprintf(p, sizeof(p), "%s", json_object_get_string(tv));
	else
		snprintf(p, sizeof(p), "%s/%s", dir, json_object_get_string(tv));
	if (!exists(p)) {
		rc = fail(EX_OTHER, "plot: %s: %s (run.json's trace)", p, strerror(errno));
		goto out;
	}
	/* gnuplot, before reading anything */
	gnuplot = which("gnuplot");
	if (!gnuplot) {
		rc = fail(EX_OTHER, "plot: gnuplot is not installed: apt install gnuplot-nox");
		goto out;
	}
	for (i = 0; i < P_NKNOWN; i++) {
		struct pevent *e = p_event(&c, p_known[i].name);

		if (!e)
			goto oom;
		*e = p_known[i];
	}
	if (trace_iterate(p, "plot", NULL, p_record, &c))
		goto out;
	if (c.oom)
		goto oom;
	/* what to plot */
	if (nwant) {
		for (i = 0; i < nwant; i++)
			if (!p_feature_records(&c, want[i])) {
				rc = fail(EX_OTHER, "plot: %s: no %s events in %s (%s)", want[i],
					  !strcmp(want[i], "other") ? "other schedlab" : want[i], p,
					  !strcmp(want[i], "signals") ? "signals_task, signals_cpu" :
					  !strcmp(want[i], "blocked_on") ? "mutex_wait_begin, mutex_wait_end" :
					  !strcmp(want[i], "other") ? "schedlab events but the features' ones" :
					  want[i]);
				goto out;
			}
	} else {
		long n = 0;

		for (i = 0; i < c.nev; i++)
			n += c.ev[i].n;
		if (!n) {
			rc = fail(EX_OTHER, "plot: no schedlab events in %s: nothing to plot", p);
			goto out;
		}
	}
	/* the saved locks report, for the locks' names */
	snprintf(p, sizeof(p), "%s/reports/blocked_on/locks.json", dir);
	if (exists(p) && (locks = json_object_from_file(p)) &&
	    !json_object_object_get_ex(locks, "rows", &lrows))
		lrows = NULL;

	/* the output directory: everything written beside it first */
	if (out)
		snprintf(outdir, sizeof(outdir), "%s", out);
	else
		snprintf(outdir, sizeof(outdir), "%s/plots", dir);
	if (stat(outdir, &sb) == 0) {
		if (!S_ISDIR(sb.st_mode)) {
			rc = fail(EX_OTHER, "plot: %s exists and is not a directory", outdir);
			goto out;
		}
		snprintf(tmp, sizeof(tmp), "%s/.plot-tmp-%d", outdir, (int)getpid());
	} else {
		made_out = true;
		snprintf(tmp, sizeof(tmp), "%s.plot-tmp-%d", outdir, (int)getpid());
	}
	if (mkdir(tmp, 0755)) {
		if (made_out)
			rc = fail(EX_OTHER, "plot: cannot make %s: %s", outdir, strerror(errno));
		else
			rc = fail(EX_OTHER, "plot: cannot write into %s: %s", outdir, strerror(errno));
		tmp[0] = '\0';
		goto out;
	}
	c.tmp = tmp;
	c.gp = p_open(&c, "plot.gp");
	if (!c.gp)
		goto out;
	/* plot.gp stays with the plots: gnuplot plot.gp in OUTDIR draws them again */
	fprintf(c.gp, "# schedlab plot %s: run gnuplot plot.gp in this directory to draw the plots again\n",
		dir);
	for (i = 0; i < c.nev; i++) {
		struct pevent *e = &c.ev[i];
		int r = 0;

		if (!e->n || !p_wanted(want, nwant, e->feature))
			continue;
		if (!strcmp(e->name, "signals_task"))
			r = p_signals_task(&c, e);
		else if (!strcmp(e->name, "signals_cpu"))
			r = p_signals_cpu(&c, e);
		else if (!strcmp(e->name, "cpu_signals"))
			r = p_cpu_signals(&c, e);
		else if (!strcmp(e->name, "overutil"))
			r = p_overutil(&c, e);
		else if (!strcmp(e->name, "mutex_wait_end"))
			r = p_blocked_on(&c, e, lrows);
		else
			r = p_count(&c, e);
		if (r)
			goto out;
	}
	if (p_close(c.gp, &c, "plot.gp")) {
		c.gp = NULL;
		goto out;
	}
	c.gp = NULL;
	/* gnuplot draws them all, in the temporary directory */
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		rc = fail(EX_OTHER, "plot: fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		int fd;

		if (chdir(tmp) == 0 && (fd = open("gnuplot.log", O_WRONLY | O_CREAT | O_TRUNC, 0644)) >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			execl(gnuplot, "gnuplot", "plot.gp", (char *)NULL);
		}
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		char *log;
		int e;

		snprintf(p, sizeof(p), "%s/gnuplot.log", tmp);
		log = slurp(p, &e);
		const char *l;

		if (log)
			chomp(log);
		for (l = log; l && *l == '\n'; l++)
			;
		rc = fail(EX_OTHER, "plot: gnuplot failed (%s %d)%s%s", WIFEXITED(st) ? "exit" : "signal",
			  WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), l && *l ? ":\n" : "",
			  l ? l : "");
		if (log && strstr(log, "pngcairo"))
			fprintf(stderr, "%s: plot: this gnuplot has no pngcairo terminal: apt install gnuplot-nox\n",
				prog);
		free(log);
		goto out;
	}
	for (i = 0; i < c.nfiles; i++) {
		snprintf(p, sizeof(p), "%s/%s", tmp, c.files[i]);
		if (stat(p, &sb) || !S_ISREG(sb.st_mode) || (sb.st_size == 0)) {
			rc = fail(EX_OTHER, "plot: gnuplot wrote no %s", c.files[i]);
			goto out;
		}
	}
	/* into OUTDIR: the new directory renamed, or each file */
	snprintf(p, sizeof(p), "%s/gnuplot.log", tmp);
	unlink(p);
	if (made_out) {
		if (rename(tmp, outdir)) {
			rc = fail(EX_OTHER, "plot: %s: %s", outdir, strerror(errno));
			goto out;
		}
		tmp[0] = '\0';
	} else {
		for (i = 0; i < c.nfiles; i++) {
			char dst[2400];

			snprintf(p, sizeof(p), "%s/%s", tmp, c.files[i]);
			snprintf(dst, sizeof(dst), "%s/%s", outdir, c.files[i]);
			if (rename(p, dst)) {
				rc = fail(EX_OTHER, "plot: %s: %s", dst, strerror(errno));
				goto out;
			}
		}
	}
	for (i = 0; i < c.nfiles; i++)
		printf("%s/%s\n", outdir, c.files[i]);
	rc = EX_OK;
	goto out;
oom:
	rc = fail(EX_OTHER, "plot: out of memory");
out:
	if (c.gp)
		fclose(c.gp);
	if (tmp[0])
		p_rmtmp(tmp);
	for (i = 0; i < c.nfiles; i++)
		free(c.files[i]);
	free(c.files);
	for (i = 0; i < c.nev; i++)
		free(c.ev[i].r);
	free(c.ev);
	trace_seq_destroy(&c.seq);
	json_object_put(run);
	json_object_put(locks);
	free(fl);
	return rc;
}

int main(int argc, char **argv)
{
	const char *cmd;

	if (argc < 2)
		return usage(stderr, EX_USAGE);
	cmd = argv[1];
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
		return usage(stdout, EX_OK);
	if (!strcmp(cmd, "status"))
		return cmd_status(argc - 2, argv + 2);
	if (!strcmp(cmd, "enable"))
		return cmd_enable(argc - 2, argv + 2);
	if (!strcmp(cmd, "disable"))
		return cmd_disable(argc - 2, argv + 2);
	if (!strcmp(cmd, "reset"))
		return cmd_reset(argc - 2, argv + 2);
	if (!strcmp(cmd, "report"))
		return cmd_report(argc - 2, argv + 2);
	if (!strcmp(cmd, "run"))
		return cmd_run(argc - 2, argv + 2);
	if (!strcmp(cmd, "export"))
		return cmd_export(argc - 2, argv + 2);
	if (!strcmp(cmd, "plot"))
		return cmd_plot(argc - 2, argv + 2);
	fprintf(stderr, "%s: unknown command '%s'\n", prog, cmd);
	return usage(stderr, EX_USAGE);
}
