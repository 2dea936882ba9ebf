/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * ubfab: the user-space ABI of the emulated UB (Unified Bus) fabric.
 *
 * This header is the only contract between ubfab.ko and user space. It holds
 * the generic netlink control plane: the family, its commands and the
 * attribute sets they carry. Their source is Documentation/netlink/ubfab.yaml:
 * the declarations from UBFAB_GENL_NAME to UBFAB_MCGRP_EVENTS are what the
 * kernel's ynl-gen-c.py makes of it (comments and blank space aside), which
 * `make check` verifies (tools/ynl/nlgen.py --check).
 *
 * Entities
 *   An entity is a UB endpoint: an NPU die or a CPU. Each has an EID (its
 *   fabric identifier), a character device /dev/ubfab/<name> (npu0, npu1, ...,
 *   cpu0, ...) and one UB port per switching plane. NPU dies are numbered
 *   first (node, then chip, then die), CPUs after them (node, then socket);
 *   user space should look entities up by name or EID rather than rely on
 *   this order.
 *
 * Errors (extended ack messages carry the detail)
 *   ENODEV  no entity, port or plane with the given identifier
 *   EINVAL  a required attribute is missing or malformed (e.g. a state
 *           that is not an enum ubfab_state)
 *   EPERM   a command that changes the fabric (a reset, a state change or
 *           a model parameter) from a process without CAP_NET_ADMIN
 *   ENOENT  a model profile or parameter name that does not exist
 *   ERANGE  a model parameter value outside its minimum .. maximum, or a
 *           port's fault knob outside its range
 *   ERANGE  (from the kernel's own attribute validation) an attribute
 *           longer than its policy allows, e.g. a name attribute with
 *           bytes past UBFAB_NAME_MAX
 *
 * Events
 *   The family's multicast group UBFAB_MCGRP_EVENTS announces every change
 *   of a port's or a plane's state, every entity reset and every change of
 *   the model's parameters, in the order they happened, to listeners in
 *   every network namespace. Each notification is one message whose
 *   command says what changed and whose attributes are those of the
 *   object's get reply, read after the change: UBFAB_CMD_PORT_NTF the port
 *   set, UBFAB_CMD_PLANE_NTF the plane set, UBFAB_CMD_ENTITY_RESET_NTF the
 *   entity set, UBFAB_CMD_MODEL_NTF the model set. Setting a state an
 *   object already has changes nothing and announces nothing. A listener
 *   that falls behind loses notifications (its socket reports ENOBUFS) and
 *   should read the states again.
 */
#ifndef _UAPI_LINUX_UBFAB_H
#define _UAPI_LINUX_UBFAB_H

#include <linux/const.h>
#include <linux/types.h>

#define UBFAB_GENL_NAME		"ubfab"
#define UBFAB_GENL_VERSION	1

/* Longest entity name, including the terminating NUL. */
#define UBFAB_NAME_MAX		16
/* Longest model parameter name or unit, including the terminating NUL. */
#define UBFAB_PARAM_MAX		32

/**
 * enum ubfab_entity_kind - what an entity is
 * @UBFAB_ENTITY_NPU: one die of an NPU chip; its memory is HBM
 * @UBFAB_ENTITY_CPU: a CPU; its memory is DRAM
 */
enum ubfab_entity_kind {
	UBFAB_ENTITY_NPU = 1,
	UBFAB_ENTITY_CPU,
};

/**
 * enum ubfab_state - operational state of a port or a plane
 * @UBFAB_STATE_DOWN: carries no traffic
 * @UBFAB_STATE_UP: carries traffic
 */
enum ubfab_state {
	UBFAB_STATE_DOWN,
	UBFAB_STATE_UP,
};

/**
 * enum ubfab_link_kind - one direction of a link, as the fabric model sees it
 * @UBFAB_LINK_PORT_TX: from an entity's port into its node's L1 switch of
 *	the plane
 * @UBFAB_LINK_PORT_RX: from the L1 switch to the entity's port
 * @UBFAB_LINK_L1_UP: from a node's L1 switch up to an L2 switch of the plane
 * @UBFAB_LINK_L2_DOWN: from an L2 switch down to a node's L1 switch
 */
enum ubfab_link_kind {
	UBFAB_LINK_PORT_TX,
	UBFAB_LINK_PORT_RX,
	UBFAB_LINK_L1_UP,
	UBFAB_LINK_L2_DOWN,
};

/**
 * enum ubfab_jetty_state - the state of a jetty (UBFAB_A_JETTY_STATE)
 * @UBFAB_JETTY_READY: its send queue runs entries
 * @UBFAB_JETTY_ERROR: its send queue is in the error state: entries flush
 *	until a queue reset
 */
enum ubfab_jetty_state {
	UBFAB_JETTY_READY,
	UBFAB_JETTY_ERROR,
};

/*
 * Attribute set "fabric": the shape of the emulated supernode, as resolved
 * from the module parameters at load time.
 */
enum {
	UBFAB_A_FABRIC_PROFILE = 1,	/* string: "cm384", "small" or "custom" */
	UBFAB_A_FABRIC_NODES,		/* u32 */
	UBFAB_A_FABRIC_CHIPS_PER_NODE,	/* u32: NPU chips per node */
	UBFAB_A_FABRIC_DIES_PER_CHIP,	/* u32 */
	UBFAB_A_FABRIC_CPUS_PER_NODE,	/* u32 */
	UBFAB_A_FABRIC_PLANES,		/* u32 */
	UBFAB_A_FABRIC_L2_PER_PLANE,	/* u32: L2 switch chips in each plane */
	UBFAB_A_FABRIC_NPUS,		/* u32: NPU dies in the supernode */
	UBFAB_A_FABRIC_CPUS,		/* u32: CPUs in the supernode */
	UBFAB_A_FABRIC_NPU_MEM,		/* u64: bytes of HBM per NPU die */
	UBFAB_A_FABRIC_CPU_MEM,		/* u64: bytes of DRAM per CPU */
	UBFAB_A_FABRIC_SETUP_NS,	/* u64: ns building the fabric took */
	UBFAB_A_FABRIC_PAD,

	__UBFAB_A_FABRIC_MAX,
	UBFAB_A_FABRIC_MAX = (__UBFAB_A_FABRIC_MAX - 1)
};

/* Attribute set "entity": one NPU die or CPU. */
enum {
	UBFAB_A_ENTITY_EID = 1,		/* u32 */
	UBFAB_A_ENTITY_NAME,		/* string: device name, e.g. "npu3" */
	UBFAB_A_ENTITY_KIND,		/* u32: enum ubfab_entity_kind */
	UBFAB_A_ENTITY_NODE,		/* u32 */
	UBFAB_A_ENTITY_CHIP,		/* u32: NPU only, chip within the node */
	UBFAB_A_ENTITY_DIE,		/* u32: NPU only, die within the chip */
	UBFAB_A_ENTITY_SOCKET,		/* u32: CPU only, CPU within the node */
	UBFAB_A_ENTITY_MEM_SIZE,	/* u64: bytes of memory */
	UBFAB_A_ENTITY_PORTS,		/* u32: number of UB ports */
	UBFAB_A_ENTITY_PAD,
	UBFAB_A_ENTITY_AUTH_FAILURES,	/* u64: refused imports of its segments */

	__UBFAB_A_ENTITY_MAX,
	UBFAB_A_ENTITY_MAX = (__UBFAB_A_ENTITY_MAX - 1)
};

/* Attribute set "stats": traffic counters, nested in a port or plane. */
enum {
	UBFAB_A_STATS_TX_BYTES = 1,	/* u64 */
	UBFAB_A_STATS_RX_BYTES,		/* u64 */
	UBFAB_A_STATS_TX_OPS,		/* u64 */
	UBFAB_A_STATS_RX_OPS,		/* u64 */
	UBFAB_A_STATS_ERRORS,		/* u64 */
	UBFAB_A_STATS_PAD,

	__UBFAB_A_STATS_MAX,
	UBFAB_A_STATS_MAX = (__UBFAB_A_STATS_MAX - 1)
};

/* Attribute set "port": the UB port of one entity into one plane. */
enum {
	UBFAB_A_PORT_EID = 1,		/* u32: owning entity */
	UBFAB_A_PORT_PLANE,		/* u32: plane the port attaches to */
	UBFAB_A_PORT_STATE,		/* u32: enum ubfab_state */
	UBFAB_A_PORT_STATS,		/* nest: attribute set "stats" */
	/*
	 * Fault injection in the fabric model (Documentation/model.rst):
	 * the link's bandwidth at this port, per mille of the model's
	 * link-mbps (1..1000, default 1000); latency added one way at this
	 * port (0..10^12 ps, default 0); transfers through it that hit a
	 * link error and retry, per million (0..10^6, default 0).
	 */
	UBFAB_A_PORT_BW_PERMILLE,	/* u32 */
	UBFAB_A_PORT_DELAY_PS,		/* u64 */
	UBFAB_A_PORT_ERROR_PPM,		/* u32 */
	UBFAB_A_PORT_PAD,

	__UBFAB_A_PORT_MAX,
	UBFAB_A_PORT_MAX = (__UBFAB_A_PORT_MAX - 1)
};

/* Attribute set "plane": one of the independent switching planes. */
enum {
	UBFAB_A_PLANE_ID = 1,		/* u32 */
	UBFAB_A_PLANE_STATE,		/* u32: enum ubfab_state */
	UBFAB_A_PLANE_L1_SWITCHES,	/* u32: one per node */
	UBFAB_A_PLANE_L2_SWITCHES,	/* u32 */
	UBFAB_A_PLANE_PORTS,		/* u32: entity ports attached */
	UBFAB_A_PLANE_PORTS_UP,		/* u32: of those, ports that are up */
	UBFAB_A_PLANE_STATS,		/* nest: attribute set "stats" */

	__UBFAB_A_PLANE_MAX,
	UBFAB_A_PLANE_MAX = (__UBFAB_A_PLANE_MAX - 1)
};

/*
 * Attribute set "seg": one exported segment. The token value is never
 * reported.
 */
enum {
	UBFAB_A_SEG_EID = 1,		/* u32: exporting entity */
	UBFAB_A_SEG_TOKEN_ID,		/* u32 */
	UBFAB_A_SEG_OFFSET,		/* u64: start in the entity's memory */
	UBFAB_A_SEG_LENGTH,		/* u64: bytes */
	UBFAB_A_SEG_RIGHTS,		/* u32: UBFAB_SEG_* */
	UBFAB_A_SEG_IMPORTS,		/* u32: live imports */
	UBFAB_A_SEG_PID,		/* u32: exporting process */
	UBFAB_A_SEG_PAD,

	__UBFAB_A_SEG_MAX,
	UBFAB_A_SEG_MAX = (__UBFAB_A_SEG_MAX - 1)
};

/*
 * Attribute set "link": one direction of a link of a plane, as the fabric
 * model's contention sees it, and what it has carried in modeled time.
 * The counters only grow, from the module's load; a link's utilization
 * over an interval is the growth of UBFAB_A_LINK_BUSY_PS over the growth
 * of UBFAB_A_LINK_BUSY_PS + UBFAB_A_LINK_IDLE_PS, the modeled time it has
 * seen go by.
 */
enum {
	UBFAB_A_LINK_PLANE = 1,		/* u32 */
	UBFAB_A_LINK_KIND,		/* u32: enum ubfab_link_kind */
	UBFAB_A_LINK_EID,		/* u32: the port's entity (ports only) */
	UBFAB_A_LINK_NODE,		/* u32: the L1's node (L1-L2 links only) */
	UBFAB_A_LINK_L2,		/* u32: the L2 switch (L1-L2 links only) */
	UBFAB_A_LINK_BYTES,		/* u64: payload bytes moved over it */
	UBFAB_A_LINK_BUSY_PS,		/* u64: modeled ps transfers held it */
	UBFAB_A_LINK_IDLE_PS,		/* u64: modeled ps idle between those */
	UBFAB_A_LINK_END_PS,		/* u64: its last reservation's end */
	UBFAB_A_LINK_PAD,

	__UBFAB_A_LINK_MAX,
	UBFAB_A_LINK_MAX = (__UBFAB_A_LINK_MAX - 1)
};

/*
 * Attribute set "queue": one NPU queue of an entity, as the fabric model
 * sees it.
 */
enum {
	UBFAB_A_QUEUE_EID = 1,		/* u32: the entity whose file made it */
	UBFAB_A_QUEUE_ID,		/* u32: its number in the entity */
	UBFAB_A_QUEUE_PID,		/* u32: the process that made it */
	UBFAB_A_QUEUE_FLAGS,		/* u32: its UBFAB_QUEUE_* flags */
	UBFAB_A_QUEUE_SQ_ENTRIES,	/* u32 */
	UBFAB_A_QUEUE_CQ_ENTRIES,	/* u32 */
	UBFAB_A_QUEUE_CLOCK_NS,		/* u64: its modeled clock */
	UBFAB_A_QUEUE_ENTRIES,		/* u64: entries charged to the clock */
	UBFAB_A_QUEUE_PAD,

	__UBFAB_A_QUEUE_MAX,
	UBFAB_A_QUEUE_MAX = (__UBFAB_A_QUEUE_MAX - 1)
};

/*
 * Attribute set "jetty": one jetty of an entity (a send queue and a
 * receive queue paired) and what it has seen since it was made. The
 * counters only grow, and are read without a lock.
 */
enum {
	UBFAB_A_JETTY_EID = 1,		/* u32: the entity whose file made it */
	UBFAB_A_JETTY_ID,		/* u32: its number in the entity */
	UBFAB_A_JETTY_PID,		/* u32: the process that made it */
	UBFAB_A_JETTY_SQ,		/* u32: its send queue's number */
	UBFAB_A_JETTY_RQ,		/* u32: its receive queue's number */
	UBFAB_A_JETTY_STATE,		/* u32: enum ubfab_jetty_state */
	UBFAB_A_JETTY_SENDS,		/* u64: send queue completions */
	UBFAB_A_JETTY_RECEIVES,		/* u64: receive completions */
	/* u64: messages that found its receive queue not ready, per retry */
	UBFAB_A_JETTY_RNR_NAKS,
	/* u64: its sends that failed with UBFAB_CQE_RNR_RETRY_EXC */
	UBFAB_A_JETTY_RNR_EXC,
	UBFAB_A_JETTY_ERRORS,		/* u64: send queue error states */
	UBFAB_A_JETTY_EVENTS,		/* u64: completion events fired */
	UBFAB_A_JETTY_PAD,

	__UBFAB_A_JETTY_MAX,
	UBFAB_A_JETTY_MAX = (__UBFAB_A_JETTY_MAX - 1)
};

/*
 * Attribute set "model": the fabric model's parameters and its memory
 * (Documentation/model.rst).
 */
enum {
	/* string: "cm384", or "custom" when a parameter differs from it */
	UBFAB_A_MODEL_PROFILE = 1,
	/* nest, repeated: set "param"; a reply has every one, in order */
	UBFAB_A_MODEL_PARAM,
	/* nest: set "mem", the kernel memory the model holds */
	UBFAB_A_MODEL_MEM,

	__UBFAB_A_MODEL_MAX,
	UBFAB_A_MODEL_MAX = (__UBFAB_A_MODEL_MAX - 1)
};

/*
 * Attribute set "mem": the kernel memory the fabric model holds, in bytes
 * of its structures (allocator rounding and slab overhead aside); read
 * without a lock, so queues and stamps that come or go meanwhile may be
 * counted or not. Documentation/model.rst, "Memory", has the figures of
 * profile cm384.
 */
enum {
	/*
	 * u64: directions of links contention keeps: two in every port,
	 * two for each pair of an L1 and an L2 switch of a plane
	 */
	UBFAB_A_MEM_LINKS = 1,
	UBFAB_A_MEM_LINKS_BYTES,	/* u64: fixed for the fabric's shape */
	UBFAB_A_MEM_QUEUES,		/* u32: live queues */
	/* u64: the model's fields in them, the same for every queue */
	UBFAB_A_MEM_QUEUE_BYTES,
	/*
	 * u64: live stamps: flag words a modeled write or
	 * UBFAB_IOCTL_QUEUE_STAMP stamped, in memory not freed since
	 */
	UBFAB_A_MEM_STAMPS,
	UBFAB_A_MEM_STAMP_BYTES,	/* u64: the xarray nodes holding them */
	/*
	 * u64: the copy of the parameters in force (none while profile
	 * cm384's own table is), the ordered domain's head and the
	 * entities' counts of their queues by engine
	 */
	UBFAB_A_MEM_OTHER_BYTES,
	UBFAB_A_MEM_TOTAL_BYTES,	/* u64: the sum of the bytes above */
	UBFAB_A_MEM_PAD,

	__UBFAB_A_MEM_MAX,
	UBFAB_A_MEM_MAX = (__UBFAB_A_MEM_MAX - 1)
};

/* Attribute set "param": one parameter of the fabric model. */
enum {
	/* string: e.g. "hop-ps"; its last part is its unit */
	UBFAB_A_PARAM_NAME = 1,
	UBFAB_A_PARAM_VALUE,		/* u64 */
	/* string: "ps", "MB/s", "permille", "hops" */
	UBFAB_A_PARAM_UNIT,
	UBFAB_A_PARAM_MINIMUM,		/* u64: smallest value accepted */
	UBFAB_A_PARAM_MAXIMUM,		/* u64: largest value accepted */
	UBFAB_A_PARAM_DEFAULT,		/* u64: the value of profile cm384 */
	UBFAB_A_PARAM_PAD,

	__UBFAB_A_PARAM_MAX,
	UBFAB_A_PARAM_MAX = (__UBFAB_A_PARAM_MAX - 1)
};

/*
 * Commands. Every reply carries the attribute set named in the comment.
 *
 * UBFAB_CMD_FABRIC_GET	do: the fabric set.
 * UBFAB_CMD_ENTITY_GET	do: one entity, chosen by UBFAB_A_ENTITY_EID or
 *			UBFAB_A_ENTITY_NAME; dump: every entity in EID order.
 * UBFAB_CMD_PORT_GET	do: one port, chosen by UBFAB_A_PORT_EID and
 *			UBFAB_A_PORT_PLANE; dump: every port, or those of one
 *			entity when UBFAB_A_PORT_EID is given.
 * UBFAB_CMD_PLANE_GET	do: one plane, chosen by UBFAB_A_PLANE_ID;
 *			dump: every plane.
 * UBFAB_CMD_SEG_GET	dump: every exported segment, or those of one
 *			entity when UBFAB_A_SEG_EID is given, by entity and
 *			token id.
 * UBFAB_CMD_ENTITY_RESET do: reset the entity chosen by UBFAB_A_ENTITY_EID
 *			(CAP_NET_ADMIN, else EPERM): all its memory is freed,
 *			its segments revoked (UBFAB_REVOKE_RESET) and each
 *			file that had allocated some gets UBFAB_EVENT_RESET.
 *			Its files stay open and usable. Announced by
 *			UBFAB_CMD_ENTITY_RESET_NTF.
 * UBFAB_CMD_PORT_SET	do: set the state of the port chosen by
 *			UBFAB_A_PORT_EID and UBFAB_A_PORT_PLANE to
 *			UBFAB_A_PORT_STATE, and its fault knobs in the model
 *			to UBFAB_A_PORT_BW_PERMILLE, _DELAY_PS and _ERROR_PPM
 *			(CAP_NET_ADMIN, else EPERM): at least one of the
 *			four (EINVAL), all or nothing (ERANGE for a knob out
 *			of range). A port that is down carries no transfer:
 *			queue entries route around it (see "Planes" in the
 *			queue section) and fail with UBFAB_CQE_NO_ROUTE when
 *			no plane is left. Announced by UBFAB_CMD_PORT_NTF.
 * UBFAB_CMD_PLANE_SET	do: set the state of plane UBFAB_A_PLANE_ID to
 *			UBFAB_A_PLANE_STATE (CAP_NET_ADMIN, else EPERM); a
 *			plane that is down carries no transfer, whatever
 *			the states of its ports, which it leaves as they
 *			are. Announced by UBFAB_CMD_PLANE_NTF.
 * UBFAB_CMD_PORT_NTF	notification: a port's state changed; the port set.
 * UBFAB_CMD_PLANE_NTF	notification: a plane's state changed; the plane
 *			set.
 * UBFAB_CMD_ENTITY_RESET_NTF notification: an entity was reset; the
 *			entity set.
 * UBFAB_CMD_MODEL_GET	do: the model set: UBFAB_A_MODEL_PROFILE,
 *			every parameter and UBFAB_A_MODEL_MEM.
 * UBFAB_CMD_MODEL_SET	do: set parameters of the fabric model
 *			(CAP_NET_ADMIN, else EPERM). UBFAB_A_MODEL_PROFILE
 *			first puts back every value of that profile; then
 *			each UBFAB_A_MODEL_PARAM (UBFAB_A_PARAM_NAME and
 *			UBFAB_A_PARAM_VALUE) is set. All or nothing: an
 *			unknown profile or name (ENOENT) or a value out of
 *			range (ERANGE) changes nothing. Entries that run
 *			afterwards are priced with the new values; queue
 *			clocks keep their times. Announced by
 *			UBFAB_CMD_MODEL_NTF.
 * UBFAB_CMD_MODEL_NTF	notification: the model's parameters changed; the
 *			model set.
 * UBFAB_CMD_QUEUE_GET	dump: every queue of every entity, or of entity
 *			UBFAB_A_QUEUE_EID, by entity and number.
 * UBFAB_CMD_LINK_GET	dump: every link of every plane, or of plane
 *			UBFAB_A_LINK_PLANE; per plane, the entities' ports in
 *			EID order (PORT_TX, then PORT_RX), then each node's
 *			links to each L2 switch (L1_UP, then L2_DOWN).
 * UBFAB_CMD_JETTY_GET	dump: every jetty of every entity, or of entity
 *			UBFAB_A_JETTY_EID, by entity and number.
 */
enum {
	UBFAB_CMD_FABRIC_GET = 1,
	UBFAB_CMD_ENTITY_GET,
	UBFAB_CMD_PORT_GET,
	UBFAB_CMD_PLANE_GET,
	UBFAB_CMD_SEG_GET,
	UBFAB_CMD_ENTITY_RESET,
	UBFAB_CMD_PORT_SET,
	UBFAB_CMD_PLANE_SET,
	UBFAB_CMD_PORT_NTF,
	UBFAB_CMD_PLANE_NTF,
	UBFAB_CMD_ENTITY_RESET_NTF,
	UBFAB_CMD_MODEL_GET,
	UBFAB_CMD_MODEL_SET,
	UBFAB_CMD_MODEL_NTF,
	UBFAB_CMD_QUEUE_GET,
	UBFAB_CMD_LINK_GET,
	UBFAB_CMD_JETTY_GET,

	__UBFAB_CMD_MAX,
	UBFAB_CMD_MAX = (__UBFAB_CMD_MAX - 1)
};

/* Multicast group of the state-change and reset notifications. */
#define UBFAB_MCGRP_EVENTS	"events"

/*
 * Entity memory and segments (ioctls on an entity's device)
 *
 * A process that opens /dev/ubfab/<name> acts as that entity. It allocates
 * ranges of the entity's memory (HBM or DRAM), addressed by their offset in
 * that memory, and maps them with mmap(MAP_SHARED) at that same offset.
 * Pages are backed on first touch, zero-filled, and charged to the memory
 * cgroup of the process that allocated the range. Allocations belong to the
 * open file: closing it (or the process exiting) frees them.
 *
 * The owner exports a range as a segment: the kernel picks a token id, the
 * owner a 32-bit token value and the rights. A process on any entity
 * imports the segment by (eid, token id, token value) and mmaps it through
 * its own entity's device at the offset the import returns; loads and stores
 * land in the exporter's pages. When the segment is unexported or its range
 * freed (explicitly, by close or by exit), every importer's mapping of it
 * is torn down at once: later accesses get SIGBUS. The importer is told why
 * by an event (struct ubfab_event) it reads from its entity's device;
 * poll() reports EPOLLIN while events are waiting.
 *
 * Every ioctl argument starts with its own size, so structures can grow:
 * the kernel accepts a larger size when the extra bytes are zero (E2BIG
 * otherwise) and a smaller one down to the first version's size (EINVAL
 * below). Reserved fields and unknown flags must be zero (EINVAL).
 *
 * Errors common to every ioctl: ENOTTY unknown command, EFAULT bad pointer,
 * EINVAL malformed argument, ENOMEM out of kernel memory.
 */
#define UBFAB_IOCTL_TYPE	0xB7

/* Segment rights */
#define UBFAB_SEG_READ		_BITUL(0)
#define UBFAB_SEG_WRITE		_BITUL(1)
#define UBFAB_SEG_ATOMIC	_BITUL(2)
#define UBFAB_SEG_RIGHTS	(UBFAB_SEG_READ | UBFAB_SEG_WRITE | UBFAB_SEG_ATOMIC)

/* Token ids are 20 bits and never 0. */
#define UBFAB_TOKEN_ID_MAX	((1U << 20) - 1)

/**
 * struct ubfab_mem_alloc - UBFAB_IOCTL_MEM_ALLOC
 * @size: sizeof(struct ubfab_mem_alloc)
 * @flags: must be 0
 * @length: bytes to allocate, a nonzero multiple of the page size
 * @offset: out: where the range starts in the entity's memory; also the
 *	mmap() offset that maps it
 *
 * Errors: EINVAL bad length or flags; ENOSPC no free range that long in the
 * entity's memory.
 */
struct ubfab_mem_alloc {
	__u32 size;
	__u32 flags;
	__u64 length;
	__u64 offset;
};

/**
 * struct ubfab_mem_free - UBFAB_IOCTL_MEM_FREE
 * @size: sizeof(struct ubfab_mem_free)
 * @flags: must be 0
 * @offset: start of a range this file allocated
 *
 * Unexports every segment in the range, unmaps it from every process and
 * returns its pages. Errors: ENOENT no allocation of this file starts there.
 */
struct ubfab_mem_free {
	__u32 size;
	__u32 flags;
	__u64 offset;
};

/**
 * struct ubfab_seg_export - UBFAB_IOCTL_SEG_EXPORT
 * @size: sizeof(struct ubfab_seg_export)
 * @rights: UBFAB_SEG_* granted to importers; at least one
 * @offset: start of the segment in the entity's memory, page aligned
 * @length: bytes, a nonzero multiple of the page size
 * @token_value: the secret an importer must present
 * @token_id: out: the segment's token id, unique in this entity
 *
 * The range must lie within one allocation of this file. Errors: EINVAL bad
 * rights or range; ENOSPC no token id left.
 */
struct ubfab_seg_export {
	__u32 size;
	__u32 rights;
	__u64 offset;
	__u64 length;
	__u32 token_value;
	__u32 token_id;
};

/**
 * struct ubfab_seg_unexport - UBFAB_IOCTL_SEG_UNEXPORT
 * @size: sizeof(struct ubfab_seg_unexport)
 * @token_id: a segment this file exported
 *
 * Revokes every import of it. Errors: ENOENT no such segment of this file.
 */
struct ubfab_seg_unexport {
	__u32 size;
	__u32 token_id;
};

/**
 * struct ubfab_seg_import - UBFAB_IOCTL_SEG_IMPORT
 * @size: sizeof(struct ubfab_seg_import)
 * @rights: UBFAB_SEG_* wanted; each must be granted by the segment
 * @eid: the exporting entity
 * @token_id: the segment's token id
 * @token_value: the segment's token value
 * @__reserved: must be 0
 * @length: out: bytes in the segment
 * @mmap_offset: out: mmap() this file at this offset to map the segment
 *
 * Errors: ENODEV no such entity; ENOENT no such segment; EACCES wrong token
 * value or a right not granted (counted as an authorization failure of the
 * exporting entity, which gets a UBFAB_EVENT_AUTH_FAILURE event).
 * mmap() of the import fails with EACCES when it asks for PROT_WRITE
 * without UBFAB_SEG_WRITE, EINVAL for MAP_PRIVATE or a range beyond the
 * segment, and ENODEV once the segment is revoked.
 */
struct ubfab_seg_import {
	__u32 size;
	__u32 rights;
	__u32 eid;
	__u32 token_id;
	__u32 token_value;
	__u32 __reserved;
	__u64 length;
	__u64 mmap_offset;
};

/**
 * struct ubfab_seg_unimport - UBFAB_IOCTL_SEG_UNIMPORT
 * @size: sizeof(struct ubfab_seg_unimport)
 * @__reserved: must be 0
 * @mmap_offset: the import to drop, as returned by UBFAB_IOCTL_SEG_IMPORT
 *
 * Unmaps it from this process. Errors: ENOENT no such import of this file.
 */
struct ubfab_seg_unimport {
	__u32 size;
	__u32 __reserved;
	__u64 mmap_offset;
};

enum {
	UBFAB_CMD_MEM_ALLOC = 0x80,
	UBFAB_CMD_MEM_FREE,
	UBFAB_CMD_SEG_EXPORT,
	UBFAB_CMD_SEG_UNEXPORT,
	UBFAB_CMD_SEG_IMPORT,
	UBFAB_CMD_SEG_UNIMPORT,
};

#define UBFAB_IOCTL_MEM_ALLOC	_IO(UBFAB_IOCTL_TYPE, UBFAB_CMD_MEM_ALLOC)
#define UBFAB_IOCTL_MEM_FREE	_IO(UBFAB_IOCTL_TYPE, UBFAB_CMD_MEM_FREE)
#define UBFAB_IOCTL_SEG_EXPORT	_IO(UBFAB_IOCTL_TYPE, UBFAB_CMD_SEG_EXPORT)
#define UBFAB_IOCTL_SEG_UNEXPORT _IO(UBFAB_IOCTL_TYPE, UBFAB_CMD_SEG_UNEXPORT)
#define UBFAB_IOCTL_SEG_IMPORT	_IO(UBFAB_IOCTL_TYPE, UBFAB_CMD_SEG_IMPORT)
#define UBFAB_IOCTL_SEG_UNIMPORT _IO(UBFAB_IOCTL_TYPE, UBFAB_CMD_SEG_UNIMPORT)

/**
 * enum ubfab_event_type - what struct ubfab_event reports
 * @UBFAB_EVENT_REVOKED: an import of this file was revoked; its mapping is
 *	gone and later accesses get SIGBUS
 * @UBFAB_EVENT_AUTH_FAILURE: an import of a segment this file exported was
 *	refused (wrong token value or right)
 * @UBFAB_EVENT_OVERFLOW: the event queue was full and events were lost;
 *	@mmap_offset holds how many
 * @UBFAB_EVENT_RESET: the entity was reset and an allocation of this file
 *	freed; @mmap_offset is its offset, @eid the entity
 * @UBFAB_EVENT_JETTY_SQ_ERR: a jetty's send queue entered the error state
 *	(the real stack's URMA_EVENT_JETTY_ERR); @jetty_id is the jetty,
 *	@reason the enum ubfab_cqe_status of the entry that failed (e.g.
 *	UBFAB_CQE_RNR_RETRY_EXC, UBFAB_CQE_ACCESS; UBFAB_CQE_BAD_ENTRY for
 *	an invalid SQ tail)
 * @UBFAB_EVENT_JETTY_RCQ_FULL: a message found the receive completion ring
 *	of a jetty's receive queue full (URMA_EVENT_JFC_ERR); told once until
 *	a receive completes again; @jetty_id, and @mmap_offset the ring's
 *	overflow count
 * @UBFAB_EVENT_JETTY_RESET: the entity was reset while the jetty
 *	@jetty_id of this file lived; its buffers' allocations are gone
 *
 * Every event carries the entity in @eid.
 */
enum ubfab_event_type {
	UBFAB_EVENT_REVOKED = 1,
	UBFAB_EVENT_AUTH_FAILURE = 2,
	UBFAB_EVENT_OVERFLOW = 3,
	UBFAB_EVENT_RESET = 4,
	UBFAB_EVENT_JETTY_SQ_ERR = 5,
	UBFAB_EVENT_JETTY_RCQ_FULL = 6,
	UBFAB_EVENT_JETTY_RESET = 7,
};

/**
 * enum ubfab_revoke_reason - why an import was revoked
 * @UBFAB_REVOKE_UNEXPORT: the owner unexported the segment
 * @UBFAB_REVOKE_FREE: the owner freed the range
 * @UBFAB_REVOKE_CLOSE: the owner closed its file or exited
 * @UBFAB_REVOKE_RESET: the owning entity was reset
 */
enum ubfab_revoke_reason {
	UBFAB_REVOKE_UNEXPORT = 1,
	UBFAB_REVOKE_FREE = 2,
	UBFAB_REVOKE_CLOSE = 3,
	UBFAB_REVOKE_RESET = 4,
};

/**
 * struct ubfab_event - one event, as read() from an entity's device
 * @type: enum ubfab_event_type
 * @reason: for UBFAB_EVENT_REVOKED, enum ubfab_revoke_reason; for
 *	UBFAB_EVENT_JETTY_SQ_ERR, enum ubfab_cqe_status; else 0
 * @eid: the exporting entity (REVOKED), the refused importer
 *	(AUTH_FAILURE), the reset entity (RESET) or the jetty's (JETTY_*)
 * @token_id: the segment concerned
 * @jetty_id: the jetty concerned (UBFAB_EVENT_JETTY_*), in place of
 *	@token_id
 * @mmap_offset: for UBFAB_EVENT_REVOKED, the import's mmap offset; for
 *	UBFAB_EVENT_RESET, the freed allocation's offset; for
 *	UBFAB_EVENT_OVERFLOW, the number of events lost; else 0
 *
 * read() returns whole events only (EINVAL for a buffer smaller than one)
 * and blocks unless O_NONBLOCK is set (then EAGAIN). Each open file queues
 * up to UBFAB_EVENT_QUEUE events; when the queue is full, further events
 * are counted and reported by one UBFAB_EVENT_OVERFLOW event once there is
 * room again.
 */
#define UBFAB_EVENT_QUEUE	256

struct ubfab_event {
	__u32 type;
	__u32 reason;
	__u32 eid;
	union {
		__u32 token_id;
		__u32 jetty_id;
	};
	__u64 mmap_offset;
};

/*
 * NPU queues (DMA semantics)
 *
 * A process creates a queue on its entity with UBFAB_IOCTL_QUEUE_CREATE on
 * the entity's device. The queue is a file descriptor of its own: mmap() it
 * at offset 0 for ring_size bytes (MAP_SHARED) to reach its rings, ring
 * its doorbell with UBFAB_IOCTL_QUEUE_DOORBELL, poll() it for completions
 * (EPOLLIN while the CQ tail it has published is ahead of the CQ head),
 * and close() it to destroy the queue (work in flight is abandoned: entries
 * not yet started never run). The queue keeps its entity's file open.
 *
 * A queue has a submission ring (SQ) of sq_entries 64-byte entries (struct
 * ubfab_sqe) and a completion ring (CQ) of cq_entries 32-byte entries
 * (struct ubfab_cqe), each a power of two. The creation ioctl returns where
 * each index, flag word and entry array sits in the mapping (struct
 * ubfab_ring_offsets); user space must not hard-code them. Every index is a
 * free-running __u32; slot = index & (entries - 1). Each index and each
 * flag word sits on a cache line of its own.
 *
 * Memory ordering (as io_uring's):
 *  - SQ, user space produces: write the entry at sq tail, then
 *    __atomic_store_n(tail, tail + 1, __ATOMIC_RELEASE) (smp_store_release).
 *    The engine reads the tail with acquire, copies the entry into kernel
 *    memory before checking any field of it, and publishes its head with
 *    release once the slot may be reused. User space reads the head with
 *    acquire before overwriting a slot; free slots = entries - (tail - head).
 *  - CQ, the engine produces: it writes the entry, then the tail with
 *    release. User space reads the tail with acquire, then the entries,
 *    then stores the head with release.
 *  - Doorbell: in a queue created with UBFAB_QUEUE_POLL the engine keeps
 *    taking entries with no system call while busy; after idle_us of no
 *    work it sets UBFAB_SQ_NEED_WAKEUP in the SQ flag word, issues a full
 *    barrier and looks at the tail once more before sleeping. User space
 *    stores the tail, issues a full barrier (__atomic_thread_fence
 *    (__ATOMIC_SEQ_CST)), then reads the flag word and rings the doorbell
 *    if UBFAB_SQ_NEED_WAKEUP is set. Without UBFAB_QUEUE_POLL every batch
 *    needs the doorbell.
 *  - Any index user space writes is only a hint: the engine keeps its own
 *    copies, masks every index before use and treats a tail more than
 *    sq_entries ahead of its head as invalid (UBFAB_SQ_ERROR, nothing run).
 *
 * Execution: entries of one queue run in order, each completing before the
 * next starts, so an entry always sees the effects of the earlier ones and
 * UBFAB_SQE_FENCE (accepted on any entry) is always honoured. Queues run in
 * parallel with each other on kernel workers, each taking a bounded number
 * of entries per round. An entry runs only when the CQ has room for its
 * completion: a full CQ stalls the queue (counted in the CQ overflow word,
 * UBFAB_SQ_CQ_FULL set) until user space consumes completions and rings the
 * doorbell (a UBFAB_QUEUE_POLL queue notices by itself). No completion is
 * ever dropped.
 *
 * Modeled time: each queue has a modeled clock (UBFAB_IOCTL_QUEUE_CLOCK).
 * Every entry that runs, whether it completes in the CQ or not, starts at
 * the clock and moves it on by its modeled cost; its completion's model_ns
 * is where it ended. A satisfied EVENT_WAIT or WAIT_VALUE ends no earlier
 * than the modeled EVENT_RECORD, or the modeled arrival of the ATOMIC or
 * WRITE_NOTIFY (or UBFAB_IOCTL_QUEUE_STAMP), that satisfied it.
 * Documentation/model.rst says what costs what.
 *
 * Addresses: "local" is an offset in the queue's entity's memory and must
 * lie in an allocation of the file that created the queue. "remote" is an
 * address in an import of that file: the import's mmap_offset (from
 * UBFAB_IOCTL_SEG_IMPORT) plus a byte offset into the segment. Rights are
 * checked on every entry: WRITE and the data of WRITE_NOTIFY need
 * UBFAB_SEG_WRITE, READ needs UBFAB_SEG_READ, ATOMIC and the notify add of
 * WRITE_NOTIFY need UBFAB_SEG_ATOMIC, each asked for and granted at import.
 *
 * Planes: a remote transfer (WRITE, READ, WRITE_NOTIFY, ATOMIC) crosses the
 * switching planes. It is cut into chunks of UBFAB_PLANE_CHUNK bytes, dealt
 * round-robin over the planes that are up and whose ports are up on both
 * entities, starting from a plane that rotates with each transfer. Each
 * chunk counts as one op and its bytes on the sender's port (tx), the
 * receiver's port (rx) and the plane (tx and rx). An atomic or a notify
 * add is one 8-byte chunk. A remote transfer that fails, for any reason,
 * counts one error on the initiator's port into the plane it started (or
 * would have started) on and on that plane. NOP, COPY, FILL, EVENT_*,
 * WAIT_VALUE and COMPUTE stay in the entity, cross no plane and count
 * nothing, failed or not; nor does an entry with an unknown opcode.
 *
 * Errors: an entry that fails completes with its status (enum
 * ubfab_cqe_status) even in a UBFAB_QUEUE_SELECTIVE queue, and puts the
 * queue in the error state (UBFAB_SQ_ERROR in the SQ flags): every entry
 * already posted and every entry posted later completes with
 * UBFAB_CQE_FLUSHED without running, until UBFAB_IOCTL_QUEUE_RESET.
 */
#define UBFAB_QUEUE_MAX_ENTRIES	32768
#define UBFAB_QUEUE_MAX_CQ_ENTRIES 65536
#define UBFAB_SQE_MAX_LENGTH	0x40000000U	/* 1 GiB */
/* The longest transfer of the memory-semantics class (UBFAB_SQE_MEMSEM). */
#define UBFAB_SQE_MEMSEM_MAX_LENGTH 65536
#define UBFAB_PLANE_CHUNK	65536
/* Event counters per entity file, for UBFAB_OP_EVENT_RECORD/WAIT. */
#define UBFAB_QUEUE_EVENTS	1024

/*
 * struct ubfab_queue_create flags. UBFAB_QUEUE_TIMING makes a timing-only
 * queue, for what-if runs of the fabric model: its entries are checked,
 * routed, counted and charged modeled time exactly as in any queue, but
 * WRITE, READ, WRITE_NOTIFY's data, COPY and FILL move no payload (the
 * destination is left as it was and its pages are not touched); ATOMIC
 * and WRITE_NOTIFY's notify add still change their word, so flags and
 * waits work (Documentation/model.rst).
 *
 * UBFAB_QUEUE_ORDERED puts the queue in its fabric's ordered model domain
 * (deterministic mode; so does the module parameter model_order=ordered
 * for every queue): the entries of all its queues run one at a time in
 * the order of their modeled start, ties broken by entity and queue
 * number, so the same program gets the same modeled times in every run,
 * whatever the host does. What that asks of a program (create every
 * queue of the domain before any submits; wait through the queue; close
 * or park a queue it is done with: UBFAB_CLOCK_PARK) and what happens
 * when it does not is in Documentation/model.rst, "Determinism".
 */
#define UBFAB_QUEUE_POLL	_BITUL(0)	/* the engine polls the SQ */
#define UBFAB_QUEUE_SELECTIVE	_BITUL(1)	/* complete UBFAB_SQE_SIGNAL only */
#define UBFAB_QUEUE_TIMING	_BITUL(2)	/* timing only: no payload */
#define UBFAB_QUEUE_ORDERED	_BITUL(3)	/* deterministic model order */
#define UBFAB_QUEUE_FLAGS	(UBFAB_QUEUE_POLL | UBFAB_QUEUE_SELECTIVE | \
				 UBFAB_QUEUE_TIMING | UBFAB_QUEUE_ORDERED)

