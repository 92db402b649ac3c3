#!/usr/bin/env bash
# Installs Debian's `docker-registry` (a real OCI distribution registry) for the controller's
# tag-to-digest tests. Idempotent. The tests start their own instances on loopback ports, so the
# package's own service (which would listen on :5000) is stopped and disabled after install.
set -euo pipefail

readonly REGISTRY_BIN=/usr/bin/docker-registry
readonly SERVICE=docker-registry

log() { printf '[setup-registry] %s\n' "$*"; }
fail() { printf '[setup-registry] error: %s\n' "$*" >&2; exit 1; }

# shellcheck source=lib/as-root.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/as-root.sh"

install_package() {
  command -v apt-get >/dev/null 2>&1 || fail "apt-get not found: install a distribution v2 registry so that ${REGISTRY_BIN} exists"
  log "installing Debian package ${SERVICE}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${SERVICE}"
}

# The package enables and starts a service on :5000 where the init system allows it (containers with
# policy-rc.d do not start it, but still enable it for the next boot); the tests need none of it.
stop_package_service() {
  if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
    if systemctl is-enabled --quiet "${SERVICE}" 2>/dev/null || systemctl is-active --quiet "${SERVICE}" 2>/dev/null; then
      log "stopping and disabling the systemd service ${SERVICE}"
      as_root systemctl disable --now "${SERVICE}"
    fi
    return
  fi
  [ -x "/etc/init.d/${SERVICE}" ] || return 0
  if "/etc/init.d/${SERVICE}" status >/dev/null 2>&1; then
    log "stopping the init.d service ${SERVICE}"
    as_root "/etc/init.d/${SERVICE}" stop
  fi
  if ls /etc/rc?.d/S??"${SERVICE}" >/dev/null 2>&1 || [ -e "/etc/systemd/system/multi-user.target.wants/${SERVICE}.service" ]; then
    # On Debian, update-rc.d also removes the systemd unit's boot-time link.
    log "disabling the ${SERVICE} service at boot"
    as_root update-rc.d "${SERVICE}" disable
  fi
}

if [ -x "${REGISTRY_BIN}" ]; then
  log "${REGISTRY_BIN} already installed"
else
  install_package
  [ -x "${REGISTRY_BIN}" ] || fail "the package installed but ${REGISTRY_BIN} is missing"
fi
stop_package_service
log "ready: $("${REGISTRY_BIN}" --version)"
