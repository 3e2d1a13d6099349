#!/bin/sh
# Side by side with Kannel (issue 18): installs what the run needs with apt when it is missing
# (Kannel and its fakesmsc, wrk, nginx), builds Switchboard, and runs bench/vs-kannel/run.mjs
# under the machine's heavy lock (nothing else heavy runs meanwhile). Arguments go to run.mjs.
# Usage: bench/vs-kannel/run.sh [--rounds 3] [--seconds 20] [--connections 50] [--modes dlr,plain]
#        [--carrier smpp] [--systems kannel,kannel-spool,switchboard,node-http,storage-floor]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

missing=""
command -v /usr/sbin/bearerbox >/dev/null 2>&1 || missing="$missing kannel"
[ -x /usr/lib/kannel/test/fakesmsc ] || missing="$missing kannel-extras"
command -v wrk >/dev/null 2>&1 || missing="$missing wrk"
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing="$missing nginx-light"
if [ -n "$missing" ]; then
  echo "installing:$missing"
  if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=""; fi
  $sudo apt-get update -q >/dev/null
  # The Debian package starts a system-wide Kannel and nginx; the benchmark runs its own.
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q $missing >/dev/null
  $sudo systemctl stop kannel nginx 2>/dev/null || $sudo service kannel stop 2>/dev/null || true
fi

cd "$root"
[ -d node_modules ] || npm ci
npm run build >/dev/null
exec flock "${SWITCHBOARD_HEAVY_LOCK:-/tmp/switchboard-heavy.lock}" node "$here/run.mjs" "$@"
