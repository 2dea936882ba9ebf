# SPDX-License-Identifier: LGPL-2.1-or-later
"""Faults, the model and events through Session: states and knobs read
back as set, a subscribed session hears of each change, a port's delay
shows in the modeled time of a queue's entries, a reset reaches the
entity's devices. Every test puts the fabric back as it found it."""

import errno

import pytest

import ubfab
from conftest import WINDOW

DOWN, UP = ubfab.State.DOWN, ubfab.State.UP


@pytest.fixture
def events():
    with ubfab.Session() as s:
        s.subscribe()
        yield s


def test_port_state_reads_back_and_notifies(session, events, npus):
    eid = npus[0].eid
    before = session.plane(1).ports_up
    session.set_port_state(eid, 1, DOWN)
    try:
        assert session.port(eid, 1).state == DOWN
        assert session.plane(1).ports_up == before - 1
        ev = events.read_event(timeout=5)
        assert ev.cmd == ubfab.Cmd.PORT_NTF
        assert (ev.port.eid, ev.port.plane, ev.port.state) == (eid, 1, DOWN)
    finally:
        session.set_port_state(eid, 1, UP)
    assert events.read_event(timeout=5).port.state == UP
    assert events.read_event(timeout=0.1) is None


def test_plane_state_notifies(session, events):
    session.set_plane_state(2, DOWN)
    try:
        assert session.plane(2).state == DOWN
        ev = events.read_event(timeout=5)
        assert (ev.cmd, ev.plane.id, ev.plane.state) == \
            (ubfab.Cmd.PLANE_NTF, 2, DOWN)
    finally:
        session.set_plane_state(2, UP)
    assert session.plane(2).state == UP


def test_port_delay_shows_in_modeled_time(session, peers):
    def duration(q):
        t0 = q.clock()
        q.write(peers.src.offset, peers.imp.addr(0), WINDOW)
        return q.run(timeout=10)[0].model_ns - t0

    delay_ns = 1000000
    with peers.a.queue() as q:
        base = duration(q)
        planes = session.fabric().planes
        for plane in range(planes):
            session.set_port_faults(peers.a.eid, plane,
                                    delay_ps=delay_ns * 1000)
        try:
            port = session.port(peers.a.eid, 0)
            assert (port.delay_ps, port.bw_permille, port.state) == \
                (delay_ns * 1000, 1000, UP)
            slow = duration(q)
        finally:
            for plane in range(planes):
                session.set_port_faults(peers.a.eid, plane, delay_ps=0)
        assert slow >= base + delay_ns
        assert duration(q) < base + delay_ns


def test_bad_knob_is_erange_with_a_reason(session, npus):
    with pytest.raises(ubfab.Error) as e:
        session.set_port_faults(npus[0].eid, 0, bw_permille=0)
    assert e.value.errno == errno.ERANGE
    assert e.value.reason


def test_model_set_reads_back_and_restores(session, events):
    model = session.model()
    p = next(p for p in model.params.values() if p.value < p.maximum)
    try:
        session.set_model({p.name: p.value + 1})
        m = session.model()
        assert (m.profile, m.params[p.name].value) == ("custom", p.value + 1)
        ev = events.read_event(timeout=5)
        assert ev.cmd == ubfab.Cmd.MODEL_NTF
        assert ev.model.params[p.name].value == p.value + 1
        with pytest.raises(ubfab.Error) as e:
            session.set_model({p.name: p.maximum + 1})
        assert e.value.errno == errno.ERANGE
        with pytest.raises(ubfab.Error) as e:
            session.set_model({"no-such-ps": 1})
        assert e.value.errno == errno.ENOENT
    finally:
        session.set_model(profile="cm384")
    assert session.model() == model


def test_reset_reaches_the_device(session, events, npus):
    with ubfab.Device(npus[1].name) as dev:
        mem = dev.alloc(WINDOW)
        session.reset_entity(dev.eid)
        ev = dev.wait_event(timeout=5)
        assert (ev.type, ev.eid, ev.mmap_offset) == \
            (ubfab.EventType.RESET, dev.eid, mem.offset)
        ntf = events.read_event(timeout=5)
        assert (ntf.cmd, ntf.entity.eid) == \
            (ubfab.Cmd.ENTITY_RESET_NTF, dev.eid)
        with pytest.raises(ubfab.Error) as e:
            mem.close()
        assert e.value.errno == errno.ENOENT
