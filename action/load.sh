#!/usr/bin/env bash
# The Action's load step: the profile against the same target; its verdicts and report are its own, and its
# summary.md joins the job page. A remote target needs its host name typed again (the load command's guard).
set -uo pipefail
bin="${GC_BIN:?GC_BIN: the installed gateway-conformance command}"
report_root="${INPUT_REPORT_DIR:-gateway-conformance-reports}"
summary_page="${GITHUB_STEP_SUMMARY:-/dev/null}"
# shellcheck source=action/keys.sh
source "$(dirname "${BASH_SOURCE[0]}")/keys.sh"
args=(load --profile "${INPUT_LOAD_PROFILE:?INPUT_LOAD_PROFILE}" --report-dir "$report_root")
if [ -n "${GATEWAY_BASE_URL:-}" ]; then
  args+=(--confirm-target "$(node -e 'console.log(new URL(process.env.GATEWAY_BASE_URL).hostname)')")
fi
"$bin" "${args[@]}"
code=$?
if [ -f "$report_root/load/latest/summary.md" ]; then cat "$report_root/load/latest/summary.md" >> "$summary_page"; fi
exit "$code"
