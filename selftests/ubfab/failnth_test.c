// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab when allocations fail: for each entry point that allocates (module
 * load, every netlink command's do and dump, open of an entity device, the
 * memory, segment, queue and receive queue ioctls, and a queue entry that
 * allocates the pages it writes, through the doorbell and through the
 * polling worker), every allocation on its path is made to fail in turn
 * with /proc/thread-self/fail-nth (for the worker, the module's debugfs
 * ubfab/worker-fail-nth), in the spirit of the iommufd selftests. Each
 * attempt must fail cleanly (ENOMEM, UBFAB_CQE_NOMEM, or
 * the errno the ABI documents) or succeed whole; leave nothing behind (a
 * failed load leaves no module, device or class; a failed request, open,
 * ioctl or entry changes nothing a retry could see); and the sweep ends
 * when an attempt succeeds with nothing injected. Leaks are kmemleak's to
 * find (ubvm -l).
 *
 * Needs CONFIG_FAULT_INJECTION (fail-nth), CONFIG_FAILSLAB and
 * CONFIG_FAIL_PAGE_ALLOC with debugfs (the debug kernel); elsewhere every
 * test is skipped. Documentation/fuzzing.rst describes the sweeps.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "kselftest_harness.h"
#include "libubfab.h"
#include "ubfab_test.h"

#define FAULT_DIR	"/sys/kernel/debug/"
#define PAGE		4096

/* Attempts a sweep may take before it counts as endless. */
#define SWEEP_MAX	20000

/* The smallest shape: one NPU die and one CPU, one plane. */
#define TINY "nodes=1 chips_per_node=1 dies_per_chip=1 cpus_per_node=1 " \
	     "planes=1 l2_per_plane=1"

/*
 * From /proc/kallsyms: the address of symbol name; or, name NULL, the
 * lowest address above after. 0 when there is none.
 */
static unsigned long kallsyms(const char *name, unsigned long after)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	unsigned long addr, found = 0;
	char line[512], sym[256];

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %*s %255s", &addr, sym) != 2)
			continue;
		if (name ? !strcmp(sym, name) :
		    addr > after && (!found || addr < found))
			found = addr;
		if (name && found)
			break;
	}
	if (f)
		fclose(f);
	return found;
}

