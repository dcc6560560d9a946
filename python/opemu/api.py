"""The same kernels on NumPy arrays, for golden references and quick experiments.

    import numpy as np, opemu.api
    out = opemu.api.embedding(weight, indices)
    opemu.api.call("aclnnEmbedding", weight=w, indices=i, out=o)   # any registered op, by header names

Checks run exactly as in phase 1 and raise opemu.api.VendorError with the vendor's code/message.
"""
import numpy as np

from opemu import ops
from opemu.core.op import OPS, Args
from opemu.core.status import VendorError
from opemu.core.tensor import TensorDesc

__all__ = ["call", "embedding", "VendorError"]


def call(op_name, workspace=None, **arguments):
    """Run operator `op_name` (e.g. "aclnnEmbedding"); tensor arguments are NumPy arrays.
    `workspace` (a uint8 array) is reused when it is large enough, as an app reuses device memory."""
    ops.load_all()
    op = OPS[op_name]
    tensors = set(op.inputs + op.outputs)
    a = Args({name: (TensorDesc.from_array(value) if name in tensors and value is not None else value)
              for name, value in arguments.items()})
    for name in tensors:
        a.__dict__.setdefault(name, None)
    op.check(a)
    views = {name: getattr(a, name).array for name in tensors if getattr(a, name) is not None}
    needed = op.workspace(a)
    if workspace is None or workspace.nbytes < needed:
        workspace = np.empty(needed, np.uint8)
    op.compute(a, views, workspace[:needed])
    return {name: views[name] for name in op.outputs if name in views}


def embedding(weight, indices, out=None):
    weight, indices = np.asarray(weight), np.asarray(indices)
    if out is None:
        out = np.empty(indices.shape + weight.shape[1:], weight.dtype)
    return call("aclnnEmbedding", weight=weight, indices=indices, out=out)["out"]
