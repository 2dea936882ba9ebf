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
 * and maps other entities' segments, and waits for events; and the queue
 * API, with which it drives NPU queues of the entity (DMA semantics):
 * entries written straight into a submission ring shared with the
 * kernel, completions read straight from a completion ring. The segment
 * dump and the device API are new in version 1.1 (symbol version
 * UBFAB_1.1), as is struct ubfab_entity_info's auth_failures. The queue
 * API, fault injection (port and plane states, entity reset) and the
 * events that announce it are new in version 1.2 (UBFAB_1.2); the fabric
 * model's parameters (read, set, and their events), the kernel memory the
 * model holds and the ports' fault knobs in the model (struct
 * ubfab_port_info's, ubfab_port_set_faults()) in version 1.4 (UBFAB_1.4);
 * what the model's links have carried (ubfab_link_dump()) and every
 * process's queues (ubfab_queue_dump()) in version 1.5 (UBFAB_1.5). A
 * liburma-shaped layer over the device and queue API is in ubfab_urma.h (since
 * version 1.7, UBFAB_1.7). Jetties (a queue and a receive queue paired in
 * the kernel, their completion-event channel, ubfab_jetty_dump()) are new
 * in version 1.8 (UBFAB_1.8).
 *
 * Conventions
 *   Every function returning int returns 0 on success or a negative errno
 *   (ubfab_dev_fd() and ubfab_queue_fd() return the descriptor,
 *   ubfab_queue_submit() a count).
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

#include <stddef.h>
#include <stdint.h>

#include <linux/ubfab.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Matches any entity where a function takes an EID filter. */
#define UBFAB_EID_ANY	UINT32_MAX

/*
 * Value of a 32-bit field that does not apply (the entity fields of the
 * other kind) or that the kernel does not report (an older ubfab.ko).
 */
#define UBFAB_FIELD_NONE	UINT32_MAX

/*
 * Value of a counter, or another 64-bit field, that the kernel does not
 * report (an older ubfab.ko).
 */
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

/* A port's bw_permille at full bandwidth: the default, a healthy link. */
#define UBFAB_PORT_BW_FULL	1000

/**
 * struct ubfab_port_info - the UB port of one entity into one plane
 * @eid: owning entity
 * @plane: plane the port attaches to
 * @state: enum ubfab_state
 * @stats: traffic counters
 * @bw_permille: fault knob of the fabric model: the link's bandwidth at
 *	this port, per mille of the model's link-mbps, 1..1000
 *	(UBFAB_PORT_BW_FULL, the default, is a healthy link)
 * @error_ppm: fault knob: transfers through this port that hit a link
 *	error (and retry, at a modeled cost), per million, 0..10^6
 *	(default 0)
 * @delay_ps: fault knob: latency added one way at this port, in
 *	picoseconds, 0..10^12 (default 0)
 *
 * The fault knobs change modeled time only (Documentation/model.rst,
 * "Faults in the model"); ubfab_port_set_faults() sets them. They are
 * new in version 1.4: a program built against an earlier version gets
 * the struct it knows, which ends before them. A kernel without them (an
 * older ubfab.ko) does not report them: @bw_permille and @error_ppm are
 * then UBFAB_FIELD_NONE and @delay_ps is UBFAB_COUNT_NONE.
 */
struct ubfab_port_info {
	uint32_t eid;
	uint32_t plane;
	uint32_t state;
	struct ubfab_stats stats;
	uint32_t bw_permille;
	uint32_t error_ppm;
	uint64_t delay_ps;
};

/**
 * ubfab_port_get() - read one port
 * @nl: session
 * @eid: owning entity
 * @plane: plane of the port
 * @out: receives the port, its fault knobs included (since version 1.4)
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
 * struct ubfab_queue_info - one NPU queue of an entity, as the fabric model
 *	sees it (since version 1.5)
 * @eid: the entity whose file made it
 * @id: its number in the entity
 * @pid: the process that made it
 * @flags: its UBFAB_QUEUE_* creation flags
 * @sq_entries: entries of its submission ring
 * @cq_entries: entries of its completion ring
 * @clock_ns: its modeled clock, in nanoseconds
 * @entries: entries charged to its clock so far (none while the model is
 *	off)
 */
struct ubfab_queue_info {
	uint32_t eid;
	uint32_t id;
	uint32_t pid;
	uint32_t flags;
	uint32_t sq_entries;
	uint32_t cq_entries;
	uint64_t clock_ns;
	uint64_t entries;
};

/**
 * typedef ubfab_queue_info_cb - called by ubfab_queue_dump() per queue
 * @q: the queue, valid only during the call
 * @arg: the caller's argument
 *
 * Return: 0 to go on; any other value stops the dump and is returned by it.
 */
typedef int (*ubfab_queue_info_cb)(const struct ubfab_queue_info *q,
				   void *arg);

/**
 * ubfab_queue_dump() - walk the queues of all entities or of one, any
 *	process's (since version 1.5)
 * @nl: session
 * @eid: only the queues of this entity, or UBFAB_EID_ANY for all
 * @cb: called for each queue, by entity and number
 * @arg: passed to @cb
 *
 * Return: 0 after the last queue; -ENODEV if @eid names no entity;
 * -EOPNOTSUPP from a ubfab.ko that does not report queues; the nonzero
 * value @cb returned; or a negative errno.
 */
int ubfab_queue_dump(struct ubfab_nl *nl, uint32_t eid, ubfab_queue_info_cb cb,
		     void *arg);

/**
 * struct ubfab_jetty_info - one jetty of an entity and what it has seen
 *	since it was made (since version 1.8)
 * @eid: the entity whose file made it
 * @id: its number in the entity
 * @pid: the process that made it
 * @sq: its send queue's number (struct ubfab_queue_info @id)
 * @rq: its receive queue's number
 * @state: enum ubfab_jetty_state
 * @sends: completions its send queue posted
 * @receives: receive completions its receive queue posted
 * @rnr_naks: messages that found its receive queue not ready, per retry
 * @rnr_exc: its sends that failed with UBFAB_CQE_RNR_RETRY_EXC
 * @errors: times its send queue entered the error state
 * @events: completion events its channel fired
 */
struct ubfab_jetty_info {
	uint32_t eid;
	uint32_t id;
	uint32_t pid;
	uint32_t sq;
	uint32_t rq;
	uint32_t state;
	uint64_t sends;
	uint64_t receives;
	uint64_t rnr_naks;
	uint64_t rnr_exc;
	uint64_t errors;
	uint64_t events;
};

/**
 * typedef ubfab_jetty_info_cb - called by ubfab_jetty_dump() per jetty
 * @j: the jetty, valid only during the call
 * @arg: the caller's argument
 *
 * Return: 0 to go on; any other value stops the dump and is returned by it.
 */
typedef int (*ubfab_jetty_info_cb)(const struct ubfab_jetty_info *j,
				   void *arg);

