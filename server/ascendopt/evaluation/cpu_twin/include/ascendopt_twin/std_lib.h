// AscendOptimizer CPU twin: AscendC::Std, the C++-standard-library subset of the AscendC Utils API (on the twin the
// host's <type_traits>, <tuple> and <algorithm> do the work).
#ifndef ASCENDOPT_TWIN_STD_LIB_H
#define ASCENDOPT_TWIN_STD_LIB_H

#include <tuple>
#include <type_traits>

namespace AscendC {
namespace Std {
template <typename T> constexpr const T &max(const T &a, const T &b) { return a < b ? b : a; }
template <typename T> constexpr const T &min(const T &a, const T &b) { return b < a ? b : a; }
using std::bool_constant;
using std::conditional;
using std::conditional_t;
using std::enable_if;
using std::enable_if_t;
using std::false_type;
using std::get;
using std::integral_constant;
using std::is_base_of;
using std::is_base_of_v;
using std::is_same;
using std::is_same_v;
using std::make_tuple;
using std::true_type;
using std::tuple;
template <typename T> using remove_cvref_t = std::remove_cv_t<std::remove_reference_t<T>>;  // C++20 in std
template <typename...> inline constexpr bool always_false_v = false;
}  // namespace Std
}  // namespace AscendC
#endif
