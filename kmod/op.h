/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ubfab opcodes: one row per opcode of struct ubfab_sqe (op.c), which
 * validation and dispatch read everywhere, and an entry as the engine runs
 * it. Adding an opcode is a row in op.c, a runner and its uAPI doc.
 */
#ifndef _UBFAB_OP_H
#define _UBFAB_OP_H

#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/ubfab.h>

struct ubfab_loc;
struct ubfab_queue;

/**
 * struct ubfab_exec - one entry as the engine runs it
 * @sqe: the entry, copied out of the ring before anything in it is read
 * @result: the completion's result: set by the runner
 * @model_ns: the modeled time at which the entry completed on its queue's
 *	clock, in ns, the completion's: set when the entry is charged
 *	(ubfab_model_charge(), model.h)
 * @after_ps: 0, or the modeled time, in ps, before which the entry cannot
 *	end: the arrival of what satisfied a wait (model_sync.c)
 * @peer: where the other end of its last chunk that crossed a link sits,
 *	or NULL (model.h: ubfab_model_note())
 * @bytes: data bytes moved, also by an entry that failed midway
 * @plane: UBFAB_OPF_FABRIC entries: the plane the entry's walk starts from
 *	(route.h)
 * @plane_mask: bit p set when a chunk of it crossed plane p
 * @status: enum ubfab_cqe_status, as the entry completes
 *
 * The completion writers take everything they write from here.
 */
struct ubfab_exec {
	struct ubfab_sqe sqe;
	u64 result;
	u64 model_ns;
	u64 after_ps;
	const struct ubfab_loc *peer;
	u32 bytes;
	u32 plane;
	u32 plane_mask;
	u16 status;
};

/* What a runner returns when the entry holds the queue: it completes later. */
#define UBFAB_OP_HELD	U16_MAX

/*
 * struct ubfab_opdesc.flags: the entry crosses the fabric (it takes a
 * plane); bursts and the fast path take it; its length must be 1 ..
 * UBFAB_SQE_MAX_LENGTH.
 */
#define UBFAB_OPF_FABRIC	BIT(0)
#define UBFAB_OPF_FAST		BIT(1)
#define UBFAB_OPF_LENGTH	BIT(2)

/**
 * struct ubfab_opdesc - what the engine knows of one opcode
 * @unused: the bits of struct ubfab_sqe that must be 0: every field the
 *	opcode does not use (opcode, flags, user_data and __reserved aside)
 * @check: the opcode's own rules for the fields it uses, or NULL
 * @run: the runner; it sets the entry's @result and @bytes and returns
 *	enum ubfab_cqe_status or UBFAB_OP_HELD
 * @right: UBFAB_SEG_* an import must grant for the remote range
 * @flags: UBFAB_OPF_*
 */
struct ubfab_opdesc {
	struct ubfab_sqe unused;
	bool (*check)(const struct ubfab_sqe *sqe);
	u16 (*run)(struct ubfab_queue *q, struct ubfab_exec *ex);
	u32 right;
	u8 flags;
};

extern const struct ubfab_opdesc ubfab_ops[UBFAB_OP_WRITE_IMM + 1];

/*
 * What WRITE and READ do not use: the @unused of their rows, and of every
 * row with UBFAB_OPF_FAST (the KUnit suite ubfab-xfer checks), so that the
 * fast path checks entries against it as a constant.
 */
#define UBFAB_OP_DATA_UNUSED { .value = ~0ULL, .compare = ~0ULL, \
			       .notify = ~0ULL, .aux = ~0U, .timeout_ms = ~0U }

/* Whether the fields of @sqe that @unused marks are 0. */
static __always_inline bool ubfab_op_unused_zero(const struct ubfab_sqe *sqe,
						 const struct ubfab_sqe *unused)
{
	return !((sqe->length & unused->length) |
		 (sqe->local & unused->local) |
		 (sqe->remote & unused->remote) |
		 (sqe->value & unused->value) |
		 (sqe->compare & unused->compare) |
		 (sqe->notify & unused->notify) | (sqe->aux & unused->aux) |
		 (sqe->timeout_ms & unused->timeout_ms));
}

/*
 * Whether the opcode @opcode, as a look at an entry says, is one the
 * fast path takes (UBFAB_OPF_FAST).
 */
static __always_inline bool ubfab_op_fast(u8 opcode)
{
	return opcode < ARRAY_SIZE(ubfab_ops) &&
	       ubfab_ops[opcode].flags & UBFAB_OPF_FAST;
}

/* Whether flags and __reserved of @sqe are valid for any opcode. */
static __always_inline bool ubfab_op_header_ok(const struct ubfab_sqe *sqe)
{
	return !(sqe->flags & ~UBFAB_SQE_FLAGS) && !sqe->__reserved;
}

u16 ubfab_op_run(struct ubfab_queue *q, struct ubfab_exec *ex);

/* The runners, by file: xfer.c moves data, sync.c is the queue's own. */
u16 ubfab_xfer_run_data(struct ubfab_queue *q, struct ubfab_exec *ex);
u16 ubfab_xfer_run_atomic(struct ubfab_queue *q, struct ubfab_exec *ex);
u16 ubfab_xfer_run_local(struct ubfab_queue *q, struct ubfab_exec *ex);
u16 ubfab_xfer_run_msg(struct ubfab_queue *q, struct ubfab_exec *ex);
u16 ubfab_sync_run_nop(struct ubfab_queue *q, struct ubfab_exec *ex);
u16 ubfab_sync_run_record(struct ubfab_queue *q, struct ubfab_exec *ex);
u16 ubfab_sync_run_wait(struct ubfab_queue *q, struct ubfab_exec *ex);

#endif /* _UBFAB_OP_H */
