/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ubfab_urma.h: a liburma-shaped layer of libubfab (since version 1.7, symbol
 * version UBFAB_1.7), so that code written against ubfab reads like code
 * written for the real UB stack's liburma. It owns the names and the
 * shapes; every call is a thin layer over the device, queue, receive
 * queue and jetty API of libubfab.h (no kernel object of its own).
 *
 * Naming: the real stack's names where the concept is the same, with the
 * prefix ubfab_urma_ instead of urma_ (and UBFAB_URMA_ for constants), so
 * that a program may link with both libraries and a port to the real
 * stack starts with a rename. Documentation/urma.rst maps each call to
 * its liburma counterpart and says what differs.
 *
 * Objects: a context acts as an entity (ubfab_dev_open()); a JFS is a
 * queue (ubfab_queue_create()); a JFR a receive queue (ubfab_rq_create());
 * a JFC gathers the completions of the JFS and of the JFR created with it
 * (the queue's CQ and the receive queue's RCQ); a jetty is a JFS and a JFR
 * made together and paired in the kernel (ubfab_jetty_create(), since
 * 1.8); a JFCE is an epoll descriptor over the kernel jetties' event
 * channels of its JFCs (those of a jetty) and the descriptors of its other
 * JFCs' queues. The async events of a context are its device's
 * (ubfab_dev_event_wait()).
 *
 * Conventions: functions returning int return 0 or a negative errno, as
 * in libubfab.h. One thread at a time uses an object.
 */
#ifndef UBFAB_URMA_H
#define UBFAB_URMA_H

#include <stdint.h>

#include <libubfab.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ubfab_urma_jetty;

/**
 * struct ubfab_urma_context - an entity acted as (urma_context_t)
 * @dev: its device; its descriptor (ubfab_dev_fd()) is the async-event
 *	descriptor: poll() it, then ubfab_urma_get_async_event()
 * @eid: its EID
 * @jetties: its jetties, for the async events that name one (since 1.8)
 */
struct ubfab_urma_context {
	struct ubfab_dev *dev;
	uint32_t eid;
	struct ubfab_urma_jetty *jetties;
};

/**
 * struct ubfab_urma_seg - a registered segment (urma_target_seg_t of the
 *	owner): memory of the entity, mapped and exported
 * @offset: its offset in the entity's memory (local addresses of work
 *	requests are offsets: @offset + n)
 * @addr: where it is mapped in the process
 * @len: its bytes
 * @token_id: its token id, which importers name
 * @token_value: the secret they present
 */
struct ubfab_urma_seg {
	uint64_t offset;
	void *addr;
	uint64_t len;
	uint32_t token_id;
	uint32_t token_value;
};

/**
 * struct ubfab_urma_tseg - an imported segment (urma_target_seg_t of an
 *	importer)
 * @eid: its owner
 * @token_id: its token id
 * @imp: the import (ubfab_import_addr(&@imp, n) is byte n of it)
 */
struct ubfab_urma_tseg {
	uint32_t eid;
	uint32_t token_id;
	struct ubfab_import imp;
};

struct ubfab_urma_jfce;

/**
 * struct ubfab_urma_jfc - a completion queue (urma_jfc_t): the CQ of the
 *	one JFS and the RCQ of the one JFR created with it
 * @ctx: its context
 * @jfce: its event channel, or NULL
 * @jfs_q: the queue of its JFS, or NULL
 * @jfr_rq: the receive queue of its JFR, or NULL
 * @jetty: the kernel jetty of its JFS and JFR, when they are a jetty's:
 *	its event channel is the JFC's (since 1.8)
 */
struct ubfab_urma_jfc {
	struct ubfab_urma_context *ctx;
	struct ubfab_urma_jfce *jfce;
	struct ubfab_queue *jfs_q;
	struct ubfab_rq *jfr_rq;
	struct ubfab_jetty *jetty;
};

/**
 * struct ubfab_urma_jfce - a completion event channel (urma_jfce_t)
 * @fd: an epoll descriptor, readable once a JFC of it armed with
 *	ubfab_urma_rearm_jfc() has completions (each arming gives one
 *	event; a jetty's JFC, only for completions after the rearm); poll()
 *	it or call ubfab_urma_wait_jfc()
 */
struct ubfab_urma_jfce {
	int fd;
};

/**
 * struct ubfab_urma_jfs - a send queue (urma_jfs_t)
 * @q: the libubfab queue
 * @jfc: its completion queue
 * @id: its number in the entity
 */
