"""Running independent pieces of one kernel on the host's cores.

NumPy releases the GIL inside its loops, so a kernel split into jobs that write disjoint parts of
the output runs on several cores. Which job writes what never depends on timing, so results are
the same whatever the scheduling."""
import os
from concurrent.futures import ThreadPoolExecutor

WORKERS = max(1, min(4, os.cpu_count() or 1))
_pool = None


def run(function, jobs, parallel=True):
    """function(*job) for every job; in the pool when worth it. Exceptions propagate."""
    global _pool
    jobs = list(jobs)
    if not parallel or WORKERS == 1 or len(jobs) < 2:
        for job in jobs:
            function(*job)
        return
    if _pool is None:
        _pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="opemu-kernel")
    # one task per worker, jobs dealt round-robin (neighbouring jobs cost about the same)
    shares = [jobs[w::WORKERS] for w in range(WORKERS)]
    for future in [_pool.submit(_each, function, share) for share in shares if share]:
        future.result()


def _each(function, jobs):
    for job in jobs:
        function(*job)
