# SPDX-License-Identifier: LGPL-2.1-or-later
"""libubfab through ctypes: the library handle, the C structs of
lib/libubfab.h and include/uapi/linux/ubfab.h, and every function's
prototype.

Owns the binary interface; the modules above it (session, device, queue)
only call what is declared here. libubfab-ffi.so.1 is loaded, which holds
out-of-line copies of the header's inline queue helpers and brings in
libubfab.so.1 itself, so one handle reaches the whole API.
"""

import ctypes

from . import _uapi

LIBRARY = "libubfab-ffi.so.1"

u8, u16, u32, u64 = (ctypes.c_uint8, ctypes.c_uint16, ctypes.c_uint32,
                     ctypes.c_uint64)
name_t = ctypes.c_char * _uapi.NAME_MAX
param_t = ctypes.c_char * _uapi.PARAM_MAX
FIELD_NONE = 0xFFFFFFFF
COUNT_NONE = 0xFFFFFFFFFFFFFFFF
EID_ANY = FIELD_NONE
PLANE_ANY = FIELD_NONE


class Struct(ctypes.Structure):
    """A C struct; _fields_ as in the C header, in its order."""


def struct(name, fields):
    return type(name, (Struct,), {"_fields_": fields})


FabricInfo = struct("FabricInfo", [
    ("profile", name_t), ("nodes", u32), ("chips_per_node", u32),
    ("dies_per_chip", u32), ("cpus_per_node", u32), ("planes", u32),
    ("l2_per_plane", u32), ("npus", u32), ("cpus", u32), ("npu_mem", u64),
    ("cpu_mem", u64), ("setup_ns", u64)])
EntityInfo = struct("EntityInfo", [
    ("eid", u32), ("name", name_t), ("kind", u32), ("node", u32),
    ("chip", u32), ("die", u32), ("socket", u32), ("mem_size", u64),
    ("ports", u32), ("auth_failures", u64)])
Stats = struct("Stats", [
    ("tx_bytes", u64), ("rx_bytes", u64), ("tx_ops", u64), ("rx_ops", u64),
    ("errors", u64)])
PortInfo = struct("PortInfo", [
    ("eid", u32), ("plane", u32), ("state", u32), ("stats", Stats),
    ("bw_permille", u32), ("error_ppm", u32), ("delay_ps", u64)])
PlaneInfo = struct("PlaneInfo", [
    ("id", u32), ("state", u32), ("l1_switches", u32), ("l2_switches", u32),
    ("ports", u32), ("ports_up", u32), ("stats", Stats)])
QueueInfo = struct("QueueInfo", [
    ("eid", u32), ("id", u32), ("pid", u32), ("flags", u32),
    ("sq_entries", u32), ("cq_entries", u32), ("clock_ns", u64),
    ("entries", u64)])
LinkInfo = struct("LinkInfo", [
    ("plane", u32), ("kind", u32), ("eid", u32), ("node", u32), ("l2", u32),
    ("bytes", u64), ("busy_ps", u64), ("idle_ps", u64), ("end_ps", u64)])
SegInfo = struct("SegInfo", [
    ("eid", u32), ("token_id", u32), ("rights", u32), ("imports", u32),
    ("pid", u32), ("offset", u64), ("length", u64)])
ModelParam = struct("ModelParam", [
    ("name", param_t), ("unit", param_t), ("value", u64), ("minimum", u64),
    ("maximum", u64), ("default_value", u64)])
ModelMem = struct("ModelMem", [
    ("links", u64), ("links_bytes", u64), ("queue_bytes", u64),
    ("stamps", u64), ("stamp_bytes", u64), ("other_bytes", u64),
    ("total_bytes", u64), ("queues", u32)])
Model = struct("Model", [
    ("profile", name_t), ("nparams", ctypes.c_size_t),
    ("params", ctypes.POINTER(ModelParam)), ("mem", ModelMem)])
ModelValue = struct("ModelValue", [("name", ctypes.c_char_p),
                                   ("value", u64)])
PortFaults = struct("PortFaults", [
    ("mask", u32), ("state", u32), ("bw_permille", u32), ("error_ppm", u32),
    ("delay_ps", u64)])
NlEventUnion = type("NlEventUnion", (ctypes.Union,), {"_fields_": [
    ("port", PortInfo), ("plane", PlaneInfo), ("entity", EntityInfo),
    ("model", ctypes.POINTER(Model))]})
NlEvent = struct("NlEvent", [("cmd", u32), ("u", NlEventUnion)])
Import = struct("Import", [("length", u64), ("mmap_offset", u64)])
DeviceEvent = struct("DeviceEvent", [
    ("type", u32), ("reason", u32), ("eid", u32), ("token_id", u32),
    ("mmap_offset", u64)])
QueueAttr = struct("QueueAttr", [
    ("flags", u32), ("sq_entries", u32), ("cq_entries", u32),
    ("eventfd", ctypes.c_int), ("idle_us", u32)])
