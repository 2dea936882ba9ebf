// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Host test of libubfab-ffi.so, the out-of-line copies of libubfab.h's
 * inline helpers, used as a foreign function interface would use it: the
 * library is opened with dlopen() and every function found with dlsym().
 * Checks that each helper the header defines inline (the list is read
 * from the header itself) is exported by the ffi library, that the same
 * handle reaches libubfab's own functions, and that the copies work:
 * entries prepared through them, and a queue's rings driven through them
 * on rings laid out in this process's memory. Prints KTAP.
 *
 * Usage: ffi_test LIBUBFAB_FFI_SO LIBUBFAB_H
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

#include "internal.h"
#include "ktap.h"

static const char *lib_path, *header_path;
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

static bool test_exports(void)
{
	char line[512], name[128];
	unsigned int found = 0, missing = 0;
	bool reap = false;
	FILE *f = fopen(header_path, "r");

	CHECK(f);
	while (fgets(line, sizeof(line), f)) {
		if (!inline_name(line, name, sizeof(name)))
			continue;
		found++;
		reap |= !strcmp(name, "ubfab_queue_reap");
		if (!ffi_sym(name)) {
			printf("# %s: not exported by %s\n", name, lib_path);
			missing++;
		}
	}
	fclose(f);
	printf("# %u inline functions in %s\n", found, header_path);
	/* The header was read: it defines ubfab_queue_reap() inline. */
	CHECK(reap);
	CHECK(!missing);
	return true;
}

static bool test_whole_api(void)
{
	const char *(*kind_name)(uint32_t) = dlsym(lib, "ubfab_kind_name");

	CHECK(kind_name);
	CHECK(!strcmp(kind_name(UBFAB_ENTITY_NPU), "npu"));
	return true;
}

static bool test_prep(void)
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

	CHECK(prep_write_notify && prep_atomic && set_data && import_addr);
	CHECK(import_addr(&imp, 0x123) == (1ULL << 40) + 0x123);

	memset(&sqe, 0xa5, sizeof(sqe));
	prep_write_notify(&sqe, 0x1000, 0x2000, 64, 0x3000, 5);
	CHECK(sqe.opcode == UBFAB_OP_WRITE_NOTIFY && sqe.flags == 0);
	CHECK(sqe.length == 64 && sqe.local == 0x1000 && sqe.remote == 0x2000);
	CHECK(sqe.value == 5 && sqe.notify == 0x3000 && sqe.user_data == 0);
	CHECK(sqe.compare == 0 && sqe.aux == 0 && sqe.timeout_ms == 0);

	memset(&sqe, 0xa5, sizeof(sqe));
	prep_atomic(&sqe, UBFAB_ATOMIC_CAS, 0x40, 7, 3);
	set_data(&sqe, 0xfeed);
	CHECK(sqe.opcode == UBFAB_OP_ATOMIC && sqe.aux == UBFAB_ATOMIC_CAS);
	CHECK(sqe.remote == 0x40 && sqe.value == 7 && sqe.compare == 3);
	CHECK(sqe.length == 0 && sqe.local == 0 && sqe.notify == 0);
	CHECK(sqe.user_data == 0xfeed);
	return true;
}

/* Rings of 4 SQ and 8 CQ entries in this process's memory. */
static struct ubfab_sqe sqes[4];
static struct ubfab_cqe cqes[8];
static uint32_t sq_head, sq_tail, sq_flags, cq_head, cq_tail, overflow;

static bool test_queue(void)
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

	CHECK(sq_space && get_sqe && cq_ready && peek_cqe && cqe_seen &&
	      reap);
	CHECK(sq_space(&q) == 4);
	for (i = 0; i < 4; i++)
		CHECK(get_sqe(&q) == &sqes[i]);
	CHECK(!get_sqe(&q) && sq_space(&q) == 0);
	sq_head = 2;
	CHECK(sq_space(&q) == 2 && get_sqe(&q) == &sqes[0]);

	CHECK(!peek_cqe(&q) && cq_ready(&q) == 0);
	for (i = 0; i < 5; i++)
		cqes[i].user_data = 100 + i;
	cq_tail = 5;
	CHECK(cq_ready(&q) == 5);
	CHECK(peek_cqe(&q) == &cqes[0]);
	cqe_seen(&q);
	CHECK(cq_head == 1 && peek_cqe(&q) == &cqes[1]);
	CHECK(reap(&q, out, 3) == 3 && cq_head == 4);
	CHECK(out[0].user_data == 101 && out[2].user_data == 103);
	CHECK(reap(&q, out, 8) == 1 && out[0].user_data == 104);
	CHECK(cq_ready(&q) == 0 && !peek_cqe(&q));
	return true;
}

static const struct {
	const char *name;
	bool (*run)(void);
} cases[] = {
	{ "every inline helper of libubfab.h is exported", test_exports },
	{ "the ffi library's handle reaches libubfab's API", test_whole_api },
	{ "prep helpers through dlsym write the whole entry", test_prep },
	{ "ring helpers through dlsym drive SQ and CQ", test_queue },
};

int main(int argc, char **argv)
{
	size_t i;

	if (argc != 3) {
		fprintf(stderr, "usage: %s LIBUBFAB_FFI_SO LIBUBFAB_H\n",
			argv[0]);
		return 2;
	}
	lib_path = argv[1];
	header_path = argv[2];
	printf("TAP version 13\n1..%zu\n", ARRAY_SIZE(cases));
	lib = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		printf("Bail out! %s\n", dlerror());
		return 1;
	}
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		result(cases[i].run(), cases[i].name);
	totals();
	dlclose(lib);
	return failures ? 1 : 0;
}
