# Sourced by the Action's steps: the key inputs (INPUT_* variables, set by action.yml) become the command's
# environment variables, each only where it was given. Keys travel in the environment only, never on a command line.
export_if() { if [ -n "${2:-}" ]; then export "$1=$2"; fi; }
export_if GATEWAY_BASE_URL "${INPUT_BASE_URL:-}"
export_if GATEWAY_API_KEY "${INPUT_API_KEY:-}"
for n in 0 1 2 3 4 5; do
  var="INPUT_API_KEY_TIER$n"
  export_if "GATEWAY_API_KEY_TIER$n" "${!var:-}"
done
