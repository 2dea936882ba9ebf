/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ubfab fabric model (model.c): the parameter table, what each queue
 * entry costs in modeled time, and each queue's modeled clock. Time is
 * kept in integer picoseconds; what user space sees is in nanoseconds.
 * Documentation/model.rst has the equations and the sources.
 */
#ifndef _UBFAB_MODEL_H
#define _UBFAB_MODEL_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/jump_label.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/string.h>
#include <linux/types.h>
#include <asm/byteorder.h>

#include "op.h"
#include "ubfab.h"

struct ubfab_queue;

/* Picoseconds in a nanosecond. */
#define UBFAB_MODEL_PS_PER_NS	1000
/* Efficiencies and port bandwidths are per mille, error rates per million. */
#define UBFAB_MODEL_PER_MILLE	1000U
#define UBFAB_MODEL_PER_MILLION	1000000U

/**
 * enum ubfab_model_class - a transfer's class: which of the initiator's
 *	resources moves its bytes
 * @UBFAB_MODEL_DMA: the die's DMA engines (descriptors), the default
 * @UBFAB_MODEL_MEMSEM: its vector cores' loads and stores
 *	(UBFAB_SQE_MEMSEM)
 * @UBFAB_MODEL_CLASSES: how many there are
 */
enum ubfab_model_class {
	UBFAB_MODEL_DMA,
	UBFAB_MODEL_MEMSEM,
	UBFAB_MODEL_CLASSES,
};

static_assert(UBFAB_MODEL_ENGINES ==
	      UBFAB_MODEL_CLASSES * UBFAB_MODEL_MAX_ENGINES);

/**
 * enum ubfab_model_path - how far a transfer's bytes go
 * @UBFAB_MODEL_SAME_DIE: to the initiator itself (loopback)
 * @UBFAB_MODEL_OTHER_DIE: to the other die of the same NPU chip, over the
 *	die-to-die link
 * @UBFAB_MODEL_SAME_NODE: within the node: one switch hop, the plane's L1
 * @UBFAB_MODEL_OTHER_NODE: to another node: three hops, L1, L2, L1
 */
enum ubfab_model_path {
	UBFAB_MODEL_SAME_DIE,
	UBFAB_MODEL_OTHER_DIE,
	UBFAB_MODEL_SAME_NODE,
	UBFAB_MODEL_OTHER_NODE,
};

/**
 * struct ubfab_model_params - the model's parameters (model_param.c has
 *	the table of their names, units, ranges, values and sources)
 * @issue_ps: any entry's turn on its queue
 * @dma_ps: start-up of a transfer of the DMA class
 * @memsem_ps: start-up of a transfer of the memory-semantics class
 * @loopback_ps: one way to the initiator itself
 * @die_ps: one way over the die-to-die link
 * @hop_ps: one switch hop, one way, its links included
 * @node_hops: switch hops within a node
 * @remote_hops: switch hops to another node
 * @link_mbps: one UB link, one way, in MB/s (10^6 bytes a second)
 * @die_mbps: the die-to-die link, one way, in MB/s
 * @hbm_mbps: an NPU die's HBM, in MB/s
 * @dram_mbps: a CPU's DRAM, in MB/s
 * @target_ps: the target's part of a transfer, by [read][target is a CPU]
 * @efficiency: per mille of a link's rate a transfer's payload gets, by
 *	[read][target is a CPU]
 * @retry_ps: what a link error costs a transfer besides resending a
 *	chunk: detecting it and asking again
 * @engines: the initiator's resources of each class (enum
 *	ubfab_model_class): DMA engines, vector-core paths; 1 to
 *	UBFAB_MODEL_MAX_ENGINES
 * @engine_mbps: the bandwidth of one of them, by class, in MB/s of payload
 * @gap_ps: how long one transfer holds its resource at the least, by
 *	class: its issue cost there
 *
 * All u64, without padding: model_param.c reads and sets them by offset
 * and compares whole tables.
 */
struct ubfab_model_params {
	u64 issue_ps;
	u64 dma_ps;
	u64 memsem_ps;
	u64 loopback_ps;
	u64 die_ps;
	u64 hop_ps;
	u64 node_hops;
	u64 remote_hops;
	u64 link_mbps;
	u64 die_mbps;
	u64 hbm_mbps;
	u64 dram_mbps;
	u64 target_ps[2][2];
	u64 efficiency[2][2];
	u64 retry_ps;
	u64 engines[UBFAB_MODEL_CLASSES];
	u64 engine_mbps[UBFAB_MODEL_CLASSES];
	u64 gap_ps[UBFAB_MODEL_CLASSES];
};

