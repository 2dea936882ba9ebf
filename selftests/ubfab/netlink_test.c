// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab netlink family against hostile requests: missing, malformed,
 * oversized and unexpected attributes, unknown commands and reserved header
 * bits each get a clean errno, and the family keeps answering afterwards.
 * Requests are built by hand with libnl so that the library's own checks
 * are out of the way.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "kselftest_harness.h"
#include "libubfab.h"
#include "ubfab_test.h"

FIXTURE(raw) {
	struct nl_sock *sk;
	int family;
};

FIXTURE_SETUP(raw)
{
	ASSERT_EQ(0, ubfab_reload(""));
	self->sk = nl_socket_alloc();
	ASSERT_NE(NULL, self->sk);
	ASSERT_EQ(0, genl_connect(self->sk));
	self->family = genl_ctrl_resolve(self->sk, UBFAB_GENL_NAME);
	ASSERT_LT(0, self->family);
}

FIXTURE_TEARDOWN(raw)
{
	nl_socket_free(self->sk);
	ubfab_unload();
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *err, void *arg)
{
	*(int *)arg = err->error;
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	*(int *)arg = 0;
	return NL_STOP;
}

/* A dump ends with NLMSG_DONE, whose payload is the dump's error or 0. */
static int on_finish(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);

	*(int *)arg = nlmsg_datalen(nlh) >= (int)sizeof(int) ?
		      *(int *)nlmsg_data(nlh) : 0;
	return NL_STOP;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	return NL_OK;
}

/*
 * Send msg, hand each reply to @valid with @arg, and return the kernel's
 * errno for it: 0 for replies plus ack (or a dump's end), else the
 * negative error from the NLMSG_ERROR message.
 */
static int transact_cb(struct nl_sock *sk, struct nl_msg *msg,
		       nl_recvmsg_msg_cb_t valid, void *arg)
{
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int result = 1, ret;

	if (!cb)
		return -ENOMEM;
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &result);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &result);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &result);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, valid, arg);
	ret = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	while (ret >= 0 && result == 1)
		ret = nl_recvmsgs(sk, cb);
	nl_cb_put(cb);
	/* libnl fails nl_recvmsgs() on an error message; result has it. */
	return result == 1 ? -EIO : result;
}

/* transact_cb() for requests whose replies do not matter. */
static int transact(struct nl_sock *sk, struct nl_msg *msg)
{
	return transact_cb(sk, msg, on_valid, NULL);
}

static struct nl_msg *request(int family, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg)
		genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0,
			    flags | NLM_F_ACK, cmd, UBFAB_GENL_VERSION);
	return msg;
}

TEST_F(raw, well_formed_requests_succeed)
{
	struct nl_msg *msg;

	msg = request(self->family, UBFAB_CMD_FABRIC_GET, 0);
	EXPECT_EQ(0, transact(self->sk, msg));
	msg = request(self->family, UBFAB_CMD_ENTITY_GET, 0);
	nla_put_u32(msg, UBFAB_A_ENTITY_EID, 0);
	EXPECT_EQ(0, transact(self->sk, msg));
	msg = request(self->family, UBFAB_CMD_ENTITY_GET, 0);
	nla_put_string(msg, UBFAB_A_ENTITY_NAME, "cpu0");
	EXPECT_EQ(0, transact(self->sk, msg));
	msg = request(self->family, UBFAB_CMD_PLANE_GET, NLM_F_DUMP);
	EXPECT_EQ(0, transact(self->sk, msg));
}

TEST_F(raw, missing_attributes)
{
	struct nl_msg *msg;

	msg = request(self->family, UBFAB_CMD_ENTITY_GET, 0);
	EXPECT_EQ(-EINVAL, transact(self->sk, msg));
	msg = request(self->family, UBFAB_CMD_PORT_GET, 0);
	nla_put_u32(msg, UBFAB_A_PORT_EID, 0);
	EXPECT_EQ(-EINVAL, transact(self->sk, msg));
	msg = request(self->family, UBFAB_CMD_PORT_GET, 0);
	nla_put_u32(msg, UBFAB_A_PORT_PLANE, 0);
	EXPECT_EQ(-EINVAL, transact(self->sk, msg));
	msg = request(self->family, UBFAB_CMD_PLANE_GET, 0);
	EXPECT_EQ(-EINVAL, transact(self->sk, msg));
}

