#!/usr/bin/env bash
# The project never commits a script that builds nccl-tests, nvbandwidth or NCCL (their code is read for facts and built
# only inside a device call, by the caller): this fails when a script or CMake file of the tree names their build
# inputs. Lists the offenders and exits 1; exits 0 when there is none.
# Usage: scripts/check-no-reference-build.sh [SOURCE_DIR]   (ctest: SourceLayout.NoScriptBuildsAReference)
set -euo pipefail
root=${1:-"$(cd "$(dirname "$0")/.." && pwd)"}
cd "$root"
# nccl-tests' Makefile variable, its sources' build folder, nvbandwidth's sources as compiler inputs.
pattern='NVCC_GENCODE|make[^|;]* -C[^|;]*nccl-tests|(testcases_ce|testcases_sm|multinode_memcpy|nvbandwidth)\.cpp'
# The repository's files: tracked or to be added (git ignores what the developer keeps aside, e.g. a scratch script
# carried to a device call); outside a git checkout, every file under the folder.
list_files() {
  if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$root" ls-files -co --exclude-standard
  else
    find . -path ./build -prune -o -path ./.git -prune -o -type f -print | sed 's|^\./||'
  fi
}
offenders=$(list_files | grep -E '(\.sh|\.py|\.cmake|/CMakeLists\.txt|^CMakeLists\.txt|(^|/)run)$' |
            grep -v '^scripts/check-no-reference-build\.sh$' |
            while IFS= read -r file; do [ -f "$file" ] && grep -lE "$pattern" "$file" || true; done)
if [ -n "$offenders" ]; then
  echo "scripts that build nccl-tests or nvbandwidth (build references inside the device call instead):"
  echo "$offenders"
  exit 1
fi
echo "ok: no script or CMake file builds nccl-tests or nvbandwidth"
