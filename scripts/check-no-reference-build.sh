#!/usr/bin/env bash
# The project never commits a script that builds nccl-tests or nvbandwidth (their code is read for facts and built
# only inside a device call, by the caller): this fails when a script or CMake file of the tree names their build
# inputs. Lists the offenders and exits 1; exits 0 when there is none.
# Usage: scripts/check-no-reference-build.sh [SOURCE_DIR]   (ctest: SourceLayout.NoScriptBuildsAReference)
set -euo pipefail
root=${1:-"$(cd "$(dirname "$0")/.." && pwd)"}
cd "$root"
# nccl-tests' Makefile variable, its sources' build folder, nvbandwidth's sources as compiler inputs.
pattern='NVCC_GENCODE|make[^|;]* -C[^|;]*nccl-tests|(testcases_ce|testcases_sm|multinode_memcpy|nvbandwidth)\.cpp'
offenders=$(grep -rlE "$pattern" --include='*.sh' --include='*.py' --include='*.cmake' --include='CMakeLists.txt' \
              --include='run' --exclude-dir=build --exclude-dir=.git . | sed 's|^\./||' |
            grep -v '^scripts/check-no-reference-build\.sh$' || true)
if [ -n "$offenders" ]; then
  echo "scripts that build nccl-tests or nvbandwidth (build references inside the device call instead):"
  echo "$offenders"
  exit 1
fi
echo "ok: no script or CMake file builds nccl-tests or nvbandwidth"