/* SQ flag word, written by the engine */
#define UBFAB_SQ_NEED_WAKEUP	_BITUL(0)	/* ring the doorbell */
#define UBFAB_SQ_CQ_FULL	_BITUL(1)	/* stalled on a full CQ */
#define UBFAB_SQ_ERROR		_BITUL(2)	/* error state: flushing */

/**
 * struct ubfab_ring_offsets - where one ring's parts sit in the mapping
 * @head: offset of the __u32 head index
 * @tail: offset of the __u32 tail index
 * @flags: offset of the __u32 flag word (SQ: UBFAB_SQ_*; CQ: unused, 0)
 * @overflow: offset of a __u32 counter (CQ: times the queue stalled on a
 *	full CQ; SQ: times the engine found the tail invalid)
 * @array: offset of the first entry
 * @entries: number of entries, a power of two
 * @__reserved: 0
 */
struct ubfab_ring_offsets {
	__u32 head;
	__u32 tail;
	__u32 flags;
	__u32 overflow;
	__u32 array;
	__u32 entries;
	__u64 __reserved;
};

/**
 * struct ubfab_queue_create - UBFAB_IOCTL_QUEUE_CREATE
 * @size: sizeof(struct ubfab_queue_create)
 * @flags: UBFAB_QUEUE_*
 * @sq_entries: SQ depth, a power of two, 1 .. UBFAB_QUEUE_MAX_ENTRIES
 * @cq_entries: CQ depth, a power of two up to UBFAB_QUEUE_MAX_CQ_ENTRIES,
 *	or 0 for twice @sq_entries
 * @eventfd: an eventfd signalled once per batch of completions, or -1
 * @idle_us: UBFAB_QUEUE_POLL only (else 0): how long the engine polls an
 *	idle SQ before it sleeps; 0 for 1000 (1 ms); at most 1000000
 * @fd: out: the queue's file descriptor (close-on-exec)
 * @id: out: the queue's number in its entity
 * @ring_size: out: bytes to mmap() at offset 0 of @fd
 * @sq: out: the SQ's layout in that mapping
 * @cq: out: the CQ's layout in that mapping
 *
 * The rings' pages are charged to the memory cgroup of the creating
 * process. mmap() of @fd takes MAP_SHARED at offset 0 and at most
 * @ring_size bytes (EINVAL otherwise).
 *
 * Errors: EINVAL bad flags or depths; EBADF @eventfd is not an eventfd;
 * EMFILE no file descriptor left; ENOMEM (also the memory cgroup's limit).
 */
