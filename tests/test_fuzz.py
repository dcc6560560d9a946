"""Property-based fuzzing of the C ABI: aclnn phase 1 and 2, both runtimes' memory calls, mcDNN
descriptors and routines. Cases run in a child process (tests/fuzz_worker.py) so that a crash or a
hang is a finding, not the end of the run; the child's oracles report internal errors, false
successes and writes outside what a call may write.

Bounded for CI (OPEMU_FUZZ_EXAMPLES per family, default 800: about 2,500 cases in all, under a
minute); OPEMU_FUZZ_EXAMPLES=20000 for a long campaign (random, not derandomized, above 800)."""
import json
import os
import selectors
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from conftest import opemu_only
from opemu import ops, preflight
from opemu.implemented import MCBLAS
from opemu.core import dtypes
from opemu.core.mcdnn import OPS as MCDNN_OPS
from opemu.core.op import OPS

pytestmark = [opemu_only]

EXAMPLES = int(os.environ.get("OPEMU_FUZZ_EXAMPLES", "800"))
CASE_SECONDS = 20  # a case slower than this is a hang
START_SECONDS = 120  # the worker's imports, on a loaded machine
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=EXAMPLES <= 800,
                suppress_health_check=list(HealthCheck))
ops.load_all()
TABLE = preflight.entry_points()


class Worker:
    """One child process, restarted after a crash or a hang."""

    def __init__(self, case_seconds=CASE_SECONDS):
        self.process, self.case_seconds = None, case_seconds

    def start(self):
        env = dict(os.environ, OPEMU_DEVICE_MEMORY_MB="4096", OPEMU_STREAM="eager")
        self.process = subprocess.Popen([sys.executable, str(Path(__file__).with_name("fuzz_worker.py"))],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        text=True, env=env)
        selector = selectors.DefaultSelector()
        selector.register(self.process.stdout, selectors.EVENT_READ)
        ready = selector.select(START_SECONDS)
        selector.close()
        if not ready or self.process.stdout.readline() != "ready\n":
            raise RuntimeError("the fuzz worker did not start within %d s" % START_SECONDS)

    def run(self, case):
        if self.process is None or self.process.poll() is not None:
            self.start()
        self.process.stdin.write(json.dumps(case) + "\n")
        self.process.stdin.flush()
        selector = selectors.DefaultSelector()
        selector.register(self.process.stdout, selectors.EVENT_READ)
        ready = selector.select(self.case_seconds)
        selector.close()
        if not ready:
            self.process.kill()
            self.process.wait()
            self.process = None
            return {"violations": ["hang: no answer within %g s" % self.case_seconds]}
        line = self.process.stdout.readline()
        if not line:
            status = self.process.wait()
            self.process = None
            return {"violations": ["crash: the process died with status %d" % status]}
        return json.loads(line)

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.stdin.close()
            self.process.wait(timeout=30)
        self.process = None


@pytest.fixture(scope="module")
def worker():
    w = Worker()
    yield w
    w.stop()


def check(worker, case):
    if os.environ.get("OPEMU_FUZZ_LOG"):  # every case sent, in order: replay a worker's crash with it
        with open(os.environ["OPEMU_FUZZ_LOG"], "a") as log:
            log.write(json.dumps(case) + "\n")
    result = worker.run(case)
    if result["violations"]:
        worker.stop()  # a clean process for the next case (and for hypothesis's shrinking)
    assert not result["violations"], "%s\ncase: %s" % ("\n".join(result["violations"]), json.dumps(case))


# ---- strategies ----

HOSTILE_INTS = [0, 1, 2, 3, -1, -2, 7, 255, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 34, 2 ** 62, 2 ** 63 - 1, -2 ** 63]


# Valid calls to start from (the campaign mutates them): an op's checks must pass before its kernel
# and views are exercised. dtype codes: FLOAT 0, FLOAT16 1, INT32 3, UINT8 4, INT64 9.
def T(dtype, shape):
    return {"dtype": dtype, "shape": list(shape), "strides": None, "offset": 0, "format": 2, "alloc": "fit", "fill": 0}


