// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab control plane: the "ubfab" generic netlink family, which reports
 * the fabric, its entities, ports, planes, segments, queues and the
 * model's links to any netlink client, lets an administrator reset entities, set port and plane
 * states (fault injection) and the fabric model's parameters, and
 * announces those changes to the "events" multicast group.
 *
 * Commands, attributes and errors are defined in include/uapi/linux/ubfab.h
 * after Documentation/netlink/ubfab.yaml, the family's source. The
 * policies, the operations, the multicast groups and the family itself are
 * generated from the spec into netlink_gen.h, which declares the handlers
 * this file defines. One fill function per object serves both do and dump.
 * The handlers run in parallel (parallel_ops) without a lock of their own:
 * the fabric's shape is immutable while the family is registered, and
 * states and counters are read with READ_ONCE() and atomic64_read().
 * Segments change at any time; the dump reads each entity's under its
 * mem_lock.
 *
 * Port and plane states and the model's parameters are written only here,
 * under ubfab_nl_state_lock, which also covers sending the notification: listeners see the changes
 * in the order they were made, each with the state it set. Readers (the
 * get handlers, the data path) take no lock: a state is one int read with
 * READ_ONCE(), so they see either the old or the new value.
 */
#include <linux/mutex.h>
#include <net/genetlink.h>

#include "compat.h"
#include "jetty.h"
#include "mem.h"
#include "model.h"
#include "netlink_gen.h"
#include "trace.h"

/* Set before the family is registered, cleared after it is unregistered. */
static struct ubfab_fabric *ubfab_nl_fabric;

/* Serializes state changes with their notifications. */
static DEFINE_MUTEX(ubfab_nl_state_lock);

typedef int (*ubfab_nl_fill_t)(struct sk_buff *skb, const void *obj);

static int ubfab_nl_put_stats(struct sk_buff *skb, int attr,
			      const struct ubfab_stats_val *stats)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, attr);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, UBFAB_A_STATS_TX_BYTES,
			      stats->tx_bytes,
			      UBFAB_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, UBFAB_A_STATS_RX_BYTES,
			      stats->rx_bytes,
			      UBFAB_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, UBFAB_A_STATS_TX_OPS,
			      stats->tx_ops,
			      UBFAB_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, UBFAB_A_STATS_RX_OPS,
			      stats->rx_ops,
			      UBFAB_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, UBFAB_A_STATS_ERRORS,
			      stats->errors,
			      UBFAB_A_STATS_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int ubfab_nl_fill_fabric(struct sk_buff *skb, const void *obj)
{
	const struct ubfab_fabric *fabric = obj;
	const struct ubfab_topo *topo = &fabric->topo;

	if (nla_put_string(skb, UBFAB_A_FABRIC_PROFILE, topo->profile) ||
	    nla_put_u32(skb, UBFAB_A_FABRIC_NODES, topo->nodes) ||
	    nla_put_u32(skb, UBFAB_A_FABRIC_CHIPS_PER_NODE,
			topo->chips_per_node) ||
	    nla_put_u32(skb, UBFAB_A_FABRIC_DIES_PER_CHIP,
			topo->dies_per_chip) ||
	    nla_put_u32(skb, UBFAB_A_FABRIC_CPUS_PER_NODE,
			topo->cpus_per_node) ||
	    nla_put_u32(skb, UBFAB_A_FABRIC_PLANES, topo->planes) ||
	    nla_put_u32(skb, UBFAB_A_FABRIC_L2_PER_PLANE,
			topo->l2_per_plane) ||
	    nla_put_u32(skb, UBFAB_A_FABRIC_NPUS, ubfab_topo_npus(topo)) ||
	    nla_put_u32(skb, UBFAB_A_FABRIC_CPUS, ubfab_topo_cpus(topo)) ||
	    nla_put_u64_64bit(skb, UBFAB_A_FABRIC_NPU_MEM, topo->npu_mem,
			      UBFAB_A_FABRIC_PAD) ||
	    nla_put_u64_64bit(skb, UBFAB_A_FABRIC_CPU_MEM, topo->cpu_mem,
			      UBFAB_A_FABRIC_PAD) ||
	    nla_put_u64_64bit(skb, UBFAB_A_FABRIC_SETUP_NS, fabric->setup_ns,
			      UBFAB_A_FABRIC_PAD))
		return -EMSGSIZE;
	return 0;
}

