// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's NPU queue family: QUEUE_CREATE with valid and hostile
 * parameters (a typed ioctl it adds, which the memory family's ioctl
 * operation draws too, and an operation of its own); entries written
 * into the SQ ring, well formed from this process's allocations and
 * imports, mutated, or random bytes; scribbling on the ring's header words;
 * doorbells, completions reaped and checked, resets, hostile mappings and
 * ioctls of the queue's descriptor; and destroying queues with work in
 * flight (closed, unmapped, or one kept while the other goes). Processes a
 * worker spawns share its queues and may die at any point.
 *
 * Each queue gets a receive queue on its file (RQ_CREATE, also a typed
 * ioctl with hostile parameters), which posts call topping up with
 * receives, well formed or not, so that SEND, SEND_IMM and WRITE_IMM
 * (mostly to it, else to numbers and tokens drawn) find a receiver, or
 * none; its receive completions are checked as they are consumed.
 * JETTY_CREATE (a typed ioctl) pairs a queue and its receive queue, or
 * descriptors drawn, and the jetty is closed at once.
 *
 * What must hold: each call's outcome is one the uAPI header documents;
 * every completion has a documented status that its opcode can end with,
 * and on a queue no one scribbled on or shares, completions come in order,
 * one per entry (none lost, none made up), with the bytes and result their
 * entry allows; and a reset brings an errored queue back: a NOP posted
 * after it completes with UBFAB_CQE_OK.
 *
 * As elsewhere, operations draw their choices when generated (a post draws
 * a seed for its entries) and are built from the records when they run.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "family.h"
#include "ioctl.h"
#include "ubfab_test.h"

/*
 * user_data of an entry this fuzzer built: a tag, the opcode, a 7-bit
 * sequence number, whether the header (flags, reserved) is hostile, and
 * the length. Random entries carry another tag.
 */
#define UD_TAG		0x5eedULL
#define UD_RANDOM_TAG	0xbad0ULL
#define UD(op, seq, bad, len)	(UD_TAG << 48 | (uint64_t)(op) << 40 | \
				 (uint64_t)((seq) & 0x7f) << 33 | \
				 (uint64_t)!!(bad) << 32 | (uint32_t)(len))
#define UD_IS_OURS(ud)	((ud) >> 48 == UD_TAG)
#define UD_OP(ud)	((uint8_t)((ud) >> 40))
#define UD_SEQ(ud)	((uint8_t)(((ud) >> 33) & 0x7f))
#define UD_BAD(ud)	(((ud) >> 32) & 1)
#define UD_LEN(ud)	((uint32_t)(ud))
/* The NOP a reset check posts: no length of its own. */
#define UD_PROBE_LEN	0xffffffffU

/* Entries one post writes at most. */
#define POST_MAX	64
/* Longest transfer a well-formed entry asks for: four chunks. */
#define LEN_MAX		(4 * UBFAB_PLANE_CHUNK)
/* Time-outs of waits, in ms; longer ones or none make the queue stuck. */
#define WAIT_MS_MAX	20
#define STUCK_MS	200
/* How long a reset check waits for its NOP (TCG, a busy machine). */
#define RESET_SECONDS	20

/* One of the values listed, by a draw. */
#define PICK(draw, ...) (((const uint32_t[]){ __VA_ARGS__ })		\
	[(draw) % ARRAY_SIZE(((const uint32_t[]){ __VA_ARGS__ }))])

/* The token of the receive queues the fuzzer makes. */
#define RQ_TOKEN	0x5eed0001U
/* Receives a receive queue it makes holds. */
#define RQ_ENTRIES	8

/* Where the module puts imports' mmap offsets (kmod/ubfab.h), not uAPI. */
#define IMPORT_BASE	(1ULL << 48)

/* ------------------------------------------------------------------ */
/* Queues */

static struct queue_rec *queue_of(struct worker *w, const struct op *op)
{
	return &w->queues[op->slot % FUZZ_QUEUES];
}

/* A header word, which the other side writes at any time. */
static uint32_t *ring_word(const struct queue_rec *q, uint32_t off)
{
	return (uint32_t *)(q->ring + off);
}

static uint32_t ring_read(const struct queue_rec *q, uint32_t off)
{
	return __atomic_load_n(ring_word(q, off), __ATOMIC_RELAXED);
}

static struct ubfab_sqe *sq_entry(const struct queue_rec *q, uint32_t idx)
{
	return (struct ubfab_sqe *)(q->ring + q->info.sq.array) +
	       (idx & (q->info.sq.entries - 1));
}

static const struct ubfab_cqe *cq_entry(const struct queue_rec *q,
					uint32_t idx)
{
	return (const struct ubfab_cqe *)(q->ring + q->info.cq.array) +
	       (idx & (q->info.cq.entries - 1));
}

/* ------------------------------------------------------------------ */
/* Creation */

/* QUEUE_CREATE as an operation of its own: the typed ioctl's draws. */
static void queue_gen_create(struct rng *r, const struct fuzz_model *m,
			     struct op *op)
{
	unsigned int i;

	op->a[0] = UBFAB_IOCTL_QUEUE_CREATE;
	op->a[1] = rng_below(r, 32);
	op->a[2] = rng_below(r, 3);
	for (i = 3; i < 6; i++)
		op->a[i] = rng_next(r);
}

/* A power of two up to max, mostly small: big rings cost memory. */
static uint32_t pick_depth(uint64_t draw, unsigned int max_shift)
{
	unsigned int shift = draw % 8 ? draw / 8 % 7 : draw / 8 % (max_shift + 1);

	return 1U << shift;
}

/*
 * a[3]: which variant (below 10: well formed); a[4], a[5]: values. The
 * checks come in the order ubfab_queue_check_create() makes them.
 */
static void queue_create_build(struct worker *w, const struct slot *s,
			       const struct op *op, void *argp, int *set)
{
	struct ubfab_queue_create *a = argp;
	uint64_t v = op->a[4];

	a->flags = op->a[5] % (UBFAB_QUEUE_FLAGS + 1);
	a->sq_entries = pick_depth(v, 15);
	a->cq_entries = v / 1024 % 3 ? 0 : a->sq_entries << v / 4096 % 3;
	if (a->cq_entries > UBFAB_QUEUE_MAX_CQ_ENTRIES)
		a->cq_entries = UBFAB_QUEUE_MAX_CQ_ENTRIES;
	a->eventfd = -1;
	if (a->flags & UBFAB_QUEUE_POLL)
		a->idle_us = PICK(v / 65536, 0, 1, 50, 1000, 1000000);
	if (op->a[5] / 16 % 8 == 0) {
		if (w->eventfd < 0)
			w->eventfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		a->eventfd = w->eventfd;
	}
	SET(set, FUZZ_OK, ENOMEM, EMFILE);
	switch (op->a[3] % 20) {
	case 10:
		/* a flag above the known ones, which are the low bits */
		a->flags |= (uint32_t)(UBFAB_QUEUE_FLAGS + 1) <<
			    op->a[4] % (32 - __builtin_ctz(UBFAB_QUEUE_FLAGS + 1));
		SET(set, EINVAL);
		break;
	case 11:
		a->sq_entries = PICK(v / 8, 0, 3, 96,
				     UBFAB_QUEUE_MAX_ENTRIES * 2, 0xffffffff);
		SET(set, EINVAL);
		break;
	case 12:
		a->cq_entries = PICK(v / 8, 3, 96,
				     UBFAB_QUEUE_MAX_CQ_ENTRIES * 2,
				     0x80000000, 0xffffffff);
		SET(set, EINVAL);
		break;
	case 13:
		/* A default CQ twice the deepest SQ is the deepest CQ. */
		a->sq_entries = UBFAB_QUEUE_MAX_ENTRIES;
		a->cq_entries = 0;
		break;
	case 14:
		if (a->flags & UBFAB_QUEUE_POLL)
			a->idle_us = 1000001 + v % 1000;
		else
			a->idle_us = 1 + v % 1000;
		SET(set, EINVAL);
		break;
	case 15:
		/* Not an eventfd: nothing, a device, a negative number. */
		a->eventfd = PICK(v / 8, 1000000, (uint32_t)-2, 0x7fffffff,
				  0, 0);
		if (!a->eventfd)
			a->eventfd = s->fd;
		SET(set, EBADF);
		break;
	case 16:
		a->fd = (int32_t)v;	/* outputs: whatever they held */
		a->id = v >> 32;
		a->ring_size = v;
		a->sq.head = v;
		break;
	default:
		break;
	}
}

