# Sourced by ./dev and .ci/run: puts Node >= 22 and the pinned pnpm first on PATH, installing
# them from the npm registry into a cache folder when the machine lacks them.
NODE_MAJOR=24
PNPM_VERSION=10.34.8
TOOLCHAIN_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/social-publisher"

node_major() {
  if command -v node >/dev/null 2>&1; then
    node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0
  else
    echo 0
  fi
}

ensure_node() {
  if [ "$(node_major)" -ge 22 ]; then return; fi
  local os arch
  case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; *) os=unknown ;; esac
  case "$(uname -m)" in x86_64 | amd64) arch=x64 ;; aarch64 | arm64) arch=arm64 ;; *) arch=unknown ;; esac
  local pkg="node-$os-$arch"
  local bin="$TOOLCHAIN_CACHE/node$NODE_MAJOR/node_modules/$pkg/bin"
  if [ ! -x "$bin/node" ]; then
    echo "node $(node -v 2>/dev/null || echo '(none)') is older than 22: installing $pkg@$NODE_MAJOR into $TOOLCHAIN_CACHE" >&2
    npm install --prefix "$TOOLCHAIN_CACHE/node$NODE_MAJOR" --no-save --no-package-lock --no-audit \
      --no-fund --loglevel=error "$pkg@$NODE_MAJOR" >&2
  fi
  export PATH="$bin:$PATH"
}

ensure_pnpm() {
  if command -v pnpm >/dev/null 2>&1 && [ "$(pnpm -v 2>/dev/null)" = "$PNPM_VERSION" ]; then return; fi
  local bin="$TOOLCHAIN_CACHE/pnpm-$PNPM_VERSION/node_modules/.bin"
  if [ ! -x "$bin/pnpm" ]; then
    npm install --prefix "$TOOLCHAIN_CACHE/pnpm-$PNPM_VERSION" --no-save --no-package-lock --no-audit \
      --no-fund --loglevel=error "pnpm@$PNPM_VERSION" >&2
  fi
  export PATH="$bin:$PATH"
}

ensure_toolchain() {
  ensure_node
  ensure_pnpm
}
