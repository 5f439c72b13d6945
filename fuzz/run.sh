#!/bin/sh
# make fuzz: seed the corpora and run each libFuzzer target for a bounded time.
#   fuzz/run.sh BUILD FUZZ_BUILD SECONDS [TARGET...]
# BUILD is the main build (fuserc, sample bundle), FUZZ_BUILD the Clang build
# of fuzz/ (fuzz_ir, fuzz_bundle, fuzz_npy). SECONDS is the total budget:
# fuzz_ir gets half (an input there is a whole compile), the others a quarter
# each. Corpora grow in FUZZ_BUILD/corpus/<target>/ from run to run; a crash
# is written to FUZZ_BUILD/artifacts/ and fails the run. The summary, one line
# per target, goes to stdout and to FUZZ_BUILD/fuzz-summary.txt.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
build=$1 fuzz=$2 seconds=${3:-60}
shift 3 || true
targets=${*:-"ir bundle npy"}
mkdir -p "$fuzz/artifacts"

seed() {  # seed TARGET: the kept inputs, plus what the tests and build give
  c=$fuzz/corpus/$1
  mkdir -p "$c"
  cp "$root/fuzz/corpus/$1/"* "$c/" 2>/dev/null || true
  case $1 in
  ir)
    cp "$root"/examples/*.mlir "$c/"
    # Every test case of the .mlir tests, split where lit splits them.
    for f in $(cd "$root" && git ls-files 'test/*.mlir' 2>/dev/null || find test -name '*.mlir'); do
      awk -v out="$c/$(echo "$f" | tr / _)" '
        /^\/\/ -----/ { n++; next }
        { print > (out "." n ".mlir") }' "$root/$f"
    done ;;
  bundle)
    [ -f "$build/test/runtime/sample.bundle" ] && cp "$build/test/runtime/sample.bundle" "$c/"
    for e in bias_gelu softmax dynamic_dims two_kernels column_sum layer_norm var_mean; do
      "$build/bin/fuserc" compile "$root/examples/$e.mlir" -o "$c/$e.bundle"
      "$build/bin/fuserc" compile "$root/examples/$e.mlir" --no-emulation -o "$c/$e.ptx-only.bundle"
    done ;;
  npy)
    /usr/bin/python3 "$root/fuzz/npy_seeds.py" "$c" ;;
  esac
}

# The byte mutations' dictionary for bundles, made from the format's one
# definition (runtime/include/fuser_bundle_format.h): the magic, every
# opcode, parameter kind, dtype, module kind and version as the bytes the
# file holds them in, and "none".
bundle_dict() {
  awk '
    function le(v, n,   s, i) { s = ""; for (i = 0; i < n; i++) { s = s sprintf("\\x%02x", v % 256); v = int(v / 256) } return s }
    $1 == "#define" && $2 == "FUSER_BUNDLE_MAGIC" { print "magic=" $3 }
    $1 == "#define" && $2 ~ /^FUSER_BUNDLE_OP_/ && $2 != "FUSER_BUNDLE_OP_LAST" { print tolower(substr($2, 14)) "=\"" le($3, 2) "\"" }
    $1 == "#define" && $2 ~ /^FUSER_BUNDLE_(PARAM_(PTR|I32|I64)|DTYPE_.*)$/ { print tolower(substr($2, 14)) "=\"" le($3, 1) "\"" }
    $1 == "#define" && $2 ~ /^FUSER_BUNDLE_MODULE_(PTX|EMULATOR)$/ { print tolower(substr($2, 14)) "=\"" le($3, 4) "\"" }
    $1 == "#define" && $2 == "FUSER_BUNDLE_FORMAT_VERSION" { print "version=\"" le($3, 4) "\"" }
    $1 == "#define" && $2 == "FUSER_BUNDLE_NONE" { print "none=\"\\xff\\xff\\xff\\xff\"" }
  ' "$root/runtime/include/fuser_bundle_format.h" > "$1"
}

: > "$fuzz/fuzz-summary.txt"
status=0
for t in $targets; do
  case $t in
  ir) share=2; opts="-dict=$root/fuzz/ir.dict -max_len=8192 -timeout=60" ;;
  bundle) share=4; bundle_dict "$fuzz/bundle.dict"
    opts="-dict=$fuzz/bundle.dict -max_len=65536 -timeout=30" ;;
  npy) share=4; opts="-dict=$root/test/npy/npy.dict -max_len=4096 -timeout=30" ;;
  *) echo "fuzz/run.sh: unknown target '$t'" >&2; exit 1 ;;
  esac
  [ "$targets" = "$t" ] && share=1
  secs=$((seconds / share)); [ "$secs" -lt 1 ] && secs=1
  seed "$t"
  log=$fuzz/fuzz_$t.log
  echo "fuzz_$t: $secs s, corpus $fuzz/corpus/$t ($(ls "$fuzz/corpus/$t" | wc -l) inputs), log $log"
  start=$(date +%s)
  # -rss_limit_mb: LLVM and MLIR hold a few hundred MB; a leak still shows.
  if "$fuzz/fuzz_$t" $opts -max_total_time="$secs" -rss_limit_mb=4096 \
       -print_final_stats=1 -artifact_prefix="$fuzz/artifacts/$t-" \
       "$fuzz/corpus/$t" > "$log" 2>&1; then
    result=clean
  else
    result="FAILED: $(grep -m1 -E '==ERROR|^fuzz_|deadly|timeout|out-of-memory' "$log" || tail -1 "$log")"
    status=1
  fi
  end=$(date +%s)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  line="fuzz_$t: ${execs:-?} executions in $((end - start)) s, corpus $(ls "$fuzz/corpus/$t" | wc -l) inputs: $result"
  echo "$line" | tee -a "$fuzz/fuzz-summary.txt"
done
if [ $status != 0 ]; then
  echo "a fuzz target failed; reproduce with build/bin/fuzz-<target>-replay $fuzz/artifacts/<file>," >&2
  echo "then keep the input in fuzz/corpus/<target>/ with the fix (docs/reliability.md)" >&2
fi
exit $status
