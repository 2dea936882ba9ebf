// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab fault injection and its events: port and plane states set and
 * read back through libubfab, the errors of the set and reset commands
 * (ENODEV, EINVAL, EPERM without CAP_NET_ADMIN), and the notifications of
 * the "events" multicast group, one per change and in order; the ports'
 * fault knobs in the model set with the state in one request and read
 * back (all or nothing: ERANGE), and the 1.2 event read's struct; the
 * fabric model's parameters read and set (all or nothing: ENOENT, ERANGE,
 * EPERM) and their events, and the memory the model holds (links, queues,
 * stamps). Then the same through ubctl (run where it is
 * in $PATH, as in the test VM): port and plane set seen by show, the
 * knobs in show and -j, its error messages and exit codes, stats counting
 * a queue WRITE and its NO_ROUTE failure with every plane down, entity
 * reset revoking a peer's import, model show and set in text and JSON,
 * and monitor's lines and JSON.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>

#include "internal.h"	/* libubfab_nl_event_read_1_2() */
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

/* What a freshly loaded module's ports have: up, and healthy knobs. */
static const struct ubfab_port_faults healthy_port = {
	.state = UBFAB_STATE_UP,
	.bw_permille = UBFAB_PORT_BW_FULL,
};

/* Whether @p has the state and the fault knobs of @f (all of them). */
static bool port_has(const struct ubfab_port_info *p,
		     const struct ubfab_port_faults *f)
{
	return p->state == f->state && p->bw_permille == f->bw_permille &&
	       p->delay_ps == f->delay_ps && p->error_ppm == f->error_ppm;
}

/* Whether port @eid/@plane has the state and the fault knobs of @f. */
static bool port_is(struct ubfab_nl *nl, uint32_t eid, uint32_t plane,
		    const struct ubfab_port_faults *f)
{
	struct ubfab_port_info p;

	return !ubfab_port_get(nl, eid, plane, &p) && port_has(&p, f);
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
		struct ubfab_model *m = NULL;
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
		bad |= (ubfab_model_set(nl, "cm384", NULL, 0) != -EPERM) << 5;
		bad |= (ubfab_port_set_faults(nl, 0, 0, &(struct ubfab_port_faults){
				.mask = UBFAB_PORT_FAULT_BW,
				.bw_permille = 500 }) != -EPERM) << 7;
		/* reading needs no capability */
		bad |= (ubfab_port_get(nl, 0, 0, &p) != 0) << 4;
		bad |= (ubfab_model_get(nl, &m) != 0) << 6;
		ubfab_model_free(m);
		ubfab_nl_close(nl);
		_exit(bad);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(UBFAB_STATE_UP, port_state(self->nl, 0, 0));
	EXPECT_TRUE(port_is(self->nl, 0, 0, &healthy_port));
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

/* The ports' fault knobs */

#define ALL_KNOBS	(UBFAB_PORT_FAULT_BW | UBFAB_PORT_FAULT_DELAY | \
			 UBFAB_PORT_FAULT_ERRORS)
#define MAX_DELAY_PS	1000000000000ULL

/* Ports a dump walked, and those whose state or knobs are not a fresh one's. */
struct port_count {
	unsigned int ports, changed;
};

static int count_changed(const struct ubfab_port_info *p, void *arg)
{
	struct port_count *c = arg;

	c->ports++;
	c->changed += !port_has(p, &healthy_port);
	return 0;
}

/*
 * The state and the knobs set in one request, read back by get and dump
 * and announced by one event; a mask's members only; the same values
 * again change nothing; the ranges' ends are taken.
 */
TEST_F(ctl, port_faults)
{
	struct ubfab_port_faults f = {
		.mask = UBFAB_PORT_FAULT_STATE | ALL_KNOBS,
		.state = UBFAB_STATE_DOWN,
		.bw_permille = 250,
		.delay_ps = 2000000,
		.error_ppm = 1000,
	};
	struct ubfab_fabric_info fab;
	struct port_count c = { 0 };
	struct ubfab_nl_event ev;

	ASSERT_EQ(0, ubfab_fabric_get(self->nl, &fab));
	EXPECT_TRUE(port_is(self->nl, 1, 2, &healthy_port));

	ASSERT_EQ(0, ubfab_port_set_faults(self->nl, 1, 2, &f));
	EXPECT_TRUE(port_is(self->nl, 1, 2, &f));
	/* only that port */
	ASSERT_EQ(0, ubfab_port_dump(self->nl, UBFAB_EID_ANY, count_changed,
				     &c));
	EXPECT_EQ((fab.npus + fab.cpus) * fab.planes, c.ports);
	EXPECT_EQ(1, c.changed);
	ASSERT_EQ(0, next_event(self->events, &ev, 2000));
	ASSERT_EQ(UBFAB_CMD_PORT_NTF, ev.cmd);
	EXPECT_EQ(1, ev.port.eid);
	EXPECT_EQ(2, ev.port.plane);
	EXPECT_TRUE(port_has(&ev.port, &f));
	EXPECT_EQ(-ETIMEDOUT, next_event(self->events, &ev, 100));

	/* the same values again: no change, no event */
	ASSERT_EQ(0, ubfab_port_set_faults(self->nl, 1, 2, &f));
	EXPECT_EQ(-ETIMEDOUT, next_event(self->events, &ev, 100));

	/* the members of the mask only; the ends of the ranges */
	f = (struct ubfab_port_faults){
		.mask = UBFAB_PORT_FAULT_DELAY, .delay_ps = MAX_DELAY_PS,
	};
	ASSERT_EQ(0, ubfab_port_set_faults(self->nl, 1, 2, &f));
	f = (struct ubfab_port_faults){
		.state = UBFAB_STATE_DOWN, .bw_permille = 250,
		.delay_ps = MAX_DELAY_PS, .error_ppm = 1000,
	};
	EXPECT_TRUE(port_is(self->nl, 1, 2, &f));
	f.mask = UBFAB_PORT_FAULT_BW | UBFAB_PORT_FAULT_ERRORS;
	f.bw_permille = 1;
	f.error_ppm = 1000000;
	ASSERT_EQ(0, ubfab_port_set_faults(self->nl, 1, 2, &f));
	EXPECT_TRUE(port_is(self->nl, 1, 2, &f));
	ASSERT_EQ(0, next_event(self->events, &ev, 2000));
	EXPECT_EQ(MAX_DELAY_PS, ev.port.delay_ps);
	EXPECT_EQ(250, ev.port.bw_permille);
	ASSERT_EQ(0, next_event(self->events, &ev, 2000));
	EXPECT_TRUE(port_has(&ev.port, &f));

	/* the state alone keeps the knobs */
	ASSERT_EQ(0, ubfab_port_set_state(self->nl, 1, 2, UBFAB_STATE_UP));
	f.state = UBFAB_STATE_UP;
	EXPECT_TRUE(port_is(self->nl, 1, 2, &f));

	/* back to health, in one request */
	f = healthy_port;
	f.mask = ALL_KNOBS;
	ASSERT_EQ(0, ubfab_port_set_faults(self->nl, 1, 2, &f));
	EXPECT_TRUE(port_is(self->nl, 1, 2, &healthy_port));
	ASSERT_EQ(0, next_event(self->events, &ev, 2000));
	ASSERT_EQ(0, next_event(self->events, &ev, 2000));
	EXPECT_TRUE(port_has(&ev.port, &healthy_port));
	c = (struct port_count){ 0 };
	ASSERT_EQ(0, ubfab_port_dump(self->nl, 1, count_changed, &c));
	EXPECT_EQ(fab.planes, c.ports);
	EXPECT_EQ(0, c.changed);
}

/*
 * A knob out of range is ERANGE, a bad state or an empty request EINVAL,
 * a port that does not exist ENODEV; each changes nothing, not even what
 * the same request set within range, and announces nothing.
 */
