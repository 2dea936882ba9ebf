/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ubfab internal header: the object model of the emulated fabric and the
 * functions each file exports to the others.
 *
 * Object model (Documentation/architecture.rst has the full picture):
 *
 *   fabric ─┬─ planes[]    ── switches[] (L1 per node, then L2)
 *           └─ entities[]  ── ports[]  (one per plane)
 *
 * The fabric is built once in module init and torn down in module exit.
 * Its shape (topology, arrays, names) is immutable in between, so readers
 * need no lock to walk it. The mutable parts are states, read and written
 * with READ_ONCE()/WRITE_ONCE(), and counters, which are atomic64_t.
 * Entities are reference counted through their struct device: an open file
 * holds a reference, and the last put frees the entity.
 */
#ifndef _UBFAB_H
#define _UBFAB_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/idr.h>
#include <linux/kfifo.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/ubfab.h>

#define UBFAB_MAX_NODES		256
#define UBFAB_MAX_CHIPS		16	/* NPU chips per node */
#define UBFAB_MAX_DIES		4	/* dies per NPU chip */
#define UBFAB_MAX_CPUS		16	/* CPUs per node */
#define UBFAB_MAX_PLANES	16
#define UBFAB_MAX_L2		64	/* L2 switch chips per plane */
#define UBFAB_MAX_ENTITIES	8192
#define UBFAB_MAX_MEM		BIT_ULL(40)	/* per entity */

/*
 * mmap() offsets of an entity's device: [0, mem_size) maps the file's own
 * allocations; imports get windows of UBFAB_MAX_MEM each from
 * UBFAB_IMPORT_BASE up, numbered per entity.
 */
#define UBFAB_IMPORT_BASE	BIT_ULL(48)
#define UBFAB_MAX_IMPORTS	BIT(14)

/**
 * struct ubfab_topo - the shape of the supernode, resolved from parameters
 * @profile: name of the profile the shape started from, or "custom"
 * @nodes: servers in the supernode
 * @chips_per_node: NPU chips per node
 * @dies_per_chip: dies per NPU chip; each die is one entity
 * @cpus_per_node: CPUs per node; each CPU is one entity
 * @planes: independent switching planes; every entity has a port in each
 * @l2_per_plane: L2 switch chips in each plane
 * @npu_mem: bytes of HBM per NPU die
 * @cpu_mem: bytes of DRAM per CPU
 */
struct ubfab_topo {
	const char *profile;
	u32 nodes;
	u32 chips_per_node;
	u32 dies_per_chip;
	u32 cpus_per_node;
	u32 planes;
	u32 l2_per_plane;
	u64 npu_mem;
	u64 cpu_mem;
};

/**
 * struct ubfab_loc - where an entity sits in the supernode
 * @kind: NPU die or CPU
 * @node: node (server) index
 * @chip: NPU chip within the node (NPU only)
 * @die: die within the chip (NPU only)
 * @socket: CPU within the node (CPU only)
 */
struct ubfab_loc {
	enum ubfab_entity_kind kind;
	u32 node;
	u32 chip;
	u32 die;
	u32 socket;
};

/* topo.c: parameters, profiles and EID arithmetic */
int ubfab_topo_resolve(struct ubfab_topo *topo);
u32 ubfab_topo_npus(const struct ubfab_topo *topo);
u32 ubfab_topo_cpus(const struct ubfab_topo *topo);
u32 ubfab_topo_entities(const struct ubfab_topo *topo);
void ubfab_topo_locate(const struct ubfab_topo *topo, u32 eid,
		       struct ubfab_loc *loc);

/**
 * struct ubfab_stats - traffic counters of a port
 *
 * Updated with atomic64_add() by the data path and read one by one, so a
 * reader may see a transfer's bytes before its op; each value on its own is
 * exact. A plane's counters are the sums of those of its ports
 * (ubfab_plane_stats()): whatever crosses a plane leaves through one of
 * its ports and enters through another, and an error counts on the port
 * and plane the transfer started on.
 */
