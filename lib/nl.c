// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubfab session and request plumbing: the generic netlink socket, the
 * family lookup, reading the reply of one request (data messages, acks,
 * errors, the end of a dump) together with the kernel's extended ack, and
 * the events group: joining it and reading its notifications.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "internal.h"

/* libnl's NLE_* codes as errno values (the inverse of nl_syserr2nlerr). */
static const int nle_errnos[] = {
	[NLE_INTR]		= EINTR,
	[NLE_BAD_SOCK]		= EBADF,
	[NLE_AGAIN]		= EAGAIN,
	[NLE_NOMEM]		= ENOMEM,
	[NLE_EXIST]		= EEXIST,
	[NLE_INVAL]		= EINVAL,
	[NLE_RANGE]		= ERANGE,
	[NLE_MSGSIZE]		= EMSGSIZE,
	[NLE_OPNOTSUPP]		= EOPNOTSUPP,
	[NLE_AF_NOSUPPORT]	= EAFNOSUPPORT,
	[NLE_OBJ_NOTFOUND]	= ENOENT,
	[NLE_NOADDR]		= EADDRNOTAVAIL,
	[NLE_BUSY]		= EBUSY,
	[NLE_PROTO_MISMATCH]	= EPROTONOSUPPORT,
	[NLE_NOACCESS]		= EACCES,
	[NLE_PERM]		= EPERM,
	[NLE_NODEV]		= ENODEV,
};

/* Turn a negative libnl error into a negative errno (EIO if unknown). */
static int nle_to_errno(int nlerr)
{
	unsigned int code = -nlerr;

	if (code < ARRAY_SIZE(nle_errnos) && nle_errnos[code])
		return -nle_errnos[code];
	return -EIO;
}

/* Socket options every session needs; each is a boolean turned on. */
static const int nl_sockopts[] = {
	NETLINK_EXT_ACK,	/* error messages with the kernel's reason */
	NETLINK_CAP_ACK,	/* errors without a copy of the request */
};

int ubfab_nl_open(struct ubfab_nl **nlp)
{
	const int one = 1;
	struct ubfab_nl *nl;
	size_t i;
	int err;

	if (!nlp)
		return -EINVAL;
	nl = calloc(1, sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		err = -ENOMEM;
		goto err_free;
	}
	err = genl_connect(nl->sk);
	if (err < 0) {
		err = nle_to_errno(err);
		goto err_sock_free;
	}
	for (i = 0; i < ARRAY_SIZE(nl_sockopts); i++) {
		if (setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK,
			       nl_sockopts[i], &one, sizeof(one)) < 0) {
			err = -errno;
			goto err_sock_free;
		}
	}
	/* A missing family comes back as NLE_OBJ_NOTFOUND, i.e. -ENOENT. */
	nl->family = genl_ctrl_resolve(nl->sk, UBFAB_GENL_NAME);
	if (nl->family < 0) {
		err = nle_to_errno(nl->family);
		goto err_sock_free;
	}
	/* libubfab_msg_new() asks for acks itself: none for dumps. */
	nl_socket_disable_auto_ack(nl->sk);
	*nlp = nl;
	return 0;

err_sock_free:
	nl_socket_free(nl->sk);
err_free:
	free(nl);
	return err;
}

void ubfab_nl_close(struct ubfab_nl *nl)
{
	if (!nl)
		return;
	nl_socket_free(nl->sk);
	free(nl);
}

const char *ubfab_nl_errmsg(const struct ubfab_nl *nl)
{
	return nl ? nl->errmsg : "";
}

struct nl_msg *libubfab_msg_new(struct ubfab_nl *nl, uint8_t cmd, bool dump)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg && !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
				dump ? NLM_F_DUMP : NLM_F_ACK, cmd,
				UBFAB_GENL_VERSION)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return msg;
}

/* State of one request while its reply is read. */
struct reply {
	const struct libubfab_attrset *set;
	libubfab_reply_fn fn;
	void *arg;
	int family;
	uint32_t seq;
	uint32_t port;
	int result;		/* first nonzero value of fn, or -EPROTO */
	int kernel_err;		/* errno of the NLMSG_ERROR or NLMSG_DONE */
	bool done;		/* the NLMSG_ERROR or NLMSG_DONE was read */
	char errmsg[LIBUBFAB_ERRMSG_MAX];
};

/* Keep the message of the extended-ack attributes at @offset, if any. */
static void reply_save_extack(struct reply *r, const struct nlmsghdr *hdr,
			      size_t offset)
{
	static const struct nla_policy policy[NLMSGERR_ATTR_MAX + 1] = {
		[NLMSGERR_ATTR_MSG] = { .type = NLA_STRING, .minlen = 1 },
	};
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t len = nlmsg_datalen(hdr);

	if (!(hdr->nlmsg_flags & NLM_F_ACK_TLVS) || offset > len)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)nlmsg_data(hdr) + offset),
		      len - offset, policy) < 0 || !tb[NLMSGERR_ATTR_MSG])
		return;
	snprintf(r->errmsg, sizeof(r->errmsg), "%s",
		 nla_get_string(tb[NLMSGERR_ATTR_MSG]));
}

/*
 * An NLMSG_ERROR (an ack when its error is 0) or an NLMSG_DONE ends the
 * reply. Both start with the errno as an int; an NLMSG_ERROR follows it
 * with the request's header (and, without NLM_F_CAPPED, its payload).
 * The extended-ack attributes come after that, aligned.
 */
