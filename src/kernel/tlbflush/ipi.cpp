// tlb_flush "ipi": the IPI shootdown with no global ASIDs (docs/mechanisms.md §2.5). Every
// hook is the default: flush_tlb_mm_range() takes path (b) or (c), and
// native_flush_tlb_multi() (kernel/mm/tlb.cpp) runs flush_tlb_func through the cross-call layer
// on every CPU that should_flush_tlb() selects, the initiator included (SCF_RUN_LOCAL,
// overlapped with remote delivery), and waits for all of them; freed page tables go to every
// CPU of the mask, lazy ones included. Any x86 machine.
#include "kernel/tlbflush/tlb_flush_protocol.h"
#include "sim/registry.h"

namespace ipisim::kernel {

namespace {

class IpiFlush final : public TlbFlushProtocol {};

const sim::Registration<TlbFlushProtocol, IpiFlush> reg(
    "tlb_flush", "ipi", "native_flush_tlb_multi: IPIs via on_each_cpu_cond_mask(should_flush_tlb)");

}  // namespace

}  // namespace ipisim::kernel
