// Checks the runner's float <-> half conversions (runtime/fp16_convert.cpp, linked in) against libgcc's
// (found past the executable, as the runtime's fallback finds them): every half, and every float whose
// 13 bits a half drops sit at a rounding edge (0, 1, a tie - 1, a tie, a tie + 1, all ones), all 2^19
// sign/exponent/top-mantissa patterns: ties, subnormals, overflow, infinities and NaN payloads. And its
// half equality (__eqhf2/__nehf2) against libgcc's: every half against itself, its bit neighbours and
// the halves at the edges (signed zeros, subnormals, the largest finite, infinities, quiet and signalling
// NaNs with payloads), the call's value and `==`/`!=` as compiled code uses them.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>

extern "C" long __eqhf2(_Float16, _Float16);  // the runner's (linked in)

int main()
{
    auto trunc = reinterpret_cast<_Float16 (*)(float)>(dlsym(RTLD_NEXT, "__truncsfhf2"));
    auto extend = reinterpret_cast<float (*)(_Float16)>(dlsym(RTLD_NEXT, "__extendhfsf2"));
    if (!trunc || !extend) { std::puts("no libgcc conversions"); return 2; }
    long checked = 0, bad = 0;
    for (uint32_t b = 0; b < 65536; ++b, ++checked) {
        uint16_t hb = static_cast<uint16_t>(b);
        _Float16 h;
        std::memcpy(&h, &hb, 2);
        volatile _Float16 vh = h;
        float mine = vh, ref = extend(h);  // `vh` converts through the runner's __extendhfsf2
        if (std::memcmp(&mine, &ref, 4) != 0 && bad++ < 5) std::printf("extend %04x differs\n", b);
    }
    const uint32_t low[] = {0, 1, 0xFFF, 0x1000, 0x1001, 0x1FFF};
    for (uint32_t top = 0; top < (1u << 19); ++top)
        for (uint32_t l : low) {
            uint32_t fb = top << 13 | l;
            float f;
            std::memcpy(&f, &fb, 4);
            volatile float vf = f;
            _Float16 mine = static_cast<_Float16>(vf), ref = trunc(f);
            ++checked;
            if (std::memcmp(&mine, &ref, 2) != 0 && bad++ < 5) std::printf("trunc %08x differs\n", fb);
        }
    auto equal = reinterpret_cast<long (*)(_Float16, _Float16)>(dlsym(RTLD_NEXT, "__eqhf2"));
    if (!equal) { std::puts("no libgcc comparison"); return 2; }
    const uint16_t edge[] = {0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x83FF, 0x0400, 0x8400, 0x3C00, 0xBC00,
                             0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7C01, 0xFC01, 0x7DFF, 0x7E00, 0xFE00, 0x7FFF, 0xFFFF};
    long compared = 0;
    for (uint32_t a = 0; a < 65536; ++a) {
        uint16_t others[3 + sizeof edge / sizeof edge[0]] = {static_cast<uint16_t>(a), static_cast<uint16_t>(a + 1),
                                                             static_cast<uint16_t>(a - 1)};
        std::memcpy(others + 3, edge, sizeof edge);
        for (uint16_t b : others) {
            _Float16 x, y;
            uint16_t ab = static_cast<uint16_t>(a);
            std::memcpy(&x, &ab, 2);
            std::memcpy(&y, &b, 2);
            volatile _Float16 vx = x, vy = y;
            long ref = equal(x, y), mine = __eqhf2(x, y);
            bool eq = vx == vy, ne = vx != vy;  // through the runner's __eqhf2 / __nehf2
            ++compared;
            if ((mine != ref || eq != (ref == 0) || ne != (ref != 0)) && bad++ < 5)
                std::printf("compare %04x %04x differs: %ld vs libgcc %ld\n", a, b, mine, ref);
        }
    }
    std::printf("compared %ld\n", compared);
    std::printf("checked %ld differ %ld\n", checked, bad);
    return bad != 0;
}
