// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's netlink family: opening generic netlink sockets,
 * generating requests to the "ubfab" family (valid ones, ones with exactly
 * one known defect, and garbage: random commands, flags, attribute types,
 * lengths and nesting, reserved header bits, batches, truncated tails),
 * and checking every answer: each message well formed, each object the
 * kernel reports consistent with the fabric and the model's parameter
 * table as loaded, each request answered as documented, and dumps
 * complete and in order unless the operation abandons them half-read.
 *
 * A socket only this process reads is checked strictly: after each request
 * a sentinel request (FABRIC_GET with an ack) follows, and everything up to
 * its answer must be accounted for. A socket other processes may read
 * (passed or inherited) is only checked for the form of what arrives.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "family.h"

/*
 * The message type requests to the family are generated with; the family's
 * id, which changes with each load, replaces it when they are sent, so
 * that an operation's bytes do not depend on it.
 */
#define NL_FAMILY	0xfffe

/* A netlink request: up to this many messages in one datagram. */
#define NL_MSGS_MAX	3
#define NL_REQ_MAX	1024

/* What one message of a request must get back. */
enum nl_expect {
	NLX_OK,		/* success, and the objects the target names */
	NLX_ERR,	/* exactly this error */
	NLX_ANY,	/* success or an error of the family's documented set */
	NLX_NONE,	/* nothing: the kernel drops it unanswered */
};

/* The object a valid request asks for, to check what comes back. */
struct nl_target {
	uint32_t eid;		/* ENTITY_GET, PORT_GET; UINT32_MAX: all */
	uint32_t plane;		/* PORT_GET, PLANE_GET; UINT32_MAX: all */
};

struct nl_msgspec {
	uint32_t seq;
	uint8_t cmd;
	bool request;	/* NLM_F_REQUEST */
	bool dump;	/* both NLM_F_DUMP bits */
	bool ack;	/* NLM_F_ACK */
	enum nl_expect expect;
	int err;	/* NLX_ERR: the positive errno */
	struct nl_target target;
	const char *what;	/* how the generator built it */
};

/**
 * struct nl_request - one datagram of netlink messages and what they must get
 * @buf: the bytes sent
 * @len: their length
 * @n: messages described in @msg (a dropped tail is not one of them)
 * @msg: the messages
 * @seq_base: their first sequence number, a multiple of 8
 * @family_at: where the messages to the family start, whose type is sent
 *	as the family's id (it changes with each load)
 * @nfamily: how many
 * @abandon: stop reading once the sentinel request is answered, leaving any
 *	dump unfinished
 */
struct nl_request {
	uint8_t buf[NL_REQ_MAX];
	size_t len;
	unsigned int n;
	struct nl_msgspec msg[NL_MSGS_MAX];
	uint32_t seq_base;
	uint16_t family_at[NL_MSGS_MAX + 1];
	unsigned int nfamily;
	bool abandon;
};

/* An operation's request, in its data. */
#define NL_REQUEST(op)	((struct nl_request *)(op)->data)
_Static_assert(sizeof(struct nl_request) <= FUZZ_OP_DATA,
	       "struct op has no room for a netlink request");

/* Seconds a strictly checked socket waits for an answer. */
#define NL_TIMEOUT	30
/* The sentinel's sequence number: seq_base + this. */
#define NL_SENTINEL	7

/* ------------------------------------------------------------------ */
/* Building messages */

struct mbuild {
	uint8_t *buf;
	size_t len;
	size_t cap;
	struct nl_request *req;	/* gets where NL_FAMILY types are */
};

static void *put(struct mbuild *b, const void *data, size_t len)
{
	void *p;

	if (b->len + NLMSG_ALIGN(len) > b->cap)
		return NULL;
	p = b->buf + b->len;
	memset(p, 0, NLMSG_ALIGN(len));
	if (data)
		memcpy(p, data, len);
	b->len += NLMSG_ALIGN(len);
	return p;
}

/* Starts a message; returns its offset (its length is set by msg_end()). */
static size_t msg_start(struct mbuild *b, uint16_t type, uint16_t flags,
			uint32_t seq, uint8_t cmd, uint8_t version,
			uint16_t reserved)
{
	struct nlmsghdr nlh = {
		.nlmsg_type = type, .nlmsg_flags = flags, .nlmsg_seq = seq,
	};
	struct genlmsghdr g = {
		.cmd = cmd, .version = version, .reserved = reserved,
	};
	size_t off = b->len;

	if (type == NL_FAMILY && b->req && b->req->nfamily < NL_MSGS_MAX + 1)
		b->req->family_at[b->req->nfamily++] = off;
	put(b, &nlh, sizeof(nlh));
	put(b, &g, sizeof(g));
	return off;
}

/* Ends a message: its length, then padding up to the next one. */
static void msg_end(struct mbuild *b, size_t off)
{
	((struct nlmsghdr *)(b->buf + off))->nlmsg_len = b->len - off;
	while (b->len % NLMSG_ALIGNTO)
		b->buf[b->len++] = 0;
}

static struct nlattr *attr_put(struct mbuild *b, uint16_t type,
			       const void *data, size_t len)
{
	struct nlattr *a = put(b, NULL, NLA_HDRLEN + len);

	if (!a)
		return NULL;
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (data)
		memcpy((uint8_t *)a + NLA_HDRLEN, data, len);
	return a;
}

static void attr_u32(struct mbuild *b, uint16_t type, uint32_t v)
{
	attr_put(b, type, &v, sizeof(v));
}

static void attr_u64(struct mbuild *b, uint16_t type, uint64_t v)
{
	attr_put(b, type, &v, sizeof(v));
}

static void attr_str(struct mbuild *b, uint16_t type, const char *s)
{
	attr_put(b, type, s, strlen(s) + 1);
}

/* Starts a nest (NLA_F_NESTED); its length is set by nest_end(). */
static size_t nest_start(struct mbuild *b, uint16_t type)
{
	size_t start = b->len;

	return attr_put(b, type | NLA_F_NESTED, NULL, 0) ? start : SIZE_MAX;
}

static void nest_end(struct mbuild *b, size_t start)
{
	if (start != SIZE_MAX)
		((struct nlattr *)(b->buf + start))->nla_len = b->len - start;
}

/* ------------------------------------------------------------------ */
/* Generating requests */

static uint32_t valid_eid(struct rng *r, const struct fuzz_model *m)
{
	return rng_below(r, m->nr_entities);
}

/*
 * The commands that have an operation: every one but the notifications,
 * which the kernel only sends.
 */
static const uint8_t nl_cmd_ops[] = {
	UBFAB_CMD_FABRIC_GET, UBFAB_CMD_ENTITY_GET, UBFAB_CMD_PORT_GET,
	UBFAB_CMD_PLANE_GET, UBFAB_CMD_SEG_GET, UBFAB_CMD_ENTITY_RESET,
	UBFAB_CMD_PORT_SET, UBFAB_CMD_PLANE_SET, UBFAB_CMD_MODEL_GET,
	UBFAB_CMD_MODEL_SET, UBFAB_CMD_QUEUE_GET, UBFAB_CMD_LINK_GET,
	UBFAB_CMD_JETTY_GET,
};

static bool cmd_has_op(uint8_t cmd)
{
	return memchr(nl_cmd_ops, cmd, sizeof(nl_cmd_ops));
}

/* A command that changes the fabric or its model: a do that only acks. */
static bool cmd_is_set(uint8_t cmd)
{
	return cmd == UBFAB_CMD_ENTITY_RESET || cmd == UBFAB_CMD_PORT_SET ||
	       cmd == UBFAB_CMD_PLANE_SET || cmd == UBFAB_CMD_MODEL_SET;
}

/* Which commands have a do and a dump, and how many objects a do returns. */
static bool cmd_has_do(uint8_t cmd)
{
	return cmd != UBFAB_CMD_SEG_GET && cmd != UBFAB_CMD_QUEUE_GET &&
	       cmd != UBFAB_CMD_LINK_GET && cmd != UBFAB_CMD_JETTY_GET &&
	       cmd_has_op(cmd);
}

static bool cmd_has_dump(uint8_t cmd)
{
	return cmd != UBFAB_CMD_FABRIC_GET && cmd != UBFAB_CMD_MODEL_GET &&
	       !cmd_is_set(cmd) && cmd_has_op(cmd);
}

static unsigned int do_replies(uint8_t cmd)
{
	return cmd_is_set(cmd) ? 0 : 1;
}

/* A state to set: mostly valid ones, whichever the test wants. */
static uint32_t any_state(struct rng *r)
{
	return rng_chance(r, 50) ? UBFAB_STATE_UP : UBFAB_STATE_DOWN;
}

/*
 * A parameter of the fabric model as the supervisor read it: its names and
 * ranges are the kernel's table, the same in every process and every run.
 */
static const struct ubfab_model_param *any_param(struct rng *r,
						 const struct fuzz_model *m)
{
	return &m->params->params[rng_below(r, m->params->nparams)];
}

/* A value in a parameter's range: a bound, its default, or any. */
static uint64_t param_value(struct rng *r, const struct ubfab_model_param *p)
{
	uint64_t span = p->maximum - p->minimum;

	switch (rng_below(r, 4)) {
	case 0:
		return p->minimum;
	case 1:
		return p->maximum;
	case 2:
		return p->default_value;
	default:
		return p->minimum + (span == UINT64_MAX ? rng_next(r) :
				     rng_below(r, span + 1));
	}
}

/* A UBFAB_A_MODEL_PARAM nest; a NULL name or value is left out. */
static void attr_param(struct mbuild *b, const char *name,
		       const uint64_t *value)
{
	size_t nest = nest_start(b, UBFAB_A_MODEL_PARAM);

	if (name)
		attr_str(b, UBFAB_A_PARAM_NAME, name);
	if (value)
		attr_u64(b, UBFAB_A_PARAM_VALUE, *value);
	nest_end(b, nest);
}

/* n parameters, each set to a value in its range. */
static void gen_params(struct rng *r, const struct fuzz_model *m,
		       struct mbuild *b, unsigned int n)
{
	const struct ubfab_model_param *p;
	uint64_t v;

	for (; n > 0; n--) {
		p = any_param(r, m);
		v = param_value(r, p);
		attr_param(b, p->name, &v);
	}
}

