"""The narrow float types of opdev (float4_e2m1.h, float8_e4m3fn.h, float8_e5m2.h, float8_e8m0.h,
hifloat8.h): their out-of-line members exported by libnnopbase under the vendor's mangled names, and
converting as the vendor's implementation does. Ordinary values are checked against ml_dtypes (the
OCP formats) or a decoder of HiFloat8's code written here from the format; the vendor's departures
(rounding before the subnormal shift, E4M3FN saturating from 256, E8M0 reading 0x00 as zero, HiFloat8
rounding half away from zero and dropping the sign of underflow) have a test each."""
import csv
import subprocess

import ml_dtypes
import numpy as np
import pytest

from conftest import ROOT, run_program, toolkit

ALL_BYTES = np.arange(256, dtype=np.uint8)


def opdev_symbols():
    with open(ROOT / "cmake" / "surface" / "opdev_types.tsv", newline="") as f:
        return {row["symbol"] for row in csv.DictReader(f, delimiter="\t")}


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    """tests/c/opdev_types_probe.cpp, linked to libnnopbase."""
    home = toolkit()
    output = tmp_path_factory.mktemp("opdev") / "opdev_probe"
    command = ["g++", "-std=c++17", "-O1", "-Wall", "-Werror", str(ROOT / "tests" / "c" / "opdev_types_probe.cpp"),
               "-I", "%s/include/aclnn" % home, "-L", "%s/lib64" % home, "-lnnopbase", "-o", str(output)]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return output


def encode(probe, kind, values):
    work = probe.parent
    np.asarray(values, dtype=np.float32).tofile(work / "in")
    result = run_program(probe, kind, "encode", str(work / "in"), str(work / "out"))
    assert result.returncode == 0, result.stderr
    return np.fromfile(work / "out", dtype=np.uint8)


def decode(probe, kind, patterns):
    """(values, IsZero, IsNaN, IsInf) of the patterns."""
    work = probe.parent
    np.asarray(patterns, dtype=np.uint8).tofile(work / "in")
    result = run_program(probe, kind, "decode", str(work / "in"), str(work / "out"))
    assert result.returncode == 0, result.stderr
    raw = np.fromfile(work / "out", dtype=np.uint8)
    n = len(patterns)
    flags = raw[4 * n:]
    return raw[:4 * n].view(np.float32), (flags & 1) != 0, (flags & 2) != 0, (flags & 4) != 0


def test_libnnopbase_exports_every_member_under_the_vendor_mangled_name():
    out = subprocess.run(["nm", "-D", "--defined-only", str(toolkit() / "lib64" / "libnnopbase.so")],
                         capture_output=True, text=True, check=True).stdout
    assert opdev_symbols() <= {line.split()[-1] for line in out.splitlines() if line.strip()}
    assert len(opdev_symbols()) == 31


OCP = [("e2m1", ml_dtypes.float4_e2m1fn, 16), ("e4m3fn", ml_dtypes.float8_e4m3fn, 256),
       ("e5m2", ml_dtypes.float8_e5m2, 256)]


@pytest.mark.parametrize("kind,dtype,count", OCP, ids=[k for k, _, _ in OCP])
def test_every_pattern_reads_as_its_ocp_value(probe, kind, dtype, count):
    patterns = ALL_BYTES[:count]
    values, is_zero, is_nan, is_inf = decode(probe, kind, patterns)
    expected = patterns.view(dtype).astype(np.float32)
    np.testing.assert_array_equal(np.isnan(values), np.isnan(expected))
    finite = ~np.isnan(expected)
    np.testing.assert_array_equal(values[finite], expected[finite])
    np.testing.assert_array_equal(is_nan, np.isnan(expected))
    np.testing.assert_array_equal(is_inf, np.isinf(expected))
    np.testing.assert_array_equal(is_zero, expected == 0)


@pytest.mark.parametrize("kind,dtype,limit", [("e2m1", ml_dtypes.float4_e2m1fn, 6.0),
                                              ("e4m3fn", ml_dtypes.float8_e4m3fn, 240.0),
                                              ("e5m2", ml_dtypes.float8_e5m2, 57344.0)], ids=["e2m1", "e4m3fn", "e5m2"])
def test_normal_values_round_to_nearest_even(probe, kind, dtype, limit):
    rng = np.random.default_rng(3)
    smallest_normal = float(ml_dtypes.finfo(dtype).smallest_normal)
    magnitudes = np.exp(rng.uniform(np.log(smallest_normal), np.log(limit), 4000)).astype(np.float32)
    values = np.concatenate([magnitudes, -magnitudes])
    expected = values.astype(dtype).view(np.uint8)
    np.testing.assert_array_equal(encode(probe, kind, values), expected)


def test_below_the_normal_range_the_mantissa_is_rounded_then_shifted_truncating(probe):
    # E4M3FN: 0.0107421875 = 1.375 * 2^-7; the normal rounding keeps 1.375 (3 bits), the shift to the
    # subnormal step 2^-9 truncates 5.5 steps to 5 (0x05); IEEE rounding would give 6 (0x06).
    assert encode(probe, "e4m3fn", [0.0107421875]).tolist() == [0x05]
    assert encode(probe, "e4m3fn", [2.0 ** -9, 2.0 ** -11]).tolist() == [0x01, 0x00]


