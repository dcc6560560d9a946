"""opemu speed figures: medians and ratios against targets, floors and peers, measured in one run.

    python bench/bench.py                 # every section
    python bench/bench.py foundation      # one section (a module of this folder with main())
Not a test: these machines are noisy, so figures are printed, never asserted."""
import importlib
import sys
from pathlib import Path

SECTIONS = ["foundation", "fused_cross_entropy", "mcdnn", "losses", "mcdnn_normalization", "mcdnn_convolution", "mcblas",
            "aclnn_ops"]  # in the order they print; each is bench/<name>.py with main()


def main(argv):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    for name in argv or SECTIONS:
        print("== %s ==" % name, flush=True)
        importlib.import_module(name).main()


if __name__ == "__main__":
    main(sys.argv[1:])
