/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ubfab queue insides, for the files that run a queue: the queue object
 * (queue.c: the file, the ring memory), its engine (engine.c: rounds,
 * bursts, work, doorbell, polling, reset), its own operations (sync.c:
 * NOP, COMPUTE, events, waits), the opcode table (op.c), the data path
 * (xfer.c, route.h) and the fabric model (model.c). The rest of the
 * module sees a queue through queue.h only.
 */
#ifndef _UBFAB_ENGINE_H
#define _UBFAB_ENGINE_H

#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "model.h"
#include "op.h"
#include "queue.h"
#include "ubfab.h"
#include "xfer.h"

/**
 * struct ubfab_ring_hdr - the first page of a queue's mapping
 * @sq_head: SQ head, written by the engine
 * @sq_tail: SQ tail, written by user space
 * @sq_flags: UBFAB_SQ_*, written by the engine
 * @sq_overflow: invalid SQ tails seen, written by the engine
 * @cq_head: CQ head, written by user space
 * @cq_tail: CQ tail, written by the engine
 * @cq_flags: unused, 0
 * @cq_overflow: stalls on a full CQ, written by the engine
 *
 * Each word has a cache line of its own, so the producer and the consumer
 * of a ring never write the same line.
 */
struct ubfab_ring_hdr {
	u32 sq_head ____cacheline_aligned;
	u32 sq_tail ____cacheline_aligned;
	u32 sq_flags ____cacheline_aligned;
	u32 sq_overflow ____cacheline_aligned;
	u32 cq_head ____cacheline_aligned;
	u32 cq_tail ____cacheline_aligned;
	u32 cq_flags ____cacheline_aligned;
	u32 cq_overflow ____cacheline_aligned;
};

/* Most entries a burst of the queue engine takes. */
#define UBFAB_QUEUE_BURST	32

/**
 * struct ubfab_queue - an NPU queue: a submission and a completion ring
 *	shared with user space, and the engine state that runs them
 * @file: the entity file that created the queue; @file->filp is referenced
 * @file_node: in @file->queues
 * @id: number in the entity (@file->entity->queues)
 * @pid: the thread group that made it
 * @flags: UBFAB_QUEUE_*
 * @idle_ns: UBFAB_QUEUE_POLL: how long the engine polls an idle SQ
 * @sq_mask: SQ entries - 1
 * @cq_mask: CQ entries - 1
 * @ring: the shared mapping: header page, SQ entries, CQ entries; its
 *	pages mapped into the kernel with vmap()
 * @ring_pages: the pages of @ring, charged to the creator's memory cgroup
 * @ring_size: bytes in @ring, a multiple of the page size
 * @hdr: the indices, flag words and counters in @ring
 * @sqes: the SQ entries in @ring
 * @cqes: the CQ entries in @ring
 * @eventfd: signalled once per round that posted completions, or NULL
 * @poll_wait: woken when completions are posted, for poll()
 * @work: the engine's work item; delayed while an entry waits
 * @run_lock: held by whoever runs the queue (a worker or an inline
 *	doorbell round); guards every field below
 * @sq_head: the engine's SQ head; the shared one is a copy
 * @cq_tail: the engine's CQ tail; the shared one is a copy, published
 *	once the completions up to it are written
 * @sq_flags: the engine's SQ flag word (UBFAB_SQ_*); the shared one is a copy
 * @sq_overflow: invalid SQ tails seen
 * @cq_overflow: stalls on a full CQ
 * @error: in the error state: entries complete with UBFAB_CQE_FLUSHED;
 *	WRITE_ONCE() so that the doorbell can report it
 * @bad_tail: the SQ tail user space published last is invalid
 * @cq_stalled: the last entry could not run because the CQ was full
 * @reset_pending: UBFAB_IOCTL_QUEUE_RESET was called in the error state;
 *	the error state ends when @sq_head reaches @reset_at
 * @reset_at: the SQ tail when the reset was asked for
 * @waiting: @wait (EVENT_WAIT or WAIT_VALUE) holds the queue;
 *	WRITE_ONCE() because EVENT_RECORD on another queue reads it
 * @wait: the entry that holds the queue (sync.c)
 * @wait_deadline: when it times out, in jiffies, if it has a time-out
 * @poll_busy_ns: UBFAB_QUEUE_POLL: when the engine last found work
 * @plane_cursor: the plane the next remote entry starts from (route.h)
 * @model: the queue's modeled clock (model.h)
 * @order: UBFAB_QUEUE_ORDERED: its place in the ordered domain
 *	(model_order.c)
 * @xfer: the data path's translation cache
 * @burst: the entries of a burst, copied out of the ring (engine.c)
 */
struct ubfab_queue {
	struct ubfab_file *file;
	struct list_head file_node;
	u32 id;
	pid_t pid;
	u32 flags;
	u64 idle_ns;
	u32 sq_mask;
	u32 cq_mask;
	void *ring;
	struct page **ring_pages;
	size_t ring_size;
	struct ubfab_ring_hdr *hdr;
	struct ubfab_sqe *sqes;
	struct ubfab_cqe *cqes;
	struct eventfd_ctx *eventfd;
	wait_queue_head_t poll_wait;
	struct delayed_work work;
	struct mutex run_lock;		/* guards the engine state below */
	u32 sq_head;
	u32 cq_tail;
	u32 sq_flags;
	u32 sq_overflow;
	u32 cq_overflow;
	bool error;
	bool bad_tail;
	bool cq_stalled;
	bool reset_pending;
	u32 reset_at;
	bool waiting;
	struct ubfab_exec wait;
	unsigned long wait_deadline;
	u64 poll_busy_ns;
	u32 plane_cursor;
	struct ubfab_model_clock model;
	struct ubfab_order_member order;
	struct ubfab_xfer_cache xfer;
	struct ubfab_exec burst[UBFAB_QUEUE_BURST];
};

/* engine.c */
void ubfab_engine_work(struct work_struct *work);
long ubfab_engine_doorbell(struct ubfab_queue *q);
long ubfab_engine_reset(struct ubfab_queue *q);
void ubfab_engine_kick(struct ubfab_queue *q);
void ubfab_engine_set_flags(struct ubfab_queue *q, u32 set, u32 clear);
bool ubfab_engine_sq_empty(struct ubfab_queue *q);

/* sync.c: what the engine asks of the entry that holds a queue */
bool ubfab_sync_wait_done(struct ubfab_queue *q);
unsigned long ubfab_sync_wait_delay(struct ubfab_queue *q);
bool ubfab_sync_wait_look(struct ubfab_queue *q, u16 *status, u64 *seen,
			  u64 *after_ps);
bool ubfab_sync_wait_expired(struct ubfab_queue *q);
void ubfab_sync_wait_end(struct ubfab_queue *q, u16 status, u64 seen);

#endif /* _UBFAB_ENGINE_H */
