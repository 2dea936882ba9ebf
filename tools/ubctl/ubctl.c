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
 * struct command - a command of an object
 * @name: its name; NULL for an object whose only command has none
 * @run: runs it on the arguments after its name; returns an exit code
 */
struct command {
	const char *name;
	int (*run)(struct ubctl *u, int argc, char **argv);
};

/* The commands of each object, the first being the default, then { }. */
static const struct command topo_commands[] = {
	{ "show", topo_show }, { "list", topo_show }, { },
};

static const struct command entity_commands[] = {
	{ "show", entity_show }, { "list", entity_show },
	{ "reset", entity_reset }, { },
};

static const struct command port_commands[] = {
	{ "show", port_show }, { "list", port_show }, { "set", port_set }, { },
};

static const struct command plane_commands[] = {
	{ "show", plane_show }, { "list", plane_show }, { "set", plane_set },
	{ },
};

static const struct command seg_commands[] = {
	{ "show", seg_show }, { "list", seg_show }, { },
};

static const struct command queue_commands[] = {
	{ "show", queue_show }, { "list", queue_show }, { },
};

static const struct command jetty_commands[] = {
	{ "show", jetty_show }, { "list", jetty_show }, { },
};

static const struct command stats_commands[] = {
	{ "show", stats_show }, { "list", stats_show },
	{ "plane", stats_plane }, { "port", stats_port },
	{ "link", stats_link }, { },
};

static const struct command model_commands[] = {
	{ "show", model_show }, { "list", model_show }, { "set", model_set },
	{ },
};

static const struct command monitor_commands[] = {
	{ NULL, monitor_run }, { },
};

static const struct command top_commands[] = {
	{ NULL, top_run }, { },
};

static const struct command trace_commands[] = {
	{ "record", trace_record }, { "dump", trace_dump }, { },
};

/**
 * struct object - an object of the command line
 * @name: its name
 * @syntax: its commands, one "ubctl OBJECT ..." line each
 * @help: what they do
 * @commands: its commands
 * @dot: its commands draw graphs with -f dot
 */
struct object {
	const char *name;
	const char *syntax;
	const char *help;
	const struct command *commands;
	bool dot;
};

