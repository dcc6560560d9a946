"""Gathers and scatters at indices the kernel does not validate, as the device performs them.

A gather kernel (Embedding's rows, NLLLoss's self[n, t] and weight[t]) computes an element's address
from the index without checking it against the tensor's shape. On the device that address is read
(or written) if it lies inside a live device allocation's mapped range (any allocation: the tensor's
own rounding, a neighbour) and faults otherwise. These helpers index a NumPy view of device memory
the same way: coordinates inside the shape are ordinary NumPy indexing; the others become byte
addresses (view start + Σ coordinate × stride) that are read or written in place when mapped, and
an access fault, ACL_ERROR_RT_AICORE_EXCEPTION, when not. Under `opemu check` every call that reaches
outside its tensor is an out-of-bounds finding, mapped or not: the app passed an invalid index.
"""
import numpy as np

from opemu.core import device, status

# Addresses beyond 2^48 (the user address space) lie in no allocation: an index that far faults
# without its address being formed, which keeps index × stride inside int64.
ADDRESS_SPACE = 1 << 48


def gather(view, coordinates, what):
    """view[coordinates] (NumPy advanced indexing, one integer array per dimension, broadcast
    together) with out-of-shape coordinates read from device memory. `what` describes the access
    for the fault message and the finding."""
    coordinates = np.broadcast_arrays(*[np.asarray(c, np.int64) for c in coordinates])
    inside = _inside(view.shape, coordinates)
    if inside.all():
        return view[tuple(coordinates)]
    result = np.empty(inside.shape, view.dtype)
    result[inside] = view[tuple(c[inside] for c in coordinates)]
    item = view.dtype.itemsize
    stray = np.empty((int((~inside).sum()), item), np.uint8)
    for memory, offsets, rows in _stray_memory(view, coordinates, ~inside, what):
        stray[rows] = memory[offsets[:, None] + np.arange(item)]
    result[~inside] = stray.view(view.dtype).reshape(-1)
    return result


class Scatter:
    """view[coordinates] = values, with out-of-shape coordinates written to device memory. Made
    before the kernel writes anything: it checks every address then, so a fault leaves memory as
    it was; write() stores the values."""

    def __init__(self, view, coordinates, what):
        self.view = view
        self.coordinates = np.broadcast_arrays(*[np.asarray(c, np.int64) for c in coordinates])
        self.inside = _inside(view.shape, self.coordinates)
        self.groups = [] if self.inside.all() else _stray_memory(view, self.coordinates, ~self.inside, what)

    def write(self, values):
        values = np.broadcast_to(np.asarray(values, self.view.dtype), self.inside.shape)
        self.view[tuple(c[self.inside] for c in self.coordinates)] = values[self.inside]
        item = self.view.dtype.itemsize
        stray = np.ascontiguousarray(values[~self.inside]).view(np.uint8).reshape(-1, item)
        for memory, offsets, rows in self.groups:
            memory[offsets[:, None] + np.arange(item)] = stray[rows]


def _inside(shape, coordinates):
    inside = np.ones(coordinates[0].shape, bool)
    for c, d in zip(coordinates, shape):
        inside &= (c >= 0) & (c < d)
    return inside


def _stray_memory(view, coordinates, stray, what):
    """The stray elements grouped by the allocation they fall in: [(that allocation's mapped bytes,
    the elements' byte offsets in it, their positions among the strays)]. Faults when one lies in
    no allocation."""
    device.lib.opemu_sanitize_stray(("%s: outside the tensor" % what).encode())
    item = view.dtype.itemsize
    offset = np.zeros(int(stray.sum()), np.int64)
    far = np.zeros(offset.shape, bool)
    for c, s in zip(coordinates, view.strides):
        c = c[stray]
        if s:
            limit = ADDRESS_SPACE // abs(s)
            far |= (c > limit) | (c < -limit)
            offset += np.where(far, 0, c) * s
    if far.any():
        _fault(0, item, what)
    addresses = view.__array_interface__["data"][0] + offset
    order = np.argsort(addresses, kind="stable")
    ordered = addresses[order]
    start, mapped = device.ffi.new("uint64_t *"), device.ffi.new("uint64_t *")
    groups, i = [], 0
    while i < ordered.size:
        address = int(ordered[i])
        if address < 0 or not device.lib.opemu_device_mapping(device.ffi.cast("void *", address), start, mapped):
            _fault(address, item, what)
        end = int(np.searchsorted(ordered, start[0] + mapped[0] - item, side="right"))
        if end == i:  # the element straddles the mapping's end
            _fault(address, item, what)
        memory = np.frombuffer(device.ffi.buffer(device.ffi.cast("char *", start[0]), mapped[0]), np.uint8)
        groups.append((memory, ordered[i:end] - start[0], order[i:end]))
        i = end
    return groups


def _fault(address, item, what):
    """The device's access fault: the runtime's report (exception callbacks, recorded error), then
    the kernel's failure with a message naming the access."""
    code = device.lib.opemu_device_range_check(device.ffi.cast("void *", address & (2 ** 64 - 1)), item)
    raise device.DeviceFault(code or status.ACL["ACL_ERROR_RT_AICORE_EXCEPTION"],
                             "%s: outside the tensor and every device allocation" % what)