/* Sets the stack trace filter of both failslab and fail_page_alloc. */
static int require_stack(unsigned long start, unsigned long end)
{
	static const char *const attrs[] = { "failslab", "fail_page_alloc" };
	static const char *const bounds[] = { "require-start", "require-end" };
	unsigned long val[] = { start, end };
	char path[128], buf[32];
	unsigned int i, j;
	int ret;

	for (i = 0; i < ARRAY_SIZE(attrs); i++) {
		for (j = 0; j < ARRAY_SIZE(bounds); j++) {
			snprintf(path, sizeof(path), FAULT_DIR "%s/%s",
				 attrs[i], bounds[j]);
			snprintf(buf, sizeof(buf), "%lu", val[j]);
			ret = write_file(path, buf);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * Sets fault injection up for fail-nth: every allocation counts, sleeping
 * or not, highmem or not, of any order, and nothing is logged. With
 * init_only, only allocations made under do_one_initcall(), that is by
 * the module's init function (the stack trace filter, which looks 32
 * frames up): not the module loader's, and not those of the KUnit suites
 * the module runs once loaded (they would count as the suites' failures).
 * Returns NULL, or why it cannot be done.
 */
static const char *fault_injection_setup(bool init_only)
{
	static const char *const settings[][2] = {
		{ "failslab/ignore-gfp-wait", "N" },
		{ "failslab/verbose", "0" },
		{ "fail_page_alloc/ignore-gfp-wait", "N" },
		{ "fail_page_alloc/ignore-gfp-highmem", "N" },
		{ "fail_page_alloc/min-order", "0" },
		{ "fail_page_alloc/verbose", "0" },
	};
	unsigned long start = 0, end = ~0UL;
	char path[128];
	unsigned int i;

	if (access("/proc/thread-self/fail-nth", W_OK))
		return "no /proc/<pid>/fail-nth (CONFIG_FAULT_INJECTION)";
	if (access(FAULT_DIR "failslab", F_OK) ||
	    access(FAULT_DIR "fail_page_alloc", F_OK))
		return "no failslab or fail_page_alloc in debugfs";
	for (i = 0; i < ARRAY_SIZE(settings); i++) {
		snprintf(path, sizeof(path), FAULT_DIR "%s", settings[i][0]);
		if (write_file(path, settings[i][1]))
			return "cannot configure failslab or fail_page_alloc";
	}
	if (init_only) {
		start = kallsyms("do_one_initcall", 0);
		end = start ? kallsyms(NULL, start) : 0;
		if (!end)
			return "no do_one_initcall in /proc/kallsyms";
	}
	if (require_stack(start, end))
		return init_only ? "no stack trace filter (CONFIG_FAULT_INJECTION_STACKTRACE_FILTER)" :
				   NULL;
	return NULL;
}

/* Makes the n-th allocation of this thread from now on fail. */
static void nth_arm(int fd, unsigned long n)
{
	char buf[24];
	int len = snprintf(buf, sizeof(buf), "%lu", n);

	if (pwrite(fd, buf, len, 0) != len)
		abort();
}

/*
 * Disarms, and says whether the failure was injected: fail-nth reads 0
 * once it fired, else what is left to count down (*left).
 */
static bool nth_fired(int fd, unsigned long *left)
{
	char buf[24] = "";

	if (pread(fd, buf, sizeof(buf) - 1, 0) <= 0 || pwrite(fd, "0", 1, 0) != 1)
		abort();
	if (left)
		*left = strtoul(buf, NULL, 10);
	return strtoul(buf, NULL, 10) == 0;
}

/* ------------------------------------------------------------------ */
/* Module load */

/*
 * What a load left. Nothing of the module when it is not loaded; else the
 * number of entities whose netlink object or sysfs directory is missing
 * (*half) and of those without a device node (*nodeless).
 */
static bool load_state(struct __test_metadata *_metadata, uint32_t entities,
		       uint32_t *half, uint32_t *nodeless)
{
	struct ubfab_fabric_info f = { 0 };
	struct ubfab_entity_info e;
	struct ubfab_nl *nl = NULL;
	char path[64];
	uint32_t eid;

	*half = *nodeless = 0;
	if (!ubfab_loaded()) {
		EXPECT_NE(0, access("/dev/ubfab", F_OK));
		EXPECT_NE(0, access("/sys/class/ubfab", F_OK));
		EXPECT_EQ(-ENOENT, ubfab_nl_open(&nl));
		return false;
	}
	if (ubfab_nl_open(&nl) || ubfab_fabric_get(nl, &f) ||
	    f.npus + f.cpus != entities) {
		*half = entities;
		ubfab_nl_close(nl);
		return true;
	}
	for (eid = 0; eid < entities; eid++) {
		if (ubfab_entity_get(nl, eid, &e)) {
			(*half)++;
			continue;
		}
		snprintf(path, sizeof(path), "/sys/class/ubfab/%s/eid",
			 e.name);
		*half += access(path, F_OK) != 0;
		snprintf(path, sizeof(path), "/dev/ubfab/%s", e.name);
		*nodeless += access(path, F_OK) != 0;
	}
	ubfab_nl_close(nl);
	return true;
}

/*
 * Loads with allocation n failing (0: none) and checks what is left;
 * unloads. Returns whether the failure was injected.
 */
static bool load_failing(struct __test_metadata *_metadata, int nth,
			 const char *params, uint32_t entities,
			 unsigned long n)
{
	int fd = open(ubfab_ko_path(), O_RDONLY | O_CLOEXEC), ret, err;
	uint32_t half, nodeless;
	bool fired = false, loaded;

	ASSERT_LE(0, fd);
	if (n)
		nth_arm(nth, n);
	ret = syscall(SYS_finit_module, fd, params, 0);
	err = errno;
	if (n)
		fired = nth_fired(nth, NULL);
	close(fd);
	loaded = load_state(_metadata, entities, &half, &nodeless);
	if (ret) {
		EXPECT_TRUE(fired) TH_LOG("load failed with %s, nothing injected",
					  strerror(err));
		EXPECT_EQ(ENOMEM, err) TH_LOG("allocation %lu: %s", n,
					      strerror(err));
		EXPECT_FALSE(loaded)
			TH_LOG("allocation %lu: a failed load left it loaded",
			       n);
		return fired;
	}
	/* A failure it got past (a uevent, a fallback) must not show. */
	EXPECT_TRUE(loaded);
	EXPECT_EQ(0, half) TH_LOG("allocation %lu: loaded, %u entities half made",
				  n, half);
	/*
	 * Except one: devtmpfs ignores a failed allocation of a device's
	 * node name (device_add() does not fail), so the device has no node.
	 */
	if (fired && nodeless)
		ksft_print_msg("allocation %lu: loaded, %u entities without a node in /dev (devtmpfs ignores the failure)\n",
			       n, nodeless);
	else
		EXPECT_EQ(0, nodeless) TH_LOG("allocation %lu: %u without a node",
					      n, nodeless);
	EXPECT_EQ(0, ubfab_unload());
	return fired;
}

/* How many allocations a load with nothing failing makes. */
static unsigned long load_allocations(struct __test_metadata *_metadata,
				      int nth, const char *params)
{
	int fd = open(ubfab_ko_path(), O_RDONLY | O_CLOEXEC), ret;
	const unsigned long big = 1UL << 30;
	unsigned long left = 0;

	ASSERT_LE(0, fd);
	nth_arm(nth, big);
	ret = syscall(SYS_finit_module, fd, params, 0);
	nth_fired(nth, &left);
	close(fd);
	EXPECT_EQ(0, ret);
	EXPECT_EQ(0, ubfab_unload());
	return big - left;
}

FIXTURE(load) {
	int nth;
};

/*
 * params: the shape; entities: how many it has; samples: 0 to fail every
 * allocation in turn, else that many spread over all of them (a big shape
 * makes thousands; $UBFAB_FAILNTH_SAMPLES overrides).
 */
FIXTURE_VARIANT(load) {
	const char *params;
	uint32_t entities;
	unsigned int samples;
};

FIXTURE_VARIANT_ADD(load, tiny) {
	.params = TINY, .entities = 2, .samples = 0,
};

FIXTURE_VARIANT_ADD(load, small) {
	.params = "", .entities = 40, .samples = 4,
};

FIXTURE_VARIANT_ADD(load, cm384) {
	.params = "profile=cm384", .entities = 960, .samples = 1,
};

FIXTURE_SETUP(load)
{
	const char *why = fault_injection_setup(true);

	self->nth = -1;
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, ubfab_reload(""));
	ASSERT_EQ(0, ubfab_unload());
	self->nth = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->nth);
}

FIXTURE_TEARDOWN(load)
{
	if (self->nth >= 0)
		close(self->nth);
	ubfab_unload();
}

TEST_F_TIMEOUT(load, each_allocation_fails_cleanly, 1800)
{
	const char *env = getenv("UBFAB_FAILNTH_SAMPLES");
	unsigned int samples = variant->samples, i;
	time_t t0 = time(NULL);
	unsigned long n, total;

	if (variant->samples && env && *env)
		samples = strtoul(env, NULL, 0);
	if (!samples) {
		for (n = 1; load_failing(_metadata, self->nth, variant->params,
					 variant->entities, n); n++)
			ASSERT_GT(SWEEP_MAX, n);
		ksft_print_msg("load \"%s\": %lu allocations, each failed (%ld s)\n",
			       variant->params, n - 1, time(NULL) - t0);
		return;
	}
	total = load_allocations(_metadata, self->nth, variant->params);
	for (i = 1; i <= samples; i++) {
		n = (total * i + samples - 1) / samples;
		load_failing(_metadata, self->nth, variant->params,
			     variant->entities, n);
	}
	ksft_print_msg("load \"%s\": %lu allocations, %u of them failed (%ld s)\n",
		       variant->params, total, samples, time(NULL) - t0);
}

/* ------------------------------------------------------------------ */
/* Netlink */

/* One request, sent and answered. */
struct nl_answer {
	int err;		/* 0, or the positive errno it failed with */
	bool unanswered;	/* no error and no end came */
	size_t len;		/* the objects' bytes, concatenated */
	uint8_t data[65536];
};

/*
 * Sends one request (an ack asked for) on a new socket and takes its
 * answer, with allocation n failing (0: none) over both. Returns whether
 * the failure was injected. Between arming and disarming there are only
 * the sendmsg() and recvmsg() calls, and every answer is queued by the
 * time they return: a receive that would block means none is coming.
 */
static bool nl_request(struct __test_metadata *_metadata, int nth,
		       int family, const void *req, size_t len,
		       struct nl_answer *ans, unsigned long n)
{
	static uint8_t buf[65536];
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	const struct nlmsghdr *nlh;
	int sk, err = 0;
	bool fired = false, end = false;
	long got;

	memset(ans, 0, offsetof(struct nl_answer, data));
	sk = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	ASSERT_LE(0, sk);
	ASSERT_EQ(0, bind(sk, (struct sockaddr *)&sa, sizeof(sa)));
	if (n)
		nth_arm(nth, n);
	if (send(sk, req, len, 0) < 0)
		err = errno;
	while (!err && !end) {
		got = recv(sk, buf, sizeof(buf), MSG_DONTWAIT);
		if (got < 0) {
			err = errno;
			break;
		}
		for (nlh = (void *)buf; NLMSG_OK(nlh, got);
		     nlh = NLMSG_NEXT(nlh, got)) {
			if (nlh->nlmsg_type == NLMSG_ERROR ||
			    nlh->nlmsg_type == NLMSG_DONE) {
				err = -*(int *)NLMSG_DATA(nlh);
				end = true;
				break;
			}
			ASSERT_EQ(family, nlh->nlmsg_type);
			ASSERT_GE(sizeof(ans->data),
				  ans->len + NLMSG_PAYLOAD(nlh, 0));
			memcpy(ans->data + ans->len, NLMSG_DATA(nlh),
			       NLMSG_PAYLOAD(nlh, 0));
			ans->len += NLMSG_PAYLOAD(nlh, 0);
		}
	}
	if (n)
		fired = nth_fired(nth, NULL);
	close(sk);
	ans->unanswered = err == EAGAIN;
	ans->err = ans->unanswered ? 0 : err;
	return fired;
}

struct nl_req {
	struct nlmsghdr nlh;
	struct genlmsghdr genl;
	uint8_t attrs[64];
};

FIXTURE(netlink) {
	int nth;
	int family;
	int dev;
	struct nl_req req;
	struct nl_req req_up;	/* state_attr: the same request, state up */
	size_t len;
	struct nl_answer base;
	struct nl_answer got;
};

/*
 * attr: 0 none; u32 or name (a string): its value. state_attr: a state
 * set to down by the request, and set back up (nothing failing) before
 * each try, so that every try changes it and announces the change.
 */
FIXTURE_VARIANT(netlink) {
	uint8_t cmd;
	bool dump;
	uint16_t attr;
	uint32_t u32;
	uint16_t attr2;
	uint32_t u32_2;
	const char *name;
	uint16_t state_attr;
};

FIXTURE_VARIANT_ADD(netlink, fabric_get) {
	.cmd = UBFAB_CMD_FABRIC_GET,
};

FIXTURE_VARIANT_ADD(netlink, entity_get_eid) {
	.cmd = UBFAB_CMD_ENTITY_GET, .attr = UBFAB_A_ENTITY_EID, .u32 = 33,
};

FIXTURE_VARIANT_ADD(netlink, entity_get_name) {
	.cmd = UBFAB_CMD_ENTITY_GET, .attr = UBFAB_A_ENTITY_NAME,
	.name = "npu31",
};

FIXTURE_VARIANT_ADD(netlink, entity_dump) {
	.cmd = UBFAB_CMD_ENTITY_GET, .dump = true,
};

FIXTURE_VARIANT_ADD(netlink, port_get) {
	.cmd = UBFAB_CMD_PORT_GET, .attr = UBFAB_A_PORT_EID, .u32 = 5,
	.attr2 = UBFAB_A_PORT_PLANE, .u32_2 = 6,
};

FIXTURE_VARIANT_ADD(netlink, port_dump) {
	.cmd = UBFAB_CMD_PORT_GET, .dump = true,
};

FIXTURE_VARIANT_ADD(netlink, port_dump_entity) {
	.cmd = UBFAB_CMD_PORT_GET, .dump = true, .attr = UBFAB_A_PORT_EID,
	.u32 = 39,
};

FIXTURE_VARIANT_ADD(netlink, plane_get) {
	.cmd = UBFAB_CMD_PLANE_GET, .attr = UBFAB_A_PLANE_ID, .u32 = 3,
};

FIXTURE_VARIANT_ADD(netlink, plane_dump) {
	.cmd = UBFAB_CMD_PLANE_GET, .dump = true,
};

FIXTURE_VARIANT_ADD(netlink, seg_dump) {
	.cmd = UBFAB_CMD_SEG_GET, .dump = true,
};

FIXTURE_VARIANT_ADD(netlink, seg_dump_entity) {
	.cmd = UBFAB_CMD_SEG_GET, .dump = true, .attr = UBFAB_A_SEG_EID,
	.u32 = 0,
};

FIXTURE_VARIANT_ADD(netlink, entity_reset) {
	.cmd = UBFAB_CMD_ENTITY_RESET, .attr = UBFAB_A_ENTITY_EID, .u32 = 1,
};

FIXTURE_VARIANT_ADD(netlink, port_set) {
	.cmd = UBFAB_CMD_PORT_SET, .attr = UBFAB_A_PORT_EID, .u32 = 5,
	.attr2 = UBFAB_A_PORT_PLANE, .u32_2 = 6,
	.state_attr = UBFAB_A_PORT_STATE,
};

FIXTURE_VARIANT_ADD(netlink, plane_set) {
	.cmd = UBFAB_CMD_PLANE_SET, .attr = UBFAB_A_PLANE_ID, .u32 = 2,
	.state_attr = UBFAB_A_PLANE_STATE,
};

static void put_attr(struct nl_req *req, size_t *len, uint16_t type,
		     const void *data, size_t size)
{
	struct nlattr *a = (void *)((uint8_t *)req + *len);

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + size;
	memcpy(a + 1, data, size);
	*len += NLA_ALIGN(a->nla_len);
}

/* An allocation of npu0 exported, for SEG_GET and ENTITY_RESET to see. */
static int make_segment(void)
{
	struct ubfab_mem_alloc alloc = {
		.size = sizeof(alloc), .length = 4 * PAGE,
	};
	struct ubfab_seg_export exp = {
		.size = sizeof(exp), .rights = UBFAB_SEG_READ,
		.length = 2 * PAGE, .token_value = 7,
	};
	int fd = open("/dev/ubfab/npu0", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (!ioctl(fd, UBFAB_IOCTL_MEM_ALLOC, &alloc)) {
		exp.offset = alloc.offset;
		if (!ioctl(fd, UBFAB_IOCTL_SEG_EXPORT, &exp))
			return fd;
	}
	close(fd);
	return -1;
}

/* For a state_attr variant: the state back up, nothing failing. */
static void set_up(struct __test_metadata *_metadata,
		   FIXTURE_DATA(netlink) *self,
		   const FIXTURE_VARIANT(netlink) *variant)
{
	struct nl_answer ans;

	if (!variant->state_attr)
		return;
	nl_request(_metadata, self->nth, self->family, &self->req_up,
		   self->req_up.nlh.nlmsg_len, &ans, 0);
	ASSERT_EQ(0, ans.err);
}

FIXTURE_SETUP(netlink)
{
	const char *why = fault_injection_setup(false);
	struct nl_req *req = &self->req;

	self->nth = self->dev = -1;
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, ubfab_reload(""));
	self->family = ubfab_family_id();
	ASSERT_LT(0, self->family);
	self->nth = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->nth);

	memset(req, 0, sizeof(*req));
	req->nlh.nlmsg_type = self->family;
	req->nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK |
			       (variant->dump ? NLM_F_DUMP : 0);
	req->genl.cmd = variant->cmd;
	req->genl.version = UBFAB_GENL_VERSION;
	self->len = NLMSG_HDRLEN + GENL_HDRLEN;
	if (variant->name)
		put_attr(req, &self->len, variant->attr, variant->name,
			 strlen(variant->name) + 1);
	else if (variant->attr)
		put_attr(req, &self->len, variant->attr, &variant->u32, 4);
	if (variant->attr2)
		put_attr(req, &self->len, variant->attr2, &variant->u32_2, 4);
	if (variant->state_attr) {
		uint32_t down = UBFAB_STATE_DOWN, up = UBFAB_STATE_UP;
		size_t len = self->len;

		self->req_up = *req;
		put_attr(&self->req_up, &len, variant->state_attr, &up, 4);
		self->req_up.nlh.nlmsg_len = len;
		put_attr(req, &self->len, variant->state_attr, &down, 4);
	}
	req->nlh.nlmsg_len = self->len;

	if (variant->cmd != UBFAB_CMD_ENTITY_RESET) {
		self->dev = make_segment();
		ASSERT_LE(0, self->dev);
	}
	set_up(_metadata, self, variant);
	nl_request(_metadata, self->nth, self->family, req, self->len,
		   &self->base, 0);
	ASSERT_EQ(0, self->base.err);
	ASSERT_FALSE(self->base.unanswered);
}

