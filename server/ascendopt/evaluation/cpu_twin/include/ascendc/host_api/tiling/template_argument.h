// AscendOptimizer CPU twin: tiling template programming (ASCENDC_TPL_*), written from the AscendC
// documentation ("Template Argument Declaration", GET_TPL_TILING_KEY, ASCENDC_TPL_SEL_PARAM).
//
// The declaration and the selection become constexpr tables in the translation unit that includes the
// operator's *_tiling_key.h, so that
//   * the host side encodes a TilingKey with GET_TPL_TILING_KEY(values in declaration order), and
//   * the twin's kernel entry shim instantiates the templated kernel entry for every combination the
//     selection allows (a cartesian product per ASCENDC_TPL_ARGS_SEL, computed by the compiler) and calls
//     the one whose key equals the key the tiling program set.
// Encoding (documented): each argument becomes a binary field of its declared width, fields concatenated in
// declaration order, the first declared in the lowest bits. DTYPE, FORMAT and BOOL fields hold the value
// itself; a UINT field holds the value's position in its declared value list (a range expanded in order,
// then a MIX form's listed values), so the value list order, not the magnitude, decides the code.
#ifndef ASCENDOPT_TWIN_TEMPLATE_ARGUMENT_H
#define ASCENDOPT_TWIN_TEMPLATE_ARGUMENT_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <initializer_list>

// field widths
#define ASCENDC_TPL_1_BW 1
#define ASCENDC_TPL_2_BW 2
#define ASCENDC_TPL_4_BW 4
#define ASCENDC_TPL_8_BW 8
// argument kinds
#define ASCENDC_TPL_DTYPE 0
#define ASCENDC_TPL_FORMAT 1
#define ASCENDC_TPL_UINT 2
#define ASCENDC_TPL_BOOL 3
#define ASCENDC_TPL_KERNEL_TYPE 4
#define ASCENDC_TPL_DETERMINISTIC 5
#define ASCENDC_TPL_SHARED_KERNEL_TYPE 6
#define ASCENDOPT_TWIN_TPL_TILING_STRUCT 7  // selection-only marker: which tiling struct a combination uses
// UINT value forms
#define ASCENDC_TPL_UI_RANGE 0
#define ASCENDC_TPL_UI_LIST 1
#define ASCENDC_TPL_UI_MIX 2
// kernel types (selection only; the twin runs every kernel as a vector kernel)
#define ASCENDC_TPL_AIV_ONLY 0
#define ASCENDC_TPL_AIC_ONLY 1
#define ASCENDC_TPL_MIX_AIV_1_0 2
#define ASCENDC_TPL_MIX_AIC_1_0 3
#define ASCENDC_TPL_MIX_AIC_1_1 4
#define ASCENDC_TPL_MIX_AIC_1_2 5
// data types of a DATATYPE argument: the ge::DataType numbering the host passes in
#define C_DT_FLOAT 0
#define C_DT_FLOAT16 1
#define C_DT_INT8 2
#define C_DT_INT32 3
#define C_DT_UINT8 4
#define C_DT_INT16 6
#define C_DT_UINT16 7
#define C_DT_UINT32 8
#define C_DT_INT64 9
#define C_DT_UINT64 10
#define C_DT_DOUBLE 11
#define C_DT_BOOL 12
#define C_DT_BF16 27
// binding of a DATATYPE argument to a kernel input/output: documentation only, not part of the values
#define ASCENDC_TPL_INPUT(n) (::ascendopt_twin::tpl::kIoMarker | static_cast<uint64_t>(n))
#define ASCENDC_TPL_OUTPUT(n) (::ascendopt_twin::tpl::kIoMarker | 0x100u | static_cast<uint64_t>(n))