F, H, I32, U8, I64, BOOL, C64 = 0, 1, 3, 4, 9, 12, 16
ACLNN_SEEDS = {
    "aclnnEmbedding": [T(F, [5, 3]), T(I64, [4]), T(F, [4, 3])],
    "aclnnEmbeddingDenseBackward": [T(F, [4, 3]), T(I64, [4]), 5, 2 ** 64 - 1, False, T(F, [5, 3])],
    "aclnnNLLLoss": [T(F, [4, 5]), T(I64, [4]), T(F, [5]), 1, -100, T(F, []), T(F, [])],
    "aclnnNLLLoss2d": [T(F, [2, 5, 3, 3]), T(I64, [2, 3, 3]), T(F, [5]), 1, -100, T(F, []), T(F, [])],
    "aclnnNLLLossBackward": [T(F, []), T(F, [4, 5]), T(I64, [4]), T(F, [5]), 1, -100, T(F, []), T(F, [4, 5])],
    "aclnnNLLLoss2dBackward": [T(F, []), T(F, [2, 5, 3, 3]), T(I64, [2, 3, 3]), T(F, [5]), 1, -100, T(F, []),
                               T(F, [2, 5, 3, 3])],
    "aclnnApplyFusedEmaAdam": [T(F, [8]), T(F, [8]), T(F, [8]), T(F, [8]), T(F, [8]), T(I64, [1]),
                               1e-3, 0.999, 0.9, 0.999, 1e-8, 0, True, 0.0],
    "aclnnFusedCrossEntropyLossWithMaxSum": [T(F, [4]), T(F, [4]), T(F, [4]), 0.0, T(F, [4, 8]), T(F, [4, 8]),
                                             T(F, [4, 8]), T(F, [4]), T(F, [4, 8])],
    "aclnnFusedLinearOnlineMaxSum": [T(H, [4, 16]), T(H, [8, 16]), T(I32, [4]), 0, 8, T(F, [4]), T(F, [4]),
                                     T(F, [4]), T(U8, [1]), T(I32, [4]), T(H, [4, 8])],
    "aclnnFusedLinearCrossEntropyLossGrad": [T(F, [4]), T(H, [4, 16]), T(H, [8, 16]), T(U8, [1]), T(I32, [4]), 0.0,
                                             T(F, [4]), T(F, [4]), None, T(H, [4, 16]), T(H, [8, 16])],
    # the common operators' seeds: one of each argument shape the families take
    "aclnnAbs": [T(F, [2, 4]), T(F, [2, 4])],
    "aclnnExp": [T(H, [4]), T(H, [4])],
    "aclnnRelu": [T(F, [3, 2]), T(F, [3, 2])],
    "aclnnMaximum": [T(F, [2, 4]), T(F, [4]), T(F, [2, 4])],
    "aclnnEqTensor": [T(F, [4]), T(F, [4]), T(U8, [4])],
    "aclnnCast": [T(F, [4]), 1, T(H, [4])],
    "aclnnSoftmax": [T(F, [2, 8]), -1, T(F, [2, 8])],
    "aclnnMatmul": [T(F, [2, 3]), T(F, [3, 4]), T(F, [2, 4]), 1],
    "aclnnRmsNorm": [T(F, [2, 8]), T(F, [8]), 1e-6, T(F, [2, 8]), T(F, [2, 1])],
    # ops-math's integral, bool-out, complex and attribute-shaped rows (the generic calls give all-float tensors)
    "aclnnBitwiseAndTensor": [T(I32, [2, 4]), T(I32, [4]), T(I32, [2, 4])],
    "aclnnBitwiseNot": [T(I32, [4]), T(I32, [4])],
    "aclnnLeftShift": [T(I32, [2, 4]), T(I32, [4]), T(I32, [2, 4])],
    "aclnnRightShift": [T(I32, [2, 4]), T(I32, [4]), T(I32, [2, 4])],
    "aclnnGcd": [T(I32, [2, 4]), T(I32, [4]), T(I32, [2, 4])],
    "aclnnDivMod": [T(I32, [2, 4]), T(I32, [4]), 2, T(I32, [2, 4])],
    "aclnnIsFinite": [T(F, [4]), T(BOOL, [4])],
    "aclnnIsClose": [T(F, [2, 4]), T(F, [4]), 1e-5, 1e-8, True, T(BOOL, [2, 4])],
    "aclnnComplex": [T(F, [2, 4]), T(F, [4]), T(C64, [2, 4])],
    "aclnnReal": [T(C64, [4]), T(F, [4])],
    "aclnnIsInScalarTensor": [{"scalar": 1.0, "dtype": F}, T(F, [4]), False, True, T(BOOL, [])],
    "aclnnIsInTensorScalar": [T(F, [4]), {"scalar": 1.0, "dtype": F}, False, False, T(BOOL, [4])],
    "aclnnScale": [T(F, [2, 4]), T(F, [4]), T(F, [4]), 1, 1, True, T(F, [2, 4])],
    # ops-math's reductions, scans, sorts, generators and matrix operators (shapes the generic calls miss)
    "aclnnAmax": [T(F, [2, 4]), {"ints": [1]}, False, T(F, [2])],
    "aclnnVarMean": [T(F, [2, 4]), {"ints": [1]}, 1, False, T(F, [2]), T(F, [2])],
    "aclnnArgMin": [T(F, [2, 4]), 1, False, T(I64, [2])],
    "aclnnMaxDim": [T(F, [2, 4]), 1, False, T(F, [2]), T(I64, [2])],
    "aclnnCumsum": [T(F, [2, 4]), 1, F, T(F, [2, 4])],
    "aclnnCummax": [T(F, [2, 4]), 1, T(F, [2, 4]), T(I64, [2, 4])],
    "aclnnSort": [T(F, [2, 4]), True, -1, False, T(F, [2, 4]), T(I64, [2, 4])],
    "aclnnArgsort": [T(F, [2, 4]), -1, True, T(I64, [2, 4])],
    "aclnnEye": [3, 4, T(F, [3, 4])],
    "aclnnLinspace": [{"scalar": 0.0, "dtype": F}, {"scalar": 1.0, "dtype": F}, 5, T(F, [5])],
    "aclnnRange": [{"scalar": 0.0, "dtype": F}, {"scalar": 2.0, "dtype": F}, {"scalar": 0.5, "dtype": F}, T(F, [5])],
    "aclnnHistc": [T(F, [8]), 4, {"scalar": 0.0, "dtype": F}, {"scalar": 1.0, "dtype": F}, T(F, [4])],
    "aclnnBincount": [T(I64, [6]), None, 4, T(I64, [4])],
    "aclnnOneHot": [T(I64, [4]), 3, T(F, [1]), T(F, [1]), -1, T(F, [4, 3])],
    "aclnnDot": [T(F, [4]), T(F, [4]), T(F, [])],
    "aclnnTrace": [T(F, [3, 3]), T(F, [])],
    "aclnnLinalgCross": [T(F, [2, 3]), T(F, [2, 3]), -1, T(F, [2, 3])],
    "aclnnLinalgQr": [T(F, [4, 3]), 0, T(F, [4, 3]), T(F, [3, 3])],
    "aclnnSvd": [T(F, [4, 3]), False, True, T(F, [3]), T(F, [4, 3]), T(F, [3, 3])],
    "aclnnExpSegsum": [T(F, [2, 2, 4]), T(F, [2, 2, 4, 4])],
    "aclnnSignBitsPack": [T(F, [16]), 2, T(U8, [2, 1])],
}


