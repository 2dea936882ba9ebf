/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ubfab tracepoints: the definitions of the events of trace system
 * "ubfab" (Documentation/tracing.rst lists them and how to record them).
 * Queue entries: submit (the doorbell), start, complete, flush; the links
 * the fabric model holds for them and the flag words their writes stamp;
 * the queue error state and its reset; port and plane state changes;
 * segment revocation. trace.c creates them; the engine, the model,
 * netlink.c and segment.c fire them. A disabled event costs a static-key nop where it fires:
 * everything an event records is worked out in its TP_fast_assign.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ubfab

#if !defined(_UBFAB_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _UBFAB_TRACE_H

#include <linux/ktime.h>
#include <linux/tracepoint.h>

#include "engine.h"
#include "mem.h"
#include "model.h"

/* Why a queue entered the error state (ubfab_queue_error). */
#define UBFAB_TRACE_ERR_ENTRY		0	/* an entry failed */
#define UBFAB_TRACE_ERR_BAD_TAIL	1	/* the user's SQ tail is invalid */

/* The uAPI's enums, as numbers in the events' format files. */
TRACE_DEFINE_ENUM(UBFAB_OP_NOP);
TRACE_DEFINE_ENUM(UBFAB_OP_WRITE);
TRACE_DEFINE_ENUM(UBFAB_OP_READ);
TRACE_DEFINE_ENUM(UBFAB_OP_WRITE_NOTIFY);
TRACE_DEFINE_ENUM(UBFAB_OP_ATOMIC);
TRACE_DEFINE_ENUM(UBFAB_OP_COPY);
TRACE_DEFINE_ENUM(UBFAB_OP_FILL);
TRACE_DEFINE_ENUM(UBFAB_OP_EVENT_RECORD);
TRACE_DEFINE_ENUM(UBFAB_OP_EVENT_WAIT);
TRACE_DEFINE_ENUM(UBFAB_OP_WAIT_VALUE);
TRACE_DEFINE_ENUM(UBFAB_OP_COMPUTE);
TRACE_DEFINE_ENUM(UBFAB_OP_SEND);
TRACE_DEFINE_ENUM(UBFAB_OP_SEND_IMM);
TRACE_DEFINE_ENUM(UBFAB_OP_WRITE_IMM);

TRACE_DEFINE_ENUM(UBFAB_CQE_OK);
TRACE_DEFINE_ENUM(UBFAB_CQE_BAD_OPCODE);
TRACE_DEFINE_ENUM(UBFAB_CQE_BAD_ENTRY);
TRACE_DEFINE_ENUM(UBFAB_CQE_LOCAL_RANGE);
TRACE_DEFINE_ENUM(UBFAB_CQE_NO_IMPORT);
TRACE_DEFINE_ENUM(UBFAB_CQE_REMOTE_RANGE);
TRACE_DEFINE_ENUM(UBFAB_CQE_ACCESS);
TRACE_DEFINE_ENUM(UBFAB_CQE_REVOKED);
TRACE_DEFINE_ENUM(UBFAB_CQE_NO_ROUTE);
TRACE_DEFINE_ENUM(UBFAB_CQE_TIMEOUT);
TRACE_DEFINE_ENUM(UBFAB_CQE_NOMEM);
TRACE_DEFINE_ENUM(UBFAB_CQE_FLUSHED);
TRACE_DEFINE_ENUM(UBFAB_CQE_RNR_RETRY_EXC);
TRACE_DEFINE_ENUM(UBFAB_CQE_REMOTE_LENGTH);
TRACE_DEFINE_ENUM(UBFAB_CQE_LOCAL_LENGTH);
TRACE_DEFINE_ENUM(UBFAB_CQE_REMOTE_OP);

TRACE_DEFINE_ENUM(UBFAB_LINK_PORT_TX);
TRACE_DEFINE_ENUM(UBFAB_LINK_PORT_RX);
TRACE_DEFINE_ENUM(UBFAB_LINK_L1_UP);
TRACE_DEFINE_ENUM(UBFAB_LINK_L2_DOWN);

TRACE_DEFINE_ENUM(UBFAB_STATE_DOWN);
TRACE_DEFINE_ENUM(UBFAB_STATE_UP);

TRACE_DEFINE_ENUM(UBFAB_REVOKE_UNEXPORT);
TRACE_DEFINE_ENUM(UBFAB_REVOKE_FREE);
TRACE_DEFINE_ENUM(UBFAB_REVOKE_CLOSE);
TRACE_DEFINE_ENUM(UBFAB_REVOKE_RESET);