static int ubfab_nl_fill_entity(struct sk_buff *skb, const void *obj)
{
	const struct ubfab_entity *entity = obj;
	const struct ubfab_loc *loc = &entity->loc;

	if (nla_put_u32(skb, UBFAB_A_ENTITY_EID, entity->eid) ||
	    nla_put_string(skb, UBFAB_A_ENTITY_NAME, dev_name(&entity->dev)) ||
	    nla_put_u32(skb, UBFAB_A_ENTITY_KIND, loc->kind) ||
	    nla_put_u32(skb, UBFAB_A_ENTITY_NODE, loc->node) ||
	    nla_put_u64_64bit(skb, UBFAB_A_ENTITY_MEM_SIZE, entity->mem_size,
			      UBFAB_A_ENTITY_PAD) ||
	    nla_put_u32(skb, UBFAB_A_ENTITY_PORTS, entity->nr_ports) ||
	    nla_put_u64_64bit(skb, UBFAB_A_ENTITY_AUTH_FAILURES,
			      atomic64_read(&entity->auth_failures),
			      UBFAB_A_ENTITY_PAD))
		return -EMSGSIZE;

	if (loc->kind == UBFAB_ENTITY_NPU) {
		if (nla_put_u32(skb, UBFAB_A_ENTITY_CHIP, loc->chip) ||
		    nla_put_u32(skb, UBFAB_A_ENTITY_DIE, loc->die))
			return -EMSGSIZE;
	} else if (nla_put_u32(skb, UBFAB_A_ENTITY_SOCKET, loc->socket)) {
		return -EMSGSIZE;
	}
	return 0;
}

static int ubfab_nl_fill_port(struct sk_buff *skb, const void *obj)
{
	const struct ubfab_port *port = obj;
	struct ubfab_stats_val stats = {};

	if (nla_put_u32(skb, UBFAB_A_PORT_EID, port->entity->eid) ||
	    nla_put_u32(skb, UBFAB_A_PORT_PLANE, port->plane) ||
	    nla_put_u32(skb, UBFAB_A_PORT_STATE, READ_ONCE(port->state)) ||
	    nla_put_u32(skb, UBFAB_A_PORT_BW_PERMILLE,
			READ_ONCE(port->bw_permille)) ||
	    nla_put_u64_64bit(skb, UBFAB_A_PORT_DELAY_PS,
			      READ_ONCE(port->delay_ps), UBFAB_A_PORT_PAD) ||
	    nla_put_u32(skb, UBFAB_A_PORT_ERROR_PPM,
			READ_ONCE(port->error_ppm)))
		return -EMSGSIZE;
	ubfab_stats_add(&stats, &port->stats);
	return ubfab_nl_put_stats(skb, UBFAB_A_PORT_STATS, &stats);
}

static int ubfab_nl_fill_plane(struct sk_buff *skb, const void *obj)
{
	const struct ubfab_plane *plane = obj;
	struct ubfab_stats_val stats;

	if (nla_put_u32(skb, UBFAB_A_PLANE_ID, plane->id) ||
	    nla_put_u32(skb, UBFAB_A_PLANE_STATE, READ_ONCE(plane->state)) ||
	    nla_put_u32(skb, UBFAB_A_PLANE_L1_SWITCHES, plane->nr_l1) ||
	    nla_put_u32(skb, UBFAB_A_PLANE_L2_SWITCHES, plane->nr_l2) ||
	    nla_put_u32(skb, UBFAB_A_PLANE_PORTS,
			ubfab_nl_fabric->nr_entities) ||
	    nla_put_u32(skb, UBFAB_A_PLANE_PORTS_UP,
			ubfab_plane_ports_up(ubfab_nl_fabric, plane)))
		return -EMSGSIZE;
	ubfab_plane_stats(ubfab_nl_fabric, plane, &stats);
	return ubfab_nl_put_stats(skb, UBFAB_A_PLANE_STATS, &stats);
}

/* Context: the segment's owner's mem_lock held, for its import list. */
static int ubfab_nl_fill_seg(struct sk_buff *skb, const void *obj)
{
	const struct ubfab_segment *seg = obj;

	if (nla_put_u32(skb, UBFAB_A_SEG_EID, seg->owner->eid) ||
	    nla_put_u32(skb, UBFAB_A_SEG_TOKEN_ID, seg->token_id) ||
	    nla_put_u64_64bit(skb, UBFAB_A_SEG_OFFSET,
			      (u64)seg->first << PAGE_SHIFT, UBFAB_A_SEG_PAD) ||
	    nla_put_u64_64bit(skb, UBFAB_A_SEG_LENGTH,
			      (u64)seg->npages << PAGE_SHIFT, UBFAB_A_SEG_PAD) ||
	    nla_put_u32(skb, UBFAB_A_SEG_RIGHTS, seg->rights) ||
	    nla_put_u32(skb, UBFAB_A_SEG_IMPORTS, seg->nr_imports) ||
	    nla_put_u32(skb, UBFAB_A_SEG_PID, seg->pid))
		return -EMSGSIZE;
	return 0;
}