TEST_F(ctl, port_faults_refused)
{
	static const struct ubfab_port_faults bad[] = {
		{ .mask = UBFAB_PORT_FAULT_BW, .bw_permille = 0 },
		{ .mask = UBFAB_PORT_FAULT_BW, .bw_permille = 1001 },
		{ .mask = UBFAB_PORT_FAULT_BW, .bw_permille = UINT32_MAX },
		{ .mask = UBFAB_PORT_FAULT_DELAY, .delay_ps = MAX_DELAY_PS + 1 },
		{ .mask = UBFAB_PORT_FAULT_DELAY, .delay_ps = UINT64_MAX },
		{ .mask = UBFAB_PORT_FAULT_ERRORS, .error_ppm = 1000001 },
		{ .mask = UBFAB_PORT_FAULT_STATE | ALL_KNOBS,
		  .state = UBFAB_STATE_DOWN, .bw_permille = 500,
		  .delay_ps = 7, .error_ppm = 1000001 },
		{ .mask = UBFAB_PORT_FAULT_STATE | UBFAB_PORT_FAULT_BW,
		  .state = UBFAB_STATE_DOWN, .bw_permille = 0 },
	};
	struct ubfab_port_faults f = {
		.mask = UBFAB_PORT_FAULT_BW | UBFAB_PORT_FAULT_STATE,
		.state = 2, .bw_permille = 500,
	};
	struct ubfab_fabric_info fab;
	struct ubfab_nl_event ev;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-ERANGE, ubfab_port_set_faults(self->nl, 3, 1, &bad[i]))
			TH_LOG("request %zu", i);
		EXPECT_STRNE("", ubfab_nl_errmsg(self->nl));
	}
	EXPECT_EQ(-EINVAL, ubfab_port_set_faults(self->nl, 3, 1, &f));
	EXPECT_STRNE("", ubfab_nl_errmsg(self->nl));
	f.mask = 0;
	EXPECT_EQ(-EINVAL, ubfab_port_set_faults(self->nl, 3, 1, &f));
	EXPECT_EQ(-EINVAL, ubfab_port_set_faults(self->nl, 3, 1, NULL));
	ASSERT_EQ(0, ubfab_fabric_get(self->nl, &fab));
	f = (struct ubfab_port_faults){
		.mask = UBFAB_PORT_FAULT_DELAY, .delay_ps = 1,
	};
	EXPECT_EQ(-ENODEV, ubfab_port_set_faults(self->nl, fab.npus + fab.cpus,
						 1, &f));
	EXPECT_EQ(-ENODEV, ubfab_port_set_faults(self->nl, 3, fab.planes, &f));

	EXPECT_TRUE(port_is(self->nl, 3, 1, &healthy_port));
	EXPECT_EQ(-ETIMEDOUT, next_event(self->events, &ev, 100));
}

/*
 * Programs built against libubfab 1.2 or 1.3 read events with the
 * UBFAB_1.2 version of ubfab_nl_event_read(), into their shorter struct
 * ubfab_nl_event (its union as long as the plane's, the longest then):
 * it gives the port of a port event without its knobs and writes not a
 * byte past that struct. It is called here by its name in the library
 * (lib/internal.h): the static library has no symbol versions.
 */
TEST_F(ctl, event_read_1_2)
{
	const size_t size_1_2 = offsetof(struct ubfab_nl_event, plane) +
				sizeof(struct ubfab_plane_info);
	const struct ubfab_port_faults f = {
		.mask = UBFAB_PORT_FAULT_DELAY, .delay_ps = 5,
	};
	union {
		struct ubfab_nl_event ev;
		unsigned char bytes[sizeof(struct ubfab_nl_event)];
	} u;
	struct pollfd pfd = { .fd = ubfab_nl_fd(self->events),
			      .events = POLLIN };
	size_t i;

	ASSERT_LE(sizeof(struct ubfab_entity_info),
		  sizeof(struct ubfab_plane_info));
	ASSERT_LT(size_1_2, sizeof(u));
	ASSERT_EQ(0, ubfab_port_set_faults(self->nl, 4, 3, &f));
	ASSERT_EQ(1, poll(&pfd, 1, 2000));
	memset(&u, 0xa5, sizeof(u));
	ASSERT_EQ(0, libubfab_nl_event_read_1_2(self->events, &u));
	EXPECT_EQ(UBFAB_CMD_PORT_NTF, u.ev.cmd);
	EXPECT_EQ(4, u.ev.port.eid);
	EXPECT_EQ(3, u.ev.port.plane);
	EXPECT_EQ(UBFAB_STATE_UP, u.ev.port.state);
	for (i = size_1_2; i < sizeof(u); i++)
		ASSERT_EQ(0xa5, u.bytes[i]) TH_LOG("byte %zu written", i);
}

/* The fabric model */

/* The parameters of the model (Documentation/model.rst), in order. */
static const struct {
	const char *name, *unit;
	uint64_t minimum, maximum;
} model_table[] = {
	{ "issue-ps", "ps", 0, 1000000000000ULL },
	{ "dma-ps", "ps", 0, 1000000000000ULL },
	{ "memsem-ps", "ps", 0, 1000000000000ULL },
	{ "loopback-ps", "ps", 0, 1000000000000ULL },
	{ "die-ps", "ps", 0, 1000000000000ULL },
	{ "hop-ps", "ps", 0, 1000000000000ULL },
	{ "node-hops", "hops", 0, 15 },
	{ "remote-hops", "hops", 0, 15 },
	{ "link-mbps", "MB/s", 1, 1000000000 },
	{ "die-mbps", "MB/s", 1, 1000000000 },
	{ "hbm-mbps", "MB/s", 1, 1000000000 },
	{ "dram-mbps", "MB/s", 1, 1000000000 },
	{ "target-write-npu-ps", "ps", 0, 1000000000000ULL },
	{ "target-write-cpu-ps", "ps", 0, 1000000000000ULL },
	{ "target-read-npu-ps", "ps", 0, 1000000000000ULL },
	{ "target-read-cpu-ps", "ps", 0, 1000000000000ULL },
	{ "eff-write-npu-permille", "permille", 1, 1000 },
	{ "eff-write-cpu-permille", "permille", 1, 1000 },
	{ "eff-read-npu-permille", "permille", 1, 1000 },
	{ "eff-read-cpu-permille", "permille", 1, 1000 },
	{ "retry-ps", "ps", 0, 1000000000000ULL },
	{ "dma-engines", "engines", 1, 8 },
	{ "memsem-paths", "paths", 1, 8 },
	{ "dma-engine-mbps", "MB/s", 1, 1000000000 },
	{ "memsem-path-mbps", "MB/s", 1, 1000000000 },
	{ "dma-gap-ps", "ps", 0, 1000000000000ULL },
	{ "memsem-gap-ps", "ps", 0, 1000000000000ULL },
};

/* The value of parameter @name now, or UINT64_MAX. */
static uint64_t model_value(struct ubfab_nl *nl, const char *name)
{
	const struct ubfab_model_param *p;
	struct ubfab_model *m;
	uint64_t v;

	if (ubfab_model_get(nl, &m))
		return UINT64_MAX;
	p = ubfab_model_find(m, name);
	v = p ? p->value : UINT64_MAX;
	ubfab_model_free(m);
	return v;
}

/* Every parameter at its default, and the profile says so. */
static bool model_is_cm384(struct ubfab_nl *nl)
{
	struct ubfab_model *m;
	bool yes;
	size_t i;

	if (ubfab_model_get(nl, &m))
		return false;
	yes = !strcmp(m->profile, "cm384");
	for (i = 0; i < m->nparams; i++)
		yes &= m->params[i].value == m->params[i].default_value;
	ubfab_model_free(m);
	return yes;
}

/* The model of a freshly loaded module: cm384, every parameter as listed. */
TEST_F(ctl, model_get)
{
	const struct ubfab_model_param *p;
	struct ubfab_model *m;
	size_t i;

	ASSERT_EQ(0, ubfab_model_get(self->nl, &m));
	EXPECT_STREQ("cm384", m->profile);
	ASSERT_EQ(ARRAY_SIZE(model_table), m->nparams);
	for (i = 0; i < m->nparams; i++) {
		p = &m->params[i];
		EXPECT_STREQ(model_table[i].name, p->name);
		EXPECT_STREQ(model_table[i].unit, p->unit);
		EXPECT_EQ(model_table[i].minimum, p->minimum) TH_LOG("%s", p->name);
		EXPECT_EQ(model_table[i].maximum, p->maximum) TH_LOG("%s", p->name);
		EXPECT_EQ(p->default_value, p->value) TH_LOG("%s", p->name);
	}
	ubfab_model_free(m);
}

/* The memory the model holds now, or all 0xff bytes. */
static struct ubfab_model_mem model_mem(struct ubfab_nl *nl)
{
	struct ubfab_model_mem mem;
	struct ubfab_model *m;

	memset(&mem, 0xff, sizeof(mem));
	if (!ubfab_model_get(nl, &m)) {
		mem = m->mem;
		ubfab_model_free(m);
	}
	return mem;
}

/* Its parts add up to its total. */
static bool model_mem_adds_up(const struct ubfab_model_mem *m)
{
	return m->total_bytes == m->links_bytes + m->queue_bytes +
				 m->stamp_bytes + m->other_bytes;
}