FIXTURE_TEARDOWN(netlink)
{
	if (self->nth >= 0)
		close(self->nth);
	if (self->dev >= 0)
		close(self->dev);
	ubfab_unload();
}

/* The answer is the baseline's, or a clean error. */
static void check_answer(struct __test_metadata *_metadata,
			 const struct nl_answer *base,
			 const struct nl_answer *got, unsigned long n,
			 bool fired)
{
	EXPECT_FALSE(got->unanswered)
		TH_LOG("allocation %lu: the request went unanswered", n);
	if (got->err) {
		EXPECT_TRUE(fired);
		EXPECT_TRUE(got->err == ENOMEM || got->err == ENOBUFS)
			TH_LOG("allocation %lu: %s", n, strerror(got->err));
		return;
	}
	EXPECT_EQ(base->len, got->len) TH_LOG("allocation %lu", n);
	EXPECT_EQ(0, memcmp(base->data, got->data, base->len))
		TH_LOG("allocation %lu: the answer differs", n);
}

TEST_F_TIMEOUT(netlink, each_allocation_fails_cleanly, 900)
{
	unsigned long n;
	bool fired;

	for (n = 1;; n++) {
		ASSERT_GT(SWEEP_MAX, n);
		set_up(_metadata, self, variant);
		fired = nl_request(_metadata, self->nth, self->family,
				   &self->req, self->len, &self->got, n);
		check_answer(_metadata, &self->base, &self->got, n, fired);
		if (!fired)
			break;
		/* The same request, nothing failing: the same answer. */
		set_up(_metadata, self, variant);
		nl_request(_metadata, self->nth, self->family, &self->req,
			   self->len, &self->got, 0);
		check_answer(_metadata, &self->base, &self->got, n, false);
		if (_metadata->exit_code)
			break;
	}
	ksft_print_msg("command %u%s: %lu allocations, each failed\n",
		       variant->cmd, variant->dump ? " dump" : "", n - 1);
}

