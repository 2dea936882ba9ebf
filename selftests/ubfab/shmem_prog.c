// SPDX-License-Identifier: GPL-2.0
/*
 * The rank program of shmem_test: started by ubrun, it checks every call
 * of libubshmem against what the CPU computes, as one rank of the job,
 * and exits nonzero (printing what failed) if any check fails. Linked
 * dynamically (shmem_prog_mpi), shmem_mpi.sh runs it under mpirun.
 *
 *   shmem_prog all      every call: teams, the heap, ptr, put/get, put_signal and
 *                       each comparison, atomics, fence, quiet, barrier,
 *                       the modeled clock
 *   shmem_prog coll     every collective (broadcast, all-gather, all-reduce
 *                       of int32, float and bf16, all-to-all) at several
 *                       sizes against the CPU's result, and its modeled time
 *   shmem_prog teams    teams split by a stride, and every collective over
 *                       the world, a strided team, an odd one split from
 *                       it and the node teams against the CPU's result
 *                       (a job of 16 over 4 nodes)
 *   shmem_prog redops   the reductions beyond the sum (product, min, max,
 *                       and, or, xor) of each type they take, all-reduce
 *                       by both algorithms and reduce-scatter, over the
 *                       world and every other PE, against the CPU's result
 *   shmem_prog env      print the rank's place and environment, one line
 *   shmem_prog lines    print lines on stdout and stderr, then a partial one
 *   shmem_prog fail R   rank R exits 3 after init; the others wait in a
 *                       barrier for ever
 *   shmem_prog hang     every rank waits for a signal that never comes
 *   shmem_prog skip R   rank R exits 0 without joining; the others' init
 *                       must fail, not wait for it
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "coll_ref.h"
#include "ubshmem.h"

static int me, npes, failures;
static uint64_t last_ns;

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "FAIL: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	failures++;
}

#define CHECK(cond, ...) do { if (!(cond)) fail(__VA_ARGS__); } while (0)
#define OK(call) do { int _e = (call); \
	if (_e) fail("%s: %s", #call, strerror(-_e)); } while (0)

/* The modeled clock moved on since the last look. */
static void clock_moved(const char *what)
{
	uint64_t ns = ubshmem_model_ns();

	CHECK(ns > last_ns, "%s: model_ns %llu, was %llu", what,
	      (unsigned long long)ns, (unsigned long long)last_ns);
	last_ns = ns;
}

static unsigned char pattern(int pe, size_t size, size_t i)
{
	return (unsigned char)(pe * 131 + size * 7 + i * 13 + (i >> 8));
}

static void fill(unsigned char *p, int pe, size_t size)
{
	size_t i;

	for (i = 0; i < size; i++)
		p[i] = pattern(pe, size, i);
}

static int same(const unsigned char *p, int pe, size_t size)
{
	size_t i;

	for (i = 0; i < size; i++)
		if (p[i] != pattern(pe, size, i))
			return 0;
	return 1;
}

/* ubrun's variable @ubrun, or under mpirun Open MPI's @ompi; -1 if neither. */
static int launcher_int(const char *ubrun, const char *ompi)
{
	const char *v = getenv(ubrun) ? getenv(ubrun) : getenv(ompi);

	return v ? atoi(v) : -1;
}

/*
 * Under mpirun there is no UBRUN_ENTITY: shmem_mpi.sh checks the entity
 * and the node team from the line main() prints.
 */
static void check_teams(void)
{
	const struct ubshmem_team *w = ubshmem_team_world();
	const struct ubshmem_team *node = ubshmem_team_node();
	const char *e = getenv("UBRUN_ENTITY");
	int i;

	CHECK(me == launcher_int("UBRUN_RANK", "OMPI_COMM_WORLD_RANK"),
	      "my_pe %d", me);
	CHECK(npes == launcher_int("UBRUN_SIZE", "OMPI_COMM_WORLD_SIZE"),
	      "n_pes %d", npes);
	CHECK(ubshmem_team_n_pes(w) == npes && ubshmem_team_my_pe(w) == me,
	      "world team");
	if (e) {
		CHECK(!strcmp(ubshmem_entity(), e), "entity %s",
		      ubshmem_entity());
		CHECK(ubshmem_team_n_pes(node) ==
		      atoi(getenv("UBRUN_LOCAL_SIZE")),
		      "node team of %d PEs", ubshmem_team_n_pes(node));
		CHECK(ubshmem_team_my_pe(node) ==
		      atoi(getenv("UBRUN_LOCAL_RANK")),
		      "node team index %d", ubshmem_team_my_pe(node));
	}
	for (i = 1; i < ubshmem_team_n_pes(node); i++)
		CHECK(ubshmem_team_translate_pe(node, i) >
		      ubshmem_team_translate_pe(node, i - 1), "node team order");
	CHECK(ubshmem_team_translate_pe(node, -1) == -1 &&
	      ubshmem_team_translate_pe(w, npes) == -1, "translate out of range");
}

/*
 * Blocks are aligned, reused once freed, at the same offset in every PE
 * (PE 0 compares them), and a block beyond the heap is ENOMEM.
 */