/* One complete message: header, the object's attributes, end. */
static int ubfab_nl_put_param(struct sk_buff *skb,
			      const struct ubfab_model_params *p,
			      const struct ubfab_model_param *d)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, UBFAB_A_MODEL_PARAM);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(skb, UBFAB_A_PARAM_NAME, d->name) ||
	    nla_put_u64_64bit(skb, UBFAB_A_PARAM_VALUE,
			      ubfab_model_param_value(p, d),
			      UBFAB_A_PARAM_PAD) ||
	    nla_put_string(skb, UBFAB_A_PARAM_UNIT, d->unit) ||
	    nla_put_u64_64bit(skb, UBFAB_A_PARAM_MINIMUM, d->min,
			      UBFAB_A_PARAM_PAD) ||
	    nla_put_u64_64bit(skb, UBFAB_A_PARAM_MAXIMUM, d->max,
			      UBFAB_A_PARAM_PAD) ||
	    nla_put_u64_64bit(skb, UBFAB_A_PARAM_DEFAULT,
			      ubfab_model_param_value(&ubfab_model_cm384,
						      d),
			      UBFAB_A_PARAM_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int ubfab_nl_put_mem(struct sk_buff *skb)
{
	struct ubfab_model_mem m;
	struct nlattr *nest;

	ubfab_model_mem(ubfab_nl_fabric, &m);
	nest = nla_nest_start(skb, UBFAB_A_MODEL_MEM);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, UBFAB_A_MEM_LINKS, m.links,
			      UBFAB_A_MEM_PAD) ||
	    nla_put_u64_64bit(skb, UBFAB_A_MEM_LINKS_BYTES, m.links_bytes,
			      UBFAB_A_MEM_PAD) ||
	    nla_put_u32(skb, UBFAB_A_MEM_QUEUES, m.queues) ||
	    nla_put_u64_64bit(skb, UBFAB_A_MEM_QUEUE_BYTES, m.queue_bytes,
			      UBFAB_A_MEM_PAD) ||
	    nla_put_u64_64bit(skb, UBFAB_A_MEM_STAMPS, m.stamps,
			      UBFAB_A_MEM_PAD) ||
	    nla_put_u64_64bit(skb, UBFAB_A_MEM_STAMP_BYTES, m.stamp_bytes,
			      UBFAB_A_MEM_PAD) ||
	    nla_put_u64_64bit(skb, UBFAB_A_MEM_OTHER_BYTES, m.other_bytes,
			      UBFAB_A_MEM_PAD) ||
	    nla_put_u64_64bit(skb, UBFAB_A_MEM_TOTAL_BYTES, m.total_bytes,
			      UBFAB_A_MEM_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* The model's parameters @obj, and the memory the model holds now. */
static int ubfab_nl_fill_model(struct sk_buff *skb, const void *obj)
{
	const struct ubfab_model_params *p = obj;
	unsigned int i;

	if (nla_put_string(skb, UBFAB_A_MODEL_PROFILE, ubfab_model_profile(p)))
		return -EMSGSIZE;
	for (i = 0; i < ubfab_model_nr_params; i++)
		if (ubfab_nl_put_param(skb, p, &ubfab_model_param_table[i]))
			return -EMSGSIZE;
	return ubfab_nl_put_mem(skb);
}

static int ubfab_nl_put(struct sk_buff *skb, u32 portid, u32 seq, int flags,
			u8 cmd, ubfab_nl_fill_t fill, const void *obj)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &ubfab_nl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (fill(skb, obj)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int ubfab_nl_reply(struct genl_info *info, ubfab_nl_fill_t fill,
			  const void *obj)
{
	struct sk_buff *msg;
	int ret;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	ret = ubfab_nl_put(msg, info->snd_portid, info->snd_seq, 0,
			   info->genlhdr->cmd, fill, obj);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

static int ubfab_nl_dump_one(struct sk_buff *skb, struct netlink_callback *cb,
			     u8 cmd, ubfab_nl_fill_t fill, const void *obj)
{
	return ubfab_nl_put(skb, NETLINK_CB(cb->skb).portid,
			    cb->nlh->nlmsg_seq, NLM_F_MULTI, cmd, fill, obj);
}

/*
 * Announce a change to the events group in every namespace. Best effort:
 * when out of memory the notification is lost, as netlink loses those a
 * listener has no room for.
 */
static void ubfab_nl_notify(u8 cmd, ubfab_nl_fill_t fill, const void *obj)
{
	struct sk_buff *msg;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	if (ubfab_nl_put(msg, 0, 0, 0, cmd, fill, obj)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_multicast_allns(&ubfab_nl_family, msg, 0, UBFAB_NLGRP_EVENTS);
}

/*
 * Whether the state attribute @attr, if given, is one of enum
 * ubfab_state: a value out of it is EINVAL (not the policy's ERANGE, which
 * the uAPI does not promise).
 */
static int ubfab_nl_state_check(struct genl_info *info, struct nlattr *attr)
{
	u32 new = attr ? nla_get_u32(attr) : UBFAB_STATE_UP;

	if (new != UBFAB_STATE_DOWN && new != UBFAB_STATE_UP) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "state must be down (0) or up (1)");
		return -EINVAL;
	}
	return 0;
}

/*
 * Set a port's or a plane's @state to the value of the checked attribute
 * @attr, if given, and bit @bit of @up_mask with it. Return: whether it
 * changed. Context: ubfab_nl_state_lock held.
 */
static bool ubfab_nl_set_state(struct nlattr *attr, int *state,
			       unsigned long *up_mask, u32 bit)
{
	u32 new;

	if (!attr || READ_ONCE(*state) == nla_get_u32(attr))
		return false;
	new = nla_get_u32(attr);
	WRITE_ONCE(*state, new);
	assign_bit(bit, up_mask, new == UBFAB_STATE_UP);
	return true;
}

static int ubfab_nl_fabric_get_doit(struct sk_buff *skb,
				    struct genl_info *info)
{
	return ubfab_nl_reply(info, ubfab_nl_fill_fabric, ubfab_nl_fabric);
}

static int ubfab_nl_entity_get_doit(struct sk_buff *skb,
				    struct genl_info *info)
{
	struct ubfab_entity *entity;
	struct nlattr *attr;

	attr = info->attrs[UBFAB_A_ENTITY_EID];
	if (attr) {
		entity = ubfab_entity_find(ubfab_nl_fabric, nla_get_u32(attr));
	} else {
		attr = info->attrs[UBFAB_A_ENTITY_NAME];
		if (!attr) {
			NL_SET_ERR_MSG(info->extack,
				       "entity EID or name required");
			return -EINVAL;
		}
		entity = ubfab_entity_find_by_name(ubfab_nl_fabric,
						   nla_data(attr));
	}
	if (!entity) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr, "no such entity");
		return -ENODEV;
	}
	return ubfab_nl_reply(info, ubfab_nl_fill_entity, entity);
}

static int ubfab_nl_entity_reset_doit(struct sk_buff *skb,
				      struct genl_info *info)
{
	struct ubfab_entity *entity;

	if (GENL_REQ_ATTR_CHECK(info, UBFAB_A_ENTITY_EID))
		return -EINVAL;
	entity = ubfab_entity_find(ubfab_nl_fabric,
				   nla_get_u32(info->attrs[UBFAB_A_ENTITY_EID]));
	if (!entity) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[UBFAB_A_ENTITY_EID],
				    "no such entity");
		return -ENODEV;
	}
	ubfab_mem_reset(entity);
	ubfab_jetty_reset(entity);
	ubfab_nl_notify(UBFAB_CMD_ENTITY_RESET_NTF, ubfab_nl_fill_entity,
			entity);
	return 0;
}

