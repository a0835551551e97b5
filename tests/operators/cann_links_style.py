"""A look-alike of an open-repo operator whose build reaches other operators' files, written for these
tests (ops-nn style, as swi_glu and add_rms_norm are built):

* `activation/sq_like` (cann_knobs_style.py's y = x * |x|) in a repository (`build.sh` beside `common/`).
* Its tiling includes `../../sq_like_grad/op_host/sq_like_grad_tiling_regbase.h`, a class with
  virtual methods whose definitions live in the `.cpp` beside that header (another operator's host
  source), constructed only on a regbase SoC but referenced on every one (its vtable); and
  `common/inc/op_host/core_rule.h`, whose function it calls on every run, defined in
  `common/src/op_host/core_rule.cpp` (the `inc/` → `src/` mirror).
* Its kernel class takes its queue depth `BUFFER_NUM = 1` from `../sq_like_grad/sq_like_grad_base.h`,
  the sibling operator's op_kernel header as CANN's kernel build lays kernels out, while a dead
  `op_kernel/sq_like_base.h` (included by nothing) has a `BUFFER_NUM = 3` of its own.
"""

from __future__ import annotations

from pathlib import Path

from tests.operators.cann_knobs_style import SQ_HOST, SQ_KERNEL_CLASS, write_sq_like

GRAD_HEADER = """\
#ifndef SQ_LIKE_GRAD_TILING_REGBASE_H
#define SQ_LIKE_GRAD_TILING_REGBASE_H
#include "register/op_impl_registry.h"

namespace optiling {
class SqGradTiling4RegBase {
public:
    explicit SqGradTiling4RegBase(gert::TilingContext *context) : context_(context) {}
    virtual ~SqGradTiling4RegBase();
    virtual ge::graphStatus DoTiling();

protected:
    gert::TilingContext *context_;
};
}  // namespace optiling
#endif
"""

GRAD_SOURCE = """\
#include "sq_like_grad_tiling_regbase.h"

namespace optiling {
SqGradTiling4RegBase::~SqGradTiling4RegBase() = default;
ge::graphStatus SqGradTiling4RegBase::DoTiling()
{
    context_->SetBlockDim(1);
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
"""

CORE_RULE_H = """\
#ifndef CORE_RULE_H
#define CORE_RULE_H
#include <cstdint>
namespace optiling {
int64_t CoresFor(int64_t tiles, int64_t coreNum);
}
#endif
"""

CORE_RULE_CPP = """\
#include "op_host/core_rule.h"
namespace optiling {
int64_t CoresFor(int64_t tiles, int64_t coreNum)
{
    return tiles < 1 ? 1 : (tiles > coreNum ? coreNum : tiles);
}
}  // namespace optiling
"""

SIBLING_BASE = """\
#ifndef SQ_LIKE_GRAD_BASE_H
#define SQ_LIKE_GRAD_BASE_H
#include <cstdint>
constexpr int32_t BUFFER_NUM = 1;  // tensors per queue
#endif
"""

DEAD_BASE = """\
#ifndef SQ_LIKE_BASE_H
#define SQ_LIKE_BASE_H
constexpr int32_t BUFFER_NUM = 3;  // a file nothing includes
#endif
"""

HOST = SQ_HOST.replace(
    '#include "register/op_impl_registry.h"\n',
    '#include "register/op_impl_registry.h"\n'
    '#include "op_host/core_rule.h"\n'
    '#include "../../sq_like_grad/op_host/sq_like_grad_tiling_regbase.h"\n',
).replace(
    "    need = need < 1 ? 1 : (need > coreNum ? coreNum : need);\n",
    "    if (platform.GetSocVersion() == platform_ascendc::SocVersion::ASCEND950) {\n"
    "        SqGradTiling4RegBase regbase(context);\n"
    "        return regbase.DoTiling();\n"
    "    }\n"
    "    need = CoresFor(need, coreNum);\n",
)

KERNEL_CLASS = SQ_KERNEL_CLASS.replace(
    '#include "kernel_operator.h"\n',
    '#include "kernel_operator.h"\n#include "../sq_like_grad/sq_like_grad_base.h"\n',
).replace("TQue<QuePosition::VECIN, 2>", "TQue<QuePosition::VECIN, BUFFER_NUM>").replace(
    "InitBuffer(inQ_, 2,", "InitBuffer(inQ_, BUFFER_NUM,"
)


def write_linked_sq_like(root: Path) -> Path:
    """The repository under `root`; returns the operator folder (`activation/sq_like`)."""
    files = {
        "build.sh": "#!/bin/bash\ncmake -S . -B build\n",
        "CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(ops_lookalike)\n",
        "common/inc/op_host/core_rule.h": CORE_RULE_H,
        "common/src/op_host/core_rule.cpp": CORE_RULE_CPP,
        "activation/sq_like_grad/op_host/sq_like_grad_tiling_regbase.h": GRAD_HEADER,
        "activation/sq_like_grad/op_host/sq_like_grad_tiling_regbase.cpp": GRAD_SOURCE,
        "activation/sq_like_grad/op_kernel/sq_like_grad_base.h": SIBLING_BASE,
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    op = write_sq_like(root)
    (op / "op_host/sq_like_tiling.cpp").write_text(HOST)
    (op / "op_kernel/sq_like.h").write_text(KERNEL_CLASS)
    (op / "op_kernel/sq_like_base.h").write_text(DEAD_BASE)
    return op
