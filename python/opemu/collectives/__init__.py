"""The Python half of the collectives (HCCL and MCCL; the C core is csrc/hccl/): the rank-order
reduction every transport uses, and the rank-table reader. `attach` hands both to the bridge."""
from . import rank_table, reduce


def attach(ffi, lib):
    reduce.attach(ffi, lib)
    rank_table.attach(ffi, lib)
