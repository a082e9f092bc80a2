#!/usr/bin/env bash
# Installs the npm dependencies when node_modules is missing or older than package-lock.json.
# `npm install` (not `npm ci`): this npm writes lockfiles without other platforms' optional packages
# (@swc/core-darwin-*, …) and `npm ci` then refuses them as out of sync; `npm install` installs the
# locked versions all the same and leaves the lockfile as it is.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "[stack] installing dependencies (npm install from package-lock.json)"
  # onnxruntime-node ships its CPU library in the package; its install script would fetch GPU parts from
  # outside the registry (this npm may run it for a package new to the tree), so it is told to skip.
  # --prefer-offline: the lockfile pins every version and its integrity, so npm's cache need not be revalidated
  # package by package (82 s against 99 s for the same install, one after the other, on this project's machine).
  ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund --prefer-offline
fi
