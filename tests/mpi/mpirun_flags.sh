# Sourced by the MPI test scripts: the flags every mpirun of theirs takes.
# Ranks share this machine's 2 cores (--oversubscribe), and Open MPI refuses
# root without --allow-run-as-root, which CI runs as.
flags=(--oversubscribe)
if [ "$(id -u)" -eq 0 ]; then flags+=(--allow-run-as-root); fi