static const struct object objects[] = {
	{
		.name = "topo",
		.syntax = "ubctl topo [show]\n"
			  "ubctl topo show ENTITY\n"
			  "ubctl -f dot topo [show] [node N | plane N]\n",
		.help = "Without ENTITY: a summary of the supernode (profile, nodes, NPU\n"
			"chips and dies, CPUs, memory, planes and their L1/L2 switches,\n"
			"ports, module setup time) and one line per node. With ENTITY:\n"
			"the entity's EID, kind, node, chip/die or socket, memory,\n"
			"refused imports of its segments and ports with their states.\n"
			"With -f dot: a Graphviz graph of the supernode (nodes with their\n"
			"chips, dies and CPUs, each node's L1 switches as one box, each\n"
			"plane's L2 switches as one box), of node N (every port of its\n"
			"entities to each plane's L1) or of plane N (each node's L1,\n"
			"every L2, the entities whose port is down); down in red.\n",
		.commands = topo_commands,
		.dot = true,
	},
	{
		.name = "entity",
		.syntax = "ubctl entity show [ENTITY]\n"
			  "ubctl entity reset ENTITY\n",
		.help = "show: one line per entity (NPU die or CPU), or for ENTITY only;\n"
			"with auth_failures, the refused imports of its segments (where\n"
			"the module reports them).\n"
			"reset: free all the entity's memory and revoke its segments, as\n"
			"if it had been restarted; its importers lose their imports.\n",
		.commands = entity_commands,
	},
	{
		.name = "port",
		.syntax = "ubctl port show [ENTITY] [plane N]\n"
			  "ubctl port set ENTITY plane N [state STATE] [bw PERMILLE] [delay PS]\n"
			  "               [errors PPM]\n",
		.help = "show: one line per UB port (one per entity per plane): entity,\n"
			"plane, state, the fault knobs not at their defaults, and\n"
			"counters; only those of ENTITY and/or plane N.\n"
			"set: bring the port of ENTITY into plane N up or down and set its\n"
			"fault knobs in the fabric model, at least one of the four, in one\n"
			"request: all or nothing. A port that is down carries no transfer;\n"
			"transfers take the other planes. The knobs change modeled time\n"
			"only: bw is the link's bandwidth at the port, delay latency added\n"
			"one way, errors the transfers that hit a link error and retry;\n"
			"bw 1000 delay 0 errors 0, their defaults, is a healthy port.\n",
		.commands = port_commands,
	},
	{
		.name = "plane",
		.syntax = "ubctl plane show [N]\n"
			  "ubctl plane set N state STATE\n",
		.help = "show: one line per switching plane, or plane N only: state, L1\n"
			"and L2 switches, ports up/total and counters.\n"
			"set: bring plane N up or down. A plane that is down carries no\n"
			"transfer, whatever its ports' states, which it leaves as they\n"
			"are; with every plane down, transfers fail (NO_ROUTE).\n",
		.commands = plane_commands,
	},
	{
		.name = "seg",
		.syntax = "ubctl seg show [ENTITY]\n",
		.help = "One line per exported segment, or those ENTITY exported: owner,\n"
			"token id, offset and length in the owner's memory, rights\n"
			"(r read, w write, a atomic), live imports and the exporting\n"
			"process. Token values are never shown.\n",
		.commands = seg_commands,
	},
	{
		.name = "queue",
		.syntax = "ubctl queue show [ENTITY]\n",
		.help = "One line per NPU queue, any process's, or those of ENTITY's\n"
			"files: its number in the entity, the process that made it,\n"
			"its ring sizes and flags (poll, selective, timing, ordered),\n"
			"its modeled clock and the entries charged to it so far.\n",
		.commands = queue_commands,
	},
	{
		.name = "jetty",
		.syntax = "ubctl jetty show [ENTITY]\n",
		.help = "One line per jetty (a queue and a receive queue paired), any\n"
			"process's, or those of ENTITY's files: its number in the\n"
			"entity, the process that made it, its queue's and receive\n"
			"queue's numbers, its state (ready, or error while its queue\n"
			"is in the error state), and since it was made: completions\n"
			"of its queue (sends) and of its receive queue (receives),\n"
			"messages that found its receive queue not ready (rnr_naks,\n"
			"each retry), its sends that ran out of retries (rnr_exc),\n"
			"its queue's errors and its completion events.\n",
		.commands = jetty_commands,
	},
	{
		.name = "stats",
		.syntax = "ubctl stats [show]\n"
			  "ubctl stats [show] plane [N]\n"
			  "ubctl stats [show] port [ENTITY] [plane N]\n"
			  "ubctl stats [show] link [plane N] [loaded]\n",
		.help = "The traffic counters (tx_bytes, rx_bytes, tx_ops, rx_ops,\n"
			"errors) of every plane and then every port, or of the planes\n"
			"only (plane N only), or of the ports only (those of ENTITY\n"
			"and/or plane N only). A plane counts each chunk of a transfer\n"
			"that crosses it as tx and rx; a port counts what its entity\n"
			"sent (tx) and received (rx) through it; a failed transfer\n"
			"counts one error on the initiator's port and on its plane.\n"
			"link: the fabric model's links (each port both ways, each\n"
			"node's L1 up to and down from each L2 switch), of plane N only,\n"
			"those that carried something only with loaded: the bytes\n"
			"modeled transfers moved over each since the module was loaded,\n"
			"the modeled time they held it (busy; busy_ps in JSON, in\n"
			"picoseconds) and its share of the modeled time the fabric has\n"
			"reached (util; horizon_ps in JSON, the latest end of a busy\n"
			"period).\n",
		.commands = stats_commands,
	},
	{
		.name = "model",
		.syntax = "ubctl model [show]\n"
			  "ubctl model set [profile PROFILE] [NAME VALUE]...\n",
		.help = "show: the fabric model's profile (cm384, or custom when a\n"
			"parameter differs from it), then one line per parameter: its\n"
			"value, default and range, each in its unit (the last part of\n"
			"its name).\n"
			"set: put back every value of PROFILE first, then set each\n"
			"parameter NAME to VALUE, an integer in its unit; one request,\n"
			"all or nothing. Entries that run afterwards are priced with\n"
			"the new values.\n",
		.commands = model_commands,
	},
	{
		.name = "monitor",
		.syntax = "ubctl monitor\n",
		.help = "Print each change of the fabric as it happens, one line (or,\n"
			"with -j, one JSON object) each: a port or a plane set up or\n"
			"down, an entity reset, parameters of the model set (with the\n"
			"values they had). Runs until interrupted (SIGINT or SIGTERM),\n"
			"then exits 0.\n",
		.commands = monitor_commands,
	},
	{
		.name = "top",
		.syntax = "ubctl top [plane N] [interval SECS] [count N] [lines N]\n",
		.help = "Like top: every SECS seconds (1 by default) the N ports and the N\n"
			"L1-L2 links (10 by default) of the fabric model, of plane N\n"
			"only, held longest in modeled time over the interval, with\n"
			"their utilization (the busy share of the modeled time each saw\n"
			"go by) and the modeled bandwidth each carried (GB/s, 10^9\n"
			"bytes a second of modeled time); then the N queues that ran\n"
			"the most entries, with how far their modeled clocks moved.\n"
			"With -j, one JSON object per refresh and line: interval_s;\n"
			"ports and switch_links, each with bytes, busy_ps, idle_ps and\n"
			"util (0..1); queues, each with entries, model_ns and clock_ns.\n"
			"Runs until interrupted (exit 0), or for count refreshes.\n",
		.commands = top_commands,
	},
	{
		.name = "trace",
		.syntax = "ubctl trace record [-o FILE] [-b KB] [--] COMMAND [ARGS]...\n"
			  "ubctl trace dump [-i TRACE] [-o FILE]\n",
		.help = "A timeline of the queues and links in modeled time, as a Chrome\n"
			"trace event JSON file (default ubfab-trace.json; - standard\n"
			"output) for Perfetto (ui.perfetto.dev) or chrome://tracing: a\n"
			"track per queue with a slice per entry, a track per link that\n"
			"carried something, arrows from a write to the wait it satisfied.\n"
			"record: enable the ubfab events in a tracefs instance of its own\n"
			"(ubctl-PID, -b KB of buffer per CPU, default 16384), run COMMAND,\n"
			"write the file; exits with COMMAND's status. To record programs\n"
			"already running, give \"sleep N\" as COMMAND. Needs root.\n"
			"dump: convert the ubfab events of TRACE, a trace in text (default\n"
			"tracefs's trace file, - standard input; trace-cmd report and perf\n"
			"script output too).\n",
		.commands = trace_commands,
	},
};

