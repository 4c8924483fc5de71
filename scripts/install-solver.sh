#!/usr/bin/env bash
# Installs CaDiCaL, the SAT solver scripts/corollary2_sat.py runs (Debian's
# package). Neither the build nor the tests need it: the tests pin its answers
# (tests/data/corollary2/, tests/host/test_aapc_sequence_sat.cpp).
set -euo pipefail
command -v cadical >/dev/null && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
$sudo apt-get update
$sudo apt-get install -y cadical
