"""Quick fixes on kernel text: each fix writes what the finding asks for, and none is offered when
the text does not say what to write."""

from __future__ import annotations

from ascendopt.operators.quickfix import Edit, fixes_for

KERNEL = """\
constexpr int32_t BUFFER_NUM = 2;
constexpr int32_t TILE_LENGTH = 8192;
class K {
    __aicore__ inline void Init()
    {
        pipe.InitBuffer(inQueueX, BUFFER_NUM, TILE_LENGTH * sizeof(half));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, TILE_LENGTH * sizeof(half));
    }
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t count)
    {
        AscendC::LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
        AscendC::DataCopy(xLocal, xGm[progress * TILE_LENGTH], count + 1);
    }
    __aicore__ inline void CopyOut(uint32_t progress)
    {
        AscendC::LocalTensor<half> zLocal = outQueueZ.DeQue<half>();
        AscendC::DataCopy(zGm[progress * TILE_LENGTH], zLocal, count);
        AscendC::LocalTensor<half> xLocal = inQueueX.DeQue<half>();
    }
};
"""
LINES = KERNEL.splitlines()


def _line(needle: str) -> int:
    return next(i for i, t in enumerate(LINES) if needle in t)


def _apply(edit: Edit) -> list[str]:
    out = KERNEL.splitlines(keepends=True)
    text = out[edit.line]
    out[edit.line] = text[: edit.start] + edit.text + text[edit.end :]
    return "".join(out).splitlines()


def test_misaligned_copy_in_becomes_datacopypad_with_the_byte_length():
    line = _line("DataCopy(xLocal")
    msg = (
        "DataCopy GM->UB length 101 x float16 = 202 B is not a multiple of 32 B; "
        "on the NPU the tail of 10 B is dropped (use DataCopyPad)"
    )
    (fix,) = fixes_for("twin.misaligned_copy", msg, line, LINES)
    assert _apply(fix.edits[0])[line].strip() == (
        "AscendC::DataCopyPad(xLocal, xGm[progress * TILE_LENGTH], AscendC::DataCopyExtParams{1, "
        "static_cast<uint32_t>((count + 1) * sizeof(half)), 0, 0, 0}, "
        "AscendC::DataCopyPadExtParams<half>{false, 0, 0, 0});"
    )
    assert "DataCopyPad" in fix.title


def test_misaligned_copy_out_takes_no_pad_params():
    line = _line("DataCopy(zGm")
    msg = (
        "DataCopy UB->GM length 100 x float16 = 200 B is not a multiple of 32 B; "
        "on the NPU the tail of 8 B is not written (use DataCopyPad)"
    )
    (fix,) = fixes_for("twin.misaligned_copy", msg, line, LINES)
    assert _apply(fix.edits[0])[line].strip() == (
        "AscendC::DataCopyPad(zGm[progress * TILE_LENGTH], zLocal, AscendC::DataCopyExtParams{1, "
        "static_cast<uint32_t>(count * sizeof(half)), 0, 0, 0});"
    )
    # An address problem is not fixed by a length.
    assert not fixes_for(
        "twin.misaligned_copy", "DataCopy: UB address of dst (offset 16) is not 32 B aligned", line, LINES
    )


def test_ub_overflow_halves_the_tile_constant_until_the_buffers_fit():
    line = _line("InitBuffer(outQueueZ")
    msg = (
        "TPipe::InitBuffer(outQueueZ, 16384 B): buffers now need 65536 B (32 B aligned) "
        "but the UB has 49152 B"
    )
    (fix,) = fixes_for("twin.ub_overflow", msg, line, LINES)
    assert _apply(fix.edits[0])[_line("TILE_LENGTH =")] == "constexpr int32_t TILE_LENGTH = 4096;"
    assert "TILE_LENGTH to 4096" in fix.title and "49152 B" in fix.title
    # A tile from the tiling data (a member, not a constant): nothing to write here.
    members = [t.replace("TILE_LENGTH", "tileLength") for t in LINES]
    assert not fixes_for("twin.ub_overflow", msg, line, members)


def test_deque_without_enque_gets_the_enque_where_the_tensor_was_allocated():
    line = _line("inQueueX.DeQue")
    (fix,) = fixes_for("twin.deque_empty", "DeQue on empty queue 0 (no matching EnQue)", line, LINES)
    fixed = _apply(fix.edits[0])
    at = fixed.index("        inQueueX.EnQue(xLocal);")
    assert "DataCopy(xLocal" in fixed[at - 1] and fixed[at + 1].strip() == "}"
    # outQueueZ is never allocated in this text: no fix to guess.
    assert not fixes_for("twin.deque_empty", "DeQue on empty queue 1", _line("outQueueZ.DeQue"), LINES)
