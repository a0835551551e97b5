// AscendOptimizer CPU twin: float <-> half conversions and half equality in hardware.
//
// `half` is x86's _Float16 (base.h); without -mf16c g++ converts it with libgcc's soft-float calls
// (__extendhfsf2, __truncsfhf2), which took over half the CPU of an fp16 softmax run, and compares it
// with __eqhf2/__nehf2 (Cast's NaN test `x != x` on a half widened to double becomes one: 6-16 % of an
// fp16 layer_norm run). The twin keeps its flags (a build for any x86-64), so the runner defines these
// calls itself: F16C's instructions when the CPU has them, libgcc's own functions otherwise. Same
// results: vcvtps2ph with _MM_FROUND_CUR_DIRECTION rounds in MXCSR's mode as libgcc does, and every
// float (2^32) and half (2^16) converts to the same bits both ways; a half widens to float exactly, so
// two halves compare as their floats do, and the result is libgcc's: 0 when equal, 1 when not or
// unordered (tests/evaluation/cpu_twin_cpp/fp16_check.cpp).
// Each call is an ifunc: the choice is made once, when the program is loaded, and a call costs no test.
// The executable's definitions win over libgcc_s's for its own calls; a candidate defining them too
// fails to link.
#if defined(__x86_64__)
#include <cpuid.h>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <immintrin.h>

namespace {

using Trunc = _Float16 (*)(float);
using Extend = float (*)(_Float16);
// libgcc's comparison type is the word (callers test all of %rax), not int.
using Equal = long (*)(_Float16, _Float16);

bool HasF16c()
{
    unsigned a, b, c, d;
    __builtin_cpu_init();  // a resolver runs before the constructors that would set up cpu_supports
    // F16C's instructions are VEX-encoded: they need the OS to save AVX state too.
    return __builtin_cpu_supports("avx") && __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
}

// libgcc's own function, looked up on its first call (not in the resolver: the loader is still
// relocating then).
template <typename F> F Libgcc(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (f == nullptr) std::abort();  // no F16C and no libgcc_s to fall back on
    return reinterpret_cast<F>(f);
}

_Float16 TruncLibgcc(float f)
{
    static const Trunc trunc = Libgcc<Trunc>("__truncsfhf2");
    return trunc(f);
}

float ExtendLibgcc(_Float16 h)
{
    static const Extend extend = Libgcc<Extend>("__extendhfsf2");
    return extend(h);
}

long EqualLibgcc(_Float16 a, _Float16 b)
{
    static const Equal equal = Libgcc<Equal>("__eqhf2");  // __nehf2 is the same function in libgcc
    return equal(a, b);
}

__attribute__((target("f16c"))) _Float16 TruncF16c(float f)
{
    uint16_t bits = _cvtss_sh(f, _MM_FROUND_CUR_DIRECTION);
    _Float16 h;
    std::memcpy(&h, &bits, sizeof h);
    return h;
}

__attribute__((target("f16c"))) float ExtendF16c(_Float16 h)
{
    uint16_t bits;
    std::memcpy(&bits, &h, sizeof bits);
    return _cvtsh_ss(bits);
}

__attribute__((target("f16c"))) long EqualF16c(_Float16 a, _Float16 b)
{
    uint16_t x, y;
    std::memcpy(&x, &a, sizeof x);
    std::memcpy(&y, &b, sizeof y);
    __m128 both = _mm_cvtph_ps(_mm_cvtsi32_si128(static_cast<int>(x | static_cast<uint32_t>(y) << 16)));
    return _mm_cvtss_f32(both) == _mm_cvtss_f32(_mm_shuffle_ps(both, both, 1)) ? 0 : 1;
}

}  // namespace

// The resolvers (C names: `ifunc` takes an assembler name).
extern "C" {
static Trunc ascendopt_resolve_trunc() { return HasF16c() ? TruncF16c : TruncLibgcc; }
static Extend ascendopt_resolve_extend() { return HasF16c() ? ExtendF16c : ExtendLibgcc; }
static Equal ascendopt_resolve_equal() { return HasF16c() ? EqualF16c : EqualLibgcc; }
}

extern "C" _Float16 __truncsfhf2(float f) __attribute__((ifunc("ascendopt_resolve_trunc")));
extern "C" float __extendhfsf2(_Float16 h) __attribute__((ifunc("ascendopt_resolve_extend")));
// One function under both names, as in libgcc.
extern "C" long __eqhf2(_Float16 a, _Float16 b) __attribute__((ifunc("ascendopt_resolve_equal")));
extern "C" long __nehf2(_Float16 a, _Float16 b) __attribute__((ifunc("ascendopt_resolve_equal")));
#endif