/* Words model_mem stamps: more than one xarray node's 64. */
#define MEM_STAMPS	1000

/*
 * The memory the model holds: links as the shape gives them (two
 * directions in every port, two per L1 and L2 switch pair of a plane, and
 * every entity's 8 DMA engines and 8 vector-core paths, 240 bytes each:
 * struct ubfab_link's lock, end, counters and base, its count of gaps
 * and 8 gaps of three u64); each queue
 * adds the same
 * bytes and takes them back; each word stamped for the first time adds
 * a stamp, stamping it again none, and freeing its memory takes them all
 * back, with the xarray nodes that held them.
 */
TEST_F(ctl, model_mem)
{
	struct ubfab_model_mem m0, m1, m2;
	struct ubfab_queue *q1, *q2;
	struct ubfab_fabric_info f;
	struct ubfab_dev *npu1;
	uint64_t off, now, i;

	ASSERT_EQ(0, ubfab_fabric_get(self->nl, &f));
	m0 = model_mem(self->nl);
	EXPECT_EQ((uint64_t)f.planes * (2 * f.nodes * f.l2_per_plane +
					2 * (f.npus + f.cpus)) +
		  16 * (f.npus + f.cpus), m0.links);
	EXPECT_EQ(240 * m0.links, m0.links_bytes);
	EXPECT_EQ(0, m0.queues);
	EXPECT_EQ(0, m0.queue_bytes);
	EXPECT_EQ(0, m0.stamps);
	EXPECT_EQ(0, m0.stamp_bytes);
	EXPECT_LT(0, m0.other_bytes);
	EXPECT_TRUE(model_mem_adds_up(&m0));

	ASSERT_EQ(0, ubfab_dev_open("npu1", &npu1));
	ASSERT_EQ(0, ubfab_queue_create(npu1, NULL, &q1));
	m1 = model_mem(self->nl);
	EXPECT_EQ(1, m1.queues);
	EXPECT_LT(0, m1.queue_bytes);
	ASSERT_EQ(0, ubfab_queue_create(npu1, NULL, &q2));
	m2 = model_mem(self->nl);
	EXPECT_EQ(2, m2.queues);
	EXPECT_EQ(2 * m1.queue_bytes, m2.queue_bytes);
	EXPECT_EQ(m0.links_bytes, m2.links_bytes);
	EXPECT_TRUE(model_mem_adds_up(&m2));
	ubfab_queue_destroy(q2);
	EXPECT_EQ(m1.queue_bytes, model_mem(self->nl).queue_bytes);

	/* whole pages */
	ASSERT_EQ(0, ubfab_dev_alloc(npu1, (MEM_STAMPS * 8 + 4095) & ~4095ULL,
				     &off));
	for (i = 0; i < MEM_STAMPS; i++)
		ASSERT_EQ(0, ubfab_queue_stamp(q1, off + 8 * i,
					       UBFAB_STAMP_LOCAL, &now));
	m1 = model_mem(self->nl);
	EXPECT_EQ(MEM_STAMPS, m1.stamps);
	/* a node (576 bytes on 64 bits) per 64 words or so, not per word */
	EXPECT_LE(MEM_STAMPS / 64, m1.stamp_bytes / 576) TH_LOG("%" PRIu64,
							   m1.stamp_bytes);
	EXPECT_GT(MEM_STAMPS / 2, m1.stamp_bytes / 576);
	EXPECT_TRUE(model_mem_adds_up(&m1));
	/* stamped again: no new stamp */
	ASSERT_EQ(0, ubfab_queue_stamp(q1, off, UBFAB_STAMP_LOCAL, &now));
	ASSERT_EQ(0, ubfab_queue_stamp(q1, off + 8 * (MEM_STAMPS - 1),
				       UBFAB_STAMP_LOCAL, &now));
	m2 = model_mem(self->nl);
	EXPECT_EQ(m1.stamps, m2.stamps);
	EXPECT_EQ(m1.stamp_bytes, m2.stamp_bytes);

	ASSERT_EQ(0, ubfab_dev_free(npu1, off));
	m2 = model_mem(self->nl);
	EXPECT_EQ(0, m2.stamps);
	EXPECT_EQ(0, m2.stamp_bytes);
	ubfab_queue_destroy(q1);
	ubfab_dev_close(npu1);
	m2 = model_mem(self->nl);
	EXPECT_EQ(0, m2.queues);
	EXPECT_EQ(m0.total_bytes, m2.total_bytes);
}

/*
 * Values set in one request, profile custom, one event per change; a
 * request refused in part changes nothing and announces nothing; a
 * profile puts its values back before the request's own.
 */
/* What a queue dump found, for ctl.queue_dump. */
struct queue_seen {
	struct ubfab_queue_info q[4];
	int n;
};

static int queue_seen(const struct ubfab_queue_info *q, void *arg)
{
	struct queue_seen *s = arg;

	if (s->n == 4)
		return -E2BIG;
	s->q[s->n++] = *q;
	return 0;
}

/*
 * The queue dump: this process's two queues of npu1, with their number,
 * process, flags, rings, modeled clock and entries run; one of cpu0's
 * filtered out; none once destroyed; ENODEV for an entity that is not.
 */
TEST_F(ctl, queue_dump)
{
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;
	struct ubfab_queue *q1, *q2, *q3;
	struct ubfab_dev *npu1, *cpu0;
	struct queue_seen s = { 0 };
	struct ubfab_cqe cqe;
	int i;

	ASSERT_EQ(0, ubfab_dev_open("npu1", &npu1));
	ASSERT_EQ(0, ubfab_dev_open("cpu0", &cpu0));
	ASSERT_EQ(0, ubfab_queue_create(npu1, NULL, &q1));
	attr.flags = UBFAB_QUEUE_TIMING | UBFAB_QUEUE_ORDERED;
	attr.sq_entries = 64;
	ASSERT_EQ(0, ubfab_queue_create(npu1, &attr, &q2));
	ASSERT_EQ(0, ubfab_queue_create(cpu0, NULL, &q3));
	for (i = 0; i < 3; i++)
		ubfab_prep_nop(ubfab_queue_get_sqe(q1));
	ASSERT_EQ(3, ubfab_queue_submit(q1));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, next_cqe(q1, &cqe, 20000));

	ASSERT_EQ(0, ubfab_queue_dump(self->nl, ubfab_dev_eid(npu1),
				      queue_seen, &s));
	ASSERT_EQ(2, s.n);
	EXPECT_EQ(ubfab_dev_eid(npu1), s.q[0].eid);
	EXPECT_EQ(q1->id, s.q[0].id);
	EXPECT_EQ((uint32_t)getpid(), s.q[0].pid);
	EXPECT_EQ(0, s.q[0].flags);
	EXPECT_EQ(3, s.q[0].entries);
	EXPECT_EQ(cqe.model_ns, s.q[0].clock_ns);
	EXPECT_LT(0, s.q[0].clock_ns);
	EXPECT_EQ(q2->id, s.q[1].id);
	EXPECT_EQ(UBFAB_QUEUE_TIMING | UBFAB_QUEUE_ORDERED, s.q[1].flags);
	EXPECT_EQ(64, s.q[1].sq_entries);
	EXPECT_LE(64, s.q[1].cq_entries);
	EXPECT_EQ(0, s.q[1].entries);
	EXPECT_EQ(0, s.q[1].clock_ns);

	s.n = 0;
	ASSERT_EQ(0, ubfab_queue_dump(self->nl, UBFAB_EID_ANY, queue_seen, &s));
	EXPECT_EQ(3, s.n);
	EXPECT_EQ(ubfab_dev_eid(cpu0), s.q[2].eid);
	ubfab_queue_destroy(q2);
	ubfab_queue_destroy(q3);
	s.n = 0;
	ASSERT_EQ(0, ubfab_queue_dump(self->nl, UBFAB_EID_ANY, queue_seen, &s));
	ASSERT_EQ(1, s.n);
	EXPECT_EQ(q1->id, s.q[0].id);
	EXPECT_EQ(-ENODEV, ubfab_queue_dump(self->nl, 100000, queue_seen, &s));
	ubfab_queue_destroy(q1);
	s.n = 0;
	ASSERT_EQ(0, ubfab_queue_dump(self->nl, UBFAB_EID_ANY, queue_seen, &s));
	EXPECT_EQ(0, s.n);
	ubfab_dev_close(cpu0);
	ubfab_dev_close(npu1);
}

