// SPDX-License-Identifier: GPL-2.0-only
/*
 * tools/common/match.c - how ubctl and ubbench take a word of their
 * command line: the name it spells, or the one name it begins, as
 * iproute2 takes "ip a" for "ip address".
 */
#include <stdio.h>
#include <string.h>

#include "match.h"

/**
 * tool_match() - which of @names the word @arg means
 * @arg: the word
 * @names: the names it may mean
 * @n: how many
 * @candidates: out: when ambiguous, the names @arg begins, ", " between
 *	them (cut short at @size)
 * @size: bytes at @candidates; 0 when not wanted
 *
 * Return: the index of the name @arg spells, or else of the only one it
 * begins; TOOL_MATCH_UNKNOWN when it begins none (or is empty),
 * TOOL_MATCH_AMBIGUOUS when it begins several.
 */
int tool_match(const char *arg, const char *const *names, size_t n,
	       char *candidates, size_t size)
{
	size_t len = strlen(arg), used = 0, i;
	int found = TOOL_MATCH_UNKNOWN, matches = 0;

	if (size)
		candidates[0] = '\0';
	for (i = 0; i < n; i++) {
		if (!strcmp(arg, names[i]))
			return i;
		if (!len || strncmp(arg, names[i], len))
			continue;
		found = i;
		if (used < size)
			used += snprintf(candidates + used, size - used, "%s%s",
					 matches ? ", " : "", names[i]);
		matches++;
	}
	return matches > 1 ? TOOL_MATCH_AMBIGUOUS : found;
}
