// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubctl trace: "ubctl trace record [-o FILE] [-b KB] [--] COMMAND
 * [ARGS]..." records the ubfab events while COMMAND runs, in a tracefs
 * instance of its own, and writes them as a timeline; "ubctl trace dump
 * [-i TRACE] [-o FILE]" converts a trace already recorded (tracefs's
 * "trace" file by default). This file owns the command line of both and
 * tracefs; timeline.c the conversion.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "num.h"
#include "ubctl.h"

#define TRACEFS		"/sys/kernel/tracing"
#define TRACEFS_DEBUGFS	"/sys/kernel/debug/tracing"
#define TRACE_OUT	"ubfab-trace.json"
/* Per CPU: some 200000 events each (an event takes 40 to 90 bytes). */
#define TRACE_BUF_KB	16384
#define TRACE_BUF_KB_MAX (1U << 22)	/* 4 GiB per CPU */

/* Where tracefs is, mounting it on TRACEFS if it is nowhere; or NULL. */
static const char *tracefs_dir(void)
{
	if (!access(TRACEFS "/instances", F_OK))
		return TRACEFS;
	if (!access(TRACEFS_DEBUGFS "/instances", F_OK))
		return TRACEFS_DEBUGFS;
	if (!mount("tracefs", TRACEFS, "tracefs", 0, NULL) &&
	    !access(TRACEFS "/instances", F_OK))
		return TRACEFS;
	ubctl_error("no tracefs at " TRACEFS " and it cannot be mounted there: %s (a kernel without CONFIG_TRACING, or not root)",
		    strerror(errno));
	return NULL;
}

/* Write @val to the file @dir/@name. Exit code, with a message. */
static int tracefs_write(const char *dir, const char *name, const char *val)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return ubctl_error("%s: %s", path, strerror(errno));
	n = write(fd, val, strlen(val));
	if (n < 0 || (size_t)n != strlen(val)) {
		n = errno;
		close(fd);
		return ubctl_error("%s: writing \"%s\": %s", path, val,
				   strerror(n));
	}
	close(fd);
	return UBCTL_EXIT_OK;
}

/*
 * Read all of @fd into *@buf (with room for a '\0' after *@len bytes).
 * Exit code, with a message naming @name.
 */
static int read_all(int fd, const char *name, char **buf, size_t *len)
{
	size_t cap = 1 << 16;
	char *b = malloc(cap), *nb;
	ssize_t r;

	*len = 0;
	while (b) {
		if (cap - *len < 2) {
			nb = realloc(b, cap * 2);
			if (!nb)
				break;
			b = nb;
			cap *= 2;
		}
		r = read(fd, b + *len, cap - *len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			r = errno;
			free(b);
			return ubctl_error("%s: %s", name, strerror(r));
		}
		if (!r) {
			*buf = b;
			return UBCTL_EXIT_OK;
		}
		*len += r;
	}
	free(b);
	return ubctl_error("%s: out of memory", name);
}

static int read_path(const char *path, char **buf, size_t *len)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY) : 0;
	int code;

	if (fd < 0)
		return ubctl_error("%s: %s", path, strerror(errno));
	code = read_all(fd, fd ? path : "standard input", buf, len);
	if (fd)
		close(fd);
	return code;
}

static int entity_collect(const struct ubfab_entity_info *e, void *arg)
{
	return ubctl_vec_push(arg, e);
}

/*
 * The entities' names, to name the tracks, if the module is loaded;
 * none otherwise (the tracks then say "eid N"): a trace converted
 * where the module is not loaded is no error.
 */
static void load_names(struct ubctl *u, struct ubctl_vec *ents)
{
	if (ents->n || (!u->nl && ubfab_nl_open(&u->nl)))
		return;
	if (ubfab_entity_dump(u->nl, entity_collect, ents))
		ubctl_vec_free(ents);
}

/*
 * Convert the trace @text into the file @out ("-": standard output) and
 * say what it holds on standard error. Exit code.
 */
