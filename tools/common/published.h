/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tools/common/published.h - the published CloudMatrix384 figures the
 * fabric model is held against (../shared/reference/cloudmatrix384.md,
 * from arXiv 2506.12708 v2): per die, one way, 512-byte messages; latency
 * in ns (the paper gives microseconds to one decimal), bandwidth in GB/s.
 * ubbench model (tools/bench/model.c) and the demo's scenario
 * (tools/vm/demo_scenario.c) print them beside the modeled ones.
 */
#ifndef UBFAB_TOOLS_PUBLISHED_H
#define UBFAB_TOOLS_PUBLISHED_H

enum model_target { TARGET_NPU, TARGET_CPU, NR_TARGETS };
enum model_op { MODEL_READ, MODEL_WRITE, NR_MODEL_OPS };
enum model_node { NODE_SAME, NODE_OTHER, NR_NODES };
enum model_figure { FIG_LATENCY, FIG_BANDWIDTH, NR_MODEL_FIGS };

/* published[figure][target][op][node], from an NPU die */
static const unsigned int published[NR_MODEL_FIGS][NR_TARGETS][NR_MODEL_OPS]
				  [NR_NODES] = {
	[FIG_LATENCY] = {
		[TARGET_NPU] = { { 1200, 1900 }, { 1300, 2100 } },
		[TARGET_CPU] = { { 1000, 1700 }, { 1100, 1900 } },
	},
	[FIG_BANDWIDTH] = {
		[TARGET_NPU] = { { 167, 164 }, { 137, 135 } },
		[TARGET_CPU] = { { 151, 147 }, { 110, 107 } },
	},
};

#endif /* UBFAB_TOOLS_PUBLISHED_H */
