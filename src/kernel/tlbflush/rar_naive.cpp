// tlb_flush "rar-naive": RAR with global ASIDs, smp_call_rar_many() of RFC v4 (rar_flush.h).
#include "kernel/tlbflush/rar_flush.h"
#include "sim/registry.h"

namespace ipisim::kernel {

namespace {

class RarNaiveFlush final : public RarFlush {
public:
    RarNaiveFlush() : RarFlush("naive") {}
};

const sim::Registration<TlbFlushProtocol, RarNaiveFlush> reg(
    "tlb_flush", "rar-naive", "Intel RAR (RFC v4 smp_call_rar_many) with global ASIDs; IPIs until > 3 active CPUs");

}  // namespace

}  // namespace ipisim::kernel
