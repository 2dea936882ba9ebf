// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Host test of libubfab's reply handling, without ubfab.ko: a session is
 * pointed at a second netlink socket of this process (NETLINK_USERSOCK)
 * that plays the kernel. Each case queues crafted replies on the session's
 * socket, with the sequence number the next request will carry, then
 * calls the public API, which sends its request and reads them; the fake
 * kernel may then read the request to check it. Notifications, which
 * only the kernel's port 0 can send, are checked by their decoder. Linked
 * with libubfab.a to reach the session structure and the library's
 * internals. A kselftest-harness program: each case runs in a process of
 * its own with a new session.
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

/* A port as a kernel without fault knobs reports it. */
static void put_port_old(struct nl_msg *msg, uint32_t eid, uint32_t plane)
{
	nla_put_u32(msg, UBFAB_A_PORT_EID, eid);
	nla_put_u32(msg, UBFAB_A_PORT_PLANE, plane);
	nla_put_u32(msg, UBFAB_A_PORT_STATE, UBFAB_STATE_UP);
	put_stats(msg, UBFAB_A_PORT_STATS, 100 * plane);
}

/* The knobs of port @plane of the fake kernel's ports: a u64 past 2^32. */
#define KNOB_BW(plane)		(1000 - (plane))
#define KNOB_DELAY(plane)	(((uint64_t)(plane) << 33) + 7)
#define KNOB_ERRORS(plane)	(1000000 - (plane))

/* A port with its fault knobs, as the kernel reports it. */
static void put_port(struct nl_msg *msg, uint32_t eid, uint32_t plane)
{
	nla_put_u32(msg, UBFAB_A_PORT_BW_PERMILLE, KNOB_BW(plane));
	put_u64_pad(msg, UBFAB_A_PORT_DELAY_PS, KNOB_DELAY(plane),
		    UBFAB_A_PORT_PAD);
	put_port_old(msg, eid, plane);
	nla_put_u32(msg, UBFAB_A_PORT_ERROR_PPM, KNOB_ERRORS(plane));
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
	struct ubfab_port_info last;
};

static int port_cb(const struct ubfab_port_info *p, void *arg)
{
	struct walk *w = arg;

	w->tx_bytes[w->calls % 8] = p->stats.tx_bytes;
	w->last = *p;
	return ++w->calls == w->stop_at ? 42 : 0;
}

/* port dump: nested stats, fault knobs, errors in NLMSG_DONE */
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
	EXPECT_EQ(KNOB_BW(2), w.last.bw_permille);
	EXPECT_EQ(KNOB_DELAY(2), w.last.delay_ps);
	EXPECT_EQ(KNOB_ERRORS(2), w.last.error_ppm);

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

static void put_port_u32_delay(struct nl_msg *msg, uint32_t eid,
			       uint32_t plane)
{
	put_port_old(msg, eid, plane);
	nla_put_u32(msg, UBFAB_A_PORT_DELAY_PS, 5);
}

/* Queue a do reply: one port message from @fill, then the ack. */
static void port_reply(void (*fill)(struct nl_msg *msg, uint32_t eid,
				    uint32_t plane), uint32_t plane)
{
	struct nl_msg *msg = data_new(UBFAB_CMD_PORT_GET, false);

	fill(msg, 4, plane);
	reply_send(msg);
	ack_send();
}

/*
 * port get: the fault knobs, their values from an older kernel (none),
 * and what the 1.0 version fills of the 1.0 struct: not a byte more
 */
