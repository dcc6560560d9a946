"""op::fp16_t (opdev/fp16_t.h): the 48 members libnnopbase defines, exported under the vendor's
mangled names and behaving as the vendor's implementation (hicann/opbase fp16_t.cpp), checked
against NumPy float16 / ml_dtypes bfloat16 over every half bit pattern. Where the vendor's software
float departs from IEEE (NaN patterns, overflow, inf and NaN operands, division by zero), the
expected values follow its rules as csrc/aclnn/fp16_t.cpp describes them."""
import csv
import subprocess

import ml_dtypes
import numpy as np
import pytest

from conftest import ROOT, ops_nn_compile, run_program, toolkit

HEADERS = ["fp16_t.h", "bfloat16.h"]
ALL_HALVES = np.arange(1 << 16, dtype=np.uint16)
EXPONENT_31 = (ALL_HALVES & 0x7C00) == 0x7C00
NEGATIVE = (ALL_HALVES & 0x8000) != 0


def fp16_symbols():
    """The mangled names of the 48 library members (cmake/surface/fp16_t.tsv)."""
    with open(ROOT / "cmake" / "surface" / "fp16_t.tsv", newline="") as f:
        return {row["symbol"] for row in csv.DictReader(f, delimiter="\t")}


def exported_symbols(library):
    out = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


VENDOR_SYMBOLS = fp16_symbols()


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    """tests/c/fp16_probe.cpp, linked to libnnopbase, the vendor's home of these members."""
    home = toolkit()
    output = tmp_path_factory.mktemp("fp16") / "fp16_probe"
    command = ["g++", "-std=c++11", "-O2", "-Wall", "-Werror", str(ROOT / "tests" / "c" / "fp16_probe.cpp"),
               "-I", "%s/include/aclnn" % home, "-L", "%s/lib64" % home, "-lnnopbase", "-o", str(output)]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return output


def run(probe, mode, values, columns):
    """Feed `values` to the probe in `mode`; return its output split into `columns` (dtypes)."""
    workdir = probe.parent
    values.tofile(workdir / (mode + ".in"))
    result = run_program(probe, mode, str(workdir / (mode + ".in")), str(workdir / (mode + ".out")))
    assert result.returncode == 0, result.stderr
    raw = np.fromfile(workdir / (mode + ".out"), dtype=np.uint8)
    out, offset = [], 0
    for dtype in columns:
        size = np.dtype(dtype).itemsize * len(values) // (2 if mode == "pairs" else 1)
        out.append(raw[offset:offset + size].view(dtype))
        offset += size
    assert offset == raw.size
    return out


def as_half(values):
    """Round float64 values to half bit patterns, ties to even (NumPy rounds directly from double)."""
    with np.errstate(over="ignore"):
        return np.asarray(values, dtype=np.float64).astype(np.float16).view(np.uint16)


def library_reading(bits):
    """The value the vendor's arithmetic reads from a pattern: exponent field 31 is an ordinary
    exponent, so infinity is 65536 and a NaN 65536 * 1.m."""
    bits = np.asarray(bits, dtype=np.uint16).astype(np.int64)
    field, mantissa = (bits >> 10) & 0x1F, bits & 0x3FF
    magnitude = np.where(field == 0, mantissa, mantissa | 0x400) * np.exp2(np.maximum(field, 1) - 25)
    return np.where(bits & 0x8000, -magnitude, magnitude)


def round_keeping_mantissa(values):
    """+, - and * of the vendor's: round to nearest-even, and past the largest exponent keep the
    rounded mantissa under exponent field 31."""
    values = np.asarray(values, dtype=np.float64)
    bits = as_half(values)
    over = np.abs(values) >= 65520.0
    fraction, exponent = np.frexp(np.abs(values[over]))
    mantissa = as_half(fraction * 2.0) & 0x3FF  # the significand rounded in [1, 2]
    bits[over] = np.where(values[over] < 0, 0x8000, 0) | 0x7C00 | mantissa
    return bits


# --- the exported symbols and the header ---------------------------------------------------------

def test_libopemu_defines_every_fp16_member():
    assert len(VENDOR_SYMBOLS) == 48
    assert VENDOR_SYMBOLS <= exported_symbols(toolkit() / "lib64" / "libopemu.so")


