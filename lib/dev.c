// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubfab device API: a process acting as an entity through its device
 * /dev/ubfab/<name>. Allocating and mapping the entity's memory, exporting
 * segments of it, importing and mapping other entities' segments, and
 * waiting for the events the kernel queues on the device.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/*
 * Never changed after ubfab_dev_open(), which is what lets several
 * threads share one.
 */
struct ubfab_dev {
	int fd;
	uint32_t eid;
	char name[UBFAB_NAME_MAX];
};

/*
 * A name that can only be a file directly in /dev/ubfab and in
 * /sys/class/ubfab: not empty, no '/', no leading '.', short enough.
 */
static bool name_ok(const char *name)
{
	size_t len = strnlen(name, UBFAB_NAME_MAX);

	return len && len < UBFAB_NAME_MAX && name[0] != '.' &&
	       !strchr(name, '/');
}

/* Read /sys/class/ubfab/<name>/eid: one decimal number and a newline. */
static int read_eid(const char *name, uint32_t *eid)
{
	char path[64], buf[16], *end;
	unsigned long v;
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/sys/class/ubfab/%s/eid", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf) - 1);
	if (len < 0)
		len = -errno;
	close(fd);
	if (len < 0)
		return len;
	buf[len] = '\0';
	errno = 0;
	v = strtoul(buf, &end, 10);
	if (buf[0] < '0' || buf[0] > '9' || strcmp(end, "\n") || errno ||
	    v > UINT32_MAX)
		return -EPROTO;
	*eid = v;
	return 0;
}

int ubfab_dev_open(const char *name, struct ubfab_dev **devp)
{
	struct ubfab_dev *dev;
	char path[64];
	int err;

	if (!name || !devp)
		return -EINVAL;
	if (!name_ok(name))
		return -ENOENT;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	snprintf(dev->name, sizeof(dev->name), "%s", name);
	snprintf(path, sizeof(path), "/dev/ubfab/%s", name);
	/* non-blocking so that a reader never waits past its timeout */
	dev->fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (dev->fd < 0) {
		err = -errno;
		goto err_free;
	}
	/* the open file holds the module, so the entity stays */
	err = read_eid(name, &dev->eid);
	if (err)
		goto err_close;
	*devp = dev;
	return 0;

err_close:
	close(dev->fd);
err_free:
	free(dev);
	return err;
}

void ubfab_dev_close(struct ubfab_dev *dev)
{
	if (!dev)
		return;
	close(dev->fd);
	free(dev);
}

int ubfab_dev_fd(const struct ubfab_dev *dev)
{
	return dev ? dev->fd : -EINVAL;
}

uint32_t ubfab_dev_eid(const struct ubfab_dev *dev)
{
	return dev ? dev->eid : UBFAB_EID_ANY;
}

const char *ubfab_dev_name(const struct ubfab_dev *dev)
{
	return dev ? dev->name : "";
}

/* The ioctls: each argument starts with its size. */
static int dev_ioctl(struct ubfab_dev *dev, unsigned long cmd, void *arg)
{
	if (!dev)
		return -EINVAL;
	return ioctl(dev->fd, cmd, arg) ? -errno : 0;
}

int ubfab_dev_alloc(struct ubfab_dev *dev, uint64_t length, uint64_t *offset)
{
	struct ubfab_mem_alloc a = { .size = sizeof(a), .length = length };
	int err;

	if (!offset)
		return -EINVAL;
	err = dev_ioctl(dev, UBFAB_IOCTL_MEM_ALLOC, &a);
	if (!err)
		*offset = a.offset;
	return err;
}

int ubfab_dev_free(struct ubfab_dev *dev, uint64_t offset)
{
	struct ubfab_mem_free f = { .size = sizeof(f), .offset = offset };

	return dev_ioctl(dev, UBFAB_IOCTL_MEM_FREE, &f);
}

int ubfab_dev_map(struct ubfab_dev *dev, uint64_t offset, uint64_t length,
		  int prot, void **addr)
{
	void *p;

	if (!dev || !addr || length > SIZE_MAX || (off_t)offset < 0 ||
	    (uint64_t)(off_t)offset != offset)
		return -EINVAL;
	p = mmap(NULL, length, prot, MAP_SHARED, dev->fd, (off_t)offset);
	if (p == MAP_FAILED)
		return -errno;
	*addr = p;
	return 0;
}