TEST_F(raw, malformed_attributes)
{
	char long_name[UBFAB_NAME_MAX + 1];
	struct nl_msg *msg;

	/* A u32 attribute two bytes long. */
	msg = request(self->family, UBFAB_CMD_ENTITY_GET, 0);
	nla_put_u16(msg, UBFAB_A_ENTITY_EID, 0);
	EXPECT_EQ(-EINVAL, transact(self->sk, msg));

	/* A name as long as the buffer, with no room for its NUL. */
	memset(long_name, 'n', sizeof(long_name));
	long_name[UBFAB_NAME_MAX] = '\0';
	msg = request(self->family, UBFAB_CMD_ENTITY_GET, 0);
	nla_put_string(msg, UBFAB_A_ENTITY_NAME, long_name);
	EXPECT_EQ(-EINVAL, transact(self->sk, msg));

	/* A name with no NUL at all. */
	msg = request(self->family, UBFAB_CMD_ENTITY_GET, 0);
	nla_put(msg, UBFAB_A_ENTITY_NAME, 4, "npu0");
	EXPECT_EQ(-EINVAL, transact(self->sk, msg));

	/* An attribute the command does not know. */
	msg = request(self->family, UBFAB_CMD_PLANE_GET, 0);
	nla_put_u32(msg, UBFAB_A_PLANE_ID, 0);
	nla_put_u32(msg, UBFAB_A_PLANE_MAX + 1, 0);
	EXPECT_EQ(-EINVAL, transact(self->sk, msg));

	/* FABRIC_GET takes no attributes at all. */
	msg = request(self->family, UBFAB_CMD_FABRIC_GET, 0);
	nla_put_u32(msg, UBFAB_A_FABRIC_NODES, 1);
	EXPECT_EQ(-EINVAL, transact(self->sk, msg));
}

TEST_F(raw, out_of_range_identifiers)
{
	struct nl_msg *msg;

	msg = request(self->family, UBFAB_CMD_ENTITY_GET, 0);
	nla_put_u32(msg, UBFAB_A_ENTITY_EID, UINT32_MAX);
	EXPECT_EQ(-ENODEV, transact(self->sk, msg));
	msg = request(self->family, UBFAB_CMD_PORT_GET, 0);
	nla_put_u32(msg, UBFAB_A_PORT_EID, 0);
	nla_put_u32(msg, UBFAB_A_PORT_PLANE, UINT32_MAX);
	EXPECT_EQ(-ENODEV, transact(self->sk, msg));
	msg = request(self->family, UBFAB_CMD_PORT_GET, NLM_F_DUMP);
	nla_put_u32(msg, UBFAB_A_PORT_EID, 1000000);
	EXPECT_EQ(-ENODEV, transact(self->sk, msg));
	msg = request(self->family, UBFAB_CMD_PLANE_GET, 0);
	nla_put_u32(msg, UBFAB_A_PLANE_ID, 7);
	EXPECT_EQ(-ENODEV, transact(self->sk, msg));
}

TEST_F(raw, unknown_command)
{
	struct nl_msg *msg;

	msg = request(self->family, UBFAB_CMD_MAX + 1, 0);
	EXPECT_EQ(-EOPNOTSUPP, transact(self->sk, msg));
	msg = request(self->family, 0, 0);
	EXPECT_EQ(-EOPNOTSUPP, transact(self->sk, msg));
}

TEST_F(raw, reserved_header_bits)
{
	struct genlmsghdr *hdr;
	struct nl_msg *msg;

	msg = request(self->family, UBFAB_CMD_FABRIC_GET, 0);
	hdr = nlmsg_data(nlmsg_hdr(msg));
	hdr->reserved = 1;
	EXPECT_EQ(-EINVAL, transact(self->sk, msg));
}

struct seg_seen {
	int count;
	uint32_t eid[4], token_id[4], rights[4], imports[4], pid[4];
	uint64_t offset[4], length[4];
};