/* The values of profile cm384, the defaults. */
extern const struct ubfab_model_params ubfab_model_cm384;

/**
 * struct ubfab_model_param - how netlink names one parameter
 * @name: its name, which ends in its unit ("hop-ps")
 * @unit: what it counts
 * @offset: where it is in struct ubfab_model_params
 * @min: smallest value accepted
 * @max: largest value accepted
 */
struct ubfab_model_param {
	const char *name;
	const char *unit;
	size_t offset;
	u64 min;
	u64 max;
};

extern const struct ubfab_model_param ubfab_model_param_table[];
extern const unsigned int ubfab_model_nr_params;
/*
 * Bumped after every change of the parameters in force or a port's knobs,
 * and when a queue comes or goes.
 */
extern u64 ubfab_model_gen;
void ubfab_model_touch(void);
/* Module parameter "model": off, no entry is charged (model_param.c). */
DECLARE_STATIC_KEY_TRUE(ubfab_model_on);

const struct ubfab_model_param *ubfab_model_param_find(const char *name);
u64 *ubfab_model_param_ptr(struct ubfab_model_params *p,
			   const struct ubfab_model_param *d);

/* The value of the parameter @d in @p. */
static inline u64 ubfab_model_param_value(const struct ubfab_model_params *p,
					  const struct ubfab_model_param *d)
{
	return *(const u64 *)((const char *)p + d->offset);
}

const char *ubfab_model_profile(const struct ubfab_model_params *p);
const struct ubfab_model_params *ubfab_model_profile_find(const char *name);
const struct ubfab_model_params *ubfab_model_params(void);
void ubfab_model_read(struct ubfab_model_params *p);
int ubfab_model_update(const struct ubfab_model_params *p);
size_t ubfab_model_params_bytes(void);
void ubfab_model_fini(void);

/**
 * struct ubfab_model_faults - what the fault knobs of the ports a
 *	transfer used say (struct ubfab_port)
 * @bw_permille: the lowest bandwidth of a port at either end of a plane
 *	it used, per mille: it sets the pace of every plane's share
 * @error_ppm: the highest error rate of a plane it used, both ends added
 * @delay_ps: the largest added latency of a plane it used, both ends
 *	added, one way
 * @retry: it hit a link error and resends a chunk (rolled from
 *	@error_ppm by the clock, model.c)
 */
struct ubfab_model_faults {
	u32 bw_permille;
	u32 error_ppm;
	u64 delay_ps;
	bool retry;
};

/**
 * struct ubfab_model_xfer - a transfer, as its cost and contention see
 *	it (model.c)
 * @off_ps: from the queue's clock to its data leaving its sender: the
 *	issue overhead and its class's start-up, and for READ the request's
 *	way to the peer and the target's part
 * @lat_ps: the way between the two, one way (over the planes, the ports'
 *	added latency too)
 * @dur_ps: how long its bytes take through the peer's memory (loopback)
 *	or over the die-to-die link; over the planes, how long the share of
 *	them of its most loaded plane holds each link of that plane
 * @eng_ps: how long its bytes take through its initiator resource (a DMA
 *	engine or a vector-core path) at that one's bandwidth
 * @hold_ps: how long it holds that resource: @eng_ps, at least its class's
 *	issue cost there
 * @engine: which of the initiator's resources it holds, an index into
 *	struct ubfab_entity's @engines
 * @links: it crosses the switch planes, whose links it holds too (not
 *	the die-to-die link or a loopback, which hold only the initiator's
 *	resource)
 * @users: how many queues of the initiator share that resource (struct
 *	ubfab_entity's @engine_users), or NULL when that does not matter:
 *	its queue's own transfers could wait for each other there
 *	(ubfab_model_users())
 * @rate: over the planes, what a plane's share serializes at: the link's
 *	MB/s times the payload efficiency of its kind, per mille
 * @bw_permille: over the planes, the ports' bandwidth factor (struct
 *	ubfab_model_faults)
 */