static const char usage_head[] =
"Usage: ubctl [OPTIONS] OBJECT [COMMAND [ARGS]]\n"
"       ubctl help | ubctl OBJECT help\n";

static const char help_intro[] =
"\n"
"Show and change the UB (Unified Bus) fabric emulated by the ubfab kernel\n"
"module: a supernode of nodes holding NPU chips (each of one or more dies)\n"
"and CPUs. Every NPU die and CPU is an entity with an EID and a device\n"
"/dev/ubfab/NAME, and has one UB port into each of the independent\n"
"switching planes. A plane has one L1 switch per node and a tier of L2\n"
"switches joining the nodes. Processes acting as an entity export ranges\n"
"of its memory as segments, guarded by a token, that processes acting as\n"
"any entity import and map. A fabric model gives every completion the\n"
"time it would have taken on the real machine, from parameters that\n"
"\"ubctl model\" shows and sets. The set and reset commands inject faults\n"
"or change the model and need CAP_NET_ADMIN; \"ubctl monitor\" prints\n"
"each change as it happens.\n"
"\n"
"OBJECTS AND COMMANDS\n";

static const char help_tail[] =
"ARGUMENTS\n"
"  ENTITY   an entity name (npu3, cpu0) or \"eid N\"\n"
"  N        a plane number\n"
"  STATE    up or down\n"
"  PERMILLE per mille of the model's link bandwidth: 1..1000\n"
"  PS       picoseconds: 0..1000000000000\n"
"  PPM      per million transfers: 0..1000000\n"
"  PROFILE  a profile of the model: cm384\n"
"  NAME     a parameter of the model, as \"ubctl model show\" lists them\n"
"  VALUE    an integer in the parameter's unit, which ends its name\n"
"  Objects and commands may be shortened to any unambiguous prefix\n"
"  (\"ubctl pl sh\"), parameter names and profiles not; \"list\" is a\n"
"  synonym of \"show\", which is the default.\n"
"\n"
"OPTIONS\n"
"  -j, --json      print JSON: an array of objects for lists, one object\n"
"                  for the topo summary, an entity's detail, stats and\n"
"                  the model, one object per line for each event of\n"
"                  monitor\n"
"  -f, --format FORMAT\n"
"                  text (the default), json (as -j) or dot: Graphviz, for\n"
"                  topo only (\"ubctl -f dot topo | dot -Tsvg >topo.svg\")\n"
"  -p, --pretty    print indented JSON (implies --json)\n"
"  -V, --version   print the version and exit\n"
"  -h, --help      print this help and exit\n"
"\n"
"EXIT STATUS\n"
"  0  success\n"
"  1  runtime error: module not loaded, no such entity/node/port/plane,\n"
"     parameter or profile, a value out of range, operation not permitted\n"
"     (set and reset need CAP_NET_ADMIN), netlink\n"
"  2  usage error: unknown object, command or option, missing argument\n"
"  trace record exits with COMMAND's status (see ubctl trace help)\n"
"\n"
"EXAMPLES\n"
"  ubctl topo                     summary of the supernode\n"
"  ubctl topo show npu3           one NPU die and its ports\n"
"  ubctl -p entity show eid 0     an entity as indented JSON\n"
"  ubctl port show cpu0 plane 6   one port and its counters\n"
"  ubctl pl sh                    all planes\n"
"  ubctl -f dot topo show node 0 | dot -Tsvg >node0.svg\n"
"                                 node 0 and its ports, drawn\n"
"  ubctl seg show npu0            the segments npu0 exports\n"
"  ubctl port set npu3 plane 2 state down\n"
"                                 cut npu3 off plane 2\n"
"  ubctl port set npu3 plane 2 state up bw 500 delay 1000000\n"
"                                 back, at half the bandwidth and 1us\n"
"                                 more latency in the model\n"
"  ubctl plane set 0 state up     bring plane 0 back\n"
"  ubctl entity reset cpu0        free cpu0's memory, revoke its segments\n"
"  ubctl model set hop-ps 250000 link-mbps 14000\n"
"                                 slower switches and links in the model\n"
"  ubctl model set profile cm384  put every model parameter back\n"
"  ubctl -j stats show port npu3  npu3's counters per plane as JSON\n"
"  ubctl -j monitor               the changes, one JSON object per line\n"
"  ubctl stats link plane 0 loaded\n"
"                                 what plane 0's busy links carried\n"
"  ubctl top interval 2 lines 5   the 5 busiest ports, switch links and\n"
"                                 queues every 2 s\n"
"  ubctl queue show npu3          the queues of npu3's files\n"
"  ubctl -j jetty show npu0       npu0's jetties and their counters\n"
"  ubctl trace record -o t.json -- ubbench queue lat\n"
"                                 a timeline of a benchmark, for Perfetto\n";

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
	fputs("\nENTITY is an entity name (npu3, cpu0) or \"eid N\", N a plane number,\n"
	      "STATE up or down; see ubctl --help.\n", stdout);
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

	/* the kernel refuses GENL_ADMIN_PERM commands without a message */
	if (!*msg && err == -EPERM)
		msg = "changing the fabric needs CAP_NET_ADMIN";
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

