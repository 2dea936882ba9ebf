#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""tools/ynl/nlgen.py - the ubfab netlink family from its one source.

Owns what is made of Documentation/netlink/ubfab.yaml, the family's spec:
writes kmod/netlink_gen.h (the kernel's request policies, operations,
multicast groups and family) and lib/policy_gen.h (the library's reply
policies), and checks the netlink block of include/uapi/linux/ubfab.h
against what the kernel's own ynl-gen-c.py --mode uapi makes of the spec;
ynl-gen-c.py validates the spec against the kernel's genetlink-c schema
on the way.
"""

import argparse
import difflib
import importlib.util
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SPEC = 'Documentation/netlink/ubfab.yaml'
UAPI = 'include/uapi/linux/ubfab.h'
KERNEL_OUT = 'kmod/netlink_gen.h'
LIB_OUT = 'lib/policy_gen.h'

USAGE_EPILOG = f"""\
Without --check, rewrites the generated files where they differ from what
the spec gives. Either way, compares the netlink block of the uAPI header,
which is kept by hand, with what the kernel's ynl-gen-c.py --mode uapi
makes of the spec (validating it), comments and blank space aside.

Exit status: 0 when all agree; 1 on any difference, or when the spec is
invalid or has what this script cannot render; 2 when ynl-gen-c.py or a
Python module it needs is missing.

Environment:
  UBFAB_CACHE  tools/deps.sh's cache (default ~/.cache/ubfab), whose ynl/
               holds the kernel source's ynl-gen-c.py and genetlink schemas
"""

# The Debian packages of the modules this script and ynl-gen-c.py import.
PACKAGES = {'yaml': 'python3-yaml', 'jsonschema': 'python3-jsonschema'}

SCALARS = ('u8', 'u16', 'u32', 'u64', 's8', 's16', 's32', 's64')


class SpecError(Exception):
    """Something in the spec this generator cannot render."""


def c_upper(name):
    return name.upper().replace('-', '_')


def c_lower(name):
    return name.lower().replace('-', '_')


def columns(text):
    """The column a line ends at, tabs being 8 wide."""
    return len(text.expandtabs(8))


def wrap(head, items, tail, width=80):
    """head, the items joined by ", ", then tail, in lines of at most
    width columns where possible; continuation lines start under the
    first item."""
    indent = columns(head)
    pad = '\t' * (indent // 8) + ' ' * (indent % 8)
    lines = [head + items[0]]
    for item in items[1:]:
        if columns(lines[-1] + ', ' + item) + len(tail) <= width:
            lines[-1] += ', ' + item
        else:
            lines[-1] += ','
            lines.append(pad + item)
    lines[-1] += tail
    return lines


GENERATED = f"""\
 * Generated from {SPEC} by
 * tools/ynl/nlgen.py: do not edit. Run the script after a change of the
 * spec; `make check` fails while this file differs from what it gives."""


class Family:
    """The parts of the spec the generated headers are made of."""

    def __init__(self, path):
        import yaml  # here, so that main() can name its missing package

        with open(path, encoding='utf-8') as f:
            self.spec = yaml.safe_load(f)
        self.name = self.spec['name']
        self.consts = {d['name']: c_upper(f"{self.name}-{d['name']}")
                       for d in self.spec.get('definitions', [])
                       if d['type'] == 'const'}
        self.sets = {s['name']: s for s in self.spec['attribute-sets']}
        prefix = self.spec['operations'].get('name-prefix',
                                             f'{self.name}-cmd-')
        self.ops = [op for op in self.spec['operations']['list']
                    if 'do' in op or 'dump' in op]
        for op in self.ops:
            op['enum'] = c_upper(prefix + op['name'])
        self.mcgrps = self.spec.get('mcast-groups', {'list': []})['list']

    def set_prefix(self, set_name):
        return self.sets[set_name].get('name-prefix',
                                       f'{self.name}-a-{set_name}-')

    def attr_enum(self, set_name, attr):
        return c_upper(self.set_prefix(set_name) + attr['name'])

    def set_max(self, set_name):
        return c_upper(self.sets[set_name].get(
            'attr-max-name', self.set_prefix(set_name) + 'max'))

    def max_len(self, attr):
        """A string's max-len as a C expression and the same plus one
        (the room with the NUL), or None when it has none."""
        checks = dict(attr.get('checks', {}))
        limit = checks.pop('max-len', None)
        if checks:
            raise SpecError(f"{attr['name']}: checks {sorted(checks)} "
                            'are not rendered')
        if limit is None:
            return None
        if isinstance(limit, int):
            return str(limit), str(limit + 1)
        m = re.fullmatch(r'([\w-]+)( - 1)?', limit)
        if not m or m.group(1) not in self.consts:
            raise SpecError(f"{attr['name']}: max-len {limit!r} names no "
                            'const')
        const = self.consts[m.group(1)]
        if m.group(2):
            return f'{const} - 1', const
        return const, f'{const} + 1'

    def request_attrs(self, op):
        """The attributes op accepts, in the set's order: those of its do
        and its dump requests together (6.1's genl_ops have one policy per
        command)."""
        names = set()
        for mode in ('do', 'dump'):
            names.update(op.get(mode, {}).get('request', {})
                         .get('attributes', []))
        return [a for a in self.sets[op['attribute-set']]['attributes']
                if a['name'] in names]

    def handlers(self, op):
        """The (mode, name, arguments) of op's handlers."""
        args = {'do': 'struct genl_info *info',
                'dump': 'struct netlink_callback *cb'}
        return [(mode, c_lower(f"{self.name}-nl-{op['name']}-{mode}it"),
                 ['struct sk_buff *skb', args[mode]])
                for mode in ('do', 'dump') if mode in op]


