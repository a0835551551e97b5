// CPU-twin test kernel: stores through raw `__gm__ T *` pointers (a cast GM_ADDR), one case per tiling key.
// Args: x (float32[N]), y (float32[N]), z (float32[N]), workspace, tiling. N = 1024.
#include "kernel_operator.h"

constexpr uint32_t N = 1024;

extern "C" __global__ __aicore__ void raw_gm_stores(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)y; (void)workspace; (void)tiling;
    const uint32_t blocks = AscendC::GetBlockNum(), me = AscendC::GetBlockIdx();
    const uint32_t per = N / blocks;
    __gm__ const float *in = reinterpret_cast<__gm__ const float *>(x);
    __gm__ float *out = reinterpret_cast<__gm__ float *>(z);
    if (TILING_KEY_IS(1)) {  // each block doubles its share of x into z, element by element
        for (uint32_t i = me * per; i < (me + 1) * per; ++i) out[i] = in[i] * 2.0f;
    } else if (TILING_KEY_IS(2)) {  // the last element's store runs 4 elements past the end of z
        for (uint32_t i = me * per; i < (me + 1) * per; ++i) out[i] = in[i] * 2.0f;
        if (me + 1 == blocks) out[N + 3] = 1.0f;
    } else if (TILING_KEY_IS(3)) {  // every block stores element 0 too: blocks race on it
        for (uint32_t i = me * per; i < (me + 1) * per; ++i) out[i] = in[i] * 2.0f;
        out[0] = static_cast<float>(me + 1);
    } else if (TILING_KEY_IS(4)) {  // writes into its input
        reinterpret_cast<__gm__ float *>(x)[5] = 0.5f;
        for (uint32_t i = me * per; i < (me + 1) * per; ++i) out[i] = 0.0f;
    } else if (TILING_KEY_IS(5)) {  // writes only the first half
        for (uint32_t i = me * per; i < me * per + per / 2; ++i) out[i] = 3.0f;
    }
}
