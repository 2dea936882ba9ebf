// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubctl monitor: "ubctl monitor", like "ip monitor". Subscribes a session
 * of its own to the family's "events" group and prints each notification
 * as it arrives (a change of a port's state or fault knobs or of a
 * plane's state, an entity reset, a change of the model's parameters),
 * one line or one JSON object each, until SIGINT or SIGTERM ends it with
 * status 0.
 */
#define _GNU_SOURCE	/* ppoll() */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "ubctl.h"

/**
 * struct monitor - what the monitor knows of the fabric
 * @ents: the entities (struct ubfab_entity_info), to name a port's
 * @model: the model as last seen, to say what a model event changed;
 *	NULL if the module has none
 */
struct monitor {
	struct ubctl_vec ents;
	struct ubfab_model *model;
};

/* Its only work is to interrupt ppoll(). */
static void monitor_signal(int sig)
{
	(void)sig;
}

static void port_event(struct ubctl *u, const struct ubfab_port_info *p,
		       const struct ubctl_vec *ents)
{
	const char *name = ubctl_entity_name(ents, p->eid);
	const char *state = ubfab_state_name(p->state);

	if (u->json) {
		json_string(&u->js, "event", "port_state");
		if (name)
			json_string(&u->js, "entity", name);
		json_uint(&u->js, "eid", p->eid);
		json_uint(&u->js, "plane", p->plane);
		json_string(&u->js, "state", state);
	} else if (name) {
		printf("port %s plane %" PRIu32 ": state %s", name, p->plane,
		       state);
	} else {
		printf("port eid %" PRIu32 " plane %" PRIu32 ": state %s",
		       p->eid, p->plane, state);
	}
	ubctl_port_knobs(u, p);
	if (!u->json)
		putchar('\n');
}

static void plane_event(struct ubctl *u, const struct ubfab_plane_info *p)
{
	const char *state = ubfab_state_name(p->state);

	if (u->json) {
		json_string(&u->js, "event", "plane_state");
		json_uint(&u->js, "plane", p->id);
		json_string(&u->js, "state", state);
	} else {
		printf("plane %" PRIu32 ": state %s\n", p->id, state);
	}
}

static void reset_event(struct ubctl *u, const struct ubfab_entity_info *e)
{
	if (u->json) {
		json_string(&u->js, "event", "entity_reset");
		json_string(&u->js, "entity", e->name);
		json_uint(&u->js, "eid", e->eid);
	} else {
		printf("entity %s: reset\n", e->name);
	}
}

static void event_print(struct ubctl *u, const struct ubfab_nl_event *ev,
			const struct monitor *mon)
{
	if (u->json)
		json_object_begin(&u->js, NULL);
	switch (ev->cmd) {
	case UBFAB_CMD_PORT_NTF:
		port_event(u, &ev->port, &mon->ents);
		break;
	case UBFAB_CMD_PLANE_NTF:
		plane_event(u, &ev->plane);
		break;
	case UBFAB_CMD_ENTITY_RESET_NTF:
		reset_event(u, &ev->entity);
		break;
	case UBFAB_CMD_MODEL_NTF:
		ubctl_model_event(u, ev->model, mon->model);
		break;
	}
	if (u->json)
		json_object_end(&u->js);
}

/* A session subscribed to the events, its socket non-blocking. */
static int monitor_open(struct ubfab_nl **events)
{
	int err = ubfab_nl_open(events);
	int fd, flags;

	if (!err)
		err = ubfab_nl_subscribe(*events);
	if (err == -EOPNOTSUPP)
		return ubctl_error("monitor: the loaded ubfab module has no events group");
	if (err)
		return ubctl_error("monitor: %s", strerror(-err));
	fd = ubfab_nl_fd(*events);
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return ubctl_error("monitor: %s", strerror(errno));
	return UBCTL_EXIT_OK;
}

/*
 * Stop on SIGINT and SIGTERM: they are blocked but while waiting in
 * ppoll(), which they interrupt, handled; one that comes while events are
 * printed waits for the next ppoll(), so none is lost.
 */
static int monitor_signals(sigset_t *wait_mask)
{
	struct sigaction sa = { .sa_handler = monitor_signal };
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &block, wait_mask) ||
	    sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL))
		return ubctl_error("monitor: %s", strerror(errno));
	sigdelset(wait_mask, SIGINT);
	sigdelset(wait_mask, SIGTERM);
	return UBCTL_EXIT_OK;
}

/* Print the events waiting on @events. Exit code. */
static int monitor_drain(struct ubctl *u, struct ubfab_nl *events,
			 struct monitor *mon)
{
	struct ubfab_nl_event ev;
	int err;

	for (;;) {
		err = ubfab_nl_event_read(events, &ev);
		if (err == -EAGAIN)
			return UBCTL_EXIT_OK;
		if (err == -ENOBUFS) {
			ubctl_error("events lost (socket buffer full): %s",
				    "states may have changed unseen");
			continue;
		}
		if (err)
			return ubctl_error("monitor: %s", strerror(-err));
		event_print(u, &ev, mon);
		if (ev.cmd == UBFAB_CMD_MODEL_NTF) {
			ubfab_model_free(mon->model);
			mon->model = ev.model;
		}
		if (fflush(stdout))
			return UBCTL_EXIT_FAIL;	/* main() reports it */
	}
}

/* The model, to compare the first model event with. Exit code. */
static int monitor_model(struct ubctl *u, struct monitor *mon)
{
	int err = ubfab_model_get(u->nl, &mon->model);

	/* an older module: no model, and no model events */
	if (err && err != -EOPNOTSUPP)
		return ubctl_nl_error(u, err, "model");
	return UBCTL_EXIT_OK;
}

int monitor_run(struct ubctl *u, int argc, char **argv)
{
	struct monitor mon = {
		.ents = { .size = sizeof(struct ubfab_entity_info) },
	};
	struct ubfab_nl *events = NULL;
	struct pollfd pfd = { .events = POLLIN };
	sigset_t wait_mask;
	int code;

	code = ubctl_no_more_args(argc, argv);
	/* the names of the entities, for port events; says if no module */
	if (!code)
		code = ubctl_entity_load(u, NULL, &mon.ents);
	if (!code)
		code = monitor_model(u, &mon);
	if (!code)
		code = monitor_open(&events);
	if (!code)
		code = monitor_signals(&wait_mask);
	pfd.fd = ubfab_nl_fd(events);
	while (!code) {
		if (ppoll(&pfd, 1, NULL, &wait_mask) >= 0) {
			code = monitor_drain(u, events, &mon);
			continue;
		}
		if (errno == EINTR)	/* SIGINT or SIGTERM */
			break;
		code = ubctl_error("monitor: %s", strerror(errno));
	}
	ubfab_nl_close(events);
	ubctl_vec_free(&mon.ents);
	ubfab_model_free(mon.model);
	return code;
}
