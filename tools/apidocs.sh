#!/bin/sh
# The API reference: pdoc renders the public API (motionwarp's __all__, docs/design.md section 11)
# from its docstrings and type hints into out/apidocs/ (or the folder given). Any warning (an
# annotation pdoc cannot resolve, a docstring it cannot parse) is an error, as in CI.
# Needs requirements-dev.txt.
set -e
cd "$(dirname "$0")/.."
python -W error -m pdoc motionwarp --docformat markdown -o "${1:-out/apidocs}"