struct ubfab_queue_create {
	__u32 size;
	__u32 flags;
	__u32 sq_entries;
	__u32 cq_entries;
	__s32 eventfd;
	__u32 idle_us;
	__s32 fd;
	__u32 id;
	__u64 ring_size;
	struct ubfab_ring_offsets sq;
	struct ubfab_ring_offsets cq;
};

/**
 * enum ubfab_op - what an SQ entry does (struct ubfab_sqe.opcode)
 * @UBFAB_OP_NOP: nothing; completes with status OK
 * @UBFAB_OP_WRITE: copy @length bytes from @local to @remote
 * @UBFAB_OP_READ: copy @length bytes from @remote to @local
 * @UBFAB_OP_WRITE_NOTIFY: WRITE, then atomically add @value to the 8-byte
 *	aligned notify word at remote address @notify (in the same or
 *	another import), after all the data
 *	is visible; @result is the notify word's old value
 * @UBFAB_OP_ATOMIC: the atomic @aux (enum ubfab_atomic) on the 8 aligned
 *	bytes at @remote with operand @value (and @compare for CAS); @result
 *	is the old value
 * @UBFAB_OP_COPY: copy @length bytes within the entity's memory, from
 *	local address @value to @local (the ranges may not overlap)
 * @UBFAB_OP_FILL: set @length bytes at @local to the byte @aux (< 256)
 * @UBFAB_OP_EVENT_RECORD: add one to event counter @aux of the entity
 *	file; @result is the new count
 * @UBFAB_OP_EVENT_WAIT: hold the queue until event counter @aux reaches
 *	@value; @result is the count seen
 * @UBFAB_OP_WAIT_VALUE: hold the queue until the 8-byte aligned word at
 *	@local compares to @value as @aux (enum ubfab_wait) says; @result is
 *	the value seen
 * @UBFAB_OP_COMPUTE: a compute task of @value modeled nanoseconds on this
 *	queue, in the manner of an AICORE kernel task on a stream: nothing
 *	moves, and the queue's modeled clock moves on by exactly @value (no
 *	issue overhead), so a program can account for compute it does itself
 * @UBFAB_OP_SEND: a message of @length bytes (0 .. UBFAB_SQE_MAX_LENGTH;
 *	@local 0 when 0) from @local to the next receive posted on receive
 *	queue @aux of entity @remote (an eid), whose token is @compare
 *	(below: "Two-sided messages")
 * @UBFAB_OP_SEND_IMM: SEND carrying the 32-bit immediate @value
 * @UBFAB_OP_WRITE_IMM: WRITE (@local, @remote, @length as there), then the
 *	immediate @value to the next receive posted on receive queue @aux,
 *	token @compare, of the segment's owner; nothing lands in that
 *	receive's buffer
 *
 * EVENT_WAIT and WAIT_VALUE give up after @timeout_ms (0: never) with
 * UBFAB_CQE_TIMEOUT. Fields an opcode does not use must be 0.
 */
