// tlb_flush "rar-optimized": RAR with global ASIDs, smp_call_rar_many() with seed 000's
// rar_pending patch (RAR IPI only to CPUs not already processing RARs; rar_flush.h).
#include "kernel/tlbflush/rar_flush.h"
#include "sim/registry.h"

namespace ipisim::kernel {

namespace {

class RarOptimizedFlush final : public RarFlush {
public:
    RarOptimizedFlush() : RarFlush("optimized") {}
};

const sim::Registration<TlbFlushProtocol, RarOptimizedFlush> reg(
    "tlb_flush", "rar-optimized",
    "Intel RAR (seed 000 rar_pending smp_call_rar_many) with global ASIDs; IPIs until > 3 active CPUs");

}  // namespace

}  // namespace ipisim::kernel
