/* Stand-in for pycparser: nothing of <limits.h> appears in a public prototype. */
