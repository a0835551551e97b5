// CPU-twin test kernel: raw `__gm__` stores a cheaper sweep could miss, one case per tiling key (8 blocks).
// Args: x (float32[M]), y (float32[M]), z (float32[M]), workspace, tiling. M = 8192 (32 KiB: 8 sweep chunks).
#include "kernel_operator.h"

constexpr uint32_t M = 8192;

// The word of z that block b changes: each block a different chunk and offset, none its own.
static uint32_t Victim(uint32_t b) { return ((b + 3) % 8) * 1024 + 37 * b + 5; }

extern "C" __global__ __aicore__ void raw_gm_hidden(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)y; (void)workspace; (void)tiling;
    const uint32_t me = AscendC::GetBlockIdx();
    __gm__ uint32_t *zw = reinterpret_cast<__gm__ uint32_t *>(z);
    if (TILING_KEY_IS(1)) {  // one bit of one byte per block
        reinterpret_cast<__gm__ uint8_t *>(z)[4 * Victim(me) + 1] ^= static_cast<uint8_t>(1u << me);
    } else if (TILING_KEY_IS(2)) {  // changes a word sum keeps (+1, -1) and a sum of words and their XOR keep (a swap)
        uint32_t v = Victim(me);
        zw[v] = 1000u + me;
        zw[v + 1] = 2000u + me;
        zw[v + 2] = 0u;
    } else if (TILING_KEY_IS(3)) {  // block 0 stores, block 1 puts the old bytes back: net zero after the launch
        if (me == 0) zw[77] = 7u;
        if (me == 1) zw[77] = 0xFFFFFFFFu;
    } else if (TILING_KEY_IS(4)) {  // block 0 stores raw, block 1 then writes the same element through the API
        if (me == 0) zw[300] = 1u;
        if (me == 1) {
            AscendC::GlobalTensor<float> g;
            g.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(z), M);
            g.SetValue(300, 2.0f);
        }
    } else if (TILING_KEY_IS(5)) {  // a store undone before the hand-over; then one undone only after a SyncAll
        if (me == 0) { zw[11] = 1u; zw[11] = 0xFFFFFFFFu; zw[4000] = 3u; }
        AscendC::SyncAll();
        if (me == 0) zw[4000] = 0xFFFFFFFFu;
    } else if (TILING_KEY_IS(6)) {  // the last block writes into its input's last chunk
        if (me == 7) reinterpret_cast<__gm__ float *>(x)[M - 3] = -1.0f;
    }
}
