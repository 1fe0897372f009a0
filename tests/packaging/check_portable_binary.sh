#!/usr/bin/env bash
# The portable binary: it needs glibc alone (NEEDED: libc, libm, libdl, libpthread, librt, the loader), no glibc
# newer than its documented floor, and it starts on a machine with no MPI, no libstdc++ and nothing else installed:
# a chroot holding only the binary, its lib/linkscope adapters and the glibc libraries it names runs `topo --xml`,
# `doctor --xml` and `report`, and under a launcher's variables names the MPI it looked for (exit 3).
# Usage: check_portable_binary.sh BINARY GLIBC_FLOOR FIXTURES_DIR   (ctest: Packaging.PortableBinary)
# Exit 0 pass, 1 fail, 77 skipped (no chroot: neither root nor an unprivileged user namespace).
set -euo pipefail
binary=$(readlink -f "$1")
floor=$2
fixtures=$3
fail() { echo "FAIL: $*" >&2; exit 1; }

needed=$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
allowed='^(libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|librt\.so\.1|ld-linux-x86-64\.so\.2|ld-linux-aarch64\.so\.1)$'
for lib in $needed; do
  [[ $lib =~ $allowed ]] || fail "$binary needs $lib: only glibc's libraries may be NEEDED (open it at run time or link it statically)"
done
echo "ok: NEEDED $needed"

newest=$(objdump -T "$binary" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/^GLIBC_//' | sort -uV | tail -n1)
if [ "$(printf '%s\n%s\n' "$newest" "$floor" | sort -V | tail -n1)" != "$floor" ]; then
  fail "$binary needs glibc $newest, newer than the documented floor $floor: $(objdump -T "$binary" | grep "GLIBC_$newest" | awk '{print $NF}' | tr '\n' ' ')"
fi
echo "ok: newest GLIBC_ symbol version $newest (floor $floor)"

chroot_cmd=()
# Absolute paths: the commands run under `env -i`.
if [ "$(id -u)" -eq 0 ] && chroot / true 2>/dev/null; then
  chroot_cmd=("$(command -v chroot)")
elif unshare -r chroot / true 2>/dev/null; then
  chroot_cmd=("$(command -v unshare)" -r "$(command -v chroot)")
else
  echo "SKIP: cannot chroot here (not root, no user namespaces): the run without MPI was not checked"
  exit 77
fi

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/opt/linkscope/bin" "$root/opt/linkscope/lib" "$root/data" "$root/tmp"
cp "$binary" "$root/opt/linkscope/bin/linkscope"
adapters=$(dirname "$binary")/lib/linkscope
[ -d "$adapters" ] || adapters=$(dirname "$binary")/../lib/linkscope
cp -r "$adapters" "$root/opt/linkscope/lib/"
# Only the glibc libraries the binary names (and the loader), at the paths the loader looks for them.
for path in $(ldd "$binary" | grep -oE '/[^ ]+\.so[^ ]*'); do
  mkdir -p "$root$(dirname "$path")"
  cp -L "$path" "$root$path"
done
cp "$fixtures/h200x2/nccl-topo-dump.xml" "$root/data/topo.xml"
cp "$fixtures/runs/h200x2-healthy.json" "$root/data/run.json"
for lib in libmpi.so.40 libmpi.so.12 libmpich.so.12 libstdc++.so.6 libnccl.so.2 libnvidia-ml.so.1; do
  [ -z "$(find "$root" -name "$lib*")" ] || fail "the chroot holds $lib"
done

# check EXIT TEXT [NAME=VALUE...] -- ARGS...: linkscope ARGS in the chroot, with only those variables set.
check() {
  local expect_rc=$1 expect_text=$2 env_vars=()
  shift 2
  while [ "$1" != "--" ]; do env_vars+=("$1"); shift; done
  shift
  set +e
  output=$(env -i PATH=/opt/linkscope/bin "${env_vars[@]}" "${chroot_cmd[@]}" "$root" /opt/linkscope/bin/linkscope "$@" 2>&1)
  rc=$?
  set -e
  [ "$rc" = "$expect_rc" ] || fail "linkscope $* without MPI: exit $rc, expected $expect_rc: $output"
  [[ $output == *"$expect_text"* ]] || fail "linkscope $* without MPI: no '$expect_text' in: $output"
  echo "ok: linkscope $* (${env_vars[*]:-no launcher}; no MPI, no libstdc++ installed): exit $rc"
}
check 0 "topology model of /data/topo.xml" -- topo --xml /data/topo.xml
check 0 "linkscope doctor" -- doctor --xml /data/topo.xml -o /tmp/doctor
[ -s "$root/tmp/doctor/report.html" ] || fail "linkscope doctor --xml without MPI wrote no report.html"
check 0 "" -- report /data/run.json
check 3 "no MPI library found: tried libmpi.so.40: libmpi.so.40: cannot open shared object file" \
  OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0 -- coll --dry-run
echo "PASS: $binary is portable (glibc $newest and nothing else; starts without MPI)"