TEST_F(ctl, model_set_and_events)
{
	struct ubfab_model_value v[2] = {
		{ "hop-ps", 0 }, { "link-mbps", 14000 },
	};
	const struct ubfab_model_param *p;
	struct ubfab_nl_event ev;
	struct ubfab_model *m;
	uint64_t hop;

	ASSERT_EQ(0, ubfab_model_get(self->nl, &m));
	hop = ubfab_model_find(m, "hop-ps")->default_value;
	ubfab_model_free(m);
	v[0].value = hop + 62500;

	ASSERT_EQ(0, ubfab_model_set(self->nl, NULL, v, 2));
	ASSERT_EQ(0, ubfab_model_get(self->nl, &m));
	EXPECT_STREQ("custom", m->profile);
	EXPECT_EQ(hop + 62500, ubfab_model_find(m, "hop-ps")->value);
	EXPECT_EQ(14000, ubfab_model_find(m, "link-mbps")->value);
	p = ubfab_model_find(m, "dma-ps");
	EXPECT_EQ(p->default_value, p->value);
	ubfab_model_free(m);
	ASSERT_EQ(0, next_event(self->events, &ev, 2000));
	ASSERT_EQ(UBFAB_CMD_MODEL_NTF, ev.cmd);
	EXPECT_STREQ("custom", ev.model->profile);
	EXPECT_EQ(ARRAY_SIZE(model_table), ev.model->nparams);
	EXPECT_EQ(hop + 62500, ubfab_model_find(ev.model, "hop-ps")->value);
	EXPECT_EQ(14000, ubfab_model_find(ev.model, "link-mbps")->value);
	ubfab_model_free(ev.model);
	/* the same values again change nothing */
	ASSERT_EQ(0, ubfab_model_set(self->nl, NULL, v, 2));
	EXPECT_EQ(-ETIMEDOUT, next_event(self->events, &ev, 100));

	/* refused in part, refused whole */
	v[0].value = hop;
	v[1] = (struct ubfab_model_value){ "eff-read-cpu-permille", 1001 };
	EXPECT_EQ(-ERANGE, ubfab_model_set(self->nl, NULL, v, 2));
	EXPECT_STRNE("", ubfab_nl_errmsg(self->nl));
	v[1] = (struct ubfab_model_value){ "link-mbps", 0 };
	EXPECT_EQ(-ERANGE, ubfab_model_set(self->nl, NULL, v, 2));
	v[1] = (struct ubfab_model_value){ "node-hops", 16 };
	EXPECT_EQ(-ERANGE, ubfab_model_set(self->nl, NULL, v, 2));
	v[1] = (struct ubfab_model_value){ "bogus-ps", 1 };
	EXPECT_EQ(-ENOENT, ubfab_model_set(self->nl, NULL, v, 2));
	EXPECT_STRNE("", ubfab_nl_errmsg(self->nl));
	EXPECT_EQ(-ENOENT, ubfab_model_set(self->nl, "cm385", v, 1));
	EXPECT_STRNE("", ubfab_nl_errmsg(self->nl));
	EXPECT_EQ(-ENOENT, ubfab_model_set(self->nl, "custom", NULL, 0));
	EXPECT_EQ(hop + 62500, model_value(self->nl, "hop-ps"));
	EXPECT_EQ(14000, model_value(self->nl, "link-mbps"));
	EXPECT_EQ(-ETIMEDOUT, next_event(self->events, &ev, 100));

	/* the profile first, then the values */
	v[0] = (struct ubfab_model_value){ "node-hops", 2 };
	ASSERT_EQ(0, ubfab_model_set(self->nl, "cm384", v, 1));
	EXPECT_EQ(hop, model_value(self->nl, "hop-ps"));
	EXPECT_EQ(2, model_value(self->nl, "node-hops"));
	ASSERT_EQ(0, next_event(self->events, &ev, 2000));
	ASSERT_EQ(UBFAB_CMD_MODEL_NTF, ev.cmd);
	EXPECT_STREQ("custom", ev.model->profile);
	EXPECT_EQ(hop, ubfab_model_find(ev.model, "hop-ps")->value);
	ubfab_model_free(ev.model);
	ASSERT_EQ(0, ubfab_model_set(self->nl, "cm384", NULL, 0));
	EXPECT_TRUE(model_is_cm384(self->nl));
	ASSERT_EQ(0, next_event(self->events, &ev, 2000));
	ASSERT_EQ(UBFAB_CMD_MODEL_NTF, ev.cmd);
	EXPECT_STREQ("cm384", ev.model->profile);
	ubfab_model_free(ev.model);
	/* a parameter set to its default is cm384 again */
	v[0] = (struct ubfab_model_value){ "hop-ps", hop + 1 };
	ASSERT_EQ(0, ubfab_model_set(self->nl, NULL, v, 1));
	v[0].value = hop;
	ASSERT_EQ(0, ubfab_model_set(self->nl, NULL, v, 1));
	EXPECT_TRUE(model_is_cm384(self->nl));
}

/* ubctl */

#define UBCTL_OUT	65536	/* room for what one ubctl command prints */

static bool have_ubctl(void)
{
	return !system("command -v ubctl >/dev/null 2>&1");
}

/*
 * Run "ubctl ARGS" (ARGS from @fmt) through the shell, its stderr with its
 * stdout, and read what it prints into @out (UBCTL_OUT bytes). When
 * @unprivileged, CAP_NET_ADMIN is dropped from the bounding set first, so
 * that even root runs ubctl without it. Returns the exit status, or -1.
 */
