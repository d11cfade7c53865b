#!/bin/sh
# Usage: make_seeds.sh BUILD_DIR OUT_DIR
# Writes the seed corpus of every libFuzzer target in tests/fuzz/ into
# OUT_DIR/<target>/ from a built tree, so the seeds follow format
# changes: rerun it (and commit tests/fuzz/corpus) when a format moves.
#  - fuzz_callable_image: the real images the build packed (examples and
#    test fixtures);
#  - fuzz_graph_requirements: one seed per image (first byte) with the
#    argument counts its signature wants and small shapes;
#  - fuzz_loader: each mode with a few truncation and patch choices;
#  - fuzz_graph_image: graph images the host build wrote
#    (seed_graph_images, built with the tests), and one zero header;
#  - fuzz_task_args_build, fuzz_ctx_control, fuzz_cli_options,
#    fuzz_kernel_packet, fuzz_callable_build: short inputs in each
#    target's own decoding (its source says how the bytes are read).
set -eu
build=$1 out=$2
mkdir -p "$out/fuzz_callable_image" "$out/fuzz_graph_requirements" "$out/fuzz_loader" \
  "$out/fuzz_callable_build" "$out/fuzz_graph_image" "$out/fuzz_task_args_build" "$out/fuzz_ctx_control" \
  "$out/fuzz_cli_options" "$out/fuzz_kernel_packet"
for img in "$build"/examples/*.callable "$build"/tests/fixtures/*/*.callable; do
  [ -f "$img" ] && cp "$img" "$out/fuzz_callable_image/$(basename "$img")"
done
# Image index (order of FUZZ_IMAGES), tensor count, scalar count, then
# per tensor shape, dtype, mangle; then scalars.
seed() { name=$1; shift; printf "$*" >"$out/$name"; }
# bytes NAME B...: the decimal bytes B, in order.
bytes() { name=$1; shift; for b in "$@"; do printf "\\$(printf %03o "$b")"; done >"$out/$name"; }
# args NAME ARG...: a command line, the arguments separated by NUL.
args() { name=$1; shift; first=1; for a in "$@"; do [ $first = 1 ] || printf '\000'; printf '%s' "$a"; first=0; done >"$out/$name"; }
seed fuzz_graph_requirements/vector '\000\003\000\020\001\000\020\001\000\020\001\000'
seed fuzz_graph_requirements/add_scalar '\001\002\001\020\001\000\020\001\000\002'
seed fuzz_graph_requirements/matmul_add '\002\004\000\010\001\000\010\001\000\010\001\000\010\001\000'
seed fuzz_graph_requirements/vadd '\003\003\002\020\001\000\020\001\000\020\001\000\002\000'
seed fuzz_graph_requirements/diamond '\004\002\000\020\001\000\020\001\000'
seed fuzz_loader/check_untouched '\000'
seed fuzz_loader/check_cut '\000\001\000'
seed fuzz_loader/load_untouched '\001\000\000'
seed fuzz_loader/load_cut '\001\001\000'
seed fuzz_loader/load_ehdr_patch '\001\000\000\001\022\001'
seed fuzz_callable_build/empty '\000\000\005\000\001'
seed fuzz_callable_build/two_kids '\003\001\001\000\002\000\001\000\002\000\001\001\000\000\020\000\002\000\001\001\002\000\020\000\005\000\001\000'
seed fuzz_graph_image/zero '\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000'
"$build"/tests/seed_graph_images "$out/fuzz_graph_image" 48

# fuzz_task_args_build: config fields; caller count - 1; per caller
# space (1 DEVICE), dtype - 1, offset (DEVICE only), elems - 1, mangle;
# counts; task count - 1; per task arg count - 1, then per argument
# tensor, view form (0 whole, 1 quarter + which, 2 slice + start + cols,
# 64 block + cols + stride + start + rows), tag choice (0/1 input,
# 2 output, 3 inout, 4 no_dep).
bytes fuzz_task_args_build/overlap_chain 0 2 1 0 0 31 0 1 0 64 23 0 0 0 15 0 0 \
  5 1 0 0 2 1 2 0 8 0 1 0 0 0 2 1 1 1 3 0 2 3 2 0 0 0 4 0 0 2 1 64 2 1 0 1 0 3 0 6 0 0 1 1 0 0
bytes fuzz_task_args_build/heap_and_host 1 8 3 0 0 0 15 0 0 2 20 7 0 0 \
  3 2 3 0 2 0 0 0 4 0 3 1 4 0 0 0 0 0 4 2 0 0 3