# C-string attributes: a value each family's checks accept, by the parameter's name
MODE_SEEDS = {"roundmode": "round", "quantmode": "pertoken", "dataformat": "NCHW", "equation": "ij,jk->ik",
              "fusedoptype": "", "activationtype": "gelu", "xquantmode": "pertoken", "quanttype": "static",
              "reduction": "mean", "approximate": "none"}
MODES = ["round", "rint", "floor", "ceil", "trunc", "hybrid", "static", "dynamic", "pertoken", "pertensor",
         "perchannel", "NCHW", "NHWC", "", "gelu_tanh", "ij,jk->ik", "none", "tanh", "mean", "sum", "update",
         "BNSD", "no such mode", "\u00e9" * 300]


def _is_string(ctype):
    return ctype.replace("const ", "").startswith("char *") or ctype.replace("const ", "").startswith("char*")


def _candidate_seeds(name):
    """Generic calls of an aclnn op for the campaign to start from when ACLNN_SEEDS has none: every tensor
    of one shape and type (int64 for the ones named like indices), scalars 1.0, int arrays [0]."""
    params = TABLE[name + "GetWorkspaceSize"]["params"][:-2]
    for shape, dtype in (([2, 4], F), ([4], F), ([2, 4], H), ([2, 3, 4, 4], F), ([], F)):
        args = []
        for pname, ctype in params:
            if "aclTensor" in ctype:
                index = any(k in pname.lower() for k in ("index", "indices", "target", "label", "ids"))
                args.append(T(I64 if index else dtype, shape))
            elif "aclScalar" in ctype:
                args.append({"scalar": 1.0, "dtype": F})
            elif "aclIntArray" in ctype:
                args.append({"ints": [0]})
            elif _is_string(ctype):
                key = pname.lower().replace("optional", "")
                args.append(next((v for k, v in MODE_SEEDS.items() if key.endswith(k)), None))
            elif ctype.startswith(("double", "float")):
                args.append(1e-5 if "eps" in pname.lower() else 1.0)
            elif ctype.startswith("bool"):
                args.append(False)
            else:
                args.append(0)
        yield args


