"""CANN open-repo operators (look-alikes written here, in the ops-math / ops-nn style)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import tomllib

from ascendopt.evaluation.cpu_twin.build import BuildCache, Builder, include_flags
from ascendopt.operators.candidate import baseline
from ascendopt.operators.cpp_source import CppSource
from ascendopt.operators.discovery import discover, load_operator
from ascendopt.operators.files import materialize, write_tree
from ascendopt.operators.issues import CompileError
from ascendopt.operators.soc import soc
from ascendopt.operators.spec_init import starting_spec
from tests.operators.cann_open_style import write_repo


def test_discovered_with_its_files_and_the_910b_variant(tmp_path: Path) -> None:
    op_root = write_repo(tmp_path)
    found = discover(tmp_path)
    [op] = found.operators
    assert op.name == "scale_norm" and op.layout == "cann_open" and op.root == op_root
    assert op.files.kernel == "op_kernel/scale_norm.cpp"  # not the 950's scale_norm_apt.cpp
    assert op.files.host == "op_host/scale_norm_tiling.cpp"
    assert op.files.host_sources == ["op_host/scale_norm_tiling_arch35.cpp"]  # linked with it
    assert op.files.opdef == "op_host/scale_norm_def.cpp"
    assert op.files.tiling_data == "op_kernel/scale_norm_tiling_data.h"
    assert op.kernel.template == "<uint32_t schMode>" and not op.kernel.extern_c
    assert op.tiling is not None and op.tiling.function == "ScaleNormTiling"
    variant = [i for i in op.issues if i.code == "variant"]
    assert any("ascend910b builds op_kernel/scale_norm.cpp" in i.message for i in variant)
    assert any(i.file == "op_kernel/scale_norm_apt.cpp" and "ascend950" in i.message for i in variant)
    assert all(i.severity == "info" for i in variant)
    # A variant is neither a name clash nor an entry nobody understood.
    assert not [i for i in op.issues if i.code == "duplicate"]
    assert not [i for i in found.issues if i.severity == "error"], found.issues


def test_a_950_spec_picks_the_arch35_kernel(tmp_path: Path) -> None:
    op_root = write_repo(tmp_path)
    (op_root / "ascendopt.toml").write_text(
        'schema_version = 1\nname = "scale_norm"\nsoc = "Ascend950PR_9599"\nreference = "reference.py:f"\n'
        '[[inputs]]\nname = "x"\ndtypes = ["float16"]\n[[outputs]]\nname = "y"\ndtypes = ["float16"]\n'
        '[[cases]]\nname = "a"\nshapes = { x = [4, 64] }\n'
    )
    op = load_operator(op_root)
    assert op.files.kernel == "op_kernel/scale_norm_apt.cpp"
    assert op.repo is not None and op.repo.soc_family == "ascend950"


def test_statement_macros_and_if_split_chains_never_block(tmp_path: Path) -> None:
    op = load_operator(write_repo(tmp_path))
    # (The templated entry's dispatch by tiling key is the twin's: `unsupported` until it lands.)
    assert not [i for i in op.issues if i.severity == "error" and i.code != "unsupported"], op.issues
    # The knob inside the tiling file is still read (the file parsed after all).
    assert "BUFFER_NUM" in {k.name for k in op.knobs}


def test_what_cannot_be_parsed_is_a_note_on_its_line() -> None:
    text = "void f() {\n    int ok = 1;\n    WEIRD_MACRO(Kernel<half, true>, float, 3)\n    ok += 2;\n}\n"
    issues = CppSource.parse("k.cpp", text).syntax_issues()
    assert issues and all(i.severity == "info" and i.code == "parse" for i in issues)
    assert issues[0].line == 3 and "nothing on this line is read or edited" in issues[0].message


def test_if_split_else_chain_and_statement_macro_parse_clean() -> None:
    text = (
        "int g(int k) {\n"
        '    OP_CHECK_IF(k < 0, OP_LOGE(ctx, "bad %d", k), return -1);\n'
        "    if (k == 1) {\n        return 1;\n"
        "#if defined(WIDE)\n    } else if (k == 3) {\n        return 3;\n#endif\n"
        "    } else {\n        return 2;\n    }\n}\n"
    )
    src = CppSource.parse("t.cpp", text)
    assert src.syntax_issues() == []
    assert [n for n, _ in src.functions()] == ["g"]


def test_include_closure_is_carried_at_repo_relative_places(tmp_path: Path) -> None:
    op = load_operator(write_repo(tmp_path))
    assert op.repo is not None
    assert op.repo.root == tmp_path.resolve() and op.repo.prefix == "norm/scale_norm"
    assert op.repo.include_dirs[:2] == ["", "common/inc"]
    context = set(op.files.context)
    # Reached by an include: carried; the rest of the repository: not.
    assert "../../common/inc/op_host/scale_registry.h" in context
    assert {"../norm_helpers/blend.h", "../norm_helpers/blend_impl.h"} <= context
    assert "../../common/inc/op_host/unused_registry.h" not in context
    # CANN's kernel build puts each op_kernel/ at ascendc/<op>/: `../other_op/other.h` is
    # other_op's op_kernel/other.h, carried where g++ looks for it from op_kernel/.
    assert "other_op/other.h" in context and "../other_op/op_kernel/unused.h" not in context
    assert op.repo.relocated["other_op/other.h"] == "../other_op/op_kernel/other.h"
    assert "other_op's kernel header" in op.read_files()["other_op/other.h"]
    tree = op.tree_files(op.read_files())
    assert "common/inc/op_host/scale_registry.h" in tree and "norm/norm_helpers/blend.h" in tree
    assert "norm/scale_norm/op_kernel/scale_norm.cpp" in tree
    flags = include_flags(op, op.files.host or "", op.read_files(), "/twin")
    assert flags[flags.index("../..") - 1] == "-I" and "../../common/inc" in flags
    assert "/twin/include/opbase/op_common/op_host" in flags


def test_a_candidate_written_out_is_the_same_operator_in_the_same_repo_shape(tmp_path: Path) -> None:
    op = load_operator(write_repo(tmp_path / "repo"))
    copy = materialize(op, baseline(op), tmp_path / "out")
    assert copy.root.as_posix().endswith("norm/scale_norm")
    assert copy.repo is not None and copy.repo.prefix == "norm/scale_norm"
    assert copy.files.kernel == op.files.kernel and set(copy.files.context) >= {
        "../../common/inc/op_host/scale_registry.h"
    }


@pytest.mark.slow
def test_a_missing_header_names_header_file_line_and_the_folders_searched(tmp_path: Path) -> None:
    op = load_operator(write_repo(tmp_path / "repo", missing_header=True))
    assert op.repo is not None
    [gone] = [u for u in op.repo.unresolved if u.header == "nowhere/vanished.h"]
    assert (gone.file, gone.line) == ("op_kernel/scale_norm.h", 3)
    files = op.read_files()
    src = write_tree(op, files, tmp_path / "build" / "src")
    builder = Builder(BuildCache(root=tmp_path / "cache"))
    with pytest.raises(CompileError) as err:
        dtypes = {"x": "float16", "y": "float16"}
        asyncio.run(builder.kernel_object(op, src, files, dtypes, soc("Ascend910B4"), cube=[]))
    [issue] = [i for i in err.value.issues if "vanished" in i.message]
    assert "header `nowhere/vanished.h` (included from op_kernel/scale_norm.h:3)" in issue.message
    assert "op_kernel" in issue.message and "../../common/inc" in issue.message
    assert "<twin>/include" in issue.message


def test_init_spec_reads_the_opdef_and_the_example(tmp_path: Path) -> None:
    op = load_operator(write_repo(tmp_path))
    draft = starting_spec(op)
    spec = tomllib.loads(draft.text)
    assert [t["name"] for t in spec["inputs"]] == ["x", "weight"]
    assert [t["name"] for t in spec["outputs"]] == ["y", "inv"]
    assert spec["inputs"][0]["dtypes"] == ["float16", "float32"]
    assert spec["outputs"][1]["dtypes"] == ["float32", "float32"]  # the secondary output stays float32
    assert [(a["name"], a["type"], a["default"]) for a in spec["attrs"]] == [
        ("eps", "float", 1e-5),
        ("mode", "int", 2),
    ]
    case = spec["cases"][0]
    assert case["shapes"] == {"x": [4, 64], "weight": [64]}  # from examples/test_aclnn_scale_norm.cpp
    assert case["dtype"] == "float16" and case["dtypes"] == {"weight": "float32", "inv": "float32"}
    assert "TODO" not in case.get("name", "") and any("test_aclnn_scale_norm.cpp" in n for n in draft.notes)


def test_init_spec_takes_the_socs_dtype_columns_from_its_binary_json(tmp_path: Path) -> None:
    op_root = write_repo(tmp_path)
    config = op_root / "op_host" / "config" / "ascend910b"
    config.mkdir(parents=True)
    tensor = lambda name, dtype: {"name": name, "dtype": dtype, "format": "ND"}  # noqa: E731
    (config / "scale_norm_binary.json").write_text(
        json.dumps(
            {
                "op_type": "ScaleNorm",
                "op_list": [
                    {
                        "inputs": [tensor("x", "float16"), tensor("weight", "float32")],
                        "outputs": [tensor("y", "float16"), tensor("inv", "float32")],
                    }
                ],
            }
        )
    )
    spec = tomllib.loads(starting_spec(load_operator(op_root)).text)
    assert spec["inputs"][0]["dtypes"] == ["float16"] and spec["outputs"][1]["dtypes"] == ["float32"]


@pytest.mark.slow
def test_a_spec_kept_outside_the_checkout(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ascendopt.cli import app

    op_root = write_repo(tmp_path / "repo")
    before = sorted(p.relative_to(tmp_path / "repo") for p in (tmp_path / "repo").rglob("*"))
    outside = tmp_path / "mine" / "scale_norm.toml"
    result = CliRunner().invoke(app, ["init-spec", str(op_root), "--out", str(outside)])
    assert result.exit_code == 0, result.output
    assert outside.is_file() and f"--spec {outside}" in "".join(result.output.split("\n"))
    (outside.parent / "reference.py").write_text(
        "import numpy as np\n\ndef scale_norm(x, weight, eps=1e-5, mode=2):\n    return x, x[:, :1]\n"
    )
    op = load_operator(op_root, spec=outside)
    assert op.spec is not None and op.external_spec == outside.resolve()
    assert op.spec_root == outside.parent.resolve()
    assert op.files.spec is None and "reference.py" not in op.files.extra
    assert not [i for i in op.issues if "reference" in i.message], op.issues
    result = CliRunner().invoke(app, ["knobs", str(op_root), "--spec", str(outside), "--json"])
    assert result.exit_code == 0, result.output
    # The checkout is as it was: nothing written into it.
    assert sorted(p.relative_to(tmp_path / "repo") for p in (tmp_path / "repo").rglob("*")) == before


def test_a_spec_outside_with_a_wrong_reference_is_reported_at_its_file(tmp_path: Path) -> None:
    op_root = write_repo(tmp_path / "repo")
    outside = tmp_path / "mine" / "ascendopt.toml"
    outside.parent.mkdir()
    outside.write_text(starting_spec(load_operator(op_root)).text)
    op = load_operator(op_root, spec=outside)
    [issue] = [i for i in op.issues if "reference file" in i.message]
    assert issue.file == str(outside.resolve()) and issue.line > 1


def test_a_broken_or_foreign_spec_outside_is_refused_naming_its_file_and_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ascendopt.cli import app

    op_root = write_repo(tmp_path / "repo")
    outside = tmp_path / "mine" / "ascendopt.toml"
    outside.parent.mkdir()
    good = starting_spec(load_operator(op_root)).text
    outside.write_text(good.replace("[[inputs]]", "[[inputs]]\nbogus_key = 1", 1))
    result = CliRunner().invoke(app, ["knobs", str(op_root), "--spec", str(outside)])
    line = good.splitlines().index("[[inputs]]") + 2
    assert result.exit_code == 2 and f"{outside}:{line}" in "".join(result.output.split("\n")), result.output
    assert "Traceback" not in result.output
    outside.write_text(good.replace('name = "scale_norm"', 'name = "other_norm"', 1))
    result = CliRunner().invoke(app, ["knobs", str(op_root), "--spec", str(outside)])
    assert result.exit_code == 2 and "names another operator than scale_norm" in result.output, result.output


def test_specs_outside_apply_each_to_the_operator_it_names(tmp_path: Path) -> None:
    op_root = write_repo(tmp_path / "repo")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "scale_norm.toml").write_text(starting_spec(load_operator(op_root)).text)
    (mine / "unrelated.toml").write_text(
        starting_spec(load_operator(op_root)).text.replace('name = "scale_norm"', 'name = "unrelated"', 1)
    )
    found = discover(tmp_path / "repo", [mine / "unrelated.toml", mine / "scale_norm.toml"])
    [op] = found.operators
    assert op.external_spec == (mine / "scale_norm.toml").resolve() and op.spec is not None


def test_the_older_cann_ops_keeps_its_tiling_program_in_op_host_op_cpp(tmp_path: Path) -> None:
    # cann-ops (src/<family>/<op>/): TilingFunc beside InferShape in op_host/<op>.cpp, the OpDef in _def.cpp.
    op_root = write_repo(tmp_path)
    (op_root / "op_host" / "scale_norm_tiling.cpp").rename(op_root / "op_host" / "scale_norm.cpp")
    [op] = discover(tmp_path).operators
    assert op.files.host == "op_host/scale_norm.cpp"
    assert op.tiling is not None and op.tiling.function == "ScaleNormTiling"
    assert not [i for i in op.issues if "no tiling program" in i.message]