#define ubfab_trace_opcode(op)						\
	__print_symbolic(op,						\
		{ UBFAB_OP_NOP,			"NOP" },		\
		{ UBFAB_OP_WRITE,		"WRITE" },		\
		{ UBFAB_OP_READ,		"READ" },		\
		{ UBFAB_OP_WRITE_NOTIFY,	"WRITE_NOTIFY" },	\
		{ UBFAB_OP_ATOMIC,		"ATOMIC" },		\
		{ UBFAB_OP_COPY,		"COPY" },		\
		{ UBFAB_OP_FILL,		"FILL" },		\
		{ UBFAB_OP_EVENT_RECORD,	"EVENT_RECORD" },	\
		{ UBFAB_OP_EVENT_WAIT,		"EVENT_WAIT" },		\
		{ UBFAB_OP_WAIT_VALUE,		"WAIT_VALUE" },		\
		{ UBFAB_OP_COMPUTE,		"COMPUTE" },		\
		{ UBFAB_OP_SEND,		"SEND" },		\
		{ UBFAB_OP_SEND_IMM,		"SEND_IMM" },		\
		{ UBFAB_OP_WRITE_IMM,		"WRITE_IMM" })

#define ubfab_trace_status(st)						\
	__print_symbolic(st,						\
		{ UBFAB_CQE_OK,			"OK" },			\
		{ UBFAB_CQE_BAD_OPCODE,		"BAD_OPCODE" },		\
		{ UBFAB_CQE_BAD_ENTRY,		"BAD_ENTRY" },		\
		{ UBFAB_CQE_LOCAL_RANGE,	"LOCAL_RANGE" },	\
		{ UBFAB_CQE_NO_IMPORT,		"NO_IMPORT" },		\
		{ UBFAB_CQE_REMOTE_RANGE,	"REMOTE_RANGE" },	\
		{ UBFAB_CQE_ACCESS,		"ACCESS" },		\
		{ UBFAB_CQE_REVOKED,		"REVOKED" },		\
		{ UBFAB_CQE_NO_ROUTE,		"NO_ROUTE" },		\
		{ UBFAB_CQE_TIMEOUT,		"TIMEOUT" },		\
		{ UBFAB_CQE_NOMEM,		"NOMEM" },		\
		{ UBFAB_CQE_FLUSHED,		"FLUSHED" },		\
		{ UBFAB_CQE_RNR_RETRY_EXC,	"RNR_RETRY_EXC" },	\
		{ UBFAB_CQE_REMOTE_LENGTH,	"REMOTE_LENGTH" },	\
		{ UBFAB_CQE_LOCAL_LENGTH,	"LOCAL_LENGTH" },	\
		{ UBFAB_CQE_REMOTE_OP,		"REMOTE_OP" })

#define ubfab_trace_state(s)						\
	__print_symbolic(s,						\
		{ UBFAB_STATE_DOWN,		"DOWN" },		\
		{ UBFAB_STATE_UP,		"UP" })

#define ubfab_trace_revoke(r)						\
	__print_symbolic(r,						\
		{ UBFAB_REVOKE_UNEXPORT,	"UNEXPORT" },		\
		{ UBFAB_REVOKE_FREE,		"FREE" },		\
		{ UBFAB_REVOKE_CLOSE,		"CLOSE" },		\
		{ UBFAB_REVOKE_RESET,		"RESET" })

#define ubfab_trace_qerr(r)						\
	__print_symbolic(r,						\
		{ UBFAB_TRACE_ERR_ENTRY,	"ENTRY" },		\
		{ UBFAB_TRACE_ERR_BAD_TAIL,	"BAD_TAIL" })

/*
 * ubfab_submit: the doorbell was rung (UBFAB_IOCTL_QUEUE_DOORBELL). A
 * polling queue that finds new entries without a doorbell shows none.
 * @sq_head is the engine's head, @sq_tail the user's tail as published.
 */
TRACE_EVENT(ubfab_submit,
	    TP_PROTO(const struct ubfab_queue *q),
	    TP_ARGS(q),
	    TP_STRUCT__entry(__field(u32, eid)
			     __field(u32, qid)
			     __field(u32, sq_head)
			     __field(u32, sq_tail)),
	    TP_fast_assign(__entry->eid = q->file->entity->eid;
			   __entry->qid = q->id;
			   /* read without the run_lock */
			   __entry->sq_head = data_race(q->sq_head);
			   __entry->sq_tail = READ_ONCE(q->hdr->sq_tail);),
	    TP_printk("eid=%u qid=%u sq_head=%u sq_tail=%u",
		      __entry->eid, __entry->qid, __entry->sq_head,
		      __entry->sq_tail)
);

