// SPDX-License-Identifier: GPL-2.0-only
/*
 * tools/soak/mem.c - one sample of the kernel's memory for the soak run:
 * Slab, SUnreclaim, VmallocUsed and the pages in use (MemTotal - MemFree)
 * from /proc/meminfo, and the active objects of the kmalloc-* caches from
 * /proc/slabinfo (ubfab.ko has no slab cache of its own: what it
 * allocates is in those). report.c checks their trend.
 */
#include <errno.h>
#include <string.h>

#include "soak.h"

static int meminfo(struct soak_mem *m)
{
	uint64_t total = 0, free = 0, v;
	char key[64], line[256];
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63[^:]: %lu", key, &v) != 2)
			continue;
		if (!strcmp(key, "Slab"))
			m->slab_kb = v;
		else if (!strcmp(key, "SUnreclaim"))
			m->sunreclaim_kb = v;
		else if (!strcmp(key, "VmallocUsed"))
			m->vmalloc_kb = v;
		else if (!strcmp(key, "MemTotal"))
			total = v;
		else if (!strcmp(key, "MemFree"))
			free = v;
	}
	fclose(f);
	m->used_kb = total - free;
	return 0;
}

/* slabinfo 2.1: name active_objs num_objs objsize ... */
static void kmalloc(struct soak_mem *m)
{
	unsigned long active, num, size;
	char name[64], line[512];
	FILE *f = fopen("/proc/slabinfo", "r");
	uint64_t bytes = 0;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lu %lu %lu", name, &active, &num,
			   &size) == 4 && !strncmp(name, "kmalloc-", 8))
			bytes += (uint64_t)active * size;
	fclose(f);
	m->kmalloc_kb = bytes / 1024;
}

int soak_mem_sample(struct soak_mem *m, uint64_t t_s)
{
	memset(m, 0, sizeof(*m));
	m->t_s = t_s;
	kmalloc(m);
	return meminfo(m);
}
