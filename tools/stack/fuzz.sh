#!/usr/bin/env bash
# npm run fuzz: the API and decoder fuzzers with a random seed and many more cases than npm test runs.
# Replay a finding with the printed seed: FUZZ_SEED=<seed> / DECODER_FUZZ_SEED=<seed> npm run fuzz.
set -euo pipefail
cd "$(dirname "$0")/../.."
export NX_DAEMON=false
export FUZZ_SEED="${FUZZ_SEED:-$RANDOM$RANDOM}" FUZZ_RUNS="${FUZZ_RUNS:-20000}"
export DECODER_FUZZ_SEED="${DECODER_FUZZ_SEED:-$RANDOM$RANDOM}" DECODER_FUZZ_RUNS="${DECODER_FUZZ_RUNS:-300}"
echo "== fuzz seeds: api ${FUZZ_SEED} (${FUZZ_RUNS} requests), decoders ${DECODER_FUZZ_SEED} (${DECODER_FUZZ_RUNS} inputs per operation)"
npx jest -c jest.config.js --ci tools/fuzz
eval "$(node -r ./tools/register.js tools/stack/test-infra.ts up)"
trap 'node -r ./tools/register.js tools/stack/test-infra.ts down' EXIT
npx jest -c jest.e2e.config.js --ci --runInBand e2e/api-fuzz
