// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Host test of libubfab's reply handling, without ubfab.ko: a session is
 * pointed at a second netlink socket of this process (NETLINK_USERSOCK)
 * that plays the kernel. Each case queues crafted replies on the session's
 * socket, with the sequence number the next request will carry, then
 * calls the public API, which sends its request and reads them. Linked
 * with libubfab.a to reach the session structure. Prints KTAP.
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
#include "ktap.h"

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

static bool test_fabric(void)
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

	CHECK(REQUEST(ubfab_fabric_get(&nl, &f)) == 0);
	CHECK(!strcmp(f.profile, "cm384"));
	CHECK(f.nodes == UBFAB_A_FABRIC_NODES);
	CHECK(f.cpus == UBFAB_A_FABRIC_CPUS);
	CHECK(f.npu_mem == (uint64_t)UBFAB_A_FABRIC_NPU_MEM << 40);
	CHECK(f.setup_ns == (uint64_t)UBFAB_A_FABRIC_SETUP_NS << 40);
	return true;
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

static bool test_entity_kinds(void)
{
	struct ubfab_entity_info e;

	entity_reply(fill_npu);
	CHECK(REQUEST(ubfab_entity_get_by_name(&nl, "npu3", &e)) == 0);
	CHECK(e.eid == 3 && !strcmp(e.name, "npu3") && e.chip == 1 &&
	      e.die == 1 && e.socket == UBFAB_FIELD_NONE &&
	      e.mem_size == 64ULL << 30 && e.ports == 7 &&
	      e.auth_failures == UBFAB_COUNT_NONE);

	entity_reply(fill_npu_auth);
	CHECK(REQUEST(ubfab_entity_get(&nl, 3, &e)) == 0);
	CHECK(e.eid == 3 && e.auth_failures == 5);

	entity_reply(fill_cpu);
	CHECK(REQUEST(ubfab_entity_get(&nl, 33, &e)) == 0);
	CHECK(e.kind == UBFAB_ENTITY_CPU && e.socket == 1 &&
	      e.chip == UBFAB_FIELD_NONE && e.die == UBFAB_FIELD_NONE);
	return true;
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

static bool test_entity_malformed(void)
{
	static void (*const fills[])(struct nl_msg *msg) = {
		fill_cpu_with_chip, fill_npu_without_die, fill_u64_node,
		fill_long_name, fill_unterminated_name, fill_no_kind,
	};
	struct ubfab_entity_info e;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fills); i++) {
		entity_reply(fills[i]);
		if (REQUEST(ubfab_entity_get(&nl, 3, &e)) != -EPROTO) {
			printf("# malformed reply %zu accepted\n", i);
			return false;
		}
	}
	return true;
}

static bool test_do_errors(void)
{
	struct ubfab_entity_info e;
	struct ubfab_port_info p;
	struct nl_msg *msg;
	int i;

	/* the request echoed, then the extack */
	end_send(false, -ENODEV, "no such entity", false);
	CHECK(REQUEST(ubfab_entity_get(&nl, 99, &e)) == -ENODEV);
	CHECK(!strcmp(ubfab_nl_errmsg(&nl), "no such entity"));

	/* a success keeps the message of the last failure */
	entity_reply(fill_npu);
	CHECK(REQUEST(ubfab_entity_get(&nl, 3, &e)) == 0);
	CHECK(!strcmp(ubfab_nl_errmsg(&nl), "no such entity"));

	/* capped, no extack: the message is cleared */
	end_send(false, -EINVAL, NULL, true);
	CHECK(REQUEST(ubfab_port_get(&nl, 3, 9, &p)) == -EINVAL);
	CHECK(!strcmp(ubfab_nl_errmsg(&nl), ""));

	/* an ack without data, and two data messages, are malformed */
	ack_send();
	CHECK(REQUEST(ubfab_entity_get(&nl, 3, &e)) == -EPROTO);
	for (i = 0; i < 2; i++) {
		msg = data_new(UBFAB_CMD_ENTITY_GET, false);
		put_entity(msg, 3, true);
		reply_send(msg);
	}
	ack_send();
	CHECK(REQUEST(ubfab_entity_get(&nl, 3, &e)) == -EPROTO);
	return true;
}

