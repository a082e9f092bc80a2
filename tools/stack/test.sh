#!/usr/bin/env bash
# npm test: install if needed, lint, type check, unit and integration tests (real PostgreSQL, NATS
# JetStream, S3), then the e2e suite against all eight services as separate processes.
set -euo pipefail
cd "$(dirname "$0")/../.."
export NX_DAEMON=false
bash tools/stack/ensure-deps.sh

echo "== lint"
npm run -s lint
echo "== OpenAPI lint (redocly, recommended rules)"
npm run -s openapi:lint
echo "== type check"
npm run -s typecheck

eval "$(node -r ./tools/register.js tools/stack/test-infra.ts up)"
trap 'node -r ./tools/register.js tools/stack/test-infra.ts down' EXIT

echo "== unit and integration tests"
npx jest -c jest.config.js --ci
echo "== e2e tests"
npx jest -c jest.e2e.config.js --ci --runInBand
