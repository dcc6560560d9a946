"""Creating communicators from a root info: what the rendezvous refuses, and how long it waits."""
import ctypes
import time

import acl
import hccl
from hccl import E_PARA, E_TIMEOUT, SUCCESS, call


def root_info():
    info = hccl.RootInfo()
    acl.lib().aclrtSetDevice(0)
    assert call("HcclGetRootInfo", ctypes.byref(info)) == SUCCESS
    return info


def test_a_root_info_the_rendezvous_does_not_know_is_refused_at_once_as_stale():
    info = root_info()
    raw = bytearray(bytes(info))
    raw[216] ^= 0xff  # the nonce's first byte (after magic, version, ip, port, identifier and padding)
    stale = hccl.RootInfo.from_buffer_copy(bytes(raw))
    comm = ctypes.c_void_p()
    start = time.monotonic()
    assert call("HcclCommInitRootInfo", 1, ctypes.byref(stale), 0, ctypes.byref(comm)) == E_PARA
    assert time.monotonic() - start < 5
    assert "stale" in acl.recent_error()


def test_bytes_that_are_no_root_info_are_hccl_e_para():
    comm = ctypes.c_void_p()
    assert call("HcclCommInitRootInfo", 1, ctypes.byref(hccl.RootInfo()), 0, ctypes.byref(comm)) == E_PARA
    assert "not made by HcclGetRootInfo" in acl.recent_error()


def test_a_root_info_makes_one_communicator():
    info = root_info()
    comm, again = ctypes.c_void_p(), ctypes.c_void_p()
    assert call("HcclCommInitRootInfo", 1, ctypes.byref(info), 0, ctypes.byref(comm)) == SUCCESS
    assert call("HcclCommInitRootInfo", 1, ctypes.byref(info), 0, ctypes.byref(again)) == E_PARA
    assert "one communicator" in acl.recent_error()
    assert call("HcclCommDestroy", comm) == SUCCESS


def test_ranks_that_never_come_end_creation_with_hccl_e_timeout_naming_them(monkeypatch):
    monkeypatch.setenv("OPEMU_HCCL_CONNECT_TIMEOUT", "0.5")
    info = root_info()
    comm = ctypes.c_void_p()
    start = time.monotonic()
    assert call("HcclCommInitRootInfo", 3, ctypes.byref(info), 0, ctypes.byref(comm)) == E_TIMEOUT
    assert time.monotonic() - start < 8
    assert "missing ranks: [1,2]" in acl.recent_error()


def test_a_rank_outside_n_ranks_is_hccl_e_para():
    info = root_info()
    comm = ctypes.c_void_p()
    assert call("HcclCommInitRootInfo", 2, ctypes.byref(info), 2, ctypes.byref(comm)) == E_PARA
    assert call("HcclCommInitRootInfo", 2, None, 0, ctypes.byref(comm)) == hccl.E_PTR


def test_an_invalid_hccl_connect_timeout_is_refused(monkeypatch):
    monkeypatch.setenv("HCCL_CONNECT_TIMEOUT", "30")  # the vendor's range is 120..7200
    info = root_info()
    comm = ctypes.c_void_p()
    assert call("HcclCommInitRootInfo", 1, ctypes.byref(info), 0, ctypes.byref(comm)) == E_PARA
    assert "HCCL_CONNECT_TIMEOUT" in acl.recent_error()
