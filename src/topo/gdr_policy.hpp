#pragma once
// NCCL's GPUDirect RDMA decision for a GPU and a NET (paths.cc ncclTopoCheckGdr), with its INFO lines as the
// modelled version prints them.
#include <cstdint>
#include <string>

#include "topo/model_context.hpp"

namespace linkscope::topo {

inline constexpr int kGdrDisabled = 0;
inline constexpr int kGdrDefault = 1;
inline constexpr int kGdrPci = 2;
const char* gdr_mode_name(int mode);  // "Disabled", "Default", "PCI"

struct GdrCheck {
  int mode = kGdrDisabled;
  int distance = -1;  // path type compared with the level (-1: not reached)
  int level = -1;
  std::string reason;
};

// NCCL_NET_GDR_LEVEL's default: PXB, or P2C since 2.29 when NCCL_NET_GDR_C2C is on.
int default_gdr_level(const NcclParams& params, const ModelledVersion& version);

// `rank` is looked up as NCCL does (first GPU with that rank), the NET by id (first NET with that id).
// `read` 1 = GDR read (sends), 0 = write (receives).
GdrCheck check_gdr(ModelContext& context, int rank, int64_t net_id, int read);

}  // namespace linkscope::topo
