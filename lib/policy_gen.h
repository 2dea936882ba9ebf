/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Generated from Documentation/netlink/ubfab.yaml by
 * tools/ynl/nlgen.py: do not edit. Run the script after a change of the
 * spec; `make check` fails while this file differs from what it gives.
 *
 * libubfab's policies of the family's attribute sets, for the replies and
 * notifications it parses: every attribute but the pads. Included by
 * topo.c only.
 */
#ifndef LIBUBFAB_POLICY_GEN_H
#define LIBUBFAB_POLICY_GEN_H

#include <linux/ubfab.h>
#include <netlink/attr.h>

/*
 * What libubfab accepts of each type: a u32 or u64 of exactly its size, a
 * string with its NUL within max bytes, a nest (parsed with its own set).
 */
#define LIBUBFAB_POLICY_U32	{ .type = NLA_U32, .minlen = 4, .maxlen = 4 }
#define LIBUBFAB_POLICY_U64	{ .type = NLA_U64, .minlen = 8, .maxlen = 8 }
#define LIBUBFAB_POLICY_STRING(max) \
	{ .type = NLA_STRING, .minlen = 1, .maxlen = (max) }
#define LIBUBFAB_POLICY_NEST	{ .type = NLA_NESTED }

/* Attribute set "fabric" */
static const struct nla_policy fabric_policy[UBFAB_A_FABRIC_MAX + 1] = {
	[UBFAB_A_FABRIC_PROFILE]	= LIBUBFAB_POLICY_STRING(UBFAB_NAME_MAX),
	[UBFAB_A_FABRIC_NODES]		= LIBUBFAB_POLICY_U32,
	[UBFAB_A_FABRIC_CHIPS_PER_NODE]	= LIBUBFAB_POLICY_U32,
	[UBFAB_A_FABRIC_DIES_PER_CHIP]	= LIBUBFAB_POLICY_U32,
	[UBFAB_A_FABRIC_CPUS_PER_NODE]	= LIBUBFAB_POLICY_U32,
	[UBFAB_A_FABRIC_PLANES]		= LIBUBFAB_POLICY_U32,
	[UBFAB_A_FABRIC_L2_PER_PLANE]	= LIBUBFAB_POLICY_U32,
	[UBFAB_A_FABRIC_NPUS]		= LIBUBFAB_POLICY_U32,
	[UBFAB_A_FABRIC_CPUS]		= LIBUBFAB_POLICY_U32,
	[UBFAB_A_FABRIC_NPU_MEM]	= LIBUBFAB_POLICY_U64,
	[UBFAB_A_FABRIC_CPU_MEM]	= LIBUBFAB_POLICY_U64,
	[UBFAB_A_FABRIC_SETUP_NS]	= LIBUBFAB_POLICY_U64,
};

/* Attribute set "entity" */
static const struct nla_policy entity_policy[UBFAB_A_ENTITY_MAX + 1] = {
	[UBFAB_A_ENTITY_EID]		= LIBUBFAB_POLICY_U32,
	[UBFAB_A_ENTITY_NAME]		= LIBUBFAB_POLICY_STRING(UBFAB_NAME_MAX),
	[UBFAB_A_ENTITY_KIND]		= LIBUBFAB_POLICY_U32,
	[UBFAB_A_ENTITY_NODE]		= LIBUBFAB_POLICY_U32,
	[UBFAB_A_ENTITY_CHIP]		= LIBUBFAB_POLICY_U32,
	[UBFAB_A_ENTITY_DIE]		= LIBUBFAB_POLICY_U32,
	[UBFAB_A_ENTITY_SOCKET]		= LIBUBFAB_POLICY_U32,
	[UBFAB_A_ENTITY_MEM_SIZE]	= LIBUBFAB_POLICY_U64,
	[UBFAB_A_ENTITY_PORTS]		= LIBUBFAB_POLICY_U32,
	[UBFAB_A_ENTITY_AUTH_FAILURES]	= LIBUBFAB_POLICY_U64,
};

