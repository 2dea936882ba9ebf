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
 */
enum {
	UBFAB_CMD_FABRIC_GET = 1,
	UBFAB_CMD_ENTITY_GET,
	UBFAB_CMD_PORT_GET,
	UBFAB_CMD_PLANE_GET,

	__UBFAB_CMD_MAX,
	UBFAB_CMD_MAX = (__UBFAB_CMD_MAX - 1)
};

#endif /* _UAPI_LINUX_UBFAB_H */
