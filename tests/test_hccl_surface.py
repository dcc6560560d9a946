"""The HCCL and MCCL headers and libraries as programs see them: the vendor's layouts (checked at
compile time), C as well as C++ (-Werror, C++11 and C++14), <acl/acl.h> through hccl.h, the
libraries the vendor puts each function in (libhccl needing the profiling library), and a
configuration read up to the size its caller's header declared."""
import ctypes
import subprocess

import pytest

import acl
import hccl
from conftest import toolkit
from hccl import E_PARA, SUCCESS, call

LAYOUT = r"""
#include <stddef.h>
#include "hccl/hccl.h"
%(assert)s(sizeof(HcclRootInfo) == 4108, "root info");
%(assert)s(offsetof(HcclCommConfig, hcclBufferSize) == 24, "buffer size");
%(assert)s(offsetof(HcclCommConfig, hcclCommName) == 32, "comm name");
%(assert)s(offsetof(HcclCommConfig, hcclExecTimeOut) == 316, "exec timeout");
%(assert)s(offsetof(HcclCommConfig, hcclAlgo) == 320, "algo");
%(assert)s(offsetof(HcclCommConfig, hcclQos) == 2228, "qos");
%(assert)s(sizeof(HcclCommConfig) == 2240, "config");
%(assert)s(offsetof(HcclSendRecvItem, buf) == 8 && offsetof(HcclSendRecvItem, remoteRank) == 28, "item");
"""

CXX_PROGRAM = LAYOUT % {"assert": "static_assert"} + r"""
#include <cstdio>
#include "acl/acl_prof.h"
int main()
{
    HcclSendRecvItem item = {HCCL_SEND, nullptr, 4, HCCL_DATA_TYPE_FP32, 1}; // brace-initialised, vendor order
    int bytes = HCCL_ROOT_INFO_BYTES;                                       // usable as an int count
    HcclCommConfig config;
    HcclCommConfigInit(&config);
    if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) // ACL with only hccl.h included
        return 1;
    aclprofFinalize(); // resolved through libhccl's dependency on libmsprofiler
    uint32_t capability = HcclGetCommConfigCapability();
    std::printf("%d %u %u %d\n", bytes, capability, config.hcclBufferSize, item.remoteRank);
    return HcclAllReduce(nullptr, nullptr, 0, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, nullptr, nullptr);
}
"""

C_PROGRAM = LAYOUT % {"assert": "_Static_assert"} + r"""
#include <stdio.h>
#include "mccl.h"
int main(void)
{
    HcclCommConfig config;
    char rootInfo[HCCL_ROOT_INFO_BYTES];
    mcclUniqueId id;
    int version = 0;
    HcclCommConfigInit(&config);
    (void)rootInfo, (void)id;
    mcclGetVersion(&version);
    printf("%u %d\n", config.hcclBufferSize, version);
    return HcclGetCommConfigCapability() == HCCL_COMM_CONFIG_RESERVED ? 0 : 1;
}
"""


def build(tmp_path, name, text, compiler, flags, libraries):
    home = toolkit()
    source = tmp_path / name
    source.write_text(text)
    output = tmp_path / name.split(".")[0]
    result = subprocess.run([compiler, *flags, "-Wall", "-Wextra", "-Werror", str(source), "-o", str(output),
                             "-I%s/include" % home, "-L%s/lib64" % home, *libraries], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return output


@pytest.mark.parametrize("standard", ["c++11", "c++14"])
def test_hccl_h_compiles_warning_free_and_keeps_the_vendors_layout_in_cxx(tmp_path, standard):
    program = build(tmp_path, "layout.cpp", CXX_PROGRAM, "g++", ["-std=" + standard],
                    ["-Wl,--copy-dt-needed-entries", "-lhccl", "-lascendcl"])
    from conftest import run_program
    result = run_program(program)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["4108", "12", str(0xffffffff), "1"]


def test_hccl_and_mccl_headers_compile_as_c(tmp_path):
    program = build(tmp_path, "layout.c", C_PROGRAM, "gcc", ["-std=c11"], ["-lhccl", "-lmccl", "-lascendcl"])
    from conftest import run_program
    result = run_program(program)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str(0xffffffff), "21605"]


def exported(library):
    out = subprocess.run(["nm", "-D", "--defined-only", str(toolkit() / "lib64" / library)], capture_output=True,
                         text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines()}


def test_libhcomm_exports_the_communicator_functions_and_libhccl_everything():
    hcomm, hccl_names = exported("libhcomm.so"), exported("libhccl.so")
    for name in ("HcclCommInitRootInfoConfig", "HcclGroupStart", "HcclGroupEnd", "HcclCommSetMemoryRange",
                 "HcclCommUnsetMemoryRange", "HcclCommActivateCommMemory", "HcclCommDeactivateCommMemory"):
        assert name in hcomm and name in hccl_names
    assert "HcclAllReduce" in hccl_names and "HcclAllReduce" not in hcomm
    assert {"HcclKfcAllocOpArgs", "HcclCreateOpResCtx"} <= hccl_names
    assert {"mcclAllReduce", "mcclCommInitRank", "mcclGetUniqueId"} <= exported("libmccl.so")
    needed = subprocess.run(["readelf", "-d", str(toolkit() / "lib64" / "libhccl.so")], capture_output=True,
                            text=True).stdout
    assert "libmsprofiler.so" in needed


def config(name=b"", exec_timeout=None, size=None, magic=0xf0f0f0f0):
    """An HcclCommConfig as HcclCommConfigInit writes it (the header's inline function, restated)."""
    raw = bytearray(2240)
    ctypes.c_uint64.from_buffer(raw, 0).value = 2240 if size is None else size
    ctypes.c_uint32.from_buffer(raw, 8).value = magic
    ctypes.c_uint32.from_buffer(raw, 12).value = 10
    for offset in (24, 28, 296, 300, 2228):
        ctypes.c_uint32.from_buffer(raw, offset).value = 0xffffffff
    ctypes.c_int32.from_buffer(raw, 316).value = -1 if exec_timeout is None else exec_timeout
    raw[32:32 + len(name)] = name
    return (ctypes.c_char * 2240).from_buffer(raw)


def init_with_config(cfg):
    info = hccl.RootInfo()
    acl.lib().aclrtSetDevice(0)
    assert call("HcclGetRootInfo", ctypes.byref(info)) == SUCCESS
    comm = ctypes.c_void_p()
    rc = call("HcclCommInitRootInfoConfig", 1, ctypes.byref(info), 0, cfg, ctypes.byref(comm))
    return rc, comm


def test_a_config_names_the_communicator():
    rc, comm = init_with_config(config(b"tp_group_0"))
    assert rc == SUCCESS, acl.recent_error()
    name = ctypes.create_string_buffer(128)
    assert call("HcclGetCommName", comm, name) == SUCCESS and name.value == b"tp_group_0"
    assert call("HcclCommDestroy", comm) == SUCCESS


def test_a_shorter_config_of_an_older_header_is_read_up_to_its_size():
    cfg = config(b"old", size=2232)  # torch_npu's copy of the struct ends 8 bytes earlier
    rc, comm = init_with_config(cfg)
    assert rc == SUCCESS
    assert call("HcclCommDestroy", comm) == SUCCESS


def test_a_config_not_made_by_hccl_comm_config_init_is_hccl_e_para():
    rc, _ = init_with_config(config(magic=0))
    assert rc == E_PARA
    assert "HcclCommConfigInit" in acl.recent_error()