/* ------------------------------------------------------------------ */
/* Entity devices */

FIXTURE(device) {
	int nth;
	int owner;	/* npu0: allocates and exports */
	int peer;	/* cpu0: imports */
};

FIXTURE_SETUP(device)
{
	const char *why = fault_injection_setup(false);

	self->nth = self->owner = self->peer = -1;
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, ubfab_reload(""));
	self->nth = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->nth);
	self->owner = open("/dev/ubfab/npu0", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->owner);
	self->peer = open("/dev/ubfab/cpu0", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->peer);
}

FIXTURE_TEARDOWN(device)
{
	if (self->nth >= 0)
		close(self->nth);
	if (self->owner >= 0)
		close(self->owner);
	if (self->peer >= 0)
		close(self->peer);
	ubfab_unload();
}

/* An open that fails takes no module reference; one that works, one. */
TEST_F_TIMEOUT(device, open, 300)
{
	uint64_t base, refcnt;
	unsigned long n;
	bool fired;
	int fd, err;

	ASSERT_EQ(0, read_u64("/sys/module/ubfab/refcnt", &base));
	for (n = 1;; n++) {
		ASSERT_GT(SWEEP_MAX, n);
		nth_arm(self->nth, n);
		fd = open("/dev/ubfab/npu1", O_RDWR | O_CLOEXEC);
		err = errno;
		fired = nth_fired(self->nth, NULL);
		if (fd < 0) {
			EXPECT_TRUE(fired);
			EXPECT_EQ(ENOMEM, err) TH_LOG("allocation %lu: %s", n,
						      strerror(err));
		} else {
			close(fd);
		}
		EXPECT_EQ(0, read_u64("/sys/module/ubfab/refcnt", &refcnt));
		EXPECT_EQ(base, refcnt)
			TH_LOG("allocation %lu: a module reference leaked", n);
		if (!fired || _metadata->exit_code)
			break;
	}
	ksft_print_msg("open: %lu allocations, each failed\n", n - 1);
}

