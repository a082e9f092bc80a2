#!/usr/bin/env bash
# npm run chaos: the full fault-injection suite (e2e/chaos.e2e-spec.ts with CHAOS_FULL=1) on a stack of
# its own: private NATS JetStream and S3 server (killed and frozen by the suite), every service as a
# process, two gateway and two processor replicas. Prints the fault table; bench-results/chaos-full.json.
set -euo pipefail
cd "$(dirname "$0")/../.."
export NX_DAEMON=false CHAOS_FULL=1
export E2E_NAME="${E2E_NAME:-chaos}" E2E_PORT_BASE="${E2E_PORT_BASE:-7000}"
bash tools/stack/ensure-deps.sh
eval "$(node -r ./tools/register.js tools/stack/test-infra.ts up)"
trap 'node -r ./tools/register.js tools/stack/test-infra.ts down' EXIT
npx jest -c jest.e2e.config.js --ci --runInBand e2e/chaos ${CHAOS_ROWS:+-t "$CHAOS_ROWS"}
