// AscendOptimizer CPU twin: basic types shared by the kernel-side headers and the runtime.
// Internal header; kernels include "kernel_operator.h".
#ifndef ASCENDOPT_TWIN_BASE_H
#define ASCENDOPT_TWIN_BASE_H

#include <cstddef>
#include <cassert>  // kernels call assert() bare, as CANN's kernel headers allow
#include <cstdint>
#include <cstring>
#include <type_traits>

#ifndef __global__
#define __global__
#endif
#ifndef __aicore__
#define __aicore__
#endif
#ifndef __gm__
#define __gm__
#endif
#ifndef __ubuf__
#define __ubuf__
#endif
// bisheng's forced inlining (Catlass writes `__forceinline__ [aicore]`; the bracketed attribute is blanked from the
// staged source by cpu_twin/bisheng.py).
#ifndef __forceinline__
#define __forceinline__ inline
#endif
#ifndef __inout_pipe__
#define __inout_pipe__(x)
#endif

using GM_ADDR = uint8_t *;

// Branch hints kernels write without including anything else (kernel_operator.h brings them on CANN).
#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

// fp16: the x86 _Float16 type (IEEE binary16), like the NPU's half.
using half = _Float16;
// The kernel compiler also knows these names (cann-ops kernels write `float16_t`, `float32_t`).
using float16_t = half;
using float32_t = float;

// bf16: 16 bits of storage; converts through fp32 with round-to-nearest-even.
struct bfloat16_t {
    uint16_t bits = 0;
    bfloat16_t() = default;
    static bfloat16_t FromBits(uint16_t b) { bfloat16_t r; r.bits = b; return r; }
    static uint16_t Round(float f)
    {
        uint32_t u;
        std::memcpy(&u, &f, 4);
        if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet NaN
        u += 0x7fffu + ((u >> 16) & 1u);
        return static_cast<uint16_t>(u >> 16);
    }
    bfloat16_t(float f) : bits(Round(f)) {}
    bfloat16_t(double d) : bits(Round(static_cast<float>(d))) {}
    bfloat16_t(half h) : bits(Round(static_cast<float>(h))) {}
    bfloat16_t(int v) : bits(Round(static_cast<float>(v))) {}
    bfloat16_t(int64_t v) : bits(Round(static_cast<float>(v))) {}
    bfloat16_t(uint32_t v) : bits(Round(static_cast<float>(v))) {}
    bfloat16_t(uint64_t v) : bits(Round(static_cast<float>(v))) {}
    float ToFloat() const
    {
        uint32_t u = static_cast<uint32_t>(bits) << 16;
        float f;
        std::memcpy(&f, &u, 4);
        return f;
    }
    operator float() const { return ToFloat(); }
    bool operator==(const bfloat16_t &o) const { return ToFloat() == o.ToFloat(); }
    bool operator!=(const bfloat16_t &o) const { return ToFloat() != o.ToFloat(); }
};

// Pipes of the vector core (names as the bisheng compiler's pipe_t).
enum pipe_t : int {
    PIPE_S = 1,
    PIPE_V = 2,
    PIPE_M = 3,
    PIPE_MTE1 = 4,
    PIPE_MTE2 = 5,
    PIPE_MTE3 = 6,
    PIPE_ALL = 7,
    PIPE_MTE4 = 8,
    PIPE_MTE5 = 9,
    PIPE_V2 = 10,
    PIPE_FIX = 11,
};

enum event_t : int {
    EVENT_ID0 = 0,
    EVENT_ID1,
    EVENT_ID2,
    EVENT_ID3,
    EVENT_ID4,
    EVENT_ID5,
    EVENT_ID6,
    EVENT_ID7,
};

namespace ascendopt_twin {

// Call-site location, captured with default arguments on every API entry point.
struct Loc {
    const char *file;
    int line;
    explicit constexpr Loc(const char *f = __builtin_FILE(), int l = __builtin_LINE()) : file(f), line(l) {}
};

// Pipes tracked by the sanitizer: the vector core's (S, V, MTE2, MTE3) and the cube core's (MTE1: L1 -> L0A/L0B,
// M: Mmad, FIX: L0C -> GM); MTE2 moves GM -> L1 on the cube core as GM -> UB on the vector core.
enum Pipe : uint8_t { P_S = 0, P_V = 1, P_MTE2 = 2, P_MTE3 = 3, P_MTE1 = 4, P_M = 5, P_FIX = 6, P_NUM = 7, P_ALL = 8, P_NONE = 9 };

// Raised to stop the current block after a fatal finding (the NPU would hang or fault).
struct BlockAbort {
    const char *kind;
};

template <typename T> struct DTypeName { static constexpr const char *value = "unknown"; };
template <> struct DTypeName<half> { static constexpr const char *value = "float16"; };
template <> struct DTypeName<float> { static constexpr const char *value = "float32"; };
template <> struct DTypeName<double> { static constexpr const char *value = "float64"; };
template <> struct DTypeName<bfloat16_t> { static constexpr const char *value = "bfloat16"; };
template <> struct DTypeName<int8_t> { static constexpr const char *value = "int8"; };
template <> struct DTypeName<uint8_t> { static constexpr const char *value = "uint8"; };
template <> struct DTypeName<int16_t> { static constexpr const char *value = "int16"; };
template <> struct DTypeName<uint16_t> { static constexpr const char *value = "uint16"; };
template <> struct DTypeName<int32_t> { static constexpr const char *value = "int32"; };
template <> struct DTypeName<uint32_t> { static constexpr const char *value = "uint32"; };
template <> struct DTypeName<int64_t> { static constexpr const char *value = "int64"; };
template <> struct DTypeName<uint64_t> { static constexpr const char *value = "uint64"; };
template <> struct DTypeName<bool> { static constexpr const char *value = "bool"; };

// Numeric helpers: every element type goes through float/double for arithmetic.
template <typename T> inline float ToF(T v) { return static_cast<float>(v); }
inline float ToF(bfloat16_t v) { return v.ToFloat(); }
template <typename T> inline T FromF(float v) { return static_cast<T>(v); }
template <> inline bfloat16_t FromF<bfloat16_t>(float v) { return bfloat16_t(v); }

}  // namespace ascendopt_twin
#endif
