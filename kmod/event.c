// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab events: the queue of struct ubfab_event of each open file, which
 * user space reads with read() and waits for with poll().
 *
 * Events are posted from any context that may hold an entity's mem_lock,
 * so the queue is guarded by a spinlock. When it is full, events are
 * counted and reported as one UBFAB_EVENT_OVERFLOW once there is room.
 */
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/uaccess.h>

#include "ubfab.h"

void ubfab_event_init(struct ubfab_file *file)
{
	spin_lock_init(&file->event_lock);
	INIT_KFIFO(file->events);
	mutex_init(&file->read_lock);
	init_waitqueue_head(&file->wait);
}

/* Queue a pending overflow report if there is room. Context: event_lock. */
static void ubfab_event_flush_lost(struct ubfab_file *file)
{
	struct ubfab_event ev = {
		.type = UBFAB_EVENT_OVERFLOW,
		.mmap_offset = file->events_lost,
	};

	if (file->events_lost && kfifo_put(&file->events, ev))
		file->events_lost = 0;
}

/**
 * ubfab_event_post() - queue an event for a file and wake its readers
 * @file: the file to tell
 * @ev: the event, copied
 *
 * Context: any, but not from an interrupt.
 */
void ubfab_event_post(struct ubfab_file *file, const struct ubfab_event *ev)
{
	spin_lock(&file->event_lock);
	if (file->events_lost || !kfifo_put(&file->events, *ev))
		file->events_lost++;
	spin_unlock(&file->event_lock);
	wake_up_interruptible(&file->wait);
}

static bool ubfab_event_pending(struct ubfab_file *file)
{
	bool pending;

	spin_lock(&file->event_lock);
	pending = !kfifo_is_empty(&file->events) || file->events_lost;
	spin_unlock(&file->event_lock);
	return pending;
}

/* Take the oldest event. Return: whether there was one. */
static bool ubfab_event_take(struct ubfab_file *file, struct ubfab_event *ev)
{
	bool got;

	spin_lock(&file->event_lock);
	ubfab_event_flush_lost(file);
	got = kfifo_peek(&file->events, ev);
	spin_unlock(&file->event_lock);
	return got;
}

static void ubfab_event_drop_oldest(struct ubfab_file *file)
{
	spin_lock(&file->event_lock);
	kfifo_skip(&file->events);
	spin_unlock(&file->event_lock);
}

/**
 * ubfab_event_read() - read() of an entity's device: whole events
 * @filp: the file
 * @buf: user buffer
 * @count: its size; at least one event
 * @ppos: unused, the device is not seekable
 *
 * An event leaves the queue only once it is copied out, so a fault in
 * @buf loses nothing.
 * Return: bytes read, -EINVAL, -EAGAIN, -EINTR or -EFAULT.
 */
ssize_t ubfab_event_read(struct file *filp, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct ubfab_file *file = filp->private_data;
	struct ubfab_event ev;
	ssize_t done = 0;
	int ret;

	if (count < sizeof(ev))
		return -EINVAL;
	if (filp->f_flags & O_NONBLOCK) {
		if (!ubfab_event_pending(file))
			return -EAGAIN;
	} else {
		ret = wait_event_interruptible(file->wait,
					       ubfab_event_pending(file));
		if (ret)
			return ret;
	}

	mutex_lock(&file->read_lock);
	while (count - done >= sizeof(ev) && ubfab_event_take(file, &ev)) {
		if (copy_to_user(buf + done, &ev, sizeof(ev))) {
			mutex_unlock(&file->read_lock);
			return done ? done : -EFAULT;
		}
		ubfab_event_drop_oldest(file);
		done += sizeof(ev);
	}
	mutex_unlock(&file->read_lock);
	return done ? done : -EAGAIN;
}

__poll_t ubfab_event_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct ubfab_file *file = filp->private_data;

	poll_wait(filp, &file->wait, wait);
	return ubfab_event_pending(file) ? EPOLLIN | EPOLLRDNORM : 0;
}