TEST_F(nl, port_knobs)
{
	union {
		struct ubfab_port_info p;
		unsigned char bytes[sizeof(struct ubfab_port_info)];
	} u;
	const size_t size_1_0 = offsetof(struct ubfab_port_info, bw_permille);
	size_t i;

	port_reply(put_port, 6);
	ASSERT_EQ(0, REQUEST(ubfab_port_get(&nl, 4, 6, &u.p)));
	EXPECT_EQ(4, u.p.eid);
	EXPECT_EQ(6, u.p.plane);
	EXPECT_EQ(KNOB_BW(6), u.p.bw_permille);
	EXPECT_EQ(KNOB_DELAY(6), u.p.delay_ps);
	EXPECT_EQ(KNOB_ERRORS(6), u.p.error_ppm);

	port_reply(put_port_old, 1);
	ASSERT_EQ(0, REQUEST(ubfab_port_get(&nl, 4, 1, &u.p)));
	EXPECT_EQ(1, u.p.plane);
	EXPECT_EQ(UBFAB_FIELD_NONE, u.p.bw_permille);
	EXPECT_EQ(UBFAB_COUNT_NONE, u.p.delay_ps);
	EXPECT_EQ(UBFAB_FIELD_NONE, u.p.error_ppm);

	memset(&u, 0xa5, sizeof(u));
	port_reply(put_port, 6);
	ASSERT_EQ(0, REQUEST(libubfab_port_get_1_0(&nl, 4, 6, &u)));
	EXPECT_EQ(4, u.p.eid);
	EXPECT_EQ(6, u.p.plane);
	EXPECT_EQ(600 + UBFAB_A_STATS_ERRORS, u.p.stats.errors);
	for (i = size_1_0; i < sizeof(u); i++)
		ASSERT_EQ(0xa5, u.bytes[i]) TH_LOG("byte %zu written", i);

	/* errors are passed on, and nothing is written */
	memset(&u, 0xa5, sizeof(u));
	end_send(false, -ENODEV, NULL, true);
	ASSERT_EQ(-ENODEV, REQUEST(libubfab_port_get_1_0(&nl, 4, 7, &u)));
	ASSERT_EQ(0xa5, u.bytes[0]);
	ASSERT_EQ(-EINVAL, libubfab_port_get_1_0(&nl, 4, 6, NULL));

	/* a knob of the wrong size is malformed */
	port_reply(put_port_u32_delay, 1);
	ASSERT_EQ(-EPROTO, REQUEST(ubfab_port_get(&nl, 4, 1, &u.p)));
}

/* What the fake kernel read of a port-set request. */
struct port_request {
	unsigned int nattrs;
	bool has[UBFAB_A_PORT_MAX + 1];
	uint64_t value[UBFAB_A_PORT_MAX + 1];
};

/*
 * Read the request the session sent last into @r: 0, or -1 if it is no
 * acked port-set request or an attribute is not of its type.
 */
static int port_request_read(struct port_request *r)
{
	static const struct nla_policy policy[UBFAB_A_PORT_MAX + 1] = {
		[UBFAB_A_PORT_EID] = { .type = NLA_U32, .minlen = 4, .maxlen = 4 },
		[UBFAB_A_PORT_PLANE] = { .type = NLA_U32, .minlen = 4, .maxlen = 4 },
		[UBFAB_A_PORT_STATE] = { .type = NLA_U32, .minlen = 4, .maxlen = 4 },
		[UBFAB_A_PORT_BW_PERMILLE] = { .type = NLA_U32, .minlen = 4,
					       .maxlen = 4 },
		[UBFAB_A_PORT_DELAY_PS] = { .type = NLA_U64, .minlen = 8,
					    .maxlen = 8 },
		[UBFAB_A_PORT_ERROR_PPM] = { .type = NLA_U32, .minlen = 4,
					     .maxlen = 4 },
	};
	static uint64_t buf[512];
	struct nlmsghdr *hdr = (struct nlmsghdr *)buf;
	struct nlattr *tb[UBFAB_A_PORT_MAX + 1], *a;
	struct genlmsghdr *gnlh;
	ssize_t len;
	int rem, t;

	memset(r, 0, sizeof(*r));
	len = recv(nl_socket_get_fd(kernel), buf, sizeof(buf), MSG_DONTWAIT);
	if (len <= 0 || !nlmsg_ok(hdr, len) || !genlmsg_valid_hdr(hdr, 0))
		return -1;
	gnlh = nlmsg_data(hdr);
	if (hdr->nlmsg_type != FAMILY || gnlh->cmd != UBFAB_CMD_PORT_SET ||
	    !(hdr->nlmsg_flags & NLM_F_ACK) ||
	    genlmsg_parse(hdr, 0, tb, UBFAB_A_PORT_MAX, policy) < 0)
		return -1;
	nla_for_each_attr(a, genlmsg_attrdata(gnlh, 0),
			  genlmsg_attrlen(gnlh, 0), rem)
		r->nattrs++;
	for (t = 0; t <= UBFAB_A_PORT_MAX; t++) {
		if (!tb[t])
			continue;
		r->has[t] = true;
		r->value[t] = policy[t].type == NLA_U64 ? nla_get_u64(tb[t]) :
							  nla_get_u32(tb[t]);
	}
	return 0;
}

