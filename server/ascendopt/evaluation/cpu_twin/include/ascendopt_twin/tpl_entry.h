// AscendOptimizer CPU twin: calling a kernel entry templated over its tiling key (ASCENDC_TPL_* programming).
// Included by the generated entry shim after the kernel: the shim instantiates the entry once per combination
// ASCENDC_TPL_SEL allows (ComboTable from ascendc/host_api/tiling/template_argument.h) and Dispatch runs the
// instantiation whose key is the one the tiling program set, as CANN's build selects a kernel binary by key.
#ifndef ASCENDOPT_TWIN_TPL_ENTRY_H
#define ASCENDOPT_TWIN_TPL_ENTRY_H

#include <array>
#include <cstdio>
#include <string>
#include <utility>

#include "ascendc/host_api/tiling/template_argument.h"
#include "ascendopt_twin/rt.h"

// The generated shim names this namespace after the kernel, when `ascendopt_twin` is sealed off (seal.h).
#define ASCENDOPT_TWIN_TPL ::ascendopt_twin::tpl

namespace ascendopt_twin {
namespace tpl {

// The C++ type a DATATYPE argument's value (C_DT_*, the ge::DataType numbering) stands for.
template <uint64_t V> struct CType {
    static_assert(V != V, "DATATYPE template argument: this C_DT_* value has no type in the CPU twin");
};
template <> struct CType<C_DT_FLOAT> { using type = float; };
template <> struct CType<C_DT_FLOAT16> { using type = half; };
template <> struct CType<C_DT_BF16> { using type = bfloat16_t; };
template <> struct CType<C_DT_INT8> { using type = int8_t; };
template <> struct CType<C_DT_UINT8> { using type = uint8_t; };
template <> struct CType<C_DT_INT16> { using type = int16_t; };
template <> struct CType<C_DT_UINT16> { using type = uint16_t; };
template <> struct CType<C_DT_INT32> { using type = int32_t; };
template <> struct CType<C_DT_UINT32> { using type = uint32_t; };
template <> struct CType<C_DT_INT64> { using type = int64_t; };
template <> struct CType<C_DT_UINT64> { using type = uint64_t; };
template <> struct CType<C_DT_BOOL> { using type = bool; };
template <> struct CType<C_DT_DOUBLE> { using type = double; };

using EntryFn = void (*)(uint8_t **);

// "schMode=0 (key 0); schMode=1 (key 1)": the combinations a key may name, for the error message.
template <size_t M, size_t N>
std::string Describe(const Param *decl, const ComboTable<M, N> &t, size_t limit = 24)
{
    std::string s;
    for (size_t r = 0; r < M && r < limit; ++r) {
        if (r) s += "; ";
        for (size_t i = 0; i < N; ++i) {
            s += (i ? ", " : "") + std::string(decl[i].name) + "=" + std::to_string(t.values[r][i]);
        }
        s += " (key " + std::to_string(t.keys[r]) + ")";
    }
    if (M > limit) s += "; … " + std::to_string(M - limit) + " more";
    if (M == 0) s = "none";
    return s;
}

template <size_t M, size_t N>
void Dispatch(const Param *decl, const ComboTable<M, N> &t, const EntryFn *fns, uint8_t **args, const char *file,
              int line)
{
    const uint64_t key = rt::g_blk->tilingKey;
    for (size_t r = 0; r < M; ++r)
        if (t.keys[r] == key) {
            fns[r](args);
            return;
        }
    const std::string allowed = Describe(decl, t);
    rt::Fatal("tiling_key_not_instantiated", file, line,
              "the tiling program set tiling key %llu, but the kernel entry has no instantiation for it: "
              "ASCENDC_TPL_SEL allows %s",
              static_cast<unsigned long long>(key), allowed.c_str());
}

}  // namespace tpl
}  // namespace ascendopt_twin

#endif
