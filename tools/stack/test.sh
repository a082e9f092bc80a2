#!/usr/bin/env bash
# npm test: install if needed, lint, type check, unit and integration tests (real PostgreSQL, NATS
# JetStream, S3), then the e2e suite against all eight services as separate processes.
set -euo pipefail
cd "$(dirname "$0")/../.."
export NX_DAEMON=false
bash tools/stack/ensure-deps.sh

# The type check runs beside the lint (each uses about one core; side by side they save the type check's half
# minute); its output is shown once the lint is done.
typecheck_log="$(mktemp)"
npm run -s typecheck > "$typecheck_log" 2>&1 &
typecheck_pid=$!
echo "== lint"
npm run -s lint
echo "== OpenAPI lint (redocly, recommended rules)"
npm run -s openapi:lint
echo "== type check"
typecheck_status=0
wait "$typecheck_pid" || typecheck_status=$?
cat "$typecheck_log"
rm -f "$typecheck_log"
if [ "$typecheck_status" -ne 0 ]; then
  exit "$typecheck_status"
fi

eval "$(node -r ./tools/register.js tools/stack/test-infra.ts up)"
trap 'node -r ./tools/register.js tools/stack/test-infra.ts down' EXIT

echo "== unit and integration tests"
npx jest -c jest.config.js --ci
echo "== e2e tests"
npx jest -c jest.e2e.config.js --ci --runInBand