namespace ascendopt_twin {
namespace tpl {

constexpr uint64_t kIoMarker = 1ull << 63;
constexpr uint64_t kInvalidKey = ~0ull;
constexpr size_t kMaxRaw = 64;     // values as written in one DECL/SEL (ranges unexpanded)
constexpr size_t kMaxParams = 16;  // arguments in one ASCENDC_TPL_ARGS_SEL

struct Param {
    const char *name = "";
    uint32_t type = 0;
    uint32_t bitWidth = 0;
    uint64_t raw[kMaxRaw] = {};
    uint32_t nraw = 0;
};

constexpr Param MakeParam(const char *name, uint32_t type, uint32_t bitWidth, std::initializer_list<uint64_t> vals)
{
    Param p{};
    p.name = name;
    p.type = type;
    p.bitWidth = bitWidth;
    for (uint64_t v : vals) {
        if ((v & kIoMarker) != 0) continue;
        if (p.nraw < kMaxRaw) p.raw[p.nraw] = v;
        ++p.nraw;  // more than kMaxRaw: rejected by Valid()
    }
    return p;
}
constexpr Param MakeMarker(uint32_t type) { return MakeParam("", type, 0, {}); }

struct ArgsSel {
    Param params[kMaxParams] = {};
    uint32_t n = 0;
};
constexpr ArgsSel MakeSel(std::initializer_list<Param> params)
{
    ArgsSel s{};
    for (const Param &p : params) {
        // kernel type, determinism and the tiling struct do not take part in the key
        if (p.type == ASCENDC_TPL_KERNEL_TYPE || p.type == ASCENDC_TPL_DETERMINISTIC ||
            p.type == ASCENDOPT_TWIN_TPL_TILING_STRUCT)
            continue;
        if (s.n < kMaxParams) s.params[s.n] = p;
        ++s.n;
    }
    return s;
}

constexpr bool SameName(const char *a, const char *b)
{
    while (*a != '\0' && *a == *b) { ++a; ++b; }
    return *a == *b;
}

// The declared (or selected) values in order: UINT ranges expanded, then a MIX form's list.
constexpr size_t ValueCount(const Param &p)
{
    if (p.type != ASCENDC_TPL_UINT) return p.nraw;
    if (p.nraw == 0) return 0;
    const uint64_t form = p.raw[0];
    if (form == ASCENDC_TPL_UI_LIST) return p.nraw - 1;
    if (p.nraw < 2) return 0;
    const uint64_t ranges = p.raw[1];
    size_t n = 0;
    for (uint64_t r = 0; r < ranges && 3 + 2 * r < p.nraw; ++r) n += p.raw[3 + 2 * r] - p.raw[2 + 2 * r] + 1;
    if (form == ASCENDC_TPL_UI_MIX && p.nraw > 2 + 2 * ranges) n += p.nraw - 2 - 2 * ranges;
    return n;
}
constexpr uint64_t ValueAt(const Param &p, size_t i)
{
    if (p.type != ASCENDC_TPL_UINT) return p.raw[i];
    const uint64_t form = p.raw[0];
    if (form == ASCENDC_TPL_UI_LIST) return p.raw[1 + i];
    const uint64_t ranges = p.raw[1];
    for (uint64_t r = 0; r < ranges; ++r) {
        const uint64_t lo = p.raw[2 + 2 * r], hi = p.raw[3 + 2 * r];
        if (i <= hi - lo) return lo + i;
        i -= hi - lo + 1;
    }
    return p.raw[2 + 2 * ranges + i];
}
constexpr int64_t IndexOf(const Param &p, uint64_t v)
{
    for (size_t i = 0; i < ValueCount(p); ++i)
        if (ValueAt(p, i) == v) return static_cast<int64_t>(i);
    return -1;
}

// The field one argument contributes to the key (kInvalidKey: the value is not declared).
constexpr uint64_t Field(const Param &decl, uint64_t v)
{
    if (decl.type == ASCENDC_TPL_UINT) {
        const int64_t i = IndexOf(decl, v);
        return i < 0 ? kInvalidKey : static_cast<uint64_t>(i);
    }
    return IndexOf(decl, v) < 0 ? kInvalidKey : v;
}

constexpr uint64_t EncodeValues(const Param *decl, size_t nd, const uint64_t *vals)
{
    uint64_t key = 0;
    uint32_t shift = 0;
    for (size_t i = 0; i < nd; ++i) {
        const uint64_t f = Field(decl[i], vals[i]);
        if (f == kInvalidKey || shift + decl[i].bitWidth > 64 || (decl[i].bitWidth < 64 && (f >> decl[i].bitWidth) != 0))
            return kInvalidKey;
        key |= f << shift;
        shift += decl[i].bitWidth;
    }
    return key;
}

// The selection's argument for declaration argument `name`, or nullptr.
constexpr const Param *Selected(const ArgsSel &s, const char *name)
{
    for (uint32_t j = 0; j < s.n && j < kMaxParams; ++j)
        if (SameName(s.params[j].name, name)) return &s.params[j];
    return nullptr;
}

// Combinations one ASCENDC_TPL_ARGS_SEL allows (0 if it leaves a declared argument out).
constexpr size_t SelCombos(const Param *decl, size_t nd, const ArgsSel &s)
{
    size_t n = 1;
    for (size_t i = 0; i < nd; ++i) {
        const Param *p = Selected(s, decl[i].name);
        if (p == nullptr) return 0;
        n *= ValueCount(*p);
    }
    return n;
}
constexpr size_t CountCombos(const Param *decl, size_t nd, const ArgsSel *sels, size_t ns)
{
    size_t n = 0;
    for (size_t s = 0; s < ns; ++s) n += SelCombos(decl, nd, sels[s]);
    return n;
}

template <size_t M, size_t N> struct ComboTable {
    uint64_t values[M == 0 ? 1 : M][N == 0 ? 1 : N] = {};
    uint64_t keys[M == 0 ? 1 : M] = {};
};

// Every allowed combination (declaration order) with its key: the cartesian product of each selection.
template <size_t M, size_t N>
constexpr ComboTable<M, N> BuildCombos(const Param *decl, const ArgsSel *sels, size_t ns)
{
    ComboTable<M, N> t{};
    size_t row = 0;
    for (size_t s = 0; s < ns; ++s) {
        const size_t count = SelCombos(decl, N, sels[s]);
        for (size_t c = 0; c < count; ++c) {
            size_t rest = c;
            for (size_t i = 0; i < N; ++i) {
                const Param &p = *Selected(sels[s], decl[i].name);
                const size_t k = ValueCount(p);
                t.values[row][i] = ValueAt(p, rest % k);
                rest /= k;
            }
            t.keys[row] = EncodeValues(decl, N, t.values[row]);
            ++row;
        }
    }
    return t;
}

// Host side: GET_TPL_TILING_KEY. Values outside every selection give kInvalidKey and a message, as CANN's
// encoder does.
template <typename... A>
uint64_t EncodeTilingKey(const Param *decl, size_t nd, const ArgsSel *sels, size_t ns, A... args)
{
    const uint64_t vals[sizeof...(A) + 1] = {static_cast<uint64_t>(args)..., 0};
    if (sizeof...(A) != nd) {
        std::fprintf(stderr, "[ERROR] GET_TPL_TILING_KEY has %zu arguments, ASCENDC_TPL_ARGS_DECL declares %zu\n",
                     sizeof...(A), nd);
        return kInvalidKey;
    }
    for (size_t s = 0; s < ns; ++s) {
        bool ok = SelCombos(decl, nd, sels[s]) > 0;
        for (size_t i = 0; ok && i < nd; ++i) ok = IndexOf(*Selected(sels[s], decl[i].name), vals[i]) >= 0;
        if (ok) return EncodeValues(decl, nd, vals);
    }
    std::fprintf(stderr, "[ERROR] GET_TPL_TILING_KEY args [");
    for (size_t i = 0; i < nd; ++i) std::fprintf(stderr, "%s%s=%llu", i ? ", " : "", decl[i].name, (unsigned long long)vals[i]);
    std::fprintf(stderr, "] cannot be found in ASCENDC_TPL_ARGS_SEL\n");
    return kInvalidKey;
}

}  // namespace tpl
}  // namespace ascendopt_twin

