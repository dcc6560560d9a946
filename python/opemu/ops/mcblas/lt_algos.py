"""The mcBLASLt algorithm queries that judge a problem: mcblasLtMatmulAlgoGetHeuristic, AlgoGetIds,
AlgoInit and AlgoCheck. They run at the call, on the host (nothing is queued).

opemu has one matmul algorithm (id 0): no workspace, every epilogue and pointer mode, strided batches,
the COL and ROW orders, one dot product in one sequence (no split-K, no tiles or stages to choose). A
heuristic returns it (state SUCCESS, workspace 0, one wave) unless the preference rules it out: an
implementation mask without its numerical flags, a pointer-mode or epilogue mask asking for what it
lacks, buffers promised less aligned than its elements; then the heuristic returns no result (SUCCESS
with a count of 0, as cuBLASLt does when its filters leave nothing)."""
from opemu.core import device
from opemu.core.mcblas import invalid, not_null, not_supported
from opemu.core.status import VendorError
from opemu.ops.mcblas import family
from opemu.ops.mcblas.lt_common import (ALGO_IDS, EPILOGUE, NUMPY, Layout, MatmulDesc, check_algo, check_problem,
                                        fill_algo, handle, live, precision_of)

_FLAGS = {"FMA": 1, "ACC_16F": 1 << 8, "ACC_32F": 2 << 8, "ACC_64F": 4 << 8, "ACC_32I": 8 << 8}
_ALL_POINTER_MODES = 31
_EPILOGUES = sum({code & ~1 for code in EPILOGUE.values()} | {1})


def _implementation_flags(precision):
    accumulator = {"e": "ACC_16F", "f": "ACC_32F", "d": "ACC_64F"}.get(precision.compute.char, "ACC_32F")
    if precision.compute.kind == "i":
        accumulator = "ACC_32I"
    return _FLAGS["FMA"] | _FLAGS[accumulator]


def _preference_allows(pref, precision, layouts):
    p = device.ffi.cast("struct opemu_lt_preference *", pref)
    if _implementation_flags(precision) & ~p.implMask:
        return False
    if p.pointerModeMask & ~_ALL_POINTER_MODES or p.epilogueMask & ~_EPILOGUES:
        return False
    return all(p.alignment[i] >= layout.dtype.itemsize for i, layout in enumerate(layouts))


def _write_result(pointer, desc, layouts, algo_from=None):
    result = device.ffi.cast("mcblasLtMatmulHeuristicResult_t *", pointer)
    if algo_from is None:
        fill_algo(device.ffi.addressof(result.algo), desc, *layouts)
    result.workspaceSize = 0
    result.state = 0
    result.wavesCount = 1.0


@family({"mcblasLtMatmulAlgoGetHeuristic": "heuristic"})
def heuristic(kind, c):
    handle(c)
    desc = MatmulDesc(c.operationDesc, "operationDesc")
    layouts = [Layout(p, n) for p, n in ((c.Adesc, "Adesc"), (c.Bdesc, "Bdesc"), (c.Cdesc, "Cdesc"),
                                         (c.Ddesc, "Ddesc"))]
    live(c.preference, device.lib.OPEMU_KIND_MCBLASLT_PREFERENCE, "mcblasLtMatmulPreference_t", "preference")
    if c.requestedAlgoCount <= 0:
        raise invalid("requestedAlgoCount %d must be positive" % c.requestedAlgoCount)
    not_null(heuristicResultsArray=c.heuristicResultsArray, returnAlgoCount=c.returnAlgoCount)
    _, _, _, precision = check_problem(desc, *layouts)
    found = 0
    if _preference_allows(c.preference, precision, layouts):
        _write_result(c.heuristicResultsArray, desc, layouts)
        found = 1
    device.ffi.cast("int *", c.returnAlgoCount)[0] = found
    return None


class _Type:
    """A bare data type standing where precision_of expects a layout."""

    def __init__(self, code, what):
        self.type, self.what, self.dtype = code, what, NUMPY.get(code)


class _Desc:
    def __init__(self, compute, scale):
        self.computeType, self.scaleType = compute, scale


def _types(c):
    return [_Type(getattr(c, name), name) for name in ("Atype", "Btype", "Ctype", "Dtype")]


@family({"mcblasLtMatmulAlgoGetIds": "ids"})
def get_ids(kind, c):
    handle(c)
    if c.requestedAlgoCount <= 0:
        raise invalid("requestedAlgoCount %d must be positive" % c.requestedAlgoCount)
    not_null(algoIdsArray=c.algoIdsArray, returnAlgoCount=c.returnAlgoCount)
    try:
        precision_of(_Desc(c.computeType, c.scaleType), *_types(c))
        ids = ALGO_IDS[:c.requestedAlgoCount]
    except VendorError:   # an unsupported combination has no algorithms
        ids = ()
    for i, algo_id in enumerate(ids):
        device.ffi.cast("int *", c.algoIdsArray)[i] = algo_id
    device.ffi.cast("int *", c.returnAlgoCount)[0] = len(ids)
    return None


@family({"mcblasLtMatmulAlgoInit": "init"})
def algo_init(kind, c):
    handle(c)
    not_null(algo=c.algo)
    if c.algoId not in ALGO_IDS:
        raise invalid("algoId %d is not one of mcblasLtMatmulAlgoGetIds' ids %s" % (c.algoId, list(ALGO_IDS)))
    desc, types = _Desc(c.computeType, c.scaleType), _types(c)
    try:
        precision_of(desc, *types)
    except VendorError as error:
        raise not_supported("algoId %d: %s" % (c.algoId, error))
    fill_algo(c.algo, desc, *types, algo_id=c.algoId)
    return None


@family({"mcblasLtMatmulAlgoCheck": "check"})
def algo_check(kind, c):
    handle(c)
    desc = MatmulDesc(c.operationDesc, "operationDesc")
    layouts = [Layout(p, n) for p, n in ((c.Adesc, "Adesc"), (c.Bdesc, "Bdesc"), (c.Cdesc, "Cdesc"),
                                         (c.Ddesc, "Ddesc"))]
    not_null(algo=c.algo, result=c.result)
    check_problem(desc, *layouts)
    check_algo(c.algo, desc, *layouts)
    _write_result(c.result, desc, layouts, algo_from=c.algo)
    return None

