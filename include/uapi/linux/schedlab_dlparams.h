/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * /dev/dlparams: the current SCHED_DEADLINE parameters of a thread.
 *
 * This header is the one description of the binary interface.
 *
 * Three ways in, all returning the same quantities:
 *
 *  read(fd, &p, sizeof(p))  the calling thread's values. p.size must be set
 *                           by the caller to sizeof(p) (the size it knows);
 *                           the kernel writes min(p.size, its own size) and
 *                           sets p.size to what it wrote.
 *  ioctl(fd, DLPARAMS_IOC_GET_TID, &p)
 *                           another thread's values: p.size and p.tid set by
 *                           the caller. Allowed where the caller may
 *                           ptrace-read the thread.
 *  mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0)
 *                           a read-only page, struct dlparams_page, that the
 *                           kernel refreshes for the mapping thread each time
 *                           that thread is switched in or out; userspace
 *                           computes the leftover runtime at any instant with
 *                           a CLOCK_MONOTONIC read (see dlparams_page).
 *
 * Errors: ENODATA the thread is not SCHED_DEADLINE; EINVAL a size below
 * DLPARAMS_SIZE_VER0 or a buffer shorter than that; ESRCH no such thread;
 * EPERM/EACCES not allowed; ENOTTY unknown ioctl. Nothing is written on
 * error.
 *
 * Extending: fields are only ever appended; DLPARAMS_SIZE_VER<n> names each
 * released size. Old binaries pass a smaller size and get the prefix they
 * know.
 */
#ifndef _UAPI_LINUX_SCHEDLAB_DLPARAMS_H
#define _UAPI_LINUX_SCHEDLAB_DLPARAMS_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define DLPARAMS_DEVICE		"/dev/dlparams"

/* flags */
#define DLPARAMS_F_THROTTLED	(1U << 0)	/* runtime exhausted, waiting for replenishment */
#define DLPARAMS_F_RUNNING	(1U << 1)	/* on a CPU at now_ns: runtime_left_ns includes
						 * the time run since the last accounting */
#define DLPARAMS_F_DEADLINE_MISSED (1U << 2)	/* deadline_ns < now_ns */
#define DLPARAMS_F_STALE	(1U << 3)	/* no consistent lockless read (the values
						 * kept changing): runtime_left_ns is as
						 * of the last accounting, at most a tick
						 * old (read(), ioctl(), and a page's
						 * first values, published by mmap()) */
#define DLPARAMS_F_NOT_UPDATED	(1U << 4)	/* page only: the kernel no longer
						 * refreshes this page: its thread left
						 * SCHED_DEADLINE (set at the thread's next
						 * context switch) or the feature was
						 * disabled. The other fields keep their
						 * last values, DLPARAMS_F_RUNNING cleared.
						 * Cleared when the kernel publishes again
						 * (the thread is SCHED_DEADLINE and the
						 * feature enabled). */

struct dlparams {
	__u32 size;		/* in: caller's sizeof; out: bytes written */
	__u32 tid;		/* in (ioctl): thread id; out: the thread's id */
	__u32 flags;		/* DLPARAMS_F_* */
	__s32 cpu;		/* CPU the thread is on (or last ran on) */
	__s64 runtime_left_ns;	/* leftover runtime; negative in overrun */
	__u64 deadline_ns;	/* absolute deadline, CLOCK_MONOTONIC */
	__u64 now_ns;		/* CLOCK_MONOTONIC instant the values refer to */
	__u64 dl_runtime_ns;	/* static parameters, as set by sched_setattr() */
	__u64 dl_deadline_ns;
	__u64 dl_period_ns;
};

#define DLPARAMS_SIZE_VER0	64	/* sizeof first published struct dlparams */

/*
 * The mapped page. Read it under the sequence counter:
 *
 *	do {
 *		s = READ_ONCE(pg->seq);  (odd: an update is in progress, retry)
 *		rmb();
 *		...copy fields...
 *		rmb();
 *	} while (s & 1 || s != READ_ONCE(pg->seq));
 *
 * and then, at CLOCK_MONOTONIC time now:
 *	runtime_left = runtime_ns - (flags & DLPARAMS_F_RUNNING ? now - ref_ns : 0)
 *	deadline     = deadline_ns
 * version == 0 means the kernel has not published values yet (the thread is
 * not SCHED_DEADLINE, or has not been scheduled since mmap()).
 *
 * The mapping is one page, read-only, not inherited by fork() unless the
 * caller asks (MADV_DOFORK, where the kernel allows it: the child then sees
 * the parent thread's page). It may be moved with mremap() and survives
 * MADV_DONTNEED (the same page is mapped again at the next access). One
 * page per thread: a second mmap() by the same thread fails with EBUSY
 * while any mapping of its page exists, in any process.
 */
struct dlparams_page {
	__u32 seq;
	__u32 version;		/* DLPARAMS_PAGE_VERSION once published */
	__u32 flags;		/* DLPARAMS_F_* at ref_ns */
	__s32 cpu;
	__s64 runtime_ns;	/* leftover runtime at ref_ns */
	__u64 ref_ns;		/* CLOCK_MONOTONIC */
	__u64 deadline_ns;	/* absolute, CLOCK_MONOTONIC */
	__u64 dl_runtime_ns;
	__u64 dl_deadline_ns;
	__u64 dl_period_ns;
	__u32 tid;
	__u32 updates;		/* how many times the kernel published */
};

#define DLPARAMS_PAGE_VERSION	1

#define DLPARAMS_IOC_MAGIC	0xD1
#define DLPARAMS_IOC_GET_TID	_IOWR(DLPARAMS_IOC_MAGIC, 1, struct dlparams)

#endif /* _UAPI_LINUX_SCHEDLAB_DLPARAMS_H */
