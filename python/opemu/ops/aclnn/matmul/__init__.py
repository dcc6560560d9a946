"""hicann/ops-nn matmul/: matrix products, quantised and fused products, the vocab-parallel cross-entropy products."""

OPERATORS = {
    "aclnnAddbmm": "matmul_forms",
    "aclnnAddmm": "matmul",
    "aclnnAddmmWeightNz": "matmul_forms",
    "aclnnAddmv": "matmul_forms",
    "aclnnBaddbmm": "matmul_forms",
    "aclnnBatchMatMul": "matmul",
    "aclnnBatchMatMulWeightNz": "matmul_forms",
    "aclnnBatchMatmulQuant": "quant_matmul",
    "aclnnConvertWeightToINT4Pack": "quant_matmul_fused",
    "aclnnEinsum": "matmul_forms",
    "aclnnFusedLinearCrossEntropyLossGrad": "fused_linear_cross_entropy_loss_grad",
    "aclnnFusedLinearOnlineMaxSum": "fused_linear_online_max_sum",
    "aclnnFusedMatmul": "matmul_forms",
    "aclnnFusedQuantMatmul": "quant_matmul_fused",
    "aclnnFusedQuantMatmulWeightNz": "quant_matmul_fused",
    "aclnnGemm": "matmul_forms",
    "aclnnInplaceAddbmm": "matmul_forms",
    "aclnnInplaceAddmm": "matmul",
    "aclnnInplaceBaddbmm": "matmul_forms",
    "aclnnMatmul": "matmul",
    "aclnnMatmulEmuSplitWeight": "quant_matmul_fused",
    "aclnnMatmulWeightNz": "matmul_forms",
    "aclnnMm": "matmul",
    "aclnnMv": "matmul_forms",
    "aclnnQuantBatchMatmulInplaceAdd": "quant_matmul_fused",
    "aclnnQuantMatmul": "quant_matmul",
    "aclnnQuantMatmulDequant": "quant_matmul_fused",
    "aclnnQuantMatmulReduceSumWeightNz": "quant_matmul_fused",
    "aclnnQuantMatmulV2": "quant_matmul",
    "aclnnQuantMatmulV3": "quant_matmul",
    "aclnnQuantMatmulV4": "quant_matmul",
    "aclnnQuantMatmulV5": "quant_matmul",
    "aclnnQuantMatmulWeightNz": "quant_matmul",
    "aclnnRotateQuant": "rotate_quant",
    "aclnnTransposeBatchMatMul": "transpose_batch_matmul",
    "aclnnTransposeBatchMatMulWeightNz": "transpose_batch_matmul",
    "aclnnTransposeQuantBatchMatMul": "transpose_batch_matmul",
    "aclnnTransposeQuantBatchMatMulWeightNz": "transpose_batch_matmul",
    "aclnnWeightQuantBatchMatmul": "weight_quant_batch_matmul",
    "aclnnWeightQuantBatchMatmulNz": "weight_quant_batch_matmul",
    "aclnnWeightQuantBatchMatmulV2": "weight_quant_batch_matmul",
    "aclnnWeightQuantBatchMatmulV3": "weight_quant_batch_matmul",
}

# Declared operators with no CPU meaning: their inputs exist only in a format the vendor does not describe
NOT_EMULATED = {
    "aclnnMatmulCompress": "its weight is msModelSlim's losslessly compressed stream (compressIndex), a format "
                           "only CANN's compression library writes and the 310P's decompression unit reads; "
                           "it is not published",
    "aclnnMatmulCompressDequant": "as aclnnMatmulCompress, a weight in that unpublished compressed format",
}
