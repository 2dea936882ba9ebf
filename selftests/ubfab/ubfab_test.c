// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the ubfab selftests: loading and unloading the module,
 * finding its netlink family, reading sysfs, watching the kernel log,
 * memory cgroups, and the clock.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include "libubfab.h"
#include "ubfab_test.h"

const char *ubfab_ko_path(void)
{
	static char path[256];
	struct utsname u;
	const char *env = getenv("UBFAB_KO");

	if (env && *env)
		return env;
	uname(&u);
	snprintf(path, sizeof(path), "/lib/modules/%s/extra/ubfab.ko",
		 u.release);
	return path;
}

int ubfab_load(const char *params)
{
	int fd, ret = 0;

	fd = open(ubfab_ko_path(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, params, 0))
		ret = -errno;
	close(fd);
	return ret;
}

int ubfab_unload(void)
{
	if (syscall(SYS_delete_module, "ubfab", O_NONBLOCK))
		return -errno;
	return 0;
}

bool ubfab_loaded(void)
{
	return access("/sys/module/ubfab", F_OK) == 0;
}

int ubfab_reload(const char *params)
{
	int ret = ubfab_unload();

	if (ret && ret != -ENOENT)
		return ret;
	return ubfab_load(params);
}

int ubfab_family_id(void)
{
	struct nl_sock *sk = nl_socket_alloc();
	int family;

	if (!sk)
		return -ENOMEM;
	family = genl_connect(sk) ? -ENOTCONN :
		 genl_ctrl_resolve(sk, UBFAB_GENL_NAME);
	nl_socket_free(sk);
	return family < 0 ? -ENOENT : family;
}

int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		ret = -errno;
	close(fd);
	return ret;
}

int read_text(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

int read_u64(const char *path, uint64_t *val)
{
	char buf[64], *end;
	int ret;

	ret = read_text(path, buf, sizeof(buf));
	if (ret)
		return ret;
	errno = 0;
	*val = strtoull(buf, &end, 10);
	if (errno || end == buf || *end)
		return -EINVAL;
	return 0;
}

int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	lseek(fd, 0, SEEK_END);
	return fd;
}

bool kmsg_find(int fd, const char *needle)
{
	char rec[2048];
	ssize_t n;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: read on */
		if (n <= 0)
			return false;
		rec[n] = '\0';
		if (strstr(rec, needle))
			return true;
	}
}

#define CGROOT "/sys/fs/cgroup"

int cgroup_make(const char *name)
{
	char path[128];
	int fd;

	if (access(CGROOT "/cgroup.controllers", F_OK) &&
	    mount("none", CGROOT, "cgroup2", 0, NULL))
		return -1;
	fd = open(CGROOT "/cgroup.subtree_control", O_WRONLY);
	if (fd < 0 || write(fd, "+memory", 7) != 7) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	snprintf(path, sizeof(path), CGROOT "/%s", name);
	rmdir(path);
	return mkdir(path, 0755);
}

int cgroup_enter(const char *name, pid_t pid)
{
	char path[128], buf[32];
	int fd, len, ret;

	snprintf(path, sizeof(path), CGROOT "/%s/cgroup.procs", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	len = snprintf(buf, sizeof(buf), "%d", pid);
	ret = write(fd, buf, len) == len ? 0 : -1;
	close(fd);
	return ret;
}

uint64_t cgroup_current(const char *name)
{
	char path[128];
	uint64_t val = 0;

	snprintf(path, sizeof(path), CGROOT "/%s/memory.current", name);
	read_u64(path, &val);
	return val;
}

int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int next_cqe(struct ubfab_queue *q, struct ubfab_cqe *out, int timeout_ms)
{
	struct ubfab_cqe *cqe;
	int err = ubfab_queue_wait_cqe(q, &cqe, timeout_ms);

	if (err)
		return err;
	*out = *cqe;
	ubfab_queue_cqe_seen(q);
	return 0;
}

int ubfab_engines_unbounded(void)
{
	static const struct ubfab_model_value v = { "dma-engine-mbps", 224000 };
	struct ubfab_nl *nl;
	int err = ubfab_nl_open(&nl);

	if (err)
		return err;
	err = ubfab_model_set(nl, NULL, &v, 1);
	ubfab_nl_close(nl);
	return err;
}

int ubfab_test_complete(struct ubfab_queue *q, struct ubfab_cqe *out,
			unsigned int n)
{
	struct ubfab_cqe *cqe;
	unsigned int i;
	int err;

	err = ubfab_queue_submit(q);
	if (err < 0 && err != -EIO)
		return err;
	for (i = 0; i < n; i++) {
		err = ubfab_queue_wait_cqe(q, &cqe, UBFAB_TEST_WAIT_MS);
		if (err)
			return err;
		out[i] = *cqe;
		ubfab_queue_cqe_seen(q);
	}
	return 0;
}
