// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubfab attribute-set decoder: copies the attributes of a parsed reply
 * into the public structs, driven by the field tables of each set.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

int libubfab_decode_nested(const struct libubfab_attrset *set,
			   struct nlattr *nest, void *out)
{
	struct nlattr *tb[LIBUBFAB_MAXATTR + 1];

	if (nla_parse_nested(tb, set->maxattr, nest, set->policy) < 0)
		return -EPROTO;
	return libubfab_decode(set, tb, out);
}

int libubfab_decode(const struct libubfab_attrset *set, struct nlattr **tb,
		    void *out)
{
	const struct libubfab_field *f;
	int err;

	for (f = set->fields; f < set->fields + set->nfields; f++) {
		struct nlattr *a = tb[f->attr];
		char *dst = (char *)out + f->offset;

		if (!a) {
			if (f->required)
				return -EPROTO;
			continue;
		}
		switch (set->policy[f->attr].type) {
		case NLA_U32:
			*(uint32_t *)dst = nla_get_u32(a);
			break;
		case NLA_U64:
			*(uint64_t *)dst = nla_get_u64(a);
			break;
		case NLA_STRING:
			/* the policy bounds it and checked the NUL */
			memcpy(dst, nla_data(a), nla_len(a));
			break;
		case NLA_NESTED:
			err = libubfab_decode_nested(f->nest, a, dst);
			if (err)
				return err;
			break;
		}
	}
	return 0;
}
