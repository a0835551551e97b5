// Checks the runner's float <-> half conversions (runtime/fp16_convert.cpp, linked in) against libgcc's
// (found past the executable, as the runtime's fallback finds them): every half, and every float whose
// 13 bits a half drops sit at a rounding edge (0, 1, a tie - 1, a tie, a tie + 1, all ones), all 2^19
// sign/exponent/top-mantissa patterns: ties, subnormals, overflow, infinities and NaN payloads.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>

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
    std::printf("checked %ld differ %ld\n", checked, bad);
    return bad != 0;
}
