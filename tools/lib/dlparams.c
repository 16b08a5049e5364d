// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* libdlparams: see dlparams.h and include/uapi/linux/schedlab_dlparams.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "dlparams.h"

#define barrier() __asm__ __volatile__("" ::: "memory")
#define smp_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)

int dlparams_open(struct dlparams_handle *h, int flags)
{
	void *pg;

	memset(h, 0, sizeof(*h));
	h->fd = open(DLPARAMS_DEVICE, O_RDONLY | O_CLOEXEC);
	if (h->fd < 0)
		return -errno;
	h->tid = gettid();
	if (flags & DLPARAMS_OPEN_MAP) {
		pg = mmap(NULL, 4096, PROT_READ, MAP_SHARED, h->fd, 0);
		if (pg == MAP_FAILED) {
			int e = -errno;

			close(h->fd);
			h->fd = -1;
			return e;
		}
		h->pg = pg;
	}
	return 0;
}

void dlparams_close(struct dlparams_handle *h)
{
	if (h->pg)
		munmap((void *)h->pg, 4096);
	if (h->fd >= 0)
		close(h->fd);
	h->pg = NULL;
	h->fd = -1;
}

int dlparams_self_fast(struct dlparams_handle *h, struct dlparams *out)
{
	const volatile struct dlparams_page *pg = h->pg;
	struct dlparams_page c;
	struct timespec ts;
	unsigned int seq;
	__u64 now;

	if (!pg)
		return -ENODEV;
	do {
		seq = pg->seq;
		smp_rmb();
		c.version = pg->version;
		c.flags = pg->flags;
		c.cpu = pg->cpu;
		c.runtime_ns = pg->runtime_ns;
		c.ref_ns = pg->ref_ns;
		c.deadline_ns = pg->deadline_ns;
		c.dl_runtime_ns = pg->dl_runtime_ns;
		c.dl_deadline_ns = pg->dl_deadline_ns;
		c.dl_period_ns = pg->dl_period_ns;
		c.tid = pg->tid;
		smp_rmb();
	} while ((seq & 1) || seq != pg->seq);
	if (c.version != DLPARAMS_PAGE_VERSION)
		return -EAGAIN;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	out->tid = c.tid;
	out->cpu = c.cpu;
	out->flags = c.flags;
	out->runtime_left_ns = c.runtime_ns;
	if ((c.flags & DLPARAMS_F_RUNNING) && now > c.ref_ns)
		out->runtime_left_ns -= (__s64)(now - c.ref_ns);
	out->deadline_ns = c.deadline_ns;
	out->now_ns = now;
	out->dl_runtime_ns = c.dl_runtime_ns;
	out->dl_deadline_ns = c.dl_deadline_ns;
	out->dl_period_ns = c.dl_period_ns;
	if ((__s64)(c.deadline_ns - now) < 0)
		out->flags |= DLPARAMS_F_DEADLINE_MISSED;
	return 0;
}

int dlparams_self_read(struct dlparams_handle *h, struct dlparams *out)
{
	out->size = sizeof(*out);
	if (read(h->fd, out, sizeof(*out)) < 0)
		return -errno;
	return 0;
}

int dlparams_self(struct dlparams_handle *h, struct dlparams *out)
{
	if (h->pg && h->tid == gettid() && dlparams_self_fast(h, out) == 0)
		return 0;
	return dlparams_self_read(h, out);
}

int dlparams_tid(struct dlparams_handle *h, pid_t tid, struct dlparams *out)
{
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	out->tid = tid;
	if (ioctl(h->fd, DLPARAMS_IOC_GET_TID, out) < 0)
		return -errno;
	return 0;
}