/*
 * port set: the state and the knobs of the mask, each of its type, in one
 * request; the kernel's refusal passed on; a bad mask refused first
 */
TEST_F(nl, port_set_faults)
{
	struct ubfab_port_faults f = {
		.mask = UBFAB_PORT_FAULT_STATE | UBFAB_PORT_FAULT_BW |
			UBFAB_PORT_FAULT_DELAY | UBFAB_PORT_FAULT_ERRORS,
		.state = UBFAB_STATE_DOWN,
		.bw_permille = 250,
		.delay_ps = 1000000000000ULL,
		.error_ppm = 1000000,
	};
	struct port_request r;

	ack_send();
	ASSERT_EQ(0, REQUEST(ubfab_port_set_faults(&nl, 9, 3, &f)));
	ASSERT_EQ(0, port_request_read(&r));
	EXPECT_EQ(6, r.nattrs);
	EXPECT_EQ(9, r.value[UBFAB_A_PORT_EID]);
	EXPECT_EQ(3, r.value[UBFAB_A_PORT_PLANE]);
	EXPECT_EQ(UBFAB_STATE_DOWN, r.value[UBFAB_A_PORT_STATE]);
	EXPECT_EQ(250, r.value[UBFAB_A_PORT_BW_PERMILLE]);
	EXPECT_EQ(1000000000000ULL, r.value[UBFAB_A_PORT_DELAY_PS]);
	EXPECT_EQ(1000000, r.value[UBFAB_A_PORT_ERROR_PPM]);

	/* only the members of the mask */
	f.mask = UBFAB_PORT_FAULT_DELAY;
	f.delay_ps = 0;
	ack_send();
	ASSERT_EQ(0, REQUEST(ubfab_port_set_faults(&nl, 9, 3, &f)));
	ASSERT_EQ(0, port_request_read(&r));
	EXPECT_EQ(3, r.nattrs);
	EXPECT_TRUE(r.has[UBFAB_A_PORT_DELAY_PS]);
	EXPECT_EQ(0, r.value[UBFAB_A_PORT_DELAY_PS]);
	f.mask = UBFAB_PORT_FAULT_BW | UBFAB_PORT_FAULT_ERRORS;
	ack_send();
	ASSERT_EQ(0, REQUEST(ubfab_port_set_faults(&nl, 9, 3, &f)));
	ASSERT_EQ(0, port_request_read(&r));
	EXPECT_EQ(4, r.nattrs);
	EXPECT_FALSE(r.has[UBFAB_A_PORT_STATE]);
	EXPECT_FALSE(r.has[UBFAB_A_PORT_DELAY_PS]);
	EXPECT_EQ(250, r.value[UBFAB_A_PORT_BW_PERMILLE]);
	/* the state alone, as ubfab_port_set_state() sends it */
	ack_send();
	ASSERT_EQ(0, REQUEST(ubfab_port_set_state(&nl, 2, 1, UBFAB_STATE_UP)));
	ASSERT_EQ(0, port_request_read(&r));
	EXPECT_EQ(3, r.nattrs);
	EXPECT_EQ(2, r.value[UBFAB_A_PORT_EID]);
	EXPECT_EQ(UBFAB_STATE_UP, r.value[UBFAB_A_PORT_STATE]);

	/* the kernel's refusal and its reason are passed on */
	end_send(false, -ERANGE, "value out of range", false);
	ASSERT_EQ(-ERANGE, REQUEST(ubfab_port_set_faults(&nl, 9, 3, &f)));
	EXPECT_STREQ("value out of range", ubfab_nl_errmsg(&nl));
	ASSERT_EQ(0, port_request_read(&r));

	/* refused before anything is sent */
	f.mask = 0;
	EXPECT_EQ(-EINVAL, ubfab_port_set_faults(&nl, 9, 3, &f));
	f.mask = UBFAB_PORT_FAULT_ERRORS << 1;
	EXPECT_EQ(-EINVAL, ubfab_port_set_faults(&nl, 9, 3, &f));
	f.mask |= UBFAB_PORT_FAULT_BW;
	EXPECT_EQ(-EINVAL, ubfab_port_set_faults(&nl, 9, 3, &f));
	EXPECT_EQ(-EINVAL, ubfab_port_set_faults(&nl, 9, 3, NULL));
	f.mask = UBFAB_PORT_FAULT_BW;
	EXPECT_EQ(-EINVAL, ubfab_port_set_faults(NULL, 9, 3, &f));
	EXPECT_EQ(-1, port_request_read(&r));
}

