#!/usr/bin/env bash
# The packages CPack makes from a built tree: the .tar.gz unpacks anywhere and runs from there (the MPI adapters are
# found beside the binary, under mpirun too), and the .deb installs and uninstalls cleanly (root, and no linkscope
# package already installed: otherwise that part is skipped and said so).
# Usage: check_packages.sh BUILD_DIR   (ctest: Packaging.PackagesInstallAndUninstall)
set -euo pipefail
build=$(readlink -f "$1")
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$build" && cpack -G "DEB;TGZ" -B "$work/packages" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; fail "cpack failed"; }
tarball=$(ls "$work"/packages/linkscope-*-linux-*.tar.gz)
deb=$(ls "$work"/packages/linkscope_*.deb)
echo "ok: cpack made $(basename "$tarball") and $(basename "$deb")"

expected=(bin/linkscope bin/all_reduce_perf bin/sendrecv_perf lib/linkscope/liblinkscope_mpi_openmpi.so
          lib/linkscope/liblinkscope_mpi_mpich.so share/man/man1/linkscope.1 share/bash-completion/completions/linkscope
          share/zsh/vendor-completions/_linkscope share/doc/linkscope/README.md share/doc/linkscope/multi-node.md)

# The README's one-line install for a node without a package manager, into a scratch prefix.
prefix=$work/prefix
mkdir -p "$prefix"
tar -xzf "$tarball" -C "$prefix" --strip-components=1
for file in "${expected[@]}"; do [ -e "$prefix/$file" ] || fail "the tarball lacks $file"; done
[ "$(readlink "$prefix/bin/all_reduce_perf")" = linkscope ] || fail "bin/all_reduce_perf is not a link to linkscope"
"$prefix/bin/linkscope" version | grep -q '^linkscope ' || fail "the unpacked linkscope does not run"
bash -c "source '$prefix/share/bash-completion/completions/linkscope' && complete -p linkscope" >/dev/null ||
  fail "the bash completion does not register for linkscope"
man -l "$prefix/share/man/man1/linkscope.1" 2>/dev/null | grep -q 'doctor' || fail "the man page does not describe doctor"
echo "ok: the tarball unpacks with every file and runs from $prefix"
if mpirun=$(command -v mpirun.openmpi || command -v mpirun); then
  out=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 CUDA_VISIBLE_DEVICES= \
        "$mpirun" --allow-run-as-root --oversubscribe -np 2 "$prefix/bin/linkscope" coll --dry-run 2>&1) ||
    fail "mpirun -np 2 of the unpacked linkscope failed: $out"
  [[ $out == *"processes: 2 (MPI, OMPI_COMM_WORLD_SIZE=2)"* ]] || fail "the unpacked linkscope under mpirun: $out"
  echo "ok: the unpacked linkscope runs under mpirun -np 2 (adapter from $prefix/lib/linkscope)"
fi

if [ "$(id -u)" -ne 0 ] || ! command -v dpkg >/dev/null; then
  echo "SKIP: the .deb install needs root and dpkg"
  exit 0
fi
if dpkg-query -W -f='${Status}' linkscope 2>/dev/null | grep -q "install ok installed"; then
  echo "SKIP: a linkscope package is installed on this machine; its .deb install is not tested over it"
  exit 0
fi
dpkg -i "$deb" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -i failed"; }
dpkg -L linkscope >"$work/files"
for file in "${expected[@]}"; do grep -qx "/usr/$file" "$work/files" || { dpkg -P linkscope >/dev/null; fail "the .deb lacks /usr/$file"; }; done
/usr/bin/linkscope version | grep -q '^linkscope ' || { dpkg -P linkscope >/dev/null; fail "/usr/bin/linkscope does not run"; }
echo "ok: the .deb installs $(grep -c . "$work/files") paths and /usr/bin/linkscope runs"
dpkg -P linkscope >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -P failed"; }
dpkg-query -W -f='${Status}' linkscope 2>/dev/null | grep -q "install ok installed" && fail "linkscope is still installed"
while read -r path; do
  [ -d "$path" ] && continue
  [ ! -e "$path" ] && [ ! -L "$path" ] || fail "$path is left after dpkg -P linkscope"
done <"$work/files"
[ ! -e /usr/lib/linkscope ] || fail "/usr/lib/linkscope is left after dpkg -P linkscope"
echo "PASS: the packages install and uninstall cleanly"