struct ubfab_model_xfer {
	u64 off_ps;
	u64 lat_ps;
	u64 dur_ps;
	u64 eng_ps;
	u64 hold_ps;
	const u32 *users;
	u64 rate;
	u32 engine;
	u32 bw_permille;
	bool links;
};

/* The links of one plane a transfer can cross: port out, L1 up, L2 down, port in. */
#define UBFAB_MODEL_HOPS	4

/**
 * struct ubfab_model_hop - a link a transfer's share on one plane crosses
 *	(model.c: ubfab_model_hops())
 * @link: the link
 * @at_ps: when the share gets there, from when it takes the port out, on
 *	idle links (cut-through)
 * @where: the entity of a port, the node of an L1 or L2 link
 * @l2: the L2 switch of an L1 or L2 link, else 0
 * @kind: enum ubfab_link_kind
 */
struct ubfab_model_hop {
	struct ubfab_link *link;
	u64 at_ps;
	u32 where;
	u32 l2;
	u8 kind;
};

/**
 * struct ubfab_model_way - what a one-chunk transfer holds for the plane
 *	its chunk took, found once for the transfers alike that take that
 *	plane (struct ubfab_model_clock)
 * @engine: its initiator's resource (DMA engine or vector-core path)
 * @hops: the links it crosses, in order
 * @nr_hops: how many: none over the die-to-die link or a loopback
 * @plane: the plane
 * @runs: a run of these transfers back to back on one queue can be
 *	reserved at once (ubfab_model_run()): each ends its hold on the
 *	engine and every link before the next one gets there
 * @free_below: one whose data leaves before this time may take its
 *	engine and links the short way (ubfab_model_delay()): no time it
 *	reserves passes 2^64 ps
 */
struct ubfab_model_way {
	struct ubfab_link *engine;
	u64 free_below;
	struct ubfab_model_hop hops[UBFAB_MODEL_HOPS];
	u8 nr_hops;
	u8 plane;
	bool runs;
};

/* Ports whose knobs are not the defaults: while 0, none is read. */
extern atomic_t ubfab_model_faulty;

enum ubfab_model_path ubfab_model_path(const struct ubfab_loc *self,
				       const struct ubfab_loc *peer);
u64 ubfab_model_cost_ps(const struct ubfab_model_params *p,
			const struct ubfab_loc *self,
			const struct ubfab_exec *ex,
			const struct ubfab_model_faults *f);
long ubfab_model_clock(struct ubfab_queue *q, void __user *uarg);

/**
 * struct ubfab_model_clock - a queue's modeled clock: engine state, under
 *	the queue's run_lock
 * @now_ps: when its last entry ended, in picoseconds; 0 at creation
 * @last_peer: where the peer of its last one-plane transfer sits, or NULL
 * @last_ps: that transfer's cost, which the next one alike costs too
 *	while the parameters stay those of @last_gen: a run of small
 *	messages pays a few compares
 * @last_gen: ubfab_model_gen when @last_ps was worked out
 * @last_bytes: the bytes it moved, one chunk at most; U32_MAX while
 *	there is no such transfer (ubfab_model_clock_init())
 * @last_kind: its opcode and class (ubfab_model_kind())
 * @last_x: how it goes, when @last_contends
 * @ways: what a transfer alike it holds for each plane, when
 *	@last_contends:
 *	a transfer takes the plane its chunk took (@ex->plane_mask; the fast
 *	path moves the queue's plane cursor by one each entry), and each
 *	plane's way is found when one first takes it
 * @ways_found: bit p: @ways[p] is found for the last transfer
 * @last_contends: it holds an initiator resource (and, over the switch
 *	planes, links): ubfab_model_xfer(), ubfab_model_charge_new()
 * @run_left: entries of the burst being charged, alike the last, whose
 *	links were reserved with the first of their run (ubfab_model_run())
 * @run_lone: entries of the burst being charged, alike the last, that
 *	contend one by one: their run would wait
 * @entries: entries charged so far
 * @seed: the queue's own, from its entity and number: with @entries, what
 *	a transfer's link errors are rolled from, the same in every run of
 *	the same program
 * @qid: the queue's number in its entity: which of the entity's DMA
 *	engines and vector-core paths its transfers use
 */