/* Attribute set "stats" */
static const struct nla_policy stats_policy[UBFAB_A_STATS_MAX + 1] = {
	[UBFAB_A_STATS_TX_BYTES]	= LIBUBFAB_POLICY_U64,
	[UBFAB_A_STATS_RX_BYTES]	= LIBUBFAB_POLICY_U64,
	[UBFAB_A_STATS_TX_OPS]		= LIBUBFAB_POLICY_U64,
	[UBFAB_A_STATS_RX_OPS]		= LIBUBFAB_POLICY_U64,
	[UBFAB_A_STATS_ERRORS]		= LIBUBFAB_POLICY_U64,
};

/* Attribute set "port" */
static const struct nla_policy port_policy[UBFAB_A_PORT_MAX + 1] = {
	[UBFAB_A_PORT_EID]		= LIBUBFAB_POLICY_U32,
	[UBFAB_A_PORT_PLANE]		= LIBUBFAB_POLICY_U32,
	[UBFAB_A_PORT_STATE]		= LIBUBFAB_POLICY_U32,
	[UBFAB_A_PORT_STATS]		= LIBUBFAB_POLICY_NEST,
	[UBFAB_A_PORT_BW_PERMILLE]	= LIBUBFAB_POLICY_U32,
	[UBFAB_A_PORT_DELAY_PS]		= LIBUBFAB_POLICY_U64,
	[UBFAB_A_PORT_ERROR_PPM]	= LIBUBFAB_POLICY_U32,
};

/* Attribute set "plane" */
static const struct nla_policy plane_policy[UBFAB_A_PLANE_MAX + 1] = {
	[UBFAB_A_PLANE_ID]		= LIBUBFAB_POLICY_U32,
	[UBFAB_A_PLANE_STATE]		= LIBUBFAB_POLICY_U32,
	[UBFAB_A_PLANE_L1_SWITCHES]	= LIBUBFAB_POLICY_U32,
	[UBFAB_A_PLANE_L2_SWITCHES]	= LIBUBFAB_POLICY_U32,
	[UBFAB_A_PLANE_PORTS]		= LIBUBFAB_POLICY_U32,
	[UBFAB_A_PLANE_PORTS_UP]	= LIBUBFAB_POLICY_U32,
	[UBFAB_A_PLANE_STATS]		= LIBUBFAB_POLICY_NEST,
};

/* Attribute set "seg" */
static const struct nla_policy seg_policy[UBFAB_A_SEG_MAX + 1] = {
	[UBFAB_A_SEG_EID]		= LIBUBFAB_POLICY_U32,
	[UBFAB_A_SEG_TOKEN_ID]		= LIBUBFAB_POLICY_U32,
	[UBFAB_A_SEG_OFFSET]		= LIBUBFAB_POLICY_U64,
	[UBFAB_A_SEG_LENGTH]		= LIBUBFAB_POLICY_U64,
	[UBFAB_A_SEG_RIGHTS]		= LIBUBFAB_POLICY_U32,
	[UBFAB_A_SEG_IMPORTS]		= LIBUBFAB_POLICY_U32,
	[UBFAB_A_SEG_PID]		= LIBUBFAB_POLICY_U32,
};

/* Attribute set "model" */
static const struct nla_policy model_policy[UBFAB_A_MODEL_MAX + 1] = {
	[UBFAB_A_MODEL_PROFILE]		= LIBUBFAB_POLICY_STRING(UBFAB_NAME_MAX),
	[UBFAB_A_MODEL_PARAM]		= LIBUBFAB_POLICY_NEST,
};

/* Attribute set "param" */
static const struct nla_policy param_policy[UBFAB_A_PARAM_MAX + 1] = {
	[UBFAB_A_PARAM_NAME]		= LIBUBFAB_POLICY_STRING(UBFAB_PARAM_MAX),
	[UBFAB_A_PARAM_VALUE]		= LIBUBFAB_POLICY_U64,
	[UBFAB_A_PARAM_UNIT]		= LIBUBFAB_POLICY_STRING(UBFAB_PARAM_MAX),
	[UBFAB_A_PARAM_MINIMUM]		= LIBUBFAB_POLICY_U64,
	[UBFAB_A_PARAM_MAXIMUM]		= LIBUBFAB_POLICY_U64,
	[UBFAB_A_PARAM_DEFAULT]		= LIBUBFAB_POLICY_U64,
};

#endif /* LIBUBFAB_POLICY_GEN_H */