static int on_seg(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[UBFAB_A_SEG_MAX + 1];
	struct seg_seen *seen = arg;
	int i = seen->count++;

	if (i >= 4 || genlmsg_parse(nlmsg_hdr(msg), 0, tb, UBFAB_A_SEG_MAX,
				    NULL))
		return NL_SKIP;
	seen->eid[i] = nla_get_u32(tb[UBFAB_A_SEG_EID]);
	seen->token_id[i] = nla_get_u32(tb[UBFAB_A_SEG_TOKEN_ID]);
	seen->offset[i] = nla_get_u64(tb[UBFAB_A_SEG_OFFSET]);
	seen->length[i] = nla_get_u64(tb[UBFAB_A_SEG_LENGTH]);
	seen->rights[i] = nla_get_u32(tb[UBFAB_A_SEG_RIGHTS]);
	seen->imports[i] = nla_get_u32(tb[UBFAB_A_SEG_IMPORTS]);
	seen->pid[i] = nla_get_u32(tb[UBFAB_A_SEG_PID]);
	return NL_OK;
}

static int seg_dump(struct nl_sock *sk, int family, int64_t eid,
		    struct seg_seen *seen)
{
	struct nl_msg *msg = request(family, UBFAB_CMD_SEG_GET, NLM_F_DUMP);

	memset(seen, 0, sizeof(*seen));
	if (eid >= 0)
		nla_put_u32(msg, UBFAB_A_SEG_EID, eid);
	return transact_cb(sk, msg, on_seg, seen);
}

/* Segments are listed with their owner, range, rights and importers. */
TEST_F(raw, seg_dump)
{
	struct ubfab_mem_alloc a = { .size = sizeof(a), .length = 8 << 12 };
	struct ubfab_seg_export e = { .size = sizeof(e) };
	struct ubfab_seg_import imp = { .size = sizeof(imp) };
	struct seg_seen seen;
	int fd0, fd1;

	fd0 = open("/dev/ubfab/npu0", O_RDWR);
	ASSERT_LE(0, fd0);
	fd1 = open("/dev/ubfab/npu3", O_RDWR);
	ASSERT_LE(0, fd1);
	ASSERT_EQ(0, seg_dump(self->sk, self->family, -1, &seen));
	EXPECT_EQ(0, seen.count);

	ASSERT_EQ(0, ioctl(fd0, UBFAB_IOCTL_MEM_ALLOC, &a));
	e.rights = UBFAB_SEG_READ | UBFAB_SEG_ATOMIC;
	e.offset = a.offset + 4096;
	e.length = 2 * 4096;
	e.token_value = 0xdead;
	ASSERT_EQ(0, ioctl(fd0, UBFAB_IOCTL_SEG_EXPORT, &e));
	imp.rights = UBFAB_SEG_READ;
	imp.eid = 0;
	imp.token_id = e.token_id;
	imp.token_value = 0xdead;
	ASSERT_EQ(0, ioctl(fd1, UBFAB_IOCTL_SEG_IMPORT, &imp));
	ASSERT_EQ(0, ioctl(fd1, UBFAB_IOCTL_MEM_ALLOC, &a));
	e.offset = a.offset;
	e.rights = UBFAB_SEG_WRITE;
	ASSERT_EQ(0, ioctl(fd1, UBFAB_IOCTL_SEG_EXPORT, &e));

	ASSERT_EQ(0, seg_dump(self->sk, self->family, -1, &seen));
	ASSERT_EQ(2, seen.count);
	EXPECT_EQ(0, seen.eid[0]);
	EXPECT_EQ(4096, seen.offset[0]);
	EXPECT_EQ(2 * 4096, seen.length[0]);
	EXPECT_EQ(UBFAB_SEG_READ | UBFAB_SEG_ATOMIC, seen.rights[0]);
	EXPECT_EQ(1, seen.imports[0]);
	EXPECT_EQ(getpid(), seen.pid[0]);
	EXPECT_EQ(3, seen.eid[1]);
	EXPECT_EQ(e.token_id, seen.token_id[1]);
	EXPECT_EQ(UBFAB_SEG_WRITE, seen.rights[1]);
	EXPECT_EQ(0, seen.imports[1]);

	/* Filtered by entity; an unknown one is an error. */
	ASSERT_EQ(0, seg_dump(self->sk, self->family, 3, &seen));
	EXPECT_EQ(1, seen.count);
	EXPECT_EQ(3, seen.eid[0]);
	EXPECT_EQ(-ENODEV, seg_dump(self->sk, self->family, 100000, &seen));

	/* Gone with the file that exported them. */
	close(fd0);
	close(fd1);
	ASSERT_EQ(0, seg_dump(self->sk, self->family, -1, &seen));
	EXPECT_EQ(0, seen.count);
}

