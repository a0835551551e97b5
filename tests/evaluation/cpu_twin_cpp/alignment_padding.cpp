// CPU-twin test kernel: writes past the end of a 12 B output (3 floats), one case per tiling key.
// Args: x (float32[3]), z (float32[3]), workspace, tiling.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void alignment_padding(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace; (void)tiling;
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    GlobalTensor<float> gx, gz;
    gx.SetGlobalBuffer((__gm__ float *)x, 3);
    gz.SetGlobalBuffer((__gm__ float *)z, 3);
    LocalTensor<float> t = b.Get<float>();
    if (TILING_KEY_IS(1)) {  // the common tail: 32 B in, doubled, 32 B out (20 B into z's alignment padding)
        DataCopy(t, gx, 8);  // LINE_ALIGNIN
        SetFlag<HardEvent::MTE2_V>(0);
        WaitFlag<HardEvent::MTE2_V>(0);
        Muls(t, t, 2.0f, 8);
        SetFlag<HardEvent::V_MTE3>(0);
        WaitFlag<HardEvent::V_MTE3>(0);
        DataCopy(gz, t, 8);  // LINE_ALIGNWRITE
    } else if (TILING_KEY_IS(2)) {  // hostile: z = what z's padding held when the run began, then 42 into the padding
        DataCopy(t, gz, 8);  // LINE_PADREAD
        SetFlag<HardEvent::MTE2_S>(0);
        WaitFlag<HardEvent::MTE2_S>(0);
        for (int i = 0; i < 3; ++i) t.SetValue(i, t.GetValue(3 + i));
        for (int i = 3; i < 8; ++i) t.SetValue(i, 42.0f);
        SetFlag<HardEvent::S_MTE3>(0);
        WaitFlag<HardEvent::S_MTE3>(0);
        DataCopy(gz, t, 8);  // LINE_STASH
    } else if (TILING_KEY_IS(3)) {  // 64 B out: past the 32 B-rounded end
        Duplicate(t, 5.0f, 16);
        SetFlag<HardEvent::V_MTE3>(0);
        WaitFlag<HardEvent::V_MTE3>(0);
        DataCopy(gz, t, 16);  // LINE_PASTALIGN
    }
}