struct ubfab_model_clock {
	u64 now_ps;
	const struct ubfab_loc *last_peer;
	u64 last_ps;
	u64 last_gen;
	u32 last_bytes;
	u16 last_kind;
	bool last_contends;
	u8 run_left;
	u8 run_lone;
	u16 ways_found;
	struct ubfab_model_xfer last_x;
	struct ubfab_model_way ways[UBFAB_MAX_PLANES];
	u64 entries;
	u32 seed;
	u32 qid;
};

static_assert(UBFAB_MAX_PLANES <= 16);

void ubfab_model_charge_new(struct ubfab_model_clock *c,
			    const struct ubfab_loc *self,
			    const struct ubfab_exec *ex);
void ubfab_model_contend(struct ubfab_model_clock *c,
			 const struct ubfab_loc *self,
			 const struct ubfab_exec *ex, u64 before,
			 const struct ubfab_model_xfer *x);
void ubfab_model_contend_alike(struct ubfab_model_clock *c,
			       const struct ubfab_loc *self,
			       const struct ubfab_exec *ex, u64 before,
			       unsigned int ahead);
u64 ubfab_model_end_ps(const struct ubfab_model_clock *c,
		       const struct ubfab_loc *self,
		       const struct ubfab_exec *ex);
void ubfab_model_rnr_wait(struct ubfab_model_clock *c, u64 ns);
u64 ubfab_model_arrival_ns(struct ubfab_queue *q, const struct ubfab_exec *ex);
u64 ubfab_model_arrival_ps(const struct ubfab_model_clock *c,
			   const struct ubfab_loc *self,
			   const struct ubfab_exec *ex);

/**
 * enum ubfab_order_state - where a queue of the ordered domain stands
 * @UBFAB_ORDER_RUN: its next entry starts at its @key_ps: nothing later
 *	than that runs before it (its SQ may be empty: it holds the domain
 *	back all the same, until it is parked)
 * @UBFAB_ORDER_WAIT: an unsatisfied wait holds it: it holds nothing back
 * @UBFAB_ORDER_READY: its wait was found satisfied when an entry of the
 *	domain ended; the outcome is latched in the member
 * @UBFAB_ORDER_PARKED: out of the order until its next entry runs
 */
enum ubfab_order_state {
	UBFAB_ORDER_RUN,
	UBFAB_ORDER_WAIT,
	UBFAB_ORDER_READY,
	UBFAB_ORDER_PARKED,
};

/**
 * struct ubfab_order_member - a queue's place in the ordered domain
 *	(model_order.c); all under the domain's lock, but @idle and
 *	@idle_since, which only the queue's engine writes (under its
 *	run_lock, and the domain's lock to set them)
 * @node: in the domain's members
 * @key_ps: when its next entry starts: its clock
 * @eid: its entity, the first tie-break
 * @qid: its number in the entity, the second
 * @state: enum ubfab_order_state
 * @blocked: its engine stopped for its turn: kick it when the turn comes
 * @park: UBFAB_CLOCK_PARK: park it when its SQ is next found empty
 * @idle: its engine found its SQ empty (or its CQ full), at @idle_since
 * @idle_since: in jiffies
 * @retry: engine state: how long a blocked engine may sleep, in jiffies
 *	(MAX_JIFFY_OFFSET: until it is kicked)
 * @status: the latched wait's status
 * @seen: the latched wait's value or count seen
 * @after_ps: the latched wait's satisfier's time
 */
struct ubfab_order_member {
	struct list_head node;
	u64 key_ps;
	u32 eid;
	u32 qid;
	u8 state;
	bool blocked;
	bool park;
	bool idle;
	unsigned long idle_since;
	unsigned long retry;
	u16 status;
	u64 seen;
	u64 after_ps;
};

struct ubfab_fabric;
struct ubfab_link;
void ubfab_model_links_reset(struct ubfab_fabric *fabric);
void ubfab_model_queue_users(struct ubfab_entity *entity, u32 qid,
			     int delta);
u64 ubfab_model_link_idle_ps(const struct ubfab_link *l, u64 busy_ps);

