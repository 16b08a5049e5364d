// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs_write [-u UID] PATH VALUE...: write each VALUE to PATH, one open()
 * and one write() call each, exactly those bytes (the empty string is a
 * real zero-length write), and print one line per value: "ok" or the
 * errno's name, e.g. "EINVAL". VALUE may be @N: N bytes of '9'. -u: first
 * drop to that uid and gid, no supplementary groups, working directory /
 * (what setpriv would do, without a second program start).
 * What the guest tests use to write sysfs files (a program start costs
 * far less than a Python interpreter's under emulation).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void put_errno(int e)
{
	const char *name = strerrorname_np(e);

	if (name)
		puts(name);
	else
		printf("%d\n", e);
}

int main(int argc, char **argv)
{
	int i;

	if (argc > 2 && !strcmp(argv[1], "-u")) {
		char *end;
		long uid = strtol(argv[2], &end, 10);

		if (*end || uid < 0 || setgroups(0, NULL) || setgid(uid) || setuid(uid) ||
		    chdir("/")) {
			perror("sysfs_write: -u");
			return 2;
		}
		argv += 2;
		argc -= 2;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: sysfs_write [-u UID] PATH VALUE...\n");
		return 2;
	}
	for (i = 2; i < argc; i++) {
		const char *v = argv[i];
		char *buf = NULL;
		size_t len = strlen(v);
		int fd;

		if (v[0] == '@') {
			len = strtoul(v + 1, NULL, 10);
			buf = malloc(len ? len : 1);
			if (!buf) {
				perror("malloc");
				return 2;
			}
			memset(buf, '9', len);
			v = buf;
		}
		fd = open(argv[1], O_WRONLY);
		if (fd < 0 || write(fd, v, len) < 0)
			put_errno(errno);
		else
			puts("ok");
		if (fd >= 0)
			close(fd);
		free(buf);
	}
	return 0;
}