/* events: a port's, with its fault knobs or, from an older kernel, none */
TEST_F(nl, port_event)
{
	struct ubfab_nl_event ev = { 0 };
	struct nl_msg *msg;

	msg = data_new(UBFAB_CMD_PORT_NTF, false);
	put_port(msg, 8, 5);
	ASSERT_EQ(0, libubfab_event_decode(nlmsg_hdr(msg), &ev, true));
	EXPECT_EQ(UBFAB_CMD_PORT_NTF, ev.cmd);
	EXPECT_EQ(8, ev.port.eid);
	EXPECT_EQ(5, ev.port.plane);
	EXPECT_EQ(KNOB_BW(5), ev.port.bw_permille);
	EXPECT_EQ(KNOB_DELAY(5), ev.port.delay_ps);
	EXPECT_EQ(KNOB_ERRORS(5), ev.port.error_ppm);
	nlmsg_free(msg);

	msg = data_new(UBFAB_CMD_PORT_NTF, false);
	put_port_old(msg, 8, 5);
	ASSERT_EQ(0, libubfab_event_decode(nlmsg_hdr(msg), &ev, false));
	EXPECT_EQ(UBFAB_FIELD_NONE, ev.port.bw_permille);
	EXPECT_EQ(UBFAB_COUNT_NONE, ev.port.delay_ps);
	EXPECT_EQ(UBFAB_FIELD_NONE, ev.port.error_ppm);
	nlmsg_free(msg);
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

/* One parameter of the model, all six attributes; u64s after PADs. */
static void put_param(struct nl_msg *msg, const char *name, const char *unit,
		      uint64_t value, uint64_t def)
{
	struct nlattr *nest = nla_nest_start(msg, UBFAB_A_MODEL_PARAM);

	nla_put_string(msg, UBFAB_A_PARAM_NAME, name);
	put_u64_pad(msg, UBFAB_A_PARAM_VALUE, value, UBFAB_A_PARAM_PAD);
	nla_put_string(msg, UBFAB_A_PARAM_UNIT, unit);
	put_u64_pad(msg, UBFAB_A_PARAM_MINIMUM, 1, UBFAB_A_PARAM_PAD);
	put_u64_pad(msg, UBFAB_A_PARAM_MAXIMUM, 1000000000000ULL,
		    UBFAB_A_PARAM_PAD);
	put_u64_pad(msg, UBFAB_A_PARAM_DEFAULT, def, UBFAB_A_PARAM_PAD);
	nla_nest_end(msg, nest);
}

/* A model of three parameters, link-mbps off its default. */
static void put_model(struct nl_msg *msg)
{
	put_param(msg, "issue-ps", "ps", 200000, 200000);
	/* the profile between the params: attributes come in any order */
	nla_put_string(msg, UBFAB_A_MODEL_PROFILE, "custom");
	put_param(msg, "link-mbps", "MB/s", 14000, 28000);
	put_param(msg, "eff-write-npu-permille", "permille", 699, 699);
}

/* model get: the profile and every param, in order */
TEST_F(nl, model_get)
{
	struct ubfab_model *m = NULL;
	struct nl_msg *msg;

	msg = data_new(UBFAB_CMD_MODEL_GET, false);
	put_model(msg);
	reply_send(msg);
	ack_send();
	ASSERT_EQ(0, REQUEST(ubfab_model_get(&nl, &m)));
	ASSERT_NE(NULL, m);
	EXPECT_STREQ("custom", m->profile);
	ASSERT_EQ(3, m->nparams);
	EXPECT_STREQ("issue-ps", m->params[0].name);
	EXPECT_STREQ("ps", m->params[0].unit);
	EXPECT_EQ(200000, m->params[0].value);
	EXPECT_STREQ("link-mbps", m->params[1].name);
	EXPECT_STREQ("MB/s", m->params[1].unit);
	EXPECT_EQ(14000, m->params[1].value);
	EXPECT_EQ(28000, m->params[1].default_value);
	EXPECT_EQ(1, m->params[1].minimum);
	EXPECT_EQ(1000000000000ULL, m->params[1].maximum);
	EXPECT_STREQ("eff-write-npu-permille", m->params[2].name);
	EXPECT_STREQ("permille", m->params[2].unit);
	EXPECT_EQ(&m->params[1], ubfab_model_find(m, "link-mbps"));
	EXPECT_EQ(&m->params[2], ubfab_model_find(m, "eff-write-npu-permille"));
	EXPECT_EQ(NULL, ubfab_model_find(m, "link"));
	EXPECT_EQ(NULL, ubfab_model_find(m, NULL));
	EXPECT_EQ(NULL, ubfab_model_find(NULL, "link-mbps"));
	/* a kernel that does not report the model's memory: all 0 */
	EXPECT_EQ(0, m->mem.links);
	EXPECT_EQ(0, m->mem.queues);
	EXPECT_EQ(0, m->mem.total_bytes);
	ubfab_model_free(m);

	/* a kernel without the model: nothing returned */
	m = NULL;
	end_send(false, -EOPNOTSUPP, NULL, true);
	ASSERT_EQ(-EOPNOTSUPP, REQUEST(ubfab_model_get(&nl, &m)));
	EXPECT_EQ(NULL, m);
	ASSERT_EQ(-EINVAL, ubfab_model_get(&nl, NULL));
	ASSERT_EQ(-EINVAL, ubfab_model_get(NULL, &m));
	ubfab_model_free(NULL);
}

/* model get: the memory nest lands in @mem, whatever its place */
TEST_F(nl, model_get_mem)
{
	struct ubfab_model *m = NULL;
	struct nlattr *nest;
	struct nl_msg *msg;

	msg = data_new(UBFAB_CMD_MODEL_GET, false);
	nest = nla_nest_start(msg, UBFAB_A_MODEL_MEM);
	put_u64_pad(msg, UBFAB_A_MEM_LINKS, 8, UBFAB_A_MEM_PAD);
	put_u64_pad(msg, UBFAB_A_MEM_LINKS_BYTES, 128, UBFAB_A_MEM_PAD);
	nla_put_u32(msg, UBFAB_A_MEM_QUEUES, 3);
	put_u64_pad(msg, UBFAB_A_MEM_QUEUE_BYTES, 600, UBFAB_A_MEM_PAD);
	put_u64_pad(msg, UBFAB_A_MEM_STAMPS, 5000, UBFAB_A_MEM_PAD);
	put_u64_pad(msg, UBFAB_A_MEM_STAMP_BYTES, 1ULL << 33, UBFAB_A_MEM_PAD);
	put_u64_pad(msg, UBFAB_A_MEM_OTHER_BYTES, 7, UBFAB_A_MEM_PAD);
	put_u64_pad(msg, UBFAB_A_MEM_TOTAL_BYTES, (1ULL << 33) + 735,
		    UBFAB_A_MEM_PAD);
	nla_nest_end(msg, nest);
	put_model(msg);
	reply_send(msg);
	ack_send();
	ASSERT_EQ(0, REQUEST(ubfab_model_get(&nl, &m)));
	ASSERT_EQ(3, m->nparams);
	EXPECT_EQ(8, m->mem.links);
	EXPECT_EQ(128, m->mem.links_bytes);
	EXPECT_EQ(3, m->mem.queues);
	EXPECT_EQ(600, m->mem.queue_bytes);
	EXPECT_EQ(5000, m->mem.stamps);
	EXPECT_EQ(1ULL << 33, m->mem.stamp_bytes);
	EXPECT_EQ(7, m->mem.other_bytes);
	EXPECT_EQ((1ULL << 33) + 735, m->mem.total_bytes);
	ubfab_model_free(m);

	/* every attribute of the nest is required */
	m = NULL;
	msg = data_new(UBFAB_CMD_MODEL_GET, false);
	put_model(msg);
	nest = nla_nest_start(msg, UBFAB_A_MODEL_MEM);
	put_u64_pad(msg, UBFAB_A_MEM_LINKS, 8, UBFAB_A_MEM_PAD);
	nla_nest_end(msg, nest);
	reply_send(msg);
	ack_send();
	ASSERT_EQ(-EPROTO, REQUEST(ubfab_model_get(&nl, &m)));
	EXPECT_EQ(NULL, m);
}

/* A param without its unit. */
static void fill_param_no_unit(struct nl_msg *msg)
{
	struct nlattr *nest;

	nla_put_string(msg, UBFAB_A_MODEL_PROFILE, "cm384");
	nest = nla_nest_start(msg, UBFAB_A_MODEL_PARAM);
	nla_put_string(msg, UBFAB_A_PARAM_NAME, "hop-ps");
	nla_put_u64(msg, UBFAB_A_PARAM_VALUE, 1);
	nla_put_u64(msg, UBFAB_A_PARAM_MINIMUM, 0);
	nla_put_u64(msg, UBFAB_A_PARAM_MAXIMUM, 2);
	nla_put_u64(msg, UBFAB_A_PARAM_DEFAULT, 1);
	nla_nest_end(msg, nest);
}

static void fill_no_profile(struct nl_msg *msg)
{
	put_param(msg, "issue-ps", "ps", 200000, 200000);
}

/* A name longer than UBFAB_PARAM_MAX allows. */
static void fill_long_param_name(struct nl_msg *msg)
{
	nla_put_string(msg, UBFAB_A_MODEL_PROFILE, "cm384");
	put_param(msg, "a-parameter-name-of-32-characters", "ps", 1, 1);
}

static void fill_param_u32_value(struct nl_msg *msg)
{
	struct nlattr *nest;

	nla_put_string(msg, UBFAB_A_MODEL_PROFILE, "cm384");
	nest = nla_nest_start(msg, UBFAB_A_MODEL_PARAM);
	nla_put_u32(msg, UBFAB_A_PARAM_VALUE, 1);
	nla_nest_end(msg, nest);
}

/* model get: malformed replies are -EPROTO */
TEST_F(nl, model_get_malformed)
{
	static void (*const fills[])(struct nl_msg *msg) = {
		fill_param_no_unit, fill_no_profile, fill_long_param_name,
		fill_param_u32_value, put_model,
	};
	struct ubfab_model *m = NULL;
	struct nl_msg *msg;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fills); i++) {
		msg = data_new(UBFAB_CMD_MODEL_GET, false);
		fills[i](msg);
		reply_send(msg);
		/* the last one is well formed, but comes twice */
		if (fills[i] == put_model) {
			msg = data_new(UBFAB_CMD_MODEL_GET, false);
			put_model(msg);
			reply_send(msg);
		}
		ack_send();
		ASSERT_EQ(-EPROTO, REQUEST(ubfab_model_get(&nl, &m)))
			TH_LOG("malformed reply %zu accepted", i);
		ASSERT_EQ(NULL, m);
	}
}

