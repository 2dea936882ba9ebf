// SPDX-License-Identifier: GPL-2.0
/*
 * The ubfab fuzzer's entry points, one program with two faces:
 *
 *   fuzz_test            kselftest-harness tests: a run with a fixed budget
 *                        (FUZZ_TEST_OPS operations, FUZZ_TEST_WORKERS
 *                        workers, seed FUZZ_TEST_SEED or $UBFAB_FUZZ_SEED)
 *                        and a check that a worker replays alone
 *   fuzz [options]       one run as the options say, reported in KTAP
 *   fuzz_test --options  the same
 *
 * Both print "seed N" first. The engine and the op families are the other
 * files of this folder (family.h says which is which);
 * Documentation/fuzzing.rst tells how to use it.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fuzz.h"
#include "ubfab_test.h"

/* The fixed budget of the selftest: 90 s on the debug kernel under TCG. */
#define FUZZ_TEST_OPS		8000
#define FUZZ_TEST_WORKERS	4
#define FUZZ_TEST_SEED		1

/* $UBFAB_FUZZ_SEED, else FUZZ_TEST_SEED. */
static uint64_t test_seed(void)
{
	const char *env = getenv("UBFAB_FUZZ_SEED");

	return env && *env ? strtoull(env, NULL, 0) : FUZZ_TEST_SEED;
}

FIXTURE(fuzz) {
	int unused;
};

FIXTURE_SETUP(fuzz)
{
}

FIXTURE_TEARDOWN(fuzz)
{
	ubfab_unload();
}

/* The fixed budget: every invariant holds, the module unloads after. */
TEST_F_TIMEOUT(fuzz, fixed_budget, 900)
{
	struct fuzz_config cfg = {
		.seed = test_seed(), .workers = FUZZ_TEST_WORKERS,
		.ops = FUZZ_TEST_OPS, .params = "", .out = stdout,
	};

	ASSERT_EQ(0, fuzz_run(&cfg));
}

/* The operations of one worker, traced by a run into f. */
static char *worker_trace(FILE *f, const char *prefix)
{
	char line[4096], *all = NULL;
	size_t len = 0, n;

	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		/* The operations, not their outcomes ("-> ..."). */
		if (strncmp(line, prefix, strlen(prefix)) ||
		    strstr(line, ": -> "))
			continue;
		n = strlen(line);
		all = realloc(all, len + n + 1);
		if (!all)
			return NULL;
		memcpy(all + len, line, n + 1);
		len += n;
	}
	return all;
}

/*
 * Worker 2 of a run replayed alone ("--worker 2 --workers 1") runs the
 * same operations each time: what makes a failing seed reproducible.
 */
TEST_F_TIMEOUT(fuzz, replay_is_deterministic, 300)
{
	struct fuzz_config cfg = {
		.seed = test_seed(), .workers = 1, .first_worker = 2,
		.ops = 300, .params = "", .trace = true,
	};
	char *trace[2];
	FILE *f[2];
	size_t i;

	for (i = 0; i < 2; i++) {
		f[i] = tmpfile();
		ASSERT_NE(NULL, f[i]);
		cfg.out = f[i];
		ASSERT_EQ(0, fuzz_run(&cfg));
		trace[i] = worker_trace(f[i], "# worker 2 op ");
		ASSERT_NE(NULL, trace[i]);
		fclose(f[i]);
	}
	/* The first line that differs, if any. */
	for (i = 0; trace[0][i] && trace[0][i] == trace[1][i]; i++)
		;
	while (i > 0 && trace[0][i - 1] != '\n')
		i--;
	EXPECT_EQ(0, strcmp(trace[0] + i, trace[1] + i))
		TH_LOG("first difference:\n%.200s\n%.200s", trace[0] + i,
		       trace[1] + i);
	free(trace[0]);
	free(trace[1]);
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [options]\n"
		"Fuzzes ubfab.ko from several processes; reports in KTAP.\n"
		"  --seed N      seed (default: from the clock; printed first)\n"
		"  --ops N       operations in all, shared among the workers\n"
		"  --seconds S   stop after S seconds (with --ops: whichever first)\n"
		"                default when neither is given: --ops %d\n"
		"  --workers N   worker processes (default %d)\n"
		"  --worker K    index of the first worker: --worker K --workers 1\n"
		"                replays worker K of a run alone\n"
		"  --params P    module parameters to load ubfab.ko with\n"
		"                (default \"\": the small profile)\n"
		"  --trace       print every operation before it runs\n"
		"  --help        this help\n"
		"Exit status: 0 every invariant held, 1 a violation (seed, worker,\n"
		"operation index and operation printed), 2 usage or set-up error.\n"
		"Without options, as fuzz_test: the kselftest tests (-h: theirs).\n",
		prog, FUZZ_TEST_OPS, FUZZ_TEST_WORKERS);
}

