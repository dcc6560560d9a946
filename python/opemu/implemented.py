"""The entry points opemu implements in Python: the explicit lists of the "declared once" design.

Every function of the vendor headers is exported. One that C defines is C's (the build asks `nm`);
one listed here is routed into the embedded interpreter; every other one is a generated C shim that
answers its family's not-supported status without starting Python. The build reads this file as
plain data (cmake/gen_bridge.py executes it alone, without numpy), so it imports only the standard
library.

aclnn operators are listed per vendor folder, where they are implemented: each folder of
python/opemu/ops/aclnn/ (math/, activation/, foreach/…) has in its __init__.py

    OPERATORS = {
        "aclnnAbs": "elementwise",      # operator: the module of this folder that defines it
        ...
    }

a literal read here without importing the folder (`aclnn_modules`), so engineers adding operators to
different folders edit different files. An operator is named by its phase-2 function
(`aclnnEmbedding`): its `aclnnXxxGetWorkspaceSize` runs the op's check and workspace in Python,
`aclnnXxx` is C's launcher. The bridge imports an operator's module when the operator is first called.

A test keeps these lists and the registries (opemu.core.op.OPS, opemu.core.mcdnn.OPS, …) equal;
`python -m opemu.implemented` says how they differ, and `--write` rewrites the aclnn folders' lists
from the registry (after adding rows to a family table, say)."""
import ast
import os
import sys

ACLNN_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ops", "aclnn")
ACLNN_PACKAGE = "opemu.ops.aclnn"


def _folder_literals(name):
    """{vendor folder: the literal `name` = {...} of its __init__.py}, for the folders that assign it."""
    folders = {}
    for folder in sorted(os.listdir(ACLNN_ROOT)):
        path = os.path.join(ACLNN_ROOT, folder, "__init__.py")
        if not os.path.isfile(path):
            continue
        with open(path) as f:
            tree = ast.parse(f.read(), path)
        for node in tree.body:
            if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [name]:
                folders[folder] = ast.literal_eval(node.value)
    return folders


def aclnn_folders():
    """{vendor folder: {operator: module}} as each folder's __init__.py lists them."""
    return _folder_literals("OPERATORS")


def aclnn_not_emulated():
    """{operator: why opemu leaves it not supported}: the NOT_EMULATED lists of the folders, operators with no
    CPU meaning (docs/SUPPORT.md shows the reasons)."""
    return {name: why for listed in _folder_literals("NOT_EMULATED").values() for name, why in listed.items()}


_modules = None


def aclnn_modules():
    """{operator: the module that defines it ("opemu.ops.aclnn.math.elementwise")}, read once."""
    global _modules
    if _modules is None:
        _modules = {name: "%s.%s.%s" % (ACLNN_PACKAGE, folder, module)
                    for folder, listed in aclnn_folders().items() for name, module in listed.items()}
    return _modules


def aclnn_operators():
    return frozenset(aclnn_modules())


