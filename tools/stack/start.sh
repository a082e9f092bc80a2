#!/usr/bin/env bash
# npm start: install if needed, then bring the platform up (tools/stack/start.ts).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/stack/ensure-deps.sh
exec node -r ./tools/register.js tools/stack/start.ts
