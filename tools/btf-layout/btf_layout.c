// SPDX-License-Identifier: GPL-2.0
/*
 * btf_layout - turn a kernel's BTF into a C header of struct layouts.
 *
 * Usage: btf_layout BTF_FILE SPEC_FILE > layout.h
 *
 * Approach
 * --------
 * The kernel module needs to reach private scheduler structures (struct rq,
 * struct cfs_rq, ...) whose layout changes from kernel to kernel and config
 * to config. Instead of hand-maintained offsets, we read the target kernel's
 * raw BTF blob (the format of /sys/kernel/btf/vmlinux, or the .BTF section
 * of an ELF file) and answer a list of questions from a spec file:
 *
 *	member rq.cfs.avg.util_avg	offset/size/signedness/bitfield info
 *	size rq				sizeof(struct rq)
 *	var runqueues			is there a BTF_KIND_VAR of that name?
 *	func find_proxy_task		is there a BTF_KIND_FUNC of that name?
 *	enum_value LCB_F_MUTEX		is there such an enumerator, and its value
 *
 * The answers are printed as #defines (SL_HAS_*, SL_OFF_*, ...). Something
 * that does not exist in this BTF is not an error: it yields SL_HAS_* 0 and
 * no value macros, so code using a value without checking fails to compile.
 *
 * Processing is in three steps:
 *  1. The spec is parsed completely first, so syntax errors are reported
 *     (file:line, exit 2) before any work is done.
 *  2. The BTF file is read into memory and validated in one linear pass
 *     that indexes every type (each kind's trailing-data size is known), and
 *     a second pass checks every name offset and every referenced type id.
 *     After that, any type id or string offset found in the blob can be used
 *     without further bounds checks. What cannot be checked up front (loops
 *     through typedefs or anonymous members, overflowing sizes) is caught by
 *     depth limits and overflow checks while resolving. Any inconsistency is
 *     reported with exit status 2; the program never trusts the blob.
 *  3. Each spec item is answered by linear scans over the type index (a
 *     spec has tens of items and vmlinux ~150k types, which is fast enough),
 *     and the output is collected in memory and written only on success, so
 *     a failure never leaves half a header behind.
 *
 * Only the little-endian (host order) BTF format, version 1, is accepted.
 * Split BTF (kernel module BTF that refers to vmlinux type ids) is not
 * supported: references past the blob's own types are reported as invalid.
 *
 * The BTF definitions are written out here rather than taken from
 * <linux/btf.h>, so the tool builds with any libc headers and does not
 * depend on how recent the host's linux-libc-dev is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- BTF format (include/uapi/linux/btf.h, Documentation/bpf/btf.rst) ---- */

#define BTF_MAGIC		0xeB9F
#define BTF_VERSION		1
#define BTF_HDR_SIZE		24	/* struct btf_header */
#define BTF_TYPE_SIZE		12	/* struct btf_type */

enum btf_kind {
	KIND_UNKN = 0,
	KIND_INT = 1,
	KIND_PTR = 2,
	KIND_ARRAY = 3,
	KIND_STRUCT = 4,
	KIND_UNION = 5,
	KIND_ENUM = 6,
	KIND_FWD = 7,
	KIND_TYPEDEF = 8,
	KIND_VOLATILE = 9,
	KIND_CONST = 10,
	KIND_RESTRICT = 11,
	KIND_FUNC = 12,
	KIND_FUNC_PROTO = 13,
	KIND_VAR = 14,
	KIND_DATASEC = 15,
	KIND_FLOAT = 16,
	KIND_DECL_TAG = 17,
	KIND_TYPE_TAG = 18,
	KIND_ENUM64 = 19,
	KIND_MAX = KIND_ENUM64,
};

#define INFO_KIND(info)		(((info) >> 24) & 0x1f)
#define INFO_VLEN(info)		((info) & 0xffff)
#define INFO_KFLAG(info)	((info) >> 31)

/* Trailing u32 of BTF_KIND_INT */
#define INT_ENCODING(v)		(((v) & 0x0f000000) >> 24)
#define INT_OFFSET(v)		(((v) & 0x00ff0000) >> 16)
#define INT_BITS(v)		((v) & 0x000000ff)
#define INT_SIGNED		(1 << 0)

/* btf_member.offset when the struct's kind_flag is set */
#define MEMBER_BITFIELD_SIZE(v)	((v) >> 24)
#define MEMBER_BIT_OFFSET(v)	((v) & 0xffffff)

/* Loops in a corrupt blob are cut off by these limits. */
#define MAX_MOD_CHAIN		64	/* typedef/const/... hops */
#define MAX_NESTING		64	/* anonymous members, array dimensions */
#define MAX_LOOKUP_STEPS	(1u << 22) /* members visited per lookup */
#define MAX_FILE_SIZE		(1u << 30)

