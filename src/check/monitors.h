// The checker's invariant monitors on one machine, behind the hw::CheckHooks interface the
// models call (docs/checker.md): stale translation, stuck wait, deadlock and the protocol
// contracts, one file each, with the event log of the window before the first violation.
//
//   check::Monitors mon(platform);             // the platform outlives it
//   check::Monitors::Installed on(mon);        // this thread's hooks, until `on` goes
//   ... run ...
//   mon.finish(/*drained=*/eng.pending_events() == 0, /*unfinished=*/n);
//   if (!mon.violations().empty()) ...
//
// Observers only: nothing here changes simulated state or schedules an event, so results and
// fingerprints are those of a run without monitors. With stop_on_violation (the checker), the
// first violation stops the engine.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "check/contracts.h"
#include "check/deadlock.h"
#include "check/event_log.h"
#include "check/freed_tables.h"
#include "check/progress.h"
#include "check/stale_translation.h"
#include "check/violation.h"
#include "check/waits.h"
#include "hw/check_hooks.h"
#include "hw/platform.h"

namespace ipisim::check {

struct MonitorOptions {
    sim::Picos wait_bound;           // zero: default_wait_bound(machine)
    bool event_log = false;          // keep the window before the first violation
    bool stop_on_violation = false;  // stop the engine at the first violation
    // Stop the run when no CPU retires work for this long while some wait or spin
    // (check/progress.h); zero: off.
    sim::Picos no_progress_bound;
};

class Monitors final : public hw::CheckHooks {
public:
    static constexpr size_t kKept = 16;  // violations kept in full; all are counted

    // With `kernel`, the freed-page-table rule also reads its mm layer (TLBs, loaded mms).
    explicit Monitors(hw::Platform& platform, MonitorOptions options = {}, kernel::Kernel* kernel = nullptr);

    // Installs the monitors as this thread's hooks for its lifetime.
    class Installed {
    public:
        explicit Installed(Monitors& m) : previous_(hw::set_check_hooks(&m)) {}
        ~Installed() { hw::set_check_hooks(previous_); }
        Installed(const Installed&) = delete;
        Installed& operator=(const Installed&) = delete;

    private:
        hw::CheckHooks* previous_;
    };

    // The run ended: with `drained` (no event left) and `unfinished` pieces of work not done,
    // a deadlock or lost wake-up; otherwise every wait still open beyond the bound.
    void finish(bool drained, uint32_t unfinished);
    // The end of an experiment point (whose work is not counted): when no event is left and some
    // CPU still waits, that wait can never end (a deadlock or a lost wake-up); otherwise every
    // wait still open beyond the bound.
    void finish_run();
    // The results row's `check` member: {"violations": N} and, when N > 0, the first one
    // {"kind", "cpu", "time_ps", "diagnosis"} and the count by kind.
    [[nodiscard]] nlohmann::ordered_json summary() const;

    [[nodiscard]] const std::vector<Violation>& violations() const { return kept_; }
    [[nodiscard]] uint64_t count(ViolationKind k) const { return counts_[static_cast<size_t>(k)]; }
    [[nodiscard]] uint64_t total() const;
    // The event log as it was at the first violation (empty without event_log).
    [[nodiscard]] const std::string& window() const { return window_; }
    [[nodiscard]] const Waits& waits() const { return waits_; }
    [[nodiscard]] const Deadlock& deadlock() const { return deadlock_; }

    // hw::CheckHooks
    void wait_begin(hw::CpuId cpu, const hw::SimVar& var) override;
    void wait_end(hw::CpuId cpu) override;
    void sleep_begin(hw::CpuId cpu, const hw::SimVar& var) override;
    void sleep_end(hw::CpuId cpu, const hw::SimVar& var) override;
    void frame_push(hw::CpuId cpu, uint32_t label) override { waits_.frame_push(cpu, label); }
    void frame_pop(hw::CpuId cpu) override { waits_.frame_pop(cpu); }
    void lock_acquired(hw::CpuId cpu, const hw::SimVar& word) override;
    void lock_released(hw::CpuId cpu, const hw::SimVar& word) override;
    void lock_queued(hw::CpuId cpu, const hw::SimVar& node, const hw::SimVar& word) override;
    void rwsem_acquired(hw::CpuId cpu, const hw::SimVar& count, bool write) override;
    void rwsem_released(hw::CpuId cpu, const hw::SimVar& count, bool write) override;
    void csd_locked(hw::CpuId cpu, const hw::SimVar& flags, hw::CpuId target) override;
    void csd_unlock(hw::CpuId cpu, const hw::SimVar& flags, uint64_t old_flags) override;
    void user_tlb_hit(hw::CpuId cpu, uint64_t mm_id, uint64_t va, sim::Picos filled) override;
    void pte_cleared(hw::CpuId cpu, uint64_t mm_id, uint64_t vpn) override;
    void pages_released(hw::CpuId cpu, uint64_t mm_id, uint64_t start, uint64_t end, bool freed_tables,
                        sim::Picos zapped) override;
    void flush_returned(hw::CpuId cpu, uint64_t mm_id, uint64_t start, uint64_t end, sim::Picos began) override;
    void compute_done(hw::CpuId cpu, bool work) override;
    void cr3_written(hw::CpuId cpu, uint16_t pcid) override { cr3_pcid_.at(cpu) = pcid; }
    void rar_payload_written(hw::CpuId sender, uint32_t slot) override;
    void rar_action_pending(hw::CpuId sender, hw::CpuId target, uint32_t slot) override;
    void rar_action_done(hw::CpuId target, uint32_t slot) override;
    void invlpgb_issued(hw::CpuId cpu, bool all_asids) override;
    void tlbsync_returned(hw::CpuId cpu) override;
    void tlb_flushed_all(hw::CpuId cpu) override;
    void global_asid_assigned(hw::CpuId cpu, uint64_t asid) override;
    void global_asid_freed(hw::CpuId cpu, uint64_t asid) override;
    void global_asid_reset_begin(hw::CpuId cpu) override;
    void global_asid_reset_end(hw::CpuId cpu) override;

private:
    [[nodiscard]] sim::Picos now() const { return eng_.now(); }
    void report(Violation v);
    void log(hw::CpuId cpu, LogKind kind, uint64_t a = 0, uint64_t b = 0, const hw::SimVar* var = nullptr) {
        if (options_.event_log) log_.record(now(), cpu, kind, a, b, var);
    }

    hw::Platform& platform_;
    kernel::Kernel* kernel_;
    sim::Engine& eng_;
    MonitorOptions options_;
    Waits waits_;
    StaleTranslation stale_;
    Deadlock deadlock_;
    Contracts contracts_;
    Progress progress_;
    bool stopped_ = false;  // a no-progress violation stopped the run: it stays stopped
    EventLog log_;
    std::vector<hw::Pcid> cr3_pcid_;  // per CPU: the PCID last written into CR3 (0: none yet)
    std::string window_;
    std::vector<Violation> kept_;
    std::array<uint64_t, 5> counts_{};
};

}  // namespace ipisim::check
