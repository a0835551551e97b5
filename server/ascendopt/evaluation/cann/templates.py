"""CANN command templates: every step a shell snippet the user can override.

Overrides: `[commands]` in `.ascendopt/remote.toml` (workspace), `[operators.<op>.commands]`
there, and `<operator>/ascendopt.remote.toml` (`[commands]`), later ones winning.

Variables (values are shell-quoted when substituted; `{app}` is a command, inserted as is):

    {cann}     the host's CANN folder (holds set_env.sh)      {soc}       SoC, e.g. Ascend910B2
    {src}      the candidate's uploaded sources               {op}        kernel name (add_custom)
    {build}    build folder (host cache, per source hash)     {op_type}   OpDef type (AddCustom)
    {install}  private install path of the custom op package {device}    device id of this slot
    {driver}   folder of the generated test driver            {manifest}  case manifest (inputs/outputs)
    {work}     the case's folder (inputs in, outputs out)     {prof_out}  msprof --output folder
    {launch_count} {warm_up}  msprof op launch counts         {app}       the `app` step, rendered
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping

from ascendopt.evaluation.runner import RunnerError

# msOpGen projects: build.sh → custom_opp_*.run → installed into a private path → aclnn driver.
MSOPGEN: dict[str, str] = {
    "env": "source {cann}/set_env.sh",
    "build": "cd {build} && bash build.sh",
    "install": "bash {build}/build_out/custom_opp_*.run --quiet --install-path={install}",
    "driver_build": (
        "cd {driver} && g++ -std=c++17 -O2 ascendopt_driver.cpp -o ascendopt_driver "
        '-I"$ASCEND_TOOLKIT_HOME/include" -I{install}/vendors/customize/op_api/include '
        '-L"$ASCEND_TOOLKIT_HOME/lib64" -L{install}/vendors/customize/op_api/lib '
        "-lascendcl -lnnopbase -lopapi -lcust_opapi"
    ),
    "run_env": (
        "export ASCEND_CUSTOM_OPP_PATH={install}/vendors/customize:${{ASCEND_CUSTOM_OPP_PATH:-}}; "
        "export LD_LIBRARY_PATH={install}/vendors/customize/op_api/lib:${{LD_LIBRARY_PATH:-}}"
    ),
    "app": "{driver}/ascendopt_driver {manifest}",
    "run": "cd {work} && {app}",
    "profile": (
        "cd {work} && msprof op --output={prof_out} --kernel-name={op} "
        "--launch-count={launch_count} --warm-up={warm_up} {app}"
    ),
    "version": (
        "cat {cann}/version.cfg {cann}/*/ascend_toolkit_install.info 2>/dev/null | grep -im1 'version'"
    ),
}

# Kernel-launch projects (CMake, `<<<>>>` main.cpp reading input/*.bin, writing output/*.bin).
KERNEL_LAUNCH: dict[str, str] = {
    **MSOPGEN,
    "build": (
        "cd {build} && cmake -S . -B build -DRUN_MODE=npu -DSOC_VERSION={soc} "
        "-DASCEND_CANN_PACKAGE_PATH={cann} -DCMAKE_INSTALL_PREFIX=out && cmake --build build -j "
        "&& cmake --install build"
    ),
    "install": "true",
    "driver_build": "true",
    "run_env": "true",
    "app": "{build}/out/bin/ascendc_kernels_bbit",
    # Where the sample's main.cpp reads and writes, relative to {work}.
    "input_file": "input/input_{name}.bin",
    "output_file": "output/output_{name}.bin",
}

RAW = frozenset({"app"})
_FIELD = re.compile(r"\{(\w+)\}")


class TemplateError(RunnerError, ValueError):
    """A template names a variable we do not have: a settings mistake, reported on the evaluation."""


def defaults(layout: str) -> dict[str, str]:
    return dict(KERNEL_LAUNCH if layout == "kernel_launch" else MSOPGEN)


def render(template: str, values: Mapping[str, str]) -> str:
    """Fill `{name}` fields, shell-quoting each value (`{{` and `}}` stay literal braces)."""

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            raise TemplateError(f"template {template!r}: unknown variable {{{name}}}")
        value = values[name]
        return value if name in RAW else shlex.quote(value)

    text = template.replace("{{", "\0").replace("}}", "\1")
    return _FIELD.sub(one, text).replace("\0", "{").replace("\1", "}")
