/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDLAB_EEVDF_CORE_H
#define SCHEDLAB_EEVDF_CORE_H

/*
 * eevdf_core: the EEVDF invariants, checked on a copy of one fair
 * runqueue's state (docs/eevdf.md). Kernel-agnostic: the module copies the
 * state at sched_switch under the runqueue lock, the host tests craft it.
 * Nothing here reads the kernel: every value is the verifier's own copy.
 */
#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
typedef uint64_t u64;
typedef uint32_t u32;
typedef uint8_t u8;
typedef int64_t s64;
typedef int32_t s32;
#endif

/* the kernel's fixed point: NICE_0_LOAD = 1 << 20 on 64-bit */
#define EEVDF_FIXEDPOINT_SHIFT	10
#define EEVDF_NICE_0_LOAD	(1ULL << (2 * EEVDF_FIXEDPOINT_SHIFT))
#define EEVDF_WMULT_CONST	(~0U)
#define EEVDF_WMULT_SHIFT	32
/* |key * weight| must stay below 2^62 (the kernel warns past it) */
#define EEVDF_PRODUCT_LIMIT	(1LL << 62)
/*
 * deadline - vruntime may exceed the slice, and a lag the clamp, by the
 * rounding of a reweight (two truncating divisions and the inverse
 * weight's precision: a lag clamped at one weight and rescaled to another
 * is exact, while calc_delta_fair() at the new one truncates): a few ns.
 */
#define EEVDF_REWEIGHT_ROUND_NS	16

enum eevdf_check {
	EEVDF_ELIGIBLE,		/* the picked entity is eligible */
	EEVDF_EARLIEST,		/* ... and has the earliest eligible deadline */
	EEVDF_SLICE,		/* 0 < deadline - vruntime <= slice / weight */
	EEVDF_LAG,		/* a dequeued entity's lag is within the clamp */
	EEVDF_DELAYED,		/* a delayed entity is not eligible, never picked */
	EEVDF_SUMS,		/* cached sums == sums over the tree (Lemma 2) */
	EEVDF_AUGMENT,		/* each node's min_vruntime (the heap pick_eevdf() prunes) */
	EEVDF_OVERFLOW,		/* no product near overflow */
	EEVDF_VPROT,		/* the protected slice as the kernel computes it */
	EEVDF_AUGMENT_SLICE,	/* each node's min_slice (and max_slice) */
	EEVDF_SLICE_CLAMPED,	/* a slice bound broken by a reweight that clamped the lag */
	EEVDF_NR_CHECKS
};

extern const char *const eevdf_check_names[EEVDF_NR_CHECKS];

/* how the target kernel does it (from its BTF, see eevdf.c) */
struct eevdf_model {
	bool sum_scale_down;	/* sums weigh scale_load_down(w) (else w >> sum_shift) */
	bool lag_max_slice;	/* lag limit from the queue's max slice + tick (else max(2 slice, tick)) */
	bool has_vprot;		/* sched_entity::vprot */
	bool reweight_keeps_lag;	/* a reweight of a queued entity leaves its clamped lag in vlag */
	bool run_to_parity;	/* sched features, read at each check */
	bool preempt_short;
	bool next_buddy;
	bool pick_buddy;
	u64 tick_nsec;
	u64 base_slice;		/* normalized_sysctl_sched_base_slice */
};

struct eevdf_entity {
	u64 vruntime;
	u64 deadline;
	s64 vlag;
	u64 vprot;
	u64 slice;
	u64 weight;		/* the load_weight calc_delta_fair() divides by */
	u32 inv_weight;		/* its inverse as stored (0: not yet computed) */
	u8 on_rq;
	u8 sched_delayed;
	u8 rel_deadline;
	u8 custom_slice;
	/* augmented tree values, and the children's (has_left/right) */
	u64 min_vruntime, min_slice, max_slice;
	bool has_left, has_right;
	u64 l_min_vruntime, l_min_slice, l_max_slice;
	u64 r_min_vruntime, r_min_slice, r_max_slice;
	s32 pid;		/* the task, or -1: a group entity */
};

/* one fair runqueue: its cached sums and its curr (NULL: none) */
struct eevdf_queue {
	u64 zero_vruntime;
	s64 sum_w_vruntime;
	u64 sum_weight;
	u32 sum_shift;
	u32 nr_queued;		/* as the kernel counts (curr included) */
	const struct eevdf_entity *curr;
	const struct eevdf_entity *root;	/* of the tree, or NULL */
};

/* one violation's figures (the rest of the context is the caller's) */
struct eevdf_finding {
	enum eevdf_check check;
	s64 expected;		/* what the invariant wants */
	s64 actual;		/* what the copy holds */
	const struct eevdf_entity *other;	/* the other entity involved, or NULL */
};

