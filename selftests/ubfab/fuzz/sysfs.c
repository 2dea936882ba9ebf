// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's sysfs family: reading each entity's attributes (by class
 * and by device number, whole or in pieces from any offset), listing the
 * class, opening them for writing, and the module's parameters and
 * reference count, all checked against the module as loaded.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/sysmacros.h>

#include "family.h"
#include "ubfab_test.h"

static const char *const sysfs_attrs[] = {
	"eid", "kind", "node", "chip", "die", "socket", "mem_size", "ports",
	"dev", "uevent", "bogus",
};

static const char *const module_files[] = {
	"parameters/nodes", "parameters/chips_per_node",
	"parameters/dies_per_chip", "parameters/cpus_per_node",
	"parameters/planes", "parameters/l2_per_plane", "parameters/npu_mem",
	"parameters/cpu_mem", "parameters/profile", "parameters/model",
	"parameters/model_order", "parameters/model_park_ms", "refcnt",
};

/*
 * sysfs: a[0] what (SYS_*), a[1] read length, a[2] offset, a[3] entity,
 * a[4] attribute or module file index.
 */
enum { SYS_ATTR, SYS_DEVNUM, SYS_WRITE, SYS_LIST, SYS_MODULE, NR_SYS };

static void gen_sysfs(struct rng *r, const struct fuzz_model *m, struct op *op)
{
	static const uint64_t lens[] = { 1, 2, 3, 7, 64, 4096, 65536 };
	uint32_t eid = rng_below(r, m->nr_entities + 2);
	const char *name;

	op->a[0] = rng_below(r, NR_SYS);
	op->a[1] = rng_pick(r, lens);
	op->a[2] = rng_chance(r, 70) ? 0 : rng_below(r, 24);
	op->a[3] = eid;
	op->a[4] = op->a[0] == SYS_MODULE ?
		   rng_below(r, ARRAY_SIZE(module_files)) :
		   rng_below(r, ARRAY_SIZE(sysfs_attrs));
	name = eid < m->nr_entities ? m->entities[eid].name : "npu99999";
	switch (op->a[0]) {
	case SYS_DEVNUM:
		snprintf(op->path, sizeof(op->path), "/sys/dev/char/%u:%u/%s",
			 major(m->devt0), minor(m->devt0) + eid,
			 sysfs_attrs[op->a[4]]);
		break;
	case SYS_LIST:
		snprintf(op->path, sizeof(op->path), "/sys/class/ubfab");
		break;
	case SYS_MODULE:
		snprintf(op->path, sizeof(op->path), "/sys/module/ubfab/%s",
			 module_files[op->a[4]]);
		break;
	default:
		snprintf(op->path, sizeof(op->path), "/sys/class/ubfab/%s/%s",
			 name, sysfs_attrs[op->a[4]]);
		break;
	}
}

/* What attribute attr of entity eid reads: 0, or ENOENT if it has none. */
static int sysfs_expect(const struct fuzz_model *m, uint32_t eid,
			const char *attr, char *buf, size_t len)
{
	const struct ubfab_entity_info *e = &m->entities[eid];
	unsigned int mj = major(m->devt0), mn = minor(m->devt0) + eid;
	bool npu;

	if (eid >= m->nr_entities)
		return ENOENT;
	npu = e->kind == UBFAB_ENTITY_NPU;
	if (!strcmp(attr, "eid"))
		snprintf(buf, len, "%u\n", e->eid);
	else if (!strcmp(attr, "kind"))
		snprintf(buf, len, "%s\n", npu ? "npu" : "cpu");
	else if (!strcmp(attr, "node"))
		snprintf(buf, len, "%u\n", e->node);
	else if (!strcmp(attr, "chip") && npu)
		snprintf(buf, len, "%u\n", e->chip);
	else if (!strcmp(attr, "die") && npu)
		snprintf(buf, len, "%u\n", e->die);
	else if (!strcmp(attr, "socket") && !npu)
		snprintf(buf, len, "%u\n", e->socket);
	else if (!strcmp(attr, "mem_size"))
		snprintf(buf, len, "%llu\n", (unsigned long long)e->mem_size);
	else if (!strcmp(attr, "ports"))
		snprintf(buf, len, "%u\n", e->ports);
	else if (!strcmp(attr, "dev"))
		snprintf(buf, len, "%u:%u\n", mj, mn);
	else if (!strcmp(attr, "uevent"))
		snprintf(buf, len,
			 "MAJOR=%u\nMINOR=%u\nDEVNAME=ubfab/%s\nDEVMODE=0666\n",
			 mj, mn, e->name);
	else
		return ENOENT;
	return 0;
}

