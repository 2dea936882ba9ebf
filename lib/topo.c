// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubfab queries of the fabric and its objects: the attribute sets of the
 * "ubfab" family (where each attribute lands in the public structs; their
 * policies, generated from the spec, are in policy_gen.h), and the get and
 * dump calls for fabric, entities, ports, planes and segments, with the
 * entity and port calls' versions for programs built against libubfab
 * 1.0; the fabric model's parameters, read and set; the commands that
 * change the fabric (port states and fault knobs, plane states, entity
 * reset) and the decoding of the events that announce those changes, with
 * the version for programs built before model events and fault knobs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "internal.h"
#include "policy_gen.h"

/* A required attribute stored in member @m of struct @type. */
#define FIELD(a, type, m) \
	{ .attr = (a), .offset = offsetof(type, m), .required = true }

#define ATTRSET(max, pol, flds) {					\
	.maxattr = max, .policy = pol,					\
	.fields = flds, .nfields = ARRAY_SIZE(flds),			\
}

_Static_assert(UBFAB_A_FABRIC_MAX <= LIBUBFAB_MAXATTR &&
	       UBFAB_A_ENTITY_MAX <= LIBUBFAB_MAXATTR &&
	       UBFAB_A_STATS_MAX <= LIBUBFAB_MAXATTR &&
	       UBFAB_A_PORT_MAX <= LIBUBFAB_MAXATTR &&
	       UBFAB_A_PLANE_MAX <= LIBUBFAB_MAXATTR &&
	       UBFAB_A_SEG_MAX <= LIBUBFAB_MAXATTR &&
	       UBFAB_A_LINK_MAX <= LIBUBFAB_MAXATTR &&
	       UBFAB_A_QUEUE_MAX <= LIBUBFAB_MAXATTR &&
	       UBFAB_A_JETTY_MAX <= LIBUBFAB_MAXATTR &&
	       UBFAB_A_MODEL_MAX <= LIBUBFAB_MAXATTR &&
	       UBFAB_A_MEM_MAX <= LIBUBFAB_MAXATTR &&
	       UBFAB_A_PARAM_MAX <= LIBUBFAB_MAXATTR,
	       "LIBUBFAB_MAXATTR too small for an attribute set");

/* Attribute set "fabric" */

