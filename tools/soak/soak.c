// SPDX-License-Identifier: GPL-2.0-only
/*
 * tools/soak/soak.c - the soak run's supervisor (`make soak`, in the test
 * VM with ubfab.ko loaded, profile=cm384): forks the workers (worker.c),
 * the fault process (fault.c) and the latency probe (probe.c), respawns
 * every worker the fault process kills, samples kernel memory every
 * SOAK_MEM_S seconds (mem.c), and at the end stops them all and hands the
 * counters, the samples and the growth of the fabric's port counters to
 * report.c, whose verdict is the exit status.
 *
 * Usage: soak [-t SECONDS] [-w WORKERS] [-s SEED] [-W WARMUP_S] [-j FILE]
 * Exit status: 0 every check passed; 1 a check failed; 2 usage or setup
 * error.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "soak.h"

#define SOAK_MEM_S	10
/* How long the workers get to stop before they are killed. */
#define SOAK_STOP_S	60

uint64_t soak_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void soak_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int port_sum(const struct ubfab_port_info *p, void *arg)
{
	struct ubfab_stats *sum = arg;

	sum->tx_bytes += p->stats.tx_bytes;
	sum->rx_bytes += p->stats.rx_bytes;
	sum->tx_ops += p->stats.tx_ops;
	sum->rx_ops += p->stats.rx_ops;
	sum->errors += p->stats.errors;
	return 0;
}

static int fabric_bytes(struct ubfab_nl *nl, struct ubfab_stats *sum)
{
	memset(sum, 0, sizeof(*sum));
	return ubfab_port_dump(nl, UBFAB_EID_ANY, port_sum, sum);
}

/* Roles of the children, by index: workers, then the probe, then faults. */
static pid_t *child;
static unsigned int nchild;

static pid_t spawn(struct soak_shared *sh, unsigned int i,
		   const struct ubfab_fabric_info *fab)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (i < sh->workers)
			_exit(soak_worker(sh, i, fab));
		if (i == sh->workers)
			_exit(soak_probe(sh, fab));
		_exit(soak_fault(sh));
	}
	child[i] = pid;
	if (i <= sh->workers) {
		sh->slot[i].pid = pid;
		sh->slot[i].spawns++;
	}
	return pid;
}

/*
 * A child ended: count it; a worker goes again unless the run stops or
 * it cannot set up. The bytes a killed worker had in flight may or may
 * not have crossed the fabric: they move to its lost_bytes.
 */
static void reaped(struct soak_shared *sh, pid_t pid, int status,
		   const struct ubfab_fabric_info *fab)
{
	struct soak_slot *s;
	uint64_t unchecked;
	unsigned int i;

	for (i = 0; i < nchild && child[i] != pid; i++)
		;
	if (i == nchild)
		return;
	child[i] = 0;
	if (i > sh->workers)
		return;
	s = &sh->slot[i];
	s->pid = 0;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) {
		s->killed++;
		s->lost_bytes += s->inflight_bytes;
		s->inflight_bytes = 0;
		/* a check the kill cut short: one at most */
		unchecked = s->ok_data_bytes - s->verified_bytes -
			    s->unverified_bytes - s->corrupt_bytes;
		if (unchecked > SOAK_MAX_CHECK)
			s->hangs++;
		else
			s->unverified_bytes += unchecked;
	} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		s->setup_failures += !s->setup_failures && !s->hangs;
		if (!s->err[0])
			snprintf(s->err, sizeof(s->err), "exit status 0x%x",
				 status);
	}
	if (!sh->stop && i < sh->workers && s->setup_failures < 5)
		spawn(sh, i, fab);
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: soak [-t SECONDS] [-w WORKERS] [-s SEED] [-W WARMUP_S] [-j FILE]\n"
"\n"
"Soaks ubfab.ko (profile=cm384): WORKERS processes (default 64) run a\n"
"random mix of every op on doorbell and polling queues, window stores and\n"
"loads and export/import/revoke cycles, checking every payload, while a\n"
"fault process flaps ports and planes, resets entities and kills workers,\n"
"for SECONDS (default 180). Kernel memory is sampled every %d s; its trend\n"
"after WARMUP_S (default half the run, at most 300) must be flat,\n"
"and the probe's latency must not drift. Prints the summary, writes it\n"
"as JSON to FILE (-j). The seed (default from the clock) is printed.\n"
"Exit status: 0 all checks passed, 1 a check failed, 2 usage or setup.\n",
		SOAK_MEM_S);
}

