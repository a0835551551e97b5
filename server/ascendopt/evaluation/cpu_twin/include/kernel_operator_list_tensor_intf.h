// AscendOptimizer CPU twin: the official header for list tensors (ListTensorDesc, TensorDesc); the
// implementation and the GM layout it parses are in ascendopt_twin/list_tensor.h.
#ifndef ASCENDOPT_TWIN_KERNEL_OPERATOR_LIST_TENSOR_INTF_H
#define ASCENDOPT_TWIN_KERNEL_OPERATOR_LIST_TENSOR_INTF_H
#include "kernel_operator.h"
#include "ascendopt_twin/list_tensor.h"
#endif
