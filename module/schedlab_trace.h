/* SPDX-License-Identifier: GPL-2.0 */
/*
 * schedlab's tracefs events (system "schedlab"): record them with
 * trace-cmd record -e schedlab.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM schedlab

#if !defined(SCHEDLAB_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SCHEDLAB_TRACE_H

#include <linux/tracepoint.h>
#include "perf_core.h"

TRACE_EVENT(cpu_signals,
	TP_PROTO(int cpu, u64 nr_running, u64 util_avg, u64 util_est, u64 capacity),
	TP_ARGS(cpu, nr_running, util_avg, util_est, capacity),
	TP_STRUCT__entry(
		__field(int, cpu)
		__field(u64, nr_running)
		__field(u64, util_avg)
		__field(u64, util_est)
		__field(u64, capacity)
	),
	TP_fast_assign(
		__entry->cpu = cpu;
		__entry->nr_running = nr_running;
		__entry->util_avg = util_avg;
		__entry->util_est = util_est;
		__entry->capacity = capacity;
	),
	TP_printk("cpu=%d nr_running=%llu util_avg=%llu util_est=%llu capacity=%llu",
		  __entry->cpu, __entry->nr_running, __entry->util_avg,
		  __entry->util_est, __entry->capacity)
);

/*
 * signals: one task's utilization signals side by side (signals.c), at a
 * dequeue (reason 0) or at the sampling tick (reason 1). util_avg and
 * util_est are the kernel's own; -1 where the kernel has no util_est.
 */
TRACE_EVENT(signals_task,
	TP_PROTO(int reason, pid_t pid, const char *comm, int cpu, long util_avg,
		 long util_est, unsigned long model, unsigned long burst,
		 unsigned long waiting, unsigned long time),
	TP_ARGS(reason, pid, comm, cpu, util_avg, util_est, model, burst, waiting, time),
	TP_STRUCT__entry(
		__field(int, reason)
		__field(pid_t, pid)
		__array(char, comm, 16)
		__field(int, cpu)
		__field(long, util_avg)
		__field(long, util_est)
		__field(unsigned long, model)
		__field(unsigned long, burst)
		__field(unsigned long, waiting)
		__field(unsigned long, time)
	),
	TP_fast_assign(
		__entry->reason = reason;
		__entry->pid = pid;
		memcpy(__entry->comm, comm, 16);
		__entry->comm[15] = '\0';
		__entry->cpu = cpu;
		__entry->util_avg = util_avg;
		__entry->util_est = util_est;
		__entry->model = model;
		__entry->burst = burst;
		__entry->waiting = waiting;
		__entry->time = time;
	),
	TP_printk("%s pid=%d comm=%s cpu=%d util_avg=%ld util_est=%ld model=%lu util_burst=%lu waiting_avg=%lu time_util=%lu",
		  __entry->reason ? "sample" : "dequeue", __entry->pid, __entry->comm,
		  __entry->cpu, __entry->util_avg, __entry->util_est, __entry->model,
		  __entry->burst, __entry->waiting, __entry->time)
);

/* signals: per CPU, the sums over its tracked tasks beside the kernel's CFS util_avg */
TRACE_EVENT(signals_cpu,
	TP_PROTO(int cpu, unsigned long capacity, unsigned long cfs_util_avg,
		 unsigned long model, unsigned long burst, unsigned long waiting,
		 unsigned long time, unsigned int tasks),
	TP_ARGS(cpu, capacity, cfs_util_avg, model, burst, waiting, time, tasks),
	TP_STRUCT__entry(
		__field(int, cpu)
		__field(unsigned long, capacity)
		__field(unsigned long, cfs_util_avg)
		__field(unsigned long, model)
		__field(unsigned long, burst)
		__field(unsigned long, waiting)
		__field(unsigned long, time)
		__field(unsigned int, tasks)
	),
	TP_fast_assign(
		__entry->cpu = cpu;
		__entry->capacity = capacity;
		__entry->cfs_util_avg = cfs_util_avg;
		__entry->model = model;
		__entry->burst = burst;
		__entry->waiting = waiting;
		__entry->time = time;
		__entry->tasks = tasks;
	),
	TP_printk("cpu=%d capacity=%lu cfs_util_avg=%lu sum_model=%lu sum_burst=%lu sum_waiting=%lu sum_time=%lu tasks=%u",
		  __entry->cpu, __entry->capacity, __entry->cfs_util_avg, __entry->model,
		  __entry->burst, __entry->waiting, __entry->time, __entry->tasks)
);

/*
 * overutil: a rule's verdict changed, for one CPU (cpu >= 0) or for the
 * system (cpu -1); util and capacity are the CPU's as the rules saw them
 * (emulated capacities applied), 0 for the system. rule: enum sl_ou_rule.
 */
