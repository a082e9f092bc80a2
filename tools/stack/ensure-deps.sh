#!/usr/bin/env bash
# Installs the npm dependencies when node_modules is missing or older than package-lock.json.
# `npm install` (not `npm ci`): this npm writes lockfiles without other platforms' optional packages
# (@swc/core-darwin-*, …) and `npm ci` then refuses them as out of sync; `npm install` installs the
# locked versions all the same and leaves the lockfile as it is.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "[stack] installing dependencies (npm install from package-lock.json)"
  npm install --no-audit --no-fund
fi
