/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ubbench: what its parts share. The run (struct bench), a figure and the
 * repetitions that measure it, timing, the entities' helpers, the JSON
 * helpers; and the entry points of each part: mem.c (memory semantics),
 * queue.c (NPU queues), send.c (two-sided messages, for queue.c),
 * uring.c (the io_uring NOP baseline), param.c (the module parameter that
 * turns the model off, for queue.c's cost of the model), model.c (the fabric model against the published figures),
 * spread.c (the model's run-to-run spread, fast mode against ordered)
 * and coll.c (libubshmem's collectives, run as ranks of ubrun).
 */
#ifndef UBBENCH_H
#define UBBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

#include "json.h"
#include "libubfab.h"

#define KiB		1024UL
#define MiB		(1024 * KiB)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The most values median() and percentile() take. */
#define MEDIAN_MAX	4096
/* The most figures one sample_fn measures. */
#define FIGS_MAX	8

#define TOKEN_VALUE	0x75626662U	/* "ubfb" */
#define RIGHTS_RW	(UBFAB_SEG_READ | UBFAB_SEG_WRITE)
#define PROT_RW		(PROT_READ | PROT_WRITE)

/* One measured quantity: a sample per timed repetition and their median. */
struct figure {
	double *samples;
	double median;
};

struct mem_bench;
struct queue_bench;
struct model_bench;
struct spread_bench;
struct scale_bench;
struct send_bench;
struct ep_bench;

/* NPU queue measurements, as `ubbench queue PART` names them. */
enum queue_part { QUEUE_WRITE, QUEUE_READ, QUEUE_RATE, QUEUE_LAT,
		  QUEUE_COST, QUEUE_SCALE, QUEUE_SEND, NR_QUEUE_PARTS };

/* Fabric model measurements, as `ubbench model PART` names them. */
enum model_part { MODEL_TABLE, MODEL_SPREAD, NR_MODEL_PARTS };

struct bench {
	unsigned int iters;
	bool iters_given;		/* --iters: model spread's runs too */
	unsigned int tolerance;		/* model: percent */
	const char *json;
	struct ubfab_dev *exporter;	/* NULL: not opened (model only) */
	struct ubfab_dev *importer;
	size_t page;
	struct mem_bench *mem;		/* NULL: not measured */
	struct queue_bench *queue;	/* NULL: not measured */
	struct model_bench *model;	/* NULL: not measured */
	struct spread_bench *spread;	/* NULL: not measured */
	struct scale_bench *scale;	/* NULL: not measured */
	struct send_bench *send;	/* NULL: not measured */
	unsigned int ep_sizes;		/* ep: the EP sizes to run, a bit each */
	struct ep_bench *ep;		/* NULL: not measured */
};

/*
 * Measures one repetition of the figures measure() was given, into
 * @values in their order; returns 0 or -errno.
 */
typedef int (*sample_fn)(struct bench *b, const void *arg, double *values);

void fail(const char *what, int err);
uint64_t now_ns(void);
double median(const double *samples, unsigned int n);
double percentile(const double *samples, unsigned int n, unsigned int pct);
int measure(struct bench *b, sample_fn fn, const void *arg,
	    struct figure **figs, unsigned int nr);
uint64_t copy_slice(char *dst, const char *src, size_t length, size_t block);
void *map_anon(size_t length);
void *map_apart(size_t length, int fd, uint64_t offset);
int import_and_map(struct bench *b, uint32_t token_id, bool apart,
		   struct ubfab_import *imp, void **addr);
void json_figure(struct json *j, const char *key, const struct figure *fig,
		 unsigned int n);

/* Where the figures were measured, as the JSON files and the table say. */
struct context {
	char kernel[65];	/* struct utsname's release */
	char cpu[128];		/* the model */
	char thp[16];		/* transparent huge pages: always, madvise... */
	char date[32];		/* UTC, ISO 8601 */
};

void context_read(struct context *ctx);
/*
 * --json's file, its top-level object begun with "tool": @tool and the
 * context; NULL if it cannot be opened (printed). json_file_close() ends
 * the object and the file: 0 or -errno (printed).
 */
FILE *json_file_open(const struct bench *b, struct json *j, const char *tool,
		     const struct context *ctx);
int json_file_close(const struct bench *b, struct json *j, FILE *f);
const char *pass_miss(int met);
int nl_open(struct ubfab_nl **nlp);
int entities_dump(struct ubfab_nl *nl, ubfab_entity_cb cb, void *arg);

/* A target of a part, where its figures were measured. */
struct target {
	const char *key;
	const char *name;
	const char *op;		/* ">=" or ">" */
	double value;
	double target;
	bool met;
};

/* mem.c: copies into a peer window, first touch, the import cycle. */
int mem_run(struct bench *b);
void mem_print(const struct bench *b);
void mem_json(const struct bench *b, struct json *j);

/* queue.c: the NPU queue measurements in @parts (1 << enum queue_part). */
int queue_run(struct bench *b, unsigned int parts);
void queue_print(const struct bench *b);
void queue_json(const struct bench *b, struct json *j);

/*
 * queue.c's entries, which scale.c runs too. A job: entry i moves length
 * bytes at i * length from local to remote, the offsets wrapping at span.
 * job_post() posts the next @n entries of @j and submits them; pump()
 * runs @ops entries of @j, @batch a submission, at most the SQ's depth in
 * flight; cq_poll() spins until a completion is there (-ETIMEDOUT after
 * SPIN_MAX_NS); cq_reap() consumes those there are (-EIO if one failed).
 */
#define SPIN_MAX_NS	20000000000ULL	/* then the completion is lost */
/* Spinning on a ring: sched_yield() every SPIN_YIELD looks. */
#define SPIN_YIELD	1024

struct job {
	uint8_t opcode;		/* UBFAB_OP_WRITE or UBFAB_OP_READ */
	uint32_t length;
	uint64_t local;
	uint64_t remote;
	uint64_t span;		/* the offsets wrap at span */
};

int job_post(struct ubfab_queue *q, const struct job *j, unsigned int n,
	     unsigned int *posted, uint64_t *off);
int pump(struct ubfab_queue *q, const struct job *j, unsigned int ops,
	 unsigned int batch);
int cq_poll(struct ubfab_queue *q);
int cq_reap(struct ubfab_queue *q, unsigned int *done);
/* What a loop spinning on a ring does each look (PAUSE on x86). */
void cpu_relax(void);

/*
 * scale.c: a queue per NPU die of the loaded fabric, all at once, against
 * one queue alone (queue_run() runs it, queue_print() and queue_json()
 * report it); scale_targets() puts its target, if measured, into @t and
 * says how many (0 or 1).
 */
#define SCALE_OPS	256	/* entries per queue in an aggregate run */
int scale_run(struct bench *b);
unsigned int scale_targets(const struct bench *b, struct target *t);
void scale_print(const struct bench *b);
void scale_json(const struct bench *b, struct json *j);

/*
 * send.c: two-sided messages between the importer and the exporter,
 * SEND_IMM ping-pong latency and SEND message rate (queue_run() runs it,
 * queue_print() and queue_json() report it).
 */
int send_run(struct bench *b);
void send_print(const struct bench *b);
void send_json(const struct bench *b, struct json *j);

/*
 * model.c: the 16 cells of the published table from modeled times;
 * model_missed() is how many are beyond b->tolerance.
 */
int model_run(struct bench *b);
unsigned int model_missed(const struct bench *b);
void model_print(const struct bench *b);
/* The "model" object: model.c's cells and spread.c's spread, those run. */
void model_json(const struct bench *b, struct json *j);

/*
 * spread.c: a contention workload's modeled times over several runs in
 * the fast mode and in the ordered domain; spread_differed() is how many
 * completions of the ordered domain differed between runs (0, or a
 * determinism bug). Runs of each mode: --iters, else SPREAD_RUNS; at
 * least SPREAD_RUNS_MIN.
 */
#define SPREAD_RUNS	5
#define SPREAD_RUNS_MIN	2
int spread_run(struct bench *b);
unsigned int spread_differed(const struct bench *b);
void spread_print(const struct bench *b);
void spread_json(const struct bench *b, struct json *j);

/*
 * param.c: the module parameter "model", taken (0; -ENOENT: no such
 * parameter; -EACCES, -EPERM, -EROFS: not root), switched, put back to the
 * value found, also by a signal that ends ubbench while it is taken.
 */
#define MODEL_PARAM	"/sys/module/ubfab/parameters/model"
int model_param_take(bool *was_on);
int model_param_set(bool on);
int model_param_restore(void);

/* uring.c: an io_uring instance that runs NOPs. */
struct uring;
int uring_open(unsigned int entries, struct uring **rp);
void uring_close(struct uring *r);
int uring_nops(struct uring *r, unsigned int ops, unsigned int batch);

/*
 * coll.c: `ubbench coll`, libubshmem's collectives as nccl-tests measures
 * NCCL's: outside a job it re-executes ubbench under ubrun as @ranks
 * ranks placed by @placement; in a rank it measures (rank 0 reports).
 * @max_size 0: the launcher picks it from the memory available. @check:
 * every rank checks its outputs against the CPU's reference
 * (tools/common/coll_ref.h). Returns the exit status.
 */
struct coll_opts {
	unsigned int ranks;
	const char *placement;
	size_t max_size;
	bool check;
};

#define COLL_RANKS	16
#define COLL_RANKS_MAX	768
#define COLL_ITERS	3	/* timed ops a row without --iters */
int coll_main(struct bench *b, const struct coll_opts *o, int argc,
	      char **argv);
/* coll and ep: whether the ranks run in the ordered domain (--ordered). */
bool bench_ordered(void);

/*
 * ep.c: MoE dispatch and combine at EP 8 .. 256 (b->ep_sizes), each a job
 * of ranks of ubbench itself under ubrun; ep_rank_main() is such a rank.
 */
int ep_run(struct bench *b);
void ep_print(const struct bench *b);
void ep_json(const struct bench *b, struct json *j);
int ep_rank_main(void);
bool ep_rank(void);
unsigned int ep_parse_sizes(const char *list);
#define EP_SIZES_ALL	(8 | 16 | 32 | 64 | 128 | 256)

#endif /* UBBENCH_H */
