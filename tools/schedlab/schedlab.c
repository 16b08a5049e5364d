// SPDX-License-Identifier: GPL-2.0
/*
 * schedlab: the command-line front door of the schedlab module.
 *
 *   schedlab status [--json]
 *   schedlab enable FEATURE [PARAM=VALUE ...]
 *   schedlab disable FEATURE
 *   schedlab reset FEATURE|all
 *   schedlab report FEATURE [NAME] [--json]
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
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
		"  help\n"
		"exit codes: 0 ok, 1 usage, 2 module not loaded, 3 feature unavailable,\n"
		"            4 permission (not root), 5 other error; see schedlab(1)\n", prog);
	return code;
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
	rc = module_loaded();
	if (rc)
		return rc;
	if (!is_root())
		return perm_error("status");
	rc = debugfs_ready();
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
	rc = module_loaded();
	if (rc)
		return rc;
	rc = check_feature(f, true);
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
	rc = module_loaded();
	if (rc)
		return rc;
	rc = check_feature(argv[0], false);
	if (rc)
		return rc;
	if (!is_root())
		return perm_error("disable");
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
	rc = module_loaded();
	if (rc)
		return rc;
	if (strcmp(argv[0], "all")) {
		rc = check_feature(argv[0], true);
		if (rc)
			return rc;
		if (!is_root())
			return perm_error("reset");
		rc = debugfs_ready();
		return rc ? rc : reset_one(argv[0]);
	}
	if (!is_root())
		return perm_error("reset");
	rc = debugfs_ready();
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
	rc = module_loaded();
	if (rc)
		return rc;
	rc = check_feature(f, true);
	if (rc)
		return rc;
	if (!is_root())
		return perm_error("report");
	rc = debugfs_ready();
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
	fprintf(stderr, "%s: unknown command '%s'\n", prog, cmd);
	return usage(stderr, EX_USAGE);
}
