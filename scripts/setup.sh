#!/usr/bin/env bash
# Installs everything this project needs, idempotently: Debian packages
# (cairo, pango, LaTeX, chromium), a virtual environment at .venv/, and the package
# with its pinned dependencies. A second run skips what is already there.
#
#   scripts/setup.sh            install only
#   scripts/setup.sh --render   install, then render every scene to media/
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  libcairo2-dev libpango1.0-dev pkg-config          # pycairo / ManimPango build from source
  texlive-latex-base texlive-latex-extra texlive-fonts-recommended dvisvgm  # MathTex labels
  fonts-dejavu-core                                 # the theme's text and number fonts
  chromium                                          # headless browser: the gallery test plays every clip
  hugo                                              # post --to hugo: the test builds the post with the real Hugo
)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PY" -m venv .venv
fi

# Reinstall only when the dependency list changes.
stamp=".venv/.installed-$(cat pyproject.toml | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  echo "setup: installing the package and its dependencies into .venv"
  .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
  rm -f .venv/.installed-*
  touch "$stamp"
fi
echo "setup: ready (.venv/bin/python render.py --help)"

if [ "${1:-}" = "--render" ]; then
  .venv/bin/python render.py render --all --quality low --out media
fi