def test_a_program_using_every_member_references_exactly_the_vendor_symbols(tmp_path):
    objfile = tmp_path / "probe.o"
    subprocess.run(["g++", "-std=c++11", "-c", str(ROOT / "tests" / "c" / "fp16_probe.cpp"), "-I",
                    "%s/include/aclnn" % toolkit(), "-o", str(objfile)], check=True)
    undefined = subprocess.run(["nm", "-u", str(objfile)], capture_output=True, text=True).stdout.split()
    assert {s for s in undefined if s.startswith(("_ZN2op", "_ZNK2op"))} == VENDOR_SYMBOLS


@pytest.mark.parametrize("std", ["c++11", "c++14", "c++17"])
@pytest.mark.parametrize("header", HEADERS)
def test_header_compiles_alone_in_cxx(tmp_path, header, std):
    result = subprocess.run(["g++", "-std=" + std, "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-x", "c++",
                             str(toolkit() / "include" / "aclnn" / "opdev" / header)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_fp16_t_h_says_it_is_cxx_only_when_compiled_as_c():
    header = toolkit() / "include" / "aclnn" / "opdev" / "fp16_t.h"
    result = subprocess.run(["gcc", "-std=c99", "-fsyntax-only", "-x", "c", str(header)], capture_output=True, text=True)
    assert result.returncode != 0 and "C++ header" in result.stderr


# --- from half: every bit pattern ----------------------------------------------------------------

HALF_COLUMNS = [np.uint32, np.uint64, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
                np.uint64, np.uint8, np.int32, np.uint32, np.uint64, np.int8, np.uint8, np.int16, np.uint16,
                np.int32, np.uint32, np.uint16, np.uint16, np.int16, np.uint16]
INTEGER_TYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32]


@pytest.fixture(scope="module")
def from_half(probe):
    names = ["float", "double", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "bool",
             "IsInf", "toFloat", "toDouble", "toInt8", "toUInt8", "toInt16", "toUInt16", "toInt32", "toUInt32",
             "bfloat16", "sign", "exponent", "mantissa"]
    return dict(zip(names, run(probe, "half", ALL_HALVES, HALF_COLUMNS)))


def test_widening_to_float_and_double_is_exact(from_half):
    finite = ~EXPONENT_31 | ((ALL_HALVES & 0x3FF) == 0)
    halves = ALL_HALVES.view(np.float16)
    np.testing.assert_array_equal(from_half["float"][finite], halves[finite].astype(np.float32).view(np.uint32))
    np.testing.assert_array_equal(from_half["double"][finite], halves[finite].astype(np.float64).view(np.uint64))


def test_widening_keeps_the_nan_payload_at_the_top_of_the_fraction(from_half):
    nan = EXPONENT_31 & ((ALL_HALVES & 0x3FF) != 0)
    sign, payload = (ALL_HALVES[nan] >> 15).astype(np.uint64), (ALL_HALVES[nan] & 0x3FF).astype(np.uint64)
    np.testing.assert_array_equal(from_half["float"][nan], (sign << 31 | 0x7F800000 | payload << 13).astype(np.uint32))
    np.testing.assert_array_equal(from_half["double"][nan], sign << 63 | 0x7FF0000000000000 | payload << 42)


def test_integer_conversions_round_to_nearest_even_and_saturate(from_half):
    finite = ~EXPONENT_31
    values = np.rint(ALL_HALVES[finite].view(np.float16).astype(np.float64))  # rint: ties to even
    for dtype in INTEGER_TYPES:
        limits = np.iinfo(dtype)
        expected = np.clip(values, limits.min, limits.max).astype(dtype)
        np.testing.assert_array_equal(from_half[np.dtype(dtype).name][finite], expected, err_msg=np.dtype(dtype).name)


def test_integer_conversions_of_infinity_and_nan_saturate_by_sign(from_half):
    for dtype in INTEGER_TYPES:
        limits = np.iinfo(dtype)
        expected = np.where(NEGATIVE[EXPONENT_31], limits.min, limits.max).astype(dtype)
        np.testing.assert_array_equal(from_half[np.dtype(dtype).name][EXPONENT_31], expected)


def test_64_bit_conversions_are_the_32_bit_ones_widened(from_half):
    np.testing.assert_array_equal(from_half["int64"], from_half["int32"].astype(np.int64))
    np.testing.assert_array_equal(from_half["uint64"], from_half["uint32"].astype(np.uint64))
    assert from_half["int64"][0x7C00] == np.iinfo(np.int32).max


def test_to_members_equal_the_conversion_operators(from_half):
    for name in ["Float", "Double", "Int8", "UInt8", "Int16", "UInt16", "Int32", "UInt32"]:
        np.testing.assert_array_equal(from_half["to" + name], from_half[name.lower()], err_msg=name)


def test_bool_is_false_only_for_the_all_zero_pattern(from_half):
    np.testing.assert_array_equal(from_half["bool"], (ALL_HALVES != 0).astype(np.uint8))
    assert from_half["bool"][0x8000] == 1  # -0 is true, as in the vendor's


def test_is_inf_is_the_sign_of_an_infinity(from_half):
    expected = np.zeros(1 << 16, np.int32)
    expected[0x7C00], expected[0xFC00] = 1, -1
    np.testing.assert_array_equal(from_half["IsInf"], expected)


def test_extract_fp16_gives_sign_exponent_field_and_mantissa_with_implicit_bit(from_half):
    field = (ALL_HALVES >> 10) & 0x1F
    np.testing.assert_array_equal(from_half["sign"], ALL_HALVES >> 15)
    np.testing.assert_array_equal(from_half["exponent"], np.maximum(field, 1).astype(np.int16))  # 1 for subnormals
    np.testing.assert_array_equal(from_half["mantissa"], (ALL_HALVES & 0x3FF) | np.where(field > 0, 0x400, 0))


def test_conversion_to_bfloat16_rounds_to_nearest_even_and_nan_is_0x7fc0(from_half):
    nan = EXPONENT_31 & ((ALL_HALVES & 0x3FF) != 0)
    expected = ALL_HALVES[~nan].view(np.float16).astype(np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)
    np.testing.assert_array_equal(from_half["bfloat16"][~nan], expected)
    assert set(from_half["bfloat16"][nan]) == {0x7FC0}


# --- to half -------------------------------------------------------------------------------------

def boundary_doubles():
    """Every finite half, the midpoints between neighbours (the ties), and values just off them."""
    positive = ALL_HALVES[:0x7C00].view(np.float16).astype(np.float64)
    upper = np.append(positive[1:], 65536.0)
    middle = (positive + upper) / 2
    values = np.concatenate([positive, middle, [2.0 ** -25, 2.0 ** -26, 1e-30, 70000.0, 1e30]])
    values = np.concatenate([values, -values])
    return values


def test_float_to_half_rounds_to_nearest_even(probe):
    ties = boundary_doubles().astype(np.float32)
    random = np.random.default_rng(5).integers(0, 1 << 32, 200000, dtype=np.uint32).view(np.float32)
    values = np.concatenate([ties, np.nextafter(ties, np.float32(np.inf)), np.nextafter(ties, np.float32(-np.inf)),
                             np.array([np.inf, -np.inf], np.float32), random[~np.isnan(random)]])
    assigned, constructed = run(probe, "float", values, [np.uint16, np.uint16])
    expected = as_half(values.astype(np.float64))
    np.testing.assert_array_equal(assigned, expected)
    np.testing.assert_array_equal(constructed, expected)


def test_double_to_half_rounds_once(probe):
    """A tie nudged by less than a float ulp must still round away from the tie, not to even."""
    values = boundary_doubles()
    values = np.concatenate([values, values + np.abs(values) * 2.0 ** -40, values - np.abs(values) * 2.0 ** -40,
                             np.nextafter(0.0, 1.0) * np.array([1.0, -1.0]), [np.inf, -np.inf]])
    assigned, constructed = run(probe, "double", values, [np.uint16, np.uint16])
    np.testing.assert_array_equal(assigned, as_half(values))
    np.testing.assert_array_equal(constructed, as_half(values))


@pytest.mark.parametrize("mode,dtype", [("float", np.float32), ("double", np.float64)])
def test_nan_converts_to_the_all_ones_pattern_with_its_sign(probe, mode, dtype):
    values = np.array([np.nan, np.copysign(np.nan, -1.0)], dtype=dtype)
    assigned, constructed = run(probe, mode, values, [np.uint16, np.uint16])
    assert list(assigned) == list(constructed) == [0x7FFF, 0xFFFF]


def test_bfloat16_converts_through_float_to_nearest_even(probe):
    [converted] = run(probe, "bf16", ALL_HALVES, [np.uint16])
    values = ALL_HALVES.view(ml_dtypes.bfloat16).astype(np.float32)
    nan = np.isnan(values)
    np.testing.assert_array_equal(converted[~nan], as_half(values[~nan].astype(np.float64)))
    np.testing.assert_array_equal(converted[nan], np.where(NEGATIVE[nan], 0xFFFF, 0x7FFF))


@pytest.mark.parametrize("mode,dtype", [("u8", np.uint8), ("i16", np.int16), ("u16", np.uint16)])
def test_8_and_16_bit_integers_round_to_nearest_even_and_overflow_to_infinity(probe, mode, dtype):
    limits = np.iinfo(dtype)
    values = np.arange(limits.min, limits.max + 1, dtype=np.int64).astype(dtype)
    for column in run(probe, mode, values, [np.uint16, np.uint16]):
        np.testing.assert_array_equal(column, as_half(values.astype(np.float64)))


def test_int8_converts_exactly_except_minus_128_which_gives_negative_zero(probe):
    values = np.arange(-128, 128, dtype=np.int8)
    expected = as_half(values.astype(np.float64))
    expected[0] = 0x8000  # the vendor converts sign and low seven bits apart
    for column in run(probe, "i8", values, [np.uint16, np.uint16]):
        np.testing.assert_array_equal(column, expected)


@pytest.mark.parametrize("mode,dtype", [("i32", np.int32), ("u32", np.uint32), ("i64", np.int64),
                                        ("u64", np.uint64)])
def test_wide_integers_round_to_nearest_even_and_overflow_to_infinity(probe, mode, dtype):
    limits = np.iinfo(dtype)
    edges = [limits.min, limits.min + 1, limits.max, limits.max - 1, 0, 65504, 65519, 65520, 65535, 65536, 2049,
             2051, 4097, 4099, 4100, 1 << 31, (1 << 32) - 1, 1 << 32]
    edges = [v for v in edges if limits.min <= v <= limits.max] + [-v for v in edges if limits.min <= -v <= limits.max]
    span = np.arange(max(limits.min, -70000), 70000, dtype=np.int64)
    values = np.concatenate([np.array(edges, dtype=dtype), span.astype(dtype)])
    expected = as_half(values.astype(np.float64))  # exact below 2^53; beyond, infinity either way
    for column in run(probe, mode, values, [np.uint16, np.uint16]):
        np.testing.assert_array_equal(column, expected)


# --- arithmetic and comparisons -------------------------------------------------------------------

SPECIAL = np.array([0x0000, 0x8000, 0x0001, 0x83FF, 0x0400, 0x3555, 0x3C00, 0xBC00, 0x3C01, 0x4200, 0x5BFF, 0x7000,
                    0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7C01, 0x7E00, 0xFE00, 0x7FFF, 0x1400, 0x0A00], np.uint16)


@pytest.fixture(scope="module")
def pairs(probe):
    rng = np.random.default_rng(11)
    left = np.concatenate([np.repeat(SPECIAL, 1 << 16), np.tile(ALL_HALVES, SPECIAL.size),
                           rng.integers(0, 1 << 16, 400000).astype(np.uint16)])
    right = np.concatenate([np.tile(ALL_HALVES, SPECIAL.size), np.repeat(SPECIAL, 1 << 16),
                            rng.integers(0, 1 << 16, 400000).astype(np.uint16)])
    names = ["add", "sub", "mul", "div", "add_eq", "add_ret", "sub_eq", "sub_ret", "mul_eq", "mul_ret", "div_eq",
             "div_ret", "compare"]
    columns = run(probe, "pairs", np.concatenate([left, right]), [np.uint16] * 12 + [np.uint8])
    return left, right, dict(zip(names, columns))


def finite(bits):
    return (bits & 0x7C00) != 0x7C00


def test_add_sub_mul_of_finite_values_round_the_exact_result_to_nearest_even(pairs):
    left, right, out = pairs
    a, b = library_reading(left), library_reading(right)
    inside = finite(left) & finite(right)
    for name, exact in [("add", a + b), ("sub", a - b), ("mul", a * b)]:  # exact in float64
        in_range = inside & (np.abs(exact) < 65520)
        np.testing.assert_array_equal(out[name][in_range], as_half(exact[in_range]), err_msg=name)


def test_exact_zero_sums_are_positive_unless_both_addends_are_negative(pairs):
    left, right, out = pairs
    zero = library_reading(left) + library_reading(right) == 0
    both_negative = ((left & right) & 0x8000) != 0
    np.testing.assert_array_equal(out["add"][zero], np.where(both_negative[zero], 0x8000, 0))


def test_overflow_keeps_the_rounded_mantissa_under_exponent_31(pairs):
    """The vendor clamps the exponent field and keeps the mantissa: infinity only when it is zero."""
    left, right, out = pairs
    a, b = library_reading(left), library_reading(right)
    inside = finite(left) & finite(right)
    for name, exact in [("add", a + b), ("sub", a - b), ("mul", a * b)]:
        over = inside & (np.abs(exact) >= 65520)
        assert over.any()
        np.testing.assert_array_equal(out[name][over], round_keeping_mantissa(exact[over]), err_msg=name)


def test_infinity_and_nan_operands_are_read_as_65536_times_1m(pairs):
    left, right, out = pairs
    a, b = library_reading(left), library_reading(right)
    special = ~(finite(left) & finite(right))
    for name, exact in [("add", a + b), ("sub", a - b), ("mul", a * b)]:
        np.testing.assert_array_equal(out[name][special], round_keeping_mantissa(exact[special]), err_msg=name)
    inf, zero, one = np.uint16(0x7C00), np.uint16(0), np.uint16(0x3C00)
    pick = lambda x, y, name: out[name][(left == x) & (right == y)][0]  # noqa: E731
    assert pick(inf, inf, "sub") == 0 and pick(inf, zero, "mul") == 0 and pick(one, inf, "div") == 0x0100


def test_division_rounds_the_quotient_to_nearest_even(pairs):
    left, right, out = pairs
    a, b = library_reading(left), library_reading(right)
    divisible = ((left & 0x7FFF) != 0) & ((right & 0x7FFF) != 0)
    quotient = np.abs(a[divisible]) / np.abs(b[divisible])  # float64 then half: rounds as if once
    negative = ((left ^ right) & 0x8000)[divisible] != 0
    np.testing.assert_array_equal(out["div"][divisible], as_half(quotient) | np.where(negative, 0x8000, 0))


def test_division_by_zero_is_the_largest_finite_half_and_zero_divided_is_positive_zero(pairs):
    left, right, out = pairs
    by_zero = (right & 0x7FFF) == 0
    np.testing.assert_array_equal(out["div"][by_zero], np.where(((left ^ right) & 0x8000)[by_zero], 0xFBFF, 0x7BFF))
    zero_dividend = ((left & 0x7FFF) == 0) & ~by_zero
    assert set(out["div"][zero_dividend]) == {0}


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_compound_assignment_stores_and_returns_the_binary_result(pairs, op):
    out = pairs[2]
    np.testing.assert_array_equal(out[op + "_eq"], out[op])
    np.testing.assert_array_equal(out[op + "_ret"], out[op])


def test_comparisons_order_values_with_nan_read_as_65536_times_1m(pairs):
    """Ordinary values compare as IEEE values (-0 == +0); a NaN compares by the value the library reads
    from its pattern, so it equals itself and exceeds infinity."""
    left, right, out = pairs
    a, b = library_reading(left), library_reading(right)
    expected = ((a == b) | (a != b) << 1 | (a > b) << 2 | (a >= b) << 3 | (a < b) << 4 | (a <= b) << 5)
    np.testing.assert_array_equal(out["compare"], expected.astype(np.uint8))
    ordinary = ~((left & 0x7FFF) > 0x7C00) & ~((right & 0x7FFF) > 0x7C00)
    x, y = left[ordinary].view(np.float16), right[ordinary].view(np.float16)
    np.testing.assert_array_equal(out["compare"][ordinary] & 1, (x == y).astype(np.uint8))


# --- linked as a vendor example links ------------------------------------------------------------

def test_a_program_built_with_the_vendor_link_line_links_and_runs(tmp_path):
    executable = ops_nn_compile(ROOT / "tests" / "c" / "fp16_link.cpp", tmp_path / "fp16_link")
    result = run_program(executable)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["sum=10.5", "bits=4000", "int=10", "bf16=3dcd", "inf=1", "nan=1", "abs=2.5",
                                     "less=1"]
