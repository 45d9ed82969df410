#!/usr/bin/env bash
# System packages the platform needs: bubblewrap for the sandbox; a C compiler for the zygote's
# fork loop (runner/sandbox/_forkserver.c, which `pip install -e .` builds); Chromium for the browser
# tests; docker-compose (the client) to validate docker-compose.yml. Installs only what is
# missing, and only as root on Debian/Ubuntu; elsewhere it says what to install.
set -euo pipefail
need=()
command -v bwrap >/dev/null || need+=(bubblewrap)
command -v gcc >/dev/null || need+=(gcc libc6-dev)
if [ "${TORCHDRILL_SKIP_TEST_DEPS:-0}" != 1 ]; then
  [ -x /usr/bin/chromium ] || need+=(chromium)
  command -v docker-compose >/dev/null || need+=(docker-compose)
fi
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing: ${need[*]}"
  # Wait for another apt/dpkg run (unattended upgrades on a fresh machine) instead of failing.
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${need[@]}" >/dev/null
else
  echo "missing system packages: ${need[*]} (install them with your package manager)" >&2
  [[ " ${need[*]} " == *" bubblewrap "* || " ${need[*]} " == *" gcc "* ]] && exit 1
  exit 0
fi