static void reply_end(struct reply *r, const struct nlmsghdr *hdr)
{
	const struct nlmsgerr *e = nlmsg_data(hdr);
	size_t len = nlmsg_datalen(hdr);
	size_t tlvs = sizeof(e->error);

	r->done = true;
	if (hdr->nlmsg_type == NLMSG_ERROR) {
		if (len < sizeof(*e)) {
			r->kernel_err = -EPROTO;
			return;
		}
		tlvs += hdr->nlmsg_flags & NLM_F_CAPPED ?
			sizeof(e->msg) : e->msg.nlmsg_len;
	} else if (len < sizeof(e->error)) {
		r->kernel_err = -EPROTO;
		return;
	}
	if (e->error > 0) {
		r->kernel_err = -EPROTO;
		return;
	}
	r->kernel_err = e->error;
	if (e->error)
		reply_save_extack(r, hdr, NLMSG_ALIGN(tlvs));
}

/* A data message: parse it with the request's set and hand it to fn. */
static void reply_data(struct reply *r, struct nlmsghdr *hdr)
{
	struct nlattr *tb[LIBUBFAB_MAXATTR + 1];

	if (r->result)
		return;		/* stopped: read the rest and drop it */
	if (hdr->nlmsg_flags & NLM_F_DUMP_INTR)
		r->result = -EAGAIN;
	else if (genlmsg_parse(hdr, 0, tb, r->set->maxattr,
			       r->set->policy) < 0)
		r->result = -EPROTO;
	else
		r->result = r->fn(hdr, tb, r->arg);
}

static void reply_msg(struct reply *r, struct nlmsghdr *hdr)
{
	if (hdr->nlmsg_seq != r->seq || hdr->nlmsg_pid != r->port)
		return;		/* left over from an earlier request */
	if (hdr->nlmsg_type == NLMSG_ERROR || hdr->nlmsg_type == NLMSG_DONE)
		reply_end(r, hdr);
	else if (hdr->nlmsg_type == r->family)
		reply_data(r, hdr);
	else if (!r->result)
		r->result = -EPROTO;
}

/* Read one datagram of the reply. */
static int reply_read(struct reply *r, struct nl_sock *sk)
{
	struct sockaddr_nl peer;
	unsigned char *buf;
	struct nlmsghdr *hdr;
	int n;

	n = nl_recv(sk, &peer, &buf, NULL);
	if (n < 0)
		return nle_to_errno(n);
	if (!n)
		return -EIO;	/* a blocking netlink socket saw no data */
	/* only our peer (the kernel, port 0) answers requests */
	hdr = (struct nlmsghdr *)buf;
	for (; peer.nl_pid == nl_socket_get_peer_port(sk) && !r->done &&
	     nlmsg_ok(hdr, n); hdr = nlmsg_next(hdr, &n))
		reply_msg(r, hdr);
	free(buf);
	return 0;
}

int libubfab_request(struct ubfab_nl *nl, struct nl_msg *msg,
		     const struct libubfab_attrset *set,
		     libubfab_reply_fn fn, void *arg)
{
	struct reply r = {
		.set = set,
		.fn = fn,
		.arg = arg,
		.family = nl->family,
		.port = nl_socket_get_local_port(nl->sk),
	};
	int err;

	err = nl_send_auto(nl->sk, msg);
	r.seq = nlmsg_hdr(msg)->nlmsg_seq;
	nlmsg_free(msg);
	err = err < 0 ? nle_to_errno(err) : 0;
	while (!err && !r.done)
		err = reply_read(&r, nl->sk);
	if (!err)
		err = r.result ? r.result : r.kernel_err;
	if (err)
		snprintf(nl->errmsg, sizeof(nl->errmsg), "%s", r.errmsg);
	return err;
}

int ubfab_nl_subscribe(struct ubfab_nl *nl)
{
	int grp, err;

	if (!nl)
		return -EINVAL;
	grp = genl_ctrl_resolve_grp(nl->sk, UBFAB_GENL_NAME,
				    UBFAB_MCGRP_EVENTS);
	if (grp == -NLE_OBJ_NOTFOUND)
		return -EOPNOTSUPP;
	if (grp < 0)
		return nle_to_errno(grp);
	err = nl_socket_add_membership(nl->sk, grp);
	return err < 0 ? nle_to_errno(err) : 0;
}

int ubfab_nl_fd(const struct ubfab_nl *nl)
{
	return nl ? nl_socket_get_fd(nl->sk) : -EINVAL;
}

int libubfab_recv_notification(struct ubfab_nl *nl, void *buf, size_t size)
{
	struct nlmsghdr *hdr = buf;
	struct sockaddr_nl peer;
	socklen_t peer_len;
	ssize_t n;

	for (;;) {
		peer_len = sizeof(peer);
		n = recvfrom(nl_socket_get_fd(nl->sk), buf, size, MSG_TRUNC,
			     (struct sockaddr *)&peer, &peer_len);
		if (n < 0)
			return -errno;
		if ((size_t)n > size)
			return -EMSGSIZE;
		/* the kernel sends each notification alone, from port 0 */
		if (peer.nl_pid || !nlmsg_ok(hdr, n))
			continue;
		if (hdr->nlmsg_type == nl->family && !hdr->nlmsg_seq)
			return 0;
	}
}