/* What a model-get reply says: the profile and the values of two names. */
struct model_seen {
	const char *names[2];
	char profile[UBFAB_NAME_MAX];
	uint64_t value[2];
	int params;
	int bad;	/* a nest without its name, value, unit or range */
};

static int on_model(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[UBFAB_A_MODEL_MAX + 1], *pb[UBFAB_A_PARAM_MAX + 1];
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct model_seen *seen = arg;
	struct nlattr *attr;
	int rem, i;

	if (genlmsg_parse(nlh, 0, tb, UBFAB_A_MODEL_MAX, NULL) ||
	    !tb[UBFAB_A_MODEL_PROFILE])
		return NL_SKIP;
	snprintf(seen->profile, sizeof(seen->profile), "%s",
		 nla_get_string(tb[UBFAB_A_MODEL_PROFILE]));
	nlmsg_for_each_attr(attr, nlh, GENL_HDRLEN, rem) {
		if (nla_type(attr) != UBFAB_A_MODEL_PARAM)
			continue;
		seen->params++;
		if (nla_parse_nested(pb, UBFAB_A_PARAM_MAX, attr, NULL) ||
		    !pb[UBFAB_A_PARAM_NAME] || !pb[UBFAB_A_PARAM_VALUE] ||
		    !pb[UBFAB_A_PARAM_UNIT] || !pb[UBFAB_A_PARAM_MINIMUM] ||
		    !pb[UBFAB_A_PARAM_MAXIMUM] || !pb[UBFAB_A_PARAM_DEFAULT]) {
			seen->bad++;
			continue;
		}
		for (i = 0; i < 2; i++)
			if (!strcmp(seen->names[i],
				    nla_get_string(pb[UBFAB_A_PARAM_NAME])))
				seen->value[i] =
					nla_get_u64(pb[UBFAB_A_PARAM_VALUE]);
	}
	return NL_OK;
}

/* model-get, into @seen, for @a and @b. */
static int model_get(struct nl_sock *sk, int family, const char *a,
		     const char *b, struct model_seen *seen)
{
	memset(seen, 0, sizeof(*seen));
	seen->names[0] = a;
	seen->names[1] = b;
	return transact_cb(sk, request(family, UBFAB_CMD_MODEL_GET, 0),
			   on_model, seen);
}

/* Add a param nest naming @name with @value to @msg. */
static void put_param(struct nl_msg *msg, const char *name, uint64_t value)
{
	struct nlattr *nest = nla_nest_start(msg, UBFAB_A_MODEL_PARAM);

	nla_put_string(msg, UBFAB_A_PARAM_NAME, name);
	nla_put_u64(msg, UBFAB_A_PARAM_VALUE, value);
	nla_nest_end(msg, nest);
}

/* model-set of hop-ps, which is good, then of @name to @value. */
static int set_after_good(FIXTURE_DATA(raw) *self, const char *name,
			  uint64_t value)
{
	struct nl_msg *msg = request(self->family, UBFAB_CMD_MODEL_SET, 0);

	put_param(msg, "hop-ps", 1);
	put_param(msg, name, value);
	return transact(self->sk, msg);
}

/*
 * model-set is all or nothing: an unknown name or profile, a value out of
 * range or a malformed nest anywhere in a request changes nothing.
 */
