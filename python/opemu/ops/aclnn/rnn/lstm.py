"""aclnnLSTM (ops-nn rnn/dynamic_rnn op_api), aclnnBidirectionLSTM and aclnnBidirectionLSTMV2 (rnn/bidirection_lstm,
bidirection_lstmv2: opbuild operators of the Atlas inference line, fp16): PyTorch's multi-layer LSTM.

    per layer and direction (recurrence.py): gates = x·W_ihᵀ + h·W_hhᵀ + b_ih + b_hh in the order (i, f, g, o);
    c = f·c + i·g, h = o·tanh(c); a layer's input is the previous layer's output (both directions concatenated)

LSTM: params = [w_ih, w_hh, (b_ih, b_hh)] per layer and direction (forward first); hx = [h0, c0] of
(D·numLayers, B, H), or empty/null for zeros; batchSizes (packed): the sequences' lengths as batch sizes per step,
input (T·B, I) or (T, B, I) laid out as (T, B, I). With train the per-layer activations go to iOut (i), jOut (g),
fOut, oOut, hOut, cOut, tanhCOut, each (T, B, H), one per layer and direction. dropout is not applied (the vendor
does not support it). BidirectionLSTM: one layer, its weights as separate tensors; V2 adds packed sequences
(batchSizeOptional, INT32 lengths per step, when packed)."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import opbuild
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.rnn import recurrence

DTYPES = P.codes("FLOAT FLOAT16")
GATE_LISTS = ("iOut", "jOut", "fOut", "oOut", "hOut", "cOut", "tanhCOut")
SAVED = dict(zip(GATE_LISTS, ("i", "g", "f", "o", "h", "c", "tanhc")))
LIST_NAMES = dict(zip(GATE_LISTS, ("output_i", "output_j", "output_f", "output_o", "output_h", "output_c",
                                    "output_tanhc")))


def run_layers(x, layers, h0, c0, lengths, dtype):
    """x (T, B, I) fp32; layers: per layer a list of (w_ih, w_hh, bias, reverse) per direction; h0/c0
    (L·D, B, H). Returns y (T, B, D·H), hy, cy (L·D, B, H) and the saved activations per layer and direction."""
    hy, cy, saved = [], [], []
    k = 0
    for directions in layers:
        outputs = []
        for w_ih, w_hh, bias, reverse in directions:
            y, h, c, acts = recurrence.lstm_direction(x, h0[k], c0[k], w_ih, w_hh, bias, reverse, lengths, dtype)
            acts["h"] = y
            outputs.append(y)
            hy.append(h)
            cy.append(c)
            saved.append(acts)
            k += 1
        x = np.concatenate(outputs, axis=2)
    return x, np.stack(hy), np.stack(cy), saved


def _bias(b_ih, b_hh):
    if b_ih is None:
        return None
    return b_ih.astype(np.float32) + b_hh.astype(np.float32)


class RecurrentLayers(AclnnOp):
    """The phase 1 LSTM and GRU share (the dynamic_rnn and gru op_api files): nulls (the activation lists when
    train), dtypes, the list lengths, then the shapes of the params, states, output and activation lists."""
    gates = 4
    states = ("hy", "cy")
    lists = GATE_LISTS
    labels = LIST_NAMES
    direction_flag = "bidirectional"
    LINES = ("910", "A2", "A3", "950", "310P")
    products = _products.describe(LINES)

    def dtype_table(self):
        table = dict.fromkeys(("input", "params", "hx", "output") + self.states + self.lists, DTYPES)
        table["batchSizes"] = P.codes("INT64")
        return table

    def hx_list(self, a):
        return a.hx or ()

    def check(self, a):
        checks.not_null(a, "input", "params", "output", *self.states)
        if a.train:
            checks.not_null(a, *self.lists)
        checks.dtype_in("input", a.input, DTYPES)
        dtype = a.input.dtype
        for t in a.params:
            checks.dtype_match("params", t, dtype)
        for t in self.hx_list(a):
            checks.dtype_match("hx", t, dtype)
        for name in ("output",) + self.states:
            checks.dtype_match(name, getattr(a, name), dtype)
        if a.train:
            for name in self.lists:
                for t in getattr(a, name):
                    checks.dtype_match(name, t, dtype)
        directions = 2 if getattr(a, self.direction_flag) else 1
        per_direction = 4 if a.hasBias else 2
        count = a.numLayers * directions
        if len(a.params) != per_direction * count:
            raise status.param_invalid("The number of tensors required for the params lists should be %d, but %d "
                                       "was obtained." % (per_direction * count, len(a.params)))
        self.check_state_arguments(a)
        if a.train:
            for name in self.lists:
                if len(getattr(a, name)) != count:
                    raise status.param_invalid("The number of tensors required for the %s lists should be %d, but %d "
                                               "was obtained." % (self.labels[name], count, len(getattr(a, name))))
        self._check_shapes(a, directions, per_direction, count)
        _products.check_supported(self.name, self.LINES)

    def check_state_arguments(self, a):
        if len(self.hx_list(a)) not in (0, 2):
            raise status.param_invalid("The number of tensors required for the hx lists should be 2 or 0, but %d "
                                       "was obtained." % len(self.hx_list(a)))

    def _check_shapes(self, a, directions, per_direction, count):
        x = a.input
        if a.batchSizes is not None:
            steps = a.batchSizes.numel()
            if steps == 0:
                raise status.param_invalid("batchSizes should not be empty when it is a non-null pointer.")
            rows = x.numel() // max(x.shape[-1], 1)
            if rows % steps:
                raise status.param_invalid("input %s does not hold %d steps of the packed batch"
                                           % (checks.shape_text(x.shape), steps))
            batch = rows // steps
        else:
            checks.dim_is("input", x, 3)
            batch, steps = (x.shape[0], x.shape[1]) if a.batchFirst else (x.shape[1], x.shape[0])
        features = x.shape[-1]
        checks.dim_is("params", a.params[1], 2)
        hidden = a.params[1].shape[1]
        width = self.gates * hidden
        for layer in range(a.numLayers):
            inputs = features if layer == 0 else directions * hidden
            for d in range(directions):
                base = (layer * directions + d) * per_direction
                shapes = [(width, inputs), (width, hidden)] + [(width,)] * (per_direction - 2)
                for k, shape in enumerate(shapes):
                    checks.shape_is("params[%d]" % (base + k), a.params[base + k], shape, checks.shape_text(shape))
        state = (count, batch, hidden)
        for k, t in enumerate(self.hx_list(a)):
            checks.shape_is("hx[%d]" % k, t, state, checks.shape_text(state))
        out_shape = ((batch, steps) if a.batchFirst and a.batchSizes is None else (steps, batch)) + (
            directions * hidden,)
        checks.shape_is("output", a.output, out_shape, checks.shape_text(out_shape))
        for name in self.states:
            checks.shape_is(name, getattr(a, name), state, checks.shape_text(state))
        if a.train:
            for name in self.lists:
                for t in getattr(a, name):
                    checks.shape_is(name, t, (steps, batch, hidden), checks.shape_text((steps, batch, hidden)))
        a.geometry = (steps, batch, features, hidden, directions, per_direction, count)

    def sequence(self, a, v):
        """The input as (T, B, I) fp32 and the per-sequence lengths (None unless packed)."""
        steps, batch, features = a.geometry[:3]
        x = np.asarray(v["input"], np.float32)
        if v.get("batchSizes") is not None:
            return x.reshape(steps, batch, features), recurrence.lengths_of(v["batchSizes"], batch)
        return (x.transpose(1, 0, 2) if a.batchFirst else x), None

    def store_output(self, a, v, y, lengths):
        P.store(v["output"], y.transpose(1, 0, 2) if a.batchFirst and lengths is None else y)

    def weights(self, a, v):
        """Per layer, per direction: (w_ih, w_hh, b_ih, b_hh, reverse)."""
        steps, batch, features, hidden, directions, per_direction, count = a.geometry
        params = v["params"]
        layers = []
        for layer in range(a.numLayers):
            entries = []
            for d in range(directions):
                base = (layer * directions + d) * per_direction
                b_ih, b_hh = (params[base + 2], params[base + 3]) if a.hasBias else (None, None)
                entries.append((params[base], params[base + 1], b_ih, b_hh, d == 1))
            layers.append(entries)
        return layers


class LSTM(RecurrentLayers):
    name = "aclnnLSTM"
    inputs = ("input", "params", "hx", "batchSizes")
    outputs = ("output", "hy", "cy") + GATE_LISTS

    def compute(self, a, v, workspace):
        steps, batch, features, hidden, directions, per_direction, count = a.geometry
        x, lengths = self.sequence(a, v)
        layers = [[(w_ih, w_hh, _bias(b_ih, b_hh), reverse) for w_ih, w_hh, b_ih, b_hh, reverse in entries]
                  for entries in self.weights(a, v)]
        hx = v.get("hx") or []
        zeros = np.zeros((count, batch, hidden), np.float32)
        h0, c0 = (hx[0], hx[1]) if len(hx) == 2 else (zeros, zeros)
        y, hy, cy, saved = run_layers(x, layers, np.asarray(h0, np.float32), np.asarray(c0, np.float32), lengths,
                                      v["output"].dtype)
        self.store_output(a, v, y, lengths)
        P.store(v["hy"], hy)
        P.store(v["cy"], cy)
        if a.train:
            for name in GATE_LISTS:
                for k, target in enumerate(v.get(name) or ()):
                    P.store(target, saved[k][SAVED[name]])


class BidirectionLSTM(AclnnOp):
    name = "aclnnBidirectionLSTM"
    inputs = ("x", "initH", "initC", "wIh", "wHh", "bIhOptional", "bHhOptional", "wIhReverseOptional",
              "wHhReverseOptional", "bIhReverseOptional", "bHhReverseOptional")
    outputs = ("yOut", "outputHOut", "outputCOut")
    LINES = ("310P",)
    products = _products.describe(LINES)
    packed_form = False

    def dtype_table(self):
        table = dict.fromkeys(self.inputs + self.outputs, P.codes("FLOAT16"))
        if self.packed_form:
            table["batchSizeOptional"] = P.codes("INT32")
        return table

    def check(self, a):
        names = list(BidirectionLSTM.inputs) + list(self.outputs)
        combos = [tuple(P.codes("FLOAT16") * len(names))]
        if self.packed_form:
            names.append("batchSizeOptional")
            combos = [combos[0] + tuple(P.codes("INT32"))]
        opbuild.check(self.name, a, names, combos, self.LINES)
        op = self.name[len("aclnn"):]
        if a.numLayers != 1:
            raise opbuild.tiling_error(op, "numLayers %d is not supported, only 1" % a.numLayers)
        if a.batchFirst:
            raise opbuild.tiling_error(op, "batchFirst is not supported")
        if a.bidirection and (a.wIhReverseOptional is None or a.wHhReverseOptional is None):
            raise opbuild.tiling_error(op, "bidirection needs wIhReverse and wHhReverse")
        if a.isbias and (a.bIhOptional is None or a.bHhOptional is None or (a.bidirection and (
                a.bIhReverseOptional is None or a.bHhReverseOptional is None))):
            raise opbuild.tiling_error(op, "isbias needs every bias")
        for name in ("x", "initH", "initC", "yOut", "outputHOut", "outputCOut"):
            if getattr(a, name).ndim != 3:
                raise opbuild.tiling_error(op, "%s must be 3-D" % name)
        steps, batch, features = a.x.shape
        hidden = a.wHh.shape[-1]
        directions = 2 if a.bidirection else 1
        expected = {"wIh": (4 * hidden, features), "wHh": (4 * hidden, hidden), "initH": (directions, batch, hidden),
                    "initC": (directions, batch, hidden), "yOut": (steps, batch, directions * hidden),
                    "outputHOut": (directions, batch, hidden), "outputCOut": (directions, batch, hidden)}
        if a.isbias:
            expected.update(bIhOptional=(4 * hidden,), bHhOptional=(4 * hidden,))
        if a.bidirection:
            expected.update(wIhReverseOptional=expected["wIh"], wHhReverseOptional=expected["wHh"])
            if a.isbias:
                expected.update(bIhReverseOptional=(4 * hidden,), bHhReverseOptional=(4 * hidden,))
        for name, shape in expected.items():
            if tuple(getattr(a, name).shape) != shape:
                raise opbuild.tiling_error(op, "%s %s must be %s" % (name, checks.shape_text(getattr(a, name).shape),
                                                                      checks.shape_text(shape)))
        if self.packed_form and a.packed:
            if a.batchSizeOptional is None or a.batchSizeOptional.numel() != steps:
                raise opbuild.tiling_error(op, "packed needs batchSize with one size per step")
        a.directions = directions

    def compute(self, a, v, workspace):
        x = np.asarray(v["x"], np.float32)
        bias = _bias(v.get("bIhOptional"), v.get("bHhOptional")) if a.isbias else None
        directions = [(v["wIh"], v["wHh"], bias, False)]
        if a.bidirection:
            reverse_bias = _bias(v.get("bIhReverseOptional"), v.get("bHhReverseOptional")) if a.isbias else None
            directions.append((v.get("wIhReverseOptional"), v.get("wHhReverseOptional"), reverse_bias, True))
        lengths = None
        if self.packed_form and a.packed:
            lengths = recurrence.lengths_of(v.get("batchSizeOptional"), x.shape[1])
        y, hy, cy, _ = run_layers(x, [directions], np.asarray(v["initH"], np.float32),
                                  np.asarray(v["initC"], np.float32), lengths, v["yOut"].dtype)
        P.store(v["yOut"], y)
        P.store(v["outputHOut"], hy)
        P.store(v["outputCOut"], cy)


class BidirectionLSTMV2(BidirectionLSTM):
    name = "aclnnBidirectionLSTMV2"
    inputs = BidirectionLSTM.inputs + ("batchSizeOptional",)
    packed_form = True

    def dtype_table(self):
        table = dict.fromkeys(BidirectionLSTM.inputs + self.outputs, P.codes("FLOAT16"))
        table["batchSizeOptional"] = P.codes("INT32")
        return table