static int run_ubctl(char *out, bool unprivileged, const char *fmt, ...)
{
	char cmd[256] = "exec ubctl ";
	int fds[2], status;
	size_t n = 0;
	ssize_t r;
	va_list ap;
	pid_t pid;

	va_start(ap, fmt);
	vsnprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), fmt, ap);
	va_end(ap);
	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (unprivileged &&
		    prctl(PR_CAPBSET_DROP, CAP_NET_ADMIN, 0, 0, 0))
			_exit(126);
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		close(fds[0]);
		close(fds[1]);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (n + 1 < UBCTL_OUT &&
	       (r = read(fds[0], out + n, UBCTL_OUT - 1 - n)) > 0)
		n += r;
	out[n] = '\0';
	close(fds[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Sum of the numbers of every member "@key" in @json. */
static uint64_t json_sum(const char *json, const char *key)
{
	const char *p = json;
	uint64_t sum = 0;
	char pat[32];

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	while ((p = strstr(p, pat))) {
		p += strlen(pat);
		sum += strtoull(p, NULL, 10);
	}
	return sum;
}

/* A healthy port's fault knobs, as "ubctl -j" prints them. */
static const char healthy[] =
	"\"bw_permille\":1000,\"delay_ps\":0,\"error_ppm\":0";

/* ubctl port set and plane set change what show reports, and say nothing. */
TEST_F(ctl, ubctl_set)
{
	static const char zero[] =
		"\"stats\":{\"tx_bytes\":0,\"rx_bytes\":0,\"tx_ops\":0,\"rx_ops\":0,\"errors\":0}";
	char out[UBCTL_OUT], want[512];
	struct ubfab_plane_info pl;

	if (!have_ubctl())
		SKIP(return, "no ubctl in $PATH");
	ASSERT_EQ(0, run_ubctl(out, false, "port set npu1 plane 2 state down"));
	EXPECT_STREQ("", out);
	EXPECT_EQ(UBFAB_STATE_DOWN, port_state(self->nl, 1, 2));
	EXPECT_EQ(UBFAB_STATE_UP, port_state(self->nl, 1, 1));
	ASSERT_EQ(0, run_ubctl(out, false, "-j port show npu1 plane 2"));
	snprintf(want, sizeof(want),
		 "[{\"entity\":\"npu1\",\"eid\":1,\"plane\":2,\"state\":\"down\",%s,%s}]\n",
		 healthy, zero);
	EXPECT_STREQ(want, out);
	/* by EID, keywords in either order, the state shortened */
	ASSERT_EQ(0, run_ubctl(out, false, "port set eid 1 state u plane 2"));
	EXPECT_EQ(UBFAB_STATE_UP, port_state(self->nl, 1, 2));
	ASSERT_EQ(0, run_ubctl(out, false, "port show npu1 plane 2"));
	EXPECT_STREQ("npu1 plane 2: state up tx_bytes 0 rx_bytes 0 tx_ops 0 rx_ops 0 errors 0\n",
		     out);

	ASSERT_EQ(0, run_ubctl(out, false, "plane set 3 state down"));
	EXPECT_STREQ("", out);
	ASSERT_EQ(0, ubfab_plane_get(self->nl, 3, &pl));
	EXPECT_EQ(UBFAB_STATE_DOWN, pl.state);
	ASSERT_EQ(0, run_ubctl(out, false, "-j plane show 3"));
	snprintf(want, sizeof(want),
		 "[{\"plane\":3,\"state\":\"down\",\"l1_switches\":%u,\"l2_switches\":%u,\"ports\":%u,\"ports_up\":%u,%s}]\n",
		 pl.l1_switches, pl.l2_switches, pl.ports, pl.ports, zero);
	EXPECT_STREQ(want, out);
	ASSERT_EQ(0, run_ubctl(out, false, "plane set 3 state up"));
	ASSERT_EQ(0, run_ubctl(out, false, "-j plane show"));
	EXPECT_EQ(NULL, strstr(out, "\"down\""));
}

/*
 * ubctl -f dot draws the module's fabric: one graph of the supernode with
 * every node's L1 box, and a node's ports with the one set down in red.
 */
TEST_F(ctl, ubctl_dot)
{
	char out[UBCTL_OUT];

	if (!have_ubctl())
		SKIP(return, "no ubctl in $PATH");
	ASSERT_EQ(0, run_ubctl(out, false, "-f dot topo"));
	EXPECT_EQ(0, strncmp(out, "graph \"supernode\" {\n", 20));
	EXPECT_NE(NULL, strstr(out, "\t\"npu1\" -- \"node0.l1\" [label=\"7\"];\n"));
	EXPECT_NE(NULL, strstr(out, "\t\"node1.l1\" -- \"plane6.l2\";\n"));
	ASSERT_EQ(0, ubfab_port_set_state(self->nl, 1, 2, UBFAB_STATE_DOWN));
	ASSERT_EQ(0, run_ubctl(out, false, "-f dot topo show node 0"));
	EXPECT_NE(NULL, strstr(out, "\t\"npu1\" -- \"plane2.l1\" [color=red, style=dashed];\n"));
	EXPECT_NE(NULL, strstr(out, "\t\"npu1\" -- \"plane1.l1\";\n"));
	ASSERT_EQ(0, run_ubctl(out, false, "-f dot topo show plane 2"));
	EXPECT_NE(NULL, strstr(out, "\t\"npu1\" -- \"node0.l1\" [label=\"down\", color=red, style=dashed];\n"));
	EXPECT_EQ(1, run_ubctl(out, false, "-f dot topo show node 99"));
	EXPECT_STREQ("ubctl: node 99: no such node\n", out);
}

#define NOT_PERMITTED \
	"Operation not permitted (changing the fabric needs CAP_NET_ADMIN)\n"

/* Errors: a message naming the object and the reason, exit status 1. */
TEST_F(ctl, ubctl_errors)
{
	char out[UBCTL_OUT];

	if (!have_ubctl())
		SKIP(return, "no ubctl in $PATH");
	EXPECT_EQ(1, run_ubctl(out, false, "port set npu99 plane 0 state down"));
	EXPECT_STREQ("ubctl: npu99: no such entity\n", out);
	EXPECT_EQ(1, run_ubctl(out, false, "port set npu0 plane 7 state down"));
	EXPECT_STREQ("ubctl: plane 7: no such plane\n", out);
	EXPECT_EQ(1, run_ubctl(out, false, "plane set 7 state down"));
	EXPECT_STREQ("ubctl: plane 7: no such plane\n", out);
	EXPECT_EQ(1, run_ubctl(out, false, "entity reset eid 40"));
	EXPECT_STREQ("ubctl: eid 40: no such entity\n", out);
	EXPECT_EQ(2, run_ubctl(out, false, "port set npu0 plane 0 state sideways"));

	EXPECT_EQ(1, run_ubctl(out, true, "port set npu0 plane 0 state down"));
	EXPECT_STREQ("ubctl: npu0 plane 0: " NOT_PERMITTED, out);
	EXPECT_EQ(1, run_ubctl(out, true, "plane set 0 state down"));
	EXPECT_STREQ("ubctl: plane 0: " NOT_PERMITTED, out);
	EXPECT_EQ(1, run_ubctl(out, true, "entity reset npu0"));
	EXPECT_STREQ("ubctl: npu0: " NOT_PERMITTED, out);
	EXPECT_EQ(1, run_ubctl(out, true, "model set hop-ps 1"));
	EXPECT_STREQ("ubctl: model: " NOT_PERMITTED, out);
	EXPECT_EQ(1, run_ubctl(out, true, "port set npu0 plane 0 bw 500"));
	EXPECT_STREQ("ubctl: npu0 plane 0: " NOT_PERMITTED, out);
	/* reading needs no capability */
	EXPECT_EQ(0, run_ubctl(out, true, "port show npu0 plane 0"));
	EXPECT_EQ(0, run_ubctl(out, true, "model show"));
	EXPECT_TRUE(port_is(self->nl, 0, 0, &healthy_port));
	EXPECT_TRUE(model_is_cm384(self->nl));
	EXPECT_EQ(-ETIMEDOUT, next_event(self->events,
					 &(struct ubfab_nl_event){ 0 }, 100));
}

/* @p's line in "ubctl model show", into @buf (@len bytes). */
static const char *param_line(char *buf, size_t len,
			      const struct ubfab_model_param *p)
{
	snprintf(buf, len, "\n%s: %" PRIu64 " %s default %" PRIu64 " %s range %"
		 PRIu64 "..%" PRIu64 " %s\n", p->name, p->value, p->unit,
		 p->default_value, p->unit, p->minimum, p->maximum, p->unit);
	return buf;
}

/* @p's object in "ubctl -j model show", into @buf (@len bytes). */
static const char *param_json(char *buf, size_t len,
			      const struct ubfab_model_param *p)
{
	snprintf(buf, len, "{\"name\":\"%s\",\"value\":%" PRIu64
		 ",\"unit\":\"%s\",\"default\":%" PRIu64 ",\"minimum\":%"
		 PRIu64 ",\"maximum\":%" PRIu64 "}", p->name, p->value,
		 p->unit, p->default_value, p->minimum, p->maximum);
	return buf;
}

/* Whether @s begins with @prefix. */
static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Occurrences of @needle in @s. */
static unsigned int count_of(const char *s, const char *needle)
{
	unsigned int n = 0;

	for (; (s = strstr(s, needle)); s++)
		n++;
	return n;
}

/*
 * ubctl model show and set: a value set is seen in show and -j, the
 * profile becomes custom, "model set profile cm384" puts every value
 * back; an unknown name or profile or a value out of range fails with
 * status 1 and a message, changing nothing.
 */
TEST_F(ctl, ubctl_model)
{
	const struct ubfab_model_param *p;
	char out[UBCTL_OUT], want[256];
	struct ubfab_model *m;
	uint64_t hop, hbm_max;
	size_t i;

	if (!have_ubctl())
		SKIP(return, "no ubctl in $PATH");
	ASSERT_EQ(0, ubfab_model_get(self->nl, &m));
	hop = ubfab_model_find(m, "hop-ps")->default_value;
	hbm_max = ubfab_model_find(m, "hbm-mbps")->maximum;
	ASSERT_EQ(0, run_ubctl(out, false, "model show"));
	EXPECT_TRUE(starts(out, "profile cm384\n")) TH_LOG("%s", out);
	/* the profile, the parameters, the memory's five lines */
	EXPECT_EQ(1 + m->nparams + 5, count_of(out, "\n"));
	for (i = 0; i < m->nparams; i++)
		EXPECT_NE(NULL, strstr(out, param_line(want, sizeof(want),
							&m->params[i])))
			TH_LOG("no %s", want);
	snprintf(want, sizeof(want), "\nmemory links: %" PRIu64 " links, %"
		 PRIu64 " bytes (", m->mem.links, m->mem.links_bytes);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("no %s in %s", want, out);
	EXPECT_NE(NULL, strstr(out, "\nmemory queues: 0 queues, 0 bytes (0B)\n"))
		TH_LOG("%s", out);
	ASSERT_EQ(0, run_ubctl(out, false, "-j model"));
	snprintf(want, sizeof(want), "\"memory\":{\"links\":%" PRIu64
		 ",\"links_bytes\":%" PRIu64 ",\"queues\":0,", m->mem.links,
		 m->mem.links_bytes);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("no %s in %s", want, out);
	EXPECT_TRUE(starts(out, "{\"profile\":\"cm384\",\"params\":[{"))
		TH_LOG("%s", out);
	EXPECT_EQ(m->nparams, count_of(out, "{\"name\":"));
	for (i = 0; i < m->nparams; i++)
		EXPECT_NE(NULL, strstr(out, param_json(want, sizeof(want),
							&m->params[i])))
			TH_LOG("no %s", want);
	ubfab_model_free(m);

	ASSERT_EQ(0, run_ubctl(out, false, "model set hop-ps %" PRIu64
			       " hbm-mbps %" PRIu64, hop + 62500, hbm_max));
	EXPECT_STREQ("", out);
	EXPECT_EQ(hop + 62500, model_value(self->nl, "hop-ps"));
	EXPECT_EQ(hbm_max, model_value(self->nl, "hbm-mbps"));
	ASSERT_EQ(0, ubfab_model_get(self->nl, &m));
	EXPECT_STREQ("custom", m->profile);
	p = ubfab_model_find(m, "hop-ps");
	ASSERT_EQ(0, run_ubctl(out, false, "model show"));
	EXPECT_TRUE(starts(out, "profile custom\n")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, param_line(want, sizeof(want), p)))
		TH_LOG("no %s in %s", want, out);
	ASSERT_EQ(0, run_ubctl(out, false, "-j model show"));
	EXPECT_TRUE(starts(out, "{\"profile\":\"custom\",")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, param_json(want, sizeof(want), p)))
		TH_LOG("no %s in %s", want, out);
	p = ubfab_model_find(m, "hbm-mbps");
	EXPECT_NE(NULL, strstr(out, param_json(want, sizeof(want), p)))
		TH_LOG("no %s in %s", want, out);
	ubfab_model_free(m);

	/* refused whole: nothing changes */
	EXPECT_EQ(1, run_ubctl(out, false, "model set hop-ps 1 bogus-ps 2"));
	EXPECT_STREQ("ubctl: bogus-ps: no such parameter\n", out);
	EXPECT_EQ(1, run_ubctl(out, false, "model set hop-ps 1 hbm-mbps %"
			       PRIu64, hbm_max + 1));
	snprintf(want, sizeof(want),
		 "ubctl: hbm-mbps: %" PRIu64 " MB/s out of range 1..%" PRIu64
		 " MB/s\n", hbm_max + 1, hbm_max);
	EXPECT_STREQ(want, out);
	EXPECT_EQ(1, run_ubctl(out, false,
			       "model set hop-ps 1 eff-write-npu-permille 0"));
	EXPECT_STREQ("ubctl: eff-write-npu-permille: 0 permille out of range 1..1000 permille\n",
		     out);
	EXPECT_EQ(1, run_ubctl(out, false, "model set profile cm385 hop-ps 1"));
	EXPECT_STREQ("ubctl: profile cm385: no such profile\n", out);
	EXPECT_EQ(2, run_ubctl(out, false, "model set hop-ps 1.5"));
	EXPECT_EQ(hop + 62500, model_value(self->nl, "hop-ps"));
	EXPECT_EQ(hbm_max, model_value(self->nl, "hbm-mbps"));

	ASSERT_EQ(0, run_ubctl(out, false, "model set profile cm384"));
	EXPECT_STREQ("", out);
	EXPECT_TRUE(model_is_cm384(self->nl));
	ASSERT_EQ(0, run_ubctl(out, false, "model show"));
	EXPECT_TRUE(starts(out, "profile cm384\n")) TH_LOG("%s", out);
	/* the profile comes first, the values after it */
	ASSERT_EQ(0, run_ubctl(out, false, "model set profile cm384 node-hops 2"));
	EXPECT_EQ(2, model_value(self->nl, "node-hops"));
	EXPECT_EQ(hop, model_value(self->nl, "hop-ps"));
}