/* A well-formed request for existing objects: they must come back. */
static void gen_valid(struct rng *r, const struct fuzz_model *m,
		      struct mbuild *b, struct nl_msgspec *ms, uint32_t seq)
{
	uint8_t cmd = rng_pick(r, nl_cmd_ops);
	bool dump = cmd_has_dump(cmd) && (!cmd_has_do(cmd) || rng_chance(r, 50));
	uint16_t flags = NLM_F_REQUEST;
	uint32_t eid;
	size_t off;

	/* A reset or a change of a state or the model answers with its ack. */
	if (rng_chance(r, 60) || cmd_is_set(cmd))
		flags |= NLM_F_ACK;
	if (rng_chance(r, 10))
		flags |= NLM_F_ECHO;
	if (dump)
		flags |= NLM_F_DUMP;
	off = msg_start(b, NL_FAMILY, flags, seq, cmd,
			rng_chance(r, 90) ? UBFAB_GENL_VERSION :
					    rng_below(r, 256), 0);
	ms->what = "valid";
	ms->expect = NLX_OK;
	switch (cmd) {
	case UBFAB_CMD_ENTITY_GET:
		if (dump)
			break;
		eid = valid_eid(r, m);
		ms->target.eid = eid;
		if (rng_chance(r, 50))
			attr_u32(b, UBFAB_A_ENTITY_EID, eid);
		else
			attr_str(b, UBFAB_A_ENTITY_NAME, m->entities[eid].name);
		break;
	case UBFAB_CMD_PORT_GET:
		if (dump && rng_chance(r, 50))
			break;
		ms->target.eid = valid_eid(r, m);
		attr_u32(b, UBFAB_A_PORT_EID, ms->target.eid);
		if (dump)
			break;
		ms->target.plane = rng_below(r, m->fabric.planes);
		attr_u32(b, UBFAB_A_PORT_PLANE, ms->target.plane);
		break;
	case UBFAB_CMD_PLANE_GET:
		if (dump)
			break;
		ms->target.plane = rng_below(r, m->fabric.planes);
		attr_u32(b, UBFAB_A_PLANE_ID, ms->target.plane);
		break;
	case UBFAB_CMD_SEG_GET:
	case UBFAB_CMD_QUEUE_GET:
	case UBFAB_CMD_JETTY_GET:
		if (rng_chance(r, 50))
			break;
		/* UBFAB_A_SEG_EID, _QUEUE_EID and _JETTY_EID are all 1 */
		ms->target.eid = valid_eid(r, m);
		attr_u32(b, UBFAB_A_SEG_EID, ms->target.eid);
		break;
	case UBFAB_CMD_LINK_GET:
		if (rng_chance(r, 50))
			break;
		ms->target.plane = rng_below(r, m->fabric.planes);
		attr_u32(b, UBFAB_A_LINK_PLANE, ms->target.plane);
		break;
	case UBFAB_CMD_ENTITY_RESET:
		ms->target.eid = valid_eid(r, m);
		attr_u32(b, UBFAB_A_ENTITY_EID, ms->target.eid);
		break;
	case UBFAB_CMD_PORT_SET:
		attr_u32(b, UBFAB_A_PORT_EID, valid_eid(r, m));
		attr_u32(b, UBFAB_A_PORT_PLANE,
			 rng_below(r, m->fabric.planes));
		attr_u32(b, UBFAB_A_PORT_STATE, any_state(r));
		break;
	case UBFAB_CMD_PLANE_SET:
		attr_u32(b, UBFAB_A_PLANE_ID, rng_below(r, m->fabric.planes));
		attr_u32(b, UBFAB_A_PLANE_STATE, any_state(r));
		break;
	case UBFAB_CMD_MODEL_SET:
		/* cm384's values back, parameters, both, or nothing */
		if (rng_chance(r, 40))
			attr_str(b, UBFAB_A_MODEL_PROFILE, "cm384");
		gen_params(r, m, b, rng_below(r, 4));
		break;
	default:
		break;
	}
	msg_end(b, off);
}

/* The single defects a request can have, and the error each must get. */
enum defect {
	D_NO_ENTITY, D_NO_NAME, D_NO_PORT_ENTITY, D_NO_PORT_PLANE,
	D_NO_DUMP_ENTITY, D_NO_PLANE, D_MISSING, D_BAD_LENGTH, D_NO_NUL,
	D_LONG_NAME, D_UNKNOWN_ATTR, D_FABRIC_ATTR, D_NESTED_FLAG,
	D_TRAILING, D_RESERVED, D_FLAGS, D_SHORT_HEADER, D_COMMAND,
	D_NO_OPERATION, D_FAMILY, D_NOT_REQUEST, D_CONTROL, D_BAD_STATE,
	D_NO_PROFILE, D_NO_PARAM, D_PARAM_RANGE, D_PARAM_HALF,
	NR_DEFECTS
};

static const char *const defect_names[NR_DEFECTS] = {
	"no such entity", "no such name", "port of no entity",
	"port of no plane", "port dump of no entity", "no such plane",
	"missing attribute", "bad length", "name without NUL", "long name",
	"unknown attribute", "attribute to a command without any",
	"NLA_F_NESTED on a u32 or string",
	"trailing bytes", "reserved byte", "reserved flags", "short header",
	"unknown command", "do or dump it lacks", "unknown family",
	"no NLM_F_REQUEST", "control message", "no such state",
	"no such model profile", "no such model parameter",
	"model parameter out of range", "model parameter without name or value",
};

/* Names that are no entity's: the kernel compares them whole. */
static const char *const no_names[] = {
	"", "npu", "npu00", "NPU0", "cpu-1", "npu0 ", "gpu0", "npu9999",
	"cpu9999", "012345678901234",
};

/* Profiles the model does not have ("custom" is only reported). */
static const char *const no_profiles[] = {
	"", "custom", "small", "CM384", "cm384 ", "cm38", "cm3840", "npu0",
};

/*
 * Names that are no model parameter's, of UBFAB_PARAM_MAX - 1 characters
 * at most (a longer one is the policy's business): with a parameter's
 * name, that name without its last character.
 */
static const char *const no_params[] = {
	"", "ps", "cm384", "custom", "HOP-PS", "hop_ps", "hop-ps ",
	"0123456789012345678901234567890",
};

/* One parameter nest with exactly the defect d. */
static void gen_bad_param(struct rng *r, const struct fuzz_model *m,
			  struct mbuild *b, enum defect d)
{
	const struct ubfab_model_param *p = any_param(r, m);
	uint64_t v = param_value(r, p);
	char name[UBFAB_PARAM_MAX];

	switch (d) {
	case D_NO_PARAM:
		snprintf(name, sizeof(name), "%.*s", (int)strlen(p->name) - 1,
			 p->name);
		attr_param(b, rng_chance(r, 50) ? name : rng_pick(r, no_params),
			   &v);
		break;
	case D_PARAM_RANGE:
		/* the supervisor checked that every maximum has a value above */
		if (p->minimum && rng_chance(r, 30))
			v = rng_chance(r, 50) ? p->minimum - 1 :
						rng_below(r, p->minimum);
		else
			v = p->maximum + 1 +
			    (rng_chance(r, 50) ? 0 :
			     rng_below(r, UINT64_MAX - p->maximum));
		attr_param(b, p->name, &v);
		break;
	default:
		/* D_PARAM_HALF: no value, no name, or neither */
		switch (rng_below(r, 3)) {
		case 0:
			attr_param(b, p->name, NULL);
			break;
		case 1:
			attr_param(b, NULL, &v);
			break;
		default:
			attr_param(b, NULL, NULL);
			break;
		}
		break;
	}
}

/* The highest attribute a command's policy knows. */
static uint16_t policy_max(uint8_t cmd)
{
	switch (cmd) {
	case UBFAB_CMD_ENTITY_GET:
	case UBFAB_CMD_ENTITY_RESET:
		return UBFAB_A_ENTITY_NAME;
	case UBFAB_CMD_PORT_GET:
		return UBFAB_A_PORT_PLANE;
	case UBFAB_CMD_PORT_SET:
		return UBFAB_A_PORT_STATE;
	case UBFAB_CMD_PLANE_GET:
		return UBFAB_A_PLANE_ID;
	case UBFAB_CMD_PLANE_SET:
		return UBFAB_A_PLANE_STATE;
	case UBFAB_CMD_SEG_GET:
		return UBFAB_A_SEG_EID;
	case UBFAB_CMD_QUEUE_GET:
		return UBFAB_A_QUEUE_EID;
	case UBFAB_CMD_JETTY_GET:
		return UBFAB_A_JETTY_EID;
	case UBFAB_CMD_LINK_GET:
		return UBFAB_A_LINK_PLANE;
	case UBFAB_CMD_MODEL_SET:
		return UBFAB_A_MODEL_PARAM;
	default:
		return 0;
	}
}

static void gen_defect(struct rng *r, const struct fuzz_model *m,
		       struct mbuild *b, struct nl_msgspec *ms, uint32_t seq)
{
	enum defect d = rng_below(r, NR_DEFECTS);
	uint16_t type = NL_FAMILY, flags = NLM_F_REQUEST, reserved = 0;
	/* with attributes, MODEL_SET last: its attribute 1 is a string */
	static const uint8_t with_attrs[] = {
		UBFAB_CMD_ENTITY_GET, UBFAB_CMD_PORT_GET, UBFAB_CMD_PLANE_GET,
		UBFAB_CMD_SEG_GET, UBFAB_CMD_ENTITY_RESET, UBFAB_CMD_PORT_SET,
		UBFAB_CMD_PLANE_SET, UBFAB_CMD_QUEUE_GET, UBFAB_CMD_LINK_GET,
		UBFAB_CMD_JETTY_GET, UBFAB_CMD_MODEL_SET,
	};
	uint8_t cmd = rng_pick(r, nl_cmd_ops);
	char name[40];
	size_t off;
	uint32_t v;

