// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the fabric model's cost arithmetic in model.c: the path
 * class of two places, what each kind of entry costs in either transfer
 * class, the published latencies and bandwidths, the striping of a
 * transfer's bytes over the planes it used (its chunks as the data path
 * deals them: the most loaded plane sets the pace, each plane's links
 * count its own share), the ports' fault knobs, the
 * efficiency per op kind and target, that the largest entry does not overflow, and the clock
 * (in order, a small message priced like the last one); the initiator's
 * DMA engines and vector-core paths (their bandwidth, their issue cost,
 * which queues share one); runs of transfers reserved at once. Built into
 * ubfab.ko when the kernel has KUnit; the suite runs when the module
 * loads.
 */
#include <kunit/test.h>
#include <linux/sizes.h>

#include "model.h"
#include "route.h"

static const struct ubfab_model_params *const p = &ubfab_model_cm384;

/* NPU die @die of chip @chip of node @node. */
static struct ubfab_loc ubfab_kunit_npu(u32 node, u32 chip, u32 die)
{
	return (struct ubfab_loc) {
		.kind = UBFAB_ENTITY_NPU, .node = node, .chip = chip,
		.die = die,
	};
}

/* CPU @socket of node @node. */
static struct ubfab_loc ubfab_kunit_cpu(u32 node, u32 socket)
{
	return (struct ubfab_loc) {
		.kind = UBFAB_ENTITY_CPU, .node = node, .socket = socket,
	};
}

/*
 * The cost, with the parameters @params, of @opcode from @self that moved
 * @bytes to @peer over @mask.
 */
static u64 ubfab_kunit_cost_with(const struct ubfab_model_params *params,
				 const struct ubfab_loc *self, u8 opcode,
				 const struct ubfab_loc *peer, u32 mask,
				 u32 bytes)
{
	struct ubfab_exec ex = {
		.sqe.opcode = opcode,
		.peer = peer,
		.plane_mask = mask,
		.bytes = bytes,
	};

	return ubfab_model_cost_ps(params, self, &ex, NULL);
}

/* ubfab_kunit_cost_with() profile cm384. */
static u64 ubfab_kunit_cost(const struct ubfab_loc *self, u8 opcode,
			    const struct ubfab_loc *peer, u32 mask, u32 bytes)
{
	return ubfab_kunit_cost_with(p, self, opcode, peer, mask, bytes);
}

/*
 * Profile cm384 as a die's DMA queues see it when there are as many of
 * them as DMA engines, one on each: one engine as fast as all of them
 * together (224 GB/s), above the links' 7 x 28 GB/s, so that the links
 * set the pace.
 */
static struct ubfab_model_params ubfab_kunit_all_engines(void)
{
	struct ubfab_model_params all = *p;

	all.engine_mbps[UBFAB_MODEL_DMA] *= all.engines[UBFAB_MODEL_DMA];
	return all;
}

static void ubfab_kunit_path(struct kunit *test)
{
	struct ubfab_loc a = ubfab_kunit_npu(2, 3, 0);
	struct ubfab_loc same = ubfab_kunit_npu(2, 3, 0);
	struct ubfab_loc die = ubfab_kunit_npu(2, 3, 1);
	struct ubfab_loc chip = ubfab_kunit_npu(2, 4, 0);
	struct ubfab_loc node = ubfab_kunit_npu(5, 3, 0);
	struct ubfab_loc cpu = ubfab_kunit_cpu(2, 0);
	struct ubfab_loc cpu_far = ubfab_kunit_cpu(1, 0);

	KUNIT_EXPECT_EQ(test, ubfab_model_path(&a, &same),
			UBFAB_MODEL_SAME_DIE);
	KUNIT_EXPECT_EQ(test, ubfab_model_path(&a, &die),
			UBFAB_MODEL_OTHER_DIE);
	KUNIT_EXPECT_EQ(test, ubfab_model_path(&a, &chip),
			UBFAB_MODEL_SAME_NODE);
	/* same chip and die numbers, another node */
	KUNIT_EXPECT_EQ(test, ubfab_model_path(&a, &node),
			UBFAB_MODEL_OTHER_NODE);
	/* a CPU is never on an NPU's chip, even with chip and die 0 */
	KUNIT_EXPECT_EQ(test, ubfab_model_path(&cpu, &cpu),
			UBFAB_MODEL_SAME_DIE);
	KUNIT_EXPECT_EQ(test, ubfab_model_path(&a, &cpu),
			UBFAB_MODEL_SAME_NODE);
	KUNIT_EXPECT_EQ(test, ubfab_model_path(&cpu, &cpu_far),
			UBFAB_MODEL_OTHER_NODE);
	a = ubfab_kunit_npu(2, 0, 0);
	KUNIT_EXPECT_EQ(test, ubfab_model_path(&a, &cpu),
			UBFAB_MODEL_SAME_NODE);
}

/* Entries that move nothing: the issue overhead, COMPUTE its value. */
static void ubfab_kunit_still(struct kunit *test)
{
	struct ubfab_loc a = ubfab_kunit_npu(0, 0, 0);
	struct ubfab_exec ex = { .sqe.opcode = UBFAB_OP_COMPUTE };
	static const u8 ops[] = { UBFAB_OP_NOP, UBFAB_OP_EVENT_RECORD,
				  UBFAB_OP_EVENT_WAIT, UBFAB_OP_WAIT_VALUE,
				  UBFAB_OP_WRITE, UBFAB_OP_READ,
				  UBFAB_OP_ATOMIC, 200 };
	unsigned int i;

	/* a transfer that crossed nothing (it failed first) too */
	for (i = 0; i < ARRAY_SIZE(ops); i++)
		KUNIT_EXPECT_EQ(test, ubfab_kunit_cost(&a, ops[i], NULL, 0, 0),
				p->issue_ps);
	KUNIT_EXPECT_EQ(test, p->issue_ps, 200000);
	ex.sqe.value = 12345;
	KUNIT_EXPECT_EQ(test, ubfab_model_cost_ps(p, &a, &ex, NULL), 12345000);
	ex.sqe.value = 0;
	KUNIT_EXPECT_EQ(test, ubfab_model_cost_ps(p, &a, &ex, NULL), 0);
	/* refused: as any other entry */
	ex.sqe.value = 5;
	ex.status = UBFAB_CQE_BAD_ENTRY;
	KUNIT_EXPECT_EQ(test, ubfab_model_cost_ps(p, &a, &ex, NULL), p->issue_ps);
	ex.status = UBFAB_CQE_OK;
	/* saturates instead of wrapping */
	ex.sqe.value = U64_MAX / 1000 + 1;
	KUNIT_EXPECT_EQ(test, ubfab_model_cost_ps(p, &a, &ex, NULL), U64_MAX);
	KUNIT_EXPECT_EQ(test, ubfab_model_ns(1999), 1);
}

/*
 * Latency by path: the start-up of the class, a round trip, the target's
 * part by op kind (ATOMIC counts as a write) and target kind.
 */