MCDNN = frozenset("""
    mcdnnActivationBackward
    mcdnnActivationForward
    mcdnnAddTensor
    mcdnnBackendExecute
    mcdnnBackendFinalize
    mcdnnBatchNormalizationBackward
    mcdnnBatchNormalizationBackwardEx
    mcdnnBatchNormalizationForwardInference
    mcdnnBatchNormalizationForwardTraining
    mcdnnBatchNormalizationForwardTrainingEx
    mcdnnCTCLoss
    mcdnnCTCLoss_v8
    mcdnnConvolutionBackwardBias
    mcdnnConvolutionBackwardData
    mcdnnConvolutionBackwardFilter
    mcdnnConvolutionBiasActivationForward
    mcdnnConvolutionForward
    mcdnnDivisiveNormalizationBackward
    mcdnnDivisiveNormalizationForward
    mcdnnDropoutBackward
    mcdnnDropoutForward
    mcdnnFindConvolutionBackwardDataAlgorithm
    mcdnnFindConvolutionBackwardDataAlgorithmEx
    mcdnnFindConvolutionBackwardFilterAlgorithm
    mcdnnFindConvolutionBackwardFilterAlgorithmEx
    mcdnnFindConvolutionForwardAlgorithm
    mcdnnFindConvolutionForwardAlgorithmEx
    mcdnnGetBatchNormalizationBackwardExWorkspaceSize
    mcdnnGetBatchNormalizationForwardTrainingExWorkspaceSize
    mcdnnGetBatchNormalizationTrainingExReserveSpaceSize
    mcdnnGetCTCLossWorkspaceSize
    mcdnnGetCTCLossWorkspaceSize_v8
    mcdnnGetConvolutionBackwardDataAlgorithm_v7
    mcdnnGetConvolutionBackwardDataWorkspaceSize
    mcdnnGetConvolutionBackwardFilterAlgorithm_v7
    mcdnnGetConvolutionBackwardFilterWorkspaceSize
    mcdnnGetConvolutionForwardAlgorithm_v7
    mcdnnGetConvolutionForwardWorkspaceSize
    mcdnnGetMultiHeadAttnBuffers
    mcdnnGetMultiHeadAttnWeights
    mcdnnGetNormalizationBackwardWorkspaceSize
    mcdnnGetNormalizationForwardTrainingWorkspaceSize
    mcdnnGetNormalizationTrainingReserveSpaceSize
    mcdnnGetRNNTempSpaceSizes
    mcdnnGetRNNWeightParams
    mcdnnGetRNNWeightSpaceSize
    mcdnnGetReductionIndicesSize
    mcdnnGetReductionWorkspaceSize
    mcdnnIm2Col
    mcdnnLRNCrossChannelBackward
    mcdnnLRNCrossChannelForward
    mcdnnMultiHeadAttnBackwardData
    mcdnnMultiHeadAttnBackwardWeights
    mcdnnMultiHeadAttnForward
    mcdnnNormalizationBackward
    mcdnnNormalizationForwardInference
    mcdnnNormalizationForwardTraining
    mcdnnOpTensor
    mcdnnPoolingBackward
    mcdnnPoolingForward
    mcdnnRNNBackwardData_v8
    mcdnnRNNBackwardWeights_v8
    mcdnnRNNForward
    mcdnnReduceTensor
    mcdnnScaleTensor
    mcdnnSetDropoutDescriptor
    mcdnnSetTensor
    mcdnnSoftmaxBackward
    mcdnnSoftmaxForward
    mcdnnSpatialTfGridGeneratorBackward
    mcdnnSpatialTfGridGeneratorForward
    mcdnnSpatialTfSamplerBackward
    mcdnnSpatialTfSamplerForward
    mcdnnTransformFilter
    mcdnnTransformTensor
    mcdnnTransformTensorEx
""".split())

