#!/usr/bin/env bash
# FAKE stand-in for an msOpGen project's build.sh (tests only): prints progress line by line and
# writes build_out/custom_opp_<os>_<arch>.run, which "installs" by creating the vendor folders.
set -e
echo "[fake build] configuring $(basename "$PWD")"
sleep "${FAKE_BUILD_SLEEP:-0}"
[ -f op_kernel/add_custom.cpp ] || { echo "op_kernel/add_custom.cpp:1:1: error: missing kernel" >&2; exit 1; }
if grep -q FAKE_COMPILE_ERROR op_kernel/*.cpp; then
  line=$(grep -n FAKE_COMPILE_ERROR op_kernel/add_custom.cpp | head -1 | cut -d: -f1)
  echo "$PWD/op_kernel/add_custom.cpp:$line:5: error: 'FAKE_COMPILE_ERROR' was not declared in this scope" >&2
  exit 1
fi
mkdir -p build_out
cat > build_out/custom_opp_ubuntu_x86_64.run <<'RUN'
#!/usr/bin/env bash
# FAKE custom op package: honours --install-path like the real makeself .run
for a in "$@"; do case "$a" in --install-path=*) dest="${a#--install-path=}";; esac; done
mkdir -p "$dest/vendors/customize/op_api/lib" "$dest/vendors/customize/op_api/include"
echo fake > "$dest/vendors/customize/op_api/lib/libcust_opapi.so"
echo "[fake install] into $dest"
RUN
echo "[fake build] done"