static int ubfab_nl_entity_get_dumpit(struct sk_buff *skb,
				      struct netlink_callback *cb)
{
	u32 eid;

	for (eid = cb->args[0]; eid < ubfab_nl_fabric->nr_entities; eid++) {
		if (ubfab_nl_dump_one(skb, cb, UBFAB_CMD_ENTITY_GET,
				      ubfab_nl_fill_entity,
				      ubfab_nl_fabric->entities[eid]))
			break;
	}
	cb->args[0] = eid;
	return skb->len;
}

/* The port a request names by UBFAB_A_PORT_EID and UBFAB_A_PORT_PLANE. */
static struct ubfab_port *ubfab_nl_port_find(struct genl_info *info)
{
	struct ubfab_entity *entity;
	u32 plane;

	if (GENL_REQ_ATTR_CHECK(info, UBFAB_A_PORT_EID) ||
	    GENL_REQ_ATTR_CHECK(info, UBFAB_A_PORT_PLANE))
		return ERR_PTR(-EINVAL);

	entity = ubfab_entity_find(ubfab_nl_fabric,
				   nla_get_u32(info->attrs[UBFAB_A_PORT_EID]));
	if (!entity) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[UBFAB_A_PORT_EID],
				    "no such entity");
		return ERR_PTR(-ENODEV);
	}
	plane = nla_get_u32(info->attrs[UBFAB_A_PORT_PLANE]);
	if (plane >= entity->nr_ports) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[UBFAB_A_PORT_PLANE],
				    "no such plane");
		return ERR_PTR(-ENODEV);
	}
	return &entity->ports[plane];
}

static int ubfab_nl_port_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ubfab_port *port = ubfab_nl_port_find(info);

	if (IS_ERR(port))
		return PTR_ERR(port);
	return ubfab_nl_reply(info, ubfab_nl_fill_port, port);
}

/*
 * The value of the u32 or u64 attribute @type of @info, or @old when it
 * is absent; -ERANGE when out of @min..@max.
 */
static int ubfab_nl_knob(struct genl_info *info, int type, u64 min, u64 max,
			 u64 old, u64 *val)
{
	struct nlattr *attr = info->attrs[type];

	*val = old;
	if (!attr)
		return 0;
	*val = nla_len(attr) == sizeof(u64) ? nla_get_u64(attr) :
					      nla_get_u32(attr);
	if (*val < min || *val > max) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr, "value out of range");
		return -ERANGE;
	}
	return 0;
}

/*
 * Set a port's fault knobs in the model from @info, all or nothing, and
 * tell the model. Return: whether any changed, or -ERANGE.
 * Context: ubfab_nl_state_lock held.
 */