static void ubfab_kunit_latency(struct kunit *test)
{
	struct ubfab_loc a = ubfab_kunit_npu(0, 0, 0);
	struct ubfab_loc die = ubfab_kunit_npu(0, 0, 1);
	struct ubfab_loc node = ubfab_kunit_npu(0, 1, 0);
	struct ubfab_loc far = ubfab_kunit_npu(1, 0, 0);
	u64 x = p->issue_ps + p->dma_ps, tw = p->target_ps[0][0];
	struct ubfab_exec ex = {
		.sqe.opcode = UBFAB_OP_WRITE, .sqe.flags = UBFAB_SQE_MEMSEM,
		.peer = &node, .plane_mask = 1, .bytes = 8,
	};
	/* 8 bytes on one link at 69.9% of 28 GB/s: ceil(408.7) ps */
	u64 ser8 = 409;

	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_cost(&a, UBFAB_OP_WRITE, &node, 1, 8),
			x + 2 * p->hop_ps + tw + ser8);
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_cost(&a, UBFAB_OP_WRITE, &far, 1, 8),
			x + 6 * p->hop_ps + tw + ser8);
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_cost(&a, UBFAB_OP_ATOMIC, &far, 1, 8),
			x + 6 * p->hop_ps + tw + ser8);
	/* 8 bytes at 85.2% of 28 GB/s: ceil(335.3) ps */
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_cost(&a, UBFAB_OP_READ, &node, 1, 8),
			x + 2 * p->hop_ps + p->target_ps[1][0] + 336);
	/*
	 * 8 bytes at 69.9% of 270 GB/s take ceil(42.4) ps, through the die's
	 * DMA engine at 56 GB/s ceil(142.9) ps: the slower
	 */
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_cost(&a, UBFAB_OP_WRITE, &die, 1, 8),
			x + 2 * p->die_ps + tw + 143);
	/* loopback: the die's own memory, 8 bytes at 1.6 TB/s, or the engine */
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_cost(&a, UBFAB_OP_WRITE, &a, 1, 8),
			x + 2 * p->loopback_ps + tw + 143);
	/* memory semantics: its own start-up instead of the DMA engine's */
	KUNIT_EXPECT_EQ(test, ubfab_model_cost_ps(p, &a, &ex, NULL),
			p->issue_ps + p->memsem_ps + 2 * p->hop_ps + tw + ser8);
	KUNIT_EXPECT_LT(test, p->memsem_ps, p->dma_ps);
	/* the order the selftests rely on (8 bytes: both at the engine's pace) */
	KUNIT_EXPECT_LE(test, ubfab_kunit_cost(&a, UBFAB_OP_WRITE, &a, 1, 8),
			ubfab_kunit_cost(&a, UBFAB_OP_WRITE, &die, 1, 8));
	KUNIT_EXPECT_LT(test, ubfab_kunit_cost(&a, UBFAB_OP_WRITE, &die, 1, 8),
			ubfab_kunit_cost(&a, UBFAB_OP_WRITE, &node, 1, 8));
	KUNIT_EXPECT_LT(test, ubfab_kunit_cost(&a, UBFAB_OP_WRITE, &node, 1, 8),
			ubfab_kunit_cost(&a, UBFAB_OP_WRITE, &far, 1, 8));
}

/*
 * The published table (../shared/reference/cloudmatrix384.md), from the
 * arithmetic alone: 512-byte latency in ns and one-way bandwidth per die
 * in GB/s (a 16 MiB transfer over 7 planes, with all the die's DMA
 * engines: ubfab_kunit_all_engines()), by [read][target is a CPU]
 * [other node]; each within 5%. ubbench model measures the same cells
 * through the module.
 */
static void ubfab_kunit_calibration(struct kunit *test)
{
	static const u64 lat_ns[2][2][2] = {
		{ { 1300, 2100 }, { 1100, 1900 } },
		{ { 1200, 1900 }, { 1000, 1700 } },
	};
	static const u64 gbps[2][2][2] = {
		{ { 137, 135 }, { 110, 107 } },
		{ { 167, 164 }, { 151, 147 } },
	};
	static const u8 ops[2] = { UBFAB_OP_WRITE, UBFAB_OP_READ };
	struct ubfab_model_params all = ubfab_kunit_all_engines();
	struct ubfab_loc a = ubfab_kunit_npu(0, 0, 0);
	struct ubfab_loc peers[2][2] = {
		{ ubfab_kunit_npu(0, 1, 0), ubfab_kunit_npu(1, 0, 0) },
		{ ubfab_kunit_cpu(0, 0), ubfab_kunit_cpu(1, 0) },
	};
	unsigned int r, c, n;
	u64 ns, bw;

	for (r = 0; r < 2; r++) {
		for (c = 0; c < 2; c++) {
			for (n = 0; n < 2; n++) {
				ns = ubfab_kunit_cost(&a, ops[r], &peers[c][n],
						      1, 512) / 1000;
				KUNIT_EXPECT_LE(test, ns * 100,
						lat_ns[r][c][n] * 105);
				KUNIT_EXPECT_GE(test, ns * 100,
						lat_ns[r][c][n] * 95);
				/* bytes / ps x 1000 = GB/s, x 100 */
				bw = div64_u64(SZ_16M * 100000ULL,
					       ubfab_kunit_cost_with(&all, &a,
								     ops[r],
								     &peers[c][n],
								     0x7f,
								     SZ_16M));
				KUNIT_EXPECT_LE(test, bw, gbps[r][c][n] * 105);
				KUNIT_EXPECT_GE(test, bw, gbps[r][c][n] * 95);
			}
		}
	}
}

/*
 * Bytes striped over the planes used, at the efficiency of their kind
 * (with all the die's DMA engines, so that the links set the pace): 42
 * chunks, 6 on each of 7 planes, 7 on each of 6.
 */
static void ubfab_kunit_striping(struct kunit *test)
{
	struct ubfab_model_params all = ubfab_kunit_all_engines();
	struct ubfab_loc a = ubfab_kunit_npu(0, 0, 0);
	struct ubfab_loc node = ubfab_kunit_npu(0, 1, 0);
	struct ubfab_loc cpu = ubfab_kunit_cpu(0, 0);
	u64 x = p->issue_ps + p->dma_ps + 2 * p->hop_ps, seven, six;
	u64 lat = x + p->target_ps[0][0];
	u32 bytes = 42 * UBFAB_PLANE_CHUNK;

	/* 6 chunks on each link at 69.9%: 6 x 2^16 x 10^9 / (28000 x 699) */
	seven = ubfab_kunit_cost_with(&all, &a, UBFAB_OP_WRITE, &node, 0x7f,
				      bytes);
	KUNIT_EXPECT_EQ(test, seven - lat, 20090742);
	/* one plane fewer: 7 chunks on each, 7/6 of it */
	six = ubfab_kunit_cost_with(&all, &a, UBFAB_OP_WRITE, &node, 0x3f,
				    bytes);
	KUNIT_EXPECT_EQ(test, six - lat, 23439199);
	/* which planes does not matter, only how many */
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_cost_with(&all, &a, UBFAB_OP_WRITE, &node,
					      0x7e, bytes),
			six);
	/* to a CPU at 56.1%, reading from an NPU at 85.2% */
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_cost_with(&all, &a, UBFAB_OP_WRITE, &cpu,
					      0x7f, bytes) -
			x - p->target_ps[0][1], 25032850);
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_cost_with(&all, &a, UBFAB_OP_READ, &node,
					      0x7f, bytes) -
			x - p->target_ps[1][0], 16482898);
	/* the published per-die write bandwidth, within 0.1% */
	KUNIT_EXPECT_EQ(test, div64_u64(bytes * 1000ULL, seven - lat), 137);
}

/*
 * The chunk imbalance: a transfer's chunks are dealt round-robin over the
 * planes it crossed, so the first plane of the deal may carry one more
 * than the others and finish later: its share sets the serialization
 * (with all the die's DMA engines, so that the links set the pace).
 */
