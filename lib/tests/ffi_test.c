// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Host test of libubfab-ffi.so, the out-of-line copies of libubfab.h's
 * inline helpers, used as a foreign function interface would use it: the
 * library is opened with dlopen() and every function found with dlsym().
 * Checks that each helper the header defines inline (the list is read
 * from the header itself) is exported by the ffi library, that the same
 * handle reaches libubfab's own functions, and that the copies work:
 * entries prepared through them, and a queue's rings driven through them
 * on rings laid out in this process's memory. A kselftest-harness
 * program: each case runs in a process of its own. The paths of the
 * libraries and of the header are built in (lib/Makefile): UBFAB_LIB_SO
 * (libubfab.so.1, opened first so that the ffi library's dependency on it
 * is met without LD_LIBRARY_PATH), UBFAB_FFI_SO and UBFAB_HEADER.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

#include "internal.h"
#include "kselftest_harness.h"

static const char *const lib_path = UBFAB_FFI_SO;
static const char *const header_path = UBFAB_HEADER;
static void *lib;

/*
 * The function the ffi library exports as @name, found only if it is
 * defined in the ffi library itself; NULL otherwise.
 */
static void *ffi_sym(const char *name)
{
	Dl_info info;
	void *sym = dlsym(lib, name);

	if (!sym || !dladdr(sym, &info) || !info.dli_fname ||
	    strcmp(strrchr(info.dli_fname, '/') ?: info.dli_fname,
		   strrchr(lib_path, '/') ?: lib_path))
		return NULL;
	return sym;
}

/*
 * The name of the function a line of the header begins to define inline
 * ("UBFAB_INLINE type name(" or "static inline type name("), copied to
 * @name; false for any other line.
 */
static bool inline_name(const char *line, char *name, size_t size)
{
	const char *paren, *start;

	if (strncmp(line, "UBFAB_INLINE ", 13) &&
	    strncmp(line, "static inline ", 14))
		return false;
	paren = strchr(line, '(');
	if (!paren)
		return false;
	start = paren;
	while (start > line && (start[-1] == '_' ||
				(start[-1] >= 'a' && start[-1] <= 'z') ||
				(start[-1] >= 'A' && start[-1] <= 'Z') ||
				(start[-1] >= '0' && start[-1] <= '9')))
		start--;
	if (start == paren || (size_t)(paren - start) >= size)
		return false;
	memcpy(name, start, paren - start);
	name[paren - start] = '\0';
	return true;
}

FIXTURE(ffi) {
	void *libubfab;
};

FIXTURE_SETUP(ffi)
{
	self->libubfab = dlopen(UBFAB_LIB_SO, RTLD_NOW | RTLD_GLOBAL);
	ASSERT_NE(NULL, self->libubfab) TH_LOG("%s", dlerror());
	lib = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
	ASSERT_NE(NULL, lib) TH_LOG("%s", dlerror());
}

FIXTURE_TEARDOWN(ffi)
{
	if (lib)
		dlclose(lib);
	if (self->libubfab)
		dlclose(self->libubfab);
}

/* Every inline helper of libubfab.h is exported. */
TEST_F(ffi, exports)
{
	char line[512], name[128];
	unsigned int found = 0, missing = 0;
	bool reap = false;
	FILE *f = fopen(header_path, "r");

	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		if (!inline_name(line, name, sizeof(name)))
			continue;
		found++;
		reap |= !strcmp(name, "ubfab_queue_reap");
		if (!ffi_sym(name)) {
			TH_LOG("%s: not exported by %s", name, lib_path);
			missing++;
		}
	}
	fclose(f);
	TH_LOG("%u inline functions in %s", found, header_path);
	/* The header was read: it defines ubfab_queue_reap() inline. */
	ASSERT_TRUE(reap);
	ASSERT_EQ(0, missing);
}

/* The ffi library's handle reaches libubfab's own API. */
TEST_F(ffi, whole_api)
{
	const char *(*kind_name)(uint32_t) = dlsym(lib, "ubfab_kind_name");

	ASSERT_NE(NULL, kind_name);
	ASSERT_STREQ("npu", kind_name(UBFAB_ENTITY_NPU));
}

