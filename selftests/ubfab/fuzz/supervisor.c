// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's supervisor: it (re)loads the module and reads back what it
 * built, the truth the workers check against; sets up what the run shares
 * (the counters, the board, its directory, each family's part) and forks
 * the workers; watches them for progress (a worker stuck for HANG_SECONDS
 * is reported with its kernel stack); prints the summary; and checks that
 * the module unloads and loads again and that the kernel log has no
 * report.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "family.h"
#include "ubfab_test.h"

/* Seconds without progress after which a worker counts as hung. */
#define HANG_SECONDS	180

/* Every worker's counters, in memory they share; set up before forking. */
static struct fuzz_stats *all_stats = MAP_FAILED;
static unsigned int nr_workers;
/* The run's directory: device nodes, logscan's output. */
static char run_dir[64];

pid_t fuzz_peer_pid(uint64_t draw)
{
	return all_stats[draw % nr_workers].pid;
}

const char *fuzz_run_dir(void)
{
	return run_dir;
}

static int add_entity(const struct ubfab_entity_info *e, void *arg)
{
	struct fuzz_model *m = arg;

	if (e->eid != m->nr_entities)
		return -EPROTO;
	m->entities[m->nr_entities++] = *e;
	return 0;
}

/*
 * The fabric model's table as the fuzzer uses it: parameters with names,
 * each its own, and a value above each maximum (to set out of range).
 */
static bool params_usable(const struct ubfab_model *model)
{
	const struct ubfab_model_param *p = model->params;
	size_t i, j;

	for (i = 0; i < model->nparams; i++) {
		if (!p[i].name[0] || p[i].maximum == UINT64_MAX)
			return false;
		for (j = 0; j < i; j++) {
			if (!strcmp(p[i].name, p[j].name))
				return false;
		}
	}
	return model->nparams > 0;
}

/* Reads what the module was loaded as: the truth the workers check. */
static int model_load(struct fuzz_model *m)
{
	struct ubfab_nl *nl;
	char path[64];
	struct stat st;
	uint32_t eid;
	int ret;

	ret = ubfab_nl_open(&nl);
	if (ret)
		return ret;
	ret = ubfab_fabric_get(nl, &m->fabric);
	if (!ret) {
		m->entities = calloc(m->fabric.npus + m->fabric.cpus,
				     sizeof(*m->entities));
		ret = m->entities ? ubfab_entity_dump(nl, add_entity, m) :
				    -ENOMEM;
	}
	if (!ret)
		ret = ubfab_model_get(nl, &m->params);
	ubfab_nl_close(nl);
	if (ret)
		return ret;
	if (!m->nr_entities || m->nr_entities != m->fabric.npus + m->fabric.cpus)
		return -EPROTO;
	if (!params_usable(m->params))
		return -EPROTO;
	/* Device numbers follow EIDs; eid_of_rdev() relies on it. */
	for (eid = 0; eid < m->nr_entities; eid++) {
		snprintf(path, sizeof(path), "/dev/ubfab/%s",
			 m->entities[eid].name);
		if (stat(path, &st))
			return -errno;
		if (!eid)
			m->devt0 = st.st_rdev;
		if (eid_of_rdev(m, st.st_rdev) != eid)
			return -EPROTO;
	}
	m->family = ubfab_family_id();
	return m->family < 0 ? m->family : 0;
}

static int make_run_dir(void)
{
	strcpy(run_dir, "/tmp/ubfab-fuzz.XXXXXX");
	if (!mkdtemp(run_dir)) {
		run_dir[0] = '\0';
		return -errno;
	}
	return 0;
}

/* Removes the run's directory and whatever the run left in it. */
static void remove_run_dir(void)
{
	DIR *d = opendir(run_dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		if (de->d_name[0] != '.')
			unlinkat(dirfd(d), de->d_name, 0);
	}
	if (d)
		closedir(d);
	rmdir(run_dir);
	run_dir[0] = '\0';
}

/* Starts each family's part of the run: 0, or -errno with none started. */
static int families_start(const struct fuzz_config *cfg,
			  const struct fuzz_model *m)
{
	const struct fuzz_family *f;
	unsigned int i;
	int ret;

	for (i = 0; i < fuzz_nr_families; i++) {
		f = fuzz_families[i];
		ret = f->run_start ? f->run_start(cfg, m) : 0;
		if (ret) {
			fuzz_say(cfg, "# fuzz: set-up of %s: %s", f->name,
				 fuzz_errname(-ret));
			goto end_started;
		}
	}
	return 0;

end_started:
	while (i--) {
		if (fuzz_families[i]->run_end)
			fuzz_families[i]->run_end();
	}
	return ret;
}

/* Once every worker is gone: each family's part of the run ends. */
static void families_end(void)
{
	unsigned int i;

	for (i = 0; i < fuzz_nr_families; i++) {
		if (fuzz_families[i]->run_end)
			fuzz_families[i]->run_end();
	}
}

/*
 * What the run shares, set up before the workers fork: 0, or -errno with
 * nothing left.
 */
static int run_start(const struct fuzz_config *cfg, const struct fuzz_model *m)
{
	int ret;

	ret = board_map();
	if (ret)
		return ret;
	ret = make_run_dir();
	if (ret)
		goto unmap_board;
	ret = families_start(cfg, m);
	if (ret)
		goto remove_dir;
	return 0;

remove_dir:
	remove_run_dir();
unmap_board:
	board_unmap();
	return ret;
}


/* Prints a process's kernel stack, for a worker that stopped moving. */
static void show_stack(const struct fuzz_config *cfg, pid_t pid)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		fuzz_say(cfg, "#   %s", line);
	}
	fclose(f);
}