Sqe = struct("Sqe", [
    ("opcode", u8), ("flags", u8), ("reserved", u16), ("length", u32),
    ("user_data", u64), ("local", u64), ("remote", u64), ("value", u64),
    ("compare", u64), ("notify", u64), ("aux", u32), ("timeout_ms", u32)])
Completion = struct("Completion", [
    ("user_data", u64), ("result", u64), ("model_ns", u64), ("bytes", u32),
    ("status", u16), ("opcode", u8), ("reserved", u8)])
u32p = ctypes.POINTER(u32)
Queue = struct("Queue", [
    ("sqes", ctypes.POINTER(Sqe)), ("sq_head", u32p), ("sq_tail", u32p),
    ("sq_flags", u32p), ("sq_overflow", u32p), ("sq_mask", u32),
    ("sq_next", u32), ("sq_published", u32),
    ("cqes", ctypes.POINTER(Completion)),
    ("cq_head", u32p), ("cq_tail", u32p), ("cq_overflow", u32p),
    ("cq_mask", u32), ("flags", u32), ("id", u32), ("fd", ctypes.c_int),
    ("ring", ctypes.c_void_p), ("ring_size", ctypes.c_size_t)])
Rqe = struct("Rqe", [
    ("user_data", u64), ("addr", u64), ("length", u32),
    ("reserved", u32 * 11)])
ReceiveCompletion = struct("ReceiveCompletion", [
    ("user_data", u64), ("model_ns", u64), ("bytes", u32), ("imm", u32),
    ("src_eid", u32), ("status", u16), ("flags", u8), ("opcode", u8)])
Rq = struct("Rq", [
    ("rqes", ctypes.POINTER(Rqe)), ("rq_head", u32p), ("rq_tail", u32p),
    ("rq_overflow", u32p), ("rq_mask", u32),
    ("rcqes", ctypes.POINTER(ReceiveCompletion)), ("rcq_head", u32p),
    ("rcq_tail", u32p), ("rcq_overflow", u32p), ("rcq_mask", u32),
    ("id", u32), ("token", u32), ("fd", ctypes.c_int),
    ("ring", ctypes.c_void_p), ("ring_size", ctypes.c_size_t)])

# The uAPI fixes these sizes; a layout typed wrong here fails at import.
for _s, _n in ((Sqe, 64), (Completion, 32), (DeviceEvent, 24), (Rqe, 64),
               (ReceiveCompletion, 32)):
    assert ctypes.sizeof(_s) == _n, "%s is not %d bytes" % (_s.__name__, _n)

P = ctypes.POINTER
vp, cp, i32 = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
nl_p, dev_p, q_p, rq_p = vp, vp, P(Queue), P(Rq)


def cb(rec):
    return ctypes.CFUNCTYPE(i32, P(rec), vp)


EntityCb, PortCb, PlaneCb = cb(EntityInfo), cb(PortInfo), cb(PlaneInfo)
QueueCb, LinkCb, SegCb = cb(QueueInfo), cb(LinkInfo), cb(SegInfo)