/**
 * ubfab_jetty_dump() - walk the jetties of all entities or of one, any
 *	process's (since version 1.8)
 * @nl: session
 * @eid: only the jetties of this entity, or UBFAB_EID_ANY for all
 * @cb: called for each jetty, by entity and number
 * @arg: passed to @cb
 *
 * Return: 0 after the last jetty; -ENODEV if @eid names no entity;
 * -EOPNOTSUPP from a ubfab.ko that does not report jetties; the nonzero
 * value @cb returned; or a negative errno.
 */
int ubfab_jetty_dump(struct ubfab_nl *nl, uint32_t eid, ubfab_jetty_info_cb cb,
		     void *arg);

/**
 * struct ubfab_link_info - one direction of a link of a plane, as the
 *	fabric model's contention sees it (since version 1.5)
 * @plane: its plane
 * @kind: enum ubfab_link_kind: an entity's port into the plane's L1
 *	switch (UBFAB_LINK_PORT_TX) or out of it (UBFAB_LINK_PORT_RX), a
 *	node's L1 up to an L2 switch (UBFAB_LINK_L1_UP) or down from it
 *	(UBFAB_LINK_L2_DOWN)
 * @eid: the port's entity; UBFAB_FIELD_NONE for an L1-L2 link
 * @node: the L1's node; UBFAB_FIELD_NONE for a port
 * @l2: the L2 switch in the plane; UBFAB_FIELD_NONE for a port
 * @bytes: payload bytes modeled transfers moved over it, since the module
 *	was loaded (not counting those that passed it by, being earlier than
 *	its busy period)
 * @busy_ps: modeled picoseconds they held it, likewise
 * @idle_ps: modeled picoseconds it stood idle between busy periods, from
 *	0 before the first, likewise
 * @end_ps: when its last reservation ends, in modeled picoseconds
 *
 * The counters only grow. @busy_ps + @idle_ps is the modeled time the
 * link has seen go by; its utilization over an interval is the growth of
 * @busy_ps over the growth of that (Documentation/model.rst, "Link
 * counters").
 */
struct ubfab_link_info {
	uint32_t plane;
	uint32_t kind;
	uint32_t eid;
	uint32_t node;
	uint32_t l2;
	uint64_t bytes;
	uint64_t busy_ps;
	uint64_t idle_ps;
	uint64_t end_ps;
};

/**
 * typedef ubfab_link_cb - called by ubfab_link_dump() per link
 * @l: the link, valid only during the call
 * @arg: the caller's argument
 *
 * Return: 0 to go on; any other value stops the dump and is returned by it.
 */
typedef int (*ubfab_link_cb)(const struct ubfab_link_info *l, void *arg);

/**
 * ubfab_link_dump() - walk the links of all planes or of one (since
 *	version 1.5)
 * @nl: session
 * @plane: only this plane's links, or UBFAB_PLANE_ANY for all
 * @cb: called for each link: per plane, the entities' ports in EID order
 *	(tx, then rx), then each node's links to each L2 switch (up, then
 *	down)
 * @arg: passed to @cb
 *
 * Return: 0 after the last link; -ENODEV if @plane names no plane; -EOPNOTSUPP
 * from a ubfab.ko without link counters; the nonzero value @cb returned;
 * or a negative errno.
 */
int ubfab_link_dump(struct ubfab_nl *nl, uint32_t plane, ubfab_link_cb cb,
		    void *arg);

/* ubfab_link_dump()'s @plane: every plane. */
#define UBFAB_PLANE_ANY		UINT32_MAX

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

/**
 * ubfab_jetty_state_name() - name of a jetty's state (since version 1.8)
 * @state: enum ubfab_jetty_state
 *
 * Return: "ready", "error", or "unknown" for any other value; never NULL.
 */
const char *ubfab_jetty_state_name(uint32_t state);

/*
 * The fabric model's parameters (since version 1.4, symbol version
 * UBFAB_1.4)
 *
 * The model gives every completion a modeled time from a table of
 * parameters (Documentation/model.rst): latencies, bandwidths,
 * efficiencies. Reading them needs no privilege; setting them needs
 * CAP_NET_ADMIN and is announced by a UBFAB_CMD_MODEL_NTF event. What
 * the model holds in the kernel's memory comes with them.
 */

/**
 * struct ubfab_model_param - one parameter of the fabric model
 * @name: its name, e.g. "hop-ps"; its last part is its unit
 * @unit: what @value counts: "ps", "MB/s", "permille", "hops", ...
 * @value: the value in force
 * @minimum: the smallest value it may be set to
 * @maximum: the largest value it may be set to
 * @default_value: its value in profile cm384
 */
struct ubfab_model_param {
	char name[UBFAB_PARAM_MAX];
	char unit[UBFAB_PARAM_MAX];
	uint64_t value;
	uint64_t minimum;
	uint64_t maximum;
	uint64_t default_value;
};

/**
 * struct ubfab_model_mem - the kernel memory the fabric model holds, in
 *	bytes of its structures (allocator rounding and slab overhead aside)
 * @links: directions of links the model's contention keeps: two in every
 *	port, two for each pair of an L1 and an L2 switch of a plane
 * @links_bytes: their bytes; fixed for the fabric's shape
 * @queue_bytes: the model's fields in the live queues, the same bytes for
 *	every queue
 * @stamps: live stamps: flag words a modeled write or ubfab_queue_stamp()
 *	stamped, in memory not freed since
 * @stamp_bytes: the kernel's xarray nodes holding them
 * @other_bytes: the copy of the parameters in force (none while profile
 *	cm384's own table is), the ordered domain's head and the entities'
 *	counts of their queues by engine
 * @total_bytes: the sum of the bytes above
 * @queues: live queues
 *
 * The kernel reads it without a lock: queues and stamps that come or go
 * meanwhile may be counted or not. All 0 from a ubfab.ko that does not
 * report it (@total_bytes is never 0 otherwise).
 */
struct ubfab_model_mem {
	uint64_t links;
	uint64_t links_bytes;
	uint64_t queue_bytes;
	uint64_t stamps;
	uint64_t stamp_bytes;
	uint64_t other_bytes;
	uint64_t total_bytes;
	uint32_t queues;
};

/**
 * struct ubfab_model - the fabric model's parameters and its memory
 * @profile: "cm384" while every parameter has that profile's value,
 *	"custom" when any differs
 * @nparams: number of @params
 * @params: every parameter, in the order of the kernel's table
 * @mem: the kernel memory the model holds, when the message was made
 *
 * Allocated by the library with its @params in one block; release it
 * with ubfab_model_free().
 */
struct ubfab_model {
	char profile[UBFAB_NAME_MAX];
	size_t nparams;
	struct ubfab_model_param *params;
	struct ubfab_model_mem mem;
};