static bool test_stale(void)
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
	CHECK(REQUEST(ubfab_entity_get(&nl, 3, &e)) == 0 && e.eid == 3);
	return true;
}

/* The 1.0 entity calls fill the 1.0 struct, not a byte more. */
static bool test_entity_1_0(void)
{
	union {
		struct ubfab_entity_info e;
		unsigned char bytes[sizeof(struct ubfab_entity_info)];
	} u;
	const uint64_t untouched = 0xa5a5a5a5a5a5a5a5ULL;

	memset(&u, 0xa5, sizeof(u));
	entity_reply(fill_npu_auth);
	CHECK(REQUEST(libubfab_entity_get_1_0(&nl, 3, &u)) == 0);
	CHECK(u.e.eid == 3 && u.e.ports == 7 &&
	      u.e.auth_failures == untouched);

	memset(&u, 0xa5, sizeof(u));
	entity_reply(fill_npu_auth);
	CHECK(REQUEST(libubfab_entity_get_by_name_1_0(&nl, "npu3", &u)) == 0);
	CHECK(!strcmp(u.e.name, "npu3") && u.e.auth_failures == untouched);

	/* errors are passed on, and nothing is written */
	memset(&u, 0xa5, sizeof(u));
	end_send(false, -ENODEV, NULL, true);
	CHECK(REQUEST(libubfab_entity_get_1_0(&nl, 99, &u)) == -ENODEV);
	CHECK(u.bytes[0] == 0xa5);
	CHECK(libubfab_entity_get_1_0(&nl, 3, NULL) == -EINVAL);
	return true;
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

static bool test_port_dump(void)
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
	CHECK(REQUEST(ubfab_port_dump(&nl, 5, port_cb, &w)) == 0);
	CHECK(w.calls == 3);
	CHECK(w.tx_bytes[2] == 200 + UBFAB_A_STATS_TX_BYTES);

	/* stats missing a counter */
	msg = data_new(UBFAB_CMD_PORT_GET, true);
	nla_put_u32(msg, UBFAB_A_PORT_EID, 5);
	nla_put_u32(msg, UBFAB_A_PORT_PLANE, 0);
	nla_put_u32(msg, UBFAB_A_PORT_STATE, UBFAB_STATE_UP);
	nla_nest_end(msg, nla_nest_start(msg, UBFAB_A_PORT_STATS));
	reply_send(msg);
	end_send(true, 0, NULL, false);
	CHECK(REQUEST(ubfab_port_dump(&nl, UBFAB_EID_ANY, port_cb, &w)) ==
	      -EPROTO);

	/* the dump fails: errno and extack in the NLMSG_DONE */
	end_send(true, -ENODEV, "no such entity", false);
	CHECK(REQUEST(ubfab_port_dump(&nl, 99, port_cb, &w)) == -ENODEV);
	CHECK(!strcmp(ubfab_nl_errmsg(&nl), "no such entity"));
	return true;
}

static int plane_cb(const struct ubfab_plane_info *p, void *arg)
{
	struct walk *w = arg;

	w->tx_bytes[w->calls % 8] = p->ports_up;
	return ++w->calls == w->stop_at ? 42 : 0;
}

static bool test_plane_dump_stop(void)
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
	CHECK(REQUEST(ubfab_plane_dump(&nl, plane_cb, &w)) == 42);
	CHECK(w.calls == 2 && w.tx_bytes[1] == 39);

	/* the rest of the dump was read: the next request gets its reply */
	msg = data_new(UBFAB_CMD_PLANE_GET, false);
	put_plane(msg, 6);
	reply_send(msg);
	ack_send();
	CHECK(REQUEST(ubfab_plane_get(&nl, 6, &p)) == 0);
	CHECK(p.id == 6 && p.l2_switches == 16 && p.ports == 40 &&
	      p.stats.errors == UBFAB_A_STATS_ERRORS);
	return true;
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