static void ubfab_kunit_imbalance(struct kunit *test)
{
	struct ubfab_model_params all = ubfab_kunit_all_engines();
	struct ubfab_loc a = ubfab_kunit_npu(0, 0, 0);
	struct ubfab_loc node = ubfab_kunit_npu(0, 1, 0);
	u64 lat = p->issue_ps + p->dma_ps + 2 * p->hop_ps + p->target_ps[0][0];
	u32 c = UBFAB_PLANE_CHUNK;
	u64 one, two;

	/* a chunk, and two, on one link at 69.9%: 2^16 x 10^9 / 19572000 */
	one = ubfab_kunit_cost_with(&all, &a, UBFAB_OP_WRITE, &node, 1, c);
	KUNIT_EXPECT_EQ(test, one - lat, 3348457);
	two = ubfab_kunit_cost_with(&all, &a, UBFAB_OP_WRITE, &node, 1, 2 * c);
	KUNIT_EXPECT_EQ(test, two - lat, 6696914);
	/* 8 chunks over 7 planes: the first carries two, not 8/7 */
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_cost_with(&all, &a, UBFAB_OP_WRITE, &node,
					      0x7f, 8 * c), two);
	/* 7 over 7: one each */
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_cost_with(&all, &a, UBFAB_OP_WRITE, &node,
					      0x7f, 7 * c), one);
	/* and 100 bytes more: the first carries a chunk and the short one */
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_cost_with(&all, &a, UBFAB_OP_WRITE, &node,
					      0x7f, 7 * c + 100),
			ubfab_kunit_cost_with(&all, &a, UBFAB_OP_WRITE, &node,
					      1, c + 100));
	/* 14 less 100 bytes: the short one on the last plane, two on the first */
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_cost_with(&all, &a, UBFAB_OP_WRITE, &node,
					      0x7f, 14 * c - 100), two);
	/* 8 over 6 planes: two on the first two of them */
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_cost_with(&all, &a, UBFAB_OP_WRITE, &node,
					      0x7e, 8 * c), two);
}

/*
 * The ports' fault knobs over the planes: a slower link stretches the
 * serialization, an added latency is paid both ways, a link error costs
 * retry-ps and one chunk again; none of it on the die-to-die link.
 */
static void ubfab_kunit_faults(struct kunit *test)
{
	struct ubfab_model_params all = ubfab_kunit_all_engines();
	struct ubfab_loc a = ubfab_kunit_npu(0, 0, 0);
	struct ubfab_loc die = ubfab_kunit_npu(0, 0, 1);
	struct ubfab_loc node = ubfab_kunit_npu(0, 1, 0);
	struct ubfab_model_faults f = { .bw_permille = 1000 };
	struct ubfab_exec ex = {
		.sqe.opcode = UBFAB_OP_WRITE, .peer = &node,
		.plane_mask = 0x7f, .bytes = SZ_1M,
	};
	/* 1 MiB over 7 links: 3 of its 16 chunks on the first, at 69.9% */
	u64 ser = 10045371, healthy = ubfab_model_cost_ps(&all, &a, &ex, NULL);

	KUNIT_EXPECT_EQ(test, ubfab_model_cost_ps(&all, &a, &ex, &f), healthy);
	f.bw_permille = 500;
	KUNIT_EXPECT_EQ(test, ubfab_model_cost_ps(&all, &a, &ex, &f),
			healthy + ser);
	f.bw_permille = 1000;
	f.delay_ps = 12345;
	KUNIT_EXPECT_EQ(test, ubfab_model_cost_ps(&all, &a, &ex, &f),
			healthy + 2 * 12345);
	f.delay_ps = 0;
	f.error_ppm = 10;
	KUNIT_EXPECT_EQ(test, ubfab_model_cost_ps(&all, &a, &ex, &f), healthy);
	/* 64 KiB on one link at 69.9%: ceil(3348456.98) ps */
	f.retry = true;
	KUNIT_EXPECT_EQ(test, ubfab_model_cost_ps(&all, &a, &ex, &f),
			healthy + p->retry_ps + 3348457);
	/* the die-to-die link has no UB port */
	ex.peer = &die;
	KUNIT_EXPECT_EQ(test, ubfab_model_cost_ps(&all, &a, &ex, &f),
			ubfab_model_cost_ps(&all, &a, &ex, NULL));
}

/* COPY reads and writes its bytes, FILL writes them: HBM or DRAM. */
static void ubfab_kunit_local(struct kunit *test)
{
	struct ubfab_loc npu = ubfab_kunit_npu(0, 0, 0);
	struct ubfab_loc cpu = ubfab_kunit_cpu(0, 0);

	/* 2 MiB through 1.6 TB/s: 1310720 ps */
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_cost(&npu, UBFAB_OP_COPY, NULL, 0, SZ_1M),
			p->issue_ps + 1310720);
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_cost(&npu, UBFAB_OP_FILL, NULL, 0, SZ_1M),
			p->issue_ps + 655360);
	/* 1 MiB through 204.8 GB/s: 5120000 ps */
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_cost(&cpu, UBFAB_OP_FILL, NULL, 0, SZ_1M),
			p->issue_ps + 5120000);
}

/* The largest entry on the slowest paths does not overflow. */
static void ubfab_kunit_largest(struct kunit *test)
{
	struct ubfab_loc a = ubfab_kunit_npu(0, 0, 0);
	struct ubfab_loc far = ubfab_kunit_npu(1, 0, 0);
	struct ubfab_loc cpu = ubfab_kunit_cpu(1, 0);
	u32 max = UBFAB_SQE_MAX_LENGTH;
	u64 x = p->issue_ps + p->dma_ps + 6 * p->hop_ps;

	/* 2^30 B x 10^9 / (28000 x 561) = 68356367711 ps, ceil */
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_cost(&a, UBFAB_OP_WRITE, &cpu, 1, max),
			x + p->target_ps[0][1] + 68356367711ULL);
	/* over 7 links: one DMA engine's 56 GB/s, 2^30 B x 10^6 / 56000 */
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_cost(&a, UBFAB_OP_WRITE, &far, 0x7f, max),
			x + p->target_ps[0][0] + 19173961143ULL);
	/* 2 GiB through DRAM */
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_cost(&cpu, UBFAB_OP_COPY, NULL, 0, max),
			p->issue_ps + 10485760000ULL);
}

/*
 * A fabric of two nodes with one L2 switch per plane, all links idle, and
 * entities in it: what charging a transfer needs, since the contention
 * walk reserves the links of the entities it names.
 */
static struct ubfab_fabric *ubfab_kunit_fabric(struct kunit *test)
{
	struct ubfab_fabric *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	u32 plane;

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->topo.planes = 7;
	f->planes = kunit_kcalloc(test, 7, sizeof(*f->planes), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->planes);
	for (plane = 0; plane < 7; plane++) {
		f->planes[plane].nr_l1 = 2;
		f->planes[plane].nr_l2 = 1;
		f->planes[plane].links = kunit_kcalloc(test, 4,
						       sizeof(struct ubfab_link),
						       GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, f->planes[plane].links);
	}
	return f;
}

/* Entity @eid of @f at @loc, its 7 ports' links idle. */
static struct ubfab_loc *ubfab_kunit_entity(struct kunit *test,
					    struct ubfab_fabric *f, u32 eid,
					    struct ubfab_loc loc)
{
	struct ubfab_entity *e;

	e = kunit_kzalloc(test, struct_size(e, ports, 7), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e);
	e->fabric = f;
	e->eid = eid;
	e->loc = loc;
	e->nr_ports = 7;
	xa_init(&e->queues);
	return &e->loc;
}

/*
 * Nanoseconds of a time in picoseconds, rounded down, without a divide:
 * the same as dividing, around each multiple of 1000 and at the ends.
 */