struct ubfab_stats {
	atomic64_t tx_bytes;
	atomic64_t rx_bytes;
	atomic64_t tx_ops;
	atomic64_t rx_ops;
	atomic64_t errors;
};

/* The values of struct ubfab_stats, or their sums, as reported. */
struct ubfab_stats_val {
	u64 tx_bytes;
	u64 rx_bytes;
	u64 tx_ops;
	u64 rx_ops;
	u64 errors;
};

enum ubfab_switch_tier {
	UBFAB_SWITCH_L1,
	UBFAB_SWITCH_L2,
};

/**
 * struct ubfab_switch - one UB switch chip
 * @tier: L1 (in a node) or L2 (joining the nodes of one plane)
 * @index: node for L1, position in the plane for L2
 * @state: enum ubfab_state, READ_ONCE()/WRITE_ONCE()
 */
struct ubfab_switch {
	enum ubfab_switch_tier tier;
	u32 index;
	int state;
};

/**
 * struct ubfab_plane - one independent switching plane
 * @id: plane number, 0 .. planes - 1
 * @state: enum ubfab_state, READ_ONCE()/WRITE_ONCE()
 * @nr_l1: L1 switches, one per node; they come first in @switches
 * @nr_l2: L2 switches, after the L1 ones in @switches
 * @switches: nr_l1 + nr_l2 switches
 */
struct ubfab_plane {
	u32 id;
	int state;
	u32 nr_l1;
	u32 nr_l2;
	struct ubfab_switch *switches;
};

struct ubfab_entity;

/**
 * struct ubfab_port - the UB port of one entity into one plane
 * @entity: owner
 * @plane: the plane this port attaches to
 * @state: enum ubfab_state, READ_ONCE()/WRITE_ONCE()
 * @stats: traffic through this port
 */
struct ubfab_port {
	struct ubfab_entity *entity;
	u32 plane;
	int state;
	struct ubfab_stats stats;
};

/**
 * struct ubfab_entity - a UB endpoint: an NPU die or a CPU
 * @dev: the device under class "ubfab"; its refcount is the entity's
 * @cdev: /dev/ubfab/<name>; an open file holds a reference on @dev
 * @fabric: the fabric this entity belongs to
 * @eid: fabric identifier, also the index in the fabric's entity table
 * @loc: position in the supernode
 * @mem_size: bytes of memory (HBM or DRAM) this entity owns
 * @mem_lock: guards @allocs, @pages, @segments and the revoked state of
 *	windows onto this entity's memory; page faults take it shared, so a
 *	revocation (taken exclusive) never races with a fault inserting a page
 * @mem_gen: bumped, under @mem_lock held exclusive, whenever an allocation
 *	goes and its pages leave @pages; what a queue's translation cache
 *	(struct ubfab_xfer_cache) learnt of this memory holds while it is
 *	unchanged
 * @allocs: allocations of this entity's memory, sorted by offset
 * @pages: backing pages, indexed by page offset in the entity's memory
 * @segments: exported segments, indexed by token id
 * @import_ids: numbers of the import windows of files of this entity
 * @queue_ids: numbers of the queues of files of this entity
 * @auth_failures: refused imports of this entity's segments
 * @ports_up: bit p set while port p is up: @ports' states as one word
 *	for the data path, changed with them
 * @nr_ports: ports in @ports, one per plane
 * @ports: the entity's UB ports
 */
struct ubfab_entity {
	struct device dev;
	struct cdev cdev;
	struct ubfab_fabric *fabric;
	u32 eid;
	struct ubfab_loc loc;
	u64 mem_size;
	struct rw_semaphore mem_lock;
	u64 mem_gen;
	struct list_head allocs;
	struct xarray pages;
	struct xarray segments;
	struct ida import_ids;
	struct ida queue_ids;
	atomic64_t auth_failures;
	unsigned long ports_up;
	u32 nr_ports;
	struct ubfab_port ports[];
};

