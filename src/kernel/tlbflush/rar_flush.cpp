// The RAR flush protocols (arch/x86/mm/tlb.c with the RAR RFC): see rar_flush.h.
#include "kernel/tlbflush/rar_flush.h"

#include "hw/check_hooks.h"
#include "kernel/mm/mm.h"
#include "kernel/rar/rar_tlb_flush.h"
#include "sim/registry.h"

namespace ipisim::kernel {

std::string RarFlush::machine_support(const hw::MachineSpec& machine) const {
    std::string why = GlobalAsidProtocol::machine_support(machine);
    if (why.empty() && machine.tlb.rar_payloads == 0) why = "needs a machine with RAR (tlb.rar_payloads > 0)";
    return why;
}

void RarFlush::attach(mm::Mm& m) {
    TlbFlushProtocol::attach(m);
    rar_ = std::make_unique<SmpCallRar>(m.platform(), m.smp().cpu_online_mask(), m.smp().irqchip(), variant_);
    asids_ = std::make_unique<GlobalAsids>(
        m.mem(), [this](hw::Cpu& cpu) { return flush_tlb_all(cpu); }, m.nr_dyn_asids());
}

sim::Task<bool> RarFlush::ipi_flush_must_reach_all(hw::Cpu& self, const mm::FlushTlbInfo& info) {
    const bool all = co_await GlobalAsidProtocol::ipi_flush_must_reach_all(self, info);
    bool global = false;
    if (info.mm != nullptr) {
        const uint64_t asid = co_await mm().mem().load(self.id(), *info.mm->global_asid);
        global = asid != 0;
    }
    co_return all || global;
}

sim::Task<> RarFlush::flush_tlb_all(hw::Cpu& self) {
    // flush_tlb_all() on a RAR machine: one RAR of the kernel "all" type (pcid 0: every PCID,
    // globals included, as do_flush_tlb_all) to every online CPU. Called with global_asid_lock
    // held and IRQs off; see rar_flush.h for why not on_each_cpu(do_flush_tlb_all).
    ++stats_.flush_tlb_all;
    co_await rar_->smp_call_rar_many(self, mm().smp().cpu_online_mask(), 0, 0, RAR_TLB_FLUSH_ALL);
    IPISIM_CHECK_HOOK(tlb_flushed_all(self.id()));
}

sim::Task<> RarFlush::broadcast_tlb_flush(hw::Cpu& self, const mm::FlushTlbInfo& info) {
    ++stats_.broadcasts;
    const uint64_t asid = co_await mm().mem().load(self.id(), *info.mm->global_asid);
    const auto kern_pcid = static_cast<hw::Pcid>(asid + 1);
    co_await rar_tlb_flush(*rar_, mm(), self, info, kern_pcid);
    co_await finish_asid_transition(self, info);
}

RarFlushRegistration::RarFlushRegistration(const char* name, const char* description, RarVariant variant) {
    sim::Registry<TlbFlushProtocol>::instance().add(name, description,
                                                    [variant] { return std::make_unique<RarFlush>(variant); });
    sim::catalog().push_back(sim::CatalogEntry{"tlb_flush", name, description});
}

namespace {

const RarFlushRegistration naive("rar-naive",
                                 "Intel RAR (RFC v4 smp_call_rar_many) with global ASIDs; IPIs until > 3 active CPUs",
                                 {rar_naive_send, cpu_number_placement});
const RarFlushRegistration optimized(
    "rar-optimized", "Intel RAR (seed 000 rar_pending smp_call_rar_many) with global ASIDs; IPIs until > 3 active CPUs",
    {rar_pending_send, cpu_number_placement});

}  // namespace

}  // namespace ipisim::kernel
