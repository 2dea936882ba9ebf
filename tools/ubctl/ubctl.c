// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubctl: admin tool of the ubfab emulated UB fabric. This file owns the
 * command line (options, objects, commands), the help texts, error
 * reporting and the netlink session.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ubctl.h"

/**
 * struct object - an object of the command line
 * @name: its name
 * @syntax: its commands, one "ubctl OBJECT ..." line each
 * @help: what they show
 * @show: runs the "show" command
 */
struct object {
	const char *name;
	const char *syntax;
	const char *help;
	int (*show)(struct ubctl *u, int argc, char **argv);
};

static const struct object objects[] = {
	{
		.name = "topo",
		.syntax = "ubctl topo [show]\n"
			  "ubctl topo show ENTITY\n",
		.help = "Without ENTITY: a summary of the supernode (profile, nodes, NPU\n"
			"chips and dies, CPUs, memory, planes and their L1/L2 switches,\n"
			"ports, module setup time) and one line per node. With ENTITY:\n"
			"the entity's EID, kind, node, chip/die or socket, memory,\n"
			"refused imports of its segments and ports with their states.\n",
		.show = topo_show,
	},
	{
		.name = "entity",
		.syntax = "ubctl entity show [ENTITY]\n",
		.help = "One line per entity (NPU die or CPU), or for ENTITY only; with\n"
			"auth_failures, the refused imports of its segments (where\n"
			"the module reports them).\n",
		.show = entity_show,
	},
	{
		.name = "port",
		.syntax = "ubctl port show [ENTITY] [plane N]\n",
		.help = "One line per UB port (one per entity per plane): entity,\n"
			"plane, state and counters; only those of ENTITY and/or plane N.\n",
		.show = port_show,
	},
	{
		.name = "plane",
		.syntax = "ubctl plane show [N]\n",
		.help = "One line per switching plane, or plane N only: state, L1 and\n"
			"L2 switches, ports up/total and counters.\n",
		.show = plane_show,
	},
	{
		.name = "seg",
		.syntax = "ubctl seg show [ENTITY]\n",
		.help = "One line per exported segment, or those ENTITY exported: owner,\n"
			"token id, offset and length in the owner's memory, rights\n"
			"(r read, w write, a atomic), live imports and the exporting\n"
			"process. Token values are never shown.\n",
		.show = seg_show,
	},
};

static const char usage_head[] =
"Usage: ubctl [OPTIONS] OBJECT [COMMAND [ARGS]]\n"
"       ubctl help | ubctl OBJECT help\n";

static const char help_intro[] =
"\n"
"Show the UB (Unified Bus) fabric emulated by the ubfab kernel module: a\n"
"supernode of nodes holding NPU chips (each of one or more dies) and CPUs.\n"
"Every NPU die and CPU is an entity with an EID and a device /dev/ubfab/NAME,\n"
"and has one UB port into each of the independent switching planes. A plane\n"
"has one L1 switch per node and a tier of L2 switches joining the nodes.\n"
"Processes acting as an entity export ranges of its memory as segments,\n"
"guarded by a token, that processes acting as any entity import and map.\n"
"\n"
"OBJECTS AND COMMANDS\n";

static const char help_tail[] =
"ARGUMENTS\n"
"  ENTITY   an entity name (npu3, cpu0) or \"eid N\"\n"
"  N        a plane number\n"
"  Objects and commands may be shortened to any unambiguous prefix\n"
"  (\"ubctl pl sh\"); \"list\" is a synonym of \"show\", which is the default.\n"
"\n"
"OPTIONS\n"
"  -j, --json      print JSON: an array of objects for lists, one object\n"
"                  for the topo summary or an entity's detail\n"
"  -p, --pretty    print indented JSON (implies --json)\n"
"  -V, --version   print the version and exit\n"
"  -h, --help      print this help and exit\n"
"\n"
"EXIT STATUS\n"
"  0  success\n"
"  1  runtime error: module not loaded, no such entity/port/plane, netlink\n"
"  2  usage error: unknown object, command or option, missing argument\n"
"\n"
"EXAMPLES\n"
"  ubctl topo                     summary of the supernode\n"
"  ubctl topo show npu3           one NPU die and its ports\n"
"  ubctl -p entity show eid 0     an entity as indented JSON\n"
"  ubctl port show cpu0 plane 6   one port and its counters\n"
"  ubctl pl sh                    all planes\n"
"  ubctl seg show npu0            the segments npu0 exports\n";

