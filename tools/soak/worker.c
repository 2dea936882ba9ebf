// SPDX-License-Identifier: GPL-2.0-only
/*
 * tools/soak/worker.c - one worker of the soak run: a process acting as
 * two entities on different nodes, the initiator (an NPU die, which runs a
 * doorbell queue and a polling queue) and the target (a CPU or an NPU die,
 * which exports a segment the initiator imports and maps: the window).
 *
 * It posts batches of 1-4 entries drawn at random from every op, each in
 * a lane of its own (disjoint ranges and words, so that the entries of a
 * batch can be checked independently); between batches, CPU stores and
 * loads through the window, and now and then an export/import/revoke
 * cycle. It keeps a shadow of what the target segment must hold and of
 * every word it changes, and checks every completion that is OK: written
 * data read back through the target's own mapping, read data against the
 * shadow, atomics' and waits' results against what it expects. A failed
 * entry (a fault: NO_ROUTE, REVOKED, ...) resets the queue and resyncs the
 * shadow from memory; an entity reset (its event, or SIGBUS on a mapping
 * it freed) makes the worker build its memory anew. Everything is
 * counted in its shared slot (struct soak_slot).
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "soak.h"

#define PAGE		4096u
#define LANES		4
/* A lane's data: a little more than a plane chunk, so some cross two. */
#define LANE_LEN	SOAK_MAX_CHECK
/* Target segment: the lanes' data, then a page of words. */
#define SEG_DATA	(LANES * LANE_LEN)
#define SEG_LEN		(SEG_DATA + PAGE)
/* Initiator buffer: source lanes, destination lanes, a page of words. */
#define BUF_DST		(LANES * LANE_LEN)
#define BUF_WORDS	(2 * LANES * LANE_LEN)
#define BUF_LEN		(BUF_WORDS + PAGE)
#define TOKEN		0x50a4c0deu
#define RIGHTS		(UBFAB_SEG_READ | UBFAB_SEG_WRITE | UBFAB_SEG_ATOMIC)

/* Words in the target's word page, per lane: the atomic and the notify word. */
#define ATOMIC_WORD(l)	(SEG_DATA + 16 * (l))
#define NOTIFY_WORD(l)	(SEG_DATA + 16 * (l) + 8)

/* One entry of a batch and what its completion must show. */
struct entry {
	enum soak_op op;
	uint32_t len;		/* data bytes */
	uint32_t off;		/* offset of the data in its lane */
	uint64_t expect;	/* result it must carry */
	uint64_t next;		/* the word's value after it, if it ran */
	uint64_t inflight;	/* the most fabric bytes it can carry */
	uint8_t byte;		/* FILL */
};

static struct {
	struct soak_slot *slot;
	uint64_t rng;
	struct ubfab_dev *tgt, *ini;
	struct ubfab_queue *q[2];
	/* the target's allocation and segment, mapped at amap */
	uint64_t aoff;
	uint32_t tid;
	uint8_t *amap;
	/* the initiator's buffer, mapped at bmap */
	uint64_t boff;
	uint8_t *bmap;
	/* the import of the segment by the initiator, mapped at wmap */
	struct ubfab_import imp;
	uint8_t *wmap;
	int have_alloc_a, have_alloc_b, have_seg, have_imp;
	/* what the segment must hold, and the words */
	uint8_t shadow[SEG_DATA];
	uint64_t atomic[LANES], notify[LANES];
	uint64_t events[LANES];
	/* bytes a check in progress covers, and its op, for SIGBUS */
	uint64_t pending;
	enum soak_op cur;
	sigjmp_buf jb;
	volatile sig_atomic_t armed;
} w;

static void on_sigbus(int sig)
{
	(void)sig;
	if (w.armed)
		siglongjmp(w.jb, 1);
	_exit(4);
}

static void set_err(const char *what, int err)
{
	snprintf(w.slot->err, sizeof(w.slot->err), "%s: %s", what,
		 strerror(-err));
}

