/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ubfab fuzzer's engine, shared by its parts: fuzz.c (the supervisor,
 * the workers, device, sysfs, fd-passing and process operations),
 * fuzz_mem.c (memory and segment ioctls, mappings, events), fuzz_queue.c
 * (NPU queues: creation, rings, doorbells, completions, reset, destroy),
 * fuzz_nl.c (the netlink family) and fuzz_test.c (the kselftest entry
 * point and the command line). Documentation/fuzzing.rst describes what it does.
 *
 * Every operation is generated from the worker's random stream alone,
 * never from the outcome of earlier operations: a worker's sequence of
 * operations is a function of (seed, worker index), so a failing worker can
 * be replayed on its own. Operations name file descriptors by slot; what a
 * slot holds is only known when the operation runs.
 */
#ifndef UBFAB_FUZZ_H
#define UBFAB_FUZZ_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <linux/ubfab.h>

#include "libubfab.h"

/**
 * struct fuzz_config - one run
 * @seed: the run's seed; worker K draws from the stream (seed, K)
 * @workers: worker processes
 * @first_worker: index of the first worker (the others follow), so that
 *	"--worker K --workers 1" replays worker K of a larger run alone
 * @ops: operations in all, shared out among the workers; 0: no limit
 * @seconds: wall-clock limit; 0: none (one of @ops and @seconds is set)
 * @params: module parameters the run loads ubfab.ko with
 * @trace: print every operation before it runs (to @out)
 * @out: where the run reports; lines are written whole
 */
struct fuzz_config {
	uint64_t seed;
	unsigned int workers;
	unsigned int first_worker;
	uint64_t ops;
	unsigned int seconds;
	const char *params;
	bool trace;
	FILE *out;
};

/*
 * Runs the fuzzer: (re)loads the module with cfg->params, forks the
 * workers, waits for them and checks that the module unloads and loads
 * again. Returns 0 when every invariant held, 1 on a violation (already
 * reported with seed, worker, operation index and operation), or -errno
 * when the run could not be set up.
 */
int fuzz_run(const struct fuzz_config *cfg);

/* The rest is internal to the fuzzer. */

/* Random stream: xoshiro256**, seeded through splitmix64. */
struct rng {
	uint64_t s[4];
};

void rng_seed(struct rng *r, uint64_t seed, uint64_t stream);
uint64_t rng_next(struct rng *r);
/* Uniform in [0, n); n > 0. */
uint64_t rng_below(struct rng *r, uint64_t n);
/* True with probability pct / 100. */
bool rng_chance(struct rng *r, unsigned int pct);
/* One of the n values of a table. */
#define rng_pick(r, table) ((table)[rng_below((r), ARRAY_SIZE(table))])
/* A 32-bit value, half the time from a list of boundaries around @near. */
uint32_t rng_u32_edge(struct rng *r, uint32_t near);

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* What the module was loaded as: read once, before the workers start. */
struct fuzz_model {
	struct ubfab_fabric_info fabric;
	uint32_t nr_entities;
	struct ubfab_entity_info *entities;	/* by EID */
	dev_t devt0;				/* device number of EID 0 */
	int family;				/* generic netlink family id */
};

#define PAGE		4096UL
/* A PROT_NONE region per process where mappings may go at fixed addresses. */
#define SCRATCH_PAGES	64
#define SCRATCH_LEN	(SCRATCH_PAGES * PAGE)

/* In an errno set (0-terminated): success is allowed too. */
#define FUZZ_OK		(-1)
/* Counted like an errno: an access to a mapping got SIGBUS. */
#define FUZZ_SIGBUS	134
#define FUZZ_OUTCOMES	135

/* What a pointer argument points at (fuzz_arg_pointer()). */
enum { ARG_NULL, ARG_BUF, ARG_FAULT, ARG_KERNEL, ARG_ALL_ONES, ARG_SMALL,
	NR_ARGS };

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
#define FUZZ_CHILDREN	2

/*
 * What a process made, kept to build requests that look valid: ranges it
 * allocated, segments it exported, imports and mappings (fuzz_mem.c). A
 * record may be stale: another process holding the same file may have
 * undone it. FUZZ_RECS of each, the oldest overwritten.
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

/*
 * An NPU queue a process created (fuzz_queue.c). A queue outlives its
 * descriptor while its rings stay mapped, and a process it spawned shares
 * it. FUZZ_QUEUES of them, the oldest destroyed for a new one.
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
	uint8_t seq;
	bool clean;
	bool shared;
	bool stuck;
};

/* The operations; op_types[] in fuzz.c says what each is. */
enum op_kind {
	OP_OPEN,
	OP_MKNOD_OPEN,
	OP_REOPEN,
	OP_CLOSE,
	OP_DUP,
	OP_IOCTL,
	OP_MMAP,
	OP_MUNMAP,
	OP_TOUCH,
	OP_MPROTECT,
	OP_READ,
	OP_WRITE,
	OP_POLL,
	OP_EPOLL,
	OP_LSEEK,
	OP_FSTAT,
	OP_FCNTL,
	OP_SYSFS,
	OP_NL_OPEN,
	OP_NL_REQUEST,
	OP_NL_DRAIN,
	OP_SEND_FD,
	OP_RECV_FD,
	OP_SPAWN,
	OP_KILL,
	OP_REAP,
	OP_RACE_CLOSE,
	OP_UNLOAD_HELD,
	OP_QUEUE_CREATE,
	OP_QUEUE_POST,
	OP_QUEUE_REAP,
	OP_QUEUE_CTL,
	OP_QUEUE_RESET,
	OP_QUEUE_DESTROY,
	NR_OPS
};