static int ubfab_nl_port_knobs(struct genl_info *info, struct ubfab_port *port)
{
	u64 bw, delay, err;
	bool was, is;
	int ret;

	ret = ubfab_nl_knob(info, UBFAB_A_PORT_BW_PERMILLE, 1,
			    UBFAB_MODEL_PER_MILLE, port->bw_permille, &bw) ?:
	      ubfab_nl_knob(info, UBFAB_A_PORT_DELAY_PS, 0, 1000000000000ULL,
			    port->delay_ps, &delay) ?:
	      ubfab_nl_knob(info, UBFAB_A_PORT_ERROR_PPM, 0,
			    UBFAB_MODEL_PER_MILLION, port->error_ppm, &err);
	if (ret)
		return ret;
	if (bw == port->bw_permille && delay == port->delay_ps &&
	    err == port->error_ppm)
		return 0;
	was = port->bw_permille != UBFAB_MODEL_PER_MILLE || port->delay_ps ||
	      port->error_ppm;
	WRITE_ONCE(port->bw_permille, bw);
	WRITE_ONCE(port->delay_ps, delay);
	WRITE_ONCE(port->error_ppm, err);
	is = bw != UBFAB_MODEL_PER_MILLE || delay || err;
	if (is && !was)
		atomic_inc(&ubfab_model_faulty);
	else if (was && !is)
		atomic_dec(&ubfab_model_faulty);
	ubfab_model_touch();
	return 1;
}

static int ubfab_nl_port_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *state = info->attrs[UBFAB_A_PORT_STATE];
	struct ubfab_port *port;
	int ret, changed, old;

	if (!state && !info->attrs[UBFAB_A_PORT_BW_PERMILLE] &&
	    !info->attrs[UBFAB_A_PORT_DELAY_PS] &&
	    !info->attrs[UBFAB_A_PORT_ERROR_PPM]) {
		NL_SET_ERR_MSG(info->extack,
			       "nothing to set: state or a fault knob");
		return -EINVAL;
	}
	port = ubfab_nl_port_find(info);
	if (IS_ERR(port))
		return PTR_ERR(port);
	ret = ubfab_nl_state_check(info, state);
	if (ret)
		return ret;
	mutex_lock(&ubfab_nl_state_lock);
	changed = ubfab_nl_port_knobs(info, port);
	ret = min(changed, 0);
	old = port->state;
	if (!ret && ubfab_nl_set_state(state, &port->state,
				       &port->entity->ports_up, port->plane)) {
		trace_ubfab_port_state(port, old);
		changed = 1;
	}
	if (changed > 0)
		ubfab_nl_notify(UBFAB_CMD_PORT_NTF, ubfab_nl_fill_port, port);
	mutex_unlock(&ubfab_nl_state_lock);
	return ret;
}

/*
 * cb->args[0] is the next port as eid * planes + plane; with an EID filter
 * the walk is confined to that entity's ports.
 */
static int ubfab_nl_port_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb)
{
	struct nlattr *filter = ubfab_dump_attrs(cb)[UBFAB_A_PORT_EID];
	u32 planes = ubfab_nl_fabric->topo.planes;
	u32 pos, end = ubfab_nl_fabric->nr_entities * planes;
	struct ubfab_entity *entity;

	if (filter) {
		entity = ubfab_entity_find(ubfab_nl_fabric,
					   nla_get_u32(filter));
		if (!entity) {
			NL_SET_ERR_MSG_ATTR(cb->extack, filter,
					    "no such entity");
			return -ENODEV;
		}
		if (!cb->args[0])
			cb->args[0] = entity->eid * planes;
		end = (entity->eid + 1) * planes;
	}

	for (pos = cb->args[0]; pos < end; pos++) {
		entity = ubfab_nl_fabric->entities[pos / planes];
		if (ubfab_nl_dump_one(skb, cb, UBFAB_CMD_PORT_GET,
				      ubfab_nl_fill_port,
				      &entity->ports[pos % planes]))
			break;
	}
	cb->args[0] = pos;
	return skb->len;
}

/* The plane a request names by UBFAB_A_PLANE_ID. */
static struct ubfab_plane *ubfab_nl_plane_find(struct genl_info *info)
{
	u32 id;

	if (GENL_REQ_ATTR_CHECK(info, UBFAB_A_PLANE_ID))
		return ERR_PTR(-EINVAL);
	id = nla_get_u32(info->attrs[UBFAB_A_PLANE_ID]);
	if (id >= ubfab_nl_fabric->topo.planes) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[UBFAB_A_PLANE_ID],
				    "no such plane");
		return ERR_PTR(-ENODEV);
	}
	return &ubfab_nl_fabric->planes[id];
}

static int ubfab_nl_plane_get_doit(struct sk_buff *skb,
				   struct genl_info *info)
{
	struct ubfab_plane *plane = ubfab_nl_plane_find(info);

	if (IS_ERR(plane))
		return PTR_ERR(plane);
	return ubfab_nl_reply(info, ubfab_nl_fill_plane, plane);
}

static int ubfab_nl_plane_set_doit(struct sk_buff *skb,
				   struct genl_info *info)
{
	struct nlattr *state = info->attrs[UBFAB_A_PLANE_STATE];
	struct ubfab_plane *plane;
	int ret, old;