// ---- declaration
#define ASCENDC_TPL_DTYPE_DECL(x, ...) ::ascendopt_twin::tpl::MakeParam(#x, ASCENDC_TPL_DTYPE, ASCENDC_TPL_8_BW, {__VA_ARGS__})
#define ASCENDC_TPL_DATATYPE_DECL(x, ...) ::ascendopt_twin::tpl::MakeParam(#x, ASCENDC_TPL_DTYPE, ASCENDC_TPL_8_BW, {__VA_ARGS__})
#define ASCENDC_TPL_FORMAT_DECL(x, ...) ::ascendopt_twin::tpl::MakeParam(#x, ASCENDC_TPL_FORMAT, ASCENDC_TPL_8_BW, {__VA_ARGS__})
#define ASCENDC_TPL_UINT_DECL(x, bw, ...) ::ascendopt_twin::tpl::MakeParam(#x, ASCENDC_TPL_UINT, bw, {__VA_ARGS__})
#define ASCENDC_TPL_BOOL_DECL(x, ...) ::ascendopt_twin::tpl::MakeParam(#x, ASCENDC_TPL_BOOL, ASCENDC_TPL_1_BW, {__VA_ARGS__})
// ---- selection
#define ASCENDC_TPL_DTYPE_SEL(x, ...) ::ascendopt_twin::tpl::MakeParam(#x, ASCENDC_TPL_DTYPE, ASCENDC_TPL_8_BW, {__VA_ARGS__})
#define ASCENDC_TPL_DATATYPE_SEL(x, ...) ::ascendopt_twin::tpl::MakeParam(#x, ASCENDC_TPL_DTYPE, ASCENDC_TPL_8_BW, {__VA_ARGS__})
#define ASCENDC_TPL_FORMAT_SEL(x, ...) ::ascendopt_twin::tpl::MakeParam(#x, ASCENDC_TPL_FORMAT, ASCENDC_TPL_8_BW, {__VA_ARGS__})
#define ASCENDC_TPL_UINT_SEL(x, ...) ::ascendopt_twin::tpl::MakeParam(#x, ASCENDC_TPL_UINT, 0, {__VA_ARGS__})
#define ASCENDC_TPL_BOOL_SEL(x, ...) ::ascendopt_twin::tpl::MakeParam(#x, ASCENDC_TPL_BOOL, ASCENDC_TPL_1_BW, {__VA_ARGS__})
#define ASCENDC_TPL_KERNEL_TYPE_SEL(...) ::ascendopt_twin::tpl::MakeMarker(ASCENDC_TPL_KERNEL_TYPE)
#define ASCENDC_TPL_DETERMINISTIC_SEL(...) ::ascendopt_twin::tpl::MakeMarker(ASCENDC_TPL_DETERMINISTIC)
#define ASCENDC_TPL_TILING_STRUCT_SEL(...) ::ascendopt_twin::tpl::MakeMarker(ASCENDOPT_TWIN_TPL_TILING_STRUCT)
// One table per translation unit (as CANN's g_tilingDeclareParams / g_tilingSelectParams); constexpr, so
// internal linkage: host and kernel objects each hold their own copy.
#define ASCENDC_TPL_ARGS_DECL(x, ...) \
    constexpr ::ascendopt_twin::tpl::Param g_ascendoptTplDecl[] = {__VA_ARGS__}
