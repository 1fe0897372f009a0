# Shared by the bench/device side-by-side scripts (source it): a results folder packed into ONE tar at exit, a summary
# log, a time budget and runs captured to files. The caller sets out_root (where NAME.tar goes) and budget (seconds),
# then calls start_results.

# start_results NAME SUBFOLDER...: work, name, res (the packed folder), summary and started; NVLS off; tar at exit.
start_results() {
  name=$1
  shift
  work=$(mktemp -d)
  res=$work/$name
  summary=$res/summary.txt
  started=$SECONDS
  mkdir -p "$res" "$out_root"
  local sub
  for sub in "$@"; do mkdir -p "$res/$sub"; done
  export NCCL_NVLS_ENABLE=0
  trap pack EXIT
}

log() { echo "$*" | tee -a "$summary" >&2; }
over_budget() { (( SECONDS - started > budget )); }
pack() {
  tar -C "$work" -cf "$out_root/$name.tar" "$name"
  echo "$name: results in $out_root/$name.tar" >&2
}

# machine_header LINKSCOPE: the date, host, GPU and linkscope version at the top of the summary.
machine_header() {
  log "# $name $(date -u +%FT%TZ) on $(hostname)"
  nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader >>"$summary" 2>&1
  "$1" version >>"$summary" 2>&1
}

# capture SECONDS BIN BASE ARGS...: BIN's stdout, stderr and exit code in BASE.txt, BASE.err and BASE.rc (127 with a
# note in BASE.err when BIN is not there); the environment is the caller's.
capture() {
  local limit=$1 bin=$2 base=$3
  shift 3
  if [[ ! -x $bin ]]; then
    echo "missing $bin" >"$base.err"
    : >"$base.txt"
    echo 127 >"$base.rc"
    return
  fi
  timeout "$limit" "$bin" "$@" >"$base.txt" 2>"$base.err"
  echo $? >"$base.rc"
}

# nccl_version_of LIB: the "2.x.y" a libnccl.so carries in its version banner (empty when none).
nccl_version_of() { grep -a -o -m1 'NCCL version 2\.[0-9]*\.[0-9]*' "$1" 2>/dev/null | head -1 | awk '{print $3}'; }