def _discovered_seeds():
    """For every op without a written seed (tensor lists aside): the first generic call phase 1 accepts,
    else the first one (it still fuzzes the checks). Found once per session, in a worker process."""
    found, worker = {}, Worker()
    try:
        for name in sorted(set(OPS) - set(ACLNN_SEEDS)):
            params = TABLE[name + "GetWorkspaceSize"]["params"][:-2]
            if any("aclTensorList" in ctype or "aclScalarList" in ctype for _, ctype in params):
                continue
            candidates = list(_candidate_seeds(name))
            found[name] = candidates[0]
            for args in candidates:
                result = worker.run({"family": "aclnn", "op": name, "args": json.loads(json.dumps(args))})
                if result.get("phase1") == 0 and not result["violations"]:
                    found[name] = args
                    break
    finally:
        worker.stop()
    return found


SEEDS = {}


def aclnn_seeds():
    if not SEEDS:
        SEEDS.update(ACLNN_SEEDS, **_discovered_seeds())
    return SEEDS


small_dim = st.sampled_from([0, 1, 2, 3, 4, 5, 8])
hostile = st.sampled_from(HOSTILE_INTS)
dtype_code = st.one_of(st.sampled_from(sorted(dtypes.NUMPY_OF)), st.sampled_from([26, 29, 999, -1]))


@st.composite
def mutated_tensor(draw, seed):
    """One field of a tensor changed: dtype, a dim, the strides, the offset, the format, the
    allocation (short of its span), or the tensor itself gone."""
    t = json.loads(json.dumps(seed))
    field = draw(st.sampled_from(["dtype", "dim", "strides", "offset", "format", "alloc", "fill", "null", "rank"]))
    if field == "null":
        return None
    if field == "dtype":
        t["dtype"] = draw(dtype_code)
    elif field == "dim" and t["shape"]:
        t["shape"][draw(st.integers(0, len(t["shape"]) - 1))] = draw(st.one_of(small_dim, hostile))
    elif field == "rank":
        t["shape"] = draw(st.lists(small_dim, min_size=0, max_size=9))
    elif field == "strides":
        t["strides"] = draw(st.lists(st.one_of(small_dim, hostile, st.just(0)), min_size=len(t["shape"]),
                                     max_size=len(t["shape"])))
    elif field == "offset":
        t["offset"] = draw(st.one_of(st.integers(1, 64), hostile))
    elif field == "format":
        t["format"] = draw(st.sampled_from([0, 1, 3, 29, 35, -1]))
    elif field == "alloc":
        t["alloc"] = "short"
    elif field == "fill":
        t["fill"] = draw(st.sampled_from([1, 0x7F, 0xFF]))
    return t