/*
 * Waits for every worker; one that makes no progress for HANG_SECONDS is
 * reported with the operation it is in, and then all are killed. Returns
 * true when every worker exited cleanly.
 */
static bool watch_workers(const struct fuzz_config *cfg, pid_t *pids)
{
	uint64_t *seen = calloc(cfg->workers, sizeof(*seen));
	time_t *moved = calloc(cfg->workers, sizeof(*moved));
	bool ok = seen && moved;
	unsigned int i, alive = 0;
	char desc[1536];
	int status;
	pid_t pid;

	for (i = 0; i < cfg->workers && ok; i++) {
		moved[i] = time(NULL);
		alive += pids[i] > 0;
	}
	while (alive && ok) {
		pid = waitpid(-1, &status, WNOHANG);
		for (i = 0; pid > 0 && i < cfg->workers && pids[i] != pid; i++)
			;
		if (pid > 0 && i < cfg->workers) {
			pids[i] = 0;
			alive--;
			if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
				continue;
			ok = false;
			if (WIFEXITED(status) && WEXITSTATUS(status) == 1)
				continue;	/* reported its violation */
			fuzz_describe(&all_stats[i].cur, desc, sizeof(desc));
			fuzz_say(cfg, "# FAIL seed %llu worker %u died (status %#x) in op %llu: %s",
				 (unsigned long long)cfg->seed,
				 cfg->first_worker + i, status,
				 (unsigned long long)all_stats[i].cur_index, desc);
			continue;
		}
		usleep(100000);
		for (i = 0; i < cfg->workers; i++) {
			if (pids[i] <= 0)
				continue;
			if (all_stats[i].done != seen[i]) {
				seen[i] = all_stats[i].done;
				moved[i] = time(NULL);
			} else if (time(NULL) - moved[i] > HANG_SECONDS) {
				fuzz_describe(&all_stats[i].cur, desc,
					    sizeof(desc));
				fuzz_say(cfg, "# FAIL seed %llu worker %u hung for %d s in op %llu: %s",
					 (unsigned long long)cfg->seed,
					 cfg->first_worker + i, HANG_SECONDS,
					 (unsigned long long)all_stats[i].cur_index,
					 desc);
				show_stack(cfg, pids[i]);
				ok = false;
			}
		}
	}
	for (i = 0; i < cfg->workers; i++) {
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	}
	while (waitpid(-1, NULL, 0) > 0)
		;
	free(seen);
	free(moved);
	return ok;
}

/*
 * After every worker is gone nothing holds the module: it unloads (after
 * a grace period for descriptors the kernel releases late, such as those
 * in flight in a closed socket) and loads again.
 */
static bool check_unload(const struct fuzz_config *cfg)
{
	uint64_t refcnt = 0;
	int i, ret;

	for (i = 0; i < 100; i++) {
		ret = ubfab_unload();
		if (ret != -EWOULDBLOCK)
			break;
		usleep(100000);
	}
	if (ret) {
		read_u64("/sys/module/ubfab/refcnt", &refcnt);
		fuzz_say(cfg, "# FAIL seed %llu: ubfab.ko does not unload after every worker exited: %s, refcnt %llu (a leaked reference)",
			 (unsigned long long)cfg->seed, fuzz_errname(-ret),
			 (unsigned long long)refcnt);
		return false;
	}
	ret = ubfab_load(cfg->params);
	if (ret) {
		fuzz_say(cfg, "# FAIL seed %llu: ubfab.ko does not load again: %s",
			 (unsigned long long)cfg->seed, fuzz_errname(-ret));
		return false;
	}
	return true;
}

/*
 * Passes the kernel log since kmsg was opened through tools/vm/logscan
 * (/usr/bin/logscan in the test VM): false if it finds a report.
 */