struct ubfab_urma_jfs {
	struct ubfab_queue *q;
	struct ubfab_urma_jfc *jfc;
	uint32_t id;
};

/**
 * struct ubfab_urma_jfr - a receive queue (urma_jfr_t)
 * @rq: the libubfab receive queue
 * @jfc: its completion queue
 * @id: its number in the entity, which senders name
 * @token: the token senders present
 */
struct ubfab_urma_jfr {
	struct ubfab_rq *rq;
	struct ubfab_urma_jfc *jfc;
	uint32_t id;
	uint32_t token;
};

/**
 * struct ubfab_urma_jetty - a JFS and a JFR made together and paired in
 *	the kernel (urma_jetty_t)
 * @jfs: its send queue
 * @jfr: its receive queue
 * @jetty: the kernel's jetty (since 1.8): its number is @jetty->id, which
 *	ubctl jetty show and async events name
 * @ctx: its context
 * @async_events: its async events taken and not acknowledged yet
 * @next: the next jetty of @ctx
 */
struct ubfab_urma_jetty {
	struct ubfab_urma_jfs jfs;
	struct ubfab_urma_jfr jfr;
	struct ubfab_jetty *jetty;
	struct ubfab_urma_context *ctx;
	unsigned int async_events;
	struct ubfab_urma_jetty *next;
};

/**
 * struct ubfab_urma_async_event - an async event of a context
 *	(urma_async_event_t)
 * @ctx: the context
 * @jetty: the jetty a UBFAB_EVENT_JETTY_* event names, or NULL (another
 *	event, or a jetty not made by this layer)
 * @event_type: enum ubfab_event_type
 * @event: the device's event, with its details (reason, eid, jetty_id)
 */
struct ubfab_urma_async_event {
	struct ubfab_urma_context *ctx;
	struct ubfab_urma_jetty *jetty;
	uint32_t event_type;
	struct ubfab_event event;
};

/**
 * struct ubfab_urma_tjfr - a remote JFR (or jetty) to send to
 *	(urma_target_jetty_t); ubfab_urma_import_jfr() fills it
 * @eid: its entity
 * @id: its number there
 * @token: its token
 */
struct ubfab_urma_tjfr {
	uint32_t eid;
	uint32_t id;
	uint32_t token;
};

/**
 * struct ubfab_urma_jfs_wr - a send work request (urma_jfs_wr_t, flat)
 * @opcode: UBFAB_OP_WRITE, _WRITE_IMM, _READ, _SEND, _SEND_IMM or _ATOMIC
 * @user_ctx: what its completion record carries back
 * @local: local address, an offset in the entity's memory
 *	(ubfab_urma_seg.offset + n); unused by ATOMIC and by a SEND or
 *	SEND_IMM of 0 bytes
 * @len: bytes (SEND and SEND_IMM may send 0)
 * @tseg: the remote segment (WRITE, WRITE_IMM, READ, ATOMIC)
 * @remote: offset in @tseg
 * @tjfr: the remote JFR (SEND, SEND_IMM, WRITE_IMM)
 * @imm: immediate data (SEND_IMM, WRITE_IMM)
 * @atomic_op: enum ubfab_atomic (ATOMIC)
 * @value: the atomic's operand (ATOMIC)
 * @compare: the compare value of UBFAB_ATOMIC_CAS
 * @fence: wait for the requests before it (UBFAB_SQE_FENCE)
 * @next: the next request of the list, or NULL
 */
struct ubfab_urma_jfs_wr {
	uint8_t opcode;
	uint64_t user_ctx;
	uint64_t local;
	uint32_t len;
	const struct ubfab_urma_tseg *tseg;
	uint64_t remote;
	const struct ubfab_urma_tjfr *tjfr;
	uint32_t imm;
	uint32_t atomic_op;
	uint64_t value;
	uint64_t compare;
	int fence;
	struct ubfab_urma_jfs_wr *next;
};

/**
 * struct ubfab_urma_jfr_wr - a receive work request (urma_jfr_wr_t)
 * @user_ctx: what its completion record carries back
 * @local: the buffer, an offset in the entity's memory
 * @len: its bytes
 * @next: the next request of the list, or NULL
 */
struct ubfab_urma_jfr_wr {
	uint64_t user_ctx;
	uint64_t local;
	uint32_t len;
	struct ubfab_urma_jfr_wr *next;
};

/* struct ubfab_urma_cr flags */
#define UBFAB_URMA_CR_RECV	1U	/* a receive's, from the JFR */
#define UBFAB_URMA_CR_IMM	2U	/* @imm_data holds immediate data */