/**
 * ubfab_model_get() - read the model's profile, every parameter and the
 *	memory the model holds
 * @nl: session
 * @modelp: receives the model; the caller releases it with
 *	ubfab_model_free()
 *
 * Return: 0; -EOPNOTSUPP if the kernel has no model parameters (an older
 * ubfab.ko); or a negative errno (@modelp is then untouched).
 */
int ubfab_model_get(struct ubfab_nl *nl, struct ubfab_model **modelp);

/**
 * ubfab_model_find() - a parameter of a model, by name
 * @m: a model from ubfab_model_get() or a UBFAB_CMD_MODEL_NTF event
 * @name: the parameter's name, e.g. "hop-ps"
 *
 * Return: the parameter, within @m (valid until @m is released); NULL if
 * @m has no parameter of that name, or an argument is NULL.
 */
const struct ubfab_model_param *ubfab_model_find(const struct ubfab_model *m,
						 const char *name);

/**
 * ubfab_model_free() - release a model from the library
 * @model: from ubfab_model_get() or a UBFAB_CMD_MODEL_NTF event, or NULL
 *	(then nothing happens)
 */
void ubfab_model_free(struct ubfab_model *model);

/**
 * struct ubfab_model_value - a parameter to set, for ubfab_model_set()
 * @name: the parameter's name, e.g. "hop-ps"
 * @value: its new value, in its unit
 */
struct ubfab_model_value {
	const char *name;
	uint64_t value;
};

/**
 * ubfab_model_set() - set parameters of the model, all or none
 * @nl: session
 * @profile: a profile whose values are all put back first, such as
 *	"cm384"; NULL for none
 * @values: the parameters to set then, in order (a name given twice
 *	takes its last value)
 * @n: number of @values; may be 0 (with @values NULL)
 *
 * One request: if the kernel refuses any part of it, nothing changes.
 * When something did change, subscribers get a UBFAB_CMD_MODEL_NTF event.
 * Entries that run afterwards are priced with the new values; the clocks
 * of queues keep their times. ubfab_nl_errmsg() says which name or value
 * the kernel refused.
 *
 * Return: 0; -ENOENT for an unknown profile or parameter name (including
 * names of UBFAB_PARAM_MAX characters or more, and profiles of
 * UBFAB_NAME_MAX); -ERANGE for a value outside its parameter's minimum ..
 * maximum; -EINVAL for a NULL name, or @values NULL with @n not 0;
 * -EPERM without CAP_NET_ADMIN; -EOPNOTSUPP if the kernel has no model
 * parameters; or a negative errno.
 */
int ubfab_model_set(struct ubfab_nl *nl, const char *profile,
		    const struct ubfab_model_value *values, size_t n);

/*
 * Fault injection and events (since version 1.2, symbol version
 * UBFAB_1.2)
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
 * already has changes nothing and sends no event. ubfab_port_set_faults()
 * sets the state together with the port's fault knobs.
 *
 * Return: 0; -ENODEV if there is no such entity or plane; -EINVAL if
 * @state is no enum ubfab_state; -EPERM without CAP_NET_ADMIN; or a
 * negative errno.
 */
int ubfab_port_set_state(struct ubfab_nl *nl, uint32_t eid, uint32_t plane,
			 uint32_t state);

/* Bits of struct ubfab_port_faults' mask: the members to set. */
#define UBFAB_PORT_FAULT_STATE	(1U << 0)
#define UBFAB_PORT_FAULT_BW	(1U << 1)
#define UBFAB_PORT_FAULT_DELAY	(1U << 2)
#define UBFAB_PORT_FAULT_ERRORS	(1U << 3)

/**
 * struct ubfab_port_faults - what ubfab_port_set_faults() sets of a port
 * @mask: UBFAB_PORT_FAULT_* bits, at least one: the members below to
 *	set; the port keeps what it has of the others
 * @state: UBFAB_STATE_UP or UBFAB_STATE_DOWN (UBFAB_PORT_FAULT_STATE)
 * @bw_permille: 1..1000 (UBFAB_PORT_FAULT_BW)
 * @error_ppm: 0..10^6 (UBFAB_PORT_FAULT_ERRORS)
 * @delay_ps: 0..10^12 (UBFAB_PORT_FAULT_DELAY)
 *
 * The members mean what those of struct ubfab_port_info do. Since
 * version 1.4.
 */
struct ubfab_port_faults {
	uint32_t mask;
	uint32_t state;
	uint32_t bw_permille;
	uint32_t error_ppm;
	uint64_t delay_ps;
};

/**
 * ubfab_port_set_faults() - set a port's state and fault knobs at once
 * @nl: session
 * @eid: the entity
 * @plane: plane of the port
 * @f: what to set
 *
 * One request, all or nothing: if the kernel refuses any member, nothing
 * changes. The knobs change modeled time only: entries that run
 * afterwards are priced with them (Documentation/model.rst, "Faults in
 * the model"). When anything changed, subscribers get one
 * UBFAB_CMD_PORT_NTF event, with the port as after the change; setting
 * what the port already has changes nothing and sends no event. Since
 * version 1.4.
 *
 * Return: 0; -ENODEV if there is no such entity or plane; -ERANGE if a
 * knob is out of its range; -EINVAL if @f is NULL, its @mask is 0 or has
 * other bits, @state is no enum ubfab_state, or the kernel has no fault
 * knobs (an older ubfab.ko, which refuses their attributes);
 * -EPERM without CAP_NET_ADMIN; or a negative errno. ubfab_nl_errmsg()
 * says what the kernel refused.
 */
