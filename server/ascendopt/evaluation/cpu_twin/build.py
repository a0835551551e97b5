"""Compile an operator for x86 with g++ against the twin's headers; objects cached by content.

Four kinds of object go into one runner executable: the twin runtime (built once
per version of the twin), the host tiling program, the kernel (once per dtype
combination: the `DTYPE_X` macros differ), and a generated launcher that calls
the kernel entry. An object is rebuilt only when its inputs change, so a knob
that lives in the host file does not recompile the kernel.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import posixpath
import re
import shutil
from collections.abc import Sequence
from functools import cache
from pathlib import Path, PurePosixPath

from pydantic import BaseModel

from ascendopt.evaluation.cpu_twin import bisheng, stand_ins, torch_ext
from ascendopt.evaluation.cpu_twin.api import supported_names
from ascendopt.evaluation.cpu_twin.launcher import AIC_PREFIX, entry_shim, launcher_source
from ascendopt.evaluation.diagnostics import map_diagnostics
from ascendopt.evaluation.records import Finding
from ascendopt.evaluation.runner import LocalRunner, Runner, gather_settled
from ascendopt.evaluation.sandbox import SYSTEM_READ, Confinement, Limits, RunResult
from ascendopt.operators.cpp_source import COMMENT
from ascendopt.operators.dtypes import DTYPES
from ascendopt.operators.includes import OPERATOR_FOLDERS, closure, resolve_in_files
from ascendopt.operators.issues import CompileError, Issue
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.repository import repo_places
from ascendopt.operators.soc import Soc

TWIN_DIR = Path(__file__).resolve().parent
INCLUDE_DIR = TWIN_DIR / "include"
RUNTIME_DIR = TWIN_DIR / "runtime"
# The program main for a sample's own main.cpp: linked by `build_main` only (runners have the launcher's).
CPU_DEBUG_MAIN = "cpu_debug_main.cpp"
TWIN_PATTERNS = ("include/**/*", "runtime/*.cpp", "runtime/*.h")

CXX = os.environ.get("ASCENDOPT_CXX", "g++")
CXXFLAGS = ["-std=c++17", "-O1", "-g0", "-w", "-fno-strict-aliasing"]
# Ahead of every file of the operator in a kernel build: reads the twin's headers, then poisons the names
# of its internals (`ascendopt_twin`, `twin_detail`), so a kernel reaches GM and UB only through the
# AscendC API (include/ascendopt_twin/seal.h).
KERNEL_SEAL = ["-include", "ascendopt_twin/seal.h"]
# After the seal in a kernel build of an operator with an op type: the tiling struct GET_TILING_DATA reads
# (it tests -DASCENDOPT_OP_TYPE, so it stays out of the precompiled seal that every operator shares).
KERNEL_OP_TILING = ["-include", "ascendopt_twin/tiling_op.h"]
# The seal (every twin header a kernel reads) is precompiled once per twin and SoC macros, in the build
# cache, and used by every kernel compile with exactly the flags it was made with; g++ falls back to
# reading the headers when it cannot use it (same object either way). Set (to anything): not used.
NO_PCH_ENV = "ASCENDOPT_NO_PCH"
# `sh -c AIC_RENAME sh IN OUT PREFIX`: a mixed kernel's cube-core object IN with every defined symbol
# renamed to PREFIX + its name, into OUT. Both builds of the source define the same names (the entry, every
# inline function and template, with bodies that differ by core); the local ones are renamed too (a COMDAT
# group is kept once per name, and a constructor's group is named by a local symbol). Type information stays
# shared (an exception thrown in one object is caught by its type in another). The shell's builtins only:
# the sandbox has no awk.
AIC_RENAME = (
    'nm --defined-only "$1" > "$2.nm" || exit 1; '
    'while read -r _ _ n; do case "$n" in _ZTI*|_ZTS*) ;; *) echo "$n $3$n";; esac; done'
    ' < "$2.nm" > "$2.syms"; '
    'objcopy --redefine-syms="$2.syms" "$1" "$2"; status=$?; rm -f "$2.nm" "$2.syms"; exit $status'
)
# What CANN's CPU-debug build defines (newer / older samples), so that NPU-only code behind
# `#ifndef ASCENDC_CPU_DEBUG` is left out as in Huawei's own CPU mode.
CPU_DEBUG_MACROS = {"ASCENDC_CPU_DEBUG": 1, "__CCE_KT_TEST__": 1}
CXXFLAGS += [f"-D{name}={value}" for name, value in CPU_DEBUG_MACROS.items()]
# Set (to anything): every compile or link fails at once, cached or not. The test suite sets it for every
# test not marked `slow`, so `pytest -m "not slow"` runs no g++ and a test that builds unmarked fails.
NO_COMPILE_ENV = "ASCENDOPT_NO_COMPILE"
# Links are tried with GNU gold first: it links a runner in about a third of the default linker's (bfd's)
# CPU, most of which bfd spends hashing the shared libraries' symbols. Gold refuses what bfd refuses
# (undefined symbols, a second definition of a runtime symbol), but in other words; the diagnostics and
# the stand-ins read bfd's, so a link gold refuses is done again with bfd, whose result is the one used.
FAST_LINKER = "-fuse-ld=gold"
_COMPILE_LIMITS = Limits(wall_seconds=120, cpu_seconds=120, memory_mb=4096, file_mb=512, no_network=False)


def kernel_macros(soc: Soc) -> dict[str, int]:
    """Every macro the twin's kernel build for `soc` defines: its architecture macros (operators/soc.py),
    so `#if __CCE_AICORE__ == 220` branches compile as on that SoC, and the CPU-debug ones. What a scan
    of its source must read `#if` with (work behind `#if defined(__CCE_KT_TEST__)` is compiled, and run,
    here)."""
    return {**soc.arch, **CPU_DEBUG_MACROS}


# spec dtype → the C++ type CANN's build puts in DTYPE_<NAME>
CTYPES = {name: d.ctype for name, d in DTYPES.items()}


class BuildCache(BaseModel):
    """Objects and executables under one folder, named by the hash of what produced them."""

    root: Path

    def path(self, key: str, suffix: str) -> Path:
        return self.root / key[:2] / f"{key}{suffix}"


def _digest(*parts: bytes | str) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode() if isinstance(p, str) else p)
        h.update(b"\0")
    return h.hexdigest()[:32]


@cache
def toolchain_read() -> tuple[str, ...]:
    """The compiler's install prefix, when it lives outside the system folders the sandbox shows."""
    exe = shutil.which(CXX)
    if exe is None:
        return ()
    real = Path(exe).resolve()
    if any(real.is_relative_to(p) for p in SYSTEM_READ):
        return ()
    return (str(real.parent.parent),)  # <prefix>/bin/g++ -> <prefix>