enum ubfab_op {
	UBFAB_OP_NOP = 0,
	UBFAB_OP_WRITE = 1,
	UBFAB_OP_READ = 2,
	UBFAB_OP_WRITE_NOTIFY = 3,
	UBFAB_OP_ATOMIC = 4,
	UBFAB_OP_COPY = 5,
	UBFAB_OP_FILL = 6,
	UBFAB_OP_EVENT_RECORD = 7,
	UBFAB_OP_EVENT_WAIT = 8,
	UBFAB_OP_WAIT_VALUE = 9,
	UBFAB_OP_COMPUTE = 10,
	UBFAB_OP_SEND = 11,
	UBFAB_OP_SEND_IMM = 12,
	UBFAB_OP_WRITE_IMM = 13,
};

/**
 * enum ubfab_atomic - UBFAB_OP_ATOMIC's operation, in struct ubfab_sqe.aux
 * @UBFAB_ATOMIC_CAS: store @value if the word equals @compare
 * @UBFAB_ATOMIC_SWAP: store @value
 * @UBFAB_ATOMIC_FETCH_ADD: add @value
 * @UBFAB_ATOMIC_FETCH_AND: and with @value
 * @UBFAB_ATOMIC_FETCH_OR: or with @value
 * @UBFAB_ATOMIC_FETCH_XOR: exclusive-or with @value
 */