int ubfab_port_set_faults(struct ubfab_nl *nl, uint32_t eid, uint32_t plane,
			  const struct ubfab_port_faults *f);

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
 * @cmd: what happened: UBFAB_CMD_PORT_NTF (a port's state or fault knobs
 *	changed; @port is valid), UBFAB_CMD_PLANE_NTF (a plane's state changed; @plane),
 *	UBFAB_CMD_ENTITY_RESET_NTF (an entity was reset; @entity) or, since
 *	version 1.4, UBFAB_CMD_MODEL_NTF (parameters of the model changed;
 *	@model)
 * @port: the port, as after the change
 * @plane: the plane, as after the change
 * @entity: the entity reset
 * @model: the whole model, as after the change; the caller owns it and
 *	releases it with ubfab_model_free()
 *
 * Version 1.4 made it longer, with @port's fault knobs: a program built
 * against an earlier version gets the struct it knows.
 */
struct ubfab_nl_event {
	uint32_t cmd;
	union {
		struct ubfab_port_info port;
		struct ubfab_plane_info plane;
		struct ubfab_entity_info entity;
		struct ubfab_model *model;
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
 * Notifications of commands this library does not know are skipped, and
 * so are model events for programs built against a library before 1.4.
 * A model event's @ev->model must be released with ubfab_model_free().
 *
 * Return: 0; -EAGAIN if non-blocking and no event is waiting; -ENOBUFS if
 * events were lost because the socket's buffer was full (read on; states
 * may have changed unseen: read them again); -EINTR if a signal came
 * first; -EPROTO for a malformed event; -ENOMEM; or a negative errno.
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

/*
 * The queue API (since version 1.2)
 *
 * A process acting as an entity creates NPU queues on it: each has a
 * submission ring (SQ) of struct ubfab_sqe and a completion ring (CQ) of
 * struct ubfab_cqe, both mapped into the process, so posting work and
 * reaping its completions take no system call. include/uapi/linux/ubfab.h
 * ("NPU queues") says what every entry does, how entries of a queue are
 * ordered, and what each completion status means.
 *
 * Posting work:
 *
 *	struct ubfab_sqe *sqe = ubfab_queue_get_sqe(q);	// NULL: SQ full
 *
 *	ubfab_prep_write(sqe, local, ubfab_import_addr(&imp, 0), len);
 *	ubfab_sqe_set_data(sqe, cookie);
 *	ubfab_queue_submit(q);		// publish, ring the doorbell if needed
 *
 * Reaping it:
 *
 *	struct ubfab_cqe *cqe;
 *
 *	ubfab_queue_wait_cqe(q, &cqe, -1);	// or ubfab_queue_peek_cqe(q)
 *	... cqe->user_data, cqe->status, cqe->result ...
 *	ubfab_queue_cqe_seen(q);
 *
 * An entry that fails (status other than UBFAB_CQE_OK) puts the queue in
 * the error state: every entry posted until ubfab_queue_reset() completes
 * with UBFAB_CQE_FLUSHED without running.
 *
 * Threads: a queue has one producer and one consumer. One thread may get,
 * prepare and submit entries while another peeks, waits for and consumes
 * completions; two threads posting to the same queue, or two consuming
 * its completions, need a lock of their own. ubfab_queue_reset() and
 * ubfab_queue_destroy() must not run concurrently with anything else on
 * the queue. Different queues are independent.
 *
 * The helpers defined here with UBFAB_INLINE (static inline) read and
 * write the rings with the memory ordering the uAPI header prescribes;
 * they are part of the API, as is the layout of struct ubfab_queue. A
 * program that cannot compile them, such as a binding through a foreign
 * function interface, calls their out-of-line copies in libubfab-ffi.so
 * instead (pkg-config libubfab-ffi), which also brings in libubfab.so.
 */

/**
 * struct ubfab_queue_attr - how ubfab_queue_create() makes a queue
 * @flags: UBFAB_QUEUE_POLL (the kernel polls the SQ while busy, so
 *	submitting seldom needs a system call), UBFAB_QUEUE_SELECTIVE
 *	(only entries flagged UBFAB_SQE_SIGNAL, and failed ones, complete),
 *	UBFAB_QUEUE_TIMING (timing only: no payload moves) and
 *	UBFAB_QUEUE_ORDERED (the deterministic ordered model domain:
 *	ubfab_queue_park())
 * @sq_entries: SQ depth: a power of two, 1 .. UBFAB_QUEUE_MAX_ENTRIES
 * @cq_entries: CQ depth: a power of two up to UBFAB_QUEUE_MAX_CQ_ENTRIES,
 *	or 0 for twice @sq_entries
 * @eventfd: an eventfd(2) the kernel signals once per batch of
 *	completions, or -1 for none (note: 0 is a descriptor, and refused
 *	with -EBADF unless it is an eventfd)
 * @idle_us: UBFAB_QUEUE_POLL only: microseconds the kernel keeps polling
 *	an idle SQ before it sleeps and wants the doorbell; 0 for 1000; at
 *	most 1000000
 */
struct ubfab_queue_attr {
	uint32_t flags;
	uint32_t sq_entries;
	uint32_t cq_entries;
	int eventfd;
	uint32_t idle_us;
};

/* SQ depth of a queue created with default attributes. */
#define UBFAB_QUEUE_DEFAULT_ENTRIES	128

/* Initialiser of struct ubfab_queue_attr: the defaults, no eventfd. */
#define UBFAB_QUEUE_ATTR_INIT \
	{ .sq_entries = UBFAB_QUEUE_DEFAULT_ENTRIES, .eventfd = -1 }

/**
 * struct ubfab_queue - a queue, its rings mapped into the process
 * @sqes: the SQ's entries
 * @sq_head: the kernel's SQ head: entries before it may be overwritten
 * @sq_tail: the SQ tail the library publishes
 * @sq_flags: the SQ flag word, UBFAB_SQ_*, written by the kernel
 * @sq_overflow: entries the kernel refused for an invalid SQ tail
 * @sq_mask: SQ entries - 1
 * @sq_next: index of the next entry ubfab_queue_get_sqe() hands out
 * @sq_published: the tail ubfab_queue_submit() last published
 * @cqes: the CQ's entries
 * @cq_head: the CQ head: the library's, read by the kernel
 * @cq_tail: the CQ tail, written by the kernel
 * @cq_overflow: times the queue stalled on a full CQ
 * @cq_mask: CQ entries - 1
 * @flags: UBFAB_QUEUE_* the queue was created with
 * @id: the queue's number in its entity
 * @fd: the queue's file descriptor, owned by the queue
 * @ring: the mapping of the rings
 * @ring_size: its length in bytes
 *
 * Made by ubfab_queue_create() and freed by ubfab_queue_destroy(); read
 * its members, but change them only through the functions here.
 */
struct ubfab_queue {
	struct ubfab_sqe *sqes;
	uint32_t *sq_head;
	uint32_t *sq_tail;
	uint32_t *sq_flags;
	uint32_t *sq_overflow;
	uint32_t sq_mask;
	uint32_t sq_next;
	uint32_t sq_published;
	struct ubfab_cqe *cqes;
	uint32_t *cq_head;
	uint32_t *cq_tail;
	uint32_t *cq_overflow;
	uint32_t cq_mask;
	uint32_t flags;
	uint32_t id;
	int fd;
	void *ring;
	size_t ring_size;
};

/**
 * ubfab_queue_create() - create a queue on an entity and map its rings
 * @dev: the entity's device; the queue's local addresses are in
 *	allocations of @dev and its remote addresses in imports of @dev
 * @attr: how to make it, or NULL for UBFAB_QUEUE_ATTR_INIT
 * @qp: receives the queue on success; the caller owns it and releases it
 *	with ubfab_queue_destroy()
 *
 * The queue keeps the entity's file open: @dev may be closed before the
 * queue (its allocations and imports stay until the queue is destroyed
 * too).
 *
 * Return: 0; -EINVAL for bad flags, depths or @idle_us, or a NULL @dev
 * or @qp; -EBADF if @attr->eventfd is not an eventfd; -EMFILE if the
 * process has no descriptor left; -EPROTO if the kernel described rings
 * that do not fit the mapping; -ENOMEM; or another errno of mmap(2).
 */
int ubfab_queue_create(struct ubfab_dev *dev,
		       const struct ubfab_queue_attr *attr,
		       struct ubfab_queue **qp);

/**
 * ubfab_queue_destroy() - destroy a queue and free @q
 * @q: from ubfab_queue_create(), or NULL (then nothing happens)
 *
 * Work in flight is abandoned: entries not yet started never run, and
 * their completions are never seen.
 */
void ubfab_queue_destroy(struct ubfab_queue *q);

/**
 * ubfab_queue_fd() - the queue's file descriptor, to poll() it
 * @q: queue
 *
 * poll() reports POLLIN while the CQ holds completions; for an eventfd,
 * see struct ubfab_queue_attr. It stays owned by @q: do not close it.
 *
 * Return: the descriptor, or -EINVAL if @q is NULL.
 */
int ubfab_queue_fd(const struct ubfab_queue *q);

/**
 * ubfab_queue_submit() - hand the prepared entries to the kernel
 * @q: queue
 *
 * Publishes every entry got from ubfab_queue_get_sqe() since the last
 * call (storing the SQ tail with release ordering), then rings the
 * doorbell: always for a queue without UBFAB_QUEUE_POLL, and for a
 * polling queue only when the kernel sleeps and asks for it with
 * UBFAB_SQ_NEED_WAKEUP, read after a full barrier. The doorbell also
 * lets a queue stalled on a full CQ go on once completions were consumed;
 * a call with nothing new to publish is how to ring it.
 *
 * Return: the number of entries published by this call; -EIO if the
 * queue is in the error state (the entries are published all the same
 * and complete with UBFAB_CQE_FLUSHED); -EINVAL if @q is NULL; or another
 * negative errno of the doorbell.
 */
int ubfab_queue_submit(struct ubfab_queue *q);

/**
 * ubfab_queue_wait_cqe() - wait for the next completion
 * @q: queue
 * @cqep: receives the completion, left in the CQ: read it, then consume
 *	it with ubfab_queue_cqe_seen()
 * @timeout_ms: how long to wait: milliseconds, 0 not at all, -1 forever
 *
 * While the CQ is empty, sleeps in poll() on the queue's descriptor. A
 * queue that stalled on a full CQ (UBFAB_SQ_CQ_FULL) gets its doorbell
 * rung first, if it needs it to go on: always without UBFAB_QUEUE_POLL,
 * else when the kernel sleeps (UBFAB_SQ_NEED_WAKEUP). A program that
 * reaps completions only with ubfab_queue_peek_cqe() or
 * ubfab_queue_reap() gets a stalled queue going with
 * ubfab_queue_submit().
 *
 * Return: 0; -ETIMEDOUT if no completion came in time; -EINTR if a
 * signal interrupted the wait; -EINVAL for a NULL pointer or a
 * @timeout_ms below -1; or a negative errno.
 */
int ubfab_queue_wait_cqe(struct ubfab_queue *q, struct ubfab_cqe **cqep,
			 int timeout_ms);

/**
 * ubfab_queue_reset() - take the queue out of the error state
 * @q: queue
 *
 * UBFAB_IOCTL_QUEUE_RESET: once every entry published so far has
 * completed (with UBFAB_CQE_FLUSHED), the queue leaves the error state,
 * before this call returns when all have; entries published after this
 * call run normally. Harmless on a queue not in error.
 *
 * Return: 0; -EINVAL if @q is NULL; or a negative errno.
 */
int ubfab_queue_reset(struct ubfab_queue *q);

/**
 * ubfab_queue_clock() - advance the queue's modeled clock and read it
 * @q: queue
 * @advance_ns: modeled nanoseconds to move the clock on by (0: only read)
 * @now_ns: out: the clock after the advance, in nanoseconds; may be NULL
 *
 * UBFAB_IOCTL_QUEUE_CLOCK: the clock every entry of the queue starts at
 * and moves on by its modeled cost (struct ubfab_cqe model_ns is where an
 * entry ended). Advancing it accounts for work the program does between
 * two entries; the advance happens between the entries the queue has run
 * and those it runs next. Since libubfab 1.3.
 *
 * Return: 0; -EINVAL if @q is NULL; or a negative errno (-ENOTTY from a
 * module without the model).
 */
int ubfab_queue_clock(struct ubfab_queue *q, uint64_t advance_ns,
		      uint64_t *now_ns);

/**
 * ubfab_queue_park() - stop an ordered queue holding its domain back
 * @q: queue, made with UBFAB_QUEUE_ORDERED (else nothing happens)
 *
 * In the ordered model domain (deterministic mode), a queue whose SQ is
 * empty holds back every queue whose clock is later than its own, as it
 * may yet post an entry that starts earlier. Park a queue after posting
 * its last entries for a while: once it has run them, it stops holding
 * the others back; the next entry it runs after that brings it back,
 * its clock moved on to the domain's time if it is behind.
 * UBFAB_IOCTL_QUEUE_CLOCK with UBFAB_CLOCK_PARK. Since libubfab 1.4.
 *
 * Return: 0; -EINVAL if @q is NULL or the module does not know the flag;
 * or a negative errno.
 */
int ubfab_queue_park(struct ubfab_queue *q);

/**
 * ubfab_queue_stamp() - stamp a flag word with the queue's modeled clock
 *	before a CPU store raises it
 * @q: queue
 * @addr: the 8-byte aligned word: a remote address (ubfab_import_addr(),
 *	the import granting UBFAB_SEG_WRITE) or, with UBFAB_STAMP_LOCAL in
 *	@flags, a local one (an offset in one of the device's allocations)
 * @flags: 0 or UBFAB_STAMP_LOCAL
 * @now_ns: out: the stamp, the queue's clock in nanoseconds; may be NULL
 *
 * UBFAB_IOCTL_QUEUE_STAMP: a WAIT_VALUE the word satisfies ends no
 * earlier than the modeled write that satisfied it; a CPU store is not modeled
 * and counts as time 0 unless the word is stamped first. Call this, then
 * store. Since libubfab 1.4.
 *
 * Return: 0; -EINVAL if @q is NULL, @flags unknown or @addr unaligned;
 * -ENOENT if @addr names no word of an allocation or import; -EACCES if
 * the import does not grant UBFAB_SEG_WRITE; or a negative errno.
 */
int ubfab_queue_stamp(struct ubfab_queue *q, uint64_t addr, uint32_t flags,
		      uint64_t *now_ns);

/**
 * struct ubfab_rq - a receive queue (the real stack's JFR), its rings
 *	mapped into the process
 * @rqes: the RQ's entries, the posted receives
 * @rq_head: the kernel's RQ head: receives before it were taken
 * @rq_tail: the RQ tail the library publishes
 * @rq_overflow: messages that found no posted receive (RNR events)
 * @rq_mask: RQ entries - 1
 * @rcqes: the RCQ's entries, the receive completions
 * @rcq_head: the RCQ head: the library's, read by the kernel
 * @rcq_tail: the RCQ tail, written by the kernel
 * @rcq_overflow: messages that found the RCQ full (RNR events)
 * @rcq_mask: RCQ entries - 1
 * @id: its number in its entity, which senders name
 * @token: the token senders name
 * @fd: its file descriptor, owned by it
 * @ring: the mapping of the rings
 * @ring_size: its length in bytes
 *
 * Made by ubfab_rq_create() and freed by ubfab_rq_destroy(). Since
 * libubfab 1.6.
 */
struct ubfab_rq {
	struct ubfab_rqe *rqes;
	uint32_t *rq_head;
	uint32_t *rq_tail;
	uint32_t *rq_overflow;
	uint32_t rq_mask;
	struct ubfab_rcqe *rcqes;
	uint32_t *rcq_head;
	uint32_t *rcq_tail;
	uint32_t *rcq_overflow;
	uint32_t rcq_mask;
	uint32_t id;
	uint32_t token;
	int fd;
	void *ring;
	size_t ring_size;
};

/**
 * ubfab_rq_create() - create a receive queue on an entity and map it
 * @dev: the entity's device; posted buffers are in its allocations
 * @rq_entries: receives it holds: a power of two, 1 .. UBFAB_RQ_MAX_ENTRIES
 * @rcq_entries: receive completions it holds: a power of two up to
 *	UBFAB_QUEUE_MAX_CQ_ENTRIES, or 0 for @rq_entries
 * @token: the token senders must name (SEND, SEND_IMM, WRITE_IMM)
 * @rqp: receives the receive queue; free it with ubfab_rq_destroy()
 *
 * Return: 0; -EINVAL for bad depths or a NULL pointer; -EMFILE; -EPROTO
 * if the kernel described rings that do not fit the mapping; -ENOMEM; or
 * another errno of mmap(2).
 */
int ubfab_rq_create(struct ubfab_dev *dev, uint32_t rq_entries,
		    uint32_t rcq_entries, uint32_t token, struct ubfab_rq **rqp);

/* Destroy @rq (NULL: nothing): messages on their way fail at the sender. */
void ubfab_rq_destroy(struct ubfab_rq *rq);

/**
 * ubfab_rq_post() - post a receive
 * @rq: receive queue
 * @addr: the buffer, an offset in the entity's memory within one
 *	allocation of the receive queue's device
 * @length: its bytes
 * @user_data: what its completion carries back
 *
 * Published at once (the RQ tail stored with release ordering). One
 * thread posts to a receive queue at a time.
 *
 * Return: 0; -EAGAIN if the RQ is full; -EINVAL if @rq is NULL.
 */
int ubfab_rq_post(struct ubfab_rq *rq, uint64_t addr, uint32_t length,
		  uint64_t user_data);

/**
 * ubfab_rq_reap() - copy out and consume receive completions
 * @rq: receive queue
 * @out: receives them, oldest first
 * @max: room in @out
 * @timeout_ms: while there is none, wait in poll(): milliseconds, 0 not
 *	at all, -1 forever
 *
 * Return: how many were copied; 0 if none came in time; -EINTR; -EINVAL
 * for a NULL pointer.
 */
int ubfab_rq_reap(struct ubfab_rq *rq, struct ubfab_rcqe *out, uint32_t max,
		  int timeout_ms);

/**
 * struct ubfab_jetty - a jetty: a queue and a receive queue of one device
 *	paired in the kernel, with its completion-event channel (the real
 *	stack's JFCE; Documentation/queues.rst, "Jetties")
 * @id: its number in its entity (netlink's jetty dump, async events)
 * @fd: its file descriptor, owned by it, non-blocking: poll() it for
 *	POLLIN, or use ubfab_jetty_wait()
 *
 * Made by ubfab_jetty_create() and freed by ubfab_jetty_destroy(). Since
 * libubfab 1.8.
 */
struct ubfab_jetty {
	uint32_t id;
	int fd;
};

/**
 * ubfab_jetty_create() - pair a queue and a receive queue in a jetty
 * @dev: the device that made both
 * @q: the send queue
 * @rq: the receive queue
 * @jp: receives the jetty; free it with ubfab_jetty_destroy()
 *
 * The jetty holds both queues in the kernel: destroying either before the
 * jetty is allowed (the kernel keeps it until the jetty goes). The
 * jetty's errors are async events of @dev (UBFAB_EVENT_JETTY_*,
 * ubfab_dev_event_wait()).
 *
 * Return: 0; -EXDEV if @dev did not make both; -EBUSY if one is in a
 * jetty already; -EINVAL for a NULL pointer; -EMFILE; -ENOMEM.
 */
int ubfab_jetty_create(struct ubfab_dev *dev, const struct ubfab_queue *q,
		       const struct ubfab_rq *rq, struct ubfab_jetty **jp);

/* Destroy @j (NULL: nothing); its queues go too if destroyed already. */
void ubfab_jetty_destroy(struct ubfab_jetty *j);

/**
 * ubfab_jetty_rearm() - arm the jetty's completion-event channel
 * @j: the jetty
 * @sides: UBFAB_JETTY_SEND, UBFAB_JETTY_RECV or both
 *
 * The next completion of an armed side published after this call fires
 * one event; then that side is disarmed. Rearm, reap the rings, then
 * wait: a completion published before the rearm fires nothing.
 *
 * Return: 0; -EINVAL for NULL, no side or an unknown bit.
 */
int ubfab_jetty_rearm(struct ubfab_jetty *j, uint32_t sides);

/**
 * ubfab_jetty_wait() - take the jetty's next completion event
 * @j: the jetty
 * @ev: receives it: the sides that fired and the events so far
 * @timeout_ms: milliseconds to wait, 0 not at all, -1 forever
 *
 * Return: 0; -ETIMEDOUT if none came in time; -EINTR; -EINVAL for a NULL
 * pointer.
 */
int ubfab_jetty_wait(struct ubfab_jetty *j, struct ubfab_jetty_event *ev,
		     int timeout_ms);

/*
 * How the helpers below are defined: static inline; lib/ffi.c defines
 * UBFAB_INLINE empty before it includes this header, so that
 * libubfab-ffi.so holds an out-of-line copy of each of them.
 */
#ifndef UBFAB_INLINE
#define UBFAB_INLINE static inline
#endif

/**
 * ubfab_import_addr() - the remote address of a byte of an import
 * @imp: the import, from ubfab_dev_import()
 * @offset: byte offset into the segment
 *
 * Entries name remote memory by this address. It is not checked against
 * the segment's length: an entry reaching beyond the segment completes
 * with UBFAB_CQE_REMOTE_RANGE.
 *
 * Return: @imp->mmap_offset + @offset.
 */
UBFAB_INLINE uint64_t ubfab_import_addr(const struct ubfab_import *imp,
					uint64_t offset)
{
	return imp->mmap_offset + offset;
}

/**
 * ubfab_queue_sq_space() - free SQ slots
 * @q: queue
 *
 * Return: how many more entries ubfab_queue_get_sqe() can hand out now.
 */
UBFAB_INLINE uint32_t ubfab_queue_sq_space(const struct ubfab_queue *q)
{
	uint32_t head = __atomic_load_n(q->sq_head, __ATOMIC_ACQUIRE);

	return q->sq_mask + 1 - (q->sq_next - head);
}

/**
 * ubfab_queue_get_sqe() - the next free SQ entry
 * @q: queue
 *
 * The entry holds stale data: fill it with one ubfab_prep_*() helper,
 * then optionally ubfab_sqe_set_data() and ubfab_sqe_set_flags(). It
 * reaches the kernel at the next ubfab_queue_submit().
 *
 * Return: the entry, or NULL if the SQ is full (the kernel has not yet
 * taken enough of the entries submitted earlier).
 */
UBFAB_INLINE struct ubfab_sqe *ubfab_queue_get_sqe(struct ubfab_queue *q)
{
	if (!ubfab_queue_sq_space(q))
		return NULL;
	return &q->sqes[q->sq_next++ & q->sq_mask];
}

/*
 * Every ubfab_prep_*() helper writes the whole entry: the fields its
 * opcode uses, 0 in every other field (as the kernel requires), user_data
 * and flags included. Addresses: "local" is an offset in the entity's
 * memory within one allocation of the queue's device; "remote" is an
 * address in an import of that device (ubfab_import_addr()).
 */
UBFAB_INLINE void ubfab_prep_entry(struct ubfab_sqe *sqe, uint8_t opcode,
				   uint32_t length, uint64_t local,
				   uint64_t remote, uint64_t value)
{
	sqe->opcode = opcode;
	sqe->flags = 0;
	sqe->__reserved = 0;
	sqe->length = length;
	sqe->user_data = 0;
	sqe->local = local;
	sqe->remote = remote;
	sqe->value = value;
	sqe->compare = 0;
	sqe->notify = 0;
	sqe->aux = 0;
	sqe->timeout_ms = 0;
}

/* UBFAB_OP_NOP: complete with UBFAB_CQE_OK, doing nothing. */
UBFAB_INLINE void ubfab_prep_nop(struct ubfab_sqe *sqe)
{
	ubfab_prep_entry(sqe, UBFAB_OP_NOP, 0, 0, 0, 0);
}

/*
 * UBFAB_OP_WRITE: copy @length bytes (1 .. UBFAB_SQE_MAX_LENGTH) from
 * @local to @remote; needs UBFAB_SEG_WRITE.
 */
UBFAB_INLINE void ubfab_prep_write(struct ubfab_sqe *sqe, uint64_t local,
				   uint64_t remote, uint32_t length)
{
	ubfab_prep_entry(sqe, UBFAB_OP_WRITE, length, local, remote, 0);
}

/*
 * UBFAB_OP_READ: copy @length bytes (1 .. UBFAB_SQE_MAX_LENGTH) from
 * @remote to @local; needs UBFAB_SEG_READ.
 */
UBFAB_INLINE void ubfab_prep_read(struct ubfab_sqe *sqe, uint64_t local,
				  uint64_t remote, uint32_t length)
{
	ubfab_prep_entry(sqe, UBFAB_OP_READ, length, local, remote, 0);
}

/*
 * UBFAB_OP_WRITE_NOTIFY: write as ubfab_prep_write(), then, once all the
 * data is visible, atomically add @add to the 8-byte aligned word at
 * remote address @notify (UBFAB_SEG_ATOMIC on its import); the
 * completion's result is the word's old value. A receiver waiting for
 * the word to change then sees the data.
 */
UBFAB_INLINE void ubfab_prep_write_notify(struct ubfab_sqe *sqe,
					  uint64_t local, uint64_t remote,
					  uint32_t length, uint64_t notify,
					  uint64_t add)
{
	ubfab_prep_entry(sqe, UBFAB_OP_WRITE_NOTIFY, length, local, remote,
			 add);
	sqe->notify = notify;
}

/*
 * UBFAB_OP_ATOMIC: atomic @op (enum ubfab_atomic) on the 8-byte aligned
 * word at @remote with operand @value, and @compare for UBFAB_ATOMIC_CAS;
 * needs UBFAB_SEG_ATOMIC. The completion's result is the old value.
 */
UBFAB_INLINE void ubfab_prep_atomic(struct ubfab_sqe *sqe, uint32_t op,
				    uint64_t remote, uint64_t value,
				    uint64_t compare)
{
	ubfab_prep_entry(sqe, UBFAB_OP_ATOMIC, 0, 0, remote, value);
	sqe->compare = compare;
	sqe->aux = op;
}

/*
 * UBFAB_OP_COPY: copy @length bytes within the entity's memory, from
 * @src to @dst (both local; the ranges may not overlap).
 */
UBFAB_INLINE void ubfab_prep_copy(struct ubfab_sqe *sqe, uint64_t dst,
				  uint64_t src, uint32_t length)
{
	ubfab_prep_entry(sqe, UBFAB_OP_COPY, length, dst, 0, src);
}

/* UBFAB_OP_FILL: set @length bytes at @local to @byte (below 256). */
UBFAB_INLINE void ubfab_prep_fill(struct ubfab_sqe *sqe, uint64_t local,
				  uint32_t byte, uint32_t length)
{
	ubfab_prep_entry(sqe, UBFAB_OP_FILL, length, local, 0, 0);
	sqe->aux = byte;
}

/*
 * UBFAB_OP_EVENT_RECORD: add one to event counter @event (below
 * UBFAB_QUEUE_EVENTS) of the queue's device; the completion's result is
 * the new count. Queues of one device synchronise through its counters.
 */
UBFAB_INLINE void ubfab_prep_event_record(struct ubfab_sqe *sqe,
					  uint32_t event)
{
	ubfab_prep_entry(sqe, UBFAB_OP_EVENT_RECORD, 0, 0, 0, 0);
	sqe->aux = event;
}

/*
 * UBFAB_OP_EVENT_WAIT: hold the queue until event counter @event reaches
 * @count, or for at most @timeout_ms (0: no limit; then the status is
 * UBFAB_CQE_TIMEOUT); the completion's result is the count seen.
 */
UBFAB_INLINE void ubfab_prep_event_wait(struct ubfab_sqe *sqe,
					uint32_t event, uint64_t count,
					uint32_t timeout_ms)
{
	ubfab_prep_entry(sqe, UBFAB_OP_EVENT_WAIT, 0, 0, 0, count);
	sqe->aux = event;
	sqe->timeout_ms = timeout_ms;
}

/*
 * UBFAB_OP_WAIT_VALUE: hold the queue until the 8-byte aligned word at
 * @local compares to @value as @cmp (enum ubfab_wait) says, or for at
 * most @timeout_ms (0: no limit; then the status is UBFAB_CQE_TIMEOUT);
 * the completion's result is the value seen.
 */
UBFAB_INLINE void ubfab_prep_wait_value(struct ubfab_sqe *sqe,
					uint64_t local, uint32_t cmp,
					uint64_t value, uint32_t timeout_ms)
{
	ubfab_prep_entry(sqe, UBFAB_OP_WAIT_VALUE, 0, local, 0, value);
	sqe->aux = cmp;
	sqe->timeout_ms = timeout_ms;
}

/*
 * UBFAB_OP_COMPUTE: a compute task of @ns modeled nanoseconds on the
 * queue, as an AICORE kernel task on a stream: nothing moves, and the
 * queue's modeled clock moves on by exactly @ns.
 */
UBFAB_INLINE void ubfab_prep_compute(struct ubfab_sqe *sqe, uint64_t ns)
{
	ubfab_prep_entry(sqe, UBFAB_OP_COMPUTE, 0, 0, 0, ns);
}

/**
 * ubfab_prep_send() - UBFAB_OP_SEND: a message of @length bytes from
 *	@local (0 when @length is 0) to the next receive posted on receive
 *	queue @rq, token @token, of entity @eid
 */
UBFAB_INLINE void ubfab_prep_send(struct ubfab_sqe *sqe, uint64_t local,
				  uint32_t length, uint32_t eid, uint32_t rq,
				  uint32_t token)
{
	ubfab_prep_entry(sqe, UBFAB_OP_SEND, length, local, eid, 0);
	sqe->aux = rq;
	sqe->compare = token;
}

/* UBFAB_OP_SEND_IMM: ubfab_prep_send() with the immediate data @imm. */
UBFAB_INLINE void ubfab_prep_send_imm(struct ubfab_sqe *sqe, uint64_t local,
				      uint32_t length, uint32_t eid,
				      uint32_t rq, uint32_t token,
				      uint32_t imm)
{
	ubfab_prep_send(sqe, local, length, eid, rq, token);
	sqe->opcode = UBFAB_OP_SEND_IMM;
	sqe->value = imm;
}

/**
 * ubfab_prep_write_imm() - UBFAB_OP_WRITE_IMM: ubfab_prep_write(), then
 *	the immediate data @imm to the next receive posted on receive queue
 *	@rq, token @token, of the segment's owner
 */
UBFAB_INLINE void ubfab_prep_write_imm(struct ubfab_sqe *sqe, uint64_t local,
				       uint64_t remote, uint32_t length,
				       uint32_t rq, uint32_t token,
				       uint32_t imm)
{
	ubfab_prep_entry(sqe, UBFAB_OP_WRITE_IMM, length, local, remote, imm);
	sqe->aux = rq;
	sqe->compare = token;
}

/* Set what the entry's completion carries back in user_data. */
UBFAB_INLINE void ubfab_sqe_set_data(struct ubfab_sqe *sqe,
				     uint64_t user_data)
{
	sqe->user_data = user_data;
}

/* Set the entry's flags, UBFAB_SQE_FENCE, _SIGNAL and _MEMSEM, to @flags. */
UBFAB_INLINE void ubfab_sqe_set_flags(struct ubfab_sqe *sqe, uint8_t flags)
{
	sqe->flags = flags;
}

/**
 * ubfab_queue_sq_flags() - the SQ flag word
 * @q: queue
 *
 * Return: UBFAB_SQ_ERROR while the queue is in the error state,
 * UBFAB_SQ_CQ_FULL while it is stalled on a full CQ, UBFAB_SQ_NEED_WAKEUP
 * while a polling queue sleeps.
 */
UBFAB_INLINE uint32_t ubfab_queue_sq_flags(const struct ubfab_queue *q)
{
	return __atomic_load_n(q->sq_flags, __ATOMIC_ACQUIRE);
}

/**
 * ubfab_queue_cq_ready() - completions waiting in the CQ
 * @q: queue
 *
 * Return: how many completions can be read now.
 */
UBFAB_INLINE uint32_t ubfab_queue_cq_ready(const struct ubfab_queue *q)
{
	return __atomic_load_n(q->cq_tail, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(q->cq_head, __ATOMIC_RELAXED);
}

/**
 * ubfab_queue_peek_cqe() - the oldest completion, without waiting
 * @q: queue
 *
 * Return: the completion, left in the CQ (consume it with
 * ubfab_queue_cqe_seen() once read), or NULL if there is none.
 */
UBFAB_INLINE struct ubfab_cqe *ubfab_queue_peek_cqe(struct ubfab_queue *q)
{
	uint32_t head = __atomic_load_n(q->cq_head, __ATOMIC_RELAXED);

	if (__atomic_load_n(q->cq_tail, __ATOMIC_ACQUIRE) == head)
		return NULL;
	return &q->cqes[head & q->cq_mask];
}

/**
 * ubfab_queue_cq_advance() - consume completions
 * @q: queue
 * @n: how many of the oldest completions, at most ubfab_queue_cq_ready()
 *
 * Stores the CQ head with release ordering: the kernel may then reuse
 * their slots, so read them before.
 */
UBFAB_INLINE void ubfab_queue_cq_advance(struct ubfab_queue *q, uint32_t n)
{
	uint32_t head = __atomic_load_n(q->cq_head, __ATOMIC_RELAXED);

	__atomic_store_n(q->cq_head, head + n, __ATOMIC_RELEASE);
}

/* Consume the completion ubfab_queue_peek_cqe() or _wait_cqe() gave. */
UBFAB_INLINE void ubfab_queue_cqe_seen(struct ubfab_queue *q)
{
	ubfab_queue_cq_advance(q, 1);
}

/**
 * ubfab_queue_reap() - copy out and consume completions
 * @q: queue
 * @out: receives them, oldest first
 * @max: room in @out
 *
 * Return: how many were copied (0 if the CQ is empty); does not wait.
 */
UBFAB_INLINE uint32_t ubfab_queue_reap(struct ubfab_queue *q,
				       struct ubfab_cqe *out, uint32_t max)
{
	uint32_t head = __atomic_load_n(q->cq_head, __ATOMIC_RELAXED);
	uint32_t n = ubfab_queue_cq_ready(q), i;

	if (n > max)
		n = max;
	for (i = 0; i < n; i++)
		out[i] = q->cqes[(head + i) & q->cq_mask];
	ubfab_queue_cq_advance(q, n);
	return n;
}

#ifdef __cplusplus
}
#endif

#endif /* LIBUBFAB_H */