static bool test_seg_dump(void)
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
	CHECK(REQUEST(ubfab_seg_dump(&nl, 7, seg_cb, &last)) == 0);
	CHECK(last.eid == 7 && last.token_id == 3 &&
	      last.offset == 1ULL << 36 && last.length == 3 * 4096 &&
	      last.rights == UBFAB_SEG_READ && last.imports == 2 &&
	      last.pid == 4242);

	/* every attribute is required */
	msg = data_new(UBFAB_CMD_SEG_GET, true);
	put_seg(msg, 7, 1);
	nlmsg_hdr(msg)->nlmsg_len -= NLA_ALIGN(nla_total_size(sizeof(uint32_t)));
	reply_send(msg);
	end_send(true, 0, NULL, false);
	CHECK(REQUEST(ubfab_seg_dump(&nl, UBFAB_EID_ANY, seg_cb, &last)) ==
	      -EPROTO);

	/* an older kernel does not know the command */
	end_send(false, -EOPNOTSUPP, NULL, true);
	CHECK(REQUEST(ubfab_seg_dump(&nl, UBFAB_EID_ANY, seg_cb, &last)) ==
	      -EOPNOTSUPP);
	CHECK(ubfab_seg_dump(&nl, UBFAB_EID_ANY, NULL, NULL) == -EINVAL);
	return true;
}

static bool test_arguments(void)
{
	struct ubfab_entity_info e;

	/* refused before anything is sent */
	CHECK(ubfab_entity_get_by_name(&nl, "0123456789abcdef", &e) ==
	      -ENODEV);
	CHECK(ubfab_entity_get_by_name(&nl, NULL, &e) == -EINVAL);
	CHECK(ubfab_entity_get(NULL, 0, &e) == -EINVAL);
	CHECK(ubfab_entity_get(&nl, 0, NULL) == -EINVAL);
	CHECK(ubfab_plane_dump(&nl, NULL, NULL) == -EINVAL);
	CHECK(ubfab_nl_open(NULL) == -EINVAL);
	CHECK(!strcmp(ubfab_nl_errmsg(NULL), ""));
	CHECK(!strcmp(ubfab_kind_name(UBFAB_ENTITY_CPU), "cpu"));
	CHECK(!strcmp(ubfab_kind_name(0), "unknown"));
	CHECK(!strcmp(ubfab_kind_name(UINT32_MAX), "unknown"));
	CHECK(!strcmp(ubfab_state_name(UBFAB_STATE_DOWN), "down"));
	CHECK(!strcmp(ubfab_state_name(2), "unknown"));
	return true;
}

static const struct {
	const char *name;
	bool (*run)(void);
} cases[] = {
	{ "fabric: every attribute, u64s after PAD attributes", test_fabric },
	{ "entity: NPU and CPU fields by kind", test_entity_kinds },
	{ "entity: malformed replies are -EPROTO", test_entity_malformed },
	{ "entity: the 1.0 calls fill only the 1.0 struct", test_entity_1_0 },
	{ "do: kernel errors, extack message, acks", test_do_errors },
	{ "replies of other requests are skipped", test_stale },
	{ "port dump: nested stats, errors in NLMSG_DONE", test_port_dump },
	{ "plane dump: early stop, then the session goes on",
	  test_plane_dump_stop },
	{ "seg dump: every attribute, an older kernel", test_seg_dump },
	{ "arguments and names", test_arguments },
};

static int setup(void)
{
	/* a reply the library waits for in vain fails the case, not hangs */
	const struct timeval timeout = { .tv_sec = 2 };

	nl.family = FAMILY;
	kernel = nl_socket_alloc();
	nl.sk = nl_socket_alloc();
	if (!kernel || !nl.sk || nl_connect(kernel, NETLINK_USERSOCK) ||
	    nl_connect(nl.sk, NETLINK_USERSOCK) ||
	    setsockopt(nl_socket_get_fd(nl.sk), SOL_SOCKET, SO_RCVTIMEO,
		       &timeout, sizeof(timeout)))
		return -1;
	nl_socket_set_peer_port(nl.sk, nl_socket_get_local_port(kernel));
	nl_socket_disable_auto_ack(nl.sk);
	/* the next automatic sequence number follows this one */
	next_seq = nl_socket_use_seq(nl.sk) + 1;
	return 0;
}

int main(void)
{
	size_t i;

	printf("TAP version 13\n1..%zu\n", ARRAY_SIZE(cases));
	if (setup()) {
		printf("Bail out! no NETLINK_USERSOCK sockets\n");
		return 1;
	}
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		result(cases[i].run(), cases[i].name);
	totals();
	nl_socket_free(nl.sk);
	nl_socket_free(kernel);
	return failures ? 1 : 0;
}
