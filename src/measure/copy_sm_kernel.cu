#include "measure/copy_sm_kernel.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.hpp"
#include "platform/cuda_check.hpp"
#include "platform/cuda_resources.hpp"

namespace linkscope::measure {

namespace {

// How the 16-byte vectors are loaded and stored (the `vec*` variants).
enum LoadKind : int { kPlain = 0, kCg = 1, kNc = 2, kNc256 = 3 };

constexpr int kMaxBulkStages = 8;
constexpr int kBulkThreads = 32;  // one warp per CTA; its first lane drives the bulk copies

// Inline PTX keeps the exact instruction: with `const __restrict__` the compiler would otherwise pick the
// non-coherent path for every variant. `volatile` keeps the unrolled loads ahead of the stores in program order.
template <int kLoad>
__device__ __forceinline__ uint4 load_vector(const uint4* p) {
  uint4 v;
  if constexpr (kLoad == kCg) {
    asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  } else if constexpr (kLoad == kNc) {
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  } else if constexpr (kLoad == kNc256) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
#else
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
#endif
  } else {
    asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  }
  return v;
}

template <int kLoad>
__device__ __forceinline__ void store_vector(uint4* p, const uint4& v) {
  if constexpr (kLoad == kCg) {
    asm volatile("st.global.cg.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
  } else if constexpr (kLoad == kNc || kLoad == kNc256) {
    asm volatile("st.global.L1::no_allocate.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z),
                 "r"(v.w)
                 : "memory");
  } else {
    asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
  }
}

// Every pass copies the tail again (volatile: the compiler may not merge the identical passes), so each of the
// `repeats` copies moves exactly `bytes`.
__device__ __forceinline__ void copy_tail_bytes(const unsigned char* src, unsigned char* dst, unsigned bytes,
                                                std::uint32_t repeats) {
  if (bytes != 0 && blockIdx.x == 0 && threadIdx.x == 0) {
    const volatile unsigned char* from = src;
    volatile unsigned char* to = dst;
    for (std::uint32_t r = 0; r < repeats; ++r) {
      for (unsigned b = 0; b < bytes; ++b) to[b] = from[b];
    }
  }
}

// One pass of the copy by this thread: whole tiles, then the last, partial tile with the same shape, predicated.
template <int kUnroll, int kLoad>
__device__ __forceinline__ void copy_vectors(const uint4* __restrict__ src, uint4* __restrict__ dst,
                                             std::uint64_t vectors, std::uint64_t first, std::uint64_t full,
                                             std::uint64_t threads, std::uint64_t tile) {
  std::uint64_t i = first;
  for (; i < full; i += tile) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = load_vector<kLoad>(src + i + u * threads);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) store_vector<kLoad>(dst + i + u * threads, v[u]);
  }
  if (i < vectors) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      v[u] = make_uint4(0, 0, 0, 0);
      if (i + u * threads < vectors) v[u] = load_vector<kLoad>(src + i + u * threads);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (i + u * threads < vectors) store_vector<kLoad>(dst + i + u * threads, v[u]);
    }
  }
}

