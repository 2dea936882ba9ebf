// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the routing and chunk arithmetic of the queue data path
 * in xfer.c: which plane each chunk of a transfer takes, how a transfer is
 * cut into chunks, how many pages a chunk touches, the overflow-safe
 * range check every address goes through, and that the rows of the
 * opcode table the fast path takes are what it compiles its checks
 * against. Built into ubfab.ko when the
 * kernel has KUnit; the suite runs when the module loads.
 */
#include <kunit/test.h>

#include "route.h"

/*
 * Deal the chunks of a @length byte transfer as xfer.c does, from the
 * round-robin position @start, and expect the planes @want: as many as
 * there are chunks, or fewer when the deal stops on a chunk with no plane.
 */
static void ubfab_kunit_expect_deal(struct kunit *test, u32 usable,
				    u32 nr_planes, u32 start, u32 length,
				    const u32 *want, u32 nr_want)
{
	u32 done, len, plane, next = start, n = 0;

	for (done = 0; done < length; done += len) {
		len = ubfab_route_chunk_len(length, done);
		plane = ubfab_route_pick_plane(usable, nr_planes, &next);
		if (plane == UBFAB_NO_PLANE)
			break;
		KUNIT_ASSERT_LT(test, n, nr_want);
		KUNIT_EXPECT_EQ_MSG(test, plane, want[n], "chunk %u", n);
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, nr_want);
}

/* The plane picked from position @from, and where the position moves. */
static void ubfab_kunit_expect_pick(struct kunit *test, u32 usable,
				    u32 nr_planes, u32 from, u32 plane,
				    u32 next)
{
	u32 pos = from;

	KUNIT_EXPECT_EQ_MSG(test, ubfab_route_pick_plane(usable, nr_planes,
							 &pos),
			    plane, "usable %#x of %u from %u", usable,
			    nr_planes, from);
	KUNIT_EXPECT_EQ_MSG(test, pos, next, "usable %#x of %u from %u",
			    usable, nr_planes, from);
}

static void ubfab_kunit_pick_plane(struct kunit *test)
{
	const u32 none = UBFAB_NO_PLANE;

	/* every plane usable: the position itself */
	ubfab_kunit_expect_pick(test, 0x7f, 7, 0, 0, 1);
	ubfab_kunit_expect_pick(test, 0x7f, 7, 6, 6, 0);
	/* positions wrap modulo the plane count */
	ubfab_kunit_expect_pick(test, 0x7f, 7, 7, 0, 1);
	ubfab_kunit_expect_pick(test, 0x7f, 7, U32_MAX, U32_MAX % 7,
				(U32_MAX % 7 + 1) % 7);
	/* unusable planes are skipped, wrapping past the last */
	ubfab_kunit_expect_pick(test, 0x5, 4, 1, 2, 3);
	ubfab_kunit_expect_pick(test, 0x5, 4, 3, 0, 1);
	ubfab_kunit_expect_pick(test, BIT(15), 16, 0, 15, 0);
	ubfab_kunit_expect_pick(test, 0x1, 1, 5, 0, 0);
	/* no route: the position stays; bits beyond the count do not count */
	ubfab_kunit_expect_pick(test, 0xf0, 4, 2, none, 2);
	ubfab_kunit_expect_pick(test, 0, 16, 3, none, 3);
}

static void ubfab_kunit_chunks(struct kunit *test)
{
	u32 lengths[] = { 1, 4095, UBFAB_PLANE_CHUNK - 1, UBFAB_PLANE_CHUNK,
			  UBFAB_PLANE_CHUNK + 1, 5 * UBFAB_PLANE_CHUNK + 300,
			  UBFAB_SQE_MAX_LENGTH };
	u32 i, done, len, n;

	for (i = 0; i < ARRAY_SIZE(lengths); i++) {
		n = 0;
		for (done = 0; done < lengths[i]; done += len) {
			len = ubfab_route_chunk_len(lengths[i], done);
			KUNIT_ASSERT_GT(test, len, 0);
			KUNIT_ASSERT_LE(test, len, UBFAB_PLANE_CHUNK);
			/* only the last chunk is short */
			if (done + len < lengths[i])
				KUNIT_EXPECT_EQ(test, len, UBFAB_PLANE_CHUNK);
			n++;
		}
		KUNIT_EXPECT_EQ_MSG(test, done, lengths[i], "length %u",
				    lengths[i]);
		KUNIT_EXPECT_EQ_MSG(test, n,
				    DIV_ROUND_UP(lengths[i], UBFAB_PLANE_CHUNK),
				    "length %u", lengths[i]);
	}
}

/* A transfer's chunks go round-robin over the usable planes. */
static void ubfab_kunit_deal_chunks(struct kunit *test)
{
	static const u32 all_up[] = { 2, 3, 0, 1, 2 };
	static const u32 one_down[] = { 2, 3, 0, 2, 3 };
	static const u32 start_down[] = { 3 };
	u32 seven[14], i;

	/* 5 chunks over 4 planes from plane 2 */
	ubfab_kunit_expect_deal(test, 0xf, 4, 2, 4 * UBFAB_PLANE_CHUNK + 44,
				all_up, ARRAY_SIZE(all_up));
	/* plane 1 down: it is skipped, the others share its chunks */
	ubfab_kunit_expect_deal(test, 0xd, 4, 2, 5 * UBFAB_PLANE_CHUNK,
				one_down, ARRAY_SIZE(one_down));
	/* the start plane down: the first chunk takes the next one up */
	ubfab_kunit_expect_deal(test, 0xb, 4, 2, 1, start_down,
				ARRAY_SIZE(start_down));
	/* seven planes, 14 chunks: each plane carries two */
	for (i = 0; i < ARRAY_SIZE(seven); i++)
		seven[i] = (4 + i) % 7;
	ubfab_kunit_expect_deal(test, 0x7f, 7, 4, 14 * UBFAB_PLANE_CHUNK,
				seven, ARRAY_SIZE(seven));
	/* nothing usable: no chunk moves */
	ubfab_kunit_expect_deal(test, 0, 7, 0, 100, NULL, 0);
}

