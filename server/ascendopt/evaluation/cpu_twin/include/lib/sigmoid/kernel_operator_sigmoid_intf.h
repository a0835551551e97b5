// AscendOptimizer CPU twin: "lib/sigmoid/kernel_operator_sigmoid_intf.h", the advanced API's header as CANN ships
// it; Sigmoid itself is in ascendopt_twin/adv_activation.h (through kernel_operator.h).
#ifndef ASCENDOPT_TWIN_LIB_SIGMOID_INTF_H
#define ASCENDOPT_TWIN_LIB_SIGMOID_INTF_H
#include "kernel_operator.h"
#endif
