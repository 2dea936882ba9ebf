// SPDX-License-Identifier: GPL-2.0-only
/*
 * tools/common/json.c - the JSON writer of ubctl and ubbench. Strings,
 * member names included, are escaped per RFC 8259: quote, backslash and
 * control characters are escaped, valid UTF-8 passes through, and each
 * byte that does not start a valid UTF-8 sequence becomes U+FFFD; numbers
 * JSON cannot hold become null; so the output is always valid JSON.
 *
 * The styles keep the white space of each tool's output: ubctl's compact
 * and pretty documents, and ubbench's spaced lines that it breaks itself.
 * ubbench used to print its strings unescaped, having replaced quotes,
 * backslashes and control characters in the CPU model by '; its strings
 * (names, units, the kernel release, the date, the CPU model) hold none
 * of those, so escaping them changes none of its output.
 */
#include <inttypes.h>
#include <math.h>

#include "json.h"

void json_init(struct json *j, FILE *f, enum json_style style)
{
	*j = (struct json){ .f = f, .style = style, .first = true };
}

void json_break(struct json *j)
{
	j->brk = j->style == JSON_SPACED;
}

/* Whether what comes next starts a line: always when pretty. */
static bool json_breaks(struct json *j)
{
	bool brk = j->style == JSON_PRETTY || j->brk;

	j->brk = false;
	return brk;
}

/* The bit of struct json's @broken for the container at depth @depth. */
static uint64_t json_level(unsigned int depth)
{
	return depth && depth <= JSON_INDENT_MAX ? 1ULL << (depth - 1) : 0;
}

/* Start a line, indented for the open containers a line broke in. */
static void json_newline(struct json *j)
{
	fprintf(j->f, "\n%*s", 2 * __builtin_popcountll(j->broken), "");
}

/* Length of the valid UTF-8 sequence at @p, 0 if there is none. */
static unsigned int utf8_len(const unsigned char *p)
{
	static const uint32_t min_cp[] = { 0, 0, 0x80, 0x800, 0x10000 };
	unsigned int n, i;
	uint32_t cp;

	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* overlong forms, UTF-16 surrogates, beyond Unicode */
	if (cp < min_cp[n] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

static void json_put_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned int n;

	putc('"', f);
	while (*p) {
		n = utf8_len(p);
		if (n > 1) {
			fwrite(p, 1, n, f);
			p += n;
			continue;
		}
		if (!n)
			fputs("\\ufffd", f);
		else if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p == '\r')
			fputs("\\r", f);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			putc(*p, f);
		p++;
	}
	putc('"', f);
}

/* Start a value: the comma, the line break or space and the member name. */
static void json_value(struct json *j, const char *key)
{
	bool brk = json_breaks(j);

	if (j->depth) {
		if (!j->first)
			putc(',', j->f);
		if (brk) {
			j->broken |= json_level(j->depth);
			json_newline(j);
		} else if (!j->first && j->style == JSON_SPACED) {
			putc(' ', j->f);
		}
	}
	j->first = false;
	if (key) {
		json_put_string(j->f, key);
		fputs(j->style == JSON_COMPACT ? ":" : ": ", j->f);
	}
}

static void json_begin(struct json *j, const char *key, char open)
{
	json_value(j, key);
	putc(open, j->f);
	j->depth++;
	j->first = true;
}

static void json_end(struct json *j, char close)
{
	j->broken &= ~json_level(j->depth);
	j->depth--;
	if (json_breaks(j) && !j->first)
		json_newline(j);
	putc(close, j->f);
	j->first = false;
	if (!j->depth)
		putc('\n', j->f);
}

void json_object_begin(struct json *j, const char *key)
{
	json_begin(j, key, '{');
}

void json_object_end(struct json *j)
{
	json_end(j, '}');
}

void json_array_begin(struct json *j, const char *key)
{
	json_begin(j, key, '[');
}

void json_array_end(struct json *j)
{
	json_end(j, ']');
}

void json_string(struct json *j, const char *key, const char *s)
{
	json_value(j, key);
	json_put_string(j->f, s);
}

void json_uint(struct json *j, const char *key, uint64_t v)
{
	json_value(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

/* A double in @fmt with @decimals, or null if JSON has no number for it. */
static void json_put_double(struct json *j, const char *key, const char *fmt,
			    int decimals, double v)
{
	json_value(j, key);
	if (isfinite(v))
		fprintf(j->f, fmt, decimals, v);
	else
		fputs("null", j->f);
}

void json_double(struct json *j, const char *key, double v)
{
	json_put_double(j, key, "%.*g", 6, v);
}

void json_fixed(struct json *j, const char *key, double v, int decimals)
{
	json_put_double(j, key, "%.*f", decimals, v);
}

void json_bool(struct json *j, const char *key, bool v)
{
	json_value(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	json_value(j, key);
	fputs("null", j->f);
}