	if (GENL_REQ_ATTR_CHECK(info, UBFAB_A_PLANE_STATE))
		return -EINVAL;
	plane = ubfab_nl_plane_find(info);
	if (IS_ERR(plane))
		return PTR_ERR(plane);
	ret = ubfab_nl_state_check(info, state);
	if (ret)
		return ret;
	mutex_lock(&ubfab_nl_state_lock);
	old = plane->state;
	if (ubfab_nl_set_state(state, &plane->state,
			       &ubfab_nl_fabric->planes_up, plane->id)) {
		trace_ubfab_plane_state(plane, old);
		ubfab_nl_notify(UBFAB_CMD_PLANE_NTF, ubfab_nl_fill_plane,
				plane);
	}
	mutex_unlock(&ubfab_nl_state_lock);
	return 0;
}

static int ubfab_nl_plane_get_dumpit(struct sk_buff *skb,
				     struct netlink_callback *cb)
{
	u32 id;

	for (id = cb->args[0]; id < ubfab_nl_fabric->topo.planes; id++) {
		if (ubfab_nl_dump_one(skb, cb, UBFAB_CMD_PLANE_GET,
				      ubfab_nl_fill_plane,
				      &ubfab_nl_fabric->planes[id]))
			break;
	}
	cb->args[0] = id;
	return skb->len;
}

/*
 * The entities a dump walks, [*@first, *@end): from cb->args[0] on, all of
 * them or the one its request's attribute @type names.
 * Return: 0, or -ENODEV when that names none.
 */
static int ubfab_nl_dump_entities(struct netlink_callback *cb, int type,
				  u32 *first, u32 *end)
{
	struct nlattr *filter = ubfab_dump_attrs(cb)[type];
	struct ubfab_entity *entity;

	*first = cb->args[0];
	*end = ubfab_nl_fabric->nr_entities;
	if (!filter)
		return 0;
	entity = ubfab_entity_find(ubfab_nl_fabric, nla_get_u32(filter));
	if (!entity) {
		NL_SET_ERR_MSG_ATTR(cb->extack, filter, "no such entity");
		return -ENODEV;
	}
	*first = max_t(u32, *first, entity->eid);
	*end = entity->eid + 1;
	return 0;
}

/* Context: the queue's entity's queues array locked, so that it stays. */
static int ubfab_nl_fill_queue(struct sk_buff *skb, const void *obj)
{
	const struct ubfab_queue *q = obj;
	/* the engine's, under its run_lock: any value they had will do */
	u64 now = data_race(q->model.now_ps);
	/* (likewise) */
	u64 entries = data_race(q->model.entries);

	if (nla_put_u32(skb, UBFAB_A_QUEUE_EID, q->file->entity->eid) ||
	    nla_put_u32(skb, UBFAB_A_QUEUE_ID, q->id) ||
	    nla_put_u32(skb, UBFAB_A_QUEUE_PID, q->pid) ||
	    nla_put_u32(skb, UBFAB_A_QUEUE_FLAGS, q->flags) ||
	    nla_put_u32(skb, UBFAB_A_QUEUE_SQ_ENTRIES, q->sq_mask + 1) ||
	    nla_put_u32(skb, UBFAB_A_QUEUE_CQ_ENTRIES, q->cq_mask + 1) ||
	    nla_put_u64_64bit(skb, UBFAB_A_QUEUE_CLOCK_NS, ubfab_model_ns(now),
			      UBFAB_A_QUEUE_PAD) ||
	    nla_put_u64_64bit(skb, UBFAB_A_QUEUE_ENTRIES, entries,
			      UBFAB_A_QUEUE_PAD))
		return -EMSGSIZE;
	return 0;
}

/*
 * A dump of the objects of an array of each entity (@array: the offset of
 * the xarray in struct ubfab_entity), by entity and number; with an EID
 * filter (attribute @filter) the walk is confined to that entity.
 * cb->args[0] is the entity, cb->args[1] the next number in it. Each
 * object is read under the array's lock, which its release takes to
 * leave.
 */
static int ubfab_nl_dump_array(struct sk_buff *skb,
			       struct netlink_callback *cb, int filter,
			       size_t array, u8 cmd, ubfab_nl_fill_t fill)
{
	struct xarray *xa;
	unsigned long id;
	u32 eid, end;
	void *obj;
	int ret;

	ret = ubfab_nl_dump_entities(cb, filter, &eid, &end);
	if (ret)
		return ret;
	for (; eid < end; eid++) {
		xa = (void *)ubfab_nl_fabric->entities[eid] + array;
		xa_lock(xa);
		xa_for_each_start(xa, id, obj, cb->args[1]) {
			if (ubfab_nl_dump_one(skb, cb, cmd, fill, obj)) {
				xa_unlock(xa);
				cb->args[0] = eid;
				cb->args[1] = id;
				return skb->len;
			}
		}
		xa_unlock(xa);
		cb->args[1] = 0;
	}
	cb->args[0] = eid;
	return skb->len;
}