/*
 * ubfab_start: an entry starts at the queue's modeled clock
 * (@model_start_ns). One taken in a burst has run with the burst: its
 * start fires as it is charged to the clock, just before its complete.
 */
TRACE_EVENT(ubfab_start,
	    TP_PROTO(const struct ubfab_queue *q, const struct ubfab_exec *ex),
	    TP_ARGS(q, ex),
	    TP_STRUCT__entry(__field(u64, user_data)
			     __field(u64, model_start_ns)
			     __field(u32, eid)
			     __field(u32, qid)
			     __field(u32, length)
			     __field(u8, opcode)),
	    TP_fast_assign(__entry->user_data = ex->sqe.user_data;
			   __entry->model_start_ns = ubfab_model_now_ns(&q->model);
			   __entry->eid = q->file->entity->eid;
			   __entry->qid = q->id;
			   __entry->length = ex->sqe.length;
			   __entry->opcode = ex->sqe.opcode;),
	    TP_printk("eid=%u qid=%u op=%s user_data=0x%llx length=%u model_start_ns=%llu",
		      __entry->eid, __entry->qid,
		      ubfab_trace_opcode(__entry->opcode),
		      __entry->user_data, __entry->length,
		      __entry->model_start_ns)
);

#ifndef _UBFAB_TRACE_HELPERS
#define _UBFAB_TRACE_HELPERS
/* The EID of the entity at @loc, or -1 for none. */
static inline s32 ubfab_trace_eid(const struct ubfab_loc *loc)
{
	return loc ? container_of(loc, struct ubfab_entity, loc)->eid : -1;
}
#endif

/*
 * ubfab_complete: an entry ended and was charged to the modeled clock,
 * whether or not it posts a completion (a selective queue's). @start_ps
 * is the clock before the charge; @model_end_ns is the completion's
 * model_ns (0 with the model off); @host_ns is ktime_get_ns() now. @peer
 * is the EID its bytes went to or came from (-1: none); @after_ns, for a
 * wait, the modeled time of what satisfied it (the stamp of its flag
 * word, ubfab_stamp; an EVENT_RECORD's end), else 0.
 */
TRACE_EVENT(ubfab_complete,
	    TP_PROTO(const struct ubfab_queue *q, const struct ubfab_exec *ex,
		     u64 start_ps),
	    TP_ARGS(q, ex, start_ps),
	    TP_STRUCT__entry(__field(u64, user_data)
			     __field(u64, host_ns)
			     __field(u64, model_start_ns)
			     __field(u64, model_end_ns)
			     __field(u64, after_ns)
			     __field(u32, eid)
			     __field(u32, qid)
			     __field(s32, peer)
			     __field(u32, bytes)
			     __field(u32, plane_mask)
			     __field(u16, status)
			     __field(u8, opcode)),
	    TP_fast_assign(__entry->user_data = ex->sqe.user_data;
			   __entry->host_ns = ktime_get_ns();
			   __entry->model_start_ns = ubfab_model_ns(start_ps);
			   __entry->model_end_ns = ex->model_ns;
			   __entry->after_ns = ubfab_model_ns(ex->after_ps);
			   __entry->eid = q->file->entity->eid;
			   __entry->qid = q->id;
			   __entry->peer = ubfab_trace_eid(ex->peer);
			   __entry->bytes = ex->bytes;
			   __entry->plane_mask = ex->plane_mask;
			   __entry->status = ex->status;
			   __entry->opcode = ex->sqe.opcode;),
	    TP_printk("eid=%u qid=%u op=%s user_data=0x%llx status=%s peer=%d bytes=%u planes=0x%x host_ns=%llu model_start_ns=%llu model_end_ns=%llu after_ns=%llu",
		      __entry->eid, __entry->qid,
		      ubfab_trace_opcode(__entry->opcode), __entry->user_data,
		      ubfab_trace_status(__entry->status), __entry->peer,
		      __entry->bytes, __entry->plane_mask, __entry->host_ns,
		      __entry->model_start_ns, __entry->model_end_ns,
		      __entry->after_ns)
);

#define ubfab_trace_link_kind(k)					\
	__print_symbolic(k,						\
		{ UBFAB_LINK_PORT_TX,		"port-tx" },		\
		{ UBFAB_LINK_PORT_RX,		"port-rx" },		\
		{ UBFAB_LINK_L1_UP,		"l1-up" },		\
		{ UBFAB_LINK_L2_DOWN,		"l2-down" })