def _value(ctype):
    if _is_string(ctype):
        return st.one_of(st.none(), st.sampled_from(MODES))
    if "aclScalar" in ctype:
        return st.one_of(st.none(), st.fixed_dictionaries({
            "scalar": st.sampled_from([0.0, 1.0, -1.0, 2.5, 1e30, float("inf"), float("nan"), 2.0 ** 40]),
            "dtype": dtype_code}))
    if "aclIntArray" in ctype:
        return st.one_of(st.none(), st.lists(st.one_of(st.integers(-4, 4), hostile), max_size=9).map(
            lambda values: {"ints": values}))
    if ctype.startswith(("double", "float")):
        return st.sampled_from([0.0, 1.0, -1.0, 1e-8, 0.9, 1e30, float("inf"), float("nan")])
    if ctype.startswith("bool"):
        return st.booleans()
    return st.one_of(st.sampled_from([0, 1, 2, 3, -100, 100]), hostile)


@st.composite
def aclnn_case(draw):
    """A seed call with zero to three of its arguments mutated."""
    seeds = aclnn_seeds()
    name = draw(st.sampled_from(sorted(set(OPS) & set(seeds))))
    params = TABLE[name + "GetWorkspaceSize"]["params"][:-2]
    args = json.loads(json.dumps(seeds[name]))
    for _ in range(draw(st.sampled_from([0, 1, 1, 1, 2, 3]))):
        i = draw(st.integers(0, len(args) - 1))
        ctype = params[i][1]
        if "aclTensor" in ctype:
            args[i] = draw(mutated_tensor(args[i])) if args[i] is not None else T(F, [4])
        else:
            args[i] = draw(_value(ctype))
    return {"family": "aclnn", "op": name, "args": args}


side = st.sampled_from(["dev0", "dev1", "host", "null"])
offset = st.one_of(st.sampled_from([0, 0, 1, 63, 64, 100]), st.sampled_from([2 ** 64 - 64, 2 ** 63, 4096]))
count = st.one_of(st.integers(0, 5000), hostile, st.sampled_from([2 ** 64 - 1, 2 ** 64 - 32]))


@st.composite
def memory_case(draw):
    runtime = draw(st.sampled_from(["acl", "mc"]))
    calls = ["malloc", "mallocHost", "memcpy", "memset"] + (["memcpy2d"] if runtime == "acl" else [])
    call = draw(st.sampled_from(calls))
    case = {"family": "memory", "runtime": runtime, "call": call}
    if call in ("malloc", "mallocHost"):
        case.update(size=draw(st.one_of(count, st.sampled_from([2 ** 64 - 1, 2 ** 64 - 31, 2 ** 63 + 1]))),
                    policy=draw(st.sampled_from([0, 1, 2, 3, 0x100, -1])))
        return case
    case.update(sizes=[draw(st.integers(1, 4096)), draw(st.integers(1, 4096))], dst=draw(side),
                src="null" if call == "memset" else draw(side), dst_offset=draw(offset), src_offset=draw(offset),
                count=draw(count), dest_max=draw(count), kind=draw(st.sampled_from([0, 1, 2, 3, 4, 7, -1])),
                value=draw(st.sampled_from([0, 1, 255, 256, -1])))
    if call == "memcpy2d":
        case.update(dpitch=draw(count), spitch=draw(count), width=draw(count),
                    height=draw(st.one_of(st.integers(0, 64), hostile, st.sampled_from([2 ** 64 - 1]))))
    return case


