#!/usr/bin/env bash
# The example's git repository on this machine, and a wait for the server's builds of it.
#   repo.sh init <dir>                       a repository with an app on main (one commit)
#   repo.sh commit <dir> <greeting>          a commit on main that changes the app's greeting; prints its id
#   repo.sh branch <dir> <branch> <greeting> a branch with a commit of its own (main stays checked out)
#   repo.sh wait <server> <service> <commit> waits until the Service's last build is that commit, then
#                                            prints its phase and latest revision (fails on a failed build)
#   repo.sh wait-preview <server> <service> <branch>
#                                            waits until the Service lists a preview for the branch and
#                                            that preview's first build minted a revision; prints both
set -euo pipefail

# A fixed identity: the commits do not depend on the user's git configuration (a fresh HOME has none).
git_() { git -c user.name="git-source example" -c user.email="example@example.dev" -c init.defaultBranch=main "$@"; }

write_app() { # <dir> <greeting>
  cat >"$1/index.js" <<APP
export default {
  fetch: () => new Response("$2"),
};
APP
}

SERVICES=/apis/compute.example.dev/v1alpha1/services
TIMEOUT_S=${REPO_SH_TIMEOUT_S:-180}

# The Service as JSON, or nothing while the server does not answer.
service_json() { curl -fsS "$1$SERVICES/$2" 2>/dev/null || true; }

case "${1:-}" in
init)
  dir=$2
  mkdir -p "$dir"
  git_ -C "$dir" init --quiet
  write_app "$dir" "hello from main"
  git_ -C "$dir" add --all
  git_ -C "$dir" commit --quiet -m "the app"
  git_ -C "$dir" rev-parse HEAD
  ;;
commit)
  dir=$2
  write_app "$dir" "$3"
  git_ -C "$dir" commit --quiet -am "greeting: $3"
  git_ -C "$dir" rev-parse HEAD
  ;;
branch)
  dir=$2 branch=$3
  git_ -C "$dir" checkout --quiet -b "$branch"
  write_app "$dir" "$4"
  git_ -C "$dir" commit --quiet -am "greeting: $4"
  git_ -C "$dir" rev-parse HEAD
  git_ -C "$dir" checkout --quiet main
  ;;
wait)
  server=$2 service=$3 commit=$4
  for ((i = 0; i < TIMEOUT_S * 2; i++)); do
    json=$(service_json "$server" "$service")
    if [[ $(jq -r '.status.lastBuild.commit // ""' <<<"$json") == "$commit" ]]; then
      phase=$(jq -r '.status.lastBuild.phase' <<<"$json")
      if [[ $phase == Failed ]]; then
        echo "the build of $commit failed: $(jq -r '.status.lastBuild.message' <<<"$json")" >&2
        exit 1
      fi
      echo "$service built $commit: $(jq -r '.status.latestRevision' <<<"$json")"
      exit 0
    fi
    sleep 0.5
  done
  echo "no build of $commit for Service $service within ${TIMEOUT_S}s" >&2
  exit 1
  ;;
wait-preview)
  server=$2 service=$3 branch=$4
  for ((i = 0; i < TIMEOUT_S * 2; i++)); do
    preview=$(jq -r --arg branch "$branch" '.status.previews[]? | select(.branch == $branch) | .name' \
      <<<"$(service_json "$server" "$service")")
    if [[ -n $preview ]]; then
      revision=$(jq -r '.status.latestRevision // ""' <<<"$(service_json "$server" "$preview")")
      if [[ -n $revision ]]; then
        echo "preview $preview of branch $branch: $revision"
        exit 0
      fi
    fi
    sleep 0.5
  done
  echo "no preview of branch $branch with a revision for Service $service within ${TIMEOUT_S}s" >&2
  exit 1
  ;;
*)
  sed -n '2,12p' "$0" >&2
  exit 2
  ;;
esac