static int convert(char *text, size_t len, const char *src,
		   const struct ubctl_vec *ents, const char *command,
		   const char *out)
{
	bool std = !strcmp(out, "-");
	FILE *f = std ? stdout : fopen(out, "w");
	struct ubctl_timeline_sum sum;
	int code;

	if (!f)
		return ubctl_error("%s: %s", out, strerror(errno));
	code = ubctl_timeline(text, len, src, ents, command, f, &sum);
	if (!std && ((ferror(f) | fclose(f)) && !code))
		code = ubctl_error("%s: %s", out, strerror(errno));
	if (code) {
		if (!std)
			unlink(out);
		return code;
	}
	fprintf(stderr, "ubctl: %s: %zu entries, %zu link holds on %zu links, %zu flows\n",
		std ? "standard output" : out, sum.ops, sum.links, sum.tracks,
		sum.flows);
	if (sum.lost)
		fprintf(stderr, "ubctl: the trace lost %llu events: its buffer was too small (ubctl trace record -b KB)\n",
			(unsigned long long)sum.lost);
	return UBCTL_EXIT_OK;
}

/**
 * struct trace_opts - the options of record and dump
 * @in: dump: the trace to convert
 * @out: the file to write
 * @buf_kb: record: buffer size per CPU in KiB
 */
struct trace_opts {
	const char *in;
	const char *out;
	unsigned long long buf_kb;
};

/* The options of record and of dump. */
static const struct option record_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "buffer-size", required_argument, NULL, 'b' },
	{ NULL, 0, NULL, 0 },
};

static const struct option dump_options[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "output", required_argument, NULL, 'o' },
	{ NULL, 0, NULL, 0 },
};

/*
 * Parse the options of a trace command: @optstring and @options, those
 * of record or of dump; argv[-1] is the command's name. Returns the
 * number of arguments used, or -1 after a usage error.
 */
static int trace_options(int argc, char **argv, const char *optstring,
			 const struct option *options, struct trace_opts *o)
{
	int opt;

	optind = 0;	/* glibc: start over, on the command's arguments */
	while ((opt = getopt_long(argc + 1, argv - 1, optstring, options,
				  NULL)) != -1) {
		switch (opt) {
		case 'i':
			o->in = optarg;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'b':
			if (!tool_parse_uint(optarg, TRACE_BUF_KB_MAX, &o->buf_kb) ||
			    !o->buf_kb) {
				ubctl_usage_error("-b: not a buffer size in KiB (1..%u): \"%s\"",
						  TRACE_BUF_KB_MAX, optarg);
				return -1;
			}
			break;
		case ':':
			ubctl_usage_error("option '%s' needs an argument",
					  argv[optind - 2]);
			return -1;
		default:
			if (optopt)
				ubctl_usage_error("unknown option '-%c'", optopt);
			else
				ubctl_usage_error("unknown option '%s'",
						  argv[optind - 2]);
			return -1;
		}
	}
	return optind - 1;
}

/* COMMAND and its arguments, in one string, for the document. */
static char *command_line(int argc, char **argv)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	for (i = 0; s && i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

/* COMMAND while it runs, for forward_signal() */
static volatile pid_t record_child;

static void forward_signal(int sig)
{
	if (record_child > 0)
		kill(record_child, sig);
}

/*
 * Run COMMAND and wait for it, with SIGINT and SIGQUIT ignored here (as
 * time(1) does: ^C ends the command, then the trace is written) and
 * SIGTERM and SIGHUP passed on to it (the trace is written then too).
 * Returns its wait status (exit status 127 if it could not be run).
 */
static int run_command(char **argv)
{
	static const int sigs[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP };
	struct sigaction act[ARRAY_SIZE(sigs)], old[ARRAY_SIZE(sigs)];
	int status, err;
	size_t i;
	pid_t pid;

	for (i = 0; i < ARRAY_SIZE(sigs); i++) {
		act[i] = (struct sigaction){
			.sa_handler = i < 2 ? SIG_IGN : forward_signal,
		};
		sigaction(sigs[i], &act[i], &old[i]);
	}
	fflush(NULL);
	pid = fork();
	if (!pid) {
		for (i = 0; i < ARRAY_SIZE(sigs); i++)
			sigaction(sigs[i], &old[i], NULL);
		execvp(argv[0], argv);
		err = errno;
		ubctl_error("%s: %s", argv[0], strerror(err));
		_exit(err == ENOENT ? 127 : 126);
	}
	if (pid < 0) {
		ubctl_error("fork: %s", strerror(errno));
		status = 127 << 8;
	} else {
		record_child = pid;
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		record_child = 0;
	}
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &old[i], NULL);
	return status;
}

