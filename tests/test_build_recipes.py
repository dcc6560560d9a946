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


# The cann-ops AclNNInvocationNaive recipe: DDK_PATH, runtime/include + atc/include + the custom
# operator package's include, and the link-only stub directories of acllib/ and atc/.
NAIVE_CMAKE = textwrap.dedent("""\
    cmake_minimum_required(VERSION 3.5.1)
    project(acl_execute_embedding)
    add_compile_options(-std=c++11)
    set(CMAKE_RUNTIME_OUTPUT_DIRECTORY "./")
    set(INC_PATH $ENV{DDK_PATH})
    set(CUST_PKG_PATH "${INC_PATH}/opp/vendors/customize/op_api")
    set(LIB_PATH "${INC_PATH}/acllib/lib64/stub/")
    set(LIB_PATH1 "${INC_PATH}/atc/lib64/stub/")
    include_directories(${INC_PATH}/runtime/include ${INC_PATH}/atc/include ${CUST_PKG_PATH}/include)
    link_directories(${LIB_PATH} ${LIB_PATH1} ${CUST_PKG_PATH}/lib)
    add_executable(execute_embedding_op main.cpp)
    target_link_libraries(execute_embedding_op ascendcl opapi acl_op_compiler nnopbase stdc++)
    """)


def test_cann_ops_naive_recipe_finds_headers_and_stub_libraries(tmp_path):
    (tmp_path / "CMakeLists.txt").write_text(NAIVE_CMAKE)
    shutil.copy(ROOT / "samples" / "aclnn" / "embedding.cpp", tmp_path / "main.cpp")
    build = tmp_path / "build"
    build.mkdir()
    env = {"DDK_PATH": str(opemu.prefix()), "PATH": "/usr/bin:/bin:/usr/local/bin"}
    for command in (["cmake", "..", "-DCMAKE_CXX_COMPILER=g++", "-DCMAKE_SKIP_RPATH=TRUE"], ["make"]):
        result = subprocess.run(command, cwd=build, capture_output=True, text=True, env=env)
        assert result.returncode == 0, result.stdout + result.stderr
    result = run_program(build / "execute_embedding_op")  # the stubs are for linking; lib64 runs it
    assert result.returncode == 0 and "result[11] is: 2.200000" in result.stdout, result.stdout + result.stderr


def test_a_custom_operator_packages_invocation_project_builds_unchanged(tmp_path):
    """cann-ops' AclNNInvocationNaive shape: the operator's header by its bare name from the package's
    include directory, and libcust_opapi.so from its lib directory, as an installed package lays them out."""
    (tmp_path / "CMakeLists.txt").write_text(NAIVE_CMAKE.replace("ascendcl opapi", "ascendcl cust_opapi"))
    sample = (ROOT / "samples" / "aclnn" / "embedding.cpp").read_text()
    assert '#include "aclnnop/aclnn_embedding.h"' in sample
    (tmp_path / "main.cpp").write_text(sample.replace('#include "aclnnop/aclnn_embedding.h"',
                                                      '#include "aclnn_embedding.h"'))
    build = tmp_path / "build"
    build.mkdir()
    env = {"DDK_PATH": str(opemu.prefix()), "PATH": "/usr/bin:/bin:/usr/local/bin"}
    for command in (["cmake", "..", "-DCMAKE_CXX_COMPILER=g++", "-DCMAKE_SKIP_RPATH=TRUE"], ["make"]):
        result = subprocess.run(command, cwd=build, capture_output=True, text=True, env=env)
        assert result.returncode == 0, result.stdout + result.stderr
    custom = opemu.prefix() / "opp" / "vendors" / "customize" / "op_api"
    result = run_program(build / "execute_embedding_op", env={
        "LD_LIBRARY_PATH": "%s:%s" % (custom / "lib", opemu.prefix() / "lib64")})
    assert result.returncode == 0 and "result[11] is: 2.200000" in result.stdout, result.stdout + result.stderr


def test_the_prefix_has_the_layout_build_files_probe():
    prefix = opemu.prefix()
    for part in ("runtime/include/acl/acl.h", "runtime/include/aclnnop/aclnn_add.h", "atc/include",
                 "opp/vendors/customize/op_api/include", "opp/vendors/customize/op_api/lib",
                 "acllib/lib64/stub/libacl_op_compiler.so", "atc/lib64/stub/libascendcl.so",
                 "lib64/stub/libascendcl.so", "bin/setenv.bash", "bin/npu-smi", "bin/mx-smi"):
        assert (prefix / part).exists(), part


def sourced(*commands, env=None):
    script = "source %s/set_env.sh && %s" % (opemu.prefix(), " && ".join(commands))
    environment = {"PATH": "/usr/bin:/bin", **(env or {})}
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=environment)


