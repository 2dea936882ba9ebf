// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubshmem's start and end: ubshmem_init() learns who the PE is from
 * the bootstrap (under ubrun or mpirun), opens its entity, makes its
 * heap and staging buffer, exchanges the heaps' handles and tokens with
 * every PE and imports them, then makes its queue (in the ordered domain
 * with UBSHMEM_ORDERED=1, order.c); ubshmem_finalize() undoes it. Also who
 * this PE is.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "internal.h"

#define RWA	(UBFAB_SEG_READ | UBFAB_SEG_WRITE | UBFAB_SEG_ATOMIC)

struct shm_state *shm;

/* A size in bytes, with an optional K, M or G; 0 when malformed. */
static uint64_t parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	switch (*end) {
	case 'G':
		v <<= 10;
		/* fall through */
	case 'M':
		v <<= 10;
		/* fall through */
	case 'K':
		v <<= 10;
		end++;
		break;
	}
	return end == s || *end ? 0 : v;
}

/* @failed: ubshmem_init() failed (the bootstrap stays in the job). */
static void teardown(struct shm_state *s, int failed)
{
	shm_heap_unmap_peers(s);
	if (s->heap)
		ubfab_unmap(s->heap, s->heap_len);
	if (s->stage)
		ubfab_unmap(s->stage, UBSHMEM_STAGING);
	ubfab_queue_destroy(s->main.q);
	/* frees the heap, revoking its segment, and drops the imports */
	ubfab_dev_close(s->dev);
	shm_boot_end(s, failed);
	shm_teams_free(s);
	free(s->peers);
	free(s->imps);
	free(s->maps);
	free(s->outs);
	free(s->blocks);
	free(s->got);
	free(s);
}

/* This PE's record: its entity, node and heap, exported. */
static int make_heap(struct shm_state *s, struct shm_peer *rec)
{
	struct ubfab_entity_info ent;
	struct ubfab_nl *nl;
	void *addr;
	int err;

	err = ubfab_nl_open(&nl);
	if (err)
		return err;
	err = ubfab_entity_get_by_name(nl, ubfab_dev_name(s->dev), &ent);
	ubfab_nl_close(nl);
	if (err)
		return err;
	snprintf(rec->entity, sizeof(rec->entity), "%s",
		 ubfab_dev_name(s->dev));
	rec->eid = ent.eid;
	rec->node = ent.node;
	rec->heap_len = s->heap_len;
	if (getrandom(&rec->token_value, sizeof(rec->token_value), 0) < 0)
		return -errno;

	err = ubfab_dev_alloc(s->dev, s->heap_len, &s->heap_off);
	if (!err)
		err = ubfab_dev_map(s->dev, s->heap_off, s->heap_len,
				    PROT_READ | PROT_WRITE, &addr);
	if (err)
		return err;
	s->heap = addr;
	err = ubfab_dev_export(s->dev, s->heap_off, s->heap_len, RWA,
			       rec->token_value, &s->token_id);
	if (err)
		return err;
	rec->token_id = s->token_id;

	err = ubfab_dev_alloc(s->dev, UBSHMEM_STAGING, &s->stage_off);
	if (!err)
		err = ubfab_dev_map(s->dev, s->stage_off, UBSHMEM_STAGING,
				    PROT_READ | PROT_WRITE, &addr);
	if (err)
		return err;
	s->stage = addr;
	return 0;
}

/*
 * The PE's queue, made last before the PEs meet: in the ordered domain
 * an idle queue holds the others back and is parked after model_park_ms
 * (its clock then moved on when it comes back), so it joins as late as
 * it can, and before any PE posts.
 */
static int make_queue(struct shm_state *s)
{
	struct ubfab_queue_attr qa = UBFAB_QUEUE_ATTR_INIT;
	const char *timing = getenv("UBSHMEM_TIMING");

	qa.sq_entries = SHM_QDEPTH;
	if (timing && !strcmp(timing, "1"))
		qa.flags |= UBFAB_QUEUE_TIMING;
	if (shm_ordered_wanted())
		qa.flags |= UBFAB_QUEUE_ORDERED;
	s->main.depth = SHM_QDEPTH;
	return ubfab_queue_create(s->dev, &qa, &s->main.q);
}

/* Every PE's record, then every heap imported. */
static int join(struct shm_state *s, const struct shm_peer *rec)
{
	int pe, err;

	s->peers = calloc(s->n, sizeof(*s->peers));
	s->imps = calloc(s->n, sizeof(*s->imps));
	s->maps = calloc(s->n, sizeof(*s->maps));
	if (!s->peers || !s->imps || !s->maps)
		return -ENOMEM;
	err = shm_boot_allgather(s, rec, sizeof(*rec), s->peers);
	if (err)
		return err;
	for (pe = 0; pe < s->n; pe++) {
		const struct shm_peer *p = &s->peers[pe];

		if (p->heap_len != s->heap_len)
			return -EPROTO;
		err = ubfab_dev_import(s->dev, p->eid, p->token_id,
				       p->token_value, RWA, &s->imps[pe]);
		if (err)
			return err;
	}
	return 0;
}

int ubshmem_init(void)
{
	const char *heap = getenv("UBSHMEM_HEAP_SIZE");
	long page = sysconf(_SC_PAGESIZE);
	char entity[UBFAB_NAME_MAX];
	struct shm_peer rec = { 0 };
	struct shm_state *s;
	int err;

	if (shm)
		return -EALREADY;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->sock = -1;
	s->heap_len = heap ? parse_size(heap) : SHM_HEAP_DEFAULT;
	s->heap_len = (s->heap_len + page - 1) / page * page;
	err = shm_boot_start(s, entity);
	if (!err && s->heap_len <= SHM_RESERVED(s->n))
		err = -EINVAL;
	if (!err) {
		s->got = calloc(s->n, sizeof(*s->got));
		err = s->got ? 0 : -ENOMEM;
	}
	if (!err)
		err = ubfab_dev_open(entity, &s->dev);
	if (!err)
		err = make_heap(s, &rec);
	if (!err)
		err = join(s, &rec);
	if (!err)
		err = shm_teams_init(s);
	if (!err)
		err = shm_heap_init(s);
	if (!err)
		err = make_queue(s);
	/* every PE has imported every heap and made its queue */
	if (!err)
		err = shm_boot_allgather(s, NULL, 0, NULL);
	if (err) {
		teardown(s, 1);
		return err;
	}
	shm = s;
	return 0;
}

int ubshmem_finalize(void)
{
	int err;

	if (!shm)
		return -EINVAL;
	err = ubshmem_barrier_all();
	teardown(shm, 0);
	shm = NULL;
	return err;
}

int ubshmem_my_pe(void)
{
	return shm ? shm->me : -1;
}

int ubshmem_n_pes(void)
{
	return shm ? shm->n : 0;
}

const char *ubshmem_entity(void)
{
	return shm ? shm->peers[shm->me].entity : "";
}
