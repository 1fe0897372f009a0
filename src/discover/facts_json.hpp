#pragma once
#include <nlohmann/json.hpp>

#include "discover/system_facts.hpp"

namespace linkscope::discover {

// The Run document's `system` section (docs/run-schema.md, "### system"). Unknown facts are null with a
// "<field>_reason" beside them.
nlohmann::json system_facts_to_json(const SystemFacts& facts);

}  // namespace linkscope::discover