def kernel_policy(family, attr):
    """The kernel's nla_policy initializer of a request attribute."""
    if attr['type'] in SCALARS:
        if attr.get('checks'):
            raise SpecError(f"{attr['name']}: checks of a {attr['type']} "
                            'are not rendered')
        return [f".type = NLA_{c_upper(attr['type'])}"]
    if attr['type'] == 'string':
        limit = family.max_len(attr)
        return ['.type = NLA_NUL_STRING'] + \
            ([f'.len = {limit[0]}'] if limit else [])
    if attr['type'] == 'nest':
        nested = attr['nested-attributes']
        return ['.type = NLA_NESTED',
                f'.nested_policy = {nest_policy_name(family, nested)}',
                f'.len = {family.set_max(nested)}']
    raise SpecError(f"{attr['name']}: a {attr['type']} in a request is not "
                    'rendered')


def nest_policy_name(family, set_name):
    return f'{family.name}_{c_lower(set_name)}_nl_policy'


def nested_sets(family):
    """The attribute sets nested in some request, in spec order."""
    names = set()
    for op in family.ops:
        names.update(a['nested-attributes'] for a in family.request_attrs(op)
                     if a['type'] == 'nest')
    return [s for s in family.spec['attribute-sets'] if s['name'] in names]


KERNEL_HEAD = """\
/* SPDX-License-Identifier: GPL-2.0 */
/*
""" + GENERATED + """
 *
 * The generic netlink family as the kernel registers it: each command's
 * request policy (the attributes of its do and dump requests together:
 * 6.1 has no split ops), the operations, the multicast groups and the
 * family. Included by netlink.c only, which defines the handlers declared
 * here.
 */
#ifndef _UBFAB_NETLINK_GEN_H
#define _UBFAB_NETLINK_GEN_H

#include <linux/module.h>
#include <net/genetlink.h>

#include <linux/ubfab.h>
"""


