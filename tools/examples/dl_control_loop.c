// SPDX-License-Identifier: GPL-2.0
/*
 * dl_control_loop: an imprecise-computation control loop.
 *
 * A SCHED_DEADLINE thread (runtime 8 ms every 20 ms) runs one job per
 * period: a mandatory part (3 ms of CPU), then optional refinement steps
 * (1 ms each) for as long as the leftover runtime, read from /dev/dlparams
 * before each step, covers a step plus a margin. Then it yields until the
 * next period.
 *
 * usage: dl_control_loop [JOBS]
 * Prints one line per job and a summary; exit status 0 if no step was
 * started without enough runtime (it would spill into the next period;
 * a spill during which the CPU visibly stalled, see DL_STALL_NS, is
 * counted apart as "stalled").
 * Deadline misses by the wall clock are reported too; they also depend on
 * the machine giving the CPU its time (not so in an emulator).
 */
#include <sched.h>
#include "../lib/dl_util.h"
#include "../lib/dlparams.h"

#define MS 1000000LL
#define RUNTIME (8 * MS)
#define PERIOD (20 * MS)
#define MANDATORY (3 * MS)
#define STEP (1 * MS)
#define MARGIN (500 * 1000LL)

int main(int argc, char **argv)
{
	int jobs = argc > 1 ? atoi(argv[1]) : 20, j, bad = 0, stalled = 0, misses = 0;
	long steps_total = 0, declined = 0;
	struct dlparams_handle h;
	struct dlparams p;
	int ret;

	if (jobs <= 0) {
		fprintf(stderr, "usage: %s [JOBS]\n", argv[0]);
		return 2;
	}
	dl_join_cgroup();
	ret = dl_become(RUNTIME, PERIOD, PERIOD);
	if (ret) {
		fprintf(stderr, "sched_setattr: %s\n", strerror(-ret));
		return 2;
	}
	ret = dlparams_open(&h, DLPARAMS_OPEN_MAP);
	if (ret) {
		fprintf(stderr, "%s: %s\n", DLPARAMS_DEVICE, strerror(-ret));
		return 2;
	}
	sched_yield();	/* start at a period boundary */
	for (j = 0; j < jobs; j++) {
		int steps = 0;
		int64_t left;

		dl_burn(MANDATORY);
		for (;;) {
			if (dlparams_self(&h, &p))
				return 2;
			left = p.runtime_left_ns;
			if (left < STEP + MARGIN) {
				declined++;
				break;
			}
			{
				__u64 dl_before = p.deadline_ns;
				int64_t gap = dl_burn(STEP);

				steps++;
				if (dlparams_self(&h, &p))
					return 2;
				/*
				 * A step started without enough runtime would
				 * be throttled and finish in the next period.
				 */
				if (p.deadline_ns != dl_before) {
					if (gap >= DL_STALL_NS)
						stalled++;
					else
						bad++;
				}
			}
		}
		if (dl_mono() > (int64_t)p.deadline_ns)
			misses++;
		steps_total += steps;
		printf("job %d: %d refinement steps, stopped with %lld us left\n",
		       j, steps, (long long)left / 1000);
		sched_yield();	/* the job is done: sleep until the next period */
	}
	printf("summary: jobs %d refinement_steps %ld declined %ld steps_spilled_into_next_period %d stalled %d deadline_misses %d\n",
	       jobs, steps_total, declined, bad, stalled, misses);
	dlparams_close(&h);
	return bad ? 1 : 0;
}