TEST_F(raw, model_set)
{
	struct model_seen seen;
	struct nl_msg *msg;
	struct nlattr *nest;

	ASSERT_EQ(0, model_get(self->sk, self->family, "hop-ps",
			       "eff-read-cpu-permille", &seen));
	EXPECT_STREQ("cm384", seen.profile);
	EXPECT_EQ(27, seen.params);
	EXPECT_EQ(0, seen.bad);
	EXPECT_EQ(187500, seen.value[0]);
	EXPECT_EQ(770, seen.value[1]);

	msg = request(self->family, UBFAB_CMD_MODEL_SET, 0);
	put_param(msg, "hop-ps", 100000);
	put_param(msg, "eff-read-cpu-permille", 1000);
	EXPECT_EQ(0, transact(self->sk, msg));
	ASSERT_EQ(0, model_get(self->sk, self->family, "hop-ps",
			       "eff-read-cpu-permille", &seen));
	EXPECT_STREQ("custom", seen.profile);
	EXPECT_EQ(100000, seen.value[0]);
	EXPECT_EQ(1000, seen.value[1]);

	/* each bad request with a good parameter before the bad one */
	EXPECT_EQ(-ENOENT, set_after_good(self, "no-such-ps", 1));
	EXPECT_EQ(-ERANGE, set_after_good(self, "eff-read-cpu-permille",
					  1001));
	EXPECT_EQ(-ERANGE, set_after_good(self, "link-mbps", 0));
	EXPECT_EQ(-ERANGE, set_after_good(self, "node-hops", 16));
	EXPECT_EQ(-ERANGE, set_after_good(self, "hop-ps", 1000000000001));
	msg = request(self->family, UBFAB_CMD_MODEL_SET, 0);
	put_param(msg, "hop-ps", 1);
	nla_put_string(msg, UBFAB_A_MODEL_PROFILE, "cm385");
	EXPECT_EQ(-ENOENT, transact(self->sk, msg));
	/* a nest without its value, then one with a u32 for a u64 */
	msg = request(self->family, UBFAB_CMD_MODEL_SET, 0);
	put_param(msg, "hop-ps", 1);
	nest = nla_nest_start(msg, UBFAB_A_MODEL_PARAM);
	nla_put_string(msg, UBFAB_A_PARAM_NAME, "die-ps");
	nla_nest_end(msg, nest);
	EXPECT_EQ(-EINVAL, transact(self->sk, msg));
	msg = request(self->family, UBFAB_CMD_MODEL_SET, 0);
	put_param(msg, "hop-ps", 1);
	nest = nla_nest_start(msg, UBFAB_A_MODEL_PARAM);
	nla_put_string(msg, UBFAB_A_PARAM_NAME, "die-ps");
	nla_put_u32(msg, UBFAB_A_PARAM_VALUE, 1);
	nla_nest_end(msg, nest);
	EXPECT_EQ(-EINVAL, transact(self->sk, msg));
	ASSERT_EQ(0, model_get(self->sk, self->family, "hop-ps",
			       "eff-read-cpu-permille", &seen));
	EXPECT_EQ(100000, seen.value[0]);
	EXPECT_EQ(1000, seen.value[1]);

	/* the profile puts back every value, then the params apply */
	msg = request(self->family, UBFAB_CMD_MODEL_SET, 0);
	nla_put_string(msg, UBFAB_A_MODEL_PROFILE, "cm384");
	put_param(msg, "eff-read-cpu-permille", 1);
	EXPECT_EQ(0, transact(self->sk, msg));
	ASSERT_EQ(0, model_get(self->sk, self->family, "hop-ps",
			       "eff-read-cpu-permille", &seen));
	EXPECT_STREQ("custom", seen.profile);
	EXPECT_EQ(187500, seen.value[0]);
	EXPECT_EQ(1, seen.value[1]);
	msg = request(self->family, UBFAB_CMD_MODEL_SET, 0);
	nla_put_string(msg, UBFAB_A_MODEL_PROFILE, "cm384");
	EXPECT_EQ(0, transact(self->sk, msg));
	ASSERT_EQ(0, model_get(self->sk, self->family, "hop-ps",
			       "eff-read-cpu-permille", &seen));
	EXPECT_STREQ("cm384", seen.profile);
	EXPECT_EQ(770, seen.value[1]);
}

/*
 * port-set of @eid's ports into every plane: each knob >= 0 is set
 * (bw-permille, delay-ps, error-ppm). The first error, or 0.
 */
static int set_knobs(FIXTURE_DATA(raw) *self, uint32_t eid, int64_t bw,
		     int64_t delay, int64_t err)
{
	struct nl_msg *msg;
	int plane, ret;

	for (plane = 0; plane < 7; plane++) {
		msg = request(self->family, UBFAB_CMD_PORT_SET, 0);
		nla_put_u32(msg, UBFAB_A_PORT_EID, eid);
		nla_put_u32(msg, UBFAB_A_PORT_PLANE, plane);
		if (bw >= 0)
			nla_put_u32(msg, UBFAB_A_PORT_BW_PERMILLE, bw);
		if (delay >= 0)
			nla_put_u64(msg, UBFAB_A_PORT_DELAY_PS, delay);
		if (err >= 0)
			nla_put_u32(msg, UBFAB_A_PORT_ERROR_PPM, err);
		ret = transact(self->sk, msg);
		if (ret)
			return ret;
	}
	return 0;
}