/* Drop the events waiting on @nl. */
static void drain_events(struct ubfab_nl *nl)
{
	struct ubfab_nl_event ev;

	while (!next_event(nl, &ev, 100))
		if (ev.cmd == UBFAB_CMD_MODEL_NTF)
			ubfab_model_free(ev.model);
}

/*
 * ubctl port set's fault knobs: set with the state or alone, one at a
 * time keeping the others, shown as text (those off their defaults) and
 * -j (all); a value out of range fails with status 1 and one that is no
 * number with 2, each changing nothing; back to the defaults, the line of
 * a healthy port.
 */
TEST_F(ctl, ubctl_port_knobs)
{
	static const char *const refused[] = {
		"bw 0", "bw 1001", "delay 1000000000001", "errors 1000001",
		"state down bw 500 errors 1000001", "delay 7 bw 0",
	};
	static const char *const malformed[] = {
		"bw -1", "delay 1e6", "bw 4294967296", "errors", "bw 5 bw 6",
		"speed 5",
	};
	struct ubfab_port_faults f = {
		.state = UBFAB_STATE_UP, .bw_permille = 250,
		.delay_ps = 2000000, .error_ppm = 1000,
	};
	char out[UBCTL_OUT], want[512];
	size_t i;

	if (!have_ubctl())
		SKIP(return, "no ubctl in $PATH");
	ASSERT_EQ(0, run_ubctl(out, false,
			       "port set npu1 plane 2 bw 250 delay 2000000 errors 1000"));
	EXPECT_STREQ("", out);
	EXPECT_TRUE(port_is(self->nl, 1, 2, &f));
	EXPECT_TRUE(port_is(self->nl, 1, 1, &healthy_port));
	ASSERT_EQ(0, run_ubctl(out, false, "port show npu1 plane 2"));
	EXPECT_STREQ("npu1 plane 2: state up bw_permille 250 delay_ps 2000000 error_ppm 1000 tx_bytes 0 rx_bytes 0 tx_ops 0 rx_ops 0 errors 0\n",
		     out);
	ASSERT_EQ(0, run_ubctl(out, false, "-j port show npu1 plane 2"));
	EXPECT_STREQ("[{\"entity\":\"npu1\",\"eid\":1,\"plane\":2,\"state\":\"up\",\"bw_permille\":250,\"delay_ps\":2000000,\"error_ppm\":1000,\"stats\":{\"tx_bytes\":0,\"rx_bytes\":0,\"tx_ops\":0,\"rx_ops\":0,\"errors\":0}}]\n",
		     out);
	ASSERT_EQ(0, run_ubctl(out, false, "port show npu1 plane 1"));
	EXPECT_STREQ("npu1 plane 1: state up tx_bytes 0 rx_bytes 0 tx_ops 0 rx_ops 0 errors 0\n",
		     out);

	/* one knob keeps the others; the state and a knob in one request */
	ASSERT_EQ(0, run_ubctl(out, false, "port set eid 1 plane 2 d 0"));
	f.delay_ps = 0;
	EXPECT_TRUE(port_is(self->nl, 1, 2, &f));
	ASSERT_EQ(0, run_ubctl(out, false,
			       "port set npu1 errors 1000000 plane 2 state down"));
	f.error_ppm = 1000000;
	f.state = UBFAB_STATE_DOWN;
	EXPECT_TRUE(port_is(self->nl, 1, 2, &f));
	ASSERT_EQ(0, run_ubctl(out, false, "port show npu1 plane 2"));
	EXPECT_STREQ("npu1 plane 2: state down bw_permille 250 error_ppm 1000000 tx_bytes 0 rx_bytes 0 tx_ops 0 rx_ops 0 errors 0\n",
		     out);

	/* refused: nothing changes, nothing is announced */
	drain_events(self->events);
	for (i = 0; i < ARRAY_SIZE(refused); i++) {
		EXPECT_EQ(1, run_ubctl(out, false, "port set npu1 plane 2 %s",
				       refused[i]))
			TH_LOG("%s", refused[i]);
		EXPECT_STREQ("ubctl: npu1 plane 2: Numerical result out of range (value out of range)\n",
			     out);
	}
	for (i = 0; i < ARRAY_SIZE(malformed); i++)
		EXPECT_EQ(2, run_ubctl(out, false, "port set npu1 plane 2 %s",
				       malformed[i]))
			TH_LOG("%s", out);
	EXPECT_TRUE(port_is(self->nl, 1, 2, &f));
	EXPECT_EQ(-ETIMEDOUT, next_event(self->events,
					 &(struct ubfab_nl_event){ 0 }, 100));

	/* back to the defaults: a healthy port's line */
	ASSERT_EQ(0, run_ubctl(out, false,
			       "port set npu1 plane 2 state up bw 1000 delay 0 errors 0"));
	EXPECT_TRUE(port_is(self->nl, 1, 2, &healthy_port));
	ASSERT_EQ(0, run_ubctl(out, false, "port show npu1 plane 2"));
	EXPECT_STREQ("npu1 plane 2: state up tx_bytes 0 rx_bytes 0 tx_ops 0 rx_ops 0 errors 0\n",
		     out);
	ASSERT_EQ(0, run_ubctl(out, false, "-j port show npu1 plane 2"));
	snprintf(want, sizeof(want),
		 "[{\"entity\":\"npu1\",\"eid\":1,\"plane\":2,\"state\":\"up\",%s,",
		 healthy);
	EXPECT_TRUE(starts(out, want)) TH_LOG("%s", out);
}

