#pragma once
// The synthetic 72-GPU NVSwitch host with 72 NICs the topology benchmarks model.
#include <string>

#include <fmt/format.h>

namespace linkscope::bench {

// Two Intel Emerald Rapids sockets with 36 GPUs each; every B200-class GPU (18 NVLinks to the NVSwitch) shares
// a PCIe Gen5 switch with its own 400G NIC, in NCCL's dump format.
inline std::string synthetic_72_gpu_xml() {
  std::string xml = "<system version=\"1\">\n";
  for (int socket = 0; socket < 2; ++socket) {
    xml += fmt::format("  <cpu host_hash=\"0x1234\" numaid=\"{}\" affinity=\"ffffffff\" arch=\"x86_64\" "
                       "vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"207\">\n",
                       socket);
    for (int local = 0; local < 36; ++local) {
      const int g = socket * 36 + local;
      xml += fmt::format(
          "    <pci busid=\"{0:04x}:00:00.0\" class=\"0x060400\" vendor=\"0x10b5\" device=\"0xc040\" "
          "subsystem_vendor=\"0x10b5\" subsystem_device=\"0xc040\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n"
          "      <pci busid=\"{0:04x}:01:00.0\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x2901\" "
          "subsystem_vendor=\"0x10de\" subsystem_device=\"0x1999\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n"
          "        <gpu dev=\"{1}\" sm=\"100\" rank=\"{1}\" gdr=\"1\">\n"
          "          <nvlink target=\"fffffff:ff:ff.0\" count=\"18\" tclass=\"0x068000\"/>\n"
          "        </gpu>\n"
          "      </pci>\n"
          "      <pci busid=\"{0:04x}:02:00.0\" class=\"0x020700\" vendor=\"0x15b3\" device=\"0x1021\" "
          "subsystem_vendor=\"0x15b3\" subsystem_device=\"0x0023\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n"
          "        <nic>\n"
          "          <net name=\"mlx5_{1}\" dev=\"{1}\" speed=\"400000\" port=\"1\" latency=\"0.000000\" "
          "guid=\"0x{1:x}\" maxconn=\"131072\" gdr=\"1\"/>\n"
          "        </nic>\n"
          "      </pci>\n"
          "    </pci>\n",
          g, g);
    }
    xml += "  </cpu>\n";
  }
  return xml + "</system>\n";
}

}  // namespace linkscope::bench