static int ubfab_nl_queue_get_dumpit(struct sk_buff *skb,
				     struct netlink_callback *cb)
{
	return ubfab_nl_dump_array(skb, cb, UBFAB_A_QUEUE_EID,
				   offsetof(struct ubfab_entity, queues),
				   UBFAB_CMD_QUEUE_GET, ubfab_nl_fill_queue);
}

static int ubfab_nl_jetty_get_dumpit(struct sk_buff *skb,
				     struct netlink_callback *cb)
{
	return ubfab_nl_dump_array(skb, cb, UBFAB_A_JETTY_EID,
				   offsetof(struct ubfab_entity, jetties),
				   UBFAB_CMD_JETTY_GET, ubfab_jetty_fill);
}

/**
 * struct ubfab_nl_link - a link as a link-get dump reports it
 * @l: its busy period and counters
 * @plane: its plane
 * @kind: enum ubfab_link_kind
 * @where: the entity of a port, the node of an L1-L2 link
 * @l2: the L2 switch of an L1-L2 link
 */
struct ubfab_nl_link {
	const struct ubfab_link *l;
	u32 plane;
	u32 kind;
	u32 where;
	u32 l2;
};

static int ubfab_nl_fill_link(struct sk_buff *skb, const void *obj)
{
	const struct ubfab_nl_link *nl = obj;
	bool port = nl->kind <= UBFAB_LINK_PORT_RX;
	u64 busy = atomic64_read(&nl->l->busy_ps);

	if (nla_put_u32(skb, UBFAB_A_LINK_PLANE, nl->plane) ||
	    nla_put_u32(skb, UBFAB_A_LINK_KIND, nl->kind) ||
	    (port && nla_put_u32(skb, UBFAB_A_LINK_EID, nl->where)) ||
	    (!port && (nla_put_u32(skb, UBFAB_A_LINK_NODE, nl->where) ||
		       nla_put_u32(skb, UBFAB_A_LINK_L2, nl->l2))) ||
	    nla_put_u64_64bit(skb, UBFAB_A_LINK_BYTES,
			      atomic64_read(&nl->l->bytes), UBFAB_A_LINK_PAD) ||
	    nla_put_u64_64bit(skb, UBFAB_A_LINK_BUSY_PS, busy,
			      UBFAB_A_LINK_PAD) ||
	    nla_put_u64_64bit(skb, UBFAB_A_LINK_IDLE_PS,
			      ubfab_model_link_idle_ps(nl->l, busy),
			      UBFAB_A_LINK_PAD) ||
	    nla_put_u64_64bit(skb, UBFAB_A_LINK_END_PS,
			      READ_ONCE(nl->l->end_ps), UBFAB_A_LINK_PAD))
		return -EMSGSIZE;
	return 0;
}

/* The @pos'th link of @plane in the order of a link-get dump, in *@nl. */
static void ubfab_nl_link_at(struct ubfab_plane *plane, u32 pos,
			     struct ubfab_nl_link *nl)
{
	u32 ports = 2 * ubfab_nl_fabric->nr_entities;
	struct ubfab_port *port;

	nl->plane = plane->id;
	if (pos < ports) {
		port = &ubfab_nl_fabric->entities[pos / 2]->ports[plane->id];
		nl->l = pos % 2 ? &port->rx : &port->tx;
		nl->kind = pos % 2 ? UBFAB_LINK_PORT_RX : UBFAB_LINK_PORT_TX;
		nl->where = pos / 2;
		nl->l2 = 0;
		return;
	}
	pos -= ports;
	nl->l = &plane->links[pos];
	nl->kind = pos % 2 ? UBFAB_LINK_L2_DOWN : UBFAB_LINK_L1_UP;
	nl->where = pos / 2 / plane->nr_l2;
	nl->l2 = pos / 2 % plane->nr_l2;
}

/*
 * cb->args[0] is the plane, cb->args[1] the next link in it (the ports'
 * first); with a plane filter the walk is confined to that plane. The
 * counters are read without a lock: each is exact, a link's may be
 * moments apart.
 */
static int ubfab_nl_link_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb)
{
	struct nlattr *filter = ubfab_dump_attrs(cb)[UBFAB_A_LINK_PLANE];
	u32 id = cb->args[0], end = ubfab_nl_fabric->topo.planes, pos = 0;
	struct ubfab_plane *plane;
	struct ubfab_nl_link nl;

	if (filter) {
		if (nla_get_u32(filter) >= end) {
			NL_SET_ERR_MSG_ATTR(cb->extack, filter,
					    "no such plane");
			return -ENODEV;
		}
		id = max_t(u32, id, nla_get_u32(filter));
		end = nla_get_u32(filter) + 1;
	}
	for (; id < end; id++) {
		plane = &ubfab_nl_fabric->planes[id];
		for (pos = cb->args[1];
		     pos < 2 * ubfab_nl_fabric->nr_entities +
			   ubfab_plane_nr_links(plane); pos++) {
			ubfab_nl_link_at(plane, pos, &nl);
			if (ubfab_nl_dump_one(skb, cb, UBFAB_CMD_LINK_GET,
					      ubfab_nl_fill_link, &nl))
				goto out;
		}
		cb->args[1] = 0;
	}
out:
	cb->args[0] = id;
	if (id < end)
		cb->args[1] = pos;
	return skb->len;
}

