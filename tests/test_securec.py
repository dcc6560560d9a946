"""securec.h / libc_sec.so: the toolkit's bounds-checked C functions. Each call is checked against
destMax; on bad arguments it returns the documented code and clears the destination where the vendor's
library clears it (the *_AND_RESET codes). Called in-process through ctypes."""
import ctypes
import subprocess

import pytest

from conftest import toolkit

EOK, EINVAL, ERANGE = 0, 22, 34
EINVAL_AND_RESET, ERANGE_AND_RESET, EOVERLAP_AND_RESET = 22 | 128, 34 | 128, 54 | 128


@pytest.fixture(scope="module")
def sec():
    library = ctypes.CDLL(str(toolkit() / "lib64" / "libc_sec.so"))
    size, ptr = ctypes.c_size_t, ctypes.c_void_p
    for name, args in (("memcpy_s", [ptr, size, ptr, size]), ("memmove_s", [ptr, size, ptr, size]),
                       ("memset_s", [ptr, size, ctypes.c_int, size]), ("strcpy_s", [ptr, size, ptr]),
                       ("strncpy_s", [ptr, size, ptr, size]), ("strcat_s", [ptr, size, ptr]),
                       ("strncat_s", [ptr, size, ptr, size])):
        getattr(library, name).argtypes = args
        getattr(library, name).restype = ctypes.c_int
    library.strtok_s.argtypes = [ptr, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    library.strtok_s.restype = ctypes.c_void_p
    return library


def buffer(text=b"", size=8, fill=b"x"):
    raw = ctypes.create_string_buffer(fill * size, size)
    raw.raw = (text + fill * size)[:size]
    return raw


def test_memcpy_s_copies_count_bytes_that_fit(sec):
    dest, src = buffer(), buffer(b"abcdefgh")
    assert sec.memcpy_s(dest, 8, src, 5) == EOK
    assert dest.raw == b"abcdexxx"


def test_memcpy_s_count_past_destmax_zeroes_the_destination(sec):
    dest, src = buffer(), buffer(b"abcdefgh", 16)
    assert sec.memcpy_s(dest, 8, src, 9) == ERANGE_AND_RESET
    assert dest.raw == bytes(8)


def test_memcpy_s_null_source_zeroes_the_destination(sec):
    dest = buffer()
    assert sec.memcpy_s(dest, 8, None, 4) == EINVAL_AND_RESET
    assert dest.raw == bytes(8)


def test_memcpy_s_null_destination_or_bad_destmax(sec):
    src = buffer(b"abc")
    assert sec.memcpy_s(None, 8, src, 3) == EINVAL
    dest = buffer()
    assert sec.memcpy_s(dest, 0, src, 0) == ERANGE
    assert sec.memcpy_s(dest, 2 ** 63, src, 3) == ERANGE
    assert dest.raw == b"xxxxxxxx"


def test_memcpy_s_overlapping_ranges_zero_the_destination(sec):
    block = buffer(b"abcdefgh", 16)
    base = ctypes.addressof(block)
    assert sec.memcpy_s(base + 2, 8, base, 4) == EOVERLAP_AND_RESET
    assert block.raw[2:10] == bytes(8)


def test_memmove_s_moves_overlapping_ranges(sec):
    block = buffer(b"abcdefgh", 16)
    base = ctypes.addressof(block)
    assert sec.memmove_s(base + 2, 8, base, 4) == EOK
    assert block.raw[:8] == b"ababcdgh"


def test_memset_s_count_past_destmax_fills_destmax_and_says_so(sec):
    dest = buffer(size=8)
    assert sec.memset_s(dest, 4, ord("z"), 6) == ERANGE_AND_RESET
    assert dest.raw == b"zzzzxxxx"
    assert sec.memset_s(dest, 8, 0, 3) == EOK and dest.raw == b"\0\0\0zxxxx"[:8]


def test_strcpy_s_copies_with_terminator_or_empties_the_destination(sec):
    dest = buffer()
    assert sec.strcpy_s(dest, 8, b"1234567") == EOK and dest.value == b"1234567"
    assert sec.strcpy_s(dest, 8, b"12345678") == ERANGE_AND_RESET and dest.raw[0] == 0
    assert sec.strcpy_s(dest, 8, None) == EINVAL_AND_RESET and dest.raw[0] == 0


def test_strncpy_s_copies_at_most_count_characters(sec):
    dest = buffer()
    assert sec.strncpy_s(dest, 8, b"abcdefghijk", 3) == EOK and dest.value == b"abc"
    assert sec.strncpy_s(dest, 8, b"abcdefghijk", 8) == ERANGE_AND_RESET and dest.raw[0] == 0
    assert sec.strncpy_s(dest, 8, b"abc", 0) == EOK and dest.value == b""


def test_strcat_s_appends_when_the_result_fits(sec):
    dest = buffer(b"ab\0")
    assert sec.strcat_s(dest, 8, b"cde") == EOK and dest.value == b"abcde"
    assert sec.strcat_s(dest, 8, b"fgh") == ERANGE_AND_RESET and dest.raw[0] == 0


def test_strcat_s_destination_without_terminator_is_invalid(sec):
    dest = buffer()
    assert sec.strcat_s(dest, 8, b"a") == EINVAL_AND_RESET and dest.raw[0] == 0


def test_strncat_s_appends_at_most_count_characters(sec):
    dest = buffer(b"ab\0")
    assert sec.strncat_s(dest, 8, b"cdefghij", 3) == EOK and dest.value == b"abcde"


def test_strtok_s_splits_and_keeps_its_place_in_context(sec):
    text = ctypes.create_string_buffer(b",,a,bc,,d")
    context = ctypes.c_void_p()
    tokens = []
    token = sec.strtok_s(text, b",", ctypes.byref(context))
    while token:
        tokens.append(ctypes.string_at(token))
        token = sec.strtok_s(None, b",", ctypes.byref(context))
    assert tokens == [b"a", b"bc", b"d"]


FORMAT_PROGRAM = r'''
#include <stdio.h>
#include "securec.h"
int main(void) {
    char b[8];
    int n = sprintf_s(b, sizeof b, "%d-%s", 42, "ab");
    printf("%d [%s]\n", n, b);
    n = sprintf_s(b, sizeof b, "%s", "123456789");
    printf("%d [%s]\n", n, b);
    n = snprintf_s(b, sizeof b, 3, "%s", "abcdef");
    printf("%d [%s]\n", n, b);
    n = snprintf_s(b, sizeof b, 3, "%s", "ab");
    printf("%d [%s]\n", n, b);
    n = snprintf_s(b, sizeof b, sizeof b, "%s", "abcdefghij");
    printf("%d [%s]\n", n, b);
    n = snprintf_truncated_s(b, sizeof b, "%s", "abcdefghij");
    printf("%d [%s]\n", n, b);
    return 0;
}
'''


@pytest.mark.parametrize("language", ["c", "c++"])
def test_the_format_functions_report_overflow_and_truncate_only_where_asked(tmp_path, language):
    source = tmp_path / ("format." + ("c" if language == "c" else "cpp"))
    source.write_text(FORMAT_PROGRAM)
    program = tmp_path / "format"
    home = toolkit()
    subprocess.run(["gcc" if language == "c" else "g++", "-Wall", "-Werror", str(source), "-I%s/include" % home,
                    "-L%s/lib64" % home, "-lc_sec", "-Wl,-rpath,%s/lib64" % home, "-o", str(program)], check=True)
    lines = subprocess.run([str(program)], capture_output=True, text=True, check=True).stdout.splitlines()
    assert lines == ["5 [42-ab]", "-1 []", "-1 [abc]", "2 [ab]", "-1 []", "7 [abcdefg]"]
