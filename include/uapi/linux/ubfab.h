/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * ubfab: the user-space ABI of the emulated UB (Unified Bus) fabric.
 *
 * This header is the only contract between ubfab.ko and user space. It holds
 * the generic netlink control plane: the family, its commands and the
 * attribute sets they carry. Documentation/netlink/ubfab.yaml describes the
 * same family in the kernel's netlink spec format.
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
 *   EINVAL  a required attribute is missing or malformed
 */
#ifndef _UAPI_LINUX_UBFAB_H
#define _UAPI_LINUX_UBFAB_H

#include <linux/const.h>
#include <linux/types.h>

#define UBFAB_GENL_NAME		"ubfab"
#define UBFAB_GENL_VERSION	1

/* Longest entity name, including the terminating NUL. */
#define UBFAB_NAME_MAX		16

/**
 * enum ubfab_entity_kind - what an entity is
 * @UBFAB_ENTITY_NPU: one die of an NPU chip; its memory is HBM
 * @UBFAB_ENTITY_CPU: a CPU; its memory is DRAM
 */
enum ubfab_entity_kind {
	UBFAB_ENTITY_NPU = 1,
	UBFAB_ENTITY_CPU = 2,
};

/**
 * enum ubfab_state - operational state of a port or a plane
 * @UBFAB_STATE_DOWN: carries no traffic
 * @UBFAB_STATE_UP: carries traffic
 */
enum ubfab_state {
	UBFAB_STATE_DOWN = 0,
	UBFAB_STATE_UP = 1,
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
 *			Its files stay open and usable.
 */
enum {
	UBFAB_CMD_FABRIC_GET = 1,
	UBFAB_CMD_ENTITY_GET,
	UBFAB_CMD_PORT_GET,
	UBFAB_CMD_PLANE_GET,
	UBFAB_CMD_SEG_GET,
	UBFAB_CMD_ENTITY_RESET,

	__UBFAB_CMD_MAX,
	UBFAB_CMD_MAX = (__UBFAB_CMD_MAX - 1)
};

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
 */
enum ubfab_event_type {
	UBFAB_EVENT_REVOKED = 1,
	UBFAB_EVENT_AUTH_FAILURE = 2,
	UBFAB_EVENT_OVERFLOW = 3,
	UBFAB_EVENT_RESET = 4,
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
 * @reason: for UBFAB_EVENT_REVOKED, enum ubfab_revoke_reason; else 0
 * @eid: the exporting entity (REVOKED), the refused importer
 *	(AUTH_FAILURE) or the reset entity (RESET)
 * @token_id: the segment concerned
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
	__u32 token_id;
	__u64 mmap_offset;
};

#endif /* _UAPI_LINUX_UBFAB_H */
