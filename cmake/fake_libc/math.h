/* Stand-in for pycparser: nothing of <math.h> appears in a public prototype. */
