#!/usr/bin/env bash
# Install what the browser e2e test (tests/e2e/test_vscode.py) needs, once, into a cache folder:
# code-server 4.100.3 (VS Code 1.100.3, the last release that runs on Node 20) and playwright-core
# (drives Debian's /usr/bin/chromium; no browser download). Idempotent: a second run is a no-op.
#
# Workarounds for an offline machine (a real VS Code in a real browser, with no network):
# node-pty's postinstall calls `npx node-gyp` (npm_config_yes), installs run as root
# (npm_config_unsafe_perm), no prebuilt downloads (npm_config_build_from_source), and
# @vscode/ripgrep's postinstall takes rg from a cache tarball built from Debian's ripgrep.
set -euo pipefail
CODE_SERVER_VERSION=4.100.3
PLAYWRIGHT_VERSION=1.64.1
DIR=${ASCENDOPT_E2E_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/ascendopt-e2e}
stamp="$DIR/.installed-$CODE_SERVER_VERSION-$PLAYWRIGHT_VERSION"
if [ -f "$stamp" ] && [ -x "$DIR/node_modules/.bin/code-server" ]; then
    exit 0
fi
command -v rg >/dev/null || { echo "install.sh: needs ripgrep (apt-get install ripgrep)" >&2; exit 1; }
mkdir -p "$DIR"
tmp=${TMPDIR:-/tmp}
cache="$tmp/vscode-ripgrep-cache-1.15.11"
tarball="$cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz"
if [ ! -f "$tarball" ]; then
    mkdir -p "$cache"
    work=$(mktemp -d)
    cp "$(command -v rg)" "$work/rg"
    tar -C "$work" -czf "$tarball" rg
    rm -rf "$work"
fi
cat > "$DIR/package.json" <<JSON
{
  "name": "ascendopt-e2e-tools",
  "private": true,
  "dependencies": {
    "code-server": "$CODE_SERVER_VERSION",
    "playwright-core": "$PLAYWRIGHT_VERSION"
  }
}
JSON
export npm_config_yes=true npm_config_unsafe_perm=true npm_config_build_from_source=true
(cd "$DIR" && npm install --no-audit --no-fund --loglevel=error)
"$DIR/node_modules/.bin/code-server" --version >/dev/null
rm -f "$DIR"/.installed-*
touch "$stamp"
