// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab fault injection and its events: port and plane states set and
 * read back through libubfab, the errors of the set and reset commands
 * (ENODEV, EINVAL, EPERM without CAP_NET_ADMIN), and the notifications of
 * the "events" multicast group, one per change and in order.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>

#include "kselftest_harness.h"
#include "libubfab.h"
#include "ubfab_test.h"

FIXTURE(ctl) {
	struct ubfab_nl *nl;
	struct ubfab_nl *events;
};

FIXTURE_SETUP(ctl)
{
	ASSERT_EQ(0, ubfab_reload(""));
	ASSERT_EQ(0, ubfab_nl_open(&self->nl));
	ASSERT_EQ(0, ubfab_nl_open(&self->events));
	ASSERT_EQ(0, ubfab_nl_subscribe(self->events));
}

FIXTURE_TEARDOWN(ctl)
{
	ubfab_nl_close(self->events);
	ubfab_nl_close(self->nl);
	ubfab_unload();
}

static uint32_t port_state(struct ubfab_nl *nl, uint32_t eid, uint32_t plane)
{
	struct ubfab_port_info p;

	return ubfab_port_get(nl, eid, plane, &p) ? UINT32_MAX : p.state;
}

/* The next event, within @ms milliseconds: 0 or a negative errno. */
static int next_event(struct ubfab_nl *nl, struct ubfab_nl_event *ev, int ms)
{
	struct pollfd pfd = { .fd = ubfab_nl_fd(nl), .events = POLLIN };
	int n = poll(&pfd, 1, ms);

	if (n < 0)
		return -errno;
	return n ? ubfab_nl_event_read(nl, ev) : -ETIMEDOUT;
}

TEST_F(ctl, port_down_and_up)
{
	struct ubfab_plane_info pl;
	uint32_t up;

	ASSERT_EQ(0, ubfab_plane_get(self->nl, 2, &pl));
	up = pl.ports_up;
	ASSERT_EQ(UBFAB_STATE_UP, port_state(self->nl, 1, 2));

	ASSERT_EQ(0, ubfab_port_set_state(self->nl, 1, 2, UBFAB_STATE_DOWN));
	EXPECT_EQ(UBFAB_STATE_DOWN, port_state(self->nl, 1, 2));
	/* only that port */
	EXPECT_EQ(UBFAB_STATE_UP, port_state(self->nl, 1, 1));
	EXPECT_EQ(UBFAB_STATE_UP, port_state(self->nl, 0, 2));
	ASSERT_EQ(0, ubfab_plane_get(self->nl, 2, &pl));
	EXPECT_EQ(up - 1, pl.ports_up);
	EXPECT_EQ(UBFAB_STATE_UP, pl.state);

	/* setting it again is no error */
	ASSERT_EQ(0, ubfab_port_set_state(self->nl, 1, 2, UBFAB_STATE_DOWN));
	EXPECT_EQ(UBFAB_STATE_DOWN, port_state(self->nl, 1, 2));

	ASSERT_EQ(0, ubfab_port_set_state(self->nl, 1, 2, UBFAB_STATE_UP));
	EXPECT_EQ(UBFAB_STATE_UP, port_state(self->nl, 1, 2));
	ASSERT_EQ(0, ubfab_plane_get(self->nl, 2, &pl));
	EXPECT_EQ(up, pl.ports_up);
}

TEST_F(ctl, plane_down_and_up)
{
	struct ubfab_plane_info pl;

	ASSERT_EQ(0, ubfab_plane_set_state(self->nl, 3, UBFAB_STATE_DOWN));
	ASSERT_EQ(0, ubfab_plane_get(self->nl, 3, &pl));
	EXPECT_EQ(UBFAB_STATE_DOWN, pl.state);
	/* its ports keep their states */
	EXPECT_EQ(pl.ports, pl.ports_up);
	EXPECT_EQ(UBFAB_STATE_UP, port_state(self->nl, 0, 3));
	ASSERT_EQ(0, ubfab_plane_get(self->nl, 2, &pl));
	EXPECT_EQ(UBFAB_STATE_UP, pl.state);

	ASSERT_EQ(0, ubfab_plane_set_state(self->nl, 3, UBFAB_STATE_UP));
	ASSERT_EQ(0, ubfab_plane_get(self->nl, 3, &pl));
	EXPECT_EQ(UBFAB_STATE_UP, pl.state);
}

TEST_F(ctl, bad_identifiers_and_states)
{
	struct ubfab_fabric_info f;
	uint32_t n;

	ASSERT_EQ(0, ubfab_fabric_get(self->nl, &f));
	n = f.npus + f.cpus;

	EXPECT_EQ(-ENODEV, ubfab_port_set_state(self->nl, n, 0,
						UBFAB_STATE_DOWN));
	EXPECT_STRNE("", ubfab_nl_errmsg(self->nl));
	EXPECT_EQ(-ENODEV, ubfab_port_set_state(self->nl, 0, f.planes,
						UBFAB_STATE_DOWN));
	EXPECT_EQ(-ENODEV, ubfab_plane_set_state(self->nl, f.planes,
						 UBFAB_STATE_DOWN));
	EXPECT_EQ(-ENODEV, ubfab_plane_set_state(self->nl, UINT32_MAX,
						 UBFAB_STATE_DOWN));
	EXPECT_EQ(-ENODEV, ubfab_entity_reset(self->nl, n));

	EXPECT_EQ(-EINVAL, ubfab_port_set_state(self->nl, 0, 0, 2));
	EXPECT_STRNE("", ubfab_nl_errmsg(self->nl));
	EXPECT_EQ(-EINVAL, ubfab_port_set_state(self->nl, 0, 0, UINT32_MAX));
	EXPECT_EQ(-EINVAL, ubfab_plane_set_state(self->nl, 0, 2));

	/* nothing changed */
	EXPECT_EQ(UBFAB_STATE_UP, port_state(self->nl, 0, 0));
}