/* A netlink request: up to this many messages in one datagram. */
#define NL_MSGS_MAX	3
#define NL_REQ_MAX	1024

/* What one message of a request must get back. */
enum nl_expect {
	NLX_OK,		/* success, and the objects the target names */
	NLX_ERR,	/* exactly this error */
	NLX_ANY,	/* success or an error of the family's documented set */
	NLX_NONE,	/* nothing: the kernel drops it unanswered */
};

/* The object a valid request asks for, to check what comes back. */
struct nl_target {
	uint32_t eid;		/* ENTITY_GET, PORT_GET; UINT32_MAX: all */
	uint32_t plane;		/* PORT_GET, PLANE_GET; UINT32_MAX: all */
};

struct nl_msgspec {
	uint32_t seq;
	uint8_t cmd;
	bool request;	/* NLM_F_REQUEST */
	bool dump;	/* both NLM_F_DUMP bits */
	bool ack;	/* NLM_F_ACK */
	enum nl_expect expect;
	int err;	/* NLX_ERR: the positive errno */
	struct nl_target target;
	const char *what;	/* how the generator built it */
};

/**
 * struct nl_request - one datagram of netlink messages and what they must get
 * @buf: the bytes sent
 * @len: their length
 * @n: messages described in @msg (a dropped tail is not one of them)
 * @msg: the messages
 * @seq_base: their first sequence number, a multiple of 8
 * @family_at: where the messages to the family start, whose type is sent
 *	as the family's id (it changes with each load)
 * @nfamily: how many
 * @abandon: stop reading once the sentinel request is answered, leaving any
 *	dump unfinished
 */
struct nl_request {
	uint8_t buf[NL_REQ_MAX];
	size_t len;
	unsigned int n;
	struct nl_msgspec msg[NL_MSGS_MAX];
	uint32_t seq_base;
	uint16_t family_at[NL_MSGS_MAX + 1];
	unsigned int nfamily;
	bool abandon;
};

/**
 * struct op - one generated operation: its kind, its index in its sequence,
 * the slots it names, and a[], its draws, which each operation interprets
 * in its own way (documented where it runs)
 */
struct op {
	enum op_kind kind;
	uint64_t index;
	unsigned int slot;
	unsigned int slot2;
	uint64_t a[8];
	char path[320];
	uint8_t arg[256];
	struct nl_request nl;
};

/* Counters of one worker, in memory the supervisor shares. */
struct fuzz_stats {
	uint64_t done;			/* operations run */
	uint64_t ops[NR_OPS];
	uint64_t errs[NR_OPS][FUZZ_OUTCOMES];	/* [0] success, else errno */
	uint64_t skipped[NR_OPS];	/* nothing to act on */
	uint64_t cqes[UBFAB_CQE_FLUSHED + 1];	/* completions, by status */
	uint64_t cur_index;		/* the operation running now */
	struct op cur;
	pid_t pid;
};

/**
 * struct worker - one process running a sequence of operations
 * @cfg: the run
 * @model: the module as loaded
 * @rng: this sequence's random stream
 * @label: "worker K", or "worker K child C" for a process it spawned
 * @index: the worker's index in the run (its mailbox)
 * @id: the worker's stream: cfg->first_worker + @index
 * @stats: shared counters (children add to their worker's)
 * @spawned_at: in a child, the index of the operation that spawned it
 * @op_index: index of the operation running now
 * @op: the operation running now
 * @slots: file descriptors held
 * @next_file: the number the next file opened gets
 * @allocs, @exports, @imports, @maps: what this process made
 * @next_rec: where the next allocation or import is recorded
 * @queues: NPU queues made
 * @next_queue: where the next queue goes
 * @eventfd: an eventfd queues signal, made with the first that asks
 * @children: processes spawned and not reaped yet (0: none)
 * @scratch: SCRATCH_LEN bytes of PROT_NONE
 * @failed: an invariant was violated (already reported)
 */
struct worker {
	const struct fuzz_config *cfg;
	const struct fuzz_model *model;
	struct rng rng;
	char label[64];
	unsigned int index;
	unsigned int id;
	struct fuzz_stats *stats;
	uint64_t spawned_at;
	uint64_t op_index;
	struct op op;
	struct slot slots[FUZZ_SLOTS];
	uint32_t next_file;
	struct mem_rec allocs[FUZZ_RECS];
	struct mem_rec exports[FUZZ_RECS];
	struct mem_rec imports[FUZZ_RECS];
	struct map_rec maps[FUZZ_RECS];
	unsigned int next_rec;
	struct queue_rec queues[FUZZ_QUEUES];
	unsigned int next_queue;
	int eventfd;
	pid_t children[FUZZ_CHILDREN];
	void *scratch;
	bool failed;
};

