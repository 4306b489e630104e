# shellcheck shell=bash
# Sourced by test.sh and demo.sh: creates .venv (Python 3.11+), installs requirements.txt into it
# (every pin), then the dbf0lab package itself in editable mode (pyproject.toml: its console
# commands dbf0-sweep, dbf0-analyze, dbf0-notebook and dbf0-compare-redis land in .venv/bin).
# Again only when requirements.txt or pyproject.toml has changed since the last install (a stamp
# file inside .venv holds their hash). Then puts .venv/bin first on PATH.

dbf0_find_python() {  # prints a python3 command that is 3.11 or newer, or fails with a message
  local cmd
  for cmd in ${PYTHON:-} python3 python3.14 python3.13 python3.12 python3.11; do
    if command -v "$cmd" >/dev/null 2>&1 &&
       "$cmd" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      printf '%s\n' "$cmd"; return 0
    fi
  done
  cat >&2 <<MSG
dbf0: the Python side needs Python 3.11 or newer (pandas 3 does), and found none
(looked at \$PYTHON, python3, python3.14 ... python3.11). Install one, for example:
  apt-get install python3 python3-venv      (Debian 12 ships 3.11)
  brew install python@3.12                  (macOS)
MSG
  return 1
}

dbf0_use_venv() {  # $1 = repository root
  local root=$1 venv=$1/.venv python want have=""
  want=$(cat "$root/requirements.txt" "$root/pyproject.toml" | cksum)
  if [ -x "$venv/bin/python" ] && [ -r "$venv/.requirements-installed" ]; then
    have=$(cat "$venv/.requirements-installed")
  fi
  if [ "$want" != "$have" ]; then
    if [ ! -x "$venv/bin/python" ]; then
      python=$(dbf0_find_python) || return 1
      echo "dbf0: creating $venv with $("$python" --version)" >&2
      "$python" -m venv "$venv" || {
        echo "dbf0: '$python -m venv' failed; on Debian/Ubuntu: apt-get install python3-venv" >&2
        return 1
      }
    fi
    echo "dbf0: installing requirements.txt into $venv (once; quiet)" >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$root/requirements.txt"
    # No dependencies (requirements.txt pinned them all) and no isolated build (the pinned
    # setuptools is already there): nothing is resolved or downloaded twice.
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation \
      -e "$root" >/dev/null
    printf '%s\n' "$want" > "$venv/.requirements-installed"
  fi
  export PATH="$venv/bin:$PATH"
  export VIRTUAL_ENV=$venv
}
