#!/usr/bin/env bash
# Installs Debian's `prometheus` (a real Prometheus server) for the metrics test, which starts its own
# instance on a loopback port to scrape the controller and the local server. Idempotent. The package's own
# service (which would listen on :9090 and scrape itself) is stopped and disabled after install.
set -euo pipefail

readonly PROMETHEUS_BIN=/usr/bin/prometheus
readonly SERVICE=prometheus

log() { printf '[setup-prometheus] %s\n' "$*"; }
fail() { printf '[setup-prometheus] error: %s\n' "$*" >&2; exit 1; }

# shellcheck source=lib/as-root.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/as-root.sh"

install_package() {
  command -v apt-get >/dev/null 2>&1 || fail "apt-get not found: install Prometheus so that ${PROMETHEUS_BIN} exists"
  log "installing Debian package ${SERVICE}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${SERVICE}"
}

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
  if ls /etc/rc?.d/S??"${SERVICE}" >/dev/null 2>&1; then
    log "disabling the ${SERVICE} service at boot"
    as_root update-rc.d "${SERVICE}" disable
  fi
}

if [ -x "${PROMETHEUS_BIN}" ]; then
  log "${PROMETHEUS_BIN} already installed"
else
  install_package
  [ -x "${PROMETHEUS_BIN}" ] || fail "the package installed but ${PROMETHEUS_BIN} is missing"
fi
stop_package_service
log "ready: $("${PROMETHEUS_BIN}" --version 2>&1 | head -n 1)"
