// CPU-twin test kernel for the high-level Matmul API in the mixed launch (1 AIC + 2 AIV per block), one case per
// tiling key. a: half[M x K], b: half[N x K] (B given transposed), bias: float[N]; w: float[M x N] = a @ b^T + bias
// (each vector core asks for its half of the rows), z: float[M x N] = w + 1 (each vector core reads its rows of w
// back right after the product). Built twice as the twin builds a mixed kernel; on the cube core REGIST_MATMUL_OBJ
// leaves the kernel.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using namespace AscendC;
constexpr int32_t M = 32, K = 32, N = 48;

using AType = matmul::MatmulType<TPosition::GM, CubeFormat::ND, half>;
using BType = matmul::MatmulType<TPosition::GM, CubeFormat::ND, half, true>;
using CType = matmul::MatmulType<TPosition::GM, CubeFormat::ND, float>;
using BiasType = matmul::MatmulType<TPosition::GM, CubeFormat::ND, float>;
using MM = matmul::Matmul<AType, BType, CType, BiasType, CFG_NORM>;

// The tiling GetTiling would give for [M, N, K] on one core (the kernel has no host here).
static TCubeTiling Tiling()
{
    TCubeTiling t;
    t.usedCoreNum = 1;
    t.M = M, t.N = N, t.Ka = K, t.Kb = K;
    t.singleCoreM = M, t.singleCoreN = N, t.singleCoreK = K;
    t.baseM = 16, t.baseN = 32, t.baseK = K;
    t.isBias = 1;
    return t;
}

// This vector core's rows of w + 1 into z (w read back at once: the Matmul call has returned).
static void AddOne(TPipe &pipe, GM_ADDR gw, GM_ADDR gz, uint32_t first, uint32_t rows)
{
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, rows * N * 4);
    LocalTensor<float> t = buf.Get<float>();
    GlobalTensor<float> w, z;
    w.SetGlobalBuffer((__gm__ float *)gw + first * N, rows * N);
    z.SetGlobalBuffer((__gm__ float *)gz + first * N, rows * N);
    DataCopy(t, w, rows * N);
    SetFlag<HardEvent::MTE2_V>(0);
    WaitFlag<HardEvent::MTE2_V>(0);
    Adds(t, t, 1.0f, rows * N);
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    DataCopy(z, t, rows * N);
}

extern "C" __global__ __aicore__ void matmul_api_cases(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR w, GM_ADDR z, GM_ADDR workspace)
{
    (void)workspace;
    const uint64_t key = ascendopt_twin::rt::g_blk->tilingKey;
    TPipe pipe;
    TCubeTiling tiling = Tiling();
    MM mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
    const uint32_t rows = M / GetSubBlockNum(), first = rows * GetSubBlockIdx();
    GlobalTensor<half> ga, gb;
    GlobalTensor<float> gbias, gw;
    ga.SetGlobalBuffer((__gm__ half *)a, M * K);
    gb.SetGlobalBuffer((__gm__ half *)b, N * K);
    gbias.SetGlobalBuffer((__gm__ float *)bias, N);
    gw.SetGlobalBuffer((__gm__ float *)w, M * N);
    if (key == 2) mm.SetOrgShape(M, N, K - 16);  // wrong: A's rows taken 16 elements apart too soon
    mm.SetTensorA(ga[first * K]);
    mm.SetTensorB(gb, true);
    mm.SetBias(gbias);
    mm.SetSingleShape(rows, N, K);
    switch (key) {
    case 0:  // correct
    case 2:
        mm.IterateAll(gw[first * N]);
        break;
    case 1:  // hostile: the second vector core's C lies past the end of w
        mm.IterateAll(gw[first * N + M * N / 2]);  // TAG_C_PAST_END
        break;
    case 3:  // block by block: Iterate / GetTensorC at each block's place in C
        while (mm.Iterate()) mm.GetTensorC(gw[first * N]);
        break;
    case 4:  // asynchronous: C is there once waited for
        mm.IterateAll<false>(gw[first * N]);
        mm.WaitIterateAll();
        break;
    default:
        break;
    }
    mm.End();
    AddOne(pipe, w, z, first, rows);
}
