// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubctl segments: "ubctl seg show [ENTITY]", the exported segments of
 * every entity or of one, like rdma's "res show mr". Token values are
 * never shown: the kernel does not report them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "num.h"
#include "ubctl.h"

static const struct {
	uint32_t bit;
	char letter;
	const char *name;
} rights[] = {
	{ UBFAB_SEG_READ, 'r', "read" },
	{ UBFAB_SEG_WRITE, 'w', "write" },
	{ UBFAB_SEG_ATOMIC, 'a', "atomic" },
};

static void seg_print(struct ubctl *u, const void *item, const void *ents)
{
	const struct ubfab_seg_info *s = item;
	const char *name = ubctl_entity_name(ents, s->eid);
	char size[32];
	size_t i;

	if (u->json) {
		json_object_begin(&u->js, NULL);
		if (name)
			json_string(&u->js, "entity", name);
		json_uint(&u->js, "eid", s->eid);
		json_uint(&u->js, "token_id", s->token_id);
		json_uint(&u->js, "offset", s->offset);
		json_uint(&u->js, "length", s->length);
		json_array_begin(&u->js, "rights");
		for (i = 0; i < ARRAY_SIZE(rights); i++)
			if (s->rights & rights[i].bit)
				json_string(&u->js, NULL, rights[i].name);
		json_array_end(&u->js);
		json_uint(&u->js, "importers", s->imports);
		json_uint(&u->js, "pid", s->pid);
		json_object_end(&u->js);
		return;
	}
	if (name)
		printf("%s", name);
	else
		printf("eid %" PRIu32, s->eid);
	printf(" token %" PRIu32 " offset 0x%" PRIx64 " length 0x%" PRIx64
	       " (%s) rights ", s->token_id, s->offset, s->length,
	       tool_fmt_size(size, sizeof(size), s->length, ""));
	for (i = 0; i < ARRAY_SIZE(rights); i++)
		putchar(s->rights & rights[i].bit ? rights[i].letter : '-');
	printf(" importers %" PRIu32 " pid %" PRIu32 "\n", s->imports, s->pid);
}

static int seg_collect(const struct ubfab_seg_info *s, void *arg)
{
	return ubctl_vec_push(arg, s);
}

int seg_show(struct ubctl *u, int argc, char **argv)
{
	struct ubctl_vec ents = { .size = sizeof(struct ubfab_entity_info) };
	struct ubctl_vec segs = { .size = sizeof(struct ubfab_seg_info) };
	int code = ubctl_entity_load_args(u, argc, argv, &ents);
	int err;

	if (!code) {
		const struct ubfab_entity_info *e = ents.items;

		err = ubfab_seg_dump(u->nl, argc ? e->eid : UBFAB_EID_ANY,
				     seg_collect, &segs);
		if (err == -EOPNOTSUPP)
			code = ubctl_error("segment dump: the loaded ubfab module does not report segments");
		else if (err)
			code = ubctl_nl_error(u, err, "segment dump");
	}
	if (!code)
		ubctl_print_list(u, NULL, &segs, seg_print, &ents);
	ubctl_vec_free(&ents);
	ubctl_vec_free(&segs);
	return code;
}