/*
 * Fails each allocation of one ioctl in turn. A failure must be ENOMEM and
 * leave nothing: what a retry returns (the bytes from out_off) equals what
 * the first call did, as offsets (first fit) and ids (lowest free) would
 * not if the failed attempt had kept something. undo() puts things back
 * after each success.
 */
static void sweep_ioctl(struct __test_metadata *_metadata, int nth, int fd,
			unsigned int cmd, const void *arg, size_t size,
			size_t out_off, void (*undo)(int fd, const void *arg),
			const char *name)
{
	uint8_t buf[64], base[64];
	unsigned long n;
	bool fired;
	int ret, err;

	memcpy(base, arg, size);
	ASSERT_EQ(0, ioctl(fd, cmd, base)) TH_LOG("%s: %s", name,
						   strerror(errno));
	undo(fd, base);
	for (n = 1;; n++) {
		ASSERT_GT(SWEEP_MAX, n);
		memcpy(buf, arg, size);
		nth_arm(nth, n);
		ret = ioctl(fd, cmd, buf);
		err = errno;
		fired = nth_fired(nth, NULL);
		if (ret) {
			EXPECT_TRUE(fired);
			EXPECT_EQ(ENOMEM, err) TH_LOG("%s, allocation %lu: %s",
						      name, n, strerror(err));
			memcpy(buf, arg, size);
			ASSERT_EQ(0, ioctl(fd, cmd, buf));
		}
		EXPECT_EQ(0, memcmp(base + out_off, buf + out_off,
				    size - out_off))
			TH_LOG("%s, allocation %lu: not what it gave first",
			       name, n);
		undo(fd, buf);
		if (!fired || _metadata->exit_code)
			break;
	}
	ksft_print_msg("%s: %lu allocations, each failed\n", name, n - 1);
}

static void undo_alloc(int fd, const void *arg)
{
	const struct ubfab_mem_alloc *a = arg;
	struct ubfab_mem_free f = { .size = sizeof(f), .offset = a->offset };

	if (ioctl(fd, UBFAB_IOCTL_MEM_FREE, &f))
		abort();
}

static void undo_export(int fd, const void *arg)
{
	const struct ubfab_seg_export *e = arg;
	struct ubfab_seg_unexport u = {
		.size = sizeof(u), .token_id = e->token_id,
	};

	if (ioctl(fd, UBFAB_IOCTL_SEG_UNEXPORT, &u))
		abort();
}

static void undo_import(int fd, const void *arg)
{
	const struct ubfab_seg_import *i = arg;
	struct ubfab_seg_unimport u = {
		.size = sizeof(u), .mmap_offset = i->mmap_offset,
	};

	if (ioctl(fd, UBFAB_IOCTL_SEG_UNIMPORT, &u))
		abort();
}

TEST_F_TIMEOUT(device, mem_alloc, 300)
{
	struct ubfab_mem_alloc a = { .size = sizeof(a), .length = 8 * PAGE };

	sweep_ioctl(_metadata, self->nth, self->owner, UBFAB_IOCTL_MEM_ALLOC,
		    &a, sizeof(a), offsetof(struct ubfab_mem_alloc, offset),
		    undo_alloc, "MEM_ALLOC");
}

TEST_F_TIMEOUT(device, seg_export_import, 300)
{
	struct ubfab_mem_alloc a = { .size = sizeof(a), .length = 8 * PAGE };
	struct ubfab_seg_export e = {
		.size = sizeof(e), .rights = UBFAB_SEG_RIGHTS,
		.length = 4 * PAGE, .token_value = 0x5eed,
	};
	struct ubfab_seg_import i = {
		.size = sizeof(i), .rights = UBFAB_SEG_READ, .eid = 0,
		.token_value = 0x5eed,
	};

	ASSERT_EQ(0, ioctl(self->owner, UBFAB_IOCTL_MEM_ALLOC, &a));
	e.offset = a.offset + PAGE;
	sweep_ioctl(_metadata, self->nth, self->owner, UBFAB_IOCTL_SEG_EXPORT,
		    &e, sizeof(e), offsetof(struct ubfab_seg_export, token_id),
		    undo_export, "SEG_EXPORT");
	ASSERT_EQ(0, ioctl(self->owner, UBFAB_IOCTL_SEG_EXPORT, &e));
	i.token_id = e.token_id;
	sweep_ioctl(_metadata, self->nth, self->peer, UBFAB_IOCTL_SEG_IMPORT,
		    &i, sizeof(i), offsetof(struct ubfab_seg_import, length),
		    undo_import, "SEG_IMPORT");
}