/**
 * struct ubfab_model_mem - the kernel memory the fabric model holds
 *	(model_mem.c), in bytes of the structures (allocator rounding and
 *	slab overhead aside)
 * @links: directions of links contention keeps (struct ubfab_link): two
 *	in every port, two for each pair of an L1 and an L2 switch of a
 *	plane; and each entity's UBFAB_MODEL_ENGINES DMA engines and
 *	vector-core paths, kept as links are
 * @links_bytes: their bytes, their idle gaps included; fixed for the
 *	fabric's shape
 * @queues: live queues
 * @queue_bytes: the model's fields in them, @queues times the clock's
 *	and the ordered domain member's sizes
 * @stamps: flag words a modeled write or UBFAB_IOCTL_QUEUE_STAMP
 *	stamped, in memory not freed since
 * @stamp_bytes: their stamps (struct ubfab_model_stamps, as allocated)
 *	and the xarray nodes that hold them (struct xa_node)
 * @other_bytes: the copy of the parameters in force (none while profile
 *	cm384's own table is) and the ordered domain's head
 * @total_bytes: the sum of the bytes above
 */
struct ubfab_model_mem {
	u64 links;
	u64 links_bytes;
	u32 queues;
	u64 queue_bytes;
	u64 stamps;
	u64 stamp_bytes;
	u64 other_bytes;
	u64 total_bytes;
};

void ubfab_model_mem(struct ubfab_fabric *fabric, struct ubfab_model_mem *m);

/* model_order.c: the ordered domain (deterministic mode) */
bool ubfab_order_default(void);
void ubfab_order_join(struct ubfab_queue *q);
void ubfab_order_leave(struct ubfab_queue *q);
bool ubfab_order_turn(struct ubfab_queue *q);
void ubfab_order_done(struct ubfab_queue *q);
void ubfab_order_idle(struct ubfab_queue *q);
void ubfab_order_park(struct ubfab_queue *q);
bool ubfab_order_wait_done(struct ubfab_queue *q);

/* model_sync.c: causality between waits and what satisfies them */
struct ubfab_entity;
bool ubfab_model_stamp_prepare(struct ubfab_queue *q,
			       const struct ubfab_exec *ex, u32 plane,
			       struct ubfab_entity *owner, u64 addr, u32 bytes,
			       u64 *ps);
void ubfab_model_stamp_add(struct ubfab_entity *owner, u64 addr, u64 value,
			   bool known, u64 ps);
int ubfab_model_stamp_set(struct ubfab_entity *owner, u64 addr, u64 ps);
u64 ubfab_model_stamp(struct ubfab_entity *owner, u64 addr, u64 seen,
		      bool eq, u64 target);
void ubfab_model_forget(struct ubfab_entity *owner, u64 addr, u64 len);
long ubfab_model_stamp_ioctl(struct ubfab_queue *q, void __user *uarg);

/*
 * Whole nanoseconds of @ps, rounded down: @ps / 1000 as compilers write
 * it, (@ps / 8) times 2^68 / 125 rounded up, the high bits of the
 * product; exact for every u64. Written out because a compiler may
 * divide on a path it takes for cold (gcc 12 did, in the engine's charge
 * of an entry priced like the last, for 6.12 but not 6.1), and under
 * QEMU TCG a divide is a call into the emulator: the model then cost
 * twice the time on one kernel of what it did on the other.
 */
static inline u64 ubfab_model_ns(u64 ps)
{
	static_assert(UBFAB_MODEL_PS_PER_NS == 1000);
	return mul_u64_u64_shr(ps >> 3, 0x20c49ba5e353f7cfULL, 68);
}

/*
 * What the model keeps of a chunk of @ex that crossed @plane to @peer:
 * the planes used and where the bytes went (route.h calls it for every
 * chunk). A few stores: it is on the data path.
 */
static __always_inline void ubfab_model_note(struct ubfab_exec *ex,
					     u32 plane,
					     const struct ubfab_entity *peer)
{
	ex->peer = &peer->loc;
	ex->plane_mask |= BIT(plane);
}

/* Move @c on by @ps, saturating. */
static __always_inline void ubfab_model_advance(struct ubfab_model_clock *c,
						u64 ps)
{
	if (check_add_overflow(c->now_ps, ps, &c->now_ps))
		c->now_ps = U64_MAX;
}

/* @c's time in whole nanoseconds. */
static inline u64 ubfab_model_now_ns(const struct ubfab_model_clock *c)
{
	return ubfab_model_ns(c->now_ps);
}

/*
 * An entry's opcode and class (its UBFAB_SQE_MEMSEM flag) as one value:
 * the first two bytes of the entry, read at once, the other flags masked.
 */
