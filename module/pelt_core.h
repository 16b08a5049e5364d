/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDLAB_PELT_CORE_H
#define SCHEDLAB_PELT_CORE_H

/*
 * pelt_core: the kernel's fixed-point PELT utilization signal, usable from
 * the module and from host programs (tools/pelt, tests/host/test_pelt.c).
 * See pelt_core.c for the algorithm.
 *
 * Outside the kernel a tiny shim supplies the kernel types and the two
 * math64 helpers the core needs; nothing else from libc is used.
 */
#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/math64.h>
#else
#include <stdbool.h>
#include <stdint.h>

typedef uint64_t u64;
typedef uint32_t u32;
typedef int64_t s64;

/* (a * mul) >> shift without a 128-bit product, for 0 < shift <= 32 */
static inline u64 mul_u64_u32_shr(u64 a, u32 mul, unsigned int shift)
{
	u32 ah = a >> 32, al = (u32)a;
	u64 ret;

	ret = ((u64)al * mul) >> shift;
	if (ah)
		ret += ((u64)ah * mul) << (32 - shift);
	return ret;
}

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}
#endif /* __KERNEL__ */

/* Capacity scale: a CPU running flat out at its top frequency is 1024. */
#define SL_PELT_CAPACITY_SHIFT	10
#define SL_PELT_CAPACITY_SCALE	(1UL << SL_PELT_CAPACITY_SHIFT)

/*
 * Time is kept in ns and consumed in units of 1024 ns (ns >> 10), which
 * the kernel calls "us". A period is 1024 such units: 2^20 ns, 1.048576 ms.
 */
#define SL_PELT_UNIT_SHIFT	10
#define SL_PELT_PERIOD		1024
#define SL_PELT_PERIOD_NS_SHIFT	(SL_PELT_UNIT_SHIFT + 10)
#define SL_PELT_PERIOD_NS	(1ULL << SL_PELT_PERIOD_NS_SHIFT)

/* y^SL_PELT_HALFLIFE == 1/2: a contribution halves every 32 periods */
#define SL_PELT_HALFLIFE	32

/*
 * Largest value of the integer series sum = decay(sum, 1) + 1024 (the
 * kernel's LOAD_AVG_MAX), and the divider when a period has just started.
 */
#define SL_PELT_LOAD_AVG_MAX	47742
#define SL_PELT_MIN_DIVIDER	(SL_PELT_LOAD_AVG_MAX - SL_PELT_PERIOD)

/*
 * Bound on the whole periods sl_pelt_approx_*() iterate: 63 half-lives,
 * past which sl_pelt_decay_load() returns 0 for any u64. An always-running
 * signal reaches util_avg 1024 after 323 periods from 0, and util_sum its
 * integer fixed point after 667 periods from 0 (345 from util 1024), after
 * which more running changes nothing and the loops stop early; the bound
 * is never hit and only guards against a bug (the host test checks both).
 */
#define SL_PELT_MAX_PERIODS	(63 * SL_PELT_HALFLIFE)

/* floor((2^32 - 1) * y^n), n = 0..31: the kernel's runnable_avg_yN_inv */
extern const u32 sl_pelt_y_inv[SL_PELT_HALFLIFE];

/*
 * One utilization signal, as the util_* half of the kernel's sched_avg.
 * last_update_time advances in steps of 1024 ns; period_contrib is how far
 * (in 1024 ns units) the current period has progressed; util_sum holds
 * the decayed running time scaled by 1024; util_avg = util_sum / divider,
 * refreshed when an update crosses a period boundary.
 */
struct sl_pelt_avg {
	u64 last_update_time;
	u64 util_sum;
	u32 period_contrib;
	unsigned long util_avg;
};

u64 sl_pelt_decay_load(u64 val, u64 n);
void sl_pelt_init(struct sl_pelt_avg *sa, u64 now_ns, unsigned long util);
bool sl_pelt_update(struct sl_pelt_avg *sa, u64 now_ns, bool running,
		    unsigned long scale);
void sl_pelt_update_within(struct sl_pelt_avg *sa, u64 now_ns, u64 running_ns,
			   u64 other_ns, unsigned long scale);
u64 sl_pelt_next_boundary(const struct sl_pelt_avg *sa);
u32 sl_pelt_divider(const struct sl_pelt_avg *sa);
unsigned long sl_pelt_util_now(const struct sl_pelt_avg *sa);

unsigned long sl_pelt_approx_util_avg(unsigned long util, u64 delta_ns);
u64 sl_pelt_approx_runtime(unsigned long util);

u64 sl_pelt_margin_window(unsigned long capacity, u64 tick_ns);
unsigned long sl_pelt_margin_threshold(unsigned long capacity, u64 tick_ns);

#endif /* SCHEDLAB_PELT_CORE_H */
