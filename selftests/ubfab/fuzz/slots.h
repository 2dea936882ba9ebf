/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a worker process keeps of the objects under test, which every op
 * family may name: descriptor slots, records of the memory it allocated,
 * exported, imported and mapped, the board where workers publish their
 * exports, and the NPU queues it made. Operations name these by number;
 * what a slot or record holds is only looked at when the operation runs,
 * and a record may be stale (another process holding the same file may
 * have undone it).
 */
#ifndef FUZZ_SLOTS_H
#define FUZZ_SLOTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/ubfab.h>

struct fuzz_model;
struct worker;

/* What a worker's file descriptor slot holds. */
enum slot_kind {
	SLOT_EMPTY,
	SLOT_DEV,	/* an open entity device */
	SLOT_PATH,	/* an O_PATH descriptor of an entity device */
	SLOT_NL,	/* a generic netlink socket */
};

/**
 * struct slot - one file descriptor a worker holds
 * @fd: the descriptor, -1 when empty
 * @kind: enum slot_kind
 * @file: which open file it is (slots dup()ed from one another share it),
 *	to find what this process made through that file
 * @eid: the entity of a device slot
 * @accmode: O_ACCMODE bits of a device slot's open flags
 * @shared: a netlink socket another process may also read: its answers
 *	can go to either, so only their form is checked
 * @stale: a netlink socket on which a dump was abandoned: messages of an
 *	earlier request may still arrive, and a new dump may be refused
 * @portid: a netlink socket's port id
 * @rcvlen: a netlink socket's receive buffer length
 */
struct slot {
	int fd;
	enum slot_kind kind;
	uint32_t file;
	uint32_t eid;
	int accmode;
	bool shared;
	bool stale;
	uint32_t portid;
	size_t rcvlen;
};

#define FUZZ_SLOTS	8

/* Closes a slot's descriptor and empties it. */
void slot_clear(struct slot *s);
/* Puts a newly opened file in a slot. */
void slot_set(struct worker *w, struct slot *s, int fd, enum slot_kind kind,
	      uint32_t eid, int accmode);
/* The descriptor an operation uses: the slot's, or -1 when empty. */
int slot_fd(const struct slot *s);
bool slot_readable(const struct slot *s);
bool slot_writable(const struct slot *s);
/* Whether a slot holds an entity device open. */
bool slots_hold_device(const struct worker *w);

/* The entity a device number names, or -1. */
long eid_of_rdev(const struct fuzz_model *m, dev_t rdev);
/* Checks that fd is the device of entity eid (a violation if not). */
bool check_device(struct worker *w, int fd, uint32_t eid);

/*
 * What a process made, kept to build requests that look valid: ranges it
 * allocated, segments it exported, imports and mappings. FUZZ_RECS of
 * each, the oldest overwritten.
 */
#define FUZZ_RECS	8

/*
 * An allocation (@offset in the entity's memory), an export (@offset is
 * the token id) or an import (@offset is the mmap offset).
 */
struct mem_rec {
	uint32_t file;
	uint32_t rights;	/* imports */
	uint64_t offset;
	uint64_t length;	/* 0: unused */
};

struct map_rec {
	uint8_t *addr;		/* NULL: unused */
	size_t len;
	int prot;
};

/* The n-th (modulo their number) of the records of a file, or NULL. */
const struct mem_rec *find_rec(const struct mem_rec *recs, uint32_t file,
			       uint64_t n);
/*
 * The slot of the n-th (modulo their number) record whose file a slot
 * still holds, or dflt when there is none: where a request about that
 * record must go.
 */
const struct slot *rec_slot(const struct worker *w,
			    const struct mem_rec *recs, uint64_t n,
			    const struct slot *dflt);

/*
 * The exports of every worker, in memory they share, for any to import:
 * handles made by other processes for other entities. Entries are written
 * without a lock; a torn one is just another guess.
 */
#define FUZZ_BOARD	64

struct board_rec {
	uint32_t eid;
	uint32_t token_id;
	uint32_t value;
	uint32_t rights;
	uint64_t length;
};

extern struct board_rec *fuzz_board;

/* Maps the board before the workers fork, and unmaps it: 0 or -errno. */
int board_map(void);
void board_unmap(void);

/*
 * An NPU queue a process created. A queue outlives its descriptor while
 * its rings stay mapped, and a process it spawned shares it. FUZZ_QUEUES
 * of them, the oldest destroyed for a new one.
 */
#define FUZZ_QUEUES	4

/**
 * struct queue_rec - one queue and what this process did with it
 * @fd: its descriptor; -1 when closed (the mapping may still hold it)
 * @file: the entity file that created it (struct slot's @file), whose
 *	allocations and imports its entries name
 * @eid: that file's entity
 * @info: what QUEUE_CREATE returned: flags, depths, layout
 * @ring: its mapping, @info.ring_size bytes; NULL when not mapped
 * @local: a range allocated for its entries when it was made (its offset;
 *	@local_len 0: none), which the records' round robin does not drop
 * @remote: the same of an import (its mmap offset)
 * @sq_tail: the SQ tail this process last published
 * @cq_head: the CQ head: completions consumed
 * @posted: entries published
 * @reaped: completions consumed
 * @model_ns: the modeled end of the last completion consumed, when the
 *	queue is clean and not shared: the next one may not end earlier
 * @seq: sequence number of the next entry (in its user_data)
 * @clean: no header word was ever scribbled on: the engine's indices and
 *	completions can be checked exactly
 * @shared: another process holds it too (a spawned child): only what each
 *	completion says on its own is checked
 * @stuck: an entry may hold it for long (a wait with no or a long
 *	time-out): a reset need not come back soon
 */
struct queue_rec {
	int fd;
	uint32_t file;
	uint32_t eid;
	struct ubfab_queue_create info;
	uint8_t *ring;
	uint64_t local;
	uint64_t local_len;
	uint64_t remote;
	uint64_t remote_len;
	uint32_t sq_tail;
	uint32_t cq_head;
	uint64_t posted;
	uint64_t reaped;
	uint64_t model_ns;
	uint8_t seq;
	bool clean;
	bool shared;
	bool stuck;
	/* the receive queue made with it on its file, for messages; or -1 */
	int rq_fd;
	struct ubfab_rq_create rq_info;
	uint8_t *rq_ring;
	uint32_t rq_tail;
};

bool queue_empty(const struct queue_rec *q);
void queue_unmap(struct queue_rec *q);
void queue_close(struct queue_rec *q);
/* Destroys a queue: unmapped and closed. */
void queue_clear(struct queue_rec *q);
/*
 * The device slot of the n-th (modulo their number) queue whose creating
 * file a slot still holds, or dflt.
 */
const struct slot *queue_file_slot(const struct worker *w, uint64_t n,
				   const struct slot *dflt);
/* Whether this process holds a queue (a descriptor or a mapping). */
bool queue_held(const struct worker *w);

/* A new worker's slots: all empty. */
void slots_init(struct worker *w);
/*
 * Before a fork: the new process holds every descriptor and mapping too,
 * so netlink sockets are shared (and may be mid-dump) and so are queues.
 */
void slots_share(struct worker *w);
/* At a worker's end: every queue destroyed, every descriptor closed. */
void slots_clear_all(struct worker *w);

#endif
