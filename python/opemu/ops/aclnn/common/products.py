"""Which product line the current SoC (OPEMU_SOC) belongs to, in the words of the vendor's
product-support tables, and the platform check an operator runs last in phase 1.

    "910"   Atlas 训练系列产品 (Ascend910, Ascend910A, Ascend910ProA/ProB, Ascend910PremiumA)
    "A2"    Atlas A2 训练/推理系列产品 (Ascend910B1 … Ascend910B4-1)
    "A3"    Atlas A3 训练/推理系列产品 (Ascend910_93xx)
    "950"   Ascend 950PR/950DT (regbase)
    "310P"  Atlas 推理系列产品
    "310B"  Atlas 200I/500 A2 推理产品
"""
from opemu.core.op import LINE_950, soc, unsupported_platform

LINES = ("910", "A2", "A3", "950", "310P", "310B")
NAMES = {"910": "Atlas training", "A2": "Atlas A2", "A3": "Atlas A3", "950": "Ascend 950",
         "310P": "Atlas inference (310P)", "310B": "Atlas 200I/500 A2"}


def line(name=None):
    """The product line of SoC `name` (default: the current one), or None for one no table lists."""
    name = name or soc()
    if name.startswith(LINE_950):
        return "950"
    if name.startswith("Ascend910_93"):
        return "A3"
    if name.startswith("Ascend910B"):
        return "A2"
    if name.startswith("Ascend910"):
        return "910"
    if name.startswith("Ascend310P"):
        return "310P"
    if name.startswith("Ascend310B"):
        return "310B"
    return None


def describe(lines):
    return ", ".join(NAMES[x] for x in LINES if x in lines)


def check_supported(op_name, lines):
    """The platform check, last in phase 1: ACLNN_ERR_RUNTIME_ERROR on a product the table excludes."""
    if line() not in lines:
        raise unsupported_platform(op_name)


def is_regbase():
    """Ops::NN::AclnnUtil::IsRegbase(): the 950 parts, whose op_api skips the fp32 promotion."""
    return line() == "950"
