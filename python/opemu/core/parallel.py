"""Running independent pieces of one kernel on the host's cores.

NumPy releases the GIL inside its loops, so a kernel split into pieces that write disjoint parts of
the output runs on several cores. Which piece computes what never depends on timing, so results are
the same whatever the scheduling. OPEMU_THREADS caps the workers (default: every core).

A piece that splits again (a routine split by batch whose kernel splits by planes) runs its parts on
its own thread: the pool's workers waiting on parts queued behind themselves would wait forever."""
import glob
import os
import threading
from concurrent.futures import ThreadPoolExecutor

from opemu import settings

WORKERS = settings.env_int("OPEMU_THREADS", os.cpu_count() or 1)


def _last_level_cache_bytes():
    """Size of the highest-level cache Linux reports for CPU 0 (the one the cores share), or None."""
    best = (0, None)
    for index in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*"):
        try:
            with open(os.path.join(index, "level")) as f:
                level = int(f.read())
            with open(os.path.join(index, "size")) as f:
                text = f.read().strip()
        except (OSError, ValueError):
            continue
        scale = {"K": 1 << 10, "M": 1 << 20}.get(text[-1:], 1)
        digits = text.rstrip("KM")
        if digits.isdigit() and level > best[0]:
            best = (level, int(digits) * scale)
    return best[1]


LAST_LEVEL_CACHE = _last_level_cache_bytes()

_pool = None
_pool_pid = None
_worker = threading.local()   # .busy: this thread is running a piece


def _executor():
    # a pool inherited through fork() has no threads behind it: the child makes its own
    global _pool, _pool_pid
    if _pool is None or _pool_pid != os.getpid():
        _pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="opemu-kernel")
        _pool_pid = os.getpid()
    return _pool


def _wait(futures):
    for future in futures:
        future.result()  # re-raises a piece's exception in the caller


def _piece(function, *args):
    outer = _nested()   # a piece run on the calling thread may be inside a piece already
    _worker.busy = True
    try:
        function(*args)
    finally:
        _worker.busy = outer


def _nested():
    return getattr(_worker, "busy", False)


def split(count, function, worth=True):
    """function(lo, hi) over contiguous parts of range(count), one part per worker when `worth` it."""
    workers = min(count, WORKERS)
    if not worth or workers <= 1 or _nested():
        function(0, count)
        return
    bounds = [count * i // workers for i in range(workers + 1)]
    _wait([_executor().submit(_piece, function, bounds[i], bounds[i + 1]) for i in range(workers)])


def c_pieces(worth=True):
    """How many pieces a C kernel that splits itself on the C pool (csrc/kernels/pool.c) should make: one per
    worker when `worth` it, one inside a piece of this pool (its siblings have the other cores)."""
    return WORKERS if worth and not _nested() else 1


def run(function, jobs, parallel=True):
    """function(*job) for every job; jobs are dealt round-robin to the workers (neighbouring jobs
    cost about the same)."""
    jobs = list(jobs)
    if not parallel or WORKERS == 1 or len(jobs) < 2 or _nested():
        for job in jobs:
            function(*job)
        return
    shares = [jobs[w::WORKERS] for w in range(WORKERS)]
    _wait([_executor().submit(_piece, _each, function, share) for share in shares if share])


def _each(function, jobs):
    for job in jobs:
        function(*job)


def together(function, count):
    """function(i, meet) for every i < count, all running at once, for pieces that wait on each other: meet()
    returns once every piece has called it as many times (a barrier). Piece 0 runs on the calling thread and
    each other on a thread of its own, not the pool's: a worker could be queued behind pieces that wait for
    it. A piece that fails breaks the barrier, so the others fail too instead of waiting forever, and the
    first failure is raised."""
    if count <= 1:
        _piece(function, 0, lambda: None)
        return
    barrier = threading.Barrier(count)
    failures = []

    def piece(i):
        try:
            _piece(function, i, barrier.wait)
        except threading.BrokenBarrierError as broken:
            failures.append(broken)
        except BaseException as failure:   # re-raised by the caller below
            failures.insert(0, failure)
            barrier.abort()

    threads = [threading.Thread(target=piece, args=(i,), name="opemu-lane-%d" % i) for i in range(1, count)]
    for thread in threads:
        thread.start()
    piece(0)
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]