static void ubfab_kunit_ns(struct kunit *test)
{
	u64 ps = 1;
	unsigned int i;
	int d;

	KUNIT_EXPECT_EQ(test, ubfab_model_ns(U64_MAX), U64_MAX / 1000);
	KUNIT_EXPECT_EQ(test, ubfab_model_ns(U64_MAX - U64_MAX % 1000 - 1),
			U64_MAX / 1000 - 1);
	/*
	 * 1, 3, 9, ... 3^40, 1000 times each (wrapping past 2^64: any value
	 * will do), and their neighbours
	 */
	for (i = 0; i <= 40; i++, ps *= 3) {
		for (d = -1; d <= 1; d++) {
			KUNIT_EXPECT_EQ(test, ubfab_model_ns(ps + d),
					div_u64(ps + d, 1000));
			KUNIT_EXPECT_EQ(test, ubfab_model_ns(ps * 1000 + d),
					div_u64(ps * 1000 + d, 1000));
		}
	}
}

/* The clock: entries in order, small messages priced from the last one. */
static void ubfab_kunit_clock(struct kunit *test)
{
	struct ubfab_fabric *fab = ubfab_kunit_fabric(test);
	struct ubfab_loc *a = ubfab_kunit_entity(test, fab, 0,
						 ubfab_kunit_npu(0, 0, 0));
	struct ubfab_loc *node = ubfab_kunit_entity(test, fab, 1,
						    ubfab_kunit_npu(0, 1, 0));
	struct ubfab_loc *far = ubfab_kunit_entity(test, fab, 2,
						   ubfab_kunit_npu(1, 0, 0));
	struct ubfab_model_clock *c = kunit_kzalloc(test, sizeof(*c),
						    GFP_KERNEL);
	struct ubfab_exec ex = { .sqe.opcode = UBFAB_OP_NOP };
	u64 one, t;

	KUNIT_ASSERT_NOT_NULL(test, c);
	/* a fresh clock prices nothing from memory: a NOP costs the issue */
	ubfab_model_clock_init(c, 0, 0);
	ubfab_model_charge(c, a, &ex);
	KUNIT_EXPECT_EQ(test, c->now_ps, p->issue_ps);
	c->now_ps = 0;
	ex = (struct ubfab_exec) {
		.sqe.opcode = UBFAB_OP_WRITE, .peer = node, .plane_mask = 4,
		.bytes = 64,
	};
	one = ubfab_model_cost_ps(p, a, &ex, NULL);
	ubfab_model_charge(c, a, &ex);
	KUNIT_EXPECT_EQ(test, c->now_ps, one);
	KUNIT_EXPECT_EQ(test, ex.model_ns, one / 1000);
	/* alike but on another plane: the same cost, remembered */
	ex.plane_mask = 8;
	ubfab_model_charge(c, a, &ex);
	KUNIT_EXPECT_EQ(test, c->now_ps, 2 * one);
	KUNIT_EXPECT_EQ(test, c->last_ps, one);
	/* another peer, length or opcode: priced anew */
	ex.peer = far;
	t = c->now_ps + ubfab_model_cost_ps(p, a, &ex, NULL);
	ubfab_model_charge(c, a, &ex);
	KUNIT_EXPECT_EQ(test, c->now_ps, t);
	ex.bytes = 65;
	t = c->now_ps + ubfab_model_cost_ps(p, a, &ex, NULL);
	ubfab_model_charge(c, a, &ex);
	KUNIT_EXPECT_EQ(test, c->now_ps, t);
	ex.sqe.opcode = UBFAB_OP_READ;
	t = c->now_ps + ubfab_model_cost_ps(p, a, &ex, NULL);
	ubfab_model_charge(c, a, &ex);
	KUNIT_EXPECT_EQ(test, c->now_ps, t);
	/* two chunks over two planes: priced anew, and not remembered */
	ex.plane_mask = 0x3;
	ex.bytes = 2 * UBFAB_PLANE_CHUNK;
	t = c->now_ps + ubfab_model_cost_ps(p, a, &ex, NULL);
	ubfab_model_charge(c, a, &ex);
	KUNIT_EXPECT_EQ(test, c->now_ps, t);
	KUNIT_EXPECT_EQ(test, c->last_bytes, 65);
	ex.plane_mask = 0x7f;
	t = c->now_ps + ubfab_model_cost_ps(p, a, &ex, NULL);
	ubfab_model_charge(c, a, &ex);
	KUNIT_EXPECT_EQ(test, c->now_ps, t);
	/* a NOP after it: no crossing, the issue overhead */
	ex = (struct ubfab_exec) { .sqe.opcode = UBFAB_OP_NOP };
	t = c->now_ps + p->issue_ps;
	ubfab_model_charge(c, a, &ex);
	KUNIT_EXPECT_EQ(test, c->now_ps, t);
	/* the clock saturates */
	ex = (struct ubfab_exec) { .sqe.opcode = UBFAB_OP_COMPUTE,
				   .sqe.value = U64_MAX / 1000 };
	ubfab_model_charge(c, a, &ex);
	KUNIT_EXPECT_EQ(test, c->now_ps, U64_MAX);
	KUNIT_EXPECT_EQ(test, ex.model_ns, U64_MAX / 1000);
}

/*
 * Charge @ex, from @self to @peer, on a fresh clock at @now of queue
 * number @qid: its end.
 */