/**
 * struct ubfab_urma_cr - a completion record (urma_cr_t)
 * @status: enum ubfab_cqe_status (UBFAB_CQE_OK: success)
 * @opcode: the request's UBFAB_OP_*, or the message's for a receive
 * @flags: UBFAB_URMA_CR_*
 * @user_ctx: the request's
 * @completion_len: bytes moved
 * @imm_data: immediate data (with UBFAB_URMA_CR_IMM)
 * @src_eid: the sender (receives)
 * @result: the old value of an ATOMIC
 * @model_ns: the modeled time it completed (or arrived)
 */
struct ubfab_urma_cr {
	uint32_t status;
	uint32_t opcode;
	uint32_t flags;
	uint64_t user_ctx;
	uint32_t completion_len;
	uint32_t imm_data;
	uint32_t src_eid;
	uint64_t result;
	uint64_t model_ns;
};

int ubfab_urma_create_context(const char *dev_name,
			      struct ubfab_urma_context **ctxp);
void ubfab_urma_delete_context(struct ubfab_urma_context *ctx);

int ubfab_urma_register_seg(struct ubfab_urma_context *ctx, uint64_t len,
			    uint32_t rights, uint32_t token_value,
			    struct ubfab_urma_seg **segp);
void ubfab_urma_unregister_seg(struct ubfab_urma_context *ctx,
			       struct ubfab_urma_seg *seg);
int ubfab_urma_import_seg(struct ubfab_urma_context *ctx, uint32_t eid,
			  uint32_t token_id, uint32_t token_value,
			  uint32_t rights, struct ubfab_urma_tseg **tsegp);
void ubfab_urma_unimport_seg(struct ubfab_urma_context *ctx,
			     struct ubfab_urma_tseg *tseg);

int ubfab_urma_create_jfce(struct ubfab_urma_context *ctx,
			   struct ubfab_urma_jfce **jfcep);
void ubfab_urma_delete_jfce(struct ubfab_urma_jfce *jfce);
int ubfab_urma_create_jfc(struct ubfab_urma_context *ctx,
			  struct ubfab_urma_jfce *jfce,
			  struct ubfab_urma_jfc **jfcp);
int ubfab_urma_delete_jfc(struct ubfab_urma_jfc *jfc);

int ubfab_urma_create_jfs(struct ubfab_urma_context *ctx, uint32_t depth,
			  struct ubfab_urma_jfc *jfc,
			  struct ubfab_urma_jfs **jfsp);
int ubfab_urma_delete_jfs(struct ubfab_urma_jfs *jfs);
int ubfab_urma_create_jfr(struct ubfab_urma_context *ctx, uint32_t depth,
			  uint32_t token, struct ubfab_urma_jfc *jfc,
			  struct ubfab_urma_jfr **jfrp);
int ubfab_urma_delete_jfr(struct ubfab_urma_jfr *jfr);
int ubfab_urma_create_jetty(struct ubfab_urma_context *ctx, uint32_t depth,
			    uint32_t token, struct ubfab_urma_jfc *jfc,
			    struct ubfab_urma_jetty **jettyp);
int ubfab_urma_delete_jetty(struct ubfab_urma_jetty *jetty);
void ubfab_urma_import_jfr(uint32_t eid, uint32_t id, uint32_t token,
			   struct ubfab_urma_tjfr *out);

int ubfab_urma_post_jfs_wr(struct ubfab_urma_jfs *jfs,
			   struct ubfab_urma_jfs_wr *wr,
			   struct ubfab_urma_jfs_wr **bad_wr);
int ubfab_urma_post_jfr_wr(struct ubfab_urma_jfr *jfr,
			   struct ubfab_urma_jfr_wr *wr,
			   struct ubfab_urma_jfr_wr **bad_wr);
int ubfab_urma_poll_jfc(struct ubfab_urma_jfc *jfc, int cr_cnt,
			struct ubfab_urma_cr *cr);
int ubfab_urma_rearm_jfc(struct ubfab_urma_jfc *jfc);
int ubfab_urma_wait_jfc(struct ubfab_urma_jfce *jfce, int jfc_cnt,
			int timeout_ms, struct ubfab_urma_jfc **jfc);

/* Since 1.8 (UBFAB_1.8) */
int ubfab_urma_get_async_event(struct ubfab_urma_context *ctx,
			       struct ubfab_urma_async_event *event);
void ubfab_urma_ack_async_event(struct ubfab_urma_async_event *event);

#ifdef __cplusplus
}
#endif

#endif /* UBFAB_URMA_H */
