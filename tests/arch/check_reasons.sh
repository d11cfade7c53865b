#!/bin/sh
# The refusal-reason rule of docs/architecture.md ("Refusal reasons"),
# checked on the host side of src/: a PTO_RUNTIME_ERR_* status is only
# ever produced by simpler_fail(), which records the reason. Every line
# of code that names such a status (or a local alias of one: `#define
# BAD PTO_...`, `const int bad = PTO_...`) as a value, rather than to
# compare with, must be an argument of simpler_fail(...), or carry a
# tag comment `reason: <who records it>` on that line or the line above,
# for a status whose reason is recorded elsewhere (the caller that knows
# the field, the device-call wrapper). A status passed up unchanged from
# a callee (`return rc;`) is not a producer and is not checked: its
# producer is. src/simdev/ (the device's own SIMDEV_* codes) and
# src/device/ (codes latched on the device, named by the host that
# reads them) are outside the rule. Prints each offending line as
# FILE:LINE: text and exits 1 when there is one.
#   usage: check_reasons.sh SOURCE_DIR
set -u
root=${1:?usage: check_reasons.sh SOURCE_DIR}
cd "$root" || exit 2

files=$(find src -name '*.[ch]' ! -path 'src/simdev/*' ! -path 'src/device/*' | sort)
status=0
for f in $files; do
    awk -v file="$f" '
    # Splits a line into its code (comments and string literals blanked)
    # and its comment text, carrying an open /* */ across lines.
    function split_line(s,    out, com, i, c, n) {
        out = ""; com = ""; n = length(s); i = 1
        while (i <= n) {
            c = substr(s, i, 1)
            if (in_comment) {
                if (substr(s, i, 2) == "*/") { in_comment = 0; i += 2; continue }
                com = com c; i++; continue
            }
            if (substr(s, i, 2) == "/*") { in_comment = 1; i += 2; continue }
            if (substr(s, i, 2) == "//") { com = com substr(s, i + 2); break }
            if (c == "\"" || c == "\047") {
                q = c; out = out " "; i++
                while (i <= n && substr(s, i, 1) != q) {
                    if (substr(s, i, 1) == "\\") i++
                    i++
                }
                i++; continue
            }
            out = out c; i++
        }
        code = out; comment = com
    }
    # Pass 1: the file'"'"'s aliases of a status; an alias whose definition
    # is tagged (on its line or the comment just above) is exempt.
    FNR == NR {
        if ($0 ~ /reason:/) alias_tag = 1
        else if ($0 !~ /^[ \t]*(\/\*|\*)/) { was_tag = alias_tag; alias_tag = 0 }
        if (match($0, /#define[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]+PTO_RUNTIME_ERR_[A-Z_]+/)) {
            t = substr($0, RSTART, RLENGTH); sub(/#define[ \t]+/, "", t); sub(/[ \t].*/, "", t)
            if (!was_tag && $0 !~ /reason:/) alias[t] = 1
        }
        if (match($0, /const[ \t]+int[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]*=[ \t]*PTO_RUNTIME_ERR_[A-Z_]+/)) {
            t = substr($0, RSTART, RLENGTH); sub(/const[ \t]+int[ \t]+/, "", t); sub(/[ \t]*=.*/, "", t)
            alias[t] = 1
        }
        next
    }
    {
        split_line($0)
        tagged = (comment ~ /reason:/) || prev_tagged
        prev_tagged = (comment ~ /reason:/) && code ~ /^[ \t]*$/
        line = code
        # Inside an open simpler_fail( call every status is its argument.
        if (fail_depth > 0) {
            fail_depth += gsub(/\(/, "(", line) - gsub(/\)/, ")", line)
            next
        }
        if (line ~ /^[ \t]*#[ \t]*define/ || line ~ /const[ \t]+int[ \t]+[A-Za-z_0-9]+[ \t]*=/)
            next
        if (index(line, "simpler_fail(")) {
            rest = substr(line, index(line, "simpler_fail("))
            fail_depth = gsub(/\(/, "(", rest) - gsub(/\)/, ")", rest)
            if (fail_depth < 0) fail_depth = 0
            next
        }
        produced = 0
        work = line
        while (match(work, /[A-Za-z_][A-Za-z0-9_]*/)) {
            tok = substr(work, RSTART, RLENGTH)
            before = substr(work, 1, RSTART - 1)
            after = substr(work, RSTART + RLENGTH)
            work = after
            if (!(tok ~ /^PTO_RUNTIME_ERR_/ || (tok in alias)))
                continue
            if (before ~ /(==|!=)[ \t]*$/ || after ~ /^[ \t]*(==|!=)/ || before ~ /case[ \t]*$/)
                continue
            if (before ~ /^[ \t]*$/ && prev_code ~ /(==|!=)[ \t]*$/)
                continue
            produced = 1
        }
        if (produced && !tagged)
            printf "%s:%d: %s\n", file, FNR, $0
    }
    { if (code !~ /^[ \t]*$/) prev_code = code }' "$f" "$f"
done | grep . && status=1

if [ "$status" -ne 0 ]; then
    echo "the lines above produce a status without a reason: write them as"
    echo "  return simpler_fail(STATUS, \"<argument or field> = <given>: <expected>\", ...);"
    echo "or tag the line /* reason: <who records it> */ (docs/architecture.md, \"Refusal reasons\")"
    exit 1
fi
echo "reasons: every status in src/ is produced through simpler_fail or tagged"
