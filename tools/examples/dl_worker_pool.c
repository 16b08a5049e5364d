// SPDX-License-Identifier: GPL-2.0
/*
 * dl_worker_pool: SCHED_DEADLINE workers take a job from a shared queue
 * only if their leftover runtime (from /dev/dlparams) covers the job's cost
 * before their deadline; otherwise they leave it for later and wait for
 * their next period.
 *
 * usage: dl_worker_pool [WORKERS [JOBS]]
 * Each worker: runtime 6 ms every 20 ms. Job costs cycle through 1..5 ms.
 * Prints a summary; exit status 0 if every job ran and none spilled into
 * its worker's next period (ran out of runtime). "late" counts jobs that
 * ended after the deadline by the wall clock, which also depends on the
 * machine giving the CPU its time (not so in an emulator). A spill during
 * which the CPU visibly stalled (a jump of DL_STALL_NS in the thread's own
 * CPU clock: time charged for work that was not done) is counted apart as
 * "stalled" and does not fail the run.
 */
#include <pthread.h>
#include <sched.h>
#include "../lib/dl_util.h"
#include "../lib/dlparams.h"

#define MS 1000000LL
#define RUNTIME (6 * MS)
#define PERIOD (20 * MS)
#define MARGIN (500 * 1000LL)

static int njobs, next_job;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int done, declined, late, spilled, stalled, failed;

static int64_t cost_of(int job) { return (1 + job % 5) * MS; }

static void *worker(void *arg)
{
	struct dlparams_handle h;
	struct dlparams p;

	(void)arg;
	if (dl_become(RUNTIME, PERIOD, PERIOD) || dlparams_open(&h, DLPARAMS_OPEN_MAP)) {
		__atomic_add_fetch(&failed, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	for (;;) {
		int64_t gap;
		int job;

		pthread_mutex_lock(&lock);
		job = next_job;
		if (job >= njobs) {
			pthread_mutex_unlock(&lock);
			break;
		}
		if (dlparams_self(&h, &p)) {
			pthread_mutex_unlock(&lock);
			break;
		}
		if (p.runtime_left_ns < cost_of(job) + MARGIN) {
			/* cannot finish it in this period: leave it, wait */
			declined++;
			pthread_mutex_unlock(&lock);
			sched_yield();
			continue;
		}
		next_job++;
		pthread_mutex_unlock(&lock);
		gap = dl_burn(cost_of(job));
		if (dl_mono() > (int64_t)p.deadline_ns)
			__atomic_add_fetch(&late, 1, __ATOMIC_RELAXED);
		{
			struct dlparams q;

			/*
			 * Taking the job was right if the runtime it had
			 * covered it: the job ended in the same period.
			 */
			if (dlparams_self(&h, &q) == 0 && q.deadline_ns != p.deadline_ns)
				__atomic_add_fetch(gap >= DL_STALL_NS ? &stalled : &spilled,
						   1, __ATOMIC_RELAXED);
		}
		__atomic_add_fetch(&done, 1, __ATOMIC_RELAXED);
	}
	dlparams_close(&h);
	return NULL;
}

int main(int argc, char **argv)
{
	int workers = argc > 1 ? atoi(argv[1]) : 2, i;
	pthread_t th[16];

	njobs = argc > 2 ? atoi(argv[2]) : 60;
	if (workers < 1 || workers > 16 || njobs < 1) {
		fprintf(stderr, "usage: %s [WORKERS(1-16) [JOBS]]\n", argv[0]);
		return 2;
	}
	dl_join_cgroup();
	for (i = 0; i < workers; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (i = 0; i < workers; i++)
		pthread_join(th[i], NULL);
	printf("summary: workers %d jobs %d done %d declined %d spilled %d stalled %d late %d failed_workers %d\n",
	       workers, njobs, done, declined, spilled, stalled, late, failed);
	return done == njobs && !spilled && !failed ? 0 : 1;
}