	ms->what = defect_names[d];
	ms->expect = NLX_ERR;
	ms->err = EINVAL;
	if (rng_chance(r, 50))
		flags |= NLM_F_ACK;
	/* The command each defect needs, and the header ones. */
	switch (d) {
	case D_NO_ENTITY:
		cmd = rng_chance(r, 80) ? UBFAB_CMD_ENTITY_GET :
					  UBFAB_CMD_ENTITY_RESET;
		ms->err = ENODEV;
		break;
	case D_NO_NAME:
		cmd = UBFAB_CMD_ENTITY_GET;
		ms->err = ENODEV;
		break;
	case D_NO_PORT_ENTITY:
	case D_NO_PORT_PLANE:
		cmd = rng_chance(r, 70) ? UBFAB_CMD_PORT_GET :
					  UBFAB_CMD_PORT_SET;
		ms->err = ENODEV;
		break;
	case D_NO_DUMP_ENTITY:
		cmd = rng_pick(r, ((const uint8_t[]){ UBFAB_CMD_PORT_GET,
			UBFAB_CMD_SEG_GET, UBFAB_CMD_QUEUE_GET,
			UBFAB_CMD_JETTY_GET }));
		flags |= NLM_F_DUMP;
		ms->err = ENODEV;
		break;
	case D_NO_PLANE:
		cmd = rng_pick(r, ((const uint8_t[]){ UBFAB_CMD_PLANE_GET,
			UBFAB_CMD_PLANE_GET, UBFAB_CMD_PLANE_SET,
			UBFAB_CMD_LINK_GET }));
		if (cmd == UBFAB_CMD_LINK_GET)
			flags |= NLM_F_DUMP;
		ms->err = ENODEV;
		break;
	case D_MISSING:
		cmd = rng_pick(r, ((const uint8_t[]){ UBFAB_CMD_ENTITY_GET,
			UBFAB_CMD_PORT_GET, UBFAB_CMD_PLANE_GET,
			UBFAB_CMD_ENTITY_RESET, UBFAB_CMD_PORT_SET,
			UBFAB_CMD_PLANE_SET }));
		break;
	case D_BAD_STATE:
		cmd = rng_chance(r, 50) ? UBFAB_CMD_PORT_SET :
					  UBFAB_CMD_PLANE_SET;
		break;
	case D_NO_NUL:
	case D_LONG_NAME:
		cmd = UBFAB_CMD_ENTITY_GET;
		break;
	case D_FABRIC_ATTR:
		cmd = rng_chance(r, 50) ? UBFAB_CMD_FABRIC_GET :
					  UBFAB_CMD_MODEL_GET;
		break;
	case D_BAD_LENGTH:
	case D_UNKNOWN_ATTR:
	case D_NESTED_FLAG:
	case D_TRAILING:
		/*
		 * Those with attributes; as a do or dump they have. A bad
		 * length is of a u32: not MODEL_SET's profile.
		 */
		cmd = with_attrs[rng_below(r, ARRAY_SIZE(with_attrs) -
					      (d == D_BAD_LENGTH))];
		if (cmd_has_dump(cmd) && (!cmd_has_do(cmd) || rng_chance(r, 30)))
			flags |= NLM_F_DUMP;
		break;
	case D_RESERVED:
		reserved = 1 + rng_below(r, 0xffff);
		break;
	case D_FLAGS:
		flags |= rng_pick(r, ((const uint16_t[]){
			NLM_F_ROOT, NLM_F_MATCH, NLM_F_ATOMIC, NLM_F_EXCL,
			0x0800, 0x1000, 0x8000 }));
		break;
	case D_COMMAND:
		cmd = rng_chance(r, 20) ? 0 :
		      UBFAB_CMD_MAX + 1 + rng_below(r, 255 - UBFAB_CMD_MAX);
		if (rng_chance(r, 30))
			flags |= NLM_F_DUMP;
		ms->err = EOPNOTSUPP;
		break;
	case D_NO_OPERATION:
		cmd = rng_pick(r, ((const uint8_t[]){ UBFAB_CMD_FABRIC_GET,
			UBFAB_CMD_SEG_GET, UBFAB_CMD_ENTITY_RESET,
			UBFAB_CMD_PORT_SET, UBFAB_CMD_PLANE_SET,
			UBFAB_CMD_PORT_NTF, UBFAB_CMD_PLANE_NTF,
			UBFAB_CMD_ENTITY_RESET_NTF, UBFAB_CMD_MODEL_GET,
			UBFAB_CMD_MODEL_SET, UBFAB_CMD_MODEL_NTF,
			UBFAB_CMD_QUEUE_GET, UBFAB_CMD_LINK_GET,
			UBFAB_CMD_JETTY_GET }));
		if (cmd_has_do(cmd))
			flags |= NLM_F_DUMP;
		ms->err = EOPNOTSUPP;
		break;
	case D_NO_PROFILE:
	case D_NO_PARAM:
		cmd = UBFAB_CMD_MODEL_SET;
		ms->err = ENOENT;
		break;
	case D_PARAM_RANGE:
		cmd = UBFAB_CMD_MODEL_SET;
		ms->err = ERANGE;
		break;
	case D_PARAM_HALF:
		cmd = UBFAB_CMD_MODEL_SET;
		break;
	case D_FAMILY:
		type = rng_pick(r, ((const uint16_t[]){ 0x400, 0xfff0,
							 0xffff }));
		ms->err = ENOENT;
		break;
	case D_NOT_REQUEST:
		flags &= ~NLM_F_REQUEST;
		break;
	case D_CONTROL:
		type = rng_below(r, NLMSG_MIN_TYPE);
		break;
	default:
		break;
	}
	if (d == D_NOT_REQUEST || d == D_CONTROL) {
		/* Not handed to the family: acked if asked, else dropped. */
		ms->err = 0;
		if (!(flags & NLM_F_ACK))
			ms->expect = NLX_NONE;
	}
	ms->cmd = cmd;
	ms->request = flags & NLM_F_REQUEST;
	ms->dump = (flags & NLM_F_DUMP) == NLM_F_DUMP;
	ms->ack = flags & NLM_F_ACK;

	off = msg_start(b, type, flags, seq, cmd, UBFAB_GENL_VERSION,
			reserved);
	switch (d) {
	case D_NO_ENTITY:
		/* UBFAB_A_ENTITY_EID, for ENTITY_GET and ENTITY_RESET */
		attr_u32(b, UBFAB_A_ENTITY_EID,
			 m->nr_entities + (rng_chance(r, 50) ? 0 :
					   rng_below(r, UINT32_MAX -
							m->nr_entities)));
		break;
	case D_NO_NAME:
		attr_str(b, UBFAB_A_ENTITY_NAME, rng_pick(r, no_names));
		break;
	case D_NO_PORT_ENTITY:
	case D_NO_DUMP_ENTITY:
		/* UBFAB_A_PORT_EID, _SEG_EID, _QUEUE_EID and _JETTY_EID: 1. */
		v = m->nr_entities + rng_below(r, 3);
		attr_u32(b, UBFAB_A_PORT_EID, rng_chance(r, 50) ? v :
					      UINT32_MAX);
		if (d == D_NO_PORT_ENTITY)
			attr_u32(b, UBFAB_A_PORT_PLANE, 0);
		if (cmd == UBFAB_CMD_PORT_SET)
			attr_u32(b, UBFAB_A_PORT_STATE, any_state(r));
		break;
	case D_NO_PORT_PLANE:
		attr_u32(b, UBFAB_A_PORT_EID, valid_eid(r, m));
		attr_u32(b, UBFAB_A_PORT_PLANE,
			 rng_chance(r, 50) ? m->fabric.planes : UINT32_MAX);
		if (cmd == UBFAB_CMD_PORT_SET)
			attr_u32(b, UBFAB_A_PORT_STATE, any_state(r));
		break;
	case D_NO_PLANE:
		/* UBFAB_A_PLANE_ID and UBFAB_A_LINK_PLANE are both 1. */
		attr_u32(b, UBFAB_A_PLANE_ID, m->fabric.planes +
			 rng_below(r, 2) * (UINT32_MAX - m->fabric.planes));
		if (cmd == UBFAB_CMD_PLANE_SET)
			attr_u32(b, UBFAB_A_PLANE_STATE, any_state(r));
		break;
	case D_MISSING:
		/* one of the attributes it needs, or none */
		if (cmd == UBFAB_CMD_PORT_GET || cmd == UBFAB_CMD_PORT_SET)
			attr_u32(b, 1 + rng_below(r, policy_max(cmd)), 0);
		if (cmd == UBFAB_CMD_PLANE_SET && rng_chance(r, 50))
			attr_u32(b, rng_chance(r, 50) ? UBFAB_A_PLANE_ID :
							UBFAB_A_PLANE_STATE, 0);
		if (cmd == UBFAB_CMD_ENTITY_RESET && rng_chance(r, 50))
			attr_str(b, UBFAB_A_ENTITY_NAME, "npu0");
		break;
	case D_BAD_STATE:
		/* the object exists; the state is no enum ubfab_state */
		v = UBFAB_STATE_UP + 1 + rng_below(r, 3) *
		    (UINT32_MAX / 2 - UBFAB_STATE_UP);
		if (cmd == UBFAB_CMD_PORT_SET) {
			attr_u32(b, UBFAB_A_PORT_EID, valid_eid(r, m));
			attr_u32(b, UBFAB_A_PORT_PLANE, 0);
			attr_u32(b, UBFAB_A_PORT_STATE, v);
		} else {
			attr_u32(b, UBFAB_A_PLANE_ID, 0);
			attr_u32(b, UBFAB_A_PLANE_STATE, v);
		}
		break;
	case D_BAD_LENGTH:
		/* Attribute 1 is a u32 in every set, and 2 in PORT_GET's. */
		attr_put(b, cmd == UBFAB_CMD_PORT_GET ? 1 + rng_below(r, 2) : 1,
			 NULL, rng_pick(r, ((const uint32_t[]){ 0, 1, 2, 3, 5,
							     8 })));
		break;
	case D_NO_NUL:
		attr_put(b, UBFAB_A_ENTITY_NAME, "npu0", 4);
		break;
	case D_LONG_NAME:
		memset(name, 'n', sizeof(name));
		name[UBFAB_NAME_MAX + rng_below(r, 20)] = '\0';
		attr_str(b, UBFAB_A_ENTITY_NAME, name);
		break;
	case D_UNKNOWN_ATTR:
		attr_u32(b, rng_chance(r, 20) ? 0 :
			    policy_max(cmd) + 1 + rng_below(r, 20), 0);
		break;
	case D_FABRIC_ATTR:
		attr_u32(b, rng_below(r, UBFAB_A_FABRIC_MAX + 2), 1);
		break;
	case D_NESTED_FLAG:
		attr_u32(b, NLA_F_NESTED | 1, 0);
		break;
	case D_TRAILING:
		/* 1 to 3 bytes, too few for an attribute. */
		v = 1 + rng_below(r, 3);
		if (b->len + v <= b->cap) {
			memset(b->buf + b->len, 0xa5, v);
			b->len += v;
		}
		break;
	case D_NO_PROFILE:
		attr_str(b, UBFAB_A_MODEL_PROFILE, rng_pick(r, no_profiles));
		gen_params(r, m, b, rng_below(r, 3));
		break;
	case D_NO_PARAM:
	case D_PARAM_RANGE:
	case D_PARAM_HALF:
		/* among good parameters, after cm384 or not: all or nothing */
		if (rng_chance(r, 30))
			attr_str(b, UBFAB_A_MODEL_PROFILE, "cm384");
		gen_params(r, m, b, rng_below(r, 3));
		gen_bad_param(r, m, b, d);
		gen_params(r, m, b, rng_below(r, 2));
		break;
	default:
		break;
	}
	if (d == D_SHORT_HEADER)
		b->len = off + NLMSG_HDRLEN + rng_below(r, GENL_HDRLEN);
	msg_end(b, off);
}