bytes fuzz_task_args_build/bad_tensor 16 1 1 0 1 0 1 0 0 0 5 1 3 0 0 0 0 3
# fuzz_ctx_control: ops (0 CONFIGURE, 1 FREEZE block, 2 freeze, 3 init,
# 4 finalize, 5 program init, 6 plan, 7 layout, 8 size, 9 mode/slots),
# each followed by the bytes it reads. An init that can go through runs
# only on inputs whose FNV-1a hash is below 2^32 / 512 (the target says
# why), so each seed ends with a last "9 X Y" (mode and slots, read after
# every other op) whose X and Y put it there: the seeds' inits run.
creating() {
  name=$1; shift
  set -- $(echo "$@" | awk '
    function bxor(a, b,   r, bit) {
      r = 0
      for (bit = 1; bit < 256; bit *= 2) { if (a % 2 != b % 2) r += bit; a = int(a / 2); b = int(b / 2) }
      return r
    }
    # h = (h ^ b) * 16777619 mod 2^32, in exact double arithmetic.
    function step(h, b,   x) { x = h - h % 256 + bxor(h % 256, b); return ((x % 256) * 16777216 + x * 403) % 4294967296 }
    {
      h = 2166136261
      for (i = 1; i <= NF; i++) h = step(h, $i)
      h = step(h, 9)
      for (x = 0; x < 256; x++) {
        hx = step(h, x)
        for (y = 0; y < 256; y++) if (step(hx, y) < 8388608) { print $0, 9, x, y; exit }
      }
      exit 1
    }')
  bytes "$name" "$@"
}
creating fuzz_ctx_control/configure_init_freeze 0 0 0 3 0 1 1 0 4 3 0 2 2 0
creating fuzz_ctx_control/plan_layout_init 6 2 100 4 100 4 100 4 100 4 0 0 7 100 5 40 3 40 3 40 3 0 9 \
  40 2 40 2 40 2 40 2 40 2 0 12 0 0 7 0 0 0 0 3 0 1 2 0 4 3 0 1
creating fuzz_ctx_control/program_then_kernel 5 0 0 0 3 0 1 2 0 1 0
creating fuzz_ctx_control/bad_controls 0 2 0 0 0 5 3 9 0 1 6 0 0 0 4 2 0 0 0 1 4 2
# The reproducer of a refused init (a 5 TB heap) left latched.
creating fuzz_ctx_control/regress-refused-init-unlatches 6 2 100 4 100 4 100 4 100 4 0 0 7 228 5 40 3 40 3 40 3 0 \
  9 40 2 40 66 40 13 40 2 40 2 0 12 0 0 7 0 0 0 0 3 0 1 2 0 4 3 8 1
# A sequence without the salt: its init is skipped, and its
# CONFIGURE mangled into a FREEZE is accepted as a CONFIGURE.
bytes fuzz_ctx_control/regress_configure_as_freeze 5 2 0 9 0 0 3 0 0 1 195 1 1 0 4 4 2 1 0 4 4 2
# fuzz_cli_options: a command line.
args fuzz_cli_options/run_program vector --mode program --runs 3 --json
args fuzz_cli_options/run_trace add_scalar --trace t.json --cores 2
args fuzz_cli_options/help --runs --help
args fuzz_cli_options/bad_values --runs 2x --mode bogus --cores 0 extra
args fuzz_cli_options/image --image x.callable --replays 7 --mode program
# The pack, graph and inspect parsers read the same lines.
args fuzz_cli_options/pack -o out.callable --orchestration orch.so --entry build_graph --sig in,in,out,scalar \
  --kernel 0:AIV:k/add.so:in,in,out:add --kernel 1:AIC:mm.so --kernel 2:AIV:a:b.so:inout
args fuzz_cli_options/pack_bad --kernel 1024:AIV:x.so --kernel 3:XPU:x.so --sig in,sideways -o
args fuzz_cli_options/pack_names --output o --orchestration o.so --entry e --kernel 0:AIC:dir/.so:scalar,in \
  --kernel 7:AIV:x.so::in --kernel 8:AIV:very_long_kernel_name_that_does_not_fit.so
args fuzz_cli_options/graph x/vector.callable --dot out.dot --example add_scalar
args fuzz_cli_options/graph_bad vector --dot a.dot extra --bogus
args fuzz_cli_options/inspect_json image.callable --json
args fuzz_cli_options/inspect_dash -x --json second
# fuzz_kernel_packet: tasks - 1, image size (two bytes), staged off/on,
# staged size / 8, staged count - 1, id, generation - 1, spare
# definition and temp room / 8, tensor and scalar counts, flags (1:
# fresh checksum; 0x20/0x40: change a byte of the decoy slot record /
# status words, offset (two bytes) and xor; 2/8: point slot_addr /
# status_addr elsewhere: 0 decoy, 1 inside the block at an offset (two
# bytes), 2 wild (two bytes, then four); 4/0x10: make the descriptor
# agree), then (offset high, offset low, byte) writes.
bytes fuzz_kernel_packet/plain 3 20 4 1 0 1 0 0 0
bytes fuzz_kernel_packet/staged 7 40 0 0 4 1 2 5 2 2 3 1 0
bytes fuzz_kernel_packet/length_write 3 20 4 0 4 0 1 0 1 1 2 1 1 1 64 9
bytes fuzz_kernel_packet/wild_slot_addr 3 20 4 1 0 1 0 0 0 0 3 2 0 0 1 2 3 4
bytes fuzz_kernel_packet/decoy_slot_changed_agreeing 3 20 4 1 0 1 0 0 0 0 39 0 0 5 0 0 0
bytes fuzz_kernel_packet/decoy_status_agreeing 3 20 4 1 0 1 0 0 0 0 25 0 0 0
bytes fuzz_kernel_packet/status_in_block_agreeing 3 20 4 1 0 1 0 0 0 0 25 1 64 0
# The reproducer of the packet check reading past its block (descriptor,
# header and packet lengths changed together; docs/reliability.md).
bytes fuzz_kernel_packet/regress_lengths_together 3 20 4 1 0 0 50 0 0 0 0 0 24 185 1 8 185 0 224 96 0 225 1
# The reproducer of the packet check reading through a wild status_addr
# (docs/reliability.md).
bytes fuzz_kernel_packet/regress_wild_status_addr 7 40 0 0 0 97 112 0 1 2 122 9 5 2 2 3 1 49 24 0
