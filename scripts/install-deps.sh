#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages linkscope's build and tests need. Idempotent: does nothing when
# everything is present. The CUDA toolkit and NCCL are prerequisites it checks but does not install.
set -euo pipefail

packages=(
  cmake ninja-build g++ git
  libcli11-dev nlohmann-json3-dev libfmt-dev libpugixml-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-dev
  libopenmpi-dev openmpi-bin libmpich-dev mpich
  slurm-wlm munge
  help2man zsh man-db
  python3-html5lib libxml2-utils prometheus
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
else
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: apt-get not found; install these packages by hand: ${missing[*]}" >&2
    exit 1
  fi
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo_cmd=(sudo)
    else
      echo "install-deps: not root and no sudo; as root run: apt-get install ${missing[*]}" >&2
      exit 1
    fi
  fi
  # libclang-rt-dev is named libclang-rt-<version>-dev on older releases; resolve it to what apt has.
  resolved=()
  for package in "${missing[@]}"; do
    if [ "$package" = libclang-rt-dev ] && ! apt-cache show libclang-rt-dev >/dev/null 2>&1; then
      clang_major=$(clang --version 2>/dev/null | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n1)
      [ -n "$clang_major" ] || clang_major=14
      package="libclang-rt-${clang_major}-dev"
      dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" && continue
    fi
    resolved+=("$package")
  done
  if [ ${#resolved[@]} -gt 0 ]; then
    echo "install-deps: installing ${resolved[*]}"
    export DEBIAN_FRONTEND=noninteractive
    "${sudo_cmd[@]}" apt-get update -qq
    "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${resolved[@]}"
  else
    echo "install-deps: all packages present"
  fi
fi

# Prerequisites that are not Debian packages here: say clearly what is missing, do not fail the host-only build.
nvcc_path=$(command -v nvcc || true)
[ -n "$nvcc_path" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || nvcc_path=/usr/local/cuda/bin/nvcc
if [ -z "$nvcc_path" ]; then
  echo "install-deps: warning: CUDA toolkit (nvcc) not found; install it or configure with -DLINKSCOPE_ENABLE_CUDA=OFF" >&2
fi
nccl_header=""
for dir in "${NCCL_HOME:-}" "${NCCL_ROOT:-}" /usr/local/cuda /usr; do
  if [ -n "$dir" ] && [ -f "$dir/include/nccl.h" ]; then nccl_header="$dir/include/nccl.h"; break; fi
done
if [ -z "$nccl_header" ]; then
  echo "install-deps: warning: nccl.h not found (set NCCL_HOME); the GPU build needs NCCL's headers" >&2
fi