def test_e4m3fn_saturates_from_256_and_on_infinity_and_nan_is_its_nan_pattern(probe):
    assert encode(probe, "e4m3fn", [239.0, 255.0, 256.0, 448.0, 1e9, np.inf, -np.inf, np.nan]).tolist() == \
        [0x77, 0x7E, 0x7E, 0x7E, 0x7E, 0x7E, 0xFE, 0x7F]


def test_e2m1_saturates_and_reads_nan_as_its_largest_value(probe):
    assert encode(probe, "e2m1", [7.0, -100.0, np.inf, np.nan, -0.0]).tolist() == [0x07, 0x0F, 0x07, 0x07, 0x08]


def test_e5m2_overflows_to_infinity(probe):
    assert encode(probe, "e5m2", [61440.0, -1e9, np.inf, np.nan]).tolist() == [0x7C, 0xFC, 0x7C, 0x7F]


def test_e8m0_rounds_the_exponent_up_from_half_and_reads_zero_pattern_as_zero(probe):
    assert encode(probe, "e8m0", [1.0, 1.4, 1.5, 3.0, -1.0, 0.0, np.nan, np.inf, 3e38]).tolist() == \
        [0x7F, 0x7F, 0x80, 0x81, 0xFF, 0x00, 0xFF, 0xFE, 0xFE]
    values, is_zero, is_nan, is_inf = decode(probe, "e8m0", ALL_BYTES)
    expected = np.exp2(ALL_BYTES.astype(np.float64) - 127)
    np.testing.assert_array_equal(values[1:255], expected[1:255].astype(np.float32))
    assert values[0] == 0 and is_zero[0] and np.isnan(values[255]) and is_nan[255] and not is_inf.any()


def hifloat8_reference(pattern):
    """HiFloat8's value, from its code: sign, then a prefix code D (0000 denormal, 0001 -> 0 exponent
    bits, 001 -> 1, 01 -> 2, 10 -> 3, 11 -> 4), then the exponent in sign-magnitude with an implied
    leading one (its top bit is the sign), then the mantissa."""
    sign = -1.0 if pattern & 0x80 else 1.0
    rest = format(pattern & 0x7F, "07b")
    if pattern == 0x80:
        return np.nan
    if pattern & 0x7F == 0x6F:
        return sign * np.inf
    if rest.startswith("0000"):
        field = int(rest[4:], 2)
        return 0.0 if field == 0 else sign * 2.0 ** (field - 23)
    for prefix, width in (("0001", 0), ("001", 1), ("01", 2), ("10", 3), ("11", 4)):
        if rest.startswith(prefix):
            body = rest[len(prefix):]
            break
    exponent = 0
    if width:
        bits = body[:width]
        magnitude = int("1" + bits[1:], 2)
        exponent = -magnitude if bits[0] == "1" else magnitude
    mantissa = body[width:]
    fraction = int(mantissa, 2) / 2 ** len(mantissa) if mantissa else 0.0
    return sign * 2.0 ** exponent * (1 + fraction)


def test_hifloat8_every_pattern_reads_as_its_code_says(probe):
    values, is_zero, is_nan, is_inf = decode(probe, "hif8", ALL_BYTES)
    expected = np.array([hifloat8_reference(p) for p in range(256)], dtype=np.float32)
    np.testing.assert_array_equal(np.isnan(values), np.isnan(expected))
    finite = ~np.isnan(expected)
    np.testing.assert_array_equal(values[finite], expected[finite])
    np.testing.assert_array_equal(is_inf, np.isinf(expected))
    # the predicate masks the sign: the NaN pattern 0x80 also counts as zero
    np.testing.assert_array_equal(np.flatnonzero(is_zero), [0x00, 0x80])


def test_hifloat8_every_value_converts_back_to_its_pattern(probe):
    expected = np.array([hifloat8_reference(p) for p in range(256)], dtype=np.float32)
    ordinary = [p for p in range(256) if np.isfinite(expected[p]) and p not in (0x00, 0x80)]
    assert encode(probe, "hif8", expected[ordinary]).tolist() == ordinary


def test_hifloat8_rounds_half_away_from_zero_and_saturates_to_infinity(probe):
    # 1.0625 lies halfway between 1.0 and 1.125 (3 mantissa bits at exponent 0): up, away from zero.
    assert encode(probe, "hif8", [1.0625, -1.0625]).tolist() == encode(probe, "hif8", [1.125, -1.125]).tolist()
    assert encode(probe, "hif8", [2.0 ** 16, -np.inf, np.nan]).tolist() == [0x6F, 0xEF, 0x80]


def test_hifloat8_underflow_is_positive_zero(probe):
    assert encode(probe, "hif8", [2.0 ** -24, -(2.0 ** -24), -0.0]).tolist() == [0, 0, 0]
    assert encode(probe, "hif8", [2.0 ** -23]).tolist() == encode(probe, "hif8", [2.0 ** -22]).tolist()