struct port_seen {
	uint32_t state, bw, err;
	uint64_t delay;
	int count;
};

static int on_port(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[UBFAB_A_PORT_MAX + 1];
	struct port_seen *seen = arg;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, UBFAB_A_PORT_MAX, NULL) ||
	    !tb[UBFAB_A_PORT_STATE] || !tb[UBFAB_A_PORT_BW_PERMILLE] ||
	    !tb[UBFAB_A_PORT_DELAY_PS] || !tb[UBFAB_A_PORT_ERROR_PPM])
		return NL_SKIP;
	seen->state = nla_get_u32(tb[UBFAB_A_PORT_STATE]);
	seen->bw = nla_get_u32(tb[UBFAB_A_PORT_BW_PERMILLE]);
	seen->delay = nla_get_u64(tb[UBFAB_A_PORT_DELAY_PS]);
	seen->err = nla_get_u32(tb[UBFAB_A_PORT_ERROR_PPM]);
	seen->count++;
	return NL_OK;
}

/* port-get of @eid's port into plane 3. */
static int port_get(FIXTURE_DATA(raw) *self, uint32_t eid,
		    struct port_seen *seen)
{
	struct nl_msg *msg = request(self->family, UBFAB_CMD_PORT_GET, 0);

	memset(seen, 0, sizeof(*seen));
	nla_put_u32(msg, UBFAB_A_PORT_EID, eid);
	nla_put_u32(msg, UBFAB_A_PORT_PLANE, 3);
	return transact_cb(self->sk, msg, on_port, seen);
}

/* The modeled cost in ns of one WRITE of @len bytes on @q to @rem. */
static uint64_t write_cost(struct __test_metadata *_metadata,
			   struct ubfab_queue *q, uint64_t loc, uint64_t rem,
			   uint32_t len)
{
	struct ubfab_cqe *cqe;
	uint64_t before;

	EXPECT_EQ(0, ubfab_queue_clock(q, 0, &before));
	ubfab_prep_write(ubfab_queue_get_sqe(q), loc, rem, len);
	EXPECT_LE(0, ubfab_queue_submit(q));
	EXPECT_EQ(0, ubfab_queue_wait_cqe(q, &cqe, 10000));
	EXPECT_EQ(UBFAB_CQE_OK, cqe->status);
	before = cqe->model_ns - before;
	ubfab_queue_cqe_seen(q);
	return before;
}

/*
 * A port's fault knobs: reported, checked all or nothing, and priced by
 * the model: a slower link, an added latency, a link error that retries.
 */
