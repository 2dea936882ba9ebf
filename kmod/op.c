// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab opcode table: for each opcode of struct ubfab_sqe, the fields it
 * must leave 0, its own field rules, the right it needs of an import,
 * whether it crosses the fabric and whether the fast path takes it, and
 * its runner; and ubfab_op_run(), which checks an entry against its row
 * and runs it. Every check of an entry's opcode class reads this table.
 *
 * The order of the checks is the order of enum ubfab_cqe_status: an
 * unknown opcode, then flags and __reserved, then the fields (BAD_ENTRY),
 * then whatever the runner checks (ranges, imports, rights, revocation,
 * route), before anything moves.
 */
#include <linux/nospec.h>

#include "engine.h"
#include "route.h"

/* Every field: NOP uses none. */
#define UBFAB_OP_ALL_UNUSED { .length = ~0U, .local = ~0ULL, \
			      .remote = ~0ULL, .value = ~0ULL, \
			      .compare = ~0ULL, .notify = ~0ULL, .aux = ~0U, \
			      .timeout_ms = ~0U }

static bool ubfab_op_check_notify(const struct ubfab_sqe *sqe)
{
	return IS_ALIGNED(sqe->notify, sizeof(u64));
}

/* Only CAS uses @compare. */
static bool ubfab_op_check_atomic(const struct ubfab_sqe *sqe)
{
	return IS_ALIGNED(sqe->remote, sizeof(u64)) &&
	       sqe->aux <= UBFAB_ATOMIC_FETCH_XOR &&
	       (sqe->aux == UBFAB_ATOMIC_CAS || !sqe->compare);
}

static bool ubfab_op_check_fill(const struct ubfab_sqe *sqe)
{
	return sqe->aux <= U8_MAX;
}

static bool ubfab_op_check_event(const struct ubfab_sqe *sqe)
{
	return sqe->aux < UBFAB_QUEUE_EVENTS;
}

static bool ubfab_op_check_wait_value(const struct ubfab_sqe *sqe)
{
	return IS_ALIGNED(sqe->local, sizeof(u64)) &&
	       sqe->aux <= UBFAB_WAIT_EQ;
}

/*
 * Messages: the token and the immediate are 32 bits, a SEND's eid too; a
 * SEND of no bytes names no local address.
 */
static bool ubfab_op_check_msg(const struct ubfab_sqe *sqe)
{
	return sqe->compare <= U32_MAX && sqe->value <= U32_MAX &&
	       sqe->length <= UBFAB_SQE_MAX_LENGTH &&
	       (sqe->opcode == UBFAB_OP_WRITE_IMM ||
		(sqe->remote <= U32_MAX && (sqe->length || !sqe->local)));
}

