// SPDX-License-Identifier: GPL-2.0
/*
 * What a worker keeps of the objects under test (slots.h): its descriptor
 * slots, its records of memory and queues, and the board of exports all
 * workers share, with the look-ups every op family uses on them.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "worker.h"

struct board_rec *fuzz_board = MAP_FAILED;

/* ------------------------------------------------------------------ */
/* Descriptor slots */

void slot_clear(struct slot *s)
{
	if (s->fd >= 0)
		close(s->fd);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

void slot_set(struct worker *w, struct slot *s, int fd, enum slot_kind kind,
	      uint32_t eid, int accmode)
{
	slot_clear(s);
	s->fd = fd;
	s->kind = kind;
	s->file = ++w->next_file;
	s->eid = eid;
	s->accmode = accmode;
}

int slot_fd(const struct slot *s)
{
	return s->kind == SLOT_EMPTY ? -1 : s->fd;
}

bool slot_readable(const struct slot *s)
{
	return s->accmode == O_RDONLY || s->accmode == O_RDWR;
}

bool slot_writable(const struct slot *s)
{
	return s->accmode == O_WRONLY || s->accmode == O_RDWR;
}

bool slots_hold_device(const struct worker *w)
{
	unsigned int i;

	for (i = 0; i < FUZZ_SLOTS; i++) {
		if (w->slots[i].kind == SLOT_DEV)
			return true;
	}
	return false;
}

long eid_of_rdev(const struct fuzz_model *m, dev_t rdev)
{
	if (major(rdev) != major(m->devt0) || minor(rdev) < minor(m->devt0) ||
	    minor(rdev) - minor(m->devt0) >= m->nr_entities)
		return -1;
	return minor(rdev) - minor(m->devt0);
}

bool check_device(struct worker *w, int fd, uint32_t eid)
{
	struct stat st;

	if (fstat(fd, &st))
		return fuzz_fail(w, "fstat of a new descriptor: %s",
				 fuzz_errname(errno));
	if (!S_ISCHR(st.st_mode) || eid_of_rdev(w->model, st.st_rdev) != eid)
		return fuzz_fail(w, "descriptor is %o %u:%u, not the device of EID %u",
				 st.st_mode, major(st.st_rdev),
				 minor(st.st_rdev), eid);
	return true;
}

/* ------------------------------------------------------------------ */
/* Memory records and the board */

const struct mem_rec *find_rec(const struct mem_rec *recs, uint32_t file,
			       uint64_t n)
{
	unsigned int i, count = 0;

	for (i = 0; i < FUZZ_RECS; i++)
		count += recs[i].file == file && recs[i].length;
	if (!count)
		return NULL;
	n %= count;
	for (i = 0; i < FUZZ_RECS; i++) {
		if (recs[i].file == file && recs[i].length && !n--)
			break;
	}
	return &recs[i];
}

/* The device slot that holds a file, or NULL. */
static const struct slot *file_slot(const struct worker *w, uint32_t file)
{
	unsigned int i;

	for (i = 0; i < FUZZ_SLOTS; i++) {
		if (w->slots[i].kind == SLOT_DEV && w->slots[i].file == file)
			return &w->slots[i];
	}
	return NULL;
}

const struct slot *rec_slot(const struct worker *w,
			    const struct mem_rec *recs, uint64_t n,
			    const struct slot *dflt)
{
	const struct slot *s, *found[FUZZ_RECS];
	unsigned int i, count = 0;

	for (i = 0; i < FUZZ_RECS; i++) {
		s = recs[i].length ? file_slot(w, recs[i].file) : NULL;
		if (s)
			found[count++] = s;
	}
	return count ? found[n % count] : dflt;
}

int board_map(void)
{
	fuzz_board = mmap(NULL, FUZZ_BOARD * sizeof(*fuzz_board),
			  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			  -1, 0);
	return fuzz_board == MAP_FAILED ? -ENOMEM : 0;
}

void board_unmap(void)
{
	if (fuzz_board != MAP_FAILED)
		munmap(fuzz_board, FUZZ_BOARD * sizeof(*fuzz_board));
	fuzz_board = MAP_FAILED;
}

/* ------------------------------------------------------------------ */
/* Queues */

bool queue_empty(const struct queue_rec *q)
{
	return q->fd < 0 && !q->ring;
}

void queue_unmap(struct queue_rec *q)
{
	if (q->ring)
		munmap(q->ring, q->info.ring_size);
	q->ring = NULL;
	if (q->rq_ring)
		munmap(q->rq_ring, q->rq_info.ring_size);
	q->rq_ring = NULL;
}

void queue_close(struct queue_rec *q)
{
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
	if (q->rq_fd >= 0)
		close(q->rq_fd);
	q->rq_fd = -1;
}

void queue_clear(struct queue_rec *q)
{
	queue_unmap(q);
	queue_close(q);
}

const struct slot *queue_file_slot(const struct worker *w, uint64_t n,
				   const struct slot *dflt)
{
	const struct slot *found[FUZZ_QUEUES];
	unsigned int i, count = 0;
	const struct slot *s;

	for (i = 0; i < FUZZ_QUEUES; i++) {
		s = queue_empty(&w->queues[i]) ? NULL :
		    file_slot(w, w->queues[i].file);
		if (s)
			found[count++] = s;
	}
	return count ? found[n % count] : dflt;
}

bool queue_held(const struct worker *w)
{
	unsigned int i;

	for (i = 0; i < FUZZ_QUEUES; i++) {
		if (!queue_empty(&w->queues[i]))
			return true;
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* A worker's slots as a whole */

void slots_init(struct worker *w)
{
	unsigned int i;

	for (i = 0; i < FUZZ_SLOTS; i++)
		w->slots[i].fd = -1;
	for (i = 0; i < FUZZ_QUEUES; i++) {
		w->queues[i].fd = -1;
		w->queues[i].rq_fd = -1;
	}
	w->eventfd = -1;
}

void slots_share(struct worker *w)
{
	unsigned int i;

	for (i = 0; i < FUZZ_SLOTS; i++) {
		if (w->slots[i].kind == SLOT_NL)
			w->slots[i].shared = w->slots[i].stale = true;
	}
	for (i = 0; i < FUZZ_QUEUES; i++)
		w->queues[i].shared = true;
}

void slots_clear_all(struct worker *w)
{
	unsigned int i;

	for (i = 0; i < FUZZ_QUEUES; i++)
		queue_clear(&w->queues[i]);
	if (w->eventfd >= 0)
		close(w->eventfd);
	w->eventfd = -1;
	for (i = 0; i < FUZZ_SLOTS; i++)
		slot_clear(&w->slots[i]);
}