int main(int argc, char **argv)
{
	struct soak_cfg cfg = { .seconds = 180, .workers = 64 };
	struct ubfab_stats before, after;
	struct ubfab_fabric_info fab;
	struct soak_report_in in = { .cfg = &cfg };
	struct soak_shared *sh;
	struct soak_mem *mem;
	struct ubfab_nl *nl;
	struct utsname uts;
	unsigned int i, nmem = 0, maxmem, warmup = 0;
	uint64_t next_mem, end, t;
	size_t size;
	int opt, err, status;
	pid_t pid;

	cfg.seed = soak_now_ns() ^ getpid();
	while ((opt = getopt(argc, argv, "t:w:s:W:j:h")) != -1) {
		switch (opt) {
		case 't': cfg.seconds = strtoul(optarg, NULL, 0); break;
		case 'w': cfg.workers = strtoul(optarg, NULL, 0); break;
		case 's': cfg.seed = strtoull(optarg, NULL, 0); break;
		case 'W': warmup = strtoul(optarg, NULL, 0); break;
		case 'j': cfg.json = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc || !cfg.seconds || !cfg.workers ||
	    cfg.seconds > 60 * SOAK_MAX_MINUTES) {
		usage(stderr);
		return 2;
	}
	/*
	 * Half the run: on the debug kernel, KASAN's quarantine of freed
	 * objects (1/32 of RAM) grows Slab until it is full, about 100 s
	 * into the load in a VM of 1 GiB.
	 */
	cfg.warmup_s = warmup ? warmup : cfg.seconds / 2 > 300 ? 300 :
		       cfg.seconds / 2;
	err = ubfab_nl_open(&nl) ?: ubfab_fabric_get(nl, &fab);
	if (err) {
		fprintf(stderr, "soak: ubfab: %s\n", strerror(-err));
		return 2;
	}
	size = sizeof(*sh) + (cfg.workers + 1) * sizeof(struct soak_slot);
	sh = mmap(NULL, size, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	nchild = cfg.workers + 2;
	child = calloc(nchild, sizeof(*child));
	maxmem = cfg.seconds / SOAK_MEM_S + 2;
	mem = calloc(maxmem, sizeof(*mem));
	if (sh == MAP_FAILED || !child || !mem) {
		perror("soak");
		return 2;
	}
	sh->seed = cfg.seed;
	sh->workers = cfg.workers;
	sh->planes = fab.planes;
	uname(&uts);
	printf("soak: profile %s, %u nodes, %u NPU dies, %u CPUs, %u planes; "
	       "%u workers for %u s (warm-up %u s), seed %llu, kernel %s\n",
	       fab.profile, fab.nodes, fab.npus, fab.cpus, fab.planes,
	       cfg.workers, cfg.seconds, cfg.warmup_s,
	       (unsigned long long)cfg.seed, uts.release);
	err = fabric_bytes(nl, &before);
	if (err) {
		fprintf(stderr, "soak: port dump: %s\n", strerror(-err));
		return 2;
	}
	sh->start_ns = soak_now_ns();
	soak_mem_sample(&mem[nmem++], 0);
	for (i = 0; i < nchild; i++)
		if (spawn(sh, i, &fab) < 0) {
			perror("soak: fork");
			sh->stop = 1;
			break;
		}
	end = sh->start_ns + cfg.seconds * 1000000000ULL;
	next_mem = sh->start_ns + SOAK_MEM_S * 1000000000ULL;
	while (!sh->stop && soak_now_ns() < end) {
		soak_sleep_ms(100);
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
			reaped(sh, pid, status, &fab);
		t = soak_now_ns();
		if (t >= next_mem && nmem < maxmem) {
			soak_mem_sample(&mem[nmem],
					(t - sh->start_ns) / 1000000000ULL);
			nmem++;
			while (next_mem <= t)	/* no catching up */
				next_mem += SOAK_MEM_S * 1000000000ULL;
		}
	}
	sh->stop = 1;
	for (t = soak_now_ns(); soak_now_ns() - t < SOAK_STOP_S * 1000000000ULL;) {
		pid = waitpid(-1, &status, WNOHANG);
		if (pid > 0)
			reaped(sh, pid, status, &fab);
		else if (pid < 0)
			break;
		else
			soak_sleep_ms(50);
	}
	for (i = 0; i < nchild; i++)
		if (child[i]) {
			fprintf(stderr, "soak: child %d did not stop: killed\n",
				child[i]);
			kill(child[i], SIGKILL);
			if (waitpid(child[i], &status, 0) > 0)
				reaped(sh, child[i], status, &fab);
		}
	err = fabric_bytes(nl, &after);
	ubfab_nl_close(nl);
	if (err) {
		fprintf(stderr, "soak: port dump: %s\n", strerror(-err));
		return 2;
	}
	in.fabric.tx_bytes = after.tx_bytes - before.tx_bytes;
	in.fabric.rx_bytes = after.rx_bytes - before.rx_bytes;
	in.fabric.tx_ops = after.tx_ops - before.tx_ops;
	in.fabric.rx_ops = after.rx_ops - before.rx_ops;
	in.fabric.errors = after.errors - before.errors;
	in.sh = sh;
	in.mem = mem;
	in.nmem = nmem;
	in.elapsed_s = (soak_now_ns() - sh->start_ns) / 1000000000ULL;
	in.kernel = uts.release;
	return soak_report(&in, stdout);
}