#define TOKEN		0x5eedU
#define RW		(UBFAB_SEG_READ | UBFAB_SEG_WRITE)
#define XFER_LEN	(3 * UBFAB_PLANE_CHUNK)
#define WAIT_MS		20000

/* npu1 with a queue and an import of a segment npu0 exports. */
struct peers {
	struct ubfab_dev *npu0, *npu1;
	uint64_t seg_off, loc_off;
	uint32_t tid;
	struct ubfab_import imp;
	struct ubfab_queue *q;
};

static int peers_open(struct peers *p)
{
	return ubfab_dev_open("npu0", &p->npu0) ?:
	       ubfab_dev_open("npu1", &p->npu1) ?:
	       ubfab_dev_alloc(p->npu0, XFER_LEN, &p->seg_off) ?:
	       ubfab_dev_export(p->npu0, p->seg_off, XFER_LEN, RW, TOKEN,
				&p->tid) ?:
	       ubfab_dev_import(p->npu1, 0, p->tid, TOKEN, RW, &p->imp) ?:
	       ubfab_dev_alloc(p->npu1, XFER_LEN, &p->loc_off) ?:
	       ubfab_queue_create(p->npu1, NULL, &p->q);
}

static void peers_close(struct peers *p)
{
	ubfab_queue_destroy(p->q);
	ubfab_dev_close(p->npu1);
	ubfab_dev_close(p->npu0);
}

/* WRITE the whole segment from npu1; the completion's status, or -1. */
static int peers_write(struct peers *p, uint32_t *bytes)
{
	struct ubfab_sqe *sqe = ubfab_queue_get_sqe(p->q);
	struct ubfab_cqe *cqe;
	int status;

	if (!sqe)
		return -1;
	ubfab_prep_write(sqe, p->loc_off, ubfab_import_addr(&p->imp, 0),
			 XFER_LEN);
	ubfab_queue_submit(p->q);
	if (ubfab_queue_wait_cqe(p->q, &cqe, WAIT_MS))
		return -1;
	status = cqe->status;
	*bytes = cqe->bytes;
	ubfab_queue_cqe_seen(p->q);
	return status;
}

/*
 * ubctl stats counts a queue WRITE on the planes and on both ports; with
 * every plane set down by ubctl the WRITE fails with NO_ROUTE, which
 * counts one error on the initiator's port and on a plane.
 */
TEST_F(ctl, ubctl_stats_count_a_write)
{
	struct ubfab_fabric_info f;
	struct peers p = { 0 };
	char out[UBCTL_OUT];
	uint32_t bytes = 0, i;

	if (!have_ubctl())
		SKIP(return, "no ubctl in $PATH");
	ASSERT_EQ(0, ubfab_fabric_get(self->nl, &f));
	ASSERT_EQ(0, peers_open(&p));

	ASSERT_EQ(0, run_ubctl(out, false, "-j stats"));
	EXPECT_EQ(0, json_sum(out, "tx_bytes"));
	EXPECT_EQ(0, json_sum(out, "errors"));

	ASSERT_EQ(UBFAB_CQE_OK, peers_write(&p, &bytes));
	EXPECT_EQ(XFER_LEN, bytes);
	ASSERT_EQ(0, run_ubctl(out, false, "-j stats plane"));
	EXPECT_EQ(0, strncmp(out, "{\"planes\":[{\"plane\":0,", 22)) TH_LOG("%s", out);
	EXPECT_EQ(XFER_LEN, json_sum(out, "tx_bytes"));
	EXPECT_EQ(XFER_LEN, json_sum(out, "rx_bytes"));
	EXPECT_EQ(3, json_sum(out, "tx_ops"));
	ASSERT_EQ(0, run_ubctl(out, false, "-j stats port npu1"));
	EXPECT_EQ(XFER_LEN, json_sum(out, "tx_bytes"));
	EXPECT_EQ(0, json_sum(out, "rx_bytes"));
	EXPECT_EQ(3, json_sum(out, "tx_ops"));
	ASSERT_EQ(0, run_ubctl(out, false, "-j stats show port npu0"));
	EXPECT_EQ(0, json_sum(out, "tx_bytes"));
	EXPECT_EQ(XFER_LEN, json_sum(out, "rx_bytes"));
	EXPECT_EQ(3, json_sum(out, "rx_ops"));
	EXPECT_EQ(0, json_sum(out, "errors"));
	/* the text form: one line per port of npu0 */
	ASSERT_EQ(0, run_ubctl(out, false, "stats port npu0 plane 0"));
	EXPECT_EQ(0, strncmp(out, "npu0 plane 0: tx_bytes 0 rx_bytes ", 34))
		TH_LOG("%s", out);

	for (i = 0; i < f.planes; i++)
		ASSERT_EQ(0, run_ubctl(out, false, "plane set %u state down", i));
	EXPECT_EQ(UBFAB_CQE_NO_ROUTE, peers_write(&p, &bytes));
	EXPECT_EQ(0, bytes);
	ASSERT_EQ(0, run_ubctl(out, false, "-j stats"));
	EXPECT_EQ(2 * XFER_LEN, json_sum(out, "tx_bytes"));	/* planes, npu1 */
	EXPECT_EQ(2, json_sum(out, "errors"));		/* a plane, npu1 */
	ASSERT_EQ(0, run_ubctl(out, false, "-j stats port npu1"));
	EXPECT_EQ(1, json_sum(out, "errors"));
	ASSERT_EQ(0, run_ubctl(out, false, "-j stats port npu0"));
	EXPECT_EQ(0, json_sum(out, "errors"));

	/* one plane back is enough */
	ASSERT_EQ(0, run_ubctl(out, false, "plane set %u state up", f.planes - 1));
	ASSERT_EQ(0, ubfab_queue_reset(p.q));
	EXPECT_EQ(UBFAB_CQE_OK, peers_write(&p, &bytes));
	/* the first WRITE took planes 0 to 2, this one the last plane only */
	ASSERT_EQ(0, run_ubctl(out, false, "-j stats plane %u", f.planes - 1));
	EXPECT_EQ(XFER_LEN, json_sum(out, "tx_bytes")) TH_LOG("%s", out);
	EXPECT_EQ(3, json_sum(out, "tx_ops"));
	EXPECT_EQ(0, json_sum(out, "errors"));
	peers_close(&p);
}

/* ubctl entity reset revokes the imports of the entity's segments. */
TEST_F(ctl, ubctl_entity_reset)
{
	struct peers p = { 0 };
	struct ubfab_nl_event nev;
	struct ubfab_event ev;
	char out[UBCTL_OUT];
	uint32_t bytes = 0;

	if (!have_ubctl())
		SKIP(return, "no ubctl in $PATH");
	ASSERT_EQ(0, peers_open(&p));
	ASSERT_EQ(0, run_ubctl(out, false, "seg show npu0"));
	EXPECT_NE(NULL, strstr(out, "importers 1")) TH_LOG("%s", out);

	ASSERT_EQ(0, run_ubctl(out, false, "entity reset npu0"));
	EXPECT_STREQ("", out);
	ASSERT_EQ(0, ubfab_dev_event_wait(p.npu1, &ev, WAIT_MS));
	EXPECT_EQ(UBFAB_EVENT_REVOKED, ev.type);
	EXPECT_EQ(UBFAB_REVOKE_RESET, ev.reason);
	EXPECT_EQ(0, ev.eid);
	EXPECT_EQ(p.tid, ev.token_id);
	ASSERT_EQ(0, ubfab_dev_event_wait(p.npu0, &ev, WAIT_MS));
	EXPECT_EQ(UBFAB_EVENT_RESET, ev.type);
	EXPECT_EQ(UBFAB_CQE_REVOKED, peers_write(&p, &bytes));
	ASSERT_EQ(0, run_ubctl(out, false, "seg show npu0"));
	EXPECT_STREQ("", out);
	ASSERT_EQ(0, next_event(self->events, &nev, 2000));
	EXPECT_EQ(UBFAB_CMD_ENTITY_RESET_NTF, nev.cmd);
	EXPECT_STREQ("npu0", nev.entity.name);
	peers_close(&p);
}