/* ------------------------------------------------------------------ */
/* NPU queues */

/*
 * Runs one NOP through a queue QUEUE_CREATE made: its completion's
 * status, or -1 if none came.
 */
static int queue_nop(const struct ubfab_queue_create *q)
{
	struct pollfd pfd = { .fd = q->fd, .events = POLLIN };
	struct ubfab_sqe *sqe;
	struct ubfab_cqe *cqe;
	uint8_t *ring;
	int status = -1;

	ring = mmap(NULL, q->ring_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    q->fd, 0);
	if (ring == MAP_FAILED)
		return -1;
	sqe = (struct ubfab_sqe *)(ring + q->sq.array);
	memset(sqe, 0, sizeof(*sqe));
	sqe->user_data = 0x5eed;
	__atomic_store_n((uint32_t *)(ring + q->sq.tail), 1, __ATOMIC_RELEASE);
	if (!ioctl(q->fd, UBFAB_IOCTL_QUEUE_DOORBELL, 0) &&
	    poll(&pfd, 1, 10000) == 1 &&
	    __atomic_load_n((uint32_t *)(ring + q->cq.tail),
			    __ATOMIC_ACQUIRE) == 1) {
		cqe = (struct ubfab_cqe *)(ring + q->cq.array);
		if (cqe->user_data == 0x5eed)
			status = cqe->status;
	}
	munmap(ring, q->ring_size);
	return status;
}

/*
 * QUEUE_CREATE with an eventfd, on a new file of npu1 each time (a file's
 * first queue also allocates its event counters). A failure is ENOMEM and
 * leaves nothing: the retry gets the descriptor, queue id and layout that
 * a call with nothing failing got (the lowest free descriptor and id:
 * one kept by the failed attempt would show), its queue runs a NOP, and
 * once the queue and the file are closed the module's reference count is
 * back where it was (a queue holds its entity file, which holds the
 * module).
 */