/* The layout QUEUE_CREATE returned, against what the header promises. */
static bool layout_ok(const struct ubfab_queue_create *a)
{
	const struct ubfab_ring_offsets *r[] = { &a->sq, &a->cq };
	uint32_t words[8], cq_want;
	unsigned int i, j;

	cq_want = a->cq_entries ? a->cq_entries : 2 * a->sq_entries;
	if (a->sq.entries != a->sq_entries || a->cq.entries != cq_want ||
	    a->sq.__reserved || a->cq.__reserved || a->fd < 0 ||
	    a->ring_size % PAGE ||
	    a->sq.array + (uint64_t)a->sq.entries * sizeof(struct ubfab_sqe) >
	    a->ring_size ||
	    a->cq.array + (uint64_t)a->cq.entries * sizeof(struct ubfab_cqe) >
	    a->ring_size ||
	    a->sq.array % 64 || a->cq.array % 64)
		return false;
	for (i = 0; i < 2; i++) {
		words[4 * i] = r[i]->head;
		words[4 * i + 1] = r[i]->tail;
		words[4 * i + 2] = r[i]->flags;
		words[4 * i + 3] = r[i]->overflow;
	}
	/* Each word on a cache line of its own, before the entries. */
	for (i = 0; i < 8; i++) {
		if (words[i] % 4 || words[i] + 4 > a->sq.array ||
		    words[i] + 4 > a->cq.array)
			return false;
		for (j = 0; j < i; j++) {
			if (words[i] / 64 == words[j] / 64)
				return false;
		}
	}
	return true;
}

/*
 * Memory for a new queue's entries: a range of its file and an import,
 * through the same file, of a segment of that range (with some rights) or
 * of one another worker published (as that one granted it). Each step may
 * fail as documented; another process may free or revoke them later.
 */
static void queue_provide(struct worker *w, struct queue_rec *q,
			  const struct slot *s)
{
	static const int allocated[] = { FUZZ_OK, ENOSPC, ENOMEM, 0 };
	static const int imported[] = { FUZZ_OK, ENOENT, EACCES, ENOSPC,
					ENOMEM, 0 };
	static const int exported[] = { FUZZ_OK, EINVAL, ENOSPC, ENOMEM, 0 };
	struct ubfab_seg_export se = { .size = sizeof(se), .length = 2 * PAGE };
	struct ubfab_mem_alloc ma = { .size = sizeof(ma), .length = 4 * PAGE };
	struct ubfab_seg_import si = { .size = sizeof(si) };
	const struct board_rec *b;
	unsigned int i;
	long ret;

	ret = ioctl(s->fd, UBFAB_IOCTL_MEM_ALLOC, &ma);
	if (!fuzz_expect_set(w, "MEM_ALLOC", ret, errno, allocated))
		return;
	if (!ret) {
		q->local = ma.offset;
		q->local_len = ma.length;
	}
	if (w->op.a[5] % 2 && q->local_len) {
		se.offset = q->local + PAGE;
		se.rights = 1 + w->op.a[5] / 2 % UBFAB_SEG_RIGHTS;
		se.token_value = w->op.a[5] >> 32;
		ret = ioctl(s->fd, UBFAB_IOCTL_SEG_EXPORT, &se);
		if (!fuzz_expect_set(w, "SEG_EXPORT", ret, errno, exported) ||
		    ret)
			return;
		si.eid = s->eid;
		si.token_id = se.token_id;
		si.token_value = se.token_value;
		si.rights = se.rights;
	} else {
		/* The first export published from a place drawn. */
		for (i = 0; i < FUZZ_BOARD; i++) {
			b = &fuzz_board[(w->op.a[5] + i) % FUZZ_BOARD];
			if (b->rights && b->eid < w->model->nr_entities)
				break;
		}
		if (i == FUZZ_BOARD)
			return;
		si.eid = b->eid;
		si.token_id = b->token_id;
		si.token_value = b->value;
		si.rights = b->rights & UBFAB_SEG_RIGHTS;
	}
	if (!si.rights)
		return;
	ret = ioctl(s->fd, UBFAB_IOCTL_SEG_IMPORT, &si);
	if (fuzz_expect_set(w, "SEG_IMPORT", ret, errno, imported) && !ret) {
		q->remote = si.mmap_offset;
		q->remote_len = si.length;
	}
}

/*
 * RQ_CREATE as a typed ioctl: a[3] the variant (below 10: well formed),
 * a[4] the depths and token. The checks in the order the module makes them.
 */
static void rq_create_build(struct worker *w, const struct slot *s,
			    const struct op *op, void *argp, int *set)
{
	struct ubfab_rq_create *a = argp;
	uint64_t v = op->a[4];

	a->rq_entries = pick_depth(v, 15);
	a->rcq_entries = v / 1024 % 3 ? 0 : a->rq_entries << v / 4096 % 3;
	a->token = v >> 32;
	SET(set, FUZZ_OK, ENOMEM, EMFILE);
	switch (op->a[3] % 16) {
	case 10:
		a->flags = 1U << v % 32;
		SET(set, EINVAL);
		break;
	case 11:
		a->__reserved = 1 + v % 0xffff;
		SET(set, EINVAL);
		break;
	case 12:
		a->rq_entries = PICK(v / 8, 0, 3, 96, UBFAB_RQ_MAX_ENTRIES * 2,
				     0xffffffff);
		SET(set, EINVAL);
		break;
	case 13:
		a->rcq_entries = PICK(v / 8, 3, 96,
				      UBFAB_QUEUE_MAX_CQ_ENTRIES * 2,
				      0xffffffff);
		SET(set, EINVAL);
		break;
	case 14:
		a->fd = (int32_t)v;	/* outputs: whatever they held */
		a->id = v >> 32;
		a->ring_size = v;
		a->rq.head = v;
		break;
	default:
		break;
	}
}

/* Whether [a, a + n) and [b, b + m) overlap. */
static bool overlap(uint64_t a, uint64_t n, uint64_t b, uint64_t m)
{
	return a < b + m && b < a + n;
}

/* The layout RQ_CREATE returned, against what the header promises. */
static bool rq_layout_ok(const struct ubfab_rq_create *a)
{
	uint32_t rcq_want = a->rcq_entries ? a->rcq_entries : a->rq_entries;
	uint64_t rq_len = (uint64_t)a->rq.entries * sizeof(struct ubfab_rqe);
	uint64_t rcq_len = (uint64_t)a->rcq.entries *
			   sizeof(struct ubfab_rcqe);

	return a->fd >= 0 && a->rq.entries == a->rq_entries &&
	       a->rcq.entries == rcq_want && !a->rq.__reserved &&
	       !a->rcq.__reserved && !(a->ring_size % PAGE) &&
	       a->rq.array >= 64 && a->rcq.array >= 64 &&
	       a->rq.array + rq_len <= a->ring_size &&
	       a->rcq.array + rcq_len <= a->ring_size &&
	       !overlap(a->rq.array, rq_len, a->rcq.array, rcq_len);
}