def test_set_env_exports_what_the_vendors_does():
    result = sourced(*['echo "%s=${%s}"' % (name, name) for name in (
        "ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH", "ASCEND_OPP_PATH", "ASCEND_AICPU_PATH", "MACA_PATH",
        "LD_LIBRARY_PATH", "PYTHONPATH", "PATH", "TOOLCHAIN_HOME")])
    values = dict(line.split("=", 1) for line in result.stdout.splitlines())
    prefix = str(opemu.prefix())
    assert values["ASCEND_OPP_PATH"] == prefix + "/opp" and (opemu.prefix() / "opp").is_dir()
    assert values["ASCEND_AICPU_PATH"] == prefix and values["MACA_PATH"] == prefix
    assert values["LD_LIBRARY_PATH"].startswith(prefix + "/lib64:")
    assert values["PATH"].startswith(prefix + "/bin:")
    assert values["PYTHONPATH"].startswith(prefix + "/python/site-packages")


def test_npu_smi_reports_the_emulated_soc_where_build_scripts_read_it():
    """llama.cpp's CANN CMake takes the 7th line's third field of `npu-smi info` as the chip name."""
    result = sourced("npu-smi info | awk -F' ' 'NF > 0 && NR==7 {print $3}'", env={"OPEMU_SOC": "Ascend910B3"})
    assert result.returncode == 0 and result.stdout.strip() == "910B3"
    listing = sourced("npu-smi info", env={"OPEMU_DEVICE_COUNT": "3"}).stdout
    assert listing.count("910B1") == 3
    assert sourced("npu-smi frobnicate").returncode == 2


def test_mx_smi_lists_the_emulated_devices():
    result = sourced("mx-smi", env={"OPEMU_DEVICE_COUNT": "2"})
    assert result.returncode == 0
    assert result.stdout.startswith("mx-smi  version:") and "Attached GPUs" in result.stdout
    assert result.stdout.count("MetaX C500") == 2
    assert sourced("mx-smi -L", env={"OPEMU_DEVICE_COUNT": "2"}).stdout.count("GPU ") == 2
    assert sourced("mx-smi --bogus").returncode == 2


MACA_PROGRAM = textwrap.dedent("""\
    #include <%s>
    #include <%s>
    #include <%s>
    int main()
    {
        float *x = nullptr;
        if (mcMalloc(&x, 16 * sizeof(float)) != mcSuccess) return 1;  /* the C++ template overload */
        mcdnnHandle_t dnn;
        mcblasHandle_t blas;
        if (mcdnnCreate(&dnn) != MCDNN_STATUS_SUCCESS || mcblasCreate(&blas) != MCBLAS_STATUS_SUCCESS) return 2;
        mcblasDestroy(blas);
        mcdnnDestroy(dnn);
        mcFree(x);
        return 0;
    }
    """)


@pytest.mark.parametrize("style", ["subdirectory", "flat"])
def test_maca_headers_resolve_both_ways_maca_programs_include_them(style, tmp_path):
    """<mcdnn/mcdnn.h> with -I$MACA_PATH/include, or <mcdnn.h> with -I$MACA_PATH/include/mcdnn (and likewise)."""
    include = opemu.prefix() / "include"
    if style == "subdirectory":
        headers, flags = ("mcr/mc_runtime.h", "mcdnn/mcdnn.h", "mcblas/mcblas.h"), ["-I%s" % include]
    else:
        headers = ("mc_runtime.h", "mcdnn.h", "mcblas.h")
        flags = ["-I%s/%s" % (include, d) for d in ("mcr", "mcdnn", "mcblas")]
    source = tmp_path / "maca.cpp"
    source.write_text(MACA_PROGRAM % headers)
    output = tmp_path / "maca"
    command = ["g++", "-Wall", "-Werror", str(source), "-o", str(output), *flags,
               "-L%s/lib" % opemu.prefix(), "-lmcdnn", "-lmcblas", "-lmcruntime"]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert run_program(output).returncode == 0


@pytest.mark.parametrize("first, second", [("acl/acl.h", "mcr/mc_runtime.h"), ("mcr/mc_runtime.h", "acl/acl.h")])
def test_both_runtimes_in_one_program_in_either_order(first, second, tmp_path):
    """Each declares dim3; whichever comes first does."""
    source = tmp_path / "both.cpp"
    source.write_text('#include <%s>\n#include <%s>\nint main() { dim3 grid(4); return grid.z == 1 ? 0 : 1; }\n'
                      % (first, second))
    result = subprocess.run(["g++", "-std=c++11", "-Wall", "-Werror", "-fsyntax-only",
                             "-I%s/include" % opemu.prefix(), str(source)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