static inline struct ubfab_entity *to_ubfab_entity(struct device *dev)
{
	return container_of(dev, struct ubfab_entity, dev);
}

/**
 * struct ubfab_fabric - the whole emulated supernode
 * @topo: its shape
 * @setup_ns: how long building it took
 * @devt: first device number; entity eid uses @devt + eid
 * @planes: @topo.planes planes
 * @planes_up: bit p set while plane p is up: the planes' states as one
 *	word for the data path, changed with them
 * @nr_entities: entities in @entities
 * @entities: table indexed by EID; each slot holds a device reference
 */
struct ubfab_fabric {
	struct ubfab_topo topo;
	u64 setup_ns;
	dev_t devt;
	struct ubfab_plane *planes;
	unsigned long planes_up;
	u32 nr_entities;
	struct ubfab_entity **entities;
};

/**
 * struct ubfab_file - one open file of an entity's device: a process acting
 *	as that entity
 * @entity: the entity, referenced
 * @filp: the open file itself; each queue of the file holds a reference
 * @mapping: the address space of the file's inode, which its mmap()s use
 * @allocs: allocations of this file (struct ubfab_alloc.file_node)
 * @imports_lock: guards @imports and @imports_gen
 * @imports: imports of this file, indexed by window number
 * @imports_gen: bumped whenever an import leaves @imports; what a queue's
 *	translation cache learnt of an import holds while it is unchanged
 * @event_lock: guards @events and @events_lost
 * @events: queued events
 * @events_lost: events dropped since the queue was last full
 * @read_lock: serializes readers of @events
 * @wait: woken when an event is queued
 * @queues_lock: guards @queues
 * @queues: the file's queues (struct ubfab_queue.file_node)
 * @queue_events: UBFAB_QUEUE_EVENTS counters for EVENT_RECORD/WAIT,
 *	allocated when the file creates its first queue, then never changed
 */
struct ubfab_file {
	struct ubfab_entity *entity;
	struct file *filp;
	struct address_space *mapping;
	struct list_head allocs;
	struct mutex imports_lock;	/* guards @imports */
	struct xarray imports;
	u64 imports_gen;
	spinlock_t event_lock;		/* guards the event queue */
	DECLARE_KFIFO(events, struct ubfab_event, UBFAB_EVENT_QUEUE);
	u64 events_lost;
	struct mutex read_lock;		/* serializes readers of @events */
	wait_queue_head_t wait;
	spinlock_t queues_lock;		/* guards @queues */
	struct list_head queues;
	atomic64_t *queue_events;
};

/* Most bytes a transfer moves through a queue's bounce buffer (xfer.c). */
#define UBFAB_XFER_INLINE	256

/**
 * struct ubfab_xfer_page - a page a queue's data path used last
 * @owner: the entity whose memory holds it, or NULL (nothing cached)
 * @gen: @owner->mem_gen when it was found
 * @idx: its page offset in @owner's memory
 * @page: the page, owned by @owner->pages
 * @addr: its kernel address, or NULL for a highmem page (which the fast
 *	path leaves to the slow one)
 */
struct ubfab_xfer_page {
	struct ubfab_entity *owner;
	u64 gen;
	pgoff_t idx;
	struct page *page;
	void *addr;
};

