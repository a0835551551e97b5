// AscendOptimizer CPU twin, host side (see ascendopt_twin/host.h): what every host header brings in (as CANN's host headers do).
#ifndef ASCENDOPT_TWIN_HOST_COMMON_H
#define ASCENDOPT_TWIN_HOST_COMMON_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <iostream>  // CANN's register headers bring it: host code writes std::cout unincluded
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "securec.h"  // CANN's host headers bring securec in with them; host code calls memset_s unannounced

#include "register/tilingdata_base.h"

#endif
