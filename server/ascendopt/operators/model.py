"""Records that describe an AscendC operator found in a workspace."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from ascendopt.operators.cpp_source import SourceRange
from ascendopt.operators.issues import Issue
from ascendopt.operators.spec import OperatorSpec

Layout = Literal["msopgen", "cann_open", "kernel_launch"]
Side = Literal["host", "kernel"]
ParamRole = Literal["input", "output", "workspace", "tiling"]


class Param(BaseModel):
    name: str
    type: str
    role: ParamRole
    tensor: str | None = None  # kernel-launch: the tensor main.cpp binds it to (`./input/input_x.bin` → x)

    @property
    def by_value(self) -> bool:
        """Passed by value (a struct or a scalar), not as a GM address."""
        return "*" not in self.type and "GM_ADDR" not in self.type and "&" not in self.type


class KernelEntry(BaseModel):
    name: str
    params: list[Param]
    range: SourceRange  # the whole function definition
    extern_c: bool = True
    template: str | None = None  # `<typename T, int N>` when the entry is a template
    template_args: str | None = None  # `<half, 8>`: the instantiation the launch site names
    # A template no launch instantiates: CANN's build instantiates it for every ASCENDC_TPL_SEL combination
    # and the tiling key picks one at run time (the CPU twin's entry shim does the same).
    tiling_key_template: bool = False

    def names(self, role: ParamRole) -> list[str]:
        return [p.name for p in self.params if p.role == role]


class TorchCall(BaseModel):
    """A torch extension's launch function (`at::Tensor run_add(const at::Tensor &x, …)` in pybind11.cpp):
    the twin builds the extension source against its stand-in of torch and pybind11 and calls this
    function with each case's tensors and attrs, as the Python test calls it (cpu_twin/torch_ext.py)."""

    function: str  # qualified: `my_add::run_add_custom`
    params: list[tuple[str, str]]  # (name, "tensor" | "scalar") in order: an input, or an attr
    outputs: list[str]  # the tensors it returns, in order
    line: int  # of the function's definition
    glue: str = ""  # C++ the CPU-debug build lacks after the source: its `k_do` wrappers (guarded out there)
    headers: dict[str, str] = Field(default_factory=dict)  # generated `aclrtlaunch_<k>.h` → its text


class HostProgram(BaseModel):
    """A kernel-launch sample whose main.cpp computes what the kernel gets (`GenerateTiling(…)` into the
    tiling buffer): the twin builds and runs main.cpp itself in CPU-debug mode, as `run.sh -r cpu` does.
    The shapes are then main.cpp's (its constants, or the sizes its host code reads from a file)."""

    calls: list[str] = Field(default_factory=list)  # `GenerateTiling(…) at main.cpp:29`, for the messages
    line: int = 1  # main.cpp's line of the first such call
    files: dict[str, str] = Field(default_factory=dict)  # tensor → the path main.cpp reads or writes
    sources: list[str] = Field(default_factory=list)  # main.cpp's own host sources (`*_tiling.cpp`)
    call: TorchCall | None = None  # a torch extension: the function the twin calls instead of a main


class TilingProgram(BaseModel):
    function: str
    range: SourceRange
    sets_block_dim: bool
    sets_tiling_key: bool
    block_dim_expr: str | None = None  # kernel-launch: the block dim as the launch writes it
    block_dim: int | None = None  # …and its value, when main.cpp determines it
    launch: str | None = None  # kernel-launch: how main.cpp launches (`ICPU_RUN_KF`, `add_custom_do`, …)
    # kernel-launch: main.cpp itself runs (its host code fills what the launch passes)
    host_program: HostProgram | None = None


class TilingField(BaseModel):
    name: str
    type: str
    array_length: str | None = None
    range: SourceRange


class Constant(BaseModel):
    name: str
    type: str
    value: str  # the literal as written
    side: Side
    range: SourceRange  # of the literal only: replacing it changes the value
    # A function's local initialised from this literal and never written again (not const).
    local: bool = False


