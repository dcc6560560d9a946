"""The aclnn operators on NumPy arrays, without a device: golden references and quick experiments.

    import numpy as np
    import opemu.api as api
    from opemu.core import dtypes

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.empty_like(x)
    api.call("aclnnAdds", self=x, other=api.Scalar.of(2.0, dtypes.acl("FLOAT")), alpha=api.Scalar.of(1), out=y)
    api.call("aclnnCat", tensors=[x, x], dim=0, out=np.empty((4, 3), np.float32))  # a tensor list: a list
    api.embedding(weight, indices)           # a shortcut for aclnnEmbedding
    api.operators()                          # every operator opemu implements, by name
    api.parameters("aclnnAdds")              # its arguments as the vendor's header names them

`call` takes the arguments of the operator's aclnnXxxGetWorkspaceSize by the header's names (tensors
as NumPy arrays, outputs preallocated, an optional tensor as None or left out), runs its checks exactly
as phase 1 does and its kernel as phase 2 does, and returns {output name: array}. Errors:
  * UnknownOperator: no operator of that name is implemented (the message names close ones);
  * TypeError: an argument the operator does not take, or one it needs left out (named);
  * VendorError: what the vendor's checks refuse, with its status code and message.
"""
import difflib

import numpy as np

from opemu import implemented, ops
from opemu.core.op import Args
from opemu.core.scalar import Scalar
from opemu.core.status import VendorError
from opemu.core.tensor import TensorDesc
from opemu.ops.aclnn import declared

__all__ = ["call", "embedding", "operators", "parameters", "Scalar", "UnknownOperator", "VendorError"]
# Parameters an app may pass as a null pointer: every tensor-like kind (the operator's check decides
# whether null is allowed, as phase 1 does).
_NULLABLE = ("aclTensor", "aclTensorList", "aclScalar", "aclScalarList", "aclIntArray", "aclFloatArray",
             "aclBoolArray")


class UnknownOperator(LookupError):
    """No aclnn operator of this name is implemented by opemu."""


def operators():
    """The names of every aclnn operator opemu implements, sorted."""
    return sorted(implemented.aclnn_modules())


def parameters(op_name):
    """The operator's arguments as (name, kind) in the header's order (kind: aclTensor, aclScalar,
    aclTensorList, aclIntArray, … or value)."""
    _operator(op_name)
    return declared.operator(op_name).parameters


def _operator(op_name):
    op = ops.aclnn_operator(op_name)
    if op is None:
        close = difflib.get_close_matches(op_name, operators(), n=3)
        raise UnknownOperator("%s is not an aclnn operator opemu implements%s (opemu.api.operators() lists them)"
                              % (op_name, "; did you mean %s?" % ", ".join(close) if close else ""))
    return op


def _describe(value):
    if isinstance(value, (list, tuple)):
        return tuple(None if v is None else TensorDesc.from_array(v) for v in value)
    return TensorDesc.from_array(value)


def _arrays(desc):
    return [None if d is None else d.array for d in desc] if isinstance(desc, tuple) else desc.array


def _arguments(op_name, op, arguments):
    kinds = dict(parameters(op_name))
    unexpected = sorted(set(arguments) - set(kinds))
    if unexpected:
        raise TypeError("%s() got unexpected argument(s) %s; it takes %s" % (
            op_name, ", ".join(unexpected), ", ".join(kinds)))
    missing = [name for name, kind in kinds.items() if name not in arguments and kind not in _NULLABLE]
    if missing:
        raise TypeError("%s() missing argument(s): %s" % (op_name, ", ".join(missing)))
    tensors = set(op.inputs + op.outputs)
    values = {name: arguments.get(name) for name in kinds}
    return Args({name: (_describe(value) if name in tensors and value is not None else value)
                 for name, value in values.items()}), tensors


def call(op_name, workspace=None, **arguments):
    """Run operator `op_name` (e.g. "aclnnEmbedding") on NumPy arrays; returns {output name: array}.
    `workspace` (a uint8 array) is reused when it is large enough, as an app reuses device memory."""
    op = _operator(op_name)
    a, tensors = _arguments(op_name, op, arguments)
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
