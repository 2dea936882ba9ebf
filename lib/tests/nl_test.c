// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Host test of libubfab's reply handling, without ubfab.ko: a session is
 * pointed at a second netlink socket of this process (NETLINK_USERSOCK)
 * that plays the kernel. Each case queues crafted replies on the session's
 * socket, with the sequence number the next request will carry, then
 * calls the public API, which sends its request and reads them. Linked
 * with libubfab.a to reach the session structure. A kselftest-harness
 * program: each case runs in a process of its own with a new session.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <linux/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "internal.h"
#include "kselftest_harness.h"

#define FAMILY		0x42	/* the family id the fake kernel uses */

static struct ubfab_nl nl;
static struct nl_sock *kernel;	/* the fake kernel's socket */
static uint32_t next_seq;	/* sequence number of the next request */

/* A message from the fake kernel to the session, answering the next request. */
static struct nl_msg *reply_new(int type, int flags)
{
	struct nl_msg *msg = nlmsg_alloc_simple(type, flags);

	nlmsg_hdr(msg)->nlmsg_seq = next_seq;
	nlmsg_hdr(msg)->nlmsg_pid = nl_socket_get_local_port(nl.sk);
	return msg;
}

static void reply_send(struct nl_msg *msg)
{
	struct sockaddr_nl to = {
		.nl_family = AF_NETLINK,
		.nl_pid = nl_socket_get_local_port(nl.sk),
	};
	struct nlmsghdr *hdr = nlmsg_hdr(msg);

	if (sendto(nl_socket_get_fd(kernel), hdr, hdr->nlmsg_len, 0,
		   (struct sockaddr *)&to, sizeof(to)) < 0)
		perror("# sendto");
	nlmsg_free(msg);
}

/* A data message of the family; NLM_F_MULTI when part of a dump. */
static struct nl_msg *data_new(uint8_t cmd, bool multi)
{
	struct nl_msg *msg = nlmsg_alloc();

	genlmsg_put(msg, nl_socket_get_local_port(nl.sk), next_seq, FAMILY, 0,
		    multi ? NLM_F_MULTI : 0, cmd, 1);
	return msg;
}

/* The kernel's nla_put_u64_64bit(): a PAD attribute before the u64. */
static void put_u64_pad(struct nl_msg *msg, int attr, uint64_t v, int pad)
{
	nla_put(msg, pad, 0, NULL);
	nla_put_u64(msg, attr, v);
}

/*
 * An NLMSG_ERROR (error 0: an ack) or, for a dump, an NLMSG_DONE; with
 * @extack as NLMSGERR_ATTR_MSG. @capped: without the echoed request.
 */
static void end_send(bool done, int error, const char *extack, bool capped)
{
	struct nl_msg *msg = reply_new(done ? NLMSG_DONE : NLMSG_ERROR,
				       (done ? NLM_F_MULTI : 0) |
				       (capped ? NLM_F_CAPPED : 0) |
				       (extack ? NLM_F_ACK_TLVS : 0));
	struct nlmsgerr e = { .error = error };

	if (done) {
		nlmsg_append(msg, &error, sizeof(error), NLMSG_ALIGNTO);
	} else if (capped) {
		e.msg.nlmsg_len = NLMSG_HDRLEN;
		nlmsg_append(msg, &e, sizeof(e), NLMSG_ALIGNTO);
	} else {
		/* the echoed request: its header and an 8-byte payload */
		e.msg.nlmsg_len = NLMSG_HDRLEN + 8;
		nlmsg_append(msg, &e, sizeof(e), NLMSG_ALIGNTO);
		nlmsg_append(msg, "request", 8, NLMSG_ALIGNTO);
	}
	if (extack)
		nla_put_string(msg, NLMSGERR_ATTR_MSG, extack);
	reply_send(msg);
}

static void ack_send(void)
{
	end_send(false, 0, NULL, true);
}

