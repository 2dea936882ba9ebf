/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tools/soak/soak.h - what the processes of the soak run (tools/soak/)
 * share: the run's settings, the counters every worker keeps in memory
 * shared with the supervisor (so that they outlive a SIGKILL), the fault
 * process's counts, the probe's latencies, and the functions each file
 * of the program offers the others.
 *
 * Processes: soak.c's supervisor forks the workers (worker.c), the fault
 * process (fault.c) and the latency probe (probe.c), respawns the workers
 * the fault process kills, samples kernel memory (mem.c) and at the end
 * checks and reports everything (report.c).
 */
#ifndef UBFAB_SOAK_H
#define UBFAB_SOAK_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "libubfab.h"

/* What a worker does, each counted per completion status. */
enum soak_op {
	SOP_NOP,
	SOP_WRITE,
	SOP_READ,
	SOP_WRITE_NOTIFY,
	SOP_CAS,
	SOP_SWAP,
	SOP_FETCH_ADD,
	SOP_FETCH_AND,
	SOP_FETCH_OR,
	SOP_FETCH_XOR,
	SOP_COPY,
	SOP_FILL,
	SOP_COMPUTE,
	SOP_EVENT_RECORD,
	SOP_EVENT_WAIT,
	SOP_WAIT_VALUE,
	SOP_WIN_STORE,		/* CPU stores through the import's mapping */
	SOP_WIN_LOAD,		/* CPU loads through it */
	SOP_CYCLE,		/* unexport, revoked write, re-export, re-import */
	SOP_PROBE,		/* the probe's 64-byte WRITE */
	SOP_COUNT
};

/*
 * Statuses: enum ubfab_cqe_status up to SST_LAST_CQE, then SST_SIGBUS for
 * a window access or a verification a fault cut short (the memory was
 * freed under it), SST_SETUP for a cycle whose export or import failed
 * (an entity reset came in between), and SST_UNKNOWN for a completion
 * status newer than the soak (soak_status()).
 */
#define SST_LAST_CQE	UBFAB_CQE_REMOTE_OP
#define SST_SIGBUS	(SST_LAST_CQE + 1)
#define SST_SETUP	(SST_LAST_CQE + 2)
#define SST_UNKNOWN	(SST_LAST_CQE + 3)
#define SST_COUNT	(SST_LAST_CQE + 4)

/* Where a completion's @status is counted. */
static inline unsigned int soak_status(uint8_t status)
{
	return status <= SST_LAST_CQE ? status : SST_UNKNOWN;
}

/**
 * struct soak_slot - one worker's (or the probe's) counters, in shared
 *	memory; a respawned worker goes on counting in its slot
 * @ops: completions per enum soak_op and status
 * @sent_bytes: what the worker saw the fabric carry: the bytes of every
 *	completed remote entry (cqe bytes, failed ones' partial chunks
 *	included) and 8 for each WRITE_NOTIFY's notify add that completed OK
 * @inflight_bytes: the most the entries posted and not yet reaped can
 *	carry; the supervisor moves it to @lost_bytes when it reaps a
 *	killed worker
 * @lost_bytes: the sum of @inflight_bytes at the worker's deaths
 * @ok_data_bytes: bytes of data entries (WRITE, READ, WRITE_NOTIFY, COPY,
 *	FILL) and window stores and loads that completed OK
 * @verified_bytes: of those, the bytes whose payload was checked
 * @unverified_bytes: of those, the bytes whose check a fault cut short
 *	(SIGBUS: an entity reset freed the memory), or a SIGKILL (the
 *	supervisor adds what a killed worker had counted OK and not yet
 *	checked, at most SOAK_MAX_CHECK)
 * @corrupt_ops: entries or accesses whose payload did not match
 * @corrupt_bytes: the bytes that did not match
 * @results_checked: atomics, notify words, events and waits whose result
 *	was checked against the worker's own expectation
 * @bad_results: of those, the ones that did not match; and writes through
 *	a revoked import that did not fail
 * @bad_op, @bad_got, @bad_want: the last of them: its op (enum soak_op),
 *	what it gave and what the worker expected
 * @rebuilds: times the worker dropped its memory, segment and import and
 *	made them anew (after an entity reset or a revocation it did not
 *	cause)
 * @cycles: export/import/revoke cycles
 * @hangs: completions that did not come within SOAK_WAIT_MS; and killed
 *	workers that had counted more than SOAK_MAX_CHECK bytes OK unchecked
 * @setup_failures: times the worker could not set up and exited
 * @spawns: times a process ran in this slot
 * @killed: times the fault process's SIGKILL ended it
 * @pid: the process now in the slot, 0 if none
 * @eid: the entities it acts as: [0] the target (exports its memory),
 *	[1] the initiator (runs the queues)
 * @err: the last setup error, for the report
 */
