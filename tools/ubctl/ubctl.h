/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ubctl shared declarations: the run context, exit codes, the commands of
 * each object, and the helpers the object files share (argument parsing,
 * error reporting, entity lookup, output formatting).
 */
#ifndef UBCTL_H
#define UBCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libubfab.h>

#include "json.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Exit codes */
enum {
	UBCTL_EXIT_OK = 0,
	UBCTL_EXIT_FAIL = 1,	/* runtime error: module, lookup, netlink */
	UBCTL_EXIT_USAGE = 2,	/* bad command line */
};

/**
 * struct ubctl - one run of ubctl
 * @nl: netlink session, opened by ubctl_open() once the arguments are
 *	parsed (the lookup and load helpers call it)
 * @json: print JSON instead of text
 * @dot: print Graphviz DOT instead of text (only topo does)
 * @js: the JSON writer (used when @json)
 */
struct ubctl {
	struct ubfab_nl *nl;
	bool json;
	bool dot;
	struct json js;
};

/*
 * The commands of each object. argv holds the arguments after the
 * command; each returns an exit code.
 */
int topo_show(struct ubctl *u, int argc, char **argv);
int entity_show(struct ubctl *u, int argc, char **argv);
int entity_reset(struct ubctl *u, int argc, char **argv);
int port_show(struct ubctl *u, int argc, char **argv);
int port_set(struct ubctl *u, int argc, char **argv);
int plane_show(struct ubctl *u, int argc, char **argv);
int plane_set(struct ubctl *u, int argc, char **argv);
int seg_show(struct ubctl *u, int argc, char **argv);
int stats_show(struct ubctl *u, int argc, char **argv);
int stats_plane(struct ubctl *u, int argc, char **argv);
int stats_port(struct ubctl *u, int argc, char **argv);
int model_show(struct ubctl *u, int argc, char **argv);
int model_set(struct ubctl *u, int argc, char **argv);
int stats_link(struct ubctl *u, int argc, char **argv);
int monitor_run(struct ubctl *u, int argc, char **argv);
int top_run(struct ubctl *u, int argc, char **argv);
int queue_show(struct ubctl *u, int argc, char **argv);
int jetty_show(struct ubctl *u, int argc, char **argv);
int trace_record(struct ubctl *u, int argc, char **argv);
int trace_dump(struct ubctl *u, int argc, char **argv);

/*
 * Errors (ubctl.c): print "ubctl: MESSAGE" to stderr, with a hint to
 * --help for usage errors, and return the exit code @code.
 */
