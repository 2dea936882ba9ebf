/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libubfab: user-space client of ubfab, the emulated UB (Unified Bus)
 * fabric of a CloudMatrix384-like supernode.
 *
 * This header owns the public API: a generic netlink session to the
 * "ubfab" family and queries of the fabric, its entities (NPU dies and
 * CPUs), their UB ports, the switching planes and the exported segments;
 * and the device API, with which a process acts as an entity: it
 * allocates and maps the entity's memory, exports segments of it, imports
 * and maps other entities' segments, and waits for events. The segment
 * dump and the device API are new in version 1.1 (symbol version
 * UBFAB_1.1), as is struct ubfab_entity_info's auth_failures. Fault
 * injection (port and plane states, entity reset) and the events that
 * announce it are new in version 1.2 (symbol version UBFAB_1.2_CTL).
 *
 * Conventions
 *   Every function returning int returns 0 on success or a negative errno
 *   (ubfab_dev_fd() returns the descriptor).
 *   Errors common to all netlink requests, besides those listed per
 *   function:
 *     -EINVAL   a NULL session, output or callback pointer
 *     -EPROTO   the kernel's reply is malformed (wrong attribute type or
 *               size, a required attribute missing)
 *     -EAGAIN   the kernel marked a dump as interrupted (NLM_F_DUMP_INTR):
 *               what it returned may be inconsistent; retry
 *     -ENOMEM   out of memory
 *     other     socket errors (e.g. -EPERM, -ENOBUFS), or what the kernel
 *               answered; ubfab_nl_errmsg() may then give its reason
 *   A session is not thread-safe: use one per thread. A device (struct
 *   ubfab_dev) is: see ubfab_dev_open().
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