TEST_F(raw, port_knobs)
{
	uint64_t loc, off, small, big, rem;
	struct ubfab_dev *npu0, *npu2;
	struct ubfab_import imp;
	struct port_seen seen;
	struct ubfab_queue *q;
	struct nl_msg *msg;
	uint32_t tid;

	ASSERT_EQ(0, port_get(self, 2, &seen));
	EXPECT_EQ(1, seen.count);
	EXPECT_EQ(UBFAB_STATE_UP, seen.state);
	EXPECT_EQ(1000, seen.bw);
	EXPECT_EQ(0, seen.delay);
	EXPECT_EQ(0, seen.err);

	/* out of range, all or nothing, nothing to set */
	EXPECT_EQ(-ERANGE, set_knobs(self, 2, 0, -1, -1));
	EXPECT_EQ(-ERANGE, set_knobs(self, 2, 1001, -1, -1));
	EXPECT_EQ(-ERANGE, set_knobs(self, 2, -1, 1000000000001, -1));
	EXPECT_EQ(-ERANGE, set_knobs(self, 2, 500, 7, 1000001));
	EXPECT_EQ(-EINVAL, set_knobs(self, 2, -1, -1, -1));
	msg = request(self->family, UBFAB_CMD_PORT_SET, 0);
	nla_put_u32(msg, UBFAB_A_PORT_EID, 2);
	nla_put_u32(msg, UBFAB_A_PORT_PLANE, 3);
	nla_put_u32(msg, UBFAB_A_PORT_STATE, 2);
	nla_put_u32(msg, UBFAB_A_PORT_BW_PERMILLE, 500);
	EXPECT_EQ(-EINVAL, transact(self->sk, msg));
	ASSERT_EQ(0, port_get(self, 2, &seen));
	EXPECT_EQ(1000, seen.bw);
	EXPECT_EQ(0, seen.delay);

	ASSERT_EQ(0, ubfab_dev_open("npu0", &npu0));
	ASSERT_EQ(0, ubfab_dev_open("npu2", &npu2));
	ASSERT_EQ(0, ubfab_dev_alloc(npu2, 1 << 20, &off));
	ASSERT_EQ(0, ubfab_dev_export(npu2, off, 1 << 20,
				      UBFAB_SEG_READ | UBFAB_SEG_WRITE, 5,
				      &tid));
	ASSERT_EQ(0, ubfab_dev_import(npu0, 2, tid, 5, UBFAB_SEG_WRITE, &imp));
	ASSERT_EQ(0, ubfab_dev_alloc(npu0, 1 << 20, &loc));
	ASSERT_EQ(0, ubfab_queue_create(npu0, NULL, &q));
	rem = ubfab_import_addr(&imp, 0);
	/* at the links' pace, which the knobs change */
	ASSERT_EQ(0, ubfab_engines_unbounded());
	small = write_cost(_metadata, q, loc, rem, 64);
	big = write_cost(_metadata, q, loc, rem, 1 << 20);

	/* 100 ns more each way at npu2's ports: 200 ns a round trip */
	ASSERT_EQ(0, set_knobs(self, 2, -1, 100000, -1));
	ASSERT_EQ(0, port_get(self, 2, &seen));
	EXPECT_EQ(100000, seen.delay);
	/* (whole ns of a clock kept in ps: one more or less) */
	EXPECT_GE(small + 201, write_cost(_metadata, q, loc, rem, 64));
	EXPECT_LE(small + 199, write_cost(_metadata, q, loc, rem, 64));
	/*
	 * half the bandwidth: 1 MiB takes twice its serialization, which is
	 * big less the latency: small less its 64 bytes' 3 ns
	 */
	ASSERT_EQ(0, set_knobs(self, 2, 500, 0, -1));
	EXPECT_LE(2 * big - small - 1,
		  write_cost(_metadata, q, loc, rem, 1 << 20));
	EXPECT_GE(2 * big - small + 5,
		  write_cost(_metadata, q, loc, rem, 1 << 20));
	/* every transfer hits an error: retry-ps and a chunk again */
	ASSERT_EQ(0, set_knobs(self, 2, 1000, -1, 1000000));
	EXPECT_LE(small + 2000, write_cost(_metadata, q, loc, rem, 64));
	EXPECT_GE(small + 2010, write_cost(_metadata, q, loc, rem, 64));
	/* healthy again: the same price as before */
	ASSERT_EQ(0, set_knobs(self, 2, -1, -1, 0));
	EXPECT_GE(small + 1, write_cost(_metadata, q, loc, rem, 64));
	EXPECT_LE(small - 1, write_cost(_metadata, q, loc, rem, 64));
	ASSERT_EQ(0, port_get(self, 2, &seen));
	EXPECT_EQ(1000, seen.bw);
	EXPECT_EQ(0, seen.err);

	ubfab_queue_destroy(q);
	ubfab_dev_close(npu0);
	ubfab_dev_close(npu2);
}

/* After all of the above, the family still answers. */
TEST_F(raw, still_answers)
{
	struct ubfab_fabric_info f;
	struct ubfab_nl *nl;
	struct nl_msg *msg;
	int i;

	for (i = 0; i < 100; i++) {
		msg = request(self->family, UBFAB_CMD_ENTITY_GET, 0);
		nla_put_u16(msg, UBFAB_A_ENTITY_EID, i);
		ASSERT_EQ(-EINVAL, transact(self->sk, msg));
	}
	ASSERT_EQ(0, ubfab_nl_open(&nl));
	EXPECT_EQ(0, ubfab_fabric_get(nl, &f));
	EXPECT_EQ(2, f.nodes);
	ubfab_nl_close(nl);
}

TEST_HARNESS_MAIN
