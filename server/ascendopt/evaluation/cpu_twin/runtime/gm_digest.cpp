// AscendOptimizer CPU twin: the raw-store sweep's chunk digests (RawGmSweep, twin_core.cpp).
//
// The sweep used to compare every GM chunk with its copy at every hand-over: two streams of every GM byte
// per block. A digest of the chunk, read once, answers the same question (did any byte change since the
// last hand-over?) from one stream; only a chunk whose digest moved is compared byte by byte, so which
// bytes changed is known exactly, as before. The digest is keyed with random words drawn per run, so no
// store can be crafted to keep it: two NH sums (UMAC's hash) with independent keys over the chunk's
// 32-bit words, sum_i ((w_2i + k_2i) mod 2^32) * ((w_2i+1 + k_2i+1) mod 2^32) mod 2^64. For two
// different chunks of one length, one NH sum agrees with probability at most 2^-32 over its key (Black
// et al., "UMAC: fast and secure message authentication", 1999), so a change keeps both sums with
// probability at most 2^-64 whatever the kernel stores, unless it reads the keys out of the runtime's
// memory (which would equally let it rewrite the sweep's copy of the bytes).
#include <cstring>
#include <random>
#include <sys/random.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "twin_internal.h"

namespace ascendopt_twin {
namespace rt {
namespace {

constexpr size_t kWords = kGmChunk / 4;
// One stream read alone runs at half the memory's pace without a prefetch ahead (measured: 0.21 s for 40
// sweeps of 33 MB, 0.14 s with it; a prefetch past the buffer's end is harmless).
constexpr size_t kAhead = 2048;

#if defined(__x86_64__)
__attribute__((target("avx2"))) void DigestAvx2(const uint8_t *p, size_t n, const uint32_t *keys, uint64_t out[2])
{
    __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
    for (size_t i = 0; i < n; i += 32) {
        _mm_prefetch(reinterpret_cast<const char *>(p + i + kAhead), _MM_HINT_T0);
        __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + i));
        __m256i a = _mm256_add_epi32(w, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(keys + i / 4)));
        __m256i b = _mm256_add_epi32(w, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(keys + kWords + i / 4)));
        s0 = _mm256_add_epi64(s0, _mm256_mul_epu32(a, _mm256_srli_epi64(a, 32)));
        s1 = _mm256_add_epi64(s1, _mm256_mul_epu32(b, _mm256_srli_epi64(b, 32)));
    }
    alignas(32) uint64_t x[4], y[4];
    _mm256_store_si256(reinterpret_cast<__m256i *>(x), s0);
    _mm256_store_si256(reinterpret_cast<__m256i *>(y), s1);
    out[0] = x[0] + x[1] + x[2] + x[3];
    out[1] = y[0] + y[1] + y[2] + y[3];
}
#endif

void DigestPlain(const uint8_t *p, size_t n, const uint32_t *keys, uint64_t out[2])
{
    uint64_t s0 = 0, s1 = 0;
    for (size_t i = 0; i < n; i += 8) {
        if (i % 64 == 0) __builtin_prefetch(p + i + kAhead);
        uint32_t w[2];
        std::memcpy(w, p + i, 8);
        const uint32_t *k = keys + i / 4, *l = keys + kWords + i / 4;
        s0 += static_cast<uint64_t>(static_cast<uint32_t>(w[0] + k[0])) * static_cast<uint32_t>(w[1] + k[1]);
        s1 += static_cast<uint64_t>(static_cast<uint32_t>(w[0] + l[0])) * static_cast<uint32_t>(w[1] + l[1]);
    }
    out[0] = s0;
    out[1] = s1;
}

}  // namespace

GmDigester::GmDigester() : keys_(2 * kWords)
{
    // Fresh keys for every run: getrandom, else the library's random device.
    size_t want = keys_.size() * sizeof(uint32_t), got = 0;
    while (got < want) {
        ssize_t r = getrandom(reinterpret_cast<char *>(keys_.data()) + got, want - got, 0);
        if (r <= 0) break;
        got += static_cast<size_t>(r);
    }
    if (got < want) {
        std::random_device dev;
        for (uint32_t &k : keys_) k = dev();
    }
#if defined(__x86_64__)
    avx2_ = __builtin_cpu_supports("avx2");
#endif
}

GmDigest GmDigester::operator()(const uint8_t *p, size_t n) const
{
    // n: a whole chunk, or the allocation's last part (allocations are whole 512 B: whole 32 B words).
    GmDigest d;
#if defined(__x86_64__)
    if (avx2_) {
        DigestAvx2(p, n, keys_.data(), d.s);
        return d;
    }
#endif
    DigestPlain(p, n, keys_.data(), d.s);
    return d;
}

}  // namespace rt
}  // namespace ascendopt_twin
