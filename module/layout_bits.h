/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SCHEDLAB_LAYOUT_BITS_H
#define SCHEDLAB_LAYOUT_BITS_H

/*
 * Bitfield members of the BTF-derived layout (sched_layout.h: SL_OFF_ is
 * the byte of the first bit, SL_BITOFF_ the bit in it, SL_BITSZ_ the
 * width, SL_SZ_ the size of the declared type). A bitfield is read as the
 * naturally aligned storage unit of its declared type that holds it (how
 * the SysV ABI lays bitfields out: never past the struct's end), shifted
 * and masked; bits numbered from the least significant, as BTF does on
 * little-endian x86. Kernel-agnostic: compat.h reads the unit with
 * READ_ONCE (SL_READ_BITS), tests/host/test_btf_layout.sh checks these
 * against the compiler's own bitfields.
 */
#define SL_BITPOS(id)		(SL_OFF_##id * 8 + SL_BITOFF_##id)
/* byte offset of the storage unit */
#define SL_BITUNIT(id)		(SL_BITPOS(id) / (8 * SL_SZ_##id) * SL_SZ_##id)
#define SL_BITSHIFT(id)		(SL_BITPOS(id) - 8 * SL_BITUNIT(id))
#define SL_BITMASK(id)		((1ULL << SL_BITSZ_##id) - 1)
/* the field's bits out of its storage unit's value */
#define SL_BITS_OF(unit, id)	(((unsigned long long)(unit) >> SL_BITSHIFT(id)) & SL_BITMASK(id))
/* the field lies within one storage unit (false for packed layouts) */
#define SL_BITS_IN_UNIT(id)	(SL_BITSHIFT(id) + SL_BITSZ_##id <= 8 * SL_SZ_##id)

#endif
