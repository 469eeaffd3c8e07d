#!/usr/bin/env bash
# What `npm test` runs before the suite, side by side on the two cores: the type
# check of everything (tests too), which in the same pass emits dist/ for the e2e
# tests (the suite's global setup then finds it fresh and does not build again),
# and the linter (the dashboard's front end, web/, has its own type check). Fails when either fails.
set -u
cd "$(dirname "$0")/../.."
node_modules/.bin/tsc -p tsconfig.check.json &
typecheck=$!
node_modules/.bin/tsc -p web/tsconfig.json
web=$?
node_modules/.bin/eslint .
lint=$((web || $?))
wait "$typecheck"
types=$?
exit $((types || lint))
