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

#endif /* SCHEDLAB_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE schedlab_trace
#include <trace/define_trace.h>
