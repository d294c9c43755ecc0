# Sourced by ./dev and .ci/run: puts Node.js >= 22.19 and pnpm 12.21 on PATH.
# Machines with an older Node get Node 24 and pnpm 12 from the npm registry, cached
# outside the repository (pnpm would fetch a "node" dependency from nodejs.org instead).
toolchain_dir="${SERVICE_SDK_TOOLCHAIN:-${XDG_CACHE_HOME:-$HOME/.cache}/service-sdk/toolchain}"

node_is_recent() {
  command -v node >/dev/null 2>&1 &&
    node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=19)?0:1)'
}

if [ -x "$toolchain_dir/node_modules/.bin/node" ]; then
  PATH="$toolchain_dir/node_modules/.bin:$PATH"
fi
if ! node_is_recent || ! command -v pnpm >/dev/null 2>&1; then
  echo "toolchain: installing Node.js 24 and pnpm 12 into $toolchain_dir" >&2
  mkdir -p "$toolchain_dir"
  npm install --silent --no-audit --no-fund --prefix "$toolchain_dir" node@24 pnpm@12.21.0 >&2
  PATH="$toolchain_dir/node_modules/.bin:$PATH"
fi
export PATH
