#!/usr/bin/env bash
# Only src/platform/ and src/measure/ may include the headers of CUDA (cuda_runtime.h, cuda.h, cuda_fp16.h, ...),
# NCCL (nccl.h), MPI (mpi.h) or NVML (nvml.h): the rest of linkscope is host-only, so it builds and is unit-tested
# without them. mpi.h is stricter: only src/platform/ (the MPI adapters, platform/mpi_adapter.c) includes it.
# Lists every offending include and exits 1; exits 0 when there is none.
# Usage: scripts/check-gpu-headers.sh [SRC_DIR]   (ctest runs it as SourceLayout.OnlyPlatformAndMeasureIncludeGpuHeaders)
set -euo pipefail
src=${1:-"$(cd "$(dirname "$0")/.." && pwd)/src"}
cd "$src"
include='^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](cuda[A-Za-z0-9_]*|nccl[A-Za-z0-9_]*|mpi|nvml)\.h[>"]'
offenders=$(grep -rnE "$include" . | sed 's|^\./||' | grep -vE '^(platform|measure)/' || true)
mpi_include='^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]mpi\.h[>"]'
mpi_offenders=$(grep -rnE "$mpi_include" . | sed 's|^\./||' | grep -vE '^platform/' || true)
if [ -n "$mpi_offenders" ]; then
  echo "mpi.h included outside src/platform/ (linkscope opens MPI at run time through platform/mpi_library.hpp):"
  echo "$mpi_offenders"
  exit 1
fi
if [ -n "$offenders" ]; then
  echo "CUDA, NCCL, MPI or NVML headers included outside src/platform/ and src/measure/ (call a platform/ or"
  echo "measure/ function instead):"
  echo "$offenders"
  exit 1
fi
echo "ok: only src/platform/ and src/measure/ include CUDA, NCCL, MPI or NVML headers"