enum ubfab_atomic {
	UBFAB_ATOMIC_CAS = 0,
	UBFAB_ATOMIC_SWAP = 1,
	UBFAB_ATOMIC_FETCH_ADD = 2,
	UBFAB_ATOMIC_FETCH_AND = 3,
	UBFAB_ATOMIC_FETCH_OR = 4,
	UBFAB_ATOMIC_FETCH_XOR = 5,
};

/**
 * enum ubfab_wait - UBFAB_OP_WAIT_VALUE's comparison, in struct ubfab_sqe.aux
 * @UBFAB_WAIT_GE: until the word, unsigned, is >= @value
 * @UBFAB_WAIT_EQ: until the word equals @value
 */
enum ubfab_wait {
	UBFAB_WAIT_GE = 0,
	UBFAB_WAIT_EQ = 1,
};

/*
 * struct ubfab_sqe flags. UBFAB_SQE_MEMSEM chooses the transfer class of a
 * WRITE, READ, WRITE_NOTIFY or ATOMIC in the fabric model: the memory
 * semantics of the vector cores' direct loads and stores (low start-up,
 * at most UBFAB_SQE_MEMSEM_MAX_LENGTH bytes) instead of the default DMA
 * class (descriptors handled by the die's DMA engines: higher start-up,
 * any length). It changes modeled times only (Documentation/model.rst);
 * on another opcode, or with a longer length, the entry fails with
 * UBFAB_CQE_BAD_ENTRY.
 */