DESCRIPTOR_BASES = ("mcdnnTensorDescriptor_t", "mcdnnActivationDescriptor_t", "mcdnnPoolingDescriptor_t",
                    "mcdnnLRNDescriptor_t", "mcdnnFilterDescriptor_t", "mcdnnConvolutionDescriptor_t")
# routines whose descriptors the worker can make (dropout and spatial-transformer ones it cannot); the
# Find queries are left out: they write requestedAlgoCount results into the app's array, whose size is the
# app's word
ROUTINES = sorted(name for name in MCDNN_OPS if all(
    not ctype.replace("const ", "").split()[0].endswith("Descriptor_t")
    or ctype.replace("const ", "").split()[0] in DESCRIPTOR_BASES for _, ctype in TABLE[name]["params"])
    and all(pname != "perfResults" for pname, _ in TABLE[name]["params"]))
mcdnn_dtype = st.sampled_from([0, 1, 2, 9, 3, 4, 7, 99, -1])  # FLOAT DOUBLE HALF BFLOAT16, then others
PLANE = [2, 3, 4, 4]


def _seed_descriptor(routine, pname, base):
    """The valid description a routine's parameter starts from (NCHW float, per-channel statistics,
    2x2 pooling windows)."""
    if base == "mcdnnTensorDescriptor_t":
        per_channel = any(k in pname for k in ("ScaleBias", "MeanVar", "Scale", "Bias")) or pname in ("dbDesc", "biasDesc")
        pooled = routine.startswith("mcdnnPooling") and pname[:2] in ("yD", "dy")
        return {"dims": [1, 3, 1, 1] if per_channel else [2, 3, 2, 2] if pooled else list(PLANE), "strides": None,
                "dtype": 0}
    if base == "mcdnnActivationDescriptor_t":
        return {"mode": 1, "nan": 0, "coef": 0.0}
    if base == "mcdnnPoolingDescriptor_t":
        return {"mode": 0, "nan": 0, "window": [2, 2, 0, 0, 2, 2]}
    if base == "mcdnnFilterDescriptor_t":   # 3x3, 3 in and 3 out: with pad 1 it keeps the plane's dims
        return {"dims": [3, 3, 3, 3], "dtype": 0, "format": 0}
    if base == "mcdnnConvolutionDescriptor_t":
        return {"pad": [1, 1], "stride": [1, 1], "dilation": [1, 1], "mode": 1, "compute": 0, "groups": 1}
    return {"n": 5, "alpha": 1e-4, "beta": 0.75, "k": 2.0}


@st.composite
def mutated_descriptor(draw, spec, base):
    spec = json.loads(json.dumps(spec))
    if base == "mcdnnTensorDescriptor_t":
        field = draw(st.sampled_from(["dim", "dims", "strides", "dtype"]))
        if field == "dim":
            spec["dims"][draw(st.integers(0, len(spec["dims"]) - 1))] = draw(
                st.sampled_from([0, 1, 5, -1, 65536, 2 ** 31 - 1]))
        elif field == "dims":
            spec["dims"] = draw(st.lists(st.integers(1, 5), min_size=1, max_size=9))
        elif field == "strides":
            spec["strides"] = draw(st.lists(st.sampled_from([0, 1, 2, 7, -1, 2 ** 31 - 1]), min_size=len(spec["dims"]),
                                            max_size=len(spec["dims"])))
        else:
            spec["dtype"] = draw(mcdnn_dtype)
        return spec
    if base == "mcdnnFilterDescriptor_t":
        field = draw(st.sampled_from(["dim", "dims", "dtype", "format"]))
        if field == "dim":
            spec["dims"][draw(st.integers(0, len(spec["dims"]) - 1))] = draw(st.sampled_from([0, 1, 2, 5, -1, 2 ** 31 - 1]))
        elif field == "dims":
            spec["dims"] = draw(st.lists(st.integers(1, 4), min_size=1, max_size=9))
        elif field == "dtype":
            spec["dtype"] = draw(mcdnn_dtype)
        else:
            spec["format"] = draw(st.integers(-1, 3))
        return spec
    if base == "mcdnnConvolutionDescriptor_t":
        field = draw(st.sampled_from(["pad", "stride", "dilation", "mode", "compute", "groups", "rank"]))
        if field in ("pad", "stride", "dilation"):
            spec[field][draw(st.integers(0, len(spec[field]) - 1))] = draw(st.sampled_from([0, 1, 2, 3, -1, 2 ** 31 - 1, 2 ** 30]))
        elif field == "mode":
            spec["mode"] = draw(st.integers(-1, 2))
        elif field == "compute":
            spec["compute"] = draw(mcdnn_dtype)
        elif field == "groups":
            spec["groups"] = draw(st.sampled_from([0, 1, 2, 3, -1, 2 ** 31 - 1]))
        else:
            n = draw(st.sampled_from([1, 3]))
            spec.update(pad=[1] * n, stride=[1] * n, dilation=[1] * n)
        return spec
    return draw(descriptor(base))


