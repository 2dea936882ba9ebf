# SPDX-License-Identifier: LGPL-2.1-or-later
"""Session: the generic netlink session to ubfab.ko.

Owns the fabric's queries (shape, entities, ports, planes, links,
queues, segments and their traffic counters), the fabric model's
parameters, fault injection (port and plane states, port fault knobs,
entity reset) and the "events" multicast group.
"""

import collections
import ctypes
import select

from . import _lib
from ._lib import lib
from ._resource import Handle
from ._uapi import Cmd, State
from .errors import check
from .records import record

ModelParam = collections.namedtuple(
    "ModelParam", "name unit value minimum maximum default_value")
ModelParam.__doc__ = "One parameter of the fabric model (unit: its last part)."
Model = collections.namedtuple("Model", "profile params mem")
Model.__doc__ = """The fabric model: its profile, its parameters by name
(dict of ModelParam, in the kernel's order) and the memory it holds
(a ModelMem record)."""
NlEvent = collections.namedtuple("NlEvent", "cmd port plane entity model")
NlEvent.__doc__ = """A notification of the "events" group: cmd is a Cmd
(PORT_NTF, PLANE_NTF, ENTITY_RESET_NTF or MODEL_NTF) and the one of port,
plane, entity or model it concerns is set, the others None."""


def _model(p):
    """A Model from a struct ubfab_model pointer, which it frees."""
    try:
        m = p.contents
        params = collections.OrderedDict()
        for i in range(m.nparams):
            q = m.params[i]
            params[q.name.decode()] = ModelParam(
                q.name.decode(), q.unit.decode(), q.value, q.minimum,
                q.maximum, q.default_value)
        return Model(m.profile.decode(), params, record(m.mem))
    finally:
        lib.model_free(p)