#define UBFAB_SQE_FENCE		_BITUL(0)	/* after all earlier entries */
#define UBFAB_SQE_SIGNAL	_BITUL(1)	/* complete in a SELECTIVE queue */
#define UBFAB_SQE_MEMSEM	_BITUL(2)	/* memory-semantics class */
#define UBFAB_SQE_FLAGS		(UBFAB_SQE_FENCE | UBFAB_SQE_SIGNAL | \
				 UBFAB_SQE_MEMSEM)

/**
 * struct ubfab_sqe - one 64-byte submission entry
 * @opcode: enum ubfab_op
 * @flags: UBFAB_SQE_*
 * @__reserved: must be 0
 * @length: bytes, 1 .. UBFAB_SQE_MAX_LENGTH, for WRITE, READ, WRITE_NOTIFY,
 *	COPY, FILL and WRITE_IMM; 0 .. UBFAB_SQE_MAX_LENGTH for SEND and
 *	SEND_IMM; else 0
 * @user_data: copied into the completion
 * @local: an address in the entity's memory
 * @remote: an address in an import (mmap_offset + offset in the segment)
 * @value: operand; see enum ubfab_op
 * @compare: CAS compare value; messages: the receive queue's token
 * @notify: WRITE_NOTIFY: remote address of the notify word
 * @aux: atomic operation, wait comparison, event number or fill byte;
 *	messages: the receive queue's number
 * @timeout_ms: EVENT_WAIT and WAIT_VALUE: time-out, 0 for none
 */
struct ubfab_sqe {
	__u8 opcode;
	__u8 flags;
	__u16 __reserved;
	__u32 length;
	__u64 user_data;
	__u64 local;
	__u64 remote;
	__u64 value;
	__u64 compare;
	__u64 notify;
	__u32 aux;
	__u32 timeout_ms;
};