/**
 * struct ubfab_xfer_cache - a queue's data path state from one entry to
 *	the next, guarded by the queue's @run_lock: where the plane rotation
 *	stands, and a translation cache of what the last entries resolved
 * @plane_cursor: the plane the next remote entry starts from, below the
 *	fabric's plane count
 * @imports_gen: the file's @imports_gen when @imp_win was resolved
 * @imp_base: the import's address, as queue entries name it
 * @imp_size: its bytes
 * @imp_addr: its first byte in its owner's memory
 * @imp_rights: its rights
 * @imp_win: its window, referenced, or NULL (nothing cached)
 * @local_gen: the entity's @mem_gen when @local_start was found
 * @local_start: first byte of the allocation last found ...
 * @local_end: ... and the byte after it; equal: nothing cached
 * @local_win: that allocation's window, referenced
 * @lpage: the local page used last
 * @rpage: the remote page used last
 * @bounce: staging for transfers of at most UBFAB_XFER_INLINE bytes
 *
 * Each cached fact holds while the generation it was read under is
 * unchanged. The data path touches cached allocations and pages only after
 * comparing mem_gen, with the entity's mem_lock held shared (it changes
 * with the lock held exclusive) or, on the fast path, before entering the
 * windows holding them (ubfab_window_enter(): the pages stay until those
 * are revoked); it compares imports_gen with READ_ONCE(), which is enough
 * because the cache holds its own references on both windows and
 * revocation is read under the owner's mem_lock or by entering. So
 * nothing in the cache is used after what it names is gone.
 */
struct ubfab_xfer_cache {
	u32 plane_cursor;
	u64 imports_gen;
	u64 imp_base;
	u64 imp_size;
	u64 imp_addr;
	u32 imp_rights;
	struct ubfab_window *imp_win;
	u64 local_gen;
	u64 local_start;
	u64 local_end;
	struct ubfab_window *local_win;
	struct ubfab_xfer_page lpage;
	struct ubfab_xfer_page rpage;
	u8 bounce[UBFAB_XFER_INLINE];
};

struct ubfab_ring_hdr;

/* Most entries a burst of the queue engine takes (queue.c). */
#define UBFAB_QUEUE_BURST	32

/**
 * struct ubfab_queue - an NPU queue: a submission and a completion ring
 *	shared with user space, and the engine state that runs them
 * @file: the entity file that created the queue; @file->filp is referenced
 * @file_node: in @file->queues
 * @id: number in the entity (@file->entity->queue_ids)
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
 * @waiting: @wait_sqe (EVENT_WAIT or WAIT_VALUE) holds the queue;
 *	WRITE_ONCE() because EVENT_RECORD on another queue reads it
 * @wait_sqe: the entry that holds the queue
 * @wait_deadline: when it times out, in jiffies, if it has a time-out
 * @poll_busy_ns: UBFAB_QUEUE_POLL: when the engine last found work
 * @xfer: the data path's state: plane rotation, translation cache
 * @burst: copies of the entries of a burst (queue.c)
 */
struct ubfab_queue {
	struct ubfab_file *file;
	struct list_head file_node;
	u32 id;
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
	struct ubfab_sqe wait_sqe;
	unsigned long wait_deadline;
	u64 poll_busy_ns;
	struct ubfab_xfer_cache xfer;
	struct ubfab_sqe burst[UBFAB_QUEUE_BURST];
};

/**
 * struct ubfab_queue_create_cmd - UBFAB_IOCTL_QUEUE_CREATE in flight
 * @arg: the user's argument; first, as the ioctl table copies it in and out
 * @filp: the new queue's file, installed at @arg.fd once @arg is copied out
 */
struct ubfab_queue_create_cmd {
	struct ubfab_queue_create arg;
	struct file *filp;
};

/**
 * struct ubfab_window - a range of one entity's memory that a VMA may map
 * @ref: held by the owner object and by each VMA mapping the window
 * @owner: the entity whose memory this is
 * @first: first page, as a page offset in @owner's memory
 * @npages: pages in the window
 * @base: the mmap() offset, in pages, at which VMAs map the window
 * @memcg: for an allocation, the memory cgroup charged for its pages
 * @parent: for an import, the window of the allocation it lies in
 * @revoked: set under @owner->mem_lock held exclusive; faults then fail;
 *	read without the lock only by ubfab_window_enter()
 * @writable: mappings may be writable
 * @busy: copies in progress through the window without the owner's
 *	mem_lock (ubfab_window_enter()); revocation waits until none is left
 */
