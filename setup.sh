#!/usr/bin/env bash
# The system packages opemu's tests use, installed before pip (the README's test command and
# .ci/run call it). Each step is a script in setup.d/, run in name order; add a step by adding a
# file there. A step that cannot install (no root, no apt) says what is missing and the rest goes
# on: what depends on it is then skipped or not built, never a failed install.
set -u
cd "$(dirname "$0")"
for step in setup.d/*.sh; do
    [ -e "$step" ] || continue
    bash "$step" || true  # a missing optional package must not stop the install: the step said what it skipped
done