# mcBLAS and mcBLASLt routines whose arithmetic is Python's (NumPy's BLAS, LAPACK); handles, descriptors and the
# rest are C's.
MCBLAS = frozenset("""
    mcblasAsumEx
    mcblasAxpyEx
    mcblasCaxpy
    mcblasCcopy
    mcblasCdgmm
    mcblasCdotc
    mcblasCdotu
    mcblasCgbmv
    mcblasCgeam
    mcblasCgelsBatched
    mcblasCgemm
    mcblasCgemm3m
    mcblasCgemm3mBatched
    mcblasCgemm3mEx
    mcblasCgemm3mStridedBatched
    mcblasCgemmBatched
    mcblasCgemmEx
    mcblasCgemmStridedBatched
    mcblasCgemv
    mcblasCgemvBatched
    mcblasCgemvStridedBatched
    mcblasCgeqrfBatched
    mcblasCgerc
    mcblasCgeru
    mcblasCgetrfBatched
    mcblasCgetriBatched
    mcblasCgetrsBatched
    mcblasChbmv
    mcblasChemm
    mcblasChemv
    mcblasCher
    mcblasCher2
    mcblasCher2k
    mcblasCherk
    mcblasCherkx
    mcblasChpmv
    mcblasChpr
    mcblasChpr2
    mcblasCmatinvBatched
    mcblasCopyEx
    mcblasCrot
    mcblasCrotg
    mcblasCscal
    mcblasCsrot
    mcblasCsscal
    mcblasCswap
    mcblasCsymm
    mcblasCsymv
    mcblasCsyr
    mcblasCsyr2
    mcblasCsyr2k
    mcblasCsyrk
    mcblasCsyrkx
    mcblasCtbmv
    mcblasCtbsv
    mcblasCtpmv
    mcblasCtpsv
    mcblasCtpttr
    mcblasCtrmm
    mcblasCtrmv
    mcblasCtrsm
    mcblasCtrsmBatched
    mcblasCtrsv
    mcblasCtrttp
    mcblasDasum
    mcblasDaxpy
    mcblasDcopy
    mcblasDdgmm
    mcblasDdot
    mcblasDgbmv
    mcblasDgeam
    mcblasDgelsBatched
    mcblasDgemm
    mcblasDgemmBatched
    mcblasDgemmStridedBatched
    mcblasDgemv
    mcblasDgemvBatched
    mcblasDgemvStridedBatched
    mcblasDgeqrfBatched
    mcblasDger
    mcblasDgetrfBatched
    mcblasDgetriBatched
    mcblasDgetrsBatched
    mcblasDmatinvBatched
    mcblasDnrm2
    mcblasDotEx
    mcblasDotcEx
    mcblasDrot
    mcblasDrotg
    mcblasDsbmv
    mcblasDscal
    mcblasDspmv
    mcblasDspr
    mcblasDspr2
    mcblasDswap
    mcblasDsymm
    mcblasDsymv
    mcblasDsyr
    mcblasDsyr2
    mcblasDsyr2k
    mcblasDsyrk
    mcblasDsyrkx
    mcblasDtbmv
    mcblasDtbsv
    mcblasDtpmv
    mcblasDtpsv
    mcblasDtpttr
    mcblasDtrmm
    mcblasDtrmv
    mcblasDtrsm
    mcblasDtrsmBatched
    mcblasDtrsv
    mcblasDtrttp
    mcblasDzasum
    mcblasDznrm2
    mcblasGemmBatchedEx
    mcblasGemmEx
    mcblasGemmStridedBatchedEx
    mcblasGetMatrix
    mcblasGetMatrixAsync
    mcblasGetVector
    mcblasGetVectorAsync
    mcblasHgemm
    mcblasHgemmBatched
    mcblasHgemmStridedBatched
    mcblasIamaxEx
    mcblasIaminEx
    mcblasIcamax
    mcblasIcamin
    mcblasIdamax
    mcblasIdamin
    mcblasIsamax
    mcblasIsamin
    mcblasIzamax
    mcblasIzamin
    mcblasLtMatmul
    mcblasLtMatmulAlgoCheck
    mcblasLtMatmulAlgoGetHeuristic
    mcblasLtMatmulAlgoGetIds
    mcblasLtMatmulAlgoInit
    mcblasLtMatrixTransform
    mcblasNrm2Ex
    mcblasSasum
    mcblasSaxpy
    mcblasScalEx
    mcblasScasum
    mcblasScnrm2
    mcblasScopy
    mcblasSdgmm
    mcblasSdot
    mcblasSetMatrix
    mcblasSetMatrixAsync
    mcblasSetVector
    mcblasSetVectorAsync
    mcblasSgbmv
    mcblasSgeam
    mcblasSgelsBatched
    mcblasSgemm
    mcblasSgemmBatched
    mcblasSgemmEx
    mcblasSgemmStridedBatched
    mcblasSgemv
    mcblasSgemvBatched
    mcblasSgemvStridedBatched
    mcblasSgeqrfBatched
    mcblasSger
    mcblasSgetrfBatched
    mcblasSgetriBatched
    mcblasSgetrsBatched
    mcblasSmatinvBatched
    mcblasSnrm2
    mcblasSrot
    mcblasSrotg
    mcblasSsbmv
    mcblasSscal
    mcblasSspmv
    mcblasSspr
    mcblasSspr2
    mcblasSswap
    mcblasSsymm
    mcblasSsymv
    mcblasSsyr
    mcblasSsyr2
    mcblasSsyr2k
    mcblasSsyrk
    mcblasSsyrkx
    mcblasStbmv
    mcblasStbsv
    mcblasStpmv
    mcblasStpsv
    mcblasStpttr
    mcblasStrmm
    mcblasStrmv
    mcblasStrsm
    mcblasStrsmBatched
    mcblasStrsv
    mcblasStrttp
    mcblasSwapEx
    mcblasZaxpy
    mcblasZcopy
    mcblasZdgmm
    mcblasZdotc
    mcblasZdotu
    mcblasZdrot
    mcblasZdscal
    mcblasZgbmv
    mcblasZgeam
    mcblasZgelsBatched
    mcblasZgemm
    mcblasZgemm3m
    mcblasZgemmBatched
    mcblasZgemmStridedBatched
    mcblasZgemv
    mcblasZgemvBatched
    mcblasZgemvStridedBatched
    mcblasZgeqrfBatched
    mcblasZgerc
    mcblasZgeru
    mcblasZgetrfBatched
    mcblasZgetriBatched
    mcblasZgetrsBatched
    mcblasZhbmv
    mcblasZhemm
    mcblasZhemv
    mcblasZher
    mcblasZher2
    mcblasZher2k
    mcblasZherk
    mcblasZherkx
    mcblasZhpmv
    mcblasZhpr
    mcblasZhpr2
    mcblasZmatinvBatched
    mcblasZrot
    mcblasZrotg
    mcblasZscal
    mcblasZswap
    mcblasZsymm
    mcblasZsymv
    mcblasZsyr
    mcblasZsyr2
    mcblasZsyr2k
    mcblasZsyrk
    mcblasZsyrkx
    mcblasZtbmv
    mcblasZtbsv
    mcblasZtpmv
    mcblasZtpsv
    mcblasZtpttr
    mcblasZtrmm
    mcblasZtrmv
    mcblasZtrsm
    mcblasZtrsmBatched
    mcblasZtrsv
    mcblasZtrttp
""".split())