/* Random attributes, nested down to depth. */
static void gen_attrs(struct rng *r, const struct fuzz_model *m,
		      struct mbuild *b, int depth)
{
	uint8_t bytes[40];
	uint16_t type;
	size_t start;
	uint32_t v;
	int i, n = rng_below(r, 5);

	for (; n > 0; n--) {
		type = rng_below(r, 12);
		if (rng_chance(r, 10))
			type |= NLA_F_NESTED;
		if (rng_chance(r, 5))
			type |= NLA_F_NET_BYTEORDER;
		if (rng_chance(r, 5))
			type = rng_next(r);
		switch (rng_below(r, 6)) {
		case 0:
			v = rng_u32_edge(r, m->nr_entities);
			attr_put(b, type, &v, sizeof(v));
			break;
		case 1:
			attr_str(b, type, rng_chance(r, 50) ?
				 m->entities[valid_eid(r, m)].name :
				 rng_pick(r, no_names));
			break;
		case 2:
			attr_put(b, type, NULL, 0);
			break;
		case 3:
			if (depth > 0) {
				start = nest_start(b, type);
				gen_attrs(r, m, b, depth - 1);
				nest_end(b, start);
				break;
			}
			/* fall through */
		default:
			for (i = 0; i < (int)sizeof(bytes); i++)
				bytes[i] = rng_next(r);
			attr_put(b, type, bytes, rng_below(r, sizeof(bytes)));
			break;
		}
	}
}

/* Anything at all in a ubfab message: the answer only has to be sane. */
static void gen_garbage(struct rng *r, const struct fuzz_model *m,
			struct mbuild *b, struct nl_msgspec *ms, uint32_t seq)
{
	static const uint16_t bits[] = {
		NLM_F_ACK, NLM_F_ECHO, NLM_F_ROOT, NLM_F_MATCH, NLM_F_ATOMIC,
		NLM_F_EXCL, NLM_F_DUMP_INTR, 0x0800, 0x8000,
	};
	uint16_t flags = NLM_F_REQUEST;
	struct nlattr *a;
	size_t off;
	int i;

	for (i = rng_below(r, 3); i > 0; i--)
		flags |= rng_pick(r, bits);
	if (rng_chance(r, 30))
		flags |= NLM_F_DUMP;
	ms->cmd = rng_chance(r, 70) ? 1 + rng_below(r, UBFAB_CMD_MAX) :
				      rng_below(r, 256);
	ms->what = "garbage";
	ms->expect = NLX_ANY;
	ms->request = true;
	ms->dump = (flags & NLM_F_DUMP) == NLM_F_DUMP;
	ms->ack = flags & NLM_F_ACK;
	off = msg_start(b, NL_FAMILY, flags, seq, ms->cmd, rng_below(r, 256),
			rng_chance(r, 80) ? 0 : rng_below(r, 0x10000));
	gen_attrs(r, m, b, 2);
	if (rng_chance(r, 10) && b->len > off + NLMSG_HDRLEN + GENL_HDRLEN) {
		/* Break the length of the first attribute. */
		a = (struct nlattr *)(b->buf + off + NLMSG_HDRLEN +
				      GENL_HDRLEN);
		a->nla_len = rng_chance(r, 50) ? rng_below(r, NLA_HDRLEN) :
						 0xfff0;
	}
	msg_end(b, off);
}

static void nl_gen_open(struct rng *r, const struct fuzz_model *m,
			struct op *op)
{
	op->a[0] = rng_below(r, 4);	/* NETLINK_EXT_ACK, NETLINK_CAP_ACK */
	op->a[1] = rng_below(r, 3);	/* receive buffer */
}

/* Sequence numbers: 8 per operation, the last for the sentinel. */
static void nl_gen_request(struct rng *r, const struct fuzz_model *m,
			   struct op *op)
{
	uint32_t seq_base = (uint32_t)op->index << 3;
	struct nl_request *req = NL_REQUEST(op);
	struct mbuild b = { req->buf, 0, sizeof(req->buf), req };
	struct nl_msgspec *ms;
	unsigned int i, n = rng_chance(r, 85) ? 1 : 2 + rng_below(r, 2);
	struct nlmsghdr *tail;
	size_t off;

	memset(req->msg, 0, sizeof(req->msg));
	req->nfamily = 0;
	for (i = 0; i < n; i++) {
		ms = &req->msg[i];
		ms->seq = seq_base + i;
		/* What a dump covers, unless the generator knows better. */
		ms->target.eid = ms->target.plane = UINT32_MAX;
		off = b.len;
		switch (rng_below(r, 20)) {
		case 0 ... 7:
			gen_valid(r, m, &b, ms, ms->seq);
			tail = (struct nlmsghdr *)(b.buf + off);
			ms->cmd = ((struct genlmsghdr *)NLMSG_DATA(tail))->cmd;
			ms->request = true;
			ms->dump = (tail->nlmsg_flags & NLM_F_DUMP) ==
				   NLM_F_DUMP;
			ms->ack = tail->nlmsg_flags & NLM_F_ACK;
			break;
		case 8 ... 14:
			gen_defect(r, m, &b, ms, ms->seq);
			break;
		default:
			gen_garbage(r, m, &b, ms, ms->seq);
			break;
		}
	}
	req->n = n;
	if (rng_chance(r, 5)) {
		/* A last message whose length is wrong: dropped, silently. */
		tail = put(&b, NULL, NLMSG_HDRLEN + rng_below(r, 8));
		if (tail) {
			tail->nlmsg_len = rng_chance(r, 50) ?
					  rng_below(r, NLMSG_HDRLEN) : 0xffff;
			tail->nlmsg_type = NL_FAMILY;	/* never read */
			tail->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
			tail->nlmsg_seq = seq_base + NL_MSGS_MAX;
		}
	}
	req->len = b.len;
	req->seq_base = seq_base;
	req->abandon = rng_chance(r, 30);
}

static void nl_describe(const struct op *op, char *buf, size_t len)
{
	const struct nl_request *req = NL_REQUEST(op);
	const struct nl_msgspec *ms;
	unsigned int i;
	size_t n = 0;

	for (i = 0; i < req->n && n < len; i++) {
		ms = &req->msg[i];
		n += snprintf(buf + n, len - n,
			      " [seq %u %s cmd %u%s%s%s]", ms->seq, ms->what,
			      ms->cmd, ms->dump ? " dump" : "",
			      ms->ack ? " ack" : "",
			      req->abandon && ms->dump ? " abandoned" : "");
	}
	for (i = 0; i < req->len && n + 3 < len; i++)
		n += snprintf(buf + n, len - n, "%s%02x", i ? "" : " bytes ",
			      req->buf[i]);
}

/* ------------------------------------------------------------------ */
/* Checking answers */

/* The answer to one message of a request, as it comes in. */
struct track {
	const struct nl_msgspec *ms;
	bool done;
	int err;		/* positive errno, 0 for success */
	unsigned int objects;	/* replies carrying an object */
	uint64_t next;		/* dumps: lowest position still to come */
	bool busy_ok;		/* a dump may be refused: another runs */
};

/* What a reply names: its position in its dump order. */
struct object {
	uint32_t eid;
	uint32_t plane;
	uint64_t pos;
};

static bool check_u32(struct worker *w, const struct nlattr *a, uint32_t *v)
{
	if (a->nla_len != NLA_HDRLEN + 4)
		return fuzz_fail(w, "attribute %u is %u bytes, not a u32",
				 a->nla_type, a->nla_len);
	memcpy(v, (const uint8_t *)a + NLA_HDRLEN, 4);
	return true;
}

static bool check_u64(struct worker *w, const struct nlattr *a, uint64_t *v)
{
	if (a->nla_len != NLA_HDRLEN + 8)
		return fuzz_fail(w, "attribute %u is %u bytes, not a u64",
				 a->nla_type, a->nla_len);
	memcpy(v, (const uint8_t *)a + NLA_HDRLEN, 8);
	return true;
}

/*
 * The attributes in [data, data + len), rem the bytes from a on; the body
 * checks that each fits before the next is looked at.
 */
#define for_each_attr(a, data, len, rem)				\
	for ((a) = (const void *)(data), (rem) = (len);			\
	     (rem) >= NLA_HDRLEN;					\
	     (rem) -= NLA_ALIGN((a)->nla_len) < (rem) ?			\
		      NLA_ALIGN((a)->nla_len) : (rem),			\
	     (a) = (const void *)((const uint8_t *)(a) +		\
				  NLA_ALIGN((a)->nla_len)))

/*
 * Walks the attributes in [data, data + len): each must fit; tb[type]
 * gets the last of each type up to max. Returns false on a malformed one.
 */
static bool parse(struct worker *w, const void *data, size_t len,
		  const struct nlattr **tb, unsigned int max)
{
	const struct nlattr *a;
	unsigned int type;
	size_t rem;

	memset(tb, 0, (max + 1) * sizeof(*tb));
	for_each_attr(a, data, len, rem) {
		if (a->nla_len < NLA_HDRLEN || a->nla_len > rem)
			return fuzz_fail(w, "attribute of length %u in %zu bytes",
					 a->nla_len, rem);
		type = a->nla_type & NLA_TYPE_MASK;
		if (type <= max)
			tb[type] = a;
	}
	if (rem)
		return fuzz_fail(w, "%zu bytes after the attributes", rem);
	return true;
}