/*
 * cb->args[0] is the entity, cb->args[1] the next token id in it. Each
 * entity's segments are read under its mem_lock, so a segment is reported
 * whole or not at all.
 */
static int ubfab_nl_seg_get_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	struct ubfab_entity *entity;
	struct ubfab_segment *seg;
	unsigned long id;
	u32 eid, end;
	int ret;

	ret = ubfab_nl_dump_entities(cb, UBFAB_A_SEG_EID, &eid, &end);
	if (ret)
		return ret;
	for (; eid < end && !ret; eid++) {
		entity = ubfab_nl_fabric->entities[eid];
		id = eid == cb->args[0] ? cb->args[1] : 0;
		down_read(&entity->mem_lock);
		xa_for_each_start(&entity->segments, id, seg, id) {
			ret = ubfab_nl_dump_one(skb, cb, UBFAB_CMD_SEG_GET,
						ubfab_nl_fill_seg, seg);
			if (ret)
				break;
		}
		up_read(&entity->mem_lock);
		if (ret) {
			cb->args[0] = eid;
			cb->args[1] = id;
			return skb->len;
		}
	}
	cb->args[0] = eid;
	cb->args[1] = 0;
	return skb->len;
}

static int ubfab_nl_model_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ubfab_model_params p;

	ubfab_model_read(&p);
	return ubfab_nl_reply(info, ubfab_nl_fill_model, &p);
}

/* Set in @p the parameter the nest @attr names to the value it gives. */
static int ubfab_nl_model_set_param(struct genl_info *info,
				    struct nlattr *attr,
				    struct ubfab_model_params *p)
{
	struct nlattr *tb[UBFAB_A_PARAM_MAX + 1];
	const struct ubfab_model_param *d;
	u64 value;
	int ret;

	ret = nla_parse_nested(tb, UBFAB_A_PARAM_MAX, attr,
			       ubfab_param_nl_policy, info->extack);
	if (ret)
		return ret;
	if (NL_REQ_ATTR_CHECK(info->extack, attr, tb, UBFAB_A_PARAM_NAME) ||
	    NL_REQ_ATTR_CHECK(info->extack, attr, tb, UBFAB_A_PARAM_VALUE))
		return -EINVAL;
	d = ubfab_model_param_find(nla_data(tb[UBFAB_A_PARAM_NAME]));
	if (!d) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[UBFAB_A_PARAM_NAME],
				    "no such model parameter");
		return -ENOENT;
	}
	value = nla_get_u64(tb[UBFAB_A_PARAM_VALUE]);
	if (value < d->min || value > d->max) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[UBFAB_A_PARAM_VALUE],
				    "value out of the parameter's range");
		return -ERANGE;
	}
	*ubfab_model_param_ptr(p, d) = value;
	return 0;
}

static int ubfab_nl_model_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *profile = info->attrs[UBFAB_A_MODEL_PROFILE];
	const struct ubfab_model_params *base;
	struct ubfab_model_params p;
	struct nlattr *attr;
	int rem, ret = 0;

	mutex_lock(&ubfab_nl_state_lock);
	ubfab_model_read(&p);
	if (profile) {
		base = ubfab_model_profile_find(nla_data(profile));
		if (!base) {
			NL_SET_ERR_MSG_ATTR(info->extack, profile,
					    "no such model profile");
			ret = -ENOENT;
			goto out_unlock;
		}
		p = *base;
	}
	nlmsg_for_each_attr(attr, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(attr) != UBFAB_A_MODEL_PARAM)
			continue;
		ret = ubfab_nl_model_set_param(info, attr, &p);
		if (ret)
			goto out_unlock;
	}
	ret = ubfab_model_update(&p);
	if (ret > 0) {
		ubfab_nl_notify(UBFAB_CMD_MODEL_NTF, ubfab_nl_fill_model, &p);
		ret = 0;
	}
out_unlock:
	mutex_unlock(&ubfab_nl_state_lock);
	return ret;
}

/**
 * ubfab_netlink_init() - register the family for a built fabric
 * @fabric: the fabric every request reports on
 *
 * Return: 0 or the error of genl_register_family().
 */
int ubfab_netlink_init(struct ubfab_fabric *fabric)
{
	int ret;

	ubfab_nl_fabric = fabric;
	ret = genl_register_family(&ubfab_nl_family);
	if (ret)
		ubfab_nl_fabric = NULL;
	return ret;
}

/*
 * genl_unregister_family() waits for running requests; a dump in progress
 * holds a module reference, so none can be running at module exit.
 */
void ubfab_netlink_fini(void)
{
	genl_unregister_family(&ubfab_nl_family);
	ubfab_nl_fabric = NULL;
}
