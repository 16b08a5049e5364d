/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat: the one place where schedlab finds out what the running kernel
 * offers.
 *
 * A capability is anything a feature may need that a stock kernel may or may
 * not have: a tracepoint (looked up by name at load time), a private symbol
 * (looked up through kallsyms), a member of a private structure (resolved at
 * build time from the target kernel's BTF, see layout.spec), a uapi flag.
 * Nothing is guessed from version numbers. Features list the capabilities
 * they need; one that is missing keeps the feature unavailable and is named
 * in the status report.
 */
#ifndef SCHEDLAB_COMPAT_H
#define SCHEDLAB_COMPAT_H

#include <linux/types.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/tracepoint.h>
#include "sched_layout.h"	/* generated from BTF */
#include "layout_info.h"	/* SL_LAYOUT_KERNEL */
#include "layout_bits.h"

enum sl_cap {
	/* tracepoints, found by name */
	SL_CAP_TP_SCHED_SWITCH,
	SL_CAP_TP_SCHED_WAKEUP,
	SL_CAP_TP_SCHED_WAKEUP_NEW,
	SL_CAP_TP_SCHED_PROCESS_EXIT,
	SL_CAP_TP_SCHED_MIGRATE_TASK,
	SL_CAP_TP_CONTENTION_BEGIN,
	SL_CAP_TP_CONTENTION_END,
	SL_CAP_TP_PELT_CFS,
	SL_CAP_TP_PELT_SE,
	SL_CAP_TP_UTIL_EST_SE,
	SL_CAP_TP_OVERUTILIZED,
	/* the lab kernel's series (patches/): tracepoints and hooks */
	SL_CAP_TP_PROXY_DECISION,
	SL_CAP_TP_ENQUEUE,
	SL_CAP_TP_DEQUEUE,
	SL_CAP_HOOK_OVERUTILIZED,	/* sched_cpu_overutilized_tp: replace the verdict */
	SL_CAP_HOOK_EFFECTIVE_UTIL,	/* sched_effective_cpu_util_tp: substitute util */
	/* private symbols and layouts */
	SL_CAP_RUNQUEUES,	/* per-CPU struct rq, and the members cpu_signals reads */
	SL_CAP_RQ_CLOCK,	/* rq::clock, ::clock_task, ::curr */
	SL_CAP_BLOCKED_ON,	/* task_struct::blocked_on */
	SL_CAP_PROXY_EXEC,	/* CONFIG_SCHED_PROXY_EXEC built in */
	SL_CAP_DL_DYNAMIC,	/* sched_getattr(SCHED_GETATTR_FLAG_DL_DYNAMIC) */
	SL_CAP_EEVDF,		/* sched_entity::vlag and ::deadline */
	SL_CAP_UCLAMP,		/* task_struct::uclamp_req */
	SL_CAP_KPROBES,		/* kprobes can be registered */
	SL_CAP_SCHED_INFO,	/* CONFIG_SCHED_INFO: sched_info.last_queued, run_delay */
	SL_CAP_TICK_PROBE,	/* the scheduler tick function can be kprobed */
	SL_CAP_OVERUTIL_FLAG,	/* the kernel maintains rd->overutilized (EAS, or the series' boot parameter) */
	SL_CAP_CPU_CAPACITY,	/* each CPU's original capacity: rq::cpu_capacity_orig or cpu_scale */
	SL_CAP_FREQ_SCALE,	/* arch_freq_scale: frequency invariance's per-CPU factor */
	SL_NR_CAPS
};

#define SL_CAP(c)	(1ULL << (c))

/* Detect every capability; called once at module load. */
int sl_compat_init(void);
void sl_compat_exit(void);

bool sl_cap_has(enum sl_cap cap);
const char *sl_cap_name(enum sl_cap cap);
/* Where the capability comes from and, when absent, why. */
const char *sl_cap_detail(enum sl_cap cap);
/* Whether proxy execution is built in *and* switched on right now. */
bool sl_proxy_exec_enabled(void);

/* Tracepoints by name (built-in kernel tracepoints). */
struct tracepoint *sl_tracepoint(const char *name);
int sl_tracepoint_register(const char *name, void *probe, void *data);
void sl_tracepoint_unregister(const char *name, void *probe, void *data);

/* A private symbol's address, or 0. */
unsigned long sl_lookup_symbol(const char *name);

/*
 * sched_process_exit's probe gained a bool group_dead in 7.x: true where
 * the target kernel's own declaration says so (the includer includes
 * <trace/events/sched.h>).
 */
#define SL_TP_EXIT_HAS_GROUP_DEAD \
	__builtin_types_compatible_p(typeof(&check_trace_callback_type_sched_process_exit), \
				     void (*)(void (*)(void *, struct task_struct *, bool)))

/* The scheduler tick function (sched_tick, scheduler_tick before 6.10). */
const char *sl_tick_function(void);

/* Energy-aware scheduling on: 1, off: 0, cannot tell: -1. */
int sl_energy_aware(void);
/*
 * Why the kernel maintains its overutilized flag right now: "eas",
 * "sched_overutilized_track" (the series' boot parameter), or NULL when it
 * does not (or cannot tell).
 */
const char *sl_overutil_flag_source(void);
/*
 * A private function's address if it is safe to call through a pointer
 * (see compat.c about IBT), or NULL.
 */
void *sl_lookup_function(const char *name);

/*
 * Reading private structures through the BTF-derived layout.
 * SL_READ(ptr, rq__nr_running) reads the member at its generated offset with
 * its generated width; it does not compile when the member is absent from
 * the target kernel, so every use must sit behind an SL_HAS_* check.
 */
static __always_inline u64 sl_read_width(const void *p, size_t width)
{
	switch (width) {
	case 1: return READ_ONCE(*(const u8 *)p);
	case 2: return READ_ONCE(*(const u16 *)p);
	case 4: return READ_ONCE(*(const u32 *)p);
	case 8: return READ_ONCE(*(const u64 *)p);
	}
	BUILD_BUG();
	return 0;
}

#define SL_PTR(base, id)	((void *)((char *)(base) + SL_OFF_##id))
#define SL_READ(base, id)	sl_read_width(SL_PTR(base, id), SL_SZ_##id)
/*
 * A bitfield member (SL_BITFIELD_<id> 1): its declared type's aligned
 * storage unit, read once, shifted and masked (layout_bits.h); the user
 * checks SL_BITS_IN_UNIT(id) at build time.
 */
#define SL_READ_BITS(base, id) \
	SL_BITS_OF(sl_read_width((char *)(base) + SL_BITUNIT(id), SL_SZ_##id), id)

/*
 * Since 6.3 vma->vm_flags is read-only and changed with vm_flags_set() and
 * vm_flags_clear(); the member that holds the writable flags then exists
 * (__vm_flags, later the vma_flags_t flags).
 */
struct vm_area_struct;
void sl_vma_flags_update(struct vm_area_struct *vma, unsigned long set,
			 unsigned long clear);

/*
 * The clock a CPU's rq->clock follows. With an unstable sched_clock (x86:
 * HAVE_UNSTABLE_SCHED_CLOCK) it is sched_clock_cpu(), filtered per CPU and
 * exported; elsewhere (arm64) the kernel's sched_clock_cpu() is
 * sched_clock() itself and is not exported.
 */
static inline u64 sl_sched_clock_cpu(int cpu)
{
#ifdef CONFIG_HAVE_UNSTABLE_SCHED_CLOCK
	return sched_clock_cpu(cpu);
#else
	return sched_clock();
#endif
}

/*
 * @cpu's original capacity, what arch_scale_cpu_capacity() gives the
 * scheduler: the per-CPU cpu_scale of the generic arch topology (arm64,
 * RISC-V: from the device tree's capacity-dmips-mhz) where the kernel has
 * it (SL_CAP_CPU_CAPACITY names the source), else SCHED_CAPACITY_SCALE (every
 * CPU equal). Kernels before 6.7 also keep it in rq::cpu_capacity_orig:
 * sl_rq_capacity_orig_or_scale() (sched_fields.h) prefers that.
 */
unsigned long sl_cpu_scale(int cpu);

/*
 * @cpu's frequency-invariance factor, arch_freq_scale (current over
 * maximum frequency, 0..SCHED_CAPACITY_SCALE), read from the kernel's
 * per-CPU variable; -1 where the kernel has none (SL_CAP_FREQ_SCALE).
 */
long sl_cpu_freq_scale(int cpu);

/* The per-CPU struct rq of @cpu (valid only with SL_CAP_RUNQUEUES). */
extern void __percpu *sl_runqueues_pcpu;
static inline void *sl_cpu_rq(int cpu)
{
	return per_cpu_ptr(sl_runqueues_pcpu, cpu);
}

#endif /* SCHEDLAB_COMPAT_H */
