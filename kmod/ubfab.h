/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ubfab internal header: the object model of the emulated fabric (the
 * supernode's shape, planes, entities and their ports, entity files) and
 * the functions of the files that build and report it. Each subsystem has
 * a header of its own for the rest: mem.h (memory, windows, segments),
 * queue.h (NPU queues as the entity file sees them), engine.h (a queue's
 * insides, for the files that run it), op.h (the opcode table), xfer.h
 * (the data path), route.h (planes and the link crossing point), model.h
 * (the fabric model: modeled time).
 *
 * Object model (Documentation/architecture.rst has the full picture):
 *
 *   fabric ─┬─ planes[]
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
#include <linux/bits.h>
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/idr.h>
#include <linux/kfifo.h>
#include <linux/list.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/types.h>
#include <linux/wait.h>
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

/* The idle gaps a link keeps of its time line before its end (model.c). */
#define UBFAB_LINK_GAPS	8

/**
 * struct ubfab_link_gap - a stretch of modeled time a link stood idle in,
 *	or several merged, with the busy time between them (model.c)
 * @from_ps: its start
 * @to_ps: its end, after @from_ps
 * @idle_ps: how long of it the link stood idle: @to_ps - @from_ps but
 *	for merged ones
 */
struct ubfab_link_gap {
	u64 from_ps;
	u64 to_ps;
	u64 idle_ps;
};

/**
 * struct ubfab_link - one direction of a link, as the fabric model's
 *	contention sees it: its time line, in modeled picoseconds, and what
 *	it has carried (model.c)
 * @lock: bit 0, a bit spinlock (0 is unlocked): @end_ps and the gaps
 *	change under it
 * @end_ps: when its last reservation ends: before it the link is busy
 *	but in its gaps
 * @busy_ps: modeled time transfers have held it, added up since the
 *	module was loaded
 * @bytes: the payload bytes they moved over it, likewise
 * @base_ps: the ends the ordered domain's resets took away
 *	(ubfab_model_links_reset())
 * @nr_gaps: how many gaps it keeps, at most UBFAB_LINK_GAPS
 * @gaps: idle gaps before @end_ps, oldest first, apart from each other
 *
 * Every reservation after @end_ps moves @end_ps on by the time it holds
 * the link and the gap before it, if any, which it keeps; one before
 * @end_ps takes its time out of a gap: @base_ps + @end_ps is the modeled
 * time the link has seen go by, of which it stood idle for that less
 * @busy_ps (ubfab_model_link_idle_ps()). The counters only grow.
 * Ordering: @end_ps moves before @busy_ps grows (smp_wmb()); a reader
 * that reads @busy_ps, then @end_ps, never sees a reservation's busy time
 * without its end.
 */
struct ubfab_link {
	unsigned long lock;
	u64 end_ps;
	atomic64_t busy_ps;
	atomic64_t bytes;
	u64 base_ps;
	u32 nr_gaps;
	struct ubfab_link_gap gaps[UBFAB_LINK_GAPS];
};

/*
 * The fabric model's initiator resources an entity has, at most: of one
 * class (DMA engines, or vector-core paths), and of both (model.h).
 */
#define UBFAB_MODEL_MAX_ENGINES	8
#define UBFAB_MODEL_ENGINES	(2 * UBFAB_MODEL_MAX_ENGINES)

/**
 * struct ubfab_plane - one independent switching plane
 * @id: plane number, 0 .. planes - 1
 * @state: enum ubfab_state, READ_ONCE()/WRITE_ONCE()
 * @nr_l1: L1 switches, one per node
 * @nr_l2: L2 switches, joining the L1 ones
 * @links: the links between them, both directions: node n's L1 up to L2
 *	switch j at [(n * @nr_l2 + j) * 2], down from it at the next
 */
struct ubfab_plane {
	u32 id;
	int state;
	u32 nr_l1;
	u32 nr_l2;
	struct ubfab_link *links;
};

/* Directions of links in @plane's @links: up and down, per L1 and L2. */
static inline size_t ubfab_plane_nr_links(const struct ubfab_plane *plane)
{
	return 2 * (size_t)plane->nr_l1 * plane->nr_l2;
}

struct ubfab_entity;

/**
 * struct ubfab_port - the UB port of one entity into one plane
 * @entity: owner
 * @plane: the plane this port attaches to
 * @state: enum ubfab_state, READ_ONCE()/WRITE_ONCE()
 * @stats: traffic through this port
 * @bw_permille: fault injection in the model: the link's bandwidth here,
 *	per mille (1000: healthy)
 * @error_ppm: fault injection in the model: transfers through here that
 *	hit a link error, per million
 * @delay_ps: fault injection in the model: latency added one way here
 * @tx: the link from the entity into the plane's L1, for contention
 * @rx: the link from the L1 to the entity
 *
 * The knobs are written by netlink.c under its state lock and read with
 * READ_ONCE() by the model (model.c).
 */
struct ubfab_port {
	struct ubfab_entity *entity;
	u32 plane;
	int state;
	struct ubfab_stats stats;
	u32 bw_permille;
	u32 error_ppm;
	u64 delay_ps;
	struct ubfab_link tx;
	struct ubfab_link rx;
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
 * @stamps: the stamps of each flag word (the modeled arrivals of its last
 *	modeled writes and the values they left), indexed by word
 *	(offset / 8): model_sync.c
 * @segments: exported segments, indexed by token id
 * @import_ids: numbers of the import windows of files of this entity
 * @queues: the queues of files of this entity, by number (struct
 *	ubfab_queue; a reserved slot until the queue is whole), which
 *	netlink's queue dump reads under the array's lock
 * @rqs: the receive queues of files of this entity, by number (struct
 *	ubfab_rq, msg.c), which senders look up under the array's lock
 * @jetties: the jetties of files of this entity, by number (struct
 *	ubfab_jetty, jetty.c; a reserved slot until the jetty is whole)
 * @auth_failures: refused imports of this entity's segments
 * @ports_up: bit p set while port p is up: @ports' states as one word
 *	for the data path, changed with them
 * @engines: its DMA engines, then its vector-core paths, as the fabric
 *	model's contention sees them (model.c): UBFAB_MODEL_MAX_ENGINES of
 *	each class, of which the parameters in force use the first few
 * @engine_users: [m - 1][r]: how many of its queues have a number that is
 *	r modulo m, so share the engine (or path) of index r when its class
 *	has m (ubfab_model_queue_users()); changed under @queues' lock,
 *	read with READ_ONCE()
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
	struct xarray stamps;
	struct xarray segments;
	struct ida import_ids;
	struct xarray queues;
	struct xarray rqs;
	struct xarray jetties;
	atomic64_t auth_failures;
	unsigned long ports_up;
	struct ubfab_link engines[UBFAB_MODEL_ENGINES];
	u32 engine_users[UBFAB_MODEL_MAX_ENGINES][UBFAB_MODEL_MAX_ENGINES];
	u32 nr_ports;
	struct ubfab_port ports[];
};

static inline struct ubfab_entity *to_ubfab_entity(struct device *dev)
{
	return container_of(dev, struct ubfab_entity, dev);
}

/**
 * struct ubfab_order - the fabric's ordered model domain: the queues made
 *	with UBFAB_QUEUE_ORDERED, whose entries run one at a time in modeled
 *	time order (model_order.c)
 * @lock: guards everything here and each member's order state (struct
 *	ubfab_order_member); held while a member's entry runs
 * @members: the queues in the domain (struct ubfab_order_member.node)
 * @now_ps: the modeled start of the last entry that ran: where a queue
 *	that joins late or comes back from parking starts
 */
struct ubfab_order {
	struct mutex lock;	/* guards the domain, runs its entries */
	struct list_head members;
	u64 now_ps;
};

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
 * @order: the ordered model domain
 * @model_queues: live queues, for the model's memory (model_mem.c)
 * @model_stamps: flag words stamped in any entity's @stamps (model_sync.c)
 * @model_stamp_bytes: the bytes of their stamps, as allocated
 */
struct ubfab_fabric {
	struct ubfab_topo topo;
	u64 setup_ns;
	dev_t devt;
	struct ubfab_plane *planes;
	unsigned long planes_up;
	u32 nr_entities;
	struct ubfab_entity **entities;
	struct ubfab_order order;
	atomic_t model_queues;
	atomic_long_t model_stamps;
	atomic_long_t model_stamp_bytes;
};

/**
 * struct ubfab_queue_event - one event of an entity file (sync.c)
 * @count: EVENT_RECORDs so far
 * @record_ps: the modeled time of the last one, in picoseconds: what an
 *	EVENT_WAIT it satisfies completes no earlier than (model_sync.c)
 */
struct ubfab_queue_event {
	atomic64_t count;
	u64 record_ps;
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
 * @queue_events: UBFAB_QUEUE_EVENTS events for EVENT_RECORD/WAIT,
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
	struct ubfab_queue_event *queue_events;
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
int ubfab_ioctl_copy_in(void *arg, size_t size, size_t min_size,
			void __user *ubuf, u32 *usize);

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