/**
 * enum ubfab_cqe_status - how an entry ended (struct ubfab_cqe.status)
 * @UBFAB_CQE_OK: done
 * @UBFAB_CQE_BAD_OPCODE: unknown opcode
 * @UBFAB_CQE_BAD_ENTRY: reserved field or unused field not 0, unknown
 *	flag or UBFAB_SQE_MEMSEM where it does not apply, bad length,
 *	alignment, atomic operation, comparison, event number or fill byte
 * @UBFAB_CQE_LOCAL_RANGE: the local range is not within one allocation of
 *	the queue's entity file
 * @UBFAB_CQE_NO_IMPORT: the remote address names no import of that file
 * @UBFAB_CQE_REMOTE_RANGE: the remote range goes beyond the segment
 * @UBFAB_CQE_ACCESS: the import lacks the right the op needs
 * @UBFAB_CQE_REVOKED: the segment was revoked
 * @UBFAB_CQE_NO_ROUTE: no plane connects the two entities: every plane or
 *	one of the two ports into it is down
 * @UBFAB_CQE_TIMEOUT: EVENT_WAIT or WAIT_VALUE timed out
 * @UBFAB_CQE_NOMEM: a page of the target could not be allocated
 * @UBFAB_CQE_FLUSHED: not run: the queue was in the error state
 * @UBFAB_CQE_RNR_RETRY_EXC: SEND, SEND_IMM, WRITE_IMM: the receive queue
 *	had no posted receive (or a full completion ring) at each of the
 *	retries (receiver not ready)
 * @UBFAB_CQE_REMOTE_LENGTH: the message is longer than the posted receive
 * @UBFAB_CQE_LOCAL_LENGTH: receive completions only: the message was
 *	longer than this receive's buffer; nothing was written
 * @UBFAB_CQE_REMOTE_OP: the receive the message took was bad (its
 *	completion says how); nothing was written
 */
enum ubfab_cqe_status {
	UBFAB_CQE_OK = 0,
	UBFAB_CQE_BAD_OPCODE = 1,
	UBFAB_CQE_BAD_ENTRY = 2,
	UBFAB_CQE_LOCAL_RANGE = 3,
	UBFAB_CQE_NO_IMPORT = 4,
	UBFAB_CQE_REMOTE_RANGE = 5,
	UBFAB_CQE_ACCESS = 6,
	UBFAB_CQE_REVOKED = 7,
	UBFAB_CQE_NO_ROUTE = 8,
	UBFAB_CQE_TIMEOUT = 9,
	UBFAB_CQE_NOMEM = 10,
	UBFAB_CQE_FLUSHED = 11,
	UBFAB_CQE_RNR_RETRY_EXC = 12,
	UBFAB_CQE_REMOTE_LENGTH = 13,
	UBFAB_CQE_LOCAL_LENGTH = 14,
	UBFAB_CQE_REMOTE_OP = 15,
};

/**
 * struct ubfab_cqe - one 32-byte completion entry
 * @user_data: the entry's user_data
 * @result: old value (ATOMIC, WRITE_NOTIFY), count or value seen
 *	(EVENT_*, WAIT_VALUE); else 0
 * @model_ns: the modeled time at which the entry completed, on its
 *	queue's modeled clock, in nanoseconds (Documentation/model.rst); a
 *	flushed entry carries the clock as it stood
 * @bytes: bytes moved: the entry's length when a data entry succeeds,
 *	8 for ATOMIC (WRITE_NOTIFY's notify add is not counted); when one
 *	fails, the bytes it wrote before failing: whole chunks, or with
 *	UBFAB_CQE_NOMEM up to the page it could not allocate
 * @status: enum ubfab_cqe_status
 * @opcode: the entry's opcode
 * @__reserved: 0
 */
struct ubfab_cqe {
	__u64 user_data;
	__u64 result;
	__u64 model_ns;
	__u32 bytes;
	__u16 status;
	__u8 opcode;
	__u8 __reserved;
};

/*
 * struct ubfab_queue_clock flags. UBFAB_CLOCK_PARK, for a queue of the
 * ordered domain (UBFAB_QUEUE_ORDERED; else it does nothing): once the
 * queue has run the entries posted so far, it no longer holds the domain
 * back while its SQ is empty; the next entry it runs after that brings
 * it back, its clock moved on to the domain's time if it is behind.
 */
#define UBFAB_CLOCK_PARK	_BITUL(0)
#define UBFAB_CLOCK_FLAGS	UBFAB_CLOCK_PARK

/**
 * struct ubfab_queue_clock - UBFAB_IOCTL_QUEUE_CLOCK
 * @size: sizeof(struct ubfab_queue_clock)
 * @flags: UBFAB_CLOCK_*
 * @advance_ns: move the queue's modeled clock on by this many nanoseconds
 *	(0: only read it)
 * @now_ns: out: the clock after the advance, in nanoseconds
 *
 * Every queue has a modeled clock, 0 when it is created: each entry starts
 * at it and moves it to the entry's modeled end (struct ubfab_cqe
 * model_ns). The clock saturates at 2^64 picoseconds (about 213 days).
 *
 * Errors: EINVAL bad flags or size; E2BIG unknown fields beyond @now_ns
 * not 0; EINTR killed while the queue ran.
 */
struct ubfab_queue_clock {
	__u32 size;
	__u32 flags;
	__u64 advance_ns;
	__u64 now_ns;
};

/* struct ubfab_queue_stamp flags */
#define UBFAB_STAMP_LOCAL	_BITUL(0)	/* @addr is local, not remote */
#define UBFAB_STAMP_FLAGS	UBFAB_STAMP_LOCAL

/**
 * struct ubfab_queue_stamp - UBFAB_IOCTL_QUEUE_STAMP
 * @size: sizeof(struct ubfab_queue_stamp)
 * @flags: UBFAB_STAMP_*
 * @addr: an 8-byte aligned word: a remote address (in an import of the
 *	queue's file, which must grant UBFAB_SEG_WRITE), or with
 *	UBFAB_STAMP_LOCAL a local one (in an allocation of that file), as
 *	in a queue entry
 * @now_ns: out: the stamp, the queue's modeled clock, in nanoseconds
 *
 * A WAIT_VALUE that a word satisfies ends no earlier than the modeled
 * arrival of the modeled write that brought the word to what it waits
 * for (ATOMIC, WRITE_NOTIFY's notify add); a store by the CPU through a mapping is not modeled and
 * counts as time 0. A program that raises a flag with a CPU store stamps
 * the word with this ioctl first, then stores: waits the store satisfies
 * then end no earlier than the stamping queue's clock
 * (Documentation/model.rst, "Causality").
 *
 * Errors: EINVAL bad flags or size, or @addr not 8-byte aligned; E2BIG
 * unknown fields beyond @now_ns not 0; ENOENT @addr is in no allocation
 * or import of the file, or beyond its segment, or the segment was
 * revoked; EACCES the import does not grant UBFAB_SEG_WRITE; ENOMEM;
 * EINTR killed while the queue ran.
 */
struct ubfab_queue_stamp {
	__u32 size;
	__u32 flags;
	__u64 addr;
	__u64 now_ns;
};

/*
 * Queue ioctls, on the queue's file descriptor; DOORBELL and RESET take 0
 * as argument (EINVAL otherwise).
 * UBFAB_IOCTL_QUEUE_DOORBELL: look at the SQ tail now. Returns 0, or
 *	EIO when the queue is in the error state (entries still flush).
 * UBFAB_IOCTL_QUEUE_RESET: take the queue out of the error state once
 *	every entry posted so far has completed (flushed), before it returns
 *	when all have; entries posted after it run normally. Returns 0 (also
 *	when not in error).
 * UBFAB_IOCTL_QUEUE_CLOCK: advance the queue's modeled clock and read it
 *	(struct ubfab_queue_clock), between two entries of the queue.
 * UBFAB_IOCTL_QUEUE_STAMP: stamp a flag word with the queue's modeled
 *	clock before a CPU store to it (struct ubfab_queue_stamp).
 */
enum {
	UBFAB_CMD_QUEUE_CREATE = 0x90,
	UBFAB_CMD_QUEUE_DOORBELL,
	UBFAB_CMD_QUEUE_RESET,
	UBFAB_CMD_QUEUE_CLOCK,
	UBFAB_CMD_QUEUE_STAMP,
};

#define UBFAB_IOCTL_QUEUE_CREATE _IO(UBFAB_IOCTL_TYPE, UBFAB_CMD_QUEUE_CREATE)
#define UBFAB_IOCTL_QUEUE_DOORBELL _IO(UBFAB_IOCTL_TYPE, UBFAB_CMD_QUEUE_DOORBELL)
#define UBFAB_IOCTL_QUEUE_RESET	_IO(UBFAB_IOCTL_TYPE, UBFAB_CMD_QUEUE_RESET)
#define UBFAB_IOCTL_QUEUE_CLOCK	_IOWR(UBFAB_IOCTL_TYPE, UBFAB_CMD_QUEUE_CLOCK, \
				      struct ubfab_queue_clock)
#define UBFAB_IOCTL_QUEUE_STAMP	_IOWR(UBFAB_IOCTL_TYPE, UBFAB_CMD_QUEUE_STAMP, \
				      struct ubfab_queue_stamp)