@st.composite
def descriptor(draw, base):
    if base == "mcdnnActivationDescriptor_t":
        return {"mode": draw(st.integers(-1, 8)), "nan": draw(st.integers(-1, 2)),
                "coef": draw(st.sampled_from([0.0, 1.0, 6.0, -1.0, float("nan")]))}
    if base == "mcdnnPoolingDescriptor_t":
        return {"mode": draw(st.integers(-1, 4)), "nan": draw(st.integers(0, 1)),
                "window": draw(st.lists(st.sampled_from([0, 1, 2, 3, -1, 2 ** 31 - 1]), min_size=6, max_size=6))}
    return {"n": draw(st.sampled_from([1, 3, 5, 16, 0, 2 ** 32 - 1])), "alpha": 1e-4, "beta": 0.75,
            "k": draw(st.sampled_from([2.0, 0.0, 1e-6]))}


@st.composite
def mcdnn_case(draw):
    """A routine called with valid descriptions, then zero to three things changed: a descriptor's
    field, a buffer short of its description or null, a mode/algorithm/size value."""
    name = draw(st.sampled_from(ROUTINES))
    routine = MCDNN_OPS[name]
    case = {"family": "mcdnn", "routine": name, "descriptors": {}, "alloc": {}, "values": {}, "scalars": {},
            "double_scalars": False}
    mutable = []
    for pname, ctype in TABLE[name]["params"]:
        base = ctype.replace("const ", "").split()[0]
        if base.endswith("Descriptor_t") and base in DESCRIPTOR_BASES:
            case["descriptors"][pname] = _seed_descriptor(name, pname, base)
            mutable.append(("descriptor", pname, base))
        elif pname in routine.tensors:
            case["alloc"][pname] = "fit"
            mutable.append(("alloc", pname, base))
        elif pname.startswith(("alpha", "beta")) and "*" in ctype:
            case["scalars"][pname] = 1.0 if pname.startswith("alpha") else 0.0
        elif "*" not in ctype and base not in ("mcdnnHandle_t",) and not base.endswith("Descriptor_t"):
            case["values"][pname] = 1e-5 if base in ("double", "float") else 0
            mutable.append(("value", pname, base))
    for _ in range(draw(st.sampled_from([0, 1, 1, 1, 2, 3]))):
        kind, pname, base = draw(st.sampled_from(mutable))
        if kind == "descriptor":
            current = case["descriptors"][pname]
            if not isinstance(current, dict):
                current = _seed_descriptor(name, pname, base)
            case["descriptors"][pname] = draw(st.one_of(mutated_descriptor(current, base), mutated_descriptor(current, base),
                                                        st.just("null"), st.none()))
        elif kind == "alloc":
            case["alloc"][pname] = draw(st.sampled_from(["short", "null"]))
        else:
            case["values"][pname] = draw(st.sampled_from([1e-5, 0.0, -1.0, 0.1, float("nan")]) if base in
                                         ("double", "float") else st.one_of(st.integers(-1, 5), hostile))
    case["double_scalars"] = any(isinstance(d, dict) and d.get("dtype") == 1 for d in case["descriptors"].values())
    return case