/* The attributes of a nest, parsed as parse() does. */
static bool parse_nest(struct worker *w, const struct nlattr *nest,
		       const struct nlattr **tb, unsigned int max)
{
	return parse(w, (const uint8_t *)nest + NLA_HDRLEN,
		     nest->nla_len - NLA_HDRLEN, tb, max);
}

static bool check_stats(struct worker *w, const struct nlattr *nest)
{
	const struct nlattr *tb[UBFAB_A_STATS_MAX + 1];
	uint64_t v;
	int i;

	if (!nest)
		return fuzz_fail(w, "no stats");
	if (!parse_nest(w, nest, tb, UBFAB_A_STATS_MAX))
		return false;
	for (i = UBFAB_A_STATS_TX_BYTES; i <= UBFAB_A_STATS_ERRORS; i++) {
		if (!tb[i] || !check_u64(w, tb[i], &v))
			return fuzz_fail(w, "stats without attribute %d", i);
	}
	return true;
}

/* Compares an attribute with what the model says it must be. */
static bool same(struct worker *w, const char *what, uint64_t got,
		 uint64_t want)
{
	if (got != want)
		return fuzz_fail(w, "%s is %llu, expected %llu", what,
				 (unsigned long long)got,
				 (unsigned long long)want);
	return true;
}

static bool get_u32(struct worker *w, const struct nlattr *a,
		    const char *what, uint32_t *v)
{
	if (!a)
		return fuzz_fail(w, "reply without %s", what);
	return check_u32(w, a, v);
}

static bool get_u64(struct worker *w, const struct nlattr *a,
		    const char *what, uint64_t *v)
{
	if (!a)
		return fuzz_fail(w, "reply without %s", what);
	return check_u64(w, a, v);
}

/* A string attribute: its bytes, the last of them its only NUL. */
static bool get_str(struct worker *w, const struct nlattr *a,
		    const char *what, const char **s)
{
	size_t len;

	if (!a)
		return fuzz_fail(w, "reply without %s", what);
	len = a->nla_len - NLA_HDRLEN;
	*s = (const char *)a + NLA_HDRLEN;
	if (!len || strnlen(*s, len) != len - 1)
		return fuzz_fail(w, "%s is %zu bytes, not a string", what,
				 len);
	return true;
}

static bool check_fabric(struct worker *w, const void *data, size_t len)
{
	const struct ubfab_fabric_info *f = &w->model->fabric;
	const struct nlattr *tb[UBFAB_A_FABRIC_MAX + 1];
	const struct { int type; const char *name; uint32_t want; } u32s[] = {
		{ UBFAB_A_FABRIC_NODES, "nodes", f->nodes },
		{ UBFAB_A_FABRIC_CHIPS_PER_NODE, "chips", f->chips_per_node },
		{ UBFAB_A_FABRIC_DIES_PER_CHIP, "dies", f->dies_per_chip },
		{ UBFAB_A_FABRIC_CPUS_PER_NODE, "cpus/node", f->cpus_per_node },
		{ UBFAB_A_FABRIC_PLANES, "planes", f->planes },
		{ UBFAB_A_FABRIC_L2_PER_PLANE, "l2", f->l2_per_plane },
		{ UBFAB_A_FABRIC_NPUS, "npus", f->npus },
		{ UBFAB_A_FABRIC_CPUS, "cpus", f->cpus },
	};
	const char *profile;
	uint64_t v64 = 0;
	uint32_t v = 0;
	unsigned int i;

	if (!parse(w, data, len, tb, UBFAB_A_FABRIC_MAX))
		return false;
	for (i = 0; i < ARRAY_SIZE(u32s); i++) {
		if (!get_u32(w, tb[u32s[i].type], u32s[i].name, &v) ||
		    !same(w, u32s[i].name, v, u32s[i].want))
			return false;
	}
	if (!get_str(w, tb[UBFAB_A_FABRIC_PROFILE], "profile", &profile))
		return false;
	if (strcmp(profile, f->profile))
		return fuzz_fail(w, "fabric profile differs from \"%s\"",
				 f->profile);
	return tb[UBFAB_A_FABRIC_NPU_MEM] && tb[UBFAB_A_FABRIC_CPU_MEM] &&
	       tb[UBFAB_A_FABRIC_SETUP_NS] ?
	       check_u64(w, tb[UBFAB_A_FABRIC_NPU_MEM], &v64) &&
	       same(w, "npu_mem", v64, f->npu_mem) &&
	       check_u64(w, tb[UBFAB_A_FABRIC_CPU_MEM], &v64) &&
	       same(w, "cpu_mem", v64, f->cpu_mem) &&
	       check_u64(w, tb[UBFAB_A_FABRIC_SETUP_NS], &v64) :
	       fuzz_fail(w, "fabric reply without memory sizes");
}

static bool check_entity(struct worker *w, const void *data, size_t len,
			 struct object *o)
{
	const struct nlattr *tb[UBFAB_A_ENTITY_MAX + 1];
	const struct ubfab_entity_info *e;
	uint64_t mem = 0;
	const char *name;
	uint32_t v = 0;
	bool npu;

	if (!parse(w, data, len, tb, UBFAB_A_ENTITY_MAX) ||
	    !get_u32(w, tb[UBFAB_A_ENTITY_EID], "EID", &o->eid))
		return false;
	if (o->eid >= w->model->nr_entities)
		return fuzz_fail(w, "entity reply for EID %u", o->eid);
	e = &w->model->entities[o->eid];
	npu = e->kind == UBFAB_ENTITY_NPU;
	o->pos = o->eid;
	if (!get_str(w, tb[UBFAB_A_ENTITY_NAME], "name", &name))
		return false;
	if (strcmp(name, e->name))
		return fuzz_fail(w, "EID %u is not named %s", o->eid, e->name);
	if (!get_u32(w, tb[UBFAB_A_ENTITY_KIND], "kind", &v) ||
	    !same(w, "kind", v, e->kind) ||
	    !get_u32(w, tb[UBFAB_A_ENTITY_NODE], "node", &v) ||
	    !same(w, "node", v, e->node) ||
	    !get_u32(w, tb[UBFAB_A_ENTITY_PORTS], "ports", &v) ||
	    !same(w, "ports", v, e->ports))
		return false;
	if (!tb[UBFAB_A_ENTITY_MEM_SIZE] ||
	    !check_u64(w, tb[UBFAB_A_ENTITY_MEM_SIZE], &mem) ||
	    !same(w, "mem_size", mem, e->mem_size))
		return fuzz_fail(w, "entity %u: bad mem_size", o->eid);
	if (npu != !!tb[UBFAB_A_ENTITY_CHIP] || npu != !!tb[UBFAB_A_ENTITY_DIE] ||
	    npu == !!tb[UBFAB_A_ENTITY_SOCKET])
		return fuzz_fail(w, "entity %u: chip, die or socket out of place",
				 o->eid);
	if (npu)
		return get_u32(w, tb[UBFAB_A_ENTITY_CHIP], "chip", &v) &&
		       same(w, "chip", v, e->chip) &&
		       get_u32(w, tb[UBFAB_A_ENTITY_DIE], "die", &v) &&
		       same(w, "die", v, e->die);
	return get_u32(w, tb[UBFAB_A_ENTITY_SOCKET], "socket", &v) &&
	       same(w, "socket", v, e->socket);
}

static bool check_port(struct worker *w, const void *data, size_t len,
		       struct object *o)
{
	const struct nlattr *tb[UBFAB_A_PORT_MAX + 1];
	uint32_t state = 0;

	if (!parse(w, data, len, tb, UBFAB_A_PORT_MAX) ||
	    !get_u32(w, tb[UBFAB_A_PORT_EID], "EID", &o->eid) ||
	    !get_u32(w, tb[UBFAB_A_PORT_PLANE], "plane", &o->plane) ||
	    !get_u32(w, tb[UBFAB_A_PORT_STATE], "state", &state))
		return false;
	if (o->eid >= w->model->nr_entities ||
	    o->plane >= w->model->fabric.planes || state > UBFAB_STATE_UP)
		return fuzz_fail(w, "port %u/%u in state %u", o->eid, o->plane,
				 state);
	o->pos = (uint64_t)o->eid * w->model->fabric.planes + o->plane;
	return check_stats(w, tb[UBFAB_A_PORT_STATS]);
}

static bool check_plane(struct worker *w, const void *data, size_t len,
			struct object *o)
{
	const struct fuzz_model *m = w->model;
	const struct nlattr *tb[UBFAB_A_PLANE_MAX + 1];
	uint32_t state = 0, l1 = 0, l2 = 0, ports = 0, up = 0;

	if (!parse(w, data, len, tb, UBFAB_A_PLANE_MAX) ||
	    !get_u32(w, tb[UBFAB_A_PLANE_ID], "id", &o->plane) ||
	    !get_u32(w, tb[UBFAB_A_PLANE_STATE], "state", &state) ||
	    !get_u32(w, tb[UBFAB_A_PLANE_L1_SWITCHES], "l1", &l1) ||
	    !get_u32(w, tb[UBFAB_A_PLANE_L2_SWITCHES], "l2", &l2) ||
	    !get_u32(w, tb[UBFAB_A_PLANE_PORTS], "ports", &ports) ||
	    !get_u32(w, tb[UBFAB_A_PLANE_PORTS_UP], "ports up", &up))
		return false;
	if (o->plane >= m->fabric.planes || state > UBFAB_STATE_UP ||
	    up > ports)
		return fuzz_fail(w, "plane %u: state %u, %u of %u ports up",
				 o->plane, state, up, ports);
	o->pos = o->plane;
	return same(w, "L1 switches", l1, m->fabric.nodes) &&
	       same(w, "L2 switches", l2, m->fabric.l2_per_plane) &&
	       same(w, "plane ports", ports, m->nr_entities) &&
	       check_stats(w, tb[UBFAB_A_PLANE_STATS]);
}

static bool check_seg(struct worker *w, const void *data, size_t len,
		      struct object *o)
{
	const struct nlattr *tb[UBFAB_A_SEG_MAX + 1];
	uint64_t off = 0, length = 0, mem;
	uint32_t rights = 0, v = 0;

