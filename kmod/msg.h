/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ubfab receive queues (msg.c) as the entity file and the data path see
 * them: the object a sender's SEND, SEND_IMM or WRITE_IMM delivers to
 * (xfer.c runs those).
 */
#ifndef _UBFAB_MSG_H
#define _UBFAB_MSG_H

#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/ubfab.h>

struct ubfab_entity;
struct ubfab_file;
struct ubfab_ring_hdr;

/**
 * struct ubfab_rq - a receive queue: posted receives and their completions
 * @ref: the file holds one, a sender delivering a message another
 * @file: the entity file that created it; @file->filp is referenced
 * @id: number in the entity (@file->entity->rqs)
 * @token: what senders must name
 * @rq_mask: RQ entries - 1
 * @rcq_mask: RCQ entries - 1
 * @ring_size: bytes in @ring, a multiple of the page size
 * @ring: the shared mapping: a header laid out as a queue's (struct
 *	ubfab_ring_hdr: its SQ words are the RQ's, its CQ words the RCQ's),
 *	the RQ entries, the RCQ entries
 * @ring_pages: the pages of @ring
 * @hdr: the indices and counters in @ring
 * @rqes: the RQ entries in @ring
 * @rcqes: the RCQ entries in @ring
 * @poll_wait: poll() waiters
 * @lock: guards the fields below; held from taking a receive to writing
 *	its completion, so completions come in the order receives were taken
 * @rq_head: the kernel's RQ head
 * @rcq_tail: the kernel's RCQ tail
 * @rnr: messages that found no posted receive
 * @full: messages that found the RCQ full
 * @dead: closed: no message takes a receive any more
 */
struct ubfab_rq {
	struct kref ref;
	struct ubfab_file *file;
	u32 id;
	u32 token;
	u32 rq_mask;
	u32 rcq_mask;
	size_t ring_size;
	void *ring;
	struct page **ring_pages;
	struct ubfab_ring_hdr *hdr;
	struct ubfab_rqe *rqes;
	struct ubfab_rcqe *rcqes;
	wait_queue_head_t poll_wait;
	struct mutex lock;	/* guards the receive state below */
	u32 rq_head;
	u32 rcq_tail;
	u32 rnr;
	u32 full;
	bool dead;
};

/**
 * struct ubfab_rq_create_cmd - UBFAB_IOCTL_RQ_CREATE in flight
 * @arg: the user's argument; first, as the ioctl table copies it in and out
 * @filp: the new receive queue's file, installed at @arg.fd once @arg is
 *	copied out
 */
struct ubfab_rq_create_cmd {
	struct ubfab_rq_create arg;
	struct file *filp;
};

/* The receiver-not-ready retries (module parameters, msg.c). */
extern unsigned int ubfab_rnr_retry;
extern unsigned long ubfab_rnr_ns;

int ubfab_rq_create(struct ubfab_file *file, struct ubfab_rq_create_cmd *cmd);
void ubfab_rq_create_undo(struct ubfab_rq_create_cmd *cmd);
void ubfab_rq_create_commit(struct ubfab_rq_create_cmd *cmd);
struct ubfab_rq *ubfab_rq_from_file(struct file *filp);
struct ubfab_rq *ubfab_rq_get(struct ubfab_entity *entity, u32 id);
void ubfab_rq_put(struct ubfab_rq *rq);
u16 ubfab_rq_take(struct ubfab_rq *rq, struct ubfab_rqe *rqe);
void ubfab_rq_complete(struct ubfab_rq *rq, const struct ubfab_rcqe *rcqe);
void ubfab_rq_rnr_wait(void);

#endif /* _UBFAB_MSG_H */
