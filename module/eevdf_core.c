// SPDX-License-Identifier: GPL-2.0
/*
 * eevdf_core: the EEVDF invariants on a copy of a fair runqueue.
 *
 * Notation (as in kernel/sched/fair.c): an entity i has virtual runtime v_i,
 * virtual deadline d_i, weight w_i; a runqueue caches, relative to its
 * zero-lag reference v0 (zero_vruntime),
 *
 *	S = \Sum (v_i - v0) * w_i	(avg_vruntime, later sum_w_vruntime)
 *	W = \Sum w_i			(avg_load, later sum_weight)
 *
 * over the entities in its tree; curr is kept out of the tree and added
 * when V is needed. The virtual time is V = v0 + (S + (v_c - v0) w_c) / W'.
 *
 * Every comparison is done as the kernel does it, on integers, with the
 * products in 128 bits so that the verifier itself cannot overflow.
 */
#include "eevdf_core.h"

const char *const eevdf_check_names[EEVDF_NR_CHECKS] = {
	[EEVDF_ELIGIBLE] = "eligible",
	[EEVDF_EARLIEST] = "earliest_deadline",
	[EEVDF_SLICE] = "slice",
	[EEVDF_LAG] = "lag_clamp",
	[EEVDF_DELAYED] = "delayed",
	[EEVDF_SUMS] = "sums",
	[EEVDF_AUGMENT] = "augment",
	[EEVDF_OVERFLOW] = "overflow",
	[EEVDF_VPROT] = "vprot",
	[EEVDF_AUGMENT_SLICE] = "augment_slice",
	[EEVDF_SLICE_CLAMPED] = "slice_clamped",
};

static inline s64 key_of(const struct eevdf_queue *q, u64 v)
{
	return (s64)(v - q->zero_vruntime);
}

/* vruntime_cmp(a, "<", b): wrap-safe */
static inline bool v_before(u64 a, u64 b)
{
	return (s64)(a - b) < 0;
}

static inline u64 v_min(u64 a, u64 b)
{
	return v_before(b, a) ? b : a;
}

static inline u64 scale_load_down(u64 w)
{
	if (!w)
		return 0;
	w >>= EEVDF_FIXEDPOINT_SHIFT;
	return w < 2 ? 2 : w;
}

