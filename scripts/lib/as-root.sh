# Sourced by the set-up scripts. Runs a command as root: directly when we are root, through non-interactive
# sudo otherwise; else stops through the caller's `fail`, naming the command (which says what to install).
as_root() {
  if [[ "$(id -u)" -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo -n "$@"
  else
    fail "root is needed to run '$*': run this as root, give this user password-less sudo, or run it yourself"
  fi
}