static u64 ubfab_kunit_charge_q(struct kunit *test, struct ubfab_loc *self,
				struct ubfab_loc *peer, struct ubfab_exec *ex,
				u64 now, u32 qid)
{
	struct ubfab_model_clock *c = kunit_kzalloc(test, sizeof(*c),
						    GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	ubfab_model_clock_init(c, 0, qid);
	c->now_ps = now;
	ex->peer = peer;
	ubfab_model_charge(c, self, ex);
	return c->now_ps;
}

/* ubfab_kunit_charge_q() on queue 0. */
static u64 ubfab_kunit_charge(struct kunit *test, struct ubfab_loc *self,
			      struct ubfab_loc *peer, struct ubfab_exec *ex,
			      u64 now)
{
	return ubfab_kunit_charge_q(test, self, peer, ex, now, 0);
}

/*
 * Each plane's links hold for its own share's time and count its bytes,
 * the bytes the data path counts on its ports: its deal
 * (ubfab_route_pick_plane() from where the entry's walk started,
 * @ex->plane) over the planes up, as @mask, of @bytes in chunks; the
 * shares add up to @bytes, and the transfer ends at its cost.
 */
static void ubfab_kunit_deal(struct kunit *test, u32 start, u32 mask,
			     u32 bytes, u8 opcode)
{
	struct ubfab_fabric *fab = ubfab_kunit_fabric(test);
	struct ubfab_loc *a = ubfab_kunit_entity(test, fab, 0,
						 ubfab_kunit_npu(0, 0, 0));
	struct ubfab_loc *b = ubfab_kunit_entity(test, fab, 1,
						 ubfab_kunit_npu(0, 1, 0));
	struct ubfab_entity *src = container_of(a, struct ubfab_entity, loc);
	struct ubfab_entity *dst = container_of(b, struct ubfab_entity, loc);
	struct ubfab_exec ex = {
		.sqe.opcode = opcode, .plane = start, .bytes = bytes,
	};
	u64 share[7] = {}, sum = 0, ser;
	u32 done, next = start, plane;

	for (done = 0; done < bytes; done += ubfab_route_chunk_len(bytes, done)) {
		plane = ubfab_route_pick_plane(mask, 7, &next);
		ubfab_model_note(&ex, plane, dst);
		share[plane] += ubfab_route_chunk_len(bytes, done);
	}
	KUNIT_ASSERT_EQ(test, ex.plane_mask, mask);
	KUNIT_EXPECT_EQ(test, ubfab_kunit_charge(test, a, b, &ex, 0),
			ubfab_model_cost_ps(p, a, &ex, NULL));
	if (opcode == UBFAB_OP_READ)
		swap(src, dst);
	for (plane = 0; plane < 7; plane++) {
		/* the serialization alone: a 1-plane cost less its fixed part */
		ser = ubfab_kunit_cost(a, opcode, b, 1, share[plane]) -
		      ubfab_kunit_cost(a, opcode, b, 1, 0);
		KUNIT_EXPECT_EQ(test, atomic64_read(&src->ports[plane].tx.bytes),
				share[plane]);
		KUNIT_EXPECT_EQ(test, atomic64_read(&dst->ports[plane].rx.bytes),
				share[plane]);
		KUNIT_EXPECT_EQ(test,
				atomic64_read(&src->ports[plane].tx.busy_ps),
				ser);
		KUNIT_EXPECT_EQ(test,
				atomic64_read(&dst->ports[plane].rx.busy_ps),
				ser);
		sum += atomic64_read(&src->ports[plane].tx.bytes);
	}
	KUNIT_EXPECT_EQ(test, sum, bytes);
}

/*
 * The deal starts where the entry's walk did, not at the lowest plane;
 * from a plane that is down, at the next one up; a short last chunk.
 */
static void ubfab_kunit_deals(struct kunit *test)
{
	u32 c = UBFAB_PLANE_CHUNK;

	ubfab_kunit_deal(test, 0, 0x7f, 8 * c, UBFAB_OP_WRITE);
	ubfab_kunit_deal(test, 3, 0x7f, 8 * c + 100, UBFAB_OP_WRITE);
	ubfab_kunit_deal(test, 6, 0x7f, 16 * c - 1, UBFAB_OP_WRITE);
	ubfab_kunit_deal(test, 5, 0x3b, 6 * c, UBFAB_OP_WRITE);
	ubfab_kunit_deal(test, 2, 0x3b, 7 * c + 1, UBFAB_OP_READ);
	ubfab_kunit_deal(test, 6, 0x3b, 9 * c, UBFAB_OP_WRITE);
}

/*
 * Contention: transfers that share a link wait for each other, first
 * come first served; disjoint ones do not; one earlier in modeled time
 * than a link's last reservation goes in the idle gap before it, after
 * what holds the link earlier still, if it has room, and waits for the
 * link's end if not. Over 2 planes, so that the links set the pace, not
 * the initiator's DMA engine.
 */
static void ubfab_kunit_contention(struct kunit *test)
{
	struct ubfab_fabric *fab = ubfab_kunit_fabric(test);
	struct ubfab_loc *n[10], *far[2];
	struct ubfab_exec ex = {
		.sqe.opcode = UBFAB_OP_WRITE, .plane_mask = 0x3,
		.bytes = SZ_1M,
	};
	/* 1 MiB over 2 links at 69.9%: 2^20 x 10^9 / (2 x 28000 x 699) */
	u64 dur = 26787656, one, one_far;
	unsigned int i;

	for (i = 0; i < 10; i++)
		n[i] = ubfab_kunit_entity(test, fab, i,
					  ubfab_kunit_npu(0, i / 2, i % 2));
	for (i = 0; i < 2; i++)
		far[i] = ubfab_kunit_entity(test, fab, 10 + i,
					    ubfab_kunit_npu(1, i, 0));
	ex.peer = n[2];
	one = ubfab_model_cost_ps(p, n[0], &ex, NULL);
	ex.peer = far[0];
	one_far = ubfab_model_cost_ps(p, n[0], &ex, NULL);

	/* two senders into one receiver at once: the second waits */
	KUNIT_EXPECT_EQ(test, ubfab_kunit_charge(test, n[0], n[2], &ex, 0), one);
	KUNIT_EXPECT_EQ(test, ubfab_kunit_charge(test, n[1], n[2], &ex, 0),
			one + dur);
	/* a disjoint pair does not */
	KUNIT_EXPECT_EQ(test, ubfab_kunit_charge(test, n[4], n[6], &ex, 0), one);
	/*
	 * far ahead in modeled time, then one behind it: it goes in the gap
	 * before, after the two at 0
	 */
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_charge(test, n[5], n[2], &ex, 10000000000),
			10000000000 + one);
	KUNIT_EXPECT_EQ(test, ubfab_kunit_charge(test, n[7], n[2], &ex, 0),
			one + 2 * dur);
	/*
	 * one behind it that would still hold the link when that began: it
	 * waits for its end rather than share the link beyond its bandwidth
	 */
	KUNIT_EXPECT_GE(test,
			ubfab_kunit_charge(test, n[7], n[2], &ex,
					   10000000000 - dur / 2),
			10000000000 + one + dur / 2);
	/* to the other node, one L2 switch: the uplink is shared */
	KUNIT_EXPECT_EQ(test, ubfab_kunit_charge(test, n[8], far[0], &ex, 0),
			one_far);
	KUNIT_EXPECT_EQ(test, ubfab_kunit_charge(test, n[9], far[1], &ex, 0),
			one_far + dur);
	/* a READ's data comes over the peer's port and into the reader's */
	ex.sqe.opcode = UBFAB_OP_READ;
	ex.peer = n[6];
	one = ubfab_model_cost_ps(p, n[3], &ex, NULL);
	KUNIT_EXPECT_EQ(test, ubfab_kunit_charge(test, n[3], n[6], &ex, 0), one);
	/* n[6]'s rx took n[4]'s write: its tx is idle */
	KUNIT_EXPECT_LT(test, one, ubfab_kunit_charge(test, n[3], n[7], &ex, 0));
}

/*
 * The idle gaps a link keeps: two transfers behind work later in modeled
 * time that would overlap in the gap before it see each other, the
 * second waiting for the first; one that fills a gap exactly goes in it,
 * and the next waits for the link's end; of a link that keeps all the
 * gaps it can, a new one merges two, of which only the idle time is then
 * known, taken as spread evenly over them. Into n[1], n[4] and n[7],
 * each transfer from a sender of its own (each on a chip of its own), so
 * that only the receiver's port is shared.
 */
