#!/bin/sh
# Mutation testing of the warp core: placement, refusal, warper, warp math, assets, targets and
# root motion (config: pyproject.toml, [tool.mutmut]). Needs requirements-dev.txt. Prints
# killed/survived per file; `mutmut show NAME` shows one mutant. Extra arguments go to
# `mutmut run` (e.g. mutant names to rerun). A whole run takes over an hour on 2 cores.
set -e
cd "$(dirname "$0")/.."
rm -rf mutants
mutmut run --max-children "${MUTMUT_JOBS:-2}" "$@"
mutmut results --all true > mutants/results.txt || true
python tools/mutation_summary.py mutants/results.txt