/* Fill a message with the attributes of an NPU die or a CPU. */
static void put_entity(struct nl_msg *msg, uint32_t eid, bool npu)
{
	nla_put_u32(msg, UBFAB_A_ENTITY_EID, eid);
	nla_put_string(msg, UBFAB_A_ENTITY_NAME, npu ? "npu3" : "cpu1");
	nla_put_u32(msg, UBFAB_A_ENTITY_KIND,
		    npu ? UBFAB_ENTITY_NPU : UBFAB_ENTITY_CPU);
	nla_put_u32(msg, UBFAB_A_ENTITY_NODE, 1);
	put_u64_pad(msg, UBFAB_A_ENTITY_MEM_SIZE, 64ULL << 30,
		    UBFAB_A_ENTITY_PAD);
	nla_put_u32(msg, UBFAB_A_ENTITY_PORTS, 7);
	if (npu) {
		nla_put_u32(msg, UBFAB_A_ENTITY_CHIP, 1);
		nla_put_u32(msg, UBFAB_A_ENTITY_DIE, 1);
	} else {
		nla_put_u32(msg, UBFAB_A_ENTITY_SOCKET, 1);
	}
}

static void put_stats(struct nl_msg *msg, int attr, uint64_t base)
{
	struct nlattr *nest = nla_nest_start(msg, attr);
	int a;

	for (a = UBFAB_A_STATS_TX_BYTES; a <= UBFAB_A_STATS_ERRORS; a++)
		put_u64_pad(msg, a, base + a, UBFAB_A_STATS_PAD);
	nla_nest_end(msg, nest);
}

static void put_port(struct nl_msg *msg, uint32_t eid, uint32_t plane)
{
	nla_put_u32(msg, UBFAB_A_PORT_EID, eid);
	nla_put_u32(msg, UBFAB_A_PORT_PLANE, plane);
	nla_put_u32(msg, UBFAB_A_PORT_STATE, UBFAB_STATE_UP);
	put_stats(msg, UBFAB_A_PORT_STATS, 100 * plane);
}

static void put_plane(struct nl_msg *msg, uint32_t id)
{
	nla_put_u32(msg, UBFAB_A_PLANE_ID, id);
	nla_put_u32(msg, UBFAB_A_PLANE_STATE, UBFAB_STATE_UP);
	nla_put_u32(msg, UBFAB_A_PLANE_L1_SWITCHES, 2);
	nla_put_u32(msg, UBFAB_A_PLANE_L2_SWITCHES, 16);
	nla_put_u32(msg, UBFAB_A_PLANE_PORTS, 40);
	nla_put_u32(msg, UBFAB_A_PLANE_PORTS_UP, 39);
	put_stats(msg, UBFAB_A_PLANE_STATS, 0);
}

/* Queue a do reply: one entity message, then the ack. */
static void entity_reply(void (*fill)(struct nl_msg *msg))
{
	struct nl_msg *msg = data_new(UBFAB_CMD_ENTITY_GET, false);

	fill(msg);
	reply_send(msg);
	ack_send();
}

/* Run a request of the session and advance to the next sequence number. */
#define REQUEST(call) ({ int __ret = (call); next_seq++; __ret; })

FIXTURE(nl) {
	int unused;
};

/* A session and the fake kernel's socket, for each case. */
FIXTURE_SETUP(nl)
{
	/* a reply the library waits for in vain fails the case, not hangs */
	const struct timeval timeout = { .tv_sec = 2 };

	nl.family = FAMILY;
	kernel = nl_socket_alloc();
	nl.sk = nl_socket_alloc();
	ASSERT_NE(NULL, kernel);
	ASSERT_NE(NULL, nl.sk);
	ASSERT_EQ(0, nl_connect(kernel, NETLINK_USERSOCK))
		TH_LOG("no NETLINK_USERSOCK sockets");
	ASSERT_EQ(0, nl_connect(nl.sk, NETLINK_USERSOCK));
	ASSERT_EQ(0, setsockopt(nl_socket_get_fd(nl.sk), SOL_SOCKET,
				SO_RCVTIMEO, &timeout, sizeof(timeout)));
	nl_socket_set_peer_port(nl.sk, nl_socket_get_local_port(kernel));
	nl_socket_disable_auto_ack(nl.sk);
	/* the next automatic sequence number follows this one */
	next_seq = nl_socket_use_seq(nl.sk) + 1;
}

FIXTURE_TEARDOWN(nl)
{
	nl_socket_free(nl.sk);
	nl_socket_free(kernel);
}

