# SPDX-License-Identifier: LGPL-2.1-or-later
"""Entity memory through Device: mappings are buffers numpy uses without
a copy; segments export and import with their rights and token; the
device's events tell importers and exporters what happened."""

import errno
import mmap
import os

import numpy
import pytest

import ubfab
from conftest import TOKEN, WINDOW


def test_unknown_device_is_enoent():
    with pytest.raises(ubfab.Error) as e:
        ubfab.Device("nosuch0")
    assert e.value.errno == errno.ENOENT


def test_numpy_array_is_the_entity_memory(npus):
    with ubfab.Device(npus[0].name) as dev, dev.alloc(WINDOW) as mem, \
            mem.map() as m1, mem.map() as m2:
        assert not m1.buffer.readonly and len(m1.buffer) == WINDOW
        a = numpy.frombuffer(m1.buffer, dtype=numpy.uint32)
        a[:] = numpy.arange(a.size, dtype=numpy.uint32)
        # The other mapping shows the stores: no copy in between.
        b = numpy.frombuffer(m2.buffer, dtype=numpy.uint32)
        assert numpy.array_equal(a, b)
        b[7] = 0xdeadbeef
        assert a[7] == 0xdeadbeef
        with pytest.raises(ubfab.Error) as e:
            m1.close()
        assert e.value.errno == errno.EBUSY
        del a, b
        m1.close()
        with pytest.raises(ValueError):
            m1.buffer[0]


def test_import_maps_the_peers_window(session, peers):
    segs = session.segments(peers.b.eid)
    mine = [s for s in segs if s.token_id == peers.seg.token_id]
    assert len(mine) == 1
    assert (mine[0].length, mine[0].imports, mine[0].pid) == \
        (WINDOW, 1, os.getpid())
    assert mine[0].rights == peers.seg.rights
    assert peers.imp.length == WINDOW
    with peers.dst.map() as owner, peers.imp.map() as remote:
        owner.buffer[:5] = b"hello"
        assert bytes(remote.buffer[:5]) == b"hello"
        remote.buffer[WINDOW - 3:] = b"end"
        assert bytes(owner.buffer[WINDOW - 3:]) == b"end"


def test_read_only_import(peers):
    with peers.a.import_segment(peers.b.eid, peers.seg.token_id, TOKEN,
                                ubfab.SegRights.READ) as imp:
        with imp.map(mmap.PROT_READ) as m:
            assert m.buffer.readonly
        with pytest.raises(ubfab.Error) as e:
            imp.map()
        assert e.value.errno == errno.EACCES


def test_wrong_token_is_eacces_and_tells_the_exporter(session, peers):
    before = session.entity(peers.b.eid).auth_failures
    with pytest.raises(ubfab.Error) as e:
        peers.a.import_segment(peers.b.eid, peers.seg.token_id, TOKEN + 1,
                               ubfab.SegRights.READ)
    assert e.value.errno == errno.EACCES
    ev = peers.b.wait_event(timeout=5)
    assert ev.type == ubfab.EventType.AUTH_FAILURE
    assert (ev.eid, ev.token_id) == (peers.a.eid, peers.seg.token_id)
    assert session.entity(peers.b.eid).auth_failures == before + 1
    assert peers.b.wait_event(timeout=0) is None


def test_unexport_revokes_the_import(session, peers):
    peers.seg.close()
    ev = peers.a.wait_event(timeout=5)
    assert ev.type == ubfab.EventType.REVOKED
    assert ev.reason == ubfab.RevokeReason.UNEXPORT
    assert ev.mmap_offset == peers.imp.mmap_offset
    assert session.segments(peers.b.eid) == []
    with pytest.raises(ubfab.Error) as e:
        peers.imp.map()
    assert e.value.errno == errno.ENODEV
