"""The products of the vocab-parallel operators: logits = input @ weight_chunkᵀ, inputGrad += G @ weight_chunk and
weightGrad_chunk = Gᵀ @ input, each on a core's own row blocks (logits, inputGrad) or share of the chunk's columns
(weightGrad), for whichever half-precision type the operands are.

* fp16 (`Widened`): fp32 copies of input and the weight chunk, products by OpenBLAS (opemu.core.blas), as NumPy
  forms them. OpenBLAS's sgemm runs near this host's fp32 peak.
* bf16 (`Paired`): the bf16 product kernel (opemu.core.bf16_product: fp32 sums in a fixed order, the bf16 dot
  product instruction's), about twice as fast. Operands are packed into the kernel's panels of
  element pairs: the input once a call (its pairs of rows for weightGrad; its rows for the logits, which
  FusedLinearCrossEntropyLossGrad packs a row block at a time instead), the weight chunk both ways by the cores
  half each, and G for both products as its tiles are made. Row blocks start at multiples of the panels' rows,
  so a block's panels are a slice of the input's. With
  OPEMU_KERNELS=numpy the same sums come from bf16_product.reference, which reads the operands as they lie.

Both keep every buffer in the workspace the operator asked for in phase 1 (`layout`)."""
import numpy as np

from opemu.core import bf16_product, blas, kernels, rounding
from opemu.ops.aclnn.matmul import vocab_parallel as vp

# rows of a block, a multiple of 12 panel rows: FusedLinearOnlineMaxSum's 252 × 512 fp32 tile stays in a core's L2
# for the epilogue; FLCE's 1024 columns wide do not, yet its blocks of 132 or 180 rows were no faster
PAIRED_BLOCK_ROWS = 252
WEIGHT_GRAD_PIECE = 96    # columns of a chunk's weightGrad made at a time (8 panels), into a lane's fp32 buffer


def for_dtype(half):
    return Paired if np.dtype(half) == rounding.BF16 else Widened


def _alternately(first, second):
    """The pieces of two halves, listed in turn so that of two lanes (lane i takes pieces i, i + lanes, ...) lane 0
    takes the second half, the one with a last, partial panel, and lane 1 the first; any other number of lanes
    takes them all the same. Lane 0 runs on the calling thread; this way round the three operators' calls came out
    0.5-2.6 % faster (medians of 5-8 interleaved calls), and the waits at the meets moved to lane 1."""
    return [piece for pair in zip(second, first) for piece in pair] + second[len(first):] + first[len(second):]


class Widened:
    """fp16 operands: fp32 copies, OpenBLAS products."""

    wide_chunks = False   # memory-saving chunks of VOCAB_CHUNK: an fp32 G and weightGrad chunk twice as wide would
                          # pass its 25 MiB

    @staticmethod
    def row_blocks(rows, columns):
        return vp.row_blocks(rows, columns)

    @staticmethod
    def layout(layout, bt, h, chunk, lanes, block, grads, logits=True):
        """Buffers for a call: `grads` for FusedLinearCrossEntropyLossGrad (one chunk the lanes share, G whole;
        `logits` unless high-performance mode), else FusedLinearOnlineMaxSum's (a chunk and a logits tile of
        `block` rows per lane)."""
        layout.add("input", (bt, h), np.float32)
        if not grads:
            return layout.add("weight", (lanes, h, chunk), np.float32).add("tiles", (lanes, block * chunk), np.float32)
        return (layout.add("weight", (h, chunk), np.float32).add("weight_grad", (chunk, h), np.float32)
                .add("g", (bt, chunk), np.float32))

    def __init__(self, s, x, weight, blocks, lanes):
        self.s, self.x_half, self.weight, self.blocks, self.lanes = s, x, weight, blocks, lanes
        self.x = s["input"]
        self.w = [None] * lanes

    def input_share(self, lane):
        for r0, r1 in self.blocks[lane::self.lanes]:
            vp.to_f32(self.x_half[r0:r1], self.x[r0:r1])

    def own_weight(self, lane, c0, c1):
        """Lane `lane`'s own fp32 copy of chunk [c0, c1), H × chunk (vp.to_f32_transposed says why)."""
        self.w[lane] = vp.to_f32_transposed(self.weight[c0:c1], self.s["weight"][lane][:, :c1 - c0])

    def weight_share(self, lane, c0, c1, logits):
        """This lane's half of the chunk's shared copy; the lanes meet before they use it."""
        w = self.s["weight"][:, :c1 - c0]
        for p0, p1 in vp.halves(c1 - c0)[lane::self.lanes]:
            vp.to_f32_transposed(self.weight[c0 + p0:c0 + p1], w[:, p0:p1])
        self.w[lane] = w

    def tile(self, lane, r0, r1, width):
        if "g" in self.s:
            return self.s["g"][r0:r1, :width]
        return self.s["tiles"][lane][:(r1 - r0) * width].reshape(r1 - r0, width)

    def logits(self, lane, out, r0, r1):
        blas.product(out, self.x[r0:r1], self.w[lane])

    def add_input_grad(self, lane, dx, g, r0, r1):
        blas.product(dx, g, self.w[lane].T, accumulate=True)

    def weight_grad_shares(self, width):
        return vp.halves(width)

    def weight_grad(self, lane, p0, p1, out):
        """out = columns [p0, p1) of the chunk's weightGrad, in out's (half) type."""
        dw = self.s["weight_grad"][p0:p1]
        blas.product(dw, self.s["g"][:, p0:p1].T, self.x)
        np.copyto(out, dw, casting="unsafe")


