// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubfab helpers of the fabric model's parameters that need no session:
 * finding a parameter of a model by name, and freeing a model. A model is
 * one allocation, the struct and its params (topo.c reads it from the
 * kernel).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const struct ubfab_model_param *ubfab_model_find(const struct ubfab_model *m,
						 const char *name)
{
	size_t i;

	if (!m || !name)
		return NULL;
	for (i = 0; i < m->nparams; i++)
		if (!strcmp(m->params[i].name, name))
			return &m->params[i];
	return NULL;
}

void ubfab_model_free(struct ubfab_model *model)
{
	free(model);
}
