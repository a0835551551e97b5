// AscendOptimizer CPU twin: registry of tiling-data classes visible to the kernel translation unit.
// REGISTER_TILING_DATA_CLASS (kernel mode) specialises AscendoptTwinTilingReg<__COUNTER__>; GET_TILING_DATA picks the
// class registered for -DASCENDOPT_OP_TYPE=<OpType> if given, else the last registered class.
#ifndef ASCENDOPT_TWIN_TILING_REG_H
#define ASCENDOPT_TWIN_TILING_REG_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace optiling {
template <int N> struct AscendoptTwinTilingReg {
    static constexpr bool registered = false;
    using type = void;
};
}  // namespace optiling
template <int N> struct AscendoptTwinTilingReg {
    static constexpr bool registered = false;
    using type = void;
};
using AscendoptTwinTilingDefaultType = void;

namespace ascendopt_twin {
namespace tiling {
template <template <int> class Reg, int N> struct LastReg {
    using Next = LastReg<Reg, N - 1>;
    static constexpr bool found = Reg<N>::registered || Next::found;
    using type = std::conditional_t<Reg<N>::registered, typename Reg<N>::type, typename Next::type>;
};
template <template <int> class Reg> struct LastReg<Reg, -1> {
    static constexpr bool found = false;
    using type = void;
};
template <typename Default, int N> struct Pick {
    using FromNs = LastReg<::optiling::AscendoptTwinTilingReg, N>;
    using FromGlobal = LastReg<::AscendoptTwinTilingReg, N>;
    using type = std::conditional_t<!std::is_void<Default>::value, Default,
                                    std::conditional_t<FromNs::found, typename FromNs::type, typename FromGlobal::type>>;
    static_assert(!std::is_void<type>::value,
                  "GET_TILING_DATA: no tiling data class is registered (REGISTER_TILING_DATA_CLASS / REGISTER_TILING_DEFAULT); "
                  "compile the kernel with -include <op_host/op_tiling.h>");
};
}  // namespace tiling
}  // namespace ascendopt_twin

#define ASCENDOPT_TWIN_CAT_(a, b) a##b
#define ASCENDOPT_TWIN_CAT(a, b) ASCENDOPT_TWIN_CAT_(a, b)

#endif