/* What the fake kernel read of a model-set request. */
struct model_request {
	uint16_t flags;
	bool profile_first;	/* the profile came before every param */
	char profile[UBFAB_NAME_MAX];	/* "" if none */
	size_t n;
	char names[256][UBFAB_PARAM_MAX];
	uint64_t values[256];
};

/*
 * Read the request the session sent last into @r: 0, or -1 if it is no
 * model-set request, or a param nest is not flagged nested or does not
 * hold exactly a name and a u64 value.
 */
static int model_request_read(struct model_request *r)
{
	static const struct nla_policy policy[UBFAB_A_PARAM_MAX + 1] = {
		[UBFAB_A_PARAM_NAME] = { .type = NLA_STRING,
					 .maxlen = UBFAB_PARAM_MAX },
		[UBFAB_A_PARAM_VALUE] = { .type = NLA_U64, .minlen = 8,
					  .maxlen = 8 },
	};
	static uint64_t buf[4096];
	struct nlmsghdr *hdr = (struct nlmsghdr *)buf;
	struct nlattr *tb[UBFAB_A_PARAM_MAX + 1], *a;
	struct genlmsghdr *gnlh;
	ssize_t len;
	int rem;

	memset(r, 0, sizeof(*r));
	len = recv(nl_socket_get_fd(kernel), buf, sizeof(buf), MSG_DONTWAIT);
	if (len <= 0 || !nlmsg_ok(hdr, len) || !genlmsg_valid_hdr(hdr, 0))
		return -1;
	gnlh = nlmsg_data(hdr);
	if (hdr->nlmsg_type != FAMILY || gnlh->cmd != UBFAB_CMD_MODEL_SET)
		return -1;
	r->flags = hdr->nlmsg_flags;
	nla_for_each_attr(a, genlmsg_attrdata(gnlh, 0),
			  genlmsg_attrlen(gnlh, 0), rem) {
		if (a->nla_type == UBFAB_A_MODEL_PROFILE) {
			snprintf(r->profile, sizeof(r->profile), "%s",
				 nla_get_string(a));
			r->profile_first = !r->n;
			continue;
		}
		if (a->nla_type != (UBFAB_A_MODEL_PARAM | NLA_F_NESTED) ||
		    r->n == ARRAY_SIZE(r->names) ||
		    nla_parse_nested(tb, UBFAB_A_PARAM_MAX, a, policy) ||
		    !tb[UBFAB_A_PARAM_NAME] || !tb[UBFAB_A_PARAM_VALUE] ||
		    nla_len(a) != nla_total_size(nla_len(tb[UBFAB_A_PARAM_NAME])) +
				  nla_total_size(8))
			return -1;
		snprintf(r->names[r->n], UBFAB_PARAM_MAX, "%s",
			 nla_get_string(tb[UBFAB_A_PARAM_NAME]));
		r->values[r->n++] = nla_get_u64(tb[UBFAB_A_PARAM_VALUE]);
	}
	return 0;
}