static bool check_kernel_log(const struct fuzz_config *cfg, int kmsg)
{
	char cmd[160], rec[2048], *text, *end;
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	FILE *scan, *out;
	int status;
	ssize_t n;

	snprintf(cmd, sizeof(cmd), "logscan > %s/logscan.out 2>&1", run_dir);
	scan = popen(cmd, "w");
	if (!scan)
		return true;
	for (;;) {
		n = read(kmsg, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		text = strchr(rec, ';');
		end = text ? strchr(text, '\n') : NULL;
		if (end)
			fprintf(scan, "%.*s\n", (int)(end - text - 1), text + 1);
	}
	status = pclose(scan);
	signal(SIGPIPE, old);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		fuzz_say(cfg, "# fuzz: no logscan here: the kernel log is not checked");
		return true;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return true;
	snprintf(cmd, sizeof(cmd), "%s/logscan.out", run_dir);
	out = fopen(cmd, "r");
	while (out && fgets(rec, sizeof(rec), out)) {
		rec[strcspn(rec, "\n")] = '\0';
		fuzz_say(cfg, "# %s", rec);
	}
	if (out)
		fclose(out);
	fuzz_say(cfg, "# FAIL seed %llu: the kernel log has reports (above)",
		 (unsigned long long)cfg->seed);
	return false;
}
int fuzz_run(const struct fuzz_config *cfg)
{
	struct timespec start, end, deadline, *dl = NULL;
	struct fuzz_model m = { 0 };
	pid_t *pids = NULL;
	unsigned int i;
	bool ok = false;
	int ret, kmsg;

	fuzz_say(cfg, "# fuzz: seed %llu, workers %u-%u, %llu operations, %u s, params \"%s\"",
		 (unsigned long long)cfg->seed, cfg->first_worker,
		 cfg->first_worker + cfg->workers - 1,
		 (unsigned long long)cfg->ops, cfg->seconds, cfg->params);
	ret = fuzz_families_init();
	if (ret) {
		fuzz_say(cfg, "# fuzz: the op families do not fit the counters: %s",
			 fuzz_errname(-ret));
		return ret;
	}
	ret = ubfab_reload(cfg->params);
	if (!ret)
		ret = model_load(&m);
	if (ret) {
		fuzz_say(cfg, "# fuzz: cannot load ubfab.ko (%s) and read it back: %s",
			 cfg->params, fuzz_errname(-ret));
		free(m.entities);
		ubfab_model_free(m.params);
		return ret;
	}
	kmsg = kmsg_open();
	nr_workers = cfg->workers;
	pids = calloc(cfg->workers, sizeof(*pids));
	all_stats = mmap(NULL, cfg->workers * sizeof(*all_stats),
			 PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			 -1, 0);
	ret = !pids || all_stats == MAP_FAILED ? -ENOMEM : run_start(cfg, &m);
	if (ret) {
		fuzz_say(cfg, "# fuzz: set-up: %s", fuzz_errname(-ret));
		goto free_run;
	}
	fuzz_say(cfg, "# fuzz: %u entities (%u NPU dies, %u CPUs), %u planes, family %d",
		 m.nr_entities, m.fabric.npus, m.fabric.cpus, m.fabric.planes,
		 m.family);

	clock_gettime(CLOCK_MONOTONIC, &start);
	if (cfg->seconds) {
		deadline = start;
		deadline.tv_sec += cfg->seconds;
		dl = &deadline;
	}
	fflush(NULL);
	for (i = 0; i < cfg->workers; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			worker_main(cfg, &m, &all_stats[i], i,
				    cfg->ops / cfg->workers +
				    (i < cfg->ops % cfg->workers), dl);
		if (pids[i] < 0) {
			fuzz_say(cfg, "# fuzz: fork: %s", fuzz_errname(errno));
			pids[i] = 0;
			ret = -EAGAIN;
		}
	}
	ok = watch_workers(cfg, pids);
	clock_gettime(CLOCK_MONOTONIC, &end);
	families_end();
	fuzz_report_summary(cfg, all_stats, end.tv_sec - start.tv_sec +
				 (end.tv_nsec - start.tv_nsec) / 1e9);
	ok = check_unload(cfg) && ok;
	if (kmsg >= 0)
		ok = check_kernel_log(cfg, kmsg) && ok;
	remove_run_dir();
	board_unmap();
free_run:
	if (all_stats != MAP_FAILED)
		munmap(all_stats, cfg->workers * sizeof(*all_stats));
	all_stats = MAP_FAILED;
	free(pids);
	if (kmsg >= 0)
		close(kmsg);
	free(m.entities);
	ubfab_model_free(m.params);
	if (ret)
		return ret;
	return ok ? 0 : 1;
}