static __always_inline u16 ubfab_model_kind(const struct ubfab_sqe *sqe)
{
	u16 v;

	static_assert(offsetof(struct ubfab_sqe, opcode) == 0 &&
		      offsetof(struct ubfab_sqe, flags) == 1);
	memcpy(&v, sqe, sizeof(v));
	return v & (__force u16)cpu_to_le16(0xff | UBFAB_SQE_MEMSEM << 8);
}

/*
 * An entry's opcode, class and length as one value: the first 8 bytes of
 * the entry, read at once, the other flags and __reserved masked. Of the
 * entries of a burst, which all cross to one peer and each move their
 * length (ubfab_xfer_fast_run()), one is alike another when this is.
 */
static __always_inline u64 ubfab_model_key(const struct ubfab_sqe *sqe)
{
	u64 v;

	static_assert(offsetof(struct ubfab_sqe, length) == 4);
	memcpy(&v, sqe, sizeof(v));
	return v & (__force u64)cpu_to_le64(0xff | UBFAB_SQE_MEMSEM << 8 |
					    (u64)U32_MAX << 32);
}

/*
 * Whether @ex is like the last transfer @c remembers: its peer (so it
 * crossed a link), its length (one chunk: one plane; never U32_MAX) and
 * its kind.
 */
static __always_inline bool
ubfab_model_alike(const struct ubfab_model_clock *c,
		  const struct ubfab_exec *ex)
{
	return ex->peer == c->last_peer && ex->bytes == c->last_bytes &&
	       ubfab_model_kind(&ex->sqe) == c->last_kind;
}

/*
 * ubfab_model_charge() of @ex, which @ahead entries of a burst, already
 * run, follow; without looking at ubfab_model_gen, for a burst after
 * ubfab_model_burst_begin(), with @check_gen false.
 */
static __always_inline void __ubfab_model_charge(struct ubfab_model_clock *c,
						 const struct ubfab_loc *self,
						 struct ubfab_exec *ex,
						 bool check_gen,
						 unsigned int ahead)
{
	/* off: model_ns stays 0, the clock where it is */
	if (!static_branch_likely(&ubfab_model_on))
		return;
	c->entries++;
	/* in a run: alike the last, its links reserved with the run's first */
	if (c->run_left) {
		c->run_left--;
		ubfab_model_advance(c, c->last_ps);
	} else if (ubfab_model_alike(c, ex) &&
		   (!check_gen || c->last_gen == READ_ONCE(ubfab_model_gen))) {
		/* like the last, the same parameters in force */
		u64 before = c->now_ps;

		ubfab_model_advance(c, c->last_ps);
		if (c->last_contends)
			ubfab_model_contend_alike(c, self, ex, before, ahead);
	} else {
		ubfab_model_charge_new(c, self, ex);
	}
	ex->model_ns = ubfab_model_now_ns(c);
}

/**
 * ubfab_model_charge() - an entry ran: charge its cost to its queue's clock
 * @c: the queue's clock
 * @self: where the queue's entity sits
 * @ex: the entry; its @model_ns gets its end, the clock's new time
 *
 * A transfer of one chunk like the queue's last one (same peer, opcode,
 * length and class, same parameters, no port with fault knobs) costs what
 * that one did, found here, plus what it waits for links other transfers
 * hold (ubfab_model_contend_alike()); anything else is worked out by
 * ubfab_model_charge_new(). With the model off, nothing is charged:
 * @ex's model_ns stays 0. Context: the queue's run_lock held.
 */
static __always_inline void ubfab_model_charge(struct ubfab_model_clock *c,
					       const struct ubfab_loc *self,
					       struct ubfab_exec *ex)
{
	__ubfab_model_charge(c, self, ex, true, 0);
}

/*
 * A burst is about to be charged: forget the last transfer's price if the
 * parameters changed since, so that its entries need not look. A change
 * made during the burst applies from the next one.
 */
static __always_inline void
ubfab_model_burst_begin(struct ubfab_model_clock *c)
{
	if (c->last_gen != READ_ONCE(ubfab_model_gen))
		c->last_bytes = U32_MAX;
}

/*
 * A new queue's clock: at 0, no last transfer to price others like, the
 * seed its link errors are rolled from, and its number @qid.
 */
static inline void ubfab_model_clock_init(struct ubfab_model_clock *c,
					  u32 seed, u32 qid)
{
	c->last_bytes = U32_MAX;
	c->seed = seed;
	c->qid = qid;
}

#endif /* _UBFAB_MODEL_H */