/*
 * ubfab_link: the fabric model holds a link for an entry's bytes on one
 * plane (model.c): from @start_ps for @dur_ps of modeled time. The link
 * is @kind of @plane at @where (the entity of port-tx and port-rx, the
 * node of l1-up and l2-down, whose L2 switch is @l2). The entry is
 * @user_data of entity @eid; it fires before the entry's ubfab_complete,
 * once per link and plane it crosses.
 */
TRACE_EVENT(ubfab_link,
	    TP_PROTO(const struct ubfab_entity *ini, const struct ubfab_exec *ex,
		     u8 kind, u32 plane, u32 where, u32 l2, u64 start_ps,
		     u64 dur_ps, u32 bytes),
	    TP_ARGS(ini, ex, kind, plane, where, l2, start_ps, dur_ps, bytes),
	    TP_STRUCT__entry(__field(u64, user_data)
			     __field(u64, start_ps)
			     __field(u64, dur_ps)
			     __field(u32, eid)
			     __field(u32, plane)
			     __field(u32, where)
			     __field(u32, l2)
			     __field(u32, bytes)
			     __field(u8, kind)
			     __field(u8, opcode)),
	    TP_fast_assign(__entry->user_data = ex->sqe.user_data;
			   __entry->start_ps = start_ps;
			   __entry->dur_ps = dur_ps;
			   __entry->eid = ini->eid;
			   __entry->plane = plane;
			   __entry->where = where;
			   __entry->l2 = l2;
			   __entry->bytes = bytes;
			   __entry->kind = kind;
			   __entry->opcode = ex->sqe.opcode;),
	    TP_printk("eid=%u op=%s user_data=0x%llx plane=%u link=%s where=%u l2=%u bytes=%u start_ps=%llu dur_ps=%llu",
		      __entry->eid, ubfab_trace_opcode(__entry->opcode),
		      __entry->user_data, __entry->plane,
		      ubfab_trace_link_kind(__entry->kind), __entry->where,
		      __entry->l2, __entry->bytes, __entry->start_ps,
		      __entry->dur_ps)
);

/*
 * ubfab_stamp: a flag word at @addr of entity @owner's memory is stamped
 * with modeled time @stamp_ns, by entry @user_data of queue @qid of
 * entity @eid (an ATOMIC or WRITE_NOTIFY's modeled arrival; for
 * UBFAB_IOCTL_QUEUE_STAMP, the queue's clock and @user_data 0). A wait
 * this word satisfies has it as its ubfab_complete's after_ns.
 */
TRACE_EVENT(ubfab_stamp,
	    TP_PROTO(const struct ubfab_queue *q, u64 user_data,
		     const struct ubfab_entity *owner, u64 addr, u64 ps),
	    TP_ARGS(q, user_data, owner, addr, ps),
	    TP_STRUCT__entry(__field(u64, user_data)
			     __field(u64, addr)
			     __field(u64, stamp_ns)
			     __field(u32, eid)
			     __field(u32, qid)
			     __field(u32, owner)),
	    TP_fast_assign(__entry->user_data = user_data;
			   __entry->addr = addr;
			   __entry->stamp_ns = ubfab_model_ns(ps);
			   __entry->eid = q->file->entity->eid;
			   __entry->qid = q->id;
			   __entry->owner = owner->eid;),
	    TP_printk("eid=%u qid=%u user_data=0x%llx owner=%u addr=0x%llx stamp_ns=%llu",
		      __entry->eid, __entry->qid, __entry->user_data,
		      __entry->owner, __entry->addr, __entry->stamp_ns)
);

/*
 * ubfab_queue_error: the queue enters the error state, because an entry
 * failed (@reason ENTRY, with its @status and @user_data) or because the
 * user published an invalid SQ tail (@reason BAD_TAIL, @status 0).
 */
TRACE_EVENT(ubfab_queue_error,
	    TP_PROTO(const struct ubfab_queue *q, u32 reason,
		     const struct ubfab_exec *ex),
	    TP_ARGS(q, reason, ex),
	    TP_STRUCT__entry(__field(u64, user_data)
			     __field(u32, eid)
			     __field(u32, qid)
			     __field(u32, reason)
			     __field(u16, status)),
	    TP_fast_assign(__entry->user_data = ex ? ex->sqe.user_data : 0;
			   __entry->eid = q->file->entity->eid;
			   __entry->qid = q->id;
			   __entry->reason = reason;
			   __entry->status = ex ? ex->status : UBFAB_CQE_OK;),
	    TP_printk("eid=%u qid=%u reason=%s status=%s user_data=0x%llx",
		      __entry->eid, __entry->qid,
		      ubfab_trace_qerr(__entry->reason),
		      ubfab_trace_status(__entry->status), __entry->user_data)
);

