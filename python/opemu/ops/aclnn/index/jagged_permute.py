"""aclnnExpandIntoJaggedPermute (ops-nn index/expand_into_jagged_permute, an opbuild operator of Atlas A2/A3):
FBGEMM's expand_into_jagged_permute, a table-level permutation expanded to the batch level.

    for each i: out[outputOffset[i] : outputOffset[i + 1]] = arange(inputOffset[permute[i]], … + that length)

All INT32. The tiling checks the ranks (1-D) and that both offset arrays have one more element than permute.
Offsets and permutation values are data: a segment that reaches past out, or a permute value past inputOffset,
addresses memory out of the tensors, which opemu reports as an access fault with nothing written."""
import numpy as np

from opemu.core import device, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import opbuild
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

INT32 = P.codes("INT32")
LINES = ("A2", "A3")
TILING = "[ExpandIntoJaggedPermuteTilingData] "


class ExpandIntoJaggedPermute(AclnnOp):
    name = "aclnnExpandIntoJaggedPermute"
    inputs = ("permute", "inputOffset", "outputOffset")
    outputs = ("outputPermuteOut",)
    products = _products.describe(LINES)

    def dtype_table(self):
        return dict.fromkeys(self.inputs + self.outputs, INT32)

    def check(self, a):
        names = self.inputs + self.outputs
        opbuild.check(self.name, a, names, [tuple(INT32 * len(names))], LINES)
        op = "ExpandIntoJaggedPermute"
        for name, label in (("permute", "permuteShape"), ("inputOffset", "inputoffsetShape"),
                            ("outputOffset", "outputoffsetShape")):
            if getattr(a, name).ndim != 1:
                raise opbuild.tiling_error(op, TILING + "%s's shape is not 1D." % label)
        if a.inputOffset.shape[0] != a.permute.shape[0] + 1 or a.outputOffset.shape[0] != a.permute.shape[0] + 1:
            raise opbuild.tiling_error(op, TILING + "outputoffsetShape and inputoffsetShape should be one more than "
                                                    "permuteShape.")

    def compute(self, a, v, workspace):
        permute = np.asarray(v["permute"], np.int64)
        starts_in = np.asarray(v["inputOffset"], np.int64)
        offsets = np.asarray(v["outputOffset"], np.int64)
        out = v["outputPermuteOut"].reshape(-1)
        lengths = offsets[1:] - offsets[:-1]
        if permute.size and (permute.min() < 0 or permute.max() >= starts_in.size or offsets.min() < 0
                             or offsets.max() > out.size or (lengths < 0).any()):
            raise device.DeviceFault(status.ACL["ACL_ERROR_RT_AICORE_EXCEPTION"],
                                     "%s: a permute value or an output offset addresses memory outside the tensors"
                                     % self.name)
        values = np.repeat(starts_in[permute] - offsets[:-1], lengths) + np.arange(offsets[0], offsets[-1])
        out[offsets[0]:offsets[-1]] = values