# The single-operator API's execution: GE operator types run through one table (opemu/aclop_table.py).
ACLOP = frozenset("""
    aclopCompileAndExecute aclopCompileAndExecuteV2 aclopExecute aclopExecuteV2
""".split())


def python_entry_points():
    """Every exported function the embedded interpreter implements."""
    return frozenset(name + "GetWorkspaceSize" for name in aclnn_operators()) | MCDNN | MCBLAS | ACLOP


def registry_modules():
    """{operator: defining module} of every registered aclnn operator, after importing them all."""
    from opemu import ops
    from opemu.core.op import OPS
    ops.load_all()
    return {name: type(op).__module__ for name, op in OPS.items()}


def differences():
    """Lines saying how the aclnn folders' lists and the registry differ (none when they agree)."""
    listed, defined = aclnn_modules(), registry_modules()
    lines = ["%s: listed in %s, defined in %s" % (name, listed.get(name, "no list"), defined.get(name, "no module"))
             for name in sorted(set(listed) | set(defined)) if listed.get(name) != defined.get(name)]
    return lines


def write_folder_lists():
    """Rewrites every aclnn folder's OPERATORS from the registry, one operator a line in name order."""
    by_folder = {}
    for name, module in registry_modules().items():
        folder, _, leaf = module[len(ACLNN_PACKAGE) + 1:].partition(".")
        by_folder.setdefault(folder, {})[name] = leaf
    for folder in aclnn_folders():
        path = os.path.join(ACLNN_ROOT, folder, "__init__.py")
        with open(path) as f:
            text = f.read()
        start = text.index("OPERATORS = {")
        end = text.index("}\n", start) + 2
        rows = "".join('    "%s": "%s",\n' % item for item in sorted(by_folder.pop(folder, {}).items()))
        with open(path, "w") as f:
            f.write(text[:start] + "OPERATORS = {\n" + rows + "}\n" + text[end:])
    if by_folder:
        raise SystemExit("operators defined outside a vendor folder: %s" % sorted(by_folder))


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write_folder_lists()
    problems = differences()
    print("\n".join(problems) or "the aclnn folders' lists and the registry agree")
    sys.exit(1 if problems else 0)