/* Drop the memory, segment, import and mappings, whatever is left of them. */
static void teardown(void)
{
	if (w.wmap)
		ubfab_unmap(w.wmap, SEG_LEN);
	if (w.have_imp)
		ubfab_dev_unimport(w.ini, w.imp.mmap_offset);
	if (w.have_seg)
		ubfab_dev_unexport(w.tgt, w.tid);
	if (w.amap)
		ubfab_unmap(w.amap, SEG_LEN);
	if (w.bmap)
		ubfab_unmap(w.bmap, BUF_LEN);
	if (w.have_alloc_a)
		ubfab_dev_free(w.tgt, w.aoff);
	if (w.have_alloc_b)
		ubfab_dev_free(w.ini, w.boff);
	w.wmap = w.amap = w.bmap = NULL;
	w.have_imp = w.have_seg = w.have_alloc_a = w.have_alloc_b = 0;
}

/* Export the segment, import and map it: the window. */
static int open_window(void)
{
	void *p;
	int err;

	err = ubfab_dev_export(w.tgt, w.aoff, SEG_LEN, RIGHTS, TOKEN, &w.tid);
	if (err)
		return err;
	w.have_seg = 1;
	err = ubfab_dev_import(w.ini, ubfab_dev_eid(w.tgt), w.tid, TOKEN,
			       RIGHTS, &w.imp);
	if (err)
		return err;
	w.have_imp = 1;
	err = ubfab_dev_map(w.ini, w.imp.mmap_offset, SEG_LEN,
			    PROT_READ | PROT_WRITE, &p);
	if (err)
		return err;
	w.wmap = p;
	return 0;
}

/* Fresh memory, segment and window; the shadow is all zero again. */
static int build(void)
{
	void *p;
	int err;

	teardown();
	err = ubfab_dev_alloc(w.tgt, SEG_LEN, &w.aoff);
	if (err)
		return err;
	w.have_alloc_a = 1;
	err = ubfab_dev_alloc(w.ini, BUF_LEN, &w.boff);
	if (err)
		return err;
	w.have_alloc_b = 1;
	err = ubfab_dev_map(w.tgt, w.aoff, SEG_LEN, PROT_READ | PROT_WRITE, &p);
	if (err)
		return err;
	w.amap = p;
	err = ubfab_dev_map(w.ini, w.boff, BUF_LEN, PROT_READ | PROT_WRITE, &p);
	if (err)
		return err;
	w.bmap = p;
	memset(w.shadow, 0, sizeof(w.shadow));
	memset(w.atomic, 0, sizeof(w.atomic));
	memset(w.notify, 0, sizeof(w.notify));
	return open_window();
}

/* build() until it works: a reset may come in between; 0 or an error. */
static int rebuild(void)
{
	int err = 0, i;

	for (i = 0; i < 50; i++) {
		err = build();
		if (!err)
			return 0;
		soak_sleep_ms(20);
	}
	set_err("build", err);
	return err;
}

/* Take the devices' events; 1 if one says our memory or import is gone. */
static int drain_events(void)
{
	struct ubfab_dev *devs[2] = { w.tgt, w.ini };
	struct ubfab_event ev;
	int gone = 0, i;

	for (i = 0; i < 2; i++)
		while (!ubfab_dev_event_wait(devs[i], &ev, 0))
			if (ev.type == UBFAB_EVENT_RESET ||
			    ev.type == UBFAB_EVENT_OVERFLOW ||
			    (ev.type == UBFAB_EVENT_REVOKED &&
			     ev.reason != UBFAB_REVOKE_UNEXPORT))
				gone = 1;
	return gone;
}

/* A pattern of bytes from a seed, stored where the CPU writes it. */
static void pattern(uint8_t *dst, uint32_t len)
{
	uint64_t s = soak_rand(&w.rng), x = 0;
	uint32_t i;

	for (i = 0; i < len; i++) {
		if (!(i & 7))
			x = soak_rand(&s);
		dst[i] = x >> (8 * (i & 7));
	}
}