struct ubfab_window {
	struct kref ref;
	struct ubfab_entity *owner;
	pgoff_t first;
	pgoff_t npages;
	pgoff_t base;
	struct mem_cgroup *memcg;
	struct ubfab_window *parent;
	bool revoked;
	bool writable;
	atomic_t busy;
};

/**
 * struct ubfab_alloc - a range of an entity's memory allocated by a file
 * @win: the range; its revocation frees the memory
 * @file: the allocating file
 * @memcg: memory cgroup charged for the pages
 * @entity_node: in the entity's @allocs, sorted
 * @file_node: in the file's @allocs
 */
struct ubfab_alloc {
	struct ubfab_window *win;
	struct ubfab_file *file;
	struct mem_cgroup *memcg;
	struct list_head entity_node;
	struct list_head file_node;
};

/**
 * struct ubfab_segment - an exported range, guarded by a token
 * @ref: held by the owner entity's table and by each import
 * @owner: the exporting entity
 * @file: the exporting file, or NULL once unexported
 * @token_id: the segment's key in @owner->segments
 * @token_value: the secret importers must present
 * @pid: the exporting process, as seen from the initial pid namespace
 * @rights: UBFAB_SEG_* granted
 * @first: first page in @owner's memory
 * @npages: pages in the segment
 * @alloc_win: window of the allocation the segment lies in, referenced
 * @imports: struct ubfab_import.seg_node, under @owner->mem_lock
 * @nr_imports: entries in @imports
 */
struct ubfab_segment {
	struct kref ref;
	struct ubfab_entity *owner;
	struct ubfab_file *file;
	struct ubfab_window *alloc_win;
	u32 token_id;
	u32 token_value;
	pid_t pid;
	u32 rights;
	pgoff_t first;
	pgoff_t npages;
	struct list_head imports;
	u32 nr_imports;
};

/**
 * struct ubfab_import - a segment imported by a file
 * @win: the mappable window onto the exporter's memory
 * @seg: the segment, referenced
 * @file: the importing file
 * @id: window number; mmap offset UBFAB_IMPORT_BASE + id * UBFAB_MAX_MEM
 * @rights: UBFAB_SEG_* asked for and granted
 * @seg_node: in @seg->imports while the import is live
 */
struct ubfab_import {
	struct ubfab_window *win;
	struct ubfab_segment *seg;
	struct ubfab_file *file;
	u32 id;
	u32 rights;
	struct list_head seg_node;
};

/* fabric.c */
struct ubfab_fabric *ubfab_fabric_create(const struct ubfab_topo *topo);
void ubfab_fabric_destroy(struct ubfab_fabric *fabric);
struct ubfab_entity *ubfab_entity_find(struct ubfab_fabric *fabric, u32 eid);
struct ubfab_entity *ubfab_entity_find_by_name(struct ubfab_fabric *fabric,
					       const char *name);

/* plane.c */
int ubfab_planes_init(struct ubfab_fabric *fabric);
void ubfab_planes_fini(struct ubfab_fabric *fabric);
u32 ubfab_plane_ports_up(const struct ubfab_fabric *fabric,
			 const struct ubfab_plane *plane);
void ubfab_stats_add(struct ubfab_stats_val *sum,
		     const struct ubfab_stats *stats);
void ubfab_plane_stats(const struct ubfab_fabric *fabric,
		       const struct ubfab_plane *plane,
		       struct ubfab_stats_val *val);

/* entity.c */
int ubfab_entity_class_register(void);
void ubfab_entity_class_unregister(void);
struct ubfab_entity *ubfab_entity_create(struct ubfab_fabric *fabric,
					 u32 eid);
void ubfab_entity_destroy(struct ubfab_entity *entity);

/* file.c */
extern const struct file_operations ubfab_entity_fops;