/* fabric: every attribute, u64s after PAD attributes */
TEST_F(nl, fabric)
{
	struct nl_msg *msg = data_new(UBFAB_CMD_FABRIC_GET, false);
	struct ubfab_fabric_info f;
	int a;

	nla_put_string(msg, UBFAB_A_FABRIC_PROFILE, "cm384");
	for (a = UBFAB_A_FABRIC_NODES; a <= UBFAB_A_FABRIC_CPUS; a++)
		nla_put_u32(msg, a, a);
	for (a = UBFAB_A_FABRIC_NPU_MEM; a <= UBFAB_A_FABRIC_SETUP_NS; a++)
		put_u64_pad(msg, a, (uint64_t)a << 40, UBFAB_A_FABRIC_PAD);
	reply_send(msg);
	ack_send();

	ASSERT_EQ(0, REQUEST(ubfab_fabric_get(&nl, &f)));
	ASSERT_STREQ("cm384", f.profile);
	ASSERT_EQ(UBFAB_A_FABRIC_NODES, f.nodes);
	ASSERT_EQ(UBFAB_A_FABRIC_CPUS, f.cpus);
	ASSERT_EQ((uint64_t)UBFAB_A_FABRIC_NPU_MEM << 40, f.npu_mem);
	ASSERT_EQ((uint64_t)UBFAB_A_FABRIC_SETUP_NS << 40, f.setup_ns);
}

static void fill_npu(struct nl_msg *msg)
{
	put_entity(msg, 3, true);
}

static void fill_cpu(struct nl_msg *msg)
{
	put_entity(msg, 33, false);
}

/* A kernel with memory semantics reports refused imports. */
static void fill_npu_auth(struct nl_msg *msg)
{
	put_u64_pad(msg, UBFAB_A_ENTITY_AUTH_FAILURES, 5, UBFAB_A_ENTITY_PAD);
	put_entity(msg, 3, true);
}

/* entity: NPU and CPU fields by kind */
TEST_F(nl, entity_kinds)
{
	struct ubfab_entity_info e;

	entity_reply(fill_npu);
	ASSERT_EQ(0, REQUEST(ubfab_entity_get_by_name(&nl, "npu3", &e)));
	ASSERT_EQ(3, e.eid);
	ASSERT_STREQ("npu3", e.name);
	ASSERT_EQ(1, e.chip);
	ASSERT_EQ(1, e.die);
	ASSERT_EQ(UBFAB_FIELD_NONE, e.socket);
	ASSERT_EQ(64ULL << 30, e.mem_size);
	ASSERT_EQ(7, e.ports);
	ASSERT_EQ(UBFAB_COUNT_NONE, e.auth_failures);

	entity_reply(fill_npu_auth);
	ASSERT_EQ(0, REQUEST(ubfab_entity_get(&nl, 3, &e)));
	ASSERT_EQ(3, e.eid);
	ASSERT_EQ(5, e.auth_failures);

	entity_reply(fill_cpu);
	ASSERT_EQ(0, REQUEST(ubfab_entity_get(&nl, 33, &e)));
	ASSERT_EQ(UBFAB_ENTITY_CPU, e.kind);
	ASSERT_EQ(1, e.socket);
	ASSERT_EQ(UBFAB_FIELD_NONE, e.chip);
	ASSERT_EQ(UBFAB_FIELD_NONE, e.die);
}

static void fill_cpu_with_chip(struct nl_msg *msg)
{
	put_entity(msg, 33, false);
	nla_put_u32(msg, UBFAB_A_ENTITY_CHIP, 0);
}

static void fill_npu_without_die(struct nl_msg *msg)
{
	struct nlmsghdr *hdr = nlmsg_hdr(msg);

	put_entity(msg, 3, true);
	/* the die is the last attribute: cut it off */
	hdr->nlmsg_len -= NLA_ALIGN(nla_total_size(sizeof(uint32_t)));
}

static void fill_u64_node(struct nl_msg *msg)
{
	nla_put_u64(msg, UBFAB_A_ENTITY_NODE, 1);	/* each one is checked */
	put_entity(msg, 3, true);
}

static void fill_long_name(struct nl_msg *msg)
{
	put_entity(msg, 3, true);
	nla_put_string(msg, UBFAB_A_ENTITY_NAME, "a-name-too-long-16");
}

static void fill_unterminated_name(struct nl_msg *msg)
{
	put_entity(msg, 3, true);
	nla_put(msg, UBFAB_A_ENTITY_NAME, 4, "npu3");
}