/*
 * Say how COMMAND @name ended (its wait status @status); its exit status
 * as a shell gives it: 128 + N if signal N killed it.
 */
static int command_status(const char *name, int status)
{
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "ubctl: %s killed by signal %d (%s)\n", name,
			WTERMSIG(status), strsignal(WTERMSIG(status)));
		return 128 + WTERMSIG(status);
	}
	fprintf(stderr, "ubctl: %s exited %d\n", name, WEXITSTATUS(status));
	return WEXITSTATUS(status);
}

int trace_record(struct ubctl *u, int argc, char **argv)
{
	struct trace_opts o = { .out = TRACE_OUT, .buf_kb = TRACE_BUF_KB };
	struct ubctl_vec ents = { .size = sizeof(struct ubfab_entity_info) };
	char inst[128], path[160], val[32], *text = NULL, *cmd = NULL;
	const char *fs;
	int n, code, status;
	size_t len;

	n = trace_options(argc, argv, "+:o:b:", record_options, &o);
	if (n < 0)
		return UBCTL_EXIT_USAGE;
	argc -= n;
	argv += n;
	if (!argc)
		return ubctl_usage_error("missing COMMAND to run while recording");
	fs = tracefs_dir();
	if (!fs)
		return UBCTL_EXIT_FAIL;
	snprintf(inst, sizeof(inst), "%s/events/ubfab", fs);
	if (access(inst, F_OK))
		return ubctl_error("no ubfab events in %s/events: is ubfab.ko loaded (on a kernel with CONFIG_EVENT_TRACING)?",
				   fs);
	load_names(u, &ents);
	snprintf(inst, sizeof(inst), "%s/instances/ubctl-%d", fs, (int)getpid());
	if (mkdir(inst, 0700))
		return ubctl_error("%s: %s", inst, strerror(errno));
	snprintf(val, sizeof(val), "%llu", o.buf_kb);
	code = tracefs_write(inst, "buffer_size_kb", val) ?:
	       tracefs_write(inst, "events/ubfab/enable", "1") ?:
	       tracefs_write(inst, "tracing_on", "1");
	if (code)
		goto out;
	status = run_command(argv);
	code = tracefs_write(inst, "tracing_on", "0") ?:
	       tracefs_write(inst, "events/ubfab/enable", "0");
	snprintf(path, sizeof(path), "%s/trace", inst);
	if (!code)
		code = read_path(path, &text, &len);
	if (!code) {
		load_names(u, &ents);	/* if COMMAND loaded the module */
		cmd = command_line(argc, argv);
		code = convert(text, len, path, &ents, cmd, o.out);
	}
	/* COMMAND's status, unless the timeline failed */
	status = command_status(argv[0], status);
	code = code ?: status;
out:
	if (rmdir(inst))
		ubctl_error("%s: %s", inst, strerror(errno));
	free(text);
	free(cmd);
	ubctl_vec_free(&ents);
	return code;
}

int trace_dump(struct ubctl *u, int argc, char **argv)
{
	struct trace_opts o = { .out = TRACE_OUT };
	struct ubctl_vec ents = { .size = sizeof(struct ubfab_entity_info) };
	char *text = NULL;
	const char *fs;
	size_t len;
	int n, code;

	n = trace_options(argc, argv, "+:i:o:", dump_options, &o);
	if (n < 0)
		return UBCTL_EXIT_USAGE;
	code = ubctl_no_more_args(argc - n, argv + n);
	if (code)
		return code;
	if (!o.in) {
		fs = tracefs_dir();
		if (!fs)
			return UBCTL_EXIT_FAIL;
		o.in = !strcmp(fs, TRACEFS) ? TRACEFS "/trace" :
					       TRACEFS_DEBUGFS "/trace";
	}
	code = read_path(o.in, &text, &len);
	if (!code) {
		load_names(u, &ents);
		code = convert(text, len, strcmp(o.in, "-") ? o.in :
				"standard input", &ents, NULL, o.out);
	}
	free(text);
	ubctl_vec_free(&ents);
	return code;
}