/* ubfab_flush: an entry completes UBFAB_CQE_FLUSHED without running. */
TRACE_EVENT(ubfab_flush,
	    TP_PROTO(const struct ubfab_queue *q, const struct ubfab_exec *ex),
	    TP_ARGS(q, ex),
	    TP_STRUCT__entry(__field(u64, user_data)
			     __field(u64, model_ns)
			     __field(u32, eid)
			     __field(u32, qid)
			     __field(u8, opcode)),
	    TP_fast_assign(__entry->user_data = ex->sqe.user_data;
			   __entry->model_ns = ex->model_ns;
			   __entry->eid = q->file->entity->eid;
			   __entry->qid = q->id;
			   __entry->opcode = ex->sqe.opcode;),
	    TP_printk("eid=%u qid=%u op=%s user_data=0x%llx model_ns=%llu",
		      __entry->eid, __entry->qid,
		      ubfab_trace_opcode(__entry->opcode), __entry->user_data,
		      __entry->model_ns)
);

/*
 * ubfab_queue_reset: UBFAB_IOCTL_QUEUE_RESET. @error: the queue was in
 * the error state; @flush: entries it still flushes before the state
 * ends (0: it ended now).
 */
TRACE_EVENT(ubfab_queue_reset,
	    TP_PROTO(const struct ubfab_queue *q, bool error),
	    TP_ARGS(q, error),
	    TP_STRUCT__entry(__field(u32, eid)
			     __field(u32, qid)
			     __field(u32, flush)
			     __field(bool, error)),
	    TP_fast_assign(__entry->eid = q->file->entity->eid;
			   __entry->qid = q->id;
			   __entry->flush = q->reset_pending ? q->reset_at - q->sq_head : 0;
			   __entry->error = error;),
	    TP_printk("eid=%u qid=%u error=%u flush=%u",
		      __entry->eid, __entry->qid, __entry->error, __entry->flush)
);

/* ubfab_port_state: a port's state was set over netlink. */
TRACE_EVENT(ubfab_port_state,
	    TP_PROTO(const struct ubfab_port *port, int old),
	    TP_ARGS(port, old),
	    TP_STRUCT__entry(__field(u32, eid)
			     __field(u32, plane)
			     __field(int, old)
			     __field(int, new)),
	    TP_fast_assign(__entry->eid = port->entity->eid;
			   __entry->plane = port->plane;
			   __entry->old = old;
			   __entry->new = READ_ONCE(port->state);),
	    TP_printk("eid=%u plane=%u old=%s new=%s",
		      __entry->eid, __entry->plane,
		      ubfab_trace_state(__entry->old),
		      ubfab_trace_state(__entry->new))
);

/* ubfab_plane_state: a switch plane's state was set over netlink. */
TRACE_EVENT(ubfab_plane_state,
	    TP_PROTO(const struct ubfab_plane *plane, int old),
	    TP_ARGS(plane, old),
	    TP_STRUCT__entry(__field(u32, plane)
			     __field(int, old)
			     __field(int, new)),
	    TP_fast_assign(__entry->plane = plane->id;
			   __entry->old = old;
			   __entry->new = READ_ONCE(plane->state);),
	    TP_printk("plane=%u old=%s new=%s", __entry->plane,
		      ubfab_trace_state(__entry->old),
		      ubfab_trace_state(__entry->new))
);

/*
 * ubfab_seg_revoke: a segment leaves its owner's table and its imports
 * are revoked. @offset and @length are in bytes of the owner's memory;
 * @imports: how many imports it had.
 */
TRACE_EVENT(ubfab_seg_revoke,
	    TP_PROTO(const struct ubfab_segment *seg, u32 reason),
	    TP_ARGS(seg, reason),
	    TP_STRUCT__entry(__field(u64, offset)
			     __field(u64, length)
			     __field(u32, eid)
			     __field(u32, token_id)
			     __field(u32, reason)
			     __field(u32, imports)),
	    TP_fast_assign(__entry->offset = (u64)seg->first << PAGE_SHIFT;
			   __entry->length = (u64)seg->npages << PAGE_SHIFT;
			   __entry->eid = seg->owner->eid;
			   __entry->token_id = seg->token_id;
			   __entry->reason = reason;
			   __entry->imports = seg->nr_imports;),
	    TP_printk("eid=%u token_id=%u offset=0x%llx length=%llu reason=%s imports=%u",
		      __entry->eid, __entry->token_id, __entry->offset,
		      __entry->length, ubfab_trace_revoke(__entry->reason),
		      __entry->imports)
);

#endif /* _UBFAB_TRACE_H */

/* Out of tree: define_trace.h finds this file as ./trace.h (-I$(src)). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
