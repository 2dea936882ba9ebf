/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libubfab internals shared by the library's source files: the session
 * structure, the request plumbing (nl.c) and the attribute-set decoder
 * (attr.c). Nothing here is exported; libubfab.map keeps these symbols
 * local to the shared object.
 */
#ifndef LIBUBFAB_INTERNAL_H
#define LIBUBFAB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "libubfab.h"

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

/* Room for the longest extended-ack message we keep. */
#define LIBUBFAB_ERRMSG_MAX	256

/* Highest attribute number of any attribute set the library decodes. */
#define LIBUBFAB_MAXATTR	15

struct ubfab_nl {
	struct nl_sock *sk;
	int family;
	char errmsg[LIBUBFAB_ERRMSG_MAX];
};

struct libubfab_attrset;

/**
 * struct libubfab_field - where one attribute of a set lands in a struct
 * @attr: attribute number
 * @offset: offset of the member in the destination struct; its type follows
 *	from the set's policy (NLA_U32: uint32_t, NLA_U64: uint64_t,
 *	NLA_STRING: char[policy maxlen], NLA_NESTED: a struct decoded by @nest)
 * @required: a reply without this attribute is malformed
 * @nest: attribute set of a nested attribute, NULL otherwise
 */
struct libubfab_field {
	uint16_t attr;
	uint16_t offset;
	bool required;
	const struct libubfab_attrset *nest;
};

/**
 * struct libubfab_attrset - an attribute set of the ubfab family
 * @maxattr: highest attribute number (at most LIBUBFAB_MAXATTR)
 * @policy: nla_parse() policy, indexed by attribute number
 * @fields: the attributes copied into the destination struct
 * @nfields: number of @fields
 */
struct libubfab_attrset {
	int maxattr;
	const struct nla_policy *policy;
	const struct libubfab_field *fields;
	size_t nfields;
};

/**
 * libubfab_decode() - copy the attributes of one set into a struct
 * @set: the attribute set
 * @tb: attributes as parsed with @set's policy (maxattr + 1 entries)
 * @out: destination struct; members of absent optional attributes keep
 *	their value
 *
 * Return: 0, or -EPROTO if a required attribute (or one of a nested set)
 * is missing or a nested set is malformed.
 */
int libubfab_decode(const struct libubfab_attrset *set, struct nlattr **tb,
		    void *out);

/**
 * libubfab_decode_nested() - copy the attributes of a nest into a struct
 * @set: the nest's attribute set
 * @nest: the nested attribute
 * @out: destination struct, as for libubfab_decode()
 *
 * Return: 0, or -EPROTO if the nest is malformed or lacks a required
 * attribute.
 */
int libubfab_decode_nested(const struct libubfab_attrset *set,
			   struct nlattr *nest, void *out);

/*
 * Called for each data message of a reply, @hdr, with its attributes
 * parsed by the request's attribute set into @tb (which keeps the last of
 * a repeated attribute; walk @hdr for all of them). Returns 0 to go on;
 * anything else stops the callbacks and becomes the request's result (the
 * rest of the reply is still read and dropped so the session stays
 * usable).
 */
typedef int (*libubfab_reply_fn)(struct nlmsghdr *hdr, struct nlattr **tb,
				 void *arg);

/**
 * libubfab_msg_new() - start a request of the ubfab family
 * @nl: session
 * @cmd: UBFAB_CMD_*
 * @dump: a dump request (NLM_F_DUMP); otherwise a do request, acked
 *
 * Return: a message to add attributes to and pass to libubfab_request(),
 * or NULL when out of memory.
 */
struct nl_msg *libubfab_msg_new(struct ubfab_nl *nl, uint8_t cmd, bool dump);

/**
 * libubfab_request() - send a request and read its whole reply
 * @nl: session
 * @msg: request from libubfab_msg_new(); always freed
 * @set: attribute set of the reply's data messages
 * @fn: called for each data message
 * @arg: passed to @fn
 *
 * When the request fails, records the kernel's extended-ack message in @nl
 * ("" if the failure carried none).
 *
 * Return: 0, the first nonzero value of @fn, -EPROTO for a malformed
 * reply, the kernel's negative errno, or a negative errno of the socket.
 */
int libubfab_request(struct ubfab_nl *nl, struct nl_msg *msg,
		     const struct libubfab_attrset *set,
		     libubfab_reply_fn fn, void *arg);