/* the kernel's arithmetic, replicated */
u64 eevdf_calc_delta_fair(u64 delta, const struct eevdf_entity *e);
u64 eevdf_sum_weight(const struct eevdf_model *m, const struct eevdf_queue *q,
		     const struct eevdf_entity *e);
bool eevdf_vruntime_eligible(const struct eevdf_model *m,
			     const struct eevdf_queue *q, u64 vruntime);
u64 eevdf_vprot_expected(const struct eevdf_model *m, const struct eevdf_queue *q,
			 const struct eevdf_entity *se);

/*
 * The O(1) checks. Each returns true when the invariant holds; on a
 * violation it fills @f (when non-NULL).
 */
/* the picked entity, curr of @q: eligible, and not delayed */
bool eevdf_check_eligible(const struct eevdf_model *m, const struct eevdf_queue *q,
			  struct eevdf_finding *f);
/*
 * @e (queued, no relative deadline): 0 < deadline - vruntime, and, with
 * @upper, <= slice/weight
 */
bool eevdf_check_slice(const struct eevdf_entity *e, bool upper, struct eevdf_finding *f);
/*
 * @e broke the slice bound: true when a reweight that clamped its
 * lag explains it (m->reweight_keeps_lag: |vlag| is the clamp at e's
 * weight); @max_slice: the largest slice on @e's queue. Fills @f as an
 * EEVDF_SLICE_CLAMPED finding.
 */
bool eevdf_slice_clamped(const struct eevdf_model *m, const struct eevdf_entity *e,
			 u64 max_slice, struct eevdf_finding *f);
/*
 * The deadlines a clamped reweight left, by task: such a deadline stays
 * until the task's vruntime reaches it (update_deadline()), while the task
 * runs and its vlag moves, and eevdf_slice_clamped() no longer sees the
 * signature. A small ring per CPU, written and read by that CPU's probe.
 */
#define EEVDF_CLAMPED_KEPT	8
struct eevdf_clamped_memory {
	struct {
		s64 pid;	/* 0 in an unused slot */
		u64 deadline;
	} slot[EEVDF_CLAMPED_KEPT];
	u32 next;
};
/* @e's break of the slice bound was recognized as a clamped reweight's */
void eevdf_clamped_keep(struct eevdf_clamped_memory *cm, const struct eevdf_entity *e);
/*
 * @e broke the slice bound with a deadline a clamped reweight left (kept
 * in @cm, not renewed since): fills @f as an EEVDF_SLICE_CLAMPED finding
 */
bool eevdf_clamped_still(const struct eevdf_clamped_memory *cm,
			 const struct eevdf_entity *e, struct eevdf_finding *f);
/* update_entity_lag()'s clamp for @e, in virtual time */
s64 eevdf_lag_limit(const struct eevdf_model *m, const struct eevdf_entity *e, u64 max_slice);
/*
 * @prev, just dequeued from @q to sleep (or delayed): |vlag| within the
 * clamp. @max_slice: the largest slice on @q with @prev (lag_max_slice).
 */
bool eevdf_check_lag(const struct eevdf_model *m, const struct eevdf_entity *prev,
		     u64 max_slice, struct eevdf_finding *f);
/* @prev delayed and queued in @q: not eligible */
bool eevdf_check_delayed(const struct eevdf_model *m, const struct eevdf_queue *q,
			 const struct eevdf_entity *prev, struct eevdf_finding *f);
/* the picked entity (curr of @q): vprot as set_protect_slice() sets it */
bool eevdf_check_vprot(const struct eevdf_model *m, const struct eevdf_queue *q,
		       struct eevdf_finding *f);

/*
 * The O(queue) checks over the tree entities @ents[0..n) of @q (curr not
 * among them).
 */
/* no eligible entity has an earlier deadline than curr */
bool eevdf_check_earliest(const struct eevdf_model *m, const struct eevdf_queue *q,
			  const struct eevdf_entity *ents, u32 n,
			  struct eevdf_finding *f);
/* sum_w_vruntime and sum_weight equal the sums over @ents */
bool eevdf_check_sums(const struct eevdf_model *m, const struct eevdf_queue *q,
		      const struct eevdf_entity *ents, u32 n,
		      struct eevdf_finding *f);
/* every node's min_vruntime from its own and its children's */
bool eevdf_check_augment(const struct eevdf_entity *ents, u32 n, struct eevdf_finding *f);
/* every node's min_slice (and max_slice) from its own and its children's */
bool eevdf_check_augment_slice(const struct eevdf_entity *ents, u32 n, bool has_max_slice,
			       struct eevdf_finding *f);
/* every key * weight and the eligibility products fit below 2^62 */
bool eevdf_check_overflow(const struct eevdf_model *m, const struct eevdf_queue *q,
			  const struct eevdf_entity *ents, u32 n,
			  struct eevdf_finding *f);

#endif /* SCHEDLAB_EEVDF_CORE_H */