class OpDefTensor(BaseModel):
    name: str
    dtypes: list[str]  # ge::DataType names as written (DT_FLOAT16, …)
    param_type: str = "REQUIRED"  # ParamType(REQUIRED | OPTIONAL | DYNAMIC)
    # Outputs: `.OutputShapeDependOnCompute()`, the kernel writes the shape to an extra argument.
    shape_depends_on_compute: bool = False


class OpDefAttr(BaseModel):
    """`this->Attr("negative_slope").AttrType(OPTIONAL).Float(0.0)`."""

    name: str
    type: Literal["float", "int", "bool", "str", "list_int"] | None = None  # None: one the spec cannot carry
    default: float | int | bool | str | list[int] | None = None
    line: int = 0


class OpDefInfo(BaseModel):
    """What the host file's `class X : public OpDef` declares."""

    op_type: str
    inputs: list[OpDefTensor] = Field(default_factory=list)
    outputs: list[OpDefTensor] = Field(default_factory=list)
    attrs: list[OpDefAttr] = Field(default_factory=list)


KnobKind = Literal[
    "buffer_num", "tile_length", "block_dim", "tile_num", "core_grain", "threshold", "annotated", "region"
]


class ScaledLink(BaseModel):
    """Another place that must carry the knob's value times `factor` (the host's UB-tensor count,
    `BUFFER_NUM = 6`, is the kernel's queue depth `BUFFER_NUM = 2` times its 3 queues)."""

    range: SourceRange
    factor: int


class Knob(BaseModel):
    name: str
    kind: KnobKind
    side: Side
    source: Literal["annotation", "inferred", "evolve_region"]
    range: SourceRange
    # Other places that must carry the same value (BUFFER_NUM mirrored on host and kernel).
    links: list[SourceRange] = Field(default_factory=list)
    scaled_links: list[ScaledLink] = Field(default_factory=list)
    current: int | str
    values: list[int] = Field(default_factory=list)  # empty for a free-form region
    constraints: list[str] = Field(default_factory=list)
    # What its value does in the tiling, from where it flows (operators/dataflow.py): tile_elems,
    # tile_bytes, block_dim, buffer_num, core_grain, tile_num, threshold; None: from its name only.
    role: str | None = None
    sinks: list[str] = Field(default_factory=list)  # where its value lands (`block_dim at x.cpp:42`)


class RefusedConstant(BaseModel):
    """A constant the knob finder considered and left alone, and why (`ascendopt knobs --all`)."""

    name: str
    side: Side
    file: str
    line: int
    value: str
    reason: str


class OperatorFiles(BaseModel):
    """Paths relative to the operator root."""

    kernel: str
    host: str | None = None  # the file with the tiling program
    tiling_data: str | None = None  # where the tiling-data layout is declared
    spec: str | None = None
    extra: list[str] = Field(
        default_factory=list
    )  # other files the candidate carries (reference, launch main)
    # The rest of the build context (project_files): local headers, CMake files, scripts; for an
    # operator inside a repository also the repo files its sources include, keyed relative to the
    # operator root (`../../common/inc/op_host/x.h`; see OperatorProject.tree_files).
    context: list[str] = Field(default_factory=list)
    # Other host sources linked with the tiling program (`*_tiling_arch35.cpp` it calls into).
    host_sources: list[str] = Field(default_factory=list)
    opdef: str | None = None  # the file with the OpDef, when not the host file (`op_host/<op>_def.cpp`)

    def named(self) -> list[str]:
        named = (self.kernel, self.host, self.tiling_data, self.opdef, self.spec, *self.host_sources)
        named += tuple(self.extra)
        return list(dict.fromkeys(f for f in named if f))

    def all(self) -> list[str]:
        named = self.named()
        return [*named, *(f for f in self.context if f not in named)]