/* A typed RQ_CREATE made one: its layout checked, then closed. */
static void rq_create_done(struct worker *w, const struct slot *s,
			   const void *argp)
{
	const struct ubfab_rq_create *a = argp;

	if (!rq_layout_ok(a))
		fuzz_fail(w, "RQ_CREATE: fd %d, %u/%u entries, ring %llu bytes: not the layout promised",
			  a->fd, a->rq.entries, a->rcq.entries,
			  (unsigned long long)a->ring_size);
	if (a->fd >= 0)
		close(a->fd);
}

/*
 * JETTY_CREATE as a typed ioctl: the queue and receive queue of the
 * worker's queue record a[4] (which may be gone, of another file, or in a
 * jetty already), or a[3] 10: flags, 11: descriptors drawn. A jetty made
 * is closed at once, which gives its queues back.
 */
static void jetty_create_build(struct worker *w, const struct slot *s,
			       const struct op *op, void *argp, int *set)
{
	struct ubfab_jetty_create *a = argp;
	const struct queue_rec *q = &w->queues[op->a[4] % FUZZ_QUEUES];
	uint64_t v = op->a[5];

	a->sq_fd = q->fd;
	a->rq_fd = q->rq_fd;
	SET(set, FUZZ_OK, EBADF, EINVAL, EXDEV, EBUSY, ENOMEM, EMFILE);
	switch (op->a[3] % 16) {
	case 10:
		a->flags = 1U << v % 32;
		SET(set, EINVAL);
		break;
	case 11:
		a->sq_fd = (int32_t)v;
		a->rq_fd = (int32_t)(v >> 32);
		break;
	case 12:
		a->fd = (int32_t)v;	/* outputs: whatever they held */
		a->id = v >> 32;
		break;
	default:
		break;
	}
}

static void jetty_create_done(struct worker *w, const struct slot *s,
			      const void *argp)
{
	const struct ubfab_jetty_create *a = argp;

	if (a->fd < 0 || a->id > INT32_MAX)
		fuzz_fail(w, "JETTY_CREATE: fd %d, id %u", a->fd, a->id);
	if (a->fd >= 0)
		close(a->fd);
}

/* A receive queue on the new queue's file, the target of its messages. */
static void queue_provide_rq(struct worker *w, struct queue_rec *q,
			     const struct slot *s)
{
	static const int created[] = { FUZZ_OK, ENOMEM, EMFILE, 0 };
	struct ubfab_rq_create a = {
		.size = sizeof(a), .rq_entries = RQ_ENTRIES, .token = RQ_TOKEN,
	};
	void *p;
	long ret;

	ret = ioctl(s->fd, UBFAB_IOCTL_RQ_CREATE, &a);
	if (!fuzz_expect_set(w, "RQ_CREATE", ret, errno, created) || ret)
		return;
	if (!rq_layout_ok(&a)) {
		fuzz_fail(w, "RQ_CREATE: fd %d, %u/%u entries, ring %llu bytes: not the layout promised",
			  a.fd, a.rq.entries, a.rcq.entries,
			  (unsigned long long)a.ring_size);
		close(a.fd);
		return;
	}
	q->rq_fd = a.fd;
	q->rq_info = a;
	p = mmap(NULL, a.ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, a.fd,
		 0);
	if (p != MAP_FAILED)
		q->rq_ring = p;
	else if (errno != ENOMEM)
		fuzz_fail(w, "mmap of a new receive queue's %llu bytes: %s",
			  (unsigned long long)a.ring_size,
			  strerrorname_np(errno));
}

/*
 * A queue was made: it replaces the oldest (destroyed with whatever it
 * was doing) and gets its rings mapped and memory for its entries.
 */
static void queue_create_done(struct worker *w, const struct slot *s,
			      const void *argp)
{
	const struct ubfab_queue_create *a = argp;
	struct queue_rec *q = &w->queues[w->next_queue++ % FUZZ_QUEUES];
	uint32_t flags;
	void *p;

	if (!layout_ok(a)) {
		fuzz_fail(w, "QUEUE_CREATE: fd %d, %u/%u entries, ring %llu bytes, SQ at %u, CQ at %u: not the layout promised",
			  a->fd, a->sq.entries, a->cq.entries,
			  (unsigned long long)a->ring_size, a->sq.array,
			  a->cq.array);
		if (a->fd >= 0)
			close(a->fd);
		return;
	}
	queue_clear(q);
	memset(q, 0, sizeof(*q));
	q->rq_fd = -1;
	q->fd = a->fd;
	q->file = s->file;
	q->eid = s->eid;
	q->info = *a;
	q->clean = true;
	p = mmap(NULL, a->ring_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 a->fd, 0);
	if (p == MAP_FAILED) {
		if (errno != ENOMEM)
			fuzz_fail(w, "mmap of a new queue's %llu bytes: %s",
				  (unsigned long long)a->ring_size,
				  strerrorname_np(errno));
		return;
	}
	q->ring = p;
	queue_provide(w, q, s);
	queue_provide_rq(w, q, s);
	flags = ring_read(q, a->sq.flags);
	if (ring_read(q, a->sq.head) || ring_read(q, a->sq.tail) ||
	    ring_read(q, a->cq.head) || ring_read(q, a->cq.tail) ||
	    (flags & ~UBFAB_SQ_NEED_WAKEUP) ||
	    !(flags & UBFAB_SQ_NEED_WAKEUP) != !(a->flags & UBFAB_QUEUE_POLL))
		fuzz_fail(w, "a new queue's rings: SQ %u..%u flags %#x, CQ %u..%u",
			  ring_read(q, a->sq.head), ring_read(q, a->sq.tail),
			  flags, ring_read(q, a->cq.head),
			  ring_read(q, a->cq.tail));
}

/* ------------------------------------------------------------------ */
/* Entries */

/*
 * An address in a record (m) or the queue's own range (own, own_len) with
 * room for len bytes, aligned; now and then, or with neither, anywhere
 * (below base + 64 pages, or at random).
 */
static uint64_t pick_addr(struct rng *r, const struct mem_rec *m,
			  uint64_t own, uint64_t own_len, uint64_t base,
			  uint32_t len, uint32_t align)
{
	uint64_t off = m ? m->offset : 0, size = m ? m->length : 0;

	if (own_len && (!m || rng_chance(r, 60))) {
		off = own;
		size = own_len;
	}
	if (!size || rng_chance(r, 5))
		return rng_chance(r, 50) ? base + rng_below(r, 64) * PAGE :
		       rng_next(r) & ~(uint64_t)(align - 1);
	size = size > len ? size - len : 0;
	return off + (rng_below(r, size + 1) & ~(uint64_t)(align - 1));
}

/* A local address: in an allocation of the queue's file, or anywhere. */
static uint64_t pick_local(struct worker *w, const struct queue_rec *q,
			   struct rng *r, uint32_t len, uint32_t align)
{
	return pick_addr(r, find_rec(w->allocs, q->file, rng_next(r)),
			 q->local, q->local_len, 0, len, align);
}

/* A remote address: in an import of the queue's file, or anywhere. */
static uint64_t pick_remote(struct worker *w, const struct queue_rec *q,
			    struct rng *r, uint32_t len, uint32_t align)
{
	return pick_addr(r, find_rec(w->imports, q->file, rng_next(r)),
			 q->remote, q->remote_len, IMPORT_BASE, len, align);
}