/* Drop CAP_NET_ADMIN from the effective set of the calling process. */
static int drop_net_admin(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	data[CAP_TO_INDEX(CAP_NET_ADMIN)].effective &=
		~CAP_TO_MASK(CAP_NET_ADMIN);
	return syscall(SYS_capset, &hdr, data) ? -errno : 0;
}

/* Each check in the child adds a bit to its exit status when it fails. */
TEST_F(ctl, eperm_without_net_admin)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct ubfab_nl *nl;
		struct ubfab_port_info p;
		int bad = 0;

		if (drop_net_admin() || ubfab_nl_open(&nl))
			_exit(1);
		bad |= (ubfab_port_set_state(nl, 0, 0, UBFAB_STATE_DOWN) !=
			-EPERM) << 1;
		bad |= (ubfab_plane_set_state(nl, 0, UBFAB_STATE_DOWN) !=
			-EPERM) << 2;
		bad |= (ubfab_entity_reset(nl, 0) != -EPERM) << 3;
		/* reading needs no capability */
		bad |= (ubfab_port_get(nl, 0, 0, &p) != 0) << 4;
		ubfab_nl_close(nl);
		_exit(bad);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(UBFAB_STATE_UP, port_state(self->nl, 0, 0));
	EXPECT_EQ(-ETIMEDOUT, next_event(self->events,
					 &(struct ubfab_nl_event){ 0 }, 100));
}

TEST_F(ctl, events_in_order)
{
	struct ubfab_nl_event ev;
	struct ubfab_entity_info e;

	ASSERT_EQ(0, ubfab_entity_get_by_name(self->nl, "cpu0", &e));

	ASSERT_EQ(0, ubfab_port_set_state(self->nl, 4, 6, UBFAB_STATE_DOWN));
	/* no change, no event */
	ASSERT_EQ(0, ubfab_port_set_state(self->nl, 4, 6, UBFAB_STATE_DOWN));
	ASSERT_EQ(0, ubfab_plane_set_state(self->nl, 1, UBFAB_STATE_UP));
	ASSERT_EQ(0, ubfab_plane_set_state(self->nl, 1, UBFAB_STATE_DOWN));
	ASSERT_EQ(0, ubfab_entity_reset(self->nl, e.eid));
	ASSERT_EQ(0, ubfab_port_set_state(self->nl, 4, 6, UBFAB_STATE_UP));
	ASSERT_EQ(0, ubfab_plane_set_state(self->nl, 1, UBFAB_STATE_UP));

	ASSERT_EQ(0, next_event(self->events, &ev, 2000));
	EXPECT_EQ(UBFAB_CMD_PORT_NTF, ev.cmd);
	EXPECT_EQ(4, ev.port.eid);
	EXPECT_EQ(6, ev.port.plane);
	EXPECT_EQ(UBFAB_STATE_DOWN, ev.port.state);

	ASSERT_EQ(0, next_event(self->events, &ev, 2000));
	EXPECT_EQ(UBFAB_CMD_PLANE_NTF, ev.cmd);
	EXPECT_EQ(1, ev.plane.id);
	EXPECT_EQ(UBFAB_STATE_DOWN, ev.plane.state);

	ASSERT_EQ(0, next_event(self->events, &ev, 2000));
	EXPECT_EQ(UBFAB_CMD_ENTITY_RESET_NTF, ev.cmd);
	EXPECT_EQ(e.eid, ev.entity.eid);
	EXPECT_STREQ("cpu0", ev.entity.name);

	ASSERT_EQ(0, next_event(self->events, &ev, 2000));
	EXPECT_EQ(UBFAB_CMD_PORT_NTF, ev.cmd);
	EXPECT_EQ(4, ev.port.eid);
	EXPECT_EQ(UBFAB_STATE_UP, ev.port.state);

	ASSERT_EQ(0, next_event(self->events, &ev, 2000));
	EXPECT_EQ(UBFAB_CMD_PLANE_NTF, ev.cmd);
	EXPECT_EQ(1, ev.plane.id);
	EXPECT_EQ(UBFAB_STATE_UP, ev.plane.state);
	EXPECT_EQ(ev.plane.ports, ev.plane.ports_up);

	EXPECT_EQ(-ETIMEDOUT, next_event(self->events, &ev, 100));
}

/* Events reach every subscribed session; unsubscribed ones see none. */
TEST_F(ctl, events_to_every_listener)
{
	struct ubfab_nl *second;
	struct ubfab_nl_event ev;

	ASSERT_EQ(0, ubfab_nl_open(&second));
	ASSERT_EQ(0, ubfab_nl_subscribe(second));
	ASSERT_EQ(0, ubfab_plane_set_state(self->nl, 0, UBFAB_STATE_DOWN));
	ASSERT_EQ(0, next_event(self->events, &ev, 2000));
	EXPECT_EQ(UBFAB_CMD_PLANE_NTF, ev.cmd);
	ASSERT_EQ(0, next_event(second, &ev, 2000));
	EXPECT_EQ(UBFAB_CMD_PLANE_NTF, ev.cmd);
	EXPECT_EQ(0, ev.plane.id);
	EXPECT_EQ(-ETIMEDOUT, next_event(self->nl, &ev, 100));
	ubfab_nl_close(second);
}

TEST_HARNESS_MAIN
