"""Tensors of 4-bit elements (INT4, FLOAT4_E2M1, FLOAT4_E1M2): two per byte, element 2i in the low nibble.

Their view (device.geometry) is the bytes from the storage start; shape, strides and offset stay in elements,
so any view the app describes (llama.cpp's Q4_0 weights are transposed ones) reads the nibbles it names.
`codes` gives the 4-bit codes (0..15) as uint8 in the tensor's shape; `store` writes codes back, touching
only the nibbles the view names (the other half of a shared byte is kept)."""
import numpy as np


def element_index(desc):
    """Each element's index in the storage (offset + Σ i·stride), as int64 in the tensor's shape."""
    index = np.full(desc.shape, desc.offset, np.int64)
    for axis, (dim, stride) in enumerate(zip(desc.shape, desc.strides)):
        shape = [1] * len(desc.shape)
        shape[axis] = dim
        index += (np.arange(dim, dtype=np.int64) * stride).reshape(shape)
    return index


def _dense(desc):
    """Whether the view is the contiguous run of elements from an even offset (the fast path)."""
    expected = 1
    for dim, stride in zip(reversed(desc.shape), reversed(desc.strides)):
        if dim != 1 and stride != expected:
            return False
        expected *= dim
    return desc.offset % 2 == 0


def codes(raw, desc):
    """The 4-bit codes of the tensor `desc` whose storage bytes are `raw`."""
    n = 1
    for d in desc.shape:
        n *= d
    if _dense(desc):
        start = desc.offset // 2
        pairs = raw[start:start + (n + 1) // 2]
        both = np.empty((pairs.size, 2), np.uint8)
        np.bitwise_and(pairs, 0x0F, out=both[:, 0])
        np.right_shift(pairs, 4, out=both[:, 1])
        return both.reshape(-1)[:n].reshape(desc.shape)
    index = element_index(desc)
    byte = raw[index >> 1]
    return np.where(index & 1, byte >> 4, byte & 0x0F).astype(np.uint8)


def store(raw, desc, values):
    """Write 4-bit codes `values` (uint8, the tensor's shape) into the nibbles the view names."""
    values = np.broadcast_to(np.asarray(values, np.uint8) & 0x0F, desc.shape)
    n = values.size
    if _dense(desc) and n % 2 == 0:
        start = desc.offset // 2
        pairs = values.reshape(-1, 2)
        raw[start:start + n // 2] = pairs[:, 0] | (pairs[:, 1] << 4)
        return
    index = element_index(desc).reshape(-1)
    flat = values.reshape(-1)
    high = (index & 1).astype(bool)
    for select, keep, shift in ((~high, 0xF0, 0), (high, 0x0F, 4)):
        where = index[select] >> 1
        raw[where] = (raw[where] & keep) | (flat[select] << shift)


def signed(values):
    """INT4 codes as int8 values (-8..7)."""
    values = values.astype(np.int8)
    return np.where(values > 7, values - 16, values).astype(np.int8)
