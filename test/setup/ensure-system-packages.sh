#!/usr/bin/env bash
# Run by `npm test` (pretest) before anything else: the Debian packages the test suite needs.
#   browser tests:        chromium at /usr/bin/chromium (driven by playwright-core)
#   scale-out test:       redis-server at /usr/bin/redis-server
#   training smoke test:  torch, onnx and numpy for /usr/bin/python3, with OpenBLAS (without it Debian's torch runs
#                         on the reference BLAS, 10-40x slower)
#   eval:modes test:      tetgen at /usr/bin/tetgen and scipy for /usr/bin/python3 (the full-FEM reference)
# When something is missing it installs it with apt-get if it can (root, or passwordless sudo); otherwise it says
# what is missing and the command that installs it, and exits 1. With everything present it takes a few
# milliseconds (the Python check only locates the modules, it does not import torch).
set -euo pipefail

PYTHON_PACKAGES=(python3-torch python3-onnx python3-numpy libopenblas0-pthread)

missing_packages() {
  local packages=() what=()
  if [ ! -x /usr/bin/chromium ]; then
    packages+=(chromium)
    what+=("/usr/bin/chromium (browser tests)")
  fi
  if [ ! -x /usr/bin/redis-server ]; then
    packages+=(redis-server)
    what+=("/usr/bin/redis-server (scale-out test)")
  fi
  if [ ! -x /usr/bin/python3 ] || ! /usr/bin/python3 -c '
import importlib.util, sys
sys.exit(0 if all(importlib.util.find_spec(m) for m in ("torch", "onnx", "numpy")) else 1)' 2>/dev/null \
    || [ ! -e /usr/lib/x86_64-linux-gnu/openblas-pthread ]; then
    packages+=("${PYTHON_PACKAGES[@]}")
    what+=("torch, onnx and numpy for /usr/bin/python3, with OpenBLAS in /usr/lib/x86_64-linux-gnu/openblas-pthread (training smoke test)")
  fi
  if [ ! -x /usr/bin/tetgen ]; then
    packages+=(tetgen)
    what+=("/usr/bin/tetgen (eval:modes test)")
  fi
  if [ ! -x /usr/bin/python3 ] || ! /usr/bin/python3 -c '
import importlib.util, sys
sys.exit(0 if importlib.util.find_spec("scipy") else 1)' 2>/dev/null; then
    packages+=(python3-scipy)
    what+=("scipy for /usr/bin/python3 (eval:modes test)")
  fi
  MISSING=("${packages[@]}")
  MISSING_WHAT=("${what[@]}")
}

MISSING=()
MISSING_WHAT=()
missing_packages
[ ${#MISSING[@]} -eq 0 ] && exit 0

say() { echo "ensure-system-packages: $*" >&2; }

say "missing:"
for line in "${MISSING_WHAT[@]}"; do say "  $line"; done

as_root=()
can_install=no
if command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then
    can_install=yes
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    can_install=yes
    as_root=(sudo -n)
  fi
fi

if [ "$can_install" = no ]; then
  if command -v apt-get >/dev/null 2>&1; then
    say "cannot install them (not root, and no passwordless sudo); install them with:"
    echo "  sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y ${MISSING[*]} && (sudo service redis-server stop || true)" >&2
  else
    say "no apt-get here; on Debian 12 they come from:"
    echo "  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y ${MISSING[*]}" >&2
    say "elsewhere, provide the paths above (the tests use those exact paths)"
  fi
  exit 1
fi

say "installing with apt-get: ${MISSING[*]}"
installing_redis=no
for p in "${MISSING[@]}"; do [ "$p" = redis-server ] && installing_redis=yes; done
# Wait for the dpkg lock rather than fail if another apt-get is running.
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y "${MISSING[@]}"
if [ "$installing_redis" = yes ]; then
  # The package starts a system redis on 6379; the tests start their own on free ports.
  "${as_root[@]}" service redis-server stop >/dev/null 2>&1 || true
fi

missing_packages
if [ ${#MISSING[@]} -gt 0 ]; then
  say "still missing after apt-get install:"
  for line in "${MISSING_WHAT[@]}"; do say "  $line"; done
  exit 1
fi
say "done"