ROWS, COLS = bf16_product.PANEL_ROWS, bf16_product.PANEL_COLS


class Paired:
    """bf16 operands: the bf16 product kernel on packed pairs, or its NumPy twin."""

    # Memory-saving mode in chunks as wide as high-performance's: inputGrad's rows are read and written, and the
    # lanes meet, half as often (1.170 -> 1.096 s, medians of 5 interleaved calls). Its buffers then stay within
    # 25 MiB because the gradient packs the input's row blocks as it goes and makes weightGrad in pieces.
    wide_chunks = True

    @staticmethod
    def row_blocks(rows, columns):
        """The rows in two near-equal halves of whole panels (the lanes' shares when two cores walk them), each in
        near-equal blocks of at most PAIRED_BLOCK_ROWS rows, listed alternately; every block starts at a multiple
        of the panels' rows. The bits do not depend on the blocks."""
        panels = -(-rows // ROWS)
        halves = []
        for first, count in ((0, panels // 2), (panels // 2, panels - panels // 2)):
            pieces = max(1, -(-count * ROWS // PAIRED_BLOCK_ROWS))
            cuts = [first + count * i // pieces for i in range(pieces + 1)]
            halves.append([(min(rows, a * ROWS), min(rows, b * ROWS)) for a, b in zip(cuts[:-1], cuts[1:]) if b > a])
        return _alternately(*halves)

    @staticmethod
    def layout(layout, bt, h, chunk, lanes, block, grads, logits=True):
        words = bf16_product.panel_words
        if logits and grads:   # each lane packs its row block as it comes
            layout.add("block_rows", (lanes, words(block, h, ROWS)), np.uint32)
        elif logits:
            layout.add("input_rows", (words(bt, h, ROWS),), np.uint32)
        if logits:
            layout.add("weight_columns", (1 if grads else lanes, words(chunk, h, COLS)), np.uint32)
        layout.add("tiles", (lanes, block * chunk), np.float32)
        if grads:
            (layout.add("input_pairs", (words(h, bt, COLS),), np.uint32)
             .add("weight_pairs", (words(h, chunk, COLS),), np.uint32)
             .add("g_rows", (lanes, words(block, chunk, ROWS)), np.uint32)
             .add("g_pairs", (words(chunk, bt, ROWS),), np.uint32)
             .add("weight_grad", (lanes, min(chunk, WEIGHT_GRAD_PIECE) * h), np.float32))
        return layout

    def __init__(self, s, x, weight, blocks, lanes):
        self.s, self.x, self.weight, self.blocks, self.lanes = s, x, weight, blocks, lanes
        self.packed = kernels.lib() is not None
        self.bt, self.h = x.shape
        self.chunk = [None] * lanes   # each lane's (c0, c1)
        self.shared = "g_pairs" in s

    def input_share(self, lane):
        if not self.packed:
            return
        h_pairs, bt_pairs = bf16_product.pairs(self.h), bf16_product.pairs(self.bt)
        for r0, r1 in self.blocks[lane::self.lanes]:
            if "input_rows" in self.s:
                bf16_product.pack(self.x[r0:r1], ROWS, self.s["input_rows"][r0 * h_pairs:], h_pairs, 0)
            if self.shared:
                bf16_product.pack(self.x[r0:r1].T, COLS, self.s["input_pairs"], bt_pairs, r0 // 2)

    def own_weight(self, lane, c0, c1):
        self.chunk[lane] = (c0, c1)
        if self.packed:
            bf16_product.pack(self.weight[c0:c1], COLS, self.s["weight_columns"][lane], bf16_product.pairs(self.h), 0)

    def weight_share(self, lane, c0, c1, logits):
        self.chunk[lane] = (c0, c1)
        if not self.packed:
            return
        h_pairs, chunk_pairs = bf16_product.pairs(self.h), bf16_product.pairs(c1 - c0)
        for p0, p1 in vp.halves(c1 - c0, COLS)[lane::self.lanes]:
            rows = self.weight[c0 + p0:c0 + p1]
            if logits:
                bf16_product.pack(rows, COLS, self.s["weight_columns"][0][p0 * h_pairs:], h_pairs, 0)
            bf16_product.pack(rows.T, COLS, self.s["weight_pairs"], chunk_pairs, p0 // 2)

    def tile(self, lane, r0, r1, width):
        return self.s["tiles"][lane][:(r1 - r0) * width].reshape(r1 - r0, width)

    def logits(self, lane, out, r0, r1):
        c0, c1 = self.chunk[lane]
        if not self.packed:
            out[...] = bf16_product.reference(self.x[r0:r1], self.weight[c0:c1].T)
            return
        h_pairs = bf16_product.pairs(self.h)
        columns = self.s["weight_columns"][0 if self.shared else lane]
        if "input_rows" in self.s:
            rows = self.s["input_rows"][r0 * h_pairs:]
        else:
            rows = self.s["block_rows"][lane]
            bf16_product.pack(self.x[r0:r1], ROWS, rows, h_pairs, 0)
        bf16_product.product(r1 - r0, c1 - c0, h_pairs, rows, columns, out)

    def _g_whole(self, width):
        """The twin's G, all rows, in bf16 (which holds it exactly), in the bytes the kernel's G pairs take."""
        return self.s["g_pairs"].view(rounding.BF16)[:self.bt * width].reshape(self.bt, width)

    def add_input_grad(self, lane, dx, g, r0, r1):
        """dx += G @ weight chunk for rows [r0, r1), whose G tile is g (fp32 holding bf16 values); G is kept for
        weightGrad."""
        c0, c1 = self.chunk[lane]
        if not self.packed:
            bf16_product.reference(g, self.weight[c0:c1], c=dx)
            self._g_whole(c1 - c0)[r0:r1] = g
            return
        g_pairs, bt_pairs = bf16_product.pairs(c1 - c0), bf16_product.pairs(self.bt)
        rows = self.s["g_rows"][lane]
        bf16_product.pack(g, ROWS, rows, g_pairs, 0)
        bf16_product.product(r1 - r0, self.h, g_pairs, rows, self.s["weight_pairs"], dx, accumulate=True)
        bf16_product.pack(g.T, ROWS, self.s["g_pairs"], bt_pairs, r0 // 2)

    def weight_grad_shares(self, width):
        """Pieces of at most WEIGHT_GRAD_PIECE columns (whole panels) of the two halves, alternately. The bits do
        not depend on the pieces."""
        halves = []
        for first, last in vp.halves(width, ROWS):
            cuts = list(range(first, last, WEIGHT_GRAD_PIECE)) + [last]
            halves.append(list(zip(cuts[:-1], cuts[1:])))
        return _alternately(*halves)

    def weight_grad(self, lane, p0, p1, out):
        """out = columns [p0, p1) of the chunk's weightGrad in bf16: rounded by the kernel as it makes each tile, or
        (the twin, or an out whose elements are not side by side or whose rows overlap) in the lane's fp32 buffer,
        then cast."""
        c0, c1 = self.chunk[lane]
        direct = self.packed and bf16_product.writes_into(out)
        dw = out if direct else self.s["weight_grad"][lane][:(p1 - p0) * self.h].reshape(p1 - p0, self.h)
        if self.packed:
            bt_pairs = bf16_product.pairs(self.bt)
            bf16_product.product(p1 - p0, self.h, bt_pairs, self.s["g_pairs"][p0 * bt_pairs:],
                                 self.s["input_pairs"], dw)
        else:
            dw[...] = bf16_product.reference(self._g_whole(c1 - c0)[:, p0:p1].T, self.x)
        if not direct:
            np.copyto(out, dw, casting="unsafe")
