"""opemu.core.parallel: pieces on the pool's workers, and a piece that splits again."""
import threading

import numpy as np

from opemu.core import parallel


def _finishes(function, seconds=60):
    """function() run on a thread of its own; True when it returned within `seconds` (not stuck)."""
    done = threading.Event()

    def body():
        function()
        done.set()
    threading.Thread(target=body, daemon=True).start()
    return done.wait(seconds)


def test_split_covers_the_range_once():
    seen = np.zeros(1000, np.int64)
    parallel.split(1000, lambda lo, hi: np.add.at(seen, np.arange(lo, hi), 1))
    assert (seen == 1).all()


def test_a_piece_that_splits_again_runs_its_parts_on_its_own_thread():
    """Every worker busy with a piece that splits and waits: the inner parts must not queue behind them."""
    seen = np.zeros((parallel.WORKERS * 2, 64), np.int64)

    def outer(lo, hi):
        for row in range(lo, hi):
            parallel.split(64, lambda a, b: seen[row, a:b].__iadd__(1))
            parallel.run(lambda k: None, [(k,) for k in range(4)])
    assert _finishes(lambda: parallel.split(seen.shape[0], outer))
    assert (seen == 1).all()
