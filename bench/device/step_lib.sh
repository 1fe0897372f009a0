# Shared by bench/device scripts that record one command per step (source it; the caller sets $out):
# run NAME COMMAND... writes the command's stdout, stderr, exit code and wall seconds to $out/NAME.{out,err,rc,seconds}.
run() {
  local name=$1
  shift
  local start end
  start=$(date +%s.%N)
  "$@" >"$out/$name.out" 2>"$out/$name.err"
  echo $? >"$out/$name.rc"
  end=$(date +%s.%N)
  awk "BEGIN { printf \"%.1f\n\", $end - $start }" >"$out/$name.seconds"
}
