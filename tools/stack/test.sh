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
# The fault-injection file runs on a stack of its own (NATS, PostgreSQL, S3 server and services apart, ports at
# E2E_PORT_BASE + 1000) beside the functional files: most of its time is a PostgreSQL outage of 3 minutes
# (issue 29) that waits, and on one stack it ran after every other file, near half of the e2e time. Its output is
# shown when both are done.
chaos_log="$(mktemp)"
(
  export E2E_NAME="${E2E_NAME:-e2e}_chaos" E2E_PORT_BASE="$(( ${E2E_PORT_BASE:-4000} + 1000 ))"
  eval "$(node -r ./tools/register.js tools/stack/test-infra.ts up)"
  trap 'node -r ./tools/register.js tools/stack/test-infra.ts down' EXIT
  npx jest -c jest.e2e.config.js --ci --runInBand e2e/chaos.e2e-spec.ts
) > "$chaos_log" 2>&1 &
chaos_pid=$!
e2e_status=0
npx jest -c jest.e2e.config.js --ci --runInBand --testPathIgnorePatterns 'chaos\.e2e-spec\.ts$' || e2e_status=$?
chaos_status=0
wait "$chaos_pid" || chaos_status=$?
echo "== e2e tests: fault injection (its own stack)"
cat "$chaos_log"
rm -f "$chaos_log"
if [ "$e2e_status" -ne 0 ] || [ "$chaos_status" -ne 0 ]; then
  echo "e2e failed: functional files exit $e2e_status, fault injection exit $chaos_status" >&2
  exit 1
fi
