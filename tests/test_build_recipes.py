"""The vendor's two build recipes (reference §6) build a sample against the prefix unchanged, and
the library answers to every vendor name while being loaded once."""
import shutil
import subprocess
import textwrap

import pytest

import opemu
from conftest import ROOT, run_program

VENDOR_CMAKE = textwrap.dedent("""\
    cmake_minimum_required(VERSION 3.14)
    project(ACLNN_EXAMPLE)
    add_compile_options(-std=c++11)
    set(CMAKE_RUNTIME_OUTPUT_DIRECTORY  "./bin")
    set(CMAKE_CXX_FLAGS_DEBUG "-fPIC -O0 -g -Wall")
    set(CMAKE_CXX_FLAGS_RELEASE "-fPIC -O2 -Wall")
    add_executable(opapi_test test_embedding.cpp)
    if(NOT "$ENV{ASCEND_CUSTOM_PATH}" STREQUAL "")
        set(ASCEND_PATH $ENV{ASCEND_CUSTOM_PATH})
    else()
        set(ASCEND_PATH "/usr/local/Ascend/cann")
    endif()
    set(INCLUDE_BASE_DIR "${ASCEND_PATH}/include")
    include_directories(${INCLUDE_BASE_DIR} ${INCLUDE_BASE_DIR}/aclnn)
    target_link_libraries(opapi_test PRIVATE
          ${ASCEND_PATH}/lib64/libascendcl.so ${ASCEND_PATH}/lib64/libnnopbase.so
          ${ASCEND_PATH}/lib64/libopapi_math.so ${ASCEND_PATH}/lib64/libopapi_nn.so)
    install(TARGETS opapi_test DESTINATION ${CMAKE_RUNTIME_OUTPUT_DIRECTORY})
    """)


def test_vendor_cmake_recipe_builds_and_runs_a_sample(tmp_path):
    (tmp_path / "CMakeLists.txt").write_text(VENDOR_CMAKE)
    shutil.copy(ROOT / "samples" / "aclnn" / "embedding.cpp", tmp_path / "test_embedding.cpp")
    build = tmp_path / "build"
    env = {"ASCEND_CUSTOM_PATH": str(opemu.prefix()), "PATH": "/usr/bin:/bin:/usr/local/bin"}
    for command in (["cmake", "..", "-DCMAKE_CXX_COMPILER=g++", "-DCMAKE_SKIP_RPATH=TRUE"], ["make"]):
        build.mkdir(exist_ok=True)
        result = subprocess.run(command, cwd=build, capture_output=True, text=True, env=env)
        assert result.returncode == 0, result.stdout + result.stderr
    result = run_program(build / "bin" / "opapi_test")
    assert result.returncode == 0 and "result[11] is: 2.200000" in result.stdout, result.stdout + result.stderr


def test_ops_nn_line_with_bare_header_name(tmp_path):
    source = (ROOT / "samples" / "aclnn" / "embedding.cpp").read_text()
    bare = tmp_path / "bare.cpp"
    bare.write_text(source.replace('#include "aclnnop/aclnn_embedding.h"', '#include "aclnn_embedding.h"'))
    from conftest import ops_nn_compile
    result = run_program(ops_nn_compile(bare, tmp_path / "bare"))
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("directory", ["lib64", "lib"])
def test_vendor_names_load_one_library(embedding_sample, directory, tmp_path):
    names = ["ascendcl", "acl_rt", "nnopbase", "opapi", "opapi_nn", "opapi_math", "mcruntime", "mcdnn"]
    for name in names:
        assert (opemu.prefix() / directory / ("lib%s.so" % name)).is_file()
    # a program built against the real toolkit names several libraries; the loader maps libopemu once
    source = tmp_path / "all_names.cpp"
    source.write_text((ROOT / "samples" / "aclnn" / "embedding.cpp").read_text())
    output = tmp_path / "all_names"
    command = ["g++", str(source), "-o", str(output), "-Wl,--no-as-needed", "-I%s/include" % opemu.prefix(),
               "-L%s/%s" % (opemu.prefix(), directory)] + ["-l" + n for n in names]
    assert subprocess.run(command, capture_output=True, text=True).returncode == 0
    result = run_program(output, env={"LD_DEBUG": "files"})
    assert result.returncode == 0
    initialised = [line for line in result.stderr.splitlines() if "calling init:" in line]
    assert sum(line.endswith("/libopemu.so") for line in initialised) == 1
    assert all(any(line.endswith("/lib%s.so" % n) for line in initialised) for n in names)
