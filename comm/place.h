/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The placement of a job's ranks on the fabric's entities, shared by
 * ubrun (which starts the ranks) and libubshmem (whose ranks mpirun
 * started: each computes the job's placement and takes its own slot).
 * place.c has the code.
 */
#ifndef SHM_PLACE_H
#define SHM_PLACE_H

#include <stdint.h>

#include "libubfab.h"

/* Where one rank runs. */
struct shm_slot {
	char entity[UBFAB_NAME_MAX];
	uint32_t node;
	int local_rank;		/* among the ranks of its node */
	int local_size;		/* ranks of its node */
};

/*
 * Fill @slots[0 .. @n - 1] as @placement says (pack, spread, nodes:K or a
 * comma-separated list of entity names), checking the module's profile
 * against @profile if not NULL. Return: 0, or -1 after printing why on
 * standard error, each line beginning with "@who: ".
 */
int shm_place(const char *who, const char *placement, const char *profile,
	      int n, struct shm_slot *slots);

#endif /* SHM_PLACE_H */