/* Records a violation of the running operation; always returns false. */
bool fuzz_fail(struct worker *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Counts an outcome: 0 for success, else the errno (or FUZZ_SIGBUS). */
void fuzz_count(struct worker *w, int err);
/* Counts a completion of an NPU queue (status checked in range). */
void fuzz_count_cqe(struct worker *w, unsigned int status);
/* Counts an operation that had nothing to act on. */
void fuzz_skip(struct worker *w);
/*
 * Checks and counts a call's outcome (ret < 0: failed with err): success
 * when want is 0, else that errno.
 */
bool fuzz_expect(struct worker *w, const char *call, long ret, int err,
		 int want);
/* The same against a set of errnos, with FUZZ_OK if success may be. */
bool fuzz_expect_set(struct worker *w, const char *call, long ret, int err,
		     const int *set);
/* The pointer an ARG_* value stands for; small: the ARG_SMALL value. */
void *fuzz_arg_pointer(const struct worker *w, uint64_t kind, uint64_t small);
/* A buffer for arguments and reads. */
extern uint8_t fuzz_iobuf[65536];

/* Closes a slot's descriptor and empties it. */
void slot_clear(struct slot *s);
/* The descriptor an operation uses: the slot's, or -1 when empty. */
int slot_fd(const struct slot *s);
bool slot_readable(const struct slot *s);
bool slot_writable(const struct slot *s);

/* Fills a 0-terminated errno set. */
#define SET(set, ...) set_fill(set, (const int[]){ __VA_ARGS__, 0 })

static inline void set_fill(int *set, const int *from)
{
	while ((*set++ = *from++))
		;
}

/* Memory, segments and events (fuzz_mem.c). */
void mem_gen_ioctl(struct rng *r, const struct fuzz_model *m, struct op *op);
void mem_gen_mmap(struct rng *r, const struct fuzz_model *m, struct op *op);
void mem_run_ioctl(struct worker *w, const struct op *op);
void mem_run_mmap(struct worker *w, const struct op *op);
void mem_run_munmap(struct worker *w, const struct op *op);
void mem_run_touch(struct worker *w, const struct op *op);
void mem_run_mprotect(struct worker *w, const struct op *op);
/* The n-th (modulo their number) of the records of a file, or NULL. */
const struct mem_rec *find_rec(const struct mem_rec *recs, uint32_t file,
			       uint64_t n);
/* ioctl commands the VFS handles itself, before the driver sees them. */
bool vfs_ioctl_cmd(unsigned int cmd);
/* Checks n bytes of events read from a device. */
void mem_check_events(struct worker *w, const void *buf, size_t n);
/* Makes SIGBUS and SIGSEGV of touched mappings catchable. */
void mem_setup(void);
/* Puts the scratch region back after fixed mappings or unmappings. */
void mem_restore_scratch(struct worker *w);

/* NPU queues (fuzz_queue.c). */
void queue_gen_create(struct rng *r, const struct fuzz_model *m,
		      struct op *op);
void queue_create_build(struct worker *w, const struct slot *s,
			const struct op *op, void *arg, int *set);
void queue_create_done(struct worker *w, const struct slot *s,
		       const void *arg);
void queue_gen_post(struct rng *r, const struct fuzz_model *m,
		    struct op *op);
void queue_run_post(struct worker *w, const struct op *op);
void queue_run_reap(struct worker *w, const struct op *op);
void queue_run_ctl(struct worker *w, const struct op *op);
void queue_run_reset(struct worker *w, const struct op *op);
void queue_run_destroy(struct worker *w, const struct op *op);
/*
 * The device slot of the n-th (modulo their number) queue whose creating
 * file a slot still holds, or dflt.
 */
const struct slot *queue_file_slot(const struct worker *w, uint64_t n,
				   const struct slot *dflt);
/* Whether this process holds a queue (a descriptor or a mapping). */
bool queue_held(const struct worker *w);
/* A spawned process holds them too. */
void queue_share(struct worker *w);
/* Destroys every queue: unmapped and closed. */
void queue_clear_all(struct worker *w);

/* Netlink (fuzz_nl.c). */
void nl_gen_open(struct rng *r, const struct fuzz_model *m, struct op *op);
void nl_gen_request(struct rng *r, const struct fuzz_model *m, struct op *op);
void nl_exec_open(struct worker *w, const struct op *op);
void nl_exec_request(struct worker *w, const struct op *op);
void nl_exec_drain(struct worker *w, const struct op *op);
/* Appends a short description of a request to buf. */
void nl_describe(const struct nl_request *req, char *buf, size_t len);

#endif
