"""aclnnThnnFusedLstmCell and aclnnThnnFusedLstmCellBackward (ops-nn rnn/thnn_fused_lstm_cell, _grad): PyTorch's
_thnn_fused_lstm_cell, the element-wise rest of an LSTM cell after its two matrix products.

    gates = inputGates + hiddenGates (+ inputBias + hiddenBias), split along the last axis into i, f, g, o
    i, f, o = σ(…), g = tanh(…); cy = f·cx + i·g; hy = o·tanh(cy); storage = [i, f, g, o]
    Backward: from gradHy, gradC, the storage, cx and cy: the gradients of the gates before activation
    (gradGates, laid out as the gates), gradCx = (gradHy·o·(1 − tanh²cy) + gradC)·f, gradBias = Σ over the
    batch of gradGates

The gate order is the kernel's (its offsets put f second and g third, PyTorch's order); the docs page lists
[i, g, f, o], the code wins. fp16 is computed in fp32 and rounded once per output."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.rnn.recurrence import expit

DTYPES = P.codes("FLOAT FLOAT16")


class ThnnFusedLstmCell(AclnnOp):
    name = "aclnnThnnFusedLstmCell"
    inputs = ("inputGates", "hiddenGates", "cx", "inputBiasOptional", "hiddenBiasOptional")
    outputs = ("hyOut", "cyOut", "storageOut")

    def dtype_table(self):
        return dict.fromkeys(self.inputs + self.outputs, DTYPES)

    def check(self, a):
        checks.not_null(a, "inputGates", "hiddenGates", "cx")
        if a.inputBiasOptional is not None and a.hiddenBiasOptional is None:
            raise status.param_nullptr("hiddenBias should not be a nullptr when inputBias is set.")
        if a.inputBiasOptional is None and a.hiddenBiasOptional is not None:
            raise status.param_nullptr("inputBias should not be a nullptr when hiddenBias is set.")
        checks.not_null(a, "hyOut", "cyOut", "storageOut")
        a.empty = a.inputGates.is_empty()
        if a.empty:
            return
        bias = a.inputBiasOptional is not None
        for name in ("inputGates", "hiddenGates", "cx"):
            checks.dim_is(name, getattr(a, name), 2)
        if bias:
            checks.dim_is("inputBiasOptional", a.inputBiasOptional, 1)
            checks.dim_is("hiddenBiasOptional", a.hiddenBiasOptional, 1)
        for name in ("hyOut", "cyOut", "storageOut"):
            checks.dim_is(name, getattr(a, name), 2)
        batch, hidden = a.cx.shape
        gates, common = (batch, 4 * hidden), (batch, hidden)
        for name, shape in (("inputGates", gates), ("hiddenGates", gates), ("cx", common)) + (
                (("inputBiasOptional", (4 * hidden,)), ("hiddenBiasOptional", (4 * hidden,))) if bias else ()) + (
                ("hyOut", common), ("cyOut", common), ("storageOut", gates)):
            checks.shape_is(name, getattr(a, name), shape, checks.shape_text(shape))
        checks.dtype_in("inputGates", a.inputGates, DTYPES)
        for name in ("hiddenGates", "cx") + (("inputBiasOptional", "hiddenBiasOptional") if bias else ()) + (
                "hyOut", "cyOut", "storageOut"):
            checks.dtype_match(name, getattr(a, name), a.inputGates.dtype)

    def compute(self, a, v, workspace):
        if a.empty:
            return
        f32 = np.float32
        gates = v["inputGates"].astype(f32) + v["hiddenGates"].astype(f32)
        if v.get("inputBiasOptional") is not None:
            gates += v.get("inputBiasOptional").astype(f32) + v.get("hiddenBiasOptional").astype(f32)
        i, f, g, o = np.split(gates, 4, axis=1)
        i, f, g, o = expit(i), expit(f), np.tanh(g), expit(o)
        cy = f * v["cx"].astype(f32) + i * g
        P.store(v["hyOut"], o * np.tanh(cy))
        P.store(v["cyOut"], cy)
        P.store(v["storageOut"], np.concatenate([i, f, g, o], axis=1))


class ThnnFusedLstmCellBackward(AclnnOp):
    name = "aclnnThnnFusedLstmCellBackward"
    inputs = ("gradHyOptional", "gradCOptional", "cx", "cy", "storage")
    outputs = ("gradGatesOut", "gradCxOut", "gradBiasOut")
    TENSORS = inputs + outputs

    def dtype_table(self):
        return dict.fromkeys(self.TENSORS, DTYPES)

    def check(self, a):
        checks.not_null(a, *self.TENSORS)
        checks.dtype_in("gradHyOptional", a.gradHyOptional, DTYPES)
        base = a.gradHyOptional.dtype
        for name in self.TENSORS[1:]:
            t = getattr(a, name)
            checks.dtype_in(name, t, DTYPES)
            if t.dtype != base:
                raise status.param_invalid("%s tensor dtype inconsistent, expected: %s, actual: %s."
                                           % (name, dtypes.serial_name(base), dtypes.serial_name(t.dtype)))
        checks.dim_is("gradHyOptional", a.gradHyOptional, 2)
        batch, hidden = a.gradHyOptional.shape
        if hidden <= 0 or batch <= 0:
            raise status.param_invalid("gradHyOptional %s must have a positive batch and hidden size."
                                       % checks.shape_text(a.gradHyOptional.shape))
        expected = [("gradCOptional", (batch, hidden)), ("cx", (batch, hidden)), ("cy", (batch, hidden)),
                    ("storage", (batch, 4 * hidden)), ("gradGatesOut", (batch, 4 * hidden)),
                    ("gradCxOut", (batch, hidden))] + ([("gradBiasOut", (4 * hidden,))] if a.hasBias else [])
        for name, shape in expected:
            t = getattr(a, name)
            if t.ndim != len(shape):
                raise status.param_invalid("Input tensor %s has wrong dimension count." % name)
            for k, (want, have) in enumerate(zip(shape, t.shape)):
                if want != have:
                    raise status.param_invalid("Input tensor %s dim %d mismatch." % (name, k))
        for name in self.TENSORS:
            if getattr(a, name).format != dtypes.ACL_FORMAT["ACL_FORMAT_ND"]:
                raise status.param_invalid("%s format only support ND" % name)

    def compute(self, a, v, workspace):
        f32 = np.float32
        dh, dc = v.get("gradHyOptional").astype(f32), v.get("gradCOptional").astype(f32)
        i, f, g, o = np.split(v["storage"].astype(f32), 4, axis=1)
        tanh_c = np.tanh(v["cy"].astype(f32))
        dc_total = dh * o * (1 - tanh_c * tanh_c) + dc
        grad_gates = np.concatenate([dc_total * g * i * (1 - i), dc_total * v["cx"].astype(f32) * f * (1 - f),
                                     dc_total * i * (1 - g * g), dh * tanh_c * o * (1 - o)], axis=1)
        P.store(v["gradGatesOut"], grad_gates)
        P.store(v["gradCxOut"], dc_total * f)
        if a.hasBias:
            P.store(v["gradBiasOut"], grad_gates.sum(axis=0))