static uint32_t pick_length(struct rng *r, bool hostile)
{
	switch (rng_below(r, hostile ? 8 : 5)) {
	case 0:
		return 8;
	case 1:
		return 1 + rng_below(r, 64);
	case 5:
		return LEN_MAX;
	case 6:
		return UBFAB_PLANE_CHUNK + 1 + rng_below(r, PAGE);
	default:
		return 1 + rng_below(r, 4 * PAGE);
	}
}

/* One field of a well-formed entry set to a value it must not have. */
static void mutate(struct rng *r, struct ubfab_sqe *e)
{
	static const uint64_t edges[] = {
		1, 7, 0x7fffffff, 0x80000000, 0xffffffff, 1ULL << 32,
		1ULL << 63, UINT64_MAX, UINT64_MAX - 7,
	};
	uint64_t v = rng_chance(r, 50) ? rng_pick(r, edges) : rng_next(r);

	switch (rng_below(r, 10)) {
	case 0:
		e->length = rng_pick(r, ((const uint32_t[]){ 0,
			UBFAB_SQE_MAX_LENGTH, UBFAB_SQE_MAX_LENGTH + 1,
			0xffffffff }));
		break;
	case 1:
		e->local += rng_chance(r, 50) ? 1 + rng_below(r, 7) : v;
		break;
	case 2:
		e->remote += rng_chance(r, 50) ? 1 + rng_below(r, 7) : v;
		break;
	case 3:
		e->value = v;
		break;
	case 4:
		e->compare = v;
		break;
	case 5:
		e->notify = rng_chance(r, 50) ? e->remote + 4 : v;
		break;
	case 6:
		e->aux = rng_pick(r, ((const uint32_t[]){ 6, 2, 256,
			UBFAB_QUEUE_EVENTS, 0xffffffff }));
		break;
	case 7:
		e->timeout_ms = v;
		break;
	case 8:
		e->flags |= 4 << rng_below(r, 6);
		break;
	default:
		e->__reserved = 1 + rng_below(r, 0xffff);
		break;
	}
}

/*
 * A message's receive queue: mostly the queue's own (by its number and
 * token), else numbers and tokens drawn; and its immediate data.
 */
static void pick_receiver(struct worker *w, const struct queue_rec *q,
			  struct rng *r, struct ubfab_sqe *e)
{
	e->aux = q->rq_fd >= 0 && rng_chance(r, 90) ? q->rq_info.id :
		 rng_below(r, 4);
	e->compare = rng_chance(r, 90) ? RQ_TOKEN : (uint32_t)rng_next(r);
	if (e->opcode != UBFAB_OP_SEND)
		e->value = (uint32_t)rng_next(r);
}

/*
 * A well-formed entry of opcode op, from this process's records; hostile:
 * with lengths that may not fit them.
 */
static void build_entry(struct worker *w, const struct queue_rec *q,
			struct rng *r, uint8_t op, struct ubfab_sqe *e,
			bool hostile)
{
	uint32_t len = pick_length(r, hostile);

	e->opcode = op;
	switch (op) {
	case UBFAB_OP_WRITE_NOTIFY:
		e->notify = pick_remote(w, q, r, 8, 8);
		e->value = rng_below(r, 4);
		/* fall through */
	case UBFAB_OP_WRITE:
	case UBFAB_OP_READ:
		e->length = len;
		e->local = pick_local(w, q, r, len, 1);
		e->remote = pick_remote(w, q, r, len, 1);
		break;
	case UBFAB_OP_ATOMIC:
		e->remote = pick_remote(w, q, r, 8, 8);
		e->aux = rng_below(r, UBFAB_ATOMIC_FETCH_XOR + 1);
		e->value = rng_next(r);
		if (e->aux == UBFAB_ATOMIC_CAS)
			e->compare = rng_chance(r, 50) ? 0 : rng_next(r);
		break;
	case UBFAB_OP_COPY:
	case UBFAB_OP_FILL:
		e->length = len;
		e->local = pick_local(w, q, r, len, 1);
		if (op == UBFAB_OP_COPY)
			e->value = pick_local(w, q, r, len, 1);	/* source */
		else
			e->aux = rng_below(r, 256);
		break;
	case UBFAB_OP_EVENT_RECORD:
		e->aux = rng_below(r, 4);
		break;
	case UBFAB_OP_EVENT_WAIT:
		e->aux = rng_below(r, 4);
		e->value = rng_below(r, 4);
		e->timeout_ms = 1 + rng_below(r, WAIT_MS_MAX);
		break;
	case UBFAB_OP_WAIT_VALUE:
		e->local = pick_local(w, q, r, 8, 8);
		e->aux = rng_below(r, UBFAB_WAIT_EQ + 1);
		e->value = rng_chance(r, 50) ? 0 : rng_below(r, 256);
		e->timeout_ms = 1 + rng_below(r, WAIT_MS_MAX);
		if (rng_chance(r, 1))
			e->timeout_ms = 0;	/* may wait for ever */
		break;
	case UBFAB_OP_WRITE_IMM:
		e->length = len;
		e->local = pick_local(w, q, r, len, 1);
		e->remote = pick_remote(w, q, r, len, 1);
		pick_receiver(w, q, r, e);
		break;
	case UBFAB_OP_SEND:
	case UBFAB_OP_SEND_IMM:
		e->length = rng_chance(r, 10) ? 0 : len;
		if (e->length)
			e->local = pick_local(w, q, r, len, 1);
		e->remote = rng_chance(r, 90) ? q->eid :
			    rng_below(r, w->model->nr_entities + 2);
		pick_receiver(w, q, r, e);
		break;
	case UBFAB_OP_COMPUTE:
		/* now and then long enough to saturate the clock */
		e->value = rng_chance(r, 1) ? rng_next(r) : rng_below(r, 100000);
		break;
	default:
		break;
	}
}

/*
 * Writes the next entry into the SQ at the local tail: an entry of a
 * random opcode built well formed, or (hostile) random bytes (10%), or one
 * with an unknown opcode, a hostile header or one bad field.
 */
static void write_entry(struct worker *w, struct queue_rec *q, struct rng *r,
			uint32_t idx, bool hostile)
{
	struct ubfab_sqe e = { 0 };
	bool bad = false;
	uint8_t *b;
	unsigned int i;

	if (!hostile) {
		e.opcode = rng_below(r, UBFAB_OP_WRITE_IMM + 1);
		build_entry(w, q, r, e.opcode, &e, false);
		e.flags = rng_below(r, UBFAB_SQE_FLAGS + 1);
		e.user_data = UD(e.opcode, q->seq, 0, e.length);
	} else if (rng_chance(r, 10)) {
		for (b = (uint8_t *)&e, i = 0; i < sizeof(e); i++)
			b[i] = rng_next(r);
		e.user_data = UD_RANDOM_TAG << 48 | q->seq;
	} else {
		e.opcode = rng_chance(r, 4) ? UBFAB_OP_WRITE_IMM + 1 +
				rng_below(r, 255 - UBFAB_OP_WRITE_IMM) :
				rng_below(r, UBFAB_OP_WRITE_IMM + 1);
		build_entry(w, q, r, e.opcode, &e, true);
		e.flags = rng_below(r, UBFAB_SQE_FLAGS + 1);
		if (rng_chance(r, 4)) {
			/* a bit above the defined flags, of the 8 there are */
			e.flags |= (UBFAB_SQE_FLAGS + 1) <<
				   rng_below(r, 8 - __builtin_ctz(UBFAB_SQE_FLAGS + 1));
			bad = true;
		} else if (rng_chance(r, 3)) {
			e.__reserved = 1 + rng_below(r, 0xffff);
			bad = true;
		}
		if (rng_chance(r, 15))
			mutate(r, &e);
		e.user_data = UD(e.opcode, q->seq, bad, e.length);
	}
	if ((e.opcode == UBFAB_OP_EVENT_WAIT ||
	     e.opcode == UBFAB_OP_WAIT_VALUE) &&
	    (!e.timeout_ms || e.timeout_ms > STUCK_MS))
		q->stuck = true;
	q->seq = (q->seq + 1) & 0x7f;
	memcpy(sq_entry(q, idx), &e, sizeof(e));
}