/* Print @text (lines ending in newlines) with each line indented. */
static void print_indented(const char *text, int indent)
{
	const char *line, *end;

	for (line = text; *line; line = end + 1) {
		end = strchr(line, '\n');
		printf("%*s%.*s\n", indent, "", (int)(end - line), line);
	}
}

static void print_help(void)
{
	size_t i;

	fputs(usage_head, stdout);
	fputs(help_intro, stdout);
	for (i = 0; i < ARRAY_SIZE(objects); i++) {
		print_indented(objects[i].syntax, 2);
		print_indented(objects[i].help, 6);
		putchar('\n');
	}
	fputs(help_tail, stdout);
}

static void print_object_help(const struct object *o)
{
	fputs("Usage:\n", stdout);
	print_indented(o->syntax, 2);
	putchar('\n');
	print_indented(o->help, 2);
	fputs("\nENTITY is an entity name (npu3, cpu0) or \"eid N\"; see ubctl --help.\n",
	      stdout);
}

int ubctl_report(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("ubctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (code == UBCTL_EXIT_USAGE)
		fputs("Try 'ubctl --help' for more information.\n", stderr);
	return code;
}

int ubctl_nl_error(const struct ubctl *u, int err, const char *what)
{
	const char *msg = ubfab_nl_errmsg(u->nl);

	if (*msg)
		return ubctl_error("%s: %s (%s)", what, strerror(-err), msg);
	return ubctl_error("%s: %s", what, strerror(-err));
}

int ubctl_open(struct ubctl *u)
{
	int err = u->nl ? 0 : ubfab_nl_open(&u->nl);

	if (err == -ENOENT)
		return ubctl_error("ubfab module not loaded (no generic netlink family \"%s\")",
				   UBFAB_GENL_NAME);
	if (err)
		return ubctl_nl_error(u, err, "netlink");
	return UBCTL_EXIT_OK;
}

/* Run "OBJECT [COMMAND [ARGS]]"; argv[0] is the object's name. */
static int run_object(struct ubctl *u, const struct object *o, int argc,
		      char **argv)
{
	static const char *const commands[] = { "show", "list", "help" };
	int cmd = 0;

	if (argc > 1) {
		cmd = ubctl_match(argv[1], commands, ARRAY_SIZE(commands),
				  "command");
		if (cmd < 0)
			return UBCTL_EXIT_USAGE;
		argc--;
		argv++;
	}
	if (!strcmp(commands[cmd], "help")) {
		print_object_help(o);
		return ubctl_no_more_args(argc - 1, argv + 1);
	}
	return o->show(u, argc - 1, argv + 1);
}

static int run(struct ubctl *u, int argc, char **argv)
{
	const char *names[ARRAY_SIZE(objects) + 1];
	size_t i;
	int obj;

	if (!argc)
		return ubctl_usage_error("missing OBJECT");
	for (i = 0; i < ARRAY_SIZE(objects); i++)
		names[i] = objects[i].name;
	names[i] = "help";
	obj = ubctl_match(argv[0], names, ARRAY_SIZE(names), "object");
	if (obj < 0)
		return UBCTL_EXIT_USAGE;
	if ((size_t)obj == ARRAY_SIZE(objects)) {
		print_help();
		return ubctl_no_more_args(argc - 1, argv + 1);
	}
	return run_object(u, &objects[obj], argc, argv);
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ubctl u = { 0 };
	bool pretty = false;
	int opt, code;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+jpVh", options, NULL)) != -1) {
		switch (opt) {
		case 'j':
			u.json = true;
			break;
		case 'p':
			pretty = true;
			u.json = true;
			break;
		case 'V':
			printf("ubctl %s (ubfab generic netlink version %d)\n",
			       UBCTL_VERSION, UBFAB_GENL_VERSION);
			return UBCTL_EXIT_OK;
		case 'h':
			print_help();
			return UBCTL_EXIT_OK;
		default:
			if (optopt && strchr("jpVh", optopt))
				return ubctl_usage_error("option '%s' takes no argument",
							 argv[optind - 1]);
			if (optopt)
				return ubctl_usage_error("unknown option '-%c'",
							 optopt);
			return ubctl_usage_error("unknown option '%s'",
						 argv[optind - 1]);
		}
	}
	json_init(&u.js, stdout, pretty);

	code = run(&u, argc - optind, argv + optind);
	ubfab_nl_close(u.nl);
	if (fflush(stdout) || ferror(stdout)) {
		perror("ubctl: stdout");
		code = UBCTL_EXIT_FAIL;
	}
	return code;
}
