# SPDX-License-Identifier: LGPL-2.1-or-later
"""Topology and counters through Session: the shape, entities, ports and
planes agree with each other; lookups fail with Error and errno."""

import errno

import pytest

import ubfab


def test_shape_matches_entities(session):
    f = session.fabric()
    es = session.entities()
    npus = [e for e in es if e.kind == ubfab.EntityKind.NPU]
    cpus = [e for e in es if e.kind == ubfab.EntityKind.CPU]
    assert (len(npus), len(cpus)) == (f.npus, f.cpus)
    assert f.npus == f.nodes * f.chips_per_node * f.dies_per_chip
    assert [e.eid for e in es] == sorted(e.eid for e in es)
    assert all(e.ports == f.planes for e in es)
    assert all(e.mem_size == f.npu_mem for e in npus)
    # Fields that do not apply are None, not UBFAB_FIELD_NONE.
    assert all(e.socket is None and e.chip is not None for e in npus)
    assert all(e.chip is None and e.socket is not None for e in cpus)


def test_entity_by_name_and_by_eid_agree(session):
    for e in session.entities():
        assert session.entity(e.name) == e
        assert session.entity(e.eid) == e


@pytest.mark.parametrize("which", ["npu99999", 1 << 30])
def test_unknown_entity_is_enodev(session, which):
    with pytest.raises(ubfab.Error) as e:
        session.entity(which)
    assert e.value.errno == errno.ENODEV
    assert isinstance(e.value, OSError)


def test_ports_and_planes_agree(session):
    f = session.fabric()
    n = len(session.entities())
    ports = session.ports()
    assert len(ports) == n * f.planes
    assert all(p.state == ubfab.State.UP for p in ports)
    mine = session.ports(ports[0].eid)
    assert [p.plane for p in mine] == list(range(f.planes))
    assert session.port(mine[1].eid, 1) == mine[1]
    planes = session.planes()
    assert [p.id for p in planes] == list(range(f.planes))
    for p in planes:
        assert (p.ports, p.ports_up, p.l2_switches) == (n, n, f.l2_per_plane)
        assert session.plane(p.id).id == p.id
    with pytest.raises(ubfab.Error) as e:
        session.plane(f.planes)
    assert e.value.errno == errno.ENODEV


def test_links_of_a_plane(session):
    f = session.fabric()
    links = session.links(0)
    assert links and all(link.plane == 0 for link in links)
    ports = [link for link in links if link.eid is not None]
    # Two directions per port of the plane.
    assert len(ports) == 2 * len(session.entities())
    assert {link.kind for link in ports} == {ubfab.LinkKind.PORT_TX,
                                             ubfab.LinkKind.PORT_RX}
    assert len(session.links()) == f.planes * len(links)


def test_closed_session_refuses(session):
    session.close()
    session.close()
    with pytest.raises(ValueError):
        session.fabric()
