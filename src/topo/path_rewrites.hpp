#pragma once
// NCCL's rewrites after the BFS (paths.cc ncclTopoComputePaths, phases 3-5), applied in place and in
// NCCL's loop order so later iterations see earlier changes.
#include "topo/model_context.hpp"

namespace linkscope::topo {

// Phase 3: GPU pairs without P2P are routed through the CPU local to the destination GPU.
void divert_non_p2p_pairs(ModelContext& context);
// Phase 4: a GPU reaching its CPU over C2C and a NET behind that CPU's PCIe becomes P2C (both directions).
void relabel_c2c_paths(ModelContext& context);
// Phase 5: per NET, per GPU: PXN through the NET's local GPU, then the GDR check (diverting through the CPU
// when GDR is off). Prints NCCL's GDR INFO lines.
void apply_pxn_and_gdr(ModelContext& context);

}  // namespace linkscope::topo