	if (!parse(w, data, len, tb, UBFAB_A_SEG_MAX) ||
	    !get_u32(w, tb[UBFAB_A_SEG_EID], "EID", &o->eid) ||
	    !get_u32(w, tb[UBFAB_A_SEG_TOKEN_ID], "token id", &o->plane) ||
	    !get_u32(w, tb[UBFAB_A_SEG_RIGHTS], "rights", &rights) ||
	    !get_u32(w, tb[UBFAB_A_SEG_IMPORTS], "imports", &v) ||
	    !get_u32(w, tb[UBFAB_A_SEG_PID], "pid", &v))
		return false;
	if (!tb[UBFAB_A_SEG_OFFSET] || !tb[UBFAB_A_SEG_LENGTH] ||
	    !check_u64(w, tb[UBFAB_A_SEG_OFFSET], &off) ||
	    !check_u64(w, tb[UBFAB_A_SEG_LENGTH], &length))
		return fuzz_fail(w, "segment without offset or length");
	if (o->eid >= w->model->nr_entities)
		return fuzz_fail(w, "segment of EID %u", o->eid);
	mem = w->model->entities[o->eid].mem_size;
	if (!o->plane || o->plane > UBFAB_TOKEN_ID_MAX || !rights ||
	    rights & ~UBFAB_SEG_RIGHTS || off % PAGE || !length ||
	    length % PAGE || off >= mem || length > mem - off)
		return fuzz_fail(w, "segment %u/%u: rights %#x, %#llx+%#llx",
				 o->eid, o->plane, rights,
				 (unsigned long long)off,
				 (unsigned long long)length);
	/* Dumped by entity, then token id. */
	o->pos = (uint64_t)o->eid << 32 | o->plane;
	return true;
}

static bool check_queue(struct worker *w, const void *data, size_t len,
			struct object *o)
{
	const struct nlattr *tb[UBFAB_A_QUEUE_MAX + 1];
	uint32_t flags = 0, sq = 0, cq = 0, v = 0;
	uint64_t v64 = 0;

	if (!parse(w, data, len, tb, UBFAB_A_QUEUE_MAX) ||
	    !get_u32(w, tb[UBFAB_A_QUEUE_EID], "EID", &o->eid) ||
	    !get_u32(w, tb[UBFAB_A_QUEUE_ID], "queue id", &o->plane) ||
	    !get_u32(w, tb[UBFAB_A_QUEUE_PID], "pid", &v) ||
	    !get_u32(w, tb[UBFAB_A_QUEUE_FLAGS], "flags", &flags) ||
	    !get_u32(w, tb[UBFAB_A_QUEUE_SQ_ENTRIES], "SQ entries", &sq) ||
	    !get_u32(w, tb[UBFAB_A_QUEUE_CQ_ENTRIES], "CQ entries", &cq))
		return false;
	if (!tb[UBFAB_A_QUEUE_CLOCK_NS] || !tb[UBFAB_A_QUEUE_ENTRIES] ||
	    !check_u64(w, tb[UBFAB_A_QUEUE_CLOCK_NS], &v64) ||
	    !check_u64(w, tb[UBFAB_A_QUEUE_ENTRIES], &v64))
		return fuzz_fail(w, "queue without clock or entries");
	if (o->eid >= w->model->nr_entities || flags & ~UBFAB_QUEUE_FLAGS ||
	    !sq || sq & (sq - 1) || sq > UBFAB_QUEUE_MAX_ENTRIES ||
	    !cq || cq & (cq - 1) || cq > UBFAB_QUEUE_MAX_CQ_ENTRIES)
		return fuzz_fail(w, "queue %u/%u: flags %#x, SQ %u, CQ %u",
				 o->eid, o->plane, flags, sq, cq);
	/* Dumped by entity, then number. */
	o->pos = (uint64_t)o->eid << 32 | o->plane;
	return true;
}

static bool check_jetty(struct worker *w, const void *data, size_t len,
			struct object *o)
{
	const struct nlattr *tb[UBFAB_A_JETTY_MAX + 1];
	uint32_t state = 0, v = 0;
	uint64_t v64 = 0;
	int i;

	if (!parse(w, data, len, tb, UBFAB_A_JETTY_MAX) ||
	    !get_u32(w, tb[UBFAB_A_JETTY_EID], "EID", &o->eid) ||
	    !get_u32(w, tb[UBFAB_A_JETTY_ID], "jetty id", &o->plane) ||
	    !get_u32(w, tb[UBFAB_A_JETTY_PID], "pid", &v) ||
	    !get_u32(w, tb[UBFAB_A_JETTY_SQ], "queue", &v) ||
	    !get_u32(w, tb[UBFAB_A_JETTY_RQ], "receive queue", &v) ||
	    !get_u32(w, tb[UBFAB_A_JETTY_STATE], "state", &state))
		return false;
	for (i = UBFAB_A_JETTY_SENDS; i <= UBFAB_A_JETTY_EVENTS; i++)
		if (!tb[i] || !check_u64(w, tb[i], &v64))
			return fuzz_fail(w, "jetty without counter %d", i);
	if (o->eid >= w->model->nr_entities || state > UBFAB_JETTY_ERROR)
		return fuzz_fail(w, "jetty %u/%u: state %u", o->eid, o->plane,
				 state);
	/* Dumped by entity, then number. */
	o->pos = (uint64_t)o->eid << 32 | o->plane;
	return true;
}

/* Links a link dump reports per plane: ports both ways, then L1-L2. */
static uint64_t links_per_plane(const struct fuzz_model *m)
{
	return 2 * (uint64_t)m->nr_entities +
	       2 * (uint64_t)m->fabric.nodes * m->fabric.l2_per_plane;
}

static bool check_link(struct worker *w, const void *data, size_t len,
		       struct object *o)
{
	const struct fuzz_model *m = w->model;
	const struct nlattr *tb[UBFAB_A_LINK_MAX + 1];
	uint32_t kind = 0, node = 0, l2 = 0;
	uint64_t busy = 0, v64 = 0;

	if (!parse(w, data, len, tb, UBFAB_A_LINK_MAX) ||
	    !get_u32(w, tb[UBFAB_A_LINK_PLANE], "plane", &o->plane) ||
	    !get_u32(w, tb[UBFAB_A_LINK_KIND], "kind", &kind))
		return false;
	if (!tb[UBFAB_A_LINK_BYTES] || !tb[UBFAB_A_LINK_BUSY_PS] ||
	    !tb[UBFAB_A_LINK_IDLE_PS] || !tb[UBFAB_A_LINK_END_PS] ||
	    !check_u64(w, tb[UBFAB_A_LINK_BYTES], &v64) ||
	    !check_u64(w, tb[UBFAB_A_LINK_BUSY_PS], &busy) ||
	    !check_u64(w, tb[UBFAB_A_LINK_IDLE_PS], &v64) ||
	    !check_u64(w, tb[UBFAB_A_LINK_END_PS], &v64))
		return fuzz_fail(w, "link without its counters");
	if (o->plane >= m->fabric.planes || kind > UBFAB_LINK_L2_DOWN)
		return fuzz_fail(w, "link of plane %u, kind %u", o->plane, kind);
	o->pos = o->plane * links_per_plane(m);
	if (kind <= UBFAB_LINK_PORT_RX) {
		if (tb[UBFAB_A_LINK_NODE] || tb[UBFAB_A_LINK_L2] ||
		    !get_u32(w, tb[UBFAB_A_LINK_EID], "EID", &o->eid))
			return fuzz_fail(w, "port link without its entity alone");
		if (o->eid >= m->nr_entities)
			return fuzz_fail(w, "port link of EID %u", o->eid);
		o->pos += 2 * o->eid + (kind == UBFAB_LINK_PORT_RX);
		return true;
	}
	if (tb[UBFAB_A_LINK_EID] ||
	    !get_u32(w, tb[UBFAB_A_LINK_NODE], "node", &node) ||
	    !get_u32(w, tb[UBFAB_A_LINK_L2], "L2", &l2))
		return fuzz_fail(w, "switch link without node and L2 alone");
	if (node >= m->fabric.nodes || l2 >= m->fabric.l2_per_plane)
		return fuzz_fail(w, "switch link of node %u, L2 %u", node, l2);
	o->eid = UINT32_MAX;
	o->pos += 2 * (uint64_t)m->nr_entities +
		  2 * ((uint64_t)node * m->fabric.l2_per_plane + l2) +
		  (kind == UBFAB_LINK_L2_DOWN);
	return true;
}

/*
 * The i-th parameter nest of a model reply: parameter i of the model as
 * loaded (the kernel's table: name, unit, range and default), its value
 * and default within its range; at_default gets whether the value is the
 * default.
 */
static bool check_param(struct worker *w, const struct nlattr *nest,
			size_t i, bool *at_default)
{
	const struct ubfab_model *m = w->model->params;
	const struct ubfab_model_param *p = &m->params[i];
	const struct nlattr *tb[UBFAB_A_PARAM_MAX + 1];
	uint64_t value = 0, min = 0, max = 0, def = 0;
	const char *name, *unit;

	if (i >= m->nparams)
		return fuzz_fail(w, "model reply with more than %zu parameters",
				 m->nparams);
	if (!(nest->nla_type & NLA_F_NESTED))
		return fuzz_fail(w, "model parameter %zu is not a nest", i);
	if (!parse_nest(w, nest, tb, UBFAB_A_PARAM_MAX) ||
	    !get_str(w, tb[UBFAB_A_PARAM_NAME], "parameter name", &name) ||
	    !get_str(w, tb[UBFAB_A_PARAM_UNIT], "parameter unit", &unit) ||
	    !get_u64(w, tb[UBFAB_A_PARAM_VALUE], "parameter value", &value) ||
	    !get_u64(w, tb[UBFAB_A_PARAM_MINIMUM], "parameter minimum", &min) ||
	    !get_u64(w, tb[UBFAB_A_PARAM_MAXIMUM], "parameter maximum", &max) ||
	    !get_u64(w, tb[UBFAB_A_PARAM_DEFAULT], "parameter default", &def))
		return false;
	if (strcmp(name, p->name) || strcmp(unit, p->unit))
		return fuzz_fail(w, "model parameter %zu is %s in %s, not %s in %s",
				 i, name, unit, p->name, p->unit);
	if (value < min || value > max || def < min || def > max)
		return fuzz_fail(w, "%s: value %llu, default %llu, range %llu..%llu",
				 name, (unsigned long long)value,
				 (unsigned long long)def,
				 (unsigned long long)min,
				 (unsigned long long)max);
	*at_default = value == def;
	return same(w, "minimum", min, p->minimum) &&
	       same(w, "maximum", max, p->maximum) &&
	       same(w, "default", def, p->default_value);
}

