/* Stand-in for pycparser: nothing of <time.h> appears in a public prototype. */
