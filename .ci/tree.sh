# Sourced by .ci/typecheck and .ci/imports: mypy and import-linter see the installed layout
# (meetme.generators <- generators/ ...), which pyproject's package-dir mapping creates at
# install time; mirror it with symlinks in a temporary folder, $tree.
top=$(cd "$(dirname "$0")/.." && pwd)
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir "$tree/meetme"
for f in "$top"/meetme/*.py "$top"/meetme/core "$top"/meetme/intent "$top"/meetme/twin; do ln -s "$f" "$tree/meetme/"; done
for pkg in generators validators deploy templates; do ln -s "$top/$pkg" "$tree/meetme/$pkg"; done