// Vector i goes to thread i mod T of the tile it falls in (T = all threads of the grid), so each warp touches
// 512 contiguous bytes per load and every thread issues kUnroll loads before its first store (ptxas may still sink
// non-coherent loads towards their stores: on sm_90 every vec_nc* unroll compiles to 32 registers). The asm
// volatile loads and stores keep every pass of the `repeats` loop.
template <int kUnroll, int kLoad>
__global__ void vec_copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, std::uint64_t vectors,
                                const unsigned char* src_tail, unsigned char* dst_tail, unsigned tail_bytes,
                                std::uint32_t repeats) {
  const std::uint64_t threads = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const std::uint64_t tile = threads * kUnroll;
  const std::uint64_t full = vectors / tile * tile;
  const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::uint32_t pass = 0; pass < repeats; ++pass) {
    copy_vectors<kUnroll, kLoad>(src, dst, vectors, first, full, threads, tile);
  }
  copy_tail_bytes(src_tail, dst_tail, tail_bytes, repeats);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ __forceinline__ std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void barrier_init(std::uint64_t* bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(bar)) : "memory");
}
__device__ __forceinline__ void barrier_expect_bytes(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void barrier_wait(std::uint64_t* bar, std::uint32_t parity) {
  std::uint32_t done = 0;
  do {
    asm volatile(
        "{\n .reg .pred ready;\n mbarrier.try_wait.parity.shared::cta.b64 ready, [%1], %2;\n selp.u32 %0, 1, 0, ready;\n}"
        : "=r"(done)
        : "r"(shared_address(bar)), "r"(parity)
        : "memory");
  } while (done == 0);
}
__device__ __forceinline__ void bulk_load(void* shared, const void* global, std::uint32_t bytes, std::uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   shared_address(shared)),
               "l"(global), "r"(bytes), "r"(shared_address(bar))
               : "memory");
}
__device__ __forceinline__ void bulk_store(void* global, const void* shared, std::uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(global), "r"(shared_address(shared)),
               "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
#endif

// Chunk j of this CTA's sequence is chunk blockIdx.x + (j mod mine) * gridDim.x of the buffer, where `mine` is
// how many chunks one pass gives this CTA; the sequence runs `repeats` passes, so the pipeline flows from one pass
// into the next. Stage j % stages of shared memory holds chunk j between its bulk load (completion counted in
// bytes on that stage's mbarrier) and its bulk store. The stage of chunk j-1 is reloaded with chunk j-1+stages as
// soon as the store of chunk j-1 has read it, so stages-1 loads and up to two stores stay in flight per CTA.
__global__ void bulk_copy_kernel(const unsigned char* src, unsigned char* dst, std::uint64_t bulk_bytes,
                                 std::uint32_t chunk, int stages, const unsigned char* src_tail,
                                 unsigned char* dst_tail, unsigned tail_bytes, std::uint32_t repeats) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(128) unsigned char staging[];
  __shared__ __align__(8) std::uint64_t barriers[kMaxBulkStages];
  if (threadIdx.x == 0) {
    const std::uint64_t chunks = (bulk_bytes + chunk - 1) / chunk;
    const std::uint64_t mine = chunks > blockIdx.x ? (chunks - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
    const std::uint64_t sequence = mine * repeats;
    for (int s = 0; s < stages; ++s) barrier_init(&barriers[s]);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    const auto offset_of = [&](std::uint64_t j) {
      return (blockIdx.x + (j % mine) * gridDim.x) * static_cast<std::uint64_t>(chunk);
    };
    const auto size_of = [&](std::uint64_t j) {
      return static_cast<std::uint32_t>(min(static_cast<std::uint64_t>(chunk), bulk_bytes - offset_of(j)));
    };
    const auto load = [&](std::uint64_t j) {
      const int s = static_cast<int>(j % stages);
      barrier_expect_bytes(&barriers[s], size_of(j));
      bulk_load(staging + static_cast<std::size_t>(s) * chunk, src + offset_of(j), size_of(j), &barriers[s]);
    };
    for (std::uint64_t j = 0; j < sequence && j < static_cast<std::uint64_t>(stages); ++j) load(j);
    for (std::uint64_t j = 0; j < sequence; ++j) {
      const int s = static_cast<int>(j % stages);
      barrier_wait(&barriers[s], static_cast<std::uint32_t>((j / stages) & 1));
      bulk_store(dst + offset_of(j), staging + static_cast<std::size_t>(s) * chunk, size_of(j));
      if (j >= 1 && j - 1 + stages < sequence) {
        asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");  // the store of chunk j-1 has read its stage
        load(j - 1 + stages);
      }
    }
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
#else
  // Below sm_90 (only reached when the binary has no sm_90 code for this GPU): a plain vector copy.
  (void)chunk;
  (void)stages;
  const std::uint64_t vectors = bulk_bytes / 16;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint32_t pass = 0; pass < repeats; ++pass) {
    for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors; i += stride) {
      reinterpret_cast<uint4*>(dst)[i] = reinterpret_cast<const uint4*>(src)[i];
    }
  }
#endif
  copy_tail_bytes(src_tail, dst_tail, tail_bytes, repeats);
}

using VecKernel = void (*)(const uint4*, uint4*, std::uint64_t, const unsigned char*, unsigned char*, unsigned,
                           std::uint32_t);

template <int kLoad>
VecKernel vec_kernel_for_unroll(int unroll) {
  switch (unroll) {
    case 1: return vec_copy_kernel<1, kLoad>;
    case 2: return vec_copy_kernel<2, kLoad>;
    case 4: return vec_copy_kernel<4, kLoad>;
    case 8: return vec_copy_kernel<8, kLoad>;
    case 12: return vec_copy_kernel<12, kLoad>;
    case 16: return vec_copy_kernel<16, kLoad>;
    default: break;
  }
  throw UsageError(fmt::format("--sm-unroll {}: must be one of 1, 2, 4, 8, 12, 16", unroll));
}

VecKernel vec_kernel_for(const std::string& variant, int unroll) {
  if (variant == "vec_cg") return vec_kernel_for_unroll<kCg>(unroll);
  if (variant == "vec_nc") return vec_kernel_for_unroll<kNc>(unroll);
  if (variant == "vec_nc256") return vec_kernel_for_unroll<kNc256>(unroll);
  return vec_kernel_for_unroll<kPlain>(unroll);
}

}  // namespace