#define FABRIC(a, m) \
	FIELD(UBFAB_A_FABRIC_##a, struct ubfab_fabric_info, m)
static const struct libubfab_field fabric_fields[] = {
	FABRIC(PROFILE, profile),
	FABRIC(NODES, nodes),
	FABRIC(CHIPS_PER_NODE, chips_per_node),
	FABRIC(DIES_PER_CHIP, dies_per_chip),
	FABRIC(CPUS_PER_NODE, cpus_per_node),
	FABRIC(PLANES, planes),
	FABRIC(L2_PER_PLANE, l2_per_plane),
	FABRIC(NPUS, npus),
	FABRIC(CPUS, cpus),
	FABRIC(NPU_MEM, npu_mem),
	FABRIC(CPU_MEM, cpu_mem),
	FABRIC(SETUP_NS, setup_ns),
};

static const struct libubfab_attrset fabric_set =
	ATTRSET(UBFAB_A_FABRIC_MAX, fabric_policy, fabric_fields);

/*
 * Attribute set "entity"; chip and die are NPU only, socket CPU only;
 * kernels before memory semantics do not report auth failures.
 */

#define ENTITY(a, m) \
	FIELD(UBFAB_A_ENTITY_##a, struct ubfab_entity_info, m)
static const struct libubfab_field entity_fields[] = {
	ENTITY(EID, eid),
	ENTITY(NAME, name),
	ENTITY(KIND, kind),
	ENTITY(NODE, node),
	{ .attr = UBFAB_A_ENTITY_CHIP,
	  .offset = offsetof(struct ubfab_entity_info, chip) },
	{ .attr = UBFAB_A_ENTITY_DIE,
	  .offset = offsetof(struct ubfab_entity_info, die) },
	{ .attr = UBFAB_A_ENTITY_SOCKET,
	  .offset = offsetof(struct ubfab_entity_info, socket) },
	ENTITY(MEM_SIZE, mem_size),
	ENTITY(PORTS, ports),
	{ .attr = UBFAB_A_ENTITY_AUTH_FAILURES,
	  .offset = offsetof(struct ubfab_entity_info, auth_failures) },
};

static const struct libubfab_attrset entity_set =
	ATTRSET(UBFAB_A_ENTITY_MAX, entity_policy, entity_fields);

/* Attribute set "stats", nested in ports and planes. */

#define STATS(a, m) \
	FIELD(UBFAB_A_STATS_##a, struct ubfab_stats, m)
static const struct libubfab_field stats_fields[] = {
	STATS(TX_BYTES, tx_bytes),
	STATS(RX_BYTES, rx_bytes),
	STATS(TX_OPS, tx_ops),
	STATS(RX_OPS, rx_ops),
	STATS(ERRORS, errors),
};

static const struct libubfab_attrset stats_set =
	ATTRSET(UBFAB_A_STATS_MAX, stats_policy, stats_fields);

/* Attribute set "port"; kernels before the fault knobs do not report them. */

#define PORT(a, m) \
	FIELD(UBFAB_A_PORT_##a, struct ubfab_port_info, m)
#define PORT_KNOB(a, m) \
	{ .attr = UBFAB_A_PORT_##a, \
	  .offset = offsetof(struct ubfab_port_info, m) }
static const struct libubfab_field port_fields[] = {
	PORT(EID, eid),
	PORT(PLANE, plane),
	PORT(STATE, state),
	{ .attr = UBFAB_A_PORT_STATS, .required = true, .nest = &stats_set,
	  .offset = offsetof(struct ubfab_port_info, stats) },
	PORT_KNOB(BW_PERMILLE, bw_permille),
	PORT_KNOB(DELAY_PS, delay_ps),
	PORT_KNOB(ERROR_PPM, error_ppm),
};

static const struct libubfab_attrset port_set =
	ATTRSET(UBFAB_A_PORT_MAX, port_policy, port_fields);

/* Attribute set "plane" */

#define PLANE(a, m) \
	FIELD(UBFAB_A_PLANE_##a, struct ubfab_plane_info, m)
static const struct libubfab_field plane_fields[] = {
	PLANE(ID, id),
	PLANE(STATE, state),
	PLANE(L1_SWITCHES, l1_switches),
	PLANE(L2_SWITCHES, l2_switches),
	PLANE(PORTS, ports),
	PLANE(PORTS_UP, ports_up),
	{ .attr = UBFAB_A_PLANE_STATS, .required = true, .nest = &stats_set,
	  .offset = offsetof(struct ubfab_plane_info, stats) },
};

static const struct libubfab_attrset plane_set =
	ATTRSET(UBFAB_A_PLANE_MAX, plane_policy, plane_fields);

/* Attribute set "seg" */

#define SEG(a, m) \
	FIELD(UBFAB_A_SEG_##a, struct ubfab_seg_info, m)
static const struct libubfab_field seg_fields[] = {
	SEG(EID, eid),
	SEG(TOKEN_ID, token_id),
	SEG(OFFSET, offset),
	SEG(LENGTH, length),
	SEG(RIGHTS, rights),
	SEG(IMPORTS, imports),
	SEG(PID, pid),
};

static const struct libubfab_attrset seg_set =
	ATTRSET(UBFAB_A_SEG_MAX, seg_policy, seg_fields);

/* Attribute set "link": a port's or an L1-L2 link's own attributes. */

#define LINK(a, m) \
	FIELD(UBFAB_A_LINK_##a, struct ubfab_link_info, m)
#define LINK_WHERE(a, m) \
	{ .attr = UBFAB_A_LINK_##a, \
	  .offset = offsetof(struct ubfab_link_info, m) }
static const struct libubfab_field link_fields[] = {
	LINK(PLANE, plane),
	LINK(KIND, kind),
	LINK_WHERE(EID, eid),
	LINK_WHERE(NODE, node),
	LINK_WHERE(L2, l2),
	LINK(BYTES, bytes),
	LINK(BUSY_PS, busy_ps),
	LINK(IDLE_PS, idle_ps),
	LINK(END_PS, end_ps),
};

static const struct libubfab_attrset link_set =
	ATTRSET(UBFAB_A_LINK_MAX, link_policy, link_fields);

/* Attribute set "queue" */

#define QUEUE(a, m) \
	FIELD(UBFAB_A_QUEUE_##a, struct ubfab_queue_info, m)
static const struct libubfab_field queue_fields[] = {
	QUEUE(EID, eid),
	QUEUE(ID, id),
	QUEUE(PID, pid),
	QUEUE(FLAGS, flags),
	QUEUE(SQ_ENTRIES, sq_entries),
	QUEUE(CQ_ENTRIES, cq_entries),
	QUEUE(CLOCK_NS, clock_ns),
	QUEUE(ENTRIES, entries),
};

static const struct libubfab_attrset queue_set =
	ATTRSET(UBFAB_A_QUEUE_MAX, queue_policy, queue_fields);

/* Attribute set "jetty" */

#define JETTY(a, m) \
	FIELD(UBFAB_A_JETTY_##a, struct ubfab_jetty_info, m)
static const struct libubfab_field jetty_fields[] = {
	JETTY(EID, eid),
	JETTY(ID, id),
	JETTY(PID, pid),
	JETTY(SQ, sq),
	JETTY(RQ, rq),
	JETTY(STATE, state),
	JETTY(SENDS, sends),
	JETTY(RECEIVES, receives),
	JETTY(RNR_NAKS, rnr_naks),
	JETTY(RNR_EXC, rnr_exc),
	JETTY(ERRORS, errors),
	JETTY(EVENTS, events),
};

static const struct libubfab_attrset jetty_set =
	ATTRSET(UBFAB_A_JETTY_MAX, jetty_policy, jetty_fields);

/* Attribute set "param", nested in "model" */

#define PARAM(a, m) \
	FIELD(UBFAB_A_PARAM_##a, struct ubfab_model_param, m)
static const struct libubfab_field param_fields[] = {
	PARAM(NAME, name),
	PARAM(VALUE, value),
	PARAM(UNIT, unit),
	PARAM(MINIMUM, minimum),
	PARAM(MAXIMUM, maximum),
	PARAM(DEFAULT, default_value),
};

static const struct libubfab_attrset param_set =
	ATTRSET(UBFAB_A_PARAM_MAX, param_policy, param_fields);

/* Attribute set "mem", nested in "model" */

#define MEM(a, m) \
	FIELD(UBFAB_A_MEM_##a, struct ubfab_model_mem, m)
static const struct libubfab_field mem_fields[] = {
	MEM(LINKS, links),
	MEM(LINKS_BYTES, links_bytes),
	MEM(QUEUES, queues),
	MEM(QUEUE_BYTES, queue_bytes),
	MEM(STAMPS, stamps),
	MEM(STAMP_BYTES, stamp_bytes),
	MEM(OTHER_BYTES, other_bytes),
	MEM(TOTAL_BYTES, total_bytes),
};

static const struct libubfab_attrset mem_set =
	ATTRSET(UBFAB_A_MEM_MAX, mem_policy, mem_fields);

/*
 * Attribute set "model": the profile and the memory (kernels before it
 * do not report it); model_decode() walks its repeated params.
 */

static const struct libubfab_field model_fields[] = {
	FIELD(UBFAB_A_MODEL_PROFILE, struct ubfab_model, profile),
	{ .attr = UBFAB_A_MODEL_MEM, .nest = &mem_set,
	  .offset = offsetof(struct ubfab_model, mem) },
};

static const struct libubfab_attrset model_set =
	ATTRSET(UBFAB_A_MODEL_MAX, model_policy, model_fields);

/* Objects: what a command replies with and how to hand it to the caller */

union dump_cb {
	ubfab_entity_cb entity;
	ubfab_port_cb port;
	ubfab_plane_cb plane;
	ubfab_seg_cb seg;
	ubfab_link_cb link;
	ubfab_queue_info_cb queue;
	ubfab_jetty_info_cb jetty;
};

/* Room for one decoded object of any dumpable kind. */
union dump_obj {
	struct ubfab_entity_info entity;
	struct ubfab_port_info port;
	struct ubfab_plane_info plane;
	struct ubfab_seg_info seg;
	struct ubfab_link_info link;
	struct ubfab_queue_info queue;
	struct ubfab_jetty_info jetty;
};

/**
 * struct object - the reply of one command
 * @cmd: UBFAB_CMD_*
 * @set: attribute set of the reply
 * @size: size of the public struct it decodes into
 * @init: value of that struct before decoding, NULL for all zeroes
 * @check: checks that go beyond one attribute, NULL if none
 * @deliver: calls the dump callback of this object type (dumps only)
 */
struct object {
	uint8_t cmd;
	const struct libubfab_attrset *set;
	size_t size;
	const void *init;
	int (*check)(struct nlattr **tb, const void *out);
	int (*deliver)(const void *out, const union dump_cb *cb, void *arg);
};

static const struct object fabric_object = {
	.cmd = UBFAB_CMD_FABRIC_GET,
	.set = &fabric_set,
	.size = sizeof(struct ubfab_fabric_info),
};

static const struct ubfab_entity_info entity_init = {
	.chip = UBFAB_FIELD_NONE,
	.die = UBFAB_FIELD_NONE,
	.socket = UBFAB_FIELD_NONE,
	.auth_failures = UBFAB_COUNT_NONE,
};

/* An NPU has a chip and a die but no socket, a CPU only a socket. */
static int entity_check(struct nlattr **tb, const void *out)
{
	const struct ubfab_entity_info *e = out;
	bool chip = tb[UBFAB_A_ENTITY_CHIP] && tb[UBFAB_A_ENTITY_DIE];
	bool socket = tb[UBFAB_A_ENTITY_SOCKET];
	bool any_chip = tb[UBFAB_A_ENTITY_CHIP] || tb[UBFAB_A_ENTITY_DIE];

	if (e->kind == UBFAB_ENTITY_NPU && (!chip || socket))
		return -EPROTO;
	if (e->kind == UBFAB_ENTITY_CPU && (any_chip || !socket))
		return -EPROTO;
	return 0;
}

static int entity_deliver(const void *out, const union dump_cb *cb, void *arg)
{
	return cb->entity(out, arg);
}

static const struct object entity_object = {
	.cmd = UBFAB_CMD_ENTITY_GET,
	.set = &entity_set,
	.size = sizeof(struct ubfab_entity_info),
	.init = &entity_init,
	.check = entity_check,
	.deliver = entity_deliver,
};

static int port_deliver(const void *out, const union dump_cb *cb, void *arg)
{
	return cb->port(out, arg);
}

static const struct ubfab_port_info port_init = {
	.bw_permille = UBFAB_FIELD_NONE,
	.error_ppm = UBFAB_FIELD_NONE,
	.delay_ps = UBFAB_COUNT_NONE,
};

static const struct object port_object = {
	.cmd = UBFAB_CMD_PORT_GET,
	.set = &port_set,
	.size = sizeof(struct ubfab_port_info),
	.init = &port_init,
	.deliver = port_deliver,
};

static int plane_deliver(const void *out, const union dump_cb *cb, void *arg)
{
	return cb->plane(out, arg);
}

static const struct object plane_object = {
	.cmd = UBFAB_CMD_PLANE_GET,
	.set = &plane_set,
	.size = sizeof(struct ubfab_plane_info),
	.deliver = plane_deliver,
};

static int seg_deliver(const void *out, const union dump_cb *cb, void *arg)
{
	return cb->seg(out, arg);
}

static const struct object seg_object = {
	.cmd = UBFAB_CMD_SEG_GET,
	.set = &seg_set,
	.size = sizeof(struct ubfab_seg_info),
	.deliver = seg_deliver,
};

static int queue_deliver(const void *out, const union dump_cb *cb, void *arg)
{
	return cb->queue(out, arg);
}

static const struct object queue_object = {
	.cmd = UBFAB_CMD_QUEUE_GET,
	.set = &queue_set,
	.size = sizeof(struct ubfab_queue_info),
	.deliver = queue_deliver,
};

static int jetty_deliver(const void *out, const union dump_cb *cb, void *arg)
{
	return cb->jetty(out, arg);
}

static const struct object jetty_object = {
	.cmd = UBFAB_CMD_JETTY_GET,
	.set = &jetty_set,
	.size = sizeof(struct ubfab_jetty_info),
	.deliver = jetty_deliver,
};

static int link_deliver(const void *out, const union dump_cb *cb, void *arg)
{
	return cb->link(out, arg);
}

static const struct ubfab_link_info link_init = {
	.eid = UBFAB_FIELD_NONE,
	.node = UBFAB_FIELD_NONE,
	.l2 = UBFAB_FIELD_NONE,
};

/* A port names its entity, an L1-L2 link its node and L2 switch. */
static int link_check(struct nlattr **tb, const void *out)
{
	const struct ubfab_link_info *l = out;
	bool port = tb[UBFAB_A_LINK_EID];
	bool switches = tb[UBFAB_A_LINK_NODE] && tb[UBFAB_A_LINK_L2];

	if (l->kind > UBFAB_LINK_L2_DOWN)
		return -EPROTO;
	if (l->kind <= UBFAB_LINK_PORT_RX ? !port || tb[UBFAB_A_LINK_NODE] ||
					    tb[UBFAB_A_LINK_L2] :
					    !switches || port)
		return -EPROTO;
	return 0;
}

static const struct object link_object = {
	.cmd = UBFAB_CMD_LINK_GET,
	.set = &link_set,
	.size = sizeof(struct ubfab_link_info),
	.init = &link_init,
	.check = link_check,
	.deliver = link_deliver,
};

static int object_decode(const struct object *o, struct nlattr **tb,
			 void *out)
{
	int err;

	if (o->init)
		memcpy(out, o->init, o->size);
	else
		memset(out, 0, o->size);
	err = libubfab_decode(o->set, tb, out);
	if (!err && o->check)
		err = o->check(tb, out);
	return err;
}

/* Commands that change the fabric: their replies carry no object. */

static const struct object port_set_object = {
	.cmd = UBFAB_CMD_PORT_SET,
	.set = &port_set,
};

static const struct object plane_set_object = {
	.cmd = UBFAB_CMD_PLANE_SET,
	.set = &plane_set,
};

static const struct object entity_reset_object = {
	.cmd = UBFAB_CMD_ENTITY_RESET,
	.set = &entity_set,
};

/*
 * Requests: a command, do or dump, with up to six attributes, each a
 * number, of the type the set's policy gives it, or a string.
 */

struct request_attr {
	uint16_t type;
	uint64_t num;
	const char *str;	/* a string attribute instead of a number */
};

struct request {
	const struct object *o;
	bool dump;
	unsigned int nattrs;
	struct request_attr attrs[6];
};

/* Append a number attribute to @req, which has room for it. */
static void request_add(struct request *req, uint16_t type, uint64_t num)
{
	req->attrs[req->nattrs++] = (struct request_attr){
		.type = type,
		.num = num,
	};
}

/* Put attribute @a of a request of set @set into @msg. */
static int request_put(struct nl_msg *msg, const struct libubfab_attrset *set,
		       const struct request_attr *a)
{
	if (a->str)
		return nla_put_string(msg, a->type, a->str);
	if (set->policy[a->type].type == NLA_U64)
		return nla_put_u64(msg, a->type, a->num);
	return nla_put_u32(msg, a->type, a->num);
}

static int request_run(struct ubfab_nl *nl, const struct request *req,
		       libubfab_reply_fn fn, void *arg)
{
	struct nl_msg *msg;
	unsigned int i;
	int err = 0;

	msg = libubfab_msg_new(nl, req->o->cmd, req->dump);
	if (!msg)
		return -ENOMEM;
	for (i = 0; i < req->nattrs && !err; i++)
		err = request_put(msg, req->o->set, &req->attrs[i]);
	if (err) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return libubfab_request(nl, msg, req->o->set, fn, arg);
}

struct get_ctx {
	const struct object *o;
	void *out;
	unsigned int replies;
};

static int get_reply(struct nlmsghdr *hdr, struct nlattr **tb, void *arg)
{
	struct get_ctx *g = arg;

	(void)hdr;

	if (g->replies++)
		return -EPROTO;	/* a do request has one reply */
	return object_decode(g->o, tb, g->out);
}

static int object_get(struct ubfab_nl *nl, const struct request *req,
		      void *out)
{
	struct get_ctx g = { .o = req->o, .out = out };
	int err;

	if (!nl || !out)
		return -EINVAL;
	err = request_run(nl, req, get_reply, &g);
	if (!err && g.replies != 1)
		err = -EPROTO;
	return err;
}

static int set_reply(struct nlmsghdr *hdr, struct nlattr **tb, void *arg)
{
	(void)hdr;
	(void)tb;
	(void)arg;
	return -EPROTO;	/* a command that changes the fabric only acks */
}

static int object_set(struct ubfab_nl *nl, const struct request *req)
{
	return nl ? request_run(nl, req, set_reply, NULL) : -EINVAL;
}

struct dump_ctx {
	const struct object *o;
	union dump_cb cb;
	void *arg;
};

static int dump_reply(struct nlmsghdr *hdr, struct nlattr **tb, void *arg)
{
	struct dump_ctx *d = arg;
	union dump_obj obj;
	int err;

	(void)hdr;

	err = object_decode(d->o, tb, &obj);
	return err ? err : d->o->deliver(&obj, &d->cb, d->arg);
}

static int object_dump(struct ubfab_nl *nl, const struct request *req,
		       const union dump_cb *cb, void *arg)
{
	struct dump_ctx d = { .o = req->o, .cb = *cb, .arg = arg };

	if (!nl)
		return -EINVAL;
	return request_run(nl, req, dump_reply, &d);
}

/* The public API */

int ubfab_fabric_get(struct ubfab_nl *nl, struct ubfab_fabric_info *out)
{
	const struct request req = { .o = &fabric_object };

	return object_get(nl, &req, out);
}

/*
 * Version 1.1 added auth_failures at the end of struct ubfab_entity_info,
 * and 1.4 the fault knobs at the end of struct ubfab_port_info. Programs
 * built against an earlier version bind to the earlier versions of the
 * calls that fill them: get fills only their shorter struct; dump is the
 * same code at both versions, because its callbacks only read the
 * struct, but a program built against the later version must not run
 * with an earlier library, which would pass it the shorter one.
 */
#define ENTITY_INFO_1_0_SIZE	offsetof(struct ubfab_entity_info, auth_failures)
#define PORT_INFO_1_0_SIZE	offsetof(struct ubfab_port_info, bw_permille)
#define VERSION_1_0(sym)	__attribute__((symver(#sym "@UBFAB_1.0")))
#define VERSION_1_1(sym)	__attribute__((symver(#sym "@@UBFAB_1.1")))
#define VERSION_1_2(sym)	__attribute__((symver(#sym "@UBFAB_1.2")))
#define VERSION_1_4(sym)	__attribute__((symver(#sym "@@UBFAB_1.4")))

/* Give an earlier version's caller the first @size bytes of @obj. */
static int copy_earlier(int err, const void *obj, void *out, size_t size)
{
	if (!err)
		memcpy(out, obj, size);
	return err;
}

VERSION_1_1(ubfab_entity_get)
int libubfab_entity_get(struct ubfab_nl *nl, uint32_t eid,
			struct ubfab_entity_info *out)
{
	const struct request req = {
		.o = &entity_object,
		.nattrs = 1,
		.attrs = { { .type = UBFAB_A_ENTITY_EID, .num = eid } },
	};

	return object_get(nl, &req, out);
}

VERSION_1_0(ubfab_entity_get)
int libubfab_entity_get_1_0(struct ubfab_nl *nl, uint32_t eid, void *out)
{
	struct ubfab_entity_info e;

	if (!out)
		return -EINVAL;
	return copy_earlier(libubfab_entity_get(nl, eid, &e), &e, out,
			    ENTITY_INFO_1_0_SIZE);
}

VERSION_1_1(ubfab_entity_get_by_name)
int libubfab_entity_get_by_name(struct ubfab_nl *nl, const char *name,
				struct ubfab_entity_info *out)
{
	const struct request req = {
		.o = &entity_object,
		.nattrs = 1,
		.attrs = { { .type = UBFAB_A_ENTITY_NAME, .str = name } },
	};

	if (!name)
		return -EINVAL;
	/* no entity has a name that does not fit UBFAB_NAME_MAX */
	if (strnlen(name, UBFAB_NAME_MAX) == UBFAB_NAME_MAX)
		return -ENODEV;
	return object_get(nl, &req, out);
}

VERSION_1_0(ubfab_entity_get_by_name)
int libubfab_entity_get_by_name_1_0(struct ubfab_nl *nl, const char *name,
				    void *out)
{
	struct ubfab_entity_info e;

	if (!out)
		return -EINVAL;
	return copy_earlier(libubfab_entity_get_by_name(nl, name, &e), &e, out,
			    ENTITY_INFO_1_0_SIZE);
}

VERSION_1_0(ubfab_entity_dump) VERSION_1_1(ubfab_entity_dump)
int libubfab_entity_dump(struct ubfab_nl *nl, ubfab_entity_cb cb, void *arg)
{
	const struct request req = { .o = &entity_object, .dump = true };
	const union dump_cb u = { .entity = cb };

	return cb ? object_dump(nl, &req, &u, arg) : -EINVAL;
}

VERSION_1_4(ubfab_port_get)
int libubfab_port_get(struct ubfab_nl *nl, uint32_t eid, uint32_t plane,
		      struct ubfab_port_info *out)
{
	const struct request req = {
		.o = &port_object,
		.nattrs = 2,
		.attrs = {
			{ .type = UBFAB_A_PORT_EID, .num = eid },
			{ .type = UBFAB_A_PORT_PLANE, .num = plane },
		},
	};

	return object_get(nl, &req, out);
}

VERSION_1_0(ubfab_port_get)
int libubfab_port_get_1_0(struct ubfab_nl *nl, uint32_t eid, uint32_t plane,
			  void *out)
{
	struct ubfab_port_info p;

	if (!out)
		return -EINVAL;
	return copy_earlier(libubfab_port_get(nl, eid, plane, &p), &p, out,
			    PORT_INFO_1_0_SIZE);
}

VERSION_1_0(ubfab_port_dump) VERSION_1_4(ubfab_port_dump)
int libubfab_port_dump(struct ubfab_nl *nl, uint32_t eid, ubfab_port_cb cb,
		       void *arg)
{
	const struct request req = {
		.o = &port_object,
		.dump = true,
		.nattrs = eid != UBFAB_EID_ANY,
		.attrs = { { .type = UBFAB_A_PORT_EID, .num = eid } },
	};
	const union dump_cb u = { .port = cb };

	return cb ? object_dump(nl, &req, &u, arg) : -EINVAL;
}

int ubfab_plane_get(struct ubfab_nl *nl, uint32_t id,
		    struct ubfab_plane_info *out)
{
	const struct request req = {
		.o = &plane_object,
		.nattrs = 1,
		.attrs = { { .type = UBFAB_A_PLANE_ID, .num = id } },
	};

	return object_get(nl, &req, out);
}

int ubfab_plane_dump(struct ubfab_nl *nl, ubfab_plane_cb cb, void *arg)
{
	const struct request req = { .o = &plane_object, .dump = true };
	const union dump_cb u = { .plane = cb };

	return cb ? object_dump(nl, &req, &u, arg) : -EINVAL;
}

int ubfab_seg_dump(struct ubfab_nl *nl, uint32_t eid, ubfab_seg_cb cb,
		   void *arg)
{
	const struct request req = {
		.o = &seg_object,
		.dump = true,
		.nattrs = eid != UBFAB_EID_ANY,
		.attrs = { { .type = UBFAB_A_SEG_EID, .num = eid } },
	};
	const union dump_cb u = { .seg = cb };

	return cb ? object_dump(nl, &req, &u, arg) : -EINVAL;
}

int ubfab_queue_dump(struct ubfab_nl *nl, uint32_t eid, ubfab_queue_info_cb cb,
		     void *arg)
{
	const struct request req = {
		.o = &queue_object,
		.dump = true,
		.nattrs = eid != UBFAB_EID_ANY,
		.attrs = { { .type = UBFAB_A_QUEUE_EID, .num = eid } },
	};
	const union dump_cb u = { .queue = cb };

	return cb ? object_dump(nl, &req, &u, arg) : -EINVAL;
}

int ubfab_jetty_dump(struct ubfab_nl *nl, uint32_t eid, ubfab_jetty_info_cb cb,
		     void *arg)
{
	const struct request req = {
		.o = &jetty_object,
		.dump = true,
		.nattrs = eid != UBFAB_EID_ANY,
		.attrs = { { .type = UBFAB_A_JETTY_EID, .num = eid } },
	};
	const union dump_cb u = { .jetty = cb };

	return cb ? object_dump(nl, &req, &u, arg) : -EINVAL;
}

int ubfab_link_dump(struct ubfab_nl *nl, uint32_t plane, ubfab_link_cb cb,
		    void *arg)
{
	const struct request req = {
		.o = &link_object,
		.dump = true,
		.nattrs = plane != UBFAB_PLANE_ANY,
		.attrs = { { .type = UBFAB_A_LINK_PLANE, .num = plane } },
	};
	const union dump_cb u = { .link = cb };

	return cb ? object_dump(nl, &req, &u, arg) : -EINVAL;
}

/* The fabric model's parameters */

static const struct object model_object = {
	.cmd = UBFAB_CMD_MODEL_GET,
	.set = &model_set,
};

static const struct object model_set_object = {
	.cmd = UBFAB_CMD_MODEL_SET,
	.set = &model_set,
};

/*
 * A struct ubfab_model and its params in one block: ubfab_model_free()
 * (model.c), free(), frees both.
 */
struct model_block {
	struct ubfab_model model;
	struct ubfab_model_param params[];
};

/*
 * The model of a model-get reply or a model-ntf: @hdr, its attributes
 * parsed into @tb. Its param nests, in order, become @out's params.
 */
static int model_decode(struct nlmsghdr *hdr, struct nlattr **tb,
			struct ubfab_model **out)
{
	struct genlmsghdr *gnlh = nlmsg_data(hdr);
	struct model_block *b;
	struct nlattr *a;
	size_t n = 0;
	int rem, err;

	nla_for_each_attr(a, genlmsg_attrdata(gnlh, 0),
			  genlmsg_attrlen(gnlh, 0), rem)
		n += nla_type(a) == UBFAB_A_MODEL_PARAM;
	b = calloc(1, sizeof(*b) + n * sizeof(b->params[0]));
	if (!b)
		return -ENOMEM;
	b->model.params = b->params;
	err = libubfab_decode(&model_set, tb, &b->model);
	nla_for_each_attr(a, genlmsg_attrdata(gnlh, 0),
			  genlmsg_attrlen(gnlh, 0), rem) {
		if (!err && nla_type(a) == UBFAB_A_MODEL_PARAM)
			err = libubfab_decode_nested(&param_set, a,
					&b->params[b->model.nparams++]);
	}
	if (err) {
		free(b);
		return err;
	}
	*out = &b->model;
	return 0;
}

static int model_reply(struct nlmsghdr *hdr, struct nlattr **tb, void *arg)
{
	struct ubfab_model **m = arg;

	if (*m)
		return -EPROTO;	/* a do request has one reply */
	return model_decode(hdr, tb, m);
}

int ubfab_model_get(struct ubfab_nl *nl, struct ubfab_model **modelp)
{
	const struct request req = { .o = &model_object };
	struct ubfab_model *m = NULL;
	int err;

	if (!nl || !modelp)
		return -EINVAL;
	err = request_run(nl, &req, model_reply, &m);
	if (!err && !m)
		err = -EPROTO;
	if (err) {
		ubfab_model_free(m);
		return err;
	}
	*modelp = m;
	return 0;
}

/* The most bytes one value takes in a model-set request. */
static size_t model_value_room(void)
{
	return nla_total_size(nla_total_size(UBFAB_PARAM_MAX) +
			      nla_total_size(sizeof(uint64_t)));
}

/* Put the profile, if any, and a param nest per value into @msg. */
static int model_set_put(struct nl_msg *msg, const char *profile,
			 const struct ubfab_model_value *values, size_t n)
{
	struct nlattr *nest;
	size_t i;

	if (profile && nla_put_string(msg, UBFAB_A_MODEL_PROFILE, profile))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		nest = nla_nest_start(msg, UBFAB_A_MODEL_PARAM);
		if (!nest ||
		    nla_put_string(msg, UBFAB_A_PARAM_NAME, values[i].name) ||
		    nla_put_u64(msg, UBFAB_A_PARAM_VALUE, values[i].value))
			return -ENOMEM;
		nla_nest_end(msg, nest);
	}
	return 0;
}

int ubfab_model_set(struct ubfab_nl *nl, const char *profile,
		    const struct ubfab_model_value *values, size_t n)
{
	struct nl_msg *msg;
	size_t i, size;

	if (!nl || (n && !values))
		return -EINVAL;
	/* no profile or parameter has a name that long */
	if (profile && strnlen(profile, UBFAB_NAME_MAX) == UBFAB_NAME_MAX)
		return -ENOENT;
	for (i = 0; i < n; i++) {
		if (!values[i].name)
			return -EINVAL;
		if (strnlen(values[i].name, UBFAB_PARAM_MAX) == UBFAB_PARAM_MAX)
			return -ENOENT;
	}
	/* room for them all, each name at its longest */
	if (n > (SIZE_MAX / 2) / model_value_room())
		return -ENOMEM;
	size = nlmsg_total_size(GENL_HDRLEN + nla_total_size(UBFAB_NAME_MAX) +
				n * model_value_room());
	msg = libubfab_msg_new(nl, model_set_object.cmd, false);
	if (!msg)
		return -ENOMEM;
	if ((size > nlmsg_get_max_size(msg) && nlmsg_expand(msg, size) < 0) ||
	    model_set_put(msg, profile, values, n)) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return libubfab_request(nl, msg, model_set_object.set, set_reply,
				NULL);
}

/* Fault injection and events */

#define PORT_FAULTS	(UBFAB_PORT_FAULT_STATE | UBFAB_PORT_FAULT_BW | \
			 UBFAB_PORT_FAULT_DELAY | UBFAB_PORT_FAULT_ERRORS)

int ubfab_port_set_faults(struct ubfab_nl *nl, uint32_t eid, uint32_t plane,
			  const struct ubfab_port_faults *f)
{
	struct request req = {
		.o = &port_set_object,
		.nattrs = 2,
		.attrs = {
			{ .type = UBFAB_A_PORT_EID, .num = eid },
			{ .type = UBFAB_A_PORT_PLANE, .num = plane },
		},
	};

	if (!f || !f->mask || (f->mask & ~PORT_FAULTS))
		return -EINVAL;
	if (f->mask & UBFAB_PORT_FAULT_STATE)
		request_add(&req, UBFAB_A_PORT_STATE, f->state);
	if (f->mask & UBFAB_PORT_FAULT_BW)
		request_add(&req, UBFAB_A_PORT_BW_PERMILLE, f->bw_permille);
	if (f->mask & UBFAB_PORT_FAULT_DELAY)
		request_add(&req, UBFAB_A_PORT_DELAY_PS, f->delay_ps);
	if (f->mask & UBFAB_PORT_FAULT_ERRORS)
		request_add(&req, UBFAB_A_PORT_ERROR_PPM, f->error_ppm);
	return object_set(nl, &req);
}

int ubfab_port_set_state(struct ubfab_nl *nl, uint32_t eid, uint32_t plane,
			 uint32_t state)
{
	const struct ubfab_port_faults f = {
		.mask = UBFAB_PORT_FAULT_STATE,
		.state = state,
	};

	return ubfab_port_set_faults(nl, eid, plane, &f);
}

int ubfab_plane_set_state(struct ubfab_nl *nl, uint32_t id, uint32_t state)
{
	const struct request req = {
		.o = &plane_set_object,
		.nattrs = 2,
		.attrs = {
			{ .type = UBFAB_A_PLANE_ID, .num = id },
			{ .type = UBFAB_A_PLANE_STATE, .num = state },
		},
	};

	return object_set(nl, &req);
}

int ubfab_entity_reset(struct ubfab_nl *nl, uint32_t eid)
{
	const struct request req = {
		.o = &entity_reset_object,
		.nattrs = 1,
		.attrs = { { .type = UBFAB_A_ENTITY_EID, .num = eid } },
	};

	return object_set(nl, &req);
}

/* The object each notification but the model's carries, by its command. */
static const struct object *event_object(uint8_t cmd)
{
	switch (cmd) {
	case UBFAB_CMD_PORT_NTF:
		return &port_object;
	case UBFAB_CMD_PLANE_NTF:
		return &plane_object;
	case UBFAB_CMD_ENTITY_RESET_NTF:
		return &entity_object;
	default:
		return NULL;
	}
}

int libubfab_event_decode(struct nlmsghdr *hdr, struct ubfab_nl_event *ev,
			  bool model)
{
	struct nlattr *tb[LIBUBFAB_MAXATTR + 1];
	const struct object *o;
	uint8_t cmd;
	int err;

	if (!genlmsg_valid_hdr(hdr, 0))
		return -EPROTO;
	cmd = ((struct genlmsghdr *)nlmsg_data(hdr))->cmd;
	o = model && cmd == UBFAB_CMD_MODEL_NTF ? &model_object :
						  event_object(cmd);
	if (!o)
		return -ENOMSG;
	if (genlmsg_parse(hdr, 0, tb, o->set->maxattr, o->set->policy) < 0)
		return -EPROTO;
	if (o == &model_object)
		err = model_decode(hdr, tb, &ev->model);
	else	/* the union's members all start where it does */
		err = object_decode(o, tb, &ev->port);
	if (!err)
		ev->cmd = cmd;
	return err;
}

/* Room for one notification: the kernel builds them in NLMSG_GOODSIZE. */
#define EVENT_MSG_MAX	8192

/* Read notifications until one decodes (with model events or without). */
static int event_read(struct ubfab_nl *nl, struct ubfab_nl_event *ev,
		      bool model)
{
	uint64_t buf[EVENT_MSG_MAX / sizeof(uint64_t)];
	int err;

	if (!nl || !ev)
		return -EINVAL;
	do {
		err = libubfab_recv_notification(nl, buf, sizeof(buf));
		if (!err)
			err = libubfab_event_decode((struct nlmsghdr *)buf, ev,
						    model);
	} while (err == -ENOMSG);
	return err;
}

/*
 * Version 1.4 added model events, whose model the caller must free, and
 * made struct ubfab_nl_event longer, with the port's fault knobs.
 * Programs built against 1.2 or 1.3 bind to the UBFAB_1.2 version, which
 * skips model events as it did and fills the struct they know: its union
 * as long as its longest member was then.
 */
struct nl_event_1_2 {
	uint32_t cmd;
	union {
		unsigned char port[PORT_INFO_1_0_SIZE];
		struct ubfab_plane_info plane;
		struct ubfab_entity_info entity;
	};
};

_Static_assert(offsetof(struct nl_event_1_2, plane) ==
	       offsetof(struct ubfab_nl_event, plane),
	       "struct ubfab_nl_event's union moved");

VERSION_1_4(ubfab_nl_event_read)
int libubfab_nl_event_read(struct ubfab_nl *nl, struct ubfab_nl_event *ev)
{
	return event_read(nl, ev, true);
}

VERSION_1_2(ubfab_nl_event_read)
int libubfab_nl_event_read_1_2(struct ubfab_nl *nl, void *ev)
{
	struct ubfab_nl_event e;

	if (!ev)
		return -EINVAL;
	return copy_earlier(event_read(nl, &e, false), &e, ev,
			    sizeof(struct nl_event_1_2));
}
