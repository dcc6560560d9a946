"""The shape of an operator: one declaration and three functions, `check` → `workspace` → `compute`.

An aclnn operator subclasses AclnnOp. Its phase-1 parameters arrive by the names the header gives
them (the bridge reads those from the generated entry-point table), tensors as TensorDesc or None;
`inputs`/`outputs` name which tensors are which, in the order aclSetInputTensorAddr /
aclSetOutputTensorAddr count them."""
import os
import sys

from opemu.core import status

OPS = {}


class Args:
    """Phase-1 arguments by parameter name (a mapping or (name, value) pairs); an op may add what it derives
    in check."""

    def __init__(self, values):
        self.__dict__.update(values)

    def __repr__(self):
        return "Args(%s)" % ", ".join("%s=%r" % kv for kv in self.__dict__.items())


class AclnnOp:
    name = None       # the phase-2 entry point, e.g. "aclnnEmbedding"
    inputs = ()       # tensor parameters read by the kernel
    outputs = ()      # tensor parameters written by the kernel
    products = "all"  # which products support it (docs/SUPPORT.md); the check enforces it
    shape_outputs = ()  # outputs whose shape the data decides (Nonzero, Unique): compute returns {name: shape}
    restyles = False  # check sets a.restyle = {tensor: (format, storage shape)}: phase 1 rewrites the app's
    #                   aclTensor so (aclnnTransMatmulWeight's ND weight becomes FRACTAL_NZ)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.name:
            OPS[cls.name] = cls()

    def dtype_table(self):
        """{tensor parameter: accepted aclDataType codes} on the current product (docs/SUPPORT.md)."""
        return {}

    def check(self, a):
        """Raise status.VendorError as the vendor's phase 1 would, in the vendor's order."""
        raise NotImplementedError

    def workspace(self, a):
        """Bytes of device workspace compute really uses."""
        return 0

    def compute(self, a, v, workspace):
        """Run the kernel: `v` has a NumPy view per tensor name, `workspace` the scratch bytes. An op with
        `shape_outputs` returns their shapes as the kernel leaves them ({name: shape}): the app's aclTensors then
        describe them (contiguous), as aclGetViewShape reads them after the vendor's kernel ran."""
        raise NotImplementedError

    def prepare(self, a, v):
        """compute(a, v, no workspace) as a call without arguments, or None. The bridge asks once per views
        dict it keeps (the same buffers and layouts, while no device memory went away) and thread, and makes
        that call instead of compute's next ones there: what an app repeating a small call on the same
        buffers pays for. The call may hold the thread's scratch buffers, never another thread's."""
        return None


_ENVIRON = getattr(os.environ, "_data", None)  # os.environ's bytes-keyed store (CPython): no str<->bytes per read
_ENCODING = sys.getfilesystemencoding()       # how os.environ decodes it


def soc():
    """The product, read at every call (tests and apps change OPEMU_SOC between calls); every phase 1 asks,
    so the read skips os.environ's key encoding where it can."""
    if _ENVIRON is None:
        return os.environ.get("OPEMU_SOC") or "Ascend910B1"
    value = _ENVIRON.get(b"OPEMU_SOC")
    return value.decode(_ENCODING, "surrogateescape") if value else "Ascend910B1"


# The Ascend 950 line: every product named Ascend950*, Ascend910_95* or Ascend910_96* has its tables.
LINE_950 = ("Ascend950", "Ascend910_95", "Ascend910_96")


def soc_is_a2_a3():
    """Atlas A2/A3 (opbase's is910BSocVersion: DAV_2201 and the regbase 950 parts)."""
    return soc().startswith(("Ascend910B", "Ascend910_93") + LINE_950)


def unsupported_platform(op_name):
    return status.runtime_error("%s is not supported on %s." % (op_name, soc()))