static void ubfab_kunit_npages(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ubfab_xfer_npages(0, 1), 1);
	KUNIT_EXPECT_EQ(test, ubfab_xfer_npages(0, PAGE_SIZE), 1);
	KUNIT_EXPECT_EQ(test, ubfab_xfer_npages(1, PAGE_SIZE), 2);
	KUNIT_EXPECT_EQ(test, ubfab_xfer_npages(PAGE_SIZE - 1, 2), 2);
	KUNIT_EXPECT_EQ(test, ubfab_xfer_npages(PAGE_SIZE - 8, 8), 1);
	KUNIT_EXPECT_EQ(test, ubfab_xfer_npages(5 * PAGE_SIZE, 3 * PAGE_SIZE),
			3);
	/* a chunk at any offset touches at most one page more than aligned */
	KUNIT_EXPECT_EQ(test, ubfab_xfer_npages(0, UBFAB_PLANE_CHUNK),
			DIV_ROUND_UP(UBFAB_PLANE_CHUNK, PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, ubfab_xfer_npages(PAGE_SIZE - 1,
						UBFAB_PLANE_CHUNK),
			DIV_ROUND_UP(UBFAB_PLANE_CHUNK, PAGE_SIZE) + 1);
	KUNIT_EXPECT_EQ(test, ubfab_xfer_npages(UBFAB_MAX_MEM - 1, 1), 1);
}

static void ubfab_kunit_range_ok(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, ubfab_xfer_range_ok(0, 4096, 4096));
	KUNIT_EXPECT_TRUE(test, ubfab_xfer_range_ok(4088, 8, 4096));
	KUNIT_EXPECT_TRUE(test, ubfab_xfer_range_ok(4096, 0, 4096));
	KUNIT_EXPECT_FALSE(test, ubfab_xfer_range_ok(4089, 8, 4096));
	KUNIT_EXPECT_FALSE(test, ubfab_xfer_range_ok(4096, 1, 4096));
	KUNIT_EXPECT_FALSE(test, ubfab_xfer_range_ok(0, 4097, 4096));
	/* sums that wrap around are out of range, not small */
	KUNIT_EXPECT_FALSE(test, ubfab_xfer_range_ok(U64_MAX, 1, U64_MAX));
	KUNIT_EXPECT_FALSE(test, ubfab_xfer_range_ok(U64_MAX - 7,
						     UBFAB_SQE_MAX_LENGTH,
						     4096));
	KUNIT_EXPECT_FALSE(test, ubfab_xfer_range_ok(1, U64_MAX, U64_MAX));
	KUNIT_EXPECT_TRUE(test, ubfab_xfer_range_ok(1, U64_MAX - 1, U64_MAX));
}

/*
 * The fast path checks entries against UBFAB_OP_DATA_UNUSED as a
 * constant: it must be the @unused of every row it takes, and those rows
 * must need a right of the import.
 */
static void ubfab_kunit_fast_rows(struct kunit *test)
{
	const struct ubfab_sqe data_unused = UBFAB_OP_DATA_UNUSED;
	unsigned int opcode, fast = 0;

	for (opcode = 0; opcode < ARRAY_SIZE(ubfab_ops); opcode++) {
		const struct ubfab_opdesc *op = &ubfab_ops[opcode];

		KUNIT_EXPECT_EQ(test, ubfab_op_fast(opcode),
				!!(op->flags & UBFAB_OPF_FAST));
		if (!(op->flags & UBFAB_OPF_FAST))
			continue;
		fast++;
		KUNIT_EXPECT_MEMEQ_MSG(test, &op->unused, &data_unused,
				       sizeof(data_unused), "opcode %u",
				       opcode);
		KUNIT_EXPECT_NE_MSG(test, op->right, 0, "opcode %u", opcode);
	}
	/* WRITE and READ */
	KUNIT_EXPECT_EQ(test, fast, 2);
	KUNIT_EXPECT_FALSE(test, ubfab_op_fast(ARRAY_SIZE(ubfab_ops)));
	KUNIT_EXPECT_FALSE(test, ubfab_op_fast(U8_MAX));
}

static struct kunit_case ubfab_xfer_cases[] = {
	KUNIT_CASE(ubfab_kunit_pick_plane),
	KUNIT_CASE(ubfab_kunit_chunks),
	KUNIT_CASE(ubfab_kunit_deal_chunks),
	KUNIT_CASE(ubfab_kunit_npages),
	KUNIT_CASE(ubfab_kunit_range_ok),
	KUNIT_CASE(ubfab_kunit_fast_rows),
	{}
};

static struct kunit_suite ubfab_xfer_suite = {
	.name = "ubfab-xfer",
	.test_cases = ubfab_xfer_cases,
};

kunit_test_suite(ubfab_xfer_suite);
