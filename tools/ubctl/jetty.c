// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubctl jetties: "ubctl jetty show [ENTITY]", the jetties of every entity
 * or of one, any process's, like rdma's "res show qp": number, process,
 * the send queue and receive queue it pairs, its state and what it has
 * seen (sends, receives, receiver-not-ready naks and exhausted retries,
 * errors, completion events).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "ubctl.h"

static void jetty_print(struct ubctl *u, const void *item, const void *ents)
{
	const struct ubfab_jetty_info *j = item;
	const char *name = ubctl_entity_name(ents, j->eid);
	const char *state = ubfab_jetty_state_name(j->state);

	if (u->json) {
		json_object_begin(&u->js, NULL);
		if (name)
			json_string(&u->js, "entity", name);
		json_uint(&u->js, "eid", j->eid);
		json_uint(&u->js, "id", j->id);
		json_uint(&u->js, "pid", j->pid);
		json_uint(&u->js, "sq", j->sq);
		json_uint(&u->js, "rq", j->rq);
		json_string(&u->js, "state", state);
		json_uint(&u->js, "sends", j->sends);
		json_uint(&u->js, "receives", j->receives);
		json_uint(&u->js, "rnr_naks", j->rnr_naks);
		json_uint(&u->js, "rnr_exc", j->rnr_exc);
		json_uint(&u->js, "errors", j->errors);
		json_uint(&u->js, "events", j->events);
		json_object_end(&u->js);
		return;
	}
	if (name)
		printf("%s jetty %" PRIu32 ":", name, j->id);
	else
		printf("eid %" PRIu32 " jetty %" PRIu32 ":", j->eid, j->id);
	printf(" pid %" PRIu32 " sq %" PRIu32 " rq %" PRIu32 " state %s"
	       " sends %" PRIu64 " receives %" PRIu64 " rnr_naks %" PRIu64
	       " rnr_exc %" PRIu64 " errors %" PRIu64 " events %" PRIu64 "\n",
	       j->pid, j->sq, j->rq, state, j->sends, j->receives,
	       j->rnr_naks, j->rnr_exc, j->errors, j->events);
}

static int jetty_collect(const struct ubfab_jetty_info *j, void *arg)
{
	return ubctl_vec_push(arg, j);
}

int jetty_show(struct ubctl *u, int argc, char **argv)
{
	struct ubctl_vec ents = { .size = sizeof(struct ubfab_entity_info) };
	struct ubctl_vec jetties = { .size = sizeof(struct ubfab_jetty_info) };
	int code = ubctl_entity_load_args(u, argc, argv, &ents);
	int err = 0;

	if (!code) {
		const struct ubfab_entity_info *e = ents.items;

		err = ubfab_jetty_dump(u->nl, argc ? e->eid : UBFAB_EID_ANY,
				       jetty_collect, &jetties);
	}
	if (err == -EOPNOTSUPP)
		code = ubctl_error("jetty dump: the loaded ubfab module does not report jetties");
	else if (err == -ENOMEM)
		code = ubctl_error("out of memory");
	else if (err)
		code = ubctl_nl_error(u, err, "jetty dump");
	if (!code)
		ubctl_print_list(u, NULL, &jetties, jetty_print, &ents);
	ubctl_vec_free(&ents);
	ubctl_vec_free(&jetties);
	return code;
}
