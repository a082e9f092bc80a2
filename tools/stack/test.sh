#!/usr/bin/env bash
# npm test: install if needed, lint, type check, the e2e suite against all eight services as separate processes,
# then the unit and integration tests (real PostgreSQL, NATS JetStream, S3) beside the e2e fault-injection file.
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

# The e2e suite's functional files first, on a stack nobody has broken. Then the fault-injection file beside the
# unit and integration tests: it spends most of its minutes waiting (a 3-minute PostgreSQL outage, recoveries), and
# the unit tests use that idle CPU. It runs as a stack of its own (E2E_NAME <name>_faults: its own PostgreSQL
# cluster, database and S3 folder) on test-infra's second JetStream cluster, so the nodes and the PostgreSQL it kills
# are none the tests use. Its output is shown once it ends, so that its fault table is not cut into.
echo "== e2e tests"
npx jest -c jest.e2e.config.js --ci --runInBand --testPathIgnorePatterns '/chaos\.e2e-spec\.ts$'
echo "== unit and integration tests, with the fault-injection e2e file beside them"
chaos_log="$(mktemp)"
E2E_NAME="${E2E_NAME:-e2e}_faults" E2E_NATS_CLUSTER_URL="$FAULTS_NATS_CLUSTER_URL" \
  npx jest -c jest.e2e.config.js --ci --runInBand e2e/chaos.e2e-spec.ts > "$chaos_log" 2>&1 &
chaos_pid=$!
unit_status=0
npx jest -c jest.config.js --ci || unit_status=$?
chaos_status=0
wait "$chaos_pid" || chaos_status=$?
echo "== e2e fault injection"
cat "$chaos_log"
rm -f "$chaos_log"
if [ "$unit_status" -ne 0 ] || [ "$chaos_status" -ne 0 ]; then
  echo "unit and integration tests: exit ${unit_status}; e2e fault injection: exit ${chaos_status}"
  exit 1
fi