/*
 * Publishes the local tail (release, as the header says) and rings the
 * doorbell as mode says: 0 always, 1 never, 2 as a polling queue asks
 * (full barrier, then NEED_WAKEUP).
 */
static void publish(struct worker *w, struct queue_rec *q, unsigned int mode)
{
	static const int rung[] = { FUZZ_OK, EIO, 0 };
	uint32_t flags;
	long ret;

	__atomic_store_n(ring_word(q, q->info.sq.tail), q->sq_tail,
			 __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	flags = ring_read(q, q->info.sq.flags);
	if (q->fd < 0 || mode == 1 ||
	    (mode == 2 && (q->info.flags & UBFAB_QUEUE_POLL) &&
	     !(flags & UBFAB_SQ_NEED_WAKEUP)))
		return;
	ret = ioctl(q->fd, UBFAB_IOCTL_QUEUE_DOORBELL, 0);
	fuzz_expect_set(w, "QUEUE_DOORBELL", ret, errno, rung);
}

/*
 * Free SQ slots as the engine's published head says. A queue whose tail
 * was scribbled on may have run past the local tail: go on from its head.
 */
static uint32_t sq_room(struct queue_rec *q)
{
	uint32_t head = __atomic_load_n(ring_word(q, q->info.sq.head),
					__ATOMIC_ACQUIRE);
	uint32_t used = q->sq_tail - head;

	if (used > q->info.sq.entries && !q->clean) {
		q->sq_tail = head;
		used = 0;
	}
	return used > q->info.sq.entries ? 0 : q->info.sq.entries - used;
}

/* A receive completion has what the header promises. */
static bool rcqe_ok(const struct ubfab_rcqe *c)
{
	if (c->opcode < UBFAB_OP_SEND || c->opcode > UBFAB_OP_WRITE_IMM)
		return false;
	switch (c->status) {
	case UBFAB_CQE_OK:
		return c->flags == (c->opcode == UBFAB_OP_SEND ? 0 :
				    UBFAB_RCQE_IMM) &&
		       (c->flags || !c->imm);
	case UBFAB_CQE_BAD_ENTRY:
	case UBFAB_CQE_LOCAL_RANGE:
	case UBFAB_CQE_LOCAL_LENGTH:
	case UBFAB_CQE_NOMEM:
	case UBFAB_CQE_NO_ROUTE:
	case UBFAB_CQE_REVOKED:
		return !c->bytes && !c->flags && !c->imm;
	default:
		return false;
	}
}

/*
 * Consumes the queue's receive completions, checked (unless another
 * process shares the rings), and posts receives until the RQ is full: in
 * the queue's range, now and then (hostile) a bad one.
 */
static void rq_refill(struct worker *w, struct queue_rec *q, struct rng *r,
		      bool hostile)
{
	const struct ubfab_rq_create *a = &q->rq_info;
	uint32_t head, tail, i;
	struct ubfab_rcqe *c;
	struct ubfab_rqe *e;
	uint32_t *word;

	if (!q->rq_ring)
		return;
	word = (uint32_t *)(q->rq_ring + a->rcq.head);
	head = __atomic_load_n(word, __ATOMIC_RELAXED);
	tail = __atomic_load_n((uint32_t *)(q->rq_ring + a->rcq.tail),
			       __ATOMIC_ACQUIRE);
	for (i = head; !q->shared && i != tail; i++) {
		c = (struct ubfab_rcqe *)(q->rq_ring + a->rcq.array) +
		    (i & (a->rcq.entries - 1));
		if (!rcqe_ok(c)) {
			fuzz_fail(w, "receive completion %u: opcode %u status %u flags %#x imm %#x bytes %u",
				  i, c->opcode, c->status, c->flags, c->imm,
				  c->bytes);
			return;
		}
	}
	__atomic_store_n(word, tail, __ATOMIC_RELEASE);
	head = __atomic_load_n((uint32_t *)(q->rq_ring + a->rq.head),
			       __ATOMIC_ACQUIRE);
	for (; q->rq_tail - head < a->rq.entries; q->rq_tail++) {
		e = (struct ubfab_rqe *)(q->rq_ring + a->rq.array) +
		    (q->rq_tail & (a->rq.entries - 1));
		memset(e, 0, sizeof(*e));
		e->length = pick_length(r, hostile);
		e->addr = pick_local(w, q, r, e->length, 1);
		if (hostile && rng_chance(r, 10))
			e->__reserved[rng_below(r, 11)] = 1;
	}
	__atomic_store_n((uint32_t *)(q->rq_ring + a->rq.tail), q->rq_tail,
			 __ATOMIC_RELEASE);
}

/*
 * a[0]: the entries' seed; a[1]: how many; a[2]: doorbell mode; a[3]:
 * hostile entries among them; a[4]: reset a queue in error first.
 */
static void queue_gen_post(struct rng *r, const struct fuzz_model *m, struct op *op)
{
	op->a[0] = rng_next(r);
	op->a[1] = rng_chance(r, 10) ? POST_MAX : 1 + rng_below(r, 8);
	op->a[2] = rng_chance(r, 80) ? 0 : 1 + rng_below(r, 2);
	op->a[3] = rng_chance(r, 30);
	op->a[4] = rng_chance(r, 70);
}

static void queue_run_post(struct worker *w, const struct op *op)
{
	struct queue_rec *q = queue_of(w, op);
	uint32_t n = op->a[1], room, i;
	struct rng r;
	long ret;

	if (!q->ring)
		return fuzz_skip(w);
	if (op->a[4] && q->fd >= 0 &&
	    (ring_read(q, q->info.sq.flags) & UBFAB_SQ_ERROR)) {
		ret = ioctl(q->fd, UBFAB_IOCTL_QUEUE_RESET, 0);
		if (!fuzz_expect(w, "QUEUE_RESET", ret, errno, 0))
			return;
	}
	room = sq_room(q);
	if (n > room)
		n = room;
	rng_seed(&r, op->a[0], op->index);
	rq_refill(w, q, &r, op->a[3]);
	for (i = 0; i < n; i++)
		write_entry(w, q, &r, q->sq_tail + i, op->a[3]);
	q->sq_tail += n;
	q->posted += n;
	fuzz_count(w, 0);
	publish(w, q, op->a[2]);
}

/* ------------------------------------------------------------------ */
/* Completions */

/* Statuses an entry of this opcode can complete with (FLUSHED aside). */
static bool status_ok(uint8_t opcode, uint16_t status)
{
	switch (opcode) {
	case UBFAB_OP_NOP:
	case UBFAB_OP_EVENT_RECORD:
	case UBFAB_OP_COMPUTE:
		return status == UBFAB_CQE_OK || status == UBFAB_CQE_BAD_ENTRY;
	case UBFAB_OP_EVENT_WAIT:
		return status == UBFAB_CQE_OK ||
		       status == UBFAB_CQE_BAD_ENTRY ||
		       status == UBFAB_CQE_TIMEOUT;
	case UBFAB_OP_WAIT_VALUE:
		return status == UBFAB_CQE_OK ||
		       status == UBFAB_CQE_BAD_ENTRY ||
		       status == UBFAB_CQE_TIMEOUT ||
		       status == UBFAB_CQE_LOCAL_RANGE;
	case UBFAB_OP_COPY:
	case UBFAB_OP_FILL:
		return status == UBFAB_CQE_OK ||
		       status == UBFAB_CQE_BAD_ENTRY ||
		       status == UBFAB_CQE_LOCAL_RANGE ||
		       status == UBFAB_CQE_NOMEM;
	case UBFAB_OP_WRITE:
	case UBFAB_OP_READ:
	case UBFAB_OP_WRITE_NOTIFY:
	case UBFAB_OP_ATOMIC:
		return status <= UBFAB_CQE_NOMEM &&
		       status != UBFAB_CQE_BAD_OPCODE &&
		       status != UBFAB_CQE_TIMEOUT;
	case UBFAB_OP_SEND:
	case UBFAB_OP_SEND_IMM:
	case UBFAB_OP_WRITE_IMM:
		return status <= UBFAB_CQE_REMOTE_OP &&
		       status != UBFAB_CQE_BAD_OPCODE &&
		       status != UBFAB_CQE_TIMEOUT &&
		       status != UBFAB_CQE_FLUSHED &&
		       status != UBFAB_CQE_LOCAL_LENGTH;
	default:
		return status == UBFAB_CQE_BAD_OPCODE;
	}
}

/* Bytes a successful entry of this opcode and length moved. */
static uint32_t bytes_ok(uint8_t opcode, uint32_t len)
{
	switch (opcode) {
	case UBFAB_OP_WRITE:
	case UBFAB_OP_READ:
	case UBFAB_OP_WRITE_NOTIFY:
	case UBFAB_OP_COPY:
	case UBFAB_OP_FILL:
	case UBFAB_OP_SEND:
	case UBFAB_OP_SEND_IMM:
	case UBFAB_OP_WRITE_IMM:
		return len;
	case UBFAB_OP_ATOMIC:
		return 8;
	default:
		return 0;
	}
}

/*
 * Checks one completion, the index-th this process consumed. exact: the
 * queue is clean and not shared, so the completion belongs to the entry
 * of that index (every entry completes, unless the queue is selective)
 * and was read whole.
 */
static bool check_cqe(struct worker *w, struct queue_rec *q,
		      const struct ubfab_cqe *c, uint64_t index, bool exact)
{
	uint64_t ud = c->user_data;
	bool ok;

	if (c->status > UBFAB_CQE_REMOTE_OP || c->__reserved)
		return fuzz_fail(w, "completion %llu: status %u, reserved %u",
				 (unsigned long long)index, c->status,
				 c->__reserved);
	fuzz_tally(w, c->status);
	if (!exact)
		return true;
	/* one queue's entries run in order on its modeled clock */
	if (c->model_ns < q->model_ns)
		return fuzz_fail(w, "completion %llu ends at %llu ns, before the one before it (%llu ns)",
				 (unsigned long long)index,
				 (unsigned long long)c->model_ns,
				 (unsigned long long)q->model_ns);
	q->model_ns = c->model_ns;
	if (!UD_IS_OURS(ud))
		return true;
	if (c->opcode != UD_OP(ud))
		return fuzz_fail(w, "completion %llu: opcode %u for an entry of opcode %u",
				 (unsigned long long)index, c->opcode,
				 UD_OP(ud));
	if (!(q->info.flags & UBFAB_QUEUE_SELECTIVE) &&
	    UD_SEQ(ud) != (index & 0x7f))
		return fuzz_fail(w, "completion %llu is of entry %u (mod 128): out of order or one lost",
				 (unsigned long long)index, UD_SEQ(ud));
	if (c->status == UBFAB_CQE_FLUSHED)
		ok = !c->bytes && !c->result;
	else if (UD_BAD(ud) && c->opcode <= UBFAB_OP_WRITE_IMM)
		ok = c->status == UBFAB_CQE_BAD_ENTRY && !c->bytes;
	else if (!status_ok(c->opcode, c->status))
		ok = false;
	else if (c->status == UBFAB_CQE_OK)
		ok = c->bytes == bytes_ok(c->opcode, UD_LEN(ud));
	else
		ok = c->bytes <= UD_LEN(ud);
	if (!ok)
		return fuzz_fail(w, "completion %llu of opcode %u, length %u%s: status %u, bytes %u, result %#llx",
				 (unsigned long long)index, c->opcode,
				 UD_LEN(ud), UD_BAD(ud) ? ", bad header" : "",
				 c->status, c->bytes,
				 (unsigned long long)c->result);
	return true;
}

/*
 * Consumes up to max completions, checking each; *probe gets the status
 * of a reset check's NOP among them (else stays as it was). False on a
 * violation.
 */
static bool reap(struct worker *w, struct queue_rec *q, uint32_t max,
		 int *probe)
{
	bool exact = q->clean && !q->shared;
	uint32_t tail, n, i;
	struct ubfab_cqe c;

	tail = __atomic_load_n(ring_word(q, q->info.cq.tail), __ATOMIC_ACQUIRE);
	n = tail - q->cq_head;
	if (n > q->info.cq.entries) {
		if (exact)
			return fuzz_fail(w, "CQ tail %u is %u ahead of head %u in a CQ of %u: completions overwritten",
					 tail, n, q->cq_head,
					 q->info.cq.entries);
		q->cq_head = tail;	/* start again from what is there */
		n = 0;
	}
	if (exact && n > q->posted - q->reaped)
		return fuzz_fail(w, "%u completions for %llu entries outstanding",
				 n, (unsigned long long)(q->posted - q->reaped));
	if (n > max)
		n = max;
	for (i = 0; i < n; i++) {
		memcpy(&c, cq_entry(q, q->cq_head), sizeof(c));
		if (!check_cqe(w, q, &c, q->reaped, exact))
			return false;
		if (probe && UD_IS_OURS(c.user_data) &&
		    UD_OP(c.user_data) == UBFAB_OP_NOP &&
		    UD_LEN(c.user_data) == UD_PROBE_LEN)
			*probe = c.status;
		q->cq_head++;
		q->reaped++;
	}
	__atomic_store_n(ring_word(q, q->info.cq.head), q->cq_head,
			 __ATOMIC_RELEASE);
	return true;
}

/* a[0]: how many at most; a[1]: wait for them with poll() first. */
static void queue_run_reap(struct worker *w, const struct op *op)
{
	struct queue_rec *q = queue_of(w, op);
	struct pollfd pfd = { .fd = q->fd, .events = POLLIN };

	if (!q->ring)
		return fuzz_skip(w);
	if (q->fd >= 0 && op->a[1] % 4 == 0 &&
	    poll(&pfd, 1, op->a[1] / 4 % 5) < 0) {
		fuzz_fail(w, "poll of a queue: %s", strerrorname_np(errno));
		return;
	}
	fuzz_count(w, 0);
	reap(w, q, op->a[0] % 2 ? UINT32_MAX : 1 + op->a[0] / 2 % 16, NULL);
}

/* ------------------------------------------------------------------ */
/* Doorbell, reset, scribbling, the descriptor */

/* Scribbles value class a[2] (a[3]) on header word a[1] % 8. */
static void corrupt(struct worker *w, struct queue_rec *q, const struct op *op)
{
	const uint32_t offs[] = {
		q->info.sq.head, q->info.sq.tail, q->info.sq.flags,
		q->info.sq.overflow, q->info.cq.head, q->info.cq.tail,
		q->info.cq.flags, q->info.cq.overflow,
	};
	uint32_t *word = ring_word(q, offs[op->a[1] % 8]);
	uint32_t v = __atomic_load_n(word, __ATOMIC_RELAXED), entries = op->a[1] % 8 < 4 ? q->info.sq.entries :
				       q->info.cq.entries;

	switch (op->a[2] % 6) {
	case 0:
		v += 1;
		break;
	case 1:
		v += entries;
		break;
	case 2:
		v += entries + 1;
		break;
	case 3:
		v -= 1;
		break;
	case 4:
		v = op->a[3] % 2 ? 0x80000000 : 0xffffffff;
		break;
	default:
		v = op->a[3];
		break;
	}
	__atomic_store_n(word, v, __ATOMIC_RELAXED);
	q->clean = false;
	fuzz_count(w, 0);
}

/* poll() of a clean queue reports POLLIN exactly while completions wait. */
static void poll_queue(struct worker *w, struct queue_rec *q)
{
	struct pollfd pfd = { .fd = q->fd, .events = POLLIN | POLLOUT };
	uint32_t before, after;
	int ret;

	before = q->ring ? __atomic_load_n(ring_word(q, q->info.cq.tail),
					   __ATOMIC_ACQUIRE) : 0;
	ret = poll(&pfd, 1, 0);
	after = q->ring ? __atomic_load_n(ring_word(q, q->info.cq.tail),
					  __ATOMIC_ACQUIRE) : 0;
	if (!fuzz_expect(w, "poll", ret, errno, 0))
		return;
	if (pfd.revents & ~(POLLIN | POLLRDNORM))
		fuzz_fail(w, "poll of a queue: revents %#x", pfd.revents);
	else if (q->clean && !q->shared && q->ring && before == after &&
		 after != q->cq_head && !(pfd.revents & POLLIN))
		fuzz_fail(w, "poll of a queue: revents %#x with completions waiting, CQ %u..%u",
			  pfd.revents, q->cq_head, after);
}

/* mmap() of the queue's descriptor as it must not be, or a part of it. */
static void map_queue(struct worker *w, struct queue_rec *q, uint64_t how)
{
	uint64_t len = q->info.ring_size, off = 0;
	int flags = MAP_SHARED, prot = PROT_READ | PROT_WRITE, want = EINVAL;
	void *p;

	switch (how % 6) {
	case 0:
		off = PAGE;
		break;
	case 1:
		flags = MAP_PRIVATE;
		break;
	case 2:
		len += PAGE;
		break;
	case 3:
		len = PAGE;
		want = 0;
		break;
	case 4:
		prot = PROT_READ;
		want = 0;
		break;
	default:
		/* Far, but not so far that the VFS says EOVERFLOW. */
		off = how % (1ULL << 40) & ~(PAGE - 1);
		want = off ? EINVAL : 0;
		break;
	}
	p = mmap(NULL, len, prot, flags, q->fd, off);
	if (fuzz_expect(w, "mmap of a queue", p == MAP_FAILED ? -1 : 0, errno,
			want) && p != MAP_FAILED)
		munmap(p, len);
}

/*
 * mremap() of the rings: growing them fails (EFAULT: the mapping cannot
 * expand), moving them works, and the queue goes on through the new
 * address (a[2] odd: move).
 */
static void remap_queue(struct worker *w, struct queue_rec *q, uint64_t how)
{
	size_t len = q->info.ring_size;
	void *to, *p;

	if (!(how % 2)) {
		p = mremap(q->ring, len, len + PAGE, MREMAP_MAYMOVE);
		fuzz_expect(w, "mremap growing a queue's rings",
			    p == MAP_FAILED ? -1 : 0, errno, EFAULT);
		if (p != MAP_FAILED)
			q->ring = p;
		return;
	}
	to = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (to == MAP_FAILED)
		return fuzz_skip(w);
	p = mremap(q->ring, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to);
	if (fuzz_expect(w, "mremap moving a queue's rings",
			p == MAP_FAILED ? -1 : 0, errno, 0))
		q->ring = p;
	else
		munmap(to, len);
}

/*
 * a[0]: what: the doorbell (with an argument now and then), scribbling
 * on a header word, poll, a hostile mapping, moving or growing the
 * mapping, an ioctl the queue has not, read, write, lseek and fstat of
 * its descriptor.
 */
static void queue_run_ctl(struct worker *w, const struct op *op)
{
	static const int rung[] = { FUZZ_OK, EIO, 0 };
	struct queue_rec *q = queue_of(w, op);
	unsigned long arg = op->a[1] % 8 ? 0 : op->a[3] | 1;
	unsigned int cmd;
	struct stat st;
	long ret;

	if (queue_empty(q))
		return fuzz_skip(w);
	if (op->a[0] % 9 == 1 || op->a[0] % 9 == 8) {
		if (!q->ring)
			return fuzz_skip(w);
		if (op->a[0] % 9 == 8)
			return remap_queue(w, q, op->a[2]);
		return corrupt(w, q, op);
	}
	if (q->fd < 0)
		return fuzz_skip(w);
	switch (op->a[0] % 9) {
	case 0:
		ret = ioctl(q->fd, UBFAB_IOCTL_QUEUE_DOORBELL, arg);
		if (arg)
			fuzz_expect(w, "QUEUE_DOORBELL", ret, errno, EINVAL);
		else
			fuzz_expect_set(w, "QUEUE_DOORBELL", ret, errno, rung);
		break;
	case 2:
		poll_queue(w, q);
		break;
	case 3:
		map_queue(w, q, op->a[2]);
		break;
	case 4:
		/* The entity's commands and others: not a queue's. */
		cmd = op->a[1] % 2 ? _IOC(op->a[2] % 4, UBFAB_IOCTL_TYPE,
					  op->a[3] % 256, op->a[4] % 256) :
				     (uint32_t)op->a[2];
		if (cmd == UBFAB_IOCTL_QUEUE_DOORBELL ||
		    cmd == UBFAB_IOCTL_QUEUE_RESET ||
		    cmd == UBFAB_IOCTL_QUEUE_CLOCK || vfs_ioctl_cmd(cmd))
			cmd = UBFAB_IOCTL_QUEUE_CREATE;
		ret = ioctl(q->fd, cmd, fuzz_iobuf);
		fuzz_expect(w, "ioctl of a queue", ret, errno, ENOTTY);
		break;
	case 5:
		ret = read(q->fd, fuzz_iobuf, op->a[2] % 128);
		fuzz_expect(w, "read of a queue", ret, errno, EINVAL);
		break;
	case 6:
		ret = write(q->fd, fuzz_iobuf, op->a[2] % 128);
		fuzz_expect(w, "write of a queue", ret, errno, EINVAL);
		break;
	default:
		ret = lseek(q->fd, op->a[2] % 4096, SEEK_SET);
		if (fuzz_expect(w, "lseek of a queue", ret, errno, 0) &&
		    (fstat(q->fd, &st) || S_ISCHR(st.st_mode)))
			fuzz_fail(w, "fstat of a queue: %s, mode %o",
				  strerrorname_np(errno), st.st_mode);
		break;
	}
}

/*
 * Posts a NOP asking for its completion, then reaps until it comes (the
 * doorbell rung each time round, as a stalled CQ needs): its status, or -1
 * if it did not come in time, -2 on a violation.
 */
static int probe(struct worker *w, struct queue_rec *q)
{
	static const int rung[] = { FUZZ_OK, EIO, 0 };
	struct pollfd pfd = { .fd = q->fd, .events = POLLIN };
	int64_t deadline = now_ms() + RESET_SECONDS * 1000;
	struct ubfab_sqe *e;
	bool posted = false;
	int status = -1;
	long ret;

	while (status < 0 && now_ms() < deadline) {
		if (!posted && sq_room(q)) {
			e = sq_entry(q, q->sq_tail);
			memset(e, 0, sizeof(*e));
			e->flags = UBFAB_SQE_SIGNAL;
			e->user_data = UD(UBFAB_OP_NOP, q->seq, 0, UD_PROBE_LEN);
			q->seq = (q->seq + 1) & 0x7f;
			q->sq_tail++;
			q->posted++;
			posted = true;
			__atomic_store_n(ring_word(q, q->info.sq.tail),
					 q->sq_tail, __ATOMIC_RELEASE);
		}
		ret = ioctl(q->fd, UBFAB_IOCTL_QUEUE_DOORBELL, 0);
		if (!fuzz_expect_set(w, "QUEUE_DOORBELL", ret, errno, rung) ||
		    !reap(w, q, UINT32_MAX, &status))
			return -2;
		if (status < 0)
			poll(&pfd, 1, 10);
	}
	return status;
}

/*
 * QUEUE_RESET. On a queue only this process uses, whose header words are
 * as the engine left them and which nothing may hold for long, the reset
 * must bring it back: a NOP posted after it completes with UBFAB_CQE_OK,
 * or, if an entry posted before it failed after it (the queue was not in
 * error when reset), with UBFAB_CQE_FLUSHED, and then after a second reset
 * with UBFAB_CQE_OK. a[0]: an argument (EINVAL) now and then.
 */
static void queue_run_reset(struct worker *w, const struct op *op)
{
	struct queue_rec *q = queue_of(w, op);
	int round, status = -1;
	long ret;

	if (q->fd < 0)
		return fuzz_skip(w);
	if (op->a[0] % 8 == 0) {
		ret = ioctl(q->fd, UBFAB_IOCTL_QUEUE_RESET, op->a[1] | 1);
		fuzz_expect(w, "QUEUE_RESET", ret, errno, EINVAL);
		return;
	}
	for (round = 0; round < 2; round++) {
		ret = ioctl(q->fd, UBFAB_IOCTL_QUEUE_RESET, 0);
		if (!fuzz_expect(w, "QUEUE_RESET", ret, errno, 0) || !q->ring ||
		    !q->clean || q->shared || q->stuck)
			return;
		status = probe(w, q);
		if (status != UBFAB_CQE_FLUSHED)
			break;
	}
	if (status == -2 || status == UBFAB_CQE_OK)
		return;
	if (status == -1)
		fuzz_fail(w, "a NOP posted after QUEUE_RESET did not complete in %d s (SQ %u..%u, CQ %u..%u, flags %#x)",
			  RESET_SECONDS, ring_read(q, q->info.sq.head),
			  q->sq_tail, q->cq_head,
			  ring_read(q, q->info.cq.tail),
			  ring_read(q, q->info.sq.flags));
	else
		fuzz_fail(w, "a NOP posted after QUEUE_RESET completed with status %d",
			  status);
}

struct ring_race {
	int fd;
	unsigned long rings;
	long ret;
	int err;
};

/* Rings a queue's doorbell while another thread destroys the queue. */
static void *ring_racing(void *arg)
{
	struct ring_race *rr = arg;
	unsigned long i;

	for (i = 0; i < rr->rings; i++) {
		rr->ret = ioctl(rr->fd, UBFAB_IOCTL_QUEUE_DOORBELL, 0);
		rr->err = errno;
		if (rr->ret && rr->err != EIO)
			break;
	}
	return NULL;
}

/*
 * Destroys a queue: a[0] % 5: closed and unmapped; closed only, the
 * mapping keeping it alive (its entries may still run); unmapped only;
 * entries posted first, so that it goes with work in flight; or that,
 * while another thread rings its doorbell (each ring works, EIO or
 * EBADF once the descriptor is gone).
 */
static void queue_run_destroy(struct worker *w, const struct op *op)
{
	static const int rung[] = { FUZZ_OK, EIO, EBADF, 0 };
	struct queue_rec *q = queue_of(w, op);
	struct ring_race rr = { .fd = q->fd, .rings = 1 + op->a[2] % 64 };
	pthread_t thread;
	bool racing;
	struct rng r;
	uint32_t n, i;

	if (queue_empty(q))
		return fuzz_skip(w);
	fuzz_count(w, 0);
	switch (op->a[0] % 5) {
	case 1:
		queue_close(q);
		break;
	case 2:
		queue_unmap(q);
		break;
	case 3:
	case 4:
		if (q->ring) {
			rng_seed(&r, op->a[1], op->index);
			n = sq_room(q);
			for (i = 0; i < n && i < POST_MAX; i++)
				write_entry(w, q, &r, q->sq_tail + i, true);
			q->sq_tail += i;
			q->posted += i;
			publish(w, q, op->a[0] % 5 == 4);
		}
		racing = op->a[0] % 5 == 4 && q->fd >= 0 &&
			 !pthread_create(&thread, NULL, ring_racing, &rr);
		queue_clear(q);
		if (!racing)
			break;
		pthread_join(thread, NULL);
		fuzz_expect_set(w, "QUEUE_DOORBELL racing close", rr.ret,
				rr.err, rung);
		break;
	default:
		queue_clear(q);
		break;
	}
}

/* QUEUE_CREATE as an operation of its own, on a slot as drawn. */
static void queue_run_create(struct worker *w, const struct op *op)
{
	fuzz_ioctl_run(w, &w->slots[op->slot], op);
}

static const struct fuzz_ioctl queue_ioctls[] = {
	FUZZ_IOCTL("QUEUE_CREATE", UBFAB_IOCTL_QUEUE_CREATE, ubfab_queue_create,
		   cq, 1, 0, queue_create_build, queue_create_done),
	FUZZ_IOCTL("RQ_CREATE", UBFAB_IOCTL_RQ_CREATE, ubfab_rq_create, rcq, 1,
		   0, rq_create_build, rq_create_done),
	FUZZ_IOCTL("JETTY_CREATE", UBFAB_IOCTL_JETTY_CREATE,
		   ubfab_jetty_create, id, 1, 0, jetty_create_build,
		   jetty_create_done),
};

static const struct fuzz_op_type queue_ops[] = {
	FUZZ_OP("q-create", 4, queue_gen_create, queue_run_create),
	FUZZ_OP("q-post", 8, queue_gen_post, queue_run_post),
	FUZZ_OP("q-reap", 4, NULL, queue_run_reap),
	FUZZ_OP("q-ctl", 4, NULL, queue_run_ctl),
	FUZZ_OP("q-reset", 2, NULL, queue_run_reset),
	FUZZ_OP("q-destroy", 1, NULL, queue_run_destroy),
};

/* enum ubfab_cqe_status, for the summary's count of completions. */
static const char *const cqe_names[] = {
	"OK", "BAD_OPCODE", "BAD_ENTRY", "LOCAL_RANGE", "NO_IMPORT",
	"REMOTE_RANGE", "ACCESS", "REVOKED", "NO_ROUTE", "TIMEOUT", "NOMEM",
	"FLUSHED", "RNR_RETRY_EXC", "REMOTE_LENGTH", "LOCAL_LENGTH",
	"REMOTE_OP",
};
_Static_assert(ARRAY_SIZE(cqe_names) == UBFAB_CQE_REMOTE_OP + 1,
	       "a name for each completion status");

const struct fuzz_family fuzz_queue_family = {
	.name = "NPU queues",
	.ops = queue_ops,
	.nr_ops = ARRAY_SIZE(queue_ops),
	.ioctls = queue_ioctls,
	.nr_ioctls = ARRAY_SIZE(queue_ioctls),
	.tally = "completions",
	.tally_names = cqe_names,
	.nr_tally = ARRAY_SIZE(cqe_names),
};