static void ubfab_kunit_gaps(struct kunit *test)
{
	struct ubfab_fabric *fab = ubfab_kunit_fabric(test);
	struct ubfab_exec ex = {
		.sqe.opcode = UBFAB_OP_WRITE, .plane_mask = 0x3,
		.bytes = SZ_1M,
	};
	/* 1 MiB over 2 links, as in ubfab_kunit_contention() */
	u64 dur = 26787656, far = 10000000000, g = 10 * dur, one;
	struct ubfab_loc *n[2 * UBFAB_LINK_GAPS + 17], **m;
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(n); i++)
		n[i] = ubfab_kunit_entity(test, fab, i,
					  ubfab_kunit_npu(0, i, 0));
	ex.peer = n[1];
	one = ubfab_model_cost_ps(p, n[0], &ex, NULL);

	/* n[1]'s port from n[0]'s far ahead; n[2]'s behind it goes in the gap */
	KUNIT_EXPECT_EQ(test, ubfab_kunit_charge(test, n[0], n[1], &ex, far),
			far + one);
	KUNIT_EXPECT_EQ(test, ubfab_kunit_charge(test, n[2], n[1], &ex, 0),
			one);
	/* n[3]'s at the same time would overlap n[2]'s: it waits for it */
	KUNIT_EXPECT_EQ(test, ubfab_kunit_charge(test, n[3], n[1], &ex, 0),
			one + dur);
	/* 2 dur before n[0]'s: it splits the gap, dur left before n[0]'s */
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_charge(test, n[5], n[1], &ex, far - 2 * dur),
			far - 2 * dur + one);
	/* which one fills exactly, and the next waits for the end */
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_charge(test, n[6], n[1], &ex, far - dur),
			far - dur + one);
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_charge(test, n[8], n[1], &ex, far - dur),
			far + dur + one);
	/* the gap between n[3]'s and n[5]'s is still there */
	KUNIT_EXPECT_EQ(test, ubfab_kunit_charge(test, n[9], n[1], &ex, 0),
			one + 2 * dur);

	/*
	 * n[4]'s port: UBFAB_LINK_GAPS transfers from g on, 2 dur apart,
	 * keep a gap before each, the first from 0: one at 0 fits there
	 */
	m = n + 10;
	for (i = 0; i < UBFAB_LINK_GAPS; i++)
		ubfab_kunit_charge(test, m[i], n[4], &ex, g + 2 * dur * i);
	KUNIT_EXPECT_EQ(test, ubfab_kunit_charge(test, m[i], n[4], &ex, 0),
			one);
	/*
	 * n[7]'s: one more, far later: the gaps of dur are merged, with the
	 * holds between (neighbours close together; not the gap from 0,
	 * which still has room at far), until it keeps half: the first
	 * four, 7 dur with 4 dur idle, then the next three, 5 dur with 3
	 */
	m += UBFAB_LINK_GAPS + 1;
	for (i = 0; i <= UBFAB_LINK_GAPS; i++)
		ubfab_kunit_charge(test, m[i], n[7], &ex,
				   far + g + 2 * dur * i);
	KUNIT_EXPECT_EQ(test, ubfab_kunit_charge(test, m[i], n[7], &ex, far),
			far + one);
	/*
	 * at the first's hold: 6/7 of its idle time is after it, room for
	 * three but not a fourth, which waits for the next merged gap
	 */
	for (j = 1; j <= 3; j++)
		KUNIT_EXPECT_EQ(test,
				ubfab_kunit_charge(test, m[i + j], n[7], &ex,
						   far + g + 2 * dur),
				far + g + 2 * dur + one);
	KUNIT_EXPECT_EQ(test, ubfab_kunit_charge(test, m[i + j], n[7], &ex,
						 far + g + 2 * dur),
			far + g + 9 * dur + one);
}

/*
 * The initiator's resources: one DMA engine's bandwidth caps a transfer
 * over 7 planes; a queue uses engine (its number modulo dma-engines), so
 * queues 0 and 4 of a die share one and queue 1 does not; an engine is
 * held for a transfer's issue cost at least; another die's engines are
 * its own; a vector-core path is not slower than one plane.
 */
static void ubfab_kunit_engines(struct kunit *test)
{
	struct ubfab_fabric *fab = ubfab_kunit_fabric(test);
	struct ubfab_loc *n[6];
	struct ubfab_exec ex = {
		.sqe.opcode = UBFAB_OP_WRITE, .plane_mask = 0x7f,
		.bytes = SZ_16M,
	};
	u64 lat = p->issue_ps + p->dma_ps + 2 * p->hop_ps + p->target_ps[0][0];
	/* 16 MiB through one engine: 2^24 x 10^6 / 56000 ps, ceil */
	u64 eng = 299593143, one, small;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, p->engines[UBFAB_MODEL_DMA], 4);
	for (i = 0; i < 6; i++)
		n[i] = ubfab_kunit_entity(test, fab, i,
					  ubfab_kunit_npu(0, i, 0));
	/* alone: the engine's 56 GB/s, not the links' 137 */
	ex.peer = n[1];
	one = ubfab_model_cost_ps(p, n[0], &ex, NULL);
	KUNIT_EXPECT_EQ(test, one, lat + eng);
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_charge_q(test, n[0], n[1], &ex, 0, 0), one);
	/*
	 * queue 1 has an engine of its own: to another peer over the same
	 * ports, after queue 0's share of them (its bytes at the links'
	 * pace, 37 chunks on the first plane: 124 us), its bytes still
	 * come at its engine's pace, 300 us; queue 4 waits for queue 0's
	 * engine
	 */
	ex.peer = n[2];
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_charge_q(test, n[0], n[2], &ex, 0, 1), one);
	ex.peer = n[3];
	KUNIT_EXPECT_EQ(test, ubfab_kunit_charge_q(test, n[0], n[3], &ex, 0, 4),
			one + eng);
	/* another die's queue 0: its own engine, idle links */
	ex.peer = n[5];
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_charge_q(test, n[4], n[5], &ex, 0, 0), one);

	/* a small message: the engine's issue cost holds it, 100 ns */
	ex.bytes = 64;
	ex.plane_mask = 1;
	ex.peer = n[1];
	small = ubfab_model_cost_ps(p, n[4], &ex, NULL);
	KUNIT_EXPECT_EQ(test, ubfab_kunit_charge_q(test, n[4], n[1], &ex,
						   SZ_1G, 0), SZ_1G + small);
	/* the same engine at the same time, another plane and peer: after it */
	ex.plane_mask = 2;
	ex.peer = n[2];
	KUNIT_EXPECT_EQ(test, ubfab_kunit_charge_q(test, n[4], n[2], &ex,
						   SZ_1G, 4),
			SZ_1G + small + p->gap_ps[UBFAB_MODEL_DMA]);
	KUNIT_EXPECT_LE(test, p->gap_ps[UBFAB_MODEL_DMA], p->dma_ps);

	/* memory semantics: 64 KiB on one link, faster through its path */
	ex.sqe.flags = UBFAB_SQE_MEMSEM;
	ex.bytes = SZ_64K;
	ex.plane_mask = 1;
	KUNIT_EXPECT_EQ(test, ubfab_model_cost_ps(p, n[0], &ex, NULL) -
			p->issue_ps - p->memsem_ps - 2 * p->hop_ps -
			p->target_ps[0][0], 3348457);
}

/* Whether links @a and @b stand the same: their times, gaps and counters. */
static void ubfab_kunit_same_link(struct kunit *test,
				  const struct ubfab_link *a,
				  const struct ubfab_link *b)
{
	unsigned int i;

	KUNIT_EXPECT_EQ(test, a->end_ps, b->end_ps);
	KUNIT_ASSERT_EQ(test, a->nr_gaps, b->nr_gaps);
	for (i = 0; i < a->nr_gaps; i++) {
		KUNIT_EXPECT_EQ(test, a->gaps[i].from_ps,
				b->gaps[i].from_ps);
		KUNIT_EXPECT_EQ(test, a->gaps[i].to_ps,
				b->gaps[i].to_ps);
		KUNIT_EXPECT_EQ(test, a->gaps[i].idle_ps,
				b->gaps[i].idle_ps);
	}
	KUNIT_EXPECT_EQ(test, atomic64_read(&a->busy_ps),
			atomic64_read(&b->busy_ps));
	KUNIT_EXPECT_EQ(test, atomic64_read(&a->bytes),
			atomic64_read(&b->bytes));
}

/* Fabrics ubfab_kunit_runs() charges the same transfers in, three ways. */
enum { UBFAB_KUNIT_ANEW, UBFAB_KUNIT_ALIKE, UBFAB_KUNIT_BURST, UBFAB_KUNIT_WAYS };

/*
 * Charge 8 copies of @ex from entity @from to @to on a clock of queue
 * @qid at @now, in each fabric of @n (entities @n[way]): each priced anew
 * (ubfab_model_charge_new(), the links found again: the reference), one
 * by one alike the last (the queue's way remembered: its engine and links
 * taken the short way while they are free, ubfab_model_delay()), and as a
 * burst (runs reserved at once); expect the same model_ns for each and
 * the same clocks, and in the burst, after the first, the rest up to
 * entry @odd, which moves twice the bytes (none if 0), left to the run
 * (run_left) when @runs, else contending one by one (run_lone). With
 * @rotate, the planes up, entry i takes the (i mod their number)-th of
 * them, as the fast path's plane cursor moves.
 */