/* Compare @len bytes at @got with @want: count what was checked. */
static void check(const uint8_t *got, const uint8_t *want, uint32_t len)
{
	uint32_t i, bad = 0;

	w.pending = len;	/* a SIGBUS leaves these unverified */
	for (i = 0; i < len; i++)
		bad += got[i] != want[i];
	w.pending = 0;
	if (bad) {
		w.slot->corrupt_ops++;
		w.slot->corrupt_bytes += bad;
	}
	w.slot->verified_bytes += len - bad;
}

/* A wrong result of the current op: counted, and kept for the report. */
static void bad_result(uint64_t got, uint64_t want)
{
	w.slot->bad_op = w.cur;
	w.slot->bad_got = got;
	w.slot->bad_want = want;
	w.slot->bad_results++;
}

static void check_result(uint64_t got, uint64_t want)
{
	w.slot->results_checked++;
	if (got != want)
		bad_result(got, want);
}

static uint32_t rand_len(void)
{
	uint64_t r = soak_rand(&w.rng) % 100;

	if (r < 70)
		return 1 + soak_rand(&w.rng) % 4096;
	if (r < 95)
		return 1 + soak_rand(&w.rng) % 32768;
	return 1 + soak_rand(&w.rng) % LANE_LEN;
}

/* Draw entry @l's op and prepare it (and its source data) in @sqe. */
static void prep(struct entry *e, unsigned int l, struct ubfab_sqe *sqe)
{
	static const uint8_t weights[SOP_WIN_STORE] = {
		[SOP_NOP] = 3, [SOP_WRITE] = 20, [SOP_READ] = 16,
		[SOP_WRITE_NOTIFY] = 8, [SOP_CAS] = 4, [SOP_SWAP] = 3,
		[SOP_FETCH_ADD] = 4, [SOP_FETCH_AND] = 3, [SOP_FETCH_OR] = 3,
		[SOP_FETCH_XOR] = 3, [SOP_COPY] = 8, [SOP_FILL] = 6,
		[SOP_COMPUTE] = 3, [SOP_EVENT_RECORD] = 4,
		[SOP_EVENT_WAIT] = 4, [SOP_WAIT_VALUE] = 4,
	};
	uint64_t lane_a = l * LANE_LEN, src = w.boff + l * LANE_LEN;
	uint64_t dst = w.boff + BUF_DST + l * LANE_LEN;
	uint64_t word = w.boff + BUF_WORDS + 8 * l, v, cmp;
	uint32_t r = soak_rand(&w.rng) % 100, sum = 0;
	int op;

	for (op = 0; op < SOP_WIN_STORE; op++) {
		sum += weights[op];
		if (r < sum)
			break;
	}
	memset(e, 0, sizeof(*e));
	e->op = op;
	w.cur = op;	/* its source data is stored below */
	e->len = rand_len();
	e->off = soak_rand(&w.rng) % (LANE_LEN - e->len + 1);
	v = soak_rand(&w.rng);
	switch (op) {
	case SOP_WRITE:
	case SOP_WRITE_NOTIFY:
		pattern(w.bmap + src - w.boff + e->off, e->len);
		if (op == SOP_WRITE) {
			ubfab_prep_write(sqe, src + e->off, ubfab_import_addr(
				&w.imp, lane_a + e->off), e->len);
			e->inflight = e->len;
			break;
		}
		ubfab_prep_write_notify(sqe, src + e->off, ubfab_import_addr(
			&w.imp, lane_a + e->off), e->len,
			ubfab_import_addr(&w.imp, NOTIFY_WORD(l)), 1);
		e->expect = w.notify[l];
		e->next = w.notify[l] + 1;
		e->inflight = e->len + 8;
		break;
	case SOP_READ:
		ubfab_prep_read(sqe, dst + e->off, ubfab_import_addr(
			&w.imp, lane_a + e->off), e->len);
		e->inflight = e->len;
		break;
	case SOP_CAS:
		/* half of them fail their compare */
		cmp = w.atomic[l] ^ (soak_rand(&w.rng) & 1);
		ubfab_prep_atomic(sqe, UBFAB_ATOMIC_CAS, ubfab_import_addr(
			&w.imp, ATOMIC_WORD(l)), v, cmp);
		e->next = cmp == w.atomic[l] ? v : w.atomic[l];
		break;
	case SOP_SWAP:
		ubfab_prep_atomic(sqe, UBFAB_ATOMIC_SWAP, ubfab_import_addr(
			&w.imp, ATOMIC_WORD(l)), v, 0);
		e->next = v;
		break;
	case SOP_FETCH_ADD:
		ubfab_prep_atomic(sqe, UBFAB_ATOMIC_FETCH_ADD,
			ubfab_import_addr(&w.imp, ATOMIC_WORD(l)), v, 0);
		e->next = w.atomic[l] + v;
		break;
	case SOP_FETCH_AND:
		v |= soak_rand(&w.rng);	/* keep some bits */
		ubfab_prep_atomic(sqe, UBFAB_ATOMIC_FETCH_AND,
			ubfab_import_addr(&w.imp, ATOMIC_WORD(l)), v, 0);
		e->next = w.atomic[l] & v;
		break;
	case SOP_FETCH_OR:
		v &= soak_rand(&w.rng);
		ubfab_prep_atomic(sqe, UBFAB_ATOMIC_FETCH_OR,
			ubfab_import_addr(&w.imp, ATOMIC_WORD(l)), v, 0);
		e->next = w.atomic[l] | v;
		break;
	case SOP_FETCH_XOR:
		ubfab_prep_atomic(sqe, UBFAB_ATOMIC_FETCH_XOR,
			ubfab_import_addr(&w.imp, ATOMIC_WORD(l)), v, 0);
		e->next = w.atomic[l] ^ v;
		break;
	case SOP_COPY:
		pattern(w.bmap + src - w.boff + e->off, e->len);
		ubfab_prep_copy(sqe, dst + e->off, src + e->off, e->len);
		break;
	case SOP_FILL:
		e->byte = v;
		ubfab_prep_fill(sqe, dst + e->off, e->byte, e->len);
		break;
	case SOP_COMPUTE:
		ubfab_prep_compute(sqe, 1 + v % 100000);
		break;
	case SOP_EVENT_RECORD:
		ubfab_prep_event_record(sqe, l);
		e->expect = w.events[l] + 1;
		break;
	case SOP_EVENT_WAIT:
		/* a count already reached: it must not wait */
		ubfab_prep_event_wait(sqe, l, w.events[l], 5000);
		e->expect = w.events[l];
		break;
	case SOP_WAIT_VALUE:
		*(volatile uint64_t *)(w.bmap + BUF_WORDS + 8 * l) = v;
		ubfab_prep_wait_value(sqe, word, UBFAB_WAIT_EQ, v, 5000);
		e->expect = v;
		break;
	default:
		e->op = SOP_NOP;
		ubfab_prep_nop(sqe);
		break;
	}
	if (op >= SOP_CAS && op <= SOP_FETCH_XOR) {
		e->expect = w.atomic[l];
		e->inflight = 8;
	}
	if (op != SOP_WRITE && op != SOP_WRITE_NOTIFY && op != SOP_READ &&
	    op != SOP_COPY && op != SOP_FILL)
		e->len = 0;
	ubfab_sqe_set_data(sqe, l);
}

