/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libubfab: user-space client of ubfab, the emulated UB (Unified Bus)
 * fabric of a CloudMatrix384-like supernode.
 *
 * This header owns the public API: a generic netlink session to the
 * "ubfab" family and queries of the fabric, its entities (NPU dies and
 * CPUs), their UB ports and the switching planes.
 *
 * Conventions
 *   Every function returning int returns 0 on success or a negative errno.
 *   Errors common to all requests, besides those listed per function:
 *     -EINVAL   a NULL session, output or callback pointer
 *     -EPROTO   the kernel's reply is malformed (wrong attribute type or
 *               size, a required attribute missing)
 *     -EAGAIN   the kernel marked a dump as interrupted (NLM_F_DUMP_INTR):
 *               what it returned may be inconsistent; retry
 *     -ENOMEM   out of memory
 *     other     socket errors (e.g. -EPERM, -ENOBUFS), or what the kernel
 *               answered; ubfab_nl_errmsg() may then give its reason
 *   A session is not thread-safe: use one per thread.
 *   Link with -lubfab (pkg-config libubfab).
 */
#ifndef LIBUBFAB_H
#define LIBUBFAB_H

#include <stdint.h>

#include <linux/ubfab.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Matches any entity where a function takes an EID filter. */
#define UBFAB_EID_ANY	UINT32_MAX

/* Value of the entity fields that do not apply to its kind. */
#define UBFAB_FIELD_NONE	UINT32_MAX

/** struct ubfab_nl - an opaque generic netlink session to ubfab.ko */
struct ubfab_nl;

/**
 * ubfab_nl_open() - open a session
 * @nlp: receives the session on success
 *
 * Connects a generic netlink socket, resolves the "ubfab" family and
 * turns on extended acks.
 *
 * Return: 0; -ENOENT if the family is not registered (ubfab.ko not
 * loaded); -EINVAL if @nlp is NULL; -ENOMEM; or a socket error.
 */
int ubfab_nl_open(struct ubfab_nl **nlp);

/**
 * ubfab_nl_close() - close a session and free it
 * @nl: session from ubfab_nl_open(), or NULL (then nothing happens)
 */
void ubfab_nl_close(struct ubfab_nl *nl);

/**
 * ubfab_nl_errmsg() - why the kernel refused the last failed request
 * @nl: session
 *
 * Return: the extended-ack message the kernel attached to the error of
 * the last request of @nl that returned nonzero (a failure, or a dump
 * its callback stopped); "" if there was none, no request failed yet, or
 * @nl is NULL. Successful requests leave it unchanged. Valid until the
 * next request or ubfab_nl_close().
 */
const char *ubfab_nl_errmsg(const struct ubfab_nl *nl);

/**
 * struct ubfab_fabric_info - shape of the emulated supernode
 * @profile: "small", "cm384" or "custom"
 * @nodes: nodes (servers)
 * @chips_per_node: NPU chips per node
 * @dies_per_chip: dies per NPU chip; each die is one entity
 * @cpus_per_node: CPUs per node
 * @planes: switching planes; every entity has one UB port per plane
 * @l2_per_plane: L2 switch chips in each plane
 * @npus: NPU dies in the supernode
 * @cpus: CPUs in the supernode
 * @npu_mem: bytes of HBM per NPU die
 * @cpu_mem: bytes of DRAM per CPU
 * @setup_ns: nanoseconds the module's initialisation took
 */
struct ubfab_fabric_info {
	char profile[UBFAB_NAME_MAX];
	uint32_t nodes;
	uint32_t chips_per_node;
	uint32_t dies_per_chip;
	uint32_t cpus_per_node;
	uint32_t planes;
	uint32_t l2_per_plane;
	uint32_t npus;
	uint32_t cpus;
	uint64_t npu_mem;
	uint64_t cpu_mem;
	uint64_t setup_ns;
};

/**
 * ubfab_fabric_get() - read the shape of the supernode
 * @nl: session
 * @out: receives the shape
 *
 * Return: 0 or a negative errno (see the conventions above).
 */
int ubfab_fabric_get(struct ubfab_nl *nl, struct ubfab_fabric_info *out);

/**
 * struct ubfab_entity_info - one entity: an NPU die or a CPU
 * @eid: fabric identifier
 * @name: device name, e.g. "npu3" (/dev/ubfab/npu3)
 * @kind: enum ubfab_entity_kind; other values are kinds this library does
 *	not know (ubfab_kind_name() says "unknown")
 * @node: node the entity sits in
 * @chip: NPU chip within the node; UBFAB_FIELD_NONE for a CPU
 * @die: die within the chip; UBFAB_FIELD_NONE for a CPU
 * @socket: CPU within the node; UBFAB_FIELD_NONE for an NPU
 * @mem_size: bytes of memory (HBM for an NPU die, DRAM for a CPU)
 * @ports: number of UB ports, one per plane
 */
struct ubfab_entity_info {
	uint32_t eid;
	char name[UBFAB_NAME_MAX];
	uint32_t kind;
	uint32_t node;
	uint32_t chip;
	uint32_t die;
	uint32_t socket;
	uint64_t mem_size;
	uint32_t ports;
};

/**
 * ubfab_entity_get() - read one entity by EID
 * @nl: session
 * @eid: the entity's EID
 * @out: receives the entity
 *
 * Return: 0; -ENODEV if there is no such entity; or a negative errno.
 */
int ubfab_entity_get(struct ubfab_nl *nl, uint32_t eid,
		     struct ubfab_entity_info *out);