/* model set: the profile, then a param nest per value, in one request */
TEST_F(nl, model_set)
{
	static const struct ubfab_model_value v[] = {
		{ "hop-ps", 250000 },
		{ "eff-read-cpu-permille", 1000 },
		{ "hop-ps", UINT64_MAX },
	};
	static struct ubfab_model_value many[256];
	static char names[256][16];
	static struct model_request r;
	struct nl_msg *msg;
	size_t i;

	ack_send();
	ASSERT_EQ(0, REQUEST(ubfab_model_set(&nl, "cm384", v, 3)));
	ASSERT_EQ(0, model_request_read(&r));
	EXPECT_TRUE(r.flags & NLM_F_ACK);
	EXPECT_STREQ("cm384", r.profile);
	EXPECT_TRUE(r.profile_first);
	ASSERT_EQ(3, r.n);
	for (i = 0; i < 3; i++) {
		EXPECT_STREQ(v[i].name, r.names[i]);
		EXPECT_EQ(v[i].value, r.values[i]);
	}

	/* a profile alone; values alone */
	ack_send();
	ASSERT_EQ(0, REQUEST(ubfab_model_set(&nl, "cm384", NULL, 0)));
	ASSERT_EQ(0, model_request_read(&r));
	EXPECT_STREQ("cm384", r.profile);
	EXPECT_EQ(0, r.n);
	ack_send();
	ASSERT_EQ(0, REQUEST(ubfab_model_set(&nl, NULL, v + 1, 1)));
	ASSERT_EQ(0, model_request_read(&r));
	EXPECT_STREQ("", r.profile);
	ASSERT_EQ(1, r.n);
	EXPECT_STREQ("eff-read-cpu-permille", r.names[0]);

	/* more than a page of values, the longest names among them */
	for (i = 0; i < ARRAY_SIZE(many); i++) {
		snprintf(names[i], sizeof(names[i]), "p%zu-ps", i);
		many[i] = (struct ubfab_model_value){ names[i], i };
	}
	many[7].name = "a-parameter-name-of-31-chars-ps";
	ack_send();
	ASSERT_EQ(0, REQUEST(ubfab_model_set(&nl, "0123456789abcde", many,
					     ARRAY_SIZE(many))));
	ASSERT_EQ(0, model_request_read(&r));
	EXPECT_STREQ("0123456789abcde", r.profile);
	ASSERT_EQ(ARRAY_SIZE(many), r.n);
	EXPECT_STREQ("p255-ps", r.names[255]);
	EXPECT_EQ(255, r.values[255]);
	EXPECT_STREQ("a-parameter-name-of-31-chars-ps", r.names[7]);

	/* the kernel's refusal and its reason are passed on */
	end_send(false, -ERANGE, "hop-ps: 2000000000000 out of range", false);
	ASSERT_EQ(-ERANGE, REQUEST(ubfab_model_set(&nl, NULL, v, 1)));
	EXPECT_STREQ("hop-ps: 2000000000000 out of range",
		     ubfab_nl_errmsg(&nl));
	end_send(false, -ENOENT, "unknown profile", true);
	ASSERT_EQ(-ENOENT, REQUEST(ubfab_model_set(&nl, "cm385", NULL, 0)));
	EXPECT_STREQ("unknown profile", ubfab_nl_errmsg(&nl));
	end_send(false, -EPERM, NULL, true);
	ASSERT_EQ(-EPERM, REQUEST(ubfab_model_set(&nl, NULL, v, 1)));
	/* set only acks: data in its reply is malformed */
	msg = data_new(UBFAB_CMD_MODEL_GET, false);
	put_model(msg);
	reply_send(msg);
	ack_send();
	ASSERT_EQ(-EPROTO, REQUEST(ubfab_model_set(&nl, NULL, v, 1)));

	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, model_request_read(&r));

	/* refused before anything is sent */
	ASSERT_EQ(-ENOENT, ubfab_model_set(&nl, "0123456789abcdef", v, 1));
	many[0].name = "a-parameter-name-of-32-characters";
	ASSERT_EQ(-ENOENT, ubfab_model_set(&nl, NULL, many, 1));
	many[0].name = NULL;
	ASSERT_EQ(-EINVAL, ubfab_model_set(&nl, NULL, many, 1));
	ASSERT_EQ(-EINVAL, ubfab_model_set(&nl, NULL, NULL, 1));
	ASSERT_EQ(-EINVAL, ubfab_model_set(NULL, NULL, v, 1));
	ASSERT_EQ(-1, model_request_read(&r));
}

