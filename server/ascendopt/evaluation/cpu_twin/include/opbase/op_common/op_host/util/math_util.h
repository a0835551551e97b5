// AscendOptimizer CPU twin: ops-base host arithmetic helpers (Ops::Base), as CANN's open repos use them.
// Division by zero returns the dividend (FloorDiv, CeilDiv) or 0 (the Align forms), as ops-base does;
// CeilDiv of signed values rounds toward +inf only when both operands have the same sign.
#ifndef ASCENDOPT_TWIN_OPBASE_HOST_MATH_UTIL_H
#define ASCENDOPT_TWIN_OPBASE_HOST_MATH_UTIL_H

#include <cmath>
#include <limits>
#include <type_traits>

namespace Ops {
namespace Base {
template <typename T> auto FloorDiv(T x, T y) -> typename std::enable_if<std::is_integral<T>::value, T>::type
{
    return y == 0 ? x : x / y;
}
template <typename T> auto FloorAlign(T x, T align) -> typename std::enable_if<std::is_integral<T>::value, T>::type
{
    return align == 0 ? 0 : x / align * align;
}
template <typename T> auto CeilDiv(T x, T y) -> typename std::enable_if<std::is_signed<T>::value, T>::type
{
    if (x == 0 || y == 0) return x;
    const T q = x / y;
    return (x % y != 0 && ((x < 0) == (y < 0))) ? q + 1 : q;
}
template <typename T> auto CeilDiv(T x, T y) -> typename std::enable_if<std::is_unsigned<T>::value, T>::type
{
    if (y == 0) return x;
    return x / y + (x % y != 0 ? 1 : 0);
}
template <typename T> auto CeilAlign(T x, T align) -> typename std::enable_if<std::is_integral<T>::value, T>::type
{
    if (align == 0) return 0;
    const T d = CeilDiv(x, align);
    if (d > std::numeric_limits<T>::max() / align) return std::numeric_limits<T>::max();
    return d * align;
}
template <typename T> auto IsFloatEqual(T a, T b) -> typename std::enable_if<std::is_floating_point<T>::value, bool>::type
{
    return std::fabs(a - b) <= std::numeric_limits<T>::epsilon();
}
}  // namespace Base
}  // namespace Ops

#endif