# mcBLAS routines; the host <-> device transfers are left out (their host side is the app's array, whose
# size is the app's word; test_mcblas_helpers.py tests their size arithmetic)
BLAS_ROUTINES = sorted(name for name in MCBLAS if not name.startswith(("mcblasSet", "mcblasGet")))
blas_int = st.one_of(st.integers(-1, 9), st.sampled_from([16, 33, 64, 1000]), hostile)


@st.composite
def mcblas_case(draw):
    """A routine with every integer, stride and enum drawn: mostly small (valid or nearly), sometimes
    hostile; the buffers are 4 KiB each."""
    name = draw(st.sampled_from(BLAS_ROUTINES))
    ints = {}
    for pname, ctype in TABLE[name]["params"]:
        if "*" not in ctype and "Handle" not in ctype:
            ints[pname] = draw(blas_int)
    return {"family": "mcblas", "routine": name, "ints": ints}


# ---- the properties ----

@FUZZ
@given(case=aclnn_case())
def test_aclnn_phase1_and_phase2(worker, case):
    check(worker, case)


def size_arithmetic_case(case):
    """The runtimes' size-arithmetic classes (allocation sizes near 2^64, 2D spans that wrap, copies
    whose kind skips the device-side range check): their own test below while one runtime fails."""
    if case["call"] in ("malloc", "mallocHost"):
        return case["size"] % 2 ** 64 >= 2 ** 62
    if case["call"] == "memcpy2d":  # every span and kind of it: item 1 rewrites its checks
        return True
    # host-to-host or default kinds naming device memory: no device-side range check on either runtime
    return case["call"] == "memcpy" and case["kind"] in (0, 4) and "dev" in case["dst"] + case["src"]


@FUZZ
@given(case=memory_case().filter(lambda c: not size_arithmetic_case(c)))
def test_runtime_memory_calls(worker, case):
    check(worker, case)


@settings(FUZZ, max_examples=max(EXAMPLES // 6, 50), phases=[Phase.generate])  # no shrinking: known findings
@given(case=memory_case().filter(size_arithmetic_case))
def test_runtime_size_arithmetic(worker, case):
    check(worker, case)  # restarts the worker after a finding: a wrapped size may have corrupted its heap


@FUZZ
@given(case=mcdnn_case())
def test_mcdnn_descriptors_and_routines(worker, case):
    check(worker, case)


@FUZZ
@given(case=mcblas_case())
def test_mcblas_routines(worker, case):
    check(worker, case)


def test_the_oracles_see_a_stray_write():
    import ctypes
    import fuzz_worker
    memory = fuzz_worker.Memory()
    address = memory.device(64)
    memory.writable(address, 0, 16)
    before = memory.snapshot()
    ctypes.memset(address + 8, 1, 8)  # allowed
    assert memory.changes(before) == []
    ctypes.memset(address + 32, 1, 4)
    ctypes.memset(ctypes.addressof(memory.host) + fuzz_worker.HOST_BYTES, 0, 1)
    found = memory.changes(before)
    memory.free()
    assert found[0].startswith("write outside what the call may write: 4 byte(s)") and "canary" in found[1]


def test_the_worker_reports_a_crash_and_a_hang():
    """The harness itself: a child that dies or stalls is a finding, and the next case runs."""
    w, malloc = Worker(), {"family": "memory", "runtime": "acl", "call": "malloc", "size": 64, "policy": 0}
    assert w.run(malloc)["violations"] == []   # started: a loaded host's start-up is not the case's time
    w.case_seconds = 2
    assert w.run({"family": "selftest", "action": "crash"})["violations"][0].startswith("crash")
    assert w.run({"family": "selftest", "action": "hang"})["violations"][0].startswith("hang")
    w.case_seconds = CASE_SECONDS
    assert w.run(malloc)["violations"] == []
    w.stop()
