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

#endif /* SCHEDLAB_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE schedlab_trace
#include <trace/define_trace.h>