/* What /sys/module/ubfab/<file> reads, or NULL when any number will do. */
static void module_expect(const struct fuzz_model *m, const char *file,
			  char *buf, size_t len)
{
	const struct ubfab_fabric_info *f = &m->fabric;
	const struct {
		const char *name;
		uint64_t val;
	} params[] = {
		{ "nodes", f->nodes }, { "chips_per_node", f->chips_per_node },
		{ "dies_per_chip", f->dies_per_chip },
		{ "cpus_per_node", f->cpus_per_node }, { "planes", f->planes },
		{ "l2_per_plane", f->l2_per_plane }, { "npu_mem", f->npu_mem },
		{ "cpu_mem", f->cpu_mem },
	};
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(params); i++) {
		if (!strcmp(file + strlen("parameters/"), params[i].name))
			snprintf(buf, len, "%llu\n",
				 (unsigned long long)params[i].val);
	}
}

/* Reads a file whole, or len bytes from off: bytes read, or -errno. */
static long read_at(const char *path, char *buf, size_t len, off_t off)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	long n;

	if (fd < 0)
		return -errno;
	n = pread(fd, buf, len, off);
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
}

static void run_sysfs_list(struct worker *w)
{
	const struct fuzz_model *m = w->model;
	DIR *d = opendir("/sys/class/ubfab");
	uint8_t seen[8192] = { 0 };
	struct dirent *de;
	uint32_t count = 0, eid;

	if (!d) {
		fuzz_fail(w, "opendir /sys/class/ubfab: %s", fuzz_errname(errno));
		return;
	}
	fuzz_count(w, 0);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		for (eid = 0; eid < m->nr_entities; eid++) {
			if (!strcmp(m->entities[eid].name, de->d_name))
				break;
		}
		if (eid == m->nr_entities || seen[eid]++) {
			fuzz_fail(w, "/sys/class/ubfab has %s", de->d_name);
			break;
		}
		count++;
	}
	closedir(d);
	if (!w->failed && count != m->nr_entities)
		fuzz_fail(w, "/sys/class/ubfab has %u entries, not %u", count,
			  m->nr_entities);
}

static void run_sysfs(struct worker *w, const struct op *op)
{
	static char want[512], got[65536];
	const char *attr = sysfs_attrs[op->a[4]], *tail;
	size_t len = op->a[1], off = op->a[2], wlen;
	uint64_t refcnt;
	int err, fd;
	long n;

	switch (op->a[0]) {
	case SYS_LIST:
		return run_sysfs_list(w);
	case SYS_WRITE:
		err = sysfs_expect(w->model, op->a[3], attr, want,
				   sizeof(want));
		if (!strcmp(attr, "uevent"))
			return fuzz_skip(w);	/* writable: it sends uevents */
		fd = open(op->path, O_WRONLY | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
		fuzz_expect(w, "open for writing", fd, errno, err ? err : EACCES);
		return;
	case SYS_MODULE:
		n = read_at(op->path, got, sizeof(got) - 1, 0);
		if (!fuzz_expect(w, "read", n, -n, 0) || n < 0)
			return;
		got[n] = '\0';
		module_expect(w->model, module_files[op->a[4]], want,
			      sizeof(want));
		if (want[0] && strcmp(want, got))
			fuzz_fail(w, "%s reads \"%s\", expected \"%s\"",
				  op->path, got, want);
		if (!strcmp(module_files[op->a[4]], "refcnt") &&
		    slots_hold_device(w) &&
		    (read_u64(op->path, &refcnt) || !refcnt))
			fuzz_fail(w, "refcnt is 0 while a device is open");
		return;
	default:
		break;
	}
	err = sysfs_expect(w->model, op->a[3], attr, want, sizeof(want));
	n = read_at(op->path, got, len, off);
	if (!fuzz_expect(w, "read", n, -n, err) || n < 0)
		return;
	/* A read from off of at most len bytes is that part of the text. */
	tail = off < strlen(want) ? want + off : "";
	wlen = strlen(tail) < len ? strlen(tail) : len;
	if ((size_t)n != wlen || memcmp(got, tail, wlen))
		fuzz_fail(w, "%s from %zu: read %ld bytes \"%.*s\", expected \"%.*s\"",
			  op->path, off, n, (int)n, got, (int)wlen, tail);
}
static void describe_sysfs(const struct op *op, char *buf, size_t len)
{
	snprintf(buf, len, " %s (mode %llu, len %llu, off %llu)", op->path,
		 (unsigned long long)op->a[0], (unsigned long long)op->a[1],
		 (unsigned long long)op->a[2]);
}

static const struct fuzz_op_type sysfs_ops[] = {
	{ "sysfs", 6, gen_sysfs, run_sysfs, describe_sysfs },
};

const struct fuzz_family fuzz_sysfs_family = {
	.name = "sysfs",
	.ops = sysfs_ops,
	.nr_ops = ARRAY_SIZE(sysfs_ops),
};
