#!/usr/bin/env bash
# The Action's conformance step: the inputs (INPUT_* variables, set by action.yml) become the command's settings,
# the run's exit code is kept, not acted on, so that the summary, annotations and upload still happen; the verdict
# and the report folder go to GITHUB_OUTPUT, summary.md to GITHUB_STEP_SUMMARY, each failed requirement becomes an
# annotation. Keys arrive as environment variables only, never on a command line.
set -uo pipefail
bin="${GC_BIN:?GC_BIN: the installed gateway-conformance command}"
report_root="${INPUT_REPORT_DIR:-gateway-conformance-reports}"
out="${GITHUB_OUTPUT:-/dev/null}"
summary_page="${GITHUB_STEP_SUMMARY:-/dev/null}"

# shellcheck source=action/keys.sh
source "$(dirname "${BASH_SOURCE[0]}")/keys.sh"
export_if GATEWAY_SUSPENDED_API_KEY "${INPUT_SUSPENDED_API_KEY:-}"
export_if GATEWAY_MODELS "${INPUT_MODELS:-}"
export_if GATEWAY_NAMES "${INPUT_NAMES:-}"
export_if GATEWAY_BUDGET_USD "${INPUT_BUDGET_USD:-}"

args=(conformance --report-dir "$report_root")
if [ -n "${INPUT_CONFIG:-}" ]; then args+=(--config "$INPUT_CONFIG"); fi
if [ -n "${INPUT_FAMILIES:-}" ]; then args+=(--family "$INPUT_FAMILIES"); fi
if [ -n "${INPUT_BASELINE:-}" ]; then args+=(--baseline "$INPUT_BASELINE"); fi

"$bin" "${args[@]}"
code=$?
echo "exit-code=$code" >> "$out"

latest="$report_root/latest"
if [ -f "$latest/summary.json" ]; then
  dir="$(cd "$latest" && pwd -P)"
  echo "report-dir=$dir" >> "$out"
  cat "$latest/summary.md" >> "$summary_page"
  node "$(dirname "$0")/annotate.mjs" "$latest/summary.json" "$out"
else
  echo "verdict=error" >> "$out"
  echo "The conformance run wrote no summary (exit $code): see its log." >> "$summary_page"
fi
# The step itself succeeds: the Action's last step fails the job with this code, after the reports are uploaded.
exit 0
