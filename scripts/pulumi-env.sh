# Sourced by scripts that run the Pulumi CLI: puts the pinned toolchain and Node first on PATH and keeps the
# CLI offline. Without a backend configured by the user, state goes to a file:// backend under the project.
repo=${repo:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
pulumi_bin=$(bash "$repo/scripts/toolchain/build.sh" --print-bin-dir)
# The YAML language host and converter, once built (setup.sh), next to the CLI (scripts/toolchain/yaml.sh).
bash "$repo/scripts/toolchain/yaml.sh" --link-if-built --cli-bin "$pulumi_bin"
export PATH="$pulumi_bin:$repo/node_modules/.bin:$PATH"
export PULUMI_SKIP_UPDATE_CHECK=true
export PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true
if [[ -z "${PULUMI_BACKEND_URL:-}" ]] && ! grep -qs '"current": *"[^"]' "${PULUMI_HOME:-$HOME/.pulumi}/credentials.json"; then
  mkdir -p "$repo/.pulumi-state"
  export PULUMI_BACKEND_URL="file://$repo/.pulumi-state"
  # That backend is a scratch area for the examples and the local API server, so its stacks get a documented
  # default passphrase (not a secret) and every command works in a fresh shell, as `npm run demo` does. Your
  # own PULUMI_CONFIG_PASSPHRASE or PULUMI_CONFIG_PASSPHRASE_FILE wins; a backend you configure gets no default.
  if [[ -z "${PULUMI_CONFIG_PASSPHRASE+set}" && -z "${PULUMI_CONFIG_PASSPHRASE_FILE:-}" ]]; then
    export PULUMI_CONFIG_PASSPHRASE=exampledev-local
  fi
fi