int ubfab_unmap(void *addr, uint64_t length)
{
	if (length > SIZE_MAX)
		return -EINVAL;
	return munmap(addr, length) ? -errno : 0;
}

int ubfab_dev_export(struct ubfab_dev *dev, uint64_t offset, uint64_t length,
		     uint32_t rights, uint32_t token_value, uint32_t *token_id)
{
	struct ubfab_seg_export e = {
		.size = sizeof(e),
		.rights = rights,
		.offset = offset,
		.length = length,
		.token_value = token_value,
	};
	int err;

	if (!token_id)
		return -EINVAL;
	err = dev_ioctl(dev, UBFAB_IOCTL_SEG_EXPORT, &e);
	if (!err)
		*token_id = e.token_id;
	return err;
}

int ubfab_dev_unexport(struct ubfab_dev *dev, uint32_t token_id)
{
	struct ubfab_seg_unexport u = { .size = sizeof(u),
					.token_id = token_id };

	return dev_ioctl(dev, UBFAB_IOCTL_SEG_UNEXPORT, &u);
}

int ubfab_dev_import(struct ubfab_dev *dev, uint32_t eid, uint32_t token_id,
		     uint32_t token_value, uint32_t rights,
		     struct ubfab_import *out)
{
	struct ubfab_seg_import i = {
		.size = sizeof(i),
		.rights = rights,
		.eid = eid,
		.token_id = token_id,
		.token_value = token_value,
	};
	int err;

	if (!out)
		return -EINVAL;
	err = dev_ioctl(dev, UBFAB_IOCTL_SEG_IMPORT, &i);
	if (!err)
		*out = (struct ubfab_import){ .length = i.length,
					      .mmap_offset = i.mmap_offset };
	return err;
}

int ubfab_dev_import_map(struct ubfab_dev *dev, uint32_t eid,
			 uint32_t token_id, uint32_t token_value,
			 uint32_t rights, int prot, void **addr,
			 uint64_t *length)
{
	struct ubfab_import imp;
	int err;

	if (!addr || !length)
		return -EINVAL;
	err = ubfab_dev_import(dev, eid, token_id, token_value, rights, &imp);
	if (err)
		return err;
	err = ubfab_dev_map(dev, imp.mmap_offset, imp.length, prot, addr);
	if (err) {
		ubfab_dev_unimport(dev, imp.mmap_offset);
		return err;
	}
	*length = imp.length;
	return 0;
}

int ubfab_dev_unimport(struct ubfab_dev *dev, uint64_t mmap_offset)
{
	struct ubfab_seg_unimport u = { .size = sizeof(u),
					.mmap_offset = mmap_offset };

	return dev_ioctl(dev, UBFAB_IOCTL_SEG_UNIMPORT, &u);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void libubfab_deadline_start(struct libubfab_deadline *d, int timeout_ms)
{
	d->timeout_ms = timeout_ms;
	d->left = timeout_ms;
	d->end = now_ms() + timeout_ms;
}

int libubfab_poll_in(int fd, struct libubfab_deadline *d)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n;

	if (!d->left)
		return -ETIMEDOUT;
	n = poll(&pfd, 1, d->left);
	if (n < 0)
		return -errno;
	if (!n)
		return -ETIMEDOUT;
	if (!(pfd.revents & POLLIN))
		return -EIO;
	if (d->timeout_ms > 0) {
		int64_t rest = d->end - now_ms();

		d->left = rest > 0 ? rest : 0;
	}
	return 0;
}

/*
 * Read first, poll only when nothing is queued: the descriptor is
 * non-blocking, so a record another thread took first just means another
 * round until the deadline.
 */
int libubfab_read_wait(int fd, void *rec, size_t size, int timeout_ms)
{
	struct libubfab_deadline d;
	ssize_t len;
	int err;

	libubfab_deadline_start(&d, timeout_ms);
	for (;;) {
		len = read(fd, rec, size);
		if (len == (ssize_t)size)
			return 0;
		if (len >= 0)
			return -EPROTO;
		if (errno != EAGAIN)
			return -errno;
		err = libubfab_poll_in(fd, &d);
		if (err)
			return err;
	}
}

int ubfab_dev_event_wait(struct ubfab_dev *dev, struct ubfab_event *ev,
			 int timeout_ms)
{
	if (!dev || !ev || timeout_ms < -1)
		return -EINVAL;
	return libubfab_read_wait(dev->fd, ev, sizeof(*ev), timeout_ms);
}