#define ASCENDC_TPL_ARGS_SEL(...) ::ascendopt_twin::tpl::MakeSel({__VA_ARGS__})
#define ASCENDC_TPL_ARGS_DSEL(...) ASCENDC_TPL_ARGS_SEL(__VA_ARGS__)
#define ASCENDC_TPL_SEL(...) constexpr ::ascendopt_twin::tpl::ArgsSel g_ascendoptTplSel[] = {__VA_ARGS__}

#define ASCENDOPT_TWIN_TPL_COUNT(arr) (sizeof(arr) / sizeof((arr)[0]))
#define GET_TPL_TILING_KEY(...)                                                                                  \
    ::ascendopt_twin::tpl::EncodeTilingKey(g_ascendoptTplDecl, ASCENDOPT_TWIN_TPL_COUNT(g_ascendoptTplDecl),     \
                                           g_ascendoptTplSel, ASCENDOPT_TWIN_TPL_COUNT(g_ascendoptTplSel), __VA_ARGS__)
#define ASCENDC_TPL_SEL_PARAM(context, ...)                        \
    do {                                                           \
        const uint64_t ascendoptTplKey = GET_TPL_TILING_KEY(__VA_ARGS__); \
        (context)->SetTilingKey(ascendoptTplKey);                  \
    } while (0)

#endif