static void ubfab_kunit_run(struct kunit *test,
			    struct ubfab_loc *n[UBFAB_KUNIT_WAYS][5],
			    unsigned int from, unsigned int to,
			    const struct ubfab_exec *ex, u32 qid, u64 now,
			    bool runs, unsigned int odd, unsigned long rotate)
{
	struct ubfab_exec *x = kunit_kcalloc(test, UBFAB_KUNIT_WAYS * 8,
					     sizeof(*x), GFP_KERNEL);
	struct ubfab_model_clock *c = kunit_kcalloc(test, UBFAB_KUNIT_WAYS,
						    sizeof(*c), GFP_KERNEL);
	unsigned int i, w, plane = 0;

	KUNIT_ASSERT_NOT_NULL(test, x);
	KUNIT_ASSERT_NOT_NULL(test, c);
	for (w = 0; w < UBFAB_KUNIT_WAYS; w++) {
		ubfab_model_clock_init(&c[w], 0, qid);
		c[w].now_ps = now;
		for (i = 0, plane = 0; i < 8; i++) {
			x[w * 8 + i] = *ex;
			x[w * 8 + i].peer = n[w][to];
			if (!rotate)
				continue;
			plane = find_next_bit(&rotate, 7, plane);
			if (plane == 7)
				plane = find_first_bit(&rotate, 7);
			x[w * 8 + i].plane_mask = BIT(plane++);
		}
		/* not alike: the run ends before it */
		if (odd) {
			x[w * 8 + odd].bytes *= 2;
			x[w * 8 + odd].sqe.length = x[w * 8 + odd].bytes;
		}
	}
	for (i = 0; i < 8; i++) {
		/* nothing to price it like: ubfab_model_charge_new() */
		c[UBFAB_KUNIT_ANEW].last_bytes = U32_MAX;
		ubfab_model_charge(&c[UBFAB_KUNIT_ANEW],
				   n[UBFAB_KUNIT_ANEW][from], &x[i]);
		ubfab_model_charge(&c[UBFAB_KUNIT_ALIKE],
				   n[UBFAB_KUNIT_ALIKE][from], &x[8 + i]);
		__ubfab_model_charge(&c[UBFAB_KUNIT_BURST],
				     n[UBFAB_KUNIT_BURST][from], &x[16 + i],
				     false, 7 - i);
		KUNIT_EXPECT_EQ(test, c[UBFAB_KUNIT_ANEW].now_ps,
				c[UBFAB_KUNIT_ALIKE].now_ps);
		KUNIT_EXPECT_NE(test, x[i].model_ns, 0);
		KUNIT_EXPECT_EQ(test, x[i].model_ns, x[8 + i].model_ns);
		KUNIT_EXPECT_EQ(test, x[i].model_ns, x[16 + i].model_ns);
		if (i == 1)
			KUNIT_EXPECT_EQ_MSG(test,
					    runs ? c[UBFAB_KUNIT_BURST].run_left :
					    c[UBFAB_KUNIT_BURST].run_lone,
					    odd ? odd - 2 : 6, "%u to %u",
					    from, to);
	}
	KUNIT_EXPECT_EQ(test, c[UBFAB_KUNIT_ANEW].now_ps,
			c[UBFAB_KUNIT_BURST].now_ps);
	KUNIT_EXPECT_EQ(test, c[UBFAB_KUNIT_ANEW].entries, 8);
	KUNIT_EXPECT_EQ(test, c[UBFAB_KUNIT_BURST].entries, 8);
}

/*
 * In each fabric of @n, 1 MiB WRITE from entity @by to @to over the
 * planes @mask, leaving half way between the second and the third of a
 * run of 64-byte WRITEs from @from to @to that starts at @now: it holds
 * the links it shares with the run from between them.
 */
static void ubfab_kunit_between(struct kunit *test,
				struct ubfab_loc *n[UBFAB_KUNIT_WAYS][5],
				unsigned int by, unsigned int from,
				unsigned int to, u32 mask, u64 now)
{
	struct ubfab_exec ex = {
		.sqe.opcode = UBFAB_OP_WRITE, .plane_mask = mask, .bytes = 64,
		.peer = n[0][to],
	};
	u64 cost = ubfab_model_cost_ps(p, n[0][from], &ex, NULL);
	unsigned int w;

	ex.bytes = SZ_1M;
	for (w = 0; w < UBFAB_KUNIT_WAYS; w++)
		ubfab_kunit_charge_q(test, n[w][by], n[w][to], &ex,
				     now + cost * 3 / 2, 0);
}

/*
 * Transfers over the die-to-die link and loopbacks hold their DMA engine
 * too: two queues sharing one wait for each other there, a queue alone
 * on its engine keeps nothing there and waits for nothing, until a
 * second queue comes to share it.
 */
static void ubfab_kunit_die_engines(struct kunit *test)
{
	struct ubfab_fabric *fab = ubfab_kunit_fabric(test);
	struct ubfab_exec ex = {
		.sqe.opcode = UBFAB_OP_WRITE, .plane_mask = 0x7f,
		.bytes = SZ_16M,
	};
	/* 16 MiB through one engine: 2^24 x 10^6 / 56000 ps, ceil */
	u64 eng = 299593143, one, self;
	struct ubfab_entity *e[3];
	struct ubfab_loc *n[3];
	unsigned int i;

	KUNIT_EXPECT_EQ(test, p->engines[UBFAB_MODEL_DMA], 4);
	for (i = 0; i < 3; i++) {
		n[i] = ubfab_kunit_entity(test, fab, i,
					  ubfab_kunit_npu(0, i / 2, i % 2));
		e[i] = container_of(n[i], struct ubfab_entity, loc);
	}
	/* queues 0 and 4 of n0 share its first engine */
	ubfab_model_queue_users(e[0], 0, 1);
	ubfab_model_queue_users(e[0], 4, 1);
	KUNIT_EXPECT_EQ(test, e[0]->engine_users[3][0], 2);
	KUNIT_EXPECT_EQ(test, e[0]->engine_users[0][0], 2);

	/* to the other die at the engine's 56 GB/s, not the link's 270 */
	ex.peer = n[1];
	one = ubfab_model_cost_ps(p, n[0], &ex, NULL);
	KUNIT_EXPECT_EQ(test, one, p->issue_ps + p->dma_ps + 2 * p->die_ps +
			p->target_ps[0][0] + eng);
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_charge_q(test, n[0], n[1], &ex, 0, 0), one);
	/* queue 4 at the same time: after queue 0's bytes through it */
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_charge_q(test, n[0], n[1], &ex, 0, 4),
			one + eng);
	/* a loopback on the same engine then waits for both */
	ex.peer = n[0];
	self = ubfab_model_cost_ps(p, n[0], &ex, NULL);
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_charge_q(test, n[0], n[0], &ex, 0, 0),
			self + 2 * eng);
	/* queue 1, not counted (no queue was made), holds an engine of its own */
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_charge_q(test, n[0], n[0], &ex, 0, 1),
			self);
	KUNIT_EXPECT_NE(test, e[0]->engines[1].end_ps, 0);

	/* n2's only queue: its engine keeps nothing, it waits for nothing */
	ubfab_model_queue_users(e[2], 2, 1);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test,
				ubfab_kunit_charge_q(test, n[2], n[2], &ex, 0,
						     2),
				self);
	KUNIT_EXPECT_EQ(test, e[2]->engines[2].end_ps, 0);
	/* a second queue on it: both hold it from then on */
	ubfab_model_queue_users(e[2], 6, 1);
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_charge_q(test, n[2], n[2], &ex, 0, 2), self);
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_charge_q(test, n[2], n[2], &ex, 0, 6),
			self + eng);
	/* gone again: the one left waits for what they kept there */
	ubfab_model_queue_users(e[2], 6, -1);
	KUNIT_EXPECT_EQ(test,
			ubfab_kunit_charge_q(test, n[2], n[2], &ex, 0, 2),
			self + 2 * eng);
}

