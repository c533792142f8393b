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

# Installs an npm package into $1 so that $1 appears whole or not at all: npm writes into a
# fresh temporary folder beside it, which is then renamed into place. Two commands started at
# once on a fresh machine both install; the first rename wins and the other's copy is dropped,
# so neither ever runs a half-written node or pnpm.
install_into() {
  local target="$1" spec="$2" tmp
  mkdir -p "$(dirname "$target")"
  tmp="$(mktemp -d "$target.tmp.XXXXXX")"
  if ! npm install --prefix "$tmp" --no-save --no-package-lock --no-audit --no-fund \
    --loglevel=error "$spec" >&2; then
    rm -rf "$tmp"
    return 1
  fi
  # A target without the marker was left by an interrupted install of the old layout.
  if [ -d "$target" ] && [ ! -e "$target/.complete" ]; then rm -rf "$target" 2>/dev/null || true; fi
  touch "$tmp/.complete"
  chmod 755 "$tmp"
  # rename(2) is atomic and refuses an existing non-empty folder (then another copy won).
  node -e 'try { require("fs").renameSync(process.argv[1], process.argv[2]) } catch {}' "$tmp" "$target"
  rm -rf "$tmp"
}

# Runs "$@" while holding a lock on folder $1 (one pnpm install at a time in one checkout).
with_lock() {
  local lock="$1/.install.lock"
  shift
  if command -v flock >/dev/null 2>&1; then
    (
      flock 9
      "$@"
    ) 9>"$lock"
  else
    until mkdir "$lock.d" 2>/dev/null; do sleep 0.2; done
    local status=0
    "$@" || status=$?
    rmdir "$lock.d"
    return "$status"
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
    install_into "$TOOLCHAIN_CACHE/node$NODE_MAJOR" "$pkg@$NODE_MAJOR"
  fi
  export PATH="$bin:$PATH"
}

ensure_pnpm() {
  if command -v pnpm >/dev/null 2>&1 && [ "$(pnpm -v 2>/dev/null)" = "$PNPM_VERSION" ]; then return; fi
  local bin="$TOOLCHAIN_CACHE/pnpm-$PNPM_VERSION/node_modules/.bin"
  if [ ! -x "$bin/pnpm" ]; then
    install_into "$TOOLCHAIN_CACHE/pnpm-$PNPM_VERSION" "pnpm@$PNPM_VERSION"
  fi
  export PATH="$bin:$PATH"
}

ensure_toolchain() {
  ensure_node
  ensure_pnpm
}