static void check_heap(void)
{
	uint64_t *offs = ubshmem_malloc(npes * sizeof(*offs)), off;
	char *a = ubshmem_malloc(1000), *b = ubshmem_malloc(3000), *c;
	int pe;

	CHECK(offs && a && b && !((uintptr_t)a % 64) && !((uintptr_t)b % 64),
	      "malloc: %p %p", (void *)a, (void *)b);
	ubshmem_free(a);
	c = ubshmem_malloc(500);
	CHECK(c == a, "the freed block not reused");
	off = b - (char *)offs;
	OK(ubshmem_put(&offs[me], &off, sizeof(off), 0));
	OK(ubshmem_barrier_all());
	for (pe = 0; !me && pe < npes; pe++)
		CHECK(offs[pe] == off, "PE %d's block at %llu, PE 0's at %llu", pe,
		      (unsigned long long)offs[pe], (unsigned long long)off);
	errno = 0;
	CHECK(!ubshmem_malloc(1ULL << 40) && errno == ENOMEM,
	      "malloc beyond the heap");
	ubshmem_free(c);
	ubshmem_free(b);
	ubshmem_free(offs);
}

/* Stores through ubshmem_ptr() land in the peer's heap. */
static void check_ptr(void)
{
	uint64_t *w = ubshmem_malloc(2 * sizeof(*w));
	int right = (me + 1) % npes, left = (me + npes - 1) % npes;
	uint64_t *p;

	p = ubshmem_ptr(w, right);
	CHECK(p != NULL, "ptr to PE %d: %s", right, strerror(errno));
	CHECK(ubshmem_ptr(w, me) == w, "ptr to myself");
	CHECK(!ubshmem_ptr(w, npes) && !ubshmem_ptr(&me, right), "ptr NULL");
	if (p)
		__atomic_store_n(p, 1000 + me, __ATOMIC_RELEASE);
	OK(ubshmem_barrier_all());
	CHECK(w[0] == (uint64_t)(1000 + left), "ptr store from %d: %llu",
	      left, (unsigned long long)w[0]);
	if (p)
		CHECK(__atomic_load_n(p, __ATOMIC_ACQUIRE) == (uint64_t)(1000 + me),
		      "ptr load");
	ubshmem_free(w);
}