/* Parses a number option whole: false if it is not one. */
static bool number(const char *arg, uint64_t max, uint64_t *val)
{
	char *end;

	errno = 0;
	*val = strtoull(arg, &end, 0);
	return !errno && end != arg && !*end && *val <= max;
}

static int fuzz_main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "ops", required_argument, NULL, 'o' },
		{ "seconds", required_argument, NULL, 't' },
		{ "workers", required_argument, NULL, 'w' },
		{ "worker", required_argument, NULL, 'k' },
		{ "params", required_argument, NULL, 'p' },
		{ "trace", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct fuzz_config cfg = {
		.workers = FUZZ_TEST_WORKERS, .params = "", .out = stdout,
	};
	struct timespec now;
	int opt, idx = 0, ret;
	uint64_t v;

	clock_gettime(CLOCK_REALTIME, &now);
	cfg.seed = (now.tv_sec * 1000003ULL ^ now.tv_nsec ^ getpid()) %
		   1000000000;
	while ((opt = getopt_long(argc, argv, "", options, &idx)) != -1) {
		switch (opt) {
		case 's':
			if (!number(optarg, UINT64_MAX, &cfg.seed))
				goto bad;
			break;
		case 'o':
			if (!number(optarg, UINT64_MAX, &cfg.ops))
				goto bad;
			break;
		case 't':
			if (!number(optarg, 1U << 30, &v))
				goto bad;
			cfg.seconds = v;
			break;
		case 'w':
			if (!number(optarg, 64, &v) || !v)
				goto bad;
			cfg.workers = v;
			break;
		case 'k':
			if (!number(optarg, 1U << 20, &v))
				goto bad;
			cfg.first_worker = v;
			break;
		case 'p':
			cfg.params = optarg;
			break;
		case 'T':
			cfg.trace = true;
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument %s\n", argv[0],
			argv[optind]);
		return 2;
	}
	if (!cfg.ops && !cfg.seconds)
		cfg.ops = FUZZ_TEST_OPS;

	printf("seed %llu\n", (unsigned long long)cfg.seed);
	ksft_print_header();
	ksft_set_plan(1);
	ret = fuzz_run(&cfg);
	if (ret < 0) {
		ksft_test_result_error("fuzz seed %llu: set-up failed\n",
				       (unsigned long long)cfg.seed);
		ksft_print_cnts();
		return 2;
	}
	if (ret)
		ksft_test_result_fail("fuzz seed %llu\n",
				      (unsigned long long)cfg.seed);
	else
		ksft_test_result_pass("fuzz seed %llu\n",
				      (unsigned long long)cfg.seed);
	ksft_print_cnts();
	return ret ? 1 : 0;

bad:
	fprintf(stderr, "%s: bad value for --%s: %s\n", argv[0],
		options[idx].name, optarg);
	usage(stderr, argv[0]);
	return 2;
}

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/');

	name = name ? name + 1 : argv[0];
	if (!strcmp(name, "fuzz") || (argc > 1 && !strncmp(argv[1], "--", 2)))
		return fuzz_main(argc, argv);
	printf("seed %llu\n", (unsigned long long)test_seed());
	return test_harness_run(argc, argv);
}