int ubctl_report(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
#define ubctl_usage_error(...)	ubctl_report(UBCTL_EXIT_USAGE, __VA_ARGS__)
#define ubctl_error(...)	ubctl_report(UBCTL_EXIT_FAIL, __VA_ARGS__)
/*
 * A failed library call: "@what: strerror (kernel's extack message)"; for
 * -EPERM without a message, says that CAP_NET_ADMIN is needed.
 */
int ubctl_nl_error(const struct ubctl *u, int err, const char *what);

/* Open the session unless open; says so if the module is not loaded. */
int ubctl_open(struct ubctl *u);

/* Arguments (args.c) */

/*
 * Index of @arg in @names[0..n-1]: an exact name or an unambiguous
 * prefix of one. Otherwise prints a usage error naming @what and
 * returns -1.
 */
int ubctl_match(const char *arg, const char *const *names, size_t n,
		const char *what);
/*
 * Parse "@keyword N", N a decimal integer up to @max (up to UINT32_MAX for
 * the u32 one); returns 0 or UBCTL_EXIT_USAGE after a message.
 */
int ubctl_parse_u64(const char *keyword, const char *arg, uint64_t max,
		    uint64_t *v);
int ubctl_parse_u32(const char *keyword, const char *arg, uint32_t *v);
/*
 * Parse "state STATE" (@arg may be NULL: missing) into @state, an enum
 * ubfab_state; returns 0 or UBCTL_EXIT_USAGE after a message.
 */
int ubctl_parse_state(const char *arg, uint32_t *state);
/* Complain about the first of @argc leftover arguments, if any. */
int ubctl_no_more_args(int argc, char **argv);

/**
 * struct ubctl_vec - a growable array of fixed-size items
 * @items: the items
 * @n: number of items
 * @cap: room in @items, in items
 * @size: size of one item
 */
struct ubctl_vec {
	void *items;
	size_t n;
	size_t cap;
	size_t size;
};

/* Append a copy of @item; returns 0 or -ENOMEM. */
int ubctl_vec_push(struct ubctl_vec *v, const void *item);
void ubctl_vec_free(struct ubctl_vec *v);

/* Entities (entity.c) */

/**
 * struct ubctl_entity_spec - an ENTITY argument: a name or "eid N"
 * @name: the name, or NULL when given by EID
 * @eid: the EID when @name is NULL
 * @label: "eid N" when @name is NULL, for messages
 */
struct ubctl_entity_spec {
	const char *name;
	uint32_t eid;
	char label[24];
};

/*
 * Consume an ENTITY argument from the arguments (at least one left).
 * Returns 0 or UBCTL_EXIT_USAGE after a message.
 */
int ubctl_entity_parse(int *argc, char ***argv, struct ubctl_entity_spec *s);
/* Look the entity up; exit code, "LABEL: no such entity" if absent. */
int ubctl_entity_lookup(struct ubctl *u, const struct ubctl_entity_spec *s,
			struct ubfab_entity_info *e);
/*
 * Load the entity @s names into @v (struct ubfab_entity_info), or all
 * entities if @s is NULL. Exit code.
 */
int ubctl_entity_load(struct ubctl *u, const struct ubctl_entity_spec *s,
		      struct ubctl_vec *v);
/*
 * Load the entity named by [ENTITY], a command's only arguments, into @v,
 * or all entities if @argc is 0. Exit code.
 */
int ubctl_entity_load_args(struct ubctl *u, int argc, char **argv,
			   struct ubctl_vec *v);
/* Name of entity @eid in @v (struct ubfab_entity_info), or NULL. */
const char *ubctl_entity_name(const struct ubctl_vec *v, uint32_t eid);
/* "hbm" for an NPU die, "dram" for a CPU, "memory" otherwise. */
const char *ubctl_mem_type(uint32_t kind);
/* The members of an entity's JSON object (inside an open object). */
void ubctl_entity_json(struct ubctl *u, const struct ubfab_entity_info *e);

/* Ports and planes shared between the objects (port.c, plane.c) */

/*
 * Print one port (a ubctl_print_fn). @ents: the entities, to name the
 * port's owner; NULL in an entity's detail, where ports are indented.
 */
void ubctl_port_print(struct ubctl *u, const void *port, const void *ents);
/*
 * Print a port's fault knobs that the module reports: as JSON members
 * (inside the port's open object) all of them, as text (" bw_permille N"
 * and so on) those not at their defaults.
 */
void ubctl_port_knobs(struct ubctl *u, const struct ubfab_port_info *p);
/*
 * Begin a port's item: open its JSON object with entity, eid and plane,
 * or print "NAME plane N:" (indented without @ents, as in
 * ubctl_port_print()). ubctl_print_stats_end() ends it.
 */
void ubctl_port_begin(struct ubctl *u, const struct ubfab_port_info *p,
		      const struct ubctl_vec *ents);
/* Load the ports of @eid (or UBFAB_EID_ANY) into @v. Exit code. */
int ubctl_port_load(struct ubctl *u, uint32_t eid, struct ubctl_vec *v);
/*
 * Load the ports that "[ENTITY] [plane N]", a command's only arguments,
 * select into @ports, and into @ents the entity named or all entities.
 * Exit code.
 */
int ubctl_port_select(struct ubctl *u, int argc, char **argv,
		      struct ubctl_vec *ents, struct ubctl_vec *ports);
/* Look plane @id up; exit code, "plane N: no such plane" if absent. */
int ubctl_plane_lookup(struct ubctl *u, uint32_t id,
		       struct ubfab_plane_info *p);
/* Load all planes into @v (struct ubfab_plane_info). Exit code. */
int ubctl_plane_load(struct ubctl *u, struct ubctl_vec *v);
/*
 * Load plane N, or all planes if @argc is 0, into @v; "[N]" are the
 * command's only arguments. Exit code.
 */
int ubctl_plane_select(struct ubctl *u, int argc, char **argv,
		       struct ubctl_vec *v);

/* The fabric model (model.c) */

/*
 * Read the model into *@m (released with ubfab_model_free()); says so if
 * the module has none. Exit code.
 */
int ubctl_model_load(struct ubctl *u, struct ubfab_model **m);
/* The members of the model's JSON object: profile and params. */
void ubctl_model_json(struct ubctl *u, const struct ubfab_model *m);
/*
 * Print a model event (inside the event's JSON object): its profile and,
 * as text, the parameters whose values differ from @last's (all of them
 * when @last is NULL) with the values they had; as JSON, every parameter.
 */
void ubctl_model_event(struct ubctl *u, const struct ubfab_model *m,
		       const struct ubfab_model *last);

/* The fabric model's links (link.c) */

/* "port-tx", "port-rx", "l1-up", "l2-down" (enum ubfab_link_kind). */
const char *ubctl_link_kind(uint32_t kind);
/* "plane 2 npu3 tx", "plane 2 node 0 up l2 5", "plane 2 l2 5 down node 1". */
const char *ubctl_link_name(char *buf, size_t len,
			    const struct ubfab_link_info *l,
			    const struct ubctl_vec *ents);
/*
 * Load the links of @plane (or UBFAB_PLANE_ANY) into @v, and the latest
 * end of their busy periods into *@horizon_ps. Exit code.
 */
int ubctl_link_load(struct ubctl *u, uint32_t plane, struct ubctl_vec *v,
		    uint64_t *horizon_ps);
/* The busy share of @busy_ps + @idle_ps, 0..1 (0 if never busy). */
double ubctl_link_util(uint64_t busy_ps, uint64_t idle_ps);
/* A link's JSON members (inside its open object): plane, kind, where. */
void ubctl_link_json(struct ubctl *u, const struct ubfab_link_info *l,
		     const struct ubctl_vec *ents);

/* Queues (queue.c) */

/* "npu3 queue 0", or "eid 3 queue 0" for an entity not in @ents. */
const char *ubctl_queue_name(char *buf, size_t len,
			     const struct ubfab_queue_info *q,
			     const struct ubctl_vec *ents);
/* A queue's JSON members (inside its open object): entity, eid, id, pid. */
void ubctl_queue_json(struct ubctl *u, const struct ubfab_queue_info *q,
		      const struct ubctl_vec *ents);
/* Load the queues of @eid (or UBFAB_EID_ANY) into @v. Exit code. */
int ubctl_queue_load(struct ubctl *u, uint32_t eid, struct ubctl_vec *v);

/* The topology as Graphviz (dot.c) */

/* What "ubctl -f dot topo" draws */
enum ubctl_dot_what {
	UBCTL_DOT_SUPERNODE,
	UBCTL_DOT_NODE,		/* node N */
	UBCTL_DOT_PLANE,	/* plane N */
};

/*
 * Print the supernode, node @n or plane @n of the fabric @f, with its
 * entities @ents and planes @planes (topo.c loads them), as a DOT graph;
 * "node N: no such node" or "plane N: no such plane" if absent. Loads
 * the ports. Exit code.
 */
int topo_dot(struct ubctl *u, const struct ubfab_fabric_info *f,
	     const struct ubctl_vec *ents, const struct ubctl_vec *planes,
	     enum ubctl_dot_what what, uint32_t n);

/* Timelines (timeline.c) */

/**
 * struct ubctl_timeline_sum - what a timeline holds
 * @ops: queue entries (slices on the queues' tracks)
 * @links: link holds (slices on the links' tracks)
 * @tracks: links that carried something
 * @flows: flow arrows from a write or a record to the wait it satisfied
 * @lost: events the trace says its buffer lost
 */
struct ubctl_timeline_sum {
	size_t ops;
	size_t links;
	size_t tracks;
	size_t flows;
	uint64_t lost;
};

/*
 * Convert the ubfab events in the trace @text (@len bytes of text with
 * room for a '\0' after them; a tracefs "trace" file, trace-cmd report
 * or perf script) into a Chrome trace event JSON document written to
 * @out, its tracks named after @ents (struct ubfab_entity_info; empty:
 * "eid N"), @command (or NULL) in its otherData. Errors name @src and
 * the line. Exit code; *@sum says what was written.
 */
int ubctl_timeline(char *text, size_t len, const char *src,
		   const struct ubctl_vec *ents, const char *command,
		   FILE *out, struct ubctl_timeline_sum *sum);

/* Output (fmt.c) */

/* A duration: "850ns", "12.3us", "1.23ms", "2.50s". */
const char *ubctl_fmt_ns(char *buf, size_t len, uint64_t ns);
/* Prints one item of a list; @ctx is what ubctl_print_list() got. */
typedef void (*ubctl_print_fn)(struct ubctl *u, const void *item,
			       const void *ctx);
/*
 * Print the items of @v: one after the other as text, or as a JSON array
 * (the member @key of the open object, or the top-level value if NULL).
 */
void ubctl_print_list(struct ubctl *u, const char *key,
		      const struct ubctl_vec *v, ubctl_print_fn print,
		      const void *ctx);
/* The counters: text " tx_bytes N ..." or a JSON "stats" object. */
void ubctl_print_stats(struct ubctl *u, const struct ubfab_stats *s);
/* The counters, then the end of the item: its JSON object or its line. */
void ubctl_print_stats_end(struct ubctl *u, const struct ubfab_stats *s);

#endif /* UBCTL_H */