#define EXIT_INVALID		2	/* bad BTF, bad spec, bad usage */

/* ---- small helpers ---- */

static const char *prog = "btf_layout";

static void __attribute__((noreturn, format(printf, 2, 3)))
die(int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die(1, "out of memory");
	return p;
}

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die(1, "out of memory");
	return p;
}

/* ---- the loaded BTF ---- */

struct btf {
	const char *path;
	uint8_t *data;		/* whole file */
	size_t size;
	const uint8_t *types;	/* type section */
	uint32_t types_len;
	const char *strs;	/* string section, NUL terminated */
	uint32_t strs_len;
	uint32_t *off;		/* off[id]: byte offset of type id in types */
	uint32_t nr;		/* number of ids, including void (id 0) */
	uint32_t ptr_size;
};

static struct btf btf;

static void __attribute__((noreturn, format(printf, 1, 2)))
die_btf(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: invalid BTF: ", prog, btf.path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_INVALID);
}

/* Unaligned-safe load; all BTF fields are host-endian u32/u16. */
static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint16_t rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* A decoded struct btf_type; "extra" points at the kind's trailing data. */
struct type {
	uint32_t id;
	uint32_t name_off;
	uint32_t kind;
	uint32_t vlen;
	bool kflag;
	uint32_t size_type;	/* the size/type union */
	const uint8_t *extra;
};

static struct type get_type(uint32_t id)
{
	struct type t = { .id = id };
	const uint8_t *p;
	uint32_t info;

	if (id == 0 || id >= btf.nr) {
		/* id 0 is void; callers check kinds, so report it as UNKN. */
		if (id != 0)
			die_btf("type id %" PRIu32 " out of range", id);
		return t;
	}
	p = btf.types + btf.off[id];
	info = rd32(p + 4);
	t.name_off = rd32(p);
	t.kind = INFO_KIND(info);
	t.vlen = INFO_VLEN(info);
	t.kflag = INFO_KFLAG(info);
	t.size_type = rd32(p + 8);
	t.extra = p + BTF_TYPE_SIZE;
	return t;
}

/* Name offsets are validated at load time, so this is always in bounds. */
static const char *str_at(uint32_t off)
{
	return btf.strs + off;
}

/* Size of the trailing data of a type record, or -1 for an unknown kind. */
static int64_t extra_size(uint32_t kind, uint32_t vlen)
{
	switch (kind) {
	case KIND_INT:
	case KIND_VAR:
	case KIND_DECL_TAG:
		return 4;
	case KIND_ARRAY:
		return 12;
	case KIND_STRUCT:
	case KIND_UNION:
	case KIND_DATASEC:
	case KIND_ENUM64:
		return 12 * (int64_t)vlen;
	case KIND_ENUM:
	case KIND_FUNC_PROTO:
		return 8 * (int64_t)vlen;
	case KIND_PTR:
	case KIND_FWD:
	case KIND_TYPEDEF:
	case KIND_VOLATILE:
	case KIND_CONST:
	case KIND_RESTRICT:
	case KIND_FUNC:
	case KIND_FLOAT:
	case KIND_TYPE_TAG:
		return 0;
	default:
		return -1;
	}
}