class MissingInclude(BaseModel):
    """A quoted `#include` found in neither the operator folder nor its repository."""

    header: str
    file: str  # relative to the operator root
    line: int
    searched: list[str]  # folders looked in, relative to the operator root
    # Where the repository has a file of that path after all (repo-relative; the whole repository
    # was searched): a folder its build's include path lacks. Empty: nowhere in the repository.
    elsewhere: list[str] = Field(default_factory=list)


class RepoContext(BaseModel):
    """The repository a CANN open-repo operator sits in: its build reads more than the operator folder."""

    root: Path
    prefix: str  # the operator folder inside it, POSIX (`norm/rms_norm`)
    include_dirs: list[str] = Field(default_factory=list)  # repo-relative, as its CMake lists them
    soc_family: str = "ascend910b"  # the SoC whose variant was picked
    # Headers carried where CANN's kernel build finds them, not where they sit (a kernel's
    # `../rms_norm/x.h` is norm/rms_norm/op_kernel/x.h): context key → the file, from the op root.
    relocated: dict[str, str] = Field(default_factory=dict)
    # Sources elsewhere in the repo linked with the tiling program, as CANN's one host library links
    # them: they define what its repo headers declare (repository.definition_sources); from the op root.
    host_links: list[str] = Field(default_factory=list)
    # Includes resolved nowhere in the repo: the toolchain (twin or CANN) must provide them.
    unresolved: list[MissingInclude] = Field(default_factory=list)


class OperatorProject(BaseModel):
    name: str  # the kernel entry's name
    root: Path
    layout: Layout
    files: OperatorFiles
    kernel: KernelEntry
    tiling: TilingProgram | None = None
    tiling_struct: str | None = None
    tiling_fields: list[TilingField] = Field(default_factory=list)
    opdef: OpDefInfo | None = None
    constants: list[Constant] = Field(default_factory=list)
    knobs: list[Knob] = Field(default_factory=list)
    refused: list[RefusedConstant] = Field(default_factory=list)  # constants considered, not knobs
    spec: OperatorSpec | None = None
    issues: list[Issue] = Field(default_factory=list)
    repo: RepoContext | None = None
    external_spec: Path | None = None  # a spec kept outside the tree (`--spec`); its reference beside it

    @property
    def spec_root(self) -> Path:
        """The folder the spec's `reference = "file.py:fn"` is relative to."""
        return self.external_spec.parent if self.external_spec is not None else self.root

    def tree_files(self, files: Mapping[str, str]) -> dict[str, str]:
        """`files` (keyed relative to the operator root) as laid out in a build folder: inside a
        repository, the repository's shape (operator files under its prefix, repo headers at their
        repo paths), so relative includes resolve as in the checkout; else unchanged."""
        if self.repo is None:
            return dict(files)
        return {posixpath.normpath(f"{self.repo.prefix}/{rel}"): text for rel, text in files.items()}

    def source_dir(self, tree: str) -> str:
        """Where the operator folder is inside a build folder laid out by `tree_files`."""
        return f"{tree}/{self.repo.prefix}" if self.repo is not None else tree

    @property
    def op_type(self) -> str:
        if self.opdef is not None:
            return self.opdef.op_type
        return "".join(part.capitalize() for part in self.name.split("_"))

    def knob(self, name: str) -> Knob:
        for k in self.knobs:
            if k.name == name:
                return k
        raise KeyError(f"{self.name} has no knob {name!r}; knobs: {', '.join(k.name for k in self.knobs)}")

    def read_files(self) -> dict[str, str]:
        """Every file a candidate carries: the named ones (which must read) and the build context
        (a context file that is not UTF-8 text, or vanished since discovery, is left out)."""
        out = {}
        for rel in self.files.all():
            try:
                real = self.repo.relocated.get(rel, rel) if self.repo is not None else rel
                out[rel] = (self.root / real).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                if rel in self.files.named():
                    raise
        return out