/*
 * A model reply: every parameter of the model as loaded, in order, and
 * the profile "cm384" exactly when each has its default value, else
 * "custom".
 */
static bool check_model(struct worker *w, const void *data, size_t len)
{
	const struct nlattr *tb[UBFAB_A_MODEL_MAX + 1];
	bool at_default = true, all_default = true;
	const struct nlattr *a;
	const char *profile;
	size_t rem, n = 0;

	if (!parse(w, data, len, tb, UBFAB_A_MODEL_MAX) ||
	    !get_str(w, tb[UBFAB_A_MODEL_PROFILE], "profile", &profile))
		return false;
	for_each_attr(a, data, len, rem) {
		if ((a->nla_type & NLA_TYPE_MASK) != UBFAB_A_MODEL_PARAM)
			continue;
		if (!check_param(w, a, n++, &at_default))
			return false;
		all_default &= at_default;
	}
	if (n != w->model->params->nparams)
		return fuzz_fail(w, "model reply with %zu parameters, not %zu",
				 n, w->model->params->nparams);
	if (strcmp(profile, all_default ? "cm384" : "custom"))
		return fuzz_fail(w, "model profile \"%s\" while %s", profile,
				 all_default ? "every parameter has its default" :
					       "a parameter differs from its default");
	return true;
}

/* Checks a reply's object; o gets what it names. */
static bool check_object(struct worker *w, uint8_t cmd, const void *data,
			 size_t len, struct object *o)
{
	switch (cmd) {
	case UBFAB_CMD_FABRIC_GET:
		o->pos = 0;
		return check_fabric(w, data, len);
	case UBFAB_CMD_ENTITY_GET:
		return check_entity(w, data, len, o);
	case UBFAB_CMD_PORT_GET:
		return check_port(w, data, len, o);
	case UBFAB_CMD_PLANE_GET:
		return check_plane(w, data, len, o);
	case UBFAB_CMD_SEG_GET:
		return check_seg(w, data, len, o);
	case UBFAB_CMD_QUEUE_GET:
		return check_queue(w, data, len, o);
	case UBFAB_CMD_JETTY_GET:
		return check_jetty(w, data, len, o);
	case UBFAB_CMD_LINK_GET:
		return check_link(w, data, len, o);
	case UBFAB_CMD_MODEL_GET:
		o->pos = 0;
		return check_model(w, data, len);
	default:
		return fuzz_fail(w, "reply with command %u", cmd);
	}
}

/*
 * Where a complete dump for this target starts and ends. Segments come and
 * go: their dump is only in order, not complete.
 */
static void dump_range(const struct fuzz_model *m, const struct nl_msgspec *ms,
		       uint64_t *first, uint64_t *end)
{
	*first = 0;
	switch (ms->cmd) {
	case UBFAB_CMD_ENTITY_GET:
		*end = m->nr_entities;
		break;
	case UBFAB_CMD_PORT_GET:
		*end = (uint64_t)m->nr_entities * m->fabric.planes;
		if (ms->target.eid != UINT32_MAX) {
			*first = (uint64_t)ms->target.eid * m->fabric.planes;
			*end = *first + m->fabric.planes;
		}
		break;
	case UBFAB_CMD_SEG_GET:
	case UBFAB_CMD_QUEUE_GET:
	case UBFAB_CMD_JETTY_GET:
		*end = (uint64_t)m->nr_entities << 32;
		if (ms->target.eid != UINT32_MAX) {
			*first = (uint64_t)ms->target.eid << 32;
			*end = *first + (1ULL << 32);
		}
		break;
	case UBFAB_CMD_LINK_GET:
		*end = m->fabric.planes * links_per_plane(m);
		if (ms->target.plane != UINT32_MAX) {
			*first = ms->target.plane * links_per_plane(m);
			*end = *first + links_per_plane(m);
		}
		break;
	default:
		*end = m->fabric.planes;
		break;
	}
}

/* Checks the extended-ack attributes after an error or done payload. */
static bool check_tlvs(struct worker *w, const struct nlmsghdr *nlh,
		       size_t off)
{
	const struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	const struct nlattr *msg;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return true;
	off = NLMSG_ALIGN(off);
	if (off > nlh->nlmsg_len)
		return fuzz_fail(w, "ack TLVs beyond the message");
	if (!parse(w, (const uint8_t *)nlh + off, nlh->nlmsg_len - off, tb,
		   NLMSGERR_ATTR_MAX))
		return false;
	msg = tb[NLMSGERR_ATTR_MSG];
	if (msg && (msg->nla_len == NLA_HDRLEN ||
		    ((const char *)msg)[msg->nla_len - 1] != '\0'))
		return fuzz_fail(w, "extended ack message not a string");
	return true;
}

/*
 * The errors the family documents, one set for every command (ENOENT and
 * ERANGE are MODEL_SET's: an unknown profile or parameter name, a value
 * out of range), and what the core adds: ERANGE is also the policy
 * validator's (lib/nlattr.c) for a NUL_STRING attribute, such as
 * UBFAB_A_ENTITY_NAME, that has its NUL within the policy's length but
 * more bytes after it than the length allows (6.1 and 6.12 alike).
 */
static bool documented(int err, bool dump)
{
	return err == 0 || err == EINVAL || err == ENODEV ||
	       err == EOPNOTSUPP || err == ENOENT || err == ERANGE ||
	       (dump && err == EBUSY);
}

/*
 * Checks one message from the kernel. t: the answer it belongs to (NULL:
 * anything goes, as long as it is well formed).
 */
static bool check_message(struct worker *w, const struct slot *s,
			  const struct nlmsghdr *nlh, struct track *t)
{
	const struct genlmsghdr *g = NLMSG_DATA(nlh);
	const struct nlmsgerr *e = NLMSG_DATA(nlh);
	size_t plen = nlh->nlmsg_len - NLMSG_HDRLEN;
	struct object o = { 0 };
	uint64_t first, end;
	int err;

	if (s->portid && nlh->nlmsg_pid != s->portid)
		return fuzz_fail(w, "message for port %u on port %u",
				 nlh->nlmsg_pid, s->portid);
	if (t && t->done)
		return fuzz_fail(w, "message of type %u after the answer to seq %u ended",
				 nlh->nlmsg_type, nlh->nlmsg_seq);
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		if (plen < sizeof(*e))
			return fuzz_fail(w, "error message of %zu bytes", plen);
		if (e->error > 0 || e->msg.nlmsg_seq != nlh->nlmsg_seq)
			return fuzz_fail(w, "error %d for seq %u in seq %u",
					 e->error, e->msg.nlmsg_seq,
					 nlh->nlmsg_seq);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED) &&
		    e->msg.nlmsg_len < NLMSG_HDRLEN)
			return fuzz_fail(w, "error echoes a %u-byte message",
					 e->msg.nlmsg_len);
		if (!check_tlvs(w, nlh, NLMSG_HDRLEN + sizeof(*e) +
				(nlh->nlmsg_flags & NLM_F_CAPPED ? 0 :
				 e->msg.nlmsg_len - NLMSG_HDRLEN)))
			return false;
		err = -e->error;
	} else if (nlh->nlmsg_type == NLMSG_DONE) {
		if (plen < sizeof(int))
			return fuzz_fail(w, "done message of %zu bytes", plen);
		if (t && !t->ms->dump)
			return fuzz_fail(w, "done message answering a do");
		if (!check_tlvs(w, nlh, NLMSG_HDRLEN + sizeof(int)))
			return false;
		err = -*(const int *)NLMSG_DATA(nlh);
	} else if (nlh->nlmsg_type == w->model->family) {
		if (plen < GENL_HDRLEN || g->version != UBFAB_GENL_VERSION ||
		    g->reserved)
			return fuzz_fail(w, "reply header: %zu bytes, version %u",
					 plen, g->version);
		if (!check_object(w, g->cmd, (const uint8_t *)g + GENL_HDRLEN,
				  plen - GENL_HDRLEN, &o))
			return false;
		if (!t)
			return true;
		if (g->cmd != t->ms->cmd ||
		    !(nlh->nlmsg_flags & NLM_F_MULTI) != !t->ms->dump)
			return fuzz_fail(w, "reply with command %u, flags %#x to command %u",
					 g->cmd, nlh->nlmsg_flags, t->ms->cmd);
		t->objects++;
		if (t->ms->dump) {
			/* In order, without repeats, from the filter on. */
			dump_range(w->model, t->ms, &first, &end);
			if (o.pos < t->next || o.pos < first || o.pos >= end ||
			    (t->ms->expect == NLX_OK && o.pos != t->next &&
			     t->ms->cmd != UBFAB_CMD_SEG_GET &&
			     t->ms->cmd != UBFAB_CMD_QUEUE_GET &&
			     t->ms->cmd != UBFAB_CMD_JETTY_GET))
				return fuzz_fail(w, "dump item at %llu, expected %llu",
						 (unsigned long long)o.pos,
						 (unsigned long long)t->next);
			t->next = o.pos + 1;
		} else if (t->ms->expect == NLX_OK &&
			   ((t->ms->target.eid != UINT32_MAX &&
			     o.eid != t->ms->target.eid) ||
			    (t->ms->target.plane != UINT32_MAX &&
			     o.plane != t->ms->target.plane))) {
			return fuzz_fail(w, "reply for %u/%u, asked for %u/%u",
					 o.eid, o.plane, t->ms->target.eid,
					 t->ms->target.plane);
		} else if (!t->ms->ack) {
			t->done = true;	/* the reply is the whole answer */
		}
		return true;
	} else {
		return fuzz_fail(w, "message of type %u", nlh->nlmsg_type);
	}
	if (!documented(err, t ? t->ms->dump : true))
		return fuzz_fail(w, "answer %s, not an error the family documents",
				 strerrorname_np(err));
	if (t) {
		t->done = true;
		t->err = err;
	}
	return true;
}

/*
 * Receives one datagram into buf: its length, 0 when nothing came (only
 * when nonblocking), or -1 after reporting a violation.
 */