/*
 * Run "OBJECT [COMMAND [ARGS]]"; argv[0] is the object's name. Without a
 * command, the object's first command runs; an object whose command has
 * no name takes no command but "help": its arguments are the command's.
 */
static int run_object(struct ubctl *u, const struct object *o, int argc,
		      char **argv)
{
	const char *names[8];	/* the most commands of an object, and help */
	size_t i, n = 0;
	int cmd = 0;

	for (i = 0; o->commands[i].run; i++)
		if (o->commands[i].name)
			names[n++] = o->commands[i].name;
	names[n] = "help";
	/* a command without a name takes all the arguments but "help" */
	if (argc > 1 && (n || !strncmp(argv[1], "help", strlen(argv[1])))) {
		cmd = ubctl_match(argv[1], names, n + 1, "command");
		if (cmd < 0)
			return UBCTL_EXIT_USAGE;
		if ((size_t)cmd == n) {
			print_object_help(o);
			return ubctl_no_more_args(argc - 2, argv + 2);
		}
		argc--;
		argv++;
	}
	return o->commands[cmd].run(u, argc - 1, argv + 1);
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
	if (u->dot && !objects[obj].dot)
		return ubctl_usage_error("-f dot: %s draws no graph (topo does)",
					 objects[obj].name);
	return run_object(u, &objects[obj], argc, argv);
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "format", required_argument, NULL, 'f' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ubctl u = { 0 };
	static const char *const formats[] = { "text", "json", "dot" };
	bool pretty = false;
	int opt, code, i;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:jf:pVh", options, NULL)) != -1) {
		switch (opt) {
		case 'j':
			u.json = true;
			u.dot = false;
			break;
		case 'f':
			i = ubctl_match(optarg, formats, ARRAY_SIZE(formats),
					"format");
			if (i < 0)
				return UBCTL_EXIT_USAGE;
			u.json = i == 1;
			u.dot = i == 2;
			break;
		case 'p':
			pretty = true;
			u.json = true;
			u.dot = false;
			break;
		case 'V':
			printf("ubctl %s (ubfab generic netlink version %d)\n",
			       UBCTL_VERSION, UBFAB_GENL_VERSION);
			return UBCTL_EXIT_OK;
		case 'h':
			print_help();
			return UBCTL_EXIT_OK;
		case ':':
			return ubctl_usage_error("option '%s' needs an argument",
						 argv[optind - 1]);
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
	json_init(&u.js, stdout, pretty ? JSON_PRETTY : JSON_COMPACT);

	code = run(&u, argc - optind, argv + optind);
	ubfab_nl_close(u.nl);
	if (fflush(stdout) || ferror(stdout)) {
		perror("ubctl: stdout");
		code = UBCTL_EXIT_FAIL;
	}
	return code;
}