/* events: model-ntf decoded from version 1.4 on, skipped before */
TEST_F(nl, model_event)
{
	struct ubfab_nl_event ev = { 0 };
	struct nl_msg *msg;

	msg = data_new(UBFAB_CMD_MODEL_NTF, false);
	put_model(msg);
	ASSERT_EQ(0, libubfab_event_decode(nlmsg_hdr(msg), &ev, true));
	EXPECT_EQ(UBFAB_CMD_MODEL_NTF, ev.cmd);
	ASSERT_NE(NULL, ev.model);
	EXPECT_STREQ("custom", ev.model->profile);
	ASSERT_EQ(3, ev.model->nparams);
	EXPECT_STREQ("link-mbps", ev.model->params[1].name);
	EXPECT_EQ(14000, ev.model->params[1].value);
	ubfab_model_free(ev.model);

	ev.cmd = 0;
	EXPECT_EQ(-ENOMSG, libubfab_event_decode(nlmsg_hdr(msg), &ev, false));
	EXPECT_EQ(0, ev.cmd);
	nlmsg_free(msg);

	msg = data_new(UBFAB_CMD_MODEL_NTF, false);
	fill_param_no_unit(msg);
	EXPECT_EQ(-EPROTO, libubfab_event_decode(nlmsg_hdr(msg), &ev, true));
	nlmsg_free(msg);

	/* the other events, with and without model events */
	msg = data_new(UBFAB_CMD_PLANE_NTF, false);
	put_plane(msg, 4);
	ASSERT_EQ(0, libubfab_event_decode(nlmsg_hdr(msg), &ev, false));
	EXPECT_EQ(UBFAB_CMD_PLANE_NTF, ev.cmd);
	EXPECT_EQ(4, ev.plane.id);
	ev.cmd = 0;
	ASSERT_EQ(0, libubfab_event_decode(nlmsg_hdr(msg), &ev, true));
	EXPECT_EQ(UBFAB_CMD_PLANE_NTF, ev.cmd);
	nlmsg_free(msg);
	/* a command no version knows */
	msg = data_new(UBFAB_CMD_MAX + 1, false);
	EXPECT_EQ(-ENOMSG, libubfab_event_decode(nlmsg_hdr(msg), &ev, true));
	nlmsg_free(msg);
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