/* Append what @fd gives within @ms to @buf (@len bytes, NUL-terminated). */
static void read_for(int fd, char *buf, size_t len, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t n = strlen(buf);
	ssize_t r;

	while (n + 1 < len && poll(&pfd, 1, ms) > 0) {
		r = read(fd, buf + n, len - 1 - n);
		if (r <= 0)
			break;
		n += r;
		buf[n] = '\0';
	}
}

/* The lines of @in that do not contain @skip, into @out. */
static void drop_lines(const char *in, const char *skip, char *out)
{
	const char *end;

	*out = '\0';
	for (; *in; in = end + 1) {
		end = strchrnul(in, '\n');
		if (!memmem(in, end - in, skip, strlen(skip)))
			strncat(out, in, end - in + 1);
		if (!*end)
			break;
	}
}

/* Four changes of the fabric, as ubctl commands. */
static const char *const fault_cmds[] = {
	"port set npu3 plane 2 state down", "plane set 1 state down",
	"entity reset cpu0", "plane set 1 state up", NULL,
};

/*
 * Run "ubctl [-j] monitor" with its output in a pipe; toggle npu0's port
 * into plane 0 until it reports that (it has subscribed by then); run
 * the ubctl commands @cmds (up to NULL); check that it printed @want for
 * them, in order, after the toggles; end it with @sig; it exits 0.
 */
static void check_monitor(struct __test_metadata *_metadata,
			  FIXTURE_DATA(ctl) *self, bool json, int sig,
			  const char *toggle, const char *const *cmds,
			  const char *want)
{
	static char buf[UBCTL_OUT], got[UBCTL_OUT];
	char out[UBCTL_OUT];
	int fds[2], status, i;
	pid_t pid;

	ASSERT_EQ(0, pipe(fds));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* gone with the test, even one that fails half-way */
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		if (json)
			execlp("ubctl", "ubctl", "-j", "monitor", (char *)NULL);
		else
			execlp("ubctl", "ubctl", "monitor", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	buf[0] = '\0';
	for (i = 0; i < 100 && !strstr(buf, toggle); i++) {
		ASSERT_EQ(0, ubfab_port_set_state(self->nl, 0, 0,
						  UBFAB_STATE_DOWN));
		ASSERT_EQ(0, ubfab_port_set_state(self->nl, 0, 0,
						  UBFAB_STATE_UP));
		read_for(fds[0], buf, sizeof(buf), 100);
	}
	ASSERT_NE(NULL, strstr(buf, toggle)) TH_LOG("monitor printed: %s", buf);

	for (i = 0; cmds[i]; i++)
		ASSERT_EQ(0, run_ubctl(out, false, "%s", cmds[i]));
	for (i = 0; i < 100; i++) {
		drop_lines(buf, toggle, got);
		if (!strcmp(got, want))
			break;
		read_for(fds[0], buf, sizeof(buf), 100);
	}
	EXPECT_STREQ(want, got);

	ASSERT_EQ(0, kill(pid, sig));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(fds[0]);
}

TEST_F(ctl, ubctl_monitor)
{
	if (!have_ubctl())
		SKIP(return, "no ubctl in $PATH");
	check_monitor(_metadata, self, false, SIGINT, "npu0 plane 0", fault_cmds,
		      "port npu3 plane 2: state down\n"
		      "plane 1: state down\n"
		      "entity cpu0: reset\n"
		      "plane 1: state up\n");
}

TEST_F(ctl, ubctl_monitor_json)
{
	struct ubfab_entity_info e;
	char want[512];

	if (!have_ubctl())
		SKIP(return, "no ubctl in $PATH");
	ASSERT_EQ(0, ubfab_entity_get_by_name(self->nl, "cpu0", &e));
	snprintf(want, sizeof(want),
		 "{\"event\":\"port_state\",\"entity\":\"npu3\",\"eid\":3,\"plane\":2,\"state\":\"down\",%s}\n"
		 "{\"event\":\"plane_state\",\"plane\":1,\"state\":\"down\"}\n"
		 "{\"event\":\"entity_reset\",\"entity\":\"cpu0\",\"eid\":%u}\n"
		 "{\"event\":\"plane_state\",\"plane\":1,\"state\":\"up\"}\n",
		 healthy, e.eid);
	check_monitor(_metadata, self, true, SIGTERM,
		      "\"entity\":\"npu0\",\"eid\":0,\"plane\":0,", fault_cmds,
		      want);
}

/* Three changes of a port's knobs and state, as ubctl commands. */
static const char *const knob_cmds[] = {
	"port set npu3 plane 2 bw 500 delay 1000000",
	"port set npu3 plane 2 state down errors 10",
	"port set npu3 plane 2 state up bw 1000 delay 0 errors 0", NULL,
};

/*
 * ubctl monitor on changes of a port's knobs: as text, the knobs off
 * their defaults; with -j, all of them.
 */
TEST_F(ctl, ubctl_monitor_knobs)
{
	char want[1024];

	if (!have_ubctl())
		SKIP(return, "no ubctl in $PATH");
	check_monitor(_metadata, self, false, SIGINT, "npu0 plane 0", knob_cmds,
		      "port npu3 plane 2: state up bw_permille 500 delay_ps 1000000\n"
		      "port npu3 plane 2: state down bw_permille 500 delay_ps 1000000 error_ppm 10\n"
		      "port npu3 plane 2: state up\n");
	snprintf(want, sizeof(want),
		 "{\"event\":\"port_state\",\"entity\":\"npu3\",\"eid\":3,\"plane\":2,\"state\":\"up\",\"bw_permille\":500,\"delay_ps\":1000000,\"error_ppm\":0}\n"
		 "{\"event\":\"port_state\",\"entity\":\"npu3\",\"eid\":3,\"plane\":2,\"state\":\"down\",\"bw_permille\":500,\"delay_ps\":1000000,\"error_ppm\":10}\n"
		 "{\"event\":\"port_state\",\"entity\":\"npu3\",\"eid\":3,\"plane\":2,\"state\":\"up\",%s}\n",
		 healthy);
	check_monitor(_metadata, self, true, SIGTERM,
		      "\"entity\":\"npu0\",\"eid\":0,\"plane\":0,", knob_cmds,
		      want);
}

/* Append @m's model event as "ubctl -j monitor" prints it to @buf. */
static void model_event_json(char *buf, size_t len,
			     const struct ubfab_model *m)
{
	char obj[256];
	size_t i;

	snprintf(buf + strlen(buf), len - strlen(buf),
		 "{\"event\":\"model\",\"profile\":\"%s\",\"params\":[",
		 m->profile);
	for (i = 0; i < m->nparams; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
			 i ? "," : "",
			 param_json(obj, sizeof(obj), &m->params[i]));
	snprintf(buf + strlen(buf), len - strlen(buf), "]}\n");
}

/*
 * ubctl monitor on model changes: as text, the parameters that changed
 * and the values they had; with -j, the whole model after each.
 */
TEST_F(ctl, ubctl_monitor_model)
{
	static char want[8192];
	char set[64];
	const char *const cmds[] = { set, "model set profile cm384", NULL };
	struct ubfab_model_param *hop;
	struct ubfab_model *m;
	uint64_t def;

	if (!have_ubctl())
		SKIP(return, "no ubctl in $PATH");
	ASSERT_EQ(0, ubfab_model_get(self->nl, &m));
	/* the model's own params, to change them for the JSON wanted */
	hop = &m->params[ubfab_model_find(m, "hop-ps") - m->params];
	def = hop->default_value;
	snprintf(set, sizeof(set), "model set hop-ps %" PRIu64, def + 62500);
	snprintf(want, sizeof(want),
		 "model: profile custom hop-ps %" PRIu64 " ps (was %" PRIu64
		 " ps)\nmodel: profile cm384 hop-ps %" PRIu64 " ps (was %"
		 PRIu64 " ps)\n", def + 62500, def, def, def + 62500);
	check_monitor(_metadata, self, false, SIGINT, "npu0 plane 0", cmds,
		      want);

	want[0] = '\0';
	strcpy(m->profile, "custom");
	hop->value = def + 62500;
	model_event_json(want, sizeof(want), m);
	strcpy(m->profile, "cm384");
	hop->value = def;
	model_event_json(want, sizeof(want), m);
	ubfab_model_free(m);
	check_monitor(_metadata, self, true, SIGTERM,
		      "\"entity\":\"npu0\",\"eid\":0,\"plane\":0,", cmds, want);
}

TEST_HARNESS_MAIN
