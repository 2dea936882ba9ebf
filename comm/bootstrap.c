// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubshmem's bootstrap: the rank's side of the rendezvous over ubrun's
 * Unix socket (UBRUN_SOCK), an all-gather of small parts per round
 * (bootstrap.h has the protocol). ubshmem_init() exchanges the heaps'
 * handles and tokens over it and meets the other ranks there.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "bootstrap.h"
#include "internal.h"

int shm_boot_connect(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		/* ubrun may have closed it: an error, not SIGPIPE */
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPROTO;
		p += n;
		len -= n;
	}
	return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)	/* ubrun closed: a rank broke the job */
			return n < 0 ? -errno : -EPROTO;
		p += n;
		len -= n;
	}
	return 0;
}

/*
 * One round: send @len bytes of @part as @rank's, receive every rank's
 * into @all (@n * @len bytes, rank order). Return: 0; -EPROTO if ubrun
 * closed the socket or answered something else; or a negative errno.
 */
int shm_boot_allgather(int sock, int rank, int n, const void *part,
		       uint32_t len, void *all)
{
	struct ubrun_msg m = { UBRUN_MAGIC, rank, len };
	int err;

	if (len > UBRUN_PART_MAX)
		return -EMSGSIZE;
	err = write_all(sock, &m, sizeof(m));
	if (!err && len)
		err = write_all(sock, part, len);
	if (!err)
		err = read_all(sock, &m, sizeof(m));
	if (err)
		return err;
	if (m.magic != UBRUN_MAGIC || m.rank != (uint32_t)n || m.len != len)
		return -EPROTO;
	return len ? read_all(sock, all, (size_t)n * len) : 0;
}