static void read_file(const char *path, uint8_t **datap, size_t *sizep)
{
	size_t cap = 1 << 20, len = 0;
	uint8_t *buf;
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(EXIT_INVALID, "%s: cannot open: %s", path, strerror(errno));
	/* sysfs files may report a wrong size; use it only as a hint. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size < MAX_FILE_SIZE)
		cap = (size_t)st.st_size + 1;
	buf = xrealloc(NULL, cap);
	for (;;) {
		ssize_t n;

		if (len == cap) {
			if (cap >= MAX_FILE_SIZE)
				die(EXIT_INVALID, "%s: file too large", path);
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die(EXIT_INVALID, "%s: read error: %s", path,
			    strerror(errno));
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	*datap = buf;
	*sizep = len;
}

static void check_name(uint32_t id, uint32_t name_off)
{
	if (name_off >= btf.strs_len)
		die_btf("type id %" PRIu32 ": name offset %" PRIu32
			" past string section (%" PRIu32 " bytes)",
			id, name_off, btf.strs_len);
}

static void check_ref(uint32_t id, uint32_t ref)
{
	if (ref >= btf.nr)
		die_btf("type id %" PRIu32 " refers to type id %" PRIu32
			", but there are only %" PRIu32 " types",
			id, ref, btf.nr - 1);
}

/* Check every name offset and type reference of one type. */
static void validate_type(uint32_t id)
{
	struct type t = get_type(id);
	uint32_t i;

	check_name(id, t.name_off);
	switch (t.kind) {
	case KIND_PTR:
	case KIND_TYPEDEF:
	case KIND_VOLATILE:
	case KIND_CONST:
	case KIND_RESTRICT:
	case KIND_FUNC:
	case KIND_VAR:
	case KIND_DECL_TAG:
	case KIND_TYPE_TAG:
	case KIND_FUNC_PROTO:	/* size_type is the return type */
		check_ref(id, t.size_type);
		break;
	default:
		break;
	}
	switch (t.kind) {
	case KIND_ARRAY:
		check_ref(id, rd32(t.extra));		/* element type */
		check_ref(id, rd32(t.extra + 4));	/* index type */
		break;
	case KIND_STRUCT:
	case KIND_UNION:
		for (i = 0; i < t.vlen; i++) {
			check_name(id, rd32(t.extra + 12 * i));
			check_ref(id, rd32(t.extra + 12 * i + 4));
		}
		break;
	case KIND_ENUM:
		for (i = 0; i < t.vlen; i++)
			check_name(id, rd32(t.extra + 8 * i));
		break;
	case KIND_ENUM64:
		for (i = 0; i < t.vlen; i++)
			check_name(id, rd32(t.extra + 12 * i));
		break;
	case KIND_FUNC_PROTO:
		for (i = 0; i < t.vlen; i++) {
			check_name(id, rd32(t.extra + 8 * i));
			check_ref(id, rd32(t.extra + 8 * i + 4));
		}
		break;
	case KIND_DATASEC:
		for (i = 0; i < t.vlen; i++)
			check_ref(id, rd32(t.extra + 12 * i));
		break;
	default:
		break;
	}
}

/* Pointer size: that of "long", as libbpf determines it; else 8. */
static uint32_t find_ptr_size(void)
{
	static const char *const longs[] = {
		"long int", "long unsigned int", "long", "unsigned long",
	};
	uint32_t id;
	size_t i;

	for (id = 1; id < btf.nr; id++) {
		struct type t = get_type(id);

		if (t.kind != KIND_INT)
			continue;
		for (i = 0; i < sizeof(longs) / sizeof(longs[0]); i++)
			if (!strcmp(str_at(t.name_off), longs[i]) &&
			    (t.size_type == 4 || t.size_type == 8))
				return t.size_type;
	}
	return 8;
}

static void load_btf(const char *path)
{
	uint32_t hdr_len, type_off, type_len, str_off, str_len, pos, cap, id;
	uint64_t body;
	const uint8_t *d;

	btf.path = path;
	read_file(path, &btf.data, &btf.size);
	d = btf.data;
	if (btf.size < BTF_HDR_SIZE)
		die_btf("file is %zu bytes, shorter than a BTF header",
			btf.size);
	if (rd16(d) != BTF_MAGIC) {
		if (rd16(d) == 0x9FeB)
			die_btf("byte-swapped (foreign endian) BTF is not supported");
		die_btf("bad magic 0x%04x (want 0x%04x)", rd16(d), BTF_MAGIC);
	}
	if (d[2] != BTF_VERSION)
		die_btf("unsupported version %u", d[2]);
	hdr_len = rd32(d + 4);
	type_off = rd32(d + 8);
	type_len = rd32(d + 12);
	str_off = rd32(d + 16);
	str_len = rd32(d + 20);
	if (hdr_len < BTF_HDR_SIZE || hdr_len > btf.size)
		die_btf("header length %" PRIu32 " does not fit file of %zu bytes",
			hdr_len, btf.size);
	body = btf.size - hdr_len;
	if ((uint64_t)type_off + type_len > body)
		die_btf("type section [%" PRIu32 ", +%" PRIu32
			") extends past end of file (%" PRIu64 " bytes of data)",
			type_off, type_len, body);
	if ((uint64_t)str_off + str_len > body)
		die_btf("string section [%" PRIu32 ", +%" PRIu32
			") extends past end of file (%" PRIu64 " bytes of data)",
			str_off, str_len, body);
	if (type_len && str_len &&
	    (type_off < str_off ? (uint64_t)type_off + type_len > str_off :
				  (uint64_t)str_off + str_len > type_off))
		die_btf("type and string sections overlap");
	if (str_len == 0 || d[hdr_len + str_off] != '\0' ||
	    d[hdr_len + str_off + str_len - 1] != '\0')
		die_btf("string section must start and end with a NUL byte");
	btf.types = d + hdr_len + type_off;
	btf.types_len = type_len;
	btf.strs = (const char *)d + hdr_len + str_off;
	btf.strs_len = str_len;

	/* Pass 1: index every type record. */
	cap = type_len / BTF_TYPE_SIZE + 2;
	btf.off = xrealloc(NULL, (size_t)cap * sizeof(*btf.off));
	btf.off[0] = 0;		/* void, never dereferenced */
	btf.nr = 1;
	pos = 0;
	while (pos < type_len) {
		uint32_t info;
		int64_t extra;

		if (type_len - pos < BTF_TYPE_SIZE)
			die_btf("type id %" PRIu32 " at offset %" PRIu32
				" is truncated", btf.nr, pos);
		info = rd32(btf.types + pos + 4);
		extra = extra_size(INFO_KIND(info), INFO_VLEN(info));
		if (INFO_KIND(info) == KIND_UNKN || extra < 0)
			die_btf("type id %" PRIu32 " has unknown kind %" PRIu32,
				btf.nr, INFO_KIND(info));
		if ((uint64_t)type_len - pos - BTF_TYPE_SIZE < (uint64_t)extra)
			die_btf("type id %" PRIu32 " (kind %" PRIu32
				") at offset %" PRIu32 " is truncated",
				btf.nr, INFO_KIND(info), pos);
		/* cap bounds nr: each record takes at least 12 bytes */
		btf.off[btf.nr++] = pos;
		pos += BTF_TYPE_SIZE + (uint32_t)extra;
	}

	/* Pass 2: names and references, now that the number of ids is known. */
	for (id = 1; id < btf.nr; id++)
		validate_type(id);

	btf.ptr_size = find_ptr_size();
}

/* ---- type resolution ---- */

static bool is_modifier(uint32_t kind)
{
	return kind == KIND_TYPEDEF || kind == KIND_VOLATILE ||
	       kind == KIND_CONST || kind == KIND_RESTRICT ||
	       kind == KIND_TYPE_TAG;
}

/* Follow typedef/const/volatile/restrict/type_tag to the underlying type. */
static struct type resolve(uint32_t id)
{
	struct type t = get_type(id);
	int hops = 0;

	while (is_modifier(t.kind)) {
		if (++hops > MAX_MOD_CHAIN)
			die_btf("type id %" PRIu32 ": modifier chain too long (loop?)",
				id);
		t = get_type(t.size_type);
	}
	return t;
}

static bool is_composite(const struct type *t)
{
	return t->kind == KIND_STRUCT || t->kind == KIND_UNION;
}

/* sizeof() of a type, as a C compiler would compute it. */
static uint64_t type_size(uint32_t id, int depth)
{
	struct type t = resolve(id);
	uint64_t elem;
	uint32_t nelems;

	if (depth > MAX_NESTING)
		die_btf("type id %" PRIu32 ": arrays nested too deep (loop?)", id);
	switch (t.kind) {
	case KIND_INT:
	case KIND_ENUM:
	case KIND_ENUM64:
	case KIND_STRUCT:
	case KIND_UNION:
	case KIND_FLOAT:
	case KIND_DATASEC:
		return t.size_type;
	case KIND_PTR:
		return btf.ptr_size;
	case KIND_ARRAY:
		nelems = rd32(t.extra + 8);
		elem = type_size(rd32(t.extra), depth + 1);
		if (elem && nelems > UINT64_MAX / 2 / elem)
			die_btf("type id %" PRIu32 ": array size overflows", t.id);
		return elem * nelems;
	default:
		die_btf("type id %" PRIu32 " (kind %" PRIu32
			") has no size, but is used as a member type",
			t.id, t.kind);
	}
}

/* Where a member lives, relative to the outermost struct. */
struct member_loc {
	uint64_t bit_off;	/* of the member (or its first bit) */
	uint32_t type;		/* member's declared type id */
	uint32_t bitfield_size;	/* 0: not a bitfield */
};

/*
 * Decode member i of struct/union t, whose start is base_bits into the
 * outermost struct. Handles both bitfield encodings: kind_flag set (size
 * in the member's offset word) and the older one where the bitfield is an
 * INT type with fewer bits than its size, possibly with a bit offset.
 */
static struct member_loc member_at(const struct type *t, uint32_t i,
				   uint64_t base_bits)
{
	const uint8_t *m = t->extra + 12 * i;
	uint32_t off = rd32(m + 8);
	struct member_loc loc = { .type = rd32(m + 4) };

	if (t->kflag) {
		loc.bit_off = base_bits + MEMBER_BIT_OFFSET(off);
		loc.bitfield_size = MEMBER_BITFIELD_SIZE(off);
	} else {
		struct type mt = resolve(loc.type);

		loc.bit_off = base_bits + off;
		if (mt.kind == KIND_INT) {
			uint32_t enc = rd32(mt.extra);

			if (INT_BITS(enc) > 8 * (uint64_t)mt.size_type ||
			    INT_BITS(enc) + INT_OFFSET(enc) >
				    8 * (uint64_t)mt.size_type)
				die_btf("int type id %" PRIu32
					" has more bits than its size", mt.id);
			if (INT_OFFSET(enc) ||
			    INT_BITS(enc) != 8 * mt.size_type) {
				loc.bit_off += INT_OFFSET(enc);
				loc.bitfield_size = INT_BITS(enc);
			}
		}
	}
	return loc;
}

/*
 * Look for a member called name in struct/union t, descending into
 * anonymous struct/union members. On success fill *loc and return true.
 * lookup_steps bounds the work, since a corrupt blob can make the tree of
 * anonymous members exponentially large within the depth limit.
 */
static uint32_t lookup_steps;

static bool find_member(const struct type *t, const char *name,
			uint64_t base_bits, int depth, struct member_loc *loc)
{
	struct member_loc cand;
	struct type mt;
	uint32_t i;

	if (depth > MAX_NESTING)
		die_btf("type id %" PRIu32
			": anonymous members nested too deep (loop?)", t->id);
	for (i = 0; i < t->vlen; i++) {
		const char *mname = str_at(rd32(t->extra + 12 * i));

		if (++lookup_steps > MAX_LOOKUP_STEPS)
			die_btf("type id %" PRIu32
				": too many anonymous members (loop?)", t->id);
		cand = member_at(t, i, base_bits);
		if (*mname) {
			if (!strcmp(mname, name)) {
				*loc = cand;
				return true;
			}
			continue;
		}
		/* Anonymous member: transparent if it is a struct/union. */
		mt = resolve(cand.type);
		if (is_composite(&mt) && !cand.bitfield_size &&
		    find_member(&mt, name, cand.bit_off, depth + 1, loc))
			return true;
	}
	return false;
}

/*
 * Find the struct (preferred) or union called name: the first one with a
 * non-zero size, else the first empty one. As an extension, a typedef of
 * that name that resolves to a struct/union is accepted when there is no
 * struct/union of that name (e.g. typedef struct { ... } foo_t;).
 * Returns 0 if none; *dups counts other differing-size definitions.
 */
static uint32_t find_composite(const char *name, uint32_t *dups)
{
	uint32_t best[2][2] = { { 0 } }; /* [kind: struct, union][empty] */
	uint32_t id, pick = 0, td = 0;
	struct type p;
	int k, e;

	*dups = 0;
	for (id = 1; id < btf.nr; id++) {
		struct type t = get_type(id);

		if (t.kind != KIND_STRUCT && t.kind != KIND_UNION &&
		    t.kind != KIND_TYPEDEF)
			continue;
		if (strcmp(str_at(t.name_off), name))
			continue;
		if (t.kind == KIND_TYPEDEF) {
			if (!td)
				td = id;
			continue;
		}
		k = t.kind == KIND_UNION;
		e = t.size_type == 0;
		if (!best[k][e])
			best[k][e] = id;
	}
	for (k = 0; k < 2 && !pick; k++)
		for (e = 0; e < 2 && !pick; e++)
			pick = best[k][e];
	if (!pick && td) {
		struct type t = resolve(td);

		if (is_composite(&t))
			pick = t.id;
	}
	if (!pick)
		return 0;

	/* Count other non-empty definitions of a different size. */
	p = get_type(pick);
	for (id = 1; id < btf.nr; id++) {
		struct type t = get_type(id);

		if (t.kind == p.kind && id != pick && t.size_type &&
		    t.size_type != p.size_type &&
		    !strcmp(str_at(t.name_off), name))
			(*dups)++;
	}
	return pick;
}

static uint32_t find_named(uint32_t kind, const char *name)
{
	uint32_t id;

	for (id = 1; id < btf.nr; id++) {
		struct type t = get_type(id);

		if (t.kind == kind && !strcmp(str_at(t.name_off), name))
			return id;
	}
	return 0;
}

static bool is_signed(uint32_t type)
{
	struct type t = resolve(type);

	if (t.kind == KIND_INT)
		return INT_ENCODING(rd32(t.extra)) & INT_SIGNED;
	if (t.kind == KIND_ENUM || t.kind == KIND_ENUM64)
		return t.kflag;
	return false;
}

/* ---- spec file ---- */

enum item_kind { ITEM_MEMBER, ITEM_SIZE, ITEM_VAR, ITEM_FUNC, ITEM_ENUM };

static const struct {
	const char *word;
	enum item_kind kind;
	bool dotted;		/* argument may be a dotted path */
} directives[] = {
	{ "member", ITEM_MEMBER, true },
	{ "size", ITEM_SIZE, false },
	{ "var", ITEM_VAR, false },
	{ "func", ITEM_FUNC, false },
	{ "enum_value", ITEM_ENUM, false },
};

struct item {
	enum item_kind kind;
	char *arg;		/* as written, e.g. rq.cfs.avg.util_avg */
	char *id;		/* macro suffix, e.g. rq__cfs__avg__util_avg */
	unsigned int line;
};

static struct item *items;
static size_t nr_items;

static void __attribute__((noreturn, format(printf, 3, 4)))
die_spec(const char *path, unsigned int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s:%u: ", prog, path, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_INVALID);
}

static bool is_ident_start(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool is_ident_char(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

/* Validate a (possibly dotted) identifier; NULL if fine, else why not. */
static const char *bad_ident(const char *s, bool dotted)
{
	const char *comp = s;

	for (;; s++) {
		if (*s == '.' || *s == '\0') {
			if (s == comp)
				return "empty path component";
			if (*s == '\0')
				return NULL;
			if (!dotted)
				return "'.' is only allowed in member paths";
			comp = s + 1;
		} else if (!is_ident_char(*s)) {
			return "invalid character (allowed: A-Z a-z 0-9 _ .)";
		} else if (s == comp && !is_ident_start(*s)) {
			return "identifier starts with a digit";
		}
	}
}

static char *macro_id(const char *arg)
{
	size_t n = strlen(arg), dots = 0, i;
	char *out, *o;

	for (i = 0; i < n; i++)
		dots += arg[i] == '.';
	out = o = xrealloc(NULL, n + dots + 1);
	for (i = 0; i < n; i++) {
		if (arg[i] == '.') {
			*o++ = '_';
			*o++ = '_';
		} else {
			*o++ = arg[i];
		}
	}
	*o = '\0';
	return out;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' ||
	       c == '\v' || c == '\f';
}

/* Split off the next whitespace-separated word of *sp, or return NULL. */
static char *next_word(char **sp)
{
	char *s = *sp, *w;

	while (is_space(*s))
		s++;
	if (!*s)
		return NULL;
	w = s;
	while (*s && !is_space(*s))
		s++;
	if (*s)
		*s++ = '\0';
	*sp = s;
	return w;
}

static void parse_spec(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *s, *word, *arg;
	const char *why;
	size_t cap = 0, i, j;
	unsigned int lineno = 0;
	struct item it;
	ssize_t len;
	bool dup;

	if (!f)
		die(EXIT_INVALID, "%s: cannot open: %s", path, strerror(errno));
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (memchr(line, '\0', (size_t)len))
			die_spec(path, lineno, "NUL byte in line");
		s = strchr(line, '#');
		if (s)
			*s = '\0';
		s = line;
		word = next_word(&s);
		if (!word)
			continue;
		for (i = 0; i < sizeof(directives) / sizeof(directives[0]); i++)
			if (!strcmp(word, directives[i].word))
				break;
		if (i == sizeof(directives) / sizeof(directives[0]))
			die_spec(path, lineno,
				 "unknown directive '%s' (want member, size, var, func or enum_value)",
				 word);
		arg = next_word(&s);
		if (!arg)
			die_spec(path, lineno, "'%s' needs an argument", word);
		if (next_word(&s))
			die_spec(path, lineno, "trailing text after '%s %s'",
				 word, arg);
		why = bad_ident(arg, directives[i].dotted);
		if (why)
			die_spec(path, lineno, "bad identifier '%s': %s", arg,
				 why);
		if (directives[i].kind == ITEM_MEMBER && !strchr(arg, '.'))
			die_spec(path, lineno,
				 "member path '%s' needs at least struct.member",
				 arg);
		it = (struct item){
			.kind = directives[i].kind,
			.arg = xstrdup(arg),
			.id = macro_id(arg),
			.line = lineno,
		};

		/* Identical repeats are dropped; clashing macro names are not. */
		dup = false;
		for (j = 0; j < nr_items; j++) {
			if (items[j].kind != it.kind || strcmp(items[j].id, it.id))
				continue;
			if (strcmp(items[j].arg, it.arg))
				die_spec(path, lineno,
					 "'%s' and '%s' (line %u) map to the same macro name",
					 it.arg, items[j].arg, items[j].line);
			dup = true;
		}
		if (dup) {
			free(it.arg);
			free(it.id);
			continue;
		}
		items = xrealloc(items, (nr_items + 1) * sizeof(*items));
		items[nr_items++] = it;
	}
	if (ferror(f))
		die(EXIT_INVALID, "%s: read error", path);
	free(line);
	fclose(f);
}

/* ---- output ---- */

static FILE *out;

/* Print s inside a C comment: only harmless characters, no comment end. */
static void put_comment_text(const char *s)
{
	for (; *s; s++) {
		char c = *s;

		if (!(is_ident_char(c) || strchr("./-+,:@=~ ", c)))
			c = '?';
		fputc(c, out);
	}
}

static void emit_member(const struct item *it)
{
	char *path = xstrdup(it->arg), *comp, *save = NULL;
	const char *id = it->id, *prev;
	struct member_loc loc = { 0 }, next;
	struct type cur;
	uint32_t sid, dups;
	uint64_t size;

	fprintf(out, "/* member %s */\n", it->arg);
	comp = strtok_r(path, ".", &save);
	sid = find_composite(comp, &dups);
	if (!sid) {
		fprintf(out, "/* missing: no struct or union '%s' */\n", comp);
		goto absent;
	}
	if (dups)
		fprintf(out,
			"/* note: %" PRIu32 " other definition(s) of '%s' with another size; using type id %" PRIu32 " */\n",
			dups, comp, sid);
	cur = get_type(sid);
	prev = comp;
	while ((comp = strtok_r(NULL, ".", &save))) {
		if (!is_composite(&cur)) {
			fprintf(out,
				"/* missing: '%s' is not a struct or union, cannot look up '%s' */\n",
				prev, comp);
			goto absent;
		}
		lookup_steps = 0;
		if (!find_member(&cur, comp, loc.bit_off, 0, &next)) {
			fprintf(out, "/* missing: no member '%s' in '%s' */\n",
				comp, prev);
			goto absent;
		}
		loc = next;
		cur = resolve(loc.type);
		prev = comp;
	}

	size = type_size(loc.type, 0);
	if (!loc.bitfield_size && loc.bit_off % 8)
		die_btf("member '%s' is not byte aligned and not a bitfield",
			it->arg);
	fprintf(out, "#define SL_HAS_%s 1\n", id);
	fprintf(out, "#define SL_OFF_%s %" PRIu64 "\n", id, loc.bit_off / 8);
	fprintf(out, "#define SL_SZ_%s %" PRIu64 "\n", id, size);
	fprintf(out, "#define SL_SIGNED_%s %d\n", id, is_signed(loc.type));
	fprintf(out, "#define SL_BITFIELD_%s %d\n", id, loc.bitfield_size != 0);
	if (loc.bitfield_size) {
		fprintf(out, "#define SL_BITOFF_%s %" PRIu64 "\n", id,
			loc.bit_off % 8);
		fprintf(out, "#define SL_BITSZ_%s %" PRIu32 "\n", id,
			loc.bitfield_size);
	}
	free(path);
	return;
absent:
	fprintf(out, "#define SL_HAS_%s 0\n", id);
	free(path);
}

static void emit_size(const struct item *it)
{
	uint32_t dups, sid = find_composite(it->arg, &dups);

	fprintf(out, "/* size %s */\n", it->arg);
	if (!sid) {
		fprintf(out, "/* missing: no struct or union '%s' */\n", it->arg);
		fprintf(out, "#define SL_HAS_SIZE_%s 0\n", it->id);
		return;
	}
	if (dups)
		fprintf(out,
			"/* note: %" PRIu32 " other definition(s) of '%s' with another size; using type id %" PRIu32 " */\n",
			dups, it->arg, sid);
	fprintf(out, "#define SL_HAS_SIZE_%s 1\n", it->id);
	fprintf(out, "#define SL_SIZE_%s %" PRIu32 "\n", it->id,
		get_type(sid).size_type);
}

/* Print an enumerator value as a C constant of a suitable type. */
static void put_enum_value(bool is_signed_val, uint64_t v)
{
	if (is_signed_val && (int64_t)v < 0) {
		int64_t s = (int64_t)v;

		if (s == INT64_MIN)
			fprintf(out, "(-9223372036854775807LL - 1)");
		else if (s >= INT32_MIN + 1)
			fprintf(out, "(%" PRId64 ")", s);
		else
			fprintf(out, "(%" PRId64 "LL)", s);
	} else if (v <= INT32_MAX) {
		fprintf(out, "%" PRIu64, v);
	} else if (v <= UINT32_MAX && !is_signed_val) {
		fprintf(out, "%" PRIu64 "U", v);
	} else if (v <= INT64_MAX) {
		fprintf(out, "%" PRIu64 "LL", v);
	} else {
		fprintf(out, "%" PRIu64 "ULL", v);
	}
}

static void emit_enum(const struct item *it)
{
	uint32_t id, i, found_id = 0, conflicts = 0;
	uint64_t val = 0;
	bool sgn = false;

	for (id = 1; id < btf.nr; id++) {
		struct type t = get_type(id);
		uint32_t stride;

		if (t.kind == KIND_ENUM)
			stride = 8;
		else if (t.kind == KIND_ENUM64)
			stride = 12;
		else
			continue;
		for (i = 0; i < t.vlen; i++) {
			const uint8_t *e = t.extra + stride * i;
			uint64_t v;

			if (strcmp(str_at(rd32(e)), it->arg))
				continue;
			/*
			 * As libbpf does: kind_flag set means signed values,
			 * otherwise unsigned.
			 */
			if (t.kind == KIND_ENUM)
				v = t.kflag ? (uint64_t)(int64_t)(int32_t)rd32(e + 4)
					    : rd32(e + 4);
			else
				v = rd32(e + 4) | (uint64_t)rd32(e + 8) << 32;
			if (!found_id) {
				found_id = id;
				val = v;
				sgn = t.kflag;
			} else if (v != val) {
				conflicts++;
			}
		}
	}
	fprintf(out, "/* enum_value %s */\n", it->arg);
	if (!found_id) {
		fprintf(out, "#define SL_HAS_ENUM_%s 0\n", it->id);
		return;
	}
	if (conflicts)
		fprintf(out,
			"/* note: %" PRIu32 " other enumerator(s) named '%s' with another value; using type id %" PRIu32 " */\n",
			conflicts, it->arg, found_id);
	fprintf(out, "#define SL_HAS_ENUM_%s 1\n", it->id);
	fprintf(out, "#define SL_ENUM_%s ", it->id);
	put_enum_value(sgn, val);
	fputc('\n', out);
}

/*
 * Where a variable lives: the DATASEC that lists it (e.g. ".data..percpu")
 * and its offset inside that section. Two variables of one section keep
 * their distance in memory, which is how the module finds a private per-CPU
 * variable from an exported one.
 */
static void emit_var_placement(const struct item *it, uint32_t var_id)
{
	uint32_t id, i;

	for (id = 1; id < btf.nr; id++) {
		struct type t = get_type(id);

		if (t.kind != KIND_DATASEC)
			continue;
		for (i = 0; i < t.vlen; i++) {
			if (rd32(t.extra + 12 * i) != var_id)
				continue;
			fprintf(out, "#define SL_VARSEC_%s \"%s\"\n", it->id,
				str_at(t.name_off));
			fprintf(out, "#define SL_VAROFF_%s %" PRIu32 "UL\n", it->id,
				rd32(t.extra + 12 * i + 4));
			return;
		}
	}
	fprintf(out, "/* note: %s is in no DATASEC */\n", it->arg);
}

static void emit_named(const struct item *it)
{
	bool var = it->kind == ITEM_VAR;
	uint32_t id = find_named(var ? KIND_VAR : KIND_FUNC, it->arg);

	fprintf(out, "/* %s %s */\n", var ? "var" : "func", it->arg);
	fprintf(out, "#define SL_HAS_%s_%s %d\n", var ? "VAR" : "FUNC", it->id,
		id != 0);
	if (var && id)
		emit_var_placement(it, id);
}

int main(int argc, char **argv)
{
	char *buf = NULL;
	size_t len = 0, i;

	if (argc != 3) {
		fprintf(stderr, "usage: %s BTF_FILE SPEC_FILE > layout.h\n",
			prog);
		return EXIT_INVALID;
	}
	parse_spec(argv[2]);
	load_btf(argv[1]);

	out = open_memstream(&buf, &len);
	if (!out)
		die(1, "out of memory");
	fprintf(out, "/* SPDX-License-Identifier: GPL-2.0 */\n");
	fprintf(out, "/*\n * Generated by btf_layout from the BTF in ");
	put_comment_text(argv[1]);
	fprintf(out, "\n * (%" PRIu32 " types) according to ", btf.nr - 1);
	put_comment_text(argv[2]);
	fprintf(out, ".\n * Do not edit. SL_HAS_* says whether an item exists in this kernel;\n"
		" * the value macros are only defined when it does.\n */\n");
	fprintf(out, "#ifndef SCHEDLAB_LAYOUT_H\n#define SCHEDLAB_LAYOUT_H\n");
	for (i = 0; i < nr_items; i++) {
		fputc('\n', out);
		switch (items[i].kind) {
		case ITEM_MEMBER:
			emit_member(&items[i]);
			break;
		case ITEM_SIZE:
			emit_size(&items[i]);
			break;
		case ITEM_VAR:
		case ITEM_FUNC:
			emit_named(&items[i]);
			break;
		case ITEM_ENUM:
			emit_enum(&items[i]);
			break;
		}
	}
	fprintf(out, "\n#endif /* SCHEDLAB_LAYOUT_H */\n");
	if (fclose(out))
		die(1, "out of memory");

	if (fwrite(buf, 1, len, stdout) != len || fflush(stdout) ||
	    ferror(stdout))
		die(1, "error writing output: %s", strerror(errno));
	free(buf);
	return 0;
}
