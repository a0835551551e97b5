"""The torch-extension layout (Huawei's `CppExtensions` samples): kernels in a folder whose
`pybind11.cpp` (any C++ file holding `PYBIND11_MODULE`) launches them from a function PyTorch
calls, `at::Tensor run_add(const at::Tensor &x, const at::Tensor &y)`, through
`ACLRT_LAUNCH_KERNEL(k)(blockDim, stream, …)` or an `extern "C" k_do(blockDim, stream, …)` wrapper;
no main.cpp, no op_host/. It runs like a kernel-launch sample whose main computes the tiling: the
function's own host code fills what the kernel gets (sizes, a tiling struct), so the twin builds
the extension source against its stand-in of torch and calls the function with each case's tensors
(cpu_twin/torch_ext.py). The function's tensor parameters are the inputs, its scalar parameters
attrs, the tensors it returns the outputs; its operators carry the kernel-launch layout.
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from tree_sitter import Node

from ascendopt.operators import launch
from ascendopt.operators.cpp_source import CppSource
from ascendopt.operators.layouts.kernel_launch import Host, _describe, _file_names
from ascendopt.operators.model import HostProgram, Layout, OperatorProject, TorchCall
from ascendopt.operators.sources import MAX_SOURCE_BYTES

if TYPE_CHECKING:
    from ascendopt.operators.discovery import Discovery

_MODULE = re.compile(rb"\bPYBIND11_MODULE\s*\(")
# `x.storage().data()`, `x.data_ptr()`, `x.data_ptr<at::Half>()`, `x.mutable_data_ptr()`: tensor x's GM.
_DATA_OF = re.compile(
    r"\b(\w+)\s*\.\s*(?:storage\s*\(\s*\)\s*\.\s*(?:mutable_)?data|(?:mutable_)?data_ptr)\b"
)
_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")


class TorchExtension:
    name: str = "torch_extension"
    carries: Layout = "kernel_launch"  # run as a kernel-launch sample whose main computes the tiling
    owns: tuple[str, ...] = ()

    def matches(self, folder: Path) -> bool:
        """A C++ file holding PYBIND11_MODULE, no main.cpp (the kernel-launch layout's) and no op_host/."""
        if os.path.lexists(folder / "main.cpp") or (folder / "op_host").is_dir():
            return False
        return extension_file(folder) is not None

    def describe(self, folder: Path, found: Discovery) -> list[OperatorProject]:
        source = extension_file(folder)
        if source is None:
            return []
        return _describe(folder, _file_names(folder), found, TorchHost(source))


def extension_file(folder: Path) -> str | None:
    """The folder's first C++ file (sorted) that defines a Python module with PYBIND11_MODULE."""
    try:
        names = sorted(e.name for e in os.scandir(folder) if e.name.endswith((".cpp", ".cc", ".cxx")))
    except OSError:
        return None
    for name in names:
        path = folder / name
        try:
            if (
                path.is_file()
                and path.stat().st_size <= MAX_SOURCE_BYTES
                and _MODULE.search(path.read_bytes())
            ):
                return name
        except OSError:
            continue
    return None


class TorchHost(Host):
    def __init__(self, file: str) -> None:
        self.file = file

    def bindings(self, main: CppSource, keep_handed: bool = False) -> dict[str, tuple[str, str]]:
        """Each launch function's tensors: its tensor parameters are inputs, what it returns outputs,
        and a local holding a tensor's GM (`auto x = self.storage().data();`) stands for that tensor."""
        out: dict[str, tuple[str, str]] = {}
        for fn in _launch_functions(main):
            params, returned = _params(main, fn), _returned(main, fn)
            roles = {n: "input" for n, kind in params if kind == "tensor"} | dict.fromkeys(returned, "output")
            for var, tensor in _aliases(main, fn).items():
                if tensor in roles:
                    out.setdefault(var, (roles[tensor], tensor))
            for tensor, role in roles.items():
                out.setdefault(tensor, (role, tensor))
        return out

    def site(self, site: launch.LaunchSite) -> launch.LaunchSite:
        """The launch with each argument that passes a tensor's GM written as that tensor's name
        (`const_cast<void *>(x.storage().data())` → `x`), as the kernel-launch binding reads them."""
        args = [m.group(1) if (m := _DATA_OF.search(a)) else a for a in site.args]
        return dataclasses.replace(site, args=args)

    def program(
        self,
        main: CppSource,
        site: launch.LaunchSite,
        others: list[str],
        ksrc: CppSource,
        wrappers: dict[str, launch.Wrapper],
    ) -> HostProgram | None:
        fn = _enclosing_function(site.token.node)
        if fn is None:
            return None
        name = _function_name(main, fn)
        if name is None:
            return None
        params, returned = _params(main, fn), _returned(main, fn)
        call = TorchCall(
            function="::".join([*main.enclosing_namespaces(fn), name]),
            params=params,
            outputs=returned,
            line=fn.start_point[0] + 1,
            glue=_wrapper_glue(ksrc, wrappers.get(site.form)),
            headers=_aclrt_headers(ksrc, site),
        )
        files = {n: f"input/{n}.bin" for n, kind in params if kind == "tensor"}
        files |= {n: f"output/{n}.bin" for n in returned}
        sources = sorted(f for f in others if f.endswith((".cpp", ".cc")) and "/" not in f and f != self.file)
        return HostProgram(
            calls=[f"{call.function}(…) at {main.path}:{call.line}"],
            line=call.line,
            files=files,
            sources=sources,
            call=call,
        )


def _launch_functions(main: CppSource) -> list[Node]:
    out = []
    for site in launch.launch_sites(main):
        fn = _enclosing_function(site.token.node)
        if fn is not None and fn not in out:
            out.append(fn)
    for _name, fn in main.functions():  # a `k_do(…)` call: the wrappers are in the kernel file
        body = fn.child_by_field_name("body")
        text = main.data[body.start_byte : body.end_byte] if body is not None else b""
        calls_do = re.search(rb"\b\w+_do\s*\(", text)
        if calls_do and fn not in out:
            out.append(fn)
    return out


def _enclosing_function(node: Node) -> Node | None:
    n: Node | None = node
    while n is not None and n.type != "function_definition":
        n = n.parent
    return n


def _declarator(fn: Node) -> Node | None:
    decl = fn.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    return decl


def _function_name(src: CppSource, fn: Node) -> str | None:
    decl = _declarator(fn)
    name = decl.child_by_field_name("declarator") if decl is not None else None
    return src.text_of(name) if name is not None else None


def _params(src: CppSource, fn: Node) -> list[tuple[str, str]]:
    """(name, "tensor" | "scalar") for each parameter: an `at::Tensor` (any spelling) is a tensor."""
    decl = _declarator(fn)
    plist = decl.child_by_field_name("parameters") if decl is not None else None
    out = []
    for p in plist.named_children if plist is not None else []:
        d = p.child_by_field_name("declarator")
        t = p.child_by_field_name("type")
        if d is None or t is None:
            continue
        name = _IDENT.findall(src.text_of(d))
        if name:
            out.append((name[-1], "tensor" if "Tensor" in src.text_of(t) else "scalar"))
    return out


def _returned(src: CppSource, fn: Node) -> list[str]:
    """The tensors the function returns: `return z;`, `return {a, b};`, `return std::make_tuple(a, b);`."""
    for n in src.walk(fn):
        if n.type == "return_statement" and n.named_children:
            text = src.text_of(n.named_children[0])
            inner = re.sub(r"^(?:std::)?(?:make_tuple|tie|tuple\s*<[^>]*>)\s*", "", text).strip()
            inner = inner.strip("{}()")
            names = [p.strip() for p in inner.split(",")]
            if all(re.fullmatch(r"[A-Za-z_]\w*", n) for n in names):
                return names
    return []


def _aliases(src: CppSource, fn: Node) -> dict[str, str]:
    """Locals holding a tensor's GM: `auto x = self.storage().data();` → x → self."""
    out: dict[str, str] = {}
    for n in src.walk(fn):
        if n.type == "init_declarator":
            ident, value = n.child_by_field_name("declarator"), n.child_by_field_name("value")
            if ident is not None and value is not None and (m := _DATA_OF.search(src.text_of(value))):
                out[src.text_of(ident).lstrip("*& ")] = m.group(1)
    return out


def _kernel_declaration(ksrc: CppSource, kernel: str) -> str:
    """The kernel entry declared for the glue, with its linkage and parameters as written."""
    for name, fn in ksrc.functions():
        if name != kernel:
            continue
        decl = _declarator(fn)
        plist = decl.child_by_field_name("parameters") if decl is not None else None
        params = ksrc.text_of(plist) if plist is not None else "()"
        c = 'extern "C" ' if fn.parent is not None and fn.parent.type == "linkage_specification" else ""
        head = ksrc.text_of(fn)[: ksrc.text_of(fn).find("(")]
        c = c or ('extern "C" ' if 'extern "C"' in head else "")
        return f"{c}void {kernel}{params};"
    return ""


def _wrapper_glue(ksrc: CppSource, wrapper: launch.Wrapper | None) -> str:
    """A `k_do` wrapper launches with `<<<…>>>`, which the kernel file keeps out of its CPU-debug build
    (`#ifndef ASCENDC_CPU_DEBUG`): the same function, launching with ICPU_RUN_KF."""
    if wrapper is None:
        return ""
    for name, fn in ksrc.functions():
        if name != wrapper.name:
            continue
        decl = _declarator(fn)
        plist = decl.child_by_field_name("parameters") if decl is not None else None
        if plist is None:
            return ""
        text = ksrc.text_of(fn)
        c = (
            'extern "C" '
            if 'extern "C"' in text[: text.find("(")]
            or (fn.parent is not None and fn.parent.type == "linkage_specification")
            else ""
        )
        inner = wrapper.inner
        args = ", ".join([inner.kernel + (inner.template_args or ""), inner.block_dim, *inner.args])
        return (
            f"{_kernel_declaration(ksrc, inner.kernel)}\n"
            f"{c}void {wrapper.name}{ksrc.text_of(plist)}\n{{\n    ICPU_RUN_KF({args});\n}}\n"
        )
    return ""


def _aclrt_headers(ksrc: CppSource, site: launch.LaunchSite) -> dict[str, str]:
    """`aclrtlaunch_<k>.h`, which CANN's build generates: `aclrtlaunch_k(blockDim, stream, args…)`,
    GM addresses as `void *`, launching with ICPU_RUN_KF on the twin."""
    if site.form != "ACLRT_LAUNCH_KERNEL":
        return {}
    k = site.kernel
    for name, fn in ksrc.functions():
        if name != k:
            continue
        decl = _declarator(fn)
        plist = decl.child_by_field_name("parameters") if decl is not None else None
        params, args = [], []
        for p in plist.named_children if plist is not None else []:
            d, t = p.child_by_field_name("declarator"), p.child_by_field_name("type")
            if d is None or t is None:
                continue
            pname = _IDENT.findall(ksrc.text_of(d))[-1]
            whole = ksrc.text_of(p)
            if "GM_ADDR" in whole or "*" in whole:
                params.append(f"void *{pname}")
                args.append(f"static_cast<GM_ADDR>({pname})")
            else:
                params.append(whole)
                args.append(pname)
        guard = f"ASCENDOPT_TWIN_ACLRTLAUNCH_{k.upper()}_H"
        text = (
            f"// Generated by ascendopt: CANN's generated launch header, launching on the CPU twin.\n"
            f'#ifndef {guard}\n#define {guard}\n#include "ascendopt_twin/torch_ext.h"\n'
            f"{_kernel_declaration(ksrc, k)}\n"
            f"inline uint32_t aclrtlaunch_{k}({', '.join(['uint32_t blockDim', 'void *stream', *params])})\n"
            f"{{\n    (void)stream;\n    ICPU_RUN_KF({', '.join([k, 'blockDim', *args])});\n"
            "    return 0;\n}\n"
            f"#endif\n"
        )
        return {f"aclrtlaunch_{k}.h": text}
    return {}