static void fill_no_kind(struct nl_msg *msg)
{
	nla_put_u32(msg, UBFAB_A_ENTITY_EID, 3);
	nla_put_string(msg, UBFAB_A_ENTITY_NAME, "npu3");
	nla_put_u32(msg, UBFAB_A_ENTITY_NODE, 1);
	put_u64_pad(msg, UBFAB_A_ENTITY_MEM_SIZE, 1, UBFAB_A_ENTITY_PAD);
	nla_put_u32(msg, UBFAB_A_ENTITY_PORTS, 7);
}

/* entity: malformed replies are -EPROTO */
TEST_F(nl, entity_malformed)
{
	static void (*const fills[])(struct nl_msg *msg) = {
		fill_cpu_with_chip, fill_npu_without_die, fill_u64_node,
		fill_long_name, fill_unterminated_name, fill_no_kind,
	};
	struct ubfab_entity_info e;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fills); i++) {
		entity_reply(fills[i]);
		ASSERT_EQ(-EPROTO, REQUEST(ubfab_entity_get(&nl, 3, &e)))
			TH_LOG("malformed reply %zu accepted", i);
	}
}

/* do: kernel errors, extack message, acks */
TEST_F(nl, do_errors)
{
	struct ubfab_entity_info e;
	struct ubfab_port_info p;
	struct nl_msg *msg;
	int i;

	/* the request echoed, then the extack */
	end_send(false, -ENODEV, "no such entity", false);
	ASSERT_EQ(-ENODEV, REQUEST(ubfab_entity_get(&nl, 99, &e)));
	ASSERT_STREQ("no such entity", ubfab_nl_errmsg(&nl));

	/* a success keeps the message of the last failure */
	entity_reply(fill_npu);
	ASSERT_EQ(0, REQUEST(ubfab_entity_get(&nl, 3, &e)));
	ASSERT_STREQ("no such entity", ubfab_nl_errmsg(&nl));

	/* capped, no extack: the message is cleared */
	end_send(false, -EINVAL, NULL, true);
	ASSERT_EQ(-EINVAL, REQUEST(ubfab_port_get(&nl, 3, 9, &p)));
	ASSERT_STREQ("", ubfab_nl_errmsg(&nl));

	/* an ack without data, and two data messages, are malformed */
	ack_send();
	ASSERT_EQ(-EPROTO, REQUEST(ubfab_entity_get(&nl, 3, &e)));
	for (i = 0; i < 2; i++) {
		msg = data_new(UBFAB_CMD_ENTITY_GET, false);
		put_entity(msg, 3, true);
		reply_send(msg);
	}
	ack_send();
	ASSERT_EQ(-EPROTO, REQUEST(ubfab_entity_get(&nl, 3, &e)));
}

/* replies of other requests are skipped */
TEST_F(nl, stale)
{
	struct ubfab_entity_info e;
	struct nl_msg *msg;

	/* a reply to an earlier request (another sequence number) */
	next_seq--;
	end_send(false, -EIO, "stale", true);
	next_seq++;
	msg = data_new(UBFAB_CMD_ENTITY_GET, false);
	put_entity(msg, 3, true);
	nlmsg_hdr(msg)->nlmsg_pid++;	/* not addressed to this session */
	reply_send(msg);
	entity_reply(fill_npu);
	ASSERT_EQ(0, REQUEST(ubfab_entity_get(&nl, 3, &e)));
	ASSERT_EQ(3, e.eid);
}

/* entity: the 1.0 calls fill the 1.0 struct, not a byte more */
TEST_F(nl, entity_1_0)
{
	union {
		struct ubfab_entity_info e;
		unsigned char bytes[sizeof(struct ubfab_entity_info)];
	} u;
	const uint64_t untouched = 0xa5a5a5a5a5a5a5a5ULL;

	memset(&u, 0xa5, sizeof(u));
	entity_reply(fill_npu_auth);
	ASSERT_EQ(0, REQUEST(libubfab_entity_get_1_0(&nl, 3, &u)));
	ASSERT_EQ(3, u.e.eid);
	ASSERT_EQ(7, u.e.ports);
	ASSERT_EQ(untouched, u.e.auth_failures);

	memset(&u, 0xa5, sizeof(u));
	entity_reply(fill_npu_auth);
	ASSERT_EQ(0, REQUEST(libubfab_entity_get_by_name_1_0(&nl, "npu3", &u)));
	ASSERT_STREQ("npu3", u.e.name);
	ASSERT_EQ(untouched, u.e.auth_failures);

	/* errors are passed on, and nothing is written */
	memset(&u, 0xa5, sizeof(u));
	end_send(false, -ENODEV, NULL, true);
	ASSERT_EQ(-ENODEV, REQUEST(libubfab_entity_get_1_0(&nl, 99, &u)));
	ASSERT_EQ(0xa5, u.bytes[0]);
	ASSERT_EQ(-EINVAL, libubfab_entity_get_1_0(&nl, 3, NULL));
}