/**
 * ubfab_entity_get_by_name() - read one entity by device name
 * @nl: session
 * @name: device name such as "npu3" or "cpu0"
 * @out: receives the entity
 *
 * Return: 0; -ENODEV if no entity has this name (including names of
 * UBFAB_NAME_MAX characters or more); -EINVAL if @name is NULL; or a
 * negative errno.
 */
int ubfab_entity_get_by_name(struct ubfab_nl *nl, const char *name,
			     struct ubfab_entity_info *out);

/**
 * typedef ubfab_entity_cb - called by ubfab_entity_dump() per entity
 * @e: the entity, valid only during the call
 * @arg: the caller's argument
 *
 * Return: 0 to go on; any other value stops the dump and is returned by it.
 */
typedef int (*ubfab_entity_cb)(const struct ubfab_entity_info *e, void *arg);

/**
 * ubfab_entity_dump() - walk all entities in EID order
 * @nl: session
 * @cb: called for each entity
 * @arg: passed to @cb
 *
 * Return: 0 after the last entity, the nonzero value @cb returned, or a
 * negative errno (entities before the error have been passed to @cb).
 */
int ubfab_entity_dump(struct ubfab_nl *nl, ubfab_entity_cb cb, void *arg);

/**
 * struct ubfab_stats - traffic counters of a port or a plane
 * @tx_bytes: bytes sent
 * @rx_bytes: bytes received
 * @tx_ops: operations sent
 * @rx_ops: operations received
 * @errors: failed operations
 */
struct ubfab_stats {
	uint64_t tx_bytes;
	uint64_t rx_bytes;
	uint64_t tx_ops;
	uint64_t rx_ops;
	uint64_t errors;
};

/**
 * struct ubfab_port_info - the UB port of one entity into one plane
 * @eid: owning entity
 * @plane: plane the port attaches to
 * @state: enum ubfab_state
 * @stats: traffic counters
 */
struct ubfab_port_info {
	uint32_t eid;
	uint32_t plane;
	uint32_t state;
	struct ubfab_stats stats;
};

/**
 * ubfab_port_get() - read one port
 * @nl: session
 * @eid: owning entity
 * @plane: plane of the port
 * @out: receives the port
 *
 * Return: 0; -ENODEV if there is no such entity or plane; or a negative
 * errno.
 */
int ubfab_port_get(struct ubfab_nl *nl, uint32_t eid, uint32_t plane,
		   struct ubfab_port_info *out);

/**
 * typedef ubfab_port_cb - called by ubfab_port_dump() per port
 * @p: the port, valid only during the call
 * @arg: the caller's argument
 *
 * Return: 0 to go on; any other value stops the dump and is returned by it.
 */
typedef int (*ubfab_port_cb)(const struct ubfab_port_info *p, void *arg);

/**
 * ubfab_port_dump() - walk the ports of all entities or of one
 * @nl: session
 * @eid: only the ports of this entity, or UBFAB_EID_ANY for all ports
 * @cb: called for each port
 * @arg: passed to @cb
 *
 * Return: 0 after the last port; -ENODEV if @eid names no entity; the
 * nonzero value @cb returned; or a negative errno.
 */
int ubfab_port_dump(struct ubfab_nl *nl, uint32_t eid, ubfab_port_cb cb,
		    void *arg);

/**
 * struct ubfab_plane_info - one switching plane
 * @id: plane number
 * @state: enum ubfab_state
 * @l1_switches: first-tier switch chips, one per node
 * @l2_switches: second-tier switch chips
 * @ports: entity ports attached to the plane
 * @ports_up: of those, the ports that are up
 * @stats: traffic counters summed over the plane's ports
 */
struct ubfab_plane_info {
	uint32_t id;
	uint32_t state;
	uint32_t l1_switches;
	uint32_t l2_switches;
	uint32_t ports;
	uint32_t ports_up;
	struct ubfab_stats stats;
};

/**
 * ubfab_plane_get() - read one plane
 * @nl: session
 * @id: plane number
 * @out: receives the plane
 *
 * Return: 0; -ENODEV if there is no such plane; or a negative errno.
 */
int ubfab_plane_get(struct ubfab_nl *nl, uint32_t id,
		    struct ubfab_plane_info *out);

/**
 * typedef ubfab_plane_cb - called by ubfab_plane_dump() per plane
 * @p: the plane, valid only during the call
 * @arg: the caller's argument
 *
 * Return: 0 to go on; any other value stops the dump and is returned by it.
 */
typedef int (*ubfab_plane_cb)(const struct ubfab_plane_info *p, void *arg);

/**
 * ubfab_plane_dump() - walk all planes in order
 * @nl: session
 * @cb: called for each plane
 * @arg: passed to @cb
 *
 * Return: 0 after the last plane, the nonzero value @cb returned, or a
 * negative errno.
 */
int ubfab_plane_dump(struct ubfab_nl *nl, ubfab_plane_cb cb, void *arg);

/**
 * ubfab_kind_name() - name of an entity kind
 * @kind: enum ubfab_entity_kind
 *
 * Return: "npu", "cpu", or "unknown" for any other value; never NULL.
 */
const char *ubfab_kind_name(uint32_t kind);

/**
 * ubfab_state_name() - name of a port or plane state
 * @state: enum ubfab_state
 *
 * Return: "down", "up", or "unknown" for any other value; never NULL.
 */
const char *ubfab_state_name(uint32_t state);

#ifdef __cplusplus
}
#endif

#endif /* LIBUBFAB_H */