static inline int fls32(u32 x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

static inline s64 abs_s64(s64 x)
{
	return x < 0 ? -x : x;
}

static bool fail(struct eevdf_finding *f, enum eevdf_check c, s64 expected,
		 s64 actual, const struct eevdf_entity *other)
{
	if (f) {
		f->check = c;
		f->expected = expected;
		f->actual = actual;
		f->other = other;
	}
	return false;
}

/*
 * calc_delta_fair(delta, se) = delta * NICE_0_LOAD / w, done as __calc_delta
 * does it: the inverse weight 2^32 / scale_load_down(w) (as stored, or as
 * __update_inv_weight() would compute it), fact = 1024 * inv normalised to
 * 32 bits, then (delta * fact) >> shift. Rounding therefore matches the
 * kernel's to the nanosecond.
 */
u64 eevdf_calc_delta_fair(u64 delta, const struct eevdf_entity *e)
{
	u64 fact = scale_load_down(EEVDF_NICE_0_LOAD), w;
	int shift = EEVDF_WMULT_SHIFT, fs;
	u32 inv = e->inv_weight;
	u32 fact_hi;

	if (e->weight == EEVDF_NICE_0_LOAD)
		return delta;
	if (!inv) {
		w = scale_load_down(e->weight);
		if (w >= EEVDF_WMULT_CONST)
			inv = 1;
		else if (!w)
			inv = EEVDF_WMULT_CONST;
		else
			inv = EEVDF_WMULT_CONST / (u32)w;
	}
	/* scale_load_down(NICE_0_LOAD) fits 32 bits: no first normalisation */
	fact = fact * inv;
	fact_hi = (u32)(fact >> 32);
	if (fact_hi) {
		fs = fls32(fact_hi);
		shift -= fs;
		fact >>= fs;
	}
	return (u64)(((__uint128_t)delta * (u32)fact) >> shift);
}

/*
 * The weight an entity counts with in S and W: scale_load_down(w) where the
 * sums are kept at low resolution, else the full weight, halved sum_shift
 * times (never below 2) once the sums had to be rescaled to avoid overflow.
 */
u64 eevdf_sum_weight(const struct eevdf_model *m, const struct eevdf_queue *q,
		     const struct eevdf_entity *e)
{
	u64 w = e->weight;

	if (m->sum_scale_down)
		return scale_load_down(w);
	if (q->sum_shift) {
		w >>= q->sum_shift;
		if (w < 2)
			w = 2;
	}
	return w;
}

/*
 * Eligible: lag >= 0, i.e. V >= v. With V = v0 + S'/W' that is
 *	S' >= (v - v0) * W'
 * (no division: the kernel avoids avg_vruntime()'s rounding the same way),
 * where S' and W' include curr when it is queued.
 */
bool eevdf_vruntime_eligible(const struct eevdf_model *m,
			     const struct eevdf_queue *q, u64 vruntime)
{
	const struct eevdf_entity *c = q->curr;
	__int128_t avg = q->sum_w_vruntime;
	__int128_t load = (__int128_t)q->sum_weight;

	if (c && c->on_rq) {
		u64 w = eevdf_sum_weight(m, q, c);

		avg += (__int128_t)key_of(q, c->vruntime) * w;
		load += w;
	}
	return avg >= (__int128_t)key_of(q, vruntime) * load;
}

/*
 * The vruntime just past the point where curr stops being eligible against
 * the others alone: v0 + floor(S / W) + 1 (ineligible_vruntime()).
 */
static u64 ineligible_vruntime(const struct eevdf_queue *q)
{
	s64 runtime = q->sum_w_vruntime, delta = 0;
	s64 weight = (s64)q->sum_weight;

	if (weight) {
		/* a negative numerator: truncation toward zero made a floor */
		if (runtime < 0)
			runtime -= weight - 1;
		delta = runtime / weight;
	}
	return q->zero_vruntime + delta + 1;
}

/*
 * set_protect_slice(): curr may run to vprot before a pick looks for
 * another. vprot = deadline, cut short when a shorter slice is queued (the
 * shortest queued slice under RUN_TO_PARITY, else the base slice): either
 * at the point curr turns ineligible (PREEMPT_SHORT) or after that shorter
 * slice of its own virtual time.
 */
u64 eevdf_vprot_expected(const struct eevdf_model *m, const struct eevdf_queue *q,
			 const struct eevdf_entity *se)
{
	u64 slice = m->base_slice;
	u64 vprot = se->deadline;

	if (m->run_to_parity) {
		u64 min_slice = ~0ULL;

		if (q->curr && q->curr->on_rq)
			min_slice = q->curr->slice;
		if (q->root && q->root->min_slice < min_slice)
			min_slice = q->root->min_slice;
		slice = min_slice;
	}
	if (se->slice < slice)
		slice = se->slice;
	if (slice != se->slice) {
		if (m->preempt_short)
			vprot = v_min(vprot, ineligible_vruntime(q));
		else
			vprot = v_min(vprot, se->vruntime + eevdf_calc_delta_fair(slice, se));
	}
	return vprot;
}

bool eevdf_check_eligible(const struct eevdf_model *m, const struct eevdf_queue *q,
			  struct eevdf_finding *f)
{
	const struct eevdf_entity *c = q->curr;

	if (eevdf_vruntime_eligible(m, q, c->vruntime))
		return true;
	/*
	 * expected: V rounded down as avg_vruntime() does (where it fits 64
	 * bits; else 0), actual: v
	 */
	{
		__int128_t avg = q->sum_w_vruntime, load = (__int128_t)q->sum_weight;
		u64 w = eevdf_sum_weight(m, q, c);
		s64 a, l, v = 0;

		avg += (__int128_t)key_of(q, c->vruntime) * w;
		load += w;
		if (avg == (s64)avg && load == (s64)load && load > 0) {
			a = (s64)avg;
			l = (s64)load;
			if (a < 0)
				a -= l - 1;
			v = (s64)(q->zero_vruntime + (u64)(a / l));
		}
		return fail(f, EEVDF_ELIGIBLE, v, (s64)c->vruntime, NULL);
	}
}

/*
 * A deadline is set to vruntime + calc_delta_fair(slice) (update_deadline(),
 * place_entity()); vruntime then only grows while the entity runs, and a
 * new deadline is set as soon as it is reached, so deadline - vruntime is
 * in (0, calc_delta_fair(slice)] up to a reweight's rounding. The upper
 * bound holds only while the slice is the one the deadline was set with:
 * not for a group entity (its slice follows its queue's shortest, the
 * deadline stays) nor for a custom slice (sched_setattr changes it, the
 * next deadline uses it): the caller says.
 */
bool eevdf_check_slice(const struct eevdf_entity *e, bool upper, struct eevdf_finding *f)
{
	s64 d = (s64)(e->deadline - e->vruntime);
	s64 lim = (s64)eevdf_calc_delta_fair(e->slice, e) + EEVDF_REWEIGHT_ROUND_NS;

	if (d > 0 && (!upper || d <= lim))
		return true;
	return fail(f, EEVDF_SLICE, d <= 0 ? 1 : lim, d, NULL);
}

/*
 * update_entity_lag() clamps vlag = V - v to +-limit: limit =
 * calc_delta_fair(max(2 slice, TICK_NSEC)) per entity, or (later kernels)
 * calc_delta_fair(largest slice on the queue + TICK_NSEC).
 */
static u64 lag_span(const struct eevdf_model *m, const struct eevdf_entity *e, u64 max_slice)
{
	u64 span;

	if (m->lag_max_slice) {
		if (e->slice > max_slice)
			max_slice = e->slice;
		return max_slice + m->tick_nsec;
	}
	span = 2 * e->slice;
	return span < m->tick_nsec ? m->tick_nsec : span;
}

s64 eevdf_lag_limit(const struct eevdf_model *m, const struct eevdf_entity *e, u64 max_slice)
{
	return (s64)eevdf_calc_delta_fair(lag_span(m, e, max_slice), e);
}

bool eevdf_check_lag(const struct eevdf_model *m, const struct eevdf_entity *prev,
		     u64 max_slice, struct eevdf_finding *f)
{
	s64 limit = eevdf_lag_limit(m, prev, max_slice) + EEVDF_REWEIGHT_ROUND_NS;

	if (prev->vlag >= -limit && prev->vlag <= limit)
		return true;
	return fail(f, EEVDF_LAG, prev->vlag < 0 ? -limit : limit, prev->vlag, NULL);
}

/*
 * reweight_eevdf() moves a queued entity from weight w to w' keeping its
 * lag and its deadline's distance to V scaled:
 *
 *	v' = V - vl * w/w',	d' = V + (d - V) * w/w'
 *
 * so that d' - v' = (d - V + vl) * w/w', which is (d - v) * w/w' (one
 * slice at w') only while vl = V - v. But vl is entity_lag(), clamped: an
 * entity that ran further past V than the clamp gets vl = -limit, and then
 *
 *	d' - v' = (d - V - limit) * w/w'
 *	        = ((d - v) + (v - V - limit)) * w/w'  >  (d - v) * w/w'
 *
 * its deadline lands more than a slice past its vruntime, by the part of
 * the lag the clamp cut off (scaled). An entity left further behind V than
 * the clamp (vl = +limit) gets d' - v' = (d - V + limit) * w/w', less than
 * a slice, and not after vruntime at all once d < V - limit. Where the kernel keeps that clamped lag in
 * se->vlag, rescaled (vl' = vl * w/w' = the clamp at w', the span being
 * the same), it is the signature: |vlag| * w' = span * NICE_0_LOAD, to the
 * rounding of the two inverse-weight divisions (2^-12 is generous).
 */
bool eevdf_slice_clamped(const struct eevdf_model *m, const struct eevdf_entity *e,
			 u64 max_slice, struct eevdf_finding *f)
{
	__int128_t have, want, diff;
	s64 d = (s64)(e->deadline - e->vruntime);
	s64 lim = (s64)eevdf_calc_delta_fair(e->slice, e) + EEVDF_REWEIGHT_ROUND_NS;
	u64 span = lag_span(m, e, max_slice);

	if (!m->reweight_keeps_lag || (d > 0 && d <= lim) || !e->weight)
		return false;
	have = (__int128_t)(e->vlag < 0 ? -e->vlag : e->vlag) * (__int128_t)e->weight;
	want = (__int128_t)span * EEVDF_NICE_0_LOAD;
	diff = have > want ? have - want : want - have;
	if (diff > want >> 12)
		return false;
	return !fail(f, EEVDF_SLICE_CLAMPED, d <= 0 ? 1 : lim, d, NULL);
}

void eevdf_clamped_keep(struct eevdf_clamped_memory *cm, const struct eevdf_entity *e)
{
	u32 i;

	if (e->pid <= 0)
		return;
	for (i = 0; i < EEVDF_CLAMPED_KEPT; i++)
		if (cm->slot[i].pid == e->pid)
			break;
	if (i == EEVDF_CLAMPED_KEPT)
		i = cm->next++ % EEVDF_CLAMPED_KEPT;
	cm->slot[i].pid = e->pid;
	cm->slot[i].deadline = e->deadline;
}

/*
 * A deadline is renewed only to vruntime + slice/weight, so the same
 * deadline, to the nanosecond, on the same task is the one the reweight
 * left.
 */
bool eevdf_clamped_still(const struct eevdf_clamped_memory *cm,
			 const struct eevdf_entity *e, struct eevdf_finding *f)
{
	s64 d = (s64)(e->deadline - e->vruntime);
	u32 i;

	if (e->pid <= 0)
		return false;
	for (i = 0; i < EEVDF_CLAMPED_KEPT; i++)
		if (cm->slot[i].pid == e->pid && cm->slot[i].deadline == e->deadline)
			return !fail(f, EEVDF_SLICE_CLAMPED,
				     d <= 0 ? 1 : (s64)eevdf_calc_delta_fair(e->slice, e) +
						  EEVDF_REWEIGHT_ROUND_NS, d, NULL);
	return false;
}

/*
 * DELAY_DEQUEUE keeps a sleeping entity queued only while it is not
 * eligible (dequeue_entity()); it is dequeued for good when a pick reaches
 * it, so the picked entity is never delayed.
 */
bool eevdf_check_delayed(const struct eevdf_model *m, const struct eevdf_queue *q,
			 const struct eevdf_entity *prev, struct eevdf_finding *f)
{
	if (q->curr && q->curr->sched_delayed)
		return fail(f, EEVDF_DELAYED, 0, 1, NULL);
	if (!prev || !prev->sched_delayed || !prev->on_rq)
		return true;
	if (!eevdf_vruntime_eligible(m, q, prev->vruntime))
		return true;
	return fail(f, EEVDF_DELAYED, 0, 1, prev);
}

bool eevdf_check_vprot(const struct eevdf_model *m, const struct eevdf_queue *q,
		       struct eevdf_finding *f)
{
	u64 want = eevdf_vprot_expected(m, q, q->curr);

	if (q->curr->vprot == want)
		return true;
	return fail(f, EEVDF_VPROT, (s64)want, (s64)q->curr->vprot, NULL);
}

/*
 * pick_eevdf() returns the eligible entity with the earliest deadline
 * (curr included): no tree entity may be eligible with an earlier one.
 */
bool eevdf_check_earliest(const struct eevdf_model *m, const struct eevdf_queue *q,
			  const struct eevdf_entity *ents, u32 n,
			  struct eevdf_finding *f)
{
	const struct eevdf_entity *c = q->curr;
	u32 i;

	for (i = 0; i < n; i++) {
		const struct eevdf_entity *e = &ents[i];

		if (v_before(e->deadline, c->deadline) &&
		    eevdf_vruntime_eligible(m, q, e->vruntime))
			return fail(f, EEVDF_EARLIEST, (s64)e->deadline,
				    (s64)c->deadline, e);
	}
	return true;
}

/* Lemma 2 as stored: S and W are exactly the sums over the tree. */
bool eevdf_check_sums(const struct eevdf_model *m, const struct eevdf_queue *q,
		      const struct eevdf_entity *ents, u32 n,
		      struct eevdf_finding *f)
{
	__int128_t s = 0;
	u64 w = 0;
	u32 i;

	for (i = 0; i < n; i++) {
		u64 wi = eevdf_sum_weight(m, q, &ents[i]);

		s += (__int128_t)key_of(q, ents[i].vruntime) * wi;
		w += wi;
	}
	if (w != q->sum_weight)
		return fail(f, EEVDF_SUMS, (s64)w, (s64)q->sum_weight, NULL);
	if (s != (__int128_t)q->sum_w_vruntime)
		return fail(f, EEVDF_SUMS, (s64)s, q->sum_w_vruntime, NULL);
	return true;
}

/*
 * The tree is ordered by deadline and augmented as a heap on vruntime:
 * min_vruntime = min(vruntime, children's min_vruntime), which is what lets
 * pick_eevdf() prune a subtree with no eligible entity.
 */
bool eevdf_check_augment(const struct eevdf_entity *ents, u32 n, struct eevdf_finding *f)
{
	u32 i;

	for (i = 0; i < n; i++) {
		const struct eevdf_entity *e = &ents[i];
		u64 mv = e->vruntime;

		if (e->has_right)
			mv = v_min(mv, e->r_min_vruntime);
		if (e->has_left)
			mv = v_min(mv, e->l_min_vruntime);
		if (mv != e->min_vruntime)
			return fail(f, EEVDF_AUGMENT, (s64)mv, (s64)e->min_vruntime, e);
	}
	return true;
}

/*
 * min_slice (the shortest slice queued, for the protected slice and a
 * group's own slice) and max_slice (the lag limit) are kept the same way.
 */
bool eevdf_check_augment_slice(const struct eevdf_entity *ents, u32 n, bool has_max_slice,
			       struct eevdf_finding *f)
{
	u32 i;

	for (i = 0; i < n; i++) {
		const struct eevdf_entity *e = &ents[i];
		u64 mins = e->slice, maxs = e->slice;

		if (e->has_right) {
			if (e->r_min_slice < mins)
				mins = e->r_min_slice;
			if (e->r_max_slice > maxs)
				maxs = e->r_max_slice;
		}
		if (e->has_left) {
			if (e->l_min_slice < mins)
				mins = e->l_min_slice;
			if (e->l_max_slice > maxs)
				maxs = e->l_max_slice;
		}
		if (mins != e->min_slice)
			return fail(f, EEVDF_AUGMENT_SLICE, (s64)mins, (s64)e->min_slice, e);
		if (has_max_slice && maxs != e->max_slice)
			return fail(f, EEVDF_AUGMENT_SLICE, (s64)maxs, (s64)e->max_slice, e);
	}
	return true;
}

static bool product_ok(__int128_t p)
{
	return p < EEVDF_PRODUCT_LIMIT && p > -EEVDF_PRODUCT_LIMIT;
}

/*
 * Each (v_i - v0) * w_i, and S, must stay below 2^62 (the kernel warns
 * past it); where eligibility is computed in 64 bits (low-resolution sums)
 * (v_i - v0) * W must too, or the comparison silently wraps.
 */
bool eevdf_check_overflow(const struct eevdf_model *m, const struct eevdf_queue *q,
			  const struct eevdf_entity *ents, u32 n,
			  struct eevdf_finding *f)
{
	u64 load = q->sum_weight;
	u32 i;

	if (q->curr && q->curr->on_rq)
		load += eevdf_sum_weight(m, q, q->curr);
	if (!product_ok(q->sum_w_vruntime))
		return fail(f, EEVDF_OVERFLOW, EEVDF_PRODUCT_LIMIT,
			    abs_s64(q->sum_w_vruntime), NULL);
	for (i = 0; i <= n; i++) {
		const struct eevdf_entity *e = i < n ? &ents[i] : q->curr;
		__int128_t k;

		if (!e)
			continue;
		k = key_of(q, e->vruntime);
		if (!product_ok(k * (__int128_t)eevdf_sum_weight(m, q, e)) ||
		    (m->sum_scale_down && !product_ok(k * (__int128_t)load)))
			return fail(f, EEVDF_OVERFLOW, EEVDF_PRODUCT_LIMIT,
				    abs_s64(key_of(q, e->vruntime)), e);
	}
	return true;
}
