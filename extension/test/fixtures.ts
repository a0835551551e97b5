import type { SuggestionParams } from '../src/protocol';

export const KERNEL_OLD = 'constexpr int BUFFER_NUM = 1;\nint main() {}\n';
export const KERNEL_NEW = 'constexpr int BUFFER_NUM = 2;\nint main() {}\n';
export const HOST_OLD = 'uint32_t tile = 64;\n';
export const HOST_NEW = 'uint32_t tile = 256;\n';

export function suggestion(id = 's1'): SuggestionParams {
  return {
    id,
    operator: 'add_custom',
    operatorRoot: '/ws/add_custom',
    title: 'add_custom: 1.42× faster (geomean of 2 cases)',
    speedups: [
      { case: 'small', baseline_us: 10, candidate_us: 7, speedup: 1.43, noise: 0, kind: 'estimate' },
      { case: 'large', baseline_us: 100, candidate_us: 71, speedup: 1.41, noise: 0, kind: 'estimate' },
    ],
    geomean: 1.4199,
    summary: 'double buffering; larger tiles',
    files: [
      { path: 'op_host/add_custom.cpp', uri: 'file:///ws/add_custom/op_host/add_custom.cpp', current: HOST_OLD, proposed: HOST_NEW },
      { path: 'op_kernel/add_custom.cpp', uri: 'file:///ws/add_custom/op_kernel/add_custom.cpp', current: KERNEL_OLD, proposed: KERNEL_NEW },
    ],
  };
}
