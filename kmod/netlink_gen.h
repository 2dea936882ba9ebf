/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Generated from Documentation/netlink/ubfab.yaml by
 * tools/ynl/nlgen.py: do not edit. Run the script after a change of the
 * spec; `make check` fails while this file differs from what it gives.
 *
 * The generic netlink family as the kernel registers it: each command's
 * request policy (the attributes of its do and dump requests together:
 * 6.1 has no split ops), the operations, the multicast groups and the
 * family. Included by netlink.c only, which defines the handlers declared
 * here.
 */
#ifndef _UBFAB_NETLINK_GEN_H
#define _UBFAB_NETLINK_GEN_H

#include <linux/module.h>
#include <net/genetlink.h>

#include <linux/ubfab.h>

static int ubfab_nl_fabric_get_doit(struct sk_buff *skb,
				    struct genl_info *info);
static int ubfab_nl_entity_get_doit(struct sk_buff *skb,
				    struct genl_info *info);
static int ubfab_nl_entity_get_dumpit(struct sk_buff *skb,
				      struct netlink_callback *cb);
static int ubfab_nl_port_get_doit(struct sk_buff *skb, struct genl_info *info);
static int ubfab_nl_port_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb);
static int ubfab_nl_plane_get_doit(struct sk_buff *skb, struct genl_info *info);
static int ubfab_nl_plane_get_dumpit(struct sk_buff *skb,
				     struct netlink_callback *cb);
static int ubfab_nl_seg_get_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb);
static int ubfab_nl_entity_reset_doit(struct sk_buff *skb,
				      struct genl_info *info);
static int ubfab_nl_port_set_doit(struct sk_buff *skb, struct genl_info *info);
static int ubfab_nl_plane_set_doit(struct sk_buff *skb, struct genl_info *info);
static int ubfab_nl_model_get_doit(struct sk_buff *skb, struct genl_info *info);
static int ubfab_nl_model_set_doit(struct sk_buff *skb, struct genl_info *info);
static int ubfab_nl_queue_get_dumpit(struct sk_buff *skb,
				     struct netlink_callback *cb);
static int ubfab_nl_link_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb);
static int ubfab_nl_jetty_get_dumpit(struct sk_buff *skb,
				     struct netlink_callback *cb);

/* UBFAB_A_PARAM */
static const struct nla_policy ubfab_param_nl_policy[UBFAB_A_PARAM_MAX + 1] = {
	[UBFAB_A_PARAM_NAME] = { .type = NLA_NUL_STRING,
				 .len = UBFAB_PARAM_MAX - 1 },
	[UBFAB_A_PARAM_VALUE] = { .type = NLA_U64 },
	[UBFAB_A_PARAM_UNIT] = { .type = NLA_NUL_STRING,
				 .len = UBFAB_PARAM_MAX - 1 },
	[UBFAB_A_PARAM_MINIMUM] = { .type = NLA_U64 },
	[UBFAB_A_PARAM_MAXIMUM] = { .type = NLA_U64 },
	[UBFAB_A_PARAM_DEFAULT] = { .type = NLA_U64 },
};

/* UBFAB_CMD_ENTITY_GET */
static const struct nla_policy ubfab_entity_get_nl_policy[UBFAB_A_ENTITY_NAME + 1] = {
	[UBFAB_A_ENTITY_EID] = { .type = NLA_U32 },
	[UBFAB_A_ENTITY_NAME] = { .type = NLA_NUL_STRING,
				  .len = UBFAB_NAME_MAX - 1 },
};

/* UBFAB_CMD_PORT_GET */
static const struct nla_policy ubfab_port_get_nl_policy[UBFAB_A_PORT_PLANE + 1] = {
	[UBFAB_A_PORT_EID] = { .type = NLA_U32 },
	[UBFAB_A_PORT_PLANE] = { .type = NLA_U32 },
};

/* UBFAB_CMD_PLANE_GET */
static const struct nla_policy ubfab_plane_get_nl_policy[UBFAB_A_PLANE_ID + 1] = {
	[UBFAB_A_PLANE_ID] = { .type = NLA_U32 },
};

/* UBFAB_CMD_SEG_GET */
static const struct nla_policy ubfab_seg_get_nl_policy[UBFAB_A_SEG_EID + 1] = {
	[UBFAB_A_SEG_EID] = { .type = NLA_U32 },
};

/* UBFAB_CMD_ENTITY_RESET */
static const struct nla_policy ubfab_entity_reset_nl_policy[UBFAB_A_ENTITY_NAME + 1] = {
	[UBFAB_A_ENTITY_EID] = { .type = NLA_U32 },
	[UBFAB_A_ENTITY_NAME] = { .type = NLA_NUL_STRING,
				  .len = UBFAB_NAME_MAX - 1 },
};

/* UBFAB_CMD_PORT_SET */
static const struct nla_policy ubfab_port_set_nl_policy[UBFAB_A_PORT_ERROR_PPM + 1] = {
	[UBFAB_A_PORT_EID] = { .type = NLA_U32 },
	[UBFAB_A_PORT_PLANE] = { .type = NLA_U32 },
	[UBFAB_A_PORT_STATE] = { .type = NLA_U32 },
	[UBFAB_A_PORT_BW_PERMILLE] = { .type = NLA_U32 },
	[UBFAB_A_PORT_DELAY_PS] = { .type = NLA_U64 },
	[UBFAB_A_PORT_ERROR_PPM] = { .type = NLA_U32 },
};

