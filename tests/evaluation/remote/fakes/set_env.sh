# FAKE CANN set_env.sh for tests: no Ascend machine exists here. It puts the fake msprof on the
# command line the way the real set_env.sh puts CANN's tools on PATH.
FAKE_CANN="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export ASCEND_TOOLKIT_HOME="$FAKE_CANN"
export FAKE_CANN
msprof() { python3 "$FAKE_CANN/fake_msprof" "$@"; }
