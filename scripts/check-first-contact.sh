#!/usr/bin/env bash
# The README's first command, run as a newcomer runs it: a fresh clone of HEAD, an empty HOME
# (no cached toolchain, no pnpm store), `./dev start`, then the curl line it prints, with the
# sample key. Fails unless that line answers 200 with the company. Prints the time from clone
# to first answer.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
log="$work/start.log"
server_pid=""

stop_server() {
  if [ -n "$server_pid" ]; then kill -- "-$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap stop_server EXIT

started=$(date +%s%3N)
# The machine's own PATH, without a toolchain an earlier step put there.
plain_path="$(tr ':' '\n' <<<"$PATH" | grep -v 'service-sdk/toolchain' | paste -sd:)"
git clone --quiet "$repo" "$work/clone"
mkdir "$work/home"
# setsid: ./dev start runs pnpm, which runs node; the whole group is stopped at the end.
(cd "$work/clone" && exec env -u XDG_CACHE_HOME -u XDG_DATA_HOME -u SERVICE_SDK_TOOLCHAIN \
  -u npm_config_cache HOME="$work/home" PATH="$plain_path" setsid ./dev start >"$log" 2>&1) &
server_pid=$!

curl_line=""
for _ in $(seq 1 600); do
  curl_line="$(sed -n 's/^try: //p' "$log")"
  [ -n "$curl_line" ] && break
  if ! kill -0 "$server_pid" 2>/dev/null; then break; fi
  sleep 0.5
done
if [ -z "$curl_line" ]; then
  echo "first contact: ./dev start printed no curl line; its output:" >&2
  cat "$log" >&2
  exit 1
fi

answer="$(SERVICE_SECRET_KEY=sk_live_sample_default_000000000000000000 \
  bash -c "$curl_line -w '\n%{http_code}'")"
status="$(tail -n 1 <<<"$answer")"
body="$(sed '$d' <<<"$answer")"
elapsed_ms=$(($(date +%s%3N) - started))
if [ "$status" != 200 ] || ! grep -q '"domain" *: *"acme.com"' <<<"$body"; then
  echo "first contact: the printed curl line answered $status: $body" >&2
  exit 1
fi
echo "first contact: fresh clone -> ./dev start -> 200 from the printed curl line in $((elapsed_ms / 1000)).$((elapsed_ms % 1000 / 100)) s"