/* Entry @l completed OK: check it, move the shadow on. */
static void verify_ok(const struct entry *e, unsigned int l,
		      const struct ubfab_cqe *cqe)
{
	uint8_t *lane_a = w.amap + l * LANE_LEN;
	uint8_t *src = w.bmap + l * LANE_LEN;
	uint8_t *dst = w.bmap + BUF_DST + l * LANE_LEN;
	uint8_t *sh = w.shadow + l * LANE_LEN;
	uint32_t i;

	w.slot->ok_data_bytes += e->len;
	w.pending = e->len;
	w.cur = e->op;
	switch (e->op) {
	case SOP_WRITE_NOTIFY:
		check_result(cqe->result, e->expect);
		w.notify[l] = e->next;
		check_result(*(volatile uint64_t *)(w.amap + NOTIFY_WORD(l)),
			     e->next);
		/* fall through */
	case SOP_WRITE:
		memcpy(sh + e->off, src + e->off, e->len);
		check(lane_a + e->off, sh + e->off, e->len);
		break;
	case SOP_READ:
		check(dst + e->off, sh + e->off, e->len);
		break;
	case SOP_CAS ... SOP_FETCH_XOR:
		check_result(cqe->result, e->expect);
		w.atomic[l] = e->next;
		check_result(*(volatile uint64_t *)(w.amap + ATOMIC_WORD(l)),
			     e->next);
		break;
	case SOP_COPY:
		check(dst + e->off, src + e->off, e->len);
		break;
	case SOP_FILL:
		w.pending = e->len;
		for (i = 0; i < e->len && dst[e->off + i] == e->byte; i++)
			;
		w.pending = 0;
		if (i < e->len) {
			w.slot->corrupt_ops++;
			w.slot->corrupt_bytes += e->len - i;
		}
		w.slot->verified_bytes += i;
		break;
	case SOP_EVENT_RECORD:
		/* w.events[l] took the count when the batch was reaped */
		check_result(cqe->result, e->expect);
		break;
	case SOP_EVENT_WAIT:
		w.slot->results_checked++;
		if (cqe->result < e->expect)
			bad_result(cqe->result, e->expect);
		break;
	case SOP_WAIT_VALUE:
		check_result(cqe->result, e->expect);
		break;
	default:
		break;
	}
	w.pending = 0;
}

