// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubfab jetties: pairing a queue and a receive queue of one device in
 * the kernel, and waiting on the jetty's completion-event channel (the
 * real stack's JFCE). The jetty's async events come on its device
 * (ubfab_dev_event_wait()); the jetty dump is in topo.c with the others.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "internal.h"

int ubfab_jetty_create(struct ubfab_dev *dev, const struct ubfab_queue *q,
		       const struct ubfab_rq *rq, struct ubfab_jetty **jp)
{
	struct ubfab_jetty_create c = { .size = sizeof(c) };
	int err, devfd = ubfab_dev_fd(dev);
	struct ubfab_jetty *j;

	if (devfd < 0 || !q || !rq || !jp)
		return -EINVAL;
	c.sq_fd = ubfab_queue_fd(q);
	c.rq_fd = rq->fd;
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	if (ioctl(devfd, UBFAB_IOCTL_JETTY_CREATE, &c)) {
		free(j);
		return -errno;
	}
	/* ubfab_jetty_wait() reads it, and waits in poll() */
	if (fcntl(c.fd, F_SETFL, O_NONBLOCK)) {
		err = -errno;
		close(c.fd);
		free(j);
		return err;
	}
	j->fd = c.fd;
	j->id = c.id;
	*jp = j;
	return 0;
}

void ubfab_jetty_destroy(struct ubfab_jetty *j)
{
	if (!j)
		return;
	close(j->fd);
	free(j);
}

int ubfab_jetty_rearm(struct ubfab_jetty *j, uint32_t sides)
{
	if (!j)
		return -EINVAL;
	return ioctl(j->fd, UBFAB_IOCTL_JETTY_REARM, (unsigned long)sides) ?
	       -errno : 0;
}

int ubfab_jetty_wait(struct ubfab_jetty *j, struct ubfab_jetty_event *ev,
		     int timeout_ms)
{
	if (!j || !ev || timeout_ms < -1)
		return -EINVAL;
	return libubfab_read_wait(j->fd, ev, sizeof(*ev), timeout_ms);
}
