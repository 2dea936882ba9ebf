# SPDX-License-Identifier: GPL-2.0-only
# tools/common/common.mk: what ubctl's and ubbench's makefiles share: the
# directory of the code both tools link and its objects, which each
# makefile builds with its own flags into its own object directory.

TOOLS_COMMON_DIR := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
TOOLS_COMMON_OBJS := json.o match.o num.o