/*
 * Entry @l failed: what it may have changed is unknown, so take it from
 * memory (a partial write leaves whole chunks of either data).
 */
static void resync(const struct entry *e, unsigned int l)
{
	uint8_t *sh = w.shadow + l * LANE_LEN;

	w.cur = e->op;
	switch (e->op) {
	case SOP_WRITE_NOTIFY:
		w.notify[l] = *(volatile uint64_t *)(w.amap + NOTIFY_WORD(l));
		/* fall through */
	case SOP_WRITE:
		memcpy(sh + e->off, w.amap + l * LANE_LEN + e->off, e->len);
		break;
	case SOP_CAS ... SOP_FETCH_XOR:
		w.atomic[l] = *(volatile uint64_t *)(w.amap + ATOMIC_WORD(l));
		break;
	default:
		break;
	}
}

static int is_remote(enum soak_op op)
{
	return op == SOP_WRITE || op == SOP_READ || op == SOP_WRITE_NOTIFY ||
	       (op >= SOP_CAS && op <= SOP_FETCH_XOR);
}

/*
 * Post a batch on queue @q, reap and check it. Return: 0, 1 if the
 * memory must be built anew, or -1 for a hang (the worker then exits).
 */
static int batch(struct ubfab_queue *q)
{
	struct ubfab_sqe sqe[LANES];
	struct ubfab_cqe cqe[LANES], *c;
	struct entry ent[LANES];
	unsigned int n = 1 + soak_rand(&w.rng) % LANES, i, l;
	int failed = 0, gone = 0, err;

	/* prepared aside: a SIGBUS here leaves nothing in the SQ */
	for (i = 0; i < n; i++)
		prep(&ent[i], i, &sqe[i]);
	for (i = 0; i < n; i++) {
		*ubfab_queue_get_sqe(q) = sqe[i];
		w.slot->inflight_bytes += ent[i].inflight;
	}
	ubfab_queue_submit(q);
	/* all reaped before any check, which a SIGBUS may cut short */
	for (i = 0; i < n; i++) {
		err = ubfab_queue_wait_cqe(q, &c, SOAK_WAIT_MS);
		if (err == -EINTR) {
			i--;
			continue;
		}
		if (err) {
			w.slot->hangs++;
			set_err("wait_cqe", err);
			return -1;
		}
		cqe[i] = *c;
		ubfab_queue_cqe_seen(q);
		l = cqe[i].user_data;
		w.slot->ops[ent[l].op][soak_status(cqe[i].status)]++;
		if (is_remote(ent[l].op))
			w.slot->sent_bytes += cqe[i].bytes +
				(ent[l].op == SOP_WRITE_NOTIFY &&
				 cqe[i].status == UBFAB_CQE_OK ? 8 : 0);
		w.slot->inflight_bytes -= ent[l].inflight;
		/*
		 * The count is the file's, which a rebuild keeps: taken
		 * here, before the checks, which a SIGBUS (a reset taking
		 * the memory) may cut short before they reach this entry
		 */
		if (ent[l].op == SOP_EVENT_RECORD &&
		    cqe[i].status == UBFAB_CQE_OK)
			w.events[l] = cqe[i].result;
	}
	for (i = 0; i < n; i++) {
		l = cqe[i].user_data;
		if (cqe[i].status == UBFAB_CQE_OK) {
			verify_ok(&ent[l], l, &cqe[i]);
			continue;
		}
		failed = 1;
		if (cqe[i].status != UBFAB_CQE_FLUSHED) {
			gone |= cqe[i].status == UBFAB_CQE_REVOKED ||
				cqe[i].status == UBFAB_CQE_LOCAL_RANGE ||
				cqe[i].status == UBFAB_CQE_NO_IMPORT;
			resync(&ent[l], l);
		}
	}
	if (failed)
		ubfab_queue_reset(q);
	return gone || drain_events();
}