def render_kernel(family):
    fam = family.name
    out = [KERNEL_HEAD]
    for op in family.ops:
        for _, name, args in family.handlers(op):
            out += wrap(f'static int {name}(', args, ');')
    for aset in nested_sets(family):
        # a nested set's policy: all its attributes but the pads
        attrs = [a for a in aset['attributes'] if a['type'] != 'pad']
        out += ['', f"/* {c_upper(family.set_prefix(aset['name']))[:-1]} */",
                f"static const struct nla_policy "
                f"{nest_policy_name(family, aset['name'])}"
                f"[{family.set_max(aset['name'])} + 1] = {{"]
        for attr in attrs:
            out += wrap(f"\t[{family.attr_enum(aset['name'], attr)}] = {{ ",
                        kernel_policy(family, attr), ' },')
        out.append('};')
    for op in family.ops:
        attrs = family.request_attrs(op)
        if not attrs:
            continue
        aset = op['attribute-set']
        top = family.attr_enum(aset, attrs[-1])
        out += ['', f"/* {op['enum']} */",
                f"static const struct nla_policy {fam}_"
                f"{c_lower(op['name'])}_nl_policy[{top} + 1] = {{"]
        for attr in attrs:
            out += wrap(f'\t[{family.attr_enum(aset, attr)}] = {{ ',
                        kernel_policy(family, attr), ' },')
        out.append('};')
    out += ['', f'static const struct genl_ops {fam}_nl_ops[] = {{']
    for op in family.ops:
        out += ['\t{', f"\t\t.cmd = {op['enum']},"]
        for mode, name, _ in family.handlers(op):
            out.append(f'\t\t.{mode}it = {name},')
        attrs = family.request_attrs(op)
        if attrs:
            out += [f"\t\t.policy = {fam}_{c_lower(op['name'])}_nl_policy,",
                    '\t\t.maxattr = '
                    f"{family.attr_enum(op['attribute-set'], attrs[-1])},"]
        if op.get('flags'):
            flags = ' | '.join(c_upper(f'genl-{f}') for f in op['flags'])
            out.append(f'\t\t.flags = {flags},')
        out.append('\t},')
    out.append('};')
    if family.mcgrps:
        out += ['', '/* Multicast group ids: offsets in the family\'s. */',
                'enum {']
        out += [f"\t{c_upper(f'{fam}-nlgrp-' + g['name'])}," for g in
                family.mcgrps]
        out += ['};', '',
                'static const struct genl_multicast_group '
                f'{fam}_nl_mcgrps[] = {{']
        out += [f"\t[{c_upper(f'{fam}-nlgrp-' + g['name'])}] = {{ .name = "
                f"{c_upper(f'{fam}-mcgrp-' + g['name'])} }}," for g in
                family.mcgrps]
        out.append('};')
    name = family.spec.get('c-family-name', f'{fam}-family-name')
    version = family.spec.get('c-version-name', f'{fam}-family-version')
    out += ['', f'static struct genl_family {fam}_nl_family = {{',
            f'\t.name = {c_upper(name)},', f'\t.version = {c_upper(version)},',
            '\t.module = THIS_MODULE,', '\t.netnsok = true,',
            '\t.parallel_ops = true,', f'\t.ops = {fam}_nl_ops,',
            f'\t.n_ops = ARRAY_SIZE({fam}_nl_ops),']
    if family.mcgrps:
        out += [f'\t.mcgrps = {fam}_nl_mcgrps,',
                f'\t.n_mcgrps = ARRAY_SIZE({fam}_nl_mcgrps),']
    out += ['};', '', '#endif /* _UBFAB_NETLINK_GEN_H */']
    return '\n'.join(out) + '\n'


LIB_HEAD = """\
/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
""" + GENERATED + """
 *
 * libubfab's policies of the family's attribute sets, for the replies and
 * notifications it parses: every attribute but the pads. Included by
 * topo.c only.
 */
#ifndef LIBUBFAB_POLICY_GEN_H
#define LIBUBFAB_POLICY_GEN_H

#include <linux/ubfab.h>
#include <netlink/attr.h>

/*
 * What libubfab accepts of each type: a u32 or u64 of exactly its size, a
 * string with its NUL within max bytes, a nest (parsed with its own set).
 */
#define LIBUBFAB_POLICY_U32	{ .type = NLA_U32, .minlen = 4, .maxlen = 4 }
#define LIBUBFAB_POLICY_U64	{ .type = NLA_U64, .minlen = 8, .maxlen = 8 }
#define LIBUBFAB_POLICY_STRING(max) \\
	{ .type = NLA_STRING, .minlen = 1, .maxlen = (max) }
#define LIBUBFAB_POLICY_NEST	{ .type = NLA_NESTED }"""