struct walk {
	unsigned int calls;
	unsigned int stop_at;
	uint64_t tx_bytes[8];
};

static int port_cb(const struct ubfab_port_info *p, void *arg)
{
	struct walk *w = arg;

	w->tx_bytes[w->calls % 8] = p->stats.tx_bytes;
	return ++w->calls == w->stop_at ? 42 : 0;
}

/* port dump: nested stats, errors in NLMSG_DONE */
TEST_F(nl, port_dump)
{
	struct walk w = { 0 };
	struct nl_msg *msg;
	uint32_t plane;

	for (plane = 0; plane < 3; plane++) {
		msg = data_new(UBFAB_CMD_PORT_GET, true);
		put_port(msg, 5, plane);
		reply_send(msg);
	}
	end_send(true, 0, NULL, false);
	ASSERT_EQ(0, REQUEST(ubfab_port_dump(&nl, 5, port_cb, &w)));
	ASSERT_EQ(3, w.calls);
	ASSERT_EQ(200 + UBFAB_A_STATS_TX_BYTES, w.tx_bytes[2]);

	/* stats missing a counter */
	msg = data_new(UBFAB_CMD_PORT_GET, true);
	nla_put_u32(msg, UBFAB_A_PORT_EID, 5);
	nla_put_u32(msg, UBFAB_A_PORT_PLANE, 0);
	nla_put_u32(msg, UBFAB_A_PORT_STATE, UBFAB_STATE_UP);
	nla_nest_end(msg, nla_nest_start(msg, UBFAB_A_PORT_STATS));
	reply_send(msg);
	end_send(true, 0, NULL, false);
	ASSERT_EQ(-EPROTO,
		  REQUEST(ubfab_port_dump(&nl, UBFAB_EID_ANY, port_cb, &w)));

	/* the dump fails: errno and extack in the NLMSG_DONE */
	end_send(true, -ENODEV, "no such entity", false);
	ASSERT_EQ(-ENODEV, REQUEST(ubfab_port_dump(&nl, 99, port_cb, &w)));
	ASSERT_STREQ("no such entity", ubfab_nl_errmsg(&nl));
}

static int plane_cb(const struct ubfab_plane_info *p, void *arg)
{
	struct walk *w = arg;

	w->tx_bytes[w->calls % 8] = p->ports_up;
	return ++w->calls == w->stop_at ? 42 : 0;
}

/* plane dump: early stop, then the session goes on */
TEST_F(nl, plane_dump_stop)
{
	struct walk w = { .stop_at = 2 };
	struct ubfab_plane_info p;
	struct nl_msg *msg;
	uint32_t id;

	for (id = 0; id < 7; id++) {
		msg = data_new(UBFAB_CMD_PLANE_GET, true);
		put_plane(msg, id);
		reply_send(msg);
	}
	end_send(true, 0, NULL, false);
	ASSERT_EQ(42, REQUEST(ubfab_plane_dump(&nl, plane_cb, &w)));
	ASSERT_EQ(2, w.calls);
	ASSERT_EQ(39, w.tx_bytes[1]);

	/* the rest of the dump was read: the next request gets its reply */
	msg = data_new(UBFAB_CMD_PLANE_GET, false);
	put_plane(msg, 6);
	reply_send(msg);
	ack_send();
	ASSERT_EQ(0, REQUEST(ubfab_plane_get(&nl, 6, &p)));
	ASSERT_EQ(6, p.id);
	ASSERT_EQ(16, p.l2_switches);
	ASSERT_EQ(40, p.ports);
	ASSERT_EQ(UBFAB_A_STATS_ERRORS, p.stats.errors);
}