TEST_F_TIMEOUT(device, queue_create, 300)
{
	struct ubfab_queue_create arg = {
		.size = sizeof(arg), .sq_entries = 8, .eventfd = -1,
	}, base, q;
	const size_t out = offsetof(struct ubfab_queue_create, fd);
	uint64_t refs, refcnt;
	unsigned long n;
	int dev, ret, err;
	bool fired;

	arg.eventfd = eventfd(0, EFD_CLOEXEC);
	ASSERT_LE(0, arg.eventfd);
	ASSERT_EQ(0, read_u64("/sys/module/ubfab/refcnt", &refs));
	dev = open("/dev/ubfab/npu1", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	base = arg;
	ASSERT_EQ(0, ioctl(dev, UBFAB_IOCTL_QUEUE_CREATE, &base))
		TH_LOG("QUEUE_CREATE: %s", strerror(errno));
	close(base.fd);
	close(dev);
	for (n = 1;; n++) {
		ASSERT_GT(SWEEP_MAX, n);
		dev = open("/dev/ubfab/npu1", O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, dev);
		q = arg;
		nth_arm(self->nth, n);
		ret = ioctl(dev, UBFAB_IOCTL_QUEUE_CREATE, &q);
		err = errno;
		fired = nth_fired(self->nth, NULL);
		if (ret) {
			EXPECT_TRUE(fired);
			EXPECT_EQ(ENOMEM, err)
				TH_LOG("QUEUE_CREATE, allocation %lu: %s", n,
				       strerror(err));
			q = arg;
			ASSERT_EQ(0, ioctl(dev, UBFAB_IOCTL_QUEUE_CREATE, &q));
		}
		EXPECT_EQ(0, memcmp((uint8_t *)&base + out,
				    (uint8_t *)&q + out, sizeof(q) - out))
			TH_LOG("QUEUE_CREATE, allocation %lu: fd %d id %u, first fd %d id %u",
			       n, q.fd, q.id, base.fd, base.id);
		EXPECT_EQ(UBFAB_CQE_OK, queue_nop(&q))
			TH_LOG("QUEUE_CREATE, allocation %lu: the queue does not run",
			       n);
		close(q.fd);
		close(dev);
		EXPECT_EQ(0, read_u64("/sys/module/ubfab/refcnt", &refcnt));
		EXPECT_EQ(refs, refcnt)
			TH_LOG("QUEUE_CREATE, allocation %lu: a reference leaked",
			       n);
		if (!fired || _metadata->exit_code)
			break;
	}
	close(arg.eventfd);
	ksft_print_msg("QUEUE_CREATE: %lu allocations, each failed\n", n - 1);
}

/*
 * RQ_CREATE (a receive queue for two-sided messages), each allocation
 * failing in turn. A failure is ENOMEM and leaves nothing: the retry gets
 * the descriptor, number and layout a call with nothing failing got (the
 * lowest free descriptor and number: one kept by the failed attempt would
 * show), and once it is closed the module's reference count is back where
 * it was (a receive queue holds its entity file, which holds the module).
 */
TEST_F_TIMEOUT(device, rq_create, 300)
{
	struct ubfab_rq_create arg = {
		.size = sizeof(arg), .rq_entries = 8, .token = 0x5eed,
	}, base, rq;
	const size_t out = offsetof(struct ubfab_rq_create, fd);
	uint64_t refs, refcnt;
	unsigned long n;
	int ret, err;
	bool fired;

	ASSERT_EQ(0, read_u64("/sys/module/ubfab/refcnt", &refs));
	base = arg;
	ASSERT_EQ(0, ioctl(self->owner, UBFAB_IOCTL_RQ_CREATE, &base))
		TH_LOG("RQ_CREATE: %s", strerror(errno));
	close(base.fd);
	for (n = 1;; n++) {
		ASSERT_GT(SWEEP_MAX, n);
		rq = arg;
		nth_arm(self->nth, n);
		ret = ioctl(self->owner, UBFAB_IOCTL_RQ_CREATE, &rq);
		err = errno;
		fired = nth_fired(self->nth, NULL);
		if (ret) {
			EXPECT_TRUE(fired);
			EXPECT_EQ(ENOMEM, err)
				TH_LOG("RQ_CREATE, allocation %lu: %s", n,
				       strerror(err));
			rq = arg;
			ASSERT_EQ(0, ioctl(self->owner, UBFAB_IOCTL_RQ_CREATE,
					   &rq));
		}
		EXPECT_EQ(0, memcmp((uint8_t *)&base + out,
				    (uint8_t *)&rq + out, sizeof(rq) - out))
			TH_LOG("RQ_CREATE, allocation %lu: fd %d id %u, first fd %d id %u",
			       n, rq.fd, rq.id, base.fd, base.id);
		close(rq.fd);
		EXPECT_EQ(0, read_u64("/sys/module/ubfab/refcnt", &refcnt));
		EXPECT_EQ(refs, refcnt)
			TH_LOG("RQ_CREATE, allocation %lu: a reference leaked",
			       n);
		if (!fired || _metadata->exit_code)
			break;
	}
	ksft_print_msg("RQ_CREATE: %lu allocations, each failed\n", n - 1);
}

/*
 * JETTY_CREATE (a queue and a receive queue paired), each allocation
 * failing in turn. A failure is ENOMEM and leaves nothing: the retry gets
 * the descriptor and number a call with nothing failing got (one kept by
 * the failed attempt would show: the lowest free descriptor and number, or
 * EBUSY for queues left in a jetty), and once everything is closed the
 * module's reference count is back where it was.
 */
TEST_F_TIMEOUT(device, jetty_create, 300)
{
	struct ubfab_queue_create qc = {
		.size = sizeof(qc), .sq_entries = 8, .eventfd = -1,
	};
	struct ubfab_rq_create rc = {
		.size = sizeof(rc), .rq_entries = 8, .token = 0x5eed,
	};
	struct ubfab_jetty_create arg = { .size = sizeof(arg) }, base, j;
	const size_t out = offsetof(struct ubfab_jetty_create, fd);
	uint64_t refs, refcnt;
	unsigned long n;
	int ret, err;
	bool fired;

	ASSERT_EQ(0, read_u64("/sys/module/ubfab/refcnt", &refs));
	ASSERT_EQ(0, ioctl(self->owner, UBFAB_IOCTL_QUEUE_CREATE, &qc));
	ASSERT_EQ(0, ioctl(self->owner, UBFAB_IOCTL_RQ_CREATE, &rc));
	arg.sq_fd = qc.fd;
	arg.rq_fd = rc.fd;
	base = arg;
	ASSERT_EQ(0, ioctl(self->owner, UBFAB_IOCTL_JETTY_CREATE, &base))
		TH_LOG("JETTY_CREATE: %s", strerror(errno));
	close(base.fd);
	for (n = 1;; n++) {
		ASSERT_GT(SWEEP_MAX, n);
		j = arg;
		nth_arm(self->nth, n);
		ret = ioctl(self->owner, UBFAB_IOCTL_JETTY_CREATE, &j);
		err = errno;
		fired = nth_fired(self->nth, NULL);
		if (ret) {
			EXPECT_TRUE(fired);
			EXPECT_EQ(ENOMEM, err)
				TH_LOG("JETTY_CREATE, allocation %lu: %s", n,
				       strerror(err));
			j = arg;
			ASSERT_EQ(0, ioctl(self->owner,
					   UBFAB_IOCTL_JETTY_CREATE, &j))
				TH_LOG("JETTY_CREATE, allocation %lu, retried: %s",
				       n, strerror(errno));
		}
		EXPECT_EQ(0, memcmp((uint8_t *)&base + out,
				    (uint8_t *)&j + out, sizeof(j) - out))
			TH_LOG("JETTY_CREATE, allocation %lu: fd %d id %u, first fd %d id %u",
			       n, j.fd, j.id, base.fd, base.id);
		close(j.fd);
		if (!fired || _metadata->exit_code)
			break;
	}
	close(qc.fd);
	close(rc.fd);
	EXPECT_EQ(0, read_u64("/sys/module/ubfab/refcnt", &refcnt));
	EXPECT_EQ(refs, refcnt) TH_LOG("JETTY_CREATE: a reference leaked");
	ksft_print_msg("JETTY_CREATE: %lu allocations, each failed\n", n - 1);
}

#define WRITE_LEN	(3 * PAGE)

#define WORKER_NTH	FAULT_DIR "ubfab/worker-fail-nth"

/*
 * One WRITE of WRITE_LEN bytes from local to the start of a new segment
 * of the owner: the owner allocates and exports a range whose pages were
 * never touched, the peer imports it, and the queue's round allocates
 * them: the doorbell's, run in this thread, or with poll the polling
 * worker's. With n, the nth allocation of that round fails: armed through
 * this thread's fail-nth (nth), or through the module's worker-fail-nth
 * in debugfs for the worker, read back after the queue's clock ioctl,
 * which waits for the round to let go of the queue. Returns the
 * completion's status (-1: none) and what was done, for the caller to
 * check and undo.
 */
struct queue_write {
	uint64_t target;
	uint32_t token_id;
	struct ubfab_import imp;
	int status;
	uint32_t bytes;
	bool fired;
};

static void queue_write_post(struct __test_metadata *_metadata,
			     struct ubfab_queue *q, uint64_t local,
			     struct queue_write *wr, int nth, bool poll,
			     unsigned long n)
{
	struct ubfab_sqe *sqe = ubfab_queue_get_sqe(q);
	struct ubfab_cqe *cqe;
	uint64_t now, left;
	char buf[24];

	ASSERT_NE(NULL, sqe);
	ubfab_prep_write(sqe, local, ubfab_import_addr(&wr->imp, 0),
			 WRITE_LEN);
	snprintf(buf, sizeof(buf), "%lu", n);
	if (n && poll) {
		ASSERT_EQ(0, write_file(WORKER_NTH, buf));
	} else if (n) {
		nth_arm(nth, n);
	}
	ubfab_queue_submit(q);
	wr->fired = n && !poll && nth_fired(nth, NULL);
	wr->status = -1;
	if (ubfab_queue_wait_cqe(q, &cqe, 10000))
		return;
	wr->status = cqe->status;
	wr->bytes = cqe->bytes;
	ubfab_queue_cqe_seen(q);
	if (n && poll) {
		ASSERT_EQ(0, ubfab_queue_clock(q, 0, &now));
		ASSERT_EQ(0, read_u64(WORKER_NTH, &left));
		ASSERT_EQ(0, write_file(WORKER_NTH, "0"));
		wr->fired = !left;
	}
}

/*
 * A WRITE that must allocate the pages it writes, each allocation of its
 * round failing in turn (the doorbell's in this thread, or with poll the
 * polling worker's): the entry completes with UBFAB_CQE_NOMEM (or
 * UBFAB_CQE_OK, when the failure is one the kernel retries, as xarray
 * does with a node it could not get without sleeping) having written
 * the pages before the one that failed, as its bytes say; the queue
 * resets, and the same WRITE then completes with UBFAB_CQE_OK and every
 * byte in place. The pages of each failed attempt and of each segment go
 * back with the owner's allocation (kmemleak, ubvm -l, sees any that do
 * not).
 */
static void queue_write_sweep(struct __test_metadata *_metadata, int nth,
			      bool poll)
{
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;
	const char *how = poll ? "polling WRITE" : "WRITE";
	struct ubfab_dev *owner, *peer;
	struct ubfab_queue *q;
	struct queue_write wr;
	uint64_t local;
	uint8_t *src, *dst;
	unsigned long n;
	unsigned int i;
	bool fired;

	if (poll && access(WORKER_NTH, W_OK))
		SKIP(return, "no " WORKER_NTH);
	if (poll)
		attr.flags |= UBFAB_QUEUE_POLL;
	ASSERT_EQ(0, ubfab_dev_open("npu0", &owner));
	ASSERT_EQ(0, ubfab_dev_open("cpu0", &peer));
	ASSERT_EQ(0, ubfab_dev_alloc(peer, WRITE_LEN, &local));
	ASSERT_EQ(0, ubfab_dev_map(peer, local, WRITE_LEN,
				   PROT_READ | PROT_WRITE, (void **)&src));
	for (i = 0; i < WRITE_LEN; i++)
		src[i] = i * 7 + 1;
	ASSERT_EQ(0, ubfab_queue_create(peer, &attr, &q));
	for (n = 0;; n++) {
		ASSERT_GT(SWEEP_MAX, n);
		ASSERT_EQ(0, ubfab_dev_alloc(owner, WRITE_LEN, &wr.target));
		ASSERT_EQ(0, ubfab_dev_export(owner, wr.target, WRITE_LEN,
					      UBFAB_SEG_RIGHTS, 0x5eed,
					      &wr.token_id));
		ASSERT_EQ(0, ubfab_dev_import(peer, 0, wr.token_id, 0x5eed,
					      UBFAB_SEG_WRITE, &wr.imp));
		/* n = 0: nothing fails, for the count. */
		queue_write_post(_metadata, q, local, &wr, nth, poll, n);
		fired = wr.fired;
		if (wr.status != UBFAB_CQE_OK) {
			EXPECT_TRUE(fired);
			EXPECT_EQ(UBFAB_CQE_NOMEM, wr.status)
				TH_LOG("%s, allocation %lu: status %d", how, n,
				       wr.status);
			/* it stopped at a page; what came before is there */
			EXPECT_EQ(0, wr.bytes % PAGE);
			EXPECT_GT(WRITE_LEN, wr.bytes);
			if (wr.bytes && wr.bytes < WRITE_LEN) {
				ASSERT_EQ(0, ubfab_dev_map(owner, wr.target,
							   wr.bytes, PROT_READ,
							   (void **)&dst));
				EXPECT_EQ(0, memcmp(src, dst, wr.bytes))
					TH_LOG("%s, allocation %lu: the %u bytes written are not there",
					       how, n, wr.bytes);
				ubfab_unmap(dst, wr.bytes);
			}
			ASSERT_EQ(0, ubfab_queue_reset(q));
			queue_write_post(_metadata, q, local, &wr, nth, poll, 0);
		}
		EXPECT_EQ(UBFAB_CQE_OK, wr.status)
			TH_LOG("%s, allocation %lu: status %d after a reset",
			       how, n, wr.status);
		EXPECT_EQ(WRITE_LEN, wr.bytes);
		ASSERT_EQ(0, ubfab_dev_map(owner, wr.target, WRITE_LEN,
					   PROT_READ, (void **)&dst));
		EXPECT_EQ(0, memcmp(src, dst, WRITE_LEN))
			TH_LOG("%s, allocation %lu: the data is not there",
			       how, n);
		ubfab_unmap(dst, WRITE_LEN);
		ASSERT_EQ(0, ubfab_dev_unimport(peer, wr.imp.mmap_offset));
		ASSERT_EQ(0, ubfab_dev_unexport(owner, wr.token_id));
		ASSERT_EQ(0, ubfab_dev_free(owner, wr.target));
		if ((n && !fired) || _metadata->exit_code)
			break;
	}
	ubfab_queue_destroy(q);
	ubfab_unmap(src, WRITE_LEN);
	ubfab_dev_close(peer);
	ubfab_dev_close(owner);
	/* the polling worker's sweep must have reached an allocation */
	if (poll)
		EXPECT_LT(1, n);
	ksft_print_msg("%s: %lu allocations, each failed\n", how, n - 1);
}

TEST_F_TIMEOUT(device, queue_write, 300)
{
	queue_write_sweep(_metadata, self->nth, false);
}

TEST_F_TIMEOUT(device, queue_write_polling, 300)
{
	queue_write_sweep(_metadata, self->nth, true);
}

TEST_HARNESS_MAIN
