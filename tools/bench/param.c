// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubbench: the module parameter "model" (/sys/module/ubfab/parameters/model,
 * Documentation/model.rst), which turns the fabric model on and off at run
 * time, for `ubbench queue cost`. Owns taking it (its value, the file open
 * for writing), switching it, and putting it back to the value found: when
 * the caller is done, and also when a signal ends ubbench before that (the
 * handlers installed while it is taken write the value back, then let the
 * signal take its default course).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "ubbench.h"

/* The signals whose default action ends the process, but SIGKILL and SIGSTOP. */
static const int fatal_signals[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGABRT, SIGBUS, SIGFPE, SIGSEGV,
	SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ,
};

/* While taken: the file, open read-write, and the value found in it. */
static int param_fd = -1;
static char param_was;				/* 'Y' or 'N' */
static struct sigaction old_actions[ARRAY_SIZE(fatal_signals)];

/* Writes @value ('Y' or 'N'); async-signal-safe. 0 or -errno. */
static int param_write(char value)
{
	return pwrite(param_fd, &value, 1, 0) == 1 ? 0 : -errno;
}

/* Puts the value back, then dies of @sig as if it had no handler. */
static void param_signal(int sig)
{
	int saved = errno;

	param_write(param_was);
	errno = saved;
	/* SA_RESETHAND: the default action is back; it acts on return. */
	raise(sig);
}

/*
 * Takes the parameter: reads its value, keeps the file open for writing
 * and installs the handlers that put the value back. 0; -ENOENT when the
 * module has no such parameter; -EACCES, -EPERM or -EROFS when ubbench may
 * not write it (not root); another -errno (printed).
 */
int model_param_take(bool *was_on)
{
	struct sigaction sa = {
		.sa_handler = param_signal,
		.sa_flags = SA_RESETHAND,
	};
	char buf[8];
	unsigned int i;
	ssize_t n;
	int err;

	param_fd = open(MODEL_PARAM, O_RDWR | O_CLOEXEC);
	if (param_fd < 0) {
		err = -errno;
		if (err != -ENOENT && err != -EACCES && err != -EPERM &&
		    err != -EROFS)
			fail("opening " MODEL_PARAM, err);
		return err;
	}
	n = pread(param_fd, buf, sizeof(buf) - 1, 0);
	if (n < 0) {
		err = -errno;
		fail("reading " MODEL_PARAM, err);
		goto out;
	}
	buf[n] = '\0';
	if (strcmp(buf, "Y\n") && strcmp(buf, "N\n")) {
		fprintf(stderr, "ubbench: %s holds neither Y nor N: %.*s\n",
			MODEL_PARAM, (int)strcspn(buf, "\n"), buf);
		err = -EINVAL;
		goto out;
	}
	param_was = buf[0];
	*was_on = param_was == 'Y';
	sigfillset(&sa.sa_mask);
	/* What is ignored stays so (a write to a closed pipe: EPIPE). */
	for (i = 0; i < ARRAY_SIZE(fatal_signals); i++) {
		sigaction(fatal_signals[i], NULL, &old_actions[i]);
		if (old_actions[i].sa_handler != SIG_IGN)
			sigaction(fatal_signals[i], &sa, NULL);
	}
	return 0;
out:
	close(param_fd);
	param_fd = -1;
	return err;
}

/* Turns the model on or off. 0 or -errno (printed). */
int model_param_set(bool on)
{
	int err = param_write(on ? 'Y' : 'N');

	if (err)
		fail("writing " MODEL_PARAM, err);
	return err;
}

/*
 * Puts back the value model_param_take() found, then the signal handlers
 * there were, and closes the file. 0 or -errno (printed).
 */
int model_param_restore(void)
{
	unsigned int i;
	int err;

	err = param_write(param_was);
	if (err)
		fprintf(stderr, "ubbench: putting %s back to %c: %s\n",
			MODEL_PARAM, param_was, strerror(-err));
	for (i = 0; i < ARRAY_SIZE(fatal_signals); i++)
		sigaction(fatal_signals[i], &old_actions[i], NULL);
	close(param_fd);
	param_fd = -1;
	return err;
}