static const size_t sizes[] = { 1, 7, 4096, 65537, UBSHMEM_STAGING + 4097 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define BIG (UBSHMEM_STAGING + 4097)

/*
 * Puts and gets of each size, blocking and not, from and to the heap and
 * private memory: the bytes arrive.
 */
static void check_rma(void)
{
	unsigned char *src = ubshmem_malloc(BIG), *dst = ubshmem_malloc(BIG);
	unsigned char *priv = malloc(BIG), *priv2 = malloc(BIG);
	int right = (me + 1) % npes, left = (me + npes - 1) % npes;
	size_t s;
	int nbi, heap;

	for (s = 0; s < NSIZES; s++) {
		size_t size = sizes[s];

		for (nbi = 0; nbi < 2; nbi++) {
			for (heap = 0; heap < 2; heap++) {
				unsigned char *from = heap ? src : priv;

				fill(from, me, size);
				if (nbi) {
					OK(ubshmem_put_nbi(dst, from, size, right));
					OK(ubshmem_quiet());
				} else {
					OK(ubshmem_put(dst, from, size, right));
				}
				clock_moved("put");
				OK(ubshmem_barrier_all());
				CHECK(same(dst, left, size), "put of %zu (nbi %d heap %d)",
				      size, nbi, heap);
				OK(ubshmem_barrier_all());
			}
		}
		/* get the left neighbour's src: into private memory and the heap */
		fill(src, me, size);
		OK(ubshmem_barrier_all());
		memset(priv2, 0, size);
		OK(ubshmem_get(priv2, src, size, left));
		CHECK(same(priv2, left, size), "get of %zu", size);
		memset(dst, 0, size);
		OK(ubshmem_get_nbi(dst, src, size, left));
		memset(priv2, 0, size);
		OK(ubshmem_get_nbi(priv2, src, size, left));
		OK(ubshmem_quiet());
		clock_moved("get");
		CHECK(same(dst, left, size) && same(priv2, left, size),
		      "get_nbi of %zu", size);
		OK(ubshmem_barrier_all());
	}
	CHECK(ubshmem_put(priv, src, 1, right) == -EINVAL, "put to private");
	CHECK(ubshmem_get(priv, priv2, 1, right) == -EINVAL, "get from private");
	CHECK(ubshmem_put(dst, src, 1, npes) == -EINVAL, "put to PE n");
	free(priv);
	free(priv2);
	ubshmem_free(dst);
	ubshmem_free(src);
}

/*
 * put_signal to the right neighbour, waited for with each comparison:
 * the data is there when the wait ends.
 */
static void check_signal(void)
{
	static const struct {
		int cmp, op;
		uint64_t init, signal, value, seen;
	} c[] = {
		{ UBSHMEM_CMP_EQ, UBSHMEM_SIGNAL_SET, 0, 42, 42, 42 },
		{ UBSHMEM_CMP_NE, UBSHMEM_SIGNAL_SET, 0, 7, 0, 7 },
		{ UBSHMEM_CMP_GT, UBSHMEM_SIGNAL_ADD, 0, 3, 2, 3 },
		{ UBSHMEM_CMP_GE, UBSHMEM_SIGNAL_ADD, 5, 4, 9, 9 },
		{ UBSHMEM_CMP_LT, UBSHMEM_SIGNAL_SET, UINT64_MAX, 1, 2, 1 },
		{ UBSHMEM_CMP_LE, UBSHMEM_SIGNAL_ADD, UINT64_MAX, 6, 5, 5 },
	};
	int n = sizeof(c) / sizeof(c[0]), right = (me + 1) % npes;
	int left = (me + npes - 1) % npes, i;
	uint64_t *sig = ubshmem_malloc(n * sizeof(*sig)), seen;
	unsigned char *data = ubshmem_malloc(n * 65536), *priv = malloc(65536);

	for (i = 0; i < n; i++)
		sig[i] = c[i].init;
	OK(ubshmem_barrier_all());
	for (i = 0; i < n; i++) {
		fill(priv, me, 65536 - i);
		OK(ubshmem_put_signal(data + i * 65536, priv, 65536 - i, &sig[i],
				      c[i].signal, c[i].op, right));
		seen = 0;
		OK(ubshmem_signal_wait_until(&sig[i], c[i].cmp, c[i].value, &seen));
		CHECK(seen == c[i].seen, "cmp %d: seen %llu", c[i].cmp,
		      (unsigned long long)seen);
		CHECK(same(data + i * 65536, left, 65536 - i),
		      "data with the signal of cmp %d", c[i].cmp);
	}
	clock_moved("signal");
	CHECK(ubshmem_signal_wait_until(&sig[0], 6, 0, NULL) == -EINVAL,
	      "bad cmp");
	CHECK(ubshmem_put_signal(data, priv, 1, &sig[0], 1, 2, right) == -EINVAL,
	      "bad signal op");
	free(priv);
	ubshmem_free(data);
	ubshmem_free(sig);
}

/* Every PE at once on PE 0's words; the results the CPU expects. */
static void check_atomics(void)
{
	uint64_t *w = ubshmem_malloc(8 * sizeof(*w)), old, cur, sum = 0;
	uint64_t *fetched = ubshmem_malloc(npes * sizeof(*w));
	uint64_t mask = npes >= 64 ? ~0ULL : (1ULL << npes) - 1;
	uint64_t expect_sum = (uint64_t)npes * (npes + 1) / 2;
	int i;

	if (!me) {
		w[3] = ~0ULL;
		w[2] = 0;
	}
	OK(ubshmem_barrier_all());
	for (i = 0; i < 10; i++)
		OK(ubshmem_atomic_fetch_add(&w[0], me + 1, 0, NULL));
	for (i = 0; i < 5; i++) {	/* a CAS loop increments w[1] */
		OK(ubshmem_atomic_fetch_add(&w[1], 0, 0, &cur));
		do {
			old = cur;
			OK(ubshmem_atomic_compare_swap(&w[1], old, old + 1, 0, &cur));
		} while (cur != old);
	}
	OK(ubshmem_atomic_swap(&w[2], me + 1, 0, &old));
	OK(ubshmem_put(&fetched[me], &old, sizeof(old), 0));
	OK(ubshmem_atomic_fetch_and(&w[3], ~(1ULL << (me % 64)), 0, NULL));
	OK(ubshmem_atomic_fetch_or(&w[4], 1ULL << (me % 64), 0, NULL));
	OK(ubshmem_atomic_fetch_xor(&w[5], 1ULL << (me % 64), 0, NULL));
	OK(ubshmem_atomic_fetch_xor(&w[5], 3ULL << 62, 0, NULL));
	clock_moved("atomics");
	OK(ubshmem_barrier_all());
	if (!me) {
		CHECK(w[0] == 10 * expect_sum, "fetch_add: %llu",
		      (unsigned long long)w[0]);
		CHECK(w[1] == 5ULL * npes, "compare_swap: %llu",
		      (unsigned long long)w[1]);
		/* the swaps chain: 0, then each PE's value, one left in w[2] */
		for (i = 0; i < npes; i++)
			sum += fetched[i];
		CHECK(sum + w[2] == expect_sum && w[2] >= 1 &&
		      w[2] <= (uint64_t)npes, "swap: sum %llu, last %llu",
		      (unsigned long long)sum, (unsigned long long)w[2]);
		CHECK(w[3] == ~mask, "fetch_and: %llx", (unsigned long long)w[3]);
		CHECK(w[4] == mask, "fetch_or: %llx", (unsigned long long)w[4]);
		CHECK(w[5] == (mask ^ (npes % 2 ? 3ULL << 62 : 0)),
		      "fetch_xor: %llx", (unsigned long long)w[5]);
	}
	CHECK(ubshmem_atomic_fetch_add((uint64_t *)((char *)w + 4), 1, 0,
				       NULL) == -EINVAL, "unaligned atomic");
	ubshmem_free(fetched);
	ubshmem_free(w);
}

/*
 * fence orders a flag put after a data put; quiet makes puts visible;
 * barriers separate rounds of fetch_adds.
 */
static void check_order(void)
{
	size_t len = 1 << 20;
	unsigned char *data = ubshmem_malloc(len), *priv = malloc(len);
	uint64_t *flag = ubshmem_malloc(sizeof(*flag)), one = 1, v;
	uint64_t *count = ubshmem_malloc(sizeof(*count));
	int right = (me + 1) % npes, left = (me + npes - 1) % npes, r;

	fill(priv, me, len);
	OK(ubshmem_put_nbi(data, priv, len, right));
	ubshmem_fence();
	OK(ubshmem_put_nbi(flag, &one, sizeof(one), right));
	OK(ubshmem_signal_wait_until(flag, UBSHMEM_CMP_EQ, 1, NULL));
	CHECK(same(data, left, len), "data before the fenced flag");
	OK(ubshmem_quiet());
	OK(ubshmem_barrier_all());

	/* after quiet, the peer's copy has it: read it back through ptr */
	memset(priv, 0x5a, len);
	OK(ubshmem_put_nbi(data, priv, len, right));
	OK(ubshmem_quiet());
	CHECK(!memcmp(ubshmem_ptr(data, right), priv, len),
	      "put visible after quiet");
	OK(ubshmem_barrier_all());

	for (r = 1; r <= 3; r++) {
		OK(ubshmem_atomic_fetch_add(count, 1, 0, NULL));
		OK(ubshmem_barrier_all());
		OK(ubshmem_get(&v, count, sizeof(v), 0));
		CHECK(v == (uint64_t)r * npes, "barrier round %d: count %llu",
		      r, (unsigned long long)v);
		OK(ubshmem_barrier_all());
	}
	clock_moved("barrier");
	free(priv);
	ubshmem_free(count);
	ubshmem_free(flag);
	ubshmem_free(data);
}

/* The teams' PEs a test sizes its arrays for (shmem_test's jobs: 16). */
#define TEAM_MAX	64
/* Every PE's node (coll_ref_nodes()), for the teams' levels. */
static int *node_of;

/* @ti for @t, or a failure. */
static void team_make(struct coll_ref_team *ti, const struct ubshmem_team *t)
{
	OK(coll_ref_team_make(ti, t, node_of));
}

/*
 * Check @dst, the all-reduce of @count elements of @type by @algo and @op
 * (of the sources of seed 0), as coll_ref_check_allreduce() does. Return:
 * the first bad element, or @count.
 */
static size_t check_reduced(const struct coll_ref_team *ti, int algo,
			    int type, int op, size_t count, const void *dst)
{
	size_t bad;

	OK(coll_ref_check_allreduce(ti, algo, type, op, 0, count, dst, &bad));
	return bad;
}

/*
 * The modeled time of a collective, between two barriers: after one, a
 * PE's clock is past every PE's at its start (its waits follow every PE's
 * atomics), so the time is the slowest PE's, not what this one waited.
 */
static uint64_t timed(void)
{
	OK(ubshmem_barrier_all());
	return ubshmem_model_ns();
}

static uint64_t took(uint64_t start)
{
	last_ns = timed();
	return last_ns - start;
}

#define COLL_BIG	(1 << 20)

/* The per-PE sizes of the tests: one, odd, a few KiB, 1 MiB in all. */
static size_t coll_size(int s, size_t all)
{
	static const size_t small[] = { 1, 7, 4099 };

	return s < 3 ? small[s] : all;
}

/*
 * All-reduce of 1, 7 and 4099 elements, and 1 MiB of float (64 Ki
 * elements of int32 and bf16: the CPU's reference costs n additions an
 * element in every PE, which the VM feels at 16 PEs).
 */
static void check_allreduce(void)
{
	static const char *const names[] = { "int32", "float", "bf16" };
	unsigned char *src = ubshmem_malloc(COLL_BIG);
	unsigned char *dst = ubshmem_malloc(COLL_BIG);
	uint64_t ns[4];
	int type, s, algo;
	struct coll_ref_team world;

	team_make(&world, ubshmem_team_world());
	algo = coll_ref_auto_algo(&world);

	for (type = UBSHMEM_INT32; type <= UBSHMEM_BF16; type++) {
		size_t es = type == UBSHMEM_BF16 ? 2 : 4, i;

		for (s = 0; s < 4; s++) {
			size_t count = coll_size(s, type == UBSHMEM_FLOAT ?
						 COLL_BIG / es : 64 << 10);

			for (i = 0; i < count; i++)
				coll_ref_elem(type, UBSHMEM_OP_SUM, 0, me, i, src + i * es);
			memset(dst, 0xee, count * es);
			ns[s] = timed();
			OK(ubshmem_allreduce(dst, src, count, type,
					     UBSHMEM_OP_SUM));
			ns[s] = took(ns[s]);
			i = check_reduced(&world, algo, type, UBSHMEM_OP_SUM,
					  count, dst);
			CHECK(i == count, "allreduce %s of %zu: element %zu",
			      names[type], count, i);
		}
		/*
		 * > 0 only: at 16 PEs the sizes' modeled times do not stand
		 * clear of the order in which PEs' entries meet on the links
		 * (Documentation/shmem.rst, "Tests")
		 */
		CHECK(ns[0] > 0 && ns[2] > 0 && ns[3] > 0,
		      "allreduce %s: modeled %llu, %llu, %llu ns", names[type],
		      (unsigned long long)ns[0], (unsigned long long)ns[2],
		      (unsigned long long)ns[3]);
	}
	CHECK(ubshmem_allreduce(dst, src, 1, 3, UBSHMEM_OP_SUM) == -EINVAL &&
	      ubshmem_allreduce(dst, src, 1, UBSHMEM_INT32,
				UBSHMEM_OP_XOR + 1) == -EINVAL &&
	      ubshmem_allreduce(dst, dst, 1, UBSHMEM_INT32, 0) == -EINVAL,
	      "allreduce: bad arguments accepted");
	coll_ref_team_free(&world);
	ubshmem_free(dst);
	ubshmem_free(src);
}

/* Broadcast, all-gather and all-to-all: bytes of a pattern per PE. */
static void check_moves(void)
{
	size_t big = npes > 4 ? npes * (COLL_BIG / 4) : COLL_BIG;
	unsigned char *src = ubshmem_malloc(big);
	unsigned char *dst = ubshmem_malloc(big);
	uint64_t bc[4], ag[4], a2a[4];
	int s, pe, r, ok;

	for (s = 0; s < 4; s++) {
		size_t size = coll_size(s, COLL_BIG);
		size_t per = coll_size(s, COLL_BIG / npes);
		size_t block = coll_size(s, COLL_BIG / 4);

		/* broadcast from the first, the last and a middle PE */
		for (r = 0; r < 3; r++) {
			int root = (npes - 1) * r / 2;

			fill(src, me, size);
			memset(dst, 0xee, size);
			bc[s] = timed();
			OK(ubshmem_broadcast(dst, src, size, root));
			bc[s] = took(bc[s]);
			CHECK(same(dst, root, size), "broadcast of %zu from %d",
			      size, root);
		}
		fill(src, me, per);
		memset(dst, 0xee, per * npes);
		ag[s] = timed();
		OK(ubshmem_allgather(dst, src, per));
		ag[s] = took(ag[s]);
		for (pe = 0, ok = 1; pe < npes; pe++)
			ok &= same(dst + pe * per, pe, per);
		CHECK(ok, "allgather of %zu", per);
		/* block pe of src is meant for pe: its pattern names both */
		for (pe = 0; pe < npes; pe++)
			fill(src + pe * block, me * npes + pe, block);
		memset(dst, 0xee, block * npes);
		a2a[s] = timed();
		OK(ubshmem_alltoall(dst, src, block));
		a2a[s] = took(a2a[s]);
		for (pe = 0, ok = 1; pe < npes; pe++)
			ok &= same(dst + pe * block, pe * npes + me, block);
		CHECK(ok, "alltoall of %zu", block);
	}
	/* > 0 only, as for all-reduce */
	CHECK(bc[0] > 0 && bc[2] > 0 && bc[3] > 0,
	      "broadcast: modeled %llu, %llu, %llu ns", (unsigned long long)bc[0],
	      (unsigned long long)bc[2], (unsigned long long)bc[3]);
	CHECK(ag[0] > 0 && ag[2] > 0 && ag[3] > 0,
	      "allgather: modeled %llu, %llu, %llu ns", (unsigned long long)ag[0],
	      (unsigned long long)ag[2], (unsigned long long)ag[3]);
	CHECK(a2a[0] > 0 && a2a[2] > 0 && a2a[3] > 0,
	      "alltoall: modeled %llu, %llu, %llu ns", (unsigned long long)a2a[0],
	      (unsigned long long)a2a[2], (unsigned long long)a2a[3]);
	/* broadcast in place at the root */
	fill(dst, me, 100);
	OK(ubshmem_broadcast(dst, dst, 100, npes - 1));
	CHECK(same(dst, npes - 1, 100), "broadcast in place");
	CHECK(ubshmem_broadcast(dst, src, 1, npes) == -EINVAL &&
	      ubshmem_allgather(dst, dst + 1, 8) == -EINVAL &&
	      ubshmem_alltoall(dst, &me, 1) == -EINVAL,
	      "collectives: bad arguments accepted");
	ubshmem_free(dst);
	ubshmem_free(src);
}

/*
 * Each team collective on the team of @ti against the CPU: the barrier
 * (every PE's atomic at the team's first PE is there after it), broadcast
 * from the last and the first, all-gather, reduce-scatter, all-reduce by
 * both algorithms (2LEVEL refused on a team irregular over its nodes) and
 * by AUTO, AUTO with a bad UBSHMEM_ALLREDUCE refused (on the world, with
 * ring and 2level, each in its order), all-to-all and all-to-all-v (and
 * its counts that do not match), at 1, 7 and 4099 (elements or bytes a PE
 * or a block) and, with @big (the world), 1 MiB (all-reduce: one piece
 * and 3 elements, so two pieces) and the reductions of int32 and bf16
 * besides float; then the arguments they refuse.
 */
static void check_team(const struct coll_ref_team *ti, const char *name,
		       int big, unsigned char *src, unsigned char *dst,
		       uint64_t *ctr)
{
	static const char *const names[] = { "int32", "float", "bf16" };
	const struct ubshmem_team *t = ti->t;
	int n = ti->n, tme = ti->me, s, r, i, j, type, algo, ok, err;
	size_t scounts[TEAM_MAX], rcounts[TEAM_MAX], sdispls[TEAM_MAX];
	size_t rdispls[TEAM_MAX], e, es, count, at;
	unsigned char want[4];
	uint64_t got = 0;

	/* the barrier: nobody reads the count before everyone added */
	if (tme == 0)
		*ctr = 0;
	OK(ubshmem_barrier(t));
	OK(ubshmem_atomic_fetch_add(ctr, 1, ti->pes[0], NULL));
	OK(ubshmem_barrier(t));
	OK(ubshmem_atomic_fetch_add(ctr, 0, ti->pes[0], &got));
	CHECK(got == (uint64_t)n, "%s: barrier: %llu of %d arrived", name,
	      (unsigned long long)got, n);
	OK(ubshmem_barrier(t));
	for (s = 0; s < 3 + big; s++) {
		size_t size = coll_size(s, COLL_BIG);
		size_t per = coll_size(s, COLL_BIG / n);

		for (r = 0; r < 2; r++) {
			int root = r ? 0 : n - 1;

			fill(src, me, size);
			memset(dst, 0xee, size);
			OK(ubshmem_team_broadcast(t, dst, src, size, root));
			CHECK(same(dst, ti->pes[root], size),
			      "%s: broadcast of %zu from %d", name, size, root);
		}
		fill(src, me, per);
		memset(dst, 0xee, per * n);
		OK(ubshmem_team_allgather(t, dst, src, per));
		for (i = 0, ok = 1; i < n; i++)
			ok &= same(dst + i * per, ti->pes[i], per);
		CHECK(ok, "%s: allgather of %zu", name, per);
		for (i = 0; i < n; i++)
			fill(src + i * per, me * npes + ti->pes[i], per);
		memset(dst, 0xee, per * n);
		OK(ubshmem_team_alltoall(t, dst, src, per));
		for (i = 0, ok = 1; i < n; i++)
			ok &= same(dst + i * per, ti->pes[i] * npes + me, per);
		CHECK(ok, "%s: alltoall of %zu", name, per);
	}
	/* the types but on the world: float (the time of the VM) */
	for (type = big ? UBSHMEM_INT32 : UBSHMEM_FLOAT;
	     type <= (big ? UBSHMEM_BF16 : UBSHMEM_FLOAT); type++) {
		es = type == UBSHMEM_BF16 ? 2 : 4;
		for (s = 0; s < 3 + (big && type == UBSHMEM_FLOAT); s++) {
			/* reduce-scatter: block tme is summed from tme + 1 on */
			count = coll_size(s, COLL_BIG / n / es);
			for (e = 0; e < count * n; e++)
				coll_ref_elem(type, UBSHMEM_OP_SUM, 0, me, e,
				     src + e * es);
			memset(dst, 0xee, count * es);
			OK(ubshmem_team_reduce_scatter(t, dst, src, count, type,
						       UBSHMEM_OP_SUM));
			for (e = 0; e < count; e++) {
				coll_ref_chain(type, UBSHMEM_OP_SUM, 0, ti->pes, n,
					  tme, tme * count + e, want);
				if (memcmp(dst + e * es, want, es))
					break;
			}
			CHECK(e == count, "%s: reduce_scatter %s of %zu: element %zu",
			      name, names[type], count, e);
			count = coll_size(s, (COLL_BIG + 12) / es);
			for (e = 0; e < count; e++)
				coll_ref_elem(type, UBSHMEM_OP_SUM, 0, me, e,
				     src + e * es);
			for (algo = UBSHMEM_ALLREDUCE_AUTO;
			     algo <= UBSHMEM_ALLREDUCE_2LEVEL; algo++) {
				int use = algo ? algo : coll_ref_auto_algo(ti);

				memset(dst, 0xee, count * es);
				err = ubshmem_team_allreduce(t, dst, src, count,
							     type,
							     UBSHMEM_OP_SUM,
							     algo);
				if (use == UBSHMEM_ALLREDUCE_2LEVEL &&
				    !ti->regular) {
					CHECK(err == -EINVAL,
					      "%s: 2level accepted", name);
					continue;
				}
				OK(err);
				e = check_reduced(ti, use, type,
						  UBSHMEM_OP_SUM, count, dst);
				CHECK(e == count,
				      "%s: allreduce %d %s of %zu: element %zu",
				      name, algo, names[type], count, e);
			}
		}
	}
	/* AUTO as UBSHMEM_ALLREDUCE says: each order, or refused */
	for (algo = big ? UBSHMEM_ALLREDUCE_RING : 3;
	     algo <= UBSHMEM_ALLREDUCE_2LEVEL + 1; algo++) {
		static const char *const env[] = { "", "ring", "2level", "x" };

		setenv("UBSHMEM_ALLREDUCE", env[algo], 1);
		count = 4099;
		for (e = 0; e < count; e++)
			coll_ref_elem(UBSHMEM_FLOAT, UBSHMEM_OP_SUM, 0, me, e,
			     src + e * 4);
		err = ubshmem_team_allreduce(t, dst, src, count, UBSHMEM_FLOAT,
					     UBSHMEM_OP_SUM,
					     UBSHMEM_ALLREDUCE_AUTO);
		if (algo > UBSHMEM_ALLREDUCE_2LEVEL) {
			CHECK(err == -EINVAL, "%s: UBSHMEM_ALLREDUCE=x: %d",
			      name, err);
			continue;
		}
		OK(err);
		e = check_reduced(ti, algo, UBSHMEM_FLOAT, UBSHMEM_OP_SUM,
				  count, dst);
		CHECK(e == count, "%s: UBSHMEM_ALLREDUCE=%s: element %zu",
		      name, env[algo], e);
	}
	unsetenv("UBSHMEM_ALLREDUCE");
	/* all-to-all-v: from index i to j, a count of its own, some 0 */
	for (j = 0, at = 0; j < n; j++) {
		scounts[j] = (tme + j) % 4 ? (tme * 3 + j * 5) % 7 * 131 + 1 : 0;
		sdispls[j] = at;
		fill(src + at, me * npes + ti->pes[j], scounts[j]);
		at += scounts[j] + 8;
	}
	for (j = 0, at = 0; j < n; j++) {
		rcounts[j] = (j + tme) % 4 ? (j * 3 + tme * 5) % 7 * 131 + 1 : 0;
		rdispls[j] = at;
		at += rcounts[j] + 16;
	}
	for (r = 0; r < 2; r++) {
		/* r 1: index 0 sends index 1 a byte more than it expects */
		if (r && n > 1)
			scounts[1] += tme == 0;
		memset(dst, 0xee, at);
		err = ubshmem_team_alltoallv(t, dst, rcounts, rdispls, src,
					     scounts, sdispls);
		CHECK(err == (r && n > 1 && tme < 2 ? -EINVAL : 0),
		      "%s: alltoallv %d: %d", name, r, err);
		for (j = 0, ok = 1; j < n; j++) {
			if (r && n > 1 && tme + j == 1)
				continue;	/* the pair that did not match */
			ok &= same(dst + rdispls[j], ti->pes[j] * npes + me,
				   rcounts[j]);
			ok &= dst[rdispls[j] + rcounts[j]] == 0xee;
		}
		CHECK(ok, "%s: alltoallv %d", name, r);
	}
	CHECK(ubshmem_team_broadcast(t, dst, src, 1, n) == -EINVAL &&
	      ubshmem_team_allreduce(t, dst, src, 1, UBSHMEM_INT32,
				     UBSHMEM_OP_SUM, 3) == -EINVAL &&
	      ubshmem_team_reduce_scatter(t, dst, dst, 1, UBSHMEM_INT32,
					  UBSHMEM_OP_SUM) == -EINVAL &&
	      ubshmem_team_alltoallv(t, dst, NULL, rdispls, src, scounts,
				     sdispls) == -EINVAL,
	      "%s: bad arguments accepted", name);
}

/*
 * The teams: a split's bad arguments; the world, every other PE from
 * PE 1 (strided), the first 7 of those (an odd team, split from a split)
 * and each node's team, checked by check_team() one team at a time (the
 * node teams at once); calls on no team refused.
 */
static void check_team_colls(void)
{
	unsigned char *src = ubshmem_malloc(2 * COLL_BIG);
	unsigned char *dst = ubshmem_malloc(2 * COLL_BIG);
	uint64_t *ctr = ubshmem_malloc(sizeof(*ctr));
	const struct ubshmem_team *w = ubshmem_team_world();
	struct ubshmem_team *strided = NULL, *odd = NULL, *t = (void *)1;
	struct coll_ref_team ti;

	CHECK(ubshmem_team_split_strided(w, 0, 0, 2, &t) == -EINVAL &&
	      ubshmem_team_split_strided(w, 0, 1, 0, &t) == -EINVAL &&
	      ubshmem_team_split_strided(w, -1, 1, 1, &t) == -EINVAL &&
	      ubshmem_team_split_strided(w, 1, 2, npes / 2 + 1, &t) ==
	      -EINVAL && ubshmem_team_split_strided(w, 0, 1, 1, NULL) ==
	      -EINVAL && ubshmem_team_split_strided(NULL, 0, 1, 1, &t) ==
	      -EINVAL, "split: bad arguments accepted");
	CHECK(ubshmem_team_destroy((struct ubshmem_team *)w) == -EINVAL &&
	      ubshmem_team_destroy(NULL) == 0 &&
	      ubshmem_barrier(NULL) == -EINVAL, "teams: bad arguments accepted");
	OK(ubshmem_team_split_strided(w, 1, 2, npes / 2, &strided));
	CHECK(!strided == !(me % 2), "strided: member %p", (void *)strided);
	if (strided) {
		OK(ubshmem_team_split_strided(strided, 0, 1, 7, &odd));
		CHECK(!odd == (me > 13), "odd: member %p", (void *)odd);
		CHECK(ubshmem_team_n_pes(strided) == npes / 2 &&
		      ubshmem_team_translate_pe(strided, 2) == 5 &&
		      ubshmem_team_my_pe(strided) == me / 2, "strided team");
	}
	team_make(&ti, w);
	check_team(&ti, "world", 1, src, dst, ctr);
	coll_ref_team_free(&ti);
	OK(ubshmem_barrier_all());
	if (strided) {
		team_make(&ti, strided);
		check_team(&ti, "strided", 0, src, dst, ctr);
		coll_ref_team_free(&ti);
	}
	OK(ubshmem_barrier_all());
	if (odd) {
		team_make(&ti, odd);
		check_team(&ti, "odd", 0, src, dst, ctr);
		coll_ref_team_free(&ti);
	}
	OK(ubshmem_barrier_all());
	team_make(&ti, ubshmem_team_node());
	check_team(&ti, "node", 0, src, dst, ctr);
	coll_ref_team_free(&ti);
	OK(ubshmem_team_destroy(odd));
	OK(ubshmem_team_destroy(strided));
	ubshmem_free(ctr);
	ubshmem_free(dst);
	ubshmem_free(src);
}

/*
 * The reductions beyond the sum on the team of @ti: every op each type
 * takes, reduce-scatter (block tme from tme + 1 on) and all-reduce by RING
 * and, on a team regular over its nodes, 2LEVEL, of 1, 7 and 4,099
 * elements a PE or a block and, with @big, for one op of each type (the
 * last), 1 MiB in all (all-reduce: 1 MiB + 12 bytes, two pieces), bit for
 * bit against the CPU in each algorithm's order; then the pairs of op and
 * type refused.
 */
static void check_ops(const struct coll_ref_team *ti, const char *name, int big,
		      unsigned char *src, unsigned char *dst)
{
	static const char *const names[] = { "int32", "float", "bf16" };
	const struct ubshmem_team *t = ti->t;
	int n = ti->n, type, op, last, s, algo;
	unsigned char want[4];
	size_t es, count, e;

	for (type = UBSHMEM_INT32; type <= UBSHMEM_BF16; type++) {
		es = type == UBSHMEM_BF16 ? 2 : 4;
		last = type == UBSHMEM_INT32 ? UBSHMEM_OP_XOR : UBSHMEM_OP_MAX;
		for (op = UBSHMEM_OP_PROD; op <= last; op++) {
			for (s = 0; s < 3 + (big && op == last); s++) {
				count = coll_size(s, COLL_BIG / n / es);
				for (e = 0; e < count * n; e++)
					coll_ref_elem(type, op, 0, me, e, src + e * es);
				memset(dst, 0xee, count * es);
				OK(ubshmem_team_reduce_scatter(t, dst, src,
							       count, type,
							       op));
				for (e = 0; e < count; e++) {
					coll_ref_chain(type, op, 0, ti->pes, n, ti->me,
						  ti->me * count + e, want);
					if (memcmp(dst + e * es, want, es))
						break;
				}
				CHECK(e == count, "%s: reduce_scatter op %d "
				      "%s of %zu: element %zu", name, op,
				      names[type], count, e);
				count = coll_size(s, (COLL_BIG + 12) / es);
				for (e = 0; e < count; e++)
					coll_ref_elem(type, op, 0, me, e, src + e * es);
				for (algo = UBSHMEM_ALLREDUCE_RING;
				     algo <= UBSHMEM_ALLREDUCE_2LEVEL; algo++) {
					if (algo == UBSHMEM_ALLREDUCE_2LEVEL &&
					    !ti->regular)
						continue;
					memset(dst, 0xee, count * es);
					OK(ubshmem_team_allreduce(t, dst, src,
								  count, type,
								  op, algo));
					e = check_reduced(ti, algo, type, op,
							  count, dst);
					CHECK(e == count, "%s: allreduce %d "
					      "op %d %s of %zu: element %zu",
					      name, algo, op, names[type],
					      count, e);
				}
			}
		}
	}
	for (op = UBSHMEM_OP_AND; op <= UBSHMEM_OP_XOR; op++)
		CHECK(ubshmem_team_allreduce(t, dst, src, 1, UBSHMEM_FLOAT, op,
					     UBSHMEM_ALLREDUCE_RING) ==
		      -EINVAL &&
		      ubshmem_team_reduce_scatter(t, dst, src, 1, UBSHMEM_BF16,
						  op) == -EINVAL,
		      "%s: op %d of float or bf16 accepted", name, op);
	CHECK(ubshmem_team_allreduce(t, dst, src, 1, UBSHMEM_INT32, -1,
				     UBSHMEM_ALLREDUCE_RING) == -EINVAL &&
	      ubshmem_team_reduce_scatter(t, dst, src, 1, UBSHMEM_INT32,
					  UBSHMEM_OP_XOR + 1) == -EINVAL,
	      "%s: unknown op accepted", name);
}

/*
 * The reductions beyond the sum (check_ops()) on the world, with 1 MiB,
 * and on the team of every other PE from PE 0 (at 8 spread over 4
 * nodes: 2 on each of 2 nodes, so both algorithms).
 */
static void check_redops(void)
{
	unsigned char *src = ubshmem_malloc(COLL_BIG + 64);
	unsigned char *dst = ubshmem_malloc(COLL_BIG + 64);
	struct ubshmem_team *half = NULL;
	struct coll_ref_team ti;

	team_make(&ti, ubshmem_team_world());
	check_ops(&ti, "world", 1, src, dst);
	coll_ref_team_free(&ti);
	OK(ubshmem_team_split_strided(ubshmem_team_world(), 0, 2,
				      (npes + 1) / 2, &half));
	if (half) {
		team_make(&ti, half);
		check_ops(&ti, "half", 0, src, dst);
		coll_ref_team_free(&ti);
	}
	OK(ubshmem_barrier_all());
	OK(ubshmem_team_destroy(half));
	ubshmem_free(dst);
	ubshmem_free(src);
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "all";
	char entity[64];
	int err, node_me, node_n;

	if (!strcmp(what, "env")) {
		printf("rank=%s size=%s local=%s/%s node=%s entity=%s\n",
		       getenv("UBRUN_RANK"), getenv("UBRUN_SIZE"),
		       getenv("UBRUN_LOCAL_RANK"), getenv("UBRUN_LOCAL_SIZE"),
		       getenv("UBRUN_NODE"), getenv("UBRUN_ENTITY"));
		return 0;
	}
	if (!strcmp(what, "lines")) {
		printf("out one %s\nout two %s\n", getenv("UBRUN_RANK"),
		       getenv("UBRUN_RANK"));
		fflush(stdout);
		fprintf(stderr, "err %s\n", getenv("UBRUN_RANK"));
		printf("partial %s", getenv("UBRUN_RANK"));
		return 0;
	}
	if (!strcmp(what, "skip") &&
	    !strcmp(getenv("UBRUN_RANK"), argc > 2 ? argv[2] : "0"))
		return 0;
	err = ubshmem_init();
	if (err) {
		fprintf(stderr, "ubshmem_init: %s\n", strerror(-err));
		return 1;
	}
	me = ubshmem_my_pe();
	npes = ubshmem_n_pes();
	if (!strcmp(what, "fail")) {
		if (me == atoi(argc > 2 ? argv[2] : "0"))
			return 3;
		ubshmem_barrier_all();
		return 0;
	}
	if (!strcmp(what, "hang")) {
		uint64_t *sig = ubshmem_malloc(sizeof(*sig));

		ubshmem_signal_wait_until(sig, UBSHMEM_CMP_EQ, 1, NULL);
		return 0;
	}
	CHECK(ubshmem_model_ns() == 0, "model_ns before any op");
	if (!strcmp(what, "coll") || !strcmp(what, "teams") ||
	    !strcmp(what, "redops")) {
		node_of = coll_ref_nodes();
		if (!node_of) {
			fail("every PE's node: %s", strerror(errno));
			goto out;
		}
	}
	if (!strcmp(what, "redops")) {
		check_redops();
		goto out;
	}
	if (!strcmp(what, "coll")) {
		check_allreduce();
		check_moves();
		goto out;
	}
	if (!strcmp(what, "teams")) {
		check_team_colls();
		goto out;
	}
	check_teams();
	check_heap();
	check_ptr();
	clock_moved("init and ptr");
	check_rma();
	check_signal();
	check_atomics();
	check_order();
out:
	snprintf(entity, sizeof(entity), "%s", ubshmem_entity());
	node_me = ubshmem_team_my_pe(ubshmem_team_node());
	node_n = ubshmem_team_n_pes(ubshmem_team_node());
	OK(ubshmem_finalize());
	CHECK(ubshmem_my_pe() == -1, "my_pe after finalize");
	if (!failures)
		printf("ok %d of %d on %s, %d of %d on its node\n", me, npes,
		       entity, node_me, node_n);
	return failures ? 1 : 0;
}