# name: (restype, argtypes)
PROTOTYPES = {
    "ubfab_nl_open": (i32, [P(nl_p)]),
    "ubfab_nl_close": (None, [nl_p]),
    "ubfab_nl_errmsg": (cp, [nl_p]),
    "ubfab_fabric_get": (i32, [nl_p, P(FabricInfo)]),
    "ubfab_entity_get": (i32, [nl_p, u32, P(EntityInfo)]),
    "ubfab_entity_get_by_name": (i32, [nl_p, cp, P(EntityInfo)]),
    "ubfab_entity_dump": (i32, [nl_p, EntityCb, vp]),
    "ubfab_port_get": (i32, [nl_p, u32, u32, P(PortInfo)]),
    "ubfab_port_dump": (i32, [nl_p, u32, PortCb, vp]),
    "ubfab_plane_get": (i32, [nl_p, u32, P(PlaneInfo)]),
    "ubfab_plane_dump": (i32, [nl_p, PlaneCb, vp]),
    "ubfab_queue_dump": (i32, [nl_p, u32, QueueCb, vp]),
    "ubfab_link_dump": (i32, [nl_p, u32, LinkCb, vp]),
    "ubfab_seg_dump": (i32, [nl_p, u32, SegCb, vp]),
    "ubfab_kind_name": (cp, [u32]),
    "ubfab_state_name": (cp, [u32]),
    "ubfab_model_get": (i32, [nl_p, P(P(Model))]),
    "ubfab_model_free": (None, [P(Model)]),
    "ubfab_model_set": (i32, [nl_p, cp, P(ModelValue), ctypes.c_size_t]),
    "ubfab_port_set_state": (i32, [nl_p, u32, u32, u32]),
    "ubfab_port_set_faults": (i32, [nl_p, u32, u32, P(PortFaults)]),
    "ubfab_plane_set_state": (i32, [nl_p, u32, u32]),
    "ubfab_entity_reset": (i32, [nl_p, u32]),
    "ubfab_nl_subscribe": (i32, [nl_p]),
    "ubfab_nl_fd": (i32, [nl_p]),
    "ubfab_nl_event_read": (i32, [nl_p, P(NlEvent)]),
    "ubfab_dev_open": (i32, [cp, P(dev_p)]),
    "ubfab_dev_close": (None, [dev_p]),
    "ubfab_dev_fd": (i32, [dev_p]),
    "ubfab_dev_eid": (u32, [dev_p]),
    "ubfab_dev_name": (cp, [dev_p]),
    "ubfab_dev_alloc": (i32, [dev_p, u64, P(u64)]),
    "ubfab_dev_free": (i32, [dev_p, u64]),
    "ubfab_dev_export": (i32, [dev_p, u64, u64, u32, u32, P(u32)]),
    "ubfab_dev_unexport": (i32, [dev_p, u32]),
    "ubfab_dev_import": (i32, [dev_p, u32, u32, u32, u32, P(Import)]),
    "ubfab_dev_unimport": (i32, [dev_p, u64]),
    "ubfab_dev_event_wait": (i32, [dev_p, P(DeviceEvent), i32]),
    "ubfab_queue_create": (i32, [dev_p, P(QueueAttr), P(q_p)]),
    "ubfab_queue_destroy": (None, [q_p]),
    "ubfab_queue_fd": (i32, [q_p]),
    "ubfab_queue_submit": (i32, [q_p]),
    "ubfab_queue_wait_cqe": (i32, [q_p, P(P(Completion)), i32]),
    "ubfab_queue_reset": (i32, [q_p]),
    "ubfab_queue_clock": (i32, [q_p, u64, P(u64)]),
    "ubfab_queue_park": (i32, [q_p]),
    "ubfab_queue_stamp": (i32, [q_p, u64, u32, P(u64)]),
    "ubfab_rq_create": (i32, [dev_p, u32, u32, u32, P(rq_p)]),
    "ubfab_rq_destroy": (None, [rq_p]),
    "ubfab_rq_post": (i32, [rq_p, u64, u32, u64]),
    "ubfab_rq_reap": (i32, [rq_p, P(ReceiveCompletion), u32, i32]),
    "ubfab_import_addr": (u64, [P(Import), u64]),
    "ubfab_queue_sq_space": (u32, [q_p]),
    "ubfab_queue_get_sqe": (P(Sqe), [q_p]),
    "ubfab_prep_nop": (None, [P(Sqe)]),
    "ubfab_prep_write": (None, [P(Sqe), u64, u64, u32]),
    "ubfab_prep_read": (None, [P(Sqe), u64, u64, u32]),
    "ubfab_prep_write_notify": (None, [P(Sqe), u64, u64, u32, u64, u64]),
    "ubfab_prep_atomic": (None, [P(Sqe), u32, u64, u64, u64]),
    "ubfab_prep_copy": (None, [P(Sqe), u64, u64, u32]),
    "ubfab_prep_fill": (None, [P(Sqe), u64, u32, u32]),
    "ubfab_prep_event_record": (None, [P(Sqe), u32]),
    "ubfab_prep_event_wait": (None, [P(Sqe), u32, u64, u32]),
    "ubfab_prep_wait_value": (None, [P(Sqe), u64, u32, u64, u32]),
    "ubfab_prep_compute": (None, [P(Sqe), u64]),
    "ubfab_prep_send": (None, [P(Sqe), u64, u32, u32, u32, u32]),
    "ubfab_prep_send_imm": (None, [P(Sqe), u64, u32, u32, u32, u32, u32]),
    "ubfab_prep_write_imm": (None, [P(Sqe), u64, u64, u32, u32, u32, u32]),
    "ubfab_sqe_set_data": (None, [P(Sqe), u64]),
    "ubfab_sqe_set_flags": (None, [P(Sqe), u8]),
    "ubfab_queue_sq_flags": (u32, [q_p]),
    "ubfab_queue_cq_ready": (u32, [q_p]),
    "ubfab_queue_cqe_seen": (None, [q_p]),
    "ubfab_queue_reap": (u32, [q_p, P(Completion), u32]),
}


class _Lib:
    """The loaded library: lib.<name>() calls ubfab_<name>()."""

    def __init__(self, path):
        self.dll = ctypes.CDLL(path, use_errno=True)
        for name, (restype, argtypes) in PROTOTYPES.items():
            fn = getattr(self.dll, name)
            fn.restype, fn.argtypes = restype, argtypes
            setattr(self, name[len("ubfab_"):], fn)


try:
    lib = _Lib(LIBRARY)
except OSError as e:
    raise ImportError("ubfab needs libubfab (%s): %s" % (LIBRARY, e)) from e
