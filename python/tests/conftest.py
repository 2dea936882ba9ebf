# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fixtures of the binding's tests: a session, and two NPUs on different
nodes acting as a sender and its peer, the peer's window exported to the
sender. They need ubfab.ko loaded and root (make check-python runs them
in the test VM: tools/vm/ubvm -R)."""

import collections

import pytest

import ubfab

TOKEN = 0x5eed
WINDOW = 1 << 16

Peers = collections.namedtuple("Peers", "a b src dst seg imp")


@pytest.fixture
def session():
    with ubfab.Session() as s:
        yield s


@pytest.fixture
def npus(session):
    """The first NPU of the first node and the first of the last."""
    npus = [e for e in session.entities() if e.kind == ubfab.EntityKind.NPU]
    return npus[0], [e for e in npus if e.node == npus[-1].node][0]


@pytest.fixture
def peers(npus):
    """npu a with WINDOW bytes at src; npu b with WINDOW bytes at dst,
    exported (read, write, atomic) and imported by a as imp."""
    rights = ubfab.SegRights.READ | ubfab.SegRights.WRITE | \
        ubfab.SegRights.ATOMIC
    with ubfab.Device(npus[0].name) as a, ubfab.Device(npus[1].name) as b, \
            a.alloc(WINDOW) as src, b.alloc(WINDOW) as dst, \
            dst.export(rights, TOKEN) as seg, \
            a.import_segment(b.eid, seg.token_id, TOKEN, rights) as imp:
        yield Peers(a, b, src, dst, seg, imp)


def pytest_terminal_summary(terminalreporter):
    """End with a KTAP "# Totals:" line, which tools/check.sh counts."""
    n = {k: len(terminalreporter.stats.get(k, ()))
         for k in ("passed", "failed", "xfailed", "xpassed", "skipped",
                   "error")}
    terminalreporter.write_line(
        "# Totals: pass:%(passed)d fail:%(failed)d xfail:%(xfailed)d "
        "xpass:%(xpassed)d skip:%(skipped)d error:%(error)d" % n)