/*
 * A burst's runs of small transfers alike, their engine and links
 * reserved at once, and transfers alike one by one, taking them the
 * short way, end as each priced anew would and leave every engine and
 * link as it would: on idle links within a node and to another, for a
 * READ, passing by work later in modeled time, and, when the first would
 * wait, one by one.
 */
static void ubfab_kunit_runs(struct kunit *test)
{
	struct ubfab_fabric *fab[UBFAB_KUNIT_WAYS];
	struct ubfab_exec ex = {
		.sqe.opcode = UBFAB_OP_WRITE, .plane_mask = 1, .bytes = 64,
	};
	struct ubfab_loc *n[UBFAB_KUNIT_WAYS][5];
	struct ubfab_entity *e, *f;
	unsigned int i, j, w;

	for (w = 0; w < UBFAB_KUNIT_WAYS; w++) {
		fab[w] = ubfab_kunit_fabric(test);
		for (i = 0; i < 4; i++)
			n[w][i] = ubfab_kunit_entity(test, fab[w], i,
						     ubfab_kunit_npu(0, i, 0));
		n[w][4] = ubfab_kunit_entity(test, fab[w], 4,
					     ubfab_kunit_npu(1, 0, 0));
	}

	ubfab_kunit_run(test, n, 0, 1, &ex, 0, 0, true, 0, 0);
	ex.plane_mask = 2;
	ubfab_kunit_run(test, n, 0, 4, &ex, 1, 0, true, 0, 0);
	ex.sqe.opcode = UBFAB_OP_READ;
	ubfab_kunit_run(test, n, 2, 0, &ex, 0, SZ_1G, true, 0, 0);
	/*
	 * n0's port into plane 1 is held at the same times by the run to n4
	 * and later by the READ, the short busy stretches between the gaps
	 * they left merged into one gap: the run lies in it, which has room
	 * for all of it, and goes at once, taking its holds out of the gap's
	 * idle time as one by one each would
	 */
	ex.sqe.opcode = UBFAB_OP_WRITE;
	ubfab_kunit_run(test, n, 0, 3, &ex, 2, 0, true, 0, 0);
	/*
	 * 1 MiB into n1 over plane 0 holds its port from a time between the
	 * second and the third of a run from n2: the run would wait
	 */
	ubfab_kunit_between(test, n, 3, 2, 1, 1, SZ_1G);
	ex.plane_mask = 1;
	ubfab_kunit_run(test, n, 2, 1, &ex, 1, SZ_1G, false, 0, 0);
	/*
	 * to another node, 1 MiB from n1 taking the second link on the way,
	 * the L1's uplink, between the second and the third: their engine
	 * and port out are free, the uplink is not (the short way stops
	 * there)
	 */
	ubfab_kunit_between(test, n, 1, 0, 4, 4, 2ULL * SZ_1G);
	ex.plane_mask = 4;
	ubfab_kunit_run(test, n, 0, 4, &ex, 3, 2ULL * SZ_1G, false, 0, 0);

	/* a burst of alike transfers but the sixth: a run of four */
	ex.plane_mask = 1;
	ubfab_kunit_run(test, n, 0, 1, &ex, 0, 3ULL * SZ_1G, true, 5, 0);

	/*
	 * entries alike taking the planes in turn, as the fast path gives
	 * them out, plane 3 down: each holds its own plane's links, within
	 * a node and to another, for a READ; and with one of another length
	 * between
	 */
	ubfab_kunit_run(test, n, 0, 1, &ex, 0, 4ULL * SZ_1G, true, 0, 0x77);
	ubfab_kunit_run(test, n, 1, 4, &ex, 1, 4ULL * SZ_1G, true, 0, 0x7f);
	ex.sqe.opcode = UBFAB_OP_READ;
	ubfab_kunit_run(test, n, 3, 2, &ex, 2, 5ULL * SZ_1G, true, 0, 0x7f);
	ex.sqe.opcode = UBFAB_OP_WRITE;
	ubfab_kunit_run(test, n, 2, 4, &ex, 3, 6ULL * SZ_1G, true, 4, 0x6f);
	/*
	 * 1 MiB into n1 over plane 2 holds its port from a time between the
	 * second and the third of a run from n2 taking the planes in turn:
	 * the third, on plane 2, would wait, and the run with it
	 */
	ubfab_kunit_between(test, n, 3, 2, 1, 4, 7ULL * SZ_1G);
	ubfab_kunit_run(test, n, 2, 1, &ex, 1, 7ULL * SZ_1G, false, 0, 0x7f);

	for (w = 1; w < UBFAB_KUNIT_WAYS; w++) {
		for (i = 0; i < 5; i++) {
			e = container_of(n[0][i], struct ubfab_entity, loc);
			f = container_of(n[w][i], struct ubfab_entity, loc);
			for (j = 0; j < UBFAB_MODEL_ENGINES; j++)
				ubfab_kunit_same_link(test, &e->engines[j],
						      &f->engines[j]);
			for (j = 0; j < 7; j++) {
				ubfab_kunit_same_link(test, &e->ports[j].tx,
						      &f->ports[j].tx);
				ubfab_kunit_same_link(test, &e->ports[j].rx,
						      &f->ports[j].rx);
			}
		}
		for (i = 0; i < 7; i++)
			for (j = 0; j < ubfab_plane_nr_links(&fab[0]->planes[i]);
			     j++)
				ubfab_kunit_same_link(test,
						      &fab[0]->planes[i].links[j],
						      &fab[w]->planes[i].links[j]);
	}
	/*
	 * and they did hold links: n0's port into plane 0 carried the first
	 * 8 and the last burst's 7 of 64 bytes and one of 128, and of the
	 * 8 taking planes 0, 1, 2, 4, 5, 6 in turn the first and the seventh
	 */
	e = container_of(n[0][0], struct ubfab_entity, loc);
	KUNIT_EXPECT_EQ(test, atomic64_read(&e->ports[0].tx.bytes),
			17 * 64 + 128);
	/* plane 3 was down: its port carried none of them */
	KUNIT_EXPECT_EQ(test, atomic64_read(&e->ports[3].tx.bytes), 0);
}

static struct kunit_case ubfab_model_cases[] = {
	KUNIT_CASE(ubfab_kunit_path),
	KUNIT_CASE(ubfab_kunit_still),
	KUNIT_CASE(ubfab_kunit_latency),
	KUNIT_CASE(ubfab_kunit_calibration),
	KUNIT_CASE(ubfab_kunit_striping),
	KUNIT_CASE(ubfab_kunit_imbalance),
	KUNIT_CASE(ubfab_kunit_deals),
	KUNIT_CASE(ubfab_kunit_faults),
	KUNIT_CASE(ubfab_kunit_local),
	KUNIT_CASE(ubfab_kunit_largest),
	KUNIT_CASE(ubfab_kunit_ns),
	KUNIT_CASE(ubfab_kunit_clock),
	KUNIT_CASE(ubfab_kunit_contention),
	KUNIT_CASE(ubfab_kunit_gaps),
	KUNIT_CASE(ubfab_kunit_engines),
	KUNIT_CASE(ubfab_kunit_die_engines),
	KUNIT_CASE(ubfab_kunit_runs),
	{}
};

static struct kunit_suite ubfab_model_suite = {
	.name = "ubfab-model",
	.test_cases = ubfab_model_cases,
};

kunit_test_suite(ubfab_model_suite);