def _tree_digest(folder: Path) -> str:
    h = hashlib.sha256()
    for f in sorted(folder.rglob("*")):
        if f.is_file() and f.suffix in (".h", ".hpp", ".cpp"):
            h.update(str(f.relative_to(folder)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


MAX_COMPILES = 4
# Under a cache entry's own folder, where `-include ascendopt_twin/seal.h` finds it.
PCH_HEADER = "ascendopt_twin/seal.h"
PCH_SUFFIX = f"/{PCH_HEADER}.gch"
# The host compile's precompiled header: the twin's host API, which every tiling program reads.
HOST_PCH_HEADER = "ascendopt_twin/host.h"


class Builder:
    """Builds runner executables for candidates on one Runner; safe to share between evaluations.

    On a remote runner the twin's headers and runtime are mirrored once (by content digest)
    and objects are cached in the runner's own cache folder, shared by every slot there.
    Paths handed to the compiler are the runner's paths.
    """

    def __init__(self, cache: BuildCache | None = None, runner: Runner | None = None) -> None:
        self.runner: Runner = runner or LocalRunner()
        self.cache_root: str | None = str(cache.root) if cache else None  # asked of the runner on first use
        self._twin_digest = _digest(_tree_digest(INCLUDE_DIR), _tree_digest(RUNTIME_DIR), CXX, *CXXFLAGS)
        self._locks: dict[str, asyncio.Lock] = {}
        self._known: set[str] = set()  # products known to exist: no round trip to ask again
        self._failed: dict[str, CompileError] = {}  # another architecture's host source that did not build
        self.notes: dict[str, list[Finding]] = {}  # an executable → the host sources left out of it
        self._pch_failed: set[str] = set()
        self._fast_link = True  # off once gold failed where bfd linked (missing on the runner, or stricter)
        self._pch_stubbed: set[str] = set()
        self._twin_dir: str | None = None
        self._twin_lock = asyncio.Lock()
        # Compiles at once on this builder's machine: the twin runtime alone is a dozen objects,
        # and more g++ processes than cores (or SSH sessions than the server allows) gain nothing.
        self._compiles = asyncio.Semaphore(MAX_COMPILES)

    def _path(self, key: str, suffix: str) -> str:
        assert self.cache_root is not None, "twin_dir() first"
        return f"{self.cache_root}/{key[:2]}/{key}{suffix}"

    async def twin_dir(self) -> str:
        """Where the twin's include/ and runtime/ are on the runner (uploaded once per digest)."""
        async with self._twin_lock:
            if self._twin_dir is None:
                if self.cache_root is None:
                    self.cache_root = await self.runner.cache_dir("twin")
                self._twin_dir = await self.runner.mirror(TWIN_DIR, TWIN_PATTERNS)
            return self._twin_dir

    async def _cached(
        self,
        key: str,
        suffix: str,
        argv_for: list[str],
        cwd: str,
        user_files: set[str],
        fallback: Issue,
        project: OperatorProject | None = None,
        link: bool = False,
    ) -> str:
        """Run a compile/link command that writes `{out}` unless its product is already cached (a
        link: `_produce_link`)."""
        if os.environ.get(NO_COMPILE_ENV):
            raise RuntimeError(f"{NO_COMPILE_ENV} is set: no operator is built (a test that builds is slow)")
        out = self._path(key, suffix)
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            if out in self._known:
                return out
            async with self._compiles:
                # Inside a repository the compiler reads the whole tree the sources were laid out in.
                read = tree_root(project, cwd) if project is not None else cwd
                produce = self._produce_link if link else self.runner.produce
                result = await produce(argv_for, cwd=cwd, out=out, limits=self._limits(read, out))
            if result.returncode != 0:
                detail = result.killed_reason
                if detail:
                    raise CompileError([fallback.model_copy(update={"message": f"compiler {detail}"})])
                issues = map_diagnostics(result.stderr, user_files, fallback, supported_names())
                raise CompileError(
                    explain_missing_headers(issues, project) if project is not None else issues
                )
            self._known.add(out)
            return out

    async def _produce_link(self, argv: Sequence[str], *, cwd: str, out: str, limits: Limits) -> RunResult:
        """`argv` (a g++ link) with gold; if gold fails, as given (bfd), whose result is returned."""
        if self._fast_link:
            gold = [argv[0], FAST_LINKER, *argv[1:]]
            fast = await self.runner.produce(gold, cwd=cwd, out=out, limits=limits)
            if fast.returncode == 0:
                return fast
        result = await self.runner.produce(argv, cwd=cwd, out=out, limits=limits)
        if result.returncode == 0 and self._fast_link:
            self._fast_link = False
        return result

    def _limits(self, cwd: str, out: str) -> Limits:
        """The compiler sees the twin, the candidate's sources and the cache; it writes one folder."""
        assert self.cache_root is not None and self._twin_dir is not None
        extra = toolchain_read() if self.runner.name == "local" else ()
        confine = Confinement(
            read=[self._twin_dir, cwd, self.cache_root, *extra], write=[str(PurePosixPath(out).parent)]
        )
        return _COMPILE_LIMITS.model_copy(update={"confine": confine})

    async def runtime_objects(self, *extra: str) -> list[str]:
        twin = await self.twin_dir()
        sources = sorted(s for s in RUNTIME_DIR.glob("*.cpp") if s.name != CPU_DEBUG_MAIN)
        fallback = Issue(file="(cpu twin runtime)", message="the CPU twin's own runtime failed to build")
        return list(
            await asyncio.gather(
                *(
                    self._cached(
                        _digest(self._twin_digest, src.name),
                        ".o",
                        [
                            CXX,
                            *CXXFLAGS,
                            "-I",
                            f"{twin}/include",
                            "-c",
                            f"{twin}/runtime/{src.name}",
                            "-o",
                            "{out}",
                        ],
                        f"{twin}/runtime",
                        set(),
                        fallback,
                    )
                    for src in [*sources, *(RUNTIME_DIR / e for e in extra)]
                )
            )
        )

    async def seal_pch_flags(self, defines: list[str]) -> list[str]:
        """`-I` the folder holding the seal precompiled for a kernel compile whose only macros ahead of
        the seal are the twin's CXXFLAGS and `defines` (the SoC's, ASCENDOPT_TWIN_KERNEL): g++ looks
        there for `ascendopt_twin/seal.h.gch` before the twin's include folder. Nothing when the PCH
        is turned off (NO_PCH_ENV) or could not be built (g++ then reads the headers, as without it)."""
        return await self._pch_flags(PCH_HEADER, defines)

    async def host_pch_flags(self) -> list[str]:
        """`-I` the folder holding the twin's host API (host.h) precompiled with the host compile's
        flags, and `-include` it: every tiling program reads it (through register/op_def_registry.h,
        tiling/platform/platform_ascendc.h, …), and its include guard makes the later `#include` a
        no-op. Nothing when turned off or unbuildable, as for the seal."""
        flags = await self._pch_flags(HOST_PCH_HEADER, [])
        return [*flags, "-include", HOST_PCH_HEADER] if flags else []

    async def _pch_flags(self, header: str, defines: list[str]) -> list[str]:
        """`-I` the cache folder where g++ finds `header` (a twin header) precompiled with the twin's
        CXXFLAGS and `defines`: built once per twin and flags, shared by operators."""
        if os.environ.get(NO_PCH_ENV):
            return []
        twin = await self.twin_dir()
        key = _digest(self._twin_digest, "seal-pch" if header == PCH_HEADER else f"pch {header}", *defines)
        suffix = f"/{header}.gch"
        argv = [
            CXX,
            *CXXFLAGS,
            "-I",
            f"{twin}/include",
            *defines,
            "-x",
            "c++-header",
            f"{twin}/include/{header}",
            "-o",
            "{out}",
        ]
        if key in self._pch_failed:
            return []
        fallback = Issue(
            file="(cpu twin headers)", message="the CPU twin's precompiled header failed to build"
        )
        try:
            out = await self._cached(key, suffix, argv, f"{twin}/include", set(), fallback)
        except CompileError:
            self._pch_failed.add(key)  # tried once per builder; every compile goes without it
            return []
        folder = out.removesuffix(suffix)
        if key not in self._pch_stubbed:
            # g++ that finds `<header>.gch` in a folder opens `<header>` there for any later `#include` of
            # it (a no-op without the PCH, by its include guard): this one passes it on.
            stub = f'#include_next "{header}"\n'.encode()
            await self.runner.put(folder, {header: stub})
            self._pch_stubbed.add(key)
        return ["-I", folder]

    async def prepare_shared(self, soc: Soc) -> None:
        """Build what every operator's build on `soc` shares (the runtime, the precompiled seal and host
        API), ahead."""
        await asyncio.gather(
            self.runtime_objects(),
            self.seal_pch_flags(["-DASCENDOPT_TWIN_KERNEL", *soc.arch_defines]),
            self.host_pch_flags(),
        )

    async def host_objects(
        self, project: OperatorProject, src_dir: Path | str, files: dict[str, str], soc: Soc
    ) -> tuple[list[str], list[Finding]]:
        """The tiling program's objects, and the host sources left out of them (stand_ins.py): another
        architecture's sources are built one by one, and one that does not build is left out."""
        host = project.files.host
        if host is None or project.layout == "kernel_launch":
            return [], []
        linked = project.repo.host_links if project.repo is not None else []
        sources = [host, *(s for s in (*project.files.host_sources, *linked) if s in files)]
        # An OpDef file linked for its InferShape (cann_open): CANN builds it into another library than the
        # tiling program's, so what both define from a shared header (a non-inline helper) is no clash there;
        # here it is its own object with its symbols weakened.
        proto = project.files.opdef if project.files.opdef in sources[1:] else None
        infer = stand_ins.infer_shape_sources(project, files, sources)
        sources = [s for s in sources if s != proto] + infer
        optional = [s for s in sources[1:] if s in infer or stand_ins.may_leave_out(s, soc.name)]
        required = [s for s in sources if s not in optional]
        main, *others = await gather_settled(
            self._host_object(project, src_dir, files, required),
            *(self._host_object(project, src_dir, files, [s]) for s in optional),
        )
        if isinstance(main, BaseException):
            raise main
        objects, left_out = [main], []
        for source, built in zip(optional, others, strict=True):
            if isinstance(built, CompileError) and built.issues:
                left_out.append(
                    stand_ins.left_out_finding(source, built.issues[0], None if source in infer else soc.name)
                )
            elif isinstance(built, BaseException):
                raise built
            else:
                objects.append(built)
        if proto is not None:
            objects.append(
                await self._weakened(
                    project, src_dir, files, await self._host_object(project, src_dir, files, [proto])
                )
            )
        return objects, left_out

    async def _weakened(
        self, project: OperatorProject, src_dir: Path | str, files: dict[str, str], obj: str
    ) -> str:
        """`obj` with every global symbol weak (a definition elsewhere in the link wins)."""
        fallback = Issue(
            file=project.files.opdef or project.files.kernel, line=1, message="objcopy --weaken failed"
        )
        argv = ["objcopy", "--weaken", obj, "{out}"]
        return await self._cached(
            _digest(self._twin_digest, "weak", obj), ".o", argv, str(src_dir), set(files), fallback, project
        )

    async def _host_object(
        self, project: OperatorProject, src_dir: Path | str, files: dict[str, str], sources: list[str]
    ) -> str:
        twin = await self.twin_dir()
        headers = read_headers(project, files, sources)
        key = _digest(self._twin_digest, "host", *(f"{s}\0{files[s]}" for s in sources), *headers)
        if key in self._failed:
            raise self._failed[key]
        argv = [CXX, *CXXFLAGS, "-I", f"{twin}/include", *include_flags(project, sources[0], files, twin)]
        if len(sources) == 1:
            argv += ["-c", sources[0], "-o", "{out}"]
        else:
            # Several host sources (a tiling program calling into `*_tiling_arch35.cpp`): one
            # relocatable object, as CANN links them into one host library.
            argv += ["-r", "-nostdlib", *sources, "-o", "{out}"]
        own = project.tiling is not None and sources[0] == project.files.host
        fallback = Issue(
            file=sources[0],
            line=project.tiling.range.start_line if own and project.tiling else 1,
            message="the tiling program failed to build",
        )
        pch = await self.host_pch_flags() if all(_macro_free_head(files[s]) for s in sources) else []
        try:
            if pch:
                with contextlib.suppress(CompileError):  # then as without it: the errors as g++ says them
                    return await self._cached(
                        key, ".o", [*argv[:1], *pch, *argv[1:]], str(src_dir), set(files), fallback, project
                    )
            return await self._cached(key, ".o", argv, str(src_dir), set(files), fallback, project)
        except CompileError as e:
            if len(sources) == 1 and sources[0] != project.files.host:
                self._failed[key] = e  # another architecture's source: tried once per builder
            raise

    async def kernel_object(
        self,
        project: OperatorProject,
        src_dir: Path | str,
        files: dict[str, str],
        dtypes: dict[str, str],
        soc: Soc,
        cube: list[str],
        aic: str | None = None,
    ) -> str:
        """The kernel's object; `cube`: cube_defines of its source as written (before bisheng_rewrite).
        `aic`: a mixed kernel's source rewritten for the cube core: compiled in its place, every global symbol
        renamed (launcher.AIC_PREFIX) so that it links beside the vector-core object."""
        twin = await self.twin_dir()
        kernel = project.files.kernel
        macros = [f"-DDTYPE_{name.upper()}={CTYPES[dt]}" for name, dt in sorted(dtypes.items())]
        # CANN's build also names each tensor's dtype for `#if` (kernel_dtypes.h numbers the DT_* names)
        macros += [f"-DORIG_DTYPE_{name.upper()}={DTYPES[dt].ge}" for name, dt in sorted(dtypes.items())]
        macros += soc.arch_defines
        include_tiling: list[str] = []
        tiling_data = project.files.tiling_data
        generated = project.layout == "msopgen" or (
            # open-repo operators whose tiling data is op_host's BEGIN_TILING_DATA_DEF (ops-nn style)
            project.layout == "cann_open"
            and tiling_data
            and "BEGIN_TILING_DATA_DEF" in files.get(tiling_data, "")
        )
        if generated and tiling_data and "GET_TILING_DATA" in files[kernel]:
            # CANN generates the kernel's view of the host tiling struct for GET_TILING_DATA; a
            # kernel that copies the tiling into a struct of its own (op_kernel/*_tiling.h, often
            # under the same include guard as op_host's) must not see op_host's header.
            include_tiling = ["-include", tiling_data]
            struct = project.tiling_struct
            named = struct is not None and any(
                re.search(rf"\b{re.escape(struct)}\b", text)
                for path, text in files.items()
                if path.startswith("op_kernel/")
            )
            # Open-repo kernels, and older cann-ops ones (`const RMSNormTilingData *tiling`), name
            # the struct CANN generates unqualified.
            if project.layout == "cann_open" or named:
                include_tiling += ["-include", "ascendopt_twin/tiling_global.h"]
                macros += tiling_classes_global(files[tiling_data])
        declared = any("ASCENDC_TPL_ARGS_DECL" in t for t in files.values())
        shim = entry_shim(project, tiling_key_declared=declared)
        key = _digest(
            self._twin_digest,
            "kernel",
            kernel,
            files[kernel],
            *read_headers(project, files, [kernel, *include_tiling[1::2]]),
            *macros,
            *cube,
            *include_tiling,
            shim,
        )
        source = kernel
        if aic is not None:
            # Beside the kernel (its relative includes), named as the kernel in diagnostics and findings.
            key = _digest(key, "aic", aic)
            folder, _, name = kernel.rpartition("/")
            source = (
                f"{folder}/ascendopt_aic_{key[:12]}_{name}" if folder else f"ascendopt_aic_{key[:12]}_{name}"
            )
            shim = shim.replace(f'#include "{kernel}"', f'#include "{source}"')
            if self._path(key, ".o") not in self._known:
                text = f'#line 1 "{kernel}"\n' + aic
                await self.runner.put(str(src_dir), {source: text.encode("utf-8")})
        if shim:
            # The entry cannot be called through a plain `extern "C"` declaration (C++ linkage, a
            # template, a by-value parameter): a generated file includes the kernel and calls it.
            source = f"ascendopt_entry_{key[:12]}.cpp"
            if self._path(key, ".o") not in self._known:
                await self.runner.put(str(src_dir), {source: shim.encode("utf-8")})
        seal_defines = ["-DASCENDOPT_TWIN_KERNEL", *soc.arch_defines, *cube]
        argv = [
            CXX,
            *CXXFLAGS,
            *await self.seal_pch_flags(seal_defines),
            "-I",
            f"{twin}/include",
            *include_flags(project, kernel, files, twin),
            "-DASCENDOPT_TWIN_KERNEL",
            *cube,
            f"-DASCENDOPT_OP_TYPE={project.op_type}",
            *macros,
            *KERNEL_SEAL,
            *KERNEL_OP_TILING,
            *include_tiling,
            # after op_host's header (its ge::DT_* names), before the kernel's `#if ORIG_DTYPE_X == DT_…`
            "-include",
            "ascendopt_twin/kernel_dtypes.h",
            "-c",
            source,
            "-o",
            "{out}",
        ]
        fallback = Issue(
            file=kernel, line=project.kernel.range.start_line, message="the kernel failed to build"
        )
        obj = await self._cached(key, ".o", argv, str(src_dir), set(files), fallback, project)
        if aic is None:
            return obj
        renamed = Issue(file=kernel, line=1, message="renaming the cube-core build's symbols failed")
        argv = ["sh", "-c", AIC_RENAME, "sh", obj, "{out}", AIC_PREFIX]
        return await self._cached(
            _digest(key, "renamed", AIC_RENAME), ".o", argv, str(src_dir), set(files), renamed, project
        )

    async def launcher_object(
        self, project: OperatorProject, src_dir: Path | str, noop: bool = False, mixed: bool = False
    ) -> str:
        twin = await self.twin_dir()
        code = launcher_source(project, noop, mixed)
        key = _digest(self._twin_digest, "launcher", code)
        # Concurrent builds of several dtype combinations share this file: keyed, written atomically.
        name = f"ascendopt_launch_{key[:12]}.cpp"
        if self._path(key, ".o") not in self._known:
            await self.runner.put(str(src_dir), {name: code.encode("utf-8")})
        fallback = Issue(
            file=project.files.kernel,
            line=project.kernel.range.start_line,
            message="the kernel entry's signature cannot be launched",
        )
        argv = [CXX, *CXXFLAGS, "-I", f"{twin}/include", "-c", name, "-o", "{out}"]
        return await self._cached(key, ".o", argv, str(src_dir), set(), fallback)

    async def link_standing_in(
        self, objects: list[str], src_dir: Path | str, project: OperatorProject, left_out: list[Finding]
    ) -> str:
        """Link; if host sources were left out and the link misses symbols, define those as traps
        (stand_ins.py) and link again. The executable's findings say what was left out."""
        if not left_out:
            return await self.link(objects, src_dir, project)
        key = _digest(self._twin_digest, "link", *(PurePosixPath(o).name for o in objects))
        out = self._path(key, ".bin")
        async with self._compiles:
            probe = await self._produce_link(
                [CXX, *objects, "-pthread", "-Wl,--no-demangle", "-o", "{out}"],
                cwd=str(src_dir),
                out=out,
                limits=self._limits(str(src_dir), out),
            )
        symbols = stand_ins.UNDEFINED.findall(probe.stderr) if probe.returncode != 0 else []
        if not symbols:
            exe = await self.link(objects, src_dir, project)  # linked, or fails for another reason
        else:
            code = stand_ins.stand_in_source(symbols, sorted({f.file or "" for f in left_out}))
            skey = _digest(self._twin_digest, "stand-in", code)
            name = f"ascendopt_standin_{skey[:12]}.cpp"
            if self._path(skey, ".o") not in self._known:
                await self.runner.put(str(src_dir), {name: code.encode("utf-8")})
            fallback = Issue(file=project.files.host or name, line=1, message="the stand-ins failed to build")
            argv = [CXX, *CXXFLAGS, "-c", name, "-o", "{out}"]
            stub = await self._cached(skey, ".o", argv, str(src_dir), set(), fallback)
            exe = await self.link([*objects, stub], src_dir, project)
        self.notes[exe] = left_out
        return exe

    async def link(self, objects: list[str], src_dir: Path | str, project: OperatorProject) -> str:
        key = _digest(self._twin_digest, "link", *(PurePosixPath(o).name for o in objects))
        fallback = Issue(
            file=project.files.kernel,
            line=project.kernel.range.start_line,
            message="linking the operator failed",
        )
        argv = [CXX, *objects, "-pthread", "-o", "{out}"]
        return await self._cached(key, ".bin", argv, str(src_dir), set(), fallback, link=True)

    async def build(
        self,
        project: OperatorProject,
        src_dir: Path | str,
        files: dict[str, str],
        dtypes: dict[str, str],
        soc: Soc,
    ) -> Path:
        """The runner executable for one dtype combination, compiled for `soc` (compiles run concurrently).

        A Path for the local caller's convenience; on a remote runner it names a remote file.
        """
        cube = cube_defines(project, files)
        mixed = mix_defines(project, files, soc)
        written = files[project.files.kernel]
        files = await self.bisheng_rewrite(project, src_dir, files)
        kernels = [
            self.kernel_object(project, src_dir, files, dtypes, soc, mixed[0] if mixed else cube),
        ]
        if mixed:
            aic = bisheng.rewrite(written, cube=True)
            kernels.append(self.kernel_object(project, src_dir, files, dtypes, soc, mixed[1], aic=aic))
        runtime, host, launcher, *kernel_objs = await gather_settled(
            self.runtime_objects(),
            self.host_objects(project, src_dir, files, soc),
            self.launcher_object(project, src_dir, mixed=bool(mixed)),
            *kernels,
        )
        errors = [r for r in (runtime, host, launcher, *kernel_objs) if isinstance(r, BaseException)]
        if errors:
            issues = [i for e in errors if isinstance(e, CompileError) for i in e.issues]
            if len(issues) == 0:
                raise errors[0]
            raise CompileError(issues)
        assert isinstance(host, tuple) and isinstance(launcher, str)
        host_objs, left_out = host
        objects = [*runtime, *host_objs, *kernel_objs, launcher]  # type: ignore[misc]
        return Path(await self.link_standing_in(objects, src_dir, project, left_out))

    async def bisheng_rewrite(
        self, project: OperatorProject, src_dir: Path | str, files: dict[str, str]
    ) -> dict[str, str]:
        """`files` with the kernel side's bisheng-only syntax rewritten (bisheng.py), the changed ones written
        over their staged copies in `src_dir` (the build's folder, never the user's)."""
        cube = bool(cube_defines(project, files))
        changed = {
            path: new
            for path, text in files.items()
            if path.endswith((".cpp", ".h", ".hpp")) and (new := bisheng.rewrite(text, cube)) != text
        }
        if changed:
            await self.runner.put(str(src_dir), {p: t.encode("utf-8") for p, t in changed.items()})
        return {**files, **changed}

    async def build_main(
        self, project: OperatorProject, src_dir: Path | str, files: dict[str, str], soc: Soc
    ) -> Path:
        """A kernel-launch sample's own program (its `tiling.host_program`): main.cpp, its host sources
        and the kernel compiled as CANN's CPU-debug build compiles them (`run.sh -r cpu`: `ASCENDC_CPU_DEBUG`,
        the SoC in `SOC_VERSION` as the samples' CMake passes it), linked with the twin's CPU-debug library
        (runtime/cpu_debug.cpp)."""
        assert project.tiling is not None and project.tiling.host_program is not None
        twin = await self.twin_dir()
        defines = [*soc.arch_defines, f'-DSOC_VERSION="{soc.name}"']
        headers = _headers(files)
        main = project.files.host or "main.cpp"
        call = project.tiling.host_program.call
        generated: dict[str, str] = {}
        included = ""  # what the driver includes besides headers: the extension source (in its cache key)
        if call is not None:
            # A torch extension: a generated driver includes the extension source and calls its function;
            # CANN's generated launch headers are generated here too, beside that source.
            folder = posixpath.dirname(main)
            generated = {posixpath.join(folder, name): text for name, text in call.headers.items()}
            driver = torch_ext.driver_source(call, posixpath.basename(main))
            generated[posixpath.join(folder, torch_ext.DRIVER)] = driver
            await self.runner.put(str(src_dir), {k: v.encode("utf-8") for k, v in generated.items()})
            files = {**files, **generated}
            headers = _headers(files)
            included = files.get(main, "")
            main = posixpath.join(folder, torch_ext.DRIVER)
        sources = list(dict.fromkeys([main, *project.tiling.host_program.sources, project.files.kernel]))

        async def compile_one(source: str) -> str:
            # main.cpp's main becomes a function the twin's main calls (runtime/cpu_debug_main.cpp)
            own = [*defines, *(["-Dmain=ascendopt_twin_user_main"] if source == main else [])]
            text = files.get(source, "") + (included if source == main else "")
            key = _digest(self._twin_digest, "cpu-debug", source, text, *headers, *own)
            kernel = source == project.files.kernel
            argv = [
                CXX,
                *CXXFLAGS,
                *(await self.seal_pch_flags(defines) if kernel else []),
                "-I",
                f"{twin}/include",
                *include_flags(project, source, files, twin),
                *own,
                *(KERNEL_SEAL if kernel else []),
                "-c",
                source,
                "-o",
                "{out}",
            ]
            fallback = Issue(file=source, line=1, message=f"{source} failed to build in CPU-debug mode")
            return await self._cached(key, ".o", argv, str(src_dir), set(files), fallback, project)

        runtime, *objects = await gather_settled(
            self.runtime_objects(CPU_DEBUG_MAIN), *(compile_one(s) for s in sources)
        )
        errors = [r for r in (runtime, *objects) if isinstance(r, BaseException)]
        if errors:
            issues = [i for e in errors if isinstance(e, CompileError) for i in e.issues]
            if not issues:
                raise errors[0]
            raise CompileError(issues)
        linked = [*runtime, *objects]  # type: ignore[misc]
        return Path(await self.link([str(o) for o in linked], src_dir, project))

    async def build_tiling_runner(
        self, project: OperatorProject, src_dir: Path | str, files: dict[str, str], soc: Soc
    ) -> Path:
        """A runner with the tiling program and no kernel: the cheap pre-check (no kernel compile)."""
        runtime, (host, left_out), launcher = await asyncio.gather(
            self.runtime_objects(),
            self.host_objects(project, src_dir, files, soc),
            self.launcher_object(project, src_dir, noop=True),
        )
        return Path(await self.link_standing_in([*runtime, *host, launcher], src_dir, project, left_out))


def cube_defines(project: OperatorProject, files: dict[str, str]) -> list[str]:
    """The flags that build the kernel for the cube core (kernel_misc.h), when its source has only
    cube-core code (bisheng.cube_kernel): the macro, and C++20, whose constexpr rules Catlass's
    templates need (a constexpr constructor that fills its members in its body, as bisheng accepts)."""
    kernel = files.get(project.files.kernel, "")
    return ["-DASCENDOPT_TWIN_CUBE", "-std=c++20"] if bisheng.cube_kernel(kernel) else []


def mix_defines(
    project: OperatorProject, files: dict[str, str], soc: Soc
) -> tuple[list[str], list[str]] | None:
    """A mixed kernel's flags (bisheng.mixed_kernel), for its vector-core and its cube-core build
    (kernel_misc.h; the core macros CANN's compiler defines for each on the A2), or None for a kernel
    of one core type."""
    if not bisheng.mixed_kernel(files.get(project.files.kernel, "")):
        return None
    arch = soc.arch.get("__CCE_AICORE__") == 220
    vec = ["-D__DAV_C220_VEC__"] if arch else []
    cube = ["-D__DAV_C220_CUBE__"] if arch else []
    return (
        ["-DASCENDOPT_TWIN_MIX", *vec, "-std=c++20"],
        ["-DASCENDOPT_TWIN_MIX", "-DASCENDOPT_TWIN_CUBE", *cube, "-std=c++20"],
    )


def include_flags(
    project: OperatorProject, source: str, files: dict[str, str], twin: str | None = None
) -> list[str]:
    """The include paths CANN's build uses for this layout, relative to the build folder: the
    source's own folder, then op_kernel/ and op_host/ (msOpGen and CANN open repos compile each
    against both), then the operator root (kernel-launch samples keep data_utils.h and
    *_tiling.h there). Inside a repository, then the folders its CMake lists (OP_TILING_INCLUDE:
    the repo root, `common/inc`, …; relative, since the build folder has the repo's shape), and
    for every open-repo operator the twin's ops-base folders (FindOPBASE.cmake's OPBASE_INC_DIRS)."""
    folders = [str(PurePosixPath(source).parent)]
    dirs = {str(PurePosixPath(f).parent) for f in files}
    for d in ("op_kernel", "op_host", "."):
        if d in dirs and d not in folders:
            folders.append(d)
    if project.repo is not None:
        folders += [posixpath.relpath(d or ".", project.repo.prefix) for d in project.repo.include_dirs]
    if project.layout == "cann_open" and twin is not None:
        folders += [f"{twin}/include/{d}" for d in OPBASE_DIRS]
    return [flag for d in folders for flag in ("-I", d)]


# The twin's ops-base headers (include/opbase/ is ops-base's include/), on the path as
# FindOPBASE.cmake's OPBASE_INC_DIRS puts them: the folder, op_common/, op_common/op_host/.
OPBASE_DIRS = ("opbase", "opbase/op_common", "opbase/op_common/op_host")
_NO_SUCH_FILE = re.compile(r"([^\s:]+): No such file or directory")


def tree_root(project: OperatorProject, src_dir: str) -> str:
    """The build folder's root: above the operator folder by its depth inside the repository."""
    if project.repo is None:
        return src_dir
    return str(PurePosixPath(src_dir).parents[len(PurePosixPath(project.repo.prefix).parts) - 1])


def explain_missing_headers(issues: list[Issue], project: OperatorProject) -> list[Issue]:
    """A header the compiler did not find, told as which header, from which file:line, and the
    folders searched (the operator's, the repository's, the twin's)."""
    out = []
    for issue in issues:
        m = _NO_SUCH_FILE.search(issue.message)
        if m is None:
            out.append(issue)
            continue
        header = m.group(1)
        # The include the compiler stopped at (its file and line), else any place naming the header.
        known = [u for u in (project.repo.unresolved if project.repo else []) if u.header == header]
        where = next((u for u in known if (u.file, u.line) == (issue.file, issue.line)), None) or next(
            (u for u in known if u.file == issue.file), known[0] if known else None
        )
        searched = list(where.searched) if where else [str(PurePosixPath(issue.file).parent)]
        searched.append("<twin>/include")
        if project.layout == "cann_open":
            searched += [f"<twin>/include/{d}" for d in OPBASE_DIRS]
        origin = f" (included from {where.file}:{where.line})" if where else ""
        dirs = ", ".join(dict.fromkeys(searched))
        # Absent is said only of what was searched: the whole repository (repository.repo_places).
        repo = project.repo
        places = where.elsewhere if where else repo_places(repo.root, header) if repo else []
        if places:
            at = ", ".join(places[:5])
            verdict = (
                f"The repository has it at {at}, but no folder on the build's include path reaches it "
                "(the include path is read from the repository's CMake: include_directories, "
                "OP_TILING_INCLUDE…)"
            )
        elif repo is not None:
            verdict = (
                f"It is nowhere in the operator folder or its repository ({repo.root}, all of it searched), "
                "and the CPU twin does not provide it"
            )
        else:
            verdict = (
                "It is not in the operator folder (no repository around it), "
                "and the CPU twin does not provide it"
            )
        message = f"header `{header}`{origin}: No such file or directory; searched: {dirs}. {verdict}"
        out.append(issue.model_copy(update={"message": message}))
    return out


_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(include|define|undef)\b", re.MULTILINE)


def _macro_free_head(text: str) -> bool:
    """No `#define` or `#undef` before the source's first `#include`: reading the twin's host API ahead
    of it (the host PCH) cannot change what that API means."""
    first = _DIRECTIVE.search(text)
    return first is None or first.group(1) == "include"


_ANY_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include(?:_next)?\b[ \t]*(?:"([^"]*)"|<([^>]*)>|(.*))', re.M)


_TILING_CLASS = re.compile(r"\bBEGIN_TILING_DATA_DEF\s*\(\s*(\w+)\s*\)")
_OPTILING = re.compile(r"\bnamespace\s+optiling\s*\{")


def tiling_classes_global(header: str) -> list[str]:
    """The `-D` that makes tiling_global.h bring only the tiling-data classes op_host's `header`
    declares in namespace optiling to global scope, where CANN's generated kernel view has them:
    the header's other names (StridedSliceAssignV2's `optiling::MAX_DIM_NUM`) stay out of the
    kernel's way. None (then the whole namespace, as before) when the header declares its classes
    elsewhere or none."""
    header = COMMENT.sub(" ", header)  # a commented-out class is not declared
    start = _OPTILING.search(header)
    names = list(dict.fromkeys(_TILING_CLASS.findall(header, start.end()))) if start else []
    if not names or _TILING_CLASS.search(header, 0, start.start() if start else 0):
        return []
    return ["-DASCENDOPT_TWIN_TILING_USING=" + " ".join(f"using optiling::{n};" for n in names)]


def read_headers(project: OperatorProject, files: dict[str, str], sources: list[str]) -> list[str]:
    """The operator's files a compile of `sources` reads (them included), with their text, for
    its cache key: the quoted includes followed from them (every `#if` branch counted), so that a
    header edit rebuilds only the side that includes it. Every header of the operator when an include
    may reach one in a way not followed here: inside a repository (its own include folders), an
    include by a computed name, one that two of the operator's files could answer, or one in quotes or
    brackets that names a header of the operator it did not resolve to."""
    if project.repo is not None:
        return _headers(files)
    folders = [*dict.fromkeys(posixpath.dirname(s) for s in sources), *OPERATOR_FOLDERS]
    ambiguous = False

    def resolve(at: str, name: str) -> str | None:
        nonlocal ambiguous
        found = {
            c
            for d in (posixpath.dirname(at), *folders)
            if (c := posixpath.normpath(posixpath.join(d, name))) in files
        }
        ambiguous = ambiguous or len(found) > 1  # g++'s folder order decides: not followed here
        return resolve_in_files(files, at, name)

    walk = closure(sources, files.get, resolve)
    if ambiguous:
        return _headers(files)
    names = {PurePosixPath(f).name for f in files}
    for text in walk.texts.values():
        for m in _ANY_INCLUDE.finditer(text):
            quoted, bracketed, other = m.groups()
            name = quoted if quoted is not None else bracketed
            if name is None or (other is not None and other.strip()):
                return _headers(files)  # `#include MACRO`
            if PurePosixPath(name).name in names and (
                bracketed is not None or m.group(0).lstrip().startswith("#include_next")
            ):
                return _headers(files)
    unresolved = [i.name for i in walk.includes if i.target is None]
    if any(PurePosixPath(n).name in names for n in unresolved):
        return _headers(files)
    return [f"{p}\0{files[p]}" for p in sorted(walk.texts)]


def _headers(files: dict[str, str]) -> list[str]:
    return [f"{p}\0{files[p]}" for p in sorted(files) if p.endswith((".h", ".hpp"))]