const struct ubfab_opdesc ubfab_ops[UBFAB_OP_WRITE_IMM + 1] = {
	[UBFAB_OP_NOP] = {
		.unused = UBFAB_OP_ALL_UNUSED,
		.run = ubfab_sync_run_nop,
	},
	[UBFAB_OP_WRITE] = {
		.unused = UBFAB_OP_DATA_UNUSED,
		.run = ubfab_xfer_run_data,
		.right = UBFAB_SEG_WRITE,
		.flags = UBFAB_OPF_FABRIC | UBFAB_OPF_FAST | UBFAB_OPF_LENGTH,
	},
	[UBFAB_OP_READ] = {
		.unused = UBFAB_OP_DATA_UNUSED,
		.run = ubfab_xfer_run_data,
		.right = UBFAB_SEG_READ,
		.flags = UBFAB_OPF_FABRIC | UBFAB_OPF_FAST | UBFAB_OPF_LENGTH,
	},
	[UBFAB_OP_WRITE_NOTIFY] = {
		.unused = { .compare = ~0ULL, .aux = ~0U, .timeout_ms = ~0U },
		.check = ubfab_op_check_notify,
		.run = ubfab_xfer_run_data,
		.right = UBFAB_SEG_WRITE,
		.flags = UBFAB_OPF_FABRIC | UBFAB_OPF_LENGTH,
	},
	[UBFAB_OP_ATOMIC] = {
		.unused = { .length = ~0U, .local = ~0ULL, .notify = ~0ULL,
			    .timeout_ms = ~0U },
		.check = ubfab_op_check_atomic,
		.run = ubfab_xfer_run_atomic,
		.right = UBFAB_SEG_ATOMIC,
		.flags = UBFAB_OPF_FABRIC,
	},
	[UBFAB_OP_COPY] = {
		.unused = { .remote = ~0ULL, .compare = ~0ULL,
			    .notify = ~0ULL, .aux = ~0U, .timeout_ms = ~0U },
		.run = ubfab_xfer_run_local,
		.flags = UBFAB_OPF_LENGTH,
	},
	[UBFAB_OP_FILL] = {
		.unused = { .remote = ~0ULL, .value = ~0ULL, .compare = ~0ULL,
			    .notify = ~0ULL, .timeout_ms = ~0U },
		.check = ubfab_op_check_fill,
		.run = ubfab_xfer_run_local,
		.flags = UBFAB_OPF_LENGTH,
	},
	[UBFAB_OP_EVENT_RECORD] = {
		.unused = { .length = ~0U, .local = ~0ULL, .remote = ~0ULL,
			    .value = ~0ULL, .compare = ~0ULL, .notify = ~0ULL,
			    .timeout_ms = ~0U },
		.check = ubfab_op_check_event,
		.run = ubfab_sync_run_record,
	},
	[UBFAB_OP_EVENT_WAIT] = {
		.unused = { .length = ~0U, .local = ~0ULL, .remote = ~0ULL,
			    .compare = ~0ULL, .notify = ~0ULL },
		.check = ubfab_op_check_event,
		.run = ubfab_sync_run_wait,
	},
	[UBFAB_OP_WAIT_VALUE] = {
		.unused = { .length = ~0U, .remote = ~0ULL, .compare = ~0ULL,
			    .notify = ~0ULL },
		.check = ubfab_op_check_wait_value,
		.run = ubfab_sync_run_wait,
	},
	[UBFAB_OP_COMPUTE] = {
		.unused = { .length = ~0U, .local = ~0ULL, .remote = ~0ULL,
			    .compare = ~0ULL, .notify = ~0ULL, .aux = ~0U,
			    .timeout_ms = ~0U },
		.run = ubfab_sync_run_nop,
	},
	[UBFAB_OP_SEND] = {
		.unused = { .value = ~0ULL, .notify = ~0ULL,
			    .timeout_ms = ~0U },
		.check = ubfab_op_check_msg,
		.run = ubfab_xfer_run_msg,
		.flags = UBFAB_OPF_FABRIC,
	},
	[UBFAB_OP_SEND_IMM] = {
		.unused = { .notify = ~0ULL, .timeout_ms = ~0U },
		.check = ubfab_op_check_msg,
		.run = ubfab_xfer_run_msg,
		.flags = UBFAB_OPF_FABRIC,
	},
	[UBFAB_OP_WRITE_IMM] = {
		.unused = { .notify = ~0ULL, .timeout_ms = ~0U },
		.check = ubfab_op_check_msg,
		.run = ubfab_xfer_run_msg,
		.right = UBFAB_SEG_WRITE,
		.flags = UBFAB_OPF_FABRIC | UBFAB_OPF_LENGTH,
	},
};

/* Whether @sqe's fields follow its opcode's row @op. */
static bool ubfab_op_fields_ok(const struct ubfab_opdesc *op,
			       const struct ubfab_sqe *sqe)
{
	if (!ubfab_op_unused_zero(sqe, &op->unused))
		return false;
	if (op->flags & UBFAB_OPF_LENGTH &&
	    (!sqe->length || sqe->length > UBFAB_SQE_MAX_LENGTH))
		return false;
	/* the fast path takes none longer than the limit (xfer.h) */
	if (sqe->flags & UBFAB_SQE_MEMSEM &&
	    (!(op->flags & UBFAB_OPF_FABRIC) ||
	     sqe->length > UBFAB_SQE_MEMSEM_MAX_LENGTH))
		return false;
	return !op->check || op->check(sqe);
}

/**
 * ubfab_op_run() - check one entry against its opcode's row and run it
 * @q: the queue
 * @ex: the entry, copied out of the ring; its outputs are set
 *
 * A remote entry (UBFAB_OPF_FABRIC) takes its start plane from the
 * queue's plane cursor once its flags are checked, and a failure of it
 * counts an error on that plane (route.h).
 *
 * Context: the queue's run_lock held.
 * Return: enum ubfab_cqe_status, or UBFAB_OP_HELD when the entry holds
 * the queue.
 */
u16 ubfab_op_run(struct ubfab_queue *q, struct ubfab_exec *ex)
{
	const struct ubfab_sqe *sqe = &ex->sqe;
	const struct ubfab_opdesc *op;
	u16 status;

	if (sqe->opcode >= ARRAY_SIZE(ubfab_ops))
		return UBFAB_CQE_BAD_OPCODE;
	if (!ubfab_op_header_ok(sqe))
		return UBFAB_CQE_BAD_ENTRY;
	op = &ubfab_ops[array_index_nospec(sqe->opcode,
					   ARRAY_SIZE(ubfab_ops))];
	if (op->flags & UBFAB_OPF_FABRIC)
		ex->plane = ubfab_route_start(q);
	if (!ubfab_op_fields_ok(op, sqe))
		status = UBFAB_CQE_BAD_ENTRY;
	else
		status = op->run(q, ex);
	if (status != UBFAB_CQE_OK && status != UBFAB_OP_HELD &&
	    op->flags & UBFAB_OPF_FABRIC)
		ubfab_route_error(q, ex->plane);
	return status;
}
