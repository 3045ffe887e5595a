#!/usr/bin/env bash
# Type-checks and lints the whole workspace (tests included) for macOS and
# Windows from Linux: the code behind `cfg(windows)` and
# `cfg(target_os = "macos")` (the identity sandbox, FSEvents and
# ReadDirectoryChangesW through notify, name folding) compiles nowhere else
# here. `cargo clippy` runs build scripts, and pcre2-sys's compiles C for the
# target; no C toolchain for these targets is installed, so a stand-in
# compiler makes empty objects (nothing is linked by a check). Building and
# testing for real is .github/workflows/platforms.yml's job.
# Needs the targets' standard library: `rustup target add` (network).
set -euo pipefail
cd "$(dirname "$0")/.."
fake="$(mktemp -d)"
trap 'rm -rf "$fake"' EXIT
cat > "$fake/cc" <<'SH'
#!/usr/bin/env bash
# Makes each object file asked for (-o FILE, -FoFILE, /FoFILE), empty.
next=
for a in "$@"; do
  if [ -n "$next" ]; then : > "$a"; next=; continue; fi
  case "$a" in -o) next=1 ;; -Fo*|/Fo*) : > "${a:3}" ;; esac
done
SH
cat > "$fake/ar" <<'SH'
#!/usr/bin/env bash
# Makes the archive asked for (-out:FILE or ar's `crs FILE`), empty.
for a in "$@"; do case "$a" in -out:*|/OUT:*|/out:*) : > "${a#*:}" ;; *.a|*.lib) : > "$a" ;; esac; done
SH
chmod +x "$fake/cc" "$fake/ar"
for target in x86_64-pc-windows-msvc x86_64-apple-darwin aarch64-apple-darwin; do
  echo "== $target"
  rustup target add "$target" >/dev/null
  var="${target//-/_}"
  env "CC_$var=$fake/cc" "AR_$var=$fake/ar" \
    cargo clippy --locked --workspace --all-targets --target "$target" --target-dir "target/check-$target" -- -D warnings
done