/* CPU stores through the window, then loads back through the target. */
static void window_store(void)
{
	unsigned int l = soak_rand(&w.rng) % LANES;
	uint32_t len = 1 + soak_rand(&w.rng) % 4096;
	uint32_t off = soak_rand(&w.rng) % (LANE_LEN - len + 1);
	uint8_t *sh = w.shadow + l * LANE_LEN + off;

	w.cur = SOP_WIN_STORE;
	pattern(sh, len);
	memcpy(w.wmap + l * LANE_LEN + off, sh, len);
	w.slot->ops[SOP_WIN_STORE][UBFAB_CQE_OK]++;
	w.slot->ok_data_bytes += len;
	check(w.amap + l * LANE_LEN + off, sh, len);
}

/* CPU loads through the window, against the shadow. */
static void window_load(void)
{
	unsigned int l = soak_rand(&w.rng) % LANES;
	uint32_t len = 1 + soak_rand(&w.rng) % 4096;
	uint32_t off = soak_rand(&w.rng) % (LANE_LEN - len + 1);

	w.cur = SOP_WIN_LOAD;
	w.slot->ops[SOP_WIN_LOAD][UBFAB_CQE_OK]++;
	w.slot->ok_data_bytes += len;
	check(w.wmap + l * LANE_LEN + off, w.shadow + l * LANE_LEN + off, len);
}

/*
 * Unexport the segment: a WRITE through the import must now fail with
 * REVOKED; then drop the import, export anew and import again.
 * Return: 0, or 1 if the memory must be built anew.
 */