static void put_seg(struct nl_msg *msg, uint32_t eid, uint32_t token_id)
{
	nla_put_u32(msg, UBFAB_A_SEG_EID, eid);
	nla_put_u32(msg, UBFAB_A_SEG_TOKEN_ID, token_id);
	put_u64_pad(msg, UBFAB_A_SEG_OFFSET, 1ULL << 36, UBFAB_A_SEG_PAD);
	put_u64_pad(msg, UBFAB_A_SEG_LENGTH, 4096 * token_id, UBFAB_A_SEG_PAD);
	nla_put_u32(msg, UBFAB_A_SEG_RIGHTS, UBFAB_SEG_READ);
	nla_put_u32(msg, UBFAB_A_SEG_IMPORTS, 2);
	nla_put_u32(msg, UBFAB_A_SEG_PID, 4242);
}

static int seg_cb(const struct ubfab_seg_info *s, void *arg)
{
	struct ubfab_seg_info *last = arg;

	*last = *s;
	return 0;
}

/* seg dump: every attribute, an older kernel */
TEST_F(nl, seg_dump)
{
	struct ubfab_seg_info last = { 0 };
	struct nl_msg *msg;
	uint32_t id;

	for (id = 1; id <= 3; id++) {
		msg = data_new(UBFAB_CMD_SEG_GET, true);
		put_seg(msg, 7, id);
		reply_send(msg);
	}
	end_send(true, 0, NULL, false);
	ASSERT_EQ(0, REQUEST(ubfab_seg_dump(&nl, 7, seg_cb, &last)));
	ASSERT_EQ(7, last.eid);
	ASSERT_EQ(3, last.token_id);
	ASSERT_EQ(1ULL << 36, last.offset);
	ASSERT_EQ(3 * 4096, last.length);
	ASSERT_EQ(UBFAB_SEG_READ, last.rights);
	ASSERT_EQ(2, last.imports);
	ASSERT_EQ(4242, last.pid);

	/* every attribute is required */
	msg = data_new(UBFAB_CMD_SEG_GET, true);
	put_seg(msg, 7, 1);
	nlmsg_hdr(msg)->nlmsg_len -= NLA_ALIGN(nla_total_size(sizeof(uint32_t)));
	reply_send(msg);
	end_send(true, 0, NULL, false);
	ASSERT_EQ(-EPROTO,
		  REQUEST(ubfab_seg_dump(&nl, UBFAB_EID_ANY, seg_cb, &last)));

	/* an older kernel does not know the command */
	end_send(false, -EOPNOTSUPP, NULL, true);
	ASSERT_EQ(-EOPNOTSUPP,
		  REQUEST(ubfab_seg_dump(&nl, UBFAB_EID_ANY, seg_cb, &last)));
	ASSERT_EQ(-EINVAL, ubfab_seg_dump(&nl, UBFAB_EID_ANY, NULL, NULL));
}

/* arguments and names */
TEST_F(nl, arguments)
{
	struct ubfab_entity_info e;

	/* refused before anything is sent */
	ASSERT_EQ(-ENODEV,
		  ubfab_entity_get_by_name(&nl, "0123456789abcdef", &e));
	ASSERT_EQ(-EINVAL, ubfab_entity_get_by_name(&nl, NULL, &e));
	ASSERT_EQ(-EINVAL, ubfab_entity_get(NULL, 0, &e));
	ASSERT_EQ(-EINVAL, ubfab_entity_get(&nl, 0, NULL));
	ASSERT_EQ(-EINVAL, ubfab_plane_dump(&nl, NULL, NULL));
	ASSERT_EQ(-EINVAL, ubfab_nl_open(NULL));
	ASSERT_STREQ("", ubfab_nl_errmsg(NULL));
	ASSERT_STREQ("cpu", ubfab_kind_name(UBFAB_ENTITY_CPU));
	ASSERT_STREQ("unknown", ubfab_kind_name(0));
	ASSERT_STREQ("unknown", ubfab_kind_name(UINT32_MAX));
	ASSERT_STREQ("down", ubfab_state_name(UBFAB_STATE_DOWN));
	ASSERT_STREQ("unknown", ubfab_state_name(2));
}

TEST_HARNESS_MAIN