SmCopyKernel::SmCopyKernel(int device, const plan::SmKernelShape& shape) : device_(device), shape_(shape) {
  platform::ScopedDevice scope(device);
  cudaDeviceProp prop{};
  LINKSCOPE_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  label_ = shape.label();
  plan::SmKernelShape effective = shape;
  if (shape.variant == "bulk" && prop.major < 9) {
    effective = plan::SmKernelShape{};
    effective.ctas_per_sm = shape.ctas_per_sm;
    effective.repeat = shape.repeat;
    label_ += fmt::format(" (ran as {}: bulk copies need sm_90, GPU {} is sm_{}{})", effective.label(), device,
                          prop.major, prop.minor);
  }
  use_bulk_ = effective.variant == "bulk";
  loads_allocate_in_l1_ = plan::loads_allocate_in_l1(effective.variant);
  sm_count_ = prop.multiProcessorCount;
  int per_sm = 0;
  if (use_bulk_) {
    threads_ = kBulkThreads;
    shared_bytes_ = static_cast<std::size_t>(effective.bulk_chunk_bytes) * effective.bulk_stages;
    const std::size_t static_bytes = sizeof(std::uint64_t) * kMaxBulkStages;
    if (shared_bytes_ + static_bytes > prop.sharedMemPerBlockOptin) {
      throw UsageError(fmt::format("SM kernel '{}' needs {} bytes of shared memory per CTA; GPU {} allows {}", label_,
                                   shared_bytes_ + static_bytes, device, prop.sharedMemPerBlockOptin));
    }
    LINKSCOPE_CUDA_CHECK(cudaFuncSetAttribute(bulk_copy_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              static_cast<int>(shared_bytes_)));
    LINKSCOPE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, bulk_copy_kernel, threads_, shared_bytes_));
  } else {
    threads_ = effective.threads;
    vec_kernel_ = vec_kernel_for(effective.variant, effective.unroll);
    LINKSCOPE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, vec_kernel_, threads_, 0));
  }
  if (per_sm == 0) {
    throw UsageError(fmt::format("SM kernel '{}' cannot run on GPU {}: a CTA of {} threads needs more registers or "
                                 "shared memory than one SM has (use fewer --sm-threads or a smaller --sm-unroll)",
                                 label_, device, threads_));
  }
  // Loads the kernel on this GPU now: with lazy module loading a first launch inside a gated sample could wait
  // for the device to go idle, which it does not while the gate's spin kernel runs.
  cudaFuncAttributes attributes{};
  if (use_bulk_) {
    LINKSCOPE_CUDA_CHECK(cudaFuncGetAttributes(&attributes, bulk_copy_kernel));
  } else {
    LINKSCOPE_CUDA_CHECK(cudaFuncGetAttributes(&attributes, vec_kernel_));
  }
  int ctas = effective.ctas_per_sm == 0 ? per_sm : std::min(effective.ctas_per_sm, per_sm);
  if (effective.ctas_per_sm > per_sm) label_ += fmt::format(" (only {} CTAs fit per SM)", per_sm);
  if (effective.ctas_per_sm == 0) label_ += fmt::format(" (= {} CTAs per SM)", per_sm);
  max_ctas_ = prop.multiProcessorCount * ctas;
}

bool SmCopyKernel::repeats_in_kernel(std::uint64_t bytes) const {
  return plan::repeat_in_kernel(shape_.repeat, bytes, loads_allocate_in_l1_, sm_count_);
}

void SmCopyKernel::launch(const void* src, void* dst, std::uint64_t bytes, cudaStream_t stream,
                          std::uint32_t repeats) const {
  if (repeats == 0) return;
  platform::ScopedDevice scope(device_);
  const std::uint64_t vectors = bytes / 16;
  const auto tail_bytes = static_cast<unsigned>(bytes % 16);
  const auto* src_tail = static_cast<const unsigned char*>(src) + vectors * 16;
  auto* dst_tail = static_cast<unsigned char*>(dst) + vectors * 16;
  if (use_bulk_) {
    const std::uint64_t bulk_bytes = vectors * 16;
    const std::uint64_t chunks = (bulk_bytes + shape_.bulk_chunk_bytes - 1) / shape_.bulk_chunk_bytes;
    const auto grid = static_cast<unsigned>(std::clamp<std::uint64_t>(chunks, 1, static_cast<std::uint64_t>(max_ctas_)));
    bulk_copy_kernel<<<grid, threads_, shared_bytes_, stream>>>(
        static_cast<const unsigned char*>(src), static_cast<unsigned char*>(dst), bulk_bytes,
        static_cast<std::uint32_t>(shape_.bulk_chunk_bytes), shape_.bulk_stages, src_tail, dst_tail, tail_bytes,
        repeats);
  } else {
    // Small copies are spread over as many SMs as they have threads' worth of vectors.
    const std::uint64_t wanted = (vectors + threads_ - 1) / threads_;
    const auto grid = static_cast<unsigned>(std::clamp<std::uint64_t>(wanted, 1, static_cast<std::uint64_t>(max_ctas_)));
    vec_kernel_<<<grid, threads_, 0, stream>>>(static_cast<const uint4*>(src), static_cast<uint4*>(dst), vectors,
                                                src_tail, dst_tail, tail_bytes, repeats);
  }
  LINKSCOPE_CUDA_CHECK(cudaGetLastError());
}

}  // namespace linkscope::measure