/* Value of a counter the kernel does not report (an older ubfab.ko). */
#define UBFAB_COUNT_NONE	UINT64_MAX

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
 * @auth_failures: imports of the entity's segments refused for a wrong
 *	token value or right; UBFAB_COUNT_NONE if the kernel does not say
 *	(since version 1.1: a program built against 1.0 gets the 1.0
 *	struct, which ends before this member)
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
	uint64_t auth_failures;
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
 * struct ubfab_seg_info - one exported segment
 * @eid: the exporting (owner) entity
 * @token_id: the segment's token id, unique in its entity; the token value
 *	is never reported
 * @rights: UBFAB_SEG_* granted to importers
 * @imports: imports of it that are live
 * @pid: the exporting process (in the kernel's initial PID namespace)
 * @offset: start of the segment in the entity's memory
 * @length: bytes
 */
struct ubfab_seg_info {
	uint32_t eid;
	uint32_t token_id;
	uint32_t rights;
	uint32_t imports;
	uint32_t pid;
	uint64_t offset;
	uint64_t length;
};

/**
 * typedef ubfab_seg_cb - called by ubfab_seg_dump() per segment
 * @s: the segment, valid only during the call
 * @arg: the caller's argument
 *
 * Return: 0 to go on; any other value stops the dump and is returned by it.
 */
typedef int (*ubfab_seg_cb)(const struct ubfab_seg_info *s, void *arg);

/**
 * ubfab_seg_dump() - walk the exported segments of all entities or of one
 * @nl: session
 * @eid: only the segments of this entity, or UBFAB_EID_ANY for all
 * @cb: called for each segment, by entity and then token id
 * @arg: passed to @cb
 *
 * Each segment is reported whole, but segments exported or unexported
 * while the dump runs may or may not appear. Since version 1.1.
 *
 * Return: 0 after the last segment; -ENODEV if @eid names no entity;
 * -EOPNOTSUPP if the kernel does not report segments (an older
 * ubfab.ko); the nonzero value @cb returned; or a negative errno.
 */
int ubfab_seg_dump(struct ubfab_nl *nl, uint32_t eid, ubfab_seg_cb cb,
		   void *arg);

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

/*
 * Fault injection and events (since version 1.2, symbol version
 * UBFAB_1.2_CTL)
 *
 * The set and reset calls change the fabric and need CAP_NET_ADMIN
 * (-EPERM otherwise). The events of the "events" multicast group tell
 * about every such change; read them on a session of their own, opened
 * with ubfab_nl_open() and given to ubfab_nl_subscribe(): a session that
 * also makes requests drops the events that arrive during a request.
 */

/**
 * ubfab_port_set_state() - bring a port up or down
 * @nl: session
 * @eid: the entity
 * @plane: plane of the port
 * @state: UBFAB_STATE_UP or UBFAB_STATE_DOWN
 *
 * A port that is down carries no transfer. Setting the state the port
 * already has changes nothing and sends no event.
 *
 * Return: 0; -ENODEV if there is no such entity or plane; -EINVAL if
 * @state is no enum ubfab_state; -EPERM without CAP_NET_ADMIN; or a
 * negative errno.
 */
int ubfab_port_set_state(struct ubfab_nl *nl, uint32_t eid, uint32_t plane,
			 uint32_t state);

/**
 * ubfab_plane_set_state() - bring a whole plane up or down
 * @nl: session
 * @id: plane number
 * @state: UBFAB_STATE_UP or UBFAB_STATE_DOWN
 *
 * A plane that is down carries no transfer; the states of its ports stay
 * as they are.
 *
 * Return: 0; -ENODEV if there is no such plane; -EINVAL if @state is no
 * enum ubfab_state; -EPERM without CAP_NET_ADMIN; or a negative errno.
 */
int ubfab_plane_set_state(struct ubfab_nl *nl, uint32_t id, uint32_t state);

/**
 * ubfab_entity_reset() - reset an entity
 * @nl: session
 * @eid: the entity
 *
 * Frees all the entity's memory and revokes its segments; every file
 * that had allocated some gets UBFAB_EVENT_RESET (see ubfab.h).
 *
 * Return: 0; -ENODEV if there is no such entity; -EPERM without
 * CAP_NET_ADMIN; or a negative errno.
 */
int ubfab_entity_reset(struct ubfab_nl *nl, uint32_t eid);

/**
 * struct ubfab_nl_event - one notification of the "events" group
 * @cmd: what happened: UBFAB_CMD_PORT_NTF (a port's state changed; @port
 *	is valid), UBFAB_CMD_PLANE_NTF (a plane's state changed; @plane) or
 *	UBFAB_CMD_ENTITY_RESET_NTF (an entity was reset; @entity)
 * @port: the port, as after the change
 * @plane: the plane, as after the change
 * @entity: the entity reset
 */
struct ubfab_nl_event {
	uint32_t cmd;
	union {
		struct ubfab_port_info port;
		struct ubfab_plane_info plane;
		struct ubfab_entity_info entity;
	};
};

/**
 * ubfab_nl_subscribe() - receive the events of the fabric on @nl
 * @nl: session, best one used for nothing else
 *
 * Return: 0; -EOPNOTSUPP if the module has no events group (an older
 * ubfab.ko); or a negative errno.
 */
int ubfab_nl_subscribe(struct ubfab_nl *nl);

/**
 * ubfab_nl_fd() - the socket of a session, to poll() for events
 * @nl: session
 *
 * Return: the descriptor, owned by @nl; -EINVAL if @nl is NULL.
 */
int ubfab_nl_fd(const struct ubfab_nl *nl);

/**
 * ubfab_nl_event_read() - wait for the next event and read it
 * @nl: a subscribed session
 * @ev: receives the event
 *
 * Blocks until an event arrives, unless the socket was made non-blocking
 * (O_NONBLOCK on ubfab_nl_fd()). Events come in the order of the changes.
 * Notifications of commands this library does not know are skipped.
 *
 * Return: 0; -EAGAIN if non-blocking and no event is waiting; -ENOBUFS if
 * events were lost because the socket's buffer was full (read on; states
 * may have changed unseen: read them again); -EINTR if a signal came
 * first; -EPROTO for a malformed event; or a negative errno.
 */
int ubfab_nl_event_read(struct ubfab_nl *nl, struct ubfab_nl_event *ev);

/*
 * The device API (since version 1.1)
 *
 * A process opens an entity's device to act as that entity; several
 * processes (and several opens in one process) may act as the same entity,
 * each with its own allocations, segments, imports and events.
 * Besides the errors listed per function, each may return -EINVAL for a
 * NULL device or output pointer and -ENOMEM; ubfab_dev_alloc() through
 * ubfab_dev_unimport() also -EINVAL for an argument the kernel finds
 * malformed. include/uapi/linux/ubfab.h describes each operation.
 */

/** struct ubfab_dev - an opaque open entity device, /dev/ubfab/<name> */
struct ubfab_dev;

/**
 * ubfab_dev_open() - act as an entity: open its device
 * @name: the entity's name, such as "npu0" or "cpu3"
 * @devp: receives the device on success; the caller owns it and releases
 *	it with ubfab_dev_close()
 *
 * Opens /dev/ubfab/@name (close-on-exec, non-blocking) and reads the
 * entity's EID from /sys/class/ubfab/@name/eid. While it is open, ubfab.ko
 * cannot be unloaded.
 *
 * A device may be used from several threads at once, with every function
 * below but ubfab_dev_close(), which must come after all of them have
 * returned. Each event goes to one ubfab_dev_event_wait() caller.
 *
 * Return: 0; -ENOENT if there is no such entity or ubfab.ko is not loaded
 * (so also for an empty name, one with a '/' or a leading '.', or one of
 * UBFAB_NAME_MAX characters or more); -EACCES if the device may not be
 * opened; -EPROTO if sysfs holds no valid EID; -EINVAL if @name or @devp
 * is NULL; -ENOMEM; or another errno of open(2).
 */
int ubfab_dev_open(const char *name, struct ubfab_dev **devp);

/**
 * ubfab_dev_close() - stop acting as the entity and free @dev
 * @dev: from ubfab_dev_open(), or NULL (then nothing happens)
 *
 * Once nothing maps memory of @dev any more (mappings keep the device
 * open in the kernel), the kernel frees what @dev allocated, which revokes
 * the segments exported from it (their importers get UBFAB_EVENT_REVOKED),
 * and drops its imports. The same happens when the process exits.
 */
void ubfab_dev_close(struct ubfab_dev *dev);

/**
 * ubfab_dev_fd() - the device's file descriptor, to poll() it
 * @dev: device
 *
 * poll() reports POLLIN while events are queued. The descriptor is
 * non-blocking: read(2) it only whole struct ubfab_event at a time, or use
 * ubfab_dev_event_wait(). It stays owned by @dev: do not close it.
 *
 * Return: the descriptor, or -EINVAL if @dev is NULL.
 */
int ubfab_dev_fd(const struct ubfab_dev *dev);

/**
 * ubfab_dev_eid() - the EID of the entity @dev acts as
 * @dev: device
 *
 * Return: the EID, or UBFAB_EID_ANY if @dev is NULL.
 */
uint32_t ubfab_dev_eid(const struct ubfab_dev *dev);

/**
 * ubfab_dev_name() - the name of the entity @dev acts as
 * @dev: device
 *
 * Return: the name, owned by @dev and valid until ubfab_dev_close(); ""
 * if @dev is NULL.
 */
const char *ubfab_dev_name(const struct ubfab_dev *dev);

/**
 * ubfab_dev_alloc() - allocate a range of the entity's memory
 * @dev: device; the range belongs to it until freed or closed
 * @length: bytes, a nonzero multiple of the page size
 * @offset: receives where the range starts in the entity's memory, which
 *	is also the offset ubfab_dev_map() maps it at
 *
 * Pages are zero-filled on first touch and charged to the memory cgroup
 * of the calling process.
 *
 * Return: 0; -EINVAL for a bad @length; -ENOSPC if the entity's memory
 * has no free range that long; or a negative errno.
 */
int ubfab_dev_alloc(struct ubfab_dev *dev, uint64_t length,
		    uint64_t *offset);

/**
 * ubfab_dev_free() - free a range from ubfab_dev_alloc()
 * @dev: the device that allocated it
 * @offset: its start
 *
 * Unexports every segment in the range and unmaps the range from every
 * process: later accesses to a mapping of it get SIGBUS.
 *
 * Return: 0; -ENOENT if no allocation of @dev starts at @offset; or a
 * negative errno.
 */
int ubfab_dev_free(struct ubfab_dev *dev, uint64_t offset);

/**
 * ubfab_dev_map() - map memory of @dev into the process, MAP_SHARED
 * @dev: device
 * @offset: where to start: within an allocation of @dev, or the
 *	mmap_offset of one of its imports; page aligned
 * @length: bytes, within that allocation or import
 * @prot: PROT_READ, PROT_WRITE or both (see mmap(2))
 * @addr: receives the address; the caller unmaps it with ubfab_unmap()
 *
 * Return: 0; -EINVAL for a range beyond the allocation or import, or one
 * mmap(2) cannot take; -EACCES for PROT_WRITE on an import without
 * UBFAB_SEG_WRITE; -ENODEV for an import that has been revoked; -ENOMEM;
 * or another errno of mmap(2).
 */
int ubfab_dev_map(struct ubfab_dev *dev, uint64_t offset, uint64_t length,
		  int prot, void **addr);

/**
 * ubfab_unmap() - unmap what ubfab_dev_map() or ubfab_dev_import_map()
 * mapped
 * @addr: the address they returned
 * @length: the length mapped
 *
 * Return: 0, or -EINVAL (see munmap(2)).
 */
int ubfab_unmap(void *addr, uint64_t length);

/**
 * ubfab_dev_export() - export part of an allocation as a segment
 * @dev: the device that allocated the range; the segment belongs to it
 * @offset: start of the segment, page aligned
 * @length: bytes, a nonzero multiple of the page size, within one
 *	allocation of @dev
 * @rights: UBFAB_SEG_READ, UBFAB_SEG_WRITE, UBFAB_SEG_ATOMIC granted to
 *	importers; at least one
 * @token_value: the secret an importer must present
 * @token_id: receives the segment's token id (1 to UBFAB_TOKEN_ID_MAX,
 *	unique in the entity); importers need it, the EID and @token_value
 *
 * Return: 0; -EINVAL for bad rights or a range not within one allocation
 * of @dev; -ENOSPC if the entity has no token id left; or a negative
 * errno.
 */
int ubfab_dev_export(struct ubfab_dev *dev, uint64_t offset, uint64_t length,
		     uint32_t rights, uint32_t token_value,
		     uint32_t *token_id);

/**
 * ubfab_dev_unexport() - withdraw a segment
 * @dev: the device that exported it
 * @token_id: its token id
 *
 * Revokes every import of it: importers' mappings of it fault (SIGBUS)
 * from now on, and importers get UBFAB_EVENT_REVOKED.
 *
 * Return: 0; -ENOENT if @dev exported no such segment; or a negative
 * errno.
 */
int ubfab_dev_unexport(struct ubfab_dev *dev, uint32_t token_id);

/**
 * struct ubfab_import - a segment imported by ubfab_dev_import()
 * @length: bytes in the segment
 * @mmap_offset: ubfab_dev_map() this offset of the importing device to map
 *	the segment; ubfab_dev_unimport() it to drop the import
 */
struct ubfab_import {
	uint64_t length;
	uint64_t mmap_offset;
};

/**
 * ubfab_dev_import() - import a segment of any entity
 * @dev: the importing device; the import belongs to it until unimported
 *	or closed
 * @eid: the exporting entity
 * @token_id: the segment's token id
 * @token_value: the segment's token value
 * @rights: UBFAB_SEG_* wanted, each granted by the segment; at least one
 * @out: receives the segment's length and where to map it
 *
 * Return: 0; -ENODEV if there is no entity @eid; -ENOENT if it has no such
 * segment; -EACCES for a wrong @token_value or a right not granted (the
 * exporter is told: UBFAB_EVENT_AUTH_FAILURE, and its auth_failures
 * count); -EINVAL for bad @rights; or a negative errno.
 */
int ubfab_dev_import(struct ubfab_dev *dev, uint32_t eid, uint32_t token_id,
		     uint32_t token_value, uint32_t rights,
		     struct ubfab_import *out);

/**
 * ubfab_dev_import_map() - import a segment and map all of it
 * @dev: the importing device
 * @eid: the exporting entity
 * @token_id: the segment's token id
 * @token_value: the segment's token value
 * @rights: UBFAB_SEG_* wanted
 * @prot: the mapping's protection; PROT_WRITE needs UBFAB_SEG_WRITE
 * @addr: receives the address; the caller unmaps it with ubfab_unmap()
 * @length: receives the segment's length, the length mapped
 *
 * ubfab_dev_import() then ubfab_dev_map(); if the mapping fails, the
 * import is dropped again. The import's mmap offset is not returned: the
 * import lasts until @dev is closed, or until ubfab_dev_unimport() with
 * the offset a UBFAB_EVENT_REVOKED event reports for it. Use the two calls
 * to drop a live import earlier.
 *
 * Return: 0, or an error of either call.
 */
int ubfab_dev_import_map(struct ubfab_dev *dev, uint32_t eid,
			 uint32_t token_id, uint32_t token_value,
			 uint32_t rights, int prot, void **addr,
			 uint64_t *length);

/**
 * ubfab_dev_unimport() - drop an import, revoked or not
 * @dev: the importing device
 * @mmap_offset: the import's mmap offset
 *
 * Unmaps the segment from this process: later accesses to its mapping get
 * SIGBUS; unmap it with ubfab_unmap().
 *
 * Return: 0; -ENOENT if @dev has no import at @mmap_offset; or a negative
 * errno.
 */
int ubfab_dev_unimport(struct ubfab_dev *dev, uint64_t mmap_offset);

/**
 * ubfab_dev_event_wait() - take the next event of the device
 * @dev: device
 * @ev: receives the event (enum ubfab_event_type and its details)
 * @timeout_ms: how long to wait: milliseconds, 0 not at all, -1 forever
 *
 * Events come in the order the kernel queued them. Several threads may
 * wait at once; each event goes to one of them.
 *
 * Return: 0; -ETIMEDOUT if no event came in time; -EINTR if a signal
 * interrupted the wait; -EINVAL if @timeout_ms is below -1; or a negative
 * errno.
 */
int ubfab_dev_event_wait(struct ubfab_dev *dev, struct ubfab_event *ev,
			 int timeout_ms);

#ifdef __cplusplus
}
#endif

#endif /* LIBUBFAB_H */
