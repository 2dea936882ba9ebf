/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ubshmem_ep.h - MoE expert-parallel dispatch and combine over libubshmem
 *
 * The protocol of the CloudMatrix384 serving stack: every PE sends its
 * tokens (INT8 with FP32 scales) straight into pre-allocated receive
 * buffers in the memory of the PEs whose experts its top-k routing
 * names, then adds a per-peer flag carrying the token count; receivers
 * wait on the flags. After the experts ran, each output (BF16) goes back
 * into the token's home PE with an atomic add per token on a counter
 * there, and the home makes the weighted sum. Two sets of buffers, used
 * step after step in turn, so that a step can follow a step.
 * Documentation/shmem.rst "MoE dispatch and combine" gives the protocol
 * step by step, the buffers' layout and sizes. libubshmem 1.2
 * (UBSHMEM_1.2) over every PE; 1.3 (UBSHMEM_1.3) over a team
 * (ubshmem_ep_create_team()), whose PEs are numbered by their index in
 * it: expert e is on the team's index e / experts_per_pe.
 */
#ifndef UBSHMEM_EP_H
#define UBSHMEM_EP_H

#include <stdint.h>

#include "ubshmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Scales: one FP32 per group of this many hidden elements. */
#define UBSHMEM_EP_GROUP	128
/* The most experts a token may go to. */
#define UBSHMEM_EP_MAX_TOPK	16
/* A dispatched token's record is padded to a multiple of this. */
#define UBSHMEM_EP_ALIGN	512

/**
 * struct ubshmem_ep_attr - the shape of a dispatch/combine context
 * @max_tokens: tokens a PE dispatches in one step, at most (e.g. 128)
 * @hidden: elements of a token (e.g. 7168), a multiple of
 *	UBSHMEM_EP_GROUP, at most 32768 (an output of hidden BF16 values is
 *	one memory-semantics entry, at most 64 KiB)
 * @top_k: experts each token goes to, 1 .. UBSHMEM_EP_MAX_TOPK
 * @experts_per_pe: experts each PE holds; expert e is on the PE of
 *	index e / @experts_per_pe in the context's team
 * @capacity: tokens a PE takes from one peer in one step; 0 for
 *	@max_tokens, the worst case (every token of the peer)
 */
struct ubshmem_ep_attr {
	unsigned int max_tokens;
	unsigned int hidden;
	unsigned int top_k;
	unsigned int experts_per_pe;
	unsigned int capacity;
};

/**
 * struct ubshmem_ep_token - the header of a token received by dispatch
 * @src_pe: its home PE's index in the context's team (for the world,
 *	its PE number)
 * @src_token: its index among the home's tokens of the step
 * @hidden: the elements of its payload
 * @top_k: its experts
 * @expert: its top-k expert ids (of the team: expert e is on index
 *	e / experts_per_pe), the home's order; those of this PE are the
 *	ones ubshmem_ep_expert_out() counts, in this order
 * @pad: zero
 *
 * The record's first 128 bytes; the INT8 payload (hidden bytes) follows,
 * then hidden / UBSHMEM_EP_GROUP FP32 scales, then padding to a multiple
 * of UBSHMEM_EP_ALIGN: 7,680 bytes (7.5 KB) at hidden 7,168.
 */
struct ubshmem_ep_token {
	uint32_t src_pe;
	uint32_t src_token;
	uint32_t hidden;
	uint32_t top_k;
	int32_t expert[UBSHMEM_EP_MAX_TOPK];
	uint8_t pad[48];
};

struct ubshmem_ep;

/**
 * ubshmem_ep_create_team() - a dispatch/combine context over a team:
 *	collective over the world
 * @team: the team this PE does EP in, which it is in; NULL: this PE alone
 * @attr: the shape, the same in every PE of the job
 * @ep: out: the context
 *
 * Every PE of the job calls it, as ubshmem_malloc() (which it calls): each
 * with its own team, e.g. its node's, or one of the teams a split made, so
 * that each team has a context over it; the dispatches and combines are
 * then collective over the context's team only, and contexts over
 * disjoint teams run at once without seeing each other's (every flag and
 * counter is in the context's buffers, written only by its team's PEs).
 * The buffers are allocated for the largest team (the PEs tell each other
 * their team's size in a round of the bootstrap), so every PE has each at
 * the same offset. The context keeps the team's PEs: the team may be destroyed.
 *
 * Return: 0; -EINVAL for a bad @attr (then in every PE) or a PE not in
 * @team (the others then wait, as in a collective); -ENOMEM when the
 * heap has no room; -EIO.
 */