/* Prep helpers through dlsym() write the whole entry. */
TEST_F(ffi, prep)
{
	void (*prep_write_notify)(struct ubfab_sqe *, uint64_t, uint64_t,
				  uint32_t, uint64_t, uint64_t) =
		ffi_sym("ubfab_prep_write_notify");
	void (*prep_atomic)(struct ubfab_sqe *, uint32_t, uint64_t, uint64_t,
			    uint64_t) = ffi_sym("ubfab_prep_atomic");
	void (*set_data)(struct ubfab_sqe *, uint64_t) =
		ffi_sym("ubfab_sqe_set_data");
	uint64_t (*import_addr)(const struct ubfab_import *, uint64_t) =
		ffi_sym("ubfab_import_addr");
	struct ubfab_import imp = { .mmap_offset = 1ULL << 40 };
	struct ubfab_sqe sqe;

	ASSERT_NE(NULL, prep_write_notify);
	ASSERT_NE(NULL, prep_atomic);
	ASSERT_NE(NULL, set_data);
	ASSERT_NE(NULL, import_addr);
	ASSERT_EQ((1ULL << 40) + 0x123, import_addr(&imp, 0x123));

	memset(&sqe, 0xa5, sizeof(sqe));
	prep_write_notify(&sqe, 0x1000, 0x2000, 64, 0x3000, 5);
	ASSERT_EQ(UBFAB_OP_WRITE_NOTIFY, sqe.opcode);
	ASSERT_EQ(0, sqe.flags);
	ASSERT_EQ(64, sqe.length);
	ASSERT_EQ(0x1000, sqe.local);
	ASSERT_EQ(0x2000, sqe.remote);
	ASSERT_EQ(5, sqe.value);
	ASSERT_EQ(0x3000, sqe.notify);
	ASSERT_EQ(0, sqe.user_data);
	ASSERT_EQ(0, sqe.compare);
	ASSERT_EQ(0, sqe.aux);
	ASSERT_EQ(0, sqe.timeout_ms);

	memset(&sqe, 0xa5, sizeof(sqe));
	prep_atomic(&sqe, UBFAB_ATOMIC_CAS, 0x40, 7, 3);
	set_data(&sqe, 0xfeed);
	ASSERT_EQ(UBFAB_OP_ATOMIC, sqe.opcode);
	ASSERT_EQ(UBFAB_ATOMIC_CAS, sqe.aux);
	ASSERT_EQ(0x40, sqe.remote);
	ASSERT_EQ(7, sqe.value);
	ASSERT_EQ(3, sqe.compare);
	ASSERT_EQ(0, sqe.length);
	ASSERT_EQ(0, sqe.local);
	ASSERT_EQ(0, sqe.notify);
	ASSERT_EQ(0xfeed, sqe.user_data);
}

/* Rings of 4 SQ and 8 CQ entries in this process's memory. */
static struct ubfab_sqe sqes[4];
static struct ubfab_cqe cqes[8];
static uint32_t sq_head, sq_tail, sq_flags, cq_head, cq_tail, overflow;

/* Ring helpers through dlsym() drive the SQ and the CQ. */
TEST_F(ffi, queue)
{
	uint32_t (*sq_space)(const struct ubfab_queue *) =
		ffi_sym("ubfab_queue_sq_space");
	struct ubfab_sqe *(*get_sqe)(struct ubfab_queue *) =
		ffi_sym("ubfab_queue_get_sqe");
	uint32_t (*cq_ready)(const struct ubfab_queue *) =
		ffi_sym("ubfab_queue_cq_ready");
	struct ubfab_cqe *(*peek_cqe)(struct ubfab_queue *) =
		ffi_sym("ubfab_queue_peek_cqe");
	void (*cqe_seen)(struct ubfab_queue *) =
		ffi_sym("ubfab_queue_cqe_seen");
	uint32_t (*reap)(struct ubfab_queue *, struct ubfab_cqe *, uint32_t) =
		ffi_sym("ubfab_queue_reap");
	struct ubfab_queue q = {
		.sqes = sqes, .sq_head = &sq_head, .sq_tail = &sq_tail,
		.sq_flags = &sq_flags, .sq_overflow = &overflow,
		.sq_mask = ARRAY_SIZE(sqes) - 1,
		.cqes = cqes, .cq_head = &cq_head, .cq_tail = &cq_tail,
		.cq_overflow = &overflow, .cq_mask = ARRAY_SIZE(cqes) - 1,
		.fd = -1,
	};
	struct ubfab_cqe out[8];
	uint32_t i;

	ASSERT_NE(NULL, sq_space);
	ASSERT_NE(NULL, get_sqe);
	ASSERT_NE(NULL, cq_ready);
	ASSERT_NE(NULL, peek_cqe);
	ASSERT_NE(NULL, cqe_seen);
	ASSERT_NE(NULL, reap);
	ASSERT_EQ(4, sq_space(&q));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(&sqes[i], get_sqe(&q));
	ASSERT_EQ(NULL, get_sqe(&q));
	ASSERT_EQ(0, sq_space(&q));
	sq_head = 2;
	ASSERT_EQ(2, sq_space(&q));
	ASSERT_EQ(&sqes[0], get_sqe(&q));

	ASSERT_EQ(NULL, peek_cqe(&q));
	ASSERT_EQ(0, cq_ready(&q));
	for (i = 0; i < 5; i++)
		cqes[i].user_data = 100 + i;
	cq_tail = 5;
	ASSERT_EQ(5, cq_ready(&q));
	ASSERT_EQ(&cqes[0], peek_cqe(&q));
	cqe_seen(&q);
	ASSERT_EQ(1, cq_head);
	ASSERT_EQ(&cqes[1], peek_cqe(&q));
	ASSERT_EQ(3, reap(&q, out, 3));
	ASSERT_EQ(4, cq_head);
	ASSERT_EQ(101, out[0].user_data);
	ASSERT_EQ(103, out[2].user_data);
	ASSERT_EQ(1, reap(&q, out, 8));
	ASSERT_EQ(104, out[0].user_data);
	ASSERT_EQ(0, cq_ready(&q));
	ASSERT_EQ(NULL, peek_cqe(&q));
}

TEST_HARNESS_MAIN
