#pragma once
// -D's version gate, without CUDA or NCCL headers so that the CLI can check it before it looks for a GPU.
namespace linkscope::measure {

// Throws DeviceError unless the loaded NCCL has the 2.28 device API that linkscope's kernels are built for: a
// 2.28.x library (2.29 changed the device ABI) exporting ncclDevCommCreate/Destroy and
// ncclCommWindowRegister/Deregister (coll::check_device_api_library says which is missing). nccl-tests checks
// this while reading its flags, before any communicator exists.
void check_device_api_available();

}  // namespace linkscope::measure