TRACE_EVENT(overutil,
	TP_PROTO(int cpu, int rule, bool on, unsigned long util,
		 unsigned long capacity),
	TP_ARGS(cpu, rule, on, util, capacity),
	TP_STRUCT__entry(
		__field(int, cpu)
		__field(int, rule)
		__field(bool, on)
		__field(unsigned long, util)
		__field(unsigned long, capacity)
	),
	TP_fast_assign(
		__entry->cpu = cpu;
		__entry->rule = rule;
		__entry->on = on;
		__entry->util = util;
		__entry->capacity = capacity;
	),
	TP_printk("cpu=%d rule=%s on=%d util=%lu capacity=%lu",
		  __entry->cpu,
		  __print_symbolic(__entry->rule, { 0, "mainline" }, { 1, "linger" },
				   { 2, "idle" }, { 3, "dynamic" }, { 4, "lone" },
				   { 5, "all" }),
		  __entry->on, __entry->util, __entry->capacity)
);

/*
 * eevdf_violation: an EEVDF invariant did not hold on the verifier's copy
 * of a fair runqueue at a switch (eevdf.c, docs/eevdf.md). check: enum
 * eevdf_check; level: 0 for the task's own queue, 1.. its parents'; pid
 * -1 for a group entity; expected/actual: the check's two figures.
 */
TRACE_EVENT(eevdf_violation,
	TP_PROTO(int check, int cpu, pid_t pid, int level, s64 expected, s64 actual,
		 u64 vruntime, u64 deadline, s64 sum_w_vruntime, u64 sum_weight),
	TP_ARGS(check, cpu, pid, level, expected, actual, vruntime, deadline,
		sum_w_vruntime, sum_weight),
	TP_STRUCT__entry(
		__field(int, check)
		__field(int, cpu)
		__field(pid_t, pid)
		__field(int, level)
		__field(s64, expected)
		__field(s64, actual)
		__field(u64, vruntime)
		__field(u64, deadline)
		__field(s64, sum_w_vruntime)
		__field(u64, sum_weight)
	),
	TP_fast_assign(
		__entry->check = check;
		__entry->cpu = cpu;
		__entry->pid = pid;
		__entry->level = level;
		__entry->expected = expected;
		__entry->actual = actual;
		__entry->vruntime = vruntime;
		__entry->deadline = deadline;
		__entry->sum_w_vruntime = sum_w_vruntime;
		__entry->sum_weight = sum_weight;
	),
	TP_printk("check=%s cpu=%d pid=%d level=%d expected=%lld actual=%lld vruntime=%llu deadline=%llu sum_w_vruntime=%lld sum_weight=%llu",
		  __print_symbolic(__entry->check, { 0, "eligible" }, { 1, "earliest_deadline" },
				   { 2, "slice" }, { 3, "lag_clamp" }, { 4, "delayed" },
				   { 5, "sums" }, { 6, "augment" }, { 7, "overflow" },
				   { 8, "vprot" }, { 9, "augment_slice" },
				   { 10, "slice_clamped" }),
		  __entry->cpu, __entry->pid, __entry->level, __entry->expected,
		  __entry->actual, __entry->vruntime, __entry->deadline,
		  __entry->sum_w_vruntime, __entry->sum_weight)
);

/*
 * mutex_wait_begin / mutex_wait_end: a task's wait on a kernel mutex
 * (blocked_on.c). The end carries the wait's split by what the lock's owner
 * did (us): running on the waiter's CPU, running elsewhere, preempted on
 * the waiter's CPU, runnable elsewhere, asleep, itself blocked on another
 * mutex, no owner, running as a waiter's proxy (proxy execution); how it ended (1 acquired, 2 failed, 3 exit); the
 * deepest chain; the inversion rules that matched and the inversion time.
 */
TRACE_EVENT(mutex_wait_begin,
	TP_PROTO(int pid, u64 lock, int owner_pid),
	TP_ARGS(pid, lock, owner_pid),
	TP_STRUCT__entry(
		__field(int, pid)
		__field(u64, lock)
		__field(int, owner_pid)
	),
	TP_fast_assign(
		__entry->pid = pid;
		__entry->lock = lock;
		__entry->owner_pid = owner_pid;
	),
	TP_printk("pid=%d lock=0x%llx owner=%d", __entry->pid, __entry->lock,
		  __entry->owner_pid)
);

TRACE_EVENT(mutex_wait_end,
	TP_PROTO(int pid, u64 lock, u64 duration_ns, unsigned int end, const u64 *cat_ns,
		 unsigned int max_depth, unsigned int inv_rules, u64 inv_ns),
	TP_ARGS(pid, lock, duration_ns, end, cat_ns, max_depth, inv_rules, inv_ns),
	TP_STRUCT__entry(
		__field(int, pid)
		__field(u64, lock)
		__field(u64, duration_us)
		__field(unsigned int, end)
		__array(u64, cat_us, 8)
		__field(unsigned int, max_depth)
		__field(unsigned int, inv_rules)
		__field(u64, inv_us)
	),
	TP_fast_assign(
		int i;

		__entry->pid = pid;
		__entry->lock = lock;
		__entry->duration_us = div_u64(duration_ns, NSEC_PER_USEC);
		__entry->end = end;
		for (i = 0; i < 8; i++)
			__entry->cat_us[i] = div_u64(cat_ns[i], NSEC_PER_USEC);
		__entry->max_depth = max_depth;
		__entry->inv_rules = inv_rules;
		__entry->inv_us = div_u64(inv_ns, NSEC_PER_USEC);
	),
	TP_printk("pid=%d lock=0x%llx us=%llu end=%u run_local=%llu run_remote=%llu preempted=%llu runnable_remote=%llu sleeping=%llu blocked=%llu unowned=%llu proxy=%llu depth=%u inv_rules=0x%x inv_us=%llu",
		  __entry->pid, __entry->lock, __entry->duration_us, __entry->end,
		  __entry->cat_us[0], __entry->cat_us[1], __entry->cat_us[2],
		  __entry->cat_us[3], __entry->cat_us[4], __entry->cat_us[5],
		  __entry->cat_us[6], __entry->cat_us[7], __entry->max_depth, __entry->inv_rules,
		  __entry->inv_us)
);