/* UBFAB_CMD_PLANE_SET */
static const struct nla_policy ubfab_plane_set_nl_policy[UBFAB_A_PLANE_STATE + 1] = {
	[UBFAB_A_PLANE_ID] = { .type = NLA_U32 },
	[UBFAB_A_PLANE_STATE] = { .type = NLA_U32 },
};

/* UBFAB_CMD_MODEL_SET */
static const struct nla_policy ubfab_model_set_nl_policy[UBFAB_A_MODEL_PARAM + 1] = {
	[UBFAB_A_MODEL_PROFILE] = { .type = NLA_NUL_STRING,
				    .len = UBFAB_NAME_MAX - 1 },
	[UBFAB_A_MODEL_PARAM] = { .type = NLA_NESTED,
				  .nested_policy = ubfab_param_nl_policy,
				  .len = UBFAB_A_PARAM_MAX },
};

/* UBFAB_CMD_QUEUE_GET */
static const struct nla_policy ubfab_queue_get_nl_policy[UBFAB_A_QUEUE_EID + 1] = {
	[UBFAB_A_QUEUE_EID] = { .type = NLA_U32 },
};

/* UBFAB_CMD_LINK_GET */
static const struct nla_policy ubfab_link_get_nl_policy[UBFAB_A_LINK_PLANE + 1] = {
	[UBFAB_A_LINK_PLANE] = { .type = NLA_U32 },
};

/* UBFAB_CMD_JETTY_GET */
static const struct nla_policy ubfab_jetty_get_nl_policy[UBFAB_A_JETTY_EID + 1] = {
	[UBFAB_A_JETTY_EID] = { .type = NLA_U32 },
};

static const struct genl_ops ubfab_nl_ops[] = {
	{
		.cmd = UBFAB_CMD_FABRIC_GET,
		.doit = ubfab_nl_fabric_get_doit,
	},
	{
		.cmd = UBFAB_CMD_ENTITY_GET,
		.doit = ubfab_nl_entity_get_doit,
		.dumpit = ubfab_nl_entity_get_dumpit,
		.policy = ubfab_entity_get_nl_policy,
		.maxattr = UBFAB_A_ENTITY_NAME,
	},
	{
		.cmd = UBFAB_CMD_PORT_GET,
		.doit = ubfab_nl_port_get_doit,
		.dumpit = ubfab_nl_port_get_dumpit,
		.policy = ubfab_port_get_nl_policy,
		.maxattr = UBFAB_A_PORT_PLANE,
	},
	{
		.cmd = UBFAB_CMD_PLANE_GET,
		.doit = ubfab_nl_plane_get_doit,
		.dumpit = ubfab_nl_plane_get_dumpit,
		.policy = ubfab_plane_get_nl_policy,
		.maxattr = UBFAB_A_PLANE_ID,
	},
	{
		.cmd = UBFAB_CMD_SEG_GET,
		.dumpit = ubfab_nl_seg_get_dumpit,
		.policy = ubfab_seg_get_nl_policy,
		.maxattr = UBFAB_A_SEG_EID,
	},
	{
		.cmd = UBFAB_CMD_ENTITY_RESET,
		.doit = ubfab_nl_entity_reset_doit,
		.policy = ubfab_entity_reset_nl_policy,
		.maxattr = UBFAB_A_ENTITY_NAME,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = UBFAB_CMD_PORT_SET,
		.doit = ubfab_nl_port_set_doit,
		.policy = ubfab_port_set_nl_policy,
		.maxattr = UBFAB_A_PORT_ERROR_PPM,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = UBFAB_CMD_PLANE_SET,
		.doit = ubfab_nl_plane_set_doit,
		.policy = ubfab_plane_set_nl_policy,
		.maxattr = UBFAB_A_PLANE_STATE,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = UBFAB_CMD_MODEL_GET,
		.doit = ubfab_nl_model_get_doit,
	},
	{
		.cmd = UBFAB_CMD_MODEL_SET,
		.doit = ubfab_nl_model_set_doit,
		.policy = ubfab_model_set_nl_policy,
		.maxattr = UBFAB_A_MODEL_PARAM,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = UBFAB_CMD_QUEUE_GET,
		.dumpit = ubfab_nl_queue_get_dumpit,
		.policy = ubfab_queue_get_nl_policy,
		.maxattr = UBFAB_A_QUEUE_EID,
	},
	{
		.cmd = UBFAB_CMD_LINK_GET,
		.dumpit = ubfab_nl_link_get_dumpit,
		.policy = ubfab_link_get_nl_policy,
		.maxattr = UBFAB_A_LINK_PLANE,
	},
	{
		.cmd = UBFAB_CMD_JETTY_GET,
		.dumpit = ubfab_nl_jetty_get_dumpit,
		.policy = ubfab_jetty_get_nl_policy,
		.maxattr = UBFAB_A_JETTY_EID,
	},
};

/* Multicast group ids: offsets in the family's. */
enum {
	UBFAB_NLGRP_EVENTS,
};

static const struct genl_multicast_group ubfab_nl_mcgrps[] = {
	[UBFAB_NLGRP_EVENTS] = { .name = UBFAB_MCGRP_EVENTS },
};

static struct genl_family ubfab_nl_family = {
	.name = UBFAB_GENL_NAME,
	.version = UBFAB_GENL_VERSION,
	.module = THIS_MODULE,
	.netnsok = true,
	.parallel_ops = true,
	.ops = ubfab_nl_ops,
	.n_ops = ARRAY_SIZE(ubfab_nl_ops),
	.mcgrps = ubfab_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(ubfab_nl_mcgrps),
};

#endif /* _UBFAB_NETLINK_GEN_H */
