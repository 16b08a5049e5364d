/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libdlparams: current SCHED_DEADLINE parameters through /dev/dlparams.
 *
 *	struct dlparams_handle h;
 *	struct dlparams p;
 *
 *	dlparams_open(&h, DLPARAMS_OPEN_MAP);	  // in the thread that will ask
 *	dlparams_self(&h, &p);			  // mapped page if published, else read()
 *	dlparams_tid(&h, tid, &p);		  // another thread (ptrace-read rules)
 *	dlparams_close(&h);
 *
 * A handle opened with DLPARAMS_OPEN_MAP belongs to the thread that opened
 * it: the page describes that thread. Functions return 0 or -errno.
 */
#ifndef SCHEDLAB_LIBDLPARAMS_H
#define SCHEDLAB_LIBDLPARAMS_H

#include <sys/types.h>
#include <linux/schedlab_dlparams.h>

#define DLPARAMS_OPEN_MAP	1

struct dlparams_handle {
	int fd;
	pid_t tid;				/* thread the page describes */
	const volatile struct dlparams_page *pg;	/* NULL without a page */
};

int dlparams_open(struct dlparams_handle *h, int flags);
void dlparams_close(struct dlparams_handle *h);
/* The calling thread: the page when it can answer, else read(). */
int dlparams_self(struct dlparams_handle *h, struct dlparams *out);
/* Only the mapped page (-EAGAIN when not published yet, -ENODEV unmapped). */
int dlparams_self_fast(struct dlparams_handle *h, struct dlparams *out);
/* Only read(). */
int dlparams_self_read(struct dlparams_handle *h, struct dlparams *out);
/* Another thread, by TID. */
int dlparams_tid(struct dlparams_handle *h, pid_t tid, struct dlparams *out);

#endif
