"""Rank tables (``HcclCommInitClusterInfo``): the JSON files that name every rank of a cluster.

Read: the 1.0 and 1.2 ``server_list`` forms (Atlas A2/A3) and A3's ``super_pod_list``. A table
says how many ranks there are and which device each rank drives; ``device_ip`` is the NPU's own
network address, meaningless on a CPU host, so the rendezvous goes where the first of these says:

1. ``OPEMU_HCCL_RANKTABLE_ROOT=ip:port``;
2. rank 0's server ``host_ip`` and rank 0's ``host_port`` (A3 tables);
3. when every device is in one server: 127.0.0.1 and a port derived from the table's bytes, in
   ``HCCL_IF_BASE_PORT``..+31 (60000..60031 by default, the vendor's range);
4. otherwise the table is refused, asking for ``host_ip`` or the variable.

Every rank derives the communicator's nonce from the table's bytes, so ranks reading different
tables do not meet."""
import hashlib
import json
import os

HCCL_SUCCESS, HCCL_E_PARA, HCCL_E_OPEN_FILE_FAILURE = 0, 1, 10


class TableError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def _int(value, what):
    try:
        return int(str(value), 10)
    except ValueError:
        raise TableError(HCCL_E_PARA, "EI0001: the rank table's %s [%s] is not an integer" % (what, value))


def read(path, rank):
    """(number of ranks, this rank's device, rendezvous host, rendezvous port, nonce)."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as error:
        raise TableError(HCCL_E_OPEN_FILE_FAILURE, "the rank table %s cannot be read: %s" % (path, error.strerror))
    try:
        table = json.loads(raw)
    except ValueError as error:
        raise TableError(HCCL_E_PARA, "EI0001: the rank table %s is not valid JSON: %s" % (path, error))
    if not isinstance(table, dict) or table.get("status") != "completed":
        raise TableError(HCCL_E_PARA, "EI0001: the rank table's status is [%s], not [completed]"
                         % (table.get("status") if isinstance(table, dict) else None))
    servers = table.get("server_list")
    if not isinstance(servers, list) or not servers:
        raise TableError(HCCL_E_PARA, "EI0001: the rank table has no server_list (the 1.0/1.2 formats are read)")
    ranks = {}
    for server in servers:
        for device in server.get("device", []):
            rank_id = _int(device.get("rank_id"), "rank_id")
            if rank_id in ranks:
                raise TableError(HCCL_E_PARA, "EI0001: the rank table names rank_id %d twice" % rank_id)
            ranks[rank_id] = (server, device)
    size = len(ranks)
    if sorted(ranks) != list(range(size)):
        raise TableError(HCCL_E_PARA, "EI0001: the rank table's rank_ids are not 0 ~ %d" % (size - 1))
    if rank not in ranks:
        raise TableError(HCCL_E_PARA, "EI0001: rank %d is not in the rank table (0 ~ %d)" % (rank, size - 1))
    device = _int(ranks[rank][1].get("device_id"), "device_id")
    digest = hashlib.sha256(raw).digest()
    host, port = _rendezvous(ranks, servers, digest)
    return size, device, host, port, int.from_bytes(digest[:8], "little") or 1


def _rendezvous(ranks, servers, digest):
    forced = os.environ.get("OPEMU_HCCL_RANKTABLE_ROOT")
    if forced:
        host, _, port = forced.rpartition(":")
        if not host or not port.isdigit():
            raise TableError(HCCL_E_PARA, "EI0001: OPEMU_HCCL_RANKTABLE_ROOT=%s is not ip:port" % forced)
        return host, int(port)
    server, device = ranks[0]
    if server.get("host_ip"):
        port = device.get("host_port")
        return server["host_ip"], _int(port, "host_port") if port is not None else _derived_port(digest)
    if len({s.get("server_id") for s in servers if s.get("device")}) == 1:
        return "127.0.0.1", _derived_port(digest)
    raise TableError(HCCL_E_PARA, "EI0001: the rank table spans several servers but does not say where rank 0 "
                     "listens: give rank 0's server a host_ip (and its device a host_port), or set "
                     "OPEMU_HCCL_RANKTABLE_ROOT=ip:port")


def _derived_port(digest):
    base = os.environ.get("HCCL_IF_BASE_PORT")
    base = int(base) if base and base.isdigit() else 60000
    return base + digest[8] % 32


def attach(ffi, lib):
    def rank_table(path, rank, n_ranks, device, host, host_size, port, nonce):
        try:
            size, dev, where, at, key = read(ffi.string(path).decode(), rank)
        except TableError as error:
            lib.opemu_error_message(error.code, str(error).encode("utf-8", "replace")[:1900])
            return error.code
        n_ranks[0], device[0], port[0], nonce[0] = size, dev, at, key
        encoded = where.encode()[:host_size - 1]
        ffi.memmove(host, encoded + b"\0", len(encoded) + 1)
        return HCCL_SUCCESS

    def on_error(exc_type, exc_value, tb):
        lib.opemu_error_message(4, ("rank table: internal error: %s: %s" % (exc_type.__name__, exc_value))
                                .encode("utf-8", "replace")[:1900])

    ffi.def_extern(name="opemu_py_hccl_rank_table", error=4, onerror=on_error)(rank_table)