/*
 * Two-sided messages (Documentation/queues.rst, "Messages")
 *
 * A receive queue (the real stack's JFR) is made by UBFAB_IOCTL_RQ_CREATE
 * on an entity's device and is a file descriptor of its own: mmap() it
 * (MAP_SHARED, offset 0, at most ring_size bytes) for its two rings, poll()
 * it (EPOLLIN while receive completions wait), close() it to destroy it
 * (messages on their way then fail with UBFAB_CQE_NO_IMPORT). User space
 * posts receives (struct ubfab_rqe: a buffer in an allocation of the
 * creating file) at the RQ tail; the kernel takes them in order, one per
 * message, and writes a receive completion (struct ubfab_rcqe) for each
 * at the RCQ tail. Index rules are the queue rings' (release/acquire,
 * free-running __u32).
 *
 * A sender names the receive queue by (eid, number, token) in its SEND,
 * SEND_IMM or WRITE_IMM. No posted receive, or a full receive completion
 * ring: receiver not ready; the sender retries (the ubfab.rnr_retry
 * module parameter, each retry costing ubfab.rnr_ns modeled
 * nanoseconds), then fails with UBFAB_CQE_RNR_RETRY_EXC; each miss counts
 * in the RQ overflow word (no posted receive) or the RCQ overflow word
 * (completion ring full). A message longer than the receive's buffer:
 * UBFAB_CQE_REMOTE_LENGTH at the sender, UBFAB_CQE_LOCAL_LENGTH in the
 * receive completion, nothing written. A wrong token: UBFAB_CQE_ACCESS
 * (counted as the entity's refused imports are); no such entity or
 * receive queue: UBFAB_CQE_NO_IMPORT.
 */
#define UBFAB_RQ_MAX_ENTRIES	UBFAB_QUEUE_MAX_ENTRIES

/**
 * struct ubfab_rq_create - UBFAB_IOCTL_RQ_CREATE
 * @size: sizeof(struct ubfab_rq_create)
 * @flags: 0
 * @rq_entries: posted receives the RQ holds, a power of two, 1 ..
 *	UBFAB_RQ_MAX_ENTRIES
 * @rcq_entries: receive completions the RCQ holds, a power of two up to
 *	UBFAB_QUEUE_MAX_CQ_ENTRIES, or 0 for @rq_entries
 * @token: the token senders must name
 * @fd: out: the receive queue's file descriptor (close-on-exec)
 * @id: out: its number in its entity, which senders name
 * @__reserved: 0
 * @ring_size: out: bytes to mmap() at offset 0 of @fd
 * @rq: out: the RQ's layout; @rq.overflow counts messages that found no
 *	posted receive
 * @rcq: out: the RCQ's layout; @rcq.overflow counts messages that found
 *	the RCQ full
 *
 * Errors: EINVAL bad flags, depths or reserved field; EMFILE; ENOMEM.
 */
struct ubfab_rq_create {
	__u32 size;
	__u32 flags;
	__u32 rq_entries;
	__u32 rcq_entries;
	__u32 token;
	__s32 fd;
	__u32 id;
	__u32 __reserved;
	__u64 ring_size;
	struct ubfab_ring_offsets rq;
	struct ubfab_ring_offsets rcq;
};

/**
 * struct ubfab_rqe - one posted receive, 64 bytes
 * @user_data: copied into its receive completion
 * @addr: the buffer: an address in the entity's memory, within one
 *	allocation of the file that created the receive queue
 * @length: the buffer's bytes, 0 .. UBFAB_SQE_MAX_LENGTH
 * @__reserved: 0
 *
 * A receive is checked when a message takes it: a reserved field not 0 or
 * a length too long completes it with UBFAB_CQE_BAD_ENTRY, a buffer in no
 * allocation with UBFAB_CQE_LOCAL_RANGE; the sender then gets
 * UBFAB_CQE_REMOTE_OP.
 */
struct ubfab_rqe {
	__u64 user_data;
	__u64 addr;
	__u32 length;
	__u32 __reserved[11];
};

/* struct ubfab_rcqe flags */
#define UBFAB_RCQE_IMM		_BITUL(0)	/* @imm holds immediate data */

/**
 * struct ubfab_rcqe - one receive completion, 32 bytes
 * @user_data: the receive's user_data
 * @model_ns: the message's modeled arrival, on the sender's queue's
 *	clock, in nanoseconds (0 with the model off)
 * @bytes: bytes received: the message's (WRITE_IMM: the write's, into the
 *	segment, not this receive's buffer); 0 when the status is not OK
 * @imm: the immediate data with UBFAB_RCQE_IMM, else 0
 * @src_eid: the sender's entity
 * @status: enum ubfab_cqe_status: OK; BAD_ENTRY or LOCAL_RANGE (a bad
 *	receive), LOCAL_LENGTH (too short); or the sender's status when the
 *	message failed midway (LOCAL_RANGE, NO_ROUTE, REVOKED, NOMEM)
 * @flags: UBFAB_RCQE_*
 * @opcode: the sender's opcode
 */
struct ubfab_rcqe {
	__u64 user_data;
	__u64 model_ns;
	__u32 bytes;
	__u32 imm;
	__u32 src_eid;
	__u16 status;
	__u8 flags;
	__u8 opcode;
};

enum {
	UBFAB_CMD_RQ_CREATE = 0xa0,
};

#define UBFAB_IOCTL_RQ_CREATE	_IO(UBFAB_IOCTL_TYPE, UBFAB_CMD_RQ_CREATE)

/*
 * Jetties (Documentation/queues.rst, "Jetties")
 *
 * A jetty pairs a send queue (the real stack's JFS: a queue of
 * UBFAB_IOCTL_QUEUE_CREATE) and a receive queue (JFR) that one entity file
 * made; UBFAB_IOCTL_JETTY_CREATE on that file makes one, which is a file
 * descriptor of its own holding both queues open: closing their own
 * descriptors, before or after the jetty's, destroys nothing while it
 * lives. A queue or a receive queue belongs to one jetty at most.
 *
 * The jetty's descriptor is its completion-event channel (JFCE): arm it
 * with UBFAB_IOCTL_JETTY_REARM (the sides in the argument: UBFAB_JETTY_SEND
 * for completions of the send queue, UBFAB_JETTY_RECV for receive
 * completions); the next completion of an armed side that is published
 * after the rearm fires it, once (the arming of that side is used up):
 * poll() reports EPOLLIN and read() returns one struct ubfab_jetty_event
 * (blocking unless O_NONBLOCK, then EAGAIN; EINVAL for a shorter buffer)
 * and clears it. A completion published before the rearm fires nothing:
 * rearm, reap the rings, then wait (urma_rearm_jfc, urma_poll_jfc,
 * urma_wait_jfc).
 *
 * The jetty's errors are async events on its entity file (struct
 * ubfab_event, read() from the entity's device: UBFAB_EVENT_JETTY_*).
 */
#define UBFAB_JETTY_SEND	_BITUL(0)	/* the send queue's completions */
#define UBFAB_JETTY_RECV	_BITUL(1)	/* receive completions */
#define UBFAB_JETTY_SIDES	(UBFAB_JETTY_SEND | UBFAB_JETTY_RECV)

/**
 * struct ubfab_jetty_create - UBFAB_IOCTL_JETTY_CREATE
 * @size: sizeof(struct ubfab_jetty_create)
 * @flags: 0
 * @sq_fd: a queue's descriptor (UBFAB_IOCTL_QUEUE_CREATE)
 * @rq_fd: a receive queue's descriptor (UBFAB_IOCTL_RQ_CREATE)
 * @fd: out: the jetty's file descriptor (close-on-exec)
 * @id: out: its number in its entity
 *
 * Errors: EINVAL bad flags, or @sq_fd is not a ubfab queue or @rq_fd not a
 * ubfab receive queue; EBADF @sq_fd or @rq_fd is not open; EXDEV
 * one was made by another entity file (of this entity or another); EBUSY
 * one is in a jetty already; EMFILE; ENOMEM.
 */
struct ubfab_jetty_create {
	__u32 size;
	__u32 flags;
	__s32 sq_fd;
	__s32 rq_fd;
	__s32 fd;
	__u32 id;
};

/**
 * struct ubfab_jetty_event - one completion event, as read() from a jetty
 * @jetty_id: the jetty
 * @sides: UBFAB_JETTY_SEND and/or UBFAB_JETTY_RECV: the sides that fired
 * @events: the events the jetty has fired so far, this one included
 */
struct ubfab_jetty_event {
	__u32 jetty_id;
	__u32 sides;
	__u64 events;
};

/*
 * UBFAB_IOCTL_JETTY_CREATE: on an entity's device (struct
 *	ubfab_jetty_create).
 * UBFAB_IOCTL_JETTY_REARM: on a jetty's descriptor; the argument is the
 *	sides to arm, UBFAB_JETTY_* (EINVAL for none or another bit).
 */
enum {
	UBFAB_CMD_JETTY_CREATE = 0xb0,
	UBFAB_CMD_JETTY_REARM,
};

#define UBFAB_IOCTL_JETTY_CREATE _IO(UBFAB_IOCTL_TYPE, UBFAB_CMD_JETTY_CREATE)
#define UBFAB_IOCTL_JETTY_REARM	_IO(UBFAB_IOCTL_TYPE, UBFAB_CMD_JETTY_REARM)

#endif /* _UAPI_LINUX_UBFAB_H */