/*
 * perf_cpu: one CPU's sample of the perf feature (perf.c): its signals and
 * what each policy would request (max: the kernel's max aggregation with
 * the 1.25 headroom; time: time-based headroom; sum: uclamp sum
 * aggregation), the frequency of each for the reference table. -1 where a
 * value does not exist (no uclamp: the clamps and the sum policy; no
 * sched_cpu_util reachable: kernel_util).
 */
TRACE_EVENT(perf_cpu,
	TP_PROTO(const struct sl_perf_cpu *c),
	TP_ARGS(c),
	TP_STRUCT__entry(
		__field(int, cpu)
		__field(int, self)
		__field(u32, cap)
		__field(u32, util_avg)
		__field(u32, runnable_avg)
		__field(u32, util_est)
		__field(u32, rt)
		__field(u32, dl)
		__field(u32, irq)
		__field(u32, bw_dl)
		__field(s32, uclamp_min)
		__field(s32, uclamp_max)
		__field(s32, kernel_util)
		__field(u32, eff_util)
		__field(u32, max_util)
		__field(u32, max_min)
		__field(u32, max_max)
		__field(u32, max_perf)
		__field(u64, max_khz)
		__field(u32, time_perf)
		__field(u64, time_khz)
		__field(s32, sum_tasks)
		__field(s64, sum_bias)
		__field(s64, sum_est)
		__field(s32, sum_util)
		__field(s32, sum_perf)
		__field(s64, sum_khz)
	),
	TP_fast_assign(
		__entry->cpu = c->cpu;
		__entry->self = c->self;
		__entry->cap = c->in.cap;
		__entry->util_avg = c->in.util_avg;
		__entry->runnable_avg = c->in.runnable_avg;
		__entry->util_est = c->in.util_est;
		__entry->rt = c->in.rt;
		__entry->dl = c->in.dl;
		__entry->irq = c->in.irq;
		__entry->bw_dl = c->in.bw_dl;
		__entry->uclamp_min = c->has_uclamp ? (s32)c->in.rq_uclamp_min : -1;
		__entry->uclamp_max = c->has_uclamp ? (s32)c->in.rq_uclamp_max : -1;
		__entry->kernel_util = c->kernel_util;
		__entry->eff_util = c->eff_util;
		__entry->max_util = c->max.util;
		__entry->max_min = c->max.min;
		__entry->max_max = c->max.max;
		__entry->max_perf = c->max.perf;
		__entry->max_khz = c->max_khz;
		__entry->time_perf = c->time.perf;
		__entry->time_khz = c->time_khz;
		__entry->sum_tasks = c->has_uclamp ? (s32)c->sum.nr : -1;
		__entry->sum_bias = c->has_uclamp ? c->sum.bias : -1;
		__entry->sum_est = c->has_uclamp ? (s64)c->sum.util_est : -1;
		__entry->sum_util = c->has_uclamp ? (s32)c->sum_out.util : -1;
		__entry->sum_perf = c->has_uclamp ? (s32)c->sum_out.perf : -1;
		__entry->sum_khz = c->has_uclamp ? (s64)c->sum_khz : -1;
	),
	TP_printk("cpu=%d self=%d cap=%u util_avg=%u runnable_avg=%u util_est=%u rt=%u dl=%u irq=%u bw_dl=%u uclamp_min=%d uclamp_max=%d kernel_util=%d eff_util=%u max_util=%u max_min=%u max_max=%u max_perf=%u max_khz=%llu time_perf=%u time_khz=%llu sum_tasks=%d sum_bias=%lld sum_est=%lld sum_util=%d sum_perf=%d sum_khz=%lld",
		  __entry->cpu, __entry->self, __entry->cap, __entry->util_avg,
		  __entry->runnable_avg, __entry->util_est, __entry->rt, __entry->dl,
		  __entry->irq, __entry->bw_dl, __entry->uclamp_min, __entry->uclamp_max,
		  __entry->kernel_util, __entry->eff_util, __entry->max_util,
		  __entry->max_min, __entry->max_max, __entry->max_perf, __entry->max_khz,
		  __entry->time_perf, __entry->time_khz, __entry->sum_tasks,
		  __entry->sum_bias, __entry->sum_est, __entry->sum_util,
		  __entry->sum_perf, __entry->sum_khz)
);

#endif /* SCHEDLAB_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE schedlab_trace
#include <trace/define_trace.h>