class Session(Handle):
    """A generic netlink session to ubfab.ko (libubfab's struct ubfab_nl).

    Use it as a context manager, or close() it. Not thread-safe: use one
    per thread. Methods raise Error (errno ENOENT from the constructor
    when ubfab.ko is not loaded; EPERM from the setters without
    CAP_NET_ADMIN).
    """

    _free = "nl_close"

    def __init__(self):
        p = ctypes.c_void_p()
        check(lib.nl_open(ctypes.byref(p)), "ubfab_nl_open")
        self._p = p

    def _check(self, rc, call):
        return check(rc, call, lambda: lib.nl_errmsg(self._p).decode())

    def _get(self, call, ctype, *args):
        out = ctype()
        self._check(getattr(lib, call)(self.handle(), *args, ctypes.byref(out)),
                    "ubfab_" + call)
        return record(out)

    def _dump(self, call, cbtype, *args):
        out, failure = [], []

        def collect(p, _arg):
            try:
                out.append(record(p.contents))
                return 0
            except BaseException as e:  # re-raised below, not lost in C
                failure.append(e)
                return 1
        rc = getattr(lib, call)(self.handle(), *args, cbtype(collect), None)
        if failure:
            raise failure[0]
        self._check(rc, "ubfab_" + call)
        return out

    # Topology and statistics

    def fabric(self):
        """The shape of the supernode: a FabricInfo record."""
        return self._get("fabric_get", _lib.FabricInfo)

    def entity(self, which):
        """One entity, by EID (int) or name ("npu3"): an EntityInfo.

        Raises Error with errno ENODEV if there is none."""
        if isinstance(which, str):
            return self._get("entity_get_by_name", _lib.EntityInfo,
                             which.encode())
        return self._get("entity_get", _lib.EntityInfo, which)

    def entities(self):
        """Every entity, in EID order: a list of EntityInfo."""
        return self._dump("entity_dump", _lib.EntityCb)

    def port(self, eid, plane):
        """The port of entity ``eid`` into ``plane``: a PortInfo, with its
        traffic counters (``stats``) and fault knobs."""
        return self._get("port_get", _lib.PortInfo, eid, plane)

    def ports(self, eid=None):
        """The ports of entity ``eid``, or of all: a list of PortInfo."""
        return self._dump("port_dump", _lib.PortCb,
                          _lib.EID_ANY if eid is None else eid)

    def plane(self, plane):
        """One switching plane: a PlaneInfo, its stats summed over its
        ports."""
        return self._get("plane_get", _lib.PlaneInfo, plane)

    def planes(self):
        """Every plane: a list of PlaneInfo."""
        return self._dump("plane_dump", _lib.PlaneCb)

    def links(self, plane=None):
        """What the model's links have carried, of ``plane`` or of all:
        a list of LinkInfo (bytes, busy_ps, idle_ps, end_ps)."""
        return self._dump("link_dump", _lib.LinkCb,
                          _lib.PLANE_ANY if plane is None else plane)

    def queues(self, eid=None):
        """Every process's NPU queues, of entity ``eid`` or of all: a
        list of QueueInfo (modeled clock_ns, entries run)."""
        return self._dump("queue_dump", _lib.QueueCb,
                          _lib.EID_ANY if eid is None else eid)

    def segments(self, eid=None):
        """The exported segments, of entity ``eid`` or of all: a list of
        SegInfo."""
        return self._dump("seg_dump", _lib.SegCb,
                          _lib.EID_ANY if eid is None else eid)

    # The fabric model

    def model(self):
        """The model's profile, parameters and memory: a Model."""
        p = ctypes.POINTER(_lib.Model)()
        self._check(lib.model_get(self.handle(), ctypes.byref(p)),
                    "ubfab_model_get")
        return _model(p)

    def set_model(self, values=None, profile=None):
        """Set parameters of the model, all or none.

        ``values`` maps names ("hop-ps") to values; ``profile`` (e.g.
        "cm384") puts back all of that profile's values first. Needs
        CAP_NET_ADMIN. Error ENOENT for an unknown name, ERANGE for a
        value out of range (``reason`` says which)."""
        items = list((values or {}).items())
        arr = (_lib.ModelValue * max(len(items), 1))()
        for i, (name, value) in enumerate(items):
            arr[i].name, arr[i].value = name.encode(), value
        self._check(lib.model_set(self.handle(),
                                  profile.encode() if profile else None,
                                  arr if items else None, len(items)),
                    "ubfab_model_set")

    # Faults

    def set_port_state(self, eid, plane, state):
        """Bring a port up or down (State.UP, State.DOWN)."""
        self._check(lib.port_set_state(self.handle(), eid, plane, State(state)),
                    "ubfab_port_set_state")

    def set_port_faults(self, eid, plane, state=None, bw_permille=None,
                        error_ppm=None, delay_ps=None):
        """Set a port's state and fault knobs at once, all or nothing;
        the knobs left None keep their values."""
        f = _lib.PortFaults()
        for bit, name, value in ((1, "state", state),
                                 (2, "bw_permille", bw_permille),
                                 (4, "delay_ps", delay_ps),
                                 (8, "error_ppm", error_ppm)):
            if value is not None:
                f.mask |= bit
                setattr(f, name, value)
        self._check(lib.port_set_faults(self.handle(), eid, plane,
                                        ctypes.byref(f)),
                    "ubfab_port_set_faults")

    def set_plane_state(self, plane, state):
        """Bring a whole plane up or down."""
        self._check(lib.plane_set_state(self.handle(), plane, State(state)),
                    "ubfab_plane_set_state")

    def reset_entity(self, eid):
        """Reset an entity: free all its memory, revoke its segments."""
        self._check(lib.entity_reset(self.handle(), eid), "ubfab_entity_reset")

    # Events

    def subscribe(self):
        """Receive the fabric's events on this session (best one used for
        nothing else: events arriving during a request are dropped)."""
        self._check(lib.nl_subscribe(self.handle()), "ubfab_nl_subscribe")

    def fileno(self):
        """The session's socket, to select() or poll() it for events."""
        return check(lib.nl_fd(self.handle()), "ubfab_nl_fd")

    def read_event(self, timeout=None):
        """The next event, an NlEvent; None if none came within
        ``timeout`` seconds (None: wait forever). Error ENOBUFS when
        events were lost (read on, and read the states again)."""
        if timeout is not None:
            ready, _, _ = select.select([self.fileno()], [], [], timeout)
            if not ready:
                return None
        ev = _lib.NlEvent()
        self._check(lib.nl_event_read(self.handle(), ctypes.byref(ev)),
                    "ubfab_nl_event_read")
        cmd = Cmd(ev.cmd)
        fields = dict.fromkeys(NlEvent._fields)
        fields["cmd"] = cmd
        if cmd == Cmd.PORT_NTF:
            fields["port"] = record(ev.u.port)
        elif cmd == Cmd.PLANE_NTF:
            fields["plane"] = record(ev.u.plane)
        elif cmd == Cmd.ENTITY_RESET_NTF:
            fields["entity"] = record(ev.u.entity)
        elif cmd == Cmd.MODEL_NTF:
            fields["model"] = _model(ev.u.model)
        return NlEvent(**fields)