int ubshmem_ep_create_team(const struct ubshmem_team *team,
			   const struct ubshmem_ep_attr *attr,
			   struct ubshmem_ep **ep);

/* ubshmem_ep_create() - ubshmem_ep_create_team() over the world. */
int ubshmem_ep_create(const struct ubshmem_ep_attr *attr,
		      struct ubshmem_ep **ep);

/*
 * ubshmem_ep_destroy() - free the context's buffers: collective over the
 * world, as ubshmem_ep_create_team().
 */
void ubshmem_ep_destroy(struct ubshmem_ep *ep);

/*
 * The UBSHMEM_HEAP_SIZE a job of @n_pes PEs needs for a context of
 * @attr over the world: its buffers and the part of the heap the library
 * keeps; 0 if @attr is bad. For contexts over teams of at most m PEs in
 * a job of n, ubshmem_ep_heap_size(@attr, m) plus the signal words of the
 * n - m PEs more (8 bytes each), rounded up to a page.
 */
uint64_t ubshmem_ep_heap_size(const struct ubshmem_ep_attr *attr, int n_pes);

/**
 * ubshmem_ep_dispatch() - send this step's tokens to their experts' PEs
 *	and receive the tokens for this PE's experts: collective over the
 *	context's team
 * @ep: the context
 * @ntokens: this PE's tokens, 0 .. max_tokens
 * @x: their INT8 payload, @ntokens x hidden
 * @scales: their FP32 scales, @ntokens x hidden / UBSHMEM_EP_GROUP
 * @experts: their top-k expert ids, @ntokens x top_k, each below
 *	the team's PEs x experts_per_pe, distinct within a token
 *
 * A token goes once to each PE holding one or more of its experts. Ends
 * once this PE has every peer's flag for the step: the received tokens
 * are then ubshmem_ep_recv_count() and ubshmem_ep_recv_token().
 *
 * Return: 0; -EINVAL for a bad argument (checked before anything is
 * sent; every PE should then stop); -ENOSPC when more tokens went from
 * this PE to a peer, or came to this PE from a peer, than the capacity:
 * those were not sent (the sender) or are not received (the receiver),
 * and both ends return -ENOSPC; the step may still be combined, without
 * the experts' outputs for those tokens; -EIO.
 */
int ubshmem_ep_dispatch(struct ubshmem_ep *ep, unsigned int ntokens,
			const int8_t *x, const float *scales,
			const int32_t *experts);

/* Tokens this PE received in the last dispatch. */
unsigned int ubshmem_ep_recv_count(const struct ubshmem_ep *ep);

/*
 * Received token @i (0 .. ubshmem_ep_recv_count() - 1, those of the
 * team's index 0 first, then of index 1, ..., each PE's in its order),
 * in the receive buffer; NULL if out of range. Valid until the next
 * dispatch but one.
 */
const struct ubshmem_ep_token *
ubshmem_ep_recv_token(const struct ubshmem_ep *ep, unsigned int i);

/* The INT8 payload and the FP32 scales of a received token. */
const int8_t *ubshmem_ep_token_data(const struct ubshmem_ep_token *tok);
const float *ubshmem_ep_token_scales(const struct ubshmem_ep_token *tok);

/*
 * Where the output (hidden BF16 values in uint16_t) of the @j-th expert
 * of received token @i that is on this PE (in the token's top-k order)
 * goes before ubshmem_ep_combine(); NULL if out of range.
 */
uint16_t *ubshmem_ep_expert_out(struct ubshmem_ep *ep, unsigned int i,
				unsigned int j);

/**
 * ubshmem_ep_combine() - send every expert output home and make the
 *	weighted sums: collective over the context's team
 * @ep: the context, once after each ubshmem_ep_dispatch()
 * @weights: the routing weights of this PE's tokens, ntokens x top_k
 * @out: out: ntokens x hidden BF16 (uint16_t):
 *	out[t] = bf16(sum over k = 0 .. top_k - 1 of weights[t][k] x y[t][k]),
 *	made in FP32 in that order of k, rounded to nearest even once
 *
 * Return: 0; -EINVAL (also for a step already combined, or none
 * dispatched); -EIO.
 */
int ubshmem_ep_combine(struct ubshmem_ep *ep, const float *weights,
		       uint16_t *out);

/*
 * Modeled nanoseconds of the last dispatch and of the last combine on
 * this PE: from the call's start to its end on ubshmem_model_ns().
 */
uint64_t ubshmem_ep_dispatch_ns(const struct ubshmem_ep *ep);
uint64_t ubshmem_ep_combine_ns(const struct ubshmem_ep *ep);

#ifdef __cplusplus
}
#endif

#endif /* UBSHMEM_EP_H */