struct soak_slot {
	uint64_t ops[SOP_COUNT][SST_COUNT];
	uint64_t sent_bytes;
	uint64_t inflight_bytes;
	uint64_t lost_bytes;
	uint64_t ok_data_bytes;
	uint64_t verified_bytes;
	uint64_t unverified_bytes;
	uint64_t corrupt_ops;
	uint64_t corrupt_bytes;
	uint64_t results_checked;
	uint64_t bad_results;
	uint64_t bad_got;
	uint64_t bad_want;
	uint32_t bad_op;
	uint64_t rebuilds;
	uint64_t cycles;
	uint64_t hangs;
	uint64_t setup_failures;
	uint64_t spawns;
	uint64_t killed;
	pid_t pid;
	uint32_t eid[2];
	char err[96];
};

/* What the fault process did; errors are failed netlink requests. */
enum soak_fault {
	SF_PORT_FLAP,
	SF_ISOLATE,
	SF_PLANE_FLAP,
	SF_ENTITY_RESET,
	SF_KILL,
	SF_COUNT
};

/* The probe's samples: one a SOAK_PROBE_MS, at most this many a minute. */
#define SOAK_PROBE_MS		100
#define SOAK_PROBE_PER_MIN	(60000 / SOAK_PROBE_MS)
#define SOAK_MAX_MINUTES	1440

/* The longest single payload check a worker makes, in bytes. */
#define SOAK_MAX_CHECK		(72 * 1024u)

/* How long a worker waits for a completion before it calls it a hang. */
#define SOAK_WAIT_MS		20000

/**
 * struct soak_shared - the memory all processes of the run share
 * @stop: set by the supervisor at the end: finish and exit
 * @start_ns: CLOCK_MONOTONIC at the start of the load
 * @seed: the run's seed
 * @workers: worker slots in use
 * @planes: planes of the fabric
 * @faults: what the fault process did, per enum soak_fault
 * @fault_errors: its requests that failed
 * @probe_n: samples per minute of the run
 * @probe_fail: probes that did not complete OK (faults), per minute
 * @probe_us: the probe's latencies, microseconds, per minute
 * @slot: the workers' slots, then the probe's
 */
struct soak_shared {
	volatile int stop;
	uint64_t start_ns;
	uint64_t seed;
	uint32_t workers;
	uint32_t planes;
	uint64_t faults[SF_COUNT];
	uint64_t fault_errors;
	uint32_t probe_n[SOAK_MAX_MINUTES];
	uint32_t probe_fail[SOAK_MAX_MINUTES];
	uint32_t probe_us[SOAK_MAX_MINUTES][SOAK_PROBE_PER_MIN];
	struct soak_slot slot[];
};

/* The probe's slot. */
static inline struct soak_slot *soak_probe_slot(struct soak_shared *sh)
{
	return &sh->slot[sh->workers];
}

/* Kernel memory at one moment (mem.c), in kB. */
struct soak_mem {
	uint64_t t_s;		/* seconds since the start of the load */
	uint64_t slab_kb;	/* Slab */
	uint64_t sunreclaim_kb;	/* SUnreclaim */
	uint64_t vmalloc_kb;	/* VmallocUsed */
	uint64_t used_kb;	/* MemTotal - MemFree: pages in use */
	uint64_t kmalloc_kb;	/* the kmalloc-* caches' active objects */
};

/* mem.c */
int soak_mem_sample(struct soak_mem *m, uint64_t t_s);

/* The run's settings (soak.c's options). */
struct soak_cfg {
	unsigned int seconds;
	unsigned int workers;
	unsigned int warmup_s;
	uint64_t seed;
	const char *json;
};

/* A pseudo-random generator per process (xorshift64*). */
static inline uint64_t soak_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

/* A seed from the run's seed and two numbers (splitmix64 finaliser). */
static inline uint64_t soak_seed(uint64_t seed, uint64_t a, uint64_t b)
{
	uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (a * 1000003 + b + 1);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return (z ^ (z >> 31)) | 1;
}

uint64_t soak_now_ns(void);
void soak_sleep_ms(unsigned int ms);

/* worker.c: slot @slot's process; returns its exit status. */
int soak_worker(struct soak_shared *sh, unsigned int slot,
		const struct ubfab_fabric_info *fab);
/* probe.c */
int soak_probe(struct soak_shared *sh, const struct ubfab_fabric_info *fab);
/* fault.c */
int soak_fault(struct soak_shared *sh);

/* report.c: the summary as text on @out and JSON in cfg->json. */
struct soak_report_in {
	const struct soak_cfg *cfg;
	struct soak_shared *sh;
	const struct soak_mem *mem;
	unsigned int nmem;
	struct ubfab_stats fabric;	/* growth of the ports' counters, summed */
	unsigned int elapsed_s;
	const char *kernel;
};
int soak_report(const struct soak_report_in *in, FILE *out);

extern const char *const soak_op_names[SOP_COUNT];
extern const char *const soak_status_names[SST_COUNT];

#endif /* UBFAB_SOAK_H */