def lib_policy(family, attr):
    """The policy of a reply attribute in libubfab, for the types its
    decoder (lib/attr.c) knows."""
    if attr['type'] in ('u32', 'u64', 'nest'):
        return f"LIBUBFAB_POLICY_{c_upper(attr['type'])}"
    if attr['type'] == 'string':
        limit = family.max_len(attr)
        if not limit:
            raise SpecError(f"{attr['name']}: libubfab copies strings into "
                            'fixed buffers: give it a max-len')
        return f'LIBUBFAB_POLICY_STRING({limit[1]})'
    raise SpecError(f"{attr['name']}: libubfab decodes no {attr['type']}")


def render_lib(family):
    out = [LIB_HEAD]
    entries = {set_name: [(f'\t[{family.attr_enum(set_name, attr)}]',
                           lib_policy(family, attr))
                          for attr in aset['attributes']
                          if attr['type'] != 'pad']
               for set_name, aset in family.sets.items()}
    # the values in one column, as far right as the longest name needs
    col = max(columns(name) for set_entries in entries.values()
              for name, _ in set_entries) // 8 * 8 + 8
    for set_name, set_entries in entries.items():
        out += ['', f'/* Attribute set "{set_name}" */',
                f'static const struct nla_policy {c_lower(set_name)}_policy'
                f'[{family.set_max(set_name)} + 1] = {{']
        for name, policy in set_entries:
            tabs = (col - columns(name) + 7) // 8
            out.append(name + '\t' * tabs + f'= {policy},')
        out.append('};')
    out += ['', '#endif /* LIBUBFAB_POLICY_GEN_H */']
    return '\n'.join(out) + '\n'


def tokens(text):
    """C tokens of text, comments dropped."""
    text = re.sub(r'/\*.*?\*/|//[^\n]*', ' ', text, flags=re.S)
    return re.findall(r'"(?:\\.|[^"\\])*"|\w+|\S', text)


def pretty(toks):
    """Tokens as lines, one declaration or member a line, for a diff."""
    lines, line = [], []
    for tok in toks:
        if tok == '#' and line:
            lines.append(' '.join(line))
            line = []
        line.append(tok)
        if tok in (';', '{', ','):
            lines.append(' '.join(line))
            line = []
    if line:
        lines.append(' '.join(line))
    return lines


def find(seq, sub, start=0):
    for i in range(start, len(seq) - len(sub) + 1):
        if seq[i:i + len(sub)] == sub:
            return i
    return -1


def ynl_uapi(ynl, proto):
    """ynl-gen-c.py's uAPI header of the spec, which it validates against
    the schema. It takes the spec from a kernel tree, with the schemas two
    levels up and a MAINTAINERS file at the top: a temporary one of
    links."""
    with tempfile.TemporaryDirectory() as tree:
        specs = os.path.join(tree, 'Documentation/netlink/specs')
        os.makedirs(specs)
        open(os.path.join(tree, 'MAINTAINERS'), 'w').close()
        os.symlink(os.path.join(ynl, f'Documentation/netlink/{proto}.yaml'),
                   os.path.join(tree, f'Documentation/netlink/{proto}.yaml'))
        spec = os.path.join(specs, os.path.basename(SPEC))
        os.symlink(os.path.join(ROOT, SPEC), spec)
        gen = subprocess.run([sys.executable,
                              os.path.join(ynl, 'tools/net/ynl/ynl-gen-c.py'),
                              '--mode', 'uapi', '--header', '--spec', spec],
                             capture_output=True, text=True, check=False)
    if gen.returncode:
        sys.stderr.write(gen.stdout + gen.stderr)
        raise SpecError(f'ynl-gen-c.py failed on {SPEC}')
    return gen.stdout


