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


def test_together_runs_every_piece_at_once_and_meet_waits_for_all():
    """Each piece writes its slot, meets, then reads every slot: a barrier that let one through early would
    show a slot still unset. Piece 0 runs on the calling thread."""
    count, rounds = 3, 50
    slots = np.zeros((rounds, count), np.int64)
    seen, threads = np.zeros((rounds, count), np.int64), [None] * count

    def piece(i, meet):
        threads[i] = threading.get_ident()
        for r in range(rounds):
            slots[r, i] = i + 1
            meet()
            seen[r, i] = slots[r].sum()
    assert _finishes(lambda: parallel.together(piece, count))
    assert (seen == sum(range(1, count + 1))).all()
    assert len(set(threads)) == count


def test_together_on_the_calling_thread_alone_for_one_piece():
    threads = []
    parallel.together(lambda i, meet: (meet(), threads.append((i, threading.get_ident()))), 1)
    assert threads == [(0, threading.get_ident())]


def test_a_failing_piece_breaks_the_meeting_and_its_error_is_raised():
    """The other pieces would wait at meet() forever; they fail instead, and the caller gets the piece's own
    error, not the broken barrier."""
    def piece(i, meet):
        if i == 1:
            raise ValueError("piece 1 failed")
        meet()

    failures = []

    def run():
        try:
            parallel.together(piece, 3)
        except ValueError as failure:
            failures.append(str(failure))
    assert _finishes(run)
    assert failures == ["piece 1 failed"]


def test_together_inside_a_piece_leaves_the_piece_nested():
    """Piece 0 runs on the calling thread: after it, a split inside the outer piece still runs inline."""
    pairs = []

    def outer(lo, hi):
        parallel.together(lambda i, meet: meet(), 2)
        inner = []
        parallel.split(8, lambda a, b: inner.append(threading.get_ident()))
        pairs.append((threading.get_ident(), inner))
    assert _finishes(lambda: parallel.split(2, outer))
    assert [inner for _, inner in pairs] == [[thread] for thread, _ in pairs]
