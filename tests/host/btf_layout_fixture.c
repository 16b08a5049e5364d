// SPDX-License-Identifier: GPL-2.0
/*
 * Fixture for tests/host/test_btf_layout.sh.
 *
 * These types are compiled with "gcc -g -c", converted to BTF with
 * "pahole -J" and fed to tools/btf-layout/btf_layout. The same file is then
 * #included into a checker program, so every offset and size that the tool
 * derives from BTF is compared with what the C compiler itself says
 * (offsetof/sizeof, or bit positions found at run time for bitfields).
 *
 * The shapes mimic what the kernel's scheduler structs use: nested structs,
 * anonymous unions and structs (several levels deep), typedefs, const and
 * volatile members, arrays, pointers, bitfields and enums.
 */
#include <stddef.h>

typedef unsigned long long fx_u64;
typedef long long fx_s64;
typedef unsigned int fx_u32;
typedef const volatile fx_u32 fx_cv_u32;

enum fx_state {
	FX_STATE_IDLE = 0,
	FX_STATE_RUNNING = 5,
	FX_STATE_BLOCKED = 0x7fffffff,
};

enum fx_small {
	FX_SMALL_A,
	FX_SMALL_B,
	FX_SMALL_C = 9,
};

enum fx_signed {
	FX_NEG = -3,
	FX_POS = 40,
};

enum fx_wide {
	FX_WIDE_SMALL = 1,
	FX_WIDE_BIG = 0x123456789aULL,
};

struct fx_avg {
	fx_u64 last_update_time;
	fx_u64 load_sum;
	fx_u32 util_sum;
	unsigned int period_contrib;
	unsigned long load_avg;
	unsigned long util_avg;
	unsigned int util_est;
};

struct fx_list {
	struct fx_list *next, *prev;
};

/* Reached only through a typedef and a const member. */
typedef struct {
	int lo;
	short hi;
} fx_pair_t;

struct fx_entity {
	struct fx_list run_node;
	unsigned char on_rq;
	/* A bitfield after a plain member, straddling a byte boundary. */
	unsigned int sched_delayed : 1;
	unsigned int rel_deadline : 1;
	unsigned int custom_slice : 11;
	signed int prio_adj : 5;
	fx_u64 vruntime;
	struct fx_avg avg;
	const fx_pair_t pair;
};

struct fx_cfs_rq {
	unsigned int nr_running;
	union {
		/* anonymous union with an anonymous struct inside */
		struct {
			fx_s64 avg_vruntime;
			fx_u64 avg_load;
		};
		char raw[24];
	};
	struct fx_avg avg;
	volatile long spread;
	struct fx_entity *curr;
	struct fx_entity *next_arr[3];
};

/*
 * Bitfields of several declared types. An enum bitfield can only be
 * described with the struct's kind_flag set; the int ones could also use
 * the older encoding (bit count in the INT type), which the test produces
 * by rewriting the BTF.
 */
struct fx_flags {
	unsigned int lo : 3;
	enum fx_small st : 4;
	fx_u32 td : 6;
	unsigned char tail;
	unsigned int after : 2;
	signed char sc : 3;
};

struct fx_rq {
	int __lock;
	unsigned int nr_running;
	signed char prio_bias;
	_Bool idle_balance;
	unsigned short nr_bits : 3;
	unsigned long long flags_word : 40;
	unsigned short tail_bits : 7;
	struct fx_cfs_rq cfs;
	struct fx_flags flags;
	union {
		struct {
			int anon_a;
			union {
				long anon_deep;
				struct {
					unsigned int deep_bf : 9;
					unsigned int deep_bf2 : 23;
				};
			};
		};
		fx_u64 anon_whole;
	};
	enum fx_state state;
	enum fx_signed sstate;
	enum fx_wide wide;
	fx_cv_u32 cv_counter;
	int matrix[4][3];
	fx_u64 clock;
	char name[16];
	struct fx_entity *curr;
};

/* A union as the outer type. */
union fx_u {
	fx_u64 whole;
	struct {
		fx_u32 low;
		fx_u32 high;
	};
	struct fx_avg nested;
};

/*
 * Globals and functions make gcc emit the types; pahole encodes global
 * functions as BTF_KIND_FUNC and, as for vmlinux, only per-CPU variables
 * (section .data..percpu) as BTF_KIND_VAR.
 */
struct fx_rq fx_runqueue;
union fx_u fx_union_var;
__attribute__((section(".data..percpu"))) struct fx_avg fx_percpu_avg;

int fx_pick_next(struct fx_rq *rq, const struct fx_cfs_rq *cfs);
int fx_pick_next(struct fx_rq *rq, const struct fx_cfs_rq *cfs)
{
	return (int)rq->nr_running + (int)cfs->nr_running;
}

unsigned long fx_entity_util(struct fx_entity *se, union fx_u *u);
unsigned long fx_entity_util(struct fx_entity *se, union fx_u *u)
{
	return se->avg.util_avg + (unsigned long)u->whole;
}