/* mem.c */
void ubfab_mem_init(struct ubfab_entity *entity);
void ubfab_mem_fini(struct ubfab_entity *entity);
int ubfab_mem_alloc(struct ubfab_file *file, struct ubfab_mem_alloc *arg);
int ubfab_mem_free(struct ubfab_file *file, u64 offset);
/* Exposed for mem_kunit.c. */
int ubfab_mem_find_gap(struct ubfab_entity *entity, pgoff_t npages,
		       pgoff_t *first, struct list_head **next);
void ubfab_mem_free_all(struct ubfab_file *file);
void ubfab_mem_reset(struct ubfab_entity *entity);
int ubfab_mem_mmap(struct ubfab_file *file, struct vm_area_struct *vma);
struct ubfab_alloc *ubfab_mem_find_alloc(struct ubfab_file *file,
					 pgoff_t first, pgoff_t npages);
struct ubfab_window *ubfab_window_create(struct ubfab_entity *owner,
					 pgoff_t first, pgoff_t npages,
					 bool writable);
void ubfab_window_put(struct ubfab_window *win);
struct page *ubfab_mem_page(struct ubfab_window *win, pgoff_t idx);
void ubfab_window_revoke(struct ubfab_window *win,
			 struct address_space *mapping);
int ubfab_mem_map_window(struct vm_area_struct *vma, struct ubfab_window *win);

/**
 * ubfab_window_leave() - end what ubfab_window_enter() started
 * @win: the window
 *
 * The decrement is fully ordered after the copy's accesses; the last one
 * out of a revoked window wakes its revoker.
 */
static __always_inline void ubfab_window_leave(struct ubfab_window *win)
{
	if (atomic_dec_and_test(&win->busy) && READ_ONCE(win->revoked))
		wake_up_var(&win->busy);
}

/**
 * ubfab_window_enter() - start touching a window's pages without its lock
 * @win: a window whose memory stays valid (the caller holds a reference)
 *
 * The queue data path's fast path (xfer.c) copies between pages it found
 * earlier without taking the owners' mem_locks. Between this and
 * ubfab_window_leave() the window's pages, as found while it was not
 * revoked, stay its owner's: ubfab_window_revoke() waits for every copy
 * that entered before it, and the owner frees pages only after revoking
 * the window that holds them. The caller must not sleep or take a
 * mem_lock in between.
 *
 * Ordering: the increment is fully ordered before the load of @revoked;
 * the revoker stores @revoked, then smp_mb(), then reads @busy. So either
 * the revoker waits for this copy or this sees the window revoked.
 *
 * Return: false, having left again, when the window is revoked.
 */
static __always_inline bool ubfab_window_enter(struct ubfab_window *win)
{
	atomic_inc(&win->busy);
	/* Pairs with the smp_mb() in ubfab_window_revoke(). */
	smp_mb__after_atomic();
	if (likely(!READ_ONCE(win->revoked)))
		return true;
	ubfab_window_leave(win);
	return false;
}

/* segment.c */
int ubfab_seg_export(struct ubfab_file *file, struct ubfab_seg_export *arg);
int ubfab_seg_unexport(struct ubfab_file *file, u32 token_id);
int ubfab_seg_import(struct ubfab_file *file, struct ubfab_seg_import *arg);
int ubfab_seg_unimport(struct ubfab_file *file, u64 mmap_offset);
long ubfab_import_id(u64 offset);
int ubfab_seg_mmap(struct ubfab_file *file, struct vm_area_struct *vma);
void ubfab_seg_revoke_range(struct ubfab_entity *owner, pgoff_t first,
			    pgoff_t npages, u32 reason);
void ubfab_seg_drop_imports(struct ubfab_file *file);

/* xfer.c: the data path of queue entries */
u16 ubfab_xfer_execute(struct ubfab_file *file, const struct ubfab_sqe *sqe,
		       struct ubfab_xfer_cache *cache, u64 *result, u32 *bytes);
unsigned int ubfab_xfer_fast_run(struct ubfab_file *file,
				 struct ubfab_xfer_cache *cache,
				 const struct ubfab_sqe *sqes, unsigned int n);
