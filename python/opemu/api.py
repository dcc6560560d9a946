"""The same kernels on NumPy arrays, for golden references and quick experiments.

    import numpy as np, opemu.api
    out = opemu.api.embedding(weight, indices)
    opemu.api.call("aclnnEmbedding", weight=w, indices=i, out=o)   # any registered op, by header names
    opemu.api.call("aclnnAdds", self=x, other=Scalar.of(2.0, dtypes.acl("FLOAT")), alpha=Scalar.of(1), out=y)
    opemu.api.call("aclnnCat", tensors=[a, b], dim=0, out=c)          # a tensor list is a list of arrays

Checks run exactly as in phase 1 and raise opemu.api.VendorError with the vendor's code/message.
"""
import numpy as np

from opemu import ops
from opemu.core.op import Args
from opemu.core.scalar import Scalar
from opemu.core.status import VendorError
from opemu.core.tensor import TensorDesc

__all__ = ["call", "embedding", "Scalar", "VendorError"]


def _describe(value):
    if isinstance(value, (list, tuple)):
        return tuple(None if v is None else TensorDesc.from_array(v) for v in value)
    return TensorDesc.from_array(value)


def _arrays(desc):
    return [None if d is None else d.array for d in desc] if isinstance(desc, tuple) else desc.array


def call(op_name, workspace=None, **arguments):
    """Run operator `op_name` (e.g. "aclnnEmbedding"); tensor arguments are NumPy arrays.
    `workspace` (a uint8 array) is reused when it is large enough, as an app reuses device memory."""
    op = ops.aclnn_operator(op_name)
    if op is None:
        raise KeyError(op_name)
    tensors = set(op.inputs + op.outputs)
    a = Args({name: (_describe(value) if name in tensors and value is not None else value)
              for name, value in arguments.items()})
    for name in tensors:
        a.__dict__.setdefault(name, None)
    op.check(a)
    views = {name: _arrays(getattr(a, name)) for name in tensors if getattr(a, name) is not None}
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
