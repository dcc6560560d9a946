"""The generator every random/ operator draws from: (seed, offset) as the vendor's Philox4x32-10 contract names it.

Same (seed, offset) → same numbers; another offset → an independent stream (PyTorch's adapter advances the offset
by the 32-bit draws a call consumed, a multiple of 4). The *Tensor forms read seed and offset from device tensors
at launch (the offset attribute adds to the tensor's), as the vendor's kernels do, so a captured graph replays
with new values. The vendor's exact bit stream — how its kernels spread counters over cores and turn words into
floats — is not public and is not reproduced: opemu keys NumPy's Philox with the seed and starts its counter at
the offset, and follows the documented distributions."""
import numpy as np

from opemu.core import checks, dtypes, status

INT64 = dtypes.acl("INT64")


def generator(seed, offset):
    """NumPy's Philox keyed by `seed`, its counter at `offset` (both taken modulo 2^64)."""
    return np.random.Generator(np.random.Philox(key=int(seed) % 2 ** 64, counter=int(offset) % 2 ** 64))


def check_seed_tensors(a, allowed=(INT64,)):
    """The *Tensor forms' seedTensor and offsetTensor: not null, of `allowed` dtypes."""
    checks.not_null(a, "seedTensor", "offsetTensor")
    for name in ("seedTensor", "offsetTensor"):
        checks.dtype_in(name, getattr(a, name), allowed)
        if getattr(a, name).numel() < 1:
            raise status.param_invalid("%s must hold one element." % name)


def seed_and_offset(a, v):
    """(seed, offset) of a call: its attributes, or its tensors' first elements (plus the offset attribute)."""
    if "seedTensor" in v:
        return int(v["seedTensor"].reshape(-1)[0]), int(v["offsetTensor"].reshape(-1)[0]) + int(a.offset)
    return a.seed, a.offset