void ubfab_xfer_cache_fini(struct ubfab_xfer_cache *cache);
u16 ubfab_xfer_load_local(struct ubfab_file *file, u64 local, u64 *val);
/* xfer.c's routing and chunk arithmetic, exposed for its KUnit suite */
#define UBFAB_XFER_NO_PLANE	U32_MAX

/**
 * ubfab_xfer_pick_plane() - the plane the next chunk of a transfer takes
 * @usable: bit p set when plane p may carry it
 * @nr_planes: planes in the fabric; bits of @usable at or above it are
 *	ignored
 * @next: where the round-robin stands, taken modulo @nr_planes; moved past
 *	the plane picked
 *
 * Return: the first usable plane at or after *@next, wrapping around, or
 * UBFAB_XFER_NO_PLANE (*@next unchanged).
 */
static __always_inline u32
ubfab_xfer_pick_plane(u32 usable, u32 nr_planes, u32 *next)
{
	u32 from = *next, p, later;

	/* the data path keeps its positions in range: no division there */
	if (unlikely(from >= nr_planes))
		from %= nr_planes;
	/* the common case, all that a queue's fast path pays for */
	if (likely(usable & BIT(from))) {
		p = from;
		goto out;
	}
	usable &= GENMASK(nr_planes - 1, 0);
	if (!usable)
		return UBFAB_XFER_NO_PLANE;
	later = usable & GENMASK(nr_planes - 1, from);
	p = __ffs(later ? later : usable);
out:
	*next = p + 1 < nr_planes ? p + 1 : 0;
	return p;
}

u32 ubfab_xfer_chunk_len(u32 length, u32 done);
u32 ubfab_xfer_npages(u64 addr, u32 len);
bool ubfab_xfer_range_ok(u64 off, u64 len, u64 size);

/* queue.c */
int ubfab_queue_wq_init(void);
void ubfab_queue_wq_fini(void);
void ubfab_queue_file_init(struct ubfab_file *file);
void ubfab_queue_file_fini(struct ubfab_file *file);
int ubfab_queue_create(struct ubfab_file *file,
		       struct ubfab_queue_create_cmd *cmd);
void ubfab_queue_create_undo(struct ubfab_queue_create_cmd *cmd);
void ubfab_queue_create_commit(struct ubfab_queue_create_cmd *cmd);
/* Default and largest polling time of an idle UBFAB_QUEUE_POLL queue. */
#define UBFAB_QUEUE_IDLE_US	1000
#define UBFAB_QUEUE_IDLE_US_MAX	1000000
/* Exposed for queue_kunit.c. */
int ubfab_queue_check_create(const struct ubfab_queue_create *arg,
			     u32 *cq_entries, u32 *idle_us);

/*
 * Ring index arithmetic. Indices are free-running u32s that wrap at 2^32;
 * a ring has @entries slots, a power of two, and index i is in slot
 * i & (@entries - 1). A producer's @tail is believable when it is at most
 * @entries ahead of the consumer's @head (else user space wrote garbage);
 * the producer may add an entry while fewer than @entries are pending.
 */
static inline bool ubfab_ring_tail_ok(u32 tail, u32 head, u32 entries)
{
	return tail - head <= entries;
}

static inline bool ubfab_ring_has_room(u32 tail, u32 head, u32 entries)
{
	return tail - head < entries;
}

/* event.c */
void ubfab_event_init(struct ubfab_file *file);
void ubfab_event_post(struct ubfab_file *file, const struct ubfab_event *ev);
ssize_t ubfab_event_read(struct file *filp, char __user *buf, size_t count,
			 loff_t *ppos);
__poll_t ubfab_event_poll(struct file *filp, struct poll_table_struct *wait);

/* netlink.c */
int ubfab_netlink_init(struct ubfab_fabric *fabric);
void ubfab_netlink_fini(void);

#endif /* _UBFAB_H */