def check_uapi(ynl, family):
    """Whether the uAPI header holds ynl-gen-c.py's declarations, in its
    order, from the first to the last. Prints a diff if not."""
    gen = tokens(ynl_uapi(ynl, family.spec.get('protocol', 'genetlink')))
    # the generated header's include guard
    guard = gen[2]
    if gen[:6] != ['#', 'ifndef', guard, '#', 'define', guard] or \
       gen[-2:] != ['#', 'endif']:
        raise SpecError('ynl-gen-c.py wrote no include guard')
    gen = gen[6:-2]
    with open(os.path.join(ROOT, UAPI), encoding='utf-8') as f:
        hdr = tokens(f.read())
    # The block: from the first declaration to the last one's end.
    last = max(i for i, tok in enumerate(gen) if tok in ('#', 'enum'))
    start = find(hdr, gen[:3])
    end = find(hdr, gen[last:last + 3], max(start, 0))
    if start < 0 or end < 0:
        missing = ' '.join(gen[:3] if start < 0 else gen[last:last + 3])
        print(f'nlgen: {UAPI} has no "{missing}"')
        return False
    block = hdr[start:end + len(gen) - last]
    if block == gen:
        return True
    print(f'nlgen: {UAPI} differs from the spec (ynl-gen-c.py --mode uapi):')
    sys.stdout.writelines(line + '\n' for line in difflib.unified_diff(
        pretty(block), pretty(gen), UAPI, f'{SPEC} (uapi)', lineterm=''))
    return False


def update(path, text, check):
    """Whether path holds text; rewrites it unless check. Prints a diff
    in check mode."""
    full = os.path.join(ROOT, path)
    try:
        with open(full, encoding='utf-8') as f:
            old = f.read()
    except FileNotFoundError:
        old = ''
    if old == text:
        return True
    if check:
        print(f'nlgen: {path} differs from what the spec gives:')
        sys.stdout.writelines(difflib.unified_diff(
            old.splitlines(True), text.splitlines(True), path,
            f'{SPEC} (nlgen)'))
        return False
    with open(full, 'w', encoding='utf-8') as f:
        f.write(text)
    print(f'nlgen: wrote {path}')
    return True


def main():
    parser = argparse.ArgumentParser(
        description=f'Writes {KERNEL_OUT} and {LIB_OUT} from {SPEC}\n'
        f'and checks the netlink block of {UAPI} against it.',
        epilog=USAGE_EPILOG, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument('--check', action='store_true',
                        help='write nothing: exit 1 if a generated file '
                        'is not what the spec gives')
    args = parser.parse_args()

    missing = [pkg for mod, pkg in PACKAGES.items()
               if not importlib.util.find_spec(mod)]
    if missing:
        print(f"nlgen: install the Debian packages {' '.join(missing)} "
              '(or run `make deps`)', file=sys.stderr)
        return 2
    cache = os.environ.get('UBFAB_CACHE',
                           os.path.expanduser('~/.cache/ubfab'))
    ynl = os.path.join(cache, 'ynl')
    if not os.path.exists(os.path.join(ynl, 'tools/net/ynl/ynl-gen-c.py')):
        print(f'nlgen: no ynl-gen-c.py in {ynl}: run `make deps`',
              file=sys.stderr)
        return 2
    try:
        family = Family(os.path.join(ROOT, SPEC))
        same = [update(KERNEL_OUT, render_kernel(family), args.check),
                update(LIB_OUT, render_lib(family), args.check),
                check_uapi(ynl, family)]
    except SpecError as e:
        print(f'nlgen: {e}', file=sys.stderr)
        return 1
    if all(same):
        print(f'nlgen: {KERNEL_OUT}, {LIB_OUT} and {UAPI} agree with {SPEC}')
        return 0
    return 1


if __name__ == '__main__':
    sys.exit(main())
