"""aclnnAdvanceStep and aclnnAdvanceStepV2 (ops-nn optim/advance_step): vLLM's advance_step, which moves the
decode state of each sequence one step forward in place (all tensors INT64).

    AdvanceStep    for each query i < numQueries: inputTokens[i] = sampledTokenIds[i]; the position
                   p = seqLens[i] (the old length) goes to inputPositions[i]; seqLens[i] = p + 1;
                   slotMapping[i] = blockTables[i, p // blockSize]·blockSize + p % blockSize (the table read flat,
                   row·stride + block, as the kernel addresses it).
                   Padded sequences numQueries ≤ i < numSeqs get token 0, position 0 and slot −1.
    AdvanceStepV2  speculative decoding with 1 + specNum tokens per request (its system test's reference):
                   positions += repeat(acceptedNum, 1 + specNum) + 1; seqLens = positions + 1; each request's
                   first token is its last accepted sampled token (the one before the first −1), the others
                   its specToken row; slots from each token's request row of blockTables.

Phase 1 (opbuild's generated check and the tiling): nulls → INT64 dtypes → numSeqs ≥ numQueries > 0 and
blockSize > 0 → the tensors' lengths (numSeqs entries; sampledTokenIds numQueries rows)."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P

INT64 = P.codes("INT64")


def _block_numbers(table, rows, blocks):
    """blockTables read as the kernel addresses it, row·stride + block (a block past a row's end reads into the
    next row, as the vendor's example with one column per row does), kept inside the table."""
    flat = table.reshape(-1)
    return flat[np.clip(rows * table.shape[1] + blocks, 0, flat.size - 1)]


class AdvanceStep(AclnnOp):
    name = "aclnnAdvanceStep"
    tensors = ("inputTokens", "sampledTokenIds", "inputPositions", "seqLens", "slotMapping", "blockTables")
    inputs = tensors
    outputs = ("inputTokens", "inputPositions", "seqLens", "slotMapping")

    def dtype_table(self):
        return {name: INT64 for name in self.tensors}

    def check(self, a):
        checks.not_null(a, *self.tensors)
        for name in self.tensors:
            checks.dtype_in(name, getattr(a, name), INT64)
        if not 0 < a.numQueries <= a.numSeqs:
            raise status.param_invalid("numSeqs (%d) must be at least numQueries (%d), and numQueries positive."
                                       % (a.numSeqs, a.numQueries))
        if a.blockSize <= 0:
            raise status.param_invalid("blockSize must be positive, but got %d." % a.blockSize)
        self.check_lengths(a)

    def check_lengths(self, a):
        for name in ("inputTokens", "inputPositions", "seqLens", "slotMapping"):
            if getattr(a, name).numel() < a.numSeqs:
                raise status.param_invalid("%s holds %d elements, fewer than numSeqs %d."
                                           % (name, getattr(a, name).numel(), a.numSeqs))
        if a.sampledTokenIds.numel() < a.numQueries:
            raise status.param_invalid("sampledTokenIds holds %d elements, fewer than numQueries %d."
                                       % (a.sampledTokenIds.numel(), a.numQueries))
        checks.dim_is("blockTables", a.blockTables, 2)
        if a.blockTables.shape[0] < a.numQueries:
            raise status.param_invalid("blockTables has %d rows, fewer than numQueries %d."
                                       % (a.blockTables.shape[0], a.numQueries))

    def compute(self, a, v, workspace):
        n, q, size = a.numSeqs, a.numQueries, a.blockSize
        tokens, positions = v["inputTokens"].reshape(-1), v["inputPositions"].reshape(-1)
        lengths, slots = v["seqLens"].reshape(-1), v["slotMapping"].reshape(-1)
        table = v["blockTables"]
        position = lengths[:q].copy()
        tokens[:q] = v["sampledTokenIds"].reshape(-1)[:q] if v["sampledTokenIds"].ndim < 2 \
            else v["sampledTokenIds"][:q, 0]
        positions[:q] = position
        lengths[:q] = position + 1
        slots[:q] = _block_numbers(table, np.arange(q), position // size) * size + position % size
        tokens[q:n], positions[q:n], slots[q:n] = 0, 0, -1


class AdvanceStepV2(AdvanceStep):
    name = "aclnnAdvanceStepV2"
    tensors = AdvanceStep.tensors + ("specToken", "acceptedNum")
    inputs = tensors

    def check_lengths(self, a):
        checks.dim_is("sampledTokenIds", a.sampledTokenIds, 2)
        checks.dim_is("specToken", a.specToken, 2)
        checks.dim_is("blockTables", a.blockTables, 2)
        per_request = 1 + a.specToken.shape[1]
        if a.sampledTokenIds.shape[0] < a.numSeqs or a.sampledTokenIds.shape[1] != per_request:
            raise status.param_invalid("sampledTokenIds must be (%d, %d), but got %s."
                                       % (a.numSeqs, per_request, checks.shape_text(a.sampledTokenIds.shape)))
        for name in ("inputTokens", "inputPositions", "seqLens", "slotMapping"):
            if getattr(a, name).numel() < a.numSeqs * per_request:
                raise status.param_invalid("%s holds %d elements, fewer than %d."
                                           % (name, getattr(a, name).numel(), a.numSeqs * per_request))
        if a.acceptedNum.numel() < a.numSeqs or a.specToken.shape[0] < a.numSeqs or a.blockTables.shape[0] < a.numSeqs:
            raise status.param_invalid("acceptedNum, specToken and blockTables need numSeqs (%d) rows." % a.numSeqs)

    def compute(self, a, v, workspace):
        n, size = a.numSeqs, a.blockSize
        spec = v["specToken"][:n]
        per_request = 1 + spec.shape[1]
        count = n * per_request
        positions = v["inputPositions"].reshape(-1)
        new_positions = positions[:count] + np.repeat(v["acceptedNum"].reshape(-1)[:n], per_request) + 1
        positions[:count] = new_positions
        v["seqLens"].reshape(-1)[:count] = new_positions + 1
        sampled = v["sampledTokenIds"][:n]
        padded = np.concatenate([sampled, np.full((n, 1), -1, sampled.dtype)], axis=1)
        last = sampled[np.arange(n), np.argmin(padded, axis=1) - 1]
        tokens = v["inputTokens"].reshape(-1)[:count].reshape(n, per_request)
        tokens[:, 0] = last
        tokens[:, 1:] = spec
        table = v["blockTables"]
        rows = np.repeat(np.arange(n), per_request)
        v["slotMapping"].reshape(-1)[:count] = (_block_numbers(table, rows, new_positions // size) * size
                                                + new_positions % size)