static long receive(struct worker *w, const struct slot *s, uint8_t *buf,
		    bool nonblock)
{
	struct iovec iov = { buf, s->rcvlen };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	long n = recvmsg(s->fd, &msg, nonblock ? MSG_DONTWAIT : 0);

	if (n < 0 && errno == EAGAIN && nonblock)
		return 0;
	/*
	 * Readers in other processes: one may let the queue overflow; and
	 * when two race to continue a dump, the netlink core makes the one
	 * that finds it ended set the socket's error to EINVAL.
	 */
	if (n < 0 && (errno == ENOBUFS || errno == EINVAL) && s->shared)
		return 0;
	if (n < 0) {
		fuzz_fail(w, "recvmsg (%s socket): %s%s",
			  s->shared ? "shared" : "private",
			  strerrorname_np(errno),
			  errno == EAGAIN ? " (no answer in time)" : "");
		return -1;
	}
	if ((msg.msg_flags & MSG_TRUNC) && !s->shared) {
		fuzz_fail(w, "reply longer than the %zu-byte buffer", s->rcvlen);
		return -1;
	}
	return n;
}

/* The messages of a datagram, each checked; false at the first bad one. */
static bool check_datagram(struct worker *w, const struct slot *s,
			   const uint8_t *buf, size_t len, struct track *tr,
			   unsigned int ntr)
{
	const struct nlmsghdr *nlh = (const void *)buf;
	struct track *t;
	unsigned int i;

	while (len >= NLMSG_HDRLEN) {
		if (nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len > len)
			return fuzz_fail(w, "message of length %u in %zu bytes",
					 nlh->nlmsg_len, len);
		for (t = NULL, i = 0; i < ntr; i++) {
			if (tr[i].ms->seq == nlh->nlmsg_seq)
				t = &tr[i];
		}
		if (!t && ntr && !s->stale)
			return fuzz_fail(w, "message for seq %u answers no request",
					 nlh->nlmsg_seq);
		if (!check_message(w, s, nlh, t))
			return false;
		len -= NLMSG_ALIGN(nlh->nlmsg_len) < len ?
		       NLMSG_ALIGN(nlh->nlmsg_len) : len;
		nlh = (const void *)((const uint8_t *)nlh +
				     NLMSG_ALIGN(nlh->nlmsg_len));
	}
	if (len)
		return fuzz_fail(w, "%zu bytes after the last message", len);
	return true;
}

/* ------------------------------------------------------------------ */
/* Running */

static uint8_t rbuf[65536];

static void nl_exec_open(struct worker *w, const struct op *op)
{
	static const size_t rcvlens[] = { 8192, 16384, sizeof(rbuf) };
	struct slot *s = &w->slots[op->slot];
	struct timeval tv = { .tv_sec = NL_TIMEOUT };
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	socklen_t salen = sizeof(sa);
	int fd, one = 1;

	slot_clear(s);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0) {
		fuzz_fail(w, "netlink socket: %s", strerrorname_np(errno));
		return;
	}
	if ((op->a[0] & 1 && setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one,
					sizeof(one))) ||
	    (op->a[0] & 2 && setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK,
					&one, sizeof(one))) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockname(fd, (struct sockaddr *)&sa, &salen)) {
		fuzz_fail(w, "netlink socket set-up: %s",
			  strerrorname_np(errno));
		close(fd);
		return;
	}
	fuzz_count(w, 0);
	s->fd = fd;
	s->kind = SLOT_NL;
	s->portid = sa.nl_pid;
	s->rcvlen = rcvlens[op->a[1] % ARRAY_SIZE(rcvlens)];
}

/* Sends a request's bytes with the family's id in place of NL_FAMILY. */
static long send_request(struct worker *w, const struct slot *s,
			 const struct nl_request *req, int flags)
{
	uint8_t buf[NL_REQ_MAX];
	unsigned int i;

	memcpy(buf, req->buf, req->len);
	for (i = 0; i < req->nfamily; i++)
		((struct nlmsghdr *)(buf + req->family_at[i]))->nlmsg_type =
			w->model->family;
	return send(s->fd, buf, req->len, flags);
}

/* Sends a request; a shared socket then only gets what is there checked. */
static void request_shared(struct worker *w, const struct slot *s,
			   const struct nl_request *req)
{
	long n;
	int i;

	if (send_request(w, s, req, MSG_DONTWAIT) < 0) {
		fuzz_fail(w, "send: %s", strerrorname_np(errno));
		return;
	}
	fuzz_count(w, 0);
	for (i = 0; i < 16; i++) {
		n = receive(w, s, rbuf, true);
		if (n <= 0 || !check_datagram(w, s, rbuf, n, NULL, 0))
			return;
	}
}

/* What the answer to ms must have been, once it is all in. */
static bool check_answer(struct worker *w, const struct track *t,
			 bool abandoned)
{
	const struct nl_msgspec *ms = t->ms;
	uint64_t first, end;

	if (ms->expect == NLX_NONE) {
		if (t->done || t->objects)
			return fuzz_fail(w, "seq %u (%s) got an answer; none was due",
					 ms->seq, ms->what);
		return true;
	}
	/* A do that has no reply and succeeds says nothing without an ack. */
	if (!t->done)
		return (abandoned && ms->dump) ||
		       (ms->expect == NLX_ANY && !ms->ack && !ms->dump) ||
		       fuzz_fail(w, "seq %u (%s): no answer", ms->seq,
				 ms->what);
	if (t->err == EBUSY && t->busy_ok)
		return true;
	if (t->err && t->objects && !ms->dump)
		return fuzz_fail(w, "seq %u: error %s after a reply", ms->seq,
				 strerrorname_np(t->err));
	switch (ms->expect) {
	case NLX_OK:
		if (t->err)
			return fuzz_fail(w, "seq %u (%s): %s, expected success",
					 ms->seq, ms->what,
					 strerrorname_np(t->err));
		if (!ms->dump && t->objects != do_replies(ms->cmd))
			return fuzz_fail(w, "seq %u: %u replies to a do",
					 ms->seq, t->objects);
		dump_range(w->model, ms, &first, &end);
		/*
		 * all of a dump but of segments, queues and jetties, which
		 * come and go
		 */
		if (ms->dump && t->next != end && ms->cmd != UBFAB_CMD_SEG_GET &&
		    ms->cmd != UBFAB_CMD_QUEUE_GET &&
		    ms->cmd != UBFAB_CMD_JETTY_GET)
			return fuzz_fail(w, "seq %u: dump ended at %llu of %llu",
					 ms->seq, (unsigned long long)t->next,
					 (unsigned long long)end);
		return true;
	case NLX_ERR:
		if (t->err != ms->err || (t->objects && !ms->dump))
			return fuzz_fail(w, "seq %u (%s): %s with %u replies, expected %s",
					 ms->seq, ms->what,
					 strerrorname_np(t->err), t->objects,
					 ms->err ? strerrorname_np(ms->err) :
						   "an ack");
		return true;
	default:
		return true;	/* each message was checked as it came */
	}
}

static void nl_exec_request(struct worker *w, const struct op *op)
{
	const struct nl_request *req = NL_REQUEST(op);
	struct slot *s = &w->slots[op->slot];
	struct track tr[NL_MSGS_MAX + 1] = { 0 };
	struct nl_msgspec sentinel = {
		.seq = req->seq_base + NL_SENTINEL,
		.cmd = UBFAB_CMD_FABRIC_GET, .request = true, .ack = true,
		.expect = NLX_OK, .what = "sentinel",
		.target = { UINT32_MAX, UINT32_MAX },
	};
	uint8_t sbuf[64];
	struct mbuild b = { sbuf, 0, sizeof(sbuf), NULL };
	bool dumping = s->stale, waiting;
	unsigned int i, n = req->n;
	uint64_t end;
	long len;

	if (s->kind != SLOT_NL) {
		fuzz_count(w, EBADF);
		return;
	}
	if (s->shared)
		return request_shared(w, s, req);
	for (i = 0; i < n; i++) {
		tr[i].ms = &req->msg[i];
		tr[i].busy_ok = dumping && req->msg[i].dump;
		dumping |= req->msg[i].dump;
		if (req->msg[i].dump)
			dump_range(w->model, tr[i].ms, &tr[i].next, &end);
	}
	tr[n].ms = &sentinel;
	msg_end(&b, msg_start(&b, w->model->family, NLM_F_REQUEST | NLM_F_ACK,
			      sentinel.seq, UBFAB_CMD_FABRIC_GET,
			      UBFAB_GENL_VERSION, 0));
	if (send_request(w, s, req, 0) != (long)req->len ||
	    send(s->fd, sbuf, b.len, 0) != (long)b.len) {
		fuzz_fail(w, "send: %s", strerrorname_np(errno));
		return;
	}
	/* Everything up to the sentinel's ack; dumps to their end. */
	do {
		len = receive(w, s, rbuf, false);
		if (len < 0 || !check_datagram(w, s, rbuf, len, tr, n + 1))
			return;
		waiting = !tr[n].done;
		for (i = 0; i < n && !req->abandon; i++)
			waiting |= tr[i].ms->dump && !tr[i].done &&
				   tr[i].ms->expect != NLX_NONE;
	} while (waiting);
	for (i = 0; i <= n; i++) {
		if (!check_answer(w, &tr[i], req->abandon))
			return;
		if (i < n && tr[i].ms->dump && !tr[i].done)
			s->stale = true;	/* left running */
	}
	fuzz_count(w, 0);
}

/* Reads whatever waits on a socket: only a dump left running may. */
static void nl_exec_drain(struct worker *w, const struct op *op)
{
	struct slot *s = &w->slots[op->slot];
	long n;
	int i;

	if (s->kind != SLOT_NL) {
		fuzz_count(w, EBADF);
		return;
	}
	fuzz_count(w, 0);
	for (i = 0; i < 16; i++) {
		n = receive(w, s, rbuf, true);
		if (n <= 0)
			return;
		if (!s->stale && !s->shared) {
			fuzz_fail(w, "%ld bytes came unasked", n);
			return;
		}
		if (!check_datagram(w, s, rbuf, n, NULL, 0))
			return;
	}
}

static const struct fuzz_op_type nl_ops[] = {
	FUZZ_OP("nl-open", 3, nl_gen_open, nl_exec_open),
	{ "nl-request", 14, nl_gen_request, nl_exec_request, nl_describe },
	FUZZ_OP("nl-drain", 1, NULL, nl_exec_drain),
};

const struct fuzz_family fuzz_nl_family = {
	.name = "netlink",
	.ops = nl_ops,
	.nr_ops = ARRAY_SIZE(nl_ops),
	.sockets = true,
};
