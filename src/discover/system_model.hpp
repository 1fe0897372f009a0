#pragma once
#include "discover/system_facts.hpp"
#include "model/system.hpp"

namespace linkscope::discover {

// The Run's `system` section from the joined discovery records (NVML, CUDA, sysfs): what a live run puts into
// the typed model (docs/run-schema.md, "### system").
model::System system_model(const SystemFacts& facts);

}  // namespace linkscope::discover
