#include "model/xid_codes.hpp"

#include <array>
#include <string>

#include <fmt/format.h>

namespace linkscope::model {

namespace {

constexpr std::string_view kProgram = "usually the program that ran (a bug or a bad address), rarely the GPU";
constexpr std::string_view kMemory = "the GPU's memory (HBM)";
constexpr std::string_view kFirmware = "the driver or the GPU's firmware";
constexpr std::string_view kResetGpu = "drain the GPU, reset it (nvidia-smi -r) or reboot, and rerun; replace it if it recurs";

constexpr std::array<XidCode, 19> kCodes = {{
    {13, "graphics engine exception: a kernel hit an illegal instruction, a trap or an out-of-range access", kProgram,
     "rerun; if it recurs with a known-good program, run the GPU's diagnostics (dcgmi diag -r 3)", Severity::kWarning},
    {31, "GPU memory page fault: a kernel or copy touched an address it does not own (MMU fault)", kProgram,
     "rerun; if it recurs with a known-good program, run the GPU's diagnostics (dcgmi diag -r 3)", Severity::kWarning},
    {43, "GPU stopped processing: a channel was stopped after a fault of the program that owned it", kProgram,
     "look for an Xid 13 or 31 before it; the GPU itself keeps working", Severity::kWarning},
    {48, "double-bit ECC error: uncorrectable data in GPU memory", kMemory, kResetGpu, Severity::kError},
    {61, "internal micro-controller breakpoint or warning (PMU)", kFirmware,
     "collect nvidia-bug-report.sh; reset the GPU if it stops answering", Severity::kError},
    {62, "internal micro-controller halt (PMU): the GPU's management controller stopped", kFirmware, kResetGpu,
     Severity::kError},
    {63, "ECC page retirement or row remapping recorded: a faulty memory row was marked for replacement", kMemory,
     "reset the GPU (or reboot) to activate the remapping; watch the remapped-row counts", Severity::kWarning},
    {64, "ECC page retirement or row remapping failed: a faulty memory row could not be recorded", kMemory,
     "the GPU needs service: drain it and contact the vendor", Severity::kError},
    {74, "NVLink error: a link reported a fatal error or had to be retrained", "an NVLink (cable, connector, NVSwitch "
     "port) or the GPU", "check nvidia-smi nvlink -e for the link's counters; reset the GPU; service the link if it recurs",
     Severity::kError},
    {79, "GPU has fallen off the bus: it stopped answering on PCIe", "the GPU, its PCIe slot, riser or power",
     "reboot; check the slot, power and thermals; replace the GPU if it recurs", Severity::kError},
    {92, "high single-bit ECC error rate: memory errors are being corrected at a high rate", kMemory,
     "watch the ECC counters and row remapping; plan service if the rate stays high", Severity::kWarning},
    {93, "non-fatal violation of the InfoROM's provisioned wear limit", "the GPU's InfoROM",
     "contact the vendor; the GPU keeps working", Severity::kWarning},
    {94, "contained ECC error: an uncorrectable memory error was contained to the program that used the memory",
     kMemory, "restart the affected program; reset the GPU at the next chance to remap the row", Severity::kError},
    {95, "uncontained ECC error: an uncorrectable memory error may have reached every program on the GPU", kMemory,
     kResetGpu, Severity::kError},
    {119, "GSP RPC timeout: the GPU System Processor did not answer the driver in time", kFirmware, kResetGpu,
     Severity::kError},
    {120, "GSP error: the GPU System Processor's firmware reported an error", kFirmware, kResetGpu, Severity::kError},
    {45, "preemptive cleanup of a channel: the program that owned it exited or was killed", kProgram,
     "usually follows another Xid or a killed program; nothing to do on its own", Severity::kInfo},
    {154, "GPU recovery action changed: the driver asks for a reset, a reboot or a drain", kFirmware,
     "do what the recovery action in the kernel log says (nvidia-smi -q shows it)", Severity::kError},
    {999, "an Xid error NVML could not name (NVML reports 999 for an unknown Xid)", kFirmware,
     "read the kernel log (dmesg | grep -i xid) for the driver's own line", Severity::kError},
}};

}  // namespace

std::optional<XidCode> xid_code(int code) {
  for (const auto& entry : kCodes) {
    if (entry.code == code) return entry;
  }
  return std::nullopt;
}

std::string xid_meaning(int code) {
  if (const auto entry = xid_code(code)) return std::string(entry->meaning);
  return fmt::format("Xid {} (not in linkscope's table; see NVIDIA's Xid catalog)", code);
}

}  // namespace linkscope::model