/**
 * libubfab_recv_notification() - read the next notification of the family
 * @nl: a subscribed session
 * @buf: receives the message (header first); aligned for struct nlmsghdr
 * @size: room in @buf
 *
 * Skips anything else the socket receives (leftovers of requests).
 *
 * Return: 0; -EMSGSIZE if the message did not fit @buf; or the negative
 * errno of recvfrom() (-EAGAIN, -ENOBUFS, -EINTR, ...).
 */
int libubfab_recv_notification(struct ubfab_nl *nl, void *buf, size_t size);

/*
 * The entity calls as exported at version 1.1 (ubfab_entity_get@@UBFAB_1.1
 * and so on; the names of libubfab.h) and at 1.0, where @out is the 1.0
 * struct ubfab_entity_info, which ends before auth_failures (topo.c).
 */
int libubfab_entity_get(struct ubfab_nl *nl, uint32_t eid,
			struct ubfab_entity_info *out);
int libubfab_entity_get_1_0(struct ubfab_nl *nl, uint32_t eid, void *out);
int libubfab_entity_get_by_name(struct ubfab_nl *nl, const char *name,
				struct ubfab_entity_info *out);
int libubfab_entity_get_by_name_1_0(struct ubfab_nl *nl, const char *name,
				    void *out);
int libubfab_entity_dump(struct ubfab_nl *nl, ubfab_entity_cb cb, void *arg);

/*
 * The port calls as exported at version 1.4 (the names of libubfab.h)
 * and at 1.0, where @out is the 1.0 struct ubfab_port_info, which ends
 * before the fault knobs (topo.c).
 */
int libubfab_port_get(struct ubfab_nl *nl, uint32_t eid, uint32_t plane,
		      struct ubfab_port_info *out);
int libubfab_port_get_1_0(struct ubfab_nl *nl, uint32_t eid, uint32_t plane,
			  void *out);
int libubfab_port_dump(struct ubfab_nl *nl, uint32_t eid, ubfab_port_cb cb,
		       void *arg);

/*
 * ubfab_nl_event_read() as exported at version 1.4, with model events
 * and the port's fault knobs, and at 1.2, which skips model events and
 * fills the 1.2 struct ubfab_nl_event, @ev (topo.c).
 */
int libubfab_nl_event_read(struct ubfab_nl *nl, struct ubfab_nl_event *ev);
int libubfab_nl_event_read_1_2(struct ubfab_nl *nl, void *ev);

/**
 * libubfab_event_decode() - decode one notification of the family
 * @hdr: the message
 * @ev: receives the event
 * @model: decode UBFAB_CMD_MODEL_NTF too (version 1.4 and later)
 *
 * Return: 0; -ENOMSG for a notification of a command not decoded (to be
 * skipped); -EPROTO if it is malformed; -ENOMEM.
 */
int libubfab_event_decode(struct nlmsghdr *hdr, struct ubfab_nl_event *ev,
			  bool model);

/**
 * struct libubfab_deadline - the time left of a wait (dev.c)
 * @timeout_ms: the wait's limit: milliseconds, 0 none, -1 forever
 * @left: milliseconds left, as poll(2) takes them
 * @end: CLOCK_MONOTONIC milliseconds when it runs out, if @timeout_ms > 0
 */
struct libubfab_deadline {
	int timeout_ms;
	int left;
	int64_t end;
};

/* Start a wait of @timeout_ms (at least -1). */
void libubfab_deadline_start(struct libubfab_deadline *d, int timeout_ms);

/*
 * Sleep in poll(2) until @fd is readable or @d runs out. Return: 0 when
 * POLLIN came (and @d holds the time left); -ETIMEDOUT; -EIO if poll()
 * reported only an error or hang-up; or a negative errno of poll(), such
 * as -EINTR.
 */
int libubfab_poll_in(int fd, struct libubfab_deadline *d);

/*
 * Read one record of @size bytes from non-blocking @fd (the device's
 * events, a jetty's completion events), waiting up to @timeout_ms (at
 * least -1) while none is there. Return: 0; -ETIMEDOUT; -EPROTO for a
 * short read; or a negative errno of read() or poll().
 */
int libubfab_read_wait(int fd, void *rec, size_t size, int timeout_ms);

/* queue.c: rings the kernel shares, for queues and receive queues */
bool libubfab_ring_fits(const struct ubfab_ring_offsets *r, size_t entry_size,
			uint64_t ring_size);

/* The part of a ring mapping at @offset. */
static inline void *libubfab_at(void *ring, uint32_t offset)
{
	return (char *)ring + offset;
}

#endif /* LIBUBFAB_INTERNAL_H */
