#!/usr/bin/env bash
# Runs the whole test suite, installing first if needed (so it works on a
# fresh clone). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/python -m pytest -n 2 "$@"