static int cycle(struct ubfab_queue *q)
{
	struct ubfab_cqe *cqe, c;
	int err;

	w.slot->ops[SOP_CYCLE][UBFAB_CQE_OK]++;
	w.slot->cycles++;
	if (ubfab_dev_unexport(w.tgt, w.tid))
		return 1;
	w.have_seg = 0;
	ubfab_prep_write(ubfab_queue_get_sqe(q), w.boff,
			 ubfab_import_addr(&w.imp, 0), 64);
	w.slot->inflight_bytes += 64;
	ubfab_queue_submit(q);
	do {
		err = ubfab_queue_wait_cqe(q, &cqe, SOAK_WAIT_MS);
	} while (err == -EINTR);
	if (err) {
		w.slot->hangs++;
		return 1;
	}
	c = *cqe;
	ubfab_queue_cqe_seen(q);
	w.slot->ops[SOP_WRITE][soak_status(c.status)]++;
	w.slot->sent_bytes += c.bytes;
	w.slot->inflight_bytes -= 64;
	w.slot->results_checked++;
	if (c.status == UBFAB_CQE_OK) {
		/* through a revoked import */
		w.cur = SOP_CYCLE;
		bad_result(c.status, UBFAB_CQE_REVOKED);
	}
	ubfab_queue_reset(q);
	ubfab_unmap(w.wmap, SEG_LEN);
	w.wmap = NULL;
	ubfab_dev_unimport(w.ini, w.imp.mmap_offset);
	w.have_imp = 0;
	drain_events();
	err = open_window();
	if (err) {
		w.slot->ops[SOP_CYCLE][UBFAB_CQE_OK]--;
		w.slot->ops[SOP_CYCLE][SST_SETUP]++;
		return 1;
	}
	return 0;
}

/* The entities of worker @i: spread over the nodes, never the same node. */
static void entities(unsigned int i, const struct ubfab_fabric_info *fab,
		     char *tgt, char *ini, size_t len)
{
	uint32_t npu = (i * 12) % fab->npus;

	snprintf(ini, len, "npu%u", npu);
	if (i % 2 == 0)
		snprintf(tgt, len, "cpu%u", (i * 3 + 1) % fab->cpus);
	else
		snprintf(tgt, len, "npu%u", (npu + 6 + fab->npus / 2) %
			 fab->npus);
}

int soak_worker(struct soak_shared *sh, unsigned int slot,
		const struct ubfab_fabric_info *fab)
{
	struct ubfab_queue_attr poll = UBFAB_QUEUE_ATTR_INIT;
	struct sigaction sa = { .sa_handler = on_sigbus };
	char tgt[UBFAB_NAME_MAX], ini[UBFAB_NAME_MAX];
	volatile unsigned long iter = 0;
	struct soak_slot *s = &sh->slot[slot];
	int err, r, pick;

	w.slot = s;
	w.rng = soak_seed(sh->seed, slot, s->spawns);
	sigaction(SIGBUS, &sa, NULL);
	entities(slot, fab, tgt, ini, sizeof(tgt));
	poll.flags = UBFAB_QUEUE_POLL;
	poll.sq_entries = 16;
	err = ubfab_dev_open(tgt, &w.tgt) ?:
	      ubfab_dev_open(ini, &w.ini) ?:
	      ubfab_queue_create(w.ini, NULL, &w.q[0]) ?:
	      ubfab_queue_create(w.ini, &poll, &w.q[1]);
	if (err) {
		set_err("open", err);
		s->setup_failures++;
		return 3;
	}
	s->eid[0] = ubfab_dev_eid(w.tgt);
	s->eid[1] = ubfab_dev_eid(w.ini);
	if (rebuild()) {
		s->setup_failures++;
		return 3;
	}
	while (!sh->stop) {
		iter++;
		if (sigsetjmp(w.jb, 1)) {
			/* a mapping went away under a check: a reset */
			w.armed = 0;
			s->ops[w.cur][SST_SIGBUS]++;
			s->unverified_bytes += w.pending;
			w.pending = 0;
			drain_events();
			if (rebuild()) {
				s->setup_failures++;
				return 3;
			}
			s->rebuilds++;
			continue;
		}
		w.armed = 1;
		pick = soak_rand(&w.rng) % 100;
		r = 0;
		if (pick < 8)
			window_store();
		else if (pick < 16)
			window_load();
		else if (pick < 18)
			r = cycle(w.q[soak_rand(&w.rng) & 1]);
		else
			r = batch(w.q[soak_rand(&w.rng) & 1]);
		w.armed = 0;
		if (r < 0)
			return 3;
		if (r == 1 || (iter % 32 == 0 && drain_events())) {
			if (rebuild()) {
				s->setup_failures++;
				return 3;
			}
			s->rebuilds++;
		}
	}
	teardown();
	return 0;
}
