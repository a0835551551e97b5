// AscendOptimizer CPU twin: list tensors (ListTensorDesc, the GM form of an OpDef DYNAMIC input) are not modelled:
// the spec, the case files and the runner carry one buffer per tensor, not a list descriptor. Say so on the include
// line rather than "No such file or directory".
#error "the AscendOptimizer CPU twin does not model list tensors yet (ListTensorDesc / DYNAMIC inputs / GetDynamicInputShape)"
